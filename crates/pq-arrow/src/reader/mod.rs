//! The reader: open a file, choose columns and row groups, iterate
//! `RecordBatch`es.
//!
//! `builder` opens a file, `options` holds the options (shared with the
//! push decoder) and builds the core from them, `projection` turns
//! the chosen columns into leaf columns, `core` is the sans-IO state
//! machine that opens row groups and assembles batches, asking for the
//! bytes of the pages it needs (`pieces` keeps what is pushed to it and
//! merges its requests), `workers` are its decoding threads, `push` is the
//! core as a public push decoder, and `batches` the iterator that drives
//! the core with reads from a `source`. `filter` prunes row groups by a
//! predicate and filters the batches; `selection` is `RowSelection`.
//!
//! With the feature `async`: `range_reader` is the async source of bytes
//! (a tokio file; `object_store` adapts the object_store crate), `fetch`
//! one request with its timeout and retries, and `stream` the async loop
//! over the core, with its widening, merging and prefetching of requests.

// First: its setters macro serves the modules after it.
#[macro_use]
mod options;
mod batches;
mod builder;
mod core;
#[cfg(feature = "async")]
mod fetch;
mod filter;
mod late;
#[cfg(feature = "object_store")]
mod object_store;
mod pieces;
mod placement;
mod projection;
mod push;
#[cfg(feature = "async")]
mod range_reader;
mod selection;
mod source;
#[cfg(feature = "async")]
mod stream;
mod workers;

use std::path::Path;

use arrow_array::RecordBatch;

use crate::error::Result;

#[cfg(feature = "object_store")]
pub use self::object_store::ObjectStoreReader;
pub use batches::ParquetRecordBatchReader;
pub use builder::ParquetReader;
pub use filter::{PruningMetrics, PruningOptions, RowFiltering};
pub use pieces::DEFAULT_COALESCE_GAP;
pub use projection::{ProjectionMask, ProjectionSchema};
pub use push::{DecodeResult, ParquetPushDecoder, ParquetPushDecoderBuilder};
pub use selection::{RowSelection, RowSelector};
pub use source::ReadSeek;
#[cfg(feature = "async")]
pub use {
    fetch::{FetchOptions, FetchStats, fetch_range, fetch_size, fetch_suffix},
    range_reader::{AsyncRangeReader, TokioFile},
    stream::{ParquetRecordBatchStream, ParquetRecordBatchStreamBuilder},
};

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
