//! The rows of a row group whose pages may hold a match, from the page
//! index (`ColumnIndex` bounds and null counts per page, `OffsetIndex`
//! rows per page). Each column's pages give a selection; `AND` intersects
//! and `OR` unites them. A column without a usable index selects every
//! row, so the result never drops a matching row.
//!
//! An index whose page count or row numbers disagree with the row group
//! (more pages in one index than the other, rows that go backwards or past
//! the row group) is not used; the read goes on without it.

use arrow_schema::DataType;
use pq_format::{ColumnIndex, FileMetaData, OffsetIndex, RowGroup, SchemaDescriptor, Type};

use super::bind::{Bound, BoundPredicate};
use super::stats::{ChunkStats, bounds, order_known, stats_may_match};
use crate::reader::RowSelection;

/// One column's pages: the rows each covers, and what its bounds say.
pub(crate) struct PageStats {
    rows: Vec<std::ops::Range<usize>>,
    stats: Vec<ChunkStats>,
}

/// The pages of `leaf` (by index) from its two indexes, read as the
/// column's Arrow type `dt`; `None` when they do not fit the row group.
pub(crate) fn page_stats(
    md: &FileMetaData,
    schema: &SchemaDescriptor,
    leaf: usize,
    dt: &DataType,
    rg: &RowGroup,
    column_index: &ColumnIndex,
    offset_index: &OffsetIndex,
) -> Option<PageStats> {
    let descriptor = schema.column(leaf)?;
    if descriptor.max_rep_level > 0 {
        return None;
    }
    let total = usize::try_from(rg.num_rows).ok()?;
    let locations = &offset_index.page_locations;
    let n = locations.len();
    if n == 0 || column_index.null_pages.len() != n || column_index.min_values.len() != n {
        return None;
    }
    if column_index.max_values.len() != n {
        return None;
    }
    // Rows of each page: from its first row to the next page's.
    let mut rows = Vec::with_capacity(n);
    for i in 0..n {
        let start = usize::try_from(locations.get(i)?.first_row_index).ok()?;
        let end = match locations.get(i + 1) {
            Some(next) => usize::try_from(next.first_row_index).ok()?,
            None => total,
        };
        if (i == 0 && start != 0) || start > end || end > total {
            return None;
        }
        rows.push(start..end);
    }
    let is_float = matches!(
        dt,
        DataType::Float16 | DataType::Float32 | DataType::Float64
    );
    let bytes = matches!(
        descriptor.physical_type,
        Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY
    );
    let known = order_known(md, leaf);
    let mut stats = Vec::with_capacity(n);
    for (i, r) in rows.iter().enumerate() {
        let page_rows = r.len() as u64;
        let all_null = column_index.null_pages.get(i).copied().unwrap_or(false);
        let nulls = if all_null {
            Some(page_rows)
        } else {
            column_index
                .null_counts
                .as_ref()
                .and_then(|c| c.get(i).copied())
                .and_then(|c| u64::try_from(c).ok())
                .filter(|&c| c <= page_rows)
        };
        // A float page's bounds count only when it is known to hold no NaN.
        let nan_free = !is_float
            || column_index
                .nan_counts
                .as_ref()
                .and_then(|c| c.get(i).copied())
                == Some(0);
        let page_bounds = (!all_null && known && nan_free)
            .then(|| {
                bounds(
                    column_index.min_values.get(i)?,
                    column_index.max_values.get(i)?,
                    descriptor,
                    dt,
                )
            })
            .flatten();
        stats.push(ChunkStats {
            rows: page_rows,
            nulls,
            bounds: page_bounds,
            // Page bounds of byte arrays may be truncated.
            exact: !bytes,
        });
    }
    Some(PageStats { rows, stats })
}

/// The rows of a row group of `total` rows that `predicate` may keep, given
/// the pages of each predicate column that has an index (`pages[k]` for
/// the predicate's column `k`).
pub(crate) fn page_selection(
    predicate: &BoundPredicate,
    pages: &[Option<PageStats>],
    total: usize,
) -> RowSelection {
    select(&predicate.root, pages, total)
}

fn select(node: &Bound, pages: &[Option<PageStats>], total: usize) -> RowSelection {
    match node {
        Bound::And(a, b) => select(a, pages, total).intersection(&select(b, pages, total)),
        Bound::Or(a, b) => select(a, pages, total).union(&select(b, pages, total)),
        Bound::Compare { column, .. }
        | Bound::InList { column, .. }
        | Bound::IsNull { column, .. }
        | Bound::Like { column, .. } => match pages.get(*column).and_then(Option::as_ref) {
            None => RowSelection::all(total),
            Some(p) => RowSelection::from_consecutive_ranges(
                p.rows
                    .iter()
                    .zip(&p.stats)
                    .filter(|(_, s)| stats_may_match(node, s))
                    .map(|(r, _)| r.clone()),
                total,
            ),
        },
    }
}
