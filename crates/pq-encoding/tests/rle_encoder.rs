//! The hybrid encoder against a naive one, value by value, and through the
//! decoder: random widths 0..=32 and runs of every length around the
//! 8-value groups and the 504-value literal flush.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use pq_encoding::rle::{self, RleDecoder};
use proptest::prelude::*;

/// The simplest encoder of the same runs: one value at a time, literals in
/// a vector, packed bit by bit.
fn reference(values: &[u32], bit_width: u8) -> Vec<u8> {
    let w = usize::from(bit_width.min(32));
    let mut out = Vec::new();
    let mut lits: Vec<u32> = Vec::new();
    let push = |lits: &mut Vec<u32>, out: &mut Vec<u8>, v: u32| {
        lits.push(v);
        if lits.len() == 504 {
            flush(lits, w, out);
        }
    };
    let mut i = 0;
    while i < values.len() {
        let v = values[i];
        let len = values[i..].iter().take_while(|&&x| x == v).count();
        i += len;
        let top_up = (8 - lits.len() % 8) % 8;
        if len >= 8 && len - top_up >= 8 {
            for _ in 0..top_up {
                push(&mut lits, &mut out, v);
            }
            flush(&mut lits, w, &mut out);
            uleb128(&mut out, ((len - top_up) as u64) << 1);
            out.extend_from_slice(&v.to_le_bytes()[..w.div_ceil(8)]);
        } else {
            for _ in 0..len {
                push(&mut lits, &mut out, v);
            }
        }
    }
    flush(&mut lits, w, &mut out);
    out
}

fn flush(lits: &mut Vec<u32>, w: usize, out: &mut Vec<u8>) {
    if lits.is_empty() {
        return;
    }
    let groups = lits.len().div_ceil(8);
    uleb128(out, ((groups as u64) << 1) | 1);
    lits.resize(groups * 8, 0);
    let mut bits = vec![0u8; groups * w];
    for (k, &v) in lits.iter().enumerate() {
        for b in 0..w {
            if v >> b & 1 == 1 {
                let at = k * w + b;
                bits[at / 8] |= 1 << (at % 8);
            }
        }
    }
    out.extend_from_slice(&bits);
    lits.clear();
}

fn uleb128(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Encodes, compares with the reference, and decodes back with the count
/// and length checks a page applies.
fn check(values: &[u32], w: u8) {
    let mut out = Vec::new();
    rle::encode(values, w, &mut out);
    assert_eq!(out, reference(values, w), "width {w}, {values:?}");
    let mut back: Vec<u32> = Vec::new();
    let mut dec = RleDecoder::new(&out, w).unwrap().with_count(values.len());
    dec.decode_into(&mut back, values.len()).unwrap();
    dec.check_end().unwrap();
    assert_eq!(back, values, "width {w}");
}

fn mask(w: u8) -> u32 {
    if w >= 32 { u32::MAX } else { (1 << w) - 1 }
}

/// Values as runs: lengths 1..=20 straddle the 8-value groups, and a few
/// long ones make repeated runs after long literal stretches.
fn runs() -> impl Strategy<Value = (u8, Vec<u32>)> {
    (0u8..=32).prop_flat_map(|w| {
        let run = (
            any::<u32>(),
            prop_oneof![8 => 1usize..=20, 1 => 400usize..700],
        );
        prop::collection::vec(run, 0..120).prop_map(move |runs| {
            let values = runs
                .into_iter()
                .flat_map(|(v, n)| std::iter::repeat_n(v & mask(w), n))
                .collect();
            (w, values)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn same_bytes_as_the_naive_encoder((w, values) in runs()) {
        check(&values, w);
    }

    #[test]
    fn random_values_at_every_width(w in 0u8..=32, raw in prop::collection::vec(any::<u32>(), 0..1100)) {
        let values: Vec<u32> = raw.iter().map(|&v| v & mask(w)).collect();
        check(&values, w);
    }
}

#[test]
fn runs_at_every_alignment() {
    // Two-valued data biased to long runs: runs of 7, 8 and 9 start at
    // every offset from the aligned blocks and from earlier runs.
    let mut seed = 3u64;
    for case in 0..3000 {
        let mut v = Vec::new();
        let len = 1 + case % 90;
        while v.len() < len {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            let r = 1 + ((seed >> 40) % 12) as usize;
            let x = ((seed >> 33) & 1) as u32;
            v.extend(std::iter::repeat_n(x, r));
        }
        v.truncate(len);
        check(&v, 1);
    }
}

#[test]
fn literal_flush_around_repeated_runs() {
    // Literal stretches ending just before, at and after the 504-value
    // flush, followed by runs that do and do not survive the top-up.
    for gap in [493usize, 496, 497, 500, 503, 504, 505, 512] {
        for run in [8usize, 9, 12, 15, 16] {
            let mut v: Vec<u32> = (0..gap as u32).map(|i| i % 2).collect();
            v.extend(std::iter::repeat_n(5, run));
            v.extend((0..600).map(|i| i % 3));
            v.extend([6; 8]);
            check(&v, 3);
        }
    }
}

#[test]
fn every_value_type_encodes_alike() {
    let levels: Vec<i16> = (0..2000).map(|i| ((i / 7) % 4) as i16).collect();
    let as_u32: Vec<u32> = levels.iter().map(|&l| l as u32).collect();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    rle::encode(&levels, 2, &mut a);
    rle::encode(&as_u32, 2, &mut b);
    assert_eq!(a, b);
    let flags: Vec<bool> = (0..2000).map(|i| i % 11 < 9).collect();
    let as_u32: Vec<u32> = flags.iter().map(|&f| u32::from(f)).collect();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    rle::encode_length_prefixed(&flags, 1, &mut a);
    rle::encode_length_prefixed(&as_u32, 1, &mut b);
    assert_eq!(a, b);
    assert_eq!(&a[..4], &((a.len() - 4) as u32).to_le_bytes());
}

/// Gathering positions from a stream against decoding it whole: random
/// runs at every width, positions at random densities (and some out of
/// order or past the count), gathered in steps that start mid-run and
/// mid-group after values taken by `decode` and passed by `skip`.
fn check_gather(values: &[u32], w: u8, picks: &[(u16, u8)]) {
    let mut runs = Vec::new();
    rle::encode(values, w, &mut runs);
    let mut dec = RleDecoder::new(&runs, w).unwrap().with_count(values.len());
    let mut at = 0usize;
    for (i, &(len, density)) in picks.iter().enumerate() {
        let n = usize::from(len).min(values.len() - at);
        match i % 3 {
            // Every third step decodes, and every third one skips, so that
            // gathers start wherever those leave the decoder.
            1 => {
                let mut out = vec![0u32; n];
                assert_eq!(dec.decode(&mut out).unwrap(), n);
                assert_eq!(out, values[at..at + n]);
            }
            2 if density % 2 == 0 => assert_eq!(dec.skip(n).unwrap(), n),
            _ => {
                let step = usize::from(density % 40) + 1;
                let mut positions: Vec<u32> = (0..n).step_by(step).map(|p| p as u32).collect();
                let mut want: Vec<u32> =
                    positions.iter().map(|&p| values[at + p as usize]).collect();
                if density > 200 && positions.len() > 2 {
                    // A repeated position, then one past the count.
                    positions[1] = positions[0];
                    want[1] = u32::MAX;
                    positions.push(n as u32);
                    want.push(u32::MAX);
                }
                assert_eq!(dec.gather(n, &mut positions).unwrap(), n);
                assert_eq!(positions, want, "width {w}, from {at}, {n} values");
            }
        }
        at += n;
    }
    // What is left decodes as the rest of the stream.
    let mut out = vec![0u32; values.len() - at];
    assert_eq!(dec.decode(&mut out).unwrap(), out.len());
    assert_eq!(out, values[at..]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn gathered_positions_equal_the_decoded_values(
        (w, values) in runs(),
        picks in prop::collection::vec((0u16..700, any::<u8>()), 1..12),
    ) {
        check_gather(&values, w, &picks);
    }

    #[test]
    fn gathered_random_values_at_every_width(
        w in 0u8..=32,
        raw in prop::collection::vec(any::<u32>(), 0..3000),
        picks in prop::collection::vec((0u16..900, any::<u8>()), 1..12),
    ) {
        let values: Vec<u32> = raw.iter().map(|&v| v & mask(w)).collect();
        check_gather(&values, w, &picks);
    }
}

#[test]
fn gathering_past_the_data_reports_what_it_held() {
    let values: Vec<u32> = (0..50).map(|i| i % 5).collect();
    let mut runs = Vec::new();
    rle::encode(&values, 3, &mut runs);
    let mut dec = RleDecoder::new(&runs, 3).unwrap().with_count(50);
    let mut positions = [10, 49, 60];
    assert_eq!(dec.gather(80, &mut positions).unwrap(), 50);
    assert_eq!(positions[..2], [values[10], values[49]]);
}
