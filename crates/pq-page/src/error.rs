//! Errors of the page layer: what went wrong and where.
//!
//! [`Location`] is the one description of "where" for every layer above
//! this one: the page layer fills in what it knows (column, page, file
//! offset) and the layers above add what only they know (the row group, the
//! row), so a message names each place once.

use std::fmt;

/// Where in a file an error happened: as much of file offset, row group,
/// column path, page and row as is known.
///
/// ```
/// let at = pq_page::Location::chunk(2, "a.b").at_page(1).at_offset(4096);
/// assert_eq!(at.to_string(), "column a.b, row group 2, page 1, file offset 4096");
/// assert_eq!(pq_page::Location::default().to_string(), "file");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Location {
    /// Byte offset in the file (of a page header, or of a column chunk).
    pub file_offset: Option<u64>,
    /// Row group index.
    pub row_group: Option<usize>,
    /// Dotted column path.
    pub column: Option<String>,
    /// The page's ordinal within its column chunk (the dictionary page is 0
    /// when present).
    pub page: Option<usize>,
    /// Row (within the row group) where the error was found.
    pub row: Option<usize>,
}

impl Location {
    /// A location naming only a column path.
    pub fn column(path: impl Into<String>) -> Self {
        Location {
            column: Some(path.into()),
            ..Location::default()
        }
    }

    /// A location naming a row group and a column path.
    pub fn chunk(row_group: usize, path: impl Into<String>) -> Self {
        Location {
            row_group: Some(row_group),
            column: Some(path.into()),
            ..Location::default()
        }
    }

    /// This location at a file offset.
    pub fn at_offset(mut self, offset: u64) -> Self {
        self.file_offset = Some(offset);
        self
    }

    /// This location in a row group.
    pub fn at_row_group(mut self, row_group: usize) -> Self {
        self.row_group = Some(row_group);
        self
    }

    /// This location at a page.
    pub fn at_page(mut self, page: usize) -> Self {
        self.page = Some(page);
        self
    }

    /// This location at a row.
    pub fn at_row(mut self, row: usize) -> Self {
        self.row = Some(row);
        self
    }

    /// Fills in, from `outer`, what this location does not know: a layer
    /// wrapping a lower layer's error adds its knowledge (say, the row
    /// group) without naming the column a second time.
    pub fn complete_from(&mut self, outer: &Location) {
        fn fill<T: Clone>(field: &mut Option<T>, outer: &Option<T>) {
            if field.is_none() {
                field.clone_from(outer);
            }
        }
        fill(&mut self.file_offset, &outer.file_offset);
        fill(&mut self.row_group, &outer.row_group);
        fill(&mut self.column, &outer.column);
        fill(&mut self.page, &outer.page);
        fill(&mut self.row, &outer.row);
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        let mut part = |f: &mut fmt::Formatter<'_>, args: fmt::Arguments<'_>| {
            let r = write!(f, "{sep}{args}");
            sep = ", ";
            r
        };
        if let Some(c) = &self.column {
            part(f, format_args!("column {c}"))?;
        }
        if let Some(rg) = self.row_group {
            part(f, format_args!("row group {rg}"))?;
        }
        if let Some(p) = self.page {
            part(f, format_args!("page {p}"))?;
        }
        if let Some(r) = self.row {
            part(f, format_args!("row {r}"))?;
        }
        if let Some(o) = self.file_offset {
            part(f, format_args!("file offset {o}"))?;
        }
        if sep.is_empty() {
            f.write_str("file")?;
        }
        Ok(())
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
///
/// Its message is one line: the location, then what went wrong.
#[derive(Debug)]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Where (boxed: results of the page reader stay small on the happy
    /// path).
    pub location: Box<Location>,
}

impl Error {
    /// This error, its location completed from `outer` (see
    /// [`Location::complete_from`]).
    pub fn within(mut self, outer: &Location) -> Self {
        self.location.complete_from(outer);
        self
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_names_each_part_once_in_order() {
        let at = Location::chunk(3, "a.b")
            .at_page(2)
            .at_row(7)
            .at_offset(100);
        assert_eq!(
            at.to_string(),
            "column a.b, row group 3, page 2, row 7, file offset 100"
        );
        assert_eq!(
            Location::default().at_offset(5).to_string(),
            "file offset 5"
        );
    }

    #[test]
    fn completing_keeps_what_is_known() {
        let mut inner = Location::column("a.b").at_page(1).at_offset(40);
        inner.complete_from(&Location::chunk(4, "other").at_offset(9).at_row(2));
        assert_eq!(
            inner,
            Location {
                file_offset: Some(40),
                row_group: Some(4),
                column: Some("a.b".into()),
                page: Some(1),
                row: Some(2),
            }
        );
    }

    #[test]
    fn error_within_a_row_group_names_the_column_once() {
        let e = Error {
            kind: ErrorKind::Checksum {
                expected: 1,
                actual: 2,
            },
            location: Box::new(Location::column("x").at_page(0).at_offset(4)),
        }
        .within(&Location::chunk(0, "x"));
        let text = e.to_string();
        assert_eq!(
            text,
            "column x, row group 0, page 0, file offset 4: page checksum mismatch: \
             header says 0x00000001, body hashes to 0x00000002"
        );
        assert_eq!(text.matches("column").count(), 1);
    }
}
