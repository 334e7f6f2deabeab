//! [`PqFormat`], DataFusion's `FileFormat` for Parquet read by pq, and its
//! factory for `CREATE EXTERNAL TABLE … STORED AS PQ`.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::common::{GetExt, Statistics, config_datafusion_err};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::{FileFormat, FileFormatFactory};
use datafusion::datasource::physical_plan::{FileScanConfig, FileScanConfigBuilder, FileSource};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::error::Result;
use datafusion::physical_plan::ExecutionPlan;
use futures::{StreamExt, TryStreamExt};
use object_store::{ObjectMeta, ObjectStore};

use crate::footers::FooterCache;
use crate::source::PqSource;
use crate::statistics::file_statistics;

/// `schema` with its top-level string and binary columns as views, the
/// types DataFusion's Parquet format gives them under
/// `schema_force_view_types` (nested ones keep their types there too).
pub(crate) fn with_view_types(schema: &Schema) -> Schema {
    let fields: Vec<_> = schema
        .fields()
        .iter()
        .map(|f| match view_type(f.data_type()) {
            Some(v) => Arc::new(f.as_ref().clone().with_data_type(v)),
            None => Arc::clone(f),
        })
        .collect();
    Schema::new_with_metadata(fields, schema.metadata().clone())
}

/// Whether a table column of type `table` holds a file's column of type
/// `file` as pq reads it: the same type, or the view type of the file's
/// strings or binaries (under `schema_force_view_types`).
pub(crate) fn reads_as(file: &DataType, table: &DataType) -> bool {
    file == table || view_type(file).as_ref() == Some(table)
}

/// The view type a table gives a file's string or binary column.
fn view_type(dt: &DataType) -> Option<DataType> {
    match dt {
        DataType::Utf8 | DataType::LargeUtf8 => Some(DataType::Utf8View),
        DataType::Binary | DataType::LargeBinary => Some(DataType::BinaryView),
        _ => None,
    }
}

/// How pq reads the files of a table.
///
/// As `CREATE EXTERNAL TABLE … STORED AS PQ OPTIONS (…)` keys:
/// `'pushdown' 'false'`, `'pruning' 'false'`, `'footer_prefetch' '65536'`.
#[derive(Debug, Clone)]
pub struct PqOptions {
    /// Give pq the query's filters (default true): it prunes row groups
    /// and pages with them, tests the rows of the rest and drops those
    /// that fail where that shrinks a batch by more than a tenth
    /// (DataFusion still checks every row it gets, so a filter that keeps
    /// nearly every row costs no copy in pq).
    pub pushdown: bool,
    /// With `pushdown`, let pq skip row groups and pages by statistics,
    /// Bloom filters, dictionaries and the page index (default true).
    pub pruning: bool,
    /// How pq fetches from the store: the footer's first request,
    /// merging, requests in flight, timeouts and retries (pq-arrow's
    /// defaults; `footer_prefetch` sets the footer's first request).
    pub fetch: pq_arrow::FetchOptions,
}

impl Default for PqOptions {
    fn default() -> Self {
        PqOptions {
            pushdown: true,
            pruning: true,
            fetch: pq_arrow::FetchOptions::default(),
        }
    }
}

impl PqOptions {
    /// These options with `OPTIONS (…)` keys applied; unknown keys and
    /// bad values are errors that name them.
    ///
    /// ```
    /// use std::collections::HashMap;
    /// let o = pq_datafusion::PqOptions::default()
    ///     .with_map(&HashMap::from([("pushdown".to_owned(), "false".to_owned())]))?;
    /// assert!(!o.pushdown && o.pruning);
    /// assert!(pq_datafusion::PqOptions::default()
    ///     .with_map(&HashMap::from([("pushdwn".to_owned(), "true".to_owned())]))
    ///     .is_err());
    /// # Ok::<(), datafusion::error::DataFusionError>(())
    /// ```
    pub fn with_map(self, options: &HashMap<String, String>) -> Result<PqOptions> {
        let mut o = self;
        for (key, value) in options {
            // DataFusion passes `format.`-prefixed keys through as given.
            let key = key.strip_prefix("format.").unwrap_or(key);
            let flag = || {
                value.parse::<bool>().map_err(|_| {
                    config_datafusion_err!("pq option '{key}' takes true or false, not '{value}'")
                })
            };
            match key {
                "pushdown" => o.pushdown = flag()?,
                "pruning" => o.pruning = flag()?,
                "footer_prefetch" => {
                    let bytes = value.parse().map_err(|_| {
                        config_datafusion_err!(
                            "pq option 'footer_prefetch' takes a byte count, not '{value}'"
                        )
                    })?;
                    o.fetch = o.fetch.with_footer_prefetch(bytes);
                }
                other => {
                    return Err(config_datafusion_err!(
                        "unknown pq option '{other}' (pq knows pushdown, pruning, footer_prefetch)"
                    ));
                }
            }
        }
        Ok(o)
    }
}

/// Parquet files read by pq, as a DataFusion `FileFormat` for
/// `ListingTable`s.
///
/// The extension it lists is `.parquet`. Footers read while planning
/// (schema, statistics) are kept and reused by the scans.
#[derive(Debug, Clone, Default)]
pub struct PqFormat {
    options: PqOptions,
    footers: FooterCache,
}

impl PqFormat {
    /// A format reading with `options`.
    pub fn new(options: PqOptions) -> Self {
        PqFormat {
            options,
            footers: FooterCache::default(),
        }
    }

    /// The options it reads with.
    pub fn options(&self) -> &PqOptions {
        &self.options
    }
}

/// Files whose footers are read at once while inferring a schema.
const CONCURRENT_FOOTERS: usize = 32;

#[async_trait]
impl FileFormat for PqFormat {
    fn get_ext(&self) -> String {
        "parquet".to_owned()
    }

    fn get_ext_with_compression(&self, compression: &FileCompressionType) -> Result<String> {
        if compression.is_compressed() {
            return Err(config_datafusion_err!(
                "Parquet files are compressed inside; a compressed Parquet file is not read"
            ));
        }
        Ok(self.get_ext())
    }

    /// Uncompressed as a whole file: with it `CREATE EXTERNAL TABLE … STORED
    /// AS PQ` over a directory lists `*.parquet` (the extension of
    /// [`get_ext_with_compression`](Self::get_ext_with_compression)), not
    /// `*.pq`.
    fn compression_type(&self) -> Option<FileCompressionType> {
        Some(FileCompressionType::UNCOMPRESSED)
    }

    /// The files' schemas merged by name (in the order of the files as
    /// listed): a column in some files only is nullable in the table, and
    /// types that differ between files are an error naming the column.
    /// With the session's `datafusion.execution.parquet.schema_force_view_types`
    /// (DataFusion's default), string and binary columns are `Utf8View` and
    /// `BinaryView`, as DataFusion's own Parquet format gives them; pq
    /// reads them so (`with_view_types`), not cast afterwards.
    async fn infer_schema(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        let schemas: Vec<(ObjectMeta, Schema)> = futures::stream::iter(objects.iter().cloned())
            .map(|meta| async move {
                let footer = self.footers.get(store, &meta, &self.options.fetch).await?;
                // A schema's own metadata (writer details, the Arrow schema
                // hint) differs between files and says nothing of the
                // columns.
                let schema = Schema::new(footer.schema.fields().clone());
                Ok::<_, datafusion::error::DataFusionError>((meta, schema))
            })
            .buffered(CONCURRENT_FOOTERS)
            .try_collect()
            .await?;
        let mut merged: Option<(String, Schema)> = None;
        for (meta, schema) in schemas {
            merged = Some(match merged {
                None => (meta.location.to_string(), schema),
                Some((first, m)) => {
                    let joined = Schema::try_merge([m, schema]).map_err(|e| {
                        config_datafusion_err!(
                            "the schema of {} does not merge with that of {first}: {e}",
                            meta.location
                        )
                    })?;
                    (first, joined)
                }
            });
        }
        let merged = merged.map(|(_, s)| s).unwrap_or_else(Schema::empty);
        Ok(Arc::new(
            if state
                .config_options()
                .execution
                .parquet
                .schema_force_view_types
            {
                with_view_types(&merged)
            } else {
                merged
            },
        ))
    }

    async fn infer_stats(
        &self,
        _state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<Statistics> {
        let footer = self.footers.get(store, object, &self.options.fetch).await?;
        Ok(file_statistics(
            &footer.metadata,
            &footer.schema,
            &table_schema,
        ))
    }

    async fn create_physical_plan(
        &self,
        _state: &dyn Session,
        conf: FileScanConfig,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let mut source = self.file_source(conf.file_source.table_schema().clone());
        // Keep what was pushed into the source the config came with.
        if let Some(projection) = conf.file_source.projection()
            && let Some(projected) = source.try_pushdown_projection(projection)?
        {
            source = projected;
        }
        let config = FileScanConfigBuilder::from(conf)
            .with_source(source)
            .build();
        Ok(DataSourceExec::from_data_source(config))
    }

    fn file_source(&self, table_schema: TableSchema) -> Arc<dyn FileSource> {
        Arc::new(PqSource::new(
            table_schema,
            self.options.clone(),
            self.footers.clone(),
        ))
    }
}

/// Makes [`PqFormat`]s for `CREATE EXTERNAL TABLE … STORED AS PQ` (its
/// extension, the name `STORED AS` looks up, is `pq`).
#[derive(Debug, Clone, Default)]
pub struct PqFormatFactory {
    options: PqOptions,
}

impl PqFormatFactory {
    /// A factory whose formats start from `options` (a statement's
    /// `OPTIONS` override them key by key).
    pub fn new(options: PqOptions) -> Self {
        PqFormatFactory { options }
    }

    /// The options its formats start from.
    pub fn options(&self) -> &PqOptions {
        &self.options
    }
}

impl GetExt for PqFormatFactory {
    fn get_ext(&self) -> String {
        "pq".to_owned()
    }
}

impl FileFormatFactory for PqFormatFactory {
    fn create(
        &self,
        _state: &dyn Session,
        format_options: &HashMap<String, String>,
    ) -> Result<Arc<dyn FileFormat>> {
        let options = self.options.clone().with_map(format_options)?;
        Ok(Arc::new(PqFormat::new(options)))
    }

    fn default(&self) -> Arc<dyn FileFormat> {
        Arc::new(PqFormat::new(self.options.clone()))
    }
}
