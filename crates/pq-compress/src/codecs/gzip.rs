//! GZIP via `flate2` on the `zlib-rs` backend.
//!
//! Reads every member of a multi-member stream. Like parquet-cpp (which
//! inflates with automatic header detection), a zlib-wrapped stream is also
//! accepted.

use std::io::Write;

use flate2::bufread::{MultiGzDecoder, ZlibDecoder};

use super::read_bounded;
use crate::decompress::Fail;

pub(crate) fn decompress(input: &[u8], dst: &mut [u8]) -> Result<usize, Fail> {
    if input.starts_with(&[0x1f, 0x8b]) {
        read_bounded(MultiGzDecoder::new(input), dst)
    } else if is_zlib_header(input) {
        read_bounded(ZlibDecoder::new(input), dst)
    } else {
        Err(Fail::Corrupt(
            "not a gzip stream (missing the 1f 8b magic bytes)".to_string(),
        ))
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
