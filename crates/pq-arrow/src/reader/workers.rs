//! The decoding threads of a batch iterator.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::placement;
use crate::row_group_tasks::RowGroupTasks;

/// Threads that live as long as the batch iterator, so that a row group
/// does not start threads (nor lose their allocator caches).
pub(super) struct Workers {
    jobs: Vec<std::sync::mpsc::Sender<Arc<RowGroupTasks>>>,
    /// The core the caller's thread ran on when it last shared a row
    /// group (`usize::MAX`: not known), for the threads to keep off it
    /// (see [`placement`]).
    caller_cpu: Arc<AtomicUsize>,
}

impl std::fmt::Debug for Workers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Workers({})", self.jobs.len())
    }
}

impl Workers {
    /// `n` threads (none when `n` is 0); a thread that cannot start is left
    /// out: the others and the calling thread do its share.
    pub(super) fn new(n: usize) -> Self {
        let mut jobs = Vec::with_capacity(n);
        let caller_cpu = Arc::new(AtomicUsize::new(usize::MAX));
        for i in 0..n {
            let (tx, rx) = std::sync::mpsc::channel::<Arc<RowGroupTasks>>();
            let caller = Arc::clone(&caller_cpu);
            let spawned = std::thread::Builder::new()
                .name(format!("pq-arrow-decode-{i}"))
                .spawn(move || {
                    // Ends when the iterator (the sender) is dropped.
                    while let Ok(tasks) = rx.recv() {
                        // Woken by the caller, maybe onto its core.
                        placement::move_off(caller.load(Ordering::Relaxed));
                        tasks.work(i + 1);
                    }
                });
            if spawned.is_ok() {
                jobs.push(tx);
            }
        }
        Workers { jobs, caller_cpu }
    }

    /// Whether there is any decoding thread.
    pub(super) fn any(&self) -> bool {
        !self.jobs.is_empty()
    }

    /// Sets every thread on the tasks of a row group.
    pub(super) fn share(&self, tasks: &Arc<RowGroupTasks>) {
        if self.jobs.is_empty() {
            return;
        }
        let cpu = placement::current_cpu().unwrap_or(usize::MAX);
        self.caller_cpu.store(cpu, Ordering::Relaxed);
        for tx in &self.jobs {
            // A thread that has stopped is left out.
            let _ = tx.send(Arc::clone(tasks));
        }
    }
}
