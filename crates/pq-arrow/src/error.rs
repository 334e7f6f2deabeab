//! The error type of the reader: every lower-layer error, wrapped with where
//! in the file it happened.

use std::fmt;

/// Where in a file an error happened: as much of file offset, row group,
/// column path and page as is known.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Location {
    /// Byte offset in the file.
    pub file_offset: Option<u64>,
    /// Row group index.
    pub row_group: Option<usize>,
    /// Dotted column path.
    pub column: Option<String>,
    /// Page index within the column chunk.
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
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(c) = &self.column {
            parts.push(format!("column {c}"));
        }
        if let Some(rg) = self.row_group {
            parts.push(format!("row group {rg}"));
        }
        if let Some(p) = self.page {
            parts.push(format!("page {p}"));
        }
        if let Some(r) = self.row {
            parts.push(format!("row {r}"));
        }
        if let Some(o) = self.file_offset {
            parts.push(format!("file offset {o}"));
        }
        if parts.is_empty() {
            f.write_str("file")
        } else {
            f.write_str(&parts.join(", "))
        }
    }
}

/// Everything that can go wrong while reading a Parquet file into Arrow.
///
/// Each variant says where it happened ([`Location`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading the file failed.
    #[error("I/O error at {at}: {source}")]
    Io {
        /// Where.
        at: Box<Location>,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The footer or the file metadata is invalid.
    #[error("invalid file metadata at {at}: {message}")]
    Metadata {
        /// Where.
        at: Box<Location>,
        /// What is wrong.
        message: String,
    },
    /// The footer could not be read or decoded.
    #[error("invalid Parquet file: {source}")]
    Format {
        /// The metadata layer's error.
        #[source]
        source: pq_format::FormatError,
    },
    /// The codec of a column chunk is unknown or not built in.
    #[error("compression error at {at}: {source}")]
    Compress {
        /// Where.
        at: Box<Location>,
        /// The codec layer's error.
        #[source]
        source: pq_compress::Error,
    },
    /// The file is encrypted, which this reader does not support.
    #[error("encrypted Parquet files are not supported ({message})")]
    Encrypted {
        /// What gave it away.
        message: String,
    },
    /// The Parquet schema cannot be mapped to Arrow.
    #[error("schema error at {at}: {message}")]
    Schema {
        /// Where.
        at: Box<Location>,
        /// What is wrong.
        message: String,
    },
    /// A requested column, row group or option does not exist or is invalid.
    #[error("invalid request: {message}")]
    Request {
        /// What is wrong.
        message: String,
    },
    /// Pages of a column chunk could not be read.
    #[error("page error at {at}: {source}")]
    Page {
        /// Where.
        at: Box<Location>,
        /// The page layer's error.
        #[source]
        source: Box<pq_page::Error>,
    },
    /// Values could not be decoded.
    #[error("decoding error at {at}: {source}")]
    Encoding {
        /// Where.
        at: Box<Location>,
        /// The encoding layer's error.
        #[source]
        source: pq_encoding::Error,
    },
    /// The data is inconsistent (levels, counts, UTF-8, ...).
    #[error("invalid data at {at}: {message}")]
    Data {
        /// Where.
        at: Box<Location>,
        /// What is wrong.
        message: String,
    },
    /// A feature of the file that this reader does not support.
    #[error("unsupported at {at}: {message}")]
    Unsupported {
        /// Where.
        at: Box<Location>,
        /// What is not supported.
        message: String,
    },
    /// Building an Arrow array failed.
    #[error("Arrow error at {at}: {source}")]
    Arrow {
        /// Where.
        at: Box<Location>,
        /// Arrow's error.
        #[source]
        source: Box<arrow_schema::ArrowError>,
    },
}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn data_err(at: &Location, message: impl Into<String>) -> Error {
    Error::Data {
        at: Box::new(at.clone()),
        message: message.into(),
    }
}

pub(crate) fn schema_err(at: &Location, message: impl Into<String>) -> Error {
    Error::Schema {
        at: Box::new(at.clone()),
        message: message.into(),
    }
}

pub(crate) fn unsupported(at: &Location, message: impl Into<String>) -> Error {
    Error::Unsupported {
        at: Box::new(at.clone()),
        message: message.into(),
    }
}

pub(crate) fn arrow_err(at: &Location, source: arrow_schema::ArrowError) -> Error {
    Error::Arrow {
        at: Box::new(at.clone()),
        source: Box::new(source),
    }
}

pub(crate) fn enc_err(at: &Location, source: pq_encoding::Error) -> Error {
    Error::Encoding {
        at: Box::new(at.clone()),
        source,
    }
}

/// pq's error as an Arrow error (`ArrowError::ExternalError`), for Arrow
/// interfaces such as `RecordBatchReader`; it downcasts back to [`Error`].
impl From<Error> for arrow_schema::ArrowError {
    fn from(e: Error) -> Self {
        arrow_schema::ArrowError::ExternalError(Box::new(e))
    }
}

/// An Arrow error as pq's: pq's own error comes back out of
/// `ExternalError`; any other is [`Error::Arrow`] with no location.
impl From<arrow_schema::ArrowError> for Error {
    fn from(e: arrow_schema::ArrowError) -> Self {
        let e = match e {
            arrow_schema::ArrowError::ExternalError(inner) => match inner.downcast::<Error>() {
                Ok(pq) => return *pq,
                Err(other) => arrow_schema::ArrowError::ExternalError(other),
            },
            e => e,
        };
        Error::Arrow {
            at: Box::default(),
            source: Box::new(e),
        }
    }
}
