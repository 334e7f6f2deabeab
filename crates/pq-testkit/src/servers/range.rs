//! [`RangeServer`]: in-memory objects over HTTP/1.1 with byte ranges, as
//! object_store's `HttpStore` reads them, counting what it serves.

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::SystemTime;

use bytes::Bytes;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use super::http::{self, Header, IDLE_TIMEOUT, Reader};
use super::{Background, accept_loop};

/// An HTTP/1.1 server on `127.0.0.1` serving in-memory objects at `/name`.
///
/// `GET` answers 200 with the whole object, or 206 with `Content-Range` for
/// `Range: bytes=a-b`, `bytes=a-` and `bytes=-n`; a range that starts past
/// the end is 416, an unknown name 404, and `HEAD` gives the headers alone.
/// Every answer to an object carries `Content-Length`, `Last-Modified`,
/// `ETag` and `Accept-Ranges: bytes`. Connections are kept alive.
///
/// It runs on its own thread and runtime, and stops when dropped.
///
/// ```no_run
/// let server = pq_testkit::RangeServer::start()?;
/// server.put("dir/file.parquet", vec![0u8; 1000]);
/// let url = format!("{}/dir/file.parquet", server.url());
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct RangeServer {
    state: Arc<State>,
    background: Background,
}

/// One stored object.
struct Object {
    body: Bytes,
    last_modified: SystemTime,
    etag: String,
}

/// What the server and its handle share.
#[derive(Default)]
struct State {
    objects: Mutex<HashMap<String, Object>>,
    /// Bumped on each put, so that a replaced object has a new ETag.
    version: AtomicU64,
    connections: AtomicU64,
    gets: AtomicU64,
    heads: AtomicU64,
    others: AtomicU64,
    body_bytes: AtomicU64,
    ranges: Mutex<Vec<(String, Option<Range<u64>>)>>,
}

/// Requests answered, by method.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RequestCounts {
    /// `GET` requests, whatever their answer.
    pub get: u64,
    /// `HEAD` requests, whatever their answer.
    pub head: u64,
    /// Requests with any other method (answered 405).
    pub other: u64,
}

impl RequestCounts {
    /// All requests answered.
    pub fn total(&self) -> u64 {
        self.get + self.head + self.other
    }
}

/// A snapshot of a [`RangeServer`]'s counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeStats {
    /// Requests answered, by method.
    pub requests: RequestCounts,
    /// Bytes of response bodies sent (object bytes; heads not counted).
    pub body_bytes: u64,
    /// Connections accepted: fewer than requests when clients keep them
    /// alive.
    pub connections: u64,
    /// The `GET`s that were served an object, in order: the name, and the
    /// byte range sent (resolved against the object's length), or `None`
    /// when no `Range` was asked for and the whole object was sent.
    pub ranges: Vec<(String, Option<Range<u64>>)>,
}

/// Locks a mutex; a poisoned lock is still usable, since every update to
/// the guarded data is a single step.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl RangeServer {
    /// Starts an empty server on `127.0.0.1` and a free port.
    pub fn start() -> io::Result<Self> {
        let state = Arc::new(State::default());
        let shared = Arc::clone(&state);
        let background = Background::start("pq-testkit RangeServer", move |listener| {
            accept_loop(listener, move |stream| serve(stream, Arc::clone(&shared)))
        })?;
        Ok(RangeServer { state, background })
    }

    /// `http://127.0.0.1:PORT`, the base URL; objects are at `/name` below it.
    pub fn url(&self) -> String {
        format!("http://{}", self.background.addr)
    }

    /// The address the server listens on (for a [`super::FaultProxy`]).
    pub fn addr(&self) -> SocketAddr {
        self.background.addr
    }

    /// Stores (or replaces) the object `name` (no leading `/`; it may contain
    /// `/`), stamped with the current time and a new ETag.
    pub fn put(&self, name: &str, body: impl Into<Bytes>) {
        let body = body.into();
        let version = self.state.version.fetch_add(1, Ordering::Relaxed) + 1;
        let object = Object {
            etag: format!("\"{version}-{}\"", body.len()),
            body,
            last_modified: SystemTime::now(),
        };
        lock(&self.state.objects).insert(name.trim_start_matches('/').to_owned(), object);
    }

    /// Removes the object `name`, returning its bytes if it was there.
    pub fn remove(&self, name: &str) -> Option<Bytes> {
        lock(&self.state.objects)
            .remove(name.trim_start_matches('/'))
            .map(|o| o.body)
    }

    /// The counters as they are now.
    pub fn stats(&self) -> RangeStats {
        RangeStats {
            requests: self.requests(),
            body_bytes: self.body_bytes(),
            connections: self.state.connections.load(Ordering::Relaxed),
            ranges: self.ranges(),
        }
    }

    /// Requests answered so far, by method.
    pub fn requests(&self) -> RequestCounts {
        RequestCounts {
            get: self.state.gets.load(Ordering::Relaxed),
            head: self.state.heads.load(Ordering::Relaxed),
            other: self.state.others.load(Ordering::Relaxed),
        }
    }

    /// Bytes of response bodies sent so far.
    pub fn body_bytes(&self) -> u64 {
        self.state.body_bytes.load(Ordering::Relaxed)
    }

    /// The log of served `GET`s: name and range (see [`RangeStats::ranges`]).
    pub fn ranges(&self) -> Vec<(String, Option<Range<u64>>)> {
        lock(&self.state.ranges).clone()
    }

    /// Sets every counter to zero and empties the range log.
    pub fn reset_stats(&self) {
        self.state.connections.store(0, Ordering::Relaxed);
        self.state.gets.store(0, Ordering::Relaxed);
        self.state.heads.store(0, Ordering::Relaxed);
        self.state.others.store(0, Ordering::Relaxed);
        self.state.body_bytes.store(0, Ordering::Relaxed);
        lock(&self.state.ranges).clear();
    }
}

/// Serves one connection until the client closes it, asks to, goes idle,
/// or sends something unreadable.
async fn serve(stream: TcpStream, state: Arc<State>) {
    state.connections.fetch_add(1, Ordering::Relaxed);
    let mut conn = Reader::new(stream);
    loop {
        let request = match conn.request(IDLE_TIMEOUT).await {
            Ok(Some(request)) => request,
            Ok(None) | Err(_) => return,
        };
        // A body (none is expected) is read so the next request lines up.
        if conn.request_body(&request.headers).await.is_err() {
            return;
        }
        let (head, body) = answer(&state, &request.method, &request.target, &request.headers);
        // Counted before it is sent, so that a client that has its answer
        // also sees it counted.
        state
            .body_bytes
            .fetch_add(body.len() as u64, Ordering::Relaxed);
        let written = async {
            conn.stream.write_all(&head).await?;
            conn.stream.write_all(&body).await?;
            conn.stream.flush().await
        };
        if written.await.is_err() {
            return;
        }
        if http::wants_close(&request.headers) {
            return;
        }
    }
}

/// The response (head bytes, body) to one request, counted.
fn answer(state: &State, method: &str, target: &str, headers: &[Header]) -> (Vec<u8>, Bytes) {
    let is_head = match method {
        "GET" => {
            state.gets.fetch_add(1, Ordering::Relaxed);
            false
        }
        "HEAD" => {
            state.heads.fetch_add(1, Ordering::Relaxed);
            true
        }
        _ => {
            state.others.fetch_add(1, Ordering::Relaxed);
            let headers = vec![
                ("Allow".into(), b"GET, HEAD".to_vec()),
                ("Content-Length".into(), b"0".to_vec()),
            ];
            return (
                http::head_bytes("HTTP/1.1 405 Method Not Allowed", &headers),
                Bytes::new(),
            );
        }
    };
    let name = object_name(target);
    let objects = lock(&state.objects);
    let Some(object) = objects.get(&name) else {
        let headers = vec![("Content-Length".into(), b"0".to_vec())];
        return (
            http::head_bytes("HTTP/1.1 404 Not Found", &headers),
            Bytes::new(),
        );
    };
    let len = object.body.len() as u64;
    let mut out: Vec<Header> = vec![
        ("Accept-Ranges".into(), b"bytes".to_vec()),
        (
            "Last-Modified".into(),
            httpdate::fmt_http_date(object.last_modified).into_bytes(),
        ),
        ("ETag".into(), object.etag.clone().into_bytes()),
        ("Content-Type".into(), b"application/octet-stream".to_vec()),
    ];
    let range = http::header(headers, "range").and_then(parse_range);
    let (status, range) = match range {
        None => ("HTTP/1.1 200 OK", None),
        Some(asked) => match resolve(asked, len) {
            Some(range) => {
                out.push((
                    "Content-Range".into(),
                    format!("bytes {}-{}/{len}", range.start, range.end - 1).into_bytes(),
                ));
                ("HTTP/1.1 206 Partial Content", Some(range))
            }
            None => {
                let headers = vec![
                    (
                        "Content-Range".into(),
                        format!("bytes */{len}").into_bytes(),
                    ),
                    ("Content-Length".into(), b"0".to_vec()),
                ];
                return (
                    http::head_bytes("HTTP/1.1 416 Range Not Satisfiable", &headers),
                    Bytes::new(),
                );
            }
        },
    };
    let body = match &range {
        // In bounds: `resolve` keeps ranges within the object.
        Some(r) => object.body.slice(r.start as usize..r.end as usize),
        None => object.body.clone(),
    };
    out.push(("Content-Length".into(), body.len().to_string().into_bytes()));
    if is_head {
        return (http::head_bytes(status, &out), Bytes::new());
    }
    lock(&state.ranges).push((name, range));
    (http::head_bytes(status, &out), body)
}

/// The object name a request target names: without the leading `/` and
/// any query string, percent-decoded (object_store encodes path segments).
fn object_name(target: &str) -> String {
    let path = target.split(['?', '#']).next().unwrap_or_default();
    let path = path.trim_start_matches('/');
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A byte range as asked for, before the object's length is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Asked {
    /// `bytes=a-b` (inclusive) or, with `None`, `bytes=a-`.
    From(u64, Option<u64>),
    /// `bytes=-n`: the last `n` bytes.
    Suffix(u64),
}

/// Parses a `Range` header of one byte range. Anything else (several
/// ranges, other units, nonsense) is `None`: the header is then ignored and
/// the whole object sent, as HTTP allows.
fn parse_range(value: &str) -> Option<Asked> {
    let spec = value.trim().strip_prefix("bytes=")?.trim();
    if spec.contains(',') {
        return None;
    }
    let (first, last) = spec.split_once('-')?;
    let (first, last) = (first.trim(), last.trim());
    if first.is_empty() {
        return last.parse().ok().map(Asked::Suffix);
    }
    let first = first.parse().ok()?;
    if last.is_empty() {
        return Some(Asked::From(first, None));
    }
    let last = last.parse().ok()?;
    (last >= first).then_some(Asked::From(first, Some(last)))
}

/// The bytes of an object of `len` bytes a range asks for, end exclusive;
/// `None` when unsatisfiable (416).
fn resolve(asked: Asked, len: u64) -> Option<Range<u64>> {
    match asked {
        Asked::From(first, last) if first < len => {
            let end = last.map_or(len, |last| last.saturating_add(1).min(len));
            Some(first..end)
        }
        Asked::From(..) => None,
        Asked::Suffix(n) if n > 0 && len > 0 => Some(len - n.min(len)..len),
        Asked::Suffix(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_resolve_as_http_says() {
        let r = |s: &str, len| parse_range(s).and_then(|a| resolve(a, len));
        assert_eq!(r("bytes=0-9", 100), Some(0..10));
        assert_eq!(r("bytes=90-200", 100), Some(90..100));
        assert_eq!(r("bytes=10-", 100), Some(10..100));
        assert_eq!(r("bytes=-10", 100), Some(90..100));
        assert_eq!(r("bytes=-1000", 100), Some(0..100));
        assert_eq!(r("bytes=100-", 100), None);
        assert_eq!(r("bytes=-0", 100), None);
        assert_eq!(r("bytes=0-0", 0), None);
        assert_eq!(parse_range("bytes=5-1"), None);
        assert_eq!(parse_range("bytes=0-1,4-5"), None);
        assert_eq!(parse_range("items=0-1"), None);
    }

    #[test]
    fn names_are_decoded() {
        assert_eq!(object_name("/a/b%20c.parquet?x=1"), "a/b c.parquet");
        assert_eq!(object_name("/100%"), "100%");
    }
}
