//! The error type of the reader and the writer: every lower-layer error,
//! with where in the file it happened named once.

use std::fmt;

/// Where in a file an error happened: as much of file offset, row group,
/// column path, page and row as is known. The page layer's type, so that an
/// error it reports keeps its location and the reader only adds what the
/// page layer cannot know (the row group).
pub use pq_page::Location;

/// Everything that can go wrong while reading a Parquet file into Arrow or
/// writing Arrow data to Parquet.
///
/// Each message is one line naming what is wrong and where ([`Location`]),
/// each place once. Corrupt input is [`Page`](Error::Page) (page headers,
/// levels, checksums, decompression), [`Encoding`](Error::Encoding) (values)
/// or [`Data`](Error::Data) (counts and values that disagree);
/// [`Write`](Error::Write) is the writer's own.
///
/// ```
/// let err = pq_arrow::read_parquet("/no/such/file.parquet").unwrap_err();
/// assert!(matches!(err, pq_arrow::Error::Io { .. }), "{err}");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing the file failed.
    #[error("I/O error at {at}: {source}")]
    Io {
        /// Where.
        at: Box<Location>,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The footer or the file metadata is invalid.
    #[error("invalid Parquet file: {source}")]
    Format {
        /// The metadata layer's error.
        #[source]
        source: pq_format::FormatError,
    },
    /// The file, or one of its column chunks, is encrypted, which this
    /// library does not support.
    #[error("{source}{}", AtSuffix(at))]
    Encrypted {
        /// Where, when the footer is plain but a column chunk is not.
        at: Box<Location>,
        /// Always a [`pq_format::FormatError::Encrypted`], saying what gave
        /// the encryption away.
        #[source]
        source: pq_format::FormatError,
    },
    /// The codec of a column chunk is unknown or not built in, or
    /// compressing a page failed.
    #[error("compression error at {at}: {source}")]
    Compress {
        /// Where.
        at: Box<Location>,
        /// The codec layer's error.
        #[source]
        source: pq_compress::Error,
    },
    /// The Parquet schema cannot be mapped to Arrow, or the Arrow schema to
    /// Parquet.
    #[error("schema error at {at}: {message}")]
    Schema {
        /// Where.
        at: Box<Location>,
        /// What is wrong.
        message: String,
    },
    /// An invalid request or argument: a column or row group that does not
    /// exist, an option that cannot apply.
    #[error("invalid request: {message}")]
    Request {
        /// What is wrong.
        message: String,
    },
    /// A page of a column chunk is corrupt (header, levels, checksum,
    /// compressed body) or the chunk's byte range is invalid. The page
    /// layer's error carries the location: column, row group, page and
    /// file offset.
    #[error("{0}")]
    Page(#[source] Box<pq_page::Error>),
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
    /// A feature, of the file being read or of the data being written, that
    /// this library does not support.
    #[error("unsupported at {at}: {message}")]
    Unsupported {
        /// Where.
        at: Box<Location>,
        /// What is not supported.
        message: String,
    },
    /// Building or reading an Arrow array failed.
    #[error("Arrow error at {at}: {source}")]
    Arrow {
        /// Where.
        at: Box<Location>,
        /// Arrow's error.
        #[source]
        source: Box<arrow_schema::ArrowError>,
    },
    /// Fetching from a remote or async source failed, after the retries
    /// its options allow: names the object, what was asked (a byte range,
    /// the size, the last bytes) and, when the decoder asked for it, the
    /// column chunk it belongs to.
    #[error("fetching {what} of {object} failed after {attempts} attempt{}{}: {source}", if *attempts == 1 { "" } else { "s" }, AtSuffix(at))]
    Fetch {
        /// The object (its URL or path).
        object: String,
        /// What was asked: `bytes 4..1000`, `the size`, `the last 65536 bytes`.
        what: String,
        /// The byte range asked for, when it was one.
        range: Option<std::ops::Range<u64>>,
        /// Requests made for it.
        attempts: u32,
        /// What the range was for.
        at: Box<Location>,
        /// The last failure.
        #[source]
        source: std::io::Error,
    },
    /// The writer cannot write what it was given (a value, page or count
    /// the format cannot hold).
    #[error("error while writing {at}: {message}")]
    Write {
        /// Where.
        at: Box<Location>,
        /// What is wrong.
        message: String,
    },
}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Where the error happened, for the kinds that know.
    ///
    /// ```
    /// let bytes = bytes::Bytes::from_static(b"PAR1 not a parquet file PAR1");
    /// let err = pq_arrow::ParquetReader::from_bytes(bytes).unwrap_err();
    /// assert!(err.location().is_none(), "{err}");
    /// ```
    pub fn location(&self) -> Option<&Location> {
        match self {
            Error::Io { at, .. }
            | Error::Encrypted { at, .. }
            | Error::Compress { at, .. }
            | Error::Schema { at, .. }
            | Error::Encoding { at, .. }
            | Error::Data { at, .. }
            | Error::Unsupported { at, .. }
            | Error::Arrow { at, .. }
            | Error::Write { at, .. }
            | Error::Fetch { at, .. } => Some(at),
            Error::Page(e) => Some(&e.location),
            Error::Format { .. } | Error::Request { .. } => None,
        }
    }
}

/// " at {location}", or nothing for a location that knows nothing.
struct AtSuffix<'a>(&'a Location);

impl fmt::Display for AtSuffix<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self.0 == Location::default() {
            Ok(())
        } else {
            write!(f, " at {}", self.0)
        }
    }
}

impl From<pq_format::FormatError> for Error {
    /// Encryption is [`Error::Encrypted`], a schema error
    /// [`Error::Schema`] at its column; every other metadata error is
    /// [`Error::Format`].
    fn from(source: pq_format::FormatError) -> Self {
        match source {
            source @ pq_format::FormatError::Encrypted { .. } => Error::Encrypted {
                at: Box::default(),
                source,
            },
            pq_format::FormatError::Schema(e) => crate::schema::from_schema_error(e),
            source => Error::Format { source },
        }
    }
}

impl From<pq_page::Error> for Error {
    fn from(source: pq_page::Error) -> Self {
        Error::Page(Box::new(source))
    }
}

/// For Arrow APIs (`RecordBatchReader`, arrow-rs kernels) that take an
/// [`ArrowError`](arrow_schema::ArrowError): the error is kept whole, so
/// callers can downcast it back.
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

/// A page layer error met while reading the chunk `at`: its location gains
/// what only the caller knows (the row group), and the column is named once.
pub(crate) fn page_err(source: pq_page::Error, at: &Location) -> Error {
    Error::Page(Box::new(source.within(at)))
}

/// A column chunk `at` that is encrypted although the footer is not.
pub(crate) fn encrypted(at: &Location, detail: &'static str) -> Error {
    Error::Encrypted {
        at: Box::new(at.clone()),
        source: pq_format::FormatError::Encrypted { detail },
    }
}

/// Something the writer cannot write at `at`.
pub(crate) fn write_err(at: &Location, what: impl fmt::Display) -> Error {
    Error::Write {
        at: Box::new(at.clone()),
        message: what.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A representative error of each kind, as the reader and the writer
    /// build them.
    fn one_of_each() -> Vec<Error> {
        let chunk = Location::chunk(2, "a.b");
        let page = pq_page::Error {
            kind: pq_page::ErrorKind::Checksum {
                expected: 1,
                actual: 2,
            },
            location: Box::new(Location::column("a.b").at_page(3).at_offset(4096)),
        };
        vec![
            Error::Io {
                at: Box::new(chunk.clone().at_offset(100)),
                source: std::io::Error::other("disk gone"),
            },
            Error::from(pq_format::FormatError::FileTooShort { len: 3 }),
            Error::from(pq_format::FormatError::Encrypted {
                detail: "encrypted footer, magic \"PARE\"",
            }),
            encrypted(&chunk, "encrypted column chunk"),
            Error::Compress {
                at: Box::new(chunk.clone()),
                source: pq_compress::Error::Unsupported {
                    codec: pq_compress::Codec::Lzo,
                    reason: "no maintained implementation",
                },
            },
            schema_err(&Location::column("a.b"), "unknown physical type -7"),
            Error::Request {
                message: "row group 9 does not exist".into(),
            },
            page_err(page, &chunk),
            enc_err(
                &chunk.clone().at_page(3).at_offset(4096),
                pq_encoding::Error::Eof {
                    what: "PLAIN values",
                    expected: 8,
                    found: 3,
                },
            ),
            data_err(&chunk.clone().at_row(7), "a list offset goes backwards"),
            unsupported(&chunk, "column chunks in another file"),
            arrow_err(
                &chunk,
                arrow_schema::ArrowError::InvalidArgumentError("bad length".into()),
            ),
            write_err(&chunk, "page too large: num_values is 3000000000"),
        ]
    }

    #[test]
    fn each_kind_is_one_line_naming_the_place_once() {
        let mut located = 0;
        for e in one_of_each() {
            let text = e.to_string();
            assert_eq!(text.lines().count(), 1, "{text}");
            for part in ["a.b", "row group", "page 3", "file offset"] {
                assert!(text.matches(part).count() <= 1, "{part} twice: {text}");
            }
            let Some(at) = e.location().filter(|at| at.column.is_some()) else {
                continue;
            };
            located += 1;
            assert_eq!(text.matches(&at.to_string()).count(), 1, "{text}");
            assert_eq!(text.matches("a.b").count(), 1, "{text}");
        }
        assert_eq!(located, 10);
    }

    #[test]
    fn a_page_error_gains_the_row_group_and_names_the_column_once() {
        let e = one_of_each().swap_remove(7);
        assert!(matches!(&e, Error::Page(p) if p.location.row_group == Some(2)));
        assert_eq!(
            e.to_string(),
            "column a.b, row group 2, page 3, file offset 4096: page checksum mismatch: \
             header says 0x00000001, body hashes to 0x00000002"
        );
    }

    #[test]
    fn encryption_is_one_kind_with_or_without_a_column() {
        let errors = one_of_each();
        let footer = &errors[2];
        let column = &errors[3];
        for e in [footer, column] {
            assert!(
                matches!(
                    e,
                    Error::Encrypted {
                        source: pq_format::FormatError::Encrypted { .. },
                        ..
                    }
                ),
                "{e}"
            );
        }
        assert_eq!(
            footer.to_string(),
            "encrypted Parquet files are not supported (encrypted footer, magic \"PARE\")"
        );
        assert_eq!(
            column.to_string(),
            "encrypted Parquet files are not supported (encrypted column chunk) \
             at column a.b, row group 2"
        );
    }

    #[test]
    fn writer_errors_say_writing() {
        let e = one_of_each().pop().unwrap();
        assert!(matches!(e, Error::Write { .. }));
        assert_eq!(
            e.to_string(),
            "error while writing column a.b, row group 2: page too large: num_values is 3000000000"
        );
    }

    #[test]
    fn into_arrow_error_keeps_the_error_for_downcasting() {
        let e = data_err(&Location::column("x"), "bad");
        let text = e.to_string();
        let arrow: arrow_schema::ArrowError = e.into();
        let arrow_schema::ArrowError::ExternalError(inner) = &arrow else {
            panic!("not external: {arrow}");
        };
        let back = inner.downcast_ref::<Error>().unwrap();
        assert!(matches!(back, Error::Data { .. }));
        assert_eq!(back.to_string(), text);
    }
}
