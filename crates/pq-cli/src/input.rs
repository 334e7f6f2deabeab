//! Opening input files with errors a person can act on.

use std::fs::File;
use std::path::Path;

use pq_format::{Limits, ParquetMetaData};

use crate::error::CliError;

/// Opens `path` for reading, with a clear error for a missing file, a
/// directory or an unreadable one.
pub fn open(path: &Path) -> Result<File, CliError> {
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => CliError::file(path, "no such file"),
        _ => CliError::file(path, e),
    })?;
    if meta.is_dir() {
        return Err(CliError::file(path, "is a directory, not a Parquet file"));
    }
    if meta.len() == 0 {
        return Err(CliError::file(path, "is empty, not a Parquet file"));
    }
    File::open(path).map_err(|e| CliError::file(path, e))
}

/// Reads only the footer of `path`: its metadata and schema tree.
pub fn metadata(path: &Path) -> Result<(File, ParquetMetaData), CliError> {
    let mut file = open(path)?;
    let meta = ParquetMetaData::read(&mut file, &Limits::default())
        .map_err(|e| CliError::file(path, e))?;
    Ok((file, meta))
}
