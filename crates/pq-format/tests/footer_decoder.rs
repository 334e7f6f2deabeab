//! The sans-IO footer decoder: how many requests and bytes a footer costs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use bytes::Bytes;
use pq_format::{FooterDecoder, FooterStep, Limits};

fn sample() -> Bytes {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
    Bytes::from(std::fs::read(path).expect("data/sample.parquet"))
}

/// Decodes the footer of `file` with a speculative read of `prefetch`
/// bytes; the rounds of requests and the bytes asked for.
fn decode(file: &Bytes, prefetch: u64) -> (pq_format::FileMetaData, usize, u64) {
    let mut decoder =
        FooterDecoder::new(file.len() as u64, &Limits::default()).with_prefetch(prefetch);
    let (mut rounds, mut bytes) = (0, 0);
    loop {
        match decoder.try_decode().expect("footer") {
            FooterStep::NeedsData(ranges) => {
                rounds += 1;
                assert!(!ranges.is_empty());
                for r in ranges {
                    bytes += r.end - r.start;
                    let data = file.slice(r.start as usize..r.end as usize);
                    decoder.push_range(r, data).expect("push");
                }
            }
            FooterStep::Metadata(m) => return (*m, rounds, bytes),
        }
    }
}

fn metadata_len(file: &Bytes) -> u64 {
    let n = file.len();
    u64::from(u32::from_le_bytes(
        file[n - 8..n - 4].try_into().expect("4 bytes"),
    ))
}

#[test]
fn a_small_footer_costs_one_request() {
    let file = sample();
    let expected = pq_format::read_metadata_from_bytes(&file, &Limits::default()).expect("md");
    let (md, rounds, bytes) = decode(&file, pq_format::DEFAULT_FOOTER_PREFETCH);
    assert_eq!(md, expected);
    assert_eq!(rounds, 1);
    let len = file.len() as u64;
    // The whole tail, or the file when it is shorter, plus the head magic.
    let want = if len > pq_format::DEFAULT_FOOTER_PREFETCH + 4 {
        pq_format::DEFAULT_FOOTER_PREFETCH + 4
    } else {
        len
    };
    assert_eq!(bytes, want);
}

#[test]
fn a_footer_larger_than_the_speculative_read_costs_two() {
    let file = sample();
    let expected = pq_format::read_metadata_from_bytes(&file, &Limits::default()).expect("md");
    let meta = metadata_len(&file);
    assert!(meta > 64, "the sample's metadata is {meta} bytes");
    let (md, rounds, bytes) = decode(&file, 32);
    assert_eq!(md, expected);
    assert_eq!(rounds, 2);
    // Head magic, the 32 speculative bytes, then exactly the metadata.
    assert_eq!(bytes, 4 + 32 + meta);
}

#[test]
fn errors_are_those_of_the_whole_file_readers() {
    let file = sample();
    let n = file.len();
    let mut cases: Vec<Vec<u8>> = Vec::new();
    let mut bad_tail = file.to_vec();
    bad_tail[n - 1] = b'X';
    cases.push(bad_tail);
    let mut bad_head = file.to_vec();
    bad_head[0] = b'X';
    cases.push(bad_head);
    let mut long = file.to_vec();
    long[n - 8..n - 4].copy_from_slice(&(n as u32).to_le_bytes());
    cases.push(long);
    let mut garbled = file.to_vec();
    let start = n - 8 - metadata_len(&file) as usize;
    garbled[start] = 0xff;
    cases.push(garbled);
    cases.push(b"PAR1".to_vec());
    for (i, case) in cases.into_iter().enumerate() {
        let whole = pq_format::read_metadata_from_slice(&case, &Limits::default())
            .expect_err("corrupt")
            .to_string();
        for prefetch in [8, 40, 1 << 20] {
            let mut decoder =
                FooterDecoder::new(case.len() as u64, &Limits::default()).with_prefetch(prefetch);
            let err = loop {
                match decoder.try_decode() {
                    Ok(FooterStep::NeedsData(ranges)) => {
                        for r in ranges {
                            let data =
                                Bytes::copy_from_slice(&case[r.start as usize..r.end as usize]);
                            decoder.push_range(r, data).expect("push");
                        }
                    }
                    Ok(FooterStep::Metadata(_)) => panic!("case {i} decoded"),
                    Err(e) => break e.to_string(),
                }
            };
            assert_eq!(err, whole, "case {i}, prefetch {prefetch}");
        }
    }
}
