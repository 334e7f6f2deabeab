//! A growable bitmap, LSB first in 64-bit words: the layout of an Arrow
//! validity buffer, so the layer above hands its words to Arrow as they are.
//!
//! Bits are appended a word at a time (a run of equal bits, 64 bits of a
//! byte slice, a range of another bitmap, the bits of a word a mask
//! selects), never one by one.

use std::ops::Range;

/// Bits in 64-bit words, LSB first; the bits past `len` are zero.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bitmap {
    words: Vec<u64>,
    len: usize,
}

/// The low `n` bits set (`n` up to 64).
fn low_bits(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// The bits of `word` where `mask` is set, packed into the low bits in
/// order (BMI2's `pext`), a run of set mask bits at a time.
fn select(mut word: u64, mut mask: u64) -> u64 {
    let mut out = 0u64;
    let mut at = 0u32;
    while mask != 0 {
        let skip = mask.trailing_zeros();
        word >>= skip;
        mask >>= skip;
        // The run of kept bits: `mask` ends in at least one set bit here.
        let run = (!mask).trailing_zeros();
        out |= (word & low_bits(run as usize)) << at;
        at += run;
        // A run of 64 leaves nothing: a shift by 64 would overflow.
        word = word.checked_shr(run).unwrap_or(0);
        mask = mask.checked_shr(run).unwrap_or(0);
    }
    out
}

impl Bitmap {
    /// An empty bitmap writing into `words` (its capacity; its content is
    /// dropped), so a caller can reuse one allocation.
    pub fn with_words(mut words: Vec<u64>) -> Self {
        words.clear();
        Bitmap { words, len: 0 }
    }

    /// The number of bits.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the bitmap holds no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The words, `len.div_ceil(64)` of them.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// The words, for an Arrow buffer or for reuse.
    pub fn into_words(self) -> Vec<u64> {
        self.words
    }

    /// Empties the bitmap, keeping its allocation.
    pub fn clear(&mut self) {
        self.words.clear();
        self.len = 0;
    }

    /// Bit `i`, false past the end.
    pub fn get(&self, i: usize) -> bool {
        i < self.len
            && self
                .words
                .get(i / 64)
                .is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    /// Appends the low `n` bits of `word` (`n` up to 64, none for 0; the
    /// bits above `n` must be zero).
    ///
    /// ```
    /// use pq_page::Bitmap;
    /// let mut b = Bitmap::default();
    /// b.push_word(0b101, 3);
    /// b.push_word(u64::MAX, 64);
    /// assert_eq!(b.len(), 67);
    /// assert_eq!(b.words(), &[u64::MAX << 3 | 0b101, 0b111]);
    /// ```
    #[inline]
    pub fn push_word(&mut self, word: u64, n: usize) {
        let off = self.len % 64;
        if n == 0 {
            // At a word boundary a word would be pushed for no bits.
            return;
        }
        if off == 0 {
            self.words.push(word);
        } else {
            if let Some(last) = self.words.last_mut() {
                *last |= word << off;
            }
            if off + n > 64 {
                self.words.push(word >> (64 - off));
            }
        }
        self.len += n;
    }

    /// Bits the words allocated can hold.
    #[cfg(test)]
    pub(crate) fn capacity_bits(&self) -> usize {
        self.words.capacity() * 64
    }

    /// Makes room for `additional` more bits.
    pub fn reserve(&mut self, additional: usize) {
        // The last word's bits count again: a word too many at most.
        let words = (self.len % 64).saturating_add(additional).div_ceil(64);
        self.words.reserve_exact(words);
    }

    /// Appends `n` copies of `bit`.
    #[inline]
    pub fn push_run(&mut self, bit: bool, n: usize) {
        // A short run (most runs of levels with scattered nulls) is one
        // word's worth.
        if n <= 64 {
            self.push_word(if bit { low_bits(n) } else { 0 }, n);
            return;
        }
        self.push_long_run(bit, n);
    }

    /// [`Bitmap::push_run`] of any length: the current word filled, then
    /// whole words, then the tail.
    fn push_long_run(&mut self, bit: bool, n: usize) {
        let word = if bit { u64::MAX } else { 0 };
        let mut left = n;
        // Fill the current word, then whole words, then the tail.
        let off = self.len % 64;
        if off != 0 && left > 0 {
            let k = (64 - off).min(left);
            self.push_word(word & low_bits(k), k);
            left -= k;
        }
        let whole = left / 64;
        self.words.resize(self.words.len() + whole, word);
        self.len += whole * 64;
        left %= 64;
        if left > 0 {
            self.push_word(word & low_bits(left), left);
        }
    }

    /// Appends the first `n` bits of `bytes` (LSB first in each byte, the
    /// bit order of bit-packed levels of width 1); `bytes` holding fewer
    /// bits appends what it holds, padded with zeros to `n`.
    #[inline]
    pub fn push_bytes(&mut self, bytes: &[u8], n: usize) {
        // Up to 64 bits (most bit-packed runs of levels with scattered
        // nulls) are one word: eight bytes loaded at once where there are
        // eight.
        if n <= 64 {
            let word = match bytes.first_chunk::<8>() {
                Some(le) => u64::from_le_bytes(*le),
                None => {
                    let mut le = [0u8; 8];
                    if let Some(dst) = le.get_mut(..bytes.len()) {
                        dst.copy_from_slice(bytes);
                    }
                    u64::from_le_bytes(le)
                }
            };
            self.push_word(word & low_bits(n), n);
            return;
        }
        self.push_long_bytes(bytes, n);
    }

    /// [`Bitmap::push_bytes`] of any length, a word at a time.
    fn push_long_bytes(&mut self, bytes: &[u8], n: usize) {
        let mut left = n;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            if left == 0 {
                return;
            }
            let mut le = [0u8; 8];
            le.copy_from_slice(c);
            let k = left.min(64);
            self.push_word(u64::from_le_bytes(le) & low_bits(k), k);
            left -= k;
        }
        let mut le = [0u8; 8];
        let rest = chunks.remainder();
        if let Some(dst) = le.get_mut(..rest.len()) {
            dst.copy_from_slice(rest);
        }
        let mut word = u64::from_le_bytes(le);
        while left > 0 {
            let k = left.min(64);
            self.push_word(word & low_bits(k), k);
            word = 0;
            left -= k;
        }
    }

    /// The 64 bits of `self` from bit `start` on (zeros past the end).
    ///
    /// ```
    /// use pq_page::Bitmap;
    /// let mut b = Bitmap::default();
    /// b.push_run(false, 3);
    /// b.push_run(true, 70);
    /// assert_eq!(b.word_at(3), u64::MAX);
    /// assert_eq!(b.word_at(60), (1 << 13) - 1);
    /// ```
    #[inline]
    pub fn word_at(&self, start: usize) -> u64 {
        let (i, s) = (start / 64, start % 64);
        let lo = self.words.get(i).copied().unwrap_or(0) >> s;
        if s == 0 {
            lo
        } else {
            lo | self.words.get(i + 1).copied().unwrap_or(0) << (64 - s)
        }
    }

    /// Appends, for each pair of `words` and `masks`, the bits of the word
    /// where its mask is set, in order: the validity of the rows a mask
    /// keeps, packed. Word `i` of each holds bits `64 i ..`; a shorter
    /// last mask has its missing bits unset.
    ///
    /// ```
    /// use pq_page::Bitmap;
    /// let mut b = Bitmap::default();
    /// b.extend_selected([0b1010_1100, u64::MAX], [0b1111_0101, 1 << 63]);
    /// assert_eq!((b.len(), b.words()), (7, &[0b110_1010][..]));
    /// ```
    pub fn extend_selected(
        &mut self,
        words: impl IntoIterator<Item = u64>,
        masks: impl IntoIterator<Item = u64>,
    ) {
        let pairs = words.into_iter().zip(masks);
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("bmi2") {
            // SAFETY: the CPU has BMI2, checked just above.
            unsafe { self.extend_selected_bmi2(pairs) };
            return;
        }
        for (word, mask) in pairs {
            self.push_word(select(word, mask), mask.count_ones() as usize);
        }
    }

    /// [`Bitmap::extend_selected`] with BMI2's `pext`, one instruction a
    /// word where [`select`] takes a step per run of kept bits: a third of
    /// the time on the scattered masks of a selective read.
    ///
    /// Calling it is unsafe unless the CPU has BMI2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi2")]
    fn extend_selected_bmi2(&mut self, pairs: impl Iterator<Item = (u64, u64)>) {
        for (word, mask) in pairs {
            let bits = core::arch::x86_64::_pext_u64(word, mask);
            self.push_word(bits, mask.count_ones() as usize);
        }
    }

    /// Appends bits `range` of `src` (bits past its end read as zeros).
    pub fn extend_from_range(&mut self, src: &Bitmap, range: Range<usize>) {
        let mut at = range.start;
        while at < range.end {
            let k = (range.end - at).min(64);
            self.push_word(src.word_at(at) & low_bits(k), k);
            at += k;
        }
    }

    /// The set bits among `range` (those past the end count as unset).
    pub fn count_ones(&self, range: Range<usize>) -> usize {
        let mut at = range.start;
        let mut ones = 0usize;
        while at < range.end {
            let k = (range.end - at).min(64);
            ones += (self.word_at(at) & low_bits(k)).count_ones() as usize;
            at += k;
        }
        ones
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::{Bitmap, select};

    /// A xorshift generator from `seed`: the same words on every run.
    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    fn bits(b: &Bitmap) -> Vec<bool> {
        (0..b.len()).map(|i| b.get(i)).collect()
    }

    /// Every way of appending, at every alignment, against a `Vec<bool>`.
    #[test]
    fn appends_match_a_bool_vector() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let mut b = Bitmap::default();
        let mut want: Vec<bool> = Vec::new();
        for _ in 0..400 {
            let n = (next() % 150) as usize;
            match next() % 3 {
                0 => {
                    let bit = next().is_multiple_of(2);
                    b.push_run(bit, n);
                    want.extend(std::iter::repeat_n(bit, n));
                }
                1 if n.is_multiple_of(2) => {
                    // Selected bits of random words, under masks of every
                    // density: all set, none, sparse, dense.
                    let words: Vec<u64> = (0..n.div_ceil(64)).map(|_| next()).collect();
                    let masks: Vec<u64> = (0..words.len())
                        .map(|_| match next() % 4 {
                            0 => u64::MAX,
                            1 => 0,
                            2 => next() & next() & next(),
                            _ => next() | next(),
                        })
                        .collect();
                    b.extend_selected(words.iter().copied(), masks.iter().copied());
                    for (w, m) in words.iter().zip(&masks) {
                        want.extend((0..64).filter(|i| m >> i & 1 == 1).map(|i| w >> i & 1 == 1));
                    }
                }
                1 => {
                    // Up to two bytes more than the bits need: bits past
                    // `n` are not appended.
                    let extra = (next() % 3) as usize;
                    let bytes: Vec<u8> = (0..n.div_ceil(8) + extra).map(|_| next() as u8).collect();
                    b.push_bytes(&bytes, n);
                    want.extend((0..n).map(|i| bytes[i / 8] >> (i % 8) & 1 == 1));
                }
                _ => {
                    let src = b.clone();
                    let start = (next() as usize) % (src.len() + 1);
                    let end = (start + n).min(src.len());
                    b.extend_from_range(&src, start..end);
                    want.extend_from_slice(&want.clone()[start..end]);
                }
            }
            assert_eq!(bits(&b), want);
            assert_eq!(b.words().len(), b.len().div_ceil(64));
            let start = (next() as usize) % (want.len() + 1);
            let end = start + (next() as usize) % (want.len() - start + 1);
            let ones = want[start..end].iter().filter(|&&x| x).count();
            assert_eq!(b.count_ones(start..end), ones);
        }
    }

    #[test]
    fn short_bytes_are_padded_with_zeros() {
        let mut b = Bitmap::default();
        b.push_run(true, 3);
        b.push_bytes(&[0xff], 12);
        assert_eq!(b.len(), 15);
        assert_eq!(b.count_ones(0..15), 11);
        assert!(!b.get(11) && !b.get(14) && b.get(10));
    }

    /// Masks with no bits set add nothing, at a word boundary too.
    #[test]
    fn empty_masks_add_no_words() {
        let mut b = Bitmap::default();
        b.extend_selected([7, 1, 0b10, 9], [0, u64::MAX, 0, 0b11]);
        assert_eq!((b.len(), b.words()), (66, &[1, 0b01][..]));
        b.push_word(5, 0);
        assert_eq!(b.words().len(), 2);
    }

    /// The portable selection (what runs without BMI2) against a bit at a
    /// time.
    #[test]
    fn select_matches_bit_by_bit() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let naive = |w: u64, m: u64| {
            let mut out = 0u64;
            let mut k = 0;
            for i in 0..64 {
                if m >> i & 1 == 1 {
                    out |= (w >> i & 1) << k;
                    k += 1;
                }
            }
            out
        };
        let edges = [
            0,
            u64::MAX,
            1,
            1 << 63,
            u64::MAX >> 1,
            u64::MAX << 1,
            0x5555_5555_5555_5555,
        ];
        for &w in &edges {
            for &m in &edges {
                assert_eq!(select(w, m), naive(w, m), "{w:x} {m:x}");
            }
        }
        for _ in 0..100_000 {
            let (w, m) = (next(), next() & next() | next() & next());
            assert_eq!(select(w, m), naive(w, m), "{w:x} {m:x}");
        }
    }
}
