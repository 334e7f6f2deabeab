//! The `pq` command: look inside Parquet files, read them, convert them.
//!
//! Every command streams: it reads the footer, then one column chunk or one
//! batch at a time, so files far larger than memory work (a pipe or standard
//! input, which cannot seek to the footer, is read into memory first; see
//! `input.rs`). Errors print one
//! line on stderr naming the file and what is wrong, and exit with status 1;
//! usage errors exit with status 2. No panic reaches the user.
//!
//! Every reading command takes several inputs: files, directories (their
//! Parquet files, sorted, with hive-style `key=value` directories as string
//! columns) and quoted globs, which pq expands itself (`sources.rs`), so a
//! pattern works the same from any shell, from scripts that pass arguments
//! without a shell, and past the length limit of a command line. The files
//! are read as one table (`dataset.rs`): one schema, checked or merged by
//! name, and only the files and row groups that hold the rows asked for.
//!
//! Dependencies beyond the pq crates: `clap` (argument parsing with derive),
//! `clap_complete` and `clap_mangen` (shell completions and the manual
//! page, generated from the same definitions as the parser, so they never
//! drift from it; clap's `string` feature names each command's page),
//! `glob` (the quoted patterns: the small, dependency-free matcher of the
//! rust-lang organisation, rather than a matcher of pq's own to test),
//! `serde_json` (`--json` output), `arrow-cast` (value formatting),
//! `arrow-json`, `arrow-csv` and `arrow-ipc` (output and input formats),
//! `indicatif` (the progress bar of `convert`), `signal-hook` (removing the
//! temporary file of `convert` on SIGINT, SIGTERM and SIGHUP: it hands the
//! signal's number to an ordinary thread, where removing a file is safe and
//! the exit status can be 128 + that number; `ctrlc` tells its handler
//! nothing of which signal came), `libc` (asking whether the process that
//! left a temporary file still runs; `signal-hook` depends on it already),
//! `chrono` (statistics shown as dates and ISO 8601 timestamps, and CSV's
//! `--timestamp-format`; arrow depends on it already), `base64` (decoding
//! the `ARROW:schema` entry of `meta`; arrow-rs's writer depends on it
//! already), `unicode-width` (the terminal columns a character takes, so
//! table borders line up around CJK text and emoji; indicatif depends on it
//! already), `arrow-row` (`stats --exact`: any column's values as bytes
//! that order as a sort does, for min, max and distinct counts of every
//! type alike; arrow's sort kernels depend on it) and `regex` (the `--null`
//! strings of CSV input, in the form arrow-csv takes them; arrow-csv
//! depends on it).
//! The arrow-rs `parquet` reader is a dependency of this binary solely for
//! `pq verify`, which compares pq's reading with it; no library crate
//! depends on it.
//!
//! Arrow's `chrono-tz` feature is off, so timestamps in named time zones
//! (`UTC`, `Europe/Paris`) are printed in UTC with a `+00:00` offset.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand};

mod arrow_hint;
mod cat;
mod convert;
mod count;
mod csv_blocks;
mod csv_error;
mod csv_in;
mod dataset;
mod ddl;
mod dest;
mod error;
mod input;
mod json;
mod jsonable;
mod man;
mod meta;
mod output;
mod pages;
mod read;
mod remote;
mod scan;
mod schema;
mod schema_json;
mod signals;
mod sources;
mod sql;
mod stats;
mod values;
mod verify;

use error::CliError;

/// Look inside Parquet files, read them and convert them.
#[derive(Debug, Parser)]
#[command(name = "pq", version, about, max_term_width = 100, after_help = URL_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The endpoint of an S3-compatible or Azure store, for s3:// and az://
    /// inputs (also AWS_ENDPOINT_URL); http:// endpoints are allowed.
    #[arg(long, global = true, value_name = "URL")]
    endpoint: Option<String>,
    /// Sends requests to object stores unsigned (public buckets): no
    /// credentials are looked for.
    #[arg(long, global = true)]
    no_sign_request: bool,
    /// The longest one request to an object store may take, in seconds
    /// (default 30); a request that takes longer is retried.
    #[arg(long, global = true, value_name = "SECONDS", value_parser = parse_seconds)]
    timeout: Option<std::time::Duration>,
    /// Retries of a request to an object store that failed in a way that
    /// may pass: a timeout, a reset, a server error (default 3).
    #[arg(long, global = true, value_name = "N")]
    retries: Option<u32>,
}

/// What `pq --help` says of URL inputs.
const URL_HELP: &str = "\
Inputs may be URLs of objects: s3://bucket/key, gs://bucket/key, az://container/key (or
abfs[s]://), http://host/path and https://host/path. Each URL names one object: globs and
directories (prefixes) of URLs are not read, but in `pq sql` (s3://bucket/table/ and
s3://bucket/table/*.parquet are tables of every object listed there). Data is fetched by byte ranges, each request timed
out (--timeout) and retried (--retries); `pq scan` reports the requests made.

Credentials and settings come from the environment, as the object_store crate reads them:
  S3:    AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION,
         AWS_ENDPOINT_URL (or AWS_ENDPOINT, or --endpoint; an http:// endpoint is allowed),
         AWS_ALLOW_HTTP=true
  GCS:   GOOGLE_APPLICATION_CREDENTIALS or GOOGLE_SERVICE_ACCOUNT (a key file)
  Azure: AZURE_STORAGE_ACCOUNT_NAME, AZURE_STORAGE_ACCOUNT_KEY
--no-sign-request reads public buckets without credentials.";

/// `--timeout`'s seconds (a fraction allowed) as a duration.
fn parse_seconds(text: &str) -> Result<std::time::Duration, String> {
    text.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0)
        .and_then(|s| std::time::Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("'{text}' is not a number of seconds above 0"))
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Shell completions for bash, zsh, fish, elvish or PowerShell, from
    /// the same definitions as the commands themselves.
    ///
    /// Example: pq completions bash > /etc/bash_completion.d/pq
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// The manual page, in roff: pq(1), or a command's own page.
    ///
    /// Example: pq man cat > pq-cat.1 && man ./pq-cat.1
    Man {
        /// The command whose page to print (pq-COMMAND(1)).
        command: Option<String>,
    },
    /// File metadata: a summary (rows, row groups, columns, sizes, codecs,
    /// writer), key-value metadata (the ARROW:schema entry decoded), then
    /// every row group and column chunk with encodings, codec, sizes and
    /// statistics in the column's logical type.
    ///
    /// Example: pq meta data/sample.parquet --json
    Meta {
        /// Parquet files, quoted globs ('data/*.parquet') or directories;
        /// `-` (or a pipe) is read from standard input.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The Parquet schema tree: repetition, physical and logical types and
    /// max levels of every node.
    ///
    /// Example: pq schema data/sample.parquet
    Schema {
        /// Parquet files, quoted globs ('data/*.parquet') or directories;
        /// `-` (or a pipe) is read from standard input.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// JSON: the Parquet tree (physical, logical and converted types,
        /// repetition, levels) and the Arrow schema it is read as.
        #[arg(long, conflicts_with = "ddl")]
        json: bool,
        /// SQL: a CREATE TABLE with the nearest SQL types (DuckDB's names).
        #[arg(long)]
        ddl: bool,
    },
    /// Every page of every column chunk: type, encoding, sizes, values,
    /// nulls, level encodings and whether it has a checksum.
    ///
    /// Example: pq pages data/sample.parquet --column tags.list.element
    Pages {
        /// Parquet files, quoted globs ('data/*.parquet') or directories;
        /// `-` (or a pipe) is read from standard input.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Only the column with this dotted path.
        #[arg(long)]
        column: Option<String>,
    },
    /// Rows: a table fitted to the terminal (first and last 5 rows), CSV or
    /// JSON lines. Reads one batch at a time.
    ///
    /// Example: pq cat data/sample.parquet --columns id,name --limit 20 --format csv
    Cat {
        /// Parquet files, quoted globs ('data/*.parquet') or directories;
        /// `-` (or a pipe) is read from standard input.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        show: ShowArgs,
        /// Skip this many rows first.
        #[arg(long, default_value_t = 0)]
        offset: usize,
        /// Print at most this many rows.
        #[arg(long)]
        limit: Option<usize>,
    },
    /// The first rows (default 10) of the files, read no further.
    ///
    /// Example: pq head data/sample.parquet -n 3 --format jsonl
    Head {
        #[command(flatten)]
        args: EndsArgs,
    },
    /// The last rows (default 10) of the files: only the row groups that
    /// hold them are read.
    ///
    /// Example: pq tail data/many_pages.parquet -n 3
    Tail {
        #[command(flatten)]
        args: EndsArgs,
    },
    /// The number of rows of the files, from their footers alone.
    ///
    /// Example: pq count 'data/*.parquet' --per-file
    Count {
        /// Parquet files, quoted globs ('data/*.parquet') or directories;
        /// `-` (or a pipe) is read from standard input.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Each file's count too, then the total.
        #[arg(long)]
        per_file: bool,
    },
    /// One row per column: type, values, nulls, min, max, distinct count,
    /// compressed and uncompressed bytes, ratio and encodings. From the
    /// footers (instant) unless --exact reads the data.
    ///
    /// Example: pq stats 'data/*.parquet' --exact --format csv
    Stats {
        /// Parquet files, quoted globs ('data/*.parquet') or directories;
        /// `-` (or a pipe) is read from standard input.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Read the data: one row per top-level column, values, nulls, min
        /// and max counted, distinct values exact up to 100000, estimated
        /// by HyperLogLog beyond (the distinct_by column says which).
        #[arg(long)]
        exact: bool,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: cat::Format,
        /// Fit a table to this many terminal columns (0: no limit).
        #[arg(long, value_name = "N")]
        max_width: Option<usize>,
        /// With --exact, merge files whose schemas differ by column name.
        #[arg(long)]
        union_by_name: bool,
    },
    /// Decodes every value of every (selected) column without printing, and
    /// reports rows, bytes decoded, seconds and throughput.
    ///
    /// Example: pq scan data/sample.parquet --threads 2 --verify-checksums
    Scan {
        /// Parquet files, quoted globs ('data/*.parquet') or directories;
        /// `-` (or a pipe) is read from standard input.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Only these columns: names or dotted paths, comma separated.
        #[arg(long)]
        columns: Vec<String>,
        /// Decode the column chunks of a row group on this many threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Check page checksums where pages have them.
        #[arg(long)]
        verify_checksums: bool,
        /// Merge files whose schemas differ by column name.
        #[arg(long)]
        union_by_name: bool,
        /// Only the rows where EXPR holds (see `pq cat --help`); the report
        /// then says what each pruning source ruled out.
        #[arg(long = "where", value_name = "EXPR")]
        filter: Option<String>,
    },
    /// A SQL query over Parquet files, planned and run by DataFusion with
    /// pq reading the files. Tables are named with --table, or written in
    /// the query as a quoted location after FROM or JOIN: a file, a quoted
    /// glob, a directory (its .parquet files) or an object URL (an
    /// object, a prefix ending in / or a glob).
    ///
    /// Example: pq sql "SELECT l_shipmode, count(*) FROM 'data/*.parquet' GROUP BY 1"
    Sql {
        /// The query (DataFusion's SQL).
        query: String,
        /// A table for the query: NAME=LOCATION (repeatable).
        #[arg(long = "table", value_name = "NAME=LOCATION")]
        tables: Vec<String>,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: cat::Format,
        /// Fit a table to this many terminal columns (0: no limit).
        #[arg(long, value_name = "N")]
        max_width: Option<usize>,
        /// Threads the query runs on (DataFusion's target partitions);
        /// default: every core.
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
    },
    /// Reads the file with pq and with the arrow-rs parquet reader and
    /// compares every value: "identical", or the first difference (exit 1).
    ///
    /// Example: pq verify data/sample.parquet
    Verify {
        /// The Parquet file; `-` (or a pipe) is read from standard input.
        file: PathBuf,
    },
    /// Converts by OUTPUT's extension: Parquet to .csv, .jsonl, .arrow
    /// (Arrow IPC file) or .parquet (a rewrite with the writer options), and
    /// .csv to .parquet (column types inferred unless --dtypes says). Several
    /// Parquet inputs become one output. Input from `-` or a pipe is Parquet
    /// when it starts with PAR1, CSV otherwise.
    ///
    /// A regular OUTPUT is written to a hidden temporary file next to it and
    /// renamed at the end, keeping an existing file's permissions (and
    /// synced to the disk first, so that a crash cannot lose the file it
    /// replaces); nothing is left behind on an error or on Ctrl-C. An
    /// existing FIFO or character device (/dev/null) is written through, as
    /// cp does.
    ///
    /// Example: pq convert in.csv out.parquet --dtypes id=int64 --compression zstd
    #[command(override_usage = "pq convert [OPTIONS] <INPUT>... <OUTPUT>")]
    Convert {
        /// The inputs, then the output. Inputs: Parquet files, quoted globs
        /// or directories (several are read as one table), or one .csv
        /// file; `-` is standard input. The output's extension picks the
        /// format; `-` is standard output.
        #[arg(required = true, num_args = 2.., value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Merge inputs whose schemas differ by column name.
        #[arg(long)]
        union_by_name: bool,
        /// The output format, when OUTPUT's name does not say (`-`, /dev/null).
        #[arg(long, value_enum)]
        to: Option<convert::Kind>,
        /// Compression codec of the Parquet output (lz4 writes LZ4_RAW).
        /// Default snappy, as pyarrow and DuckDB write: fast, and read by
        /// every Parquet reader. `none` writes uncompressed.
        #[arg(long, value_enum)]
        compression: Option<convert::Compression>,
        /// Compression level of --compression: gzip 0-9 (default 6), zstd
        /// 1-22 and the fast negative levels (default 1), brotli 0-11
        /// (default 1). Higher is smaller and slower to write; reading
        /// speed hardly changes.
        #[arg(long, value_name = "N", allow_negative_numbers = true)]
        compression_level: Option<i32>,
        /// Dictionary-encode columns whose type allows it (the default).
        #[arg(long, conflicts_with = "no_dictionary")]
        dictionary: bool,
        /// Do not dictionary-encode.
        #[arg(long)]
        no_dictionary: bool,
        /// COLUMN=ENCODING (repeatable): plain, rle, delta_binary_packed,
        /// delta_length_byte_array, delta_byte_array, byte_stream_split, alp
        /// (alp needs --allow-preview-encodings).
        #[arg(long)]
        encodings: Vec<String>,
        /// Allow Preview encodings (alp) in --encodings: pq and arrow-rs read
        /// them, pyarrow 26 and DuckDB 2.0 do not.
        #[arg(long)]
        allow_preview_encodings: bool,
        /// Data page version: 1 or 2.
        #[arg(long)]
        page_version: Option<u8>,
        /// Most rows in a data page.
        #[arg(long)]
        rows_per_page: Option<usize>,
        /// Most rows in a row group.
        #[arg(long)]
        rows_per_group: Option<usize>,
        /// COLUMN[=NDV] (repeatable): write a Bloom filter for COLUMN (a
        /// name or dotted path), sized for NDV distinct values per row
        /// group (default: the row group's rows), at 5 % false positives.
        /// Readers then skip row groups that cannot hold a value asked for
        /// with = or IN.
        #[arg(long, value_name = "COLUMN[=NDV]")]
        bloom_filter: Vec<String>,
        /// COLUMN=TYPE (repeatable) for CSV input: boolean, int8, int16,
        /// int32, int64, uint8, uint16, uint32, uint64, float, double,
        /// decimal(P,S), string, binary, date, time, timestamp (us, no
        /// zone), timestamp(UNIT) or timestamp(UNIT, ZONE): UNIT s, ms, us
        /// or ns, ZONE UTC, an offset (+02:00) or a name (Europe/Paris); an
        /// offset in a value is kept as the instant. In a named zone every
        /// value needs its offset; in a column without a zone a value with
        /// one is an error (never moved to UTC wall time).
        #[arg(long)]
        dtypes: Vec<String>,
        #[command(flatten)]
        csv: csv_in::CsvArgs,
    },
}

/// What `cat`, `head` and `tail` show and how.
#[derive(Debug, Args)]
struct ShowArgs {
    /// Only these columns: names or dotted paths, comma separated.
    #[arg(long)]
    columns: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: cat::Format,
    /// Merge files whose schemas differ by column name; a column missing
    /// from a file is null in its rows.
    #[arg(long)]
    union_by_name: bool,
    /// Fit a table to this many terminal columns (0: no limit). By
    /// default the terminal's width (or COLUMNS); no limit when the
    /// output is not a terminal.
    #[arg(long, value_name = "N")]
    max_width: Option<usize>,
    /// Only the rows where EXPR holds: comparisons (= != < <= > >=), IN,
    /// BETWEEN, `IS [NOT] NULL`, LIKE, AND, OR, NOT. Row groups that the
    /// statistics, Bloom filters, dictionaries or page index rule out are
    /// not read.
    ///
    /// Example: --where "l_shipmode = 'AIR' AND l_quantity < 5"
    #[arg(long = "where", value_name = "EXPR")]
    filter: Option<String>,
}

/// `--where`'s text as a predicate; a syntax error is a usage error.
fn parse_where(text: Option<&str>) -> Result<Option<pq_arrow::predicate::Predicate>, CliError> {
    text.map(|t| {
        pq_arrow::predicate::Predicate::parse(t).map_err(|e| match e {
            pq_arrow::Error::Request { message } => CliError::Usage(format!("--where: {message}")),
            other => CliError::Usage(format!("--where: {other}")),
        })
    })
    .transpose()
}

impl ShowArgs {
    /// Prints `rows` of `files`; `all_rows` shows every row of a table
    /// instead of eliding the middle.
    fn run(
        &self,
        files: &[PathBuf],
        rows: cat::Rows,
        all_rows: bool,
        out: &mut impl std::io::Write,
    ) -> Result<(), CliError> {
        cat::run(
            &cat::CatArgs {
                paths: files,
                columns: read::split_columns(&self.columns)?,
                union_by_name: self.union_by_name,
                rows,
                format: self.format,
                all_rows,
                max_width: self.max_width,
                predicate: parse_where(self.filter.as_deref())?,
            },
            out,
        )
    }
}

/// The arguments `head` and `tail` share.
#[derive(Debug, Args)]
struct EndsArgs {
    /// Parquet files, quoted globs ('data/*.parquet') or directories;
    /// `-` (or a pipe) is read from standard input.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// How many rows.
    #[arg(short = 'n', long = "lines", default_value_t = 10)]
    rows: usize,
    #[command(flatten)]
    show: ShowArgs,
}

impl EndsArgs {
    /// Prints `rows` of the files as `cat` does, every row shown.
    fn run(&self, rows: cat::Rows, out: &mut impl std::io::Write) -> Result<(), CliError> {
        self.show.run(&self.files, rows, true, out)
    }
}

fn run(cli: Cli) -> Result<(), CliError> {
    let mut out = output::stdout();
    remote::set_options(remote::RemoteOptions {
        endpoint: cli.endpoint.clone(),
        no_sign_request: cli.no_sign_request,
        timeout: cli.timeout,
        retries: cli.retries,
    });
    match cli.command {
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "pq", &mut out);
        }
        Command::Man { command } => man::run(Cli::command(), command.as_deref(), &mut out)?,
        Command::Meta { files, json } => {
            let sources = sources::expand(&files)?;
            if json {
                meta::run_json(&sources, &mut out)?;
            } else {
                each_file(&sources, &mut out, |path, out| meta::run(path, false, out))?;
            }
        }
        Command::Schema { files, json, ddl } => {
            let sources = sources::expand(&files)?;
            if json {
                schema_json::run(&sources, &mut out)?;
            } else if ddl {
                // One statement after another: a header line would not be
                // SQL, a comment is.
                for (i, source) in sources.iter().enumerate() {
                    if sources.len() > 1 {
                        if i > 0 {
                            writeln!(out)?;
                        }
                        writeln!(out, "-- {}", source.path.display())?;
                    }
                    ddl::run(&source.path, &mut out)?;
                }
            } else {
                each_file(&sources, &mut out, schema::run)?;
            }
        }
        Command::Pages { files, column } => {
            let sources = sources::expand(&files)?;
            each_file(&sources, &mut out, |path, out| {
                pages::run(path, column.as_deref(), out)
            })?;
        }
        Command::Cat {
            files,
            show,
            offset,
            limit,
        } => show.run(&files, cat::Rows::Range { offset, limit }, false, &mut out)?,
        Command::Head { args } => {
            let rows = cat::Rows::Range {
                offset: 0,
                limit: Some(args.rows),
            };
            args.run(rows, &mut out)?
        }
        Command::Tail { args } => args.run(cat::Rows::Last(args.rows), &mut out)?,
        Command::Sql {
            query,
            tables,
            format,
            max_width,
            threads,
        } => sql::run(
            &sql::SqlArgs {
                query: &query,
                tables: &tables,
                format,
                max_width,
                threads: threads
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
            },
            &mut out,
        )?,
        Command::Count { files, per_file } => {
            count::run(&sources::expand(&files)?, per_file, &mut out)?
        }
        Command::Stats {
            files,
            exact,
            format,
            max_width,
            union_by_name,
        } => stats::run(
            &stats::StatsArgs {
                paths: &files,
                exact,
                format,
                max_width,
                union_by_name,
            },
            &mut out,
        )?,
        Command::Scan {
            files,
            columns,
            threads,
            verify_checksums,
            union_by_name,
            filter,
        } => scan::run(
            &files,
            dataset::Options {
                columns: read::split_columns(&columns)?,
                union_by_name,
                threads,
                verify_checksums,
                predicate: parse_where(filter.as_deref())?,
                read_stats: None,
            },
            &mut out,
        )?,
        Command::Verify { file } => verify::run(&file, &mut out)?,
        Command::Convert {
            paths,
            union_by_name,
            to,
            compression,
            compression_level,
            dictionary,
            no_dictionary,
            encodings,
            allow_preview_encodings,
            page_version,
            rows_per_page,
            rows_per_group,
            bloom_filter,
            dtypes,
            csv,
        } => convert::run(
            &paths,
            to,
            &convert::ConvertArgs {
                union_by_name,
                compression,
                compression_level,
                dictionary: if no_dictionary {
                    Some(false)
                } else if dictionary {
                    Some(true)
                } else {
                    None
                },
                encodings,
                page_version,
                rows_per_page,
                rows_per_group,
                bloom_filters: bloom_filter,
                dtypes,
                allow_preview_encodings,
                csv,
            },
        )?,
    }
    out.flush().map_err(CliError::from)?;
    Ok(())
}

/// Runs `command` on each file, with a header line naming the file before
/// each when there are several.
fn each_file(
    sources: &[sources::Source],
    out: &mut output::Out,
    mut command: impl FnMut(&Path, &mut output::Out) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let several = sources.len() > 1;
    for (i, source) in sources.iter().enumerate() {
        if several {
            if i > 0 {
                writeln!(out)?;
            }
            writeln!(out, "==> {} <==", source.path.display())?;
        }
        command(&source.path, out)?;
    }
    Ok(())
}

/// `message` on one line: errors from below (CSV parsing, Arrow) may span
/// several, and a person or a script reads the first line only.
fn one_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Keeps glibc's allocator from handing memory back to the system only to
/// fault it in again (for `pq convert`).
///
/// By default glibc returns what is freed at the top of its heap beyond
/// 128 KiB, and maps each allocation above a moving threshold afresh. A
/// row group's page buffers are freed together once it is written, so each
/// row group's memory went back and was faulted in, page by page, for the
/// next: rewriting DuckDB's uncompressed lineitem file (500 000 rows in row
/// groups of 122 880) the heap grew by 61.5 MB in all and shrank by
/// 46.7 MB, and the process took 22 000 page faults (12 000 with this;
/// arrow-rs's rewrite 13 700). Below 32 MiB buffers now come from the heap,
/// and up to 64 MiB freed at its top is kept for reuse.
fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets two of the allocator's parameters, before
    // any other thread is started; it takes no pointers and no allocation
    // depends on them for its soundness.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Measured to pay on conversions (whole-process rewrites of the
    // benchmark matrix); on scans it moved times both ways within the
    // noise and raised peak memory, so reading keeps glibc's defaults.
    if matches!(cli.command, Command::Convert { .. }) {
        tune_allocator();
    }
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // Output cut short by the reader (`pq cat f | head`) is not an error.
        Err(CliError::BrokenPipe) => ExitCode::SUCCESS,
        Err(CliError::Usage(m)) => {
            eprintln!("pq: {}", one_line(&m));
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("pq: {}", one_line(&e.to_string()));
            ExitCode::FAILURE
        }
    }
}
