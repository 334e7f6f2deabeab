//! Project automation, run as `cargo xtask <command>`.
//!
//! - `gen [--check]`: regenerate the Thrift code in pq-format and the test
//!   fixtures in `data/`; with `--check`, fail if anything committed is stale.
//! - `ci`: every check CI runs, after installing what they need (rustup
//!   target and components, a project-local Python venv with pyarrow and
//!   moto's S3 server).
//! - `bench-data [--force] [--rows N]`: the benchmark matrix (the same
//!   tables written by arrow-rs, pyarrow, DuckDB and Polars) in
//!   `target/bench-data/` (not committed).
//! - `bench-read [--rounds N] [--only TEXT]`: whole-process reads of every
//!   file of the matrix, `pq scan` against an arrow-rs scan (time and peak
//!   memory), and pyarrow, Polars and DuckDB reading in process.
//! - `bench-write [--rounds N] [--only TEXT]`: whole-process rewrites of
//!   every file of the matrix, `pq convert` against an arrow-rs rewrite, in
//!   the write bench's three settings, with peak memory and sizes.
//! - `bench-csv [--rows N] [--threads N] [--rounds N]`: CSV to Parquet by `pq convert`,
//!   DuckDB and Polars (time and peak memory) on a generated CSV.
//! - `fuzz [--minutes N] [--target NAME]`: every fuzz target in turn on the
//!   nightly toolchain; crashes are minimised into `tests/regressions/`.
//!
//! xtask itself has no dependencies, so it builds in seconds; what needs the
//! arrow-rs writer (fixtures, benchmark tables, fuzz seeds) runs the
//! `xtask-datagen` package in `xtask/datagen`.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

mod bench_csv;
mod bench_data;
mod bench_read;
mod bench_write;
mod child;
mod ci;
mod fuzz;
mod setup;
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
        Some("bench-data") => bench_data::run(&root, &args[1..]),
        Some("bench-read") => bench_read::run(&root, &args[1..]),
        Some("bench-write") => bench_write::run(&root, &args[1..]),
        Some("bench-csv") => bench_csv::run(&root, &args[1..]),
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
    "usage: cargo xtask <gen [--check] | ci | bench-data [--force] [--rows N] | bench-read [--rounds N] [--only TEXT] | bench-write [--rounds N] [--only TEXT] | bench-csv [--rows N] [--threads N] [--rounds N] | fuzz [--minutes N] [--target NAME]>".to_string()
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

fn gen_all(root: &Path, check: bool) -> Result<()> {
    thrift_gen::run(root, check)?;
    let mut command = vec!["fixtures"];
    if check {
        command.push("--check");
    }
    datagen(root, &command)
}

/// `cargo`, run as from the user's shell: without the variables cargo sets
/// for the running xtask (`CARGO_PKG_NAME`, `CARGO_MANIFEST_DIR`, …). Some
/// build scripts (ring's, under object_store and DataFusion) ask to be rerun
/// when those change, so a build started here would otherwise redo what a
/// direct `cargo build` did (twelve minutes of a release build on two
/// cores), and the other way round.
pub fn cargo() -> Command {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    for (key, _) in std::env::vars_os() {
        let set_for_xtask = key.to_str().is_some_and(|k| {
            k.starts_with("CARGO_PKG_")
                || k.starts_with("CARGO_MANIFEST_")
                || matches!(
                    k,
                    "CARGO_CRATE_NAME" | "CARGO_BIN_NAME" | "CARGO_PRIMARY_PACKAGE"
                )
        });
        if set_for_xtask {
            cmd.env_remove(key);
        }
    }
    cmd
}

/// Runs `xtask-datagen` with `args`, building it first (the arrow-rs writer
/// takes a minute or two to build the first time, with cargo's progress shown).
pub fn datagen(root: &Path, args: &[&str]) -> Result<()> {
    eprintln!(
        "xtask: running the arrow-rs data writer: xtask-datagen {}",
        args.join(" ")
    );
    let status = cargo()
        .current_dir(root)
        .args(["run", "-p", "xtask-datagen", "--"])
        .args(args)
        .status()
        .map_err(|e| format!("could not run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "xtask-datagen {} failed ({status})",
            args.join(" ")
        ))
    }
}
