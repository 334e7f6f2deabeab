//! Loopback servers for testing remote (object-store) reading.
//!
//! pq's async reader reads through the `object_store` crate; its tests and
//! benchmarks need real servers on `127.0.0.1`, reached by the real client:
//!
//! - [`RangeServer`]: a plain HTTP/1.1 server of in-memory objects that
//!   answers `Range` requests as `object_store::http::HttpStore` expects,
//!   and counts what it was asked for.
//! - [`FaultProxy`]: a proxy in front of either server that adds latency,
//!   error statuses, connection resets, truncated bodies and silence, as a
//!   test asks while it runs.
//! - [`MotoServer`]: moto's S3 server (`moto_server`, a Python package that
//!   `cargo xtask ci` installs) as a child process, for the S3 client.
//! - [`AzuriteServer`]: Azurite, the Azure Blob Storage emulator (an npm
//!   package `cargo xtask ci` installs), as a child process, for the
//!   Azure client.
//!
//! The two Rust servers each run on a thread of their own with their own
//! tokio runtime, so they serve sync tests and async tests alike (a test's
//! runtime never has to drive them), and they stop when dropped. Nothing in
//! them waits without a bound: idle connections are closed, a half-sent
//! message is given up, and Drop ends every connection with the runtime.

use std::io;
use std::net::SocketAddr;
use std::thread::JoinHandle;

mod announced;
mod azurite;
mod http;
mod moto;
mod proxy;
mod range;

pub use azurite::AzuriteServer;
pub use moto::{MotoError, MotoServer};
pub use proxy::{FaultProxy, Faults, PendingFaults, ProxyStats};
pub use range::{RangeServer, RangeStats, RequestCounts};

/// A server's thread and runtime; dropping it stops the server.
struct Background {
    addr: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Background {
    /// Binds `127.0.0.1:0` and runs `serve` on the listener on a new thread
    /// with a current-thread runtime, until dropped.
    fn start<F, Fut>(name: &str, serve: F) -> io::Result<Self>
    where
        F: FnOnce(tokio::net::TcpListener) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + 'static,
    {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()?;
        let std_listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        std_listener.set_nonblocking(true)?;
        let addr = std_listener.local_addr()?;
        // Registered with the server's runtime here, so that a failure is
        // the caller's error rather than a silent thread exit.
        let listener = {
            let _entered = runtime.enter();
            tokio::net::TcpListener::from_std(std_listener)?
        };
        let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name(format!("{name} {addr}"))
            .spawn(move || {
                runtime.block_on(async move {
                    tokio::select! {
                        () = serve(listener) => {}
                        _ = stopped => {}
                    }
                });
                // Dropping a current-thread runtime drops every connection
                // task at once, closing its sockets.
                drop(runtime);
            })?;
        Ok(Background {
            addr,
            shutdown: Some(shutdown),
            thread: Some(thread),
        })
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            // The runtime stops at its next poll of the select above, which
            // the sent message wakes: the join is prompt.
            let _ = thread.join();
        }
    }
}

/// Accepts connections until the runtime stops, each handled by
/// `handle` in a task of its own.
async fn accept_loop<H, Fut>(listener: tokio::net::TcpListener, handle: H)
where
    H: Fn(tokio::net::TcpStream) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                // Small requests and responses go out at once.
                let _ = stream.set_nodelay(true);
                tokio::spawn(handle(stream));
            }
            // Out of descriptors or a connection reset before accept: wait a
            // little rather than spin, then go on serving.
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(10)).await,
        }
    }
}
