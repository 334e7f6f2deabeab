//! [`FaultProxy`]: an HTTP proxy that injects the failures a remote reader
//! must survive (latency, error statuses, resets, truncated bodies,
//! silence), switched on and off by a test while it runs.

use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::http::{self, Header, IDLE_TIMEOUT, MESSAGE_TIMEOUT, Reader};
use super::{Background, accept_loop};

/// An HTTP/1.1 proxy on `127.0.0.1` in front of an upstream server (a
/// [`super::RangeServer`] or a [`super::MotoServer`]).
///
/// Each request is forwarded on a fresh upstream connection. A response
/// that is passed on unfaulted with a `Content-Length` is streamed: its
/// head goes to the client after the latency, and its body as it arrives,
/// so that a latency adds only itself, as on a network, and not the time
/// to hold the body (a proxy holding each answer whole took 418 ms to pass
/// on a 138 MB object that came straight from the server in 99 ms). Any
/// other response (faulted, chunked, or delimited by the upstream's close)
/// is read whole, de-chunked, and sent with a `Content-Length` after the
/// faults in [`Faults`] are applied. Client connections are kept alive.
/// Headers pass unchanged but for framing ones, so the `Host` the client
/// signed (S3) still matches.
///
/// It runs on its own thread and runtime, and stops when dropped.
///
/// ```no_run
/// # use std::time::Duration;
/// let server = pq_testkit::RangeServer::start()?;
/// let proxy = pq_testkit::FaultProxy::start(server.addr())?;
/// proxy.faults().set_latency(Duration::from_millis(20));
/// proxy.faults().fail_next(2, 503);
/// // point the client at proxy.url()
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct FaultProxy {
    shared: Arc<Shared>,
    background: Background,
}

/// What the proxy and its handle share.
struct Shared {
    upstream: SocketAddr,
    faults: Arc<Faults>,
    requests: AtomicU64,
    response_bytes: AtomicU64,
}

/// The faults a [`FaultProxy`] applies, changeable while it runs (it is
/// shared: [`FaultProxy::faults`] returns an `Arc`).
///
/// A request is silenced first if a silence is pending; otherwise it is
/// forwarded, and its response, after the latency, is replaced by an error
/// status if one is pending, else reset if a reset is pending, else
/// truncated if a truncation is pending. Resets and truncations wait for a
/// response with a non-empty body (a `HEAD` answer has none to cut).
#[derive(Debug, Default)]
pub struct Faults {
    state: Mutex<FaultState>,
}

#[derive(Debug, Default, Clone, Copy)]
struct FaultState {
    latency: Duration,
    status: u16,
    statuses: u64,
    resets: u64,
    truncations: u64,
    silences: u64,
    silence_all: bool,
}

/// The faults still to be applied, from [`Faults::pending`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PendingFaults {
    /// The latency added before each response.
    pub latency: Duration,
    /// Responses still to be replaced by an error status.
    pub statuses: u64,
    /// Responses still to be reset mid-body.
    pub resets: u64,
    /// Responses still to be truncated.
    pub truncations: u64,
    /// Requests still to be left unanswered.
    pub silences: u64,
    /// Whether every request is left unanswered.
    pub silence_all: bool,
}

/// What to do with one response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Forward,
    Status(u16),
    Reset,
    Truncate,
}

/// Counters of a [`FaultProxy`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProxyStats {
    /// Requests forwarded to the upstream (silenced ones are not).
    pub requests: u64,
    /// Bytes of response bodies sent to clients (the part sent, for a reset
    /// or truncated body; an injected error's body included).
    pub response_bytes: u64,
}

/// Locks a mutex; a poisoned lock is still usable, since every update to
/// the guarded data is a single step.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Faults {
    /// Delays every response by `latency` before it is sent (zero: none).
    pub fn set_latency(&self, latency: Duration) {
        lock(&self.state).latency = latency;
    }

    /// Replaces the next `n` responses by `status` (e.g. 500 or 503) with a
    /// short text body; the requests still reach the upstream.
    pub fn fail_next(&self, n: u64, status: u16) {
        let mut state = lock(&self.state);
        state.statuses = n;
        state.status = status;
    }

    /// Resets the connections of the next `n` responses with a body mid-body:
    /// the head and half the body are sent, then the socket is closed with
    /// `SO_LINGER` 0, so the client sees a TCP RST.
    pub fn reset_next(&self, n: u64) {
        lock(&self.state).resets = n;
    }

    /// Truncates the next `n` responses with a body: the full
    /// `Content-Length` header, half the body, then a clean close.
    pub fn truncate_next(&self, n: u64) {
        lock(&self.state).truncations = n;
    }

    /// Leaves the next `n` requests unanswered: not forwarded, and the
    /// connection held open in silence until the client closes it (or the
    /// proxy stops).
    pub fn silence_next(&self, n: u64) {
        lock(&self.state).silences = n;
    }

    /// Leaves every request unanswered until [`Self::clear`] (connections
    /// already held stay silent).
    pub fn silence_all(&self) {
        lock(&self.state).silence_all = true;
    }

    /// Removes every fault, the latency included.
    pub fn clear(&self) {
        *lock(&self.state) = FaultState::default();
    }

    /// The faults still to be applied.
    pub fn pending(&self) -> PendingFaults {
        let s = *lock(&self.state);
        PendingFaults {
            latency: s.latency,
            statuses: s.statuses,
            resets: s.resets,
            truncations: s.truncations,
            silences: s.silences,
            silence_all: s.silence_all,
        }
    }

    /// Whether this request is to be silenced (a pending silence is used).
    fn take_silence(&self) -> bool {
        let mut state = lock(&self.state);
        if state.silence_all {
            return true;
        }
        if state.silences > 0 {
            state.silences -= 1;
            return true;
        }
        false
    }

    /// The latency, when a response with a body would be forwarded as it
    /// is (no status, reset or truncation pending); `None` otherwise, and
    /// nothing is used.
    fn unfaulted(&self) -> Option<Duration> {
        let state = lock(&self.state);
        (state.next_action(true) == Action::Forward).then_some(state.latency)
    }

    /// The latency and the action for a response; the fault chosen is used.
    fn take_action(&self, has_body: bool) -> (Duration, Action) {
        let mut state = lock(&self.state);
        let action = state.next_action(has_body);
        match action {
            Action::Status(_) => state.statuses -= 1,
            Action::Reset => state.resets -= 1,
            Action::Truncate => state.truncations -= 1,
            Action::Forward => {}
        }
        (state.latency, action)
    }
}

impl FaultState {
    /// The action for the next response (with a body or not), without
    /// using it: a status first, then a reset, then a truncation.
    fn next_action(&self, has_body: bool) -> Action {
        if self.statuses > 0 {
            Action::Status(self.status)
        } else if has_body && self.resets > 0 {
            Action::Reset
        } else if has_body && self.truncations > 0 {
            Action::Truncate
        } else {
            Action::Forward
        }
    }
}

impl FaultProxy {
    /// Starts a proxy on `127.0.0.1` and a free port in front of `upstream`
    /// (`host:port`, resolved now), with no faults.
    pub fn start(upstream: impl ToSocketAddrs) -> io::Result<Self> {
        let upstream = upstream.to_socket_addrs()?.next().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "the upstream address resolves to nothing",
            )
        })?;
        let shared = Arc::new(Shared {
            upstream,
            faults: Arc::new(Faults::default()),
            requests: AtomicU64::new(0),
            response_bytes: AtomicU64::new(0),
        });
        let handed = Arc::clone(&shared);
        let background = Background::start("pq-testkit FaultProxy", move |listener| {
            accept_loop(listener, move |stream| serve(stream, Arc::clone(&handed)))
        })?;
        Ok(FaultProxy { shared, background })
    }

    /// `http://127.0.0.1:PORT`, the URL to give the client instead of the
    /// upstream's.
    pub fn url(&self) -> String {
        format!("http://{}", self.background.addr)
    }

    /// The address the proxy listens on.
    pub fn addr(&self) -> SocketAddr {
        self.background.addr
    }

    /// The upstream address requests are forwarded to.
    pub fn upstream(&self) -> SocketAddr {
        self.shared.upstream
    }

    /// The faults, to change while the proxy runs (an `Arc`, so a test's
    /// other tasks can hold them too).
    pub fn faults(&self) -> Arc<Faults> {
        Arc::clone(&self.shared.faults)
    }

    /// The counters as they are now.
    pub fn stats(&self) -> ProxyStats {
        ProxyStats {
            requests: self.shared.requests.load(Ordering::Relaxed),
            response_bytes: self.shared.response_bytes.load(Ordering::Relaxed),
        }
    }

    /// Sets the counters to zero.
    pub fn reset_stats(&self) {
        self.shared.requests.store(0, Ordering::Relaxed);
        self.shared.response_bytes.store(0, Ordering::Relaxed);
    }
}

/// A response read from the upstream, its body whole and de-chunked.
struct Upstream {
    status: u16,
    reason: String,
    headers: Vec<Header>,
    body: Vec<u8>,
}

/// Headers that frame a message on one connection: not forwarded, since
/// each hop frames its own.
fn is_hop_header(name: &str) -> bool {
    [
        "connection",
        "keep-alive",
        "transfer-encoding",
        "content-length",
    ]
    .iter()
    .any(|h| name.eq_ignore_ascii_case(h))
}

/// Serves one client connection until it closes, asks to, goes idle, is
/// faulted, or fails.
async fn serve(client: TcpStream, shared: Arc<Shared>) {
    let mut conn = Reader::new(client);
    loop {
        let request = match conn.request(IDLE_TIMEOUT).await {
            Ok(Some(request)) => request,
            Ok(None) | Err(_) => return,
        };
        let Ok(body) = conn.request_body(&request.headers).await else {
            return;
        };
        if shared.faults.take_silence() {
            // Held until the client gives up; the runtime's end on Drop ends
            // it too. What the client sends meanwhile is dropped.
            let mut sink = [0u8; 4096];
            while matches!(conn.stream.read(&mut sink).await, Ok(n) if n > 0) {}
            return;
        }
        shared.requests.fetch_add(1, Ordering::Relaxed);
        let is_head = request.method.eq_ignore_ascii_case("HEAD");
        let forwarded = forward(
            shared.upstream,
            &request,
            &body,
            is_head,
            &mut conn.stream,
            &shared,
        );
        let response = match forwarded.await {
            Ok(Forwarded::Streamed { sent }) => {
                if sent.is_err() || http::wants_close(&request.headers) {
                    return;
                }
                continue;
            }
            Ok(Forwarded::Whole(response)) => response,
            Err(e) => {
                // The upstream failed: say so as a 502, and close.
                let text = format!("pq-testkit FaultProxy: upstream {}: {e}\n", shared.upstream);
                let _ = send(
                    &mut conn.stream,
                    502,
                    "Bad Gateway",
                    &[],
                    text.as_bytes(),
                    &shared,
                )
                .await;
                return;
            }
        };
        let (latency, action) = shared.faults.take_action(!response.body.is_empty());
        if !latency.is_zero() {
            tokio::time::sleep(latency).await;
        }
        let sent = match action {
            Action::Forward => {
                let mut headers = response.headers;
                if !is_head {
                    headers.retain(|(n, _)| !n.eq_ignore_ascii_case("content-length"));
                }
                send(
                    &mut conn.stream,
                    response.status,
                    &response.reason,
                    &headers,
                    &response.body,
                    &shared,
                )
                .await
            }
            Action::Status(status) => {
                let text = format!("pq-testkit FaultProxy: injected {status}\n");
                let reason = match status {
                    500 => "Internal Server Error",
                    502 => "Bad Gateway",
                    503 => "Service Unavailable",
                    504 => "Gateway Timeout",
                    _ => "Injected Fault",
                };
                send(
                    &mut conn.stream,
                    status,
                    reason,
                    &[],
                    text.as_bytes(),
                    &shared,
                )
                .await
            }
            Action::Reset | Action::Truncate => {
                let _ = cut(&mut conn.stream, &response, &shared).await;
                if action == Action::Reset {
                    // SO_LINGER 0: closing sends RST instead of FIN.
                    let _ = conn.stream.set_zero_linger();
                } else {
                    let _ = conn.stream.shutdown().await;
                }
                return;
            }
        };
        if sent.is_err() || http::wants_close(&request.headers) {
            return;
        }
    }
}

/// Sends the head and half the body of `response`, with its full length
/// announced.
async fn cut(client: &mut TcpStream, response: &Upstream, shared: &Shared) -> io::Result<()> {
    let half = &response.body[..response.body.len() / 2];
    let mut headers = response.headers.clone();
    headers.retain(|(n, _)| !n.eq_ignore_ascii_case("content-length"));
    headers.push((
        "Content-Length".into(),
        response.body.len().to_string().into_bytes(),
    ));
    let first = format!("HTTP/1.1 {} {}", response.status, response.reason);
    // Counted before it is sent, so that a client that has its answer also
    // sees it counted.
    shared
        .response_bytes
        .fetch_add(half.len() as u64, Ordering::Relaxed);
    client
        .write_all(&http::head_bytes(&first, &headers))
        .await?;
    client.write_all(half).await?;
    client.flush().await
}

/// Sends a whole response framed by `Content-Length` (added here unless the
/// headers carry one, as a `HEAD` answer's does).
async fn send(
    client: &mut TcpStream,
    status: u16,
    reason: &str,
    headers: &[Header],
    body: &[u8],
    shared: &Shared,
) -> io::Result<()> {
    let mut headers = headers.to_vec();
    if http::header(&headers, "content-length").is_none() {
        headers.push(("Content-Length".into(), body.len().to_string().into_bytes()));
    }
    let first = format!("HTTP/1.1 {status} {reason}");
    let mut out = http::head_bytes(&first, &headers);
    out.extend_from_slice(body);
    // Counted before it is sent, so that a client that has its answer also
    // sees it counted.
    shared
        .response_bytes
        .fetch_add(body.len() as u64, Ordering::Relaxed);
    client.write_all(&out).await?;
    client.flush().await
}

/// What [`forward`] did with a response.
enum Forwarded {
    /// Passed on to the client as it came (`sent`: whether all of it
    /// reached the client; a failure leaves the client with a short body,
    /// and its connection is closed).
    Streamed { sent: io::Result<()> },
    /// Read whole, for the caller to fault and send.
    Whole(Upstream),
}

/// Sends one request to the upstream on a new connection and reads its
/// response head. A response with a body of known length that draws no
/// fault is streamed to `client` (see [`FaultProxy`]); any other is read
/// whole. Framing headers are rewritten: the request body goes with its
/// `Content-Length`, and `Connection: close` lets a body without length
/// run to the close.
async fn forward(
    upstream: SocketAddr,
    request: &http::Request,
    body: &[u8],
    is_head: bool,
    client: &mut TcpStream,
    shared: &Shared,
) -> io::Result<Forwarded> {
    let connect = tokio::time::timeout(MESSAGE_TIMEOUT, TcpStream::connect(upstream));
    let stream = connect
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "connect timed out"))??;
    let _ = stream.set_nodelay(true);
    let mut headers: Vec<Header> = request
        .headers
        .iter()
        .filter(|(n, _)| !is_hop_header(n))
        .cloned()
        .collect();
    if !body.is_empty() || http::header(&request.headers, "content-length").is_some() {
        headers.push(("Content-Length".into(), body.len().to_string().into_bytes()));
    }
    headers.push(("Connection".into(), b"close".to_vec()));
    let first = format!("{} {} HTTP/1.1", request.method, request.target);
    let mut out = http::head_bytes(&first, &headers);
    out.extend_from_slice(body);
    let mut upstream = Reader::new(stream);
    upstream.stream.write_all(&out).await?;
    upstream.stream.flush().await?;
    let mut response = upstream.response().await?;
    // 1xx answers (100 Continue) precede the real one.
    while (100..200).contains(&response.status) && response.status != 101 {
        response = upstream.response().await?;
    }
    let no_body = is_head || response.status == 204 || response.status == 304;
    let chunked = http::is_chunked(&response.headers);
    let mut headers = response.headers;
    headers.retain(|(n, _)| {
        !(n.eq_ignore_ascii_case("connection")
            || n.eq_ignore_ascii_case("keep-alive")
            || n.eq_ignore_ascii_case("transfer-encoding"))
    });
    let length = if no_body || chunked {
        None
    } else {
        http::content_length(&headers)?
    };
    if let Some(len) = length.filter(|&n| n > 0)
        && let Some(latency) = shared.faults.unfaulted()
    {
        if !latency.is_zero() {
            tokio::time::sleep(latency).await;
        }
        let first = format!("HTTP/1.1 {} {}", response.status, response.reason);
        let sent = async {
            client
                .write_all(&http::head_bytes(&first, &headers))
                .await?;
            upstream.pipe(len, client, &shared.response_bytes).await?;
            client.flush().await
        }
        .await;
        return Ok(Forwarded::Streamed { sent });
    }
    let body = if no_body {
        Vec::new()
    } else if chunked {
        upstream.chunked().await?
    } else if let Some(len) = length {
        upstream.exact(len).await?
    } else {
        upstream.until_close().await?
    };
    Ok(Forwarded::Whole(Upstream {
        status: response.status,
        reason: response.reason,
        headers,
        body,
    }))
}
