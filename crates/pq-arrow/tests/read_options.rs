//! The reader's options: sources, projection, row groups, offset, limit,
//! batch size and threads give the rows a plain full read gives.

#![allow(clippy::unwrap_used)]

use arrow_array::RecordBatch;
use bytes::Bytes;
use pq_arrow::{ParquetReader, ProjectionMask};
use pq_format::ColumnPath;

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
    let schema = reader.schema().clone();
    let full = all(reader);
    let name = schema.field(1).name().clone();
    let reader = ParquetReader::open(&path).unwrap();
    let by_name = ProjectionMask::columns(reader.parquet_schema(), [path_of(&[&name])]);
    let by_name = all(reader.with_projection(by_name));
    let reader = ParquetReader::open(&path).unwrap();
    let by_index = ProjectionMask::roots(reader.parquet_schema(), [1]);
    let by_index = all(reader.with_projection(by_index));
    assert_eq!(by_name.num_columns(), 1);
    assert_eq!(by_name.column(0), full.column(1));
    assert_eq!(by_name, by_index);
    // A nested leaf by its path keeps only that leaf under its parents.
    let reader = ParquetReader::open(&path).unwrap();
    let nested = reader
        .leaf_columns()
        .iter()
        .find(|l| l.path.len() > 1)
        .map(|l| l.path.clone())
        .unwrap();
    let mask = ProjectionMask::columns(reader.parquet_schema(), [nested]);
    let one = all(reader.with_projection(mask));
    assert_eq!(one.num_columns(), 1);
    let reader = ParquetReader::open(&path).unwrap();
    let mask = ProjectionMask::columns(reader.parquet_schema(), [path_of(&["no_such"])]);
    assert!(reader.with_projection(mask).build().is_err());
}

fn path_of(names: &[&str]) -> ColumnPath {
    ColumnPath::from(names)
}

/// The leaf indices of the top-level field `root` of `reader`'s file.
fn leaves_of_root(reader: &ParquetReader, root: usize) -> Vec<usize> {
    let name = reader.schema().field(root).name().clone();
    reader
        .leaf_columns()
        .iter()
        .enumerate()
        .filter(|(_, l)| l.path[0] == name)
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn roots_leaves_and_paths_select_the_same_columns() {
    let path = fixture("nested_plain_v1.parquet");
    let reader = ParquetReader::open(&path).unwrap();
    let full = all(ParquetReader::open(&path).unwrap());
    let n = reader.schema().fields().len();
    assert!(n > 1);
    for root in 0..n {
        let leaves = leaves_of_root(&reader, root);
        let schema = reader.parquet_schema();
        let by_root = ProjectionMask::roots(schema, [root]);
        let by_leaves = ProjectionMask::leaves(schema, leaves.iter().copied());
        let name = reader.schema().field(root).name().clone();
        let by_path = ProjectionMask::columns(schema, [path_of(&[&name])]);
        assert_eq!(by_root, by_leaves, "root {root}");
        assert_eq!(by_root, by_path, "root {root}");
        for leaf in 0..reader.leaf_columns().len() {
            assert_eq!(by_root.leaf_included(leaf), leaves.contains(&leaf));
        }
        let read = all(ParquetReader::open(&path)
            .unwrap()
            .with_projection(by_leaves));
        assert_eq!(read.num_columns(), 1);
        assert_eq!(read.column(0), full.column(root), "root {root}");
        assert_eq!(read.schema().field(0), full.schema().field(root));
    }
    // Columns come in file order, whatever the order asked for.
    let schema = reader.parquet_schema();
    let backwards = all(ParquetReader::open(&path)
        .unwrap()
        .with_projection(ProjectionMask::roots(schema, [1, 0])));
    assert_eq!(backwards.column(0), full.column(0));
    assert_eq!(backwards.column(1), full.column(1));
    // The same file's masks made against pq-format's descriptor agree.
    let bytes = Bytes::from(std::fs::read(&path).unwrap());
    let md = pq_format::read_metadata_from_bytes(&bytes, &Default::default()).unwrap();
    let descriptor = pq_format::SchemaDescriptor::new(&md.schema, &Default::default()).unwrap();
    for leaf in 0..reader.leaf_columns().len() {
        assert_eq!(
            ProjectionMask::leaves(&descriptor, [leaf]),
            ProjectionMask::leaves(reader.parquet_schema(), [leaf])
        );
    }
    for root in 0..n {
        assert_eq!(
            ProjectionMask::roots(&descriptor, [root]),
            ProjectionMask::roots(reader.parquet_schema(), [root])
        );
    }
    assert_eq!(ProjectionMask::all(), ProjectionMask::default());
    assert!(ProjectionMask::all().leaf_included(usize::MAX));
}

#[test]
fn unknown_columns_fail_the_build() {
    let path = fixture("nested_plain_v1.parquet");
    let reader = ParquetReader::open(&path).unwrap();
    let leaves = reader.leaf_columns().len();
    let roots = reader.schema().fields().len();
    let message = |mask: ProjectionMask| {
        ParquetReader::open(&path)
            .unwrap()
            .with_projection(mask)
            .build()
            .unwrap_err()
            .to_string()
    };
    let schema = reader.parquet_schema();
    let m = message(ProjectionMask::leaves(schema, [0, leaves]));
    assert!(
        m.contains(&format!(
            "leaf column {leaves} does not exist: the file has {leaves}"
        )),
        "{m}"
    );
    let m = message(ProjectionMask::roots(schema, [roots]));
    assert!(
        m.contains(&format!(
            "column {roots} does not exist: the file has {roots} top-level"
        )),
        "{m}"
    );
    let m = message(ProjectionMask::columns(schema, [path_of(&[])]));
    assert!(m.contains("no column at path []"), "{m}");
    // A mask of another file's schema (of another leaf count).
    let other = ParquetReader::open(fixture("sample.parquet")).unwrap();
    assert_ne!(other.leaf_columns().len(), leaves);
    let m = message(ProjectionMask::leaves(other.parquet_schema(), [0]));
    assert!(m.contains("the projection was made for a schema of"), "{m}");
}

/// A file whose top-level field `a.b` holds a dot, beside a struct `a`
/// with a field `b`: a path names either without confusion.
#[test]
fn a_name_with_a_dot_is_selected_by_path() {
    use arrow_array::{ArrayRef, Int32Array, StructArray};
    use arrow_schema::{DataType, Field};
    use std::sync::Arc;
    let dotted: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
    let inner: ArrayRef = Arc::new(Int32Array::from(vec![10, 20, 30]));
    let nested: ArrayRef = Arc::new(StructArray::from(vec![(
        Arc::new(Field::new("b", DataType::Int32, false)),
        inner.clone(),
    )]));
    let batch = RecordBatch::try_from_iter([("a.b", dotted.clone()), ("a", nested)]).unwrap();
    let dir = std::env::temp_dir().join(format!("pq-read-dotted-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("dotted.parquet");
    let mut w = parquet::arrow::ArrowWriter::try_new(
        std::fs::File::create(&file).unwrap(),
        batch.schema(),
        None,
    )
    .unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();

    let read = |path: &[&str]| {
        let reader = ParquetReader::open(&file).unwrap();
        let mask = ProjectionMask::columns(reader.parquet_schema(), [path_of(path)]);
        all(reader.with_projection(mask))
    };
    let top = read(&["a.b"]);
    assert_eq!(top.num_columns(), 1);
    assert_eq!(top.schema().field(0).name(), "a.b");
    assert_eq!(top.column(0), &dotted);
    let under = read(&["a", "b"]);
    assert_eq!(under.num_columns(), 1);
    assert_eq!(under.schema().field(0).name(), "a");
    let under = under
        .column(0)
        .as_any()
        .downcast_ref::<StructArray>()
        .unwrap();
    assert_eq!(under.column(0), &inner);
    // "a.b" is one name, never the path a -> b.
    let reader = ParquetReader::open(&file).unwrap();
    let mask = ProjectionMask::columns(reader.parquet_schema(), [path_of(&["a.b", "b"])]);
    assert!(reader.with_projection(mask).build().is_err());
    std::fs::remove_dir_all(&dir).unwrap();
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
