//! A filter that keeps most rows, dropping one here and there, leaves its
//! late columns many short runs of kept rows per batch. Where a page has
//! no nulls those columns take the kept values by position in one step;
//! where it has nulls, they decode the batch whole and filter it. Either
//! way the rows are those arrow-rs reads with the same test applied by
//! Arrow's filter kernel: here with pages of a few hundred rows (so that
//! batches start and end inside pages, and a batch waits for the next
//! page's bytes mid-way), pages with and without nulls in one column,
//! dictionary and PLAIN pages, from a path and from `Bytes`, at several
//! batch sizes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, BooleanArray, Decimal128Array, Float64Array, Int32Array, Int64Array, RecordBatch,
    StringArray,
};
use arrow_select::concat::concat_batches;
use arrow_select::filter::filter_record_batch;
use bytes::Bytes;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use pq_arrow::predicate::Predicate;
use pq_arrow::{ParquetReader, WriterOptions};

const ROWS: usize = 30_000;

/// A small deterministic generator (xorshift), so that kept and dropped
/// rows fall irregularly.
fn random(n: usize, seed: u64) -> Vec<u64> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect()
}

/// `r` (0 to 99, the tested column), then columns read late: `a` and a
/// decimal without nulls, `s` (few distinct strings: dictionary pages when
/// dictionaries are on), `t` (distinct strings), `n` with nulls in its
/// first third only (pages with nulls, then pages without).
/// Written to `path`; its bytes.
fn file(dictionaries: bool, path: &std::path::Path) -> Bytes {
    let rnd = random(ROWS, 0x9e37_79b9_7f4a_7c15);
    let r: Vec<i32> = rnd.iter().map(|v| (v % 100) as i32).collect();
    let a: Vec<i64> = (0..ROWS as i64).collect();
    let d = Decimal128Array::from((0..ROWS as i128).map(|i| i * 7 - 5).collect::<Vec<_>>())
        .with_precision_and_scale(15, 2)
        .unwrap();
    let s: Vec<&str> = rnd
        .iter()
        .map(|v| ["AIR", "MAIL", "SHIP", "TRUCK"][(v >> 8) as usize % 4])
        .collect();
    let t: Vec<String> = (0..ROWS).map(|i| format!("row {i}")).collect();
    let n: Vec<Option<f64>> = (0..ROWS)
        .map(|i| (i >= ROWS / 3 || !rnd[i].is_multiple_of(5)).then_some(i as f64 / 4.0))
        .collect();
    let batch = RecordBatch::try_from_iter([
        ("r", Arc::new(Int32Array::from(r)) as ArrayRef),
        ("a", Arc::new(Int64Array::from(a)) as ArrayRef),
        ("d", Arc::new(d) as ArrayRef),
        ("s", Arc::new(StringArray::from(s)) as ArrayRef),
        ("t", Arc::new(StringArray::from(t)) as ArrayRef),
        ("n", Arc::new(Float64Array::from(n)) as ArrayRef),
    ])
    .unwrap();
    let options = WriterOptions::builder()
        .set_max_row_group_size(12_000)
        .set_data_page_row_count_limit(700)
        .set_dictionary_enabled(dictionaries)
        .build();
    pq_arrow::write_parquet(path, &[batch], options).unwrap();
    Bytes::from(std::fs::read(path).unwrap())
}

/// The file read whole by arrow-rs, cut by Arrow's filter kernel to the
/// rows where `keep(r)` holds.
fn expected(file: &Bytes, keep: impl Fn(i32) -> bool) -> RecordBatch {
    let reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .unwrap()
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    let all = concat_batches(&batches[0].schema(), &batches).unwrap();
    let mask: BooleanArray = all
        .column(0)
        .as_primitive::<Int32Type>()
        .iter()
        .map(|r| Some(r.is_some_and(&keep)))
        .collect();
    filter_record_batch(&all, &mask).unwrap()
}

fn collect(mut reader: pq_arrow::ParquetRecordBatchReader) -> RecordBatch {
    let mut out = Vec::new();
    while let Some(b) = reader.next_batch().unwrap() {
        out.push(b);
    }
    concat_batches(&out[0].schema(), &out).unwrap()
}

/// A predicate, and the same test of `r` for the expected rows.
type Case = (&'static str, fn(i32) -> bool);

#[test]
fn rows_kept_here_and_there_are_those_arrow_filters() {
    let cases: [Case; 4] = [
        ("r != 50", |r| r != 50),
        ("r < 95", |r| r < 95),
        ("r >= 20", |r| r >= 20),
        ("r < 60", |r| r < 60),
    ];
    for dictionaries in [true, false] {
        let path = std::env::temp_dir().join(format!(
            "pq-dense-filter-{}-{dictionaries}.parquet",
            std::process::id()
        ));
        let bytes = file(dictionaries, &path);
        for (p, keep) in cases {
            let want = expected(&bytes, keep);
            assert!(
                want.num_rows() > ROWS / 2,
                "{p}: a filter keeping most rows"
            );
            for batch_size in [333, 1024, 8192] {
                let what = format!("{p}, dictionaries {dictionaries}, batches of {batch_size}");
                let from_path = ParquetReader::open(&path)
                    .unwrap()
                    .with_batch_size(batch_size)
                    .with_predicate(Predicate::parse(p).unwrap())
                    .build()
                    .unwrap();
                assert_eq!(collect(from_path), want, "{what}, from a path");
                let from_bytes = ParquetReader::from_bytes(bytes.clone())
                    .unwrap()
                    .with_batch_size(batch_size)
                    .with_predicate(Predicate::parse(p).unwrap())
                    .build()
                    .unwrap();
                assert_eq!(collect(from_bytes), want, "{what}, from Bytes");
            }
        }
        std::fs::remove_file(&path).unwrap();
    }
}
