//! The Arrow type of a primitive Parquet column, from its physical type,
//! logical and converted annotations, and the `ARROW:schema` hint.

use arrow_schema::{
    DECIMAL128_MAX_PRECISION, DECIMAL256_MAX_PRECISION, DataType, IntervalUnit, TimeUnit,
};
use pq_format::{ConvertedType, LogicalType, TimeUnit as PqTimeUnit, Type};

use super::parquet::{CONVERTED_NONE, NodeKind, ParquetNode};
use crate::error::{Location, Result, schema_err};

/// The Arrow type of a primitive node, with an optional hint from the
/// embedded Arrow schema.
pub fn convert_primitive(
    node: &ParquetNode,
    hint: Option<DataType>,
    at: &Location,
) -> Result<DataType> {
    let base = from_parquet(node, at)?;
    Ok(match hint {
        Some(h) => apply_hint(base, h),
        None => base,
    })
}

/// Uses the Arrow type written by an Arrow writer when the Parquet type can
/// be read as it.
pub(crate) fn apply_hint(parquet: DataType, hint: DataType) -> DataType {
    use DataType as D;
    match (&parquet, &hint) {
        (D::Int32 | D::Int64, D::Timestamp(_, _)) => hint,
        (D::Int32, D::Time32(_)) => hint,
        (D::Int64, D::Time64(_)) => hint,
        (D::Int64, D::Duration(_)) => hint,
        (D::Int64, D::Date64) => hint,
        (D::Date32, D::Date64) => hint,
        (D::Timestamp(p, _), D::Timestamp(h, Some(_))) if p == h => hint,
        (D::Timestamp(TimeUnit::Nanosecond, None), D::Timestamp(TimeUnit::Second, _))
        | (D::Timestamp(TimeUnit::Nanosecond, None), D::Timestamp(TimeUnit::Millisecond, _))
        | (D::Timestamp(TimeUnit::Nanosecond, None), D::Timestamp(TimeUnit::Microsecond, _)) => {
            hint
        }
        (D::Utf8, D::LargeUtf8) => hint,
        (D::Binary, D::LargeBinary) => hint,
        (D::Binary, D::Utf8) => hint,
        (D::Binary, D::LargeUtf8) => hint,
        (D::Binary, D::Utf8View) => hint,
        (D::Utf8, D::Utf8View) => hint,
        (D::Binary, D::BinaryView) => hint,
        (D::Interval(_), D::Interval(_)) => hint,
        (D::Decimal128(_, _), D::Decimal32(_, _)) => hint,
        (D::Decimal128(_, _), D::Decimal64(_, _)) => hint,
        (D::Decimal128(_, _), D::Decimal256(_, _)) => hint,
        (_, D::Dictionary(_, value)) => {
            let hinted = apply_hint(parquet, value.as_ref().clone());
            if &hinted == value.as_ref() {
                hint
            } else {
                hinted
            }
        }
        _ => parquet,
    }
}

struct Info<'a> {
    logical: Option<&'a LogicalType>,
    converted: ConvertedType,
    scale: i32,
    precision: i32,
    type_length: i32,
}

fn from_parquet(node: &ParquetNode, at: &Location) -> Result<DataType> {
    let NodeKind::Primitive {
        physical,
        type_length,
        scale,
        precision,
        ..
    } = &node.kind
    else {
        return Err(schema_err(at, "expected a primitive field"));
    };
    if let Some(LogicalType::Unknown(_)) = &node.logical {
        return Ok(DataType::Null);
    }
    if let Some(LogicalType::Decimal(d)) = &node.logical {
        // The spec has writers repeat the DECIMAL logical type's precision
        // and scale in the schema element; when the two disagree one of
        // them is corrupt, and either would read the values wrongly.
        let differs = |given: i32, logical: i32| given != -1 && given != logical;
        if differs(*precision, d.precision) || differs(*scale, d.scale) {
            return Err(schema_err(
                at,
                format!(
                    "the DECIMAL logical type's precision {} and scale {} differ from the \
                     schema element's {precision} and {scale}",
                    d.precision, d.scale
                ),
            ));
        }
    }
    let info = Info {
        logical: node.logical.as_ref(),
        converted: node.converted,
        scale: *scale,
        precision: *precision,
        type_length: *type_length,
    };
    // No converted type annotates these: one that claims to (a string, an
    // interval) says the column is not what the physical type alone reads.
    let plain = |physical: &str, t: DataType| match (info.logical, info.converted) {
        (None, c) if c != CONVERTED_NONE => Err(bad(at, physical, &info)),
        _ => Ok(t),
    };
    match *physical {
        Type::BOOLEAN => plain("BOOLEAN", DataType::Boolean),
        Type::INT32 => from_int32(&info, at),
        Type::INT64 => from_int64(&info, at),
        Type::INT96 => plain("INT96", DataType::Timestamp(TimeUnit::Nanosecond, None)),
        Type::FLOAT => plain("FLOAT", DataType::Float32),
        Type::DOUBLE => plain("DOUBLE", DataType::Float64),
        Type::BYTE_ARRAY => from_byte_array(&info, at),
        Type::FIXED_LEN_BYTE_ARRAY => from_fixed(&info, at),
        other => Err(schema_err(at, format!("unknown physical type {}", other.0))),
    }
}

/// The most digits a decimal stored as `physical` (of `type_length` bytes
/// when fixed) can hold, as the spec bounds it: INT32 9, INT64 18, `n`
/// fixed bytes `floor(log10(2^(8n-1) - 1))`; BYTE_ARRAY is unbounded in
/// the spec, and bounded here by the widest Arrow decimal.
fn max_decimal_precision(physical: Type, type_length: i32) -> i32 {
    match physical {
        Type::INT32 => 9,
        Type::INT64 => 18,
        Type::FIXED_LEN_BYTE_ARRAY => {
            // `type_length` is 1..=32 here (`check_decimal_length`).
            let bits = 8 * type_length.clamp(1, 32) - 1;
            (f64::from(bits) * std::f64::consts::LOG10_2).floor() as i32
        }
        _ => i32::from(DECIMAL256_MAX_PRECISION),
    }
}

/// The Arrow decimal type of a DECIMAL column; a precision or scale the
/// physical type cannot hold is an error, never a decimal read with the
/// wrong point or digits.
fn decimal(scale: i32, precision: i32, max: i32, wide: bool, at: &Location) -> Result<DataType> {
    if !(1..=max).contains(&precision) {
        return Err(schema_err(
            at,
            format!("invalid decimal precision {precision} (this type holds 1 to {max} digits)"),
        ));
    }
    if !(0..=precision).contains(&scale) {
        return Err(schema_err(
            at,
            format!("invalid decimal scale {scale} (must be 0 to the precision {precision})"),
        ));
    }
    // Both fit: `max` is at most 76.
    let (p, s) = (precision as u8, scale as i8);
    Ok(if wide {
        DataType::Decimal256(p, s)
    } else {
        DataType::Decimal128(p, s)
    })
}

fn time_unit(u: &PqTimeUnit) -> Option<TimeUnit> {
    match u {
        PqTimeUnit::Millis(_) => Some(TimeUnit::Millisecond),
        PqTimeUnit::Micros(_) => Some(TimeUnit::Microsecond),
        PqTimeUnit::Nanos(_) => Some(TimeUnit::Nanosecond),
        PqTimeUnit::Unrecognized(_) => None,
    }
}

fn bad(at: &Location, physical: &str, info: &Info<'_>) -> crate::error::Error {
    schema_err(
        at,
        format!(
            "unable to convert Parquet {physical} with logical type {:?} and converted type {}",
            info.logical, info.converted.0
        ),
    )
}

fn from_int32(info: &Info<'_>, at: &Location) -> Result<DataType> {
    use ConvertedType as C;
    match (info.logical, info.converted) {
        (None, CONVERTED_NONE) => Ok(DataType::Int32),
        (Some(LogicalType::Integer(i)), _) => match (i.bit_width, i.is_signed) {
            (8, true) => Ok(DataType::Int8),
            (16, true) => Ok(DataType::Int16),
            (32, true) => Ok(DataType::Int32),
            (8, false) => Ok(DataType::UInt8),
            (16, false) => Ok(DataType::UInt16),
            (32, false) => Ok(DataType::UInt32),
            _ => Err(bad(at, "INT32", info)),
        },
        (Some(LogicalType::Decimal(d)), _) => decimal(d.scale, d.precision, 9, false, at),
        (Some(LogicalType::Date(_)), _) => Ok(DataType::Date32),
        (Some(LogicalType::Time(t)), _) => match time_unit(&t.unit) {
            Some(TimeUnit::Millisecond) => Ok(DataType::Time32(TimeUnit::Millisecond)),
            _ => Err(bad(at, "INT32", info)),
        },
        (None, C::UINT_8) => Ok(DataType::UInt8),
        (None, C::UINT_16) => Ok(DataType::UInt16),
        (None, C::UINT_32) => Ok(DataType::UInt32),
        (None, C::INT_8) => Ok(DataType::Int8),
        (None, C::INT_16) => Ok(DataType::Int16),
        (None, C::INT_32) => Ok(DataType::Int32),
        (None, C::DATE) => Ok(DataType::Date32),
        (None, C::TIME_MILLIS) => Ok(DataType::Time32(TimeUnit::Millisecond)),
        (None, C::DECIMAL) => decimal(info.scale, info.precision, 9, false, at),
        _ => Err(bad(at, "INT32", info)),
    }
}

fn from_int64(info: &Info<'_>, at: &Location) -> Result<DataType> {
    use ConvertedType as C;
    match (info.logical, info.converted) {
        (None, CONVERTED_NONE) => Ok(DataType::Int64),
        (Some(LogicalType::Integer(i)), _) if i.bit_width == 64 => Ok(if i.is_signed {
            DataType::Int64
        } else {
            DataType::UInt64
        }),
        (Some(LogicalType::Time(t)), _) => match time_unit(&t.unit) {
            Some(TimeUnit::Microsecond) => Ok(DataType::Time64(TimeUnit::Microsecond)),
            Some(TimeUnit::Nanosecond) => Ok(DataType::Time64(TimeUnit::Nanosecond)),
            _ => Err(bad(at, "INT64", info)),
        },
        (Some(LogicalType::Timestamp(t)), _) => match time_unit(&t.unit) {
            Some(u) => Ok(DataType::Timestamp(
                u,
                if t.is_adjusted_to_utc {
                    Some("UTC".into())
                } else {
                    None
                },
            )),
            None => Err(bad(at, "INT64", info)),
        },
        (None, C::INT_64) => Ok(DataType::Int64),
        (None, C::UINT_64) => Ok(DataType::UInt64),
        (None, C::TIME_MICROS) => Ok(DataType::Time64(TimeUnit::Microsecond)),
        (None, C::TIMESTAMP_MILLIS) => Ok(DataType::Timestamp(
            TimeUnit::Millisecond,
            Some("UTC".into()),
        )),
        (None, C::TIMESTAMP_MICROS) => Ok(DataType::Timestamp(
            TimeUnit::Microsecond,
            Some("UTC".into()),
        )),
        (Some(LogicalType::Decimal(d)), _) => decimal(d.scale, d.precision, 18, false, at),
        (None, C::DECIMAL) => decimal(info.scale, info.precision, 18, false, at),
        _ => Err(bad(at, "INT64", info)),
    }
}

fn from_byte_array(info: &Info<'_>, at: &Location) -> Result<DataType> {
    use ConvertedType as C;
    match (info.logical, info.converted) {
        (Some(LogicalType::String(_)), _) => Ok(DataType::Utf8),
        (Some(LogicalType::Json(_)), _) => Ok(DataType::Utf8),
        (Some(LogicalType::Bson(_)), _) => Ok(DataType::Binary),
        (Some(LogicalType::Enum(_)), _) => Ok(DataType::Binary),
        (Some(LogicalType::Geometry(_)), _) => Ok(DataType::Binary),
        (Some(LogicalType::Geography(_)), _) => Ok(DataType::Binary),
        (Some(LogicalType::Unrecognized(_)), _) => Ok(DataType::Binary),
        (None, CONVERTED_NONE) => Ok(DataType::Binary),
        (None, C::JSON) => Ok(DataType::Utf8),
        (None, C::BSON) => Ok(DataType::Binary),
        (None, C::ENUM) => Ok(DataType::Binary),
        (None, C::UTF8) => Ok(DataType::Utf8),
        (Some(LogicalType::Decimal(d)), _) => decimal(
            d.scale,
            d.precision,
            max_decimal_precision(Type::BYTE_ARRAY, 0),
            d.precision > DECIMAL128_MAX_PRECISION as i32,
            at,
        ),
        (None, C::DECIMAL) => decimal(
            info.scale,
            info.precision,
            max_decimal_precision(Type::BYTE_ARRAY, 0),
            info.precision > DECIMAL128_MAX_PRECISION as i32,
            at,
        ),
        _ => Err(bad(at, "BYTE_ARRAY", info)),
    }
}

fn check_decimal_length(len: i32, at: &Location) -> Result<()> {
    if !(1..=32).contains(&len) {
        return Err(schema_err(
            at,
            format!("DECIMAL must be a Fixed Length Byte Array with length 1 to 32, got {len}"),
        ));
    }
    Ok(())
}

fn from_fixed(info: &Info<'_>, at: &Location) -> Result<DataType> {
    use ConvertedType as C;
    match (info.logical, info.converted) {
        (Some(LogicalType::Decimal(d)), _) => {
            check_decimal_length(info.type_length, at)?;
            let max = max_decimal_precision(Type::FIXED_LEN_BYTE_ARRAY, info.type_length);
            decimal(d.scale, d.precision, max, info.type_length > 16, at)
        }
        (None, C::DECIMAL) => {
            check_decimal_length(info.type_length, at)?;
            let max = max_decimal_precision(Type::FIXED_LEN_BYTE_ARRAY, info.type_length);
            decimal(info.scale, info.precision, max, info.type_length > 16, at)
        }
        (None, C::INTERVAL) => {
            if info.type_length != 12 {
                return Err(schema_err(
                    at,
                    format!(
                        "INTERVAL must be a Fixed Length Byte Array with length 12, got {}",
                        info.type_length
                    ),
                ));
            }
            Ok(DataType::Interval(IntervalUnit::DayTime))
        }
        (Some(LogicalType::Float16(_)), _) => {
            if info.type_length == 2 {
                Ok(DataType::Float16)
            } else {
                Err(schema_err(
                    at,
                    "FLOAT16 logical type must be Fixed Length Byte Array with length 2",
                ))
            }
        }
        (None, c) if c != CONVERTED_NONE => Err(bad(at, "FIXED_LEN_BYTE_ARRAY", info)),
        _ => Ok(DataType::FixedSizeBinary(info.type_length)),
    }
}
