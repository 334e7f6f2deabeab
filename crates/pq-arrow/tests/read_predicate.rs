//! Reads with a predicate keep exactly the rows a plain row-by-row model
//! of SQL's `WHERE` keeps (three-valued logic, Arrow's orderings), on
//! files written by pq, arrow-rs, pyarrow and DuckDB with small row groups, so that
//! pruning by statistics is exercised; and pruning skips what it should.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, Date32Array, Decimal128Array, Float64Array, Int32Array, Int64Array,
    RecordBatch, StringArray, StructArray,
};
use arrow_schema::{DataType, Field, Fields, Schema};
use bytes::Bytes;
use pq_arrow::predicate::{CmpOp, Literal, Predicate, PruningOptions, RowFiltering, col};
use pq_arrow::{ParquetReader, WriterOptions};
use pq_testkit::Rng;

const ROWS: usize = 4000;
const GROUP: usize = 400;

/// One value of the model.
#[derive(Debug, Clone, PartialEq)]
enum V {
    I(i128),
    F(f64),
    S(String),
}

fn order(a: &V, b: &V) -> std::cmp::Ordering {
    match (a, b) {
        (V::I(x), V::I(y)) => x.cmp(y),
        // Arrow orders floats by IEEE 754's total order.
        (V::F(x), V::F(y)) => x.total_cmp(y),
        (V::S(x), V::S(y)) => x.as_bytes().cmp(y.as_bytes()),
        _ => panic!("compared {a:?} with {b:?}"),
    }
}

/// The columns: name, and each row's value.
struct Table {
    cols: Vec<(&'static str, Vec<Option<V>>)>,
    batch: RecordBatch,
}

fn table(rng: &mut Rng) -> Table {
    let n = ROWS;
    let id: Vec<i64> = (0..n as i64).collect();
    let k: Vec<Option<i32>> = (0..n)
        .map(|_| (!rng.chance(10)).then(|| rng.below(100) as i32 - 50))
        .collect();
    let f: Vec<Option<f64>> = (0..n)
        .map(|_| match rng.below(50) {
            0 => None,
            1 => Some(f64::NAN),
            2 => Some(-0.0),
            3 => Some(0.0),
            _ => Some((rng.below(2000) as f64 - 1000.0) / 8.0),
        })
        .collect();
    let s: Vec<Option<String>> = (0..n)
        .map(|_| match rng.below(20) {
            0 => None,
            1 => Some("b".repeat(40)),
            _ => {
                let len = rng.below(4) as usize;
                Some((0..len).map(|_| ['a', 'b', 'c'][rng.index(3)]).collect())
            }
        })
        .collect();
    // Sorted decimals in 0.00..: row groups get disjoint ranges.
    let d: Vec<Option<i128>> = (0..n)
        .map(|i| (!rng.chance(5)).then(|| i as i128 * 7 + rng.below(7) as i128))
        .collect();
    let day: Vec<Option<i32>> = (0..n)
        .map(|_| (!rng.chance(5)).then(|| 19000 + rng.below(60) as i32))
        .collect();
    let st_valid: Vec<bool> = (0..n).map(|_| !rng.chance(10)).collect();
    let a: Vec<Option<i32>> = (0..n)
        .map(|i| (st_valid[i] && !rng.chance(10)).then(|| rng.below(10) as i32))
        .collect();

    let a_field = Arc::new(Field::new("a", DataType::Int32, true));
    let st = StructArray::new(
        Fields::from(vec![a_field.clone()]),
        vec![Arc::new(Int32Array::from(a.clone())) as ArrayRef],
        Some(st_valid.clone().into()),
    );
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("k", DataType::Int32, true),
        Field::new("f", DataType::Float64, true),
        Field::new("s", DataType::Utf8, true),
        Field::new("d", DataType::Decimal128(9, 2), true),
        Field::new("day", DataType::Date32, true),
        Field::new("st", DataType::Struct(Fields::from(vec![a_field])), true),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(id.clone())),
            Arc::new(Int32Array::from(k.clone())),
            Arc::new(Float64Array::from(f.clone())),
            Arc::new(StringArray::from(s.clone())),
            Arc::new(
                Decimal128Array::from(d.clone())
                    .with_precision_and_scale(9, 2)
                    .unwrap(),
            ),
            Arc::new(Date32Array::from(day.clone())),
            Arc::new(st),
        ],
    )
    .unwrap();
    let int = |v: &[Option<i32>]| v.iter().map(|x| x.map(|x| V::I(x.into()))).collect();
    Table {
        cols: vec![
            ("id", id.iter().map(|&x| Some(V::I(x.into()))).collect()),
            ("k", int(&k)),
            ("f", f.iter().map(|x| x.map(V::F)).collect()),
            ("s", s.iter().map(|x| x.clone().map(V::S)).collect()),
            ("d", d.iter().map(|x| x.map(V::I)).collect()),
            ("day", int(&day)),
            // A null struct makes its field null.
            (
                "st.a",
                (0..n)
                    .map(|i| {
                        if st_valid[i] {
                            a[i].map(|x| V::I(x.into()))
                        } else {
                            None
                        }
                    })
                    .collect(),
            ),
        ],
        batch,
    }
}

/// A predicate and its model: the value a row's column is compared with.
#[derive(Debug, Clone)]
enum Model {
    Cmp(usize, CmpOp, V),
    In(usize, Vec<V>, bool),
    IsNull(usize, bool),
    Prefix(usize, String, bool),
    And(Box<Model>, Box<Model>),
    Or(Box<Model>, Box<Model>),
    Not(Box<Model>),
}

fn literal(col: &str, v: &V) -> Literal {
    match (col, v) {
        ("d", V::I(c)) => Literal::Decimal {
            digits: *c,
            scale: 2,
        },
        ("day", V::I(x)) => Literal::Date(*x as i32),
        (_, V::I(x)) => Literal::Int(*x),
        (_, V::F(x)) => Literal::Float(*x),
        (_, V::S(x)) => Literal::String(x.clone()),
    }
}

fn to_predicate(m: &Model, t: &Table) -> Predicate {
    let name = |c: &usize| t.cols[*c].0;
    match m {
        Model::Cmp(c, op, v) => Predicate::Compare {
            column: col(name(c)).eq(0).columns()[0].clone(),
            op: *op,
            value: literal(name(c), v),
        },
        Model::In(c, vs, neg) => Predicate::InList {
            column: col(name(c)).eq(0).columns()[0].clone(),
            values: vs.iter().map(|v| literal(name(c), v)).collect(),
            negated: *neg,
        },
        Model::IsNull(c, neg) => {
            if *neg {
                col(name(c)).is_not_null()
            } else {
                col(name(c)).is_null()
            }
        }
        Model::Prefix(c, p, neg) => {
            let like = col(name(c)).starts_with(p);
            if *neg { like.not() } else { like }
        }
        Model::And(a, b) => to_predicate(a, t).and(to_predicate(b, t)),
        Model::Or(a, b) => to_predicate(a, t).or(to_predicate(b, t)),
        Model::Not(a) => to_predicate(a, t).not(),
    }
}

/// SQL's three-valued result for row `r`.
fn model_eval(m: &Model, t: &Table, r: usize) -> Option<bool> {
    let val = |c: &usize| t.cols[*c].1[r].clone();
    match m {
        Model::Cmp(c, op, v) => {
            let x = val(c)?;
            let o = order(&x, v);
            Some(match op {
                CmpOp::Eq => o.is_eq(),
                CmpOp::NotEq => o.is_ne(),
                CmpOp::Lt => o.is_lt(),
                CmpOp::LtEq => o.is_le(),
                CmpOp::Gt => o.is_gt(),
                CmpOp::GtEq => o.is_ge(),
            })
        }
        Model::In(c, vs, neg) => {
            let x = val(c)?;
            Some(vs.iter().any(|v| order(&x, v).is_eq()) != *neg)
        }
        Model::IsNull(c, neg) => Some(val(c).is_none() != *neg),
        Model::Prefix(c, p, neg) => match val(c)? {
            V::S(s) => Some(s.starts_with(p.as_str()) != *neg),
            _ => None,
        },
        Model::And(a, b) => match (model_eval(a, t, r), model_eval(b, t, r)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        Model::Or(a, b) => match (model_eval(a, t, r), model_eval(b, t, r)) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
        Model::Not(a) => model_eval(a, t, r).map(|b| !b),
    }
}

fn random_model(rng: &mut Rng, t: &Table, depth: u32) -> Model {
    if depth > 0 && rng.chance(40) {
        let a = Box::new(random_model(rng, t, depth - 1));
        let b = Box::new(random_model(rng, t, depth - 1));
        return match rng.below(3) {
            0 => Model::And(a, b),
            1 => Model::Or(a, b),
            _ => Model::Not(a),
        };
    }
    let c = rng.index(t.cols.len());
    // A value from the column (or a nudged one), so comparisons bite.
    let pick = |rng: &mut Rng| -> V {
        loop {
            if let Some(v) = &t.cols[c].1[rng.index(ROWS)] {
                return match v {
                    V::I(x) if rng.chance(30) => V::I(x + rng.below(3) as i128 - 1),
                    V::F(x) if x.is_nan() && rng.chance(50) => V::F(1.5),
                    other => other.clone(),
                };
            }
        }
    };
    match rng.below(10) {
        0 => Model::IsNull(c, rng.chance(50)),
        1 => {
            let n = 1 + rng.index(3);
            Model::In(c, (0..n).map(|_| pick(rng)).collect(), rng.chance(30))
        }
        2 if t.cols[c].0 == "s" => {
            let len = rng.index(3);
            let p: String = (0..len).map(|_| ['a', 'b', 'c'][rng.index(3)]).collect();
            Model::Prefix(c, p, rng.chance(30))
        }
        _ => {
            let op = [
                CmpOp::Eq,
                CmpOp::NotEq,
                CmpOp::Lt,
                CmpOp::LtEq,
                CmpOp::Gt,
                CmpOp::GtEq,
            ][rng.index(6)];
            Model::Cmp(c, op, pick(rng))
        }
    }
}

fn write_pq(batch: &RecordBatch) -> Bytes {
    let options = WriterOptions::builder()
        .set_max_row_group_size(GROUP)
        .set_data_page_row_count_limit(64)
        .set_statistics_truncate_length(Some(8))
        .set_bloom_filter_enabled(true)
        .build();
    let mut out = Vec::new();
    let mut w = pq_arrow::ParquetWriter::try_new(&mut out, batch.schema(), options).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

/// The table written by pyarrow (page index, Bloom filters on every
/// column, pages of 64 rows), or `None` without python3 and pyarrow.
fn write_pyarrow(batch: &RecordBatch) -> Option<Bytes> {
    if !pq_testkit::have_pyarrow() {
        pq_testkit::skip("python3 with pyarrow is not on the PATH: pyarrow-written files not read");
        return None;
    }
    Some(write_with_python(batch, "pyarrow", |ipc, out| {
        format!(
            "import pyarrow as pa, pyarrow.parquet as pq\n\
             t = pa.ipc.open_file('{ipc}').read_all()\n\
             blooms = {{c: {{'ndv': 1000, 'fpp': 0.01}} for c in ['id', 'k', 's', 'd', 'day']}}\n\
             pq.write_table(t, '{out}', row_group_size={GROUP}, write_batch_size=64, \
             data_page_size=256, write_page_index=True, bloom_filter_options=blooms)\n"
        )
    }))
}

/// The table written by DuckDB with its defaults but for the row group
/// size (it rounds row groups up to its vectors of 2048 rows), or `None`
/// without python3 and duckdb. Every column comes back OPTIONAL, the
/// decimal as INT32, the dictionaries and statistics as DuckDB makes them.
fn write_duckdb(batch: &RecordBatch) -> Option<Bytes> {
    if !pq_testkit::have_duckdb() {
        pq_testkit::skip("python3 with duckdb is not on the PATH: DuckDB-written files not read");
        return None;
    }
    let file = write_with_python(batch, "duckdb", |ipc, out| {
        format!(
            "import duckdb, pyarrow as pa\n\
             t = pa.ipc.open_file('{ipc}').read_all()\n\
             duckdb.sql(\"COPY (SELECT * FROM t) TO '{out}' (FORMAT parquet, ROW_GROUP_SIZE {GROUP})\")\n"
        )
    });
    // DuckDB's own file, in more than one row group, so that statistics
    // have something to rule out.
    let md = ParquetReader::from_bytes(file.clone())
        .unwrap()
        .metadata()
        .clone();
    let by = md.created_by.clone().unwrap_or_default();
    assert!(by.starts_with("DuckDB"), "created by {by}");
    assert!(
        md.row_groups.len() > 1,
        "{} row groups",
        md.row_groups.len()
    );
    Some(file)
}

/// `batch` handed to a Python writer through an Arrow IPC file: `script`
/// gets the IPC file's path and the Parquet file's to write.
fn write_with_python(
    batch: &RecordBatch,
    writer: &str,
    script: impl Fn(&str, &str) -> String,
) -> Bytes {
    // Tests run at once in one process: a directory per call.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "pq-predicate-{writer}-{}-{call}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let ipc = dir.join("table.arrow");
    let out = dir.join("table.parquet");
    let mut w = arrow_ipc::writer::FileWriter::try_new(
        std::fs::File::create(&ipc).unwrap(),
        &batch.schema(),
    )
    .unwrap();
    w.write(batch).unwrap();
    w.finish().unwrap();
    let script = script(&ipc.to_string_lossy(), &out.to_string_lossy());
    let status = std::process::Command::new("python3")
        .args(["-c", &script])
        .status()
        .unwrap();
    assert!(status.success(), "{writer} could not write the table");
    let bytes = Bytes::from(std::fs::read(&out).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
    bytes
}

fn write_arrow_rs(batch: &RecordBatch) -> Bytes {
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(GROUP))
        .set_data_page_row_count_limit(64)
        .set_write_batch_size(64)
        .set_statistics_truncate_length(Some(8))
        .build();
    let mut out = Vec::new();
    let mut w =
        parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

/// The ids of the rows a filtered read returns, with its metrics.
fn read_ids(
    file: &Bytes,
    p: Predicate,
    batch_size: usize,
) -> (Vec<i64>, pq_arrow::predicate::PruningMetrics) {
    read_ids_with(file, p, batch_size, PruningOptions::default())
}

fn read_ids_with(
    file: &Bytes,
    p: Predicate,
    batch_size: usize,
    pruning: PruningOptions,
) -> (Vec<i64>, pq_arrow::predicate::PruningMetrics) {
    let (batch, metrics) = read_rows_with(file, Some(p), batch_size, pruning, 1);
    let col = batch.column_by_name("id").unwrap();
    let col = col.as_any().downcast_ref::<Int64Array>().unwrap();
    (col.values().to_vec(), metrics)
}

/// Every row a read on `threads` threads returns, as one batch, with the
/// predicate's metrics (default ones without a predicate).
fn read_rows_with(
    file: &Bytes,
    p: Option<Predicate>,
    batch_size: usize,
    pruning: PruningOptions,
    threads: usize,
) -> (RecordBatch, pq_arrow::predicate::PruningMetrics) {
    let mut builder = ParquetReader::from_bytes(file.clone())
        .unwrap()
        .with_batch_size(batch_size)
        .with_threads(threads)
        .with_pruning(pruning);
    if let Some(p) = p {
        builder = builder.with_predicate(p);
    }
    let mut reader = builder.build().unwrap_or_else(|e| panic!("{e}"));
    let mut batches = Vec::new();
    while let Some(b) = reader.next_batch().unwrap() {
        assert!(b.num_rows() > 0 && b.num_rows() <= batch_size);
        batches.push(b);
    }
    let batch = arrow_select::concat::concat_batches(&reader.schema(), &batches).unwrap();
    let metrics = reader.pruning_metrics().cloned().unwrap_or_default();
    (batch, metrics)
}

/// The rows of `all` (a whole read, row `i` holding id `i`) whose ids are
/// `ids`, taken by Arrow's kernel: what a filtered read must return.
fn rows_of(all: &RecordBatch, ids: &[i64]) -> RecordBatch {
    let idx = arrow_array::UInt64Array::from_iter_values(ids.iter().map(|&i| i as u64));
    let columns = all
        .columns()
        .iter()
        .map(|c| arrow_select::take::take(c, &idx, None).unwrap())
        .collect();
    RecordBatch::try_new(all.schema(), columns).unwrap()
}

/// The ids of the rows the model keeps.
fn matching_ids(m: &Model, t: &Table) -> Vec<i64> {
    (0..ROWS)
        .filter(|&r| model_eval(m, t, r) == Some(true))
        .map(|r| r as i64)
        .collect()
}

/// The table written by each writer at hand, and each file read whole:
/// the rows a filtered read returns are these, every column of them (the
/// predicate's and the ones read late).
fn writers_files(t: &Table) -> (Vec<(&'static str, Bytes)>, Vec<RecordBatch>) {
    let mut files = vec![
        ("pq", write_pq(&t.batch)),
        ("arrow-rs", write_arrow_rs(&t.batch)),
    ];
    files.extend(write_pyarrow(&t.batch).map(|f| ("pyarrow", f)));
    files.extend(write_duckdb(&t.batch).map(|f| ("duckdb", f)));
    let whole = files
        .iter()
        .map(|(_, f)| read_rows_with(f, None, 8192, PruningOptions::default(), 1).0)
        .collect();
    (files, whole)
}

#[test]
fn filtered_reads_keep_exactly_the_matching_rows() {
    let mut rng = Rng(7);
    let t = table(&mut rng);
    let (files, whole) = writers_files(&t);
    let mut pruned_any = vec![0usize; files.len()];
    let mut skipped_late = 0;
    let mut blooms = 0;
    let mut by_dictionary = 0;
    let mut by_page_index = 0;
    let mut whole_by_statistics = 0;
    for round in 0..200 {
        let m = random_model(&mut rng, &t, 2);
        let p = to_predicate(&m, &t);
        let want = matching_ids(&m, &t);
        for (k, (writer, file)) in files.iter().enumerate() {
            let batch_size = [7, 100, 8192][round % 3];
            // Every level on most of the time; any of them off now and then.
            let pruning = if rng.chance(70) {
                PruningOptions::default()
            } else {
                PruningOptions::default()
                    .with_statistics(rng.chance(50))
                    .with_bloom_filters(rng.chance(50))
                    .with_dictionaries(rng.chance(50))
                    .with_page_index(rng.chance(50))
                    .with_late_materialization(rng.chance(50))
            };
            // Now and then on decoding threads, which decode the columns
            // read late only once the caller has tested the early ones.
            let threads = if rng.chance(25) { 3 } else { 1 };
            let (rows, metrics) =
                read_rows_with(file, Some(p.clone()), batch_size, pruning, threads);
            let ids = rows.column_by_name("id").unwrap();
            let got = ids.as_any().downcast_ref::<Int64Array>().unwrap().values();
            let at = format!("{writer}: {p} (round {round}, {threads} threads)");
            assert_eq!(got, &want[..], "{at}");
            assert_eq!(rows, rows_of(&whole[k], &want), "{at}");
            skipped_late += metrics.values_skipped_late;
            assert_eq!(metrics.rows_matched, want.len() as u64, "{writer}: {p}");
            pruned_any[k] += metrics.row_groups_pruned;
            by_dictionary += metrics.row_groups_pruned_by_dictionary;
            by_page_index += metrics.rows_ruled_out_by_page_index;
            whole_by_statistics += metrics.row_groups_matched_by_statistics;
            blooms += metrics.bloom_filters_read;
        }
    }
    // Statistics ruled out row groups in every writer's file.
    assert!(pruned_any.iter().all(|&n| n > 0), "{pruned_any:?}");
    assert!(by_dictionary > 0);
    assert!(by_page_index > 0);
    // Row groups every row of which matches were read untested.
    assert!(whole_by_statistics > 0);
    // Columns the predicate does not read were read late, for kept rows.
    assert!(skipped_late > 0);
    // pyarrow's files carry Bloom filters (when pyarrow is there).
    assert!(!files.iter().any(|(w, _)| *w == "pyarrow") || blooms > 0);
}

/// Conjunctions of two to four conjuncts on columns picked at random (the
/// shape of a query engine's pushed-down filters): the rows are the
/// model's whatever the batch size and threads, with the columns no
/// conjunct reads read late and without.
#[test]
fn conjunctions_keep_exactly_the_matching_rows() {
    let mut rng = Rng(23);
    let t = table(&mut rng);
    let (files, whole) = writers_files(&t);
    for round in 0..120 {
        // Two to four conjuncts, each on a column picked at random (so
        // some share a column), now and then an OR.
        let parts = 2 + rng.index(3);
        let m = (1..parts).fold(random_model(&mut rng, &t, 1), |a, _| {
            Model::And(Box::new(a), Box::new(random_model(&mut rng, &t, 1)))
        });
        let p = to_predicate(&m, &t);
        let want = matching_ids(&m, &t);
        for (k, (writer, file)) in files.iter().enumerate() {
            let batch_size = [7, 100, 8192][round % 3];
            let threads = if rng.chance(30) { 3 } else { 1 };
            let late = rng.chance(80);
            let pruning = PruningOptions::default().with_late_materialization(late);
            let (rows, metrics) =
                read_rows_with(file, Some(p.clone()), batch_size, pruning, threads);
            let at = format!("{writer}: {p} (round {round}, {threads} threads, late {late})");
            assert_eq!(rows, rows_of(&whole[k], &want), "{at}");
            assert_eq!(metrics.rows_matched, want.len() as u64, "{at}");
        }
    }
}

#[test]
fn statistics_prune_what_they_rule_out() {
    let mut rng = Rng(11);
    let t = table(&mut rng);
    for file in [write_pq(&t.batch), write_arrow_rs(&t.batch)] {
        let groups = ROWS / GROUP;
        let (ids, m) = read_ids(&file, Predicate::parse("id < 100").unwrap(), 8192);
        assert_eq!(ids, (0..100).collect::<Vec<_>>());
        assert_eq!((m.row_groups, m.row_groups_pruned), (groups, groups - 1));
        // Of the row group left, only the pages the page index leaves
        // (64-row pages: 0..128) are read.
        assert_eq!(m.rows_tested, 128, "{m:?}");
        let (ids, m) = read_ids(&file, col("id").in_list([5, 3999]), 8192);
        assert_eq!(ids, [5, 3999]);
        assert_eq!(m.row_groups_pruned, groups - 2);
        // Decimals compare by value, whatever their physical type.
        let (_, m) = read_ids(&file, Predicate::parse("d >= 279.00").unwrap(), 8192);
        assert!(m.row_groups_pruned >= groups - 1, "{m:?}");
        // Nothing can be ruled out by a NaN-blind float bound.
        let (_, m) = read_ids(&file, Predicate::parse("f > 1e300").unwrap(), 8192);
        assert_eq!(m.row_groups_pruned, 0);
        // A nested field is found by its path.
        let (ids, _) = read_ids(
            &file,
            Predicate::parse("st.a = 3 AND id < 50").unwrap(),
            8192,
        );
        let want: Vec<i64> = (0..50)
            .filter(|&r| t.cols[6].1[r] == Some(V::I(3)))
            .map(|r| r as i64)
            .collect();
        assert_eq!(ids, want);
    }
}

#[test]
fn row_groups_whose_statistics_show_every_row_matches_are_not_tested() {
    let mut rng = Rng(12);
    let t = table(&mut rng);
    let groups = ROWS / GROUP;
    let k_present: Vec<i64> = (0..ROWS)
        .filter(|&r| t.cols[1].1[r].is_some())
        .map(|r| r as i64)
        .collect();
    for file in [write_pq(&t.batch), write_arrow_rs(&t.batch)] {
        let (ids, m) = read_ids(&file, Predicate::parse("id >= 1000").unwrap(), 8192);
        assert_eq!(ids, (1000..ROWS as i64).collect::<Vec<_>>());
        // Row groups 3.. (ids 1200..) all match; 2 (800..1200) is tested.
        assert_eq!(m.row_groups_matched_by_statistics, groups - 3, "{m:?}");
        assert!(m.rows_tested > 0 && m.rows_tested <= GROUP as u64, "{m:?}");
        for (p, matched) in [
            ("id <> 5", groups - 1),
            ("id NOT IN (5, 6)", groups - 1),
            ("id >= 1000 OR k = 3", groups - 3),
            ("id < 4000 AND id IS NOT NULL", groups),
            // Nulls satisfy no comparison: a column with nulls never
            // matches whole.
            ("k >= -50", 0),
            // Float bounds do not count where NaN may hide.
            ("f < 1e300", 0),
            ("id >= 1000 AND k = 3", 0),
        ] {
            let (ids, m) = read_ids(&file, Predicate::parse(p).unwrap(), 100);
            assert_eq!(m.row_groups_matched_by_statistics, matched, "{p}: {m:?}");
            if p == "k >= -50" {
                assert_eq!(ids, k_present, "{p}");
            }
            if p == "id <> 5" {
                assert_eq!(ids.len(), ROWS - 1, "{p}");
            }
        }
    }
}

/// The ids a read with row filtering `rows` returns.
fn read_ids_filtering(file: &Bytes, p: Predicate, rows: RowFiltering) -> Vec<i64> {
    let reader = ParquetReader::from_bytes(file.clone())
        .unwrap()
        .with_predicate(p)
        .with_row_filtering(rows)
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut ids = Vec::new();
    for b in reader {
        let b = b.unwrap();
        let col = b.column_by_name("id").unwrap();
        let col = col.as_any().downcast_ref::<Int64Array>().unwrap();
        ids.extend(col.values().iter().copied());
    }
    ids
}

#[test]
fn superset_filtering_returns_every_match_and_prunes_as_exact_does() {
    let mut rng = Rng(13);
    let t = table(&mut rng);
    for file in [write_pq(&t.batch), write_arrow_rs(&t.batch)] {
        // One row group left by the statistics, and in it the 64-row pages
        // the page index leaves: rows 0..128, untested.
        let id_lt_100 = || Predicate::parse("id < 100").unwrap();
        let ids = read_ids_filtering(&file, id_lt_100(), RowFiltering::PruneOnly);
        assert_eq!(ids, (0..128).collect::<Vec<_>>());
        // Tested, the batch of 128 keeps 100: less than nine in ten, so
        // it is cut down to the matches.
        let ids = read_ids_filtering(&file, id_lt_100(), RowFiltering::Selective);
        assert_eq!(ids, (0..100).collect::<Vec<_>>());
        // Keeping 120 of 128 rows, it comes back whole.
        let ids = read_ids_filtering(
            &file,
            Predicate::parse("id < 120").unwrap(),
            RowFiltering::Selective,
        );
        assert_eq!(ids, (0..128).collect::<Vec<_>>());
        // Random predicates: every match comes back, in file order, with
        // some rows a filtering read drops.
        let mut extra = 0;
        for round in 0..100 {
            let m = random_model(&mut rng, &t, 2);
            let p = to_predicate(&m, &t);
            let rows = [RowFiltering::PruneOnly, RowFiltering::Selective][round % 2];
            let got = read_ids_filtering(&file, p.clone(), rows);
            assert!(got.windows(2).all(|w| w[0] < w[1]), "{p}: not in order");
            let want = (0..ROWS).filter(|&r| model_eval(&m, &t, r) == Some(true));
            let mut at = got.iter().peekable();
            for r in want {
                while at.next_if(|&&g| g < r as i64).is_some() {}
                assert_eq!(
                    at.next(),
                    Some(&(r as i64)),
                    "{p} (round {round}): row {r} dropped"
                );
            }
            extra += got.len()
                - (0..ROWS)
                    .filter(|&r| model_eval(&m, &t, r) == Some(true))
                    .count();
        }
        // Rows were returned that a filtering read would have dropped.
        assert!(extra > 0);
    }
}

#[test]
fn predicate_columns_outside_the_projection_are_read_then_dropped() {
    let mut rng = Rng(3);
    let t = table(&mut rng);
    let file = write_pq(&t.batch);
    let reader = ParquetReader::from_bytes(file.clone()).unwrap();
    let mask = pq_arrow::ProjectionMask::columns(reader.parquet_schema(), ["s"]);
    let mut reader = reader
        .with_projection(mask)
        .with_predicate(Predicate::parse("id BETWEEN 10 AND 19 AND st.a IS NOT NULL").unwrap())
        .with_offset(2)
        .with_limit(3)
        .build()
        .unwrap();
    assert_eq!(reader.schema().fields().len(), 1);
    let b = reader.next_batch().unwrap().unwrap();
    assert_eq!(b.schema().field(0).name(), "s");
    let want: Vec<Option<&str>> = (10..20)
        .filter(|&r| t.cols[6].1[r].is_some())
        .skip(2)
        .take(3)
        .map(|r| match &t.cols[3].1[r] {
            Some(V::S(s)) => Some(s.as_str()),
            _ => None,
        })
        .collect();
    let got = b.column(0).as_any().downcast_ref::<StringArray>().unwrap();
    assert_eq!(got.iter().collect::<Vec<_>>(), want);
    assert!(reader.next_batch().unwrap().is_none());
}

#[test]
fn bad_predicates_fail_before_reading() {
    let mut rng = Rng(5);
    let t = table(&mut rng);
    let file = write_pq(&t.batch);
    for (p, want) in [
        ("nope = 1", "no column nope"),
        ("st = 1", "group of columns"),
        ("k = 'x'", "cannot be compared with a string"),
        ("k = 3.5", "fraction"),
        ("d = 0.001", "scale"),
        ("k LIKE 'a%'", "LIKE needs a string column"),
        ("day = DATE '2024-02-30'", "not a date"),
    ] {
        let err = Predicate::parse(p)
            .and_then(|p| {
                ParquetReader::from_bytes(file.clone())?
                    .with_predicate(p)
                    .build()
            })
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "{p}: {err}");
        assert!(!err.contains('\n'), "{p}: {err}");
    }
}

#[test]
fn dictionary_columns_filter_on_their_values() {
    let mut rng = Rng(9);
    let t = table(&mut rng);
    let file = write_pq(&t.batch);
    let read = |dict: bool| {
        let r = ParquetReader::from_bytes(file.clone())
            .unwrap()
            .with_dictionary(dict)
            .with_predicate(Predicate::parse("s LIKE 'ab%' OR s IN ('c', '')").unwrap())
            .build()
            .unwrap();
        let mut n = 0;
        for b in r {
            let b = b.unwrap();
            assert_eq!(
                matches!(
                    b.column_by_name("s").unwrap().data_type(),
                    DataType::Dictionary(..)
                ),
                dict
            );
            n += b.num_rows();
        }
        n
    };
    let want = (0..ROWS)
        .filter(|&r| match &t.cols[3].1[r] {
            Some(V::S(s)) => s.starts_with("ab") || s == "c" || s.is_empty(),
            _ => false,
        })
        .count();
    assert_eq!(read(false), want);
    assert_eq!(read(true), want);
}

/// Even ids and names made from them, written by arrow-rs with Bloom
/// filters on both columns.
fn bloom_file() -> Bytes {
    let ids: Vec<i64> = (0..ROWS as i64).map(|i| i * 2).collect();
    let names: Vec<String> = ids.iter().map(|i| format!("n{i}")).collect();
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
        ("name", Arc::new(StringArray::from(names)) as ArrayRef),
    ])
    .unwrap();
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(GROUP))
        .set_bloom_filter_enabled(true)
        .set_bloom_filter_fpp(0.001)
        .build();
    let mut out = Vec::new();
    let mut w =
        parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

#[test]
fn bloom_filters_rule_out_absent_values_within_the_bounds() {
    let file = bloom_file();
    let groups = ROWS / GROUP;
    // Odd ids lie within each row group's bounds but are in no filter.
    let (ids, m) = read_ids(&file, Predicate::parse("id = 801").unwrap(), 8192);
    assert!(ids.is_empty());
    assert_eq!(m.row_groups_pruned, groups);
    assert_eq!(m.row_groups_pruned_by_bloom_filter, 1, "{m:?}");
    assert_eq!(m.bloom_filters_read, 1);
    let (ids, m) = read_ids(
        &file,
        Predicate::parse("name IN ('n801', 'n802', 'n5')").unwrap(),
        8192,
    );
    assert_eq!(ids, [802]);
    assert_eq!(m.rows_tested, GROUP as u64, "{m:?}");
    // Statistics rule out most row groups (names order as text); the Bloom
    // filters rule out those whose bounds hold the absent names.
    assert_eq!(m.row_groups_pruned, groups - 1, "{m:?}");
    assert!(m.row_groups_pruned_by_bloom_filter >= 1, "{m:?}");
    // A value that is there is always found.
    for id in (0..ROWS as i64 * 2).step_by(397) {
        let want: Vec<i64> = if id % 2 == 0 { vec![id] } else { vec![] };
        let (ids, _) = read_ids(&file, col("name").eq(format!("n{id}")), 8192);
        assert_eq!(ids, want, "n{id}");
    }
}

#[test]
fn a_damaged_bloom_filter_is_ignored_not_trusted() {
    // Each header's first byte: a field of another type.
    let bytes = damaged(&bloom_file(), |rg| {
        rg.columns[0].meta_data.as_ref()?.bloom_filter_offset
    });
    let (ids, m) = read_ids(&bytes, Predicate::parse("id = 802").unwrap(), 8192);
    assert_eq!(ids, [802]);
    assert_eq!(m.bloom_filters_ignored, 1, "{m:?}");
}

#[test]
fn filters_in_the_corpus_never_drop_a_row() {
    let Some(dir) = pq_testkit::corpus_data_dir() else {
        pq_testkit::skip(
            "PARQUET_TESTING_DIR is not set: the corpus's Bloom filter files are not read",
        );
        return;
    };
    let path = dir.join("data_index_bloom_encoding_stats.parquet");
    let all: Vec<RecordBatch> = ParquetReader::open(&path)
        .unwrap()
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let values = all[0]
        .column(0)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    let name = all[0].schema().field(0).name().clone();
    for v in values.iter().flatten().chain(["not there", "Zebra"]) {
        let p = col(name.as_str()).eq(v);
        let mut reader = ParquetReader::open(&path)
            .unwrap()
            .with_predicate(p)
            .build()
            .unwrap();
        let mut n = 0;
        while let Some(b) = reader.next_batch().unwrap() {
            n += b.num_rows();
        }
        let want = values.iter().filter(|x| *x == Some(v)).count();
        assert_eq!(n, want, "{v}");
        let m = reader.pruning_metrics().unwrap();
        assert_eq!(m.bloom_filters_ignored, 0, "{m:?}");
        if want == 0 {
            assert_eq!(m.row_groups_pruned, m.row_groups, "{v}: {m:?}");
        }
    }
}

#[test]
fn bloom_filters_pq_writes_answer_as_arrow_rs_reads_them() {
    use parquet::file::reader::FileReader;
    use parquet::file::serialized_reader::{ReadOptionsBuilder, SerializedFileReader};
    let ids: Vec<i64> = (0..ROWS as i64).map(|i| i * 2).collect();
    let names: Vec<String> = ids.iter().map(|i| format!("n{i}")).collect();
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
        ("name", Arc::new(StringArray::from(names)) as ArrayRef),
        (
            "flag",
            Arc::new(arrow_array::BooleanArray::from(vec![true; ROWS])) as ArrayRef,
        ),
    ])
    .unwrap();
    let options = WriterOptions::builder()
        .set_max_row_group_size(GROUP)
        .set_bloom_filter_enabled(true)
        .set_bloom_filter_fpp(0.01)
        .build();
    let mut out = Vec::new();
    let mut w = pq_arrow::ParquetWriter::try_new(&mut out, batch.schema(), options).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let file = Bytes::from(out);

    let read_options = ReadOptionsBuilder::new()
        .with_reader_properties(
            parquet::file::properties::ReaderProperties::builder()
                .set_read_bloom_filter(true)
                .build(),
        )
        .build();
    let arrow_rs = SerializedFileReader::new_with_options(file.clone(), read_options).unwrap();
    let mut checked = 0;
    for rg in 0..arrow_rs.num_row_groups() {
        let group = arrow_rs.get_row_group(rg).unwrap();
        let ids = group.get_column_bloom_filter(0).expect("a filter on id");
        let names = group.get_column_bloom_filter(1).expect("a filter on name");
        assert!(
            group.get_column_bloom_filter(2).is_none(),
            "no filter on booleans"
        );
        let first = (rg * GROUP) as i64 * 2;
        for id in first..first + GROUP as i64 * 2 {
            // Every written value is in arrow-rs's reading of the filter,
            // and pq's own reader skips the row group exactly when it is not.
            let name = format!("n{id}");
            if id % 2 == 0 {
                assert!(ids.check(&id) && names.check(name.as_str()), "{id}");
            }
            checked += 1;
        }
        for id in [first + 1, first + 3, first + 5] {
            let (got, m) = read_ids(&file, col("id").eq(id), 8192);
            assert!(got.is_empty());
            assert_eq!(
                m.row_groups_pruned_by_bloom_filter == 1,
                !ids.check(&id),
                "{id}"
            );
        }
    }
    assert!(checked > 0);
    let md = ParquetReader::from_bytes(file).unwrap().metadata().clone();
    let meta = md.row_groups[0].columns[0].meta_data.as_ref().unwrap();
    assert!(meta.bloom_filter_offset.is_some() && meta.bloom_filter_length.is_some());
}

/// Row groups whose values skip a letter: `b` lies within every row
/// group's bounds but in no dictionary.
fn dictionary_file(options: pq_arrow::write::WriterOptionsBuilder) -> Bytes {
    let cities: Vec<&str> = (0..ROWS).map(|i| ["a", "c", "d"][i % 3]).collect();
    let codes: Vec<i32> = (0..ROWS).map(|i| [1, 3, 4][i % 3]).collect();
    let ids: Vec<i64> = (0..ROWS as i64).collect();
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
        ("city", Arc::new(StringArray::from(cities)) as ArrayRef),
        ("code", Arc::new(Int32Array::from(codes)) as ArrayRef),
    ])
    .unwrap();
    let mut out = Vec::new();
    let options = options.set_max_row_group_size(GROUP).build();
    let mut w = pq_arrow::ParquetWriter::try_new(&mut out, batch.schema(), options).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

#[test]
fn dictionaries_rule_out_values_no_entry_matches() {
    let groups = ROWS / GROUP;
    let file = dictionary_file(WriterOptions::builder());
    for p in [
        "city = 'b'",
        "city LIKE 'b%'",
        "city IN ('b', 'bb')",
        "code = 2",
        "code BETWEEN 2 AND 2",
    ] {
        let (ids, m) = read_ids(&file, Predicate::parse(p).unwrap(), 8192);
        assert!(ids.is_empty(), "{p}");
        assert_eq!(m.row_groups_pruned_by_dictionary, groups, "{p}: {m:?}");
        assert_eq!(m.rows_tested, 0, "{p}");
    }
    // An entry that matches keeps the row group, and its rows are found.
    let (ids, m) = read_ids(
        &file,
        Predicate::parse("city = 'c' AND id < 10").unwrap(),
        8192,
    );
    assert_eq!(ids, [1, 4, 7]);
    assert_eq!(m.row_groups_pruned_by_dictionary, 0, "{m:?}");
    // `NOT IN` every entry rules the row groups out too.
    let (ids, m) = read_ids(
        &file,
        Predicate::parse("city NOT IN ('a', 'c', 'd')").unwrap(),
        8192,
    );
    assert!(ids.is_empty());
    assert_eq!(m.row_groups_pruned_by_dictionary, groups, "{m:?}");
}

#[test]
fn a_range_its_exact_bounds_let_through_reads_no_dictionary() {
    // Code's values are 1, 3 and 4 in every row group: a lone range or
    // `!=` that the bounds admit holds for the minimum or the maximum,
    // entries of the dictionary, which could rule nothing out.
    let groups = ROWS / GROUP;
    let file = dictionary_file(WriterOptions::builder());
    type Case = (&'static str, fn(i32) -> bool);
    let cases: [Case; 4] = [
        ("code <= 3", |c| c <= 3),
        ("code > 1", |c| c > 1),
        ("code < 2", |c| c < 2),
        ("code != 3", |c| c != 3),
    ];
    for (p, test) in cases {
        let (ids, m) = read_ids(&file, Predicate::parse(p).unwrap(), 8192);
        let want: Vec<i64> = (0..ROWS)
            .filter(|i| test([1, 3, 4][i % 3]))
            .map(|i| i as i64)
            .collect();
        assert_eq!(ids, want, "{p}");
        assert_eq!(m.dictionaries_read, 0, "{p}: {m:?}");
    }
    // An equality within the bounds, or two ranges of one column, are
    // still judged by the dictionary.
    for p in ["code = 3", "code >= 2 AND code <= 2"] {
        let (_, m) = read_ids(&file, Predicate::parse(p).unwrap(), 8192);
        assert_eq!(m.dictionaries_read, groups, "{p}: {m:?}");
    }
}

#[test]
fn chunks_that_fell_back_from_their_dictionary_are_not_judged_by_it() {
    // A dictionary of at most two entries: pages after it are PLAIN, and
    // hold values the dictionary does not.
    let file = dictionary_file(WriterOptions::builder().set_dictionary_max_entries(2));
    let (ids, m) = read_ids(&file, Predicate::parse("city = 'd'").unwrap(), 8192);
    assert_eq!(ids.len(), ROWS / 3);
    assert_eq!(m.row_groups_pruned, 0, "{m:?}");
}

#[test]
fn a_damaged_dictionary_page_is_not_used_for_pruning() {
    // The first row group's dictionary page only.
    let bytes = damaged(&dictionary_file(WriterOptions::builder()), |rg| {
        let meta = rg.columns[1].meta_data.as_ref()?;
        (rg.ordinal == Some(0)).then_some(meta.dictionary_page_offset?)
    });
    let mut reader = ParquetReader::from_bytes(bytes)
        .unwrap()
        .with_predicate(Predicate::parse("city = 'b'").unwrap())
        .build()
        .unwrap();
    // The row group left in is read, and its damage found, as it would be
    // without a predicate.
    let err = loop {
        match reader.next_batch() {
            Ok(Some(_)) => {}
            Ok(None) => panic!("the damaged row group was not read"),
            Err(e) => break e,
        }
    };
    assert!(err.to_string().contains("city"), "{err}");
    let m = reader.pruning_metrics().unwrap().clone();
    assert_eq!(m.row_groups_pruned_by_dictionary, ROWS / GROUP - 1, "{m:?}");
}

/// Sorted ids and a copy, in pages of 50 rows with a page index.
fn page_index_file() -> Bytes {
    let ids: Vec<i64> = (0..ROWS as i64).collect();
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(ids.clone())) as ArrayRef),
        ("copy", Arc::new(Int64Array::from(ids)) as ArrayRef),
    ])
    .unwrap();
    let options = WriterOptions::builder()
        .set_max_row_group_size(GROUP)
        .set_data_page_row_count_limit(50)
        .set_page_index_enabled(true)
        .build();
    let mut out = Vec::new();
    let mut w = pq_arrow::ParquetWriter::try_new(&mut out, batch.schema(), options).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

#[test]
fn the_page_index_rules_out_pages_and_row_groups() {
    let file = page_index_file();
    // Within one row group: two pages of its eight.
    let (ids, m) = read_ids(
        &file,
        Predicate::parse("id = 60 OR id = 390").unwrap(),
        8192,
    );
    assert_eq!(ids, [60, 390]);
    assert_eq!(m.row_groups_pruned, ROWS / GROUP - 1, "{m:?}");
    assert_eq!(
        m.rows_ruled_out_by_page_index,
        (GROUP - 100) as u64,
        "{m:?}"
    );
    // Each column alone leaves the first row group in; their pages do not
    // meet.
    let (ids, m) = read_ids(
        &file,
        Predicate::parse("id < 10 AND copy > 390").unwrap(),
        8192,
    );
    assert!(ids.is_empty());
    assert_eq!(m.row_groups_pruned_by_page_index, 1, "{m:?}");
    // OR unites the pages of both sides.
    let (ids, m) = read_ids(
        &file,
        Predicate::parse("id < 10 OR copy >= 395").unwrap(),
        8192,
    );
    assert_eq!(ids, (0..10).chain(395..ROWS as i64).collect::<Vec<_>>());
    assert!(m.page_indexes_read > 0, "{m:?}");
}

#[test]
fn a_damaged_page_index_is_not_used() {
    let bytes = damaged(&page_index_file(), |rg| rg.columns[0].offset_index_offset);
    let (ids, m) = read_ids(
        &bytes,
        Predicate::parse("id = 60 OR id = 390").unwrap(),
        8192,
    );
    assert_eq!(ids, [60, 390]);
    assert_eq!(m.rows_ruled_out_by_page_index, 0, "{m:?}");
}

/// The ids a push decoder with `p` gives, fed exactly the ranges it asks
/// for, with its metrics and the number of requests it made.
fn push_ids(file: &Bytes, p: Predicate) -> (Vec<i64>, pq_arrow::predicate::PruningMetrics, usize) {
    use pq_arrow::{DecodeResult, ParquetPushDecoder};
    let mut d = ParquetPushDecoder::builder(file.len() as u64)
        .with_predicate(p)
        .build()
        .unwrap();
    let (mut ids, mut requests) = (Vec::new(), 0);
    loop {
        match d.try_decode().unwrap() {
            DecodeResult::NeedsData(ranges) => {
                for r in ranges {
                    requests += 1;
                    let data = file.slice(r.start as usize..r.end as usize);
                    d.push_range(r, data).unwrap();
                }
            }
            DecodeResult::Data(b) => {
                let c = b.column_by_name("id").unwrap();
                ids.extend(
                    c.as_any()
                        .downcast_ref::<Int64Array>()
                        .unwrap()
                        .values()
                        .iter()
                        .copied(),
                );
            }
            DecodeResult::Finished => break,
        }
    }
    (ids, d.pruning_metrics().unwrap().clone(), requests)
}

#[test]
fn the_push_decoder_prunes_and_filters_as_the_reader_does() {
    let mut rng = Rng(13);
    let t = table(&mut rng);
    let file = write_pq(&t.batch);
    for text in [
        "id = 801",
        "id IN (5, 1203) AND k IS NOT NULL",
        "s = 'zzz' OR d < 1.00",
        "st.a = 3 AND id BETWEEN 100 AND 900",
        "s LIKE 'ab%'",
    ] {
        let p = Predicate::parse(text).unwrap();
        let (want, want_m) = read_ids(&file, p.clone(), 8192);
        let (got, got_m, requests) = push_ids(&file, p);
        assert_eq!(got, want, "{text}");
        assert_eq!(got_m, want_m, "{text}");
        assert!(requests > 0, "{text}");
    }
}

/// `file` with the byte at `at(row group)` of each row group set to 0xff
/// (for `at` giving `None`, left alone): a planted fault, the pages kept.
fn damaged(file: &Bytes, at: impl Fn(&pq_format::RowGroup) -> Option<i64>) -> Bytes {
    let md = ParquetReader::from_bytes(file.clone())
        .unwrap()
        .metadata()
        .clone();
    let mut bytes = file.to_vec();
    for rg in &md.row_groups {
        if let Some(a) = at(rg) {
            bytes[a as usize] = 0xff;
        }
    }
    Bytes::from(bytes)
}
