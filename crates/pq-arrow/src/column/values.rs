//! Dense (non-null) values of one column chunk in their physical layout,
//! decoded page by page from every value encoding.

use pq_encoding::alp::AlpDecoder;
use pq_encoding::byte_stream_split::ByteStreamSplitDecoder;
use pq_encoding::delta_binary_packed::DeltaBitPackDecoder;
use pq_encoding::delta_byte_array::{DeltaByteArrayDecoder, DeltaLengthDecoder};
use pq_encoding::dictionary::{gather, gather_byte_array, gather_fixed, indices_decoder};
use pq_encoding::offsets::{OffsetSize, offset_of, start_offsets};
use pq_encoding::plain::{BooleanDecoder, ByteArrayDecoder, FixedLenDecoder, PlainDecoder};
use pq_encoding::rle::RleDecoder;
use pq_format::Encoding;

use super::utf8::CheckedUtf8;
use crate::error::{Location, Result, enc_err, unsupported};
use crate::pool::Pool;

/// Offsets of a byte-array buffer, 32- or 64-bit as the Arrow type needs.
#[derive(Debug, Clone)]
pub(crate) enum Offsets {
    /// `i32` offsets (Utf8, Binary).
    I32(Vec<i32>),
    /// `i64` offsets (LargeUtf8, LargeBinary).
    I64(Vec<i64>),
}

impl Offsets {
    pub(crate) fn count(&self) -> usize {
        match self {
            Offsets::I32(o) => o.len().saturating_sub(1),
            Offsets::I64(o) => o.len().saturating_sub(1),
        }
    }
}

/// Strings, with the offsets the Arrow type needs.
#[derive(Debug, Clone)]
pub(crate) enum Utf8 {
    /// `i32` offsets (Utf8, Utf8View).
    I32(CheckedUtf8<i32>),
    /// `i64` offsets (LargeUtf8).
    I64(CheckedUtf8<i64>),
}

/// `$body` with `$c` bound to the strings of `$u`, whatever their offsets.
macro_rules! each_utf8 {
    ($u:expr, $c:ident => $body:expr) => {
        match $u {
            Utf8::I32($c) => $body,
            Utf8::I64($c) => $body,
        }
    };
}

impl Utf8 {
    /// Lets `decode` append to the strings as raw byte arrays (any
    /// decoder of `Dense::Bytes`), then checks what it appended (see
    /// [`CheckedUtf8::append_with`]).
    fn append_raw(
        &mut self,
        at: &Location,
        decode: impl FnOnce(&mut Dense) -> Result<()>,
    ) -> Result<()> {
        fn lend<O: pq_encoding::offsets::OffsetSize>(
            c: &mut CheckedUtf8<O>,
            at: &Location,
            wrap: fn(Vec<O>) -> Offsets,
            unwrap: fn(Offsets) -> Option<Vec<O>>,
            decode: impl FnOnce(&mut Dense) -> Result<()>,
        ) -> Result<()> {
            c.append_with(at, |o, v| {
                let mut raw = Dense::Bytes {
                    offsets: wrap(std::mem::take(o)),
                    values: std::mem::take(v),
                };
                let r = decode(&mut raw);
                // Back in place; anything else leaves them empty, which
                // the check of the append rejects.
                if let Dense::Bytes { offsets, values } = raw
                    && let Some(offsets) = unwrap(offsets)
                {
                    *o = offsets;
                    *v = values;
                }
                r
            })
        }
        match self {
            Utf8::I32(c) => lend(
                c,
                at,
                Offsets::I32,
                |o| match o {
                    Offsets::I32(o) => Some(o),
                    Offsets::I64(_) => None,
                },
                decode,
            ),
            Utf8::I64(c) => lend(
                c,
                at,
                Offsets::I64,
                |o| match o {
                    Offsets::I64(o) => Some(o),
                    Offsets::I32(_) => None,
                },
                decode,
            ),
        }
    }
}

/// Decoded non-null values.
#[derive(Debug, Clone)]
pub(crate) enum Dense {
    /// BOOLEAN.
    Bool(Vec<bool>),
    /// INT32.
    I32(Vec<i32>),
    /// INT64.
    I64(Vec<i64>),
    /// INT96 as three little-endian words.
    I96(Vec<[u32; 3]>),
    /// FLOAT.
    F32(Vec<f32>),
    /// DOUBLE.
    F64(Vec<f64>),
    /// BYTE_ARRAY read as strings, checked.
    Utf8(Utf8),
    /// BYTE_ARRAY in Arrow layout.
    Bytes {
        /// `len + 1` offsets.
        offsets: Offsets,
        /// Concatenated values.
        values: Vec<u8>,
    },
    /// FIXED_LEN_BYTE_ARRAY, `width` bytes each.
    Fixed {
        /// Bytes per value.
        width: usize,
        /// Concatenated values.
        data: Vec<u8>,
    },
}

impl Dense {
    /// Number of values.
    pub(crate) fn len(&self) -> usize {
        match self {
            Dense::Bool(v) => v.len(),
            Dense::I32(v) => v.len(),
            Dense::I64(v) => v.len(),
            Dense::I96(v) => v.len(),
            Dense::F32(v) => v.len(),
            Dense::F64(v) => v.len(),
            Dense::Utf8(u) => each_utf8!(u, c => c.len()),
            Dense::Bytes { offsets, .. } => offsets.count(),
            Dense::Fixed { width, data } => data.len().checked_div(*width).unwrap_or(0),
        }
    }

    /// Empties the buffer, keeping its capacity for the next page.
    pub(crate) fn clear(&mut self) {
        match self {
            Dense::Bool(v) => v.clear(),
            Dense::I32(v) => v.clear(),
            Dense::I64(v) => v.clear(),
            Dense::I96(v) => v.clear(),
            Dense::F32(v) => v.clear(),
            Dense::F64(v) => v.clear(),
            Dense::Utf8(u) => each_utf8!(u, c => c.clear()),
            Dense::Bytes { offsets, values } => {
                match offsets {
                    Offsets::I32(o) => o.clear(),
                    Offsets::I64(o) => o.clear(),
                }
                values.clear();
            }
            Dense::Fixed { data, .. } => data.clear(),
        }
    }

    /// An empty buffer like `self`.
    pub(crate) fn empty_like(&self) -> Dense {
        self.take_like(&Pool::none(), 0, 0)
    }

    /// An empty buffer like `self` from `pool`, with room for `values`
    /// values and, for byte arrays and fixed-length values, `bytes` value
    /// bytes (the caller's measure of what the last batch held: a width
    /// from the file times a value count could be any size).
    pub(crate) fn take_like(&self, pool: &Pool, values: usize, bytes: usize) -> Dense {
        match self {
            Dense::Bool(_) => Dense::Bool(pool.take(values)),
            Dense::I32(_) => Dense::I32(pool.take(values)),
            Dense::I64(_) => Dense::I64(pool.take(values)),
            Dense::I96(_) => Dense::I96(pool.take(values)),
            Dense::F32(_) => Dense::F32(pool.take(values)),
            Dense::F64(_) => Dense::F64(pool.take(values)),
            Dense::Utf8(u) => Dense::Utf8(match u {
                Utf8::I32(_) => Utf8::I32(CheckedUtf8::with_buffers(
                    pool.take(values + 1),
                    pool.take(bytes),
                )),
                Utf8::I64(_) => Utf8::I64(CheckedUtf8::with_buffers(
                    pool.take(values + 1),
                    pool.take(bytes),
                )),
            }),
            Dense::Bytes { offsets, .. } => Dense::Bytes {
                offsets: match offsets {
                    Offsets::I32(_) => Offsets::I32(pool.take(values + 1)),
                    Offsets::I64(_) => Offsets::I64(pool.take(values + 1)),
                },
                values: pool.take(bytes),
            },
            Dense::Fixed { width, .. } => Dense::Fixed {
                width: *width,
                data: pool.take(bytes),
            },
        }
    }

    /// The bytes of byte-array and fixed-length values (0 for others).
    pub(crate) fn value_bytes(&self) -> usize {
        match self {
            Dense::Utf8(u) => each_utf8!(u, c => c.value_bytes()),
            Dense::Bytes { values, .. } => values.len(),
            Dense::Fixed { data, .. } => data.len(),
            _ => 0,
        }
    }

    fn reserve(&mut self, n: usize) {
        match self {
            Dense::Bool(v) => v.reserve(n),
            Dense::I32(v) => v.reserve(n),
            Dense::I64(v) => v.reserve(n),
            Dense::I96(v) => v.reserve(n),
            Dense::F32(v) => v.reserve(n),
            Dense::F64(v) => v.reserve(n),
            Dense::Utf8(u) => each_utf8!(u, c => c.reserve(n)),
            Dense::Bytes { offsets, .. } => match offsets {
                Offsets::I32(o) => o.reserve(n + 1),
                Offsets::I64(o) => o.reserve(n + 1),
            },
            Dense::Fixed { width, data } => data.reserve(n.saturating_mul(*width)),
        }
    }
}

fn short(at: &Location, what: &'static str, expected: usize, found: usize) -> crate::error::Error {
    enc_err(
        at,
        pq_encoding::Error::NotEnoughValues {
            what,
            expected,
            found,
        },
    )
}

/// Appends `n` PLAIN byte arrays from `data`; returns the bytes they took.
fn plain_byte_arrays(
    offsets: &mut Offsets,
    values: &mut Vec<u8>,
    data: &[u8],
    n: usize,
    at: &Location,
) -> Result<usize> {
    let mut dec = ByteArrayDecoder::new(data);
    let got = match offsets {
        Offsets::I32(o) => dec.decode(o, values, n),
        Offsets::I64(o) => dec.decode(o, values, n),
    }
    .map_err(|err| enc_err(at, err))?;
    if got < n {
        return Err(short(at, "PLAIN byte arrays", n, got));
    }
    Ok(dec.position())
}

/// Decodes `n` PLAIN values (a dictionary page or a PLAIN data page).
pub(crate) fn decode_plain(out: &mut Dense, data: &[u8], n: usize, at: &Location) -> Result<()> {
    let e = |err| enc_err(at, err);
    match out {
        Dense::Bool(v) => {
            let start = v.len();
            v.resize(start + n, false);
            let got = BooleanDecoder::new(data)
                .decode(v.get_mut(start..).unwrap_or_default())
                .map_err(e)?;
            if got < n {
                return Err(short(at, "PLAIN booleans", n, got));
            }
        }
        Dense::I32(v) => PlainDecoder::<i32>::new(data)
            .decode_into(v, n)
            .map_err(e)?,
        Dense::I64(v) => PlainDecoder::<i64>::new(data)
            .decode_into(v, n)
            .map_err(e)?,
        Dense::I96(v) => PlainDecoder::<[u32; 3]>::new(data)
            .decode_into(v, n)
            .map_err(e)?,
        Dense::F32(v) => PlainDecoder::<f32>::new(data)
            .decode_into(v, n)
            .map_err(e)?,
        Dense::F64(v) => PlainDecoder::<f64>::new(data)
            .decode_into(v, n)
            .map_err(e)?,
        Dense::Utf8(u) => u.append_raw(at, |raw| decode_plain(raw, data, n, at))?,
        Dense::Bytes { offsets, values } => {
            plain_byte_arrays(offsets, values, data, n, at)?;
        }
        Dense::Fixed { width, data: buf } => {
            let got = FixedLenDecoder::new(data, *width)
                .map_err(e)?
                .decode(buf, n)
                .map_err(e)?;
            if got < n {
                return Err(short(at, "PLAIN fixed-length byte arrays", n, got));
            }
        }
    }
    Ok(())
}

/// Decodes `n` values of one data page in `encoding`, gathering from `dict`
/// for the dictionary encodings.
pub(crate) fn decode_values(
    out: &mut Dense,
    dict: Option<&Dense>,
    encoding: Encoding,
    data: &[u8],
    n: usize,
    indices: &mut Vec<u32>,
    at: &Location,
) -> Result<()> {
    let e = |err| enc_err(at, err);
    if n == 0 {
        return Ok(());
    }
    if let Dense::Utf8(u) = out {
        return u.append_raw(at, |raw| {
            decode_values(raw, dict, encoding, data, n, indices, at)
        });
    }
    match encoding {
        Encoding::PLAIN => decode_plain(out, data, n, at),
        Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY => {
            let Some(dict) = dict else {
                return Err(crate::error::data_err(
                    at,
                    "a dictionary-encoded page without a dictionary page",
                ));
            };
            indices.clear();
            indices_decoder(data)
                .map_err(e)?
                .with_count(n)
                .decode_into(indices, n)
                .map_err(e)?;
            gather_dense(out, dict, indices, at)
        }
        Encoding::RLE => match out {
            Dense::Bool(v) => {
                let (dec, _) = RleDecoder::new_length_prefixed(data, 1).map_err(e)?;
                dec.with_count(n).decode_into(v, n).map_err(e)
            }
            _ => Err(unsupported(at, "RLE encoding of non-boolean values")),
        },
        Encoding::DELTA_BINARY_PACKED => match out {
            Dense::I32(v) => DeltaBitPackDecoder::<i32>::new(data)
                .map_err(e)?
                .decode_into(v, n)
                .map_err(e),
            Dense::I64(v) => DeltaBitPackDecoder::<i64>::new(data)
                .map_err(e)?
                .decode_into(v, n)
                .map_err(e),
            _ => Err(unsupported(
                at,
                "DELTA_BINARY_PACKED encoding of a type other than INT32 and INT64",
            )),
        },
        Encoding::ALP => match out {
            Dense::F32(v) => AlpDecoder::<f32>::new(data)
                .map_err(e)?
                .decode_into(v, n)
                .map_err(e),
            Dense::F64(v) => AlpDecoder::<f64>::new(data)
                .map_err(e)?
                .decode_into(v, n)
                .map_err(e),
            _ => Err(unsupported(
                at,
                "ALP encoding of a type other than FLOAT and DOUBLE",
            )),
        },
        Encoding::DELTA_LENGTH_BYTE_ARRAY => match out {
            Dense::Bytes { offsets, values } => {
                let mut dec = DeltaLengthDecoder::new(data).map_err(e)?;
                let got = match offsets {
                    Offsets::I32(o) => dec.decode(o, values, n),
                    Offsets::I64(o) => dec.decode(o, values, n),
                }
                .map_err(e)?;
                if got < n {
                    return Err(short(at, "DELTA_LENGTH_BYTE_ARRAY values", n, got));
                }
                Ok(())
            }
            _ => Err(unsupported(
                at,
                "DELTA_LENGTH_BYTE_ARRAY encoding of a type other than BYTE_ARRAY",
            )),
        },
        Encoding::DELTA_BYTE_ARRAY => {
            let mut dec = DeltaByteArrayDecoder::new(data).map_err(e)?;
            let got = match out {
                Dense::Bytes { offsets, values } => match offsets {
                    Offsets::I32(o) => dec.decode(o, values, n),
                    Offsets::I64(o) => dec.decode(o, values, n),
                }
                .map_err(e)?,
                Dense::Fixed { width, data: buf } => dec.decode_fixed(buf, *width, n).map_err(e)?,
                _ => {
                    return Err(unsupported(
                        at,
                        "DELTA_BYTE_ARRAY encoding of a non-byte-array type",
                    ));
                }
            };
            if got < n {
                return Err(short(at, "DELTA_BYTE_ARRAY values", n, got));
            }
            Ok(())
        }
        Encoding::BYTE_STREAM_SPLIT => {
            fn fixed<T: pq_encoding::plain::FixedWidth + Default + Copy>(
                v: &mut Vec<T>,
                data: &[u8],
                n: usize,
                at: &Location,
            ) -> Result<()> {
                let mut dec = ByteStreamSplitDecoder::new(data, std::mem::size_of::<T>())
                    .map_err(|err| enc_err(at, err))?;
                let start = v.len();
                v.resize(start + n, T::default());
                let got = dec
                    .decode(v.get_mut(start..).unwrap_or_default())
                    .map_err(|err| enc_err(at, err))?;
                if got < n {
                    return Err(short(at, "BYTE_STREAM_SPLIT values", n, got));
                }
                Ok(())
            }
            match out {
                Dense::I32(v) => fixed(v, data, n, at),
                Dense::I64(v) => fixed(v, data, n, at),
                Dense::F32(v) => fixed(v, data, n, at),
                Dense::F64(v) => fixed(v, data, n, at),
                Dense::Fixed { width, data: buf } => {
                    let mut dec = ByteStreamSplitDecoder::new(data, *width).map_err(e)?;
                    let got = dec.decode_bytes(buf, n).map_err(e)?;
                    if got < n {
                        return Err(short(at, "BYTE_STREAM_SPLIT values", n, got));
                    }
                    Ok(())
                }
                _ => Err(unsupported(
                    at,
                    "BYTE_STREAM_SPLIT encoding of BOOLEAN, INT96 or BYTE_ARRAY",
                )),
            }
        }
        other => Err(unsupported(at, format!("value encoding {}", other.0))),
    }
}

/// Entries of a dictionary small enough for [`gather_small`]'s table.
const SMALL_DICT: usize = 256;

/// `dict[i]` for every `i` of `idx`, appended to `out`. A dictionary of at
/// most [`SMALL_DICT`] entries (flags, codes, small counts) is copied into
/// a table of that size, so that a masked index needs no bounds check and
/// the loop no branch (the indices are checked once, by their max, so the
/// mask changes none); larger ones take [`gather`].
fn gather_small<T: Copy + Default>(
    dict: &[T],
    idx: &[u32],
    out: &mut Vec<T>,
) -> std::result::Result<(), pq_encoding::Error> {
    let mut table = [T::default(); SMALL_DICT];
    let Some(head) = table.get_mut(..dict.len()) else {
        return gather(dict, idx, out);
    };
    head.copy_from_slice(dict);
    let max = idx.iter().copied().fold(0u32, u32::max);
    if !idx.is_empty() && max as usize >= dict.len() {
        return Err(pq_encoding::Error::IndexOutOfBounds {
            index: max.into(),
            len: dict.len(),
        });
    }
    out.extend(idx.iter().map(|&i| table[i as usize % SMALL_DICT]));
    Ok(())
}

pub(crate) fn gather_dense(
    out: &mut Dense,
    dict: &Dense,
    idx: &[u32],
    at: &Location,
) -> Result<()> {
    let e = |err| enc_err(at, err);
    out.reserve(idx.len());
    match (out, dict) {
        (Dense::Utf8(o), Dense::Utf8(d)) => {
            each_utf8!(o, o => each_utf8!(d, d => o.extend_from_dict(d, idx, at)))
        }
        // A dictionary with an invalid string: what is gathered is checked.
        (Dense::Utf8(o), d) => o.append_raw(at, |raw| gather_dense(raw, d, idx, at)),
        (Dense::Bool(o), Dense::Bool(d)) => gather(d, idx, o).map_err(e),
        (Dense::I32(o), Dense::I32(d)) => gather_small(d, idx, o).map_err(e),
        (Dense::I64(o), Dense::I64(d)) => gather_small(d, idx, o).map_err(e),
        (Dense::I96(o), Dense::I96(d)) => gather(d, idx, o).map_err(e),
        (Dense::F32(o), Dense::F32(d)) => gather_small(d, idx, o).map_err(e),
        (Dense::F64(o), Dense::F64(d)) => gather_small(d, idx, o).map_err(e),
        (
            Dense::Bytes { offsets, values },
            Dense::Bytes {
                offsets: doff,
                values: dval,
            },
        ) => match (offsets, doff) {
            (Offsets::I32(o), Offsets::I32(d)) => {
                gather_byte_array(d, dval, idx, o, values).map_err(e)
            }
            (Offsets::I64(o), Offsets::I64(d)) => {
                gather_byte_array(d, dval, idx, o, values).map_err(e)
            }
            (Offsets::I32(o), Offsets::I64(d)) => {
                gather_byte_array(d, dval, idx, o, values).map_err(e)
            }
            (Offsets::I64(o), Offsets::I32(d)) => {
                gather_byte_array(d, dval, idx, o, values).map_err(e)
            }
        },
        (Dense::Fixed { width, data }, Dense::Fixed { data: d, .. }) => {
            gather_fixed(d, *width, idx, data).map_err(e)
        }
        _ => Err(crate::error::data_err(
            at,
            "the dictionary's type differs from the column's",
        )),
    }
}

/// The bytes `n` PLAIN values of `kind`'s type take, for every type whose
/// width says so (all but byte arrays).
pub(crate) fn plain_len(kind: &Dense, n: usize) -> Option<usize> {
    let width = match kind {
        Dense::Bool(_) => return Some(n.div_ceil(8)),
        Dense::Bytes { .. } | Dense::Utf8(_) => return None,
        Dense::I32(_) | Dense::F32(_) => 4,
        Dense::I64(_) | Dense::F64(_) => 8,
        Dense::I96(_) => 12,
        Dense::Fixed { width, .. } => *width,
    };
    Some(n.saturating_mul(width))
}

/// Takes `n` PLAIN values from `data` at `*pos` (a byte position; a bit
/// position for booleans) and advances it.
pub(crate) fn take_plain(
    out: &mut Dense,
    data: &[u8],
    pos: &mut usize,
    n: usize,
    at: &Location,
) -> Result<()> {
    let e = |err| enc_err(at, err);
    let rest = data.get(*pos..).unwrap_or_default();
    let size = match out {
        Dense::Bool(v) => {
            let mut dec = BooleanDecoder::new(data);
            dec.skip(*pos).map_err(e)?;
            let start = v.len();
            v.resize(start + n, false);
            let got = dec
                .decode(v.get_mut(start..).unwrap_or_default())
                .map_err(e)?;
            if got < n {
                v.truncate(start + got);
                return Err(short(at, "PLAIN booleans", n, got));
            }
            *pos += n;
            return Ok(());
        }
        Dense::Utf8(u) => return u.append_raw(at, |raw| take_plain(raw, data, pos, n, at)),
        Dense::Bytes { offsets, values } => {
            *pos += plain_byte_arrays(offsets, values, rest, n, at)?;
            return Ok(());
        }
        Dense::I32(_) | Dense::F32(_) => 4,
        Dense::I64(_) | Dense::F64(_) => 8,
        Dense::I96(_) => 12,
        Dense::Fixed { width, .. } => *width,
    };
    decode_plain(out, rest, n, at)?;
    *pos += n * size;
    Ok(())
}

/// Appends values `start..start + n` of `src` to `out` (both of the same
/// kind).
pub(crate) fn extend_range(
    out: &mut Dense,
    src: &Dense,
    start: usize,
    n: usize,
    at: &Location,
) -> Result<()> {
    fn slice<'a, T>(v: &'a [T], start: usize, n: usize, at: &Location) -> Result<&'a [T]> {
        v.get(start..start + n)
            .ok_or_else(|| crate::error::data_err(at, "fewer decoded values than levels"))
    }
    fn bytes<D: OffsetSize, O: OffsetSize>(
        so: &[D],
        sv: &[u8],
        start: usize,
        n: usize,
        o: &mut Vec<O>,
        v: &mut Vec<u8>,
        at: &Location,
    ) -> Result<()> {
        let offs = slice(so, start, n + 1, at)?;
        let (Some(first), Some(last)) = (offs.first(), offs.last()) else {
            return Ok(());
        };
        let bytes = sv
            .get(first.as_usize()..last.as_usize())
            .ok_or_else(|| crate::error::data_err(at, "byte array offsets out of range"))?;
        start_offsets(o, v).map_err(|e| enc_err(at, e))?;
        let base = v.len();
        let shift = first.as_usize();
        v.extend_from_slice(bytes);
        offset_of::<O>(v.len()).map_err(|e| enc_err(at, e))?;
        o.extend(
            offs.iter()
                .skip(1)
                .map(|x| O::from_usize(x.as_usize() - shift + base).unwrap_or_default()),
        );
        Ok(())
    }
    match (out, src) {
        (Dense::Utf8(o), Dense::Utf8(s)) => {
            each_utf8!(o, o => each_utf8!(s, s => o.extend_range(s, start, n, at)?))
        }
        (Dense::Bool(o), Dense::Bool(s)) => o.extend_from_slice(slice(s, start, n, at)?),
        (Dense::I32(o), Dense::I32(s)) => o.extend_from_slice(slice(s, start, n, at)?),
        (Dense::I64(o), Dense::I64(s)) => o.extend_from_slice(slice(s, start, n, at)?),
        (Dense::I96(o), Dense::I96(s)) => o.extend_from_slice(slice(s, start, n, at)?),
        (Dense::F32(o), Dense::F32(s)) => o.extend_from_slice(slice(s, start, n, at)?),
        (Dense::F64(o), Dense::F64(s)) => o.extend_from_slice(slice(s, start, n, at)?),
        (
            Dense::Bytes { offsets, values },
            Dense::Bytes {
                offsets: so,
                values: sv,
            },
        ) => match (offsets, so) {
            (Offsets::I32(o), Offsets::I32(s)) => bytes(s, sv, start, n, o, values, at)?,
            (Offsets::I64(o), Offsets::I64(s)) => bytes(s, sv, start, n, o, values, at)?,
            (Offsets::I32(o), Offsets::I64(s)) => bytes(s, sv, start, n, o, values, at)?,
            (Offsets::I64(o), Offsets::I32(s)) => bytes(s, sv, start, n, o, values, at)?,
        },
        (Dense::Fixed { width, data }, Dense::Fixed { data: s, .. }) => {
            let w = *width;
            data.extend_from_slice(slice(s, start * w, n * w, at)?)
        }
        _ => {
            return Err(crate::error::data_err(
                at,
                "decoded values of another type than the column's",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

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
