//! DELTA_LENGTH_BYTE_ARRAY (encoding 6) and DELTA_BYTE_ARRAY (encoding 7).
//!
//! Lengths are decoded lazily in small batches: the position of the data
//! that follows a DELTA stream is found by walking its block headers
//! ([`DeltaBitPackDecoder::skip_to_end`]), so no per-page length vector is
//! allocated whatever count the header claims.

use alloc::vec::Vec;

use crate::delta_binary_packed::{DeltaBitPackDecoder, DeltaBitPackEncoder};
use crate::error::{Error, Result, eof, invalid};
use crate::offsets::{ByteArrayDecode, OffsetSize, offset_of, start_offsets};
use crate::stream::skip_each;

const BATCH: usize = 64;

/// Values up to this long are copied as one fixed-size move.
const WIDE: usize = 32;

/// DELTA_LENGTH_BYTE_ARRAY decoder appending to offsets + values.
///
/// ```
/// use pq_encoding::ByteArrayDecode;
/// use pq_encoding::delta_byte_array::{DeltaLengthDecoder, encode_delta_length};
/// let mut buf = Vec::new();
/// encode_delta_length([&b"Hello"[..], b"World", b"Foobar", b"ABCDEF"], &mut buf).unwrap();
/// assert!(buf.ends_with(b"HelloWorldFoobarABCDEF"));
/// let (mut offsets, mut values) = (Vec::<i64>::new(), Vec::new());
/// let mut dec = DeltaLengthDecoder::new(&buf).unwrap();
/// assert_eq!(dec.decode(&mut offsets, &mut values, 4).unwrap(), 4);
/// assert_eq!(offsets, [0, 5, 10, 16, 22]);
/// ```
#[derive(Debug, Clone)]
pub struct DeltaLengthDecoder<'a> {
    lengths: DeltaBitPackDecoder<'a, i32>,
    data: &'a [u8],
    pos: usize,
    batch: [i32; BATCH],
    batch_pos: usize,
    batch_len: usize,
}

impl<'a> DeltaLengthDecoder<'a> {
    /// Parses the lengths header and locates the concatenated bytes.
    pub fn new(data: &'a [u8]) -> Result<Self> {
        let lengths = DeltaBitPackDecoder::<i32>::new(data)?;
        let start = lengths.clone().skip_to_end()?;
        Ok(Self {
            lengths,
            data: data.get(start..).unwrap_or(&[]),
            pos: 0,
            batch: [0; BATCH],
            batch_pos: 0,
            batch_len: 0,
        })
    }

    /// Values not yet decoded.
    pub fn remaining(&self) -> usize {
        self.lengths.remaining() + (self.batch_len - self.batch_pos)
    }

    /// The next value, borrowed from the input.
    #[inline]
    pub fn next_value(&mut self) -> Result<Option<&'a [u8]>> {
        if self.batch_pos == self.batch_len {
            self.batch_len = self.lengths.decode(&mut self.batch)?;
            self.batch_pos = 0;
            if self.batch_len == 0 {
                return Ok(None);
            }
        }
        let len = self.batch[self.batch_pos];
        self.batch_pos += 1;
        if len < 0 {
            return Err(invalid(
                "DELTA_LENGTH_BYTE_ARRAY length",
                "non-negative",
                len,
            ));
        }
        let len = len as usize;
        let Some(v) = self.data.get(self.pos..self.pos + len) else {
            return Err(eof(
                "DELTA_LENGTH_BYTE_ARRAY value",
                len,
                self.data.len() - self.pos,
            ));
        };
        self.pos += len;
        Ok(Some(v))
    }

    /// Skips up to `n` values; returns how many.
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        skip_each(n, || Ok(self.next_value()?.is_some()))
    }
}

impl ByteArrayDecode for DeltaLengthDecoder<'_> {
    fn fill<O: OffsetSize>(&mut self, o: &mut Vec<O>, v: &mut Vec<u8>, n: usize) -> Result<usize> {
        start_offsets(o, v)?;
        let mut done = 0;
        while done < n {
            let Some(value) = self.next_value()? else {
                break;
            };
            v.extend_from_slice(value);
            o.push(offset_of(v.len())?);
            done += 1;
        }
        Ok(done)
    }
}

/// DELTA_BYTE_ARRAY decoder (BYTE_ARRAY into offsets + values,
/// FIXED_LEN_BYTE_ARRAY into a flat buffer).
///
/// ```
/// use pq_encoding::ByteArrayDecode;
/// use pq_encoding::delta_byte_array::{DeltaByteArrayDecoder, encode_delta_byte_array};
/// let mut buf = Vec::new();
/// let words = [&b"axis"[..], b"axle", b"babble", b"babyhood"];
/// encode_delta_byte_array(words, &mut buf).unwrap();
/// assert!(buf.ends_with(b"axislebabbleyhood"));
/// let (mut offsets, mut values) = (Vec::<i32>::new(), Vec::new());
/// let mut dec = DeltaByteArrayDecoder::new(&buf).unwrap();
/// dec.decode(&mut offsets, &mut values, 4).unwrap();
/// assert_eq!(values, b"axisaxlebabblebabyhood");
/// ```
#[derive(Debug, Clone)]
pub struct DeltaByteArrayDecoder<'a> {
    prefixes: DeltaBitPackDecoder<'a, i32>,
    suffixes: DeltaLengthDecoder<'a>,
    last: Vec<u8>,
}

impl<'a> DeltaByteArrayDecoder<'a> {
    /// Parses both headers.
    pub fn new(data: &'a [u8]) -> Result<Self> {
        let prefixes = DeltaBitPackDecoder::<i32>::new(data)?;
        let start = prefixes.clone().skip_to_end()?;
        let suffixes = DeltaLengthDecoder::new(data.get(start..).unwrap_or(&[]))?;
        if suffixes.remaining() != prefixes.remaining() {
            return Err(invalid(
                "DELTA_BYTE_ARRAY suffix count",
                "the prefix count",
                suffixes.remaining() as u64,
            ));
        }
        Ok(Self {
            prefixes,
            suffixes,
            last: Vec::new(),
        })
    }

    /// Values not yet decoded.
    pub fn remaining(&self) -> usize {
        self.prefixes.remaining()
    }

    /// Decodes the next value into `self.last`.
    #[inline]
    fn advance(&mut self, prefix: i32) -> Result<&'a [u8]> {
        let Some(suffix) = self.suffixes.next_value()? else {
            return Err(Error::NotEnoughValues {
                what: "DELTA_BYTE_ARRAY suffixes",
                expected: 1,
                found: 0,
            });
        };
        if prefix < 0 || prefix as usize > self.last.len() {
            return Err(invalid(
                "DELTA_BYTE_ARRAY prefix length",
                "0 to the previous value's length",
                prefix,
            ));
        }
        self.last.truncate(prefix as usize);
        self.last.extend_from_slice(suffix);
        Ok(suffix)
    }

    /// Appends up to `n` values of exactly `width` bytes to `out`.
    pub fn decode_fixed(&mut self, out: &mut Vec<u8>, width: usize, n: usize) -> Result<usize> {
        self.each_prefix(n, |s, p| {
            s.advance(p)?;
            if s.last.len() != width {
                return Err(invalid(
                    "FIXED_LEN_BYTE_ARRAY value length",
                    "the column's type length",
                    s.last.len() as u64,
                ));
            }
            out.extend_from_slice(&s.last);
            Ok(())
        })
    }

    /// Skips up to `n` values; returns how many.
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        self.each_prefix(n, |s, p| s.advance(p).map(|_| ()))
    }

    /// Runs `each` on the prefix length of each of the next `n` values (or
    /// of those left), decoded a batch at a time; returns how many.
    #[inline(always)]
    fn each_prefix(
        &mut self,
        n: usize,
        mut each: impl FnMut(&mut Self, i32) -> Result<()>,
    ) -> Result<usize> {
        let mut prefixes = [0i32; BATCH];
        let mut done = 0;
        while done < n {
            let k = self
                .prefixes
                .decode(&mut prefixes[..(n - done).min(BATCH)])?;
            if k == 0 {
                break;
            }
            for &p in &prefixes[..k] {
                each(self, p)?;
            }
            done += k;
        }
        Ok(done)
    }
}

impl ByteArrayDecode for DeltaByteArrayDecoder<'_> {
    /// Each value is built in place at the end of `values`: its prefix
    /// copied from the previous value there (from the value kept from the
    /// previous call for the first one), then its suffix. So each byte is
    /// copied once, not into a scratch value first.
    fn fill<O: OffsetSize>(&mut self, o: &mut Vec<O>, v: &mut Vec<u8>, n: usize) -> Result<usize> {
        let (offsets, values) = (o, v);
        start_offsets(offsets, values)?;
        // Where the previous value starts in `values`, once this call has
        // appended one.
        let mut prev: Option<usize> = None;
        let done = self.each_prefix(n, |s, p| {
            let suffix_at = s.suffixes.pos;
            let Some(suffix) = s.suffixes.next_value()? else {
                return Err(Error::NotEnoughValues {
                    what: "DELTA_BYTE_ARRAY suffixes",
                    expected: 1,
                    found: 0,
                });
            };
            let start = values.len();
            let prev_len = prev.map_or(s.last.len(), |ps| start - ps);
            if p < 0 || p as usize > prev_len {
                return Err(invalid(
                    "DELTA_BYTE_ARRAY prefix length",
                    "0 to the previous value's length",
                    p,
                ));
            }
            let p = p as usize;
            // Short prefixes and suffixes are copied as one fixed
            // `WIDE`-byte move when the bytes after them exist (the
            // excess is cut off), not a variable-length copy each.
            match prev {
                Some(ps) if p <= WIDE && ps + WIDE <= start => {
                    values.extend_from_within(ps..ps + WIDE);
                    values.truncate(start + p);
                }
                Some(ps) => values.extend_from_within(ps..ps + p),
                None => values.extend_from_slice(s.last.get(..p).unwrap_or_default()),
            }
            let at = values.len();
            match s.suffixes.data.get(suffix_at..suffix_at + WIDE) {
                Some(wide) if suffix.len() <= WIDE => {
                    values.extend_from_slice(wide);
                    values.truncate(at + suffix.len());
                }
                _ => values.extend_from_slice(suffix),
            }
            prev = Some(start);
            // Checked once for the last (largest) offset below.
            offsets.push(O::from_usize(values.len()).unwrap_or_default());
            Ok(())
        })?;
        offset_of::<O>(values.len())?;
        if let Some(ps) = prev {
            self.last.clear();
            self.last
                .extend_from_slice(values.get(ps..).unwrap_or_default());
        }
        Ok(done)
    }
}

fn len_i32(len: usize) -> Result<i32> {
    i32::try_from(len).map_err(|_| invalid("byte array length", "at most 2^31-1", len as u64))
}

/// Appends byte arrays DELTA_LENGTH_BYTE_ARRAY-encoded.
pub fn encode_delta_length<'b, I: IntoIterator<Item = &'b [u8]>>(
    values: I,
    out: &mut Vec<u8>,
) -> Result<()> {
    let mut lengths = DeltaBitPackEncoder::<i32>::new();
    let mut data = Vec::new();
    let mut batch = [0i32; BATCH];
    let mut k = 0;
    for v in values {
        batch[k] = len_i32(v.len())?;
        k += 1;
        if k == BATCH {
            lengths.put(&batch);
            k = 0;
        }
        data.extend_from_slice(v);
    }
    lengths.put(&batch[..k]);
    lengths.finish(out);
    out.extend_from_slice(&data);
    Ok(())
}

/// Appends byte arrays (or fixed-length byte arrays) DELTA_BYTE_ARRAY-encoded.
pub fn encode_delta_byte_array<'b, I: IntoIterator<Item = &'b [u8]>>(
    values: I,
    out: &mut Vec<u8>,
) -> Result<()> {
    let mut prefixes = DeltaBitPackEncoder::<i32>::new();
    let mut suffix_lengths = DeltaBitPackEncoder::<i32>::new();
    let mut data = Vec::new();
    let mut last: &[u8] = &[];
    for v in values {
        let common = last.iter().zip(v).take_while(|(a, b)| a == b).count();
        prefixes.put(&[len_i32(common)?]);
        let suffix = v.get(common..).unwrap_or(&[]);
        suffix_lengths.put(&[len_i32(suffix.len())?]);
        data.extend_from_slice(suffix);
        last = v;
    }
    prefixes.finish(out);
    suffix_lengths.finish(out);
    out.extend_from_slice(&data);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delta_binary_packed::DeltaBitPackDecoder;

    /// The 4 DELTA_BINARY_PACKED lengths at the start of `buf`, and the
    /// bytes after them.
    fn four_lengths(buf: &[u8]) -> (Vec<i32>, &[u8]) {
        let mut dec = DeltaBitPackDecoder::<i32>::new(buf).unwrap();
        let mut l = Vec::new();
        dec.decode_into(&mut l, 4).unwrap();
        (l, &buf[dec.bytes_consumed()..])
    }

    #[test]
    fn spec_lengths_hello_world() {
        let mut buf = Vec::new();
        encode_delta_length([&b"Hello"[..], b"World", b"Foobar", b"ABCDEF"], &mut buf).unwrap();
        let (lens, rest) = four_lengths(&buf);
        assert_eq!(lens, [5, 5, 6, 6]);
        assert_eq!(rest, b"HelloWorldFoobarABCDEF");
    }

    #[test]
    fn spec_axis_axle() {
        let mut buf = Vec::new();
        encode_delta_byte_array([&b"axis"[..], b"axle", b"babble", b"babyhood"], &mut buf).unwrap();
        let (prefixes, rest) = four_lengths(&buf);
        assert_eq!(prefixes, [0, 2, 0, 3]);
        let (suffixes, rest) = four_lengths(rest);
        assert_eq!(suffixes, [4, 2, 6, 5]);
        assert_eq!(rest, b"axislebabbleyhood");

        let mut dec = DeltaByteArrayDecoder::new(&buf).unwrap();
        let mut out = Vec::new();
        assert!(dec.decode_fixed(&mut out, 4, 4).is_err());
    }

    #[test]
    fn bad_prefix() {
        // Prefix 3 on the first value, whose predecessor is empty.
        let mut buf = Vec::new();
        let mut p = DeltaBitPackEncoder::<i32>::new();
        p.put(&[3]);
        p.finish(&mut buf);
        encode_delta_length([&b"x"[..]], &mut buf).unwrap();
        let mut dec = DeltaByteArrayDecoder::new(&buf).unwrap();
        let (mut o, mut v) = (Vec::<i32>::new(), Vec::new());
        assert!(dec.decode(&mut o, &mut v, 1).is_err());
    }
}
