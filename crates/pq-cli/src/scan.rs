//! `pq scan`: decode every value without printing, and report the speed.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use arrow_array::Array;

use crate::error::CliError;
use crate::read;

/// Decodes the selected columns of the whole file and prints rows, bytes
/// decoded, time and throughput.
pub fn run(
    path: &Path,
    columns: Option<&[String]>,
    threads: usize,
    verify_checksums: bool,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let start = Instant::now();
    let batches = read::open(path, columns)?
        .with_threads(threads)
        .with_verify_checksums(verify_checksums)
        .build()
        .map_err(|e| CliError::file(path, e))?;
    let mut rows = 0usize;
    let mut bytes = 0usize;
    for batch in batches {
        let batch = batch.map_err(|e| CliError::file(path, e))?;
        rows += batch.num_rows();
        bytes += batch
            .columns()
            .iter()
            .map(|c| c.get_buffer_memory_size())
            .sum::<usize>();
    }
    let seconds = start.elapsed().as_secs_f64();
    let per_second = |n: f64| if seconds > 0.0 { n / seconds } else { 0.0 };
    writeln!(out, "rows: {rows}")?;
    writeln!(out, "bytes decoded: {bytes}")?;
    writeln!(out, "seconds: {seconds:.3}")?;
    writeln!(
        out,
        "throughput: {:.1} MB/s, {:.0} rows/s",
        per_second(bytes as f64) / 1e6,
        per_second(rows as f64)
    )?;
    Ok(())
}
