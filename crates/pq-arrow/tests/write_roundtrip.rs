//! Round trips through the writer: every type, nested at any depth, with
//! random options, read back by the arrow-rs reader and by ours.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod write_common;

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema};
use pq_arrow::write::{
    Codec, DataPageVersion, Encoding, ParquetWriter, WriterOptions, WriterOptionsBuilder,
    is_preview_encoding,
};
use proptest::prelude::*;
use write_common::*;

fn write(batches: &[RecordBatch], options: WriterOptions) -> Vec<u8> {
    let mut w = ParquetWriter::try_new(Vec::new(), batches[0].schema(), options).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    let (bytes, _) = w.close_into_inner().unwrap();
    bytes
}

fn read_ours(bytes: &[u8]) -> Result<RecordBatch, String> {
    let reader = pq_arrow::ParquetReader::from_bytes(bytes::Bytes::copy_from_slice(bytes))
        .map_err(|e| e.to_string())?;
    let schema = reader.arrow_schema();
    let batches: Vec<RecordBatch> = reader
        .build()
        .map_err(|e| e.to_string())?
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    arrow_select::concat::concat_batches(&schema, &batches).map_err(|e| e.to_string())
}

fn check(batches: &[RecordBatch], options: WriterOptions, what: &str) {
    // Encoding the columns on threads changes nothing written.
    let threaded = write(
        batches,
        options.clone().into_builder().set_threads(3).build(),
    );
    let bytes = write(batches, options);
    assert!(threaded == bytes, "{what}: 3 threads wrote other bytes");
    let expected = arrow_select::concat::concat_batches(&batches[0].schema(), batches).unwrap();
    if let Some(back) = read_arrow_rs_unless_alp(&bytes) {
        assert_same(&expected, &back, &format!("{what} (arrow-rs reader)"));
    }
    match read_ours(&bytes) {
        Ok(ours) => assert_same(&expected, &ours, &format!("{what} (pq reader)")),
        Err(e) => {
            // Our reader is held to what it reads of arrow-rs's own file of
            // the same data; where that fails too, the gap is the reader's.
            let theirs = write_with_arrow_rs(&expected);
            if read_ours(&theirs).is_ok() {
                panic!("{what}: our reader failed on our file only: {e}");
            }
            eprintln!("{what}: pq reader cannot read this (nor arrow-rs's file): {e}");
        }
    }
}

fn write_with_arrow_rs(batch: &RecordBatch) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), None).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
    out
}

#[test]
fn every_leaf_type_flat_required_and_optional() {
    let mut r = Rng(7);
    let mut fields = Vec::new();
    for (i, dt) in leaf_types().into_iter().enumerate() {
        let null_only = matches!(dt, DataType::Null);
        fields.push(Field::new(format!("r{i}"), dt.clone(), null_only));
        fields.push(Field::new(format!("o{i}"), dt, true));
    }
    let schema = Arc::new(Schema::new(fields));
    let batches: Vec<_> = (0..3).map(|_| random_batch(&mut r, &schema, 500)).collect();
    check(&batches, WriterOptions::default(), "defaults");
    check(
        &batches,
        WriterOptions::builder()
            .set_dictionary_enabled(false)
            .set_writer_version(DataPageVersion::V2)
            .set_compression(Codec::Zstd)
            .set_data_page_size_limit(200)
            .set_data_page_row_count_limit(64)
            .set_page_checksums_enabled(true)
            .build(),
        "plain v2 zstd small pages",
    );
    // A column's decompressor (and its ZSTD context) passes from one
    // chunk to the next: five row groups read back as written.
    check(
        &batches,
        WriterOptions::builder()
            .set_compression(Codec::Zstd)
            .set_max_row_group_size(300)
            .set_max_row_group_bytes(usize::MAX)
            .build(),
        "zstd, small row groups",
    );
    check(
        &batches,
        WriterOptions::builder()
            .set_dictionary_page_size_limit(40)
            .set_dictionary_max_entries(1000)
            .set_max_row_group_size(700)
            .set_max_row_group_bytes(usize::MAX)
            .build(),
        "dictionary fallback, small row groups",
    );
}

#[test]
fn every_encoding_of_every_leaf_type() {
    let mut r = Rng(11);
    for dt in leaf_types() {
        for enc in leaf_encodings(&dt) {
            let schema = Arc::new(Schema::new(vec![
                Field::new("a", dt.clone(), true),
                Field::new(
                    "l",
                    DataType::List(Arc::new(Field::new("item", dt.clone(), true))),
                    true,
                ),
            ]));
            let batch = random_batch(&mut r, &schema, 300);
            for v in [DataPageVersion::V1, DataPageVersion::V2] {
                let options = WriterOptions::builder()
                    .set_encoding(enc)
                    .set_dictionary_enabled(false)
                    .set_allow_preview_encodings(is_preview_encoding(enc))
                    .set_writer_version(v)
                    .set_data_page_size_limit(512)
                    .set_data_page_row_count_limit(100)
                    .build();
                check(
                    std::slice::from_ref(&batch),
                    options,
                    &format!("{dt} {enc} {v:?}"),
                );
            }
        }
    }
}

#[test]
fn per_column_options_and_errors() {
    let batch = int_and_text_batch(3);
    let options = WriterOptions::builder()
        .set_column_encoding("a", Encoding::DELTA_BINARY_PACKED)
        .set_column_dictionary_enabled("a", false)
        .set_column_compression("s", Codec::Gzip)
        .set_column_compression_level("s", Some(9))
        .build();
    let bytes = write(std::slice::from_ref(&batch), options);
    let md = footer_of(&bytes);
    let a = md.row_groups[0].columns[0].meta_data.as_ref().unwrap();
    assert!(a.encodings.contains(&Encoding::DELTA_BINARY_PACKED));
    assert!(!a.encodings.contains(&Encoding::RLE_DICTIONARY));
    let s = md.row_groups[0].columns[1].meta_data.as_ref().unwrap();
    assert_eq!(s.codec.0, Codec::Gzip.thrift_id());
    assert!(s.encodings.contains(&Encoding::RLE_DICTIONARY));
    assert_same(&batch, &read_arrow_rs(&bytes), "per column");

    let bad = WriterOptions::builder()
        .set_column_encoding("s", Encoding::DELTA_BINARY_PACKED)
        .set_column_dictionary_enabled("s", false)
        .build();
    assert!(ParquetWriter::try_new(Vec::new(), batch.schema(), bad).is_err());
    let unknown = WriterOptions::builder()
        .set_column_dictionary_enabled("nope", true)
        .build();
    assert!(ParquetWriter::try_new(Vec::new(), batch.schema(), unknown).is_err());
}

#[test]
fn preview_encodings_need_the_switch() {
    let schema = Arc::new(Schema::new(vec![
        Field::new("i", DataType::Int64, true),
        Field::new("f", DataType::Float64, true),
        Field::new(
            "l",
            DataType::List(Arc::new(Field::new("element", DataType::Float32, true))),
            true,
        ),
    ]));
    let batch = random_batch(&mut Rng(21), &schema, 2000);
    let alp = |b: WriterOptionsBuilder, column: &str| {
        b.set_column_encoding(column, Encoding::ALP)
            .set_column_dictionary_enabled(column, false)
    };
    let refused = |options: WriterOptions, column: &str| {
        let err = ParquetWriter::try_new(Vec::new(), schema.clone(), options)
            .unwrap_err()
            .to_string();
        assert!(err.contains(&format!("'{column}'")), "{column}: {err}");
        assert!(err.contains("ALP"), "{column}: {err}");
        assert!(err.contains("allow_preview_encodings"), "{column}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    };
    // As a column's encoding, on a top-level or a nested column.
    refused(alp(WriterOptions::builder(), "f").build(), "f");
    refused(alp(WriterOptions::builder(), "l").build(), "l.list.element");
    // As the fallback of a dictionary.
    refused(
        WriterOptions::builder()
            .set_column_encoding("f", Encoding::ALP)
            .build(),
        "f",
    );
    // Switched off explicitly, as by default.
    refused(
        alp(WriterOptions::builder(), "f")
            .set_allow_preview_encodings(false)
            .build(),
        "f",
    );

    // With the switch the file is written, ALP pages and all, and reads back.
    let options = alp(alp(WriterOptions::builder(), "f"), "l")
        .set_allow_preview_encodings(true)
        .build();
    let bytes = write(std::slice::from_ref(&batch), options);
    let md = footer_of(&bytes);
    let encodings = |c: usize| chunk_meta(&md, c).encodings.clone();
    assert!(!encodings(0).contains(&Encoding::ALP));
    assert!(encodings(1).contains(&Encoding::ALP));
    assert!(encodings(2).contains(&Encoding::ALP));
    assert_same(&batch, &read_ours(&bytes).unwrap(), "ALP, ours");
    if let Some(theirs) = read_arrow_rs_unless_alp(&bytes) {
        assert_same(&batch, &theirs, "ALP, arrow-rs");
    }
}

#[test]
fn default_compression_is_snappy() {
    let batch = int_and_text_batch(4);
    let bytes = write(std::slice::from_ref(&batch), WriterOptions::default());
    let md = footer_of(&bytes);
    for c in &md.row_groups[0].columns {
        let meta = c.meta_data.as_ref().unwrap();
        assert_eq!(
            meta.codec.0,
            Codec::Snappy.thrift_id(),
            "{:?}",
            meta.path_in_schema
        );
    }
    assert_same(&batch, &read_arrow_rs(&bytes), "default codec");
}

#[test]
fn dropped_writer_leaves_no_footer() {
    let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int32, false)]));
    let batch = random_batch(&mut Rng(5), &schema, 100);
    let mut buf = Vec::new();
    {
        let options = WriterOptions::builder()
            .set_max_row_group_size(10)
            .set_max_row_group_bytes(usize::MAX)
            .build();
        let mut w = ParquetWriter::try_new(&mut buf, schema, options).unwrap();
        w.write(&batch).unwrap();
        assert!(w.bytes_written() > 4);
    }
    assert_eq!(&buf[..4], b"PAR1");
    assert_ne!(&buf[buf.len() - 4..], b"PAR1");
    assert!(
        pq_format::read_metadata_from_bytes(&bytes::Bytes::from(buf), &Default::default()).is_err()
    );
}

#[test]
fn row_groups_split_by_rows_and_bytes() {
    let schema = Arc::new(Schema::new(vec![Field::new("s", DataType::Utf8, false)]));
    let batch = random_batch(&mut Rng(9), &schema, 10_000);
    let bytes = write(
        std::slice::from_ref(&batch),
        WriterOptions::builder()
            .set_max_row_group_size(3000)
            .set_max_row_group_bytes(usize::MAX)
            .build(),
    );
    let md = footer_of(&bytes);
    let rows: Vec<i64> = md.row_groups.iter().map(|rg| rg.num_rows).collect();
    assert_eq!(rows, [3000, 3000, 3000, 1000]);
}

#[test]
fn threads_write_the_same_bytes_as_one() {
    // Many columns of every kind, several row groups and pages: the threads
    // take columns in whatever order they free up.
    let mut r = Rng(21);
    let schema = Arc::new(random_schema(&mut r, 24, 2));
    let batches: Vec<_> = (0..3)
        .map(|_| random_batch(&mut r, &schema, 3000))
        .collect();
    let options = || {
        WriterOptions::builder()
            .set_max_row_group_size(4000)
            .set_data_page_row_count_limit(500)
            .set_bloom_filter_enabled(true)
    };
    let one = write(&batches, options().build());
    assert_eq!(footer_of(&one).row_groups.len(), 3);
    for threads in [2, 4, 64] {
        let many = write(&batches, options().set_threads(threads).build());
        assert!(many == one, "{threads} threads wrote other bytes");
    }
    check(&batches, options().build(), "24 random columns");
}

fn arb_options() -> impl Strategy<Value = WriterOptions> {
    (
        any::<bool>(),
        any::<bool>(),
        0usize..4,
        prop_oneof![Just(64usize), Just(1024), Just(1 << 20)],
        prop_oneof![Just(37usize), Just(20_000)],
        prop_oneof![Just(50usize), Just(1 << 20)],
        any::<bool>(),
    )
        .prop_map(|(dict, v2, codec, page, page_rows, rg, crc)| {
            let codec = [
                Codec::Uncompressed,
                Codec::Snappy,
                Codec::Zstd,
                Codec::Lz4Raw,
            ][codec];
            WriterOptions::builder()
                .set_dictionary_enabled(dict)
                .set_writer_version(if v2 {
                    DataPageVersion::V2
                } else {
                    DataPageVersion::V1
                })
                .set_compression(codec)
                .set_data_page_size_limit(page)
                .set_data_page_row_count_limit(page_rows)
                .set_max_row_group_size(rg)
                .set_max_row_group_bytes(usize::MAX)
                .set_page_checksums_enabled(crc)
                .build()
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_nested_schemas_round_trip(
        seed in 1u64..u64::MAX,
        columns in 1usize..4,
        rows in 0usize..120,
        nbatches in 1usize..3,
        options in arb_options(),
    ) {
        let mut r = Rng(seed);
        let schema = Arc::new(random_schema(&mut r, columns, 3));
        let batches: Vec<_> = (0..nbatches).map(|_| random_batch(&mut r, &schema, rows)).collect();
        check(&batches, options, &format!("seed {seed} schema {schema:?}"));
    }
}

/// 1000 random rows of a required Int64 `a` and a nullable Utf8 `s`: one
/// column of each kind whose options are set per column above.
fn int_and_text_batch(seed: u64) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, false),
        Field::new("s", DataType::Utf8, true),
    ]));
    random_batch(&mut Rng(seed), &schema, 1000)
}

/// The footer metadata of a file written in memory.
fn footer_of(bytes: &[u8]) -> pq_format::FileMetaData {
    pq_format::read_metadata_from_bytes(&bytes::Bytes::copy_from_slice(bytes), &Default::default())
        .unwrap()
}

/// The metadata of column `c`'s chunk in the first row group.
fn chunk_meta(md: &pq_format::FileMetaData, c: usize) -> &pq_format::ColumnMetaData {
    md.row_groups[0].columns[c].meta_data.as_ref().unwrap()
}

/// A chunk whose first values are mostly distinct drops its dictionary
/// after the first page; one of few values keeps it for every page. Both
/// read back as written, by arrow-rs and by pq.
#[test]
fn a_dictionary_that_does_not_pay_falls_back_after_its_first_page() {
    let n = 100_000i64;
    let distinct: Vec<i64> = (0..n)
        .map(|i| i.wrapping_mul(2_654_435_761) % (1 << 40))
        .collect();
    let few: Vec<i64> = (0..n).map(|i| i % 50).collect();
    let schema = Arc::new(Schema::new(vec![
        Field::new("distinct", DataType::Int64, false),
        Field::new("few", DataType::Int64, false),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(arrow_array::Int64Array::from(distinct)),
            Arc::new(arrow_array::Int64Array::from(few)),
        ],
    )
    .unwrap();
    let options = WriterOptions::builder()
        .set_dictionary_enabled(true)
        .set_data_page_row_count_limit(20_000)
        .build();
    check(
        std::slice::from_ref(&batch),
        options.clone(),
        "dictionary judged",
    );
    let bytes = write(std::slice::from_ref(&batch), options);
    let md = footer_of(&bytes);
    let stats = |c: usize| {
        chunk_meta(&md, c)
            .encoding_stats
            .clone()
            .unwrap()
            .into_iter()
            .filter(|s| s.page_type == pq_format::PageType::DATA_PAGE)
            .map(|s| (s.encoding, s.count))
            .collect::<Vec<_>>()
    };
    // The first page ends where the dictionary is judged (16 384 values),
    // then PLAIN pages of 20 000.
    assert_eq!(
        stats(0),
        [(Encoding::RLE_DICTIONARY, 1), (Encoding::PLAIN, 5)],
        "distinct values"
    );
    assert_eq!(stats(1), [(Encoding::RLE_DICTIONARY, 5)], "few values");
}
