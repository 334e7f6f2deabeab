//! Values of the fixed-width physical types (BOOLEAN, INT32, INT64, INT96,
//! FLOAT, DOUBLE) held as a `Vec` of their Rust type: what differs per type
//! (its PLAIN form, the encodings it allows, how a dictionary is gathered)
//! is in its [`Native`] impl; the buffer's operations are written once, for
//! `Vec<T: Native>`. `Native` is the read side's companion of the writer's
//! [`PhysicalType`](crate::physical::PhysicalType), sealed in the same way:
//! keyed by the value type a buffer holds rather than by the physical type,
//! since the byte-array types need more than one buffer (offset width, UTF-8
//! check; see [`ValueBuffer`]'s other impls).

use pq_encoding::alp::{AlpDecoder, AlpFloat};
use pq_encoding::byte_stream_split::ByteStreamSplitDecoder;
use pq_encoding::delta_binary_packed::{DeltaBitPackDecoder, DeltaInt};
use pq_encoding::dictionary::gather;
use pq_encoding::plain::{BooleanDecoder, FixedWidth, PlainDecoder};
use pq_encoding::rle::RleDecoder;
use pq_format::Encoding;

use super::buffer::{Encoded, ValueBuffer, not_allowed, range, short};
use crate::error::{Location, Result, enc_err};
use crate::pool::Pool;

mod sealed {
    /// Only the value types of the fixed-width physical types.
    pub trait Sealed {}
}

/// The Rust type of a fixed-width physical type's values (`[u32; 3]` for
/// INT96: three little-endian words): its read-side knowledge (see the
/// [module documentation](self)).
pub(crate) trait Native: sealed::Sealed + Copy + Default + Send + 'static {
    /// The bytes `n` PLAIN values take.
    fn plain_len(n: usize) -> usize;

    /// Appends `n` PLAIN values from the start of `data`.
    fn decode_plain(out: &mut Vec<Self>, data: &[u8], n: usize, at: &Location) -> Result<()>;

    /// Appends `n` PLAIN values from `data` at `*pos`, a byte position, and
    /// advances it.
    fn take_plain(
        out: &mut Vec<Self>,
        data: &[u8],
        pos: &mut usize,
        n: usize,
        at: &Location,
    ) -> Result<()> {
        Self::decode_plain(out, data.get(*pos..).unwrap_or_default(), n, at)?;
        *pos += Self::plain_len(n);
        Ok(())
    }

    /// Appends the values of `page` (see [`ValueBuffer::decode_encoded`]).
    fn decode_encoded(_out: &mut Vec<Self>, page: Encoded<'_>, at: &Location) -> Result<()> {
        Err(not_allowed(page.encoding, at))
    }

    /// Appends `dict[i]` for every `i` of `idx`.
    fn gather(
        dict: &[Self],
        idx: &[u32],
        out: &mut Vec<Self>,
    ) -> std::result::Result<(), pq_encoding::Error> {
        gather(dict, idx, out)
    }
}

impl<T: Native> ValueBuffer for Vec<T> {
    fn len(&self) -> usize {
        Vec::len(self)
    }

    fn clear(&mut self) {
        Vec::clear(self)
    }

    fn take_like(&self, pool: &Pool, values: usize, _bytes: usize) -> Self {
        pool.take(values)
    }

    fn reserve(&mut self, n: usize) {
        Vec::reserve(self, n)
    }

    fn plain_len(&self, n: usize) -> Option<usize> {
        Some(T::plain_len(n))
    }

    fn decode_plain(&mut self, data: &[u8], n: usize, at: &Location) -> Result<()> {
        T::decode_plain(self, data, n, at)
    }

    fn take_plain(&mut self, data: &[u8], pos: &mut usize, n: usize, at: &Location) -> Result<()> {
        T::take_plain(self, data, pos, n, at)
    }

    fn decode_encoded(&mut self, page: Encoded<'_>, at: &Location) -> Result<()> {
        T::decode_encoded(self, page, at)
    }

    fn gather(&mut self, dict: &Self, idx: &[u32], at: &Location) -> Result<()> {
        T::gather(dict, idx, self).map_err(|e| enc_err(at, e))
    }

    fn extend_range(&mut self, src: &Self, start: usize, n: usize, at: &Location) -> Result<()> {
        self.extend_from_slice(range(src, start, n, at)?);
        Ok(())
    }
}

impl sealed::Sealed for bool {}

/// BOOLEAN: bit-packed PLAIN (positions count bits), and RLE.
impl Native for bool {
    fn plain_len(n: usize) -> usize {
        n.div_ceil(8)
    }

    fn decode_plain(out: &mut Vec<bool>, data: &[u8], n: usize, at: &Location) -> Result<()> {
        let mut pos = 0;
        Self::take_plain(out, data, &mut pos, n, at)
    }

    fn take_plain(
        out: &mut Vec<bool>,
        data: &[u8],
        pos: &mut usize,
        n: usize,
        at: &Location,
    ) -> Result<()> {
        let e = |err| enc_err(at, err);
        let mut dec = BooleanDecoder::new(data);
        dec.skip(*pos).map_err(e)?;
        let start = out.len();
        out.resize(start + n, false);
        let got = dec
            .decode(out.get_mut(start..).unwrap_or_default())
            .map_err(e)?;
        if got < n {
            out.truncate(start + got);
            return Err(short(at, "PLAIN booleans", n, got));
        }
        *pos += n;
        Ok(())
    }

    fn decode_encoded(out: &mut Vec<bool>, page: Encoded<'_>, at: &Location) -> Result<()> {
        let e = |err| enc_err(at, err);
        let n = page.n;
        match page.encoding {
            Encoding::RLE => {
                let (dec, _) = RleDecoder::new_length_prefixed(page.data, 1).map_err(e)?;
                dec.with_count(n).decode_into(out, n).map_err(e)
            }
            other => Err(not_allowed(other, at)),
        }
    }
}

/// The fixed-width types other than BOOLEAN: little-endian PLAIN, the
/// dictionary gather given, and the encodings listed, each a function of
/// `(out, page, at)`.
macro_rules! native {
    (gather: $gather:path, encodings: $encodings:tt, $($t:ty)*) => {
        $(native!(@one $t, $gather, $encodings);)*
    };
    (@one $t:ty, $gather:path, [$($enc:ident => $decode:path),*]) => {
        impl sealed::Sealed for $t {}

        impl Native for $t {
            fn plain_len(n: usize) -> usize {
                n.saturating_mul(std::mem::size_of::<$t>())
            }

            fn decode_plain(out: &mut Vec<$t>, data: &[u8], n: usize, at: &Location) -> Result<()> {
                PlainDecoder::<$t>::new(data)
                    .decode_into(out, n)
                    .map_err(|e| enc_err(at, e))
            }

            // (`[u32; 3]` allows none, and uses no argument.)
            #[allow(unused_variables)]
            fn decode_encoded(out: &mut Vec<$t>, page: Encoded<'_>, at: &Location) -> Result<()> {
                match page.encoding {
                    $(Encoding::$enc => $decode(out, page, at),)*
                    other => Err(not_allowed(other, at)),
                }
            }

            fn gather(
                dict: &[$t],
                idx: &[u32],
                out: &mut Vec<$t>,
            ) -> std::result::Result<(), pq_encoding::Error> {
                $gather(dict, idx, out)
            }
        }
    };
}

native!(gather: gather_small, encodings: [
    DELTA_BINARY_PACKED => delta,
    BYTE_STREAM_SPLIT => split
], i32 i64);
native!(gather: gather_small, encodings: [
    ALP => alp,
    BYTE_STREAM_SPLIT => split
], f32 f64);
native!(gather: gather, encodings: [], [u32; 3]);

fn delta<T: DeltaInt>(out: &mut Vec<T>, page: Encoded<'_>, at: &Location) -> Result<()> {
    let e = |err| enc_err(at, err);
    DeltaBitPackDecoder::<T>::new(page.data)
        .map_err(e)?
        .decode_into(out, page.n)
        .map_err(e)
}

fn alp<T: AlpFloat>(out: &mut Vec<T>, page: Encoded<'_>, at: &Location) -> Result<()> {
    let e = |err| enc_err(at, err);
    AlpDecoder::<T>::new(page.data)
        .map_err(e)?
        .decode_into(out, page.n)
        .map_err(e)
}

fn split<T: FixedWidth>(out: &mut Vec<T>, page: Encoded<'_>, at: &Location) -> Result<()> {
    let e = |err| enc_err(at, err);
    let Encoded { data, n, .. } = page;
    let mut dec = ByteStreamSplitDecoder::new(data, std::mem::size_of::<T>()).map_err(e)?;
    let start = out.len();
    out.resize(start + n, T::default());
    let got = dec
        .decode(out.get_mut(start..).unwrap_or_default())
        .map_err(e)?;
    if got < n {
        return Err(short(at, "BYTE_STREAM_SPLIT values", n, got));
    }
    Ok(())
}

/// The values at `idx` of `len` PLAIN fixed-width values in `raw` (at
/// least `len` values long: a dictionary page, or the kept values of a data
/// page read late), appended to `out`, read where they lie: the largest
/// index is checked once against `len`, and the values are appended by one
/// `extend`, not a `push` each (with pushes the vector's length went
/// through memory from one value to the next, about 1.3x the time).
pub(crate) fn gather_plain<T: FixedWidth>(
    raw: &[u8],
    len: usize,
    idx: &[u32],
    out: &mut Vec<T>,
) -> std::result::Result<(), pq_encoding::Error> {
    // A page short of its entries gives nothing (its caller keeps only
    // whole ones).
    let whole = raw.len() >= len.saturating_mul(T::SIZE);
    check_indices(idx, if whole { len } else { 0 })?;
    out.extend(idx.iter().map(|&i| {
        let at = i as usize * T::SIZE;
        T::from_le(raw.get(at..at + T::SIZE).unwrap_or_default())
    }));
    Ok(())
}

/// Every index of `idx` below `len`, checked once by their largest (the
/// gathers then need no check per value that can fail).
fn check_indices(idx: &[u32], len: usize) -> std::result::Result<(), pq_encoding::Error> {
    let max = idx.iter().copied().fold(0u32, u32::max);
    if !idx.is_empty() && max as usize >= len {
        return Err(pq_encoding::Error::IndexOutOfBounds {
            index: max.into(),
            len,
        });
    }
    Ok(())
}

/// Entries of a dictionary small enough for [`gather_small`]'s table.
pub(crate) const SMALL_DICT: usize = 256;

/// `dict[i]` for every `i` of `idx`, appended to `out`. A dictionary of at
/// most [`SMALL_DICT`] entries (flags, codes, small counts) is copied into
/// a table of that size, so that a masked index needs no bounds check and
/// the loop no branch (the indices are checked once, by their max, so the
/// mask changes none); larger ones take [`gather`].
pub(super) fn gather_small<T: Copy + Default>(
    dict: &[T],
    idx: &[u32],
    out: &mut Vec<T>,
) -> std::result::Result<(), pq_encoding::Error> {
    let mut table = [T::default(); SMALL_DICT];
    let Some(head) = table.get_mut(..dict.len()) else {
        return gather(dict, idx, out);
    };
    head.copy_from_slice(dict);
    check_indices(idx, dict.len())?;
    out.extend(idx.iter().map(|&i| table[i as usize % SMALL_DICT]));
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Gathering from a dictionary page's bytes gives the decoded
    /// dictionary's values; an index past it is an error.
    #[test]
    fn gathers_from_plain_bytes_as_from_decoded_values() {
        let dict: Vec<f64> = (0..1000).map(|i| f64::from(i) * 0.5 - 7.0).collect();
        let mut raw = Vec::new();
        pq_encoding::plain::encode(&dict, &mut raw);
        raw.extend([1, 2, 3]); // bytes past the entries are not values
        let idx: Vec<u32> = (0..5000u32).map(|i| (i * 7919) % 1000).collect();
        let (mut from_raw, mut decoded) = (vec![1.5f64], vec![1.5f64]);
        gather_plain(&raw, dict.len(), &idx, &mut from_raw).unwrap();
        gather(&dict, &idx, &mut decoded).unwrap();
        assert_eq!(from_raw, decoded);
        let mut out: Vec<f64> = Vec::new();
        assert!(gather_plain(&raw, dict.len(), &[3, 1000], &mut out).is_err());
        assert!(out.is_empty());
        // A page shorter than its entry count gives nothing from past its end.
        assert!(gather_plain::<f64>(&raw[..80], dict.len(), &[0], &mut out).is_err());
    }

    /// The table gather against the plain one, at the table's size and
    /// around it, and an index past a small dictionary.
    #[test]
    fn small_dictionaries_gather_as_large_ones_do() {
        for n in [1usize, 7, 255, 256, 257, 1000] {
            let dict: Vec<i64> = (0..n as i64).map(|i| i * 31 - 5).collect();
            let idx: Vec<u32> = (0..3000u32).map(|i| (i * 7919) % n as u32).collect();
            let (mut fast, mut plain) = (vec![42i64], vec![42i64]);
            gather_small(&dict, &idx, &mut fast).unwrap();
            gather(&dict, &idx, &mut plain).unwrap();
            assert_eq!(fast, plain, "{n} entries");
            let mut out = Vec::new();
            let e = gather_small(&dict, &[0, n as u32], &mut out).unwrap_err();
            assert!(
                matches!(e, pq_encoding::Error::IndexOutOfBounds { .. }),
                "{e}"
            );
            assert!(out.is_empty());
        }
        assert!(gather_small::<i32>(&[], &[], &mut Vec::new()).is_ok());
        assert!(gather_small::<i32>(&[], &[0], &mut Vec::new()).is_err());
    }
}
