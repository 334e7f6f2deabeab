//! The hashes and comparisons of the dictionary encoders' tables.
//!
//! Hashes are one or two multiplications, folded: the keys come from the
//! caller's data, but a bad distribution costs only time, since probing is
//! bounded by a table's load. No hashing crate is needed for that, so the
//! crate stays free of dependencies and `no_std`.

/// The multiplier (2^64 / golden ratio), also the seed.
pub(super) const K: u64 = 0x9E37_79B9_7F4A_7C15;

/// Multiplies and folds the 128-bit product: every input bit reaches the
/// high output bits, which pick the slot.
#[inline(always)]
pub(super) fn fold_mul(a: u64, b: u64) -> u64 {
    let r = u128::from(a) * u128::from(b);
    (r as u64) ^ ((r >> 64) as u64)
}

/// Up to 8 bytes as a word; unique for a given length.
#[inline(always)]
fn load_small(b: &[u8]) -> u64 {
    let n = b.len();
    if n >= 4 {
        let lo = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let hi = u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]);
        u64::from(lo) | (u64::from(hi) << 32)
    } else if n > 0 {
        u64::from(b[0]) | (u64::from(b[n / 2]) << 8) | (u64::from(b[n - 1]) << 16)
    } else {
        0
    }
}

/// The 8 bytes at `at`; callers check `at + 8 <= b.len()`.
#[inline(always)]
fn word(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

/// The hash of a byte string, its length included.
#[inline]
pub(super) fn hash_bytes(b: &[u8]) -> u64 {
    let n = b.len();
    let seed = K ^ n as u64;
    if n <= 8 {
        return fold_mul(load_small(b) ^ seed, K);
    }
    if n <= 16 {
        return fold_mul(word(b, 0) ^ seed, word(b, n - 8) ^ K);
    }
    let mut h = seed;
    let mut at = 0;
    while at + 16 <= n {
        h = fold_mul(word(b, at) ^ h, word(b, at + 8) ^ K);
        at += 16;
    }
    fold_mul(word(b, n - 16) ^ h, word(b, n - 8) ^ K)
}

/// Equality of two byte strings of the same length, inline for short ones
/// (a `memcmp` call costs more than the comparison for a few bytes).
#[inline(always)]
pub(super) fn eq_same_len(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n <= 8 {
        load_small(a) == load_small(b)
    } else if n <= 16 {
        word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8)
    } else {
        a == b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_strings_compare_every_byte() {
        // Every length to 20, differing in each single byte in turn.
        for n in 0..=20usize {
            let a: alloc::vec::Vec<u8> = (0..n as u8).collect();
            assert!(eq_same_len(&a, &a.clone()));
            for i in 0..n {
                let mut b = a.clone();
                b[i] ^= 0x40;
                assert!(!eq_same_len(&a, &b), "length {n}, byte {i}");
            }
        }
        assert_ne!(hash_bytes(b""), hash_bytes(b"\0"));
        assert_ne!(hash_bytes(b"\0"), hash_bytes(b"\0\0"));
    }
}
