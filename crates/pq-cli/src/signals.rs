//! Removing the temporary file of `pq convert` when SIGINT, SIGTERM or
//! SIGHUP ends the command, so an interrupted conversion leaves nothing
//! behind.
//!
//! The signals are received by `signal-hook` on a thread of their own, where
//! removing a file is as safe as anywhere else (a handler that runs inside
//! the signal may call only async-signal-safe functions). That thread
//! removes the registered file and exits with 128 + the signal's number
//! (130 for SIGINT, 143 for SIGTERM), as a shell reports a process killed by
//! it. One lock orders the removal against the final rename: either the
//! rename happens first and the complete output stays, or the temporary
//! file is removed first and the rename fails.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// The temporary file to remove on a signal, if any.
static TEMP: Mutex<Option<PathBuf>> = Mutex::new(None);

fn temp() -> MutexGuard<'static, Option<PathBuf>> {
    // A panic while holding the lock leaves nothing half-done in an Option.
    TEMP.lock().unwrap_or_else(|e| e.into_inner())
}

/// Registers `path` to be removed on a signal, installing the handler on
/// first use. Fails when the handler cannot be installed.
pub fn remove_on_signal(path: &Path) -> std::io::Result<()> {
    install()?;
    *temp() = Some(path.to_path_buf());
    Ok(())
}

/// Runs `f` (the rename that publishes the output, or the removal of the
/// temporary file) with no signal handled meanwhile, then forgets the file.
pub fn settle<R>(f: impl FnOnce() -> R) -> R {
    let mut guard = temp();
    let result = f();
    *guard = None;
    result
}

#[cfg(unix)]
fn install() -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    use std::sync::Once;
    static INSTALLED: Once = Once::new();
    let mut result = Ok(());
    INSTALLED.call_once(|| {
        result = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]).and_then(
            |mut signals| {
                std::thread::Builder::new()
                    .name("pq-signals".into())
                    .spawn(move || {
                        if let Some(signal) = signals.forever().next() {
                            let guard = temp();
                            if let Some(path) = guard.as_ref() {
                                let _ = std::fs::remove_file(path);
                            }
                            // The lock stays held: no rename can follow.
                            std::process::exit(128 + signal);
                        }
                    })
                    .map(drop)
            },
        );
    });
    result
}

/// Elsewhere the temporary file is removed on errors only.
#[cfg(not(unix))]
fn install() -> std::io::Result<()> {
    Ok(())
}
