//! The rows of one batch that a column read late keeps: the rows the
//! predicate (and the caller's row selection) kept, known before the
//! column is decoded, so that it decodes only those.
//!
//! A column reads the kept rows as runs: runs of skipped rows pass over
//! their levels and values without decoding them (whole pages within a run
//! from their headers alone), runs of kept rows are read as any batch is.
//! Many short runs cost more in steps than they save in decoding; then the
//! column decodes the batch whole and filters it (see
//! [`KeptRows::read_whole`]), except in a page without nulls, where every
//! row has a value and the kept values' positions are the kept rows' own
//! ([`KeptRows::positions_in`]): taken in one step, whatever the runs.

use std::ops::Range;
use std::sync::{Arc, OnceLock};

use arrow_array::{
    Array, ArrayRef, ArrowPrimitiveType, BooleanArray, PrimitiveArray, RecordBatch,
    RecordBatchOptions, UInt32Array, downcast_primitive_array,
};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, ScalarBuffer};
use arrow_schema::ArrowError;
use arrow_select::filter::{FilterBuilder, FilterPredicate};
use pq_page::Bitmap;

/// A run costs a few steps (levels, values, page checks) whatever its
/// length; decoding a value costs about a step. Past one run per this many
/// rows, decoding the batch whole and filtering it is the cheaper way.
const ROWS_PER_RUN: usize = 32;

/// The kept rows of a batch of `rows` rows.
#[derive(Debug)]
pub(crate) struct KeptRows {
    rows: usize,
    /// Kept rows as ranges, in order, none empty, none touching the next.
    ranges: Vec<Range<usize>>,
    /// The same rows as a mask, for a column that filters a whole batch.
    mask: BooleanBuffer,
    /// The kept rows one by one, in order: where a page has no nulls, its
    /// kept values are these, shifted (see [`KeptRows::positions_in`]).
    positions: ScalarBuffer<u32>,
    /// Arrow's filter for the mask, made once for every column of the
    /// batch that filters a whole batch (see [`KeptRows::filter`]).
    filter: OnceLock<FilterPredicate>,
}

impl KeptRows {
    /// The rows set in `mask`.
    pub(crate) fn new(mask: BooleanBuffer) -> Self {
        let ranges: Vec<Range<usize>> = mask.set_slices().map(|(s, e)| s..e).collect();
        let mut positions = Vec::with_capacity(mask.count_set_bits());
        // A batch's rows are counted in `u32`s as a page's values are.
        for r in &ranges {
            positions.extend((r.start..r.end).map(|p| p as u32));
        }
        KeptRows {
            rows: mask.len(),
            ranges,
            mask,
            positions: positions.into(),
            filter: OnceLock::new(),
        }
    }

    /// `array` (a batch decoded whole) cut to the kept rows. Where the kept
    /// rows make many short runs (see [`KeptRows::read_whole`]), Arrow's
    /// take kernel at the kept positions: its filter kernel copies such
    /// rows run by run, a call per run for the values and another for
    /// their validity bits, which took four times as long on columns with
    /// nulls. Otherwise its filter kernel, the plan for the mask made by
    /// the first column that asks and reused by the others.
    pub(crate) fn filter(&self, array: &dyn Array) -> Result<ArrayRef, ArrowError> {
        if array.len() < self.mask.len() {
            // A chunk that ended early: a plan for the rows it gave.
            let keep = BooleanArray::new(self.mask.slice(0, array.len()), None);
            return FilterBuilder::new(&keep).build().filter(array);
        }
        if self.read_whole() {
            if let Some(cut) = self.take_primitive(array) {
                return Ok(cut);
            }
            let at = UInt32Array::new(self.positions.clone(), None);
            return arrow_select::take::take(array, &at, None);
        }
        self.filter
            .get_or_init(|| {
                let keep = BooleanArray::new(self.mask.clone(), None);
                FilterBuilder::new(&keep).optimize().build()
            })
            .filter(array)
    }

    /// A primitive `array` (as many rows as the mask) at the kept rows: the
    /// values taken at their positions, the validity bits packed by the
    /// mask a word at a time, where Arrow's take kernel reads a bit per
    /// kept row; `None` for other types.
    fn take_primitive(&self, array: &dyn Array) -> Option<ArrayRef> {
        downcast_primitive_array!(
            array => {
                let nulls = array.nulls().and_then(|n| self.kept_nulls(n));
                take_values(array, &self.positions, nulls).map(|a| Arc::new(a) as ArrayRef)
            }
            _ => None
        )
    }

    /// The validity bits of the kept rows among `nulls` (as many as the
    /// mask); `None` when they are all valid.
    fn kept_nulls(&self, nulls: &NullBuffer) -> Option<NullBuffer> {
        let (bits, mask) = (nulls.inner(), &self.mask);
        let rows = mask.len();
        let words = bits.inner().bit_chunks(bits.offset(), rows).iter_padded();
        let masks = mask.inner().bit_chunks(mask.offset(), rows).iter_padded();
        let mut kept = Bitmap::with_words(Vec::with_capacity(self.kept().div_ceil(64)));
        kept.extend_selected(words, masks);
        let len = kept.len();
        let kept = BooleanBuffer::new(Buffer::from_vec(kept.into_words()), 0, len);
        Some(NullBuffer::new(kept)).filter(|n| n.null_count() > 0)
    }

    /// The kept rows of `batch` (as many rows as the mask), each column
    /// cut as [`KeptRows::filter`] cuts it.
    pub(crate) fn filter_batch(&self, batch: &RecordBatch) -> crate::error::Result<RecordBatch> {
        let cut = || {
            let columns = batch
                .columns()
                .iter()
                .map(|c| self.filter(c.as_ref()))
                .collect::<Result<Vec<_>, _>>()?;
            let rows = RecordBatchOptions::new().with_row_count(Some(self.kept()));
            RecordBatch::try_new_with_options(batch.schema(), columns, &rows)
        };
        cut().map_err(|e| crate::error::arrow_err(&crate::Location::default(), e))
    }

    /// The kept rows within `rows`, in order.
    pub(crate) fn positions_in(&self, rows: Range<usize>) -> &[u32] {
        let p = &self.positions;
        let from = p.partition_point(|&x| (x as usize) < rows.start);
        let to = p.partition_point(|&x| (x as usize) < rows.end);
        p.get(from..to).unwrap_or_default()
    }

    /// The batch's rows, kept or not.
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// How many rows are kept.
    pub(crate) fn kept(&self) -> usize {
        self.positions.len()
    }

    /// The kept rows as a mask over the batch (the tests' view of it).
    #[cfg(test)]
    pub(crate) fn mask(&self) -> &BooleanBuffer {
        &self.mask
    }

    /// Whether a column should decode the batch whole and filter it rather
    /// than read its runs: when the runs are many and short.
    pub(crate) fn read_whole(&self) -> bool {
        self.ranges.len().saturating_mul(ROWS_PER_RUN) > self.rows
    }
}

/// The values of `array` at `positions`, with validity `nulls`, of
/// `array`'s type (pq-encoding's dictionary gather, its bounds checked
/// once); `None` if a position is past the array (the caller's mask is
/// longer than the batch, which it checks first).
fn take_values<T: ArrowPrimitiveType>(
    array: &PrimitiveArray<T>,
    positions: &[u32],
    nulls: Option<NullBuffer>,
) -> Option<PrimitiveArray<T>> {
    let mut taken = Vec::with_capacity(positions.len());
    pq_encoding::dictionary::gather(array.values(), positions, &mut taken).ok()?;
    Some(PrimitiveArray::new(taken.into(), nulls).with_data_type(array.data_type().clone()))
}

/// A position in the runs of a [`KeptRows`]: the batch's next row, and the
/// first kept range not wholly behind it.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RunCursor {
    row: usize,
    range: usize,
}

impl RunCursor {
    /// The run at the cursor: whether its rows are kept, and how many rows
    /// it has left (0 at the batch's end).
    pub(crate) fn run(&self, kept: &KeptRows) -> (bool, usize) {
        match kept.ranges.get(self.range) {
            Some(r) if self.row < r.start => (false, r.start - self.row),
            Some(r) => (true, r.end.saturating_sub(self.row)),
            None => (false, kept.rows.saturating_sub(self.row)),
        }
    }

    /// The batch row the cursor is at.
    pub(crate) fn row(&self) -> usize {
        self.row
    }

    /// Moves on to batch row `row` (not behind the cursor), past any
    /// number of runs.
    pub(crate) fn seek(&mut self, kept: &KeptRows, row: usize) {
        self.row = row.max(self.row);
        let rest = kept.ranges.get(self.range..).unwrap_or_default();
        self.range += rest.partition_point(|r| r.end <= self.row);
    }

    /// Rows left in the run at the cursor when they are skipped ones.
    pub(crate) fn skip_run(&self, kept: &KeptRows) -> Option<usize> {
        match self.run(kept) {
            (false, n) if n > 0 => Some(n),
            _ => None,
        }
    }

    /// Moves `n` rows on, at most to the end of the run at the cursor.
    pub(crate) fn advance(&mut self, kept: &KeptRows, n: usize) {
        self.row += n;
        if kept
            .ranges
            .get(self.range)
            .is_some_and(|r| self.row >= r.end)
        {
            self.range += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    /// Walking the runs visits every row once, in order, kept exactly
    /// where the mask is set.
    #[test]
    fn runs_cover_the_batch_as_the_mask_says() {
        for bits in [
            vec![],
            vec![false; 10],
            vec![true; 10],
            vec![true, false, false, true, true, false, true],
            vec![false, true, true, false, false, false, true, false],
        ] {
            let kept = KeptRows::new(BooleanBuffer::from(bits.clone()));
            let mut c = RunCursor::default();
            let mut seen = Vec::new();
            loop {
                let (keep, n) = c.run(&kept);
                if n == 0 {
                    break;
                }
                // Steps of uneven sizes within a run, as pages cut it.
                let step = n.div_ceil(2);
                seen.extend(std::iter::repeat_n(keep, step));
                c.advance(&kept, step);
            }
            assert_eq!(seen, bits);
            assert_eq!(
                kept.mask().count_set_bits(),
                bits.iter().filter(|&&b| b).count()
            );
        }
    }

    /// Cutting a batch to its kept rows gives what Arrow's filter kernel
    /// gives, on masks of few and of many runs, columns with and without
    /// nulls, and a chunk shorter than the mask.
    #[test]
    fn cut_as_arrow_filters() {
        use arrow_array::{Int64Array, StringArray, StringViewArray};
        use arrow_select::filter::filter;
        let n = 1000;
        let ints: ArrayRef = Arc::new(Int64Array::from_iter(
            (0..n).map(|i| (i % 7 != 0).then_some(i as i64 * 3)),
        ));
        let dense: ArrayRef = Arc::new(Int64Array::from_iter_values(0..n as i64));
        let views: ArrayRef = Arc::new(StringViewArray::from_iter(
            (0..n).map(|i| (i % 5 != 1).then(|| format!("value number {i}"))),
        ));
        let strings: ArrayRef = Arc::new(StringArray::from_iter(
            (0..n).map(|i| (i % 3 != 2).then(|| format!("v{i}"))),
        ));
        let masks: [Vec<bool>; 4] = [
            (0..n).map(|i| i % 9 != 4).collect(),
            (0..n).map(|i| i % 2 == 0).collect(),
            (0..n).map(|i| !(300..=700).contains(&i)).collect(),
            (0..n).map(|i| (i * 7919) % 13 < 11).collect(),
        ];
        for bits in masks {
            let kept = KeptRows::new(BooleanBuffer::from(bits.clone()));
            let keep = BooleanArray::from(bits.clone());
            for array in [&ints, &dense, &views, &strings] {
                let cut = kept.filter(array.as_ref()).unwrap();
                assert_eq!(&cut, &filter(array.as_ref(), &keep).unwrap());
                let short = array.slice(0, 600);
                let keep_short = BooleanArray::from(bits[..600].to_vec());
                assert_eq!(
                    &kept.filter(short.as_ref()).unwrap(),
                    &filter(short.as_ref(), &keep_short).unwrap()
                );
            }
        }
    }

    #[test]
    fn many_short_runs_read_whole() {
        let sparse: Vec<bool> = (0..8192).map(|i| i % 100 == 0).collect();
        assert!(!KeptRows::new(BooleanBuffer::from(sparse)).read_whole());
        let dense: Vec<bool> = (0..8192).map(|i| i % 3 == 0).collect();
        assert!(KeptRows::new(BooleanBuffer::from(dense)).read_whole());
        let block: Vec<bool> = (0..8192).map(|i| i < 4000).collect();
        assert!(!KeptRows::new(BooleanBuffer::from(block)).read_whole());
    }
}
