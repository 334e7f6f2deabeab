//! The `pq` command: look inside Parquet files, read them, convert them.
//!
//! Every command streams: it reads the footer, then one column chunk or one
//! batch at a time, so files far larger than memory work. Errors print one
//! line on stderr naming the file and what is wrong, and exit with status 1;
//! usage errors exit with status 2. No panic reaches the user.
//!
//! Dependencies beyond the pq crates: `clap` (argument parsing with derive),
//! `serde_json` (`--json` output), `arrow-cast` (value formatting),
//! `arrow-json`, `arrow-csv` and `arrow-ipc` (output and input formats),
//! `indicatif` (the progress bar of `convert`). The arrow-rs `parquet`
//! reader is a dependency of this binary solely for `pq verify`, which
//! compares pq's reading with it; no library crate depends on it.
//!
//! Arrow's `chrono-tz` feature is off, so timestamps in named time zones
//! (`UTC`, `Europe/Paris`) are printed in UTC with a `+00:00` offset.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cat;
mod convert;
mod error;
mod input;
mod meta;
mod output;
mod pages;
mod read;
mod scan;
mod schema;
mod values;
mod verify;

use error::CliError;

/// Look inside Parquet files, read them and convert them.
#[derive(Debug, Parser)]
#[command(name = "pq", version, about, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// File metadata: version, rows, writer, key-value metadata, and every
    /// row group and column chunk with encodings, codec, sizes and statistics.
    ///
    /// Example: pq meta data/sample.parquet --json
    Meta {
        /// The Parquet file.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The Parquet schema tree: repetition, physical and logical types and
    /// max levels of every node.
    ///
    /// Example: pq schema data/sample.parquet
    Schema {
        /// The Parquet file.
        file: PathBuf,
    },
    /// Every page of every column chunk: type, encoding, sizes, values,
    /// nulls, level encodings and whether it has a checksum.
    ///
    /// Example: pq pages data/sample.parquet --column tags.list.element
    Pages {
        /// The Parquet file.
        file: PathBuf,
        /// Only the column with this dotted path.
        #[arg(long)]
        column: Option<String>,
    },
    /// Rows: a table fitted to the terminal (first and last 5 rows), CSV or
    /// JSON lines. Reads one batch at a time.
    ///
    /// Example: pq cat data/sample.parquet --columns id,name --limit 20 --format csv
    Cat {
        /// The Parquet file.
        file: PathBuf,
        /// Only these columns: names or dotted paths, comma separated.
        #[arg(long)]
        columns: Vec<String>,
        /// Skip this many rows first.
        #[arg(long, default_value_t = 0)]
        offset: usize,
        /// Print at most this many rows.
        #[arg(long)]
        limit: Option<usize>,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: cat::Format,
    },
    /// Decodes every value of every (selected) column without printing, and
    /// reports rows, bytes decoded, seconds and throughput.
    ///
    /// Example: pq scan data/sample.parquet --threads 2 --verify-checksums
    Scan {
        /// The Parquet file.
        file: PathBuf,
        /// Only these columns: names or dotted paths, comma separated.
        #[arg(long)]
        columns: Vec<String>,
        /// Decode the column chunks of a row group on this many threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Check page checksums where pages have them.
        #[arg(long)]
        verify_checksums: bool,
    },
    /// Reads the file with pq and with the arrow-rs parquet reader and
    /// compares every value: "identical", or the first difference (exit 1).
    ///
    /// Example: pq verify data/sample.parquet
    Verify {
        /// The Parquet file.
        file: PathBuf,
    },
    /// Converts by OUT's extension: Parquet to .csv, .jsonl, .arrow (Arrow
    /// IPC file) or .parquet (a rewrite with the writer options), and .csv
    /// to .parquet (column types inferred unless --dtypes says). Writes a
    /// temporary file next to OUT and renames it at the end.
    ///
    /// Example: pq convert in.csv out.parquet --dtypes id=int64 --compression zstd
    Convert {
        /// The input file (Parquet, or .csv).
        input: PathBuf,
        /// The output file; its extension picks the format.
        output: PathBuf,
        /// Compression codec of the Parquet output (lz4 writes LZ4_RAW).
        #[arg(long, value_enum)]
        compression: Option<convert::Compression>,
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
        /// COLUMN=TYPE (repeatable) for CSV input: boolean, int32, int64,
        /// float, double, string, date, timestamp.
        #[arg(long)]
        dtypes: Vec<String>,
    },
}

fn run(cli: Cli) -> Result<(), CliError> {
    let mut out = output::stdout();
    match cli.command {
        Command::Meta { file, json } => meta::run(&file, json, &mut out)?,
        Command::Schema { file } => schema::run(&file, &mut out)?,
        Command::Pages { file, column } => pages::run(&file, column.as_deref(), &mut out)?,
        Command::Cat {
            file,
            columns,
            offset,
            limit,
            format,
        } => cat::run(
            &cat::CatArgs {
                path: &file,
                columns: read::split_columns(&columns),
                offset,
                limit,
                format,
            },
            &mut out,
        )?,
        Command::Scan {
            file,
            columns,
            threads,
            verify_checksums,
        } => scan::run(
            &file,
            read::split_columns(&columns).as_deref(),
            threads,
            verify_checksums,
            &mut out,
        )?,
        Command::Verify { file } => verify::run(&file, &mut out)?,
        Command::Convert {
            input,
            output,
            compression,
            dictionary,
            no_dictionary,
            encodings,
            allow_preview_encodings,
            page_version,
            rows_per_page,
            rows_per_group,
            dtypes,
        } => convert::run(
            &input,
            &output,
            &convert::ConvertArgs {
                compression,
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
                dtypes,
                allow_preview_encodings,
            },
        )?,
    }
    out.flush().map_err(CliError::from)?;
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // Output cut short by the reader (`pq cat f | head`) is not an error.
        Err(CliError::BrokenPipe) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pq: {e}");
            ExitCode::FAILURE
        }
    }
}
