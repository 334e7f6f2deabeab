//! The Arrow type of a primitive Parquet column, from its physical type,
//! logical and converted annotations, and the `ARROW:schema` hint.

use arrow_schema::{
    DECIMAL128_MAX_PRECISION, DECIMAL256_MAX_PRECISION, DataType, IntervalUnit, TimeUnit,
};
use pq_format::{ColumnDescriptor, ConvertedType, LogicalType, TimeUnit as PqTimeUnit, Type};

use crate::error::{Location, Result, schema_err};

/// The Arrow type of a leaf column, with an optional hint from the
/// embedded Arrow schema.
pub fn convert_primitive(
    leaf: &ColumnDescriptor,
    hint: Option<DataType>,
    at: &Location,
) -> Result<DataType> {
    let base = from_parquet(leaf, at)?;
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
    converted: Option<ConvertedType>,
    scale: Option<i32>,
    precision: Option<i32>,
    /// Bytes of a FIXED_LEN_BYTE_ARRAY value (0 for other types).
    type_length: i32,
}

/// A precision or scale as the messages show it.
fn shown(v: Option<i32>) -> String {
    v.map_or_else(|| "(none)".to_string(), |v| v.to_string())
}

fn from_parquet(leaf: &ColumnDescriptor, at: &Location) -> Result<DataType> {
    let (precision, scale) = (leaf.precision, leaf.scale);
    if let Some(LogicalType::Unknown(_)) = &leaf.logical_type {
        return Ok(DataType::Null);
    }
    if let Some(LogicalType::Decimal(d)) = &leaf.logical_type {
        // The spec has writers repeat the DECIMAL logical type's precision
        // and scale in the schema element; when the two disagree one of
        // them is corrupt, and either would read the values wrongly.
        let differs = |given: Option<i32>, logical: i32| given.is_some_and(|g| g != logical);
        if differs(precision, d.precision) || differs(scale, d.scale) {
            return Err(schema_err(
                at,
                format!(
                    "the DECIMAL logical type's precision {} and scale {} differ from the \
                     schema element's {} and {}",
                    d.precision,
                    d.scale,
                    shown(precision),
                    shown(scale)
                ),
            ));
        }
    }
    let info = Info {
        logical: leaf.logical_type.as_ref(),
        converted: leaf.converted_type,
        scale,
        precision,
        type_length: leaf.type_length.unwrap_or(0),
    };
    // No converted type annotates these: one that claims to (a string, an
    // interval) says the column is not what the physical type alone reads.
    let plain = |physical: &str, t: DataType| match (info.logical, info.converted) {
        (None, Some(_)) => Err(bad(at, physical, &info)),
        _ => Ok(t),
    };
    match leaf.physical_type {
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
fn decimal(
    scale: Option<i32>,
    precision: Option<i32>,
    max: i32,
    wide: bool,
    at: &Location,
) -> Result<DataType> {
    let Some(precision) = precision.filter(|p| (1..=max).contains(p)) else {
        return Err(schema_err(
            at,
            format!(
                "invalid decimal precision {} (this type holds 1 to {max} digits)",
                shown(precision)
            ),
        ));
    };
    let Some(scale) = scale.filter(|s| (0..=precision).contains(s)) else {
        return Err(schema_err(
            at,
            format!(
                "invalid decimal scale {} (must be 0 to the precision {precision})",
                shown(scale)
            ),
        ));
    };
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
            info.logical,
            info.converted
                .or_else(|| info.logical.and_then(LogicalType::to_converted_type))
                .map_or(-1, |c| c.0)
        ),
    )
}

fn from_int32(info: &Info<'_>, at: &Location) -> Result<DataType> {
    use ConvertedType as C;
    match (info.logical, info.converted) {
        (None, None) => Ok(DataType::Int32),
        (Some(LogicalType::Integer(i)), _) => match (i.bit_width, i.is_signed) {
            (8, true) => Ok(DataType::Int8),
            (16, true) => Ok(DataType::Int16),
            (32, true) => Ok(DataType::Int32),
            (8, false) => Ok(DataType::UInt8),
            (16, false) => Ok(DataType::UInt16),
            (32, false) => Ok(DataType::UInt32),
            _ => Err(bad(at, "INT32", info)),
        },
        (Some(LogicalType::Decimal(d)), _) => {
            decimal(Some(d.scale), Some(d.precision), 9, false, at)
        }
        (Some(LogicalType::Date(_)), _) => Ok(DataType::Date32),
        (Some(LogicalType::Time(t)), _) => match time_unit(&t.unit) {
            Some(TimeUnit::Millisecond) => Ok(DataType::Time32(TimeUnit::Millisecond)),
            _ => Err(bad(at, "INT32", info)),
        },
        (None, Some(C::UINT_8)) => Ok(DataType::UInt8),
        (None, Some(C::UINT_16)) => Ok(DataType::UInt16),
        (None, Some(C::UINT_32)) => Ok(DataType::UInt32),
        (None, Some(C::INT_8)) => Ok(DataType::Int8),
        (None, Some(C::INT_16)) => Ok(DataType::Int16),
        (None, Some(C::INT_32)) => Ok(DataType::Int32),
        (None, Some(C::DATE)) => Ok(DataType::Date32),
        (None, Some(C::TIME_MILLIS)) => Ok(DataType::Time32(TimeUnit::Millisecond)),
        (None, Some(C::DECIMAL)) => decimal(info.scale, info.precision, 9, false, at),
        _ => Err(bad(at, "INT32", info)),
    }
}

fn from_int64(info: &Info<'_>, at: &Location) -> Result<DataType> {
    use ConvertedType as C;
    match (info.logical, info.converted) {
        (None, None) => Ok(DataType::Int64),
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
        (None, Some(C::INT_64)) => Ok(DataType::Int64),
        (None, Some(C::UINT_64)) => Ok(DataType::UInt64),
        (None, Some(C::TIME_MICROS)) => Ok(DataType::Time64(TimeUnit::Microsecond)),
        (None, Some(C::TIMESTAMP_MILLIS)) => Ok(DataType::Timestamp(
            TimeUnit::Millisecond,
            Some("UTC".into()),
        )),
        (None, Some(C::TIMESTAMP_MICROS)) => Ok(DataType::Timestamp(
            TimeUnit::Microsecond,
            Some("UTC".into()),
        )),
        (Some(LogicalType::Decimal(d)), _) => {
            decimal(Some(d.scale), Some(d.precision), 18, false, at)
        }
        (None, Some(C::DECIMAL)) => decimal(info.scale, info.precision, 18, false, at),
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
        (None, None) => Ok(DataType::Binary),
        (None, Some(C::JSON)) => Ok(DataType::Utf8),
        (None, Some(C::BSON)) => Ok(DataType::Binary),
        (None, Some(C::ENUM)) => Ok(DataType::Binary),
        (None, Some(C::UTF8)) => Ok(DataType::Utf8),
        (Some(LogicalType::Decimal(d)), _) => decimal(
            Some(d.scale),
            Some(d.precision),
            max_decimal_precision(Type::BYTE_ARRAY, 0),
            d.precision > DECIMAL128_MAX_PRECISION as i32,
            at,
        ),
        (None, Some(C::DECIMAL)) => decimal(
            info.scale,
            info.precision,
            max_decimal_precision(Type::BYTE_ARRAY, 0),
            info.precision
                .is_some_and(|p| p > i32::from(DECIMAL128_MAX_PRECISION)),
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
            decimal(
                Some(d.scale),
                Some(d.precision),
                max,
                info.type_length > 16,
                at,
            )
        }
        (None, Some(C::DECIMAL)) => {
            check_decimal_length(info.type_length, at)?;
            let max = max_decimal_precision(Type::FIXED_LEN_BYTE_ARRAY, info.type_length);
            decimal(info.scale, info.precision, max, info.type_length > 16, at)
        }
        (None, Some(C::INTERVAL)) => {
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
        (None, Some(_)) => Err(bad(at, "FIXED_LEN_BYTE_ARRAY", info)),
        _ => Ok(DataType::FixedSizeBinary(info.type_length)),
    }
}
