//! `pq meta` and `pq cat` output a person reads: the file summary first,
//! statistics in the column's logical type, the Arrow schema hint decoded,
//! and tables whose borders line up with wide characters.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{
    ArrayRef, Date32Array, Decimal128Array, Int32Array, RecordBatch, StringArray,
    TimestampMicrosecondArray, TimestampMillisecondArray,
};
use assert_cmd::Command;
use unicode_width::UnicodeWidthStr;

fn pq() -> Command {
    Command::cargo_bin("pq").unwrap()
}

fn ok(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    String::from_utf8(out.stdout).unwrap()
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pq-cli-readable-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Writes `batch` with the arrow-rs writer (statistics on, the Arrow schema
/// stored), in two row groups.
fn write(path: &Path, batch: &RecordBatch) {
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(2))
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
}

/// The file of typed columns, under a name of the test's own: tests run
/// in parallel.
fn typed_file(name: &str) -> PathBuf {
    let path = temp(name);
    let cols: Vec<(&str, ArrayRef)> = vec![
        (
            "ts_utc",
            Arc::new(
                TimestampMicrosecondArray::from(vec![1_704_067_200_000_001, 1_704_153_600_500_000])
                    .with_timezone("UTC"),
            ),
        ),
        (
            "ts_local",
            Arc::new(TimestampMillisecondArray::from(vec![0, -1])),
        ),
        ("day", Arc::new(Date32Array::from(vec![19_723, 19_724]))),
        (
            "price",
            Arc::new(
                Decimal128Array::from(vec![-150, 12_345])
                    .with_precision_and_scale(9, 2)
                    .unwrap(),
            ),
        ),
        ("city", Arc::new(StringArray::from(vec!["Zürich", "Åre"]))),
        ("n", Arc::new(Int32Array::from(vec![3, 4]))),
    ];
    let batch = RecordBatch::try_from_iter(cols).unwrap();
    write(&path, &batch);
    path
}

#[test]
fn meta_summary_comes_first() {
    let path = typed_file("meta_summary_comes_first.parquet");
    let text = ok(pq().args(["meta", path.to_str().unwrap()]));
    let head: Vec<&str> = text.lines().take(7).collect();
    assert_eq!(head[0], "rows: 2", "{text}");
    assert_eq!(head[1], "row groups: 1", "{text}");
    assert_eq!(head[2], "columns: 6", "{text}");
    assert!(head[3].starts_with("size: "), "{text}");
    assert!(head[3].contains(" bytes compressed, "), "{text}");
    assert_eq!(head[4], "codecs: UNCOMPRESSED", "{text}");
    assert!(head[5].starts_with("created by: parquet-rs"), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&ok(pq().args(["meta", "--json", path.to_str().unwrap()]))).unwrap();
    assert_eq!(json["num_row_groups"], 1);
}

#[test]
fn meta_statistics_in_logical_types() {
    let path = typed_file("meta_statistics_in_logical_types.parquet");
    let text = ok(pq().args(["meta", path.to_str().unwrap()]));
    let stats: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("statistics:"))
        .collect();
    let expected = [
        "min 2024-01-01T00:00:00.000001Z, max 2024-01-02T00:00:00.500000Z",
        "min 1969-12-31T23:59:59.999, max 1970-01-01T00:00:00.000",
        "min 2024-01-01, max 2024-01-02",
        "min -1.50, max 123.45",
        "min \"Zürich\", max \"Åre\"",
        "min 3, max 4",
    ];
    assert_eq!(stats.len(), expected.len(), "{text}");
    for (line, want) in stats.iter().zip(expected) {
        assert!(line.contains(want), "{line} lacks {want}");
    }
}

#[test]
fn meta_decodes_the_arrow_schema() {
    let path = typed_file("meta_decodes_the_arrow_schema.parquet");
    let text = ok(pq().args(["meta", path.to_str().unwrap()]));
    assert!(text.contains("ARROW:schema: (Arrow schema, "), "{text}");
    assert!(
        text.contains("    ts_utc: Timestamp(µs, \"UTC\")"),
        "{text}"
    );
    assert!(text.contains("    price: Decimal128(9, 2)"), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&ok(pq().args(["meta", "--json", path.to_str().unwrap()]))).unwrap();
    let kv = json["key_value_metadata"]
        .as_array()
        .unwrap()
        .iter()
        .find(|kv| kv["key"] == "ARROW:schema")
        .unwrap();
    // The raw value stays, for programs that decode it themselves.
    assert!(kv["value"].as_str().unwrap().len() > 40);
    let decoded = kv["arrow_schema"].as_str().unwrap();
    assert!(decoded.contains("day: Date32"), "{decoded}");
    assert!(decoded.contains("city: Utf8"), "{decoded}");
}

#[test]
fn meta_float16_statistics_are_numbers() {
    let Some(dir) = pq_testkit::parquet_testing_dir() else {
        pq_testkit::skip("PARQUET_TESTING_DIR is not set");
        return;
    };
    let path = dir.join("data/float16_nonzeros_and_nans.parquet");
    let text = ok(pq().arg("meta").arg(&path));
    assert!(text.contains("statistics: min -2, max 2,"), "{text}");
}

/// A file with CJK text, emoji and a combining mark, and a long value.
fn wide_file(name: &str) -> PathBuf {
    let path = temp(name);
    let long = "x".repeat(60);
    let cols: Vec<(&str, ArrayRef)> = vec![
        (
            "名前",
            Arc::new(StringArray::from(vec![
                "東京都",
                "🦀🦀 crab",
                "e\u{301}te\u{301}",
                long.as_str(),
            ])),
        ),
        ("n", Arc::new(Int32Array::from(vec![1, 2, 3, 4]))),
    ];
    write(&path, &RecordBatch::try_from_iter(cols).unwrap());
    path
}

#[test]
fn cat_table_borders_line_up_with_wide_characters() {
    let path = wide_file("cat_table_borders_line_up_with_wide_characters.parquet");
    let text = ok(pq()
        .args(["cat", path.to_str().unwrap(), "--max-width", "200"])
        .env_remove("COLUMNS"));
    let lines: Vec<&str> = text.lines().skip(1).collect();
    let width = UnicodeWidthStr::width(lines[0]);
    for line in &lines {
        assert_eq!(UnicodeWidthStr::width(*line), width, "{text}");
    }
    assert!(text.contains("│ 東京都 "), "{text}");
    // Fitted to a width, the long value is cut to 32 columns.
    assert!(text.contains(&format!(" {}… ", "x".repeat(31))), "{text}");
}

#[test]
fn cat_table_to_a_pipe_is_not_cut() {
    let path = wide_file("cat_table_to_a_pipe_is_not_cut.parquet");
    let text = ok(pq()
        .args(["cat", path.to_str().unwrap()])
        .env_remove("COLUMNS"));
    assert!(!text.contains('…'), "{text}");
    assert!(text.contains(&"x".repeat(60)), "{text}");
    let sample = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/all_types_plain_v1.parquet"
    );
    let text = ok(pq().args(["cat", sample]).env_remove("COLUMNS"));
    assert!(!text.contains("┆ … │"), "{text}");
    assert!(text.lines().nth(1).unwrap().chars().count() > 100, "{text}");
}

#[test]
fn cat_max_width_fits_the_table() {
    let sample = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/all_types_plain_v1.parquet"
    );
    for width in ["40", "60"] {
        let text = ok(pq()
            .args(["cat", sample, "--max-width", width])
            .env("COLUMNS", "500"));
        let limit: usize = width.parse().unwrap();
        for line in text.lines().skip(1) {
            assert!(UnicodeWidthStr::width(line) <= limit, "{line}");
        }
        assert!(text.contains("┆ … │"), "{text}");
    }
    let text = ok(pq()
        .args(["head", sample, "--max-width", "0"])
        .env("COLUMNS", "40"));
    assert!(!text.contains("┆ … │"), "{text}");
}
