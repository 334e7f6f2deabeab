//! Writer options: for the whole file and per column.

use std::collections::HashMap;

pub use pq_compress::Codec;
pub use pq_format::Encoding;

/// Which data page format to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DataPageVersion {
    /// Data page v1: levels and values compressed together. Read by every
    /// Parquet reader; the default.
    #[default]
    V1,
    /// Data page v2: levels stored uncompressed before the values, row and
    /// null counts in the header.
    V2,
}

/// Options of one column (leaf), overriding the file-wide ones.
///
/// Columns are named by their dotted path in the Parquet schema (for a
/// list `a` of structs with field `b`: `a.list.element.b`), or by the name
/// of a top-level field, which applies to every leaf under it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ColumnOptions {
    /// Encoding of the values. Setting one turns the dictionary off for the
    /// column.
    pub encoding: Option<Encoding>,
    /// Dictionary encoding on or off.
    pub dictionary: Option<bool>,
    /// Encoding used when the dictionary grows past its limits.
    pub fallback_encoding: Option<Encoding>,
    /// Compression codec.
    pub codec: Option<Codec>,
    /// Compression level.
    pub compression_level: Option<i32>,
    /// Statistics (chunk statistics and the page index) on or off.
    pub statistics: Option<bool>,
}

impl ColumnOptions {
    /// Options that change nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the value encoding (and turns the dictionary off).
    pub fn with_encoding(mut self, encoding: Encoding) -> Self {
        self.encoding = Some(encoding);
        self
    }

    /// Turns the dictionary on or off.
    pub fn with_dictionary(mut self, on: bool) -> Self {
        self.dictionary = Some(on);
        self
    }

    /// Sets the encoding used after the dictionary falls back.
    pub fn with_fallback_encoding(mut self, encoding: Encoding) -> Self {
        self.fallback_encoding = Some(encoding);
        self
    }

    /// Sets the codec and level.
    pub fn with_compression(mut self, codec: Codec, level: Option<i32>) -> Self {
        self.codec = Some(codec);
        self.compression_level = level;
        self
    }

    /// Turns statistics on or off.
    pub fn with_statistics(mut self, on: bool) -> Self {
        self.statistics = Some(on);
        self
    }
}

/// Options of a [`ParquetWriter`](crate::ParquetWriter).
///
/// The defaults are those most readers expect: dictionary encoding with
/// fallback to PLAIN past 1 MiB of dictionary, statistics and the page
/// index on, data page v1, SNAPPY compression, row groups of at most 1Mi
/// rows or 128 MiB, data pages of about 1 MiB or 20 000 rows, and only the
/// encodings of the released specification (no Preview encoding).
///
/// SNAPPY by default, as pyarrow's `write_table` and DuckDB write: every
/// Parquet reader reads it, it costs little time to write and less to read,
/// and pages of text, or of values the dictionary did not take, come out
/// smaller than uncompressed. [`Codec::Uncompressed`] is one call away
/// (`with_compression(Codec::Uncompressed, None)`) for data that does not
/// compress; [`Codec::Zstd`] gives smaller files for more writing time.
///
/// ```
/// use pq_arrow::write::{Codec, ColumnOptions, DataPageVersion, Encoding, WriterOptions};
/// let options = WriterOptions::default()
///     .with_compression(Codec::Zstd, Some(3))
///     .with_data_page_version(DataPageVersion::V2)
///     .with_column("id", ColumnOptions::new().with_encoding(Encoding::DELTA_BINARY_PACKED));
/// assert_eq!(options.codec, Codec::Zstd);
/// assert_eq!(WriterOptions::default().codec, Codec::Snappy);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct WriterOptions {
    /// Compression codec of every column (SNAPPY by default).
    pub codec: Codec,
    /// Compression level (the codec's default when `None`).
    pub compression_level: Option<i32>,
    /// Data page v1 or v2.
    pub data_page_version: DataPageVersion,
    /// Dictionary encoding for columns whose type allows it.
    pub dictionary: bool,
    /// Largest dictionary page, in bytes of PLAIN values, before falling back.
    pub dictionary_page_size_limit: usize,
    /// Most dictionary entries before falling back.
    pub dictionary_max_entries: usize,
    /// Value encoding when the dictionary is off (PLAIN when `None`).
    /// Setting one turns the dictionary off.
    pub encoding: Option<Encoding>,
    /// Encoding after a dictionary falls back. When `None`: PLAIN with data
    /// page v1; with v2, as arrow-rs's 2.0 writer, DELTA_BINARY_PACKED for
    /// integers, DELTA_BYTE_ARRAY for byte arrays, RLE for booleans.
    pub fallback_encoding: Option<Encoding>,
    /// Most rows in a row group.
    pub max_row_group_rows: usize,
    /// Most bytes (encoded and compressed, as buffered) in a row group.
    pub max_row_group_bytes: usize,
    /// Target data page size in bytes (before compression).
    pub data_page_size: usize,
    /// Most rows in a data page.
    pub data_page_rows: usize,
    /// Chunk statistics (min, max, null count).
    pub statistics: bool,
    /// The page index (ColumnIndex and OffsetIndex). Page statistics are
    /// only computed when both this and `statistics` are on.
    pub page_index: bool,
    /// Longest min/max of binary columns in chunk statistics; longer ones
    /// are truncated (and marked inexact).
    pub statistics_truncate_length: Option<usize>,
    /// Longest min/max of binary columns in the column index.
    pub column_index_truncate_length: Option<usize>,
    /// CRC32 checksums in page headers.
    pub page_checksums: bool,
    /// Key-value metadata stored in the footer.
    pub key_value_metadata: Vec<(String, String)>,
    /// Store the Arrow schema in the footer (`ARROW:schema`), so that readers
    /// get the exact Arrow types back.
    pub store_arrow_schema: bool,
    /// The `created_by` string of the footer.
    pub created_by: String,
    /// Per-column overrides, by dotted path or top-level field name.
    pub columns: HashMap<String, ColumnOptions>,
    /// Allows the encodings that the parquet-format specification marks as
    /// Preview (see [`is_preview_encoding`]); off by default.
    ///
    /// A Preview encoding's specification is final, but readers are still
    /// adding it, and the specification asks writers to use one only on
    /// request. Today that is ALP: pq's reader and arrow-rs's `parquet`
    /// crate (60.1, the version pq is tested against) read it; pyarrow 26
    /// fails with "Unknown encoding type" and DuckDB 2.0 with "Invalid
    /// data". Without this switch, asking for a Preview encoding (as a
    /// column's encoding or as a fallback) makes
    /// [`ParquetWriter::try_new`](crate::ParquetWriter::try_new) fail,
    /// naming the column.
    pub allow_preview_encodings: bool,
}

/// Whether the parquet-format specification marks `encoding` as Preview:
/// final, but not yet read by every reader (ALP, as of the 2026-08-01
/// `Encodings.md`). Writing one needs
/// [`WriterOptions::allow_preview_encodings`].
///
/// ```
/// use pq_arrow::write::{Encoding, is_preview_encoding};
/// assert!(is_preview_encoding(Encoding::ALP));
/// assert!(!is_preview_encoding(Encoding::BYTE_STREAM_SPLIT));
/// ```
pub fn is_preview_encoding(encoding: Encoding) -> bool {
    encoding == Encoding::ALP
}

/// The default `created_by`.
pub const CREATED_BY: &str = concat!("pq version ", env!("CARGO_PKG_VERSION"));

impl Default for WriterOptions {
    fn default() -> Self {
        Self {
            codec: Codec::Snappy,
            compression_level: None,
            data_page_version: DataPageVersion::V1,
            dictionary: true,
            dictionary_page_size_limit: 1024 * 1024,
            dictionary_max_entries: i32::MAX as usize,
            encoding: None,
            fallback_encoding: None,
            max_row_group_rows: 1024 * 1024,
            max_row_group_bytes: 128 * 1024 * 1024,
            data_page_size: 1024 * 1024,
            data_page_rows: 20_000,
            statistics: true,
            page_index: true,
            statistics_truncate_length: Some(64),
            column_index_truncate_length: Some(64),
            page_checksums: false,
            key_value_metadata: Vec::new(),
            store_arrow_schema: true,
            created_by: CREATED_BY.to_string(),
            columns: HashMap::new(),
            allow_preview_encodings: false,
        }
    }
}

impl WriterOptions {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the codec and level of every column.
    pub fn with_compression(mut self, codec: Codec, level: Option<i32>) -> Self {
        self.codec = codec;
        self.compression_level = level;
        self
    }

    /// Sets the data page version.
    pub fn with_data_page_version(mut self, version: DataPageVersion) -> Self {
        self.data_page_version = version;
        self
    }

    /// Turns dictionary encoding on or off.
    pub fn with_dictionary(mut self, on: bool) -> Self {
        self.dictionary = on;
        self
    }

    /// Sets the dictionary limits (bytes of the PLAIN dictionary page, entries).
    pub fn with_dictionary_limits(mut self, max_bytes: usize, max_entries: usize) -> Self {
        self.dictionary_page_size_limit = max_bytes;
        self.dictionary_max_entries = max_entries;
        self
    }

    /// Sets the encoding of every column (turning dictionaries off).
    pub fn with_encoding(mut self, encoding: Encoding) -> Self {
        self.encoding = Some(encoding);
        self
    }

    /// Sets the encoding used after a dictionary falls back.
    pub fn with_fallback_encoding(mut self, encoding: Encoding) -> Self {
        self.fallback_encoding = Some(encoding);
        self
    }

    /// Sets the row group limits.
    pub fn with_row_group_size(mut self, max_rows: usize, max_bytes: usize) -> Self {
        self.max_row_group_rows = max_rows.max(1);
        self.max_row_group_bytes = max_bytes.max(1);
        self
    }

    /// Sets the data page limits.
    pub fn with_data_page_size(mut self, max_bytes: usize, max_rows: usize) -> Self {
        self.data_page_size = max_bytes.max(1);
        self.data_page_rows = max_rows.max(1);
        self
    }

    /// Turns statistics on or off.
    pub fn with_statistics(mut self, on: bool) -> Self {
        self.statistics = on;
        self
    }

    /// Turns the page index on or off.
    pub fn with_page_index(mut self, on: bool) -> Self {
        self.page_index = on;
        self
    }

    /// Turns page CRC checksums on or off.
    pub fn with_page_checksums(mut self, on: bool) -> Self {
        self.page_checksums = on;
        self
    }

    /// Sets the truncation lengths of binary bounds in statistics and in
    /// the column index.
    pub fn with_truncate_lengths(
        mut self,
        statistics: Option<usize>,
        column_index: Option<usize>,
    ) -> Self {
        self.statistics_truncate_length = statistics;
        self.column_index_truncate_length = column_index;
        self
    }

    /// Adds a key-value pair to the footer.
    pub fn with_key_value(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.key_value_metadata.push((key.into(), value.into()));
        self
    }

    /// Sets `created_by`.
    pub fn with_created_by(mut self, created_by: impl Into<String>) -> Self {
        self.created_by = created_by.into();
        self
    }

    /// Stores the Arrow schema in the footer or not.
    pub fn with_arrow_schema(mut self, on: bool) -> Self {
        self.store_arrow_schema = on;
        self
    }

    /// Allows or forbids Preview encodings (see
    /// [`allow_preview_encodings`](Self::allow_preview_encodings)).
    pub fn with_preview_encodings(mut self, allow: bool) -> Self {
        self.allow_preview_encodings = allow;
        self
    }

    /// Sets the options of a column (dotted path or top-level name).
    pub fn with_column(mut self, column: impl Into<String>, options: ColumnOptions) -> Self {
        self.columns.insert(column.into(), options);
        self
    }

    /// The options of the leaf at `path`: the leaf's own, else the
    /// nearest ancestor's, merged over the file-wide ones.
    pub(crate) fn resolve(&self, path: &[String]) -> ResolvedColumn {
        let mut col = ColumnOptions::default();
        for n in (1..=path.len()).rev() {
            if let Some(o) = self.columns.get(&path[..n].join(".")) {
                col = o.clone();
                break;
            }
        }
        let encoding = col.encoding.or(self.encoding);
        let dictionary = if col.encoding.is_some() {
            false
        } else {
            col.dictionary
                .unwrap_or(self.dictionary && self.encoding.is_none())
        };
        let encoding = encoding.unwrap_or(Encoding::PLAIN);
        ResolvedColumn {
            encoding: if dictionary {
                col.fallback_encoding
                    .or(self.fallback_encoding)
                    .unwrap_or(Encoding::PLAIN)
            } else {
                encoding
            },
            default_fallback: dictionary
                && col.fallback_encoding.or(self.fallback_encoding).is_none(),
            dictionary,
            codec: col.codec.unwrap_or(self.codec),
            level: if col.codec.is_some() {
                col.compression_level
            } else {
                self.compression_level
            },
            statistics: col.statistics.unwrap_or(self.statistics),
        }
    }
}

/// The options of one leaf after merging.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ResolvedColumn {
    /// Encoding of non-dictionary pages.
    pub encoding: Encoding,
    pub dictionary: bool,
    /// The fallback encoding was not chosen: the writer picks it by type.
    pub default_fallback: bool,
    pub codec: Codec,
    pub level: Option<i32>,
    pub statistics: bool,
}
