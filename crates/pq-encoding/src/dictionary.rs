//! Dictionary encoding (PLAIN_DICTIONARY = 2, RLE_DICTIONARY = 8): the
//! indices of data pages, the bulk gathers the Arrow reader needs, and
//! the encoders that build a dictionary ([`FixedDict`], [`BytesDict`]).
//!
//! The dictionary page itself is PLAIN ([`crate::plain`]).

use alloc::vec::Vec;

use crate::error::{Error, Result, eof};
use crate::offsets::{COPY_SLACK, OffsetSize, begin_append, copy_value};
use crate::rle::RleDecoder;

mod encoder;
mod hash;
mod table;

pub use encoder::{BytesDict, DictKey, FixedDict};

/// Opens the indices of a dictionary-encoded data page: a bit-width byte
/// then hybrid runs without length prefix.
///
/// ```
/// use pq_encoding::dictionary::{indices_decoder, gather};
/// let page = [2u8, 0b0000_0011, 0b1110_0100, 0]; // width 2, one group: 0,1,2,3,0,0,0,0
/// let mut dec = indices_decoder(&page).unwrap();
/// let mut idx = [0u32; 5];
/// dec.decode(&mut idx).unwrap();
/// let mut out = Vec::new();
/// gather(&[10i64, 20, 30, 40], &idx, &mut out).unwrap();
/// assert_eq!(out, [10, 20, 30, 40, 10]);
/// ```
pub fn indices_decoder(data: &[u8]) -> Result<RleDecoder<'_>> {
    let Some((&w, rest)) = data.split_first() else {
        return Err(eof("dictionary index bit width", 1, 0));
    };
    RleDecoder::new(rest, w)
}

#[inline]
fn check_indices(idx: &[u32], len: usize) -> Result<()> {
    // One branch-free max over the batch instead of a check per value.
    let max = idx.iter().copied().fold(0u32, u32::max);
    if !idx.is_empty() && max as usize >= len {
        return Err(Error::IndexOutOfBounds {
            index: max.into(),
            len,
        });
    }
    Ok(())
}

/// Appends `dict[i]` for every `i` in `idx`. Bounds are checked once for the
/// batch; on error nothing is appended.
pub fn gather<T: Copy>(dict: &[T], idx: &[u32], out: &mut Vec<T>) -> Result<()> {
    check_indices(idx, dict.len())?;
    // In bounds: checked above, so this indexing cannot panic.
    out.extend(idx.iter().map(|&i| dict[i as usize]));
    Ok(())
}

/// Appends the byte arrays `dict_offsets`/`dict_values` (an Arrow layout,
/// `len + 1` offsets) selects by `idx` to `offsets` + `values`.
///
/// Indices are bounds-checked once for the batch and the output offsets
/// once, on the total; values of up to 64 bytes are copied as one fixed
/// 32- or 64-byte move (the excess is overwritten by the next value or cut off)
/// instead of a variable-length copy each. On error nothing is appended.
///
/// ```
/// use pq_encoding::dictionary::gather_byte_array;
/// let (dict_offsets, dict_values) = ([0i32, 3, 5], b"fooba");
/// let (mut offsets, mut values) = (Vec::<i32>::new(), Vec::new());
/// gather_byte_array(&dict_offsets, dict_values, &[1, 0, 1], &mut offsets, &mut values).unwrap();
/// assert_eq!(values, b"bafooba");
/// assert_eq!(offsets, [0, 2, 5, 7]);
/// ```
pub fn gather_byte_array<D: OffsetSize, O: OffsetSize>(
    dict_offsets: &[D],
    dict_values: &[u8],
    idx: &[u32],
    offsets: &mut Vec<O>,
    values: &mut Vec<u8>,
) -> Result<()> {
    check_indices(idx, dict_offsets.len().saturating_sub(1))?;
    if let Some(small) = SmallDict::new(dict_offsets, dict_values) {
        return small.gather(idx, offsets, values);
    }
    // In bounds: the indices were checked above.
    let offset = |i: usize| dict_offsets[i].as_usize();
    gather_ranges::<O, 0>(offset, dict_values, idx, offsets, values)
}

/// Appends the values at `idx` of a PLAIN BYTE_ARRAY page (a dictionary
/// page, say) as they lie in `page`, through the `starts` that
/// [`ByteArrayDecoder::index`](crate::plain::ByteArrayDecoder::index)
/// built for it: the page's values are neither copied out nor decoded
/// first, so a read that needs a few entries of a large dictionary pays for
/// those entries only. Checked as [`gather_byte_array`] checks; on error
/// nothing is appended.
///
/// ```
/// use pq_encoding::dictionary::gather_plain_byte_array;
/// use pq_encoding::plain::{ByteArrayDecoder, encode_byte_array};
/// let mut page = Vec::new();
/// encode_byte_array([&b"foo"[..], b"ba"], &mut page);
/// let mut starts = Vec::new();
/// assert_eq!(ByteArrayDecoder::new(&page).index(2, &mut starts).unwrap(), 2);
/// let (mut offsets, mut values) = (Vec::<i32>::new(), Vec::new());
/// gather_plain_byte_array(&page, &starts, &[1, 0, 1], &mut offsets, &mut values).unwrap();
/// assert_eq!(values, b"bafooba");
/// assert_eq!(offsets, [0, 2, 5, 7]);
/// ```
pub fn gather_plain_byte_array<O: OffsetSize>(
    page: &[u8],
    starts: &[u32],
    idx: &[u32],
    offsets: &mut Vec<O>,
    values: &mut Vec<u8>,
) -> Result<()> {
    check_indices(idx, starts.len().saturating_sub(1))?;
    // In bounds: the indices were checked above.
    let offset = |i: usize| starts[i] as usize;
    gather_ranges::<O, { crate::plain::LENGTH_PREFIX }>(offset, page, idx, offsets, values)
}

/// The gather of [`gather_byte_array`] and [`gather_plain_byte_array`]:
/// value `i` is `dict_values[offset(i)..offset(i + 1) - GAP]`, where `GAP`
/// bytes lie between one value and the next (none in an Arrow layout, a
/// PLAIN page's length prefix in one). `offset` answers for every index in
/// `idx` and the next one: the caller checked them.
fn gather_ranges<O: OffsetSize, const GAP: usize>(
    offset: impl Fn(usize) -> usize,
    dict_values: &[u8],
    idx: &[u32],
    offsets: &mut Vec<O>,
    values: &mut Vec<u8>,
) -> Result<()> {
    /// Dictionaries up to this size are copied, padded, to the stack so
    /// that every entry takes the fixed copy: without the padding, the
    /// entries of a tiny dictionary (a few flags or codes) all lie within
    /// `COPY_SLACK` bytes of its end and would each take a variable-length copy.
    const PADDED: usize = 1024;
    let range = |i: u32| {
        let i = i as usize;
        // A gap the offsets do not leave wraps the end past the bytes: bad.
        (offset(i), offset(i + 1).wrapping_sub(GAP))
    };
    // The value ranges, checked against the dictionary's bytes without a
    // branch per value: any bad range sets `bad`.
    let mut total = 0usize;
    let mut bad = false;
    for &i in idx {
        let (s, e) = range(i);
        bad |= (s > e) | (e > dict_values.len());
        total = total.wrapping_add(e.wrapping_sub(s));
    }
    if bad {
        return Err(Error::Invalid {
            what: "dictionary offsets",
            expected: "increasing, within the dictionary's bytes",
            found: dict_values.len() as i128,
        });
    }
    let base = begin_append(offsets, values, total)?;
    let mut padded = [0u8; PADDED];
    let src_all = match padded.get_mut(..dict_values.len()) {
        Some(head) if dict_values.len() + COPY_SLACK <= PADDED => {
            head.copy_from_slice(dict_values);
            &padded[..]
        }
        _ => dict_values,
    };
    // Offsets are written into a presized slice and the position kept in
    // a local: pushing made each value wait on the previous one's store of
    // the vector's length.
    let first = offsets.len();
    offsets.resize(first + idx.len(), O::default());
    let out_offsets = offsets.get_mut(first..).unwrap_or_default();
    values.resize(base + total + COPY_SLACK, 0);
    let out = values.get_mut(base..).unwrap_or_default();
    let mut pos = 0;
    for (&i, slot) in idx.iter().zip(out_offsets) {
        // Checked in the first pass.
        let (s, e) = range(i);
        let len = e - s;
        copy_value(out, pos, src_all, s, len);
        pos += len;
        // Fits: the total was checked above.
        *slot = O::from_usize(base + pos).unwrap_or_default();
    }
    values.truncate(base + pos);
    Ok(())
}

/// A dictionary of at most [`SmallDict::ENTRIES`] entries of at most
/// [`SmallDict::WIDTH`] bytes each (flags, codes, modes, short names: the
/// common low-cardinality column), laid out as fixed-width, zero-padded
/// slots. Gathering from it is one fixed copy and one length lookup per
/// value, with no offsets to load and check; when every entry has the same
/// length (`Y`/`N`, country and currency codes, status letters) the offsets
/// are arithmetic and the copy as narrow as the entries.
struct SmallDict {
    slots: [[u8; SmallDict::WIDTH]; SmallDict::ENTRIES],
    lens: [u32; SmallDict::ENTRIES],
    /// Whether every entry is [`widest`](Self::widest) bytes long.
    uniform: bool,
    /// The longest entry's length.
    widest: usize,
}

impl SmallDict {
    const ENTRIES: usize = 64;
    const WIDTH: usize = 32;

    /// The dictionary in slots, or `None` if it is too large for them (or
    /// its offsets are bad: the general gather reports those).
    fn new<D: OffsetSize>(dict_offsets: &[D], dict_values: &[u8]) -> Option<Self> {
        let entries = dict_offsets.len().checked_sub(1)?;
        if entries > Self::ENTRIES {
            return None;
        }
        let mut dict = Self {
            slots: [[0; Self::WIDTH]; Self::ENTRIES],
            lens: [0; Self::ENTRIES],
            uniform: false,
            widest: 0,
        };
        for ((w, slot), len) in dict_offsets
            .windows(2)
            .zip(dict.slots.iter_mut())
            .zip(dict.lens.iter_mut())
        {
            let [s, e] = [w.first()?.as_usize(), w.get(1)?.as_usize()];
            let value = dict_values.get(s..e)?;
            slot.get_mut(..value.len())?.copy_from_slice(value);
            *len = value.len() as u32;
        }
        let lens = dict.lens.get(..entries).unwrap_or_default();
        dict.uniform = lens.windows(2).all(|w| w.first() == w.last());
        dict.widest = lens.iter().copied().max().unwrap_or(0) as usize;
        Some(dict)
    }

    /// The slot of index `i`. Indices are checked to be below the entry
    /// count (at most `ENTRIES`, a power of two) before any gather: the mask
    /// changes none of them, it only spares the bounds checks.
    fn slot(i: u32) -> usize {
        i as usize & (Self::ENTRIES - 1)
    }

    /// [`gather_byte_array`] for indices already checked to be below the
    /// entry count.
    fn gather<O: OffsetSize>(
        &self,
        idx: &[u32],
        offsets: &mut Vec<O>,
        values: &mut Vec<u8>,
    ) -> Result<()> {
        // Copies no wider than the longest entry (8-byte copies took 0.8-0.9
        // of the time of 32-byte ones for entries of 3 to 7 bytes).
        match self.widest {
            0..=8 => self.gather_copying::<O, 8>(idx, offsets, values),
            9..=16 => self.gather_copying::<O, 16>(idx, offsets, values),
            _ => self.gather_copying::<O, { Self::WIDTH }>(idx, offsets, values),
        }
    }

    /// [`gather`](Self::gather) with each value one copy of `C` bytes (at
    /// least the longest entry) that overlaps the next value's place, and
    /// one length lookup, unless the entries are [`uniform`](Self::uniform).
    fn gather_copying<O: OffsetSize, const C: usize>(
        &self,
        idx: &[u32],
        offsets: &mut Vec<O>,
        values: &mut Vec<u8>,
    ) -> Result<()> {
        if self.uniform {
            return self.gather_uniform::<O, C>(idx, offsets, values);
        }
        let slot = Self::slot;
        let total: usize = idx.iter().map(|&i| self.lens[slot(i)] as usize).sum();
        let base = begin_append(offsets, values, total)?;
        let first = offsets.len();
        offsets.resize(first + idx.len(), O::default());
        let out_offsets = offsets.get_mut(first..).unwrap_or_default();
        values.resize(base + total + C, 0);
        let out = values.get_mut(base..).unwrap_or_default();
        let mut pos = 0;
        for (&i, off) in idx.iter().zip(out_offsets) {
            let k = slot(i);
            if let (Some(dst), Some(src)) = (out.get_mut(pos..pos + C), self.slots[k].get(..C)) {
                dst.copy_from_slice(src);
            }
            pos += self.lens[k] as usize;
            // Fits: the total was checked above.
            *off = O::from_usize(base + pos).unwrap_or_default();
        }
        values.truncate(base + pos);
        Ok(())
    }

    /// [`gather_copying`](Self::gather_copying) when every entry is
    /// `widest` bytes long: value `k` ends `widest * (k + 1)` bytes on, so
    /// the offsets need no lookup and no running position, and one-letter
    /// entries are one byte each (`benches/dictionary.rs`: 0.6 of the slot
    /// gather's time for one-letter flags, 0.7 for three-letter codes, 0.8
    /// for twelve bytes).
    fn gather_uniform<O: OffsetSize, const C: usize>(
        &self,
        idx: &[u32],
        offsets: &mut Vec<O>,
        values: &mut Vec<u8>,
    ) -> Result<()> {
        let slot = Self::slot;
        let width = self.widest;
        let total = idx.len().checked_mul(width).ok_or(Error::OffsetOverflow {
            offset_bits: O::BITS,
            found: usize::MAX,
        })?;
        let base = begin_append(offsets, values, total)?;
        // Fits, and no sum overflows: `begin_append` checked `base + total`.
        offsets
            .extend((1..=idx.len()).map(|k| O::from_usize(base + k * width).unwrap_or_default()));
        match width {
            0 => {}
            1 => values.extend(idx.iter().map(|&i| self.slots[slot(i)][0])),
            _ => {
                values.resize(base + total + C, 0);
                let out = values.get_mut(base..).unwrap_or_default();
                for (k, &i) in idx.iter().enumerate() {
                    let at = k * width;
                    let src = self.slots[slot(i)].get(..C);
                    if let (Some(dst), Some(src)) = (out.get_mut(at..at + C), src) {
                        dst.copy_from_slice(src);
                    }
                }
                values.truncate(base + total);
            }
        }
        Ok(())
    }
}

/// Appends fixed-length byte arrays (`width` bytes each in `dict`)
/// selected by `idx` to `out`.
pub fn gather_fixed(dict: &[u8], width: usize, idx: &[u32], out: &mut Vec<u8>) -> Result<()> {
    let len = dict.len().checked_div(width).unwrap_or(0);
    check_indices(idx, len)?;
    out.reserve(idx.len() * width);
    for &i in idx {
        let s = i as usize * width;
        out.extend_from_slice(&dict[s..s + width]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ByteArrayDecode;
    use crate::plain::{ByteArrayDecoder, PlainDecoder};

    #[test]
    fn plain_gather_rejects_starts_outside_the_page() {
        let (mut o, mut v) = (alloc::vec![0i32], Vec::new());
        // A value that would end before it begins (no room for a prefix).
        assert!(gather_plain_byte_array(b"abcdefgh", &[4, 6], &[0], &mut o, &mut v).is_err());
        // One that runs past the page.
        assert!(gather_plain_byte_array(b"abcdefgh", &[4, 30], &[0], &mut o, &mut v).is_err());
        // An index past the entries.
        assert!(gather_plain_byte_array(b"abcdefgh", &[4, 12], &[1], &mut o, &mut v).is_err());
        assert_eq!((o, v), (alloc::vec![0], Vec::new()));
        let (mut o, mut v) = (Vec::<i32>::new(), Vec::new());
        gather_plain_byte_array(b"abcdefgh", &[4, 12], &[0, 0], &mut o, &mut v).unwrap();
        assert_eq!((o, v), (alloc::vec![0, 4, 8], b"efghefgh".to_vec()));
    }

    #[test]
    fn fixed_round_trip() {
        let vals: Vec<f64> = (0..5000)
            .map(|i| (i % 37) as f64 * 0.5)
            .chain([f64::NAN, -0.0, 0.0])
            .collect();
        let mut enc = FixedDict::<f64>::new(usize::MAX);
        enc.put(&vals);
        assert_eq!(enc.num_entries(), 37 + 2);
        let (mut dict, mut page) = (Vec::new(), Vec::new());
        enc.write_dict(&mut dict);
        enc.write_indices(&mut page);
        let mut d = Vec::new();
        PlainDecoder::<f64>::new(&dict)
            .decode_into(&mut d, enc.num_entries())
            .unwrap();
        let mut idx = Vec::new();
        indices_decoder(&page)
            .unwrap()
            .decode_into(&mut idx, vals.len())
            .unwrap();
        let mut out = Vec::new();
        gather(&d, &idx, &mut out).unwrap();
        assert!(
            out.iter()
                .zip(&vals)
                .all(|(a, b)| a.to_bits() == b.to_bits())
        );
        assert!(gather(&[1, 2], &[0, 2], &mut Vec::new()).is_err());
    }

    #[test]
    fn byte_array_round_trip() {
        let words: Vec<&[u8]> = [&b"a"[..], b"bb", b"", b"a", b"ccc", b"bb"].repeat(100);
        let mut enc = BytesDict::new();
        for w in &words {
            enc.put(w);
        }
        assert_eq!(enc.num_entries(), 4);
        let (mut dict, mut page) = (Vec::new(), Vec::new());
        enc.write_dict(&mut dict);
        assert_eq!(dict.len(), enc.size());
        enc.write_indices(&mut page);
        let (mut doff, mut dval) = (Vec::<i32>::new(), Vec::new());
        ByteArrayDecoder::new(&dict)
            .decode(&mut doff, &mut dval, 4)
            .unwrap();
        let mut idx = Vec::new();
        indices_decoder(&page)
            .unwrap()
            .decode_into(&mut idx, words.len())
            .unwrap();
        let (mut off, mut val) = (Vec::<i64>::new(), Vec::new());
        gather_byte_array(&doff, &dval, &idx, &mut off, &mut val).unwrap();
        assert_eq!(val, words.concat());
        assert_eq!(off.len(), words.len() + 1);
        let mut fixed = Vec::new();
        gather_fixed(b"aabbcc", 2, &[2, 0], &mut fixed).unwrap();
        assert_eq!(fixed, b"ccaa");
        assert!(gather_fixed(b"aabbcc", 2, &[3], &mut fixed).is_err());
    }
}
