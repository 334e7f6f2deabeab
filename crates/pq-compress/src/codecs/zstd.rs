//! ZSTD via `zstd` (libzstd), single-shot into the output slice.
//!
//! `ZSTD_decompressDCtx` decodes every frame straight into the destination
//! and fails with `dstSize_tooSmall` instead of writing past it, so no
//! window buffer is allocated whatever the frame header claims.

use zstd::zstd_safe::{self, DCtx};

use crate::decompress::Fail;

/// libzstd error codes are `(size_t)-ZSTD_ErrorCode`; this is
/// `ZSTD_error_dstSize_tooSmall` (70), stable across libzstd versions.
const DST_SIZE_TOO_SMALL: usize = 0usize.wrapping_sub(70);

pub(crate) fn decompress(
    dctx: &mut DCtx<'static>,
    input: &[u8],
    dst: &mut [u8],
) -> Result<usize, Fail> {
    // The first frame usually announces its size: reject an oversize frame early.
    if let Ok(Some(size)) = zstd_safe::get_frame_content_size(input) {
        let size = usize::try_from(size).unwrap_or(usize::MAX);
        if size > dst.len() {
            return Err(Fail::TooLarge(Some(size)));
        }
    }
    match dctx.decompress(dst, input) {
        Ok(n) => Ok(n),
        Err(DST_SIZE_TOO_SMALL) => Err(Fail::TooLarge(None)),
        Err(code) => Err(Fail::Corrupt(zstd_safe::get_error_name(code).to_string())),
    }
}

pub(crate) fn compress(input: &[u8], out: &mut Vec<u8>, level: i32) -> crate::Result<()> {
    let start = out.len();
    out.resize(start + zstd_safe::compress_bound(input.len()), 0);
    match zstd_safe::compress(&mut out[start..], input, level) {
        Ok(n) => {
            out.truncate(start + n);
            Ok(())
        }
        Err(code) => {
            out.truncate(start);
            Err(crate::Error::Compress {
                codec: crate::Codec::Zstd,
                message: zstd_safe::get_error_name(code).to_string(),
            })
        }
    }
}
