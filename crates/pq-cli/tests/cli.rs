//! Runs the built `pq` binary on the fixtures in `data/` and, when
//! `PARQUET_TESTING_DIR` is set, on the corpus.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;

mod common;
use common::{DATA, arrow_rs, assert_no_panic, fails_with, ok, pq, temp};

fn data(name: &str) -> String {
    format!("{DATA}/{name}")
}

/// `batch` with named time zones as `+00:00`, as `pq cat` prints them
/// (arrow's `chrono-tz` feature is off in this build).
fn offset_zones(batch: &RecordBatch) -> RecordBatch {
    use arrow_schema::{DataType, Field, Schema};
    let schema = batch.schema();
    let mut fields = Vec::new();
    let mut columns = Vec::new();
    for (f, c) in schema.fields().iter().zip(batch.columns()) {
        match f.data_type() {
            DataType::Timestamp(u, Some(tz)) if !tz.starts_with(['+', '-']) => {
                let t = DataType::Timestamp(*u, Some("+00:00".into()));
                columns.push(arrow_cast::cast(c, &t).unwrap());
                fields.push(Field::new(f.name(), t, f.is_nullable()));
            }
            _ => {
                columns.push(c.clone());
                fields.push(f.as_ref().clone());
            }
        }
    }
    RecordBatch::try_new(std::sync::Arc::new(Schema::new(fields)), columns).unwrap()
}

/// Batches as JSON lines, named time zones as offsets, as `pq cat` writes
/// them.
fn jsonl(batches: &[RecordBatch]) -> String {
    common::jsonl(&batches.iter().map(offset_zones).collect::<Vec<_>>())
}

/// Corpus files when `PARQUET_TESTING_DIR` is set (the test is reported
/// skipped when it is not).
fn corpus() -> Vec<PathBuf> {
    let Some(dir) = pq_testkit::parquet_testing_dir() else {
        return Vec::new();
    };
    let dir = dir.join("data");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "parquet"));
    files.sort();
    files
}

const FIXTURES: &[&str] = &[
    "sample.parquet",
    "all_types_plain_v1.parquet",
    "all_types_dict_snappy_v1.parquet",
    "all_types_dict_zstd_v2.parquet",
    "nested_plain_v1.parquet",
    "nested_dict_snappy_v2.parquet",
    "many_pages.parquet",
    "codec_gzip.parquet",
    "enc_delta_byte_array_v2.parquet",
];

#[test]
fn cat_jsonl_equals_arrow_rs() {
    for name in FIXTURES {
        let path = data(name);
        let ours = ok(&["cat", &path, "--format", "jsonl"]);
        let theirs = jsonl(&arrow_rs(Path::new(&path)));
        assert_eq!(ours, theirs, "{name}");
    }
}

#[test]
fn cat_table_has_shape_and_names() {
    let path = data("sample.parquet");
    let reader = pq_arrow::ParquetReader::open(&path).unwrap();
    let rows = reader.num_rows();
    let schema = reader.arrow_schema();
    let out = pq()
        .args(["cat", &path])
        .env("COLUMNS", "400")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("shape: ("), "{text}");
    assert!(
        first.ends_with(&format!(", {})", schema.fields().len())),
        "{text}"
    );
    let digits: String = first.chars().filter(char::is_ascii_digit).collect();
    assert!(
        digits.starts_with(&rows.to_string()),
        "{first} vs {rows} rows"
    );
    for f in schema.fields() {
        assert!(
            text.contains(f.name().as_str()),
            "{} missing: {text}",
            f.name()
        );
    }
    assert!(text.contains('┌') && text.contains('╞') && text.contains('┘'));
}

#[test]
fn cat_table_elides_columns_to_fit() {
    let path = data("all_types_plain_v1.parquet");
    let out = pq()
        .args(["cat", &path])
        .env("COLUMNS", "40")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for line in text.lines().skip(1) {
        assert!(line.chars().count() <= 40, "{line}");
    }
    assert!(text.contains("┆ … │"), "{text}");
}

#[test]
fn cat_offset_limit_and_columns() {
    let path = data("sample.parquet");
    let first = pq_arrow::ParquetReader::open(&path)
        .unwrap()
        .arrow_schema()
        .field(0)
        .name()
        .clone();
    let all = ok(&["cat", &path, "--format", "jsonl", "--columns", &first]);
    let some = ok(&[
        "cat",
        &path,
        "--format",
        "jsonl",
        "--columns",
        &first,
        "--offset",
        "2",
        "--limit",
        "3",
    ]);
    let expected: Vec<&str> = all.lines().skip(2).take(3).collect();
    assert_eq!(some.lines().collect::<Vec<_>>(), expected);
    let csv = ok(&[
        "cat",
        &path,
        "--format",
        "csv",
        "--columns",
        &first,
        "--limit",
        "3",
    ]);
    assert_eq!(csv.lines().next(), Some(first.as_str()));
    assert_eq!(csv.lines().count(), 4);
}

#[test]
fn cat_unknown_column() {
    let err = fails_with(&["cat", &data("sample.parquet"), "--columns", "nope"], 1);
    assert!(err.contains("nope") && err.contains("columns are"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn bad_inputs() {
    let missing = temp("missing.parquet");
    let err = fails_with(&["cat", missing.to_str().unwrap()], 1);
    assert!(err.contains("no such file"), "{err}");

    let dir = temp("empty-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let err = fails_with(&["cat", dir.to_str().unwrap()], 1);
    assert!(err.contains("directory with no Parquet files"), "{err}");

    let empty = temp("empty.parquet");
    std::fs::write(&empty, b"").unwrap();
    let err = fails_with(&["cat", empty.to_str().unwrap()], 1);
    assert!(err.contains("empty"), "{err}");

    let text = temp("text.parquet");
    std::fs::write(&text, b"id,name\n1,a\n2,b\n").unwrap();
    let err = fails_with(&["cat", text.to_str().unwrap()], 1);
    assert!(err.starts_with("pq: ") && err.lines().count() == 1, "{err}");

    let whole = std::fs::read(data("sample.parquet")).unwrap();
    let truncated = temp("truncated.parquet");
    std::fs::write(&truncated, &whole[..whole.len() / 2]).unwrap();
    for cmd in ["cat", "meta", "schema"] {
        let err = fails_with(&[cmd, truncated.to_str().unwrap()], 1);
        assert!(err.starts_with("pq: ") && err.lines().count() == 1, "{err}");
    }
}

#[test]
fn unknown_subcommand_is_usage_error() {
    fails_with(&["frobnicate", &data("sample.parquet")], 2);
}

#[test]
fn meta_json_row_count() {
    let path = data("sample.parquet");
    let rows = pq_arrow::ParquetReader::open(&path).unwrap().num_rows();
    let out = ok(&["meta", &path, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["num_rows"].as_u64(), Some(rows), "{out}");
}

#[test]
fn corpus_cat_jsonl() {
    for path in corpus() {
        let p = path.to_str().unwrap();
        let out = pq().args(["cat", p, "--format", "jsonl"]).output().unwrap();
        assert_no_panic(&String::from_utf8_lossy(&out.stderr));
    }
}

/// `pages` lists every corpus file, each column chunk holding values with
/// at least one page row: it decodes the pages (for their null counts) within the
/// limits the reader reads with, so a file the reader reads is listed
/// (`large_string_map.brotli.parquet`, whose dictionary page declares
/// 1 GiB and 4 bytes, was refused by the page layer's default limit).
#[test]
fn corpus_pages_lists_every_file() {
    for path in corpus() {
        let p = path.to_str().unwrap();
        let Ok(reader) = pq_arrow::ParquetReader::open(&path) else {
            continue;
        };
        let out = pq().args(["pages", p]).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{p}: {stderr}");
        for (rg, group) in reader.metadata().row_groups.iter().enumerate() {
            // A chunk of no values is listed without pages.
            let chunks = group
                .columns
                .iter()
                .enumerate()
                .filter(|(_, c)| c.meta_data.as_ref().is_some_and(|m| m.num_values > 0));
            for (col, _) in chunks {
                let row = format!("{rg:<3} {col:<6} ");
                assert!(
                    stdout.lines().any(|l| l.starts_with(&row)),
                    "{p}: no page of row group {rg}, column {col}"
                );
            }
        }
    }
}

#[test]
fn scan_reports_rows() {
    for name in FIXTURES {
        let path = data(name);
        let rows = pq_arrow::ParquetReader::open(&path).unwrap().num_rows();
        let out = ok(&["scan", &path, "--threads", "2", "--verify-checksums"]);
        assert!(out.contains(&format!("rows: {rows}\n")), "{name}: {out}");
        assert!(out.contains("MB/s"), "{out}");
    }
    let err = fails_with(&["scan", &data("sample.parquet"), "--columns", "nope"], 1);
    assert!(err.contains("nope"), "{err}");
}

#[test]
fn verify_identical_on_fixtures() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(DATA)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    files.sort();
    for path in files {
        let out = ok(&["verify", path.to_str().unwrap()]);
        assert!(out.starts_with("identical: "), "{}: {out}", path.display());
    }
}

/// Corpus files where pq and arrow-rs read different values on purpose, and why.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[
    (
        "int96_from_spark.parquet",
        "INT96 days past 2^31: pq reads them as pyarrow does, arrow-rs as signed",
    ),
    (
        "repeated_no_annotation.parquet",
        "arrow-rs reads 0 rows; pq reads the 6 that pyarrow reads",
    ),
];

#[test]
fn verify_on_corpus() {
    let mut differ = Vec::new();
    let files = corpus();
    for path in &files {
        let p = path.to_str().unwrap();
        let out = pq().args(["verify", p]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_no_panic(&stderr);
        // Files both readers read must be identical; files one reader
        // rejects are reported, naming that reader.
        if !out.status.success() {
            assert!(
                stderr.contains("reader:") || stderr.starts_with("pq: "),
                "{p}: {stderr}"
            );
            if stderr.contains("differ:") {
                // The first difference names where and both sides.
                assert!(
                    stderr.contains("pq ") && stderr.contains("arrow-rs "),
                    "{p}: {stderr}"
                );
                differ.push(path.file_name().unwrap().to_string_lossy().into_owned());
            }
        }
    }
    if files.is_empty() {
        return;
    }
    let expected: Vec<String> = KNOWN_DIFFERENCES
        .iter()
        .map(|(name, _)| name.to_string())
        .collect();
    differ.sort();
    assert_eq!(differ, expected, "files where pq and arrow-rs differ");
}

#[test]
fn convert_to_arrow_equals_arrow_rs() {
    for name in [
        "sample.parquet",
        "nested_plain_v1.parquet",
        "all_types_plain_v1.parquet",
    ] {
        let path = data(name);
        let out = temp(&format!("{name}.arrow"));
        ok(&["convert", &path, out.to_str().unwrap()]);
        let file = std::fs::File::open(&out).unwrap();
        let ipc: Vec<RecordBatch> = arrow_ipc::reader::FileReader::try_new(file, None)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        // Dictionary columns are written as their values (one dictionary
        // per field in an IPC file).
        let theirs: Vec<RecordBatch> = arrow_rs(Path::new(&path))
            .iter()
            .map(|b| {
                let cols: Vec<_> = b
                    .columns()
                    .iter()
                    .map(|c| match c.data_type() {
                        arrow_schema::DataType::Dictionary(_, v) => arrow_cast::cast(c, v).unwrap(),
                        _ => c.clone(),
                    })
                    .collect();
                RecordBatch::try_new(ipc[0].schema(), cols).unwrap()
            })
            .collect();
        let schema = ipc[0].schema();
        let a = arrow_select::concat::concat_batches(&schema, &ipc).unwrap();
        let b = arrow_select::concat::concat_batches(&schema, &theirs).unwrap();
        assert_eq!(a, b, "{name}");
    }
}

#[test]
fn convert_csv_round_trip() {
    let path = data("sample.parquet");
    let csv = temp("sample.csv");
    ok(&["convert", &path, csv.to_str().unwrap()]);
    let schema = pq_arrow::ParquetReader::open(&path).unwrap().arrow_schema();
    let mut args: Vec<String> = Vec::new();
    for f in schema.fields() {
        let t = match f.data_type() {
            arrow_schema::DataType::Int32 => "int32",
            arrow_schema::DataType::Int64 => "int64",
            arrow_schema::DataType::Float64 => "double",
            arrow_schema::DataType::Float32 => "float",
            arrow_schema::DataType::Boolean => "boolean",
            arrow_schema::DataType::Date32 => "date",
            _ => "string",
        };
        args.push("--dtypes".into());
        args.push(format!("{}={t}", f.name()));
    }
    let back = temp("sample-back.parquet");
    let mut cmd: Vec<&str> = vec!["convert", csv.to_str().unwrap(), back.to_str().unwrap()];
    cmd.extend(args.iter().map(String::as_str));
    cmd.extend([
        "--compression",
        "zstd",
        "--page-version",
        "2",
        "--rows-per-page",
        "3",
    ]);
    ok(&cmd);
    let a = ok(&["cat", &path, "--format", "csv"]);
    let b = ok(&["cat", back.to_str().unwrap(), "--format", "csv"]);
    assert_eq!(a, b);
    let out = ok(&["verify", back.to_str().unwrap()]);
    assert!(out.starts_with("identical"), "{out}");
}

#[test]
fn convert_rewrite_with_options() {
    let path = data("all_types_plain_v1.parquet");
    let out = temp("rewrite.parquet");
    ok(&[
        "convert",
        &path,
        out.to_str().unwrap(),
        "--compression",
        "lz4",
        "--no-dictionary",
        "--encodings",
        "int64=delta_binary_packed",
        "--rows-per-group",
        "1000",
    ]);
    let a = ok(&["cat", &path, "--format", "jsonl"]);
    let b = ok(&["cat", out.to_str().unwrap(), "--format", "jsonl"]);
    assert_eq!(a, b);
    let meta: serde_json::Value =
        serde_json::from_str(&ok(&["meta", out.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!(meta["num_rows"].as_u64(), Some(3000));
    let jsonl = temp("rewrite.jsonl");
    ok(&["convert", out.to_str().unwrap(), jsonl.to_str().unwrap()]);
    assert_eq!(std::fs::read_to_string(&jsonl).unwrap(), a);
}

#[test]
fn convert_compression_level_is_used() {
    // Text that compresses better the harder zstd tries.
    let csv = temp("levels.csv");
    let mut text = String::from("id,words\n");
    for i in 0..20_000u64 {
        let w = (i * 2_654_435_761) % 1000;
        text.push_str(&format!("{i},w{w} x{} y{}\n", w % 37, (w * 7) % 101));
    }
    std::fs::write(&csv, text).unwrap();
    let size = |level: &str| {
        let out = temp(&format!("levels-{level}.parquet"));
        ok(&[
            "convert",
            csv.to_str().unwrap(),
            out.to_str().unwrap(),
            "--no-dictionary",
            "--compression",
            "zstd",
            "--compression-level",
            level,
        ]);
        let rows = ok(&["cat", out.to_str().unwrap(), "--format", "csv"]);
        (std::fs::metadata(&out).unwrap().len(), rows)
    };
    let ((fast, a), (default, b), (small, c)) = (size("-5"), size("1"), size("19"));
    assert!(
        fast > default && default > small,
        "{fast} {default} {small}"
    );
    assert!(a == b && b == c && b.lines().count() == 20_001);
}

#[test]
fn convert_preview_encoding_needs_its_flag() {
    let csv = temp("preview.csv");
    std::fs::write(&csv, "x,name\n1.5,a\n-2.25,b\n1e10,c\n").unwrap();
    let out = temp("preview.parquet");
    let args = [
        "convert",
        csv.to_str().unwrap(),
        out.to_str().unwrap(),
        "--encodings",
        "x=alp",
    ];
    let err = fails_with(&args, 2);
    assert!(err.contains("'x'"), "{err}");
    assert!(err.contains("--allow-preview-encodings"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!out.exists());

    let mut allowed = args.to_vec();
    allowed.push("--allow-preview-encodings");
    ok(&allowed);
    let meta: serde_json::Value =
        serde_json::from_str(&ok(&["meta", out.to_str().unwrap(), "--json"])).unwrap();
    let encodings = meta["row_groups"][0]["columns"][0]["encodings"].to_string();
    assert!(encodings.contains("ALP"), "{encodings}");
    let back = ok(&["cat", out.to_str().unwrap(), "--format", "csv"]);
    assert!(back.contains("-2.25"), "{back}");
    assert_eq!(back.lines().count(), 4, "{back}");
}

#[test]
fn convert_unwritable_output() {
    let err = fails_with(
        &[
            "convert",
            &data("sample.parquet"),
            "/nonexistent-dir/out.parquet",
        ],
        1,
    );
    assert!(err.contains("/nonexistent-dir/out.parquet"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // A failing input leaves no output behind.
    let out = temp("never.parquet");
    let missing = temp("missing-input.parquet");
    fails_with(
        &["convert", missing.to_str().unwrap(), out.to_str().unwrap()],
        1,
    );
    assert!(!out.exists());
}

#[test]
fn help_has_examples() {
    for cmd in [
        "cat", "scan", "verify", "convert", "meta", "schema", "pages", "stats",
    ] {
        let out = ok(&[cmd, "--help"]);
        assert!(out.contains("Example: pq "), "{cmd}: {out}");
    }
}
