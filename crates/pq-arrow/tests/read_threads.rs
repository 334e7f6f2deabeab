//! Decoding on several threads, and batches whose buffers return to the
//! reader's pool: held batches keep their values while later ones reuse the
//! memory of dropped ones, a reader dropped or stopped mid row group does not
//! hang, a damaged file ends with the same batches and the same error on
//! any number of threads, and the batch iterator can move to another thread.

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

/// What a read gives: each batch's rows, then the error if one ends it.
fn outcome(bytes: &Bytes, threads: usize) -> (Vec<usize>, Option<String>) {
    let r = match ParquetReader::from_bytes(bytes.clone()) {
        Ok(r) => r.with_batch_size(300).with_threads(threads).build(),
        Err(e) => return (Vec::new(), Some(e.to_string())),
    };
    let mut rows = Vec::new();
    match r {
        Ok(r) => {
            for b in r {
                match b {
                    Ok(b) => rows.push(b.num_rows()),
                    Err(e) => return (rows, Some(e.to_string())),
                }
            }
            (rows, None)
        }
        Err(e) => (rows, Some(e.to_string())),
    }
}

/// Bytes changed all over the column chunks: whatever breaks, and in
/// whichever batch, two and three threads end where one thread does, with
/// the same error.
#[test]
fn damage_ends_the_read_at_the_same_batch_on_any_number_of_threads() {
    let clean = fixture("many_pages.parquet");
    let footer_len =
        u32::from_le_bytes(clean[clean.len() - 8..clean.len() - 4].try_into().unwrap());
    let data_end = clean.len() - 8 - footer_len as usize;
    let mut errors = 0;
    for k in 1..200 {
        let at = 4 + (data_end - 4) * k / 200;
        let mut b = clean.to_vec();
        b[at] ^= 0x5a;
        b[at + 1] = b[at + 1].wrapping_add(0x77);
        let bytes = Bytes::from(b);
        let one = outcome(&bytes, 1);
        errors += usize::from(one.1.is_some());
        for threads in [2, 3] {
            assert_eq!(
                outcome(&bytes, threads),
                one,
                "byte {at}, {threads} threads"
            );
        }
    }
    // The damage must reach errors for the test to mean anything.
    assert!(errors > 20, "only {errors} damaged files failed");
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
