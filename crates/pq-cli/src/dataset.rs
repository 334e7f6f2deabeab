//! Several Parquet files read as one table: one schema for all (checked,
//! or merged by name with `--union-by-name`), partition columns from
//! hive-style directories, and rows taken from the files in order, each
//! file after the first opened again only when its rows are reached.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions, StringArray, new_null_array};
use arrow_schema::{DataType, Field, FieldRef, Schema, SchemaRef};

use pq_arrow::ParquetReader;

use crate::error::CliError;
use crate::input::{self, Input};
use crate::read;
use crate::remote::RemoteFile;
use crate::sources::Source;

/// How the files are read.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `--columns`: names or dotted paths, in the order wanted.
    pub columns: Option<Vec<String>>,
    /// `--union-by-name`: merge differing schemas by column name.
    pub union_by_name: bool,
    /// Decoding threads per file.
    pub threads: usize,
    /// Check page checksums.
    pub verify_checksums: bool,
    /// `--where`: only the rows it keeps (read every row of the plan then,
    /// and count offsets and limits after it).
    pub predicate: Option<pq_arrow::predicate::Predicate>,
    /// What the reads did, added up as each file's reading ends (for
    /// `scan`'s report).
    pub read_stats: Option<std::rc::Rc<std::cell::RefCell<ReadStats>>>,
}

/// What the reads of a table did.
#[derive(Debug, Default)]
pub struct ReadStats {
    /// Reads of the local files (the footers' not counted).
    pub requests: u64,
    /// Bytes read of the local files for the batches.
    pub bytes_read: u64,
    /// The local files' sizes.
    pub file_bytes: u64,
    /// Local files read.
    pub files: u64,
    /// What was fetched of objects in stores, every request counted (the
    /// size asked for and the footer included).
    pub remote: RemoteReads,
    /// What the predicate pruned and kept, over every file.
    pub pruning: pq_arrow::predicate::PruningMetrics,
}

/// What was fetched of objects in stores.
#[derive(Debug, Default)]
pub struct RemoteReads {
    /// Requests made, retries included.
    pub requests: u64,
    /// Bytes received.
    pub bytes: u64,
    /// The objects' sizes.
    pub object_bytes: u64,
    /// Objects read.
    pub objects: u64,
}

/// One file of the table, as its footer describes it.
struct File {
    source: Source,
    /// The bytes of an input that cannot be opened twice (standard input,
    /// a pipe); a regular file other than the first is opened again when
    /// its rows are read, so that a thousand files do not hold a thousand
    /// descriptors.
    memory: Option<Input>,
    /// The first file's reader (from a path) and the file's length in
    /// bytes: that file is not opened and its footer decoded a second time
    /// (tens of milliseconds for a wide file). The others are, so that one
    /// descriptor is held at a time.
    opened: Option<(ParquetReader, u64)>,
    /// Rows of each row group.
    row_groups: Vec<u64>,
    /// The selected columns this file has (all of them, unless some of
    /// the selection is missing under `--union-by-name`).
    columns: Option<Vec<String>>,
    /// Whether it has any selected column at all.
    has_columns: bool,
}

/// Which rows of one file to read.
#[derive(Debug, Clone, Default)]
pub struct Slice {
    /// Only these row groups (all when `None`).
    pub row_groups: Option<Vec<usize>>,
    /// Rows to skip of those.
    pub offset: usize,
    /// Most rows to read.
    pub limit: Option<usize>,
}

/// Several files read as one table.
pub struct Dataset {
    files: Vec<File>,
    schema: SchemaRef,
    options: Options,
}

/// `name: type` of a field, for messages.
fn describe(f: &Field) -> String {
    format!("'{}' ({})", f.name(), f.data_type())
}

fn shown(path: &Path) -> String {
    if input::is_stdio(path) {
        "standard input".into()
    } else {
        path.display().to_string()
    }
}

impl Dataset {
    /// Reads the footers of `sources` and settles the table's schema: the
    /// selected columns in the order asked (the file's order otherwise),
    /// then partition columns as strings.
    pub fn open(sources: Vec<Source>, options: Options) -> Result<Self, CliError> {
        Self::open_with(sources, None, options)
    }

    /// [`open`](Self::open), with the first source already opened (standard
    /// input, whose bytes a caller has read to see what it holds).
    pub fn open_with(
        sources: Vec<Source>,
        first: Option<Input>,
        options: Options,
    ) -> Result<Self, CliError> {
        let mut first = first;
        let mut partition_keys: Vec<String> = Vec::new();
        for s in &sources {
            for (k, _) in &s.partitions {
                if !partition_keys.contains(k) {
                    partition_keys.push(k.clone());
                }
            }
        }
        // Selected names that are partition columns are not read from files.
        let wanted: Option<Vec<String>> = options.columns.as_ref().map(|c| {
            c.iter()
                .filter(|n| !partition_keys.contains(n))
                .cloned()
                .collect()
        });
        let mut files = Vec::with_capacity(sources.len());
        let mut fields: Vec<FieldRef> = Vec::new();
        // The file each field was first seen in.
        let mut first_seen: Vec<PathBuf> = Vec::new();
        let mut metadata = None;
        for (i, source) in sources.into_iter().enumerate() {
            let path = source.path.clone();
            let input = match first.take() {
                Some(input) => input,
                None => input::open_parquet(&path)?,
            };
            let memory = match &input {
                // Read once: standard input cannot be read again, and an
                // object's size and footer need no second request.
                Input::Memory(_) | Input::Remote(_) => Some(input.reopen(&path)?),
                Input::File { .. } => None,
            };
            let len = input.len();
            let reader = read::open_input(&path, input, None)?;
            let opened = if i == 0 && memory.is_none() {
                reader.try_clone().map(|r| (r, len))
            } else {
                None
            };
            let file_schema = reader.schema().clone();
            // Plans of rows (offsets, the last rows) are made from these
            // counts: one that cannot be a count stops here.
            let row_groups = reader
                .metadata()
                .row_groups
                .iter()
                .enumerate()
                .map(|(g, rg)| {
                    u64::try_from(rg.num_rows).map_err(|_| {
                        CliError::file(
                            &path,
                            format!("row group {g} declares {} rows", rg.num_rows),
                        )
                    })
                })
                .collect::<Result<_, _>>()?;
            // The columns of the selection this file has.
            let columns = match &wanted {
                None => None,
                Some(w) if options.union_by_name => Some(
                    w.iter()
                        .filter(|n| {
                            let top = read::top_name(n, file_schema.fields());
                            file_schema.fields().iter().any(|f| f.name() == top)
                        })
                        .cloned()
                        .collect::<Vec<_>>(),
                ),
                Some(w) => Some(w.clone()),
            };
            let has_columns = columns.as_ref().is_none_or(|c| !c.is_empty());
            // The file's schema as read: its batches' schema.
            let schema = if has_columns {
                read::select(&path, reader, columns.as_deref())?
                    .build()
                    .map_err(|e| CliError::file(&path, e))?
                    .schema()
            } else {
                Arc::new(Schema::empty())
            };
            let schema = match &wanted {
                Some(w) => Arc::new(
                    schema
                        .project(&read::requested_order(&schema, w))
                        .map_err(|e| CliError::file(&path, e))?,
                ),
                None => schema,
            };
            if i == 0 {
                metadata = Some(schema.metadata().clone());
                fields = schema.fields().iter().cloned().collect();
                first_seen = vec![path.clone(); fields.len()];
            } else if options.union_by_name {
                merge_by_name(&mut fields, &mut first_seen, &schema, &path)?;
            } else {
                let first = files.first().map(|f: &File| f.source.path.as_path());
                same_columns(&mut fields, first.unwrap_or(&path), &schema, &path)?;
            }
            files.push(File {
                source,
                memory,
                opened,
                row_groups,
                columns,
                has_columns,
            });
        }
        if options.union_by_name
            && let Some(w) = &wanted
        {
            for name in w {
                let top = read::top_name(name, &fields);
                if !fields.iter().any(|f| f.name() == top) {
                    return Err(CliError::Message(format!("no file has a column '{name}'")));
                }
            }
        }
        for key in &partition_keys {
            if !fields.iter().any(|f| f.name() == key) {
                fields.push(Arc::new(Field::new(key, DataType::Utf8, true)));
            }
        }
        let mut schema = Schema::new(fields);
        if let Some(columns) = &options.columns {
            schema = schema
                .project(&read::requested_order(&schema, columns))
                .map_err(|e| CliError::Message(e.to_string()))?;
            // A partition column not asked for is not shown.
            let keep: Vec<usize> = schema
                .fields()
                .iter()
                .enumerate()
                .filter(|(_, f)| !partition_keys.contains(f.name()) || columns.contains(f.name()))
                .map(|(i, _)| i)
                .collect();
            schema = schema
                .project(&keep)
                .map_err(|e| CliError::Message(e.to_string()))?;
        }
        if files.len() == 1 {
            schema = schema.with_metadata(metadata.unwrap_or_default());
        }
        Ok(Dataset {
            files,
            schema: Arc::new(schema),
            options,
        })
    }

    /// The table's schema.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Rows of all files, from their footers.
    pub fn num_rows(&self) -> u64 {
        self.files
            .iter()
            .map(|f| f.row_groups.iter().sum::<u64>())
            .sum()
    }

    /// Rows `offset..offset + limit` of the table, as slices of its files;
    /// files wholly before `offset` are not opened again.
    pub fn range(&self, offset: usize, limit: Option<usize>) -> Vec<(usize, Slice)> {
        let mut skip = offset as u64;
        let mut left = limit.map(|l| l as u64);
        let mut plan = Vec::new();
        for (i, f) in self.files.iter().enumerate() {
            if left == Some(0) {
                break;
            }
            let rows: u64 = f.row_groups.iter().sum();
            if skip >= rows {
                skip -= rows;
                continue;
            }
            let here = rows - skip;
            plan.push((
                i,
                Slice {
                    row_groups: None,
                    offset: skip as usize,
                    limit: left.map(|l| l as usize),
                },
            ));
            skip = 0;
            if let Some(l) = &mut left {
                *l = l.saturating_sub(here);
            }
        }
        plan
    }

    /// The last `n` rows of the table, as slices of its files that name
    /// only the row groups holding them: earlier row groups are not read.
    pub fn last(&self, n: usize) -> Vec<(usize, Slice)> {
        let mut need = n as u64;
        let mut plan = Vec::new();
        for (i, f) in self.files.iter().enumerate().rev() {
            if need == 0 {
                break;
            }
            let mut groups = Vec::new();
            let mut rows = 0u64;
            for (g, &r) in f.row_groups.iter().enumerate().rev() {
                if rows >= need {
                    break;
                }
                groups.push(g);
                rows += r;
            }
            groups.reverse();
            let offset = rows.saturating_sub(need);
            need -= rows.min(need);
            if groups.is_empty() {
                continue;
            }
            plan.push((
                i,
                Slice {
                    row_groups: Some(groups),
                    offset: offset as usize,
                    limit: None,
                },
            ));
        }
        plan.reverse();
        plan
    }

    /// The batches of `plan`'s slices, in order, in the table's schema.
    pub fn batches(
        self,
        plan: Vec<(usize, Slice)>,
    ) -> impl Iterator<Item = Result<RecordBatch, CliError>> {
        let Dataset {
            files,
            schema,
            options,
        } = self;
        // Each file is read once, by the plan's one slice of it.
        let mut files: Vec<Option<File>> = files.into_iter().map(Some).collect();
        plan.into_iter().flat_map(move |(i, slice)| {
            let file = files.get_mut(i).and_then(Option::take);
            let batches: Batches = match file {
                None => Box::new(std::iter::empty()),
                Some(file) => match read_file(file, slice, schema.clone(), &options) {
                    Ok(b) => b,
                    Err(e) => Box::new(std::iter::once(Err(e))),
                },
            };
            batches
        })
    }
}

type Batches = Box<dyn Iterator<Item = Result<RecordBatch, CliError>>>;

/// The batches of one file's slice, fitted to `schema`.
fn read_file(
    file: File,
    slice: Slice,
    schema: SchemaRef,
    options: &Options,
) -> Result<Batches, CliError> {
    let path = file.source.path.clone();
    let partitions = file.source.partitions.clone();
    if !file.has_columns {
        // None of the selected columns: only nulls (and partitions), as
        // many rows as the slice holds.
        let total: u64 = match &slice.row_groups {
            Some(g) => g
                .iter()
                .filter_map(|&g| file.row_groups.get(g))
                .sum::<u64>(),
            None => file.row_groups.iter().sum(),
        };
        let mut rows = total.saturating_sub(slice.offset as u64);
        if let Some(l) = slice.limit {
            rows = rows.min(l as u64);
        }
        let chunks = (0..rows).step_by(8192).map(move |start| {
            let n = (rows - start).min(8192) as usize;
            fit(&path, &schema, &partitions, None, n)
        });
        return Ok(Box::new(chunks));
    }
    let (reader, file_bytes, remote) = match file.opened {
        Some((reader, len)) => (reader, len, None),
        None => {
            let input = match file.memory {
                Some(m) => m,
                None => input::open_parquet(&path)?,
            };
            let file_bytes = input.len();
            let remote = match &input {
                Input::Remote(r) => Some(r.clone()),
                _ => None,
            };
            (read::open_input(&path, input, None)?, file_bytes, remote)
        }
    };
    let mut reader = read::select(&path, reader, file.columns.as_deref())?
        .with_offset(slice.offset)
        .with_threads(options.threads.max(1))
        .with_verify_checksums(options.verify_checksums);
    if let Some(g) = slice.row_groups {
        reader = reader.with_row_groups(g);
    }
    if let Some(l) = slice.limit {
        reader = reader.with_limit(l);
    }
    if let Some(p) = &options.predicate {
        reader = reader.with_predicate(p.clone());
    }
    let stats = options.read_stats.clone();
    let mut batches = match remote {
        None => FileBatches::Local(Box::new(
            reader.build().map_err(|e| CliError::file(&path, e))?,
        )),
        Some(remote) => {
            let stream = reader
                .into_stream_builder(remote.async_reader(), remote.fetch_options())
                .build()
                .map_err(|e| CliError::file(&path, e))?;
            FileBatches::Remote(Box::new(stream), remote)
        }
    };
    let mut done = false;
    Ok(Box::new(std::iter::from_fn(move || {
        if done {
            return None;
        }
        let next = batches.next_batch();
        if !matches!(next, Ok(Some(_))) {
            done = true;
            // The file's reading is over: its figures join the table's.
            if let Some(s) = &stats {
                let mut s = s.borrow_mut();
                let (requests, bytes) = batches.fetched();
                if batches.is_remote() {
                    s.remote.requests += requests;
                    s.remote.bytes += bytes;
                    s.remote.object_bytes += file_bytes;
                    s.remote.objects += 1;
                } else {
                    s.requests += requests;
                    s.bytes_read += bytes;
                    s.file_bytes += file_bytes;
                    s.files += 1;
                }
                if let Some(m) = batches.pruning_metrics() {
                    s.pruning += &m;
                }
            }
        }
        match next {
            Ok(Some(b)) => {
                let n = b.num_rows();
                Some(fit(&path, &schema, &partitions, Some(&b), n))
            }
            Ok(None) => None,
            Err(e) => Some(Err(CliError::file(&path, e))),
        }
    })))
}

/// A file's batches: a local file's from the sync reader, an object's
/// from the async one, run on the remote runtime.
enum FileBatches {
    Local(Box<pq_arrow::ParquetRecordBatchReader>),
    Remote(Box<pq_arrow::ParquetRecordBatchStream>, RemoteFile),
}

impl FileBatches {
    fn next_batch(&mut self) -> Result<Option<RecordBatch>, pq_arrow::Error> {
        match self {
            FileBatches::Local(r) => r.next_batch(),
            FileBatches::Remote(stream, _) => {
                use futures::StreamExt;
                crate::remote::block_on(stream.next())
                    .map_err(|e| pq_arrow::Error::Request {
                        message: e.to_string(),
                    })?
                    .transpose()
            }
        }
    }

    /// Requests made and bytes fetched (for a local file: reads and bytes
    /// read), the footer's included for an object.
    fn fetched(&self) -> (u64, u64) {
        match self {
            FileBatches::Local(r) => (r.requests(), r.bytes_read()),
            FileBatches::Remote(stream, remote) => {
                let (s, f) = (stream.fetch_stats(), remote.stats());
                (s.requests() + f.requests(), s.bytes() + f.bytes())
            }
        }
    }

    fn is_remote(&self) -> bool {
        matches!(self, FileBatches::Remote(..))
    }

    fn pruning_metrics(&self) -> Option<pq_arrow::predicate::PruningMetrics> {
        match self {
            FileBatches::Local(r) => r.pruning_metrics().cloned(),
            FileBatches::Remote(stream, _) => stream.pruning_metrics(),
        }
    }
}

/// A batch of `n` rows in `schema`: the file's columns by name, null
/// columns for those it lacks, partition values repeated.
fn fit(
    path: &Path,
    schema: &SchemaRef,
    partitions: &[(String, Option<String>)],
    batch: Option<&RecordBatch>,
    n: usize,
) -> Result<RecordBatch, CliError> {
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(schema.fields().len());
    for f in schema.fields() {
        let from_file = batch.and_then(|b| b.column_by_name(f.name()));
        let column = match from_file {
            Some(c) => c.clone(),
            None => match partitions.iter().find(|(k, _)| k == f.name()) {
                Some((_, Some(v))) => {
                    Arc::new(StringArray::from_iter_values(std::iter::repeat_n(v, n))) as ArrayRef
                }
                _ => new_null_array(f.data_type(), n),
            },
        };
        columns.push(column);
    }
    RecordBatch::try_new_with_options(
        schema.clone(),
        columns,
        &RecordBatchOptions::new().with_row_count(Some(n)),
    )
    .map_err(|e| CliError::file(path, e))
}

/// Merges the columns of `schema` (of `path`) into `fields` by name: a new
/// name is a new column, null in the files before; a name already there
/// must have the same type. Columns this file lacks are null in its rows.
fn merge_by_name(
    fields: &mut Vec<FieldRef>,
    first_seen: &mut Vec<PathBuf>,
    schema: &Schema,
    path: &Path,
) -> Result<(), CliError> {
    for f in schema.fields() {
        match fields.iter().position(|g| g.name() == f.name()) {
            Some(j) => {
                let (Some(g), Some(seen)) = (fields.get(j), first_seen.get(j)) else {
                    continue;
                };
                if g.data_type() != f.data_type() {
                    return Err(CliError::Message(format!(
                        "{} and {} cannot be merged: column {} in the first, {} in the second",
                        shown(seen),
                        shown(path),
                        describe(g),
                        describe(f)
                    )));
                }
            }
            None => {
                // The files before have no such column: null in their rows.
                fields.push(Arc::new(f.as_ref().clone().with_nullable(true)));
                first_seen.push(path.to_path_buf());
            }
        }
    }
    for f in fields.iter_mut() {
        let nullable_here = schema
            .field_with_name(f.name())
            .map_or(true, |here| here.is_nullable());
        if nullable_here && !f.is_nullable() {
            *f = Arc::new(f.as_ref().clone().with_nullable(true));
        }
    }
    Ok(())
}

/// Checks that `schema` (of `path`) has the same columns, names and types
/// as the first file's `fields`, naming both files and the first
/// difference; a column nullable in any file is nullable in the table.
fn same_columns(
    fields: &mut [FieldRef],
    first: &Path,
    schema: &Schema,
    path: &Path,
) -> Result<(), CliError> {
    compare(first, fields, schema, path)?;
    for (g, f) in fields.iter_mut().zip(schema.fields()) {
        if f.is_nullable() && !g.is_nullable() {
            *g = Arc::new(g.as_ref().clone().with_nullable(true));
        }
    }
    Ok(())
}

/// The first difference between the first file's `fields` and `schema`
/// (of `path`), as an error naming both files.
fn compare(
    first: &Path,
    fields: &[FieldRef],
    schema: &Schema,
    path: &Path,
) -> Result<(), CliError> {
    let first = shown(first);
    let other = shown(path);
    let hint = "(--union-by-name merges columns by name)";
    let n = fields.len().max(schema.fields().len());
    for j in 0..n {
        let difference = match (fields.get(j), schema.fields().get(j)) {
            (Some(a), Some(b)) if a.name() == b.name() && a.data_type() == b.data_type() => {
                continue;
            }
            (Some(a), Some(b)) => format!(
                "column {} is {} in the first, {} in the second",
                j + 1,
                describe(a),
                describe(b)
            ),
            (Some(a), None) => format!("the second has no column {}, {}", j + 1, describe(a)),
            (None, Some(b)) => format!("the second has an extra column {}", describe(b)),
            (None, None) => continue,
        };
        return Err(CliError::Message(format!(
            "{first} and {other} have different schemas: {difference} {hint}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    /// The first file is read through the reader that opened it: its rows
    /// are read even once its path is gone, so neither the file nor its
    /// footer was opened again. A second file is opened when reached.
    #[test]
    fn the_first_file_is_read_through_the_reader_that_opened_it() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data");
        let dir = std::env::temp_dir().join(format!("pq-dataset-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.parquet"), dir.join("b.parquet"));
        for p in [&a, &b] {
            std::fs::copy(data.join("all_types_plain_v1.parquet"), p).unwrap();
        }
        let source = |path: &Path| Source {
            path: path.to_path_buf(),
            partitions: Vec::new(),
        };
        let table = Dataset::open(vec![source(&a), source(&b)], Options::default()).unwrap();
        let plan = table.range(0, None);
        let rows_each = table.num_rows() / 2;
        std::fs::remove_file(&a).unwrap();
        std::fs::remove_file(&b).unwrap();
        let mut batches = table.batches(plan);
        let mut first = 0;
        let err = loop {
            match batches.next() {
                Some(Ok(batch)) => first += batch.num_rows() as u64,
                Some(Err(e)) => break e,
                None => panic!("the second file's path is gone: its read must fail"),
            }
        };
        assert_eq!(first, rows_each);
        assert!(err.to_string().contains("b.parquet"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
