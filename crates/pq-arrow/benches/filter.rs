//! Selective reads: pq-arrow with a predicate against arrow-rs given the
//! same predicate as a `RowFilter`, its row groups pruned by statistics and
//! Bloom filters and its page index turned into a `RowSelection` (what
//! DataFusion does for it), and against a full scan; Polars and DuckDB on
//! one thread with `PQ_BENCH_VENV` (a venv with both; see
//! `xtask/bench/filter_queries.py`).
//!
//! The table is lineitem-like (`PQ_FILTER_ROWS`, default 4 Mi rows),
//! written by arrow-rs with a page index, 8 Ki-row pages, 1 Mi-row row
//! groups and a Bloom filter on `l_comment`, once sorted by `l_orderkey`
//! and once shuffled, into `target/bench-data/filter/`. The queries:
//!
//! - a 0.1 % range on the sorted key;
//! - a 1 % conjunction on two unshuffled columns, every column projected;
//! - an equality on a high-cardinality string with Bloom filters.
//!
//! Every timed read is from `Bytes` in memory, one thread, batches of
//! 8192; each query's rows are checked equal across readers before timing.
//! A markdown table of medians of alternating rounds is printed, with the
//! bytes each reader read (pq's from the file, arrow-rs's through a
//! counting reader; `PQ_BENCH_ROUNDS=N` fixes the rounds).

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use arrow_array::{
    ArrayRef, BooleanArray, Date32Array, Decimal128Array, Int64Array, RecordBatch, Scalar,
    StringArray,
};
use bytes::Bytes;
use common::{median, rounds};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowPredicateFn, ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowFilter,
};
use parquet::file::metadata::PageIndexPolicy;
use parquet::file::reader::{ChunkReader, Length};
use pq_arrow::ParquetReader;
use pq_arrow::predicate::Predicate;
use pq_testkit::Rng;

const MODES: [&str; 7] = ["AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB", "REG AIR"];

fn table(n: usize, sorted: bool) -> RecordBatch {
    let mut r = Rng(42);
    let mut order: Vec<usize> = (0..n).collect();
    if !sorted {
        // Fisher-Yates: the same rows in another order.
        for i in (1..n).rev() {
            order.swap(i, r.index(i + 1));
        }
    }
    let key: Vec<i64> = order.iter().map(|&i| (i / 4) as i64).collect();
    let mut col = |f: &mut dyn FnMut(&mut Rng, usize) -> i128| -> Vec<i128> {
        order.iter().map(|&i| f(&mut r, i)).collect()
    };
    let quantity = col(&mut |r, _| (1 + r.below(50) as i128) * 100);
    let price = col(&mut |r, _| 90_000 + r.below(10_000_000) as i128);
    let discount = col(&mut |r, _| r.below(11) as i128);
    let mut r2 = Rng(7);
    let day: Vec<i32> = order.iter().map(|_| 8000 + r2.below(2500) as i32).collect();
    let part: Vec<i64> = order.iter().map(|_| r2.below(200_000) as i64).collect();
    let mode: Vec<&str> = order.iter().map(|&i| MODES[i % 7]).collect();
    let comment: Vec<String> = order
        .iter()
        .map(|&i| {
            format!(
                "c{:x} {}",
                i.wrapping_mul(2_654_435_761) % 100_000_007,
                i % 97
            )
        })
        .collect();
    let dec = |v: Vec<i128>| -> ArrayRef {
        Arc::new(
            Decimal128Array::from(v)
                .with_precision_and_scale(15, 2)
                .unwrap_or_else(|e| panic!("{e}")),
        )
    };
    RecordBatch::try_from_iter([
        ("l_orderkey", Arc::new(Int64Array::from(key)) as ArrayRef),
        ("l_partkey", Arc::new(Int64Array::from(part))),
        ("l_quantity", dec(quantity)),
        ("l_extendedprice", dec(price)),
        ("l_discount", dec(discount)),
        ("l_shipdate", Arc::new(Date32Array::from(day))),
        ("l_shipmode", Arc::new(StringArray::from(mode))),
        ("l_comment", Arc::new(StringArray::from(comment))),
    ])
    .unwrap_or_else(|e| panic!("{e}"))
}

fn write(batch: &RecordBatch, path: &Path) {
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(1 << 20))
        .set_data_page_row_count_limit(8192)
        .set_write_batch_size(8192)
        .set_column_bloom_filter_enabled("l_comment".into(), true)
        .set_column_bloom_filter_max_ndv("l_comment".into(), 1 << 20)
        .set_column_bloom_filter_fpp("l_comment".into(), 0.01)
        .build();
    let file = std::fs::File::create(path).unwrap_or_else(|e| panic!("{e}"));
    let mut w = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), Some(props))
        .unwrap_or_else(|e| panic!("{e}"));
    for start in (0..batch.num_rows()).step_by(1 << 16) {
        let n = (batch.num_rows() - start).min(1 << 16);
        w.write(&batch.slice(start, n))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    w.close().unwrap_or_else(|e| panic!("{e}"));
}

/// The two files, written once for a row count.
fn files(n: usize) -> [(String, PathBuf); 2] {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../target/bench-data/filter/{n}"));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    ["sorted", "unsorted"].map(|name| {
        let path = dir.join(format!("lineitem_{name}.parquet"));
        if !path.exists() {
            write(&table(n, name == "sorted"), &path);
        }
        (name.to_string(), path)
    })
}

/// `Bytes` that count what is read of them, as arrow-rs's chunk reader.
#[derive(Clone)]
struct Counted {
    bytes: Bytes,
    read: Arc<AtomicU64>,
}

struct CountedRead {
    inner: bytes::buf::Reader<Bytes>,
    read: Arc<AtomicU64>,
}

impl Read for CountedRead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl Length for Counted {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }
}

impl ChunkReader for Counted {
    type T = CountedRead;
    fn get_read(&self, start: u64) -> parquet::errors::Result<CountedRead> {
        use bytes::Buf;
        Ok(CountedRead {
            inner: self.bytes.slice(start as usize..).reader(),
            read: self.read.clone(),
        })
    }
    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        self.read.fetch_add(length as u64, Ordering::Relaxed);
        Ok(self.bytes.slice(start as usize..start as usize + length))
    }
}

/// arrow-rs's filter of a query: the batch of its columns, the key range
/// and the string it compares with.
type Filter = fn(&RecordBatch, (i64, i64), &str) -> BooleanArray;

/// One query, as pq's predicate text and as arrow-rs's pieces.
struct Query {
    name: &'static str,
    file: usize,
    text: String,
    /// arrow-rs: the columns its filter reads, and the filter.
    columns: Vec<usize>,
    filter: Filter,
    /// arrow-rs: an `l_orderkey` range pruned by statistics and page index.
    key_range: Option<(i64, i64)>,
    /// arrow-rs: a string the `l_comment` Bloom filters are asked for.
    bloom: Option<String>,
}

fn decimal(v: i128) -> Scalar<Decimal128Array> {
    Scalar::new(
        Decimal128Array::from(vec![v])
            .with_precision_and_scale(15, 2)
            .unwrap_or_else(|e| panic!("{e}")),
    )
}

fn queries(file: &Bytes, n: usize) -> Vec<Query> {
    let lo = (n / 8) as i64;
    let hi = lo + (n / 4 / 1000) as i64;
    // A comment that is there, from the middle of the unsorted file.
    let comment = {
        let r = ParquetRecordBatchReaderBuilder::try_new(file.clone())
            .and_then(|b| {
                b.with_batch_size(1)
                    .with_offset(n / 2)
                    .with_limit(1)
                    .build()
            })
            .unwrap_or_else(|e| panic!("{e}"));
        let b = r
            .into_iter()
            .next()
            .and_then(Result::ok)
            .unwrap_or_else(|| panic!("no row"));
        let c = b
            .column_by_name("l_comment")
            .unwrap_or_else(|| panic!("no column"));
        c.as_any()
            .downcast_ref::<StringArray>()
            .map(|s| s.value(0).to_string())
            .unwrap_or_default()
    };
    vec![
        Query {
            name: "0.1 % key range (sorted)",
            file: 0,
            text: format!("l_orderkey BETWEEN {lo} AND {hi}"),
            columns: vec![0],
            filter: |b, (lo, hi), _| {
                let k = b.column(0);
                let a = arrow_ord::cmp::gt_eq(k, &Int64Array::new_scalar(lo));
                let z = arrow_ord::cmp::lt_eq(k, &Int64Array::new_scalar(hi));
                arrow_arith::boolean::and(
                    &a.unwrap_or_else(|e| panic!("{e}")),
                    &z.unwrap_or_else(|e| panic!("{e}")),
                )
                .unwrap_or_else(|e| panic!("{e}"))
            },
            key_range: Some((lo, hi)),
            bloom: None,
        },
        Query {
            name: "1 % of two columns (unsorted)",
            file: 1,
            text: "l_quantity <= 5.00 AND l_discount = 0.05".into(),
            columns: vec![2, 4],
            filter: |b, _, _| {
                let q = arrow_ord::cmp::lt_eq(b.column(0), &decimal(500));
                let d = arrow_ord::cmp::eq(b.column(1), &decimal(5));
                arrow_arith::boolean::and(
                    &q.unwrap_or_else(|e| panic!("{e}")),
                    &d.unwrap_or_else(|e| panic!("{e}")),
                )
                .unwrap_or_else(|e| panic!("{e}"))
            },
            key_range: None,
            bloom: None,
        },
        Query {
            name: "string equality, Bloom filters (unsorted)",
            file: 1,
            text: format!("l_comment = '{comment}'"),
            columns: vec![7],
            filter: |b, _, v| {
                arrow_ord::cmp::eq(b.column(0), &StringArray::new_scalar(v))
                    .unwrap_or_else(|e| panic!("{e}"))
            },
            key_range: None,
            bloom: Some(comment),
        },
    ]
}

/// pq's bytes read for `q` from the file at `path` (from `Bytes` the
/// reader takes slices to the file's end, which says nothing of what a
/// read from a file or a store costs).
fn pq_bytes(path: &Path, q: &Query) -> u64 {
    let p = Predicate::parse(&q.text).unwrap_or_else(|e| panic!("{e}"));
    let mut reader = ParquetReader::open(path)
        .and_then(|r| r.with_predicate(p).build())
        .unwrap_or_else(|e| panic!("{e}"));
    while reader
        .next_batch()
        .unwrap_or_else(|e| panic!("{e}"))
        .is_some()
    {}
    reader.bytes_read()
}

/// pq: rows and bytes read.
fn pq_read(file: &Bytes, q: Option<&Query>) -> (usize, u64) {
    let mut r = ParquetReader::from_bytes(file.clone()).unwrap_or_else(|e| panic!("{e}"));
    if let Some(q) = q {
        r = r.with_predicate(Predicate::parse(&q.text).unwrap_or_else(|e| panic!("{e}")));
    }
    let mut reader = r
        .with_batch_size(8192)
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut rows = 0;
    while let Some(b) = reader.next_batch().unwrap_or_else(|e| panic!("{e}")) {
        rows += b.num_rows();
    }
    (rows, reader.bytes_read())
}

/// arrow-rs as DataFusion drives it: row groups by statistics and Bloom
/// filters, pages by the page index, rows by a `RowFilter`.
fn arrow_rs_read(file: &Bytes, q: Option<&Query>) -> (usize, u64) {
    let counted = Counted {
        bytes: file.clone(),
        read: Arc::new(AtomicU64::new(0)),
    };
    let options = ArrowReaderOptions::new().with_page_index_policy(
        if q.is_some_and(|q| q.key_range.is_some()) {
            PageIndexPolicy::Optional
        } else {
            PageIndexPolicy::Skip
        },
    );
    let mut b = ParquetRecordBatchReaderBuilder::try_new_with_options(counted.clone(), options)
        .unwrap_or_else(|e| panic!("{e}"))
        .with_batch_size(8192);
    if let Some(q) = q {
        let md = b.metadata().clone();
        if let Some(range) = q.key_range {
            let (groups, selection) = common::arrow_rs_pruning::key_selection(&md, 0, range);
            b = b.with_row_groups(groups).with_row_selection(selection);
        }
        if let Some(value) = &q.bloom {
            let groups = common::arrow_rs_pruning::bloom_groups(counted.clone(), 7, value);
            b = b.with_row_groups(groups);
        }
        let mask = ProjectionMask::leaves(b.parquet_schema(), q.columns.clone());
        let (f, range, value) = (q.filter, q.key_range.unwrap_or((0, 0)), q.bloom.clone());
        let predicate = ArrowPredicateFn::new(mask, move |batch| {
            Ok(f(&batch, range, value.as_deref().unwrap_or("")))
        });
        b = b.with_row_filter(RowFilter::new(vec![Box::new(predicate)]));
    }
    let rows = b
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
        .map(|b| b.map(|b| b.num_rows()).unwrap_or_else(|e| panic!("{e}")))
        .sum();
    (rows, counted.read.load(Ordering::Relaxed))
}

/// Polars and DuckDB, one thread each, from the venv `PQ_BENCH_VENV` names
/// (a relative path from the workspace root, where the command is typed:
/// cargo runs benches from the crate's directory): `(reader, median
/// seconds)`, or nothing without one. A venv that does not run is said on
/// stderr, not left to show as empty columns.
fn python_readers(path: &Path, text: &str) -> Vec<(String, String)> {
    let Some(venv) = std::env::var_os("PQ_BENCH_VENV") else {
        return Vec::new();
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let script = root.join("xtask/bench/filter_queries.py");
    let python = root.join(venv).join("bin/python");
    let rounds = std::env::var("PQ_BENCH_ROUNDS").unwrap_or_else(|_| "5".into());
    let out = std::process::Command::new(&python)
        .arg(script)
        .arg(rounds)
        .arg(path)
        .arg(text)
        .output();
    match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter_map(|l| {
                let mut f = l.split('\t');
                Some((f.next()?.to_string(), f.next()?.to_string()))
            })
            .collect(),
        Ok(o) => {
            eprintln!(
                "Polars and DuckDB not run: {} failed: {}",
                python.display(),
                String::from_utf8_lossy(&o.stderr).trim()
            );
            Vec::new()
        }
        Err(e) => {
            eprintln!("Polars and DuckDB not run: {}: {e}", python.display());
            Vec::new()
        }
    }
}

fn main() {
    let n: usize = std::env::var("PQ_FILTER_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4 << 20);
    let files = files(n);
    let bytes: Vec<Bytes> = files
        .iter()
        .map(|(_, p)| Bytes::from(std::fs::read(p).unwrap_or_else(|e| panic!("{e}"))))
        .collect();
    let queries = queries(&bytes[1], n);
    println!("\n{n} rows; medians of alternating rounds, in memory, one thread\n");
    println!(
        "| query | pq ms | arrow-rs ms | pq / arrow-rs | pq full scan ms | pq bytes read | arrow-rs bytes read | Polars s | DuckDB s |"
    );
    println!("|---|--:|--:|--:|--:|--:|--:|--:|--:|");
    for q in &queries {
        let file = &bytes[q.file];
        let (pq_rows, _) = pq_read(file, Some(q));
        let pq_bytes = pq_bytes(&files[q.file].1, q);
        let (rs_rows, rs_bytes) = arrow_rs_read(file, Some(q));
        assert_eq!(pq_rows, rs_rows, "{}: rows", q.name);
        let t = rounds(
            &mut [
                &mut || pq_read(file, Some(q)).0,
                &mut || arrow_rs_read(file, Some(q)).0,
                &mut || pq_read(file, None).0,
            ],
            Duration::from_secs(10),
        );
        let others = python_readers(&files[q.file].1, &q.text);
        let other = |name: &str| {
            others
                .iter()
                .find(|(r, _)| r == name)
                .map_or("-".to_string(), |(_, s)| s.clone())
        };
        let (pq, rs, full) = (median(&t[0]), median(&t[1]), median(&t[2]));
        println!(
            "| {} ({pq_rows} rows) | {:.1} | {:.1} | {:.2} | {:.1} | {pq_bytes} | {rs_bytes} | {} | {} |",
            q.name,
            pq * 1e3,
            rs * 1e3,
            pq / rs,
            full * 1e3,
            other("polars"),
            other("duckdb"),
        );
    }
}
