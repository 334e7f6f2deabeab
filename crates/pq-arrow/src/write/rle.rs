//! The RLE / bit-packing hybrid encoding of whole slices (levels and
//! dictionary indices), producing the same bytes as
//! `pq_encoding::rle::RleEncoder` but working on runs of the slice instead
//! of pushing every value through a state machine: the literals between
//! repeated runs are always a contiguous stretch of the input, so they are
//! bit-packed straight from it.

use pq_encoding::rle::RleValue;
use pq_encoding::varint::write_uleb128;

/// Runs at least this long are written as repeated runs.
const MIN_REPEAT: usize = 8;
/// Literals are flushed when their count reaches this (one-byte header).
const MAX_LITERALS: usize = 63 * 8;

/// Appends the hybrid encoding of `values` with `bit_width` (0..=32) bits,
/// without length prefix.
pub(crate) fn encode<T: RleValue>(values: &[T], bit_width: u8, out: &mut Vec<u8>) {
    let w = bit_width.min(32) as usize;
    let n = values.len();
    // Worst case: all literals, one header byte per 504 values.
    out.reserve((n * w).div_ceil(8) + n / MAX_LITERALS + 16);
    let mut ls = 0; // first buffered literal
    let mut i = 0;
    while i < n {
        let v = values[i];
        let mut j = i + 1;
        while j < n && values[j] == v {
            j += 1;
        }
        let len = j - i;
        // Values of this run that go to the literals without a flush check
        // (the top-up to a whole group before a repeated run).
        let mut unchecked = 0;
        if len >= MIN_REPEAT {
            let k = (8 - (i - ls) % 8) % 8;
            if len - k >= MIN_REPEAT {
                pack_literals(&values[ls..i + k], w, out);
                write_uleb128(out, ((len - k) as u64) << 1);
                out.extend_from_slice(&v.to_u32().to_le_bytes()[..w.div_ceil(8)]);
                ls = j;
                i = j;
                continue;
            }
            unchecked = k;
        }
        // The rest are pushed one by one with a flush whenever the count
        // becomes exactly MAX_LITERALS.
        let mut pos = i + unchecked;
        loop {
            let c = pos - ls;
            if c < MAX_LITERALS && c + (j - pos) >= MAX_LITERALS {
                let at = ls + MAX_LITERALS;
                pack_literals(&values[ls..at], w, out);
                ls = at;
                pos = at;
            } else {
                break;
            }
        }
        i = j;
    }
    pack_literals(&values[ls..n], w, out);
}

/// Appends a 4-byte length then [`encode`]'s output.
pub(crate) fn encode_length_prefixed<T: RleValue>(values: &[T], bit_width: u8, out: &mut Vec<u8>) {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    encode(values, bit_width, out);
    let len = (out.len() - at - 4) as u32;
    out[at..at + 4].copy_from_slice(&len.to_le_bytes());
}

/// One bit-packed run of `lits` (padded with zeros to whole groups of 8).
fn pack_literals<T: RleValue>(lits: &[T], w: usize, out: &mut Vec<u8>) {
    if lits.is_empty() {
        return;
    }
    let groups = lits.len().div_ceil(8);
    write_uleb128(out, ((groups as u64) << 1) | 1);
    if w == 0 {
        return;
    }
    let mut chunks = lits.chunks_exact(8);
    for c in &mut chunks {
        pack8(c, w, out);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut tail = [T::default(); 8];
        tail[..rest.len()].copy_from_slice(rest);
        pack8(&tail, w, out);
    }
}

/// Packs exactly 8 values of `w` (1..=32) bits into `w` bytes, LSB first.
#[inline]
fn pack8<T: RleValue>(c: &[T], w: usize, out: &mut Vec<u8>) {
    let mask = if w == 32 { u32::MAX } else { (1u32 << w) - 1 };
    // 8 * 32 bits fit in four 64-bit words.
    let mut acc = [0u64; 4];
    for (k, &v) in c.iter().take(8).enumerate() {
        let bit = k * w;
        let x = u64::from(v.to_u32() & mask);
        let (word, sh) = (bit / 64, bit % 64);
        acc[word] |= x << sh;
        if sh + w > 64 {
            acc[word + 1] |= x >> (64 - sh);
        }
    }
    let mut bytes = [0u8; 32];
    for (b, a) in bytes.chunks_exact_mut(8).zip(acc) {
        b.copy_from_slice(&a.to_le_bytes());
    }
    out.extend_from_slice(&bytes[..w]);
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use pq_encoding::rle::RleEncoder;

    fn reference<T: RleValue>(values: &[T], w: u8) -> Vec<u8> {
        let mut e = RleEncoder::new(w);
        e.put_slice(values);
        let mut out = Vec::new();
        e.finish(&mut out);
        out
    }

    fn check(values: &[u32], w: u8) {
        let mut out = Vec::new();
        encode(values, w, &mut out);
        assert_eq!(
            out,
            reference(values, w),
            "width {w}, {} values",
            values.len()
        );
    }

    #[test]
    fn same_bytes_as_the_state_machine() {
        let mut seed = 7u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as u32
        };
        check(&[], 3);
        check(&[0; 77], 0);
        check(&[u32::MAX, 0, u32::MAX, u32::MAX], 32);
        for w in [1u8, 2, 3, 5, 8, 12, 17, 31, 32] {
            let max = if w == 32 { u32::MAX } else { (1 << w) - 1 };
            for len in [1usize, 7, 8, 9, 503, 504, 505, 1000, 5000] {
                // Random, long runs, short runs and mixtures, so literal
                // top-ups, the 504 flush and runs just under 8 all occur.
                let random: Vec<u32> = (0..len).map(|_| next() & max).collect();
                check(&random, w);
                let runs: Vec<u32> = (0..len)
                    .map(|i| ((i / (1 + (i % 23))) as u32) & max)
                    .collect();
                check(&runs, w);
                let mut mixed = Vec::new();
                while mixed.len() < len {
                    let v = next() & max;
                    let r = [1usize, 3, 7, 8, 9, 15, 16, 600][(next() % 8) as usize];
                    mixed.extend(std::iter::repeat_n(v, r));
                }
                check(&mixed, w);
            }
        }
    }

    #[test]
    fn levels_and_prefix() {
        let levels: Vec<i16> = (0..3000).map(|i| ((i * 7) % 5 == 0) as i16).collect();
        let mut out = Vec::new();
        encode_length_prefixed(&levels, 1, &mut out);
        let body = reference(&levels, 1);
        assert_eq!(&out[..4], &(body.len() as u32).to_le_bytes());
        assert_eq!(&out[4..], &body[..]);
    }
}
