//! A data page's dictionary indices, decoded a batch's worth at a time.
//!
//! Why not the whole page when it opens: DuckDB and Polars write a page per
//! column per row group, 120 000 or more indices, and a whole page's
//! indices (half a megabyte a column) are memory to fault in and hold that
//! a batch of 8192 rows never needs. Here a page holds its encoded runs and
//! a buffer of about a batch of decoded indices; the decoder stops between
//! batches as an [`RleCursor`] and resumes over the same bytes.

use bytes::Bytes;
use pq_encoding::rle::{RleCursor, RleDecoder};

/// Indices decoded ahead of need at least this many at a time, so that
/// small batches do not each restart the decoder.
const STEP: usize = 4096;

/// The dictionary indices of a page's non-null values.
#[derive(Debug)]
pub(crate) struct PageIndices {
    /// The runs, after the page's bit-width byte.
    runs: Bytes,
    /// Where decoding stopped; `None` once every index is decoded.
    cursor: Option<RleCursor>,
    /// Decoded indices at `pos..end`, not yet handed out. Past `end` the
    /// buffer holds stale indices: it keeps its length between decodes, so
    /// that a decode writes over memory already set rather than zeroing
    /// each batch's worth first.
    buf: Vec<u32>,
    pos: usize,
    end: usize,
    /// Indices not yet decoded.
    left: usize,
}

impl PageIndices {
    /// The `count` indices encoded in a page's values section `values` (a
    /// bit width, then runs), to decode into `buf` (its contents unused; a
    /// previous page's, see [`into_buffer`](Self::into_buffer)).
    pub(crate) fn new(
        values: Bytes,
        count: usize,
        buf: Vec<u32>,
    ) -> Result<Self, pq_encoding::Error> {
        let decoder = pq_encoding::dictionary::indices_decoder(&values)?.with_count(count);
        let cursor = decoder.into_cursor();
        Ok(PageIndices {
            runs: values.slice(1..),
            cursor: Some(cursor),
            buf,
            pos: 0,
            end: 0,
            left: count,
        })
    }

    /// The next `n` indices, or an error when the runs hold fewer.
    pub(crate) fn take(&mut self, n: usize) -> Result<&[u32], pq_encoding::Error> {
        let held = self.end - self.pos;
        if held < n {
            self.decode(n - held)?;
        }
        let start = self.pos;
        self.pos += n;
        // `decode` left at least `n` held.
        Ok(self.buf.get(start..start + n).unwrap_or_default())
    }

    /// Passes over the next `n` indices without decoding them where runs
    /// allow (a repeated run is passed by arithmetic).
    pub(crate) fn skip(&mut self, n: usize) -> Result<(), pq_encoding::Error> {
        let held = self.end - self.pos;
        let from_buf = held.min(n);
        self.pos += from_buf;
        let rest = n - from_buf;
        if rest == 0 {
            return Ok(());
        }
        if rest > self.left {
            return Err(Self::fewer(n, held + self.left));
        }
        let cursor = self.cursor()?;
        let mut decoder = RleDecoder::resume(&self.runs, cursor);
        let skipped = decoder.skip(rest)?;
        self.cursor = Some(decoder.into_cursor());
        self.left -= rest;
        if skipped < rest {
            return Err(Self::fewer(n, held + skipped));
        }
        Ok(())
    }

    /// Consumes the next `n` indices, writing over each of `positions`
    /// (increasing, each below `n`) the index at that position. Few
    /// positions among many indices (the kept rows of a column read late)
    /// are read where they lie in their bit-packed runs
    /// ([`RleDecoder::gather`]), a few operations each; from one position
    /// in 8 on, decoding every index costs less. A position out of order or
    /// range becomes `u32::MAX`, which no dictionary holds.
    pub(crate) fn gather(
        &mut self,
        n: usize,
        positions: &mut [u32],
    ) -> Result<(), pq_encoding::Error> {
        if positions.len().saturating_mul(8) >= n {
            let idx = self.take(n)?;
            for v in positions.iter_mut() {
                *v = idx.get(*v as usize).copied().unwrap_or(u32::MAX);
            }
            return Ok(());
        }
        // Those among the indices decoded ahead, then the rest from the
        // runs.
        let held = self.end - self.pos;
        let ahead = self.buf.get(self.pos..self.end).unwrap_or_default();
        let mut i = 0;
        let mut at = 0;
        while let Some(v) = positions.get_mut(i) {
            let p = *v as usize;
            if p >= held.min(n) {
                break;
            }
            *v = if p < at {
                u32::MAX
            } else {
                ahead.get(p).copied().unwrap_or(u32::MAX)
            };
            at = p + 1;
            i += 1;
        }
        if n <= held {
            for v in positions.get_mut(i..).unwrap_or_default() {
                *v = u32::MAX;
            }
            self.pos += n;
            return Ok(());
        }
        self.pos = 0;
        self.end = 0;
        let rest = n - held;
        if rest > self.left {
            return Err(Self::fewer(n, held + self.left));
        }
        let rest_positions = positions.get_mut(i..).unwrap_or_default();
        for v in rest_positions.iter_mut() {
            // One below those decoded ahead is out of order.
            *v = v.checked_sub(held as u32).unwrap_or(u32::MAX);
        }
        let cursor = self.cursor()?;
        let mut decoder = RleDecoder::resume(&self.runs, cursor);
        let got = decoder.gather(rest, rest_positions)?;
        self.cursor = Some(decoder.into_cursor());
        self.left -= rest;
        if got < rest {
            return Err(Self::fewer(n, held + got));
        }
        Ok(())
    }

    /// The buffer, for the next page.
    pub(crate) fn into_buffer(self) -> Vec<u32> {
        self.buf
    }

    /// Decodes at least `need` more indices (up to [`STEP`]) after those
    /// held, first moving the held ones to the buffer's start.
    fn decode(&mut self, need: usize) -> Result<(), pq_encoding::Error> {
        let held = self.end - self.pos;
        if need > self.left {
            return Err(Self::fewer(held + need, held + self.left));
        }
        self.buf.copy_within(self.pos..self.end, 0);
        self.pos = 0;
        self.end = held;
        let n = need.max(STEP).min(self.left);
        // Zeroed only where the buffer grows: by at most a batch's worth,
        // or `STEP`, beyond what is held.
        if self.buf.len() < held + n {
            self.buf.resize(held + n, 0);
        }
        let cursor = self.cursor()?;
        let mut decoder = RleDecoder::resume(&self.runs, cursor);
        let got = decoder.decode(self.buf.get_mut(held..held + n).unwrap_or_default())?;
        self.cursor = Some(decoder.into_cursor());
        if got < n {
            // The runs end early; the page is not read further.
            return Err(pq_encoding::Error::NotEnoughValues {
                what: "RLE/bit-packed hybrid",
                expected: n,
                found: got,
            });
        }
        self.end = held + n;
        self.left -= n;
        Ok(())
    }

    /// Where decoding stopped: gone only after a decode failed part way,
    /// when nothing more is read.
    fn cursor(&mut self) -> Result<RleCursor, pq_encoding::Error> {
        self.cursor.take().ok_or(Self::fewer(1, 0))
    }

    fn fewer(expected: usize, found: usize) -> pq_encoding::Error {
        pq_encoding::Error::NotEnoughValues {
            what: "dictionary indices",
            expected,
            found,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(idx: &[u32], width: u8) -> Bytes {
        let mut out = vec![width];
        pq_encoding::rle::encode(idx, width, &mut out);
        Bytes::from(out)
    }

    #[test]
    fn takes_and_skips_agree_with_the_whole_page() {
        let idx: Vec<u32> = (0..20_000u32)
            .map(|i| if i % 1000 < 300 { 7 } else { i % 13 })
            .collect();
        let mut page = PageIndices::new(encoded(&idx, 4), idx.len(), Vec::new()).unwrap();
        let mut at = 0;
        let mut step = 1;
        while at < idx.len() {
            let n = step.min(idx.len() - at);
            if step % 3 == 0 {
                page.skip(n).unwrap();
            } else {
                assert_eq!(page.take(n).unwrap(), &idx[at..at + n], "at {at}");
            }
            at += n;
            step = step * 7 % 9001 + 1;
        }
        assert!(page.take(1).is_err());
        assert!(page.skip(1).is_err());
    }

    #[test]
    fn gathers_agree_with_the_whole_page() {
        // Bit-packed runs (varied values) and repeated ones (the 7s).
        let idx: Vec<u32> = (0..30_000u32)
            .map(|i| if i % 2000 < 500 { 7 } else { (i * 7) % 29 })
            .collect();
        let mut page = PageIndices::new(encoded(&idx, 5), idx.len(), Vec::new()).unwrap();
        let mut at = 0;
        let mut step = 5usize;
        let mut round = 0;
        while at < idx.len() {
            let n = step.min(idx.len() - at);
            // Sparse (one position in 50 or 400) and dense gathers, takes
            // and skips in between.
            let every = [50, 400, 3, 1][round % 4];
            let mut positions: Vec<u32> = (0..n as u32).filter(|p| p % every as u32 == 1).collect();
            let want: Vec<u32> = positions.iter().map(|&p| idx[at + p as usize]).collect();
            match round % 5 {
                3 => page.skip(n).unwrap(),
                4 => assert_eq!(page.take(n).unwrap(), &idx[at..at + n], "at {at}"),
                _ => {
                    page.gather(n, &mut positions).unwrap();
                    assert_eq!(positions, want, "at {at}, every {every}");
                }
            }
            at += n;
            round += 1;
            step = step * 13 % 7919 + 3;
        }
        assert!(page.take(1).is_err());
        // Positions out of order or range are not read from elsewhere.
        let mut page = PageIndices::new(encoded(&idx, 5), idx.len(), Vec::new()).unwrap();
        let mut positions = vec![10, 5, 9_999, 20_000];
        page.gather(10_000, &mut positions).unwrap();
        assert_eq!(positions, vec![idx[10], u32::MAX, idx[9_999], u32::MAX]);
        assert_eq!(page.take(1).unwrap(), &idx[10_000..10_001]);
        // Fewer indices than asked for is an error, not a short answer.
        let mut page = PageIndices::new(encoded(&idx[..100], 5), 100, Vec::new()).unwrap();
        assert!(page.gather(1_000, &mut [900]).is_err());
    }

    #[test]
    fn a_previous_pages_buffer_lends_memory_not_indices() {
        // The first page leaves its buffer full of 9s; the second page's
        // takes, skips and gathers see only its own indices, and running
        // out of them is an error rather than a read of the stale ones.
        let first = vec![9u32; 20_000];
        let mut page = PageIndices::new(encoded(&first, 4), first.len(), Vec::new()).unwrap();
        assert_eq!(page.take(20_000).unwrap(), &first[..]);
        let buf = page.into_buffer();
        assert!(buf.len() >= 20_000);
        let idx: Vec<u32> = (0..5_000u32).map(|i| i % 5).collect();
        let mut page = PageIndices::new(encoded(&idx, 3), idx.len(), buf).unwrap();
        assert_eq!(page.take(3).unwrap(), &idx[..3]);
        page.skip(4_000).unwrap();
        let mut positions = [0, 500];
        page.gather(600, &mut positions).unwrap();
        assert_eq!(positions, [idx[4_003], idx[4_503]]);
        assert_eq!(page.take(397).unwrap(), &idx[4_603..]);
        assert!(page.take(1).is_err());
        // A page declaring more indices than its runs hold, over a buffer
        // of stale 9s.
        let mut page = PageIndices::new(encoded(&first, 4), first.len(), Vec::new()).unwrap();
        page.take(20_000).unwrap();
        let mut page = PageIndices::new(encoded(&idx, 3), 6_000, page.into_buffer()).unwrap();
        assert!(page.take(5_001).is_err());
        assert!(page.take(1).is_err());
    }

    #[test]
    fn fewer_indices_than_the_page_declares_is_an_error() {
        let idx = [1u32, 2, 3];
        let mut page = PageIndices::new(encoded(&idx, 2), 10, Vec::new()).unwrap();
        assert!(page.take(10).is_err());
        let mut page = PageIndices::new(encoded(&idx, 2), 3, Vec::new()).unwrap();
        assert!(page.take(4).is_err());
        assert_eq!(page.take(3).unwrap(), &idx);
        // A page without its bit-width byte.
        assert!(PageIndices::new(Bytes::new(), 1, Vec::new()).is_err());
    }
}
