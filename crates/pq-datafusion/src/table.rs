//! [`PqTable`], the table a pq location is registered as, and the factory
//! that makes one for `CREATE EXTERNAL TABLE … STORED AS PQ`.
//!
//! A `PqTable` is DataFusion's `ListingTable` over [`PqFormat`] under a type
//! of its own. The listing, partition columns, statistics and scan are the
//! `ListingTable`'s; the type is there so that a plan naming the table can
//! be sent to other processes: DataFusion's plan serialization writes a
//! `ListingTable` only when its format is one of DataFusion's own, and
//! hands any other table to the extension codec, which knows a `PqTable`
//! (see the `ballista` feature).

use std::any::Any;
use std::borrow::Cow;
use std::sync::Arc;

use arrow_schema::DataType;
use arrow_schema::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::{ScanArgs, ScanResult, Session, TableProvider, TableProviderFactory};
use datafusion::common::{
    Constraints, Statistics, arrow_datafusion_err, internal_datafusion_err, plan_err,
};
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::datasource::provider::DefaultTableFactory;
use datafusion::error::Result;
use datafusion::execution::runtime_env::RuntimeEnv;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{
    CreateExternalTable, Expr, LogicalPlan, TableProviderFilterPushDown, TableType,
};
use datafusion::physical_plan::ExecutionPlan;

use crate::context::table_url;
use crate::format::{PqFormat, PqOptions};

/// Parquet files read by pq as one DataFusion table: a `ListingTable` over
/// [`PqFormat`].
///
/// [`SessionContextExt::register_pq`](crate::SessionContextExt::register_pq)
/// and `STORED AS PQ` make these; [`PqTable::new`] wraps a `ListingTable`
/// built by hand.
#[derive(Debug, Clone)]
pub struct PqTable {
    listing: ListingTable,
    options: PqOptions,
}

impl PqTable {
    /// The table `listing` describes; its format must be a [`PqFormat`].
    pub fn new(listing: ListingTable) -> Result<Self> {
        let Some(format) = listing.options().format.downcast_ref::<PqFormat>() else {
            return Err(internal_datafusion_err!(
                "a PqTable lists its files with PqFormat, not {:?}",
                listing.options().format
            ));
        };
        let options = format.options().clone();
        Ok(PqTable { listing, options })
    }

    /// The `ListingTable` behind it.
    pub fn listing(&self) -> &ListingTable {
        &self.listing
    }

    /// The options pq reads the table's files with.
    pub fn pq_options(&self) -> &PqOptions {
        &self.options
    }

    /// A table over `urls` with a known file schema (without the partition
    /// columns, which `listing` names), sharing `runtime`'s file statistics
    /// cache: what `register_pq` builds, and what a decoded plan rebuilds.
    pub(crate) fn from_parts(
        urls: Vec<ListingTableUrl>,
        listing: ListingOptions,
        file_schema: SchemaRef,
        runtime: &RuntimeEnv,
    ) -> Result<Self> {
        PqTable::new(listing_table(urls, listing, file_schema, runtime)?)
    }
}

/// The `ListingTable` over `urls` with a known file schema, sharing
/// `runtime`'s file statistics cache.
fn listing_table(
    urls: Vec<ListingTableUrl>,
    listing: ListingOptions,
    file_schema: SchemaRef,
    runtime: &RuntimeEnv,
) -> Result<ListingTable> {
    let config = ListingTableConfig::new_with_multi_paths(urls)
        .with_listing_options(listing)
        .with_schema(file_schema);
    let cache = runtime.cache_manager.get_file_statistic_cache();
    Ok(ListingTable::try_new(config)?.with_cache(cache))
}

/// Every call goes to the `ListingTable`.
#[async_trait]
impl TableProvider for PqTable {
    fn schema(&self) -> SchemaRef {
        self.listing.schema()
    }

    fn constraints(&self) -> Option<&Constraints> {
        self.listing.constraints()
    }

    fn table_type(&self) -> TableType {
        self.listing.table_type()
    }

    fn get_table_definition(&self) -> Option<&str> {
        self.listing.get_table_definition()
    }

    fn get_logical_plan(&'_ self) -> Option<Cow<'_, LogicalPlan>> {
        self.listing.get_logical_plan()
    }

    fn get_column_default(&self, column: &str) -> Option<&Expr> {
        self.listing.get_column_default(column)
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.listing.scan(state, projection, filters, limit).await
    }

    async fn scan_with_args<'a>(
        &self,
        state: &dyn Session,
        args: ScanArgs<'a>,
    ) -> Result<ScanResult> {
        self.listing.scan_with_args(state, args).await
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        self.listing.supports_filters_pushdown(filters)
    }

    fn statistics(&self) -> Option<Statistics> {
        self.listing.statistics()
    }

    async fn insert_into(
        &self,
        state: &dyn Session,
        input: Arc<dyn ExecutionPlan>,
        insert_op: InsertOp,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.listing.insert_into(state, input, insert_op).await
    }
}

/// Makes the tables of `CREATE EXTERNAL TABLE … STORED AS PQ`: DataFusion's
/// listing-table factory finds [`PqFormatFactory`](crate::PqFormatFactory)
/// under `pq`, and the table it makes is wrapped as a [`PqTable`].
///
/// DataFusion splits globs off local paths only: a location that is a URL
/// with a glob (`s3://bucket/t/*.parquet`, `file:///t/part-[01].parquet`)
/// would be taken as the name of one object. Such a table is built here
/// instead, as `register_pq` builds one: its files are those the glob
/// matches, its schema (unless the statement gives one) inferred from them.
#[derive(Debug, Default)]
pub(crate) struct PqTableFactory {
    listing: DefaultTableFactory,
    /// The session's pq options, which a statement's `OPTIONS` override.
    options: PqOptions,
}

impl PqTableFactory {
    pub(crate) fn new(options: PqOptions) -> Self {
        PqTableFactory {
            listing: DefaultTableFactory::default(),
            options,
        }
    }

    /// The table of a statement with a URL glob among its locations.
    async fn url_glob_table(
        &self,
        state: &dyn Session,
        cmd: &CreateExternalTable,
    ) -> Result<PqTable> {
        if !cmd.order_exprs.is_empty() || cmd.unbounded {
            return plan_err!(
                "STORED AS PQ over a URL with a glob takes no WITH ORDER and is not UNBOUNDED"
            );
        }
        let options = self.options.clone().with_map(&cmd.options)?;
        let urls = cmd
            .locations
            .iter()
            .map(|l| table_url(l))
            .collect::<Result<Vec<_>>>()?;
        let Some(first) = urls.first() else {
            return plan_err!("CREATE EXTERNAL TABLE requires at least one location");
        };
        let given = !cmd.schema.fields().is_empty();
        let partitions = cmd
            .table_partition_cols
            .iter()
            .map(|name| {
                // Typed by the statement's schema, else as DataFusion types
                // partition values it infers.
                let ty = if given {
                    cmd.schema
                        .inner()
                        .field_with_name(name)
                        .map_err(|e| arrow_datafusion_err!(e))?
                        .data_type()
                        .clone()
                } else {
                    DataType::Dictionary(Box::new(DataType::UInt16), Box::new(DataType::Utf8))
                };
                Ok((name.clone(), ty))
            })
            .collect::<Result<Vec<_>>>()?;
        // The glob picks the files: no extension is required of them.
        let listing = ListingOptions::new(Arc::new(PqFormat::new(options)))
            .with_file_extension("")
            .with_table_partition_cols(partitions);
        let file_schema = if given {
            let schema = cmd.schema.inner();
            let keep: Vec<usize> = (0..schema.fields().len())
                .filter(|&i| !cmd.table_partition_cols.contains(schema.field(i).name()))
                .collect();
            Arc::new(schema.project(&keep)?)
        } else {
            listing.infer_schema(state, first).await?
        };
        let table = listing_table(urls, listing, file_schema, state.runtime_env())?
            .with_constraints(cmd.constraints.clone())
            .with_column_defaults(cmd.column_defaults.clone())
            .with_definition(cmd.definition.clone());
        PqTable::new(table)
    }
}

#[async_trait]
impl TableProviderFactory for PqTableFactory {
    async fn create(
        &self,
        state: &dyn Session,
        cmd: &CreateExternalTable,
    ) -> Result<Arc<dyn TableProvider>> {
        if cmd
            .locations
            .iter()
            .any(|l| l.contains("://") && l.contains(['*', '[']))
        {
            return Ok(Arc::new(self.url_glob_table(state, cmd).await?));
        }
        let table: Arc<dyn Any + Send + Sync> = self.listing.create(state, cmd).await?;
        let listing = table.downcast::<ListingTable>().map_err(|_| {
            internal_datafusion_err!("STORED AS PQ made a table that is not a listing table")
        })?;
        Ok(Arc::new(PqTable::new(Arc::unwrap_or_clone(listing))?))
    }
}
