//! The hybrid encoder: whole slices to runs.
//!
//! Instead of pushing every value through a state machine it looks at the
//! runs of the slice: the literals between two repeated runs are always a
//! contiguous stretch of the input, so they are bit-packed straight from it
//! by [`bit_pack::pack_groups`], with no buffer of pending values.
//!
//! The runs chosen are those of the simplest encoder, pushing one value at
//! a time: a run of at least [`MIN_REPEAT`] equal values is a repeated run,
//! after first topping the pending literals up to a whole group of 8 from
//! it (a bit-packed run holds whole groups), unless fewer than
//! [`MIN_REPEAT`] then remain; literals are flushed as a bit-packed run
//! whenever [`MAX_LITERALS`] are pending, and at the end. The property tests
//! compare the bytes with such an encoder.

use alloc::vec::Vec;

use super::RleValue;
use crate::bit_pack;
use crate::varint::write_uleb128;

/// Runs at least this long are written as repeated runs.
const MIN_REPEAT: usize = 8;
/// Literals are flushed when their count reaches this: 63 groups, the most
/// a one-byte run header can declare.
const MAX_LITERALS: usize = 63 * 8;

/// Appends the hybrid encoding of `values` with `bit_width` bits (clamped to
/// 0..=32; bits above it are ignored), without length prefix: dictionary
/// indices, data page v2 levels.
///
/// ```
/// use pq_encoding::rle::{self, RleDecoder};
/// let values = [1u32, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 4];
/// let mut buf = Vec::new();
/// rle::encode(&values, 3, &mut buf);
/// // A repeated run of nine 1s (header 9 << 1, one value byte), then one
/// // bit-packed group of 8 holding 2, 3, 4 and zero padding.
/// assert_eq!(buf, [18, 1, 3, 0b0001_1010, 0b0000_0001, 0]);
/// let mut out = [0i16; 12];
/// assert_eq!(RleDecoder::new(&buf, 3).unwrap().decode(&mut out).unwrap(), 12);
/// assert!(out.iter().zip(&values).all(|(&a, &b)| a as u32 == b));
/// ```
pub fn encode<T: RleValue>(values: &[T], bit_width: u8, out: &mut Vec<u8>) {
    let w = usize::from(bit_width.min(32));
    let n = values.len();
    // Worst case: all literals, one header byte per MAX_LITERALS values.
    out.reserve((n * w).div_ceil(8) + n / MAX_LITERALS + 16);
    let mut ls = 0; // first pending literal
    let mut pos = 0; // values before this are pending literals or written
    // Only runs of at least 8 change the output, and every such run holds
    // a whole aligned block of 4 equal values: look at those blocks alone
    // (one branch per 4 values), and at the values around one only when
    // it is uniform.
    let mut b = 0;
    while b + 4 <= n {
        let v = values[b];
        let uniform = (values[b + 1] == v) & (values[b + 2] == v) & (values[b + 3] == v);
        if !uniform {
            b += 4;
            continue;
        }
        let mut s = b;
        while s > pos && values[s - 1] == v {
            s -= 1;
        }
        let mut e = b + 4;
        while e < n && values[e] == v {
            e += 1;
        }
        b = e.next_multiple_of(4);
        let len = e - s;
        if len < MIN_REPEAT {
            continue;
        }
        // The shorter runs before this one are literals.
        push_literals(values, &mut ls, pos, s, w, out);
        let k = (8 - (s - ls) % 8) % 8;
        if len - k >= MIN_REPEAT {
            pack_literals(&values[ls..s + k], w, out);
            write_uleb128(out, ((len - k) as u64) << 1);
            out.extend_from_slice(&v.to_u32().to_le_bytes()[..w.div_ceil(8)]);
            ls = e;
        } else {
            // Too short once the top-up is taken: all literals.
            push_literals(values, &mut ls, s, e, w, out);
        }
        pos = e;
    }
    push_literals(values, &mut ls, pos, n, w, out);
    pack_literals(&values[ls..n], w, out);
}

/// Appends a 4-byte little-endian length then [`encode`]'s output: data
/// page v1 levels and RLE booleans.
///
/// ```
/// use pq_encoding::rle::{self, RleDecoder};
/// let mut buf = Vec::new();
/// rle::encode_length_prefixed(&[true, false, true], 1, &mut buf);
/// let (mut dec, used) = RleDecoder::new_length_prefixed(&buf, 1).unwrap();
/// assert_eq!(used, buf.len());
/// let mut out = [false; 3];
/// dec.decode(&mut out).unwrap();
/// assert_eq!(out, [true, false, true]);
/// ```
pub fn encode_length_prefixed<T: RleValue>(values: &[T], bit_width: u8, out: &mut Vec<u8>) {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    encode(values, bit_width, out);
    let len = (out.len() - at - 4) as u32;
    out[at..at + 4].copy_from_slice(&len.to_le_bytes());
}

/// Adds `values[from..to]` to the pending literals `values[*ls..from]`,
/// flushing a bit-packed run whenever their count reaches exactly
/// [`MAX_LITERALS`].
fn push_literals<T: RleValue>(
    values: &[T],
    ls: &mut usize,
    from: usize,
    to: usize,
    w: usize,
    out: &mut Vec<u8>,
) {
    let mut pos = from;
    loop {
        let c = pos - *ls;
        if c < MAX_LITERALS && c + (to - pos) >= MAX_LITERALS {
            let at = *ls + MAX_LITERALS;
            pack_literals(&values[*ls..at], w, out);
            *ls = at;
            pos = at;
        } else {
            break;
        }
    }
}

/// One bit-packed run of `lits`, padded with zeros to whole groups of 8.
fn pack_literals<T: RleValue>(lits: &[T], w: usize, out: &mut Vec<u8>) {
    if lits.is_empty() {
        return;
    }
    let groups = lits.len().div_ceil(8);
    write_uleb128(out, ((groups as u64) << 1) | 1);
    bit_pack::pack_groups(lits, w, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_prefix() {
        let levels: Vec<i16> = (0..3000).map(|i| i16::from((i * 7) % 5 == 0)).collect();
        let mut out = Vec::new();
        encode_length_prefixed(&levels, 1, &mut out);
        let mut body = Vec::new();
        encode(&levels, 1, &mut body);
        assert_eq!(&out[..4], &(body.len() as u32).to_le_bytes());
        assert_eq!(&out[4..], &body[..]);
    }

    #[test]
    fn literals_flush_at_the_one_byte_header_limit() {
        // 600 alternating values: a run of 63 groups, then one of 12.
        let v: Vec<u32> = (0..600).map(|i| i % 2).collect();
        let mut out = Vec::new();
        encode(&v, 1, &mut out);
        assert_eq!(out[0], (63 << 1) | 1);
        assert_eq!(out[1 + 63], (12 << 1) | 1);
        assert_eq!(out.len(), 1 + 63 + 1 + 12);
    }

    #[test]
    fn width_zero_writes_only_headers() {
        let mut out = Vec::new();
        encode(&[0u32; 50], 0, &mut out);
        assert_eq!(out, [50 << 1]);
        out.clear();
        encode(&[0u8; 3], 0, &mut out);
        assert_eq!(out, [3]);
    }
}
