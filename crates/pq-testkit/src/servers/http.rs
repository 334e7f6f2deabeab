//! The little HTTP/1.1 the loopback servers speak: reading a message head and
//! a body framed by `Content-Length`, by chunks or by the end of the
//! connection, over a buffered stream that keeps what a keep-alive client
//! sent ahead. Parsing is httparse's; everything here is framing.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The largest message head accepted: object_store's requests and moto's
/// responses have heads of a few hundred bytes.
const MAX_HEAD: usize = 64 * 1024;

/// The most headers one message may carry.
const MAX_HEADERS: usize = 96;

/// How long a peer may take to send the rest of a message it has begun,
/// so that no connection task waits forever on a half-sent request.
pub(crate) const MESSAGE_TIMEOUT: Duration = Duration::from_secs(30);

/// How long an idle keep-alive connection is kept: longer than any test
/// pauses between requests, short enough that nothing lingers.
pub(crate) const IDLE_TIMEOUT: Duration = Duration::from_secs(120);

/// One header: its name as sent and its raw value.
pub(crate) type Header = (String, Vec<u8>);

/// A parsed request head.
pub(crate) struct Request {
    /// `GET`, `HEAD`, `PUT`, ...
    pub method: String,
    /// The request target as sent, query string included.
    pub target: String,
    /// The headers in the order sent.
    pub headers: Vec<Header>,
}

/// A parsed response head.
pub(crate) struct Response {
    /// The status code.
    pub status: u16,
    /// The reason phrase as sent.
    pub reason: String,
    /// The headers in the order sent.
    pub headers: Vec<Header>,
}

/// The value of the first header called `name` (case-insensitive), as text.
pub(crate) fn header<'a>(headers: &'a [Header], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .and_then(|(_, v)| std::str::from_utf8(v).ok())
        .map(str::trim)
}

/// Whether a header list asks for the connection to close after this message.
pub(crate) fn wants_close(headers: &[Header]) -> bool {
    header(headers, "connection")
        .is_some_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case("close")))
}

/// Whether the body is sent in chunks.
pub(crate) fn is_chunked(headers: &[Header]) -> bool {
    header(headers, "transfer-encoding").is_some_and(|v| {
        v.split(',')
            .any(|t| t.trim().eq_ignore_ascii_case("chunked"))
    })
}

/// The `Content-Length`, `Ok(None)` when absent, an error when not a number.
pub(crate) fn content_length(headers: &[Header]) -> io::Result<Option<u64>> {
    match header(headers, "content-length") {
        None => Ok(None),
        Some(v) => v
            .parse()
            .map(Some)
            .map_err(|_| invalid(format!("Content-Length {v:?} is not a number"))),
    }
}

/// An `InvalidData` error with this message.
pub(crate) fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// A stream and the bytes read from it but not yet consumed.
pub(crate) struct Reader<S> {
    /// The stream, reachable for writing too.
    pub stream: S,
    buf: Vec<u8>,
}

/// One read of `stream` into `buf`; the end of the stream, or no bytes
/// within [`MESSAGE_TIMEOUT`], is an error: the peer stopped inside `what`.
async fn read_within<S: AsyncRead + Unpin>(
    stream: &mut S,
    buf: &mut [u8],
    what: &str,
) -> io::Result<usize> {
    match tokio::time::timeout(MESSAGE_TIMEOUT, stream.read(buf)).await {
        Ok(Ok(0)) => Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("the connection closed inside {what}"),
        )),
        Ok(Ok(n)) => Ok(n),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!("no progress on {what} for {MESSAGE_TIMEOUT:?}"),
        )),
    }
}

impl<S: AsyncRead + Unpin> Reader<S> {
    /// Wraps a stream.
    pub fn new(stream: S) -> Self {
        Reader {
            stream,
            buf: Vec::new(),
        }
    }

    /// Reads more bytes into the buffer; `false` at the end of the stream.
    async fn fill(&mut self) -> io::Result<bool> {
        let mut chunk = [0u8; 16 * 1024];
        let n = self.stream.read(&mut chunk).await?;
        self.buf.extend_from_slice(&chunk[..n]);
        Ok(n > 0)
    }

    /// Like [`Self::fill`], but the end of the stream is an error: the peer
    /// stopped inside a message.
    async fn fill_within(&mut self, what: &str) -> io::Result<()> {
        let mut chunk = [0u8; 16 * 1024];
        let n = read_within(&mut self.stream, &mut chunk, what).await?;
        self.buf
            .extend_from_slice(chunk.get(..n).unwrap_or_default());
        Ok(())
    }

    /// The bytes of the next message head, through its blank line. `None`
    /// when the stream ends (or stays idle for `idle`) before a message
    /// begins.
    async fn head(&mut self, idle: Duration) -> io::Result<Option<Vec<u8>>> {
        if self.buf.is_empty() {
            match tokio::time::timeout(idle, self.fill()).await {
                Ok(Ok(true)) => {}
                Ok(Ok(false)) | Err(_) => return Ok(None),
                Ok(Err(e)) => return Err(e),
            }
        }
        loop {
            if let Some(end) = find(&self.buf, b"\r\n\r\n") {
                let rest = self.buf.split_off(end + 4);
                return Ok(Some(std::mem::replace(&mut self.buf, rest)));
            }
            if self.buf.len() > MAX_HEAD {
                return Err(invalid(format!("a message head over {MAX_HEAD} bytes")));
            }
            self.fill_within("a message head").await?;
        }
    }

    /// Reads the next request head; `None` when the client is done.
    pub async fn request(&mut self, idle: Duration) -> io::Result<Option<Request>> {
        let Some(head) = self.head(idle).await? else {
            return Ok(None);
        };
        let mut slots = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut parsed = httparse::Request::new(&mut slots);
        match parsed.parse(&head) {
            Ok(httparse::Status::Complete(_)) => {}
            Ok(httparse::Status::Partial) => return Err(invalid("a partial request head".into())),
            Err(e) => return Err(invalid(format!("a bad request head: {e}"))),
        }
        Ok(Some(Request {
            method: parsed.method.unwrap_or_default().to_owned(),
            target: parsed.path.unwrap_or_default().to_owned(),
            headers: owned(parsed.headers),
        }))
    }

    /// Reads the next response head (the stream must not end before it).
    pub async fn response(&mut self) -> io::Result<Response> {
        let Some(head) = self.head(MESSAGE_TIMEOUT).await? else {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the upstream closed or stayed silent without a response",
            ));
        };
        let mut slots = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut parsed = httparse::Response::new(&mut slots);
        match parsed.parse(&head) {
            Ok(httparse::Status::Complete(_)) => {}
            Ok(httparse::Status::Partial) => return Err(invalid("a partial response head".into())),
            Err(e) => return Err(invalid(format!("a bad response head: {e}"))),
        }
        Ok(Response {
            status: parsed.code.unwrap_or_default(),
            reason: parsed.reason.unwrap_or_default().to_owned(),
            headers: owned(parsed.headers),
        })
    }

    /// Reads exactly `len` body bytes.
    pub async fn exact(&mut self, len: u64) -> io::Result<Vec<u8>> {
        let len = usize::try_from(len)
            .map_err(|_| invalid(format!("a body of {len} bytes does not fit in memory")))?;
        while self.buf.len() < len {
            self.fill_within("a body").await?;
        }
        let rest = self.buf.split_off(len);
        Ok(std::mem::replace(&mut self.buf, rest))
    }

    /// Passes the next `len` body bytes on to `to` as they arrive, adding
    /// each piece to `counted` before it is written (so that a peer that
    /// has the whole body also sees it counted). The stream ending first is
    /// an error, after what came was passed on.
    pub async fn pipe<W: AsyncWrite + Unpin>(
        &mut self,
        len: u64,
        to: &mut W,
        counted: &AtomicU64,
    ) -> io::Result<()> {
        let mut left = len;
        // What was read with the head goes first.
        let held = self
            .buf
            .len()
            .min(usize::try_from(left).unwrap_or(usize::MAX));
        if held > 0 {
            let rest = self.buf.split_off(held);
            let first = std::mem::replace(&mut self.buf, rest);
            counted.fetch_add(held as u64, Ordering::Relaxed);
            to.write_all(&first).await?;
            left -= held as u64;
        }
        let mut piece = vec![0u8; 256 * 1024];
        while left > 0 {
            let want = piece.len().min(usize::try_from(left).unwrap_or(usize::MAX));
            let into = piece.get_mut(..want).unwrap_or_default();
            let n = read_within(&mut self.stream, into, "a body").await?;
            counted.fetch_add(n as u64, Ordering::Relaxed);
            to.write_all(piece.get(..n).unwrap_or_default()).await?;
            left -= n as u64;
        }
        Ok(())
    }

    /// Reads a chunked body and returns it de-chunked (trailers dropped).
    pub async fn chunked(&mut self) -> io::Result<Vec<u8>> {
        let mut body = Vec::new();
        loop {
            let line = self.line().await?;
            let size = line.split(|&b| b == b';').next().unwrap_or_default();
            let size = std::str::from_utf8(size)
                .ok()
                .and_then(|s| u64::from_str_radix(s.trim(), 16).ok())
                .ok_or_else(|| invalid("a bad chunk size line".into()))?;
            if size == 0 {
                // Trailers, if any, up to the blank line.
                while !self.line().await?.is_empty() {}
                return Ok(body);
            }
            body.extend(self.exact(size).await?);
            if !self.line().await?.is_empty() {
                return Err(invalid("a chunk longer than its size".into()));
            }
        }
    }

    /// Reads to the end of the stream (a body delimited by the close).
    pub async fn until_close(&mut self) -> io::Result<Vec<u8>> {
        loop {
            match tokio::time::timeout(MESSAGE_TIMEOUT, self.fill()).await {
                Ok(Ok(true)) => {}
                Ok(Ok(false)) => return Ok(std::mem::take(&mut self.buf)),
                Ok(Err(e)) => return Err(e),
                Err(_) => {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("no progress on a body for {MESSAGE_TIMEOUT:?}"),
                    ));
                }
            }
        }
    }

    /// One CRLF-terminated line, without its CRLF.
    async fn line(&mut self) -> io::Result<Vec<u8>> {
        loop {
            if let Some(end) = find(&self.buf, b"\r\n") {
                let rest = self.buf.split_off(end + 2);
                let mut line = std::mem::replace(&mut self.buf, rest);
                line.truncate(end);
                return Ok(line);
            }
            if self.buf.len() > MAX_HEAD {
                return Err(invalid(format!("a line over {MAX_HEAD} bytes")));
            }
            self.fill_within("a chunked body").await?;
        }
    }

    /// Reads a request body framed by its headers: by `Content-Length`, by
    /// chunks, or empty when neither is given.
    pub async fn request_body(&mut self, headers: &[Header]) -> io::Result<Vec<u8>> {
        if is_chunked(headers) {
            self.chunked().await
        } else {
            match content_length(headers)? {
                Some(len) => self.exact(len).await,
                None => Ok(Vec::new()),
            }
        }
    }
}

/// The headers of a parsed head, owned.
fn owned(headers: &[httparse::Header<'_>]) -> Vec<Header> {
    headers
        .iter()
        .map(|h| (h.name.to_owned(), h.value.to_vec()))
        .collect()
}

/// Where `needle` first occurs in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Writes a head: the first line, the headers, the blank line.
pub(crate) fn head_bytes(first_line: &str, headers: &[Header]) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(first_line.as_bytes());
    out.extend_from_slice(b"\r\n");
    for (name, value) in headers {
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out
}
