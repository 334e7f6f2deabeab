//! The RLE / bit-packing hybrid (encoding RLE = 3): definition and
//! repetition levels, dictionary indices and RLE booleans.
//!
//! Bit-packed runs are decoded 32 values at a time by the width-specialised
//! unpackers of [`crate::bit_pack`]; repeated runs become a `fill`. The
//! encoder ([`encode`], [`encode_length_prefixed`]) works on whole slices.

use alloc::vec::Vec;

mod encoder;

pub use encoder::{encode, encode_length_prefixed};

use crate::bit_pack;
use crate::error::{Error, Result, eof, invalid};
use crate::varint;

/// An integer type the hybrid decoder can produce: `u32` for dictionary
/// indices, `i16` for levels, `u8`/`bool`-like uses via `u8`.
pub trait RleValue: Copy + Default + PartialEq {
    /// Converts a decoded value (truncating, as the bit width bounds it).
    fn from_u32(v: u32) -> Self;
    /// Converts back for encoding.
    fn to_u32(self) -> u32;
}

macro_rules! rle_value {
    ($($t:ty)*) => {$(
        impl RleValue for $t {
            #[inline(always)]
            fn from_u32(v: u32) -> Self { v as $t }
            #[inline(always)]
            fn to_u32(self) -> u32 { self as u32 }
        }
    )*};
}
rle_value!(u32 i32 u16 i16 u8 u64 i64);

impl RleValue for bool {
    #[inline(always)]
    fn from_u32(v: u32) -> Self {
        v != 0
    }
    #[inline(always)]
    fn to_u32(self) -> u32 {
        self as u32
    }
}

fn check_width(bit_width: u8) -> Result<usize> {
    if bit_width > 32 {
        return Err(Error::BitWidth {
            what: "RLE/bit-packed hybrid",
            max: 32,
            found: bit_width.into(),
        });
    }
    Ok(bit_width.into())
}

/// One run of a hybrid stream, as [`read_run`] finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Run {
    /// `count` copies of `value`.
    Repeated {
        /// The repeated value.
        value: u32,
        /// How many times.
        count: usize,
    },
    /// `values` bit-packed values whose bytes start at `start`; the run's
    /// bytes end at `end` (past any padding values, which are not counted
    /// in `values`).
    BitPacked {
        /// The first byte of the packed values.
        start: usize,
        /// The byte just past the run.
        end: usize,
        /// The values to take from the run.
        values: usize,
    },
}

/// Reads the run at `*pos` of a hybrid stream of `bit_width`-bit values
/// with `remaining` values still to come (`usize::MAX` when the stream's
/// count is unknown), and moves `*pos` past it. The one place a run header
/// is checked, for every decoder of hybrid runs:
///
/// - a run length of 0 or above 2^31 - 1 is invalid;
/// - a repeated run longer than what remains is an overrun;
/// - a bit-packed run may reach past what remains by the padding of its
///   last group (up to 7 values), or by whole groups whose bytes end the
///   data exactly (DuckDB pads its last run so); further is an overrun;
/// - a last bit-packed run cut short by its writer yields what its bytes
///   hold, and one with no whole value is an end of input.
///
/// ```
/// use pq_encoding::rle::{Run, read_run};
/// // A repeated run of 3 twos, then a bit-packed group of 8 for 2 values.
/// let data = [0x06, 0x02, 0x03, 0b0000_0110];
/// let mut pos = 0;
/// assert_eq!(read_run(&data, &mut pos, 2, 5).unwrap(), Run::Repeated { value: 2, count: 3 });
/// assert_eq!(
///     read_run(&data, &mut pos, 2, 2).unwrap(),
///     Run::BitPacked { start: 3, end: 5.min(data.len()), values: 2 }
/// );
/// ```
pub fn read_run(data: &[u8], pos: &mut usize, bit_width: usize, remaining: usize) -> Result<Run> {
    let header_at = *pos;
    let header = varint::read_uleb128(data, pos)?;
    let count = header >> 1;
    if count == 0 || count > i32::MAX as u64 {
        return Err(invalid("hybrid run length", "1 to 2^31-1", count));
    }
    // At most 2^31 - 1: fits.
    let count = count as usize;
    let overrun = |run, declared: usize| Error::RunOverrun {
        run,
        declared: declared as u64,
        remaining,
        offset: header_at,
    };
    let rest = data.len().saturating_sub(*pos);
    if header & 1 == 0 {
        if count > remaining {
            return Err(overrun("repeated run", count));
        }
        let nbytes = bit_width.div_ceil(8);
        let Some(bytes) = data.get(*pos..*pos + nbytes) else {
            return Err(eof("repeated value", nbytes, rest));
        };
        let mut b = [0u8; 4];
        b[..nbytes].copy_from_slice(bytes);
        *pos += nbytes;
        return Ok(Run::Repeated {
            value: u32::from_le_bytes(b),
            count,
        });
    }
    let declared = count.saturating_mul(8);
    let bytes = declared.saturating_mul(bit_width) / 8;
    if declared > remaining.saturating_add(7) && bytes != rest {
        return Err(overrun("bit-packed run", declared));
    }
    // A final run may be cut short by its writer; only as many values as
    // its bytes hold are readable.
    let avail = if bytes > rest {
        (rest * 8).checked_div(bit_width).unwrap_or(declared)
    } else {
        declared
    };
    if avail == 0 {
        return Err(eof("bit-packed run", bytes, rest));
    }
    let start = *pos;
    *pos = start + bytes.min(rest);
    Ok(Run::BitPacked {
        start,
        end: *pos,
        values: avail.min(remaining),
    })
}

/// Streaming decoder of hybrid runs.
///
/// ```
/// use pq_encoding::rle::{self, RleDecoder};
/// let mut buf = Vec::new();
/// rle::encode(&[1u32, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 4], 3, &mut buf);
/// let mut dec = RleDecoder::new(&buf, 3).unwrap();
/// let mut out = [0i16; 12];
/// assert_eq!(dec.decode(&mut out).unwrap(), 12);
/// assert_eq!(out, [1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 4]);
/// ```
#[derive(Debug, Clone)]
pub struct RleDecoder<'a> {
    data: &'a [u8],
    /// Where decoding is: everything but the bytes.
    at: RleCursor,
}

impl<'a> RleDecoder<'a> {
    /// A decoder over runs without a length prefix (dictionary indices,
    /// data page v2 levels). `bit_width` is at most 32.
    pub fn new(data: &'a [u8], bit_width: u8) -> Result<Self> {
        Ok(Self {
            data,
            at: RleCursor {
                pos: 0,
                bit_width: check_width(bit_width)?,
                rle_left: 0,
                rle_value: 0,
                bp_left: 0,
                buf: [0; 32],
                buf_pos: 0,
                buf_len: 0,
                limit: usize::MAX,
                run_end: 0,
            },
        })
    }

    /// This decoder, for a stream that holds exactly `count` values (a
    /// page's levels, the indices of its non-null values).
    ///
    /// A run that declares more than remain is then an error, checked once
    /// per run: a repeated run longer than the values that remain, or a
    /// bit-packed run reaching 8 or more values past them (a final
    /// bit-packed run is padded to a whole group of 8, so it may declare up
    /// to 7 values more than the stream holds). Without a count a corrupt
    /// run header could make the values that follow it decode as data.
    ///
    /// ```
    /// use pq_encoding::rle::RleDecoder;
    /// // A repeated run of 9 ones (header 9 << 1), where the page holds 5.
    /// let mut dec = RleDecoder::new(&[0x12, 0x01], 1).unwrap().with_count(5);
    /// assert!(dec.decode(&mut [0u8; 5]).is_err());
    /// ```
    pub fn with_count(mut self, count: usize) -> Self {
        self.at.limit = count;
        self
    }

    /// Checks that no byte follows the runs read so far: once all of a
    /// stream's values are decoded, bytes after its last run (padding
    /// within a bit-packed run is not after it) mean the run headers and
    /// the stream's length disagree. Only for streams whose length is
    /// known: levels with a length prefix or a declared length.
    pub fn check_end(&self) -> Result<()> {
        let left = self.data.len().saturating_sub(self.at.run_end);
        if left > 0 {
            return Err(Error::TrailingBytes {
                found: left,
                offset: self.at.run_end,
            });
        }
        Ok(())
    }

    /// A decoder over runs preceded by a 4-byte little-endian length (data
    /// page v1 levels, RLE booleans). Returns the decoder and the total
    /// number of bytes the prefixed block occupies, so the caller can find
    /// what follows.
    pub fn new_length_prefixed(data: &'a [u8], bit_width: u8) -> Result<(Self, usize)> {
        let Some(len) = data.get(..4) else {
            return Err(eof("RLE length prefix", 4, data.len()));
        };
        let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
        let Some(body) = data.get(4..4 + len) else {
            return Err(eof("RLE data after length prefix", len, data.len() - 4));
        };
        Ok((Self::new(body, bit_width)?, 4 + len))
    }

    /// The bit width.
    pub fn bit_width(&self) -> u8 {
        self.at.bit_width as u8
    }

    /// Reads the next run header. Returns false at the end of the data.
    fn next_run(&mut self) -> Result<bool> {
        // The next run starts where the last one's bytes end, past any
        // padding values that were never handed out.
        self.at.pos = self.at.pos.max(self.at.run_end);
        if self.at.pos >= self.data.len() {
            return Ok(false);
        }
        match read_run(
            self.data,
            &mut self.at.pos,
            self.at.bit_width,
            self.at.limit,
        )? {
            Run::Repeated { value, count } => {
                self.at.rle_value = value;
                self.at.rle_left = count;
                self.at.run_end = self.at.pos;
                self.at.limit -= count;
            }
            Run::BitPacked { start, end, values } => {
                // Unpacked from `start`; the padding values are never
                // handed out.
                self.at.pos = start;
                self.at.run_end = end;
                self.at.bp_left = values;
                self.at.limit -= values;
            }
        }
        Ok(true)
    }

    /// Unpacks the next group of up to 32 values of the bit-packed run into
    /// `out`, returning how many are valid.
    #[inline]
    fn unpack_group(&mut self, out: &mut [u32; 32]) -> usize {
        let n = self.at.bp_left.min(32);
        let rest = self.data.get(self.at.pos..).unwrap_or(&[]);
        bit_pack::unpack32(rest, out, self.at.bit_width);
        // n is a multiple of 8 unless the run was cut short.
        let bytes = (n * self.at.bit_width).div_ceil(8);
        self.at.pos = (self.at.pos + bytes).min(self.data.len());
        self.at.bp_left -= n;
        n
    }

    /// Decodes up to `out.len()` values; returns how many were written
    /// (fewer only at the end of the data).
    pub fn decode<T: RleValue>(&mut self, out: &mut [T]) -> Result<usize> {
        let total = out.len();
        let mut done = 0;
        while done < total {
            let rest = &mut out[done..];
            if self.at.buf_pos < self.at.buf_len {
                let n = (self.at.buf_len - self.at.buf_pos).min(rest.len());
                for (o, &v) in rest[..n]
                    .iter_mut()
                    .zip(&self.at.buf[self.at.buf_pos..self.at.buf_pos + n])
                {
                    *o = T::from_u32(v);
                }
                self.at.buf_pos += n;
                done += n;
            } else if self.at.rle_left > 0 {
                let n = self.at.rle_left.min(rest.len());
                rest[..n].fill(T::from_u32(self.at.rle_value));
                self.at.rle_left -= n;
                done += n;
            } else if self.at.bp_left > 0 {
                // Whole groups straight into the output, the tail via `buf`.
                for chunk in rest.chunks_exact_mut(32) {
                    if self.at.bp_left < 32 {
                        break;
                    }
                    let Ok(chunk) = <&mut [T; 32]>::try_from(chunk) else {
                        break;
                    };
                    let input = self.data.get(self.at.pos..).unwrap_or(&[]);
                    bit_pack::unpack32(input, chunk, self.at.bit_width);
                    self.at.pos = (self.at.pos + 4 * self.at.bit_width).min(self.data.len());
                    self.at.bp_left -= 32;
                    done += 32;
                }
                if done < total && self.at.bp_left > 0 {
                    let mut b = [0u32; 32];
                    let n = self.unpack_group(&mut b);
                    self.at.buf = b;
                    self.at.buf_pos = 0;
                    self.at.buf_len = n;
                }
            } else if !self.next_run()? {
                break;
            }
        }
        Ok(done)
    }

    /// Decodes exactly `n` values appended to `out`, or fails.
    pub fn decode_into<T: RleValue>(&mut self, out: &mut Vec<T>, n: usize) -> Result<()> {
        let start = out.len();
        // Grow in bounded steps: a short input can claim huge runs.
        let mut left = n;
        while left > 0 {
            let step = left.min(4096);
            let at = out.len();
            out.resize(at + step, T::default());
            let got = self.decode(&mut out[at..])?;
            if got < step {
                out.truncate(at + got);
                let found = out.len() - start;
                out.truncate(start);
                return Err(Error::NotEnoughValues {
                    what: "RLE/bit-packed hybrid",
                    expected: n,
                    found,
                });
            }
            left -= step;
        }
        Ok(())
    }

    /// Consumes the next `n` values (fewer only at the end of the data;
    /// returns how many), writing over each of `positions` the value at
    /// that position among them. Positions must be strictly increasing and
    /// below `n`; one that is not becomes `u32::MAX`.
    ///
    /// A value inside a bit-packed run is read where it lies, from its bit
    /// offset, without unpacking its group: few positions among many values
    /// (the kept rows of a column read late) cost a few operations each
    /// rather than a decode of every value.
    ///
    /// ```
    /// use pq_encoding::rle::{RleDecoder, encode};
    /// let values: Vec<u32> = (0..100).map(|i| i * 7 % 61).collect();
    /// let mut runs = Vec::new();
    /// encode(&values, 6, &mut runs);
    /// let mut dec = RleDecoder::new(&runs, 6).unwrap().with_count(100);
    /// let mut positions = [3, 40, 41, 99];
    /// assert_eq!(dec.gather(100, &mut positions).unwrap(), 100);
    /// assert_eq!(positions, [values[3], values[40], values[41], values[99]]);
    /// ```
    pub fn gather(&mut self, n: usize, positions: &mut [u32]) -> Result<usize> {
        let mut done = 0usize;
        let mut i = 0;
        while let Some(&p) = positions.get(i) {
            let p = p as usize;
            if p < done || p >= n {
                if let Some(slot) = positions.get_mut(i) {
                    *slot = u32::MAX;
                }
                i += 1;
                continue;
            }
            let d = p - done;
            if self.at.buf_pos < self.at.buf_len {
                let held = self.at.buf_len - self.at.buf_pos;
                if d < held {
                    let v = self.at.buf.get(self.at.buf_pos + d).copied();
                    if let Some(slot) = positions.get_mut(i) {
                        *slot = v.unwrap_or(u32::MAX);
                    }
                    self.at.buf_pos += d + 1;
                    done = p + 1;
                    i += 1;
                } else {
                    self.at.buf_pos = self.at.buf_len;
                    done += held;
                }
            } else if self.at.rle_left > 0 {
                if d < self.at.rle_left {
                    if let Some(slot) = positions.get_mut(i) {
                        *slot = self.at.rle_value;
                    }
                    self.at.rle_left -= d + 1;
                    done = p + 1;
                    i += 1;
                } else {
                    done += self.at.rle_left;
                    self.at.rle_left = 0;
                }
            } else if self.at.bp_left > 0 {
                // Every position within the run's values left, read where
                // it lies; then the run is passed as far as they reach (all
                // of it when a position lies beyond).
                let (base, left, w) = (done, self.at.bp_left, self.at.bit_width);
                let mut used = 0;
                while let Some(slot) = positions.get_mut(i) {
                    let q = *slot as usize;
                    if q < base + used || q >= n {
                        *slot = u32::MAX;
                        i += 1;
                        continue;
                    }
                    let off = q - base;
                    if off >= left {
                        used = left;
                        break;
                    }
                    *slot = bit_pack::value_at(self.data, self.at.pos, off, w);
                    used = off + 1;
                    i += 1;
                }
                self.pass_packed(used);
                done = base + used;
            } else if !self.next_run()? {
                return Ok(done);
            }
        }
        Ok(done + self.skip(n - done)?)
    }

    /// Passes the next `k` values (at most those left) of the current
    /// bit-packed run, whose group boundary the position is at: whole
    /// groups by arithmetic, a part group unpacked to be handed out.
    fn pass_packed(&mut self, k: usize) {
        let groups = k / 8;
        self.at.pos = (self.at.pos + groups * self.at.bit_width).min(self.data.len());
        self.at.bp_left -= groups * 8;
        let part = k % 8;
        if part > 0 {
            let mut b = [0u32; 32];
            let got = self.unpack_group(&mut b);
            self.at.buf = b;
            self.at.buf_pos = part.min(got);
            self.at.buf_len = got;
        }
    }

    /// Skips up to `n` values; returns how many were skipped.
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        let mut done = 0;
        while done < n {
            let want = n - done;
            if self.at.buf_pos < self.at.buf_len {
                let k = (self.at.buf_len - self.at.buf_pos).min(want);
                self.at.buf_pos += k;
                done += k;
            } else if self.at.rle_left > 0 {
                let k = self.at.rle_left.min(want);
                self.at.rle_left -= k;
                done += k;
            } else if self.at.bp_left > 0 {
                // Whole groups of 8 are skipped by arithmetic.
                let groups = (want.min(self.at.bp_left)) / 8;
                if groups > 0 {
                    let k = groups * 8;
                    self.at.pos = (self.at.pos + groups * self.at.bit_width).min(self.data.len());
                    self.at.bp_left -= k;
                    done += k;
                } else {
                    let mut b = [0u32; 32];
                    let got = self.unpack_group(&mut b);
                    self.at.buf = b;
                    self.at.buf_pos = 0;
                    self.at.buf_len = got;
                }
            } else if !self.next_run()? {
                break;
            }
        }
        Ok(done)
    }
}

/// Where an [`RleDecoder`] is in its stream, without the borrow of the
/// stream's bytes: for a decoder that must stop and resume later over bytes
/// its owner keeps (a page's dictionary indices, decoded a batch at a
/// time).
///
/// A cursor belongs with the bytes it was taken over: resumed over others,
/// a decoder never panics, but what it decodes from them means nothing
/// (values may come from a run whose header it read in the old bytes).
///
/// ```
/// use pq_encoding::rle::{RleDecoder, encode};
/// let mut runs = Vec::new();
/// encode(&[3u32, 3, 3, 1, 2, 0, 1, 2, 3, 3], 2, &mut runs);
/// let mut dec = RleDecoder::new(&runs, 2).unwrap().with_count(10);
/// let mut first = [0u32; 4];
/// dec.decode(&mut first).unwrap();
/// let cursor = dec.into_cursor();
/// // Later, over the same bytes:
/// let mut dec = RleDecoder::resume(&runs, cursor);
/// let mut rest = [0u32; 6];
/// assert_eq!(dec.decode(&mut rest).unwrap(), 6);
/// assert_eq!(rest, [2, 0, 1, 2, 3, 3]);
/// ```
#[derive(Debug, Clone)]
pub struct RleCursor {
    pos: usize,
    bit_width: usize,
    /// Values left in the current repeated run.
    rle_left: usize,
    rle_value: u32,
    /// Values left in the current bit-packed run (excluding `buf`).
    bp_left: usize,
    buf: [u32; 32],
    buf_pos: usize,
    buf_len: usize,
    /// Values the runs not yet started may hold; `usize::MAX` when the
    /// stream's count is not known (see [`RleDecoder::with_count`]).
    limit: usize,
    /// The byte just past the last run started, for [`RleDecoder::check_end`].
    run_end: usize,
}

impl<'a> RleDecoder<'a> {
    /// The decoder's position, to [`resume`](Self::resume) it later.
    pub fn into_cursor(self) -> RleCursor {
        self.at
    }

    /// The decoder that [`into_cursor`](Self::into_cursor) stopped, over
    /// the same bytes `data`.
    pub fn resume(data: &'a [u8], cursor: RleCursor) -> Self {
        RleDecoder { data, at: cursor }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn rt(values: &[u32], w: u8) {
        let mut buf = Vec::new();
        encode(values, w, &mut buf);
        let mut dec = RleDecoder::new(&buf, w).unwrap();
        let mut out: Vec<u32> = Vec::new();
        dec.decode_into(&mut out, values.len()).unwrap();
        assert_eq!(out, values);
        // Odd-sized reads and skips agree.
        let mut dec = RleDecoder::new(&buf, w).unwrap();
        let mut got = Vec::new();
        let mut i = 0;
        while i < values.len() {
            let step = ((i % 7) + 1).min(values.len() - i);
            if i % 3 == 0 {
                let k = dec.skip(step).unwrap();
                got.extend_from_slice(&values[i..i + k]);
                i += k;
            } else {
                let mut o = vec![0u32; step.min(values.len() - i)];
                let k = dec.decode(&mut o).unwrap();
                got.extend_from_slice(&o[..k]);
                i += k;
            }
        }
        assert_eq!(got, values);
        // Stopped and resumed between every read, as an owner of the bytes
        // does between batches.
        let mut cursor = RleDecoder::new(&buf, w).unwrap().into_cursor();
        let mut got = Vec::new();
        while got.len() < values.len() {
            let mut dec = RleDecoder::resume(&buf, cursor);
            let mut o = vec![0u32; (got.len() % 5 + 1).min(values.len() - got.len())];
            let k = dec.decode(&mut o).unwrap();
            assert!(k > 0);
            got.extend_from_slice(&o[..k]);
            cursor = dec.into_cursor();
        }
        assert_eq!(got, values);
    }

    #[test]
    fn a_cursor_resumed_over_other_bytes_does_not_panic() {
        let values: Vec<u32> = (0..3000)
            .map(|i| if i % 500 < 200 { 5 } else { i % 7 })
            .collect();
        let mut buf = Vec::new();
        encode(&values, 3, &mut buf);
        for stop in [1usize, 300, 1500, 2999] {
            let mut dec = RleDecoder::new(&buf, 3).unwrap().with_count(values.len());
            let mut out = vec![0u32; stop];
            assert_eq!(dec.decode(&mut out).unwrap(), stop);
            let cursor = dec.into_cursor();
            for cut in [0, 1, buf.len() / 3, buf.len() - 1] {
                let mut dec = RleDecoder::resume(&buf[..cut], cursor.clone());
                let mut rest: Vec<u32> = Vec::new();
                // Values or an error, whatever the bytes hold; never a panic.
                let _ = dec.decode_into(&mut rest, values.len() - stop);
                let mut dec = RleDecoder::resume(&buf[..cut], cursor.clone());
                let _ = dec.skip(values.len() - stop);
            }
        }
    }

    #[test]
    fn round_trips() {
        rt(&[], 1);
        rt(&[1], 1);
        rt(&[5; 100], 3);
        let v: Vec<u32> = (0..1000).map(|i| (i * 7 % 13) as u32).collect();
        rt(&v, 4);
        let v: Vec<u32> = (0..1000)
            .map(|i| if i % 100 < 50 { 3 } else { i as u32 % 8 })
            .collect();
        rt(&v, 3);
        rt(&[u32::MAX, 0, u32::MAX, u32::MAX], 32);
        rt(&[0; 77], 0);
    }

    #[test]
    fn length_prefixed() {
        let mut buf = Vec::new();
        encode_length_prefixed(&[true, false, true], 1, &mut buf);
        buf.push(0xAA);
        let (mut dec, used) = RleDecoder::new_length_prefixed(&buf, 1).unwrap();
        assert_eq!(used, buf.len() - 1);
        let mut out = [false; 3];
        assert_eq!(dec.decode(&mut out).unwrap(), 3);
        assert_eq!(out, [true, false, true]);
    }

    #[test]
    fn errors() {
        assert!(RleDecoder::new(&[], 33).is_err());
        // Repeated run missing its value.
        let mut d = RleDecoder::new(&[0x10], 8).unwrap();
        assert!(d.decode(&mut [0u32; 4]).is_err());
        // Zero-length run.
        let mut d = RleDecoder::new(&[0x00, 0x01], 8).unwrap();
        assert!(d.decode(&mut [0u32; 4]).is_err());
        // More values asked than present.
        let mut d = RleDecoder::new(&[0x08, 0x01], 8).unwrap();
        assert!(d.decode_into(&mut Vec::<u32>::new(), 5).is_err());
    }

    fn decode_counted(data: &[u8], w: u8, count: usize) -> Result<Vec<u32>> {
        let mut d = RleDecoder::new(data, w)?.with_count(count);
        let mut out = Vec::new();
        d.decode_into(&mut out, count)?;
        d.check_end()?;
        Ok(out)
    }

    #[test]
    fn counted_runs_fit_the_count() {
        // A repeated run of 5 twos: exactly 5 values.
        assert_eq!(decode_counted(&[0x0a, 0x02], 2, 5).unwrap(), [2; 5]);
        // One run longer than the count.
        assert_eq!(
            decode_counted(&[0x0c, 0x02], 2, 5),
            Err(Error::RunOverrun {
                run: "repeated run",
                declared: 6,
                remaining: 5,
                offset: 0
            })
        );
        // The second run overruns what the first left.
        assert_eq!(
            decode_counted(&[0x06, 0x01, 0x06, 0x00], 1, 5),
            Err(Error::RunOverrun {
                run: "repeated run",
                declared: 3,
                remaining: 2,
                offset: 2
            })
        );
    }

    #[test]
    fn counted_bit_packed_runs_allow_the_last_group_padding_only() {
        // One group of 8 for 1 value: 7 padding values, allowed.
        assert_eq!(decode_counted(&[0x03, 0xff], 1, 1).unwrap(), [1]);
        // Two groups (16 values) for 8, and a run after them: a whole
        // group too many that is not the data's last.
        assert_eq!(
            decode_counted(&[0x05, 0xff, 0xff, 0x02, 0x01], 1, 8),
            Err(Error::RunOverrun {
                run: "bit-packed run",
                declared: 16,
                remaining: 8,
                offset: 0
            })
        );
        // Whole groups of padding whose bytes end the data: the last run
        // of a writer that pads with groups (DuckDB).
        assert_eq!(decode_counted(&[0x05, 0xff, 0x00], 1, 3).unwrap(), [1; 3]);
        // The same run with a byte after it is a corrupt header.
        assert!(matches!(
            decode_counted(&[0x05, 0xff, 0x00, 0x02, 0x01], 1, 3),
            Err(Error::RunOverrun { .. })
        ));
        // A header of 2^31-1 groups planted before the levels.
        let e = decode_counted(&[0xff, 0xff, 0xff, 0xff, 0x0f, 0x55], 1, 5000).unwrap_err();
        assert!(matches!(e, Error::RunOverrun { .. }), "{e}");
    }

    #[test]
    fn counted_runs_leave_no_bytes() {
        // 5 values in a repeated run, then a run the count leaves no room for.
        assert_eq!(
            decode_counted(&[0x0a, 0x01, 0x02, 0x01], 1, 5),
            Err(Error::TrailingBytes {
                found: 2,
                offset: 2
            })
        );
        // A stray byte after a padded bit-packed run.
        assert_eq!(
            decode_counted(&[0x03, 0x01, 0x00], 1, 3),
            Err(Error::TrailingBytes {
                found: 1,
                offset: 2
            })
        );
        // Without a count, decoding stops where it is asked to.
        let mut d = RleDecoder::new(&[0x0a, 0x01, 0x02, 0x01], 1).unwrap();
        assert_eq!(d.decode(&mut [0u8; 5]).unwrap(), 5);
    }
}
