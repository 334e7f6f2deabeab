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

/// A column (a leaf, or an ancestor standing for every leaf under it) is
/// named by pq-format's [`ColumnPath`]: the list of names from the root, so
/// a name may hold a dot. A `&str` is one top-level name, as in arrow-rs;
/// for a list `a` of structs with field `b` the leaf is
/// `ColumnPath::from(["a", "list", "element", "b"])`.
pub use pq_format::ColumnPath;

/// Options of one column overriding the file-wide ones; unset fields
/// inherit.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ColumnOptions {
    /// Encoding of the pages that are not dictionary-encoded.
    pub encoding: Option<Encoding>,
    pub dictionary: Option<bool>,
    pub codec: Option<Codec>,
    pub compression_level: Option<i32>,
    pub statistics: Option<bool>,
    pub bloom_filter: Option<bool>,
    pub bloom_filter_fpp: Option<f64>,
    pub bloom_filter_ndv: Option<u64>,
}

/// Options of a [`ParquetWriter`](crate::ParquetWriter), built by
/// [`WriterOptions::builder`] (fields are private, so that a new option is
/// not a breaking change).
///
/// The defaults are those most readers expect: dictionary encoding with
/// fallback to PLAIN past 1 MiB of dictionary (or, as parquet-java does,
/// once its first page of 16 Ki values shows a dictionary of mostly
/// distinct values taking more bytes than the values PLAIN), statistics
/// and the page index on, data page v1, SNAPPY compression, row groups of
/// at most 1Mi rows or 128 MiB, data pages of about 1 MiB or 20 000 rows,
/// and only the encodings of the released specification (no Preview
/// encoding).
///
/// SNAPPY by default, as pyarrow's `write_table` and DuckDB write: every
/// Parquet reader reads it, it costs little time to write and less to read,
/// and pages of text, or of values the dictionary did not take, come out
/// smaller than uncompressed. [`Codec::Uncompressed`] is one call away
/// (`set_compression(Codec::Uncompressed)`) for data that does not
/// compress; [`Codec::Zstd`] gives smaller files for more writing time.
///
/// Setters take arrow-rs's `WriterProperties::builder()` names where the
/// behaviour is the same.
///
/// ```
/// use pq_arrow::write::{Codec, DataPageVersion, Encoding, WriterOptions};
/// let options = WriterOptions::builder()
///     .set_compression(Codec::Zstd)
///     .set_compression_level(Some(3))
///     .set_writer_version(DataPageVersion::V2)
///     .set_column_encoding("id", Encoding::DELTA_BINARY_PACKED)
///     .set_column_dictionary_enabled("id", false)
///     .build();
/// assert_eq!(options.compression(), Codec::Zstd);
/// assert_eq!(WriterOptions::default().compression(), Codec::Snappy);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct WriterOptions {
    pub(crate) codec: Codec,
    /// The codec's default when `None`.
    pub(crate) compression_level: Option<i32>,
    pub(crate) data_page_version: DataPageVersion,
    pub(crate) dictionary: bool,
    /// Bytes of PLAIN entries before a dictionary falls back.
    pub(crate) dictionary_page_size_limit: usize,
    pub(crate) dictionary_max_entries: usize,
    /// Encoding of pages not dictionary-encoded; when `None`, PLAIN, or
    /// after a fallback with data page v2 the type's default (see
    /// [`WriterOptionsBuilder::set_encoding`]).
    pub(crate) encoding: Option<Encoding>,
    pub(crate) max_row_group_rows: usize,
    pub(crate) max_row_group_bytes: usize,
    pub(crate) data_page_size: usize,
    pub(crate) data_page_rows: usize,
    pub(crate) statistics: bool,
    pub(crate) page_index: bool,
    pub(crate) statistics_truncate_length: Option<usize>,
    pub(crate) column_index_truncate_length: Option<usize>,
    pub(crate) page_checksums: bool,
    pub(crate) key_value_metadata: Vec<(String, String)>,
    pub(crate) store_arrow_schema: bool,
    pub(crate) created_by: String,
    /// Per-column overrides, by dotted path.
    pub(crate) columns: HashMap<ColumnPath, ColumnOptions>,
    pub(crate) allow_preview_encodings: bool,
    pub(crate) bloom_filter: bool,
    pub(crate) bloom_filter_fpp: f64,
    pub(crate) bloom_filter_ndv: Option<u64>,
    /// Threads encoding the columns of a batch (1: the caller's alone).
    pub(crate) threads: usize,
}

/// Whether the parquet-format specification marks `encoding` as Preview:
/// final, but not yet read by every reader (ALP, as of the 2026-08-01
/// `Encodings.md`). Writing one needs
/// [`WriterOptionsBuilder::set_allow_preview_encodings`].
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
            bloom_filter: false,
            bloom_filter_fpp: Self::DEFAULT_BLOOM_FILTER_FPP,
            bloom_filter_ndv: None,
            threads: 1,
        }
    }
}

impl WriterOptions {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder starting from the defaults.
    pub fn builder() -> WriterOptionsBuilder {
        WriterOptionsBuilder {
            options: Self::default(),
        }
    }

    /// A builder starting from these options.
    pub fn into_builder(self) -> WriterOptionsBuilder {
        WriterOptionsBuilder { options: self }
    }

    /// The codec of every column without its own.
    pub fn compression(&self) -> Codec {
        self.codec
    }

    /// The compression level (`None`: the codec's default).
    pub fn compression_level(&self) -> Option<i32> {
        self.compression_level
    }

    /// The data page version (and with it the footer's version).
    pub fn writer_version(&self) -> DataPageVersion {
        self.data_page_version
    }

    /// Whether columns are dictionary-encoded by default.
    pub fn dictionary_enabled(&self) -> bool {
        self.dictionary
    }

    /// The encoding of pages not dictionary-encoded, when set.
    pub fn encoding(&self) -> Option<Encoding> {
        self.encoding
    }

    /// Most rows in a row group.
    pub fn max_row_group_size(&self) -> usize {
        self.max_row_group_rows
    }

    /// Most bytes (encoded and compressed, as buffered) in a row group.
    pub fn max_row_group_bytes(&self) -> usize {
        self.max_row_group_bytes
    }

    /// Threads that encode and compress the columns (1 by default: the
    /// caller's thread alone).
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Target bytes of a data page, before compression.
    pub fn data_page_size_limit(&self) -> usize {
        self.data_page_size
    }

    /// Most rows in a data page.
    pub fn data_page_row_count_limit(&self) -> usize {
        self.data_page_rows
    }

    /// Whether chunk statistics are written.
    pub fn statistics_enabled(&self) -> bool {
        self.statistics
    }

    /// Whether the page index is written.
    pub fn page_index_enabled(&self) -> bool {
        self.page_index
    }

    /// Default false-positive probability of Bloom filters: 5 %, as in
    /// arrow-rs and parquet-java.
    pub const DEFAULT_BLOOM_FILTER_FPP: f64 = 0.05;

    /// Whether Bloom filters are written (for columns without their own
    /// setting).
    pub fn bloom_filter_enabled(&self) -> bool {
        self.bloom_filter
    }

    /// Whether Preview encodings may be written.
    pub fn allow_preview_encodings(&self) -> bool {
        self.allow_preview_encodings
    }

    /// The footer's `created_by`.
    pub fn created_by(&self) -> &str {
        &self.created_by
    }

    /// Sets the codec and level of every column.
    #[deprecated(
        note = "use WriterOptions::builder().set_compression(..).set_compression_level(..)"
    )]
    pub fn with_compression(self, codec: Codec, level: Option<i32>) -> Self {
        self.into_builder()
            .set_compression(codec)
            .set_compression_level(level)
            .build()
    }

    /// Sets the data page version.
    #[deprecated(note = "use WriterOptions::builder().set_writer_version(..)")]
    pub fn with_data_page_version(self, version: DataPageVersion) -> Self {
        self.into_builder().set_writer_version(version).build()
    }

    /// Turns dictionary encoding on or off.
    #[deprecated(note = "use WriterOptions::builder().set_dictionary_enabled(..)")]
    pub fn with_dictionary(self, on: bool) -> Self {
        self.into_builder().set_dictionary_enabled(on).build()
    }

    /// Sets the dictionary limits (bytes of the PLAIN dictionary page, entries).
    #[deprecated(
        note = "use WriterOptions::builder().set_dictionary_page_size_limit(..).set_dictionary_max_entries(..)"
    )]
    pub fn with_dictionary_limits(self, max_bytes: usize, max_entries: usize) -> Self {
        self.into_builder()
            .set_dictionary_page_size_limit(max_bytes)
            .set_dictionary_max_entries(max_entries)
            .build()
    }

    /// Sets the encoding of every column and turns dictionaries off.
    #[deprecated(
        note = "use WriterOptions::builder().set_encoding(..).set_dictionary_enabled(false)"
    )]
    pub fn with_encoding(self, encoding: Encoding) -> Self {
        self.into_builder()
            .set_encoding(encoding)
            .set_dictionary_enabled(false)
            .build()
    }

    /// Sets the encoding used after a dictionary falls back.
    #[deprecated(note = "use WriterOptions::builder().set_encoding(..)")]
    pub fn with_fallback_encoding(self, encoding: Encoding) -> Self {
        self.into_builder().set_encoding(encoding).build()
    }

    /// Sets the row group limits.
    #[deprecated(
        note = "use WriterOptions::builder().set_max_row_group_size(..).set_max_row_group_bytes(..)"
    )]
    pub fn with_row_group_size(self, max_rows: usize, max_bytes: usize) -> Self {
        self.into_builder()
            .set_max_row_group_size(max_rows)
            .set_max_row_group_bytes(max_bytes)
            .build()
    }

    /// Sets the data page limits.
    #[deprecated(
        note = "use WriterOptions::builder().set_data_page_size_limit(..).set_data_page_row_count_limit(..)"
    )]
    pub fn with_data_page_size(self, max_bytes: usize, max_rows: usize) -> Self {
        self.into_builder()
            .set_data_page_size_limit(max_bytes)
            .set_data_page_row_count_limit(max_rows)
            .build()
    }

    /// Turns statistics on or off.
    #[deprecated(note = "use WriterOptions::builder().set_statistics_enabled(..)")]
    pub fn with_statistics(self, on: bool) -> Self {
        self.into_builder().set_statistics_enabled(on).build()
    }

    /// Turns the page index on or off.
    #[deprecated(note = "use WriterOptions::builder().set_page_index_enabled(..)")]
    pub fn with_page_index(self, on: bool) -> Self {
        self.into_builder().set_page_index_enabled(on).build()
    }

    /// Turns page CRC checksums on or off.
    #[deprecated(note = "use WriterOptions::builder().set_page_checksums_enabled(..)")]
    pub fn with_page_checksums(self, on: bool) -> Self {
        self.into_builder().set_page_checksums_enabled(on).build()
    }

    /// Sets the truncation lengths of binary bounds in statistics and in
    /// the column index.
    #[deprecated(
        note = "use WriterOptions::builder().set_statistics_truncate_length(..).set_column_index_truncate_length(..)"
    )]
    pub fn with_truncate_lengths(
        self,
        statistics: Option<usize>,
        column_index: Option<usize>,
    ) -> Self {
        self.into_builder()
            .set_statistics_truncate_length(statistics)
            .set_column_index_truncate_length(column_index)
            .build()
    }

    /// Adds a key-value pair to the footer.
    #[deprecated(note = "use WriterOptions::builder().add_key_value(..)")]
    pub fn with_key_value(self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.into_builder().add_key_value(key, value).build()
    }

    /// Sets `created_by`.
    #[deprecated(note = "use WriterOptions::builder().set_created_by(..)")]
    pub fn with_created_by(self, created_by: impl Into<String>) -> Self {
        self.into_builder().set_created_by(created_by).build()
    }

    /// Stores the Arrow schema in the footer or not.
    #[deprecated(note = "use WriterOptions::builder().set_store_arrow_schema(..)")]
    pub fn with_arrow_schema(self, on: bool) -> Self {
        self.into_builder().set_store_arrow_schema(on).build()
    }

    /// Allows or forbids Preview encodings.
    #[deprecated(note = "use WriterOptions::builder().set_allow_preview_encodings(..)")]
    pub fn with_preview_encodings(self, allow: bool) -> Self {
        self.into_builder()
            .set_allow_preview_encodings(allow)
            .build()
    }

    /// The options of the leaf at `path`: the leaf's own, else the
    /// nearest ancestor's, merged over the file-wide ones.
    pub(crate) fn resolve(&self, path: &[String]) -> ResolvedColumn {
        let mut col = ColumnOptions::default();
        for n in (1..=path.len()).rev() {
            if let Some(o) = self.columns.get(&ColumnPath::from(&path[..n])) {
                col = o.clone();
                break;
            }
        }
        let dictionary = col.dictionary.unwrap_or(self.dictionary);
        let chosen = col.encoding.or(self.encoding);
        ResolvedColumn {
            encoding: chosen.unwrap_or(Encoding::PLAIN),
            default_fallback: dictionary && chosen.is_none(),
            dictionary,
            codec: col.codec.unwrap_or(self.codec),
            // A column's codec comes with its own level (or the codec's
            // default): the file's level may mean nothing to it.
            level: if col.codec.is_some() || col.compression_level.is_some() {
                col.compression_level
            } else {
                self.compression_level
            },
            statistics: col.statistics.unwrap_or(self.statistics),
            bloom_filter: col.bloom_filter.unwrap_or(self.bloom_filter).then(|| {
                // Without a count, a chunk holds at most the row group's
                // rows (and writers cap the filter's size anyway).
                let ndv = col
                    .bloom_filter_ndv
                    .or(self.bloom_filter_ndv)
                    .unwrap_or(self.max_row_group_rows.min(1 << 20) as u64);
                (ndv, col.bloom_filter_fpp.unwrap_or(self.bloom_filter_fpp))
            }),
        }
    }
}

/// Builds [`WriterOptions`]; see [`WriterOptions::builder`].
///
/// File-wide setters apply to every column without an override of its
/// own; `set_column_*` setters override them for one column (a leaf, or
/// every leaf under a named ancestor), the nearest override winning.
#[derive(Debug, Clone)]
pub struct WriterOptionsBuilder {
    options: WriterOptions,
}

impl WriterOptionsBuilder {
    /// The options.
    pub fn build(self) -> WriterOptions {
        self.options
    }

    /// Sets the codec of every column (SNAPPY by default).
    pub fn set_compression(mut self, codec: Codec) -> Self {
        self.options.codec = codec;
        self
    }

    /// Sets the compression level (`None`, the default: the codec's own).
    pub fn set_compression_level(mut self, level: Option<i32>) -> Self {
        self.options.compression_level = level;
        self
    }

    /// Sets the data page version, as arrow-rs's `set_writer_version`: V2
    /// writes data pages v2, footer version 2, and after a dictionary falls
    /// back (with no encoding set) DELTA_BINARY_PACKED for integers,
    /// DELTA_BYTE_ARRAY for byte arrays and RLE for booleans.
    pub fn set_writer_version(mut self, version: DataPageVersion) -> Self {
        self.options.data_page_version = version;
        self
    }

    /// Turns dictionary encoding on (the default) or off for columns whose
    /// type allows it.
    pub fn set_dictionary_enabled(mut self, on: bool) -> Self {
        self.options.dictionary = on;
        self
    }

    /// Sets the bytes of PLAIN entries past which a dictionary falls back
    /// (1 MiB by default). A dictionary also falls back when, after the
    /// first 16 Ki values of a chunk's first page, it and their indices
    /// take more bytes than the same values PLAIN.
    pub fn set_dictionary_page_size_limit(mut self, bytes: usize) -> Self {
        self.options.dictionary_page_size_limit = bytes;
        self
    }

    /// Sets the entries past which a dictionary falls back.
    pub fn set_dictionary_max_entries(mut self, entries: usize) -> Self {
        self.options.dictionary_max_entries = entries;
        self
    }

    /// Sets the encoding of the pages that are not dictionary-encoded, as
    /// arrow-rs's `set_encoding`: every page with the dictionary off, the
    /// pages after a fallback with it on. Unset, they are PLAIN (after a
    /// fallback with data page v2, the type's default: see
    /// [`set_writer_version`](Self::set_writer_version)). An encoding a
    /// column's type does not take makes
    /// [`ParquetWriter::try_new`](crate::ParquetWriter::try_new) fail.
    pub fn set_encoding(mut self, encoding: Encoding) -> Self {
        self.options.encoding = Some(encoding);
        self
    }

    /// Sets the most rows in a row group (at least 1).
    pub fn set_max_row_group_size(mut self, rows: usize) -> Self {
        self.options.max_row_group_rows = rows.max(1);
        self
    }

    /// Sets the most bytes in a row group, encoded and compressed as
    /// buffered (at least 1).
    pub fn set_max_row_group_bytes(mut self, bytes: usize) -> Self {
        self.options.max_row_group_bytes = bytes.max(1);
        self
    }

    /// Sets the target bytes of a data page before compression (at least 1).
    pub fn set_data_page_size_limit(mut self, bytes: usize) -> Self {
        self.options.data_page_size = bytes.max(1);
        self
    }

    /// Sets the most rows in a data page (at least 1).
    pub fn set_data_page_row_count_limit(mut self, rows: usize) -> Self {
        self.options.data_page_rows = rows.max(1);
        self
    }

    /// Turns chunk statistics (min, max, null count) on (the default) or
    /// off; page statistics in the column index need them too.
    pub fn set_statistics_enabled(mut self, on: bool) -> Self {
        self.options.statistics = on;
        self
    }

    /// Turns the page index (OffsetIndex, and ColumnIndex with statistics)
    /// on (the default) or off.
    pub fn set_page_index_enabled(mut self, on: bool) -> Self {
        self.options.page_index = on;
        self
    }

    /// Sets the longest min/max of binary columns in chunk statistics;
    /// longer ones are truncated and marked inexact (64 by default).
    pub fn set_statistics_truncate_length(mut self, len: Option<usize>) -> Self {
        self.options.statistics_truncate_length = len;
        self
    }

    /// Sets the longest min/max of binary columns in the column index (64
    /// by default).
    pub fn set_column_index_truncate_length(mut self, len: Option<usize>) -> Self {
        self.options.column_index_truncate_length = len;
        self
    }

    /// Encodes and compresses the columns of each batch on `threads`
    /// threads (the caller's among them; 1, the default, spawns none).
    /// Each column is encoded by one thread at a time and the file is
    /// written in column order by the caller's thread, so the bytes written
    /// are the same for any number; more threads help when the columns are
    /// many and the caller has cores to spare (CSV to Parquet in `pq
    /// convert`). Memory does not grow with it: the columns' buffers are
    /// the same, only who fills them changes.
    ///
    /// ```
    /// let options = pq_arrow::write::WriterOptions::builder().set_threads(4).build();
    /// assert_eq!(options.threads(), 4);
    /// ```
    pub fn set_threads(mut self, threads: usize) -> Self {
        self.options.threads = threads.max(1);
        self
    }

    /// Turns CRC32 checksums in page headers on or off (the default).
    pub fn set_page_checksums_enabled(mut self, on: bool) -> Self {
        self.options.page_checksums = on;
        self
    }

    /// Adds a key-value pair to the footer's metadata.
    pub fn add_key_value(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.options
            .key_value_metadata
            .push((key.into(), value.into()));
        self
    }

    /// Sets the footer's `created_by`.
    pub fn set_created_by(mut self, created_by: impl Into<String>) -> Self {
        self.options.created_by = created_by.into();
        self
    }

    /// Stores the Arrow schema in the footer (`ARROW:schema`, the default)
    /// so that readers get the exact Arrow types back, or not.
    pub fn set_store_arrow_schema(mut self, on: bool) -> Self {
        self.options.store_arrow_schema = on;
        self
    }

    /// Allows the encodings that the parquet-format specification marks as
    /// Preview (see [`is_preview_encoding`]); off by default.
    ///
    /// A Preview encoding's specification is final, but readers are still
    /// adding it, and the specification asks writers to use one only on
    /// request. Today that is ALP: pq's reader and arrow-rs's `parquet`
    /// crate (60.1, the version pq is tested against) read it; pyarrow 26
    /// fails with "Unknown encoding type" and DuckDB 2.0 with "Invalid
    /// data". Without this switch, asking for a Preview encoding makes
    /// [`ParquetWriter::try_new`](crate::ParquetWriter::try_new) fail,
    /// naming the column.
    pub fn set_allow_preview_encodings(mut self, allow: bool) -> Self {
        self.options.allow_preview_encodings = allow;
        self
    }

    fn column(&mut self, path: impl Into<ColumnPath>) -> &mut ColumnOptions {
        self.options.columns.entry(path.into()).or_default()
    }

    /// Sets one column's encoding of pages not dictionary-encoded (see
    /// [`set_encoding`](Self::set_encoding)).
    pub fn set_column_encoding(mut self, path: impl Into<ColumnPath>, encoding: Encoding) -> Self {
        self.column(path).encoding = Some(encoding);
        self
    }

    /// Turns one column's dictionary on or off.
    pub fn set_column_dictionary_enabled(mut self, path: impl Into<ColumnPath>, on: bool) -> Self {
        self.column(path).dictionary = Some(on);
        self
    }

    /// Sets one column's codec; its level is the codec's default unless
    /// [`set_column_compression_level`](Self::set_column_compression_level)
    /// sets one (the file's level may mean nothing to another codec).
    pub fn set_column_compression(mut self, path: impl Into<ColumnPath>, codec: Codec) -> Self {
        self.column(path).codec = Some(codec);
        self
    }

    /// Sets one column's compression level.
    pub fn set_column_compression_level(
        mut self,
        path: impl Into<ColumnPath>,
        level: Option<i32>,
    ) -> Self {
        self.column(path).compression_level = level;
        self
    }

    /// Turns one column's statistics on or off.
    pub fn set_column_statistics_enabled(mut self, path: impl Into<ColumnPath>, on: bool) -> Self {
        self.column(path).statistics = Some(on);
        self
    }

    /// Writes a split-block Bloom filter for every column chunk (default
    /// off), after each row group's chunks, so that readers skip row
    /// groups that cannot hold a value asked for with `=` or `IN`.
    /// BOOLEAN columns get none.
    ///
    /// ```
    /// use pq_arrow::WriterOptions;
    /// let options = WriterOptions::builder()
    ///     .set_bloom_filter_enabled(true)
    ///     .set_bloom_filter_fpp(0.01)
    ///     .set_column_bloom_filter_ndv("id", 10_000)
    ///     .set_column_bloom_filter_enabled("notes", false)
    ///     .build();
    /// assert!(options.bloom_filter_enabled());
    /// ```
    pub fn set_bloom_filter_enabled(mut self, on: bool) -> Self {
        self.options.bloom_filter = on;
        self
    }

    /// The false-positive probability the filters are sized for (default
    /// [`WriterOptions::DEFAULT_BLOOM_FILTER_FPP`]; clamped to 0..0.5).
    pub fn set_bloom_filter_fpp(mut self, fpp: f64) -> Self {
        self.options.bloom_filter_fpp = fpp;
        self
    }

    /// The distinct values a chunk's filter is sized for (default: the
    /// row group's row limit, at most 1 Mi).
    pub fn set_bloom_filter_ndv(mut self, ndv: u64) -> Self {
        self.options.bloom_filter_ndv = Some(ndv);
        self
    }

    /// [`set_bloom_filter_enabled`](Self::set_bloom_filter_enabled) for
    /// one column.
    pub fn set_column_bloom_filter_enabled(
        mut self,
        path: impl Into<ColumnPath>,
        on: bool,
    ) -> Self {
        self.column(path).bloom_filter = Some(on);
        self
    }

    /// [`set_bloom_filter_fpp`](Self::set_bloom_filter_fpp) for one column.
    pub fn set_column_bloom_filter_fpp(mut self, path: impl Into<ColumnPath>, fpp: f64) -> Self {
        self.column(path).bloom_filter_fpp = Some(fpp);
        self
    }

    /// [`set_bloom_filter_ndv`](Self::set_bloom_filter_ndv) for one column
    /// (turning its filter on).
    pub fn set_column_bloom_filter_ndv(mut self, path: impl Into<ColumnPath>, ndv: u64) -> Self {
        let c = self.column(path);
        c.bloom_filter_ndv = Some(ndv);
        c.bloom_filter.get_or_insert(true);
        self
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
    /// A Bloom filter is written, sized for this many distinct values at
    /// this false-positive probability.
    pub bloom_filter: Option<(u64, f64)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(dotted: &str) -> Vec<String> {
        dotted.split('.').map(str::to_string).collect()
    }

    #[test]
    fn builder_defaults_and_overrides() {
        assert_eq!(WriterOptions::builder().build(), WriterOptions::default());
        let o = WriterOptions::builder()
            .set_compression(Codec::Gzip)
            .set_compression_level(Some(5))
            .set_encoding(Encoding::DELTA_BINARY_PACKED)
            .set_column_compression("z", Codec::Zstd)
            .set_column_compression_level("g", Some(9))
            .set_column_dictionary_enabled("l", false)
            .set_column_encoding(
                ColumnPath::from(["l", "list", "element"]),
                Encoding::BYTE_STREAM_SPLIT,
            )
            .build();
        // With the dictionary on, the encoding is the fallback's.
        let top = o.resolve(&path("x"));
        assert!(top.dictionary && !top.default_fallback);
        assert_eq!(top.encoding, Encoding::DELTA_BINARY_PACKED);
        assert_eq!((top.codec, top.level), (Codec::Gzip, Some(5)));
        // A column's codec comes with its default level; a level alone
        // applies to the file's codec.
        let z = o.resolve(&path("z"));
        assert_eq!((z.codec, z.level), (Codec::Zstd, None));
        let g = o.resolve(&path("g"));
        assert_eq!((g.codec, g.level), (Codec::Gzip, Some(9)));
        // The nearest override wins, and does not inherit from an ancestor's.
        let leaf = o.resolve(&path("l.list.element"));
        assert_eq!(leaf.encoding, Encoding::BYTE_STREAM_SPLIT);
        assert!(leaf.dictionary);
        let other = o.resolve(&path("l.list.other"));
        assert!(!other.dictionary);
        assert_eq!(other.encoding, Encoding::DELTA_BINARY_PACKED);
    }

    #[test]
    fn unset_encoding_is_plain_or_the_default_fallback() {
        let o = WriterOptions::default();
        let r = o.resolve(&path("x"));
        assert!(r.dictionary && r.default_fallback);
        let r = WriterOptions::builder()
            .set_dictionary_enabled(false)
            .build()
            .resolve(&path("x"));
        assert!(!r.dictionary && !r.default_fallback);
        assert_eq!(r.encoding, Encoding::PLAIN);
    }

    #[test]
    #[allow(deprecated)]
    fn deprecated_aliases_keep_their_meaning() {
        let o = WriterOptions::default()
            .with_encoding(Encoding::RLE)
            .with_compression(Codec::Zstd, Some(3))
            .with_row_group_size(0, 10);
        assert!(!o.dictionary_enabled());
        assert_eq!(o.encoding(), Some(Encoding::RLE));
        assert_eq!(
            (o.compression(), o.compression_level()),
            (Codec::Zstd, Some(3))
        );
        assert_eq!((o.max_row_group_size(), o.max_row_group_bytes()), (1, 10));
    }
}
