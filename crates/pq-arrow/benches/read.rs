//! Reading whole tables into `RecordBatch`es, pq-arrow side by side with the
//! arrow-rs `ParquetRecordBatchReaderBuilder`: same bytes in memory, batch
//! size 8192, one thread (plus a row for pq-arrow on two threads).
//!
//! The tables are written by `cargo xtask bench-data` into
//! `target/bench-data/` (or the directory `PQ_BENCH_DATA` names).
//!
//! Before criterion's own measurements, a quick pass prints the ratio of
//! pq-arrow's median time to arrow-rs's for each table.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use bytes::Bytes;
use criterion::{Criterion, criterion_group, criterion_main};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

const TABLES: &[&str] = &[
    "lineitem_plain.parquet",
    "lineitem_snappy_dict.parquet",
    "lineitem_zstd_v2.parquet",
    "nested_snappy_dict.parquet",
];

fn data_dir() -> PathBuf {
    match std::env::var_os("PQ_BENCH_DATA") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-data"),
    }
}

fn load() -> Vec<(&'static str, Bytes)> {
    let dir = data_dir();
    let mut out = Vec::new();
    for t in TABLES {
        let p = dir.join(t);
        match std::fs::read(&p) {
            Ok(b) => out.push((*t, Bytes::from(b))),
            Err(_) => eprintln!(
                "benchmark table {} is missing: run `cargo xtask bench-data` first; skipped",
                p.display()
            ),
        }
    }
    if out.is_empty() {
        eprintln!(
            "no benchmark table in {}: run `cargo xtask bench-data` first",
            dir.display()
        );
        std::process::exit(1);
    }
    out
}

fn pq_read(bytes: &Bytes, threads: usize) -> usize {
    let r = pq_arrow::ParquetReader::from_bytes(bytes.clone())
        .and_then(|r| r.with_batch_size(8192).with_threads(threads).build());
    let mut rows = 0;
    match r {
        Ok(r) => {
            for b in r {
                match b {
                    Ok(b) => rows += b.num_rows(),
                    Err(e) => panic!("pq-arrow: {e}"),
                }
            }
        }
        Err(e) => panic!("pq-arrow: {e}"),
    }
    rows
}

fn arrow_rs_read(bytes: &Bytes) -> usize {
    let r = ParquetRecordBatchReaderBuilder::try_new(bytes.clone())
        .and_then(|b| b.with_batch_size(8192).build());
    let mut rows = 0;
    match r {
        Ok(r) => {
            for b in r {
                match b {
                    Ok(b) => rows += b.num_rows(),
                    Err(e) => panic!("arrow-rs: {e}"),
                }
            }
        }
        Err(e) => panic!("arrow-rs: {e}"),
    }
    rows
}

fn median(mut f: impl FnMut() -> usize) -> Duration {
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < 5 || (start.elapsed() < Duration::from_secs(3) && times.len() < 50) {
        let t = Instant::now();
        std::hint::black_box(f());
        times.push(t.elapsed());
    }
    times.sort();
    times[times.len() / 2]
}

fn ratios(tables: &[(&'static str, Bytes)]) {
    println!(
        "\n{:<32} {:>12} {:>12} {:>8} {:>14} {:>8}",
        "table", "arrow-rs", "pq-arrow", "ratio", "pq-arrow 2thr", "ratio"
    );
    for (name, bytes) in tables {
        assert_eq!(
            pq_read(bytes, 1),
            arrow_rs_read(bytes),
            "{name}: row counts"
        );
        let a = median(|| arrow_rs_read(bytes));
        let p = median(|| pq_read(bytes, 1));
        let p2 = median(|| pq_read(bytes, 2));
        println!(
            "{:<32} {:>10.2}ms {:>10.2}ms {:>8.2} {:>12.2}ms {:>8.2}",
            name,
            a.as_secs_f64() * 1e3,
            p.as_secs_f64() * 1e3,
            p.as_secs_f64() / a.as_secs_f64(),
            p2.as_secs_f64() * 1e3,
            p2.as_secs_f64() / a.as_secs_f64()
        );
    }
    println!();
}

fn bench(c: &mut Criterion) {
    let tables = load();
    // `PQ_BENCH_NO_RATIOS=1` skips the ratio table (for profiling one case).
    if std::env::var_os("PQ_BENCH_NO_RATIOS").is_none() {
        ratios(&tables);
    }
    for (name, bytes) in &tables {
        let mut g = c.benchmark_group(*name);
        g.sample_size(10);
        g.bench_function("arrow-rs", |b| b.iter(|| arrow_rs_read(bytes)));
        g.bench_function("pq-arrow", |b| b.iter(|| pq_read(bytes, 1)));
        g.bench_function("pq-arrow 2 threads", |b| b.iter(|| pq_read(bytes, 2)));
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
