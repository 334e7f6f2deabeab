//! SQL over Parquet: pq's format against DataFusion's built-in Parquet
//! format (arrow-rs's reader), same session settings, same run.
//!
//! The table is lineitem-like (16 columns, `PQ_SQL_ROWS` rows, default
//! 4 Mi) written by arrow-rs with its defaults but SNAPPY, in 1 Mi-row row
//! groups, into `target/bench-data/datafusion/`. The queries: TPC-H Q1 and
//! Q6, and a 1 % selective filter returning every column, each with 1 and
//! 2 target partitions. Results are checked equal before timing. Criterion
//! times each side, then alternating rounds give the ratio pq / DataFusion
//! (`PQ_BENCH_ROUNDS=N` fixes their number; `PQ_BENCH_ONLY=TEXT` runs the
//! queries whose name contains it). `PQ_BENCH_EXPLAIN=1` prints each
//! query's `EXPLAIN ANALYZE` through both formats instead.

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_array::cast::AsArray;
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use pq_datafusion::{PqReadOptions, SessionContextExt};
use pq_testkit::timing::{median, ratio, rounds};
use tokio::runtime::Runtime;

const QUERIES: [(&str, &str); 3] = [
    ("Q1", common::Q1),
    ("Q6", common::Q6),
    (
        "1% filter, all columns",
        "SELECT * FROM lineitem WHERE l_partkey < 2000",
    ),
];

fn table() -> PathBuf {
    let rows: usize = std::env::var("PQ_SQL_ROWS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(4 << 20);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-data/datafusion");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join(format!("lineitem-{rows}.parquet"));
    common::write_lineitem(&path, rows, 1 << 20);
    path
}

/// A context with the table registered through pq (`pq`) or DataFusion's
/// Parquet format.
fn context(rt: &Runtime, path: &str, partitions: usize, pq: bool) -> SessionContext {
    let ctx =
        SessionContext::new_with_config(SessionConfig::new().with_target_partitions(partitions));
    rt.block_on(async {
        if pq {
            ctx.register_pq("lineitem", path, PqReadOptions::default())
                .await
        } else {
            ctx.register_parquet("lineitem", path, ParquetReadOptions::default())
                .await
        }
    })
    .unwrap_or_else(|e| panic!("{e}"));
    ctx
}

/// Runs `sql`: its result batches.
fn run(rt: &Runtime, ctx: &SessionContext, sql: &str) -> Vec<RecordBatch> {
    rt.block_on(async { ctx.sql(sql).await?.collect().await })
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// Runs `sql`: the number of result rows (what is timed: rendering the
/// rows as text is the check's work, not the query's).
fn rows(rt: &Runtime, ctx: &SessionContext, sql: &str) -> usize {
    run(rt, ctx, sql).iter().map(|b| b.num_rows()).sum()
}

/// Runs `sql`: its rows as text, for the check.
fn text(rt: &Runtime, ctx: &SessionContext, sql: &str) -> Vec<String> {
    common::render(&run(rt, ctx, sql), sql.contains("ORDER BY"))
}

/// `PQ_BENCH_EXPLAIN=1`: each query's `EXPLAIN ANALYZE` through both
/// formats on one partition, instead of timing: the scan's metrics beside
/// those of the operators above it, to see which part of a query the
/// format can change.
fn explain(rt: &Runtime, path: &str) {
    for (name, sql) in QUERIES {
        for pq in [true, false] {
            let ctx = context(rt, path, 1, pq);
            let side = if pq { "pq" } else { "datafusion-parquet" };
            println!("== {name}, {side}");
            for batch in run(rt, &ctx, &format!("EXPLAIN ANALYZE {sql}")) {
                // The plan with its metrics is the second column.
                let plans = batch.column(1).as_string::<i32>();
                for plan in plans.iter().flatten() {
                    println!("{plan}");
                }
            }
        }
    }
}

fn main() {
    let path = table();
    let path = path.display().to_string();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut c = criterion::Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .sample_size(10)
        .configure_from_args();
    if std::env::var_os("PQ_BENCH_EXPLAIN").is_some() {
        explain(&rt, &path);
        return;
    }
    let only = std::env::var("PQ_BENCH_ONLY").unwrap_or_default();
    let mut table_rows = Vec::new();
    for partitions in [1, 2] {
        let ours = context(&rt, &path, partitions, true);
        let theirs = context(&rt, &path, partitions, false);
        for (name, sql) in QUERIES.into_iter().filter(|(name, _)| name.contains(&only)) {
            let (a, b) = (text(&rt, &ours, sql), text(&rt, &theirs, sql));
            assert_eq!(a, b, "{name}: the results differ");
            let mut g = c.benchmark_group(format!("{name}, {partitions} partition(s)"));
            g.bench_function("pq", |bench| bench.iter(|| rows(&rt, &ours, sql)));
            g.bench_function("datafusion-parquet", |bench| {
                bench.iter(|| rows(&rt, &theirs, sql))
            });
            g.finish();
            let t = rounds(
                &mut [&mut || rows(&rt, &ours, sql), &mut || {
                    rows(&rt, &theirs, sql)
                }],
                Duration::from_secs(10),
            );
            let (r, iqr) = ratio(&t[0], &t[1]);
            table_rows.push(format!(
                "| {name} | {partitions} | {:.1} | {:.1} | {r:.2} ({iqr}) | {} |",
                median(&t[0]) * 1e3,
                median(&t[1]) * 1e3,
                t[0].len()
            ));
        }
    }
    c.final_summary();
    println!("\n| query | partitions | pq ms | DataFusion Parquet ms | ratio (IQR) | rounds |");
    println!("|---|---|---|---|---|---|");
    for row in table_rows {
        println!("{row}");
    }
}
