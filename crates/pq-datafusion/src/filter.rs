//! DataFusion's physical filter expressions as pq predicates.
//!
//! Only what means the same on both sides is translated: a column of the
//! file compared with a literal of exactly the column's Arrow type (after
//! DataFusion's type coercion that is the usual shape), `IN` lists of such
//! literals, `IS [NOT] NULL`, `LIKE` (case-sensitive), and `AND`/`OR`/`NOT`
//! of those. Anything else (casts, arithmetic, functions, columns compared
//! with columns) is left to DataFusion. Under an `AND` an untranslatable
//! side is dropped, which only widens what the predicate keeps; under `OR`
//! and `NOT` the whole expression must translate.

use std::sync::Arc;

use arrow_schema::{DataType, Schema, TimeUnit};
use datafusion::logical_expr::Operator;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::expressions::{
    BinaryExpr, Column, InListExpr, IsNotNullExpr, IsNullExpr, LikeExpr, Literal as DfLiteral,
    NotExpr,
};
use datafusion::scalar::ScalarValue;
use pq_arrow::predicate::{CmpOp, ColumnPath, Literal, Predicate};

use crate::format::reads_as;

/// The pq predicate that keeps at least the rows `filter` keeps, for a
/// file read as `file_schema`; `table_schema` is the schema the filter's
/// column indices refer to. `None` when no part of it translates.
///
/// ```
/// use std::sync::Arc;
/// use arrow_schema::{DataType, Field, Schema};
/// use datafusion::logical_expr::Operator;
/// use datafusion::physical_expr::expressions::{BinaryExpr, Column, Literal};
/// use datafusion::scalar::ScalarValue;
///
/// let schema = Schema::new(vec![Field::new("x", DataType::Int64, true)]);
/// let filter = Arc::new(BinaryExpr::new(
///     Arc::new(Column::new("x", 0)),
///     Operator::Lt,
///     Arc::new(Literal::new(ScalarValue::Int64(Some(5)))),
/// ));
/// let p = pq_datafusion::to_predicate(&(filter as _), &schema, &schema).unwrap();
/// assert_eq!(p.to_string(), "x < 5");
/// ```
pub fn to_predicate(
    filter: &Arc<dyn PhysicalExpr>,
    table_schema: &Schema,
    file_schema: &Schema,
) -> Option<Predicate> {
    Translator::new(table_schema, file_schema).widened(filter)
}

/// The pq predicate that keeps exactly the rows `filter` keeps (in SQL's
/// `WHERE` sense: a null is not kept), for a file read as `file_schema`;
/// `None` unless all of it translates. A filter that translates so can be
/// left to pq alone.
pub(crate) fn to_exact_predicate(
    filter: &Arc<dyn PhysicalExpr>,
    table_schema: &Schema,
    file_schema: &Schema,
) -> Option<Predicate> {
    Translator::new(table_schema, file_schema).exact(filter)
}

struct Translator<'a> {
    table_schema: &'a Schema,
    file_schema: &'a Schema,
}

impl<'a> Translator<'a> {
    fn new(table_schema: &'a Schema, file_schema: &'a Schema) -> Self {
        Translator {
            table_schema,
            file_schema,
        }
    }

    /// A predicate that keeps at least the rows `e` keeps.
    fn widened(&self, e: &Arc<dyn PhysicalExpr>) -> Option<Predicate> {
        if let Some(b) = e.downcast_ref::<BinaryExpr>()
            && *b.op() == Operator::And
        {
            return match (self.widened(b.left()), self.widened(b.right())) {
                (Some(l), Some(r)) => Some(l.and(r)),
                (one, other) => one.or(other),
            };
        }
        self.exact(e)
    }

    /// A predicate that keeps exactly the rows `e` keeps.
    fn exact(&self, e: &Arc<dyn PhysicalExpr>) -> Option<Predicate> {
        if let Some(b) = e.downcast_ref::<BinaryExpr>() {
            return match b.op() {
                Operator::And => Some(self.exact(b.left())?.and(self.exact(b.right())?)),
                Operator::Or => Some(self.exact(b.left())?.or(self.exact(b.right())?)),
                op => {
                    let op = cmp_op(op)?;
                    if let (Some((path, dt)), Some(v)) = (self.column(b.left()), literal(b.right()))
                    {
                        return compare(path, op, v, &dt);
                    }
                    let (path, dt) = self.column(b.right())?;
                    compare(path, op.flip(), literal(b.left())?, &dt)
                }
            };
        }
        if let Some(n) = e.downcast_ref::<NotExpr>() {
            return Some(self.exact(n.arg())?.not());
        }
        if let Some(n) = e.downcast_ref::<IsNullExpr>() {
            let (column, _) = self.column(n.arg())?;
            return Some(Predicate::IsNull {
                column,
                negated: false,
            });
        }
        if let Some(n) = e.downcast_ref::<IsNotNullExpr>() {
            let (column, _) = self.column(n.arg())?;
            return Some(Predicate::IsNull {
                column,
                negated: true,
            });
        }
        if let Some(l) = e.downcast_ref::<InListExpr>() {
            let (column, dt) = self.column(l.expr())?;
            let values = l
                .list()
                .iter()
                .map(|v| pq_literal(literal(v)?, &dt))
                .collect::<Option<Vec<_>>>()?;
            return Some(Predicate::InList {
                column,
                values,
                negated: l.negated(),
            });
        }
        if let Some(l) = e.downcast_ref::<LikeExpr>() {
            if l.case_insensitive() {
                return None;
            }
            let (column, dt) = self.column(l.expr())?;
            if !matches!(
                dt,
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
            ) {
                return None;
            }
            let pattern = match literal(l.pattern())? {
                ScalarValue::Utf8(Some(p))
                | ScalarValue::LargeUtf8(Some(p))
                | ScalarValue::Utf8View(Some(p)) => p.clone(),
                _ => return None,
            };
            return Some(Predicate::Like {
                column,
                pattern,
                negated: l.negated(),
            });
        }
        None
    }

    /// The file column `e` names, with the type its values are compared
    /// in, when it is a top-level column of a non-nested type that the
    /// table and the file give the same type, or that the table reads as
    /// views of the file's strings (DataFusion's `schema_force_view_types`;
    /// pq reads them so, and a literal has the table's type).
    fn column(&self, e: &Arc<dyn PhysicalExpr>) -> Option<(ColumnPath, DataType)> {
        let c = e.downcast_ref::<Column>()?;
        let table_field = self.table_schema.fields().get(c.index())?;
        if table_field.name() != c.name() {
            return None;
        }
        let (_, file_field) = self.file_schema.column_with_name(c.name())?;
        let dt = file_field.data_type();
        let value_type = match dt {
            DataType::Dictionary(_, v) => v.as_ref(),
            other => other,
        };
        if value_type.is_nested() || !reads_as(dt, table_field.data_type()) {
            return None;
        }
        // A view column's literals have the view type.
        let value_type = if table_field.data_type() == dt {
            value_type
        } else {
            table_field.data_type()
        };
        Some((
            ColumnPath::from(vec![c.name().to_owned()]),
            value_type.clone(),
        ))
    }
}

fn literal(e: &Arc<dyn PhysicalExpr>) -> Option<&ScalarValue> {
    e.downcast_ref::<DfLiteral>().map(DfLiteral::value)
}

fn cmp_op(op: &Operator) -> Option<CmpOp> {
    Some(match op {
        Operator::Eq => CmpOp::Eq,
        Operator::NotEq => CmpOp::NotEq,
        Operator::Lt => CmpOp::Lt,
        Operator::LtEq => CmpOp::LtEq,
        Operator::Gt => CmpOp::Gt,
        Operator::GtEq => CmpOp::GtEq,
        _ => return None,
    })
}

fn compare(column: ColumnPath, op: CmpOp, value: &ScalarValue, dt: &DataType) -> Option<Predicate> {
    Some(Predicate::Compare {
        column,
        op,
        value: pq_literal(value, dt)?,
    })
}

/// `v` as a pq literal, when it is a non-null value of exactly type `dt`
/// (so that binding it to the column changes nothing).
fn pq_literal(v: &ScalarValue, dt: &DataType) -> Option<Literal> {
    let value_type = match v.data_type() {
        DataType::Dictionary(_, v) => *v,
        other => other,
    };
    if value_type != *dt {
        return None;
    }
    let v = match v {
        ScalarValue::Dictionary(_, inner) => inner.as_ref(),
        other => other,
    };
    Some(match v {
        ScalarValue::Boolean(Some(b)) => Literal::Boolean(*b),
        ScalarValue::Int8(Some(x)) => Literal::Int((*x).into()),
        ScalarValue::Int16(Some(x)) => Literal::Int((*x).into()),
        ScalarValue::Int32(Some(x)) => Literal::Int((*x).into()),
        ScalarValue::Int64(Some(x)) => Literal::Int((*x).into()),
        ScalarValue::UInt8(Some(x)) => Literal::Int((*x).into()),
        ScalarValue::UInt16(Some(x)) => Literal::Int((*x).into()),
        ScalarValue::UInt32(Some(x)) => Literal::Int((*x).into()),
        ScalarValue::UInt64(Some(x)) => Literal::Int((*x).into()),
        // NaN and the two zeros compare differently under SQL and under
        // Arrow's total order: left to DataFusion.
        ScalarValue::Float32(Some(x)) if x.is_finite() && *x != 0.0 => Literal::Float((*x).into()),
        ScalarValue::Float64(Some(x)) if x.is_finite() && *x != 0.0 => Literal::Float(*x),
        ScalarValue::Utf8(Some(s))
        | ScalarValue::LargeUtf8(Some(s))
        | ScalarValue::Utf8View(Some(s)) => Literal::String(s.clone()),
        ScalarValue::Date32(Some(d)) => Literal::Date(*d),
        ScalarValue::Decimal128(Some(digits), _, scale) => Literal::Decimal {
            digits: *digits,
            scale: u8::try_from(*scale).ok()?,
        },
        ScalarValue::Decimal64(Some(digits), _, scale) => Literal::Decimal {
            digits: (*digits).into(),
            scale: u8::try_from(*scale).ok()?,
        },
        ScalarValue::Decimal32(Some(digits), _, scale) => Literal::Decimal {
            digits: (*digits).into(),
            scale: u8::try_from(*scale).ok()?,
        },
        ScalarValue::TimestampSecond(Some(t), tz) => timestamp(*t, TimeUnit::Second, tz.is_some()),
        ScalarValue::TimestampMillisecond(Some(t), tz) => {
            timestamp(*t, TimeUnit::Millisecond, tz.is_some())
        }
        ScalarValue::TimestampMicrosecond(Some(t), tz) => {
            timestamp(*t, TimeUnit::Microsecond, tz.is_some())
        }
        ScalarValue::TimestampNanosecond(Some(t), tz) => {
            timestamp(*t, TimeUnit::Nanosecond, tz.is_some())
        }
        _ => return None,
    })
}

fn timestamp(value: i64, unit: TimeUnit, utc: bool) -> Literal {
    let per = match unit {
        TimeUnit::Second => 1_000_000_000,
        TimeUnit::Millisecond => 1_000_000,
        TimeUnit::Microsecond => 1_000,
        TimeUnit::Nanosecond => 1,
    };
    Literal::Timestamp {
        nanos: i128::from(value) * per,
        utc,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_schema::Field;
    use datafusion::physical_expr::expressions::{in_list, lit};

    fn schema() -> Schema {
        Schema::new(vec![
            Field::new("a", DataType::Int32, true),
            Field::new("s", DataType::Utf8, true),
            Field::new("f", DataType::Float64, true),
        ])
    }

    fn col(name: &str, i: usize) -> Arc<dyn PhysicalExpr> {
        Arc::new(Column::new(name, i))
    }

    fn bin(
        l: Arc<dyn PhysicalExpr>,
        op: Operator,
        r: Arc<dyn PhysicalExpr>,
    ) -> Arc<dyn PhysicalExpr> {
        Arc::new(BinaryExpr::new(l, op, r))
    }

    fn text(e: &Arc<dyn PhysicalExpr>) -> Option<String> {
        to_predicate(e, &schema(), &schema()).map(|p| p.to_string())
    }

    #[test]
    fn comparisons_either_way_round() {
        let e = bin(
            col("a", 0),
            Operator::GtEq,
            lit(ScalarValue::Int32(Some(3))),
        );
        assert_eq!(text(&e).as_deref(), Some("a >= 3"));
        let e = bin(lit(ScalarValue::Int32(Some(3))), Operator::Lt, col("a", 0));
        assert_eq!(text(&e).as_deref(), Some("a > 3"));
    }

    #[test]
    fn literals_of_another_type_stay_in_datafusion() {
        let e = bin(col("a", 0), Operator::Eq, lit(ScalarValue::Int64(Some(3))));
        assert_eq!(text(&e), None);
        let e = bin(
            col("f", 2),
            Operator::Eq,
            lit(ScalarValue::Float64(Some(0.0))),
        );
        assert_eq!(text(&e), None, "zero has two signs");
    }

    #[test]
    fn and_drops_what_it_cannot_translate_but_or_and_not_do_not() {
        let good = bin(col("a", 0), Operator::Eq, lit(ScalarValue::Int32(Some(1))));
        let bad = bin(col("a", 0), Operator::Eq, col("a", 0));
        assert_eq!(
            text(&bin(good.clone(), Operator::And, bad.clone())).as_deref(),
            Some("a = 1")
        );
        assert_eq!(text(&bin(good.clone(), Operator::Or, bad.clone())), None);
        let not: Arc<dyn PhysicalExpr> =
            Arc::new(NotExpr::new(bin(good.clone(), Operator::And, bad)));
        assert_eq!(text(&not), None);
    }

    #[test]
    fn in_lists_nulls_and_like() {
        let s = schema();
        let e = in_list(col("s", 1), vec![lit("x"), lit("y")], &true, &s)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(text(&e).as_deref(), Some("s NOT IN ('x', 'y')"));
        let e: Arc<dyn PhysicalExpr> = Arc::new(IsNullExpr::new(col("a", 0)));
        assert_eq!(text(&e).as_deref(), Some("a IS NULL"));
        let e: Arc<dyn PhysicalExpr> =
            Arc::new(LikeExpr::new(false, false, col("s", 1), lit("ab%")));
        assert_eq!(text(&e).as_deref(), Some("s LIKE 'ab%'"));
        let e: Arc<dyn PhysicalExpr> =
            Arc::new(LikeExpr::new(false, true, col("s", 1), lit("ab%")));
        assert_eq!(text(&e), None, "ILIKE");
    }

    #[test]
    fn a_column_missing_from_the_file_is_not_translated() {
        let file = Schema::new(vec![Field::new("s", DataType::Utf8, true)]);
        let e = bin(col("a", 0), Operator::Eq, lit(ScalarValue::Int32(Some(1))));
        assert!(to_predicate(&e, &schema(), &file).is_none());
    }
}
