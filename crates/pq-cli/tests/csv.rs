//! CSV input of `pq convert`: dialect options, types given or inferred, and
//! malformed files stopped with their line rather than read as data. Each
//! output is read back with arrow-rs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::PathBuf;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal128Type, Int8Type, Int64Type, Time64MicrosecondType, TimestampMicrosecondType,
    TimestampMillisecondType, UInt16Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use assert_cmd::Command;
use common::read_arrow_rs as read;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pq-cli-csv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Converts `csv` (written to NAME.csv) with `args`; the parquet read back,
/// or the error line.
fn convert(name: &str, csv: &str, args: &[&str]) -> Result<RecordBatch, String> {
    let input = temp(&format!("{name}.csv"));
    let output = temp(&format!("{name}.parquet"));
    std::fs::write(&input, csv).unwrap();
    let _ = std::fs::remove_file(&output);
    let out = Command::cargo_bin("pq")
        .unwrap()
        .arg("convert")
        .arg(&input)
        .arg(&output)
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    if !out.status.success() {
        // 1 for a bad input, 2 for a bad option.
        assert!(matches!(out.status.code(), Some(1 | 2)), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(!output.exists(), "an output was left after: {stderr}");
        return Err(stderr);
    }
    Ok(read(&output))
}

fn strings(b: &RecordBatch, col: &str) -> Vec<Option<String>> {
    let a = b.column_by_name(col).unwrap();
    let a = arrow_cast::cast(a, &DataType::Utf8).unwrap();
    a.as_string::<i32>()
        .iter()
        .map(|v| v.map(str::to_string))
        .collect()
}

#[test]
fn an_unclosed_quote_is_an_error_with_its_line() {
    let e = convert("unclosed", "a,b\n1,x\n2,\"y\n3,z\n4,w\n", &[]).unwrap_err();
    assert!(
        e.contains("line 3: a quoted field opens here and is not closed"),
        "{e}"
    );
    // Quotes that close, doubled quotes, line ends inside quotes and a
    // quote inside an unquoted field are not mistaken for it.
    let b = convert("closed", "a,b\n1,\"x \"\"q\"\"\ny\"\n2,5\" pipe\n", &[]).unwrap();
    assert_eq!(
        strings(&b, "b"),
        vec![Some("x \"q\"\ny".into()), Some("5\" pipe".into())]
    );
    // With an escape character, an escaped quote does not close the field.
    let e = convert("escaped", "a,b\n1,\"x\\\"\n", &["--escape", "\\"]).unwrap_err();
    assert!(e.contains("line 2: a quoted field opens here"), "{e}");
}

#[test]
fn a_repeated_header_name_is_an_error_or_renamed() {
    let e = convert("dup", "id,x,id\n1,2,3\n", &[]).unwrap_err();
    assert!(
        e.contains("the header names column 'id' twice (columns 1 and 3)"),
        "{e}"
    );
    assert!(e.contains("--dedupe-header"), "{e}");
    let b = convert("dedupe", "id,x,id,id_2\n1,2,3,4\n", &["--dedupe-header"]).unwrap();
    let names: Vec<&str> = b
        .schema_ref()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(names, ["id", "x", "id_3", "id_2"]);
}

#[test]
fn a_value_past_the_inferred_rows_is_an_error_naming_the_fix() {
    let mut csv = String::from("n,s\n");
    for i in 0..50 {
        csv.push_str(&format!("{i},a\n"));
    }
    csv.push_str("2.5,b\n");
    let e = convert("late", &csv, &["--infer-rows", "10"]).unwrap_err();
    assert!(
        e.contains("line 52, column 'n': '2.5' is not a valid int64"),
        "{e}"
    );
    assert!(e.contains("inferred from the first 10 records"), "{e}");
    assert!(e.contains("--dtypes 'n=double'"), "{e}");
    // The fix it names works; so does sampling every record.
    let b = convert(
        "late_fixed",
        &csv,
        &["--infer-rows", "10", "--dtypes", "n=double"],
    )
    .unwrap();
    assert_eq!(b.column(0).data_type(), &DataType::Float64);
    let b = convert("late_all", &csv, &["--infer-rows", "100"]).unwrap();
    assert_eq!(b.column(0).data_type(), &DataType::Float64);
    assert_eq!(b.num_rows(), 51);
}

#[test]
fn dialect_options() {
    let csv = "exported by a tool\n\n'id'|'name'\n1|'a|b'\n2|'it''s'\n";
    let b = convert(
        "dialect",
        csv,
        &["--skip-rows", "2", "--delimiter", "|", "--quote", "'"],
    )
    .unwrap();
    assert_eq!(b.schema_ref().field(1).name(), "name");
    assert_eq!(
        strings(&b, "name"),
        vec![Some("a|b".into()), Some("it's".into())]
    );
    let b = convert(
        "tabs",
        "1\tx\n2\ty\n",
        &["--no-header", "--delimiter", "\\t"],
    )
    .unwrap();
    assert_eq!(b.num_rows(), 2);
    assert_eq!(b.column(0).as_primitive::<Int64Type>().values(), &[1, 2]);
    assert_eq!(
        strings(&b, "column_2"),
        vec![Some("x".into()), Some("y".into())]
    );
    // Line numbers count the skipped lines and the header.
    let e = convert(
        "skip_err",
        "note\nn\n1\nx\n",
        &["--skip-rows", "1", "--dtypes", "n=int64"],
    )
    .unwrap_err();
    assert!(
        e.contains("line 4, column 'n': 'x' is not a valid int64"),
        "{e}"
    );
}

#[test]
fn empty_fields_quoted_empty_fields_and_null_strings() {
    let csv = "s,n\n,1\n\"\",2\nNA,3\nnull,\n";
    // By default an empty field and "" are both null; NA is text.
    let b = convert("nulls_default", csv, &[]).unwrap();
    assert_eq!(
        strings(&b, "s"),
        vec![None, None, Some("NA".into()), Some("null".into())]
    );
    // With --null, only the strings given are null: empty fields are text.
    let b = convert("nulls_given", csv, &["--null", "NA", "--null", "null"]).unwrap();
    assert_eq!(
        strings(&b, "s"),
        vec![Some(String::new()), Some(String::new()), None, None]
    );
    let b = convert("nulls_empty", csv, &["--null", "NA", "--null", ""]).unwrap();
    assert_eq!(
        strings(&b, "s"),
        vec![None, None, None, Some("null".into())]
    );
}

#[test]
fn dtypes_of_every_kind() {
    let csv = "i8,u16,d,t,ts,b,n\n\
               -5,65535,12.5,10:30:00,2024-01-01T10:00:00+02:00,hi,7\n\
               127,0,-0.01,23:59:59.5,2024-06-01T00:00:00Z,,8\n";
    let b = convert(
        "dtypes",
        csv,
        &[
            "--dtypes",
            "i8=int8",
            "--dtypes",
            "u16=uint16",
            "--dtypes",
            "d=decimal(6,2)",
            "--dtypes",
            "t=time",
            "--dtypes",
            "ts=timestamp(ms, +02:00)",
            "--dtypes",
            "b=binary",
        ],
    )
    .unwrap();
    assert_eq!(b.column(0).as_primitive::<Int8Type>().values(), &[-5, 127]);
    assert_eq!(
        b.column(1).as_primitive::<UInt16Type>().values(),
        &[65535, 0]
    );
    assert_eq!(b.column(2).data_type(), &DataType::Decimal128(6, 2));
    assert_eq!(
        b.column(2).as_primitive::<Decimal128Type>().values(),
        &[1250, -1]
    );
    assert_eq!(
        b.column(3).as_primitive::<Time64MicrosecondType>().values(),
        &[37_800_000_000, 86_399_500_000]
    );
    // The offset is kept: the zone of the column and the instant.
    assert_eq!(
        b.column(4).data_type(),
        &DataType::Timestamp(TimeUnit::Millisecond, Some("+02:00".into()))
    );
    assert_eq!(
        b.column(4)
            .as_primitive::<TimestampMillisecondType>()
            .values(),
        &[1_704_096_000_000, 1_717_200_000_000]
    );
    assert_eq!(b.column(5).data_type(), &DataType::Binary);
    assert_eq!(b.column(5).as_binary::<i32>().value(0), b"hi");
    assert!(b.column(5).is_null(1));
    let e = convert("bad_type", csv, &["--dtypes", "i8=int9"]).unwrap_err();
    assert!(e.contains("unknown type 'int9'"), "{e}");
}

#[test]
fn inferred_offsets_make_a_zoned_column() {
    let b = convert(
        "offsets",
        "ts\n2024-01-01T10:00:00+02:00\n2024-01-01T10:00:00Z\n",
        &[],
    )
    .unwrap();
    let DataType::Timestamp(_, Some(zone)) = b.column(0).data_type() else {
        panic!("{:?}", b.column(0).data_type());
    };
    assert_eq!(zone.as_ref(), "+00:00");
    let micros = arrow_cast::cast(
        b.column(0),
        &DataType::Timestamp(TimeUnit::Microsecond, Some("+00:00".into())),
    )
    .unwrap();
    assert_eq!(
        micros.as_primitive::<TimestampMicrosecondType>().values(),
        &[1_704_096_000_000_000, 1_704_103_200_000_000]
    );
}

#[test]
fn timestamp_format() {
    let csv = "when\n01/02/2024 10:30\n31/12/1999 23:59\n";
    let b = convert(
        "tsformat",
        csv,
        &[
            "--dtypes",
            "when=timestamp",
            "--timestamp-format",
            "%d/%m/%Y %H:%M",
        ],
    )
    .unwrap();
    assert_eq!(
        b.column(0)
            .as_primitive::<TimestampMicrosecondType>()
            .values(),
        &[1_706_783_400_000_000, 946_684_740_000_000]
    );
    let e = convert(
        "tsformat_bad",
        "when\n01/02/2024 10:30\n2024-01-01 10:00\n",
        &[
            "--dtypes",
            "when=timestamp",
            "--timestamp-format",
            "%d/%m/%Y %H:%M",
        ],
    )
    .unwrap_err();
    assert!(
        e.contains("line 3, column 'when': '2024-01-01 10:00' does not match"),
        "{e}"
    );
}

#[test]
fn csv_options_on_parquet_input_are_a_usage_error() {
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
    let out = Command::cargo_bin("pq")
        .unwrap()
        .args([
            "convert",
            sample,
            temp("x.csv").to_str().unwrap(),
            "--delimiter",
            ";",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_offset_after_the_inferred_rows_is_an_error_not_utc_wall_time() {
    let mut csv = String::from("ts\n");
    for s in 0..5 {
        csv.push_str(&format!("2024-01-01T10:00:0{s}\n"));
    }
    csv.push_str("2024-01-01T10:00:00+02:00\n");
    let e = convert("late_offset", &csv, &["--infer-rows", "3"]).unwrap_err();
    assert!(
        e.contains("line 7, column 'ts': '2024-01-01T10:00:00+02:00' carries a UTC offset"),
        "{e}"
    );
    assert!(e.contains("timestamp(us, UTC)"), "{e}");
    // Given a zone, the same file keeps every value's instant (the values
    // without an offset are taken as UTC).
    let b = convert(
        "late_offset_utc",
        &csv,
        &["--infer-rows", "3", "--dtypes", "ts=timestamp(us, UTC)"],
    )
    .unwrap();
    let v = b.column(0).as_primitive::<TimestampMicrosecondType>();
    assert_eq!(v.value(0), 1_704_103_200_000_000);
    assert_eq!(v.value(5), 1_704_096_000_000_000);
}

#[test]
fn a_named_zone_keeps_each_values_instant() {
    // Across the change to summer time in Paris.
    let csv = "ts\n2024-03-31T01:30:00+01:00\n\n2024-03-31T03:30:00+02:00\n";
    let b = convert(
        "named_zone",
        csv,
        &["--dtypes", "ts=timestamp(ms, Europe/Paris)"],
    )
    .unwrap();
    assert_eq!(
        b.column(0).data_type(),
        &DataType::Timestamp(TimeUnit::Millisecond, Some("Europe/Paris".into()))
    );
    let v = b.column(0).as_primitive::<TimestampMillisecondType>();
    assert_eq!(v.values(), &[1_711_845_000_000, 1_711_848_600_000]);

    // A wall time in a named zone cannot be placed without a time zone
    // database: an error naming the line, never a guess.
    let e = convert(
        "named_zone_wall",
        "ts\n2024-03-31T01:30:00+01:00\n2024-03-31T03:30:00\n",
        &["--dtypes", "ts=timestamp(ms, Europe/Paris)"],
    )
    .unwrap_err();
    assert!(
        e.contains("line 3, column 'ts': '2024-03-31T03:30:00' has no UTC offset"),
        "{e}"
    );
    let e = convert(
        "named_zone_format",
        "ts\n31/03/2024 01:30\n",
        &[
            "--dtypes",
            "ts=timestamp(ms, Europe/Paris)",
            "--timestamp-format",
            "%d/%m/%Y %H:%M",
        ],
    )
    .unwrap_err();
    assert!(e.contains("add %z"), "{e}");
}
