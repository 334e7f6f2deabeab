//! The memory of `pq meta` against the size of the footer it prints,
//! measured by the kernel for the child process alone.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};

mod common;
use common::{dir, s};

/// Held by each test: a child's peak memory starts at this process's, so
/// one test's memory must not count in another's children.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

fn pq() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin("pq"))
}

/// A Parquet file with no row groups whose footer holds `n` key-value
/// entries with empty keys and no values (three bytes each, the smallest
/// an entry can be); gives the footer's length.
fn key_value_file(path: &Path, n: usize) -> usize {
    use pq_format::{
        FieldRepetitionType, FileMetaData, KeyValue, SchemaElement, ThriftEncode, Type,
    };
    let metadata = FileMetaData {
        version: 1,
        schema: vec![
            SchemaElement {
                name: "schema".into(),
                num_children: Some(1),
                ..Default::default()
            },
            SchemaElement {
                name: "a".into(),
                type_: Some(Type::INT32),
                repetition_type: Some(FieldRepetitionType::REQUIRED),
                ..Default::default()
            },
        ],
        key_value_metadata: Some(vec![KeyValue::default(); n]),
        ..Default::default()
    };
    let footer = metadata.encode();
    let mut file = b"PAR1".to_vec();
    file.extend_from_slice(&footer);
    file.extend_from_slice(&u32::try_from(footer.len()).unwrap().to_le_bytes());
    file.extend_from_slice(b"PAR1");
    std::fs::write(path, file).unwrap();
    footer.len()
}

/// Runs `pq args` to completion with its output in `out` and gives its
/// peak resident memory in bytes, as the kernel accounted it for that one
/// process.
// The child is reaped by `wait4`, which also gives its memory.
#[allow(clippy::zombie_processes)]
fn peak_rss(args: &[&str], out: &Path) -> u64 {
    let child = pq()
        .args(args)
        .stdout(File::create(out).unwrap())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4: {}", std::io::Error::last_os_error());
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "pq {args:?} failed: {status}"
    );
    let kib = u64::try_from(usage.ru_maxrss).unwrap();
    assert!(kib > 0, "no peak memory reported");
    kib * 1024
}

#[test]
fn meta_memory_is_bounded_by_the_footer() {
    let _alone = one_at_a_time();
    let d = dir("memory");
    const ENTRIES: usize = 200_000;
    let big = d.join("kv.parquet");
    let footer = u64::try_from(key_value_file(&big, ENTRIES)).unwrap();
    let small = d.join("small.parquet");
    key_value_file(&small, 1);
    let out = d.join("out");
    for json in [true, false] {
        let mut args = vec!["meta"];
        if json {
            args.push("--json");
        }
        args.push(s(&small));
        let base = peak_rss(&args, &out);
        args.pop();
        args.push(s(&big));
        let peak = peak_rss(&args, &out);
        let text = std::fs::read_to_string(&out).unwrap();
        if json {
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(v["key_value_metadata"].as_array().unwrap().len(), ENTRIES);
        } else {
            assert_eq!(text.lines().filter(|l| *l == "  : -").count(), ENTRIES);
        }
        // The decoded footer costs a KeyValue (48 bytes) per three-byte
        // entry, 16 times the footer; the output adds nothing per entry.
        let extra = peak.saturating_sub(base);
        assert!(
            extra < 24 * footer,
            "json {json}: {extra} bytes over the {base} of a small file, for a \
             {footer}-byte footer"
        );
    }
}

/// A CSV of `rows` rows and `columns` integer columns.
fn wide_csv(path: &Path, columns: usize, rows: usize) {
    let mut text = (0..columns)
        .map(|c| format!("c{c}"))
        .collect::<Vec<_>>()
        .join(",");
    text.push('\n');
    for r in 0..rows {
        let row: Vec<String> = (0..columns)
            .map(|c| (r * columns + c).to_string())
            .collect();
        text.push_str(&row.join(","));
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn wide_csv_conversion_memory_grows_with_the_data() {
    let _alone = one_at_a_time();
    // Every column costs the CSV reader and the writer something before the
    // first row; it must be the size of the data, not of a full batch. At
    // 10,000 columns a fixed 8192-row batch cost 1.3 GB.
    let d = dir("wide-csv");
    let narrow = d.join("narrow.csv");
    wide_csv(&narrow, 10, 3);
    let wide = d.join("wide.csv");
    const COLUMNS: usize = 10_000;
    wide_csv(&wide, COLUMNS, 3);
    let out = d.join("out.parquet");
    let log = d.join("log");
    let base = peak_rss(&["convert", s(&narrow), s(&out)], &log);
    let peak = peak_rss(&["convert", s(&wide), s(&out)], &log);
    let extra = peak.saturating_sub(base);
    println!("10 columns: {base} bytes; {COLUMNS} columns: {peak} bytes");
    assert!(
        extra < 16 * 1024 * COLUMNS as u64,
        "{extra} bytes more for {COLUMNS} columns of 3 rows than for 10 columns"
    );
    let back = pq_arrow::read_parquet(&out).unwrap();
    assert_eq!(back.iter().map(|b| b.num_rows()).sum::<usize>(), 3);
    assert_eq!(back[0].num_columns(), COLUMNS);
}

/// A file of one INT64 column of `rows` values in one row group: PLAIN,
/// uncompressed, pages of about 1 MiB, so the chunk is 8 bytes a row.
/// Written a batch at a time, so that this process stays small.
fn int64_chunk_file(path: &Path, rows: usize) {
    use arrow_array::{ArrayRef, Int64Array, RecordBatch};
    use pq_arrow::write::{Codec, ParquetWriter, WriterOptions};
    let batch = |from: usize, to: usize| {
        let values: ArrayRef = std::sync::Arc::new(Int64Array::from_iter_values(
            (from as i64..to as i64).map(|i| i.wrapping_mul(0x9E37_79B9)),
        ));
        RecordBatch::try_from_iter([("v", values)]).unwrap()
    };
    let options = WriterOptions::builder()
        .set_compression(Codec::Uncompressed)
        .set_dictionary_enabled(false)
        .set_max_row_group_size(rows)
        .build();
    let file = File::create(path).unwrap();
    let mut w = ParquetWriter::try_new(file, batch(0, 0).schema(), options).unwrap();
    for from in (0..rows).step_by(1 << 16) {
        w.write(&batch(from, rows.min(from + (1 << 16)))).unwrap();
    }
    w.close().unwrap();
}

#[test]
fn pages_memory_is_bounded_by_the_window_not_the_chunk() {
    let _alone = one_at_a_time();
    // `pq pages` reads a chunk a window (8 MiB) at a time; holding a
    // 96 MB chunk whole, as it did, costs its size.
    let d = dir("pages-memory");
    const ROWS: usize = 12 << 20;
    let (small, big) = (d.join("small.parquet"), d.join("big.parquet"));
    int64_chunk_file(&small, 1000);
    int64_chunk_file(&big, ROWS);
    let chunk = std::fs::metadata(&big).unwrap().len();
    let out = d.join("out");
    // A child's peak starts at its parent's: this process, which held the
    // writer's pages, gives their memory back and resets its peak (Linux
    // 4.0 and later).
    // SAFETY: malloc_trim only returns free memory to the system.
    #[cfg(target_env = "gnu")]
    unsafe {
        libc::malloc_trim(0);
    }
    std::fs::write("/proc/self/clear_refs", "5").unwrap();
    let base = peak_rss(&["pages", s(&small)], &out);
    let peak = peak_rss(&["pages", s(&big)], &out);
    let listing = std::fs::read_to_string(&out).unwrap();
    let rows: u64 = listing
        .lines()
        .filter(|l| l.contains("DATA_PAGE"))
        .map(|l| l.split_whitespace().nth(7).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(rows, ROWS as u64, "{listing}");
    // Otherwise the peaks are this process's, not the children's.
    assert!(
        base < chunk / 2,
        "a small file's listing peaked at {base} bytes"
    );
    let extra = peak.saturating_sub(base);
    println!("pages of a {chunk}-byte chunk: {extra} bytes over the {base} of a small file");
    assert!(
        extra < 32 << 20,
        "{extra} bytes over the {base} of a small file, for a {chunk}-byte chunk"
    );
}
