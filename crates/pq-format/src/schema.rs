//! The schema tree, built from the flat depth-first `SchemaElement` list of
//! the footer.
//!
//! [`SchemaDescriptor`] validates the list and gives every node its
//! repetition and maximum definition/repetition levels, and every leaf (a
//! [`ColumnDescriptor`]) its path, physical type and ancestors. Leaves are in
//! file order: leaf `i` is column chunk `i` of every row group.

use std::sync::Arc;

use crate::error::{Result, SchemaError};
use crate::path::{ColumnPath, FieldName};
use crate::small_list::SmallList;
use crate::{ConvertedType, FieldRepetitionType, LogicalType, SchemaElement, Type};

/// What a schema node is.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    /// A group, with the indices (into [`SchemaDescriptor::nodes`]) of its children.
    Group {
        /// Child node indices, in order.
        children: Vec<usize>,
    },
    /// A primitive (leaf) column.
    Primitive {
        /// Its index in [`SchemaDescriptor::columns`].
        column: usize,
    },
}

/// One node of the schema tree.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaNode {
    /// The field name.
    pub name: FieldName,
    /// The repetition; `None` only for the root.
    pub repetition: Option<FieldRepetitionType>,
    /// Group or primitive.
    pub kind: NodeKind,
    /// The parent node index; `None` for the root.
    pub parent: Option<usize>,
    /// The legacy converted type, if any.
    pub converted_type: Option<ConvertedType>,
    /// The logical type, if any.
    pub logical_type: Option<LogicalType>,
    /// The field id, if any.
    pub field_id: Option<i32>,
    /// Maximum definition level of values at this node.
    pub max_def_level: i16,
    /// Maximum repetition level of values at this node.
    pub max_rep_level: i16,
    /// Depth in the tree (the root is 0).
    pub depth: usize,
}

impl SchemaNode {
    /// Whether this node is a group.
    pub fn is_group(&self) -> bool {
        matches!(self.kind, NodeKind::Group { .. })
    }

    /// The children of a group (empty for a primitive).
    pub fn children(&self) -> &[usize] {
        match &self.kind {
            NodeKind::Group { children } => children,
            NodeKind::Primitive { .. } => &[],
        }
    }

    /// The repetition, the root's being `REQUIRED` (a record has one).
    pub fn repetition_or_required(&self) -> FieldRepetitionType {
        self.repetition.unwrap_or(FieldRepetitionType::REQUIRED)
    }

    /// Whether the node is `REPEATED`.
    pub fn is_repeated(&self) -> bool {
        self.repetition == Some(FieldRepetitionType::REPEATED)
    }

    /// The converted type, or the one the logical type stands for when the
    /// file gives the logical type alone (as readers take it).
    pub fn converted_or_implied(&self) -> Option<ConvertedType> {
        self.converted_type.or_else(|| {
            self.logical_type
                .as_ref()
                .and_then(LogicalType::to_converted_type)
        })
    }
}

/// A leaf column.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnDescriptor {
    /// The leaf's node index.
    pub node: usize,
    /// Field names from below the root down to the leaf.
    pub path: ColumnPath,
    /// Node indices from below the root down to the leaf (same length as
    /// `path`); their repetitions are the ancestors' repetitions.
    pub path_nodes: SmallList<usize>,
    /// Physical type.
    pub physical_type: Type,
    /// Length of `FIXED_LEN_BYTE_ARRAY` values, at least 0 (`None` for
    /// other types).
    pub type_length: Option<i32>,
    /// The leaf's repetition.
    pub repetition: FieldRepetitionType,
    /// The legacy converted type, if any.
    pub converted_type: Option<ConvertedType>,
    /// The logical type, if any.
    pub logical_type: Option<LogicalType>,
    /// Decimal scale, if given.
    pub scale: Option<i32>,
    /// Decimal precision, if given.
    pub precision: Option<i32>,
    /// The field id, if any.
    pub field_id: Option<i32>,
    /// Maximum definition level.
    pub max_def_level: i16,
    /// Maximum repetition level.
    pub max_rep_level: i16,
}

impl ColumnDescriptor {
    /// The dotted path, e.g. `a.b.c`.
    pub fn path_string(&self) -> String {
        self.path.join(".")
    }

    /// The dotted path, e.g. `a.b.c` (as [`path_string`](Self::path_string)).
    pub fn dotted(&self) -> String {
        self.path_string()
    }

    /// The leaf's name.
    pub fn name(&self) -> &str {
        self.path.last().unwrap_or("")
    }

    /// Bytes of each `FIXED_LEN_BYTE_ARRAY` value (0 for other types).
    pub fn fixed_width(&self) -> usize {
        self.type_length
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0)
    }
}

/// The validated schema tree of a file.
///
/// ```
/// use pq_format::{FieldRepetitionType as R, SchemaDescriptor, SchemaElement, Type};
/// let elements = vec![
///     SchemaElement { name: "root".into(), num_children: Some(1), ..Default::default() },
///     SchemaElement { name: "a".into(), num_children: Some(1), repetition_type: Some(R::OPTIONAL), ..Default::default() },
///     SchemaElement { name: "b".into(), type_: Some(Type::INT32), repetition_type: Some(R::REPEATED), ..Default::default() },
/// ];
/// let schema = SchemaDescriptor::new(&elements, &Default::default()).unwrap();
/// let col = &schema.columns()[0];
/// assert_eq!(col.path_string(), "a.b");
/// assert_eq!((col.max_def_level, col.max_rep_level), (2, 1));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaDescriptor {
    nodes: Vec<SchemaNode>,
    columns: Vec<ColumnDescriptor>,
}

/// An open group while the flat list is walked: its node index, the
/// children still expected, its name's range in the names buffer.
type Open = (usize, usize, (usize, usize));

/// The dotted path of the element named `own` under the open groups
/// `stack` (the root excluded), for errors only.
fn dotted(names: &str, stack: &[Open], own: (usize, usize)) -> String {
    let name = |(from, to): (usize, usize)| names.get(from..to).unwrap_or_default();
    let mut out = String::new();
    for &(_, _, range) in stack.get(1..).unwrap_or_default() {
        out.push_str(name(range));
        out.push('.');
    }
    out.push_str(name(own));
    out
}

/// LIST and MAP annotate groups: on a primitive they mean nothing a reader
/// can follow. The message words it as the Arrow reader does.
fn check_primitive_annotation(e: &SchemaElement, physical: Type) -> Option<String> {
    let implied = e.converted_type.or_else(|| {
        e.logical_type
            .as_ref()
            .and_then(LogicalType::to_converted_type)
    });
    let c = implied?;
    let what = match c {
        ConvertedType::LIST => "LIST",
        ConvertedType::MAP => "MAP",
        ConvertedType::MAP_KEY_VALUE => "MAP_KEY_VALUE",
        _ => return None,
    };
    Some(format!(
        "unable to convert Parquet {} with logical type {:?} and converted type {}: \
         a {what} annotation is for groups only",
        physical.name().unwrap_or("?"),
        e.logical_type,
        c.0
    ))
}

impl SchemaDescriptor {
    /// Build and validate the tree from the footer's flat element list:
    /// its shape (every count of children met, nothing outside the
    /// tree, no deeper than [`Limits::max_schema_depth`](crate::Limits)),
    /// every field's repetition, physical and converted types, and the
    /// LIST and MAP groups (see [`list_element`](Self::list_element) and
    /// [`map_entries`](Self::map_entries)).
    pub fn new(elements: &[SchemaElement], limits: &crate::Limits) -> Result<Self> {
        let Some(root) = elements.first() else {
            return Err(SchemaError::whole("the schema is empty").into());
        };
        let at_root = |m: String| Err(SchemaError::at(root.name.as_str(), m).into());
        if let Some(t) = root.type_ {
            return at_root(format!(
                "the root {:?} has a physical type ({t})",
                root.name
            ));
        }
        let root_children = match root.num_children {
            Some(n) if n < 0 => {
                return at_root(format!("the root {:?} has {n} children", root.name));
            }
            Some(n) => n as usize,
            None => return at_root(format!("the root {:?} is not a group", root.name)),
        };
        // Every name, in element order, in one buffer that the nodes' names
        // and the columns' paths share; and the number of leaves.
        let mut names = String::with_capacity(elements.iter().map(|e| e.name.len()).sum());
        let mut leaves = 0;
        for e in elements {
            names.push_str(&e.name);
            leaves += usize::from(e.type_.is_some() && !matches!(e.num_children, Some(n) if n > 0));
        }
        let names: Arc<str> = Arc::from(names);
        let field_name = |(from, to)| FieldName {
            names: Arc::clone(&names),
            from,
            to,
        };
        let mut name_end = root.name.len();
        let mut nodes = Vec::with_capacity(elements.len());
        let mut columns = Vec::with_capacity(leaves);
        nodes.push(SchemaNode {
            name: field_name((0, name_end)),
            repetition: None,
            kind: NodeKind::Group {
                children: Vec::with_capacity(root_children.min(elements.len())),
            },
            parent: None,
            converted_type: root.converted_type,
            logical_type: root.logical_type.clone(),
            field_id: root.field_id,
            max_def_level: 0,
            max_rep_level: 0,
            depth: 0,
        });
        // The open groups, root first.
        let mut stack: Vec<Open> = Vec::with_capacity(8);
        stack.push((0, root_children, (0, name_end)));
        for (i, e) in elements.iter().enumerate().skip(1) {
            let name_range = (name_end, name_end + e.name.len());
            name_end = name_range.1;
            while stack.last().is_some_and(|&(_, left, _)| left == 0) {
                stack.pop();
            }
            let Some(top) = stack.last_mut() else {
                return Err(SchemaError::at(
                    e.name.as_str(),
                    format!(
                        "element {i} is outside the tree: the groups declare fewer children than the {} elements",
                        elements.len()
                    ),
                )
                .into());
            };
            top.1 -= 1;
            let parent = top.0;
            let depth = stack.len();
            let fail = |m: String| -> crate::FormatError {
                SchemaError::at(dotted(&names, &stack, name_range), m).into()
            };
            if depth > limits.max_schema_depth {
                return Err(SchemaError::whole(format!(
                    "element {i} ({:?}) is nested {depth} deep, deeper than the limit of {} \
                     (Limits::max_schema_depth)",
                    e.name, limits.max_schema_depth
                ))
                .into());
            }
            let Some(p) = nodes.get(parent) else {
                return Err(fail(format!("internal: parent {parent} missing")));
            };
            let (pdef, prep) = (p.max_def_level, p.max_rep_level);
            let repetition = match e.repetition_type {
                Some(
                    r @ (FieldRepetitionType::REQUIRED
                    | FieldRepetitionType::OPTIONAL
                    | FieldRepetitionType::REPEATED),
                ) => r,
                Some(r) => {
                    return Err(fail(format!(
                        "element {i} has unknown repetition type value {}",
                        r.0
                    )));
                }
                None => {
                    return Err(fail(format!("element {i} has no repetition type")));
                }
            };
            // ConvertedType is closed (LogicalType took over its growth), so
            // a value outside it comes from no writer: reading the field
            // without it would return, say, a map as a plain struct.
            if let Some(c) = e.converted_type
                && !ConvertedType::KNOWN.contains(&c)
            {
                return Err(fail(format!("unknown converted type {}", c.0)));
            }
            let max_def_level =
                pdef.saturating_add(i16::from(repetition != FieldRepetitionType::REQUIRED));
            let max_rep_level =
                prep.saturating_add(i16::from(repetition == FieldRepetitionType::REPEATED));
            let idx = nodes.len();
            let is_group = match (e.num_children, e.type_) {
                (Some(n), _) if n < 0 => {
                    return Err(fail(format!(
                        "element {i} has a negative number of children ({n})"
                    )));
                }
                (Some(n), _) if n > 0 => true,
                (_, Some(_)) => false,
                (Some(_), None) => true,
                (None, None) => {
                    return Err(fail(format!(
                        "element {i} is a leaf without a physical type"
                    )));
                }
            };
            let kind = if is_group {
                let n = e.num_children.unwrap_or(0) as usize;
                if n > elements.len() - i - 1 {
                    return Err(fail(format!(
                        "element {i} declares {n} children but only {} elements follow",
                        elements.len() - i - 1
                    )));
                }
                stack.push((idx, n, name_range));
                NodeKind::Group {
                    children: Vec::with_capacity(n),
                }
            } else {
                let physical_type = e.type_.unwrap_or_default();
                if physical_type.name().is_none() {
                    return Err(fail(format!(
                        "element {i} has unknown physical type value {}",
                        physical_type.0
                    )));
                }
                if let Some(m) = check_primitive_annotation(e, physical_type) {
                    return Err(fail(m));
                }
                let type_length = if physical_type == Type::FIXED_LEN_BYTE_ARRAY {
                    match e.type_length {
                        Some(n) if n >= 0 => Some(n),
                        Some(n) => {
                            return Err(fail(format!(
                                "element {i} has a negative type_length {n}"
                            )));
                        }
                        None => {
                            return Err(fail(format!(
                                "element {i} is FIXED_LEN_BYTE_ARRAY without a type_length"
                            )));
                        }
                    }
                } else {
                    None
                };
                // The open groups below the root are the leaf's ancestors.
                let ancestors = stack.get(1..).unwrap_or_default();
                let path_nodes = ancestors
                    .iter()
                    .map(|a| a.0)
                    .chain(std::iter::once(idx))
                    .collect();
                let ranges = ancestors
                    .iter()
                    .map(|a| a.2)
                    .chain(std::iter::once(name_range))
                    .collect();
                columns.push(ColumnDescriptor {
                    node: idx,
                    path: ColumnPath {
                        names: Arc::clone(&names),
                        ranges,
                    },
                    path_nodes,
                    physical_type,
                    type_length,
                    repetition,
                    converted_type: e.converted_type,
                    logical_type: e.logical_type.clone(),
                    scale: e.scale,
                    precision: e.precision,
                    field_id: e.field_id,
                    max_def_level,
                    max_rep_level,
                });
                NodeKind::Primitive {
                    column: columns.len() - 1,
                }
            };
            if let Some(NodeKind::Group { children }) = nodes.get_mut(parent).map(|p| &mut p.kind) {
                children.push(idx);
            }
            nodes.push(SchemaNode {
                name: field_name(name_range),
                repetition: Some(repetition),
                kind,
                parent: Some(parent),
                converted_type: e.converted_type,
                logical_type: e.logical_type.clone(),
                field_id: e.field_id,
                max_def_level,
                max_rep_level,
                depth,
            });
        }
        if let Some(&(node, left, range)) = stack.iter().find(|&&(_, left, _)| left > 0) {
            let path = if node == 0 {
                root.name.clone()
            } else {
                let at = stack.iter().position(|o| o.0 == node).unwrap_or(0);
                dotted(&names, stack.get(..at).unwrap_or_default(), range)
            };
            return Err(SchemaError::at(
                path,
                format!("the group is missing {left} children: the schema list ends early"),
            )
            .into());
        }
        let schema = Self { nodes, columns };
        schema.check_nested()?;
        Ok(schema)
    }

    /// All nodes; index 0 is the root, then depth-first file order.
    pub fn nodes(&self) -> &[SchemaNode] {
        &self.nodes
    }

    /// The root node.
    pub fn root(&self) -> &SchemaNode {
        // `new` always creates the root.
        &self.nodes[0]
    }

    /// A node by index.
    pub fn node(&self, index: usize) -> Option<&SchemaNode> {
        self.nodes.get(index)
    }

    /// The leaf columns in file order.
    pub fn columns(&self) -> &[ColumnDescriptor] {
        &self.columns
    }

    /// A leaf column by index.
    pub fn column(&self, index: usize) -> Option<&ColumnDescriptor> {
        self.columns.get(index)
    }

    /// Number of leaf columns.
    pub fn num_columns(&self) -> usize {
        self.columns.len()
    }

    /// The repetitions of a column's path from below the root down to the
    /// leaf itself.
    pub fn path_repetitions(&self, column: &ColumnDescriptor) -> Vec<FieldRepetitionType> {
        column
            .path_nodes
            .iter()
            .filter_map(|&n| self.nodes.get(n).and_then(|x| x.repetition))
            .collect()
    }
}
