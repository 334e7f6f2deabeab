//! PLAIN fixed-width decode throughput against a plain memory copy and arrow-rs.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use parquet::data_type::{DoubleType, Int32Type};
use parquet::encodings::decoding::{Decoder, PlainDecoder as ArrowPlain};
use pq_encoding::plain::{PlainDecoder, encode};
use std::hint::black_box;

const N: usize = 1 << 16;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("plain_decode");
    g.throughput(Throughput::Bytes((N * 8) as u64));
    let f64s: Vec<f64> = (0..N).map(|i| i as f64 * 0.5).collect();
    let mut buf = Vec::new();
    encode(&f64s, &mut buf);
    let mut out = vec![0f64; N];
    g.bench_function("pq/f64", |b| {
        b.iter(|| {
            PlainDecoder::<f64>::new(black_box(&buf))
                .decode(&mut out)
                .unwrap()
        })
    });
    // Appending to a vector, as a reader building an array does.
    let mut appended: Vec<f64> = Vec::with_capacity(N);
    g.bench_function("pq/f64 appended", |b| {
        b.iter(|| {
            appended.clear();
            PlainDecoder::<f64>::new(black_box(&buf))
                .decode_into(&mut appended, N)
                .unwrap()
        })
    });
    let mut raw = vec![0u8; N * 8];
    g.bench_function("memcpy", |b| {
        b.iter(|| raw.copy_from_slice(black_box(&buf)))
    });
    let bytes = Bytes::from(buf.clone());
    g.bench_function("arrow-rs/f64", |b| {
        b.iter(|| {
            let mut d = ArrowPlain::<DoubleType>::new(0);
            d.set_data(bytes.clone(), N).unwrap();
            d.get(&mut out).unwrap()
        })
    });
    g.throughput(Throughput::Bytes((N * 4) as u64));
    let i32s: Vec<i32> = (0..N as i32).collect();
    let mut buf = Vec::new();
    encode(&i32s, &mut buf);
    let mut out = vec![0i32; N];
    g.bench_function("pq/i32", |b| {
        b.iter(|| {
            PlainDecoder::<i32>::new(black_box(&buf))
                .decode(&mut out)
                .unwrap()
        })
    });
    let mut appended: Vec<i32> = Vec::with_capacity(N);
    g.bench_function("pq/i32 appended", |b| {
        b.iter(|| {
            appended.clear();
            PlainDecoder::<i32>::new(black_box(&buf))
                .decode_into(&mut appended, N)
                .unwrap()
        })
    });
    let bytes = Bytes::from(buf.clone());
    g.bench_function("arrow-rs/i32", |b| {
        b.iter(|| {
            let mut d = ArrowPlain::<Int32Type>::new(0);
            d.set_data(bytes.clone(), N).unwrap();
            d.get(&mut out).unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
