//! The reader's options: sources, projection, row groups, offset, limit,
//! batch size and threads give the rows a plain full read gives.

#![allow(clippy::unwrap_used)]

use arrow_array::RecordBatch;
use bytes::Bytes;
use pq_arrow::ParquetReader;

fn fixture(name: &str) -> String {
    format!("{}/../../data/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn all(r: ParquetReader) -> RecordBatch {
    let r = r.build().unwrap();
    let schema = r.schema();
    let batches: Vec<RecordBatch> = r.collect::<Result<_, _>>().unwrap();
    concat(schema, &batches)
}

fn concat(schema: arrow_schema::SchemaRef, batches: &[RecordBatch]) -> RecordBatch {
    use arrow_data::transform::MutableArrayData;
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    let columns = (0..schema.fields().len())
        .map(|i| {
            let data: Vec<_> = batches.iter().map(|b| b.column(i).to_data()).collect();
            let mut m = MutableArrayData::new(data.iter().collect(), false, rows);
            for (j, d) in data.iter().enumerate() {
                m.try_extend(j, 0, d.len()).unwrap();
            }
            arrow_array::make_array(m.freeze())
        })
        .collect();
    RecordBatch::try_new_with_options(
        schema,
        columns,
        &arrow_array::RecordBatchOptions::new().with_row_count(Some(rows)),
    )
    .unwrap()
}

#[test]
fn sources_agree() {
    let path = fixture("nested_plain_v1.parquet");
    let a = all(ParquetReader::open(&path).unwrap());
    let bytes = Bytes::from(std::fs::read(&path).unwrap());
    let b = all(ParquetReader::from_bytes(bytes).unwrap());
    let c = all(ParquetReader::from_reader(std::fs::File::open(&path).unwrap()).unwrap());
    assert_eq!(a, b);
    assert_eq!(a, c);
    assert!(a.num_rows() > 0);
}

#[test]
fn offset_limit_batch_size_and_threads() {
    let path = fixture("many_pages.parquet");
    let full = all(ParquetReader::open(&path).unwrap());
    let n = full.num_rows();
    assert!(n > 10);
    let part = all(ParquetReader::open(&path)
        .unwrap()
        .with_offset(3)
        .with_limit(n / 2)
        .with_batch_size(7)
        .with_threads(2));
    assert_eq!(part, full.slice(3, n / 2));
    let batches: Vec<RecordBatch> = ParquetReader::open(&path)
        .unwrap()
        .with_batch_size(7)
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(batches.iter().all(|b| b.num_rows() <= 7));
}

#[test]
fn projection_by_name_index_and_path() {
    let path = fixture("nested_plain_v1.parquet");
    let reader = ParquetReader::open(&path).unwrap();
    let schema = reader.arrow_schema();
    let full = all(reader);
    let name = schema.field(1).name().clone();
    let by_name = all(ParquetReader::open(&path).unwrap().with_columns([&name]));
    let by_index = all(ParquetReader::open(&path).unwrap().with_column_indices([1]));
    assert_eq!(by_name.num_columns(), 1);
    assert_eq!(by_name.column(0), full.column(1));
    assert_eq!(by_name, by_index);
    // A nested leaf by its dotted path keeps only that leaf under its parents.
    let reader = ParquetReader::open(&path).unwrap();
    let nested = reader
        .leaf_columns()
        .iter()
        .find(|l| l.path.len() > 1)
        .map(|l| l.dotted())
        .unwrap();
    let one = all(ParquetReader::open(&path).unwrap().with_columns([&nested]));
    assert_eq!(one.num_columns(), 1);
    assert!(
        ParquetReader::open(&path)
            .unwrap()
            .with_columns(["no_such"])
            .build()
            .is_err()
    );
}

#[test]
fn row_groups_are_chosen() {
    let path = fixture("many_pages.parquet");
    let reader = ParquetReader::open(&path).unwrap();
    let n = reader.num_row_groups();
    let rows0 = reader.metadata().row_groups[0].num_rows as usize;
    let first = all(ParquetReader::open(&path).unwrap().with_row_groups([0]));
    assert_eq!(first.num_rows(), rows0);
    assert!(
        ParquetReader::open(&path)
            .unwrap()
            .with_row_groups([n])
            .build()
            .is_err()
    );
}

#[test]
fn errors_say_where() {
    let path = fixture("sample.parquet");
    let mut bytes = std::fs::read(&path).unwrap();
    // Corrupt the first page body: the error names a column and row group.
    for b in bytes.iter_mut().skip(20).take(40) {
        *b = 0xff;
    }
    let r = ParquetReader::from_bytes(Bytes::from(bytes)).and_then(|r| r.build());
    if let Ok(r) = r
        && let Some(Err(e)) = r.into_iter().find(|b| b.is_err())
    {
        let msg = e.to_string();
        assert!(msg.contains("column") && msg.contains("row group"), "{msg}");
    }
}
