//! From the Parquet schema in the footer to an Arrow schema.

mod arrow_hint;
pub(crate) mod complex;
pub(crate) mod parquet;
pub(crate) mod primitive;

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Schema, SchemaRef};
use pq_format::KeyValue;

pub use arrow_hint::{ARROW_SCHEMA_META_KEY, decode_arrow_schema};
pub use complex::FIELD_ID_META_KEY;
pub(crate) use complex::{FieldKind, FieldNode};
pub use parquet::{LeafColumn, ParquetNode, Repetition};

use crate::error::Result;

/// The Arrow schema of the projected leaves, with the tree that locates each
/// field's levels.
pub(crate) struct Converted {
    pub(crate) schema: SchemaRef,
    pub(crate) root: Option<FieldNode>,
}

/// Converts the schema tree for the leaves `include` selects.
pub(crate) fn convert(
    root: &ParquetNode,
    key_value: Option<&[KeyValue]>,
    include: &dyn Fn(usize) -> bool,
    skip_arrow_metadata: bool,
    dictionary: bool,
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
    let mut visitor = complex::Visitor {
        include,
        dictionary,
    };
    let node = visitor.convert_root(root, hint.as_ref().map(|s| s.fields()))?;
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
