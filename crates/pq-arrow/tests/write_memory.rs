//! The writer's heap grows with the data it holds, not with the number of
//! columns: a table of 10 000 columns and 3 rows (a wide CSV file) must not
//! cost more per column than its few values, its metadata and its footer.
//!
//! A counting global allocator measures the peak of live heap bytes while
//! the writer runs; this binary holds a single test so that no other test's
//! allocations are counted.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use arrow_array::{ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use pq_arrow::write::{Codec, DataPageVersion, ParquetWriter, WriterOptions};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn add(n: usize) {
    let live = LIVE.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to `System`; only the counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            add(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            add(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            add(new_size);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const COLUMNS: usize = 10_000;

/// What a CSV reader infers from a wide file: integers, floats, strings
/// (some missing) and booleans, 3 rows each.
fn wide_batch() -> RecordBatch {
    let mut fields = Vec::with_capacity(COLUMNS);
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(COLUMNS);
    for i in 0..COLUMNS {
        let k = i as i64;
        let (dt, col): (DataType, ArrayRef) = match i % 4 {
            0 => (
                DataType::Int64,
                Arc::new(Int64Array::from(vec![k, k + 1, k * 7])),
            ),
            1 => (
                DataType::Float64,
                Arc::new(Float64Array::from(vec![k as f64 / 3.0, 0.5, -1.25])),
            ),
            2 => (
                DataType::Utf8,
                Arc::new(StringArray::from(vec![
                    Some(format!("v{i}")),
                    None,
                    Some("a longer string value".to_string()),
                ])),
            ),
            _ => (
                DataType::Boolean,
                Arc::new(BooleanArray::from(vec![true, false, i % 3 == 0])),
            ),
        };
        fields.push(Field::new(format!("column_{i}"), dt, true));
        columns.push(col);
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}

/// Peak live heap bytes, above what was live before, of writing `batch`
/// with `options` (to a sink: the output is not counted) and closing.
fn peak_of_write(batch: &RecordBatch, options: WriterOptions) -> usize {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let mut w = ParquetWriter::try_new(std::io::sink(), batch.schema(), options).unwrap();
    w.write(batch).unwrap();
    let metadata = w.close().unwrap();
    let peak = PEAK.load(Ordering::Relaxed) - before;
    assert_eq!(metadata.num_rows, 3);
    assert_eq!(metadata.row_groups[0].columns.len(), COLUMNS);
    peak
}

#[test]
fn wide_table_heap_is_proportional_to_its_data() {
    let batch = wide_batch();
    // Every column holds its writer's state (about 1 KiB of fields), 3
    // values, a page, a chunk's metadata, statistics and page index
    // entries, and its share of the footer (schema element, `ARROW:schema`
    // entry): about 2.4 KiB. A writer that sized anything by a limit (the
    // dictionary's table, the page size) costs far more per column: a
    // dictionary table of 1024 slots alone was 16 KiB.
    const BUDGET_PER_COLUMN: usize = 4 * 1024;
    let mut over = Vec::new();
    for (what, options) in [
        ("defaults", WriterOptions::default()),
        (
            "no dictionary, uncompressed",
            WriterOptions::builder()
                .set_dictionary_enabled(false)
                .set_compression(Codec::Uncompressed)
                .build(),
        ),
        (
            "data page v2, zstd",
            WriterOptions::builder()
                .set_writer_version(DataPageVersion::V2)
                .set_compression(Codec::Zstd)
                .build(),
        ),
        (
            "defaults, 4 threads",
            WriterOptions::builder().set_threads(4).build(),
        ),
    ] {
        let peak = peak_of_write(&batch, options);
        let per_column = peak / COLUMNS;
        println!(
            "{what}: peak writer heap {peak} bytes for {COLUMNS} columns x 3 rows, \
             {per_column} bytes per column"
        );
        over.extend((per_column >= BUDGET_PER_COLUMN).then_some((what, per_column)));
    }
    assert!(
        over.is_empty(),
        "bytes per column over {BUDGET_PER_COLUMN}: {over:?}"
    );
}
