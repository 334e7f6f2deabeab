//! Decimal `+`, `-` and `*` in the projections pushed into a pq scan,
//! evaluated without a checked 128-bit operation per value where the
//! values make overflow impossible.
//!
//! DataFusion evaluates `Decimal128` arithmetic with arrow's kernels, which
//! check every value's rescaling and result for overflow (a call into the
//! compiler's 128-bit overflow-checked multiply each), and through a
//! fallible closure per value where one side is a literal: in TPC-H Q1,
//! `l_extendedprice * (1 - l_discount)` costs some 14 ns a row, a fifth of
//! the query. Decimals read from Parquet are mostly of precision 18 or
//! less (INT32 and INT64 columns), so their values fit in 63 bits, and
//! then no rescaling, sum or product of two of them can overflow 128 bits:
//! each is one widening multiply and an add.
//!
//! [`rewrite`] wraps each such `BinaryExpr` of a projection in a
//! [`DecimalArith`], which computes exactly what arrow's kernel would (the
//! same values, nulls and result type) when every value of both sides is
//! within ±2^62 and the rescaling factors within 10^18, and otherwise (or
//! for any other type) hands the batch to DataFusion's expression, whose
//! result or error is then the answer. Only expressions with no volatile
//! part are wrapped, so that evaluating a side twice in that fallback
//! changes nothing but time.

use std::fmt::{self, Display, Formatter};
use std::hash::Hash;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Decimal128Type;
use arrow_array::{Array, ArrayRef, PrimitiveArray, RecordBatch};
use arrow_schema::{DECIMAL128_MAX_PRECISION, DECIMAL128_MAX_SCALE, DataType, FieldRef, Schema};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{ColumnarValue, Operator};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::expressions::BinaryExpr;
use datafusion::physical_expr::projection::{ProjectionExpr, ProjectionExprs};
use datafusion_physical_expr_common::physical_expr::is_volatile;

/// The largest magnitude of a value taken on the fast path: with factors up
/// to 10^18 (< 2^60), a rescaled value stays within 2^122, a sum or
/// difference of two within 2^123 and a product of two within 2^124, all
/// inside `i128`.
const LIMIT: i128 = 1 << 62;

/// The largest power of ten a side is rescaled by on the fast path.
const MAX_RESCALE: i8 = 18;

/// The projection with every decimal `+`, `-` and `*` whose sides have no
/// volatile part evaluated by [`DecimalArith`]; `schema` is the projection's
/// input (the table's schema). Expressions that are not such are returned
/// as they were.
pub(crate) fn rewrite(projection: &ProjectionExprs, schema: &Schema) -> Result<ProjectionExprs> {
    let exprs = projection
        .iter()
        .map(|p| {
            Ok(ProjectionExpr::new(
                rewrite_expr(&p.expr, schema)?.data,
                p.alias.clone(),
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(ProjectionExprs::new(exprs))
}

/// [`rewrite`] for one expression, bottom up (a wrapped node's sides may
/// themselves be wrapped), saying whether any node was wrapped.
pub(crate) fn rewrite_expr(
    expr: &Arc<dyn PhysicalExpr>,
    schema: &Schema,
) -> Result<Transformed<Arc<dyn PhysicalExpr>>> {
    if is_volatile(expr) {
        return Ok(Transformed::no(Arc::clone(expr)));
    }
    Arc::clone(expr).transform_up(|node| {
        let Some(binary) = node.downcast_ref::<BinaryExpr>() else {
            return Ok(Transformed::no(node));
        };
        let Some(op) = ArithOp::of(*binary.op()) else {
            return Ok(Transformed::no(node));
        };
        // A side whose type cannot be told is left to DataFusion.
        let decimal = |e: &Arc<dyn PhysicalExpr>| {
            matches!(e.data_type(schema), Ok(DataType::Decimal128(_, _)))
        };
        if !(decimal(binary.left()) && decimal(binary.right())) {
            return Ok(Transformed::no(node));
        }
        Ok(Transformed::yes(Arc::new(DecimalArith {
            op,
            inner: binary.clone(),
        }) as Arc<dyn PhysicalExpr>))
    })
}

/// The decimal operators computed here (and, so, moved into scans from
/// aggregates' arguments by [`crate::aggregate_args`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ArithOp {
    Add,
    Sub,
    Mul,
}

impl ArithOp {
    pub(crate) fn of(op: Operator) -> Option<ArithOp> {
        match op {
            Operator::Plus => Some(ArithOp::Add),
            Operator::Minus => Some(ArithOp::Sub),
            Operator::Multiply => Some(ArithOp::Mul),
            _ => None,
        }
    }
}

/// A decimal `+`, `-` or `*` (DataFusion's `BinaryExpr`, kept whole): its
/// type, display and sides are the `BinaryExpr`'s, and so is its result
/// wherever the fast path does not apply.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct DecimalArith {
    op: ArithOp,
    inner: BinaryExpr,
}

impl DecimalArith {
    /// `left op right`, where `op` is one of [`ArithOp`]'s (`None` for any
    /// other): how a plan that crossed the wire gets it back
    /// ([`crate::codec`] sends the operator and the sides).
    #[cfg(feature = "ballista")]
    pub(crate) fn new(
        left: Arc<dyn PhysicalExpr>,
        op: Operator,
        right: Arc<dyn PhysicalExpr>,
    ) -> Option<DecimalArith> {
        Some(DecimalArith {
            op: ArithOp::of(op)?,
            inner: BinaryExpr::new(left, op, right),
        })
    }

    /// The operator, DataFusion's.
    #[cfg(feature = "ballista")]
    pub(crate) fn operator(&self) -> Operator {
        *self.inner.op()
    }

    /// DataFusion's expression, with wrapped sides unwrapped: what it
    /// displays as (a `BinaryExpr` puts a side in parentheses only when
    /// that side is a `BinaryExpr`).
    fn unwrapped(&self) -> Arc<dyn PhysicalExpr> {
        let side = |e: &Arc<dyn PhysicalExpr>| match e.downcast_ref::<DecimalArith>() {
            Some(d) => d.unwrapped(),
            None => Arc::clone(e),
        };
        Arc::new(BinaryExpr::new(
            side(self.inner.left()),
            *self.inner.op(),
            side(self.inner.right()),
        ))
    }
}

impl Display for DecimalArith {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        Display::fmt(&self.unwrapped(), f)
    }
}

impl PhysicalExpr for DecimalArith {
    fn return_field(&self, input_schema: &Schema) -> Result<FieldRef> {
        self.inner.return_field(input_schema)
    }

    fn evaluate(&self, batch: &RecordBatch) -> Result<ColumnarValue> {
        let left = self.inner.left().evaluate(batch)?;
        let right = self.inner.right().evaluate(batch)?;
        match evaluate_fast(self.op, &left, &right) {
            Some(value) => Ok(value),
            // Not proven exact here: DataFusion's own evaluation (the sides
            // again, then arrow's checked kernel) gives the answer or the
            // error.
            None => self.inner.evaluate(batch),
        }
    }

    fn children(&self) -> Vec<&Arc<dyn PhysicalExpr>> {
        vec![self.inner.left(), self.inner.right()]
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn PhysicalExpr>>,
    ) -> Result<Arc<dyn PhysicalExpr>> {
        let inner = Arc::new(self.inner.clone()).with_new_children(children)?;
        match inner.downcast_ref::<BinaryExpr>() {
            Some(binary) => Ok(Arc::new(DecimalArith {
                op: self.op,
                inner: binary.clone(),
            })),
            None => Ok(inner),
        }
    }

    fn fmt_sql(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.unwrapped().fmt_sql(f)
    }
}

/// One side of the operation: a `Decimal128` array or a non-null literal.
enum Side<'a> {
    Array(&'a PrimitiveArray<Decimal128Type>),
    Scalar(i128),
}

impl<'a> Side<'a> {
    /// The side with its precision and scale, or `None` where the fast
    /// path does not apply (another type, a null literal).
    fn of(value: &'a ColumnarValue) -> Option<(Side<'a>, u8, i8)> {
        match value {
            ColumnarValue::Array(a) => match a.data_type() {
                DataType::Decimal128(p, s) => {
                    Some((Side::Array(a.as_primitive::<Decimal128Type>()), *p, *s))
                }
                _ => None,
            },
            ColumnarValue::Scalar(ScalarValue::Decimal128(Some(v), p, s)) => {
                Some((Side::Scalar(*v), *p, *s))
            }
            ColumnarValue::Scalar(_) => None,
        }
    }
}

/// The operation, as arrow's decimal kernel computes it, on sides whose
/// values make overflow impossible; `None` where that is not shown (then
/// the caller falls back to the kernel).
fn evaluate_fast(
    op: ArithOp,
    left: &ColumnarValue,
    right: &ColumnarValue,
) -> Option<ColumnarValue> {
    let (l, p1, s1) = Side::of(left)?;
    let (r, p2, s2) = Side::of(right)?;
    // Arrow's result precision and scale (Hive's rules), and the factors
    // each side is rescaled by.
    let (precision, scale, lm, rm) = match op {
        ArithOp::Add | ArithOp::Sub => {
            let scale = s1.max(s2);
            let precision = (scale.saturating_add((p1 as i8 - s1).max(p2 as i8 - s2)) as u8)
                .saturating_add(1)
                .min(DECIMAL128_MAX_PRECISION);
            (precision, scale, pow10(scale - s1)?, pow10(scale - s2)?)
        }
        ArithOp::Mul => {
            let precision = p1
                .saturating_add(p2.saturating_add(1))
                .min(DECIMAL128_MAX_PRECISION);
            let scale = s1.saturating_add(s2);
            if scale > DECIMAL128_MAX_SCALE {
                return None;
            }
            (precision, scale, 1, 1)
        }
    };
    // Where every value is within ±2^62 the truncations in `combine` lose
    // nothing and each product is one widening multiply. One loop per
    // operation, so that none chooses the operation per value.
    let values = match op {
        ArithOp::Add => combine(&l, &r, |a, b| wide_mul(a, lm) + wide_mul(b, rm)),
        ArithOp::Sub => combine(&l, &r, |a, b| wide_mul(a, lm) - wide_mul(b, rm)),
        ArithOp::Mul => combine(&l, &r, wide_mul),
    }?;
    let nulls = match (&l, &r) {
        (Side::Array(a), Side::Array(b)) => NullBuffer::union(a.nulls(), b.nulls()),
        (Side::Array(a), Side::Scalar(_)) | (Side::Scalar(_), Side::Array(a)) => a.nulls().cloned(),
        (Side::Scalar(_), Side::Scalar(_)) => return None,
    };
    let array = PrimitiveArray::<Decimal128Type>::new(values.into(), nulls);
    let array = array.with_precision_and_scale(precision, scale).ok()?;
    Some(ColumnarValue::Array(Arc::new(array) as ArrayRef))
}

/// Whether `v` is outside ±[`LIMIT`] (without a branch).
#[inline(always)]
fn past(v: i128) -> bool {
    v.wrapping_add(LIMIT) as u128 > 2 * LIMIT as u128
}

/// `f` of each pair of values, sides truncated to 64 bits; `None` where a
/// value of either side (null slots too) is outside ±[`LIMIT`], so that
/// the truncation could lose something, for two literals (DataFusion
/// folds them, and its kernel makes the scalar) or for arrays of different
/// lengths (its kernel's error). The range is checked in the same pass as
/// the values are computed: one read of each side.
#[inline(always)]
fn combine(l: &Side, r: &Side, f: impl Fn(i64, i64) -> i128) -> Option<Vec<i128>> {
    match (l, r) {
        (Side::Array(a), Side::Array(b)) => {
            if a.len() != b.len() {
                return None;
            }
            let mut outside = false;
            let values = a
                .values()
                .iter()
                .zip(b.values().iter())
                .map(|(&x, &y)| {
                    outside |= past(x) | past(y);
                    f(x as i64, y as i64)
                })
                .collect();
            (!outside).then_some(values)
        }
        (Side::Array(a), Side::Scalar(y)) => with_scalar(a, *y, f),
        (Side::Scalar(x), Side::Array(b)) => with_scalar(b, *x, |y, x| f(x, y)),
        (Side::Scalar(_), Side::Scalar(_)) => None,
    }
}

/// [`combine`] of an array and a literal: `f(value, scalar)` of each value.
#[inline(always)]
fn with_scalar(
    a: &PrimitiveArray<Decimal128Type>,
    scalar: i128,
    f: impl Fn(i64, i64) -> i128,
) -> Option<Vec<i128>> {
    if past(scalar) {
        return None;
    }
    let y = scalar as i64;
    let mut outside = false;
    let values = a
        .values()
        .iter()
        .map(|&x| {
            outside |= past(x);
            f(x as i64, y)
        })
        .collect();
    (!outside).then_some(values)
}

/// The exact product of two 64-bit values (one multiply instruction).
#[inline(always)]
fn wide_mul(a: i64, b: i64) -> i128 {
    i128::from(a) * i128::from(b)
}

/// 10^`exp` for a rescaling within [`MAX_RESCALE`]; `None` past it.
fn pow10(exp: i8) -> Option<i64> {
    (0..=MAX_RESCALE)
        .contains(&exp)
        .then(|| 10i64.pow(exp as u32))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use arrow_schema::Field;
    use datafusion::physical_expr::expressions::{Column, lit};
    use proptest::prelude::*;

    /// A leaf of a case: a decimal array (`None`: null) or a literal, of a
    /// decimal type.
    #[derive(Debug, Clone)]
    enum Input {
        Array(Vec<Option<i128>>),
        Literal(Option<i128>),
    }

    /// An expression of a case: one operation on two leaves, or one with a
    /// second operation as its left or right side.
    #[derive(Debug, Clone)]
    enum Tree {
        Leaf(Input, (u8, i8)),
        Op(Operator, Box<Tree>, Box<Tree>),
    }

    /// Values near zero, near the fast path's limit on either side, and far
    /// past it (up to the whole `i128` range).
    fn value() -> impl Strategy<Value = i128> {
        prop_oneof![
            4 => -100_000i128..100_000,
            2 => (-3i128..=3).prop_map(|d| LIMIT + d),
            2 => (-3i128..=3).prop_map(|d| -LIMIT + d),
            1 => any::<i64>().prop_map(i128::from),
            1 => any::<i128>(),
        ]
    }

    fn leaf(len: usize) -> impl Strategy<Value = Tree> {
        let input = prop_oneof![
            4 => proptest::collection::vec(proptest::option::weighted(0.9, value()), len)
                .prop_map(Input::Array),
            1 => proptest::option::weighted(0.95, value()).prop_map(Input::Literal),
        ];
        let decimal = (1u8..=38).prop_flat_map(|p| (Just(p), -4i8..=(p as i8)));
        (input, decimal).prop_map(|(i, t)| Tree::Leaf(i, t))
    }

    fn op() -> impl Strategy<Value = Operator> {
        prop_oneof![
            Just(Operator::Plus),
            Just(Operator::Minus),
            Just(Operator::Multiply)
        ]
    }

    fn flat(len: usize) -> impl Strategy<Value = Tree> {
        (op(), leaf(len), leaf(len)).prop_map(|(o, l, r)| Tree::Op(o, Box::new(l), Box::new(r)))
    }

    fn tree(len: usize) -> impl Strategy<Value = Tree> {
        let nested =
            (op(), flat(len), leaf(len), any::<bool>()).prop_map(|(o, inner, l, right)| {
                let (a, b) = if right { (l, inner) } else { (inner, l) };
                Tree::Op(o, Box::new(a), Box::new(b))
            });
        prop_oneof![flat(len), nested]
    }

    /// The tree as DataFusion's expression over `fields` + `columns` (a
    /// column added for each array).
    fn expr(
        tree: &Tree,
        fields: &mut Vec<Field>,
        columns: &mut Vec<ArrayRef>,
    ) -> Arc<dyn PhysicalExpr> {
        match tree {
            Tree::Leaf(Input::Array(values), (p, s)) => {
                let array = PrimitiveArray::<Decimal128Type>::from(values.clone())
                    .with_precision_and_scale(*p, *s)
                    .unwrap();
                let name = format!("c{}", columns.len());
                fields.push(Field::new(&name, array.data_type().clone(), true));
                columns.push(Arc::new(array));
                Arc::new(Column::new(&name, columns.len() - 1))
            }
            Tree::Leaf(Input::Literal(v), (p, s)) => lit(ScalarValue::Decimal128(*v, *p, *s)),
            Tree::Op(op, l, r) => {
                let l = expr(l, fields, columns);
                let r = expr(r, fields, columns);
                Arc::new(BinaryExpr::new(l, *op, r))
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The wrapped expression gives what DataFusion's gives: the same
        /// array (type, values, nulls), or the same error.
        #[test]
        fn decimal_arith_matches_datafusions_expression(
            tree in (1usize..40).prop_flat_map(tree),
        ) {
            let (mut fields, mut columns) = (Vec::new(), Vec::new());
            let theirs = expr(&tree, &mut fields, &mut columns);
            prop_assume!(!columns.is_empty());
            let schema = Arc::new(Schema::new(fields));
            // Trees DataFusion's planner would refuse (a result scale past
            // 38 below the top) are not cases.
            prop_assume!(theirs.children().iter().all(|c| c.data_type(&schema).is_ok()));
            let batch = RecordBatch::try_new(Arc::clone(&schema), columns).unwrap();
            let ours = rewrite_expr(&theirs, &schema).unwrap().data;
            prop_assert!(ours.downcast_ref::<DecimalArith>().is_some());
            let want = theirs.evaluate(&batch).and_then(|v| v.into_array(batch.num_rows()));
            let got = ours.evaluate(&batch).and_then(|v| v.into_array(batch.num_rows()));
            match (got, want) {
                (Ok(got), Ok(want)) => {
                    prop_assert_eq!(got.data_type(), want.data_type());
                    prop_assert_eq!(&got, &want);
                    prop_assert_eq!(ours.data_type(&schema).unwrap(), want.data_type().clone());
                }
                (Err(got), Err(want)) => prop_assert_eq!(got.to_string(), want.to_string()),
                (got, want) => prop_assert!(false, "ours {got:?}, DataFusion's {want:?}"),
            }
        }
    }

    /// Values within the limit take the fast path (the property above
    /// holds trivially if they never do).
    #[test]
    fn small_values_take_the_fast_path() {
        let a = PrimitiveArray::<Decimal128Type>::from(vec![Some(12_345), None, Some(-LIMIT)])
            .with_precision_and_scale(15, 2)
            .unwrap();
        let one = ColumnarValue::Scalar(ScalarValue::Decimal128(Some(1), 20, 0));
        let a = ColumnarValue::Array(Arc::new(a));
        let got = evaluate_fast(ArithOp::Sub, &one, &a).expect("fast path");
        let got = got.into_array(3).unwrap();
        let got = got.as_primitive::<Decimal128Type>();
        assert_eq!(got.data_type(), &DataType::Decimal128(23, 2));
        assert_eq!(got.value(0), 100 - 12_345);
        assert!(got.is_null(1));
        assert_eq!(got.value(2), 100 + LIMIT);
        // One value past the limit: the kernel decides.
        let b = PrimitiveArray::<Decimal128Type>::from(vec![LIMIT + 1])
            .with_precision_and_scale(38, 0)
            .unwrap();
        let b = ColumnarValue::Array(Arc::new(b));
        assert!(evaluate_fast(ArithOp::Mul, &b, &one).is_none());
    }

    /// Only decimal `+`, `-` and `*` are wrapped, at any depth, and not in
    /// a volatile expression.
    #[test]
    fn rewrite_wraps_decimal_arithmetic_only() {
        let schema = Schema::new(vec![
            Field::new("d", DataType::Decimal128(15, 2), false),
            Field::new("i", DataType::Int64, false),
        ]);
        let d: Arc<dyn PhysicalExpr> = Arc::new(Column::new("d", 0));
        let i: Arc<dyn PhysicalExpr> = Arc::new(Column::new("i", 1));
        let one = lit(ScalarValue::Decimal128(Some(1), 20, 0));
        let inner: Arc<dyn PhysicalExpr> =
            Arc::new(BinaryExpr::new(one, Operator::Minus, Arc::clone(&d)));
        let outer: Arc<dyn PhysicalExpr> =
            Arc::new(BinaryExpr::new(Arc::clone(&d), Operator::Multiply, inner));
        let got = rewrite_expr(&outer, &schema).unwrap().data;
        let top = got.downcast_ref::<DecimalArith>().expect("outer wrapped");
        assert!(top.children()[1].downcast_ref::<DecimalArith>().is_some());
        assert_eq!(got.to_string(), outer.to_string());
        let ints: Arc<dyn PhysicalExpr> =
            Arc::new(BinaryExpr::new(Arc::clone(&i), Operator::Plus, i));
        let got = rewrite_expr(&ints, &schema).unwrap().data;
        assert!(got.downcast_ref::<BinaryExpr>().is_some());
        let div: Arc<dyn PhysicalExpr> =
            Arc::new(BinaryExpr::new(Arc::clone(&d), Operator::Divide, d));
        assert!(
            rewrite_expr(&div, &schema)
                .unwrap()
                .data
                .downcast_ref::<BinaryExpr>()
                .is_some()
        );
    }
}
