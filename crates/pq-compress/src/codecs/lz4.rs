//! LZ4_RAW and the deprecated LZ4 codec via the pure-Rust `lz4_flex`.
//!
//! LZ4 (Thrift value 5) was never specified precisely, and writers disagree:
//! parquet-mr and current parquet-cpp write the Hadoop framing, a sequence of
//! `[decompressed size: u32 BE][compressed size: u32 BE][raw LZ4 block]`;
//! older parquet-cpp wrote one raw LZ4 block; some writers used the LZ4 frame
//! format. Like arrow-rs and parquet-cpp, the reader tries the Hadoop framing
//! first, then a raw block, then the LZ4 frame format, and accepts the first
//! that yields exactly the declared size.

use lz4_flex::block::DecompressError;

use super::{check_bound, full, read_bounded};
use crate::decompress::Fail;

/// Little-endian magic number of the LZ4 frame format.
const FRAME_MAGIC: [u8; 4] = [0x04, 0x22, 0x4d, 0x18];
/// Length of a Hadoop frame header.
const HADOOP_HEADER: usize = 8;

/// The most `input_len` bytes of LZ4 data can decompress to, whichever of
/// the three layouts they are in.
///
/// A raw LZ4 block is a run of sequences: a token byte (literal length and
/// match length nibbles), literal length extension bytes, the literals, a
/// 2-byte offset, match length extension bytes. Literals produce one byte per
/// input byte. A match is `4 + 15 + e_1 + ... + e_m` bytes long with `m`
/// extension bytes, each at most 255 (every one but the last exactly 255), so
/// the largest match from a sequence of `3 + m` bytes is `18 + 255 * m`
/// bytes, below `255 * (3 + m)`. Hence a block of n bytes yields less than
/// `255 * n`. Hadoop framing adds 8-byte headers around raw blocks, and the
/// LZ4 frame format holds raw blocks or stored ones (ratio 1) behind headers,
/// so both stay below `255 * n` as well.
pub(crate) fn max_output(input_len: usize) -> usize {
    input_len.saturating_mul(255)
}

/// LZ4_RAW: one raw block, into a buffer of the declared size once that size
/// passes [`max_output`].
pub(crate) fn decompress_raw_into(
    input: &[u8],
    declared: usize,
    out: &mut Vec<u8>,
) -> Result<usize, Fail> {
    check_bound(declared, max_output(input.len()))?;
    decompress_raw(input, full(out, declared))
}

/// LZ4 (deprecated): every layout, into a buffer of the declared size once
/// that size passes [`max_output`].
pub(crate) fn decompress_hadoop_into(
    input: &[u8],
    declared: usize,
    out: &mut Vec<u8>,
) -> Result<usize, Fail> {
    check_bound(declared, max_output(input.len()))?;
    decompress_hadoop(input, full(out, declared))
}

pub(crate) fn decompress_raw(input: &[u8], dst: &mut [u8]) -> Result<usize, Fail> {
    lz4_flex::block::decompress_into(input, dst).map_err(|e| match e {
        DecompressError::OutputTooSmall { .. } => Fail::TooLarge(None),
        other => Fail::Corrupt(other.to_string()),
    })
}

fn decompress_hadoop(input: &[u8], dst: &mut [u8]) -> Result<usize, Fail> {
    let full = dst.len();
    let framing = hadoop_framing(input);
    let hadoop = match framing {
        Some(total) => decompress_hadoop_frames(input, total, dst),
        None => Err(Fail::Corrupt("not Hadoop LZ4 framing".to_string())),
    };
    if matches!(hadoop, Ok(n) if n == full) {
        return hadoop;
    }
    let raw = decompress_raw(input, dst);
    if matches!(raw, Ok(n) if n == full) {
        return raw;
    }
    let is_frame = input.starts_with(&FRAME_MAGIC);
    if is_frame {
        let frame = read_bounded(lz4_flex::frame::FrameDecoder::new(input), dst);
        if matches!(frame, Ok(n) if n == full) || framing.is_none() {
            return frame;
        }
    }
    // Nothing fits: report the failure of the layout the data looks like.
    if framing.is_some() { hadoop } else { raw }
}

/// If `input` is a well-formed sequence of Hadoop frames covering it exactly,
/// the sum of their decompressed sizes (saturating).
fn hadoop_framing(input: &[u8]) -> Option<usize> {
    let mut rest = input;
    let mut total = 0usize;
    if rest.len() < HADOOP_HEADER {
        return None;
    }
    while !rest.is_empty() {
        let (decompressed, compressed) = read_header(rest)?;
        rest = rest.get(HADOOP_HEADER..)?.get(compressed..)?;
        total = total.saturating_add(decompressed);
    }
    Some(total)
}

fn read_header(input: &[u8]) -> Option<(usize, usize)> {
    let d = input.get(0..4)?;
    let c = input.get(4..8)?;
    let d = u32::from_be_bytes([d[0], d[1], d[2], d[3]]);
    let c = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
    Some((usize::try_from(d).ok()?, usize::try_from(c).ok()?))
}

fn decompress_hadoop_frames(input: &[u8], total: usize, dst: &mut [u8]) -> Result<usize, Fail> {
    if total > dst.len() {
        return Err(Fail::TooLarge(Some(total)));
    }
    let mut rest = input;
    let mut written = 0;
    while let Some((decompressed, compressed)) = read_header(rest) {
        let body = rest
            .get(HADOOP_HEADER..HADOOP_HEADER + compressed)
            .ok_or_else(|| Fail::Corrupt("truncated Hadoop LZ4 frame".to_string()))?;
        let out = dst
            .get_mut(written..written + decompressed)
            .ok_or(Fail::TooLarge(Some(total)))?;
        let n = decompress_raw(body, out)?;
        if n != decompressed {
            return Err(Fail::Corrupt(format!(
                "Hadoop LZ4 frame decompressed to {n} bytes but its header says {decompressed}"
            )));
        }
        written += n;
        rest = &rest[HADOOP_HEADER + compressed..];
    }
    Ok(written)
}

pub(crate) fn compress_raw(input: &[u8], out: &mut Vec<u8>) -> crate::Result<()> {
    let bound = lz4_flex::block::get_maximum_output_size(input.len());
    super::compress_block(out, bound, crate::Codec::Lz4Raw, |dst| {
        lz4_flex::block::compress_into(input, dst).map_err(|e| e.to_string())
    })
}

/// Writes one Hadoop frame holding the whole input, as parquet-cpp does.
pub(crate) fn compress_hadoop(input: &[u8], out: &mut Vec<u8>) -> crate::Result<()> {
    let too_large = || crate::Error::InputTooLarge {
        codec: crate::Codec::Lz4,
        len: input.len(),
        reason: "a Hadoop LZ4 frame holds at most 2^32 - 1 bytes; use LZ4_RAW",
    };
    let decompressed = u32::try_from(input.len()).map_err(|_| too_large())?;
    let start = out.len();
    out.extend_from_slice(&decompressed.to_be_bytes());
    out.extend_from_slice(&[0; 4]);
    if let Err(e) = compress_raw(input, out) {
        out.truncate(start);
        return Err(match e {
            crate::Error::Compress { message, .. } => crate::Error::Compress {
                codec: crate::Codec::Lz4,
                message,
            },
            other => other,
        });
    }
    let compressed = out.len() - start - HADOOP_HEADER;
    let Ok(compressed) = u32::try_from(compressed) else {
        out.truncate(start);
        return Err(too_large());
    };
    out[start + 4..start + HADOOP_HEADER].copy_from_slice(&compressed.to_be_bytes());
    Ok(())
}
