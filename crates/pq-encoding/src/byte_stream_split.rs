//! BYTE_STREAM_SPLIT (encoding 9) for FLOAT, DOUBLE, INT32, INT64 and
//! FIXED_LEN_BYTE_ARRAY: byte `k` of every value goes to stream `k`.
//!
//! The 4- and 8-byte paths zip the streams as iterators, which the compiler
//! turns into vector shuffles without bounds checks.

use alloc::vec::Vec;

use crate::error::{Result, invalid};
use crate::plain::FixedWidth;

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

macro_rules! zip_streams {
    ($out:expr, $T:ty, $($s:ident),+) => {{
        let it = $out.iter_mut();
        $( let it = it.zip($s.iter()); )+
        zip_streams!(@body it, $T, $($s),+)
    }};
    (@body $it:ident, $T:ty, $a:ident, $b:ident, $c:ident, $d:ident) => {
        for ((((o, $a), $b), $c), $d) in $it {
            *o = <$T>::from_le(&[*$a, *$b, *$c, *$d]);
        }
    };
    (@body $it:ident, $T:ty, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident) => {
        for ((((((((o, $a), $b), $c), $d), $e), $f), $g), $h) in $it {
            *o = <$T>::from_le(&[*$a, *$b, *$c, *$d, *$e, *$f, *$g, *$h]);
        }
    };
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

    fn stream(&self, k: usize, n: usize) -> &'a [u8] {
        let start = k * self.num_values + self.pos;
        self.data.get(start..start + n).unwrap_or(&[])
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
        match T::SIZE {
            4 => {
                let (a, b, c, d) = (
                    self.stream(0, n),
                    self.stream(1, n),
                    self.stream(2, n),
                    self.stream(3, n),
                );
                zip_streams!(out, T, a, b, c, d);
            }
            8 => {
                // Transpose blocks of 16 values through a small array: the
                // eight-way zip does not vectorise, this does.
                let streams: [&[u8]; 8] = core::array::from_fn(|k| self.stream(k, n));
                let mut i = 0;
                for chunk in out.chunks_mut(16) {
                    let mut tmp = [[0u8; 8]; 16];
                    for (k, s) in streams.iter().enumerate() {
                        let src = s.get(i..i + chunk.len()).unwrap_or(&[]);
                        for (t, &b) in tmp.iter_mut().zip(src) {
                            t[k] = b;
                        }
                    }
                    for (o, t) in chunk.iter_mut().zip(&tmp) {
                        *o = T::from_le(t);
                    }
                    i += chunk.len();
                }
            }
            _ => {
                let mut bytes = [0u8; 16];
                for (i, o) in out.iter_mut().enumerate() {
                    for (k, b) in bytes.iter_mut().enumerate().take(T::SIZE) {
                        *b = self.stream(k, n).get(i).copied().unwrap_or(0);
                    }
                    *o = T::from_le(&bytes);
                }
            }
        }
        self.pos += n;
        Ok(n)
    }

    /// Appends up to `n` values as raw bytes (FIXED_LEN_BYTE_ARRAY) to `out`.
    pub fn decode_bytes(&mut self, out: &mut Vec<u8>, n: usize) -> Result<usize> {
        let n = n.min(self.remaining());
        let at = out.len();
        out.resize(at + n * self.width, 0);
        for k in 0..self.width {
            let s = self.stream(k, n);
            let dst = out.get_mut(at + k..).unwrap_or(&mut []);
            for (dst, &b) in dst.iter_mut().step_by(self.width).zip(s) {
                *dst = b;
            }
        }
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
    let mut plain = Vec::new();
    crate::plain::encode(values, &mut plain);
    encode_bytes(&plain, T::SIZE, out);
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
    let dst = &mut out[at..];
    for (i, v) in data.chunks_exact(width).enumerate() {
        for (k, &b) in v.iter().enumerate() {
            if let Some(d) = dst.get_mut(k * n + i) {
                *d = b;
            }
        }
    }
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
