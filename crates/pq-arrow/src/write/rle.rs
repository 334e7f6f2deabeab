//! The RLE / bit-packing hybrid encoding of whole slices (levels and
//! dictionary indices), producing the same bytes as
//! `pq_encoding::rle::RleEncoder` but working on runs of the slice instead
//! of pushing every value through a state machine: the literals between
//! repeated runs are always a contiguous stretch of the input, so they are
//! bit-packed straight from it.

use pq_encoding::rle::RleValue;
use pq_encoding::varint::write_uleb128;

/// Runs at least this long are written as repeated runs.
const MIN_REPEAT: usize = 8;
/// Literals are flushed when their count reaches this (one-byte header).
const MAX_LITERALS: usize = 63 * 8;

/// Appends the hybrid encoding of `values` with `bit_width` (0..=32) bits,
/// without length prefix.
pub(crate) fn encode<T: RleValue>(values: &[T], bit_width: u8, out: &mut Vec<u8>) {
    let w = bit_width.min(32) as usize;
    let n = values.len();
    // Worst case: all literals, one header byte per 504 values.
    out.reserve((n * w).div_ceil(8) + n / MAX_LITERALS + 16);
    let mut ls = 0; // first buffered literal
    let mut pos = 0; // values before this are literals or written
    // Only runs of at least 8 change the output, and every such run holds
    // a whole aligned block of 4 equal values: look at those blocks alone
    // (one branch per 4 values), and at the values around one only when
    // it is uniform.
    let mut b = 0;
    while b + 4 <= n {
        let v = values[b];
        let uniform = (values[b + 1] == v) & (values[b + 2] == v) & (values[b + 3] == v);
        if !uniform {
            b += 4;
            continue;
        }
        let mut s = b;
        while s > pos && values[s - 1] == v {
            s -= 1;
        }
        let mut e = b + 4;
        while e < n && values[e] == v {
            e += 1;
        }
        b = e.next_multiple_of(4);
        let len = e - s;
        if len < MIN_REPEAT {
            continue;
        }
        // The shorter runs before this one are literals, pushed one by one.
        push_literals(values, &mut ls, pos, s, w, out);
        let k = (8 - (s - ls) % 8) % 8;
        if len - k >= MIN_REPEAT {
            pack_literals(&values[ls..s + k], w, out);
            write_uleb128(out, ((len - k) as u64) << 1);
            out.extend_from_slice(&v.to_u32().to_le_bytes()[..w.div_ceil(8)]);
            ls = e;
        } else {
            // The top-up goes in without a flush check, the rest with.
            push_literals(values, &mut ls, s + k, e, w, out);
        }
        pos = e;
    }
    push_literals(values, &mut ls, pos, n, w, out);
    pack_literals(&values[ls..n], w, out);
}

/// Adds `values[from..to]` to the literals `values[*ls..from]` one by one,
/// flushing whenever their count becomes exactly [`MAX_LITERALS`].
fn push_literals<T: RleValue>(
    values: &[T],
    ls: &mut usize,
    from: usize,
    to: usize,
    w: usize,
    out: &mut Vec<u8>,
) {
    let mut pos = from;
    loop {
        let c = pos - *ls;
        if c < MAX_LITERALS && c + (to - pos) >= MAX_LITERALS {
            let at = *ls + MAX_LITERALS;
            pack_literals(&values[*ls..at], w, out);
            *ls = at;
            pos = at;
        } else {
            break;
        }
    }
}

/// Appends a 4-byte length then [`encode`]'s output.
pub(crate) fn encode_length_prefixed<T: RleValue>(values: &[T], bit_width: u8, out: &mut Vec<u8>) {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    encode(values, bit_width, out);
    let len = (out.len() - at - 4) as u32;
    out[at..at + 4].copy_from_slice(&len.to_le_bytes());
}

/// One bit-packed run of `lits` (padded with zeros to whole groups of 8).
fn pack_literals<T: RleValue>(lits: &[T], w: usize, out: &mut Vec<u8>) {
    if lits.is_empty() {
        return;
    }
    let groups = lits.len().div_ceil(8);
    write_uleb128(out, ((groups as u64) << 1) | 1);
    let whole = lits.len() / 8 * 8;
    pack(&lits[..whole], w, out);
    let rest = &lits[whole..];
    if !rest.is_empty() {
        let mut tail = [T::default(); 8];
        tail[..rest.len()].copy_from_slice(rest);
        pack(&tail, w, out);
    }
}

/// Packs whole groups of 8 values of `w` (0..=32) bits, LSB first, with a
/// loop specialised for each width.
fn pack<T: RleValue>(lits: &[T], w: usize, out: &mut Vec<u8>) {
    macro_rules! widths {
        ($($n:literal)*) => {
            match w {
                $($n => pack_w::<T, $n>(lits, out),)*
                _ => {}
            }
        };
    }
    widths!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
}

fn pack_w<T: RleValue, const W: usize>(lits: &[T], out: &mut Vec<u8>) {
    let mask = if W == 32 { u32::MAX } else { (1u32 << W) - 1 };
    let start = out.len();
    out.resize(start + lits.len() / 8 * W, 0);
    for (c, dst) in lits.chunks_exact(8).zip(out[start..].chunks_exact_mut(W)) {
        // 8 * 32 bits fit in four 64-bit words; with W constant the
        // positions below are constants once the loop is unrolled.
        let mut acc = [0u64; 4];
        for (k, &v) in c.iter().enumerate() {
            let bit = k * W;
            let x = u64::from(v.to_u32() & mask);
            let (word, sh) = (bit / 64, bit % 64);
            acc[word] |= x << sh;
            if sh + W > 64 {
                acc[word + 1] |= x >> (64 - sh);
            }
        }
        let mut bytes = [0u8; 32];
        for (b, a) in bytes.chunks_exact_mut(8).zip(acc) {
            b.copy_from_slice(&a.to_le_bytes());
        }
        dst.copy_from_slice(&bytes[..W]);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use pq_encoding::rle::RleEncoder;

    fn reference<T: RleValue>(values: &[T], w: u8) -> Vec<u8> {
        let mut e = RleEncoder::new(w);
        e.put_slice(values);
        let mut out = Vec::new();
        e.finish(&mut out);
        out
    }

    fn check(values: &[u32], w: u8) {
        let mut out = Vec::new();
        encode(values, w, &mut out);
        assert_eq!(
            out,
            reference(values, w),
            "width {w}, {} values",
            values.len()
        );
    }

    #[test]
    fn same_bytes_as_the_state_machine() {
        let mut seed = 7u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as u32
        };
        check(&[], 3);
        check(&[0; 77], 0);
        check(&[u32::MAX, 0, u32::MAX, u32::MAX], 32);
        for w in [1u8, 2, 3, 5, 8, 12, 17, 31, 32] {
            let max = if w == 32 { u32::MAX } else { (1 << w) - 1 };
            for len in [1usize, 7, 8, 9, 503, 504, 505, 1000, 5000] {
                // Random, long runs, short runs and mixtures, so literal
                // top-ups, the 504 flush and runs just under 8 all occur.
                let random: Vec<u32> = (0..len).map(|_| next() & max).collect();
                check(&random, w);
                let runs: Vec<u32> = (0..len)
                    .map(|i| ((i / (1 + (i % 23))) as u32) & max)
                    .collect();
                check(&runs, w);
                let mut mixed = Vec::new();
                while mixed.len() < len {
                    let v = next() & max;
                    let r = [1usize, 3, 7, 8, 9, 15, 16, 600][(next() % 8) as usize];
                    mixed.extend(std::iter::repeat_n(v, r));
                }
                check(&mixed, w);
            }
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
        // Long literal stretches around the 504-value flush.
        for gap in [496usize, 500, 503, 504, 505, 512] {
            let mut v: Vec<u32> = (0..gap as u32).map(|i| i % 2).collect();
            v.extend([5; 12]);
            v.extend((0..600).map(|i| i % 3));
            v.extend([6; 8]);
            check(&v, 3);
        }
    }

    #[test]
    fn levels_and_prefix() {
        let levels: Vec<i16> = (0..3000).map(|i| ((i * 7) % 5 == 0) as i16).collect();
        let mut out = Vec::new();
        encode_length_prefixed(&levels, 1, &mut out);
        let body = reference(&levels, 1);
        assert_eq!(&out[..4], &(body.len() as u32).to_le_bytes());
        assert_eq!(&out[4..], &body[..]);
    }
}
