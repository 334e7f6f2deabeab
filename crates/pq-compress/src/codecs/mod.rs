//! One module per codec: a bounded decoder writing into a fixed slice, and an
//! appending encoder.

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

/// Fills `dst` from `reader`, then probes for one more byte: a stream with
/// more output than `dst` holds gives [`Fail::TooLarge`]. Never reads into
/// anything but `dst` and a one-byte probe.
#[cfg(any(feature = "gzip", feature = "lz4"))]
pub(crate) fn read_bounded<R: std::io::Read>(
    mut reader: R,
    dst: &mut [u8],
) -> Result<usize, crate::decompress::Fail> {
    use crate::decompress::Fail;
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
