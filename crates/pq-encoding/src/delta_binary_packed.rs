//! DELTA_BINARY_PACKED (encoding 5) for INT32 and INT64.
//!
//! All arithmetic wraps, done in `u64` and truncated to the value type, so
//! any sequence round-trips. Miniblocks are unpacked 32 values at a time.

use alloc::vec::Vec;

use crate::bit_pack;
use crate::error::{Error, Result, eof, invalid};
use crate::plain::FixedWidth;
use crate::stream::append_exactly;
use crate::varint;

/// An integer type with a delta encoding: `i32` or `i64`.
pub trait DeltaInt: FixedWidth + Ord {
    /// Bits of the type; miniblock bit widths may not exceed it.
    const BITS: usize;
    /// Truncates a wrapped `u64` sum to the type.
    fn from_u64(v: u64) -> Self;
    /// Sign-extends to `i64`.
    fn to_i64(self) -> i64;
    /// `self - prev`, wrapping in the type's width, sign-extended.
    fn delta(self, prev: Self) -> i64;
}

impl DeltaInt for i32 {
    const BITS: usize = 32;
    #[inline(always)]
    fn from_u64(v: u64) -> Self {
        v as i32
    }
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self.into()
    }
    #[inline(always)]
    fn delta(self, prev: Self) -> i64 {
        self.wrapping_sub(prev).into()
    }
}

impl DeltaInt for i64 {
    const BITS: usize = 64;
    #[inline(always)]
    fn from_u64(v: u64) -> Self {
        v as i64
    }
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self
    }
    #[inline(always)]
    fn delta(self, prev: Self) -> i64 {
        self.wrapping_sub(prev)
    }
}

/// Largest block size accepted, in values. The format bounds it only by
/// its ULEB128; other readers keep it in 32 bits, so every multiple of 128
/// that fits is read (sizes are computed in `u64`, so none overflows).
const MAX_BLOCK_SIZE: u64 = u32::MAX as u64;

/// Streaming DELTA_BINARY_PACKED decoder.
///
/// ```
/// use pq_encoding::delta_binary_packed::{DeltaBitPackDecoder, encode};
/// let mut buf = Vec::new();
/// encode(&[7i32, 5, 3, 1, 2, 3, 4, 5], &mut buf);
/// let mut dec = DeltaBitPackDecoder::<i32>::new(&buf).unwrap();
/// let mut out = Vec::new();
/// dec.decode_into(&mut out, 8).unwrap();
/// assert_eq!(out, [7, 5, 3, 1, 2, 3, 4, 5]);
/// assert_eq!(dec.bytes_consumed(), buf.len());
/// ```
#[derive(Debug, Clone)]
pub struct DeltaBitPackDecoder<'a, T> {
    data: &'a [u8],
    /// Where decoding is: everything but the bytes.
    at: DeltaBitPackCursor<T>,
}

impl<'a, T: DeltaInt> DeltaBitPackDecoder<'a, T> {
    /// Parses the header and validates it against the input length.
    pub fn new(data: &'a [u8]) -> Result<Self> {
        let mut pos = 0;
        let block_size = varint::read_uleb128(data, &mut pos)?;
        let miniblocks = varint::read_uleb128(data, &mut pos)?;
        let total = varint::read_uleb128(data, &mut pos)?;
        let first = varint::read_zigzag(data, &mut pos)?;
        if block_size == 0 || block_size % 128 != 0 || block_size > MAX_BLOCK_SIZE {
            return Err(invalid(
                "DELTA block size",
                "a positive multiple of 128 below 2^32",
                block_size,
            ));
        }
        if miniblocks == 0 || block_size % miniblocks != 0 || (block_size / miniblocks) % 32 != 0 {
            return Err(invalid(
                "DELTA miniblock count",
                "a divisor of the block size leaving a multiple of 32 values per miniblock",
                miniblocks,
            ));
        }
        // The header's total is only an upper bound on what may be asked
        // for: a page decodes its own `num_values`, and other readers
        // decode them whatever larger total the header claims. A caller
        // that needs every value (DELTA_LENGTH_BYTE_ARRAY's lengths) walks
        // the blocks, which fails where the bytes run out; the total never
        // sizes an allocation.
        let total = usize::try_from(total).unwrap_or(usize::MAX);
        let (Ok(miniblocks), Ok(mb_size)) = (
            usize::try_from(miniblocks),
            usize::try_from(block_size / miniblocks),
        ) else {
            return Err(invalid(
                "DELTA block size",
                "a size this platform can address",
                block_size,
            ));
        };
        Ok(Self {
            data,
            at: DeltaBitPackCursor {
                pos,
                miniblocks,
                mb_size,
                left: total,
                to_unpack: total.saturating_sub(1),
                first: (total > 0).then_some(first as u64),
                last: first as u64,
                min_delta: 0,
                widths: Vec::new(),
                mb_index: miniblocks,
                mb_pos: pos,
                mb_left: 0,
                mb_width: 0,
                buf: [0; 32],
                buf_pos: 0,
                buf_len: 0,
                _t: core::marker::PhantomData,
            },
        })
    }

    /// Values not yet decoded.
    pub fn remaining(&self) -> usize {
        self.at.left
    }

    /// Bytes of input read so far; after the last value this is the length
    /// of the whole encoded stream (what follows it starts here).
    pub fn bytes_consumed(&self) -> usize {
        self.at.pos
    }

    fn next_block(&mut self) -> Result<()> {
        let min = varint::read_zigzag(self.data, &mut self.at.pos)?;
        self.at.min_delta = min as u64;
        let end = self.at.pos.saturating_add(self.at.miniblocks);
        let Some(w) = self.data.get(self.at.pos..end) else {
            return Err(eof(
                "DELTA miniblock bit widths",
                self.at.miniblocks,
                self.data.len().saturating_sub(self.at.pos),
            ));
        };
        self.at.widths.clear();
        self.at.widths.extend_from_slice(w);
        self.at.pos += self.at.miniblocks;
        self.at.mb_index = 0;
        Ok(())
    }

    fn next_miniblock(&mut self) -> Result<()> {
        if self.at.mb_index >= self.at.miniblocks {
            self.next_block()?;
        }
        let width = self.at.widths.get(self.at.mb_index).copied().unwrap_or(0) as usize;
        self.at.mb_index += 1;
        if width > T::BITS {
            return Err(Error::BitWidth {
                what: "DELTA miniblock",
                max: T::BITS as u32,
                found: width as u32,
            });
        }
        // Saturating: a cursor resumed over shorter bytes than it came from
        // may stand past their end.
        let remaining = self.data.len().saturating_sub(self.at.pos);
        // A miniblock is padded to its full size, but only the values still
        // to come are read: a last miniblock cut short after them (or a
        // block size far larger than the page) still decodes, as in other
        // readers, and nothing follows such a stream.
        let full = (self.at.mb_size as u64).saturating_mul(width as u64) / 8;
        let wanted = self.at.to_unpack.min(self.at.mb_size) as u64;
        let needed = wanted.saturating_mul(width as u64).div_ceil(8);
        if needed > remaining as u64 {
            return Err(eof(
                "DELTA miniblock",
                usize::try_from(needed).unwrap_or(usize::MAX),
                remaining,
            ));
        }
        self.at.mb_pos = self.at.pos;
        self.at.pos += usize::try_from(full).unwrap_or(usize::MAX).min(remaining);
        self.at.mb_width = width;
        self.at.mb_left = self.at.mb_size;
        Ok(())
    }

    /// Unpacks and prefix-sums the next group of up to 32 values into `buf`.
    #[inline]
    fn fill_buf(&mut self) -> Result<()> {
        if self.at.mb_left == 0 {
            self.next_miniblock()?;
        }
        let input = self.data.get(self.at.mb_pos..).unwrap_or(&[]);
        let mut raw = [0u64; 32];
        if self.at.mb_width <= 32 {
            bit_pack::unpack32(input, &mut raw, self.at.mb_width);
        } else {
            bit_pack::unpack32_u64(input, &mut raw, self.at.mb_width);
        }
        self.at.mb_pos += 4 * self.at.mb_width;
        self.at.mb_left -= 32;
        let n = self.at.to_unpack.min(32);
        let mut last = self.at.last;
        let min = self.at.min_delta;
        for (b, &d) in self.at.buf.iter_mut().zip(raw.iter()).take(n) {
            last = last.wrapping_add(min).wrapping_add(d);
            *b = last;
        }
        self.at.last = last;
        self.at.to_unpack -= n;
        self.at.buf_pos = 0;
        self.at.buf_len = n;
        Ok(())
    }

    /// Fills up to `out.len()` values; returns how many (fewer only at the end).
    pub fn decode(&mut self, out: &mut [T]) -> Result<usize> {
        let n = out.len().min(self.at.left);
        let mut done = 0;
        if n > 0
            && let Some(first) = self.at.first.take()
        {
            out[0] = T::from_u64(first);
            done = 1;
        }
        while done < n {
            if self.at.buf_pos == self.at.buf_len {
                self.fill_buf()?;
            }
            let k = (self.at.buf_len - self.at.buf_pos).min(n - done);
            for (o, &v) in out[done..done + k]
                .iter_mut()
                .zip(&self.at.buf[self.at.buf_pos..self.at.buf_pos + k])
            {
                *o = T::from_u64(v);
            }
            self.at.buf_pos += k;
            done += k;
        }
        self.at.left -= n;
        Ok(n)
    }

    /// Appends exactly `n` values to `out`, or fails.
    pub fn decode_into(&mut self, out: &mut Vec<T>, n: usize) -> Result<()> {
        append_exactly(out, n, self.at.left, "DELTA_BINARY_PACKED", |buf| {
            self.decode(buf)
        })
    }

    /// Skips up to `n` values; returns how many.
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        let mut scratch = [T::default(); 64];
        let mut done = 0;
        while done < n {
            let k = self.decode(&mut scratch[..(n - done).min(64)])?;
            if k == 0 {
                break;
            }
            done += k;
        }
        Ok(done)
    }

    /// Walks the remaining blocks without unpacking them and returns the
    /// total length of the encoded stream. Used to find the data that
    /// follows a DELTA stream (DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY).
    pub fn skip_to_end(mut self) -> Result<usize> {
        self.at.first = None;
        self.at.to_unpack = self
            .at
            .to_unpack
            .saturating_sub(self.at.mb_left.min(self.at.to_unpack));
        self.at.mb_left = 0;
        while self.at.to_unpack > 0 {
            self.next_miniblock()?;
            self.at.to_unpack = self.at.to_unpack.saturating_sub(self.at.mb_size);
        }
        Ok(self.at.pos)
    }
}

/// Where a [`DeltaBitPackDecoder`] is in its stream, without the borrow of
/// the stream's bytes: for a decoder that stops and resumes later over
/// bytes its owner keeps (a page's values, decoded a batch at a time).
/// A cursor belongs with the bytes it was taken over: resumed over others,
/// a decoder never panics, but what it decodes from them means nothing.
///
/// ```
/// use pq_encoding::delta_binary_packed::{DeltaBitPackDecoder, DeltaBitPackEncoder};
/// let mut enc = DeltaBitPackEncoder::<i64>::default();
/// let values: Vec<i64> = (0..300).map(|i| i * i - 7).collect();
/// enc.put(&values);
/// let mut buf = Vec::new();
/// enc.finish(&mut buf);
/// let mut dec = DeltaBitPackDecoder::<i64>::new(&buf).unwrap();
/// let mut first = Vec::new();
/// dec.decode_into(&mut first, 100).unwrap();
/// let cursor = dec.into_cursor();
/// let mut dec = DeltaBitPackDecoder::resume(&buf, cursor);
/// let mut rest = Vec::new();
/// dec.decode_into(&mut rest, 200).unwrap();
/// assert_eq!([first, rest].concat(), values);
/// ```
#[derive(Debug, Clone)]
pub struct DeltaBitPackCursor<T> {
    /// End of the current miniblock (or of the last structure read).
    pos: usize,
    miniblocks: usize,
    mb_size: usize,
    /// Values not yet handed out.
    left: usize,
    /// Values not yet unpacked (excludes the first value and `buf`).
    to_unpack: usize,
    first: Option<u64>,
    last: u64,
    min_delta: u64,
    widths: Vec<u8>,
    mb_index: usize,
    mb_pos: usize,
    mb_left: usize,
    mb_width: usize,
    buf: [u64; 32],
    buf_pos: usize,
    buf_len: usize,
    _t: core::marker::PhantomData<T>,
}

impl<'a, T: DeltaInt> DeltaBitPackDecoder<'a, T> {
    /// The decoder's position, to [`resume`](Self::resume) it later.
    pub fn into_cursor(self) -> DeltaBitPackCursor<T> {
        self.at
    }

    /// The decoder that [`into_cursor`](Self::into_cursor) stopped, over
    /// the same bytes `data`.
    pub fn resume(data: &'a [u8], cursor: DeltaBitPackCursor<T>) -> Self {
        DeltaBitPackDecoder { data, at: cursor }
    }
}

/// Streaming DELTA_BINARY_PACKED encoder.
#[derive(Debug, Clone)]
pub struct DeltaBitPackEncoder<T> {
    block_size: usize,
    miniblocks: usize,
    first: Option<T>,
    last: T,
    total: usize,
    deltas: Vec<i64>,
    blocks: Vec<u8>,
    scratch: Vec<u64>,
}

impl<T: DeltaInt> Default for DeltaBitPackEncoder<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: DeltaInt> DeltaBitPackEncoder<T> {
    /// An encoder with the usual 128-value blocks of 4 miniblocks.
    pub fn new() -> Self {
        Self::with_block_size(128, 4).unwrap_or_else(|_| Self::raw(128, 4))
    }

    fn raw(block_size: usize, miniblocks: usize) -> Self {
        Self {
            block_size,
            miniblocks,
            first: None,
            last: T::default(),
            total: 0,
            deltas: Vec::with_capacity(block_size),
            blocks: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// An encoder with other block geometry: `block_size` a positive
    /// multiple of 128, divided by `miniblocks` into multiples of 32.
    pub fn with_block_size(block_size: usize, miniblocks: usize) -> Result<Self> {
        if block_size == 0 || !block_size.is_multiple_of(128) || block_size as u64 > MAX_BLOCK_SIZE
        {
            return Err(invalid(
                "DELTA block size",
                "a positive multiple of 128 below 2^32",
                block_size as u64,
            ));
        }
        if miniblocks == 0
            || !block_size.is_multiple_of(miniblocks)
            || !(block_size / miniblocks).is_multiple_of(32)
        {
            return Err(invalid(
                "DELTA miniblock count",
                "a divisor leaving multiples of 32",
                miniblocks as u64,
            ));
        }
        Ok(Self::raw(block_size, miniblocks))
    }

    /// Adds values.
    pub fn put(&mut self, values: &[T]) {
        for &v in values {
            self.total += 1;
            if self.first.is_none() {
                self.first = Some(v);
            } else {
                self.deltas.push(v.delta(self.last));
                if self.deltas.len() == self.block_size {
                    self.flush_block();
                }
            }
            self.last = v;
        }
    }

    fn flush_block(&mut self) {
        if self.deltas.is_empty() {
            return;
        }
        let min = self.deltas.iter().copied().min().unwrap_or(0);
        varint::write_zigzag(&mut self.blocks, min);
        let mask = bit_pack::mask64(T::BITS);
        let mb_size = self.block_size / self.miniblocks;
        let widths_at = self.blocks.len();
        self.blocks.resize(widths_at + self.miniblocks, 0);
        for (i, chunk) in self.deltas.chunks(mb_size).enumerate() {
            self.scratch.clear();
            self.scratch
                .extend(chunk.iter().map(|&d| (d.wrapping_sub(min) as u64) & mask));
            let max = self.scratch.iter().copied().max().unwrap_or(0);
            let w = bit_pack::bit_width(max);
            self.scratch.resize(mb_size, 0);
            if let Some(slot) = self.blocks.get_mut(widths_at + i) {
                *slot = w;
            }
            bit_pack::pack(&self.scratch, w.into(), &mut self.blocks);
        }
        self.deltas.clear();
    }

    /// Appends the whole stream (header and blocks) and resets the encoder.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        self.flush_block();
        varint::write_uleb128(out, self.block_size as u64);
        varint::write_uleb128(out, self.miniblocks as u64);
        varint::write_uleb128(out, self.total as u64);
        varint::write_zigzag(out, self.first.map_or(0, T::to_i64));
        out.append(&mut self.blocks);
        self.first = None;
        self.total = 0;
    }
}

/// One-shot helper: appends `values` DELTA_BINARY_PACKED with default blocks.
pub fn encode<T: DeltaInt>(values: &[T], out: &mut Vec<u8>) {
    let mut enc = DeltaBitPackEncoder::new();
    enc.put(values);
    enc.finish(out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec;

    /// Writes a stream with the spec's illustrative (otherwise invalid)
    /// block size of 8; our decoder rejects it, so the examples are checked
    /// byte for byte against a block size of 128 as well.
    #[test]
    fn spec_example_1() {
        // header: 8 (block size), 1 (miniblock count), 5 (count), 1 (first)
        // block: 1 (min delta), 0 (bit width)
        let spec = [8u8, 1, 5, 2, 2, 0];
        assert!(DeltaBitPackDecoder::<i32>::new(&spec).is_err());
        let mut buf = Vec::new();
        let mut enc = DeltaBitPackEncoder::<i32>::with_block_size(128, 1).unwrap();
        enc.put(&[1, 2, 3, 4, 5]);
        enc.finish(&mut buf);
        assert_eq!(buf, [0x80, 0x01, 1, 5, 2, 2, 0]);
        let mut out = vec![0i32; 5];
        let mut dec = DeltaBitPackDecoder::<i32>::new(&buf).unwrap();
        assert_eq!(dec.decode(&mut out).unwrap(), 5);
        assert_eq!(out, [1, 2, 3, 4, 5]);
        assert_eq!(dec.bytes_consumed(), buf.len());
    }

    #[test]
    fn spec_example_2() {
        // min delta -2 (zigzag 3), width 2, then 0,0,0,3,3,3,3 packed on 2 bits.
        let mut buf = Vec::new();
        let mut enc = DeltaBitPackEncoder::<i64>::with_block_size(128, 4).unwrap();
        enc.put(&[7, 5, 3, 1, 2, 3, 4, 5]);
        enc.finish(&mut buf);
        let mut expect = vec![0x80, 0x01, 4, 8, 14, 3, 2, 0, 0, 0];
        // 0,0,0,3 | 3,3,3,0 -> 0b11000000, 0b00111111, then zeros to 32 values.
        let mut mb = vec![0b1100_0000, 0b0011_1111];
        mb.resize(8, 0);
        expect.extend(mb);
        assert_eq!(buf, expect);
        let mut dec = DeltaBitPackDecoder::<i64>::new(&buf).unwrap();
        let mut out = Vec::new();
        dec.decode_into(&mut out, 8).unwrap();
        assert_eq!(out, [7, 5, 3, 1, 2, 3, 4, 5]);
        assert_eq!(dec.bytes_consumed(), buf.len());
        assert_eq!(
            DeltaBitPackDecoder::<i64>::new(&buf)
                .unwrap()
                .skip_to_end()
                .unwrap(),
            buf.len()
        );
    }

    #[test]
    fn a_cursor_resumed_over_other_bytes_does_not_panic() {
        let values: Vec<i64> = (0..2000).map(|i| i * 31 % 977).collect();
        let mut buf = Vec::new();
        encode(&values, &mut buf);
        for stop in [1usize, 100, 700, 1999] {
            let mut dec = DeltaBitPackDecoder::<i64>::new(&buf).unwrap();
            let mut out = Vec::new();
            dec.decode_into(&mut out, stop).unwrap();
            let cursor = dec.into_cursor();
            for cut in [0, 1, buf.len() / 3, buf.len() - 1] {
                let mut dec = DeltaBitPackDecoder::resume(&buf[..cut], cursor.clone());
                let mut rest = Vec::new();
                // Values or an error, whatever the bytes hold; never a panic.
                let _ = dec.decode_into(&mut rest, values.len() - stop);
                let mut dec = DeltaBitPackDecoder::resume(&buf[..cut], cursor.clone());
                let _ = dec.skip(values.len() - stop);
            }
        }
    }

    #[test]
    fn extremes_wrap() {
        for vals in [
            vec![i64::MIN, i64::MAX, 0, i64::MIN, -1, 1],
            (0..1000).map(|i| i * i * 7919 - 5).collect(),
        ] {
            let mut buf = Vec::new();
            encode(&vals, &mut buf);
            let mut out = Vec::new();
            DeltaBitPackDecoder::<i64>::new(&buf)
                .unwrap()
                .decode_into(&mut out, vals.len())
                .unwrap();
            assert_eq!(out, vals);
        }
        let vals = vec![i32::MIN, i32::MAX, 0, i32::MIN, -1, 1];
        let mut buf = Vec::new();
        encode(&vals, &mut buf);
        let mut out = Vec::new();
        DeltaBitPackDecoder::<i32>::new(&buf)
            .unwrap()
            .decode_into(&mut out, vals.len())
            .unwrap();
        assert_eq!(out, vals);
    }

    /// `vals` encoded with the header's block size and total replaced.
    fn with_header(vals: &[i32], block_size: u64, total: u64) -> Vec<u8> {
        let mut buf = Vec::new();
        encode(vals, &mut buf);
        let mut pos = 0;
        let _ = varint::read_uleb128(&buf, &mut pos).unwrap();
        let _ = varint::read_uleb128(&buf, &mut pos).unwrap();
        let mb_end = pos;
        let _ = varint::read_uleb128(&buf, &mut pos).unwrap();
        let mut out = Vec::new();
        varint::write_uleb128(&mut out, block_size);
        out.push(4); // the encoder's 4 miniblocks
        debug_assert_eq!(mb_end, 3);
        varint::write_uleb128(&mut out, total);
        out.extend_from_slice(&buf[pos..]);
        out
    }

    #[test]
    fn headers_other_readers_decode() {
        let vals: Vec<i32> = (0..20).map(|i| i * i - 7).collect();
        for (block_size, total) in [
            // A block size of 2^31 over a short page: the values the page
            // needs are all in its first miniblock.
            (1u64 << 31, 20u64),
            // A total far beyond the page's values.
            (128, (1 << 31) - 1),
            (128, u64::MAX >> 1),
        ] {
            let buf = with_header(&vals, block_size, total);
            let mut out = Vec::new();
            DeltaBitPackDecoder::<i32>::new(&buf)
                .unwrap()
                .decode_into(&mut out, vals.len())
                .unwrap();
            assert_eq!(out, vals, "block size {block_size}, total {total}");
        }
        // Asking past the bytes is an error, whatever the total claims.
        let buf = with_header(&vals, 128, (1 << 31) - 1);
        let mut out = Vec::new();
        let e = DeltaBitPackDecoder::<i32>::new(&buf)
            .unwrap()
            .decode_into(&mut out, 200)
            .unwrap_err();
        assert!(
            matches!(e, Error::Eof { .. } | Error::VarintOverflow { .. }),
            "{e}"
        );
    }

    #[test]
    fn header_errors() {
        // Block size not a multiple of 128.
        assert!(DeltaBitPackDecoder::<i32>::new(&[100, 1, 1, 0]).is_err());
        // Zero miniblocks.
        assert!(DeltaBitPackDecoder::<i32>::new(&[0x80, 0x01, 0, 1, 0]).is_err());
        // Miniblocks of 128/8 = 16 values.
        assert!(DeltaBitPackDecoder::<i32>::new(&[0x80, 0x01, 8, 1, 0]).is_err());
        // A huge count with no blocks: the first value is there, the
        // second is not.
        let mut dec =
            DeltaBitPackDecoder::<i32>::new(&[0x80, 0x01, 1, 0xFF, 0xFF, 0xFF, 0x0F, 0]).unwrap();
        assert_eq!(dec.decode(&mut [0; 1]).unwrap(), 1);
        assert!(matches!(
            dec.decode(&mut [0; 1]),
            Err(Error::Eof { .. } | Error::VarintOverflow { .. })
        ));
        // The messages state the rule the value breaks.
        let e = DeltaBitPackDecoder::<i32>::new(&[100, 1, 1, 0]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid DELTA block size: expected a positive multiple of 128 below 2^32, found 100"
        );
        // 2^32 is a multiple of 128 but does not fit the 32 bits readers use.
        let e =
            DeltaBitPackDecoder::<i32>::new(&[0x80, 0x80, 0x80, 0x80, 0x10, 1, 1, 0]).unwrap_err();
        assert!(
            e.to_string().contains("below 2^32, found 4294967296"),
            "{e}"
        );
        // Width 33 for INT32.
        let mut dec = DeltaBitPackDecoder::<i32>::new(&[0x80, 0x01, 1, 3, 0, 0, 33]).unwrap();
        assert!(dec.decode(&mut [0; 3]).is_err());
        // Garbage widths of unused miniblocks are accepted.
        let mut dec =
            DeltaBitPackDecoder::<i32>::new(&[0x80, 0x01, 4, 2, 0, 2, 0, 0xFF, 0xFF, 0xFF])
                .unwrap();
        let mut out = [0; 2];
        assert_eq!(dec.decode(&mut out).unwrap(), 2);
        assert_eq!(out, [0, 1]);
    }
}
