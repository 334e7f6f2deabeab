//! Where the file's bytes come from, and reading a byte range of it.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

use bytes::Bytes;

use crate::error::{Error, Location, Result, data_err};

/// Where the file's bytes come from.
pub(super) enum Source {
    Bytes(Bytes),
    Path(PathBuf),
    Reader(Box<dyn ReadSeek>),
}

/// `Read + Seek + Send`, as one object-safe trait.
pub trait ReadSeek: Read + Seek + Send {}
impl<T: Read + Seek + Send> ReadSeek for T {}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Bytes(b) => write!(f, "Bytes({} bytes)", b.len()),
            Source::Path(p) => write!(f, "Path({})", p.display()),
            Source::Reader(_) => f.write_str("Reader"),
        }
    }
}

impl Source {
    /// The bytes `start..end` of the file; `at` names the chunk they hold.
    pub(super) fn read_range(&mut self, start: u64, end: u64, at: &Location) -> Result<Bytes> {
        let io = |source| Error::Io {
            at: Box::new(at.clone().at_offset(start)),
            source,
        };
        let len = usize::try_from(end.saturating_sub(start))
            .map_err(|_| data_err(at, "column chunk larger than memory"))?;
        match self {
            Source::Bytes(b) => {
                let s = usize::try_from(start).unwrap_or(usize::MAX);
                if s.checked_add(len).is_none_or(|e| e > b.len()) {
                    return Err(data_err(
                        &at.clone().at_offset(start),
                        format!("column chunk of {len} bytes ends past the file"),
                    ));
                }
                Ok(b.slice(s..s + len))
            }
            Source::Path(p) => {
                let mut f = File::open(&*p).map_err(io)?;
                read_at(&mut f, start, len).map_err(io)
            }
            Source::Reader(r) => read_at(r, start, len).map_err(io),
        }
    }
}

fn read_at<R: Read + Seek + ?Sized>(r: &mut R, start: u64, len: usize) -> std::io::Result<Bytes> {
    r.seek(SeekFrom::Start(start))?;
    let mut buf = Vec::new();
    buf.try_reserve_exact(len)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::OutOfMemory, e))?;
    r.take(len as u64).read_to_end(&mut buf)?;
    if buf.len() != len {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            format!("expected {len} bytes, found {}", buf.len()),
        ));
    }
    Ok(Bytes::from(buf))
}
