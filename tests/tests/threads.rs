//! Every corpus file and fixture, and damaged copies of one, read the same
//! on several decoding threads as on one: the same batches, or the same
//! error after the same batches. From `Bytes` and from a path (where the
//! decoding threads read their own pages, at positions of one file).

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
    collect(pq_arrow::ParquetReader::from_bytes(bytes.clone()), threads)
}

/// [`read`] from a path.
fn read_path(path: &std::path::Path, threads: usize) -> (Vec<RecordBatch>, Option<String>) {
    collect(pq_arrow::ParquetReader::open(path), threads)
}

fn collect(
    r: pq_arrow::Result<pq_arrow::ParquetReader>,
    threads: usize,
) -> (Vec<RecordBatch>, Option<String>) {
    let r = r.and_then(|r| r.with_batch_size(100).with_threads(threads).build());
    let mut batches = Vec::new();
    match r {
        Ok(r) => {
            for b in r {
                match b {
                    Ok(b) => batches.push(b),
                    Err(e) => return (batches, Some(pq_arrow::Error::from(e).to_string())),
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
        let one_path = read_path(&path, 1);
        for threads in [2, 3] {
            for (how, one, got) in [
                ("bytes", &one, read(&bytes, threads)),
                ("path", &one_path, read_path(&path, threads)),
            ] {
                let what = format!("{} from {how}: {threads} threads", path.display());
                assert_eq!(got.1, one.1, "{what}");
                assert_eq!(got.0.len(), one.0.len(), "{what}");
                for (i, (a, b)) in got.0.iter().zip(&one.0).enumerate() {
                    assert!(a == b, "{what}, batch {i}");
                }
            }
        }
        // A path reads what `Bytes` read, up to the error's wording.
        assert_eq!(one_path.0, one.0, "{}: path against bytes", path.display());
        assert_eq!(one_path.1.is_some(), one.1.is_some(), "{}", path.display());
    }
}

/// Bytes changed all over the column chunks: whatever breaks, and in
/// whichever batch, two and three threads end where one thread does, with
/// the same error.
#[test]
fn damage_ends_the_read_at_the_same_batch_on_any_number_of_threads() {
    let clean = std::fs::read(pq_tests::fixtures_dir().join("many_pages.parquet")).unwrap();
    let footer_len =
        u32::from_le_bytes(clean[clean.len() - 8..clean.len() - 4].try_into().unwrap());
    let data_end = clean.len() - 8 - footer_len as usize;
    let mut errors = 0;
    for k in 1..200 {
        let at = 4 + (data_end - 4) * k / 200;
        let mut b = clean.clone();
        b[at] ^= 0x5a;
        b[at + 1] = b[at + 1].wrapping_add(0x77);
        let bytes = Bytes::from(b);
        let one = read(&bytes, 1);
        errors += usize::from(one.1.is_some());
        for threads in [2, 3] {
            let got = read(&bytes, threads);
            assert_eq!(got.1, one.1, "byte {at}, {threads} threads");
            assert!(
                got.0 == one.0,
                "byte {at}, {threads} threads: batches differ"
            );
        }
    }
    // The damage must reach errors for the test to mean anything.
    assert!(errors > 20, "only {errors} damaged files failed");
}
