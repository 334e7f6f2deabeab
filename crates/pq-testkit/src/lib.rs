//! Test support shared by pq's test suites, used only as a dev-dependency.
//!
//! A test that cannot run here (no parquet-testing corpus, no pyarrow) must
//! not pass quietly. [`skip`] prints the reason and, when `cargo xtask ci`
//! runs the tests, appends it to the file named by [`SKIP_LOG_ENV`], so the
//! run ends with a summary of every skipped test and why. With `CI` set a
//! skip is a failure instead: CI can never pass by skipping.
//!
//! It also holds the tests' pseudo-random generator, [`Rng`], the pieces a
//! test source hands an answer on in, [`in_pieces`], and loopback
//! [`timing`] for benchmarks that compare two implementations, and
//! servers for testing remote (object-store) reading: [`RangeServer`],
//! [`FaultProxy`], [`MotoServer`] and [`AzuriteServer`] (see [`servers`]).
//!
//! This crate knows nothing of Parquet. The servers need tokio, an HTTP
//! parser (httparse) and an HTTP date formatter (httpdate); `Cargo.toml`
//! says why those and not a server framework.

use std::io::Write;
use std::path::PathBuf;

mod rng;
pub mod servers;
pub mod timing;

pub use rng::Rng;
pub use servers::{
    AzuriteServer, FaultProxy, Faults, MotoError, MotoServer, PendingFaults, ProxyStats,
    RangeServer, RangeStats, RequestCounts,
};

/// `data` cut into the pieces a test source hands an answer on in: 1, 7,
/// 300, 4096 and 100 000 bytes in turn (the last piece what is left), so
/// that whatever the answer holds, pages and their headers, is split
/// anywhere, as a network body's chunks split it.
///
/// ```
/// let pieces: Vec<_> = pq_testkit::in_pieces(bytes::Bytes::from(vec![0u8; 310])).collect();
/// let lens: Vec<usize> = pieces.iter().map(|p| p.len()).collect();
/// assert_eq!(lens, [1, 7, 300, 2]);
/// ```
pub fn in_pieces(mut data: bytes::Bytes) -> impl Iterator<Item = bytes::Bytes> {
    let mut lens = [1, 7, 300, 4096, 100_000].into_iter().cycle();
    std::iter::from_fn(move || {
        if data.is_empty() {
            return None;
        }
        let len = lens.next().unwrap_or(1);
        Some(data.split_to(data.len().min(len)))
    })
}

/// The environment variable naming the file that skips are appended to, one
/// line each: `package/binary::test<TAB>reason`.
pub const SKIP_LOG_ENV: &str = "PQ_SKIP_LOG";

/// The parquet-testing checkout named by `PARQUET_TESTING_DIR` (the folder
/// holding `data/` and `bad_data/`).
///
/// When the variable is unset the calling test is skipped through [`skip`]
/// and `None` is returned; a variable that names no corpus is a failure,
/// since the run was asked to use it.
///
/// ```no_run
/// if let Some(dir) = pq_testkit::parquet_testing_dir() {
///     assert!(dir.join("data").is_dir());
/// }
/// ```
pub fn parquet_testing_dir() -> Option<PathBuf> {
    match std::env::var_os("PARQUET_TESTING_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            assert!(
                dir.join("data").is_dir(),
                "PARQUET_TESTING_DIR={} has no data/ directory",
                dir.display()
            );
            Some(dir)
        }
        None => {
            skip("PARQUET_TESTING_DIR is not set (the parquet-testing corpus)");
            None
        }
    }
}

/// The corpus's `data/` folder: [`parquet_testing_dir`] joined with `data`,
/// `None` (the test skipped) when the variable is unset.
pub fn corpus_data_dir() -> Option<PathBuf> {
    parquet_testing_dir().map(|dir| dir.join("data"))
}

/// Records that the calling test skips its checks, and why.
///
/// Panics when `CI` is set. Otherwise prints the reason and appends it to the
/// [`SKIP_LOG_ENV`] file when that is set; the caller then returns.
pub fn skip(reason: &str) {
    let test = current_test();
    assert!(
        std::env::var_os("CI").is_none(),
        "{test} cannot run: {reason}; CI must run every test"
    );
    eprintln!("SKIPPED {test}: {reason}");
    if let Some(log) = std::env::var_os(SKIP_LOG_ENV) {
        // One short write with O_APPEND: lines from test binaries running
        // at the same time do not interleave.
        let line = format!("{test}\t{reason}\n");
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(e) = written {
            eprintln!(
                "could not record the skip in {}: {e}",
                log.to_string_lossy()
            );
        }
    }
}

/// `package/binary::test` for the running test: the test binary's name
/// without cargo's hash, and the test harness's thread name, which is the
/// test's.
fn current_test() -> String {
    let binary = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .map(|s| match s.rsplit_once('-') {
            Some((name, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => name.to_owned(),
            _ => s,
        })
        .unwrap_or_else(|| "?".into());
    // cargo sets the package name when it runs a test binary; several
    // packages have a test binary called `corpus`.
    let binary = match std::env::var("CARGO_PKG_NAME") {
        Ok(package) => format!("{package}/{binary}"),
        Err(_) => binary,
    };
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("?");
    format!("{binary}::{test}")
}

/// Whether `python3` on the `PATH` can import pyarrow, the independent
/// reader some tests compare with. `cargo xtask ci` puts a project-local
/// virtual environment with pyarrow first on the `PATH`.
///
/// ```no_run
/// if !pq_testkit::have_pyarrow() {
///     pq_testkit::skip("python3 with pyarrow is not on the PATH");
/// }
/// ```
pub fn have_pyarrow() -> bool {
    static HAVE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAVE.get_or_init(|| python_imports("pyarrow"))
}

/// Whether `python3` on the `PATH` can import duckdb and pyarrow (DuckDB
/// writes the tables it is handed as pyarrow tables), for the tests that
/// read DuckDB's files. `cargo xtask ci` installs both into its venv.
///
/// ```no_run
/// if !pq_testkit::have_duckdb() {
///     pq_testkit::skip("python3 with duckdb is not on the PATH");
/// }
/// ```
pub fn have_duckdb() -> bool {
    static HAVE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAVE.get_or_init(|| python_imports("duckdb, pyarrow"))
}

fn python_imports(modules: &str) -> bool {
    std::process::Command::new("python3")
        .args(["-c", &format!("import {modules}")])
        .output()
        .is_ok_and(|o| o.status.success())
}
