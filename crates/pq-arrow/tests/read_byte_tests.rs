//! A predicate that is one `=`, `!=`, `IN`, `NOT IN` or `[NOT] LIKE
//! 'prefix%'` of a string or binary column is tested where the column's values lie (see
//! `pq_arrow::column::tested`): the rows it returns must be those Arrow's
//! comparison kernels pick from the whole read, whatever the writer, the
//! encoding (dictionary, a dictionary that overflows to PLAIN, PLAIN,
//! DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY), the batch size, the threads
//! and the row selection.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Int64Array, LargeStringArray, RecordBatch, Scalar,
    StringArray,
};
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use pq_arrow::predicate::{Predicate, col};
use pq_arrow::{ParquetReader, RowSelection, WriterOptions};
use pq_format::Encoding;
use pq_testkit::Rng;

const ROWS: usize = 3000;

/// Values of lengths 0 to 20 over two letters, so that many share a length
/// and a prefix with any needle (the tests of length and of first and last
/// words each let wrong values through alone); one in ten null.
fn values(rng: &mut Rng) -> Vec<Option<String>> {
    (0..ROWS)
        .map(|_| {
            (!rng.chance(10)).then(|| {
                let len = rng.index(21);
                (0..len).map(|_| ['a', 'b'][rng.index(2)]).collect()
            })
        })
        .collect()
}

fn table(rng: &mut Rng) -> RecordBatch {
    let v = values(rng);
    let schema = Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("s", DataType::Utf8, true),
        Field::new("l", DataType::LargeUtf8, true),
        Field::new("b", DataType::Binary, true),
    ]);
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values(0..ROWS as i64)),
        Arc::new(StringArray::from(v.clone())),
        Arc::new(LargeStringArray::from(v.clone())),
        Arc::new(BinaryArray::from_iter(
            v.iter().map(|s| s.as_deref().map(str::as_bytes)),
        )),
    ];
    RecordBatch::try_new(Arc::new(schema), columns).unwrap()
}

fn write_pq(batch: &RecordBatch, options: pq_arrow::write::WriterOptionsBuilder) -> Bytes {
    let options = options
        .set_max_row_group_size(1000)
        .set_data_page_row_count_limit(150)
        .build();
    let mut out = Vec::new();
    let mut w = pq_arrow::ParquetWriter::try_new(&mut out, batch.schema(), options).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

fn write_arrow_rs(batch: &RecordBatch) -> Bytes {
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(1000))
        .set_data_page_row_count_limit(100)
        .set_write_batch_size(100)
        // Small dictionaries: chunks that fall back to PLAIN part way.
        .set_dictionary_page_size_limit(400)
        .build();
    let mut out = Vec::new();
    let mut w =
        parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

fn files(batch: &RecordBatch) -> Vec<(&'static str, Bytes)> {
    let pq = WriterOptions::builder;
    // The string columns in `encoding`, the ids as by default.
    let delta = |encoding| {
        ["s", "l", "b"].into_iter().fold(pq(), |o, c| {
            o.set_column_dictionary_enabled(c, false)
                .set_column_encoding(c, encoding)
        })
    };
    vec![
        ("pq dictionary", write_pq(batch, pq())),
        (
            "pq small dictionary",
            write_pq(
                batch,
                pq().set_dictionary_page_size_limit(300)
                    .set_dictionary_max_entries(40),
            ),
        ),
        (
            "pq PLAIN",
            write_pq(batch, pq().set_dictionary_enabled(false)),
        ),
        (
            "pq DELTA_LENGTH_BYTE_ARRAY",
            write_pq(batch, delta(Encoding::DELTA_LENGTH_BYTE_ARRAY)),
        ),
        (
            "pq DELTA_BYTE_ARRAY",
            write_pq(batch, delta(Encoding::DELTA_BYTE_ARRAY)),
        ),
        ("arrow-rs", write_arrow_rs(batch)),
    ]
}

/// Every row a read returns, as one batch, and the rows it tested and
/// found matching.
fn read(
    file: &Bytes,
    p: Option<Predicate>,
    selection: Option<RowSelection>,
    batch_size: usize,
    threads: usize,
) -> (RecordBatch, u64) {
    let mut b = ParquetReader::from_bytes(file.clone())
        .unwrap()
        .with_batch_size(batch_size)
        .with_threads(threads);
    if let Some(p) = p {
        b = b.with_predicate(p);
    }
    if let Some(s) = selection {
        b = b.with_row_selection(s);
    }
    let mut reader = b.build().unwrap_or_else(|e| panic!("{e}"));
    let mut batches = Vec::new();
    while let Some(batch) = reader.next_batch().unwrap_or_else(|e| panic!("{e}")) {
        batches.push(batch);
    }
    let all = arrow_select::concat::concat_batches(&reader.schema(), &batches).unwrap();
    let matched = reader.pruning_metrics().map_or(0, |m| m.rows_matched);
    (all, matched)
}

/// What the test picks of `column`, by Arrow's kernels: a null is not
/// kept.
fn expected(column: &ArrayRef, needles: &[&str], negated: bool) -> BooleanArray {
    let mut any: Option<BooleanArray> = None;
    for n in needles {
        let needle: ArrayRef = match column.data_type() {
            DataType::Utf8 => Arc::new(StringArray::from(vec![*n])),
            DataType::LargeUtf8 => Arc::new(LargeStringArray::from(vec![*n])),
            _ => Arc::new(BinaryArray::from_iter_values([n.as_bytes()])),
        };
        let eq = arrow_ord::cmp::eq(column, &Scalar::new(needle)).unwrap();
        any = Some(match any {
            None => eq,
            Some(a) => arrow_arith::boolean::or_kleene(&a, &eq).unwrap(),
        });
    }
    let any = any.unwrap();
    if negated {
        arrow_arith::boolean::not(&any).unwrap()
    } else {
        any
    }
}

/// What `LIKE 'prefix%'` (with `negated`, `NOT LIKE`) keeps of `column`.
fn expected_prefix(column: &ArrayRef, prefix: &str, negated: bool) -> BooleanArray {
    let s: Vec<Option<bool>> = (0..column.len())
        .map(|i| {
            column.is_valid(i).then(|| {
                let v = match column.data_type() {
                    DataType::Utf8 => column.as_string::<i32>().value(i),
                    _ => column.as_string::<i64>().value(i),
                };
                v.starts_with(prefix) != negated
            })
        })
        .collect();
    BooleanArray::from(s)
}

/// A needle: a value of the table (of some length), or one no value has.
fn needle(rng: &mut Rng, batch: &RecordBatch) -> String {
    let s = batch.column(1).as_string::<i32>();
    match rng.index(4) {
        0 => [
            "",
            "ab",
            "abab",
            "bbbbbbba",
            "zzzzzzzzzzzz",
            "aaaaaaaaaaaaaaaaaaaaaaaa",
        ][rng.index(6)]
        .to_string(),
        _ => loop {
            let i = rng.index(ROWS);
            if s.is_valid(i) {
                return s.value(i).to_string();
            }
        },
    }
}

#[test]
fn one_test_of_a_string_column_keeps_what_arrow_keeps() {
    let mut rng = Rng(41);
    let batch = table(&mut rng);
    let mut checked = 0;
    for (writer, file) in files(&batch) {
        let (whole, _) = read(&file, None, None, 8192, 1);
        assert_eq!(whole, batch, "{writer}: the whole read");
        for round in 0..24 {
            let column = ["s", "l", "b"][round % 3];
            // One needle, a few, or a list long enough to be a set.
            let n = match rng.index(5) {
                0 | 1 => 1,
                2 | 3 => 2 + rng.index(3),
                _ => 17 + rng.index(10),
            };
            let needles: Vec<String> = (0..n).map(|_| needle(&mut rng, &batch)).collect();
            let negated = rng.chance(30);
            let refs: Vec<&str> = needles.iter().map(String::as_str).collect();
            let whole_column = whole.column_by_name(column).unwrap();
            // A prefix (LIKE 'p%') now and then, on the string columns.
            let (p, keep) = if column != "b" && rng.chance(25) {
                let prefix: String = needles[0].chars().take(rng.index(12)).collect();
                let like = col(column).like(format!("{prefix}%"));
                let p = if negated { like.not() } else { like };
                (p, expected_prefix(whole_column, &prefix, negated))
            } else {
                let p = match (needles.as_slice(), negated) {
                    ([one], false) => col(column).eq(one.as_str()),
                    ([one], true) => col(column).not_eq(one.as_str()),
                    (many, false) => col(column).in_list(many.iter().map(String::as_str)),
                    (many, true) => col(column).in_list(many.iter().map(String::as_str)).not(),
                };
                (p, expected(whole_column, &refs, negated))
            };
            // Now and then with a conjunct on another column, before or
            // after the test, or one on the same column (not split off).
            let (p, keep) = match rng.index(5) {
                0 | 1 => {
                    let k = rng.index(ROWS) as i64;
                    let ids = whole
                        .column(0)
                        .as_primitive::<arrow_array::types::Int64Type>();
                    let below = BooleanArray::from_unary(ids, |v| v < k);
                    let both = arrow_arith::boolean::and(&keep, &below).unwrap();
                    let other = col("id").lt(k);
                    if rng.chance(50) {
                        (p.and(other), both)
                    } else {
                        (other.and(p), both)
                    }
                }
                2 => {
                    let same = col(column).is_not_null();
                    (p.and(same), keep)
                }
                _ => (p, keep),
            };
            let want = arrow_select::filter::filter_record_batch(&whole, &keep).unwrap();
            let batch_size = [7, 100, 8192][round % 3];
            let threads = if round % 4 == 3 { 3 } else { 1 };
            let at = format!("{writer}: {p} ({batch_size} rows a batch, {threads} threads)");
            let (got, matched) = read(&file, Some(p.clone()), None, batch_size, threads);
            assert_eq!(got, want, "{at}");
            assert_eq!(matched, want.num_rows() as u64, "{at}");
            // With a row selection: the rows both keep.
            let ranges = [100..900, 1200..1250, 2990..3000];
            let selection = RowSelection::from_consecutive_ranges(ranges.clone(), ROWS);
            let chosen = BooleanArray::from(
                (0..ROWS)
                    .map(|r| ranges.iter().any(|x| x.contains(&r)))
                    .collect::<Vec<_>>(),
            );
            let both = arrow_arith::boolean::and(&keep, &chosen).unwrap();
            let want = arrow_select::filter::filter_record_batch(&whole, &both).unwrap();
            let (got, _) = read(&file, Some(p), Some(selection), batch_size, threads);
            assert_eq!(got, want, "{at}, with a row selection");
            checked += 1;
        }
    }
    assert_eq!(checked, 6 * 24);
}

#[test]
fn a_string_that_is_not_utf8_fails_the_read_whether_it_passes_or_not() {
    // Written valid ("é" is C3 A9), then made invalid where it lies (FF FE
    // is no UTF-8): uncompressed PLAIN pages without checksums, so the
    // change reaches the reader as it is.
    let batch = RecordBatch::try_new(
        Arc::new(Schema::new(vec![Field::new("s", DataType::Utf8, false)])),
        vec![Arc::new(StringArray::from(vec![
            "ok",
            "\u{e9}\u{e9}",
            "ok",
        ]))],
    )
    .unwrap();
    let options = WriterOptions::builder()
        .set_dictionary_enabled(false)
        .set_compression(pq_compress::Codec::Uncompressed);
    let mut file = write_pq(&batch, options).to_vec();
    let mut changed = 0;
    for k in 0..file.len().saturating_sub(3) {
        if file[k..k + 4] == [0xc3, 0xa9, 0xc3, 0xa9] {
            file[k..k + 4].copy_from_slice(&[0xff, 0xfe, 0xff, 0xfe]);
            changed += 1;
        }
    }
    assert!(changed > 0);
    let file = Bytes::from(file);
    let read = |p: Predicate| -> pq_arrow::Result<usize> {
        let mut r = ParquetReader::from_bytes(file.clone())?
            .with_predicate(p)
            .build()?;
        let mut n = 0;
        while let Some(b) = r.next_batch()? {
            n += b.num_rows();
        }
        Ok(n)
    };
    for p in [col("s").eq("ok"), col("s").not_eq("ok"), col("s").eq("x")] {
        let err = read(p.clone()).expect_err("an invalid string read as data");
        assert!(err.to_string().contains("UTF-8"), "{p}: {err}");
    }
}
