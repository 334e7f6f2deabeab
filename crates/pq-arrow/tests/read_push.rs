//! The push decoder and every sync source read every file alike: for the
//! fixtures and the corpus (`data/` and `bad_data/`), the batches (or the
//! one-line error) are the same from `Bytes`, a path, a `Read + Seek` and
//! the push decoder, with 1 and 3 threads, however the pushed bytes are cut
//! (tiny pieces, pieces past the range asked for, pushes out of order,
//! requests answered over several rounds) and however small the reads it
//! asks for.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ops::Range;
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use bytes::Bytes;
use pq_arrow::{DecodeResult, ParquetPushDecoder, ParquetReader};
use pq_testkit::Rng;

/// Batches read until the first error, and that error.
#[derive(Debug, PartialEq)]
struct Outcome {
    batches: Vec<RecordBatch>,
    error: Option<String>,
}

impl Outcome {
    /// The batches read, and the error that ended the reading, if one did.
    fn of(batches: Vec<RecordBatch>, error: Option<String>) -> Self {
        Outcome { batches, error }
    }
}

const BATCH: usize = 333;

fn files() -> Vec<PathBuf> {
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data")];
    if let Some(corpus) = pq_testkit::parquet_testing_dir() {
        dirs.push(corpus.join("data"));
        dirs.push(corpus.join("bad_data"));
    }
    let mut out = Vec::new();
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "parquet") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn sync(open: pq_arrow::Result<ParquetReader>, threads: usize) -> Outcome {
    let mut batches = Vec::new();
    let reader = open.and_then(|r| r.with_batch_size(BATCH).with_threads(threads).build());
    let mut reader = match reader {
        Ok(r) => r,
        Err(e) => {
            return Outcome::of(batches, Some(e.to_string()));
        }
    };
    loop {
        match reader.next_batch() {
            Ok(Some(b)) => batches.push(b),
            Ok(None) => {
                return Outcome::of(batches, None);
            }
            Err(e) => {
                return Outcome::of(batches, Some(e.to_string()));
            }
        }
    }
}

/// Cuts the answer to `ranges` into pieces, some past the ranges, in a
/// random order.
fn pieces(ranges: &[Range<u64>], file_len: u64, rng: &mut Rng) -> Vec<Range<u64>> {
    let mut out = Vec::new();
    for r in ranges {
        match rng.below(4) {
            0 => out.push(r.clone()),
            1 => {
                // Wider on both sides.
                let start = r.start.saturating_sub(rng.below(2000));
                let end = (r.end + rng.below(200_000)).min(file_len);
                out.push(start..end);
            }
            _ => {
                // Up to 40 pieces, of 1 byte upwards.
                let len = r.end - r.start;
                let mut at = r.start;
                while at < r.end {
                    let step = if rng.chance(50) {
                        1 + rng.below(16)
                    } else {
                        1 + rng.below(len / 8 + 1)
                    };
                    let end = (at + step).min(r.end);
                    out.push(at..end);
                    at = end;
                }
            }
        }
    }
    // Out of order.
    for i in (1..out.len()).rev() {
        let j = rng.index(i + 1);
        out.swap(i, j);
    }
    out
}

fn push(file: &Bytes, threads: usize, seed: u64) -> Outcome {
    let mut rng = Rng(seed);
    let mut batches = Vec::new();
    let decoder = ParquetPushDecoder::builder(file.len() as u64)
        .with_batch_size(BATCH)
        .with_threads(threads)
        .with_footer_prefetch(if rng.chance(50) { 16 } else { 64 << 10 })
        .with_coalesce_gap(rng.below(4096))
        // From a byte at first (a header read over several rounds, a
        // batch stopped at every page) to the default.
        .with_min_page_read([1, 97, 64 << 10][rng.index(3)])
        .build();
    let mut decoder = match decoder {
        Ok(d) => d,
        Err(e) => {
            return Outcome::of(batches, Some(e.to_string()));
        }
    };
    let mut rounds = 0u64;
    loop {
        rounds += 1;
        assert!(rounds < 10_000_000, "no progress");
        match decoder.try_decode() {
            Ok(DecodeResult::NeedsData(ranges)) => {
                assert!(!ranges.is_empty(), "asked for nothing");
                let mut ps = pieces(&ranges, file.len() as u64, &mut rng);
                // Sometimes only some pieces before asking again.
                if ps.len() > 1 && rng.chance(30) {
                    ps.truncate(1 + rng.index(ps.len() - 1));
                }
                for p in ps {
                    let data = file.slice(p.start as usize..p.end as usize);
                    decoder.push_range(p, data).unwrap();
                }
            }
            Ok(DecodeResult::Data(b)) => batches.push(b),
            Ok(DecodeResult::Finished) => {
                return Outcome::of(batches, None);
            }
            Err(e) => {
                return Outcome::of(batches, Some(e.to_string()));
            }
        }
    }
}

#[test]
fn every_source_and_the_push_decoder_read_alike() {
    let files = files();
    assert!(files.len() > 10, "only {} files", files.len());
    let mut with_data = 0;
    for (k, path) in files.iter().enumerate() {
        let file = Bytes::from(std::fs::read(path).unwrap());
        let expected = sync(ParquetReader::from_bytes(file.clone()), 1);
        with_data += usize::from(!expected.batches.is_empty());
        let name = path.display();
        for threads in [1, 3] {
            assert_eq!(
                sync(ParquetReader::open(path), threads),
                expected,
                "{name}: path, {threads} threads"
            );
            if threads == 1 {
                assert_eq!(
                    sync(
                        ParquetReader::from_reader(std::fs::File::open(path).unwrap()),
                        threads
                    ),
                    expected,
                    "{name}: Read + Seek, {threads} threads"
                );
            } else {
                assert_eq!(
                    sync(ParquetReader::from_bytes(file.clone()), threads),
                    expected,
                    "{name}: Bytes, {threads} threads"
                );
            }
            let seed = ((k as u64) << 8) | threads as u64;
            assert_eq!(
                push(&file, threads, seed),
                expected,
                "{name}: push decoder, {threads} threads, seed {seed}"
            );
        }
    }
    assert!(with_data > 10, "only {with_data} files gave batches");
}

#[test]
fn starting_from_metadata_reads_no_footer() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/sample.parquet");
    let file = Bytes::from(std::fs::read(&path).unwrap());
    let reader = ParquetReader::from_bytes(file.clone()).unwrap();
    let metadata = std::sync::Arc::new(reader.metadata().clone());
    let expected = sync(Ok(reader), 1);
    let mut decoder = ParquetPushDecoder::builder(file.len() as u64)
        .with_metadata(metadata)
        .with_batch_size(BATCH)
        .build()
        .unwrap();
    let (mut batches, mut asked) = (Vec::new(), Vec::new());
    loop {
        match decoder.try_decode().unwrap() {
            DecodeResult::NeedsData(ranges) => {
                for r in ranges {
                    asked.push(r.clone());
                    decoder
                        .push_range(r.clone(), file.slice(r.start as usize..r.end as usize))
                        .unwrap();
                }
            }
            DecodeResult::Data(b) => batches.push(b),
            DecodeResult::Finished => break,
        }
    }
    assert_eq!(batches, expected.batches);
    // Nothing from the footer's end was asked for: only pages.
    let footer_start = file.len() as u64 - 8;
    assert!(asked.iter().all(|r| r.end <= footer_start), "{asked:?}");
    assert!(!asked.is_empty());
}
