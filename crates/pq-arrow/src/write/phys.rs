//! Views of Arrow leaf arrays as Parquet physical values, borrowing the
//! Arrow buffers wherever the layout already matches.

use std::borrow::Cow;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, BooleanArray};
use arrow_buffer::Buffer;
use arrow_schema::{DataType, IntervalUnit, TimeUnit};

use crate::error::{Location, Result, unsupported};
use crate::write::schema::decimal_length_from_precision;

/// Byte-array values of an Arrow array.
#[derive(Debug)]
pub(crate) enum ByteSource<'a> {
    /// `i32` offsets (already sliced) into the data.
    O32(&'a [i32], &'a [u8]),
    /// `i64` offsets into the data.
    O64(&'a [i64], &'a [u8]),
    /// View layout: the 16-byte views (as bytes) and their data buffers.
    View(&'a [u8], &'a [Buffer]),
}

impl<'a> ByteSource<'a> {
    #[inline]
    pub(crate) fn get(&self, i: usize) -> &'a [u8] {
        match self {
            ByteSource::O32(o, d) => &d[o[i] as usize..o[i + 1] as usize],
            ByteSource::O64(o, d) => &d[o[i] as usize..o[i + 1] as usize],
            ByteSource::View(v, bufs) => {
                let view = &v[i * 16..i * 16 + 16];
                let word = |k: usize| {
                    u32::from_le_bytes([view[k], view[k + 1], view[k + 2], view[k + 3]]) as usize
                };
                let len = word(0);
                if len <= 12 {
                    &view[4..4 + len]
                } else {
                    &bufs[word(8)].as_slice()[word(12)..word(12) + len]
                }
            }
        }
    }
}

/// A leaf array's values in physical form, indexed like the array.
#[derive(Debug)]
pub(crate) enum Phys<'a> {
    Bool(&'a BooleanArray),
    I32(Cow<'a, [i32]>),
    I64(Cow<'a, [i64]>),
    F32(&'a [f32]),
    F64(&'a [f64]),
    Bytes(ByteSource<'a>),
    /// Value `i` is `data[i * width..(i + 1) * width]`.
    Fixed(Cow<'a, [u8]>, usize),
}

impl Phys<'_> {
    /// What the values are, for messages.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Phys::Bool(_) => "BOOLEAN",
            Phys::I32(_) => "INT32",
            Phys::I64(_) => "INT64",
            Phys::F32(_) => "FLOAT",
            Phys::F64(_) => "DOUBLE",
            Phys::Bytes(_) => "BYTE_ARRAY",
            Phys::Fixed(..) => "FIXED_LEN_BYTE_ARRAY",
        }
    }
}

/// Buffers for values that need converting, kept by the caller from one
/// slice to the next so that each slice does not take fresh memory.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    i32s: Vec<i32>,
    i64s: Vec<i64>,
}

/// `values` converted by `f` into `out` (cleared first).
fn convert<'s, A: Copy, B>(values: &[A], f: impl Fn(A) -> B, out: &'s mut Vec<B>) -> &'s [B] {
    out.clear();
    out.extend(values.iter().map(|&v| f(v)));
    out
}

fn widen<'s, T: ArrowPrimitiveType>(
    a: &dyn Array,
    f: impl Fn(T::Native) -> i32,
    scratch: &'s mut Scratch,
) -> Phys<'s> {
    Phys::I32(Cow::Borrowed(convert(
        a.as_primitive::<T>().values(),
        f,
        &mut scratch.i32s,
    )))
}

fn i64s<T: ArrowPrimitiveType>(a: &dyn Array) -> Phys<'_> {
    Phys::I64(Cow::Borrowed(
        a.as_primitive::<T>().values().inner().typed_data(),
    ))
}

/// Decimals wider than their precision needs, as arrow-rs writes them:
/// INT32 up to precision 9, INT64 up to 18, else the fewest big-endian
/// bytes that hold the precision. `low` gives the low 128 bits (all of them
/// for the precisions that fit INT32 or INT64), `be` the big-endian bytes.
fn decimal<'s, D: Copy, const N: usize>(
    v: &[D],
    precision: u8,
    low: impl Fn(D) -> i128,
    be: impl Fn(D) -> [u8; N],
    scratch: &'s mut Scratch,
) -> Phys<'s> {
    if precision <= 9 {
        Phys::I32(Cow::Borrowed(convert(
            v,
            |x| low(x) as i32,
            &mut scratch.i32s,
        )))
    } else if precision <= 18 {
        Phys::I64(Cow::Borrowed(convert(
            v,
            |x| low(x) as i64,
            &mut scratch.i64s,
        )))
    } else {
        let len = decimal_length_from_precision(precision);
        let mut out = Vec::with_capacity(v.len() * len);
        for &x in v {
            let b = be(x);
            out.extend_from_slice(&b[N.saturating_sub(len)..]);
        }
        Phys::Fixed(Cow::Owned(out), len)
    }
}

/// The physical view of a leaf array (dictionaries already materialised);
/// converted values go to `scratch`.
pub(crate) fn phys<'a>(
    array: &'a dyn Array,
    path: &str,
    scratch: &'a mut Scratch,
) -> Result<Phys<'a>> {
    use DataType as D;
    Ok(match array.data_type() {
        D::Null => Phys::I32(Cow::Owned(vec![0; array.len()])),
        D::Boolean => Phys::Bool(array.as_boolean()),
        D::Int8 => widen::<Int8Type>(array, |v| v as i32, scratch),
        D::Int16 => widen::<Int16Type>(array, |v| v as i32, scratch),
        D::UInt8 => widen::<UInt8Type>(array, |v| v as i32, scratch),
        D::UInt16 => widen::<UInt16Type>(array, |v| v as i32, scratch),
        D::Int32 => Phys::I32(Cow::Borrowed(array.as_primitive::<Int32Type>().values())),
        D::UInt32 => Phys::I32(Cow::Borrowed(
            array
                .as_primitive::<UInt32Type>()
                .values()
                .inner()
                .typed_data(),
        )),
        D::Date32 => Phys::I32(Cow::Borrowed(array.as_primitive::<Date32Type>().values())),
        D::Time32(TimeUnit::Second) => Phys::I32(Cow::Borrowed(
            array.as_primitive::<Time32SecondType>().values(),
        )),
        D::Time32(_) => Phys::I32(Cow::Borrowed(
            array.as_primitive::<Time32MillisecondType>().values(),
        )),
        D::Int64 => i64s::<Int64Type>(array),
        D::UInt64 => i64s::<UInt64Type>(array),
        D::Date64 => i64s::<Date64Type>(array),
        D::Decimal64(_, _) => i64s::<Decimal64Type>(array),
        D::Time64(TimeUnit::Microsecond) => i64s::<Time64MicrosecondType>(array),
        D::Time64(_) => i64s::<Time64NanosecondType>(array),
        D::Timestamp(TimeUnit::Second, _) => i64s::<TimestampSecondType>(array),
        D::Timestamp(TimeUnit::Millisecond, _) => i64s::<TimestampMillisecondType>(array),
        D::Timestamp(TimeUnit::Microsecond, _) => i64s::<TimestampMicrosecondType>(array),
        D::Timestamp(TimeUnit::Nanosecond, _) => i64s::<TimestampNanosecondType>(array),
        D::Duration(TimeUnit::Second) => i64s::<DurationSecondType>(array),
        D::Duration(TimeUnit::Millisecond) => i64s::<DurationMillisecondType>(array),
        D::Duration(TimeUnit::Microsecond) => i64s::<DurationMicrosecondType>(array),
        D::Duration(TimeUnit::Nanosecond) => i64s::<DurationNanosecondType>(array),
        D::Float32 => Phys::F32(array.as_primitive::<Float32Type>().values()),
        D::Float64 => Phys::F64(array.as_primitive::<Float64Type>().values()),
        D::Decimal32(_, _) => Phys::I32(Cow::Borrowed(
            array.as_primitive::<Decimal32Type>().values(),
        )),
        D::Decimal128(p, _) => decimal(
            array.as_primitive::<Decimal128Type>().values(),
            *p,
            |x| x,
            |x| x.to_be_bytes(),
            scratch,
        ),
        D::Decimal256(p, _) => decimal(
            array.as_primitive::<Decimal256Type>().values(),
            *p,
            |x| x.as_i128(),
            |x| x.to_be_bytes(),
            scratch,
        ),
        D::Float16 => {
            let v = array.as_primitive::<Float16Type>().values();
            Phys::Fixed(Cow::Borrowed(v.inner().as_slice()), 2)
        }
        D::Interval(IntervalUnit::YearMonth) => {
            let v = array.as_primitive::<IntervalYearMonthType>().values();
            let mut out = vec![0u8; v.len() * 12];
            for (c, x) in out.chunks_exact_mut(12).zip(v.iter()) {
                c[..4].copy_from_slice(&x.to_le_bytes());
            }
            Phys::Fixed(Cow::Owned(out), 12)
        }
        D::Interval(IntervalUnit::DayTime) => {
            let v = array.as_primitive::<IntervalDayTimeType>().values();
            let mut out = vec![0u8; v.len() * 12];
            for (c, x) in out.chunks_exact_mut(12).zip(v.iter()) {
                c[4..8].copy_from_slice(&x.days.to_le_bytes());
                c[8..12].copy_from_slice(&x.milliseconds.to_le_bytes());
            }
            Phys::Fixed(Cow::Owned(out), 12)
        }
        D::FixedSizeBinary(w) => {
            let a = array.as_fixed_size_binary();
            Phys::Fixed(Cow::Borrowed(a.value_data()), *w as usize)
        }
        D::Utf8 => {
            let a = array.as_string::<i32>();
            Phys::Bytes(ByteSource::O32(a.value_offsets(), a.value_data()))
        }
        D::LargeUtf8 => {
            let a = array.as_string::<i64>();
            Phys::Bytes(ByteSource::O64(a.value_offsets(), a.value_data()))
        }
        D::Binary => {
            let a = array.as_binary::<i32>();
            Phys::Bytes(ByteSource::O32(a.value_offsets(), a.value_data()))
        }
        D::LargeBinary => {
            let a = array.as_binary::<i64>();
            Phys::Bytes(ByteSource::O64(a.value_offsets(), a.value_data()))
        }
        D::Utf8View => {
            let a = array.as_string_view();
            Phys::Bytes(ByteSource::View(
                a.views().inner().as_slice(),
                a.data_buffers(),
            ))
        }
        D::BinaryView => {
            let a = array.as_binary_view();
            Phys::Bytes(ByteSource::View(
                a.views().inner().as_slice(),
                a.data_buffers(),
            ))
        }
        dt => {
            return Err(unsupported(
                &Location::column(path),
                format!("writing Arrow type {dt} to Parquet"),
            ));
        }
    })
}
