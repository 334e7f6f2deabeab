//! [`PqSource`], the `FileSource` of a pq scan: what to read (projection,
//! filters, batch size) for each partition's files.

use std::fmt::{self, Formatter};
use std::sync::Arc;

use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::datasource::physical_plan::{FileOpener, FileScanConfig, FileSource};
use datafusion::datasource::projection::{ProjectionOpener, SplitProjection};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::error::Result;
use datafusion::physical_expr::projection::ProjectionExprs;
use datafusion::physical_expr::{PhysicalExpr, conjunction};
use datafusion::physical_plan::filter_pushdown::{FilterPushdownPropagation, PushedDown};
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use datafusion::physical_plan::{DisplayFormatType, ExecutionPlan, apply_expression_roots};
use object_store::ObjectStore;

use crate::decimal_arith;
use crate::filter::to_exact_predicate;
use crate::footers::FooterCache;
use crate::format::PqOptions;
use crate::opener::PqOpener;

/// A scan of Parquet files by pq, as DataFusion plans it: made by
/// [`PqFormat`](crate::PqFormat), given a projection and filters by
/// DataFusion's optimizer.
#[derive(Clone)]
pub struct PqSource {
    table_schema: TableSchema,
    options: PqOptions,
    footers: FooterCache,
    projection: SplitProjection,
    filter: Option<Arc<dyn PhysicalExpr>>,
    /// The filters reported as pushed down exactly (a part of `filter`).
    exact_filter: Option<Arc<dyn PhysicalExpr>>,
    batch_size: Option<usize>,
    metrics: ExecutionPlanMetricsSet,
}

impl PqSource {
    pub(crate) fn new(table_schema: TableSchema, options: PqOptions, footers: FooterCache) -> Self {
        PqSource {
            projection: SplitProjection::unprojected(&table_schema),
            table_schema,
            options,
            footers,
            filter: None,
            exact_filter: None,
            batch_size: None,
            metrics: ExecutionPlanMetricsSet::new(),
        }
    }

    /// The options pq reads with.
    #[cfg(feature = "ballista")]
    pub(crate) fn options(&self) -> &PqOptions {
        &self.options
    }

    /// The filter given to pq, if any.
    #[cfg(feature = "ballista")]
    pub(crate) fn filter_expr(&self) -> Option<&Arc<dyn PhysicalExpr>> {
        self.filter.as_ref()
    }

    /// The filters pushed down exactly, if any.
    #[cfg(feature = "ballista")]
    pub(crate) fn exact_filter_expr(&self) -> Option<&Arc<dyn PhysicalExpr>> {
        self.exact_filter.as_ref()
    }

    /// The batch size DataFusion asked for, if it did.
    #[cfg(feature = "ballista")]
    pub(crate) fn batch_size(&self) -> Option<usize> {
        self.batch_size
    }

    /// The source with a filter and batch size already decided (a scan
    /// rebuilt from a serialized plan).
    #[cfg(feature = "ballista")]
    pub(crate) fn with_parts(
        self,
        filter: Option<Arc<dyn PhysicalExpr>>,
        exact_filter: Option<Arc<dyn PhysicalExpr>>,
        batch_size: Option<usize>,
    ) -> Self {
        PqSource {
            filter,
            exact_filter,
            batch_size,
            ..self
        }
    }
}

impl FileSource for PqSource {
    fn create_file_opener(
        &self,
        object_store: Arc<dyn ObjectStore>,
        base_config: &FileScanConfig,
        _partition: usize,
    ) -> Result<Arc<dyn FileOpener>> {
        let file_schema = Arc::clone(self.table_schema.file_schema());
        // Decimal arithmetic pushed into the scan is evaluated by pq's
        // kernels where they apply (`decimal_arith`); what the plan shows and
        // serializes stays DataFusion's expressions.
        let projection =
            decimal_arith::rewrite(&self.projection.source, self.table_schema.table_schema())?;
        let projection = SplitProjection::new(&file_schema, &projection);
        let opener = Arc::new(PqOpener {
            store: object_store,
            footers: self.footers.clone(),
            options: self.options.clone(),
            table_file_schema: Arc::clone(&file_schema),
            columns: projection.file_indices.clone(),
            filter: self.filter.clone(),
            exact_filter: self.exact_filter.clone(),
            batch_size: self.batch_size.unwrap_or(8192),
            limit: base_config.limit,
        });
        ProjectionOpener::try_new(projection, opener, &file_schema)
    }

    fn table_schema(&self) -> &TableSchema {
        &self.table_schema
    }

    fn with_batch_size(&self, batch_size: usize) -> Arc<dyn FileSource> {
        Arc::new(PqSource {
            batch_size: Some(batch_size),
            ..self.clone()
        })
    }

    fn filter(&self) -> Option<Arc<dyn PhysicalExpr>> {
        self.filter.clone()
    }

    fn projection(&self) -> Option<&ProjectionExprs> {
        Some(&self.projection.source)
    }

    fn metrics(&self) -> &ExecutionPlanMetricsSet {
        &self.metrics
    }

    fn file_type(&self) -> &str {
        "pq"
    }

    fn fmt_extra(&self, t: DisplayFormatType, f: &mut Formatter) -> fmt::Result {
        if let (DisplayFormatType::Default | DisplayFormatType::Verbose, Some(filter)) =
            (t, &self.filter)
        {
            write!(f, ", predicate={filter}")?;
        }
        Ok(())
    }

    /// Every filter is kept for pq (pruning and row filtering, where it
    /// translates). One that translates into a pq predicate exactly, on
    /// the table's columns, is reported as pushed down (DataFusion then
    /// drops its own filter for it): pq returns exactly the rows that
    /// satisfy it, and a file where it does not translate so (one without
    /// one of its columns, say) has it evaluated by DataFusion's
    /// expression in the scan itself. The others are reported as not
    /// pushed down, so that DataFusion still evaluates them: pq's part of
    /// those is an optimisation, never the answer.
    fn try_pushdown_filters(
        &self,
        filters: Vec<Arc<dyn PhysicalExpr>>,
        _config: &ConfigOptions,
    ) -> Result<FilterPushdownPropagation<Arc<dyn FileSource>>> {
        if !self.options.pushdown || filters.is_empty() {
            return Ok(FilterPushdownPropagation::with_parent_pushdown_result(
                vec![PushedDown::No; filters.len()],
            ));
        }
        let columns = self.table_schema.file_schema();
        let exact: Vec<bool> = filters
            .iter()
            .map(|f| to_exact_predicate(f, columns, columns).is_some())
            .collect();
        let verdicts = exact
            .iter()
            .map(|&e| if e { PushedDown::Yes } else { PushedDown::No })
            .collect();
        let exact_filters = filters
            .iter()
            .zip(&exact)
            .filter(|(_, e)| **e)
            .map(|(f, _)| Arc::clone(f));
        let exact_all: Vec<_> = self
            .exact_filter
            .iter()
            .cloned()
            .chain(exact_filters)
            .collect();
        let all = self.filter.iter().cloned().chain(filters);
        let source = PqSource {
            filter: Some(conjunction(all)),
            exact_filter: (!exact_all.is_empty()).then(|| conjunction(exact_all)),
            ..self.clone()
        };
        Ok(
            FilterPushdownPropagation::with_parent_pushdown_result(verdicts)
                .with_updated_node(Arc::new(source) as Arc<dyn FileSource>),
        )
    }

    fn try_pushdown_projection(
        &self,
        projection: &ProjectionExprs,
    ) -> Result<Option<Arc<dyn FileSource>>> {
        let merged = self.projection.source.try_merge(projection)?;
        Ok(Some(Arc::new(PqSource {
            projection: SplitProjection::new(self.table_schema.file_schema(), &merged),
            ..self.clone()
        })))
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        if let Some(filter) = &self.filter
            && f(filter)? == TreeNodeRecursion::Stop
        {
            return Ok(TreeNodeRecursion::Stop);
        }
        apply_expression_roots(self.projection.source.iter(), f)
    }
}

/// The pq scan `plan` is, if it is one: its configuration and source.
pub(crate) fn pq_scan(plan: &dyn ExecutionPlan) -> Option<(&FileScanConfig, &PqSource)> {
    let config = plan
        .downcast_ref::<DataSourceExec>()?
        .data_source()
        .downcast_ref::<FileScanConfig>()?;
    let source = config.file_source().downcast_ref::<PqSource>()?;
    Some((config, source))
}
