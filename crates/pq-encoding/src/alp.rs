//! ALP (encoding 10, in preview) for FLOAT and DOUBLE: decimal scaling to
//! integers, frame of reference, bit packing, with exceptions for values
//! that do not round-trip (see `AlpEncoding.md`).
//!
//! Decoding is normative and bit-exact: `encoded * 10^f * 10^-e` with two
//! multiplications by the correctly rounded constants below. Encoding picks
//! `(e, f)` per vector from a sample; any value that fails to round-trip
//! through that exact decode becomes an exception, so encoding is lossless
//! for every input including NaN payloads, infinities and -0.0.

use alloc::vec::Vec;

use crate::bit_pack;
use crate::error::{Error, Result, eof, invalid};
use crate::plain::FixedWidth;
use crate::stream::append_exactly;

/// A floating-point type ALP encodes: `f32` (integers are `i32`) or `f64`
/// (integers are `i64`). The encode and decode are written once over the
/// constants and conversions each type gives; with those constant per
/// type, each monomorphised copy is the code written for that type alone.
pub trait AlpFloat:
    FixedWidth
    + PartialOrd
    + core::ops::Add<Output = Self>
    + core::ops::Sub<Output = Self>
    + core::ops::Mul<Output = Self>
    + core::ops::Neg<Output = Self>
    + sealed::Sealed
{
    /// Largest exponent.
    const MAX_EXPONENT: u8;
    /// Bits of the encoded integer.
    const INT_BITS: usize;
    /// `10^0 ..= 10^MAX_EXPONENT`, correctly rounded.
    const POW10: &'static [Self];
    /// `10^-0 ..= 10^-MAX_EXPONENT`, correctly rounded.
    const NEG_POW10: &'static [Self];
    /// 2 to the number of mantissa bits: adding then subtracting it rounds
    /// a smaller magnitude to an integer.
    const MAGIC: Self;
    /// Scaled values at or beyond plus or minus this do not fit the
    /// integer type.
    const LIMIT: Self;
    /// Zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;
    /// The encoded integer as a float (truncated to the integer type).
    fn from_int(encoded: i64) -> Self;
    /// A rounded value as the integer type, widened.
    fn to_int(self) -> i64;
    /// The magnitude.
    fn magnitude(self) -> Self;

    /// The normative decode of `encoded` (truncated to the integer type):
    /// `encoded * 10^f * 10^-e`, two correctly rounded multiplications.
    #[inline(always)]
    fn alp_decode(encoded: i64, e: u8, f: u8) -> Self {
        let p = Self::POW10.get(f as usize).copied().unwrap_or(Self::ONE);
        let n = Self::NEG_POW10
            .get(e as usize)
            .copied()
            .unwrap_or(Self::ONE);
        (Self::from_int(encoded) * p) * n
    }

    /// One candidate integer for `self`, or None if out of range.
    #[inline(always)]
    fn alp_encode(self, e: u8, f: u8) -> Option<i64> {
        let p = Self::POW10.get(e as usize).copied().unwrap_or(Self::ONE);
        let n = Self::NEG_POW10
            .get(f as usize)
            .copied()
            .unwrap_or(Self::ONE);
        let scaled = (self * p) * n;
        // Out of the integer's range (and NaN) cannot be encoded.
        if !(scaled > -Self::LIMIT && scaled < Self::LIMIT) {
            return None;
        }
        let r = if scaled.magnitude() >= Self::MAGIC {
            scaled
        } else if scaled >= Self::ZERO {
            (scaled + Self::MAGIC) - Self::MAGIC
        } else {
            (scaled - Self::MAGIC) + Self::MAGIC
        };
        Some(r.to_int())
    }
}

mod sealed {
    /// Keeps [`super::AlpFloat`] to `f32` and `f64`.
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

impl AlpFloat for f64 {
    const MAX_EXPONENT: u8 = 18;
    const INT_BITS: usize = 64;
    const POW10: &'static [f64] = &[
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18,
    ];
    const NEG_POW10: &'static [f64] = &[
        1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13,
        1e-14, 1e-15, 1e-16, 1e-17, 1e-18,
    ];
    const MAGIC: f64 = 4_503_599_627_370_496.0; // 2^52
    const LIMIT: f64 = 9.2e18;
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    #[inline(always)]
    fn from_int(encoded: i64) -> Self {
        encoded as f64
    }
    #[inline(always)]
    fn to_int(self) -> i64 {
        self as i64
    }
    #[inline(always)]
    fn magnitude(self) -> Self {
        self.abs()
    }
}

impl AlpFloat for f32 {
    const MAX_EXPONENT: u8 = 10;
    const INT_BITS: usize = 32;
    const POW10: &'static [f32] = &[1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10];
    const NEG_POW10: &'static [f32] = &[
        1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10,
    ];
    const MAGIC: f32 = 8_388_608.0; // 2^23
    const LIMIT: f32 = 2.1e9;
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    #[inline(always)]
    fn from_int(encoded: i64) -> Self {
        (encoded as i32) as f32
    }
    #[inline(always)]
    fn to_int(self) -> i64 {
        i64::from(self as i32)
    }
    #[inline(always)]
    fn magnitude(self) -> Self {
        self.abs()
    }
}

#[inline]
fn try_encode<T: AlpFloat>(v: T, e: u8, f: u8) -> Option<i64> {
    let enc = v.alp_encode(e, f)?;
    (T::alp_decode(enc, e, f).bits() == v.bits()).then_some(enc)
}

/// Picks `(e, f)` minimising an estimate of the encoded size of a sample.
fn choose_params<T: AlpFloat>(values: &[T]) -> (u8, u8) {
    // Up to 32 samples, jittered within their strides so regular patterns
    // (every 8th value an integer, say) do not fool the choice.
    let step = (values.len() / 32).max(1);
    let sample: Vec<T> = (0..values.len().min(32))
        .filter_map(|k| values.get(k * step + (k * 2_654_435_761) % step).copied())
        .collect();
    let mut best = (0u8, 0u8);
    let mut best_cost = usize::MAX;
    for e in 0..=T::MAX_EXPONENT {
        for f in 0..=e {
            let (mut exceptions, mut min, mut max) = (0usize, i64::MAX, i64::MIN);
            for &v in &sample {
                match try_encode(v, e, f) {
                    Some(x) => {
                        min = min.min(x);
                        max = max.max(x);
                    }
                    None => exceptions += 1,
                }
            }
            let width = if min > max {
                0
            } else {
                bit_pack::bit_width(max.wrapping_sub(min) as u64) as usize
            };
            let cost = sample.len() * width + exceptions * (T::SIZE * 8 + 16);
            if cost < best_cost {
                best_cost = cost;
                best = (e, f);
            }
        }
    }
    best
}

fn encode_vector<T: AlpFloat>(values: &[T], out: &mut Vec<u8>) {
    let (e, f) = choose_params(values);
    let mut ints: Vec<i64> = Vec::with_capacity(values.len());
    let mut positions: Vec<u16> = Vec::new();
    let mut exceptions: Vec<T> = Vec::new();
    let mut placeholder = None;
    for (i, &v) in values.iter().enumerate() {
        match try_encode(v, e, f) {
            Some(x) => {
                placeholder.get_or_insert(x);
                ints.push(x);
            }
            None => {
                positions.push(i as u16);
                exceptions.push(v);
                ints.push(i64::MIN);
            }
        }
    }
    let placeholder = placeholder.unwrap_or(0);
    for &p in &positions {
        if let Some(x) = ints.get_mut(p as usize) {
            *x = placeholder;
        }
    }
    let min = ints.iter().copied().min().unwrap_or(0);
    let mask = bit_pack::mask64(T::INT_BITS);
    let deltas: Vec<u64> = ints
        .iter()
        .map(|&x| (x.wrapping_sub(min) as u64) & mask)
        .collect();
    let width = bit_pack::bit_width(deltas.iter().copied().max().unwrap_or(0));
    out.extend_from_slice(&[e, f]);
    out.extend_from_slice(&(positions.len() as u16).to_le_bytes());
    if T::INT_BITS == 32 {
        out.extend_from_slice(&(min as i32).to_le_bytes());
    } else {
        out.extend_from_slice(&min.to_le_bytes());
    }
    out.push(width);
    bit_pack::pack(&deltas, width.into(), out);
    for p in &positions {
        out.extend_from_slice(&p.to_le_bytes());
    }
    crate::plain::encode(&exceptions, out);
}

/// Appends `values` ALP-encoded with vectors of `2^log_vector_size`
/// (3..=15) values.
pub fn encode_with_vector_size<T: AlpFloat>(
    values: &[T],
    log_vector_size: u8,
    out: &mut Vec<u8>,
) -> Result<()> {
    if !(3..=15).contains(&log_vector_size) {
        return Err(invalid("ALP log_vector_size", "3 to 15", log_vector_size));
    }
    let n = i32::try_from(values.len())
        .map_err(|_| invalid("ALP value count", "at most 2^31-1", values.len() as u64))?;
    out.extend_from_slice(&[0, 0, log_vector_size]);
    out.extend_from_slice(&n.to_le_bytes());
    let vector_size = 1usize << log_vector_size;
    let num_vectors = values.len().div_ceil(vector_size);
    let offsets_at = out.len();
    out.resize(offsets_at + 4 * num_vectors, 0);
    for (i, chunk) in values.chunks(vector_size).enumerate() {
        let off = (out.len() - offsets_at) as u32;
        out[offsets_at + 4 * i..offsets_at + 4 * i + 4].copy_from_slice(&off.to_le_bytes());
        encode_vector(chunk, out);
    }
    Ok(())
}

/// Appends `values` ALP-encoded with the default 1024-value vectors.
///
/// ```
/// use pq_encoding::alp::{AlpDecoder, encode};
/// let values = [1500.0f64, f64::NAN, 2500.0, 333.5];
/// let mut buf = Vec::new();
/// encode(&values, &mut buf);
/// let mut out = [0f64; 4];
/// AlpDecoder::<f64>::new(&buf).unwrap().decode(&mut out).unwrap();
/// assert!(out.iter().zip(&values).all(|(a, b)| a.to_bits() == b.to_bits()));
/// ```
pub fn encode<T: AlpFloat>(values: &[T], out: &mut Vec<u8>) {
    // 10 is always a valid size; lengths over i32 fall back to chunks that fit.
    if values.is_empty() {
        let _ = encode_with_vector_size(values, 10, out);
    }
    for chunk in values.chunks(i32::MAX as usize) {
        let _ = encode_with_vector_size(chunk, 10, out);
    }
}

/// Streaming ALP page decoder.
#[derive(Debug, Clone)]
pub struct AlpDecoder<'a, T> {
    /// Bytes from the offset array on.
    body: &'a [u8],
    num_elements: usize,
    vector_size: usize,
    num_vectors: usize,
    next_vector: usize,
    /// Values not yet handed out.
    left: usize,
    cur: Vec<T>,
    cur_pos: usize,
}

impl<'a, T: AlpFloat> AlpDecoder<'a, T> {
    /// Parses and validates the page header and offset array.
    pub fn new(data: &'a [u8]) -> Result<Self> {
        let Some(h) = data.get(..7) else {
            return Err(eof("ALP header", 7, data.len()));
        };
        if h[0] != 0 {
            return Err(invalid("ALP compression_mode", "0 (ALP)", h[0]));
        }
        if h[1] != 0 {
            return Err(invalid(
                "ALP integer_encoding",
                "0 (FOR + bit packing)",
                h[1],
            ));
        }
        if !(3..=15).contains(&h[2]) {
            return Err(invalid("ALP log_vector_size", "3 to 15", h[2]));
        }
        let n = i32::from_le_bytes([h[3], h[4], h[5], h[6]]);
        if n < 0 {
            return Err(invalid("ALP num_elements", "non-negative", n));
        }
        let body = &data[7..];
        let vector_size = 1usize << h[2];
        let num_vectors = (n as usize).div_ceil(vector_size);
        // Each vector needs its offset and at least a vector header.
        let min = num_vectors * (4 + 5 + T::SIZE);
        if min > body.len() {
            return Err(eof("ALP offsets and vectors", min, body.len()));
        }
        Ok(Self {
            body,
            num_elements: n as usize,
            vector_size,
            num_vectors,
            next_vector: 0,
            left: n as usize,
            cur: Vec::new(),
            cur_pos: 0,
        })
    }

    /// Values not yet decoded.
    pub fn remaining(&self) -> usize {
        self.left
    }

    fn read_vector(&mut self) -> Result<()> {
        let i = self.next_vector;
        let off = self.body.get(4 * i..4 * i + 4).unwrap_or(&[0, 0, 0, 0]);
        let off = u32::from_le_bytes([off[0], off[1], off[2], off[3]]) as usize;
        let len = if i + 1 == self.num_vectors {
            self.num_elements - i * self.vector_size
        } else {
            self.vector_size
        };
        let Some(v) = self.body.get(off..) else {
            return Err(eof("ALP vector", 1, 0));
        };
        let for_size = T::INT_BITS / 8;
        let header = 4 + for_size + 1;
        let Some(hd) = v.get(..header) else {
            return Err(eof("ALP vector header", header, v.len()));
        };
        let (e, f) = (hd[0], hd[1]);
        if e > T::MAX_EXPONENT || f > e {
            return Err(invalid(
                "ALP exponent/factor",
                "0 <= factor <= exponent <= max",
                e,
            ));
        }
        let num_exc = u16::from_le_bytes([hd[2], hd[3]]) as usize;
        if num_exc > len {
            return Err(invalid(
                "ALP num_exceptions",
                "at most the vector length",
                num_exc as u64,
            ));
        }
        let mut fr = [0u8; 8];
        fr[..for_size].copy_from_slice(&hd[4..4 + for_size]);
        let for_ref = if for_size == 4 {
            i64::from(i32::from_le_bytes([fr[0], fr[1], fr[2], fr[3]]))
        } else {
            i64::from_le_bytes(fr)
        };
        let width = hd[4 + for_size] as usize;
        if width > T::INT_BITS {
            return Err(Error::BitWidth {
                what: "ALP vector",
                max: T::INT_BITS as u32,
                found: width as u32,
            });
        }
        let packed = (len * width).div_ceil(8);
        let total = header + packed + num_exc * (2 + T::SIZE);
        if total > v.len() {
            return Err(eof("ALP vector data", total, v.len()));
        }
        let mut deltas = [0u64; 32];
        self.cur.clear();
        self.cur.reserve(len);
        let data = &v[header..header + packed];
        let mut pos = 0;
        while self.cur.len() < len {
            bit_pack::unpack32_u64(data.get(pos..).unwrap_or(&[]), &mut deltas, width);
            pos += 4 * width;
            let k = (len - self.cur.len()).min(32);
            self.cur.extend(
                deltas[..k]
                    .iter()
                    .map(|&d| T::alp_decode(for_ref.wrapping_add(d as i64), e, f)),
            );
        }
        let pos_at = header + packed;
        let val_at = pos_at + 2 * num_exc;
        for j in 0..num_exc {
            let p = u16::from_le_bytes([v[pos_at + 2 * j], v[pos_at + 2 * j + 1]]) as usize;
            let val = T::from_le(&v[val_at + j * T::SIZE..val_at + (j + 1) * T::SIZE]);
            match self.cur.get_mut(p) {
                Some(slot) => *slot = val,
                None => {
                    return Err(invalid(
                        "ALP exception position",
                        "within the vector",
                        p as u64,
                    ));
                }
            }
        }
        self.cur_pos = 0;
        self.next_vector += 1;
        Ok(())
    }

    /// Fills up to `out.len()` values; returns how many.
    pub fn decode(&mut self, out: &mut [T]) -> Result<usize> {
        let n = out.len().min(self.left);
        let mut done = 0;
        while done < n {
            if self.cur_pos == self.cur.len() {
                self.read_vector()?;
            }
            let k = (self.cur.len() - self.cur_pos).min(n - done);
            out[done..done + k].copy_from_slice(&self.cur[self.cur_pos..self.cur_pos + k]);
            self.cur_pos += k;
            done += k;
        }
        self.left -= n;
        Ok(n)
    }

    /// Appends exactly `n` values, or fails.
    pub fn decode_into(&mut self, out: &mut Vec<T>, n: usize) -> Result<()> {
        append_exactly(out, n, self.left, "ALP", |buf| self.decode(buf))
    }

    /// Skips up to `n` values; returns how many. Whole vectors are skipped
    /// without decoding.
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        let n = n.min(self.left);
        let mut done = 0;
        while done < n {
            if self.cur_pos == self.cur.len() {
                let vlen = self.vector_size.min(self.left);
                if n - done >= vlen && self.next_vector < self.num_vectors {
                    self.next_vector += 1;
                    self.left -= vlen;
                    done += vlen;
                    continue;
                }
                self.read_vector()?;
            }
            let k = (self.cur.len() - self.cur_pos).min(n - done);
            self.cur_pos += k;
            self.left -= k;
            done += k;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    /// Equal bit for bit (NaN payloads and -0.0 included).
    fn same_bits<T: FixedWidth>(a: &[T], b: &[T]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.bits() == y.bits())
    }

    #[test]
    fn spec_worked_example() {
        // { 1500.0, NaN, 2500.0, 333.5 } with e=4, f=3: 31-byte vector.
        let values = [1500.0f64, f64::NAN, 2500.0, 333.5];
        let mut v = Vec::new();
        v.extend_from_slice(&[4, 3, 1, 0]);
        v.extend_from_slice(&3335i64.to_le_bytes());
        v.push(15);
        bit_pack::pack(&[11665, 11665, 21665, 0], 15, &mut v);
        v.extend_from_slice(&1u16.to_le_bytes());
        v.extend_from_slice(&f64::NAN.to_le_bytes());
        assert_eq!(v.len(), 31);
        let mut page = vec![0, 0, 10];
        page.extend_from_slice(&4i32.to_le_bytes());
        page.extend_from_slice(&4u32.to_le_bytes());
        page.extend_from_slice(&v);
        let mut out = [0f64; 4];
        AlpDecoder::<f64>::new(&page)
            .unwrap()
            .decode(&mut out)
            .unwrap();
        assert!(same_bits(&out, &values));
        // Our encoder round-trips it too.
        let mut enc = Vec::new();
        encode(&values, &mut enc);
        AlpDecoder::<f64>::new(&enc)
            .unwrap()
            .decode(&mut out)
            .unwrap();
        assert!(same_bits(&out, &values));
    }

    #[test]
    fn floats_and_skip() {
        let values: Vec<f32> = (0..3000)
            .map(|i| i as f32 * 0.25 - 100.0)
            .chain([f32::INFINITY, -0.0, f32::MIN_POSITIVE])
            .collect();
        let mut buf = Vec::new();
        encode_with_vector_size(&values, 8, &mut buf).unwrap();
        let mut dec = AlpDecoder::<f32>::new(&buf).unwrap();
        let mut out = Vec::new();
        dec.decode_into(&mut out, 10).unwrap();
        assert_eq!(dec.skip(700).unwrap(), 700);
        dec.decode_into(&mut out, values.len() - 710).unwrap();
        assert_eq!(&out[..10], &values[..10]);
        assert!(same_bits(&out[10..], &values[710..]));
        assert!(
            buf.len() < values.len() * 4 / 2,
            "{} {:?}",
            buf.len(),
            &buf[..40]
        );
        assert!(AlpDecoder::<f32>::new(&buf[..20]).is_err());
    }
}
