//! The data writer behind `cargo xtask gen` and `cargo xtask bench-data`:
//! the fixtures in `data/` and the benchmark tables, written by the arrow-rs
//! `parquet` crate so that pq is always tested on another writer's bytes.
//!
//! - `fixtures [--check]`: write `data/*.parquet`; with `--check`, fail if a
//!   committed fixture differs from what would be written.
//! - `bench-data [--force] [--rows N]`: the logical tables of the benchmark
//!   matrix and the arrow-rs writer's files of them, in `target/bench-data/`.
//! - `fuzz-seeds TARGET CORPUS`: a fuzz target's first inputs, from real files.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod bench_data;
mod bench_tables;
mod fixtures;
mod fuzz_seeds;
mod rng;

/// A failure: a message for the user.
pub type Result<T> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = workspace_root();
    let has = |flag: &str| args.iter().any(|a| a == flag);
    let result = match args.first().map(String::as_str) {
        Some("fixtures") => fixtures::run(&root, has("--check")),
        Some("bench-data") => match rows_arg(&args) {
            Ok(rows) => bench_data::run(&root, has("--force"), rows),
            Err(e) => Err(e),
        },
        Some("fuzz-seeds") => match (args.get(1), args.get(2)) {
            (Some(target), Some(corpus)) => fuzz_seeds::run(&root, target, Path::new(corpus)),
            _ => Err("usage: xtask-datagen fuzz-seeds TARGET CORPUS".into()),
        },
        _ => Err("usage: xtask-datagen <fixtures [--check] | bench-data [--force] [--rows N] | fuzz-seeds TARGET CORPUS>".into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("xtask-datagen: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// The value of `--rows` (at least 4, so that every table has rows), or
/// the default.
fn rows_arg(args: &[String]) -> Result<usize> {
    match args.iter().position(|a| a == "--rows") {
        None => Ok(bench_data::DEFAULT_ROWS),
        Some(i) => match args.get(i + 1).map(|v| v.parse::<usize>()) {
            Some(Ok(n)) if n >= 4 => Ok(n),
            _ => Err("--rows needs a number of rows, at least 4".into()),
        },
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}
