//! Helpers shared by the cross-layer tests: where the corpus and the
//! fixtures are.

pub mod harness;

use std::path::PathBuf;

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// The project's own fixtures, written by `cargo xtask gen`.
pub fn fixtures_dir() -> PathBuf {
    workspace_root().join("data")
}

/// The parquet-testing corpus named by `PARQUET_TESTING_DIR`.
///
/// Returns `None` when it is not set, with the calling test reported skipped
/// (`pq_testkit::skip`), so that a plain `cargo test` works on a fresh
/// checkout and says what it did not check; with `CI` set a missing corpus
/// fails the test instead, so CI can never pass by skipping.
pub fn corpus_dir() -> Option<PathBuf> {
    pq_testkit::parquet_testing_dir()
}

/// The README's examples, run as doctests so they cannot rot. (`tests/data`
/// links to `../data`, so the README's paths work from this crate too.)
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeExamples;
