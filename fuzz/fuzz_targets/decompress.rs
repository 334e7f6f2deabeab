//! Fuzz target `decompress`: see `pq_tests::harness::decompress`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pq_tests::harness::decompress(data));
