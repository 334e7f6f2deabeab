//! `pq schema --json`: the Parquet schema tree and the Arrow schema pq reads
//! it as, for programs.

use std::io::Write;
use std::path::Path;

use arrow_schema::{DataType, Field};
use pq_format::{FieldRepetitionType, NodeKind, SchemaDescriptor, Type};
use serde_json::{Value, json};

use crate::error::CliError;
use crate::input;
use crate::read;
use crate::schema::logical;
use crate::sources::Source;
use crate::values::name;

/// One file's schemas as a JSON object (naming the file when `file`).
fn document(path: &Path, file: bool) -> Result<Value, CliError> {
    let (input, meta) = input::metadata(path)?;
    let reader = read::open_input(path, input.reopen(path)?, None)?;
    let schema = &meta.schema;
    let mut doc = serde_json::Map::new();
    if file {
        doc.insert("file".into(), json!(path.to_string_lossy()));
    }
    doc.insert("parquet".into(), node(schema, 0));
    let arrow = reader.arrow_schema();
    doc.insert(
        "arrow".into(),
        json!({ "fields": arrow.fields().iter().map(|f| field(f)).collect::<Vec<_>>() }),
    );
    Ok(Value::Object(doc))
}

/// Prints the schemas of the files: one document for one file, an array
/// of them for several.
pub fn run(sources: &[Source], out: &mut impl Write) -> Result<(), CliError> {
    let value = if let [one] = sources {
        document(&one.path, false)?
    } else {
        Value::Array(
            sources
                .iter()
                .map(|s| document(&s.path, true))
                .collect::<Result<_, _>>()?,
        )
    };
    serde_json::to_writer_pretty(&mut *out, &value).map_err(std::io::Error::from)?;
    writeln!(out)?;
    Ok(())
}

fn repetition(r: Option<FieldRepetitionType>) -> Value {
    match r {
        Some(FieldRepetitionType::REQUIRED) => json!("REQUIRED"),
        Some(FieldRepetitionType::OPTIONAL) => json!("OPTIONAL"),
        Some(FieldRepetitionType::REPEATED) => json!("REPEATED"),
        Some(other) => json!(name(other)),
        None => Value::Null,
    }
}

/// A node of the Parquet schema tree and its children.
fn node(schema: &SchemaDescriptor, index: usize) -> Value {
    let Some(n) = schema.node(index) else {
        return Value::Null;
    };
    let mut o = serde_json::Map::new();
    o.insert("name".into(), json!(n.name.as_str()));
    o.insert("repetition".into(), repetition(n.repetition));
    o.insert(
        "logical_type".into(),
        n.logical_type
            .as_ref()
            .map_or(Value::Null, |l| json!(logical(l))),
    );
    o.insert(
        "converted_type".into(),
        n.converted_type.map_or(Value::Null, |c| json!(name(c))),
    );
    o.insert("field_id".into(), json!(n.field_id));
    o.insert("max_definition_level".into(), json!(n.max_def_level));
    o.insert("max_repetition_level".into(), json!(n.max_rep_level));
    match &n.kind {
        NodeKind::Group { children } => {
            o.insert(
                "children".into(),
                Value::Array(children.iter().map(|&c| node(schema, c)).collect()),
            );
        }
        NodeKind::Primitive { column } => {
            if let Some(c) = schema.column(*column) {
                o.insert("path".into(), json!(c.path_string()));
                o.insert("physical_type".into(), json!(name(c.physical_type)));
                if c.physical_type == Type::FIXED_LEN_BYTE_ARRAY {
                    o.insert("type_length".into(), json!(c.type_length));
                }
                if let Some(p) = c.precision {
                    o.insert("precision".into(), json!(p));
                }
                if let Some(s) = c.scale {
                    o.insert("scale".into(), json!(s));
                }
            }
        }
    }
    Value::Object(o)
}

/// An Arrow field: its type as Arrow names it, nested fields as children.
fn field(f: &Field) -> Value {
    let (type_name, children): (String, Vec<&Field>) = match f.data_type() {
        DataType::List(c) => ("List".into(), vec![c.as_ref()]),
        DataType::LargeList(c) => ("LargeList".into(), vec![c.as_ref()]),
        DataType::FixedSizeList(c, n) => (format!("FixedSizeList({n})"), vec![c.as_ref()]),
        DataType::Map(c, _) => ("Map".into(), vec![c.as_ref()]),
        DataType::Struct(fields) => ("Struct".into(), fields.iter().map(|c| c.as_ref()).collect()),
        t => (t.to_string(), Vec::new()),
    };
    let mut o = serde_json::Map::new();
    o.insert("name".into(), json!(f.name()));
    o.insert("data_type".into(), json!(type_name));
    o.insert("nullable".into(), json!(f.is_nullable()));
    if !children.is_empty() {
        o.insert(
            "children".into(),
            Value::Array(children.into_iter().map(field).collect()),
        );
    }
    if !f.metadata().is_empty() {
        let metadata: serde_json::Map<String, Value> = f
            .metadata()
            .iter()
            .map(|(k, v)| (k.to_string(), json!(v.to_string())))
            .collect();
        o.insert("metadata".into(), Value::Object(metadata));
    }
    Value::Object(o)
}
