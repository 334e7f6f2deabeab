//! Bytes pushed to a decoder, kept until the requests they answer are
//! served, and the merging of requests into fewer ranges.

use std::ops::Range;

use bytes::Bytes;

use crate::pool::Pool;

/// Default for the largest gap between two requested ranges that are
/// merged into one read: 64 KiB, as object_store's `coalesce_ranges`; a
/// read of the gap costs less than another request.
pub const DEFAULT_COALESCE_GAP: u64 = 64 << 10;

/// `ranges` sorted and merged where they overlap, touch, or lie less than
/// `gap` bytes apart.
pub(crate) fn coalesce(mut ranges: Vec<Range<u64>>, gap: u64) -> Vec<Range<u64>> {
    ranges.retain(|r| r.start < r.end);
    ranges.sort_unstable_by_key(|r| (r.start, r.end));
    let mut out: Vec<Range<u64>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.start <= last.end.saturating_add(gap) => {
                last.end = last.end.max(r.end);
            }
            _ => out.push(r),
        }
    }
    out
}

/// Pieces of the file pushed and not yet handed to the readers that asked
/// for them.
#[derive(Debug, Default)]
pub(crate) struct Pieces {
    /// `(absolute offset, bytes)`.
    pieces: Vec<(u64, Bytes)>,
}

impl Pieces {
    /// Keeps `data`, the bytes of the file from `offset`.
    pub(crate) fn push(&mut self, offset: u64, data: Bytes) {
        if !data.is_empty() {
            self.pieces.push((offset, data));
        }
    }

    /// The bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.pieces.iter().map(|(_, d)| d.len()).sum()
    }

    /// Bytes from an offset at or before `need.start` that cover `need`: a
    /// piece that covers it whole (shared, not copied, with whatever it
    /// holds past `need`), else a copy of exactly `need` joined from
    /// several pieces; `None` while they do not cover it.
    pub(crate) fn cover(&self, need: &Range<u64>) -> Option<(u64, Bytes)> {
        self.cover_from(need, &Pool::none())
    }

    /// [`cover`](Self::cover), joining into a buffer of `pool` (which
    /// returns to it when the readers let the bytes go).
    pub(crate) fn cover_from(&self, need: &Range<u64>, pool: &Pool) -> Option<(u64, Bytes)> {
        let end_of = |(o, d): &(u64, Bytes)| o.saturating_add(d.len() as u64);
        if let Some((o, d)) = self
            .pieces
            .iter()
            .find(|p| p.0 <= need.start && end_of(p) >= need.end)
        {
            return Some((*o, d.clone()));
        }
        // Joined from pieces, each taken from where the last ended.
        let len = usize::try_from(need.end.checked_sub(need.start)?).ok()?;
        let mut out: Vec<u8> = Vec::new();
        let mut at = need.start;
        while at < need.end {
            let (o, d) = self
                .pieces
                .iter()
                .filter(|p| p.0 <= at && end_of(p) > at)
                .max_by_key(|p| end_of(p))?;
            let from = usize::try_from(at - o).ok()?;
            let to = usize::try_from(need.end.min(o.saturating_add(d.len() as u64)) - o).ok()?;
            if out.capacity() == 0 {
                out = pool.take(len);
            }
            out.extend_from_slice(d.get(from..to)?);
            at = o.saturating_add(to as u64);
        }
        Some((need.start, pool.bytes(out)))
    }

    /// Whether the pieces cover `need` (what [`cover`](Self::cover)
    /// would give, without joining anything).
    pub(crate) fn covers(&self, need: &Range<u64>) -> bool {
        let mut at = need.start;
        while at < need.end {
            let reach = self
                .pieces
                .iter()
                .filter(|(o, d)| *o <= at && o.saturating_add(d.len() as u64) > at)
                .map(|(o, d)| o.saturating_add(d.len() as u64))
                .max();
            match reach {
                Some(end) => at = end,
                None => return false,
            }
        }
        true
    }

    /// Drops the pieces that hold nothing of `ranges`.
    pub(crate) fn keep_for(&mut self, ranges: &[Range<u64>]) {
        self.pieces.retain(|(o, d)| {
            let end = o.saturating_add(d.len() as u64);
            ranges.iter().any(|r| *o < r.end && end > r.start)
        });
    }

    /// Takes every piece (for the next stage of a decoder).
    pub(crate) fn take(&mut self) -> Pieces {
        std::mem::take(self)
    }

    /// The pieces, as `(absolute offset, bytes)`.
    pub(crate) fn into_pieces(self) -> Vec<(u64, Bytes)> {
        self.pieces
    }
}

#[cfg(test)]
mod tests {
    use super::{Pieces, Pool, coalesce};
    use bytes::Bytes;

    #[test]
    fn coalescing_merges_close_ranges_only() {
        let got = coalesce(vec![20..30, 0..10, 12..15, 100..110, 5..8, 40..40], 2);
        assert_eq!(got, vec![0..15, 20..30, 100..110]);
        assert_eq!(coalesce(vec![0..10, 11..20], 0), vec![0..10, 11..20]);
        assert_eq!(coalesce(vec![0..10, 10..20], 0), vec![0..20]);
    }

    #[test]
    fn a_range_is_served_from_one_piece_or_joined_from_several() {
        let file: Vec<u8> = (0..=255).collect();
        let mut p = Pieces::default();
        p.push(10, Bytes::copy_from_slice(&file[10..20]));
        p.push(20, Bytes::copy_from_slice(&file[20..25]));
        p.push(18, Bytes::copy_from_slice(&file[18..40]));
        // One piece covers it: shared, from the piece's start.
        let (o, d) = p.cover(&(12..15)).expect("covered");
        assert_eq!((o, &d[..]), (10, &file[10..20]));
        // Joined: exactly the range.
        let (o, d) = p.cover(&(12..35)).expect("joined");
        assert_eq!((o, &d[..]), (12, &file[12..35]));
        assert!(p.cover(&(5..12)).is_none());
        assert!(p.covers(&(12..35)) && p.covers(&(12..15)) && !p.covers(&(5..12)));
        assert!(p.cover(&(30..41)).is_none());
        p.keep_for(&[21..22, 1000..1001]);
        assert_eq!(p.bytes(), 5 + 22);
    }

    #[test]
    fn a_joined_range_is_a_buffer_of_the_pool_and_comes_back() {
        let file: Vec<u8> = (0..=255).cycle().take(40_000).collect();
        let mut p = Pieces::default();
        p.push(0, Bytes::copy_from_slice(&file[..20_000]));
        p.push(20_000, Bytes::copy_from_slice(&file[20_000..]));
        let pool = Pool::new(1 << 20);
        let (o, d) = p.cover_from(&(15_000..25_000), &pool).expect("joined");
        assert_eq!((o, &d[..]), (15_000, &file[15_000..25_000]));
        let at = d.as_ptr();
        assert_eq!(pool.kept_bytes(), 0);
        drop(d);
        assert!(pool.kept_bytes() >= 10_000);
        let (_, again) = p.cover_from(&(14_000..24_000), &pool).expect("joined");
        assert_eq!(again.as_ptr(), at);
        assert_eq!(&again[..], &file[14_000..24_000]);
        // One piece covers it: shared, not copied.
        let (_, shared) = p.cover_from(&(100..200), &pool).expect("covered");
        assert_eq!(shared.as_ptr(), p.pieces[0].1.as_ptr());
    }
}
