//! Helpers shared by the corpus tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

/// The parquet-testing checkout, or `None` (the test reported skipped) when
/// `PARQUET_TESTING_DIR` is unset. Panics when unset under `CI`.
pub fn testing_dir() -> Option<PathBuf> {
    pq_testkit::parquet_testing_dir()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Every file under `dir`, recursively, sorted.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    walk(dir, &mut v);
    v
}

/// Whether a corpus file is a Parquet file (plain or encrypted).
pub fn is_parquet(p: &Path) -> bool {
    let name = p.file_name().unwrap().to_string_lossy();
    name.ends_with(".parquet") || name.ends_with(".parquet.encrypted")
}

/// Whether a corpus file is encrypted.
pub fn is_encrypted(p: &Path) -> bool {
    let name = p.file_name().unwrap().to_string_lossy();
    name.ends_with(".parquet.encrypted") || p.components().any(|c| c.as_os_str() == "aes256")
}

/// The plaintext Parquet files of the corpus's `data/`.
pub fn plain_files(root: &Path) -> Vec<PathBuf> {
    files(&root.join("data"))
        .into_iter()
        .filter(|p| is_parquet(p) && !is_encrypted(p))
        .collect()
}

/// The serialized `FileMetaData` of a file (no validation beyond lengths).
pub fn footer_bytes(file: &[u8]) -> &[u8] {
    let n = file.len();
    let len = u32::from_le_bytes(file[n - 8..n - 4].try_into().unwrap()) as usize;
    &file[n - 8 - len..n - 8]
}
