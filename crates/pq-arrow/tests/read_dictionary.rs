//! Dictionaries of byte arrays larger than the small-dictionary table are
//! gathered from their PLAIN page as it lies, strings checked as they are
//! gathered, until what was gathered outweighs the page and the dictionary
//! is decoded once instead. The rows read, whole (both ways of gathering in
//! one read) or selected (the page's way only), are those written, as
//! strings, large strings and binary; an invalid string in such a
//! dictionary fails the reads that use it, either way, and no other; and
//! randomly changed dictionary pages are errors or read as arrow-rs reads
//! them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use arrow_array::{ArrayRef, BinaryArray, LargeStringArray, RecordBatch, StringArray, UInt32Array};
use arrow_buffer::{Buffer, OffsetBuffer};
use arrow_select::concat::concat_batches;
use bytes::Bytes;
use pq_arrow::{ParquetReader, ParquetWriter, RowSelection, WriterOptions};
use pq_testkit::Rng;
use read_common::{arrow_rs_selection, pq_read, short_ranges};

mod read_common;

const ROWS: usize = 6000;

/// Strings from 1500 distinct values of 0 to 70 bytes (some past the
/// fixed 32- and 64-byte copies), one row in ten null; the same as large
/// strings and as binary. Two row groups, pages of 400 rows: each row
/// group's chunk has a dictionary of about 1500 entries.
fn file() -> (Bytes, RecordBatch) {
    let mut r = Rng(7);
    let distinct: Vec<String> = (0..1500)
        .map(|i| {
            let len = r.below(71) as usize;
            let mut s = format!("{i}:");
            s.extend((0..len).map(|k| char::from(b'a' + ((i + k) % 26) as u8)));
            s
        })
        .collect();
    let s: Vec<Option<&str>> = (0..ROWS)
        .map(|_| (!r.chance(10)).then(|| distinct[r.index(distinct.len())].as_str()))
        .collect();
    let b: Vec<Option<&[u8]>> = s.iter().map(|v| v.map(str::as_bytes)).collect();
    let batch = RecordBatch::try_from_iter([
        ("s", Arc::new(StringArray::from(s.clone())) as ArrayRef),
        ("l", Arc::new(LargeStringArray::from(s))),
        ("b", Arc::new(BinaryArray::from(b))),
    ])
    .unwrap();
    let options = WriterOptions::builder()
        .set_max_row_group_size(ROWS / 2)
        .set_data_page_row_count_limit(400)
        .build();
    let mut w = ParquetWriter::try_new(Vec::new(), batch.schema(), options).unwrap();
    w.write(&batch).unwrap();
    (Bytes::from(w.close_into_inner().unwrap().0), batch)
}

fn read(file: &Bytes, batch_size: usize, selection: Option<RowSelection>) -> RecordBatch {
    pq_read(file, batch_size, selection.as_ref()).unwrap()
}

#[test]
fn large_dictionaries_read_whole_and_selected() {
    let (file, batch) = file();
    // The file holds dictionaries past the small-dictionary table.
    let md = ParquetReader::from_bytes(file.clone()).unwrap();
    assert_eq!(md.metadata().row_groups.len(), 2);
    assert!(md.metadata().row_groups.iter().all(|rg| {
        rg.columns.iter().all(|c| {
            c.meta_data
                .as_ref()
                .unwrap()
                .dictionary_page_offset
                .is_some()
        })
    }));
    for batch_size in [1, 77, 1024, ROWS] {
        assert_eq!(read(&file, batch_size, None), batch, "batch {batch_size}");
    }
    let mut r = Rng(11);
    for case in 0..20 {
        // A few short ranges: a few entries of each dictionary.
        let ranges = short_ranges(&mut r, ROWS, 900, 30);
        let rows: Vec<u32> = ranges
            .iter()
            .flat_map(|x| x.start as u32..x.end as u32)
            .collect();
        let want = arrow_select::take::take_record_batch(&batch, &UInt32Array::from(rows)).unwrap();
        let selection = RowSelection::from_consecutive_ranges(ranges, ROWS);
        let batch_size = 1 + r.below(100) as usize;
        assert_eq!(
            read(&file, batch_size, Some(selection)),
            want,
            "case {case}"
        );
    }
}

/// A string column of `ROWS` rows over 600 distinct values whose last row
/// alone holds bytes that are not UTF-8 (written by arrow-rs, which does
/// not check them).
fn file_with_an_invalid_string() -> Bytes {
    let mut values = Vec::new();
    let mut offsets = vec![0i32];
    for i in 0..ROWS {
        if i + 1 == ROWS {
            values.extend_from_slice(b"bad \xff\xfe");
        } else {
            values.extend_from_slice(format!("value {}", i % 600).as_bytes());
        }
        offsets.push(values.len() as i32);
    }
    // SAFETY: not UTF-8 on purpose (the last value); only written to a
    // file by arrow-rs, never read as a string.
    let s = unsafe {
        StringArray::new_unchecked(
            OffsetBuffer::new(offsets.into()),
            Buffer::from(values),
            None,
        )
    };
    let batch = RecordBatch::try_from_iter([("s", Arc::new(s) as ArrayRef)]).unwrap();
    let props = parquet::file::properties::WriterProperties::builder()
        .set_data_page_row_count_limit(500)
        .set_write_batch_size(100)
        .build();
    let mut out = Vec::new();
    let mut w =
        parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

#[test]
fn an_invalid_string_fails_the_reads_that_use_it() {
    let file = file_with_an_invalid_string();
    // The rows `start..end` of each pair.
    let only = |ranges: &[(usize, usize)]| {
        let ranges = ranges.iter().map(|&(start, end)| start..end);
        Some(RowSelection::from_consecutive_ranges(ranges, ROWS))
    };
    let rows = |selection: Option<RowSelection>| {
        pq_read(&file, 256, selection.as_ref()).map(|b| b.num_rows())
    };
    // Every valid row: the dictionary is decoded on the way (what was
    // gathered outweighs its page), the invalid entry never used.
    assert_eq!(rows(only(&[(0, ROWS - 1)])).unwrap(), ROWS - 1);
    // A few valid rows: gathered from the page only.
    assert_eq!(rows(only(&[(10, 20), (3000, 3005)])).unwrap(), 15);
    // The invalid row alone (from the page), and with every row before it
    // (from the decoded dictionary): an error naming it, not data.
    for selection in [only(&[(ROWS - 1, ROWS)]), None] {
        let e = rows(selection).unwrap_err().to_string();
        assert!(e.contains("UTF-8"), "{e}");
    }
    // What arrow-rs makes of the same file, as a cross-check that the
    // bytes are there and invalid.
    let theirs =
        parquet::arrow::arrow_reader::ParquetRecordBatchReader::try_new(file.clone(), 8192)
            .unwrap()
            .collect::<Result<Vec<_>, _>>();
    assert!(theirs.is_err());
}

/// Bytes of the large dictionary pages changed at random (values, lengths
/// and headers alike), whole and selected reads: pq never panics, and what
/// it returns as data is what arrow-rs reads from the same bytes. The one
/// difference allowed: arrow-rs refuses a whole dictionary for one string
/// that is not UTF-8, where pq fails only the reads that use it, so a
/// change that makes an unused entry invalid still reads in pq (the rows
/// read hold valid strings only). The page checksums are off, so nothing
/// else notices a change.
#[test]
fn changed_dictionary_pages_are_errors_or_read_as_arrow_rs_reads_them() {
    let (file, _) = file();
    let md = ParquetReader::from_bytes(file.clone()).unwrap();
    let pages: Vec<(usize, usize)> = md
        .metadata()
        .row_groups
        .iter()
        .flat_map(|rg| &rg.columns)
        .filter_map(|c| {
            let m = c.meta_data.as_ref()?;
            Some((
                m.dictionary_page_offset? as usize,
                m.data_page_offset as usize,
            ))
        })
        .collect();
    let mut r = Rng(23);
    let (mut read, mut failed, mut lenient) = (0, 0, 0);
    for case in 0..150 {
        let (start, end) = pages[r.index(pages.len())];
        let mut bytes = file.to_vec();
        for _ in 0..1 + r.below(3) {
            let at = start + r.index(end - start);
            bytes[at] ^= 1 << r.below(8);
        }
        let bytes = Bytes::from(bytes);
        let selection = r
            .chance(50)
            .then(|| RowSelection::from_consecutive_ranges([100..130, 4000..4010], ROWS));
        let ours = std::panic::catch_unwind(|| pq_read(&bytes, 500, selection.as_ref()))
            .unwrap_or_else(|_| panic!("case {case}: pq panicked"));
        let Ok(ours) = ours else {
            failed += 1;
            continue;
        };
        read += 1;
        let mut theirs =
            parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(bytes.clone())
                .unwrap()
                .with_batch_size(500);
        if let Some(s) = &selection {
            theirs = theirs.with_row_selection(arrow_rs_selection(s));
        }
        let schema = theirs.schema().clone();
        let theirs = match theirs.build().unwrap().collect::<Result<Vec<_>, _>>() {
            Ok(t) => t,
            Err(e) if e.to_string().contains("non UTF-8") => {
                lenient += 1;
                continue;
            }
            Err(e) => panic!("case {case}: pq read data where arrow-rs failed: {e}"),
        };
        let theirs = concat_batches(&schema, &theirs).unwrap();
        assert_eq!(ours, theirs, "case {case}");
    }
    // Both outcomes were met: the changes were not all fatal, nor all
    // harmless, and not every read was one arrow-rs refused.
    assert!(
        read > lenient && failed > 0,
        "read {read} ({lenient} refused by arrow-rs), failed {failed}"
    );
}
