//! BYTE_STREAM_SPLIT decode throughput, ours and arrow-rs's.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use parquet::basic::Encoding;
use parquet::data_type::{DoubleType, FloatType};
use parquet::encodings::decoding::get_decoder;
use pq_encoding::byte_stream_split::{ByteStreamSplitDecoder, encode};
use std::hint::black_box;

const N: usize = 1 << 16;

fn arrow<T: parquet::data_type::DataType>(bytes: &Bytes, out: &mut [T::T]) -> usize {
    let descr = std::sync::Arc::new(parquet::schema::types::ColumnDescriptor::new(
        std::sync::Arc::new(
            parquet::schema::types::Type::primitive_type_builder("x", T::get_physical_type())
                .build()
                .unwrap(),
        ),
        0,
        0,
        parquet::schema::types::ColumnPath::new(vec![]),
    ));
    let mut d = get_decoder::<T>(descr, Encoding::BYTE_STREAM_SPLIT).unwrap();
    d.set_data(bytes.clone(), out.len()).unwrap();
    d.get(out).unwrap()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("byte_stream_split_decode");
    let f64s: Vec<f64> = (0..N).map(|i| i as f64 * 0.37).collect();
    let f32s: Vec<f32> = (0..N).map(|i| i as f32 * 0.37).collect();
    let (mut b64, mut b32) = (Vec::new(), Vec::new());
    encode(&f64s, &mut b64);
    encode(&f32s, &mut b32);
    let (mut o64, mut o32) = (vec![0f64; N], vec![0f32; N]);
    g.throughput(Throughput::Bytes((N * 8) as u64));
    g.bench_function("pq/f64", |b| {
        b.iter(|| {
            ByteStreamSplitDecoder::new(black_box(&b64), 8)
                .unwrap()
                .decode(&mut o64)
                .unwrap()
        })
    });
    let a64 = Bytes::from(b64.clone());
    g.bench_function("arrow-rs/f64", |b| {
        b.iter(|| arrow::<DoubleType>(&a64, &mut o64))
    });
    g.throughput(Throughput::Bytes((N * 4) as u64));
    g.bench_function("pq/f32", |b| {
        b.iter(|| {
            ByteStreamSplitDecoder::new(black_box(&b32), 4)
                .unwrap()
                .decode(&mut o32)
                .unwrap()
        })
    });
    let a32 = Bytes::from(b32.clone());
    g.bench_function("arrow-rs/f32", |b| {
        b.iter(|| arrow::<FloatType>(&a32, &mut o32))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
