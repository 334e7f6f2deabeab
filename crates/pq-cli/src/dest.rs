//! Where `pq convert` writes, chosen by what the destination is, as `cp`
//! does:
//!
//! - `-` is standard output, written as the conversion goes.
//! - An existing FIFO or character device (`/dev/null`, a terminal) is
//!   written through: replacing it by a regular file would break whoever
//!   reads it, and it cannot hold a partial file anyway.
//! - A regular file, new or existing, is written to a hidden temporary file
//!   next to it (`.NAME.pq-tmp-PID`) that is renamed over it at the end, so
//!   a failed or interrupted conversion leaves the old file whole and no
//!   partial one. The temporary file is removed on any error and on SIGINT,
//!   SIGTERM or SIGHUP; one left by a killed run (SIGKILL, a crash) is
//!   removed by the next run that writes the same destination. An existing
//!   file keeps its permissions; a symbolic link keeps pointing to the file,
//!   which is replaced. When it replaces an existing file, the temporary
//!   file is synced to the disk before the rename, so that a crash of the
//!   machine just after cannot lose the old file's data along with the new
//!   one's; a new file is not (nothing is lost if it is not whole after a
//!   crash, and waiting until the disk has all of it would make every
//!   conversion as slow as the disk: 27 ms for 66 MB on the benchmark
//!   machine's disk, a second or more on a slow one).
//! - Anything else (a directory, a socket, a block device) is refused.

use std::fs::{File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::CliError;
use crate::input::is_stdio;
use crate::signals;

/// The open destination: a file (temporary or written through) or
/// standard output.
pub enum Target {
    /// A file.
    File(File),
    /// Standard output.
    Stdout(io::Stdout),
}

/// Set when standard output's reader has gone (`pq convert f - | head`):
/// the writers above report it only as text, and it is no error.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Whether a write to standard output found its reader gone.
pub fn stdout_closed() -> bool {
    STDOUT_CLOSED.load(Ordering::Relaxed)
}

fn note_closed<T>(r: io::Result<T>) -> io::Result<T> {
    if let Err(e) = &r
        && e.kind() == io::ErrorKind::BrokenPipe
    {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
    }
    r
}

impl Write for Target {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Target::File(f) => f.write(buf),
            Target::Stdout(s) => note_closed(s.write(buf)),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Target::File(f) => f.flush(),
            Target::Stdout(s) => note_closed(s.flush()),
        }
    }
}

/// A destination being written; [`Destination::commit`] publishes it, and
/// dropping it uncommitted removes the temporary file.
pub struct Destination {
    /// The path the user gave, for messages.
    shown: PathBuf,
    /// The temporary file and what it replaces, when not written through.
    replace: Option<Replace>,
}

struct Replace {
    temp: PathBuf,
    target: PathBuf,
    /// The replaced file's permissions; `None` when the target is new.
    permissions: Option<Permissions>,
}

impl Replace {
    /// Whether the temporary file is synced before the rename: only when
    /// it replaces a file (see the module's comment).
    fn syncs(&self) -> bool {
        self.permissions.is_some()
    }
}

/// The start of the temporary file names for `name`; the process id
/// follows.
fn temp_prefix(name: &str) -> String {
    format!(".{name}.pq-tmp-")
}

impl Destination {
    /// Opens `output` for writing, by what it is (see the module docs).
    pub fn open(output: &Path) -> Result<(Destination, Target), CliError> {
        let err = |what: String| CliError::output(output, what);
        if is_stdio(output) {
            let dest = Destination {
                shown: output.to_path_buf(),
                replace: None,
            };
            return Ok((dest, Target::Stdout(io::stdout())));
        }
        let existing = match std::fs::metadata(output) {
            Ok(meta) => Some(meta),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(err(format!("cannot write: {e}"))),
        };
        if let Some(meta) = &existing {
            if meta.is_dir() {
                return Err(err("is a directory".into()));
            }
            if streams(meta) {
                let file = OpenOptions::new()
                    .write(true)
                    .open(output)
                    .map_err(|e| err(format!("cannot write: {e}")))?;
                let dest = Destination {
                    shown: output.to_path_buf(),
                    replace: None,
                };
                return Ok((dest, Target::File(file)));
            }
            if !meta.is_file() {
                return Err(err(
                    "is neither a regular file, a FIFO nor a character device; \
                     pq does not replace it"
                        .into(),
                ));
            }
        }
        // Through a symbolic link, the file it points to is replaced.
        let target = match std::fs::symlink_metadata(output) {
            Ok(m) if m.file_type().is_symlink() && existing.is_some() => {
                std::fs::canonicalize(output).map_err(|e| err(format!("cannot write: {e}")))?
            }
            _ => output.to_path_buf(),
        };
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        remove_stale(&dir, &name);
        let temp = dir.join(format!("{}{}", temp_prefix(&name), std::process::id()));
        let permissions = existing.map(|m| m.permissions());
        signals::remove_on_signal(&temp).map_err(|e| err(format!("cannot handle signals: {e}")))?;
        let dest = Destination {
            shown: output.to_path_buf(),
            replace: Some(Replace {
                temp,
                target,
                permissions,
            }),
        };
        let file = dest
            .create_temp()
            .map_err(|e| err(format!("cannot write: {e}")))?;
        Ok((dest, Target::File(file)))
    }

    /// Creates the temporary file, from the start as private as the file it
    /// replaces.
    fn create_temp(&self) -> io::Result<File> {
        let Some(r) = &self.replace else {
            return Err(io::Error::other("no temporary file"));
        };
        let mut options = OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        if let Some(p) = &r.permissions {
            use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
            options.mode(p.mode() & 0o777);
        }
        options.open(&r.temp)
    }

    /// Publishes what was written to `target`: a temporary file is synced
    /// when it replaces a file, given that file's permissions and renamed
    /// over it.
    pub fn commit(mut self, target: Target) -> Result<(), CliError> {
        let shown = self.shown.clone();
        let err = |e: io::Error| CliError::output(&shown, format!("cannot write: {e}"));
        let Some(r) = self.replace.take() else {
            let mut target = target;
            return target.flush().map_err(|e| match e.kind() {
                io::ErrorKind::BrokenPipe => CliError::BrokenPipe,
                _ => err(e),
            });
        };
        let result = (|| {
            if let Target::File(file) = &target
                && r.syncs()
            {
                file.sync_all()?;
            }
            drop(target);
            if let Some(p) = &r.permissions {
                std::fs::set_permissions(&r.temp, p.clone())?;
            }
            signals::settle(|| std::fs::rename(&r.temp, &r.target))
        })();
        if result.is_err() {
            signals::settle(|| std::fs::remove_file(&r.temp)).ok();
        }
        result.map_err(err)
    }
}

impl Drop for Destination {
    fn drop(&mut self) {
        if let Some(r) = &self.replace {
            signals::settle(|| std::fs::remove_file(&r.temp)).ok();
        }
    }
}

/// Whether a destination is written through rather than replaced.
#[cfg(unix)]
fn streams(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    t.is_fifo() || t.is_char_device()
}

/// Whether a destination is written through rather than replaced.
#[cfg(not(unix))]
fn streams(_meta: &std::fs::Metadata) -> bool {
    false
}

/// Removes the temporary files for `name` in `dir` that no running process
/// writes: their process has ended (killed before it could clean up), or
/// its id is this process's own. Best effort: a directory that cannot be
/// listed is left as it is, and the new temporary file is written anyway.
fn remove_stale(dir: &Path, name: &str) {
    let prefix = temp_prefix(name);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(pid) = file_name
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == std::process::id() || !running(pid) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether process `pid` exists (signal 0 checks without sending).
#[cfg(unix)]
fn running(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: kill with signal 0 sends nothing; it only reports whether
    // the process exists (EPERM: it does, owned by someone else).
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Without a way to ask, every process is taken to be running.
#[cfg(not(unix))]
fn running(_pid: u32) -> bool {
    true
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    /// Only a destination that replaces a file is synced before its rename.
    #[test]
    fn only_a_replaced_file_is_synced() {
        let dir = std::env::temp_dir().join(format!("pq-dest-sync-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.parquet");
        let _ = std::fs::remove_file(&path);
        let syncs = |dest: &Destination| dest.replace.as_ref().map(Replace::syncs);

        let (new, target) = Destination::open(&path).unwrap();
        assert_eq!(syncs(&new), Some(false), "a new file is not synced");
        new.commit(target).unwrap();
        assert!(path.is_file());

        let (replacing, target) = Destination::open(&path).unwrap();
        assert_eq!(syncs(&replacing), Some(true), "a replaced file is synced");
        replacing.commit(target).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
