//! Every reader limit, set through the `pq_arrow::ParquetReader` builder, on
//! a file that exceeds it: each must stop the read with an error naming the
//! limit, the column and the page, before the allocation it guards.
//!
//! The metadata limits ([`pq_format::Limits`]) are set with
//! `ParquetReader::*_with_limits`; the page limits ([`pq_page::PageOptions`])
//! with `ParquetReader::with_page_options`.

use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
use bytes::Bytes;
use pq_arrow::{MetadataLimits, PageOptions, ParquetReader};
use pq_format::{
    ColumnChunk, ColumnMetaData, CompressionCodec, DataPageHeader, Encoding, FieldRepetitionType,
    FileMetaData, PageHeader, PageType, RowGroup, SchemaElement, ThriftDecode, ThriftEncode, Type,
};

/// Reads every batch; the error message if any.
#[track_caller]
fn read_err(reader: pq_arrow::Result<ParquetReader>) -> String {
    let result = reader
        .and_then(|r| r.build())
        .and_then(|b| Ok(b.collect::<Result<Vec<_>, _>>()?));
    match result {
        Ok(b) => panic!("read {} batches, expected an error", b.len()),
        Err(e) => e.to_string(),
    }
}

fn assert_has(message: &str, pieces: &[&str]) {
    for p in pieces {
        assert!(message.contains(p), "{message:?} lacks {p:?}");
    }
}

/// A file written by the arrow-rs writer: `rows` rows of a string column
/// `s` with 4 distinct values (dictionary-encoded) and an int column `i`.
fn written_file(rows: usize) -> Bytes {
    written_file_with(rows, parquet::basic::Compression::UNCOMPRESSED)
}

fn written_file_with(rows: usize, codec: parquet::basic::Compression) -> Bytes {
    let s: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..rows).map(|i| ["alpha", "beta", "gamma", "delta"][i % 4]),
    ));
    let i: ArrayRef = Arc::new(Int32Array::from_iter_values(0..rows as i32));
    let batch = RecordBatch::try_from_iter([("s", s), ("i", i)]).unwrap();
    let mut out = Vec::new();
    let props = parquet::file::properties::WriterProperties::builder()
        .set_compression(codec)
        .build();
    let mut w =
        parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

/// A file with one column of type `list<struct<a: int32>>`.
fn written_nested_file() -> Bytes {
    use arrow_array::{ListArray, StructArray};
    use arrow_schema::{DataType, Field, Fields};
    let fields = Fields::from(vec![Field::new("a", DataType::Int32, true)]);
    let a: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
    let s = StructArray::new(fields.clone(), vec![a], None);
    let item = Arc::new(Field::new("item", DataType::Struct(fields), true));
    let offsets = arrow_buffer::OffsetBuffer::new(vec![0, 2, 3].into());
    let l: ArrayRef = Arc::new(ListArray::new(item, offsets, Arc::new(s), None));
    let batch = RecordBatch::try_from_iter([("l", l)]).unwrap();
    let mut out = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

/// Splits a file into its bytes before the footer and its decoded metadata.
fn split_footer(file: &[u8]) -> (Vec<u8>, FileMetaData) {
    let n = file.len();
    let len = u32::from_le_bytes(file[n - 8..n - 4].try_into().unwrap()) as usize;
    let body = file[..n - 8 - len].to_vec();
    let md = FileMetaData::decode(&file[n - 8 - len..n - 8]).unwrap();
    (body, md)
}

/// `body` followed by the footer of `md`.
fn join_footer(mut body: Vec<u8>, md: &FileMetaData) -> Bytes {
    let footer = md.encode();
    body.extend_from_slice(&footer);
    body.extend_from_slice(&(footer.len() as u32).to_le_bytes());
    body.extend_from_slice(b"PAR1");
    Bytes::from(body)
}

/// A hand-built file: one optional INT32 column `x` whose single v1 data
/// page declares `n` values, all null, in one RLE run of 6 bytes.
fn all_null_file(n: i32) -> Bytes {
    let mut levels = Vec::new();
    let mut run = (n as u64) << 1;
    while run >= 0x80 {
        levels.push((run as u8) | 0x80);
        run >>= 7;
    }
    levels.push(run as u8);
    levels.push(0);
    let mut body = (levels.len() as u32).to_le_bytes().to_vec();
    body.extend(&levels);
    let header = PageHeader {
        type_: PageType::DATA_PAGE,
        uncompressed_page_size: body.len() as i32,
        compressed_page_size: body.len() as i32,
        data_page_header: Some(DataPageHeader {
            num_values: n,
            encoding: Encoding::PLAIN,
            definition_level_encoding: Encoding::RLE,
            repetition_level_encoding: Encoding::RLE,
            ..Default::default()
        }),
        ..Default::default()
    };
    let mut page = header.encode();
    page.extend(&body);
    let mut file = b"PAR1".to_vec();
    file.extend(&page);
    let md = FileMetaData {
        version: 1,
        schema: vec![
            SchemaElement {
                name: "schema".into(),
                num_children: Some(1),
                ..Default::default()
            },
            SchemaElement {
                name: "x".into(),
                type_: Some(Type::INT32),
                repetition_type: Some(FieldRepetitionType::OPTIONAL),
                ..Default::default()
            },
        ],
        num_rows: i64::from(n),
        row_groups: vec![RowGroup {
            columns: vec![ColumnChunk {
                file_offset: 4,
                meta_data: Some(ColumnMetaData {
                    type_: Type::INT32,
                    encodings: vec![Encoding::PLAIN, Encoding::RLE].into(),
                    path_in_schema: pq_format::StringList::from_values(["x"]),
                    codec: CompressionCodec(0),
                    num_values: i64::from(n),
                    total_uncompressed_size: page.len() as i64,
                    total_compressed_size: page.len() as i64,
                    data_page_offset: 4,
                    ..Default::default()
                }),
                ..Default::default()
            }],
            total_byte_size: page.len() as i64,
            num_rows: i64::from(n),
            ..Default::default()
        }],
        ..Default::default()
    };
    join_footer(file, &md)
}

#[test]
fn values_per_page_limit() {
    // 2^31 - 1 levels in 6 bytes would be 4 GiB of definition levels: the
    // default limit stops it at the page header.
    let err = read_err(ParquetReader::from_bytes(all_null_file(i32::MAX)));
    assert_has(
        &err,
        &[
            "column x, row group 0, page 0, file offset 4",
            "data page of 2147483647 values exceeds the limit of 67108864 values per page",
            "max_page_values",
        ],
    );
    // Below the limit, such a page is read: every row null.
    let small = all_null_file(1000);
    let batches: Vec<RecordBatch> = ParquetReader::from_bytes(small.clone())
        .unwrap()
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 1000);
    assert!(
        batches
            .iter()
            .all(|b| b.column(0).null_count() == b.num_rows())
    );
    // And a lower limit from the builder applies.
    let options = PageOptions::default().with_max_page_values(999);
    let err = read_err(ParquetReader::from_bytes(small).map(|r| r.with_page_options(options)));
    assert_has(&err, &["data page of 1000 values exceeds the limit of 999"]);
}

#[test]
fn dictionary_size_limit() {
    let file = written_file(1000);
    // The dictionary of `s`: 4 strings of 4 + 4..5 bytes each.
    let options = PageOptions::default().with_max_dictionary_size(20);
    let err =
        read_err(ParquetReader::from_bytes(file.clone()).map(|r| r.with_page_options(options)));
    assert_has(
        &err,
        &[
            "column s, row group 0, page 0, file offset 4",
            "dictionary page of 35 bytes exceeds the limit of 20 bytes",
            "max_dictionary_size",
        ],
    );
    let options = PageOptions::default().with_max_dictionary_size(35);
    let reader = ParquetReader::from_bytes(file).unwrap();
    let s = pq_arrow::ProjectionMask::roots(reader.parquet_schema(), [0]);
    assert_eq!(reader.schema().field(0).name(), "s");
    let reader = reader.with_projection(s).with_page_options(options);
    assert!(reader.build().unwrap().all(|b| b.is_ok()));
}

#[test]
fn chunk_decompressed_size_limit() {
    // A footer whose total_uncompressed_size for `i` is 100 bytes, where its
    // pages decompress to about 4 KB.
    let (body, mut md) = split_footer(&written_file(1000));
    let cmd = md.row_groups[0].columns[1].meta_data.as_mut().unwrap();
    let real = cmd.total_uncompressed_size;
    assert!(real > 4000, "{real}");
    cmd.total_uncompressed_size = 100;
    let file = join_footer(body, &md);
    // The default slack (16 MiB) forgives a small file's metadata...
    let reader = ParquetReader::from_bytes(file.clone()).unwrap();
    assert!(reader.build().unwrap().all(|b| b.is_ok()));
    // ...a slack of 1 KiB does not.
    let options = PageOptions::default().with_chunk_size_slack(1024);
    let err = read_err(ParquetReader::from_bytes(file).map(|r| r.with_page_options(options)));
    assert_has(
        &err,
        &[
            "column i, row group 0, page 0",
            "more than the chunk's total_uncompressed_size 100 plus the allowed slack of 1024 bytes",
            "chunk_size_slack",
        ],
    );
}

#[test]
fn page_size_limit() {
    // Only compressed pages are limited: an uncompressed page is a slice of
    // the chunk already read, not an allocation.
    let options = PageOptions::default()
        .with_compress_limits(pq_compress::Limits::default().with_max_uncompressed_size(100));
    let file = written_file_with(1000, parquet::basic::Compression::SNAPPY);
    let err = read_err(ParquetReader::from_bytes(file).map(|r| r.with_page_options(options)));
    assert_has(
        &err,
        &[
            "page 1",
            "declared uncompressed size of",
            "exceeds the limit of 100 bytes",
        ],
    );
}

#[test]
fn metadata_limits() {
    let file = written_file(10);
    let with = |limits: MetadataLimits| {
        read_err(ParquetReader::from_bytes_with_limits(file.clone(), &limits))
    };
    let defaults = MetadataLimits::default;
    let err = with(defaults().with_max_metadata_size(64));
    assert_has(&err, &["metadata length", "exceeds the limit of 64 bytes"]);
    let err = with(defaults().with_max_nesting_depth(2));
    assert_has(&err, &["nesting deeper than 2"]);
    let err = with(defaults().with_max_string_len(3));
    assert_has(&err, &["exceeds the limit 3"]);
    let err = with(defaults().with_max_list_len(2));
    assert_has(&err, &["exceeds the limit 2"]);
    let err = with(defaults().with_max_schema_depth(0));
    assert_has(
        &err,
        &["is nested 1 deep, deeper than the limit of 0 (Limits::max_schema_depth)"],
    );
    // A nested schema: list<struct<a: int>> is 4 deep.
    let list = written_nested_file();
    let err = read_err(ParquetReader::from_bytes_with_limits(
        list.clone(),
        &defaults().with_max_schema_depth(3),
    ));
    assert_has(&err, &["nested 4 deep, deeper than the limit of 3"]);
    let reader = ParquetReader::from_bytes_with_limits(list, &defaults().with_max_schema_depth(4));
    assert!(reader.unwrap().build().unwrap().all(|b| b.is_ok()));
    // The defaults read it.
    assert!(ParquetReader::from_bytes_with_limits(file.clone(), &defaults()).is_ok());
}
