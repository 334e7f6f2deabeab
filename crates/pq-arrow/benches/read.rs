//! Reading whole tables into `RecordBatch`es, pq-arrow side by side with the
//! arrow-rs `ParquetRecordBatchReaderBuilder`: same bytes in memory, batch
//! size 8192, one thread (plus a row for pq-arrow on two threads).
//!
//! The tables are written by `cargo xtask bench-data` into
//! `target/bench-data/` (or the directory `PQ_BENCH_DATA` names).
//!
//! Before criterion's own measurements, a quick pass prints the ratio of
//! pq-arrow's time to arrow-rs's for each table, the two read alternately.

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
    // `PQ_BENCH_ONLY=zstd` keeps the tables whose name contains it.
    let only = std::env::var("PQ_BENCH_ONLY").unwrap_or_default();
    for t in TABLES.iter().filter(|t| t.contains(only.as_str())) {
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

fn time(f: impl FnOnce() -> usize) -> f64 {
    let t = Instant::now();
    std::hint::black_box(f());
    t.elapsed().as_secs_f64()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The ratio pass: the readers alternate (arrow-rs, pq-arrow, pq-arrow on 2
/// threads, then again), and each round gives its own ratios, so that a
/// change of machine load hits both sides alike; the median round ratio and
/// the interquartile range of the rounds are printed. The last columns are
/// the speed-up of two threads over one: the median of the rounds', and the
/// fastest one-thread read over the fastest two-thread read (a core taken
/// by anything else slows a two-thread read most, so the fastest reads show
/// what the threads do on a quiet machine).
fn ratios(tables: &[(&'static str, Bytes)]) {
    println!(
        "\n{:<30} {:>10} {:>10} {:>6} {:>11} {:>10} {:>6} {:>6} {:>6} {:>6}",
        "table",
        "arrow-rs",
        "pq-arrow",
        "ratio",
        "(IQR)",
        "pq 2thr",
        "ratio",
        "2thr x",
        "best x",
        "rounds"
    );
    for (name, bytes) in tables {
        assert_eq!(
            pq_read(bytes, 1),
            arrow_rs_read(bytes),
            "{name}: row counts"
        );
        let (mut a, mut p, mut p2) = (Vec::new(), Vec::new(), Vec::new());
        let (mut r, mut r2, mut x2) = (Vec::new(), Vec::new(), Vec::new());
        let start = Instant::now();
        while a.len() < 5 || (start.elapsed() < Duration::from_secs(6) && a.len() < 40) {
            let ta = time(|| arrow_rs_read(bytes));
            let tp = time(|| pq_read(bytes, 1));
            let tp2 = time(|| pq_read(bytes, 2));
            a.push(ta);
            p.push(tp);
            p2.push(tp2);
            r.push(tp / ta);
            r2.push(tp2 / ta);
            x2.push(tp / tp2);
        }
        let best = p.iter().copied().fold(f64::MAX, f64::min)
            / p2.iter().copied().fold(f64::MAX, f64::min);
        let rounds = r.len();
        let ratio = median(&mut r);
        let (q1, q3) = (r[rounds / 4], r[(3 * rounds) / 4]);
        println!(
            "{:<30} {:>8.1}ms {:>8.1}ms {:>6.2} {:>11} {:>8.1}ms {:>6.2} {:>6.2} {:>6.2} {:>6}",
            name,
            median(&mut a) * 1e3,
            median(&mut p) * 1e3,
            ratio,
            format!("{q1:.2}-{q3:.2}"),
            median(&mut p2) * 1e3,
            median(&mut r2),
            median(&mut x2),
            best,
            rounds
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
