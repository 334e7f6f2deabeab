//! `=` and `!=` of a string or binary column against one value, the test
//! of a selective string predicate (`l_comment = '…'`, `IN (…)`).
//!
//! Arrow's general comparison kernel calls `memcmp` for every value and
//! collects the answers one by one. Here a value whose length differs is
//! ruled out from its offsets (or its view) alone, bytes are compared only
//! when the lengths agree, and a view of a short value is compared whole as
//! one 128-bit word. The answers are packed 64 at a time.

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, BooleanArray, OffsetSizeTrait};
use arrow_buffer::{BooleanBuffer, Buffer};
use arrow_schema::DataType;

use super::CmpOp;
use super::bind::Bound;

/// Whether each value of `a` equals `needle` (differs from it with
/// `negate`), nulls where `a` has them; `None` when `a` is not a string or
/// binary array (the caller uses Arrow's kernel).
pub(crate) fn eq_bytes(a: &dyn Array, needle: &[u8], negate: bool) -> Option<BooleanArray> {
    let values = match a.data_type() {
        DataType::Utf8 => {
            let s = a.as_string::<i32>();
            eq_offsets(s.value_offsets(), s.values(), needle)
        }
        DataType::LargeUtf8 => {
            let s = a.as_string::<i64>();
            eq_offsets(s.value_offsets(), s.values(), needle)
        }
        DataType::Binary => {
            let b = a.as_binary::<i32>();
            eq_offsets(b.value_offsets(), b.values(), needle)
        }
        DataType::LargeBinary => {
            let b = a.as_binary::<i64>();
            eq_offsets(b.value_offsets(), b.values(), needle)
        }
        DataType::Utf8View => {
            let s = a.as_string_view();
            eq_views(s.views(), s.data_buffers(), needle)
        }
        DataType::BinaryView => {
            let b = a.as_binary_view();
            eq_views(b.views(), b.data_buffers(), needle)
        }
        _ => return None,
    };
    let values = if negate { !&values } else { values };
    Some(BooleanArray::new(values, a.logical_nulls()))
}

fn eq_offsets<O: OffsetSizeTrait>(offsets: &[O], data: &[u8], needle: &[u8]) -> BooleanBuffer {
    // The test a column read through it applies (values of 4 to 16 bytes
    // as two words, without a branch on their lengths).
    let test = ByteTest::new(vec![needle.to_vec()], false, false);
    let n = offsets.len().saturating_sub(1);
    let mut words = Vec::with_capacity(n.div_ceil(64));
    let (mut word, mut bit) = (0u64, 0u32);
    for w in offsets.windows(2) {
        let hit = match w {
            [s, e] => {
                let (s, e) = (s.as_usize(), e.as_usize());
                test.passes_at(data, s, e.wrapping_sub(s))
            }
            _ => false,
        };
        word |= u64::from(hit) << bit;
        bit += 1;
        if bit == 64 {
            words.push(word);
            (word, bit) = (0, 0);
        }
    }
    if bit > 0 {
        words.push(word);
    }
    BooleanBuffer::new(Buffer::from_vec(words), 0, n)
}

/// `N` (4 or 8) bytes of `data` from `at` as a little-endian number; 0
/// past its end (where no value of the needle's length can lie anyway).
#[inline(always)]
fn load<const N: usize>(data: &[u8], at: usize) -> u64 {
    match data.get(at..at.saturating_add(N)) {
        Some(b) => {
            let mut w = [0u8; 8];
            w[..N].copy_from_slice(b);
            u64::from_le_bytes(w)
        }
        None => 0,
    }
}

/// `=`, `!=`, `IN`, `NOT IN`, `LIKE 'prefix%'` or `NOT LIKE 'prefix%'` of
/// a byte-array column against literal bytes, as a test the column's
/// reader applies to each value where it lies (see
/// [`crate::column::tested`]), so that values the test rules out are
/// neither copied nor compared twice. A null value passes none of them
/// (SQL's comparisons with null are null, and null rows are not kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ByteTest {
    /// The literals: one for `=`, `!=` and a prefix, the list for `IN`.
    needles: Vec<Vec<u8>>,
    /// A value passes when it starts with the needle (else equals it).
    prefix: bool,
    /// `!=`, `NOT IN` and `NOT LIKE`: a value passes when it matches no
    /// needle.
    negated: bool,
    /// Bit `k` set when a needle is `k` bytes long, bit 63 for every
    /// length from 63 on: most values of an `IN` list's column are ruled
    /// out by their length alone.
    lengths: u64,
    /// A long `IN` list, as a set.
    set: Option<std::collections::HashSet<Vec<u8>>>,
    /// One needle of 4 to 16 bytes: its length and its first and last
    /// bytes as two words, compared without a branch.
    words: Option<(usize, u64, u64, Width)>,
}

/// The word a needle's bytes are compared in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Width {
    Four,
    Eight,
}

/// `IN` lists longer than this are looked up in a hash set.
const SET_FROM: usize = 16;

impl ByteTest {
    /// The test that a value is one of `needles` (starts with the one
    /// needle, with `prefix`); with `negated`, that it is not.
    pub(crate) fn new(needles: Vec<Vec<u8>>, prefix: bool, negated: bool) -> Self {
        let words = match needles.as_slice() {
            [one] => match one.len() {
                n @ 8..=16 => Some((n, load::<8>(one, 0), load::<8>(one, n - 8), Width::Eight)),
                n @ 4..=7 => Some((n, load::<4>(one, 0), load::<4>(one, n - 4), Width::Four)),
                _ => None,
            },
            _ => None,
        };
        let lengths = needles.iter().fold(0u64, |m, n| m | 1 << n.len().min(63));
        let set = (needles.len() > SET_FROM && !prefix).then(|| needles.iter().cloned().collect());
        ByteTest {
            needles,
            prefix,
            negated,
            lengths,
            set,
            words,
        }
    }

    /// The test a predicate is, when it is one `=`, `!=`, `IN`, `NOT IN`,
    /// `LIKE 'prefix%'` or `NOT LIKE 'prefix%'` of one column against
    /// string or binary literals (none null): the column (its index among
    /// the predicate's columns) and the test.
    pub(crate) fn of(predicate: &Bound) -> Option<(usize, ByteTest)> {
        let bytes = |v: &ArrayRef| super::eval::scalar_bytes(v).map(<[u8]>::to_vec);
        match predicate {
            Bound::Compare { column, op, value } if matches!(op, CmpOp::Eq | CmpOp::NotEq) => {
                let test = ByteTest::new(vec![bytes(value)?], false, *op == CmpOp::NotEq);
                Some((*column, test))
            }
            Bound::InList {
                column,
                values,
                negated,
            } => {
                let needles = values.iter().map(bytes).collect::<Option<Vec<_>>>()?;
                Some((*column, ByteTest::new(needles, false, *negated)))
            }
            Bound::Like {
                column,
                pattern,
                negated,
                ..
            } => {
                let pattern = std::str::from_utf8(super::eval::scalar_bytes(pattern)?).ok()?;
                let prefix = pure_prefix(pattern)?;
                Some((
                    *column,
                    ByteTest::new(vec![prefix.into_bytes()], true, *negated),
                ))
            }
            _ => None,
        }
    }

    /// [`of`](Self::of) for a predicate that is such a test or an `AND`
    /// of conjuncts one of which is, on a column no other conjunct reads:
    /// the column, the test, and the other conjuncts (`None` when the test
    /// is the whole predicate).
    pub(crate) fn split(predicate: &Bound) -> Option<(usize, ByteTest, Option<Bound>)> {
        if let Some((column, test)) = ByteTest::of(predicate) {
            return Some((column, test, None));
        }
        let conjuncts = predicate.conjuncts();
        for (k, c) in conjuncts.iter().enumerate() {
            let Some((column, test)) = ByteTest::of(c) else {
                continue;
            };
            let others = conjuncts
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != k)
                .map(|(_, o)| *o);
            if others.clone().any(|o| reads(o, column)) {
                continue;
            }
            let rest = others
                .cloned()
                .reduce(|a, b| Bound::And(Box::new(a), Box::new(b)))?;
            return Some((column, test, Some(rest)));
        }
        None
    }

    /// Whether `value` (not null) passes.
    #[inline(always)]
    pub(crate) fn passes(&self, value: &[u8]) -> bool {
        let hit = match self.needles.as_slice() {
            [one] if self.prefix => value.starts_with(one),
            [one] => same(value, one),
            _ if self.lengths >> value.len().min(63) & 1 == 0 => false,
            many => match &self.set {
                Some(set) => set.contains(value),
                None => many.iter().any(|n| same(value, n)),
            },
        };
        hit != self.negated
    }

    /// [`passes`](Self::passes) for the value `data[start..start + len]`
    /// (in range). A needle of 4 to 16 bytes is compared as two words
    /// loaded whatever the value's length (inside `data`, or 0 past its
    /// end, where no value that fits the needle lies): the answer is the
    /// product of three tests, not a branch on lengths that vary from value
    /// to value and that a processor cannot predict.
    #[inline(always)]
    pub(crate) fn passes_at(&self, data: &[u8], start: usize, len: usize) -> bool {
        let Some((n, a, b, width)) = self.words else {
            let v = data
                .get(start..start.saturating_add(len))
                .unwrap_or_default();
            return self.passes(v);
        };
        // A prefix fits a value at least as long; an equal one, a value
        // as long.
        let fits = (len == n) | (self.prefix & (len > n));
        let hit = match width {
            Width::Eight => {
                fits & (load::<8>(data, start) == a) & (load::<8>(data, start + n - 8) == b)
            }
            Width::Four => {
                fits & (load::<4>(data, start) == a) & (load::<4>(data, start + n - 4) == b)
            }
        };
        hit != self.negated
    }
}

/// Whether `b` reads column `column`.
fn reads(b: &Bound, column: usize) -> bool {
    match b {
        Bound::Compare { column: c, .. }
        | Bound::InList { column: c, .. }
        | Bound::IsNull { column: c, .. }
        | Bound::Like { column: c, .. } => *c == column,
        Bound::And(x, y) | Bound::Or(x, y) => reads(x, column) || reads(y, column),
    }
}

/// The prefix a LIKE pattern tests, when it is one: characters (escapes
/// taken as written), then one `%` at the end and no other wildcard.
fn pure_prefix(pattern: &str) -> Option<String> {
    let mut prefix = String::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '%' => return chars.next().is_none().then_some(prefix),
            '_' => return None,
            '\\' => prefix.push(chars.next()?),
            c => prefix.push(c),
        }
    }
    None
}

/// `a == b` for slices of one length, short ones without a `memcmp` call:
/// two overlapping words compare up to 16 bytes.
#[inline(always)]
fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        8..=16 => load::<8>(a, 0) == load::<8>(b, 0) && load::<8>(a, n - 8) == load::<8>(b, n - 8),
        4..=7 => load::<4>(a, 0) == load::<4>(b, 0) && load::<4>(a, n - 4) == load::<4>(b, n - 4),
        _ => a == b,
    }
}

fn eq_views(views: &[u128], buffers: &[Buffer], needle: &[u8]) -> BooleanBuffer {
    let len = needle.len();
    let Ok(len32) = u32::try_from(len) else {
        return BooleanBuffer::new_unset(views.len());
    };
    if len <= 12 {
        // Length and the whole value inline: one comparison, the bytes past
        // the value masked off.
        let mut word = [0u8; 16];
        word[..4].copy_from_slice(&len32.to_le_bytes());
        word[4..4 + len].copy_from_slice(needle);
        let want = u128::from_le_bytes(word);
        let mask = if len == 12 {
            u128::MAX
        } else {
            (1u128 << ((4 + len) * 8)) - 1
        };
        return BooleanBuffer::collect_bool(views.len(), |i| views[i] & mask == want);
    }
    // Length and the first four bytes, then the rest from its buffer.
    let mut head = [0u8; 8];
    head[..4].copy_from_slice(&len32.to_le_bytes());
    head[4..].copy_from_slice(&needle[..4]);
    let head = u64::from_le_bytes(head);
    BooleanBuffer::collect_bool(views.len(), |i| {
        let v = views[i];
        if v as u64 != head {
            return false;
        }
        let buffer = (v >> 64) as u32 as usize;
        let offset = (v >> 96) as u32 as usize;
        buffers
            .get(buffer)
            .and_then(|b| b.get(offset..offset.checked_add(len)?))
            .is_some_and(|v| same(v, needle))
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{
        ArrayRef, BinaryArray, BinaryViewArray, LargeStringArray, Scalar, StringArray,
        StringViewArray,
    };
    use proptest::prelude::*;

    use super::*;

    /// Arrow's kernel: the answer to match.
    fn arrow_eq(a: &ArrayRef, needle: &ArrayRef, negate: bool) -> BooleanArray {
        let s = Scalar::new(needle.clone());
        if negate {
            arrow_ord::cmp::neq(a, &s).unwrap()
        } else {
            arrow_ord::cmp::eq(a, &s).unwrap()
        }
    }

    fn value() -> impl Strategy<Value = Option<String>> {
        // Short and long values sharing prefixes and lengths, so that the
        // length and prefix tests are not enough alone.
        prop::option::weighted(
            0.9,
            prop::string::string_regex("(ab|abc|x){0,9}[a-c]{0,3}").unwrap(),
        )
    }

    proptest! {
        #[test]
        fn answers_as_arrows_kernel(
            values in prop::collection::vec(value(), 0..200),
            needle in prop::string::string_regex("(ab|abc|x){0,9}[a-c]{0,3}").unwrap(),
            offset in 0usize..5,
            negate: bool,
        ) {
            let offset = offset.min(values.len());
            let strings = StringArray::from(values.clone());
            let arrays: Vec<(ArrayRef, ArrayRef)> = vec![
                (Arc::new(strings.clone()), Arc::new(StringArray::from(vec![needle.as_str()]))),
                (
                    Arc::new(LargeStringArray::from(values.clone())),
                    Arc::new(LargeStringArray::from(vec![needle.as_str()])),
                ),
                (
                    Arc::new(BinaryArray::from_iter(values.iter().map(|v| v.as_deref().map(str::as_bytes)))),
                    Arc::new(BinaryArray::from_iter_values([needle.as_bytes()])),
                ),
                (
                    Arc::new(StringViewArray::from_iter(values.iter().map(|v| v.as_deref()))),
                    Arc::new(StringViewArray::from_iter_values([needle.as_str()])),
                ),
                (
                    Arc::new(BinaryViewArray::from_iter(values.iter().map(|v| v.as_deref().map(str::as_bytes)))),
                    Arc::new(BinaryViewArray::from_iter_values([needle.as_bytes()])),
                ),
            ];
            for (a, n) in arrays {
                // A slice, as batches cut from a larger array are.
                let a = a.slice(offset, a.len() - offset);
                let ours = eq_bytes(a.as_ref(), needle.as_bytes(), negate).unwrap();
                prop_assert_eq!(&ours, &arrow_eq(&a, &n, negate), "{}", a.data_type());
            }
        }
    }

    /// The test as its definition says, value by value.
    fn naive(needles: &[Vec<u8>], prefix: bool, negated: bool, v: &[u8]) -> bool {
        let hit = needles.iter().any(|n| {
            if prefix {
                v.starts_with(n)
            } else {
                v == n.as_slice()
            }
        });
        hit != negated
    }

    fn bytes() -> impl Strategy<Value = Vec<u8>> {
        prop::string::string_regex("(ab|abc|x){0,9}[a-c]{0,3}")
            .unwrap()
            .prop_map(String::into_bytes)
    }

    proptest! {
        #[test]
        fn byte_tests_answer_as_their_definition(
            values in prop::collection::vec(bytes(), 0..60),
            needles in prop::collection::vec(bytes(), 1..24),
            prefix: bool,
            negated: bool,
        ) {
            // A prefix test has one needle.
            let needles = if prefix { needles[..1].to_vec() } else { needles };
            let test = ByteTest::new(needles.clone(), prefix, negated);
            // The values back to back, as a page holds them, so that the
            // word loads of a short value reach into the next one.
            let data: Vec<u8> = values.concat();
            let mut start = 0;
            for v in &values {
                let want = naive(&needles, prefix, negated, v);
                prop_assert_eq!(test.passes(v), want, "{:?} in {:?}", v, needles);
                prop_assert_eq!(test.passes_at(&data, start, v.len()), want, "{:?} at {}", v, start);
                start += v.len();
            }
        }
    }

    #[test]
    fn like_patterns_that_are_a_prefix() {
        assert_eq!(pure_prefix("ab%"), Some("ab".into()));
        assert_eq!(pure_prefix("%"), Some(String::new()));
        assert_eq!(pure_prefix("a\\%b%"), Some("a%b".into()));
        for not_prefix in ["ab", "a%b", "a_%", "%a", "ab%%", "a\\"] {
            assert_eq!(pure_prefix(not_prefix), None, "{not_prefix}");
        }
    }

    #[test]
    fn other_types_are_left_to_arrow() {
        let ints = arrow_array::Int32Array::from(vec![1, 2]);
        assert!(eq_bytes(&ints, b"1", false).is_none());
    }
}
