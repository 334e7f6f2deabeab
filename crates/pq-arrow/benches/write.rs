//! Writing lineitem-like batches to Parquet in memory, pq-arrow's
//! `ParquetWriter` side by side with arrow-rs's `ArrowWriter`, in two
//! settings: SNAPPY with dictionaries (data page v1), and ZSTD (level 1,
//! arrow-rs's default) with data page v2.
//!
//! The batches come from a copy of `xtask/src/bench_data.rs::lineitem_batch`
//! (1 Mi rows in batches of 64 Ki). Before criterion's measurements, a quick
//! pass prints, per setting, the ratio of pq-arrow's median time to
//! arrow-rs's (the two sides alternating, after a warm-up) and the two file
//! sizes (skipped when `PQ_WRITE_BENCH_NO_TABLE` is set, for profiling one
//! side alone).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::*;
use arrow_schema::{Field, Schema};
use criterion::{Criterion, criterion_group, criterion_main};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{WriterProperties, WriterVersion};
use pq_arrow::write::{Codec, DataPageVersion, ParquetWriter, WriterOptions};

const ROWS: usize = 1 << 20;
const BATCH: usize = 65_536;

/// The generator of `xtask/src/rng.rs`.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }
}

/// A copy of `xtask/src/bench_data.rs::lineitem_batch`.
fn lineitem_batch(n: usize, r: &mut Rng) -> RecordBatch {
    const FLAGS: [&str; 3] = ["A", "N", "R"];
    const MODES: [&str; 7] = ["AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"];
    const INSTRUCT: [&str; 4] = [
        "COLLECT COD",
        "DELIVER IN PERSON",
        "NONE",
        "TAKE BACK RETURN",
    ];
    let mut orderkey = Vec::with_capacity(n);
    let mut key = (r.next() % 1_000_000) as i64 * 4;
    for _ in 0..n {
        if r.one_in(4) {
            key += 1 + r.below(3) as i64;
        }
        orderkey.push(key);
    }
    let partkey: Vec<i64> = (0..n).map(|_| 1 + r.below(200_000) as i64).collect();
    let suppkey: Vec<i32> = (0..n).map(|_| 1 + r.below(10_000) as i32).collect();
    let linenumber: Vec<i32> = (0..n).map(|_| 1 + r.below(7) as i32).collect();
    let quantity: Vec<i128> = (0..n).map(|_| (1 + r.below(50) as i128) * 100).collect();
    let price: Vec<i128> = (0..n)
        .map(|_| 90_000 + r.below(10_000_000) as i128)
        .collect();
    let discount: Vec<i128> = (0..n).map(|_| r.below(11) as i128).collect();
    let shipdate: Vec<i32> = (0..n).map(|_| 8_036 + r.below(2_526) as i32).collect();
    let flag = StringArray::from_iter_values((0..n).map(|_| FLAGS[r.below(3) as usize]));
    let mode = StringArray::from_iter_values((0..n).map(|_| MODES[r.below(7) as usize]));
    let instruct = StringArray::from_iter_values((0..n).map(|_| INSTRUCT[r.below(4) as usize]));
    let comment = StringArray::from_iter_values((0..n).map(|_| {
        let len = 10 + r.below(34) as usize;
        (0..len)
            .map(|_| (b'a' + r.below(26) as u8) as char)
            .collect::<String>()
    }));
    let tax: Vec<Option<f64>> = (0..n)
        .map(|_| {
            if r.one_in(10) {
                None
            } else {
                Some(r.below(9) as f64 / 100.0)
            }
        })
        .collect();
    let dec = |v: Vec<i128>| -> ArrayRef {
        Arc::new(
            Decimal128Array::from(v)
                .with_precision_and_scale(15, 2)
                .unwrap(),
        )
    };
    let columns: Vec<(&str, ArrayRef, bool)> = vec![
        ("l_orderkey", Arc::new(Int64Array::from(orderkey)), false),
        ("l_partkey", Arc::new(Int64Array::from(partkey)), false),
        ("l_suppkey", Arc::new(Int32Array::from(suppkey)), false),
        (
            "l_linenumber",
            Arc::new(Int32Array::from(linenumber)),
            false,
        ),
        ("l_quantity", dec(quantity), false),
        ("l_extendedprice", dec(price), false),
        ("l_discount", dec(discount), false),
        ("l_shipdate", Arc::new(Date32Array::from(shipdate)), false),
        ("l_returnflag", Arc::new(flag), false),
        ("l_shipmode", Arc::new(mode), false),
        ("l_shipinstruct", Arc::new(instruct), false),
        ("l_comment", Arc::new(comment), false),
        ("l_tax", Arc::new(Float64Array::from(tax)), true),
    ];
    let schema = Schema::new(
        columns
            .iter()
            .map(|(name, a, nullable)| Field::new(*name, a.data_type().clone(), *nullable))
            .collect::<Vec<_>>(),
    );
    RecordBatch::try_new(Arc::new(schema), columns.into_iter().map(|c| c.1).collect()).unwrap()
}

fn batches() -> Vec<RecordBatch> {
    let mut r = Rng(2024);
    (0..ROWS / BATCH)
        .map(|_| lineitem_batch(BATCH, &mut r))
        .collect()
}

#[derive(Clone, Copy)]
enum Setting {
    SnappyDict,
    ZstdV2,
}

impl Setting {
    fn name(self) -> &'static str {
        match self {
            Setting::SnappyDict => "snappy_dict",
            Setting::ZstdV2 => "zstd_v2",
        }
    }

    fn pq(self) -> WriterOptions {
        match self {
            Setting::SnappyDict => WriterOptions::default().with_compression(Codec::Snappy, None),
            Setting::ZstdV2 => WriterOptions::default()
                .with_compression(Codec::Zstd, Some(1))
                .with_data_page_version(DataPageVersion::V2),
        }
    }

    fn arrow_rs(self) -> WriterProperties {
        match self {
            Setting::SnappyDict => WriterProperties::builder()
                .set_compression(Compression::SNAPPY)
                .build(),
            Setting::ZstdV2 => WriterProperties::builder()
                .set_writer_version(WriterVersion::PARQUET_2_0)
                .set_compression(Compression::ZSTD(ZstdLevel::try_new(1).unwrap()))
                .build(),
        }
    }
}

fn write_pq(batches: &[RecordBatch], s: Setting) -> Vec<u8> {
    let mut w =
        ParquetWriter::try_new(Vec::with_capacity(64 << 20), batches[0].schema(), s.pq()).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.close_into_inner().unwrap().0
}

fn write_arrow_rs(batches: &[RecordBatch], s: Setting) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 << 20);
    let mut w = ArrowWriter::try_new(&mut out, batches[0].schema(), Some(s.arrow_rs())).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.close().unwrap();
    out
}

/// Medians of 5 timed writes per side, the two sides alternating so that
/// both see the same load, after 2 untimed writes each (the allocator's
/// reuse of freed memory settles over the first writes, as in criterion's
/// warm-up); also each side's file size.
fn paired_medians(
    mut a: impl FnMut() -> usize,
    mut b: impl FnMut() -> usize,
) -> ((Duration, usize), (Duration, usize)) {
    for _ in 0..2 {
        std::hint::black_box(a());
        std::hint::black_box(b());
    }
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    let (mut na, mut nb) = (0, 0);
    for _ in 0..5 {
        let t = Instant::now();
        na = std::hint::black_box(a());
        ta.push(t.elapsed());
        let t = Instant::now();
        nb = std::hint::black_box(b());
        tb.push(t.elapsed());
    }
    ta.sort();
    tb.sort();
    ((ta[2], na), (tb[2], nb))
}

fn bench(c: &mut Criterion) {
    let batches = batches();
    // Set when profiling one side alone.
    let table = std::env::var_os("PQ_WRITE_BENCH_NO_TABLE").is_none();
    for s in [Setting::SnappyDict, Setting::ZstdV2]
        .into_iter()
        .filter(|_| table)
    {
        let ((t_pq, n_pq), (t_rs, n_rs)) = paired_medians(
            || write_pq(&batches, s).len(),
            || write_arrow_rs(&batches, s).len(),
        );
        println!(
            "{}: pq-arrow {:.1} ms, arrow-rs {:.1} ms, time ratio {:.2}; size pq-arrow {} B, arrow-rs {} B, size ratio {:.4}",
            s.name(),
            t_pq.as_secs_f64() * 1e3,
            t_rs.as_secs_f64() * 1e3,
            t_pq.as_secs_f64() / t_rs.as_secs_f64(),
            n_pq,
            n_rs,
            n_pq as f64 / n_rs as f64
        );
    }
    let mut g = c.benchmark_group("write_lineitem_1Mi");
    g.sample_size(10);
    for s in [Setting::SnappyDict, Setting::ZstdV2] {
        g.bench_function(format!("pq-arrow/{}", s.name()), |b| {
            b.iter(|| write_pq(&batches, s).len())
        });
        g.bench_function(format!("arrow-rs/{}", s.name()), |b| {
            b.iter(|| write_arrow_rs(&batches, s).len())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
