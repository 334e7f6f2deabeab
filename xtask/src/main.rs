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
//! - `bench-write [--rounds N] [--only TEXT] [--setting NAME]`: whole-process rewrites of
//!   every file of the matrix, `pq convert` against an arrow-rs rewrite, in
//!   the write bench's four settings, with peak memory and sizes.
//! - `bench-csv [--rows N] [--threads N] [--rounds N]`: CSV to Parquet by `pq convert`,
//!   DuckDB and Polars (time and peak memory) on a generated CSV.
//! - `fuzz [--minutes N] [--target NAME]`: every fuzz target in turn on the
//!   nightly toolchain; crashes are minimised into `tests/regressions/`.
//! - `core-round-trip [--rounds N]`: how long two threads take to pass a
//!   cache line to each other and back (the median of N measures), which
//!   on a virtual machine changes with where the host runs its cores.
//!
//! `-h` or `--help` prints the usage. A command line naming an unknown
//! command, an option its command does not take or a stray argument is
//! refused with exit code 2 before anything runs.
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
mod core_round_trip;
mod fuzz;
mod setup;
mod thrift_gen;

/// An xtask failure: a message for the user.
pub type Result<T> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = workspace_root();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{}", usage());
        return ExitCode::SUCCESS;
    }
    if let Err(msg) = check_options(&args) {
        eprintln!("xtask: {msg}\n{}", usage());
        return ExitCode::from(2);
    }
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
        Some("core-round-trip") => core_round_trip::run(&args[1..]),
        // `check_options` let through only the commands above.
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

/// The options of each command: its flags, and whether each takes a value.
fn options(command: &str) -> Option<&'static [(&'static str, bool)]> {
    Some(match command {
        "gen" => &[("--check", false)],
        "ci" => &[],
        "fuzz" => &[("--minutes", true), ("--target", true)],
        "bench-data" => &[("--force", false), ("--rows", true)],
        "bench-read" => &[("--rounds", true), ("--only", true)],
        "bench-write" => &[("--rounds", true), ("--only", true), ("--setting", true)],
        "bench-csv" => &[("--rows", true), ("--threads", true), ("--rounds", true)],
        "core-round-trip" => &[("--rounds", true)],
        _ => return None,
    })
}

/// Refuses a command line with an unknown command, an option its command
/// does not take, a value missing or a stray argument: each command reads
/// only its own flags, and a mistyped one would otherwise be ignored and
/// the command run as if it were not there (a whole CI run, say).
fn check_options(args: &[String]) -> Result<()> {
    let Some(command) = args.first() else {
        return Err("no command given".into());
    };
    let known = options(command).ok_or_else(|| format!("unknown command `{command}`"))?;
    let mut rest = args.iter().skip(1);
    while let Some(arg) = rest.next() {
        match known.iter().find(|(name, _)| name == arg) {
            Some((_, true)) => {
                if rest.next().is_none() {
                    return Err(format!("`{command} {arg}` needs a value"));
                }
            }
            Some((_, false)) => {}
            None => return Err(format!("`{command}` takes no argument `{arg}`")),
        }
    }
    Ok(())
}

fn usage() -> String {
    "usage: cargo xtask <gen [--check] | ci | bench-data [--force] [--rows N] | bench-read [--rounds N] [--only TEXT] | bench-write [--rounds N] [--only TEXT] [--setting NAME] | bench-csv [--rows N] [--threads N] [--rounds N] | fuzz [--minutes N] [--target NAME] | core-round-trip [--rounds N]>".to_string()
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

#[cfg(test)]
mod tests {
    use super::check_options;

    fn check(line: &str) -> Result<(), String> {
        check_options(
            &line
                .split_whitespace()
                .map(String::from)
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn each_command_takes_its_own_options_only() {
        for ok in [
            "gen",
            "gen --check",
            "ci",
            "fuzz --minutes 2 --target footer",
            "bench-data --force --rows 4000000",
            "bench-read --rounds 7 --only lineitem",
            "bench-write --only nested --setting as_written",
            "bench-csv --rows 10 --threads 2 --rounds 3",
        ] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
        for (bad, says) in [
            ("", "no command"),
            ("bench", "unknown command `bench`"),
            ("ci --check", "takes no argument `--check`"),
            ("bench-read --round 7", "takes no argument `--round`"),
            ("bench-read --rounds", "needs a value"),
            (
                "bench-read --setting zstd_v2",
                "takes no argument `--setting`",
            ),
            ("gen stale", "takes no argument `stale`"),
        ] {
            let err = check(bad).err().unwrap_or_default();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }
}
