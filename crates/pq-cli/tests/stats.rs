//! `pq stats`, from the footers and with `--exact` from the data, against
//! figures computed here from an arrow-rs read of the same files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type};
use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::DataType;
use serde_json::Value;

mod common;
use common::{arrow_rs, ok, temp, write_arrow_rs};

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");

/// The stats rows as JSON objects, by column.
fn stats(args: &[&str]) -> BTreeMap<String, Value> {
    let mut all = vec!["stats", "--format", "jsonl"];
    all.extend_from_slice(args);
    ok(&all)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["column"].as_str().unwrap().to_string(), v)
        })
        .collect()
}

/// Figures of one flat column from arrow-rs's batches: rows, nulls, min,
/// max (as text) and distinct values.
struct Expected {
    values: u64,
    nulls: u64,
    min: String,
    max: String,
    distinct: u64,
}

fn expected(batches: &[RecordBatch], name: &str) -> Option<Expected> {
    let mut texts: Vec<(f64, String)> = Vec::new();
    let mut values = 0;
    let mut nulls = 0;
    let mut numeric = true;
    for b in batches {
        let a: &ArrayRef = b.column_by_name(name).unwrap();
        values += a.len() as u64;
        nulls += a.null_count() as u64;
        for i in (0..a.len()).filter(|&i| a.is_valid(i)) {
            let v = match a.data_type() {
                DataType::Int32 => {
                    let v = a.as_primitive::<Int32Type>().value(i);
                    (f64::from(v), v.to_string())
                }
                DataType::Int64 => {
                    let v = a.as_primitive::<Int64Type>().value(i);
                    (v as f64, v.to_string())
                }
                DataType::Float64 => {
                    let v = a.as_primitive::<Float64Type>().value(i);
                    (v, v.to_string())
                }
                DataType::Utf8 => {
                    numeric = false;
                    (0.0, a.as_string::<i32>().value(i).to_string())
                }
                DataType::Boolean => {
                    let v = a.as_boolean().value(i);
                    (f64::from(u8::from(v)), v.to_string())
                }
                _ => return None,
            };
            texts.push(v);
        }
    }
    let distinct = texts.iter().map(|t| &t.1).collect::<HashSet<_>>().len() as u64;
    if numeric {
        texts.sort_by(|a, b| a.0.total_cmp(&b.0));
    } else {
        texts.sort_by(|a, b| a.1.cmp(&b.1));
    }
    Some(Expected {
        values,
        nulls,
        min: texts.first()?.1.clone(),
        max: texts.last()?.1.clone(),
        distinct,
    })
}

#[test]
fn footer_stats_match_an_arrow_rs_read() {
    let batches = arrow_rs(Path::new(SAMPLE));
    let got = stats(&[SAMPLE]);
    let mut checked = 0;
    for field in batches[0].schema().fields() {
        let Some(e) = expected(&batches, field.name()) else {
            continue;
        };
        let row = &got[field.name()];
        assert_eq!(row["values"], e.values, "{row}");
        assert_eq!(row["nulls"], e.nulls, "{row}");
        // Footer bounds are text as meta prints them: strings quoted.
        let quote = |s: &str| match field.data_type() {
            DataType::Utf8 => format!("{s:?}"),
            _ => s.to_string(),
        };
        assert_eq!(row["min"], quote(&e.min), "{row}");
        assert_eq!(row["max"], quote(&e.max), "{row}");
        assert!(row["compressed"].as_u64().unwrap() > 0, "{row}");
        assert!(!row["encodings"].as_str().unwrap().is_empty(), "{row}");
        checked += 1;
    }
    assert!(checked >= 5, "{checked} columns checked");
    // The nested leaf is its own row, by dotted path.
    assert!(got.keys().any(|k| k.starts_with("tags.")), "{got:?}");
}

#[test]
fn exact_stats_match_an_arrow_rs_read() {
    let batches = arrow_rs(Path::new(SAMPLE));
    let got = stats(&["--exact", SAMPLE]);
    let mut checked = 0;
    for field in batches[0].schema().fields() {
        let row = &got[field.name()];
        let Some(e) = expected(&batches, field.name()) else {
            continue;
        };
        assert_eq!(row["values"], e.values, "{row}");
        assert_eq!(row["nulls"], e.nulls, "{row}");
        assert_eq!(row["min"], e.min, "{row}");
        assert_eq!(row["max"], e.max, "{row}");
        assert_eq!(row["distinct"], e.distinct, "{row}");
        assert_eq!(row["distinct_by"], "exact", "{row}");
        checked += 1;
    }
    assert!(checked >= 5, "{checked} columns checked");
}

/// `n` rows of int64 `offset + i * step` and their text, in row groups of
/// `group` rows.
fn numbers(name: &str, n: i64, group: usize, step: i64) -> PathBuf {
    let path = temp(name);
    let ints: ArrayRef = Arc::new(Int64Array::from_iter_values((0..n).map(|i| i * step - 7)));
    let texts: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..n).map(|i| format!("t{:07}", n - 1 - i)),
    ));
    let batch = RecordBatch::try_from_iter([("x", ints), ("s", texts)]).unwrap();
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(group))
        .build();
    write_arrow_rs(&path, &batch, Some(props));
    path
}

#[test]
fn bounds_over_several_row_groups_and_files() {
    let a = numbers("groups.parquet", 1000, 128, 3);
    let b = numbers("groups2.parquet", 10, 4, -1);
    let got = stats(&[a.to_str().unwrap(), b.to_str().unwrap()]);
    let x = &got["x"];
    assert_eq!(x["values"], 1010);
    assert_eq!(x["min"], "-16");
    assert_eq!(x["max"], (999 * 3 - 7).to_string());
    // A distinct count of several row groups is not known from footers.
    assert!(x["distinct"].is_null(), "{x}");
    let s = &got["s"];
    assert_eq!(s["min"], "\"t0000000\"");
    assert_eq!(s["max"], "\"t0000999\"");
}

#[test]
fn many_distinct_values_are_estimated_and_say_so() {
    let n = 250_000;
    let path = numbers("many.parquet", n, 65_536, 1);
    let got = stats(&["--exact", path.to_str().unwrap()]);
    let x = &got["x"];
    assert_eq!(x["distinct_by"], "hyperloglog", "{x}");
    let estimate = x["distinct"].as_u64().unwrap() as f64;
    let error = (estimate - n as f64).abs() / n as f64;
    assert!(error < 0.03, "{estimate} for {n}");
    assert_eq!(x["min"], "-7");
    assert_eq!(x["max"], (n - 1 - 7).to_string());
}

#[test]
fn csv_and_table_carry_the_same_rows() {
    let csv = ok(&["stats", "--format", "csv", SAMPLE]);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "column,type,values,nulls,min,max,distinct,distinct_by,compressed,uncompressed,ratio,encodings"
    );
    assert_eq!(lines.count(), stats(&[SAMPLE]).len());
    let table = ok(&["stats", SAMPLE]);
    assert!(
        table.starts_with(&format!("shape: ({}, 12)", stats(&[SAMPLE]).len())),
        "{table}"
    );
}

/// Old writers' deprecated min and max of byte arrays compared signed
/// bytes: `stats` shows no bound rather than a wrong one, and keeps the
/// numeric ones.
#[test]
fn deprecated_byte_array_bounds_are_not_shown() {
    use pq_format::{FileMetaData, ThriftDecode, ThriftEncode};
    let path = numbers("legacy.parquet", 20, 8, 1);
    let bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    let len = u32::from_le_bytes(bytes[n - 8..n - 4].try_into().unwrap()) as usize;
    let start = n - 8 - len;
    let mut meta = FileMetaData::decode(&bytes[start..n - 8]).unwrap();
    for rg in &mut meta.row_groups {
        for c in &mut rg.columns {
            let s = c.meta_data.as_mut().unwrap().statistics.as_mut().unwrap();
            s.min = s.min_value.take();
            s.max = s.max_value.take();
        }
    }
    let footer = meta.encode();
    let mut out = bytes[..start].to_vec();
    out.extend_from_slice(&footer);
    out.extend_from_slice(&(footer.len() as u32).to_le_bytes());
    out.extend_from_slice(b"PAR1");
    let legacy = temp("legacy_footer.parquet");
    std::fs::write(&legacy, out).unwrap();
    let got = stats(&[legacy.to_str().unwrap()]);
    assert_eq!(got["x"]["min"], "-7", "{:?}", got["x"]);
    assert_eq!(got["x"]["max"], "12", "{:?}", got["x"]);
    assert!(got["s"]["min"].is_null(), "{:?}", got["s"]);
    assert!(got["s"]["max"].is_null(), "{:?}", got["s"]);
}
