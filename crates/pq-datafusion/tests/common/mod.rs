//! What the query suite and the benchmark share: a lineitem-like table
//! written by arrow-rs with its default settings (every column OPTIONAL,
//! as writers mark them), and rows rendered for comparison.
#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;

use arrow_array::{
    ArrayRef, Date32Array, Decimal128Array, Int32Array, Int64Array, RecordBatch, StringArray,
};
use arrow_schema::{DataType, Field, Schema};
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::file::properties::WriterProperties;
use pq_testkit::Rng;

/// TPC-H Q1 over `lineitem`: `tpch_q1.sql`, which whole-process runs
/// (`xtask/bench/alternate.py`, see BENCHMARKS) read too.
pub const Q1: &str = include_str!("tpch_q1.sql").trim_ascii_end();

/// TPC-H Q6 over `lineitem`: `tpch_q6.sql`, which whole-process runs read
/// too.
pub const Q6: &str = include_str!("tpch_q6.sql").trim_ascii_end();

pub const SHIPMODES: [&str; 7] = ["AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"];
const INSTRUCT: [&str; 4] = [
    "COLLECT COD",
    "DELIVER IN PERSON",
    "NONE",
    "TAKE BACK RETURN",
];
const WORDS: [&str; 8] = [
    "furiously",
    "quickly",
    "pending",
    "deposits",
    "regular",
    "ironic",
    "accounts",
    "sleep",
];

/// The lineitem-like schema (TPC-H's columns and types).
pub fn lineitem_schema() -> Arc<Schema> {
    let dec = DataType::Decimal128(15, 2);
    Arc::new(Schema::new(vec![
        Field::new("l_orderkey", DataType::Int64, true),
        Field::new("l_partkey", DataType::Int64, true),
        Field::new("l_suppkey", DataType::Int64, true),
        Field::new("l_linenumber", DataType::Int32, true),
        Field::new("l_quantity", dec.clone(), true),
        Field::new("l_extendedprice", dec.clone(), true),
        Field::new("l_discount", dec.clone(), true),
        Field::new("l_tax", dec, true),
        Field::new("l_returnflag", DataType::Utf8, true),
        Field::new("l_linestatus", DataType::Utf8, true),
        Field::new("l_shipdate", DataType::Date32, true),
        Field::new("l_commitdate", DataType::Date32, true),
        Field::new("l_receiptdate", DataType::Date32, true),
        Field::new("l_shipinstruct", DataType::Utf8, true),
        Field::new("l_shipmode", DataType::Utf8, true),
        Field::new("l_comment", DataType::Utf8, true),
    ]))
}

/// Rows `start..start + n` of the table (the same rows whatever the
/// batching): orders of 1–7 lines, dates over 1992–1998, 5 % null
/// comments.
pub fn lineitem_batch(start: u64, n: usize) -> RecordBatch {
    let mut orderkey = Vec::with_capacity(n);
    let mut partkey = Vec::with_capacity(n);
    let mut suppkey = Vec::with_capacity(n);
    let mut linenumber = Vec::with_capacity(n);
    let (mut qty, mut price, mut disc, mut tax) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let (mut rflag, mut lstatus) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut ship, mut commit, mut receipt) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let (mut instruct, mut mode, mut comment) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    for row in start..start + n as u64 {
        let mut r = Rng(row.wrapping_mul(0x2545_F491_4F6C_DD1D));
        orderkey.push((row / 4) as i64 + 1);
        partkey.push(r.below(200_000) as i64 + 1);
        suppkey.push(r.below(10_000) as i64 + 1);
        linenumber.push((row % 4) as i32 + 1);
        let q = r.below(50) as i128 + 1;
        qty.push(q * 100);
        price.push(q * (90_000 + r.below(20_000) as i128));
        disc.push(r.below(11) as i128);
        tax.push(r.below(9) as i128);
        // 1992-01-01 is day 8035.
        let s = 8035 + r.below(2526) as i32;
        ship.push(s);
        commit.push(s + r.below(60) as i32 - 30);
        receipt.push(s + r.below(30) as i32 + 1);
        let returned = s + 30 < 9298; // before 1995-06-17
        rflag.push(if !returned {
            "N"
        } else if r.below(2) == 0 {
            "R"
        } else {
            "A"
        });
        lstatus.push(if s > 9298 { "O" } else { "F" });
        instruct.push(INSTRUCT[r.below(4) as usize]);
        mode.push(SHIPMODES[r.below(7) as usize]);
        comment.push((r.below(20) != 0).then(|| {
            let words = 2 + r.below(5);
            (0..words)
                .map(|_| WORDS[r.below(8) as usize])
                .collect::<Vec<_>>()
                .join(" ")
        }));
    }
    let dec = |v: Vec<i128>| -> ArrayRef {
        Arc::new(
            Decimal128Array::from(v)
                .with_precision_and_scale(15, 2)
                .unwrap_or_else(|e| panic!("{e}")),
        )
    };
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(orderkey)),
        Arc::new(Int64Array::from(partkey)),
        Arc::new(Int64Array::from(suppkey)),
        Arc::new(Int32Array::from(linenumber)),
        dec(qty),
        dec(price),
        dec(disc),
        dec(tax),
        Arc::new(StringArray::from(rflag)),
        Arc::new(StringArray::from(lstatus)),
        Arc::new(Date32Array::from(ship)),
        Arc::new(Date32Array::from(commit)),
        Arc::new(Date32Array::from(receipt)),
        Arc::new(StringArray::from(instruct)),
        Arc::new(StringArray::from(mode)),
        Arc::new(StringArray::from(comment)),
    ];
    RecordBatch::try_new(lineitem_schema(), columns).unwrap_or_else(|e| panic!("{e}"))
}

/// Writes `rows` rows of the table with arrow-rs's defaults (SNAPPY is
/// what DataFusion and most writers use; row groups of `row_group_rows`).
pub fn write_lineitem(path: &Path, rows: usize, row_group_rows: usize) {
    write_lineitem_part(path, 0, rows, row_group_rows);
}

/// As [`write_lineitem`], the table's rows from `first` on: one part of a
/// table split over several files.
pub fn write_lineitem_part(path: &Path, first: usize, rows: usize, row_group_rows: usize) {
    // Tests in one binary run on several threads and each prepares the
    // tables it reads: one writer at a time, so a second test finds the
    // file whole (or writes it itself) and no test lists a directory while
    // another is still adding a part to it.
    static WRITING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_writer = WRITING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if path.exists() {
        return;
    }
    let tmp = path.with_extension(format!("partial-{}", std::process::id()));
    let file = std::fs::File::create(&tmp).unwrap_or_else(|e| panic!("{e}"));
    let props = WriterProperties::builder()
        .set_compression(datafusion::parquet::basic::Compression::SNAPPY)
        .set_max_row_group_row_count(Some(row_group_rows))
        .build();
    let mut w = ArrowWriter::try_new(file, lineitem_schema(), Some(props))
        .unwrap_or_else(|e| panic!("{e}"));
    let (mut start, end) = (first, first + rows);
    while start < end {
        let n = 65_536.min(end - start);
        w.write(&lineitem_batch(start as u64, n))
            .unwrap_or_else(|e| panic!("{e}"));
        start += n;
    }
    w.close().unwrap_or_else(|e| panic!("{e}"));
    std::fs::rename(&tmp, path).unwrap_or_else(|e| panic!("{e}"));
}

/// Every row of `batches` as one line of text (values as Arrow displays
/// them, so that `Utf8` and `Utf8View` of the same text agree), sorted
/// unless `ordered`.
pub fn render(batches: &[RecordBatch], ordered: bool) -> Vec<String> {
    use arrow_cast::display::{ArrayFormatter, FormatOptions};
    let options = FormatOptions::default().with_null("NULL");
    let mut rows = Vec::new();
    for b in batches {
        let formatters: Vec<_> = b
            .columns()
            .iter()
            .map(|c| {
                ArrayFormatter::try_new(c.as_ref(), &options).unwrap_or_else(|e| panic!("{e}"))
            })
            .collect();
        for i in 0..b.num_rows() {
            let cells: Vec<String> = formatters.iter().map(|f| f.value(i).to_string()).collect();
            rows.push(cells.join(" | "));
        }
    }
    if !ordered {
        rows.sort();
    }
    rows
}
