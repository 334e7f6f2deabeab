//! BYTE_STREAM_SPLIT (encoding 9) for FLOAT, DOUBLE, INT32, INT64 and
//! FIXED_LEN_BYTE_ARRAY: byte `k` of every value goes to stream `k`.
//!
//! The transposes are SIMD on x86_64 (SSE2, and AVX2 when the CPU has it)
//! and a portable block transpose elsewhere; see the crate docs for how the
//! CPU features are chosen.

use alloc::vec::Vec;

use crate::error::{Result, invalid};
use crate::plain::FixedWidth;
use crate::transpose;

/// Bytes of values staged on the stack between the transpose and typed
/// values.
const STAGE: usize = 4096;

/// Whether `T`'s memory is its PLAIN bytes: a primitive integer or float on
/// a little-endian target. Those are transposed in place; staging them
/// through a buffer halved DOUBLE decoding (16 to 8 GiB/s).
fn is_le_primitive<T: FixedWidth>() -> bool {
    use core::any::TypeId;
    let t = TypeId::of::<T>();
    cfg!(target_endian = "little")
        && core::mem::size_of::<T>() == T::SIZE
        && [
            TypeId::of::<i32>(),
            TypeId::of::<u32>(),
            TypeId::of::<f32>(),
            TypeId::of::<i64>(),
            TypeId::of::<u64>(),
            TypeId::of::<f64>(),
        ]
        .contains(&t)
}

/// `values` as their PLAIN bytes, if [`is_le_primitive`].
fn le_bytes<T: FixedWidth>(values: &[T]) -> Option<&[u8]> {
    if !is_le_primitive::<T>() {
        return None;
    }
    // SAFETY: `T` is a primitive integer or float (checked above): no
    // padding, `size_of_val` bytes all initialised, `u8` needs no alignment;
    // the result borrows `values`.
    Some(unsafe {
        core::slice::from_raw_parts(values.as_ptr().cast::<u8>(), core::mem::size_of_val(values))
    })
}

/// `out` as its PLAIN bytes, if [`is_le_primitive`].
fn le_bytes_mut<T: FixedWidth>(out: &mut [T]) -> Option<&mut [u8]> {
    if !is_le_primitive::<T>() {
        return None;
    }
    // SAFETY: as in `le_bytes`, and every bit pattern is a valid value of a
    // primitive integer or float, so any bytes written leave valid `T`s; the
    // result borrows `out` exclusively.
    Some(unsafe {
        core::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<u8>(), core::mem::size_of_val(out))
    })
}

/// Streaming BYTE_STREAM_SPLIT decoder over a whole page's data.
///
/// ```
/// use pq_encoding::byte_stream_split::{ByteStreamSplitDecoder, encode};
/// let mut buf = Vec::new();
/// encode(&[1.5f32, -2.0, 3.25], &mut buf);
/// let mut dec = ByteStreamSplitDecoder::new(&buf, 4).unwrap();
/// let mut out = [0f32; 3];
/// assert_eq!(dec.decode(&mut out).unwrap(), 3);
/// assert_eq!(out, [1.5, -2.0, 3.25]);
/// ```
#[derive(Debug, Clone)]
pub struct ByteStreamSplitDecoder<'a> {
    data: &'a [u8],
    width: usize,
    num_values: usize,
    pos: usize,
}

impl<'a> ByteStreamSplitDecoder<'a> {
    /// A decoder of `width`-byte values; `data.len()` must be a multiple of
    /// `width` (the format has no padding).
    pub fn new(data: &'a [u8], width: usize) -> Result<Self> {
        if width == 0 {
            return Err(invalid("BYTE_STREAM_SPLIT width", "at least 1", 0));
        }
        if !data.len().is_multiple_of(width) {
            return Err(invalid(
                "BYTE_STREAM_SPLIT data length",
                "a multiple of the value width",
                data.len() as u64,
            ));
        }
        Ok(Self {
            data,
            width,
            num_values: data.len() / width,
            pos: 0,
        })
    }

    /// Values left.
    pub fn remaining(&self) -> usize {
        self.num_values - self.pos
    }

    /// Fills up to `out.len()` values of a type `width` bytes wide.
    pub fn decode<T: FixedWidth>(&mut self, out: &mut [T]) -> Result<usize> {
        if T::SIZE != self.width {
            return Err(invalid(
                "BYTE_STREAM_SPLIT output width",
                "the stream width",
                T::SIZE as u64,
            ));
        }
        let n = out.len().min(self.remaining());
        let out = &mut out[..n];
        if let Some(bytes) = le_bytes_mut(out) {
            transpose::join(self.data, self.num_values, self.pos, T::SIZE, bytes);
            self.pos += n;
            return Ok(n);
        }
        // Other types: join into a stack buffer, then read values from it
        // as PLAIN does.
        with_stage(T::SIZE, |stage, per| {
            for chunk in out.chunks_mut(per) {
                let bytes = &mut stage[..chunk.len() * T::SIZE];
                transpose::join(self.data, self.num_values, self.pos, T::SIZE, bytes);
                crate::plain::decode_slice(bytes, chunk);
                self.pos += chunk.len();
            }
        });
        Ok(n)
    }

    /// Appends up to `n` values as raw bytes (FIXED_LEN_BYTE_ARRAY) to `out`.
    pub fn decode_bytes(&mut self, out: &mut Vec<u8>, n: usize) -> Result<usize> {
        let n = n.min(self.remaining());
        let at = out.len();
        out.resize(at + n * self.width, 0);
        let dst = out.get_mut(at..).unwrap_or_default();
        transpose::join(self.data, self.num_values, self.pos, self.width, dst);
        self.pos += n;
        Ok(n)
    }

    /// Skips up to `n` values; returns how many.
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        let n = n.min(self.remaining());
        self.pos += n;
        Ok(n)
    }
}

/// Appends fixed-width values BYTE_STREAM_SPLIT-encoded.
pub fn encode<T: FixedWidth>(values: &[T], out: &mut Vec<u8>) {
    if T::SIZE == 0 {
        return;
    }
    let n = values.len();
    let at = out.len();
    out.resize(at + n * T::SIZE, 0);
    let dst = out.get_mut(at..).unwrap_or_default();
    if let Some(bytes) = le_bytes(values) {
        transpose::split(bytes, T::SIZE, dst, n, 0);
        return;
    }
    // Other types: PLAIN-encode a block at a time into a stack buffer, then
    // split it.
    with_stage(T::SIZE, |stage, per| {
        for (c, chunk) in values.chunks(per).enumerate() {
            let bytes = &mut stage[..chunk.len() * T::SIZE];
            for (b, v) in bytes.chunks_exact_mut(T::SIZE).zip(chunk) {
                v.to_le(b);
            }
            transpose::split(bytes, T::SIZE, dst, n, c * per);
        }
    });
}

/// Calls `f` with a staging buffer for values of `size` bytes (`STAGE`
/// bytes on the stack, or one value on the heap when larger) and how many
/// values it holds, for types whose bytes cannot be viewed in place.
fn with_stage(size: usize, f: impl FnOnce(&mut [u8], usize)) {
    let mut stack = [0u8; STAGE];
    let mut heap = Vec::new();
    let stage: &mut [u8] = if size <= STAGE {
        &mut stack
    } else {
        heap.resize(size, 0);
        &mut heap
    };
    let per = stage.len() / size;
    f(stage, per)
}

/// Appends `data`, values of `width` bytes back to back (as PLAIN stores
/// fixed-length byte arrays), BYTE_STREAM_SPLIT-encoded. A trailing partial
/// value is ignored.
pub fn encode_bytes(data: &[u8], width: usize, out: &mut Vec<u8>) {
    if width == 0 {
        return;
    }
    let n = data.len() / width;
    let at = out.len();
    out.resize(at + n * width, 0);
    let dst = out.get_mut(at..).unwrap_or_default();
    transpose::split(&data[..n * width], width, dst, n, 0);
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn spec_example() {
        // Elements AA BB CC DD / 00 11 22 33 / A3 B4 C5 D6.
        let plain = [
            0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11, 0x22, 0x33, 0xA3, 0xB4, 0xC5, 0xD6,
        ];
        let mut out = Vec::new();
        encode_bytes(&plain, 4, &mut out);
        assert_eq!(
            out,
            [
                0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4, 0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6
            ]
        );
        let mut dec = ByteStreamSplitDecoder::new(&out, 4).unwrap();
        let mut back = Vec::new();
        dec.decode_bytes(&mut back, 3).unwrap();
        assert_eq!(back, plain);
        let mut dec = ByteStreamSplitDecoder::new(&out, 4).unwrap();
        let mut f = [0f32; 3];
        dec.decode(&mut f).unwrap();
        assert_eq!(f[0].to_bits(), 0xDDCC_BBAA);
    }

    #[test]
    fn widths() {
        let v: Vec<i64> = (0..100).map(|i| i * 0x0102_0304_0506 - 7).collect();
        let mut buf = Vec::new();
        encode(&v, &mut buf);
        let mut out = vec![0i64; 100];
        let mut dec = ByteStreamSplitDecoder::new(&buf, 8).unwrap();
        assert_eq!(dec.decode(&mut out[..40]).unwrap(), 40);
        dec.skip(10).unwrap();
        assert_eq!(dec.decode(&mut out[50..]).unwrap(), 50);
        assert_eq!(&out[..40], &v[..40]);
        assert_eq!(&out[50..], &v[50..]);
        assert!(ByteStreamSplitDecoder::new(&buf[1..], 8).is_err());
        assert!(
            ByteStreamSplitDecoder::new(&buf, 8)
                .unwrap()
                .decode(&mut [0i32; 2])
                .is_err()
        );
        let v = [[1u32, 2, 3], [4, 5, 6]];
        let mut buf = Vec::new();
        encode(&v, &mut buf);
        let mut out = [[0u32; 3]; 2];
        ByteStreamSplitDecoder::new(&buf, 12)
            .unwrap()
            .decode(&mut out)
            .unwrap();
        assert_eq!(out, v);
    }
}
