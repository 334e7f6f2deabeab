//! Gathering byte arrays from a dictionary by index, as a reader turns a
//! dictionary-encoded string column into an Arrow string array: small
//! dictionaries of one length (flags, codes), of mixed lengths (modes,
//! short names), and a large one.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pq_encoding::dictionary::gather_byte_array;
use std::hint::black_box;

/// A batch of the usual size.
const N: usize = 8192;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("dictionary_gather_byte_array");
    g.throughput(Throughput::Elements(N as u64));
    let large: Vec<String> = (0..5000).map(|i| format!("customer-{i:06}")).collect();
    let cases: [(&str, Vec<&str>); 5] = [
        ("one_letter", vec!["A", "N", "R"]),
        (
            "three_letters",
            vec!["USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD"],
        ),
        (
            "twelve_letters",
            vec!["DELIVERED-OK", "RETURNED-BAD", "IN-TRANSIT-1"],
        ),
        (
            "mixed_lengths",
            vec!["AIR", "MAIL", "SHIP", "TRUCK", "RAIL", "FOB", "REG AIR"],
        ),
        ("large", large.iter().map(String::as_str).collect()),
    ];
    for (name, entries) in cases {
        let mut dict_offsets = vec![0i32];
        let mut dict_values = Vec::new();
        for e in &entries {
            dict_values.extend_from_slice(e.as_bytes());
            dict_offsets.push(dict_values.len() as i32);
        }
        let idx: Vec<u32> = (0..N as u64)
            .map(|i| ((i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 33) % entries.len() as u64) as u32)
            .collect();
        let (mut offsets, mut values) = (Vec::<i64>::with_capacity(N + 1), Vec::new());
        g.bench_function(name, |b| {
            b.iter(|| {
                offsets.clear();
                values.clear();
                gather_byte_array(
                    &dict_offsets,
                    &dict_values,
                    black_box(&idx),
                    &mut offsets,
                    &mut values,
                )
                .unwrap();
                values.len()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
