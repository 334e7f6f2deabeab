//! The async reader: [`ParquetRecordBatchStreamBuilder`] reads the footer
//! from an [`AsyncRangeReader`], and [`ParquetRecordBatchStream`] drives
//! the same sans-IO core as the sync reader with async fetches.
//!
//! The core decides what to read (projection, row groups, offset and
//! limit, predicate pruning); this module decides how: a page request is
//! widened to the rest of its column chunk (so a row group costs one
//! request, not one per page), nearby ranges are merged, requests run on
//! tokio tasks a bounded number at a time, and the next row group's
//! chunks are fetched while the current one decodes, within a byte budget.
//! An answer is handed to the decoder as it arrives: the pages asked for
//! go to it as soon as their bytes are in, so a row group's first pages
//! decode while the rest of its answer is still on its way.

use std::ops::Range;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use bytes::Bytes;
use futures::Stream;
use pq_format::{FooterDecoder, FooterStep, Limits, ParquetMetaData, SchemaDescriptor};
use tokio::sync::Semaphore;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::task::JoinHandle;

use super::builder::open_metadata;
use super::core::{BatchDecoder, Decoded};
use super::fetch::{
    FetchOptions, FetchStats, fetch, fetch_arriving, fetch_size, fetch_suffix, range_failed,
};
use super::options::ReadOptions;
use super::pieces::coalesce;
use super::range_reader::AsyncRangeReader;
use crate::error::{Error, Location, Result};
use crate::predicate::PruningMetrics;

/// The most a page request is widened by, towards its chunk's end: a
/// chunk larger than this is fetched in parts of this size, so that one
/// huge column does not have to fit in memory at once.
const MAX_WIDENING: u64 = 64 << 20;

/// A page index of at most this many bytes is fetched whole at the first
/// request for a part of it.
const MAX_PAGE_INDEX: u64 = 4 << 20;

/// Below this many bytes fetched for the decoder, the next row group's
/// fetch starts at once rather than after them (see `Driver::serve`).
const PREFETCH_WITH_BYTES: u64 = 8 << 20;

/// A round trip shorter than this is a local network's or machine's: there
/// the next row group's fetch waits until every byte of the current one's
/// is in (see `Driver::prefetch`), and only small gaps are fetched (see
/// `Driver::gap`).
const SHORT_ROUND_TRIP: Duration = Duration::from_millis(5);

/// The largest gap fetched between two wanted ranges, unless the options
/// set one: over a long round trip object_store's default for
/// `get_ranges`, over a short one the sync reader's.
const LONG_ROUND_TRIP_GAP: u64 = 1 << 20;
const SHORT_ROUND_TRIP_GAP: u64 = super::pieces::DEFAULT_COALESCE_GAP;

/// Opens a Parquet file from an [`AsyncRangeReader`] and chooses how it is
/// read; [`build`](Self::build) gives a [`ParquetRecordBatchStream`]. The
/// names and options are those of the sync
/// [`ParquetReader`](super::ParquetReader) (and of arrow-rs's builder of the
/// same name), plus [`FetchOptions`] for the requests.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), pq_arrow::Error> {
/// use futures::TryStreamExt;
/// use pq_arrow::{ParquetRecordBatchStreamBuilder, ProjectionMask, TokioFile};
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
/// let file = TokioFile::open(path).await.map_err(|e| pq_arrow::Error::Io { at: Box::default(), source: e })?;
/// let builder = ParquetRecordBatchStreamBuilder::new(file).await?;
/// let first = ProjectionMask::roots(builder.parquet_schema(), [0]);
/// let stream = builder.with_projection(first).with_batch_size(1024).build()?;
/// let stats = stream.fetch_stats();
/// let batches: Vec<_> = stream.try_collect().await?;
///
/// let sync = pq_arrow::ParquetReader::open(path)?
///     .with_projection(ProjectionMask::roots(
///         pq_arrow::ParquetReader::open(path)?.parquet_schema(),
///         [0],
///     ))
///     .with_batch_size(1024)
///     .build()?
///     .collect::<Result<Vec<_>, _>>()?;
/// assert_eq!(batches, sync);
/// assert!(stats.requests() >= 2); // the footer, then the data
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct ParquetRecordBatchStreamBuilder {
    reader: Arc<dyn AsyncRangeReader>,
    file_len: u64,
    metadata: Arc<ParquetMetaData>,
    schema: SchemaRef,
    opts: ReadOptions,
    fetch: FetchOptions,
    stats: FetchStats,
    /// How long the footer's request took, when it was made here: the
    /// first measure of the source's round trip.
    round_trip: Option<Duration>,
}

impl ParquetRecordBatchStreamBuilder {
    /// Reads the footer of `reader`'s file with the default
    /// [`FetchOptions`].
    pub async fn new(reader: impl AsyncRangeReader + 'static) -> Result<Self> {
        Self::new_with_options(reader, FetchOptions::default()).await
    }

    /// Reads the footer with these fetch options: the file's size, then a
    /// speculative read of its end, and one more request only if the
    /// metadata is larger.
    pub async fn new_with_options(
        reader: impl AsyncRangeReader + 'static,
        fetch_options: FetchOptions,
    ) -> Result<Self> {
        Self::open(Arc::new(reader), fetch_options, &Limits::default()).await
    }

    /// As [`new_with_options`](Self::new_with_options), with limits on the
    /// footer and page headers.
    pub async fn new_with_limits(
        reader: impl AsyncRangeReader + 'static,
        fetch_options: FetchOptions,
        limits: &Limits,
    ) -> Result<Self> {
        Self::open(Arc::new(reader), fetch_options, limits).await
    }

    /// Starts from metadata read before (from an earlier reader of the
    /// same file, or a cache): no footer request. The file's size is still
    /// asked for unless the reader knows it.
    pub async fn new_with_metadata(
        reader: impl AsyncRangeReader + 'static,
        metadata: Arc<ParquetMetaData>,
        fetch_options: FetchOptions,
    ) -> Result<Self> {
        let reader: Arc<dyn AsyncRangeReader> = Arc::new(reader);
        let stats = FetchStats::default();
        let file_len = fetch_size(&*reader, &fetch_options, &stats).await?;
        let schema = super::builder::arrow_schema_of(&metadata)?;
        Ok(ParquetRecordBatchStreamBuilder {
            reader,
            file_len,
            metadata,
            schema,
            opts: ReadOptions::new(&Limits::default()),
            fetch: fetch_options,
            stats,
            round_trip: None,
        })
    }

    /// A builder from a sync reader's parts (see
    /// [`ParquetReader::into_stream_builder`](super::ParquetReader::into_stream_builder)).
    pub(super) fn from_parts(
        reader: Arc<dyn AsyncRangeReader>,
        file_len: u64,
        metadata: Arc<ParquetMetaData>,
        schema: SchemaRef,
        opts: ReadOptions,
        fetch: FetchOptions,
    ) -> Self {
        ParquetRecordBatchStreamBuilder {
            reader,
            file_len,
            metadata,
            schema,
            opts,
            fetch,
            stats: FetchStats::default(),
            round_trip: None,
        }
    }

    async fn open(
        reader: Arc<dyn AsyncRangeReader>,
        fetch_options: FetchOptions,
        limits: &Limits,
    ) -> Result<Self> {
        let stats = FetchStats::default();
        let asked = Instant::now();
        // The size and the footer's speculative read in one request where
        // the source can.
        let (file_len, tail) = fetch_suffix(
            &*reader,
            fetch_options.footer_prefetch,
            &fetch_options,
            &stats,
        )
        .await?;
        let round_trip = Some(asked.elapsed());
        let mut footer = FooterDecoder::new(file_len, limits)
            .with_prefetch(fetch_options.footer_prefetch)
            .with_head_check(fetch_options.check_head);
        let tail_start = file_len.saturating_sub(tail.len() as u64);
        footer
            .push_range(tail_start..file_len, tail)
            .map_err(Error::from)?;
        let md = loop {
            match footer.try_decode().map_err(Error::from)? {
                FooterStep::NeedsData(ranges) => {
                    // The head and tail (when both are asked for) in one
                    // round trip.
                    let fetches = ranges.iter().map(|r| {
                        let at = Location::default().at_offset(r.start);
                        fetch(&*reader, r.clone(), &fetch_options, &stats, at)
                    });
                    let got = futures::future::try_join_all(fetches).await?;
                    for (r, data) in ranges.into_iter().zip(got) {
                        footer.push_range(r, data).map_err(Error::from)?;
                    }
                }
                FooterStep::Metadata(md) => break md,
            }
        };
        let (metadata, schema) = open_metadata(*md, limits)?;
        Ok(ParquetRecordBatchStreamBuilder {
            reader,
            file_len,
            metadata,
            schema,
            opts: ReadOptions::new(limits),
            fetch: fetch_options,
            stats,
            round_trip,
        })
    }

    /// The file's metadata.
    pub fn metadata(&self) -> &Arc<ParquetMetaData> {
        &self.metadata
    }

    /// The file's Parquet schema, to build a
    /// [`ProjectionMask`](super::ProjectionMask) against.
    pub fn parquet_schema(&self) -> &SchemaDescriptor {
        &self.metadata.schema
    }

    /// The Arrow schema of the whole file.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The file's size in bytes.
    pub fn file_len(&self) -> u64 {
        self.file_len
    }

    /// The requests made so far (the footer's), counting on through the
    /// stream's.
    pub fn fetch_stats(&self) -> FetchStats {
        self.stats.clone()
    }

    read_setters!();

    /// The stream. It needs a tokio runtime to be polled in (its requests
    /// run as tokio tasks); polled elsewhere it gives an error.
    pub fn build(self) -> Result<ParquetRecordBatchStream> {
        let mut opts = self.opts;
        // The core's requests are merged here, by the fetch options.
        opts.coalesce_gap = 0;
        let decoder = opts.decoder(self.metadata, self.file_len)?;
        let schema = decoder.schema();
        let metrics = Arc::new(Mutex::new(decoder.pruning_metrics().cloned()));
        let page_index = decoder.page_index_region(MAX_PAGE_INDEX);
        let (arrived, arrivals) = tokio::sync::mpsc::unbounded_channel();
        let driver = Driver {
            reader: self.reader,
            decoder,
            page_index,
            limit: Arc::new(Semaphore::new(self.fetch.max_requests)),
            fetch: self.fetch,
            stats: self.stats.clone(),
            held: Vec::new(),
            next_id: 0,
            arrived,
            arrivals,
            metrics: metrics.clone(),
            failed: false,
            round_trip: self.round_trip,
        };
        let inner = futures::stream::unfold(driver, |mut d| async move {
            if d.failed {
                return None;
            }
            match d.next_batch().await {
                Ok(Some(b)) => Some((Ok(b), d)),
                Ok(None) => None,
                Err(e) => {
                    d.failed = true;
                    Some((Err(e), d))
                }
            }
        });
        Ok(ParquetRecordBatchStream {
            schema,
            stats: self.stats,
            metrics,
            inner: Box::pin(inner),
        })
    }
}

/// The batches of a Parquet file read through an [`AsyncRangeReader`]: a
/// `Stream<Item = Result<RecordBatch>>`, the batches those of the sync
/// reader with the same options. After an error the stream ends.
pub struct ParquetRecordBatchStream {
    schema: SchemaRef,
    stats: FetchStats,
    metrics: Arc<Mutex<Option<PruningMetrics>>>,
    inner: Pin<Box<dyn Stream<Item = Result<RecordBatch>> + Send>>,
}

impl std::fmt::Debug for ParquetRecordBatchStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetRecordBatchStream")
            .field("schema", &self.schema)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl ParquetRecordBatchStream {
    /// The Arrow schema of the batches.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// What was fetched so far, the footer's requests included; the
    /// returned counts keep counting.
    pub fn fetch_stats(&self) -> FetchStats {
        self.stats.clone()
    }

    /// What a predicate pruned and kept so far (`None` without one).
    pub fn pruning_metrics(&self) -> Option<PruningMetrics> {
        self.metrics.lock().ok().and_then(|m| m.clone())
    }
}

impl Stream for ParquetRecordBatchStream {
    type Item = Result<RecordBatch>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

/// A range fetched, or being fetched, for the decoder.
struct Held {
    /// Names its fetch's pieces on the channel they arrive by.
    id: u64,
    range: Range<u64>,
    /// The pieces arrived so far, in order (see
    /// [`AsyncRangeReader::get_range_stream`]), each with its offset in
    /// the file.
    pieces: Vec<(u64, Bytes)>,
    /// Where the bytes arrived so far end (`range.start` before any).
    arrived: u64,
    /// The fetch, until its last byte has arrived or it failed.
    task: Option<JoinHandle<()>>,
    /// When the fetch was started.
    started: Instant,
    /// How the fetch failed, until the error is reported.
    failure: Option<Error>,
    /// Pushed to the decoder (whose readers then hold it).
    pushed: bool,
}

impl Held {
    /// Whether the bytes of `r` (within this range) have all arrived.
    fn has(&self, r: &Range<u64>) -> bool {
        self.arrived >= r.end.min(self.range.end)
    }

    /// The pieces that hold bytes of `r`: found by their offsets, since
    /// an answer may come in thousands.
    fn pieces_of(&self, r: &Range<u64>) -> impl Iterator<Item = &(u64, Bytes)> {
        let first = self
            .pieces
            .partition_point(|(at, p)| at.saturating_add(p.len() as u64) <= r.start);
        let end = r.end;
        self.pieces
            .get(first..)
            .unwrap_or_default()
            .iter()
            .take_while(move |(at, _)| *at < end)
    }
}

/// A piece of a fetch's answer as it arrived, or how the fetch failed,
/// with the id of the [`Held`] range it is for.
type Arrival = (u64, Result<Bytes>);

/// Sends an error for its fetch if dropped before the fetch ended (the
/// task panicked): the driver, waiting for the fetch's bytes, then stops
/// waiting.
struct Unfinished {
    id: u64,
    arrived: UnboundedSender<Arrival>,
    range: Range<u64>,
    object: String,
    done: bool,
}

impl Unfinished {
    /// The fetch ended: its pieces, or its error, were sent.
    fn finish(&mut self) {
        self.done = true;
    }
}

impl Drop for Unfinished {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.arrived.send((
                self.id,
                Err(range_failed(
                    std::mem::take(&mut self.object),
                    self.range.clone(),
                    1,
                    Location::default(),
                    std::io::Error::other("the fetch ended before its answer"),
                )),
            ));
        }
    }
}

/// The loop of the stream: decode, and fetch what the decoder asks for.
struct Driver {
    reader: Arc<dyn AsyncRangeReader>,
    decoder: BatchDecoder,
    /// The file's page index, when small enough to fetch whole (see
    /// [`BatchDecoder::page_index_region`]).
    page_index: Option<Range<u64>>,
    fetch: FetchOptions,
    stats: FetchStats,
    /// Requests in flight, at most `max_requests`.
    limit: Arc<Semaphore>,
    /// Ranges fetched or being fetched, kept while the row group being
    /// read or the next one overlaps them.
    held: Vec<Held>,
    next_id: u64,
    /// Every fetch hands on its pieces here, as they arrive...
    arrived: UnboundedSender<Arrival>,
    /// ...and the driver takes them here: one channel for all, so that
    /// the driver can wait for whichever asked-for range comes first.
    arrivals: UnboundedReceiver<Arrival>,
    metrics: Arc<Mutex<Option<PruningMetrics>>>,
    failed: bool,
    /// The shortest time a request took to its first bytes (or the
    /// footer's request to its end), once there was one.
    round_trip: Option<Duration>,
}

impl Drop for Driver {
    fn drop(&mut self) {
        // A dropped stream's requests are not wanted any more.
        for h in &self.held {
            if let Some(task) = &h.task {
                task.abort();
            }
        }
    }
}

impl Driver {
    async fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(Error::Request {
                message: "the async reader must be polled inside a tokio runtime".into(),
            });
        }
        // What was served last: the decoder asking for it again means the
        // bytes pushed did not reach it, and serving it again would loop.
        let mut served: Option<Vec<Range<u64>>> = None;
        loop {
            match self.decoder.next()? {
                Decoded::Batch(b) => {
                    if let Ok(mut m) = self.metrics.lock() {
                        *m = self.decoder.pruning_metrics().cloned();
                    }
                    // Pieces of a finished row group go as soon as the next
                    // one is read, not at the next request. (Not inside
                    // `serve`, which holds indexes into `held`.)
                    self.evict();
                    self.prefetch();
                    return Ok(Some(b));
                }
                Decoded::Finished => {
                    if let Ok(mut m) = self.metrics.lock() {
                        *m = self.decoder.pruning_metrics().cloned();
                    }
                    return Ok(None);
                }
                Decoded::Needs(ranges) => {
                    if served.as_ref() == Some(&ranges) {
                        return Err(self.stalled(&ranges));
                    }
                    self.serve(&ranges).await?;
                    served = Some(ranges);
                }
            }
        }
    }

    /// Fetches the bytes of `ranges` (those not held yet), waits until
    /// those of at least one have arrived, and pushes every asked-for range
    /// that has arrived. The decoder takes what it can of them and asks
    /// again for the rest: a row group's first pages are decoded while the
    /// rest of its answer is on its way.
    async fn serve(&mut self, ranges: &[Range<u64>]) -> Result<()> {
        self.evict();
        let missing: Vec<Range<u64>> = ranges
            .iter()
            .filter(|r| self.cover(r).is_none())
            .map(|r| self.widen(r.clone()))
            .collect();
        // The first request for a row group's chunks takes all of them, as
        // a prefetch of the row group would have: a predicate's columns,
        // read first, would otherwise be one request and the columns read
        // after them another, the first ones' bytes fetched again in it.
        let whole = self.unheld_row_group(&missing);
        let fetches = if whole.is_empty() { missing } else { whole };
        for r in coalesce(fetches, self.gap()) {
            self.start(r);
        }
        // A small fetch over a long round trip is bound by it: the next
        // row group's requests go out with it (a large one, or any over a
        // short round trip, holds them back: see `prefetch`).
        self.prefetch();
        // Each asked range with the held ranges that cover it, those just
        // started included. (One that is not covered is asked for again by
        // the decoder, which `next_batch` turns into an error.)
        let asked: Vec<(Range<u64>, Vec<usize>)> = ranges
            .iter()
            .filter_map(|r| self.cover(r).map(|c| (r.clone(), c)))
            .collect();
        let ready = |held: &[Held], (r, cover): &(Range<u64>, Vec<usize>)| {
            cover.iter().all(|&i| held.get(i).is_some_and(|h| h.has(r)))
        };
        loop {
            self.take_arrived();
            if asked.is_empty() || asked.iter().any(|a| ready(&self.held, a)) {
                break;
            }
            // A failed fetch of an asked range ends the reading with its
            // error (the stream ends after it).
            for (r, cover) in &asked {
                for &i in cover {
                    if let Some(h) = self.held.get_mut(i)
                        && !h.has(r)
                        && let Some(e) = h.failure.take()
                    {
                        return Err(e);
                    }
                }
            }
            match self.arrivals.recv().await {
                Some(arrival) => self.receive(arrival),
                // Not while the driver holds a sender.
                None => break,
            }
        }
        for a in &asked {
            if !ready(&self.held, a) {
                continue;
            }
            let r = &a.0;
            for &i in &a.1 {
                let Some(h) = self.held.get_mut(i) else {
                    continue;
                };
                // Only the pieces that hold asked-for bytes: an answer of
                // many pieces is handed on a page's worth at a time.
                for (at, piece) in h.pieces_of(r) {
                    self.decoder.push_range(*at, piece.clone());
                }
                h.pushed = true;
            }
        }
        self.prefetch();
        Ok(())
    }

    /// Starts fetching `r` on a task, its pieces arriving by `arrivals`.
    fn start(&mut self, r: Range<u64>) {
        let reader = self.reader.clone();
        let options = self.fetch.clone();
        let stats = self.stats.clone();
        let limit = self.limit.clone();
        let at = self.decoder.location_of(r.start);
        let id = self.next_id;
        self.next_id += 1;
        let mut unfinished = Unfinished {
            id,
            arrived: self.arrived.clone(),
            range: r.clone(),
            object: self.reader.name(),
            done: false,
        };
        let range = r.clone();
        let task = tokio::spawn(async move {
            // A closed semaphore cannot happen (it is never closed); were
            // it to, the request goes ahead unlimited.
            let _permit = limit.acquire_owned().await.ok();
            let arrived = &unfinished.arrived;
            let deliver = |piece: Result<Bytes>| arrived.send((id, piece)).is_ok();
            fetch_arriving(&*reader, range, &options, &stats, at, &deliver).await;
            unfinished.finish();
        });
        self.held.push(Held {
            id,
            range: r.clone(),
            pieces: Vec::new(),
            arrived: r.start,
            task: Some(task),
            started: Instant::now(),
            failure: None,
            pushed: false,
        });
    }

    /// Takes the pieces that have arrived, without waiting.
    fn take_arrived(&mut self) {
        while let Ok(arrival) = self.arrivals.try_recv() {
            self.receive(arrival);
        }
    }

    /// Files an arrived piece (or a fetch's failure) with its range; those
    /// of ranges no longer held are dropped.
    fn receive(&mut self, (id, piece): Arrival) {
        let Some(h) = self.held.iter_mut().find(|h| h.id == id) else {
            return;
        };
        match piece {
            Ok(piece) => {
                if h.arrived == h.range.start {
                    let took = h.started.elapsed();
                    self.round_trip = Some(self.round_trip.map_or(took, |t| t.min(took)));
                }
                let at = h.arrived;
                h.arrived = h.arrived.saturating_add(piece.len() as u64);
                h.pieces.push((at, piece));
                if h.arrived >= h.range.end {
                    h.task = None;
                }
            }
            Err(e) => {
                h.failure = Some(e);
                h.task = None;
            }
        }
    }

    /// The error for ranges served and asked for again: a fault of the
    /// reader (or of a source answering with other bytes than it was
    /// asked for), reported rather than looped on.
    fn stalled(&self, ranges: &[Range<u64>]) -> Error {
        let first = ranges.first().cloned().unwrap_or_default();
        let at = self.decoder.location_of(first.start);
        range_failed(
            self.reader.name(),
            first,
            1,
            at,
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "the bytes fetched for it did not cover it",
            ),
        )
    }

    /// The parts of the current row group's chunks not held yet, when
    /// `missing` (not empty) lies within them and the row group, read
    /// whole, fits the prefetch budget beside what is held; else nothing.
    fn unheld_row_group(&self, missing: &[Range<u64>]) -> Vec<Range<u64>> {
        if missing.is_empty() || self.fetch.prefetch_bytes == 0 {
            return Vec::new();
        }
        let whole = self.decoder.current_row_group_ranges();
        let inside = |m: &Range<u64>| whole.iter().any(|w| w.start <= m.start && m.end <= w.end);
        if !missing.iter().all(inside) {
            return Vec::new();
        }
        let mut held: Vec<Range<u64>> = self.held.iter().map(|h| h.range.clone()).collect();
        held.sort_unstable_by_key(|r| r.start);
        let mut unheld = Vec::new();
        for w in whole {
            let mut at = w.start;
            for h in held.iter().filter(|h| h.start < w.end && h.end > w.start) {
                if h.start > at {
                    unheld.push(at..h.start);
                }
                at = at.max(h.end);
            }
            if at < w.end {
                unheld.push(at..w.end);
            }
        }
        if !self.fits_budget(&unheld) {
            return Vec::new();
        }
        unheld
    }

    /// Whether fetching `ranges` keeps the bytes held, fetched and not yet
    /// pushed or in the decoder, within the prefetch budget.
    fn fits_budget(&self, ranges: &[Range<u64>]) -> bool {
        let wanted: u64 = ranges.iter().map(|r| r.end - r.start).sum();
        let unpushed: u64 = self
            .held
            .iter()
            .filter(|h| !h.pushed)
            .map(|h| h.range.end - h.range.start)
            .sum();
        let held = unpushed + self.decoder.buffered_bytes() as u64;
        held.saturating_add(wanted) <= self.fetch.prefetch_bytes as u64
    }

    /// The held ranges that together cover `r`, or `None`.
    fn cover(&self, r: &Range<u64>) -> Option<Vec<usize>> {
        let mut overlapping: Vec<usize> = (0..self.held.len())
            .filter(|&i| {
                self.held
                    .get(i)
                    .is_some_and(|h| h.range.start < r.end && h.range.end > r.start)
            })
            .collect();
        overlapping.sort_by_key(|&i| self.held.get(i).map_or(0, |h| h.range.start));
        let mut at = r.start;
        let mut used = Vec::new();
        for i in overlapping {
            let Some(h) = self.held.get(i) else { continue };
            if h.range.start <= at && h.range.end > at {
                at = h.range.end;
                used.push(i);
                if at >= r.end {
                    return Some(used);
                }
            }
        }
        None
    }

    /// `r` widened towards the end of its column chunk (see
    /// [`MAX_WIDENING`]), or to the whole page index when it lies there
    /// (see [`BatchDecoder::page_index_region`]).
    fn widen(&self, r: Range<u64>) -> Range<u64> {
        if let Some(index) = &self.page_index
            && index.start <= r.start
            && r.end <= index.end
        {
            return index.clone();
        }
        match self.decoder.chunk_end(r.start) {
            Some(end) if end > r.end => {
                r.start..end.min(r.end.saturating_add(MAX_WIDENING)).max(r.end)
            }
            _ => r,
        }
    }

    /// Whether the shortest round trip seen is a local network's or
    /// machine's (see [`SHORT_ROUND_TRIP`]).
    fn short_round_trip(&self) -> bool {
        self.round_trip.is_some_and(|t| t < SHORT_ROUND_TRIP)
    }

    /// The largest gap between two wanted ranges fetched with them: the
    /// options' when set, else by the round trip. Over a short one, the
    /// bytes of a gap cost more than a request: 3 of 16 columns of a 4
    /// Mi-row file on loopback, where the 0.9 MB of three unread columns
    /// lay between two read ones, fetched 11.7 MB instead of 15.4 in 13
    /// requests instead of 9, with 8 % less CPU time and 0.94-0.99 of the
    /// wall time.
    fn gap(&self) -> u64 {
        match self.fetch.coalesce_gap {
            Some(gap) => gap,
            None if self.short_round_trip() => SHORT_ROUND_TRIP_GAP,
            None => LONG_ROUND_TRIP_GAP,
        }
    }

    /// Fetches the next row group's chunks when they fit in the budget with
    /// what is held.
    fn prefetch(&mut self) {
        if self.fetch.prefetch_bytes == 0 {
            return;
        }
        // A large fetch still arriving is bound by bandwidth: the next row
        // group's requests wait until it is in, so as not to slow it. Over
        // a short round trip every fetch is: the next row group's requests
        // then wait for all of it (and cost at most that round trip when
        // they go), so that the bytes the decoder needs first do not share
        // the source with bytes needed later. On loopback with no latency,
        // 3 of 16 columns of a 4 Mi-row file: 23.2 -> 21.8 ms, against
        // 18.6 ms for the same read from a local path.
        self.take_arrived();
        let arriving: u64 = self
            .held
            .iter()
            .filter(|h| h.task.is_some())
            .map(|h| h.range.end.saturating_sub(h.arrived))
            .sum();
        let short = self.short_round_trip();
        if arriving >= PREFETCH_WITH_BYTES || (short && arriving > 0) {
            return;
        }
        let next: Vec<Range<u64>> = self
            .decoder
            .next_row_group_ranges()
            .into_iter()
            .filter(|r| self.cover(r).is_none())
            .collect();
        if next.is_empty() {
            return;
        }
        if !self.fits_budget(&next) {
            return;
        }
        for r in coalesce(next, self.gap()) {
            self.start(r);
        }
    }

    /// Drops the ranges that serve neither the row group being read nor
    /// the next one (those the decoder took, its readers still hold).
    fn evict(&mut self) {
        let mut keep: Vec<Range<u64>> =
            self.decoder.chunks.iter().map(|(r, _)| r.clone()).collect();
        keep.extend(self.decoder.next_row_group_ranges());
        self.held.retain(|h| {
            h.task.is_some()
                || keep
                    .iter()
                    .any(|k| k.start < h.range.end && k.end > h.range.start)
        });
    }
}
