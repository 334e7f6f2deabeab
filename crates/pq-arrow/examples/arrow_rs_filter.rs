//! The arrow-rs side of the whole-process filtered reads in BENCHMARKS.md:
//! the work `pq scan FILE --where EXPR` does for the filter bench's three
//! queries, with the arrow-rs `parquet` crate driven as DataFusion drives
//! it: row groups pruned by their statistics (and, for a string equality,
//! by Bloom filters), a key range's pages by the page index turned into a
//! `RowSelection`, and the predicate as a `RowFilter` evaluated with
//! Arrow's kernels, every column projected. One thread, batches of 8192;
//! prints the rows kept and the time, as `pq scan` does.
//!
//! ```text
//! cargo run --release -p pq-arrow --example arrow_rs_filter -- FILE range l_orderkey 524288 525336
//! cargo run --release -p pq-arrow --example arrow_rs_filter -- FILE conjunction
//! cargo run --release -p pq-arrow --example arrow_rs_filter -- FILE equal l_comment 'some text'
//! ```
//!
//! `conjunction` is `l_quantity <= 5.00 AND l_discount = 0.05` (decimals of
//! the columns' scale).

use std::process::ExitCode;
use std::time::Instant;

use arrow_array::{
    BooleanArray, Datum, Decimal128Array, Int64Array, RecordBatch, Scalar, StringArray,
};
use arrow_schema::DataType;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowPredicateFn, ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowFilter,
};
use parquet::file::metadata::PageIndexPolicy;

// The pruning the benches give arrow-rs, the same here.
#[path = "../benches/common/arrow_rs_pruning.rs"]
mod arrow_rs_pruning;

type Error = Box<dyn std::error::Error>;

/// The test of a batch of the predicate's columns.
type Test = Box<dyn Fn(&RecordBatch) -> BooleanArray + Send>;

/// One of the bench's queries.
enum Query {
    /// `col BETWEEN lo AND hi` on an INT64 column.
    Range { col: String, lo: i64, hi: i64 },
    /// `l_quantity <= 5.00 AND l_discount = 0.05`.
    Conjunction,
    /// `col = 'value'` on a string column.
    Equal { col: String, value: String },
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let query = match args.get(1..).unwrap_or_default() {
        [kind, col, lo, hi] if kind == "range" => match (lo.parse(), hi.parse()) {
            (Ok(lo), Ok(hi)) => Some(Query::Range {
                col: col.clone(),
                lo,
                hi,
            }),
            _ => None,
        },
        [kind] if kind == "conjunction" => Some(Query::Conjunction),
        [kind, col, value] if kind == "equal" => Some(Query::Equal {
            col: col.clone(),
            value: value.clone(),
        }),
        _ => None,
    };
    let (Some(path), Some(query)) = (args.first(), query) else {
        eprintln!("usage: arrow_rs_filter FILE (range COL LO HI | conjunction | equal COL VALUE)");
        return ExitCode::from(2);
    };
    match filter(path, &query) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("arrow_rs_filter: {path}: {e}");
            ExitCode::FAILURE
        }
    }
}

fn filter(path: &str, query: &Query) -> Result<(), Error> {
    let start = Instant::now();
    let file = std::fs::File::open(path)?;
    // The page index only where it prunes (a key range), as DataFusion
    // reads it only for a predicate it can use.
    let policy = match query {
        Query::Range { .. } => PageIndexPolicy::Optional,
        _ => PageIndexPolicy::Skip,
    };
    let options = ArrowReaderOptions::new().with_page_index_policy(policy);
    let mut b = ParquetRecordBatchReaderBuilder::try_new_with_options(file.try_clone()?, options)?
        .with_batch_size(8192);
    let leaves: Vec<String> = b
        .parquet_schema()
        .columns()
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    let schema = b.schema().clone();
    let leaf = |name: &str| -> Result<usize, Error> {
        leaves
            .iter()
            .position(|c| c == name)
            .ok_or_else(|| format!("no column {name}").into())
    };
    let arrow_type = |name: &str| -> Result<DataType, Error> {
        Ok(schema.field_with_name(name)?.data_type().clone())
    };
    let md = b.metadata().clone();
    // The columns the predicate reads, and the test of a batch of them.
    let (columns, test): (Vec<usize>, Test) = match query {
        Query::Range { col, lo, hi } => {
            let c = leaf(col)?;
            let (groups, selection) = arrow_rs_pruning::key_selection(&md, c, (*lo, *hi));
            b = b.with_row_groups(groups).with_row_selection(selection);
            let (lo, hi) = (Int64Array::new_scalar(*lo), Int64Array::new_scalar(*hi));
            (
                vec![c],
                Box::new(move |batch| {
                    let k = batch.column(0);
                    both(arrow_ord::cmp::gt_eq(k, &lo), arrow_ord::cmp::lt_eq(k, &hi))
                }),
            )
        }
        Query::Conjunction => {
            let quantity = decimal(&arrow_type("l_quantity")?, 500)?;
            let discount = decimal(&arrow_type("l_discount")?, 5)?;
            (
                vec![leaf("l_quantity")?, leaf("l_discount")?],
                Box::new(move |batch| {
                    both(
                        arrow_ord::cmp::lt_eq(batch.column(0), &quantity),
                        arrow_ord::cmp::eq(batch.column(1), &discount),
                    )
                }),
            )
        }
        Query::Equal { col, value } => {
            let c = leaf(col)?;
            let groups = arrow_rs_pruning::bloom_groups(file.try_clone()?, c, value);
            b = b.with_row_groups(groups);
            let needle = string(&arrow_type(col)?, value)?;
            (
                vec![c],
                Box::new(move |batch| {
                    arrow_ord::cmp::eq(batch.column(0), needle.as_ref())
                        .unwrap_or_else(|_| BooleanArray::from(vec![false; batch.num_rows()]))
                }),
            )
        }
    };
    let mask = ProjectionMask::leaves(b.parquet_schema(), columns);
    let predicate = ArrowPredicateFn::new(mask, move |batch| Ok(test(&batch)));
    let reader = b
        .with_row_filter(RowFilter::new(vec![Box::new(predicate)]))
        .build()?;
    let mut rows = 0usize;
    for batch in reader {
        rows += batch?.num_rows();
    }
    println!("rows: {rows}");
    println!("seconds: {:.3}", start.elapsed().as_secs_f64());
    Ok(())
}

fn both(
    a: Result<BooleanArray, arrow_schema::ArrowError>,
    b: Result<BooleanArray, arrow_schema::ArrowError>,
) -> BooleanArray {
    match (a, b) {
        (Ok(a), Ok(b)) => arrow_arith::boolean::and(&a, &b).unwrap_or(a),
        (Ok(a), Err(_)) | (Err(_), Ok(a)) => a,
        (Err(e), Err(_)) => panic!("{e}"),
    }
}

/// `hundredths` / 100 as a scalar of the decimal type `dt`.
fn decimal(dt: &DataType, hundredths: i128) -> Result<Scalar<Decimal128Array>, Error> {
    let DataType::Decimal128(p, s) = dt else {
        return Err(format!("a decimal column of type {dt}").into());
    };
    let scaled = match s.checked_sub(2) {
        Some(up) => hundredths * 10i128.pow(u32::try_from(up)?),
        None => hundredths / 10i128.pow(u32::try_from(2 - s)?),
    };
    Ok(Scalar::new(
        Decimal128Array::from(vec![scaled]).with_precision_and_scale(*p, *s)?,
    ))
}

/// `value` as a scalar of the string type `dt`.
fn string(dt: &DataType, value: &str) -> Result<Box<dyn Datum + Send>, Error> {
    Ok(match dt {
        DataType::Utf8 => Box::new(StringArray::new_scalar(value)),
        DataType::LargeUtf8 => Box::new(arrow_array::LargeStringArray::new_scalar(value)),
        DataType::Utf8View => Box::new(arrow_array::StringViewArray::new_scalar(value)),
        other => return Err(format!("a string column of type {other}").into()),
    })
}
