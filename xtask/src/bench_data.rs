//! `cargo xtask bench-data [--force] [--rows N]`: the benchmark matrix in
//! `target/bench-data/`.
//!
//! `xtask-datagen` generates the logical tables (to Arrow IPC sources) and
//! writes the arrow-rs files; then `xtask/bench/write_tables.py`, in the
//! bench venv, writes the same sources with pyarrow, DuckDB and Polars.

use std::path::Path;
use std::process::Command;

use crate::setup;

/// Writes what is missing of the matrix (everything with `--force`).
pub fn run(root: &Path, args: &[String]) -> crate::Result<()> {
    let mut datagen = vec!["bench-data".to_string()];
    let force = args.iter().any(|a| a == "--force");
    if force {
        datagen.push("--force".into());
    }
    if let Some(rows) = rows_arg(args)? {
        datagen.extend(["--rows".into(), rows]);
    }
    let datagen: Vec<&str> = datagen.iter().map(String::as_str).collect();
    crate::datagen(root, &datagen)?;
    let bin = setup::bench_venv(root)?;
    let dir = root.join("target").join("bench-data");
    let mut python = Command::new(bin.join("python3"));
    python
        .arg(root.join("xtask").join("bench").join("write_tables.py"))
        .arg(&dir);
    if force {
        python.arg("--force");
    }
    setup::run(&mut python, "xtask/bench/write_tables.py")?;
    eprintln!("benchmark matrix in {}", dir.display());
    Ok(())
}

/// The value after `--rows`, checked to be a number.
fn rows_arg(args: &[String]) -> crate::Result<Option<String>> {
    match args.iter().position(|a| a == "--rows") {
        None => Ok(None),
        Some(i) => match args.get(i + 1) {
            Some(n) if n.parse::<usize>().is_ok() => Ok(Some(n.clone())),
            _ => Err("--rows needs a number of rows".into()),
        },
    }
}
