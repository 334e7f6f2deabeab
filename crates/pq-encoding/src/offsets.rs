//! The Arrow offsets + values layout that byte-array decoders append to.

use alloc::vec::Vec;

use crate::error::{Error, Result};

/// An offset type of the Arrow variable-length layout: `i32` or `i64`.
pub trait OffsetSize: Copy + Default + PartialEq + core::fmt::Debug + 'static {
    /// Bits of the type, for error messages.
    const BITS: u32;
    /// Converts, failing when `v` does not fit.
    fn from_usize(v: usize) -> Option<Self>;
    /// Converts back (offsets are never negative in a valid array).
    fn as_usize(self) -> usize;
}

impl OffsetSize for i32 {
    const BITS: u32 = 32;
    #[inline(always)]
    fn from_usize(v: usize) -> Option<Self> {
        i32::try_from(v).ok()
    }
    #[inline(always)]
    fn as_usize(self) -> usize {
        self as usize
    }
}

impl OffsetSize for i64 {
    const BITS: u32 = 64;
    #[inline(always)]
    fn from_usize(v: usize) -> Option<Self> {
        i64::try_from(v).ok()
    }
    #[inline(always)]
    fn as_usize(self) -> usize {
        self as usize
    }
}

/// Starts an offsets buffer: pushes the leading offset (the current
/// `values.len()`) when `offsets` is empty. Decoders call this before they
/// append, so a fresh pair of empty vectors is a valid starting point.
#[inline]
pub fn start_offsets<O: OffsetSize>(offsets: &mut Vec<O>, values: &[u8]) -> Result<()> {
    if offsets.is_empty() {
        offsets.push(offset_of(values.len())?);
    }
    Ok(())
}

/// A decoder of byte arrays into the Arrow offsets + values layout (PLAIN,
/// DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY): one interface, so that a
/// reader handles every byte-array encoding alike.
pub trait ByteArrayDecode {
    /// Appends up to `n` values to `offsets` + `values` (a fresh pair of
    /// empty vectors is a valid start); returns how many (fewer only at the
    /// end of the data).
    fn decode<O: OffsetSize>(
        &mut self,
        offsets: &mut Vec<O>,
        values: &mut Vec<u8>,
        n: usize,
    ) -> Result<usize> {
        self.fill(offsets, values, n)
    }

    /// What [`decode`](Self::decode) does, each decoder's own: appends up
    /// to `n` values to offsets `o` + values `v`, starting the offsets
    /// ([`start_offsets`]) if they are empty. (Starting them here rather
    /// than in `decode` keeps the check where each decoder's loop is
    /// compiled: the PLAIN loop, given a start of its own first, compiled
    /// to more instructions a value.)
    fn fill<O: OffsetSize>(&mut self, o: &mut Vec<O>, v: &mut Vec<u8>, n: usize) -> Result<usize>;
}

/// Converts a values length to an offset, or reports the overflow.
#[inline]
pub fn offset_of<O: OffsetSize>(len: usize) -> Result<O> {
    O::from_usize(len).ok_or(Error::OffsetOverflow {
        offset_bits: O::BITS,
        found: len,
    })
}

/// Starts appending `total` value bytes to `offsets` + `values`: the first
/// offset if there is none yet, and the check that the end fits the offset
/// type (on failure nothing is left appended). Returns the values' length
/// before the append.
pub(crate) fn begin_append<O: OffsetSize>(
    offsets: &mut Vec<O>,
    values: &[u8],
    total: usize,
) -> Result<usize> {
    let had_offsets = !offsets.is_empty();
    start_offsets(offsets, values)?;
    let base = values.len();
    // An end past `usize` fits no buffer, whatever the offset type.
    let end = base.checked_add(total).ok_or(Error::OffsetOverflow {
        offset_bits: O::BITS,
        found: usize::MAX,
    });
    if let Err(err) = end.and_then(offset_of::<O>) {
        if !had_offsets {
            offsets.clear();
        }
        return Err(err);
    }
    Ok(base)
}

/// Bytes past its end that an output buffer needs for [`copy_value`]'s
/// fixed-size moves.
pub(crate) const COPY_SLACK: usize = 64;

/// Copies `src[start..start + len]` to `out[at..at + len]`. Values of up to
/// 32 or 64 bytes are copied as one fixed 32- or 64-byte move when both
/// buffers have that many bytes from there (the excess lands past the
/// value, to be overwritten by the next one or cut off): most strings in
/// practice, without a variable-length copy each. Copies nothing if the
/// ranges are out of bounds (callers have checked them).
#[inline(always)]
pub(crate) fn copy_value(out: &mut [u8], at: usize, src: &[u8], start: usize, len: usize) {
    if len <= 32 && copy_fixed::<32>(out, at, src, start) {
        return;
    }
    if len <= COPY_SLACK && copy_fixed::<COPY_SLACK>(out, at, src, start) {
        return;
    }
    if let (Some(s), Some(d)) = (src.get(start..start + len), out.get_mut(at..at + len)) {
        d.copy_from_slice(s);
    }
}

/// One `N`-byte move, if both buffers hold `N` bytes from there. Arrays
/// rather than slices, so that the move stays a fixed-size one and is not
/// merged with the variable-length copy into one `memcpy` call.
#[inline(always)]
fn copy_fixed<const N: usize>(out: &mut [u8], at: usize, src: &[u8], start: usize) -> bool {
    let s = src
        .get(start..start + N)
        .and_then(|s| <&[u8; N]>::try_from(s).ok());
    let d = out
        .get_mut(at..at + N)
        .and_then(|d| <&mut [u8; N]>::try_from(d).ok());
    match (s, d) {
        (Some(s), Some(d)) => {
            *d = *s;
            true
        }
        _ => false,
    }
}
