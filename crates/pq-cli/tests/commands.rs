//! count, head, tail, schema --json and --ddl, completions and man.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use parquet::file::reader::FileReader;

mod common;
use common::{arrow_rs, data, dir, fails, jsonl, ok, pq, s, write_arrow_rs};

/// 1000 rows in 10 row groups of 100, uncompressed: `id` 0..1000 and a
/// string.
fn ten_groups(path: &Path) {
    let ids: Vec<i64> = (0..1000).collect();
    let names: Vec<String> = ids.iter().map(|i| format!("row {i}")).collect();
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
        ("name", Arc::new(StringArray::from(names)) as ArrayRef),
    ])
    .unwrap();
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(100))
        .set_dictionary_enabled(false)
        .build();
    write_arrow_rs(path, &batch, Some(props));
}

/// In a directory of its own for `test`: the file of [`ten_groups`], and a
/// copy whose row groups `broken` have every column chunk overwritten with
/// 0xff, so that any read of them fails.
fn ten_groups_and_broken(test: &str, broken: &[usize]) -> (PathBuf, PathBuf) {
    let d = dir(test);
    let file = d.join("t.parquet");
    ten_groups(&file);
    let reader = parquet::file::serialized_reader::SerializedFileReader::new(
        std::fs::File::open(&file).unwrap(),
    )
    .unwrap();
    let mut bytes = std::fs::read(&file).unwrap();
    for &rg in broken {
        for c in reader.metadata().row_group(rg).columns() {
            let (start, len) = c.byte_range();
            bytes[start as usize..(start + len) as usize].fill(0xff);
        }
    }
    let copy = d.join("broken.parquet");
    std::fs::write(&copy, bytes).unwrap();
    (file, copy)
}

#[test]
fn count_reads_footers_only() {
    let (file, broken) = ten_groups_and_broken("count", &[3]);
    assert_eq!(ok(&["count", s(&file)]), "1000\n");
    // The pages are never read: a file with a broken row group counts.
    assert_eq!(ok(&["count", s(&broken)]), "1000\n");
    let sample = data("sample.parquet");
    let n: usize = arrow_rs(&sample).iter().map(|b| b.num_rows()).sum();
    let text = ok(&["count", s(&file), s(&sample), "--per-file"]);
    assert_eq!(
        text,
        format!(
            "1000\t{}\n{n}\t{}\n{}\ttotal\n",
            s(&file),
            s(&sample),
            1000 + n
        )
    );
}

#[test]
fn tail_reads_only_the_last_row_groups() {
    // Row groups 0 to 7 broken: a read of any of them fails...
    let (file, broken) = ten_groups_and_broken("tail", &[0, 1, 2, 3, 4, 5, 6, 7]);
    let all = jsonl(&arrow_rs(&file));
    let lines: Vec<&str> = all.lines().collect();
    fails(&["cat", s(&broken), "--format", "csv"]);
    // ...and the last 150 rows, in row groups 8 and 9, read as arrow-rs
    // reads them from the whole file.
    let tail = ok(&["tail", s(&broken), "-n", "150", "--format", "jsonl"]);
    assert_eq!(tail.lines().collect::<Vec<_>>(), lines[850..]);
    let tail = ok(&["tail", s(&file), "-n", "7", "--format", "jsonl"]);
    assert_eq!(tail.lines().collect::<Vec<_>>(), lines[993..]);
    // More than the file holds: all of it; 0 rows: none.
    let tail = ok(&["tail", s(&file), "-n", "5000", "--format", "jsonl"]);
    assert_eq!(tail, all);
    assert_eq!(ok(&["tail", s(&file), "-n", "0", "--format", "jsonl"]), "");
    // Default 10, as a table showing every row.
    let table = ok(&["tail", s(&file)]);
    assert!(table.starts_with("shape: (10, 2)"), "{table}");
    assert!(
        table.contains("row 990") && table.contains("row 999"),
        "{table}"
    );
    assert!(!table.contains('…'), "{table}");
}

#[test]
fn tail_and_head_across_files() {
    let sample = data("sample.parquet");
    let rows = jsonl(&arrow_rs(&sample));
    let lines: Vec<&str> = rows.lines().collect();
    let twice: Vec<&str> = lines.iter().chain(&lines).copied().collect();
    // The same file given twice reads as one table of twice the rows.
    let fifteen_of = |cmd| ok(&[cmd, s(&sample), s(&sample), "-n", "15", "--format", "jsonl"]);
    let tail = fifteen_of("tail");
    assert_eq!(tail.lines().collect::<Vec<_>>(), twice[twice.len() - 15..]);
    let head = fifteen_of("head");
    assert_eq!(head.lines().collect::<Vec<_>>(), twice[..15]);
}

#[test]
fn head_stops_before_later_row_groups() {
    let (file, broken) = ten_groups_and_broken("head", &[9]);
    let all = jsonl(&arrow_rs(&file));
    let lines: Vec<&str> = all.lines().collect();
    let head = ok(&["head", s(&broken), "-n", "150", "--format", "jsonl"]);
    assert_eq!(head.lines().collect::<Vec<_>>(), lines[..150]);
    let table = ok(&["head", s(&file)]);
    assert!(table.starts_with("shape: (10, 2)"), "{table}");
    assert!(
        table.contains("row 0") && table.contains("row 9 "),
        "{table}"
    );
}

#[test]
fn schema_json_matches_arrow_rs() {
    for name in [
        "nested_plain_v1.parquet",
        "all_types_plain_v1.parquet",
        "sample.parquet",
    ] {
        let path = data(name);
        let doc: serde_json::Value =
            serde_json::from_str(&ok(&["schema", "--json", s(&path)])).unwrap();
        let reader = parquet::file::serialized_reader::SerializedFileReader::new(
            std::fs::File::open(&path).unwrap(),
        )
        .unwrap();
        let descr = reader.metadata().file_metadata().schema_descr_ptr();
        // Every leaf of arrow-rs's descriptor, with its type and levels.
        let mut leaves = Vec::new();
        fn collect(v: &serde_json::Value, out: &mut Vec<serde_json::Value>) {
            match v.get("children") {
                Some(c) => c.as_array().unwrap().iter().for_each(|c| collect(c, out)),
                None => out.push(v.clone()),
            }
        }
        collect(&doc["parquet"], &mut leaves);
        assert_eq!(leaves.len(), descr.num_columns(), "{name}");
        for (leaf, col) in leaves.iter().zip(descr.columns()) {
            assert_eq!(leaf["path"], col.path().string(), "{name}");
            assert_eq!(
                leaf["physical_type"],
                col.physical_type().to_string(),
                "{name}"
            );
            assert_eq!(leaf["max_definition_level"], col.max_def_level(), "{name}");
            assert_eq!(leaf["max_repetition_level"], col.max_rep_level(), "{name}");
            let repetition = col.self_type().get_basic_info().repetition().to_string();
            assert_eq!(leaf["repetition"], repetition, "{name}");
        }
        // The Arrow schema: arrow-rs's names, types and nullability.
        let arrow = arrow_rs(&path)[0].schema();
        let fields = doc["arrow"]["fields"].as_array().unwrap();
        assert_eq!(fields.len(), arrow.fields().len(), "{name}");
        for (f, g) in fields.iter().zip(arrow.fields()) {
            assert_eq!(f["name"], g.name().as_str(), "{name}");
            assert_eq!(f["nullable"], g.is_nullable(), "{name}");
            if !g.data_type().is_nested() {
                assert_eq!(f["data_type"], g.data_type().to_string(), "{name}");
            }
        }
    }
}

#[test]
fn schema_ddl_has_sql_types() {
    let text = ok(&["schema", "--ddl", s(&data("all_types_plain_v1.parquet"))]);
    assert!(
        text.starts_with("CREATE TABLE all_types_plain_v1 (\n"),
        "{text}"
    );
    assert!(text.ends_with("\n);\n"), "{text}");
    for line in [
        "    bool BOOLEAN,",
        "    int8 TINYINT,",
        "    uint64 UBIGINT,",
        "    float32 REAL,",
        "    float64 DOUBLE,",
        "    decimal_9_2 DECIMAL(9,2),",
        "    decimal256_76_5 DECIMAL(76,5),",
        "    date32 DATE,",
        "    time64_us TIME,",
        "    ts_ms TIMESTAMP,",
        "    ts_us_utc TIMESTAMP WITH TIME ZONE,",
        "    utf8 VARCHAR,",
        "    binary BLOB,",
        "    \"null\" VARCHAR,",
        "    required_int32 INTEGER NOT NULL",
    ] {
        assert!(text.lines().any(|l| l == line), "{line}\n{text}");
    }
    let text = ok(&["schema", "--ddl", s(&data("nested_plain_v1.parquet"))]);
    for line in [
        "    list_list_int32 INTEGER[][],",
        "    fixed_list_int16 SMALLINT[3],",
        "    map_utf8_int64 MAP(VARCHAR, BIGINT),",
        "    \"struct\" STRUCT(a INTEGER, b VARCHAR, c STRUCT(d DOUBLE)[])",
    ] {
        assert!(text.lines().any(|l| l == line), "{line}\n{text}");
    }
    // Names that are not plain lowercase words are quoted.
    let d = dir("ddl");
    let file = d.join("My Table.parquet");
    let batch = RecordBatch::try_from_iter([
        (
            "Mixed Case",
            Arc::new(Int64Array::from(vec![1])) as ArrayRef,
        ),
        ("a\"b", Arc::new(Int64Array::from(vec![1])) as ArrayRef),
        ("select", Arc::new(Int64Array::from(vec![1])) as ArrayRef),
    ])
    .unwrap();
    write_arrow_rs(&file, &batch, None);
    assert_eq!(
        ok(&["schema", "--ddl", s(&file)]),
        "CREATE TABLE \"My Table\" (\n    \"Mixed Case\" BIGINT NOT NULL,\n    \"a\"\"b\" BIGINT NOT NULL,\n    \"select\" BIGINT NOT NULL\n);\n"
    );
}

#[test]
fn completions_and_man_pages_come_from_the_commands() {
    for shell in ["bash", "zsh", "fish"] {
        let text = ok(&["completions", shell]);
        for word in ["tail", "count", "union-by-name", "per-file", "ddl"] {
            assert!(text.contains(word), "{shell}: {word}");
        }
    }
    let page = ok(&["man"]);
    assert!(page.contains(".TH pq 1"), "{page}");
    assert!(page.contains("pq\\-tail(1)"), "{page}");
    let page = ok(&["man", "tail"]);
    assert!(
        page.contains(".TH pq\\-tail 1") || page.contains(".TH pq-tail 1"),
        "{page}"
    );
    assert!(page.contains("\\-\\-union\\-by\\-name"), "{page}");
    let out = pq().args(["man", "nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = pq().args(["completions", "nosh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A copy of `path` whose footer says row group 0 has `rows` rows.
fn with_group_rows(path: &Path, rows: i64, to: &Path) {
    use pq_format::{FileMetaData, ThriftDecode, ThriftEncode};
    let bytes = std::fs::read(path).unwrap();
    let n = bytes.len();
    let len = u32::from_le_bytes(bytes[n - 8..n - 4].try_into().unwrap()) as usize;
    let start = n - 8 - len;
    let mut meta = FileMetaData::decode(&bytes[start..n - 8]).unwrap();
    meta.row_groups[0].num_rows = rows;
    let footer = meta.encode();
    let mut out = bytes[..start].to_vec();
    out.extend_from_slice(&footer);
    out.extend_from_slice(&(footer.len() as u32).to_le_bytes());
    out.extend_from_slice(b"PAR1");
    std::fs::write(to, out).unwrap();
}

/// Row counts plan which row groups `tail` and `--offset` read: a count
/// that cannot be one is an error, not a row group passed over.
#[test]
fn negative_row_group_counts_are_errors() {
    let d = dir("negative");
    let file = d.join("t.parquet");
    ten_groups(&file);
    let bad = d.join("bad.parquet");
    with_group_rows(&file, -5, &bad);
    for args in [
        vec!["tail", s(&bad), "-n", "3"],
        vec!["head", s(&bad), "-n", "3"],
        vec!["count", s(&bad)],
    ] {
        let err = fails(&args);
        assert!(err.contains("bad.parquet"), "{args:?}: {err}");
        assert!(err.contains("-5"), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}

/// count gives the rows a read gives, also where a writer left the file's
/// own count 0 (repeated_no_annotation: 0 in the footer, one row group of 6).
#[test]
fn count_agrees_with_reads_on_the_corpus() {
    let Some(corpus) = pq_testkit::parquet_testing_dir() else {
        pq_testkit::skip("PARQUET_TESTING_DIR is not set");
        return;
    };
    for name in [
        "repeated_no_annotation.parquet",
        "alltypes_plain.parquet",
        "nested_maps.snappy.parquet",
    ] {
        let path = corpus.join("data").join(name);
        let read = ok(&["cat", s(&path), "--format", "jsonl"]).lines().count();
        assert_eq!(ok(&["count", s(&path)]), format!("{read}\n"), "{name}");
        if name != "repeated_no_annotation.parquet" {
            let rows: usize = arrow_rs(&path).iter().map(|b| b.num_rows()).sum();
            assert_eq!(read, rows, "{name}");
        } else {
            assert_eq!(read, 6, "{name}");
        }
    }
}

#[test]
fn a_corrupt_page_is_named_once_with_its_row_group() {
    let (_, broken) = ten_groups_and_broken("corrupt-page", &[3]);
    // `pages` reads the chunk through the page layer, `cat` through the
    // reader above it: both name the column once and add the row group.
    for args in [
        vec!["pages", s(&broken)],
        vec!["cat", s(&broken), "--columns", "id"],
    ] {
        let err = fails(&args);
        assert!(
            err.contains("column id, row group 3, page 0, file offset "),
            "{args:?}: {err}"
        );
        assert_eq!(err.matches("column").count(), 1, "{args:?}: {err}");
        assert_eq!(err.matches("row group").count(), 1, "{args:?}: {err}");
    }
}
