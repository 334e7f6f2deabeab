//! Where the file's bytes come from, and reading a byte range of it.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;

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
    File(File),
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
            Source::File(f) => read_at(f, start, len, pool).map_err(io),
            Source::Reader(r) => read_at(r, start, len, pool).map_err(io),
        }
    }
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
    // A kept buffer's old bytes are overwritten by the read: only what it
    // did not hold is zeroed first.
    let mut buf: Vec<u8> = pool.take_filled(len).unwrap_or_default();
    buf.truncate(len);
    // `len` comes from the footer: ask for the memory without aborting.
    buf.try_reserve_exact(len - buf.len())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::OutOfMemory, e))?;
    // Read straight into the whole range: `read_to_end` would probe with
    // reads of 8, 16 and 32 KiB first, four calls per 64 KiB.
    buf.resize(len, 0);
    let mut filled = 0;
    while let Some(rest) = buf.get_mut(filled..).filter(|r| !r.is_empty()) {
        match r.read(rest) {
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
    Ok(pool.bytes(buf))
}
