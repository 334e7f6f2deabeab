//! GZIP via `flate2` on the `zlib-rs` backend.
//!
//! Reads every member of a multi-member stream. Like parquet-cpp (which
//! inflates with automatic header detection), a zlib-wrapped stream is also
//! accepted.

use std::io::Write;

use flate2::bufread::{MultiGzDecoder, ZlibDecoder};

use super::{check_bound, read_growing, start_len};
use crate::decompress::Fail;

/// The most `input_len` bytes of gzip (or zlib) data can decompress to.
///
/// In deflate, one length/distance pair produces at most 258 bytes, and
/// takes at least 2 bits (a 1-bit length code and a 1-bit distance code in a
/// dynamic Huffman block); literals take at least 1 bit for 1 byte and stored
/// blocks produce less than they take. So 8 bits produce at most
/// `4 * 258 = 1032` bytes (the well-known 1032:1 limit), and block headers,
/// the gzip header and trailer (18 bytes a member) or zlib's (6 bytes) only
/// lower the ratio. Multi-member streams add up member by member.
pub(crate) fn max_output(input_len: usize) -> usize {
    input_len.saturating_mul(1032)
}

/// Decodes into `out`, growing it from [`start_len`] up to the declared
/// size: the 1032:1 bound is checked first, but a buffer of 1032 times a
/// large body is still much more than a corrupt one justifies.
pub(crate) fn decompress(input: &[u8], declared: usize, out: &mut Vec<u8>) -> Result<usize, Fail> {
    let is_gzip = input.starts_with(&[0x1f, 0x8b]);
    if !is_gzip && !is_zlib_header(input) {
        return Err(Fail::Corrupt(
            "not a gzip stream (missing the 1f 8b magic bytes)".to_string(),
        ));
    }
    check_bound(declared, max_output(input.len()))?;
    let start = start_len(out.capacity(), input.len(), declared);
    if is_gzip {
        read_growing(MultiGzDecoder::new(input), out, start, declared)
    } else {
        read_growing(ZlibDecoder::new(input), out, start, declared)
    }
}

/// RFC 1950: deflate method, window <= 32 KiB, header checksum.
fn is_zlib_header(input: &[u8]) -> bool {
    match input {
        [cmf, flg, ..] => {
            cmf & 0x0f == 8 && cmf >> 4 <= 7 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0
        }
        _ => false,
    }
}

pub(crate) fn compress(input: &[u8], out: &mut Vec<u8>, level: u32) -> crate::Result<()> {
    let start = out.len();
    let mut enc = flate2::write::GzEncoder::new(out, flate2::Compression::new(level));
    let result = enc.write_all(input).and_then(|()| enc.try_finish());
    let out = enc.get_mut();
    result.map_err(|e| {
        out.truncate(start);
        crate::Error::Compress {
            codec: crate::Codec::Gzip,
            message: e.to_string(),
        }
    })
}
