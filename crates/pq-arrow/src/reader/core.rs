//! The sans-IO core of the reader: opens the chosen row groups one at a
//! time and assembles each batch from the decoded leaf columns, asking for
//! the bytes of the pages it needs instead of reading them.
//!
//! [`BatchDecoder::next`] gives a batch, the byte ranges it needs first, or
//! the end; [`BatchDecoder::push_range`] gives it bytes. The sync reader
//! ([`super::ParquetRecordBatchReader`]) and the push decoder
//! ([`super::ParquetPushDecoder`]) are loops over it; it holds no IO type.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_buffer::BooleanBuffer;
use arrow_schema::{DataType, SchemaRef};
use bytes::Bytes;
use pq_format::ParquetMetaData;
use pq_page::{ChunkContext, PageOptions, PageReader};

use super::filter::{Pruned, PruningMetrics, PruningOptions, RowFilter};
use super::late::LatePlan;
use super::pieces::{Pieces, coalesce};
use super::workers::Workers;
use crate::assemble::{Leaves, build};
use crate::column::tested::ByteTest;
use crate::column::{ChunkBuffers, KeptRows, LeafData, LeafReader, Step};
use crate::error::{Error, Location, Result, data_err};
use crate::pool::Pool;
use crate::row_group_tasks::{Batches, Next, ReadAt, RowGroupTasks};
use crate::schema::{FieldKind, FieldNode};

/// What [`BatchDecoder::next`] gave.
#[derive(Debug)]
pub(crate) enum Decoded {
    /// The next batch.
    Batch(RecordBatch),
    /// Push bytes covering these ranges of the file (absolute, sorted,
    /// merged), then ask again.
    Needs(Vec<Range<u64>>),
    /// Every chosen row has been read.
    Finished,
}

/// The state machine from a file's metadata to its batches.
#[derive(Debug)]
pub(crate) struct BatchDecoder {
    pub(super) file_len: u64,
    pub(super) metadata: Arc<ParquetMetaData>,
    pub(super) schema: SchemaRef,
    pub(super) root: Option<FieldNode>,
    /// Arrow type and slot definition level of every selected leaf.
    pub(super) leaf_types: HashMap<usize, (DataType, i16)>,
    pub(super) row_groups: Vec<usize>,
    pub(super) next_rg: usize,
    pub(super) current: Option<RowGroupState>,
    /// Readers of the last row group read whole, checked in order for
    /// values past its rows (which may need their next pages' bytes).
    /// With each, the bytes it waits for.
    pub(super) finishing: Vec<(usize, LeafReader, Option<Range<u64>>)>,
    /// Decompression and decoding buffers of finished chunks, by column
    /// index, for the same columns' chunks in the next row group.
    pub(super) buffers: Vec<(usize, ChunkBuffers)>,
    /// The thread that decoded each column's last batch in the last row
    /// group read by decoding threads, `(column, thread)`: where those
    /// buffers were last written (see [`RowGroupTasks::with_last_threads`]).
    pub(super) last_threads: Vec<(usize, usize)>,
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
    /// Pushed bytes not yet handed to the readers that asked for them.
    pub(super) pieces: Pieces,
    /// Requested ranges closer than this are merged into one.
    pub(super) coalesce_gap: u64,
    /// Without decoding threads, a column of compressed pages asks for its
    /// bytes as soon as it waits, before the next column runs, and lets a
    /// page's compressed bytes go (back to the pool, for the next column's
    /// read) once the page is decompressed. Gathered, the compressed pages
    /// of every column were held at once beside their decompressed copies:
    /// a row group's worth for writers of one page per column per row group
    /// (DuckDB). Columns of uncompressed pages, whose bytes are their
    /// values, are still read together (alone, they cost reads and page
    /// faults for no memory saved); with decoding threads, pages are read
    /// ahead instead. Set by the reader of a local file, where another read
    /// costs a system call; remote reads gather theirs into fewer requests.
    pub(super) serial_reads: bool,
    /// Reads of the file the tasks make themselves, on whichever thread
    /// runs them (see [`RowGroupTasks::with_reads`]); `None`: the tasks ask
    /// the caller for bytes.
    pub(super) reads: Option<ReadAt>,
    /// The most bytes of the file held at once (pushed pieces and the
    /// readers' pages).
    pub(super) peak_buffered: usize,
    /// The byte range and location of each chunk of the row group, to
    /// name the chunk a failed read was for.
    pub(super) chunks: Vec<(Range<u64>, Location)>,
    /// The bytes of the current row group's chunks that its rows can need,
    /// where the page index narrowed the row group and a chunk is read
    /// through its offset index: each run of pages holding selected rows
    /// (and a dictionary page before them). An async read widens a request
    /// only within its run (see [`Self::chunk_end`]).
    pub(super) needed_spans: Vec<Range<u64>>,
    /// The predicate's pruning and filtering, when there is one.
    pub(super) filter: Option<Box<RowFilter>>,
    /// What the predicate prunes by.
    pub(super) pruning: PruningOptions,
    /// Whether the chosen row groups have been pruned (before the first
    /// is opened).
    pub(super) pruned: bool,
    /// Bytes pushed for pruning, kept until it is done.
    pub(super) prune_bytes: Pieces,
    /// The row group and first row of the last batch read (for the
    /// filter's row selection).
    pub(super) last_batch_at: (usize, usize),
    /// The columns read late, when a filter reads any so.
    pub(super) late: Option<LatePlan>,
    /// The early column read through the predicate's test, when the
    /// predicate is (or has a conjunct that is) a test of it (see
    /// [`crate::column::tested`]).
    pub(super) tested: Option<Tested>,
    /// The last batch read holds only the rows the filter keeps (its late
    /// columns were read for those alone).
    pub(super) last_kept: bool,
}

/// The early column a predicate's test reads through (see
/// [`crate::column::tested`]).
#[derive(Debug, Clone)]
pub(super) struct Tested {
    /// Its leaf index.
    pub(super) leaf: usize,
    pub(super) test: Arc<ByteTest>,
    /// Its index among the top-level fields, and among the early ones.
    pub(super) field: usize,
    pub(super) early: usize,
    /// The rest of the predicate (its other conjuncts), tested on the
    /// other early fields.
    pub(super) rest: Option<crate::predicate::bind::BoundPredicate>,
}

/// The row ranges of `selection` a column reads: each selected run, or
/// with `span` (an early column, which reads its pages from the first
/// selected row to the last) one range over them all.
fn selected_rows(selection: &crate::reader::RowSelection, span: bool) -> Vec<Range<u64>> {
    let runs = selection.ranges();
    let rows = |r: &Range<usize>| r.start as u64..r.end as u64;
    match (span, runs.first(), runs.last()) {
        (true, Some(first), Some(last)) => {
            std::iter::once(rows(&(first.start..last.end))).collect()
        }
        _ => runs.iter().map(rows).collect(),
    }
}

/// `n` empty values of `dt` (a byte-array type), without nulls.
fn empty_values(dt: &DataType, n: usize) -> Result<ArrayRef> {
    use arrow_array::types::{BinaryType, ByteArrayType, LargeBinaryType, LargeUtf8Type, Utf8Type};
    fn empty<T: ByteArrayType>(n: usize) -> ArrayRef {
        let offsets = arrow_buffer::OffsetBuffer::new_zeroed(n);
        let values = arrow_buffer::Buffer::from_vec(Vec::<u8>::new());
        Arc::new(arrow_array::GenericByteArray::<T>::new(
            offsets, values, None,
        ))
    }
    Ok(match dt {
        DataType::Utf8 => empty::<Utf8Type>(n),
        DataType::LargeUtf8 => empty::<LargeUtf8Type>(n),
        DataType::Binary => empty::<BinaryType>(n),
        DataType::LargeBinary => empty::<LargeBinaryType>(n),
        other => {
            return Err(data_err(
                &Location::default(),
                format!("a tested column of type {other}"),
            ));
        }
    })
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
    /// The kept rows of the early fields of the batch whose late columns
    /// are being read.
    early: Option<RecordBatch>,
}

impl BatchDecoder {
    /// The Arrow schema of the batches (without columns read only for a
    /// predicate).
    pub(crate) fn schema(&self) -> SchemaRef {
        match &self.filter {
            Some(f) => f.schema(),
            None => self.schema.clone(),
        }
    }

    /// What the predicate pruned and kept so far (`None` without one).
    pub(crate) fn pruning_metrics(&self) -> Option<&PruningMetrics> {
        self.filter.as_ref().map(|f| &f.metrics)
    }

    /// The next batch of rows the predicate keeps (every row without one),
    /// the bytes needed first, or the end. The row groups are pruned first,
    /// asking for the Bloom filters, dictionaries and page indexes that
    /// pruning reads.
    pub(crate) fn next(&mut self) -> Result<Decoded> {
        if !self.pruned
            && let Some(needs) = self.prune()
        {
            return Ok(needs);
        }
        loop {
            let Some(filter) = self.filter.as_mut() else {
                return self.next_row_batch();
            };
            if let Some(b) = filter.pop(false)? {
                return Ok(Decoded::Batch(b));
            }
            if filter.done() {
                return Ok(Decoded::Finished);
            }
            match self.next_row_batch()? {
                Decoded::Batch(b) => {
                    let (rg, first_row) = self.last_batch_at;
                    if let Some(f) = self.filter.as_mut() {
                        if self.last_kept {
                            f.push_kept(b)?;
                        } else {
                            f.push(b, rg, first_row)?;
                        }
                    }
                }
                Decoded::Finished => {
                    let last = match self.filter.as_mut() {
                        Some(f) => f.pop(true)?,
                        None => None,
                    };
                    return Ok(last.map_or(Decoded::Finished, Decoded::Batch));
                }
                needs @ Decoded::Needs(_) => return Ok(needs),
            }
        }
    }

    /// One round of pruning the chosen row groups: `None` once done (the
    /// row groups left are then the ones to read), else the bytes it needs.
    /// The bytes pushed for earlier rounds are kept until it is done, since
    /// each round starts over.
    fn prune(&mut self) -> Option<Decoded> {
        let Some(filter) = self.filter.as_mut() else {
            self.pruned = true;
            return None;
        };
        // Every byte pushed since the last round was asked for by it.
        for (o, d) in self.pieces.take().into_pieces() {
            self.prune_bytes.push(o, d);
        }
        let held = &self.prune_bytes;
        let file_len = self.file_len;
        let mut fetch = |start: u64, end: u64| -> Result<Option<Bytes>> {
            // A range outside the file (a damaged offset) is not asked for:
            // that source is ignored, as any that does not read.
            if start > end || end > file_len {
                return Err(data_err(
                    &Location::default().at_offset(start),
                    "a pruning structure lies outside the file",
                ));
            }
            Ok(held.cover(&(start..end)).and_then(|(o, d)| {
                let from = usize::try_from(start - o).ok()?;
                let to = usize::try_from(end - o).ok()?;
                (to <= d.len()).then(|| d.slice(from..to))
            }))
        };
        let md = self.metadata.clone();
        match filter.prune(
            &md,
            &self.row_groups,
            file_len,
            &self.page_options,
            self.pruning,
            &mut fetch,
        ) {
            Pruned::Kept(kept) => {
                self.row_groups = kept;
                self.pruned = true;
                self.prune_bytes = Pieces::default();
                None
            }
            Pruned::Needs(ranges) => Some(Decoded::Needs(coalesce(ranges, self.coalesce_gap))),
        }
    }

    /// Gives the decoder the bytes of the file from absolute offset
    /// `offset`. They are kept only while a range it asked for and has not
    /// yet been given overlaps them (so bytes pushed ahead of any request
    /// are dropped at the next delivery).
    pub(crate) fn push_range(&mut self, offset: u64, data: Bytes) {
        self.pieces.push(offset, data);
        self.note_buffered();
    }

    /// Bytes of the file held now: pushed pieces not yet handed out, and
    /// the pages the column readers hold.
    pub(crate) fn buffered_bytes(&self) -> usize {
        let readers = self
            .current
            .as_ref()
            .map_or(0, |s| s.tasks.buffered_bytes());
        let finishing: usize = self
            .finishing
            .iter()
            .map(|(_, r, _)| r.buffered_bytes())
            .sum();
        self.pieces.bytes() + readers + finishing
    }

    /// Where in the file `offset` is: the chunk of the current row group
    /// that holds it, for errors of reads made for the decoder.
    pub(crate) fn location_of(&self, offset: u64) -> Location {
        self.chunks
            .iter()
            .find(|(r, _)| r.contains(&offset))
            .map_or_else(Location::default, |(_, at)| at.clone())
            .at_offset(offset)
    }

    /// The bytes of the file's page index (every column and offset index
    /// of every chunk), when they lie together at most `most` bytes long:
    /// pruning asks for a predicate column's indexes, then for those of the
    /// columns read late, each answer before the next question, and an
    /// async read that fetches the whole page index at the first asks
    /// them in one round trip instead of three.
    #[cfg(feature = "async")]
    pub(crate) fn page_index_region(&self, most: u64) -> Option<Range<u64>> {
        let mut region: Option<Range<u64>> = None;
        for chunk in self.metadata.row_groups.iter().flat_map(|g| &g.columns) {
            for (offset, length) in [
                (chunk.column_index_offset, chunk.column_index_length),
                (chunk.offset_index_offset, chunk.offset_index_length),
            ] {
                let (Some(o), Some(l)) = (offset, length) else {
                    continue;
                };
                let (Ok(o), Ok(l)) = (u64::try_from(o), u64::try_from(l)) else {
                    continue;
                };
                let end = o.saturating_add(l).min(self.file_len);
                region = Some(match region {
                    Some(r) => r.start.min(o)..r.end.max(end),
                    None => o..end,
                });
            }
        }
        region.filter(|r| r.start < r.end && r.end - r.start <= most)
    }

    /// The end of the column chunk of the current row group that holds
    /// `offset`: how far a fetch for a page there may usefully read ahead.
    /// Also for a chunk read through its offset index: requests of a page
    /// or a megabyte each made a dense selective read through a 20 ms
    /// proxy six times slower (one round trip per page), so a remote read
    /// fetches whole chunks and the page reader passes over pages in them.
    ///
    /// Where the page index narrowed the row group, a chunk read through
    /// its offset index ends, for this purpose, at the end of the run of
    /// pages with selected rows that holds `offset` ([`Self::needed_spans`]):
    /// a 0.1 % key range fetched whole chunks, 35 MB for 6 MB of pages.
    #[cfg(feature = "async")]
    pub(crate) fn chunk_end(&self, offset: u64) -> Option<u64> {
        if let Some(span) = self.needed_spans.iter().find(|r| r.contains(&offset)) {
            return Some(span.end);
        }
        self.chunks
            .iter()
            .find(|(r, _)| r.contains(&offset))
            .map(|(r, _)| r.end)
    }

    /// The byte ranges of the projected column chunks of the row group
    /// read after the current one (empty when there is none, before the
    /// predicate has pruned, when the rows left to read end in the current
    /// one, or when its page index narrowed it): what an async reader may
    /// fetch while the current one decodes. Damaged chunk metadata gives no
    /// range; the decoder reports it when it opens the row group.
    #[cfg(feature = "async")]
    pub(crate) fn next_row_group_ranges(&self) -> Vec<Range<u64>> {
        let Some(&rg) = self.row_groups.get(self.next_rg) else {
            return Vec::new();
        };
        if !self.pruned || self.remaining == Some(0) {
            return Vec::new();
        }
        if let (Some(left), Some(state)) = (self.remaining, &self.current) {
            let rows = self
                .metadata
                .row_groups
                .get(state.index)
                .map_or(0, |g| usize::try_from(g.num_rows).unwrap_or(0));
            if rows.saturating_sub(state.rows_before) >= left {
                return Vec::new();
            }
        }
        if self
            .filter
            .as_ref()
            .is_some_and(|f| f.selection(rg).is_some())
        {
            return Vec::new();
        }
        let Some(group) = self.metadata.row_groups.get(rg) else {
            return Vec::new();
        };
        let mut ranges = Vec::new();
        for &ci in self.leaf_types.keys() {
            let Some(cmd) = group.columns.get(ci).and_then(|c| c.meta_data.as_ref()) else {
                continue;
            };
            if let Ok(r) =
                pq_page::column_chunk_range(cmd, self.file_len, self.metadata.created_by.as_deref())
            {
                ranges.push(r);
            }
        }
        coalesce(ranges, self.coalesce_gap)
    }

    /// The byte ranges of the current row group's projected column chunks,
    /// merged, when it is read whole (no page index narrowed it, no limit
    /// may end it early): what a first request for it may fetch at once,
    /// as a prefetch of it would have (see [`Self::next_row_group_ranges`]).
    /// Empty otherwise.
    #[cfg(feature = "async")]
    pub(crate) fn current_row_group_ranges(&self) -> Vec<Range<u64>> {
        let Some(state) = &self.current else {
            return Vec::new();
        };
        let narrowed = self
            .filter
            .as_ref()
            .is_some_and(|f| f.selection(state.index).is_some());
        if narrowed || self.remaining.is_some() {
            return Vec::new();
        }
        coalesce(
            self.chunks.iter().map(|(r, _)| r.clone()).collect(),
            self.coalesce_gap,
        )
    }

    /// The most bytes of the file held at once so far (see
    /// [`buffered_bytes`](Self::buffered_bytes)).
    pub(crate) fn peak_buffered_bytes(&self) -> usize {
        self.peak_buffered
    }

    fn note_buffered(&mut self) {
        self.peak_buffered = self.peak_buffered.max(self.buffered_bytes());
    }

    /// Hands the pushed bytes to the readers of the row group that wait
    /// for them; whether any reader got bytes.
    fn deliver(&mut self) -> bool {
        let mut any = false;
        let pieces = &self.pieces;
        // A page that straddles two pushed pieces is joined into a buffer
        // of the pool, which comes back once the page is read: for a
        // remote read nearly every page (pieces of 2 MiB, pages of about
        // one), each otherwise fresh memory faulted in.
        let pool = &self.pool;
        if let Some(state) = &self.current {
            state.tasks.deliver(&mut |need| {
                let got = pieces.cover_from(need, pool);
                any |= got.is_some();
                got
            });
        }
        for (_, r, need) in &mut self.finishing {
            if let Some(n) = need
                && let Some((offset, data)) = pieces.cover_from(n, pool)
            {
                r.push(offset, data);
                *need = None;
                any = true;
            }
        }
        // What the readers took, they hold: the pieces are kept only for
        // what is still awaited.
        let mut outstanding = self
            .current
            .as_ref()
            .map(|s| s.tasks.outstanding())
            .unwrap_or_default();
        outstanding.extend(self.finishing.iter().filter_map(|(_, _, n)| n.clone()));
        self.pieces.keep_for(&outstanding);
        self.note_buffered();
        any
    }

    /// Asks for `ranges` (merged) but those the pushed bytes already cover
    /// (asked ahead for a reader that is busy), dropping the pushed bytes
    /// that serve none of them.
    fn needs(&mut self, ranges: Vec<Range<u64>>) -> Decoded {
        self.pieces.keep_for(&ranges);
        let missing = ranges
            .into_iter()
            .filter(|r| !self.pieces.covers(r))
            .collect();
        Decoded::Needs(coalesce(missing, self.coalesce_gap))
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
        // A row group whose statistics show every row matches is read as
        // without a predicate: no column first, none as keys, no test.
        let plain = self
            .filter
            .as_ref()
            .is_some_and(|f| f.all_match(rg_index) && f.selection(rg_index).is_none());
        let keyable = if plain {
            Vec::new()
        } else {
            self.keyable_leaves()
        };
        // The column read through the predicate's test, in a row group
        // whose rows are tested.
        let tested = self
            .tested
            .as_ref()
            .filter(|_| !plain && !self.filter.as_ref().is_some_and(|f| f.all_match(rg_index)));
        let mut readers = Vec::with_capacity(selected.len());
        self.chunks.clear();
        self.needed_spans.clear();
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
            // The chunk's pages are asked for as they are needed, so that a
            // reader holds a page or two of each column, not the chunk.
            // Read alone (see `serial_reads`).
            let alone = self.serial_reads
                && !self.workers.any()
                && ctx.codec != pq_compress::Codec::Uncompressed;
            let mut pages = PageReader::streaming(range.end - range.start, ctx, &self.page_options)
                .releasing_read_bytes(alone);
            // The first read takes the dictionary page whole, with the
            // first data page (as long as the column's last chunk's, once
            // there was one: see `LeafReader::with_buffers`).
            if let Some((start, end)) = crate::predicate::dictionary::dictionary_range(cmd)
                && start == range.start
                && end <= range.end
            {
                pages = pages.with_dictionary_page_len(usize::try_from(end - start).unwrap_or(0));
            }
            // A late column whose offset index was read passes over the
            // pages of rows not kept without their headers, and asks for a
            // page as exactly its bytes.
            let late = self.filter.is_some()
                && !plain
                && self.late.as_ref().is_some_and(|p| p.is_late(ci));
            // An early column too, where the page index narrowed the row
            // group: it reads the span of the selected rows.
            let selection = self
                .filter
                .as_ref()
                .filter(|_| !plain)
                .and_then(|f| f.selection(rg_index));
            let late_pages = self
                .filter
                .as_ref()
                .filter(|_| late || selection.is_some())
                .and_then(|f| f.late_pages(rg_index, ci));
            if let Some(locations) = late_pages {
                pages = pages.with_page_locations(locations);
                if let Some(selection) = selection {
                    let rows = selected_rows(selection, !late);
                    // No runs when the page reader placed no pages: it then
                    // reads the chunk from its start, fetched whole.
                    self.needed_spans
                        .extend(pages.ranges_for_rows(&rows).unwrap_or_default());
                }
            }
            self.chunks.push((range.clone(), at.clone()));
            // A predicate's column whose pages all index a small dictionary
            // is read as its keys: the predicate is tested on the
            // dictionary's values once a batch, and only the kept rows are
            // turned into values (see `LatePlan::restore_types`). Small: at
            // most half a byte of dictionary page per row of a batch, so
            // that testing every entry each batch stays well under testing
            // its rows (a date column's 2 500 entries against batches of
            // 8 192 rows cost TPC-H Q1, which keeps 98 % of its rows, 1-2 %).
            let keyed;
            let test = tested.filter(|t| t.leaf == ci).map(|t| t.test.clone());
            let dt = if keyable.contains(&ci)
                && test.is_none()
                && crate::predicate::dictionary::all_pages_use_dictionary(cmd)
                && crate::predicate::dictionary::dictionary_range(cmd)
                    .is_some_and(|(start, end)| end - start <= self.batch_size as u64 / 2)
            {
                keyed = DataType::Dictionary(Box::new(DataType::Int32), Box::new(dt.clone()));
                &keyed
            } else {
                dt
            };
            let mut reader = LeafReader::new(pages, &leaf, dt, at)?
                .with_total_uncompressed_size(cmd.total_uncompressed_size)
                .with_slot_def(*slot_def)
                .with_pool(self.pool.clone());
            if let Some(k) = self.buffers.iter().position(|(c, _)| *c == ci) {
                let (_, b) = self.buffers.swap_remove(k);
                reader = reader.with_buffers(b);
            }
            if let Some(test) = test {
                reader = reader.with_test(test);
            }
            readers.push((ci, reader));
        }
        // The batches: rows skipped by the offset, then batches up to the
        // limit. With a predicate whose page index narrowed the row group,
        // only the span from its first to its last selected row is read.
        let skip = self.to_skip.min(num_rows);
        self.to_skip -= skip;
        let read = (num_rows - skip).min(self.remaining.unwrap_or(usize::MAX));
        let (skip, read) = match self.filter.as_ref().and_then(|f| f.selection(rg_index)) {
            Some(s) => {
                let ranges = s.ranges();
                match (ranges.first(), ranges.last()) {
                    (Some(first), Some(last)) if last.end <= num_rows => {
                        (first.start, last.end - first.start)
                    }
                    _ => (skip, read),
                }
            }
            None => (skip, read),
        };
        // Columns that are not repeated pass over skipped pages from their
        // headers: one step skips them all. A repeated column decodes what
        // it skips, a bounded step at a time.
        let flat = readers.iter().all(|(_, r)| !r.is_repeated());
        let sizes = Batches {
            skip,
            step: if flat {
                usize::MAX
            } else {
                self.batch_size.max(8192)
            },
            read,
            size: self.batch_size,
        };
        let mut tasks = RowGroupTasks::new(readers, sizes, self.ahead)
            .with_read_ahead(self.workers.any() && self.reads.is_none())
            .with_reads(self.reads.clone());
        // Largest first, and each column's thread of the row group before,
        // only matter to threads sharing a batch; one thread keeps the
        // columns in file order.
        if self.workers.any() {
            tasks = tasks.largest_first().with_last_threads(&self.last_threads);
        }
        if let Some(plan) = self.late.as_ref().filter(|_| !plain) {
            tasks = tasks.with_late(|leaf| plan.is_late(leaf));
        }
        let tasks = Arc::new(tasks);
        self.workers.share(&tasks);
        Ok(RowGroupState {
            index: rg_index,
            rows_before: skip,
            tasks,
            whole: skip + read == num_rows,
            early: None,
        })
    }

    /// The leaves that may be read as dictionary keys: those of early
    /// top-level fields that are a leaf themselves (not nested) and not
    /// already read as a dictionary.
    fn keyable_leaves(&self) -> Vec<usize> {
        let (
            Some(plan),
            Some(FieldNode {
                kind: FieldKind::Group(children),
                ..
            }),
        ) = (&self.late, &self.root)
        else {
            return Vec::new();
        };
        children
            .iter()
            .enumerate()
            .filter_map(|(i, child)| match child.kind {
                FieldKind::Leaf { column_index }
                    if !plan.field_is_late(i)
                        && !matches!(
                            self.leaf_types.get(&column_index),
                            Some((DataType::Dictionary(_, _), _)) | None
                        ) =>
                {
                    Some(column_index)
                }
                _ => None,
            })
            .collect()
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
        let columns = self.assemble_fields(leaves, num_rows, rg_index, first_row, |_| true)?;
        RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(num_rows)),
        )
        .map_err(|e| crate::error::arrow_err(&at, e))
    }

    /// The arrays of the top-level fields `which` picks (by index), each
    /// `num_rows` long, from `leaves`: the rows of row group `rg_index`
    /// from its row `first_row` (or the kept ones of them).
    fn assemble_fields(
        &self,
        leaves: &Leaves,
        num_rows: usize,
        rg_index: usize,
        first_row: usize,
        which: impl Fn(usize) -> bool,
    ) -> Result<Vec<ArrayRef>> {
        let mut columns: Vec<ArrayRef> = Vec::new();
        if let Some(FieldNode {
            kind: FieldKind::Group(children),
            ..
        }) = &self.root
        {
            for (i, (child, field)) in children.iter().zip(self.schema.fields().iter()).enumerate()
            {
                if !which(i) {
                    continue;
                }
                let fat = Location::chunk(rg_index, field.name().clone());
                let a = build(child, leaves, &fat)?;
                if a.len() != num_rows {
                    return Err(self.short_chunk(&fat, num_rows, first_row, a.len()));
                }
                columns.push(a);
            }
        }
        Ok(columns)
    }

    /// The error of a batch of `num_rows` rows from row `first_row` of the
    /// chunk at `at` that gave `found`. A column is read up to the rows the
    /// batch asks for, so it can only come up short: its chunk ends early.
    fn short_chunk(&self, at: &Location, num_rows: usize, first_row: usize, found: usize) -> Error {
        let declared = at
            .row_group
            .and_then(|rg| self.metadata.row_groups.get(rg))
            .map_or(0, |rg| rg.num_rows);
        data_err(
            at,
            format!(
                "the row group declares {declared} rows but the column's chunk ends after {} \
                 (a batch of {num_rows} rows from row {first_row} found {found})",
                first_row + found,
            ),
        )
    }

    /// The levels of a batch's leaves back to the pool (they are not part
    /// of the batch).
    fn put_back(&self, leaves: Leaves) {
        for (_, leaf) in leaves {
            self.pool.put(leaf.def.unwrap_or_default());
            self.pool.put(leaf.rep.unwrap_or_default());
        }
    }

    /// Tests the early fields of a batch (`leaves`, `n` rows of row group
    /// `rg` from its row `first_row`), keeps their matching rows for
    /// [`Self::late_batch`], and tells the tasks which rows the late
    /// columns read.
    fn test_early(
        &mut self,
        mut leaves: Leaves,
        n: usize,
        rg: usize,
        first_row: usize,
    ) -> Result<(RecordBatch, KeptRows)> {
        // The predicate's column read through its test: its rows' answers
        // and the values that passed, ready as they are.
        if let Some(t) = &self.tested
            && let Some(data) = leaves.remove_entry(&t.leaf)
        {
            match data {
                (
                    _,
                    data @ LeafData {
                        matched: Some(_), ..
                    },
                ) => return self.test_early_tested(data, leaves, n, rg, first_row),
                (leaf, data) => {
                    leaves.insert(leaf, data);
                }
            }
        }
        let Some(plan) = &self.late else {
            return Err(no_plan());
        };
        let columns = self.assemble_fields(&leaves, n, rg, first_row, |i| !plan.field_is_late(i));
        self.put_back(leaves);
        let (Some(plan), Some(filter)) = (&self.late, self.filter.as_mut()) else {
            return Err(no_plan());
        };
        let early = plan.early_batch(columns?, n)?;
        let (early, kept) = match filter.keep(&early, rg, first_row)? {
            None => (early, KeptRows::new(BooleanBuffer::new_set(n))),
            Some(keep) => {
                let kept = KeptRows::new(keep.values().clone());
                let early = kept.filter_batch(&early)?;
                (early, kept)
            }
        };
        let early = plan.restore_types(early)?;
        let skipped = (n - early.num_rows()) as u64;
        filter.metrics.values_skipped_late += skipped * plan.late_columns() as u64;
        Ok((early, kept))
    }

    /// [`Self::test_early`] for a batch whose early column `data` was read
    /// through the predicate's test: the other early fields (in `leaves`)
    /// are assembled and the rest of the predicate, if any, tested on them;
    /// the tested column's passing values stand for it among the kept rows.
    fn test_early_tested(
        &mut self,
        mut data: LeafData,
        leaves: Leaves,
        n: usize,
        rg: usize,
        first_row: usize,
    ) -> Result<(RecordBatch, KeptRows)> {
        let (Some(plan), Some(t)) = (&self.late, &self.tested) else {
            return Err(no_plan());
        };
        let (field, early_at) = (t.field, t.early);
        let matched = data
            .matched
            .take()
            .unwrap_or_else(|| BooleanBuffer::new_unset(0));
        if matched.len() != n {
            let name = self.schema.fields().get(field).map(|f| f.name().clone());
            let at = Location::chunk(rg, name.unwrap_or_default());
            return Err(self.short_chunk(&at, n, first_row, matched.len()));
        }
        let columns = self.assemble_fields(&leaves, n, rg, first_row, |i| {
            !plan.field_is_late(i) && i != field
        });
        self.put_back(leaves);
        let mut columns = columns?;
        let (Some(plan), Some(filter), Some(t)) =
            (&self.late, self.filter.as_mut(), self.tested.as_ref())
        else {
            return Err(no_plan());
        };
        // The tested column alone: its passing values are the kept rows.
        if columns.is_empty() && t.rest.is_none() {
            let (passed, mask) = filter.keep_tested(data.array, matched, None, rg, first_row)?;
            let kept = passed.len();
            filter.metrics.values_skipped_late += (n - kept) as u64 * plan.late_columns() as u64;
            return Ok((plan.early_batch(vec![passed], kept)?, KeptRows::new(mask)));
        }
        // The tested column's place held by empty values: the rest of the
        // predicate does not read it, and its kept values are put back in.
        let placeholder = empty_values(data.array.data_type(), n)?;
        columns.insert(early_at.min(columns.len()), placeholder);
        let early = plan.early_batch(columns, n)?;
        let rest = t.rest.as_ref().map(|p| (p, &early));
        let (passed, mask) = filter.keep_tested(data.array, matched, rest, rg, first_row)?;
        let rows = KeptRows::new(mask);
        let mut columns = rows.filter_batch(&early)?.columns().to_vec();
        let kept = passed.len();
        if let Some(c) = columns.get_mut(early_at) {
            *c = passed;
        }
        let early = plan.restore_types(plan.early_batch(columns, kept)?)?;
        filter.metrics.values_skipped_late += (n - kept) as u64 * plan.late_columns() as u64;
        Ok((early, rows))
    }

    /// The batch of the kept rows `early` of the early fields and the late
    /// fields' leaves `leaves`.
    fn late_batch(
        &self,
        early: &RecordBatch,
        leaves: Leaves,
        rg: usize,
        first_row: usize,
    ) -> Result<RecordBatch> {
        let Some(plan) = &self.late else {
            return Err(no_plan());
        };
        let kept = early.num_rows();
        let late = self.assemble_fields(&leaves, kept, rg, first_row, |i| plan.field_is_late(i));
        self.put_back(leaves);
        plan.merge(&self.schema, early, late?)
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

    /// The next batch of the chosen rows (before any predicate), the bytes
    /// it needs first, or the end.
    fn next_row_batch(&mut self) -> Result<Decoded> {
        loop {
            if !self.finishing.is_empty() {
                self.deliver();
                while let Some((_, r, need)) = self.finishing.first_mut() {
                    if let Some(n) = need {
                        let n = n.clone();
                        return Ok(self.needs(std::iter::once(n).collect()));
                    }
                    if let Step::Pending(range) = r.finish()? {
                        *need = Some(range.clone());
                        return Ok(self.needs(std::iter::once(range).collect()));
                    }
                    let (ci, mut r, _) = self.finishing.remove(0);
                    // Kept for the column's next chunk: fresh buffers per
                    // chunk cost a page fault per 4 KiB.
                    self.buffers.push((ci, r.take_buffers()));
                }
                continue;
            }
            if self.remaining == Some(0) {
                return Ok(Decoded::Finished);
            }
            if self.current.is_some() {
                self.deliver();
            }
            if let Some(state) = self.current.as_mut() {
                match state.tasks.next_batch() {
                    Next::Predicate(n, leaves) => {
                        let leaves = leaves?;
                        let (rg, first_row) = (state.index, state.rows_before);
                        let tasks = state.tasks.clone();
                        let (early, kept) = self.test_early(leaves, n, rg, first_row)?;
                        if let Some(state) = self.current.as_mut() {
                            state.early = Some(early);
                        }
                        tasks.keep(kept);
                        continue;
                    }
                    Next::Batch(n, leaves) => {
                        let leaves = leaves?;
                        let rg = state.index;
                        let first_row = state.rows_before;
                        state.rows_before += n;
                        self.last_batch_at = (rg, first_row);
                        let early = state.early.take();
                        self.last_kept = early.is_some();
                        let batch = match &early {
                            Some(early) => self.late_batch(early, leaves, rg, first_row)?,
                            None => {
                                let batch = self.assemble(&leaves, n, rg, first_row);
                                self.put_back(leaves);
                                batch?
                            }
                        };
                        self.remaining = self.remaining.map(|r| r.saturating_sub(n));
                        return Ok(Decoded::Batch(batch));
                    }
                    Next::Needs(ranges) => {
                        // Bytes pushed earlier may serve needs that arose
                        // since: hand them out before asking.
                        if self.deliver() {
                            continue;
                        }
                        match self.needs(ranges) {
                            // Only reads ahead for busy readers, all pushed:
                            // nothing to ask.
                            Decoded::Needs(r) if r.is_empty() => continue,
                            needs => return Ok(needs),
                        }
                    }
                    Next::Done => {
                        let (readers, all) = state.tasks.close();
                        self.last_threads = state.tasks.last_threads();
                        let whole = state.whole && all;
                        self.current = None;
                        for (ci, mut r) in readers {
                            if whole {
                                self.finishing.push((ci, r, None));
                            } else {
                                self.buffers.push((ci, r.take_buffers()));
                            }
                        }
                        continue;
                    }
                }
            }
            let Some(&rg) = self.row_groups.get(self.next_rg) else {
                return Ok(Decoded::Finished);
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

/// The error of a late phase without a plan (which the tasks never ask
/// for: a bug).
fn no_plan() -> Error {
    data_err(
        &Location::default(),
        "columns read late without a plan (a bug: please report it)",
    )
}

impl Drop for BatchDecoder {
    fn drop(&mut self) {
        // Decoding threads stop taking tasks of the row group.
        if let Some(state) = self.current.take() {
            let _ = state.tasks.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reader::{RowSelection, RowSelector};

    /// Five pages of 100 rows and 1000 bytes from byte 500 of a chunk whose
    /// dictionary page takes its first 500.
    fn pages() -> Vec<pq_format::PageLocation> {
        (0..5)
            .map(|i| pq_format::PageLocation {
                offset: 500 + 1000 * i,
                compressed_page_size: 1000,
                first_row_index: 100 * i,
            })
            .collect()
    }

    fn select(runs: &[(bool, usize)]) -> RowSelection {
        runs.iter()
            .map(|&(keep, n)| {
                if keep {
                    RowSelector::select(n)
                } else {
                    RowSelector::skip(n)
                }
            })
            .collect::<Vec<_>>()
            .into()
    }

    /// The byte runs a column of the chunk at 0..`chunk_len` with
    /// `pages()` reads for `selection` (a span of it with `span`).
    fn runs(chunk_len: u64, selection: &RowSelection, span: bool) -> Option<Vec<Range<u64>>> {
        let ctx = ChunkContext {
            codec: pq_compress::Codec::Uncompressed,
            num_values: 500,
            max_def_level: 1,
            max_rep_level: 0,
            file_offset: 0,
            column: "c".into(),
        };
        PageReader::streaming(chunk_len, ctx, &PageOptions::default())
            .with_page_locations(&pages())
            .ranges_for_rows(&selected_rows(selection, span))
    }

    #[test]
    // One run of bytes is a vector of one range here.
    #[allow(clippy::single_range_in_vec_init)]
    fn needed_spans_are_the_runs_of_pages_with_selected_rows() {
        // Rows 150..160 and 420..430: pages 1 and 4, and the dictionary.
        let two = select(&[
            (false, 150),
            (true, 10),
            (false, 260),
            (true, 10),
            (false, 70),
        ]);
        assert_eq!(
            runs(5500, &two, false),
            Some(vec![0..500, 1500..2500, 4500..5500])
        );
        // Read as a span (an early column): pages 1 to 4.
        assert_eq!(runs(5500, &two, true), Some(vec![0..500, 1500..5500]));
        // The first page selected: one run from the chunk's start.
        let first = select(&[(true, 120), (false, 380)]);
        assert_eq!(runs(5500, &first, false), Some(vec![0..2500]));
        // Locations outside the chunk: none (the chunk is fetched whole).
        assert_eq!(runs(3000, &two, false), None);
    }
}
