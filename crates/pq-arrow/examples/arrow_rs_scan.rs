//! The arrow-rs side of `cargo xtask bench-read`'s whole-process reads: the
//! work `pq scan FILE` does, with the arrow-rs `parquet` crate. It reads
//! every column of every row group from the file at the path given, in
//! batches of 8192 rows on one thread, adds up the rows and the bytes of the
//! Arrow buffers decoded, and prints them with the time, as `pq scan` does.
//!
//! `cargo run --release -p pq-arrow --example arrow_rs_scan -- FILE`

use std::process::ExitCode;
use std::time::Instant;

use arrow_array::Array;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: arrow_rs_scan FILE");
        return ExitCode::FAILURE;
    };
    match scan(&path) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("arrow_rs_scan: {}: {e}", path.to_string_lossy());
            ExitCode::FAILURE
        }
    }
}

fn scan(path: &std::ffi::OsStr) -> Result<(), Box<dyn std::error::Error>> {
    let start = Instant::now();
    let file = std::fs::File::open(path)?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)?
        .with_batch_size(8192)
        .build()?;
    let (mut rows, mut bytes) = (0usize, 0usize);
    for batch in reader {
        let batch = batch?;
        rows += batch.num_rows();
        bytes += batch
            .columns()
            .iter()
            .map(|c| c.get_buffer_memory_size())
            .sum::<usize>();
    }
    let seconds = start.elapsed().as_secs_f64();
    println!("rows: {rows}");
    println!("bytes decoded: {bytes}");
    println!("seconds: {seconds:.3}");
    Ok(())
}
