//! Opening inputs with errors a person can act on.
//!
//! What an input is decides how it is read. A regular file is read in place:
//! the readers seek to the footer and then to each column chunk. Anything
//! else (standard input as `-`, a pipe, a FIFO, a character device such as
//! `/dev/stdin`) cannot seek, so it is read into memory first, as much as it
//! delivers, and then read from there. A URL (`s3://`, `https://`, ...) is
//! an object in a store, read by ranges (see [`crate::remote`]).

use std::fs::File;
use std::io::{Cursor, Read, Seek, SeekFrom};
use std::path::Path;

use bytes::Bytes;
use pq_format::{Limits, ParquetMetaData};

use crate::error::CliError;
use crate::remote::RemoteFile;

/// The name that stands for standard input (and, as an output, standard
/// output).
pub const STDIO: &str = "-";

/// Whether `path` names standard input or output.
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == STDIO
}

/// An input's bytes: a regular file, or everything a stream delivered.
#[derive(Debug)]
pub enum Input {
    /// A regular file, read in place.
    File {
        /// The open file.
        file: File,
        /// Its length when opened.
        len: u64,
        /// Where the next read starts. Reads are positioned, never through
        /// the file's own offset, so handles from [`Input::reopen`] (and
        /// the arrow-rs reader's, which seeks the shared offset) never
        /// disturb one another.
        pos: u64,
    },
    /// The whole of a pipe, FIFO, device or standard input.
    Memory(Cursor<Bytes>),
    /// An object in an object store, named by its URL.
    Remote(RemoteFile),
}

impl Input {
    /// The input's length in bytes.
    pub fn len(&self) -> u64 {
        match self {
            Input::File { len, .. } => *len,
            Input::Memory(c) => c.get_ref().len() as u64,
            Input::Remote(r) => r.len(),
        }
    }

    /// Whether the input has no bytes at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes, when the input was read into memory.
    pub fn memory(&self) -> Option<&Bytes> {
        match self {
            Input::File { .. } | Input::Remote(_) => None,
            Input::Memory(c) => Some(c.get_ref()),
        }
    }

    /// A second, independent handle on the same bytes (standard input
    /// cannot be opened twice).
    pub fn reopen(&self, path: &Path) -> Result<Input, CliError> {
        match self {
            Input::File { file, len, .. } => Ok(Input::File {
                file: file.try_clone().map_err(|e| CliError::file(path, e))?,
                len: *len,
                pos: 0,
            }),
            Input::Memory(c) => Ok(Input::Memory(Cursor::new(c.get_ref().clone()))),
            Input::Remote(r) => {
                let mut r = r.clone();
                r.seek(SeekFrom::Start(0))
                    .map_err(|e| CliError::file(path, e))?;
                Ok(Input::Remote(r))
            }
        }
    }
}

/// Reads at `pos` without moving the file's offset.
#[cfg(unix)]
fn read_at(file: &mut File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, pos)
}

/// Reads at `pos`: a seek first, as no positioned read is at hand.
#[cfg(not(unix))]
fn read_at(file: &mut File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
    file.seek(SeekFrom::Start(pos))?;
    file.read(buf)
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Input::File { file, pos, .. } => {
                let n = read_at(file, buf, *pos)?;
                *pos += n as u64;
                Ok(n)
            }
            Input::Memory(c) => c.read(buf),
            Input::Remote(r) => r.read(buf),
        }
    }
}

impl Seek for Input {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        match self {
            Input::File { len, pos, .. } => {
                let target = match to {
                    SeekFrom::Start(n) => Some(n),
                    SeekFrom::End(d) => len.checked_add_signed(d),
                    SeekFrom::Current(d) => pos.checked_add_signed(d),
                };
                *pos = target.ok_or_else(|| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        "seek before the start of the file",
                    )
                })?;
                Ok(*pos)
            }
            Input::Memory(c) => c.seek(to),
            Input::Remote(r) => r.seek(to),
        }
    }
}

/// Opens `path` (or standard input for `-`), with a clear error for a
/// missing file, a directory or an unreadable one. An empty input is not
/// an error here: what it means depends on the format expected.
pub fn open(path: &Path) -> Result<Input, CliError> {
    if is_stdio(path) {
        return open_stdin(path);
    }
    if crate::remote::is_url(path) {
        return RemoteFile::open(path).map(Input::Remote);
    }
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => CliError::file(path, "no such file"),
        _ => CliError::file(path, e),
    })?;
    if meta.is_dir() {
        return Err(CliError::file(path, "is a directory"));
    }
    let file = File::open(path).map_err(|e| CliError::file(path, e))?;
    if meta.is_file() {
        return Ok(Input::File {
            file,
            len: meta.len(),
            pos: 0,
        });
    }
    read_all(path, file)
}

/// Standard input: in place when it is a regular file (`pq cat - < f`),
/// read into memory otherwise.
#[cfg(unix)]
fn open_stdin(path: &Path) -> Result<Input, CliError> {
    use std::os::fd::AsFd;
    let fd = std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .map_err(|e| CliError::file(path, e))?;
    let file = File::from(fd);
    match file.metadata() {
        Ok(meta) if meta.is_file() => Ok(Input::File {
            file,
            len: meta.len(),
            pos: 0,
        }),
        _ => read_all(path, file),
    }
}

/// Standard input, read into memory.
#[cfg(not(unix))]
fn open_stdin(path: &Path) -> Result<Input, CliError> {
    read_all(path, std::io::stdin().lock())
}

/// Everything `stream` delivers, in memory: the only bound is what the
/// input itself holds.
fn read_all(path: &Path, mut stream: impl Read) -> Result<Input, CliError> {
    let mut buf = Vec::new();
    stream
        .read_to_end(&mut buf)
        .map_err(|e| CliError::file(path, format!("reading: {e}")))?;
    Ok(Input::Memory(Cursor::new(Bytes::from(buf))))
}

/// Opens `path` as a Parquet file: [`open`], and an empty input is an
/// error.
pub fn open_parquet(path: &Path) -> Result<Input, CliError> {
    let input = open(path)?;
    if input.is_empty() {
        return Err(CliError::file(path, "is empty, not a Parquet file"));
    }
    Ok(input)
}

/// Reads only the footer of `path`: its metadata and schema tree.
pub fn metadata(path: &Path) -> Result<(Input, ParquetMetaData), CliError> {
    let mut input = open_parquet(path)?;
    let limits = Limits::default();
    let meta = match input.memory() {
        Some(bytes) => ParquetMetaData::from_bytes(bytes, &limits),
        None => ParquetMetaData::read(&mut input, &limits),
    }
    .map_err(|e| CliError::file(path, e))?;
    Ok((input, meta))
}
