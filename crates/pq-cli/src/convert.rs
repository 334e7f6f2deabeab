//! `pq convert`: Parquet to CSV, JSON lines, Arrow IPC or Parquet, and CSV
//! to Parquet. How the output is written (replacing a file through a
//! temporary one, or writing through to standard output, a FIFO or a
//! device) is `dest.rs`'s job.

use std::io::{BufWriter, IsTerminal, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Schema, SchemaRef};
use pq_arrow::write::{Codec, DataPageVersion, Encoding, is_preview_encoding};
use pq_arrow::{ParquetWriter, WriterOptions};

use crate::cat;
use crate::csv_blocks;
use crate::csv_in;
use crate::dataset::{self, Dataset};
use crate::dest::{self, Destination, Target};
use crate::error::CliError;
use crate::input::{self, Input};
use crate::sources;

/// Compression codecs of `--compression`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Compression {
    /// No compression.
    #[value(name = "none", alias = "uncompressed")]
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

/// The codec when `--compression` is not given: snappy, the default of
/// pyarrow and DuckDB, fast to write and to read and known to every Parquet
/// reader. Files written uncompressed were twice the size of their input.
pub const DEFAULT_COMPRESSION: Compression = Compression::Snappy;

/// Writer settings from the command line.
#[derive(Debug, Default)]
pub struct ConvertArgs {
    /// `--union-by-name`: merge inputs whose schemas differ.
    pub union_by_name: bool,
    /// `--compression`.
    pub compression: Option<Compression>,
    /// `--compression-level`.
    pub compression_level: Option<i32>,
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
    /// `--bloom-filter COLUMN[=NDV]`.
    pub bloom_filters: Vec<String>,
    /// `--dtypes col=TYPE` for CSV input.
    pub dtypes: Vec<String>,
    /// `--allow-preview-encodings`: lets `--encodings` name a Preview
    /// encoding (ALP), which some readers cannot read.
    pub allow_preview_encodings: bool,
    /// The CSV dialect and reading options.
    pub csv: csv_in::CsvArgs,
}

/// Output formats: by extension, or `--to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// Parquet.
    Parquet,
    /// CSV with a header line.
    Csv,
    /// One JSON object per line.
    Jsonl,
    /// An Arrow IPC file.
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
        .ok_or_else(|| CliError::Usage(format!("{what} '{s}': expected COLUMN=VALUE")))
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
            return Err(CliError::Usage(format!(
                "unknown encoding '{other}'; encodings are: plain, rle, delta_binary_packed, \
                 delta_length_byte_array, delta_byte_array, byte_stream_split, alp"
            )));
        }
    })
}

impl ConvertArgs {
    fn writer_options(&self) -> Result<WriterOptions, CliError> {
        let mut o = WriterOptions::builder();
        let codec = match self.compression.unwrap_or(DEFAULT_COMPRESSION) {
            Compression::Uncompressed => Codec::Uncompressed,
            Compression::Snappy => Codec::Snappy,
            Compression::Gzip => Codec::Gzip,
            Compression::Zstd => Codec::Zstd,
            Compression::Lz4 => Codec::Lz4Raw,
            Compression::Brotli => Codec::Brotli,
        };
        o = o.set_compression(codec);
        if let Some(level) = self.compression_level {
            // Checked here, before any input is read, by the check the
            // writer makes (which would only fail at the first page).
            let why = match codec.check_level(Some(level)) {
                Ok(_) => None,
                Err(pq_compress::Error::LevelNotSupported { .. }) => Some(format!(
                    "{} has no levels (gzip, zstd and brotli do)",
                    codec.name()
                )),
                Err(pq_compress::Error::InvalidLevel { min, max, .. }) => {
                    Some(format!("{} levels are {min} to {max}", codec.name()))
                }
                Err(e) => Some(e.to_string()),
            };
            if let Some(why) = why {
                return Err(CliError::Usage(format!(
                    "--compression-level {level}: {why}"
                )));
            }
            o = o.set_compression_level(Some(level));
        }
        if let Some(d) = self.dictionary {
            o = o.set_dictionary_enabled(d);
        }
        match self.page_version {
            None | Some(1) => {}
            Some(2) => o = o.set_writer_version(DataPageVersion::V2),
            Some(v) => {
                return Err(CliError::Usage(format!(
                    "--page-version {v}: expected 1 or 2"
                )));
            }
        }
        if let Some(rows) = self.rows_per_page {
            o = o.set_data_page_row_count_limit(rows);
        }
        if let Some(rows) = self.rows_per_group {
            o = o.set_max_row_group_size(rows);
        }
        for e in &self.encodings {
            let (col, enc) = split_pair("--encodings", e)?;
            let enc = encoding(enc)?;
            if is_preview_encoding(enc) && !self.allow_preview_encodings {
                return Err(CliError::Usage(format!(
                    "--encodings {e}: {enc} for column '{col}' is a Preview encoding that \
                     pyarrow 26 and DuckDB 2.0 cannot read; add --allow-preview-encodings \
                     to write it"
                )));
            }
            // On the command line a nested column is written with dots.
            let path = pq_format::ColumnPath::from(col.split('.').collect::<Vec<_>>().as_slice());
            o = o
                .set_column_encoding(path.clone(), enc)
                .set_column_dictionary_enabled(path, false);
        }
        for b in &self.bloom_filters {
            let (col, ndv) = match b.split_once('=') {
                Some((col, n)) => {
                    let ndv = n.parse::<u64>().ok().filter(|&n| n > 0).ok_or_else(|| {
                        CliError::Usage(format!(
                            "--bloom-filter {b}: '{n}' is not a positive count of distinct values"
                        ))
                    })?;
                    (col, Some(ndv))
                }
                None => (b.as_str(), None),
            };
            if col.is_empty() {
                return Err(CliError::Usage(format!("--bloom-filter '{b}': no column")));
            }
            let path = pq_format::ColumnPath::from(col.split('.').collect::<Vec<_>>().as_slice());
            o = match ndv {
                Some(n) => o.set_column_bloom_filter_ndv(path, n),
                None => o.set_column_bloom_filter_enabled(path, true),
            };
        }
        Ok(o.set_allow_preview_encodings(self.allow_preview_encodings)
            .build())
    }
}

/// Where batches go.
enum Sink {
    Parquet(Box<ParquetWriter<BufWriter<Target>>>),
    Csv(BufWriter<Target>),
    Jsonl(arrow_json::LineDelimitedWriter<BufWriter<Target>>),
    Arrow(Box<arrow_ipc::writer::FileWriter<BufWriter<Target>>>),
}

impl Sink {
    fn new(
        kind: Kind,
        file: Target,
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
            Kind::Jsonl => Sink::Jsonl(cat::json_writer(w)),
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
                let b = crate::jsonable::batch(&b).map_err(|e| e.to_string())?;
                w.write(&b).map_err(|e| e.to_string())
            }
            Sink::Arrow(w) => w
                .write(&plain_dictionaries(batch).map_err(|e| e.to_string())?)
                .map_err(|e| e.to_string()),
        }
    }

    fn finish(self) -> Result<Target, String> {
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
        w.into_inner().map_err(|e| e.error().to_string())
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

/// Whether a name says CSV.
fn is_csv_name(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"))
}

/// Whether the input is CSV: by its `.csv` extension, or, for standard
/// input or a stream (whose names say nothing), by its first bytes not
/// being Parquet's magic number.
fn csv_input(path: &Path, data: &mut Input) -> Result<bool, CliError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    Ok(match ext.as_deref() {
        Some("csv") => true,
        Some("parquet" | "pq") => false,
        _ if input::is_stdio(path) || data.memory().is_some() => {
            let mut magic = [0u8; 4];
            let read = data
                .seek(SeekFrom::Start(0))
                .and_then(|_| data.read(&mut magic))
                .and_then(|n| data.seek(SeekFrom::Start(0)).map(|_| n))
                .map_err(|e| CliError::file(path, format!("reading: {e}")))?;
            magic.get(..read) != Some(b"PAR1".as_slice())
        }
        _ => false,
    })
}

/// Converts the inputs (all of `paths` but the last) to the last, in the
/// format `to`, or else the one of the output's extension.
pub fn run(paths: &[PathBuf], to: Option<Kind>, args: &ConvertArgs) -> Result<(), CliError> {
    let [inputs @ .., output] = paths else {
        return Err(CliError::Usage(
            "convert needs an input and an output".into(),
        ));
    };
    let output = output.as_path();
    if crate::remote::is_url(output) {
        return Err(CliError::output(
            output,
            "pq writes local files only, not objects in stores (write a file, then upload it)",
        )
        .usage());
    }
    let Some(out_kind) = to.or_else(|| kind(output)) else {
        return Err(CliError::output(
            output,
            "unknown output format: name it .parquet, .csv, .jsonl or .arrow, or give --to",
        )
        .usage());
    };
    let options = args.writer_options()?;
    let dtypes = args
        .dtypes
        .iter()
        .map(|d| {
            let (col, ty) = split_pair("--dtypes", d)?;
            Ok((col.to_string(), csv_in::dtype(ty)?))
        })
        .collect::<Result<Vec<_>, CliError>>()?;

    let sources = sources::expand(inputs)?;
    let input_path = match sources.as_slice() {
        [one] => one.path.clone(),
        _ => {
            if let Some(csv) = sources.iter().find(|s| is_csv_name(&s.path)) {
                return Err(CliError::Usage(format!(
                    "{}: CSV input converts one file at a time",
                    csv.path.display()
                )));
            }
            return convert_table(sources, None, output, out_kind, options, args);
        }
    };
    let input = input_path.as_path();
    // Open the input first: its errors come before any output is created.
    let mut data = input::open(input)?;
    if data.is_empty() {
        return Err(CliError::file(
            input,
            "is empty: neither a Parquet file nor a CSV file with a header line",
        ));
    }
    let csv_in = csv_input(input, &mut data)?;
    if csv_in && out_kind != Kind::Parquet {
        return Err(CliError::output(output, "CSV input converts only to .parquet").usage());
    }
    if !csv_in && (!args.dtypes.is_empty() || args.csv.any()) {
        return Err(CliError::Usage(
            "--dtypes and the CSV options apply only to CSV input".into(),
        ));
    }
    if !csv_in {
        return convert_table(sources, Some(data), output, out_kind, options, args);
    }
    let len = data.len();
    let plan = csv_in::plan(input, &mut data, &dtypes, &args.csv)?;
    let schema = plan.schema.clone();
    let threads = threads(args)?;
    // The writer encodes the columns on as many threads as parse: with
    // one writing thread, encoding was the slowest stage.
    let options = options.into_builder().set_threads(threads).build();
    let read = Arc::new(AtomicU64::new(0));
    let batches = csv_blocks::batches(input, data, plan, threads, read.clone());
    let batches = batches.map(|b| b.map_err(|e| CliError::file(input, e)));
    write(
        schema,
        batches,
        output,
        out_kind,
        options,
        Progress::new(len, true),
        Count::Bytes(read),
    )
}

/// `--threads`, or one per core.
fn threads(args: &ConvertArgs) -> Result<usize, CliError> {
    match args.csv.threads {
        Some(0) => Err(CliError::Usage("--threads: at least 1".into())),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// Converts Parquet inputs, read as one table (the first already open when
/// it is standard input).
fn convert_table(
    sources: Vec<sources::Source>,
    first: Option<Input>,
    output: &Path,
    out_kind: Kind,
    options: WriterOptions,
    args: &ConvertArgs,
) -> Result<(), CliError> {
    if !args.dtypes.is_empty() || args.csv.any() {
        return Err(CliError::Usage(
            "--dtypes and the CSV options apply only to CSV input".into(),
        ));
    }
    let table = Dataset::open_with(
        sources,
        first,
        dataset::Options {
            union_by_name: args.union_by_name,
            ..Default::default()
        },
    )?;
    let rows = table.num_rows();
    let schema = table.schema();
    let plan = table.range(0, None);
    // Reading takes one thread; the writer's encoding is the larger part
    // of a rewrite, and gets every core.
    let options = options.into_builder().set_threads(threads(args)?).build();
    write(
        schema,
        table.batches(plan),
        output,
        out_kind,
        options,
        Progress::new(rows, false),
        Count::Rows,
    )
}

/// What the progress bar counts.
enum Count {
    /// Rows written.
    Rows,
    /// Bytes of the input whose rows were written, as the reader reports.
    Bytes(Arc<AtomicU64>),
}

/// Writes `batches` to `output`, as `out_kind`, the progress bar counting
/// as `count` says.
fn write(
    schema: SchemaRef,
    mut batches: impl Iterator<Item = Result<RecordBatch, CliError>>,
    output: &Path,
    out_kind: Kind,
    options: WriterOptions,
    mut progress: Progress,
    count: Count,
) -> Result<(), CliError> {
    let (dest, target) = Destination::open(output)?;
    let out_err = |e: String| {
        if dest::stdout_closed() {
            CliError::BrokenPipe
        } else {
            CliError::output(output, e)
        }
    };
    let mut sink = Sink::new(out_kind, target, schema, options).map_err(out_err)?;
    let mut done = 0u64;
    for batch in batches.by_ref() {
        let batch = batch?;
        sink.write(output, &batch).map_err(out_err)?;
        match &count {
            Count::Rows => done += batch.num_rows() as u64,
            Count::Bytes(read) => done = read.load(Ordering::Relaxed),
        }
        progress.set(done);
    }
    let target = sink.finish().map_err(out_err)?;
    dest.commit(target)?;
    progress.done();
    Ok(())
}
