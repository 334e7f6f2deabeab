//! Batch-by-batch decoding: every fixture reads to the same values whatever
//! the batch size (batches end inside pages and inside nested records) and
//! the number of decoding threads, with or without dictionary output.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use arrow_array::RecordBatch;
use pq_arrow::ParquetReader;

fn fixtures() -> Vec<std::path::PathBuf> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    files.sort();
    files
}

fn read(path: &std::path::Path, batch: usize, threads: usize, dict: bool) -> RecordBatch {
    let r = ParquetReader::open(path)
        .unwrap()
        .with_batch_size(batch)
        .with_threads(threads)
        .with_dictionary(dict)
        .build()
        .unwrap();
    let schema = r.schema();
    let batches: Vec<RecordBatch> = r.collect::<Result<_, _>>().unwrap();
    for b in &batches {
        assert!(
            b.num_rows() <= batch,
            "{}: batch over {batch}",
            path.display()
        );
    }
    arrow_select::concat::concat_batches(&schema, &batches).unwrap()
}

#[test]
fn batch_size_and_threads_do_not_change_values() {
    for path in fixtures() {
        for dict in [false, true] {
            let whole = read(&path, 1 << 20, 1, dict);
            for (batch, threads) in [(1, 1), (7, 2), (1000, 3)] {
                let got = read(&path, batch, threads, dict);
                assert_eq!(
                    got.num_rows(),
                    whole.num_rows(),
                    "{} batch {batch} threads {threads}",
                    path.display()
                );
                for (a, b) in got.columns().iter().zip(whole.columns()) {
                    assert!(
                        a.to_data() == b.to_data(),
                        "{} batch {batch} threads {threads} dict {dict}: {} differs",
                        path.display(),
                        a.data_type()
                    );
                }
            }
        }
    }
}
