//! The dictionary encoders: hash tables from values to entry ids, the
//! entries in index order (the PLAIN dictionary page) and the ids of the
//! values put so far (a data page's indices).
//!
//! A writer hashes every value of a dictionary-encoded column (all of a
//! low-cardinality one, a high-cardinality one until its dictionary passes
//! its size limit), so this is one of its hot loops. Each table slot holds
//! what a lookup needs to reject or accept a candidate without touching
//! another array: the value itself for fixed-width types, a 32-bit hash
//! tag for byte arrays (the table is `table.rs`, the hashes `hash.rs`).
//! Probing is linear, at a load of at most one half (three quarters past
//! the expected size, see [`FixedDict::new`]).
//!
//! Ids are `u32`: a dictionary holds fewer than 2^32 - 1 entries (Parquet
//! writers bound it to a page of a few MiB long before).

use alloc::vec;
use alloc::vec::Vec;

use super::hash::{K, eq_same_len, fold_mul, hash_bytes};
use super::table::Table;
use crate::bit_pack::bit_width;
use crate::plain::{self, FixedWidth};
use crate::rle;

/// Writes `indices` as a dictionary-indices data page body (bit width byte
/// then hybrid runs) and clears them.
fn write_indices(indices: &mut Vec<u32>, num_entries: usize, out: &mut Vec<u8>) {
    let w = bit_width(num_entries.saturating_sub(1) as u64);
    out.push(w);
    rle::encode(indices, w, out);
    indices.clear();
}

/// A fixed-width value a [`FixedDict`] can hold: at most 8 bytes, so its
/// bits are the whole key. Implemented for `i32`, `i64`, `u32`, `u64`,
/// `f32` and `f64` (not INT96, whose 12 bytes would not fit the key).
pub trait DictKey: FixedWidth + sealed::Sealed {
    /// The value's bits, zero-extended: equal keys are equal bits.
    fn key(self) -> u64;
}

mod sealed {
    /// Keeps [`super::DictKey`] to the types whose key is lossless.
    pub trait Sealed {}
}

macro_rules! dict_key {
    ($($t:ty)*) => {$(
        impl sealed::Sealed for $t {}
        impl DictKey for $t {
            #[inline(always)]
            fn key(self) -> u64 {
                // At most 8 bytes: the truncation drops only zero bits.
                self.bits() as u64
            }
        }
    )*};
}
dict_key!(i32 i64 u32 u64 f32 f64);

/// A dictionary of fixed-width values, compared bit for bit (NaN payloads
/// and -0.0 are kept distinct), with the indices of the values put so far.
///
/// ```
/// use pq_encoding::dictionary::{FixedDict, indices_decoder, gather};
/// use pq_encoding::plain::PlainDecoder;
/// let mut dict = FixedDict::<i64>::new(1000);
/// dict.put(&[7, 5, 7, 7]);
/// assert_eq!((dict.num_entries(), dict.num_indices()), (2, 4));
/// let (mut dict_page, mut data_page) = (Vec::new(), Vec::new());
/// dict.write_dict(&mut dict_page);
/// dict.write_indices(&mut data_page);
/// // Back through the decoders.
/// let mut entries = Vec::new();
/// PlainDecoder::<i64>::new(&dict_page).decode_into(&mut entries, 2).unwrap();
/// let mut idx = Vec::new();
/// indices_decoder(&data_page).unwrap().decode_into(&mut idx, 4).unwrap();
/// let mut values = Vec::new();
/// gather(&entries, &idx, &mut values).unwrap();
/// assert_eq!(values, [7, 5, 7, 7]);
/// ```
#[derive(Debug, Clone)]
pub struct FixedDict<T> {
    table: Table<u64>,
    /// The table stops doubling at this many slots (see `new`).
    max_slots: usize,
    entries: Vec<T>,
    indices: Vec<u32>,
}

impl<T: DictKey> FixedDict<T> {
    /// A dictionary expected to hold at most about `max_entries` entries
    /// before the writer falls back to another encoding: the table then
    /// stops doubling at a load of 3/4 instead of 1/2 (a larger table only
    /// to be dropped at the fallback costs more than the longer probes).
    /// The dictionary still takes any number of entries.
    pub fn new(max_entries: usize) -> Self {
        Self {
            table: Table::new(),
            max_slots: max_entries
                .saturating_mul(4)
                .div_ceil(3)
                .checked_next_power_of_two()
                .unwrap_or(usize::MAX),
            entries: Vec::new(),
            indices: Vec::new(),
        }
    }

    /// Adds `values`: each becomes an entry unless an equal one is there,
    /// and its entry's id is appended to the indices.
    pub fn put(&mut self, values: &[T]) {
        self.indices.reserve(values.len());
        for &v in values {
            let key = v.key();
            let id = match self.table.find(fold_mul(key, K), |k, _| k == key) {
                Ok(id) => id,
                Err(slot) => {
                    let id = self.entries.len() as u32;
                    self.table.fill(slot, key, id);
                    self.entries.push(v);
                    let (e, n) = (self.entries.len(), self.table.slots());
                    if (e * 2 > n && n < self.max_slots) || e * 4 > n * 3 {
                        let keys = self.entries.iter().map(|e| e.key());
                        self.table.grow(keys.map(|k| (fold_mul(k, K), k)));
                    }
                    id
                }
            };
            self.indices.push(id);
        }
    }

    /// Distinct values so far.
    pub fn num_entries(&self) -> usize {
        self.entries.len()
    }

    /// The entries, in id order.
    pub fn entries(&self) -> &[T] {
        &self.entries
    }

    /// Indices not yet written by [`write_indices`](Self::write_indices).
    pub fn num_indices(&self) -> usize {
        self.indices.len()
    }

    /// Bytes of the PLAIN dictionary page.
    pub fn size(&self) -> usize {
        self.entries.len() * T::SIZE
    }

    /// Appends the PLAIN dictionary page body.
    pub fn write_dict(&self, out: &mut Vec<u8>) {
        plain::encode(&self.entries, out);
    }

    /// Appends a data page body of the indices (a bit width byte, then
    /// hybrid runs) and clears them, for the next page.
    pub fn write_indices(&mut self, out: &mut Vec<u8>) {
        write_indices(&mut self.indices, self.entries.len(), out);
    }
}

/// Entry `id` of entries stored back to back.
#[inline(always)]
fn entry<'a>(values: &'a [u8], offsets: &[usize], id: u32) -> &'a [u8] {
    let id = id as usize;
    &values[offsets[id]..offsets[id + 1]]
}

/// A dictionary of byte arrays (BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY), its
/// entries stored back to back, with the indices of the values put so far.
///
/// ```
/// use pq_encoding::dictionary::{BytesDict, indices_decoder, gather_byte_array};
/// use pq_encoding::ByteArrayDecode;
/// use pq_encoding::plain::ByteArrayDecoder;
/// let mut dict = BytesDict::new();
/// for v in [&b"red"[..], b"green", b"red"] {
///     dict.put(v);
/// }
/// assert_eq!(dict.num_entries(), 2);
/// let (mut dict_page, mut data_page) = (Vec::new(), Vec::new());
/// dict.write_dict(&mut dict_page);
/// assert_eq!(dict_page.len(), dict.size());
/// dict.write_indices(&mut data_page);
/// let (mut offsets, mut bytes) = (Vec::<i32>::new(), Vec::new());
/// ByteArrayDecoder::new(&dict_page).decode(&mut offsets, &mut bytes, 2).unwrap();
/// let mut idx = Vec::new();
/// indices_decoder(&data_page).unwrap().decode_into(&mut idx, 3).unwrap();
/// let (mut o, mut v) = (Vec::<i32>::new(), Vec::new());
/// gather_byte_array(&offsets, &bytes, &idx, &mut o, &mut v).unwrap();
/// assert_eq!(v, b"redgreenred");
/// ```
#[derive(Debug, Clone)]
pub struct BytesDict {
    /// Keyed by the low 32 bits of the hash.
    table: Table<u32>,
    offsets: Vec<usize>,
    values: Vec<u8>,
    indices: Vec<u32>,
    /// Per entry, the page (`page + 1`) whose statistics last took it.
    seen: Vec<u32>,
    page: u32,
    /// Scratch of [`new_in_page`](Self::new_in_page).
    fresh: Vec<u32>,
}

impl Default for BytesDict {
    fn default() -> Self {
        Self::new()
    }
}

impl BytesDict {
    /// An empty dictionary.
    pub fn new() -> Self {
        Self {
            table: Table::new(),
            offsets: vec![0],
            values: Vec::new(),
            indices: Vec::new(),
            seen: Vec::new(),
            page: 1,
            fresh: Vec::new(),
        }
    }

    /// Adds `v`: it becomes an entry unless an equal one is there, and its
    /// entry's id is appended to the indices.
    #[inline]
    pub fn put(&mut self, v: &[u8]) {
        let h = hash_bytes(v);
        let tag = h as u32;
        let (values, offsets) = (&self.values, &self.offsets);
        let found = self.table.find(h, |t, id| {
            // A matching tag is checked against the entry itself.
            t == tag && {
                let e = entry(values, offsets, id);
                e.len() == v.len() && eq_same_len(e, v)
            }
        });
        let id = match found {
            Ok(id) => id,
            Err(slot) => {
                let id = self.seen.len() as u32;
                self.table.fill(slot, tag, id);
                self.values.extend_from_slice(v);
                self.offsets.push(self.values.len());
                self.seen.push(0);
                if self.seen.len() * 2 > self.table.slots() {
                    let (values, offsets) = (&self.values, &self.offsets);
                    let hashes = offsets.windows(2).map(|w| hash_bytes(&values[w[0]..w[1]]));
                    self.table.grow(hashes.map(|h| (h, h as u32)));
                }
                id
            }
        };
        self.indices.push(id);
    }

    /// Distinct values so far.
    pub fn num_entries(&self) -> usize {
        self.seen.len()
    }

    /// Indices not yet written by [`write_indices`](Self::write_indices).
    pub fn num_indices(&self) -> usize {
        self.indices.len()
    }

    /// Bytes of the PLAIN BYTE_ARRAY dictionary page (a 4-byte length per
    /// entry).
    pub fn size(&self) -> usize {
        self.values.len() + 4 * self.seen.len()
    }

    /// Bytes of the PLAIN FIXED_LEN_BYTE_ARRAY dictionary page (no lengths).
    pub fn fixed_size(&self) -> usize {
        self.values.len()
    }

    /// The entries indexed from `indices[from..]` that the current page
    /// has not yet returned: the page's statistics need each distinct
    /// value once, not every occurrence.
    pub fn new_in_page(&mut self, from: usize) -> impl Iterator<Item = &[u8]> + Clone {
        let page = self.page;
        self.fresh.clear();
        for &id in &self.indices[from..] {
            let s = &mut self.seen[id as usize];
            if *s != page {
                *s = page;
                self.fresh.push(id);
            }
        }
        let (values, offsets) = (&self.values, &self.offsets);
        self.fresh.iter().map(move |&id| entry(values, offsets, id))
    }

    /// Starts a new page for [`new_in_page`](Self::new_in_page).
    pub fn next_page(&mut self) {
        self.page = self.page.wrapping_add(1);
        if self.page == 0 {
            self.seen.fill(0);
            self.page = 1;
        }
    }

    /// PLAIN BYTE_ARRAY dictionary page body.
    pub fn write_dict(&self, out: &mut Vec<u8>) {
        out.reserve(self.size());
        for w in self.offsets.windows(2) {
            out.extend_from_slice(&((w[1] - w[0]) as u32).to_le_bytes());
            out.extend_from_slice(&self.values[w[0]..w[1]]);
        }
    }

    /// PLAIN FIXED_LEN_BYTE_ARRAY dictionary page body (no lengths).
    pub fn write_dict_fixed(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.values);
    }

    /// Appends a data page body of the indices (a bit width byte, then
    /// hybrid runs) and clears them, for the next page.
    pub fn write_indices(&mut self, out: &mut Vec<u8>) {
        let n = self.seen.len();
        write_indices(&mut self.indices, n, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_differing_in_one_byte_or_in_length_stay_distinct() {
        let mut d = BytesDict::new();
        for v in [
            &b"abcdefghijklmnopq"[..],
            b"abcdefghijklmnopr",
            b"",
            b"\0",
            b"\0\0",
            b"abcdefghijklmnopq",
        ] {
            d.put(v);
        }
        assert_eq!(d.num_entries(), 5);
        assert_eq!(d.indices, [0, 1, 2, 3, 4, 0]);
    }

    #[test]
    fn new_in_page_once_per_page() {
        let mut d = BytesDict::new();
        for v in [b"b", b"a", b"b", b"c"] {
            d.put(v);
        }
        let seen: Vec<&[u8]> = d.new_in_page(0).collect();
        assert_eq!(seen, [b"b", b"a", b"c"]);
        d.put(b"a");
        assert_eq!(d.new_in_page(4).count(), 0);
        d.next_page();
        let seen: Vec<&[u8]> = d.new_in_page(4).collect();
        assert_eq!(seen, [b"a"]);
    }

    #[test]
    fn the_table_stops_doubling_at_the_expected_size() {
        let ints: Vec<i64> = (0..300_000).map(|i| i * 4 + (i % 3)).collect();
        // Past the expected size the table fills to 3/4 and then grows.
        for cap in [usize::MAX, 1000, 100_000] {
            let mut ours = FixedDict::<i64>::new(cap);
            ours.put(&ints);
            assert_eq!(ours.num_entries(), ints.len());
            assert_eq!(ours.size(), ints.len() * 8);
            let mut again = ours.clone();
            again.indices.clear();
            again.put(&ints[..1000]);
            assert_eq!(again.indices, (0..1000).collect::<Vec<u32>>());
            assert!(ours.table.slots() * 3 >= ours.entries.len() * 4);
            if cap == 1000 {
                // At the cap the load went to 3/4 before the next doubling.
                let small = FixedDict::<i64>::new(cap);
                assert_eq!(small.max_slots, 2048);
            }
        }
    }
}
