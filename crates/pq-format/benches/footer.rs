//! Footer decoding, pq-format against arrow-rs's `ParquetMetaDataReader`.
//!
//! Inputs:
//! 1. a synthetic file of 1000 columns × 10 row groups (with chunk and page
//!    statistics and a page index), written once in memory by arrow-rs's
//!    `ArrowWriter`;
//! 2. `alltypes_tiny_pages.parquet` from `$PARQUET_TESTING_DIR` (skipped
//!    when unset).
//!
//! Two comparisons per input, each reader given the same work:
//! - `footer`: the footer only (arrow-rs: `PageIndexPolicy::Skip`; ours:
//!   `ParquetMetaData::from_bytes`, i.e. decode plus schema tree);
//! - `footer+page_index`: also every column chunk's column index and offset
//!   index (arrow-rs: `PageIndexPolicy::Required`; ours: the footer plus
//!   `ColumnIndex`/`OffsetIndex` decoded from the bytes they point to).
//!
//! After criterion's report, prints our time / arrow-rs's time for each.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use bytes::Bytes;
use criterion::Criterion;
use parquet::arrow::ArrowWriter;
use parquet::file::metadata::{PageIndexPolicy, ParquetMetaDataReader};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use pq_format::{ColumnIndex, Limits, OffsetIndex, ParquetMetaData, ThriftDecode};

fn synthetic_file() -> Bytes {
    const COLUMNS: usize = 1000;
    const ROW_GROUPS: usize = 10;
    const ROWS_PER_GROUP: usize = 10;
    let rows = ROW_GROUPS * ROWS_PER_GROUP;
    let mut fields = Vec::with_capacity(COLUMNS);
    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(COLUMNS);
    for c in 0..COLUMNS {
        // Every third column of each type: integers, floats, strings, with
        // and without nulls.
        let (name, array): (String, ArrayRef) = match c % 3 {
            0 => (
                format!("int_{c}"),
                Arc::new(Int64Array::from_iter(
                    (0..rows).map(|r| (r % 7 != 0).then_some((r * c) as i64)),
                )),
            ),
            1 => (
                format!("float_{c}"),
                Arc::new(Float64Array::from_iter(
                    (0..rows).map(|r| Some(r as f64 * 0.5 + c as f64)),
                )),
            ),
            _ => (
                format!("str_{c}"),
                Arc::new(StringArray::from_iter(
                    (0..rows).map(|r| (r % 5 != 0).then(|| format!("value-{c}-{r}"))),
                )),
            ),
        };
        fields.push(arrow_schema::Field::new(
            name,
            array.data_type().clone(),
            true,
        ));
        arrays.push(array);
    }
    let schema = Arc::new(arrow_schema::Schema::new(fields));
    let batch = RecordBatch::try_new(schema.clone(), arrays).unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(ROWS_PER_GROUP))
        .set_statistics_enabled(EnabledStatistics::Page)
        .build();
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, schema, Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

fn arrow_rs(file: &Bytes, page_index: bool) -> usize {
    let policy = if page_index {
        PageIndexPolicy::Required
    } else {
        PageIndexPolicy::Skip
    };
    let md = ParquetMetaDataReader::new()
        .with_page_index_policy(policy)
        .parse_and_finish(file)
        .unwrap();
    md.num_row_groups()
}

fn ours(file: &Bytes, page_index: bool, limits: &Limits) -> usize {
    let md = ParquetMetaData::from_bytes(file, limits).unwrap();
    if page_index {
        for rg in &md.file.row_groups {
            for c in &rg.columns {
                if let (Some(o), Some(l)) = (c.column_index_offset, c.column_index_length) {
                    let b = file.slice(o as usize..o as usize + l as usize);
                    black_box(ColumnIndex::decode_bytes_prefix(&b, limits).unwrap());
                }
                if let (Some(o), Some(l)) = (c.offset_index_offset, c.offset_index_length) {
                    let b = file.slice(o as usize..o as usize + l as usize);
                    black_box(OffsetIndex::decode_bytes_prefix(&b, limits).unwrap());
                }
            }
        }
    }
    md.file.row_groups.len()
}

/// Median times of one call of `a` and of `b`, and the median of their
/// per-round ratios. The two alternate in short batches so that a change in
/// machine load (the machine is shared) hits both sides alike.
fn paired_times(
    mut a: impl FnMut(),
    mut b: impl FnMut(),
    budget: Duration,
) -> (Duration, Duration, f64) {
    let batch_size = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        let one = start.elapsed().max(Duration::from_nanos(1));
        ((Duration::from_millis(40).as_nanos() / one.as_nanos()) as u32).max(3)
    };
    let (na, nb) = (batch_size(&mut a), batch_size(&mut b));
    let time = |f: &mut dyn FnMut(), n: u32| {
        let t = Instant::now();
        for _ in 0..n {
            f();
        }
        t.elapsed() / n
    };
    let (mut ta, mut tb, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    let end = Instant::now() + budget;
    while Instant::now() < end || ratios.len() < 9 {
        let x = time(&mut a, na);
        let y = time(&mut b, nb);
        ratios.push(x.as_secs_f64() / y.as_secs_f64());
        ta.push(x);
        tb.push(y);
    }
    ta.sort();
    tb.sort();
    ratios.sort_by(f64::total_cmp);
    (ta[ta.len() / 2], tb[tb.len() / 2], ratios[ratios.len() / 2])
}

/// The name of a comparison: the footer alone, or with the page index.
fn label(page_index: bool) -> &'static str {
    if page_index {
        "footer+page_index"
    } else {
        "footer"
    }
}

fn main() {
    let limits = Limits::default();
    let mut inputs = vec![("synthetic_1000x10", synthetic_file())];
    match std::env::var_os("PARQUET_TESTING_DIR") {
        Some(dir) => {
            let p = std::path::Path::new(&dir).join("data/alltypes_tiny_pages.parquet");
            inputs.push((
                "alltypes_tiny_pages",
                Bytes::from(std::fs::read(p).unwrap()),
            ));
        }
        None => eprintln!("PARQUET_TESTING_DIR unset: skipping alltypes_tiny_pages"),
    }
    for (name, file) in &inputs {
        let n = file.len();
        let footer_len = u32::from_le_bytes(file[n - 8..n - 4].try_into().unwrap());
        eprintln!("{name}: file {n} bytes, footer {footer_len} bytes");
        // Both readers agree on the shape.
        assert_eq!(arrow_rs(file, true), ours(file, true, &limits));
    }

    let mut c = Criterion::default().configure_from_args();
    for (name, file) in &inputs {
        for page_index in [false, true] {
            let label = label(page_index);
            let mut g = c.benchmark_group(format!("{name}/{label}"));
            g.bench_function("pq-format", |b| {
                b.iter(|| ours(black_box(file), page_index, &limits))
            });
            g.bench_function("arrow-rs", |b| {
                b.iter(|| arrow_rs(black_box(file), page_index))
            });
            g.finish();
        }
    }
    c.final_summary();

    // `cargo bench -- --list` / `--test` style runs only want criterion.
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return;
    }
    println!(
        "\nratio = median over alternating rounds of pq-format time / arrow-rs time (lower is better; goal <= 1.0)"
    );
    for (name, file) in &inputs {
        for page_index in [false, true] {
            let label = label(page_index);
            let (t_ours, t_arrow, ratio) = paired_times(
                || {
                    black_box(ours(file, page_index, &limits));
                },
                || {
                    black_box(arrow_rs(file, page_index));
                },
                Duration::from_secs(3),
            );
            println!(
                "{name:<22} {label:<18} pq-format {:>10.1?}  arrow-rs {:>10.1?}  ratio {:.2}",
                t_ours, t_arrow, ratio
            );
        }
    }
}
