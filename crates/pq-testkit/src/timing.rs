//! Timing for benchmarks that compare two implementations in one run:
//! alternating rounds, so that a change of machine load hits every side
//! alike, and the median of the rounds' ratios.

use std::time::{Duration, Instant};

/// Runs every one of `sides` in turn, round after round, and returns each
/// side's times in seconds, round by round. Alternating makes a change of
/// machine load hit every side alike. `PQ_BENCH_ROUNDS=N` fixes the number
/// of rounds; otherwise at least 5, and more while under `budget` (at most 40).
///
/// Each round starts one side later than the round before, so that every
/// side runs after every other equally often: what one read leaves behind
/// (the allocator's free lists, the caches) can make the next one faster
/// or slower, and in a fixed order the same side would always take it.
/// `PQ_BENCH_FIXED_ORDER=1` keeps the order as given, to see that effect.
pub fn rounds(sides: &mut [&mut dyn FnMut() -> usize], budget: Duration) -> Vec<Vec<f64>> {
    let fixed = std::env::var("PQ_BENCH_ROUNDS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok());
    let fixed_order = std::env::var_os("PQ_BENCH_FIXED_ORDER").is_some();
    let mut times = vec![Vec::new(); sides.len()];
    let start = Instant::now();
    let mut done = 0;
    loop {
        let more = match fixed {
            Some(n) => done < n,
            None => done < 5 || (start.elapsed() < budget && done < 40),
        };
        if !more {
            return times;
        }
        let n = sides.len();
        let first = if fixed_order { 0 } else { done % n.max(1) };
        for i in (first..n).chain(0..first) {
            let s = Instant::now();
            std::hint::black_box(sides[i]());
            times[i].push(s.elapsed().as_secs_f64());
        }
        done += 1;
    }
}

/// The median of `v` (NaN when empty).
pub fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The median of the rounds' ratios `a[i] / b[i]`, and its interquartile
/// range as text.
pub fn ratio(a: &[f64], b: &[f64]) -> (f64, String) {
    let mut r: Vec<f64> = a.iter().zip(b).map(|(x, y)| x / y).collect();
    r.sort_by(f64::total_cmp);
    let n = r.len();
    match (r.get(n / 4), r.get(3 * n / 4), r.get(n / 2)) {
        (Some(q1), Some(q3), Some(m)) => (*m, format!("{q1:.2}-{q3:.2}")),
        _ => (f64::NAN, "-".into()),
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::time::Duration;

    #[test]
    fn each_side_runs_after_every_other_and_keeps_its_own_times() {
        // Side i sleeps i ms, so its times tell whether they were filed
        // under the right side; the log tells the order.
        let log = RefCell::new(Vec::new());
        let side = |i: usize| {
            let log = &log;
            move || {
                log.borrow_mut().push(i);
                std::thread::sleep(Duration::from_millis(3 * i as u64));
                i
            }
        };
        let (mut a, mut b, mut c) = (side(0), side(1), side(2));
        let times = super::rounds(&mut [&mut a, &mut b, &mut c], Duration::ZERO);
        let log = log.into_inner();
        // Five rounds (the least without PQ_BENCH_ROUNDS), each a rotation.
        let expected: Vec<usize> = [0, 1, 2, 1, 2, 0, 2, 0, 1, 0, 1, 2, 1, 2, 0].into();
        if std::env::var_os("PQ_BENCH_ROUNDS").is_none()
            && std::env::var_os("PQ_BENCH_FIXED_ORDER").is_none()
        {
            assert_eq!(log, expected);
        }
        for (i, t) in times.iter().enumerate() {
            assert_eq!(t.len(), log.len() / 3);
            assert!(t.iter().all(|&s| s >= 0.003 * i as f64), "side {i}: {t:?}");
        }
    }
}
