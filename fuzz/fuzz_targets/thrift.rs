//! Fuzz target `thrift`: see `pq_tests::harness::thrift`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pq_tests::harness::thrift(data));
