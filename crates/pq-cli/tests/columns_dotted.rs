//! `--columns` with field names that hold dots: an exact top-level name
//! comes first, then dotted paths into nested fields.

#![allow(clippy::unwrap_used)]

mod common;

use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, RecordBatch, StructArray};
use arrow_schema::{DataType, Field};
use common::{dir, pq, s, write_arrow_rs};

/// Top-level `a.b` (1, 2), a struct `a` with `b` (10, 20) and a struct
/// `x` with `y.z` (100, 200).
fn dotted_file(test: &str) -> std::path::PathBuf {
    let int = |v: Vec<i32>| Arc::new(Int32Array::from(v)) as ArrayRef;
    let strukt = |name: &str, values: ArrayRef| {
        Arc::new(StructArray::from(vec![(
            Arc::new(Field::new(name, DataType::Int32, false)),
            values,
        )])) as ArrayRef
    };
    let batch = RecordBatch::try_from_iter([
        ("a.b", int(vec![1, 2])),
        ("a", strukt("b", int(vec![10, 20]))),
        ("x", strukt("y.z", int(vec![100, 200]))),
    ])
    .unwrap();
    let path = dir(test).join("dotted.parquet");
    write_arrow_rs(&path, &batch, None);
    path
}

fn cat(path: &std::path::Path, columns: &str) -> String {
    let out = pq()
        .args(["cat", s(path), "--format", "jsonl", "--columns", columns])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_top_level_name_with_a_dot_wins_over_a_nested_path() {
    let path = dotted_file("top_level_dot");
    assert_eq!(cat(&path, "a.b"), "{\"a.b\":1}\n{\"a.b\":2}\n");
    assert_eq!(cat(&path, "a"), "{\"a\":{\"b\":10}}\n{\"a\":{\"b\":20}}\n");
}

#[test]
fn a_dotted_path_reaches_a_nested_name_with_a_dot() {
    let path = dotted_file("nested_dot");
    assert_eq!(
        cat(&path, "x.y.z"),
        "{\"x\":{\"y.z\":100}}\n{\"x\":{\"y.z\":200}}\n"
    );
    // Asked in another order, the columns come in that order.
    assert_eq!(
        cat(&path, "x,a.b"),
        "{\"x\":{\"y.z\":100},\"a.b\":1}\n{\"x\":{\"y.z\":200},\"a.b\":2}\n"
    );
    let out = pq()
        .args(["cat", s(&path), "--columns", "x.y"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("no column 'x.y'"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}
