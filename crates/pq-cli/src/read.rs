//! Opening a file with the pq reader, with a column selection checked first.

use std::path::Path;

use pq_arrow::ParquetReader;

use crate::error::CliError;
use crate::input::Input;

/// Opens an input with the pq reader (footer only): a file is read in
/// place, bytes in memory without a copy. With `columns`, checks that each
/// names a top-level field or a dotted path of a nested field or leaf, and
/// selects them; an unknown name is an error listing the columns.
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
    select(path, reader, columns)
}

/// Selects `columns` of `reader` (all when `None`), each checked as
/// [`open_input`] says.
pub fn select(
    path: &Path,
    reader: ParquetReader,
    columns: Option<&[String]>,
) -> Result<ParquetReader, CliError> {
    let Some(columns) = columns else {
        return Ok(reader);
    };
    for name in columns {
        let parts: Vec<&str> = name.split('.').collect();
        let known = reader.leaf_columns().iter().any(|leaf| {
            leaf.path.len() >= parts.len() && leaf.path.iter().zip(&parts).all(|(a, b)| a == *b)
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

/// Splits `--columns a,b.c` values (possibly repeated) into names, in the
/// order given. An empty name (`--columns city,`) is a usage error: it is
/// most often a typing slip, and reading all columns instead would hide it.
pub fn split_columns(columns: &[String]) -> Result<Option<Vec<String>>, CliError> {
    if columns.is_empty() {
        return Ok(None);
    }
    let mut names = Vec::new();
    for given in columns {
        for name in given.split(',').map(str::trim) {
            if name.is_empty() {
                return Err(CliError::Usage(format!(
                    "--columns '{given}': empty column name"
                )));
            }
            names.push(name.to_string());
        }
    }
    Ok(Some(names))
}

/// The indices of `schema`'s top-level fields in the order `columns` names
/// them (a dotted path counts for its top-level field): the reader returns
/// a file's columns in the file's order, and `--columns b,a` asks for `b`
/// first.
pub fn requested_order(schema: &arrow_schema::Schema, columns: &[String]) -> Vec<usize> {
    let mut order = Vec::with_capacity(schema.fields().len());
    for name in columns {
        let top = name.split('.').next().unwrap_or(name);
        if let Some(i) = schema.fields().iter().position(|f| f.name() == top)
            && !order.contains(&i)
        {
            order.push(i);
        }
    }
    for i in 0..schema.fields().len() {
        if !order.contains(&i) {
            order.push(i);
        }
    }
    order
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
