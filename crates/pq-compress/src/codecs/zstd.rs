//! ZSTD via `zstd` (libzstd).
//!
//! zstd bounds no expansion ratio usefully, and a frame header's content
//! size is just a claim. So:
//!
//! 1. Frame headers that announce content sizes are read first: if they
//!    announce a total other than the declared size (or a first frame larger
//!    than it), the page fails before anything is allocated.
//! 2. If the output buffer can hold the declared size without allocating
//!    more than [`start_len`] allows (a warm buffer, or a page of modest
//!    ratio), `ZSTD_decompressDCtx` decodes every frame straight into it and
//!    fails with `dstSize_tooSmall` instead of writing past it.
//! 3. Otherwise `ZSTD_decompressStream` decodes into a buffer that starts at
//!    [`start_len`] bytes and doubles up to the declared size. libzstd then
//!    keeps a window buffer in the (reused) context: at most the frame's
//!    window, limited to 2^27 bytes (libzstd's default `windowLogMax`), and
//!    no more than the content size when the frame announces one. When the
//!    buffer already holds the announced content size, libzstd decodes the
//!    frame in one pass without that window buffer.

use zstd::zstd_safe::{self, DCtx, InBuffer, OutBuffer, ResetDirective};

use super::{grow, set_len, start_len};
use crate::decompress::Fail;

/// libzstd error codes are `(size_t)-ZSTD_ErrorCode`; this is
/// `ZSTD_error_dstSize_tooSmall` (70), stable across libzstd versions.
const DST_SIZE_TOO_SMALL: usize = 0usize.wrapping_sub(70);

fn corrupt(code: usize) -> Fail {
    Fail::Corrupt(zstd_safe::get_error_name(code).to_string())
}

fn truncated() -> Fail {
    Fail::Corrupt("truncated zstd stream".to_string())
}

/// What the frame headers announce: the total if every frame announces its
/// content size, else the first frame's size if it announces one.
fn announced(input: &[u8]) -> Option<Result<usize, usize>> {
    let to_usize = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    let first = to_usize(zstd_safe::get_frame_content_size(input).ok()??);
    let mut rest = input;
    let mut total = 0usize;
    while !rest.is_empty() {
        let size = match zstd_safe::get_frame_content_size(rest) {
            Ok(Some(size)) => to_usize(size),
            _ => return Some(Err(first)),
        };
        match zstd_safe::find_frame_compressed_size(rest) {
            Ok(len) if len > 0 && len <= rest.len() => rest = &rest[len..],
            _ => return Some(Err(first)),
        }
        total = total.saturating_add(size);
    }
    Some(Ok(total))
}

pub(crate) fn decompress(
    dctx: &mut DCtx<'static>,
    input: &[u8],
    declared: usize,
    out: &mut Vec<u8>,
) -> Result<usize, Fail> {
    match announced(input) {
        Some(Ok(total)) if total != declared => return Err(Fail::Announced(total)),
        Some(Err(first)) if first > declared => return Err(Fail::Announced(first)),
        _ => {}
    }
    let start = start_len(out.capacity(), input.len(), declared);
    if start == declared {
        set_len(out, declared);
        return match dctx.decompress(&mut out[..], input) {
            Ok(n) => Ok(n),
            Err(DST_SIZE_TOO_SMALL) => Err(Fail::TooLarge(None)),
            Err(code) => Err(corrupt(code)),
        };
    }
    dctx.reset(ResetDirective::SessionOnly).map_err(corrupt)?;
    set_len(out, start);
    let mut src = InBuffer::around(input);
    let mut written = 0;
    let mut frame_done = false;
    loop {
        if written == out.len() && !grow(out, declared) {
            break;
        }
        let in_before = src.pos();
        let mut dst = OutBuffer::around_pos(&mut out[..], written);
        let hint = dctx
            .decompress_stream(&mut dst, &mut src)
            .map_err(corrupt)?;
        let progressed = dst.pos() > written || src.pos() > in_before;
        written = dst.pos();
        frame_done = hint == 0;
        if src.pos() == input.len() && frame_done {
            return Ok(written);
        }
        if written < out.len() && !progressed {
            // Room left, input exhausted, frame unfinished.
            return Err(truncated());
        }
    }
    // The output holds the declared size: the stream must end here.
    let mut probe = [0u8; 1];
    loop {
        if src.pos() == input.len() && frame_done {
            return Ok(written);
        }
        let in_before = src.pos();
        let mut dst = OutBuffer::around(&mut probe[..]);
        let hint = dctx
            .decompress_stream(&mut dst, &mut src)
            .map_err(corrupt)?;
        if dst.pos() > 0 {
            return Err(Fail::TooLarge(None));
        }
        frame_done = hint == 0;
        if src.pos() == in_before && !(src.pos() == input.len() && frame_done) {
            return Err(truncated());
        }
    }
}

pub(crate) fn compress(input: &[u8], out: &mut Vec<u8>, level: i32) -> crate::Result<()> {
    let bound = zstd_safe::compress_bound(input.len());
    super::compress_block(out, bound, crate::Codec::Zstd, |dst| {
        zstd_safe::compress(dst, input, level)
            .map_err(|code| zstd_safe::get_error_name(code).to_string())
    })
}
