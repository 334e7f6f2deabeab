//! Writing every file of the benchmark matrix back to Parquet in memory,
//! pq-arrow's `ParquetWriter` side by side with arrow-rs's `ArrowWriter`,
//! in three settings: each writer's defaults, SNAPPY with dictionaries
//! (data page v1), and ZSTD level 1 with data page v2 (see
//! `common::Setting`).
//!
//! Each file is read once (by arrow-rs, in batches of 64 Ki rows) and its
//! batches are written. Before criterion's measurements, a pass of
//! alternating rounds prints a markdown table, per file and setting, of the
//! median times, the median of the rounds' ratios pq-arrow / arrow-rs and
//! the two output sizes (`PQ_BENCH_NO_RATIOS=1` skips it, `PQ_BENCH_ROUNDS=N`
//! fixes its rounds; `PQ_BENCH_ONLY=TEXT` keeps the files whose name
//! contains TEXT, `PQ_BENCH_SETTING=NAME` the one setting of that name:
//! `defaults`, `snappy_dict` or `zstd_v2`, e.g. to profile it alone). The
//! matrix is written by `cargo xtask bench-data`.

mod common;

use std::time::Duration;

use arrow_array::RecordBatch;
use common::{Setting, arrow_rs, median, pq, ratio, rounds};
use criterion::Criterion;

fn ratios(files: &[(String, Vec<RecordBatch>)]) {
    println!(
        "\n| file | setting | arrow-rs ms | pq-arrow ms | ratio (IQR) | arrow-rs bytes | pq-arrow bytes | size ratio | rounds |"
    );
    println!("|---|---|--:|--:|--:|--:|--:|--:|--:|");
    for (name, batches) in files {
        for s in settings() {
            let sizes = (pq::write(batches, s), arrow_rs::write(batches, s));
            let (n_pq, n_rs) = match sizes {
                (Ok(a), Ok(b)) => (a.len(), b.len()),
                (a, b) => {
                    let why = |r: Result<Vec<u8>, String>| r.err().unwrap_or_default();
                    println!(
                        "| {name} | {} | fails: {} | fails: {} | | | | | |",
                        s.name(),
                        why(b),
                        why(a)
                    );
                    continue;
                }
            };
            let t = rounds(
                &mut [
                    &mut || arrow_rs::write(batches, s).map_or(0, |o| o.len()),
                    &mut || pq::write(batches, s).map_or(0, |o| o.len()),
                ],
                Duration::from_secs(4),
            );
            let (r, iqr) = ratio(&t[1], &t[0]);
            println!(
                "| {name} | {} | {:.1} | {:.1} | {r:.2} ({iqr}) | {n_rs} | {n_pq} | {:.4} | {} |",
                s.name(),
                median(&t[0]) * 1e3,
                median(&t[1]) * 1e3,
                n_pq as f64 / n_rs as f64,
                t[0].len()
            );
        }
    }
    println!();
}

/// The settings to run: all, or the one `PQ_BENCH_SETTING` names.
fn settings() -> Vec<Setting> {
    let only = std::env::var("PQ_BENCH_SETTING").ok();
    Setting::ALL
        .into_iter()
        .filter(|s| only.as_deref().is_none_or(|n| n == s.name()))
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut files = Vec::new();
    for (name, path) in common::matrix_files() {
        match arrow_rs::batches(&path) {
            Ok(b) if !b.is_empty() => files.push((name, b)),
            Ok(_) => eprintln!("{name}: no rows; skipped"),
            Err(e) => panic!("{}: {e}", path.display()),
        }
    }
    if std::env::var_os("PQ_BENCH_NO_RATIOS").is_none() {
        ratios(&files);
    }
    for (name, batches) in &files {
        let mut g = c.benchmark_group(format!("write {name}"));
        g.sample_size(10);
        for s in settings() {
            if pq::write(batches, s).is_err() || arrow_rs::write(batches, s).is_err() {
                continue;
            }
            g.bench_function(format!("{}/arrow-rs", s.name()), |b| {
                b.iter(|| arrow_rs::write(batches, s).map_or(0, |o| o.len()))
            });
            g.bench_function(format!("{}/pq-arrow", s.name()), |b| {
                b.iter(|| pq::write(batches, s).map_or(0, |o| o.len()))
            });
        }
        g.finish();
    }
}

fn main() {
    common::run(bench);
}
