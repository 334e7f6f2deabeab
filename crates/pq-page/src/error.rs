//! Errors of the page layer: what went wrong and where.

use std::fmt;

/// Where in a column chunk an error happened.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Location {
    /// The column's dotted path, as given in [`crate::ChunkContext::column`].
    pub column: String,
    /// The page's ordinal within the chunk (the dictionary page is 0 when
    /// present), if the error is about a page.
    pub page: Option<usize>,
    /// The absolute file offset of the page header (or of the chunk).
    pub offset: u64,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column '{}'", self.column)?;
        if let Some(page) = self.page {
            write!(f, ", page {page}")?;
        }
        write!(f, " at file offset {}", self.offset)
    }
}

/// What went wrong, without the location.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The page header is not valid Thrift.
    #[error("malformed page header: {0}")]
    Header(#[source] pq_format::DecodeError),
    /// A header field has a value the format forbids.
    #[error("invalid page header: {0}")]
    InvalidHeader(String),
    /// The page body does not fit in what remains of the column chunk.
    #[error(
        "page body of {needed} bytes runs past the end of the column chunk ({remaining} bytes remain)"
    )]
    BodyPastChunk {
        /// Bytes the header declares.
        needed: u64,
        /// Bytes left in the chunk after the header.
        remaining: u64,
    },
    /// The page's CRC32 does not match its body.
    #[error("page checksum mismatch: header says {expected:#010x}, body hashes to {actual:#010x}")]
    Checksum {
        /// The CRC in the header.
        expected: u32,
        /// The CRC of the bytes read.
        actual: u32,
    },
    /// Decompression failed.
    #[error("decompression failed: {0}")]
    Decompress(#[source] pq_compress::Error),
    /// Repetition or definition levels could not be decoded.
    #[error("bad levels: {0}")]
    Levels(#[source] pq_encoding::Error),
    /// The pages hold more or fewer values than the column chunk's metadata.
    #[error("pages hold {found} values, the column chunk metadata says {expected}")]
    ValueCount {
        /// `num_values` from the column chunk metadata.
        expected: u64,
        /// Values counted in the pages.
        found: u64,
    },
    /// Repetition or definition levels decode but are inconsistent.
    #[error("invalid levels: {0}")]
    InvalidLevels(String),
    /// A header asks for more than a limit of [`crate::PageOptions`] allows.
    #[error("limit exceeded: {0}")]
    LimitExceeded(String),
    /// The column chunk's byte range in the file is not valid.
    #[error("invalid column chunk range: {0}")]
    ChunkRange(String),
}

/// An error of the page layer, with its location.
#[derive(Debug)]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Where.
    pub location: Location,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.kind)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.kind)
    }
}

/// The page layer's result.
pub type Result<T> = std::result::Result<T, Error>;
