//! Evaluating a bound predicate on a batch with Arrow's compute kernels,
//! as SQL's `WHERE` does: rows where it is null (unknown) are not kept.
//! Compares of integer, date and decimal columns with a literal are our
//! own, 64 rows at a time, checked against Arrow's in the tests.

use std::sync::Arc;

use arrow_arith::boolean::{and_kleene, is_not_null, is_null, not, or_kleene};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, Scalar, UInt32Array};
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::{ArrowError, DataType};

use super::CmpOp;
use super::bind::{Bound, BoundPredicate};
use crate::convert::bits_where;
use crate::error::{Error, Location, Result};

fn arrow_err(e: ArrowError) -> Error {
    crate::error::arrow_err(&Location::default(), e)
}

/// The column `path` of `batch`, through struct fields, with the nulls of
/// the structs around it added to its own.
pub(crate) fn column_of(batch: &RecordBatch, path: &pq_format::ColumnPath) -> Option<ArrayRef> {
    let mut parts = path.iter();
    let first = parts.next()?;
    let (i, _) = batch.schema().column_with_name(first)?;
    let mut array = batch.column(i).clone();
    let mut nulls: Option<NullBuffer> = None;
    for part in parts {
        let s = array.as_struct_opt()?;
        nulls = NullBuffer::union(nulls.as_ref(), s.nulls());
        array = s.column_by_name(part)?.clone();
    }
    if let Some(outer) = nulls {
        let merged = NullBuffer::union(Some(&outer), array.logical_nulls().as_ref());
        let data = array.to_data().into_builder().nulls(merged);
        // The union only adds nulls, which any array may have.
        array = arrow_array::make_array(data.build().ok()?);
    }
    Some(array)
}

/// Which rows of `batch` the predicate keeps (no nulls: unknown is false).
/// The predicate's columns are found in `batch` by their paths.
pub(crate) fn evaluate(predicate: &BoundPredicate, batch: &RecordBatch) -> Result<BooleanArray> {
    let columns = predicate
        .columns
        .iter()
        .map(|c| {
            column_of(batch, &c.path).ok_or_else(|| Error::Request {
                message: format!("the batch has no column {}", c.path.join(".")),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let result = eval(&predicate.root, &columns)?;
    // Unknown is not kept.
    Ok(match result.nulls() {
        Some(n) if n.null_count() > 0 => {
            let values = result.values() & n.inner();
            BooleanArray::new(values, None)
        }
        _ => result,
    })
}

/// Whether some value of `values` satisfies `node`, which reads only
/// column `column`; true when the evaluation fails (the caller only prunes
/// on a certain no).
pub(crate) fn any_match(node: &Bound, column: usize, values: &ArrayRef) -> bool {
    let columns = vec![values.clone(); column + 1];
    match eval(node, &columns) {
        Ok(r) => r.iter().any(|v| v == Some(true)),
        Err(_) => true,
    }
}

fn eval(node: &Bound, columns: &[ArrayRef]) -> Result<BooleanArray> {
    let col = |i: &usize| {
        columns.get(*i).cloned().ok_or_else(|| Error::Request {
            message: "a predicate column is missing".into(),
        })
    };
    match node {
        Bound::Compare { column, op, value } => {
            per_value(&col(column)?, &|a| compare(a, *op, value))
        }
        Bound::InList {
            column,
            values,
            negated,
        } => per_value(&col(column)?, &|a| {
            let mut any: Option<BooleanArray> = None;
            for v in values {
                let eq = compare(a, CmpOp::Eq, v)?;
                any = Some(match any {
                    None => eq,
                    Some(prev) => or_kleene(&prev, &eq).map_err(arrow_err)?,
                });
            }
            let any = any.unwrap_or_else(|| BooleanArray::from(vec![false; a.len()]));
            if *negated {
                not(&any).map_err(arrow_err)
            } else {
                Ok(any)
            }
        }),
        Bound::IsNull { column, negated } => {
            let a = col(column)?;
            if *negated {
                is_not_null(&a).map_err(arrow_err)
            } else {
                is_null(&a).map_err(arrow_err)
            }
        }
        Bound::Like {
            column,
            pattern,
            negated,
            ..
        } => per_value(&col(column)?, &|a| {
            let p = Scalar::new(pattern.clone());
            if *negated {
                arrow_string::like::nlike(&a, &p).map_err(arrow_err)
            } else {
                arrow_string::like::like(&a, &p).map_err(arrow_err)
            }
        }),
        Bound::And(..) => eval_and(node, columns),
        Bound::Or(a, b) => or_kleene(&eval(a, columns)?, &eval(b, columns)?).map_err(arrow_err),
    }
}

fn compare(a: &dyn Array, op: CmpOp, value: &ArrayRef) -> Result<BooleanArray> {
    use arrow_ord::cmp;
    if matches!(op, CmpOp::Eq | CmpOp::NotEq)
        && a.data_type() == value.data_type()
        && let Some(needle) = scalar_bytes(value)
        && let Some(r) = super::byte_eq::eq_bytes(a, needle, op == CmpOp::NotEq)
    {
        return Ok(r);
    }
    if let Some(r) = compare_native(a, op, value) {
        return Ok(r);
    }
    let v = Scalar::new(value.clone());
    match op {
        CmpOp::Eq => cmp::eq(&a, &v),
        CmpOp::NotEq => cmp::neq(&a, &v),
        CmpOp::Lt => cmp::lt(&a, &v),
        CmpOp::LtEq => cmp::lt_eq(&a, &v),
        CmpOp::Gt => cmp::gt(&a, &v),
        CmpOp::GtEq => cmp::gt_eq(&a, &v),
    }
    .map_err(arrow_err)
}

/// A conjunction: the conjuncts under its nested `And`s, ANDed in turn,
/// with a lower and an upper bound of one integer, date or decimal column
/// (`x >= lo AND x < hi`, a BETWEEN) tested in one pass instead of two
/// compares and an AND. The two are the same: with literals that are not
/// null, both compares are null exactly where the column is, as the range's
/// answer is, and elsewhere Kleene's AND is the plain one. TPC-H Q6 has two
/// such ranges among its five compares.
fn eval_and(node: &Bound, columns: &[ArrayRef]) -> Result<BooleanArray> {
    let conjuncts = node.conjuncts();
    let mut done = vec![false; conjuncts.len()];
    let mut all: Option<BooleanArray> = None;
    for (i, &conjunct) in conjuncts.iter().enumerate() {
        if done.get(i) == Some(&true) {
            continue;
        }
        let range = match range_partner(&conjuncts, &done, i) {
            Some((j, column, lo, hi)) => {
                let a = columns.get(column).ok_or_else(|| Error::Request {
                    message: "a predicate column is missing".into(),
                })?;
                let r = range_native(a.as_ref(), lo, hi);
                if r.is_some()
                    && let Some(d) = done.get_mut(j)
                {
                    *d = true;
                }
                r
            }
            None => None,
        };
        let r = match range {
            Some(r) => r,
            None => eval(conjunct, columns)?,
        };
        all = Some(match all {
            None => r,
            Some(prev) => and_kleene(&prev, &r).map_err(arrow_err)?,
        });
    }
    all.ok_or_else(|| Error::Request {
        message: "an empty conjunction".into(),
    })
}

/// A bound of a range: `(op, literal)` with `op` one of `>`, `>=` (lower)
/// or `<`, `<=` (upper).
type Side<'a> = (CmpOp, &'a ArrayRef);

/// For conjunct `i`, a compare bounding its column on one side, a later
/// conjunct not yet done bounding the same column on the other: its index,
/// the column, and the lower and upper bounds.
fn range_partner<'a>(
    conjuncts: &[&'a Bound],
    done: &[bool],
    i: usize,
) -> Option<(usize, usize, Side<'a>, Side<'a>)> {
    let lower = |op: CmpOp| match op {
        CmpOp::Gt | CmpOp::GtEq => Some(true),
        CmpOp::Lt | CmpOp::LtEq => Some(false),
        CmpOp::Eq | CmpOp::NotEq => None,
    };
    let Bound::Compare { column, op, value } = conjuncts.get(i)? else {
        return None;
    };
    let is_lower = lower(*op)?;
    conjuncts
        .iter()
        .enumerate()
        .skip(i + 1)
        .find_map(|(j, c)| match c {
            Bound::Compare {
                column: other,
                op: o,
                value: v,
            } if other == column && done.get(j) == Some(&false) && lower(*o) == Some(!is_lower) => {
                let (this, that) = ((*op, value), (*o, v));
                Some(if is_lower {
                    (j, *column, this, that)
                } else {
                    (j, *column, that, this)
                })
            }
            _ => None,
        })
}

/// Something to do with the values of a primitive array of a type whose
/// values order as integers (integers, dates, decimals): the type chosen
/// by [`on_native`].
trait OnNative {
    fn on<T: arrow_array::ArrowPrimitiveType>(self) -> Option<BooleanArray>
    where
        T::Native: Ord;
}

/// `f` for the primitive type of `data_type` if its values order as
/// integers; `None` for other types (floats keep Arrow's total order).
fn on_native(data_type: &DataType, f: impl OnNative) -> Option<BooleanArray> {
    use arrow_array::types::*;
    match data_type {
        DataType::Int8 => f.on::<Int8Type>(),
        DataType::Int16 => f.on::<Int16Type>(),
        DataType::Int32 => f.on::<Int32Type>(),
        DataType::Int64 => f.on::<Int64Type>(),
        DataType::UInt8 => f.on::<UInt8Type>(),
        DataType::UInt16 => f.on::<UInt16Type>(),
        DataType::UInt32 => f.on::<UInt32Type>(),
        DataType::UInt64 => f.on::<UInt64Type>(),
        DataType::Date32 => f.on::<Date32Type>(),
        DataType::Date64 => f.on::<Date64Type>(),
        DataType::Decimal32(..) => f.on::<Decimal32Type>(),
        DataType::Decimal64(..) => f.on::<Decimal64Type>(),
        DataType::Decimal128(..) => f.on::<Decimal128Type>(),
        _ => None,
    }
}

/// Whether `value` is one literal, not null, of `a`'s type.
fn literal_of(a: &dyn Array, value: &ArrayRef) -> bool {
    a.data_type() == value.data_type() && value.len() == 1 && !value.is_null(0)
}

/// The one value of a literal of primitive type `T`.
fn literal<T: arrow_array::ArrowPrimitiveType>(value: &ArrayRef) -> Option<T::Native> {
    value.as_primitive_opt::<T>()?.values().first().copied()
}

/// `a op value` for integer, date and decimal arrays against a literal of
/// the same type, 64 rows at a time by [`bits_where`] (compares into bytes,
/// bytes into bits by a multiply); the answer's nulls are `a`'s. Arrow's
/// kernel sets a bit per row, a step each: 5.7 % of TPC-H Q6 through
/// DataFusion on a file with nulls, three such compares on decimals.
/// `None` for other types and for a null or mistyped literal.
fn compare_native(a: &dyn Array, op: CmpOp, value: &ArrayRef) -> Option<BooleanArray> {
    struct Compare<'a>(&'a dyn Array, CmpOp, &'a ArrayRef);
    impl OnNative for Compare<'_> {
        fn on<T: arrow_array::ArrowPrimitiveType>(self) -> Option<BooleanArray>
        where
            T::Native: Ord,
        {
            let Compare(a, op, value) = self;
            let values = a.as_primitive_opt::<T>()?.values();
            let x = literal::<T>(value)?;
            let bits = match op {
                CmpOp::Eq => answers(values, |v| v == x),
                CmpOp::NotEq => answers(values, |v| v != x),
                CmpOp::Lt => answers(values, |v| v < x),
                CmpOp::LtEq => answers(values, |v| v <= x),
                CmpOp::Gt => answers(values, |v| v > x),
                CmpOp::GtEq => answers(values, |v| v >= x),
            };
            Some(BooleanArray::new(bits, a.nulls().cloned()))
        }
    }
    if !literal_of(a, value) {
        return None;
    }
    on_native(a.data_type(), Compare(a, op, value))
}

/// `lo.0` and `hi.0` against their literals (a lower bound, `>` or `>=`,
/// and an upper one, `<` or `<=`) in one pass, as [`compare_native`] makes
/// one compare; `None` where it would be.
fn range_native(a: &dyn Array, lo: Side<'_>, hi: Side<'_>) -> Option<BooleanArray> {
    struct Range<'a>(&'a dyn Array, Side<'a>, Side<'a>);
    impl OnNative for Range<'_> {
        fn on<T: arrow_array::ArrowPrimitiveType>(self) -> Option<BooleanArray>
        where
            T::Native: Ord,
        {
            let Range(a, (lo_op, lo), (hi_op, hi)) = self;
            let values = a.as_primitive_opt::<T>()?.values();
            let (l, h) = (literal::<T>(lo)?, literal::<T>(hi)?);
            // `&`, not `&&`: no branch, so that the tests vectorise.
            let bits = match (lo_op == CmpOp::GtEq, hi_op == CmpOp::LtEq) {
                (true, true) => answers(values, |v| (v >= l) & (v <= h)),
                (true, false) => answers(values, |v| (v >= l) & (v < h)),
                (false, true) => answers(values, |v| (v > l) & (v <= h)),
                (false, false) => answers(values, |v| (v > l) & (v < h)),
            };
            Some(BooleanArray::new(bits, a.nulls().cloned()))
        }
    }
    if !literal_of(a, lo.1) || !literal_of(a, hi.1) {
        return None;
    }
    on_native(a.data_type(), Range(a, lo, hi))
}

/// `test` of each of `items`, packed 64 to a word by [`bits_where`].
fn answers<T: Copy>(items: &[T], test: impl Fn(T) -> bool + Copy) -> BooleanBuffer {
    let words: Vec<u64> = items.chunks(64).map(|c| bits_where(c, test)).collect();
    BooleanBuffer::new(arrow_buffer::Buffer::from_vec(words), 0, items.len())
}

/// The bytes of the one value of a string or binary literal.
pub(super) fn scalar_bytes(value: &ArrayRef) -> Option<&[u8]> {
    if value.len() != 1 || value.is_null(0) {
        return None;
    }
    Some(match value.data_type() {
        DataType::Utf8 => value.as_string::<i32>().value(0).as_bytes(),
        DataType::LargeUtf8 => value.as_string::<i64>().value(0).as_bytes(),
        DataType::Utf8View => value.as_string_view().value(0).as_bytes(),
        DataType::Binary => value.as_binary::<i32>().value(0),
        DataType::LargeBinary => value.as_binary::<i64>().value(0),
        DataType::BinaryView => value.as_binary_view().value(0),
        _ => return None,
    })
}

/// `f` on the values of `array`; on a dictionary, on its (usually few)
/// values, then spread to the rows through the keys.
fn per_value(
    array: &ArrayRef,
    f: &dyn Fn(&dyn Array) -> Result<BooleanArray>,
) -> Result<BooleanArray> {
    let DataType::Dictionary(_, _) = array.data_type() else {
        return f(array.as_ref());
    };
    let Some(dict) = array.as_any_dictionary_opt() else {
        return f(array.as_ref());
    };
    let on_values = f(dict.values().as_ref())?;
    // Int32 keys (pq's own, for a predicate's column read as keys) index
    // the answers straight, a word of 64 rows at a time.
    if on_values.null_count() == 0
        && let Some(keys) = array
            .as_any()
            .downcast_ref::<arrow_array::DictionaryArray<arrow_array::types::Int32Type>>()
    {
        let keys = keys.keys();
        let bits = key_answers(on_values.values(), keys.values());
        return Ok(BooleanArray::new(bits, keys.nulls().cloned()));
    }
    let keys: Vec<u32> = dict
        .normalized_keys()
        .into_iter()
        .map(|k| u32::try_from(k).unwrap_or(u32::MAX))
        .collect();
    let keys = UInt32Array::new(keys.into(), dict.keys().logical_nulls());
    let taken = arrow_select::take::take(&on_values, &keys, None).map_err(arrow_err)?;
    Ok(taken.as_boolean().clone())
}

/// The answer of each key of `keys` from the answers of the entries it
/// indexes (`on_values`; a key past them answers false), packed 64 keys
/// to a word.
///
/// Each key loads its entry's answer as a byte (up to 64 entries from a
/// fixed table, whose index needs no bounds check), and the answers become
/// bits by [`bits_where`]: a bounds-checked lookup per key inside Arrow's
/// `collect_bool` was 13 % of a filtered read whose two predicate columns
/// are read as keys.
fn key_answers(on_values: &BooleanBuffer, keys: &[i32]) -> BooleanBuffer {
    if on_values.len() <= 64 {
        // Entry 64 answers for every key past the entries.
        let mut table = [0u8; 65];
        for (t, a) in table.iter_mut().zip(on_values.iter()) {
            *t = u8::from(a);
        }
        answers(keys, |k| table[(k as u32 as usize).min(64)] != 0)
    } else {
        let table: Vec<u8> = on_values.iter().map(u8::from).collect();
        answers(keys, |k| table.get(k as u32 as usize) == Some(&1))
    }
}

/// `batch` with just the fields of `schema`: columns read only for the
/// predicate are dropped, and structs widened by a predicate's field lose
/// it again.
pub(crate) fn project_to(
    batch: &RecordBatch,
    schema: &arrow_schema::SchemaRef,
) -> Result<RecordBatch> {
    let columns = schema
        .fields()
        .iter()
        .map(|f| {
            let array = batch
                .column_by_name(f.name())
                .ok_or_else(|| Error::Request {
                    message: format!("the batch has no column {}", f.name()),
                })?;
            narrow(array, f.data_type())
        })
        .collect::<Result<Vec<_>>>()?;
    RecordBatch::try_new_with_options(
        schema.clone(),
        columns,
        &arrow_array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
    )
    .map_err(arrow_err)
}

/// `array` as type `to`, a struct keeping only the fields `to` has.
fn narrow(array: &ArrayRef, to: &DataType) -> Result<ArrayRef> {
    if array.data_type() == to {
        return Ok(array.clone());
    }
    let (DataType::Struct(fields), Some(s)) = (to, array.as_struct_opt()) else {
        return Err(Error::Request {
            message: format!(
                "a column of type {} cannot be read as {to}",
                array.data_type()
            ),
        });
    };
    let children = fields
        .iter()
        .map(|f| {
            let c = s.column_by_name(f.name()).ok_or_else(|| Error::Request {
                message: format!("the struct has no field {}", f.name()),
            })?;
            narrow(c, f.data_type())
        })
        .collect::<Result<Vec<_>>>()?;
    let out = arrow_array::StructArray::try_new(fields.clone(), children, s.nulls().cloned())
        .map_err(arrow_err)?;
    Ok(Arc::new(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_answers_look_up_each_entry() {
        // Tables of 1 to 64 entries (one word) and past 64 (a byte each);
        // keys at, inside and past the entries, negative ones included.
        for entries in [1usize, 7, 63, 64, 65, 200] {
            let answers: Vec<bool> = (0..entries).map(|e| e % 3 != 1).collect();
            let on_values = BooleanBuffer::from(answers.clone());
            let keys: Vec<i32> = (0..300)
                .map(|i| match i % 11 {
                    0 => entries as i32,
                    1 => -1,
                    2 => 64,
                    _ => (i * 7 % entries) as i32,
                })
                .collect();
            let got = key_answers(&on_values, &keys);
            let want: Vec<bool> = keys
                .iter()
                .map(|&k| {
                    usize::try_from(k)
                        .ok()
                        .and_then(|k| answers.get(k).copied())
                        == Some(true)
                })
                .collect();
            assert_eq!(got.iter().collect::<Vec<_>>(), want, "{entries} entries");
        }
    }

    fn xorshift() -> impl FnMut() -> u64 {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    /// Int64, Date32 and Decimal128 arrays of `n + 3` small values with
    /// nulls, each with literals of its type at, inside and beside them.
    fn sample_arrays(n: usize, next: &mut impl FnMut() -> u64) -> Vec<(ArrayRef, Vec<ArrayRef>)> {
        use arrow_array::{Date32Array, Decimal128Array, Int64Array};
        let raw: Vec<i64> = (0..n + 3).map(|_| (next() % 9) as i64 - 4).collect();
        let valid: Vec<bool> = (0..n + 3).map(|_| !next().is_multiple_of(5)).collect();
        let nulls = Some(NullBuffer::from(valid));
        let decimal = |v: Vec<i128>, nulls| {
            Arc::new(
                Decimal128Array::new(v.into(), nulls)
                    .with_precision_and_scale(15, 2)
                    .unwrap(),
            ) as ArrayRef
        };
        vec![
            (
                Arc::new(Int64Array::new(raw.clone().into(), nulls.clone())),
                [-5i64, 0, 2]
                    .iter()
                    .map(|&x| Arc::new(Int64Array::from(vec![x])) as ArrayRef)
                    .collect(),
            ),
            (
                Arc::new(Date32Array::new(
                    raw.iter().map(|&x| x as i32).collect(),
                    nulls.clone(),
                )),
                [0i32, 4]
                    .iter()
                    .map(|&x| Arc::new(Date32Array::from(vec![x])) as ArrayRef)
                    .collect(),
            ),
            (
                decimal(raw.iter().map(|&x| i128::from(x)).collect(), nulls),
                [-1i128, 3]
                    .iter()
                    .map(|&x| decimal(vec![x], None))
                    .collect(),
            ),
        ]
    }

    /// `a op literal` by Arrow's kernel.
    fn arrow_compare(a: &ArrayRef, op: CmpOp, literal: &ArrayRef) -> BooleanArray {
        let v = Scalar::new(literal.clone());
        match op {
            CmpOp::Eq => arrow_ord::cmp::eq(a, &v),
            CmpOp::NotEq => arrow_ord::cmp::neq(a, &v),
            CmpOp::Lt => arrow_ord::cmp::lt(a, &v),
            CmpOp::LtEq => arrow_ord::cmp::lt_eq(a, &v),
            CmpOp::Gt => arrow_ord::cmp::gt(a, &v),
            CmpOp::GtEq => arrow_ord::cmp::gt_eq(a, &v),
        }
        .unwrap()
    }

    /// The 64-at-a-time compares against Arrow's kernels: every operator,
    /// lengths around the words, nulls, a sliced array, the literal at and
    /// beside the values.
    #[test]
    fn native_compares_match_arrow() {
        let ops = [
            CmpOp::Eq,
            CmpOp::NotEq,
            CmpOp::Lt,
            CmpOp::LtEq,
            CmpOp::Gt,
            CmpOp::GtEq,
        ];
        let mut next = xorshift();
        for n in [0usize, 1, 63, 64, 65, 200] {
            for (array, literals) in sample_arrays(n, &mut next) {
                for a in [array.clone(), array.slice(3, n)] {
                    for literal in &literals {
                        for op in ops {
                            let got = compare_native(a.as_ref(), op, literal)
                                .expect("a native compare for these types");
                            let want = arrow_compare(&a, op, literal);
                            assert_eq!(got, want, "{} of {} rows, {op:?}", a.data_type(), a.len());
                        }
                    }
                }
            }
        }
    }

    /// A lower and an upper bound of one column in a conjunction, in every
    /// order and tree shape, beside a compare of another column: each
    /// bound's compare by Arrow's kernel, ANDed by Kleene's AND, whether
    /// the two are tested as one range (checked taken) or not.
    #[test]
    fn ranges_match_their_two_compares() {
        use arrow_array::Int64Array;
        let mut next = xorshift();
        let cmp = |column, op, value: &ArrayRef| Bound::Compare {
            column,
            op,
            value: value.clone(),
        };
        let and = |a: &Bound, b: &Bound| Bound::And(Box::new(a.clone()), Box::new(b.clone()));
        let three: ArrayRef = Arc::new(Int64Array::from(vec![3i64]));
        for n in [0usize, 1, 63, 64, 65, 200] {
            for (array, literals) in sample_arrays(n, &mut next) {
                for a in [array.clone(), array.slice(3, n)] {
                    let other: ArrayRef = Arc::new(Int64Array::from_iter(
                        (0..a.len() as i64).map(|i| (i % 3 != 0).then_some(i % 5)),
                    ));
                    let columns = vec![a.clone(), other.clone()];
                    let o = cmp(1, CmpOp::Lt, &three);
                    let other_answer = arrow_compare(&other, CmpOp::Lt, &three);
                    for lo in &literals {
                        for hi in &literals {
                            for lo_op in [CmpOp::Gt, CmpOp::GtEq] {
                                for hi_op in [CmpOp::Lt, CmpOp::LtEq] {
                                    let both = and_kleene(
                                        &arrow_compare(&a, lo_op, lo),
                                        &arrow_compare(&a, hi_op, hi),
                                    )
                                    .unwrap();
                                    let range = range_native(a.as_ref(), (lo_op, lo), (hi_op, hi))
                                        .expect("a range for these types");
                                    assert_eq!(
                                        range,
                                        both,
                                        "{} {lo_op:?} {hi_op:?}",
                                        a.data_type()
                                    );
                                    let want = and_kleene(&both, &other_answer).unwrap();
                                    let (l, h) = (cmp(0, lo_op, lo), cmp(0, hi_op, hi));
                                    for tree in [
                                        and(&and(&l, &h), &o),
                                        and(&and(&h, &o), &l),
                                        and(&l, &and(&o, &h)),
                                        and(&o, &and(&h, &l)),
                                        and(&l, &h),
                                    ] {
                                        let got = eval(&tree, &columns).unwrap();
                                        let want =
                                            if tree_has_other(&tree) { &want } else { &both };
                                        assert_eq!(&got, want, "{tree:?}");
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    fn tree_has_other(tree: &Bound) -> bool {
        match tree {
            Bound::And(a, b) => tree_has_other(a) || tree_has_other(b),
            Bound::Compare { column, .. } => *column == 1,
            _ => false,
        }
    }
}
