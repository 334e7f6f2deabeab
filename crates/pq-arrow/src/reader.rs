//! The reader: open a file, choose columns and row groups, iterate
//! `RecordBatch`es.

use std::collections::{BTreeSet, HashMap};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType, SchemaRef};
use bytes::Bytes;
use pq_format::{FileMetaData, Limits};
use pq_page::{ChunkContext, PageOptions};

use crate::assemble::{Leaves, build};
use crate::column::LeafReader;
use crate::error::{Error, Location, Result, data_err};
use crate::pool::{DEFAULT_POOL_BYTES, Pool};
use crate::row_group_tasks::{Batches, RowGroupTasks};
use crate::schema::parquet::build_tree;
use crate::schema::{FieldKind, FieldNode, LeafColumn, ParquetNode, convert};

/// Where the file's bytes come from.
enum Source {
    Bytes(Bytes),
    Path(PathBuf),
    Reader(Box<dyn ReadSeek>),
}

/// `Read + Seek + Send`, as one object-safe trait.
pub trait ReadSeek: Read + Seek + Send {}
impl<T: Read + Seek + Send> ReadSeek for T {}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Bytes(b) => write!(f, "Bytes({} bytes)", b.len()),
            Source::Path(p) => write!(f, "Path({})", p.display()),
            Source::Reader(_) => f.write_str("Reader"),
        }
    }
}

/// Which columns to read.
#[derive(Debug, Clone)]
enum Projection {
    All,
    /// Top-level field names or dotted paths of nested fields or leaves.
    Names(Vec<String>),
    /// Top-level field indices.
    Indices(Vec<usize>),
    /// Leaf column indices.
    Leaves(Vec<usize>),
}

/// Opens a Parquet file and configures how it is read; [`build`] gives the
/// iterator of batches.
///
/// Only the footer is read when opening; [`build`] then reads, one row
/// group at a time, just the column chunks of the chosen columns.
///
/// ```
/// # fn main() -> Result<(), pq_arrow::Error> {
/// use pq_arrow::ParquetReader;
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
/// let reader = ParquetReader::open(path)?;
/// println!("{}", reader.arrow_schema());
/// let batches = reader.with_batch_size(1024).build()?;
/// let mut rows = 0;
/// for batch in batches {
///     rows += batch?.num_rows();
/// }
/// assert!(rows > 0);
/// # Ok(())
/// # }
/// ```
///
/// [`build`]: ParquetReader::build
#[derive(Debug)]
pub struct ParquetReader {
    source: Source,
    file_len: u64,
    metadata: Arc<FileMetaData>,
    root: ParquetNode,
    leaves: Vec<LeafColumn>,
    schema: SchemaRef,
    projection: Projection,
    row_groups: Option<Vec<usize>>,
    batch_size: usize,
    offset: usize,
    limit: Option<usize>,
    threads: usize,
    pool_bytes: usize,
    skip_arrow_metadata: bool,
    dictionary: bool,
    page_options: PageOptions,
}

fn format_err(source: pq_format::FormatError) -> Error {
    Error::from(source)
}

impl ParquetReader {
    /// Opens the file at `path`, reading only its footer.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::open_with_limits(path, &Limits::default())
    }

    /// [`open`](Self::open) with these metadata limits (footer size, Thrift
    /// nesting, string and list lengths, schema depth), also applied to page
    /// headers. The limits on pages are set with
    /// [`with_page_options`](Self::with_page_options).
    ///
    /// ```
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
    /// let tiny = pq_arrow::MetadataLimits::default().with_max_metadata_size(16);
    /// let err = pq_arrow::ParquetReader::open_with_limits(path, &tiny).unwrap_err();
    /// assert!(err.to_string().contains("exceeds the limit of 16 bytes"), "{err}");
    /// ```
    pub fn open_with_limits(path: impl AsRef<Path>, limits: &Limits) -> Result<Self> {
        let path = path.as_ref();
        let mut f = File::open(path).map_err(|source| Error::Io {
            at: Box::default(),
            source,
        })?;
        let file_len = f.seek(SeekFrom::End(0)).map_err(|source| Error::Io {
            at: Box::default(),
            source,
        })?;
        let md = pq_format::read_metadata(&mut f, limits).map_err(format_err)?;
        Self::new(Source::Path(path.to_path_buf()), file_len, md, limits)
    }

    /// Reads from any `Read + Seek`: the footer now, the chosen column
    /// chunks when iterating.
    pub fn from_reader<R: Read + Seek + Send + 'static>(reader: R) -> Result<Self> {
        Self::from_reader_with_limits(reader, &Limits::default())
    }

    /// [`from_reader`](Self::from_reader) with these metadata limits, as
    /// [`open_with_limits`](Self::open_with_limits).
    pub fn from_reader_with_limits<R: Read + Seek + Send + 'static>(
        mut reader: R,
        limits: &Limits,
    ) -> Result<Self> {
        let file_len = reader.seek(SeekFrom::End(0)).map_err(|source| Error::Io {
            at: Box::default(),
            source,
        })?;
        let md = pq_format::read_metadata(&mut reader, limits).map_err(format_err)?;
        Self::new(Source::Reader(Box::new(reader)), file_len, md, limits)
    }

    /// Reads a file held in memory.
    pub fn from_bytes(bytes: Bytes) -> Result<Self> {
        Self::from_bytes_with_limits(bytes, &Limits::default())
    }

    /// [`from_bytes`](Self::from_bytes) with these metadata limits, as
    /// [`open_with_limits`](Self::open_with_limits).
    pub fn from_bytes_with_limits(bytes: Bytes, limits: &Limits) -> Result<Self> {
        let md = pq_format::read_metadata_from_bytes(&bytes, limits).map_err(format_err)?;
        let len = bytes.len() as u64;
        Self::new(Source::Bytes(bytes), len, md, limits)
    }

    fn new(source: Source, file_len: u64, md: FileMetaData, limits: &Limits) -> Result<Self> {
        pq_format::check_not_encrypted(&md).map_err(format_err)?;
        pq_format::check_counts(&md).map_err(format_err)?;
        let depth = schema_depth(&md.schema);
        if depth > limits.max_schema_depth() {
            return Err(crate::error::schema_err(
                &Location::default(),
                format!(
                    "the schema is nested {depth} deep, more than the limit of {} \
                     (Limits::max_schema_depth)",
                    limits.max_schema_depth()
                ),
            ));
        }
        let (root, leaves) = build_tree(&md.schema)?;
        let kv = md.key_value_metadata.as_deref();
        // A corrupt ARROW:schema hint fails `build` unless the user skips
        // it; opening the file still works, so that they can.
        let converted = convert(&root, kv, &|_| true, false, false)
            .or_else(|e| convert(&root, kv, &|_| true, true, false).map_err(|_| e))?;
        Ok(ParquetReader {
            source,
            file_len,
            metadata: Arc::new(md),
            root,
            leaves,
            schema: converted.schema,
            projection: Projection::All,
            row_groups: None,
            batch_size: 8192,
            offset: 0,
            limit: None,
            threads: 1,
            pool_bytes: DEFAULT_POOL_BYTES,
            skip_arrow_metadata: false,
            dictionary: false,
            page_options: default_page_options().with_format_limits(limits.clone()),
        })
    }

    /// The file metadata (the decoded footer).
    pub fn metadata(&self) -> &FileMetaData {
        &self.metadata
    }

    /// The Parquet schema tree (its root group).
    pub fn parquet_schema(&self) -> &ParquetNode {
        &self.root
    }

    /// The leaf columns, in file order, with their paths and levels.
    pub fn leaf_columns(&self) -> &[LeafColumn] {
        &self.leaves
    }

    /// The Arrow schema of the whole file (before projection). When the
    /// `ARROW:schema` hint does not decode, this is the schema of the
    /// Parquet types alone, and [`build`](Self::build) fails unless
    /// [`with_skip_arrow_metadata`](Self::with_skip_arrow_metadata) is set.
    pub fn arrow_schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Rows in the file.
    pub fn num_rows(&self) -> u64 {
        u64::try_from(self.metadata.num_rows).unwrap_or(0)
    }

    /// Row groups in the file.
    pub fn num_row_groups(&self) -> usize {
        self.metadata.row_groups.len()
    }

    /// Reads only these columns: top-level field names, or dotted paths of
    /// nested fields or leaves (`"a.b.c"`; a group selects all its leaves).
    pub fn with_columns<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.projection =
            Projection::Names(names.into_iter().map(|s| s.as_ref().to_string()).collect());
        self
    }

    /// Reads only these top-level fields, by index in [`arrow_schema`].
    ///
    /// [`arrow_schema`]: ParquetReader::arrow_schema
    pub fn with_column_indices(mut self, indices: impl IntoIterator<Item = usize>) -> Self {
        self.projection = Projection::Indices(indices.into_iter().collect());
        self
    }

    /// Reads only these leaf columns, by index in [`leaf_columns`].
    ///
    /// [`leaf_columns`]: ParquetReader::leaf_columns
    pub fn with_leaf_indices(mut self, indices: impl IntoIterator<Item = usize>) -> Self {
        self.projection = Projection::Leaves(indices.into_iter().collect());
        self
    }

    /// Reads only these row groups, in this order.
    pub fn with_row_groups(mut self, row_groups: impl IntoIterator<Item = usize>) -> Self {
        self.row_groups = Some(row_groups.into_iter().collect());
        self
    }

    /// Rows per batch (default 8192; at least 1).
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size.max(1);
        self
    }

    /// Skips this many rows (of the chosen row groups) first.
    pub fn with_offset(mut self, offset: usize) -> Self {
        self.offset = offset;
        self
    }

    /// Reads at most this many rows.
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = Some(limit);
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
    /// `BENCHMARKS.md`). The threads live as long as the batch iterator.
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
    ///         .sum()
    /// };
    /// assert_eq!(rows(2)?, rows(1)?);
    /// # Ok::<(), pq_arrow::Error>(())
    /// ```
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
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
    ///     ParquetReader::open(path)?.with_buffer_pool(bytes).build()?.collect()
    /// };
    /// assert_eq!(read(0)?, read(64 << 20)?);
    /// # Ok::<(), pq_arrow::Error>(())
    /// ```
    pub fn with_buffer_pool(mut self, bytes: usize) -> Self {
        self.pool_bytes = bytes;
        self
    }

    /// Ignores the `ARROW:schema` hint: types come from the Parquet schema
    /// alone.
    pub fn with_skip_arrow_metadata(mut self, skip: bool) -> Self {
        self.skip_arrow_metadata = skip;
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
        self.dictionary = dictionary;
        self
    }

    /// Verifies page checksums where pages have one (default off).
    pub fn with_verify_checksums(mut self, verify: bool) -> Self {
        self.page_options = self.page_options.with_verify_checksums(verify);
        self
    }

    /// Sets every option of the page reader at once: checksums and the
    /// limits on pages (values per page, dictionary size, decompressed page
    /// and chunk sizes; see [`PageOptions`] for each default and why). This
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
    pub fn with_page_options(mut self, options: PageOptions) -> Self {
        self.page_options = options;
        self
    }

    fn selected_leaves(&self) -> Result<BTreeSet<usize>> {
        let mut out = BTreeSet::new();
        match &self.projection {
            Projection::All => out.extend(0..self.leaves.len()),
            Projection::Leaves(l) => {
                for &i in l {
                    if i >= self.leaves.len() {
                        return Err(Error::Request {
                            message: format!(
                                "leaf column {i} does not exist: the file has {}",
                                self.leaves.len()
                            ),
                        });
                    }
                    out.insert(i);
                }
            }
            Projection::Indices(idx) => {
                let top: Vec<&str> = self
                    .root
                    .children()
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect();
                for &i in idx {
                    let Some(name) = top.get(i) else {
                        return Err(Error::Request {
                            message: format!(
                                "column {i} does not exist: the file has {} top-level columns",
                                top.len()
                            ),
                        });
                    };
                    for (li, leaf) in self.leaves.iter().enumerate() {
                        if leaf.path.first().map(String::as_str) == Some(*name) {
                            out.insert(li);
                        }
                    }
                }
            }
            Projection::Names(names) => {
                for name in names {
                    let parts: Vec<&str> = name.split('.').collect();
                    let mut found = false;
                    for (li, leaf) in self.leaves.iter().enumerate() {
                        let whole = leaf.dotted() == *name;
                        let prefix = leaf.path.len() >= parts.len()
                            && leaf.path.iter().zip(&parts).all(|(a, b)| a == b);
                        if whole || prefix {
                            out.insert(li);
                            found = true;
                        }
                    }
                    if !found {
                        return Err(Error::Request {
                            message: format!("no column named {name:?}"),
                        });
                    }
                }
            }
        }
        Ok(out)
    }

    /// Checks the options and gives the iterator of batches.
    pub fn build(self) -> Result<ParquetRecordBatchReader> {
        let selected = self.selected_leaves()?;
        let converted = convert(
            &self.root,
            self.metadata.key_value_metadata.as_deref(),
            &|i| selected.contains(&i),
            self.skip_arrow_metadata,
            self.dictionary,
        )?;
        let n_rg = self.metadata.row_groups.len();
        let row_groups = match self.row_groups {
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
        let mut leaf_types = HashMap::new();
        if let Some(root) = &converted.root {
            collect_leaf_types(root, 0, &mut leaf_types);
        }
        Ok(ParquetRecordBatchReader {
            source: self.source,
            file_len: self.file_len,
            metadata: self.metadata,
            leaves: self.leaves,
            schema: converted.schema,
            root: converted.root,
            leaf_types,
            row_groups,
            next_rg: 0,
            current: None,
            page_buffers: Vec::new(),
            workers: Workers::new(self.threads - 1),
            ahead: if self.threads > 1 {
                4 * self.threads
            } else {
                1
            },
            pool: Pool::new(self.pool_bytes),
            batch_size: self.batch_size,
            to_skip: self.offset,
            remaining: self.limit,
            page_options: self.page_options,
            failed: false,
        })
    }
}

/// The depth of the deepest element of a flat schema list (the root is 0),
/// as far as the list is a tree; what is not is for `build_tree` to report.
fn schema_depth(elements: &[pq_format::SchemaElement]) -> usize {
    // Children still to come of each open group, outermost first.
    let mut open: Vec<i64> = Vec::new();
    let mut deepest = 0;
    for e in elements {
        while open.last() == Some(&0) {
            open.pop();
        }
        if let Some(left) = open.last_mut() {
            *left -= 1;
        }
        deepest = deepest.max(open.len());
        let n = e.num_children.unwrap_or(0);
        if n > 0 {
            open.push(i64::from(n));
        }
    }
    deepest
}

/// Page options of the reader: pages and dictionaries up to the 2 GiB a page
/// header can declare, as other readers accept (real files hold 1 GiB
/// dictionary pages).
fn default_page_options() -> PageOptions {
    PageOptions::default()
        .with_compress_limits(
            pq_compress::Limits::default().with_max_uncompressed_size(i32::MAX as usize),
        )
        .with_max_dictionary_size(i32::MAX as usize)
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

/// The iterator of batches [`ParquetReader::build`] gives: the column
/// chunks of one row group at a time, decoded batch by batch.
#[derive(Debug)]
pub struct ParquetRecordBatchReader {
    source: Source,
    file_len: u64,
    metadata: Arc<FileMetaData>,
    leaves: Vec<LeafColumn>,
    schema: SchemaRef,
    root: Option<FieldNode>,
    /// Arrow type and slot definition level of every selected leaf.
    leaf_types: HashMap<usize, (DataType, i16)>,
    row_groups: Vec<usize>,
    next_rg: usize,
    current: Option<RowGroupState>,
    /// Page decompression buffers of finished chunks, by column index,
    /// for the same columns' chunks in the next row group.
    page_buffers: Vec<(usize, Vec<u8>)>,
    /// Decoding threads besides the caller's (`threads - 1`).
    workers: Workers,
    /// Batches the decoding threads may decode past the one being read.
    ahead: usize,
    /// The batches' buffers, back from dropped batches for the next ones.
    pool: Pool,
    batch_size: usize,
    to_skip: usize,
    remaining: Option<usize>,
    page_options: PageOptions,
    failed: bool,
}

/// The row group being read: one reader per projected leaf column, read
/// as tasks shared with the decoding threads.
#[derive(Debug)]
struct RowGroupState {
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
        self.schema.clone()
    }

    fn read_range(&mut self, start: u64, end: u64, at: &Location) -> Result<Bytes> {
        let io = |source| Error::Io {
            at: Box::new(at.clone().at_offset(start)),
            source,
        };
        let len = usize::try_from(end.saturating_sub(start))
            .map_err(|_| data_err(at, "column chunk larger than memory"))?;
        match &mut self.source {
            Source::Bytes(b) => {
                let s = usize::try_from(start).unwrap_or(usize::MAX);
                if s.checked_add(len).is_none_or(|e| e > b.len()) {
                    return Err(data_err(
                        &at.clone().at_offset(start),
                        format!("column chunk of {len} bytes ends past the file"),
                    ));
                }
                Ok(b.slice(s..s + len))
            }
            Source::Path(p) => {
                let mut f = File::open(&*p).map_err(io)?;
                read_at(&mut f, start, len).map_err(io)
            }
            Source::Reader(r) => read_at(r, start, len).map_err(io),
        }
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
            let Some(leaf) = self.leaves.get(ci).cloned() else {
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
            if cmd.type_ != leaf.physical {
                return Err(data_err(
                    &at,
                    format!(
                        "the chunk's physical type {} differs from the schema's {}",
                        cmd.type_.0, leaf.physical.0
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
            let bytes = self.read_range(range.start, range.end, &at)?;
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
        for (chunk, leaf) in group.columns.iter().zip(self.leaves.iter()) {
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

    fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
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

/// Threads that live as long as the batch iterator, so that a row group
/// does not start threads (nor lose their allocator caches).
struct Workers {
    jobs: Vec<std::sync::mpsc::Sender<Arc<RowGroupTasks>>>,
}

impl std::fmt::Debug for Workers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Workers({})", self.jobs.len())
    }
}

impl Workers {
    /// `n` threads (none when `n` is 0); a thread that cannot start is left
    /// out: the others and the calling thread do its share.
    fn new(n: usize) -> Self {
        let mut jobs = Vec::with_capacity(n);
        for i in 0..n {
            let (tx, rx) = std::sync::mpsc::channel::<Arc<RowGroupTasks>>();
            let spawned = std::thread::Builder::new()
                .name(format!("pq-arrow-decode-{i}"))
                .spawn(move || {
                    // Ends when the iterator (the sender) is dropped.
                    while let Ok(tasks) = rx.recv() {
                        tasks.work(i + 1);
                    }
                });
            if spawned.is_ok() {
                jobs.push(tx);
            }
        }
        Workers { jobs }
    }

    /// Sets every thread on the tasks of a row group.
    fn share(&self, tasks: &Arc<RowGroupTasks>) {
        for tx in &self.jobs {
            // A thread that has stopped is left out.
            let _ = tx.send(Arc::clone(tasks));
        }
    }
}

fn read_at<R: Read + Seek + ?Sized>(r: &mut R, start: u64, len: usize) -> std::io::Result<Bytes> {
    r.seek(SeekFrom::Start(start))?;
    let mut buf = Vec::new();
    buf.try_reserve_exact(len)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::OutOfMemory, e))?;
    r.take(len as u64).read_to_end(&mut buf)?;
    if buf.len() != len {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            format!("expected {len} bytes, found {}", buf.len()),
        ));
    }
    Ok(Bytes::from(buf))
}

impl Iterator for ParquetRecordBatchReader {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.next_batch() {
            Ok(b) => b.map(Ok),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

/// Reads a whole file into batches of 8192 rows.
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
/// let batches = pq_arrow::read_parquet(path)?;
/// assert!(!batches.is_empty());
/// # Ok::<(), pq_arrow::Error>(())
/// ```
pub fn read_parquet(path: impl AsRef<Path>) -> Result<Vec<RecordBatch>> {
    ParquetReader::open(path)?.build()?.collect()
}
