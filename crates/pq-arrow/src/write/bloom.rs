//! Building a column chunk's Bloom filter as its values are written.

use pq_page::bloom::{Sbbf, xxh64};

use crate::physical::PhysicalType;

/// The largest filter written, as arrow-rs caps it: a filter's size
/// follows its expected distinct values, which the caller may overstate.
const MAX_BYTES: usize = 128 << 20;

/// A chunk's filter being filled: the hash of each value's PLAIN form.
#[derive(Debug)]
pub(crate) struct BloomBuilder {
    filter: Sbbf,
    /// One value's PLAIN bytes.
    plain: Vec<u8>,
}

impl BloomBuilder {
    /// A filter for `ndv` distinct values at false-positive probability
    /// `fpp`.
    pub(crate) fn new(ndv: u64, fpp: f64) -> Self {
        BloomBuilder {
            filter: Sbbf::for_values(ndv, fpp, MAX_BYTES),
            plain: Vec::new(),
        }
    }

    /// Adds fixed-width values of physical type `T`.
    pub(crate) fn insert_values<'v, T: PhysicalType>(
        &mut self,
        values: impl Iterator<Item = &'v T::Value>,
    ) {
        for v in values {
            self.plain.clear();
            T::write_plain(v, &mut self.plain);
            self.filter.insert(xxh64(&self.plain));
        }
    }

    /// Adds byte arrays (their PLAIN form without the length).
    pub(crate) fn insert_bytes<'v>(&mut self, values: impl Iterator<Item = &'v [u8]>) {
        for v in values {
            self.filter.insert(xxh64(v));
        }
    }

    /// The filter as the file holds it.
    pub(crate) fn finish(self) -> Vec<u8> {
        self.filter.to_bytes()
    }
}
