//! Where a column chunk's bytes are in the file.

use std::ops::Range;

use pq_format::ColumnMetaData;

use crate::error::{Error, ErrorKind, Location, Result};

/// The most a dictionary page header can take; old parquet-mr writers left
/// it out of the chunk's size.
const MAX_DICT_HEADER_SIZE: u64 = 100;

/// The byte range of a column chunk in a file of `file_len` bytes.
///
/// The chunk starts at its dictionary page when `dictionary_page_offset` is
/// set, and at `data_page_offset` otherwise. A `dictionary_page_offset` of 0
/// is "absent", as parquet-mr writes it (the dictionary page, if any, is then
/// the first page at `data_page_offset`). Files from parquet-mr 1.2.8 and
/// earlier did not count the dictionary page header in
/// `total_compressed_size`; as other readers do, the range is widened by up
/// to 100 bytes (within the file) for them, and the page reader stops once it
/// has seen the chunk's values, so the extra bytes are never parsed.
pub fn column_chunk_range(
    meta: &ColumnMetaData,
    file_len: u64,
    created_by: Option<&str>,
) -> Result<Range<u64>> {
    let column = meta.path_in_schema.join(".");
    // The location is the chunk's first byte as far as it is known.
    let err_at = |offset: Option<u64>, msg: String| Error {
        kind: ErrorKind::ChunkRange(msg),
        location: Box::new(Location {
            column: Some(column.clone()),
            file_offset: offset,
            ..Location::default()
        }),
    };
    let err = |msg: String| err_at(None, msg);
    // The dictionary page comes first when there is one. A data page offset
    // at or before the dictionary's is bogus (writers put 0 there for chunks
    // of no values), so the dictionary offset wins then too.
    let start = match meta.dictionary_page_offset {
        Some(d) if d > 0 && (d < meta.data_page_offset || meta.data_page_offset <= 0) => d,
        _ => meta.data_page_offset,
    };
    let start = u64::try_from(start).map_err(|_| err(format!("negative chunk offset {start}")))?;
    let len = u64::try_from(meta.total_compressed_size).map_err(|_| {
        err(format!(
            "negative total_compressed_size {}",
            meta.total_compressed_size
        ))
    })?;
    let end = start.checked_add(len).ok_or_else(|| {
        err_at(
            Some(start),
            format!("chunk offset {start} + size {len} overflows"),
        )
    })?;
    if end > file_len {
        return Err(err_at(
            Some(start),
            format!("chunk at {start}..{end} runs past the end of the file ({file_len} bytes)"),
        ));
    }
    let end = if written_before_parquet_816_fix(created_by) {
        end.saturating_add(MAX_DICT_HEADER_SIZE).min(file_len)
    } else {
        end
    };
    Ok(start..end)
}

/// Whether `created_by` names parquet-mr older than 1.2.9, whose chunk sizes
/// leave out the dictionary page header (PARQUET-816).
fn written_before_parquet_816_fix(created_by: Option<&str>) -> bool {
    let Some(created_by) = created_by else {
        return false;
    };
    let mut words = created_by.split_whitespace();
    if words.next() != Some("parquet-mr") {
        return false;
    }
    // "parquet-mr version 1.2.8 (build ...)"; no version at all counts as
    // older, as in parquet-cpp.
    let version = match (words.next(), words.next()) {
        (Some("version"), Some(v)) => v,
        _ => return true,
    };
    let mut parts = version
        .split(|c: char| !c.is_ascii_digit())
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let v = (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    );
    v < (1, 2, 9)
}

#[cfg(test)]
mod tests {
    use super::written_before_parquet_816_fix as old;

    #[test]
    fn parquet_816_versions() {
        assert!(old(Some("parquet-mr")));
        assert!(old(Some("parquet-mr version 1.2.8")));
        assert!(!old(Some("parquet-mr version 1.2.9")));
        assert!(!old(Some("parquet-mr version 1.12.0-2018 (build abc)")));
        assert!(!old(Some("parquet-cpp-arrow version 14.0.2")));
        assert!(!old(None));
    }
}
