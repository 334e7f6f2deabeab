//! The fixtures in `data/` are what the arrow-rs writer makes of their
//! specifications now: `xtask-datagen fixtures --check`, run as a test so
//! that CI checks them with the binary the workspace's test build makes
//! anyway (a `cargo run -p xtask-datagen` of its own resolves other
//! features and built arrow-rs a second time: four and a half minutes of a
//! cold CI run).

#![allow(clippy::expect_used)]

use std::process::Command;

#[test]
fn fixtures_match_their_specifications() {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask-datagen"))
        .args(["fixtures", "--check"])
        .output()
        .expect("xtask-datagen runs");
    assert!(
        out.status.success(),
        "the fixtures in data/ are stale (`cargo xtask gen` writes them):\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
