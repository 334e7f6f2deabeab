//! Remote reading against real servers on loopback: an S3-compatible
//! server (moto, from the project venv) and an HTTP server that honours
//! `Range` (pq-testkit's `RangeServer`), both through object_store 0.13,
//! and a fault proxy between client and server.
//!
//! - Every fixture and corpus file (`data/` and `bad_data/`) read through
//!   S3 and through HTTP gives the batches, or the error, of the local
//!   sync reader.
//! - Projection and row-group selection fetch only the chunks they choose
//!   (the server's own log of ranges, and a counting wrapper for S3), in
//!   one request per row group after the footer's one.
//! - Added latency (20 and 100 ms), connections reset mid-body, truncated
//!   bodies and 500/503 answers end in the right data after retries; a
//!   server that stops answering ends in one error naming the object and
//!   the range, within the timeouts.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;
use bytes::Bytes;
use futures::StreamExt;
use futures::future::BoxFuture;
use object_store::path::Path as ObjectPath;
use object_store::{ClientOptions, ObjectStore, RetryConfig};
use pq_arrow::{
    AsyncRangeReader, FetchOptions, ObjectStoreReader, ParquetReader,
    ParquetRecordBatchStreamBuilder, ProjectionMask,
};
use pq_testkit::{FaultProxy, MotoServer, RangeServer};

const BATCH: usize = 1000;

/// Batches read until the first error, and that error.
#[derive(Debug, PartialEq)]
struct Outcome {
    batches: Vec<RecordBatch>,
    error: Option<String>,
}

fn files() -> Vec<PathBuf> {
    let mut dirs = vec![pq_tests::fixtures_dir()];
    if let Some(corpus) = pq_tests::corpus_dir() {
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

/// The object name a file is stored under: its path from its folder's
/// parent (`data/x.parquet`, `bad_data/y.parquet`).
fn key(path: &Path) -> String {
    let parent = path.parent().and_then(|p| p.file_name()).unwrap();
    format!(
        "{}/{}",
        parent.to_string_lossy(),
        path.file_name().unwrap().to_string_lossy()
    )
}

fn local(path: &Path) -> Outcome {
    let mut batches = Vec::new();
    let mut reader = match ParquetReader::open(path).and_then(|r| r.with_batch_size(BATCH).build())
    {
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

async fn remote(reader: impl AsyncRangeReader + 'static, fetch: FetchOptions) -> Outcome {
    let mut batches = Vec::new();
    let stream = ParquetRecordBatchStreamBuilder::new_with_options(reader, fetch)
        .await
        .and_then(|b| b.with_batch_size(BATCH).build());
    let mut stream = match stream {
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

/// The store's own retries off, so that pq's are what is tested.
fn no_retries() -> RetryConfig {
    RetryConfig {
        max_retries: 0,
        ..RetryConfig::default()
    }
}

fn http_store(url: &str, timeout: Duration) -> Arc<dyn ObjectStore> {
    Arc::new(
        object_store::http::HttpBuilder::new()
            .with_url(url)
            .with_client_options(
                ClientOptions::new()
                    .with_allow_http(true)
                    .with_timeout(timeout),
            )
            .with_retry(no_retries())
            .build()
            .unwrap(),
    )
}

fn s3_store(endpoint: &str, bucket: &str) -> Arc<dyn ObjectStore> {
    Arc::new(
        object_store::aws::AmazonS3Builder::new()
            .with_endpoint(endpoint)
            .with_allow_http(true)
            .with_bucket_name(bucket)
            .with_region(MotoServer::REGION)
            .with_access_key_id(MotoServer::ACCESS_KEY_ID)
            .with_secret_access_key(MotoServer::SECRET_ACCESS_KEY)
            .with_virtual_hosted_style_request(false)
            .with_retry(no_retries())
            .build()
            .unwrap(),
    )
}

/// Each range a store answered, and the bytes of the answer.
type RequestLog = Arc<Mutex<Vec<(Range<u64>, u64)>>>;

/// A reader that counts the requests and bytes its store answered.
#[derive(Debug, Clone)]
struct Counting {
    inner: ObjectStoreReader,
    log: RequestLog,
}

impl AsyncRangeReader for Counting {
    fn size(&self) -> BoxFuture<'_, io::Result<u64>> {
        self.inner.size()
    }
    fn get_range(&self, range: Range<u64>) -> BoxFuture<'_, io::Result<Bytes>> {
        Box::pin(async move {
            let data = self.inner.get_range(range.clone()).await?;
            self.log.lock().unwrap().push((range, data.len() as u64));
            Ok(data)
        })
    }
    fn get_suffix(&self, n: u64) -> BoxFuture<'_, io::Result<(u64, Bytes)>> {
        Box::pin(async move {
            let (len, tail) = self.inner.get_suffix(n).await?;
            let start = len - tail.len() as u64;
            self.log
                .lock()
                .unwrap()
                .push((start..len, tail.len() as u64));
            Ok((len, tail))
        })
    }
    fn name(&self) -> String {
        self.inner.name()
    }
}

#[test]
fn every_file_reads_through_s3_as_it_reads_locally() {
    let Some(moto) = MotoServer::start_or_skip().unwrap() else {
        return;
    };
    moto.create_bucket("pq-corpus").unwrap();
    let files = files();
    for path in &files {
        moto.put_object("pq-corpus", &key(path), &std::fs::read(path).unwrap())
            .unwrap();
    }
    let store = s3_store(&moto.endpoint(), "pq-corpus");
    let rt = runtime();
    for path in &files {
        let expected = local(path);
        let reader = ObjectStoreReader::new(store.clone(), ObjectPath::from(key(path)));
        let got = rt.block_on(remote(reader, FetchOptions::default()));
        assert_eq!(got, expected, "{} through S3", path.display());
    }
    assert!(files.len() >= 20);
}

#[test]
fn every_file_reads_through_http_as_it_reads_locally() {
    let server = RangeServer::start().unwrap();
    let files = files();
    for path in &files {
        server.put(&key(path), std::fs::read(path).unwrap());
    }
    let store = http_store(&server.url(), Duration::from_secs(30));
    let rt = runtime();
    for path in &files {
        let expected = local(path);
        let reader = ObjectStoreReader::new(store.clone(), ObjectPath::from(key(path)));
        let got = rt.block_on(remote(reader, FetchOptions::default()));
        assert_eq!(got, expected, "{} through HTTP", path.display());
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

/// A file of several row groups and columns, written for this test.
fn several_row_groups() -> Bytes {
    use arrow_array::{Int64Array, StringArray};
    let n = 30_000i64;
    let batch = RecordBatch::try_from_iter([
        (
            "a",
            Arc::new(Int64Array::from_iter_values(0..n)) as arrow_array::ArrayRef,
        ),
        (
            "b",
            Arc::new(StringArray::from_iter_values(
                (0..n).map(|i| format!("s{}", i * 7919 % 1000)),
            )),
        ),
        (
            "c",
            Arc::new(Int64Array::from_iter_values((0..n).map(|i| i * 3))),
        ),
    ])
    .unwrap();
    let options = pq_arrow::WriterOptions::builder()
        .set_max_row_group_size(10_000)
        .build();
    let mut out = Vec::new();
    let mut w = pq_arrow::ParquetWriter::try_new(&mut out, batch.schema(), options).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

/// Projection and row-group selection fetch only the chosen chunks: every
/// range the server served lies in the footer or a chosen chunk, each
/// chosen chunk is served, and the data of a row group comes in one
/// request; through S3 the counting reader sees the same.
#[test]
fn projection_and_row_groups_fetch_only_their_chunks() {
    let file = several_row_groups();
    let dir = std::env::temp_dir().join(format!("pq-remote-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("three.parquet");
    std::fs::write(&path, &file).unwrap();
    let len = file.len() as u64;
    assert_eq!(ParquetReader::open(&path).unwrap().num_row_groups(), 3);
    let (rgs, leaves) = (vec![1usize], vec![0usize, 2]);
    let wanted = chunk_ranges(&path, &rgs, &leaves);
    let footer = len.saturating_sub(64 << 10)..len;
    let rt = runtime();
    let read = |reader: Counting| {
        let (rgs, leaves) = (rgs.clone(), leaves.clone());
        rt.block_on(async move {
            let fetch = FetchOptions::default().with_coalesce_gap(0);
            let b = ParquetRecordBatchStreamBuilder::new_with_options(reader, fetch)
                .await
                .unwrap();
            let mask = ProjectionMask::leaves(b.parquet_schema(), leaves);
            let s = b
                .with_projection(mask)
                .with_row_groups(rgs)
                .build()
                .unwrap();
            let batches: Vec<_> = s.map(|b| b.unwrap()).collect().await;
            batches.iter().map(|b| b.num_rows()).sum::<usize>()
        })
    };
    let check = |ranges: &[Range<u64>], through: &str| {
        for r in ranges {
            let inside = |w: &Range<u64>| w.start <= r.start && r.end <= w.end;
            assert!(
                inside(&footer) || wanted.iter().any(inside),
                "{through}: {r:?} is neither footer nor chosen chunk {wanted:?}"
            );
        }
        for w in &wanted {
            assert!(
                ranges.contains(w),
                "{through}: chunk {w:?} not fetched whole: {ranges:?}"
            );
        }
    };

    // HTTP: the server's own log.
    let server = RangeServer::start().unwrap();
    server.put("t/three.parquet", file.clone());
    let log = Arc::new(Mutex::new(Vec::new()));
    let reader = Counting {
        inner: ObjectStoreReader::new(
            http_store(&server.url(), Duration::from_secs(30)),
            ObjectPath::from("t/three.parquet"),
        ),
        log: log.clone(),
    };
    assert_eq!(read(reader), 10_000);
    let served: Vec<Range<u64>> = server
        .ranges()
        .into_iter()
        .map(|(_, r)| r.expect("a ranged GET"))
        .collect();
    check(&served, "HTTP");
    // One request for the footer, one per chosen chunk (merging is off).
    assert_eq!(served.len(), 1 + wanted.len(), "{served:?}");
    // The chunks' requests run at once: the order they reach the server in
    // need not be the order they were made in.
    let mut counted: Vec<Range<u64>> = log.lock().unwrap().iter().map(|(r, _)| r.clone()).collect();
    let mut served = served;
    counted.sort_by_key(|r| (r.start, r.end));
    served.sort_by_key(|r| (r.start, r.end));
    assert_eq!(counted, served);
    let bytes: u64 = log.lock().unwrap().iter().map(|(_, n)| n).sum();
    assert_eq!(bytes, server.body_bytes());

    // With the default merging, the chosen chunks of a row group come in
    // one request.
    server.reset_stats();
    let all = rt.block_on(async {
        let reader = ObjectStoreReader::new(
            http_store(&server.url(), Duration::from_secs(30)),
            ObjectPath::from("t/three.parquet"),
        );
        let b = ParquetRecordBatchStreamBuilder::new(reader).await.unwrap();
        let s = b.with_row_groups([2]).build().unwrap();
        s.map(|b| b.unwrap().num_rows())
            .fold(0, |a, n| async move { a + n })
            .await
    });
    assert_eq!(all, 10_000);
    let r = server.requests();
    assert_eq!(
        (r.head, r.get),
        (0, 2),
        "the size and footer in one request, then one for the row group"
    );

    // S3: the counting reader.
    let Some(moto) = MotoServer::start_or_skip().unwrap() else {
        return;
    };
    moto.create_bucket("sel").unwrap();
    moto.put_object("sel", "t/three.parquet", &file).unwrap();
    let log = Arc::new(Mutex::new(Vec::new()));
    let reader = Counting {
        inner: ObjectStoreReader::new(
            s3_store(&moto.endpoint(), "sel"),
            ObjectPath::from("t/three.parquet"),
        ),
        log: log.clone(),
    };
    assert_eq!(read(reader), 10_000);
    let counted: Vec<Range<u64>> = log.lock().unwrap().iter().map(|(r, _)| r.clone()).collect();
    check(&counted, "S3");
    assert_eq!(counted.len(), 1 + wanted.len(), "{counted:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A fault proxy in front of a server holding `file`, and the store
/// through the proxy.
fn behind_proxy(
    file: &Bytes,
    timeout: Duration,
) -> (RangeServer, FaultProxy, Arc<dyn ObjectStore>) {
    let server = RangeServer::start().unwrap();
    server.put("f.parquet", file.clone());
    let proxy = FaultProxy::start(server.addr()).unwrap();
    let store = http_store(&proxy.url(), timeout);
    (server, proxy, store)
}

#[test]
fn faults_end_in_the_right_data_or_a_clear_error() {
    let path = pq_tests::fixtures_dir().join("many_pages.parquet");
    let file = Bytes::from(std::fs::read(&path).unwrap());
    let expected = local(&path);
    let rt = runtime();
    let fetch = FetchOptions::default()
        .with_retries(3)
        .with_backoff(Duration::from_millis(10), Duration::from_millis(100))
        .with_request_timeout(Duration::from_secs(5));
    let (_server, proxy, store) = behind_proxy(&file, Duration::from_secs(5));
    let read = |fetch: FetchOptions| {
        let reader = ObjectStoreReader::new(store.clone(), ObjectPath::from("f.parquet"));
        rt.block_on(remote(reader, fetch))
    };

    for latency in [20, 100] {
        proxy.faults().set_latency(Duration::from_millis(latency));
        let started = Instant::now();
        assert_eq!(read(fetch.clone()), expected, "{latency} ms latency");
        // At least the size, the footer and the data: three round trips.
        assert!(started.elapsed() >= Duration::from_millis(3 * latency));
        proxy.faults().clear();
    }
    for status in [500, 503] {
        proxy.faults().fail_next(2, status);
        assert_eq!(read(fetch.clone()), expected, "{status} twice");
        assert_eq!(proxy.faults().pending(), Default::default());
    }
    proxy.faults().reset_next(2);
    assert_eq!(read(fetch.clone()), expected, "connections reset mid-body");
    proxy.faults().truncate_next(2);
    assert_eq!(read(fetch.clone()), expected, "truncated bodies");

    // More failures than retries: one error, naming the object.
    proxy.faults().fail_next(10, 503);
    let got = read(fetch.clone().with_retries(2));
    let err = got.error.expect("an error");
    assert!(
        err.contains("f.parquet") && err.contains("after 3 attempts"),
        "{err}"
    );
    proxy.faults().clear();

    // A server that stops answering: the timeouts end it.
    proxy.faults().silence_all();
    let started = Instant::now();
    let quick = FetchOptions::default()
        .with_retries(1)
        .with_backoff(Duration::from_millis(10), Duration::from_millis(10))
        .with_request_timeout(Duration::from_millis(500));
    let got = read(quick);
    let err = got.error.expect("an error");
    assert!(
        err.contains("f.parquet") && err.contains("after 2 attempts"),
        "{err}"
    );
    assert!(!err.contains('\n'));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    proxy.faults().clear();

    // Once data is flowing: the size and footer answered, then silence.
    let reader = ObjectStoreReader::new(store.clone(), ObjectPath::from("f.parquet"));
    let got = rt.block_on(async {
        let b = ParquetRecordBatchStreamBuilder::new_with_options(
            reader,
            FetchOptions::default()
                .with_retries(1)
                .with_request_timeout(Duration::from_millis(500)),
        )
        .await
        .unwrap();
        proxy.faults().silence_all();
        let started = Instant::now();
        let mut s = b.build().unwrap();
        let first = s.next().await.unwrap();
        (
            first.map(|b| b.num_rows()).map_err(|e| e.to_string()),
            started.elapsed(),
        )
    });
    let err = got.0.unwrap_err();
    assert!(err.contains("bytes ") && err.contains("f.parquet"), "{err}");
    assert!(got.1 < Duration::from_secs(5));
}

/// Through the proxy in front of moto: latency and resets against the S3
/// protocol.
#[test]
fn s3_through_faults() {
    let Some(moto) = MotoServer::start_or_skip().unwrap() else {
        return;
    };
    let path = pq_tests::fixtures_dir().join("all_types_dict_zstd_v2.parquet");
    moto.create_bucket("faults").unwrap();
    moto.put_object("faults", "f.parquet", &std::fs::read(&path).unwrap())
        .unwrap();
    let proxy = FaultProxy::start(moto.addr()).unwrap();
    let store = s3_store(&proxy.url(), "faults");
    let expected = local(&path);
    let rt = runtime();
    let fetch = FetchOptions::default()
        .with_backoff(Duration::from_millis(10), Duration::from_millis(100))
        .with_request_timeout(Duration::from_secs(10));
    let read = || {
        let reader = ObjectStoreReader::new(store.clone(), ObjectPath::from("f.parquet"));
        rt.block_on(remote(reader, fetch.clone()))
    };
    proxy.faults().set_latency(Duration::from_millis(20));
    assert_eq!(read(), expected, "20 ms");
    proxy.faults().clear();
    proxy.faults().fail_next(2, 503);
    assert_eq!(read(), expected, "503 twice");
    proxy.faults().reset_next(1);
    proxy.faults().truncate_next(1);
    assert_eq!(read(), expected, "reset and truncated");
}
