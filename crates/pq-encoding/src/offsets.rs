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

/// Converts a values length to an offset, or reports the overflow.
#[inline]
pub fn offset_of<O: OffsetSize>(len: usize) -> Result<O> {
    O::from_usize(len).ok_or(Error::OffsetOverflow {
        offset_bits: O::BITS,
        found: len,
    })
}
