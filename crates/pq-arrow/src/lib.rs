//! Parquet files to Arrow `RecordBatch`es, and back.
//!
//! The layer users call: it maps Parquet schemas to Arrow schemas, assembles
//! records from levels and values, and writes batches back to Parquet. It is
//! the only layer that knows Arrow.
