//! The options of a reader, shared by [`ParquetReader`] and
//! [`ParquetPushDecoderBuilder`]: their values ([`ReadOptions`]), their
//! setters (written once, for both, by `read_setters!`), and the decoder
//! they build.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::DataType;
use pq_format::{Limits, ParquetMetaData};
use pq_page::PageOptions;

use super::core::BatchDecoder;
use super::filter::{PruningOptions, RowFilter};
use super::late::LatePlan;
use super::pieces::{DEFAULT_COALESCE_GAP, Pieces};
use super::projection::ProjectionMask;
use super::selection::RowSelection;
use super::workers::Workers;
#[cfg(doc)]
use super::{ParquetPushDecoderBuilder, ParquetReader};
use crate::error::{Error, Result};
use crate::pool::{DEFAULT_POOL_BYTES, Pool};
use crate::predicate::Predicate;
use crate::predicate::bind::bind;
use crate::schema::{ByteArrayOutput, FieldKind, FieldNode, convert};

/// The setters of the options both [`ParquetReader`] and
/// [`ParquetPushDecoderBuilder`] take, for a type with a field `opts:
/// ReadOptions`.
macro_rules! read_setters {
    () => {
        /// Reads only the columns of this mask (made against the file's
        /// Parquet schema,
        /// [`ParquetReader::parquet_schema`](super::ParquetReader::parquet_schema));
        /// the default reads all. Unknown columns are an error of
        /// [`build`](Self::build).
        pub fn with_projection(mut self, mask: super::ProjectionMask) -> Self {
            self.opts.projection = mask;
            self
        }

        /// Reads only these row groups, in this order.
        pub fn with_row_groups(mut self, row_groups: impl IntoIterator<Item = usize>) -> Self {
            self.opts.row_groups = Some(row_groups.into_iter().collect());
            self
        }

        /// Rows per batch at most (default 8192; at least 1). Every batch
        /// but the last is full, except in a filtered read (a predicate or
        /// a row selection), where a run of matching rows of at least half
        /// a batch comes as it is rather than copied into a full one.
        pub fn with_batch_size(mut self, batch_size: usize) -> Self {
            self.opts.batch_size = batch_size.max(1);
            self
        }

        /// Skips this many rows (of the chosen row groups) first.
        pub fn with_offset(mut self, offset: usize) -> Self {
            self.opts.offset = offset;
            self
        }

        /// Reads at most this many rows.
        pub fn with_limit(mut self, limit: usize) -> Self {
            self.opts.limit = Some(limit);
            self
        }

        /// Decodes the column chunks of a row group on up to this many threads
        /// (default 1: the calling thread only). The batches are the same
        /// whatever the count.
        ///
        /// The work is one batch of one column at a time: every thread,
        /// the caller's included, takes the earliest batch not yet decoded, so
        /// the threads stay busy however uneven the columns are. The other
        /// threads decode up to `4 × threads` batches ahead of the one being
        /// read, which bounds memory; a column's batches are decoded in order,
        /// so one column that holds most of a file's work bounds the gain (see
        /// `BENCHMARKS.md`). From a source any thread can read at a
        /// position (a file opened with `from_file` or `open`, `Bytes`), a
        /// thread whose column needs its next page reads that range itself;
        /// from a `Read + Seek`, the calling thread reads each column's next
        /// page before it decodes anything, so that the others find their
        /// pages. The threads live as long as the batch iterator; on Linux,
        /// one handed a row group while on the caller's core moves off it.
        ///
        /// With threads or without, the memory of a dropped batch is reused for
        /// later ones (see [`with_buffer_pool`](Self::with_buffer_pool)): with
        /// threads this matters most, since memory allocated on one thread and
        /// freed on another is what the system allocator handles worst.
        ///
        /// ```
        /// use pq_arrow::ParquetReader;
        /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
        /// let rows = |threads| -> Result<usize, pq_arrow::Error> {
        ///     ParquetReader::open(path)?
        ///         .with_threads(threads)
        ///         .build()?
        ///         .map(|b| b.map(|b| b.num_rows()))
        ///         .sum::<Result<usize, _>>()
        ///         .map_err(pq_arrow::Error::from)
        /// };
        /// assert_eq!(rows(2)?, rows(1)?);
        /// # Ok::<(), pq_arrow::Error>(())
        /// ```
        pub fn with_threads(mut self, threads: usize) -> Self {
            self.opts.threads = threads.max(1);
            self
        }

        /// How many bytes of dropped batches the reader keeps for later batches
        /// to decode into (default 64 MiB; 0 keeps none).
        ///
        /// A batch's arrays then hold Arrow buffers whose memory goes back to
        /// the reader when the last array using it is dropped (or is freed, if
        /// the reader is gone): no large allocation per batch once the first
        /// few are dropped. Such buffers have their own owner, so
        /// `Buffer::into_mutable` gives them back unchanged rather than taking
        /// them over; with 0 every batch allocates plain Arrow buffers.
        ///
        /// ```
        /// use pq_arrow::ParquetReader;
        /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
        /// let read = |bytes| -> Result<Vec<arrow_array::RecordBatch>, pq_arrow::Error> {
        ///     let batches = ParquetReader::open(path)?.with_buffer_pool(bytes).build()?;
        ///     Ok(batches.collect::<Result<_, _>>()?)
        /// };
        /// assert_eq!(read(0)?, read(64 << 20)?);
        /// # Ok::<(), pq_arrow::Error>(())
        /// ```
        pub fn with_buffer_pool(mut self, bytes: usize) -> Self {
            self.opts.pool_bytes = bytes;
            self
        }

        /// Ignores the `ARROW:schema` hint: types come from the Parquet schema
        /// alone.
        pub fn with_skip_arrow_metadata(mut self, skip: bool) -> Self {
            self.opts.skip_arrow_metadata = skip;
            self
        }

        /// Reads BYTE_ARRAY columns (strings and binaries) as Arrow
        /// `Dictionary(Int32, _)` arrays, keeping the indices of
        /// dictionary-encoded pages instead of gathering values (default off:
        /// plain arrays, unless the `ARROW:schema` hint asks for a dictionary).
        ///
        /// ```
        /// # fn main() -> Result<(), pq_arrow::Error> {
        /// use arrow_schema::DataType;
        /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/codec_snappy.parquet");
        /// let reader = pq_arrow::ParquetReader::open(path)?.with_dictionary(true).build()?;
        /// let has_dict = reader
        ///     .schema()
        ///     .fields()
        ///     .iter()
        ///     .any(|f| matches!(f.data_type(), DataType::Dictionary(_, _)));
        /// for batch in reader {
        ///     batch?;
        /// }
        /// # let _ = has_dict;
        /// # Ok(())
        /// # }
        /// ```
        pub fn with_dictionary(mut self, dictionary: bool) -> Self {
            self.opts.bytes.dictionary = dictionary;
            self
        }

        /// Reads BYTE_ARRAY columns (strings and binaries, nested ones too) as
        /// Arrow `Utf8View` and `BinaryView` (default off: `Utf8` and `Binary`,
        /// unless the `ARROW:schema` hint asks for views). A view array points
        /// into shared buffers instead of holding its values back to back: the
        /// values of dictionary-encoded pages are views of the dictionary's
        /// entries gathered by key, so no value bytes are copied, whatever
        /// their length. Query engines prefer views for this (DataFusion
        /// reads Parquet strings as views by default). With
        /// [`with_dictionary`](Self::with_dictionary) too, dictionaries have
        /// view values.
        ///
        /// ```
        /// # fn main() -> Result<(), pq_arrow::Error> {
        /// use arrow_array::cast::AsArray;
        /// use arrow_schema::DataType;
        /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
        /// let reader = pq_arrow::ParquetReader::open(path)?.with_view_types(true).build()?;
        /// let schema = reader.schema();
        /// let strings: Vec<usize> = (0..schema.fields().len())
        ///     .filter(|&i| schema.field(i).data_type() == &DataType::Utf8View)
        ///     .collect();
        /// assert!(!strings.is_empty());
        /// for batch in reader {
        ///     let batch = batch?;
        ///     for &i in &strings {
        ///         let _: &arrow_array::StringViewArray = batch.column(i).as_string_view();
        ///     }
        /// }
        /// # Ok(())
        /// # }
        /// ```
        pub fn with_view_types(mut self, views: bool) -> Self {
            self.opts.bytes.views = views;
            self
        }

        /// Verifies page checksums where pages have one (default off).
        pub fn with_verify_checksums(mut self, verify: bool) -> Self {
            self.opts.page_options = self.opts.page_options.with_verify_checksums(verify);
            self
        }

        /// Sets every option of the page reader at once: checksums and the
        /// limits on pages (values per page, dictionary size, decompressed page
        /// and chunk sizes; see [`PageOptions`](pq_page::PageOptions) for each default and why). This
        /// replaces what [`with_verify_checksums`](Self::with_verify_checksums)
        /// set. The reader's own default accepts pages and dictionary pages up
        /// to the 2 GiB a header can declare, as other readers do, where
        /// `PageOptions::default()` stops at 1 GiB.
        ///
        /// ```
        /// # fn main() -> Result<(), pq_arrow::Error> {
        /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
        /// let options = pq_arrow::PageOptions::default().with_max_page_values(1);
        /// let reader = pq_arrow::ParquetReader::open(path)?.with_page_options(options).build()?;
        /// let err = reader.collect::<Result<Vec<_>, _>>().unwrap_err();
        /// assert!(err.to_string().contains("max_page_values"), "{err}");
        /// # Ok(())
        /// # }
        /// ```
        pub fn with_page_options(mut self, options: pq_page::PageOptions) -> Self {
            self.opts.page_options = options;
            self
        }

        /// Keeps only the rows that satisfy `predicate` (see
        /// [`crate::predicate`]): row groups that the statistics, Bloom
        /// filters, dictionaries or page index rule out are not read, and
        /// the batches hold exactly the matching rows, in batches of the
        /// batch size (the last one shorter). The offset and limit then
        /// count matching rows. The predicate's columns are read even when
        /// the projection leaves them out, and dropped from the batches. An
        /// unknown column or a literal that does not fit its column is an
        /// error of [`build`](Self::build).
        ///
        /// ```
        /// # fn main() -> Result<(), pq_arrow::Error> {
        /// use pq_arrow::predicate::{col, Predicate};
        /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
        /// let all = pq_arrow::ParquetReader::open(path)?.build()?;
        /// let total: usize = all.map(|b| b.map(|b| b.num_rows())).sum::<Result<_, _>>()?;
        /// let some = pq_arrow::ParquetReader::open(path)?
        ///     .with_predicate(Predicate::parse("id < 10")?)
        ///     .build()?;
        /// let kept: usize = some.map(|b| b.map(|b| b.num_rows())).sum::<Result<_, _>>()?;
        /// assert!(kept < total);
        /// let bad = pq_arrow::ParquetReader::open(path)?.with_predicate(col("nope").eq(1)).build();
        /// assert!(bad.unwrap_err().to_string().contains("no column nope"));
        /// # Ok(())
        /// # }
        /// ```
        pub fn with_predicate(mut self, predicate: crate::predicate::Predicate) -> Self {
            self.opts.predicate = Some(predicate);
            self
        }

        /// What the [predicate](Self::with_predicate) does to the rows of the
        /// row groups and pages it cannot rule out (default
        /// [`RowFiltering::Exact`](crate::predicate::RowFiltering::Exact):
        /// only the matching rows come back). The other settings return a
        /// superset of the matches, for a caller that tests rows itself
        /// anyway, as a query engine does: `Selective` cuts a batch down
        /// only when that drops more than a tenth of it, `PruneOnly` tests
        /// no row (and reads no column for the predicate alone). The offset
        /// and limit then count the rows returned.
        ///
        /// ```
        /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
        /// use pq_arrow::predicate::{Predicate, RowFiltering};
        /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
        /// let rows = |rows: RowFiltering| -> Result<usize, Box<dyn std::error::Error>> {
        ///     let r = pq_arrow::ParquetReader::open(path)?
        ///         .with_predicate(Predicate::parse("id < 10")?)
        ///         .with_row_filtering(rows)
        ///         .build()?;
        ///     let mut n = 0;
        ///     for b in r {
        ///         n += b?.num_rows();
        ///     }
        ///     Ok(n)
        /// };
        /// // The file's one row group may hold matches: all of it comes back.
        /// assert!(rows(RowFiltering::PruneOnly)? > rows(RowFiltering::Exact)?);
        /// # Ok(())
        /// # }
        /// ```
        pub fn with_row_filtering(mut self, rows: crate::predicate::RowFiltering) -> Self {
            self.opts.row_filtering = rows;
            self
        }

        /// Reads only the rows `selection` selects, counted over the chosen
        /// row groups in their order (as arrow-rs's `with_row_selection`):
        /// row groups it selects nothing of are not read, the others only
        /// from their first to their last selected row (pages before and
        /// after passed over from their headers), and the batches hold
        /// exactly the selected rows, in batches of the batch size. Rows
        /// past the selection's end are not read; a selection longer than
        /// the chosen row groups is an error of [`build`](Self::build).
        /// With a predicate, the rows both keep; the offset and limit count
        /// the rows kept.
        ///
        /// ```
        /// # fn main() -> Result<(), pq_arrow::Error> {
        /// use pq_arrow::{RowSelection, RowSelector};
        /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/many_pages.parquet");
        /// let selection = RowSelection::from(vec![RowSelector::skip(100), RowSelector::select(5)]);
        /// let batches = pq_arrow::ParquetReader::open(path)?
        ///     .with_row_selection(selection)
        ///     .build()?
        ///     .collect::<Result<Vec<_>, _>>()?;
        /// let all = pq_arrow::read_parquet(path)?;
        /// let all = arrow_select::concat::concat_batches(&all[0].schema(), &all)?;
        /// assert_eq!(batches.len(), 1);
        /// assert_eq!(batches[0], all.slice(100, 5));
        /// # Ok(())
        /// # }
        /// ```
        pub fn with_row_selection(mut self, selection: super::RowSelection) -> Self {
            self.opts.row_selection = Some(selection);
            self
        }

        /// Chooses what a predicate prunes by (default: every source; see
        /// [`PruningOptions`](crate::predicate::PruningOptions)).
        pub fn with_pruning(mut self, pruning: crate::predicate::PruningOptions) -> Self {
            self.opts.pruning = pruning;
            self
        }
    };
}

/// The options of a reader, shared by [`ParquetReader`] and
/// [`ParquetPushDecoderBuilder`](super::ParquetPushDecoderBuilder).
#[derive(Debug, Clone)]
pub(super) struct ReadOptions {
    pub(super) projection: ProjectionMask,
    pub(super) row_groups: Option<Vec<usize>>,
    pub(super) batch_size: usize,
    pub(super) offset: usize,
    pub(super) limit: Option<usize>,
    pub(super) threads: usize,
    pub(super) pool_bytes: usize,
    pub(super) skip_arrow_metadata: bool,
    pub(super) bytes: ByteArrayOutput,
    pub(super) page_options: PageOptions,
    pub(super) coalesce_gap: u64,
    pub(super) predicate: Option<Predicate>,
    /// What the predicate does to rows.
    pub(super) row_filtering: crate::predicate::RowFiltering,
    pub(super) pruning: PruningOptions,
    pub(super) row_selection: Option<RowSelection>,
}

impl ReadOptions {
    /// The defaults, with page header limits from `limits`.
    pub(super) fn new(limits: &Limits) -> Self {
        ReadOptions {
            projection: ProjectionMask::all(),
            row_groups: None,
            batch_size: 8192,
            offset: 0,
            limit: None,
            threads: 1,
            pool_bytes: DEFAULT_POOL_BYTES,
            skip_arrow_metadata: false,
            bytes: ByteArrayOutput::default(),
            page_options: PageOptions::any_declared_size().with_format_limits(limits.clone()),
            coalesce_gap: DEFAULT_COALESCE_GAP,
            predicate: None,
            row_filtering: Default::default(),
            pruning: PruningOptions::default(),
            row_selection: None,
        }
    }

    /// The decoder of the batches of the file of `file_len` bytes whose
    /// metadata is `metadata`, with these options.
    pub(super) fn decoder(
        self,
        metadata: Arc<ParquetMetaData>,
        file_len: u64,
    ) -> Result<BatchDecoder> {
        let selected = self.projection.selected(metadata.schema.columns().len())?;
        let kv = metadata.key_value_metadata.as_deref();
        let converted = convert(
            &metadata.schema,
            kv,
            &|i| selected.contains(&i),
            self.skip_arrow_metadata,
            self.bytes,
        )?;
        // The chosen row groups, and the caller's row selection split over
        // them (row groups it selects nothing of left out).
        let n_rg = metadata.row_groups.len();
        let mut row_groups = match self.row_groups {
            Some(rgs) => {
                if let Some(bad) = rgs.iter().find(|&&r| r >= n_rg) {
                    return Err(Error::Request {
                        message: format!("row group {bad} does not exist: the file has {n_rg}"),
                    });
                }
                rgs
            }
            None => (0..n_rg).collect(),
        };
        let chosen_rows = match &self.row_selection {
            None => Vec::new(),
            Some(selection) => {
                let split = split_selection(selection, &row_groups, &metadata)?;
                row_groups.retain(|rg| split.iter().any(|(r, _)| r == rg));
                split
            }
        };
        // With a predicate, its columns are read too; the filter drops them.
        let (converted, mut filter) = match &self.predicate {
            None if self.row_selection.is_some() => {
                let output = converted.schema.clone();
                let filter = RowFilter::new(
                    None,
                    chosen_rows,
                    output,
                    false,
                    self.batch_size,
                    self.offset,
                    self.limit,
                );
                (converted, Some(Box::new(filter)))
            }
            None => (converted, None),
            Some(predicate) => {
                let whole = convert(
                    &metadata.schema,
                    kv,
                    &|_| true,
                    self.skip_arrow_metadata,
                    self.bytes,
                )?;
                let bound = bind(predicate, &metadata.schema, &whole.schema)?;
                let mut read = selected.clone();
                if self.row_filtering.tests_rows() {
                    read.extend(bound.columns.iter().map(|c| c.leaf));
                }
                let narrow = read.len() > selected.len();
                let output = converted.schema.clone();
                let converted = if narrow {
                    convert(
                        &metadata.schema,
                        kv,
                        &|i| read.contains(&i),
                        self.skip_arrow_metadata,
                        self.bytes,
                    )?
                } else {
                    converted
                };
                let filter = RowFilter::new(
                    Some(bound),
                    chosen_rows,
                    output,
                    narrow,
                    self.batch_size,
                    self.offset,
                    self.limit,
                )
                .with_rows(self.row_filtering);
                (converted, Some(Box::new(filter)))
            }
        };
        // With a filter, the offset and limit count matching rows there.
        let (offset, limit) = match filter {
            Some(_) => (0, None),
            None => (self.offset, self.limit),
        };
        let mut leaf_types = HashMap::new();
        if let Some(root) = &converted.root {
            collect_leaf_types(root, 0, &mut leaf_types);
        }
        // Which columns the filter's row tests leave to be read late.
        let early = filter
            .as_ref()
            .filter(|_| self.pruning.late_materialization())
            .and_then(|f| f.early_leaves());
        let late = match (early, &converted.root) {
            (Some(early), Some(root)) => LatePlan::new(root, &converted.schema, &early, |leaf| {
                metadata
                    .schema
                    .column(leaf)
                    .is_none_or(|c| c.max_rep_level > 0)
            }),
            _ => None,
        };
        if let (Some(plan), Some(f)) = (&late, filter.as_mut()) {
            f.with_late_leaves(plan.late_leaves());
        }
        // A predicate that is (or has a conjunct that is) one test of an
        // early string or binary leaf: that column is read through the
        // test.
        let tested = match (&late, &filter, &converted.root) {
            (Some(plan), Some(f), Some(root)) => f.byte_test().and_then(|(leaf, test, rest)| {
                let (field, early) = plan.early_leaf(root, leaf)?;
                Some(super::core::Tested {
                    leaf,
                    test: Arc::new(test),
                    field,
                    early,
                    rest,
                })
            }),
            _ => None,
        };
        let threads = self.threads.max(1);
        Ok(BatchDecoder {
            tested,
            file_len,
            metadata,
            schema: converted.schema,
            root: converted.root,
            leaf_types,
            row_groups,
            next_rg: 0,
            current: None,
            finishing: Vec::new(),
            buffers: Vec::new(),
            last_threads: Vec::new(),
            workers: Workers::new(threads - 1),
            ahead: if threads > 1 { 4 * threads } else { 1 },
            pool: Pool::new(self.pool_bytes),
            batch_size: self.batch_size,
            to_skip: offset,
            remaining: limit,
            page_options: self.page_options,
            pieces: Pieces::default(),
            coalesce_gap: self.coalesce_gap,
            peak_buffered: 0,
            serial_reads: false,
            reads: None,
            chunks: Vec::new(),
            needed_spans: Vec::new(),
            filter,
            pruning: self.pruning,
            pruned: false,
            prune_bytes: Pieces::default(),
            last_batch_at: (0, 0),
            late,
            last_kept: false,
        })
    }
}

/// `selection`, over the rows of `row_groups` in their order, as one
/// selection per row group of the rows it selects there (row groups it
/// selects nothing of are left out). A selection longer than those rows
/// is an error; rows past its end are not selected.
fn split_selection(
    selection: &RowSelection,
    row_groups: &[usize],
    metadata: &ParquetMetaData,
) -> Result<Vec<(usize, RowSelection)>> {
    let ranges = selection.ranges();
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut next = 0;
    for &rg in row_groups {
        let rows = metadata
            .row_groups
            .get(rg)
            .map_or(0, |g| usize::try_from(g.num_rows).unwrap_or(0));
        let end = start.saturating_add(rows);
        let mut local = Vec::new();
        while let Some(r) = ranges.get(next) {
            if r.start >= end {
                break;
            }
            let (from, to) = (r.start.max(start), r.end.min(end));
            if from < to {
                local.push(from - start..to - start);
            }
            if r.end <= end {
                next += 1;
            } else {
                break;
            }
        }
        if !local.is_empty() {
            out.push((rg, RowSelection::from_consecutive_ranges(local, rows)));
        }
        start = end;
    }
    if selection.row_count() + selection.skipped_row_count() > start {
        return Err(Error::Request {
            message: format!(
                "the row selection covers {} rows but the chosen row groups hold {start}",
                selection.row_count() + selection.skipped_row_count()
            ),
        });
    }
    Ok(out)
}

/// The Arrow type of every leaf, with the definition level from which its
/// level entries are slots of its array (`slot_def`: the element level of
/// its innermost list, 0 outside lists); see [`crate::assemble`].
fn collect_leaf_types(node: &FieldNode, slot_def: i16, out: &mut HashMap<usize, (DataType, i16)>) {
    match &node.kind {
        FieldKind::Leaf { column_index } => {
            out.insert(*column_index, (node.arrow_type.clone(), slot_def));
        }
        FieldKind::Group(c) => {
            let child_slot_def = crate::assemble::child_slot_def(node, slot_def);
            c.iter()
                .for_each(|c| collect_leaf_types(c, child_slot_def, out))
        }
    }
}
