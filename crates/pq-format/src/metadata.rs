//! Decoded metadata together with its validated schema tree.

use std::io::{Read, Seek};
use std::path::Path;

use crate::error::{FormatError, Result};
use crate::{FileMetaData, Limits, SchemaDescriptor};

/// A file's decoded `FileMetaData` with its validated schema tree.
///
/// Built once per file, it is what every reader of the file (the Arrow
/// reader, the command line) takes its schema from. Building it checks,
/// beyond decoding, that the schema is a valid tree,
/// that every row group has one column chunk per leaf column and that no
/// count, size or offset is negative.
///
/// ```no_run
/// let md = pq_format::ParquetMetaData::read_path("data.parquet", &Default::default())?;
/// for col in md.schema.columns() {
///     println!("{} {:?}", col.path_string(), col.physical_type);
/// }
/// # Ok::<(), pq_format::FormatError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ParquetMetaData {
    /// The footer as decoded.
    pub file: FileMetaData,
    /// The schema tree.
    pub schema: SchemaDescriptor,
}

/// The footer's fields read straight through (`md.row_groups`,
/// `md.key_value_metadata`, ...).
impl std::ops::Deref for ParquetMetaData {
    type Target = FileMetaData;

    fn deref(&self) -> &FileMetaData {
        &self.file
    }
}

impl ParquetMetaData {
    /// Validate decoded metadata and build its schema tree. Negative
    /// counts, sizes and offsets are refused ([`crate::check_counts`]).
    pub fn new(file: FileMetaData, limits: &Limits) -> Result<Self> {
        crate::check_counts(&file)?;
        let schema = SchemaDescriptor::new(&file.schema, limits)?;
        for (i, rg) in file.row_groups.iter().enumerate() {
            if rg.columns.len() != schema.num_columns() {
                return Err(FormatError::Invalid(format!(
                    "row group {i} has {} column chunks but the schema has {} leaf columns",
                    rg.columns.len(),
                    schema.num_columns()
                )));
            }
        }
        Ok(Self { file, schema })
    }

    /// Read the metadata of the file at `path` (only its footer is read).
    pub fn read_path(path: impl AsRef<Path>, limits: &Limits) -> Result<Self> {
        Self::new(crate::read_metadata_from_path(path, limits)?, limits)
    }

    /// Read the metadata through `Read + Seek` (only the footer is read).
    pub fn read<R: Read + Seek>(reader: &mut R, limits: &Limits) -> Result<Self> {
        Self::new(crate::read_metadata(reader, limits)?, limits)
    }

    /// Read the metadata of a whole file held in [`bytes::Bytes`] (binary
    /// values are zero-copy slices of it).
    pub fn from_bytes(file: &bytes::Bytes, limits: &Limits) -> Result<Self> {
        Self::new(crate::read_metadata_from_bytes(file, limits)?, limits)
    }

    /// Read the metadata of a whole file held in a slice.
    pub fn from_slice(file: &[u8], limits: &Limits) -> Result<Self> {
        Self::new(crate::read_metadata_from_slice(file, limits)?, limits)
    }
}
