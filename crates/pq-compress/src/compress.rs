//! Compression.

use crate::decompress::{feature_disabled, lzo_unsupported};
use crate::{Codec, Result};

/// Compresses `input` with `codec`, appending the result to `out`.
///
/// `level` is checked with [`Codec::check_level`] against
/// [`Codec::levels`]: GZIP 0..=9, BROTLI 0..=11, ZSTD as libzstd reports
/// (negative levels are the fast modes); `None` uses the codec's default.
/// Codecs without levels (UNCOMPRESSED, SNAPPY, LZ4, LZ4_RAW) reject
/// `Some(_)` with [`Error::LevelNotSupported`](crate::Error::LevelNotSupported).
///
/// LZ4 (deprecated) writes one Hadoop frame, `[size: u32 BE][compressed
/// size: u32 BE][raw LZ4 block]`, which parquet-mr, parquet-cpp, arrow-rs and
/// this crate all read; new files should use LZ4_RAW instead. LZO gives
/// [`Error::Unsupported`](crate::Error::Unsupported). On error `out` keeps
/// its previous contents.
///
/// ```
/// use pq_compress::{compress, decompress, Codec, Error, Limits};
///
/// # if !Codec::Brotli.is_available() { return Ok(()); }
/// let data = vec![7u8; 4096];
/// let mut out = b"header".to_vec();
/// compress(Codec::Brotli, &data, &mut out, Some(5))?;
/// assert!(out.starts_with(b"header") && out.len() < 100);
///
/// let mut back = Vec::new();
/// decompress(Codec::Brotli, &out[6..], data.len(), &mut back, &Limits::default())?;
/// assert_eq!(back, data);
///
/// let err = compress(Codec::Gzip, &data, &mut out, Some(12)).unwrap_err();
/// assert!(matches!(err, Error::InvalidLevel { level: 12, min: 0, max: 9, .. }));
/// # Ok::<(), Error>(())
/// ```
#[allow(unused_variables)] // codec arms compile out without features
pub fn compress(codec: Codec, input: &[u8], out: &mut Vec<u8>, level: Option<i32>) -> Result<()> {
    let level = codec.check_level(level)?;
    match codec {
        Codec::Uncompressed => {
            out.extend_from_slice(input);
            Ok(())
        }
        Codec::Lzo => Err(lzo_unsupported()),
        #[cfg(feature = "snappy")]
        Codec::Snappy => crate::codecs::snappy::compress(input, out),
        #[cfg(feature = "gzip")]
        Codec::Gzip => crate::codecs::gzip::compress(input, out, level.unsigned_abs()),
        #[cfg(feature = "brotli")]
        Codec::Brotli => crate::codecs::brotli::compress(input, out, level),
        #[cfg(feature = "zstd")]
        Codec::Zstd => crate::codecs::zstd::compress(input, out, level),
        #[cfg(feature = "lz4")]
        Codec::Lz4Raw => crate::codecs::lz4::compress_raw(input, out),
        #[cfg(feature = "lz4")]
        Codec::Lz4 => crate::codecs::lz4::compress_hadoop(input, out),
        #[allow(unreachable_patterns)]
        _ => Err(feature_disabled(codec)),
    }
}
