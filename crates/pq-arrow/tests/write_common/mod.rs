//! Random Arrow schemas and arrays for the writer tests.
#![allow(dead_code)]

use std::sync::Arc;

use arrow_array::builder::*;
use arrow_array::types::*;
use arrow_array::*;
use arrow_buffer::{NullBuffer, OffsetBuffer, i256};
use arrow_schema::{DataType, Field, Fields, IntervalUnit, Schema, TimeUnit};
use bytes::Bytes;
use pq_arrow::write::Encoding;
pub use pq_testkit::Rng;

/// When set, float generators make no NaN (pyarrow compares NaN unequal).
pub static NO_NAN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn nan_ok() -> bool {
    !NO_NAN.load(std::sync::atomic::Ordering::Relaxed)
}

/// Every leaf type the writer maps.
pub fn leaf_types() -> Vec<DataType> {
    vec![
        DataType::Boolean,
        DataType::Int8,
        DataType::Int16,
        DataType::Int32,
        DataType::Int64,
        DataType::UInt8,
        DataType::UInt16,
        DataType::UInt32,
        DataType::UInt64,
        DataType::Float16,
        DataType::Float32,
        DataType::Float64,
        DataType::Utf8,
        DataType::LargeUtf8,
        DataType::Binary,
        DataType::LargeBinary,
        DataType::Utf8View,
        DataType::BinaryView,
        DataType::FixedSizeBinary(3),
        DataType::Decimal128(5, 2),
        DataType::Decimal128(15, 2),
        DataType::Decimal128(30, 3),
        DataType::Decimal256(40, 5),
        DataType::Date32,
        DataType::Date64,
        DataType::Time32(TimeUnit::Millisecond),
        DataType::Time64(TimeUnit::Microsecond),
        DataType::Time64(TimeUnit::Nanosecond),
        DataType::Timestamp(TimeUnit::Second, None),
        DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
        DataType::Timestamp(TimeUnit::Microsecond, None),
        DataType::Timestamp(TimeUnit::Nanosecond, Some("+01:00".into())),
        DataType::Duration(TimeUnit::Millisecond),
        DataType::Interval(IntervalUnit::YearMonth),
        DataType::Interval(IntervalUnit::DayTime),
        DataType::Null,
        DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
    ]
}

/// A random type, nested up to `depth` levels.
pub fn random_type(r: &mut Rng, depth: u32) -> DataType {
    let leaves = leaf_types();
    if depth == 0 || r.chance(50) {
        return leaves[r.below(leaves.len() as u64) as usize].clone();
    }
    let child = |r: &mut Rng, name: &str| {
        let dt = random_type(r, depth - 1);
        let nullable = matches!(dt, DataType::Null) || r.chance(60);
        Arc::new(Field::new(name, dt, nullable))
    };
    match r.below(5) {
        0 => DataType::List(child(r, "item")),
        1 => DataType::LargeList(child(r, "element")),
        2 => DataType::FixedSizeList(child(r, "item"), 1 + r.below(2) as i32),
        3 => {
            let value = child(r, "values");
            DataType::Map(
                Arc::new(Field::new(
                    "entries",
                    DataType::Struct(Fields::from(vec![
                        Field::new("keys", DataType::Utf8, false),
                        value.as_ref().clone(),
                    ])),
                    false,
                )),
                false,
            )
        }
        _ => {
            let n = 1 + r.below(3);
            DataType::Struct(
                (0..n)
                    .map(|i| child(r, &format!("f{i}")))
                    .collect::<Vec<_>>()
                    .into(),
            )
        }
    }
}

/// A random schema of `n` columns.
pub fn random_schema(r: &mut Rng, n: usize, depth: u32) -> Schema {
    Schema::new(
        (0..n)
            .map(|i| {
                let dt = random_type(r, depth);
                let nullable = matches!(dt, DataType::Null) || r.chance(60);
                Field::new(format!("c{i}"), dt, nullable)
            })
            .collect::<Vec<_>>(),
    )
}

fn nulls(r: &mut Rng, len: usize, nullable: bool) -> Option<NullBuffer> {
    if !nullable || r.chance(30) {
        return None;
    }
    let pct = [5, 30, 100][r.below(3) as usize];
    Some(NullBuffer::from(
        (0..len).map(|_| !r.chance(pct)).collect::<Vec<bool>>(),
    ))
}

fn valid(n: &Option<NullBuffer>, i: usize) -> bool {
    n.as_ref().is_none_or(|n| n.is_valid(i))
}

fn string(r: &mut Rng) -> String {
    let alphabet = ["a", "b", "zz", "é", "€", "", "long-ish string value "];
    let n = r.below(4);
    (0..n)
        .map(|_| alphabet[r.below(alphabet.len() as u64) as usize])
        .collect()
}

fn prim<T: ArrowPrimitiveType>(
    r: &mut Rng,
    len: usize,
    n: &Option<NullBuffer>,
    f: impl Fn(&mut Rng) -> T::Native,
) -> PrimitiveArray<T> {
    PrimitiveArray::<T>::from_iter((0..len).map(|i| {
        let v = f(r);
        valid(n, i).then_some(v)
    }))
}

fn small(r: &mut Rng, lo: i64, hi: i64) -> i64 {
    // Few distinct values half of the time, so dictionaries help.
    if r.chance(50) {
        lo + r.below(5) as i64
    } else {
        lo + r.below((hi - lo) as u64) as i64
    }
}

/// A random array of `dt`, `len` long.
pub fn random_array(r: &mut Rng, dt: &DataType, len: usize, nullable: bool) -> ArrayRef {
    let n = nulls(r, len, nullable);
    match dt {
        DataType::Boolean => Arc::new(BooleanArray::from_iter((0..len).map(|i| {
            let v = r.chance(50);
            valid(&n, i).then_some(v)
        }))),
        DataType::Int8 => Arc::new(prim::<Int8Type>(r, len, &n, |r| small(r, -128, 127) as i8)),
        DataType::Int16 => Arc::new(prim::<Int16Type>(r, len, &n, |r| {
            small(r, -30000, 30000) as i16
        })),
        DataType::Int32 => Arc::new(prim::<Int32Type>(r, len, &n, |r| r.next() as i32)),
        DataType::Int64 => Arc::new(prim::<Int64Type>(r, len, &n, |r| r.next() as i64)),
        DataType::UInt8 => Arc::new(prim::<UInt8Type>(r, len, &n, |r| r.next() as u8)),
        DataType::UInt16 => Arc::new(prim::<UInt16Type>(r, len, &n, |r| r.next() as u16)),
        DataType::UInt32 => Arc::new(prim::<UInt32Type>(r, len, &n, |r| r.next() as u32)),
        DataType::UInt64 => Arc::new(prim::<UInt64Type>(r, len, &n, |r| r.next())),
        DataType::Float16 => {
            const HALVES: [u16; 7] = [0x3c00, 0xc000, 0x0000, 0x8000, 0x3800, 0x4500, 0x7e00];
            let k = if nan_ok() { 7 } else { 6 };
            let bits: Vec<u16> = (0..len).map(|_| HALVES[r.below(k) as usize]).collect();
            let data = arrow_data::ArrayData::builder(DataType::Float16)
                .len(len)
                .add_buffer(arrow_buffer::Buffer::from_vec(bits))
                .nulls(n)
                .build()
                .unwrap();
            make_array(data)
        }
        DataType::Float32 => Arc::new(prim::<Float32Type>(r, len, &n, |r| match r.below(20) {
            0 if nan_ok() => f32::NAN,
            1 => -0.0,
            _ => small(r, -1000, 1000) as f32 / 8.0,
        })),
        DataType::Float64 => Arc::new(prim::<Float64Type>(r, len, &n, |r| match r.below(20) {
            0 if nan_ok() => f64::NAN,
            1 => 0.0,
            _ => small(r, -1_000_000, 1_000_000) as f64 / 16.0,
        })),
        DataType::Utf8 => Arc::new(StringArray::from_iter((0..len).map(|i| {
            let s = string(r);
            valid(&n, i).then_some(s)
        }))),
        DataType::LargeUtf8 => Arc::new(LargeStringArray::from_iter((0..len).map(|i| {
            let s = string(r);
            valid(&n, i).then_some(s)
        }))),
        DataType::Utf8View => Arc::new(StringViewArray::from_iter((0..len).map(|i| {
            let s = string(r);
            valid(&n, i).then_some(s)
        }))),
        DataType::Binary => Arc::new(BinaryArray::from_iter((0..len).map(|i| {
            let s = string(r).into_bytes();
            valid(&n, i).then_some(s)
        }))),
        DataType::LargeBinary => Arc::new(LargeBinaryArray::from_iter((0..len).map(|i| {
            let s = string(r).into_bytes();
            valid(&n, i).then_some(s)
        }))),
        DataType::BinaryView => Arc::new(BinaryViewArray::from_iter((0..len).map(|i| {
            let s = string(r).into_bytes();
            valid(&n, i).then_some(s)
        }))),
        DataType::FixedSizeBinary(w) => {
            let mut b = FixedSizeBinaryBuilder::new(*w);
            for i in 0..len {
                let v: Vec<u8> = (0..*w).map(|_| r.below(4) as u8 * 60).collect();
                if valid(&n, i) {
                    b.append_value(&v).ok();
                } else {
                    b.append_null();
                }
            }
            Arc::new(b.finish())
        }
        DataType::Decimal128(p, s) => {
            let lim = 10i64.pow((*p as u32).min(18)) - 1;
            Arc::new(
                prim::<Decimal128Type>(r, len, &n, |r| {
                    (r.below(2 * lim as u64) as i64 - lim) as i128
                })
                .with_precision_and_scale(*p, *s)
                .unwrap(),
            )
        }
        DataType::Decimal256(p, s) => Arc::new(
            prim::<Decimal256Type>(r, len, &n, |r| {
                i256::from_i128(r.next() as i64 as i128 * 1000)
            })
            .with_precision_and_scale(*p, *s)
            .unwrap(),
        ),
        DataType::Date32 => Arc::new(prim::<Date32Type>(r, len, &n, |r| {
            small(r, 0, 20000) as i32
        })),
        DataType::Date64 => Arc::new(prim::<Date64Type>(r, len, &n, |r| {
            small(r, 0, 20000) * 86_400_000
        })),
        DataType::Time32(_) => Arc::new(prim::<Time32MillisecondType>(r, len, &n, |r| {
            small(r, 0, 86_400_000) as i32
        })),
        DataType::Time64(TimeUnit::Microsecond) => {
            Arc::new(prim::<Time64MicrosecondType>(r, len, &n, |r| {
                small(r, 0, 86_400_000_000)
            }))
        }
        DataType::Time64(_) => Arc::new(prim::<Time64NanosecondType>(r, len, &n, |r| {
            small(r, 0, 86_400_000_000_000)
        })),
        DataType::Timestamp(u, tz) => {
            let v: ArrayRef = match u {
                TimeUnit::Second => Arc::new(
                    prim::<TimestampSecondType>(r, len, &n, |r| r.next() as i32 as i64)
                        .with_timezone_opt(tz.clone()),
                ),
                TimeUnit::Millisecond => Arc::new(
                    prim::<TimestampMillisecondType>(r, len, &n, |r| r.next() as i32 as i64)
                        .with_timezone_opt(tz.clone()),
                ),
                TimeUnit::Microsecond => Arc::new(
                    prim::<TimestampMicrosecondType>(r, len, &n, |r| r.next() as i32 as i64)
                        .with_timezone_opt(tz.clone()),
                ),
                TimeUnit::Nanosecond => Arc::new(
                    prim::<TimestampNanosecondType>(r, len, &n, |r| r.next() as i32 as i64)
                        .with_timezone_opt(tz.clone()),
                ),
            };
            v
        }
        DataType::Duration(_) => Arc::new(prim::<DurationMillisecondType>(r, len, &n, |r| {
            r.next() as i32 as i64
        })),
        DataType::Interval(IntervalUnit::YearMonth) => {
            Arc::new(prim::<IntervalYearMonthType>(r, len, &n, |r| {
                small(r, -50, 50) as i32
            }))
        }
        DataType::Interval(_) => Arc::new(prim::<IntervalDayTimeType>(r, len, &n, |r| {
            IntervalDayTimeType::make_value(small(r, -50, 50) as i32, small(r, 0, 1000) as i32)
        })),
        DataType::Null => Arc::new(NullArray::new(len)),
        DataType::Dictionary(_, _) => {
            let values = StringArray::from_iter_values(["x", "yy", "zzz", "", "ü"]);
            let keys = prim::<Int32Type>(r, len, &n, |r| r.below(5) as i32);
            Arc::new(DictionaryArray::new(keys, Arc::new(values)))
        }
        DataType::List(f) | DataType::LargeList(f) => {
            let lens: Vec<usize> = (0..len)
                .map(|i| if valid(&n, i) { r.below(4) as usize } else { 0 })
                .collect();
            let total: usize = lens.iter().sum();
            let child = random_array(r, f.data_type(), total, f.is_nullable());
            if matches!(dt, DataType::List(_)) {
                Arc::new(ListArray::new(
                    f.clone(),
                    OffsetBuffer::from_lengths(lens),
                    child,
                    n,
                ))
            } else {
                Arc::new(LargeListArray::new(
                    f.clone(),
                    OffsetBuffer::from_lengths(lens),
                    child,
                    n,
                ))
            }
        }
        DataType::FixedSizeList(f, k) => {
            let child = random_array(r, f.data_type(), len * *k as usize, f.is_nullable());
            Arc::new(FixedSizeListArray::new(f.clone(), *k, child, n))
        }
        DataType::Map(entries, sorted) => {
            let lens: Vec<usize> = (0..len)
                .map(|i| if valid(&n, i) { r.below(3) as usize } else { 0 })
                .collect();
            let total: usize = lens.iter().sum();
            let DataType::Struct(kv) = entries.data_type() else {
                unreachable!()
            };
            let keys = random_array(r, &DataType::Utf8, total, false);
            let values = random_array(r, kv[1].data_type(), total, kv[1].is_nullable());
            let entries_arr = StructArray::new(kv.clone(), vec![keys, values], None);
            Arc::new(MapArray::new(
                entries.clone(),
                OffsetBuffer::from_lengths(lens),
                entries_arr,
                n,
                *sorted,
            ))
        }
        DataType::Struct(fields) => {
            let children = fields
                .iter()
                .map(|f| random_array(r, f.data_type(), len, f.is_nullable()))
                .collect();
            Arc::new(StructArray::new(fields.clone(), children, n))
        }
        other => panic!("no generator for {other}"),
    }
}

/// A random batch of `schema`.
pub fn random_batch(r: &mut Rng, schema: &Arc<Schema>, len: usize) -> RecordBatch {
    let columns = schema
        .fields()
        .iter()
        .map(|f| random_array(r, f.data_type(), len, f.is_nullable()))
        .collect();
    RecordBatch::try_new_with_options(
        schema.clone(),
        columns,
        &RecordBatchOptions::new().with_row_count(Some(len)),
    )
    .unwrap()
}

/// Reads a file with the arrow-rs reader into one batch.
pub fn read_arrow_rs(bytes: &[u8]) -> RecordBatch {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::copy_from_slice(bytes)).unwrap();
    let schema = builder.schema().clone();
    let batches: Vec<RecordBatch> = builder
        .with_batch_size(1 << 20)
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    arrow_select::concat::concat_batches(&schema, &batches).unwrap()
}

/// Reads a file with the arrow-rs reader, unless the file has ALP pages
/// and the linked arrow-rs predates ALP (before 60; the workspace follows
/// DataFusion's arrow, see the README's arrow policy): then `None`, with
/// a line saying so, and the caller checks ALP against the written values
/// only.
pub fn read_arrow_rs_unless_alp(bytes: &[u8]) -> Option<RecordBatch> {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let read = || -> Result<RecordBatch, parquet::errors::ParquetError> {
        let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::copy_from_slice(bytes))?;
        let schema = builder.schema().clone();
        let batches: Vec<RecordBatch> = builder
            .with_batch_size(1 << 20)
            .build()?
            .collect::<Result<_, _>>()?;
        Ok(arrow_select::concat::concat_batches(&schema, &batches)?)
    };
    match read() {
        Ok(batch) => Some(batch),
        Err(e) if e.to_string().contains("Unexpected Encoding 10") => {
            eprintln!(
                "note: the linked arrow-rs does not read ALP (encoding 10); ALP checked against the written values"
            );
            None
        }
        Err(e) => panic!("arrow-rs: {e}"),
    }
}

/// Asserts two batches hold the same columns of the same types.
pub fn assert_same(expected: &RecordBatch, actual: &RecordBatch, what: &str) {
    assert_eq!(expected.num_rows(), actual.num_rows(), "{what}: rows");
    assert_eq!(
        expected.num_columns(),
        actual.num_columns(),
        "{what}: columns"
    );
    for (i, (e, a)) in expected.columns().iter().zip(actual.columns()).enumerate() {
        assert_eq!(e.data_type(), a.data_type(), "{what}: column {i} type");
        let e_data = e.to_data();
        let a_data = a.to_data();
        assert!(
            e_data == a_data,
            "{what}: column {i} ({}) differs:\nexpected {e:?}\nactual {a:?}",
            expected.schema().field(i).name()
        );
    }
}

/// Encodings the leaf type of `dt` allows besides PLAIN.
pub fn leaf_encodings(dt: &DataType) -> Vec<Encoding> {
    match dt {
        DataType::Boolean => vec![Encoding::RLE],
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64
        | DataType::Date32
        | DataType::Date64
        | DataType::Time32(_)
        | DataType::Time64(_)
        | DataType::Timestamp(_, _)
        | DataType::Duration(_) => vec![Encoding::DELTA_BINARY_PACKED, Encoding::BYTE_STREAM_SPLIT],
        DataType::Decimal128(p, _) | DataType::Decimal256(p, _) if *p <= 18 => {
            vec![Encoding::DELTA_BINARY_PACKED, Encoding::BYTE_STREAM_SPLIT]
        }
        DataType::Float32 | DataType::Float64 => vec![Encoding::BYTE_STREAM_SPLIT, Encoding::ALP],
        DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::Utf8View
        | DataType::BinaryView
        | DataType::Dictionary(_, _) => {
            vec![
                Encoding::DELTA_LENGTH_BYTE_ARRAY,
                Encoding::DELTA_BYTE_ARRAY,
            ]
        }
        DataType::FixedSizeBinary(_)
        | DataType::Float16
        | DataType::Decimal128(_, _)
        | DataType::Decimal256(_, _)
        | DataType::Interval(_) => vec![Encoding::DELTA_BYTE_ARRAY, Encoding::BYTE_STREAM_SPLIT],
        _ => vec![],
    }
}
