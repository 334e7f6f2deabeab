//! Several inputs: files, globs pq expands, directories with hive-style
//! partitions, checked or merged schemas, and one header per file for the
//! commands that describe files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};

mod common;
use common::{arrow_rs, data, dir, fails, jsonl, ok, s, write_arrow_rs};

/// `batches` with a string column `key` of `value` added at the end.
fn with_partition(batches: &[RecordBatch], key: &str, value: &str) -> Vec<RecordBatch> {
    batches
        .iter()
        .map(|b| {
            let mut fields: Vec<Field> = b
                .schema()
                .fields()
                .iter()
                .map(|f| f.as_ref().clone())
                .collect();
            fields.push(Field::new(key, DataType::Utf8, true));
            let mut columns: Vec<ArrayRef> = b.columns().to_vec();
            columns.push(Arc::new(StringArray::from(vec![value; b.num_rows()])));
            RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
        })
        .collect()
}

#[test]
fn several_files_and_globs_read_as_one() {
    let d = dir("glob");
    let a = data("sample.parquet");
    let b = data("codec_gzip.parquet");
    std::fs::copy(&a, d.join("a.parquet")).unwrap();
    std::fs::copy(&a, d.join("b.parquet")).unwrap();
    std::fs::write(d.join("notes.txt"), "not parquet").unwrap();
    let expected = jsonl(&arrow_rs(&a)).repeat(2);
    let listed = ok(&[
        "cat",
        s(&d.join("a.parquet")),
        s(&d.join("b.parquet")),
        "--format",
        "jsonl",
    ]);
    assert_eq!(listed, expected);
    let pattern = format!("{}/*.parquet", s(&d));
    assert_eq!(ok(&["cat", &pattern, "--format", "jsonl"]), expected);
    // A directory: its Parquet files, the text file left out.
    assert_eq!(ok(&["cat", s(&d), "--format", "jsonl"]), expected);
    // Offset and limit run across the files: 12 rows each.
    let rows: Vec<&str> = expected.lines().collect();
    let some = ok(&[
        "cat", &pattern, "--format", "jsonl", "--offset", "10", "--limit", "4",
    ]);
    assert_eq!(some.lines().collect::<Vec<_>>(), rows[10..14]);
    // Other files: their own schema, so a mismatch.
    let err = fails(&["cat", s(&a), s(&b)]);
    assert!(
        err.contains("sample.parquet") && err.contains("codec_gzip.parquet"),
        "{err}"
    );
    assert!(
        err.contains("column 1 is 'id' (Int32) in the first, 'key' (Int64)"),
        "{err}"
    );
    let err = fails(&["cat", &format!("{}/*.nothing", s(&d))]);
    assert!(err.contains("no file matches"), "{err}");
}

#[test]
fn union_by_name_fills_missing_columns_with_nulls() {
    let a = data("sample.parquet");
    let b = data("codec_gzip.parquet");
    let text = ok(&["cat", s(&a), s(&b), "--union-by-name", "--format", "jsonl"]);
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let a_rows: Vec<serde_json::Value> = jsonl(&arrow_rs(&a))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let b_rows: Vec<serde_json::Value> = jsonl(&arrow_rs(&b))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), a_rows.len() + b_rows.len());
    for (row, want) in rows.iter().zip(a_rows.iter().chain(&b_rows)) {
        let row = row.as_object().unwrap();
        for (k, v) in row {
            // Each file's own columns hold its values, the others null.
            assert_eq!(want.get(k).unwrap_or(&serde_json::Value::Null), v, "{k}");
        }
        for (k, _) in want.as_object().unwrap() {
            assert!(row.contains_key(k), "{k}");
        }
    }
    // The other way round, required columns of the first file are null in
    // the second's rows.
    let text = ok(&["cat", s(&b), s(&a), "--union-by-name", "--format", "jsonl"]);
    assert_eq!(text.lines().count(), rows.len());
    let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["key"], serde_json::Value::Null);
    assert_eq!(last["id"], a_rows.last().unwrap()["id"]);
    // The same type under one name in both files is one column; different
    // types under one name cannot merge.
    let d = dir("union");
    let c = d.join("c.parquet");
    let batch =
        RecordBatch::try_from_iter([("id", Arc::new(StringArray::from(vec!["x"])) as ArrayRef)])
            .unwrap();
    write_arrow_rs(&c, &batch, None);
    let err = fails(&["cat", s(&a), s(&c), "--union-by-name"]);
    assert!(
        err.contains("'id' (Int32)") && err.contains("'id' (Utf8)"),
        "{err}"
    );
}

#[test]
fn hive_directories_add_partition_columns() {
    let d = dir("hive");
    let sample = data("sample.parquet");
    for (year, region) in [
        ("2024", "EU"),
        ("2023", "Africa"),
        ("2023", "North%20America"),
    ] {
        let sub = d
            .join(format!("year={year}"))
            .join(format!("region={region}"));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::copy(&sample, sub.join("part-0.parquet")).unwrap();
        std::fs::write(sub.join("_SUCCESS"), "").unwrap();
        std::fs::write(sub.join(".part-0.parquet.crc"), "x").unwrap();
    }
    let base = arrow_rs(&sample);
    // Sorted by path; `%20` decoded as hive escapes it.
    let mut expected = String::new();
    for (year, region) in [
        ("2023", "Africa"),
        ("2023", "North America"),
        ("2024", "EU"),
    ] {
        let rows = with_partition(&with_partition(&base, "year", year), "region", region);
        expected.push_str(&jsonl(&rows));
    }
    let text = ok(&["cat", s(&d), "--format", "jsonl"]);
    assert_eq!(text, expected);
    // A glob over the partition directories finds the same columns.
    let text = ok(&[
        "cat",
        &format!("{}/year=*/*/*.parquet", s(&d)),
        "--format",
        "jsonl",
    ]);
    assert_eq!(text, expected);
    // Selected, a partition column comes where it is asked for.
    let text = ok(&[
        "cat",
        s(&d),
        "--format",
        "csv",
        "--columns",
        "year,id",
        "--limit",
        "2",
    ]);
    assert_eq!(text, "year,id\n2023,1\n2023,2\n");
    let text = ok(&[
        "head",
        s(&d),
        "-n",
        "1",
        "--format",
        "csv",
        "--columns",
        "id,year",
    ]);
    assert_eq!(text, "id,year\n1,2023\n");
    // count reads the footers: three files of 12 rows.
    assert_eq!(ok(&["count", s(&d)]), "36\n");
}

#[test]
fn convert_several_inputs_to_one_file() {
    let d = dir("convert");
    let sample = data("sample.parquet");
    let year = d.join("in").join("year=2020");
    std::fs::create_dir_all(&year).unwrap();
    std::fs::copy(&sample, year.join("a.parquet")).unwrap();
    std::fs::copy(&sample, year.join("b.parquet")).unwrap();
    let out = d.join("out.parquet");
    ok(&["convert", s(&d.join("in")), s(&out)]);
    let back = arrow_rs(&out);
    let expected = with_partition(&arrow_rs(&sample), "year", "2020");
    assert_eq!(jsonl(&back), jsonl(&expected).repeat(2));
    let csv = d.join("out.csv");
    ok(&[
        "convert",
        s(&year.join("a.parquet")),
        s(&year.join("b.parquet")),
        s(&csv),
    ]);
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(text.lines().count(), 1 + 24);
}

#[test]
fn describing_commands_name_each_file() {
    let a = data("sample.parquet");
    let b = data("codec_gzip.parquet");
    for cmd in ["schema", "meta", "pages"] {
        let text = ok(&[cmd, s(&a), s(&b)]);
        let headers: Vec<&str> = text.lines().filter(|l| l.starts_with("==> ")).collect();
        assert_eq!(
            headers,
            [
                format!("==> {} <==", s(&a)).as_str(),
                format!("==> {} <==", s(&b)).as_str()
            ],
            "{cmd}"
        );
        // Each file's part is what the command prints for it alone.
        let alone = ok(&[cmd, s(&b)]);
        assert!(text.ends_with(&alone), "{cmd}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&ok(&["meta", "--json", s(&a), s(&b)])).unwrap();
    let files: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, [s(&a), s(&b)]);
    assert_eq!(
        json[1]["num_rows"],
        arrow_rs(&b).iter().map(|b| b.num_rows()).sum::<usize>()
    );
}

#[test]
fn standard_input_among_several_inputs() {
    use std::io::Write;
    use std::process::Stdio;
    let sample = data("sample.parquet");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pq"))
        .args(["cat", "-", s(&sample), "--format", "jsonl"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let bytes = std::fs::read(&sample).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&bytes);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        jsonl(&arrow_rs(&sample)).repeat(2)
    );
}

#[test]
fn columns_across_files_keep_the_order_asked() {
    let a = data("sample.parquet");
    let b = data("codec_gzip.parquet");
    let text = ok(&[
        "cat",
        s(&a),
        s(&b),
        "--union-by-name",
        "--columns",
        "key,id",
        "--format",
        "csv",
    ]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "key,id");
    // sample.parquet has `id` only, codec_gzip.parquet `key` only.
    assert_eq!(lines[1], ",1");
    let b_first = jsonl(&arrow_rs(&b));
    let key: serde_json::Value = serde_json::from_str(b_first.lines().next().unwrap()).unwrap();
    assert_eq!(lines[1 + 12], format!("{},", key["key"]));
}
