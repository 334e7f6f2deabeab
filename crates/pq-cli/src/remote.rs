//! Inputs in object stores: `s3://bucket/key`, `gs://bucket/key`,
//! `az://container/key` (and `abfs[s]://`), `http[s]://host/path`.
//!
//! The store comes from the URL and the environment, as the object_store
//! crate reads it (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
//! `AWS_REGION`, `AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP`, `GOOGLE_*`,
//! `AZURE_*`), with `--endpoint` and `--no-sign-request` for the common
//! cases. A [`RemoteFile`] is a blocking `Read + Seek` over the object for
//! the commands that read a footer or walk pages; the commands that read
//! data (`cat`, `scan`, `convert`, ...) fetch through pq's async reader
//! instead ([`RemoteFile::async_reader`]), with merged, concurrent and
//! prefetched requests. Every request has pq's timeout and retries
//! ([`pq_arrow::FetchOptions`]); the store's own retries are turned off so
//! that one policy decides.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use object_store::ObjectStore;
use object_store::path::Path as ObjectPath;
use object_store::{ClientOptions, RetryConfig};
use pq_arrow::{FetchOptions, FetchStats, ObjectStoreReader};

use crate::error::CliError;

/// How remote inputs are reached: the global flags.
#[derive(Debug, Clone, Default)]
pub struct RemoteOptions {
    /// `--endpoint`: the S3 or Azure endpoint (an S3-compatible server).
    pub endpoint: Option<String>,
    /// `--no-sign-request`: anonymous requests (public buckets).
    pub no_sign_request: bool,
}

static OPTIONS: OnceLock<RemoteOptions> = OnceLock::new();

/// Sets the options every remote input is opened with (once, from the
/// command line).
pub fn set_options(options: RemoteOptions) {
    let _ = OPTIONS.set(options);
}

/// The URL schemes pq reads.
const SCHEMES: &[&str] = &[
    "s3", "s3a", "gs", "az", "abfs", "abfss", "azure", "http", "https",
];

/// Whether `path` is a URL of an object store (rather than a local path).
pub fn is_url(path: &Path) -> bool {
    path.to_str()
        .and_then(|s| s.split_once("://"))
        .is_some_and(|(scheme, _)| SCHEMES.contains(&scheme.to_ascii_lowercase().as_str()))
}

/// The runtime remote requests run on: two worker threads, made on first
/// use (local files never start it).
fn runtime() -> Result<&'static tokio::runtime::Runtime, CliError> {
    static RUNTIME: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .map_err(|e| format!("starting the async runtime: {e}"))
        })
        .as_ref()
        .map_err(|e| CliError::Message(e.clone()))
}

/// Runs `f` to completion on the remote runtime.
pub fn block_on<F: std::future::Future>(f: F) -> Result<F::Output, CliError> {
    Ok(runtime()?.block_on(f))
}

/// The store and object path of `url`.
fn store_for(url: &str) -> Result<(Arc<dyn ObjectStore>, ObjectPath), String> {
    let parsed = url::Url::parse(url).map_err(|e| format!("not a valid URL: {e}"))?;
    let options = OPTIONS.get().cloned().unwrap_or_default();
    let client = ClientOptions::new()
        .with_timeout(Duration::from_secs(30))
        .with_connect_timeout(Duration::from_secs(10));
    // pq's fetches retry; the store's own retries would multiply them.
    let retry = RetryConfig {
        max_retries: 0,
        ..RetryConfig::default()
    };
    let path = ObjectPath::from_url_path(parsed.path()).map_err(|e| e.to_string())?;
    let scheme = parsed.scheme().to_ascii_lowercase();
    let built: Result<Arc<dyn ObjectStore>, object_store::Error> = match scheme.as_str() {
        "s3" | "s3a" => {
            let mut b = object_store::aws::AmazonS3Builder::from_env()
                .with_url(url)
                .with_client_options(client)
                .with_retry(retry)
                .with_skip_signature(options.no_sign_request);
            if let Some(e) = &options.endpoint {
                b = b
                    .with_endpoint(e)
                    .with_allow_http(e.starts_with("http://"))
                    .with_virtual_hosted_style_request(false);
            }
            b.build().map(|s| Arc::new(s) as _)
        }
        "gs" => object_store::gcp::GoogleCloudStorageBuilder::from_env()
            .with_url(url)
            .with_client_options(client)
            .with_retry(retry)
            .with_skip_signature(options.no_sign_request)
            .build()
            .map(|s| Arc::new(s) as _),
        "az" | "abfs" | "abfss" | "azure" => {
            let mut b = object_store::azure::MicrosoftAzureBuilder::from_env()
                .with_url(url)
                .with_client_options(client)
                .with_retry(retry)
                .with_skip_signature(options.no_sign_request);
            if let Some(e) = &options.endpoint {
                b = b
                    .with_endpoint(e.clone())
                    .with_allow_http(e.starts_with("http://"));
            }
            b.build().map(|s| Arc::new(s) as _)
        }
        "http" | "https" => {
            let origin = parsed.origin().ascii_serialization();
            object_store::http::HttpBuilder::new()
                .with_url(origin)
                .with_client_options(client.with_allow_http(true))
                .with_retry(retry)
                .build()
                .map(|s| Arc::new(s) as _)
        }
        other => return Err(format!("pq does not read {other}:// URLs")),
    };
    // The path inside an S3 bucket or Azure container is the URL's path;
    // the bucket is its host, which the builder took from the URL.
    Ok((built.map_err(|e| one_line(&e.to_string()))?, path))
}

/// A message on one line.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Bytes read ahead per request of a blocking read: enough for a footer
/// or a run of page headers in one request.
const READ_AHEAD: u64 = 1 << 20;

/// Windows of the object kept for blocking reads.
const WINDOWS: usize = 8;

/// An object opened for reading: its size is known, and blocking reads go
/// through a few read-ahead windows.
#[derive(Debug, Clone)]
pub struct RemoteFile {
    reader: Arc<ObjectStoreReader>,
    len: u64,
    pos: u64,
    /// `(offset, bytes)`, most recently used last.
    windows: Vec<(u64, Bytes)>,
    fetch: FetchOptions,
    stats: FetchStats,
}

impl RemoteFile {
    /// Opens the object at `url`: its size is asked for (one `HEAD`).
    pub fn open(url: &Path) -> Result<Self, CliError> {
        let text = url.to_string_lossy().into_owned();
        let (store, path) = store_for(&text).map_err(|e| CliError::file(url, e))?;
        let reader = Arc::new(ObjectStoreReader::new(store, path).with_name(text));
        let fetch = FetchOptions::default();
        let stats = FetchStats::default();
        let len = {
            let reader = reader.clone();
            let (fetch, stats) = (fetch.clone(), stats.clone());
            block_on(async move { pq_arrow::fetch_size(&*reader, &fetch, &stats).await })?
        }
        .map_err(|e| CliError::file(url, not_found(e)))?;
        Ok(RemoteFile {
            reader: Arc::new(ObjectStoreReader::clone(&reader).with_size(len)),
            len,
            pos: 0,
            windows: Vec::new(),
            fetch,
            stats,
        })
    }

    /// The object's size.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// The object for pq's async reader (its size known).
    pub fn async_reader(&self) -> Arc<ObjectStoreReader> {
        self.reader.clone()
    }

    /// The options pq's fetches use.
    pub fn fetch_options(&self) -> FetchOptions {
        self.fetch.clone()
    }

    /// What this handle's blocking reads fetched.
    pub fn stats(&self) -> &FetchStats {
        &self.stats
    }

    /// The window holding `pos`, fetched if no window does.
    fn window(&mut self, pos: u64) -> std::io::Result<(u64, Bytes)> {
        if let Some(i) = self
            .windows
            .iter()
            .position(|(o, d)| *o <= pos && pos < o + d.len() as u64)
        {
            let w = self.windows.remove(i);
            self.windows.push(w.clone());
            return Ok(w);
        }
        // Near the end, the window ends at the end: a footer is read in
        // one request.
        let start = if self.len - pos <= READ_AHEAD {
            self.len.saturating_sub(READ_AHEAD)
        } else {
            pos
        };
        let end = start.saturating_add(READ_AHEAD).min(self.len);
        let reader = self.reader.clone();
        let (fetch, stats) = (self.fetch.clone(), self.stats.clone());
        let data =
            block_on(
                async move { pq_arrow::fetch_range(&*reader, start..end, &fetch, &stats).await },
            )
            .map_err(|e| std::io::Error::other(e.to_string()))?
            .map_err(std::io::Error::other)?;
        if self.windows.len() >= WINDOWS {
            self.windows.remove(0);
        }
        self.windows.push((start, data.clone()));
        Ok((start, data))
    }
}

/// `NotFound` said as a missing file is.
fn not_found(e: pq_arrow::Error) -> String {
    match &e {
        pq_arrow::Error::Fetch { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            "no such object".into()
        }
        _ => e.to_string(),
    }
}

impl Read for RemoteFile {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.pos >= self.len || buf.is_empty() {
            return Ok(0);
        }
        let (offset, data) = self.window(self.pos)?;
        let from = usize::try_from(self.pos - offset).unwrap_or(usize::MAX);
        let avail = data.get(from..).unwrap_or_default();
        let n = avail.len().min(buf.len());
        buf[..n].copy_from_slice(&avail[..n]);
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for RemoteFile {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let target = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::End(d) => self.len.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = target.ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "seek before the start of the object",
            )
        })?;
        Ok(self.pos)
    }
}
