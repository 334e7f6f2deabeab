//! Usage errors exit with status 2, every error is one line in pq's words,
//! and `--columns` is taken as given.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Output;

mod common;
use common::{dir, pq, s};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data");

fn data(name: &str) -> String {
    format!("{DATA}/{name}")
}

fn run(args: &[&str]) -> Output {
    pq().args(args).output().unwrap()
}

/// The one line on stderr of a run that exits with `code`.
fn error(args: &[&str], code: i32) -> String {
    let out = run(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "pq {args:?}: {stderr}");
    assert!(stderr.starts_with("pq: "), "pq {args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "pq {args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "pq {args:?}: {stderr}");
    stderr
}

#[test]
fn usage_errors_exit_2() {
    let d = dir("usage");
    let csv = d.join("in.csv");
    std::fs::write(&csv, "id,name\n1,a\n").unwrap();
    let out = d.join("out.parquet");
    let sample = data("sample.parquet");
    let cases: &[(&[&str], &str)] = &[
        (
            &["convert", s(&csv), s(&out), "--dtypes", "id=decimal"],
            "decimal",
        ),
        (
            &["convert", s(&csv), s(&out), "--dtypes", "id"],
            "COLUMN=VALUE",
        ),
        (
            &["convert", &sample, &format!("{}/out.xyz", s(&d))],
            "out.xyz",
        ),
        (
            &["convert", &sample, s(&out), "--encodings", "id=zigzag"],
            "zigzag",
        ),
        (
            &["convert", &sample, s(&out), "--page-version", "3"],
            "1 or 2",
        ),
        (
            &["convert", &sample, s(&out), "--compression-level", "3"],
            "SNAPPY has no levels",
        ),
        (
            &[
                "convert",
                &sample,
                s(&out),
                "--compression",
                "gzip",
                "--compression-level",
                "10",
            ],
            "GZIP levels are 0 to 9",
        ),
        (&["cat", &sample, "--columns", "city,"], "empty column name"),
        (
            &["cat", &sample, "--columns", "city,,id"],
            "empty column name",
        ),
        (&["scan", &sample, "--columns", ","], "empty column name"),
    ];
    for (args, names) in cases {
        let err = error(args, 2);
        assert!(err.contains(names), "pq {args:?}: {err}");
        assert!(!out.exists(), "pq {args:?} left {}", out.display());
    }
}

#[test]
fn csv_errors_in_pq_words() {
    let d = dir("csv");
    let out = d.join("out.parquet");
    let cases: [(&[u8], &[&str], &str); 4] = [
        (
            b"id,name,x\n1,a,2\n2,b\n",
            &[],
            "line 3 has 2 fields, the header has 3",
        ),
        (
            b"id,name\n1,a\n2,b,c,d\n",
            &[],
            "line 3 has 4 fields, the header has 2",
        ),
        (
            b"id,name\n1,a\nzz,b\n",
            &["--dtypes", "id=int64"],
            "line 3, column 'id': 'zz' is not a valid int64",
        ),
        (b"id,name\n1,a\n2,\xff\n", &[], "line 3 is not valid UTF-8"),
    ];
    for (csv, extra, expected) in cases {
        let input = d.join("in.csv");
        std::fs::write(&input, csv).unwrap();
        let mut args = vec!["convert", s(&input), s(&out)];
        args.extend(extra);
        let err = error(&args, 1);
        assert!(err.contains("in.csv: "), "{err}");
        assert!(err.contains(expected), "{err}");
        assert!(!err.contains("Csv error"), "{err}");
        assert!(!err.contains("Parser error"), "{err}");
    }
}

/// A bad value in a later batch names its own line of the file.
#[test]
fn csv_error_line_past_the_first_batch() {
    let d = dir("csv-late");
    let mut text = String::from("id,name\n");
    for i in 0..20_000 {
        text.push_str(&format!("{i},a\n"));
    }
    text.push_str("zz,b\n");
    let input = d.join("in.csv");
    std::fs::write(&input, text).unwrap();
    let out = d.join("out.parquet");
    let err = error(&["convert", s(&input), s(&out), "--dtypes", "id=int64"], 1);
    assert!(err.contains("line 20002, column 'id'"), "{err}");
}

#[test]
fn columns_keep_the_order_asked() {
    let sample = data("sample.parquet");
    let out = run(&["cat", &sample, "--columns", "city,id", "--format", "csv"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().next(), Some("city,id"));
    // Same values as the file's order, columns swapped.
    let straight = run(&["cat", &sample, "--columns", "id,city", "--format", "csv"]);
    let straight = String::from_utf8(straight.stdout).unwrap();
    for (a, b) in text.lines().zip(straight.lines()) {
        let (city, id) = a.rsplit_once(',').unwrap();
        assert_eq!(format!("{id},{city}"), b);
    }
    let out = run(&[
        "cat",
        &sample,
        "--columns",
        "tags,id",
        "--format",
        "jsonl",
        "--limit",
        "1",
    ]);
    let line = String::from_utf8(out.stdout).unwrap();
    assert!(line.starts_with("{\"tags\":"), "{line}");
}
