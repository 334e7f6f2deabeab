//! Deterministic pseudo-random data for fixtures and benchmark tables.

/// SplitMix64: a tiny deterministic generator, so fixtures are byte-stable.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    /// True with probability 1 in `n`.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }
    pub fn string(&mut self, min: usize, max: usize) -> String {
        const ALPHABET: &[char] = &[
            'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q',
            'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z', ' ', 'é', 'ß', '中', '🦀', '0', '9',
        ];
        let len = min + self.below((max - min + 1) as u64) as usize;
        (0..len)
            .map(|_| ALPHABET[self.below(ALPHABET.len() as u64) as usize])
            .collect()
    }
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
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
