//! The page index of a column chunk: one entry per data page, turned into
//! the chunk's OffsetIndex (where each page is) and ColumnIndex (each
//! page's bounds and null count, and whether the bounds are ordered).

use std::cmp::Ordering;

use pq_format::{BinaryList, BoundaryOrder, ColumnIndex, OffsetIndex, PageLocation};

use crate::write::schema::SortOrder;
use crate::write::stats::truncate_bounds;

/// One data page's place in the chunk and its index entry.
#[derive(Debug)]
struct PageEntry {
    /// Offset of the page header from the first data page.
    offset: usize,
    len: usize,
    first_row: u64,
    null_count: u64,
    /// No non-null values.
    null_page: bool,
    bounds: Option<(Vec<u8>, Vec<u8>)>,
}

/// A data page as the page index sees it.
#[derive(Debug)]
pub(crate) struct IndexedPage {
    /// Offset of the page header from the first data page.
    pub offset: usize,
    /// Bytes of the page, header included.
    pub len: usize,
    /// Index of its first row in the chunk.
    pub first_row: u64,
    pub null_count: u64,
    /// Its non-null values (NaN included).
    pub values: u64,
    /// Its bounds, PLAIN (see `ColumnValues::flush_page`).
    pub bounds: Option<(Vec<u8>, Vec<u8>)>,
}

/// The page index of a column chunk being written.
#[derive(Debug)]
pub(crate) struct PageIndexBuilder {
    /// Off: no entries are kept and no index is written.
    enabled: bool,
    sort: SortOrder,
    /// Longest binary bound in the column index.
    truncate: Option<usize>,
    pages: Vec<PageEntry>,
}

impl PageIndexBuilder {
    pub(crate) fn new(enabled: bool, sort: SortOrder, truncate: Option<usize>) -> Self {
        Self {
            enabled,
            sort,
            truncate,
            pages: Vec::new(),
        }
    }

    /// Adds the next data page.
    pub(crate) fn push(&mut self, page: IndexedPage) {
        if !self.enabled {
            return;
        }
        let mut bounds = page.bounds;
        if let Some(b) = &mut bounds {
            truncate_bounds(b, self.sort, self.truncate);
        }
        self.pages.push(PageEntry {
            offset: page.offset,
            len: page.len,
            first_row: page.first_row,
            null_count: page.null_count,
            null_page: page.values == 0,
            bounds,
        });
    }

    /// The OffsetIndex (pages placed after a dictionary page of `dict_len`
    /// bytes, offsets from the chunk's start), and with `statistics` the
    /// ColumnIndex, its bounds compared by `cmp`.
    pub(crate) fn finish(
        &self,
        dict_len: usize,
        statistics: bool,
        cmp: impl Fn(&[u8], &[u8]) -> Ordering,
    ) -> (Option<ColumnIndex>, Option<OffsetIndex>) {
        if !self.enabled {
            return (None, None);
        }
        let page_locations: Vec<PageLocation> = self
            .pages
            .iter()
            .map(|p| PageLocation {
                offset: (dict_len + p.offset) as i64,
                compressed_page_size: p.len as i32,
                first_row_index: p.first_row as i64,
            })
            .collect();
        let column_index = statistics.then(|| self.column_index(cmp)).flatten();
        let offset_index = OffsetIndex {
            page_locations: page_locations.into(),
            unencoded_byte_array_data_bytes: None,
        };
        (column_index, Some(offset_index))
    }

    fn column_index(&self, cmp: impl Fn(&[u8], &[u8]) -> Ordering) -> Option<ColumnIndex> {
        let pages = &self.pages;
        let mut ci = ColumnIndex {
            null_counts: Some(pages.iter().map(|p| p.null_count as i64).collect()),
            ..Default::default()
        };
        let (mut mins, mut maxs): (Vec<&[u8]>, Vec<&[u8]>) = (Vec::new(), Vec::new());
        for p in pages {
            ci.null_pages.push(p.null_page);
            match (&p.bounds, p.null_page) {
                (Some((lo, hi)), false) => {
                    mins.push(lo);
                    maxs.push(hi);
                }
                (_, true) => {
                    mins.push(&[]);
                    maxs.push(&[]);
                }
                // Values without bounds (all NaN, or no order): no index.
                (None, false) => return None,
            }
        }
        ci.min_values = BinaryList::from_values(mins);
        ci.max_values = BinaryList::from_values(maxs);
        let bounded: Vec<&PageEntry> = pages.iter().filter(|p| !p.null_page).collect();
        let pairs = || {
            bounded
                .windows(2)
                .filter_map(|w| Some((w[0].bounds.as_ref()?, w[1].bounds.as_ref()?)))
        };
        let asc = pairs().all(|(a, b)| cmp(&a.0, &b.0).is_le() && cmp(&a.1, &b.1).is_le());
        let desc = pairs().all(|(a, b)| cmp(&a.0, &b.0).is_ge() && cmp(&a.1, &b.1).is_ge());
        ci.boundary_order = if asc {
            BoundaryOrder::ASCENDING
        } else if desc {
            BoundaryOrder::DESCENDING
        } else {
            BoundaryOrder::UNORDERED
        };
        Some(ci)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn page(offset: usize, lo: u8, hi: u8, values: u64) -> IndexedPage {
        IndexedPage {
            offset,
            len: 10,
            first_row: offset as u64,
            null_count: 1,
            values,
            bounds: (values > 0).then(|| (vec![lo], vec![hi])),
        }
    }

    #[test]
    fn boundary_order_skips_null_pages() {
        let mut b = PageIndexBuilder::new(true, SortOrder::Bytes, None);
        b.push(page(0, 1, 2, 5));
        b.push(page(10, 0, 0, 0));
        b.push(page(20, 2, 3, 5));
        let (ci, oi) = b.finish(7, true, |a, b| a.cmp(b));
        let ci = ci.unwrap();
        assert_eq!(ci.boundary_order, BoundaryOrder::ASCENDING);
        assert_eq!(
            ci.null_pages.iter().copied().collect::<Vec<_>>(),
            [false, true, false]
        );
        let offsets: Vec<i64> = oi
            .unwrap()
            .page_locations
            .iter()
            .map(|p| p.offset)
            .collect();
        assert_eq!(offsets, [7, 17, 27]);
        b.push(page(30, 0, 1, 5));
        let (ci, _) = b.finish(0, true, |a, b| a.cmp(b));
        assert_eq!(ci.unwrap().boundary_order, BoundaryOrder::UNORDERED);
        // Without statistics only the offset index.
        let (ci, oi) = b.finish(0, false, |a, b| a.cmp(b));
        assert!(ci.is_none() && oi.is_some());
    }

    #[test]
    fn values_without_bounds_have_no_column_index() {
        let mut b = PageIndexBuilder::new(true, SortOrder::Float, None);
        let mut p = page(0, 1, 2, 5);
        p.bounds = None;
        b.push(p);
        assert!(b.finish(0, true, |a, b| a.cmp(b)).0.is_none());
        let off = PageIndexBuilder::new(false, SortOrder::Float, None);
        assert!(matches!(off.finish(0, true, |a, b| a.cmp(b)), (None, None)));
    }
}
