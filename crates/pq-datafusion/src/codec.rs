//! pq's part of a plan on the wire: the extension codecs that let
//! DataFusion's plan serialization (`datafusion-proto`), and Ballista with
//! it, send plans that read pq tables to other processes.
//!
//! What crosses the wire:
//! - in a logical plan, a [`PqTable`]: its locations, file extension,
//!   partition columns and [`PqOptions`] (the schema travels beside it);
//!   a [`PqFormatFactory`] (its options);
//! - in a physical plan, a pq scan (`DataSourceExec` over [`PqSource`]): the
//!   scan's configuration as DataFusion writes it for its own formats
//!   (files and their partitions, schema, statistics, projection, limit),
//!   the [`PqOptions`], the filter pq was given and the batch size;
//! - in a physical expression, a decimal `+`, `-` or `*` that an aggregate
//!   over a pq scan evaluates without arrow's checks (`DecimalArith`): its
//!   operator, its sides as the expression's inputs.
//!
//! Everything else goes to the codec each one wraps (Ballista's own by
//! default, which in turn handles DataFusion's). Every message starts with
//! one byte saying whose it is, so that each side decodes with the codec
//! that encoded it; a plan written by one pq version is read by the same
//! version, as Ballista requires of the scheduler and its executors anyway.

use std::sync::Arc;
use std::time::Duration;

use arrow_schema::{DataType, Schema, SchemaRef};
use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::catalog::TableProvider;
use datafusion::common::{TableReference, internal_datafusion_err, not_impl_err};
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::datasource::listing::ListingOptions;
use datafusion::datasource::source::DataSourceExec;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{
    AggregateUDF, Extension, HigherOrderUDF, LogicalPlan, Operator, ScalarUDF, WindowUDF,
};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::SessionConfig;
use datafusion_physical_expr_common::physical_expr::proto_decode::PhysicalExprDecodeCtx;
use datafusion_physical_expr_common::physical_expr::proto_encode::PhysicalExprEncodeCtx;
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::from_proto::{
    parse_protobuf_file_scan_config, parse_table_schema_from_proto,
};
use datafusion_proto::physical_plan::to_proto::serialize_file_scan_config;
use datafusion_proto::physical_plan::{
    PhysicalExtensionCodec, PhysicalPlanDecodeContext, PhysicalProtoConverterExtension,
};
use datafusion_proto::protobuf;
use prost::Message;

use crate::decimal_arith::DecimalArith;
use crate::footers::FooterCache;
use crate::format::{PqFormat, PqFormatFactory, PqOptions};
use crate::source::{PqSource, pq_scan};
use crate::table::PqTable;

/// The first byte of every message the codecs write: the wrapped codec's
/// message follows, or pq's.
const INNER: u8 = 0;
const PQ: u8 = 1;

/// Splits a message into its owner byte and the rest.
fn owner(buf: &[u8]) -> Result<(u8, &[u8])> {
    match buf.split_first() {
        Some((&tag @ (INNER | PQ), rest)) => Ok((tag, rest)),
        Some((tag, _)) => Err(internal_datafusion_err!(
            "a plan node starts with {tag}, which is neither pq's (1) nor the wrapped codec's (0): \
             were the processes started with pq's codecs?"
        )),
        None => Err(internal_datafusion_err!("an empty plan node")),
    }
}

/// Calls `encode` into `buf` after the owner byte `tag`.
fn tagged(
    buf: &mut Vec<u8>,
    tag: u8,
    encode: impl FnOnce(&mut Vec<u8>) -> Result<()>,
) -> Result<()> {
    buf.push(tag);
    encode(buf)
}

fn decode<M: Message + Default>(buf: &[u8], what: &str) -> Result<M> {
    M::decode(buf).map_err(|e| internal_datafusion_err!("a pq {what} does not decode: {e}"))
}

/// A [`DecimalArith`]: its operator, as DataFusion names operators on the
/// wire; the sides are the expression's inputs.
#[derive(Clone, PartialEq, Message)]
struct ArithProto {
    #[prost(string, tag = "1")]
    op: String,
}

#[derive(Clone, PartialEq, Message)]
struct OptionsProto {
    #[prost(bool, tag = "1")]
    pushdown: bool,
    #[prost(bool, tag = "2")]
    pruning: bool,
    #[prost(uint64, tag = "3")]
    footer_prefetch: u64,
    #[prost(bool, tag = "4")]
    head_check: bool,
    /// Unset: the gap follows the round trip.
    #[prost(uint64, optional, tag = "5")]
    coalesce_gap: Option<u64>,
    #[prost(uint64, tag = "6")]
    max_requests: u64,
    #[prost(uint64, tag = "7")]
    prefetch_bytes: u64,
    #[prost(uint64, tag = "8")]
    request_timeout_us: u64,
    #[prost(uint32, tag = "9")]
    retries: u32,
    #[prost(uint64, tag = "10")]
    backoff_us: u64,
    #[prost(uint64, tag = "11")]
    max_backoff_us: u64,
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

impl From<&PqOptions> for OptionsProto {
    fn from(o: &PqOptions) -> Self {
        let (backoff, max_backoff) = o.fetch.backoff();
        OptionsProto {
            pushdown: o.pushdown,
            pruning: o.pruning,
            footer_prefetch: o.fetch.footer_prefetch(),
            head_check: o.fetch.head_check(),
            coalesce_gap: o.fetch.coalesce_gap(),
            max_requests: o.fetch.max_requests() as u64,
            prefetch_bytes: o.fetch.prefetch_bytes() as u64,
            request_timeout_us: micros(o.fetch.request_timeout()),
            retries: o.fetch.retries(),
            backoff_us: micros(backoff),
            max_backoff_us: micros(max_backoff),
        }
    }
}

impl From<&OptionsProto> for PqOptions {
    fn from(o: &OptionsProto) -> Self {
        let size = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        let mut fetch = pq_arrow::FetchOptions::default()
            .with_footer_prefetch(o.footer_prefetch)
            .with_head_check(o.head_check)
            .with_max_requests(size(o.max_requests))
            .with_prefetch_bytes(size(o.prefetch_bytes))
            .with_request_timeout(Duration::from_micros(o.request_timeout_us))
            .with_retries(o.retries)
            .with_backoff(
                Duration::from_micros(o.backoff_us),
                Duration::from_micros(o.max_backoff_us),
            );
        if let Some(gap) = o.coalesce_gap {
            fetch = fetch.with_coalesce_gap(gap);
        }
        PqOptions {
            pushdown: o.pushdown,
            pruning: o.pruning,
            fetch,
        }
    }
}

/// A [`PqTable`] (its schema travels in DataFusion's own message).
#[derive(Clone, PartialEq, Message)]
struct TableProto {
    #[prost(string, repeated, tag = "1")]
    paths: Vec<String>,
    #[prost(string, tag = "2")]
    file_extension: String,
    #[prost(message, repeated, tag = "3")]
    partition_cols: Vec<protobuf::PartitionColumn>,
    #[prost(message, optional, tag = "4")]
    options: Option<OptionsProto>,
}

/// A scan of pq's (`DataSourceExec` over [`PqSource`]).
#[derive(Clone, PartialEq, Message)]
struct ScanProto {
    #[prost(message, optional, tag = "1")]
    config: Option<protobuf::FileScanExecConf>,
    #[prost(message, optional, tag = "2")]
    options: Option<OptionsProto>,
    #[prost(message, optional, tag = "3")]
    filter: Option<protobuf::PhysicalExprNode>,
    #[prost(uint64, optional, tag = "4")]
    batch_size: Option<u64>,
    /// The part of `filter` pushed down exactly.
    #[prost(message, optional, tag = "5")]
    exact_filter: Option<protobuf::PhysicalExprNode>,
}

/// The logical codec: [`PqTable`]s and [`PqFormatFactory`]s, everything else
/// by the codec it wraps (Ballista's by default).
///
/// Give it to the client, the scheduler and every executor, with
/// [`PqPhysicalCodec`] (see [`with_pq_codecs`]).
#[derive(Debug)]
pub struct PqLogicalCodec {
    inner: Arc<dyn LogicalExtensionCodec>,
}

impl Default for PqLogicalCodec {
    fn default() -> Self {
        PqLogicalCodec::wrapping(Arc::new(BallistaLogicalExtensionCodec::default()))
    }
}

impl PqLogicalCodec {
    /// A codec that hands what is not pq's to `inner`.
    pub fn wrapping(inner: Arc<dyn LogicalExtensionCodec>) -> Self {
        PqLogicalCodec { inner }
    }
}

impl LogicalExtensionCodec for PqLogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        match owner(buf)? {
            (INNER, rest) => self.inner.try_decode(rest, inputs, ctx),
            _ => not_impl_err!("pq has no logical plan nodes of its own"),
        }
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        tagged(buf, INNER, |buf| self.inner.try_encode(node, buf))
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        match owner(buf)? {
            (INNER, rest) => self
                .inner
                .try_decode_table_provider(rest, table_ref, schema, ctx),
            (_, rest) => {
                let proto: TableProto = decode(rest, "table")?;
                Ok(Arc::new(decode_table(&proto, &schema, ctx)?))
            }
        }
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        match (node.as_ref() as &dyn std::any::Any).downcast_ref::<PqTable>() {
            Some(table) => tagged(buf, PQ, |buf| {
                encode_table(table)?.encode(buf).map_err(encode_error)
            }),
            None => tagged(buf, INNER, |buf| {
                self.inner.try_encode_table_provider(table_ref, node, buf)
            }),
        }
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn FileFormatFactory>> {
        match owner(buf)? {
            (INNER, rest) => self.inner.try_decode_file_format(rest, ctx),
            (_, rest) => {
                let proto: OptionsProto = decode(rest, "format")?;
                Ok(Arc::new(PqFormatFactory::new(PqOptions::from(&proto))))
            }
        }
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> Result<()> {
        match node.downcast_ref::<PqFormatFactory>() {
            Some(factory) => tagged(buf, PQ, |buf| {
                OptionsProto::from(factory.options())
                    .encode(buf)
                    .map_err(encode_error)
            }),
            None => tagged(buf, INNER, |buf| {
                self.inner.try_encode_file_format(buf, node)
            }),
        }
    }
    // Functions are the wrapped codec's alone: pq defines none.

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.inner.try_decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udf(node, buf)
    }

    fn try_decode_higher_order_function(
        &self,
        name: &str,
        buf: &[u8],
    ) -> Result<Arc<HigherOrderUDF>> {
        self.inner.try_decode_higher_order_function(name, buf)
    }

    fn try_encode_higher_order_function(
        &self,
        node: &HigherOrderUDF,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        self.inner.try_encode_higher_order_function(node, buf)
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        self.inner.try_decode_udaf(name, buf)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udaf(node, buf)
    }

    fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
        self.inner.try_decode_udwf(name, buf)
    }

    fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udwf(node, buf)
    }
}

fn encode_error(e: prost::EncodeError) -> DataFusionError {
    internal_datafusion_err!("a pq plan node does not encode: {e}")
}

fn encode_table(table: &PqTable) -> Result<TableProto> {
    let listing = table.listing().options();
    if !listing.file_sort_order.is_empty() || listing.output_partitioning.is_some() {
        return not_impl_err!(
            "a pq table with a declared order or partitioning is not sent to other processes yet"
        );
    }
    let partition_cols = listing
        .table_partition_cols
        .iter()
        .map(|(name, data_type)| {
            Ok(protobuf::PartitionColumn {
                name: name.clone(),
                arrow_type: Some(protobuf::ArrowType::try_from(data_type)?),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(TableProto {
        paths: table
            .listing()
            .table_paths()
            .iter()
            // The glob is not part of the URL's text: it goes after it,
            // as it was written.
            .map(|url| {
                let glob = url.get_glob().as_ref().map_or("", |g| g.as_str());
                format!("{}{glob}", url.as_str())
            })
            .collect(),
        file_extension: listing.file_extension.clone(),
        partition_cols,
        options: Some(OptionsProto::from(table.pq_options())),
    })
}

fn decode_table(proto: &TableProto, schema: &Schema, ctx: &TaskContext) -> Result<PqTable> {
    let options = proto
        .options
        .as_ref()
        .map(PqOptions::from)
        .unwrap_or_default();
    let partition_cols = proto
        .partition_cols
        .iter()
        .map(|col| {
            let arrow_type = col.arrow_type.as_ref().ok_or_else(|| {
                internal_datafusion_err!("pq table partition column {} has no type", col.name)
            })?;
            Ok((col.name.clone(), DataType::try_from(arrow_type)?))
        })
        .collect::<Result<Vec<_>>>()?;
    // DataFusion sends the table's schema, partition columns included; the
    // listing wants the files' own.
    let file_schema = Schema::new_with_metadata(
        schema
            .fields()
            .iter()
            .filter(|f| !partition_cols.iter().any(|(name, _)| name == f.name()))
            .cloned()
            .collect::<Vec<_>>(),
        schema.metadata().clone(),
    );
    let urls = proto
        .paths
        .iter()
        .map(|p| crate::context::table_url(p))
        .collect::<Result<Vec<_>>>()?;
    let listing = ListingOptions::new(Arc::new(PqFormat::new(options)))
        .with_file_extension(proto.file_extension.clone())
        .with_table_partition_cols(partition_cols);
    PqTable::from_parts(urls, listing, Arc::new(file_schema), &ctx.runtime_env())
}

/// The physical codec: pq scans, everything else by the codec it wraps
/// (Ballista's by default).
///
/// Give it to the client, the scheduler and every executor, with
/// [`PqLogicalCodec`] (see [`with_pq_codecs`]).
#[derive(Debug)]
pub struct PqPhysicalCodec {
    inner: Arc<dyn PhysicalExtensionCodec>,
}

impl Default for PqPhysicalCodec {
    fn default() -> Self {
        PqPhysicalCodec::wrapping(Arc::new(BallistaPhysicalExtensionCodec::default()))
    }
}

impl PqPhysicalCodec {
    /// A codec that hands what is not pq's to `inner`.
    pub fn wrapping(inner: Arc<dyn PhysicalExtensionCodec>) -> Self {
        PqPhysicalCodec { inner }
    }
}

impl PhysicalExtensionCodec for PqPhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let rest = match owner(buf)? {
            (INNER, rest) => return self.inner.try_decode(rest, inputs, ctx, converter),
            (_, rest) => rest,
        };
        let proto: ScanProto = decode(rest, "scan")?;
        let config = proto
            .config
            .as_ref()
            .ok_or_else(|| internal_datafusion_err!("a pq scan without its configuration"))?;
        let table_schema = parse_table_schema_from_proto(config)?;
        let options = proto
            .options
            .as_ref()
            .map(PqOptions::from)
            .unwrap_or_default();
        let decode_ctx = PhysicalPlanDecodeContext::new(ctx, self);
        let expr = |f: &Option<protobuf::PhysicalExprNode>| {
            f.as_ref()
                .map(|f| {
                    converter.proto_to_physical_expr(f, table_schema.table_schema(), &decode_ctx)
                })
                .transpose()
        };
        let filter = expr(&proto.filter)?;
        let exact_filter = expr(&proto.exact_filter)?;
        let batch_size = proto
            .batch_size
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX));
        let source = PqSource::new(table_schema, options, FooterCache::default()).with_parts(
            filter,
            exact_filter,
            batch_size,
        );
        let config =
            parse_protobuf_file_scan_config(config, &decode_ctx, converter, Arc::new(source))?;
        Ok(DataSourceExec::from_data_source(config))
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        let Some((config, source)) = pq_scan(node.as_ref()) else {
            return tagged(buf, INNER, |buf| {
                self.inner.try_encode(node, buf, converter)
            });
        };
        let expr = |f: Option<&Arc<dyn PhysicalExpr>>| {
            f.map(|f| converter.physical_expr_to_proto(f, self))
                .transpose()
        };
        let filter = expr(source.filter_expr())?;
        let exact_filter = expr(source.exact_filter_expr())?;
        let proto = ScanProto {
            config: Some(serialize_file_scan_config(config, self, converter)?),
            options: Some(OptionsProto::from(source.options())),
            filter,
            batch_size: source.batch_size().map(|n| n as u64),
            exact_filter,
        };
        tagged(buf, PQ, |buf| proto.encode(buf).map_err(encode_error))
    }
    // Functions are the wrapped codec's alone: pq defines none.

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.inner.try_decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udf(node, buf)
    }

    fn try_decode_higher_order_function(
        &self,
        name: &str,
        buf: &[u8],
    ) -> Result<Arc<HigherOrderUDF>> {
        self.inner.try_decode_higher_order_function(name, buf)
    }

    fn try_encode_higher_order_function(
        &self,
        node: &HigherOrderUDF,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        self.inner.try_encode_higher_order_function(node, buf)
    }

    fn try_decode_expr(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn PhysicalExpr>],
        ctx: &PhysicalExprDecodeCtx<'_>,
    ) -> Result<Arc<dyn PhysicalExpr>> {
        let rest = match owner(buf)? {
            (INNER, rest) => return self.inner.try_decode_expr(rest, inputs, ctx),
            (_, rest) => rest,
        };
        let proto: ArithProto = decode(rest, "decimal operation")?;
        // DataFusion's wire name of the operator (its `Debug` name).
        let op = Operator::from_proto_name(&proto.op)
            .ok_or_else(|| internal_datafusion_err!("a pq decimal operation `{}`", proto.op))?;
        let [left, right] = inputs else {
            return Err(internal_datafusion_err!(
                "a pq decimal operation with {} sides",
                inputs.len()
            ));
        };
        DecimalArith::new(Arc::clone(left), op, Arc::clone(right))
            .map(|d| Arc::new(d) as Arc<dyn PhysicalExpr>)
            .ok_or_else(|| internal_datafusion_err!("a pq decimal operation `{op}`"))
    }

    fn try_encode_expr(
        &self,
        node: &Arc<dyn PhysicalExpr>,
        buf: &mut Vec<u8>,
        ctx: &PhysicalExprEncodeCtx<'_>,
    ) -> Result<()> {
        // pq's one expression: a decimal operation an aggregate over a pq
        // scan evaluates (`crate::aggregate_arith`). Its sides travel as
        // the expression's inputs.
        let Some(arith) = node.downcast_ref::<DecimalArith>() else {
            return tagged(buf, INNER, |buf| self.inner.try_encode_expr(node, buf, ctx));
        };
        let proto = ArithProto {
            op: format!("{:?}", arith.operator()),
        };
        tagged(buf, PQ, |buf| proto.encode(buf).map_err(encode_error))
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        self.inner.try_decode_udaf(name, buf)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udaf(node, buf)
    }

    fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
        self.inner.try_decode_udwf(name, buf)
    }

    fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udwf(node, buf)
    }
}

/// `config` with pq's codecs as Ballista's logical and physical extension
/// codecs: what a client's session, the scheduler and the executors need
/// to run plans that read pq tables.
pub fn with_pq_codecs(config: SessionConfig) -> SessionConfig {
    use ballista_core::extension::SessionConfigExt;
    config
        .with_ballista_logical_extension_codec(Arc::new(PqLogicalCodec::default()))
        .with_ballista_physical_extension_codec(Arc::new(PqPhysicalCodec::default()))
}
