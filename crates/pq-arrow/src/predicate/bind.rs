//! Binding a predicate to a file: each column path to its leaf and Arrow
//! type, each literal to a value of that type. Every error a predicate can
//! have is found here, before any data is read.

use std::sync::Arc;

// The array types by a short prefix: this file builds one of each.
use arrow_array::{self as a, ArrayRef};
use arrow_buffer::i256;
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use pq_format::SchemaDescriptor;

use super::plain::F16;
use super::{CmpOp, ColumnPath, Literal, Predicate};
use crate::error::{Error, Result};

/// A column the predicate reads.
#[derive(Debug, Clone)]
pub(crate) struct BoundColumn {
    /// The column's leaf index in the Parquet schema.
    pub(crate) leaf: usize,
    /// Its path: top-level field, then struct fields.
    pub(crate) path: ColumnPath,
    /// Its Arrow type as read (a dictionary's value type: literals take it).
    pub(crate) value_type: DataType,
}

/// A predicate with its columns resolved and its literals typed, `NOT`
/// pushed down to the leaves.
#[derive(Debug, Clone)]
pub(crate) enum Bound {
    Compare {
        column: usize,
        op: CmpOp,
        value: ArrayRef,
    },
    InList {
        column: usize,
        values: Vec<ArrayRef>,
        negated: bool,
    },
    IsNull {
        column: usize,
        negated: bool,
    },
    Like {
        column: usize,
        pattern: ArrayRef,
        /// The pattern's fixed start (before any wildcard), for pruning.
        prefix: Option<String>,
        negated: bool,
    },
    And(Box<Bound>, Box<Bound>),
    Or(Box<Bound>, Box<Bound>),
}

impl Bound {
    /// The conjuncts of this predicate, in order: itself, or those of each
    /// side of an `And`, nested `And`s taken apart.
    pub(crate) fn conjuncts(&self) -> Vec<&Bound> {
        fn walk<'a>(b: &'a Bound, out: &mut Vec<&'a Bound>) {
            match b {
                Bound::And(x, y) => {
                    walk(x, out);
                    walk(y, out);
                }
                other => out.push(other),
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out
    }
}

/// A predicate bound to one file's schema.
#[derive(Debug, Clone)]
pub(crate) struct BoundPredicate {
    pub(crate) columns: Vec<BoundColumn>,
    pub(crate) root: Bound,
}

fn request(message: String) -> Error {
    Error::Request { message }
}

/// Binds `predicate` to a file with Parquet schema `schema`, read as the
/// Arrow schema `arrow` (every column, before projection).
pub(crate) fn bind(
    predicate: &Predicate,
    schema: &SchemaDescriptor,
    arrow: &Schema,
) -> Result<BoundPredicate> {
    let mut columns = Vec::new();
    let root = bind_node(
        &predicate.clone().push_down_not(),
        schema,
        arrow,
        &mut columns,
    )?;
    Ok(BoundPredicate { columns, root })
}

fn bind_node(
    p: &Predicate,
    schema: &SchemaDescriptor,
    arrow: &Schema,
    columns: &mut Vec<BoundColumn>,
) -> Result<Bound> {
    let mut column_of = |path: &ColumnPath| -> Result<usize> {
        let c = resolve(path, schema, arrow)?;
        Ok(match columns.iter().position(|k| k.leaf == c.leaf) {
            Some(i) => i,
            None => {
                columns.push(c);
                columns.len() - 1
            }
        })
    };
    Ok(match p {
        Predicate::Compare { column, op, value } => {
            let i = column_of(column)?;
            let c = &columns[i];
            Bound::Compare {
                column: i,
                op: *op,
                value: literal_array(value, c)?,
            }
        }
        Predicate::InList {
            column,
            values,
            negated,
        } => {
            let i = column_of(column)?;
            let c = &columns[i];
            if values.is_empty() {
                return Err(request(format!(
                    "the IN list of {} is empty",
                    c.path.join(".")
                )));
            }
            Bound::InList {
                column: i,
                values: values
                    .iter()
                    .map(|v| literal_array(v, c))
                    .collect::<Result<_>>()?,
                negated: *negated,
            }
        }
        Predicate::IsNull { column, negated } => Bound::IsNull {
            column: column_of(column)?,
            negated: *negated,
        },
        Predicate::Like {
            column,
            pattern,
            negated,
        } => {
            let i = column_of(column)?;
            let c = &columns[i];
            let pattern_array: ArrayRef = match &c.value_type {
                DataType::Utf8 => Arc::new(a::StringArray::from(vec![pattern.as_str()])),
                DataType::LargeUtf8 => Arc::new(a::LargeStringArray::from(vec![pattern.as_str()])),
                DataType::Utf8View => Arc::new(a::StringViewArray::from(vec![pattern.as_str()])),
                other => {
                    return Err(request(format!(
                        "LIKE needs a string column; {} is {other}",
                        c.path.join(".")
                    )));
                }
            };
            Bound::Like {
                column: i,
                pattern: pattern_array,
                prefix: like_prefix(pattern),
                negated: *negated,
            }
        }
        Predicate::And(a, b) => Bound::And(
            Box::new(bind_node(a, schema, arrow, columns)?),
            Box::new(bind_node(b, schema, arrow, columns)?),
        ),
        Predicate::Or(a, b) => Bound::Or(
            Box::new(bind_node(a, schema, arrow, columns)?),
            Box::new(bind_node(b, schema, arrow, columns)?),
        ),
        // `push_down_not` left none.
        Predicate::Not(inner) => {
            return bind_node(&inner.clone().not().push_down_not(), schema, arrow, columns);
        }
    })
}

/// The characters a LIKE pattern fixes before its first wildcard.
fn like_prefix(pattern: &str) -> Option<String> {
    let mut prefix = String::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '%' | '_' => return Some(prefix),
            '\\' => prefix.push(chars.next()?),
            c => prefix.push(c),
        }
    }
    // No wildcard: the pattern is the whole value.
    Some(prefix)
}

/// The leaf that `path` names, with its Arrow type.
fn resolve(path: &ColumnPath, schema: &SchemaDescriptor, arrow: &Schema) -> Result<BoundColumn> {
    let name = path.join(".");
    let same = |c: &pq_format::ColumnDescriptor, p: &ColumnPath| {
        c.path.len() == p.len() && c.path.iter().zip(p.iter()).all(|(a, b)| a == b)
    };
    // A path first; then, for a dotted path, a top-level name holding dots.
    let whole = ColumnPath::from(name.as_str());
    let found = schema
        .columns()
        .iter()
        .enumerate()
        .find(|(_, c)| same(c, path))
        .map(|(i, c)| (i, c, path.clone()))
        .or_else(|| {
            (path.len() > 1)
                .then(|| {
                    schema
                        .columns()
                        .iter()
                        .enumerate()
                        .find(|(_, c)| same(c, &whole))
                        .map(|(i, c)| (i, c, whole.clone()))
                })
                .flatten()
        });
    let Some((leaf, column, path)) = found else {
        let group = schema.columns().iter().any(|c| {
            c.path.len() > path.len() && c.path.iter().zip(path.iter()).all(|(a, b)| a == b)
        });
        return Err(request(if group {
            format!("{name} is a group of columns; a predicate compares one leaf column")
        } else {
            format!("the file has no column {name}")
        }));
    };
    if column.max_rep_level > 0 {
        return Err(request(format!(
            "{name} is inside a list; predicates on repeated columns are not supported"
        )));
    }
    let mut fields = arrow.fields().iter();
    let mut field: Option<&Arc<Field>> = None;
    for part in path.iter() {
        let f = fields
            .find(|f| f.name() == part)
            .ok_or_else(|| request(format!("{name} has no Arrow field of that path to compare")))?;
        fields = match f.data_type() {
            DataType::Struct(children) => children.iter(),
            _ => [].iter(),
        };
        field = Some(f);
    }
    let Some(field) = field else {
        return Err(request("an empty column path".into()));
    };
    let value_type = match field.data_type() {
        DataType::Dictionary(_, v) => v.as_ref().clone(),
        other => other.clone(),
    };
    Ok(BoundColumn {
        leaf,
        path,
        value_type,
    })
}

/// `value` as a one-element array of the column's type, exactly.
pub(crate) fn literal_array(value: &Literal, column: &BoundColumn) -> Result<ArrayRef> {
    let dt = &column.value_type;
    let misfit = |why: &str| {
        request(format!(
            "{value} does not fit column {} of type {dt}{why}",
            column.path.join(".")
        ))
    };
    let mismatch = || {
        request(format!(
            "column {} of type {dt} cannot be compared with {} ({value})",
            column.path.join("."),
            value.kind()
        ))
    };
    macro_rules! int {
        ($array:ty, $t:ty) => {{
            let v = exact_integer(value).ok_or_else(|| match value {
                Literal::Decimal { .. } | Literal::Float(_) => misfit(" (it has a fraction)"),
                _ => mismatch(),
            })?;
            let v = <$t>::try_from(v).map_err(|_| misfit(" (out of range)"))?;
            Arc::new(<$array>::from(vec![v])) as ArrayRef
        }};
    }
    Ok(match dt {
        DataType::Boolean => match value {
            Literal::Boolean(b) => Arc::new(a::BooleanArray::from(vec![*b])),
            _ => return Err(mismatch()),
        },
        DataType::Int8 => int!(a::Int8Array, i8),
        DataType::Int16 => int!(a::Int16Array, i16),
        DataType::Int32 => int!(a::Int32Array, i32),
        DataType::Int64 => int!(a::Int64Array, i64),
        DataType::UInt8 => int!(a::UInt8Array, u8),
        DataType::UInt16 => int!(a::UInt16Array, u16),
        DataType::UInt32 => int!(a::UInt32Array, u32),
        DataType::UInt64 => int!(a::UInt64Array, u64),
        DataType::Float16 | DataType::Float32 | DataType::Float64 => {
            let f = match value {
                Literal::Float(f) => *f,
                // The decimal text, read as the nearest float.
                Literal::Int(_) | Literal::Decimal { .. } => {
                    value.to_string().parse::<f64>().map_err(|_| mismatch())?
                }
                _ => return Err(mismatch()),
            };
            match dt {
                DataType::Float16 => Arc::new(a::Float16Array::from(vec![F16::from_f64(f)])),
                DataType::Float32 => Arc::new(a::Float32Array::from(vec![f as f32])),
                _ => Arc::new(a::Float64Array::from(vec![f])),
            }
        }
        DataType::Decimal32(p, s)
        | DataType::Decimal64(p, s)
        | DataType::Decimal128(p, s)
        | DataType::Decimal256(p, s) => {
            let (digits, scale) = match value {
                Literal::Int(v) => (*v, 0u8),
                Literal::Decimal { digits, scale } => (*digits, *scale),
                Literal::Float(_) => {
                    return Err(request(format!(
                        "column {} is DECIMAL: compare it with an exact decimal (12.50), not {value}",
                        column.path.join(".")
                    )));
                }
                _ => return Err(mismatch()),
            };
            let v = rescale(digits, scale, *s)
                .ok_or_else(|| misfit(" (more digits than its scale)"))?;
            let limit = 10i128
                .checked_pow(u32::from(*p).min(38))
                .unwrap_or(i128::MAX);
            if *p <= 38 && v.unsigned_abs() >= limit.unsigned_abs() {
                return Err(misfit(" (more digits than its precision)"));
            }
            let too_wide = || misfit(" (out of range)");
            match dt {
                DataType::Decimal32(..) => Arc::new(
                    a::Decimal32Array::from(vec![i32::try_from(v).map_err(|_| too_wide())?])
                        .with_precision_and_scale(*p, *s)
                        .map_err(|_| too_wide())?,
                ),
                DataType::Decimal64(..) => Arc::new(
                    a::Decimal64Array::from(vec![i64::try_from(v).map_err(|_| too_wide())?])
                        .with_precision_and_scale(*p, *s)
                        .map_err(|_| too_wide())?,
                ),
                DataType::Decimal128(..) => Arc::new(
                    a::Decimal128Array::from(vec![v])
                        .with_precision_and_scale(*p, *s)
                        .map_err(|_| too_wide())?,
                ),
                _ => Arc::new(
                    a::Decimal256Array::from(vec![i256::from_i128(v)])
                        .with_precision_and_scale(*p, *s)
                        .map_err(|_| too_wide())?,
                ),
            }
        }
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            let Literal::String(s) = value else {
                return Err(mismatch());
            };
            match dt {
                DataType::Utf8 => Arc::new(a::StringArray::from(vec![s.as_str()])),
                DataType::LargeUtf8 => Arc::new(a::LargeStringArray::from(vec![s.as_str()])),
                _ => Arc::new(a::StringViewArray::from(vec![s.as_str()])),
            }
        }
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
            let Literal::String(s) = value else {
                return Err(mismatch());
            };
            let b = s.as_bytes();
            match dt {
                DataType::Binary => Arc::new(a::BinaryArray::from(vec![b])),
                DataType::LargeBinary => Arc::new(a::LargeBinaryArray::from(vec![b])),
                _ => Arc::new(a::BinaryViewArray::from(vec![b])),
            }
        }
        DataType::FixedSizeBinary(n) => {
            let Literal::String(s) = value else {
                return Err(mismatch());
            };
            if usize::try_from(*n).ok() != Some(s.len()) {
                return Err(misfit(&format!(" (it holds {} bytes)", s.len())));
            }
            Arc::new(
                a::FixedSizeBinaryArray::try_from_iter(std::iter::once(s.as_bytes()))
                    .map_err(|_| misfit(""))?,
            )
        }
        DataType::Date32 | DataType::Date64 => {
            let days = match value {
                Literal::Date(d) => *d,
                Literal::String(s) => Literal::date(s).map(|l| match l {
                    Literal::Date(d) => d,
                    _ => 0,
                })?,
                _ => return Err(mismatch()),
            };
            if matches!(dt, DataType::Date32) {
                Arc::new(a::Date32Array::from(vec![days]))
            } else {
                Arc::new(a::Date64Array::from(vec![i64::from(days) * 86_400_000]))
            }
        }
        DataType::Timestamp(unit, _) => {
            let nanos = match value {
                Literal::Timestamp { nanos, .. } => *nanos,
                Literal::Date(d) => i128::from(*d) * 86_400_000_000_000,
                Literal::String(s) => match Literal::timestamp(s).or_else(|_| {
                    Literal::date(s).map(|d| match d {
                        Literal::Date(d) => Literal::Timestamp {
                            nanos: i128::from(d) * 86_400_000_000_000,
                            utc: false,
                        },
                        other => other,
                    })
                })? {
                    Literal::Timestamp { nanos, .. } => nanos,
                    _ => return Err(mismatch()),
                },
                _ => return Err(mismatch()),
            };
            let per = unit_nanos(*unit);
            if nanos % per != 0 {
                return Err(misfit(" (finer than the column's unit)"));
            }
            let v = i64::try_from(nanos / per).map_err(|_| misfit(" (out of range)"))?;
            let tz = match dt {
                DataType::Timestamp(_, tz) => tz.clone(),
                _ => None,
            };
            match unit {
                TimeUnit::Second => {
                    Arc::new(a::TimestampSecondArray::from(vec![v]).with_timezone_opt(tz))
                }
                TimeUnit::Millisecond => {
                    Arc::new(a::TimestampMillisecondArray::from(vec![v]).with_timezone_opt(tz))
                }
                TimeUnit::Microsecond => {
                    Arc::new(a::TimestampMicrosecondArray::from(vec![v]).with_timezone_opt(tz))
                }
                TimeUnit::Nanosecond => {
                    Arc::new(a::TimestampNanosecondArray::from(vec![v]).with_timezone_opt(tz))
                }
            }
        }
        DataType::Time32(unit) | DataType::Time64(unit) => {
            let Literal::String(s) = value else {
                return Err(mismatch());
            };
            let nanos = super::literal::parse_timestamp(&format!("1970-01-01 {s}"))
                .filter(|(_, utc)| !utc)
                .map(|(n, _)| n)
                .ok_or_else(|| misfit(" (a time is HH:MM[:SS[.fff]])"))?;
            let per = unit_nanos(*unit);
            if nanos % per != 0 {
                return Err(misfit(" (finer than the column's unit)"));
            }
            let v = nanos / per;
            match unit {
                TimeUnit::Second => Arc::new(a::Time32SecondArray::from(vec![v as i32])),
                TimeUnit::Millisecond => Arc::new(a::Time32MillisecondArray::from(vec![v as i32])),
                TimeUnit::Microsecond => Arc::new(a::Time64MicrosecondArray::from(vec![v as i64])),
                TimeUnit::Nanosecond => Arc::new(a::Time64NanosecondArray::from(vec![v as i64])),
            }
        }
        other => {
            return Err(request(format!(
                "predicates on column {} of type {other} are not supported",
                column.path.join(".")
            )));
        }
    })
}

fn unit_nanos(unit: TimeUnit) -> i128 {
    match unit {
        TimeUnit::Second => 1_000_000_000,
        TimeUnit::Millisecond => 1_000_000,
        TimeUnit::Microsecond => 1_000,
        TimeUnit::Nanosecond => 1,
    }
}

/// An integer literal, or a decimal or float one without a fraction.
fn exact_integer(value: &Literal) -> Option<i128> {
    match value {
        Literal::Int(v) => Some(*v),
        Literal::Decimal { digits, scale } => rescale(*digits, *scale, 0),
        Literal::Float(f) if f.fract() == 0.0 && f.abs() < 2f64.powi(100) => Some(*f as i128),
        _ => None,
    }
}

/// `digits / 10^from` as a multiple of `10^-to`, when exact.
fn rescale(digits: i128, from: u8, to: i8) -> Option<i128> {
    let to = i32::from(to);
    let from = i32::from(from);
    if to >= from {
        digits.checked_mul(10i128.checked_pow(u32::try_from(to - from).ok()?)?)
    } else {
        let div = 10i128.checked_pow(u32::try_from(from - to).ok()?)?;
        (digits % div == 0).then_some(digits / div)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::predicate::col;
    use arrow_array::Array;

    fn column(dt: DataType) -> BoundColumn {
        BoundColumn {
            leaf: 0,
            path: ColumnPath::from("x"),
            value_type: dt,
        }
    }

    fn fits(l: impl Into<Literal>, dt: DataType) -> std::result::Result<ArrayRef, String> {
        literal_array(&l.into(), &column(dt)).map_err(|e| e.to_string())
    }

    #[test]
    fn literals_take_the_column_type_exactly() {
        let d = fits(
            Literal::decimal("12.5").unwrap(),
            DataType::Decimal128(15, 2),
        )
        .unwrap();
        assert_eq!(
            d.as_any()
                .downcast_ref::<a::Decimal128Array>()
                .unwrap()
                .value(0),
            1250
        );
        assert!(
            fits(
                Literal::decimal("0.001").unwrap(),
                DataType::Decimal128(15, 2)
            )
            .unwrap_err()
            .contains("scale")
        );
        assert!(
            fits(1000, DataType::Decimal128(3, 0))
                .unwrap_err()
                .contains("precision")
        );
        assert!(
            fits(300, DataType::Int8)
                .unwrap_err()
                .contains("out of range")
        );
        assert!(fits(3.5, DataType::Int32).unwrap_err().contains("fraction"));
        assert!(
            fits(-1, DataType::UInt32)
                .unwrap_err()
                .contains("out of range")
        );
        assert!(fits(3.0, DataType::Int32).is_ok());
        assert!(
            fits("x", DataType::Int32)
                .unwrap_err()
                .contains("cannot be compared")
        );
        assert!(fits(1, DataType::Utf8).unwrap_err().contains("a number"));
        let t = fits(
            Literal::timestamp("1970-01-01 00:00:01.5").unwrap(),
            DataType::Timestamp(TimeUnit::Millisecond, None),
        )
        .unwrap();
        assert_eq!(
            t.as_any()
                .downcast_ref::<a::TimestampMillisecondArray>()
                .unwrap()
                .value(0),
            1500
        );
        assert!(
            fits(
                Literal::timestamp("1970-01-01 00:00:01.5").unwrap(),
                DataType::Timestamp(TimeUnit::Second, None)
            )
            .unwrap_err()
            .contains("unit")
        );
        let d = fits("2024-01-02", DataType::Date32).unwrap();
        assert_eq!(
            d.as_any()
                .downcast_ref::<a::Date32Array>()
                .unwrap()
                .value(0),
            19724
        );
        assert!(
            fits("abc", DataType::FixedSizeBinary(2))
                .unwrap_err()
                .contains("3 bytes")
        );
        assert_eq!(fits(0.5, DataType::Float16).unwrap().len(), 1);
    }

    #[test]
    fn like_prefix_stops_at_the_first_wildcard() {
        assert_eq!(like_prefix("ab%c").as_deref(), Some("ab"));
        assert_eq!(like_prefix(r"a\%b_").as_deref(), Some("a%b"));
        assert_eq!(like_prefix("abc").as_deref(), Some("abc"));
        assert_eq!(like_prefix("%x").as_deref(), Some(""));
        let _ = col("x");
    }
}
