//! Which columns to read: [`ProjectionMask`], and the leaf columns it
//! selects.

use std::collections::BTreeSet;

use pq_format::{ColumnPath, SchemaDescriptor};

use crate::error::{Error, Result};

/// Which leaf columns of a file to read, as arrow-rs's `ProjectionMask`:
/// made against the file's Parquet schema, then given to
/// [`ParquetReader::with_projection`](super::ParquetReader::with_projection).
///
/// The batches hold the chosen columns in file order, whatever the order
/// they were named in; a group keeps only its chosen leaves. What the
/// schema does not have (an index past its columns, a path it lacks) is
/// reported by [`ParquetReader::build`](super::ParquetReader::build), as
/// is a mask made against another file's schema.
///
/// ```
/// # fn main() -> Result<(), pq_arrow::Error> {
/// use pq_arrow::{ParquetReader, ProjectionMask};
/// use pq_format::ColumnPath;
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/nested_plain_v1.parquet");
/// let reader = ParquetReader::open(path)?;
/// // The second top-level field, whole.
/// let mask = ProjectionMask::roots(reader.parquet_schema(), [1]);
/// let by_root = ParquetReader::open(path)?.with_projection(mask).build()?;
/// assert_eq!(by_root.schema().fields().len(), 1);
/// // The same field by its path: a name is never split at dots.
/// let name = reader.schema().field(1).name().clone();
/// let by_path = ProjectionMask::columns(reader.parquet_schema(), [ColumnPath::from(&[name][..])]);
/// let by_path = reader.with_projection(by_path).build()?;
/// assert_eq!(by_path.schema(), by_root.schema());
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectionMask {
    /// Whether each leaf column, by index, is read; `None` reads them all.
    mask: Option<Vec<bool>>,
    /// The first thing asked for that the schema does not have, reported
    /// when the reader is built (the constructors do not fail, as
    /// arrow-rs's).
    unknown: Option<String>,
}

impl Default for ProjectionMask {
    fn default() -> Self {
        Self::all()
    }
}

impl ProjectionMask {
    /// Every column.
    pub fn all() -> Self {
        ProjectionMask {
            mask: None,
            unknown: None,
        }
    }

    /// These leaf columns, by index in the schema's leaves (file order: leaf
    /// `i` is column chunk `i` of every row group).
    pub fn leaves(
        schema: &impl ProjectionSchema,
        indices: impl IntoIterator<Item = usize>,
    ) -> Self {
        let n = schema.leaves().len();
        let mut mask = vec![false; n];
        let mut unknown = None;
        for i in indices {
            match mask.get_mut(i) {
                Some(m) => *m = true,
                None => {
                    unknown.get_or_insert_with(|| {
                        format!("leaf column {i} does not exist: the file has {n}")
                    });
                }
            }
        }
        ProjectionMask {
            mask: Some(mask),
            unknown,
        }
    }

    /// These top-level fields, by index in the schema's root (which is
    /// also their index in the Arrow schema), each with all its leaves.
    pub fn roots(schema: &impl ProjectionSchema, indices: impl IntoIterator<Item = usize>) -> Self {
        let leaves = schema.leaves();
        let roots = schema.num_roots();
        let mut mask = vec![false; leaves.len()];
        let mut unknown = None;
        for i in indices {
            if i >= roots {
                unknown.get_or_insert_with(|| {
                    format!("column {i} does not exist: the file has {roots} top-level columns")
                });
                continue;
            }
            for (m, leaf) in mask.iter_mut().zip(&leaves) {
                *m |= leaf.root == i;
            }
        }
        ProjectionMask {
            mask: Some(mask),
            unknown,
        }
    }

    /// The columns at these paths: a path to a leaf selects it, a path to
    /// a group all the leaves below it. A path is a list of field names,
    /// each taken whole, so a name that holds a dot is selected like any
    /// other (`ColumnPath::from(&["a.b"][..])` is the top-level field
    /// `a.b`, `ColumnPath::from(&["a", "b"][..])` the field `b` of `a`).
    pub fn columns<P: Into<ColumnPath>>(
        schema: &impl ProjectionSchema,
        paths: impl IntoIterator<Item = P>,
    ) -> Self {
        let leaves = schema.leaves();
        let mut mask = vec![false; leaves.len()];
        let mut unknown = None;
        for path in paths {
            let path: ColumnPath = path.into();
            let mut found = false;
            for (m, leaf) in mask.iter_mut().zip(&leaves) {
                let under = !path.is_empty()
                    && leaf.path.len() >= path.len()
                    && path.iter().zip(&leaf.path).all(|(a, b)| a == b);
                *m |= under;
                found |= under;
            }
            if !found {
                unknown.get_or_insert_with(|| format!("no column at path {path:?}"));
            }
        }
        ProjectionMask {
            mask: Some(mask),
            unknown,
        }
    }

    /// Whether the leaf column of this index is read.
    pub fn leaf_included(&self, leaf: usize) -> bool {
        self.mask
            .as_ref()
            .is_none_or(|m| m.get(leaf).copied().unwrap_or(false))
    }

    /// The leaf columns of a file of `num_leaves` leaves that the mask
    /// selects; an error for what the mask asked and the file lacks.
    pub(super) fn selected(&self, num_leaves: usize) -> Result<BTreeSet<usize>> {
        if let Some(message) = &self.unknown {
            return Err(Error::Request {
                message: message.clone(),
            });
        }
        let Some(mask) = &self.mask else {
            return Ok((0..num_leaves).collect());
        };
        if mask.len() != num_leaves {
            return Err(Error::Request {
                message: format!(
                    "the projection was made for a schema of {} leaf columns; the file has {num_leaves}",
                    mask.len()
                ),
            });
        }
        Ok(mask
            .iter()
            .enumerate()
            .filter_map(|(i, &m)| m.then_some(i))
            .collect())
    }
}

/// One leaf column as a mask sees it.
#[derive(Debug)]
pub struct MaskLeaf {
    /// The index of its top-level field.
    root: usize,
    /// Its field names from below the root.
    path: Vec<String>,
}

/// A Parquet schema a [`ProjectionMask`] is made against: what
/// [`ParquetReader::parquet_schema`](super::ParquetReader::parquet_schema)
/// returns, or a `pq_format::SchemaDescriptor`.
pub trait ProjectionSchema: sealed::Sealed {
    /// The leaf columns in file order.
    #[doc(hidden)]
    fn leaves(&self) -> Vec<MaskLeaf>;

    /// The number of top-level fields.
    #[doc(hidden)]
    fn num_roots(&self) -> usize;
}

mod sealed {
    /// Only pq's schema types make masks.
    pub trait Sealed {}
    impl Sealed for pq_format::SchemaDescriptor {}
}

impl ProjectionSchema for SchemaDescriptor {
    fn leaves(&self) -> Vec<MaskLeaf> {
        let roots = self.root().children();
        self.columns()
            .iter()
            .map(|c| MaskLeaf {
                root: c
                    .path_nodes
                    .first()
                    .and_then(|top| roots.iter().position(|r| r == top))
                    .unwrap_or(usize::MAX),
                path: c.path.to_vec(),
            })
            .collect()
    }

    fn num_roots(&self) -> usize {
        self.root().children().len()
    }
}
