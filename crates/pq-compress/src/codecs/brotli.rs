//! BROTLI via the pure-Rust `brotli` crate, decoding with
//! `BrotliDecompressStream` straight into the output buffer, which grows as
//! the stream fills it.
//!
//! Brotli bounds no expansion ratio usefully (one command can copy 16 MiB),
//! so the output starts at [`start_len`] bytes and doubles up to the
//! declared size. The decoder's own working memory is its ring buffer (the
//! stream's window, at most 16 MiB, shrunk to the output size when the
//! stream is one short meta-block) and Huffman tables.

use brotli::enc::StandardAlloc;
use brotli::{BrotliDecompressStream, BrotliResult, BrotliState};

use super::{grow, set_len, start_len};
use crate::decompress::Fail;

pub(crate) fn decompress(input: &[u8], declared: usize, out: &mut Vec<u8>) -> Result<usize, Fail> {
    let mut state = BrotliState::new(
        StandardAlloc::default(),
        StandardAlloc::default(),
        StandardAlloc::default(),
    );
    set_len(out, start_len(out.capacity(), input.len(), declared));
    let mut available_in = input.len();
    let mut input_offset = 0;
    let mut written = 0;
    let mut total_out = 0;
    loop {
        let mut available_out = out.len() - written;
        let mut output_offset = written;
        let result = BrotliDecompressStream(
            &mut available_in,
            &mut input_offset,
            input,
            &mut available_out,
            &mut output_offset,
            out,
            &mut total_out,
            &mut state,
        );
        written = output_offset;
        match result {
            BrotliResult::ResultSuccess => return Ok(written),
            BrotliResult::NeedsMoreOutput => {
                if !grow(out, declared) {
                    return Err(Fail::TooLarge(None));
                }
            }
            BrotliResult::NeedsMoreInput => {
                return Err(Fail::Corrupt("truncated brotli stream".to_string()));
            }
            BrotliResult::ResultFailure => {
                return Err(Fail::Corrupt(format!(
                    "brotli decoder error {:?}",
                    state.error_code
                )));
            }
        }
    }
}

/// Window of 2^22 bytes (4 MiB), the brotli default; readers need at most
/// that much working memory.
pub(crate) const LGWIN: i32 = 22;

pub(crate) fn compress(input: &[u8], out: &mut Vec<u8>, quality: i32) -> crate::Result<()> {
    let params = brotli::enc::BrotliEncoderParams {
        quality,
        lgwin: LGWIN,
        size_hint: input.len(),
        ..Default::default()
    };
    let start = out.len();
    let mut reader = input;
    brotli::BrotliCompress(&mut reader, out, &params)
        .map(|_| ())
        .map_err(|e| {
            out.truncate(start);
            crate::Error::Compress {
                codec: crate::Codec::Brotli,
                message: e.to_string(),
            }
        })
}
