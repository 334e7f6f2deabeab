//! Dictionary-encoded decimals (stored as INT32, INT64 and
//! FIXED_LEN_BYTE_ARRAY) are read by converting the dictionary once and
//! gathering its converted entries by key. Checked against arrow-rs's
//! reader on files arrow-rs and pq write: small dictionaries, dictionaries past
//! the small-dictionary table (INT64 ones gathered from their page as it
//! lies), chunks whose dictionary fills and whose later pages are PLAIN
//! (a batch then holds keys and plain values), with nulls, in batches of
//! every size and through row selections; and pages with bits changed read
//! as arrow-rs reads them or fail, never panic.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use arrow_array::{ArrayRef, Decimal128Array, Decimal256Array, RecordBatch};
use arrow_buffer::i256;
use arrow_select::concat::concat_batches;
use bytes::Bytes;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::properties::WriterProperties;
use pq_arrow::{ParquetReader, RowSelection};
use pq_testkit::Rng;
use read_common::{arrow_rs_selection, pq_read, short_ranges};

mod read_common;

const ROWS: usize = 5000;

/// `ROWS` values drawn from `distinct` values (of up to `digits` digits,
/// negative ones too), one in ten null.
fn draws(r: &mut Rng, distinct: usize, digits: u32) -> Vec<Option<i128>> {
    let top = 10i128.pow(digits);
    let entries: Vec<i128> = (0..distinct)
        .map(|i| {
            let v = (i as i128 * 7_919_111 + 13) % top;
            if i % 3 == 0 { -v } else { v }
        })
        .collect();
    (0..ROWS)
        .map(|_| (!r.chance(10)).then(|| entries[r.index(distinct)]))
        .collect()
}

fn dec128(v: Vec<Option<i128>>, p: u8, s: i8) -> ArrayRef {
    Arc::new(
        Decimal128Array::from(v)
            .with_precision_and_scale(p, s)
            .unwrap(),
    )
}

/// The table: decimals of each storage, from 30 and from 2000 distinct
/// values.
fn table() -> RecordBatch {
    let mut r = Rng(5);
    let wide: Vec<Option<i256>> = draws(&mut r, 30, 30)
        .into_iter()
        .map(|v| v.map(|v| i256::from_i128(v).wrapping_mul(i256::from_i128(1 << 40))))
        .collect();
    RecordBatch::try_from_iter([
        ("int64_small", dec128(draws(&mut r, 30, 13), 15, 2)),
        ("int32_small", dec128(draws(&mut r, 30, 7), 7, 2)),
        ("fixed_small", dec128(draws(&mut r, 30, 24), 25, 3)),
        (
            "fixed_256",
            Arc::new(
                Decimal256Array::from(wide)
                    .with_precision_and_scale(50, 4)
                    .unwrap(),
            ) as ArrayRef,
        ),
        ("int64_large", dec128(draws(&mut r, 2000, 13), 15, 2)),
        ("fixed_large", dec128(draws(&mut r, 2000, 24), 25, 3)),
    ])
    .unwrap()
}

/// The table as arrow-rs writes it and as pq writes it (arrow-rs keeps
/// FIXED_LEN_BYTE_ARRAY decimals PLAIN; pq, as pyarrow, encodes them with
/// a dictionary), with dictionaries up to `dictionary_bytes` (PLAIN pages
/// after), pages of 300 rows, two row groups.
fn files(dictionary_bytes: usize) -> [(&'static str, Bytes); 2] {
    let batch = table();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(ROWS / 2))
        .set_data_page_row_count_limit(300)
        .set_write_batch_size(100)
        .set_dictionary_page_size_limit(dictionary_bytes)
        .build();
    let mut w = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    let arrow_rs = Bytes::from(w.into_inner().unwrap());
    let options = pq_arrow::WriterOptions::builder()
        .set_max_row_group_size(ROWS / 2)
        .set_data_page_row_count_limit(300)
        .set_dictionary_page_size_limit(dictionary_bytes)
        .set_page_checksums_enabled(false)
        .build();
    let mut w = pq_arrow::ParquetWriter::try_new(Vec::new(), batch.schema(), options).unwrap();
    w.write(&batch).unwrap();
    let pq = Bytes::from(w.close_into_inner().unwrap().0);
    [("arrow-rs", arrow_rs), ("pq", pq)]
}

/// Per column of the first row group: whether its chunk has a dictionary
/// page, and whether it has PLAIN data pages.
fn shape(file: &Bytes) -> Vec<(bool, bool)> {
    let r = ParquetReader::from_bytes(file.clone()).unwrap();
    r.metadata().row_groups[0]
        .columns
        .iter()
        .map(|c| {
            let m = c.meta_data.clone().unwrap();
            let plain = m.encoding_stats.as_ref().is_some_and(|s| {
                s.iter().any(|e| {
                    e.page_type == pq_format::PageType::DATA_PAGE
                        && e.encoding == pq_format::Encoding::PLAIN
                })
            });
            (m.dictionary_page_offset.is_some(), plain)
        })
        .collect()
}

/// arrow-rs's reading of the same rows, or its error.
fn arrow_rs_read(
    file: &Bytes,
    batch_size: usize,
    selection: Option<&RowSelection>,
) -> Result<RecordBatch, String> {
    let mut b = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .map_err(|e| e.to_string())?
        .with_batch_size(batch_size);
    if let Some(s) = selection {
        b = b.with_row_selection(arrow_rs_selection(s));
    }
    let schema = b.schema().clone();
    let batches = b
        .build()
        .map_err(|e| e.to_string())?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    Ok(concat_batches(&schema, &batches).unwrap())
}

/// Short ranges of rows over the whole file.
fn selection(r: &mut Rng) -> RowSelection {
    RowSelection::from_consecutive_ranges(short_ranges(r, ROWS, 700, 400), ROWS)
}

#[test]
fn dictionary_decimals_read_as_arrow_rs_reads_them() {
    let batch = table();
    let mut seen = vec![(false, false); batch.num_columns()];
    for dictionary_bytes in [1 << 20, 2000, 100] {
        for (writer, file) in files(dictionary_bytes) {
            let name = format!("{writer}, dictionaries up to {dictionary_bytes} bytes");
            for (s, (dict, plain)) in seen.iter_mut().zip(shape(&file)) {
                s.0 |= dict;
                s.1 |= dict && plain;
            }
            for batch_size in [1, 7, 299, 1000, 8192] {
                let ours = pq_read(&file, batch_size, None).unwrap();
                assert_eq!(ours, batch, "{name}, batch {batch_size}");
                assert_eq!(
                    ours,
                    arrow_rs_read(&file, batch_size, None).unwrap(),
                    "{name}, batch {batch_size}"
                );
            }
            let mut r = Rng(17);
            for case in 0..12 {
                let s = selection(&mut r);
                let batch_size = 1 + r.below(3000) as usize;
                assert_eq!(
                    pq_read(&file, batch_size, Some(&s)).unwrap(),
                    arrow_rs_read(&file, batch_size, Some(&s)).unwrap(),
                    "{name}, case {case}"
                );
            }
        }
    }
    // Every column was read from a dictionary, and from a chunk whose
    // dictionary filled before its PLAIN pages.
    assert!(seen.iter().all(|&(d, p)| d && p), "{seen:?}");
}

/// A bit changed in the pages of a chunk (of the file pq writes, whose
/// FIXED_LEN_BYTE_ARRAY decimals have dictionaries too): pq's read fails,
/// or equals arrow-rs's (or, where arrow-rs refuses the change, the data
/// written). Page checksums are off, so a changed key, length or value is
/// not caught before decoding.
#[test]
fn changed_pages_are_errors_or_read_as_arrow_rs_reads_them() {
    let [_, (_, file)] = files(2000);
    let md = ParquetReader::from_bytes(file.clone()).unwrap();
    let chunks: Vec<(usize, usize)> = md
        .metadata()
        .row_groups
        .iter()
        .flat_map(|rg| &rg.columns)
        .map(|c| {
            let m = c.meta_data.as_ref().unwrap();
            let start = m.dictionary_page_offset.unwrap_or(m.data_page_offset) as usize;
            (start, start + m.total_compressed_size as usize)
        })
        .collect();
    let mut r = Rng(29);
    let (mut same, mut failed) = (0, 0);
    for case in 0..300 {
        let (start, end) = chunks[r.index(chunks.len())];
        let mut bytes = file.to_vec();
        // One change, so that a read arrow-rs refuses for one reason is
        // not also changed in its values by another.
        let at = start + r.index(end - start);
        bytes[at] ^= 1 << r.below(8);
        let bytes = Bytes::from(bytes);
        let s = r.chance(50).then(|| selection(&mut r));
        let batch_size = [1, 300, 8192][r.index(3)];
        let ours = std::panic::catch_unwind(|| pq_read(&bytes, batch_size, s.as_ref()))
            .unwrap_or_else(|_| panic!("case {case}: pq panicked"));
        let Ok(ours) = ours else {
            failed += 1;
            continue;
        };
        match arrow_rs_read(&bytes, batch_size, s.as_ref()) {
            Ok(theirs) => assert_eq!(ours, theirs, "case {case}"),
            // A change arrow-rs refuses that pq passes over (a page
            // header's optional statistics, say) must leave the data as
            // written.
            Err(e) => assert_eq!(
                pq_read(&file, batch_size, s.as_ref()).unwrap(),
                ours,
                "case {case}: pq read other data where arrow-rs failed: {e}"
            ),
        }
        same += 1;
    }
    assert!(same > 0 && failed > 0, "read {same}, failed {failed}");
}
