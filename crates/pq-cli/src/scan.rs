//! `pq scan`: decode every value without printing, and report the speed.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use arrow_array::{Array, RecordBatch};

use crate::dataset::{self, Dataset};
use crate::error::CliError;
use crate::sources;

/// Decodes the selected columns of all the files and prints rows, bytes
/// decoded, time and throughput.
pub fn run(
    paths: &[PathBuf],
    options: dataset::Options,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let start = Instant::now();
    let table = Dataset::open(sources::expand(paths)?, options)?;
    let plan = table.range(0, None);
    let mut rows = 0usize;
    let mut bytes = 0usize;
    for batch in table.batches(plan) {
        let batch = batch?;
        rows += batch.num_rows();
        bytes += decoded_bytes(&batch);
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

/// The bytes of the buffers behind `batch`'s columns: what decoding it
/// produced, the figure throughput is measured in.
fn decoded_bytes(batch: &RecordBatch) -> usize {
    batch
        .columns()
        .iter()
        .map(|c| c.get_buffer_memory_size())
        .sum()
}
