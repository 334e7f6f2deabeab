//! Decoded pages: what the page reader hands to the layers above.

use bytes::Bytes;
use pq_format::Encoding;

use crate::levels::Levels;

/// One page of a column chunk, decompressed.
#[derive(Debug, Clone)]
pub enum Page {
    /// The dictionary of the chunk; at most one, before every data page.
    Dictionary(DictionaryPage),
    /// Values, with their levels.
    Data(DataPage),
}

/// A dictionary page: the distinct values data pages refer to by index.
#[derive(Debug, Clone)]
pub struct DictionaryPage {
    /// The values, encoded as `encoding` says (PLAIN in every writer).
    pub buf: Bytes,
    /// How many values `buf` holds.
    pub num_values: usize,
    /// PLAIN or the legacy PLAIN_DICTIONARY, which means the same here.
    pub encoding: Encoding,
    /// Whether the writer says the values are sorted.
    pub is_sorted: bool,
    /// The page's ordinal within the chunk.
    pub index: usize,
    /// The absolute file offset of the page header.
    pub file_offset: u64,
}

/// A data page (v1 or v2), decompressed, its levels split off.
#[derive(Debug, Clone)]
pub struct DataPage {
    /// Levels in the page: values plus nulls (plus, when repeated, empty
    /// lists).
    pub num_values: usize,
    /// Nulls, when the header says (v2 always does).
    pub num_nulls: Option<usize>,
    /// Rows, when the header says (v2 always does).
    pub num_rows: Option<usize>,
    /// How the non-null values are encoded.
    pub encoding: Encoding,
    /// The repetition levels.
    pub rep_levels: Levels,
    /// The definition levels.
    pub def_levels: Levels,
    /// The encoded non-null values.
    pub values: Bytes,
    /// The page's ordinal within the chunk.
    pub index: usize,
    /// The absolute file offset of the page header.
    pub file_offset: u64,
    /// Whether this is a data page v2.
    pub is_v2: bool,
}
