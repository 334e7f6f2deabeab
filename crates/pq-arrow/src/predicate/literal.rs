//! The values a predicate compares columns with, before they are converted
//! to a column's Arrow type.

use std::fmt;

/// A value in a predicate, as written: it takes the column's Arrow type
/// when the predicate is bound to a file, and a value that does not fit
/// that type exactly (`3.5` for an integer column, `300` for an `Int8`,
/// `0.001` for a `DECIMAL(15, 2)`) is an error then.
///
/// ```
/// use pq_arrow::predicate::Literal;
/// assert_eq!(Literal::from(5), Literal::Int(5));
/// assert_eq!(Literal::from("AIR").to_string(), "'AIR'");
/// assert_eq!(Literal::date("2024-02-29")?, Literal::Date(19782));
/// assert_eq!(Literal::decimal("-0.05")?.to_string(), "-0.05");
/// # Ok::<(), pq_arrow::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Literal {
    /// `TRUE` or `FALSE`.
    Boolean(bool),
    /// An integer.
    Int(i128),
    /// A decimal number written with a fraction: `digits / 10^scale`,
    /// exactly.
    Decimal {
        /// The digits, as an integer.
        digits: i128,
        /// Digits after the point.
        scale: u8,
    },
    /// A floating-point number (from code, or with an exponent in text).
    Float(f64),
    /// A string.
    String(String),
    /// A date: days since 1970-01-01.
    Date(i32),
    /// A timestamp: nanoseconds since 1970-01-01 00:00:00, and whether an
    /// offset or `Z` made it an instant in UTC (else it is a wall-clock
    /// time, compared with timestamps that have no time zone as they are).
    Timestamp {
        /// Nanoseconds since the epoch.
        nanos: i128,
        /// Given with an offset or `Z`.
        utc: bool,
    },
}

impl Literal {
    /// A date from `YYYY-MM-DD`.
    pub fn date(text: &str) -> crate::Result<Literal> {
        parse_date(text)
            .map(Literal::Date)
            .ok_or_else(|| request(format!("'{text}' is not a date (YYYY-MM-DD)")))
    }

    /// A timestamp from `YYYY-MM-DD[ T]HH:MM[:SS[.fffffffff]][Z|±HH:MM]`.
    pub fn timestamp(text: &str) -> crate::Result<Literal> {
        parse_timestamp(text)
            .map(|(nanos, utc)| Literal::Timestamp { nanos, utc })
            .ok_or_else(|| {
                request(format!(
                    "'{text}' is not a timestamp (YYYY-MM-DD HH:MM:SS[.fff][+HH:MM])"
                ))
            })
    }

    /// An exact decimal number from its text (`-12.50`).
    pub fn decimal(text: &str) -> crate::Result<Literal> {
        parse_decimal(text).ok_or_else(|| request(format!("'{text}' is not a decimal number")))
    }

    /// The literal's kind, for errors.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Literal::Boolean(_) => "a boolean",
            Literal::Int(_) | Literal::Decimal { .. } | Literal::Float(_) => "a number",
            Literal::String(_) => "a string",
            Literal::Date(_) => "a date",
            Literal::Timestamp { .. } => "a timestamp",
        }
    }
}

fn request(message: String) -> crate::Error {
    crate::Error::Request { message }
}

macro_rules! from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Literal {
            fn from(v: $t) -> Self {
                Literal::Int(i128::from(v))
            }
        }
    )*};
}
from_int!(i8, i16, i32, i64, u8, u16, u32, u64);

impl From<f64> for Literal {
    fn from(v: f64) -> Self {
        Literal::Float(v)
    }
}

impl From<f32> for Literal {
    fn from(v: f32) -> Self {
        Literal::Float(f64::from(v))
    }
}

impl From<bool> for Literal {
    fn from(v: bool) -> Self {
        Literal::Boolean(v)
    }
}

impl From<&str> for Literal {
    fn from(v: &str) -> Self {
        Literal::String(v.to_owned())
    }
}

impl From<String> for Literal {
    fn from(v: String) -> Self {
        Literal::String(v)
    }
}

/// Parses `[-]digits[.digits]` exactly; `Int` without a fraction.
pub(super) fn parse_decimal(text: &str) -> Option<Literal> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (whole, frac) = body.split_once('.').unwrap_or((body, ""));
    if whole.is_empty() && frac.is_empty() {
        return None;
    }
    if !whole
        .bytes()
        .chain(frac.bytes())
        .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let scale = u8::try_from(frac.len()).ok().filter(|&s| s <= 76)?;
    let mut digits: i128 = 0;
    for b in whole.bytes().chain(frac.bytes()) {
        digits = digits.checked_mul(10)?.checked_add(i128::from(b - b'0'))?;
    }
    if neg {
        digits = -digits;
    }
    Some(if frac.is_empty() && body.contains('.') || scale > 0 {
        Literal::Decimal { digits, scale }
    } else {
        Literal::Int(digits)
    })
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
pub(super) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn digits(s: &str) -> Option<u32> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `YYYY-MM-DD` to days since the epoch, checking the day exists.
pub(super) fn parse_date(text: &str) -> Option<i32> {
    let mut parts = text.splitn(3, '-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let (y, m, d) = (i64::from(digits(y)?), digits(m)?, digits(d)?);
    if !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return None;
    }
    i32::try_from(days_from_civil(y, m, d)).ok()
}

/// A timestamp's nanoseconds since the epoch, and whether it named UTC
/// (with `Z` or an offset, which is subtracted).
pub(super) fn parse_timestamp(text: &str) -> Option<(i128, bool)> {
    let text = text.trim();
    let (date, time) = text.split_at_checked(10)?;
    let days = i128::from(parse_date(date)?);
    let time = time.strip_prefix([' ', 'T'])?;
    // The zone: `Z`, or `+HH:MM` / `-HH:MM` / `+HHMM` after the time.
    let (time, offset_s, utc) = if let Some(t) = time.strip_suffix('Z') {
        (t, 0i64, true)
    } else if let Some(k) = time.rfind(['+', '-']) {
        let (t, z) = time.split_at(k);
        let sign = if z.starts_with('-') { -1 } else { 1 };
        let z = z.get(1..)?.replace(':', "");
        if z.len() != 4 {
            return None;
        }
        let (h, m) = (digits(z.get(..2)?)?, digits(z.get(2..)?)?);
        if h > 23 || m > 59 {
            return None;
        }
        (t, sign * i64::from(h * 3600 + m * 60), true)
    } else {
        (time, 0, false)
    };
    let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
    let mut hms = hms.split(':');
    let h = digits(hms.next()?)?;
    let m = digits(hms.next()?)?;
    let s = match hms.next() {
        Some(s) => digits(s)?,
        None => 0,
    };
    if hms.next().is_some() || h > 23 || m > 59 || s > 59 || frac.len() > 9 {
        return None;
    }
    let frac_ns = if frac.is_empty() {
        0
    } else {
        i128::from(digits(frac)?) * 10i128.pow(9 - frac.len() as u32)
    };
    let secs = days * 86_400 + i128::from(h * 3600 + m * 60 + s) - i128::from(offset_s);
    Some((secs * 1_000_000_000 + frac_ns, utc))
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Boolean(b) => f.write_str(if *b { "TRUE" } else { "FALSE" }),
            Literal::Int(v) => write!(f, "{v}"),
            Literal::Decimal { digits, scale } => {
                let s = usize::from(*scale);
                let abs = digits.unsigned_abs().to_string();
                let abs = format!("{abs:0>width$}", width = s + 1);
                let (whole, frac) = abs.split_at(abs.len() - s);
                let sign = if *digits < 0 { "-" } else { "" };
                write!(f, "{sign}{whole}.{frac}")
            }
            Literal::Float(v) if v.is_finite() => write!(f, "{v:e}"),
            Literal::Float(v) => write!(f, "'{v}'"),
            Literal::String(s) => write!(f, "'{}'", s.replace('\'', "''")),
            Literal::Date(d) => {
                let (y, m, d) = civil_from_days(i64::from(*d));
                write!(f, "DATE '{y:04}-{m:02}-{d:02}'")
            }
            Literal::Timestamp { nanos, utc } => {
                let secs = nanos.div_euclid(1_000_000_000);
                let ns = nanos.rem_euclid(1_000_000_000);
                let days = secs.div_euclid(86_400);
                let sod = secs.rem_euclid(86_400);
                let (y, m, d) = civil_from_days(i64::try_from(days).unwrap_or(0));
                write!(
                    f,
                    "TIMESTAMP '{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
                    sod / 3600,
                    sod / 60 % 60,
                    sod % 60
                )?;
                if ns > 0 {
                    write!(f, ".{ns:09}")?;
                }
                f.write_str(if *utc { "Z'" } else { "'" })
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip_through_days() {
        for (text, days) in [
            ("1970-01-01", 0),
            ("1969-12-31", -1),
            ("2000-03-01", 11017),
            ("2024-02-29", 19782),
            ("0001-01-01", -719_162),
        ] {
            assert_eq!(parse_date(text), Some(days), "{text}");
            assert_eq!(Literal::Date(days).to_string(), format!("DATE '{text}'"));
        }
        for bad in [
            "2023-02-29",
            "2024-13-01",
            "2024-1-01",
            "20240101",
            "2024-00-10",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn timestamps_keep_their_zone() {
        assert_eq!(
            parse_timestamp("1970-01-01 00:00:01.5"),
            Some((1_500_000_000, false))
        );
        assert_eq!(
            parse_timestamp("1970-01-01T02:00:00+02:00"),
            Some((0, true))
        );
        assert_eq!(parse_timestamp("1970-01-01 00:00:00Z"), Some((0, true)));
        assert_eq!(parse_timestamp("1970-01-01 24:00:00"), None);
        let t = Literal::timestamp("2024-05-06 07:08:09.000000123Z").unwrap();
        assert_eq!(t.to_string(), "TIMESTAMP '2024-05-06 07:08:09.000000123Z'");
    }

    #[test]
    fn decimals_are_exact() {
        assert_eq!(
            parse_decimal("-0.05"),
            Some(Literal::Decimal {
                digits: -5,
                scale: 2
            })
        );
        assert_eq!(parse_decimal("12"), Some(Literal::Int(12)));
        assert_eq!(
            parse_decimal("1."),
            Some(Literal::Decimal {
                digits: 1,
                scale: 0
            })
        );
        assert_eq!(parse_decimal("."), None);
        assert_eq!(parse_decimal("1e5"), None);
        assert_eq!(Literal::decimal("-0.05").unwrap().to_string(), "-0.05");
        assert_eq!(Literal::decimal("10.50").unwrap().to_string(), "10.50");
    }
}
