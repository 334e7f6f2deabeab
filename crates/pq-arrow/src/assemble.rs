//! Record assembly: from the levels and leaf arrays of the columns to
//! nested Arrow arrays (List, LargeList, Map, Struct at any depth).
//!
//! A node at repetition level `r` below lists has one slot per level entry
//! whose repetition level is at most `r` and whose definition level reaches
//! its innermost list's element level (its "slot definition level"; 0
//! outside lists): entries below it are empty or null ancestors and have no
//! slot. Leaf readers build their arrays with these slots only (see
//! [`child_slot_def`]), so a list's child array is used as it is: no copy
//! dropping the slots of null and empty lists. A list walks the levels of
//! its first leaf: an entry at its own repetition level adds an element, a
//! lower one starts a new list, a higher one belongs to a nested list.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, GenericListArray, MapArray, OffsetSizeTrait, StructArray, make_array,
};
use arrow_buffer::{
    BooleanBuffer, BooleanBufferBuilder, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer,
};
use arrow_data::transform::MutableArrayData;
use arrow_schema::{DataType, Fields};

use crate::column::LeafData;
use crate::error::{Location, Result, arrow_err, data_err, unsupported};
use crate::schema::{FieldKind, FieldNode};

/// The leaves of one row group, by leaf column index.
pub(crate) type Leaves = HashMap<usize, LeafData>;

fn first_leaf(node: &FieldNode) -> Option<usize> {
    match &node.kind {
        FieldKind::Leaf { column_index } => Some(*column_index),
        FieldKind::Group(c) => c.first().and_then(first_leaf),
    }
}

/// Levels of the first leaf under `node`.
fn levels<'a>(node: &FieldNode, leaves: &'a Leaves) -> (Option<&'a [i16]>, Option<&'a [i16]>) {
    match first_leaf(node).and_then(|i| leaves.get(&i)) {
        Some(l) => (l.def.as_deref(), l.rep.as_deref()),
        None => (None, None),
    }
}

/// The validity of the first leaf under `node`, for a leaf whose
/// definition levels are left out (see [`LeafData::def`]).
fn leaf_nulls(node: &FieldNode, leaves: &Leaves) -> Option<NullBuffer> {
    let leaf = first_leaf(node).and_then(|i| leaves.get(&i))?;
    leaf.array.nulls().filter(|n| n.null_count() > 0).cloned()
}

/// The slot definition level of the children of `node`, whose own is
/// `slot_def`: a list's element level, else unchanged.
pub(crate) fn child_slot_def(node: &FieldNode, slot_def: i16) -> i16 {
    match (&node.kind, &node.arrow_type) {
        (
            FieldKind::Group(_),
            DataType::List(_)
            | DataType::LargeList(_)
            | DataType::FixedSizeList(_, _)
            | DataType::Map(_, _),
        ) => node.def_level,
        _ => slot_def,
    }
}

/// Builds the array of the top-level field `node`, `at` naming the field
/// for errors.
pub(crate) fn build(node: &FieldNode, leaves: &Leaves, at: &Location) -> Result<ArrayRef> {
    build_node(node, leaves, 0, at)
}

/// Builds the array of `node`, whose slots are the entries at or above
/// `slot_def` (see the module docs).
fn build_node(node: &FieldNode, leaves: &Leaves, slot_def: i16, at: &Location) -> Result<ArrayRef> {
    match &node.kind {
        FieldKind::Leaf { column_index } => match leaves.get(column_index) {
            Some(l) => Ok(l.array.clone()),
            None => Err(data_err(
                at,
                format!("leaf column {column_index} was not read"),
            )),
        },
        FieldKind::Group(children) => match &node.arrow_type {
            DataType::Struct(fields) => build_struct(node, fields, children, leaves, slot_def, at),
            DataType::List(_)
            | DataType::LargeList(_)
            | DataType::FixedSizeList(_, _)
            | DataType::Map(_, _) => build_list(node, children, leaves, slot_def, at),
            other => Err(unsupported(
                at,
                format!("reading nested data as Arrow {other}"),
            )),
        },
    }
}

/// The validity of a struct (or any node) at its own granularity.
fn node_nulls(node: &FieldNode, leaves: &Leaves, slot_def: i16) -> Option<NullBuffer> {
    if node.def_level == 0 {
        return None;
    }
    let (def, rep) = levels(node, leaves);
    let Some(def) = def else {
        // A flat leaf without levels: they are 1 where it is valid (the
        // node's level, between 1 and the leaf's max of 1), or all the
        // leaf's max level, at or above the node's.
        return leaf_nulls(node, leaves);
    };
    let buf = match rep {
        Some(rep) => {
            let mut b = BooleanBufferBuilder::new(def.len());
            for (d, r) in def.iter().zip(rep) {
                if *r <= node.rep_level && *d >= slot_def {
                    b.append(*d >= node.def_level);
                }
            }
            b.finish()
        }
        None => BooleanBuffer::collect_bool(def.len(), |i| {
            def.get(i).is_some_and(|d| *d >= node.def_level)
        }),
    };
    let nulls = NullBuffer::new(buf);
    (nulls.null_count() > 0).then_some(nulls)
}

fn build_struct(
    node: &FieldNode,
    fields: &Fields,
    children: &[FieldNode],
    leaves: &Leaves,
    slot_def: i16,
    at: &Location,
) -> Result<ArrayRef> {
    let arrays = children
        .iter()
        .zip(fields.iter())
        .map(|(c, f)| build_node(c, leaves, slot_def, &child_at(at, f.name())))
        .collect::<Result<Vec<_>>>()?;
    // A required struct below an optional one still gets the validity its
    // levels give, so that its required children's undefined slots are
    // covered; the parent's validity masks these slots anyway.
    let nulls = node_nulls(node, leaves, slot_def);
    let len = arrays.first().map(|a| a.len()).unwrap_or(0);
    if let Some(n) = &nulls
        && n.len() != len
    {
        return Err(data_err(
            at,
            format!(
                "struct validity has {} entries but its children {len}",
                n.len()
            ),
        ));
    }
    StructArray::try_new(fields.clone(), arrays, nulls)
        .map(|a| Arc::new(a) as ArrayRef)
        .map_err(|e| arrow_err(at, e))
}

fn child_at(at: &Location, name: &str) -> Location {
    let mut at = at.clone();
    at.column = Some(match at.column {
        Some(c) if !c.is_empty() => format!("{c}.{name}"),
        _ => name.to_string(),
    });
    at
}

/// Offsets and validity of a list from the levels.
struct ListShape<O> {
    offsets: Vec<O>,
    /// Validity, when the list is nullable and some list is null.
    nulls: Option<NullBuffer>,
    /// Which lists are defined (not null, nor under a null struct between
    /// the list and its slot level), when asked for.
    defined: Option<BooleanBuffer>,
    /// Child slots: the entries with an element of this list.
    child_len: usize,
}

/// One pass over the levels without a branch per entry (the levels of
/// random data defeat branch prediction): every entry writes the offset at
/// the current slot, overwritten until an entry opens the next slot, and
/// ORs the validity bit of the current slot, which only a slot's entry can
/// set.
fn list_shape<O: OffsetSizeTrait>(
    node: &FieldNode,
    def: &[i16],
    rep: &[i16],
    slot_def: i16,
    want_defined: bool,
    at: &Location,
) -> Result<ListShape<O>> {
    let rep_level = node.rep_level;
    let def_level = node.def_level;
    let empty_level = def_level.wrapping_sub(1);
    let n = def.len().min(rep.len());
    // Offsets are at most `n`: one check for them all.
    if O::from_usize(n).is_none() {
        return Err(data_err(at, "list offsets overflow the offset type"));
    }
    let mut offsets = vec![O::usize_as(0); n + 1];
    let nullable = node.nullable;
    // Bits of the defined lists, one per slot; none to set when the list
    // is required and they are not asked for.
    let bits = nullable || want_defined;
    let mut words = vec![0u64; if bits { n.div_ceil(64) } else { 0 }];
    let mut cur = 0usize; // elements so far
    let mut slots = 0usize;
    let mut bad = false;
    for (&d, &r) in def.iter().zip(rep) {
        // An element of this list (or of a list nested in one): the list
        // must have one.
        let deeper = r >= rep_level;
        bad |= deeper & (d < def_level);
        // Otherwise a new list, unless an ancestor is empty or null.
        let new_slot = !deeper & (d >= slot_def);
        let present = d >= def_level;
        if let Some(o) = offsets.get_mut(slots) {
            *o = O::usize_as(cur);
        }
        if let Some(w) = words.get_mut(slots / 64) {
            *w |= u64::from(new_slot & (present | (d == empty_level))) << (slots % 64);
        }
        cur += usize::from((deeper & (r == rep_level)) | (new_slot & present));
        slots += usize::from(new_slot);
    }
    if bad {
        return Err(data_err(
            at,
            "repetition level too large for the definition level",
        ));
    }
    if let Some(o) = offsets.get_mut(slots) {
        *o = O::usize_as(cur);
    }
    offsets.truncate(slots + 1);
    words.truncate(slots.div_ceil(64));
    let defined = bits.then(|| BooleanBuffer::new(Buffer::from_vec(words), 0, slots));
    let nulls = defined
        .clone()
        .filter(|_| nullable)
        .map(NullBuffer::new)
        .filter(|n| n.null_count() > 0);
    Ok(ListShape {
        defined: defined.filter(|_| want_defined),
        offsets,
        nulls,
        child_len: cur,
    })
}

fn child_len_err(at: &Location, child: &str, levels: usize, len: usize) -> crate::error::Error {
    data_err(
        at,
        format!("the list's levels give {levels} elements but its child {child} has {len}"),
    )
}

/// A list's or map's offsets and validity, from the levels, and its child
/// arrays (one per `(node, field)` of `children`), each checked to hold
/// the elements the levels give.
struct ListParts<O: OffsetSizeTrait> {
    offsets: OffsetBuffer<O>,
    nulls: Option<NullBuffer>,
    children: Vec<ArrayRef>,
}

fn list_parts<'a, O: OffsetSizeTrait>(
    node: &FieldNode,
    children: impl IntoIterator<Item = (&'a FieldNode, &'a arrow_schema::FieldRef)>,
    leaves: &Leaves,
    (def, rep): (&[i16], &[i16]),
    slot_def: i16,
    at: &Location,
) -> Result<ListParts<O>> {
    let shape = list_shape::<O>(node, def, rep, slot_def, false, at)?;
    let elem_def = child_slot_def(node, slot_def);
    let mut arrays = Vec::new();
    for (c, f) in children {
        let a = build_node(c, leaves, elem_def, &child_at(at, f.name()))?;
        if a.len() != shape.child_len {
            return Err(child_len_err(at, f.name(), shape.child_len, a.len()));
        }
        arrays.push(a);
    }
    Ok(ListParts {
        // Never decreasing: `list_shape` counts elements up.
        offsets: OffsetBuffer::new(ScalarBuffer::from(shape.offsets)),
        nulls: shape.nulls,
        children: arrays,
    })
}

fn list_array<O: OffsetSizeTrait>(
    node: &FieldNode,
    field: &arrow_schema::FieldRef,
    child: &FieldNode,
    leaves: &Leaves,
    levels: (&[i16], &[i16]),
    slot_def: i16,
    at: &Location,
) -> Result<ArrayRef> {
    let parts = list_parts::<O>(node, [(child, field)], leaves, levels, slot_def, at)?;
    let Some(values) = parts.children.into_iter().next() else {
        return Err(data_err(at, "a list without element"));
    };
    let a = GenericListArray::<O>::try_new(field.clone(), parts.offsets, values, parts.nulls)
        .map_err(|e| arrow_err(at, e))?;
    Ok(Arc::new(a))
}

fn build_list(
    node: &FieldNode,
    children: &[FieldNode],
    leaves: &Leaves,
    slot_def: i16,
    at: &Location,
) -> Result<ArrayRef> {
    let (def, rep) = levels(node, leaves);
    let (Some(def), Some(rep)) = (def, rep) else {
        return Err(data_err(at, "a list column without levels"));
    };
    let elem_def = child_slot_def(node, slot_def);
    match &node.arrow_type {
        DataType::List(field) | DataType::LargeList(field) => {
            let Some(child) = children.first() else {
                return Err(data_err(at, "a list without element"));
            };
            if matches!(node.arrow_type, DataType::LargeList(_)) {
                list_array::<i64>(node, field, child, leaves, (def, rep), slot_def, at)
            } else {
                list_array::<i32>(node, field, child, leaves, (def, rep), slot_def, at)
            }
        }
        DataType::FixedSizeList(field, size) => {
            let shape = list_shape::<i64>(node, def, rep, slot_def, true, at)?;
            let nulls = shape.nulls;
            let defined = shape.defined;
            let Some(child) = children.first() else {
                return Err(data_err(at, "a list without element"));
            };
            let values = build_node(child, leaves, elem_def, &child_at(at, field.name()))?;
            if values.len() != shape.child_len {
                return Err(child_len_err(
                    at,
                    field.name(),
                    shape.child_len,
                    values.len(),
                ));
            }
            let size_u = usize::try_from(*size).unwrap_or(0);
            let data = values.to_data();
            let n_lists = shape.offsets.len().saturating_sub(1);
            let mut m = MutableArrayData::new(vec![&data], true, n_lists * size_u);
            for (i, w) in shape.offsets.windows(2).enumerate() {
                // Offsets are at most the levels' count: they fit.
                let (s, e) = (w[0] as usize, w[1] as usize);
                // A list that is null, or under a null struct, is a run
                // of nulls; an empty one is an error.
                let valid = defined.as_ref().is_none_or(|d| d.value(i));
                if e - s == size_u {
                    m.try_extend(0, s, e).map_err(|e| arrow_err(at, e))?;
                } else if e == s && !valid {
                    m.try_extend_nulls(size_u).map_err(|e| arrow_err(at, e))?;
                } else {
                    return Err(data_err(
                        &at.clone().at_row(i),
                        format!("a list of {} elements in a FixedSizeList({size})", e - s),
                    ));
                }
            }
            let values = make_array(m.freeze());
            let a = arrow_array::FixedSizeListArray::try_new(field.clone(), *size, values, nulls)
                .map_err(|e| arrow_err(at, e))?;
            Ok(Arc::new(a))
        }
        DataType::Map(entries, _) => {
            let DataType::Struct(fields) = entries.data_type() else {
                return Err(data_err(at, "map entries are not a struct"));
            };
            let parts = list_parts::<i32>(
                node,
                children.iter().zip(fields.iter()),
                leaves,
                (def, rep),
                slot_def,
                at,
            )?;
            let entries_arr = StructArray::try_new(fields.clone(), parts.children, None)
                .map_err(|e| arrow_err(at, e))?;
            let sorted = matches!(node.arrow_type, DataType::Map(_, true));
            let a = MapArray::try_new(
                entries.clone(),
                parts.offsets,
                entries_arr,
                parts.nulls,
                sorted,
            )
            .map_err(|e| arrow_err(at, e))?;
            Ok(Arc::new(a))
        }
        other => Err(unsupported(at, format!("list type {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int32Type;
    use arrow_array::{Int32Array, ListArray};
    use arrow_schema::Field;

    fn leaf(def: i16, rep: i16, nullable: bool) -> FieldNode {
        FieldNode {
            rep_level: rep,
            def_level: def,
            nullable,
            arrow_type: DataType::Int32,
            kind: FieldKind::Leaf { column_index: 0 },
        }
    }

    fn list_of(child: FieldNode, def: i16, rep: i16, nullable: bool) -> FieldNode {
        let f = Field::new("element", child.arrow_type.clone(), child.nullable);
        FieldNode {
            rep_level: rep,
            def_level: def,
            nullable,
            arrow_type: DataType::List(Arc::new(f)),
            kind: FieldKind::Group(vec![child]),
        }
    }

    fn leaves(def: Vec<i16>, rep: Option<Vec<i16>>, values: Vec<Option<i32>>) -> Leaves {
        let mut l = Leaves::new();
        l.insert(
            0,
            LeafData {
                def: Some(def),
                rep,
                array: Arc::new(Int32Array::from(values)),
                matched: None,
            },
        );
        l
    }

    #[test]
    fn optional_list_of_optional_ints() {
        // [[1, null], null, [], [3]]
        let node = list_of(leaf(3, 1, true), 2, 1, true);
        let l = leaves(
            vec![3, 2, 0, 1, 3],
            Some(vec![0, 1, 0, 0, 0]),
            // Slots of the entries with an element (definition level 2 up).
            vec![Some(1), None, Some(3)],
        );
        let a = build(&node, &l, &Location::default()).unwrap();
        let expected = ListArray::from_iter_primitive::<Int32Type, _, _>(vec![
            Some(vec![Some(1), None]),
            None,
            Some(vec![]),
            Some(vec![Some(3)]),
        ]);
        let got = a.as_list::<i32>();
        assert_eq!(got.value_offsets(), expected.value_offsets());
        assert_eq!(got.nulls(), expected.nulls());
        assert_eq!(got.values().to_data(), expected.values().to_data());
    }

    #[test]
    fn list_of_lists() {
        // [[[1, 2], []], [], [[3]]] with every level required but the lists
        // repeated: def 1 = outer element, 2 = inner element.
        let inner = list_of(leaf(2, 2, false), 2, 2, false);
        let outer = list_of(inner, 1, 1, false);
        let l = leaves(
            vec![2, 2, 1, 0, 2],
            Some(vec![0, 2, 1, 0, 0]),
            vec![Some(1), Some(2), Some(3)],
        );
        let a = build(&outer, &l, &Location::default()).unwrap();
        let outer_list = a.as_list::<i32>();
        assert_eq!(outer_list.len(), 3);
        assert_eq!(outer_list.value_offsets(), &[0, 2, 2, 3]);
        let inner_list = outer_list.values().as_list::<i32>();
        assert_eq!(inner_list.value_offsets(), &[0, 2, 2, 3]);
        let ints = inner_list.values().as_primitive::<Int32Type>();
        assert_eq!(ints.values(), &[1, 2, 3]);
        assert_eq!(ints.null_count(), 0);
    }

    #[test]
    fn nullable_struct_validity_from_levels() {
        // {a: 1}, null, {a: null}
        let child = leaf(2, 0, true);
        let fields = Fields::from(vec![Field::new("a", DataType::Int32, true)]);
        let node = FieldNode {
            rep_level: 0,
            def_level: 1,
            nullable: true,
            arrow_type: DataType::Struct(fields),
            kind: FieldKind::Group(vec![child]),
        };
        let l = leaves(vec![2, 0, 1], None, vec![Some(1), None, None]);
        let a = build(&node, &l, &Location::default()).unwrap();
        let s = a.as_struct();
        assert!(s.is_valid(0) && s.is_null(1) && s.is_valid(2));
        let ints = s.column(0).as_primitive::<Int32Type>();
        assert_eq!(ints.value(0), 1);
        assert!(ints.is_null(2));
    }

    #[test]
    fn required_fixed_size_list_under_a_null_struct_is_nulls() {
        // {f: [5]}, null: struct def 1, list element def 2, value def 3.
        let f = Field::new("element", DataType::Int32, true);
        let fsl = FieldNode {
            rep_level: 1,
            def_level: 2,
            nullable: false,
            arrow_type: DataType::FixedSizeList(Arc::new(f), 1),
            kind: FieldKind::Group(vec![leaf(3, 1, true)]),
        };
        let fields = Fields::from(vec![Field::new("f", fsl.arrow_type.clone(), false)]);
        let node = FieldNode {
            rep_level: 0,
            def_level: 1,
            nullable: true,
            arrow_type: DataType::Struct(fields),
            kind: FieldKind::Group(vec![fsl]),
        };
        let l = leaves(vec![3, 0], Some(vec![0, 0]), vec![Some(5)]);
        let a = build(&node, &l, &Location::default()).unwrap();
        let s = a.as_struct();
        assert!(s.is_valid(0) && s.is_null(1));
        let lists = s.column(0).as_fixed_size_list();
        let ints = lists.values().as_primitive::<Int32Type>();
        assert_eq!(ints.len(), 2);
        assert_eq!(ints.value(0), 5);
        assert!(ints.is_null(1));
        // A present but empty list cannot fill a FixedSizeList(1).
        let l = leaves(vec![3, 1], Some(vec![0, 0]), vec![Some(5)]);
        assert!(build(&node, &l, &Location::default()).is_err());
    }

    #[test]
    fn repetition_beyond_definition_is_an_error() {
        let node = list_of(leaf(3, 1, true), 2, 1, true);
        // An entry continuing a list that was null.
        let l = leaves(vec![0, 0], Some(vec![0, 1]), vec![None, None]);
        assert!(build(&node, &l, &Location::default()).is_err());
    }
}
