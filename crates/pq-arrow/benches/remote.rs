//! Remote reads: pq's async reader (`ObjectStoreReader` over object_store
//! 0.13's `HttpStore`) against arrow-rs's `ParquetRecordBatchStreamBuilder`
//! over `ParquetObjectReader` (the same store: the workspace's arrow-rs
//! takes object_store 0.13 too), both with their defaults, reading the same
//! object from pq-testkit's HTTP `RangeServer` through its `FaultProxy`,
//! which adds a latency to every request and passes each body on as it
//! arrives (20 ms; then no latency, straight to the server).
//!
//! The table is lineitem-like (16 columns, `PQ_REMOTE_ROWS` rows, default
//! 4 Mi), written by arrow-rs with SNAPPY and 1 Mi-row row groups into
//! `target/bench-data/remote/`. The reads: the whole file, 3 of the 16
//! columns, one row group, and two filtered reads of every column: 0.1 %
//! of the sorted key (arrow-rs given its row groups and pages by the
//! statistics and the page index, as DataFusion drives it) and a 1 %
//! conjunction of two unsorted columns (arrow-rs given it as a
//! `RowFilter`); one decoding thread, batches of 8192, rows checked equal
//! before timing. With no added latency, pq's remote read is
//! also set against pq's reads of the same file on the local disk: the
//! sync reader from its path, and the same async reader over object_store's
//! `LocalFileSystem` (the same requests, answered by the disk: what the
//! network adds and nothing else).
//!
//! A markdown table of the medians of alternating rounds is printed, with
//! the requests and bytes each reader made through the proxy
//! (`PQ_BENCH_ROUNDS=N` fixes the rounds; `PQ_BENCH_ONLY=TEXT` keeps the
//! reads whose name contains TEXT, `PQ_BENCH_LATENCY=MS` one latency).

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use arrow_array::{
    ArrayRef, BooleanArray, Date32Array, Decimal128Array, Int32Array, Int64Array, RecordBatch,
    Scalar, StringArray,
};
use bytes::Bytes;
use common::{median, ratio, rounds};
use futures::TryStreamExt;
use pq_arrow::predicate::Predicate;
use pq_arrow::{ObjectStoreReader, ParquetReader, ParquetRecordBatchStreamBuilder, ProjectionMask};
use pq_testkit::{FaultProxy, RangeServer, Rng};

const OBJECT: &str = "lineitem.parquet";

fn lineitem(n: usize) -> RecordBatch {
    let mut r = Rng(11);
    let mut ints = |m: u64| -> Vec<i64> { (0..n).map(|_| r.below(m) as i64).collect() };
    let orderkey: Vec<i64> = (0..n).map(|i| (i / 4) as i64).collect();
    let partkey = ints(200_000);
    let suppkey = ints(10_000);
    let linenumber: Vec<i32> = (0..n).map(|i| (i % 7 + 1) as i32).collect();
    let dec = |v: Vec<i64>| -> ArrayRef {
        Arc::new(
            Decimal128Array::from_iter_values(v.into_iter().map(i128::from))
                .with_precision_and_scale(15, 2)
                .unwrap_or_else(|e| panic!("{e}")),
        )
    };
    let quantity: Vec<i64> = ints(50).into_iter().map(|q| (q + 1) * 100).collect();
    let price = ints(10_000_000);
    let discount = ints(11);
    let tax = ints(9);
    let flags = ["A", "N", "R"];
    let status = ["F", "O"];
    let instruct = [
        "DELIVER IN PERSON",
        "COLLECT COD",
        "NONE",
        "TAKE BACK RETURN",
    ];
    let modes = ["AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB", "REG AIR"];
    let pick = |v: &[&'static str], m: Vec<i64>| -> ArrayRef {
        Arc::new(StringArray::from_iter_values(
            m.into_iter().map(|i| v[i as usize % v.len()]),
        ))
    };
    let day = ints(2500);
    let dates = |shift: i64| -> ArrayRef {
        Arc::new(Date32Array::from_iter_values(
            day.iter().map(|d| (8000 + d + shift) as i32),
        ))
    };
    let comment: ArrayRef = Arc::new(StringArray::from_iter_values((0..n).map(|i| {
        format!(
            "c{:x} slyly {}",
            i.wrapping_mul(2_654_435_761) % 100_000_007,
            i % 97
        )
    })));
    RecordBatch::try_from_iter([
        (
            "l_orderkey",
            Arc::new(Int64Array::from(orderkey)) as ArrayRef,
        ),
        ("l_partkey", Arc::new(Int64Array::from(partkey))),
        ("l_suppkey", Arc::new(Int64Array::from(suppkey))),
        ("l_linenumber", Arc::new(Int32Array::from(linenumber))),
        ("l_quantity", dec(quantity)),
        ("l_extendedprice", dec(price)),
        ("l_discount", dec(discount)),
        ("l_tax", dec(tax)),
        ("l_returnflag", pick(&flags, ints(3))),
        ("l_linestatus", pick(&status, ints(2))),
        ("l_shipdate", dates(0)),
        ("l_commitdate", dates(30)),
        ("l_receiptdate", dates(45)),
        ("l_shipinstruct", pick(&instruct, ints(4))),
        ("l_shipmode", pick(&modes, ints(7))),
        ("l_comment", comment),
    ])
    .unwrap_or_else(|e| panic!("{e}"))
}

/// The table's file, written once per row count.
fn file(n: usize) -> PathBuf {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../target/bench-data/remote/{n}"));
    let path = dir.join(OBJECT);
    if path.exists() {
        return path;
    }
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let batch = lineitem(n);
    let props = parquet::file::properties::WriterProperties::builder()
        .set_compression(parquet::basic::Compression::SNAPPY)
        .build();
    let tmp = dir.join("lineitem.tmp");
    let out = std::fs::File::create(&tmp).unwrap_or_else(|e| panic!("{e}"));
    let mut w = parquet::arrow::ArrowWriter::try_new(out, batch.schema(), Some(props))
        .unwrap_or_else(|e| panic!("{e}"));
    for start in (0..n).step_by(1 << 16) {
        w.write(&batch.slice(start, (n - start).min(1 << 16)))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    w.close().unwrap_or_else(|e| panic!("{e}"));
    std::fs::rename(&tmp, &path).unwrap_or_else(|e| panic!("{e}"));
    path
}

/// One read: its name, the leaf columns (all when `None`), row groups
/// (all when `None`) and predicate.
struct Read {
    name: &'static str,
    leaves: Option<Vec<usize>>,
    row_groups: Option<Vec<usize>>,
    filter: Option<Filter>,
}

/// A predicate: pq's text of it, and for arrow-rs the leaves it reads and
/// its test of a batch of them (a `RowFilter`), plus, for a key range on
/// leaf 0, its row groups and pages chosen by the statistics and the page
/// index (as DataFusion drives arrow-rs).
struct Filter {
    text: String,
    leaves: Vec<usize>,
    test: fn(&RecordBatch, (i64, i64)) -> BooleanArray,
    key_range: Option<(i64, i64)>,
}

fn decimal(v: i128) -> Scalar<Decimal128Array> {
    Scalar::new(
        Decimal128Array::from(vec![v])
            .with_precision_and_scale(15, 2)
            .unwrap_or_else(|e| panic!("{e}")),
    )
}

fn both(
    a: Result<BooleanArray, arrow_schema::ArrowError>,
    b: Result<BooleanArray, arrow_schema::ArrowError>,
) -> BooleanArray {
    let (a, b) = (
        a.unwrap_or_else(|e| panic!("{e}")),
        b.unwrap_or_else(|e| panic!("{e}")),
    );
    arrow_arith::boolean::and(&a, &b).unwrap_or_else(|e| panic!("{e}"))
}

async fn pq_remote(store: Arc<dyn object_store::ObjectStore>, read: &Read) -> usize {
    let reader = ObjectStoreReader::new(store, object_store::path::Path::from(OBJECT));
    let mut b = ParquetRecordBatchStreamBuilder::new(reader)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    if let Some(l) = &read.leaves {
        let mask = ProjectionMask::leaves(b.parquet_schema(), l.iter().copied());
        b = b.with_projection(mask);
    }
    if let Some(g) = &read.row_groups {
        b = b.with_row_groups(g.iter().copied());
    }
    if let Some(f) = &read.filter {
        b = b.with_predicate(Predicate::parse(&f.text).unwrap_or_else(|e| panic!("{e}")));
    }
    let s = b
        .with_batch_size(8192)
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    s.try_fold(0, |a, b| futures::future::ready(Ok(a + b.num_rows())))
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

// `ParquetObjectReader` is what the docs and most users start from: the
// arrow-rs reader's default over object_store.
#[allow(deprecated)]
async fn arrow_rs_remote(store: Arc<dyn object_store::ObjectStore>, read: &Read) -> usize {
    use parquet::arrow::async_reader::{ParquetObjectReader, ParquetRecordBatchStreamBuilder};
    let reader = ParquetObjectReader::new(store, object_store::path::Path::from(OBJECT));
    // The page index only for a predicate it prunes by (a key range).
    let with_index = read.filter.as_ref().is_some_and(|f| f.key_range.is_some());
    let options =
        parquet::arrow::arrow_reader::ArrowReaderOptions::new().with_page_index(with_index);
    let mut b = ParquetRecordBatchStreamBuilder::new_with_options(reader, options)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    if let Some(l) = &read.leaves {
        let mask = parquet::arrow::ProjectionMask::leaves(b.parquet_schema(), l.iter().copied());
        b = b.with_projection(mask);
    }
    if let Some(g) = &read.row_groups {
        b = b.with_row_groups(g.clone());
    }
    if let Some(f) = &read.filter {
        use parquet::arrow::arrow_reader::{ArrowPredicateFn, RowFilter};
        if let Some(range) = f.key_range {
            let (groups, selection) =
                common::arrow_rs_pruning::key_selection(b.metadata(), 0, range);
            b = b.with_row_groups(groups).with_row_selection(selection);
        }
        let mask = parquet::arrow::ProjectionMask::leaves(b.parquet_schema(), f.leaves.clone());
        let (test, range) = (f.test, f.key_range.unwrap_or((0, 0)));
        let predicate = ArrowPredicateFn::new(mask, move |batch| Ok(test(&batch, range)));
        b = b.with_row_filter(RowFilter::new(vec![Box::new(predicate)]));
    }
    let s = b
        .with_batch_size(8192)
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    s.try_fold(0, |a, b| futures::future::ready(Ok(a + b.num_rows())))
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

fn pq_local(path: &Path, read: &Read) -> usize {
    let mut b = ParquetReader::open(path).unwrap_or_else(|e| panic!("{e}"));
    if let Some(l) = &read.leaves {
        let mask = ProjectionMask::leaves(b.parquet_schema(), l.iter().copied());
        b = b.with_projection(mask);
    }
    if let Some(g) = &read.row_groups {
        b = b.with_row_groups(g.iter().copied());
    }
    if let Some(f) = &read.filter {
        b = b.with_predicate(Predicate::parse(&f.text).unwrap_or_else(|e| panic!("{e}")));
    }
    let r = b
        .with_batch_size(8192)
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    r.map(|b| b.map(|b| b.num_rows()).unwrap_or_else(|e| panic!("{e}")))
        .sum()
}

fn main() {
    let n: usize = std::env::var("PQ_REMOTE_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4 << 20);
    let path = file(n);
    let bytes = Bytes::from(std::fs::read(&path).unwrap_or_else(|e| panic!("{e}")));
    let server = RangeServer::start().unwrap_or_else(|e| panic!("{e}"));
    server.put(OBJECT, bytes.clone());
    let proxy = FaultProxy::start(server.addr()).unwrap_or_else(|e| panic!("{e}"));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    // Through the proxy (added latency) and straight to the server (none);
    // both readers take the same object_store version.
    let store = |url: String| -> Arc<dyn object_store::ObjectStore> {
        Arc::new(
            object_store::http::HttpBuilder::new()
                .with_url(url)
                .with_client_options(object_store::ClientOptions::new().with_allow_http(true))
                .build()
                .unwrap_or_else(|e| panic!("{e}")),
        )
    };
    let row_groups = ParquetReader::open(&path)
        .unwrap_or_else(|e| panic!("{e}"))
        .num_row_groups();
    // Orders of four rows: a thousandth of the rows from an eighth in.
    let (key_lo, key_hi) = ((n / 8) as i64, (n / 8 + n / 4 / 1000) as i64);
    let reads = [
        Read {
            name: "whole file",
            leaves: None,
            row_groups: None,
            filter: None,
        },
        Read {
            name: "3 of 16 columns",
            leaves: Some(vec![4, 6, 10]),
            row_groups: None,
            filter: None,
        },
        Read {
            name: "one row group",
            leaves: None,
            row_groups: Some(vec![row_groups / 2]),
            filter: None,
        },
        // 0.1 % of the sorted key (an order holds four rows), every column.
        Read {
            name: "0.1 % key range",
            leaves: None,
            row_groups: None,
            filter: Some(Filter {
                text: format!("l_orderkey BETWEEN {key_lo} AND {key_hi}"),
                leaves: vec![0],
                test: |b, (lo, hi)| {
                    let k = b.column(0);
                    both(
                        arrow_ord::cmp::gt_eq(k, &Int64Array::new_scalar(lo)),
                        arrow_ord::cmp::lt_eq(k, &Int64Array::new_scalar(hi)),
                    )
                },
                key_range: Some((key_lo, key_hi)),
            }),
        },
        // About 1 % of the rows, by two unsorted columns, every column.
        Read {
            name: "1 % conjunction",
            leaves: None,
            row_groups: None,
            filter: Some(Filter {
                text: "l_quantity <= 5.00 AND l_discount = 0.05".into(),
                leaves: vec![4, 6],
                test: |b, _| {
                    both(
                        arrow_ord::cmp::lt_eq(b.column(0), &decimal(500)),
                        arrow_ord::cmp::eq(b.column(1), &decimal(5)),
                    )
                },
                key_range: None,
            }),
        },
    ];
    println!(
        "\nremote reads of a {n}-row lineitem-like table ({} MB, {row_groups} row groups), \
         pq / arrow-rs, one decoding thread\n",
        bytes.len() / 1_000_000
    );
    println!(
        "| read | latency | pq | arrow-rs | pq / arrow-rs | requests pq / arrow-rs | MB fetched pq / arrow-rs | pq local path | remote / local | pq async, local store | remote / async local |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    // The same file on the local disk, through object_store's local store.
    let local_store: Arc<dyn object_store::ObjectStore> = Arc::new(
        path.parent()
            .map(object_store::local::LocalFileSystem::new_with_prefix)
            .unwrap_or_else(|| panic!("{} has no directory", path.display()))
            .unwrap_or_else(|e| panic!("{e}")),
    );
    let only = std::env::var("PQ_BENCH_ONLY").unwrap_or_default();
    let latencies: Vec<u64> = match std::env::var("PQ_BENCH_LATENCY") {
        Ok(ms) => vec![
            ms.parse()
                .unwrap_or_else(|e| panic!("PQ_BENCH_LATENCY={ms}: {e}")),
        ],
        Err(_) => vec![20, 0],
    };
    for latency_ms in latencies {
        proxy
            .faults()
            .set_latency(Duration::from_millis(latency_ms));
        // With no added latency the proxy is left out: straight to the
        // server, the reads pay for nothing but the transfer.
        let url = if latency_ms > 0 {
            proxy.url()
        } else {
            server.url()
        };
        let (ours, theirs) = (store(url.clone()), store(url));
        let counts = || {
            if latency_ms > 0 {
                let s = proxy.stats();
                (s.requests, s.response_bytes)
            } else {
                (server.requests().total(), server.body_bytes())
            }
        };
        let reset = || {
            proxy.reset_stats();
            server.reset_stats();
        };
        for read in reads.iter().filter(|r| r.name.contains(&only)) {
            // The same rows, and each reader's requests, before timing.
            reset();
            let a = rt.block_on(pq_remote(ours.clone(), read));
            let pq_stats = counts();
            reset();
            let b = rt.block_on(arrow_rs_remote(theirs.clone(), read));
            let their_stats = counts();
            assert_eq!(a, b, "{}: pq and arrow-rs read different rows", read.name);
            let mut pq_side = || rt.block_on(pq_remote(ours.clone(), read));
            let mut arrow_side = || rt.block_on(arrow_rs_remote(theirs.clone(), read));
            let mut local_side = || pq_local(&path, read);
            let mut async_local_side = || rt.block_on(pq_remote(local_store.clone(), read));
            let times = if latency_ms == 0 {
                assert_eq!(
                    async_local_side(),
                    a,
                    "{}: the local store's rows",
                    read.name
                );
                rounds(
                    &mut [
                        &mut pq_side,
                        &mut arrow_side,
                        &mut local_side,
                        &mut async_local_side,
                    ],
                    Duration::from_secs(20),
                )
            } else {
                rounds(
                    &mut [&mut pq_side, &mut arrow_side],
                    Duration::from_secs(20),
                )
            };
            let (r, iqr) = ratio(&times[0], &times[1]);
            let local = times.get(2);
            let async_local = times.get(3);
            let against = |l: Option<&Vec<f64>>| {
                let time = l.map_or("".into(), |l| format!("{:.1} ms", median(l) * 1e3));
                let r = l.map_or("".into(), |l| {
                    let (r, iqr) = ratio(&times[0], l);
                    format!("{r:.2} ({iqr})")
                });
                (time, r)
            };
            let ((local_ms, local_r), (async_ms, async_r)) = (against(local), against(async_local));
            println!(
                "| {} | {latency_ms} ms | {:.1} ms | {:.1} ms | {r:.2} ({iqr}) | {} / {} | {:.1} / {:.1} | {local_ms} | {local_r} | {async_ms} | {async_r} |",
                read.name,
                median(&times[0]) * 1e3,
                median(&times[1]) * 1e3,
                pq_stats.0,
                their_stats.0,
                pq_stats.1 as f64 / 1e6,
                their_stats.1 as f64 / 1e6,
            );
        }
        // What moving the bytes alone costs: the whole object in one GET.
        if !"the whole object".contains(&only) {
            continue;
        }
        let mut whole = || {
            rt.block_on(async {
                use object_store::ObjectStoreExt;
                let path = object_store::path::Path::from(OBJECT);
                let r = ours.get(&path).await.unwrap_or_else(|e| panic!("{e}"));
                r.bytes().await.unwrap_or_else(|e| panic!("{e}")).len()
            })
        };
        let t = rounds(&mut [&mut whole], Duration::from_secs(10));
        println!(
            "| the whole object in one GET (no decoding) | {latency_ms} ms | {:.1} ms | | | 1 | {:.1} | | | | |",
            median(&t[0]) * 1e3,
            bytes.len() as f64 / 1e6
        );
    }
}
