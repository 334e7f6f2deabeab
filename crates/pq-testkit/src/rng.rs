//! The pseudo-random generator of the test suites.

/// SplitMix64: a small deterministic generator, so that every run of a
/// test draws the same values from the same seed (and a failure seen once
/// is seen again). Not for anything but tests.
///
/// ```
/// let mut rng = pq_testkit::Rng(42);
/// let a = rng.next();
/// assert_ne!(a, rng.next());
/// assert!(rng.below(10) < 10);
/// assert!(rng.index(3) < 3);
/// assert_eq!(pq_testkit::Rng(42).next(), a);
/// ```
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits. Not `Iterator::next`: the stream never
    /// ends, and the tests take plain numbers from it.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// An index below `n` (0 when `n` is 0).
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// True with a chance of `pct` in 100.
    pub fn chance(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }
}
