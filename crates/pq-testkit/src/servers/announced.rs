//! [`ChildOutput`]: the output of a server run as a child process, read
//! for the address it says it listens on.
//!
//! Why: a port found free here and handed to the child can be taken by
//! another test's server before the child binds it, and a readiness poll
//! of that port would then be answered by the other server. Given port 0,
//! the child binds a port of its own choosing and prints where it
//! listens: there is nothing to race, and nothing to poll.

use std::io::{self, BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// How much of the child's output is kept for error messages.
const TAIL: usize = 16 * 1024;

/// A child's output pipe, read to its end on a thread of its own (so that
/// a full pipe never stops the child), its last bytes kept.
pub(crate) struct ChildOutput {
    program: &'static str,
    tail: Arc<Mutex<Vec<u8>>>,
    said: mpsc::Receiver<Result<SocketAddr, String>>,
    drain: Option<JoinHandle<()>>,
}

impl ChildOutput {
    /// Reads `pipe`, the output of `program`, in which the first line that
    /// holds `marker` goes on with the address (`IP:PORT`) it listens on.
    pub(crate) fn read(
        program: &'static str,
        pipe: impl Read + Send + 'static,
        marker: &'static str,
    ) -> io::Result<Self> {
        let tail = Arc::new(Mutex::new(Vec::new()));
        let (tx, said) = mpsc::channel();
        let kept = Arc::clone(&tail);
        let drain = std::thread::Builder::new()
            .name(format!("pq-testkit {program} output"))
            .spawn(move || drain(pipe, marker, &kept, tx))?;
        Ok(ChildOutput {
            program,
            tail,
            said,
            drain: Some(drain),
        })
    }

    /// The address the child says it listens on, waiting at most
    /// `timeout`; an error, with the last lines of its output, when it
    /// ends its output (exits) first, names an address that does not
    /// parse, or says nothing in time.
    pub(crate) fn address(&mut self, timeout: Duration) -> io::Result<SocketAddr> {
        let program = self.program;
        let why = match self.said.recv_timeout(timeout) {
            Ok(Ok(addr)) => return Ok(addr),
            Ok(Err(bad)) => format!("{program} named an address that does not parse: {bad:?}"),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                // The pipe closed: all of the output is in the tail.
                self.finish();
                format!("{program} exited before saying where it listens")
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                format!("{program} did not say where it listens within {timeout:?}")
            }
        };
        Err(io::Error::other(format!(
            "{why}; its output: {}",
            self.tail()
        )))
    }

    /// The last lines of the output, on one line.
    fn tail(&self) -> String {
        let tail = self.tail.lock().unwrap_or_else(PoisonError::into_inner);
        let text = String::from_utf8_lossy(&tail);
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let last = &lines[lines.len().saturating_sub(5)..];
        if last.is_empty() {
            "(empty)".into()
        } else {
            last.join(" | ")
        }
    }

    /// Waits for the reading to end: call once the child is gone (its pipe
    /// closes with it).
    pub(crate) fn finish(&mut self) {
        if let Some(drain) = self.drain.take() {
            let _ = drain.join();
        }
    }
}

/// The reading thread: every line into `tail` (bytes, whatever their
/// encoding), the first with `marker` parsed and sent.
fn drain(
    pipe: impl Read,
    marker: &str,
    tail: &Mutex<Vec<u8>>,
    tx: mpsc::Sender<Result<SocketAddr, String>>,
) {
    let mut tx = Some(tx);
    let mut reader = BufReader::new(pipe);
    let mut line = Vec::new();
    while let Ok(1..) = reader.read_until(b'\n', &mut line) {
        if let Some(tx) = tx.take_if(|_| contains(&line, marker.as_bytes())) {
            let text = String::from_utf8_lossy(&line);
            let rest = text.split(marker).nth(1).unwrap_or_default();
            // The address ends at the first space or control character
            // (a colour code after it, say).
            let addr = rest
                .split(|c: char| c.is_whitespace() || c.is_control())
                .next()
                .unwrap_or_default();
            let _ = tx.send(addr.parse().map_err(|_| addr.to_string()));
        }
        let mut kept = tail.lock().unwrap_or_else(PoisonError::into_inner);
        kept.extend_from_slice(&line);
        let excess = kept.len().saturating_sub(TAIL);
        kept.drain(..excess);
        drop(kept);
        line.clear();
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_address_is_read_from_the_line_that_names_it() {
        let out =
            b"WARNING: a development server\n * Running on http://127.0.0.1:41909\x1b[0m\nmore\n";
        let mut output = ChildOutput::read("server", &out[..], "Running on http://").unwrap();
        let addr = output.address(Duration::from_secs(10)).unwrap();
        assert_eq!(addr, SocketAddr::from(([127, 0, 0, 1], 41909)));
        output.finish();
        assert_eq!(
            output.tail(),
            "WARNING: a development server |  * Running on http://127.0.0.1:41909\u{1b}[0m | more"
        );
    }

    /// The error of looking for `marker`'s address in `out`.
    fn address_error(out: &'static [u8], marker: &'static str) -> String {
        let mut output = ChildOutput::read("server", out, marker).unwrap();
        output
            .address(Duration::from_secs(10))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn output_that_ends_without_the_address_is_an_error_with_its_tail() {
        let e = address_error(b"listening soon\n\xff not utf-8\n", "listens on http://");
        assert!(
            e.starts_with("server exited before saying where it listens"),
            "{e}"
        );
        assert!(e.contains("listening soon | \u{fffd} not utf-8"), "{e}");
    }

    #[test]
    fn an_address_that_does_not_parse_is_an_error() {
        let e = address_error(
            b"successfully listens on http://localhost:10000\n",
            "listens on http://",
        );
        assert!(
            e.contains("named an address that does not parse: \"localhost:10000\""),
            "{e}"
        );
    }
}
