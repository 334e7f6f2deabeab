//! Which columns to read, and the leaf columns they select.

use std::collections::BTreeSet;

use crate::error::{Error, Result};
use crate::schema::{LeafColumn, ParquetNode};

/// Which columns to read.
#[derive(Debug, Clone)]
pub(super) enum Projection {
    All,
    /// Top-level field names or dotted paths of nested fields or leaves.
    Names(Vec<String>),
    /// Top-level field indices.
    Indices(Vec<usize>),
    /// Leaf column indices.
    Leaves(Vec<usize>),
}

/// The leaf columns (indices into `leaves`) that `projection` selects in
/// the schema `root`.
pub(super) fn selected_leaves(
    projection: &Projection,
    root: &ParquetNode,
    leaves: &[LeafColumn],
) -> Result<BTreeSet<usize>> {
    let mut out = BTreeSet::new();
    match projection {
        Projection::All => out.extend(0..leaves.len()),
        Projection::Leaves(l) => {
            for &i in l {
                if i >= leaves.len() {
                    return Err(Error::Request {
                        message: format!(
                            "leaf column {i} does not exist: the file has {}",
                            leaves.len()
                        ),
                    });
                }
                out.insert(i);
            }
        }
        Projection::Indices(idx) => {
            let top: Vec<&str> = root.children().iter().map(|c| c.name.as_str()).collect();
            for &i in idx {
                let Some(name) = top.get(i) else {
                    return Err(Error::Request {
                        message: format!(
                            "column {i} does not exist: the file has {} top-level columns",
                            top.len()
                        ),
                    });
                };
                for (li, leaf) in leaves.iter().enumerate() {
                    if leaf.path.first().map(String::as_str) == Some(*name) {
                        out.insert(li);
                    }
                }
            }
        }
        Projection::Names(names) => {
            for name in names {
                let parts: Vec<&str> = name.split('.').collect();
                let mut found = false;
                for (li, leaf) in leaves.iter().enumerate() {
                    let whole = leaf.dotted() == *name;
                    let prefix = leaf.path.len() >= parts.len()
                        && leaf.path.iter().zip(&parts).all(|(a, b)| a == b);
                    if whole || prefix {
                        out.insert(li);
                        found = true;
                    }
                }
                if !found {
                    return Err(Error::Request {
                        message: format!("no column named {name:?}"),
                    });
                }
            }
        }
    }
    Ok(out)
}
