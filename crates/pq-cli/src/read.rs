//! Opening a file with the pq reader, with a column selection checked first.

use std::path::Path;

use arrow_schema::FieldRef;
use pq_arrow::{ParquetReader, ProjectionMask};
use pq_format::ColumnPath;

use crate::error::CliError;
use crate::input::Input;

/// Opens an input with the pq reader (footer only): a file is read in
/// place, bytes in memory without a copy. With `columns`, checks that each
/// names a top-level field or a dotted path of a nested field or leaf, and
/// selects them (see [`column_paths`]); an unknown name is an error listing
/// the columns.
pub fn open_input(
    path: &Path,
    input: Input,
    columns: Option<&[String]>,
) -> Result<ParquetReader, CliError> {
    let reader = match input {
        Input::Memory(bytes) => ParquetReader::from_bytes(bytes.into_inner()),
        // Read at positions, by every decoding thread.
        Input::File { file, .. } => ParquetReader::from_file(file),
        remote => ParquetReader::from_reader(remote),
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
    let mut paths = Vec::new();
    for name in columns {
        let found = column_paths(&reader, name);
        if found.is_empty() {
            return Err(unknown_column(path, name, &reader));
        }
        paths.extend(found);
    }
    let mask = ProjectionMask::columns(reader.parquet_schema(), paths);
    Ok(reader.with_projection(mask))
}

/// The fields a `--columns` name selects: the top-level field of exactly
/// that name if there is one (a name may hold a dot), else every field
/// whose path, joined with dots, is the name (so `a.b.c` also finds a
/// field `b.c` of `a`).
fn column_paths(reader: &ParquetReader, name: &str) -> Vec<ColumnPath> {
    let leaves = reader.leaf_columns();
    if leaves
        .iter()
        .any(|leaf| leaf.path.first().is_some_and(|top| top == name))
    {
        return vec![ColumnPath::from(&[name][..])];
    }
    let mut out: Vec<ColumnPath> = Vec::new();
    for leaf in leaves {
        let parts: Vec<&str> = leaf.path.iter().collect();
        for k in 1..=parts.len() {
            let prefix = &parts[..k];
            if prefix.join(".") == name {
                let p = ColumnPath::from(prefix);
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    }
    out
}

/// The top-level field a `--columns` name is in, among `fields`: the name
/// itself when a field has it (a name may hold a dot), else its part
/// before the first dot.
pub fn top_name<'a>(name: &'a str, fields: &[FieldRef]) -> &'a str {
    if fields.iter().any(|f| f.name() == name) {
        return name;
    }
    name.split('.').next().unwrap_or(name)
}

/// The error for a column name the file does not have.
fn unknown_column(path: &Path, name: &str, reader: &ParquetReader) -> CliError {
    let schema = reader.schema();
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
        let top = top_name(name, schema.fields());
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
