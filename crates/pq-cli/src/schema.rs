//! `pq schema`: the Parquet schema tree.

use std::io::Write;
use std::path::Path;

use pq_format::{FieldRepetitionType, LogicalType, NodeKind, SchemaDescriptor, TimeUnit, Type};

use crate::error::CliError;
use crate::input;
use crate::values::name;

/// Prints the schema of `path`: the tree in the usual message syntax, then
/// every leaf column with its max levels.
pub fn run(path: &Path, out: &mut impl Write) -> Result<(), CliError> {
    let (_, meta) = input::metadata(path)?;
    let schema = &meta.schema;
    writeln!(out, "message {} {{", schema.root().name)?;
    for &child in schema.root().children() {
        write_node(schema, child, 1, out)?;
    }
    writeln!(out, "}}")?;
    writeln!(out)?;
    writeln!(
        out,
        "columns (path: physical type, max definition level, max repetition level):"
    )?;
    for c in schema.columns() {
        writeln!(
            out,
            "  {}: {}, def {}, rep {}",
            c.path_string(),
            name(c.physical_type),
            c.max_def_level,
            c.max_rep_level
        )?;
    }
    Ok(())
}

fn write_node(
    schema: &SchemaDescriptor,
    index: usize,
    depth: usize,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let Some(node) = schema.node(index) else {
        return Ok(());
    };
    let indent = "  ".repeat(depth);
    let repetition = match node.repetition {
        Some(FieldRepetitionType::REQUIRED) => "required".to_string(),
        Some(FieldRepetitionType::OPTIONAL) => "optional".to_string(),
        Some(FieldRepetitionType::REPEATED) => "repeated".to_string(),
        Some(other) => name(other).to_lowercase(),
        None => String::new(),
    };
    let annotation = match (&node.logical_type, node.converted_type) {
        (Some(l), _) => format!(" ({})", logical(l)),
        (None, Some(c)) => format!(" ({})", name(c)),
        (None, None) => String::new(),
    };
    let field_id = node
        .field_id
        .map(|id| format!(" = {id}"))
        .unwrap_or_default();
    match &node.kind {
        NodeKind::Group { children } => {
            writeln!(
                out,
                "{indent}{repetition} group {}{field_id}{annotation} {{",
                node.name
            )?;
            for &child in children {
                write_node(schema, child, depth + 1, out)?;
            }
            writeln!(out, "{indent}}}")?;
        }
        NodeKind::Primitive { column } => {
            let Some(c) = schema.column(*column) else {
                return Ok(());
            };
            let physical = match c.physical_type {
                Type::FIXED_LEN_BYTE_ARRAY => format!("fixed_len_byte_array({})", c.fixed_width()),
                t => name(t).to_lowercase(),
            };
            writeln!(
                out,
                "{indent}{repetition} {physical} {}{field_id}{annotation};",
                node.name
            )?;
        }
    }
    Ok(())
}

/// A logical type in the notation of the format's documentation.
pub fn logical(l: &LogicalType) -> String {
    let unit = |u: &TimeUnit| match u {
        TimeUnit::Millis(_) => "MILLIS",
        TimeUnit::Micros(_) => "MICROS",
        TimeUnit::Nanos(_) => "NANOS",
        _ => "UNKNOWN_UNIT",
    };
    match l {
        LogicalType::String(_) => "STRING".into(),
        LogicalType::Map(_) => "MAP".into(),
        LogicalType::List(_) => "LIST".into(),
        LogicalType::Enum(_) => "ENUM".into(),
        LogicalType::Decimal(d) => format!("DECIMAL({},{})", d.precision, d.scale),
        LogicalType::Date(_) => "DATE".into(),
        LogicalType::Time(t) => format!("TIME({},{})", unit(&t.unit), t.is_adjusted_to_utc),
        LogicalType::Timestamp(t) => {
            format!("TIMESTAMP({},{})", unit(&t.unit), t.is_adjusted_to_utc)
        }
        LogicalType::Integer(i) => format!("INTEGER({},{})", i.bit_width, i.is_signed),
        LogicalType::Unknown(_) => "UNKNOWN".into(),
        LogicalType::Json(_) => "JSON".into(),
        LogicalType::Bson(_) => "BSON".into(),
        LogicalType::Uuid(_) => "UUID".into(),
        LogicalType::Float16(_) => "FLOAT16".into(),
        LogicalType::Variant(_) => "VARIANT".into(),
        LogicalType::Geometry(_) => "GEOMETRY".into(),
        LogicalType::Geography(_) => "GEOGRAPHY".into(),
        other => format!("{other:?}"),
    }
}
