//! The error type of this crate.

use crate::DecodeError;

/// Which end of a file a magic number was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileEnd {
    /// The first four bytes.
    Start,
    /// The last four bytes.
    End,
}

impl std::fmt::Display for FileEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FileEnd::Start => "start",
            FileEnd::End => "end",
        })
    }
}

/// Errors reading Parquet metadata.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FormatError {
    /// The file cannot hold two magic numbers and a metadata length.
    #[error("file is {len} bytes long, shorter than the 12 bytes of the smallest Parquet file")]
    FileTooShort {
        /// The file length.
        len: u64,
    },
    /// A magic number is not `PAR1`.
    #[error(
        "bad magic at the {end} of the file: expected \"PAR1\", found {}",
        show_magic(found)
    )]
    BadMagic {
        /// Which end.
        end: FileEnd,
        /// The four bytes found.
        found: [u8; 4],
    },
    /// The footer's metadata length does not fit in the file.
    #[error("metadata length {len} exceeds the {available} bytes of the file before the footer")]
    MetadataBeyondFile {
        /// The declared metadata length.
        len: u64,
        /// The bytes available between the leading magic and the footer.
        available: u64,
    },
    /// The footer's metadata length is above [`Limits::max_metadata_size`](crate::Limits::max_metadata_size).
    #[error("metadata length {len} exceeds the limit of {limit} bytes")]
    MetadataTooLarge {
        /// The declared metadata length.
        len: u64,
        /// The limit.
        limit: u64,
    },
    /// The file (footer or columns) is encrypted.
    #[error("encrypted Parquet files are not supported ({detail})")]
    Encrypted {
        /// What marked the file as encrypted.
        detail: &'static str,
    },
    /// The Thrift metadata is malformed.
    #[error("malformed Parquet metadata at file offset {offset}: {source}")]
    Thrift {
        /// Byte offset in the file (or in the buffer given, for buffers
        /// that are not whole files).
        offset: u64,
        /// The decoding error (its own offset is relative to the metadata).
        #[source]
        source: DecodeError,
    },
    /// The schema tree is malformed.
    #[error("{0}")]
    Schema(SchemaError),
    /// The metadata is inconsistent with the schema.
    #[error("invalid Parquet metadata: {0}")]
    Invalid(String),
    /// An I/O error.
    #[error("I/O error reading Parquet metadata: {0}")]
    Io(#[from] std::io::Error),
}

/// What is wrong with a schema, and at which field.
///
/// It prints as one line, `schema error at column a.b: what`, the same
/// line the Arrow reader gives for the same schema, so that every tool
/// words one defect one way.
///
/// ```
/// let e = pq_format::SchemaError::at("a.b", "List child must be repeated");
/// assert_eq!(e.to_string(), "schema error at column a.b: List child must be repeated");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// The dotted path of the field at fault (`None` for the schema as a
    /// whole).
    pub column: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl SchemaError {
    /// An error at the field with this dotted path.
    pub fn at(column: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            column: Some(column.into()),
            message: message.into(),
        }
    }

    /// An error of the schema as a whole.
    pub fn whole(message: impl Into<String>) -> Self {
        Self {
            column: None,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.column {
            Some(c) => write!(f, "schema error at column {c}: {}", self.message),
            None => write!(f, "schema error at file: {}", self.message),
        }
    }
}

impl std::error::Error for SchemaError {}

impl From<SchemaError> for FormatError {
    fn from(e: SchemaError) -> Self {
        FormatError::Schema(e)
    }
}

fn show_magic(b: &[u8; 4]) -> String {
    format!("{:?}", String::from_utf8_lossy(b))
        + &format!(" ({:02x} {:02x} {:02x} {:02x})", b[0], b[1], b[2], b[3])
}

/// Shorthand for results of this crate.
pub type Result<T, E = FormatError> = std::result::Result<T, E>;
