//! DELTA_BINARY_PACKED decode throughput, ours and arrow-rs's.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use parquet::data_type::{Int32Type, Int64Type};
use parquet::encodings::decoding::{Decoder, DeltaBitPackDecoder as ArrowDelta};
use pq_encoding::delta_binary_packed::{DeltaBitPackDecoder, encode};
use std::hint::black_box;

const N: usize = 1 << 16;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("delta_decode");
    g.throughput(Throughput::Elements(N as u64));
    let i32s: Vec<i32> = (0..N as i32)
        .map(|i| i * 3 + (i.wrapping_mul(2_654_435) >> 20) % 1000)
        .collect();
    let i64s: Vec<i64> = i32s.iter().map(|&v| i64::from(v) * 1_000_003).collect();
    let mut b32 = Vec::new();
    encode(&i32s, &mut b32);
    let mut b64 = Vec::new();
    encode(&i64s, &mut b64);
    let mut o32 = vec![0i32; N];
    let mut o64 = vec![0i64; N];
    g.bench_function("pq/i32", |b| {
        b.iter(|| {
            DeltaBitPackDecoder::<i32>::new(black_box(&b32))
                .unwrap()
                .decode(&mut o32)
                .unwrap()
        })
    });
    g.bench_function("pq/i64", |b| {
        b.iter(|| {
            DeltaBitPackDecoder::<i64>::new(black_box(&b64))
                .unwrap()
                .decode(&mut o64)
                .unwrap()
        })
    });
    let (a32, a64) = (Bytes::from(b32.clone()), Bytes::from(b64.clone()));
    g.bench_function("arrow-rs/i32", |b| {
        b.iter(|| {
            let mut d = ArrowDelta::<Int32Type>::new();
            d.set_data(a32.clone(), N).unwrap();
            d.get(&mut o32).unwrap()
        })
    });
    g.bench_function("arrow-rs/i64", |b| {
        b.iter(|| {
            let mut d = ArrowDelta::<Int64Type>::new();
            d.set_data(a64.clone(), N).unwrap();
            d.get(&mut o64).unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
