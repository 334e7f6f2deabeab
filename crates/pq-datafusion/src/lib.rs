//! pq as a [DataFusion](https://docs.rs/datafusion) file format: SQL over
//! Parquet files read by pq's async reader.
//!
//! This layer translates between DataFusion's file-format traits and
//! pq-arrow's reader: [`PqFormat`] (a `FileFormat`: schema inference and
//! merging, statistics from the footers, the scan plan), [`PqSource`] (a
//! `FileSource`: projection, filters, batch size, splitting files by row
//! group) and the file opener behind it, which reads through
//! [`pq_arrow::ParquetRecordBatchStreamBuilder`] over the object store
//! DataFusion hands it. It knows nothing of Parquet's bytes: decoding,
//! pruning and IO decisions stay in pq-arrow, and what DataFusion does
//! (planning, joins, aggregates) stays in DataFusion.
//!
//! - Filters: DataFusion's physical expressions are translated into pq
//!   predicates where they can be (comparisons of a column with a literal
//!   of its own type, `IN`, `IS [NOT] NULL`, `LIKE`, `AND`/`OR`/`NOT`);
//!   pq prunes row groups and pages with them and returns only the rows
//!   they keep. A filter that translates whole, on the table's columns, is
//!   reported as pushed down exactly (DataFusion drops its `FilterExec`
//!   for it): pq tests every row, and a file where it does not translate
//!   (one that lacks its column) has DataFusion's expression evaluated in
//!   the scan instead. The others are reported as not pushed down, so
//!   DataFusion still checks each row: pq's part of them only makes the
//!   scan cheaper.
//! - Projections: what DataFusion pushes into the scan is evaluated on
//!   pq's batches by DataFusion's expressions, except decimal `+`, `-` and
//!   `*`, which pq computes without arrow's checked 128-bit operation per
//!   value wherever the values make overflow impossible (the same values
//!   and type; DataFusion's expression elsewhere).
//! - Aggregates: the methods of [`SessionContextExt`] give the session a
//!   logical optimizer rule that moves decimal `+`, `-` and `*` out of the
//!   arguments of aggregates over pq tables into the projection below them
//!   (whole arguments, or the parts that use the table's columns only), so
//!   that it reaches the scan and is computed there as above: in TPC-H Q1,
//!   `1 + l_tax` of `sum(l_extendedprice * (1 - l_discount) * (1 + l_tax))`.
//!   Over other tables the rule changes nothing.
//! - Statistics: row counts, null counts and min/max from the footers, as
//!   pq's pruning reads them (bounds only where they can be trusted,
//!   exact only where they are not truncated).
//! - Errors: a file pq refuses fails the query with pq's one-line message
//!   (file, column, row group, page) inside DataFusion's error.
//!
//! ```
//! # async fn run() -> datafusion::error::Result<()> {
//! use datafusion::prelude::SessionContext;
//! use pq_datafusion::{PqReadOptions, SessionContextExt};
//!
//! let ctx = SessionContext::new();
//! let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/all_types_plain_v1.parquet");
//! ctx.register_pq("t", data, PqReadOptions::default()).await?;
//! let batches = ctx.sql("SELECT count(*) FROM t").await?.collect().await?;
//! assert_eq!(batches[0].num_rows(), 1);
//! # Ok(())
//! # }
//! # tokio::runtime::Runtime::new().unwrap().block_on(run()).unwrap();
//! ```
//!
//! - Distribution (feature `ballista`): [`PqTable`]s and pq scans cross
//!   process boundaries through the extension codecs in `codec`, which a
//!   Ballista client, scheduler and executors are given; the binaries
//!   `pq-ballista-scheduler` and `pq-ballista-executor` are Ballista's own
//!   with those codecs registered, and with the object stores of the
//!   environment.
//! - Object stores (feature `stores`, on with `ballista`): `stores` builds
//!   the store of an object-store URL from the environment, and its
//!   `EnvObjectStoreRegistry` does so for a session the first time a
//!   table's URL names a store.
//!
//! Dependencies: `datafusion` (the engine, without its own Parquet
//! support), `object_store` (the stores DataFusion hands a file opener; the
//! same 0.13 that pq-arrow's `ObjectStoreReader` takes), `async-trait` (the
//! form of DataFusion's async traits) and `futures` (its streams); with
//! `url` and `glob` (the parts of DataFusion's listing URLs); with feature
//! `stores`, object_store's cloud clients (`aws`, `gcp`, `azure`, `http`); with
//! feature `ballista`, Ballista's crates (its codecs, scheduler and
//! executor), `datafusion-proto` and `prost` (the plan wire format) and
//! `tokio` (the binaries' runtime).

mod aggregate_args;
mod aggregate_arith;
#[cfg(feature = "ballista")]
pub mod codec;
mod context;
mod decimal_arith;
mod filter;
mod footers;
mod format;
mod opener;
mod source;
mod statistics;
#[cfg(feature = "stores")]
pub mod stores;
mod table;

pub use context::{PqReadOptions, SessionContextExt};
pub use filter::to_predicate;
pub use format::{PqFormat, PqFormatFactory, PqOptions};
pub use source::PqSource;
pub use table::PqTable;
