//! Every Parquet compression codec behind one bounded API.
//!
//! This layer turns compressed page bodies into bytes of a declared size and
//! back. It knows nothing of Thrift, pages, encodings or Arrow: callers pass
//! the codec and the sizes they read from the metadata.
//!
//! # Use
//!
//! ```
//! use pq_compress::{compress, Codec, Decompressor, Limits};
//!
//! // Upper layers map the Thrift `CompressionCodec` value.
//! let codec = Codec::from_thrift(6)?; // ZSTD
//! # if !codec.is_available() { return Ok(()); }
//!
//! let page = b"a page of values, a page of values".repeat(100);
//! let mut body = Vec::new();
//! compress(codec, &page, &mut body, None)?;
//!
//! // One Decompressor and one output buffer per column reader.
//! let mut dec = Decompressor::new(Limits::default());
//! let mut out = Vec::new();
//! dec.decompress(codec, &body, page.len(), &mut out)?;
//! assert_eq!(out, page);
//! # Ok::<(), pq_compress::Error>(())
//! ```
//!
//! # Guarantees
//!
//! - Decompression produces exactly the declared size or fails with an error
//!   naming both sizes ([`Error::SizeMismatch`], [`Error::SizeUnreachable`])
//!   or the declared size ([`Error::OutputTooLarge`]).
//! - Decompression allocates at most min(declared size, what the input can
//!   produce) plus the codec's fixed working memory, so a header that
//!   declares 2 GiB over a 100-byte body allocates nothing near 2 GiB:
//!   - SNAPPY, LZ4_RAW, LZ4 and GZIP formats cap the expansion ratio
//!     (SNAPPY 64:3, from copies of 64 bytes in 3; LZ4 255:1, from match
//!     length bytes of 255; deflate 1032:1, from 258-byte matches in 2 bits).
//!     A declared size above `body length * ratio` is rejected with
//!     [`Error::SizeUnreachable`] before allocating, and a SNAPPY block
//!     whose own length header disagrees with the declared size fails with
//!     [`Error::SizeMismatch`] before allocating. SNAPPY and the LZ4 codecs
//!     then decode into one buffer of the declared size.
//!   - GZIP, ZSTD and BROTLI decode with streaming decoders into a buffer
//!     that starts at min(declared, max(64 KiB, 4 x body length)) and
//!     doubles as the stream fills it, up to the declared size and never
//!     past it; it never exceeds twice what the stream really produced. A
//!     ZSTD frame header announcing a content size other than the declared
//!     size fails with [`Error::SizeMismatch`] before allocating.
//!   - Capacity the output buffer already has is used first: with a reused
//!     buffer, pages no larger than an earlier one allocate no output.
//!   - Fixed working memory: gzip's 32 KiB window; brotli's ring buffer (the
//!     stream's window, at most 16 MiB) and tables; the LZ4 frame decoder's
//!     block buffers (at most 2 x 4 MiB); libzstd's context and, only when
//!     the output has to grow, its window buffer (at most the frame's window,
//!     limited to 128 MiB, and at most the announced content size).
//! - The output never grows past the declared size: a stream that would
//!   produce more stops there with [`Error::OutputTooLarge`] (or
//!   [`Error::SizeMismatch`] when the format announces its size).
//! - A declared size above [`Limits::max_uncompressed_size`] (default
//!   [`Limits::DEFAULT_MAX_UNCOMPRESSED_SIZE`], 1 GiB) is rejected before
//!   allocating. Raising it (to `i32::MAX`, what a page header can declare)
//!   is safe: the limit caps the output of genuine bombs, not of lying
//!   headers, which the rules above already stop.
//! - An empty body with a declared size of zero never reaches a codec.
//! - No input panics; the library has no `unwrap`/`expect`.
//!
//! # Codecs
//!
//! | codec | Thrift | crate / feature | notes |
//! |---|---|---|---|
//! | UNCOMPRESSED | 0 | | body length must equal the declared size |
//! | SNAPPY | 1 | `snap` / `snappy` | raw blocks; the length header is checked before decoding |
//! | GZIP | 2 | `flate2` + `zlib-rs` / `gzip` | multi-member streams; zlib-wrapped data accepted as parquet-cpp does |
//! | LZO | 3 | | [`Error::Unsupported`] |
//! | BROTLI | 4 | `brotli` / `brotli` | |
//! | LZ4 | 5 | `lz4_flex` / `lz4` | deprecated: Hadoop framing, then raw block, then LZ4 frame on read; writes Hadoop framing |
//! | ZSTD | 6 | `zstd` (libzstd) / `zstd` | any number of frames |
//! | LZ4_RAW | 7 | `lz4_flex` / `lz4` | one raw block |
//!
//! A codec whose feature is disabled gives [`Error::FeatureDisabled`] naming
//! the feature to enable.
//!
//! ## LZ4 (deprecated) on write
//!
//! [`compress`] with [`Codec::Lz4`] writes a single Hadoop frame
//! (`[size: u32 BE][compressed size: u32 BE][raw block]`), the layout
//! parquet-mr and parquet-cpp write and every reader accepts. It exists for
//! compatibility with readers that predate LZ4_RAW; prefer [`Codec::Lz4Raw`].
//!
//! # Why these crates
//!
//! Measured with `cargo bench -p pq-compress --bench codecs` on ~1 MiB of
//! page-like data (PLAIN int64s, low-cardinality strings, random strings);
//! figures in `BENCHMARKS.md`.
//!
//! - **zstd: `zstd` (libzstd bindings) over `ruzstd`.** libzstd decoded
//!   3.3x faster than the pure-Rust `ruzstd` (289 vs 86 MiB/s), offers the
//!   single-shot `ZSTD_decompressDCtx` that writes into a caller slice and
//!   refuses to overflow it (no window buffer) for buffers already sized, a
//!   streaming decoder for buffers that must grow, and
//!   a compressor at every level (ruzstd compresses at few levels only).
//!   libzstd is the reference implementation, fuzzed continuously.
//! - **LZ4: `lz4_flex` over `lz4` (C).** Pure Rust with the `safe-decode`
//!   and `safe-encode` features (no `unsafe` in our path), block API taking
//!   the output slice, and decode speed on par with liblz4 (537 vs 490
//!   MiB/s in our run); no C toolchain needed.
//! - **Snappy: `snap`.** Pure Rust, the de facto Rust Snappy crate, block
//!   API with the length header readable up front and output-slice decode.
//! - **GZIP: `flate2` on `zlib-rs` over `miniz_oxide`.** `zlib-rs` is a
//!   pure-Rust port of zlib-ng's optimised inflate and inflated 1.27x faster
//!   than `miniz_oxide` (234 vs 185 MiB/s); `flate2` gives the multi-member gzip
//!   reader.
//! - **Brotli: `brotli`.** The pure-Rust port of Google's reference decoder
//!   (`brotli-decompressor`), whose stream API decodes into a caller slice.
//!   It is the slowest decoder here (69 MiB/s) and keeps a ring buffer of the
//!   stream's window (4 MiB at the default lgwin 22, 16 MiB at most) besides
//!   the output.
//!
//! # Features
//!
//! `snappy`, `gzip`, `zstd`, `brotli`, `lz4`: one per codec family, all on by
//! default.

mod codec;
mod codecs;
mod compress;
mod decompress;
mod error;

pub use codec::Codec;
pub use compress::compress;
pub use decompress::{Decompressor, decompress};
pub use error::{Error, Result};

/// Resource limits for decompression.
///
/// | limit | default | protects against |
/// |---|---|---|
/// | [`max_uncompressed_size`](Limits::max_uncompressed_size) | 1 GiB | a page that really decompresses to more than memory holds (a bomb); sizes a header declares without the bytes to back them are refused before this, whatever the limit |
///
/// Like `pq_format::Limits` and `pq_page::PageOptions`, each limit has a
/// getter, a `with_*` setter and a `DEFAULT_*` constant.
///
/// ```
/// use pq_compress::Limits;
///
/// let limits = Limits::default();
/// assert_eq!(limits.max_uncompressed_size(), 1 << 30);
/// let small = limits.with_max_uncompressed_size(64 << 20);
/// assert_eq!(small.max_uncompressed_size(), 64 << 20);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Limits {
    max_uncompressed_size: usize,
}

impl Limits {
    /// Default for [`Limits::max_uncompressed_size`]: 1 GiB, far above any
    /// sane page (writers aim for about 1 MiB) and below what a 32-bit
    /// `uncompressed_page_size` can claim.
    ///
    /// ```
    /// assert_eq!(pq_compress::Limits::DEFAULT_MAX_UNCOMPRESSED_SIZE, 1 << 30);
    /// ```
    pub const DEFAULT_MAX_UNCOMPRESSED_SIZE: usize = 1 << 30;

    /// Limits with the defaults.
    ///
    /// ```
    /// assert_eq!(pq_compress::Limits::new(), pq_compress::Limits::default());
    /// ```
    pub const fn new() -> Self {
        Limits {
            max_uncompressed_size: Self::DEFAULT_MAX_UNCOMPRESSED_SIZE,
        }
    }

    /// The largest declared uncompressed size accepted; larger ones are
    /// rejected with [`Error::SizeLimitExceeded`] before allocating.
    ///
    /// ```
    /// assert_eq!(pq_compress::Limits::new().max_uncompressed_size(), 1 << 30);
    /// ```
    pub const fn max_uncompressed_size(&self) -> usize {
        self.max_uncompressed_size
    }

    /// Returns these limits with the maximum declared uncompressed size set.
    ///
    /// ```
    /// use pq_compress::{decompress, Codec, Error, Limits};
    ///
    /// let limits = Limits::new().with_max_uncompressed_size(4);
    /// let err = decompress(Codec::Uncompressed, b"12345", 5, &mut Vec::new(), &limits)
    ///     .unwrap_err();
    /// assert!(matches!(err, Error::SizeLimitExceeded { declared: 5, limit: 4 }));
    /// ```
    pub const fn with_max_uncompressed_size(mut self, max: usize) -> Self {
        self.max_uncompressed_size = max;
        self
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::new()
    }
}
