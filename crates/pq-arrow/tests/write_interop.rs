//! Interoperability of the writer with pyarrow and arrow-rs: a matrix of
//! files (every codec x data page v1/v2 x dictionary on/off, every
//! encoding each column type allows, nested columns) read back by pyarrow
//! (`tests/pyarrow_check_write.py`), which also compares our statistics
//! with those it writes for the same data and checks the page index; and
//! the page index of every file parsed by arrow-rs.
//!
//! Without python3 and pyarrow the test fails under `CI` and prints a skip
//! notice otherwise.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod write_common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use arrow_array::*;
use arrow_schema::{DataType, Field, Fields, Schema, TimeUnit};
use bytes::Bytes;
use parquet::file::metadata::{PageIndexPolicy, ParquetMetaDataReader};
use parquet::file::page_index::column_index::ColumnIndexMetaData;
use pq_arrow::write::{Codec, DataPageVersion, Encoding, ParquetWriter, WriterOptions};
use write_common::*;

const ROWS: usize = 3000;
const ROW_GROUP: usize = 1000;

fn schema() -> Arc<Schema> {
    let item = |dt: DataType| Arc::new(Field::new("item", dt, true));
    Arc::new(Schema::new(vec![
        Field::new("bool", DataType::Boolean, true),
        Field::new("i8", DataType::Int8, true),
        Field::new("i16", DataType::Int16, false),
        Field::new("i32", DataType::Int32, true),
        Field::new("i64", DataType::Int64, false),
        Field::new("u8", DataType::UInt8, true),
        Field::new("u16", DataType::UInt16, true),
        Field::new("u32", DataType::UInt32, true),
        Field::new("u64", DataType::UInt64, true),
        Field::new("f16", DataType::Float16, true),
        Field::new("f32", DataType::Float32, true),
        Field::new("f64", DataType::Float64, false),
        Field::new("utf8", DataType::Utf8, true),
        Field::new("large_utf8", DataType::LargeUtf8, true),
        Field::new("binary", DataType::Binary, true),
        Field::new("fsb", DataType::FixedSizeBinary(3), true),
        Field::new("dec9", DataType::Decimal128(5, 2), true),
        Field::new("dec18", DataType::Decimal128(15, 2), true),
        Field::new("dec38", DataType::Decimal128(30, 3), true),
        Field::new("date", DataType::Date32, true),
        Field::new("time_ms", DataType::Time32(TimeUnit::Millisecond), true),
        Field::new("time_us", DataType::Time64(TimeUnit::Microsecond), true),
        Field::new(
            "ts_utc",
            DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
            true,
        ),
        Field::new("ts", DataType::Timestamp(TimeUnit::Microsecond, None), true),
        Field::new(
            "dict",
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
            true,
        ),
        Field::new("list", DataType::List(item(DataType::Int32)), true),
        Field::new(
            "struct",
            DataType::Struct(Fields::from(vec![
                Field::new("a", DataType::Int64, false),
                Field::new("b", DataType::List(item(DataType::Utf8)), true),
            ])),
            true,
        ),
        Field::new_map(
            "map",
            "entries",
            Field::new("keys", DataType::Utf8, false),
            Field::new("values", DataType::Int32, true),
            false,
            true,
        ),
        Field::new(
            "large_list_struct",
            DataType::LargeList(item(DataType::Struct(Fields::from(vec![Field::new(
                "x",
                DataType::Float64,
                true,
            )])))),
            true,
        ),
        Field::new(
            "fixed_list",
            DataType::FixedSizeList(item(DataType::Int16), 2),
            true,
        ),
    ]))
}

/// Which of our encodings every leaf of a top-level column allows.
fn column_allows(dt: &DataType, e: Encoding) -> bool {
    match dt {
        // pyarrow cannot decode DELTA_*BYTE_ARRAY into dictionary arrays
        // ("DecodeArrow of DictAccumulator" is not implemented), so
        // dictionary columns keep their dictionary there.
        DataType::Dictionary(_, _) => false,
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            column_allows(f.data_type(), e)
        }
        DataType::Struct(fields) => fields.iter().all(|f| column_allows(f.data_type(), e)),
        DataType::Map(entries, _) => column_allows(entries.data_type(), e),
        _ => leaf_encodings(dt).contains(&e),
    }
}

fn write_file(path: &Path, batch: &RecordBatch, options: WriterOptions) {
    let file = std::fs::File::create(path).unwrap();
    let mut w = ParquetWriter::try_new(file, batch.schema(), options).unwrap();
    // Two writes, so that batches are split across row groups.
    w.write(&batch.slice(0, ROWS / 3)).unwrap();
    w.write(&batch.slice(ROWS / 3, ROWS - ROWS / 3)).unwrap();
    w.close().unwrap();
}

fn matrix(dir: &Path, batch: &RecordBatch) -> Vec<PathBuf> {
    let base = WriterOptions::builder()
        .set_max_row_group_size(ROW_GROUP)
        .set_max_row_group_bytes(usize::MAX)
        .set_data_page_size_limit(2048)
        .set_data_page_row_count_limit(300)
        .set_page_checksums_enabled(true);
    let mut files = Vec::new();
    for codec in Codec::ALL.into_iter().filter(|c| *c != Codec::Lzo) {
        for v in [DataPageVersion::V1, DataPageVersion::V2] {
            for dict in [true, false] {
                let path = dir.join(format!("pq-{codec}-{v:?}-dict_{dict}.parquet"));
                let options = base
                    .clone()
                    .set_compression(codec)
                    .set_writer_version(v)
                    .set_dictionary_enabled(dict)
                    .build();
                write_file(&path, batch, options);
                files.push(path);
            }
        }
    }
    use Encoding as E;
    for e in [
        E::RLE,
        E::DELTA_BINARY_PACKED,
        E::BYTE_STREAM_SPLIT,
        E::DELTA_LENGTH_BYTE_ARRAY,
        E::DELTA_BYTE_ARRAY,
    ] {
        for v in [DataPageVersion::V1, DataPageVersion::V2] {
            let mut options = base
                .clone()
                .set_compression(Codec::Snappy)
                .set_writer_version(v);
            for f in batch.schema().fields() {
                if column_allows(f.data_type(), e) {
                    options = options
                        .set_column_encoding(f.name().as_str(), e)
                        .set_column_dictionary_enabled(f.name().as_str(), false);
                }
            }
            let path = dir.join(format!("pq-{e}-{v:?}.parquet"));
            write_file(&path, batch, options.build());
            files.push(path);
        }
    }
    // Dictionaries that fall back to PLAIN part way through a chunk.
    let path = dir.join("pq-dictionary-fallback.parquet");
    write_file(
        &path,
        batch,
        base.clone()
            .set_dictionary_page_size_limit(256)
            .set_dictionary_max_entries(1 << 20)
            .build(),
    );
    files.push(path);
    files
}

fn check_with_arrow_rs(path: &Path, expected: &RecordBatch) {
    let bytes = Bytes::from(std::fs::read(path).unwrap());
    let md = ParquetMetaDataReader::new()
        .with_page_index_policy(PageIndexPolicy::Required)
        .parse_and_finish(&bytes)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for rg in 0..md.num_row_groups() {
        for c in 0..md.row_group(rg).num_columns() {
            let oi = md.offset_index().and_then(|x| x.get(rg)?.get(c));
            let ci = md.column_index().and_then(|x| x.get(rg)?.get(c));
            assert!(
                oi.is_some_and(|oi| !oi.page_locations().is_empty()),
                "{}: offset index",
                path.display()
            );
            assert!(
                ci.is_some_and(|ci| !matches!(ci, ColumnIndexMetaData::NONE)),
                "{}: column index",
                path.display()
            );
        }
    }
    assert_same(
        expected,
        &read_arrow_rs(&bytes),
        &path.display().to_string(),
    );
}

#[test]
fn pyarrow_reads_the_matrix() {
    let mut r = Rng(2024);
    NO_NAN.store(true, std::sync::atomic::Ordering::Relaxed);
    let batch = random_batch(&mut r, &schema(), ROWS);
    let dir = std::env::temp_dir().join(format!("pq-write-interop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files = matrix(&dir, &batch);
    for f in &files {
        check_with_arrow_rs(f, &batch);
    }
    {
        let file = std::fs::File::create(dir.join("expected.arrow")).unwrap();
        let mut w = arrow_ipc::writer::FileWriter::try_new(file, &batch.schema()).unwrap();
        w.write(&batch).unwrap();
        w.finish().unwrap();
    }
    if !pq_testkit::have_pyarrow() {
        pq_testkit::skip("python3 with pyarrow is not on the PATH: pyarrow interop not checked");
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/pyarrow_check_write.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "pyarrow disagrees:\n{stdout}");
    std::fs::remove_dir_all(&dir).ok();
}
