//! The buffer of one column's decoded non-null values, as a trait: every
//! operation the leaf reader applies to values (decoding each encoding,
//! dictionary gather, taking a range), written once per kind of buffer
//! ([`Vec`] of a fixed-width type, byte arrays, fixed-length byte arrays,
//! checked strings) and reached through one dispatch in
//! [`Dense`](super::values::Dense).

use pq_format::Encoding;

use crate::error::{Error, Location, Result, enc_err, unsupported};
use crate::pool::Pool;

/// Decoded values of one physical type, appended to page by page (see the
/// [module documentation](self)). Every method that appends checks counts
/// and lengths against what the data holds and reports a shortfall as an
/// error, never as fewer values.
pub(crate) trait ValueBuffer: Sized {
    /// Number of values.
    fn len(&self) -> usize;

    /// Empties the buffer, keeping its capacity for the next page.
    fn clear(&mut self);

    /// An empty buffer of the same kind from `pool`, with room for `values`
    /// values and `bytes` value bytes (see
    /// [`Dense::take_like`](super::values::Dense::take_like)).
    fn take_like(&self, pool: &Pool, values: usize, bytes: usize) -> Self;

    /// The bytes of byte-array and fixed-length values (0 for others).
    fn value_bytes(&self) -> usize {
        0
    }

    /// Makes room for `n` more values.
    fn reserve(&mut self, n: usize);

    /// The bytes `n` PLAIN values take, when the type's width says so (all
    /// but byte arrays).
    fn plain_len(&self, n: usize) -> Option<usize>;

    /// Appends `n` PLAIN values (a dictionary page or a PLAIN data page).
    fn decode_plain(&mut self, data: &[u8], n: usize, at: &Location) -> Result<()>;

    /// Appends `n` PLAIN values from `data` at `*pos` and advances it (a
    /// byte position; booleans count bits).
    fn take_plain(&mut self, data: &[u8], pos: &mut usize, n: usize, at: &Location) -> Result<()> {
        self.decode_plain(data.get(*pos..).unwrap_or_default(), n, at)?;
        *pos += self.plain_len(n).unwrap_or(0);
        Ok(())
    }

    /// Appends the values of `page`, in an encoding that is neither PLAIN
    /// nor a dictionary one; an error if the type does not allow it.
    fn decode_encoded(&mut self, page: Encoded<'_>, at: &Location) -> Result<()> {
        Err(not_allowed(page.encoding, at))
    }

    /// Appends `dict[i]` for every `i` of `idx`, each checked to be an entry.
    fn gather(&mut self, dict: &Self, idx: &[u32], at: &Location) -> Result<()>;

    /// Appends values `start..start + n` of `src`.
    fn extend_range(&mut self, src: &Self, start: usize, n: usize, at: &Location) -> Result<()>;
}

/// The values of a data page in an encoding other than PLAIN and the
/// dictionary ones.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Encoded<'a> {
    /// The page's value encoding.
    pub(crate) encoding: Encoding,
    /// The encoded values.
    pub(crate) data: &'a [u8],
    /// How many values the page's levels say it holds.
    pub(crate) n: usize,
}

/// The error for values in `encoding` of a type that does not allow it.
pub(crate) fn not_allowed(encoding: Encoding, at: &Location) -> Error {
    let what = match encoding {
        Encoding::RLE => "RLE encoding of non-boolean values",
        Encoding::DELTA_BINARY_PACKED => {
            "DELTA_BINARY_PACKED encoding of a type other than INT32 and INT64"
        }
        Encoding::ALP => "ALP encoding of a type other than FLOAT and DOUBLE",
        Encoding::DELTA_LENGTH_BYTE_ARRAY => {
            "DELTA_LENGTH_BYTE_ARRAY encoding of a type other than BYTE_ARRAY"
        }
        Encoding::DELTA_BYTE_ARRAY => "DELTA_BYTE_ARRAY encoding of a non-byte-array type",
        Encoding::BYTE_STREAM_SPLIT => "BYTE_STREAM_SPLIT encoding of BOOLEAN, INT96 or BYTE_ARRAY",
        other => return unsupported(at, format!("value encoding {}", other.0)),
    };
    unsupported(at, what)
}

/// The error for `found` values where `expected` were declared.
pub(crate) fn short(at: &Location, what: &'static str, expected: usize, found: usize) -> Error {
    enc_err(
        at,
        pq_encoding::Error::NotEnoughValues {
            what,
            expected,
            found,
        },
    )
}

/// `n` values of `src` from `start`, or the error of a page that holds
/// fewer decoded values than its levels ask for.
pub(crate) fn range<'a, T>(src: &'a [T], start: usize, n: usize, at: &Location) -> Result<&'a [T]> {
    src.get(start..start + n)
        .ok_or_else(|| crate::error::data_err(at, "fewer decoded values than levels"))
}
