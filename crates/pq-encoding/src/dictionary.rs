//! Dictionary encoding (PLAIN_DICTIONARY = 2, RLE_DICTIONARY = 8): the
//! indices of data pages, the bulk gathers the Arrow reader needs, and
//! encoders that build the dictionary.
//!
//! The dictionary page itself is PLAIN ([`crate::plain`]).

use alloc::vec;
use alloc::vec::Vec;

use crate::bit_pack::bit_width;
use crate::error::{Error, Result, eof};
use crate::offsets::{COPY_SLACK, OffsetSize, begin_append, copy_value};
use crate::plain::FixedWidth;
use crate::rle::{self, RleDecoder};

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
    /// Dictionaries up to this size are copied, padded, to the stack so
    /// that every entry takes the fixed copy: without the padding, the
    /// entries of a tiny dictionary (a few flags or codes) all lie within
    /// `COPY_SLACK` bytes of its end and would each take a variable-length copy.
    const PADDED: usize = 1024;
    check_indices(idx, dict_offsets.len().saturating_sub(1))?;
    if let Some(small) = SmallDict::new(dict_offsets, dict_values) {
        return small.gather(idx, offsets, values);
    }
    // The value ranges, checked against the dictionary's bytes without a
    // branch per value: any bad range sets `bad`.
    let mut total = 0usize;
    let mut bad = false;
    for &i in idx {
        let i = i as usize;
        let (s, e) = (dict_offsets[i].as_usize(), dict_offsets[i + 1].as_usize());
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
        let (s, e) = (
            dict_offsets[i as usize].as_usize(),
            dict_offsets[i as usize + 1].as_usize(),
        );
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
/// value, with no offsets to load and check.
struct SmallDict {
    slots: [[u8; SmallDict::WIDTH]; SmallDict::ENTRIES],
    lens: [u32; SmallDict::ENTRIES],
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
        Some(dict)
    }

    /// [`gather_byte_array`] for indices already checked to be below the
    /// entry count.
    fn gather<O: OffsetSize>(
        &self,
        idx: &[u32],
        offsets: &mut Vec<O>,
        values: &mut Vec<u8>,
    ) -> Result<()> {
        // Indices are below the entry count (at most `ENTRIES`, a power of
        // two): the mask changes none of them, it only spares the bounds
        // checks.
        let slot = |i: u32| i as usize & (Self::ENTRIES - 1);
        let total: usize = idx.iter().map(|&i| self.lens[slot(i)] as usize).sum();
        let base = begin_append(offsets, values, total)?;
        let first = offsets.len();
        offsets.resize(first + idx.len(), O::default());
        let out_offsets = offsets.get_mut(first..).unwrap_or_default();
        values.resize(base + total + Self::WIDTH, 0);
        let out = values.get_mut(base..).unwrap_or_default();
        let mut pos = 0;
        for (&i, off) in idx.iter().zip(out_offsets) {
            let k = slot(i);
            if let Some(dst) = out.get_mut(pos..pos + Self::WIDTH) {
                dst.copy_from_slice(&self.slots[k]);
            }
            pos += self.lens[k] as usize;
            // Fits: the total was checked above.
            *off = O::from_usize(base + pos).unwrap_or_default();
        }
        values.truncate(base + pos);
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

/// Limits after which a dictionary encoder stops accepting new entries and
/// the caller should fall back to another encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DictLimits {
    /// Most distinct entries.
    pub max_entries: usize,
    /// Most bytes of the PLAIN-encoded dictionary page.
    pub max_bytes: usize,
}

impl Default for DictLimits {
    /// 1 MiB of dictionary, as common writers default to.
    fn default() -> Self {
        Self {
            max_entries: i32::MAX as usize,
            max_bytes: 1024 * 1024,
        }
    }
}

/// Open-addressing table of entry ids keyed by a caller-computed hash.
#[derive(Debug, Clone)]
struct Table {
    slots: Vec<u32>,
    hashes: Vec<u64>,
}

const EMPTY: u32 = u32::MAX;

impl Table {
    fn new() -> Self {
        Self {
            slots: vec![EMPTY; 1024],
            hashes: Vec::new(),
        }
    }

    /// Finds the id whose entry `eq` accepts, or None with the slot to fill.
    #[inline]
    fn find(&self, hash: u64, mut eq: impl FnMut(u32) -> bool) -> core::result::Result<u32, usize> {
        let mask = self.slots.len() - 1;
        let mut i = (hash as usize) & mask;
        loop {
            let id = self.slots[i];
            if id == EMPTY {
                return Err(i);
            }
            if self.hashes[id as usize] == hash && eq(id) {
                return Ok(id);
            }
            i = (i + 1) & mask;
        }
    }

    fn insert(&mut self, slot: usize, hash: u64) -> u32 {
        let id = self.hashes.len() as u32;
        self.slots[slot] = id;
        self.hashes.push(hash);
        if self.hashes.len() * 2 > self.slots.len() {
            self.grow();
        }
        id
    }

    fn grow(&mut self) {
        let n = self.slots.len() * 2;
        self.slots.clear();
        self.slots.resize(n, EMPTY);
        let mask = n - 1;
        for (id, &h) in self.hashes.iter().enumerate() {
            let mut i = (h as usize) & mask;
            while self.slots[i] != EMPTY {
                i = (i + 1) & mask;
            }
            self.slots[i] = id as u32;
        }
    }
}

#[inline]
fn mix(x: u64) -> u64 {
    // A 64-bit finaliser: spreads low-entropy keys over all bits.
    let x = (x ^ (x >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    let x = (x ^ (x >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

#[inline]
fn hash_bytes(b: &[u8]) -> u64 {
    let mut h = 0x9E37_79B9_7F4A_7C15u64 ^ b.len() as u64;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        h = (h.rotate_left(5)
            ^ u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .wrapping_mul(0x517C_C1B7_2722_0A95);
    }
    let mut tail = [0u8; 8];
    let rest = chunks.remainder();
    tail[..rest.len()].copy_from_slice(rest);
    h = (h.rotate_left(5) ^ u64::from_le_bytes(tail)).wrapping_mul(0x517C_C1B7_2722_0A95);
    mix(h)
}

fn write_indices(indices: &mut Vec<u32>, num_entries: usize, out: &mut Vec<u8>) {
    let w = bit_width(num_entries.saturating_sub(1) as u64);
    out.push(w);
    rle::encode(indices, w, out);
    indices.clear();
}

/// Builds a dictionary of fixed-width values (compared bit for bit, so
/// NaN payloads and -0.0 are kept) and their indices.
///
/// ```
/// use pq_encoding::dictionary::{DictEncoder, DictLimits};
/// let mut enc = DictEncoder::<i32>::new(DictLimits::default());
/// assert_eq!(enc.put(&[5, 7, 5, 5]), 4);
/// let (mut dict, mut page) = (Vec::new(), Vec::new());
/// enc.write_dict(&mut dict);
/// enc.write_indices(&mut page);
/// assert_eq!(enc.num_entries(), 2);
/// assert_eq!(page[0], 1); // bit width of the indices
/// ```
#[derive(Debug, Clone)]
pub struct DictEncoder<T> {
    table: Table,
    entries: Vec<T>,
    indices: Vec<u32>,
    limits: DictLimits,
}

impl<T: FixedWidth> DictEncoder<T> {
    /// An empty dictionary with the given limits.
    pub fn new(limits: DictLimits) -> Self {
        Self {
            table: Table::new(),
            entries: Vec::new(),
            indices: Vec::new(),
            limits,
        }
    }

    /// Adds values; returns how many were accepted. Fewer than
    /// `values.len()` means a limit was reached: the caller writes the
    /// indices so far and falls back for the rest.
    pub fn put(&mut self, values: &[T]) -> usize {
        for (n, &v) in values.iter().enumerate() {
            let bits = v.bits();
            let h = mix(bits as u64 ^ mix((bits >> 64) as u64));
            let entries = &self.entries;
            let id = match self.table.find(h, |id| entries[id as usize].bits() == bits) {
                Ok(id) => id,
                Err(slot) => {
                    if self.entries.len() >= self.limits.max_entries
                        || (self.entries.len() + 1) * T::SIZE > self.limits.max_bytes
                    {
                        return n;
                    }
                    self.entries.push(v);
                    self.table.insert(slot, h)
                }
            };
            self.indices.push(id);
        }
        values.len()
    }

    /// Whether a new distinct value would exceed a limit.
    pub fn is_full(&self) -> bool {
        self.entries.len() >= self.limits.max_entries
            || (self.entries.len() + 1) * T::SIZE > self.limits.max_bytes
    }

    /// Distinct entries so far.
    pub fn num_entries(&self) -> usize {
        self.entries.len()
    }

    /// The entries, in index order.
    pub fn entries(&self) -> &[T] {
        &self.entries
    }

    /// Size of the PLAIN dictionary page.
    pub fn dict_size_bytes(&self) -> usize {
        self.entries.len() * T::SIZE
    }

    /// Buffered indices (those not yet written).
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// Appends the PLAIN dictionary page body.
    pub fn write_dict(&self, out: &mut Vec<u8>) {
        crate::plain::encode(&self.entries, out);
    }

    /// Appends a data page body (bit width byte then hybrid runs) of the
    /// buffered indices, and clears them.
    pub fn write_indices(&mut self, out: &mut Vec<u8>) {
        write_indices(&mut self.indices, self.entries.len(), out);
    }
}

/// Builds a dictionary of byte arrays. Entries live in one buffer addressed
/// by offsets, so the hash table allocates nothing per value.
#[derive(Debug, Clone)]
pub struct ByteArrayDictEncoder {
    table: Table,
    offsets: Vec<usize>,
    values: Vec<u8>,
    indices: Vec<u32>,
    limits: DictLimits,
}

impl ByteArrayDictEncoder {
    /// An empty dictionary with the given limits.
    pub fn new(limits: DictLimits) -> Self {
        Self {
            table: Table::new(),
            offsets: vec![0],
            values: Vec::new(),
            indices: Vec::new(),
            limits,
        }
    }

    fn entry(&self, id: u32) -> &[u8] {
        let id = id as usize;
        &self.values[self.offsets[id]..self.offsets[id + 1]]
    }

    /// Adds one value; returns false (adding nothing) when a limit is reached.
    pub fn put(&mut self, v: &[u8]) -> bool {
        let h = hash_bytes(v);
        let found = self.table.find(h, |id| self.entry(id) == v);
        let id = match found {
            Ok(id) => id,
            Err(slot) => {
                let entries = self.offsets.len() - 1;
                // PLAIN size: 4-byte length plus bytes per entry.
                if entries >= self.limits.max_entries
                    || self.dict_size_bytes() + 4 + v.len() > self.limits.max_bytes
                {
                    return false;
                }
                self.values.extend_from_slice(v);
                self.offsets.push(self.values.len());
                self.table.insert(slot, h)
            }
        };
        self.indices.push(id);
        true
    }

    /// Adds values; returns how many were accepted (see [`DictEncoder::put`]).
    pub fn put_all<'b, I: IntoIterator<Item = &'b [u8]>>(&mut self, values: I) -> usize {
        let mut n = 0;
        for v in values {
            if !self.put(v) {
                break;
            }
            n += 1;
        }
        n
    }

    /// Distinct entries so far.
    pub fn num_entries(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Size of the PLAIN dictionary page.
    pub fn dict_size_bytes(&self) -> usize {
        self.values.len() + 4 * self.num_entries()
    }

    /// Buffered indices (those not yet written).
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// Appends the PLAIN dictionary page body.
    pub fn write_dict(&self, out: &mut Vec<u8>) {
        crate::plain::encode_byte_array((0..self.num_entries() as u32).map(|i| self.entry(i)), out);
    }

    /// Appends a data page body of the buffered indices, and clears them.
    pub fn write_indices(&mut self, out: &mut Vec<u8>) {
        let n = self.num_entries();
        write_indices(&mut self.indices, n, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plain::{ByteArrayDecoder, PlainDecoder};

    #[test]
    fn fixed_round_trip_and_limits() {
        let vals: Vec<f64> = (0..5000)
            .map(|i| (i % 37) as f64 * 0.5)
            .chain([f64::NAN, -0.0, 0.0])
            .collect();
        let mut enc = DictEncoder::<f64>::new(DictLimits::default());
        assert_eq!(enc.put(&vals), vals.len());
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

        let mut small = DictEncoder::<i32>::new(DictLimits {
            max_entries: 3,
            max_bytes: 100,
        });
        assert_eq!(small.put(&[1, 2, 1, 3, 4, 5]), 4);
        assert!(small.is_full());
        assert!(gather(&[1, 2], &[0, 2], &mut Vec::new()).is_err());
    }

    #[test]
    fn byte_array_round_trip() {
        let words: Vec<&[u8]> = [&b"a"[..], b"bb", b"", b"a", b"ccc", b"bb"].repeat(100);
        let mut enc = ByteArrayDictEncoder::new(DictLimits::default());
        assert_eq!(enc.put_all(words.iter().copied()), words.len());
        assert_eq!(enc.num_entries(), 4);
        let (mut dict, mut page) = (Vec::new(), Vec::new());
        enc.write_dict(&mut dict);
        assert_eq!(dict.len(), enc.dict_size_bytes());
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
        let mut limited = ByteArrayDictEncoder::new(DictLimits {
            max_entries: 10,
            max_bytes: 10,
        });
        assert_eq!(limited.put_all([&b"abc"[..], b"abc", b"defgh"]), 2);
        let mut fixed = Vec::new();
        gather_fixed(b"aabbcc", 2, &[2, 0], &mut fixed).unwrap();
        assert_eq!(fixed, b"ccaa");
        assert!(gather_fixed(b"aabbcc", 2, &[3], &mut fixed).is_err());
    }
}
