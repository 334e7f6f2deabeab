//! Helpers the pq-cli test binaries share.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;

/// The fixtures written by `cargo xtask gen`.
pub const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data");

/// The fixture `name` in `data/`.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(format!("{DATA}/{name}"))
}

/// The `pq` binary this package builds.
pub fn pq() -> assert_cmd::Command {
    assert_cmd::Command::new(assert_cmd::cargo::cargo_bin("pq"))
}

/// Runs `pq` with `args`, expecting success; gives stdout.
pub fn ok(args: &[&str]) -> String {
    let out = pq().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "pq {args:?} failed: {stderr}");
    assert_no_panic(&stderr);
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `pq` with `args`, expecting exit status `code`; gives stderr.
pub fn fails_with(args: &[&str], code: i32) -> String {
    let out = pq().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "pq {args:?}: {stderr}");
    assert_no_panic(&stderr);
    stderr
}

/// Runs `pq` with `args`, expecting the exit status 1 of a failed command
/// and its message of one line; gives stderr.
pub fn fails(args: &[&str]) -> String {
    let stderr = fails_with(args, 1);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr
}

/// Fails if `stderr` shows a panic or a backtrace.
pub fn assert_no_panic(stderr: &str) {
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    assert!(!stderr.contains("RUST_BACKTRACE"), "backtrace: {stderr}");
    assert!(!stderr.contains("stack backtrace"), "backtrace: {stderr}");
}

/// A directory of its own for one test, empty: the process id keeps test
/// binaries running at the same time apart, the test's name the tests of one.
pub fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pq-cli-test-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A file of this name in a directory of this test process (not emptied:
/// for tests whose files have names of their own).
pub fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pq-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// A path as the `&str` an argument list takes.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The file as arrow-rs reads it: the reference the output is checked
/// against.
pub fn arrow_rs(path: &Path) -> Vec<RecordBatch> {
    let file = std::fs::File::open(path).unwrap();
    parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Batches as JSON lines through arrow-json, nulls written out, as
/// `pq cat --format jsonl` writes them.
pub fn jsonl(batches: &[RecordBatch]) -> String {
    let mut buf = Vec::new();
    {
        let mut w = arrow_json::WriterBuilder::new()
            .with_explicit_nulls(true)
            .build::<_, arrow_json::writer::LineDelimited>(&mut buf);
        for b in batches {
            w.write(b).unwrap();
        }
        w.finish().unwrap();
    }
    String::from_utf8(buf).unwrap()
}

/// Writes `batch` to `path` with arrow-rs, the reference writer, so that
/// what the CLI reads was not written by pq itself.
pub fn write_arrow_rs(
    path: &Path,
    batch: &RecordBatch,
    props: Option<parquet::file::properties::WriterProperties>,
) {
    let file = std::fs::File::create(path).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), props).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
}

/// The Parquet file at `path` read whole by arrow-rs, as one batch: the
/// independent reading of what a command wrote.
pub fn read_arrow_rs(path: &Path) -> RecordBatch {
    let file = std::fs::File::open(path).unwrap();
    let batches: Vec<RecordBatch> =
        parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .build()
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
    arrow_select::concat::concat_batches(&batches[0].schema(), &batches).unwrap()
}
