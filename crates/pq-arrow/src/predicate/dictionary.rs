//! A column chunk's dictionary as an array of the column's values, for
//! predicates to test: when every data page of the chunk is
//! dictionary-encoded, no row holds a value outside it.

use arrow_array::ArrayRef;
use arrow_schema::DataType;
use bytes::Bytes;
use pq_format::{ColumnDescriptor, ColumnMetaData, Encoding, PageType, Type};
use pq_page::{ChunkContext, Page, PageOptions, PageReader};

fn is_dictionary(e: Encoding) -> bool {
    e == Encoding::PLAIN_DICTIONARY || e == Encoding::RLE_DICTIONARY
}

/// Whether every data page of the chunk is dictionary-encoded: from the
/// page encoding counts when the writer gave them, else from the list of
/// encodings when it names no other value encoding (PLAIN there may be the
/// dictionary page's own, so it leaves the question open).
pub(crate) fn all_pages_use_dictionary(meta: &ColumnMetaData) -> bool {
    match meta.encoding_stats.as_deref() {
        Some(stats) if !stats.is_empty() => {
            let data = |s: &&pq_format::PageEncodingStats| {
                s.page_type == PageType::DATA_PAGE || s.page_type == PageType::DATA_PAGE_V2
            };
            stats
                .iter()
                .filter(data)
                .all(|s| is_dictionary(s.encoding) || s.count == 0)
                && stats.iter().filter(data).any(|s| s.count > 0)
        }
        _ => {
            meta.encodings.iter().any(|&e| is_dictionary(e))
                && meta
                    .encodings
                    .iter()
                    .all(|&e| is_dictionary(e) || e == Encoding::RLE || e == Encoding::BIT_PACKED)
        }
    }
}

/// The byte range of the chunk's dictionary page (header and body), when
/// the metadata places it before the first data page.
pub(crate) fn dictionary_range(meta: &ColumnMetaData) -> Option<(u64, u64)> {
    let start = u64::try_from(meta.dictionary_page_offset?).ok()?;
    let end = u64::try_from(meta.data_page_offset).ok()?;
    (start > 0 && start < end).then_some((start, end))
}

/// The dictionary page at the start of `bytes` as an array of `dt`.
/// `None` when it does not read: the caller then does without it.
pub(crate) fn dictionary_values(
    bytes: Bytes,
    meta: &ColumnMetaData,
    leaf: &ColumnDescriptor,
    dt: &DataType,
    file_offset: u64,
    options: &PageOptions,
) -> Option<ArrayRef> {
    let ctx = ChunkContext {
        codec: pq_compress::Codec::from_thrift(meta.codec.0).ok()?,
        num_values: u64::try_from(meta.num_values).ok()?,
        max_def_level: leaf.max_def_level,
        max_rep_level: leaf.max_rep_level,
        file_offset,
        column: leaf.dotted(),
    };
    let mut pages = PageReader::new(bytes, ctx, options);
    let Ok(Some(Page::Dictionary(d))) = pages.next_page() else {
        return None;
    };
    let buf = &d.buf[..];
    let n = d.num_values;
    let items: Vec<&[u8]> = match leaf.physical_type {
        Type::BYTE_ARRAY => {
            let mut items = Vec::with_capacity(n.min(buf.len() / 4));
            let mut rest = buf;
            for _ in 0..n {
                let (len, tail) = rest.split_first_chunk::<4>()?;
                let len = usize::try_from(u32::from_le_bytes(*len)).ok()?;
                let (value, tail) = tail.split_at_checked(len)?;
                items.push(value);
                rest = tail;
            }
            items
        }
        Type::INT32 | Type::FLOAT | Type::INT64 | Type::DOUBLE | Type::FIXED_LEN_BYTE_ARRAY => {
            let width = match leaf.physical_type {
                Type::INT32 | Type::FLOAT => 4,
                Type::INT64 | Type::DOUBLE => 8,
                _ => usize::try_from(leaf.type_length?).ok().filter(|&w| w > 0)?,
            };
            if buf.len() / width < n {
                return None;
            }
            buf.chunks_exact(width).take(n).collect()
        }
        _ => return None,
    };
    super::plain::plain_array(&items, leaf, dt)
}
