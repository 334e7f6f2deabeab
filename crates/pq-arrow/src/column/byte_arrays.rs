//! Values of BYTE_ARRAY ([`ByteArrays`], in the Arrow offsets + values
//! layout with 32- or 64-bit offsets) and of FIXED_LEN_BYTE_ARRAY
//! ([`FixedBytes`], back to back): their buffers' operations, written once
//! over the offset width.

use pq_encoding::ByteArrayDecode;
use pq_encoding::byte_stream_split::ByteStreamSplitDecoder;
use pq_encoding::delta_byte_array::{DeltaByteArrayDecoder, DeltaLengthDecoder};
use pq_encoding::dictionary::{gather_byte_array, gather_fixed};
use pq_encoding::offsets::OffsetSize;
use pq_encoding::plain::{ByteArrayDecoder, FixedLenDecoder};
use pq_format::Encoding;

use super::buffer::{Encoded, ValueBuffer, not_allowed, range, short};
use crate::error::{Location, Result, data_err, enc_err};
use crate::pool::Pool;

/// Byte arrays in the Arrow layout: `len + 1` offsets (none while empty)
/// into the values, back to back.
#[derive(Debug, Clone, Default)]
pub(crate) struct ByteArrays<O> {
    /// `len + 1` offsets, or none.
    pub(crate) offsets: Vec<O>,
    /// The values, back to back.
    pub(crate) values: Vec<u8>,
}

impl<O: OffsetSize> ByteArrays<O> {
    /// Decodes `n` values with `dec`; fewer is an error naming `what`.
    fn decode_all(
        &mut self,
        dec: &mut impl ByteArrayDecode,
        what: &'static str,
        n: usize,
        at: &Location,
    ) -> Result<()> {
        let got = dec
            .decode(&mut self.offsets, &mut self.values, n)
            .map_err(|e| enc_err(at, e))?;
        if got < n {
            return Err(short(at, what, n, got));
        }
        Ok(())
    }

    /// Appends the values of `dict` at `idx` (each checked to be an
    /// entry); on an error nothing is kept.
    pub(crate) fn gather_from<D: OffsetSize>(
        &mut self,
        dict: &ByteArrays<D>,
        idx: &[u32],
        at: &Location,
    ) -> Result<()> {
        self.gather_parts(&dict.offsets, &dict.values, idx, at)
    }

    /// [`gather_from`](Self::gather_from) with the source as its offsets
    /// and values (the values a page holds, say).
    pub(crate) fn gather_parts<D: OffsetSize>(
        &mut self,
        offsets: &[D],
        values: &[u8],
        idx: &[u32],
        at: &Location,
    ) -> Result<()> {
        self.append_or_nothing(at, |o, v| gather_byte_array(offsets, values, idx, o, v))
    }

    /// Appends the values at `idx` of a PLAIN page as they lie in `page`,
    /// found through its `starts` (see
    /// [`ByteArrayDecoder::index`](pq_encoding::plain::ByteArrayDecoder::index));
    /// on an error nothing is kept.
    pub(crate) fn gather_plain(
        &mut self,
        page: &[u8],
        starts: &[u32],
        idx: &[u32],
        at: &Location,
    ) -> Result<()> {
        self.append_or_nothing(at, |o, v| {
            pq_encoding::dictionary::gather_plain_byte_array(page, starts, idx, o, v)
        })
    }

    /// Appends with `append` (one of pq-encoding's gathers); on an error
    /// nothing is kept.
    fn append_or_nothing(
        &mut self,
        at: &Location,
        append: impl FnOnce(&mut Vec<O>, &mut Vec<u8>) -> pq_encoding::Result<()>,
    ) -> Result<()> {
        let (o0, v0) = (self.offsets.len(), self.values.len());
        if let Err(e) = append(&mut self.offsets, &mut self.values) {
            self.offsets.truncate(o0);
            self.values.truncate(v0);
            return Err(enc_err(at, e));
        }
        Ok(())
    }

    /// Appends values `start..start + n` of `src`, whole: one copy of their
    /// bytes and their offsets shifted.
    pub(crate) fn extend_from<D: OffsetSize>(
        &mut self,
        src: &ByteArrays<D>,
        start: usize,
        n: usize,
        at: &Location,
    ) -> Result<()> {
        self.extend_parts(&src.offsets, &src.values, start, n, at)
    }

    /// [`extend_from`](Self::extend_from) with the source as its offsets
    /// and values (the values a page holds, say).
    pub(crate) fn extend_parts<D: OffsetSize>(
        &mut self,
        offsets: &[D],
        values: &[u8],
        start: usize,
        n: usize,
        at: &Location,
    ) -> Result<()> {
        let offs = range(offsets, start, n + 1, at)?;
        let (Some(first), Some(last)) = (offs.first(), offs.last()) else {
            return Ok(());
        };
        let shift = first.as_usize();
        let bytes = values
            .get(shift..last.as_usize())
            .ok_or_else(|| data_err(at, "byte array offsets out of range"))?;
        if self.offsets.is_empty() {
            self.offsets.push(O::default());
        }
        let base = self.values.len();
        if O::from_usize(base + bytes.len()).is_none() {
            return Err(enc_err(
                at,
                pq_encoding::Error::OffsetOverflow {
                    offset_bits: O::BITS,
                    found: base + bytes.len(),
                },
            ));
        }
        self.values.extend_from_slice(bytes);
        // In range: checked above.
        self.offsets.extend(
            offs.iter()
                .skip(1)
                .map(|x| O::from_usize(x.as_usize() - shift + base).unwrap_or_default()),
        );
        Ok(())
    }
}

impl<O: OffsetSize + Send> ValueBuffer for ByteArrays<O> {
    fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    fn clear(&mut self) {
        self.offsets.clear();
        self.values.clear();
    }

    fn take_like(&self, pool: &Pool, values: usize, bytes: usize) -> Self {
        ByteArrays {
            offsets: pool.take(values + 1),
            values: pool.take(bytes),
        }
    }

    fn value_bytes(&self) -> usize {
        self.values.len()
    }

    fn reserve(&mut self, n: usize) {
        self.offsets.reserve(n + 1);
    }

    fn plain_len(&self, _n: usize) -> Option<usize> {
        None
    }

    fn decode_plain(&mut self, data: &[u8], n: usize, at: &Location) -> Result<()> {
        self.decode_all(&mut ByteArrayDecoder::new(data), "PLAIN byte arrays", n, at)
    }

    fn take_plain(&mut self, data: &[u8], pos: &mut usize, n: usize, at: &Location) -> Result<()> {
        let mut dec = ByteArrayDecoder::new(data.get(*pos..).unwrap_or_default());
        self.decode_all(&mut dec, "PLAIN byte arrays", n, at)?;
        *pos += dec.position();
        Ok(())
    }

    fn decode_encoded(&mut self, page: Encoded<'_>, at: &Location) -> Result<()> {
        let e = |err| enc_err(at, err);
        let Encoded { encoding, data, n } = page;
        match encoding {
            Encoding::DELTA_LENGTH_BYTE_ARRAY => {
                let mut dec = DeltaLengthDecoder::new(data).map_err(e)?;
                self.decode_all(&mut dec, "DELTA_LENGTH_BYTE_ARRAY values", n, at)
            }
            Encoding::DELTA_BYTE_ARRAY => {
                let mut dec = DeltaByteArrayDecoder::new(data).map_err(e)?;
                self.decode_all(&mut dec, "DELTA_BYTE_ARRAY values", n, at)
            }
            other => Err(not_allowed(other, at)),
        }
    }

    fn gather(&mut self, dict: &Self, idx: &[u32], at: &Location) -> Result<()> {
        self.gather_from(dict, idx, at)
    }

    fn extend_range(&mut self, src: &Self, start: usize, n: usize, at: &Location) -> Result<()> {
        self.extend_from(src, start, n, at)
    }
}

/// FIXED_LEN_BYTE_ARRAY values, `width` bytes each, back to back.
#[derive(Debug, Clone, Default)]
pub(crate) struct FixedBytes {
    /// Bytes per value (from the schema; 0 is rejected before any value
    /// is read).
    pub(crate) width: usize,
    /// The values, back to back.
    pub(crate) data: Vec<u8>,
}

impl FixedBytes {
    /// `n` of the values read: fewer is an error naming `what`.
    fn check(got: usize, n: usize, what: &'static str, at: &Location) -> Result<()> {
        if got < n {
            return Err(short(at, what, n, got));
        }
        Ok(())
    }
}

impl ValueBuffer for FixedBytes {
    fn len(&self) -> usize {
        self.data.len().checked_div(self.width).unwrap_or(0)
    }

    fn clear(&mut self) {
        self.data.clear();
    }

    fn take_like(&self, pool: &Pool, _values: usize, bytes: usize) -> Self {
        FixedBytes {
            width: self.width,
            data: pool.take(bytes),
        }
    }

    fn value_bytes(&self) -> usize {
        self.data.len()
    }

    fn reserve(&mut self, n: usize) {
        self.data.reserve(n.saturating_mul(self.width));
    }

    fn plain_len(&self, n: usize) -> Option<usize> {
        Some(n.saturating_mul(self.width))
    }

    fn decode_plain(&mut self, data: &[u8], n: usize, at: &Location) -> Result<()> {
        let e = |err| enc_err(at, err);
        let got = FixedLenDecoder::new(data, self.width)
            .map_err(e)?
            .decode(&mut self.data, n)
            .map_err(e)?;
        Self::check(got, n, "PLAIN fixed-length byte arrays", at)
    }

    fn decode_encoded(&mut self, page: Encoded<'_>, at: &Location) -> Result<()> {
        let e = |err| enc_err(at, err);
        let Encoded { encoding, data, n } = page;
        match encoding {
            Encoding::DELTA_BYTE_ARRAY => {
                let got = DeltaByteArrayDecoder::new(data)
                    .map_err(e)?
                    .decode_fixed(&mut self.data, self.width, n)
                    .map_err(e)?;
                Self::check(got, n, "DELTA_BYTE_ARRAY values", at)
            }
            Encoding::BYTE_STREAM_SPLIT => {
                let got = ByteStreamSplitDecoder::new(data, self.width)
                    .map_err(e)?
                    .decode_bytes(&mut self.data, n)
                    .map_err(e)?;
                Self::check(got, n, "BYTE_STREAM_SPLIT values", at)
            }
            other => Err(not_allowed(other, at)),
        }
    }

    fn gather(&mut self, dict: &Self, idx: &[u32], at: &Location) -> Result<()> {
        gather_fixed(&dict.data, self.width, idx, &mut self.data).map_err(|e| enc_err(at, e))
    }

    fn extend_range(&mut self, src: &Self, start: usize, n: usize, at: &Location) -> Result<()> {
        let w = self.width;
        self.data
            .extend_from_slice(range(&src.data, start * w, n * w, at)?);
        Ok(())
    }
}
