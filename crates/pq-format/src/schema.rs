//! The schema tree, built from the flat depth-first `SchemaElement` list of
//! the footer.
//!
//! [`SchemaDescriptor`] validates the list and gives every node its
//! repetition and maximum definition/repetition levels, and every leaf (a
//! [`ColumnDescriptor`]) its path, physical type and ancestors. Leaves are in
//! file order: leaf `i` is column chunk `i` of every row group.

use crate::error::{FormatError, Result};
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
    pub name: String,
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
}

/// A leaf column.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnDescriptor {
    /// The leaf's node index.
    pub node: usize,
    /// Field names from below the root down to the leaf.
    pub path: Vec<String>,
    /// Node indices from below the root down to the leaf (same length as
    /// `path`); their repetitions are the ancestors' repetitions.
    pub path_nodes: Vec<usize>,
    /// Physical type.
    pub physical_type: Type,
    /// Length of `FIXED_LEN_BYTE_ARRAY` values (0 for other types).
    pub type_length: i32,
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

    /// The leaf's name.
    pub fn name(&self) -> &str {
        self.path.last().map(String::as_str).unwrap_or("")
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

fn err<T>(msg: String) -> Result<T> {
    Err(FormatError::Schema(msg))
}

impl SchemaDescriptor {
    /// Build and validate the tree from the footer's flat element list.
    pub fn new(elements: &[SchemaElement], limits: &crate::Limits) -> Result<Self> {
        let Some(root) = elements.first() else {
            return err("the schema is empty".into());
        };
        if let Some(t) = root.type_ {
            return err(format!(
                "the root {:?} has a physical type ({t})",
                root.name
            ));
        }
        let root_children = match root.num_children {
            Some(n) if n < 0 => {
                return err(format!("the root {:?} has {n} children", root.name));
            }
            Some(n) => n as usize,
            None => return err(format!("the root {:?} is not a group", root.name)),
        };
        let mut nodes = Vec::with_capacity(elements.len());
        let mut columns = Vec::new();
        nodes.push(SchemaNode {
            name: root.name.clone(),
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
        // (node index, children still expected)
        let mut stack: Vec<(usize, usize)> = vec![(0, root_children)];
        for (i, e) in elements.iter().enumerate().skip(1) {
            while stack.last().is_some_and(|&(_, left)| left == 0) {
                stack.pop();
            }
            let Some(top) = stack.last_mut() else {
                return err(format!(
                    "element {i} ({:?}) is outside the tree: the groups declare fewer children than the {} elements",
                    e.name,
                    elements.len()
                ));
            };
            top.1 -= 1;
            let parent = top.0;
            let depth = stack.len();
            if depth > limits.max_schema_depth {
                return err(format!(
                    "element {i} ({:?}) is nested deeper than the limit of {}",
                    e.name, limits.max_schema_depth
                ));
            }
            let Some(p) = nodes.get(parent) else {
                return err(format!("internal: parent {parent} missing"));
            };
            let (pdef, prep) = (p.max_def_level, p.max_rep_level);
            let repetition = match e.repetition_type {
                Some(
                    r @ (FieldRepetitionType::REQUIRED
                    | FieldRepetitionType::OPTIONAL
                    | FieldRepetitionType::REPEATED),
                ) => r,
                Some(r) => {
                    return err(format!(
                        "element {i} ({:?}) has unknown repetition type value {}",
                        e.name, r.0
                    ));
                }
                None => {
                    return err(format!("element {i} ({:?}) has no repetition type", e.name));
                }
            };
            let max_def_level =
                pdef.saturating_add(i16::from(repetition != FieldRepetitionType::REQUIRED));
            let max_rep_level =
                prep.saturating_add(i16::from(repetition == FieldRepetitionType::REPEATED));
            let idx = nodes.len();
            let is_group = match (e.num_children, e.type_) {
                (Some(n), _) if n < 0 => {
                    return err(format!(
                        "element {i} ({:?}) has a negative number of children ({n})",
                        e.name
                    ));
                }
                (Some(n), _) if n > 0 => true,
                (_, Some(_)) => false,
                (Some(_), None) => true,
                (None, None) => {
                    return err(format!(
                        "element {i} ({:?}) is a leaf without a physical type",
                        e.name
                    ));
                }
            };
            let kind = if is_group {
                let n = e.num_children.unwrap_or(0) as usize;
                if n > elements.len() - i - 1 {
                    return err(format!(
                        "element {i} ({:?}) declares {n} children but only {} elements follow",
                        e.name,
                        elements.len() - i - 1
                    ));
                }
                stack.push((idx, n));
                NodeKind::Group {
                    children: Vec::with_capacity(n),
                }
            } else {
                let physical_type = e.type_.unwrap_or_default();
                if physical_type.name().is_none() {
                    return err(format!(
                        "column {:?} (element {i}) has unknown physical type value {}",
                        e.name, physical_type.0
                    ));
                }
                let type_length = if physical_type == Type::FIXED_LEN_BYTE_ARRAY {
                    match e.type_length {
                        Some(n) if n >= 0 => n,
                        Some(n) => {
                            return err(format!(
                                "column {:?} (element {i}) has a negative type_length {n}",
                                e.name
                            ));
                        }
                        None => {
                            return err(format!(
                                "column {:?} (element {i}) is FIXED_LEN_BYTE_ARRAY without a type_length",
                                e.name
                            ));
                        }
                    }
                } else {
                    0
                };
                columns.push(ColumnDescriptor {
                    node: idx,
                    path: Vec::new(),
                    path_nodes: Vec::new(),
                    physical_type,
                    type_length,
                    repetition,
                    converted_type: e.converted_type,
                    logical_type: e.logical_type.clone(),
                    scale: e.scale,
                    precision: e.precision,
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
                name: e.name.clone(),
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
        if let Some(&(node, left)) = stack.iter().find(|&&(_, left)| left > 0) {
            let name = nodes.get(node).map(|n| n.name.as_str()).unwrap_or("");
            return err(format!(
                "group {name:?} is missing {left} children: the schema list ends early"
            ));
        }
        // Paths, root excluded.
        for col in &mut columns {
            let mut path_nodes = Vec::new();
            let mut cur = Some(col.node);
            while let Some(n) = cur {
                let Some(node) = nodes.get(n) else { break };
                if node.parent.is_none() {
                    break;
                }
                path_nodes.push(n);
                cur = node.parent;
            }
            path_nodes.reverse();
            col.path = path_nodes
                .iter()
                .filter_map(|&n| nodes.get(n).map(|x| x.name.clone()))
                .collect();
            col.path_nodes = path_nodes;
        }
        Ok(Self { nodes, columns })
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
