//! A data page's DELTA_LENGTH_BYTE_ARRAY values, taken by batches straight
//! from the page's bytes.
//!
//! Why not decoded whole when the page opens: DuckDB writes a page per
//! column per row group and its strings without a dictionary in this
//! encoding, so a whole page is megabytes of values copied into a fresh
//! buffer, then copied again into batches. Here the page's lengths become
//! offsets into its bytes when it opens (every length checked against the
//! bytes there are, so a bad page fails before any batch of it is made),
//! and each batch copies its values once.

use bytes::Bytes;
use pq_encoding::delta_binary_packed::DeltaBitPackDecoder;

use super::values::Dense;
use crate::error::{Location, Result, data_err, enc_err};

/// The values of a page: `offsets` into `data`, and how many are taken.
#[derive(Debug)]
pub(crate) struct PageLengths {
    /// The values back to back (the page's bytes after its lengths).
    data: Bytes,
    /// `n + 1` offsets into `data`: they start at 0, never decrease, and
    /// the last is at most `data.len()` (checked in [`PageLengths::new`]).
    offsets: Vec<i32>,
    /// Values taken so far.
    pos: usize,
}

impl PageLengths {
    /// The page's `n` values in `page` (its value bytes), when `kind` (the
    /// column's decoded values) is a byte-array kind; `None` for another
    /// kind. `offsets` is a buffer to reuse.
    pub(crate) fn new(
        page: Bytes,
        n: usize,
        kind: &Dense,
        offsets: Vec<i32>,
        at: &Location,
    ) -> Option<Result<Self>> {
        match kind {
            Dense::Bytes(_) | Dense::LargeBytes(_) | Dense::Utf8(_) | Dense::LargeUtf8(_) => {
                Some(Self::decode(page, n, offsets, at))
            }
            _ => None,
        }
    }

    fn decode(page: Bytes, n: usize, mut offsets: Vec<i32>, at: &Location) -> Result<Self> {
        let e = |err| enc_err(at, err);
        let mut lengths = DeltaBitPackDecoder::<i32>::new(&page).map_err(e)?;
        let start = lengths.clone().skip_to_end().map_err(e)?;
        let data = page.slice(start.min(page.len())..);
        offsets.clear();
        offsets.push(0);
        lengths.decode_into(&mut offsets, n).map_err(e)?;
        // The lengths, summed in place into offsets, each checked.
        let mut end = 0usize;
        for (i, o) in offsets.iter_mut().enumerate().skip(1) {
            let len = usize::try_from(*o).map_err(|_| {
                data_err(
                    at,
                    format!(
                        "DELTA_LENGTH_BYTE_ARRAY length {} of value {} is negative",
                        *o,
                        i - 1
                    ),
                )
            })?;
            end = end.saturating_add(len);
            // `data` is at most a page, whose size is an i32.
            *o = i32::try_from(end)
                .ok()
                .filter(|_| end <= data.len())
                .ok_or_else(|| {
                    data_err(
                        at,
                        format!(
                            "DELTA_LENGTH_BYTE_ARRAY values {} bytes long by value {}, the \
                             page holds {}",
                            end,
                            i - 1,
                            data.len()
                        ),
                    )
                })?;
        }
        Ok(PageLengths {
            data,
            offsets,
            pos: 0,
        })
    }

    /// The offsets buffer, for the next page.
    pub(crate) fn into_buffer(self) -> Vec<i32> {
        self.offsets
    }

    /// Values not yet taken.
    fn left(&self) -> usize {
        self.offsets
            .len()
            .saturating_sub(1)
            .saturating_sub(self.pos)
    }

    fn check_left(&self, n: usize, at: &Location) -> Result<()> {
        if n > self.left() {
            return Err(data_err(
                at,
                format!(
                    "{n} DELTA_LENGTH_BYTE_ARRAY values wanted, the page holds {} more",
                    self.left()
                ),
            ));
        }
        Ok(())
    }

    /// Appends the next `n` values to `out`, a byte-array buffer.
    pub(crate) fn append(&mut self, out: &mut Dense, n: usize, at: &Location) -> Result<()> {
        self.check_left(n, at)?;
        let (offsets, data, pos) = (&self.offsets, &self.data[..], self.pos);
        match out {
            Dense::Bytes(b) => b.extend_parts(offsets, data, pos, n, at)?,
            Dense::LargeBytes(b) => b.extend_parts(offsets, data, pos, n, at)?,
            Dense::Utf8(s) => s.append_raw(at, |b| b.extend_parts(offsets, data, pos, n, at))?,
            Dense::LargeUtf8(s) => {
                s.append_raw(at, |b| b.extend_parts(offsets, data, pos, n, at))?
            }
            _ => return Err(other_kind(at)),
        }
        self.pos += n;
        Ok(())
    }

    /// Passes over the next `n` values.
    pub(crate) fn skip(&mut self, n: usize, at: &Location) -> Result<()> {
        self.check_left(n, at)?;
        self.pos += n;
        Ok(())
    }

    /// Appends to `out` the values at positions `picks` of the next `n`
    /// (each below `n`), and passes over the others.
    pub(crate) fn gather(
        &mut self,
        out: &mut Dense,
        n: usize,
        picks: &[u32],
        at: &Location,
    ) -> Result<()> {
        self.check_left(n, at)?;
        // The next `n` values' offsets: picks index them as entries.
        let offsets = self
            .offsets
            .get(self.pos..=self.pos + n)
            .unwrap_or_default();
        let data = &self.data[..];
        match out {
            Dense::Bytes(b) => b.gather_parts(offsets, data, picks, at)?,
            Dense::LargeBytes(b) => b.gather_parts(offsets, data, picks, at)?,
            Dense::Utf8(s) => s.append_raw(at, |b| b.gather_parts(offsets, data, picks, at))?,
            Dense::LargeUtf8(s) => {
                s.append_raw(at, |b| b.gather_parts(offsets, data, picks, at))?
            }
            _ => return Err(other_kind(at)),
        }
        self.pos += n;
        Ok(())
    }
}

fn other_kind(at: &Location) -> crate::error::Error {
    data_err(
        at,
        "DELTA_LENGTH_BYTE_ARRAY values into a column of another type",
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::column::byte_arrays::ByteArrays;
    use crate::column::utf8::CheckedUtf8;
    use pq_encoding::delta_byte_array::encode_delta_length;

    fn at() -> Location {
        Location::default()
    }

    fn page(values: &[&[u8]]) -> Bytes {
        let mut out = Vec::new();
        encode_delta_length(values.iter().copied(), &mut out).unwrap();
        Bytes::from(out)
    }

    fn strings(d: Dense) -> Vec<Vec<u8>> {
        let raw = match d {
            Dense::Utf8(s) => s.raw().clone(),
            Dense::Bytes(b) => b,
            _ => panic!("not strings"),
        };
        raw.offsets
            .windows(2)
            .map(|w| raw.values[w[0] as usize..w[1] as usize].to_vec())
            .collect()
    }

    /// Batches of appends, skips and gathers take the values of the whole
    /// page, as a decoder of the whole page gives them.
    #[test]
    fn appends_skips_and_gathers_agree_with_the_whole_page() {
        let owned: Vec<Vec<u8>> = (0..3000)
            .map(|i: usize| "xé".repeat(i % 7).into_bytes())
            .collect();
        let values: Vec<&[u8]> = owned.iter().map(|v| &v[..]).collect();
        for kind in [
            Dense::Utf8(CheckedUtf8::default()),
            Dense::Bytes(ByteArrays::default()),
        ] {
            let mut p = PageLengths::new(page(&values), values.len(), &kind, Vec::new(), &at())
                .unwrap()
                .unwrap();
            let mut got = kind;
            let mut want = Vec::new();
            let (mut pos, mut step) = (0, 1);
            while pos < values.len() {
                let n = step.min(values.len() - pos);
                match step % 3 {
                    0 => p.skip(n, &at()).unwrap(),
                    1 => {
                        p.append(&mut got, n, &at()).unwrap();
                        want.extend_from_slice(&owned[pos..pos + n]);
                    }
                    _ => {
                        let picks: Vec<u32> = (0..n as u32).step_by(3).collect();
                        p.gather(&mut got, n, &picks, &at()).unwrap();
                        want.extend(picks.iter().map(|&i| owned[pos + i as usize].clone()));
                    }
                }
                pos += n;
                step = step * 5 % 331 + 1;
            }
            assert_eq!(strings(got), want);
            assert!(p.skip(1, &at()).is_err());
        }
    }

    /// A page whose lengths run past its bytes, or that holds fewer values
    /// than its levels ask for, fails when it opens; invalid UTF-8 fails
    /// the batch that takes it, and nothing of that batch is kept.
    #[test]
    fn bad_pages_fail() {
        let kind = Dense::Utf8(CheckedUtf8::default());
        let mut cut = page(&[b"abc", b"defg"]).to_vec();
        cut.truncate(cut.len() - 1);
        let open = |bytes: Bytes, n| PageLengths::new(bytes, n, &kind, Vec::new(), &at()).unwrap();
        assert!(open(Bytes::from(cut), 2).is_err());
        assert!(open(page(&[b"abc", b"defg"]), 3).is_err());
        let mut p = open(page(&[b"ok", b"\xff\xfe"]), 2).unwrap();
        let mut out = Dense::Utf8(CheckedUtf8::default());
        assert!(p.append(&mut out, 2, &at()).is_err());
        assert_eq!(out.len(), 0);
        // Another kind of buffer than byte arrays is refused, not misread.
        let mut p = open(page(&[b"ok"]), 1).unwrap();
        assert!(p.append(&mut Dense::I32(Vec::new()), 1, &at()).is_err());
    }
}
