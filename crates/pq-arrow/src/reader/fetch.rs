//! How the async reader fetches: its options ([`FetchOptions`]), one range
//! fetched with a timeout, bounded retries and a length check, and the
//! counts of what was fetched ([`FetchStats`]).

use std::io;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use futures::future::BoxFuture;

use super::range_reader::AsyncRangeReader;
use crate::error::{Error, Location, Result};

/// How [`ParquetRecordBatchStream`](super::ParquetRecordBatchStream)
/// fetches: request sizes, concurrency, prefetch, timeouts and retries.
///
/// The defaults suit an object store: one request for the footer when it
/// is under 64 KiB, column chunks fetched whole with ranges less than
/// 1 MiB apart merged, 8 requests in flight, the next row group fetched
/// while the current one decodes when both fit in 256 MiB, 30 s per
/// request, and 3 retries with a backoff from 100 ms doubling to 2 s.
///
/// ```
/// use std::time::Duration;
/// let options = pq_arrow::FetchOptions::default()
///     .with_request_timeout(Duration::from_secs(5))
///     .with_retries(1)
///     .with_prefetch_bytes(64 << 20);
/// assert_eq!(options.retries(), 1);
/// ```
#[derive(Debug, Clone)]
pub struct FetchOptions {
    pub(super) footer_prefetch: u64,
    pub(super) check_head: bool,
    /// `None`: chosen by the round trip (see [`FetchOptions::with_coalesce_gap`]).
    pub(super) coalesce_gap: Option<u64>,
    pub(super) max_requests: usize,
    pub(super) prefetch_bytes: usize,
    pub(super) request_timeout: Duration,
    pub(super) retries: u32,
    pub(super) backoff: Duration,
    pub(super) max_backoff: Duration,
}

impl Default for FetchOptions {
    fn default() -> Self {
        FetchOptions {
            footer_prefetch: pq_format::DEFAULT_FOOTER_PREFETCH,
            check_head: false,
            coalesce_gap: None,
            max_requests: 8,
            prefetch_bytes: 256 << 20,
            request_timeout: Duration::from_secs(30),
            retries: 3,
            backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(2),
        }
    }
}

impl FetchOptions {
    /// Bytes of the file's end asked for first (default 64 KiB): the
    /// footer in one request when its metadata fits, else one more.
    pub fn with_footer_prefetch(mut self, bytes: u64) -> Self {
        self.footer_prefetch = bytes.max(8);
        self
    }

    /// Whether the magic at the start of the file is fetched and checked
    /// too (default no, as arrow-rs's async reader: over a network it costs
    /// a second request; the footer's magic, lengths and metadata are
    /// checked all the same). The sync reader always checks it.
    pub fn with_head_check(mut self, check: bool) -> Self {
        self.check_head = check;
        self
    }

    /// Ranges less than `bytes` apart are fetched as one. Unset (the
    /// default), the gap follows the shortest round trip seen (the
    /// footer's request, then each answer's first bytes): 1 MiB
    /// (object_store's own default for `get_ranges`), where a request
    /// costs more than reading a gap, and 64 KiB over a round trip under
    /// 5 ms (a local network or machine), where the bytes are what costs
    /// and another request next to nothing.
    pub fn with_coalesce_gap(mut self, bytes: u64) -> Self {
        self.coalesce_gap = Some(bytes);
        self
    }

    /// Requests in flight at once (default 8; at least 1).
    pub fn with_max_requests(mut self, requests: usize) -> Self {
        self.max_requests = requests.max(1);
        self
    }

    /// Bytes the reader may hold fetched ahead: the next row group's
    /// column chunks are fetched while the current one decodes only when
    /// they fit with what is held (default 256 MiB; 0 turns prefetch off).
    /// Over a short round trip (under 5 ms: a local network or machine)
    /// they are asked for once the current row group's bytes are all in.
    pub fn with_prefetch_bytes(mut self, bytes: usize) -> Self {
        self.prefetch_bytes = bytes;
        self
    }

    /// The longest one request may take, the whole body included (default
    /// 30 s); a request that takes longer is a failed attempt.
    pub fn with_request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Attempts after the first for a request that failed in a way that may
    /// pass (a timeout, a reset, a short body, a server error; default 3).
    pub fn with_retries(mut self, retries: u32) -> Self {
        self.retries = retries;
        self
    }

    /// The wait before the first retry (default 100 ms), doubled for each
    /// next one up to `max` (default 2 s).
    pub fn with_backoff(mut self, first: Duration, max: Duration) -> Self {
        self.backoff = first;
        self.max_backoff = max.max(first);
        self
    }

    /// Attempts after the first (see [`with_retries`](Self::with_retries)).
    pub fn retries(&self) -> u32 {
        self.retries
    }

    /// Bytes of the file's end asked for first (see
    /// [`with_footer_prefetch`](Self::with_footer_prefetch)).
    pub fn footer_prefetch(&self) -> u64 {
        self.footer_prefetch
    }

    /// Whether the magic at the start is checked (see
    /// [`with_head_check`](Self::with_head_check)).
    pub fn head_check(&self) -> bool {
        self.check_head
    }

    /// The largest gap merged into one request, when set; `None` when it
    /// follows the round trip (see
    /// [`with_coalesce_gap`](Self::with_coalesce_gap)).
    pub fn coalesce_gap(&self) -> Option<u64> {
        self.coalesce_gap
    }

    /// Requests in flight at once (see
    /// [`with_max_requests`](Self::with_max_requests)).
    pub fn max_requests(&self) -> usize {
        self.max_requests
    }

    /// Bytes that may be held fetched ahead (see
    /// [`with_prefetch_bytes`](Self::with_prefetch_bytes)).
    pub fn prefetch_bytes(&self) -> usize {
        self.prefetch_bytes
    }

    /// The longest one request may take (see
    /// [`with_request_timeout`](Self::with_request_timeout)).
    pub fn request_timeout(&self) -> Duration {
        self.request_timeout
    }

    /// The first and the longest wait between attempts (see
    /// [`with_backoff`](Self::with_backoff)).
    pub fn backoff(&self) -> (Duration, Duration) {
        (self.backoff, self.max_backoff)
    }
}

/// What a stream has fetched so far: requests (each attempt counts),
/// retries among them, and bytes received. Shared: a clone taken before
/// the stream is read keeps counting.
#[derive(Debug, Clone, Default)]
pub struct FetchStats {
    inner: Arc<Counts>,
}

#[derive(Debug, Default)]
struct Counts {
    requests: AtomicU64,
    retries: AtomicU64,
    bytes: AtomicU64,
}

impl FetchStats {
    /// Requests made (attempts, retries included).
    pub fn requests(&self) -> u64 {
        self.inner.requests.load(Ordering::Relaxed)
    }

    /// Requests that repeated a failed one.
    pub fn retries(&self) -> u64 {
        self.inner.retries.load(Ordering::Relaxed)
    }

    /// Bytes received and used: those of answers of the right length, and
    /// the part of a column chunk's answer handed on before it broke off
    /// (the rest is asked for again, not the whole).
    pub fn bytes(&self) -> u64 {
        self.inner.bytes.load(Ordering::Relaxed)
    }
}

/// Whether an error of a reader may pass on a retry (see
/// [`AsyncRangeReader`]).
fn transient(e: &io::Error) -> bool {
    !matches!(
        e.kind(),
        io::ErrorKind::NotFound
            | io::ErrorKind::PermissionDenied
            | io::ErrorKind::InvalidInput
            | io::ErrorKind::InvalidData
            | io::ErrorKind::Unsupported
    )
}

/// The bytes of `range` of `reader`'s file, with `options`' timeout,
/// retries and length check, counted in `stats`: one request as the async
/// reader makes it, for callers that read a file's bytes themselves (a
/// blocking adapter, say).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use pq_arrow::{FetchOptions, FetchStats, TokioFile, fetch_range};
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
/// let file = TokioFile::open(path).await?;
/// let stats = FetchStats::default();
/// let head = fetch_range(&file, 0..4, &FetchOptions::default(), &stats).await?;
/// assert_eq!(&head[..], b"PAR1");
/// assert_eq!((stats.requests(), stats.bytes()), (1, 4));
/// # Ok(())
/// # }
/// ```
pub async fn fetch_range(
    reader: &dyn AsyncRangeReader,
    range: Range<u64>,
    options: &FetchOptions,
    stats: &FetchStats,
) -> Result<Bytes> {
    fetch(reader, range, options, stats, Location::default()).await
}

/// The bytes of `range`, with the options' timeout, retries and backoff; a
/// short or long answer is a failed attempt. `at` says what the range was
/// for, in the error.
pub(super) async fn fetch(
    reader: &dyn AsyncRangeReader,
    range: Range<u64>,
    options: &FetchOptions,
    stats: &FetchStats,
    at: Location,
) -> Result<Bytes> {
    let want = range.end.saturating_sub(range.start);
    let call = || reader.get_range(range.clone());
    let got = attempts(options, stats, call, |data: &Bytes| {
        let n = data.len();
        (n as u64 != want).then(|| {
            io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("the answer held {n} bytes, not {want}"),
            )
        })
    })
    .await;
    match got {
        Ok(data) => {
            stats.inner.bytes.fetch_add(want, Ordering::Relaxed);
            Ok(data)
        }
        Err((source, attempts)) => Err(range_failed(reader.name(), range, attempts, at, source)),
    }
}

/// The error of a fetch of `range` of `object` that failed after
/// `attempts` requests; `at` says what the range was for.
pub(super) fn range_failed(
    object: String,
    range: Range<u64>,
    attempts: u32,
    at: Location,
    source: io::Error,
) -> Error {
    Error::Fetch {
        object,
        what: format!("bytes {}..{}", range.start, range.end),
        range: Some(range),
        attempts,
        at: Box::new(at),
        source,
    }
}

/// [`fetch`], each piece handed to `deliver` as it comes (see
/// [`AsyncRangeReader::get_range_stream`]), so that the decoder can take
/// the pages already in while the rest is on its way. A failed attempt is
/// retried from the first byte not yet handed on, so no byte is handed on
/// twice; the pieces end with every byte of `range` or with the error.
/// Nothing waiting for them any more (`deliver` returns false) ends the
/// fetch.
pub(super) async fn fetch_arriving(
    reader: &dyn AsyncRangeReader,
    range: Range<u64>,
    options: &FetchOptions,
    stats: &FetchStats,
    at: Location,
    deliver: &(dyn Fn(Result<Bytes>) -> bool + Sync),
) {
    // Bytes handed on so far, across attempts (an atomic only so that the
    // attempts' futures are `Send`).
    let sent = AtomicU64::new(0);
    let call = || -> BoxFuture<'_, io::Result<()>> {
        Box::pin(async {
            let from = range.start.saturating_add(sent.load(Ordering::Relaxed));
            let asked = range.end.saturating_sub(from);
            let mut got: u64 = 0;
            let mut pieces = reader.get_range_stream(from..range.end);
            while let Some(piece) = pieces.next().await {
                let piece = piece?;
                got = got.saturating_add(piece.len() as u64);
                // More than asked for: the source is not answering this
                // range, and another attempt would not mend it.
                if got > asked {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("the answer held more than the {asked} bytes asked for"),
                    ));
                }
                sent.fetch_add(piece.len() as u64, Ordering::Relaxed);
                // Counted as handed on: the reader may be done with the
                // range (and report its counts) before the body's end is
                // seen.
                stats
                    .inner
                    .bytes
                    .fetch_add(piece.len() as u64, Ordering::Relaxed);
                if !deliver(Ok(piece)) {
                    return Ok(());
                }
            }
            if got < asked {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("the answer held {got} bytes, not {asked}"),
                ));
            }
            Ok(())
        })
    };
    if let Err((source, attempts)) = attempts(options, stats, call, |_| None).await {
        // Nobody may be waiting any more; then there is no one to tell.
        deliver(Err(range_failed(
            reader.name(),
            range,
            attempts,
            at,
            source,
        )));
    }
}

/// The size of `reader`'s file, with `options`' timeout and retries,
/// counted in `stats` (see [`fetch_range`]).
pub async fn fetch_size(
    reader: &dyn AsyncRangeReader,
    options: &FetchOptions,
    stats: &FetchStats,
) -> Result<u64> {
    attempts(options, stats, || reader.size(), |_| None)
        .await
        .map_err(|(source, attempts)| Error::Fetch {
            object: reader.name(),
            what: "the size".into(),
            range: None,
            attempts,
            at: Box::default(),
            source,
        })
}

/// The size of `reader`'s file and its last `n` bytes (see
/// [`AsyncRangeReader::get_suffix`]: one request where the source can),
/// with `options`' timeout, retries and length check, counted in `stats`.
pub async fn fetch_suffix(
    reader: &dyn AsyncRangeReader,
    n: u64,
    options: &FetchOptions,
    stats: &FetchStats,
) -> Result<(u64, Bytes)> {
    let got = attempts(
        options,
        stats,
        || reader.get_suffix(n),
        |(len, tail): &(u64, Bytes)| {
            (tail.len() as u64 != n.min(*len)).then(|| {
                io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("the answer held {} bytes, not {}", tail.len(), n.min(*len)),
                )
            })
        },
    )
    .await;
    match got {
        Ok((len, tail)) => {
            stats
                .inner
                .bytes
                .fetch_add(tail.len() as u64, Ordering::Relaxed);
            Ok((len, tail))
        }
        Err((source, attempts)) => Err(Error::Fetch {
            object: reader.name(),
            what: format!("the last {n} bytes"),
            range: None,
            attempts,
            at: Box::default(),
            source,
        }),
    }
}

/// Calls `call` until an answer passes `check`, an error is final, or the
/// retries are spent; the last error and the attempts made.
async fn attempts<'a, T>(
    options: &FetchOptions,
    stats: &FetchStats,
    mut call: impl FnMut() -> BoxFuture<'a, io::Result<T>>,
    check: impl Fn(&T) -> Option<io::Error>,
) -> std::result::Result<T, (io::Error, u32)> {
    let mut backoff = options.backoff;
    let mut attempts = 0;
    loop {
        attempts += 1;
        stats.inner.requests.fetch_add(1, Ordering::Relaxed);
        let outcome = match tokio::time::timeout(options.request_timeout, call()).await {
            Ok(Ok(answer)) => match check(&answer) {
                None => return Ok(answer),
                Some(e) => e,
            },
            Ok(Err(e)) => e,
            Err(_) => io::Error::new(
                io::ErrorKind::TimedOut,
                format!("no whole answer within {:?}", options.request_timeout),
            ),
        };
        if !transient(&outcome) || attempts > options.retries {
            return Err((outcome, attempts));
        }
        stats.inner.retries.fetch_add(1, Ordering::Relaxed);
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(options.max_backoff);
    }
}
