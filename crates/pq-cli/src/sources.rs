//! From the command line's inputs to the files to read: several files,
//! quoted globs that pq expands itself (`'data/*.parquet'`, so that the
//! same command works in shells that do not expand them, or when the list
//! would be too long for the command line) and directories, whose Parquet
//! files are read in a stable, sorted order, with hive-style `key=value`
//! directories as partition columns.

use std::path::{Path, PathBuf};

use crate::error::CliError;
use crate::input::is_stdio;

/// One file to read, and the partition values of the directories above it.
#[derive(Debug, Clone)]
pub struct Source {
    /// The file (`-` for standard input).
    pub path: PathBuf,
    /// `key=value` directories between the directory given and the file,
    /// outermost first; `None` for hive's null partition.
    pub partitions: Vec<(String, Option<String>)>,
}

/// The name hive writes for a null partition value.
const HIVE_NULL: &str = "__HIVE_DEFAULT_PARTITION__";

/// Whether a file found in a directory is one to read: a Parquet extension,
/// and not hidden or a writer's marker (`_SUCCESS`, `_metadata`, `.crc`).
fn is_parquet_name(name: &str) -> bool {
    if name.starts_with(['.', '_']) {
        return false;
    }
    Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "parquet" | "parq" | "pq"))
}

/// Whether `arg` is a pattern for pq to expand, rather than a name.
fn is_pattern(arg: &str) -> bool {
    arg.contains(['*', '?', '['])
}

/// The files `args` name, in order: each file as it is, each directory's
/// Parquet files sorted by path, each glob's matches sorted by path.
pub fn expand(args: &[PathBuf]) -> Result<Vec<Source>, CliError> {
    let mut out = Vec::new();
    for arg in args {
        if is_stdio(arg) {
            out.push(plain(arg));
            continue;
        }
        // An object in a store: one object, never listed.
        if crate::remote::is_url(arg) {
            crate::remote::check_single_object(arg)?;
            out.push(plain(arg));
            continue;
        }
        match std::fs::metadata(arg) {
            Ok(m) if m.is_dir() => {
                let before = out.len();
                walk(arg, arg, &mut out)?;
                if out.len() == before {
                    return Err(CliError::file(
                        arg,
                        "is a directory with no Parquet files (*.parquet) below it",
                    ));
                }
            }
            Ok(_) => out.push(plain(arg)),
            Err(_) if arg.to_str().is_some_and(is_pattern) => glob(arg, &mut out)?,
            // Missing: opening it gives the error.
            Err(_) => out.push(plain(arg)),
        }
    }
    Ok(out)
}

fn plain(path: &Path) -> Source {
    Source {
        path: path.to_path_buf(),
        partitions: Vec::new(),
    }
}

/// The files a glob matches, sorted (directories it matches are walked),
/// with the partitions of the directories the pattern matched.
fn glob(pattern: &Path, out: &mut Vec<Source>) -> Result<(), CliError> {
    let text = pattern.to_string_lossy();
    let paths = glob::glob(&text)
        .map_err(|e| CliError::Usage(format!("'{text}': not a valid pattern: {e}")))?;
    let mut found: Vec<PathBuf> = Vec::new();
    for p in paths {
        let p = p.map_err(|e| CliError::file(e.path(), e.error()))?;
        found.push(p);
    }
    found.sort();
    if found.is_empty() {
        return Err(CliError::Message(format!("{text}: no file matches")));
    }
    // Partitions are the `key=value` directories the pattern matched: those
    // below its fixed leading part (`sales/` in `sales/*/*.parquet`).
    let root: PathBuf = pattern
        .components()
        .take_while(|c| !is_pattern(&c.as_os_str().to_string_lossy()))
        .collect();
    for p in found {
        if p.is_dir() {
            walk(&root, &p, out)?;
        } else {
            out.push(Source {
                partitions: partitions(&root, &p),
                path: p,
            });
        }
    }
    Ok(())
}

/// The Parquet files below `dir`, sorted by name at each level, with the
/// partitions of the directories between `root` and each.
fn walk(root: &Path, dir: &Path, out: &mut Vec<Source>) -> Result<(), CliError> {
    let entries = std::fs::read_dir(dir).map_err(|e| CliError::file(dir, e))?;
    let mut paths: Vec<PathBuf> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| CliError::file(dir, e))?;
        paths.push(entry.path());
    }
    paths.sort();
    for p in paths {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if p.is_dir() {
            if !name.starts_with(['.', '_']) {
                walk(root, &p, out)?;
            }
        } else if is_parquet_name(&name) {
            out.push(Source {
                partitions: partitions(root, &p),
                path: p,
            });
        }
    }
    Ok(())
}

/// The `key=value` directories between `root` and `file`.
fn partitions(root: &Path, file: &Path) -> Vec<(String, Option<String>)> {
    let Ok(rel) = file.strip_prefix(root) else {
        return Vec::new();
    };
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    let dirs: Vec<_> = rel.components().collect();
    for c in dirs.iter().take(dirs.len().saturating_sub(1)) {
        let text = c.as_os_str().to_string_lossy();
        let Some((key, value)) = text.split_once('=') else {
            continue;
        };
        if key.is_empty() || out.iter().any(|(k, _)| k == key) {
            continue;
        }
        let value = (value != HIVE_NULL).then(|| percent_decode(value));
        out.push((percent_decode(key), value));
    }
    out
}

/// Hive escapes `/`, `=`, `%` and other characters in partition values as
/// `%XX`.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_from_directories() {
        let p = partitions(
            Path::new("/d"),
            Path::new("/d/year=2024/city=New%20York/x=__HIVE_DEFAULT_PARTITION__/f.parquet"),
        );
        assert_eq!(
            p,
            vec![
                ("year".to_string(), Some("2024".to_string())),
                ("city".to_string(), Some("New York".to_string())),
                ("x".to_string(), None),
            ]
        );
        assert!(is_parquet_name("part-0.snappy.parquet"));
        assert!(!is_parquet_name("_SUCCESS"));
        assert!(!is_parquet_name(".part-0.parquet.crc"));
    }
}
