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

/// `file` (a whole Parquet file the test wrote) with its footer replaced
/// by `edit` of it: how the tests plant a fault in the metadata while the
/// pages stay as written. Panics when `file` has no readable footer, which
/// a test's own file always has.
pub fn with_footer(file: &[u8], edit: impl FnOnce(&mut pq_format::FileMetaData)) -> bytes::Bytes {
    let mut meta = match pq_format::read_metadata_from_slice(file, &Default::default()) {
        Ok(meta) => meta,
        Err(e) => panic!("the test's own file has no readable footer: {e}"),
    };
    edit(&mut meta);
    // The footer's length sits before the closing magic; what precedes the
    // footer (magic and pages) is kept as it is.
    let len_at = file.len().saturating_sub(8);
    let len = file
        .get(len_at..len_at + 4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map_or(0, |b| u32::from_le_bytes(b) as usize);
    let mut out = file
        .get(..len_at.saturating_sub(len))
        .unwrap_or_default()
        .to_vec();
    let footer = pq_format::ThriftEncode::encode(&meta);
    out.extend_from_slice(&footer);
    out.extend_from_slice(&(footer.len() as u32).to_le_bytes());
    out.extend_from_slice(b"PAR1");
    bytes::Bytes::from(out)
}

/// The README's examples, run as doctests so they cannot rot. (`tests/data`
/// links to `../data`, so the README's paths work from this crate too.)
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeExamples;
