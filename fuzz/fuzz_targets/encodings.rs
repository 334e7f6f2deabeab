//! Fuzz target `encodings`: see `pq_tests::harness::encodings`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pq_tests::harness::encodings(data));
