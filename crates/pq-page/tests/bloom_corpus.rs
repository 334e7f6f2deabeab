//! The parquet-testing corpus's two raw Bloom filter files (parquet-mr
//! inserted "hello", "parquet", "bloom" and "filter" into each): the one
//! in the spec's format (a Thrift header, XXH64) answers for those values
//! and rules most others out; the one in the deprecated format (a binary
//! header, Murmur3 hashing) is refused, not read as a filter that would
//! wrongly rule values out.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use pq_page::bloom::{Sbbf, xxh64};

const INSERTED: [&str; 4] = ["hello", "parquet", "bloom", "filter"];

#[test]
fn the_corpus_bloom_filters_read_as_their_writer_wrote_them() {
    let Some(dir) = pq_testkit::corpus_data_dir() else {
        pq_testkit::skip(
            "PARQUET_TESTING_DIR is not set: the corpus's Bloom filter files are not read",
        );
        return;
    };
    let bytes = std::fs::read(dir.join("bloom_filter.xxhash.bin")).unwrap();
    let (filter, used) = Sbbf::from_bytes(&bytes, 1 << 20).unwrap();
    assert_eq!(
        used,
        bytes.len(),
        "the header and bitset are the whole file"
    );
    for v in INSERTED {
        assert!(filter.check(xxh64(v.as_bytes())), "{v} is in the filter");
    }
    // A filter of a kilobyte holding four values: nearly every other value
    // is ruled out.
    let passed = (0..10_000)
        .filter(|i| filter.check(xxh64(format!("absent value {i}").as_bytes())))
        .count();
    assert!(passed < 100, "{passed} of 10000 absent values pass");

    let old = std::fs::read(dir.join("bloom_filter.bin")).unwrap();
    assert!(
        Sbbf::from_bytes(&old, 1 << 20).is_err(),
        "the deprecated Murmur3 filter is read as a filter"
    );
}
