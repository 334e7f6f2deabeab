//! Project automation, run as `cargo xtask <command>`.
//!
//! - `gen [--check]`: regenerate the Thrift code in pq-format and the test
//!   fixtures in `data/`; with `--check`, fail if anything committed is stale.
//! - `ci`: every check CI runs.
//! - `bench-data [--force]`: the large tables the benchmarks read, in
//!   `target/bench-data/` (not committed).
//! - `fuzz [--minutes N] [--target NAME]`: every fuzz target in turn on the
//!   nightly toolchain; crashes are minimised into `tests/regressions/`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod bench_data;
mod ci;
mod fixtures;
mod fuzz;
mod rng;
mod thrift_gen;

/// An xtask failure: a message for the user.
pub type Result<T> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = workspace_root();
    let result = match args.first().map(String::as_str) {
        Some("gen") => {
            let check = args.iter().any(|a| a == "--check");
            gen_all(&root, check)
        }
        Some("ci") => ci::run(&root),
        Some("fuzz") => fuzz::run(&root, &args[1..]),
        Some("bench-data") => bench_data::run(&root, args.iter().any(|a| a == "--force")),
        _ => Err(usage()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("xtask: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn usage() -> String {
    "usage: cargo xtask <gen [--check] | ci | bench-data [--force] | fuzz [--minutes N] [--target NAME]>".to_string()
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

fn gen_all(root: &Path, check: bool) -> Result<()> {
    thrift_gen::run(root, check)?;
    fixtures::run(root, check)?;
    Ok(())
}
