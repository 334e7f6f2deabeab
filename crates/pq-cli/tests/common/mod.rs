//! Helpers the pq-cli test binaries share.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};

/// The `pq` binary this package builds.
pub fn pq() -> assert_cmd::Command {
    assert_cmd::Command::new(assert_cmd::cargo::cargo_bin("pq"))
}

/// A directory of its own for one test, empty: the process id keeps test
/// binaries running at the same time apart, the test's name the tests of one.
pub fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pq-cli-test-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A path as the `&str` an argument list takes.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
