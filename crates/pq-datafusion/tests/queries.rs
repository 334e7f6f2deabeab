//! The query suite: the same SQL over the same files through pq's format
//! and through DataFusion's built-in Parquet format (arrow-rs's reader),
//! with 1 and 2 target partitions and with files split by byte range
//! across partitions; the rows must be identical (in order where the query
//! has an ORDER BY). Then every corpus file, whole and counted, and the
//! corpus's corrupt files, which must fail with pq's one-line message and
//! never panic.
//!
//! One test binary on purpose: DataFusion is large, and each binary that
//! links it costs CI minutes.

mod common;

use std::path::{Path, PathBuf};

use common::{render, write_lineitem};
use datafusion::error::Result;
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use pq_datafusion::{PqReadOptions, SessionContextExt};

/// How a context is set up for a round of queries.
#[derive(Debug, Clone, Copy)]
struct Setup {
    partitions: usize,
    /// Split files into byte ranges across partitions (a tiny minimum
    /// size for repartitioning).
    split_files: bool,
}

const SETUPS: [Setup; 3] = [
    Setup {
        partitions: 1,
        split_files: false,
    },
    Setup {
        partitions: 2,
        split_files: false,
    },
    Setup {
        partitions: 2,
        split_files: true,
    },
];

fn context(setup: Setup) -> SessionContext {
    let mut config = SessionConfig::new().with_target_partitions(setup.partitions);
    if setup.split_files {
        config = config
            .with_repartition_file_scans(true)
            .with_repartition_file_min_size(1024);
    }
    SessionContext::new_with_config(config)
}

/// The two contexts with `tables` registered in each.
async fn contexts(
    setup: Setup,
    tables: &[(&str, String)],
) -> Result<(SessionContext, SessionContext)> {
    let (ours, theirs) = (context(setup), context(setup));
    for (name, location) in tables {
        ours.register_pq(name, location, PqReadOptions::default())
            .await?;
        theirs
            .register_parquet(*name, location, ParquetReadOptions::default())
            .await?;
    }
    Ok((ours, theirs))
}

async fn rows(ctx: &SessionContext, sql: &str) -> Result<Vec<String>> {
    let batches = ctx.sql(sql).await?.collect().await?;
    Ok(render(&batches, sql.contains("ORDER BY")))
}

fn data_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/test-data/pq-datafusion");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}

/// lineitem (200 000 rows in 4 row groups) and a small orders-like table
/// made from it, both written by arrow-rs.
fn tables() -> Vec<(&'static str, String)> {
    let dir = data_dir();
    let lineitem = dir.join("lineitem-200k.parquet");
    write_lineitem(&lineitem, 200_000, 50_000);
    let orders = dir.join("lineitem-head.parquet");
    write_lineitem(&orders, 4_000, 1_000);
    vec![
        ("lineitem", lineitem.display().to_string()),
        ("head", orders.display().to_string()),
    ]
}

const QUERIES: &[&str] = &[
    common::Q1,
    common::Q6,
    // A 1 % selective filter, all columns.
    "SELECT * FROM lineitem WHERE l_partkey < 2000",
    // Filters of each kind pq translates, and ones it does not.
    "SELECT l_orderkey, l_linenumber FROM lineitem WHERE l_shipmode = 'AIR' AND l_quantity < 5",
    "SELECT l_orderkey, l_linenumber FROM lineitem WHERE l_shipmode IN ('MAIL', 'SHIP') AND l_suppkey = 17",
    "SELECT l_orderkey, l_linenumber FROM lineitem WHERE l_shipmode NOT IN ('MAIL', 'SHIP', 'AIR', 'FOB', 'RAIL') AND l_partkey > 199000",
    "SELECT count(*) FROM lineitem WHERE l_comment IS NULL",
    "SELECT count(*) FROM lineitem WHERE l_comment IS NOT NULL AND l_comment LIKE 'furiously%'",
    "SELECT count(*) FROM lineitem WHERE l_comment NOT LIKE '%quickly%'",
    "SELECT count(*) FROM lineitem WHERE l_comment ILIKE 'FURIOUSLY%'",
    "SELECT l_orderkey FROM lineitem WHERE NOT (l_quantity >= 2) OR l_shipdate = DATE '1995-03-15'",
    "SELECT l_orderkey FROM lineitem WHERE l_partkey + l_suppkey = 100000 OR l_orderkey = 7",
    "SELECT l_orderkey FROM lineitem WHERE CAST(l_linenumber AS BIGINT) * 1000 = l_orderkey",
    "SELECT l_orderkey FROM lineitem WHERE l_receiptdate < l_commitdate AND l_shipdate BETWEEN DATE '1996-01-01' AND DATE '1996-01-03'",
    "SELECT count(*) FROM lineitem WHERE l_orderkey > 1000000",
    // Decimal arithmetic in the projection pushed into the scan: small
    // values, a side with nulls, and a factor past 64 bits (DataFusion's
    // kernel then decides).
    "SELECT l_orderkey, l_linenumber, l_extendedprice * (1 - l_discount) * (1 + l_tax), \
     l_extendedprice - l_quantity, l_tax + 0.005 FROM lineitem WHERE l_shipmode = 'AIR' AND l_quantity < 10",
    "SELECT l_orderkey, l_linenumber, l_quantity * CASE WHEN l_linenumber = 1 THEN NULL ELSE l_tax END \
     FROM lineitem WHERE l_shipmode = 'MAIL' AND l_quantity < 5",
    "SELECT l_orderkey, l_linenumber, l_extendedprice * CAST('12345678901234567890.12' AS DECIMAL(22, 2)) \
     FROM lineitem WHERE l_shipmode = 'RAIL' AND l_quantity < 5",
    // Decimal arithmetic in aggregates' arguments, moved into the scan: a
    // part shared by two aggregates, a part of an argument, a side with
    // nulls, a factor past 64 bits, DISTINCT, HAVING on a moved aggregate;
    // and, left in the aggregate, an argument under FILTER.
    "SELECT l_shipmode, sum(l_extendedprice * l_discount), avg(l_extendedprice * l_discount), \
     sum(l_quantity * (1 + l_tax)) FROM lineitem GROUP BY l_shipmode",
    "SELECT l_linenumber, sum(l_quantity * CASE WHEN l_linenumber = 1 THEN NULL ELSE l_tax END), \
     max(l_extendedprice * CAST('123456789012345678.12' AS DECIMAL(20, 2))), \
     count(DISTINCT l_quantity * l_discount) FROM lineitem WHERE l_quantity < 30 GROUP BY l_linenumber",
    "SELECT l_shipmode, sum(l_extendedprice * (1 - l_discount)) AS s FROM lineitem \
     WHERE l_quantity < 20 GROUP BY l_shipmode HAVING sum(l_extendedprice * (1 - l_discount)) > 100000 ORDER BY s",
    "SELECT sum(l_extendedprice * l_discount) FILTER (WHERE l_quantity < 10), \
     sum(l_extendedprice * l_discount) FROM lineitem",
    // Aggregates the planner may answer from statistics.
    "SELECT count(*) FROM lineitem",
    "SELECT min(l_orderkey), max(l_orderkey), min(l_shipdate), max(l_shipdate), min(l_shipmode), max(l_shipmode) FROM lineitem",
    "SELECT count(l_comment), count(DISTINCT l_shipmode) FROM lineitem",
    "SELECT l_shipmode, count(*), sum(l_quantity), min(l_receiptdate) FROM lineitem GROUP BY l_shipmode",
    // LIMIT, with and without an order.
    "SELECT l_orderkey, l_comment FROM lineitem ORDER BY l_extendedprice DESC, l_orderkey, l_linenumber LIMIT 10",
    "SELECT count(*) FROM (SELECT * FROM lineitem LIMIT 12345)",
    "SELECT count(*) FROM (SELECT l_orderkey FROM lineitem WHERE l_shipmode = 'RAIL' LIMIT 100)",
    // Joins.
    "SELECT h.l_shipmode, count(*) FROM lineitem l JOIN head h ON l.l_orderkey = h.l_orderkey \
     AND l.l_linenumber = h.l_linenumber GROUP BY h.l_shipmode",
    "SELECT l.l_orderkey, h.l_partkey FROM lineitem l JOIN head h ON l.l_partkey = h.l_partkey WHERE h.l_quantity > 45",
    "SELECT count(*) FROM lineitem l LEFT JOIN head h ON l.l_orderkey = h.l_orderkey AND h.l_linenumber = 1 WHERE h.l_orderkey IS NULL",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queries_agree_with_datafusions_parquet() -> Result<()> {
    let tables = tables();
    for setup in SETUPS {
        let (ours, theirs) = contexts(setup, &tables).await?;
        for sql in QUERIES {
            let (a, b) = (rows(&ours, sql).await?, rows(&theirs, sql).await?);
            assert_eq!(a.len(), b.len(), "{setup:?}: {sql}: row counts");
            assert!(
                a == b,
                "{setup:?}: {sql}: rows differ, first: {:?} vs {:?}",
                first_diff(&a, &b),
                ""
            );
        }
    }
    Ok(())
}

fn first_diff(a: &[String], b: &[String]) -> Option<(String, String)> {
    a.iter()
        .zip(b)
        .find(|(x, y)| x != y)
        .map(|(x, y)| (x.clone(), y.clone()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filters_reach_pq_and_prune() -> Result<()> {
    let tables = tables();
    let (ours, _) = contexts(SETUPS[0], &tables).await?;
    let plan = ours
        .sql("EXPLAIN SELECT l_orderkey FROM lineitem WHERE l_orderkey < 100")
        .await?
        .collect()
        .await?;
    let text = render(&plan, true).join("\n");
    assert!(text.contains("file_type=pq"), "{text}");
    assert!(text.contains("predicate=l_orderkey"), "{text}");
    // Exact: pq's rows are the answer, DataFusion keeps no filter of its own.
    assert!(!text.contains("FilterExec"), "{text}");
    // A filter pq cannot translate whole stays DataFusion's too.
    let plan = ours
        .sql("EXPLAIN SELECT l_orderkey FROM lineitem WHERE l_orderkey + 1 < 100")
        .await?
        .collect()
        .await?;
    let text = render(&plan, true).join("\n");
    assert!(text.contains("FilterExec"), "{text}");
    Ok(())
}

/// Decimal arithmetic in an aggregate's arguments over a pq table is
/// computed in pq's scan (the projection DataFusion pushes into it); over
/// DataFusion's own format, and under an aggregate's FILTER, it stays in
/// the aggregate.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aggregate_arithmetic_reaches_the_scan() -> Result<()> {
    let tables = tables();
    let (ours, theirs) = contexts(SETUPS[1], &tables).await?;
    let explain = |ctx: SessionContext, sql: &'static str| async move {
        let plan = ctx.sql(&format!("EXPLAIN {sql}")).await?.collect().await?;
        Ok::<_, datafusion::error::DataFusionError>(render(&plan, true).join("\n"))
    };
    let text = explain(ours.clone(), common::Q1).await?;
    // `1 + l_tax` of `sum(l_extendedprice * (1 - l_discount) * (1 + l_tax))`.
    let scan = text
        .lines()
        .find(|l| l.contains("DataSourceExec"))
        .unwrap_or_default();
    assert!(scan.contains("1 + l_tax@"), "{text}");
    assert!(scan.contains("__pq_aggregate_arg"), "{text}");
    assert!(!text.contains("ProjectionExec: expr=[__"), "{text}");
    // What stays in the aggregate, `__common_expr_1 * __pq_aggregate_arg_2`
    // (a product of two columns the scan computes), is pq's expression
    // there, which displays as DataFusion's but not in `Debug`.
    let arith = |plan: &dyn datafusion::physical_plan::ExecutionPlan| {
        format!("{plan:?}").contains("DecimalArith")
    };
    let plan = ours.sql(common::Q1).await?.create_physical_plan().await?;
    assert!(arith(plan.as_ref()), "{plan:?}");
    let text = explain(theirs.clone(), common::Q1).await?;
    assert!(!text.contains("__pq_aggregate_arg"), "{text}");
    // Over DataFusion's format, in the same session, it stays arrow's.
    let location = &tables[0].1;
    ours.register_parquet("li_parquet", location, ParquetReadOptions::default())
        .await?;
    let q1 = common::Q1.replace("FROM lineitem", "FROM li_parquet");
    let plan = ours.sql(&q1).await?.create_physical_plan().await?;
    assert!(!arith(plan.as_ref()), "{plan:?}");
    let text = explain(
        ours,
        "SELECT sum(l_extendedprice * l_discount) FILTER (WHERE l_quantity < 10) FROM lineitem",
    )
    .await?;
    assert!(!text.contains("__pq_aggregate_arg"), "{text}");
    Ok(())
}

/// A table of two files, the second without column `x`: filters on `x`
/// are pushed down exactly (pq's predicate in the first file; in the
/// second, where it cannot translate, DataFusion's expression evaluated in
/// the scan), and the rows agree with DataFusion's Parquet format, limits
/// included.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exact_filters_hold_in_files_without_their_column() -> Result<()> {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    use datafusion::parquet::arrow::ArrowWriter;

    let dir = data_dir().join("evolved");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let n = 5000i64;
    let id = |from: i64| Arc::new(Int64Array::from_iter_values(from..from + n)) as ArrayRef;
    let s = |from: i64| {
        Arc::new(StringArray::from_iter_values(
            (from..from + n).map(|i| ["a", "b", "c"][(i % 3) as usize]),
        )) as ArrayRef
    };
    let x = Arc::new(Int64Array::from_iter(
        (0..n).map(|i| (i % 10 != 0).then_some(i % 7)),
    )) as ArrayRef;
    let with_x = RecordBatch::try_from_iter([("id", id(0)), ("s", s(0)), ("x", x)])?;
    let without_x = RecordBatch::try_from_iter([("id", id(n)), ("s", s(n))])?;
    for (name, batch) in [("a.parquet", with_x), ("b.parquet", without_x)] {
        let file = std::fs::File::create(dir.join(name))?;
        let mut w = ArrowWriter::try_new(file, batch.schema(), None)?;
        w.write(&batch)?;
        w.close()?;
    }
    let location = format!("{}/", dir.display());
    for setup in SETUPS {
        let (ours, theirs) = contexts(setup, &[("t", location.clone())]).await?;
        for sql in [
            "SELECT id, s FROM t WHERE x = 3",
            "SELECT id FROM t WHERE x IS NULL",
            "SELECT id FROM t WHERE x IS NULL AND s = 'b'",
            "SELECT id, x FROM t WHERE x > 4 OR x IS NULL",
            "SELECT count(*) FROM t WHERE x IS NOT NULL",
            "SELECT count(*) FROM t WHERE x IS NULL",
            "SELECT count(*) FROM (SELECT id FROM t WHERE x IS NULL LIMIT 7)",
            "SELECT count(*) FROM (SELECT id FROM t WHERE x IS NULL AND s = 'c' LIMIT 4000)",
            "SELECT id FROM t WHERE x + 1 = 4 AND s = 'a'",
        ] {
            let (a, b) = (rows(&ours, sql).await?, rows(&theirs, sql).await?);
            assert!(a == b, "{setup:?}: {sql}: {:?}", first_diff(&a, &b));
            assert!(!a.is_empty(), "{sql}");
        }
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_external_table_stored_as_pq() -> Result<()> {
    let tables = tables();
    let ctx = SessionContext::new();
    ctx.register_pq_format(Default::default())?;
    let location = &tables[0].1;
    ctx.sql(&format!(
        "CREATE EXTERNAL TABLE li STORED AS PQ LOCATION '{location}' OPTIONS ('pushdown' 'false')"
    ))
    .await?;
    let got = rows(
        &ctx,
        "SELECT count(*), sum(l_quantity) FROM li WHERE l_shipmode = 'AIR'",
    )
    .await?;
    let reference = SessionContext::new();
    reference
        .register_parquet("li", location, ParquetReadOptions::default())
        .await?;
    let want = rows(
        &reference,
        "SELECT count(*), sum(l_quantity) FROM li WHERE l_shipmode = 'AIR'",
    )
    .await?;
    assert_eq!(got, want);
    // A directory of files, and an option pq does not know.
    let dir = data_dir();
    ctx.sql(&format!(
        "CREATE EXTERNAL TABLE both_files STORED AS PQ LOCATION '{}/'",
        dir.display()
    ))
    .await?;
    let n = rows(&ctx, "SELECT count(*) FROM both_files").await?;
    assert_eq!(n, vec!["204000".to_owned()]);
    refuses_a_misspelt_option(&ctx, location).await;
    Ok(())
}

/// `CREATE EXTERNAL TABLE … STORED AS PQ` over `location` with an option
/// pq does not know fails, naming it.
async fn refuses_a_misspelt_option(ctx: &SessionContext, location: &str) {
    let err = ctx
        .sql(&format!(
            "CREATE EXTERNAL TABLE bad STORED AS PQ LOCATION '{location}' OPTIONS ('pushdwn' 'false')"
        ))
        .await
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("unknown pq option 'pushdwn'"), "{err}");
}

/// A location that is a URL with a glob reads the files the glob matches
/// (DataFusion's own factory would take the glob as a file's name), with a
/// schema inferred from them or given by the statement.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_external_table_over_a_url_glob() -> Result<()> {
    tables();
    let ctx = SessionContext::new();
    ctx.register_pq_format(Default::default())?;
    let dir = url::Url::from_directory_path(data_dir()).unwrap_or_else(|()| panic!("a path"));
    // Of lineitem-200k and lineitem-head, only the second.
    ctx.sql(&format!(
        "CREATE EXTERNAL TABLE head STORED AS PQ LOCATION '{dir}lineitem-h*.parquet'"
    ))
    .await?;
    assert_eq!(
        rows(&ctx, "SELECT count(*) FROM head").await?,
        vec!["4000".to_owned()]
    );
    ctx.sql(&format!(
        "CREATE EXTERNAL TABLE both_globbed STORED AS PQ LOCATION '{dir}lineitem-[2h]*.parquet' \
         OPTIONS ('pushdown' 'false')"
    ))
    .await?;
    assert_eq!(
        rows(&ctx, "SELECT count(*) FROM both_globbed").await?,
        vec!["204000".to_owned()]
    );
    ctx.sql(&format!(
        "CREATE EXTERNAL TABLE head_typed (l_orderkey BIGINT NOT NULL) STORED AS PQ \
         LOCATION '{dir}lineitem-h*.parquet'"
    ))
    .await?;
    let want = rows(&ctx, "SELECT max(l_orderkey) FROM head").await?;
    assert_eq!(
        rows(&ctx, "SELECT max(l_orderkey) FROM head_typed").await?,
        want
    );
    refuses_a_misspelt_option(&ctx, &format!("{dir}x*.parquet")).await;
    Ok(())
}

/// The `.parquet` files of `dir`, sorted.
fn parquet_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .collect();
    files.sort();
    files
}

/// The corpus's data files, or a reported skip without the corpus.
fn corpus_files() -> Option<Vec<PathBuf>> {
    let Some(dir) = pq_testkit::corpus_data_dir() else {
        pq_testkit::skip("PARQUET_TESTING_DIR is not set: no corpus to query");
        return None;
    };
    Some(parquet_files(&dir))
}

/// Corpus files whose values the two readers give differently, and why
/// (their row counts are still compared).
const DIFFERENT_BY_DESIGN: &[(&str, &str)] = &[
    (
        "int96_from_spark.parquet",
        "INT96 timestamps outside the range of 64-bit nanoseconds wrap, and arrow-rs and pq \
         (which reads them as pyarrow does) wrap them differently",
    ),
    (
        "repeated_no_annotation.parquet",
        "DataFusion's Parquet format returns no rows for SELECT * of this legacy repeated \
         group; pq returns the 6 rows pyarrow reads",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_corpus_file_reads_as_datafusions_parquet_reads_it() -> Result<()> {
    let Some(files) = corpus_files() else {
        return Ok(());
    };
    let (mut same, mut not_compared, mut both_refuse, mut only_pq_reads) = (0, 0, 0, Vec::new());
    for file in &files {
        let location = file.display().to_string();
        let ours = SessionContext::new();
        let theirs = SessionContext::new();
        let a = async {
            ours.register_pq("t", &location, PqReadOptions::default())
                .await?;
            Ok::<_, datafusion::error::DataFusionError>((
                rows(&ours, "SELECT * FROM t").await?,
                rows(&ours, "SELECT count(*) FROM t").await?,
            ))
        }
        .await;
        let b = async {
            theirs
                .register_parquet("t", &location, ParquetReadOptions::default())
                .await?;
            Ok::<_, datafusion::error::DataFusionError>((
                rows(&theirs, "SELECT * FROM t").await?,
                rows(&theirs, "SELECT count(*) FROM t").await?,
            ))
        }
        .await;
        match (a, b) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.1, b.1, "{location}: count(*)");
                if let Some((_, why)) = DIFFERENT_BY_DESIGN
                    .iter()
                    .find(|(f, _)| location.ends_with(f))
                {
                    eprintln!("{location}: values not compared: {why}");
                    not_compared += 1;
                    continue;
                }
                if a.0 != b.0 {
                    panic!(
                        "{location}: rows differ ({} vs {}), first: {:?}",
                        a.0.len(),
                        b.0.len(),
                        first_diff(&a.0, &b.0)
                    );
                }
                same += 1;
            }
            (Err(a), Err(_)) => {
                assert_one_line_no_panic(&location, &a.to_string());
                both_refuse += 1;
            }
            (Ok(_), Err(e)) => only_pq_reads.push(format!("{location}: {e}")),
            (Err(e), Ok(_)) => {
                panic!("{location}: DataFusion's Parquet reads it, pq's format fails: {e}")
            }
        }
    }
    eprintln!(
        "{} corpus files: {same} identical, {not_compared} counted only, {both_refuse} refused by both, {} read by pq only:\n{}",
        files.len(),
        only_pq_reads.len(),
        only_pq_reads.join("\n")
    );
    assert!(same >= files.len() / 2, "too few files compared");
    Ok(())
}

fn assert_one_line_no_panic(location: &str, message: &str) {
    assert!(!message.contains("panic"), "{location}: {message}");
    assert_eq!(message.lines().count(), 1, "{location}: {message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corrupt_files_fail_with_pqs_message() -> Result<()> {
    let Some(dir) = pq_testkit::parquet_testing_dir().map(|d| d.join("bad_data")) else {
        pq_testkit::skip("PARQUET_TESTING_DIR is not set: no corrupt files");
        return Ok(());
    };
    let files = parquet_files(&dir);
    assert!(!files.is_empty());
    let mut refused = 0;
    for file in files {
        let location = file.display().to_string();
        // What pq's reader says alone: an error, or the rows it reads.
        let pq_alone = match pq_arrow::ParquetReader::open(&file).and_then(|r| r.build()) {
            Err(e) => Err(e.to_string()),
            Ok(batches) => batches
                .map(|b| b.map(|b| b.num_rows()))
                .sum::<Result<usize, _>>()
                .map_err(|e| e.to_string()),
        };
        let ctx = SessionContext::new();
        let result = async {
            ctx.register_pq("t", &location, PqReadOptions::default())
                .await?;
            rows(&ctx, "SELECT * FROM t").await
        }
        .await;
        match (pq_alone, result) {
            (Ok(n), Ok(rows)) => assert_eq!(n, rows.len(), "{location}: rows"),
            (Ok(n), Err(e)) => panic!("{location}: pq reads {n} rows alone, under DataFusion: {e}"),
            (Err(alone), Ok(rows)) => {
                panic!(
                    "{location}: a corrupt file gave {} rows ({alone})",
                    rows.len()
                )
            }
            (Err(alone), Err(e)) => {
                let e = e.to_string();
                assert_one_line_no_panic(&location, &e);
                // The message pq gives alone, inside DataFusion's.
                let core = alone.rsplit(": ").next().unwrap_or_default();
                assert!(e.contains(core), "{location}: {e} does not carry {alone}");
                refused += 1;
            }
        }
    }
    assert!(refused > 0, "no corrupt file refused");
    Ok(())
}

/// What a statistic says of the true value `truth` (`lower`: it is a
/// minimum): exact statistics must equal it, inexact ones bound it. None
/// when there is nothing to compare (no statistic, or types DataFusion
/// cannot cast between).
fn check_bound(
    stat: &datafusion::common::stats::Precision<datafusion::scalar::ScalarValue>,
    truth: &datafusion::scalar::ScalarValue,
    lower: bool,
) -> Option<std::result::Result<bool, String>> {
    use datafusion::common::stats::Precision;
    use datafusion::scalar::ScalarValue;
    let (v, exact) = match stat {
        Precision::Exact(v) => (v, true),
        Precision::Inexact(v) => (v, false),
        Precision::Absent => return None,
    };
    if truth.is_null() {
        // Every value null: no bound can be right.
        return Some(Err(format!("a bound {v:?} for a column of nulls")));
    }
    let truth = truth.cast_to(&v.data_type()).ok()?;
    // Floats compare as numbers (-0.0 = 0.0); a NaN is outside any bound
    // but an exact one.
    let float = |s: &ScalarValue| {
        if s.data_type().is_floating() {
            s.cast_to(&arrow_schema::DataType::Float64)
                .ok()
                .and_then(|f| match f {
                    ScalarValue::Float64(x) => x,
                    _ => None,
                })
        } else {
            None
        }
    };
    if exact {
        let same = match (float(v), float(&truth)) {
            (Some(a), Some(b)) => a == b || (a.is_nan() && b.is_nan()),
            _ => *v == truth,
        };
        return Some(if same {
            Ok(true)
        } else {
            Err(format!("exact {v:?}, true {truth:?}"))
        });
    }
    let ordering = match (float(v), float(&truth)) {
        (Some(_), Some(b)) if b.is_nan() => return Some(Ok(false)),
        (Some(a), Some(b)) => a.partial_cmp(&b),
        _ => v.partial_cmp(&truth),
    };
    Some(match ordering {
        Some(o) if (lower && o.is_le()) || (!lower && o.is_ge()) => Ok(false),
        _ => Err(format!("inexact {v:?} does not bound the true {truth:?}")),
    })
}

/// The statistics pq's format gives the planner, checked against the
/// values DataFusion's own Parquet format reads from the same files: exact
/// row and null counts equal, exact bounds equal the true minimum and
/// maximum, inexact ones bound them. Over the fixtures, lineitem and the
/// corpus.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statistics_agree_with_the_data() -> Result<()> {
    use datafusion::common::stats::Precision;
    use datafusion::datasource::file_format::FileFormat;
    use datafusion::execution::object_store::ObjectStoreUrl;
    use datafusion::scalar::ScalarValue;
    use object_store::ObjectStoreExt;
    use pq_datafusion::PqFormat;

    let mut files = parquet_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data"));
    files.push(PathBuf::from(&tables()[0].1));
    files.extend(corpus_files().unwrap_or_default());
    let (mut exact, mut inexact, mut counts, mut wrong) = (0, 0, 0, Vec::new());
    for file in &files {
        let location = file.display().to_string();
        let ctx = SessionContext::new();
        let state = ctx.state();
        let store = ctx
            .runtime_env()
            .object_store(ObjectStoreUrl::local_filesystem())?;
        let Ok(path) = object_store::path::Path::from_filesystem_path(file) else {
            continue;
        };
        let meta = store.head(&path).await?;
        let format = PqFormat::default();
        // Files pq refuses are the other tests' business.
        let Ok(schema) = format
            .infer_schema(&state, &store, std::slice::from_ref(&meta))
            .await
        else {
            continue;
        };
        let stats = format
            .infer_stats(&state, &store, schema.clone(), &meta)
            .await?;
        if ctx
            .register_parquet("t", &location, ParquetReadOptions::default())
            .await
            .is_err()
        {
            continue;
        }
        if let Precision::Exact(n) = stats.num_rows {
            let want = rows(&ctx, "SELECT count(*) FROM t").await?;
            assert_eq!(vec![n.to_string()], want, "{location}: rows");
            counts += 1;
        }
        for (field, cs) in schema.fields().iter().zip(&stats.column_statistics) {
            if cs.null_count == Precision::Absent
                && cs.min_value == Precision::Absent
                && cs.max_value == Precision::Absent
            {
                continue;
            }
            let name = field.name().replace('"', "\"\"");
            let sql = format!(
                "SELECT min(\"{name}\"), max(\"{name}\"), count(*) - count(\"{name}\") FROM t"
            );
            // Types DataFusion does not aggregate are left out.
            let Ok(df) = ctx.sql(&sql).await else {
                continue;
            };
            let Ok(batches) = df.collect().await else {
                continue;
            };
            let Some(b) = batches.first() else { continue };
            let truth = |i: usize| ScalarValue::try_from_array(b.column(i), 0);
            let (min, max, nulls) = (truth(0)?, truth(1)?, truth(2)?);
            if let Precision::Exact(n) = cs.null_count {
                if ScalarValue::Int64(Some(n as i64)) != nulls {
                    wrong.push(format!("{location}: {name}: nulls {n}, true {nulls:?}"));
                }
                counts += 1;
            }
            for (stat, truth, lower) in [(&cs.min_value, &min, true), (&cs.max_value, &max, false)]
            {
                match check_bound(stat, truth, lower) {
                    None => {}
                    Some(Ok(true)) => exact += 1,
                    Some(Ok(false)) => inexact += 1,
                    Some(Err(e)) => wrong.push(format!(
                        "{location}: {name}: {} {e}",
                        if lower { "min" } else { "max" }
                    )),
                }
            }
        }
    }
    eprintln!(
        "statistics over {} files: {counts} exact counts, {exact} exact bounds, {inexact} inexact bounds checked",
        files.len()
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(exact > 50 && counts > 50, "too little compared");
    Ok(())
}
