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
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use object_store::ObjectStore;
use object_store::path::Path as ObjectPath;
use pq_arrow::{FetchOptions, FetchStats, ObjectStoreReader};
use pq_datafusion::stores::{StoreOptions, store_for_url};

use crate::error::CliError;

/// How remote inputs are reached: the global flags.
#[derive(Debug, Clone, Default)]
pub struct RemoteOptions {
    /// `--endpoint`: the S3 or Azure endpoint (an S3-compatible server).
    pub endpoint: Option<String>,
    /// `--no-sign-request`: anonymous requests (public buckets).
    pub no_sign_request: bool,
    /// `--timeout`: the longest one request may take (default 30 s).
    pub timeout: Option<Duration>,
    /// `--retries`: attempts after the first of a request that failed in
    /// a way that may pass (default 3).
    pub retries: Option<u32>,
}

impl RemoteOptions {
    /// The options of pq's fetches: the defaults, with the flags' timeout
    /// and retries.
    fn fetch_options(&self) -> FetchOptions {
        let mut fetch = FetchOptions::default();
        if let Some(t) = self.timeout {
            fetch = fetch.with_request_timeout(t);
        }
        if let Some(r) = self.retries {
            fetch = fetch.with_retries(r);
        }
        fetch
    }

    /// How the stores are built: the flags' endpoint and signing, the
    /// request timeout, for the connection the shorter of it and 10 s,
    /// and no retries of the store's own (pq's fetches retry; the store's
    /// would multiply them).
    fn store_options(&self) -> StoreOptions {
        let timeout = self
            .timeout
            .unwrap_or(DEFAULT_TIMEOUT)
            .max(Duration::from_millis(1));
        StoreOptions {
            endpoint: self.endpoint.clone(),
            no_sign_request: self.no_sign_request,
            timeout,
            connect_timeout: timeout.min(CONNECT_TIMEOUT),
            retries: 0,
        }
    }
}

/// The store client's timeout of one request when `--timeout` is not
/// given (pq's fetches time out at the same 30 s).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The longest a connection may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

static OPTIONS: OnceLock<RemoteOptions> = OnceLock::new();

/// Sets the options every remote input is opened with (once, from the
/// command line).
pub fn set_options(options: RemoteOptions) {
    let _ = OPTIONS.set(options);
}

/// The URL schemes pq reads.
pub use pq_datafusion::stores::SCHEMES;

/// The scheme of `text` when it starts like a URL (`scheme://`, the scheme
/// two or more letters, digits, `+`, `-` or `.`, so that `C://` is not one).
fn scheme_of(text: &str) -> Option<&str> {
    let (scheme, _) = text.split_once("://")?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (scheme.len() >= 2
        && first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(scheme)
}

/// Whether `path` is a URL rather than a local path: a scheme pq reads,
/// or any other scheme when no such local path exists (opening it then
/// says which schemes pq reads).
pub fn is_url(path: &Path) -> bool {
    let Some(scheme) = path.to_str().and_then(scheme_of) else {
        return false;
    };
    SCHEMES.contains(&scheme.to_ascii_lowercase().as_str()) || !path.exists()
}

/// Whether `url` names a glob or a directory (a prefix) rather than one
/// object: an error saying so, as pq reads URLs one object at a time.
pub fn check_single_object(url: &Path) -> Result<(), CliError> {
    let text = url.to_string_lossy();
    let rest = text.split_once("://").map_or(&*text, |(_, r)| r);
    if rest.contains('*') {
        return Err(CliError::Usage(format!(
            "{text}: globs of URLs are not expanded; name each object"
        )));
    }
    if rest.ends_with('/') {
        return Err(CliError::Usage(format!(
            "{text}: directories (prefixes) of URLs are not read; name each object"
        )));
    }
    Ok(())
}

/// The runtime of remote requests, once started.
static RUNTIME: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();

/// The runtime remote requests run on: two worker threads, made on first
/// use (local files never start it).
fn runtime() -> Result<&'static tokio::runtime::Runtime, CliError> {
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

/// The fetch options of the command line (`--timeout`, `--retries`).
pub fn fetch_options() -> FetchOptions {
    OPTIONS.get().cloned().unwrap_or_default().fetch_options()
}

/// The store of object URL `location` (with the command line's options)
/// and the URL of its root (`s3://bucket`, `https://host`), under which a
/// query engine finds it.
pub fn store_of(location: &str) -> Result<(Arc<dyn ObjectStore>, url::Url), CliError> {
    let path = Path::new(location);
    let options = OPTIONS.get().cloned().unwrap_or_default();
    let (store, _) = store_for(location, &options).map_err(|e| CliError::file(path, e))?;
    let mut root = url::Url::parse(location).map_err(|e| CliError::file(path, e))?;
    root.set_path("");
    root.set_query(None);
    root.set_fragment(None);
    Ok((store, root))
}

/// The store and object path of `url`.
fn store_for(
    url: &str,
    options: &RemoteOptions,
) -> Result<(Arc<dyn ObjectStore>, ObjectPath), String> {
    let parsed = url::Url::parse(url).map_err(|e| format!("not a valid URL: {e}"))?;
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err("URLs with a query (?...) or a fragment (#...) are not read".into());
    }
    let scheme = parsed.scheme().to_ascii_lowercase();
    if !SCHEMES.contains(&scheme.as_str()) {
        return Err(format!(
            "pq does not read {scheme}:// URLs (only s3://, gs://, az://, abfs[s]://, \
             http:// and https://)"
        ));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(format!(
            "not a valid URL: no {}",
            match scheme.as_str() {
                "s3" | "s3a" | "gs" => "bucket",
                "az" | "abfs" | "abfss" | "azure" => "container",
                _ => "host",
            }
        ));
    }
    if parsed.path().trim_start_matches('/').is_empty() {
        return Err("not a valid URL: no object named after the bucket or host".into());
    }
    let path = ObjectPath::from_url_path(parsed.path()).map_err(|e| e.to_string())?;
    // The path inside an S3 bucket or Azure container is the URL's path;
    // the bucket is its host, which the builder takes from the URL.
    let store = store_for_url(&parsed, &options.store_options())?;
    Ok((store, path))
}

/// Bytes read ahead per request of a blocking read: enough for a run of
/// page headers in one request.
const READ_AHEAD: u64 = 1 << 20;

/// Bytes of the object's end read at once for its footer: the footer in
/// one request when its metadata fits (the async reader's first request
/// is as large), without fetching the data before it.
const FOOTER_READ: u64 = pq_format::DEFAULT_FOOTER_PREFETCH;

/// The bytes of the magic a Parquet file starts with.
const MAGIC_LEN: u64 = 4;

/// Windows of the object kept for blocking reads.
const WINDOWS: usize = 8;

/// An object opened for reading: its size is known, and blocking reads go
/// through a few read-ahead windows, which the handle's clones share (a
/// footer read once serves them all).
#[derive(Debug, Clone)]
pub struct RemoteFile {
    reader: Arc<ObjectStoreReader>,
    len: u64,
    pos: u64,
    /// `(offset, bytes)`, most recently used last.
    windows: Arc<Mutex<Vec<(u64, Bytes)>>>,
    fetch: FetchOptions,
    stats: FetchStats,
}

impl RemoteFile {
    /// Opens the object at `url`: its size is asked for (one `HEAD`).
    pub fn open(url: &Path) -> Result<Self, CliError> {
        let text = url.to_string_lossy().into_owned();
        let options = OPTIONS.get().cloned().unwrap_or_default();
        let (store, path) = store_for(&text, &options).map_err(|e| CliError::file(url, e))?;
        let reader = Arc::new(ObjectStoreReader::new(store, path).with_name(text));
        let fetch = options.fetch_options();
        let stats = FetchStats::default();
        // The size and the footer's window in one request (a suffix range).
        let (len, tail) = {
            let reader = reader.clone();
            let (fetch, stats) = (fetch.clone(), stats.clone());
            block_on(
                async move { pq_arrow::fetch_suffix(&*reader, FOOTER_READ, &fetch, &stats).await },
            )?
        }
        .map_err(|e| CliError::file(url, not_found(e)))?;
        let tail_start = len.saturating_sub(tail.len() as u64);
        Ok(RemoteFile {
            reader: Arc::new(ObjectStoreReader::clone(&reader).with_size(len)),
            len,
            pos: 0,
            windows: Arc::new(Mutex::new(vec![(tail_start, tail)])),
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

    /// What the blocking reads of this handle and its clones fetched (the
    /// size asked for included).
    pub fn stats(&self) -> &FetchStats {
        &self.stats
    }

    /// The windows, locked (a poisoned lock still holds whole windows).
    fn windows(&self) -> MutexGuard<'_, Vec<(u64, Bytes)>> {
        self.windows.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The window holding `pos`, fetched if no window does.
    fn window(&mut self, pos: u64) -> std::io::Result<(u64, Bytes)> {
        {
            let mut windows = self.windows();
            if let Some(i) = windows
                .iter()
                .position(|(o, d)| *o <= pos && pos < o + d.len() as u64)
            {
                let w = windows.remove(i);
                windows.push(w.clone());
                return Ok(w);
            }
        }
        // In the object's last bytes, the window is its end: the footer in
        // one request. At its start it is the leading magic alone (checked
        // before the footer is read), so that an object is not fetched for
        // four bytes. Elsewhere it reads ahead from `pos`.
        let (start, end) = if self.len - pos <= FOOTER_READ {
            (self.len.saturating_sub(FOOTER_READ), self.len)
        } else if pos < MAGIC_LEN {
            (0, MAGIC_LEN)
        } else {
            (pos, pos.saturating_add(READ_AHEAD).min(self.len))
        };
        let reader = self.reader.clone();
        let (fetch, stats) = (self.fetch.clone(), self.stats.clone());
        let data =
            block_on(
                async move { pq_arrow::fetch_range(&*reader, start..end, &fetch, &stats).await },
            )
            .map_err(|e| std::io::Error::other(e.to_string()))?
            .map_err(std::io::Error::other)?;
        let mut windows = self.windows();
        if windows.len() >= WINDOWS {
            windows.remove(0);
        }
        windows.push((start, data.clone()));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_local_paths() {
        assert!(is_url(Path::new("s3://bucket/key.parquet")));
        assert!(is_url(Path::new("HTTPS://host/f.parquet")));
        assert!(is_url(Path::new("ftp://host/f.parquet")));
        assert!(!is_url(Path::new("C://data/f.parquet")));
        assert!(!is_url(Path::new("data/f.parquet")));
        assert!(!is_url(Path::new("-")));
        assert!(check_single_object(Path::new("s3://b/t/*.parquet")).is_err());
        assert!(check_single_object(Path::new("s3://b/t/")).is_err());
        assert!(check_single_object(Path::new("s3://b/t/a.parquet")).is_ok());
    }

    #[test]
    fn bad_urls_are_one_line() {
        let o = RemoteOptions::default();
        let e = |u: &str| store_for(u, &o).err().unwrap_or_default();
        assert!(e("ftp://host/f.parquet").contains("does not read ftp://"));
        assert!(e("s3:///key").contains("no bucket"));
        assert!(e("http://host/f.parquet?x=1").contains("query"));
        assert!(e("s3://bucket").contains("no object"));
    }

    #[test]
    fn flags_set_timeout_and_retries() {
        let o = RemoteOptions {
            timeout: Some(Duration::from_millis(1500)),
            retries: Some(1),
            ..RemoteOptions::default()
        };
        assert_eq!(o.fetch_options().retries(), 1);
        let s = o.store_options();
        assert_eq!(
            (s.timeout, s.connect_timeout, s.retries),
            (
                o.timeout.unwrap_or_default(),
                o.timeout.unwrap_or_default(),
                0
            )
        );
        let s = RemoteOptions::default().store_options();
        assert_eq!(
            (s.timeout, s.connect_timeout),
            (Duration::from_secs(30), Duration::from_secs(10))
        );
    }

    #[test]
    fn local_inputs_start_no_runtime() {
        let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
        let input = crate::input::open(Path::new(sample));
        assert!(matches!(input, Ok(crate::input::Input::File { .. })));
        let _ = crate::input::metadata(Path::new(sample));
        assert!(RUNTIME.get().is_none());
    }
}
