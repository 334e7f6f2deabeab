//! Checks of the counts, sizes and offsets of decoded metadata.
//!
//! The Thrift types hold them as signed integers; a negative one is a
//! corrupt file, never a value to clamp to 0 (a row group of -1 rows read
//! as empty would silently drop its rows).

use crate::error::{FormatError, Result};
use crate::{ColumnMetaData, FileMetaData};

/// Checks that no count, size or offset a reader uses is negative: the
/// file's and each row group's `num_rows`, and each column chunk's sizes
/// and page offsets. The error names the field, the row group and the
/// column.
///
/// Fields no reader needs to read a file (`RowGroup.file_offset`,
/// `total_byte_size` and `total_compressed_size`, a chunk's `num_values`,
/// which the pages and the row count say again, the index page, bloom
/// filter and page index offsets) are left alone, as other readers leave
/// them: a reader can ignore them, so they are no reason to refuse the
/// data.
///
/// ```
/// let mut md = pq_format::FileMetaData::default();
/// md.num_rows = -1;
/// let err = pq_format::check_counts(&md).unwrap_err();
/// assert_eq!(err.to_string(), "invalid Parquet metadata: negative FileMetaData.num_rows -1");
/// ```
pub fn check_counts(md: &FileMetaData) -> Result<()> {
    non_negative(md.num_rows, || "FileMetaData.num_rows".into())?;
    for (i, rg) in md.row_groups.iter().enumerate() {
        non_negative(rg.num_rows, || format!("num_rows of row group {i}"))?;
        for (c, chunk) in rg.columns.iter().enumerate() {
            if let Some(cmd) = &chunk.meta_data {
                check_column(cmd, i, c)?;
            }
        }
    }
    Ok(())
}

fn check_column(cmd: &ColumnMetaData, rg: usize, column: usize) -> Result<()> {
    let name = |field: &str| {
        format!(
            "{field} of column {column} ('{}') in row group {rg}",
            cmd.path_in_schema.join(".")
        )
    };
    non_negative(cmd.total_uncompressed_size, || {
        name("total_uncompressed_size")
    })?;
    non_negative(cmd.total_compressed_size, || name("total_compressed_size"))?;
    non_negative(cmd.data_page_offset, || name("data_page_offset"))?;
    if let Some(d) = cmd.dictionary_page_offset {
        non_negative(d, || name("dictionary_page_offset"))?;
    }
    Ok(())
}

fn non_negative(value: i64, field: impl FnOnce() -> String) -> Result<()> {
    if value < 0 {
        return Err(FormatError::Invalid(format!(
            "negative {} {value}",
            field()
        )));
    }
    Ok(())
}
