//! Opening a file and choosing how it is read: [`ParquetReader`].

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use arrow_schema::SchemaRef;
use bytes::Bytes;
use pq_format::{FileMetaData, Limits, ParquetMetaData, SchemaDescriptor};

use super::ParquetRecordBatchReader;
use super::options::ReadOptions;
use super::source::{Positioned, ReadCounts, Source};
use crate::error::{Error, Location, Result};
use crate::row_group_tasks::ReadAt;
use crate::schema::{ByteArrayOutput, LeafColumn, convert};

/// Opens a Parquet file and configures how it is read; [`build`] gives the
/// iterator of batches.
///
/// Only the footer is read when opening; [`build`] then reads, one row
/// group at a time, just the column chunks of the chosen columns. An
/// option that behaves as one of arrow-rs's `ParquetRecordBatchReaderBuilder`
/// has its name (`with_projection`, `with_row_groups`, `with_batch_size`,
/// `with_offset`, `with_limit`, `schema`, `parquet_schema`, `metadata`).
///
/// ```
/// # fn main() -> Result<(), pq_arrow::Error> {
/// use pq_arrow::ParquetReader;
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
/// let reader = ParquetReader::open(path)?;
/// println!("{}", reader.schema());
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
    metadata: Arc<ParquetMetaData>,
    schema: SchemaRef,
    opts: ReadOptions,
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
        let f = File::open(path.as_ref()).map_err(|source| Error::Io {
            at: Box::default(),
            source,
        })?;
        Self::from_file_with_limits(f, limits)
    }

    /// Reads from an open file, as [`open`](Self::open) does from a path:
    /// with positioned reads, so that decoding threads
    /// ([`with_threads`](Self::with_threads)) each read the pages they
    /// decode. (A file given as a `Read + Seek` to
    /// [`from_reader`](Self::from_reader) has one cursor, and only the
    /// calling thread reads it.)
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = std::env::temp_dir().join(format!("pq-from-file-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # let path = dir.join("t.parquet");
    /// # let batch = arrow_array::RecordBatch::try_from_iter([(
    /// #     "x",
    /// #     std::sync::Arc::new(arrow_array::Int32Array::from(vec![1, 2, 3])) as arrow_array::ArrayRef,
    /// # )])?;
    /// # let mut w = pq_arrow::ParquetWriter::try_new(std::fs::File::create(&path)?, batch.schema(), Default::default())?;
    /// # w.write(&batch)?;
    /// # w.close()?;
    /// let file = std::fs::File::open(&path)?;
    /// let reader = pq_arrow::ParquetReader::from_file(file)?.with_threads(2).build()?;
    /// let rows: usize = reader.map(|b| b.map(|b| b.num_rows())).sum::<Result<_, _>>()?;
    /// assert_eq!(rows, 3);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn from_file(file: File) -> Result<Self> {
        Self::from_file_with_limits(file, &Limits::default())
    }

    /// [`from_file`](Self::from_file) with these metadata limits (see
    /// [`open_with_limits`](Self::open_with_limits)).
    pub fn from_file_with_limits(mut file: File, limits: &Limits) -> Result<Self> {
        let file_len = file.seek(SeekFrom::End(0)).map_err(|source| Error::Io {
            at: Box::default(),
            source,
        })?;
        let md = pq_format::read_metadata(&mut file, limits).map_err(format_err)?;
        Self::new(
            Source::At(Positioned::File(Arc::new(file))),
            file_len,
            md,
            limits,
        )
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

    /// Reads a file held in memory. Pages are slices of `bytes`, never
    /// copies, so a memory-mapped file is read without copying when its
    /// mapping is made a `Bytes`: with the `memmap2` crate,
    /// `Bytes::from_owner(unsafe { memmap2::Mmap::map(&file)? })`.
    pub fn from_bytes(bytes: Bytes) -> Result<Self> {
        Self::from_bytes_with_limits(bytes, &Limits::default())
    }

    /// [`from_bytes`](Self::from_bytes) with these metadata limits, as
    /// [`open_with_limits`](Self::open_with_limits).
    pub fn from_bytes_with_limits(bytes: Bytes, limits: &Limits) -> Result<Self> {
        let md = pq_format::read_metadata_from_bytes(&bytes, limits).map_err(format_err)?;
        let len = bytes.len() as u64;
        Self::new(Source::At(Positioned::Bytes(bytes)), len, md, limits)
    }

    fn new(source: Source, file_len: u64, md: FileMetaData, limits: &Limits) -> Result<Self> {
        let (metadata, schema) = open_metadata(md, limits)?;
        Ok(ParquetReader {
            source,
            file_len,
            metadata,
            schema,
            opts: ReadOptions::new(limits),
        })
    }

    /// The file metadata: the decoded footer (its fields read through)
    /// with its schema tree.
    pub fn metadata(&self) -> &ParquetMetaData {
        &self.metadata
    }

    /// The Parquet schema tree.
    pub fn parquet_schema(&self) -> &SchemaDescriptor {
        &self.metadata.schema
    }

    /// The leaf columns, in file order, with their paths and levels.
    pub fn leaf_columns(&self) -> &[LeafColumn] {
        self.metadata.schema.columns()
    }

    /// The Arrow schema of the whole file (before projection). When the
    /// `ARROW:schema` hint does not decode, this is the schema of the
    /// Parquet types alone, and [`build`](Self::build) fails unless
    /// [`with_skip_arrow_metadata`](Self::with_skip_arrow_metadata) is set.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The older name of [`schema`](Self::schema).
    #[doc(hidden)]
    pub fn arrow_schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// A second reader of the same file with the same options, sharing this
    /// one's decoded footer and file handle: the footer is not read or
    /// decoded again (a wide file's takes tens of milliseconds). `None` for
    /// a reader made by [`from_reader`](Self::from_reader), whose one
    /// cursor cannot be shared; readers from a path, a `File` or `Bytes`
    /// read at positions and can.
    ///
    /// ```
    /// # fn main() -> Result<(), pq_arrow::Error> {
    /// use pq_arrow::ParquetReader;
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
    /// let reader = ParquetReader::open(path)?;
    /// // One look at the schema of a projection, one read of its rows.
    /// let first = reader.try_clone().expect("a file is read at positions");
    /// let mask = pq_arrow::ProjectionMask::roots(first.parquet_schema(), [0]);
    /// let schema = first.with_projection(mask).build()?.schema();
    /// assert_eq!(schema.fields().len(), 1);
    /// let rows: usize = reader.build()?.map(|b| b.map(|b| b.num_rows())).sum::<Result<_, _>>()?;
    /// assert!(rows > 0);
    /// # Ok(())
    /// # }
    /// ```
    pub fn try_clone(&self) -> Option<Self> {
        let source = match &self.source {
            Source::At(at) => Source::At(at.clone()),
            Source::Reader(_) => return None,
        };
        Some(ParquetReader {
            source,
            file_len: self.file_len,
            metadata: self.metadata.clone(),
            schema: self.schema.clone(),
            opts: self.opts.clone(),
        })
    }

    /// Rows in the file.
    pub fn num_rows(&self) -> u64 {
        u64::try_from(self.metadata.num_rows).unwrap_or(0)
    }

    /// Row groups in the file.
    pub fn num_row_groups(&self) -> usize {
        self.metadata.row_groups.len()
    }

    /// The options chosen here (projection, row groups, predicate, ...),
    /// read through an async source instead: for a file whose footer was
    /// read through a blocking handle (a CLI, say) and whose data is
    /// fetched asynchronously. `reader` must give the same file's bytes.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use futures::TryStreamExt;
    /// use pq_arrow::{FetchOptions, ParquetReader, TokioFile};
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
    /// let builder = ParquetReader::open(path)?.with_limit(3);
    /// let stream = builder
    ///     .into_stream_builder(TokioFile::open(path).await?, FetchOptions::default())
    ///     .build()?;
    /// let rows: usize = stream.try_collect::<Vec<_>>().await?.iter().map(|b| b.num_rows()).sum();
    /// assert_eq!(rows, 3);
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "async")]
    pub fn into_stream_builder(
        self,
        reader: impl super::AsyncRangeReader + 'static,
        fetch: super::FetchOptions,
    ) -> super::ParquetRecordBatchStreamBuilder {
        super::ParquetRecordBatchStreamBuilder::from_parts(
            std::sync::Arc::new(reader),
            self.file_len,
            self.metadata,
            self.schema,
            self.opts,
            fetch,
        )
    }

    read_setters!();

    /// Checks the options and gives the iterator of batches.
    pub fn build(self) -> Result<ParquetRecordBatchReader> {
        let mut core = self.opts.decoder(self.metadata, self.file_len)?;
        // A file is read column by column (a read is a system call); from
        // `Bytes` there is nothing to read, only slices to cut.
        core.serial_reads = !self.source.is_bytes();
        // With decoding threads, each reads the pages of the columns it
        // decodes: the reads (a third of a scan of uncompressed pages, in
        // system time) are shared out with the decoding instead of all
        // falling to the caller's thread while the others wait.
        let mut shared_reads = None;
        if let Some(source) = self.source.positioned().filter(|_| core.workers.any()) {
            let counts = Arc::new(ReadCounts::default());
            let (counted, pool) = (Arc::clone(&counts), core.pool.clone());
            core.reads = Some(ReadAt::new(move |range: &Range<u64>, at: &Location| {
                let data = source.read(range, at, &pool)?;
                counted.add(range);
                Ok(data)
            }));
            shared_reads = Some(counts);
        }
        Ok(ParquetRecordBatchReader {
            core,
            source: self.source,
            failed: false,
            requests: 0,
            bytes_read: 0,
            shared_reads,
        })
    }
}

/// The checked metadata of a decoded footer, and the Arrow schema of the
/// whole file: what every reader (sync or async) starts from.
pub(super) fn open_metadata(
    md: FileMetaData,
    limits: &Limits,
) -> Result<(Arc<ParquetMetaData>, SchemaRef)> {
    pq_format::check_not_encrypted(&md).map_err(format_err)?;
    // The schema tree is built and checked here once (limits included).
    let md = ParquetMetaData::new(md, limits).map_err(format_err)?;
    let schema = arrow_schema_of(&md)?;
    Ok((Arc::new(md), schema))
}

/// The Arrow schema of every column of a file.
pub(super) fn arrow_schema_of(md: &ParquetMetaData) -> Result<SchemaRef> {
    let kv = md.key_value_metadata.as_deref();
    // A corrupt ARROW:schema hint fails `build` unless the user skips
    // it; opening the file still works, so that they can.
    let plain = ByteArrayOutput::default();
    let converted = convert(&md.schema, kv, &|_| true, false, plain)
        .or_else(|e| convert(&md.schema, kv, &|_| true, true, plain).map_err(|_| e))?;
    Ok(converted.schema)
}
