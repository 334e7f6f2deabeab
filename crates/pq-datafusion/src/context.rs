//! `SessionContext` methods for pq tables: `register_pq`, `read_pq`, and
//! the `STORED AS PQ` format.

use std::sync::Arc;

use arrow_schema::{DataType, SchemaRef};
use async_trait::async_trait;
use datafusion::dataframe::DataFrame;
use datafusion::datasource::listing::{ListingOptions, ListingTableUrl};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::SessionContext;

use crate::aggregate_args::AggregateArgsToScan;
use crate::aggregate_arith::AggregateArithInPlace;
use crate::format::{PqFormat, PqFormatFactory, PqOptions};
use crate::table::{PqTable, PqTableFactory};

/// How [`SessionContextExt::register_pq`] finds and reads a table's files.
#[derive(Debug, Clone)]
pub struct PqReadOptions {
    /// How pq reads them.
    pub format: PqOptions,
    /// The files a directory, prefix or glob stands for must end with this
    /// (default `.parquet`); a location naming one file is read whatever
    /// its name.
    pub file_extension: String,
    /// Hive-style partition columns (`year=2024/…`), in path order.
    pub table_partition_cols: Vec<(String, DataType)>,
    /// The table's schema, instead of merging the files' schemas.
    pub schema: Option<SchemaRef>,
}

impl Default for PqReadOptions {
    fn default() -> Self {
        PqReadOptions {
            format: PqOptions::default(),
            file_extension: ".parquet".to_owned(),
            table_partition_cols: Vec::new(),
            schema: None,
        }
    }
}

/// pq tables on a DataFusion [`SessionContext`].
#[async_trait]
pub trait SessionContextExt {
    /// Registers the Parquet files at `location` (a file, a directory, a
    /// glob such as `data/*.parquet`, or a URL of a store registered with
    /// the context's runtime) as table `name`, read by pq.
    async fn register_pq(&self, name: &str, location: &str, options: PqReadOptions) -> Result<()>;

    /// A `DataFrame` over the Parquet files at `location`, read by pq.
    async fn read_pq(&self, location: &str, options: PqReadOptions) -> Result<DataFrame>;

    /// Lets SQL name pq as a format: `CREATE EXTERNAL TABLE t STORED AS PQ
    /// LOCATION '…'` (with `OPTIONS ('pushdown' 'false', …)`, see
    /// [`PqOptions`]).
    fn register_pq_format(&self, options: PqOptions) -> Result<()>;
}

#[async_trait]
impl SessionContextExt for SessionContext {
    async fn register_pq(&self, name: &str, location: &str, options: PqReadOptions) -> Result<()> {
        add_rules(self);
        let table = pq_table(self, location, options).await?;
        self.register_table(name, Arc::new(table))?;
        Ok(())
    }

    async fn read_pq(&self, location: &str, options: PqReadOptions) -> Result<DataFrame> {
        add_rules(self);
        let table = pq_table(self, location, options).await?;
        self.read_table(Arc::new(table))
    }

    fn register_pq_format(&self, options: PqOptions) -> Result<()> {
        add_rules(self);
        let state = self.state_ref();
        let mut state = state.write();
        // `STORED AS X` finds a table factory by X, which lists the files
        // with the format registered under X.
        state.table_factories_mut().insert(
            "PQ".to_owned(),
            Arc::new(PqTableFactory::new(options.clone())),
        );
        state.register_file_format(Arc::new(PqFormatFactory::new(options)), true)
    }
}

/// Gives `ctx` pq's optimizer rules, once each: [`AggregateArgsToScan`]
/// (decimal arithmetic of aggregates over pq tables computed in the scan)
/// and [`AggregateArithInPlace`] (what of it stays in the aggregate
/// computed without a checked operation per value).
fn add_rules(ctx: &SessionContext) {
    let present = ctx
        .state_ref()
        .read()
        .optimizers()
        .iter()
        .any(|r| r.name() == AggregateArgsToScan::NAME);
    if !present {
        ctx.add_optimizer_rule(Arc::new(AggregateArgsToScan));
    }
    // A session's physical rules are fixed when its state is built (there
    // is no `add_physical_optimizer_rule`): the state is rebuilt with it.
    let state = ctx.state_ref();
    let mut state = state.write();
    let present = state
        .physical_optimizers()
        .iter()
        .any(|r| r.name() == AggregateArithInPlace::NAME);
    if !present {
        *state = SessionStateBuilder::new_from_existing(state.clone())
            .with_physical_optimizer_rule(Arc::new(AggregateArithInPlace))
            .build();
    }
}

/// `location` as a listing URL. DataFusion expands globs in local paths
/// only; in a URL (`s3://bucket/t/*.parquet`, or `file:///t/*.parquet` as
/// a plan carries a local glob) the glob is split off here the same way,
/// at the last `/` before its first `*` or `[` (a `?` starts a URL's
/// query).
pub(crate) fn table_url(location: &str) -> Result<ListingTableUrl> {
    if let Some(scheme_end) = location.find("://") {
        let rest = scheme_end + 3;
        let glob_at = location
            .get(rest..)
            .and_then(|r| r.find(['*', '[']))
            .map(|g| rest + g);
        let slash = glob_at.and_then(|g| location.get(..g)?.rfind('/'));
        if let Some(slash) = slash.filter(|&s| s >= rest) {
            let (prefix, glob) = location.split_at(slash + 1);
            let url =
                url::Url::parse(prefix).map_err(|e| DataFusionError::External(Box::new(e)))?;
            let glob =
                glob::Pattern::new(glob).map_err(|e| DataFusionError::External(Box::new(e)))?;
            return ListingTableUrl::try_new(url, Some(glob));
        }
    }
    ListingTableUrl::parse(location)
}

async fn pq_table(ctx: &SessionContext, location: &str, options: PqReadOptions) -> Result<PqTable> {
    let url = table_url(location)?;
    let extension = if url.is_collection() || location.contains(['*', '?', '[']) {
        options.file_extension.clone()
    } else {
        String::new()
    };
    let listing = ListingOptions::new(Arc::new(PqFormat::new(options.format)))
        .with_file_extension(extension)
        .with_table_partition_cols(options.table_partition_cols);
    let state = ctx.state();
    let schema = match options.schema {
        Some(schema) => schema,
        None => listing.infer_schema(&state, &url).await?,
    };
    PqTable::from_parts(vec![url], listing, schema, &ctx.runtime_env())
}

#[cfg(test)]
mod tests {
    use super::table_url;

    #[test]
    fn globs_in_urls_are_split_off() {
        let url = table_url("s3://bucket/t/part-*.parquet").unwrap();
        assert_eq!(url.as_str(), "s3://bucket/t/");
        assert_eq!(
            url.get_glob().as_ref().map(|g| g.as_str()),
            Some("part-*.parquet")
        );
        let local = table_url("file:///data/t/*.parquet").unwrap();
        assert_eq!(local.as_str(), "file:///data/t/");
        assert!(local.get_glob().is_some());
        for plain in [
            "s3://bucket/t/",
            "s3://bucket/t/a.parquet",
            "https://host/a.parquet",
        ] {
            let url = table_url(plain).unwrap();
            assert_eq!(url.as_str(), plain);
            assert!(url.get_glob().is_none(), "{plain}");
        }
        // A glob in the host is no prefix and glob.
        assert!(table_url("s3://b*/a.parquet").map_or(true, |u| u.get_glob().is_none()));
    }
}
