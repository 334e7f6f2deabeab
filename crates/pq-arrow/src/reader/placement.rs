//! Keeping a decoding thread off the core the caller's thread runs on.
//!
//! Why: Linux places a new thread, and often one woken by another, on the
//! core of the thread that started or woke it. A decoding thread started by
//! the reader, or woken by the first row group it is given, then shares the
//! caller's core in time slices of 4 ms while the other core idles, until
//! the scheduler's balancing moves one of them, 4-16 ms later. Measured on
//! `pq scan --threads 2` of DuckDB's ZSTD lineitem file (4 M rows, 33 row
//! groups), the two threads spent 3-28 ms a scan waiting to run (13 on
//! average over twelve scans), against 1-22 (6; 5.5 the median) with the
//! move below, and the scan took 0.97 of its time (162 against 169 ms, 201
//! alternating rounds). The check runs once a row group, when the caller
//! hands it to the thread; checking again after each wait within a row
//! group gained nothing more.
//!
//! The move: a thread that finds itself on the caller's core narrows its
//! own set of allowed cores to exclude it (the kernel moves it there and
//! then) and at once gives the set back as it was, so that the scheduler
//! stays free to place it anywhere afterwards, and a set the user narrowed
//! (`taskset`, a container's cpuset) is kept. Nothing is done where the set
//! holds one core, or on systems other than Linux.

/// The core the calling thread runs on now, if the system says.
pub(super) fn current_cpu() -> Option<usize> {
    imp::current_cpu()
}

/// Moves the calling thread off core `cpu` if it runs there and may run
/// on another, leaving the cores it may run on as they were; whether it
/// moved.
pub(super) fn move_off(cpu: usize) -> bool {
    imp::move_off(cpu)
}

#[cfg(target_os = "linux")]
mod imp {
    use std::mem::{size_of, zeroed};

    pub(super) fn current_cpu() -> Option<usize> {
        // SAFETY: no arguments; returns -1 on failure.
        let cpu = unsafe { libc::sched_getcpu() };
        usize::try_from(cpu).ok()
    }

    /// The cores the calling thread may run on.
    pub(super) fn allowed() -> Option<libc::cpu_set_t> {
        // SAFETY: `cpu_set_t` is a plain bit array, valid zeroed.
        let mut set: libc::cpu_set_t = unsafe { zeroed() };
        // SAFETY: pid 0 is the calling thread; the size is the set's.
        let got = unsafe { libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut set) };
        (got == 0).then_some(set)
    }

    /// Lets the calling thread run on `set` only; whether the kernel took
    /// it. When the thread's core is not in `set`, the kernel moves it
    /// before returning.
    pub(super) fn allow(set: &libc::cpu_set_t) -> bool {
        // SAFETY: pid 0 is the calling thread; the size is the set's.
        unsafe { libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), set) == 0 }
    }

    pub(super) fn move_off(cpu: usize) -> bool {
        if cpu >= 8 * size_of::<libc::cpu_set_t>() || current_cpu() != Some(cpu) {
            return false;
        }
        let Some(allowed) = allowed() else {
            return false;
        };
        // SAFETY: `cpu` indexes within the set's bits (checked above).
        let (count, mine) = unsafe { (libc::CPU_COUNT(&allowed), libc::CPU_ISSET(cpu, &allowed)) };
        if count < 2 || !mine {
            return false;
        }
        let mut elsewhere = allowed;
        // SAFETY: as above.
        unsafe { libc::CPU_CLR(cpu, &mut elsewhere) };
        let moved = allow(&elsewhere);
        // Given back whether or not the move happened; if this fails the
        // thread keeps a set one core narrower, which only limits where it
        // runs.
        allow(&allowed);
        moved
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub(super) fn current_cpu() -> Option<usize> {
        None
    }

    pub(super) fn move_off(_cpu: usize) -> bool {
        false
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::mem::{size_of, zeroed};

    fn same(a: &libc::cpu_set_t, b: &libc::cpu_set_t) -> bool {
        // SAFETY: every index is within the sets' bits.
        (0..8 * size_of::<libc::cpu_set_t>())
            .all(|i| unsafe { libc::CPU_ISSET(i, a) == libc::CPU_ISSET(i, b) })
    }

    fn count(set: &libc::cpu_set_t) -> i32 {
        // SAFETY: counts the set's bits.
        unsafe { libc::CPU_COUNT(set) }
    }

    /// A thread on a core moves off it and keeps the cores it may run on;
    /// on another core, nothing happens. Run on a thread of its own, whose
    /// set of cores the test may change.
    #[test]
    fn a_thread_moves_off_a_core_and_keeps_its_allowed_cores() {
        std::thread::spawn(|| {
            let before = imp::allowed().expect("sched_getaffinity works on Linux");
            if count(&before) < 2 {
                eprintln!("skipped: this process may run on one core only");
                return;
            }
            let here = current_cpu().expect("sched_getcpu works on Linux");
            assert!(!move_off(here + 1 + 4096), "not on that core: no move");
            // Wherever the scheduler put us, moving off the core we are on
            // lands on another.
            let mut moved_once = false;
            for _ in 0..10 {
                let Some(here) = current_cpu() else { break };
                if move_off(here) {
                    moved_once = true;
                    assert_ne!(current_cpu(), Some(here));
                }
                assert!(
                    same(
                        &imp::allowed().expect("sched_getaffinity works on Linux"),
                        &before
                    ),
                    "allowed cores given back"
                );
            }
            assert!(moved_once);
        })
        .join()
        .unwrap();
    }

    /// With one core allowed, nothing moves.
    #[test]
    fn a_thread_allowed_one_core_stays() {
        std::thread::spawn(|| {
            let here = current_cpu().expect("sched_getcpu works on Linux");
            // SAFETY: `cpu_set_t` is a plain bit array, valid zeroed, and
            // `here` is a core the kernel named, within its bits.
            let one = unsafe {
                let mut set: libc::cpu_set_t = zeroed();
                libc::CPU_SET(here, &mut set);
                set
            };
            // Narrows this test thread only.
            assert!(imp::allow(&one));
            assert!(!move_off(here));
            assert_eq!(current_cpu(), Some(here));
            assert!(same(
                &imp::allowed().expect("sched_getaffinity works on Linux"),
                &one
            ));
        })
        .join()
        .unwrap();
    }
}
