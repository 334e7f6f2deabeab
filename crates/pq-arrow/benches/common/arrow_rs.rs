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
use parquet::basic::{Compression, ZstdLevel};
use parquet::errors::ParquetError;
use parquet::file::properties::{WriterProperties, WriterVersion};
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
        Setting::Defaults => WriterProperties::default(),
        Setting::SnappyDict => WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_dictionary_enabled(true)
            .build(),
        Setting::ZstdV2 => WriterProperties::builder()
            .set_writer_version(WriterVersion::PARQUET_2_0)
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .build(),
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

/// The row groups of `md` whose INT64 statistics of leaf `c` meet
/// `lo..=hi`, and the rows of their pages that may (by the page index, as
/// DataFusion turns it into a `RowSelection`; every row of a row group
/// without one).
#[allow(dead_code)]
pub fn key_selection(
    md: &parquet::file::metadata::ParquetMetaData,
    c: usize,
    (lo, hi): (i64, i64),
) -> (Vec<usize>, parquet::arrow::arrow_reader::RowSelection) {
    use parquet::arrow::arrow_reader::RowSelector;
    use parquet::file::page_index::column_index::ColumnIndexMetaData;
    use parquet::file::statistics::Statistics;
    let mut groups = Vec::new();
    let mut selectors = Vec::new();
    for (i, rg) in md.row_groups().iter().enumerate() {
        let meets = match rg.column(c).statistics() {
            Some(Statistics::Int64(s)) => match (s.min_opt(), s.max_opt()) {
                (Some(&min), Some(&max)) => max >= lo && min <= hi,
                _ => true,
            },
            _ => true,
        };
        if !meets {
            continue;
        }
        groups.push(i);
        let rows = rg.num_rows() as usize;
        let ci = md.column_index().and_then(|ci| ci.get(i)?.get(c));
        let oi = md.offset_index().and_then(|oi| oi.get(i)?.get(c));
        let (Some(ci), Some(oi)) = (ci, oi) else {
            selectors.push(RowSelector::select(rows));
            continue;
        };
        let locations = oi.page_locations();
        for (p, loc) in locations.iter().enumerate() {
            let start = loc.first_row_index as usize;
            let end = locations
                .get(p + 1)
                .map_or(rows, |l| l.first_row_index as usize);
            let keep = match ci {
                ColumnIndexMetaData::INT64(x) => match (x.min_value(p), x.max_value(p)) {
                    (Some(&min), Some(&max)) => max >= lo && min <= hi,
                    _ => true,
                },
                _ => true,
            };
            selectors.push(if keep {
                RowSelector::select(end - start)
            } else {
                RowSelector::skip(end - start)
            });
        }
    }
    (groups, selectors.into())
}
