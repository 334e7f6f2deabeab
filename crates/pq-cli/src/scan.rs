//! `pq scan`: decode every value without printing, and report the speed.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use arrow_array::{Array, RecordBatch};
use arrow_data::ArrayData;

use crate::dataset::{self, Dataset};
use crate::error::CliError;
use crate::sources;

/// Decodes the selected columns of all the files and prints rows, bytes
/// decoded, time and throughput, the bytes read, and with a predicate
/// what each pruning source ruled out.
pub fn run(
    paths: &[PathBuf],
    options: dataset::Options,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let start = Instant::now();
    let stats = std::rc::Rc::new(std::cell::RefCell::new(dataset::ReadStats::default()));
    let filtered = options.predicate.is_some();
    let options = dataset::Options {
        read_stats: Some(stats.clone()),
        ..options
    };
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
    let s = stats.borrow();
    let remote = &s.remote;
    if s.files > 0 || remote.objects == 0 {
        writeln!(
            out,
            "bytes read: {} of {} in {} reads (footers not counted)",
            s.bytes_read, s.file_bytes, s.requests
        )?;
    }
    if remote.objects > 0 {
        writeln!(
            out,
            "fetched: {} of {} bytes in {} requests (size and footer included)",
            remote.bytes, remote.object_bytes, remote.requests
        )?;
    }
    if filtered {
        let p = &s.pruning;
        let by_statistics = p.row_groups_pruned
            - p.row_groups_pruned_by_bloom_filter
            - p.row_groups_pruned_by_dictionary
            - p.row_groups_pruned_by_page_index;
        writeln!(
            out,
            "row groups pruned: {} of {} (statistics {by_statistics}, Bloom filters {}, \
             dictionaries {}, page index {}), {} rows; matched whole by statistics: {}",
            p.row_groups_pruned,
            p.row_groups,
            p.row_groups_pruned_by_bloom_filter,
            p.row_groups_pruned_by_dictionary,
            p.row_groups_pruned_by_page_index,
            p.rows_pruned,
            p.row_groups_matched_by_statistics
        )?;
        writeln!(
            out,
            "rows tested: {}, matched: {}; rows in pages the page index rules out: {}; \
             values of columns read late not decoded: {}",
            p.rows_tested, p.rows_matched, p.rows_ruled_out_by_page_index, p.values_skipped_late
        )?;
        writeln!(
            out,
            "read for pruning: {} Bloom filters ({} bytes, {} ignored), {} dictionaries ({} bytes), \
             {} page indexes ({} bytes)",
            p.bloom_filters_read,
            p.bloom_filter_bytes,
            p.bloom_filters_ignored,
            p.dictionaries_read,
            p.dictionary_bytes,
            p.page_indexes_read,
            p.page_index_bytes
        )?;
    }
    Ok(())
}

/// The bytes of the buffers behind `batch`'s columns: what decoding it
/// produced, the figure throughput is measured in. Their lengths, not
/// their capacities: those depend on which pooled buffers a read reused,
/// so they would differ between two reads of the same data (from a path,
/// where columns are read one at a time, and from a store).
fn decoded_bytes(batch: &RecordBatch) -> usize {
    fn data_bytes(d: &ArrayData) -> usize {
        d.buffers().iter().map(|b| b.len()).sum::<usize>()
            + d.nulls().map_or(0, |n| n.buffer().len())
            + d.child_data().iter().map(data_bytes).sum::<usize>()
    }
    batch
        .columns()
        .iter()
        .map(|c| data_bytes(&c.to_data()))
        .sum()
}
