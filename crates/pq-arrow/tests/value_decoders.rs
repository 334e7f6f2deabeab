//! The value decoders of every physical type against the reference: random
//! values of each leaf type written in each encoding the type allows (PLAIN,
//! dictionary, and the others), read back in batches of a random size (so
//! that PLAIN values are taken from part way through a page, decoded pages
//! are sliced and dictionary indices are gathered across batch ends), and
//! compared with the values written and with what arrow-rs reads.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod write_common;

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema};
use pq_arrow::write::{
    DataPageVersion, Encoding, ParquetWriter, WriterOptions, is_preview_encoding,
};
use proptest::prelude::*;
use write_common::*;

/// The leaf types with values to decode (a Null column has none).
fn value_types() -> Vec<DataType> {
    leaf_types()
        .into_iter()
        .filter(|dt| !matches!(dt, DataType::Null))
        .collect()
}

/// The encodings to write `dt` in, each with whether the dictionary is on:
/// PLAIN, the dictionary (falling back to PLAIN), then every other encoding
/// `dt` allows.
fn encodings(dt: &DataType) -> Vec<(Encoding, bool)> {
    let mut all = vec![(Encoding::PLAIN, false), (Encoding::PLAIN, true)];
    all.extend(leaf_encodings(dt).into_iter().map(|e| (e, false)));
    all
}

fn write(batch: &RecordBatch, encoding: Encoding, dict: bool, v2: bool) -> Vec<u8> {
    let options = WriterOptions::builder()
        .set_encoding(encoding)
        .set_dictionary_enabled(dict)
        .set_allow_preview_encodings(is_preview_encoding(encoding))
        .set_writer_version(if v2 {
            DataPageVersion::V2
        } else {
            DataPageVersion::V1
        })
        .set_data_page_size_limit(700)
        .set_data_page_row_count_limit(90)
        .build();
    let mut w = ParquetWriter::try_new(Vec::new(), batch.schema(), options).unwrap();
    w.write(batch).unwrap();
    w.close_into_inner().unwrap().0
}

fn read_ours(bytes: Vec<u8>, batch_size: usize) -> RecordBatch {
    let reader = pq_arrow::ParquetReader::from_bytes(bytes::Bytes::from(bytes)).unwrap();
    let schema = reader.arrow_schema();
    let batches: Vec<RecordBatch> = reader
        .with_batch_size(batch_size)
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    arrow_select::concat::concat_batches(&schema, &batches).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    /// Each case runs every pair of type and encoding, each with its own
    /// rows, batch size and page version drawn from the case's seed.
    #[test]
    fn every_type_and_encoding_reads_as_written(seed in 1u64..u64::MAX) {
        let mut r = Rng(seed);
        for dt in value_types() {
            for (encoding, dict) in encodings(&dt) {
                // Flat, and in a list (repetition levels, empty lists).
                let item = Field::new("item", dt.clone(), true);
                let schema = Arc::new(Schema::new(vec![
                    Field::new("a", dt.clone(), true),
                    Field::new_list("l", item, true),
                ]));
                let rows = r.below(400) as usize;
                let batch_size = 1 + r.below(150) as usize;
                let v2 = r.chance(50);
                let batch = random_batch(&mut r, &schema, rows);
                let bytes = write(&batch, encoding, dict, v2);
                let what = format!(
                    "seed {seed}: {dt} {encoding} dictionary {dict} v2 {v2} rows {rows} \
                     batch {batch_size}"
                );
                if let Some(theirs) = read_arrow_rs_unless_alp(&bytes) {
                    assert_same(&batch, &theirs, &format!("{what} (arrow-rs)"));
                }
                assert_same(&batch, &read_ours(bytes, batch_size), &what);
            }
        }
    }
}
