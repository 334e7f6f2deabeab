//! `with_row_selection` reads exactly the rows a `RowSelection` selects:
//! random selections over a file of several row groups and small pages
//! give the rows a model takes from the whole file (and, for selections
//! as long as the file, the rows arrow-rs's `with_row_selection` gives);
//! with a predicate, an offset and a limit, and with row groups chosen out
//! of order, the rows both keep, counted as arrow-rs counts them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ops::Range;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_select::concat::concat_batches;
use bytes::Bytes;
use pq_arrow::predicate::Predicate;
use pq_arrow::{ParquetReader, ParquetWriter, RowSelection, RowSelector, WriterOptions};
use pq_testkit::Rng;

mod read_common;

const ROWS: usize = 3000;

/// Three row groups of 1000 rows in pages of 100, with an `id` that is the
/// row's number, a value, and a string with nulls.
fn file() -> (Bytes, RecordBatch) {
    let ids: Vec<i64> = (0..ROWS as i64).collect();
    let v: Vec<i64> = ids.iter().map(|i| (i * 37) % 100).collect();
    let s: Vec<Option<String>> = ids
        .iter()
        .map(|i| (i % 7 != 0).then(|| format!("s{i}")))
        .collect();
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
        ("v", Arc::new(Int64Array::from(v))),
        ("s", Arc::new(StringArray::from(s))),
    ])
    .unwrap();
    let options = WriterOptions::builder()
        .set_max_row_group_size(1000)
        .set_data_page_row_count_limit(100)
        .build();
    let mut out = Vec::new();
    let mut w = ParquetWriter::try_new(&mut out, batch.schema(), options).unwrap();
    for start in (0..ROWS).step_by(250) {
        w.write(&batch.slice(start, 250)).unwrap();
    }
    w.close().unwrap();
    (Bytes::from(out), batch)
}

fn read(
    file: &Bytes,
    selection: RowSelection,
    build: impl FnOnce(ParquetReader) -> ParquetReader,
) -> pq_arrow::Result<Option<RecordBatch>> {
    let r = build(ParquetReader::from_bytes(file.clone())?.with_batch_size(128));
    let batches = r
        .with_row_selection(selection)
        .build()?
        .collect::<Result<Vec<_>, _>>()?;
    for b in batches.iter().rev().skip(1) {
        assert!(
            (64..=128).contains(&b.num_rows()),
            "every batch but the last holds half a batch to a batch: {}",
            b.num_rows()
        );
    }
    Ok(batches
        .first()
        .map(|first| concat_batches(&first.schema(), &batches).unwrap()))
}

/// A random selection of random runs, over `rows` rows or fewer.
fn random_selection(rng: &mut Rng, rows: usize) -> RowSelection {
    let cover = if rng.below(4) == 0 {
        rng.index(rows + 1)
    } else {
        rows
    };
    let mut runs = Vec::new();
    let mut at = 0;
    while at < cover {
        let longest = if rng.below(2) == 0 { 20 } else { 400 };
        let n = (1 + rng.index(longest)).min(cover - at);
        runs.push(if rng.below(2) == 0 {
            RowSelector::select(n)
        } else {
            RowSelector::skip(n)
        });
        at += n;
    }
    RowSelection::from(runs)
}

fn selected_ranges(selection: &RowSelection) -> Vec<Range<usize>> {
    selection.ranges()
}

/// The rows of `table` in `ranges`, in order.
fn take(table: &RecordBatch, ranges: &[Range<usize>]) -> Option<RecordBatch> {
    let parts: Vec<RecordBatch> = ranges
        .iter()
        .filter(|r| !r.is_empty())
        .map(|r| table.slice(r.start, r.end - r.start))
        .collect();
    (!parts.is_empty()).then(|| concat_batches(&table.schema(), &parts).unwrap())
}

fn arrow_rs(file: &Bytes, selection: &RowSelection) -> Option<RecordBatch> {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let r = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .unwrap()
        .with_row_selection(read_common::arrow_rs_selection(selection))
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = r.collect::<Result<_, _>>().unwrap();
    let batches: Vec<RecordBatch> = batches.into_iter().filter(|b| b.num_rows() > 0).collect();
    batches
        .first()
        .map(|f| concat_batches(&f.schema(), &batches).unwrap())
}

#[test]
fn random_selections_read_exactly_their_rows() {
    let (file, table) = file();
    let mut rng = Rng(2024);
    for round in 0..150 {
        let selection = random_selection(&mut rng, ROWS);
        // Every column is read late, for the selected rows only; on
        // decoding threads every third round.
        let threads = 1 + 2 * usize::from(round % 3 == 0);
        let got = read(&file, selection.clone(), |r| r.with_threads(threads)).unwrap();
        let want = take(&table, &selected_ranges(&selection));
        assert_eq!(got, want, "round {round}, {threads} threads: {selection:?}");
        let covered: usize = selection.iter().map(|s| s.row_count).sum();
        if covered == ROWS {
            assert_eq!(arrow_rs(&file, &selection), want, "round {round}: arrow-rs");
        }
    }
}

#[test]
fn with_a_predicate_offset_and_limit_the_rows_both_keep() {
    let (file, table) = file();
    let v = table
        .column(1)
        .as_any()
        .downcast_ref::<Int64Array>()
        .unwrap()
        .clone();
    let mut rng = Rng(7);
    for round in 0..60 {
        let selection = random_selection(&mut rng, ROWS);
        let offset = rng.index(50);
        let limit = if rng.below(2) == 0 {
            Some(rng.index(400))
        } else {
            None
        };
        // The model: selected rows with v < 50, then offset and limit.
        let keep: Vec<Range<usize>> = selected_ranges(&selection)
            .into_iter()
            .flat_map(|r| r.filter(|&i| v.value(i) < 50).map(|i| i..i + 1))
            .skip(offset)
            .take(limit.unwrap_or(usize::MAX))
            .collect();
        let want = take(&table, &keep);
        let got = read(&file, selection.clone(), |r| {
            let r = r
                .with_predicate(Predicate::parse("v < 50").unwrap())
                .with_offset(offset);
            match limit {
                Some(l) => r.with_limit(l),
                None => r,
            }
        })
        .unwrap();
        assert_eq!(
            got, want,
            "round {round}: offset {offset} limit {limit:?} {selection:?}"
        );
        if let Some(g) = &got {
            let got_ids = g.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
            assert!(got_ids.iter().all(|id| v.value(id.unwrap() as usize) < 50));
        }
    }
}

#[test]
fn the_selection_counts_the_chosen_row_groups_in_their_order() {
    let (file, table) = file();
    // Row groups 2 then 0: rows 2000..3000 then 0..1000.
    let selection = RowSelection::from(vec![
        RowSelector::skip(990),
        RowSelector::select(20),
        RowSelector::skip(500),
        RowSelector::select(3),
    ]);
    let got = read(&file, selection, |r| r.with_row_groups([2, 0])).unwrap();
    let want = take(&table, &[2990..3000, 0..10, 510..513]);
    assert_eq!(got, want);
}

#[test]
fn a_selection_longer_than_the_rows_is_an_error() {
    let (file, _) = file();
    let selection = RowSelection::from(vec![RowSelector::select(ROWS + 1)]);
    let err = read(&file, selection, |r| r).unwrap_err().to_string();
    assert!(err.contains("3001 rows") && err.contains("3000"), "{err}");
    // Over one row group, the rows are that row group's.
    let selection = RowSelection::from(vec![RowSelector::select(1001)]);
    let err = read(&file, selection, |r| r.with_row_groups([1])).unwrap_err();
    assert!(err.to_string().contains("hold 1000"), "{err}");
}

#[test]
fn selecting_nothing_reads_nothing() {
    let (file, _) = file();
    let selection = RowSelection::from(vec![RowSelector::skip(ROWS)]);
    assert_eq!(read(&file, selection, |r| r).unwrap(), None);
    let empty = RowSelection::from(Vec::<RowSelector>::new());
    assert_eq!(read(&file, empty, |r| r).unwrap(), None);
}

/// A chunk's dictionary is decoded when a page encoded with it is read, not
/// before: a selection of the pages written PLAIN after the dictionary
/// overflowed reads them even when the dictionary page is corrupt, and a
/// selection that reaches a dictionary-encoded page still fails, naming
/// the dictionary page.
#[test]
fn a_dictionary_is_decoded_only_for_the_pages_that_use_it() {
    let ids: Vec<i64> = (0..1000).collect();
    let s: Vec<String> = ids.iter().map(|i| format!("value number {i:05}")).collect();
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
        ("s", Arc::new(StringArray::from(s))),
    ])
    .unwrap();
    let options = WriterOptions::builder()
        .set_compression(pq_arrow::write::Codec::Uncompressed)
        .set_data_page_row_count_limit(100)
        .set_dictionary_page_size_limit(2000)
        .build();
    let mut out = Vec::new();
    let mut w = ParquetWriter::try_new(&mut out, batch.schema(), options).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let good = Bytes::from(out.clone());
    let md = ParquetReader::from_bytes(good.clone())
        .unwrap()
        .metadata()
        .clone();
    let chunk = md.row_groups[0].columns[1].meta_data.clone().unwrap();
    let dict_at =
        usize::try_from(chunk.dictionary_page_offset.expect("a dictionary page")).unwrap();
    // The dictionary's first value's length, past the page header, made huge.
    let (_, header_len) = <pq_format::PageHeader as pq_format::ThriftDecode>::decode_prefix(
        &out[dict_at..],
        &pq_format::Limits::default(),
    )
    .unwrap();
    out[dict_at + header_len..dict_at + header_len + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let bad = Bytes::from(out);

    // The last 100 rows were written PLAIN (the dictionary held ~90 values).
    let tail = RowSelection::from(vec![RowSelector::skip(900), RowSelector::select(100)]);
    let read_tail = |file: &Bytes| read(file, tail.clone(), |r| r).unwrap().unwrap();
    assert_eq!(read_tail(&bad), read_tail(&good));
    assert_eq!(read_tail(&bad), batch.slice(900, 100));

    let head = RowSelection::from(vec![RowSelector::select(10)]);
    let err = read(&bad, head.clone(), |r| r).unwrap_err().to_string();
    assert!(
        err.contains("page 0") && err.contains(&format!("offset {dict_at}")),
        "{err}"
    );
    assert_eq!(
        read(&good, head, |r| r).unwrap().unwrap(),
        batch.slice(0, 10)
    );
}
