//! Fuzz target `footer`: see `pq_tests::harness::footer`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pq_tests::harness::footer(data));
