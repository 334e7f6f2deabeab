//! `cargo xtask ci`: every check CI runs, in order, stopping at the first
//! failure.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// The embedded target the no_std build of pq-encoding is proven on.
const NO_STD_TARGET: &str = "thumbv7em-none-eabihf";

/// Run every check.
pub fn run(root: &Path) -> crate::Result<()> {
    let in_ci = std::env::var_os("CI").is_some();
    match std::env::var_os("PARQUET_TESTING_DIR") {
        Some(dir) => eprintln!("corpus: PARQUET_TESTING_DIR={}", Path::new(&dir).display()),
        None if in_ci => {
            return Err(
                "CI is set but PARQUET_TESTING_DIR is not: the corpus tests must run".into(),
            );
        }
        None => eprintln!("corpus: PARQUET_TESTING_DIR not set, corpus tests will skip"),
    }

    let started = Instant::now();
    step("rustfmt", || {
        cargo(root, &["fmt", "--all", "--", "--check"], &[])
    })?;
    step("clippy", || {
        cargo(
            root,
            &[
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ],
            &[],
        )
    })?;
    step("generated code and fixtures are fresh", || {
        crate::gen_all(root, true)
    })?;
    step("no_std build of pq-encoding", || {
        cargo(
            root,
            &[
                "build",
                "-p",
                "pq-encoding",
                "--no-default-features",
                "--target",
                NO_STD_TARGET,
            ],
            &[],
        )?;
        let manifest = root.join("crates/pq-encoding/no-std-check/Cargo.toml");
        if manifest.exists() {
            let manifest = manifest.to_string_lossy().into_owned();
            cargo(root, &["run", "--manifest-path", &manifest], &[])?;
        } else if in_ci {
            return Err("crates/pq-encoding/no-std-check is missing".into());
        }
        Ok(())
    })?;
    step(
        "tests (unit, property, conformance over the corpus)",
        || cargo(root, &["test", "--workspace"], &[]),
    )?;
    step("docs", || {
        cargo(
            root,
            &["doc", "--workspace", "--no-deps"],
            &[("RUSTDOCFLAGS", "-D warnings")],
        )
    })?;
    eprintln!("\nxtask ci: all checks passed in {:.0?}", started.elapsed());
    Ok(())
}

fn step(name: &str, f: impl FnOnce() -> crate::Result<()>) -> crate::Result<()> {
    eprintln!("\n== {name}");
    let t = Instant::now();
    f().map_err(|e| format!("{name}: {e}"))?;
    eprintln!("== {name}: ok ({:.1?})", t.elapsed());
    Ok(())
}

fn cargo(root: &Path, args: &[&str], env: &[(&str, &str)]) -> crate::Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let status = cmd
        .status()
        .map_err(|e| format!("could not run cargo {}: {e}", args.join(" ")))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {}` failed ({status})", args.join(" ")))
    }
}
