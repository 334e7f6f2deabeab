//! PLAIN fixed-width decode throughput against a plain memory copy and arrow-rs.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use bytes::Bytes;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use parquet::data_type::{DataType, DoubleType, Int32Type};
use parquet::encodings::decoding::{Decoder, PlainDecoder as ArrowPlain};
use pq_encoding::plain::{FixedWidth, PlainDecoder, encode};
use std::hint::black_box;

const N: usize = 1 << 16;

/// `values` PLAIN-encoded, decoded by pq into a slice and appended to a
/// vector, and by arrow-rs's decoder `A` into a slice.
fn decode_type<T: FixedWidth, A: DataType<T = T>>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    values: &[T],
) -> Vec<u8> {
    g.throughput(Throughput::Bytes((N * T::SIZE) as u64));
    let mut buf = Vec::new();
    encode(values, &mut buf);
    let mut out = vec![T::default(); N];
    g.bench_function(format!("pq/{name}"), |b| {
        b.iter(|| {
            PlainDecoder::<T>::new(black_box(&buf))
                .decode(&mut out)
                .unwrap()
        })
    });
    // Appending to a vector, as a reader building an array does.
    let mut appended: Vec<T> = Vec::with_capacity(N);
    g.bench_function(format!("pq/{name} appended"), |b| {
        b.iter(|| {
            appended.clear();
            PlainDecoder::<T>::new(black_box(&buf))
                .decode_into(&mut appended, N)
                .unwrap()
        })
    });
    let bytes = Bytes::from(buf.clone());
    g.bench_function(format!("arrow-rs/{name}"), |b| {
        b.iter(|| {
            let mut d = ArrowPlain::<A>::new(0);
            d.set_data(bytes.clone(), N).unwrap();
            d.get(&mut out).unwrap()
        })
    });
    buf
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("plain_decode");
    let f64s: Vec<f64> = (0..N).map(|i| i as f64 * 0.5).collect();
    let buf = decode_type::<f64, DoubleType>(&mut g, "f64", &f64s);
    let mut raw = vec![0u8; N * 8];
    g.bench_function("memcpy", |b| {
        b.iter(|| raw.copy_from_slice(black_box(&buf)))
    });
    let i32s: Vec<i32> = (0..N as i32).collect();
    decode_type::<i32, Int32Type>(&mut g, "i32", &i32s);
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
