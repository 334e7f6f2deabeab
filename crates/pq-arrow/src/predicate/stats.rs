//! Whether a row group can hold a row the predicate keeps, from its
//! column chunks' statistics. The answer "no" must be certain: every rule
//! here leaves a row group in when its statistics could mislead.
//!
//! - Bounds are `min_value`/`max_value` when the file's column order for
//!   the leaf is one the format defines; the deprecated `min`/`max` only
//!   for types whose order old writers got right (signed numbers).
//! - Float bounds count only when `nan_count` says there is no NaN (Arrow's
//!   kernels order NaN after every number, and writers leave NaN out of the
//!   bounds), with a zero minimum read as -0 and a zero maximum as +0.
//! - Truncated byte-array bounds (`is_*_value_exact` false) are still
//!   bounds; they only stop the rules that need the exact value (`!=`).
//! - Bounds that do not decode as the column's type are ignored.

use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, BinaryArray, BinaryViewArray, BooleanArray, Date32Array, Date64Array,
    Decimal32Array, Decimal64Array, Decimal128Array, Decimal256Array, FixedSizeBinaryArray,
    Float16Array, Float32Array, Float64Array, Int8Array, Int16Array, Int32Array, Int64Array,
    LargeBinaryArray, LargeStringArray, Scalar, StringArray, StringViewArray,
    Time32MillisecondArray, Time32SecondArray, Time64MicrosecondArray, Time64NanosecondArray,
    TimestampMicrosecondArray, TimestampMillisecondArray, TimestampNanosecondArray,
    TimestampSecondArray, UInt8Array, UInt16Array, UInt32Array, UInt64Array,
};
use arrow_buffer::i256;

/// Arrow's half float.
type F16 = <arrow_array::types::Float16Type as arrow_array::ArrowPrimitiveType>::Native;
use arrow_schema::{DataType, TimeUnit};
use pq_format::{ColumnDescriptor, ColumnOrder, FileMetaData, RowGroup, Type};

use super::CmpOp;
use super::bind::{Bound, BoundColumn, BoundPredicate};

/// What a column chunk's statistics say, in the column's Arrow type.
#[derive(Debug)]
struct ChunkStats {
    rows: u64,
    nulls: Option<u64>,
    /// Lower and upper bounds of the non-null values.
    bounds: Option<(ArrayRef, ArrayRef)>,
    /// The bounds are the exact minimum and maximum.
    exact: bool,
}

/// Asks whether the Bloom filter of a leaf (by index) may hold any of
/// these hashes; true when there is no filter.
pub(crate) type BloomCheck<'a> = dyn FnMut(usize, &[u64]) -> bool + 'a;

/// Whether row group `rg` of a file with metadata `md` can hold a row that
/// `predicate` keeps, from its statistics and then, for `=` and `IN`, from
/// `bloom`.
pub(crate) fn row_group_may_match(
    predicate: &BoundPredicate,
    md: &FileMetaData,
    schema: &pq_format::SchemaDescriptor,
    rg: &RowGroup,
    bloom: &mut BloomCheck<'_>,
) -> bool {
    let stats: Vec<Option<ChunkStats>> = predicate
        .columns
        .iter()
        .map(|c| chunk_stats(c, md, schema.column(c.leaf)?, rg))
        .collect();
    let mut ctx = Ctx {
        stats: &stats,
        columns: &predicate.columns,
        schema,
        bloom,
    };
    may_match(&predicate.root, &mut ctx)
}

struct Ctx<'a, 'b> {
    stats: &'a [Option<ChunkStats>],
    columns: &'a [BoundColumn],
    schema: &'a pq_format::SchemaDescriptor,
    bloom: &'a mut BloomCheck<'b>,
}

impl Ctx<'_, '_> {
    /// Whether the column's Bloom filter may hold one of `values` (true
    /// when a value has no certain hash).
    fn bloom_may_hold(&mut self, column: usize, values: &[ArrayRef]) -> bool {
        let Some(c) = self.columns.get(column) else {
            return true;
        };
        let Some(leaf) = self.schema.column(c.leaf) else {
            return true;
        };
        let hashes: Option<Vec<u64>> = values.iter().map(|v| super::bloom::hash(v, leaf)).collect();
        match hashes {
            Some(h) => (self.bloom)(c.leaf, &h),
            None => true,
        }
    }
}

fn chunk_stats(
    column: &BoundColumn,
    md: &FileMetaData,
    leaf: &ColumnDescriptor,
    rg: &RowGroup,
) -> Option<ChunkStats> {
    let meta = rg.columns.get(column.leaf)?.meta_data.as_ref()?;
    let stats = meta.statistics.as_ref()?;
    let rows = u64::try_from(rg.num_rows).ok()?;
    // A chunk whose value count disagrees with the rows is not trusted.
    if leaf.max_rep_level > 0 || u64::try_from(meta.num_values).ok()? != rows {
        return None;
    }
    let nulls = stats
        .null_count
        .and_then(|n| u64::try_from(n).ok())
        .filter(|&n| n <= rows);
    let order_known = match md.column_orders.as_ref() {
        None => true,
        Some(orders) => matches!(
            orders.get(column.leaf),
            Some(ColumnOrder::TypeOrder(_) | ColumnOrder::Ieee754TotalOrder(_))
        ),
    };
    let dt = &column.value_type;
    let is_float = matches!(
        dt,
        DataType::Float16 | DataType::Float32 | DataType::Float64
    );
    let raw = match (&stats.min_value, &stats.max_value) {
        (Some(lo), Some(hi)) if order_known => Some((lo, hi, true)),
        _ => match (&stats.min, &stats.max) {
            (Some(lo), Some(hi)) if deprecated_order_is_right(leaf, dt) => Some((lo, hi, false)),
            _ => None,
        },
    };
    let bounds = raw
        .filter(|_| !is_float || stats.nan_count == Some(0))
        .and_then(|(lo, hi, _)| {
            let lo = bound_array(lo, leaf, dt, Zero::Negative)?;
            let hi = bound_array(hi, leaf, dt, Zero::Positive)?;
            // Bounds the wrong way round are not bounds.
            (!is_true(arrow_ord::cmp::gt(&Scalar::new(&lo), &Scalar::new(&hi)).ok()?))
                .then_some((lo, hi))
        });
    let bytes = matches!(
        leaf.physical_type,
        Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY
    );
    let exact = !bytes
        || (stats.is_min_value_exact == Some(true) && stats.is_max_value_exact == Some(true));
    Some(ChunkStats {
        rows,
        nulls,
        bounds,
        exact,
    })
}

/// Old writers ordered `min`/`max` as signed numbers: right for signed
/// integers, dates, times, timestamps, decimals in INT32/INT64 and floats.
fn deprecated_order_is_right(leaf: &ColumnDescriptor, dt: &DataType) -> bool {
    matches!(
        leaf.physical_type,
        Type::INT32 | Type::INT64 | Type::FLOAT | Type::DOUBLE
    ) && !matches!(
        dt,
        DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64
    )
}

fn is_true(a: BooleanArray) -> bool {
    a.len() == 1 && a.is_valid(0) && a.value(0)
}

fn cmp(a: &ArrayRef, op: CmpOp, b: &ArrayRef) -> Option<bool> {
    use arrow_ord::cmp as k;
    let (a, b) = (Scalar::new(a), Scalar::new(b));
    let r = match op {
        CmpOp::Eq => k::eq(&a, &b),
        CmpOp::NotEq => k::neq(&a, &b),
        CmpOp::Lt => k::lt(&a, &b),
        CmpOp::LtEq => k::lt_eq(&a, &b),
        CmpOp::Gt => k::gt(&a, &b),
        CmpOp::GtEq => k::gt_eq(&a, &b),
    };
    r.ok().map(is_true)
}

fn may_match(node: &Bound, ctx: &mut Ctx<'_, '_>) -> bool {
    let stats = ctx.stats;
    let of = |i: &usize| stats.get(*i).and_then(Option::as_ref);
    match node {
        Bound::And(a, b) => may_match(a, ctx) && may_match(b, ctx),
        Bound::Or(a, b) => may_match(a, ctx) || may_match(b, ctx),
        Bound::IsNull { column, negated } => match of(column) {
            None => true,
            Some(s) if *negated => s.nulls != Some(s.rows),
            Some(s) => s.nulls != Some(0),
        },
        Bound::Compare { column, op, value } => {
            of(column).is_none_or(|s| compare_may_match(s, *op, value))
                && (*op != CmpOp::Eq || ctx.bloom_may_hold(*column, std::slice::from_ref(value)))
        }
        Bound::InList {
            column,
            values,
            negated: true,
        } => {
            of(column).is_none_or(|s| values.iter().all(|v| compare_may_match(s, CmpOp::NotEq, v)))
        }
        Bound::InList {
            column,
            values,
            negated: false,
        } => {
            // The values the bounds allow, then the Bloom filter on them.
            let in_bounds: Vec<ArrayRef> = match of(column) {
                None => values.clone(),
                Some(s) => values
                    .iter()
                    .filter(|v| compare_may_match(s, CmpOp::Eq, v))
                    .cloned()
                    .collect(),
            };
            !in_bounds.is_empty() && ctx.bloom_may_hold(*column, &in_bounds)
        }
        Bound::Like {
            column,
            prefix,
            negated,
            ..
        } => of(column).is_none_or(|s| {
            if s.nulls == Some(s.rows) {
                return false;
            }
            match (prefix, &s.bounds, negated) {
                (Some(p), Some((lo, hi)), false) => prefix_may_match(p, lo, hi),
                _ => true,
            }
        }),
    }
}

/// Whether some non-null value in the bounds can satisfy `value op v`.
fn compare_may_match(s: &ChunkStats, op: CmpOp, v: &ArrayRef) -> bool {
    if s.nulls == Some(s.rows) {
        // Every value is null: no comparison is true.
        return false;
    }
    let Some((lo, hi)) = &s.bounds else {
        return true;
    };
    // `None` (a failed comparison) keeps the row group.
    let no = |r: Option<bool>| r == Some(true);
    match op {
        CmpOp::Eq => !(no(cmp(v, CmpOp::Lt, lo)) || no(cmp(v, CmpOp::Gt, hi))),
        CmpOp::NotEq => !(s.exact && no(cmp(lo, CmpOp::Eq, v)) && no(cmp(hi, CmpOp::Eq, v))),
        CmpOp::Lt => !no(cmp(lo, CmpOp::GtEq, v)),
        CmpOp::LtEq => !no(cmp(lo, CmpOp::Gt, v)),
        CmpOp::Gt => !no(cmp(hi, CmpOp::LtEq, v)),
        CmpOp::GtEq => !no(cmp(hi, CmpOp::Lt, v)),
    }
}

/// Whether a string starting with `p` can lie within `lo..=hi`.
fn prefix_may_match(p: &str, lo: &ArrayRef, hi: &ArrayRef) -> bool {
    let text = |a: &ArrayRef| -> Option<Vec<u8>> {
        match a.data_type() {
            DataType::Utf8 => a
                .as_any()
                .downcast_ref::<StringArray>()
                .map(|s| s.value(0).into()),
            DataType::LargeUtf8 => a
                .as_any()
                .downcast_ref::<LargeStringArray>()
                .map(|s| s.value(0).into()),
            DataType::Utf8View => a
                .as_any()
                .downcast_ref::<StringViewArray>()
                .map(|s| s.value(0).into()),
            _ => None,
        }
    };
    let (Some(lo), Some(hi)) = (text(lo), text(hi)) else {
        return true;
    };
    let p = p.as_bytes();
    // Strings with prefix `p` are at least `p`, and their first `p.len()`
    // bytes are `p`: none lies in range if the maximum is below `p` or the
    // minimum's start is above it.
    let lo_start = lo.get(..p.len()).unwrap_or(&lo);
    !(hi.as_slice() < p || lo_start > p)
}

/// Which zero a zero bound stands for (the format asks for -0 as a
/// minimum and +0 as a maximum, but either may have been written).
#[derive(Clone, Copy)]
enum Zero {
    Negative,
    Positive,
}

/// A statistics bound (PLAIN bytes of `leaf`'s physical type) as a
/// one-element array of `dt`, the column's Arrow type; `None` when the
/// bytes do not hold one.
fn bound_array(
    bytes: &[u8],
    leaf: &ColumnDescriptor,
    dt: &DataType,
    zero: Zero,
) -> Option<ArrayRef> {
    let int = || -> Option<i128> {
        match leaf.physical_type {
            Type::INT32 => Some(i128::from(i32::from_le_bytes(bytes.try_into().ok()?))),
            Type::INT64 => Some(i128::from(i64::from_le_bytes(bytes.try_into().ok()?))),
            _ => None,
        }
    };
    let uint = || -> Option<u64> {
        match leaf.physical_type {
            Type::INT32 => Some(u64::from(u32::from_le_bytes(bytes.try_into().ok()?))),
            Type::INT64 => Some(u64::from_le_bytes(bytes.try_into().ok()?)),
            _ => None,
        }
    };
    // A decimal: little-endian INT32/INT64, or big-endian two's complement bytes.
    let decimal = || -> Option<i128> {
        match leaf.physical_type {
            Type::INT32 | Type::INT64 => int(),
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
    let fix_zero = |f: f64| match zero {
        Zero::Negative if f == 0.0 => -0.0,
        Zero::Positive if f == 0.0 => 0.0,
        _ => f,
    };
    macro_rules! prim {
        ($array:ty, $v:expr) => {
            Arc::new(<$array>::from(vec![$v])) as ArrayRef
        };
    }
    Some(match dt {
        DataType::Boolean if leaf.physical_type == Type::BOOLEAN => {
            prim!(BooleanArray, bytes.first()? & 1 == 1)
        }
        DataType::Int8 => prim!(Int8Array, i8::try_from(int()?).ok()?),
        DataType::Int16 => prim!(Int16Array, i16::try_from(int()?).ok()?),
        DataType::Int32 => prim!(Int32Array, i32::try_from(int()?).ok()?),
        DataType::Int64 => prim!(Int64Array, i64::try_from(int()?).ok()?),
        DataType::UInt8 => prim!(UInt8Array, u8::try_from(uint()?).ok()?),
        DataType::UInt16 => prim!(UInt16Array, u16::try_from(uint()?).ok()?),
        DataType::UInt32 => prim!(UInt32Array, u32::try_from(uint()?).ok()?),
        DataType::UInt64 => prim!(UInt64Array, uint()?),
        DataType::Float32 if leaf.physical_type == Type::FLOAT => {
            let f = f32::from_le_bytes(bytes.try_into().ok()?);
            prim!(Float32Array, fix_zero(f64::from(f)) as f32)
        }
        DataType::Float64 if leaf.physical_type == Type::DOUBLE => {
            prim!(
                Float64Array,
                fix_zero(f64::from_le_bytes(bytes.try_into().ok()?))
            )
        }
        DataType::Float16 if leaf.physical_type == Type::FIXED_LEN_BYTE_ARRAY => {
            let h = F16::from_bits(u16::from_le_bytes(bytes.try_into().ok()?));
            prim!(Float16Array, F16::from_f64(fix_zero(h.to_f64())))
        }
        DataType::Date32 => prim!(Date32Array, i32::try_from(int()?).ok()?),
        DataType::Date64 => {
            let v = int()?;
            // A DATE (days in INT32) read as milliseconds.
            let ms = if leaf.physical_type == Type::INT32 {
                v * 86_400_000
            } else {
                v
            };
            prim!(Date64Array, i64::try_from(ms).ok()?)
        }
        DataType::Time32(TimeUnit::Second) => prim!(Time32SecondArray, i32::try_from(int()?).ok()?),
        DataType::Time32(TimeUnit::Millisecond) => {
            prim!(Time32MillisecondArray, i32::try_from(int()?).ok()?)
        }
        DataType::Time64(TimeUnit::Microsecond) => {
            prim!(Time64MicrosecondArray, i64::try_from(int()?).ok()?)
        }
        DataType::Time64(TimeUnit::Nanosecond) => {
            prim!(Time64NanosecondArray, i64::try_from(int()?).ok()?)
        }
        DataType::Timestamp(unit, tz) if leaf.physical_type == Type::INT64 => {
            let v = i64::try_from(int()?).ok()?;
            let tz = tz.clone();
            match unit {
                TimeUnit::Second => {
                    Arc::new(TimestampSecondArray::from(vec![v]).with_timezone_opt(tz))
                }
                TimeUnit::Millisecond => {
                    Arc::new(TimestampMillisecondArray::from(vec![v]).with_timezone_opt(tz))
                }
                TimeUnit::Microsecond => {
                    Arc::new(TimestampMicrosecondArray::from(vec![v]).with_timezone_opt(tz))
                }
                TimeUnit::Nanosecond => {
                    Arc::new(TimestampNanosecondArray::from(vec![v]).with_timezone_opt(tz))
                }
            }
        }
        DataType::Decimal32(p, s) => Arc::new(
            Decimal32Array::from(vec![i32::try_from(decimal()?).ok()?])
                .with_precision_and_scale(*p, *s)
                .ok()?,
        ),
        DataType::Decimal64(p, s) => Arc::new(
            Decimal64Array::from(vec![i64::try_from(decimal()?).ok()?])
                .with_precision_and_scale(*p, *s)
                .ok()?,
        ),
        DataType::Decimal128(p, s) => Arc::new(
            Decimal128Array::from(vec![decimal()?])
                .with_precision_and_scale(*p, *s)
                .ok()?,
        ),
        DataType::Decimal256(p, s) => Arc::new(
            Decimal256Array::from(vec![i256::from_i128(decimal()?)])
                .with_precision_and_scale(*p, *s)
                .ok()?,
        ),
        DataType::Utf8 if bytes_type => prim!(StringArray, std::str::from_utf8(bytes).ok()?),
        DataType::LargeUtf8 if bytes_type => {
            prim!(LargeStringArray, std::str::from_utf8(bytes).ok()?)
        }
        DataType::Utf8View if bytes_type => {
            prim!(StringViewArray, std::str::from_utf8(bytes).ok()?)
        }
        DataType::Binary if bytes_type => prim!(BinaryArray, bytes),
        DataType::LargeBinary if bytes_type => prim!(LargeBinaryArray, bytes),
        DataType::BinaryView if bytes_type => prim!(BinaryViewArray, bytes),
        DataType::FixedSizeBinary(n)
            if bytes_type && usize::try_from(*n).ok() == Some(bytes.len()) =>
        {
            Arc::new(FixedSizeBinaryArray::try_from_iter(std::iter::once(bytes)).ok()?)
        }
        _ => return None,
    })
}
