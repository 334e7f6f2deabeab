//! The reader's fast paths for definition levels against arrow-rs's reader:
//! runs of defined values straddling page and batch boundaries, random
//! nulls, no nulls and only nulls, in flat, struct and list columns, v1 and
//! v2 pages, PLAIN and dictionary values, read at odd batch sizes. A batch
//! without nulls must carry no validity buffer, as arrow-rs's do not.
//! Chunks whose dictionaries overflow into other encodings (PLAIN, DELTA,
//! BYTE_STREAM_SPLIT) and row groups of several sizes check that a
//! column's buffers, handed from one chunk to the next, never carry values
//! over. Reads with a row selection check that skipped rows leave each
//! decoder where the next selected row starts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use arrow_array::builder::{Int32Builder, ListBuilder};
use arrow_array::{
    Array, ArrayRef, Decimal128Array, Float64Array, Int32Array, RecordBatch, RecordBatchReader,
    StringArray, StructArray,
};
use arrow_schema::{DataType, Field, Fields, Schema};
use bytes::Bytes;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::properties::{WriterProperties, WriterVersion};
use proptest::prelude::*;

/// Validity as runs of defined or null values, so that long runs of
/// defined values cross pages and batches.
fn validity() -> impl Strategy<Value = Vec<bool>> {
    let runs = proptest::collection::vec((any::<bool>(), 1usize..600), 0..12);
    prop_oneof![
        // Runs of either.
        runs.prop_map(|r| r
            .into_iter()
            .flat_map(|(v, n)| std::iter::repeat_n(v, n))
            .collect()),
        // Scattered nulls at some density, no nulls, only nulls.
        (0usize..3000, 0u32..=100, any::<u64>()).prop_map(|(n, pct, seed)| {
            let mut s = seed | 1;
            (0..n)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    (s % 100) as u32 >= pct
                })
                .collect()
        }),
    ]
}

fn batch(valid: &[bool]) -> RecordBatch {
    let n = valid.len();
    let opt = |i: usize| valid[i];
    let ints: Int32Array = (0..n)
        .map(|i| opt(i).then_some(i as i32 * 7 - 900))
        .collect();
    let doubles: Float64Array = (0..n).map(|i| opt(i).then_some(i as f64 / 3.0)).collect();
    let strings: StringArray = (0..n)
        .map(|i| opt(i).then(|| ["a", "bé", "", "ccc", "δδ"][i % 5].repeat(i % 4)))
        .collect();
    // Precision 25: written as FIXED_LEN_BYTE_ARRAY.
    let decimals = (0..n)
        .map(|i| opt(i).then_some((i as i128 - 1000) * 1_000_000_007))
        .collect::<Decimal128Array>()
        .with_precision_and_scale(25, 2)
        .unwrap();
    // A struct that is null every 5th row over a leaf with the nulls
    // above: two definition levels below the max.
    let inner: Int32Array = (0..n).map(|i| opt(i).then_some(i as i32)).collect();
    let struct_valid: Vec<bool> = (0..n).map(|i| i % 5 != 4).collect();
    let structs = StructArray::new(
        Fields::from(vec![Field::new("x", DataType::Int32, true)]),
        vec![Arc::new(inner) as ArrayRef],
        Some(struct_valid.into()),
    );
    // Lists of 0 to 2 elements, null where the value is.
    let mut lists = ListBuilder::new(Int32Builder::new());
    for i in 0..n {
        if opt(i) {
            for k in 0..i % 3 {
                lists.values().append_option((k != 1).then_some(k as i32));
            }
            lists.append(true);
        } else {
            lists.append(false);
        }
    }
    let lists = lists.finish();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(ints),
        Arc::new(doubles),
        Arc::new(strings),
        Arc::new(decimals),
        Arc::new(structs),
        Arc::new(lists),
    ];
    let fields: Vec<Field> = columns
        .iter()
        .zip(["i", "f", "s", "d", "st", "l"])
        .map(|(c, name)| Field::new(name, c.data_type().clone(), true))
        .collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}

/// How the values are encoded besides dictionaries: arrow-rs's fallback
/// when a dictionary outgrows its page (every page, without dictionaries).
#[derive(Debug, Clone, Copy)]
enum Values {
    /// PLAIN throughout.
    Plain,
    /// DELTA_BINARY_PACKED integers, DELTA_LENGTH_BYTE_ARRAY strings and
    /// BYTE_STREAM_SPLIT doubles.
    Other,
}

fn write(
    batch: &RecordBatch,
    page_rows: usize,
    dictionary: bool,
    v2: bool,
    (values, dict_limit, group_rows): (Values, usize, usize),
) -> Bytes {
    let mut props = WriterProperties::builder()
        .set_data_page_row_count_limit(page_rows)
        .set_write_batch_size(page_rows)
        .set_dictionary_enabled(dictionary)
        .set_dictionary_page_size_limit(dict_limit)
        .set_max_row_group_row_count(Some(group_rows))
        .set_writer_version(if v2 {
            WriterVersion::PARQUET_2_0
        } else {
            WriterVersion::PARQUET_1_0
        });
    if let Values::Other = values {
        use parquet::basic::Encoding;
        use parquet::schema::types::ColumnPath;
        let col = |name: &str| ColumnPath::from(name);
        props = props
            .set_column_encoding(col("i"), Encoding::DELTA_BINARY_PACKED)
            .set_column_encoding(col("s"), Encoding::DELTA_LENGTH_BYTE_ARRAY)
            .set_column_encoding(col("f"), Encoding::BYTE_STREAM_SPLIT)
            .set_column_encoding(
                ColumnPath::new(vec!["st".into(), "x".into()]),
                Encoding::DELTA_BINARY_PACKED,
            );
    }
    let props = props.build();
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

fn read_arrow_rs(bytes: &Bytes) -> RecordBatch {
    let r = ParquetRecordBatchReaderBuilder::try_new(bytes.clone())
        .unwrap()
        .build()
        .unwrap();
    let schema = r.schema();
    let batches: Vec<RecordBatch> = r.collect::<Result<_, _>>().unwrap();
    arrow_select::concat::concat_batches(&schema, &batches).unwrap()
}

/// No array in `a`, nested ones included, has a validity buffer without a
/// null.
fn no_empty_validity(a: &dyn Array, path: &str) -> Result<(), TestCaseError> {
    if let Some(n) = a.nulls() {
        prop_assert!(
            n.null_count() > 0,
            "{path}: a validity buffer without nulls"
        );
    }
    for (i, child) in a.to_data().child_data().iter().enumerate() {
        let child = arrow_array::make_array(child.clone());
        no_empty_validity(child.as_ref(), &format!("{path}.{i}"))?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn batches_match_arrow_rs(
        valid in validity(),
        page_rows in prop_oneof![Just(1usize), 3usize..40, 100usize..1500],
        batch_size in prop_oneof![Just(1usize), 2usize..50, 500usize..3000],
        dictionary in any::<bool>(),
        v2 in any::<bool>(),
        values in prop_oneof![Just(Values::Plain), Just(Values::Other)],
        // Small limits make a chunk's dictionary overflow part way.
        dict_limit in prop_oneof![Just(1usize << 20), 16usize..400],
        group_rows in prop_oneof![Just(2500usize), 200usize..1200],
        runs in proptest::collection::vec(1usize..700, 0..10),
    ) {
        let b = batch(&valid);
        let bytes = write(&b, page_rows, dictionary, v2, (values, dict_limit, group_rows));
        let expected = read_arrow_rs(&bytes);
        let reader = pq_arrow::ParquetReader::from_bytes(bytes.clone())
            .unwrap()
            .with_batch_size(batch_size)
            .build()
            .unwrap();
        let schema = reader.schema();
        let batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
        for got in &batches {
            prop_assert!(got.num_rows() <= batch_size);
            for (c, f) in got.columns().iter().zip(schema.fields()) {
                no_empty_validity(c.as_ref(), f.name())?;
            }
        }
        let got = arrow_select::concat::concat_batches(&schema, &batches).unwrap();
        prop_assert_eq!(got.num_rows(), valid.len());
        for (i, f) in schema.fields().iter().enumerate() {
            let (a, e) = (got.column(i), expected.column(i));
            prop_assert_eq!(a.as_ref(), e.as_ref(), "column {}", f.name());
        }

        // Runs of rows skipped and selected, alternately: skipped values
        // are passed over inside pages (and whole pages from their
        // headers), which must leave every decoder where the next selected
        // row starts.
        let mut selectors = Vec::new();
        let mut wanted = Vec::new();
        let mut row = 0;
        for (k, n) in runs.iter().enumerate() {
            let n = (*n).min(valid.len() - row);
            if k % 2 == 0 {
                selectors.push(pq_arrow::RowSelector::skip(n));
            } else {
                selectors.push(pq_arrow::RowSelector::select(n));
                wanted.push(expected.slice(row, n));
            }
            row += n;
        }
        selectors.push(pq_arrow::RowSelector::select(valid.len() - row));
        wanted.push(expected.slice(row, valid.len() - row));
        let want = arrow_select::concat::concat_batches(&expected.schema(), &wanted).unwrap();
        let reader = pq_arrow::ParquetReader::from_bytes(bytes)
            .unwrap()
            .with_batch_size(batch_size)
            .with_row_selection(selectors.into())
            .build()
            .unwrap();
        let batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
        let got = arrow_select::concat::concat_batches(&schema, &batches).unwrap();
        prop_assert_eq!(got.num_rows(), want.num_rows());
        for (i, f) in schema.fields().iter().enumerate() {
            let (a, e) = (got.column(i), want.column(i));
            prop_assert_eq!(a.as_ref(), e.as_ref(), "column {} with a selection", f.name());
        }
    }
}
