//! Deterministic pseudo-random data for fixtures and benchmark tables.

/// The test suites' SplitMix64 generator: one generator for every
/// deterministic value in the project, so fixtures are byte-stable.
pub use pq_testkit::Rng;

/// What the data writer draws besides numbers.
pub trait RngExt {
    /// True with probability 1 in `n`.
    fn one_in(&mut self, n: u64) -> bool;
    /// A string of `min..=max` characters, some of them multi-byte.
    fn string(&mut self, min: usize, max: usize) -> String;
    /// `len` random bytes.
    fn bytes(&mut self, len: usize) -> Vec<u8>;
}

impl RngExt for Rng {
    fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }
    fn string(&mut self, min: usize, max: usize) -> String {
        const ALPHABET: &[char] = &[
            'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q',
            'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z', ' ', 'é', 'ß', '中', '🦀', '0', '9',
        ];
        let len = min + self.below((max - min + 1) as u64) as usize;
        (0..len)
            .map(|_| ALPHABET[self.below(ALPHABET.len() as u64) as usize])
            .collect()
    }
    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

/// A column of `n` values from `f`, null where `nulls` says.
pub fn opt<T>(
    rng: &mut Rng,
    n: usize,
    null_one_in: u64,
    mut f: impl FnMut(&mut Rng, usize) -> T,
) -> Vec<Option<T>> {
    (0..n)
        .map(|i| {
            if null_one_in > 0 && rng.one_in(null_one_in) {
                None
            } else {
                Some(f(rng, i))
            }
        })
        .collect()
}
