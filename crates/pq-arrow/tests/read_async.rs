//! The async reader reads every file as the sync reader does: for the
//! fixtures and the corpus (`data/` and `bad_data/`), through a tokio file
//! and through an in-memory object store, with every kind of option, the
//! batches (or the one-line error) are the sync reader's. It fetches only
//! what the options choose (every request inside the footer or a chosen
//! chunk), in few requests, and survives failing sources: transient
//! errors, short answers and requests that never end are retried within
//! the timeouts, and a source that keeps failing ends in one error naming
//! the object and the range.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;
use bytes::Bytes;
use futures::future::BoxFuture;
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use object_store::ObjectStoreExt;
use object_store::memory::InMemory;
use object_store::path::Path as ObjectPath;
use pq_arrow::predicate::{Predicate, PruningOptions};
use pq_arrow::{
    AsyncRangeReader, FetchOptions, ObjectStoreReader, ParquetReader,
    ParquetRecordBatchStreamBuilder, ProjectionMask, TokioFile,
};

/// Batches read until the first error, and that error.
#[derive(Debug, PartialEq)]
struct Outcome {
    batches: Vec<RecordBatch>,
    error: Option<String>,
}

const BATCH: usize = 333;

/// The tests that judge a round trip by the clock run alone, the others
/// side by side: the reader counts a round trip under 5 ms as short, and
/// beside the corpus tests on two busy cores an answer with no latency
/// at all once took longer than that.
static CLOCK: RwLock<()> = RwLock::new(());

/// Held by a test that times round trips: no other test runs meanwhile.
fn alone() -> RwLockWriteGuard<'static, ()> {
    CLOCK.write().unwrap_or_else(|p| p.into_inner())
}

/// Held by every other test: they run side by side.
fn beside() -> RwLockReadGuard<'static, ()> {
    CLOCK.read().unwrap_or_else(|p| p.into_inner())
}

fn files() -> Vec<PathBuf> {
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data")];
    if let Some(corpus) = pq_testkit::parquet_testing_dir() {
        dirs.push(corpus.join("data"));
        dirs.push(corpus.join("bad_data"));
    }
    let mut out = Vec::new();
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "parquet") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The options a test applies to both readers.
type Options = dyn Fn(ParquetReaderLike) -> ParquetReaderLike;

/// The sync reader's outcome with `options`.
fn sync(path: &Path, options: &Options) -> Outcome {
    let mut batches = Vec::new();
    let reader = ParquetReader::open(path)
        .map(|r| options(ParquetReaderLike::Sync(r.with_batch_size(BATCH))))
        .and_then(|r| match r {
            ParquetReaderLike::Sync(r) => r.build(),
            ParquetReaderLike::Async(_) => unreachable!(),
        });
    let mut reader = match reader {
        Ok(r) => r,
        Err(e) => {
            return Outcome {
                batches,
                error: Some(e.to_string()),
            };
        }
    };
    loop {
        match reader.next_batch() {
            Ok(Some(b)) => batches.push(b),
            Ok(None) => {
                return Outcome {
                    batches,
                    error: None,
                };
            }
            Err(e) => {
                return Outcome {
                    batches,
                    error: Some(e.to_string()),
                };
            }
        }
    }
}

/// Either builder, so that one closure sets the same options on both.
enum ParquetReaderLike {
    Sync(ParquetReader),
    Async(ParquetRecordBatchStreamBuilder),
}

macro_rules! both {
    ($r:expr, |$b:ident| $body:expr) => {
        match $r {
            ParquetReaderLike::Sync($b) => ParquetReaderLike::Sync($body),
            ParquetReaderLike::Async($b) => ParquetReaderLike::Async($body),
        }
    };
}

/// The async reader's outcome over `reader` with `options`.
async fn read_async(
    reader: impl AsyncRangeReader + 'static,
    fetch: FetchOptions,
    options: &Options,
) -> Outcome {
    let mut batches = Vec::new();
    let builder = ParquetRecordBatchStreamBuilder::new_with_options(reader, fetch)
        .await
        .map(|b| options(ParquetReaderLike::Async(b.with_batch_size(BATCH))))
        .and_then(|r| match r {
            ParquetReaderLike::Async(b) => b.build(),
            ParquetReaderLike::Sync(_) => unreachable!(),
        });
    let mut stream = match builder {
        Ok(s) => s,
        Err(e) => {
            return Outcome {
                batches,
                error: Some(e.to_string()),
            };
        }
    };
    while let Some(b) = stream.next().await {
        match b {
            Ok(b) => batches.push(b),
            Err(e) => {
                return Outcome {
                    batches,
                    error: Some(e.to_string()),
                };
            }
        }
    }
    Outcome {
        batches,
        error: None,
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// An object store holding `path`'s bytes, and the reader of that object.
async fn in_memory(path: &Path) -> ObjectStoreReader {
    let store = Arc::new(InMemory::new());
    let key = ObjectPath::from("data/file.parquet");
    store
        .put(&key, std::fs::read(path).unwrap().into())
        .await
        .unwrap();
    ObjectStoreReader::new(store, key)
}

/// `path` through object_store's `LocalFileSystem` (read in pieces of a
/// megabyte by `ObjectStoreReader`).
fn on_local_store(path: &Path) -> ObjectStoreReader {
    let dir = path.parent().unwrap();
    let store = Arc::new(object_store::local::LocalFileSystem::new_with_prefix(dir).unwrap());
    let name = path.file_name().unwrap().to_str().unwrap();
    ObjectStoreReader::new(store, ObjectPath::from(name))
}

/// A file whose answers come in pieces of 1, 7, 300, 4096 and 100 000
/// bytes in turn, as a network body's chunks do, splitting pages and
/// their headers anywhere; each piece after a yield to the runtime, so
/// that the reader decodes while the rest of an answer is still coming.
#[derive(Debug)]
struct InPieces(TokioFile);

impl AsyncRangeReader for InPieces {
    fn size(&self) -> BoxFuture<'_, io::Result<u64>> {
        self.0.size()
    }
    fn get_range(&self, range: Range<u64>) -> BoxFuture<'_, io::Result<Bytes>> {
        self.0.get_range(range)
    }
    fn get_range_stream(&self, range: Range<u64>) -> BoxStream<'_, io::Result<Bytes>> {
        let answer = async move {
            let data = self.0.get_range(range).await?;
            let pieces = futures::stream::iter(pq_testkit::in_pieces(data)).then(|piece| async {
                tokio::task::yield_now().await;
                Ok(piece)
            });
            Ok::<_, io::Error>(pieces)
        };
        futures::stream::once(answer).try_flatten().boxed()
    }
    fn name(&self) -> String {
        self.0.name()
    }
}

/// Every file, every source, with the default options and with ones that
/// make many small requests (no merging, no prefetch, one request at a
/// time), and with answers in small pieces: the sync reader's batches or
/// error.
#[test]
fn every_file_reads_as_the_sync_reader_reads_it() {
    let _beside = beside();
    let rt = runtime();
    let plain = |r| r;
    let tiny = FetchOptions::default()
        .with_coalesce_gap(0)
        .with_prefetch_bytes(0)
        .with_max_requests(1)
        .with_footer_prefetch(8);
    let mut checked = 0;
    for path in files() {
        let expected = sync(&path, &plain);
        rt.block_on(async {
            let file = TokioFile::open(&path).await.unwrap();
            let got = read_async(file, FetchOptions::default(), &plain).await;
            assert_eq!(got, expected, "{}: tokio file", path.display());
            let store = in_memory(&path).await;
            let got = read_async(store.clone(), FetchOptions::default(), &plain).await;
            assert_eq!(got, expected, "{}: object store", path.display());
            let got = read_async(store, tiny.clone(), &plain).await;
            assert_eq!(got, expected, "{}: small requests", path.display());
            let pieces = InPieces(TokioFile::open(&path).await.unwrap());
            let got = read_async(pieces, FetchOptions::default(), &plain).await;
            assert_eq!(got, expected, "{}: answers in pieces", path.display());
            let got = read_async(on_local_store(&path), FetchOptions::default(), &plain).await;
            assert_eq!(got, expected, "{}: local store", path.display());
        });
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} files");
}

/// Projection, row groups, offset and limit, threads, dictionaries and a
/// predicate choose the same rows in both readers.
#[test]
fn options_choose_the_same_rows() {
    let _beside = beside();
    let rt = runtime();
    let cases: Vec<(&str, Box<Options>)> = vec![
        (
            "projection",
            Box::new(|r| {
                both!(r, |b| {
                    let mask = ProjectionMask::leaves(b.parquet_schema(), [0, 2]);
                    b.with_projection(mask)
                })
            }),
        ),
        (
            "offset and limit",
            Box::new(|r| both!(r, |b| b.with_offset(100).with_limit(777))),
        ),
        (
            "last row group",
            Box::new(|r| {
                both!(r, |b| {
                    let n = b.metadata().row_groups.len();
                    b.with_row_groups([n.saturating_sub(1)])
                })
            }),
        ),
        ("threads", Box::new(|r| both!(r, |b| b.with_threads(3)))),
        (
            "dictionary",
            Box::new(|r| both!(r, |b| b.with_dictionary(true))),
        ),
        (
            "row selection",
            Box::new(|r| {
                both!(r, |b| b.with_row_selection(pq_arrow::RowSelection::from(
                    vec![
                        pq_arrow::RowSelector::skip(150),
                        pq_arrow::RowSelector::select(40),
                        pq_arrow::RowSelector::skip(1000),
                        pq_arrow::RowSelector::select(7),
                    ]
                )))
            }),
        ),
        (
            "predicate",
            Box::new(|r| {
                both!(r, |b| b.with_predicate(
                    Predicate::parse("id < 1000 OR id > 4000").unwrap()
                ))
            }),
        ),
    ];
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data");
    let paths = [
        "many_pages.parquet",
        "sample.parquet",
        "all_types_dict_zstd_v2.parquet",
    ];
    for name in paths {
        let path = fixtures.join(name);
        for (what, options) in &cases {
            let expected = sync(&path, options.as_ref());
            let got = rt.block_on(async {
                read_async(
                    in_memory(&path).await,
                    FetchOptions::default(),
                    options.as_ref(),
                )
                .await
            });
            assert_eq!(got, expected, "{name}: {what}");
        }
    }
}

/// A reader that logs the ranges asked for.
#[derive(Debug, Clone)]
struct Logged<R> {
    inner: R,
    log: Arc<Mutex<Vec<Range<u64>>>>,
}

impl<R: AsyncRangeReader> AsyncRangeReader for Logged<R> {
    fn size(&self) -> BoxFuture<'_, io::Result<u64>> {
        self.inner.size()
    }
    fn get_range(&self, range: Range<u64>) -> BoxFuture<'_, io::Result<Bytes>> {
        self.log.lock().unwrap().push(range.clone());
        self.inner.get_range(range)
    }
    fn name(&self) -> String {
        self.inner.name()
    }
}

/// The chunk byte ranges of `leaves` in `row_groups`.
fn chunk_ranges(path: &Path, row_groups: &[usize], leaves: &[usize]) -> Vec<Range<u64>> {
    let reader = ParquetReader::open(path).unwrap();
    let md = reader.metadata();
    let mut out = Vec::new();
    for &rg in row_groups {
        for &leaf in leaves {
            let m = md.row_groups[rg].columns[leaf].meta_data.as_ref().unwrap();
            let start = m.dictionary_page_offset.unwrap_or(m.data_page_offset) as u64;
            out.push(start..start + m.total_compressed_size as u64);
        }
    }
    out
}

/// With merging off, every request lies in the footer or in a chosen
/// column chunk of a chosen row group, and every chosen chunk is fetched
/// whole in one request; with the defaults, a row group of several
/// columns costs a single request.
#[test]
fn only_the_chosen_chunks_are_fetched() {
    let _beside = beside();
    let rt = runtime();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/many_pages.parquet");
    let len = std::fs::metadata(&path).unwrap().len();
    let n_rg = ParquetReader::open(&path).unwrap().num_row_groups();
    let rgs: Vec<usize> = if n_rg > 1 { vec![n_rg - 1] } else { vec![0] };
    let leaves = [1usize];
    let wanted = chunk_ranges(&path, &rgs, &leaves);
    let log = Arc::new(Mutex::new(Vec::new()));
    rt.block_on(async {
        let reader = Logged {
            inner: TokioFile::open(&path).await.unwrap(),
            log: log.clone(),
        };
        let fetch = FetchOptions::default().with_coalesce_gap(0);
        let b = ParquetRecordBatchStreamBuilder::new_with_options(reader, fetch)
            .await
            .unwrap();
        let mask = ProjectionMask::leaves(b.parquet_schema(), leaves);
        let stream = b
            .with_projection(mask)
            .with_row_groups(rgs.clone())
            .build()
            .unwrap();
        let stats = stream.fetch_stats();
        let batches: Vec<_> = stream.collect().await;
        assert!(batches.iter().all(|b| b.is_ok()));
        let log = log.lock().unwrap().clone();
        let footer = len.saturating_sub(64 << 10)..len;
        for r in &log {
            let inside = |w: &Range<u64>| w.start <= r.start && r.end <= w.end;
            assert!(
                inside(&footer) || wanted.iter().any(inside),
                "{r:?} is neither footer nor a chosen chunk {wanted:?}"
            );
        }
        for w in &wanted {
            assert!(log.contains(w), "chunk {w:?} not fetched whole: {log:?}");
        }
        // The footer's request (size and tail) is logged as its range.
        assert_eq!(stats.requests(), log.len() as u64);
    });

    // Every column of the last row group: one request after the footer's.
    let (requests, _) = requests_after_footer(&rt, &path, |b| b.with_row_groups(rgs.clone()));
    assert_eq!(requests.len(), 1, "{requests:?}");

    // With a predicate whose column is read first: still one request for
    // the row group's chunks (not one for the predicate's column and
    // another for the rest, the first one's bytes again in it). Its
    // dictionary is not read for pruning here, which would be a request
    // of its own (the bounds of a DOUBLE without a NaN count decide
    // nothing).
    let all = chunk_ranges(&path, &rgs, &[0, 1, 2, 3]);
    let region =
        all.iter().map(|r| r.start).min().unwrap()..all.iter().map(|r| r.end).max().unwrap();
    let (requests, rows) = requests_after_footer(&rt, &path, |b| {
        b.with_row_groups(rgs.clone())
            .with_predicate(Predicate::parse("reading > 0.05").unwrap())
            .with_pruning(PruningOptions::default().with_dictionaries(false))
    });
    assert!(rows > 0);
    let in_region: Vec<_> = requests
        .iter()
        .filter(|r| r.start < region.end && r.end > region.start)
        .collect();
    assert_eq!(in_region.len(), 1, "{in_region:?} of {requests:?}");
    assert!(in_region[0].start <= region.start && region.end <= in_region[0].end);
}

/// The requests a read of `path` configured by `options` makes after its
/// footer's, and the rows it reads (every batch checked to be no error).
fn requests_after_footer(
    rt: &tokio::runtime::Runtime,
    path: &Path,
    options: impl FnOnce(ParquetRecordBatchStreamBuilder) -> ParquetRecordBatchStreamBuilder,
) -> (Vec<Range<u64>>, usize) {
    let log = Arc::new(Mutex::new(Vec::new()));
    rt.block_on(async {
        let reader = Logged {
            inner: TokioFile::open(path).await.unwrap(),
            log: log.clone(),
        };
        let b = ParquetRecordBatchStreamBuilder::new(reader).await.unwrap();
        let footer_requests = log.lock().unwrap().len();
        let batches: Vec<_> = options(b).build().unwrap().collect().await;
        let rows = batches.into_iter().map(|b| b.unwrap().num_rows()).sum();
        let log = log.lock().unwrap().clone();
        (log[footer_requests..].to_vec(), rows)
    })
}

/// How a [`Faulty`] source fails.
#[derive(Debug, Clone, Copy)]
enum Fault {
    /// A connection reset.
    Reset,
    /// An answer one byte short.
    Short,
    /// A request that never ends.
    Stall,
    /// The object is gone.
    NotFound,
}

/// A file whose every `every`-th request fails with `fault` (every
/// request, with `every == 1`).
#[derive(Debug)]
struct Faulty {
    file: TokioFile,
    fault: Fault,
    every: u64,
    calls: AtomicU64,
}

impl AsyncRangeReader for Faulty {
    fn size(&self) -> BoxFuture<'_, io::Result<u64>> {
        self.file.size()
    }
    fn get_range(&self, range: Range<u64>) -> BoxFuture<'_, io::Result<Bytes>> {
        let n = self.calls.fetch_add(1, Ordering::Relaxed);
        if !n.is_multiple_of(self.every) {
            return self.file.get_range(range);
        }
        match self.fault {
            Fault::Reset => Box::pin(async {
                Err(io::Error::new(
                    io::ErrorKind::ConnectionReset,
                    "reset by peer",
                ))
            }),
            Fault::NotFound => {
                Box::pin(async { Err(io::Error::new(io::ErrorKind::NotFound, "no such object")) })
            }
            Fault::Short => Box::pin(async move {
                let data = self.file.get_range(range).await?;
                Ok(data.slice(..data.len().saturating_sub(1)))
            }),
            Fault::Stall => Box::pin(futures::future::pending()),
        }
    }
    fn name(&self) -> String {
        "faulty://file".into()
    }
}

/// Sources that fail now and then read right after retries; sources that
/// always fail end in one error naming the object and range, within the
/// timeouts; a missing object is not retried.
#[test]
fn failing_sources_are_retried_or_named() {
    let _beside = beside();
    let rt = runtime();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/many_pages.parquet");
    let plain = |r| r;
    let expected = sync(&path, &plain);
    let fetch = FetchOptions::default()
        .with_request_timeout(Duration::from_millis(200))
        .with_retries(3)
        .with_backoff(Duration::from_millis(1), Duration::from_millis(10))
        .with_coalesce_gap(0)
        .with_prefetch_bytes(0);
    for fault in [Fault::Reset, Fault::Short, Fault::Stall] {
        rt.block_on(async {
            let every_other = Faulty {
                file: TokioFile::open(&path).await.unwrap(),
                fault,
                every: 2,
                calls: AtomicU64::new(0),
            };
            let got = read_async(every_other, fetch.clone(), &plain).await;
            assert_eq!(got, expected, "{fault:?} every other request");

            let always = Faulty {
                file: TokioFile::open(&path).await.unwrap(),
                fault,
                every: 1,
                calls: AtomicU64::new(0),
            };
            let started = Instant::now();
            let got = read_async(always, fetch.clone(), &plain).await;
            let err = got.error.expect("an error");
            assert!(got.batches.is_empty());
            assert!(
                err.contains("faulty://file") && err.contains("after 4 attempts"),
                "{err}"
            );
            assert!(!err.contains('\n'), "{err}");
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "{fault:?} took {:?}",
                started.elapsed()
            );
        });
    }
    rt.block_on(async {
        let gone = Faulty {
            file: TokioFile::open(&path).await.unwrap(),
            fault: Fault::NotFound,
            every: 1,
            calls: AtomicU64::new(0),
        };
        let got = read_async(gone, fetch.clone(), &plain).await;
        let err = got.error.expect("an error");
        assert!(
            err.contains("after 1 attempt:") && err.contains("no such object"),
            "{err}"
        );
    });
}

/// A file whose first answer to every range breaks off halfway (reset,
/// or silent until the timeout), and which logs the ranges asked.
#[derive(Debug)]
struct CutHalfway {
    file: TokioFile,
    stall: bool,
    asked: Mutex<Vec<Range<u64>>>,
}

impl AsyncRangeReader for CutHalfway {
    fn size(&self) -> BoxFuture<'_, io::Result<u64>> {
        self.file.size()
    }
    fn get_range(&self, range: Range<u64>) -> BoxFuture<'_, io::Result<Bytes>> {
        self.file.get_range(range)
    }
    fn get_range_stream(&self, range: Range<u64>) -> BoxStream<'_, io::Result<Bytes>> {
        let first = {
            let mut asked = self.asked.lock().unwrap();
            let first = !asked.iter().any(|a| a.end == range.end);
            asked.push(range.clone());
            first
        };
        if !first || range.end - range.start < 2 {
            return self.file.get_range_stream(range);
        }
        let half = range.start + (range.end - range.start) / 2;
        let head = self.file.get_range_stream(range.start..half);
        let rest: BoxStream<'_, io::Result<Bytes>> = if self.stall {
            futures::stream::pending().boxed()
        } else {
            futures::stream::once(async {
                Err(io::Error::new(
                    io::ErrorKind::ConnectionReset,
                    "reset by peer",
                ))
            })
            .boxed()
        };
        head.chain(rest).boxed()
    }
    fn name(&self) -> String {
        "cut://file".into()
    }
}

/// An answer broken off partway is asked again from its first byte not
/// yet taken, not from its start: the bytes that came are used, once.
#[test]
fn a_broken_answer_is_resumed_where_it_broke() {
    let _beside = beside();
    let rt = runtime();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/many_pages.parquet");
    let plain = |r| r;
    let expected = sync(&path, &plain);
    let fetch = FetchOptions::default()
        .with_request_timeout(Duration::from_millis(300))
        .with_backoff(Duration::from_millis(1), Duration::from_millis(1));
    for stall in [false, true] {
        rt.block_on(async {
            let reader = Arc::new(CutHalfway {
                file: TokioFile::open(&path).await.unwrap(),
                stall,
                asked: Mutex::new(Vec::new()),
            });
            let got = read_async(reader.clone(), fetch.clone(), &plain).await;
            assert_eq!(got, expected, "stall: {stall}");
            let asked = reader.asked.lock().unwrap().clone();
            let firsts: Vec<&Range<u64>> = asked
                .iter()
                .filter(|r| !asked.iter().any(|a| a.end == r.end && a.start < r.start))
                .collect();
            assert!(!firsts.is_empty(), "stall: {stall}: {asked:?}");
            for first in firsts {
                let half = first.start + (first.end - first.start) / 2;
                let again: Vec<&Range<u64>> = asked
                    .iter()
                    .filter(|a| a.end == first.end && a.start != first.start)
                    .collect();
                assert_eq!(again, vec![&(half..first.end)], "stall: {stall}: {asked:?}");
            }
        });
    }
}

/// Polled outside a tokio runtime, the stream says so instead of
/// panicking.
#[test]
fn a_stream_outside_tokio_is_an_error() {
    let _beside = beside();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/sample.parquet");
    let stream = runtime().block_on(async {
        ParquetRecordBatchStreamBuilder::new(in_memory(&path).await)
            .await
            .unwrap()
            .build()
            .unwrap()
    });
    let mut stream = stream;
    let first = futures::executor::block_on(stream.next()).unwrap();
    assert!(first.unwrap_err().to_string().contains("tokio runtime"));
}

/// The stream and its futures can move between threads (tokio::spawn).
#[test]
fn the_stream_is_send() {
    let _beside = beside();
    fn send<T: Send>(_: &T) {}
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/sample.parquet");
    runtime().block_on(async {
        let s = ParquetRecordBatchStreamBuilder::new(in_memory(&path).await)
            .await
            .unwrap()
            .build()
            .unwrap();
        send(&s);
        let rows = tokio::spawn(async move {
            s.map(|b| b.unwrap().num_rows())
                .fold(0, |a, n| async move { a + n })
                .await
        })
        .await
        .unwrap();
        assert!(rows > 0);
    });
}

/// The columns of the tests' written tables: `id`, the rows' numbers, and
/// `name`, a string of each row's id scattered over the rows.
fn ids_and_names(rows: i64) -> Vec<(&'static str, arrow_array::ArrayRef)> {
    use arrow_array::{ArrayRef, Int64Array, StringArray};
    vec![
        (
            "id",
            Arc::new(Int64Array::from_iter_values(0..rows)) as ArrayRef,
        ),
        (
            "name",
            Arc::new(StringArray::from_iter_values(
                (0..rows).map(|i| format!("name-{}", i * 7919 % rows)),
            )) as ArrayRef,
        ),
    ]
}

/// A key range that the page index narrows to a few pages is fetched as
/// those pages (and the chunks' dictionary pages), not as whole chunks,
/// and reads the rows the sync reader reads.
#[test]
fn a_range_the_page_index_narrows_fetches_its_pages() {
    let _beside = beside();
    use arrow_array::{ArrayRef, Float64Array};
    // Chunks of some 3 MB: further apart than requests are merged across.
    let rows = 400_000i64;
    let mut columns = ids_and_names(rows);
    columns.push((
        "value",
        Arc::new(Float64Array::from_iter_values(
            (0..rows).map(|i| i as f64 / 7.0),
        )) as ArrayRef,
    ));
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let options = pq_arrow::WriterOptions::builder()
        .set_data_page_row_count_limit(2_000)
        .set_dictionary_enabled(false)
        .build();
    let path =
        std::env::temp_dir().join(format!("pq-async-narrowed-{}.parquet", std::process::id()));
    pq_arrow::write_parquet(&path, &[batch], options).unwrap();
    let file_len = std::fs::metadata(&path).unwrap().len();
    let predicate = "id BETWEEN 100000 AND 100500";
    let want: usize = ParquetReader::open(&path)
        .unwrap()
        .with_predicate(Predicate::parse(predicate).unwrap())
        .build()
        .unwrap()
        .map(|b| b.unwrap().num_rows())
        .sum();
    assert_eq!(want, 501);
    let rt = runtime();
    let (got, fetched) = rt.block_on(async {
        let b = ParquetRecordBatchStreamBuilder::new(TokioFile::open(&path).await.unwrap())
            .await
            .unwrap();
        let stream = b
            .with_predicate(Predicate::parse(predicate).unwrap())
            .build()
            .unwrap();
        let stats = stream.fetch_stats();
        let batches: Vec<_> = stream.collect().await;
        let rows: usize = batches.into_iter().map(|b| b.unwrap().num_rows()).sum();
        (rows, stats.bytes())
    });
    std::fs::remove_file(&path).ok();
    assert_eq!(got, want);
    // The footer and page indexes, plus a page or two of each column: a
    // small part of the file (whole chunks were nearly all of it).
    assert!(
        fetched * 20 < file_len,
        "fetched {fetched} bytes of a {file_len} byte file"
    );
}

/// A file in memory whose every answer starts `latency` after it is
/// asked for and comes in pieces of 1 KiB, one scheduler turn apart (so
/// that it is still arriving while other tasks run, with no wall-clock
/// wait); each request is logged with when it was asked and when its last
/// piece came.
#[derive(Debug)]
struct Paced {
    bytes: Bytes,
    latency: Duration,
    log: Mutex<Vec<(Range<u64>, Instant, Instant)>>,
}

impl Paced {
    fn slice(&self, range: &Range<u64>) -> io::Result<Bytes> {
        usize::try_from(range.start)
            .ok()
            .zip(usize::try_from(range.end).ok())
            .and_then(|(s, e)| self.bytes.get(s..e))
            .map(|b| self.bytes.slice_ref(b))
            .ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "past the end"))
    }
}

impl AsyncRangeReader for Paced {
    fn size(&self) -> BoxFuture<'_, io::Result<u64>> {
        Box::pin(async { Ok(self.bytes.len() as u64) })
    }
    fn get_range(&self, range: Range<u64>) -> BoxFuture<'_, io::Result<Bytes>> {
        Box::pin(async move {
            let pieces: Vec<Bytes> = self.get_range_stream(range).try_collect().await?;
            Ok(Bytes::from(pieces.concat()))
        })
    }
    fn get_range_stream(&self, range: Range<u64>) -> BoxStream<'_, io::Result<Bytes>> {
        let asked = Instant::now();
        let start = (range.clone(), range.start, false);
        futures::stream::unfold(start, move |(range, at, waited)| async move {
            if !waited && !self.latency.is_zero() {
                tokio::time::sleep(self.latency).await;
            }
            if at >= range.end {
                self.log
                    .lock()
                    .unwrap()
                    .push((range, asked, Instant::now()));
                return None;
            }
            tokio::task::yield_now().await;
            let end = range.end.min(at + 1024);
            let piece = self.slice(&(at..end));
            Some((piece, (range, end, true)))
        })
        .boxed()
    }
    fn name(&self) -> String {
        "paced://file".into()
    }
}

/// The next row group's chunks are fetched with the current one's when
/// the round trip is long (the request would otherwise wait a round trip
/// after the current row group is read), and only once the current one's
/// bytes are all in when it is short (they would otherwise share the
/// source with the bytes the decoder needs first).
#[test]
fn the_next_row_group_is_fetched_early_only_over_long_round_trips() {
    let _alone = alone();
    let rows = 40_000i64;
    let batch = RecordBatch::try_from_iter(ids_and_names(rows)).unwrap();
    let options = pq_arrow::WriterOptions::builder()
        .set_max_row_group_size(10_000)
        .build();
    let path = std::env::temp_dir().join(format!("pq-async-paced-{}.parquet", std::process::id()));
    pq_arrow::write_parquet(&path, &[batch], options).unwrap();
    let bytes = Bytes::from(std::fs::read(&path).unwrap());
    let row_groups: Vec<Vec<Range<u64>>> = (0..4)
        .map(|rg| chunk_ranges(&path, &[rg], &[0, 1]))
        .collect();
    std::fs::remove_file(&path).ok();
    let rt = runtime();
    for (latency, early) in [(Duration::ZERO, false), (Duration::from_millis(40), true)] {
        let reader = Arc::new(Paced {
            bytes: bytes.clone(),
            latency,
            log: Mutex::new(Vec::new()),
        });
        let (read, footer) = rt.block_on(async {
            let b = ParquetRecordBatchStreamBuilder::new(reader.clone())
                .await
                .unwrap();
            let footer = reader.log.lock().unwrap().len();
            let batches: Vec<_> = b.build().unwrap().collect().await;
            let read: usize = batches.into_iter().map(|b| b.unwrap().num_rows()).sum();
            (read, footer)
        });
        assert_eq!(read, rows as usize);
        // The footer's speculative read may hold the last chunks' bytes:
        // the row groups' requests are those after it.
        let log = reader.log.lock().unwrap()[footer..].to_vec();
        // Each row group's requests: when the first went out, and when the
        // last answer came.
        let spans: Vec<(Instant, Instant)> = row_groups
            .iter()
            .map(|chunks| {
                let mine: Vec<_> = log
                    .iter()
                    .filter(|(r, _, _)| chunks.iter().any(|c| r.start < c.end && c.start < r.end))
                    .collect();
                assert!(
                    !mine.is_empty(),
                    "{latency:?}: {chunks:?} not fetched: {log:?}"
                );
                (
                    mine.iter().map(|m| m.1).min().unwrap(),
                    mine.iter().map(|m| m.2).max().unwrap(),
                )
            })
            .collect();
        // Over a long round trip the second row group goes out with the
        // first (the later ones once the one before is being read, whose
        // bytes came with it); over a short one, none goes out before the
        // one before is in.
        let pairs = if early { 1 } else { spans.len() - 1 };
        for (k, pair) in spans.windows(2).take(pairs).enumerate() {
            let (current, next) = (pair[0], pair[1]);
            assert_eq!(
                next.0 < current.1,
                early,
                "{latency:?}: row group {} asked for {:?} after row group {k}'s last answer ({log:?})",
                k + 1,
                next.0.checked_duration_since(current.1)
            );
        }
    }
}

/// Unless the options set a gap, the columns between two wanted ones are
/// fetched with them over a long round trip (a request costs more than
/// their bytes) and left out over a short one (their bytes cost more than
/// a request); a gap the options set holds over either.
#[test]
fn a_gap_is_fetched_over_long_round_trips_only() {
    let _alone = alone();
    use arrow_array::{ArrayRef, Float64Array, Int64Array};
    let rows = 40_000i64;
    // `wide`, between the two read columns, some 160 KB a row group: more
    // than the short round trip's gap, less than the long one's.
    let batch = RecordBatch::try_from_iter([
        (
            "id",
            Arc::new(Int64Array::from_iter_values(0..rows)) as ArrayRef,
        ),
        (
            "wide",
            Arc::new(Float64Array::from_iter_values(
                (0..rows).map(|i| (i * 7919 % rows) as f64 / 7.0),
            )),
        ),
        (
            "small",
            Arc::new(Int64Array::from_iter_values((0..rows).map(|i| i % 5))),
        ),
    ])
    .unwrap();
    let options = pq_arrow::WriterOptions::builder()
        .set_max_row_group_size(20_000)
        .set_dictionary_enabled(false)
        .build();
    let path = std::env::temp_dir().join(format!("pq-async-gap-{}.parquet", std::process::id()));
    pq_arrow::write_parquet(&path, &[batch], options).unwrap();
    let bytes = Bytes::from(std::fs::read(&path).unwrap());
    let gaps = chunk_ranges(&path, &[0, 1], &[1]);
    std::fs::remove_file(&path).ok();
    assert!(
        gaps.iter()
            .all(|g| (64 << 10..1 << 20).contains(&(g.end - g.start))),
        "{gaps:?}"
    );
    let rt = runtime();
    let cases = [
        (Duration::ZERO, None, false),
        (Duration::from_millis(40), None, true),
        (Duration::ZERO, Some(1 << 20), true),
        (Duration::from_millis(40), Some(0), false),
    ];
    for (latency, gap, fetched) in cases {
        let reader = Arc::new(Paced {
            bytes: bytes.clone(),
            latency,
            log: Mutex::new(Vec::new()),
        });
        let mut fetch = FetchOptions::default();
        if let Some(gap) = gap {
            fetch = fetch.with_coalesce_gap(gap);
        }
        let (read, footer) = rt.block_on(async {
            let b = ParquetRecordBatchStreamBuilder::new_with_options(reader.clone(), fetch)
                .await
                .unwrap();
            let footer = reader.log.lock().unwrap().len();
            let mask = ProjectionMask::leaves(b.parquet_schema(), [0, 2]);
            let stream = b.with_projection(mask).build().unwrap();
            let batches: Vec<_> = stream.collect().await;
            let read: usize = batches.into_iter().map(|b| b.unwrap().num_rows()).sum();
            (read, footer)
        });
        assert_eq!(read, rows as usize);
        let log: Vec<Range<u64>> = reader.log.lock().unwrap()[footer..]
            .iter()
            .map(|(r, _, _)| r.clone())
            .collect();
        for g in &gaps {
            let covered = log.iter().any(|r| r.start <= g.start && g.end <= r.end);
            let touched = log.iter().any(|r| r.start < g.end && g.start < r.end);
            assert_eq!(
                (covered, touched),
                (fetched, fetched),
                "{latency:?}, gap {gap:?}: {g:?} in {log:?}"
            );
        }
        // Two requests a row group without the gap, one with it.
        assert_eq!(log.len(), if fetched { 2 } else { 4 }, "{log:?}");
    }
}
