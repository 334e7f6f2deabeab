//! Hand-written conveniences on generated types.

use crate::{ColumnChunk, DataPageHeaderV2};

impl DataPageHeaderV2 {
    /// Whether the values section is compressed (the IDL default is `true`
    /// when the field is absent).
    ///
    /// ```
    /// let h = pq_format::DataPageHeaderV2::default();
    /// assert!(h.values_compressed());
    /// ```
    pub fn values_compressed(&self) -> bool {
        self.is_compressed.unwrap_or(true)
    }
}

impl ColumnChunk {
    /// Whether this chunk carries encryption metadata.
    pub fn is_encrypted(&self) -> bool {
        self.crypto_metadata.is_some() || self.encrypted_column_metadata.is_some()
    }
}
