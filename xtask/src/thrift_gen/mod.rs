//! `cargo xtask gen`: the Thrift IDL of pq-format to Rust.
//!
//! Reads `crates/pq-format/format/parquet.thrift`, generates the Rust types
//! with their compact-protocol decoders and encoders, formats them with
//! `rustfmt --edition 2024` and writes `crates/pq-format/src/generated.rs`.
//! With `check`, compares instead of writing and fails if the committed file
//! is stale.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

mod codegen;
mod parser;

const IDL: &str = "crates/pq-format/format/parquet.thrift";
const OUT: &str = "crates/pq-format/src/generated.rs";

/// Generate (or with `check`, verify) the pq-format Thrift code.
pub fn run(root: &Path, check: bool) -> crate::Result<()> {
    let idl_path = root.join(IDL);
    let src = std::fs::read_to_string(&idl_path)
        .map_err(|e| format!("cannot read {}: {e}", idl_path.display()))?;
    let defs = parser::parse(&src)?;
    let code = codegen::generate(&defs)?;
    // rustfmt is not always idempotent on long generated lines: format
    // until the output is stable (as `cargo fmt --check` would see it).
    let mut code = rustfmt(&code)?;
    for _ in 0..3 {
        let again = rustfmt(&code)?;
        if again == code {
            break;
        }
        code = again;
    }
    let out_path = root.join(OUT);
    if check {
        let current = std::fs::read_to_string(&out_path).unwrap_or_default();
        if current != code {
            return Err(format!(
                "{OUT} is stale (differs from what {IDL} generates); run `cargo xtask gen`"
            ));
        }
        Ok(())
    } else {
        std::fs::write(&out_path, code)
            .map_err(|e| format!("cannot write {}: {e}", out_path.display()))
    }
}

fn rustfmt(code: &str) -> crate::Result<String> {
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2024", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run rustfmt: {e}"))?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| "rustfmt has no stdin".to_string())?;
    let input = code.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child
        .wait_with_output()
        .map_err(|e| format!("rustfmt failed: {e}"))?;
    writer
        .join()
        .map_err(|_| "rustfmt writer thread panicked".to_string())?
        .map_err(|e| format!("cannot write to rustfmt: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "rustfmt failed on the generated code: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    String::from_utf8(output.stdout).map_err(|e| format!("rustfmt output is not UTF-8: {e}"))
}
