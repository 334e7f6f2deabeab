//! What the read and write benches share: the files of the benchmark matrix,
//! the writer settings, and the alternating rounds the ratios come from.
//! pq-arrow is called only from `pq.rs`, arrow-rs only from `arrow_rs.rs`
//! and `arrow_rs_settings.rs` (the settings as arrow-rs's properties, and
//! what a file records of its writer's settings, which the
//! `arrow_rs_convert` example shares).

// Each bench uses a part of this module.
#![allow(dead_code)]

pub mod arrow_rs;
pub mod arrow_rs_pruning;
pub mod arrow_rs_settings;
pub mod pq;

use std::fmt::Display;
use std::path::PathBuf;
use std::time::Duration;

pub use arrow_rs_settings::{Written, WrittenCodec};

/// The files of the matrix that `cargo xtask bench-data` wrote to
/// `target/bench-data/` (or the directory `PQ_BENCH_DATA` names), by name;
/// `PQ_BENCH_ONLY=TEXT` keeps those whose name contains TEXT. Exits with a
/// message when there are none.
pub fn matrix_files() -> Vec<(String, PathBuf)> {
    let dir = match std::env::var_os("PQ_BENCH_DATA") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-data"),
    };
    let only = std::env::var("PQ_BENCH_ONLY").unwrap_or_default();
    let mut files: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .filter_map(|p| Some((p.file_stem()?.to_string_lossy().into_owned(), p)))
        .filter(|(name, _)| name.contains(only.as_str()))
        .collect();
    files.sort();
    if files.is_empty() {
        eprintln!(
            "no benchmark file in {} (matching PQ_BENCH_ONLY={only:?}): run `cargo xtask bench-data` first",
            dir.display()
        );
        std::process::exit(1);
    }
    files
}

/// Whether both readers give strings and binaries as `Utf8View` and
/// `BinaryView` (`PQ_BENCH_VIEWS=1`), as query engines ask for them:
/// pq-arrow with `with_view_types`, arrow-rs with a supplied schema whose
/// top-level string and binary columns are views (so compare flat tables
/// only: pq-arrow makes nested ones views too).
pub fn views() -> bool {
    std::env::var_os("PQ_BENCH_VIEWS").is_some_and(|v| v == "1")
}

/// The rows of every batch of `reader`, or the first error, prefixed by
/// `who` (the library).
pub fn count_rows<I, B, E1, E2>(who: &str, reader: Result<I, E1>) -> Result<usize, String>
where
    I: Iterator<Item = Result<B, E2>>,
    B: std::borrow::Borrow<arrow_array::RecordBatch>,
    E1: Display,
    E2: Display,
{
    let mut rows = 0;
    for b in reader.map_err(|e| format!("{who}: {e}"))? {
        rows += b.map_err(|e| format!("{who}: {e}"))?.borrow().num_rows();
    }
    Ok(rows)
}

/// Criterion with 1 s of warm-up and 3 s of measurement per case, shorter
/// than its default 3 s + 5 s because the matrix has dozens of files;
/// `--warm-up-time` and `--measurement-time` still override them.
pub fn criterion() -> criterion::Criterion {
    criterion::Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

/// The `main` of a bench target: runs `bench` under [`criterion`] with the
/// command line's overrides, then prints criterion's closing summary (what
/// `criterion_group!` + `criterion_main!` would expand to).
pub fn run(bench: fn(&mut criterion::Criterion)) {
    let mut c = criterion().configure_from_args();
    bench(&mut c);
    c.final_summary();
}

/// The settings files are written back with: each writer's own defaults
/// (pq: SNAPPY with dictionaries; arrow-rs: uncompressed with
/// dictionaries), two settings both writers are given alike, and the
/// settings the file itself was written with, given to both alike.
#[derive(Clone, Copy, Debug)]
pub enum Setting {
    /// Each writer's defaults.
    Defaults,
    /// SNAPPY, dictionaries, data page v1.
    SnappyDict,
    /// ZSTD level 1 (arrow-rs's default level), data page v2.
    ZstdV2,
    /// What the file's own writer (pyarrow, DuckDB, Polars, arrow-rs) chose,
    /// as far as the file records it.
    AsWritten(Written),
}

impl Setting {
    pub const ALL: [Setting; 3] = [Setting::Defaults, Setting::SnappyDict, Setting::ZstdV2];

    pub fn name(self) -> &'static str {
        match self {
            Setting::Defaults => "defaults",
            Setting::SnappyDict => "snappy_dict",
            Setting::ZstdV2 => "zstd_v2",
            Setting::AsWritten(_) => "as_written",
        }
    }

    /// The four settings for a file written with `written`.
    pub fn for_file(written: Written) -> [Setting; 4] {
        let [a, b, c] = Self::ALL;
        [a, b, c, Setting::AsWritten(written)]
    }
}

// Each bench uses a part of these.
#[allow(unused_imports)]
pub use pq_testkit::timing::{median, ratio, rounds};
