//! Bit packing: the LSB-first order of the RLE/bit-packing hybrid (also used
//! by DELTA_BINARY_PACKED, ALP and PLAIN booleans) and the deprecated
//! MSB-first BIT_PACKED order.
//!
//! Decoding unpacks whole groups of 32 values with code specialised per bit
//! width (a const generic per width, selected by one `match`), so the inner
//! loop has no data-dependent branches: 32 values of width `w` are exactly
//! `4 * w` bytes.

use alloc::vec::Vec;

use crate::error::{Error, Result, eof};
use crate::rle::RleValue;

/// Mask of the low `num_bits` bits (all ones for 64).
#[inline]
pub const fn mask64(num_bits: usize) -> u64 {
    if num_bits >= 64 {
        u64::MAX
    } else {
        (1u64 << num_bits) - 1
    }
}

/// Number of bits needed to represent `max` (0 for 0).
#[inline]
pub const fn bit_width(max: u64) -> u8 {
    (64 - max.leading_zeros()) as u8
}

/// The `off`th `w`-bit value (`w` at most 32) of the bit-packed values
/// starting at byte `start` of `data`: at most 39 bits from the byte that
/// holds its first bit, read as one little-endian word. Bytes past the end
/// read as zeros (a caller asks only for values its run's bytes hold).
#[inline]
pub(crate) fn value_at(data: &[u8], start: usize, off: usize, w: usize) -> u32 {
    let bit = off.saturating_mul(w);
    let byte = start.saturating_add(bit / 8);
    let mut b = [0u8; 8];
    match data.get(byte..byte.saturating_add(8)) {
        Some(s) => b.copy_from_slice(s),
        None => {
            for (d, s) in b.iter_mut().zip(data.get(byte..).unwrap_or_default()) {
                *d = *s;
            }
        }
    }
    ((u64::from_le_bytes(b) >> (bit % 8)) & mask64(w)) as u32
}

/// One value of a 32-value group, with every offset a compile-time constant
/// so the read has no bounds check and the shift no variable.
#[inline(always)]
fn one32<const W: usize, const I: usize, T: RleValue>(buf: &[u8]) -> T {
    let bit = I * W;
    let byte = bit / 8;
    let mut b = [0u8; 8];
    b.copy_from_slice(&buf[byte..byte + 8]);
    T::from_u32(((u64::from_le_bytes(b) >> (bit % 8)) & mask64(W)) as u32)
}

#[inline(always)]
fn one64<const W: usize, const I: usize, T: From<u64>>(buf: &[u8]) -> T {
    let bit = I * W;
    let byte = bit / 8;
    let shift = bit % 8;
    let mut b = [0u8; 8];
    b.copy_from_slice(&buf[byte..byte + 8]);
    let mut word = u64::from_le_bytes(b) >> shift;
    if shift + W > 64 {
        // The value straddles a ninth byte.
        word |= u64::from(buf[byte + 8]) << (64 - shift);
    }
    T::from(word & mask64(W))
}

macro_rules! unroll32 {
    ($f:ident, $w:ident, $buf:expr, $out:expr) => {
        unroll32!(@ $f, $w, $buf, $out, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31)
    };
    (@ $f:ident, $w:ident, $buf:expr, $out:expr, $($i:literal)*) => {
        $( $out[$i] = $f::<$w, $i, _>($buf); )*
    };
}

/// Unpacks 32 values of width `W <= 32`; `input` holds at least `4 * W` bytes.
#[inline(always)]
fn unpack32_w<const W: usize, T: RleValue>(input: &[u8], out: &mut [T; 32]) {
    // With 8 spare bytes after the group every read is a plain unaligned
    // load at a constant offset, straight from the input. Only a page's last
    // group goes through a padded copy (reading a fresh copy with
    // overlapping loads would stall on store forwarding, so it is the
    // exception, not the rule).
    if let Some(inp) = input.get(..4 * W + 8) {
        unroll32!(one32, W, inp, out);
    } else {
        let mut buf = [0u8; 136];
        buf[..4 * W].copy_from_slice(&input[..4 * W]);
        unroll32!(one32, W, &buf[..4 * W + 8], out);
    }
}

/// Unpacks 32 values of width `W <= 64`; `input` holds at least `4 * W` bytes.
#[inline(always)]
fn unpack32_w64<const W: usize>(input: &[u8], out: &mut [u64; 32]) {
    if let Some(inp) = input.get(..4 * W + 9) {
        unroll32!(one64, W, inp, out);
    } else {
        let mut buf = [0u8; 272];
        buf[..4 * W].copy_from_slice(&input[..4 * W]);
        unroll32!(one64, W, &buf[..4 * W + 9], out);
    }
}

macro_rules! dispatch32 {
    ($w:expr, $input:expr, $out:expr, $($n:literal)*) => {
        match $w {
            $( $n => unpack32_w::<$n, _>($input, $out), )*
            _ => *$out = [T::default(); 32],
        }
    };
}

macro_rules! dispatch64 {
    ($w:expr, $input:expr, $out:expr, $($n:literal)*) => {
        match $w {
            0 => *$out = [0; 32],
            $( $n => unpack32_w64::<$n>($input, $out), )*
            _ => *$out = [0; 32],
        }
    };
}

/// Unpacks 32 LSB-first values of `num_bits` (0..=32) bits each from
/// `input`, converted to `T` (`u32` for indices, `i16` for levels...) as
/// they are unpacked, so no intermediate buffer is written and re-read.
///
/// A full group is `4 * num_bits` bytes; a shorter `input` reads as if padded
/// with zero bytes. Widths over 32 yield zeros: callers validate widths first.
///
/// ```
/// let mut out = [0u32; 32];
/// // The spec's example: 0..=7 with width 3, LSB first.
/// pq_encoding::bit_pack::unpack32(&[0b1000_1000, 0b1100_0110, 0b1111_1010], &mut out, 3);
/// assert_eq!(&out[..8], &[0, 1, 2, 3, 4, 5, 6, 7]);
/// ```
#[inline]
pub fn unpack32<T: RleValue>(input: &[u8], out: &mut [T; 32], num_bits: usize) {
    if input.len() < 4 * num_bits {
        let mut padded = [0u8; 128];
        let n = input.len().min(128);
        padded[..n].copy_from_slice(&input[..n]);
        return unpack32(&padded, out, num_bits.min(32));
    }
    dispatch32!(num_bits, input, out,
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
}

/// Like [`unpack32`] for widths up to 64, into `u64`.
#[inline]
pub fn unpack32_u64(input: &[u8], out: &mut [u64; 32], num_bits: usize) {
    if input.len() < 4 * num_bits {
        let mut padded = [0u8; 256];
        let n = input.len().min(256);
        padded[..n].copy_from_slice(&input[..n]);
        return unpack32_u64(&padded, out, num_bits.min(64));
    }
    dispatch64!(num_bits, input, out,
        1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
        33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64);
}

/// Unpacks `out.len()` LSB-first values of `num_bits` (0..=64) bits from
/// `input`, which must hold `ceil(out.len() * num_bits / 8)` bytes.
pub fn unpack_u64(input: &[u8], num_bits: usize, out: &mut [u64]) -> Result<()> {
    if num_bits > 64 {
        return Err(Error::BitWidth {
            what: "bit-packed values",
            max: 64,
            found: num_bits as u32,
        });
    }
    let needed = (out.len() * num_bits).div_ceil(8);
    if input.len() < needed {
        return Err(eof("bit-packed values", needed, input.len()));
    }
    let mut buf = [0u64; 32];
    let mut pos = 0;
    for chunk in out.chunks_mut(32) {
        let rest = input.get(pos..).unwrap_or(&[]);
        unpack32_u64(rest, &mut buf, num_bits);
        chunk.copy_from_slice(&buf[..chunk.len()]);
        pos += 4 * num_bits;
    }
    Ok(())
}

/// Appends `values` bit-packed LSB-first with `num_bits` (0..=64) bits each,
/// `ceil(len * num_bits / 8)` bytes, zero padded. Bits above `num_bits` are
/// ignored.
///
/// ```
/// let mut out = Vec::new();
/// pq_encoding::bit_pack::pack(&[0, 1, 2, 3, 4, 5, 6, 7], 3, &mut out);
/// assert_eq!(out, [0b1000_1000, 0b1100_0110, 0b1111_1010]);
/// ```
pub fn pack(values: &[u64], num_bits: usize, out: &mut Vec<u8>) {
    let num_bits = num_bits.min(64);
    if num_bits == 0 {
        return;
    }
    let mask = mask64(num_bits);
    out.reserve((values.len() * num_bits).div_ceil(8));
    let mut acc: u128 = 0;
    let mut nacc = 0usize;
    for &v in values {
        acc |= u128::from(v & mask) << nacc;
        nacc += num_bits;
        if nacc >= 64 {
            out.extend_from_slice(&(acc as u64).to_le_bytes());
            acc >>= 64;
            nacc -= 64;
        }
    }
    let tail = nacc.div_ceil(8);
    out.extend_from_slice(&(acc as u64).to_le_bytes()[..tail]);
}

/// Appends `values` bit-packed LSB-first with `num_bits` (clamped to
/// 0..=32) bits each, padded with zero values to a whole group of 8: the
/// body of a hybrid bit-packed run, `ceil(len / 8) * num_bits` bytes. Bits
/// above `num_bits` are ignored.
///
/// Each width has its own loop (a const generic, selected by one `match`)
/// packing a group of 8 into four 64-bit words whose shifts are all
/// constants once the loop is unrolled.
///
/// ```
/// let mut out = Vec::new();
/// pq_encoding::bit_pack::pack_groups(&[0u32, 1, 2, 3, 4, 5, 6, 7, 1], 3, &mut out);
/// assert_eq!(out, [0b1000_1000, 0b1100_0110, 0b1111_1010, 1, 0, 0]);
/// ```
pub fn pack_groups<T: RleValue>(values: &[T], num_bits: usize, out: &mut Vec<u8>) {
    let whole = values.len() / 8 * 8;
    let (head, rest) = values.split_at(whole);
    pack_whole_groups(head, num_bits, out);
    if !rest.is_empty() {
        let mut tail = [T::default(); 8];
        tail[..rest.len()].copy_from_slice(rest);
        pack_whole_groups(&tail, num_bits, out);
    }
}

/// [`pack_groups`] for a whole number of groups.
fn pack_whole_groups<T: RleValue>(values: &[T], num_bits: usize, out: &mut Vec<u8>) {
    macro_rules! widths {
        ($($n:literal)*) => {
            match num_bits {
                $($n => pack8_w::<T, $n>(values, out),)*
                // Width 0 takes no bytes; wider is clamped to 32.
                0 => {}
                _ => pack8_w::<T, 32>(values, out),
            }
        };
    }
    widths!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
}

fn pack8_w<T: RleValue, const W: usize>(values: &[T], out: &mut Vec<u8>) {
    let mask = if W == 32 { u32::MAX } else { (1u32 << W) - 1 };
    let start = out.len();
    out.resize(start + values.len() / 8 * W, 0);
    for (c, dst) in values.chunks_exact(8).zip(out[start..].chunks_exact_mut(W)) {
        // 8 * 32 bits fit in four 64-bit words.
        let mut acc = [0u64; 4];
        for (k, &v) in c.iter().enumerate() {
            let bit = k * W;
            let x = u64::from(v.to_u32() & mask);
            let (word, sh) = (bit / 64, bit % 64);
            acc[word] |= x << sh;
            if sh + W > 64 {
                acc[word + 1] |= x >> (64 - sh);
            }
        }
        let mut bytes = [0u8; 32];
        for (b, a) in bytes.chunks_exact_mut(8).zip(acc) {
            b.copy_from_slice(&a.to_le_bytes());
        }
        dst.copy_from_slice(&bytes[..W]);
    }
}

/// Decodes the deprecated BIT_PACKED encoding (MSB first) of `out.len()`
/// levels of `num_bits` (0..=32) bits each.
///
/// ```
/// let mut out = [0u32; 8];
/// pq_encoding::bit_pack::unpack_msb(&[0b0000_0101, 0b0011_1001, 0b0111_0111], 3, &mut out).unwrap();
/// assert_eq!(out, [0, 1, 2, 3, 4, 5, 6, 7]);
/// ```
pub fn unpack_msb<T: RleValue>(input: &[u8], num_bits: usize, out: &mut [T]) -> Result<()> {
    if num_bits > 32 {
        return Err(Error::BitWidth {
            what: "BIT_PACKED levels",
            max: 32,
            found: num_bits as u32,
        });
    }
    let needed = (out.len() * num_bits).div_ceil(8);
    let Some(input) = input.get(..needed) else {
        return Err(eof("BIT_PACKED levels", needed, input.len()));
    };
    let mut bit = 0usize;
    for o in out.iter_mut() {
        let mut v = 0u32;
        for _ in 0..num_bits {
            let byte = input.get(bit / 8).copied().unwrap_or(0);
            v = (v << 1) | u32::from((byte >> (7 - bit % 8)) & 1);
            bit += 1;
        }
        *o = T::from_u32(v);
    }
    Ok(())
}

/// Appends `values` in the deprecated BIT_PACKED order (MSB first), zero
/// padded to a whole byte.
pub fn pack_msb(values: &[u32], num_bits: usize, out: &mut Vec<u8>) {
    let num_bits = num_bits.min(32);
    let mut cur = 0u8;
    let mut nbits = 0u32;
    for &v in values {
        for b in (0..num_bits).rev() {
            cur = (cur << 1) | ((v >> b) & 1) as u8;
            nbits += 1;
            if nbits == 8 {
                out.push(cur);
                cur = 0;
                nbits = 0;
            }
        }
    }
    if nbits > 0 {
        out.push(cur << (8 - nbits));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn spec_example_lsb() {
        let mut out = Vec::new();
        pack(&[0, 1, 2, 3, 4, 5, 6, 7], 3, &mut out);
        assert_eq!(out, [0b1000_1000, 0b1100_0110, 0b1111_1010]);
        let mut groups = Vec::new();
        pack_groups(&[0u8, 1, 2, 3, 4, 5, 6, 7], 3, &mut groups);
        assert_eq!(groups, out);
    }

    #[test]
    fn spec_example_msb() {
        let mut out = Vec::new();
        pack_msb(&[0, 1, 2, 3, 4, 5, 6, 7], 3, &mut out);
        assert_eq!(out, [0b0000_0101, 0b0011_1001, 0b0111_0111]);
        let mut back = [0u32; 8];
        unpack_msb(&out, 3, &mut back).unwrap();
        assert_eq!(back, [0, 1, 2, 3, 4, 5, 6, 7]);
        assert!(unpack_msb(&out, 4, &mut [0u32; 8]).is_err());
    }

    #[test]
    fn all_widths_round_trip() {
        for w in 0..=64usize {
            let vals: Vec<u64> = (0..32u64)
                .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) & mask64(w))
                .collect();
            let mut packed = Vec::new();
            pack(&vals, w, &mut packed);
            assert_eq!(packed.len(), 4 * w);
            let mut out = [0u64; 32];
            unpack32_u64(&packed, &mut out, w);
            assert_eq!(&out[..], &vals[..], "width {w}");
            if w <= 32 {
                let v32: Vec<u32> = vals.iter().map(|&v| v as u32).collect();
                let mut p32 = Vec::new();
                pack_groups(&v32, w, &mut p32);
                assert_eq!(p32, packed, "width {w}");
                // A short last group is padded with zero values.
                let mut short = Vec::new();
                pack_groups(&v32[..27], w, &mut short);
                let mut padded = vals[..27].to_vec();
                padded.resize(32, 0);
                let mut expected = Vec::new();
                pack(&padded, w, &mut expected);
                assert_eq!(short, expected, "width {w}");
                let mut o32 = [0u32; 32];
                unpack32(&packed, &mut o32, w);
                assert_eq!(&o32[..], &v32[..], "width {w}");
                // Short input reads as zero padded.
                unpack32(&packed[..packed.len() / 2], &mut o32, w);
            }
            let mut odd = vec![0u64; 13];
            unpack_u64(&packed, w, &mut odd).unwrap();
            assert_eq!(&odd[..], &vals[..13]);
        }
    }
}
