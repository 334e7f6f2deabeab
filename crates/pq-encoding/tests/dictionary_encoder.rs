//! The dictionary encoders against a naive one built on a `HashMap`: the
//! same entries in the same order, the same ids, the same page bytes, and
//! the values back through the decoders.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;

use pq_encoding::ByteArrayDecode;
use pq_encoding::dictionary::{
    BytesDict, FixedDict, gather, gather_byte_array, gather_fixed, indices_decoder,
};
use pq_encoding::plain::{self, ByteArrayDecoder, PlainDecoder};
use pq_encoding::rle;
use proptest::prelude::*;

/// Entries in first-seen order and the id of every value, keyed by `key`.
fn naive<K: std::hash::Hash + Eq, V: Clone>(
    values: &[V],
    key: impl Fn(&V) -> K,
) -> (Vec<V>, Vec<u32>) {
    let mut ids = HashMap::new();
    let mut entries = Vec::new();
    let indices = values
        .iter()
        .map(|v| {
            *ids.entry(key(v)).or_insert_with(|| {
                entries.push(v.clone());
                entries.len() as u32 - 1
            })
        })
        .collect();
    (entries, indices)
}

/// A data page of dictionary indices as the spec lays it out.
fn naive_indices_page(indices: &[u32], entries: usize) -> Vec<u8> {
    let max = entries.saturating_sub(1) as u32;
    let w = (32 - max.leading_zeros()) as u8;
    let mut page = vec![w];
    rle::encode(indices, w, &mut page);
    page
}

fn check_fixed<T>(values: &[T], key: impl Fn(&T) -> u64, cap: usize)
where
    T: pq_encoding::dictionary::DictKey + std::fmt::Debug,
{
    let (entries, indices) = naive(values, &key);
    let mut dict = FixedDict::<T>::new(cap);
    // In two calls, as a writer puts batch after batch.
    let half = values.len() / 2;
    dict.put(&values[..half]);
    dict.put(&values[half..]);
    assert_eq!(dict.num_entries(), entries.len());
    assert_eq!(dict.num_indices(), values.len());
    assert_eq!(dict.size(), entries.len() * std::mem::size_of::<T>());
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    dict.write_dict(&mut ours);
    plain::encode(&entries, &mut theirs);
    assert_eq!(ours, theirs);
    let mut page = Vec::new();
    dict.write_indices(&mut page);
    assert_eq!(page, naive_indices_page(&indices, entries.len()));
    assert_eq!(dict.num_indices(), 0);
    // Back through the decoders.
    let mut decoded = Vec::new();
    PlainDecoder::<T>::new(&ours)
        .decode_into(&mut decoded, entries.len())
        .unwrap();
    let mut idx = Vec::new();
    let mut dec = indices_decoder(&page).unwrap().with_count(values.len());
    dec.decode_into(&mut idx, values.len()).unwrap();
    dec.check_end().unwrap();
    let mut back = Vec::new();
    gather(&decoded, &idx, &mut back).unwrap();
    assert!(back.iter().zip(values).all(|(a, b)| key(a) == key(b)));
}

fn check_bytes(values: &[Vec<u8>]) {
    let (entries, indices) = naive(values, Vec::clone);
    let mut dict = BytesDict::new();
    for v in values {
        dict.put(v);
    }
    assert_eq!(dict.num_entries(), entries.len());
    let plain_len: usize = entries.iter().map(|e| 4 + e.len()).sum();
    assert_eq!(dict.size(), plain_len);
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    dict.write_dict(&mut ours);
    plain::encode_byte_array(entries.iter().map(Vec::as_slice), &mut theirs);
    assert_eq!(ours, theirs);
    let mut flat = Vec::new();
    dict.write_dict_fixed(&mut flat);
    assert_eq!(flat, entries.concat());
    assert_eq!(dict.fixed_size(), flat.len());
    // The distinct values of the page, once each, in first-seen order.
    let fresh: Vec<&[u8]> = dict.new_in_page(0).collect();
    assert_eq!(fresh, entries.iter().map(Vec::as_slice).collect::<Vec<_>>());
    let mut page = Vec::new();
    dict.write_indices(&mut page);
    assert_eq!(page, naive_indices_page(&indices, entries.len()));
    let (mut off, mut bytes) = (Vec::<i32>::new(), Vec::new());
    ByteArrayDecoder::new(&ours)
        .decode(&mut off, &mut bytes, entries.len())
        .unwrap();
    let mut idx = Vec::new();
    indices_decoder(&page)
        .unwrap()
        .decode_into(&mut idx, values.len())
        .unwrap();
    let (mut o, mut v) = (Vec::<i64>::new(), Vec::new());
    gather_byte_array(&off, &bytes, &idx, &mut o, &mut v).unwrap();
    assert_eq!(v, values.concat());
    // The same entries as fixed-length values, when they are.
    if let Some(first) = entries.first()
        && entries.iter().all(|e| e.len() == first.len())
        && !first.is_empty()
    {
        let mut fixed = Vec::new();
        gather_fixed(&flat, first.len(), &idx, &mut fixed).unwrap();
        assert_eq!(fixed, values.concat());
    }
}

/// Few distinct values among many (long runs of repeats), or many.
fn cardinality() -> impl Strategy<Value = u64> {
    prop_oneof![Just(1u64), 2u64..40, 1000u64..100_000]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn fixed_same_as_naive(
        raw in prop::collection::vec(any::<u64>(), 0..3000),
        distinct in cardinality(),
        cap in prop_oneof![Just(usize::MAX), 1usize..2000],
    ) {
        let ints: Vec<i64> = raw.iter().map(|&r| (r % distinct) as i64 - 7).collect();
        check_fixed(&ints, |&v| v as u64, cap);
        let small: Vec<i32> = raw.iter().map(|&r| (r % distinct) as i32 * -3).collect();
        check_fixed(&small, |&v| u64::from(v as u32), cap);
        // Floats by their bits: NaN payloads, -0.0 and 0.0 are distinct.
        let specials = [f64::NAN, -f64::NAN, f64::from_bits(0x7ff8_0000_0000_0001), -0.0, 0.0];
        let floats: Vec<f64> = raw
            .iter()
            .map(|&r| if r % 7 == 0 { specials[(r % 5) as usize] } else { (r % distinct) as f64 * 0.25 })
            .collect();
        check_fixed(&floats, |&v| v.to_bits(), cap);
        let f32s: Vec<f32> = floats.iter().map(|&f| f as f32).collect();
        check_fixed(&f32s, |&v| u64::from(v.to_bits()), cap);
    }

    #[test]
    fn bytes_same_as_naive(
        picks in prop::collection::vec(any::<u64>(), 0..2000),
        pool in prop::collection::vec(prop::collection::vec(0u8..4, 0..40), 1..300),
    ) {
        // Short alphabets and lengths 0..40: every hash and comparison
        // path, and values equal but for one byte or their length.
        let values: Vec<Vec<u8>> = picks.iter().map(|&p| pool[(p % pool.len() as u64) as usize].clone()).collect();
        check_bytes(&values);
        let fixed: Vec<Vec<u8>> = picks.iter().map(|&p| (p % 97).to_le_bytes()[..3].to_vec()).collect();
        check_bytes(&fixed);
    }
}

#[test]
fn indices_restart_per_page_and_ids_stay() {
    let mut dict = FixedDict::<i32>::new(100);
    dict.put(&[3, 1, 3]);
    let mut first = Vec::new();
    dict.write_indices(&mut first);
    dict.put(&[1, 4]);
    assert_eq!(dict.num_indices(), 2);
    let mut second = Vec::new();
    dict.write_indices(&mut second);
    // Three entries now: width 2, ids 1 and 2.
    assert_eq!(second, naive_indices_page(&[1, 2], 3));
    assert_eq!(dict.entries(), [3, 1, 4]);
}

#[test]
fn many_entries_grow_the_table() {
    let values: Vec<Vec<u8>> = (0..50_000u32)
        .map(|i| format!("value-{}", i % 20_011).into_bytes())
        .collect();
    check_bytes(&values);
    let ints: Vec<u64> = (0..200_000u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9) % 150_001)
        .collect();
    check_fixed(&ints, |&v| v, 1000);
}
