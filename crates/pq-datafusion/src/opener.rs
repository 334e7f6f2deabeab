//! Opening one file (or one byte range of it) of a scan: pq's async
//! reader over the object store, its batches shaped to the table's schema.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions, new_null_array};
use arrow_schema::{DataType, Schema, SchemaRef};
use datafusion::arrow::compute::filter_record_batch;
use datafusion::common::cast::as_boolean_array;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{FileOpenFuture, FileOpener};
use datafusion::error::{DataFusionError, Result};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::utils::{collect_columns, reassign_expr_columns};
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use object_store::ObjectStore;
use pq_arrow::predicate::{PruningOptions, RowFiltering};
use pq_arrow::{ObjectStoreReader, ParquetRecordBatchStreamBuilder, ProjectionMask};
use pq_format::ParquetMetaData;

use crate::filter::{to_exact_predicate, to_predicate};
use crate::footers::{FooterCache, external};
use crate::format::PqOptions;

/// Opens the files of one partition of a scan.
pub(crate) struct PqOpener {
    pub(crate) store: Arc<dyn ObjectStore>,
    pub(crate) footers: FooterCache,
    pub(crate) options: PqOptions,
    /// The table's schema without partition columns.
    pub(crate) table_file_schema: SchemaRef,
    /// The columns of `table_file_schema` to return, in order.
    pub(crate) columns: Vec<usize>,
    pub(crate) filter: Option<Arc<dyn PhysicalExpr>>,
    /// The part of `filter` reported to DataFusion as pushed down exactly:
    /// the scan returns only rows that satisfy it.
    pub(crate) exact_filter: Option<Arc<dyn PhysicalExpr>>,
    pub(crate) batch_size: usize,
    pub(crate) limit: Option<usize>,
}

impl FileOpener for PqOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let store = Arc::clone(&self.store);
        let footers = self.footers.clone();
        let options = self.options.clone();
        let out_schema = Arc::new(self.table_file_schema.project(&self.columns)?);
        let table_file_schema = Arc::clone(&self.table_file_schema);
        let filter = self.filter.clone();
        let exact_filter = self.exact_filter.clone();
        let (batch_size, limit) = (self.batch_size, self.limit);
        Ok(Box::pin(async move {
            let meta = &file.object_meta;
            let footer = footers.get(&store, meta, &options.fetch).await?;
            let md = &footer.metadata;
            let row_groups = match &file.range {
                Some(r) => row_groups_starting_in(md, r.start..r.end),
                None => (0..md.row_groups.len()).collect(),
            };
            // The file's top-level columns the table's columns are read
            // from, by name (files of one table may order or lack them).
            let file_schema = &footer.schema;
            let mut roots: Vec<usize> = out_schema
                .fields()
                .iter()
                .filter_map(|f| file_schema.index_of(f.name()).ok())
                .collect();
            let predicate = filter
                .as_ref()
                .filter(|_| options.pushdown)
                .and_then(|f| to_predicate(f, &table_file_schema, file_schema));
            // The exact filters are pq's predicate's to apply where they
            // translate exactly for this file too (its columns there, of
            // the table's types); where they do not (a file without one of
            // the columns, say), they are evaluated here, by DataFusion,
            // on the batches (the limit then counts after them).
            let exact_here = exact_filter.as_ref().filter(|_| options.pushdown);
            let fallback = match exact_here {
                Some(f) if to_exact_predicate(f, &table_file_schema, file_schema).is_none() => {
                    Some(Fallback::new(f, &out_schema, &table_file_schema)?)
                }
                _ => None,
            };
            if let Some(fb) = &fallback {
                roots.extend(
                    fb.columns
                        .iter()
                        .filter_map(|n| file_schema.index_of(n).ok()),
                );
            }
            roots.sort_unstable();
            roots.dedup();
            let read_schema = fallback
                .as_ref()
                .map_or_else(|| Arc::clone(&out_schema), |fb| Arc::clone(&fb.schema));
            let read_limit = if fallback.is_some() { None } else { limit };
            if roots.is_empty() && predicate.is_none() {
                // Nothing to decode (`count(*)`, or only columns the file
                // lacks): the footer's row counts are the answer.
                let batches =
                    row_count_batches(md, &row_groups, &read_schema, batch_size, read_limit);
                return Ok(match fallback {
                    Some(fb) => fb.apply(batches, limit),
                    None => batches,
                });
            }
            let reader = ObjectStoreReader::from_meta(Arc::clone(&store), meta);
            let mut builder = ParquetRecordBatchStreamBuilder::new_with_metadata(
                reader,
                Arc::clone(md),
                options.fetch.clone(),
            )
            .await
            .map_err(external)?;
            let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
            builder =
                builder
                    .with_projection(mask)
                    .with_row_groups(row_groups)
                    .with_batch_size(batch_size)
                    .with_threads(1)
                    // Strings as views when the table has them (DataFusion's
                    // default): the values of dictionary pages become views of
                    // the dictionary, not copies cast afterwards. Nested
                    // strings, which the table keeps plain, are cast back.
                    .with_view_types(out_schema.fields().iter().any(|f| {
                        matches!(f.data_type(), DataType::Utf8View | DataType::BinaryView)
                    }));
            if let Some(p) = predicate {
                // With no filter pushed down exactly, DataFusion tests the
                // rows again: pq cuts a batch down only where that drops
                // more than a tenth of it, so a filter that keeps nearly
                // every row costs no copy. With one, the rows pq returns
                // are the answer for it: every row is tested.
                let rows = if exact_here.is_some() && fallback.is_none() {
                    RowFiltering::Exact
                } else {
                    RowFiltering::Selective
                };
                builder = builder.with_predicate(p).with_row_filtering(rows);
                if !options.pruning {
                    builder = builder.with_pruning(
                        PruningOptions::default()
                            .with_statistics(false)
                            .with_bloom_filters(false)
                            .with_dictionaries(false)
                            .with_page_index(false),
                    );
                }
            }
            if let Some(limit) = read_limit {
                builder = builder.with_limit(limit);
            }
            let stream = builder.build().map_err(external)?;
            let batches = stream
                .map_err(external)
                .and_then(move |batch| futures::future::ready(to_table_shape(&batch, &read_schema)))
                .boxed();
            Ok(match fallback {
                Some(fb) => fb.apply(batches, limit),
                None => batches,
            })
        }))
    }
}

/// The row groups whose data starts in `range`: byte ranges that split a
/// file between partitions give each row group to exactly one of them.
fn row_groups_starting_in(md: &ParquetMetaData, range: Range<i64>) -> Vec<usize> {
    md.row_groups
        .iter()
        .enumerate()
        .filter(|(_, rg)| {
            let start = rg
                .columns
                .first()
                .and_then(|c| c.meta_data.as_ref())
                .map(|m| match m.dictionary_page_offset {
                    Some(d) if d > 0 && d < m.data_page_offset => d,
                    _ => m.data_page_offset,
                })
                .or(rg.file_offset)
                .unwrap_or_default();
            range.contains(&start)
        })
        .map(|(i, _)| i)
        .collect()
}

/// The exact filters of a file pq's predicate cannot apply exactly,
/// evaluated on its batches instead.
struct Fallback {
    /// The filter, its columns numbered as in `schema`.
    expr: Arc<dyn PhysicalExpr>,
    /// The table columns the filter reads.
    columns: Vec<String>,
    /// The scan's columns, then the filter's other columns.
    schema: SchemaRef,
    /// How many of `schema`'s columns the scan returns.
    output: usize,
}

impl Fallback {
    fn new(
        filter: &Arc<dyn PhysicalExpr>,
        out_schema: &SchemaRef,
        table_file_schema: &Schema,
    ) -> Result<Fallback> {
        let mut columns: Vec<String> = collect_columns(filter)
            .into_iter()
            .map(|c| c.name().to_owned())
            .collect();
        columns.sort_unstable();
        let mut fields = out_schema.fields().to_vec();
        for name in &columns {
            if out_schema.index_of(name).is_err() {
                fields.push(Arc::new(table_file_schema.field_with_name(name)?.clone()));
            }
        }
        let schema = Arc::new(Schema::new_with_metadata(
            fields,
            out_schema.metadata().clone(),
        ));
        Ok(Fallback {
            expr: reassign_expr_columns(Arc::clone(filter), &schema)?,
            columns,
            schema,
            output: out_schema.fields().len(),
        })
    }

    /// `batches` (of `self.schema`) cut to the rows the filter keeps and
    /// to the scan's columns, then to `limit` rows.
    fn apply(
        self,
        batches: BoxStream<'static, Result<RecordBatch>>,
        limit: Option<usize>,
    ) -> BoxStream<'static, Result<RecordBatch>> {
        let left = Arc::new(AtomicUsize::new(limit.unwrap_or(usize::MAX)));
        let before = Arc::clone(&left);
        let output: Vec<usize> = (0..self.output).collect();
        batches
            // Once the limit is reached, no more batches are read.
            .take_while(move |_| futures::future::ready(before.load(Ordering::Relaxed) > 0))
            .map(move |batch| {
                let batch = batch?;
                let mask = self.expr.evaluate(&batch)?.into_array(batch.num_rows())?;
                // A null is not kept, as in a WHERE.
                let kept = filter_record_batch(&batch, as_boolean_array(&mask)?)?;
                let kept = kept.project(&output)?;
                let n = left.load(Ordering::Relaxed).min(kept.num_rows());
                left.fetch_sub(n, Ordering::Relaxed);
                Ok(kept.slice(0, n))
            })
            .try_filter(|b| futures::future::ready(b.num_rows() > 0))
            .boxed()
    }
}

/// Batches without columns, holding the chosen row groups' rows.
fn row_count_batches(
    md: &ParquetMetaData,
    row_groups: &[usize],
    schema: &SchemaRef,
    batch_size: usize,
    limit: Option<usize>,
) -> futures::stream::BoxStream<'static, Result<RecordBatch>> {
    let mut rows: usize = row_groups
        .iter()
        .filter_map(|&i| md.row_groups.get(i))
        .map(|rg| usize::try_from(rg.num_rows).unwrap_or_default())
        .sum();
    if let Some(limit) = limit {
        rows = rows.min(limit);
    }
    let schema = Arc::clone(schema);
    let step = batch_size.max(1);
    let sizes = (0..rows.div_ceil(step)).map(move |i| step.min(rows - i * step));
    futures::stream::iter(sizes.map(move |n| {
        let columns = schema
            .fields()
            .iter()
            .map(|f| new_null_array(f.data_type(), n))
            .collect();
        RecordBatch::try_new_with_options(
            Arc::clone(&schema),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(n)),
        )
        .map_err(DataFusionError::from)
    }))
    .boxed()
}

/// `batch` (read with the file's types) as the table's columns `schema`:
/// each found by name, cast where the table's type differs, all nulls
/// where the file lacks it.
fn to_table_shape(batch: &RecordBatch, schema: &SchemaRef) -> Result<RecordBatch> {
    let rows = batch.num_rows();
    let columns = schema
        .fields()
        .iter()
        .map(|f| match batch.column_by_name(f.name()) {
            Some(c) if c.data_type() == f.data_type() => Ok(Arc::clone(c)),
            Some(c) => arrow_cast::cast(c, f.data_type()).map_err(DataFusionError::from),
            None => Ok(new_null_array(f.data_type(), rows)),
        })
        .collect::<Result<Vec<ArrayRef>>>()?;
    let shaped = RecordBatch::try_new_with_options(
        Arc::clone(schema),
        columns,
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )?;
    Ok(shaped)
}
