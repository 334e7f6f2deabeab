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

/// Appends INT32 values GROUP_VAR_INT-encoded.
///
/// ```
/// let mut out = Vec::new();
/// pq_encoding::group_var_int::encode_i32(&[0xFF, 0xFF_FFFF, -1, 0xFFFF], &mut out);
/// assert_eq!(out[0], 0b0010_1101);
/// assert_eq!(out.len(), 11);
/// ```
pub fn encode_i32(values: &[i32], out: &mut Vec<u8>) {
    for group in values.chunks(4) {
        let mut vals = [0u32; 4];
        for (d, &s) in vals.iter_mut().zip(group) {
            *d = s as u32;
        }
        let mut header = 0u8;
        for v in vals {
            header = (header << 2) | (byte_len(v.into()) - 1) as u8;
        }
        out.push(header);
        for v in vals {
            out.extend_from_slice(&v.to_le_bytes()[..byte_len(v.into())]);
        }
    }
}

/// Appends INT64 values GROUP_VAR_INT-encoded.
pub fn encode_i64(values: &[i64], out: &mut Vec<u8>) {
    for group in values.chunks(5) {
        let mut vals = [0u64; 5];
        for (d, &s) in vals.iter_mut().zip(group) {
            *d = s as u64;
        }
        let mut header = 0u16;
        for v in vals {
            header = (header << 3) | (byte_len(v) - 1) as u16;
        }
        out.extend_from_slice(&header.to_le_bytes());
        for v in vals {
            out.extend_from_slice(&v.to_le_bytes()[..byte_len(v)]);
        }
    }
}

/// Streaming GROUP_VAR_INT decoder for INT32.
#[derive(Debug, Clone)]
pub struct GroupVarIntDecoder32<'a> {
    data: &'a [u8],
    pos: usize,
    buf: [i32; 4],
    buf_pos: usize,
}

impl<'a> GroupVarIntDecoder32<'a> {
    /// A decoder over `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self {
            data,
            pos: 0,
            buf: [0; 4],
            buf_pos: 4,
        }
    }

    fn next_group(&mut self) -> Result<bool> {
        let Some(&header) = self.data.get(self.pos) else {
            return Ok(false);
        };
        let lens: [usize; 4] = core::array::from_fn(|i| ((header >> (6 - 2 * i)) & 3) as usize + 1);
        let total: usize = lens.iter().sum();
        let Some(body) = self.data.get(self.pos + 1..self.pos + 1 + total) else {
            return Err(eof(
                "GROUP_VAR_INT group",
                total,
                self.data.len() - self.pos - 1,
            ));
        };
        let mut at = 0;
        for (b, l) in self.buf.iter_mut().zip(lens) {
            *b = read_le(&body[at..at + l]) as u32 as i32;
            at += l;
        }
        self.pos += 1 + total;
        self.buf_pos = 0;
        Ok(true)
    }

    /// Fills up to `out.len()` values; returns how many (fewer at the end,
    /// where padding zeros of the last group also count as values).
    pub fn decode(&mut self, out: &mut [i32]) -> Result<usize> {
        let mut done = 0;
        while done < out.len() {
            if self.buf_pos == 4 && !self.next_group()? {
                break;
            }
            let k = (4 - self.buf_pos).min(out.len() - done);
            out[done..done + k].copy_from_slice(&self.buf[self.buf_pos..self.buf_pos + k]);
            self.buf_pos += k;
            done += k;
        }
        Ok(done)
    }

    /// Skips up to `n` values; returns how many.
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        let mut scratch = [0i32; 32];
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

/// Streaming GROUP_VAR_INT decoder for INT64.
#[derive(Debug, Clone)]
pub struct GroupVarIntDecoder64<'a> {
    data: &'a [u8],
    pos: usize,
    buf: [i64; 5],
    buf_pos: usize,
}

impl<'a> GroupVarIntDecoder64<'a> {
    /// A decoder over `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self {
            data,
            pos: 0,
            buf: [0; 5],
            buf_pos: 5,
        }
    }

    fn next_group(&mut self) -> Result<bool> {
        if self.pos >= self.data.len() {
            return Ok(false);
        }
        let Some(h) = self.data.get(self.pos..self.pos + 2) else {
            return Err(eof("GROUP_VAR_INT header", 2, self.data.len() - self.pos));
        };
        let header = u16::from_le_bytes([h[0], h[1]]);
        let lens: [usize; 5] =
            core::array::from_fn(|i| ((header >> (12 - 3 * i)) & 7) as usize + 1);
        let total: usize = lens.iter().sum();
        let Some(body) = self.data.get(self.pos + 2..self.pos + 2 + total) else {
            return Err(eof(
                "GROUP_VAR_INT group",
                total,
                self.data.len() - self.pos - 2,
            ));
        };
        let mut at = 0;
        for (b, l) in self.buf.iter_mut().zip(lens) {
            *b = read_le(&body[at..at + l]) as i64;
            at += l;
        }
        self.pos += 2 + total;
        self.buf_pos = 0;
        Ok(true)
    }

    /// Fills up to `out.len()` values; returns how many.
    pub fn decode(&mut self, out: &mut [i64]) -> Result<usize> {
        let mut done = 0;
        while done < out.len() {
            if self.buf_pos == 5 && !self.next_group()? {
                break;
            }
            let k = (5 - self.buf_pos).min(out.len() - done);
            out[done..done + k].copy_from_slice(&self.buf[self.buf_pos..self.buf_pos + k]);
            self.buf_pos += k;
            done += k;
        }
        Ok(done)
    }

    /// Skips up to `n` values; returns how many.
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        let mut scratch = [0i64; 32];
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
