//! Lists and maps: how the groups annotated LIST and MAP are laid out, by
//! LogicalTypes.md and its backward-compatibility rules for files of older
//! writers (two-level lists, the `array` and `<name>_tuple` groups, maps
//! whose key-value group has a single field).
//!
//! These rules are here once: [`SchemaDescriptor::new`] checks every LIST
//! and MAP group a reader meets with them, and readers ask them where a
//! list's elements and a map's keys and values are.

use crate::error::SchemaError;
use crate::{ConvertedType, LogicalType, SchemaDescriptor, SchemaNode};

/// Where the elements of a list are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListLayout {
    /// The repeated field is itself the element: a repeated primitive, or
    /// (in files of older writers) a repeated group of several fields, or
    /// one named `array` or `<list name>_tuple`.
    Repeated(usize),
    /// The standard three-level list: the repeated group holds one field,
    /// the element.
    Wrapped {
        /// The repeated group's node index.
        repeated: usize,
        /// The element's node index.
        element: usize,
    },
}

impl ListLayout {
    /// The node index of the repeated field.
    pub fn repeated(&self) -> usize {
        match *self {
            ListLayout::Repeated(r) | ListLayout::Wrapped { repeated: r, .. } => r,
        }
    }

    /// The node index of the element.
    pub fn element(&self) -> usize {
        match *self {
            ListLayout::Repeated(e) | ListLayout::Wrapped { element: e, .. } => e,
        }
    }
}

/// How a MAP group holds its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapEntries {
    /// The repeated key-value group with its key and its value.
    KeyValue {
        /// The repeated group's node index.
        key_value: usize,
        /// The key's node index.
        key: usize,
        /// The value's node index.
        value: usize,
    },
    /// A key-value group of one field (older writers' maps without values):
    /// read as a list of that field.
    List(ListLayout),
}

/// What a repeated field stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepeatedRole {
    /// The elements of its parent list.
    ListElement,
    /// The repeated group of a three-level list, wrapping the element.
    ListWrapper,
    /// The key-value group of its parent map.
    MapKeyValue,
    /// A repeated field outside any LIST or MAP group: a required list of
    /// required elements, by the backward-compatibility rules.
    Bare,
}

impl SchemaNode {
    /// Whether the node is annotated LIST (by its converted type, or by the
    /// logical type when there is no converted type).
    pub fn is_list_annotated(&self) -> bool {
        self.is_group() && self.converted_or_implied() == Some(ConvertedType::LIST)
    }

    /// Whether the node is annotated MAP or MAP_KEY_VALUE.
    pub fn is_map_annotated(&self) -> bool {
        self.is_group()
            && matches!(
                self.converted_or_implied(),
                Some(ConvertedType::MAP | ConvertedType::MAP_KEY_VALUE)
            )
    }

    /// The LIST annotation as the legacy rules read it: the logical type
    /// when there is one, else the converted type.
    fn is_list_by_logical_type(&self) -> bool {
        if !self.is_group() {
            return false;
        }
        match &self.logical_type {
            Some(l) => matches!(l, LogicalType::List(_)),
            None => self.converted_type == Some(ConvertedType::LIST),
        }
    }
}

impl SchemaDescriptor {
    /// The dotted path of a node (empty for the root).
    pub fn node_path(&self, index: usize) -> String {
        let mut names = Vec::new();
        let mut at = Some(index);
        while let Some(i) = at {
            let Some(n) = self.node(i) else { break };
            if n.parent.is_some() {
                names.push(n.name.as_str());
            }
            at = n.parent;
        }
        names.reverse();
        names.join(".")
    }

    fn nested_err(&self, index: usize, message: impl Into<String>) -> SchemaError {
        SchemaError::at(self.node_path(index), message)
    }

    fn get(&self, index: usize) -> Result<&SchemaNode, SchemaError> {
        self.node(index)
            .ok_or_else(|| SchemaError::whole(format!("no schema node {index}")))
    }

    /// Where the elements of the list group `list` are (a LIST group, or a
    /// MAP group whose key-value group has one field).
    ///
    /// ```
    /// use pq_format::{FieldRepetitionType as R, ListLayout, SchemaDescriptor, SchemaElement, Type};
    /// let group = |name: &str, rep, n| SchemaElement {
    ///     name: name.into(), repetition_type: rep, num_children: Some(n), ..Default::default()
    /// };
    /// let mut list = group("l", Some(R::OPTIONAL), 1);
    /// list.converted_type = Some(pq_format::ConvertedType::LIST);
    /// let elements = vec![
    ///     group("m", None, 1),
    ///     list,
    ///     group("list", Some(R::REPEATED), 1),
    ///     SchemaElement { name: "element".into(), type_: Some(Type::INT32), repetition_type: Some(R::OPTIONAL), ..Default::default() },
    /// ];
    /// let schema = SchemaDescriptor::new(&elements, &Default::default()).unwrap();
    /// assert_eq!(schema.list_element(1).unwrap(), ListLayout::Wrapped { repeated: 2, element: 3 });
    /// ```
    pub fn list_element(&self, list: usize) -> Result<ListLayout, SchemaError> {
        let node = self.get(list)?;
        if !node.is_group() {
            return Err(self.nested_err(list, "a LIST annotation on a primitive field"));
        }
        let &[r] = node.children() else {
            return Err(self.nested_err(
                list,
                format!(
                    "list type must have a single child, found {}",
                    node.children().len()
                ),
            ));
        };
        let repeated = self.get(r)?;
        if !repeated.is_repeated() {
            return Err(self.nested_err(list, "List child must be repeated"));
        }
        if node.is_repeated() {
            return Err(self.nested_err(list, "List type cannot be repeated"));
        }
        let &[item] = repeated.children() else {
            // A primitive, or a group of several fields: the element itself.
            return Ok(ListLayout::Repeated(r));
        };
        let single_repeated_child = self.get(item)?.is_repeated();
        let legacy_name =
            repeated.name == "array" || repeated.name == format!("{}_tuple", node.name);
        if !repeated.is_list_by_logical_type() && !single_repeated_child && legacy_name {
            return Ok(ListLayout::Repeated(r));
        }
        Ok(ListLayout::Wrapped {
            repeated: r,
            element: item,
        })
    }

    /// The key-value group, key and value of the MAP group `map`.
    pub fn map_entries(&self, map: usize) -> Result<MapEntries, SchemaError> {
        let node = self.get(map)?;
        if node.is_repeated() {
            return Err(self.nested_err(map, "Map cannot be repeated"));
        }
        let &[kv] = node.children() else {
            return Err(self.nested_err(
                map,
                format!(
                    "Map field must have exactly one key_value child, found {}",
                    node.children().len()
                ),
            ));
        };
        let key_value = self.get(kv)?;
        if !key_value.is_repeated() {
            return Err(self.nested_err(map, "Child of map field must be repeated"));
        }
        let (key, value) = match key_value.children() {
            [_] => return self.list_element(map).map(MapEntries::List),
            &[k, v] => (k, v),
            other => {
                return Err(self.nested_err(
                    map,
                    format!(
                        "Child of map field must have two children, found {}",
                        other.len()
                    ),
                ));
            }
        };
        if self.get(key)?.is_repeated() {
            return Err(self.nested_err(map, "Map keys cannot be repeated"));
        }
        if self.get(value)?.is_repeated() {
            return Err(self.nested_err(map, "Map values cannot be repeated"));
        }
        Ok(MapEntries::KeyValue {
            key_value: kv,
            key,
            value,
        })
    }

    /// What the repeated field `node` stands for (`None` when it is not
    /// repeated): by its parent's LIST or MAP layout, else a bare repeated
    /// field.
    pub fn repeated_role(&self, node: usize) -> Option<RepeatedRole> {
        if !self.node(node)?.is_repeated() {
            return None;
        }
        let parent = self.node(node)?.parent?;
        let p = self.node(parent)?;
        let list_role = |l: ListLayout| match l {
            ListLayout::Repeated(_) => RepeatedRole::ListElement,
            ListLayout::Wrapped { .. } => RepeatedRole::ListWrapper,
        };
        if p.is_list_annotated() {
            if let Ok(l) = self.list_element(parent) {
                return Some(list_role(l));
            }
        } else if p.is_map_annotated() {
            match self.map_entries(parent) {
                Ok(MapEntries::KeyValue { .. }) => return Some(RepeatedRole::MapKeyValue),
                Ok(MapEntries::List(l)) => return Some(list_role(l)),
                Err(_) => {}
            }
        }
        Some(RepeatedRole::Bare)
    }

    /// Checks every LIST and MAP group a reader meets, walking the tree as
    /// it does: the fields of a struct, a list's element, a map's key and
    /// value. (A LIST group read as a legacy list's element is a struct
    /// there, not a list.)
    pub(crate) fn check_nested(&self) -> Result<(), SchemaError> {
        let mut todo: Vec<usize> = self.root().children().to_vec();
        while let Some(i) = todo.pop() {
            let node = self.get(i)?;
            if !node.is_group() {
                continue;
            }
            let list = if node.is_list_annotated() {
                Some(self.list_element(i)?)
            } else if node.is_map_annotated() {
                match self.map_entries(i)? {
                    MapEntries::KeyValue { key, value, .. } => {
                        todo.extend([key, value]);
                        None
                    }
                    MapEntries::List(l) => Some(l),
                }
            } else {
                todo.extend_from_slice(node.children());
                None
            };
            match list {
                Some(ListLayout::Repeated(r)) => {
                    todo.extend_from_slice(self.get(r)?.children());
                }
                Some(ListLayout::Wrapped { element, .. }) => todo.push(element),
                None => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::{FieldRepetitionType as R, FormatError, Limits, SchemaElement, Type};

    fn group(name: &str, rep: Option<R>, n: i32, c: Option<ConvertedType>) -> SchemaElement {
        SchemaElement {
            name: name.into(),
            repetition_type: rep,
            num_children: Some(n),
            converted_type: c,
            ..Default::default()
        }
    }

    fn leaf(name: &str, rep: R) -> SchemaElement {
        SchemaElement {
            name: name.into(),
            repetition_type: Some(rep),
            type_: Some(Type::INT32),
            ..Default::default()
        }
    }

    const LIST: Option<ConvertedType> = Some(ConvertedType::LIST);
    const MAP: Option<ConvertedType> = Some(ConvertedType::MAP);

    fn build(e: &[SchemaElement]) -> Result<SchemaDescriptor, String> {
        SchemaDescriptor::new(e, &Limits::default()).map_err(|e| {
            assert!(matches!(e, FormatError::Schema(_)), "{e}");
            e.to_string()
        })
    }

    #[test]
    fn list_layouts_follow_the_backward_compatibility_rules() {
        // (the list's repeated child and below, the layout expected)
        let cases: Vec<(Vec<SchemaElement>, ListLayout)> = vec![
            // Three levels: repeated group list { element }.
            (
                vec![
                    group("list", Some(R::REPEATED), 1, None),
                    leaf("element", R::OPTIONAL),
                ],
                ListLayout::Wrapped {
                    repeated: 2,
                    element: 3,
                },
            ),
            // Two levels: a repeated primitive is the element.
            (vec![leaf("item", R::REPEATED)], ListLayout::Repeated(2)),
            // A repeated group of two fields is the element.
            (
                vec![
                    group("pair", Some(R::REPEATED), 2, None),
                    leaf("a", R::REQUIRED),
                    leaf("b", R::REQUIRED),
                ],
                ListLayout::Repeated(2),
            ),
            // The `array` and `<name>_tuple` groups are the element.
            (
                vec![
                    group("array", Some(R::REPEATED), 1, None),
                    leaf("a", R::REQUIRED),
                ],
                ListLayout::Repeated(2),
            ),
            (
                vec![
                    group("l_tuple", Some(R::REPEATED), 1, None),
                    leaf("a", R::REQUIRED),
                ],
                ListLayout::Repeated(2),
            ),
            // ... unless their one field is itself repeated.
            (
                vec![
                    group("array", Some(R::REPEATED), 1, None),
                    leaf("a", R::REPEATED),
                ],
                ListLayout::Wrapped {
                    repeated: 2,
                    element: 3,
                },
            ),
        ];
        for (body, expected) in cases {
            let mut s = vec![
                group("m", None, 1, None),
                group("l", Some(R::OPTIONAL), 1, LIST),
            ];
            s.extend(body);
            let schema = build(&s).unwrap();
            assert_eq!(schema.list_element(1).unwrap(), expected, "{s:?}");
            let role = schema.repeated_role(expected.repeated()).unwrap();
            let expected_role = match expected {
                ListLayout::Repeated(_) => RepeatedRole::ListElement,
                ListLayout::Wrapped { .. } => RepeatedRole::ListWrapper,
            };
            assert_eq!(role, expected_role);
        }
    }

    #[test]
    fn map_entries_and_roles() {
        let s = vec![
            group("m", None, 2, None),
            group("map", Some(R::OPTIONAL), 1, MAP),
            group("key_value", Some(R::REPEATED), 2, None),
            leaf("key", R::REQUIRED),
            leaf("value", R::OPTIONAL),
            leaf("bare", R::REPEATED),
        ];
        let schema = build(&s).unwrap();
        assert_eq!(
            schema.map_entries(1).unwrap(),
            MapEntries::KeyValue {
                key_value: 2,
                key: 3,
                value: 4
            }
        );
        assert_eq!(schema.repeated_role(2), Some(RepeatedRole::MapKeyValue));
        assert_eq!(schema.repeated_role(5), Some(RepeatedRole::Bare));
        assert_eq!(schema.repeated_role(3), None);
        // A key-value group of one field: a list of it.
        let s = vec![
            group("m", None, 1, None),
            group(
                "map",
                Some(R::OPTIONAL),
                1,
                Some(ConvertedType::MAP_KEY_VALUE),
            ),
            group("key_value", Some(R::REPEATED), 1, None),
            leaf("key", R::REQUIRED),
        ];
        let schema = build(&s).unwrap();
        assert_eq!(
            schema.map_entries(1).unwrap(),
            MapEntries::List(ListLayout::Wrapped {
                repeated: 2,
                element: 3
            })
        );
    }

    #[test]
    fn malformed_lists_and_maps_are_errors_at_their_column() {
        let cases: Vec<(Vec<SchemaElement>, &str)> = vec![
            (
                vec![
                    group("l", Some(R::OPTIONAL), 1, LIST),
                    leaf("element", R::OPTIONAL),
                ],
                "schema error at column l: List child must be repeated",
            ),
            (
                vec![
                    group("l", Some(R::REPEATED), 1, LIST),
                    leaf("element", R::REPEATED),
                ],
                "schema error at column l: List type cannot be repeated",
            ),
            (
                vec![
                    group("l", Some(R::OPTIONAL), 2, LIST),
                    leaf("a", R::REPEATED),
                    leaf("b", R::REPEATED),
                ],
                "list type must have a single child, found 2",
            ),
            (
                vec![
                    group("m", Some(R::OPTIONAL), 1, MAP),
                    group("kv", Some(R::REPEATED), 2, None),
                    leaf("key", R::REPEATED),
                    leaf("value", R::OPTIONAL),
                ],
                "schema error at column m: Map keys cannot be repeated",
            ),
            (
                vec![
                    group("m", Some(R::OPTIONAL), 1, MAP),
                    group("kv", Some(R::OPTIONAL), 2, None),
                    leaf("key", R::REQUIRED),
                    leaf("value", R::OPTIONAL),
                ],
                "Child of map field must be repeated",
            ),
            (
                vec![{
                    let mut l = leaf("p", R::OPTIONAL);
                    l.converted_type = MAP;
                    l
                }],
                "schema error at column p: unable to convert Parquet INT32 with logical type \
                 None and converted type 1: a MAP annotation is for groups only",
            ),
            (
                vec![{
                    let mut l = leaf("p", R::OPTIONAL);
                    l.converted_type = Some(ConvertedType(-1));
                    l
                }],
                "schema error at column p: unknown converted type -1",
            ),
        ];
        for (body, expected) in cases {
            let mut s = vec![group("m", None, 1, None)];
            s.extend(body);
            let err = build(&s).unwrap_err();
            assert!(err.contains(expected), "{err:?} lacks {expected:?}");
        }
        // Nested below a struct, the column is the whole path.
        let s = vec![
            group("m", None, 1, None),
            group("s", Some(R::REQUIRED), 1, None),
            group("l", Some(R::OPTIONAL), 1, LIST),
            leaf("element", R::OPTIONAL),
        ];
        let err = build(&s).unwrap_err();
        assert!(err.starts_with("schema error at column s.l: "), "{err}");
    }

    #[test]
    fn absent_annotations_are_none_and_fixed_widths_are_checked() {
        let mut f = leaf("f", R::OPTIONAL);
        f.type_ = Some(Type::FIXED_LEN_BYTE_ARRAY);
        f.type_length = Some(16);
        let s = vec![group("m", None, 2, None), leaf("i", R::REQUIRED), f];
        let schema = build(&s).unwrap();
        let (i, f) = (&schema.columns()[0], &schema.columns()[1]);
        assert_eq!((i.type_length, i.fixed_width()), (None, 0));
        assert_eq!((f.type_length, f.fixed_width()), (Some(16), 16));
        assert_eq!((i.converted_type, i.logical_type.as_ref()), (None, None));
        assert_eq!((i.precision, i.scale, i.field_id), (None, None, None));
        assert_eq!(i.dotted(), "i");
    }
}
