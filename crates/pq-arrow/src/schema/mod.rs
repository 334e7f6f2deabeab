//! From the Parquet schema in the footer to an Arrow schema.
//!
//! The schema tree is pq-format's [`SchemaDescriptor`], built and checked
//! once per file (its shape, depth limit, types and the LIST and MAP
//! layouts); this module maps it to Arrow types.

mod arrow_hint;
pub(crate) mod complex;
mod ipc_schema;
pub(crate) mod primitive;

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Schema, SchemaRef};
use pq_format::{KeyValue, SchemaDescriptor, SchemaError};

pub use arrow_hint::{ARROW_SCHEMA_META_KEY, decode_arrow_schema};
pub use complex::FIELD_ID_META_KEY;
pub(crate) use complex::{FieldKind, FieldNode};

use crate::error::{Error, Location, Result, schema_err};

/// A leaf column of the schema: pq-format's descriptor (path, physical
/// type, annotations, levels).
pub type LeafColumn = pq_format::ColumnDescriptor;

/// A schema error of pq-format as this crate's error, at the same column
/// and in the same words.
pub(crate) fn from_schema_error(e: SchemaError) -> Error {
    let at = e.column.map(Location::column).unwrap_or_default();
    schema_err(&at, e.message)
}

/// The Arrow schema of a Parquet schema and the footer's key-value
/// metadata (with the `ARROW:schema` hint, when there is one), as arrow-rs's
/// `parquet_to_arrow_schema` gives it.
///
/// ```
/// use pq_format::{FieldRepetitionType as R, SchemaDescriptor, SchemaElement, Type};
/// let elements = vec![
///     SchemaElement { name: "m".into(), num_children: Some(1), ..Default::default() },
///     SchemaElement { name: "x".into(), type_: Some(Type::INT64), repetition_type: Some(R::OPTIONAL), ..Default::default() },
/// ];
/// let schema = SchemaDescriptor::new(&elements, &Default::default()).unwrap();
/// let arrow = pq_arrow::schema::parquet_to_arrow_schema(&schema, None).unwrap();
/// assert_eq!(arrow.field(0).data_type(), &arrow_schema::DataType::Int64);
/// assert!(arrow.field(0).is_nullable());
/// ```
pub fn parquet_to_arrow_schema(
    schema: &SchemaDescriptor,
    key_value: Option<&[KeyValue]>,
) -> Result<SchemaRef> {
    Ok(convert(
        schema,
        key_value,
        &|_| true,
        false,
        ByteArrayOutput::default(),
    )?
    .schema)
}

/// The Arrow types BYTE_ARRAY columns (strings and binaries) are read as,
/// when the `ARROW:schema` hint does not say.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ByteArrayOutput {
    /// As `Dictionary(Int32, _)`, keeping dictionary pages' indices.
    pub(crate) dictionary: bool,
    /// As `Utf8View` and `BinaryView` (the values of a dictionary, too).
    pub(crate) views: bool,
}

/// The Arrow schema of the projected leaves, with the tree that locates each
/// field's levels.
pub(crate) struct Converted {
    pub(crate) schema: SchemaRef,
    pub(crate) root: Option<FieldNode>,
}

/// Converts the schema tree for the leaves `include` selects.
pub(crate) fn convert(
    parquet: &SchemaDescriptor,
    key_value: Option<&[KeyValue]>,
    include: &dyn Fn(usize) -> bool,
    skip_arrow_metadata: bool,
    bytes: ByteArrayOutput,
) -> Result<Converted> {
    let mut metadata: HashMap<String, String> = key_value
        .unwrap_or_default()
        .iter()
        .filter_map(|kv| kv.value.as_ref().map(|v| (kv.key.clone(), v.clone())))
        .collect();
    let hint = match metadata.remove(ARROW_SCHEMA_META_KEY) {
        Some(v) if !skip_arrow_metadata => Some(decode_arrow_schema(&v)?),
        _ => None,
    };
    if let Some(h) = &hint {
        for (k, v) in h.metadata() {
            metadata.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    let visitor = complex::Visitor {
        schema: parquet,
        include,
        bytes,
    };
    let node = visitor.convert_root(hint.as_ref().map(|s| s.fields()))?;
    let fields = match &node {
        Some(FieldNode {
            arrow_type: DataType::Struct(f),
            ..
        }) => f.clone(),
        _ => Default::default(),
    };
    Ok(Converted {
        schema: Arc::new(Schema::new_with_metadata(fields, metadata)),
        root: node,
    })
}
