//! Resource limits applied while reading metadata.

/// Limits that protect readers from hostile or corrupt metadata.
///
/// The defaults are generous enough for any real file seen in practice and
/// small enough that a corrupt length cannot make a reader allocate without
/// bound:
///
/// | limit | default | protects against |
/// |---|---|---|
/// | [`max_metadata_size`](Limits::max_metadata_size) | 256 MiB | a footer length that makes a reader read and decode without bound |
/// | [`max_nesting_depth`](Limits::max_nesting_depth) | 64 | Thrift structs nested until the decoder's stack overflows |
/// | [`max_string_len`](Limits::max_string_len) | 64 MiB | one string or binary value taking all memory |
/// | [`max_list_len`](Limits::max_list_len) | 16 Mi elements | one list, set or map taking all memory |
/// | [`max_schema_depth`](Limits::max_schema_depth) | 128 | a schema tree deep enough to overflow the stack of code that walks it |
///
/// Every length is checked against the bytes that remain before anything is
/// allocated, so memory grows only with bytes actually decoded. Decoded
/// structures are larger than their encoding, though (a 3-byte `ColumnChunk`
/// becomes a struct of several hundred bytes): for untrusted input where
/// memory matters, lower `max_metadata_size`.
///
/// Like `pq_compress::Limits` and `pq_page::PageOptions`, each limit has a
/// getter, a `with_*` setter and a `DEFAULT_*` constant.
///
/// ```
/// let limits = pq_format::Limits::default().with_max_nesting_depth(16);
/// assert_eq!(limits.max_nesting_depth(), 16);
/// assert_eq!(limits.max_schema_depth(), pq_format::Limits::DEFAULT_MAX_SCHEMA_DEPTH);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    // Crate-visible so the decoder reads them directly; users go through
    // the getters and setters.
    pub(crate) max_metadata_size: usize,
    pub(crate) max_nesting_depth: u32,
    pub(crate) max_string_len: usize,
    pub(crate) max_list_len: usize,
    pub(crate) max_schema_depth: usize,
}

impl Limits {
    /// Default for [`max_metadata_size`](Self::max_metadata_size): 256 MiB.
    pub const DEFAULT_MAX_METADATA_SIZE: usize = 256 << 20;
    /// Default for [`max_nesting_depth`](Self::max_nesting_depth): 64.
    pub const DEFAULT_MAX_NESTING_DEPTH: u32 = 64;
    /// Default for [`max_string_len`](Self::max_string_len): 64 MiB.
    pub const DEFAULT_MAX_STRING_LEN: usize = 64 << 20;
    /// Default for [`max_list_len`](Self::max_list_len): 16 Mi elements.
    pub const DEFAULT_MAX_LIST_LEN: usize = 16 << 20;
    /// Default for [`max_schema_depth`](Self::max_schema_depth): 128.
    pub const DEFAULT_MAX_SCHEMA_DEPTH: usize = 128;

    /// Limits with the defaults.
    ///
    /// ```
    /// assert_eq!(pq_format::Limits::new(), pq_format::Limits::default());
    /// ```
    pub const fn new() -> Self {
        Self {
            max_metadata_size: Self::DEFAULT_MAX_METADATA_SIZE,
            max_nesting_depth: Self::DEFAULT_MAX_NESTING_DEPTH,
            max_string_len: Self::DEFAULT_MAX_STRING_LEN,
            max_list_len: Self::DEFAULT_MAX_LIST_LEN,
            max_schema_depth: Self::DEFAULT_MAX_SCHEMA_DEPTH,
        }
    }

    /// Largest footer (serialized `FileMetaData`) accepted, in bytes.
    pub const fn max_metadata_size(&self) -> usize {
        self.max_metadata_size
    }

    /// Deepest nesting of Thrift structs and containers (including skipped
    /// unknown fields).
    pub const fn max_nesting_depth(&self) -> u32 {
        self.max_nesting_depth
    }

    /// Longest string or binary value, in bytes.
    pub const fn max_string_len(&self) -> usize {
        self.max_string_len
    }

    /// Most elements in one list, set or map.
    pub const fn max_list_len(&self) -> usize {
        self.max_list_len
    }

    /// Deepest schema tree (the root is depth 0).
    pub const fn max_schema_depth(&self) -> usize {
        self.max_schema_depth
    }

    /// These limits with this [`max_metadata_size`](Self::max_metadata_size).
    pub const fn with_max_metadata_size(mut self, max: usize) -> Self {
        self.max_metadata_size = max;
        self
    }

    /// These limits with this [`max_nesting_depth`](Self::max_nesting_depth).
    pub const fn with_max_nesting_depth(mut self, max: u32) -> Self {
        self.max_nesting_depth = max;
        self
    }

    /// These limits with this [`max_string_len`](Self::max_string_len).
    pub const fn with_max_string_len(mut self, max: usize) -> Self {
        self.max_string_len = max;
        self
    }

    /// These limits with this [`max_list_len`](Self::max_list_len).
    pub const fn with_max_list_len(mut self, max: usize) -> Self {
        self.max_list_len = max;
        self
    }

    /// These limits with this [`max_schema_depth`](Self::max_schema_depth).
    pub const fn with_max_schema_depth(mut self, max: usize) -> Self {
        self.max_schema_depth = max;
        self
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::Limits;

    #[test]
    fn defaults_are_the_documented_values() {
        let l = Limits::default();
        assert_eq!(l.max_metadata_size(), 256 << 20);
        assert_eq!(l.max_nesting_depth(), 64);
        assert_eq!(l.max_string_len(), 64 << 20);
        assert_eq!(l.max_list_len(), 16 << 20);
        assert_eq!(l.max_schema_depth(), 128);
    }

    #[test]
    fn each_setter_changes_its_limit_alone() {
        let l = Limits::new()
            .with_max_metadata_size(1)
            .with_max_nesting_depth(2)
            .with_max_string_len(3)
            .with_max_list_len(4);
        assert_eq!(
            (
                l.max_metadata_size(),
                l.max_nesting_depth(),
                l.max_string_len(),
                l.max_list_len(),
                l.max_schema_depth()
            ),
            (1, 2, 3, 4, Limits::DEFAULT_MAX_SCHEMA_DEPTH)
        );
        assert_eq!(l.with_max_schema_depth(5).max_schema_depth(), 5);
    }
}
