//! The columns a filtered read decodes late read, through their offset
//! index, only the pages that hold kept rows: the pages of rows the
//! predicate rules out are neither fetched nor decoded, however many
//! batches a page spans, and the rows are those of a read without the
//! page index.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use bytes::Bytes;
use pq_arrow::predicate::{Predicate, PruningOptions};
use pq_arrow::{ParquetReader, WriterOptions};

const ROWS: i64 = 200_000;

/// Names in no order (so that the page index cannot rule a page out), ids
/// and values to read late; pages of 10 000 rows, row groups of 100 000:
/// pages far enough apart that reads of two columns' pages are not merged
/// into one across the pages between.
fn file() -> Bytes {
    let ids: Vec<i64> = (0..ROWS).collect();
    let names: Vec<String> = ids
        .iter()
        .map(|i| format!("n{:06}", (i * 7_919) % ROWS))
        .collect();
    let values: Vec<f64> = ids.iter().map(|&i| i as f64 / 3.0).collect();
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
        ("name", Arc::new(StringArray::from(names)) as ArrayRef),
        ("value", Arc::new(Float64Array::from(values)) as ArrayRef),
    ])
    .unwrap();
    let options = WriterOptions::builder()
        .set_max_row_group_size(100_000)
        .set_data_page_row_count_limit(10_000)
        .set_dictionary_enabled(false)
        .build();
    let mut out = Vec::new();
    let mut w = pq_arrow::ParquetWriter::try_new(&mut out, batch.schema(), options).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

/// The file written where a reader opens it by path (named `name`): each
/// read then reads what it asks for (from `Bytes`, a read is a slice to
/// the file's end, and the bytes asked for tell less).
fn on_disk(file: &Bytes, name: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!(
        "pq-late-pages-{}-{name}.parquet",
        std::process::id()
    ));
    std::fs::write(&path, file).unwrap();
    path
}

/// The rows a filtered read returns, and the bytes it read.
fn read(
    path: &std::path::Path,
    p: &str,
    pruning: PruningOptions,
    batch_size: usize,
) -> (Vec<RecordBatch>, u64) {
    let mut reader = ParquetReader::open(path)
        .unwrap()
        .with_pruning(pruning)
        .with_batch_size(batch_size)
        .with_predicate(Predicate::parse(p).unwrap())
        .build()
        .unwrap();
    let mut out = Vec::new();
    while let Some(b) = reader.next_batch().unwrap() {
        out.push(b);
    }
    (out, reader.bytes_read())
}

#[test]
fn late_columns_read_only_the_pages_of_kept_rows() {
    let file = file();
    let path = on_disk(&file, "predicate");
    let md = pq_format::read_metadata_from_bytes(&file, &pq_format::Limits::default()).unwrap();
    // The bytes of the columns read late (id, value) in the whole file,
    // and of the predicate's own (name), read whole.
    let bytes_of = |columns: &[usize]| -> u64 {
        md.row_groups
            .iter()
            .flat_map(|rg| columns.iter().map(|&c| &rg.columns[c]))
            .map(|c| c.meta_data.as_ref().unwrap().total_compressed_size as u64)
            .sum()
    };
    let (late, early) = (bytes_of(&[0, 2]), bytes_of(&[1]));
    let without_index = PruningOptions::default().with_page_index(false);
    for (p, rows) in [
        ("name = 'n007919'", 1),
        ("name IN ('n007919', 'n000000', 'n199999')", 3),
        ("name LIKE 'n00791%'", 10),
    ] {
        for batch_size in [256, 8192] {
            let at = format!("{p}, batches of {batch_size}");
            let (got, bytes) = read(&path, p, PruningOptions::default(), batch_size);
            let (want, bytes_without) = read(&path, p, without_index, batch_size);
            assert_eq!(got, want, "{at}");
            assert_eq!(
                got.iter().map(RecordBatch::num_rows).sum::<usize>(),
                rows,
                "{at}"
            );
            // Each kept row needs a page of each late column: at most
            // `rows` of the 20 pages of each, besides the predicate's
            // column, read whole, and a sixteenth of it for the page index
            // and what reads of its pages share (the next page's header).
            let most = early + early / 16 + late * rows as u64 / 20;
            assert!(
                bytes <= most,
                "{at}: {bytes} bytes read, more than {most} ({late} late, {early} early; \
                 {bytes_without} without the page index)"
            );
        }
    }
    std::fs::remove_file(path).unwrap();
}

#[test]
fn a_row_selection_reads_only_its_pages() {
    let path = on_disk(&file(), "selection");
    let read = |pruning: PruningOptions| {
        let selection = pq_arrow::RowSelection::from_consecutive_ranges(
            [35_000..35_010, 150_000..150_001],
            ROWS as usize,
        );
        let mut reader = ParquetReader::open(&path)
            .unwrap()
            .with_pruning(pruning)
            .with_batch_size(256)
            .with_row_selection(selection)
            .build()
            .unwrap();
        let mut ids = Vec::new();
        while let Some(b) = reader.next_batch().unwrap() {
            let c = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
            ids.extend(c.values().iter().copied());
        }
        (ids, reader.bytes_read())
    };
    let (ids, bytes) = read(PruningOptions::default());
    let (ids_without, bytes_without) = read(PruningOptions::default().with_page_index(false));
    let want: Vec<i64> = (35_000..35_010).chain([150_000]).collect();
    assert_eq!(ids, want);
    assert_eq!(ids_without, want);
    // Two pages of each of three columns, of 20 each.
    assert!(
        bytes * 4 < bytes_without,
        "{bytes} bytes read, {bytes_without} without the page index"
    );
    std::fs::remove_file(path).unwrap();
}

/// Distinct strings in a dictionary (one row group, uncompressed, so that
/// the dictionary page's entries can be found in the file), and ids.
fn dictionary_file(rows: i64) -> (Bytes, Vec<String>) {
    let names: Vec<String> = (0..rows).map(|i| format!("entry-{i:07}")).collect();
    let batch = RecordBatch::try_from_iter([
        (
            "id",
            Arc::new(Int64Array::from_iter_values(0..rows)) as ArrayRef,
        ),
        (
            "name",
            Arc::new(StringArray::from(names.clone())) as ArrayRef,
        ),
    ])
    .unwrap();
    let options = WriterOptions::builder()
        .set_compression(pq_compress::Codec::Uncompressed)
        .set_data_page_row_count_limit(1_000)
        .build();
    let mut out = Vec::new();
    let mut w = pq_arrow::ParquetWriter::try_new(&mut out, batch.schema(), options).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    (Bytes::from(out), names)
}

fn names_where(file: &Bytes, p: &str) -> Result<Vec<String>, String> {
    let mut reader = ParquetReader::from_bytes(file.clone())
        .map_err(|e| e.to_string())?
        .with_predicate(Predicate::parse(p).unwrap())
        .build()
        .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    while let Some(b) = reader.next_batch().map_err(|e| e.to_string())? {
        let names = b.column_by_name("name").unwrap();
        let names = names.as_any().downcast_ref::<StringArray>().unwrap();
        out.extend(names.iter().map(|n| n.unwrap().to_string()));
    }
    Ok(out)
}

#[test]
fn a_late_columns_damaged_dictionary_fails_every_read_that_uses_it() {
    let rows = 20_000;
    let (file, names) = dictionary_file(rows);
    let md = pq_format::read_metadata_from_bytes(&file, &pq_format::Limits::default()).unwrap();
    let name = md.row_groups[0].columns[1].meta_data.as_ref().unwrap();
    assert!(
        name.dictionary_page_offset.is_some(),
        "the test needs a dictionary"
    );
    // Kept rows early, late, and spread over the chunk.
    for (p, want) in [
        ("id BETWEEN 10 AND 20", (10..=20).collect::<Vec<i64>>()),
        ("id >= 19990", (19_990..rows).collect()),
        (
            "id < 5 OR id = 12345 OR id > 19997",
            vec![0, 1, 2, 3, 4, 12_345, 19_998, 19_999],
        ),
    ] {
        let want: Vec<String> = want.iter().map(|&i| names[i as usize].clone()).collect();
        assert_eq!(names_where(&file, p).unwrap(), want, "{p}");
    }
    // The dictionary's last entry given a length past the page: every read
    // that uses the dictionary fails, those of rows that use only earlier
    // entries too (each entry's length is checked, not only those used).
    let last = names.last().unwrap();
    let mut entry = (last.len() as u32).to_le_bytes().to_vec();
    entry.extend_from_slice(last.as_bytes());
    let dict_at = name.dictionary_page_offset.unwrap() as usize;
    let at = dict_at
        + file[dict_at..]
            .windows(entry.len())
            .position(|w| w == entry.as_slice())
            .unwrap();
    let mut bad = file.to_vec();
    bad[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let bad = Bytes::from(bad);
    let whole = names_where(&bad, "id >= 0");
    assert!(whole.is_err(), "a read of every row: {whole:?}");
    let last_row = names_where(&bad, &format!("id = {}", rows - 1));
    assert!(
        last_row.is_err(),
        "a read of the last entry's row: {last_row:?}"
    );
    let early = names_where(&bad, "id BETWEEN 10 AND 20");
    assert!(early.is_err(), "a read of early rows: {early:?}");
}
