//! Timing for benchmarks that compare two implementations in one run:
//! alternating rounds, so that a change of machine load hits every side
//! alike, and the median of the rounds' ratios.

use std::time::{Duration, Instant};

/// Runs every one of `sides` in turn, round after round, and returns each
/// side's times in seconds, round by round. Alternating makes a change of
/// machine load hit every side alike. `PQ_BENCH_ROUNDS=N` fixes the number
/// of rounds; otherwise at least 5, and more while under `budget` (at most 40).
pub fn rounds(sides: &mut [&mut dyn FnMut() -> usize], budget: Duration) -> Vec<Vec<f64>> {
    let fixed = std::env::var("PQ_BENCH_ROUNDS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok());
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
        for (side, t) in sides.iter_mut().zip(&mut times) {
            let s = Instant::now();
            std::hint::black_box(side());
            t.push(s.elapsed().as_secs_f64());
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
