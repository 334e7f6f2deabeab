//! Keeping only the rows a predicate selects: row groups its statistics
//! rule out are never read, and the batches of the others are filtered,
//! then gathered back into batches of the requested size.

use std::collections::VecDeque;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use pq_format::ParquetMetaData;

use crate::error::Result;
use crate::predicate::bind::BoundPredicate;
use crate::predicate::{eval, stats};

/// What a predicate saved and kept, for reports such as `pq scan`'s.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PruningMetrics {
    /// Row groups chosen before the predicate.
    pub row_groups: usize,
    /// Of them, the ones their statistics ruled out (never read).
    pub row_groups_pruned: usize,
    /// Rows in the row groups ruled out.
    pub rows_pruned: u64,
    /// Rows decoded and tested against the predicate.
    pub rows_tested: u64,
    /// Rows that satisfied it (before any offset or limit).
    pub rows_matched: u64,
}

/// The filter of a reader with a predicate.
#[derive(Debug)]
pub(super) struct RowFilter {
    predicate: BoundPredicate,
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
}

impl RowFilter {
    pub(super) fn new(
        predicate: BoundPredicate,
        schema: SchemaRef,
        narrow: bool,
        batch_size: usize,
        offset: usize,
        limit: Option<usize>,
    ) -> Self {
        RowFilter {
            predicate,
            schema,
            narrow,
            batch_size: batch_size.max(1),
            to_skip: offset,
            remaining: limit,
            pending: VecDeque::new(),
            pending_rows: 0,
            metrics: PruningMetrics::default(),
        }
    }

    /// The batches' schema.
    pub(super) fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The row groups of `chosen` that may hold a matching row.
    pub(super) fn prune(&mut self, md: &ParquetMetaData, chosen: Vec<usize>) -> Vec<usize> {
        self.metrics.row_groups = chosen.len();
        chosen
            .into_iter()
            .filter(|&rg| {
                let Some(group) = md.row_groups.get(rg) else {
                    // Reported by the reader when it gets there.
                    return true;
                };
                let keep = stats::row_group_may_match(&self.predicate, md, &md.schema, group);
                if !keep {
                    self.metrics.row_groups_pruned += 1;
                    self.metrics.rows_pruned += u64::try_from(group.num_rows).unwrap_or(0);
                }
                keep
            })
            .collect()
    }

    /// Whether the limit is reached: nothing more to read.
    pub(super) fn done(&self) -> bool {
        self.remaining == Some(0) && self.pending_rows == 0
    }

    /// Takes in a read batch.
    pub(super) fn push(&mut self, batch: RecordBatch) -> Result<()> {
        if self.remaining == Some(0) {
            return Ok(());
        }
        self.metrics.rows_tested += batch.num_rows() as u64;
        let keep = eval::evaluate(&self.predicate, &batch)?;
        let kept = keep.true_count();
        self.metrics.rows_matched += kept as u64;
        if kept == 0 {
            return Ok(());
        }
        let batch = if kept == batch.num_rows() {
            batch
        } else {
            eval::filter(&batch, &keep)?
        };
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

    /// A batch of `batch_size` matching rows once that many are pending;
    /// with `last`, whatever is pending.
    pub(super) fn pop(&mut self, last: bool) -> Result<Option<RecordBatch>> {
        if self.pending_rows == 0 || (!last && self.pending_rows < self.batch_size) {
            return Ok(None);
        }
        let want = self.batch_size.min(self.pending_rows);
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
