//! Writing every file of the benchmark matrix back to Parquet in memory,
//! pq-arrow's `ParquetWriter` side by side with arrow-rs's `ArrowWriter`,
//! in four settings: each writer's defaults, SNAPPY with dictionaries
//! (data page v1), ZSTD level 1 with data page v2, and the settings the
//! file records of its own writer (codec, dictionaries, page version, row
//! group rows; see `common::Setting`).
//!
//! Each file is read once (by arrow-rs, in batches of 64 Ki rows) and its
//! batches are written. Before criterion's measurements, a pass of
//! alternating rounds prints a markdown table, per file and setting, of the
//! median times, the median of the rounds' ratios pq-arrow / arrow-rs and
//! the two output sizes (`PQ_BENCH_NO_RATIOS=1` skips it, `PQ_BENCH_ROUNDS=N`
//! fixes its rounds; `PQ_BENCH_ONLY=TEXT` keeps the files whose name
//! contains TEXT, `PQ_BENCH_SETTING=NAME` the one setting of that name:
//! `defaults`, `snappy_dict`, `zstd_v2` or `as_written`, e.g. to profile it
//! alone). The
//! matrix is written by `cargo xtask bench-data`.

mod common;

use std::time::Duration;

use arrow_array::RecordBatch;
use common::{Setting, Written, arrow_rs, median, pq, ratio, rounds};
use criterion::Criterion;

fn ratios(files: &[(String, Written, Vec<RecordBatch>)]) {
    println!(
        "\n| file | setting | arrow-rs ms | pq-arrow ms | ratio (IQR) | arrow-rs bytes | pq-arrow bytes | size ratio | rounds |"
    );
    println!("|---|---|--:|--:|--:|--:|--:|--:|--:|");
    for (name, written, batches) in files {
        for s in settings(*written) {
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

/// The settings to run for a file written with `written`: all, or the one
/// `PQ_BENCH_SETTING` names.
fn settings(written: Written) -> Vec<Setting> {
    let only = std::env::var("PQ_BENCH_SETTING").ok();
    Setting::for_file(written)
        .into_iter()
        .filter(|s| only.as_deref().is_none_or(|n| n == s.name()))
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut files = Vec::new();
    for (name, path) in common::matrix_files() {
        let written = common::arrow_rs_settings::read(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        match arrow_rs::batches(&path) {
            Ok(b) if !b.is_empty() => files.push((name, written, b)),
            Ok(_) => eprintln!("{name}: no rows; skipped"),
            Err(e) => panic!("{}: {e}", path.display()),
        }
    }
    // What each file's `as_written` setting stands for.
    for (name, written, _) in &files {
        println!("{name}: as_written = {written}");
    }
    if std::env::var_os("PQ_BENCH_NO_RATIOS").is_none() {
        ratios(&files);
    }
    for (name, written, batches) in &files {
        let mut g = c.benchmark_group(format!("write {name}"));
        g.sample_size(10);
        for s in settings(*written) {
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
