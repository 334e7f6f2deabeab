//! A data page's DELTA_BINARY_PACKED integers, decoded as batches take
//! them, straight into the batch's buffer.
//!
//! Why not the whole page when it opens: DuckDB writes a page per column
//! per row group, and its integer columns are DELTA_BINARY_PACKED, so a
//! whole page is a megabyte or more of decoded values per column to fault
//! in and hold, then copy into batches. Here a page holds its encoded bytes
//! and the decoder's position between batches
//! ([`DeltaBitPackCursor`]).

use bytes::Bytes;
use pq_encoding::delta_binary_packed::{DeltaBitPackCursor, DeltaBitPackDecoder, DeltaInt};

use super::values::{Dense, gather_dense};
use crate::error::{Location, Result, data_err, enc_err};

/// The integers of a page, as INT32 or INT64.
#[derive(Debug)]
pub(crate) enum PageDeltas {
    I32(Deltas<i32>),
    I64(Deltas<i64>),
}

/// The encoded values and where decoding stopped.
#[derive(Debug)]
pub(crate) struct Deltas<T> {
    data: Bytes,
    /// `None` once a decode failed: nothing more is read.
    cursor: Option<DeltaBitPackCursor<T>>,
    /// Values the page holds that are not yet decoded.
    left: usize,
}

impl<T: DeltaInt> Deltas<T> {
    fn new(data: Bytes, count: usize) -> Result<Self, pq_encoding::Error> {
        let cursor = DeltaBitPackDecoder::<T>::new(&data)?.into_cursor();
        Ok(Deltas {
            data,
            cursor: Some(cursor),
            left: count,
        })
    }

    /// Runs `f` on the resumed decoder after checking that `n` values
    /// remain; keeps its position if `f` succeeds.
    fn with_decoder<R>(
        &mut self,
        n: usize,
        f: impl FnOnce(&mut DeltaBitPackDecoder<'_, T>) -> Result<R, pq_encoding::Error>,
    ) -> Result<R, pq_encoding::Error> {
        let fewer = |found| pq_encoding::Error::NotEnoughValues {
            what: "DELTA_BINARY_PACKED",
            expected: n,
            found,
        };
        if n > self.left {
            return Err(fewer(self.left));
        }
        let cursor = self.cursor.take().ok_or(fewer(0))?;
        let mut decoder = DeltaBitPackDecoder::resume(&self.data, cursor);
        let r = f(&mut decoder)?;
        self.cursor = Some(decoder.into_cursor());
        self.left -= n;
        Ok(r)
    }

    fn append(&mut self, out: &mut Vec<T>, n: usize) -> Result<(), pq_encoding::Error> {
        self.with_decoder(n, |d| d.decode_into(out, n))
    }

    fn skip(&mut self, n: usize) -> Result<(), pq_encoding::Error> {
        self.with_decoder(n, |d| {
            let skipped = d.skip(n)?;
            if skipped < n {
                return Err(pq_encoding::Error::NotEnoughValues {
                    what: "DELTA_BINARY_PACKED",
                    expected: n,
                    found: skipped,
                });
            }
            Ok(())
        })
    }
}

impl PageDeltas {
    /// The page's `count` values in `data`, when `kind` (the column's
    /// decoded values) is INT32 or INT64; `None` for another kind.
    pub(crate) fn new(
        data: Bytes,
        count: usize,
        kind: &Dense,
        at: &Location,
    ) -> Option<Result<Self>> {
        let e = |err| enc_err(at, err);
        match kind {
            Dense::I32(_) => Some(Deltas::new(data, count).map(PageDeltas::I32).map_err(e)),
            Dense::I64(_) => Some(Deltas::new(data, count).map(PageDeltas::I64).map_err(e)),
            _ => None,
        }
    }

    /// Appends the next `n` values to `out`, a buffer of the same kind.
    pub(crate) fn append(&mut self, out: &mut Dense, n: usize, at: &Location) -> Result<()> {
        let e = |err| enc_err(at, err);
        match (self, out) {
            (PageDeltas::I32(d), Dense::I32(v)) => d.append(v, n).map_err(e),
            (PageDeltas::I64(d), Dense::I64(v)) => d.append(v, n).map_err(e),
            _ => Err(data_err(
                at,
                "DELTA values of another type than the column's",
            )),
        }
    }

    /// Passes over the next `n` values.
    pub(crate) fn skip(&mut self, n: usize, at: &Location) -> Result<()> {
        let e = |err| enc_err(at, err);
        match self {
            PageDeltas::I32(d) => d.skip(n).map_err(e),
            PageDeltas::I64(d) => d.skip(n).map_err(e),
        }
    }

    /// Appends to `out` the values at positions `picks` of the next `n`
    /// (and passes over the others), decoding the `n` into `scratch`.
    pub(crate) fn gather(
        &mut self,
        out: &mut Dense,
        n: usize,
        picks: &[u32],
        scratch: &mut Dense,
        at: &Location,
    ) -> Result<()> {
        scratch.clear();
        self.append(scratch, n, at)?;
        gather_dense(out, scratch, picks, at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(values: &[i64]) -> Bytes {
        let mut out = Vec::new();
        pq_encoding::delta_binary_packed::encode(values, &mut out);
        Bytes::from(out)
    }

    fn at() -> Location {
        Location::default()
    }

    #[test]
    fn appends_skips_and_gathers_agree_with_the_whole_page() {
        let values: Vec<i64> = (0..5000).map(|i| (i * 7919) % 1013 - 500).collect();
        let kind = Dense::I64(Vec::new());
        let mut p = PageDeltas::new(page(&values), values.len(), &kind, &at())
            .unwrap()
            .unwrap();
        let mut got = Dense::I64(Vec::new());
        let mut scratch = Dense::I64(Vec::new());
        let mut want = Vec::new();
        let mut pos = 0;
        let mut step = 1;
        while pos < values.len() {
            let n = step.min(values.len() - pos);
            match step % 3 {
                0 => p.skip(n, &at()).unwrap(),
                1 => {
                    p.append(&mut got, n, &at()).unwrap();
                    want.extend_from_slice(&values[pos..pos + n]);
                }
                _ => {
                    let picks: Vec<u32> = (0..n as u32).step_by(3).collect();
                    p.gather(&mut got, n, &picks, &mut scratch, &at()).unwrap();
                    want.extend(picks.iter().map(|&i| values[pos + i as usize]));
                }
            }
            pos += n;
            step = step * 5 % 997 + 1;
        }
        let Dense::I64(got) = got else { panic!() };
        assert_eq!(got, want);
        assert!(p.skip(1, &at()).is_err());
        assert!(p.append(&mut Dense::I64(Vec::new()), 1, &at()).is_err());
    }

    #[test]
    fn fewer_values_than_the_page_declares_is_an_error() {
        let values = [1i64, 2, 3];
        let kind = Dense::I64(Vec::new());
        let mut p = PageDeltas::new(page(&values), 10, &kind, &at())
            .unwrap()
            .unwrap();
        let mut out = Dense::I64(Vec::new());
        assert!(p.append(&mut out, 10, &at()).is_err());
        // Another buffer kind than the page's is refused, not misread.
        let mut p = PageDeltas::new(page(&values), 3, &kind, &at())
            .unwrap()
            .unwrap();
        assert!(p.append(&mut Dense::I32(Vec::new()), 3, &at()).is_err());
        assert!(PageDeltas::new(page(&values), 3, &Dense::F64(Vec::new()), &at()).is_none());
    }
}
