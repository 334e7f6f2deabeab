//! BYTE_STREAM_SPLIT decode and encode throughput, ours and arrow-rs's.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use parquet::basic::{Encoding, Type as PhysicalType};
use parquet::data_type::{
    DataType, DoubleType, FixedLenByteArray, FixedLenByteArrayType, FloatType, Int32Type, Int64Type,
};
use parquet::encodings::decoding::get_decoder;
use parquet::encodings::encoding::get_encoder;
use parquet::schema::types::{ColumnDescPtr, ColumnDescriptor, ColumnPath, Type};
use pq_encoding::byte_stream_split::{ByteStreamSplitDecoder, encode, encode_bytes};
use pq_encoding::plain::FixedWidth;
use std::hint::black_box;
use std::sync::Arc;

const N: usize = 1 << 16;

fn descr(t: PhysicalType, len: i32) -> ColumnDescPtr {
    let ty = Type::primitive_type_builder("x", t)
        .with_length(len)
        .build()
        .unwrap();
    Arc::new(ColumnDescriptor::new(
        Arc::new(ty),
        0,
        0,
        ColumnPath::new(vec![]),
    ))
}

fn arrow<T: DataType>(d: &ColumnDescPtr, bytes: &Bytes, out: &mut [T::T]) -> usize {
    let mut d = get_decoder::<T>(d.clone(), Encoding::BYTE_STREAM_SPLIT).unwrap();
    d.set_data(bytes.clone(), out.len()).unwrap();
    d.get(out).unwrap()
}

/// Benchmarks pq and arrow-rs decoding `values` of one primitive type.
fn pair<P: FixedWidth, A: DataType>(
    c: &mut Criterion,
    name: &str,
    values: &[P],
    arrow_values: Vec<A::T>,
) where
    A::T: Clone,
{
    let mut g = c.benchmark_group("byte_stream_split_decode");
    g.throughput(Throughput::Bytes((N * P::SIZE) as u64));
    let mut enc = Vec::new();
    encode(values, &mut enc);
    let mut out = vec![P::default(); N];
    g.bench_function(format!("pq/{name}"), |b| {
        b.iter(|| {
            ByteStreamSplitDecoder::new(black_box(&enc), P::SIZE)
                .unwrap()
                .decode(&mut out)
                .unwrap()
        })
    });
    let d = descr(A::get_physical_type(), -1);
    let bytes = Bytes::from(enc.clone());
    let mut aout = arrow_values;
    g.bench_function(format!("arrow-rs/{name}"), |b| {
        b.iter(|| arrow::<A>(&d, &bytes, &mut aout))
    });
    g.finish();
}

fn bench_decode(c: &mut Criterion) {
    let f64s: Vec<f64> = (0..N).map(|i| i as f64 * 0.37).collect();
    pair::<f64, DoubleType>(c, "f64", &f64s, vec![0.0; N]);
    let f32s: Vec<f32> = (0..N).map(|i| i as f32 * 0.37).collect();
    pair::<f32, FloatType>(c, "f32", &f32s, vec![0.0; N]);
    let i64s: Vec<i64> = (0..N as i64).map(|i| i * 0x0001_0203_0405 - 99).collect();
    pair::<i64, Int64Type>(c, "i64", &i64s, vec![0; N]);
    let i32s: Vec<i32> = (0..N as i32).map(|i| i.wrapping_mul(40_503)).collect();
    pair::<i32, Int32Type>(c, "i32", &i32s, vec![0; N]);

    // FIXED_LEN_BYTE_ARRAY: 16 bytes (DECIMAL(38), UUID) and 2 (FLOAT16).
    let mut g = c.benchmark_group("byte_stream_split_decode");
    for width in [16usize, 2] {
        let plain: Vec<u8> = (0..N * width).map(|i| (i * 31 % 251) as u8).collect();
        let mut enc = Vec::new();
        encode_bytes(&plain, width, &mut enc);
        g.throughput(Throughput::Bytes((N * width) as u64));
        let mut out = Vec::with_capacity(N * width);
        g.bench_function(format!("pq/flba{width}"), |b| {
            b.iter(|| {
                out.clear();
                ByteStreamSplitDecoder::new(black_box(&enc), width)
                    .unwrap()
                    .decode_bytes(&mut out, N)
                    .unwrap()
            })
        });
        let d = descr(PhysicalType::FIXED_LEN_BYTE_ARRAY, width as i32);
        let bytes = Bytes::from(enc.clone());
        let mut aout = vec![FixedLenByteArray::default(); N];
        g.bench_function(format!("arrow-rs/flba{width}"), |b| {
            b.iter(|| arrow::<FixedLenByteArrayType>(&d, &bytes, &mut aout))
        });
    }
    g.finish();
}

fn bench_encode(c: &mut Criterion) {
    let mut g = c.benchmark_group("byte_stream_split_encode");
    let f64s: Vec<f64> = (0..N).map(|i| i as f64 * 0.37).collect();
    g.throughput(Throughput::Bytes((N * 8) as u64));
    let mut out = Vec::with_capacity(N * 8);
    g.bench_function("pq/f64", |b| {
        b.iter(|| {
            out.clear();
            encode(black_box(&f64s), &mut out);
            out.len()
        })
    });
    let d = descr(PhysicalType::DOUBLE, -1);
    g.bench_function("arrow-rs/f64", |b| {
        b.iter(|| {
            let mut e = get_encoder::<DoubleType>(Encoding::BYTE_STREAM_SPLIT, &d).unwrap();
            e.put(black_box(&f64s)).unwrap();
            e.flush_buffer().unwrap().len()
        })
    });
    g.finish();
}

criterion_group!(benches, bench_decode, bench_encode);
criterion_main!(benches);
