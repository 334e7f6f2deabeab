//! Which columns a filtered read decodes late, and the batch put back
//! together from the two halves.
//!
//! Late materialization: the top-level fields the predicate reads (and any
//! that holds a list, whose rows are records of levels a run cannot pass
//! over yet) are *early*: decoded for every row of a batch, then tested.
//! The other fields are *late*: decoded only for the rows the test kept
//! (see [`crate::row_group_tasks`]). With a row selection and no
//! predicate, every field is late.

use std::collections::HashSet;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{Schema, SchemaRef};

use crate::error::{Location, Result, arrow_err};
use crate::schema::{FieldKind, FieldNode};

/// The early and late fields of a read.
#[derive(Debug)]
pub(super) struct LatePlan {
    /// Whether each top-level field of the read schema is late.
    late_field: Vec<bool>,
    /// The leaf columns of the late fields.
    late_leaves: HashSet<usize>,
    /// The schema of the early fields alone (what the predicate is tested
    /// on).
    early_schema: SchemaRef,
}

fn collect_leaves(node: &FieldNode, out: &mut Vec<usize>) {
    match &node.kind {
        FieldKind::Leaf { column_index } => out.push(*column_index),
        FieldKind::Group(children) => children.iter().for_each(|c| collect_leaves(c, out)),
    }
}

impl LatePlan {
    /// The plan for reading the fields of `root` (as `schema`) with a
    /// predicate on leaves `early_leaves`; `repeated` says whether a leaf
    /// is repeated. `None` when no field can be late.
    pub(super) fn new(
        root: &FieldNode,
        schema: &SchemaRef,
        early_leaves: &[usize],
        repeated: impl Fn(usize) -> bool,
    ) -> Option<LatePlan> {
        let FieldKind::Group(children) = &root.kind else {
            return None;
        };
        let mut late_field = Vec::with_capacity(children.len());
        let mut late_leaves = HashSet::new();
        let mut early_fields = Vec::new();
        for (child, field) in children.iter().zip(schema.fields().iter()) {
            let mut leaves = Vec::new();
            collect_leaves(child, &mut leaves);
            let late = !leaves
                .iter()
                .any(|l| early_leaves.contains(l) || repeated(*l));
            if late {
                late_leaves.extend(leaves);
            } else {
                early_fields.push(field.clone());
            }
            late_field.push(late);
        }
        if late_leaves.is_empty() {
            return None;
        }
        Some(LatePlan {
            late_field,
            late_leaves,
            early_schema: Arc::new(Schema::new(early_fields)),
        })
    }

    /// Where leaf column `leaf` is an early top-level field of `root` (as
    /// the plan was made for) that is a leaf itself, not a group: its index
    /// among the top-level fields and among the early ones.
    pub(super) fn early_leaf(&self, root: &FieldNode, leaf: usize) -> Option<(usize, usize)> {
        let FieldKind::Group(children) = &root.kind else {
            return None;
        };
        children
            .iter()
            .enumerate()
            .filter(|(i, _)| !self.field_is_late(*i))
            .enumerate()
            .find_map(|(early, (i, child))| match child.kind {
                FieldKind::Leaf { column_index } if column_index == leaf => Some((i, early)),
                _ => None,
            })
    }

    /// Whether leaf column `leaf` is read late.
    pub(super) fn is_late(&self, leaf: usize) -> bool {
        self.late_leaves.contains(&leaf)
    }

    /// The leaf columns read late, in order.
    pub(super) fn late_leaves(&self) -> Vec<usize> {
        let mut leaves: Vec<usize> = self.late_leaves.iter().copied().collect();
        leaves.sort_unstable();
        leaves
    }

    /// How many leaf columns are read late.
    pub(super) fn late_columns(&self) -> usize {
        self.late_leaves.len()
    }

    /// Whether top-level field `i` is late.
    pub(super) fn field_is_late(&self, i: usize) -> bool {
        self.late_field.get(i).copied().unwrap_or(false)
    }

    /// The early fields' arrays, `rows` long, as a batch to test. A column
    /// read as dictionary keys has its dictionary type in the batch.
    pub(super) fn early_batch(&self, columns: Vec<ArrayRef>, rows: usize) -> Result<RecordBatch> {
        let fields = self.early_schema.fields();
        let keyed = columns
            .iter()
            .zip(fields.iter())
            .any(|(c, f)| c.data_type() != f.data_type());
        let schema = if keyed {
            let fields: Vec<_> = columns
                .iter()
                .zip(fields.iter())
                .map(|(c, f)| f.as_ref().clone().with_data_type(c.data_type().clone()))
                .collect();
            Arc::new(Schema::new(fields))
        } else {
            self.early_schema.clone()
        };
        RecordBatch::try_new_with_options(
            schema,
            columns,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )
        .map_err(|e| arrow_err(&Location::default(), e))
    }

    /// `early` (tested, and cut to its kept rows) with the columns read as
    /// dictionary keys turned into the values of the schema's types: the
    /// kept rows alone are gathered from the dictionary.
    pub(super) fn restore_types(&self, early: RecordBatch) -> Result<RecordBatch> {
        let fields = self.early_schema.fields();
        if early.schema().fields() == fields {
            return Ok(early);
        }
        let at = Location::default();
        let rows = early.num_rows();
        let columns = early
            .columns()
            .iter()
            .zip(fields.iter())
            .map(|(c, f)| match c.as_any_dictionary_opt() {
                Some(d) if c.data_type() != f.data_type() => {
                    arrow_select::take::take(d.values().as_ref(), d.keys(), None)
                        .map_err(|e| arrow_err(&at, e))
                }
                _ => Ok(c.clone()),
            })
            .collect::<Result<Vec<_>>>()?;
        RecordBatch::try_new_with_options(
            self.early_schema.clone(),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )
        .map_err(|e| arrow_err(&at, e))
    }

    /// The batch of `schema` from the kept rows of the early fields
    /// (`early`) and the late fields' arrays (`late`, in field order).
    pub(super) fn merge(
        &self,
        schema: &SchemaRef,
        early: &RecordBatch,
        late: Vec<ArrayRef>,
    ) -> Result<RecordBatch> {
        let mut early_cols = early.columns().iter();
        let mut late_cols = late.into_iter();
        let columns = self
            .late_field
            .iter()
            .filter_map(|&is_late| {
                if is_late {
                    late_cols.next()
                } else {
                    early_cols.next().cloned()
                }
            })
            .collect();
        RecordBatch::try_new_with_options(
            schema.clone(),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(early.num_rows())),
        )
        .map_err(|e| arrow_err(&Location::default(), e))
    }
}
