//! Min/max statistics in the order the format defines for each type.

use std::cmp::Ordering;

use pq_format::Type;

use crate::write::schema::SortOrder;

/// How encoded bounds compare: the physical type and sort order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Order {
    pub physical: Type,
    pub sort: SortOrder,
}

fn f16_to_f32(b: &[u8]) -> f32 {
    let h = u16::from_le_bytes([b[0], b[1]]);
    half_to_f32(h)
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

impl Order {
    /// Compares two encoded (PLAIN, without length) non-NaN values.
    pub(crate) fn cmp(&self, a: &[u8], b: &[u8]) -> Ordering {
        fn arr<const N: usize>(x: &[u8]) -> [u8; N] {
            let mut o = [0u8; N];
            let n = x.len().min(N);
            o[..n].copy_from_slice(&x[..n]);
            o
        }
        match (self.physical, self.sort) {
            (Type::BOOLEAN, _) => a.cmp(b),
            (Type::INT32, SortOrder::Unsigned) => {
                u32::from_le_bytes(arr(a)).cmp(&u32::from_le_bytes(arr(b)))
            }
            (Type::INT32, _) => i32::from_le_bytes(arr(a)).cmp(&i32::from_le_bytes(arr(b))),
            (Type::INT64, SortOrder::Unsigned) => {
                u64::from_le_bytes(arr(a)).cmp(&u64::from_le_bytes(arr(b)))
            }
            (Type::INT64, _) => i64::from_le_bytes(arr(a)).cmp(&i64::from_le_bytes(arr(b))),
            (Type::FLOAT, _) => f32::from_le_bytes(arr(a))
                .partial_cmp(&f32::from_le_bytes(arr(b)))
                .unwrap_or(Ordering::Equal),
            (Type::DOUBLE, _) => f64::from_le_bytes(arr(a))
                .partial_cmp(&f64::from_le_bytes(arr(b)))
                .unwrap_or(Ordering::Equal),
            (_, SortOrder::Float16) => f16_to_f32(a)
                .partial_cmp(&f16_to_f32(b))
                .unwrap_or(Ordering::Equal),
            (_, SortOrder::SignedBytes) => cmp_signed_be(a, b),
            _ => a.cmp(b),
        }
    }
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

/// Running min, max and null count.
#[derive(Debug, Clone, Default)]
pub(crate) struct Stats {
    pub null_count: u64,
    /// Non-null values seen (NaN included).
    pub values: u64,
    pub has_bounds: bool,
    pub min: Vec<u8>,
    pub max: Vec<u8>,
}

impl Stats {
    pub(crate) fn clear(&mut self) {
        self.null_count = 0;
        self.values = 0;
        self.has_bounds = false;
        self.min.clear();
        self.max.clear();
    }

    /// Merges bounds of some values.
    pub(crate) fn update(&mut self, order: &Order, min: &[u8], max: &[u8]) {
        if !self.has_bounds {
            self.has_bounds = true;
            self.min.clear();
            self.min.extend_from_slice(min);
            self.max.clear();
            self.max.extend_from_slice(max);
            return;
        }
        if order.cmp(min, &self.min) == Ordering::Less {
            self.min.clear();
            self.min.extend_from_slice(min);
        }
        if order.cmp(max, &self.max) == Ordering::Greater {
            self.max.clear();
            self.max.extend_from_slice(max);
        }
    }

    /// Merges another accumulator.
    pub(crate) fn merge(&mut self, order: &Order, other: &Stats) {
        self.null_count += other.null_count;
        self.values += other.values;
        if other.has_bounds {
            self.update(order, &other.min, &other.max);
        }
    }

    /// The bounds to write: zero signs fixed for floats (min -0, max +0).
    pub(crate) fn bounds(&self, order: &Order) -> Option<(Vec<u8>, Vec<u8>)> {
        if !self.has_bounds || order.sort == SortOrder::Undefined {
            return None;
        }
        let (mut min, mut max) = (self.min.clone(), self.max.clone());
        match (order.physical, order.sort) {
            (Type::FLOAT, _) => {
                if f32::from_le_bytes(fix(&min)) == 0.0 {
                    min = (-0.0f32).to_le_bytes().to_vec();
                }
                if f32::from_le_bytes(fix(&max)) == 0.0 {
                    max = 0.0f32.to_le_bytes().to_vec();
                }
            }
            (Type::DOUBLE, _) => {
                if f64::from_le_bytes(fix(&min)) == 0.0 {
                    min = (-0.0f64).to_le_bytes().to_vec();
                }
                if f64::from_le_bytes(fix(&max)) == 0.0 {
                    max = 0.0f64.to_le_bytes().to_vec();
                }
            }
            (_, SortOrder::Float16) => {
                if f16_to_f32(&min) == 0.0 {
                    min = vec![0x00, 0x80];
                }
                if f16_to_f32(&max) == 0.0 {
                    max = vec![0x00, 0x00];
                }
            }
            _ => {}
        }
        Some((min, max))
    }
}

fn fix<const N: usize>(x: &[u8]) -> [u8; N] {
    let mut o = [0u8; N];
    let n = x.len().min(N);
    o[..n].copy_from_slice(&x[..n]);
    o
}

/// Min and max of integers as `i32`/`i64` under the sort order.
pub(crate) fn minmax_i32(v: &[i32], unsigned: bool) -> Option<(i32, i32)> {
    let first = *v.first()?;
    if unsigned {
        let (mut lo, mut hi) = (first as u32, first as u32);
        for &x in v {
            let x = x as u32;
            lo = lo.min(x);
            hi = hi.max(x);
        }
        Some((lo as i32, hi as i32))
    } else {
        let (mut lo, mut hi) = (first, first);
        for &x in v {
            lo = lo.min(x);
            hi = hi.max(x);
        }
        Some((lo, hi))
    }
}

/// See [`minmax_i32`].
pub(crate) fn minmax_i64(v: &[i64], unsigned: bool) -> Option<(i64, i64)> {
    let first = *v.first()?;
    if unsigned {
        let (mut lo, mut hi) = (first as u64, first as u64);
        for &x in v {
            let x = x as u64;
            lo = lo.min(x);
            hi = hi.max(x);
        }
        Some((lo as i64, hi as i64))
    } else {
        let (mut lo, mut hi) = (first, first);
        for &x in v {
            lo = lo.min(x);
            hi = hi.max(x);
        }
        Some((lo, hi))
    }
}

/// Min and max of floats, NaN skipped; `None` when all are NaN.
pub(crate) fn minmax_f64(v: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let mut out: Option<(f64, f64)> = None;
    for x in v {
        if x.is_nan() {
            continue;
        }
        out = Some(match out {
            None => (x, x),
            Some((lo, hi)) => (if x < lo { x } else { lo }, if x > hi { x } else { hi }),
        });
    }
    out
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
        let mut v = b"abcdef".to_vec();
        assert!(truncate_max(&mut v, 3));
        assert_eq!(v, b"abd");
        let mut v = vec![0xffu8, 0xff, 0xfe, 0xff, 0xff];
        assert!(truncate_max(&mut v, 4));
        assert_eq!(v, [0xff, 0xff, 0xff]);
        let mut v = "aé€x".as_bytes().to_vec();
        assert!(truncate_min(&mut v, 4));
        assert_eq!(v, "aé".as_bytes());
    }
}
