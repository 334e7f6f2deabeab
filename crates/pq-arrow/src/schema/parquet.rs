//! The Parquet schema as a tree, built from the flat list of
//! `SchemaElement`s in the footer.

use pq_format::{ConvertedType, FieldRepetitionType, LogicalType, SchemaElement, TimeUnit, Type};

use crate::error::{Location, Result, schema_err};

/// Repetition of a schema node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repetition {
    /// Exactly one value.
    Required,
    /// Zero or one value.
    Optional,
    /// Zero or more values.
    Repeated,
}

/// One node of the Parquet schema tree.
#[derive(Debug, Clone)]
pub struct ParquetNode {
    /// Field name.
    pub name: String,
    /// Repetition (the root is `Required`).
    pub repetition: Repetition,
    /// Whether the element carried a repetition at all.
    pub has_repetition: bool,
    /// Converted type, derived from the logical type when absent.
    pub converted: ConvertedType,
    /// Logical type annotation.
    pub logical: Option<LogicalType>,
    /// Field id.
    pub field_id: Option<i32>,
    /// Primitive or group.
    pub kind: NodeKind,
}

/// Primitive leaf or group.
#[derive(Debug, Clone)]
pub enum NodeKind {
    /// A leaf column.
    Primitive {
        /// Physical type.
        physical: Type,
        /// FIXED_LEN_BYTE_ARRAY width (-1 when absent).
        type_length: i32,
        /// Decimal scale (-1 when absent).
        scale: i32,
        /// Decimal precision (-1 when absent).
        precision: i32,
        /// Index of the leaf among all leaves.
        column_index: usize,
    },
    /// A group of fields.
    Group(Vec<ParquetNode>),
}

impl ParquetNode {
    /// Whether this node is a primitive leaf.
    pub fn is_primitive(&self) -> bool {
        matches!(self.kind, NodeKind::Primitive { .. })
    }

    /// The children of a group (empty for a leaf).
    pub fn children(&self) -> &[ParquetNode] {
        match &self.kind {
            NodeKind::Group(c) => c,
            NodeKind::Primitive { .. } => &[],
        }
    }

    /// LIST-annotated group.
    pub fn is_list(&self) -> bool {
        if self.is_primitive() {
            return false;
        }
        match &self.logical {
            Some(l) => matches!(l, LogicalType::List(_)),
            None => self.converted == ConvertedType::LIST,
        }
    }

    /// A group with exactly one child, which is repeated.
    pub fn has_single_repeated_child(&self) -> bool {
        let c = self.children();
        !self.is_primitive()
            && c.len() == 1
            && c[0].has_repetition
            && c[0].repetition == Repetition::Repeated
    }
}

/// A leaf column of the schema: its path and levels.
#[derive(Debug, Clone)]
pub struct LeafColumn {
    /// Path from the root (excluding the root).
    pub path: Vec<String>,
    /// Physical type.
    pub physical: Type,
    /// FIXED_LEN_BYTE_ARRAY width.
    pub type_length: i32,
    /// Maximum definition level.
    pub max_def_level: i16,
    /// Maximum repetition level.
    pub max_rep_level: i16,
}

impl LeafColumn {
    /// The dotted path.
    pub fn dotted(&self) -> String {
        self.path.join(".")
    }
}

/// The converted type that a logical type implies (for files that only
/// write the logical type).
fn converted_from_logical(l: &LogicalType) -> ConvertedType {
    match l {
        LogicalType::String(_) => ConvertedType::UTF8,
        LogicalType::Map(_) => ConvertedType::MAP,
        LogicalType::List(_) => ConvertedType::LIST,
        LogicalType::Enum(_) => ConvertedType::ENUM,
        LogicalType::Decimal(_) => ConvertedType::DECIMAL,
        LogicalType::Date(_) => ConvertedType::DATE,
        LogicalType::Time(t) => match t.unit {
            TimeUnit::Millis(_) => ConvertedType::TIME_MILLIS,
            TimeUnit::Micros(_) => ConvertedType::TIME_MICROS,
            _ => ConvertedType(-1),
        },
        LogicalType::Timestamp(t) => match t.unit {
            TimeUnit::Millis(_) => ConvertedType::TIMESTAMP_MILLIS,
            TimeUnit::Micros(_) => ConvertedType::TIMESTAMP_MICROS,
            _ => ConvertedType(-1),
        },
        LogicalType::Integer(i) => match (i.bit_width, i.is_signed) {
            (8, true) => ConvertedType::INT_8,
            (16, true) => ConvertedType::INT_16,
            (32, true) => ConvertedType::INT_32,
            (64, true) => ConvertedType::INT_64,
            (8, false) => ConvertedType::UINT_8,
            (16, false) => ConvertedType::UINT_16,
            (32, false) => ConvertedType::UINT_32,
            (64, false) => ConvertedType::UINT_64,
            _ => ConvertedType(-1),
        },
        LogicalType::Json(_) => ConvertedType::JSON,
        LogicalType::Bson(_) => ConvertedType::BSON,
        _ => ConvertedType(-1),
    }
}

/// "No converted type": a value no file uses.
pub const CONVERTED_NONE: ConvertedType = ConvertedType(-1);

fn repetition(r: Option<FieldRepetitionType>, at: &Location) -> Result<Repetition> {
    Ok(match r {
        None => Repetition::Required,
        Some(FieldRepetitionType::REQUIRED) => Repetition::Required,
        Some(FieldRepetitionType::OPTIONAL) => Repetition::Optional,
        Some(FieldRepetitionType::REPEATED) => Repetition::Repeated,
        Some(other) => {
            return Err(schema_err(
                at,
                format!("unknown repetition type {}", other.0),
            ));
        }
    })
}

/// Builds the schema tree (the root group) and the list of leaves.
pub fn build_tree(elements: &[SchemaElement]) -> Result<(ParquetNode, Vec<LeafColumn>)> {
    let Some(root) = elements.first() else {
        return Err(schema_err(
            &Location::default(),
            "the schema has no elements",
        ));
    };
    let mut leaves = Vec::new();
    let mut pos = 1usize;
    let n = root.num_children.unwrap_or(0);
    if n < 0 {
        return Err(schema_err(
            &Location::column(root.name.clone()),
            format!("negative number of children {n}"),
        ));
    }
    let mut children = Vec::new();
    let mut path = Vec::new();
    for _ in 0..n {
        children.push(build_node(
            elements,
            &mut pos,
            &mut leaves,
            &mut path,
            0,
            0,
            1,
        )?);
    }
    if pos != elements.len() {
        return Err(schema_err(
            &Location::default(),
            format!(
                "the schema has {} elements but its tree uses {pos}",
                elements.len()
            ),
        ));
    }
    let root = ParquetNode {
        name: root.name.clone(),
        repetition: Repetition::Required,
        has_repetition: false,
        converted: root.converted_type.unwrap_or(CONVERTED_NONE),
        logical: root.logical_type.clone(),
        field_id: root.field_id,
        kind: NodeKind::Group(children),
    };
    Ok((root, leaves))
}

const MAX_DEPTH: usize = 128;

fn build_node(
    elements: &[SchemaElement],
    pos: &mut usize,
    leaves: &mut Vec<LeafColumn>,
    path: &mut Vec<String>,
    def: i16,
    rep: i16,
    depth: usize,
) -> Result<ParquetNode> {
    let Some(e) = elements.get(*pos) else {
        return Err(schema_err(
            &Location::column(path.join(".")),
            format!(
                "the schema ends after {} elements inside a group",
                elements.len()
            ),
        ));
    };
    *pos += 1;
    path.push(e.name.clone());
    let at = Location::column(path.join("."));
    if depth > MAX_DEPTH {
        return Err(schema_err(&at, "the schema is nested too deeply"));
    }
    let rep_t = repetition(e.repetition_type, &at)?;
    let (def, rep) = match rep_t {
        Repetition::Required => (def, rep),
        Repetition::Optional => (def + 1, rep),
        Repetition::Repeated => (def + 1, rep + 1),
    };
    let converted = match (e.converted_type, &e.logical_type) {
        // ConvertedType is closed (LogicalType took over its growth), so a
        // value outside it comes from no writer: reading the field without
        // it would return, say, a map as a plain struct.
        (Some(c), _) if !ConvertedType::KNOWN.contains(&c) => {
            return Err(schema_err(&at, format!("unknown converted type {}", c.0)));
        }
        (Some(c), _) => c,
        (None, Some(l)) => converted_from_logical(l),
        (None, None) => CONVERTED_NONE,
    };
    let kind = match (e.num_children, e.type_) {
        (Some(n), _) if n > 0 => {
            let mut children = Vec::with_capacity((n as usize).min(elements.len()));
            for _ in 0..n {
                children.push(build_node(
                    elements,
                    pos,
                    leaves,
                    path,
                    def,
                    rep,
                    depth + 1,
                )?);
            }
            NodeKind::Group(children)
        }
        (_, Some(physical)) => {
            if e.repetition_type.is_none() {
                return Err(schema_err(&at, "a primitive field has no repetition"));
            }
            if !Type::KNOWN.contains(&physical) {
                return Err(schema_err(
                    &at,
                    format!("unknown physical type {}", physical.0),
                ));
            }
            let type_length = e.type_length.unwrap_or(-1);
            if physical == Type::FIXED_LEN_BYTE_ARRAY && type_length < 0 {
                return Err(schema_err(
                    &at,
                    format!("invalid FIXED_LEN_BYTE_ARRAY length {type_length}"),
                ));
            }
            let column_index = leaves.len();
            leaves.push(LeafColumn {
                path: path.clone(),
                physical,
                type_length,
                max_def_level: def,
                max_rep_level: rep,
            });
            NodeKind::Primitive {
                physical,
                type_length,
                scale: e.scale.unwrap_or(-1),
                precision: e.precision.unwrap_or(-1),
                column_index,
            }
        }
        (_, None) => NodeKind::Group(Vec::new()),
    };
    path.pop();
    Ok(ParquetNode {
        name: e.name.clone(),
        repetition: rep_t,
        has_repetition: e.repetition_type.is_some(),
        converted,
        logical: e.logical_type.clone(),
        field_id: e.field_id,
        kind,
    })
}
