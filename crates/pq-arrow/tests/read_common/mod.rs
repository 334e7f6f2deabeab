//! Reads the reader tests share: a file read by pq into one batch, and a
//! pq `RowSelection` as arrow-rs's, for reading the same rows with the
//! reference reader.
#![allow(dead_code)]

use std::ops::Range;

use arrow_array::RecordBatch;
use arrow_select::concat::concat_batches;
use bytes::Bytes;
use pq_arrow::{ParquetReader, RowSelection};
use pq_testkit::Rng;

/// Short ranges of rows over `rows` rows, in order: each after a gap
/// below `most_gap` rows, of 1 to `most_len` rows, all within the rows.
pub fn short_ranges(r: &mut Rng, rows: usize, most_gap: u64, most_len: u64) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut at = 0;
    while at < rows {
        at += r.below(most_gap) as usize;
        let len = 1 + r.below(most_len) as usize;
        if at + len <= rows {
            ranges.push(at..at + len);
        }
        at += len;
    }
    ranges
}

/// The rows pq reads from `file` (those of `selection`, if given), in
/// batches of `batch_size`, as one batch; or its error.
pub fn pq_read(
    file: &Bytes,
    batch_size: usize,
    selection: Option<&RowSelection>,
) -> Result<RecordBatch, pq_arrow::Error> {
    let mut reader = ParquetReader::from_bytes(file.clone())?;
    if let Some(s) = selection {
        reader = reader.with_row_selection(s.clone());
    }
    let schema = reader.arrow_schema();
    let batches = reader
        .with_batch_size(batch_size)
        .build()?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(concat_batches(&schema, &batches).expect("batches of the reader's schema"))
}

/// `selection` as arrow-rs's reader takes it.
pub fn arrow_rs_selection(selection: &RowSelection) -> parquet::arrow::arrow_reader::RowSelection {
    use parquet::arrow::arrow_reader::RowSelector;
    let selectors: Vec<RowSelector> = selection
        .iter()
        .map(|s| {
            if s.skip {
                RowSelector::skip(s.row_count)
            } else {
                RowSelector::select(s.row_count)
            }
        })
        .collect();
    selectors.into()
}
