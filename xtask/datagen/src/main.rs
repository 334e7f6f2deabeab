//! The data writer behind `cargo xtask gen` and `cargo xtask bench-data`:
//! the fixtures in `data/` and the benchmark tables, written by the arrow-rs
//! `parquet` crate so that pq is always tested on another writer's bytes.
//!
//! - `fixtures [--check]`: write `data/*.parquet`; with `--check`, fail if a
//!   committed fixture differs from what would be written.
//! - `bench-data [--force]`: the large tables in `target/bench-data/`.
//! - `fuzz-seeds TARGET CORPUS`: a fuzz target's first inputs, from real files.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod bench_data;
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
        Some("bench-data") => bench_data::run(&root, has("--force")),
        Some("fuzz-seeds") => match (args.get(1), args.get(2)) {
            (Some(target), Some(corpus)) => fuzz_seeds::run(&root, target, Path::new(corpus)),
            _ => Err("usage: xtask-datagen fuzz-seeds TARGET CORPUS".into()),
        },
        _ => Err("usage: xtask-datagen <fixtures [--check] | bench-data [--force] | fuzz-seeds TARGET CORPUS>".into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("xtask-datagen: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}
