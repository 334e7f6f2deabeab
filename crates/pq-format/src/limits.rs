//! Resource limits applied while reading metadata.

/// Limits that protect readers from hostile or corrupt metadata.
///
/// The defaults are generous enough for any real file seen in practice and
/// small enough that a corrupt length cannot make a reader allocate without
/// bound:
///
/// | limit | default |
/// |---|---|
/// | [`max_metadata_size`](Limits::max_metadata_size) | 256 MiB |
/// | [`max_nesting_depth`](Limits::max_nesting_depth) | 64 |
/// | [`max_string_len`](Limits::max_string_len) | 64 MiB |
/// | [`max_list_len`](Limits::max_list_len) | 16 Mi elements |
/// | [`max_schema_depth`](Limits::max_schema_depth) | 128 |
///
/// Every length is checked against the bytes that remain before anything is
/// allocated, so memory grows only with bytes actually decoded. Decoded
/// structures are larger than their encoding, though (a 3-byte `ColumnChunk`
/// becomes a struct of several hundred bytes): for untrusted input where
/// memory matters, lower `max_metadata_size`.
///
/// ```
/// let limits = pq_format::Limits { max_nesting_depth: 16, ..Default::default() };
/// assert_eq!(limits.max_schema_depth, 128);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Largest footer (serialized `FileMetaData`) accepted, in bytes.
    pub max_metadata_size: usize,
    /// Deepest nesting of Thrift structs and containers (including skipped
    /// unknown fields).
    pub max_nesting_depth: u32,
    /// Longest string or binary value, in bytes.
    pub max_string_len: usize,
    /// Most elements in one list, set or map.
    pub max_list_len: usize,
    /// Deepest schema tree (the root is depth 0).
    pub max_schema_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_metadata_size: 256 << 20,
            max_nesting_depth: 64,
            max_string_len: 64 << 20,
            max_list_len: 16 << 20,
            max_schema_depth: 128,
        }
    }
}
