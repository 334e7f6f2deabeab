//! The crate's error type.

use crate::Codec;

/// What went wrong while compressing or decompressing.
///
/// Every message names the codec and, for size problems, both sizes.
///
/// ```
/// use pq_compress::{decompress, Codec, Error, Limits};
///
/// let mut out = Vec::new();
/// let err = decompress(Codec::Uncompressed, b"abc", 5, &mut out, &Limits::default())
///     .unwrap_err();
/// assert!(matches!(err, Error::SizeMismatch { declared: 5, actual: 3, .. }));
/// assert_eq!(
///     err.to_string(),
///     "UNCOMPRESSED data decompressed to 3 bytes but the declared size is 5 bytes"
/// );
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A Thrift `CompressionCodec` value this crate does not know.
    #[error("unknown compression codec {0} (Parquet defines 0 to 7)")]
    UnknownCodec(i32),

    /// The codec exists but this crate cannot handle it (LZO).
    #[error("{codec} is not supported: {reason}")]
    Unsupported {
        /// The codec.
        codec: Codec,
        /// Why, and what to do instead.
        reason: &'static str,
    },

    /// The codec's cargo feature was disabled at build time.
    #[error(
        "{codec} support is not compiled in: enable the `{feature}` cargo feature of pq-compress"
    )]
    FeatureDisabled {
        /// The codec.
        codec: Codec,
        /// The cargo feature to enable.
        feature: &'static str,
    },

    /// The declared uncompressed size is above [`Limits::max_uncompressed_size`](crate::Limits).
    /// Checked before anything is allocated.
    #[error("declared uncompressed size of {declared} bytes exceeds the limit of {limit} bytes")]
    SizeLimitExceeded {
        /// The declared uncompressed size.
        declared: usize,
        /// The configured maximum.
        limit: usize,
    },

    /// The data decompressed to a known size other than the declared one.
    #[error(
        "{codec} data decompressed to {actual} bytes but the declared size is {declared} bytes"
    )]
    SizeMismatch {
        /// The codec.
        codec: Codec,
        /// The declared uncompressed size.
        declared: usize,
        /// The size the data actually has (or announces).
        actual: usize,
    },

    /// The declared size is more than the compressed data can produce: the
    /// codec's format caps the expansion ratio (SNAPPY 64:3, LZ4 and LZ4_RAW
    /// 255:1, GZIP 1032:1), and `compressed` bytes decompress to at most
    /// `max`. Checked before anything is allocated.
    #[error(
        "{codec} data of {compressed} bytes decompresses to at most {max} bytes, \
         less than the declared size of {declared} bytes"
    )]
    SizeUnreachable {
        /// The codec.
        codec: Codec,
        /// The declared uncompressed size.
        declared: usize,
        /// The length of the compressed data.
        compressed: usize,
        /// The most the compressed data can decompress to.
        max: usize,
    },

    /// The data would decompress to more than the declared size; decoding
    /// stopped at the declared size, so the full size is not known.
    #[error("{codec} data decompresses to more than the declared size of {declared} bytes")]
    OutputTooLarge {
        /// The codec.
        codec: Codec,
        /// The declared uncompressed size.
        declared: usize,
    },

    /// The compressed data is invalid or truncated.
    #[error("corrupt {codec} data: {message}")]
    Corrupt {
        /// The codec.
        codec: Codec,
        /// The decoder's description of the problem.
        message: String,
    },

    /// The compression level is outside the codec's range.
    #[error("{codec} compression level {level} is outside the accepted range {min}..={max}")]
    InvalidLevel {
        /// The codec.
        codec: Codec,
        /// The level given.
        level: i32,
        /// The smallest accepted level.
        min: i32,
        /// The largest accepted level.
        max: i32,
    },

    /// A compression level was given for a codec that takes none.
    #[error("{codec} takes no compression level, but level {level} was given")]
    LevelNotSupported {
        /// The codec.
        codec: Codec,
        /// The level given.
        level: i32,
    },

    /// The input is too large for the codec's format to represent.
    #[error("{codec} cannot compress {len} bytes in one page: {reason}")]
    InputTooLarge {
        /// The codec.
        codec: Codec,
        /// The input length.
        len: usize,
        /// The codec's limit.
        reason: &'static str,
    },

    /// The compressor reported an error.
    #[error("{codec} compression failed: {message}")]
    Compress {
        /// The codec.
        codec: Codec,
        /// The compressor's description of the problem.
        message: String,
    },
}

/// `Result` with this crate's [`Error`].
///
/// ```
/// fn id(c: i32) -> pq_compress::Result<pq_compress::Codec> {
///     pq_compress::Codec::from_thrift(c)
/// }
/// assert!(id(0).is_ok());
/// ```
pub type Result<T, E = Error> = std::result::Result<T, E>;
