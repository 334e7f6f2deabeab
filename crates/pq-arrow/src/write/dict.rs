//! Dictionary builders of the writer.
//!
//! The writer hashes every value of a dictionary-encoded column (all of a
//! low-cardinality one, a high-cardinality one until its dictionary passes
//! the size limit), so this is one of its hot loops. Each table slot holds
//! what a lookup needs to reject or accept a candidate without touching
//! another array: the value itself for fixed-width types, a 32-bit hash
//! tag for byte arrays. Hashes are one or two multiplications (the keys
//! come from the caller's data, but a bad distribution costs only time:
//! probing is bounded by the table's load of at most one half).

use pq_encoding::plain::{self, FixedWidth};
use pq_encoding::rle;

const EMPTY: u32 = u32::MAX;
const K: u64 = 0x9E37_79B9_7F4A_7C15;

/// Multiplies and folds the 128-bit product: every input bit reaches the
/// high output bits, which pick the slot.
#[inline(always)]
fn fold_mul(a: u64, b: u64) -> u64 {
    let r = u128::from(a) * u128::from(b);
    (r as u64) ^ ((r >> 64) as u64)
}

/// Up to 8 bytes as a word; unique for a given length.
#[inline(always)]
fn load_small(b: &[u8]) -> u64 {
    let n = b.len();
    if n >= 4 {
        let lo = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let hi = u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]);
        u64::from(lo) | (u64::from(hi) << 32)
    } else if n > 0 {
        u64::from(b[0]) | (u64::from(b[n / 2]) << 8) | (u64::from(b[n - 1]) << 16)
    } else {
        0
    }
}

#[inline(always)]
fn word(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

#[inline]
fn hash_bytes(b: &[u8]) -> u64 {
    let n = b.len();
    let seed = K ^ n as u64;
    if n <= 8 {
        return fold_mul(load_small(b) ^ seed, K);
    }
    if n <= 16 {
        return fold_mul(word(b, 0) ^ seed, word(b, n - 8) ^ K);
    }
    let mut h = seed;
    let mut at = 0;
    while at + 16 <= n {
        h = fold_mul(word(b, at) ^ h, word(b, at + 8) ^ K);
        at += 16;
    }
    fold_mul(word(b, n - 16) ^ h, word(b, n - 8) ^ K)
}

/// Equality of two byte strings of the same length, inline for short ones
/// (a `memcmp` call costs more than the comparison for a few bytes).
#[inline(always)]
fn eq_same_len(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n <= 8 {
        load_small(a) == load_small(b)
    } else if n <= 16 {
        word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8)
    } else {
        a == b
    }
}

fn bits_for(slots: usize) -> u32 {
    slots.trailing_zeros()
}

/// Slots of a new table. A writer holds one dictionary per column, so a
/// file of many short columns holds many; starting small keeps each
/// proportional to what it holds (the table doubles as entries arrive, a
/// few cheap rehashes on the way to a large one).
const INITIAL_SLOTS: usize = 16;

/// Writes `indices` as a dictionary-indices data page body (bit width byte
/// then hybrid runs) and clears them.
fn write_indices(indices: &mut Vec<u32>, num_entries: usize, out: &mut Vec<u8>) {
    let w = (u32::BITS - (num_entries.saturating_sub(1) as u32).leading_zeros()) as u8;
    out.push(w);
    rle::encode(indices, w, out);
    indices.clear();
}

/// A dictionary of fixed-width values of at most 8 bytes, compared bit for
/// bit (NaN payloads and -0.0 are kept distinct).
#[derive(Debug, Clone)]
pub(crate) struct FixedDict<T> {
    /// (value bits, id); `id == EMPTY` for a free slot.
    slots: Vec<(u64, u32)>,
    shift: u32,
    /// The table stops doubling at this many slots (see `new`).
    max_slots: usize,
    entries: Vec<T>,
    indices: Vec<u32>,
}

impl<T: FixedWidth> FixedDict<T> {
    /// A dictionary expected to hold at most about `max_entries` entries
    /// before the writer falls back: the table then stops doubling at a
    /// load of 3/4 instead of 1/2 (a larger table only to be dropped at the
    /// fallback costs more than the longer probes).
    pub(crate) fn new(max_entries: usize) -> Self {
        let n = INITIAL_SLOTS;
        Self {
            slots: vec![(0, EMPTY); n],
            shift: 64 - bits_for(n),
            max_slots: max_entries
                .saturating_mul(4)
                .div_ceil(3)
                .checked_next_power_of_two()
                .unwrap_or(usize::MAX),
            entries: Vec::new(),
            indices: Vec::new(),
        }
    }

    #[inline(always)]
    fn slot_of(&self, key: u64) -> usize {
        (fold_mul(key, K) >> self.shift) as usize
    }

    /// Adds values and their indices.
    pub(crate) fn put(&mut self, values: &[T]) {
        self.indices.reserve(values.len());
        for &v in values {
            let key = v.bits() as u64;
            let mask = self.slots.len() - 1;
            let mut i = self.slot_of(key);
            let id = loop {
                let (k, id) = self.slots[i];
                if id == EMPTY {
                    let id = self.entries.len() as u32;
                    self.slots[i] = (key, id);
                    self.entries.push(v);
                    let (e, n) = (self.entries.len(), self.slots.len());
                    if (e * 2 > n && n < self.max_slots) || e * 4 > n * 3 {
                        self.grow();
                    }
                    break id;
                }
                if k == key {
                    break id;
                }
                i = (i + 1) & mask;
            };
            self.indices.push(id);
        }
    }

    fn grow(&mut self) {
        let n = self.slots.len() * 2;
        self.slots.clear();
        self.slots.resize(n, (0, EMPTY));
        self.shift = 64 - bits_for(n);
        let mask = n - 1;
        for (id, e) in self.entries.iter().enumerate() {
            let key = e.bits() as u64;
            let mut i = self.slot_of(key);
            while self.slots[i].1 != EMPTY {
                i = (i + 1) & mask;
            }
            self.slots[i] = (key, id as u32);
        }
    }

    pub(crate) fn num_entries(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn num_indices(&self) -> usize {
        self.indices.len()
    }

    /// Bytes of the PLAIN dictionary page.
    pub(crate) fn size(&self) -> usize {
        self.entries.len() * T::SIZE
    }

    pub(crate) fn write_dict(&self, out: &mut Vec<u8>) {
        plain::encode(&self.entries, out);
    }

    pub(crate) fn write_indices(&mut self, out: &mut Vec<u8>) {
        write_indices(&mut self.indices, self.entries.len(), out);
    }
}

/// A dictionary of byte arrays, entries stored back to back.
#[derive(Debug, Clone)]
pub(crate) struct BytesDict {
    /// (hash tag, id); `id == EMPTY` for a free slot.
    slots: Vec<(u32, u32)>,
    shift: u32,
    offsets: Vec<usize>,
    values: Vec<u8>,
    indices: Vec<u32>,
    /// Per entry, the page (`page + 1`) whose statistics last took it.
    seen: Vec<u32>,
    page: u32,
    /// Scratch of [`new_in_page`](Self::new_in_page).
    fresh: Vec<u32>,
}

impl BytesDict {
    pub(crate) fn new() -> Self {
        let n = INITIAL_SLOTS;
        Self {
            slots: vec![(0, EMPTY); n],
            shift: 64 - bits_for(n),
            offsets: vec![0],
            values: Vec::new(),
            indices: Vec::new(),
            seen: Vec::new(),
            page: 1,
            fresh: Vec::new(),
        }
    }

    #[inline(always)]
    fn entry(&self, id: u32) -> &[u8] {
        let id = id as usize;
        &self.values[self.offsets[id]..self.offsets[id + 1]]
    }

    /// Adds one value and its index.
    #[inline]
    pub(crate) fn put(&mut self, v: &[u8]) {
        let h = hash_bytes(v);
        let tag = h as u32;
        let mask = self.slots.len() - 1;
        let mut i = (h >> self.shift) as usize;
        let id = loop {
            let (t, id) = self.slots[i];
            if id == EMPTY {
                let id = self.seen.len() as u32;
                self.slots[i] = (tag, id);
                self.values.extend_from_slice(v);
                self.offsets.push(self.values.len());
                self.seen.push(0);
                if self.seen.len() * 2 > self.slots.len() {
                    self.grow();
                }
                break id;
            }
            if t == tag {
                let e = self.entry(id);
                if e.len() == v.len() && eq_same_len(e, v) {
                    break id;
                }
            }
            i = (i + 1) & mask;
        };
        self.indices.push(id);
    }

    fn grow(&mut self) {
        let n = self.slots.len() * 2;
        self.slots.clear();
        self.slots.resize(n, (0, EMPTY));
        self.shift = 64 - bits_for(n);
        let mask = n - 1;
        for id in 0..self.seen.len() as u32 {
            let h = hash_bytes(self.entry(id));
            let mut i = (h >> self.shift) as usize;
            while self.slots[i].1 != EMPTY {
                i = (i + 1) & mask;
            }
            self.slots[i] = (h as u32, id);
        }
    }

    pub(crate) fn num_entries(&self) -> usize {
        self.seen.len()
    }

    pub(crate) fn num_indices(&self) -> usize {
        self.indices.len()
    }

    /// Bytes of the PLAIN dictionary page (4-byte length per entry).
    pub(crate) fn size(&self) -> usize {
        self.values.len() + 4 * self.seen.len()
    }

    /// Bytes of the PLAIN FIXED_LEN_BYTE_ARRAY dictionary page.
    pub(crate) fn fixed_size(&self) -> usize {
        self.values.len()
    }

    /// The entries indexed from `indices[from..]` that the current page
    /// has not yet returned: the page's statistics need each distinct
    /// value once, not every occurrence.
    pub(crate) fn new_in_page(&mut self, from: usize) -> impl Iterator<Item = &[u8]> + Clone {
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
        self.fresh.iter().map(move |&id| {
            let id = id as usize;
            &values[offsets[id]..offsets[id + 1]]
        })
    }

    /// Starts a new page for [`new_in_page`](Self::new_in_page).
    pub(crate) fn next_page(&mut self) {
        self.page = self.page.wrapping_add(1);
        if self.page == 0 {
            self.seen.fill(0);
            self.page = 1;
        }
    }

    /// PLAIN BYTE_ARRAY dictionary page body.
    pub(crate) fn write_dict(&self, out: &mut Vec<u8>) {
        out.reserve(self.size());
        for w in self.offsets.windows(2) {
            out.extend_from_slice(&((w[1] - w[0]) as u32).to_le_bytes());
            out.extend_from_slice(&self.values[w[0]..w[1]]);
        }
    }

    /// PLAIN FIXED_LEN_BYTE_ARRAY dictionary page body (no lengths).
    pub(crate) fn write_dict_fixed(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.values);
    }

    pub(crate) fn write_indices(&mut self, out: &mut Vec<u8>) {
        let n = self.seen.len();
        write_indices(&mut self.indices, n, out);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use pq_encoding::dictionary::{ByteArrayDictEncoder, DictEncoder, DictLimits};

    const NO_LIMIT: DictLimits = DictLimits {
        max_entries: usize::MAX,
        max_bytes: usize::MAX,
    };

    #[test]
    fn bytes_same_pages_as_the_reference_encoder() {
        let mut seed = 11u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 33
        };
        // Lengths 0..40 so every hash and comparison path is taken; few
        // distinct values first (repeats), then many (table growth).
        let pool: Vec<Vec<u8>> = (0..5000)
            .map(|i| {
                let len = (next() % 40) as usize;
                let mut v: Vec<u8> = (0..len).map(|_| (next() % 3) as u8).collect();
                v.extend_from_slice(&(i as u32).to_le_bytes()[..(i % 3)]);
                v
            })
            .collect();
        let mut ours = BytesDict::new();
        let mut theirs = ByteArrayDictEncoder::new(NO_LIMIT);
        for k in 0..20_000u64 {
            let v = &pool[(next() % if k < 3000 { 20 } else { 5000 }) as usize];
            ours.put(v);
            assert!(theirs.put(v));
        }
        assert_eq!(ours.num_entries(), theirs.num_entries());
        let (mut a, mut b) = (Vec::new(), Vec::new());
        ours.write_dict(&mut a);
        theirs.write_dict(&mut b);
        assert_eq!(a, b);
        assert_eq!(ours.size(), theirs.dict_size_bytes());
        let (mut a, mut b) = (Vec::new(), Vec::new());
        ours.write_indices(&mut a);
        theirs.write_indices(&mut b);
        assert_eq!(a, b);
        // Values differing in one byte, or only in length, stay distinct.
        let mut d = BytesDict::new();
        for v in [
            &b"abcdefghijklmnopq"[..],
            b"abcdefghijklmnopr",
            b"",
            b"\0",
            b"\0\0",
        ] {
            d.put(v);
        }
        assert_eq!(d.num_entries(), 5);
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
    fn fixed_same_pages_as_the_reference_encoder() {
        let values: Vec<f64> = (0..50_000)
            .map(|i: i64| match i % 5 {
                0 => f64::NAN,
                1 => -0.0,
                2 => 0.0,
                _ => ((i * 7919) % 3001) as f64,
            })
            .collect();
        let mut ours = FixedDict::<f64>::new(usize::MAX);
        let mut theirs = DictEncoder::<f64>::new(NO_LIMIT);
        ours.put(&values);
        theirs.put(&values);
        assert_eq!(ours.num_entries(), theirs.num_entries());
        let (mut a, mut b) = (Vec::new(), Vec::new());
        ours.write_dict(&mut a);
        theirs.write_dict(&mut b);
        assert_eq!(a, b);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        ours.write_indices(&mut a);
        theirs.write_indices(&mut b);
        assert_eq!(a, b);
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
            assert!(ours.slots.len() * 3 >= ours.entries.len() * 4);
        }
    }
}
