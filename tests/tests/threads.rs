//! Every corpus file and fixture reads the same on several decoding threads
//! as on one: the same batches, or the same error after the same batches.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use arrow_array::RecordBatch;
use bytes::Bytes;

/// Files not read here, with the reason.
const LEFT_OUT: &[(&str, &str)] = &[(
    "large_string_map.brotli.parquet",
    "a 1 GiB dictionary per page: read batch by batch by read_conformance",
)];

fn files() -> Vec<PathBuf> {
    let mut dirs = vec![pq_tests::fixtures_dir()];
    if let Some(corpus) = pq_tests::corpus_dir() {
        dirs.push(corpus.join("data"));
        dirs.push(corpus.join("bad_data"));
    }
    let mut out = Vec::new();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "parquet")
                && !LEFT_OUT.iter().any(|(name, _)| p.ends_with(name))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The batches of a read, then the error that ended it, if any.
fn read(bytes: &Bytes, threads: usize) -> (Vec<RecordBatch>, Option<String>) {
    let r = pq_arrow::ParquetReader::from_bytes(bytes.clone())
        .and_then(|r| r.with_batch_size(100).with_threads(threads).build());
    let mut batches = Vec::new();
    match r {
        Ok(r) => {
            for b in r {
                match b {
                    Ok(b) => batches.push(b),
                    Err(e) => return (batches, Some(e.to_string())),
                }
            }
            (batches, None)
        }
        Err(e) => (batches, Some(e.to_string())),
    }
}

#[test]
fn threads_read_what_one_thread_reads() {
    let files = files();
    assert!(files.len() > 20, "only {} files", files.len());
    for path in files {
        let bytes = Bytes::from(std::fs::read(&path).unwrap());
        let one = read(&bytes, 1);
        for threads in [2, 3] {
            let got = read(&bytes, threads);
            assert_eq!(got.1, one.1, "{}: {threads} threads", path.display());
            assert_eq!(
                got.0.len(),
                one.0.len(),
                "{}: {threads} threads",
                path.display()
            );
            for (i, (a, b)) in got.0.iter().zip(&one.0).enumerate() {
                assert!(a == b, "{}: {threads} threads, batch {i}", path.display());
            }
        }
    }
}
