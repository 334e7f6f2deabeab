//! Decoding on several threads, and batches whose buffers return to the
//! reader's pool: held batches keep their values while later ones reuse the
//! memory of dropped ones, a reader dropped or stopped mid row group does not
//! hang, and the batch iterator can move to another thread. (Files, whole
//! or damaged, read the same on any number of threads:
//! `tests/tests/threads.rs`.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

use arrow_array::RecordBatch;
use bytes::Bytes;
use pq_arrow::ParquetReader;

fn fixture(name: &str) -> Bytes {
    let path = format!("{}/../../data/{name}", env!("CARGO_MANIFEST_DIR"));
    Bytes::from(std::fs::read(path).unwrap())
}

/// Every batch, read without the buffer pool.
fn batches(bytes: &Bytes, batch: usize, threads: usize) -> Vec<RecordBatch> {
    ParquetReader::from_bytes(bytes.clone())
        .unwrap()
        .with_batch_size(batch)
        .with_threads(threads)
        .with_buffer_pool(0)
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Every other batch is dropped at once, so its buffers go back to the pool
/// and the next batches decode into them; the batches held meanwhile must
/// not change, and must equal a read without the pool.
#[test]
fn held_batches_keep_their_values_while_dropped_ones_are_reused() {
    for name in [
        "all_types_dict_snappy_v1.parquet",
        "all_types_plain_v1.parquet",
        "nested_dict_snappy_v2.parquet",
        "enc_delta_byte_array_v2.parquet",
    ] {
        let bytes = fixture(name);
        for threads in [1, 2, 3] {
            let want = batches(&bytes, 1000, 1);
            let reader = ParquetReader::from_bytes(bytes.clone())
                .unwrap()
                .with_batch_size(1000)
                .with_threads(threads)
                .build()
                .unwrap();
            let mut held = Vec::new();
            let mut count = 0;
            for (i, b) in reader.enumerate() {
                let b = b.unwrap();
                count += 1;
                if i % 2 == 0 {
                    held.push((i, b));
                }
            }
            assert_eq!(count, want.len(), "{name} threads {threads}");
            for (i, b) in held {
                assert_eq!(b, want[i], "{name} threads {threads} batch {i}");
            }
        }
    }
}

#[test]
fn a_reader_dropped_mid_row_group_stops_its_threads() {
    let bytes = fixture("many_pages.parquet");
    for threads in [2, 4] {
        for keep in [0, 1, 3] {
            let mut r = ParquetReader::from_bytes(bytes.clone())
                .unwrap()
                .with_batch_size(100)
                .with_threads(threads)
                .build()
                .unwrap();
            for _ in 0..keep {
                r.next().unwrap().unwrap();
            }
            drop(r);
        }
        // A limit ends the reading inside a row group.
        let got = ParquetReader::from_bytes(bytes.clone())
            .unwrap()
            .with_batch_size(100)
            .with_limit(250)
            .with_threads(threads)
            .build()
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        assert_eq!(got.iter().map(|b| b.num_rows()).sum::<usize>(), 250);
    }
}

/// The batch iterator moves to another thread (a pipeline stage that reads
/// while the caller does other work), on its own decoding threads or not.
#[test]
fn the_batch_iterator_is_send() {
    fn send<T: Send + 'static>(_: &T) {}
    let bytes = fixture("many_pages.parquet");
    for threads in [1, 2] {
        let reader = ParquetReader::from_bytes(bytes.clone())
            .unwrap()
            .with_threads(threads)
            .build()
            .unwrap();
        send(&reader);
        let rows = std::thread::spawn(move || reader.map(|b| b.unwrap().num_rows()).sum::<usize>())
            .join()
            .unwrap();
        assert_eq!(
            rows,
            batches(&bytes, 8192, 1)
                .iter()
                .map(|b| b.num_rows())
                .sum::<usize>()
        );
    }
}
