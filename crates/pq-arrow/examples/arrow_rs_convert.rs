//! The arrow-rs side of `cargo xtask bench-write`'s whole-process writes:
//! the work `pq convert IN OUT.parquet` does, with the arrow-rs `parquet`
//! crate. It reads every column of the file IN (batches of 8192 rows, one
//! thread) and writes them to OUT with `ArrowWriter` in one of the write
//! bench's settings, then prints the rows, the bytes written and the time.
//!
//! - `defaults`: `WriterProperties::default()` (uncompressed, dictionaries,
//!   data page v1);
//! - `snappy_dict`: SNAPPY, dictionaries, data page v1;
//! - `zstd_v2`: ZSTD at arrow-rs's default level (1), data page v2;
//! - `as_written`: what IN records of its own writer's settings: the codec
//!   of its first column chunk (ZSTD at level 1), dictionaries when a chunk
//!   of its first row group has a dictionary page, the version of its first
//!   data page, and the rows of its first row group.
//!
//! `cargo run --release -p pq-arrow --example arrow_rs_convert -- SETTING IN OUT`
//!
//! `arrow_rs_convert --pq-flags IN` prints `as_written` as `pq convert`'s
//! flags instead, for the pq side of the same rewrite.

use std::io::BufWriter;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use arrow_array::RecordBatchReader;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::properties::WriterProperties;

// The settings as the write bench gives them to arrow-rs, and what a file
// records of its writer's settings, as the write bench reads it.
#[path = "../benches/common/arrow_rs_settings.rs"]
mod arrow_rs_settings;

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    if let [flag, input] = args.as_slice()
        && flag == "--pq-flags"
    {
        return match arrow_rs_settings::read(Path::new(input)) {
            Ok(w) => {
                println!("{}", arrow_rs_settings::pq_flags(&w).join(" "));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("arrow_rs_convert: {}: {e}", input.to_string_lossy());
                ExitCode::FAILURE
            }
        };
    }
    let [setting, input, output] = args.as_slice() else {
        eprintln!(
            "usage: arrow_rs_convert defaults|snappy_dict|zstd_v2|as_written IN OUT\n       arrow_rs_convert --pq-flags IN"
        );
        return ExitCode::from(2);
    };
    let props = match setting.to_string_lossy().as_ref() {
        "as_written" => {
            arrow_rs_settings::read(Path::new(input)).map(|w| arrow_rs_settings::properties(&w))
        }
        other => arrow_rs_settings::named_properties(other).ok_or_else(|| {
            format!("unknown setting {other:?}: defaults, snappy_dict, zstd_v2 or as_written")
        }),
    };
    let props = match props {
        Ok(p) => p,
        Err(e) => {
            eprintln!("arrow_rs_convert: {e}");
            return ExitCode::from(2);
        }
    };
    match convert(input, output, props) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("arrow_rs_convert: {}: {e}", input.to_string_lossy());
            ExitCode::FAILURE
        }
    }
}

fn convert(
    input: &std::ffi::OsStr,
    output: &std::ffi::OsStr,
    props: WriterProperties,
) -> Result<(), Box<dyn std::error::Error>> {
    let start = Instant::now();
    let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(input)?)?
        .with_batch_size(8192)
        .build()?;
    let out = BufWriter::new(std::fs::File::create(output)?);
    let mut writer = ArrowWriter::try_new(out, reader.schema(), Some(props))?;
    let mut rows = 0usize;
    for batch in reader {
        let batch = batch?;
        rows += batch.num_rows();
        writer.write(&batch)?;
    }
    writer.close()?;
    let bytes = std::fs::metadata(output)?.len();
    println!("rows: {rows}");
    println!("bytes written: {bytes}");
    println!("seconds: {:.3}", start.elapsed().as_secs_f64());
    Ok(())
}
