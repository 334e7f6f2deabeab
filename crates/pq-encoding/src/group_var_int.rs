//! GROUP_VAR_INT (encoding id 1 in the early specification drafts; not in
//! the current format) for INT32 and INT64.
//!
//! INT32: groups of 4 values behind one byte holding, two bits per value
//! from the most significant end, each value's byte length minus one.
//! `0b00_10_11_01` means lengths 1, 3, 4, 2.
//!
//! INT64: groups of 5 values behind two bytes holding three bits per value.
//! The drafts say only that the 15 bits fit in 2 bytes with the most
//! significant bit unused; we read the two bytes as a little-endian `u16`
//! (like every other multi-byte field) and, as in the INT32 case, give the
//! first value the most significant field: bits 14..12, then 11..9, and so
//! on down to bits 2..0 for the fifth.
//!
//! Values are stored little-endian in their byte length; a short final
//! group is padded with zeros, so decoders are told how many values to read.

use alloc::vec::Vec;

use crate::error::{Result, eof};

/// Byte length (1..=8) needed for `v`.
#[inline]
fn byte_len(v: u64) -> usize {
    (64 - v.leading_zeros() as usize).div_ceil(8).max(1)
}

#[inline]
fn read_le(bytes: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = bytes.len().min(8);
    b[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(b)
}

/// INT32 (`i32`) or INT64 (`i64`): the layout of one group of the type.
pub trait GroupVarIntValue: Copy + Default + sealed::Sealed {
    /// Values in a group.
    const GROUP: usize;
    /// Bytes of a group's header.
    const HEADER_BYTES: usize;
    /// Bits of a header field (one per value: its byte length minus one).
    const FIELD_BITS: usize;
    /// The value's bits, zero-extended.
    fn to_u64(self) -> u64;
    /// The value of the low bits of `v` (of at most the type's width).
    fn from_u64(v: u64) -> Self;
}

mod sealed {
    /// Keeps [`super::GroupVarIntValue`] to the two layouts the drafts define.
    pub trait Sealed {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
}

impl GroupVarIntValue for i32 {
    const GROUP: usize = 4;
    const HEADER_BYTES: usize = 1;
    const FIELD_BITS: usize = 2;
    #[inline]
    fn to_u64(self) -> u64 {
        u64::from(self as u32)
    }
    #[inline]
    fn from_u64(v: u64) -> Self {
        v as u32 as i32
    }
}

impl GroupVarIntValue for i64 {
    const GROUP: usize = 5;
    const HEADER_BYTES: usize = 2;
    const FIELD_BITS: usize = 3;
    #[inline]
    fn to_u64(self) -> u64 {
        self as u64
    }
    #[inline]
    fn from_u64(v: u64) -> Self {
        v as i64
    }
}

/// The largest group, for the decoder's buffer.
const MAX_GROUP: usize = 5;

/// The byte length of each value of a group from its header: the first
/// value's field is the most significant.
#[inline]
fn lengths<T: GroupVarIntValue>(header: u16) -> [usize; MAX_GROUP] {
    let mask = (1u16 << T::FIELD_BITS) - 1;
    core::array::from_fn(|i| {
        let shift = (T::GROUP.saturating_sub(1 + i)) * T::FIELD_BITS;
        if i < T::GROUP {
            usize::from((header >> shift) & mask) + 1
        } else {
            0
        }
    })
}

/// Appends values GROUP_VAR_INT-encoded.
pub fn encode<T: GroupVarIntValue>(values: &[T], out: &mut Vec<u8>) {
    for group in values.chunks(T::GROUP) {
        let mut vals = [0u64; MAX_GROUP];
        for (d, &s) in vals.iter_mut().zip(group) {
            *d = s.to_u64();
        }
        let vals = &vals[..T::GROUP];
        let mut header = 0u16;
        for &v in vals {
            header = (header << T::FIELD_BITS) | (byte_len(v) - 1) as u16;
        }
        out.extend_from_slice(&header.to_le_bytes()[..T::HEADER_BYTES]);
        for &v in vals {
            out.extend_from_slice(&v.to_le_bytes()[..byte_len(v)]);
        }
    }
}

/// Appends INT32 values GROUP_VAR_INT-encoded.
///
/// ```
/// let mut out = Vec::new();
/// pq_encoding::group_var_int::encode_i32(&[0xFF, 0xFF_FFFF, -1, 0xFFFF], &mut out);
/// assert_eq!(out[0], 0b0010_1101);
/// assert_eq!(out.len(), 11);
/// ```
pub fn encode_i32(values: &[i32], out: &mut Vec<u8>) {
    encode(values, out);
}

/// Appends INT64 values GROUP_VAR_INT-encoded.
pub fn encode_i64(values: &[i64], out: &mut Vec<u8>) {
    encode(values, out);
}

/// Streaming GROUP_VAR_INT decoder of `i32` or `i64` values.
///
/// ```
/// use pq_encoding::group_var_int::{GroupVarIntDecoder64, encode_i64};
/// let mut out = Vec::new();
/// encode_i64(&[1, -1, 1 << 40], &mut out);
/// let mut back = [0i64; 5];
/// // The last group is padded with zeros, which decode as values.
/// assert_eq!(GroupVarIntDecoder64::new(&out).decode(&mut back).unwrap(), 5);
/// assert_eq!(back, [1, -1, 1 << 40, 0, 0]);
/// ```
#[derive(Debug, Clone)]
pub struct GroupVarIntDecoder<'a, T> {
    data: &'a [u8],
    pos: usize,
    buf: [T; MAX_GROUP],
    buf_pos: usize,
}

/// The INT32 decoder.
pub type GroupVarIntDecoder32<'a> = GroupVarIntDecoder<'a, i32>;
/// The INT64 decoder.
pub type GroupVarIntDecoder64<'a> = GroupVarIntDecoder<'a, i64>;

impl<'a, T: GroupVarIntValue> GroupVarIntDecoder<'a, T> {
    /// A decoder over `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self {
            data,
            pos: 0,
            buf: [T::default(); MAX_GROUP],
            buf_pos: T::GROUP,
        }
    }

    fn next_group(&mut self) -> Result<bool> {
        if self.pos >= self.data.len() {
            return Ok(false);
        }
        let hb = T::HEADER_BYTES;
        let Some(h) = self.data.get(self.pos..self.pos + hb) else {
            return Err(eof("GROUP_VAR_INT header", hb, self.data.len() - self.pos));
        };
        let mut header = [0u8; 2];
        header[..hb].copy_from_slice(h);
        let lens = lengths::<T>(u16::from_le_bytes(header));
        let total: usize = lens.iter().sum();
        let start = self.pos + hb;
        let Some(body) = self.data.get(start..start + total) else {
            return Err(eof("GROUP_VAR_INT group", total, self.data.len() - start));
        };
        let mut at = 0;
        for (b, l) in self.buf.iter_mut().zip(lens) {
            *b = T::from_u64(read_le(&body[at..at + l]));
            at += l;
        }
        self.pos = start + total;
        self.buf_pos = 0;
        Ok(true)
    }

    /// Fills up to `out.len()` values; returns how many (fewer at the end,
    /// where padding zeros of the last group also count as values).
    pub fn decode(&mut self, out: &mut [T]) -> Result<usize> {
        let mut done = 0;
        while done < out.len() {
            if self.buf_pos == T::GROUP && !self.next_group()? {
                break;
            }
            let k = (T::GROUP - self.buf_pos).min(out.len() - done);
            out[done..done + k].copy_from_slice(&self.buf[self.buf_pos..self.buf_pos + k]);
            self.buf_pos += k;
            done += k;
        }
        Ok(done)
    }

    /// Skips up to `n` values; returns how many.
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        let mut scratch = [T::default(); 32];
        let mut done = 0;
        while done < n {
            let k = self.decode(&mut scratch[..(n - done).min(32)])?;
            if k == 0 {
                break;
            }
            done += k;
        }
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_header_example() {
        // Lengths 1, 3, 4, 2: 1 + (1 + 3 + 4 + 2) = 11 bytes, offsets 1, 2, 5, 9.
        let vals = [0xFF, 0xFF_FFFF, 0xFFFF_FFFFu32 as i32, 0xFFFF];
        let mut out = Vec::new();
        encode_i32(&vals, &mut out);
        assert_eq!(
            out,
            [
                0b0010_1101,
                0xFF,
                0xFF,
                0xFF,
                0xFF,
                0xFF,
                0xFF,
                0xFF,
                0xFF,
                0xFF,
                0xFF
            ]
        );
        let mut dec = GroupVarIntDecoder32::new(&out);
        let mut back = [0; 4];
        assert_eq!(dec.decode(&mut back).unwrap(), 4);
        assert_eq!(back, vals);
    }

    #[test]
    fn padding_and_i64() {
        let mut out = Vec::new();
        encode_i32(&[1, 2, 3, 4, 5], &mut out);
        // Two groups: (1,2,3,4) and (5,0,0,0).
        assert_eq!(out.len(), 5 + 5);
        let mut back = [9; 8];
        assert_eq!(
            GroupVarIntDecoder32::new(&out).decode(&mut back).unwrap(),
            8
        );
        assert_eq!(back, [1, 2, 3, 4, 5, 0, 0, 0]);

        let v = [i64::MIN, -1, 0, 1, i64::MAX, 300];
        let mut out = Vec::new();
        encode_i64(&v, &mut out);
        let mut back = [0i64; 10];
        assert_eq!(
            GroupVarIntDecoder64::new(&out).decode(&mut back).unwrap(),
            10
        );
        assert_eq!(&back[..6], &v);
        assert!(
            GroupVarIntDecoder64::new(&out[..out.len() - 1])
                .decode(&mut back)
                .is_err()
        );
        assert!(
            GroupVarIntDecoder32::new(&[0xFF, 1])
                .decode(&mut [0; 4])
                .is_err()
        );
    }
}
