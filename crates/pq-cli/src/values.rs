//! Statistics values decoded to readable text, by logical type: what the
//! column means, not only how it is stored. Timestamps are ISO 8601 with as
//! many fractional digits as their unit and `Z` when adjusted to UTC (no
//! zone: local time), dates ISO 8601, decimals with their scale, FLOAT16 as
//! a number, UUIDs in their 8-4-4-4-12 form, strings as quoted text; bytes
//! that do not fit the type are shown as hex rather than guessed at.

use chrono::{DateTime, NaiveDate, NaiveTime};
use pq_format::{ColumnDescriptor, ConvertedType, LogicalType, TimeUnit, Type};

/// The unit of a time or timestamp: 10^-3, 10^-6 or 10^-9 seconds.
#[derive(Clone, Copy)]
enum Unit {
    Millis,
    Micros,
    Nanos,
}

impl Unit {
    fn from_logical(u: &TimeUnit) -> Option<Unit> {
        match u {
            TimeUnit::Millis(_) => Some(Unit::Millis),
            TimeUnit::Micros(_) => Some(Unit::Micros),
            TimeUnit::Nanos(_) => Some(Unit::Nanos),
            TimeUnit::Unrecognized(_) => None,
        }
    }

    /// Units in a second.
    fn per_second(self) -> i64 {
        match self {
            Unit::Millis => 1_000,
            Unit::Micros => 1_000_000,
            Unit::Nanos => 1_000_000_000,
        }
    }

    /// `%.3f`-style fraction of chrono's format for this unit.
    fn fraction(self) -> &'static str {
        match self {
            Unit::Millis => "%.3f",
            Unit::Micros => "%.6f",
            Unit::Nanos => "%.9f",
        }
    }
}

/// What a column's values mean, as far as their text goes.
enum Meaning {
    Signed,
    Unsigned,
    Text,
    Decimal(u32),
    Date,
    Time(Unit),
    Timestamp(Unit, bool),
    Float16,
    Uuid,
    Other,
}

fn meaning(column: &ColumnDescriptor) -> Meaning {
    if let Some(l) = &column.logical_type {
        let m = match l {
            LogicalType::Integer(i) if !i.is_signed => Some(Meaning::Unsigned),
            LogicalType::Integer(_) => Some(Meaning::Signed),
            LogicalType::String(_) | LogicalType::Enum(_) | LogicalType::Json(_) => {
                Some(Meaning::Text)
            }
            LogicalType::Decimal(d) => u32::try_from(d.scale).ok().map(Meaning::Decimal),
            LogicalType::Date(_) => Some(Meaning::Date),
            LogicalType::Time(t) => Unit::from_logical(&t.unit).map(Meaning::Time),
            LogicalType::Timestamp(t) => {
                Unit::from_logical(&t.unit).map(|u| Meaning::Timestamp(u, t.is_adjusted_to_utc))
            }
            LogicalType::Float16(_) => Some(Meaning::Float16),
            LogicalType::Uuid(_) => Some(Meaning::Uuid),
            _ => None,
        };
        if let Some(m) = m {
            return m;
        }
    }
    match column.converted_type {
        Some(
            ConvertedType::UINT_8
            | ConvertedType::UINT_16
            | ConvertedType::UINT_32
            | ConvertedType::UINT_64,
        ) => Meaning::Unsigned,
        Some(ConvertedType::UTF8 | ConvertedType::ENUM | ConvertedType::JSON) => Meaning::Text,
        Some(ConvertedType::DECIMAL) => match column.scale.map(u32::try_from) {
            Some(Ok(s)) => Meaning::Decimal(s),
            _ => Meaning::Decimal(0),
        },
        Some(ConvertedType::DATE) => Meaning::Date,
        Some(ConvertedType::TIME_MILLIS) => Meaning::Time(Unit::Millis),
        Some(ConvertedType::TIME_MICROS) => Meaning::Time(Unit::Micros),
        Some(ConvertedType::TIMESTAMP_MILLIS) => Meaning::Timestamp(Unit::Millis, true),
        Some(ConvertedType::TIMESTAMP_MICROS) => Meaning::Timestamp(Unit::Micros, true),
        _ => match column.physical_type {
            Type::INT32 | Type::INT64 => Meaning::Signed,
            _ => Meaning::Other,
        },
    }
}

/// A statistics bound (PLAIN-encoded bytes) as text in the column's
/// logical type; hex when the bytes do not fit it.
pub fn format_stat(column: &ColumnDescriptor, bytes: &[u8]) -> String {
    typed(column, bytes).unwrap_or_else(|| hex(bytes))
}

fn typed(column: &ColumnDescriptor, bytes: &[u8]) -> Option<String> {
    let m = meaning(column);
    match column.physical_type {
        Type::BOOLEAN => match bytes {
            [0] => Some("false".into()),
            [1] => Some("true".into()),
            _ => None,
        },
        Type::INT32 => {
            let b = <[u8; 4]>::try_from(bytes).ok()?;
            let v = i32::from_le_bytes(b);
            match m {
                Meaning::Unsigned => Some(u32::from_le_bytes(b).to_string()),
                Meaning::Decimal(s) => Some(decimal(i128::from(v), s)),
                Meaning::Date => date(i64::from(v)),
                Meaning::Time(u) => time(i64::from(v), u),
                _ => Some(v.to_string()),
            }
        }
        Type::INT64 => {
            let b = <[u8; 8]>::try_from(bytes).ok()?;
            let v = i64::from_le_bytes(b);
            match m {
                Meaning::Unsigned => Some(u64::from_le_bytes(b).to_string()),
                Meaning::Decimal(s) => Some(decimal(i128::from(v), s)),
                Meaning::Time(u) => time(v, u),
                Meaning::Timestamp(u, utc) => timestamp(v, u, utc),
                _ => Some(v.to_string()),
            }
        }
        Type::INT96 => int96(bytes),
        Type::FLOAT => Some(f32::from_le_bytes(<[u8; 4]>::try_from(bytes).ok()?).to_string()),
        Type::DOUBLE => Some(f64::from_le_bytes(<[u8; 8]>::try_from(bytes).ok()?).to_string()),
        Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY => match m {
            Meaning::Text => Some(format!("{:?}", String::from_utf8_lossy(bytes))),
            Meaning::Decimal(s) => big_endian(bytes).map(|v| decimal(v, s)),
            Meaning::Float16 => {
                let b = <[u8; 2]>::try_from(bytes).ok()?;
                Some(f16_to_f32(u16::from_le_bytes(b)).to_string())
            }
            Meaning::Uuid => uuid(bytes),
            _ => None,
        },
        _ => None,
    }
}

/// A statistics bound as a value that orders as the column's values do,
/// to pick the least and greatest bound of several row groups; `None` when
/// the bytes do not fit the type or its order is undefined (INT96).
#[derive(Debug, Clone, PartialEq, PartialOrd)]
pub enum SortKey {
    /// Signed integers, booleans and decimals.
    Int(i128),
    /// Floating point (a NaN bound is no key at all).
    Float(f64),
    /// Byte arrays: unsigned lexicographic, as UTF-8 text orders.
    Bytes(Vec<u8>),
}

/// The [`SortKey`] of a statistics bound of `column`.
pub fn sort_key(column: &ColumnDescriptor, bytes: &[u8]) -> Option<SortKey> {
    let m = meaning(column);
    let key = match column.physical_type {
        Type::BOOLEAN => SortKey::Int(i128::from(*bytes.first()?)),
        Type::INT32 => {
            let b = <[u8; 4]>::try_from(bytes).ok()?;
            match m {
                Meaning::Unsigned => SortKey::Int(i128::from(u32::from_le_bytes(b))),
                _ => SortKey::Int(i128::from(i32::from_le_bytes(b))),
            }
        }
        Type::INT64 => {
            let b = <[u8; 8]>::try_from(bytes).ok()?;
            match m {
                Meaning::Unsigned => SortKey::Int(i128::from(u64::from_le_bytes(b))),
                _ => SortKey::Int(i128::from(i64::from_le_bytes(b))),
            }
        }
        Type::FLOAT => SortKey::Float(f64::from(f32::from_le_bytes(
            <[u8; 4]>::try_from(bytes).ok()?,
        ))),
        Type::DOUBLE => SortKey::Float(f64::from_le_bytes(<[u8; 8]>::try_from(bytes).ok()?)),
        Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY => match m {
            Meaning::Decimal(_) => SortKey::Int(big_endian(bytes)?),
            Meaning::Float16 => SortKey::Float(f64::from(f16_to_f32(u16::from_le_bytes(
                <[u8; 2]>::try_from(bytes).ok()?,
            )))),
            _ => SortKey::Bytes(bytes.to_vec()),
        },
        _ => return None,
    };
    match key {
        SortKey::Float(f) if f.is_nan() => None,
        k => Some(k),
    }
}

/// The column's type as a short text: the physical type, then the logical
/// type when there is one (`INT64 TIMESTAMP(MICROS, UTC)`).
pub fn type_name(column: &ColumnDescriptor) -> String {
    let physical = name(column.physical_type);
    let unit = |u: &TimeUnit| match u {
        TimeUnit::Millis(_) => "MILLIS".to_string(),
        TimeUnit::Micros(_) => "MICROS".to_string(),
        TimeUnit::Nanos(_) => "NANOS".to_string(),
        TimeUnit::Unrecognized(n) => format!("unit {n}"),
    };
    let logical = match &column.logical_type {
        Some(LogicalType::String(_)) => "STRING".to_string(),
        Some(LogicalType::Enum(_)) => "ENUM".to_string(),
        Some(LogicalType::Json(_)) => "JSON".to_string(),
        Some(LogicalType::Bson(_)) => "BSON".to_string(),
        Some(LogicalType::Uuid(_)) => "UUID".to_string(),
        Some(LogicalType::Float16(_)) => "FLOAT16".to_string(),
        Some(LogicalType::Date(_)) => "DATE".to_string(),
        Some(LogicalType::Decimal(d)) => format!("DECIMAL({}, {})", d.precision, d.scale),
        Some(LogicalType::Integer(i)) => {
            format!("{}INT{}", if i.is_signed { "" } else { "U" }, i.bit_width)
        }
        Some(LogicalType::Time(t)) => format!(
            "TIME({}, {})",
            unit(&t.unit),
            if t.is_adjusted_to_utc { "UTC" } else { "local" }
        ),
        Some(LogicalType::Timestamp(t)) => format!(
            "TIMESTAMP({}, {})",
            unit(&t.unit),
            if t.is_adjusted_to_utc { "UTC" } else { "local" }
        ),
        Some(other) => name(other),
        None => match column.converted_type {
            Some(c) => name(c),
            None => return physical,
        },
    };
    format!("{physical} {logical}")
}

/// A big-endian two's complement integer of at most 16 bytes.
fn big_endian(bytes: &[u8]) -> Option<i128> {
    if bytes.is_empty() || bytes.len() > 16 {
        return None;
    }
    let negative = bytes[0] & 0x80 != 0;
    let mut buf = [if negative { 0xff } else { 0 }; 16];
    buf[16 - bytes.len()..].copy_from_slice(bytes);
    Some(i128::from_be_bytes(buf))
}

/// `unscaled` × 10^-scale, with every digit of the scale: `-1.50`.
pub fn decimal(unscaled: i128, scale: u32) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let sign = if unscaled < 0 { "-" } else { "" };
    let scale = scale as usize;
    if scale == 0 {
        return format!("{sign}{digits}");
    }
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (int, frac) = padded.split_at(padded.len() - scale);
    format!("{sign}{int}.{frac}")
}

fn date(days: i64) -> Option<String> {
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1)?;
    let d = epoch.checked_add_signed(chrono::TimeDelta::try_days(days)?)?;
    Some(d.format("%Y-%m-%d").to_string())
}

fn time(v: i64, unit: Unit) -> Option<String> {
    let per = unit.per_second();
    let secs = u32::try_from(v.div_euclid(per)).ok()?;
    let nanos = u32::try_from(v.rem_euclid(per) * (1_000_000_000 / per)).ok()?;
    let t = NaiveTime::from_num_seconds_from_midnight_opt(secs, nanos)?;
    Some(
        t.format(&format!("%H:%M:%S{}", unit.fraction()))
            .to_string(),
    )
}

fn timestamp(v: i64, unit: Unit, utc: bool) -> Option<String> {
    let per = unit.per_second();
    let nanos = u32::try_from(v.rem_euclid(per) * (1_000_000_000 / per)).ok()?;
    let t = DateTime::from_timestamp(v.div_euclid(per), nanos)?;
    let zone = if utc { "Z" } else { "" };
    Some(format!(
        "{}{zone}",
        t.naive_utc()
            .format(&format!("%Y-%m-%dT%H:%M:%S{}", unit.fraction()))
    ))
}

/// The legacy INT96 timestamp: nanoseconds of the day, then the Julian day,
/// both little-endian; always UTC.
fn int96(bytes: &[u8]) -> Option<String> {
    let b = <[u8; 12]>::try_from(bytes).ok()?;
    let nanos = i64::from_le_bytes(b[..8].try_into().ok()?);
    let julian = i64::from(i32::from_le_bytes(b[8..].try_into().ok()?));
    const UNIX_EPOCH_JULIAN_DAY: i64 = 2_440_588;
    let secs = (julian - UNIX_EPOCH_JULIAN_DAY).checked_mul(86_400)?;
    let total = secs.checked_mul(1_000_000_000)?.checked_add(nanos)?;
    let t = timestamp(total, Unit::Nanos, true)?;
    debug_assert!(t.ends_with('Z'));
    Some(t)
}

/// IEEE half precision to single: every half is exactly a single.
fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let frac = f32::from(h & 0x3ff);
    match exp {
        0 => sign * frac * 2f32.powi(-24),
        31 if frac == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        e => sign * (1.0 + frac / 1024.0) * 2f32.powi(e - 15),
    }
}

fn uuid(bytes: &[u8]) -> Option<String> {
    if bytes.len() != 16 {
        return None;
    }
    let h = hex(bytes);
    let h = &h[2..];
    Some(format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    ))
}

/// Bytes as `0x` and lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(2 + bytes.len() * 2);
    s.push_str("0x");
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// An open-enum value's name, or its number when this version does not know it.
pub fn name<T: std::fmt::Debug>(value: T) -> String {
    format!("{value:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_keep_their_scale() {
        assert_eq!(decimal(-150, 2), "-1.50");
        assert_eq!(decimal(5, 3), "0.005");
        assert_eq!(decimal(-5, 3), "-0.005");
        assert_eq!(decimal(1234, 0), "1234");
        assert_eq!(big_endian(&[0xff, 0x6a]), Some(-150));
        assert_eq!(big_endian(&[0x00, 0x96]), Some(150));
        assert_eq!(big_endian(&[0; 17]), None);
    }

    #[test]
    fn times_and_timestamps_by_unit() {
        assert_eq!(date(19_723).as_deref(), Some("2024-01-01"));
        assert_eq!(date(-1).as_deref(), Some("1969-12-31"));
        assert_eq!(
            timestamp(1_704_067_200_123, Unit::Millis, true).as_deref(),
            Some("2024-01-01T00:00:00.123Z")
        );
        assert_eq!(
            timestamp(-1, Unit::Micros, false).as_deref(),
            Some("1969-12-31T23:59:59.999999")
        );
        assert_eq!(
            time(3_723_000_000_001, Unit::Nanos).as_deref(),
            Some("01:02:03.000000001")
        );
        assert_eq!(time(86_400_000, Unit::Millis), None);
    }

    #[test]
    fn halves_and_uuids() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert!(f16_to_f32(0x7e00).is_nan());
        let bytes: Vec<u8> = (0..16).collect();
        assert_eq!(
            uuid(&bytes).as_deref(),
            Some("00010203-0405-0607-0809-0a0b0c0d0e0f")
        );
    }
}
