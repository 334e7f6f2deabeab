//! Hybrid RLE / bit-packing decode throughput, ours and arrow-rs's.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use parquet::encodings::rle::RleDecoder as ArrowRle;
use pq_encoding::rle::{RleDecoder, encode};
use std::hint::black_box;

const N: usize = 1 << 16;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("rle_decode");
    g.throughput(Throughput::Elements(N as u64));
    for w in [1u8, 3, 8, 12, 16, 20, 32] {
        // Pseudo-random values: all bit-packed runs.
        let vals: Vec<u32> = (0..N as u64)
            .map(|i| {
                ((i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 17) as u32) & (((1u64 << w) - 1) as u32)
            })
            .collect();
        let mut buf = Vec::new();
        encode(&vals, w, &mut buf);
        let mut out = vec![0u32; N];
        g.bench_function(format!("pq/u32/w{w}"), |b| {
            b.iter(|| {
                let mut d = RleDecoder::new(black_box(&buf), w).unwrap();
                d.decode(&mut out).unwrap()
            })
        });
        let mut out16 = vec![0i16; N];
        if w <= 16 {
            g.bench_function(format!("pq/i16/w{w}"), |b| {
                b.iter(|| {
                    let mut d = RleDecoder::new(black_box(&buf), w).unwrap();
                    d.decode(&mut out16).unwrap()
                })
            });
        }
        let bytes = Bytes::from(buf.clone());
        g.bench_function(format!("arrow-rs/u32/w{w}"), |b| {
            b.iter(|| {
                let mut d = ArrowRle::new(w);
                d.set_data(bytes.clone()).unwrap();
                d.get_batch(&mut out).unwrap()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
