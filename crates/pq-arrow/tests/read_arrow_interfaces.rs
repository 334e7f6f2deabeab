//! The batch iterator is an arrow-rs `RecordBatchReader`: it feeds Arrow
//! consumers as it is, and pq's error survives the trip through
//! `ArrowError`.

#![allow(clippy::unwrap_used)]

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_ipc::reader::StreamReader;
use arrow_ipc::writer::StreamWriter;
use arrow_schema::ArrowError;
use bytes::Bytes;
use pq_arrow::ParquetReader;

fn fixture(name: &str) -> String {
    format!("{}/../../data/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Writes any batch stream as an Arrow IPC stream, as an Arrow consumer
/// that knows nothing of pq would.
fn to_ipc(reader: Box<dyn RecordBatchReader>) -> Result<Vec<u8>, ArrowError> {
    let mut out = Vec::new();
    let mut writer = StreamWriter::try_new(&mut out, &reader.schema())?;
    for batch in reader {
        writer.write(&batch?)?;
    }
    writer.finish()?;
    drop(writer);
    Ok(out)
}

#[test]
fn batches_feed_an_ipc_stream_writer() {
    let path = fixture("nested_plain_v1.parquet");
    let direct: Vec<RecordBatch> = ParquetReader::open(&path)
        .unwrap()
        .with_batch_size(100)
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(direct.len() > 1, "the fixture fills more than one batch");
    let reader = ParquetReader::open(&path)
        .unwrap()
        .with_batch_size(100)
        .build()
        .unwrap();
    let schema = RecordBatchReader::schema(&reader);
    let ipc = to_ipc(Box::new(reader)).unwrap();
    let back = StreamReader::try_new(ipc.as_slice(), None).unwrap();
    assert_eq!(back.schema(), schema);
    let back: Vec<RecordBatch> = back.collect::<Result<_, _>>().unwrap();
    assert_eq!(back, direct);
}

/// `sample.parquet` with the first page header of its first column chunk
/// overwritten: the footer reads, the first batch fails.
fn corrupt_file() -> Bytes {
    let bytes = Bytes::from(std::fs::read(fixture("sample.parquet")).unwrap());
    let md = pq_format::read_metadata_from_bytes(&bytes, &Default::default()).unwrap();
    let chunk = md.row_groups[0].columns[0].meta_data.as_ref().unwrap();
    let start = chunk
        .dictionary_page_offset
        .unwrap_or(chunk.data_page_offset)
        .min(chunk.data_page_offset) as usize;
    let mut bytes = bytes.to_vec();
    bytes[start..start + 8].fill(0xff);
    Bytes::from(bytes)
}

#[test]
fn an_error_downcasts_back_to_pq_error() {
    let file = corrupt_file();
    // The typed method gives pq's error as it is.
    let typed = ParquetReader::from_bytes(file.clone())
        .unwrap()
        .build()
        .unwrap()
        .next_batch()
        .unwrap_err();
    assert!(matches!(typed, pq_arrow::Error::Page { .. }), "{typed}");

    let mut reader = ParquetReader::from_bytes(file).unwrap().build().unwrap();
    let err = reader.next().unwrap().unwrap_err();
    let ArrowError::ExternalError(inner) = &err else {
        panic!("not an external error: {err}");
    };
    let pq = inner.downcast_ref::<pq_arrow::Error>().unwrap();
    assert_eq!(pq.to_string(), typed.to_string());
    // `From` takes it back out, as `?` does in a function returning pq's
    // error.
    assert_eq!(pq_arrow::Error::from(err).to_string(), typed.to_string());
    // A failed read ends there, on either interface.
    assert!(reader.next().is_none());
    assert!(reader.next_batch().unwrap().is_none());
    // Through an Arrow consumer the error is the same.
    let reader = ParquetReader::from_bytes(corrupt_file())
        .unwrap()
        .build()
        .unwrap();
    let err = to_ipc(Box::new(reader)).unwrap_err();
    assert_eq!(pq_arrow::Error::from(err).to_string(), typed.to_string());
}

#[test]
fn an_arrow_error_converts_with_its_message() {
    let err = pq_arrow::Error::from(ArrowError::ComputeError("no such kernel".into()));
    assert!(matches!(err, pq_arrow::Error::Arrow { .. }), "{err}");
    assert!(err.to_string().contains("no such kernel"), "{err}");
}
