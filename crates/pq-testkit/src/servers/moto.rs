//! [`MotoServer`]: moto's S3 server as a child process, for testing the S3
//! client against an S3 that is not ours.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::announced::ChildOutput;

/// The program `moto[server]` installs.
const PROGRAM: &str = "moto_server";

/// How long moto may take to say where it listens after it is started (it
/// imports boto and every mocked service first: a few seconds on a slow
/// machine).
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// The bound on each step of a helper request to moto.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a [`MotoServer`] could not start or a helper request failed. Each
/// displays as one line.
#[derive(Debug)]
pub enum MotoError {
    /// `moto_server` is not installed where it is looked for: the caller
    /// should skip (through [`crate::skip`]) with this message.
    NotInstalled(String),
    /// It was found but did not start, or a request to it failed.
    Failed(String),
}

impl std::fmt::Display for MotoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MotoError::NotInstalled(m) | MotoError::Failed(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for MotoError {}

/// moto's S3 server (`moto_server` from PyPI's `moto[server]`) running as a
/// child process on `127.0.0.1` and a port of its choosing, killed when
/// dropped.
///
/// moto accepts unsigned requests and any credentials; a client reaches it
/// path-style over plain HTTP with [`MotoServer::REGION`] and the dummy
/// keys in [`MotoServer::client_env`].
///
/// ```no_run
/// let Some(moto) = pq_testkit::MotoServer::start_or_skip()? else { return Ok(()) };
/// moto.create_bucket("data")?;
/// moto.put_object("data", "t/a.parquet", b"PAR1")?;
/// let endpoint = moto.endpoint();
/// # Ok::<(), pq_testkit::MotoError>(())
/// ```
pub struct MotoServer {
    addr: SocketAddr,
    child: Child,
    /// Its stderr, where it logs every request.
    stderr: ChildOutput,
}

impl MotoServer {
    /// The region to give the client.
    pub const REGION: &'static str = "us-east-1";
    /// An access key moto accepts (any does).
    pub const ACCESS_KEY_ID: &'static str = "testing";
    /// A secret key moto accepts (any does).
    pub const SECRET_ACCESS_KEY: &'static str = "testing";

    /// Finds `moto_server` (on the `PATH`, then in the project's venv),
    /// starts it on a port of its choosing and waits, at most a minute,
    /// until it says where it listens (port 0: no other test's server can
    /// take its port between a search and its bind).
    /// [`MotoError::NotInstalled`] when it is not found.
    pub fn start() -> Result<Self, MotoError> {
        let program = find_program()?;
        let mut child = Command::new(&program)
            .args(["-H", "127.0.0.1", "-p", "0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| MotoError::Failed(format!("running {}: {e}", program.display())))?;
        // moto logs every request to stderr, which is read all the time,
        // so the pipe never fills and blocks it. Werkzeug says there
        // " * Running on http://127.0.0.1:PORT" once it listens.
        let said = match child.stderr.take() {
            Some(pipe) => ChildOutput::read(PROGRAM, pipe, "Running on http://")
                .and_then(|mut stderr| Ok((stderr.address(START_TIMEOUT)?, stderr))),
            None => Err(io::Error::other("moto_server's stderr was not piped")),
        };
        match said {
            Ok((addr, stderr)) => Ok(MotoServer {
                addr,
                child,
                stderr,
            }),
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                Err(MotoError::Failed(e.to_string()))
            }
        }
    }

    /// [`Self::start`], except that a missing `moto_server` skips the
    /// calling test through [`crate::skip`] (a failure under `CI`) and
    /// returns `Ok(None)`.
    pub fn start_or_skip() -> Result<Option<Self>, MotoError> {
        match Self::start() {
            Ok(server) => Ok(Some(server)),
            Err(MotoError::NotInstalled(why)) => {
                crate::skip(&why);
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// `http://127.0.0.1:PORT`, the S3 endpoint.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The address moto listens on (for a [`super::FaultProxy`]).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The environment an S3 client needs to reach this server, as
    /// object_store's `AmazonS3Builder::from_env` reads it: endpoint, region,
    /// dummy credentials, plain HTTP allowed, path-style requests.
    pub fn client_env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ENDPOINT", self.endpoint()),
            ("AWS_REGION", Self::REGION.into()),
            ("AWS_DEFAULT_REGION", Self::REGION.into()),
            ("AWS_ACCESS_KEY_ID", Self::ACCESS_KEY_ID.into()),
            ("AWS_SECRET_ACCESS_KEY", Self::SECRET_ACCESS_KEY.into()),
            ("AWS_ALLOW_HTTP", "true".into()),
            ("AWS_VIRTUAL_HOSTED_STYLE_REQUEST", "false".into()),
        ]
    }

    /// Creates the bucket `name` (path-style `PUT /name`, unsigned).
    pub fn create_bucket(&self, name: &str) -> Result<(), MotoError> {
        self.expect_success("PUT", &format!("/{}", encode_path(name)), &[])
    }

    /// Stores `bytes` as `key` in `bucket` (`PUT /bucket/key`, unsigned).
    pub fn put_object(&self, bucket: &str, key: &str, bytes: &[u8]) -> Result<(), MotoError> {
        let path = format!("/{}/{}", encode_path(bucket), encode_path(key));
        self.expect_success("PUT", &path, bytes)
    }

    fn expect_success(&self, method: &str, path: &str, body: &[u8]) -> Result<(), MotoError> {
        let (status, text) = request(self.addr, method, path, body)
            .map_err(|e| MotoError::Failed(format!("{method} {path} to moto: {e}")))?;
        if (200..300).contains(&status) {
            Ok(())
        } else {
            let text = String::from_utf8_lossy(&text);
            Err(MotoError::Failed(format!(
                "{method} {path} to moto: status {status}: {}",
                text.split_whitespace().collect::<Vec<_>>().join(" ")
            )))
        }
    }
}

impl Drop for MotoServer {
    fn drop(&mut self) {
        // SIGKILL: moto keeps nothing worth a clean shutdown, and the wait
        // after a kill is prompt.
        let _ = self.child.kill();
        let _ = self.child.wait();
        // The pipe closes with the process, which ends the reading.
        self.stderr.finish();
    }
}

/// Where `moto_server` is: the first on the `PATH`, else the project's venv
/// (`target/venv/bin`, in `$CARGO_TARGET_DIR` or the workspace).
fn find_program() -> Result<PathBuf, MotoError> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        dirs.push(PathBuf::from(target).join("venv").join("bin"));
    }
    // This crate is crates/pq-testkit in the workspace.
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    dirs.push(workspace.join("target").join("venv").join("bin"));
    dirs.iter()
        .map(|d| d.join(PROGRAM))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            MotoError::NotInstalled(format!(
                "{PROGRAM} is not on the PATH nor in target/venv/bin (install it with \
                 `cargo xtask ci`, which puts xtask/python-requirements.txt into \
                 target/venv, or `pip install 'moto[server]'`)"
            ))
        })
}

/// Percent-encodes an S3 path segment or key, keeping `/` and the
/// unreserved characters.
fn encode_path(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// One plain HTTP/1.1 request on a new connection, every step bounded by
/// [`REQUEST_TIMEOUT`]: the status and the body (read to the close).
fn request(addr: SocketAddr, method: &str, path: &str, body: &[u8]) -> io::Result<(u16, Vec<u8>)> {
    let mut stream = TcpStream::connect_timeout(&addr, REQUEST_TIMEOUT)?;
    stream.set_read_timeout(Some(REQUEST_TIMEOUT))?;
    stream.set_write_timeout(Some(REQUEST_TIMEOUT))?;
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut parsed = httparse::Response::new(&mut headers);
    let start = match parsed.parse(&response) {
        Ok(httparse::Status::Complete(n)) => n,
        _ => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "not an HTTP response",
            ));
        }
    };
    // Chunked or not, the text is only for error messages.
    Ok((parsed.code.unwrap_or_default(), response[start..].to_vec()))
}
