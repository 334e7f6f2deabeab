//! `pq convert`: Parquet to CSV, JSON lines, Arrow IPC or Parquet, and CSV
//! to Parquet. Writes a temporary file next to the output and renames it at
//! the end, so a failed conversion leaves no partial output.

use std::fs::File;
use std::io::{BufWriter, IsTerminal};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use pq_arrow::write::{Codec, ColumnOptions, DataPageVersion, Encoding, is_preview_encoding};
use pq_arrow::{ParquetWriter, WriterOptions};

use crate::cat;
use crate::error::CliError;
use crate::read;

/// Compression codecs of `--compression`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Compression {
    /// No compression.
    Uncompressed,
    /// Snappy.
    Snappy,
    /// Gzip.
    Gzip,
    /// Zstandard.
    Zstd,
    /// LZ4 (written as LZ4_RAW).
    Lz4,
    /// Brotli.
    Brotli,
}

/// Writer settings from the command line.
#[derive(Debug, Default)]
pub struct ConvertArgs {
    /// `--compression`.
    pub compression: Option<Compression>,
    /// `--dictionary` (true) or `--no-dictionary` (false).
    pub dictionary: Option<bool>,
    /// `--encodings col=ENC`.
    pub encodings: Vec<String>,
    /// `--page-version 1|2`.
    pub page_version: Option<u8>,
    /// `--rows-per-page`.
    pub rows_per_page: Option<usize>,
    /// `--rows-per-group`.
    pub rows_per_group: Option<usize>,
    /// `--dtypes col=TYPE` for CSV input.
    pub dtypes: Vec<String>,
    /// `--allow-preview-encodings`: lets `--encodings` name a Preview
    /// encoding (ALP), which some readers cannot read.
    pub allow_preview_encodings: bool,
}

/// Output formats, by extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Parquet,
    Csv,
    Jsonl,
    Arrow,
}

fn kind(path: &Path) -> Option<Kind> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "parquet" | "pq" => Some(Kind::Parquet),
        "csv" => Some(Kind::Csv),
        "jsonl" | "ndjson" => Some(Kind::Jsonl),
        "arrow" | "ipc" | "feather" => Some(Kind::Arrow),
        _ => None,
    }
}

fn split_pair<'a>(what: &str, s: &'a str) -> Result<(&'a str, &'a str), CliError> {
    s.split_once('=')
        .filter(|(k, v)| !k.is_empty() && !v.is_empty())
        .ok_or_else(|| CliError::Message(format!("{what} '{s}': expected COLUMN=VALUE")))
}

fn encoding(name: &str) -> Result<Encoding, CliError> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "plain" => Encoding::PLAIN,
        "rle" => Encoding::RLE,
        "delta_binary_packed" => Encoding::DELTA_BINARY_PACKED,
        "delta_length_byte_array" => Encoding::DELTA_LENGTH_BYTE_ARRAY,
        "delta_byte_array" => Encoding::DELTA_BYTE_ARRAY,
        "byte_stream_split" => Encoding::BYTE_STREAM_SPLIT,
        "alp" => Encoding::ALP,
        other => {
            return Err(CliError::Message(format!(
                "unknown encoding '{other}'; encodings are: plain, rle, delta_binary_packed, \
                 delta_length_byte_array, delta_byte_array, byte_stream_split, alp"
            )));
        }
    })
}

fn dtype(name: &str) -> Result<DataType, CliError> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "boolean" | "bool" => DataType::Boolean,
        "int32" => DataType::Int32,
        "int64" => DataType::Int64,
        "float" => DataType::Float32,
        "double" => DataType::Float64,
        "string" => DataType::Utf8,
        "date" => DataType::Date32,
        "timestamp" => DataType::Timestamp(TimeUnit::Microsecond, None),
        other => {
            return Err(CliError::Message(format!(
                "unknown type '{other}'; types are: boolean, int32, int64, float, double, \
                 string, date, timestamp"
            )));
        }
    })
}

impl ConvertArgs {
    fn writer_options(&self) -> Result<WriterOptions, CliError> {
        let mut o = WriterOptions::new();
        if let Some(c) = self.compression {
            let codec = match c {
                Compression::Uncompressed => Codec::Uncompressed,
                Compression::Snappy => Codec::Snappy,
                Compression::Gzip => Codec::Gzip,
                Compression::Zstd => Codec::Zstd,
                Compression::Lz4 => Codec::Lz4Raw,
                Compression::Brotli => Codec::Brotli,
            };
            o = o.with_compression(codec, None);
        }
        if let Some(d) = self.dictionary {
            o = o.with_dictionary(d);
        }
        match self.page_version {
            None | Some(1) => {}
            Some(2) => o = o.with_data_page_version(DataPageVersion::V2),
            Some(v) => {
                return Err(CliError::Message(format!(
                    "--page-version {v}: expected 1 or 2"
                )));
            }
        }
        if let Some(rows) = self.rows_per_page {
            o.data_page_rows = rows.max(1);
        }
        if let Some(rows) = self.rows_per_group {
            o.max_row_group_rows = rows.max(1);
        }
        for e in &self.encodings {
            let (col, enc) = split_pair("--encodings", e)?;
            let enc = encoding(enc)?;
            if is_preview_encoding(enc) && !self.allow_preview_encodings {
                return Err(CliError::Message(format!(
                    "--encodings {e}: {enc} for column '{col}' is a Preview encoding that \
                     pyarrow 26 and DuckDB 2.0 cannot read; add --allow-preview-encodings \
                     to write it"
                )));
            }
            o = o.with_column(col, ColumnOptions::new().with_encoding(enc));
        }
        o = o.with_preview_encodings(self.allow_preview_encodings);
        Ok(o)
    }
}

/// Where batches go.
enum Sink {
    Parquet(Box<ParquetWriter<BufWriter<File>>>),
    Csv(BufWriter<File>),
    Jsonl(arrow_json::LineDelimitedWriter<BufWriter<File>>),
    Arrow(Box<arrow_ipc::writer::FileWriter<BufWriter<File>>>),
}

impl Sink {
    fn new(
        kind: Kind,
        file: File,
        schema: SchemaRef,
        options: WriterOptions,
    ) -> Result<Self, String> {
        let w = BufWriter::with_capacity(1 << 20, file);
        Ok(match kind {
            Kind::Parquet => Sink::Parquet(Box::new(
                ParquetWriter::try_new(w, schema, options).map_err(|e| e.to_string())?,
            )),
            Kind::Csv => {
                let mut w = w;
                cat::write_csv_header(&schema, &mut w).map_err(|e| e.to_string())?;
                Sink::Csv(w)
            }
            Kind::Jsonl => Sink::Jsonl(arrow_json::LineDelimitedWriter::new(w)),
            Kind::Arrow => Sink::Arrow(Box::new(
                arrow_ipc::writer::FileWriter::try_new_with_options(
                    w,
                    &plain_schema(&schema),
                    arrow_ipc::writer::IpcWriteOptions::default(),
                )
                .map_err(|e| e.to_string())?,
            )),
        })
    }

    fn write(&mut self, path: &Path, batch: &RecordBatch) -> Result<(), String> {
        match self {
            Sink::Parquet(w) => w.write(batch).map_err(|e| e.to_string()),
            Sink::Csv(w) => cat::displayable(path, batch.clone())
                .and_then(|b| cat::write_csv(path, &b, w))
                .map_err(|e| e.to_string()),
            Sink::Jsonl(w) => {
                let b = cat::displayable(path, batch.clone()).map_err(|e| e.to_string())?;
                w.write(&b).map_err(|e| e.to_string())
            }
            Sink::Arrow(w) => w
                .write(&plain_dictionaries(batch).map_err(|e| e.to_string())?)
                .map_err(|e| e.to_string()),
        }
    }

    fn finish(self) -> Result<(), String> {
        let w = match self {
            Sink::Parquet(w) => w.close_into_inner().map_err(|e| e.to_string())?.0,
            Sink::Csv(w) => w,
            Sink::Jsonl(mut w) => {
                w.finish().map_err(|e| e.to_string())?;
                w.into_inner()
            }
            Sink::Arrow(mut w) => {
                w.finish().map_err(|e| e.to_string())?;
                w.into_inner().map_err(|e| e.to_string())?
            }
        };
        let file = w.into_inner().map_err(|e| e.error().to_string())?;
        file.sync_all().map_err(|e| e.to_string())
    }
}

/// `schema` with top-level dictionary columns as their value type: an
/// Arrow IPC file holds one dictionary per field, and each Parquet row group
/// has its own.
fn plain_schema(schema: &Schema) -> Schema {
    Schema::new_with_metadata(
        schema
            .fields()
            .iter()
            .map(|f| match f.data_type() {
                DataType::Dictionary(_, v) => f.as_ref().clone().with_data_type(v.as_ref().clone()),
                _ => f.as_ref().clone(),
            })
            .collect::<Vec<_>>(),
        schema.metadata().clone(),
    )
}

/// `batch` with top-level dictionary columns cast to their value type.
fn plain_dictionaries(batch: &RecordBatch) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let schema = Arc::new(plain_schema(&batch.schema()));
    let columns = batch
        .columns()
        .iter()
        .zip(schema.fields())
        .map(|(c, f)| arrow_cast::cast(c, f.data_type()))
        .collect::<Result<Vec<_>, _>>()?;
    RecordBatch::try_new(schema, columns)
}

/// A temporary file next to the output, removed unless kept.
struct Temp {
    path: PathBuf,
    keep: bool,
}

impl Drop for Temp {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// A progress bar on stderr, shown only on a terminal after a moment.
struct Progress {
    bar: indicatif::ProgressBar,
    start: Instant,
    shown: bool,
    terminal: bool,
}

impl Progress {
    fn new(total: u64, bytes: bool) -> Self {
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(total),
            indicatif::ProgressDrawTarget::hidden(),
        );
        let template = if bytes {
            "{bar:40} {bytes}/{total_bytes} {elapsed}"
        } else {
            "{bar:40} {human_pos}/{human_len} rows {elapsed}"
        };
        if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
            bar.set_style(style);
        }
        Progress {
            bar,
            start: Instant::now(),
            shown: false,
            terminal: std::io::stderr().is_terminal(),
        }
    }

    fn set(&mut self, pos: u64) {
        self.bar.set_position(pos);
        if self.terminal && !self.shown && self.start.elapsed() > Duration::from_millis(500) {
            self.bar
                .set_draw_target(indicatif::ProgressDrawTarget::stderr());
            self.shown = true;
        }
    }

    fn done(self) {
        self.bar.finish_and_clear();
    }
}

/// Converts `input` to `output` by their extensions.
pub fn run(input: &Path, output: &Path, args: &ConvertArgs) -> Result<(), CliError> {
    let Some(out_kind) = kind(output) else {
        return Err(CliError::file(
            output,
            "unknown output format: use .parquet, .csv, .jsonl or .arrow",
        ));
    };
    let csv_in = input
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    if csv_in && out_kind != Kind::Parquet {
        return Err(CliError::file(
            output,
            "CSV input converts only to .parquet",
        ));
    }
    if !csv_in && !args.dtypes.is_empty() {
        return Err(CliError::Message(
            "--dtypes applies only to CSV input".into(),
        ));
    }
    let options = args.writer_options()?;

    // Open the input first: its errors come before any output is created.
    let (schema, mut batches, mut progress): (
        SchemaRef,
        Box<dyn Iterator<Item = Result<RecordBatch, String>>>,
        Progress,
    ) = if csv_in {
        let (schema, reader, len) = csv_reader(input, &args.dtypes)?;
        (schema, reader, Progress::new(len, true))
    } else {
        let reader = read::open(input, None)?;
        let rows = reader.num_rows();
        let batches = reader.build().map_err(|e| CliError::file(input, e))?;
        let schema = batches.schema();
        (
            schema,
            Box::new(batches.map(|b| b.map_err(|e| e.to_string()))),
            Progress::new(rows, false),
        )
    };

    let dir = match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = Temp {
        path: dir.join(format!(".{name}.pq-tmp-{}", std::process::id())),
        keep: false,
    };
    let file = File::create(&temp.path)
        .map_err(|e| CliError::file(output, format!("cannot write: {e}")))?;
    let mut sink =
        Sink::new(out_kind, file, schema, options).map_err(|e| CliError::file(output, e))?;
    let mut done = 0u64;
    for batch in batches.by_ref() {
        let batch = batch.map_err(|e| CliError::file(input, e))?;
        sink.write(output, &batch)
            .map_err(|e| CliError::file(output, e))?;
        done += if csv_in { 0 } else { batch.num_rows() as u64 };
        if !csv_in {
            progress.set(done);
        }
    }
    sink.finish().map_err(|e| CliError::file(output, e))?;
    std::fs::rename(&temp.path, output)
        .map_err(|e| CliError::file(output, format!("cannot write: {e}")))?;
    progress.done();
    Ok(())
}

type Batches = Box<dyn Iterator<Item = Result<RecordBatch, String>>>;

/// A CSV reader with types inferred over the whole file, except those
/// `--dtypes` gives; the file's size for progress.
fn csv_reader(path: &Path, dtypes: &[String]) -> Result<(SchemaRef, Batches, u64), CliError> {
    let file = crate::input::open(path)?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let format = arrow_csv::reader::Format::default().with_header(true);
    let (inferred, _) = format
        .infer_schema(&file, None)
        .map_err(|e| CliError::file(path, e))?;
    let mut fields: Vec<Field> = inferred
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    for d in dtypes {
        let (col, ty) = split_pair("--dtypes", d)?;
        let ty = dtype(ty)?;
        let Some(f) = fields.iter_mut().find(|f| f.name() == col) else {
            let names: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
            return Err(CliError::file(
                path,
                format!("no column '{col}'; columns are: {}", names.join(", ")),
            ));
        };
        *f = f.clone().with_data_type(ty);
    }
    let schema = Arc::new(Schema::new(fields));
    let file = crate::input::open(path)?;
    let reader = arrow_csv::ReaderBuilder::new(schema.clone())
        .with_header(true)
        .with_batch_size(8192)
        .build(file)
        .map_err(|e| CliError::file(path, e))?;
    Ok((
        schema,
        Box::new(reader.map(|b| b.map_err(|e| e.to_string()))),
        len,
    ))
}
