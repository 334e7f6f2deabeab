//! The open-addressing table both dictionary encoders probe: slots of a
//! key (a fixed-width value's bits, or a byte array's hash tag) and an
//! entry id, probed linearly from the slot the hash's top bits pick.

use alloc::vec;
use alloc::vec::Vec;

/// The id of a free slot.
const EMPTY: u32 = u32::MAX;

/// Slots of a new table. A writer holds one dictionary per column, so a
/// file of many short columns holds many; starting small keeps each
/// proportional to what it holds (the table doubles as entries arrive, a
/// few cheap rehashes on the way to a large one).
const INITIAL_SLOTS: usize = 16;

/// A power-of-two number of `(key, id)` slots.
#[derive(Debug, Clone)]
pub(super) struct Table<K> {
    slots: Vec<(K, u32)>,
    /// `64 - log2(slots)`: a hash shifted right by this picks the slot.
    shift: u32,
}

impl<K: Copy + Default> Table<K> {
    pub(super) fn new() -> Self {
        Self {
            slots: vec![(K::default(), EMPTY); INITIAL_SLOTS],
            shift: 64 - INITIAL_SLOTS.trailing_zeros(),
        }
    }

    /// How many slots there are.
    pub(super) fn slots(&self) -> usize {
        self.slots.len()
    }

    /// The id of the first slot from `hash`'s that `matches`, or the free
    /// slot where the probe ended. The table is never full (its load stays
    /// below one), so the probe ends.
    #[inline(always)]
    pub(super) fn find(
        &self,
        hash: u64,
        mut matches: impl FnMut(K, u32) -> bool,
    ) -> Result<u32, usize> {
        let mask = self.slots.len() - 1;
        let mut i = (hash >> self.shift) as usize;
        loop {
            let (k, id) = self.slots[i];
            if id == EMPTY {
                return Err(i);
            }
            if matches(k, id) {
                return Ok(id);
            }
            i = (i + 1) & mask;
        }
    }

    /// Fills the free slot [`find`](Self::find) returned.
    #[inline(always)]
    pub(super) fn fill(&mut self, slot: usize, key: K, id: u32) {
        self.slots[slot] = (key, id);
    }

    /// Doubles the slots and puts back every entry, given as its hash and
    /// key in id order.
    pub(super) fn grow(&mut self, entries: impl Iterator<Item = (u64, K)>) {
        let n = self.slots.len() * 2;
        self.slots.clear();
        self.slots.resize(n, (K::default(), EMPTY));
        self.shift = 64 - n.trailing_zeros();
        for (id, (hash, key)) in entries.enumerate() {
            if let Err(slot) = self.find(hash, |_, _| false) {
                self.fill(slot, key, id as u32);
            }
        }
    }
}
