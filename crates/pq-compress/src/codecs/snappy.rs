//! SNAPPY: raw Snappy blocks via `snap`.

use crate::decompress::Fail;

pub(crate) fn decompress(input: &[u8], dst: &mut [u8]) -> Result<usize, Fail> {
    // The block starts with its decompressed length: check it before decoding.
    let len = snap::raw::decompress_len(input).map_err(|e| Fail::Corrupt(e.to_string()))?;
    if len != dst.len() {
        return if len > dst.len() {
            Err(Fail::TooLarge(Some(len)))
        } else {
            Ok(len)
        };
    }
    snap::raw::Decoder::new()
        .decompress(input, dst)
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
    let start = out.len();
    out.resize(start + max, 0);
    match snap::raw::Encoder::new().compress(input, &mut out[start..]) {
        Ok(n) => {
            out.truncate(start + n);
            Ok(())
        }
        Err(e) => {
            out.truncate(start);
            Err(crate::Error::Compress {
                codec: crate::Codec::Snappy,
                message: e.to_string(),
            })
        }
    }
}
