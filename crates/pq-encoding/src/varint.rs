//! ULEB128 varints and zigzag mapping, as used by RLE headers and the
//! DELTA encodings.

use crate::error::{Error, Result, eof};

/// Reads a ULEB128 value of at most 64 bits from `data` at `*pos`,
/// advancing `*pos` past it.
///
/// ```
/// let mut pos = 0;
/// assert_eq!(pq_encoding::varint::read_uleb128(&[0xE5, 0x8E, 0x26], &mut pos).unwrap(), 624485);
/// assert_eq!(pos, 3);
/// ```
#[inline]
pub fn read_uleb128(data: &[u8], pos: &mut usize) -> Result<u64> {
    let mut result = 0u64;
    let mut shift = 0u32;
    let mut p = *pos;
    loop {
        let Some(&byte) = data.get(p) else {
            return Err(eof("ULEB128 varint", 1, 0));
        };
        p += 1;
        if shift == 63 && byte > 1 {
            return Err(Error::VarintOverflow { max_bytes: 10 });
        }
        result |= u64::from(byte & 0x7F) << shift;
        if byte & 0x80 == 0 {
            *pos = p;
            return Ok(result);
        }
        shift += 7;
        if shift > 63 {
            return Err(Error::VarintOverflow { max_bytes: 10 });
        }
    }
}

/// Reads a zigzag ULEB128 signed value.
#[inline]
pub fn read_zigzag(data: &[u8], pos: &mut usize) -> Result<i64> {
    read_uleb128(data, pos).map(zigzag_decode)
}

/// Appends `v` as ULEB128.
///
/// ```
/// let mut out = Vec::new();
/// pq_encoding::varint::write_uleb128(&mut out, 624485);
/// assert_eq!(out, [0xE5, 0x8E, 0x26]);
/// ```
#[inline]
pub fn write_uleb128(out: &mut alloc::vec::Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends `v` zigzag-mapped then as ULEB128.
#[inline]
pub fn write_zigzag(out: &mut alloc::vec::Vec<u8>, v: i64) {
    write_uleb128(out, zigzag_encode(v));
}

/// Maps signed to unsigned so small magnitudes give small numbers:
/// 0, -1, 1, -2, ... become 0, 1, 2, 3, ...
#[inline]
pub const fn zigzag_encode(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Inverse of [`zigzag_encode`].
#[inline]
pub const fn zigzag_decode(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn zigzag_small() {
        let pairs = [
            (0i64, 0u64),
            (-1, 1),
            (1, 2),
            (-2, 3),
            (i64::MAX, u64::MAX - 1),
            (i64::MIN, u64::MAX),
        ];
        for (s, u) in pairs {
            assert_eq!(zigzag_encode(s), u);
            assert_eq!(zigzag_decode(u), s);
        }
    }

    #[test]
    fn uleb_round_trip_and_errors() {
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            let mut out = Vec::new();
            write_uleb128(&mut out, v);
            let mut pos = 0;
            assert_eq!(read_uleb128(&out, &mut pos).unwrap(), v);
            assert_eq!(pos, out.len());
        }
        let mut pos = 0;
        assert!(read_uleb128(&[0x80, 0x80], &mut pos).is_err());
        assert!(read_uleb128(&[0xFF; 11], &mut pos).is_err());
        assert!(
            read_uleb128(
                &[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02],
                &mut pos
            )
            .is_err()
        );
    }
}
