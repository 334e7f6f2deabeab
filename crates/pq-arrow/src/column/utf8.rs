//! Strings known to be valid: [`CheckedUtf8`] holds offsets and values
//! that only this module's code appends to, each append checked (or
//! gathered from a checked dictionary by checked indices), so that the
//! Arrow string array is built without Arrow's second pass over the values.
//!
//! The invariant, kept by every method: the offsets are empty or start at 0,
//! never decrease and end at the values' length; the values are valid UTF-8
//! and every offset falls on a character boundary. Before the unchecked
//! Arrow constructor, the offsets' order is checked once more (one pass
//! that vectorises), so that even a bug here cannot build an array whose
//! ranges overlap or leave the values.

use std::sync::Arc;

use arrow_array::types::GenericStringType;
use arrow_array::{ArrayRef, GenericByteArray, OffsetSizeTrait};
use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use pq_encoding::offsets::OffsetSize;

use super::buffer::{Encoded, ValueBuffer};
use super::byte_arrays::ByteArrays;
use crate::error::{Location, Result, data_err};
use crate::pool::Pool;

/// Offsets and values of strings, valid by construction (see the module
/// docs).
#[derive(Debug, Clone, Default)]
pub(crate) struct CheckedUtf8<O> {
    raw: ByteArrays<O>,
}

/// Checks that `offsets` are not negative, never decrease and that the
/// last is at most `len`: one pass without an early exit or a compare, so
/// that it vectorises on any x86-64 (a vector compare of 64-bit offsets
/// needs SSE4.2, and the pass of compares was a scalar loop taking 1.4 %
/// of a read of `lineitem.polars.default`). An offset negative in its
/// type sets the top bit of `bad` as itself (sign-extended), and one below
/// the offset before it as their difference, which cannot overflow
/// between two offsets that are not negative.
pub(crate) fn offsets_in_order<O: OffsetSize>(offsets: &[O], len: usize) -> bool {
    const TOP: usize = 1 << (usize::BITS - 1);
    let bad = offsets
        .iter()
        .zip(offsets.iter().skip(1))
        .fold(0usize, |bad, (a, b)| {
            let (a, b) = (a.as_usize(), b.as_usize());
            bad | a | b.wrapping_sub(a)
        });
    bad & TOP == 0 && offsets.last().is_none_or(|l| l.as_usize() <= len)
}

/// An Arrow offset buffer of `offsets`, checked to be in order and within
/// `len` values bytes.
pub(crate) fn offset_buffer<O: OffsetSize + OffsetSizeTrait>(
    offsets: Vec<O>,
    len: usize,
    at: &Location,
    pool: &Pool,
) -> Result<OffsetBuffer<O>> {
    let offsets = if offsets.is_empty() {
        vec![O::default()]
    } else {
        offsets
    };
    if !offsets_in_order(&offsets, len) {
        return Err(data_err(
            at,
            "byte array offsets decrease or run past the values",
        ));
    }
    let n = offsets.len();
    let scalars = ScalarBuffer::new(pool.buffer(offsets), 0, n);
    // SAFETY: checked above: non-empty, never decreasing (the ranges are in
    // bounds as the caller's array constructor checks the last offset).
    Ok(unsafe { OffsetBuffer::new_unchecked(scalars) })
}

/// The first value of `offsets`/`values` that is not valid UTF-8 or does
/// not start and end on a character boundary, as an error naming it by
/// `first + ` its index; `Ok` if there is none.
fn check(offsets: &[impl OffsetSize], values: &[u8], first: usize, at: &Location) -> Result<()> {
    let base = offsets.first().map_or(0, |o| o.as_usize());
    let Some(bytes) = offsets
        .last()
        .and_then(|l| values.get(base..l.as_usize()))
        .filter(|_| offsets_in_order(offsets, values.len()))
    else {
        return Err(data_err(
            at,
            "byte array offsets decrease or run past the values",
        ));
    };
    // ASCII text (most text) is valid with a boundary at every byte: one
    // fast pass and no offset needs a look.
    if bytes.is_ascii() {
        return Ok(());
    }
    if let Ok(s) = std::str::from_utf8(bytes)
        && offsets
            .iter()
            .all(|o| s.is_char_boundary(o.as_usize() - base))
    {
        return Ok(());
    }
    for (i, (a, b)) in offsets.iter().zip(offsets.iter().skip(1)).enumerate() {
        let v = values.get(a.as_usize()..b.as_usize()).unwrap_or_default();
        if let Err(e) = std::str::from_utf8(v) {
            let i = first + i;
            return Err(data_err(
                &at.clone().at_row(i),
                format!("invalid UTF-8 in value {i} (non-null value index): {e}"),
            ));
        }
    }
    Err(data_err(at, "invalid UTF-8"))
}

impl<O: OffsetSize> CheckedUtf8<O> {
    /// No strings, in these buffers (emptied; from a pool).
    pub(crate) fn with_buffers(mut offsets: Vec<O>, mut values: Vec<u8>) -> Self {
        offsets.clear();
        values.clear();
        CheckedUtf8 {
            raw: ByteArrays { offsets, values },
        }
    }

    /// Lets `append` (a decoder of any encoding) append strings to the
    /// offsets and values as they are, then checks what it appended: on an
    /// error from `append` or from the check, nothing is kept.
    pub(crate) fn append_with(
        &mut self,
        at: &Location,
        append: impl FnOnce(&mut Vec<O>, &mut Vec<u8>) -> Result<()>,
    ) -> Result<()> {
        self.append_raw(at, |raw| append(&mut raw.offsets, &mut raw.values))
    }

    /// [`append_with`](Self::append_with) with the strings as raw byte
    /// arrays, for a decoder of any byte-array encoding.
    pub(crate) fn append_raw(
        &mut self,
        at: &Location,
        append: impl FnOnce(&mut ByteArrays<O>) -> Result<()>,
    ) -> Result<()> {
        if self.raw.offsets.is_empty() {
            self.raw.offsets.push(O::default());
        }
        let (o0, v0) = (self.raw.offsets.len(), self.raw.values.len());
        let checked = append(&mut self.raw).and_then(|()| {
            let new = self.raw.offsets.get(o0 - 1..).unwrap_or_default();
            if new.first().map(|f| f.as_usize()) != Some(v0)
                || new.last().map(|l| l.as_usize()) != Some(self.raw.values.len())
            {
                return Err(data_err(
                    at,
                    "byte array offsets do not cover the values appended",
                ));
            }
            check(new, &self.raw.values, o0 - 1, at)
        });
        if checked.is_err() {
            self.raw.offsets.truncate(o0);
            self.raw.values.truncate(v0);
        }
        checked
    }

    /// Appends the strings of `dict` at `idx` (each checked to be an entry):
    /// whole valid strings, so nothing more to check.
    pub(crate) fn extend_from_dict<D: OffsetSize>(
        &mut self,
        dict: &CheckedUtf8<D>,
        idx: &[u32],
        at: &Location,
    ) -> Result<()> {
        self.raw.gather_from(&dict.raw, idx, at)
    }

    /// Appends strings `start..start + n` of `src`, whole.
    pub(crate) fn extend_range<D: OffsetSize>(
        &mut self,
        src: &CheckedUtf8<D>,
        start: usize,
        n: usize,
        at: &Location,
    ) -> Result<()> {
        self.raw.extend_from(&src.raw, start, n, at)
    }

    /// The strings' offsets and values (valid UTF-8 cut at character
    /// boundaries: this type's invariant).
    pub(crate) fn raw(&self) -> &ByteArrays<O> {
        &self.raw
    }

    /// The strings' offsets and values, taken.
    pub(crate) fn into_raw(self) -> ByteArrays<O> {
        self.raw
    }

    /// Checks offsets and values from elsewhere.
    pub(crate) fn check_parts(offsets: Vec<O>, values: Vec<u8>, at: &Location) -> Result<Self> {
        let mut c = CheckedUtf8::with_buffers(Vec::new(), Vec::new());
        if offsets.len() <= 1 {
            return Ok(c);
        }
        let first = offsets.first().map_or(0, |f| f.as_usize());
        c.append_with(at, |o, v| {
            // Rebased to start at 0, as the invariant wants.
            let bytes = values
                .get(first..offsets.last().map_or(0, |l| l.as_usize()))
                .unwrap_or_default();
            v.extend_from_slice(bytes);
            o.extend(
                offsets
                    .iter()
                    .skip(1)
                    .map(|x| O::from_usize(x.as_usize().wrapping_sub(first)).unwrap_or_default()),
            );
            Ok(())
        })?;
        Ok(c)
    }

    /// The string array of these strings spread over `nulls` (null slots
    /// repeat the previous offset), its buffers from `pool`.
    pub(crate) fn into_array(
        self,
        nulls: Option<NullBuffer>,
        at: &Location,
        pool: &Pool,
    ) -> Result<ArrayRef>
    where
        O: OffsetSizeTrait,
    {
        let offsets = crate::convert::spread_offsets(
            if self.raw.offsets.is_empty() {
                vec![O::default()]
            } else {
                self.raw.offsets
            },
            nulls.as_ref(),
            pool,
        );
        if nulls.as_ref().is_some_and(|n| n.len() + 1 != offsets.len()) {
            return Err(data_err(
                at,
                "the validity and the strings disagree in length",
            ));
        }
        let len = self.raw.values.len();
        if offsets.last().map(|l| OffsetSize::as_usize(*l)) != Some(len) {
            return Err(data_err(
                at,
                "byte array offsets do not end at the values' end",
            ));
        }
        let offsets = offset_buffer(offsets, len, at, pool)?;
        let values = pool.buffer(self.raw.values);
        // SAFETY: the offsets are in order, start at 0 and end at the
        // values' end (checked above), so every range is in bounds; the
        // values are valid UTF-8 and every offset is a character boundary
        // (this type's invariant; spreading over nulls only repeats
        // offsets); the validity has one entry per string (checked).
        let a = unsafe {
            GenericByteArray::<GenericStringType<O>>::new_unchecked(offsets, values, nulls)
        };
        Ok(Arc::new(a))
    }
}

/// Strings are byte arrays whose every append is checked: each decoding
/// runs the byte-array one through [`CheckedUtf8::append_raw`]; gathers and
/// ranges of checked strings need no check.
impl<O: OffsetSize + Send> ValueBuffer for CheckedUtf8<O> {
    fn len(&self) -> usize {
        self.raw.len()
    }

    fn clear(&mut self) {
        self.raw.clear();
    }

    fn take_like(&self, pool: &Pool, values: usize, bytes: usize) -> Self {
        CheckedUtf8::with_buffers(pool.take(values + 1), pool.take(bytes))
    }

    fn value_bytes(&self) -> usize {
        self.raw.value_bytes()
    }

    fn reserve(&mut self, n: usize) {
        self.raw.reserve(n);
    }

    fn plain_len(&self, _n: usize) -> Option<usize> {
        None
    }

    fn decode_plain(&mut self, data: &[u8], n: usize, at: &Location) -> Result<()> {
        self.append_raw(at, |raw| raw.decode_plain(data, n, at))
    }

    fn take_plain(&mut self, data: &[u8], pos: &mut usize, n: usize, at: &Location) -> Result<()> {
        self.append_raw(at, |raw| raw.take_plain(data, pos, n, at))
    }

    fn decode_encoded(&mut self, page: Encoded<'_>, at: &Location) -> Result<()> {
        self.append_raw(at, |raw| raw.decode_encoded(page, at))
    }

    fn gather(&mut self, dict: &Self, idx: &[u32], at: &Location) -> Result<()> {
        self.extend_from_dict(dict, idx, at)
    }

    fn extend_range(&mut self, src: &Self, start: usize, n: usize, at: &Location) -> Result<()> {
        self.raw.extend_from(&src.raw, start, n, at)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use arrow_array::Array;
    use arrow_array::cast::AsArray;

    fn at() -> Location {
        Location::default()
    }

    /// A decoder that appends these offsets and values as they are.
    fn buggy(
        offsets: &[i32],
        values: &[u8],
    ) -> impl FnOnce(&mut Vec<i32>, &mut Vec<u8>) -> Result<()> {
        let (offsets, values) = (offsets.to_vec(), values.to_vec());
        move |o, v| {
            let base = v.len() as i32;
            o.extend(offsets.iter().map(|x| x + base));
            v.extend_from_slice(&values);
            Ok(())
        }
    }

    #[test]
    fn appends_of_a_buggy_decoder_are_errors_and_leave_nothing() {
        let mut c = CheckedUtf8::<i32>::default();
        c.append_with(&at(), buggy(&[3, 6], "héllo".as_bytes()))
            .unwrap();
        assert_eq!(c.len(), 2);
        for (offsets, values) in [
            // Decreasing offsets.
            (&[3, 1, 4][..], &b"abcd"[..]),
            // An offset inside "é" (two bytes).
            (&[2, 3][..], "aé".as_bytes()),
            // Invalid UTF-8.
            (&[1, 2][..], &b"a\xff"[..]),
            // Offsets that stop short of the values, or run past them.
            (&[1][..], &b"ab"[..]),
            (&[3][..], &b"ab"[..]),
        ] {
            let r = c.append_with(&at(), buggy(offsets, values));
            assert!(r.is_err(), "{offsets:?} {values:?}");
            assert_eq!(
                (c.len(), c.value_bytes()),
                (2, 6),
                "{offsets:?}: nothing kept"
            );
        }
        let a = c.into_array(None, &at(), &Pool::none()).unwrap();
        let s = a.as_string::<i32>();
        assert_eq!((s.value(0), s.value(1)), ("h\u{e9}", "llo"));
        a.to_data().validate_full().unwrap();
    }

    #[test]
    fn dictionary_gathers_check_their_indices() {
        let mut dict = CheckedUtf8::<i32>::default();
        dict.append_with(&at(), buggy(&[1, 3], "aé".as_bytes()))
            .unwrap();
        let mut c = CheckedUtf8::<i64>::default();
        c.extend_from_dict(&dict, &[1, 0, 1], &at()).unwrap();
        assert!(c.extend_from_dict(&dict, &[0, 2], &at()).is_err());
        assert_eq!(c.len(), 3);
        let mut part = CheckedUtf8::<i32>::default();
        part.extend_range(&c, 1, 2, &at()).unwrap();
        let a = part.into_array(None, &at(), &Pool::none()).unwrap();
        let s = a.as_string::<i32>();
        assert_eq!((s.len(), s.value(0), s.value(1)), (2, "a", "é"));
    }

    #[test]
    fn offsets_out_of_order_are_found() {
        assert!(offsets_in_order(&[0i32, 0, 3, 7], 7));
        assert!(!offsets_in_order(&[0i32, 4, 3, 7], 7));
        assert!(!offsets_in_order(&[0i32, 3, 8], 7));
        assert!(offset_buffer(vec![0i32, 2, 1], 4, &at(), &Pool::none()).is_err());
    }

    /// The check without compares against the plain one (every offset at
    /// least 0, each at least the one before, the last at most `len`), on
    /// offsets near the types' limits and negative ones (`len`, a
    /// buffer's length, at most `isize::MAX`).
    #[test]
    fn offsets_in_order_agrees_with_comparing_them() {
        fn naive(o: &[i64], len: usize) -> bool {
            o.iter().all(|&x| x >= 0)
                && o.windows(2).all(|w| w[0] <= w[1])
                && o.last().is_none_or(|&l| l as usize <= len)
        }
        let picks = [
            0i64,
            1,
            2,
            7,
            1 << 30,
            i32::MAX as i64,
            i64::MAX - 1,
            i64::MAX,
            -1,
            i64::MIN,
            i32::MIN as i64,
        ];
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let n = (seed % 7) as usize;
            let mut o: Vec<i64> = (0..n)
                .map(|k| picks[((seed >> (8 * k + 3)) % picks.len() as u64) as usize])
                .collect();
            if seed & 1 == 0 {
                o.sort_unstable();
            }
            let len =
                [0usize, 7, i32::MAX as usize, isize::MAX as usize][(seed >> 60) as usize % 4];
            assert_eq!(offsets_in_order(&o, len), naive(&o, len), "{o:?} {len}");
            if o.iter().all(|&x| i32::try_from(x).is_ok()) {
                let o32: Vec<i32> = o.iter().map(|&x| x as i32).collect();
                assert_eq!(offsets_in_order(&o32, len), naive(&o, len), "{o32:?} {len}");
            }
        }
    }
}
