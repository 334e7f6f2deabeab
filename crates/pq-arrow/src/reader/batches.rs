//! The iterator of batches: a loop over the sans-IO core that reads each
//! byte range the core asks for from the file and pushes it back.

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};

use super::core::{BatchDecoder, Decoded};
use super::source::Source;
use crate::error::Result;

/// The iterator of batches [`ParquetReader::build`] gives: the column
/// chunks of one row group at a time, decoded batch by batch.
///
/// As arrow-rs's reader of the same name, it is an
/// `Iterator<Item = Result<RecordBatch, ArrowError>>` and an
/// `arrow_array::RecordBatchReader`, so it feeds IPC writers or the C
/// stream interface as it is; [`next_batch`](Self::next_batch) gives the
/// same batches with pq's [`Error`](crate::Error).
///
/// It drives the same core as [`ParquetPushDecoder`](super::ParquetPushDecoder):
/// the core asks for the bytes of the pages it needs, and this reader
/// reads them from its source (from a path or a `Read + Seek`, page by
/// page, so that it holds about a page or two per projected column; from
/// `Bytes`, by slicing, which copies nothing).
///
/// [`ParquetReader::build`]: super::ParquetReader::build
#[derive(Debug)]
pub struct ParquetRecordBatchReader {
    pub(super) core: BatchDecoder,
    pub(super) source: Source,
    pub(super) failed: bool,
    pub(super) requests: u64,
    pub(super) bytes_read: u64,
    /// What the decoding threads read, when they read for themselves.
    pub(super) shared_reads: Option<std::sync::Arc<super::source::ReadCounts>>,
}

impl ParquetRecordBatchReader {
    /// The Arrow schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        self.core.schema()
    }

    /// The next batch, with pq's own [`Error`](crate::Error) (the iterator
    /// gives the same batches with the error inside an `ArrowError`);
    /// `Ok(None)` once every chosen row is read. After an error there are no
    /// more batches.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        if self.failed {
            return Ok(None);
        }
        let batch = self.read_next();
        self.failed = batch.is_err();
        batch
    }

    fn read_next(&mut self) -> Result<Option<RecordBatch>> {
        loop {
            match self.core.next()? {
                Decoded::Batch(b) => return Ok(Some(b)),
                Decoded::Finished => return Ok(None),
                Decoded::Needs(ranges) => {
                    for r in ranges {
                        let data = self.source.read(
                            &r,
                            &self.core.location_of(r.start),
                            &self.core.pool,
                        )?;
                        self.requests += 1;
                        // What was asked for: from `Bytes` the slice
                        // reaches the file's end, which costs nothing.
                        self.bytes_read += r.end - r.start;
                        self.core.push_range(r.start, data);
                    }
                }
            }
        }
    }

    /// What a predicate pruned and kept so far (`None` without one; see
    /// [`ParquetReader::with_predicate`](super::ParquetReader::with_predicate)).
    pub fn pruning_metrics(&self) -> Option<&crate::predicate::PruningMetrics> {
        self.core.pruning_metrics()
    }

    /// Reads of the file made for the batches so far (the footer's not
    /// counted).
    pub fn requests(&self) -> u64 {
        self.requests + self.shared_reads.as_ref().map_or(0, |c| c.get().0)
    }

    /// Bytes of the file read (or, from `Bytes`, sliced) for the batches so
    /// far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read + self.shared_reads.as_ref().map_or(0, |c| c.get().1)
    }

    /// The most bytes of the file the reader has held at once: the bytes
    /// each column's page reader holds (its current page, and its next one
    /// once read; a page being decoded may keep one older buffer alive
    /// until it is done) and bytes read but not yet handed to a column. Not
    /// the decoded batches. From `Bytes` it counts the slices held, which
    /// cost no memory of their own.
    pub fn peak_buffered_bytes(&self) -> usize {
        self.core.peak_buffered_bytes()
    }
}

/// The batches as arrow-rs readers give them: pq's [`Error`](crate::Error)
/// is inside `ArrowError::ExternalError`, from which it downcasts back (or
/// converts back with `pq_arrow::Error::from`).
impl Iterator for ParquetRecordBatchReader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch().map_err(ArrowError::from).transpose()
    }
}

/// So that the batches feed whatever takes a `RecordBatchReader`: Arrow
/// IPC writers, the C stream interface.
impl RecordBatchReader for ParquetRecordBatchReader {
    fn schema(&self) -> SchemaRef {
        self.core.schema()
    }
}
