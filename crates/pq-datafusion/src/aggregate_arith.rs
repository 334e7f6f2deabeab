//! Decimal arithmetic left in an aggregate's arguments, evaluated by
//! [`DecimalArith`] where the aggregate reads a pq scan.
//!
//! [`crate::aggregate_args`] moves an aggregate's decimal arithmetic into
//! pq's scan where it can, but not a part that uses a column the projection
//! below computes: in TPC-H Q1, `sum(__common_expr_1 * __pq_aggregate_arg_2)`
//! multiplies two columns the scan computes, and DataFusion's aggregate
//! then spends arrow's checked 128-bit multiply on each row (3 % of the
//! query on a file written by Polars). [`AggregateArithInPlace`] is the
//! physical optimizer rule that evaluates such parts without those checks
//! where the values allow, in the aggregate itself: each decimal `+`, `-`
//! or `*` of an argument of an aggregate that takes raw rows (a partial or
//! single aggregate) over a pq scan becomes a [`DecimalArith`], which gives
//! what arrow's kernel gives (values, nulls, type, or its error). Over
//! other tables the rule changes nothing, as `aggregate_args` does not.

use std::sync::Arc;

use arrow_schema::Schema;
use datafusion::common::Result;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::physical_expr::aggregate::AggregateFunctionExpr;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::aggregates::{AggregateExec, AggregateInputMode};
use datafusion::physical_plan::filter::FilterExec;
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::repartition::RepartitionExec;

use crate::decimal_arith;
use crate::source::pq_scan;

/// The physical optimizer rule (see the module's documentation); installed
/// by [`crate::SessionContextExt`]'s methods.
#[derive(Debug, Default)]
pub(crate) struct AggregateArithInPlace;

impl AggregateArithInPlace {
    /// The rule's name, by which a session is seen to have it.
    pub(crate) const NAME: &'static str = "pq_aggregate_arith_in_place";
}

impl PhysicalOptimizerRule for AggregateArithInPlace {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|node| {
            let Some(agg) = node.downcast_ref::<AggregateExec>() else {
                return Ok(Transformed::no(node));
            };
            if agg.mode().input_mode() != AggregateInputMode::Raw || !reads_pq(agg.input()) {
                return Ok(Transformed::no(node));
            }
            let schema = agg.input_schema();
            let mut changed = false;
            let aggr_expr = agg
                .aggr_expr()
                .iter()
                .map(|f| {
                    Ok(match wrapped(f, &schema)? {
                        Some(new) => {
                            changed = true;
                            Arc::new(new)
                        }
                        None => Arc::clone(f),
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            if !changed {
                return Ok(Transformed::no(node));
            }
            let new = agg.with_new_aggr_exprs(aggr_expr);
            Ok(Transformed::yes(Arc::new(new) as Arc<dyn ExecutionPlan>))
        })
        .map(|t| t.data)
    }

    fn name(&self) -> &str {
        Self::NAME
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// `f` with the decimal arithmetic of its arguments wrapped, or `None`
/// where there was none (or DataFusion declined the new arguments).
fn wrapped(f: &AggregateFunctionExpr, schema: &Schema) -> Result<Option<AggregateFunctionExpr>> {
    let mut rewritten = false;
    let mut args = Vec::new();
    for arg in f.expressions() {
        let arg = decimal_arith::rewrite_expr(&arg, schema)?;
        rewritten |= arg.transformed;
        args.push(arg.data);
    }
    if !rewritten {
        return Ok(None);
    }
    let order_by = f.order_bys().iter().map(|s| Arc::clone(&s.expr)).collect();
    Ok(f.with_new_expressions(args, order_by))
}

/// Whether `plan` reads pq scans through operators that pass rows on
/// unchanged or narrowed (projections, filters, repartitions) only, as
/// DataFusion plans an aggregate over a table.
fn reads_pq(plan: &Arc<dyn ExecutionPlan>) -> bool {
    if pq_scan(plan.as_ref()).is_some() {
        return true;
    }
    let passes_rows_on =
        plan.is::<ProjectionExec>() || plan.is::<FilterExec>() || plan.is::<RepartitionExec>();
    passes_rows_on && matches!(plan.children().as_slice(), [child] if reads_pq(child))
}
