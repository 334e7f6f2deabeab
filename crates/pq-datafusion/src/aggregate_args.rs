//! Decimal arithmetic in an aggregate's arguments, moved below the
//! aggregate so that pq's scan computes it.
//!
//! DataFusion evaluates an aggregate's arguments inside its aggregate
//! operator, with arrow's kernels: in TPC-H Q1, `sum(l_extendedprice * (1 -
//! l_discount) * (1 + l_tax))` spends a checked 128-bit operation per value
//! and side there (see [`crate::decimal_arith`]). An expression in a
//! projection below the aggregate, on the other hand, is pushed into the
//! scan by DataFusion's projection pushdown, where pq computes decimal `+`,
//! `-` and `*` without those checks. [`AggregateArgsToScan`] is the logical
//! optimizer rule that moves them: for an aggregate over a pq table (through
//! projections and filters only, so that the projection reaches the scan),
//! each argument, or largest part of one, that is decimal `+`, `-` or `*`
//! with no volatile part and uses only columns the projection below passes
//! on becomes a column of that projection, and the aggregate takes the
//! column, keeping its output's name. What is computed
//! is the same expression over the same rows; aggregates with a `FILTER` or
//! an `ORDER BY` of their own are left as they are. Over other tables the
//! rule changes nothing: there the projection would cost what the
//! aggregate's evaluation costs.

use std::sync::Arc;

use arrow_schema::DataType;
use datafusion::catalog::TableProvider;
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{Column, DFSchema, Result};
use datafusion::datasource::listing::ListingTable;
use datafusion::datasource::source_as_provider;
use datafusion::logical_expr::expr::AggregateFunction;
use datafusion::logical_expr::{
    Aggregate, BinaryExpr, Expr, ExprSchemable, LogicalPlan, Projection,
};
use datafusion::optimizer::optimizer::ApplyOrder;
use datafusion::optimizer::{OptimizerConfig, OptimizerRule};

use crate::decimal_arith::ArithOp;
use crate::format::PqFormat;
use crate::table::PqTable;

/// The prefix of the columns the rule adds.
const PREFIX: &str = "__pq_aggregate_arg";

/// The logical optimizer rule (see the module's documentation); installed
/// by [`crate::SessionContextExt`]'s methods.
#[derive(Debug, Default)]
pub(crate) struct AggregateArgsToScan;

impl AggregateArgsToScan {
    /// The rule's name, by which a session is seen to have it.
    pub(crate) const NAME: &'static str = "pq_aggregate_args_to_scan";
}

impl OptimizerRule for AggregateArgsToScan {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn apply_order(&self) -> Option<ApplyOrder> {
        Some(ApplyOrder::TopDown)
    }

    fn rewrite(
        &self,
        plan: LogicalPlan,
        config: &dyn OptimizerConfig,
    ) -> Result<Transformed<LogicalPlan>> {
        let LogicalPlan::Aggregate(agg) = plan else {
            return Ok(Transformed::no(plan));
        };
        if !reads_pq(&agg.input) {
            return Ok(Transformed::no(LogicalPlan::Aggregate(agg)));
        }
        let input_schema = agg.input.schema();
        // Each moved expression once, with the column that stands for it
        // (`sum(x * y)` and `avg(x * y)` share one).
        let mut moved: Vec<(Expr, String)> = Vec::new();
        let mut aggr_expr = Vec::with_capacity(agg.aggr_expr.len());
        for e in &agg.aggr_expr {
            let (inner, relation, name) = match e {
                Expr::Alias(a) => (a.expr.as_ref(), a.relation.clone(), a.name.clone()),
                other => (other, None, other.schema_name().to_string()),
            };
            let Expr::AggregateFunction(f) = inner else {
                aggr_expr.push(e.clone());
                continue;
            };
            if f.params.filter.is_some() || !f.params.order_by.is_empty() {
                aggr_expr.push(e.clone());
                continue;
            }
            let mut args = Vec::with_capacity(f.params.args.len());
            let mut changed = false;
            for arg in &f.params.args {
                // The largest parts the scan can compute: the whole
                // argument, or parts of it (in Q1, `1 + l_tax` of
                // `__common_expr_1 * (1 + l_tax)`, whose other side the
                // projection below already computes).
                let arg = arg.clone().transform_down(|node| {
                    if !(computed_by_scan(&node, input_schema)
                        && reads_columns_only(&node, &agg.input))
                    {
                        return Ok(Transformed::no(node));
                    }
                    let alias = match moved.iter().find(|(m, _)| *m == node) {
                        Some((_, alias)) => alias.clone(),
                        None => {
                            let alias = config.alias_generator().next(PREFIX);
                            moved.push((node, alias.clone()));
                            alias
                        }
                    };
                    let column = Expr::Column(Column::from_name(alias));
                    Ok(Transformed::new(column, true, TreeNodeRecursion::Jump))
                })?;
                changed |= arg.transformed;
                args.push(arg.data);
            }
            if changed {
                let mut f: AggregateFunction = f.clone();
                f.params.args = args;
                // The output keeps the name the plan above refers to.
                aggr_expr.push(Expr::AggregateFunction(f).alias_qualified(relation, name));
            } else {
                aggr_expr.push(e.clone());
            }
        }
        if moved.is_empty() {
            return Ok(Transformed::no(LogicalPlan::Aggregate(agg)));
        }
        let input = with_columns(&agg.input, moved)?;
        let agg = Aggregate::try_new(
            Arc::new(LogicalPlan::Projection(input)),
            agg.group_expr.clone(),
            aggr_expr,
        )?;
        Ok(Transformed::yes(LogicalPlan::Aggregate(agg)))
    }
}

/// `input` with the `moved` expressions added as columns named by their
/// aliases: into `input` itself when it is a projection (each column they
/// use, one the projection passes on, see [`reads_columns_only`], named as
/// in the projection's input), since DataFusion pushes one projection into
/// the scan but not one over another whose computed columns it uses.
fn with_columns(input: &Arc<LogicalPlan>, moved: Vec<(Expr, String)>) -> Result<Projection> {
    let LogicalPlan::Projection(below) = input.as_ref() else {
        let mut exprs: Vec<Expr> = input.schema().iter().map(Expr::from).collect();
        exprs.extend(moved.into_iter().map(|(e, alias)| e.alias(alias)));
        return Projection::try_new(exprs, Arc::clone(input));
    };
    let mut exprs = below.expr.clone();
    for (e, alias) in moved {
        let inlined = e.transform(|node| {
            let Expr::Column(c) = &node else {
                return Ok(Transformed::no(node));
            };
            match definition(below, c) {
                Some(def) => Ok(Transformed::yes(def.clone().unalias())),
                None => Ok(Transformed::no(node)),
            }
        })?;
        exprs.push(inlined.data.alias(alias));
    }
    Projection::try_new(exprs, Arc::clone(&below.input))
}

/// Whether the columns `expr` uses are columns of the table where `input`
/// is a projection: a part that uses one the projection computes would
/// have to compute it again (DataFusion pushes a projection using another's
/// computed columns no further, and its CSE takes a repeated part out
/// again).
fn reads_columns_only(expr: &Expr, input: &LogicalPlan) -> bool {
    let LogicalPlan::Projection(below) = input else {
        return true;
    };
    expr.column_refs().into_iter().all(|c| {
        definition(below, c).is_some_and(|def| matches!(def.clone().unalias(), Expr::Column(_)))
    })
}

/// The expression of `projection` that makes its output column `c`.
fn definition<'a>(projection: &'a Projection, c: &Column) -> Option<&'a Expr> {
    let i = projection.schema.maybe_index_of_column(c)?;
    projection.expr.get(i)
}

/// Whether `plan` reads one pq table through projections and filters only
/// (the operators DataFusion pushes a projection through into the scan).
fn reads_pq(plan: &LogicalPlan) -> bool {
    match plan {
        LogicalPlan::Projection(p) => reads_pq(&p.input),
        LogicalPlan::Filter(f) => reads_pq(&f.input),
        LogicalPlan::SubqueryAlias(s) => reads_pq(&s.input),
        LogicalPlan::TableScan(scan) => {
            source_as_provider(&scan.source).is_ok_and(|table| is_pq(table.as_ref()))
        }
        _ => false,
    }
}

/// Whether `table` is read by pq: a [`PqTable`], or a listing table of
/// [`PqFormat`] files.
fn is_pq(table: &dyn TableProvider) -> bool {
    table.is::<PqTable>()
        || table
            .downcast_ref::<ListingTable>()
            .is_some_and(|l| l.options().format.downcast_ref::<PqFormat>().is_some())
}

/// Whether pq's scan computes `expr` faster than DataFusion's aggregate
/// would: decimal `+`, `-` or `*` of two decimals, with no volatile part
/// (evaluating it in another operator must change nothing but time).
fn computed_by_scan(expr: &Expr, schema: &DFSchema) -> bool {
    let Expr::BinaryExpr(BinaryExpr { left, op, right }) = expr else {
        return false;
    };
    let decimal = |e: &Expr| matches!(e.get_type(schema), Ok(DataType::Decimal128(_, _)));
    ArithOp::of(*op).is_some() && decimal(left) && decimal(right) && !expr.is_volatile()
}
