//! Bounded decompression.

use crate::{Codec, Error, Limits, Result};

/// Why a codec-specific decoder failed, before the codec name is attached.
#[allow(dead_code)] // unused variants when every codec feature is disabled
pub(crate) enum Fail {
    /// The stream produces more than the output slice holds; the full size if
    /// the format announces it.
    TooLarge(Option<usize>),
    /// The format announces a size other than the declared one (checked
    /// before allocating).
    Announced(usize),
    /// The declared size is more than the input can produce: the format
    /// caps the output of this input at `max` bytes.
    Unreachable {
        /// The most the input can produce.
        max: usize,
    },
    /// Invalid or truncated data.
    Corrupt(String),
}

/// Decompresses page bodies, reusing decoder state across calls.
///
/// Holding one `Decompressor` per reader (it is `Send`, not `Sync`) saves the
/// allocation of the zstd decompression context (about 100 KiB) on every
/// page; together with a reused output `Vec`, decompressing a column chunk
/// then allocates nothing per page for SNAPPY, ZSTD, LZ4 and LZ4_RAW once
/// warm.
///
/// ```
/// use pq_compress::{compress, Codec, Decompressor, Limits};
///
/// # if !Codec::Zstd.is_available() { return Ok(()); }
/// let mut dec = Decompressor::new(Limits::default());
/// let mut page = Vec::new();
/// let mut out = Vec::new();
/// for text in [&b"first page"[..], b"second page"] {
///     page.clear();
///     compress(Codec::Zstd, text, &mut page, None)?;
///     dec.decompress(Codec::Zstd, &page, text.len(), &mut out)?;
///     assert_eq!(out, text);
/// }
/// # Ok::<(), pq_compress::Error>(())
/// ```
pub struct Decompressor {
    limits: Limits,
    #[cfg(feature = "zstd")]
    zstd: Option<zstd::zstd_safe::DCtx<'static>>,
}

impl std::fmt::Debug for Decompressor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decompressor")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Default for Decompressor {
    /// A decompressor with [`Limits::default`].
    fn default() -> Self {
        Decompressor::new(Limits::default())
    }
}

impl Decompressor {
    /// A decompressor enforcing `limits`. Allocates nothing until used.
    ///
    /// ```
    /// use pq_compress::{Decompressor, Limits};
    ///
    /// let dec = Decompressor::new(Limits::default().with_max_uncompressed_size(1 << 20));
    /// assert_eq!(dec.limits().max_uncompressed_size(), 1 << 20);
    /// ```
    pub fn new(limits: Limits) -> Self {
        Decompressor {
            limits,
            #[cfg(feature = "zstd")]
            zstd: None,
        }
    }

    /// The limits this decompressor enforces.
    ///
    /// ```
    /// use pq_compress::{Decompressor, Limits};
    ///
    /// assert_eq!(Decompressor::default().limits(), &Limits::default());
    /// ```
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Decompresses `input` into `out`, which must come to exactly
    /// `uncompressed_size` bytes.
    ///
    /// `out` is cleared first and, on success, holds exactly
    /// `uncompressed_size` bytes; its capacity is reused. On error its
    /// contents are unspecified (it is left empty where possible).
    ///
    /// Guarantees:
    /// - `uncompressed_size` above [`Limits::max_uncompressed_size`] is
    ///   rejected with [`Error::SizeLimitExceeded`] before allocating.
    /// - allocates at most min(`uncompressed_size`, what `input` can
    ///   produce) plus the codec's fixed working memory. Codecs whose format
    ///   caps the expansion ratio (SNAPPY 64:3, LZ4 and LZ4_RAW 255:1, GZIP
    ///   1032:1) reject a larger `uncompressed_size` with
    ///   [`Error::SizeUnreachable`] before allocating; a ZSTD frame or
    ///   SNAPPY block announcing another size fails with
    ///   [`Error::SizeMismatch`] before allocating; GZIP, ZSTD and BROTLI
    ///   grow `out` geometrically from min(`uncompressed_size`, max(64 KiB,
    ///   4 x `input.len()`)) as the stream fills it, so it never holds more
    ///   than twice what the stream produced. Capacity `out` already has is
    ///   used first. Working memory: gzip 32 KiB window, brotli at most a
    ///   16 MiB window plus tables, LZ4 frame at most 4 MiB blocks, libzstd
    ///   its context (plus, while growing, a window buffer of at most the
    ///   frame's window, 128 MiB at most).
    /// - the output buffer is never grown past `uncompressed_size`: a stream
    ///   that would produce more gives [`Error::OutputTooLarge`] (or
    ///   [`Error::SizeMismatch`] when the format announces its size) and a
    ///   shorter one gives [`Error::SizeMismatch`].
    /// - an empty `input` with `uncompressed_size == 0` returns `Ok` without
    ///   calling any codec (even for LZO or a codec whose feature is off).
    /// - no input makes it panic.
    ///
    /// ```
    /// use pq_compress::{compress, Codec, Decompressor, Error, Limits};
    ///
    /// # if !Codec::Snappy.is_available() { return Ok(()); }
    /// let mut dec = Decompressor::default();
    /// let mut page = Vec::new();
    /// compress(Codec::Snappy, b"hello hello hello", &mut page, None)?;
    ///
    /// let mut out = Vec::new();
    /// dec.decompress(Codec::Snappy, &page, 17, &mut out)?;
    /// assert_eq!(out, b"hello hello hello");
    ///
    /// // The declared size must be exact.
    /// let err = dec.decompress(Codec::Snappy, &page, 16, &mut out).unwrap_err();
    /// assert!(matches!(err, Error::SizeMismatch { declared: 16, actual: 17, .. }));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn decompress(
        &mut self,
        codec: Codec,
        input: &[u8],
        uncompressed_size: usize,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        // The worker writes over what `out` holds: its bytes are not cleared
        // up front but reused as the decoders' output space (see
        // `codecs::set_len`), so a failure must clear them here.
        let mut decompress_over = || -> Result<()> {
            let limit = self.limits.max_uncompressed_size();
            if uncompressed_size > limit {
                return Err(Error::SizeLimitExceeded {
                    declared: uncompressed_size,
                    limit,
                });
            }
            if input.is_empty() && uncompressed_size == 0 {
                out.clear();
                return Ok(());
            }
            match codec {
                Codec::Uncompressed => {
                    if input.len() != uncompressed_size {
                        return Err(Error::SizeMismatch {
                            codec,
                            declared: uncompressed_size,
                            actual: input.len(),
                        });
                    }
                    out.clear();
                    out.extend_from_slice(input);
                    return Ok(());
                }
                Codec::Lzo => return Err(lzo_unsupported()),
                _ => {}
            }
            if !codec.is_available() {
                return Err(feature_disabled(codec));
            }
            let result = self.decode(codec, input, uncompressed_size, out);
            let err = match result {
                Ok(n) if n == uncompressed_size && out.len() >= n => {
                    out.truncate(n);
                    return Ok(());
                }
                Ok(n) if n > uncompressed_size => Error::OutputTooLarge {
                    codec,
                    declared: uncompressed_size,
                },
                Ok(actual) => Error::SizeMismatch {
                    codec,
                    declared: uncompressed_size,
                    actual,
                },
                Err(Fail::TooLarge(Some(actual)) | Fail::Announced(actual)) => {
                    Error::SizeMismatch {
                        codec,
                        declared: uncompressed_size,
                        actual,
                    }
                }
                Err(Fail::TooLarge(None)) => Error::OutputTooLarge {
                    codec,
                    declared: uncompressed_size,
                },
                Err(Fail::Unreachable { max }) => Error::SizeUnreachable {
                    codec,
                    declared: uncompressed_size,
                    compressed: input.len(),
                    max,
                },
                Err(Fail::Corrupt(message)) => Error::Corrupt { codec, message },
            };
            Err(err)
        };
        let result = decompress_over();
        if result.is_err() {
            out.clear();
        }
        result
    }

    /// Runs the codec's decoder into the empty `out`, returning how many
    /// bytes it decoded; `out` then holds at least that many.
    // Every arm is compiled out without features, leaving `out` unused.
    #[allow(unused_variables, clippy::ptr_arg)]
    fn decode(
        &mut self,
        codec: Codec,
        input: &[u8],
        declared: usize,
        out: &mut Vec<u8>,
    ) -> Result<usize, Fail> {
        #[cfg(test)]
        tests::CODEC_CALLS.with(|c| c.set(c.get() + 1));
        match codec {
            #[cfg(feature = "snappy")]
            Codec::Snappy => crate::codecs::snappy::decompress(input, declared, out),
            #[cfg(feature = "gzip")]
            Codec::Gzip => crate::codecs::gzip::decompress(input, declared, out),
            #[cfg(feature = "brotli")]
            Codec::Brotli => crate::codecs::brotli::decompress(input, declared, out),
            #[cfg(feature = "zstd")]
            Codec::Zstd => {
                let dctx = self.zstd.get_or_insert_with(zstd::zstd_safe::DCtx::create);
                crate::codecs::zstd::decompress(dctx, input, declared, out)
            }
            #[cfg(feature = "lz4")]
            Codec::Lz4Raw => crate::codecs::lz4::decompress_raw_into(input, declared, out),
            #[cfg(feature = "lz4")]
            Codec::Lz4 => crate::codecs::lz4::decompress_hadoop_into(input, declared, out),
            // Handled by the caller; never reached.
            _ => Err(Fail::Corrupt(format!("{codec} is not available"))),
        }
    }
}

/// Decompresses `input` into `out`, which must come to exactly
/// `uncompressed_size` bytes; a one-shot [`Decompressor::decompress`].
///
/// Use a [`Decompressor`] to reuse decoder state across pages.
///
/// ```
/// use pq_compress::{compress, decompress, Codec, Limits};
///
/// # if !Codec::Gzip.is_available() { return Ok(()); }
/// let data = b"abcabcabcabcabcabc".repeat(10);
/// let mut page = Vec::new();
/// compress(Codec::Gzip, &data, &mut page, Some(9))?;
///
/// let mut out = Vec::new();
/// decompress(Codec::Gzip, &page, data.len(), &mut out, &Limits::default())?;
/// assert_eq!(out, data);
/// # Ok::<(), pq_compress::Error>(())
/// ```
pub fn decompress(
    codec: Codec,
    input: &[u8],
    uncompressed_size: usize,
    out: &mut Vec<u8>,
    limits: &Limits,
) -> Result<()> {
    Decompressor::new(*limits).decompress(codec, input, uncompressed_size, out)
}

pub(crate) fn lzo_unsupported() -> Error {
    Error::Unsupported {
        codec: Codec::Lzo,
        reason: "LZO is not supported; rewrite the file with ZSTD, SNAPPY or LZ4_RAW",
    }
}

pub(crate) fn feature_disabled(codec: Codec) -> Error {
    Error::FeatureDisabled {
        codec,
        feature: codec.cargo_feature().unwrap_or("?"),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        pub(crate) static CODEC_CALLS: Cell<usize> = const { Cell::new(0) };
    }

    #[test]
    fn zero_zero_never_calls_codec() {
        let mut dec = Decompressor::default();
        let mut out = vec![1, 2, 3];
        for codec in Codec::ALL {
            CODEC_CALLS.with(|c| c.set(0));
            dec.decompress(codec, &[], 0, &mut out).unwrap();
            assert!(out.is_empty());
            assert_eq!(CODEC_CALLS.with(Cell::get), 0, "{codec}");
        }
    }

    #[test]
    fn nonempty_body_with_zero_size_calls_codec() {
        let mut dec = Decompressor::default();
        let mut out = Vec::new();
        CODEC_CALLS.with(|c| c.set(0));
        let r = dec.decompress(Codec::Snappy, &[0], 0, &mut out);
        if cfg!(feature = "snappy") {
            r.unwrap();
            assert_eq!(CODEC_CALLS.with(Cell::get), 1);
        } else {
            assert!(matches!(r, Err(Error::FeatureDisabled { .. })));
        }
    }

    #[test]
    fn limit_checked_before_anything() {
        let mut dec = Decompressor::new(Limits::default().with_max_uncompressed_size(10));
        let mut out = Vec::new();
        for codec in Codec::ALL {
            CODEC_CALLS.with(|c| c.set(0));
            let err = dec.decompress(codec, b"x", 11, &mut out).unwrap_err();
            assert!(
                matches!(
                    err,
                    Error::SizeLimitExceeded {
                        declared: 11,
                        limit: 10
                    }
                ),
                "{err}"
            );
            assert_eq!(out.capacity(), 0);
            assert_eq!(CODEC_CALLS.with(Cell::get), 0);
        }
    }

    #[test]
    fn lzo_is_unsupported() {
        let err =
            decompress(Codec::Lzo, b"abc", 3, &mut Vec::new(), &Limits::default()).unwrap_err();
        assert!(err.to_string().contains("LZO is not supported"), "{err}");
    }

    #[test]
    fn disabled_features_name_the_feature() {
        for codec in Codec::ALL {
            if codec.is_available() || codec == Codec::Lzo {
                continue;
            }
            let err =
                decompress(codec, b"abc", 3, &mut Vec::new(), &Limits::default()).unwrap_err();
            let feature = codec.cargo_feature().unwrap();
            assert!(
                err.to_string()
                    .contains(&format!("`{feature}` cargo feature")),
                "{err}"
            );
        }
    }
}
