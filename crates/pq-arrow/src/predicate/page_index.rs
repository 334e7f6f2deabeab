//! The rows of a row group whose pages may hold a match, from the page
//! index (`ColumnIndex` bounds and null counts per page, `OffsetIndex`
//! rows per page). Each column's pages give a selection; `AND` intersects
//! and `OR` unites them. A column without a usable index selects every
//! row, so the result never drops a matching row.
//!
//! An index whose page count or row numbers disagree with the row group
//! (more pages in one index than the other, rows that go backwards or past
//! the row group) is not used; the read goes on without it.

use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use pq_format::{ColumnIndex, FileMetaData, OffsetIndex, RowGroup, SchemaDescriptor, Type};

use super::bind::{Bound, BoundPredicate};
use super::stats::{
    ChunkStats, bounds, bounds_of_pages, compare_may_match_pages, order_known, stats_may_match,
};
use crate::reader::RowSelection;

/// One column's pages: the rows each covers, and what its bounds say.
pub(crate) struct PageStats {
    rows: Vec<std::ops::Range<usize>>,
    stats: Vec<ChunkStats>,
    /// Every page's bounds as two arrays (a page's own in `stats` are
    /// slices of them), so that a comparison is one Arrow kernel over the
    /// pages rather than one a page; `None` when some page's bytes did not
    /// decode together with the others'.
    whole: Option<(ArrayRef, ArrayRef)>,
    /// The pages' bounds are the exact minimum and maximum.
    exact: bool,
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
    // Per page: its null count, and whether its bounds may be used.
    let mut nulls = Vec::with_capacity(n);
    let mut usable = Vec::with_capacity(n);
    for (i, r) in rows.iter().enumerate() {
        let page_rows = r.len() as u64;
        let all_null = column_index.null_pages.get(i).copied().unwrap_or(false);
        nulls.push(if all_null {
            Some(page_rows)
        } else {
            column_index
                .null_counts
                .as_ref()
                .and_then(|c| c.get(i).copied())
                .and_then(|c| u64::try_from(c).ok())
                .filter(|&c| c <= page_rows)
        });
        // A float page's bounds count only when it is known to hold no NaN.
        let nan_free = !is_float
            || column_index
                .nan_counts
                .as_ref()
                .and_then(|c| c.get(i).copied())
                == Some(0);
        usable.push(!all_null && known && nan_free);
    }
    let whole = whole_bounds(column_index, &usable, descriptor, dt);
    let mut stats = Vec::with_capacity(n);
    for (i, (r, nulls)) in rows.iter().zip(nulls).enumerate() {
        let page_bounds = match &whole {
            Some((lo, hi, ordered)) => {
                (usable.get(i) == Some(&true) && i < ordered.len() && ordered.value(i))
                    .then(|| (lo.slice(i, 1), hi.slice(i, 1)))
            }
            None => (usable.get(i) == Some(&true))
                .then(|| {
                    bounds(
                        column_index.min_values.get(i)?,
                        column_index.max_values.get(i)?,
                        descriptor,
                        dt,
                    )
                })
                .flatten(),
        };
        stats.push(ChunkStats {
            rows: r.len() as u64,
            nulls,
            bounds: page_bounds,
            // Page bounds of byte arrays may be truncated.
            exact: !bytes,
        });
    }
    let whole = whole.map(|(lo, hi, _)| (lo, hi));
    Some(PageStats {
        rows,
        stats,
        whole,
        exact: !bytes,
    })
}

/// Every page's bounds decoded at once ([`bounds_of_pages`]); a page
/// whose bounds are not to be used lends the bytes of one whose are, so
/// that its (empty or foreign) bytes do not stop the others decoding.
fn whole_bounds(
    ci: &ColumnIndex,
    usable: &[bool],
    descriptor: &pq_format::ColumnDescriptor,
    dt: &DataType,
) -> Option<(ArrayRef, ArrayRef, arrow_buffer::BooleanBuffer)> {
    let first = usable.iter().position(|&u| u)?;
    fn pick<'a>(
        values: &'a pq_format::BinaryList,
        usable: &[bool],
        first: usize,
    ) -> Option<Vec<&'a [u8]>> {
        let stand_in = values.get(first)?;
        Some(
            usable
                .iter()
                .zip(values.iter())
                .map(|(&u, v)| if u { v } else { stand_in })
                .collect(),
        )
    }
    bounds_of_pages(
        &pick(&ci.min_values, usable, first)?,
        &pick(&ci.max_values, usable, first)?,
        descriptor,
        dt,
    )
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
            Some(p) => {
                let may = match (node, &p.whole) {
                    (Bound::Compare { op, value, .. }, Some((lo, hi))) => {
                        compare_may_match_pages(lo, hi, p.exact, *op, value)
                    }
                    _ => None,
                };
                let keep = |i: usize, s: &ChunkStats| match &may {
                    // As `stats_may_match` decides a comparison: a page of
                    // nulls only matches none, a page without bounds
                    // may match, the others as the kernel answered.
                    Some(may) => {
                        s.nulls != Some(s.rows)
                            && (s.bounds.is_none() || i >= may.len() || may.value(i))
                    }
                    None => stats_may_match(node, s),
                };
                RowSelection::from_consecutive_ranges(
                    p.rows
                        .iter()
                        .zip(&p.stats)
                        .enumerate()
                        .filter(|(i, (_, s))| keep(*i, s))
                        .map(|(_, (r, _))| r.clone()),
                    total,
                )
            }
        },
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{Float64Array, Int64Array, RecordBatch, StringArray};
    use pq_format::ThriftDecode;

    use super::*;
    use crate::predicate::Predicate;
    use crate::predicate::bind::bind;

    /// Pages of 10 rows: ints with null pages, floats with NaN on some
    /// pages and zeros of both signs, strings.
    fn file() -> bytes::Bytes {
        let n = 400i64;
        let ints: Int64Array = (0..n)
            .map(|i| (i / 10 % 4 != 1).then_some((i * 37) % 101 - 50))
            .collect();
        let floats: Float64Array = (0..n)
            .map(|i| match i % 23 {
                0 if i / 10 % 3 == 0 => Some(f64::NAN),
                1 => Some(-0.0),
                2 => Some(0.0),
                3 => None,
                _ => Some((i % 17) as f64 - 8.0),
            })
            .collect();
        let strings: StringArray = (0..n)
            .map(|i| Some(format!("s{:03}", (i * 7) % 301)))
            .collect();
        let batch = RecordBatch::try_from_iter([
            ("i", Arc::new(ints) as ArrayRef),
            ("f", Arc::new(floats) as ArrayRef),
            ("s", Arc::new(strings) as ArrayRef),
        ])
        .unwrap();
        let options = crate::WriterOptions::builder()
            .set_max_row_group_size(200)
            .set_data_page_row_count_limit(10)
            .build();
        let mut out = Vec::new();
        let mut w = crate::ParquetWriter::try_new(&mut out, batch.schema(), options).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        bytes::Bytes::from(out)
    }

    #[test]
    fn one_kernel_over_the_pages_selects_as_page_by_page() {
        let bytes = file();
        let reader = crate::ParquetReader::from_bytes(bytes.clone()).unwrap();
        let md = reader.metadata().clone();
        let limits = pq_format::Limits::default();
        let read = |o: Option<i64>, l: Option<i32>| {
            let (o, l) = (o.unwrap() as usize, l.unwrap() as usize);
            bytes.slice(o..o + l)
        };
        let (mut whole_used, mut pruned) = (0, 0);
        for text in [
            "i = 3",
            "i != 3",
            "i < -20",
            "i <= -50",
            "i > 40",
            "i >= 50",
            "i BETWEEN 0 AND 5",
            "i IN (1, 2, 60)",
            "i IS NULL",
            "i IS NOT NULL",
            "f = 0.0",
            "f = -0.0",
            "f < -7.5",
            "f > 7.0",
            "f <= 0.0",
            "f >= 0.0",
            "f != 1.0",
            "s = 's100'",
            "s >= 's290'",
            "s < 's005'",
            "s LIKE 's2%'",
            "i > 10 AND f < 0.0",
            "i < -40 OR s > 's295'",
        ] {
            let p = Predicate::parse(text).unwrap();
            let bound = bind(&p, &md.schema, reader.schema()).unwrap();
            for group in &md.row_groups {
                let stats = |whole: bool| -> Vec<Option<PageStats>> {
                    bound
                        .columns
                        .iter()
                        .map(|c| {
                            let chunk = group.columns.get(c.leaf).unwrap();
                            let ci = read(chunk.column_index_offset, chunk.column_index_length);
                            let oi = read(chunk.offset_index_offset, chunk.offset_index_length);
                            let (ci, _) = ColumnIndex::decode_prefix(&ci, &limits).unwrap();
                            let (oi, _) = OffsetIndex::decode_prefix(&oi, &limits).unwrap();
                            let mut s = page_stats(
                                &md,
                                &md.schema,
                                c.leaf,
                                &c.value_type,
                                group,
                                &ci,
                                &oi,
                            )?;
                            if !whole {
                                s.whole = None;
                            }
                            Some(s)
                        })
                        .collect()
                };
                let (fast, slow) = (stats(true), stats(false));
                whole_used += fast.iter().flatten().filter(|s| s.whole.is_some()).count();
                let total = group.num_rows as usize;
                let got = page_selection(&bound, &fast, total);
                assert_eq!(got, page_selection(&bound, &slow, total), "{text}");
                pruned += got.skipped_row_count();
            }
        }
        assert!(whole_used > 0, "no page index was read whole");
        assert!(pruned > 0, "no page was pruned");
    }
}
