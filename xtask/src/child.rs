//! Runs a program to its end and measures it from outside: wall time and
//! peak resident memory, from `wait4`'s resource usage of that one child
//! (no dependency: the call is declared here). Elsewhere than Linux the
//! peak memory is not known.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one run of a child gave.
pub struct Run {
    /// From spawning to the end of the child.
    pub wall: Duration,
    /// Peak resident set size in bytes, where the system reports it.
    pub peak_rss: Option<u64>,
    /// Its standard output.
    pub stdout: String,
}

/// Runs `command` with its standard output captured; an exit other than
/// success is an error quoting its standard error.
pub fn run(command: &mut Command) -> crate::Result<Run> {
    let what = format!("{command:?}");
    let start = Instant::now();
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not run {what}: {e}"))?;
    // Drained while the child runs, so that it never waits on a full pipe.
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let (success, peak_rss) = wait(&mut child).map_err(|e| format!("waiting for {what}: {e}"))?;
    let wall = start.elapsed();
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    if !success {
        return Err(format!("{what} failed: {}", stderr.trim()));
    }
    Ok(Run {
        wall,
        peak_rss,
        stdout,
    })
}

/// Reads `pipe` to its end on a thread of its own.
/// One round of `commands`, each run once and its run pushed to
/// `runs[k]`, `before(k)` called ahead of command `k`. Each round starts
/// one command later than the round before, so that every command runs
/// after every other equally often (as `pq_testkit::timing::rounds` does
/// in process): what one run leaves behind (the page cache, the CPU's
/// clock) would otherwise always favour the same one.
pub fn run_round(
    commands: &mut [&mut Command],
    round: usize,
    runs: &mut [Vec<Run>],
    mut before: impl FnMut(usize) -> crate::Result<()>,
) -> crate::Result<()> {
    let n = commands.len();
    for k in (0..n).map(|i| (i + round) % n) {
        before(k)?;
        if let (Some(command), Some(into)) = (commands.get_mut(k), runs.get_mut(k)) {
            into.push(run(command)?);
        }
    }
    Ok(())
}

/// The wall times of `runs`, in seconds.
pub fn walls(runs: &[Run]) -> Vec<f64> {
    runs.iter().map(|r| r.wall.as_secs_f64()).collect()
}

/// The peak memory of `runs` that report one, in bytes.
pub fn peaks(runs: &[Run]) -> Vec<f64> {
    runs.iter()
        .filter_map(|r| r.peak_rss)
        .map(|b| b as f64)
        .collect()
}

fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut pipe) = pipe {
            // A pipe that fails mid-way leaves what was read; the exit
            // status says whether the run itself failed.
            let _ = pipe.read_to_string(&mut text);
        }
        text
    })
}

/// The resource usage `wait4` fills in (`struct rusage` of 64-bit Linux:
/// two `timeval`s, then fourteen `long`s, the first the peak RSS in KiB).
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
#[repr(C)]
struct Rusage {
    utime: [i64; 2],
    stime: [i64; 2],
    maxrss_kib: i64,
    rest: [i64; 13],
}

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
unsafe extern "C" {
    fn wait4(pid: i32, status: *mut i32, options: i32, rusage: *mut Rusage) -> i32;
}

/// Waits for `child` with `wait4`, which reports the peak memory of this
/// child alone; returns whether it exited with status 0, and that peak.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn wait(child: &mut std::process::Child) -> std::io::Result<(bool, Option<u64>)> {
    let pid = i32::try_from(child.id()).map_err(std::io::Error::other)?;
    let mut status = 0i32;
    let mut usage = Rusage {
        utime: [0; 2],
        stime: [0; 2],
        maxrss_kib: 0,
        rest: [0; 13],
    };
    loop {
        // SAFETY: `status` and `usage` are live, writable and laid out as
        // the C types wait4 writes; `pid` is our own unwaited child, so no
        // other process's status is taken.
        let r = unsafe { wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            break;
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
    // WIFEXITED and WEXITSTATUS == 0: the low 16 bits are all zero.
    let success = status & 0xffff == 0;
    Ok((success, Some(usage.maxrss_kib.max(0) as u64 * 1024)))
}

#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
fn wait(child: &mut std::process::Child) -> std::io::Result<(bool, Option<u64>)> {
    Ok((child.wait()?.success(), None))
}

#[cfg(all(test, unix))]
mod tests {
    use std::process::Command;

    #[test]
    fn a_round_starts_one_command_later_and_files_each_run_under_its_command() {
        let echo = |k: &str| {
            let mut c = Command::new("echo");
            c.arg(k);
            c
        };
        let (mut a, mut b, mut c) = (echo("0"), echo("1"), echo("2"));
        let mut runs: [Vec<super::Run>; 3] = Default::default();
        let mut order = Vec::new();
        for round in 0..3 {
            super::run_round(&mut [&mut a, &mut b, &mut c], round, &mut runs, |k| {
                order.push(k);
                Ok(())
            })
            .unwrap();
        }
        assert_eq!(order, [0, 1, 2, 1, 2, 0, 2, 0, 1]);
        for (k, runs) in runs.iter().enumerate() {
            assert_eq!(runs.len(), 3);
            assert!(runs.iter().all(|r| r.stdout.trim() == k.to_string()));
        }
    }
}
