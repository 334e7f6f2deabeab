//! `cargo xtask bench-data`: the tables the read and write benchmarks use.
//!
//! They are large (hundreds of MB), so they are written to `target/bench-data/`
//! and never committed. Every file is written by the arrow-rs writer from the
//! same deterministic rows, so pq and arrow-rs are timed on identical bytes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder, StringBuilder};
use arrow_array::*;
use arrow_schema::{DataType, Field, Fields, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{WriterProperties, WriterVersion};

use crate::rng::Rng;

/// Rows of the lineitem-like table.
pub const LINEITEM_ROWS: usize = 4_000_000;
/// Rows of the nested table.
pub const NESTED_ROWS: usize = 1_000_000;
const BATCH: usize = 65_536;

/// Makes a batch of `n` rows of one table.
type MakeBatch = fn(usize, &mut Rng) -> RecordBatch;

/// Where the benchmark tables live.
pub fn dir(root: &Path) -> PathBuf {
    root.join("target").join("bench-data")
}

/// Write every benchmark table that is missing (all of them with `force`).
pub fn run(root: &Path, force: bool) -> crate::Result<()> {
    let dir = dir(root);
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let plain = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_compression(Compression::UNCOMPRESSED)
        .build();
    let snappy_dict = WriterProperties::builder()
        .set_dictionary_enabled(true)
        .set_compression(Compression::SNAPPY)
        .build();
    let zstd_v2 = WriterProperties::builder()
        .set_writer_version(WriterVersion::PARQUET_2_0)
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .build();
    let tables: [(&str, WriterProperties, MakeBatch, usize); 4] = [
        (
            "lineitem_plain.parquet",
            plain,
            lineitem_batch,
            LINEITEM_ROWS,
        ),
        (
            "lineitem_snappy_dict.parquet",
            snappy_dict.clone(),
            lineitem_batch,
            LINEITEM_ROWS,
        ),
        (
            "lineitem_zstd_v2.parquet",
            zstd_v2,
            lineitem_batch,
            LINEITEM_ROWS,
        ),
        (
            "nested_snappy_dict.parquet",
            snappy_dict,
            nested_batch,
            NESTED_ROWS,
        ),
    ];
    for (name, props, make, rows) in tables {
        let path = dir.join(name);
        if path.exists() && !force {
            eprintln!("{} exists", path.display());
            continue;
        }
        let tmp = path.with_extension("tmp");
        let file =
            std::fs::File::create(&tmp).map_err(|e| format!("creating {}: {e}", tmp.display()))?;
        let mut rng = Rng(2024);
        let first = make(1, &mut Rng(0));
        let mut writer = ArrowWriter::try_new(file, first.schema(), Some(props))
            .map_err(|e| format!("{name}: {e}"))?;
        let mut done = 0;
        while done < rows {
            let n = BATCH.min(rows - done);
            let batch = make(n, &mut rng);
            writer.write(&batch).map_err(|e| format!("{name}: {e}"))?;
            done += n;
        }
        writer.close().map_err(|e| format!("{name}: {e}"))?;
        std::fs::rename(&tmp, &path).map_err(|e| format!("renaming {}: {e}", tmp.display()))?;
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        eprintln!("wrote {} ({} MB)", path.display(), size / 1_000_000);
    }
    Ok(())
}

/// A TPC-H lineitem-like batch: int64 keys, int32s, decimals, a date,
/// low-cardinality strings, random comments of 10 to 43 bytes and a
/// nullable double.
pub fn lineitem_batch(n: usize, r: &mut Rng) -> RecordBatch {
    const FLAGS: [&str; 3] = ["A", "N", "R"];
    const MODES: [&str; 7] = ["AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"];
    const INSTRUCT: [&str; 4] = [
        "COLLECT COD",
        "DELIVER IN PERSON",
        "NONE",
        "TAKE BACK RETURN",
    ];
    let mut orderkey = Vec::with_capacity(n);
    let mut key = (r.next() % 1_000_000) as i64 * 4;
    for _ in 0..n {
        if r.one_in(4) {
            key += 1 + r.below(3) as i64;
        }
        orderkey.push(key);
    }
    let partkey: Vec<i64> = (0..n).map(|_| 1 + r.below(200_000) as i64).collect();
    let suppkey: Vec<i32> = (0..n).map(|_| 1 + r.below(10_000) as i32).collect();
    let linenumber: Vec<i32> = (0..n).map(|_| 1 + r.below(7) as i32).collect();
    let quantity: Vec<i128> = (0..n).map(|_| (1 + r.below(50) as i128) * 100).collect();
    let price: Vec<i128> = (0..n)
        .map(|_| 90_000 + r.below(10_000_000) as i128)
        .collect();
    let discount: Vec<i128> = (0..n).map(|_| r.below(11) as i128).collect();
    let shipdate: Vec<i32> = (0..n).map(|_| 8_036 + r.below(2_526) as i32).collect();
    let flag = StringArray::from_iter_values((0..n).map(|_| FLAGS[r.below(3) as usize]));
    let mode = StringArray::from_iter_values((0..n).map(|_| MODES[r.below(7) as usize]));
    let instruct = StringArray::from_iter_values((0..n).map(|_| INSTRUCT[r.below(4) as usize]));
    let comment = StringArray::from_iter_values((0..n).map(|_| {
        let len = 10 + r.below(34) as usize;
        (0..len)
            .map(|_| (b'a' + r.below(26) as u8) as char)
            .collect::<String>()
    }));
    let tax: Vec<Option<f64>> = (0..n)
        .map(|_| {
            if r.one_in(10) {
                None
            } else {
                Some(r.below(9) as f64 / 100.0)
            }
        })
        .collect();
    let dec = |v: Vec<i128>| -> ArrayRef {
        match Decimal128Array::from(v).with_precision_and_scale(15, 2) {
            Ok(a) => Arc::new(a),
            Err(e) => unreachable!("precision 15 scale 2 is valid: {e}"),
        }
    };
    let columns: Vec<(&str, ArrayRef, bool)> = vec![
        ("l_orderkey", Arc::new(Int64Array::from(orderkey)), false),
        ("l_partkey", Arc::new(Int64Array::from(partkey)), false),
        ("l_suppkey", Arc::new(Int32Array::from(suppkey)), false),
        (
            "l_linenumber",
            Arc::new(Int32Array::from(linenumber)),
            false,
        ),
        ("l_quantity", dec(quantity), false),
        ("l_extendedprice", dec(price), false),
        ("l_discount", dec(discount), false),
        ("l_shipdate", Arc::new(Date32Array::from(shipdate)), false),
        ("l_returnflag", Arc::new(flag), false),
        ("l_shipmode", Arc::new(mode), false),
        ("l_shipinstruct", Arc::new(instruct), false),
        ("l_comment", Arc::new(comment), false),
        ("l_tax", Arc::new(Float64Array::from(tax)), true),
    ];
    let schema = Schema::new(
        columns
            .iter()
            .map(|(name, a, nullable)| Field::new(*name, a.data_type().clone(), *nullable))
            .collect::<Vec<_>>(),
    );
    match RecordBatch::try_new(Arc::new(schema), columns.into_iter().map(|c| c.1).collect()) {
        Ok(b) => b,
        Err(e) => unreachable!("columns match the schema: {e}"),
    }
}

/// A nested batch: list of int64, list of short strings, struct{int, string}.
pub fn nested_batch(n: usize, r: &mut Rng) -> RecordBatch {
    let mut ints = ListBuilder::new(Int64Builder::new());
    let mut strs = ListBuilder::new(StringBuilder::new());
    for _ in 0..n {
        if r.one_in(20) {
            ints.append(false);
        } else {
            for _ in 0..r.below(6) {
                ints.values().append_value(r.below(1 << 40) as i64);
            }
            ints.append(true);
        }
        if r.one_in(20) {
            strs.append(false);
        } else {
            for _ in 0..r.below(4) {
                let len = 1 + r.below(8) as usize;
                let s: String = (0..len)
                    .map(|_| (b'a' + r.below(26) as u8) as char)
                    .collect();
                strs.values().append_value(s);
            }
            strs.append(true);
        }
    }
    let fields = Fields::from(vec![
        Field::new("x", DataType::Int32, true),
        Field::new("name", DataType::Utf8, true),
    ]);
    let xs: Int32Array = (0..n)
        .map(|_| {
            if r.one_in(10) {
                None
            } else {
                Some(r.below(1000) as i32)
            }
        })
        .collect();
    let names = StringArray::from_iter((0..n).map(|_| {
        if r.one_in(10) {
            None
        } else {
            Some(format!("n{}", r.below(5000)))
        }
    }));
    let st = StructArray::new(fields, vec![Arc::new(xs), Arc::new(names)], None);
    // Nullable whatever this batch holds, so every batch has one schema.
    match RecordBatch::try_from_iter_with_nullable(vec![
        ("ints", Arc::new(ints.finish()) as ArrayRef, true),
        ("strings", Arc::new(strs.finish()) as ArrayRef, true),
        ("point", Arc::new(st) as ArrayRef, true),
    ]) {
        Ok(b) => b,
        Err(e) => unreachable!("columns are consistent: {e}"),
    }
}
