//! BROTLI via the pure-Rust `brotli` crate, decoding straight into the
//! output slice with `BrotliDecompressStream`.

use brotli::enc::StandardAlloc;
use brotli::{BrotliDecompressStream, BrotliResult, BrotliState};

use crate::decompress::Fail;

pub(crate) fn decompress(input: &[u8], dst: &mut [u8]) -> Result<usize, Fail> {
    let mut state = BrotliState::new(
        StandardAlloc::default(),
        StandardAlloc::default(),
        StandardAlloc::default(),
    );
    let mut available_in = input.len();
    let mut input_offset = 0;
    let mut available_out = dst.len();
    let mut output_offset = 0;
    let mut total_out = 0;
    match BrotliDecompressStream(
        &mut available_in,
        &mut input_offset,
        input,
        &mut available_out,
        &mut output_offset,
        dst,
        &mut total_out,
        &mut state,
    ) {
        BrotliResult::ResultSuccess => Ok(output_offset),
        BrotliResult::NeedsMoreOutput => Err(Fail::TooLarge(None)),
        BrotliResult::NeedsMoreInput => Err(Fail::Corrupt("truncated brotli stream".to_string())),
        BrotliResult::ResultFailure => Err(Fail::Corrupt(format!(
            "brotli decoder error {:?}",
            state.error_code
        ))),
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
