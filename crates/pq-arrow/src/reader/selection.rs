//! Which rows to read, as runs of rows to select and to skip: what the
//! page index makes of a predicate, and what a caller may pass directly
//! (as arrow-rs's type of the same name).

use std::ops::Range;

use arrow_array::{Array, BooleanArray};

/// A run of rows to select or to skip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowSelector {
    /// Rows in the run.
    pub row_count: usize,
    /// Whether they are skipped.
    pub skip: bool,
}

impl RowSelector {
    /// A run of `row_count` rows to read.
    pub fn select(row_count: usize) -> Self {
        RowSelector {
            row_count,
            skip: false,
        }
    }

    /// A run of `row_count` rows to skip.
    pub fn skip(row_count: usize) -> Self {
        RowSelector {
            row_count,
            skip: true,
        }
    }
}

/// Rows to read, as runs of [`RowSelector`]s covering rows from the first
/// on; rows after the last run are not read. Adjacent runs of one kind are
/// merged and empty ones dropped, so two selections of the same rows are
/// equal.
///
/// ```
/// use pq_arrow::{RowSelection, RowSelector};
/// let a = RowSelection::from(vec![RowSelector::skip(2), RowSelector::select(5)]);
/// let b = RowSelection::from_consecutive_ranges([4..10], 10);
/// assert_eq!(a.row_count(), 5);
/// assert_eq!(a.intersection(&b), RowSelection::from_consecutive_ranges([4..7], 10));
/// assert_eq!(a.union(&b), RowSelection::from_consecutive_ranges([2..10], 10));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowSelection {
    selectors: Vec<RowSelector>,
}

impl From<Vec<RowSelector>> for RowSelection {
    fn from(selectors: Vec<RowSelector>) -> Self {
        let mut out: Vec<RowSelector> = Vec::with_capacity(selectors.len());
        for s in selectors.into_iter().filter(|s| s.row_count > 0) {
            match out.last_mut() {
                Some(last) if last.skip == s.skip => last.row_count += s.row_count,
                _ => out.push(s),
            }
        }
        // Trailing skips say nothing: rows after the runs are not read.
        if out.last().is_some_and(|s| s.skip) {
            out.pop();
        }
        RowSelection { selectors: out }
    }
}

impl From<RowSelection> for Vec<RowSelector> {
    fn from(s: RowSelection) -> Self {
        s.selectors
    }
}

impl RowSelection {
    /// The rows where `filters` (taken one after the other) are true; null
    /// is not selected.
    pub fn from_filters(filters: &[BooleanArray]) -> Self {
        let mut runs = Vec::new();
        for f in filters {
            for i in 0..f.len() {
                let keep = f.is_valid(i) && f.value(i);
                runs.push(if keep {
                    RowSelector::select(1)
                } else {
                    RowSelector::skip(1)
                });
            }
        }
        RowSelection::from(runs)
    }

    /// The rows of `ranges` (in order, not overlapping) out of `total_rows`.
    pub fn from_consecutive_ranges(
        ranges: impl IntoIterator<Item = Range<usize>>,
        total_rows: usize,
    ) -> Self {
        let mut runs = Vec::new();
        let mut at = 0;
        for r in ranges {
            let start = r.start.clamp(at, total_rows);
            let end = r.end.clamp(start, total_rows);
            runs.push(RowSelector::skip(start - at));
            runs.push(RowSelector::select(end - start));
            at = end;
        }
        RowSelection::from(runs)
    }

    /// Selects every one of `rows` rows.
    pub fn all(rows: usize) -> Self {
        RowSelection::from(vec![RowSelector::select(rows)])
    }

    /// The runs.
    pub fn iter(&self) -> impl Iterator<Item = &RowSelector> {
        self.selectors.iter()
    }

    /// Rows selected.
    pub fn row_count(&self) -> usize {
        self.selectors
            .iter()
            .filter(|s| !s.skip)
            .map(|s| s.row_count)
            .sum()
    }

    /// Rows skipped before the last selected one.
    pub fn skipped_row_count(&self) -> usize {
        self.selectors
            .iter()
            .filter(|s| s.skip)
            .map(|s| s.row_count)
            .sum()
    }

    /// Whether any row is selected.
    pub fn selects_any(&self) -> bool {
        self.selectors.iter().any(|s| !s.skip)
    }

    /// The selected rows as ranges.
    pub fn ranges(&self) -> Vec<Range<usize>> {
        let mut at = 0;
        let mut out = Vec::new();
        for s in &self.selectors {
            if !s.skip {
                out.push(at..at + s.row_count);
            }
            at += s.row_count;
        }
        out
    }

    fn end(&self) -> usize {
        self.selectors.iter().map(|s| s.row_count).sum()
    }

    /// The rows both select.
    pub fn intersection(&self, other: &RowSelection) -> RowSelection {
        let (a, b) = (self.ranges(), other.ranges());
        let (mut i, mut j) = (0, 0);
        let mut out = Vec::new();
        while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
            let (start, end) = (x.start.max(y.start), x.end.min(y.end));
            if start < end {
                out.push(start..end);
            }
            if x.end < y.end {
                i += 1;
            } else {
                j += 1;
            }
        }
        RowSelection::from_consecutive_ranges(out, self.end().max(other.end()))
    }

    /// The rows either selects.
    pub fn union(&self, other: &RowSelection) -> RowSelection {
        let mut all: Vec<Range<usize>> = self.ranges();
        all.extend(other.ranges());
        all.sort_by_key(|r| r.start);
        let mut out: Vec<Range<usize>> = Vec::with_capacity(all.len());
        for r in all {
            match out.last_mut() {
                Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
                _ => out.push(r),
            }
        }
        RowSelection::from_consecutive_ranges(out, self.end().max(other.end()))
    }

    /// Whether row `row` is selected.
    pub fn selects(&self, row: usize) -> bool {
        let mut at = 0;
        for s in &self.selectors {
            if row < at + s.row_count {
                return !s.skip;
            }
            at += s.row_count;
        }
        false
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use pq_testkit::Rng;

    fn naive(s: &RowSelection, n: usize) -> Vec<bool> {
        (0..n).map(|r| s.selects(r)).collect()
    }

    fn random(rng: &mut Rng, n: usize) -> RowSelection {
        let bits: Vec<bool> = (0..n).map(|_| rng.chance(50)).collect();
        RowSelection::from_filters(&[BooleanArray::from(bits)])
    }

    #[test]
    fn set_operations_agree_with_row_by_row_ones() {
        let mut rng = Rng(1);
        for _ in 0..200 {
            let n = rng.index(40);
            let (a, b) = (random(&mut rng, n), random(&mut rng, n));
            let (na, nb) = (naive(&a, n), naive(&b, n));
            let and: Vec<bool> = na.iter().zip(&nb).map(|(x, y)| *x && *y).collect();
            let or: Vec<bool> = na.iter().zip(&nb).map(|(x, y)| *x || *y).collect();
            assert_eq!(naive(&a.intersection(&b), n), and);
            assert_eq!(naive(&a.union(&b), n), or);
            assert_eq!(a.row_count(), na.iter().filter(|x| **x).count());
        }
    }

    #[test]
    fn runs_are_normalised() {
        let s = RowSelection::from(vec![
            RowSelector::select(0),
            RowSelector::skip(2),
            RowSelector::skip(1),
            RowSelector::select(4),
            RowSelector::skip(9),
        ]);
        assert_eq!(
            Vec::from(s),
            vec![RowSelector::skip(3), RowSelector::select(4)]
        );
    }
}
