//! Decompression throughput per codec on ~1 MiB of page-like data, for the
//! crate pq-compress uses and the alternative it was measured against.
//!
//! `cargo bench -p pq-compress --bench codecs`; results in BENCHMARKS.md.
//! Throughput is in uncompressed bytes per second.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: failures should panic

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use pq_compress::{Codec, Decompressor, compress};

/// Deterministic xorshift64*.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// ~1 MiB like a page mix: 64 Ki PLAIN int64 (increasing ids with jitter),
/// PLAIN byte arrays of 24 distinct words, PLAIN random alphanumeric strings.
fn page_like() -> Vec<u8> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut out = Vec::with_capacity(1 << 20);
    let mut id = 1_000_000i64;
    for _ in 0..65_536 {
        id += (rng.next() % 16) as i64;
        out.extend_from_slice(&id.to_le_bytes());
    }
    let words = [
        "red", "green", "blue", "yellow", "cyan", "magenta", "black", "white", "orange", "purple",
        "brown", "grey", "pink", "lime", "navy", "teal", "olive", "maroon", "silver", "gold",
        "beige", "coral", "ivory", "khaki",
    ];
    while out.len() < 768 << 10 {
        let w = words[(rng.next() % words.len() as u64) as usize];
        out.extend_from_slice(&(w.len() as u32).to_le_bytes());
        out.extend_from_slice(w.as_bytes());
    }
    const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    while out.len() < 1 << 20 {
        let len = 8 + (rng.next() % 17) as usize;
        out.extend_from_slice(&(len as u32).to_le_bytes());
        for _ in 0..len {
            out.push(ALNUM[(rng.next() % ALNUM.len() as u64) as usize]);
        }
    }
    out.truncate(1 << 20);
    out
}

fn compressed(codec: Codec, data: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    compress(codec, data, &mut body, None).expect("compress");
    eprintln!(
        "{codec}: {} -> {} bytes (ratio {:.2})",
        data.len(),
        body.len(),
        data.len() as f64 / body.len() as f64
    );
    body
}

fn ours(c: &mut BenchmarkGroup<'_, WallTime>, codec: Codec, body: &[u8], n: usize, label: &str) {
    let mut dec = Decompressor::default();
    let mut out = Vec::new();
    c.bench_function(label, |b| {
        b.iter(|| {
            dec.decompress(codec, black_box(body), n, &mut out)
                .expect("decompress");
            black_box(out.len())
        })
    });
    // A fresh output buffer per page: the first page of a column chunk, or a
    // caller that does not reuse `out`. Includes allocating the output.
    c.bench_function(format!("{label}, cold output"), |b| {
        b.iter(|| {
            let mut out = Vec::new();
            dec.decompress(codec, black_box(body), n, &mut out)
                .expect("decompress");
            black_box(out.len())
        })
    });
}

/// A benchmark group for `codec`, its throughput counted in uncompressed
/// bytes, and `data` compressed by pq-compress.
fn group<'a>(
    c: &'a mut Criterion,
    name: &str,
    codec: Codec,
    data: &[u8],
) -> (BenchmarkGroup<'a, WallTime>, Vec<u8>) {
    let body = compressed(codec, data);
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Bytes(data.len() as u64));
    (g, body)
}

fn bench(c: &mut Criterion) {
    let data = page_like();
    let n = data.len();
    let mut out = vec![0u8; n];

    {
        let (mut g, body) = group(c, "zstd", Codec::Zstd, &data);
        ours(&mut g, Codec::Zstd, &body, n, "zstd (libzstd, chosen)");
        // Frames without a content size, as streaming writers (arrow-rs,
        // parquet-mr) produce them.
        let streamed = {
            use std::io::Write;
            let mut enc = zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
            enc.include_contentsize(false).unwrap();
            enc.write_all(&data).unwrap();
            enc.finish().unwrap()
        };
        ours(
            &mut g,
            Codec::Zstd,
            &streamed,
            n,
            "zstd (libzstd, chosen), no content size",
        );
        let mut dec = ruzstd::decoding::FrameDecoder::new();
        g.bench_function("ruzstd (pure Rust)", |b| {
            b.iter(|| dec.decode_all(black_box(&body), &mut out).expect("ruzstd"))
        });
        g.finish();
    }
    {
        let (mut g, body) = group(c, "lz4_raw", Codec::Lz4Raw, &data);
        ours(
            &mut g,
            Codec::Lz4Raw,
            &body,
            n,
            "lz4_flex safe-decode (chosen)",
        );
        g.bench_function("lz4 (C liblz4)", |b| {
            b.iter(|| {
                lz4::block::decompress_to_buffer(black_box(&body), Some(n as i32), &mut out)
                    .expect("lz4")
            })
        });
        g.finish();
    }
    {
        let (mut g, body) = group(c, "gzip", Codec::Gzip, &data);
        ours(&mut g, Codec::Gzip, &body, n, "flate2 + zlib-rs (chosen)");
        // flate2's GzEncoder writes a 10-byte header and an 8-byte trailer.
        let deflate = &body[10..body.len() - 8];
        // Raw inflate of the same deflate stream, no gzip CRC: backend vs backend.
        let mut inflate = flate2::Decompress::new(false);
        g.bench_function("zlib-rs raw inflate", |b| {
            b.iter(|| {
                inflate.reset(false);
                inflate
                    .decompress(
                        black_box(deflate),
                        &mut out,
                        flate2::FlushDecompress::Finish,
                    )
                    .expect("zlib-rs")
            })
        });
        g.bench_function("miniz_oxide raw inflate", |b| {
            b.iter(|| {
                miniz_oxide::inflate::decompress_slice_iter_to_slice(
                    &mut out,
                    std::iter::once(black_box(deflate)),
                    false,
                    true,
                )
                .expect("miniz_oxide")
            })
        });
        g.finish();
    }
    // Codecs measured alone: the deprecated LZ4 (Hadoop framing around the
    // LZ4_RAW block), SNAPPY and BROTLI.
    for (name, codec, label) in [
        ("lz4_hadoop", Codec::Lz4, "lz4_flex (chosen)"),
        ("snappy", Codec::Snappy, "snap (chosen)"),
        ("brotli", Codec::Brotli, "brotli (chosen)"),
    ] {
        let (mut g, body) = group(c, name, codec, &data);
        ours(&mut g, codec, &body, n, label);
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
