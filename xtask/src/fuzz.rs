//! `cargo xtask fuzz [--minutes N] [--target NAME]`: every fuzz target in
//! turn, for N minutes each, with the nightly toolchain and cargo-fuzz
//! (installed if missing). Crashes are minimised into
//! `tests/regressions/<target>/`, which a stable `cargo test` replays.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The targets in `fuzz/fuzz_targets`, in the order they run.
const TARGETS: &[&str] = &[
    "footer",
    "thrift",
    "encodings",
    "decompress",
    "page_reader",
    "read_file",
];

/// Run the fuzzers.
pub fn run(root: &Path, args: &[String]) -> crate::Result<()> {
    let minutes: f64 = flag(args, "--minutes")
        .map(|m| {
            m.parse()
                .map_err(|_| format!("--minutes {m}: not a number"))
        })
        .transpose()?
        .unwrap_or(1.0);
    let only = flag(args, "--target");
    let seconds = (minutes * 60.0).max(1.0) as u64;
    ensure_cargo_fuzz()?;
    let fuzz_dir = root.join("fuzz");
    let mut report = Vec::new();
    for target in TARGETS.iter().filter(|t| only.is_none_or(|o| o == **t)) {
        let corpus = fuzz_dir.join("corpus").join(target);
        std::fs::create_dir_all(&corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
        crate::datagen(root, &["fuzz-seeds", target, &corpus.to_string_lossy()])?;
        let artifacts = fuzz_dir.join("artifacts").join(target);
        let before = files(&artifacts);
        eprintln!("\n== fuzzing {target} for {seconds} s");
        let output = Command::new("cargo")
            .current_dir(&fuzz_dir)
            // The sanitizer build lives in fuzz/target: a CARGO_TARGET_DIR
            // meant for the workspace would rebuild everything there.
            .env_remove("CARGO_TARGET_DIR")
            .args(["+nightly", "fuzz", "run", target])
            .arg(&corpus)
            .args([
                "--",
                &format!("-max_total_time={seconds}"),
                "-rss_limit_mb=2048",
                "-malloc_limit_mb=1024",
                "-timeout=10",
                "-print_final_stats=1",
            ])
            .stdout(Stdio::inherit())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| format!("running cargo fuzz: {e}"))?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        let runs = stderr
            .lines()
            .filter_map(|l| l.strip_prefix("stat::number_of_executed_units:"))
            .filter_map(|n| n.trim().parse::<u64>().ok())
            .next_back()
            .unwrap_or(0);
        let new: Vec<PathBuf> = files(&artifacts)
            .into_iter()
            .filter(|f| !before.contains(f))
            .collect();
        for crash in &new {
            save_regression(root, &fuzz_dir, target, crash)?;
        }
        if !output.status.success() && new.is_empty() {
            // Not a finding: the build or the tool failed.
            let tail: Vec<&str> = stderr.lines().rev().take(20).collect();
            return Err(format!(
                "cargo fuzz run {target} failed:\n{}",
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            ));
        }
        let corpus_size = files(&corpus).len();
        eprintln!(
            "{target}: {runs} executions, corpus of {corpus_size}, {} crash(es)",
            new.len()
        );
        report.push((target.to_string(), runs, corpus_size, new.len()));
    }
    eprintln!(
        "\n{:<12} {:>14} {:>8} {:>8}  ({seconds} s each)",
        "target", "executions", "corpus", "crashes"
    );
    for (target, runs, corpus, crashes) in &report {
        eprintln!("{target:<12} {runs:>14} {corpus:>8} {crashes:>8}");
    }
    let crashes: usize = report.iter().map(|r| r.3).sum();
    if crashes > 0 {
        return Err(format!(
            "{crashes} crash(es) saved under tests/regressions/: fix them, then `cargo test -p pq-tests --test regressions`"
        ));
    }
    Ok(())
}

fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

fn ensure_cargo_fuzz() -> crate::Result<()> {
    let have = Command::new("cargo")
        .args(["+nightly", "fuzz", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if have {
        return Ok(());
    }
    eprintln!("installing cargo-fuzz");
    let status = Command::new("cargo")
        .args(["install", "cargo-fuzz", "--locked"])
        .status()
        .map_err(|e| format!("cargo install cargo-fuzz: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err("cargo install cargo-fuzz failed".into())
    }
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// Minimises a crash and stores it under `tests/regressions/<target>/`.
fn save_regression(root: &Path, fuzz_dir: &Path, target: &str, crash: &Path) -> crate::Result<()> {
    let dir = root.join("tests").join("regressions").join(target);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let name = crash
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "crash".into());
    // tmin writes the smallest reproducer it finds next to the artifact.
    let _ = Command::new("cargo")
        .current_dir(fuzz_dir)
        .env_remove("CARGO_TARGET_DIR")
        .args(["+nightly", "fuzz", "tmin", target])
        .arg(crash)
        .args(["--", "-runs=2000"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    let minimized = files(crash.parent().unwrap_or(fuzz_dir))
        .into_iter()
        .find(|f| {
            f.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("minimized-from"))
        });
    let source = minimized.as_deref().unwrap_or(crash);
    let dest = dir.join(name);
    std::fs::copy(source, &dest).map_err(|e| format!("{}: {e}", dest.display()))?;
    eprintln!("saved {}", dest.display());
    Ok(())
}
