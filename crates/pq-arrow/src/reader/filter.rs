//! Keeping only the rows a predicate selects: row groups its statistics
//! rule out are never read, and the batches of the others are filtered,
//! then gathered back into batches of the requested size.

use std::collections::VecDeque;

use arrow_array::cast::AsArray;
use arrow_array::{ArrayRef, BooleanArray, RecordBatch};
use arrow_buffer::BooleanBuffer;
use arrow_schema::SchemaRef;
use pq_format::ParquetMetaData;

use bytes::Bytes;
use pq_page::PageOptions;
use pq_page::bloom::Sbbf;

use crate::error::Result;
use crate::predicate::bind::{BoundColumn, BoundPredicate};
use crate::predicate::bloom::MAX_BLOOM_BYTES;
use crate::predicate::byte_eq::ByteTest;
use crate::predicate::{eval, page_index, stats};
use crate::reader::RowSelection;

/// What a predicate saved and kept, for reports such as `pq scan`'s.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PruningMetrics {
    /// Row groups chosen before the predicate.
    pub row_groups: usize,
    /// Of them, the ones ruled out (never read): by statistics or by a
    /// Bloom filter.
    pub row_groups_pruned: usize,
    /// Of those, the ones a Bloom filter ruled out.
    pub row_groups_pruned_by_bloom_filter: usize,
    /// Rows in the row groups ruled out.
    pub rows_pruned: u64,
    /// Bloom filters read.
    pub bloom_filters_read: usize,
    /// Bloom filters that could not be read, and were ignored (see
    /// [`crate::predicate`]).
    pub bloom_filters_ignored: usize,
    /// Bytes read for Bloom filters.
    pub bloom_filter_bytes: u64,
    /// Of the row groups ruled out, the ones no dictionary entry of a
    /// column satisfies (every data page of the chunk dictionary-encoded).
    pub row_groups_pruned_by_dictionary: usize,
    /// Dictionary pages read.
    pub dictionaries_read: usize,
    /// Of the row groups ruled out, the ones whose pages the page index
    /// ruled out one column or another.
    pub row_groups_pruned_by_page_index: usize,
    /// Rows of the row groups read that lie in pages the page index rules
    /// out.
    pub rows_ruled_out_by_page_index: u64,
    /// Column and offset indexes read (one pair a chunk).
    pub page_indexes_read: usize,
    /// Bytes read for page indexes.
    pub page_index_bytes: u64,
    /// Bytes read for dictionary pages.
    pub dictionary_bytes: u64,
    /// Rows decoded and tested against the predicate.
    pub rows_tested: u64,
    /// Rows that satisfied it (before any offset or limit): tested, or in
    /// row groups whose statistics show every row does.
    pub rows_matched: u64,
    /// Values of columns read late (after the predicate's) that were not
    /// decoded because their rows were not kept: rows times columns.
    pub values_skipped_late: u64,
    /// Of the row groups read, the ones whose statistics show every row
    /// satisfies the predicate: read as without one, their rows untested.
    pub row_groups_matched_by_statistics: usize,
}

/// Metrics of several reads (of several files) added up.
impl std::ops::AddAssign<&PruningMetrics> for PruningMetrics {
    fn add_assign(&mut self, o: &PruningMetrics) {
        self.row_groups += o.row_groups;
        self.row_groups_pruned += o.row_groups_pruned;
        self.row_groups_pruned_by_bloom_filter += o.row_groups_pruned_by_bloom_filter;
        self.rows_pruned += o.rows_pruned;
        self.bloom_filters_read += o.bloom_filters_read;
        self.bloom_filters_ignored += o.bloom_filters_ignored;
        self.bloom_filter_bytes += o.bloom_filter_bytes;
        self.row_groups_pruned_by_dictionary += o.row_groups_pruned_by_dictionary;
        self.dictionaries_read += o.dictionaries_read;
        self.row_groups_pruned_by_page_index += o.row_groups_pruned_by_page_index;
        self.rows_ruled_out_by_page_index += o.rows_ruled_out_by_page_index;
        self.page_indexes_read += o.page_indexes_read;
        self.page_index_bytes += o.page_index_bytes;
        self.dictionary_bytes += o.dictionary_bytes;
        self.rows_tested += o.rows_tested;
        self.rows_matched += o.rows_matched;
        self.values_skipped_late += o.values_skipped_late;
        self.row_groups_matched_by_statistics += o.row_groups_matched_by_statistics;
    }
}

/// Which sources a predicate prunes by, cheapest first, and whether the
/// other columns are read late (each on by default). The rows returned are
/// the same with any of them off: only what is read and decoded changes.
///
/// ```
/// use pq_arrow::predicate::PruningOptions;
/// let only_statistics = PruningOptions::default()
///     .with_bloom_filters(false)
///     .with_dictionaries(false)
///     .with_page_index(false);
/// assert!(only_statistics.statistics());
/// assert!(!only_statistics.page_index());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PruningOptions {
    statistics: bool,
    bloom_filters: bool,
    dictionaries: bool,
    page_index: bool,
    late_materialization: bool,
}

impl Default for PruningOptions {
    fn default() -> Self {
        PruningOptions {
            statistics: true,
            bloom_filters: true,
            dictionaries: true,
            page_index: true,
            late_materialization: true,
        }
    }
}

impl PruningOptions {
    /// Row groups by their column chunks' statistics.
    pub fn statistics(&self) -> bool {
        self.statistics
    }
    /// Row groups by Bloom filters (`=` and `IN`).
    pub fn bloom_filters(&self) -> bool {
        self.bloom_filters
    }
    /// Row groups by the dictionaries of fully dictionary-encoded chunks.
    pub fn dictionaries(&self) -> bool {
        self.dictionaries
    }
    /// Pages (and row groups) by the page index.
    pub fn page_index(&self) -> bool {
        self.page_index
    }
    /// Turns pruning by statistics on or off.
    pub fn with_statistics(mut self, on: bool) -> Self {
        self.statistics = on;
        self
    }
    /// Turns pruning by Bloom filters on or off.
    pub fn with_bloom_filters(mut self, on: bool) -> Self {
        self.bloom_filters = on;
        self
    }
    /// Turns pruning by dictionaries on or off.
    pub fn with_dictionaries(mut self, on: bool) -> Self {
        self.dictionaries = on;
        self
    }
    /// Turns pruning by the page index on or off.
    pub fn with_page_index(mut self, on: bool) -> Self {
        self.page_index = on;
        self
    }
    /// Late materialization: the predicate's columns are decoded first,
    /// and of the other columns (those of top-level fields the predicate
    /// does not read, and that hold no list) only the rows it keeps. A
    /// row selection alone is read the same way, every column late.
    pub fn late_materialization(&self) -> bool {
        self.late_materialization
    }
    /// Turns late materialization on or off (off: every projected column
    /// is decoded for every row of the pages read, then filtered).
    pub fn with_late_materialization(mut self, on: bool) -> Self {
        self.late_materialization = on;
        self
    }
}

/// What a predicate does to the rows of the row groups and pages pruning
/// leaves (see `with_row_filtering` on the reader builders).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum RowFiltering {
    /// Every row is tested and only the matching rows come back.
    #[default]
    Exact,
    /// Every row is tested, but a batch is cut down to its matches only
    /// when that drops more than one row in ten; a batch that keeps more
    /// comes back whole. A superset of the matches, for a caller that tests
    /// the rows again anyway (a query engine that was told the filter is
    /// inexact): a selective predicate still shrinks what it gets, and one
    /// that keeps nearly every row costs no copy.
    Selective,
    /// Rows are not tested: the predicate only rules out row groups and
    /// pages, and no column is read for it alone.
    PruneOnly,
}

impl RowFiltering {
    /// Whether rows are tested (and the predicate's columns read for it).
    pub(super) fn tests_rows(self) -> bool {
        self != RowFiltering::PruneOnly
    }
}

/// The filter of a reader with a predicate, a row selection, or both.
#[derive(Debug)]
pub(super) struct RowFilter {
    /// The predicate, when there is one (a row selection alone has none).
    predicate: Option<BoundPredicate>,
    /// What the predicate does to rows.
    rows: RowFiltering,
    /// The caller's row selection, split by row group (row groups it
    /// selects nothing of are not read at all).
    chosen_rows: Vec<(usize, RowSelection)>,
    /// The batches' schema, without columns read only for the predicate.
    schema: SchemaRef,
    /// Whether the read batches hold columns the output does not.
    narrow: bool,
    batch_size: usize,
    to_skip: usize,
    remaining: Option<usize>,
    /// Filtered rows not yet handed out.
    pending: VecDeque<RecordBatch>,
    pending_rows: usize,
    pub(super) metrics: PruningMetrics,
    /// Row groups the page index narrowed, with their rows left.
    selections: Vec<(usize, RowSelection)>,
    /// Row groups every row of which satisfies the predicate, by their
    /// statistics: their rows are not tested.
    all_match: Vec<usize>,
    /// The page locations (offset index) of the columns read late, by row
    /// group and leaf, so that their readers pass over the pages of rows
    /// not kept without reading or fetching their headers.
    late_pages: Vec<((usize, usize), Vec<pq_format::PageLocation>)>,
    /// The leaf columns read late (see [`Self::with_late_leaves`]).
    late_leaves: Vec<usize>,
}

/// What [`RowFilter::prune`] gave.
#[derive(Debug)]
pub(super) enum Pruned {
    /// The row groups to read.
    Kept(Vec<usize>),
    /// Fetch these ranges of the file, then prune again.
    Needs(Vec<std::ops::Range<u64>>),
}

impl RowFilter {
    pub(super) fn new(
        predicate: Option<BoundPredicate>,
        chosen_rows: Vec<(usize, RowSelection)>,
        schema: SchemaRef,
        narrow: bool,
        batch_size: usize,
        offset: usize,
        limit: Option<usize>,
    ) -> Self {
        RowFilter {
            predicate,
            rows: RowFiltering::Exact,
            chosen_rows,
            schema,
            narrow,
            batch_size: batch_size.max(1),
            to_skip: offset,
            remaining: limit,
            pending: VecDeque::new(),
            pending_rows: 0,
            metrics: PruningMetrics::default(),
            selections: Vec::new(),
            all_match: Vec::new(),
            late_pages: Vec::new(),
            late_leaves: Vec::new(),
        }
    }

    /// What the predicate does to rows.
    pub(super) fn with_rows(mut self, rows: RowFiltering) -> Self {
        self.rows = rows;
        self
    }

    /// The batches' schema.
    pub(super) fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The row groups of `chosen` that may hold a matching row: by their
    /// statistics, then by the Bloom filters, the dictionaries and the page
    /// index that `fetch` gives (`start..end` of the file). Each level is
    /// asked only for row groups the cheaper ones left in.
    ///
    /// Without IO of its own: `fetch` gives `None` for bytes not yet at
    /// hand, and the answer is then the ranges to fetch before asking again
    /// (each round starts over, with more bytes at hand; a reader that
    /// reads as it goes never sees one).
    pub(super) fn prune(
        &mut self,
        md: &ParquetMetaData,
        chosen: &[usize],
        file_len: u64,
        page_options: &PageOptions,
        levels: PruningOptions,
        fetch: &mut dyn FnMut(u64, u64) -> Result<Option<Bytes>>,
    ) -> Pruned {
        let tested = (self.metrics.rows_tested, self.metrics.rows_matched);
        self.metrics = PruningMetrics {
            row_groups: chosen.len(),
            rows_tested: tested.0,
            rows_matched: tested.1,
            ..PruningMetrics::default()
        };
        self.selections.clear();
        self.all_match.clear();
        self.late_pages.clear();
        let missing = std::cell::RefCell::new(Vec::new());
        let mut get = |start: u64, end: u64| -> Result<Bytes> {
            match fetch(start, end)? {
                Some(b) => Ok(b),
                None => {
                    missing.borrow_mut().push(start..end);
                    Err(crate::Error::Request {
                        message: "bytes not read yet".into(),
                    })
                }
            }
        };
        let fetch = &mut get;
        let Some(predicate) = &self.predicate else {
            // A row selection alone: its row groups, narrowed to its rows,
            // whose columns (all read late) pass over the pages of rows not
            // selected by their offset indexes.
            self.selections = self.chosen_rows.clone();
            for &rg in chosen.iter().filter(|_| levels.page_index) {
                let (Some(group), Some(_)) =
                    (md.row_groups.get(rg), rows_of(&self.chosen_rows, rg))
                else {
                    continue;
                };
                let (leaves, out) = (&self.late_leaves, &mut self.late_pages);
                load_late_pages(out, leaves, rg, group, fetch, &mut self.metrics);
            }
            let missing = missing.into_inner();
            return if missing.is_empty() {
                Pruned::Kept(chosen.to_vec())
            } else {
                Pruned::Needs(missing)
            };
        };
        let missed = |before: usize| missing.borrow().len() > before;
        let mut kept = Vec::with_capacity(chosen.len());
        let metrics = &mut self.metrics;
        let chosen_rows = &self.chosen_rows;
        for &rg in chosen {
            let Some(group) = md.row_groups.get(rg) else {
                // Reported by the reader when it gets there.
                kept.push(rg);
                continue;
            };
            let chunk_stats = stats::predicate_stats(predicate, md, &md.schema, group);
            // Every row satisfies it: no level can rule the row group out,
            // and its rows need no test.
            if levels.statistics && stats::row_group_all_match(predicate, &chunk_stats) {
                metrics.row_groups_matched_by_statistics += 1;
                self.all_match.push(rg);
                if let Some(c) = rows_of(chosen_rows, rg) {
                    self.selections.push((rg, c.clone()));
                }
                kept.push(rg);
                continue;
            }
            let before = missing.borrow().len();
            let may = |bloom: &mut stats::BloomCheck<'_>,
                       dict: &mut stats::DictionaryValues<'_>| {
                stats::row_group_may_match(predicate, &chunk_stats, &md.schema, bloom, dict)
            };
            let by_stats = !levels.statistics || may(&mut |_, _| true, &mut |_| None);
            let by_bloom = by_stats
                && (!levels.bloom_filters
                    || may(
                        &mut |leaf, hashes| match load_bloom(group, leaf, file_len, fetch, metrics)
                        {
                            Some(filter) => hashes.iter().any(|&h| filter.check(h)),
                            None => true,
                        },
                        &mut |_| None,
                    ));
            // A level that waits for bytes decides nothing this round.
            if missed(before) {
                kept.push(rg);
                continue;
            }
            // Each dictionary read once per row group, however many parts
            // of the predicate test it.
            let mut dictionaries: Vec<(usize, Option<arrow_array::ArrayRef>)> = Vec::new();
            let keep = by_bloom
                && (!levels.dictionaries
                    || may(&mut |_, _| true, &mut |leaf| {
                        if let Some((_, d)) = dictionaries.iter().find(|(l, _)| *l == leaf) {
                            return d.clone();
                        }
                        let column = predicate.columns.iter().find(|c| c.leaf == leaf)?;
                        let d = load_dictionary(md, group, column, page_options, fetch, metrics);
                        dictionaries.push((leaf, d.clone()));
                        d
                    }));
            if missed(before) {
                kept.push(rg);
                continue;
            }
            let by_dictionary = keep;
            let selection = (keep && levels.page_index)
                .then(|| page_selection(predicate, md, group, fetch, metrics))
                .flatten();
            if missed(before) {
                kept.push(rg);
                continue;
            }
            // The caller's selection narrows the page index's, or stands
            // alone.
            let rows = usize::try_from(group.num_rows).unwrap_or(0);
            let by_pages = selection
                .as_ref()
                .map_or(0, |p| rows.saturating_sub(p.row_count()));
            let selection = match (selection, rows_of(chosen_rows, rg)) {
                (Some(s), Some(c)) => Some(s.intersection(c)),
                (None, Some(c)) => Some(c.clone()),
                (s, None) => s,
            };
            // A selection of every row narrows nothing: without one, the
            // row group reads as any other (an async read fetches it ahead
            // while the one before decodes, which a narrowed one is not).
            let selection = selection.filter(|s| s.skipped_row_count() > 0 || s.row_count() < rows);
            let keep = keep && selection.as_ref().is_none_or(RowSelection::selects_any);
            // The late columns' page locations, where the page index is
            // used: their pages of rows not kept are then passed over
            // unread. A column without a readable offset index reads its
            // page headers instead.
            // So too the predicate's own columns where the page index
            // narrowed the row group: they read the span of its selected
            // rows, and pass over the pages before it unread (an async
            // read fetches just that span's pages).
            if keep && levels.page_index {
                let (late, out) = (&self.late_leaves, &mut self.late_pages);
                load_late_pages(out, late, rg, group, fetch, metrics);
                if selection.is_some() {
                    let mut early: Vec<usize> = predicate.columns.iter().map(|c| c.leaf).collect();
                    early.retain(|l| !late.contains(l));
                    early.sort_unstable();
                    early.dedup();
                    load_late_pages(out, &early, rg, group, fetch, metrics);
                }
                if missed(before) {
                    kept.push(rg);
                    continue;
                }
            }
            if keep {
                metrics.rows_ruled_out_by_page_index += by_pages as u64;
                if let Some(s) = selection {
                    self.selections.push((rg, s));
                }
                kept.push(rg);
                continue;
            }
            metrics.row_groups_pruned += 1;
            metrics.row_groups_pruned_by_bloom_filter += usize::from(by_stats && !by_bloom);
            metrics.row_groups_pruned_by_dictionary += usize::from(by_bloom && !by_dictionary);
            metrics.row_groups_pruned_by_page_index += usize::from(by_dictionary);
            metrics.rows_pruned += u64::try_from(group.num_rows).unwrap_or(0);
        }
        let missing = missing.into_inner();
        if missing.is_empty() {
            Pruned::Kept(kept)
        } else {
            Pruned::Needs(missing)
        }
    }

    /// The rows of row group `rg` its pages may match in, when the page
    /// index narrowed them (from the last [`prune`](Self::prune)).
    pub(super) fn selection(&self, rg: usize) -> Option<&RowSelection> {
        rows_of(&self.selections, rg)
    }

    /// Says which leaf columns are read late: pruning reads their offset
    /// indexes (see [`late_pages`](Self::late_pages)).
    pub(super) fn with_late_leaves(&mut self, leaves: Vec<usize>) {
        self.late_leaves = leaves;
    }

    /// The page locations of column `leaf` in row group `rg`, when its
    /// offset index was read (see [`prune`](Self::prune)): a late column's
    /// where the page index is used, a predicate column's where it
    /// narrowed the row group.
    pub(super) fn late_pages(&self, rg: usize, leaf: usize) -> Option<&[pq_format::PageLocation]> {
        self.late_pages
            .iter()
            .find(|(k, _)| *k == (rg, leaf))
            .map(|(_, p)| p.as_slice())
    }

    /// Whether every row of row group `rg` satisfies the predicate, by its
    /// statistics (from the last [`prune`](Self::prune)): its rows are read
    /// as without a predicate, and not tested.
    pub(super) fn all_match(&self, rg: usize) -> bool {
        self.all_match.contains(&rg)
    }

    /// Whether the limit is reached: nothing more to read.
    pub(super) fn done(&self) -> bool {
        self.remaining == Some(0) && self.pending_rows == 0
    }

    /// Takes in a read batch: the rows of row group `rg` from its row
    /// `first_row`.
    pub(super) fn push(&mut self, batch: RecordBatch, rg: usize, first_row: usize) -> Result<()> {
        if self.remaining == Some(0) {
            return Ok(());
        }
        let batch = match self.keep(&batch, rg, first_row)? {
            None => batch,
            Some(keep) if keep.true_count() == 0 => return Ok(()),
            Some(keep) => {
                crate::column::KeptRows::new(keep.values().clone()).filter_batch(&batch)?
            }
        };
        self.push_kept(batch)
    }

    /// The leaves of a predicate's columns when it reads the others late:
    /// the predicate leaf indexes (empty without a predicate, when a row
    /// selection alone is read late), or `None` when no column can be read
    /// late (rows are not tested, and no rows are chosen).
    pub(super) fn early_leaves(&self) -> Option<Vec<usize>> {
        match &self.predicate {
            Some(p) if self.rows.tests_rows() => Some(p.columns.iter().map(|c| c.leaf).collect()),
            Some(_) => None,
            None => (!self.chosen_rows.is_empty()).then(Vec::new),
        }
    }

    /// The leaf and test of a predicate that is one `=`, `!=`, `[NOT] IN` or
    /// `[NOT] LIKE 'prefix%'` of a string or binary column, or an `AND` of
    /// one with conjuncts on other columns, when rows are tested: its
    /// column can be read through the test (see [`crate::column::tested`]).
    /// Also the rest of the predicate, to test on the other early columns.
    pub(super) fn byte_test(&self) -> Option<(usize, ByteTest, Option<BoundPredicate>)> {
        let p = self.predicate.as_ref().filter(|_| self.rows.tests_rows())?;
        let (column, test, rest) = ByteTest::split(&p.root)?;
        let rest = rest.map(|root| BoundPredicate {
            columns: p.columns.clone(),
            root,
        });
        Some((p.columns.get(column)?.leaf, test, rest))
    }

    /// [`keep`](Self::keep) for a batch whose predicate column was read
    /// through its test: `matched` says which of its rows passed, `passed`
    /// holds their values. Every row was tested, so the mask is exact
    /// whatever [`RowFiltering`] asks. Returns the values of the rows kept
    /// (those the row selection also chooses) and the mask of the batch's
    /// rows.
    /// `rest` is the rest of the predicate (see
    /// [`byte_test`](Self::byte_test)) with the batch to test it on.
    pub(super) fn keep_tested(
        &mut self,
        passed: ArrayRef,
        matched: BooleanBuffer,
        rest: Option<(&BoundPredicate, &RecordBatch)>,
        rg: usize,
        first_row: usize,
    ) -> Result<(ArrayRef, BooleanBuffer)> {
        let n = matched.len();
        let mut keep = matched.clone();
        if let Some((p, batch)) = rest {
            // Unknown answers are already not kept.
            keep = &keep & eval::evaluate(p, batch)?.values();
        }
        self.metrics.rows_tested += n as u64;
        self.metrics.rows_matched += keep.count_set_bits() as u64;
        if let Some(chosen) = rows_of(&self.chosen_rows, rg).map(|s| rows_mask(s, first_row, n)) {
            keep = &keep & chosen.values();
        }
        if keep == matched {
            return Ok((passed, keep));
        }
        let at = crate::Location::default();
        let err = |e| crate::error::arrow_err(&at, e);
        // Whether each passing row is kept, in the order of `passed`.
        let among = arrow_select::filter::filter(
            &BooleanArray::new(keep.clone(), None),
            &BooleanArray::new(matched, None),
        )
        .map_err(err)?;
        let passed = arrow_select::filter::filter(&passed, among.as_boolean()).map_err(err)?;
        Ok((passed, keep))
    }

    /// Which rows of `batch` (row group `rg` from its row `first_row`) to
    /// keep: the ones the predicate and the row selection keep; `None` to
    /// keep every one. `batch` needs only the predicate's columns.
    pub(super) fn keep(
        &mut self,
        batch: &RecordBatch,
        rg: usize,
        first_row: usize,
    ) -> Result<Option<BooleanArray>> {
        let chosen =
            rows_of(&self.chosen_rows, rg).map(|s| rows_mask(s, first_row, batch.num_rows()));
        let keep = match &self.predicate {
            // Every row matches, by the statistics: counted, not tested.
            Some(_) if self.rows.tests_rows() && self.all_match(rg) => {
                self.metrics.rows_matched += batch.num_rows() as u64;
                chosen
            }
            Some(p) if self.rows.tests_rows() => {
                self.metrics.rows_tested += batch.num_rows() as u64;
                let keep = eval::evaluate(p, batch)?;
                self.metrics.rows_matched += keep.true_count() as u64;
                Some(match chosen {
                    // Kleene AND: a null of the predicate stays unkept.
                    Some(c) => arrow_arith::boolean::and(&keep, &c)
                        .map_err(|e| crate::error::arrow_err(&crate::Location::default(), e))?,
                    None => keep,
                })
            }
            _ => chosen,
        };
        // Without a mask (no rows tested, none chosen) every row is kept.
        Ok(keep.filter(|keep| match keep.true_count() {
            kept if kept == batch.num_rows() => false,
            // Nearly every row kept: whole, where a superset will do.
            kept if self.rows == RowFiltering::Selective
                && kept.saturating_mul(10) > batch.num_rows().saturating_mul(9) =>
            {
                false
            }
            _ => true,
        }))
    }

    /// Takes in a batch of kept rows (see [`keep`](Self::keep)).
    pub(super) fn push_kept(&mut self, batch: RecordBatch) -> Result<()> {
        if self.remaining == Some(0) || batch.num_rows() == 0 {
            return Ok(());
        }
        let mut batch = if self.narrow {
            eval::project_to(&batch, &self.schema)?
        } else {
            batch
        };
        // The offset and limit count the rows that match.
        if self.to_skip > 0 {
            let skip = self.to_skip.min(batch.num_rows());
            self.to_skip -= skip;
            batch = batch.slice(skip, batch.num_rows() - skip);
        }
        if let Some(r) = self.remaining.as_mut() {
            let take = (*r).min(batch.num_rows());
            *r -= take;
            batch = batch.slice(0, take);
        }
        if batch.num_rows() > 0 {
            self.pending_rows += batch.num_rows();
            self.pending.push_back(batch);
        }
        Ok(())
    }

    /// A batch of matching rows once `batch_size` are pending (with `last`,
    /// whatever is pending): the first pending piece alone when it holds at
    /// least half a batch, else pieces joined into `batch_size` rows.
    /// Joining copies every value; when most rows match, every piece is
    /// nearly a batch and the copy cost more than the filter.
    pub(super) fn pop(&mut self, last: bool) -> Result<Option<RecordBatch>> {
        if self.pending_rows == 0 || (!last && self.pending_rows < self.batch_size) {
            return Ok(None);
        }
        // A first piece of half a batch or more is taken alone.
        let want = match self.pending.front() {
            Some(f) if f.num_rows().saturating_mul(2) >= self.batch_size => {
                f.num_rows().min(self.batch_size)
            }
            _ => self.batch_size.min(self.pending_rows),
        };
        let mut parts = Vec::new();
        let mut have = 0;
        while have < want {
            let Some(b) = self.pending.pop_front() else {
                break;
            };
            let take = (want - have).min(b.num_rows());
            if take < b.num_rows() {
                self.pending.push_front(b.slice(take, b.num_rows() - take));
            }
            parts.push(b.slice(0, take));
            have += take;
        }
        self.pending_rows -= have;
        let out = if parts.len() == 1 {
            parts.pop()
        } else {
            Some(
                arrow_select::concat::concat_batches(&self.schema, &parts)
                    .map_err(|e| crate::error::arrow_err(&crate::Location::default(), e))?,
            )
        };
        Ok(out)
    }
}

/// The rows of row group `rg` in a list of row groups' selections.
fn rows_of(selections: &[(usize, RowSelection)], rg: usize) -> Option<&RowSelection> {
    selections.iter().find(|(r, _)| *r == rg).map(|(_, s)| s)
}

/// Whether each of the `n` rows from `first` is selected by `selection`.
fn rows_mask(selection: &RowSelection, first: usize, n: usize) -> BooleanArray {
    let mut bits = arrow_buffer::BooleanBufferBuilder::new(n);
    bits.append_n(n, false);
    let end = first + n;
    for r in selection.ranges() {
        let (from, to) = (r.start.max(first), r.end.min(end));
        for i in from..to {
            bits.set_bit(i - first, true);
        }
    }
    BooleanArray::new(bits.finish(), None)
}

/// The Bloom filter of `leaf` in row group `group`, if it has one that
/// reads; one that does not is counted and ignored.
fn load_bloom(
    group: &pq_format::RowGroup,
    leaf: usize,
    file_len: u64,
    fetch: &mut dyn FnMut(u64, u64) -> Result<Bytes>,
    metrics: &mut PruningMetrics,
) -> Option<Sbbf> {
    let meta = group.columns.get(leaf)?.meta_data.as_ref()?;
    let offset = meta.bloom_filter_offset?;
    let mut read = || -> Option<Sbbf> {
        let start = u64::try_from(offset).ok()?;
        // Without a length, a first read takes the header (and, for small
        // filters, the bitset).
        let len = match meta.bloom_filter_length {
            Some(l) => u64::try_from(l).ok()?,
            None => 4096,
        };
        let end = start.checked_add(len)?.min(file_len);
        let bytes = fetch(start, end).ok()?;
        metrics.bloom_filter_bytes += bytes.len() as u64;
        match Sbbf::from_shared(bytes.clone(), MAX_BLOOM_BYTES) {
            Ok((f, _)) => Some(f),
            Err(_) if meta.bloom_filter_length.is_none() => {
                // The bitset runs past the first read: read it whole.
                let (header, header_len) =
                    <pq_format::BloomFilterHeader as pq_format::ThriftDecode>::decode_prefix(
                        &bytes,
                        &pq_format::Limits::default(),
                    )
                    .ok()?;
                let n = usize::try_from(header.num_bytes).ok()?.min(MAX_BLOOM_BYTES);
                let end = start.checked_add((header_len + n) as u64)?.min(file_len);
                let bytes = fetch(start, end).ok()?;
                metrics.bloom_filter_bytes += bytes.len() as u64;
                Sbbf::from_shared(bytes, MAX_BLOOM_BYTES)
                    .ok()
                    .map(|(f, _)| f)
            }
            Err(_) => None,
        }
    };
    let filter = read();
    match filter {
        Some(_) => metrics.bloom_filters_read += 1,
        None => metrics.bloom_filters_ignored += 1,
    }
    filter
}

/// Largest dictionary page read for pruning: one larger costs more to
/// read and test than the pruning is likely to save.
const MAX_DICTIONARY_BYTES: u64 = 4 << 20;

/// The dictionary values of `column`'s chunk in `group`, when every data
/// page uses the dictionary and the page reads.
fn load_dictionary(
    md: &ParquetMetaData,
    group: &pq_format::RowGroup,
    column: &BoundColumn,
    page_options: &PageOptions,
    fetch: &mut dyn FnMut(u64, u64) -> Result<Bytes>,
    metrics: &mut PruningMetrics,
) -> Option<arrow_array::ArrayRef> {
    use crate::predicate::dictionary::{
        all_pages_use_dictionary, dictionary_range, dictionary_values,
    };
    let meta = group.columns.get(column.leaf)?.meta_data.as_ref()?;
    let leaf = md.schema.column(column.leaf)?;
    if !all_pages_use_dictionary(meta) {
        return None;
    }
    let (start, end) = dictionary_range(meta)?;
    if end - start > MAX_DICTIONARY_BYTES {
        return None;
    }
    let bytes = fetch(start, end).ok()?;
    metrics.dictionary_bytes += bytes.len() as u64;
    metrics.dictionaries_read += 1;
    dictionary_values(bytes, meta, leaf, &column.value_type, start, page_options)
}

/// The page locations of each of `leaves` in row group `rg` (`group`)
/// that has a readable offset index, appended to `out`.
fn load_late_pages(
    out: &mut Vec<((usize, usize), Vec<pq_format::PageLocation>)>,
    leaves: &[usize],
    rg: usize,
    group: &pq_format::RowGroup,
    fetch: &mut dyn FnMut(u64, u64) -> Result<Bytes>,
    metrics: &mut PruningMetrics,
) {
    for &leaf in leaves {
        if let Some(pages) = load_offset_index(group, leaf, fetch, metrics) {
            out.push(((rg, leaf), pages));
        }
    }
}

/// The page locations of `leaf`'s chunk in `group` from its offset index;
/// `None` when it has none or it does not read.
fn load_offset_index(
    group: &pq_format::RowGroup,
    leaf: usize,
    fetch: &mut dyn FnMut(u64, u64) -> Result<Bytes>,
    metrics: &mut PruningMetrics,
) -> Option<Vec<pq_format::PageLocation>> {
    use pq_format::ThriftDecode;
    let chunk = group.columns.get(leaf)?;
    let start = u64::try_from(chunk.offset_index_offset?).ok()?;
    let len = u64::try_from(chunk.offset_index_length?).ok()?;
    let bytes = fetch(start, start.checked_add(len)?).ok()?;
    metrics.page_index_bytes += bytes.len() as u64;
    let (oi, _) =
        pq_format::OffsetIndex::decode_prefix(&bytes, &pq_format::Limits::default()).ok()?;
    Some(oi.page_locations.to_vec())
}

/// The rows of `group` the page index leaves to `predicate`; `None` when
/// no predicate column has a usable index.
fn page_selection(
    predicate: &BoundPredicate,
    md: &ParquetMetaData,
    group: &pq_format::RowGroup,
    fetch: &mut dyn FnMut(u64, u64) -> Result<Bytes>,
    metrics: &mut PruningMetrics,
) -> Option<RowSelection> {
    use pq_format::ThriftDecode;
    let limits = pq_format::Limits::default();
    let mut any = false;
    let mut read = |offset: Option<i64>, length: Option<i32>| -> Option<Bytes> {
        let start = u64::try_from(offset?).ok()?;
        let len = u64::try_from(length?).ok()?;
        let bytes = fetch(start, start.checked_add(len)?).ok()?;
        metrics.page_index_bytes += bytes.len() as u64;
        Some(bytes)
    };
    let pages: Vec<Option<page_index::PageStats>> = predicate
        .columns
        .iter()
        .map(|c| {
            let chunk = group.columns.get(c.leaf)?;
            let ci = read(chunk.column_index_offset, chunk.column_index_length)?;
            let oi = read(chunk.offset_index_offset, chunk.offset_index_length)?;
            let (ci, _) = pq_format::ColumnIndex::decode_prefix(&ci, &limits).ok()?;
            let (oi, _) = pq_format::OffsetIndex::decode_prefix(&oi, &limits).ok()?;
            let p = page_index::page_stats(md, &md.schema, c.leaf, &c.value_type, group, &ci, &oi);
            any |= p.is_some();
            p
        })
        .collect();
    metrics.page_indexes_read += pages.iter().flatten().count();
    let total = usize::try_from(group.num_rows).ok()?;
    any.then(|| page_index::page_selection(predicate, &pages, total))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Int64Array, RecordBatch};

    use super::*;
    use crate::predicate::Predicate;
    use crate::predicate::bind::bind;

    /// Even ids in row groups of 100, with Bloom filters and page indexes.
    fn file() -> Bytes {
        let ids: Vec<i64> = (0..1000).map(|i| i * 2).collect();
        let batch =
            RecordBatch::try_from_iter([("id", Arc::new(Int64Array::from(ids)) as ArrayRef)])
                .unwrap();
        let options = crate::WriterOptions::builder()
            .set_max_row_group_size(100)
            .set_data_page_row_count_limit(10)
            .set_bloom_filter_enabled(true)
            .build();
        let mut out = Vec::new();
        let mut w = crate::ParquetWriter::try_new(&mut out, batch.schema(), options).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        Bytes::from(out)
    }

    /// A filter of `text` over `reader`'s file, as a reader with batches of
    /// 10 rows makes it.
    fn filter_of(text: &str, reader: &crate::ParquetReader) -> RowFilter {
        let p = Predicate::parse(text).unwrap();
        let bound = bind(&p, &reader.metadata().schema, reader.schema()).unwrap();
        RowFilter::new(
            Some(bound),
            Vec::new(),
            reader.schema().clone(),
            false,
            10,
            0,
            None,
        )
    }

    /// A page index that rules out no page leaves the row group without a
    /// selection (read, and fetched ahead, as any other); one that rules
    /// some out narrows it.
    #[test]
    fn a_selection_of_every_row_is_none() {
        let bytes = file();
        let reader = crate::ParquetReader::from_bytes(bytes.clone()).unwrap();
        let md = reader.metadata().clone();
        let chosen: Vec<usize> = (0..md.row_groups.len()).collect();
        for (text, narrowed) in [("id != 402", false), ("id = 402", true)] {
            let mut filter = filter_of(text, &reader);
            let all = |s: u64, e: u64| Ok(Some(bytes.slice(s as usize..e as usize)));
            let Pruned::Kept(kept) = filter.prune(
                &md,
                &chosen,
                bytes.len() as u64,
                &PageOptions::default(),
                PruningOptions::default(),
                &mut { all },
            ) else {
                panic!("{text}: nothing more to fetch");
            };
            assert!(!kept.is_empty(), "{text}");
            for rg in kept {
                assert_eq!(
                    filter.selection(rg).is_some(),
                    narrowed,
                    "{text}: row group {rg}"
                );
            }
        }
    }

    #[test]
    fn pruning_without_io_asks_for_what_it_needs_then_agrees() {
        let bytes = file();
        let reader = crate::ParquetReader::from_bytes(bytes.clone()).unwrap();
        let md = reader.metadata().clone();
        let chosen: Vec<usize> = (0..md.row_groups.len()).collect();
        let options = PageOptions::default();
        for text in [
            "id = 401",
            "id IN (401, 1202)",
            "id = 400 OR id = 1999",
            "id < 0",
        ] {
            // At once, as a reader from a file does.
            let mut sync = filter_of(text, &reader);
            let all = |s: u64, e: u64| Ok(Some(bytes.slice(s as usize..e as usize)));
            let Pruned::Kept(want) = sync.prune(
                &md,
                &chosen,
                bytes.len() as u64,
                &options,
                PruningOptions::default(),
                &mut { all },
            ) else {
                panic!("{text}: a reader that reads at once needs nothing more");
            };
            // Without IO: only what was asked for and pushed is at hand.
            let mut pushed: Vec<std::ops::Range<u64>> = Vec::new();
            let mut push = filter_of(text, &reader);
            let mut rounds = 0;
            let got = loop {
                rounds += 1;
                assert!(rounds <= 6, "{text}: too many rounds");
                let at_hand = pushed.clone();
                let mut have = |s: u64, e: u64| {
                    Ok(at_hand
                        .iter()
                        .any(|r| r.start <= s && e <= r.end)
                        .then(|| bytes.slice(s as usize..e as usize)))
                };
                match push.prune(
                    &md,
                    &chosen,
                    bytes.len() as u64,
                    &options,
                    PruningOptions::default(),
                    &mut have,
                ) {
                    Pruned::Kept(k) => break k,
                    Pruned::Needs(ranges) => {
                        assert!(!ranges.is_empty());
                        pushed.extend(ranges);
                    }
                }
            };
            assert_eq!(got, want, "{text}");
            assert_eq!(push.metrics, sync.metrics, "{text}");
        }
    }
}
