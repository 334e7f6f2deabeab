//! Every call the benches make into the arrow-rs `parquet` crate, the
//! baseline: the same work as `pq.rs`.

use std::path::Path;

use arrow_array::RecordBatch;
use bytes::Bytes;
use parquet::arrow::ArrowWriter;
use std::sync::Arc;

use arrow_schema::{DataType, Schema};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::ChunkReader;

use super::{Setting, count_rows};

/// Reads the file at `path`: every column, batches of 8192 rows, one
/// thread; returns the rows read or the
/// error.
pub fn read_path(path: &Path) -> Result<usize, String> {
    let file = std::fs::File::open(path).map_err(ParquetError::from);
    count_rows(
        "arrow-rs",
        file.and_then(|f| builder(f)?.with_batch_size(8192).build()),
    )
}

/// Reads a file held in memory, as [`read_path`].
pub fn read_bytes(bytes: &Bytes) -> Result<usize, String> {
    count_rows(
        "arrow-rs",
        builder(bytes.clone()).and_then(|b| b.with_batch_size(8192).build()),
    )
}

/// The reader builder of `input`: with [`super::views`], one that gives
/// the top-level string and binary columns as views.
fn builder<T: ChunkReader + 'static>(
    input: T,
) -> Result<ParquetRecordBatchReaderBuilder<T>, ParquetError> {
    if !super::views() {
        return ParquetRecordBatchReaderBuilder::try_new(input);
    }
    let plain = ArrowReaderMetadata::load(&input, ArrowReaderOptions::new())?;
    let fields: Vec<_> = plain
        .schema()
        .fields()
        .iter()
        .map(|f| match f.data_type() {
            DataType::Utf8 | DataType::LargeUtf8 => {
                Arc::new(f.as_ref().clone().with_data_type(DataType::Utf8View))
            }
            DataType::Binary | DataType::LargeBinary => {
                Arc::new(f.as_ref().clone().with_data_type(DataType::BinaryView))
            }
            _ => Arc::clone(f),
        })
        .collect();
    let options = ArrowReaderOptions::new().with_schema(Arc::new(Schema::new(fields)));
    let views = ArrowReaderMetadata::try_new(Arc::clone(plain.metadata()), options)?;
    Ok(ParquetRecordBatchReaderBuilder::new_with_metadata(
        input, views,
    ))
}

/// The batches of the file at `path`, the input of the write bench.
pub fn batches(path: &Path) -> Result<Vec<RecordBatch>, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .and_then(|b| b.with_batch_size(65_536).build())
        .map_err(|e| e.to_string())?;
    reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())
}

fn properties(s: Setting) -> WriterProperties {
    match s {
        Setting::AsWritten(w) => super::arrow_rs_settings::properties(&w),
        named => super::arrow_rs_settings::named_properties(named.name())
            .unwrap_or_else(|| panic!("no arrow-rs properties for setting {}", named.name())),
    }
}

/// Writes `batches` (at least one) to memory with setting `s`.
pub fn write(batches: &[RecordBatch], s: Setting) -> Result<Vec<u8>, String> {
    let schema = batches.first().ok_or("no batch")?.schema();
    let mut out = Vec::with_capacity(64 << 20);
    let mut w =
        ArrowWriter::try_new(&mut out, schema, Some(properties(s))).map_err(|e| e.to_string())?;
    for b in batches {
        w.write(b).map_err(|e| e.to_string())?;
    }
    w.close().map_err(|e| e.to_string())?;
    Ok(out)
}
