//! CSV input parsed on several threads: the blocks are cut after whole
//! records (never inside a quoted field holding line ends), the rows come
//! out in file order, and the Parquet file (its columns encoded on as many
//! threads as parse) is the same bytes whatever `--threads` says. No
//! progress bar is drawn when stderr is not a terminal.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};

use arrow_array::Array;
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use assert_cmd::Command;
use common::read_arrow_rs as read;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pq-cli-csv-threads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Rows of about 110 bytes, every third with a quoted field holding commas,
/// a doubled quote and line ends, so that a block of several MB ends inside
/// such a field at some cut candidate.
fn csv(rows: usize) -> String {
    let mut s = String::from("id,note,amount\n");
    for i in 0..rows {
        let note = match i % 3 {
            0 => format!("\"first line {i}, with a comma\nsecond \"\"line\"\"\n\nthird, {i}\""),
            1 => format!("plain ünïcode text number {i}"),
            _ => String::new(),
        };
        s.push_str(&format!("{i},{note},{}.{:02}\n", i * 7, i % 100));
    }
    s
}

fn convert(input: &Path, output: &Path, threads: &str) -> String {
    let out = Command::cargo_bin("pq")
        .unwrap()
        .args(["convert", "--threads", threads])
        .arg(input)
        .arg(output)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    stderr
}

#[test]
fn a_parquet_rewrite_is_the_same_file_on_any_number_of_threads() {
    // Parquet input: `--threads` sets the writer's encoding threads alone.
    let csv_input = temp("rewrite.csv");
    std::fs::write(&csv_input, csv(30_000)).unwrap();
    let input = temp("rewrite-in.parquet");
    convert(&csv_input, &input, "1");
    let want = read(&input);
    let mut files = Vec::new();
    for threads in ["1", "3"] {
        let output = temp(&format!("rewrite-{threads}.parquet"));
        convert(&input, &output, threads);
        assert_eq!(read(&output), want, "threads {threads}");
        files.push(std::fs::read(&output).unwrap());
    }
    assert!(files[0] == files[1], "1 and 3 threads differ");
}

#[test]
fn any_thread_count_writes_the_same_bytes_and_every_record() {
    // About 10 MB: three blocks or more.
    let rows = 200_000;
    let input = temp("many.csv");
    std::fs::write(&input, csv(rows)).unwrap();
    assert!(std::fs::metadata(&input).unwrap().len() > 9 << 20);
    let mut files = Vec::new();
    for threads in ["1", "2", "4"] {
        let output = temp(&format!("many-{threads}.parquet"));
        let stderr = convert(&input, &output, threads);
        // stderr is a pipe here: no progress bar, nothing at all.
        assert_eq!(stderr, "", "threads {threads}");
        files.push(std::fs::read(&output).unwrap());
    }
    assert!(files[0] == files[1], "1 and 2 threads differ");
    assert!(files[0] == files[2], "1 and 4 threads differ");

    let b = read(&temp("many-2.parquet"));
    assert_eq!(b.num_rows(), rows);
    let ids = b.column_by_name("id").unwrap().as_primitive::<Int64Type>();
    assert!(ids.values().iter().copied().eq(0..rows as i64));
    let notes = b.column_by_name("note").unwrap().as_string::<i32>();
    for i in [0usize, 1, 2, 66_666, 133_333, 199_999] {
        let want = match i % 3 {
            0 => Some(format!(
                "first line {i}, with a comma\nsecond \"line\"\n\nthird, {i}"
            )),
            1 => Some(format!("plain ünïcode text number {i}")),
            _ => None,
        };
        let got = notes.is_valid(i).then(|| notes.value(i).to_string());
        assert_eq!(got, want, "row {i}");
    }
}

#[test]
fn an_error_in_a_later_block_reads_as_on_one_thread() {
    let rows = 100_000;
    let mut text = csv(rows);
    // The last record's id is not a number.
    text.push_str("oops,x,1.00\n");
    let input = temp("late_error.csv");
    std::fs::write(&input, text).unwrap();
    let output = temp("late_error.parquet");
    let mut messages = Vec::new();
    for threads in ["1", "3"] {
        let out = Command::cargo_bin("pq")
            .unwrap()
            .args(["convert", "--threads", threads])
            .arg(&input)
            .arg(&output)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(!output.exists());
        messages.push(stderr);
    }
    // Records are numbered from the file's start, not the block's: the
    // header is line 1, so the last record is line rows + 2.
    let want = format!("line {}, column 'id': 'oops'", rows + 2);
    assert!(messages[0].contains(&want), "{}", messages[0]);
    assert_eq!(messages[0], messages[1]);
}

#[test]
fn zero_threads_is_a_usage_error() {
    let input = temp("zero.csv");
    std::fs::write(&input, "a\n1\n").unwrap();
    let out = Command::cargo_bin("pq")
        .unwrap()
        .args(["convert", "--threads", "0"])
        .arg(&input)
        .arg(temp("zero.parquet"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
