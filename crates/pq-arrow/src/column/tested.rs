//! Values tested as they are read: a column whose predicate is one
//! [`ByteTest`] (`c = 'x'`, `c != 'x'`, `c [NOT] IN (…)`, `c [NOT] LIKE
//! 'x%'`), alone or as a conjunct of an `AND` whose other conjuncts read
//! other columns, is read, in a batch the predicate tests, as the answer
//! for each row plus the values that pass, and nothing else.
//!
//! Decoding a string column to test it copies every value into the
//! batch's buffer, checks it as UTF-8, and walks the copies again to
//! compare them; for an equality on a high-cardinality string that keeps
//! one row in a million, that is nearly all of the read. Here a PLAIN
//! page's values are compared where they lie, in the one walk over their
//! lengths; a dictionary's entries are tested once and each index looks its
//! answer up; values of the other encodings are decoded as before and
//! tested from the decoded buffer. Only the values that pass are copied
//! (strings checked as they are).
//!
//! Every value's bounds are still checked as decoding checks them, and a
//! dictionary index past the dictionary is an error whether or not its row
//! would pass: a corrupt page fails as it fails when decoded.

use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer};
use pq_encoding::offsets::OffsetSize;
use pq_encoding::plain::{ByteArrayDecoder, LENGTH_PREFIX};
use pq_page::Bitmap;

use super::buffer::short;
use super::values::{Dense, gather_plain_bytes};
use super::{Dict, PlainDict};
use crate::error::{Location, Result, data_err, enc_err};
pub(crate) use crate::predicate::byte_eq::ByteTest;

/// Buffers a tested column reuses from page to page.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// Where each passing value of a PLAIN page begins and ends (two
    /// entries a value, in the form
    /// [`gather_plain_bytes`] reads).
    starts: Vec<u32>,
    /// The passing values' positions (in `starts`, among decoded values,
    /// or in the dictionary).
    pub(super) idx: Vec<u32>,
    /// The values of a page of another encoding, decoded to be tested.
    pub(super) values: Option<Dense>,
}

/// Answers packed into a bitmap 64 at a time.
struct Answers<'a> {
    out: &'a mut Bitmap,
    word: u64,
    bit: usize,
}

impl<'a> Answers<'a> {
    fn new(out: &'a mut Bitmap) -> Self {
        Answers {
            out,
            word: 0,
            bit: 0,
        }
    }

    #[inline(always)]
    fn push(&mut self, pass: bool) {
        self.word |= u64::from(pass) << self.bit;
        self.bit += 1;
        if self.bit == 64 {
            self.out.push_word(self.word, 64);
            (self.word, self.bit) = (0, 0);
        }
    }

    fn finish(self) {
        if self.bit > 0 {
            self.out.push_word(self.word, self.bit);
        }
    }
}

/// Tests the next `n` PLAIN values of `data` (from byte `*pos`), appends
/// their answers to `answers` and the values that pass to `out`, and moves
/// `*pos` past them. Fewer values than `n` is an error, as when decoding.
#[allow(clippy::too_many_arguments)]
pub(super) fn test_plain(
    test: &ByteTest,
    out: &mut Dense,
    data: &[u8],
    pos: &mut usize,
    n: usize,
    answers: &mut Bitmap,
    scratch: &mut Scratch,
    at: &Location,
) -> Result<()> {
    let rest = data.get(*pos..).unwrap_or_default();
    // Positions are kept as `u32`s, as a dictionary's index keeps them.
    if rest.len() > u32::MAX as usize - 2 * LENGTH_PREFIX {
        return Err(data_err(at, "a PLAIN page of 4 GiB or more"));
    }
    let Scratch { starts, idx, .. } = scratch;
    starts.clear();
    idx.clear();
    let mut a = Answers::new(answers);
    let mut dec = ByteArrayDecoder::new(rest);
    // Every length OR-ed: below 128 when each one is.
    let mut lengths = 0usize;
    let got = dec
        .for_each(n, |start, len| {
            lengths |= len;
            let pass = test.passes_at(rest, start, len);
            a.push(pass);
            if pass {
                // Below `u32::MAX`: the page's length was checked.
                idx.push(starts.len() as u32);
                starts.push(start as u32);
                starts.push((start + len + LENGTH_PREFIX) as u32);
            }
        })
        .map_err(|e| enc_err(at, e))?;
    a.finish();
    if got < n {
        return Err(short(at, "BYTE_ARRAY values", n, got));
    }
    if matches!(out, Dense::Utf8(_) | Dense::LargeUtf8(_)) {
        check_utf8(
            rest.get(..dec.position()).unwrap_or_default(),
            n,
            lengths < 128,
            at,
        )?;
    }
    *pos += dec.position();
    if !idx.is_empty() {
        gather_plain_bytes(out, rest, starts, idx, at)?;
    }
    Ok(())
}

/// Checks that each of the `n` PLAIN strings of `span` is valid UTF-8,
/// those that fail the test as well as those that pass, so that a page
/// with an invalid string fails whatever the predicate, as it fails when
/// decoded. With `short` (every value under 128 bytes) each length prefix
/// is four ASCII bytes, and the span is valid UTF-8 exactly when every
/// value is (a character cannot run across a prefix): one pass over the
/// span, nearly always the ASCII one. Otherwise value by value.
fn check_utf8(span: &[u8], n: usize, short: bool, at: &Location) -> Result<()> {
    if short && (span.is_ascii() || std::str::from_utf8(span).is_ok()) {
        return Ok(());
    }
    let mut bad = None;
    ByteArrayDecoder::new(span)
        .for_each(n, |start, len| {
            let v = span.get(start..start + len).unwrap_or_default();
            if bad.is_none()
                && let Err(e) = std::str::from_utf8(v)
            {
                bad = Some(e);
            }
        })
        .map_err(|e| enc_err(at, e))?;
    match bad {
        Some(e) => Err(data_err(
            at,
            format!("invalid UTF-8 in a string value: {e}"),
        )),
        None => Ok(()),
    }
}

/// Tests every value of `values` (decoded byte arrays), appends their
/// answers to `answers`, and leaves the positions of those that pass in
/// `idx`.
pub(super) fn test_decoded(
    test: &ByteTest,
    values: &Dense,
    answers: &mut Bitmap,
    idx: &mut Vec<u32>,
    at: &Location,
) -> Result<()> {
    idx.clear();
    match values {
        Dense::Bytes(b) => test_parts(test, &b.offsets, &b.values, answers, idx),
        Dense::LargeBytes(b) => test_parts(test, &b.offsets, &b.values, answers, idx),
        Dense::Utf8(s) => test_parts(test, &s.raw().offsets, &s.raw().values, answers, idx),
        Dense::LargeUtf8(s) => test_parts(test, &s.raw().offsets, &s.raw().values, answers, idx),
        _ => return Err(not_bytes(at)),
    }
    Ok(())
}

fn test_parts<O: OffsetSize>(
    test: &ByteTest,
    offsets: &[O],
    values: &[u8],
    answers: &mut Bitmap,
    idx: &mut Vec<u32>,
) {
    let mut a = Answers::new(answers);
    for (i, w) in offsets.windows(2).enumerate() {
        let v = match w {
            [s, e] => values.get(s.as_usize()..e.as_usize()).unwrap_or_default(),
            _ => &[],
        };
        let pass = test.passes(v);
        a.push(pass);
        if pass {
            // A page's value count is an `i32`.
            idx.push(i as u32);
        }
    }
    a.finish();
}

/// Tests dictionary indices `ix`: each entry of `dict` is tested once (on
/// first use), each index looks up its entry's answer. The answers go to
/// `answers`, the passing indices to `idx`.
pub(super) fn test_indices(
    test: &ByteTest,
    dict: &mut Dict,
    ix: &[u32],
    answers: &mut Bitmap,
    idx: &mut Vec<u32>,
    at: &Location,
) -> Result<()> {
    if dict.passes.is_none() {
        dict.passes = Some(entry_answers(test, dict, at)?);
    }
    let passes = dict.passes.as_deref().unwrap_or_default();
    idx.clear();
    let mut a = Answers::new(answers);
    for &i in ix {
        let Some(&pass) = passes.get(i as usize) else {
            a.finish();
            return Err(data_err(
                at,
                format!(
                    "dictionary index {i} past the dictionary's {} entries",
                    passes.len()
                ),
            ));
        };
        a.push(pass);
        if pass {
            idx.push(i);
        }
    }
    a.finish();
    Ok(())
}

/// Whether each entry of `dict` passes `test`.
fn entry_answers(test: &ByteTest, dict: &Dict, at: &Location) -> Result<Vec<bool>> {
    match &dict.plain {
        Some(PlainDict::Bytes { page, starts, .. }) => Ok(starts
            .windows(2)
            .map(|w| match w {
                // Each entry where it lies, as a PLAIN page's values are
                // (a one-word needle without a branch on lengths).
                [s, e] => {
                    let (s, end) = (*s as usize, (*e as usize).saturating_sub(LENGTH_PREFIX));
                    end <= page.len() && test.passes_at(page, s, end.saturating_sub(s))
                }
                _ => false,
            })
            .collect()),
        Some(PlainDict::Fixed { .. }) => Err(not_bytes(at)),
        None => {
            let mut bits = Bitmap::default();
            let mut idx = Vec::new();
            test_decoded(test, &dict.dense, &mut bits, &mut idx, at)?;
            Ok((0..bits.len()).map(|i| bits.get(i)).collect())
        }
    }
}

fn not_bytes(at: &Location) -> crate::error::Error {
    data_err(at, "a byte-array test on values that are not byte arrays")
}

/// The answer of each of `rows` rows from the answers of its values
/// (`answers`, one per valid slot of `nulls`): a null row passes no test.
pub(super) fn row_answers(
    answers: Bitmap,
    nulls: Option<&NullBuffer>,
    rows: usize,
    at: &Location,
) -> Result<BooleanBuffer> {
    let valid = nulls.map_or(rows, |n| n.len() - n.null_count());
    if answers.len() != valid || nulls.is_some_and(|n| n.len() != rows) {
        return Err(data_err(at, "fewer decoded values than levels"));
    }
    Ok(match nulls {
        None => BooleanBuffer::new(Buffer::from_vec(answers.into_words()), 0, rows),
        Some(n) => {
            let mut k = 0;
            BooleanBuffer::collect_bool(rows, |i| {
                n.is_valid(i) && {
                    k += 1;
                    answers.get(k - 1)
                }
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use pq_encoding::plain::encode_byte_array;

    use super::*;

    fn strings() -> Dense {
        Dense::empty(pq_format::Type::BYTE_ARRAY, 0, true, false)
    }

    fn values(d: &Dense) -> Vec<Vec<u8>> {
        let Dense::Utf8(s) = d else {
            panic!("not strings")
        };
        let raw = s.raw();
        raw.offsets
            .windows(2)
            .map(|w| raw.values[w[0] as usize..w[1] as usize].to_vec())
            .collect()
    }

    #[test]
    fn plain_values_are_tested_where_they_lie() {
        let page_values: Vec<&[u8]> = vec![b"ab", b"", b"abc", b"ab", b"x"];
        let mut page = Vec::new();
        encode_byte_array(page_values.iter().copied(), &mut page);
        for (test, want) in [
            (
                ByteTest::new(vec![b"ab".to_vec()], false, false),
                0b01001u64,
            ),
            (ByteTest::new(vec![b"ab".to_vec()], false, true), 0b10110),
            (
                ByteTest::new(vec![b"x".to_vec(), b"".to_vec()], false, false),
                0b10010,
            ),
        ] {
            // Two calls: the second starts where the first stopped.
            let (mut out, mut pos, mut answers) = (strings(), 0, Bitmap::default());
            let mut scratch = Scratch::default();
            let at = Location::default();
            for n in [2, 3] {
                let (page, pos, answers) = (&page, &mut pos, &mut answers);
                test_plain(&test, &mut out, page, pos, n, answers, &mut scratch, &at).unwrap();
            }
            assert_eq!(pos, page.len());
            assert_eq!(answers.words(), &[want]);
            let passing: Vec<Vec<u8>> = page_values
                .iter()
                .enumerate()
                .filter(|(i, _)| want >> i & 1 == 1)
                .map(|(_, v)| v.to_vec())
                .collect();
            assert_eq!(values(&out), passing);
        }
    }

    #[test]
    fn a_short_or_invalid_page_is_an_error() {
        let mut page = Vec::new();
        encode_byte_array([&b"ab"[..], b"cd"], &mut page);
        let test = ByteTest::new(vec![b"zz".to_vec()], false, false);
        let at = Location::default();
        let run = |page: &[u8], n| {
            let (mut out, mut pos, mut answers) = (strings(), 0, Bitmap::default());
            test_plain(
                &test,
                &mut out,
                page,
                &mut pos,
                n,
                &mut answers,
                &mut Scratch::default(),
                &at,
            )
        };
        assert!(run(&page, 2).is_ok());
        assert!(run(&page, 3).is_err(), "a value more than the page holds");
        assert!(run(&page[..page.len() - 1], 2).is_err(), "a cut value");
        // A value that is not UTF-8 is an error as it is when decoded,
        // whether it passes or not, short or long.
        for (value, rest) in [
            (&b"\xff"[..], 1usize),
            (b"a\xc3", 1),
            (b"\xc3\xa9", 200),
            (b"ab", 200),
        ] {
            let mut v = value.to_vec();
            v.extend(std::iter::repeat_n(b'a', rest));
            let mut bad = Vec::new();
            encode_byte_array([&b"ok"[..], &v, &v[..1]], &mut bad);
            let valid = std::str::from_utf8(&v).is_ok() && std::str::from_utf8(&v[..1]).is_ok();
            for negated in [false, true] {
                let (mut out, mut pos, mut answers) = (strings(), 0, Bitmap::default());
                let test = ByteTest::new(vec![b"ok".to_vec()], false, negated);
                let r = test_plain(
                    &test,
                    &mut out,
                    &bad,
                    &mut pos,
                    3,
                    &mut answers,
                    &mut Scratch::default(),
                    &at,
                );
                assert_eq!(r.is_ok(), valid, "{v:?} {negated}");
            }
        }
    }

    #[test]
    fn null_rows_pass_nothing() {
        let mut answers = Bitmap::default();
        answers.push_word(0b101, 3);
        let nulls = NullBuffer::from(vec![true, false, true, true, false]);
        let rows = row_answers(answers, Some(&nulls), 5, &Location::default()).unwrap();
        assert_eq!(
            rows.iter().collect::<Vec<_>>(),
            [true, false, false, true, false]
        );
        let mut few = Bitmap::default();
        few.push_word(1, 1);
        assert!(row_answers(few, Some(&nulls), 5, &Location::default()).is_err());
    }
}
