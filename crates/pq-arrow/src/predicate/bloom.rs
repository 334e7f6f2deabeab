//! Bloom filters for `=` and `IN`: a row group is skipped when its
//! column's filter holds none of the values. A filter that cannot be read
//! (bad offsets, a damaged header, an unknown algorithm) is not an error:
//! the row group is read as if there were no filter, and the metrics count
//! it, since the data itself may be intact.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal32Type, Decimal64Type, Decimal128Type, Int8Type, Int16Type, Int32Type,
    Int64Type, Time32MillisecondType, Time32SecondType, Time64MicrosecondType,
    Time64NanosecondType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType, TimeUnit};
use pq_format::{ColumnDescriptor, Type};
use pq_page::bloom::xxh64;

/// Largest bitset read (as other readers cap it): a filter's size comes
/// from the file.
pub(crate) const MAX_BLOOM_BYTES: usize = 128 << 20;

/// The hash of `value` (one element of the column's Arrow type) as a
/// writer hashed it: XXH64 of its PLAIN encoding in the leaf's physical
/// type. `None` where the encoding is not certain (floats, whose zeros and
/// NaNs have several encodings; decimals in byte arrays, whose width is the
/// writer's choice; booleans, INT96, half floats, dates read as Date64).
pub(crate) fn hash(value: &ArrayRef, leaf: &ColumnDescriptor) -> Option<u64> {
    if value.len() != 1 || value.is_null(0) {
        return None;
    }
    let v = value.as_ref();
    let plain: Vec<u8> = match (leaf.physical_type, v.data_type()) {
        (Type::INT32, dt) => {
            let x: i32 = match dt {
                DataType::Int8 => v.as_primitive::<Int8Type>().value(0).into(),
                DataType::Int16 => v.as_primitive::<Int16Type>().value(0).into(),
                DataType::Int32 => v.as_primitive::<Int32Type>().value(0),
                DataType::UInt8 => v.as_primitive::<UInt8Type>().value(0).into(),
                DataType::UInt16 => v.as_primitive::<UInt16Type>().value(0).into(),
                DataType::UInt32 => v.as_primitive::<UInt32Type>().value(0) as i32,
                DataType::Date32 => v.as_primitive::<Date32Type>().value(0),
                DataType::Time32(TimeUnit::Second) => v.as_primitive::<Time32SecondType>().value(0),
                DataType::Time32(TimeUnit::Millisecond) => {
                    v.as_primitive::<Time32MillisecondType>().value(0)
                }
                DataType::Decimal32(..) => v.as_primitive::<Decimal32Type>().value(0),
                DataType::Decimal64(..) => {
                    i32::try_from(v.as_primitive::<Decimal64Type>().value(0)).ok()?
                }
                DataType::Decimal128(..) => {
                    i32::try_from(v.as_primitive::<Decimal128Type>().value(0)).ok()?
                }
                _ => return None,
            };
            x.to_le_bytes().to_vec()
        }
        (Type::INT64, dt) => {
            let x: i64 = match dt {
                DataType::Int64 => v.as_primitive::<Int64Type>().value(0),
                DataType::UInt64 => v.as_primitive::<UInt64Type>().value(0) as i64,
                DataType::Time64(TimeUnit::Microsecond) => {
                    v.as_primitive::<Time64MicrosecondType>().value(0)
                }
                DataType::Time64(TimeUnit::Nanosecond) => {
                    v.as_primitive::<Time64NanosecondType>().value(0)
                }
                DataType::Timestamp(TimeUnit::Second, _) => {
                    v.as_primitive::<TimestampSecondType>().value(0)
                }
                DataType::Timestamp(TimeUnit::Millisecond, _) => {
                    v.as_primitive::<TimestampMillisecondType>().value(0)
                }
                DataType::Timestamp(TimeUnit::Microsecond, _) => {
                    v.as_primitive::<TimestampMicrosecondType>().value(0)
                }
                DataType::Timestamp(TimeUnit::Nanosecond, _) => {
                    v.as_primitive::<TimestampNanosecondType>().value(0)
                }
                DataType::Decimal64(..) => v.as_primitive::<Decimal64Type>().value(0),
                DataType::Decimal128(..) => {
                    i64::try_from(v.as_primitive::<Decimal128Type>().value(0)).ok()?
                }
                _ => return None,
            };
            x.to_le_bytes().to_vec()
        }
        (Type::BYTE_ARRAY, DataType::Utf8) => v.as_string::<i32>().value(0).as_bytes().to_vec(),
        (Type::BYTE_ARRAY, DataType::LargeUtf8) => {
            v.as_string::<i64>().value(0).as_bytes().to_vec()
        }
        (Type::BYTE_ARRAY, DataType::Utf8View) => v.as_string_view().value(0).as_bytes().to_vec(),
        (Type::BYTE_ARRAY, DataType::Binary) => v.as_binary::<i32>().value(0).to_vec(),
        (Type::BYTE_ARRAY, DataType::LargeBinary) => v.as_binary::<i64>().value(0).to_vec(),
        (Type::BYTE_ARRAY, DataType::BinaryView) => v.as_binary_view().value(0).to_vec(),
        (Type::FIXED_LEN_BYTE_ARRAY, DataType::FixedSizeBinary(_)) => {
            v.as_fixed_size_binary().value(0).to_vec()
        }
        (Type::FIXED_LEN_BYTE_ARRAY, DataType::Decimal128(..)) => {
            let width = usize::try_from(leaf.type_length?)
                .ok()
                .filter(|w| (1..=16).contains(w))?;
            let be = v.as_primitive::<Decimal128Type>().value(0).to_be_bytes();
            let (head, tail) = be.split_at(16 - width);
            // The value must fit the width: the dropped bytes only repeat
            // the sign.
            let fill = if tail.first().is_some_and(|b| b & 0x80 != 0) {
                0xff
            } else {
                0
            };
            if head.iter().any(|&b| b != fill) {
                return None;
            }
            tail.to_vec()
        }
        _ => return None,
    };
    Some(xxh64(&plain))
}
