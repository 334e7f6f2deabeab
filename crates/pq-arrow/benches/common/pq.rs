//! Every call the benches make into pq-arrow.

use std::path::Path;

use arrow_array::RecordBatch;
use bytes::Bytes;
use pq_arrow::write::{Codec, DataPageVersion, ParquetWriter, WriterOptions};
use pq_arrow::{ParquetReader, ParquetRecordBatchReader};

use super::{Setting, WrittenCodec, count_rows};

/// Reads the file at `path`: every column, batches of 8192 rows; returns
/// the rows read or the error.
pub fn read_path(path: &Path, threads: usize) -> Result<usize, String> {
    count_rows(
        "pq-arrow",
        ParquetReader::open(path).and_then(|r| build(r, threads)),
    )
}

/// Reads a file held in memory, as [`read_path`].
pub fn read_bytes(bytes: &Bytes, threads: usize) -> Result<usize, String> {
    count_rows(
        "pq-arrow",
        ParquetReader::from_bytes(bytes.clone()).and_then(|r| build(r, threads)),
    )
}

fn build(r: ParquetReader, threads: usize) -> pq_arrow::Result<ParquetRecordBatchReader> {
    r.with_batch_size(8192)
        .with_threads(threads)
        .with_view_types(super::views())
        .build()
}

fn options(s: Setting) -> WriterOptions {
    match s {
        Setting::Defaults => WriterOptions::default(),
        Setting::SnappyDict => WriterOptions::builder()
            .set_compression(Codec::Snappy)
            .set_dictionary_enabled(true)
            .build(),
        Setting::ZstdV2 => WriterOptions::builder()
            .set_compression(Codec::Zstd)
            .set_compression_level(Some(1))
            .set_writer_version(DataPageVersion::V2)
            .build(),
        Setting::AsWritten(w) => {
            let codec = match w.codec {
                WrittenCodec::Uncompressed => Codec::Uncompressed,
                WrittenCodec::Snappy => Codec::Snappy,
                WrittenCodec::Zstd => Codec::Zstd,
            };
            WriterOptions::builder()
                .set_compression(codec)
                .set_compression_level((w.codec == WrittenCodec::Zstd).then_some(1))
                .set_dictionary_enabled(w.dictionary)
                .set_writer_version(if w.page_v2 {
                    DataPageVersion::V2
                } else {
                    DataPageVersion::V1
                })
                .set_max_row_group_size(w.row_group_rows)
                .build()
        }
    }
}

/// Writes `batches` (at least one) to memory with setting `s`.
pub fn write(batches: &[RecordBatch], s: Setting) -> Result<Vec<u8>, String> {
    let schema = batches.first().ok_or("no batch")?.schema();
    let mut w = ParquetWriter::try_new(Vec::with_capacity(64 << 20), schema, options(s))
        .map_err(|e| e.to_string())?;
    for b in batches {
        w.write(b).map_err(|e| e.to_string())?;
    }
    w.close_into_inner()
        .map(|(out, _)| out)
        .map_err(|e| e.to_string())
}
