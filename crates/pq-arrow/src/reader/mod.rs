//! The reader: open a file, choose columns and row groups, iterate
//! `RecordBatch`es.
//!
//! `builder` opens a file and holds the options, `projection` turns
//! the chosen columns into leaf columns, `source` reads byte ranges of
//! the file, `batches` is the iterator that opens row groups and
//! assembles batches, and `workers` are its decoding threads.

mod batches;
mod builder;
mod filter;
mod projection;
mod selection;
mod source;
mod workers;

use std::path::Path;

use arrow_array::RecordBatch;

use crate::error::Result;

pub use batches::ParquetRecordBatchReader;
pub use builder::ParquetReader;
pub use filter::{PruningMetrics, PruningOptions};
pub use projection::{ProjectionMask, ProjectionSchema};
pub use selection::{RowSelection, RowSelector};
pub use source::ReadSeek;

/// Reads a whole file into batches of 8192 rows.
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
/// let batches = pq_arrow::read_parquet(path)?;
/// assert!(!batches.is_empty());
/// # Ok::<(), pq_arrow::Error>(())
/// ```
pub fn read_parquet(path: impl AsRef<Path>) -> Result<Vec<RecordBatch>> {
    let mut reader = ParquetReader::open(path)?.build()?;
    let mut batches = Vec::new();
    while let Some(batch) = reader.next_batch()? {
        batches.push(batch);
    }
    Ok(batches)
}
