//! The logical tables of the benchmark matrix, generated from a fixed seed so
//! that every run (and every writer of the matrix) sees the same values.
//!
//! Two shapes, each with and without nulls: a TPC-H lineitem-like flat table
//! (16 columns: integer keys, decimals (15,2), dates, one-letter flags, short
//! strings of a few distinct values, random comments) and a nested table
//! (lists, a list of structs, a struct and a map). Without nulls every field
//! is declared non-nullable, so writers may leave out definition levels.

use std::sync::Arc;

use arrow_array::builder::{
    Int32Builder, Int64Builder, ListBuilder, MapBuilder, MapFieldNames, StringBuilder,
};
use arrow_array::*;
use arrow_buffer::OffsetBuffer;
use arrow_schema::{DataType, Field, Fields, Schema};

use crate::rng::{Rng, RngExt, opt};

/// A logical table of the matrix.
#[derive(Clone, Copy, Debug)]
pub struct Table {
    /// The name files of this table start with.
    pub name: &'static str,
    /// Nested or flat.
    pub nested: bool,
    /// Whether values are null one time in ten (lists, structs and maps
    /// themselves one time in twenty).
    pub nulls: bool,
}

/// Every table of the matrix.
pub const TABLES: [Table; 4] = [
    Table {
        name: "lineitem",
        nested: false,
        nulls: false,
    },
    Table {
        name: "lineitem_nulls",
        nested: false,
        nulls: true,
    },
    Table {
        name: "nested",
        nested: true,
        nulls: false,
    },
    Table {
        name: "nested_nulls",
        nested: true,
        nulls: true,
    },
];

impl Table {
    /// Rows of this table when the lineitem tables have `rows`: a nested row
    /// holds about four times the values of a flat one.
    pub fn rows(&self, rows: usize) -> usize {
        if self.nested { rows / 4 } else { rows }
    }

    /// A batch of `n` rows, the next ones of the stream `r` generates.
    pub fn batch(&self, n: usize, r: &mut Rng) -> RecordBatch {
        if self.nested {
            nested_batch(n, r, self.nulls)
        } else {
            lineitem_batch(n, r, self.nulls)
        }
    }

    /// One null in `n` values, or none.
    fn one_in(nulls: bool, n: u64) -> u64 {
        if nulls { n } else { 0 }
    }
}

/// A TPC-H lineitem-like batch of the 16 lineitem columns.
pub fn lineitem_batch(n: usize, r: &mut Rng, nulls: bool) -> RecordBatch {
    const FLAGS: [&str; 3] = ["A", "N", "R"];
    const STATUS: [&str; 2] = ["F", "O"];
    const MODES: [&str; 7] = ["AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"];
    const INSTRUCT: [&str; 4] = [
        "COLLECT COD",
        "DELIVER IN PERSON",
        "NONE",
        "TAKE BACK RETURN",
    ];
    let k = Table::one_in(nulls, 10);
    // Order keys rise slowly, as in a table sorted by order.
    let mut key = (r.next() % 1_000_000) as i64 * 4;
    let orderkey = opt(r, n, k, |r, _| {
        if r.one_in(4) {
            key += 1 + r.below(3) as i64;
        }
        key
    });
    let partkey = opt(r, n, k, |r, _| 1 + r.below(200_000) as i64);
    let suppkey = opt(r, n, k, |r, _| 1 + r.below(10_000) as i32);
    let linenumber = opt(r, n, k, |r, _| 1 + r.below(7) as i32);
    let quantity = opt(r, n, k, |r, _| (1 + r.below(50) as i128) * 100);
    let price = opt(r, n, k, |r, _| 90_000 + r.below(10_000_000) as i128);
    let discount = opt(r, n, k, |r, _| r.below(11) as i128);
    let tax = opt(r, n, k, |r, _| r.below(9) as i128);
    let returnflag = opt(r, n, k, |r, _| FLAGS[r.below(3) as usize]);
    let linestatus = opt(r, n, k, |r, _| STATUS[r.below(2) as usize]);
    let shipdate = opt(r, n, k, |r, _| 8_036 + r.below(2_526) as i32);
    let commitdate = opt(r, n, k, |r, _| 8_036 + r.below(2_526) as i32);
    let receiptdate = opt(r, n, k, |r, _| 8_036 + r.below(2_556) as i32);
    let instruct = opt(r, n, k, |r, _| INSTRUCT[r.below(4) as usize]);
    let mode = opt(r, n, k, |r, _| MODES[r.below(7) as usize]);
    let comment = opt(r, n, k, |r, _| {
        let len = 10 + r.below(34) as usize;
        (0..len)
            .map(|_| (b'a' + r.below(26) as u8) as char)
            .collect::<String>()
    });
    let dec = |v: Vec<Option<i128>>| -> ArrayRef {
        match Decimal128Array::from(v).with_precision_and_scale(15, 2) {
            Ok(a) => Arc::new(a),
            Err(e) => unreachable!("precision 15 scale 2 is valid: {e}"),
        }
    };
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("l_orderkey", Arc::new(Int64Array::from(orderkey))),
        ("l_partkey", Arc::new(Int64Array::from(partkey))),
        ("l_suppkey", Arc::new(Int32Array::from(suppkey))),
        ("l_linenumber", Arc::new(Int32Array::from(linenumber))),
        ("l_quantity", dec(quantity)),
        ("l_extendedprice", dec(price)),
        ("l_discount", dec(discount)),
        ("l_tax", dec(tax)),
        ("l_returnflag", Arc::new(StringArray::from(returnflag))),
        ("l_linestatus", Arc::new(StringArray::from(linestatus))),
        ("l_shipdate", Arc::new(Date32Array::from(shipdate))),
        ("l_commitdate", Arc::new(Date32Array::from(commitdate))),
        ("l_receiptdate", Arc::new(Date32Array::from(receiptdate))),
        ("l_shipinstruct", Arc::new(StringArray::from(instruct))),
        ("l_shipmode", Arc::new(StringArray::from(mode))),
        ("l_comment", Arc::new(StringArray::from(comment))),
    ];
    batch(columns, nulls)
}

/// A nested batch: `id`, a list of int64, a list of short strings, a list of
/// struct{ts, kind}, a struct{x, name} and a map of short strings to int64.
pub fn nested_batch(n: usize, r: &mut Rng, nulls: bool) -> RecordBatch {
    let outer = Table::one_in(nulls, 20);
    let inner = Table::one_in(nulls, 10);
    let null = |r: &mut Rng, k: u64| k > 0 && r.one_in(k);
    let word = |r: &mut Rng| -> String {
        let len = 1 + r.below(8) as usize;
        (0..len)
            .map(|_| (b'a' + r.below(26) as u8) as char)
            .collect()
    };
    let item = |t: DataType| Arc::new(Field::new("item", t, nulls));
    let mut ints = ListBuilder::new(Int64Builder::new()).with_field(item(DataType::Int64));
    let mut tags = ListBuilder::new(StringBuilder::new()).with_field(item(DataType::Utf8));
    let event_fields = Fields::from(vec![
        Field::new("ts", DataType::Int64, nulls),
        Field::new("kind", DataType::Utf8, nulls),
    ]);
    let (mut event_offsets, mut event_valid) = (vec![0i32], Vec::with_capacity(n));
    let (mut event_ts, mut event_kind) = (Vec::new(), Vec::new());
    let mut attrs = MapBuilder::new(
        Some(MapFieldNames {
            entry: "key_value".into(),
            key: "key".into(),
            value: "value".into(),
        }),
        StringBuilder::new(),
        Int64Builder::new(),
    )
    .with_values_field(Arc::new(Field::new("value", DataType::Int64, nulls)));
    let mut xs = Int32Builder::new();
    let mut names = StringBuilder::new();
    let mut point_valid = Vec::with_capacity(n);
    for _ in 0..n {
        if null(r, outer) {
            ints.append(false);
        } else {
            for _ in 0..r.below(6) {
                let v = (!null(r, inner)).then(|| r.below(1 << 40) as i64);
                ints.values().append_option(v);
            }
            ints.append(true);
        }
        if null(r, outer) {
            tags.append(false);
        } else {
            for _ in 0..r.below(4) {
                let v = (!null(r, inner)).then(|| word(r));
                tags.values().append_option(v);
            }
            tags.append(true);
        }
        let valid = !null(r, outer);
        event_valid.push(valid);
        if valid {
            let mut ts = 1_700_000_000_000 + r.below(1 << 30) as i64;
            for _ in 0..r.below(3) {
                ts += r.below(60_000) as i64;
                event_ts.push(ts);
                event_kind.push(
                    (!null(r, inner)).then(|| ["open", "click", "close"][r.below(3) as usize]),
                );
            }
        }
        event_offsets.push(event_ts.len() as i32);
        let valid = !null(r, outer);
        point_valid.push(valid);
        xs.append_option((valid && !null(r, inner)).then(|| r.below(1000) as i32));
        names.append_option((valid && !null(r, inner)).then(|| format!("n{}", r.below(5000))));
        let valid = !null(r, outer);
        if valid {
            for i in 0..r.below(4) {
                // Keys are unique within a map.
                attrs.keys().append_value(format!("k{i}{}", word(r)));
                let v = (!null(r, inner)).then(|| r.below(1_000_000) as i64);
                attrs.values().append_option(v);
            }
        }
        if let Err(e) = attrs.append(valid) {
            unreachable!("as many keys as values: {e}");
        }
    }
    let event_items = StructArray::new(
        event_fields.clone(),
        vec![
            Arc::new(Int64Array::from(event_ts)),
            Arc::new(StringArray::from(event_kind)),
        ],
        None,
    );
    let events = ListArray::new(
        item(DataType::Struct(event_fields)),
        OffsetBuffer::new(event_offsets.into()),
        Arc::new(event_items),
        nulls.then(|| event_valid.into()),
    );
    let point_fields = Fields::from(vec![
        Field::new("x", DataType::Int32, nulls),
        Field::new("name", DataType::Utf8, nulls),
    ]);
    let point = StructArray::new(
        point_fields,
        vec![Arc::new(xs.finish()), Arc::new(names.finish())],
        nulls.then(|| point_valid.into()),
    );
    let ids = Int64Array::from_iter_values((0..n).map(|_| r.next() as i64 >> 16));
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(ids)),
        ("ints", Arc::new(ints.finish())),
        ("tags", Arc::new(tags.finish())),
        ("events", Arc::new(events)),
        ("point", Arc::new(point)),
        ("attrs", Arc::new(attrs.finish())),
    ];
    batch(columns, nulls)
}

/// A batch of these columns, every field nullable or none (`id` never is).
fn batch(columns: Vec<(&str, ArrayRef)>, nulls: bool) -> RecordBatch {
    let schema = Schema::new(
        columns
            .iter()
            .map(|(name, a)| Field::new(*name, a.data_type().clone(), nulls && *name != "id"))
            .collect::<Vec<_>>(),
    );
    match RecordBatch::try_new(Arc::new(schema), columns.into_iter().map(|c| c.1).collect()) {
        Ok(b) => b,
        Err(e) => unreachable!("columns match the schema: {e}"),
    }
}
