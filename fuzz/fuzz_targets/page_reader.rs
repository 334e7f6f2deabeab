//! Fuzz target `page_reader`: see `pq_tests::harness::page_reader`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pq_tests::harness::page_reader(data));
