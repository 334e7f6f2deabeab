//! SNAPPY: raw Snappy blocks via `snap`.

use super::{check_bound, full};
use crate::decompress::Fail;

/// The most a raw Snappy block of `input_len` bytes can decompress to.
///
/// A block is a varint length header then elements. A literal produces one
/// byte per input byte and costs a tag byte on top. A copy produces at most
/// 11 bytes from 2 input bytes (copy-1: tag + 1 offset byte, length 4..=11)
/// or 64 bytes from 3 (copy-2: tag + 2 offset bytes, length 1..=64; copy-4
/// takes 5 bytes for the same 64). So no element yields more than 64/3
/// bytes per input byte, and with the header (at least one byte) and the
/// literal a block must start with (a copy needs earlier output), the best
/// block of n bytes, `[header][literal of 1][copy-2 of 64] * k`, yields
/// `1 + 64k` from `h + 2 + 3k` bytes: below `64 * n / 3`.
pub(crate) fn max_output(input_len: usize) -> usize {
    input_len.saturating_mul(64) / 3
}

pub(crate) fn decompress(input: &[u8], declared: usize, out: &mut Vec<u8>) -> Result<usize, Fail> {
    // The block starts with its decompressed length: check it, and that the
    // block can hold that much, before allocating.
    let len = snap::raw::decompress_len(input).map_err(|e| Fail::Corrupt(e.to_string()))?;
    if len != declared {
        return Err(Fail::Announced(len));
    }
    check_bound(declared, max_output(input.len()))?;
    snap::raw::Decoder::new()
        .decompress(input, full(out, declared))
        .map_err(|e| Fail::Corrupt(e.to_string()))
}

pub(crate) fn compress(input: &[u8], out: &mut Vec<u8>) -> crate::Result<()> {
    let max = snap::raw::max_compress_len(input.len());
    if max == 0 && !input.is_empty() {
        return Err(crate::Error::InputTooLarge {
            codec: crate::Codec::Snappy,
            len: input.len(),
            reason: "Snappy blocks hold at most 2^32 - 1 bytes",
        });
    }
    super::compress_block(out, max, crate::Codec::Snappy, |dst| {
        snap::raw::Encoder::new()
            .compress(input, dst)
            .map_err(|e| e.to_string())
    })
}
