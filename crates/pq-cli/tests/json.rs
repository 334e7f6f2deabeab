//! JSON lines and CSV write every field, nulls included, and maps whatever
//! their key type.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{Int32Builder, MapBuilder, StringBuilder};
use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use serde_json::{Value, json};

mod common;
use common::{dir, pq, s, write_arrow_rs};

fn ok(args: &[&str]) -> String {
    let out = pq().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "pq {args:?}: {stderr}");
    String::from_utf8(out.stdout).unwrap()
}

/// Three rows: an id, a name that is null in the second row, and a map
/// from int32 to string (null in the third row, empty in the second).
fn write_file(path: &Path) {
    let mut map = MapBuilder::new(None, Int32Builder::new(), StringBuilder::new());
    map.keys().append_value(1);
    map.values().append_value("a");
    map.keys().append_value(2);
    map.values().append_null();
    map.append(true).unwrap();
    map.append(true).unwrap();
    map.append(false).unwrap();
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(vec![1, 2, 3])) as ArrayRef),
        (
            "name",
            Arc::new(StringArray::from(vec![Some("x"), None, Some("z")])) as ArrayRef,
        ),
        ("m", Arc::new(map.finish()) as ArrayRef),
    ])
    .unwrap();
    write_arrow_rs(path, &batch, None);
}

fn expected() -> Vec<Value> {
    vec![
        json!({"id": 1, "name": "x", "m": [{"key": 1, "value": "a"}, {"key": 2, "value": null}]}),
        json!({"id": 2, "name": null, "m": []}),
        json!({"id": 3, "name": "z", "m": null}),
    ]
}

#[test]
fn jsonl_writes_nulls_and_int_keyed_maps() {
    let d = dir("jsonl");
    let file = d.join("t.parquet");
    write_file(&file);
    let text = ok(&["cat", s(&file), "--format", "jsonl"]);
    let rows: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows, expected(), "{text}");
    // Every row names every column, in the schema's order.
    for line in text.lines() {
        let id = line.find("\"id\"").unwrap();
        let name = line.find("\"name\"").unwrap();
        let m = line.find("\"m\"").unwrap();
        assert!(id < name && name < m, "{line}");
    }
    // convert writes the same lines.
    let out = d.join("t.jsonl");
    ok(&["convert", s(&file), s(&out)]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), text);
}

#[test]
fn csv_writes_int_keyed_maps_as_entry_lists() {
    let d = dir("csv");
    let file = d.join("t.parquet");
    write_file(&file);
    let text = ok(&["cat", s(&file), "--format", "csv"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            "id,name,m",
            r#"1,x,"[{""key"":1,""value"":""a""},{""key"":2,""value"":null}]""#,
            "2,,[]",
            "3,z,",
        ],
        "{text}"
    );
}

/// Nested values in CSV keep the order of their fields.
#[test]
fn csv_nested_fields_keep_their_order() {
    let Some(corpus) = pq_testkit::parquet_testing_dir() else {
        pq_testkit::skip("PARQUET_TESTING_DIR is not set");
        return;
    };
    let file = corpus.join("data/nonnullable.impala.parquet");
    let text = ok(&[
        "cat",
        s(&file),
        "--format",
        "csv",
        "--columns",
        "nested_Struct",
    ]);
    let row = text.lines().nth(1).unwrap();
    let a = row.find("\"\"a\"\"").unwrap();
    let b = row.find("\"\"B\"\"").unwrap();
    assert!(a < b, "{row}");
}
