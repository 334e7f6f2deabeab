//! Statistics of the writer: running minimum and maximum of a page and of
//! a chunk in the order the format defines for each type, the bounds of a
//! batch of values, and the truncation of long binary bounds.

use std::borrow::Borrow;

use crate::physical::PhysicalType;
use crate::write::schema::SortOrder;

/// Running minimum and maximum of values of `T` (NaN left out).
#[derive(Debug, Clone)]
pub(crate) struct Bounds<T: PhysicalType> {
    has_bounds: bool,
    /// Kept allocated between pages: byte-array bounds reuse their buffers.
    min: T::Owned,
    max: T::Owned,
}

impl<T: PhysicalType> Default for Bounds<T> {
    fn default() -> Self {
        Self {
            has_bounds: false,
            min: T::Owned::default(),
            max: T::Owned::default(),
        }
    }
}

impl<T: PhysicalType> Bounds<T> {
    pub(crate) fn clear(&mut self) {
        self.has_bounds = false;
    }

    /// Widens the bounds to take in `[min, max]`.
    pub(crate) fn update(&mut self, sort: SortOrder, min: &T::Value, max: &T::Value) {
        if !self.has_bounds {
            self.has_bounds = true;
            min.clone_into(&mut self.min);
            max.clone_into(&mut self.max);
            return;
        }
        if T::compare(sort, min, self.min.borrow()).is_lt() {
            min.clone_into(&mut self.min);
        }
        if T::compare(sort, max, self.max.borrow()).is_gt() {
            max.clone_into(&mut self.max);
        }
    }

    /// Widens the bounds to take in another's.
    pub(crate) fn merge(&mut self, sort: SortOrder, other: &Self) {
        if other.has_bounds {
            self.update(sort, other.min.borrow(), other.max.borrow());
        }
    }

    /// The bounds to write (PLAIN, without length), zero signs fixed for
    /// floats; `None` without values or without an order.
    pub(crate) fn encoded(&self, sort: SortOrder) -> Option<(Vec<u8>, Vec<u8>)> {
        if !self.has_bounds || sort == SortOrder::Undefined {
            return None;
        }
        let (mut min, mut max) = (self.min.clone(), self.max.clone());
        T::fix_zero_signs(sort, &mut min, &mut max);
        let (mut lo, mut hi) = (Vec::new(), Vec::new());
        T::write_plain(min.borrow(), &mut lo);
        T::write_plain(max.borrow(), &mut hi);
        Some((lo, hi))
    }
}

/// Fixed-width values whose bounds are taken a slice at a time.
pub(crate) trait SliceBounds: Copy {
    /// Minimum and maximum of `v` under `sort`, NaN left out; `None` when
    /// nothing is left.
    fn bounds(v: &[Self], sort: SortOrder) -> Option<(Self, Self)>;
}

/// Minimum and maximum of keys, in one pass the compiler vectorises.
#[inline]
fn min_max<K: Ord + Copy>(mut keys: impl Iterator<Item = K>) -> Option<(K, K)> {
    let first = keys.next()?;
    Some(keys.fold((first, first), |(lo, hi), k| (lo.min(k), hi.max(k))))
}

macro_rules! integer_bounds {
    ($signed:ty, $unsigned:ty) => {
        impl SliceBounds for $signed {
            fn bounds(v: &[Self], sort: SortOrder) -> Option<(Self, Self)> {
                if sort == SortOrder::Unsigned {
                    let (lo, hi) = min_max(v.iter().map(|&x| x as $unsigned))?;
                    Some((lo as $signed, hi as $signed))
                } else {
                    min_max(v.iter().copied())
                }
            }
        }
    };
}

integer_bounds!(i32, u32);
integer_bounds!(i64, u64);

macro_rules! float_bounds {
    ($float:ty) => {
        impl SliceBounds for $float {
            /// The first of equal values is kept (of -0 and +0, whichever
            /// came first: the signs are fixed when the bounds are written).
            fn bounds(v: &[Self], _: SortOrder) -> Option<(Self, Self)> {
                let mut out: Option<(Self, Self)> = None;
                for &x in v {
                    if x.is_nan() {
                        continue;
                    }
                    out = Some(match out {
                        None => (x, x),
                        Some((lo, hi)) => {
                            (if x < lo { x } else { lo }, if x > hi { x } else { hi })
                        }
                    });
                }
                out
            }
        }
    };
}

float_bounds!(f32);
float_bounds!(f64);

impl SliceBounds for bool {
    fn bounds(v: &[Self], _: SortOrder) -> Option<(Self, Self)> {
        if v.is_empty() {
            return None;
        }
        Some((!v.iter().any(|b| !b), v.iter().any(|&b| b)))
    }
}

/// The first 8 bytes, zero-padded, as a big-endian number: when two
/// values' prefixes differ, so do the values, in the same order. One load
/// for a value of 8 bytes or more; a shorter one from two overlapping
/// loads (4 to 7 bytes) or three bytes (1 to 3), without a loop or a copy
/// of a length known only at run time (a `memcpy` call per value, which
/// cost more than the comparisons it saves).
#[inline(always)]
fn prefix(v: &[u8]) -> u64 {
    if let Some(head) = v.first_chunk::<8>() {
        return u64::from_be_bytes(*head);
    }
    let n = v.len();
    if let (Some(first), Some(last)) = (v.first_chunk::<4>(), v.last_chunk::<4>()) {
        // Bytes `n - 4..n` in their place; those both loads hold agree.
        let (hi, lo) = (u32::from_be_bytes(*first), u32::from_be_bytes(*last));
        return u64::from(hi) << 32 | u64::from(lo) << (64 - 8 * n);
    }
    let byte = |i: usize| v.get(i).map_or(0, |&b| u64::from(b) << (56 - 8 * i));
    // The first, middle and last of 1 to 3 bytes (the same one twice or
    // thrice when shorter); none of an empty value.
    match n {
        0 => 0,
        _ => byte(0) | byte(n / 2) | byte(n - 1),
    }
}

/// Whether `a < b`, for values whose [`prefix`]es are equal. Past 8 bytes
/// each, only the rest decides; otherwise the shorter is a prefix of the
/// other (padding is zeros, and the prefixes agree), so it is the lesser:
/// runs of a few short values (flags, codes) compare without `memcmp`.
#[inline(always)]
fn less_after_prefix(a: &[u8], b: &[u8]) -> bool {
    match (a.get(8..), b.get(8..)) {
        (Some(a), Some(b)) => a < b,
        _ => a.len() < b.len(),
    }
}

/// Minimum and maximum of byte-array values of `T` under `sort`, NaN
/// (half floats) left out.
pub(crate) fn byte_bounds<'b, T: PhysicalType<Value = [u8]>>(
    sort: SortOrder,
    mut values: impl Iterator<Item = &'b [u8]>,
) -> Option<(&'b [u8], &'b [u8])> {
    if sort == SortOrder::Bytes {
        // Most comparisons are decided by the 8-byte prefixes.
        let first = values.next()?;
        let (mut lo, mut hi) = (first, first);
        let (mut plo, mut phi) = (prefix(first), prefix(first));
        for v in values {
            let p = prefix(v);
            if p < plo || (p == plo && less_after_prefix(v, lo)) {
                lo = v;
                plo = p;
            }
            if p > phi || (p == phi && less_after_prefix(hi, v)) {
                hi = v;
                phi = p;
            }
        }
        return Some((lo, hi));
    }
    let mut bounds: Option<(&[u8], &[u8])> = None;
    for v in values {
        if T::is_nan(sort, v) {
            continue;
        }
        bounds = Some(match bounds {
            None => (v, v),
            Some((lo, hi)) => (
                if T::compare(sort, v, lo).is_lt() {
                    v
                } else {
                    lo
                },
                if T::compare(sort, v, hi).is_gt() {
                    v
                } else {
                    hi
                },
            ),
        });
    }
    bounds
}

/// Truncates a lower bound to at most `len` bytes (at a UTF-8 character
/// boundary when the value is UTF-8). Returns whether it changed.
pub(crate) fn truncate_min(v: &mut Vec<u8>, len: usize) -> bool {
    if v.len() <= len {
        return false;
    }
    let mut cut = len;
    if std::str::from_utf8(v).is_ok() {
        while cut > 0 && (v[cut] & 0xc0) == 0x80 {
            cut -= 1;
        }
    }
    if cut == 0 {
        return false;
    }
    v.truncate(cut);
    true
}

/// Truncates an upper bound to at most `len` bytes and increments it so it
/// stays an upper bound; leaves it whole when that is impossible.
pub(crate) fn truncate_max(v: &mut Vec<u8>, len: usize) -> bool {
    if v.len() <= len {
        return false;
    }
    if let Ok(s) = std::str::from_utf8(v) {
        // Cut at a character boundary, then increment the last character
        // that can be incremented.
        let mut chars: Vec<char> = Vec::new();
        let mut used = 0;
        for c in s.chars() {
            if used + c.len_utf8() > len {
                break;
            }
            used += c.len_utf8();
            chars.push(c);
        }
        while let Some(c) = chars.pop() {
            let mut next = c as u32 + 1;
            if (0xD800..0xE000).contains(&next) {
                next = 0xE000;
            }
            if let Some(n) = char::from_u32(next) {
                let mut out: String = chars.iter().collect();
                out.push(n);
                if out.len() <= len {
                    *v = out.into_bytes();
                    return true;
                }
            }
        }
        return false;
    }
    let mut t = v[..len].to_vec();
    while let Some(last) = t.pop() {
        if last < 0xff {
            t.push(last + 1);
            *v = t;
            return true;
        }
    }
    false
}

/// Truncates binary bounds to `len` bytes when their order is that of
/// bytes (a shorter prefix of a decimal or a half float is another number).
/// Returns whether each stayed exact.
pub(crate) fn truncate_bounds(
    bounds: &mut (Vec<u8>, Vec<u8>),
    sort: SortOrder,
    len: Option<usize>,
) -> (bool, bool) {
    match (len, sort) {
        (Some(n), SortOrder::Bytes) => (
            !truncate_min(&mut bounds.0, n),
            !truncate_max(&mut bounds.1, n),
        ),
        _ => (true, true),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::physical::{ByteArray, Double, FixedLenByteArray, Int32};
    use proptest::strategy::Just;

    #[test]
    fn truncation() {
        let mut v = b"abcdef".to_vec();
        assert!(truncate_max(&mut v, 3));
        assert_eq!(v, b"abd");
        let mut v = vec![0xffu8, 0xff, 0xfe, 0xff, 0xff];
        assert!(truncate_max(&mut v, 4));
        assert_eq!(v, [0xff, 0xff, 0xff]);
        let mut v = "aé€x".as_bytes().to_vec();
        assert!(truncate_min(&mut v, 4));
        assert_eq!(v, "aé".as_bytes());
        // Decimals are not cut: a prefix is another number.
        let mut b = (vec![1, 2, 3, 4], vec![5, 6, 7, 8]);
        assert_eq!(
            truncate_bounds(&mut b, SortOrder::SignedBytes, Some(2)),
            (true, true)
        );
        assert_eq!(b.0.len(), 4);
    }

    #[test]
    fn slice_bounds() {
        assert_eq!(i32::bounds(&[3, -1, 2], SortOrder::Signed), Some((-1, 3)));
        assert_eq!(i32::bounds(&[3, -1, 2], SortOrder::Unsigned), Some((2, -1)));
        assert_eq!(i64::bounds(&[], SortOrder::Signed), None);
        assert_eq!(
            f64::bounds(&[f64::NAN, 2.0, -1.0], SortOrder::Float),
            Some((-1.0, 2.0))
        );
        assert_eq!(f32::bounds(&[f32::NAN], SortOrder::Float), None);
        assert_eq!(
            bool::bounds(&[true, true], SortOrder::Signed),
            Some((true, true))
        );
        assert_eq!(
            bool::bounds(&[true, false], SortOrder::Signed),
            Some((false, true))
        );
    }

    #[test]
    fn bounds_merge_and_encode() {
        let mut page = Bounds::<Int32>::default();
        page.update(SortOrder::Signed, &5, &9);
        page.update(SortOrder::Signed, &-2, &7);
        let mut chunk = Bounds::<Int32>::default();
        chunk.update(SortOrder::Signed, &0, &100);
        chunk.merge(SortOrder::Signed, &page);
        let (lo, hi) = chunk.encoded(SortOrder::Signed).unwrap();
        assert_eq!(
            (lo, hi),
            (
                (-2i32).to_le_bytes().to_vec(),
                100i32.to_le_bytes().to_vec()
            )
        );
        page.clear();
        assert!(page.encoded(SortOrder::Signed).is_none());
        let mut zeros = Bounds::<Double>::default();
        zeros.update(SortOrder::Float, &0.0, &-0.0);
        let (lo, hi) = zeros.encoded(SortOrder::Float).unwrap();
        assert_eq!(lo, (-0.0f64).to_le_bytes());
        assert_eq!(hi, 0.0f64.to_le_bytes());
        let mut interval = Bounds::<FixedLenByteArray>::default();
        interval.update(SortOrder::Undefined, &[1], &[2]);
        assert!(interval.encoded(SortOrder::Undefined).is_none());
    }

    proptest::proptest! {
        /// A value's prefix is its first 8 bytes, zero-padded, big-endian,
        /// at every length.
        #[test]
        fn prefix_is_the_padded_head(v in proptest::collection::vec(proptest::num::u8::ANY, 0..12)) {
            let mut head = [0u8; 8];
            let n = v.len().min(8);
            head[..n].copy_from_slice(&v[..n]);
            proptest::prop_assert_eq!(prefix(&v), u64::from_be_bytes(head));
        }

        /// The bounds by prefixes are the least and greatest values by
        /// plain byte order: values short and long, sharing prefixes,
        /// with zero bytes where the padding is.
        #[test]
        fn byte_bounds_by_prefix_are_the_plain_min_and_max(
            parts in proptest::collection::vec(
                (
                    proptest::prop_oneof![
                        Just(&b""[..]), Just(&b"abcdefg"[..]), Just(&b"abcdefgh"[..]),
                        Just(&b"abcdefgh\0"[..]), Just(&b"b"[..]),
                    ],
                    proptest::collection::vec(proptest::prop_oneof![
                        Just(0u8), Just(1u8), Just(b'a'), Just(0xff),
                    ], 0..5),
                ),
                1..40,
            ),
        ) {
            // Shared heads, so that prefixes tie often, short of 8 bytes,
            // at 8 and past it.
            let values: Vec<Vec<u8>> = parts.iter().map(|(head, tail)| [*head, tail].concat()).collect();
            let want = (
                values.iter().min().unwrap().as_slice(),
                values.iter().max().unwrap().as_slice(),
            );
            let got = byte_bounds::<ByteArray>(SortOrder::Bytes, values.iter().map(|v| v.as_slice()));
            proptest::prop_assert_eq!(got, Some(want));
        }
    }

    #[test]
    fn bytes_bounds() {
        let values: [&[u8]; 4] = [b"pear", b"apple", b"apples", b"zz"];
        assert_eq!(
            byte_bounds::<ByteArray>(SortOrder::Bytes, values.into_iter()),
            Some((&b"apple"[..], &b"zz"[..]))
        );
        // Half floats: NaN (0x7e00) left out, -2.0 (0xc000) the least.
        let halves: [&[u8]; 3] = [&[0x00, 0x7e], &[0x00, 0x3c], &[0x00, 0xc0]];
        assert_eq!(
            byte_bounds::<FixedLenByteArray>(SortOrder::Float16, halves.into_iter()),
            Some((&[0x00, 0xc0][..], &[0x00, 0x3c][..]))
        );
    }
}
