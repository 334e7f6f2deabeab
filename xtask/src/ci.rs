//! `cargo xtask ci`: installs what the checks need, then runs every check CI
//! runs, in order, stopping at the first failure, and ends with a summary of
//! every test that was skipped and why.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::setup::{self, NO_STD_TARGET};

/// The optional features the checks build too: pq under Ballista (its
/// codecs, binaries and multi-process test). Every step names the same
/// set, so that DataFusion is built with one set of features.
const DISTRIBUTED: &str = "pq-datafusion/ballista";

/// Run every check.
pub fn run(root: &Path) -> crate::Result<()> {
    let started = Instant::now();
    let in_ci = std::env::var_os("CI").is_some();
    eprintln!(
        "xtask ci: setup (rustup target and components, Python venv, Azurite), then rustfmt, clippy, \
         generated code, the no_std build, tests and docs"
    );
    step("setup: rust toolchain", setup::rust_toolchain)?;
    let venv_bin = step("setup: python venv with pyarrow, duckdb and moto", || {
        setup::python_venv(root)
    })?;
    step("setup: azurite (npm)", || setup::azurite(root))?;
    corpus(in_ci)?;

    // The tests find `python3` with pyarrow and duckdb, and `moto_server`,
    // in the venv, and append the tests they skip to the log (see
    // pq-testkit).
    let path = prepend_path(&venv_bin)?;
    let skip_log = root.join("target").join("pq-skipped-tests.log");
    std::fs::remove_file(&skip_log).ok();
    let skip_log_str = skip_log.to_string_lossy().into_owned();
    let env: &[(&str, &str)] = &[("PATH", &path), ("PQ_SKIP_LOG", &skip_log_str)];

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
                "--features",
                DISTRIBUTED,
                "--",
                "-D",
                "warnings",
            ],
            &[],
        )
    })?;
    // The fixtures are checked by a test of xtask-datagen
    // (`fixtures_are_fresh`), with the binary the tests' build makes.
    step("generated code is fresh", || {
        crate::thrift_gen::run(root, true)
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
        let manifest = manifest.to_string_lossy().into_owned();
        cargo(root, &["run", "--manifest-path", &manifest], &[])
    })?;
    step(
        "tests (unit, property, conformance over the corpus)",
        || {
            cargo(
                root,
                &["test", "--workspace", "--features", DISTRIBUTED],
                env,
            )
        },
    )?;
    step("docs", || {
        // Examples too: they take the dev-dependencies, whose features then
        // unify as in clippy's `--all-targets` build, so that the
        // dependencies' metadata checked there serves here (without them,
        // DataFusion and the rest were checked again: 8 of the step's 9
        // minutes).
        cargo(
            root,
            &[
                "doc",
                "--workspace",
                "--no-deps",
                "--lib",
                "--bins",
                "--examples",
                "--features",
                DISTRIBUTED,
            ],
            &[("RUSTDOCFLAGS", "-D warnings")],
        )
    })?;
    let skipped = report_skips(&skip_log);
    if in_ci && skipped > 0 {
        return Err(format!("CI is set but {skipped} tests were skipped"));
    }
    eprintln!(
        "\nxtask ci: all checks passed in {:.0?}{}",
        started.elapsed(),
        match skipped {
            0 => String::new(),
            n => format!("; {n} tests skipped their checks (listed above)"),
        }
    );
    Ok(())
}

/// Says whether the corpus tests will run; under CI a missing corpus fails.
fn corpus(in_ci: bool) -> crate::Result<()> {
    match std::env::var_os("PARQUET_TESTING_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if !dir.join("data").is_dir() {
                return Err(format!(
                    "PARQUET_TESTING_DIR={} has no data/ directory: point it at a \
                     parquet-testing checkout",
                    dir.display()
                ));
            }
            eprintln!("corpus: PARQUET_TESTING_DIR={}", dir.display());
        }
        None if in_ci => {
            return Err(
                "CI is set but PARQUET_TESTING_DIR is not: the corpus tests must run".into(),
            );
        }
        None => eprintln!(
            "corpus: PARQUET_TESTING_DIR is not set; the corpus tests will be skipped \
             and listed at the end"
        ),
    }
    Ok(())
}

fn prepend_path(dir: &Path) -> crate::Result<String> {
    let mut paths = vec![dir.to_path_buf()];
    if let Some(path) = std::env::var_os("PATH") {
        paths.extend(std::env::split_paths(&path));
    }
    let joined = std::env::join_paths(paths).map_err(|e| format!("building PATH: {e}"))?;
    Ok(joined.to_string_lossy().into_owned())
}

/// Prints the skipped tests, grouped by test binary and reason, and returns
/// how many there were.
fn report_skips(log: &Path) -> usize {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let (total, lines) = skip_summary(&text);
    for line in lines {
        eprintln!("{line}");
    }
    total
}

/// The number of skipped tests in a skip log (`suite::test<TAB>reason` a
/// line) and the summary lines to print.
fn skip_summary(log: &str) -> (usize, Vec<String>) {
    // (suite, reason) -> tests
    let mut groups: BTreeMap<(&str, &str), Vec<&str>> = BTreeMap::new();
    let mut total = 0;
    for line in log.lines() {
        let Some((test, reason)) = line.split_once('\t') else {
            continue;
        };
        let (suite, name) = test.split_once("::").unwrap_or((test, ""));
        groups.entry((suite, reason)).or_default().push(name);
        total += 1;
    }
    if total == 0 {
        return (0, Vec::new());
    }
    let suites: BTreeSet<&str> = groups.keys().map(|(s, _)| *s).collect();
    let mut lines = vec![format!(
        "\n== skipped: {total} tests in {} suites did not run their checks",
        suites.len()
    )];
    for ((suite, reason), tests) in &groups {
        let n = tests.len();
        let noun = if n == 1 { "test" } else { "tests" };
        lines.push(format!("  {suite} ({n} {noun}): {reason}"));
        lines.push(format!("      {}", tests.join(", ")));
    }
    (total, lines)
}

fn step<T>(name: &str, f: impl FnOnce() -> crate::Result<T>) -> crate::Result<T> {
    eprintln!("\n== {name}");
    let t = Instant::now();
    let out = f().map_err(|e| format!("{name}: {e}"))?;
    eprintln!("== {name}: ok ({:.1?})", t.elapsed());
    Ok(out)
}

fn cargo(root: &Path, args: &[&str], env: &[(&str, &str)]) -> crate::Result<()> {
    let mut cmd = crate::cargo();
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

#[cfg(test)]
mod tests {
    use super::skip_summary;

    #[test]
    fn skips_are_grouped_by_suite_and_reason() {
        let log = "corpus::a\tno corpus\ncorpus::b\tno corpus\ncli::c\tno corpus\n\
                   write_interop::d\tno pyarrow\nnot a skip line\n";
        let (total, lines) = skip_summary(log);
        assert_eq!(total, 4);
        assert!(lines[0].contains("4 tests in 3 suites"), "{lines:?}");
        assert!(
            lines.contains(&"  corpus (2 tests): no corpus".to_string()),
            "{lines:?}"
        );
        assert!(lines.contains(&"      a, b".to_string()), "{lines:?}");
        assert!(
            lines.contains(&"  write_interop (1 test): no pyarrow".to_string()),
            "{lines:?}"
        );
    }

    #[test]
    fn an_empty_log_reports_nothing() {
        assert_eq!(skip_summary(""), (0, Vec::new()));
    }
}
