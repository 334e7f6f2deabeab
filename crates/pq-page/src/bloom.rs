//! Split-block Bloom filters (`BloomFilter.md`): reading one from its
//! bytes and asking whether it may hold a value.
//!
//! A filter is a [`BloomFilterHeader`] followed by its bitset: blocks of
//! eight 32-bit words. A value is hashed with XXH64 (seed 0) over its PLAIN
//! encoding (no length prefix for byte arrays); the top 32 bits of the
//! hash choose a block, the low 32 bits one bit in each of its words.
//!
//! ```
//! use pq_page::bloom::{Sbbf, xxh64};
//! let mut filter = Sbbf::with_blocks(4);
//! filter.insert(xxh64(b"AIR"));
//! assert!(filter.check(xxh64(b"AIR")));
//! let bytes = filter.to_bytes();
//! let (read, used) = Sbbf::from_bytes(&bytes, 1 << 20).unwrap();
//! assert_eq!(used, bytes.len());
//! assert!(read.check(xxh64(b"AIR")));
//! ```

use bytes::Bytes;
use pq_format::{
    BloomFilterAlgorithm, BloomFilterCompression, BloomFilterHash, BloomFilterHeader, ThriftDecode,
    ThriftEncode,
};

/// The odd constants that spread a hash over a block's eight words.
const SALT: [u32; 8] = [
    0x47b6_137b,
    0x4497_4d91,
    0x8824_ad5b,
    0xa2b7_289d,
    0x7054_95c7,
    0x2df1_424b,
    0x9efc_4947,
    0x5c6b_fb31,
];

/// Bytes of one block.
const BLOCK_BYTES: usize = 32;

/// A split-block Bloom filter.
///
/// Built block by block for writing, or read from a file's bytes. Read
/// with [`Sbbf::from_shared`], the bitset stays where the file's bytes
/// are: a reader asking about one value does not copy (and fault in) a
/// bitset of megabytes.
#[derive(Debug, Clone)]
pub struct Sbbf {
    bits: Bits,
}

#[derive(Debug, Clone)]
enum Bits {
    /// Words to insert into.
    Words(Vec<[u32; 8]>),
    /// A bitset as the file holds it: blocks of eight little-endian words.
    Shared(Bytes),
}

/// Why a filter's bytes were refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bloom filter: {0}")]
pub struct BloomError(String);

impl Sbbf {
    /// An empty filter of `n` blocks (at least one).
    pub fn with_blocks(n: usize) -> Self {
        Sbbf {
            bits: Bits::Words(vec![[0; 8]; n.max(1)]),
        }
    }

    /// An empty filter sized for `ndv` distinct values at false-positive
    /// probability `fpp`, rounded up to a power of two of blocks (as other
    /// writers do), between 32 bytes and `max_bytes`.
    pub fn for_values(ndv: u64, fpp: f64, max_bytes: usize) -> Self {
        let fpp = fpp.clamp(1e-9, 0.5);
        // m = -k n / ln(1 - p^(1/k)) bits, with k = 8 bits set per value.
        let bits = -8.0 * ndv as f64 / (1.0 - fpp.powf(1.0 / 8.0)).ln();
        let bytes = (bits / 8.0).ceil().max(BLOCK_BYTES as f64);
        let bytes = (bytes as usize)
            .next_power_of_two()
            .min(max_bytes.max(BLOCK_BYTES));
        Sbbf::with_blocks(bytes / BLOCK_BYTES)
    }

    /// Reads a filter (header and bitset) from the start of `bytes`, with
    /// the number of bytes it took. A bitset larger than `max_bytes`, of no
    /// whole number of blocks, past the end of `bytes`, or of an algorithm,
    /// hash or compression this reader does not know is an error.
    pub fn from_bytes(bytes: &[u8], max_bytes: usize) -> Result<(Sbbf, usize), BloomError> {
        let bits = bitset(bytes, max_bytes)?;
        let blocks = bytes
            .get(bits.clone())
            .unwrap_or_default()
            .chunks_exact(BLOCK_BYTES)
            .map(|b| core::array::from_fn(|j| word_at(b, j)))
            .collect();
        Ok((
            Sbbf {
                bits: Bits::Words(blocks),
            },
            bits.end,
        ))
    }

    /// As [`Sbbf::from_bytes`], keeping the bitset in `bytes` (a slice of
    /// them, no copy).
    ///
    /// ```
    /// use pq_page::bloom::{Sbbf, xxh64};
    /// let mut built = Sbbf::with_blocks(64);
    /// built.insert(xxh64(b"TRUCK"));
    /// let file = bytes::Bytes::from(built.to_bytes());
    /// let (read, _) = Sbbf::from_shared(file, 1 << 20).unwrap();
    /// assert!(read.check(xxh64(b"TRUCK")));
    /// assert_eq!(read, built);
    /// ```
    pub fn from_shared(bytes: Bytes, max_bytes: usize) -> Result<(Sbbf, usize), BloomError> {
        let bits = bitset(&bytes, max_bytes)?;
        let end = bits.end;
        Ok((
            Sbbf {
                bits: Bits::Shared(bytes.slice(bits)),
            },
            end,
        ))
    }

    /// The filter as a file holds it: header, then bitset.
    pub fn to_bytes(&self) -> Vec<u8> {
        let header = BloomFilterHeader {
            num_bytes: i32::try_from(self.num_bytes()).unwrap_or(i32::MAX),
            algorithm: BloomFilterAlgorithm::Block(Default::default()),
            hash: BloomFilterHash::Xxhash(Default::default()),
            compression: BloomFilterCompression::Uncompressed(Default::default()),
        };
        let mut out = header.encode();
        for i in 0..self.num_blocks() {
            for w in self.block_words(i).unwrap_or_default() {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
        out
    }

    fn num_blocks(&self) -> usize {
        match &self.bits {
            Bits::Words(w) => w.len(),
            Bits::Shared(b) => b.len() / BLOCK_BYTES,
        }
    }

    /// The words of block `i`.
    fn block_words(&self, i: usize) -> Option<[u32; 8]> {
        match &self.bits {
            Bits::Words(w) => w.get(i).copied(),
            Bits::Shared(b) => {
                let block = b.get(i * BLOCK_BYTES..(i + 1) * BLOCK_BYTES)?;
                Some(core::array::from_fn(|j| word_at(block, j)))
            }
        }
    }

    fn block(&self, hash: u64) -> usize {
        // The top 32 bits scaled to the number of blocks.
        (((hash >> 32) * self.num_blocks() as u64) >> 32) as usize
    }

    /// Adds a value's hash (a filter read with [`Sbbf::from_shared`] is
    /// copied first).
    pub fn insert(&mut self, hash: u64) {
        let i = self.block(hash);
        if let Bits::Shared(_) = self.bits {
            let words = (0..self.num_blocks())
                .map(|b| self.block_words(b).unwrap_or_default())
                .collect();
            self.bits = Bits::Words(words);
        }
        if let Bits::Words(blocks) = &mut self.bits
            && let Some(b) = blocks.get_mut(i)
        {
            for (w, s) in b.iter_mut().zip(SALT) {
                *w |= 1 << ((hash as u32).wrapping_mul(s) >> 27);
            }
        }
    }

    /// Whether a value of this hash may have been added (false: certainly
    /// not).
    pub fn check(&self, hash: u64) -> bool {
        let Some(b) = self.block_words(self.block(hash)) else {
            return true;
        };
        b.iter()
            .zip(SALT)
            .all(|(w, s)| w & (1 << ((hash as u32).wrapping_mul(s) >> 27)) != 0)
    }

    /// The bitset's size in bytes.
    pub fn num_bytes(&self) -> usize {
        self.num_blocks() * BLOCK_BYTES
    }
}

/// Two filters are equal when their bitsets are, however each is held.
impl PartialEq for Sbbf {
    fn eq(&self, other: &Self) -> bool {
        self.num_blocks() == other.num_blocks()
            && (0..self.num_blocks()).all(|i| self.block_words(i) == other.block_words(i))
    }
}

impl Eq for Sbbf {}

/// Word `j` of a 32-byte block.
fn word_at(block: &[u8], j: usize) -> u32 {
    match block.get(j * 4..j * 4 + 4) {
        Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
        _ => 0,
    }
}

/// Where the bitset of the filter at the start of `bytes` lies in them,
/// its header checked (see [`Sbbf::from_bytes`]).
fn bitset(bytes: &[u8], max_bytes: usize) -> Result<core::ops::Range<usize>, BloomError> {
    let (header, header_len) =
        BloomFilterHeader::decode_prefix(bytes, &pq_format::Limits::default())
            .map_err(|e| BloomError(format!("header: {e}")))?;
    if !matches!(header.algorithm, BloomFilterAlgorithm::Block(_)) {
        return Err(BloomError("an algorithm other than split blocks".into()));
    }
    if !matches!(header.hash, BloomFilterHash::Xxhash(_)) {
        return Err(BloomError("a hash other than XXH64".into()));
    }
    if !matches!(header.compression, BloomFilterCompression::Uncompressed(_)) {
        return Err(BloomError("a compressed bitset".into()));
    }
    let n = usize::try_from(header.num_bytes)
        .map_err(|_| BloomError(format!("negative size {}", header.num_bytes)))?;
    if n == 0 || n % BLOCK_BYTES != 0 {
        return Err(BloomError(format!(
            "a bitset of {n} bytes is not a whole number of 32-byte blocks"
        )));
    }
    if n > max_bytes {
        return Err(BloomError(format!(
            "a bitset of {n} bytes is larger than the limit of {max_bytes}"
        )));
    }
    let end = header_len.saturating_add(n);
    if bytes.len() < end {
        return Err(BloomError(format!(
            "a bitset of {n} bytes runs past the {} bytes read",
            bytes.len().saturating_sub(header_len)
        )));
    }
    Ok(header_len..end)
}

const P1: u64 = 0x9E37_79B1_85EB_CA87;
const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const P3: u64 = 0x1656_67B1_9E37_79F9;
const P4: u64 = 0x85EB_CA77_C2B2_AE63;
const P5: u64 = 0x27D4_EB2F_1656_67C5;

fn round(acc: u64, input: u64) -> u64 {
    acc.wrapping_add(input.wrapping_mul(P2))
        .rotate_left(31)
        .wrapping_mul(P1)
}

fn merge(acc: u64, v: u64) -> u64 {
    (acc ^ round(0, v)).wrapping_mul(P1).wrapping_add(P4)
}

fn u64_at(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_le_bytes(a)
}

/// XXH64 with seed 0, the hash of Parquet's Bloom filters.
pub fn xxh64(data: &[u8]) -> u64 {
    let len = data.len() as u64;
    let mut rest = data;
    let mut acc = if data.len() >= 32 {
        let mut v = [P1.wrapping_add(P2), P2, 0, 0u64.wrapping_sub(P1)];
        let mut stripes = data.chunks_exact(32);
        for s in &mut stripes {
            for (i, v) in v.iter_mut().enumerate() {
                *v = round(*v, u64_at(&s[i * 8..]));
            }
        }
        rest = stripes.remainder();
        let mut acc = v[0]
            .rotate_left(1)
            .wrapping_add(v[1].rotate_left(7))
            .wrapping_add(v[2].rotate_left(12))
            .wrapping_add(v[3].rotate_left(18));
        for v in v {
            acc = merge(acc, v);
        }
        acc
    } else {
        P5
    };
    acc = acc.wrapping_add(len);
    let mut eights = rest.chunks_exact(8);
    for c in &mut eights {
        acc ^= round(0, u64_at(c));
        acc = acc.rotate_left(27).wrapping_mul(P1).wrapping_add(P4);
    }
    let mut rest = eights.remainder();
    if rest.len() >= 4 {
        let w = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]);
        acc ^= u64::from(w).wrapping_mul(P1);
        acc = acc.rotate_left(23).wrapping_mul(P2).wrapping_add(P3);
        rest = &rest[4..];
    }
    for &b in rest {
        acc ^= u64::from(b).wrapping_mul(P5);
        acc = acc.rotate_left(11).wrapping_mul(P1);
    }
    acc ^= acc >> 33;
    acc = acc.wrapping_mul(P2);
    acc ^= acc >> 29;
    acc = acc.wrapping_mul(P3);
    acc ^ (acc >> 32)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn xxh64_matches_the_reference_values() {
        // From the xxHash reference implementation, seed 0.
        assert_eq!(xxh64(b""), 0xEF46_DB37_51D8_E999);
        assert_eq!(xxh64(b"a"), 0xD24E_C4F1_A98C_6E5B);
        assert_eq!(xxh64(b"abc"), 0x44BC_2CF5_AD77_0999);
        assert_eq!(
            xxh64(b"Nobody inspects the spammish repetition"),
            0xFBCE_A83C_8A37_8BF1
        );
    }

    #[test]
    fn inserted_values_are_found_and_most_others_are_not() {
        let mut f = Sbbf::for_values(1000, 0.01, 1 << 20);
        for i in 0..1000u64 {
            f.insert(xxh64(&i.to_le_bytes()));
        }
        assert!((0..1000u64).all(|i| f.check(xxh64(&i.to_le_bytes()))));
        let false_positives = (1000..11_000u64)
            .filter(|i| f.check(xxh64(&i.to_le_bytes())))
            .count();
        assert!(false_positives < 300, "{false_positives}");
    }

    #[test]
    fn bad_bitsets_are_refused() {
        let good = Sbbf::with_blocks(2).to_bytes();
        assert!(Sbbf::from_bytes(&good, 1 << 20).is_ok());
        let short = &good[..good.len() - 1];
        assert!(
            Sbbf::from_bytes(short, 1 << 20)
                .unwrap_err()
                .to_string()
                .contains("past")
        );
        assert!(
            Sbbf::from_bytes(&good, 32)
                .unwrap_err()
                .to_string()
                .contains("limit")
        );
        assert!(Sbbf::from_bytes(&[0xff; 4], 1 << 20).is_err());
    }

    #[test]
    fn a_shared_bitset_answers_as_a_copied_one() {
        let mut built = Sbbf::for_values(500, 0.05, 1 << 20);
        for i in 0..500u64 {
            built.insert(xxh64(&i.to_le_bytes()));
        }
        // Behind other bytes, as in a file, and with bytes after it.
        let mut file = vec![7u8; 13];
        file.extend(built.to_bytes());
        file.extend([9u8; 5]);
        let file = Bytes::from(file);
        let (copied, used) = Sbbf::from_bytes(&file[13..], 1 << 20).unwrap();
        let (mut shared, used_shared) = Sbbf::from_shared(file.slice(13..), 1 << 20).unwrap();
        assert_eq!(used, used_shared);
        assert_eq!(shared, built);
        assert_eq!(shared, copied);
        for i in 0..5000u64 {
            let h = xxh64(&i.to_le_bytes());
            assert_eq!(shared.check(h), copied.check(h), "{i}");
        }
        // Inserting into a shared filter copies it and leaves the file's bytes.
        let h = xxh64(b"not there before");
        shared.insert(h);
        assert!(shared.check(h));
        assert_ne!(shared, copied);
        assert_eq!(
            Sbbf::from_shared(file.slice(13..), 1 << 20).unwrap().0,
            copied
        );
        let short = file.slice(13..file.len() - 6);
        assert!(
            Sbbf::from_shared(short, 1 << 20)
                .unwrap_err()
                .to_string()
                .contains("past")
        );
    }
}
