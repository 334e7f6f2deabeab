//! The Arrow schema of a Parquet schema tree, nested types included.
//!
//! Follows the backward-compatibility rules of LogicalTypes.md for lists
//! and maps (two-level lists, repeated fields without annotation, the
//! `array` and `*_tuple` names, maps without values) the way the arrow-rs
//! `parquet` crate applies them, so that both readers give the same schema.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields};
use pq_format::{
    FieldRepetitionType, ListLayout, MapEntries, NodeKind, SchemaDescriptor, SchemaNode,
};

use super::from_schema_error;
use super::primitive::convert_primitive;
use crate::error::{Location, Result, schema_err};

/// The metadata key under which a Parquet field id is kept on Arrow fields.
pub const FIELD_ID_META_KEY: &str = "PARQUET:field_id";

/// One node of the Arrow view of the schema, with the levels that locate it.
#[derive(Debug, Clone)]
pub struct FieldNode {
    /// The repetition level of an insertion into this node's list.
    pub rep_level: i16,
    /// The definition level at which this node is fully defined.
    pub def_level: i16,
    /// Whether the Arrow field is nullable.
    pub nullable: bool,
    /// The Arrow type.
    pub arrow_type: DataType,
    /// Leaf or group.
    pub kind: FieldKind,
}

/// Leaf or group.
#[derive(Debug, Clone)]
pub enum FieldKind {
    /// A leaf column, by index among all leaves of the file.
    Leaf {
        /// Leaf index.
        column_index: usize,
    },
    /// Children: one for a list, two for a map, any number for a struct.
    Group(Vec<FieldNode>),
}

impl FieldNode {
    fn into_list(self, name: &str) -> FieldNode {
        FieldNode {
            rep_level: self.rep_level,
            def_level: self.def_level,
            nullable: false,
            arrow_type: DataType::List(Arc::new(Field::new(name, self.arrow_type.clone(), false))),
            kind: FieldKind::Group(vec![self]),
        }
    }

    /// A repeated field outside a LIST or MAP group is a required list of
    /// itself: of the hint's list type when there is a hint to follow.
    fn repeated_as_list(self, node: &SchemaNode, ctx: Ctx, at: &Location) -> Result<FieldNode> {
        Ok(if !node.is_repeated() {
            self
        } else if ctx.treat_repeated_as_list_hint {
            self.into_list_with_hint(node, ctx.data_type, at)?
        } else {
            self.into_list(&node.name)
        })
    }

    fn into_list_with_hint(
        self,
        node: &SchemaNode,
        list_type: Option<DataType>,
        at: &Location,
    ) -> Result<FieldNode> {
        let hint_field = match &list_type {
            Some(DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _)) => {
                Some(f.as_ref())
            }
            Some(_) => return Err(schema_err(at, "list hint expected")),
            None => None,
        };
        let field = Arc::new(convert_field(node, &self, hint_field, false).with_nullable(false));
        let arrow_type = match list_type {
            Some(DataType::LargeList(_)) => DataType::LargeList(field),
            Some(DataType::FixedSizeList(_, n)) => DataType::FixedSizeList(field, n),
            _ => DataType::List(field),
        };
        Ok(FieldNode {
            rep_level: self.rep_level,
            def_level: self.def_level,
            nullable: false,
            arrow_type,
            kind: FieldKind::Group(vec![self]),
        })
    }
}

#[derive(Clone)]
struct Ctx {
    rep_level: i16,
    def_level: i16,
    data_type: Option<DataType>,
    treat_repeated_as_list_hint: bool,
    path: Vec<String>,
}

impl Ctx {
    fn levels(&self, r: FieldRepetitionType) -> (i16, i16, bool) {
        match r {
            FieldRepetitionType::OPTIONAL => (self.def_level + 1, self.rep_level, true),
            FieldRepetitionType::REPEATED => (self.def_level + 1, self.rep_level + 1, false),
            // The tree has only the three repetitions; the root is required.
            _ => (self.def_level, self.rep_level, false),
        }
    }

    fn at(&self) -> Location {
        Location::column(self.path.join("."))
    }
}

fn child_path(ctx: &Ctx, name: &str) -> Vec<String> {
    let mut p = ctx.path.clone();
    p.push(name.to_string());
    p
}

/// Which leaves to include.
pub(crate) struct Visitor<'a> {
    pub(crate) schema: &'a SchemaDescriptor,
    pub(crate) include: &'a dyn Fn(usize) -> bool,
    /// How byte-array columns are read.
    pub(crate) bytes: super::ByteArrayOutput,
}

fn list_hint_field(dt: &Option<DataType>, what: &str, at: &Location) -> Result<Option<Field>> {
    match dt {
        Some(DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _)) => {
            Ok(Some(f.as_ref().clone()))
        }
        Some(d) => Err(schema_err(
            at,
            format!("incompatible arrow schema, expected list got {d} for repeated {what} field"),
        )),
        None => Ok(None),
    }
}

impl Visitor<'_> {
    fn node(&self, index: usize) -> Result<&SchemaNode> {
        self.schema
            .node(index)
            .ok_or_else(|| schema_err(&Location::default(), format!("no schema node {index}")))
    }

    fn visit_primitive(&self, index: usize, ctx: Ctx) -> Result<Option<FieldNode>> {
        let node = self.node(index)?;
        let NodeKind::Primitive { column } = node.kind else {
            return Err(schema_err(&ctx.at(), "expected a primitive field"));
        };
        if !(self.include)(column) {
            return Ok(None);
        }
        let at = Location::column(child_path(&ctx, &node.name).join("."));
        let Some(leaf) = self.schema.column(column) else {
            return Err(schema_err(&at, format!("no leaf column {column}")));
        };
        let repetition = node.repetition_or_required();
        let repeated = repetition == FieldRepetitionType::REPEATED;
        let (def_level, rep_level, nullable) = ctx.levels(repetition);
        let hint = if repeated && ctx.treat_repeated_as_list_hint {
            list_hint_field(&ctx.data_type, "primitive", &at)?.map(|f| f.data_type().clone())
        } else {
            ctx.data_type.clone()
        };
        let mut arrow_type = convert_primitive(leaf, hint, &at)?;
        if self.bytes.views {
            arrow_type = match arrow_type {
                DataType::Utf8 | DataType::LargeUtf8 => DataType::Utf8View,
                DataType::Binary | DataType::LargeBinary => DataType::BinaryView,
                other => other,
            };
        }
        if self.bytes.dictionary
            && matches!(
                arrow_type,
                DataType::Utf8
                    | DataType::Binary
                    | DataType::LargeUtf8
                    | DataType::LargeBinary
                    | DataType::Utf8View
                    | DataType::BinaryView
            )
        {
            arrow_type = DataType::Dictionary(Box::new(DataType::Int32), Box::new(arrow_type));
        }
        let field = FieldNode {
            rep_level,
            def_level,
            nullable,
            arrow_type,
            kind: FieldKind::Leaf {
                column_index: column,
            },
        };
        field.repeated_as_list(node, ctx, &at).map(Some)
    }

    fn visit_struct(&self, index: usize, ctx: Ctx, is_root: bool) -> Result<Option<FieldNode>> {
        let node = self.node(index)?;
        let repetition = if is_root {
            FieldRepetitionType::REQUIRED
        } else {
            node.repetition_or_required()
        };
        let repeated = repetition == FieldRepetitionType::REPEATED;
        let (def_level, rep_level, nullable) = ctx.levels(repetition);
        let path = if is_root {
            ctx.path.clone()
        } else {
            child_path(&ctx, &node.name)
        };
        let at = Location::column(path.join("."));
        let children = node.children();
        let arrow_struct = if repeated && ctx.treat_repeated_as_list_hint {
            list_hint_field(&ctx.data_type, "struct", &at)?.map(|f| f.data_type().clone())
        } else {
            ctx.data_type.clone()
        };
        let arrow_fields = match &arrow_struct {
            Some(DataType::Struct(fields)) => {
                if fields.len() != children.len() {
                    return Err(schema_err(
                        &at,
                        format!(
                            "incompatible arrow schema, expected {} struct fields got {}",
                            children.len(),
                            fields.len()
                        ),
                    ));
                }
                Some(fields.clone())
            }
            Some(d) => {
                return Err(schema_err(
                    &at,
                    format!("incompatible arrow schema, expected struct got {d}"),
                ));
            }
            None => None,
        };
        let mut fields = Vec::with_capacity(children.len());
        let mut nodes = Vec::with_capacity(children.len());
        for (i, &child_index) in children.iter().enumerate() {
            let child = self.node(child_index)?;
            let hint_field = match &arrow_fields {
                Some(f) => {
                    let f = f.get(i).cloned();
                    if let Some(f) = &f
                        && f.name() != child.name.as_str()
                    {
                        return Err(schema_err(
                            &at,
                            format!(
                                "incompatible arrow schema, expected field named {} got {}",
                                child.name,
                                f.name()
                            ),
                        ));
                    }
                    f
                }
                None => None,
            };
            let cctx = Ctx {
                rep_level,
                def_level,
                data_type: hint_field.as_ref().map(|f| f.data_type().clone()),
                treat_repeated_as_list_hint: true,
                path: path.clone(),
            };
            if let Some(c) = self.dispatch(child_index, cctx)? {
                fields.push(convert_field(child, &c, hint_field.as_deref(), true));
                nodes.push(c);
            }
        }
        if nodes.is_empty() {
            return Ok(None);
        }
        let field = FieldNode {
            rep_level,
            def_level,
            nullable,
            arrow_type: DataType::Struct(Fields::from(fields)),
            kind: FieldKind::Group(nodes),
        };
        field.repeated_as_list(node, ctx, &at).map(Some)
    }

    fn visit_map(&self, index: usize, ctx: Ctx) -> Result<Option<FieldNode>> {
        // The layout is checked where the tree is built; a MAP group whose
        // key-value group holds one field reads as a list.
        let (kv_index, key_index, value_index) =
            match self.schema.map_entries(index).map_err(from_schema_error)? {
                MapEntries::KeyValue {
                    key_value,
                    key,
                    value,
                } => (key_value, key, value),
                MapEntries::List(_) => return self.visit_list(index, ctx),
            };
        let node = self.node(index)?;
        let at = Location::column(child_path(&ctx, &node.name).join("."));
        let rep_level = ctx.rep_level + 1;
        let (def_level, nullable) = match node.repetition_or_required() {
            FieldRepetitionType::OPTIONAL => (ctx.def_level + 2, true),
            _ => (ctx.def_level + 1, false),
        };
        let (kv, key, value) = (
            self.node(kv_index)?,
            self.node(key_index)?,
            self.node(value_index)?,
        );
        let (arrow_map, arrow_key, arrow_value, sorted) = match &ctx.data_type {
            Some(DataType::Map(field, sorted)) => match field.data_type() {
                DataType::Struct(fields) if fields.len() == 2 => (
                    Some(field.clone()),
                    Some(fields[0].clone()),
                    Some(fields[1].clone()),
                    *sorted,
                ),
                d => {
                    return Err(schema_err(
                        &at,
                        format!("Map data type should contain struct with two children, got {d}"),
                    ));
                }
            },
            Some(d) => {
                return Err(schema_err(
                    &at,
                    format!("incompatible arrow schema, expected map got {d}"),
                ));
            }
            None => (None, None, None, false),
        };
        let mut kv_path = child_path(&ctx, &node.name);
        kv_path.push(kv.name.to_string());
        let maybe_key = self.dispatch(
            key_index,
            Ctx {
                rep_level,
                def_level,
                data_type: arrow_key.as_ref().map(|f| f.data_type().clone()),
                treat_repeated_as_list_hint: false,
                path: kv_path.clone(),
            },
        )?;
        let maybe_value = self.dispatch(
            value_index,
            Ctx {
                rep_level,
                def_level,
                data_type: arrow_value.as_ref().map(|f| f.data_type().clone()),
                treat_repeated_as_list_hint: true,
                path: kv_path,
            },
        )?;
        match (maybe_key, maybe_value) {
            (Some(k), Some(v)) => {
                let key_field = Arc::new(
                    convert_field(key, &k, arrow_key.as_deref(), true).with_nullable(false),
                );
                let value_field = Arc::new(convert_field(value, &v, arrow_value.as_deref(), true));
                let meta = arrow_map.map(|f| f.metadata().clone()).unwrap_or_default();
                let map_field =
                    Field::new_struct(kv.name.as_str(), vec![key_field, value_field], false)
                        .with_metadata(meta);
                Ok(Some(FieldNode {
                    rep_level,
                    def_level,
                    nullable,
                    arrow_type: DataType::Map(Arc::new(map_field), sorted),
                    kind: FieldKind::Group(vec![k, v]),
                }))
            }
            _ => Ok(None),
        }
    }

    fn visit_list(&self, index: usize, ctx: Ctx) -> Result<Option<FieldNode>> {
        // Where the elements are, by the rules of LogicalTypes.md and their
        // backward-compatibility cases; checked where the tree is built.
        let layout = self.schema.list_element(index).map_err(from_schema_error)?;
        let node = self.node(index)?;
        let at = Location::column(child_path(&ctx, &node.name).join("."));
        let (def_level, nullable) = match node.repetition_or_required() {
            FieldRepetitionType::OPTIONAL => (ctx.def_level + 1, true),
            _ => (ctx.def_level, false),
        };
        let hint_field = match &ctx.data_type {
            Some(
                DataType::List(f)
                | DataType::LargeList(f)
                | DataType::FixedSizeList(f, _)
                | DataType::ListView(f)
                | DataType::LargeListView(f),
            ) => Some(f.as_ref().clone()),
            Some(d) => {
                return Err(schema_err(
                    &at,
                    format!("incompatible arrow schema, expected list got {d}"),
                ));
            }
            None => None,
        };
        let path = child_path(&ctx, &node.name);
        let (repeated_index, item_index) = match layout {
            ListLayout::Repeated(r) => {
                // The repeated field is the element, read at the list's
                // own levels.
                let c = Ctx {
                    rep_level: ctx.rep_level,
                    def_level,
                    data_type: hint_field.as_ref().map(|f| f.data_type().clone()),
                    treat_repeated_as_list_hint: false,
                    path,
                };
                let field = if self.node(r)?.is_group() {
                    self.visit_struct(r, c, false)?
                } else {
                    self.visit_primitive(r, c)?
                };
                return Ok(field.map(|mut f| {
                    f.nullable = nullable;
                    f
                }));
            }
            ListLayout::Wrapped { repeated, element } => (repeated, element),
        };
        let rep_level = ctx.rep_level + 1;
        let def_level = def_level + 1;
        let mut item_path = path;
        item_path.push(self.node(repeated_index)?.name.to_string());
        let c = Ctx {
            rep_level,
            def_level,
            data_type: hint_field.as_ref().map(|f| f.data_type().clone()),
            treat_repeated_as_list_hint: true,
            path: item_path,
        };
        match self.dispatch(item_index, c)? {
            Some(child) => {
                let item = self.node(item_index)?;
                let item_field = Arc::new(convert_field(item, &child, hint_field.as_ref(), true));
                let arrow_type = match ctx.data_type {
                    Some(DataType::LargeList(_)) => DataType::LargeList(item_field),
                    Some(DataType::FixedSizeList(_, n)) => DataType::FixedSizeList(item_field, n),
                    Some(DataType::ListView(_)) => DataType::ListView(item_field),
                    Some(DataType::LargeListView(_)) => DataType::LargeListView(item_field),
                    _ => DataType::List(item_field),
                };
                Ok(Some(FieldNode {
                    rep_level,
                    def_level,
                    nullable,
                    arrow_type,
                    kind: FieldKind::Group(vec![child]),
                }))
            }
            None => Ok(None),
        }
    }

    fn dispatch(&self, index: usize, ctx: Ctx) -> Result<Option<FieldNode>> {
        let node = self.node(index)?;
        if !node.is_group() {
            self.visit_primitive(index, ctx)
        } else if node.is_list_annotated() {
            self.visit_list(index, ctx)
        } else if node.is_map_annotated() {
            self.visit_map(index, ctx)
        } else {
            self.visit_struct(index, ctx, false)
        }
    }

    /// Converts the root group: `None` when no leaf is included.
    pub(crate) fn convert_root(&self, hint: Option<&Fields>) -> Result<Option<FieldNode>> {
        let ctx = Ctx {
            rep_level: 0,
            def_level: 0,
            data_type: hint.map(|f| DataType::Struct(f.clone())),
            treat_repeated_as_list_hint: true,
            path: Vec::new(),
        };
        self.visit_struct(0, ctx, true)
    }
}

fn convert_field(
    node: &SchemaNode,
    field: &FieldNode,
    hint: Option<&Field>,
    add_field_id: bool,
) -> Field {
    let name = node.name.as_str();
    match hint {
        Some(h) => Field::new(name, field.arrow_type.clone(), field.nullable)
            .with_metadata(h.metadata().clone()),
        None => {
            let mut f = Field::new(name, field.arrow_type.clone(), field.nullable);
            if add_field_id && let Some(id) = node.field_id {
                let mut m = HashMap::with_capacity(1);
                m.insert(FIELD_ID_META_KEY.to_string(), id.to_string());
                f.set_metadata(m);
            }
            f
        }
    }
}
