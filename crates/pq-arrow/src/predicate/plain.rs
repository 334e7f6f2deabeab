//! PLAIN-encoded values of a leaf (statistics bounds, dictionary pages)
//! as an Arrow array of the column's type, for predicates to compare.
//! Only the conversions that keep a value's meaning exactly are made;
//! anything else is `None`, and the caller does without.

use std::sync::Arc;

use arrow_array::{
    ArrayRef, BinaryArray, BinaryViewArray, BooleanArray, Date32Array, Date64Array, Decimal32Array,
    Decimal64Array, Decimal128Array, Decimal256Array, FixedSizeBinaryArray, Float16Array,
    Float32Array, Float64Array, Int8Array, Int16Array, Int32Array, Int64Array, LargeBinaryArray,
    LargeStringArray, StringArray, StringViewArray, Time32MillisecondArray, Time32SecondArray,
    Time64MicrosecondArray, Time64NanosecondArray, TimestampMicrosecondArray,
    TimestampMillisecondArray, TimestampNanosecondArray, TimestampSecondArray, UInt8Array,
    UInt16Array, UInt32Array, UInt64Array,
};
use arrow_buffer::i256;
use arrow_schema::{DataType, TimeUnit};
use pq_format::{ColumnDescriptor, Type};

/// Arrow's half float.
pub(super) type F16 = <arrow_array::types::Float16Type as arrow_array::ArrowPrimitiveType>::Native;

/// `items`, each one value's PLAIN bytes (no length prefix) of `leaf`'s
/// physical type, as an array of `dt`; `None` when one does not hold a
/// value of that type.
pub(crate) fn plain_array(
    items: &[&[u8]],
    leaf: &ColumnDescriptor,
    dt: &DataType,
) -> Option<ArrayRef> {
    let int = |bytes: &[u8]| -> Option<i128> {
        match leaf.physical_type {
            Type::INT32 => Some(i128::from(i32::from_le_bytes(bytes.try_into().ok()?))),
            Type::INT64 => Some(i128::from(i64::from_le_bytes(bytes.try_into().ok()?))),
            _ => None,
        }
    };
    let uint = |bytes: &[u8]| -> Option<u64> {
        match leaf.physical_type {
            Type::INT32 => Some(u64::from(u32::from_le_bytes(bytes.try_into().ok()?))),
            Type::INT64 => Some(u64::from_le_bytes(bytes.try_into().ok()?)),
            _ => None,
        }
    };
    // A decimal: little-endian INT32/INT64, or big-endian two's complement bytes.
    let decimal = |bytes: &[u8]| -> Option<i128> {
        match leaf.physical_type {
            Type::INT32 | Type::INT64 => int(bytes),
            Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY
                if !bytes.is_empty() && bytes.len() <= 16 =>
            {
                let fill = if bytes[0] & 0x80 != 0 { 0xff } else { 0 };
                let mut be = [fill; 16];
                be[16 - bytes.len()..].copy_from_slice(bytes);
                Some(i128::from_be_bytes(be))
            }
            _ => None,
        }
    };
    let bytes_type = matches!(
        leaf.physical_type,
        Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY
    );
    // Every item converted by `$f`, or `None` if one does not convert.
    macro_rules! prim {
        ($array:ty, $f:expr) => {{
            let f = $f;
            let values = items
                .iter()
                .map(|&bytes| f(bytes))
                .collect::<Option<Vec<_>>>()?;
            Arc::new(<$array>::from(values)) as ArrayRef
        }};
    }
    macro_rules! each {
        ($f:expr) => {{
            let f = $f;
            items
                .iter()
                .map(|&bytes| f(bytes))
                .collect::<Option<Vec<_>>>()?
        }};
    }
    Some(match dt {
        DataType::Boolean if leaf.physical_type == Type::BOOLEAN => {
            prim!(BooleanArray, |b: &[u8]| Some(b.first()? & 1 == 1))
        }
        DataType::Int8 => prim!(Int8Array, |b| i8::try_from(int(b)?).ok()),
        DataType::Int16 => prim!(Int16Array, |b| i16::try_from(int(b)?).ok()),
        DataType::Int32 => prim!(Int32Array, |b| i32::try_from(int(b)?).ok()),
        DataType::Int64 => prim!(Int64Array, |b| i64::try_from(int(b)?).ok()),
        DataType::UInt8 => prim!(UInt8Array, |b| u8::try_from(uint(b)?).ok()),
        DataType::UInt16 => prim!(UInt16Array, |b| u16::try_from(uint(b)?).ok()),
        DataType::UInt32 => prim!(UInt32Array, |b| u32::try_from(uint(b)?).ok()),
        DataType::UInt64 => prim!(UInt64Array, uint),
        DataType::Float32 if leaf.physical_type == Type::FLOAT => {
            prim!(Float32Array, |b: &[u8]| Some(f32::from_le_bytes(
                b.try_into().ok()?
            )))
        }
        DataType::Float64 if leaf.physical_type == Type::DOUBLE => {
            prim!(Float64Array, |b: &[u8]| Some(f64::from_le_bytes(
                b.try_into().ok()?
            )))
        }
        DataType::Float16 if leaf.physical_type == Type::FIXED_LEN_BYTE_ARRAY => {
            prim!(Float16Array, |b: &[u8]| Some(F16::from_bits(
                u16::from_le_bytes(b.try_into().ok()?)
            )))
        }
        DataType::Date32 => prim!(Date32Array, |b| i32::try_from(int(b)?).ok()),
        DataType::Date64 => prim!(Date64Array, |b| {
            let v = int(b)?;
            // A DATE (days in INT32) read as milliseconds.
            let ms = if leaf.physical_type == Type::INT32 {
                v * 86_400_000
            } else {
                v
            };
            i64::try_from(ms).ok()
        }),
        DataType::Time32(TimeUnit::Second) => {
            prim!(Time32SecondArray, |b| i32::try_from(int(b)?).ok())
        }
        DataType::Time32(TimeUnit::Millisecond) => {
            prim!(Time32MillisecondArray, |b| i32::try_from(int(b)?).ok())
        }
        DataType::Time64(TimeUnit::Microsecond) => {
            prim!(Time64MicrosecondArray, |b| i64::try_from(int(b)?).ok())
        }
        DataType::Time64(TimeUnit::Nanosecond) => {
            prim!(Time64NanosecondArray, |b| i64::try_from(int(b)?).ok())
        }
        DataType::Timestamp(unit, tz) if leaf.physical_type == Type::INT64 => {
            let v: Vec<i64> = each!(|b| i64::try_from(int(b)?).ok());
            let tz = tz.clone();
            match unit {
                TimeUnit::Second => Arc::new(TimestampSecondArray::from(v).with_timezone_opt(tz)),
                TimeUnit::Millisecond => {
                    Arc::new(TimestampMillisecondArray::from(v).with_timezone_opt(tz))
                }
                TimeUnit::Microsecond => {
                    Arc::new(TimestampMicrosecondArray::from(v).with_timezone_opt(tz))
                }
                TimeUnit::Nanosecond => {
                    Arc::new(TimestampNanosecondArray::from(v).with_timezone_opt(tz))
                }
            }
        }
        DataType::Decimal32(p, s) => Arc::new(
            Decimal32Array::from(each!(|b| i32::try_from(decimal(b)?).ok()))
                .with_precision_and_scale(*p, *s)
                .ok()?,
        ),
        DataType::Decimal64(p, s) => Arc::new(
            Decimal64Array::from(each!(|b| i64::try_from(decimal(b)?).ok()))
                .with_precision_and_scale(*p, *s)
                .ok()?,
        ),
        DataType::Decimal128(p, s) => Arc::new(
            Decimal128Array::from(each!(decimal))
                .with_precision_and_scale(*p, *s)
                .ok()?,
        ),
        DataType::Decimal256(p, s) => Arc::new(
            Decimal256Array::from(each!(|b| decimal(b).map(i256::from_i128)))
                .with_precision_and_scale(*p, *s)
                .ok()?,
        ),
        DataType::Utf8 if bytes_type => prim!(StringArray, |b| std::str::from_utf8(b).ok()),
        DataType::LargeUtf8 if bytes_type => {
            prim!(LargeStringArray, |b| std::str::from_utf8(b).ok())
        }
        DataType::Utf8View if bytes_type => {
            prim!(StringViewArray, |b| std::str::from_utf8(b).ok())
        }
        DataType::Binary if bytes_type => prim!(BinaryArray, Some),
        DataType::LargeBinary if bytes_type => prim!(LargeBinaryArray, Some),
        DataType::BinaryView if bytes_type => prim!(BinaryViewArray, Some),
        DataType::FixedSizeBinary(n)
            if bytes_type
                && items
                    .iter()
                    .all(|b| usize::try_from(*n).ok() == Some(b.len())) =>
        {
            Arc::new(
                FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                    items.iter().map(|b| Some(*b)),
                    *n,
                )
                .ok()?,
            )
        }
        _ => return None,
    })
}
