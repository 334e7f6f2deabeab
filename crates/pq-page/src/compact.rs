//! Levels in the least form that holds them: nothing while every level is
//! the max level (an optional column without nulls), else one bit per level
//! or one `i16` per level.
//!
//! A page's levels are decoded into a [`CompactLevels`] run by run
//! ([`Levels::decode_compact`]), and a batch is gathered from slices of
//! pages into another, so that a run of max levels costs one step at each
//! stage, not one per level.

use std::ops::Range;

use pq_encoding::Error;
use pq_encoding::bit_pack::unpack32;
use pq_encoding::rle::{Run, read_run};

use crate::bitmap::Bitmap;
use crate::levels::{LevelEncoding, Levels};

/// How a [`CompactLevels`] holds levels that are not all the max level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LevelForm {
    /// Every level as an `i16`, even when all are the max level.
    Levels,
    /// Nothing while every level is the max level, else every level as an
    /// `i16`.
    Compact,
    /// Nothing while every level is the max level, else one bit per level,
    /// set where the level is the max level. Only for a max level of 1,
    /// where the bits say all the levels do; with a larger max level it is
    /// [`LevelForm::Compact`].
    Bits,
}

/// What a [`CompactLevels`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LevelShape {
    /// Every level is the max level; only their number is kept.
    AllMax,
    /// One bit per level ([`CompactLevels::bits`]).
    Bits,
    /// One `i16` per level ([`CompactLevels::levels`]).
    Levels,
}

/// Levels kept as a count while all are the max level, and written out as
/// bits or `i16`s (see [`LevelForm`]) from the first that is not.
///
/// ```
/// use pq_page::{CompactLevels, LevelForm, LevelShape};
/// let mut page = CompactLevels::new(LevelForm::Bits, 1);
/// page.push_repeat(1, 1000);
/// assert_eq!(page.shape(), LevelShape::AllMax);
/// page.push_repeat(0, 3);
/// assert_eq!(page.shape(), LevelShape::Bits);
/// // A batch of the first 500 levels of the page has no null.
/// let mut batch = CompactLevels::new(LevelForm::Bits, 1);
/// assert_eq!(batch.extend_from(&page, 0..500), 500);
/// assert_eq!(batch.shape(), LevelShape::AllMax);
/// assert_eq!(batch.extend_from(&page, 998..1003), 2);
/// assert_eq!(batch.shape(), LevelShape::Bits);
/// assert_eq!(batch.len(), 505);
/// ```
#[derive(Debug, Clone)]
pub struct CompactLevels {
    form: LevelForm,
    max: i16,
    /// Leading levels at the max level, not written out.
    pending: usize,
    written: bool,
    /// Levels a page decoded whole will hold in all, once known: room for
    /// them is made at once when they start being written out, not by
    /// doubling (which would hold up to twice a page's levels).
    expected: usize,
    bits: Bitmap,
    levels: Vec<i16>,
}

impl Default for CompactLevels {
    fn default() -> Self {
        CompactLevels::new(LevelForm::Compact, 0)
    }
}

impl CompactLevels {
    /// No levels yet, of at most `max`, to be held in `form`.
    pub fn new(form: LevelForm, max: i16) -> Self {
        Self::with_buffers(form, max, Bitmap::default(), Vec::new())
    }

    /// Like [`CompactLevels::new`], writing into these buffers (emptied
    /// first), so that a caller can reuse allocations.
    pub fn with_buffers(form: LevelForm, max: i16, bits: Bitmap, mut levels: Vec<i16>) -> Self {
        let form = if form == LevelForm::Bits && max > 1 {
            LevelForm::Compact
        } else {
            form
        };
        let mut bits = bits;
        bits.clear();
        levels.clear();
        CompactLevels {
            form,
            max,
            pending: 0,
            written: form == LevelForm::Levels,
            expected: 0,
            bits,
            levels,
        }
    }

    /// The buffers, for reuse.
    pub fn into_buffers(self) -> (Bitmap, Vec<i16>) {
        (self.bits, self.levels)
    }

    /// The max level.
    pub fn max_level(&self) -> i16 {
        self.max
    }

    /// The number of levels.
    pub fn len(&self) -> usize {
        match self.shape() {
            LevelShape::AllMax => self.pending,
            LevelShape::Bits => self.bits.len(),
            LevelShape::Levels => self.levels.len(),
        }
    }

    /// Whether there are no levels.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How the levels are held.
    pub fn shape(&self) -> LevelShape {
        if !self.written {
            LevelShape::AllMax
        } else if self.form == LevelForm::Bits {
            LevelShape::Bits
        } else {
            LevelShape::Levels
        }
    }

    /// The bits, when the shape is [`LevelShape::Bits`].
    pub fn bits(&self) -> Option<&Bitmap> {
        (self.shape() == LevelShape::Bits).then_some(&self.bits)
    }

    /// The bits, when the shape is [`LevelShape::Bits`], for an Arrow
    /// validity buffer; the levels' buffer is returned too, for reuse.
    pub fn into_bits(self) -> (Option<Bitmap>, Vec<i16>) {
        let bits = (self.shape() == LevelShape::Bits).then_some(self.bits);
        (bits, self.levels)
    }

    /// The levels, when the shape is [`LevelShape::Levels`].
    pub fn levels(&self) -> Option<&[i16]> {
        (self.shape() == LevelShape::Levels).then_some(&self.levels)
    }

    /// The levels, when the shape is [`LevelShape::Levels`]; else the empty
    /// buffer, for reuse.
    pub fn into_levels(self) -> (Option<Vec<i16>>, Vec<i16>) {
        if self.shape() == LevelShape::Levels {
            (Some(self.levels), Vec::new())
        } else {
            (None, self.levels)
        }
    }

    /// How many of the levels in `range` are the max level (levels past
    /// the end count as not).
    pub fn count_max(&self, range: Range<usize>) -> usize {
        let range = range.start.min(self.len())..range.end.min(self.len());
        match self.shape() {
            LevelShape::AllMax => range.len(),
            LevelShape::Bits => self.bits.count_ones(range),
            LevelShape::Levels => {
                let max = self.max;
                let l = self.levels.get(range).unwrap_or_default();
                l.iter().map(|&x| usize::from(x == max)).sum()
            }
        }
    }

    /// Writes out the pending max levels: every level from here on is
    /// written. Inlined to its check, as it is done once a page.
    #[inline(always)]
    fn start_writing(&mut self) {
        if !self.written {
            self.write_pending();
        }
    }

    /// [`CompactLevels::start_writing`]'s work, the once it is needed.
    fn write_pending(&mut self) {
        self.written = true;
        self.reserve_expected();
        let n = std::mem::take(&mut self.pending);
        match self.form {
            LevelForm::Bits => self.bits.push_run(true, n),
            LevelForm::Levels | LevelForm::Compact => {
                self.levels.resize(self.levels.len() + n, self.max)
            }
        }
    }

    /// Makes room for the expected levels in the form they are written in.
    fn reserve_expected(&mut self) {
        let total = std::mem::take(&mut self.expected);
        match self.form {
            LevelForm::Bits => self.bits.reserve(total.saturating_sub(self.bits.len())),
            LevelForm::Levels | LevelForm::Compact => self
                .levels
                .reserve_exact(total.saturating_sub(self.levels.len())),
        }
    }

    /// Appends `n` copies of `level` (at most the max level).
    #[inline(always)]
    pub fn push_repeat(&mut self, level: i16, n: usize) {
        if !self.written && level == self.max {
            self.pending += n;
            return;
        }
        self.start_writing();
        match self.form {
            LevelForm::Bits => self.bits.push_run(level == self.max, n),
            LevelForm::Levels | LevelForm::Compact => {
                self.levels.resize(self.levels.len() + n, level)
            }
        }
    }

    /// Appends `levels` (each at most the max level).
    pub fn push_levels(&mut self, levels: &[i16]) {
        let max = self.max;
        // No early exit, so that the compare vectorises.
        if !self.written && levels.iter().fold(true, |all, &l| all & (l == max)) {
            self.pending += levels.len();
            return;
        }
        self.start_writing();
        match self.form {
            LevelForm::Bits => {
                for chunk in levels.chunks(64) {
                    let mut word = 0u64;
                    for (j, &l) in chunk.iter().enumerate() {
                        word |= u64::from(l == max) << j;
                    }
                    self.bits.push_bytes(&word.to_le_bytes(), chunk.len());
                }
            }
            LevelForm::Levels | LevelForm::Compact => self.levels.extend_from_slice(levels),
        }
    }

    /// Appends `n` levels of 0 or 1 bit-packed in `bytes`, LSB first (the
    /// max level is 1: set bits are max levels): in the bits form, the
    /// bytes are the bits. (`bytes` may go on past the `n` bits.)
    #[inline(always)]
    fn push_packed_bits(&mut self, bytes: &[u8], n: usize) {
        if !self.written && all_ones(bytes, n) {
            self.pending += n;
            return;
        }
        self.start_writing();
        if self.form == LevelForm::Bits {
            self.bits.push_bytes(bytes, n);
        } else {
            let bit = |i: usize| bytes.get(i / 8).is_some_and(|b| b >> (i % 8) & 1 == 1);
            self.levels.extend((0..n).map(|i| i16::from(bit(i))));
        }
    }

    /// Appends the levels `range` (clamped to the levels held) to `out`, an
    /// `i16` each, whatever their shape.
    ///
    /// ```
    /// use pq_page::{CompactLevels, LevelForm};
    /// let mut rep = CompactLevels::new(LevelForm::Bits, 1);
    /// rep.push_levels(&[0, 1, 1, 0, 1]);
    /// let mut out = vec![7];
    /// rep.levels_into(1..5, &mut out);
    /// assert_eq!(out, [7, 1, 1, 0, 1]);
    /// ```
    pub fn levels_into(&self, range: Range<usize>, out: &mut Vec<i16>) {
        let range = range.start.min(self.len())..range.end.min(self.len());
        match self.shape() {
            LevelShape::AllMax => out.resize(out.len() + range.len(), self.max),
            LevelShape::Levels => out.extend_from_slice(self.levels.get(range).unwrap_or_default()),
            LevelShape::Bits => {
                // Word by word, so that the loop over a word's bits
                // vectorises. Bits are levels of a max level of 1.
                out.reserve(range.len());
                let mut at = range.start;
                while at < range.end {
                    let k = (range.end - at).min(64);
                    let word = self.bits.word_at(at);
                    out.extend((0..k).map(|j| ((word >> j) & 1) as i16));
                    at += k;
                }
            }
        }
    }

    /// Appends the levels `range` of `src` (of the same max level); returns
    /// how many are the max level. The range is clamped to `src`.
    pub fn extend_from(&mut self, src: &CompactLevels, range: Range<usize>) -> usize {
        let range = range.start.min(src.len())..range.end.min(src.len());
        match src.shape() {
            LevelShape::AllMax => {
                self.push_repeat(self.max, range.len());
                range.len()
            }
            LevelShape::Levels => {
                let levels = src.levels.get(range).unwrap_or_default();
                self.push_levels(levels);
                let max = self.max;
                levels.iter().map(|&l| usize::from(l == max)).sum()
            }
            LevelShape::Bits => {
                let ones = src.bits.count_ones(range.clone());
                if !self.written && ones == range.len() {
                    self.pending += ones;
                    return ones;
                }
                self.start_writing();
                if self.form == LevelForm::Bits {
                    self.bits.extend_from_range(&src.bits, range);
                } else {
                    src.levels_into(range, &mut self.levels);
                }
                ones
            }
        }
    }
}

/// The common run of width-1 levels (max level 1) into the bits form,
/// appended without [`read_run`]'s general steps: a one-byte header, then a
/// repeated level of 0 or 1, or whole bytes of bit-packed levels, within
/// the levels left and the page's bytes. Returns the levels appended, or
/// `None`, having read nothing, for any other run, which the general path
/// reads and checks.
///
/// An OPTIONAL column with scattered nulls alternates short runs of each
/// kind (a run every 20 levels in Polars' and arrow-rs's files with 10 %
/// nulls), so a run's fixed cost is most of the levels' cost.
#[inline]
fn bit_run(data: &[u8], pos: &mut usize, left: usize, out: &mut CompactLevels) -> Option<usize> {
    let at = *pos;
    let header = *data.get(at)?;
    let count = usize::from(header >> 1);
    if header >= 0x80 || count == 0 {
        return None;
    }
    if header & 1 == 0 {
        let level = i16::from(*data.get(at + 1)?);
        if level > out.max || count > left {
            return None;
        }
        *pos = at + 2;
        out.push_repeat(level, count);
        Some(count)
    } else {
        // `count` groups of 8 levels, a byte each at width 1.
        let values = count * 8;
        if values > left || data.len() < at + 1 + count {
            return None;
        }
        *pos = at + 1 + count;
        // The run's bytes with those after it: its bits are read a word at
        // a time, eight bytes at once where the page has them (past the
        // run's bits they are not appended).
        out.push_packed_bits(data.get(at + 1..).unwrap_or_default(), values);
        Some(values)
    }
}

/// Whether the first `n` bits of `bytes` are all set.
fn all_ones(bytes: &[u8], n: usize) -> bool {
    let (full, tail) = (n / 8, n % 8);
    bytes
        .get(..full)
        .is_some_and(|b| b.iter().all(|&x| x == 0xff))
        && (tail == 0
            || bytes
                .get(full)
                .is_some_and(|&b| (b | !((1u8 << tail) - 1)) == 0xff))
}

fn level_above_max(found: i16) -> Error {
    Error::Invalid {
        what: "level",
        expected: "at most the column's max level",
        found: found.into(),
    }
}

impl Levels {
    /// Decodes all the page's levels into `out` (emptied first, keeping
    /// its form and buffers; its max level becomes the page's), checking
    /// each is at most the max level and that the runs hold exactly the
    /// page's levels, with the errors of [`Levels::decoder`].
    ///
    /// A repeated run is one step whatever its length; a bit-packed run is
    /// checked and written 32 levels at a time, or, for bits of levels of
    /// width 1, copied as it is.
    ///
    /// ```
    /// use pq_page::{CompactLevels, LevelEncoding, LevelForm, LevelShape, Levels};
    /// // 1000 levels of 1 (one repeated run), max level 1.
    /// let levels = Levels::new(vec![0xd0, 0x0f, 0x01].into(), LevelEncoding::Rle, 1, 1000);
    /// let mut out = CompactLevels::new(LevelForm::Bits, 1);
    /// levels.decode_compact(&mut out).unwrap();
    /// assert_eq!((out.shape(), out.len()), (LevelShape::AllMax, 1000));
    /// ```
    pub fn decode_compact(&self, out: &mut CompactLevels) -> Result<(), Error> {
        let old = std::mem::take(out);
        let form = old.form;
        let (bits, levels) = old.into_buffers();
        *out = CompactLevels::with_buffers(form, self.max_level(), bits, levels);
        let n = self.len();
        // The page declares its levels (within `PageOptions::max_page_values`),
        // and decoding checks every run against those left: they are room
        // the page's runs would take anyway.
        out.expected = n;
        if out.written {
            out.reserve_expected();
        }
        if self.max_level() == 0 {
            out.push_repeat(0, n);
        } else if self.encoding() == LevelEncoding::BitPacked {
            // Deprecated and rare: decoded level by level. The bytes must
            // hold every level before room is made for them.
            let needed = n.saturating_mul(usize::from(self.bit_width())).div_ceil(8);
            if needed > self.bytes().len() {
                return Err(Error::Eof {
                    what: "BIT_PACKED levels",
                    expected: needed,
                    found: self.bytes().len(),
                });
            }
            let mut all = Vec::new();
            self.decode_into(&mut all)?;
            out.push_levels(&all);
        } else if n > 0 {
            self.decode_runs(out)?;
        }
        Ok(())
    }

    /// The hybrid runs of the levels into `out`. A run is checked once
    /// against the levels that remain (a last bit-packed run may be padded
    /// by up to 7 levels), and bytes after the run holding the last level
    /// are an error, since the levels' length is known.
    fn decode_runs(&self, out: &mut CompactLevels) -> Result<(), Error> {
        let data = self.bytes();
        let width = usize::from(self.bit_width());
        let max = self.max_level();
        let n = self.len();
        let mut left = n;
        let mut pos = 0usize;
        let mut run_end = 0usize;
        let mut group = [0i16; 32];
        let bits_form = width == 1 && out.form == LevelForm::Bits;
        while left > 0 {
            if bits_form && let Some(k) = bit_run(data, &mut pos, left, out) {
                run_end = pos;
                left -= k;
                continue;
            }
            if pos >= data.len() {
                return Err(Error::NotEnoughValues {
                    what: "levels",
                    expected: n,
                    found: n - left,
                });
            }
            match read_run(data, &mut pos, width, left)? {
                Run::Repeated { value, count } => {
                    // A level is at most 16 bits wide (its max is an i16);
                    // a value with the top bit set reads as negative.
                    let level = (value as u16).cast_signed();
                    if !(0..=max).contains(&level) {
                        return Err(level_above_max(level));
                    }
                    run_end = pos;
                    out.push_repeat(level, count);
                    left -= count;
                }
                Run::BitPacked { start, end, values } => {
                    run_end = end;
                    let run = data.get(start..end).unwrap_or_default();
                    let len = values;
                    if width == 1 && out.form == LevelForm::Bits {
                        out.push_packed_bits(run, len);
                    } else {
                        for (g, chunk) in run.chunks(4 * width).enumerate() {
                            let k = len.saturating_sub(g * 32).min(32);
                            if k == 0 {
                                break;
                            }
                            unpack32(chunk, &mut group, width);
                            let got = group.get(..k).unwrap_or_default();
                            let top = got.iter().fold(0i16, |m, &l| m.max(l));
                            if top > max {
                                return Err(level_above_max(top));
                            }
                            out.push_levels(got);
                        }
                    }
                    left -= len;
                }
            }
        }
        if data.len() > run_end {
            return Err(Error::TrailingBytes {
                found: data.len() - run_end,
                offset: run_end,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::levels::bit_width;
    use proptest::prelude::*;

    /// One run of a hand-built hybrid stream: a repeated run, or a
    /// bit-packed run of whole groups of 8.
    #[derive(Debug, Clone)]
    enum Run {
        Repeat(i16, usize),
        Packed(Vec<i16>),
    }

    fn runs(max: i16, null_free: bool) -> impl Strategy<Value = Vec<Run>> {
        let level = move || (0..=max).prop_map(move |l| if null_free { max } else { l });
        let run = prop_oneof![
            (level(), 1usize..300).prop_map(|(l, n)| Run::Repeat(l, n)),
            (1usize..6).prop_flat_map(move |groups| {
                proptest::collection::vec(level(), groups * 8).prop_map(Run::Packed)
            }),
        ];
        proptest::collection::vec(run, 0..12)
    }

    /// The stream of `runs` at the bit width of `max`, and its levels; the
    /// last bit-packed run may declare up to 7 padding levels past them.
    fn encode(runs: &[Run], max: i16, pad: usize) -> (Vec<u8>, Vec<i16>) {
        let width = usize::from(bit_width(max));
        let (mut out, mut levels) = (Vec::new(), Vec::new());
        let varint = |out: &mut Vec<u8>, mut v: usize| loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(b);
                break;
            }
            out.push(b | 0x80);
        };
        for run in runs {
            match run {
                Run::Repeat(l, n) => {
                    varint(&mut out, n << 1);
                    out.extend_from_slice(&l.to_le_bytes()[..width.div_ceil(8)]);
                    levels.extend(std::iter::repeat_n(*l, *n));
                }
                Run::Packed(v) => {
                    varint(&mut out, (v.len() / 8) << 1 | 1);
                    let mut bits = vec![0u8; v.len() * width / 8];
                    for (i, &l) in v.iter().enumerate() {
                        for b in 0..width {
                            if l >> b & 1 == 1 {
                                let at = i * width + b;
                                bits[at / 8] |= 1 << (at % 8);
                            }
                        }
                    }
                    out.extend_from_slice(&bits);
                    levels.extend_from_slice(v);
                }
            }
        }
        if matches!(runs.last(), Some(Run::Packed(_))) {
            levels.truncate(levels.len() - pad.min(7));
        }
        (out, levels)
    }

    fn compact(levels: &Levels, form: LevelForm) -> Result<CompactLevels, Error> {
        let mut out = CompactLevels::new(form, 0);
        levels.decode_compact(&mut out)?;
        Ok(out)
    }

    /// Every level of `c`, whatever its shape.
    fn expand(c: &CompactLevels) -> Vec<i16> {
        match c.shape() {
            LevelShape::AllMax => vec![c.max_level(); c.len()],
            LevelShape::Bits => {
                let b = c.bits().unwrap();
                (0..b.len()).map(|i| i16::from(b.get(i))).collect()
            }
            LevelShape::Levels => c.levels().unwrap().to_vec(),
        }
    }

    /// A page's levels are written into room made once for all of them:
    /// growing by doubling would hold up to twice a page's levels.
    #[test]
    fn a_page_is_decoded_into_room_for_exactly_its_levels() {
        let runs = [
            Run::Repeat(2, 300),
            Run::Repeat(1, 5),
            Run::Repeat(2, 1000),
            Run::Packed(vec![0, 1, 2, 2, 2, 2, 1, 0]),
        ];
        let (bytes, want) = encode(&runs, 2, 0);
        let levels = Levels::new(bytes.into(), LevelEncoding::Rle, 2, want.len());
        for form in [LevelForm::Levels, LevelForm::Compact] {
            let c = compact(&levels, form).unwrap();
            assert_eq!(expand(&c), want);
            assert_eq!(c.levels.capacity(), want.len(), "{form:?}");
        }
        let (bytes, want) = encode(&[Run::Repeat(1, 700), Run::Repeat(0, 3000)], 1, 0);
        let levels = Levels::new(bytes.into(), LevelEncoding::Rle, 1, want.len());
        let c = compact(&levels, LevelForm::Bits).unwrap();
        assert_eq!(expand(&c), want);
        assert_eq!(c.bits.capacity_bits(), want.len().div_ceil(64) * 64);
    }

    proptest! {
        /// Every form against the level-by-level decoder: the same levels,
        /// nothing written when all are the max level (but in the levels
        /// form), and batches cut anywhere from pages hold their slices.
        #[test]
        fn compact_forms_match_the_level_decoder(
            (max, runs) in (1i16..=4, any::<bool>())
                .prop_flat_map(|(max, free)| (Just(max), runs(max, free))),
            pad in 0usize..8,
            cuts in proptest::collection::vec(0usize..2000, 0..6),
        ) {
            let (bytes, want) = encode(&runs, max, pad);
            let levels = Levels::new(bytes.into(), LevelEncoding::Rle, max, want.len());
            let mut plain = Vec::new();
            levels.decode_into(&mut plain).unwrap();
            prop_assert_eq!(&plain, &want);
            let all_max = want.iter().all(|&l| l == max);
            for form in [LevelForm::Levels, LevelForm::Compact, LevelForm::Bits] {
                let c = compact(&levels, form).unwrap();
                prop_assert_eq!(c.len(), want.len());
                let shape = match form {
                    LevelForm::Levels => LevelShape::Levels,
                    _ if all_max => LevelShape::AllMax,
                    LevelForm::Bits if max == 1 => LevelShape::Bits,
                    _ => LevelShape::Levels,
                };
                prop_assert_eq!(c.shape(), shape);
                prop_assert_eq!(&expand(&c), &want);
                // A batch from slices of the page, cut at `cuts`.
                let mut ends: Vec<usize> = cuts.iter().map(|c| c % (want.len() + 1)).collect();
                ends.push(want.len());
                ends.sort_unstable();
                let mut batch = CompactLevels::new(form, max);
                let mut start = 0;
                for end in ends {
                    let got = batch.extend_from(&c, start..end);
                    let slice = &want[start..end];
                    prop_assert_eq!(got, slice.iter().filter(|&&l| l == max).count());
                    prop_assert_eq!(c.count_max(start..end), got);
                    let mut as_levels = vec![-1];
                    c.levels_into(start..end, &mut as_levels);
                    prop_assert_eq!(&as_levels[1..], slice);
                    start = end;
                }
                prop_assert_eq!(&expand(&batch), &want);
                prop_assert_eq!(batch.shape() == LevelShape::AllMax, shape == LevelShape::AllMax);
            }
        }

        /// A damaged stream: the run-by-run decoder fails exactly where the
        /// level-by-level one does, else both give the same levels.
        #[test]
        fn damaged_streams_fail_as_the_level_decoder_does(
            (max, runs) in (1i16..=3, any::<bool>())
                .prop_flat_map(|(max, free)| (Just(max), runs(max, free))),
            flip in any::<(usize, u8)>(),
            count_delta in -3isize..3,
        ) {
            let (mut bytes, want) = encode(&runs, max, 0);
            if !bytes.is_empty() {
                let at = flip.0 % bytes.len();
                bytes[at] ^= flip.1;
            }
            let n = want.len().saturating_add_signed(count_delta);
            let levels = Levels::new(bytes.into(), LevelEncoding::Rle, max, n);
            if n == 0 {
                // A page without levels reads none, whatever its level
                // bytes (the streaming decoder, asked for none, checks
                // them; the reader never asked it).
                for form in [LevelForm::Levels, LevelForm::Compact, LevelForm::Bits] {
                    prop_assert_eq!(compact(&levels, form).unwrap().len(), 0);
                }
                return Ok(());
            }
            let mut plain = Vec::new();
            let old = levels.decode_into(&mut plain);
            for form in [LevelForm::Levels, LevelForm::Compact, LevelForm::Bits] {
                let new = compact(&levels, form);
                prop_assert_eq!(new.is_ok(), old.is_ok(), "{:?} vs {:?}", new.as_ref().err(), old);
                if let Ok(c) = new {
                    prop_assert_eq!(&expand(&c), &plain);
                }
            }
        }
    }

    #[test]
    fn runs_past_the_page_and_bytes_after_it_are_errors() {
        // A repeated run of 9 where the page holds 5.
        let l = Levels::new(vec![0x12, 0x01].into(), LevelEncoding::Rle, 1, 5);
        let e = compact(&l, LevelForm::Bits).unwrap_err();
        assert!(
            matches!(
                e,
                Error::RunOverrun {
                    declared: 9,
                    remaining: 5,
                    ..
                }
            ),
            "{e}"
        );
        // 5 levels, then a byte no run accounts for.
        let l = Levels::new(vec![0x0a, 0x01, 0x00].into(), LevelEncoding::Rle, 1, 5);
        let e = compact(&l, LevelForm::Compact).unwrap_err();
        assert!(
            matches!(
                e,
                Error::TrailingBytes {
                    found: 1,
                    offset: 2
                }
            ),
            "{e}"
        );
        // A last bit-packed run padded with a whole group whose bytes end
        // the block (as DuckDB writes): 3 levels read, the padding ignored.
        let l = Levels::new(vec![0x05, 0x07, 0x00].into(), LevelEncoding::Rle, 1, 3);
        for form in [LevelForm::Levels, LevelForm::Compact, LevelForm::Bits] {
            assert_eq!(expand(&compact(&l, form).unwrap()), [1, 1, 1]);
        }
        // The same run followed by another: its header is corrupt.
        let l = Levels::new(
            vec![0x05, 0x07, 0x00, 0x02, 0x01].into(),
            LevelEncoding::Rle,
            1,
            3,
        );
        let e = compact(&l, LevelForm::Bits).unwrap_err();
        assert!(matches!(e, Error::RunOverrun { declared: 16, .. }), "{e}");
        // A level above the max: 3 with max 2.
        let l = Levels::new(vec![0x0a, 0x03].into(), LevelEncoding::Rle, 2, 5);
        assert!(compact(&l, LevelForm::Levels).is_err());
    }

    #[test]
    fn bit_packed_levels_of_a_v1_page() {
        // Deprecated BIT_PACKED, MSB first: 1,0,1,1,1,1,1,1 then 1,1.
        let l = Levels::new(
            vec![0b1011_1111, 0b1100_0000].into(),
            LevelEncoding::BitPacked,
            1,
            10,
        );
        let c = compact(&l, LevelForm::Bits).unwrap();
        assert_eq!(c.shape(), LevelShape::Bits);
        assert_eq!(expand(&c), [1, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
        // Fewer bytes than the levels need.
        let l = Levels::new(vec![0xff].into(), LevelEncoding::BitPacked, 1, 10);
        assert!(compact(&l, LevelForm::Bits).is_err());
    }
}
