//! The committed generated code matches the IDL: `cargo xtask gen --check`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

#[test]
fn generated_code_is_fresh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(env!("CARGO"))
        .args(["xtask", "gen", "--check"])
        .current_dir(&root)
        .output()
        .expect("run cargo xtask gen --check");
    assert!(
        out.status.success(),
        "cargo xtask gen --check failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
