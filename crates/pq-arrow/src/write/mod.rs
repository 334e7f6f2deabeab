//! Writing Arrow `RecordBatch`es to Parquet.
//!
//! [`ParquetWriter`] streams batches to any [`Write`]: the row group being
//! built is held in memory (encoded and compressed), and written out when
//! it reaches [`WriterOptions::max_row_group_size`] rows or
//! [`WriterOptions::max_row_group_bytes`] bytes. The footer is written only by
//! [`ParquetWriter::close`], so a writer dropped before that leaves a file
//! that no reader takes for complete.
//!
//! ```
//! # fn main() -> Result<(), pq_arrow::Error> {
//! use std::sync::Arc;
//! use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
//! use pq_arrow::write::{Codec, ParquetWriter, WriterOptions};
//!
//! let batch = RecordBatch::try_from_iter([
//!     ("id", Arc::new(Int64Array::from(vec![1, 2, 3])) as ArrayRef),
//!     ("name", Arc::new(StringArray::from(vec![Some("a"), None, Some("c")])) as ArrayRef),
//! ])
//! .unwrap();
//! // SNAPPY is the default; ZSTD writes smaller files, more slowly.
//! let options = WriterOptions::builder()
//!     .set_compression(Codec::Zstd)
//!     .set_compression_level(Some(3))
//!     .build();
//! let mut writer = ParquetWriter::try_new(Vec::new(), batch.schema(), options)?;
//! writer.write(&batch)?;
//! let (bytes, metadata) = writer.close_into_inner()?;
//! assert_eq!(metadata.num_rows, 3);
//! assert_eq!(&bytes[..4], b"PAR1");
//! # Ok(())
//! # }
//! ```
//!
//! Types map to Parquet as arrow-rs's `ArrowSchemaConverter` maps them (so
//! files are interchangeable), and the Arrow schema is stored in the footer
//! under `ARROW:schema` as arrow-rs and pyarrow store it.
//!
//! # Memory allocator
//!
//! Each row group's pages are buffered and freed once written. With glibc's
//! default settings that memory is handed back to the system at the end of
//! each row group and faulted in again, page by page, for the next: writing
//! DuckDB's uncompressed lineitem file back with its own settings (4 M rows
//! in row groups of 122 880) took 108 000 page faults and a quarter more
//! time than with glibc told to keep it. The `pq` command sets
//! `mallopt(M_MMAP_THRESHOLD, 32 MiB)` and `mallopt(M_TRIM_THRESHOLD,
//! 64 MiB)` before converting; a program writing many row groups can do the
//! same (or set `GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=67108864`,
//! or use an allocator that keeps freed memory, such as jemalloc or
//! mimalloc). The library itself leaves the process's allocator alone.

mod bloom;
mod column;
mod encoder;
mod levels;
mod options;
mod page_index;
mod pages;
mod phys;
mod schema;
mod stats;
mod threads;
mod typed;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use arrow_array::{Array, RecordBatch};
use arrow_schema::SchemaRef;
use pq_format::{
    ColumnChunk, ColumnOrder, FileMetaData, KeyValue, RowGroup, ThriftEncode, TypeDefinedOrder,
};

use crate::error::{Error, Location, Result};
use crate::schema::ARROW_SCHEMA_META_KEY;
use column::{ColumnChunkWriter, FinishedChunk};
pub use options::{
    CREATED_BY, Codec, ColumnPath, DataPageVersion, Encoding, WriterOptions, WriterOptionsBuilder,
    is_preview_encoding,
};
use pages::SpareBuffers;
pub(crate) use schema::SortOrder;
use schema::{Leaf, ParquetSchema};

/// Rows converted to levels at a time: bounds the temporary level buffers
/// and how far a row group can overshoot its byte limit.
const SLICE_ROWS: usize = 64 * 1024;

/// Counts the bytes written.
#[derive(Debug)]
struct Counting<W> {
    inner: W,
    pos: u64,
}

impl<W: Write> Counting<W> {
    fn write_all(&mut self, buf: &[u8]) -> Result<()> {
        self.inner.write_all(buf).map_err(|source| Error::Io {
            at: Box::new(Location::default().at_offset(self.pos)),
            source,
        })?;
        self.pos += buf.len() as u64;
        Ok(())
    }
}

/// A column chunk's encoded column index and offset index, if any.
type EncodedIndexes = (Option<Vec<u8>>, Option<Vec<u8>>);

/// Writes `RecordBatch`es of one schema to a Parquet file.
///
/// See the [module documentation](self) for an example.
#[derive(Debug)]
pub struct ParquetWriter<W: Write> {
    out: Counting<W>,
    schema: SchemaRef,
    parquet: ParquetSchema,
    options: WriterOptions,
    columns: Vec<ColumnChunkWriter>,
    rows_in_group: usize,
    row_groups: Vec<RowGroup>,
    /// Per row group, per column: the column index and offset index,
    /// written before the footer. Held encoded: a few bytes per page
    /// rather than the decoded structures' hundreds per column.
    indexes: Vec<Vec<EncodedIndexes>>,
    total_rows: u64,
    /// Page buffers of the row group written last (see [`SpareBuffers`]).
    spare: SpareBuffers,
}

impl<W: Write> ParquetWriter<W> {
    /// A writer of batches of `schema` to `writer`, with `options`.
    ///
    /// Fails when a type cannot be written or an option does not fit a
    /// column (an encoding its type does not allow). Writes the leading
    /// magic.
    pub fn try_new(writer: W, schema: SchemaRef, options: WriterOptions) -> Result<Self> {
        let parquet = schema::to_parquet(&schema)?;
        for key in options.columns.keys() {
            let known = parquet
                .leaves
                .iter()
                .any(|l| (1..=l.path.len()).any(|n| key == &l.path[..n]));
            if !known {
                return Err(Error::Request {
                    message: format!(
                        "options name column '{}', which the schema does not have",
                        key.join(".")
                    ),
                });
            }
        }
        let mut writer = Self {
            out: Counting {
                inner: writer,
                pos: 0,
            },
            schema,
            parquet,
            options,
            columns: Vec::new(),
            rows_in_group: 0,
            row_groups: Vec::new(),
            indexes: Vec::new(),
            total_rows: 0,
            spare: SpareBuffers::default(),
        };
        writer.columns = writer.new_columns()?;
        writer.out.write_all(&pq_format::MAGIC)?;
        Ok(writer)
    }

    fn new_columns(&self) -> Result<Vec<ColumnChunkWriter>> {
        // Exactly one writer per leaf: collecting a `Result` cannot size the
        // vector up front, and doubling would leave up to twice the room.
        let mut columns = Vec::with_capacity(self.parquet.leaves.len());
        for leaf in &self.parquet.leaves {
            columns.push(self.new_column(leaf)?);
        }
        Ok(columns)
    }

    /// The writer of `leaf`'s chunk, its options checked.
    fn new_column(&self, leaf: &Leaf) -> Result<ColumnChunkWriter> {
        ColumnChunkWriter::new(
            leaf,
            self.options.resolve(&leaf.path),
            &self.options,
            self.spare.clone(),
        )
    }

    /// The Arrow schema being written.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Bytes written to the underlying writer so far.
    pub fn bytes_written(&self) -> u64 {
        self.out.pos
    }

    /// Bytes of the row group being built (encoded, compressed pages plus
    /// estimates of the open pages and dictionaries).
    pub fn in_progress_size(&self) -> usize {
        self.columns.iter().map(|c| c.buffered_bytes()).sum()
    }

    /// Rows of the row group being built.
    pub fn in_progress_rows(&self) -> usize {
        self.rows_in_group
    }

    /// Writes a batch; its schema must have the writer's fields (metadata
    /// may differ).
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.schema().fields() != self.schema.fields() {
            return Err(Error::Request {
                message: format!(
                    "the batch's schema {:?} differs from the writer's {:?}",
                    batch.schema().fields(),
                    self.schema.fields()
                ),
            });
        }
        let mut offset = 0;
        let n = batch.num_rows();
        while offset < n {
            let room = self.options.max_row_group_rows - self.rows_in_group;
            let take = (n - offset).min(room).min(SLICE_ROWS);
            let mut leaves = Vec::with_capacity(self.columns.len());
            for (field, col) in self.schema.fields().iter().zip(batch.columns()) {
                let slice = col.slice(offset, take);
                levels::leaves(field, &slice, &mut leaves)?;
            }
            let work = self.columns.iter_mut().zip(&leaves);
            threads::map_in_order(work, self.options.threads, |(w, leaf)| w.write(leaf))?;
            self.rows_in_group += take;
            offset += take;
            if self.rows_in_group >= self.options.max_row_group_rows
                || self.in_progress_size() >= self.options.max_row_group_bytes
            {
                self.flush()?;
            }
        }
        Ok(())
    }

    /// Ends the row group being built (if it has rows) and writes it out.
    pub fn flush(&mut self) -> Result<()> {
        if self.rows_in_group == 0 {
            return Ok(());
        }
        let columns = std::mem::take(&mut self.columns);
        let written = self.write_row_group(columns);
        // The next row group's writers are made once the finished ones are
        // gone: both at once would double the writer's memory per column.
        self.columns = self.new_columns()?;
        written
    }

    /// Writes the chunks of the row group being built, its metadata and
    /// page indexes kept for the footer.
    fn write_row_group(&mut self, columns: Vec<ColumnChunkWriter>) -> Result<()> {
        let start = self.out.pos;
        let mut chunks = Vec::with_capacity(columns.len());
        let mut indexes = Vec::with_capacity(columns.len());
        let mut blooms = Vec::new();
        // The pages' buffers, once written, for the next row group's pages.
        let mut written = Vec::new();
        // Finished (last pages encoded and compressed) a group of columns
        // at a time, one column per thread, and written in column order: a
        // group's chunks are written, their buffers kept empty for the next
        // row group, before the next group finishes, so the row group's
        // pages are never held twice over (one thread finishes one column
        // at a time).
        let threads = self.options.threads;
        let mut columns = columns.into_iter();
        while !columns.as_slice().is_empty() {
            let group = columns.by_ref().take(threads);
            for finished in threads::map_in_order(group, threads, ColumnChunkWriter::finish)? {
                let (chunk, chunk_indexes, bloom) = self.write_chunk(finished, &mut written)?;
                chunks.push(chunk);
                indexes.push(chunk_indexes);
                blooms.push(bloom);
            }
        }
        self.spare.replace(written);
        let chunks_end = self.out.pos;
        // Bloom filters after the row group's chunks, in column order (one
        // of the places the format allows): only one row group's filters
        // are ever held.
        for (chunk, bloom) in chunks.iter_mut().zip(blooms) {
            let (Some(bloom), Some(meta)) = (bloom, chunk.meta_data.as_mut()) else {
                continue;
            };
            meta.bloom_filter_offset = Some(self.out.pos as i64);
            meta.bloom_filter_length = i32::try_from(bloom.len()).ok();
            self.out.write_all(&bloom)?;
        }
        let total_byte_size = chunks
            .iter()
            .filter_map(|c| c.meta_data.as_ref())
            .map(|m| m.total_uncompressed_size)
            .sum();
        self.row_groups.push(RowGroup {
            columns: chunks,
            total_byte_size,
            num_rows: self.rows_in_group as i64,
            file_offset: Some(start as i64),
            total_compressed_size: Some((chunks_end - start) as i64),
            ordinal: Some(self.row_groups.len() as i16),
            ..Default::default()
        });
        self.indexes.push(indexes);
        self.total_rows += self.rows_in_group as u64;
        self.rows_in_group = 0;
        Ok(())
    }

    /// Writes a finished chunk's pages where the file has got to; its
    /// metadata, encoded page indexes and Bloom filter (kept for after the
    /// row group's chunks), their offsets made absolute. The pages'
    /// buffers go to `written`, for the next row group's pages.
    fn write_chunk(
        &mut self,
        finished: FinishedChunk,
        written: &mut Vec<Vec<u8>>,
    ) -> Result<(ColumnChunk, EncodedIndexes, Option<Vec<u8>>)> {
        let base = self.out.pos as i64;
        self.out.write_all(&finished.dict_page)?;
        for page in &finished.pages {
            self.out.write_all(page)?;
        }
        written.extend(finished.pages);
        let mut meta = finished.meta;
        meta.data_page_offset += base;
        meta.dictionary_page_offset = meta.dictionary_page_offset.map(|o| o + base);
        let mut offset_index = finished.offset_index;
        if let Some(oi) = &mut offset_index {
            for p in &mut oi.page_locations {
                p.offset += base;
            }
        }
        let indexes = (
            finished.column_index.map(|ci| ci.encode()),
            offset_index.map(|oi| oi.encode()),
        );
        let chunk = ColumnChunk {
            file_offset: meta.dictionary_page_offset.unwrap_or(meta.data_page_offset),
            meta_data: Some(meta),
            ..Default::default()
        };
        Ok((chunk, indexes, finished.bloom))
    }

    /// Writes the last row group, the page indexes and the footer, and
    /// returns the file's metadata (the writer is flushed, not closed).
    pub fn close(self) -> Result<FileMetaData> {
        self.close_into_inner().map(|(_, m)| m)
    }

    /// As [`close`](Self::close), also giving the underlying writer back.
    pub fn close_into_inner(mut self) -> Result<(W, FileMetaData)> {
        // As `flush`, without making writers for a row group that will not come.
        let columns = std::mem::take(&mut self.columns);
        if self.rows_in_group > 0 {
            self.write_row_group(columns)?;
        } else {
            drop(columns);
        }
        // Column indexes of every chunk, then offset indexes, as arrow-rs
        // and parquet-cpp lay them out.
        let indexes = std::mem::take(&mut self.indexes);
        for column_index in [true, false] {
            for (rg, idx) in self.row_groups.iter_mut().zip(&indexes) {
                for (chunk, (ci, oi)) in rg.columns.iter_mut().zip(idx) {
                    let Some(bytes) = (if column_index { ci } else { oi }) else {
                        continue;
                    };
                    let place = (Some(self.out.pos as i64), Some(bytes.len() as i32));
                    if column_index {
                        (chunk.column_index_offset, chunk.column_index_length) = place;
                    } else {
                        (chunk.offset_index_offset, chunk.offset_index_length) = place;
                    }
                    self.out.write_all(bytes)?;
                }
            }
        }
        let mut kv: Vec<KeyValue> = self
            .options
            .key_value_metadata
            .iter()
            .filter(|(k, _)| !(self.options.store_arrow_schema && k == ARROW_SCHEMA_META_KEY))
            .map(|(k, v)| KeyValue {
                key: k.clone(),
                value: Some(v.clone()),
            })
            .collect();
        if self.options.store_arrow_schema {
            kv.push(KeyValue {
                key: ARROW_SCHEMA_META_KEY.to_string(),
                value: Some(schema::encode_arrow_schema(&self.schema)),
            });
        }
        let metadata = FileMetaData {
            version: match self.options.data_page_version {
                DataPageVersion::V1 => 1,
                DataPageVersion::V2 => 2,
            },
            schema: self.parquet.elements.clone(),
            num_rows: self.total_rows as i64,
            row_groups: std::mem::take(&mut self.row_groups),
            key_value_metadata: (!kv.is_empty()).then_some(kv),
            created_by: Some(self.options.created_by.clone()),
            column_orders: Some(
                self.parquet
                    .leaves
                    .iter()
                    .map(|_| ColumnOrder::TypeOrder(TypeDefinedOrder {}))
                    .collect(),
            ),
            ..Default::default()
        };
        let bytes = metadata.encode();
        self.out.write_all(&bytes)?;
        self.out.write_all(&(bytes.len() as u32).to_le_bytes())?;
        self.out.write_all(&pq_format::MAGIC)?;
        let pos = self.out.pos;
        self.out.inner.flush().map_err(|source| Error::Io {
            at: Box::new(Location::default().at_offset(pos)),
            source,
        })?;
        Ok((self.out.inner, metadata))
    }
}

/// Writes `batches` (all of one schema) to a new file at `path`.
///
/// ```
/// # fn main() -> Result<(), pq_arrow::Error> {
/// use std::sync::Arc;
/// use arrow_array::{ArrayRef, Int32Array, RecordBatch};
/// let batch = RecordBatch::try_from_iter([
///     ("x", Arc::new(Int32Array::from(vec![1, 2, 3])) as ArrayRef),
/// ])
/// .unwrap();
/// let path = std::env::temp_dir().join("pq_write_parquet_doc.parquet");
/// let meta = pq_arrow::write_parquet(&path, &[batch], Default::default())?;
/// assert_eq!(meta.num_rows, 3);
/// # std::fs::remove_file(&path).ok();
/// # Ok(())
/// # }
/// ```
pub fn write_parquet(
    path: impl AsRef<Path>,
    batches: &[RecordBatch],
    options: WriterOptions,
) -> Result<FileMetaData> {
    let Some(first) = batches.first() else {
        return Err(Error::Request {
            message: "no batches to write (use ParquetWriter to write a file of no rows)".into(),
        });
    };
    let path = path.as_ref();
    let file = File::create(path).map_err(|source| Error::Io {
        at: Box::new(Location::default()),
        source,
    })?;
    let mut writer = ParquetWriter::try_new(BufWriter::new(file), first.schema(), options)?;
    for b in batches {
        writer.write(b)?;
    }
    writer.close()
}
