//! The schema tree, built from the flat depth-first `SchemaElement` list of
//! the footer.
//!
//! [`SchemaDescriptor`] validates the list and gives every node its
//! repetition and maximum definition/repetition levels, and every leaf (a
//! [`ColumnDescriptor`]) its path, physical type and ancestors. Leaves are in
//! file order: leaf `i` is column chunk `i` of every row group.

use std::sync::Arc;

use crate::error::{FormatError, Result};
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
        self.path.last().unwrap_or("")
    }
}

/// A field name of a schema tree.
///
/// The names of a schema share one buffer (see [`ColumnPath`]), so the tree
/// allocates nothing per node for them. It dereferences to `str`, prints as
/// the name and compares equal to a `str` or `String`.
///
/// ```
/// use pq_format::FieldName;
/// let n = FieldName::from("id");
/// assert_eq!(n, "id");
/// assert_eq!(n.len(), 2);
/// assert_eq!(format!("{n} {n:?}"), "id \"id\"");
/// ```
#[derive(Clone)]
pub struct FieldName {
    names: Arc<str>,
    from: usize,
    to: usize,
}

impl FieldName {
    /// The name.
    pub fn as_str(&self) -> &str {
        // The range is built from the buffer itself, on name boundaries.
        self.names.get(self.from..self.to).unwrap_or_default()
    }
}

impl From<&str> for FieldName {
    fn from(name: &str) -> Self {
        Self {
            names: Arc::from(name),
            from: 0,
            to: name.len(),
        }
    }
}

impl From<String> for FieldName {
    fn from(name: String) -> Self {
        let to = name.len();
        Self {
            names: Arc::from(name),
            from: 0,
            to,
        }
    }
}

impl From<&FieldName> for String {
    fn from(name: &FieldName) -> Self {
        name.as_str().to_owned()
    }
}

impl std::ops::Deref for FieldName {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for FieldName {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for FieldName {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Display for FieldName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Debug for FieldName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq for FieldName {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for FieldName {}

impl std::hash::Hash for FieldName {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // As `str` hashes, which `Borrow<str>` requires.
        self.as_str().hash(state);
    }
}

impl PartialEq<str> for FieldName {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for FieldName {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for FieldName {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

/// A column's path: the field names from below the root down to the leaf.
///
/// The paths of a schema share one buffer holding every field name, so
/// building the schema allocates nothing per column for them (a footer of
/// many narrow columns otherwise spends much of its time allocating names).
/// It reads like a list of `&str` and compares equal to one.
///
/// ```
/// use pq_format::ColumnPath;
/// let p = ColumnPath::from(&["a", "b.c"][..]);
/// assert_eq!(p.len(), 2);
/// assert_eq!(&p[1], "b.c");
/// assert_eq!(p.join("/"), "a/b.c");
/// assert_eq!(p, ["a", "b.c"]);
/// assert_eq!(p.iter().collect::<Vec<_>>(), ["a", "b.c"]);
/// assert_eq!(p.to_vec(), vec!["a".to_string(), "b.c".to_string()]);
/// ```
#[derive(Clone)]
pub struct ColumnPath {
    /// Names of (at least) this path's fields.
    names: Arc<str>,
    /// Byte ranges of this path's fields in `names`, root side first.
    ranges: SmallList<(usize, usize)>,
}

impl ColumnPath {
    /// Number of fields.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Whether the path has no field.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The field name at `index`.
    pub fn get(&self, index: usize) -> Option<&str> {
        let &(from, to) = self.ranges.get(index)?;
        self.names.get(from..to)
    }

    /// The first field name (a top-level field).
    pub fn first(&self) -> Option<&str> {
        self.get(0)
    }

    /// The last field name (the leaf).
    pub fn last(&self) -> Option<&str> {
        self.get(self.len().checked_sub(1)?)
    }

    /// The field names, root side first.
    pub fn iter(&self) -> ColumnPathIter<'_> {
        ColumnPathIter {
            names: &self.names,
            ranges: self.ranges.iter(),
        }
    }

    /// The names joined by `sep`.
    pub fn join(&self, sep: &str) -> String {
        let mut out = String::with_capacity(
            self.ranges.iter().map(|(a, b)| b - a).sum::<usize>()
                + sep.len() * self.len().saturating_sub(1),
        );
        for (i, name) in self.iter().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            out.push_str(name);
        }
        out
    }

    /// The names as owned strings.
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_owned).collect()
    }
}

impl<S: AsRef<str>> From<&[S]> for ColumnPath {
    fn from(names: &[S]) -> Self {
        let mut buf = String::new();
        let mut ranges = SmallList::new();
        for n in names {
            let from = buf.len();
            buf.push_str(n.as_ref());
            ranges.push((from, buf.len()));
        }
        Self {
            names: Arc::from(buf),
            ranges,
        }
    }
}

impl From<Vec<String>> for ColumnPath {
    fn from(names: Vec<String>) -> Self {
        Self::from(names.as_slice())
    }
}

impl std::ops::Index<usize> for ColumnPath {
    type Output = str;

    /// The field name at `index`; panics when out of range, like a slice.
    fn index(&self, index: usize) -> &str {
        #[allow(clippy::expect_used)]
        self.get(index).expect("ColumnPath index out of range")
    }
}

impl std::fmt::Debug for ColumnPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for ColumnPath {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for ColumnPath {}

impl std::hash::Hash for ColumnPath {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.len().hash(state);
        for name in self {
            name.hash(state);
        }
    }
}

impl<S: AsRef<str>> PartialEq<[S]> for ColumnPath {
    fn eq(&self, other: &[S]) -> bool {
        self.iter().eq(other.iter().map(AsRef::as_ref))
    }
}

impl<S: AsRef<str>, const N: usize> PartialEq<[S; N]> for ColumnPath {
    fn eq(&self, other: &[S; N]) -> bool {
        *self == other[..]
    }
}

impl<S: AsRef<str>> PartialEq<&[S]> for ColumnPath {
    fn eq(&self, other: &&[S]) -> bool {
        *self == **other
    }
}

impl<S: AsRef<str>> PartialEq<Vec<S>> for ColumnPath {
    fn eq(&self, other: &Vec<S>) -> bool {
        *self == other[..]
    }
}

impl<'a> IntoIterator for &'a ColumnPath {
    type Item = &'a str;
    type IntoIter = ColumnPathIter<'a>;

    fn into_iter(self) -> ColumnPathIter<'a> {
        self.iter()
    }
}

/// The field names of a [`ColumnPath`].
#[derive(Debug, Clone)]
pub struct ColumnPathIter<'a> {
    names: &'a str,
    ranges: std::slice::Iter<'a, (usize, usize)>,
}

impl<'a> Iterator for ColumnPathIter<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let &(from, to) = self.ranges.next()?;
        // Ranges are built from the buffer itself, on name boundaries.
        Some(self.names.get(from..to).unwrap_or_default())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.ranges.size_hint()
    }
}

impl DoubleEndedIterator for ColumnPathIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let &(from, to) = self.ranges.next_back()?;
        Some(self.names.get(from..to).unwrap_or_default())
    }
}

impl ExactSizeIterator for ColumnPathIter<'_> {}

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
        // The open groups, root first: (node index, children still
        // expected, name range in `names`).
        let mut stack: Vec<(usize, usize, (usize, usize))> = Vec::with_capacity(8);
        stack.push((0, root_children, (0, name_end)));
        for (i, e) in elements.iter().enumerate().skip(1) {
            let name_range = (name_end, name_end + e.name.len());
            name_end = name_range.1;
            while stack.last().is_some_and(|&(_, left, _)| left == 0) {
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
                stack.push((idx, n, name_range));
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
        if let Some(&(node, left, _)) = stack.iter().find(|&&(_, left, _)| left > 0) {
            let name = nodes.get(node).map(|n| n.name.as_str()).unwrap_or("");
            return err(format!(
                "group {name:?} is missing {left} children: the schema list ends early"
            ));
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
