//! The iterator of batches: opens the chosen row groups one at a time and
//! assembles each batch from the decoded leaf columns.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions, RecordBatchReader};
use arrow_schema::{ArrowError, DataType, SchemaRef};
use pq_format::ParquetMetaData;
use pq_page::{ChunkContext, PageOptions};

use super::filter::{PruningMetrics, RowFilter};
use super::source::Source;
use super::workers::Workers;
use crate::assemble::{Leaves, build};
use crate::column::LeafReader;
use crate::error::{Error, Location, Result, data_err};
use crate::pool::Pool;
use crate::row_group_tasks::{Batches, RowGroupTasks};
use crate::schema::{FieldKind, FieldNode};

/// The iterator of batches [`ParquetReader::build`] gives: the column
/// chunks of one row group at a time, decoded batch by batch.
///
/// As arrow-rs's reader of the same name, it is an
/// `Iterator<Item = Result<RecordBatch, ArrowError>>` and an
/// `arrow_array::RecordBatchReader`, so it feeds IPC writers or the C
/// stream interface as it is; [`next_batch`](Self::next_batch) gives the
/// same batches with pq's [`Error`].
///
/// [`ParquetReader::build`]: super::ParquetReader::build
#[derive(Debug)]
pub struct ParquetRecordBatchReader {
    pub(super) source: Source,
    pub(super) file_len: u64,
    pub(super) metadata: Arc<ParquetMetaData>,
    pub(super) schema: SchemaRef,
    pub(super) root: Option<FieldNode>,
    /// Arrow type and slot definition level of every selected leaf.
    pub(super) leaf_types: HashMap<usize, (DataType, i16)>,
    pub(super) row_groups: Vec<usize>,
    pub(super) next_rg: usize,
    pub(super) current: Option<RowGroupState>,
    /// Page decompression buffers of finished chunks, by column index,
    /// for the same columns' chunks in the next row group.
    pub(super) page_buffers: Vec<(usize, Vec<u8>)>,
    /// Decoding threads besides the caller's (`threads - 1`).
    pub(super) workers: Workers,
    /// Batches the decoding threads may decode past the one being read.
    pub(super) ahead: usize,
    /// The batches' buffers, back from dropped batches for the next ones.
    pub(super) pool: Pool,
    pub(super) batch_size: usize,
    pub(super) to_skip: usize,
    pub(super) remaining: Option<usize>,
    pub(super) page_options: PageOptions,
    pub(super) failed: bool,
    /// The predicate's filter, when there is one.
    pub(super) filter: Option<Box<RowFilter>>,
}

/// The row group being read: one reader per projected leaf column, read
/// as tasks shared with the decoding threads.
#[derive(Debug)]
pub(super) struct RowGroupState {
    index: usize,
    /// The row group's rows before the next batch (skipped ones included).
    rows_before: usize,
    tasks: Arc<RowGroupTasks>,
    /// The batches cover every row of the row group (no limit cut it).
    whole: bool,
}

impl ParquetRecordBatchReader {
    /// The Arrow schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        match &self.filter {
            Some(f) => f.schema(),
            None => self.schema.clone(),
        }
    }

    /// What the predicate pruned and kept so far ([`None`] without a
    /// predicate; see
    /// [`ParquetReader::with_predicate`](super::ParquetReader::with_predicate)).
    pub fn pruning_metrics(&self) -> Option<&PruningMetrics> {
        self.filter.as_ref().map(|f| &f.metrics)
    }

    fn open_row_group(&mut self, rg_index: usize) -> Result<RowGroupState> {
        let md = self.metadata.clone();
        let Some(rg) = md.row_groups.get(rg_index) else {
            return Err(Error::Request {
                message: format!("row group {rg_index} does not exist"),
            });
        };
        let num_rows = usize::try_from(rg.num_rows).map_err(|_| {
            data_err(
                &Location {
                    row_group: Some(rg_index),
                    ..Location::default()
                },
                format!("negative row count {}", rg.num_rows),
            )
        })?;
        let mut selected: Vec<usize> = self.leaf_types.keys().copied().collect();
        selected.sort_unstable();
        let mut readers = Vec::with_capacity(selected.len());
        for ci in selected {
            let Some(leaf) = self.metadata.schema.column(ci).cloned() else {
                continue;
            };
            let at = Location::chunk(rg_index, leaf.dotted());
            let Some(chunk) = rg.columns.get(ci) else {
                return Err(data_err(
                    &at,
                    format!("the row group has {} column chunks", rg.columns.len()),
                ));
            };
            if chunk.file_path.is_some() {
                return Err(crate::error::unsupported(
                    &at,
                    "column chunks in another file",
                ));
            }
            let Some(cmd) = &chunk.meta_data else {
                if chunk.crypto_metadata.is_some() || chunk.encrypted_column_metadata.is_some() {
                    return Err(crate::error::encrypted(&at, "encrypted column chunk"));
                }
                return Err(data_err(&at, "the column chunk has no metadata"));
            };
            // The schema's type is the one that decodes, but when the two
            // copies disagree pq cannot tell which is corrupt: a schema
            // whose INT32 turned FLOAT would read every value wrongly and
            // without a word, so the disagreement is an error.
            if cmd.type_ != leaf.physical_type {
                return Err(data_err(
                    &at,
                    format!(
                        "the chunk's physical type {} differs from the schema's {}",
                        cmd.type_.0, leaf.physical_type.0
                    ),
                ));
            }
            let range = pq_page::column_chunk_range(cmd, self.file_len, md.created_by.as_deref())
                .map_err(|source| crate::error::page_err(source, &at))?;
            let codec =
                pq_compress::Codec::from_thrift(cmd.codec.0).map_err(|source| Error::Compress {
                    at: Box::new(at.clone()),
                    source,
                })?;
            let bytes = self.source.read_range(range.start, range.end, &at)?;
            let ctx = ChunkContext {
                codec,
                // A column that is not repeated holds one level per row, so
                // its values are the row group's rows. The chunk's own
                // `num_values` is a copy other readers ignore: a wrong copy
                // must not fail pages that agree with the row group.
                num_values: if leaf.max_rep_level == 0 {
                    num_rows as u64
                } else {
                    u64::try_from(cmd.num_values).unwrap_or(0)
                },
                max_def_level: leaf.max_def_level,
                max_rep_level: leaf.max_rep_level,
                file_offset: range.start,
                column: leaf.dotted(),
            };
            let (dt, slot_def) = self
                .leaf_types
                .get(&ci)
                .ok_or_else(|| data_err(&at, "unknown leaf type"))?;
            let mut reader = LeafReader::new(bytes, ctx, &leaf, dt, &self.page_options, at)?
                .with_total_uncompressed_size(cmd.total_uncompressed_size)
                .with_slot_def(*slot_def)
                .with_pool(self.pool.clone());
            if let Some(k) = self.page_buffers.iter().position(|(c, _)| *c == ci) {
                let (_, b) = self.page_buffers.swap_remove(k);
                reader = reader.with_page_buffer(b);
            }
            readers.push((ci, reader));
        }
        // The batches: rows skipped by the offset (in large steps), then
        // batches up to the limit.
        let skip = self.to_skip.min(num_rows);
        self.to_skip -= skip;
        let read = (num_rows - skip).min(self.remaining.unwrap_or(usize::MAX));
        let sizes = Batches {
            skip,
            step: self.batch_size.max(8192),
            read,
            size: self.batch_size,
        };
        let tasks = Arc::new(RowGroupTasks::new(readers, sizes, self.ahead));
        self.workers.share(&tasks);
        Ok(RowGroupState {
            index: rg_index,
            rows_before: skip,
            tasks,
            whole: skip + read == num_rows,
        })
    }

    /// The batch of `num_rows` rows from row `first_row` of row group
    /// `rg_index`.
    fn assemble(
        &self,
        leaves: &Leaves,
        num_rows: usize,
        rg_index: usize,
        first_row: usize,
    ) -> Result<RecordBatch> {
        let at = Location {
            row_group: Some(rg_index),
            ..Location::default()
        };
        let mut columns: Vec<ArrayRef> = Vec::new();
        if let Some(FieldNode {
            kind: FieldKind::Group(children),
            ..
        }) = &self.root
        {
            for (child, field) in children.iter().zip(self.schema.fields().iter()) {
                let fat = Location::chunk(rg_index, field.name().clone());
                let a = build(child, leaves, &fat)?;
                if a.len() != num_rows {
                    let declared = self
                        .metadata
                        .row_groups
                        .get(rg_index)
                        .map_or(0, |rg| rg.num_rows);
                    // A column is read up to the rows the batch asks for,
                    // so it can only come up short: its chunk ends early.
                    return Err(data_err(
                        &fat,
                        format!(
                            "the row group declares {declared} rows but the column's chunk ends after {} \
                             (a batch of {num_rows} rows from row {first_row} found {})",
                            first_row + a.len(),
                            a.len()
                        ),
                    ));
                }
                columns.push(a);
            }
        }
        RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(num_rows)),
        )
        .map_err(|e| crate::error::arrow_err(&at, e))
    }

    /// A row group of no rows is skipped unread, unless a chunk says it
    /// holds values: then the row count or the chunk is corrupt, and
    /// reading nothing would drop the chunk's rows without a word.
    fn check_empty_row_group(&self, rg: usize) -> Result<()> {
        let Some(group) = self.metadata.row_groups.get(rg) else {
            return Ok(());
        };
        for (chunk, leaf) in group.columns.iter().zip(self.metadata.schema.columns()) {
            let values = chunk.meta_data.as_ref().map_or(0, |m| m.num_values);
            if values > 0 {
                return Err(data_err(
                    &Location::chunk(rg, leaf.dotted()),
                    format!(
                        "the row group declares {} rows but the column chunk holds {values} values",
                        group.num_rows
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The next batch, with pq's own [`Error`] (the iterator gives the
    /// same batches with the error inside an `ArrowError`); `Ok(None)` once
    /// every chosen row is read. After an error there are no more batches.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        if self.failed {
            return Ok(None);
        }
        let batch = match self.filter.is_some() {
            true => self.read_filtered(),
            false => self.read_next(),
        };
        self.failed = batch.is_err();
        batch
    }

    /// The next batch of matching rows: read batches are filtered until a
    /// whole batch of them is gathered, or the reading ends.
    fn read_filtered(&mut self) -> Result<Option<RecordBatch>> {
        loop {
            let Some(filter) = self.filter.as_mut() else {
                return self.read_next();
            };
            if let Some(b) = filter.pop(false)? {
                return Ok(Some(b));
            }
            if filter.done() {
                return Ok(None);
            }
            match self.read_next()? {
                Some(batch) => {
                    if let Some(f) = self.filter.as_mut() {
                        f.push(batch)?;
                    }
                }
                None => return self.filter.as_mut().map_or(Ok(None), |f| f.pop(true)),
            }
        }
    }

    fn read_next(&mut self) -> Result<Option<RecordBatch>> {
        loop {
            if self.remaining == Some(0) {
                return Ok(None);
            }
            if let Some(state) = self.current.as_mut() {
                match state.tasks.next_batch() {
                    Some((n, leaves)) => {
                        let leaves = leaves?;
                        let rg = state.index;
                        let first_row = state.rows_before;
                        state.rows_before += n;
                        let batch = self.assemble(&leaves, n, rg, first_row);
                        // The levels are not part of the batch: back to
                        // the pool.
                        for (_, leaf) in leaves {
                            self.pool.put(leaf.def.unwrap_or_default());
                            self.pool.put(leaf.rep.unwrap_or_default());
                        }
                        let batch = batch?;
                        self.remaining = self.remaining.map(|r| r.saturating_sub(n));
                        return Ok(Some(batch));
                    }
                    None => {
                        let (readers, all) = state.tasks.close();
                        let whole = state.whole && all;
                        self.current = None;
                        for (ci, mut r) in readers {
                            if whole {
                                r.finish()?;
                            }
                            // Kept for the column's next chunk: a fresh
                            // buffer per chunk costs a page fault per 4 KiB.
                            if let Some(b) = r.take_page_buffer() {
                                self.page_buffers.push((ci, b));
                            }
                        }
                        continue;
                    }
                }
            }
            let Some(&rg) = self.row_groups.get(self.next_rg) else {
                return Ok(None);
            };
            self.next_rg += 1;
            let rows = self
                .metadata
                .row_groups
                .get(rg)
                .map(|r| usize::try_from(r.num_rows).unwrap_or(0))
                .unwrap_or(0);
            if self.to_skip >= rows && rows > 0 {
                self.to_skip -= rows;
                continue;
            }
            if rows == 0 {
                self.check_empty_row_group(rg)?;
                continue;
            }
            self.current = Some(self.open_row_group(rg)?);
        }
    }
}

impl Drop for ParquetRecordBatchReader {
    fn drop(&mut self) {
        // Decoding threads stop taking tasks of the row group.
        if let Some(state) = self.current.take() {
            let _ = state.tasks.close();
        }
    }
}

/// The batches as arrow-rs readers give them: pq's [`Error`] is inside
/// `ArrowError::ExternalError`, from which it downcasts back (or converts
/// back with `pq_arrow::Error::from`).
impl Iterator for ParquetRecordBatchReader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch().map_err(ArrowError::from).transpose()
    }
}

/// So that the batches feed whatever takes a `RecordBatchReader`: Arrow
/// IPC writers, the C stream interface.
impl RecordBatchReader for ParquetRecordBatchReader {
    fn schema(&self) -> SchemaRef {
        ParquetRecordBatchReader::schema(self)
    }
}
