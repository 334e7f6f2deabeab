//! Fuzz target `read_file`: see `pq_tests::harness::read_file`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pq_tests::harness::read_file(data));
