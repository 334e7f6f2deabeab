//! Parquet files to Arrow `RecordBatch`es, and back.
//!
//! The layer users call: it maps Parquet schemas to Arrow schemas, assembles
//! records from levels and values, and writes batches back to Parquet. It is
//! the only layer that knows Arrow.
//!
//! # Reading
//!
//! ```
//! # fn main() -> Result<(), pq_arrow::Error> {
//! use pq_arrow::{ParquetReader, ProjectionMask};
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
//! let reader = ParquetReader::open(path)?;
//! let first = ProjectionMask::roots(reader.parquet_schema(), [0]);
//! let mut batches = reader
//!     .with_projection(first)
//!     .with_batch_size(8192)
//!     .build()?;
//! while let Some(batch) = batches.next_batch()? {
//!     assert_eq!(batch.num_columns(), 1);
//! }
//! # Ok(())
//! # }
//! ```
//!
//! [`ParquetReader`] opens a path ([`ParquetReader::open`]), an open file
//! ([`ParquetReader::from_file`]), any `Read + Seek`
//! ([`ParquetReader::from_reader`]) or `bytes::Bytes`
//! ([`ParquetReader::from_bytes`]); only the footer is read then. Columns
//! (a [`ProjectionMask`] of top-level fields, leaf columns or paths), row
//! groups, batch size, row offset and limit are chosen on it, with the
//! names arrow-rs's `ParquetRecordBatchReaderBuilder` gives them, and
//! [`ParquetReader::build`] gives a [`ParquetRecordBatchReader`]: an
//! arrow `RecordBatchReader` (`Iterator<Item = Result<RecordBatch,
//! ArrowError>>`, pq's [`Error`] inside) that reads one row group of the
//! projected column chunks at a time, page by page (a page or two of each
//! column in memory), and whose
//! [`next_batch`](ParquetRecordBatchReader::next_batch) gives pq's error
//! as it is.
//! [`read_parquet`] reads a whole file in one call.
//!
//! The reader performs no IO in its decoding: [`ParquetPushDecoder`] is the
//! same decoder with the IO left to the caller, who is told which byte
//! ranges it needs ([`DecodeResult::NeedsData`]) and pushes them, from
//! whatever source (an object store, an async runtime, a memory map).
//!
//! With [`ParquetReader::with_threads`] the columns of each batch are
//! decoded on that many threads, the caller's among them. On Linux a
//! decoding thread handed a row group while it runs on the caller's core
//! moves off it (the scheduler would otherwise let the two share one core
//! for several milliseconds): asking which core a thread runs on, and
//! narrowing the cores it may run on for that move, is why this crate
//! depends on `libc`.
//!
//! # Writing
//!
//! [`ParquetWriter`] writes `RecordBatch`es to any `std::io::Write`, one row
//! group in memory at a time, with [`WriterOptions`] for the whole file and
//! per column (encodings, dictionary and fallback, data page v1 or v2,
//! codec, row group and page sizes, statistics, page index, checksums,
//! key-value metadata); [`write_parquet`] writes a file in one call. See
//! [`write`](mod@write).
//!
//! # Types
//!
//! The Arrow types are those of the arrow-rs `parquet` crate, including its
//! use of the `ARROW:schema` footer entry (an Arrow IPC schema message in
//! base64) written by Arrow writers, so that Arrow types come back as
//! written. Decoding that entry is why this crate depends on `arrow-ipc`
//! (the IPC flatbuffer schema) and `base64`.
//!
//! # Errors
//!
//! [`Error`] wraps the lower layers' errors and says where each happened
//! ([`Location`]: file offset, row group, column path, page, row).

mod assemble;
mod column;
mod convert;
mod error;
mod physical;
mod pool;
pub mod predicate;
mod reader;
mod row_group_tasks;
pub mod schema;
pub mod write;

pub use error::{Error, Location, Result};
pub use pq_format::Limits as MetadataLimits;
pub use pq_page::PageOptions;
pub use reader::{
    DEFAULT_COALESCE_GAP, DecodeResult, ParquetPushDecoder, ParquetPushDecoderBuilder,
    ParquetReader, ParquetRecordBatchReader, ProjectionMask, ProjectionSchema, ReadSeek,
    RowSelection, RowSelector, read_parquet,
};
pub use write::{ParquetWriter, WriterOptions, write_parquet};

#[cfg(feature = "object_store")]
pub use reader::ObjectStoreReader;
#[cfg(feature = "async")]
pub use reader::{
    AsyncRangeReader, FetchOptions, FetchStats, ParquetRecordBatchStream,
    ParquetRecordBatchStreamBuilder, TokioFile, fetch_range, fetch_size, fetch_suffix,
};
