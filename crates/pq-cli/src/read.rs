//! Opening a file with the pq reader, with a column selection checked first.

use std::path::Path;

use pq_arrow::ParquetReader;

use crate::error::CliError;
use crate::input::{self, Input};

/// Opens `path` with the pq reader (footer only). With `columns`, checks
/// that each names a top-level field or a dotted path of a nested field or
/// leaf, and selects them; an unknown name is an error listing the columns.
pub fn open(path: &Path, columns: Option<&[String]>) -> Result<ParquetReader, CliError> {
    open_input(path, input::open_parquet(path)?, columns)
}

/// [`open`] on an input already opened: a file is read in place, bytes in
/// memory without a copy.
pub fn open_input(
    path: &Path,
    input: Input,
    columns: Option<&[String]>,
) -> Result<ParquetReader, CliError> {
    let reader = match input {
        Input::Memory(bytes) => ParquetReader::from_bytes(bytes.into_inner()),
        file => ParquetReader::from_reader(file),
    }
    .map_err(|e| CliError::file(path, e))?;
    let Some(columns) = columns else {
        return Ok(reader);
    };
    for name in columns {
        let parts: Vec<&str> = name.split('.').collect();
        let known = reader.leaf_columns().iter().any(|leaf| {
            leaf.path.len() >= parts.len() && leaf.path.iter().zip(&parts).all(|(a, b)| a == b)
        });
        if !known {
            return Err(unknown_column(path, name, &reader));
        }
    }
    Ok(reader.with_columns(columns))
}

/// The error for a column name the file does not have.
fn unknown_column(path: &Path, name: &str, reader: &ParquetReader) -> CliError {
    let schema = reader.arrow_schema();
    let mut known: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    for leaf in reader.leaf_columns() {
        let dotted = leaf.dotted();
        if !known.contains(&dotted) {
            known.push(dotted);
        }
    }
    CliError::file(
        path,
        format!("no column '{name}'; columns are: {}", known.join(", ")),
    )
}

/// Splits `--columns a,b.c` values (possibly repeated) into names.
pub fn split_columns(columns: &[String]) -> Option<Vec<String>> {
    if columns.is_empty() {
        return None;
    }
    Some(
        columns
            .iter()
            .flat_map(|c| c.split(','))
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(String::from)
            .collect(),
    )
}

/// An Arrow error as a CLI error: a closed stdout stops quietly.
pub fn arrow_err(path: &Path, e: arrow_schema::ArrowError) -> CliError {
    match e {
        arrow_schema::ArrowError::IoError(_, io) => {
            if io.kind() == std::io::ErrorKind::BrokenPipe {
                CliError::BrokenPipe
            } else {
                CliError::from(io)
            }
        }
        e => CliError::file(path, e),
    }
}
