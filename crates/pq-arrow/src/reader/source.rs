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
    Bytes(Bytes),
    File(Arc<File>),
    Reader(Box<dyn ReadSeek>),
}

/// `Read + Seek + Send`, as one object-safe trait.
pub trait ReadSeek: Read + Seek + Send {}
impl<T: Read + Seek + Send> ReadSeek for T {}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Bytes(b) => write!(f, "Bytes({} bytes)", b.len()),
            Source::File(file) => write!(f, "File({file:?})"),
            Source::Reader(_) => f.write_str("Reader"),
        }
    }
}

impl Source {
    /// Bytes of the file from `range.start` covering `range`; `at` names
    /// where they are in errors. From `Bytes`, the rest of the file: a
    /// slice costs nothing, and the decoder then finds every later page of
    /// the chunk in it without asking again.
    pub(super) fn read(&mut self, range: &Range<u64>, at: &Location, pool: &Pool) -> Result<Bytes> {
        let start = range.start;
        let io = |source| Error::Io {
            at: Box::new(at.clone()),
            source,
        };
        let len = usize::try_from(range.end.saturating_sub(start))
            .map_err(|_| data_err(at, "byte range larger than memory"))?;
        match self {
            Source::Bytes(b) => {
                let s = usize::try_from(start).unwrap_or(usize::MAX);
                if s.checked_add(len).is_none_or(|e| e > b.len()) {
                    return Err(data_err(
                        at,
                        format!("a read of {len} bytes ends past the file"),
                    ));
                }
                Ok(b.slice(s..))
            }
            Source::File(f) => read_at_position(f, start, len, pool).map_err(io),
            Source::Reader(r) => read_at(r, start, len, pool).map_err(io),
        }
    }

    /// The source as decoding threads can read it, each at its own
    /// position: a file (read with positioned reads, which move no shared
    /// cursor) or `Bytes`. A `Read + Seek` has one cursor: only the caller
    /// reads it.
    pub(super) fn shared(&self) -> Option<Shared> {
        let source = match self {
            Source::Bytes(b) => SharedSource::Bytes(b.clone()),
            #[cfg(any(unix, windows))]
            Source::File(f) => SharedSource::File(Arc::clone(f)),
            _ => return None,
        };
        Some(Shared {
            source,
            counts: Arc::default(),
        })
    }
}

/// A source shared with the decoding threads, which read their columns'
/// pages themselves (see [`Source::shared`]), and what they have read.
#[derive(Debug, Clone)]
pub(super) struct Shared {
    source: SharedSource,
    pub(super) counts: Arc<ReadCounts>,
}

#[derive(Debug, Clone)]
enum SharedSource {
    Bytes(Bytes),
    File(Arc<File>),
}

/// Reads made, and bytes read, by the decoding threads.
#[derive(Debug, Default)]
pub(super) struct ReadCounts {
    pub(super) requests: AtomicU64,
    pub(super) bytes: AtomicU64,
}

impl ReadCounts {
    pub(super) fn get(&self) -> (u64, u64) {
        (
            self.requests.load(Ordering::Relaxed),
            self.bytes.load(Ordering::Relaxed),
        )
    }
}

impl Shared {
    /// As [`Source::read`], from any thread.
    pub(super) fn read(&self, range: &Range<u64>, at: &Location, pool: &Pool) -> Result<Bytes> {
        let data = match &self.source {
            SharedSource::File(f) => {
                let len = usize::try_from(range.end.saturating_sub(range.start))
                    .map_err(|_| data_err(at, "byte range larger than memory"))?;
                read_at_position(f, range.start, len, pool).map_err(|source| Error::Io {
                    at: Box::new(at.clone()),
                    source,
                })?
            }
            SharedSource::Bytes(b) => Source::Bytes(b.clone()).read(range, at, pool)?,
        };
        self.counts.requests.fetch_add(1, Ordering::Relaxed);
        self.counts
            .bytes
            .fetch_add(range.end - range.start, Ordering::Relaxed);
        Ok(data)
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
/// [`Source::shared`] gives no shared file).
#[cfg(not(any(unix, windows)))]
fn read_at_position(f: &File, start: u64, len: usize, pool: &Pool) -> std::io::Result<Bytes> {
    read_at(&mut &*f, start, len, pool)
}

/// Reads `len` bytes at `start` into a vector of `pool`'s, whose memory
/// returns there once the pages cut from it are decoded: a fresh vector per
/// read would fault in every page of it.
fn read_at<R: Read + Seek + ?Sized>(
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
