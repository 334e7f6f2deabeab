//! Where the file's bytes come from, and reading a byte range of it.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;

use crate::error::{Error, Location, Result, data_err};
use crate::pool::Pool;

/// Where the file's bytes come from.
///
/// A file is opened once and read through that one handle. To read a
/// memory-mapped file without copying, map it and read it as `Bytes`
/// (`Bytes::from_owner(mmap)`): pages are then slices of the mapping.
pub(super) enum Source {
    /// Read at positions: any thread may read it (see [`Source::positioned`]).
    At(Positioned),
    /// One cursor: only the caller's thread reads it.
    Reader(Box<dyn ReadSeek>),
}

/// A source read at positions, which move no shared cursor.
#[derive(Debug, Clone)]
pub(super) enum Positioned {
    Bytes(Bytes),
    File(Arc<File>),
}

/// `Read + Seek + Send`, as one object-safe trait.
pub trait ReadSeek: Read + Seek + Send {}
impl<T: Read + Seek + Send> ReadSeek for T {}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::At(Positioned::Bytes(b)) => write!(f, "Bytes({} bytes)", b.len()),
            Source::At(Positioned::File(file)) => write!(f, "File({file:?})"),
            Source::Reader(_) => f.write_str("Reader"),
        }
    }
}

impl Source {
    /// Bytes of the file from `range.start` covering `range` (see
    /// [`Positioned::read`]).
    pub(super) fn read(&mut self, range: &Range<u64>, at: &Location, pool: &Pool) -> Result<Bytes> {
        match self {
            Source::At(p) => p.read(range, at, pool),
            Source::Reader(r) => {
                let len = read_len(range, at)?;
                read_at(r, range.start, len, pool).map_err(|e| io_err(at, e))
            }
        }
    }

    /// Whether the bytes are in memory already (reads are slices).
    pub(super) fn is_bytes(&self) -> bool {
        matches!(self, Source::At(Positioned::Bytes(_)))
    }

    /// The source as decoding threads can read it, each at its own
    /// position: `Bytes`, or a file where positioned reads exist. A
    /// `Read + Seek` has one cursor: only the caller reads it.
    pub(super) fn positioned(&self) -> Option<Positioned> {
        match self {
            Source::At(p @ Positioned::Bytes(_)) => Some(p.clone()),
            #[cfg(any(unix, windows))]
            Source::At(p @ Positioned::File(_)) => Some(p.clone()),
            _ => None,
        }
    }
}

impl Positioned {
    /// Bytes of the file from `range.start` covering `range`, from any
    /// thread; `at` names where they are in errors. From `Bytes`, the rest
    /// of the file: a slice costs nothing, and the decoder then finds every
    /// later page of the chunk in it without asking again.
    pub(super) fn read(&self, range: &Range<u64>, at: &Location, pool: &Pool) -> Result<Bytes> {
        let len = read_len(range, at)?;
        match self {
            Positioned::Bytes(b) => {
                let s = usize::try_from(range.start).unwrap_or(usize::MAX);
                if s.checked_add(len).is_none_or(|e| e > b.len()) {
                    return Err(data_err(
                        at,
                        format!("a read of {len} bytes ends past the file"),
                    ));
                }
                Ok(b.slice(s..))
            }
            Positioned::File(f) => {
                read_at_position(f, range.start, len, pool).map_err(|e| io_err(at, e))
            }
        }
    }
}

fn read_len(range: &Range<u64>, at: &Location) -> Result<usize> {
    usize::try_from(range.end.saturating_sub(range.start))
        .map_err(|_| data_err(at, "byte range larger than memory"))
}

fn io_err(at: &Location, source: std::io::Error) -> Error {
    Error::Io {
        at: Box::new(at.clone()),
        source,
    }
}

/// Reads made, and bytes read, by the decoding threads.
#[derive(Debug, Default)]
pub(super) struct ReadCounts {
    requests: AtomicU64,
    bytes: AtomicU64,
}

impl ReadCounts {
    /// Counts a read of `range`.
    pub(super) fn add(&self, range: &Range<u64>) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.bytes
            .fetch_add(range.end.saturating_sub(range.start), Ordering::Relaxed);
    }

    /// `(requests, bytes)` so far.
    pub(super) fn get(&self) -> (u64, u64) {
        (
            self.requests.load(Ordering::Relaxed),
            self.bytes.load(Ordering::Relaxed),
        )
    }
}

/// A pool's vector of `len` bytes to read into (see [`read_at`]).
fn read_buffer(len: usize, pool: &Pool) -> std::io::Result<Vec<u8>> {
    // A kept buffer's old bytes are overwritten by the read: only what it
    // did not hold is zeroed first.
    let mut buf: Vec<u8> = pool.take_filled(len).unwrap_or_default();
    buf.truncate(len);
    // `len` comes from the footer: ask for the memory without aborting.
    buf.try_reserve_exact(len - buf.len())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::OutOfMemory, e))?;
    buf.resize(len, 0);
    Ok(buf)
}

/// Fills `buf` by `read(rest, filled)` calls until it is full or the file
/// ends (an error then).
fn fill(
    buf: &mut [u8],
    mut read: impl FnMut(&mut [u8], usize) -> std::io::Result<usize>,
) -> std::io::Result<()> {
    let len = buf.len();
    let mut filled = 0;
    while let Some(rest) = buf.get_mut(filled..).filter(|r| !r.is_empty()) {
        match read(rest, filled) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    if filled != len {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            format!("expected {len} bytes, found {filled}"),
        ));
    }
    Ok(())
}

/// [`read_at`] without a cursor: a positioned read, so that threads read
/// one file at once, and no other handle's seeks (a clone of the file
/// shares its cursor) move it.
#[cfg(any(unix, windows))]
fn read_at_position(f: &File, start: u64, len: usize, pool: &Pool) -> std::io::Result<Bytes> {
    let mut buf = read_buffer(len, pool)?;
    fill(&mut buf, |rest, filled| {
        pread(f, rest, start.saturating_add(filled as u64))
    })?;
    Ok(pool.bytes(buf))
}

#[cfg(unix)]
fn pread(f: &File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(f, buf, at)
}

/// Positioned on Windows too (each call names its offset), though it also
/// moves the cursor, which nothing reads after the footer.
#[cfg(windows)]
fn pread(f: &File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(f, buf, at)
}

/// Elsewhere, through the file's cursor (only the caller reads then:
/// [`Source::positioned`] gives no file).
#[cfg(not(any(unix, windows)))]
fn read_at_position(f: &File, start: u64, len: usize, pool: &Pool) -> std::io::Result<Bytes> {
    read_at(&mut &*f, start, len, pool)
}

/// Reads `len` bytes at `start` into a vector of `pool`'s, whose memory
/// returns there once the pages cut from it are decoded: a fresh vector per
/// read would fault in every page of it.
pub(super) fn read_at<R: Read + Seek + ?Sized>(
    r: &mut R,
    start: u64,
    len: usize,
    pool: &Pool,
) -> std::io::Result<Bytes> {
    r.seek(SeekFrom::Start(start))?;
    // Read straight into the whole range: `read_to_end` would probe with
    // reads of 8, 16 and 32 KiB first, four calls per 64 KiB.
    let mut buf = read_buffer(len, pool)?;
    fill(&mut buf, |rest, _| r.read(rest))?;
    Ok(pool.bytes(buf))
}
