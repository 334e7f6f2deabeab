//! Parquet's physical types as Rust types.
//!
//! Each of the eight physical types of the format is a zero-sized type
//! implementing [`PhysicalType`]: what one value is, how it is written
//! PLAIN, and how two values compare for statistics. Code that handles
//! values of every type is written once, generic over `T: PhysicalType`,
//! and a [`Type`] from a schema is turned into one of these types in one
//! `match` at the edge (the writer's is in `write/typed.rs`). The trait is
//! sealed: the format has exactly these types, and generic code may rely
//! on knowing all of them.

use std::borrow::{Borrow, Cow};
use std::cmp::Ordering;
use std::fmt::Debug;

use pq_format::Type;

use crate::write::SortOrder;

mod sealed {
    /// Only the types of this module are physical types.
    pub trait Sealed {}
}

/// A Parquet physical type (see the [module documentation](self)).
pub(crate) trait PhysicalType: sealed::Sealed + Debug + Send + Sync + 'static {
    /// The type's id in the metadata.
    const TYPE: Type;
    /// One value: a number, or the bytes of a byte array (without length).
    type Value: ?Sized + Debug + ToOwned<Owned = Self::Owned>;
    /// A value held on its own (a running minimum or maximum).
    type Owned: Borrow<Self::Value> + Clone + Default + Debug + Send;

    /// Compares two values under the column's sort order. NaN is never
    /// compared (see [`is_nan`](Self::is_nan)): it sorts as equal to
    /// anything, which keeps the running bound.
    fn compare(sort: SortOrder, a: &Self::Value, b: &Self::Value) -> Ordering;

    /// Whether `v` stays out of minimum and maximum (a NaN, of a float or
    /// of a half float in a FIXED_LEN_BYTE_ARRAY).
    fn is_nan(_sort: SortOrder, _v: &Self::Value) -> bool {
        false
    }

    /// Appends one value's PLAIN encoding without a length prefix: the form
    /// of statistics bounds.
    fn write_plain(v: &Self::Value, out: &mut Vec<u8>);

    /// One value from the form [`write_plain`](Self::write_plain) writes;
    /// `None` when the bytes do not hold one.
    fn read_plain(b: &[u8]) -> Option<Cow<'_, Self::Value>>;

    /// Gives zero bounds the signs the format asks of floats (a minimum of
    /// -0, a maximum of +0), since both zeros compare equal and either may
    /// have been seen first.
    fn fix_zero_signs(_sort: SortOrder, _min: &mut Self::Owned, _max: &mut Self::Owned) {}

    /// Compares two bounds written by [`write_plain`](Self::write_plain);
    /// bytes that hold no value compare as bytes.
    fn compare_plain(sort: SortOrder, a: &[u8], b: &[u8]) -> Ordering {
        match (Self::read_plain(a), Self::read_plain(b)) {
            (Some(x), Some(y)) => Self::compare(sort, &x, &y),
            _ => a.cmp(b),
        }
    }
}

/// BOOLEAN: one bit a value, `false < true`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Boolean;
/// INT32: signed, or unsigned under an unsigned logical type.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Int32;
/// INT64: signed, or unsigned under an unsigned logical type.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Int64;
/// INT96: legacy timestamps, 12 little-endian bytes; no defined order.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Int96;
/// FLOAT: IEEE 754 single.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Float;
/// DOUBLE: IEEE 754 double.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Double;
/// BYTE_ARRAY: bytes of any length.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ByteArray;
/// FIXED_LEN_BYTE_ARRAY: bytes of the width the schema gives.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct FixedLenByteArray;

impl sealed::Sealed for Boolean {}
impl sealed::Sealed for Int32 {}
impl sealed::Sealed for Int64 {}
impl sealed::Sealed for Int96 {}
impl sealed::Sealed for Float {}
impl sealed::Sealed for Double {}
impl sealed::Sealed for ByteArray {}
impl sealed::Sealed for FixedLenByteArray {}

/// `N` bytes from the front of `b`, if it has them.
fn array<const N: usize>(b: &[u8]) -> Option<[u8; N]> {
    b.get(..N)?.try_into().ok()
}

impl PhysicalType for Boolean {
    const TYPE: Type = Type::BOOLEAN;
    type Value = bool;
    type Owned = bool;

    fn compare(_: SortOrder, a: &bool, b: &bool) -> Ordering {
        a.cmp(b)
    }

    fn write_plain(v: &bool, out: &mut Vec<u8>) {
        out.push(*v as u8);
    }

    fn read_plain(b: &[u8]) -> Option<Cow<'_, bool>> {
        Some(Cow::Owned(*b.first()? != 0))
    }
}

/// INT32 and INT64: the same but for the width.
macro_rules! integer_type {
    ($name:ident, $ty:expr, $signed:ty, $unsigned:ty) => {
        impl PhysicalType for $name {
            const TYPE: Type = $ty;
            type Value = $signed;
            type Owned = $signed;

            fn compare(sort: SortOrder, a: &$signed, b: &$signed) -> Ordering {
                if sort == SortOrder::Unsigned {
                    (*a as $unsigned).cmp(&(*b as $unsigned))
                } else {
                    a.cmp(b)
                }
            }

            fn write_plain(v: &$signed, out: &mut Vec<u8>) {
                out.extend_from_slice(&v.to_le_bytes());
            }

            fn read_plain(b: &[u8]) -> Option<Cow<'_, $signed>> {
                Some(Cow::Owned(<$signed>::from_le_bytes(array(b)?)))
            }
        }
    };
}

integer_type!(Int32, Type::INT32, i32, u32);
integer_type!(Int64, Type::INT64, i64, u64);

/// FLOAT and DOUBLE: the same but for the width.
macro_rules! float_type {
    ($name:ident, $ty:expr, $float:ty) => {
        impl PhysicalType for $name {
            const TYPE: Type = $ty;
            type Value = $float;
            type Owned = $float;

            fn compare(_: SortOrder, a: &$float, b: &$float) -> Ordering {
                a.partial_cmp(b).unwrap_or(Ordering::Equal)
            }

            fn is_nan(_: SortOrder, v: &$float) -> bool {
                v.is_nan()
            }

            fn write_plain(v: &$float, out: &mut Vec<u8>) {
                out.extend_from_slice(&v.to_le_bytes());
            }

            fn read_plain(b: &[u8]) -> Option<Cow<'_, $float>> {
                Some(Cow::Owned(<$float>::from_le_bytes(array(b)?)))
            }

            fn fix_zero_signs(_: SortOrder, min: &mut $float, max: &mut $float) {
                if *min == 0.0 {
                    *min = -0.0;
                }
                if *max == 0.0 {
                    *max = 0.0;
                }
            }
        }
    };
}

float_type!(Float, Type::FLOAT, f32);
float_type!(Double, Type::DOUBLE, f64);

impl PhysicalType for Int96 {
    const TYPE: Type = Type::INT96;
    type Value = [u8; 12];
    type Owned = [u8; 12];

    /// The format defines no order for INT96 (its sort order is
    /// undefined, so no statistics are written); bytes keep `compare`
    /// total.
    fn compare(_: SortOrder, a: &[u8; 12], b: &[u8; 12]) -> Ordering {
        a.cmp(b)
    }

    fn write_plain(v: &[u8; 12], out: &mut Vec<u8>) {
        out.extend_from_slice(v);
    }

    fn read_plain(b: &[u8]) -> Option<Cow<'_, [u8; 12]>> {
        Some(Cow::Owned(array(b)?))
    }
}

/// BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY: the same values and orders; only
/// their encodings differ.
macro_rules! bytes_type {
    ($name:ident, $ty:expr) => {
        impl PhysicalType for $name {
            const TYPE: Type = $ty;
            type Value = [u8];
            type Owned = Vec<u8>;

            fn compare(sort: SortOrder, a: &[u8], b: &[u8]) -> Ordering {
                compare_bytes(sort, a, b)
            }

            fn is_nan(sort: SortOrder, v: &[u8]) -> bool {
                sort == SortOrder::Float16 && half_of(v).is_some_and(f32::is_nan)
            }

            fn write_plain(v: &[u8], out: &mut Vec<u8>) {
                out.extend_from_slice(v);
            }

            fn read_plain(b: &[u8]) -> Option<Cow<'_, [u8]>> {
                Some(Cow::Borrowed(b))
            }

            fn fix_zero_signs(sort: SortOrder, min: &mut Vec<u8>, max: &mut Vec<u8>) {
                if sort != SortOrder::Float16 {
                    return;
                }
                if half_of(min) == Some(0.0) {
                    *min = vec![0x00, 0x80];
                }
                if half_of(max) == Some(0.0) {
                    *max = vec![0x00, 0x00];
                }
            }
        }
    };
}

bytes_type!(ByteArray, Type::BYTE_ARRAY);
bytes_type!(FixedLenByteArray, Type::FIXED_LEN_BYTE_ARRAY);

/// Byte arrays under their logical type's order: half floats by value,
/// decimals as big-endian two's complement, anything else as unsigned
/// bytes.
fn compare_bytes(sort: SortOrder, a: &[u8], b: &[u8]) -> Ordering {
    match sort {
        SortOrder::Float16 => match (half_of(a), half_of(b)) {
            (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
            _ => a.cmp(b),
        },
        SortOrder::SignedBytes => cmp_signed_be(a, b),
        _ => a.cmp(b),
    }
}

/// The half float in the first two (little-endian) bytes, as `f32`.
fn half_of(b: &[u8]) -> Option<f32> {
    Some(half_to_f32(u16::from_le_bytes(array(b)?)))
}

/// IEEE half to single, exactly.
pub(crate) fn half_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = if exp == 0 {
        if man == 0 {
            sign
        } else {
            // Subnormal: normalise.
            let mut e = 127 - 15 + 1;
            let mut m = man;
            while m & 0x400 == 0 {
                m <<= 1;
                e -= 1;
            }
            sign | ((e as u32) << 23) | ((m & 0x3ff) << 13)
        }
    } else if exp == 0x1f {
        sign | 0x7f80_0000 | (man << 13)
    } else {
        sign | ((exp + 127 - 15) << 23) | (man << 13)
    };
    f32::from_bits(bits)
}

/// Compares big-endian two's complement integers of any (equal or not) length.
fn cmp_signed_be(a: &[u8], b: &[u8]) -> Ordering {
    let neg = |x: &[u8]| x.first().is_some_and(|&v| v & 0x80 != 0);
    match (neg(a), neg(b)) {
        (true, false) => return Ordering::Less,
        (false, true) => return Ordering::Greater,
        _ => {}
    }
    let ext = if neg(a) { 0xff } else { 0 };
    let n = a.len().max(b.len());
    let at = |x: &[u8], i: usize| {
        let pad = n - x.len();
        if i < pad { ext } else { x[i - pad] }
    };
    for i in 0..n {
        match at(a, i).cmp(&at(b, i)) {
            Ordering::Equal => {}
            o => return o,
        }
    }
    Ordering::Equal
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn orders() {
        assert_eq!(cmp_signed_be(&[0xff], &[0x00, 0x01]), Ordering::Less);
        assert_eq!(
            cmp_signed_be(&[0x01, 0x00], &[0x00, 0xff]),
            Ordering::Greater
        );
        assert_eq!(half_to_f32(0x3c00), 1.0);
        assert_eq!(half_to_f32(0xc000), -2.0);
        assert_eq!(
            Int32::compare(SortOrder::Unsigned, &-1, &1),
            Ordering::Greater
        );
        assert_eq!(Int32::compare(SortOrder::Signed, &-1, &1), Ordering::Less);
        let one = 1.0f32.to_le_bytes();
        let two = 2.0f32.to_le_bytes();
        assert_eq!(
            Float::compare_plain(SortOrder::Float, &two, &one),
            Ordering::Greater
        );
        // Half floats: 1.0 (0x3c00) above -2.0 (0xc000), which is above as bytes.
        assert_eq!(
            FixedLenByteArray::compare(SortOrder::Float16, &[0x00, 0x3c], &[0x00, 0xc0]),
            Ordering::Greater
        );
        assert!(ByteArray::is_nan(SortOrder::Float16, &[0x01, 0x7e]));
        assert!(!ByteArray::is_nan(SortOrder::Bytes, &[0x01, 0x7e]));
    }

    #[test]
    fn zero_signs() {
        let (mut lo, mut hi) = (0.0f64, -0.0f64);
        Double::fix_zero_signs(SortOrder::Float, &mut lo, &mut hi);
        assert!(lo.is_sign_negative() && hi.is_sign_positive());
        let (mut lo, mut hi) = (vec![0x00, 0x00], vec![0x00, 0x80]);
        FixedLenByteArray::fix_zero_signs(SortOrder::Float16, &mut lo, &mut hi);
        assert_eq!((lo, hi), (vec![0x00, 0x80], vec![0x00, 0x00]));
    }
}
