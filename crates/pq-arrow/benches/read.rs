//! Reading every file of the benchmark matrix into `RecordBatch`es, pq-arrow
//! side by side with the arrow-rs `ParquetRecordBatchReaderBuilder`, in two
//! in-process modes: from a path (each read opens the file: the footer and
//! the column chunks come through the page cache) and from `Bytes` already
//! in memory. Batch size 8192, one thread; pq-arrow also on two threads
//! from `Bytes`.
//!
//! The matrix is written by `cargo xtask bench-data` into
//! `target/bench-data/` (or the directory `PQ_BENCH_DATA` names);
//! `PQ_BENCH_ONLY=TEXT` keeps the files whose name contains TEXT. The
//! whole-process mode (`pq scan` against an arrow-rs scan, with peak
//! memory) is `cargo xtask bench-read`.
//!
//! A file that either reader fails on (or that they read to different row
//! counts) is printed as NOT TIMED with the error, and left out.
//! Before criterion's own measurements, a pass of alternating rounds prints
//! a markdown table of each file's median times and the median of the
//! rounds' ratios pq-arrow / arrow-rs (`PQ_BENCH_NO_RATIOS=1` skips it,
//! `PQ_BENCH_ROUNDS=N` fixes its rounds).

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::{arrow_rs, median, pq, ratio, rounds};
use criterion::Criterion;

fn ratios(files: &[(String, std::path::PathBuf, Bytes)]) {
    println!(
        "\n| file | mode | arrow-rs ms | pq-arrow ms | ratio (IQR) | pq-arrow 2 threads ms | ratio | rounds |"
    );
    println!("|---|---|--:|--:|--:|--:|--:|--:|");
    for (name, path, bytes) in files {
        assert_eq!(
            pq::read_path(path, 1),
            arrow_rs::read_path(path),
            "{name}: rows"
        );
        let t = rounds(
            &mut [
                &mut || arrow_rs::read_path(path).unwrap_or(0),
                &mut || pq::read_path(path, 1).unwrap_or(0),
                &mut || arrow_rs::read_bytes(bytes).unwrap_or(0),
                &mut || pq::read_bytes(bytes, 1).unwrap_or(0),
                &mut || pq::read_bytes(bytes, 2).unwrap_or(0),
            ],
            Duration::from_secs(6),
        );
        let (r_path, iqr_path) = ratio(&t[1], &t[0]);
        let (r_bytes, iqr_bytes) = ratio(&t[3], &t[2]);
        let (r_two, _) = ratio(&t[4], &t[2]);
        let ms = |i: usize| median(&t[i]) * 1e3;
        println!(
            "| {name} | path | {:.1} | {:.1} | {r_path:.2} ({iqr_path}) | | | {} |",
            ms(0),
            ms(1),
            t[0].len()
        );
        println!(
            "| {name} | bytes | {:.1} | {:.1} | {r_bytes:.2} ({iqr_bytes}) | {:.1} | {r_two:.2} | {} |",
            ms(2),
            ms(3),
            ms(4),
            t[0].len()
        );
    }
    println!();
}

fn bench(c: &mut Criterion) {
    let mut files = Vec::new();
    for (name, path) in common::matrix_files() {
        let bytes = match std::fs::read(&path) {
            Ok(b) => Bytes::from(b),
            Err(e) => panic!("{}: {e}", path.display()),
        };
        // A file that a reader cannot read, or reads otherwise than the
        // other, is a finding to report, not a time: it is left out.
        match (pq::read_bytes(&bytes, 1), arrow_rs::read_bytes(&bytes)) {
            (Ok(a), Ok(b)) if a == b => files.push((name, path, bytes)),
            (Ok(a), Ok(b)) => println!("{name}: NOT TIMED: pq-arrow read {a} rows, arrow-rs {b}"),
            (Err(e), _) | (_, Err(e)) => println!("{name}: NOT TIMED: {e}"),
        }
    }
    if std::env::var_os("PQ_BENCH_NO_RATIOS").is_none() {
        ratios(&files);
    }
    for (name, path, bytes) in &files {
        let mut g = c.benchmark_group(name.as_str());
        g.sample_size(10);
        g.bench_function("path/arrow-rs", |b| {
            b.iter(|| arrow_rs::read_path(path).unwrap_or(0))
        });
        g.bench_function("path/pq-arrow", |b| {
            b.iter(|| pq::read_path(path, 1).unwrap_or(0))
        });
        g.bench_function("bytes/arrow-rs", |b| {
            b.iter(|| arrow_rs::read_bytes(bytes).unwrap_or(0))
        });
        g.bench_function("bytes/pq-arrow", |b| {
            b.iter(|| pq::read_bytes(bytes, 1).unwrap_or(0))
        });
        g.bench_function("bytes/pq-arrow 2 threads", |b| {
            b.iter(|| pq::read_bytes(bytes, 2).unwrap_or(0))
        });
        g.finish();
    }
}

fn main() {
    common::run(bench);
}
