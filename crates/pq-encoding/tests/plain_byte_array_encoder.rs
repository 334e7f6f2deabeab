//! PLAIN byte arrays encoded from Arrow-style offsets against the value by
//! value encoder: random lengths around the fixed-size copies (32 and 64
//! bytes), offsets not starting at 0, data past the last value, and bad
//! offsets refused with nothing appended.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use pq_encoding::plain;
use proptest::prelude::*;

/// Values of 0..=100 bytes (most short, some across 32 and 64), as offsets
/// into one buffer that starts `lead` bytes in and has `tail` bytes after.
fn layout() -> impl Strategy<Value = (Vec<usize>, Vec<u8>)> {
    (
        prop::collection::vec(
            prop_oneof![0usize..=12, 28usize..=36, 60usize..=100],
            0..200,
        ),
        0usize..40,
        0usize..40,
        any::<u8>(),
    )
        .prop_map(|(lens, lead, tail, seed)| {
            let mut offsets = vec![lead];
            for l in &lens {
                offsets.push(offsets.last().unwrap() + l);
            }
            let size = offsets.last().unwrap() + tail;
            let data = (0..size)
                .map(|i| (i as u8).wrapping_mul(31) ^ seed)
                .collect();
            (offsets, data)
        })
}

fn by_value(offsets: &[usize], data: &[u8], prefix: &[u8]) -> Vec<u8> {
    let mut want = prefix.to_vec();
    plain::encode_byte_array(offsets.windows(2).map(|w| &data[w[0]..w[1]]), &mut want);
    want
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn offsets_encode_as_values_one_by_one((offsets, data) in layout(), prefix in prop::collection::vec(any::<u8>(), 0..5)) {
        let want = by_value(&offsets, &data, &prefix);
        let o32: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
        let o64: Vec<i64> = offsets.iter().map(|&o| o as i64).collect();
        let mut out = prefix.clone();
        plain::encode_byte_array_offsets(&o32, &data, &mut out).unwrap();
        prop_assert_eq!(&out, &want);
        let mut out = prefix.clone();
        plain::encode_byte_array_offsets(&o64, &data, &mut out).unwrap();
        prop_assert_eq!(&out, &want);
    }

    #[test]
    fn bad_offsets_append_nothing((offsets, data) in layout(), at in any::<prop::sample::Index>(), past in 1usize..10) {
        prop_assume!(offsets.len() >= 2);
        let mut o: Vec<i64> = offsets.iter().map(|&x| x as i64).collect();
        let k = 1 + at.index(o.len() - 1);
        // Either one offset below the one before it, or the last past the data.
        if o[k] > o[k - 1] {
            o[k] = o[k - 1] - 1;
        } else {
            let last = o.len() - 1;
            o[last] = (data.len() + past) as i64;
        }
        let mut out = vec![7u8];
        prop_assert!(plain::encode_byte_array_offsets(&o, &data, &mut out).is_err());
        prop_assert_eq!(out, vec![7u8]);
    }

    #[test]
    fn indexed_values_encode_as_values_one_by_one(
        (offsets, data) in layout(),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 0..100),
        prefix in prop::collection::vec(any::<u8>(), 0..5),
    ) {
        let values = offsets.len().saturating_sub(1);
        let mut indices: Vec<usize> = if values == 0 {
            Vec::new()
        } else {
            picks.iter().map(|p| p.index(values)).collect()
        };
        indices.sort_unstable();
        let mut want = prefix.clone();
        plain::encode_byte_array(indices.iter().map(|&i| &data[offsets[i]..offsets[i + 1]]), &mut want);
        let o32: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
        let mut out = prefix.clone();
        plain::encode_byte_array_indexed(&o32, &data, &indices, &mut out).unwrap();
        prop_assert_eq!(&out, &want);
        let o64: Vec<i64> = offsets.iter().map(|&o| o as i64).collect();
        let mut out = prefix.clone();
        plain::encode_byte_array_indexed(&o64, &data, &indices, &mut out).unwrap();
        prop_assert_eq!(&out, &want);
        // An index past the values, or a value past the data: an error,
        // nothing appended.
        let mut out = vec![7u8];
        let mut bad = indices.clone();
        bad.push(values);
        prop_assert!(plain::encode_byte_array_indexed(&o64, &data, &bad, &mut out).is_err());
        if let Some(&i) = indices.first() {
            let mut o = o64.clone();
            o[i + 1] = (data.len() + 1) as i64;
            prop_assert!(plain::encode_byte_array_indexed(&o, &data, &indices, &mut out).is_err());
        }
        prop_assert_eq!(out, vec![7u8]);
    }
}
