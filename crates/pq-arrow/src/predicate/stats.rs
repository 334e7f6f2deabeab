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
    Array, ArrayRef, BooleanArray, Float16Array, Float32Array, Float64Array, LargeStringArray,
    Scalar, StringArray, StringViewArray,
};

/// Arrow's half float.
type F16 = <arrow_array::types::Float16Type as arrow_array::ArrowPrimitiveType>::Native;
use arrow_schema::DataType;
use pq_format::{ColumnDescriptor, ColumnOrder, FileMetaData, RowGroup, Type};

use super::CmpOp;
use super::bind::{Bound, BoundColumn, BoundPredicate};

/// What the statistics of a column chunk (or of one page, from the page
/// index) say, in the column's Arrow type.
#[derive(Debug)]
pub(crate) struct ChunkStats {
    pub(crate) rows: u64,
    pub(crate) nulls: Option<u64>,
    /// Lower and upper bounds of the non-null values.
    pub(crate) bounds: Option<(ArrayRef, ArrayRef)>,
    /// The bounds are the exact minimum and maximum.
    pub(crate) exact: bool,
}

/// Asks whether the Bloom filter of a leaf (by index) may hold any of
/// these hashes; true when there is no filter.
pub(crate) type BloomCheck<'a> = dyn FnMut(usize, &[u64]) -> bool + 'a;

/// The values of a leaf's (by index) dictionary, when every data page of
/// its chunk is dictionary-encoded and the dictionary reads.
pub(crate) type DictionaryValues<'a> = dyn FnMut(usize) -> Option<ArrayRef> + 'a;

/// The statistics of each column `predicate` reads, in row group `rg`:
/// decoded once per row group for the questions below.
pub(crate) fn predicate_stats(
    predicate: &BoundPredicate,
    md: &FileMetaData,
    schema: &pq_format::SchemaDescriptor,
    rg: &RowGroup,
) -> Vec<Option<ChunkStats>> {
    predicate
        .columns
        .iter()
        .map(|c| chunk_stats(c, md, schema.column(c.leaf)?, rg))
        .collect()
}

/// Whether a row group whose chunk statistics are `stats` (from
/// [`predicate_stats`]) can hold a row that `predicate` keeps: from the
/// statistics, then, for `=` and `IN`, from `bloom`, then from the chunks'
/// `dictionary` values.
pub(crate) fn row_group_may_match(
    predicate: &BoundPredicate,
    stats: &[Option<ChunkStats>],
    schema: &pq_format::SchemaDescriptor,
    bloom: &mut BloomCheck<'_>,
    dictionary: &mut DictionaryValues<'_>,
) -> bool {
    let mut ctx = Ctx {
        stats,
        columns: &predicate.columns,
        schema,
        bloom,
        dictionary,
    };
    may_match(&predicate.root, &mut ctx)
}

/// Whether every row of a row group whose chunk statistics are `stats`
/// (from [`predicate_stats`]) certainly satisfies `predicate`: then its
/// rows need not be tested, nor the predicate's columns read first. Only
/// exact certainty counts: a column without bounds or a null count, bounds
/// that do not decode, or a part this cannot decide (`LIKE`, `IN`) answers
/// no.
pub(crate) fn row_group_all_match(
    predicate: &BoundPredicate,
    stats: &[Option<ChunkStats>],
) -> bool {
    all_match(&predicate.root, stats)
}

/// Whether `node` holds for every row that `stats` (by column) describe.
fn all_match(node: &Bound, stats: &[Option<ChunkStats>]) -> bool {
    let of = |i: &usize| stats.get(*i).and_then(Option::as_ref);
    match node {
        Bound::And(a, b) => all_match(a, stats) && all_match(b, stats),
        Bound::Or(a, b) => all_match(a, stats) || all_match(b, stats),
        Bound::IsNull { column, negated } => of(column).is_some_and(|s| {
            if *negated {
                s.nulls == Some(0)
            } else {
                s.nulls == Some(s.rows)
            }
        }),
        Bound::Compare { column, op, value } => {
            of(column).is_some_and(|s| compare_all_match(s, *op, value))
        }
        Bound::InList {
            column,
            values,
            negated: true,
        } => {
            of(column).is_some_and(|s| values.iter().all(|v| compare_all_match(s, CmpOp::NotEq, v)))
        }
        Bound::InList { .. } | Bound::Like { .. } => false,
    }
}

/// Whether `value op v` holds for every row `s` describes: no nulls (a
/// null satisfies no comparison) and bounds that settle it.
fn compare_all_match(s: &ChunkStats, op: CmpOp, v: &ArrayRef) -> bool {
    if s.nulls != Some(0) || s.rows == 0 {
        return false;
    }
    let Some((lo, hi)) = &s.bounds else {
        return false;
    };
    let yes = |r: Option<bool>| r == Some(true);
    match op {
        // Bounds, truncated or not, enclose every value.
        CmpOp::Lt => yes(cmp(hi, CmpOp::Lt, v)),
        CmpOp::LtEq => yes(cmp(hi, CmpOp::LtEq, v)),
        CmpOp::Gt => yes(cmp(lo, CmpOp::Gt, v)),
        CmpOp::GtEq => yes(cmp(lo, CmpOp::GtEq, v)),
        CmpOp::NotEq => yes(cmp(hi, CmpOp::Lt, v)) || yes(cmp(lo, CmpOp::Gt, v)),
        // Every value equal: exact bounds, both the value.
        CmpOp::Eq => s.exact && yes(cmp(lo, CmpOp::Eq, v)) && yes(cmp(hi, CmpOp::Eq, v)),
    }
}

struct Ctx<'a, 'b> {
    stats: &'a [Option<ChunkStats>],
    columns: &'a [BoundColumn],
    schema: &'a pq_format::SchemaDescriptor,
    bloom: &'a mut BloomCheck<'b>,
    dictionary: &'a mut DictionaryValues<'b>,
}

impl Ctx<'_, '_> {
    /// Whether a value of the column's dictionary satisfies the leaf
    /// (true without a dictionary): every non-null value of a chunk whose
    /// pages are all dictionary-encoded is one of its entries, and nulls
    /// satisfy no comparison.
    fn dictionary_may_match(&mut self, column: usize, leaf: &Bound) -> bool {
        let Some(c) = self.columns.get(column) else {
            return true;
        };
        match (self.dictionary)(c.leaf) {
            Some(values) => super::eval::any_match(leaf, column, &values),
            None => true,
        }
    }

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

/// What a column chunk's statistics say of a top-level or struct leaf (not
/// a repeated one), in the Arrow type its values are read as, under the
/// same rules pruning uses (see the module documentation): bounds only
/// where they can be trusted, null counts only where they fit the rows.
///
/// ```
/// # fn main() -> Result<(), pq_arrow::Error> {
/// use std::sync::Arc;
/// use arrow_array::{Array, ArrayRef, Int32Array, RecordBatch};
/// use arrow_schema::DataType;
/// let batch = RecordBatch::try_from_iter([(
///     "x",
///     Arc::new(Int32Array::from(vec![Some(7), None, Some(-2)])) as ArrayRef,
/// )])
/// .unwrap();
/// let path = std::env::temp_dir().join("pq_column_chunk_statistics_doc.parquet");
/// pq_arrow::write_parquet(&path, &[batch], Default::default())?;
/// let reader = pq_arrow::ParquetReader::open(&path)?;
/// let stats = pq_arrow::predicate::column_chunk_statistics(reader.metadata(), 0, 0, &DataType::Int32)
///     .expect("the writer writes statistics");
/// assert_eq!((stats.rows, stats.nulls), (3, Some(1)));
/// let (lo, hi) = stats.bounds.expect("bounds");
/// assert_eq!(lo.as_ref(), &Int32Array::from(vec![-2]) as &dyn Array);
/// assert_eq!(hi.as_ref(), &Int32Array::from(vec![7]) as &dyn Array);
/// # std::fs::remove_file(&path).ok();
/// # Ok(())
/// # }
/// ```
pub fn column_chunk_statistics(
    md: &pq_format::ParquetMetaData,
    row_group: usize,
    leaf: usize,
    data_type: &DataType,
) -> Option<ColumnChunkStatistics> {
    let descriptor = md.schema.column(leaf)?;
    let rg = md.row_groups.get(row_group)?;
    let column = BoundColumn {
        leaf,
        path: descriptor.path.clone(),
        value_type: data_type.clone(),
    };
    let s = chunk_stats(&column, md, descriptor, rg)?;
    Some(ColumnChunkStatistics {
        rows: s.rows,
        nulls: s.nulls,
        bounds: s.bounds,
        exact: s.exact,
    })
}

/// A column chunk's statistics in Arrow terms: see
/// [`column_chunk_statistics`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ColumnChunkStatistics {
    /// Rows in the row group.
    pub rows: u64,
    /// Null values, when the footer says and the count is possible.
    pub nulls: Option<u64>,
    /// A lower and an upper bound of the non-null values (one-element
    /// arrays of the column's type), when present and trustworthy.
    pub bounds: Option<(ArrayRef, ArrayRef)>,
    /// The bounds are the chunk's exact minimum and maximum (not
    /// truncated).
    pub exact: bool,
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
    let order_known = order_known(md, column.leaf);
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
        .and_then(|(lo, hi, _)| bounds(lo, hi, leaf, dt));
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

/// Whether the file's column order for `leaf` (by index) is one whose
/// `min_value`/`max_value` (and page index bounds) mean what the format
/// defines.
pub(crate) fn order_known(md: &FileMetaData, leaf: usize) -> bool {
    match md.column_orders.as_ref() {
        None => true,
        Some(orders) => matches!(
            orders.get(leaf),
            Some(ColumnOrder::TypeOrder(_) | ColumnOrder::Ieee754TotalOrder(_))
        ),
    }
}

/// `lo` and `hi` (PLAIN) as bounds of `dt`, when both decode and are in
/// order.
pub(crate) fn bounds(
    lo: &[u8],
    hi: &[u8],
    leaf: &ColumnDescriptor,
    dt: &DataType,
) -> Option<(ArrayRef, ArrayRef)> {
    // Bounds the wrong way round are not bounds.
    let (lo, hi, ordered) = bounds_of_pages(&[lo], &[hi], leaf, dt)?;
    (ordered.len() == 1 && ordered.value(0)).then_some((lo, hi))
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
    let by_parts = match node {
        Bound::And(a, b) => may_match(a, ctx) && may_match(b, ctx),
        Bound::Or(a, b) => may_match(a, ctx) || may_match(b, ctx),
        _ => leaf_may_match(node, ctx),
    };
    // A part on one column that no null satisfies is then tested whole on
    // the column's dictionary (`x >= 2 AND x <= 2` too, which neither
    // side rules out alone).
    by_parts
        && match one_column(node) {
            Some(c) if rejects_null(node) && !bounds_decide(node, ctx.stats) => {
                ctx.dictionary_may_match(c, node)
            }
            _ => true,
        }
}

/// Whether the exact bounds already tell all that the dictionary could
/// about `node`: a lone `<`, `<=`, `>`, `>=` or `!=` that the bounds let
/// through holds for the minimum or the maximum, which are values of the
/// chunk and so entries of its dictionary. Its dictionary page is then
/// not read (over a network, a request a row group for nothing).
fn bounds_decide(node: &Bound, stats: &[Option<ChunkStats>]) -> bool {
    match node {
        Bound::Compare { column, op, .. } if *op != CmpOp::Eq => stats
            .get(*column)
            .and_then(Option::as_ref)
            .is_some_and(|s| s.exact && s.bounds.is_some()),
        _ => false,
    }
}

/// The one column `node` reads, if it reads one.
fn one_column(node: &Bound) -> Option<usize> {
    match node {
        Bound::And(a, b) | Bound::Or(a, b) => {
            let c = one_column(a)?;
            (one_column(b)? == c).then_some(c)
        }
        Bound::Compare { column, .. }
        | Bound::InList { column, .. }
        | Bound::IsNull { column, .. }
        | Bound::Like { column, .. } => Some(*column),
    }
}

/// Whether `node` is never true where its column is null (so that testing
/// the non-null values of a dictionary decides it).
fn rejects_null(node: &Bound) -> bool {
    match node {
        Bound::And(a, b) => rejects_null(a) || rejects_null(b),
        Bound::Or(a, b) => rejects_null(a) && rejects_null(b),
        Bound::IsNull { negated, .. } => *negated,
        Bound::Compare { .. } | Bound::InList { .. } | Bound::Like { .. } => true,
    }
}

/// [`may_match`] of a comparison, an `IN` or a `LIKE`, by statistics and
/// Bloom filters.
fn leaf_may_match(node: &Bound, ctx: &mut Ctx<'_, '_>) -> bool {
    let stats = ctx.stats;
    let of = |i: &usize| stats.get(*i).and_then(Option::as_ref);
    match node {
        Bound::Compare {
            column,
            op: CmpOp::Eq,
            value,
        } => {
            of(column).is_none_or(|s| compare_may_match(s, CmpOp::Eq, value))
                && ctx.bloom_may_hold(*column, std::slice::from_ref(value))
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
        Bound::Compare { column, .. }
        | Bound::InList { column, .. }
        | Bound::Like { column, .. }
        | Bound::IsNull { column, .. } => of(column).is_none_or(|s| stats_may_match(node, s)),
        Bound::And(..) | Bound::Or(..) => true,
    }
}

/// Whether a leaf of the predicate (a comparison, `IN`, `LIKE` or `IS
/// NULL`) may hold for some row that `s` describes.
pub(crate) fn stats_may_match(node: &Bound, s: &ChunkStats) -> bool {
    match node {
        Bound::And(..) | Bound::Or(..) => true,
        Bound::IsNull { negated: true, .. } => s.nulls != Some(s.rows),
        Bound::IsNull { negated: false, .. } => s.nulls != Some(0),
        Bound::Compare { op, value, .. } => compare_may_match(s, *op, value),
        Bound::InList {
            values, negated, ..
        } => {
            if *negated {
                values.iter().all(|v| compare_may_match(s, CmpOp::NotEq, v))
            } else {
                values.iter().any(|v| compare_may_match(s, CmpOp::Eq, v))
            }
        }
        Bound::Like {
            prefix, negated, ..
        } => {
            if s.nulls == Some(s.rows) {
                return false;
            }
            match (prefix, &s.bounds, negated) {
                (Some(p), Some((lo, hi)), false) => prefix_may_match(p, lo, hi),
                _ => true,
            }
        }
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

/// `bounds` (an array of bounds of `dt`) with each zero float bound given
/// the sign of `zero`: -0 and +0 are equal as floats but not in Arrow's
/// total order.
fn signed_zeros(bounds: ArrayRef, zero: Zero) -> Option<ArrayRef> {
    let signed = |f: f64| match zero {
        Zero::Negative if f == 0.0 => -0.0,
        Zero::Positive if f == 0.0 => 0.0,
        _ => f,
    };
    Some(match bounds.data_type() {
        DataType::Float32 => Arc::new(
            bounds
                .as_any()
                .downcast_ref::<Float32Array>()?
                .unary::<_, arrow_array::types::Float32Type>(|v| signed(f64::from(v)) as f32),
        ),
        DataType::Float64 => Arc::new(
            bounds
                .as_any()
                .downcast_ref::<Float64Array>()?
                .unary::<_, arrow_array::types::Float64Type>(signed),
        ),
        DataType::Float16 => Arc::new(
            bounds
                .as_any()
                .downcast_ref::<Float16Array>()?
                .unary::<_, arrow_array::types::Float16Type>(|v| F16::from_f64(signed(v.to_f64()))),
        ),
        _ => bounds,
    })
}

/// The bounds of many pages at once (the page index; a chunk's statistics
/// are one such pair): `lo[i]`/`hi[i]` are page `i`'s encoded minimum and
/// maximum. Returns them as two arrays of
/// `dt`, and which pages' bounds are the right way round (the others are
/// not bounds, as [`bounds`] says of one pair); `None` when some bytes do
/// not hold a value (the caller then reads each page's on its own).
pub(crate) fn bounds_of_pages(
    lo: &[&[u8]],
    hi: &[&[u8]],
    leaf: &ColumnDescriptor,
    dt: &DataType,
) -> Option<(ArrayRef, ArrayRef, arrow_buffer::BooleanBuffer)> {
    let lo = signed_zeros(super::plain::plain_array(lo, leaf, dt)?, Zero::Negative)?;
    let hi = signed_zeros(super::plain::plain_array(hi, leaf, dt)?, Zero::Positive)?;
    if lo.len() != hi.len() || lo.null_count() > 0 || hi.null_count() > 0 {
        return None;
    }
    let reversed = arrow_ord::cmp::gt(&lo, &hi).ok()?;
    Some((lo, hi, !reversed.values()))
}

/// [`compare_may_match`] for many pages at once: whether a value of each
/// page within bounds `lo[i]..=hi[i]` may satisfy `op v` (the caller
/// decides pages without bounds or of nulls only). `None` when Arrow
/// cannot compare them.
pub(crate) fn compare_may_match_pages(
    lo: &ArrayRef,
    hi: &ArrayRef,
    exact: bool,
    op: CmpOp,
    v: &ArrayRef,
) -> Option<arrow_buffer::BooleanBuffer> {
    use arrow_ord::cmp as k;
    let v = Scalar::new(v);
    // Each rule is "not ruled out": the negation of what rules a page out,
    // as in `compare_may_match`.
    let out = match op {
        CmpOp::Eq => {
            let below = k::lt(&v, lo).ok()?;
            let above = k::gt(&v, hi).ok()?;
            !&(below.values() | above.values())
        }
        CmpOp::NotEq => {
            if !exact {
                return Some(arrow_buffer::BooleanBuffer::new_set(lo.len()));
            }
            let lo_is = k::eq(lo, &v).ok()?;
            let hi_is = k::eq(hi, &v).ok()?;
            !&(lo_is.values() & hi_is.values())
        }
        CmpOp::Lt => !k::gt_eq(lo, &v).ok()?.values(),
        CmpOp::LtEq => !k::gt(lo, &v).ok()?.values(),
        CmpOp::Gt => !k::lt_eq(hi, &v).ok()?.values(),
        CmpOp::GtEq => !k::lt(hi, &v).ok()?.values(),
    };
    Some(out)
}
