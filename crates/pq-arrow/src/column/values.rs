//! Dense (non-null) values of one column chunk in their physical layout,
//! decoded page by page from every value encoding.
//!
//! A leaf reader learns its values' type only at run time, from the schema
//! and the Arrow type asked for: [`Dense`] holds one buffer of each kind
//! (the [`ValueBuffer`] impls do the work, once per kind), and each
//! operation here is one dispatch to them.

use pq_format::{Encoding, Type};

use super::buffer::{Encoded, ValueBuffer};
use super::byte_arrays::{ByteArrays, FixedBytes};
use super::native;
use super::utf8::CheckedUtf8;
use crate::error::{Location, Result, data_err, enc_err};
use crate::pool::Pool;

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
    /// BYTE_ARRAY with `i32` offsets (Binary, and strings from a dictionary
    /// with an invalid one).
    Bytes(ByteArrays<i32>),
    /// BYTE_ARRAY with `i64` offsets (LargeBinary, and as for `Bytes`).
    LargeBytes(ByteArrays<i64>),
    /// BYTE_ARRAY read as strings with `i32` offsets (Utf8, Utf8View),
    /// checked.
    Utf8(CheckedUtf8<i32>),
    /// BYTE_ARRAY read as strings with `i64` offsets (LargeUtf8), checked.
    LargeUtf8(CheckedUtf8<i64>),
    /// FIXED_LEN_BYTE_ARRAY.
    Fixed(FixedBytes),
}

/// `$body` with `$v` bound to the buffer of `$d`, whatever its kind, and
/// `$wrap` to the variant's constructor.
macro_rules! each {
    ($d:expr, $v:ident, $wrap:ident => $body:expr) => {
        each!(@arms $d, $v, $wrap, $body,
            Bool I32 I64 I96 F32 F64 Bytes LargeBytes Utf8 LargeUtf8 Fixed)
    };
    ($d:expr, $v:ident => $body:expr) => {
        each!($d, $v, _wrap => $body)
    };
    (@arms $d:expr, $v:ident, $wrap:ident, $body:expr, $($kind:ident)*) => {
        match $d {
            $(Dense::$kind($v) => {
                #[allow(unused_variables)]
                let $wrap = Dense::$kind;
                $body
            })*
        }
    };
}

/// `$body` with `$a` and `$b` bound to the buffers of `$x` and `$y` when
/// both are of one kind; `$other` when they differ.
macro_rules! each_pair {
    ($x:expr, $y:expr, ($a:ident, $b:ident) => $body:expr, _ => $other:expr) => {
        each_pair!(@arms $x, $y, $a, $b, $body, $other,
            Bool I32 I64 I96 F32 F64 Bytes LargeBytes Utf8 LargeUtf8 Fixed)
    };
    (@arms $x:expr, $y:expr, $a:ident, $b:ident, $body:expr, $other:expr, $($kind:ident)*) => {
        match ($x, $y) {
            $((Dense::$kind($a), Dense::$kind($b)) => $body,)*
            _ => $other,
        }
    };
}

impl Dense {
    /// An empty buffer for a column of `physical` type (`width` bytes a
    /// value for FIXED_LEN_BYTE_ARRAY) whose byte arrays are read as
    /// strings when `utf8`, with 64-bit offsets when `large`.
    pub(crate) fn empty(physical: Type, width: usize, utf8: bool, large: bool) -> Dense {
        match physical {
            Type::BOOLEAN => Dense::Bool(Vec::new()),
            Type::INT32 => Dense::I32(Vec::new()),
            Type::INT64 => Dense::I64(Vec::new()),
            Type::INT96 => Dense::I96(Vec::new()),
            Type::FLOAT => Dense::F32(Vec::new()),
            Type::DOUBLE => Dense::F64(Vec::new()),
            Type::BYTE_ARRAY => match (utf8, large) {
                (true, false) => Dense::Utf8(CheckedUtf8::default()),
                (true, true) => Dense::LargeUtf8(CheckedUtf8::default()),
                (false, false) => Dense::Bytes(ByteArrays::default()),
                (false, true) => Dense::LargeBytes(ByteArrays::default()),
            },
            _ => Dense::Fixed(FixedBytes {
                width,
                data: Vec::new(),
            }),
        }
    }

    /// Strings as unchecked byte arrays of the same offsets, for a
    /// dictionary with an invalid string (what is gathered from it is
    /// checked); `None` for any other kind.
    pub(crate) fn unchecked_strings(&self) -> Option<Dense> {
        match self {
            Dense::Utf8(_) => Some(Dense::Bytes(ByteArrays::default())),
            Dense::LargeUtf8(_) => Some(Dense::LargeBytes(ByteArrays::default())),
            _ => None,
        }
    }

    /// Whether these are fixed-length byte arrays of width 0.
    pub(crate) fn is_zero_width(&self) -> bool {
        matches!(self, Dense::Fixed(f) if f.width == 0)
    }

    /// Number of values.
    pub(crate) fn len(&self) -> usize {
        each!(self, v => v.len())
    }

    /// Empties the buffer, keeping its capacity for the next page.
    pub(crate) fn clear(&mut self) {
        each!(self, v => v.clear())
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
        each!(self, v, wrap => wrap(v.take_like(pool, values, bytes)))
    }

    /// The bytes of byte-array and fixed-length values (0 for others).
    pub(crate) fn value_bytes(&self) -> usize {
        each!(self, v => v.value_bytes())
    }
}

/// Decodes `n` PLAIN values (a dictionary page or a PLAIN data page).
pub(crate) fn decode_plain(out: &mut Dense, data: &[u8], n: usize, at: &Location) -> Result<()> {
    each!(out, v => v.decode_plain(data, n, at))
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
    match encoding {
        Encoding::PLAIN => decode_plain(out, data, n, at),
        Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY => {
            let Some(dict) = dict else {
                return Err(data_err(
                    at,
                    "a dictionary-encoded page without a dictionary page",
                ));
            };
            indices.clear();
            pq_encoding::dictionary::indices_decoder(data)
                .map_err(e)?
                .with_count(n)
                .decode_into(indices, n)
                .map_err(e)?;
            gather_dense(out, dict, indices, at)
        }
        encoding => {
            let page = Encoded { encoding, data, n };
            each!(out, v => v.decode_encoded(page, at))
        }
    }
}

/// Appends `dict[i]` for every `i` of `idx` to `out`.
pub(crate) fn gather_dense(
    out: &mut Dense,
    dict: &Dense,
    idx: &[u32],
    at: &Location,
) -> Result<()> {
    each!(&mut *out, v => v.reserve(idx.len()));
    match (out, dict) {
        // A dictionary with an invalid string: what is gathered is checked.
        (Dense::Utf8(o), Dense::Bytes(d)) => o.append_raw(at, |raw| raw.gather(d, idx, at)),
        (Dense::LargeUtf8(o), Dense::LargeBytes(d)) => {
            o.append_raw(at, |raw| raw.gather(d, idx, at))
        }
        (out, dict) => each_pair!(out, dict, (o, d) => o.gather(d, idx, at), _ => Err(data_err(
            at,
            "the dictionary's type differs from the column's",
        ))),
    }
}

/// Whether a PLAIN dictionary page of `kind`'s values is gathered from as
/// it is (see [`gather_plain_dict`]): fixed-width numbers, whose PLAIN
/// bytes are the values.
pub(crate) fn gathers_plain_dict(kind: &Dense) -> bool {
    matches!(
        kind,
        Dense::I32(_) | Dense::I64(_) | Dense::F32(_) | Dense::F64(_)
    )
}

/// Appends the values at `idx` of the `n` PLAIN values in `raw` (a
/// dictionary page) to `out`, for the kinds [`gathers_plain_dict`] names.
pub(crate) fn gather_plain_dict(
    out: &mut Dense,
    raw: &[u8],
    n: usize,
    idx: &[u32],
    at: &Location,
) -> Result<()> {
    match out {
        Dense::I32(o) => native::gather_plain(raw, n, idx, o),
        Dense::I64(o) => native::gather_plain(raw, n, idx, o),
        Dense::F32(o) => native::gather_plain(raw, n, idx, o),
        Dense::F64(o) => native::gather_plain(raw, n, idx, o),
        _ => {
            return Err(data_err(
                at,
                "the dictionary's type differs from the column's",
            ));
        }
    }
    .map_err(|e| enc_err(at, e))
}

/// Whether a PLAIN dictionary page of `kind`'s values may be gathered from
/// as it lies through an index of where its entries start (see
/// [`gather_plain_bytes`]): byte arrays, strings or not.
pub(crate) fn indexes_plain_dict(kind: &Dense) -> bool {
    matches!(
        kind,
        Dense::Bytes(_) | Dense::LargeBytes(_) | Dense::Utf8(_) | Dense::LargeUtf8(_)
    )
}

/// Appends the byte arrays at `idx` of the PLAIN page `page`, found through
/// its `starts`, to `out` (strings checked as they are appended), for the
/// kinds [`indexes_plain_dict`] names; returns the bytes appended.
pub(crate) fn gather_plain_bytes(
    out: &mut Dense,
    page: &[u8],
    starts: &[u32],
    idx: &[u32],
    at: &Location,
) -> Result<usize> {
    let before = out.value_bytes();
    match out {
        Dense::Bytes(o) => o.gather_plain(page, starts, idx, at),
        Dense::LargeBytes(o) => o.gather_plain(page, starts, idx, at),
        Dense::Utf8(o) => o.append_raw(at, |raw| raw.gather_plain(page, starts, idx, at)),
        Dense::LargeUtf8(o) => o.append_raw(at, |raw| raw.gather_plain(page, starts, idx, at)),
        _ => Err(data_err(
            at,
            "the dictionary's type differs from the column's",
        )),
    }?;
    Ok(out.value_bytes().saturating_sub(before))
}

/// The bytes `n` PLAIN values of `kind`'s type take, for every type whose
/// width says so (all but byte arrays).
pub(crate) fn plain_len(kind: &Dense, n: usize) -> Option<usize> {
    each!(kind, v => v.plain_len(n))
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
    each!(out, v => v.take_plain(data, pos, n, at))
}

/// Passes over `n` PLAIN values of `kind`'s type in `data` at `*pos` (a
/// byte position; a bit position for booleans) without decoding them: a
/// fixed width moves the position, byte arrays walk their lengths. Values
/// the page does not hold are an error, as they are when taken.
pub(crate) fn skip_plain(
    kind: &Dense,
    data: &[u8],
    pos: &mut usize,
    n: usize,
    at: &Location,
) -> Result<()> {
    let short = |found| super::buffer::short(at, "PLAIN values", n, found);
    match kind {
        Dense::Bool(_) => {
            let end = pos.saturating_add(n);
            let bits = data.len().saturating_mul(8);
            if end > bits {
                return Err(short(bits.saturating_sub(*pos)));
            }
            *pos = end;
        }
        Dense::Bytes(_) | Dense::LargeBytes(_) | Dense::Utf8(_) | Dense::LargeUtf8(_) => {
            let mut dec =
                pq_encoding::plain::ByteArrayDecoder::new(data.get(*pos..).unwrap_or_default());
            let got = dec.skip(n).map_err(|e| enc_err(at, e))?;
            if got < n {
                return Err(short(got));
            }
            *pos += dec.position();
        }
        other => {
            let width = plain_len(other, 1).unwrap_or(0);
            let left = data.len().saturating_sub(*pos);
            let want = plain_len(other, n).unwrap_or(usize::MAX);
            if want > left {
                return Err(short(left.checked_div(width).unwrap_or(0)));
            }
            *pos += want;
        }
    }
    Ok(())
}

/// Appends the PLAIN values at positions `vals` (ascending, relative to
/// `*pos`) of the next `passed` values in `data` at `*pos`, and moves
/// `*pos` past all `passed` of them: the kept rows of a page read late.
/// Fixed-width values are read where they lie; booleans and byte arrays
/// walk their runs of kept and passed values.
pub(crate) fn take_plain_at(
    out: &mut Dense,
    data: &[u8],
    pos: &mut usize,
    vals: &[u32],
    passed: usize,
    at: &Location,
) -> Result<()> {
    if vals.last().is_some_and(|&v| v as usize >= passed) {
        return Err(data_err(at, "a kept value past the values passed"));
    }
    let width = match out {
        Dense::I32(_) | Dense::F32(_) => Some(4),
        Dense::I64(_) | Dense::F64(_) => Some(8),
        Dense::Fixed(f) if f.width > 0 => Some(f.width),
        _ => None,
    };
    if let Some(w) = width {
        // Fixed width: each kept value read where it lies.
        let values = data.get(*pos..).unwrap_or_default();
        let held = values.len() / w;
        if passed > held {
            return Err(super::buffer::short(at, "PLAIN values", passed, held));
        }
        // The page's values as the entries the kept positions index,
        // gathered as a PLAIN dictionary page's are.
        match out {
            Dense::I32(v) => native::gather_plain(values, passed, vals, v),
            Dense::I64(v) => native::gather_plain(values, passed, vals, v),
            Dense::F32(v) => native::gather_plain(values, passed, vals, v),
            Dense::F64(v) => native::gather_plain(values, passed, vals, v),
            Dense::Fixed(f) => pq_encoding::dictionary::gather_fixed(values, w, vals, &mut f.data),
            _ => Ok(()),
        }
        .map_err(|e| enc_err(at, e))?;
        *pos += passed * w;
        return Ok(());
    }
    // Booleans and byte arrays: runs of consecutive kept values taken, the
    // gaps passed over.
    let kind = out.empty_like();
    let mut done = 0usize;
    let mut i = 0;
    while let Some(&first) = vals.get(i) {
        let first = first as usize;
        let mut end = first + 1;
        i += 1;
        while vals.get(i).is_some_and(|&v| v as usize == end) {
            end += 1;
            i += 1;
        }
        let Some(gap) = first.checked_sub(done) else {
            return Err(data_err(at, "kept values out of order"));
        };
        skip_plain(&kind, data, pos, gap, at)?;
        take_plain(out, data, pos, end - first, at)?;
        done = end;
    }
    skip_plain(&kind, data, pos, passed - done, at)
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
    each_pair!(out, src, (o, s) => o.extend_range(s, start, n, at), _ => Err(data_err(
        at,
        "decoded values of another type than the column's",
    )))
}
