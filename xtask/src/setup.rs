//! What the checks need beyond the Rust toolchain, installed by the project
//! itself so that `cargo xtask ci` passes on a fresh machine: the rustup
//! target and components, and a project-local Python virtual environment
//! with the readers the tests compare with (and another, installed only by
//! the benchmark commands, with the writers and readers of the benchmark
//! matrix).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The embedded target the no_std build of pq-encoding is proven on.
pub const NO_STD_TARGET: &str = "thumbv7em-none-eabihf";

/// The rustup components the checks run.
const COMPONENTS: &[&str] = &["rustfmt", "clippy"];

/// Adds the no_std target and the components that are missing.
pub fn rust_toolchain() -> crate::Result<()> {
    let installed = rustup(&["target", "list", "--installed"])?;
    if installed.lines().any(|l| l.trim() == NO_STD_TARGET) {
        eprintln!("rustup target {NO_STD_TARGET}: installed");
    } else {
        eprintln!("rustup target {NO_STD_TARGET}: installing");
        rustup(&["target", "add", NO_STD_TARGET])?;
    }
    let components = rustup(&["component", "list", "--installed"])?;
    for c in COMPONENTS {
        // Installed components are listed with the host triple appended.
        if components
            .lines()
            .any(|l| l == *c || l.starts_with(&format!("{c}-")))
        {
            eprintln!("rustup component {c}: installed");
        } else {
            eprintln!("rustup component {c}: installing");
            rustup(&["component", "add", c])?;
        }
    }
    Ok(())
}

fn rustup(args: &[&str]) -> crate::Result<String> {
    let out = Command::new("rustup").args(args).output().map_err(|e| {
        format!(
            "could not run `rustup {}` ({e}): the checks need rustup to add the \
             {NO_STD_TARGET} target and the rustfmt and clippy components",
            args.join(" ")
        )
    })?;
    if !out.status.success() {
        return Err(format!(
            "`rustup {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Creates or updates `target/venv` from `xtask/python-requirements.txt`
/// and returns its `bin` directory, to go first on the tests' `PATH`.
pub fn python_venv(root: &Path) -> crate::Result<PathBuf> {
    venv(root, "venv", "python-requirements.txt")
}

/// Creates or updates `target/bench-venv` from
/// `xtask/bench-requirements.txt` (pyarrow, DuckDB and Polars, the other
/// writers and readers of the benchmark matrix) and returns its `bin`
/// directory. A venv of its own, so that the tests' venv does not grow and
/// only `cargo xtask bench-data` and `bench-read` install it.
pub fn bench_venv(root: &Path) -> crate::Result<PathBuf> {
    venv(root, "bench-venv", "bench-requirements.txt")
}

/// Installs `xtask/azurite/package.json`'s packages (Azurite, the Azure
/// Blob Storage emulator, and Azure's client that uploads to it) into
/// `target/azurite` with npm, for the az:// tests. Again only when the
/// file changes, as for the venvs. Without npm, says so and leaves it: the
/// tests that need Azurite then report themselves skipped (a failure under
/// `CI`).
pub fn azurite(root: &Path) -> crate::Result<()> {
    let dir = root.join("target").join("azurite");
    let package = root.join("xtask").join("azurite").join("package.json");
    let wanted = std::fs::read_to_string(&package)
        .map_err(|e| format!("reading {}: {e}", package.display()))?;
    let stamp = dir.join("pq-package.json");
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(wanted.as_str())
        && dir
            .join("node_modules")
            .join(".bin")
            .join("azurite-blob")
            .exists()
    {
        eprintln!("azurite {}: up to date", dir.display());
        return Ok(());
    }
    if Command::new("npm").arg("--version").output().is_err() {
        eprintln!("azurite: npm is not installed; the az:// tests will be skipped");
        return Ok(());
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    std::fs::write(dir.join("package.json"), &wanted)
        .map_err(|e| format!("writing {}: {e}", dir.display()))?;
    eprintln!(
        "azurite: installing {} into {}",
        package.display(),
        dir.display()
    );
    run(
        Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir),
        "npm install (Azurite)",
    )?;
    std::fs::write(&stamp, &wanted).map_err(|e| format!("writing {}: {e}", stamp.display()))?;
    Ok(())
}

/// Creates or updates `target/NAME` from `xtask/REQUIREMENTS` and returns
/// its `bin` directory.
///
/// The requirements are installed again only when the file changes (a
/// package added or a pin moved): a copy of the file last installed is kept
/// in the venv and compared whole, and written only after pip succeeds, so
/// a failed install is tried again next time.
fn venv(root: &Path, name: &str, requirements: &str) -> crate::Result<PathBuf> {
    let venv = root.join("target").join(name);
    let bin = venv.join("bin");
    let requirements = root.join("xtask").join(requirements);
    let wanted = std::fs::read_to_string(&requirements)
        .map_err(|e| format!("reading {}: {e}", requirements.display()))?;
    let stamp = venv.join("pq-requirements.txt");
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(wanted.as_str())
        && bin.join("python3").exists()
    {
        eprintln!("python venv {}: up to date", venv.display());
        return Ok(bin);
    }
    if !bin.join("python3").exists() {
        eprintln!("python venv {}: creating", venv.display());
        run(
            Command::new("python3").arg("-m").arg("venv").arg(&venv),
            "python3 -m venv (the checks need Python 3 with its venv module, \
             e.g. Debian's python3-venv)",
        )?;
    }
    eprintln!("python venv: installing {}", requirements.display());
    run(
        Command::new(bin.join("python3"))
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "-r",
            ])
            .arg(&requirements),
        "pip install into the venv",
    )?;
    std::fs::write(&stamp, wanted).map_err(|e| format!("writing {}: {e}", stamp.display()))?;
    Ok(bin)
}

pub fn run(command: &mut Command, what: &str) -> crate::Result<()> {
    let status = command
        .status()
        .map_err(|e| format!("could not run {what}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}
