//! `cargo xtask core-round-trip`: how long two threads of one process take
//! to hand a cache line to each other and back.
//!
//! Why: on a virtual machine the host may run the two virtual cores on
//! neighbouring physical cores at one moment and on distant ones (another
//! die or socket) the next, for minutes at a time. Memory two threads share
//! then costs several times more to pass between them, which two separate
//! processes never pay. On the two-core machine of BENCHMARKS.md the round
//! trip was about 100 ns in some minutes and about 490 ns in others, and
//! `pq scan --threads 2` was slower in the latter while one thread and two
//! one-thread processes were not. A benchmark of threads against processes
//! notes this figure beside each round (`xtask/bench/alternate.py
//! --placement`), so that the two kinds of minutes are not mixed up.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crate::Result;
use crate::bench_read::{median, positive_flag};

/// Hand-overs per measurement: long enough to average out one interrupt,
/// short enough (tens of milliseconds) to run before every round.
const TRIPS: u64 = 100_000;

pub fn run(args: &[String]) -> Result<()> {
    let rounds = positive_flag(args, "--rounds", "rounds", 1usize)?;
    let mut times: Vec<f64> = (0..rounds).map(|_| measure()).collect::<Result<_>>()?;
    let median = median(&mut times).ok_or("no measure taken")?;
    println!("core round trip: {median:.0} ns");
    Ok(())
}

/// The mean time of one round trip, in nanoseconds: this thread writes an
/// odd number, the other answers with the next even one.
fn measure() -> Result<f64> {
    let line = Arc::new(AtomicU64::new(0));
    let other = {
        let line = Arc::clone(&line);
        std::thread::spawn(move || {
            for i in 0..TRIPS {
                while line.load(Ordering::Acquire) != 2 * i + 1 {
                    std::hint::spin_loop();
                }
                line.store(2 * i + 2, Ordering::Release);
            }
        })
    };
    // The other thread starting is not part of the measure.
    line.store(1, Ordering::Release);
    while line.load(Ordering::Acquire) != 2 {
        std::hint::spin_loop();
    }
    let start = Instant::now();
    for i in 1..TRIPS {
        line.store(2 * i + 1, Ordering::Release);
        while line.load(Ordering::Acquire) != 2 * i + 2 {
            std::hint::spin_loop();
        }
    }
    let elapsed = start.elapsed();
    other
        .join()
        .map_err(|_| "the answering thread panicked".to_string())?;
    Ok(elapsed.as_nanos() as f64 / (TRIPS - 1) as f64)
}
