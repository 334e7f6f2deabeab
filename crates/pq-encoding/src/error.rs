//! The one error type of this crate.

/// Everything that can go wrong while decoding or encoding.
///
/// Each message says what was expected and what was found, so that a caller
/// several layers up can report a corrupt page without more context.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input ended before a complete item could be read.
    #[error(
        "unexpected end of input while reading {what}: expected {expected} more bytes, found {found}"
    )]
    Eof {
        /// What was being read.
        what: &'static str,
        /// Bytes needed.
        expected: usize,
        /// Bytes available.
        found: usize,
    },
    /// A bit width outside what the encoding allows.
    #[error("invalid bit width for {what}: expected at most {max}, found {found}")]
    BitWidth {
        /// Where the bit width was read.
        what: &'static str,
        /// Largest allowed width.
        max: u32,
        /// The width found.
        found: u32,
    },
    /// A varint longer than its target type allows.
    #[error("varint overflow: expected at most {max_bytes} bytes, found more")]
    VarintOverflow {
        /// Largest allowed encoded length.
        max_bytes: usize,
    },
    /// A header field, length or count with an impossible value.
    #[error("invalid {what}: expected {expected}, found {found}")]
    Invalid {
        /// The field.
        what: &'static str,
        /// What a valid value looks like.
        expected: &'static str,
        /// The value found (sign-extended if it was negative).
        found: i128,
    },
    /// A dictionary index past the end of the dictionary.
    #[error("dictionary index out of bounds: expected less than {len}, found {index}")]
    IndexOutOfBounds {
        /// The offending index.
        index: u64,
        /// Number of dictionary entries.
        len: usize,
    },
    /// More values were requested than the encoded data holds.
    #[error("not enough values in {what}: expected {expected}, found {found}")]
    NotEnoughValues {
        /// The stream.
        what: &'static str,
        /// Values requested.
        expected: usize,
        /// Values available.
        found: usize,
    },
    /// A run declares more values than the stream may still hold: a repeated
    /// run longer than the values that remain, or a bit-packed run whose
    /// groups of 8 reach 8 or more values past them (a final bit-packed run
    /// is padded to a group of 8, so up to 7 extra values are allowed).
    #[error(
        "{run} of {declared} values at byte {offset} runs past the {remaining} values that remain"
    )]
    RunOverrun {
        /// "repeated run" or "bit-packed run".
        run: &'static str,
        /// Values the run header declares.
        declared: u64,
        /// Values the stream may still hold.
        remaining: usize,
        /// Byte offset of the run header within the encoded runs.
        offset: usize,
    },
    /// Bytes are left after the runs that hold every value of a stream
    /// whose length is known.
    #[error("{found} bytes left after the last run, which ends at byte {offset}")]
    TrailingBytes {
        /// Bytes left over.
        found: usize,
        /// Where the last run ends.
        offset: usize,
    },
    /// Appended byte-array data no longer fits the chosen offset type.
    #[error(
        "offset overflow: expected total bytes to fit in {offset_bits}-bit offsets, found {found}"
    )]
    OffsetOverflow {
        /// Width of the offset type.
        offset_bits: u32,
        /// The total that did not fit.
        found: usize,
    },
}

/// Result alias used across the crate.
pub type Result<T, E = Error> = core::result::Result<T, E>;

pub(crate) fn eof(what: &'static str, expected: usize, found: usize) -> Error {
    Error::Eof {
        what,
        expected,
        found,
    }
}

pub(crate) fn invalid(what: &'static str, expected: &'static str, found: impl Into<i128>) -> Error {
    Error::Invalid {
        what,
        expected,
        found: found.into(),
    }
}
