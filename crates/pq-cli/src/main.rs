//! The `pq` command: look inside Parquet files, read them, convert them.
//!
//! Every command streams: it reads the footer, then one column chunk or one
//! batch at a time, so files far larger than memory work. Errors print one
//! line on stderr naming the file and what is wrong, and exit with status 1;
//! usage errors exit with status 2. No panic reaches the user.
//!
//! Dependencies beyond the pq crates: `clap` (argument parsing with derive),
//! `serde_json` (`--json` output).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod error;
mod input;
mod meta;
mod output;
mod pages;
mod schema;
mod values;

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
}

fn run(cli: Cli) -> Result<(), CliError> {
    let mut out = output::stdout();
    match cli.command {
        Command::Meta { file, json } => meta::run(&file, json, &mut out)?,
        Command::Schema { file } => schema::run(&file, &mut out)?,
        Command::Pages { file, column } => pages::run(&file, column.as_deref(), &mut out)?,
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
