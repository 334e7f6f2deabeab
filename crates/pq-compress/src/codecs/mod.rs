//! One module per codec: a decoder that sizes its output from what the input
//! can produce, and an appending encoder.
//!
//! Decoders receive the caller's cleared output `Vec` and the declared size,
//! and allocate in one of two ways:
//!
//! - **Bounded by the format** (SNAPPY, LZ4, LZ4_RAW, GZIP): the format caps
//!   how many output bytes one input byte can produce, so a declared size
//!   above `input.len() * ratio` is rejected with [`Fail::Unreachable`]
//!   before anything is allocated. Each module's `max_output` derives its
//!   ratio. SNAPPY and the LZ4 block decoders then write into one slice of
//!   the declared size ([`full`]), which the input justifies.
//! - **Growing** (ZSTD, BROTLI, and GZIP too, whose 1032:1 bound is loose):
//!   streaming decoders write into `out`, which starts at [`start_len`]
//!   bytes and doubles ([`grow`]) up to the declared size, never past it. The
//!   output therefore never exceeds twice what the stream really produced
//!   (and never the declared size), whatever a header claims.
//!
//! Either way a buffer whose capacity already covers the declared size (a
//! reused `out`, once warm) is used as is: no allocation per page.

use crate::decompress::Fail;

#[cfg(feature = "brotli")]
pub(crate) mod brotli;
#[cfg(feature = "gzip")]
pub(crate) mod gzip;
#[cfg(feature = "lz4")]
pub(crate) mod lz4;
#[cfg(feature = "snappy")]
pub(crate) mod snappy;
#[cfg(feature = "zstd")]
pub(crate) mod zstd;

/// Smallest first output buffer of a growing decoder: small next to a page
/// (writers aim for about 1 MiB), large enough that small pages need no
/// second step.
#[allow(dead_code)] // unused when every growing codec is disabled
pub(crate) const MIN_START: usize = 64 << 10;

/// First output buffer of a growing decoder, as a multiple of the input:
/// typical page compression ratios are 2 to 4, so most pages decode without
/// growing.
#[allow(dead_code)]
pub(crate) const START_RATIO: usize = 4;

/// Length of the first output buffer of a growing decoder:
/// `min(declared, max(64 KiB, 4 * input_len, capacity))` where `capacity` is
/// that of the caller's buffer: capacity already held costs nothing, so a
/// warm buffer is used whole.
#[allow(dead_code)]
pub(crate) fn start_len(capacity: usize, input_len: usize, declared: usize) -> usize {
    declared.min(
        MIN_START
            .max(input_len.saturating_mul(START_RATIO))
            .max(capacity),
    )
}

/// Sets the length of `out` to `len`, allocating exactly `len` bytes if its
/// capacity is short. Bytes `out` already holds (the previous page's, when
/// the caller reuses its buffer) are kept rather than zero-filled again: the
/// decoders overwrite the output, and only a decode that wrote all of it is
/// returned.
#[allow(dead_code)]
pub(crate) fn set_len(out: &mut Vec<u8>, len: usize) {
    if len <= out.len() {
        out.truncate(len);
        return;
    }
    if len > out.capacity() {
        out.reserve_exact(len - out.len());
    }
    out.resize(len, 0);
}

/// The whole declared size as one slice, for decoders that need it and whose
/// format bounds the expansion; call only after checking that bound.
#[allow(dead_code)]
pub(crate) fn full(out: &mut Vec<u8>, declared: usize) -> &mut [u8] {
    set_len(out, declared);
    &mut out[..]
}

/// Doubles the length of `out` (at least to [`MIN_START`]), never past
/// `declared`. Returns `false` if `out` already holds `declared` bytes.
#[allow(dead_code)]
pub(crate) fn grow(out: &mut Vec<u8>, declared: usize) -> bool {
    let len = out.len();
    if len >= declared {
        return false;
    }
    let new_len = declared.min(len.saturating_mul(2).max(MIN_START));
    if new_len > out.capacity() {
        out.reserve_exact(new_len - len);
    }
    out.resize(new_len, 0);
    true
}

/// Rejects a declared size above what the format can produce from the input.
#[allow(dead_code)]
pub(crate) fn check_bound(declared: usize, max: usize) -> Result<(), Fail> {
    if declared > max {
        Err(Fail::Unreachable { max })
    } else {
        Ok(())
    }
}

/// Decodes `reader` into `out`, starting at `start` bytes and growing up to
/// `declared`, then probes for one more byte: a stream with more output than
/// `declared` gives [`Fail::TooLarge`]. Returns the bytes decoded (the
/// length of `out` may be larger).
#[cfg(feature = "gzip")]
pub(crate) fn read_growing<R: std::io::Read>(
    mut reader: R,
    out: &mut Vec<u8>,
    start: usize,
    declared: usize,
) -> Result<usize, Fail> {
    use std::io::ErrorKind;

    set_len(out, start);
    let mut n = 0;
    loop {
        if n == out.len() && !grow(out, declared) {
            return probe_end(reader, n);
        }
        match reader.read(&mut out[n..]) {
            Ok(0) => return Ok(n),
            Ok(k) => n += k,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(Fail::Corrupt(e.to_string())),
        }
    }
}

/// Fills `dst` from `reader`, then probes for one more byte: a stream with
/// more output than `dst` holds gives [`Fail::TooLarge`]. Never reads into
/// anything but `dst` and a one-byte probe.
#[cfg(feature = "lz4")]
pub(crate) fn read_bounded<R: std::io::Read>(mut reader: R, dst: &mut [u8]) -> Result<usize, Fail> {
    use std::io::ErrorKind;

    let mut n = 0;
    while n < dst.len() {
        match reader.read(&mut dst[n..]) {
            Ok(0) => return Ok(n),
            Ok(k) => n += k,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(Fail::Corrupt(e.to_string())),
        }
    }
    probe_end(reader, n)
}

/// After `n` bytes filled the output: `Ok(n)` if the stream ends here,
/// [`Fail::TooLarge`] if it has another byte.
#[cfg(any(feature = "gzip", feature = "lz4"))]
fn probe_end<R: std::io::Read>(mut reader: R, n: usize) -> Result<usize, Fail> {
    use std::io::ErrorKind;

    let mut probe = [0u8; 1];
    loop {
        match reader.read(&mut probe) {
            Ok(0) => return Ok(n),
            Ok(_) => return Err(Fail::TooLarge(None)),
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(Fail::Corrupt(e.to_string())),
        }
    }
}

/// Appends what a block compressor writes into a slice of `bound` bytes
/// (its worst case for the input), returning how many it wrote; on error
/// `out` is left as it was and the compressor's message names `codec`.
#[allow(dead_code)] // unused when every block codec is disabled
pub(crate) fn compress_block(
    out: &mut Vec<u8>,
    bound: usize,
    codec: crate::Codec,
    compress: impl FnOnce(&mut [u8]) -> Result<usize, String>,
) -> crate::Result<()> {
    let start = out.len();
    out.resize(start + bound, 0);
    match compress(&mut out[start..]) {
        Ok(n) => {
            out.truncate(start + n);
            Ok(())
        }
        Err(message) => {
            out.truncate(start);
            Err(crate::Error::Compress { codec, message })
        }
    }
}
