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

/// From a path, decoding threads read their columns' pages themselves: a
/// file cut short after its footer was read fails there as on one thread,
/// with an I/O error naming the column chunk, after the same batches.
#[test]
fn a_file_cut_short_under_the_threads_is_an_error_naming_the_column() {
    let dir = std::env::temp_dir().join(format!("pq-threads-cut-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bytes = fixture("many_pages.parquet");
    let meta = ParquetReader::from_bytes(bytes.clone()).unwrap();
    let rg = &meta.metadata().row_groups[0];
    // Cut inside the row group's last column chunk.
    let last = rg.columns.last().unwrap().meta_data.as_ref().unwrap();
    let start = last
        .dictionary_page_offset
        .unwrap_or(last.data_page_offset)
        .min(last.data_page_offset) as u64;
    let cut = start + last.total_compressed_size as u64 / 2;
    let read = |threads: usize| {
        let path = dir.join(format!("cut-{threads}.parquet"));
        std::fs::write(&path, &bytes).unwrap();
        let reader = ParquetReader::open(&path)
            .unwrap()
            .with_batch_size(100)
            .with_threads(threads);
        // The footer is read; now the file loses its tail.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(cut)
            .unwrap();
        let mut rows = 0;
        for b in reader.build().unwrap() {
            match b {
                Ok(b) => rows += b.num_rows(),
                Err(e) => return (rows, pq_arrow::Error::from(e).to_string()),
            }
        }
        panic!("{threads} threads: {rows} rows read from a file cut at {cut}");
    };
    let one = read(1);
    let column = last.path_in_schema.join(".");
    println!("1 thread after {} rows: {}", one.0, one.1);
    assert!(one.1.starts_with("I/O error at"), "{}", one.1);
    assert!(
        one.1.contains(&format!("column {column}, row group 0")),
        "{}",
        one.1
    );
    for threads in [2, 3] {
        // Only the cut column fails: the same error, after the same rows.
        assert_eq!(read(threads), one, "{threads} threads");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
