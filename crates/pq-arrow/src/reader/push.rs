//! The push decoder: the reader's sans-IO core as a public API. It never
//! performs IO: it says which byte ranges of the file it needs and is given
//! them, so that any IO (sync, async, remote) can drive it.

use std::ops::Range;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use bytes::Bytes;
use pq_format::{FooterDecoder, FooterStep, Limits, ParquetMetaData};

use super::core::{BatchDecoder, Decoded};
use super::options::ReadOptions;
use super::pieces::{Pieces, coalesce};
use crate::error::{Error, Result};

/// What [`ParquetPushDecoder::try_decode`] gave.
#[derive(Debug)]
pub enum DecodeResult {
    /// Push bytes covering these ranges of the file (absolute offsets,
    /// sorted, nearby ones merged) with [`ParquetPushDecoder::push_range`],
    /// then call [`try_decode`](ParquetPushDecoder::try_decode) again.
    NeedsData(Vec<Range<u64>>),
    /// The next batch.
    Data(RecordBatch),
    /// Every chosen row has been read.
    Finished,
}

/// A Parquet reader that performs no IO, modelled on arrow-rs's push
/// decoder: [`try_decode`](Self::try_decode) gives a batch, the byte
/// ranges it needs first, or the end, and
/// [`push_range`](Self::push_range) gives it bytes. One decoder reads the
/// footer (a speculative read of the file's end, and one more request only
/// for a larger footer; see [`pq_format::FooterDecoder`]) and then the
/// data, a page or two per projected column at a time.
///
/// The bytes pushed may be cut any way: a pushed range may cover several
/// requested ones (each is sliced from it, without copying), or a request
/// may be answered in several pieces (joined once all are there); pushes
/// may come in any order. Pushed bytes are kept only while a range the
/// decoder asked for overlaps them. The batches are those of
/// [`ParquetReader`](super::ParquetReader) with the same options, and so
/// are the errors.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use pq_arrow::{DecodeResult, ParquetPushDecoder};
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
/// let file = bytes::Bytes::from(std::fs::read(path)?);
/// // Any IO will do: here a slice of the bytes in memory.
/// let fetch = |r: &std::ops::Range<u64>| file.slice(r.start as usize..r.end as usize);
///
/// let mut decoder = ParquetPushDecoder::builder(file.len() as u64)
///     .with_batch_size(1024)
///     .build()?;
/// let mut rows = 0;
/// loop {
///     match decoder.try_decode()? {
///         DecodeResult::NeedsData(ranges) => {
///             for r in ranges {
///                 decoder.push_range(r.clone(), fetch(&r))?;
///             }
///         }
///         DecodeResult::Data(batch) => rows += batch.num_rows(),
///         DecodeResult::Finished => break,
///     }
/// }
/// let expected: usize = pq_arrow::read_parquet(path)?.iter().map(|b| b.num_rows()).sum();
/// assert_eq!(rows, expected);
/// # Ok(())
/// # }
/// ```
///
/// A memory-mapped file is read without copying by pushing slices of the
/// mapping: `Bytes::from_owner(mmap)` (with the `memmap2` crate) makes the
/// mapping a `Bytes`, whose slices share it.
#[derive(Debug)]
pub struct ParquetPushDecoder {
    state: State,
    failed: bool,
}

#[derive(Debug)]
enum State {
    /// Reading the footer; pushed bytes wait in `pieces`.
    Footer {
        footer: Box<FooterDecoder>,
        pieces: Pieces,
        opts: Box<ReadOptions>,
        limits: Limits,
        file_len: u64,
    },
    Data(Box<BatchDecoder>),
}

/// Options of a [`ParquetPushDecoder`]: those of
/// [`ParquetReader`](super::ParquetReader), with the same setters and
/// defaults, plus how bytes are asked for. (The decoding threads never
/// perform IO: a column waiting for bytes is left aside until they are
/// pushed.)
#[derive(Debug, Clone)]
pub struct ParquetPushDecoderBuilder {
    file_len: u64,
    metadata: Option<Arc<ParquetMetaData>>,
    limits: Limits,
    footer_prefetch: u64,
    opts: ReadOptions,
}

impl ParquetPushDecoder {
    /// Options for a decoder of a file of `file_len` bytes.
    pub fn builder(file_len: u64) -> ParquetPushDecoderBuilder {
        let limits = Limits::default();
        ParquetPushDecoderBuilder {
            file_len,
            metadata: None,
            footer_prefetch: pq_format::DEFAULT_FOOTER_PREFETCH,
            opts: ReadOptions::new(&limits),
            limits,
        }
    }

    /// The batches, the bytes needed first, or the end. After an error
    /// there are no more batches ([`DecodeResult::Finished`]).
    pub fn try_decode(&mut self) -> Result<DecodeResult> {
        if self.failed {
            return Ok(DecodeResult::Finished);
        }
        let r = self.step();
        self.failed = r.is_err();
        r
    }

    fn step(&mut self) -> Result<DecodeResult> {
        loop {
            match &mut self.state {
                State::Footer {
                    footer,
                    pieces,
                    opts,
                    limits,
                    file_len,
                } => match footer.try_decode().map_err(Error::from)? {
                    FooterStep::NeedsData(ranges) => {
                        let mut missing = Vec::new();
                        for r in ranges {
                            match pieces.cover(&r) {
                                Some((offset, data)) => {
                                    let from = (r.start - offset) as usize;
                                    let to = (r.end - offset) as usize;
                                    let data = data.slice(from..to);
                                    footer.push_range(r, data).map_err(Error::from)?;
                                }
                                None => missing.push(r),
                            }
                        }
                        if !missing.is_empty() {
                            pieces.keep_for(&missing);
                            return Ok(DecodeResult::NeedsData(coalesce(
                                missing,
                                opts.coalesce_gap,
                            )));
                        }
                    }
                    FooterStep::Metadata(md) => {
                        let md = ParquetMetaData::new(*md, limits).map_err(Error::from)?;
                        let opts = std::mem::replace(opts, Box::new(ReadOptions::new(limits)));
                        let mut decoder = opts.decoder(Arc::new(md), *file_len)?;
                        // Bytes pushed ahead (a whole file, say) serve the
                        // data too.
                        for (offset, data) in pieces.take().into_pieces() {
                            decoder.push_range(offset, data);
                        }
                        self.state = State::Data(Box::new(decoder));
                    }
                },
                State::Data(decoder) => {
                    return Ok(match decoder.next()? {
                        Decoded::Batch(b) => DecodeResult::Data(b),
                        Decoded::Needs(r) => DecodeResult::NeedsData(r),
                        Decoded::Finished => DecodeResult::Finished,
                    });
                }
            }
        }
    }

    /// Gives the decoder the bytes `range` of the file (`data` must be as
    /// long as the range).
    pub fn push_range(&mut self, range: Range<u64>, data: Bytes) -> Result<()> {
        if range.end.checked_sub(range.start) != Some(data.len() as u64) {
            return Err(Error::Request {
                message: format!(
                    "{} bytes pushed for the range {}..{}",
                    data.len(),
                    range.start,
                    range.end
                ),
            });
        }
        match &mut self.state {
            State::Footer { pieces, .. } => pieces.push(range.start, data),
            State::Data(d) => d.push_range(range.start, data),
        }
        Ok(())
    }

    /// Several ranges at once (see [`push_range`](Self::push_range)).
    pub fn push_ranges(
        &mut self,
        ranges: impl IntoIterator<Item = (Range<u64>, Bytes)>,
    ) -> Result<()> {
        ranges
            .into_iter()
            .try_for_each(|(r, data)| self.push_range(r, data))
    }

    /// The Arrow schema of the batches, once the footer is decoded.
    pub fn schema(&self) -> Option<SchemaRef> {
        match &self.state {
            State::Data(d) => Some(d.schema()),
            State::Footer { .. } => None,
        }
    }

    /// What a predicate pruned and kept so far (`None` without one, or
    /// before the footer is decoded).
    pub fn pruning_metrics(&self) -> Option<&crate::predicate::PruningMetrics> {
        match &self.state {
            State::Data(d) => d.pruning_metrics(),
            State::Footer { .. } => None,
        }
    }

    /// The file's metadata, once the footer is decoded.
    pub fn metadata(&self) -> Option<&Arc<ParquetMetaData>> {
        match &self.state {
            State::Data(d) => Some(&d.metadata),
            State::Footer { .. } => None,
        }
    }

    /// Bytes of the file the decoder holds now: pushed bytes not yet used,
    /// and the pages (being decoded, or read ahead) of every column.
    pub fn buffered_bytes(&self) -> usize {
        match &self.state {
            State::Data(d) => d.buffered_bytes(),
            State::Footer { pieces, .. } => pieces.bytes(),
        }
    }

    /// The most bytes of the file the decoder has held at once while
    /// reading the data (see [`buffered_bytes`](Self::buffered_bytes)).
    pub fn peak_buffered_bytes(&self) -> usize {
        match &self.state {
            State::Data(d) => d.peak_buffered_bytes(),
            State::Footer { .. } => 0,
        }
    }
}

impl ParquetPushDecoderBuilder {
    /// Starts from metadata already read (no footer request): from
    /// [`ParquetReader::metadata`](super::ParquetReader::metadata) or an
    /// earlier decoder of the same file.
    pub fn with_metadata(mut self, metadata: Arc<ParquetMetaData>) -> Self {
        self.metadata = Some(metadata);
        self
    }

    /// Limits on decoding the footer and page headers (default:
    /// [`Limits::default`]).
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.opts.page_options = self
            .opts
            .page_options
            .clone()
            .with_format_limits(limits.clone());
        self.limits = limits;
        self
    }

    /// Bytes of the file's end asked for first, for the footer (default
    /// [`pq_format::DEFAULT_FOOTER_PREFETCH`]).
    pub fn with_footer_prefetch(mut self, bytes: u64) -> Self {
        self.footer_prefetch = bytes;
        self
    }

    /// Ranges asked for at once that lie less than `bytes` apart are merged
    /// into one (default 64 KiB): reading a small gap costs less than
    /// another request.
    pub fn with_coalesce_gap(mut self, bytes: u64) -> Self {
        self.opts.coalesce_gap = bytes;
        self
    }

    /// The fewest bytes asked for a page whose size is not known yet
    /// (default 64 KiB; see [`PageOptions::min_read`]). Larger reads mean
    /// fewer requests; each column holds at least this much.
    ///
    /// [`PageOptions::min_read`]: pq_page::PageOptions::min_read
    pub fn with_min_page_read(mut self, bytes: usize) -> Self {
        self.opts.page_options = self.opts.page_options.clone().with_min_read(bytes);
        self
    }

    read_setters!();

    /// The decoder. With [`with_metadata`](Self::with_metadata) the options
    /// are checked here; otherwise once the footer is decoded.
    pub fn build(self) -> Result<ParquetPushDecoder> {
        let state = match self.metadata {
            Some(md) => State::Data(Box::new(self.opts.decoder(md, self.file_len)?)),
            None => State::Footer {
                footer: Box::new(
                    FooterDecoder::new(self.file_len, &self.limits)
                        .with_prefetch(self.footer_prefetch),
                ),
                pieces: Pieces::default(),
                opts: Box::new(self.opts),
                limits: self.limits,
                file_len: self.file_len,
            },
        };
        Ok(ParquetPushDecoder {
            state,
            failed: false,
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_decoder_can_move_between_threads() {
        fn send<T: Send>() {}
        send::<super::ParquetPushDecoder>();
        send::<super::super::ParquetRecordBatchReader>();
    }
}
