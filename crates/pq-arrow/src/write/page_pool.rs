//! Page buffers kept from one row group for the next.
//!
//! A row group's pages are held until its chunks are written, then all
//! freed at once; the allocator hands that much memory back to the system
//! (the heap's top is trimmed), and the next row group's pages are fresh
//! memory again: a page fault and a zeroed page for every 4 KiB written.
//! Kept here instead, written pages' buffers serve the next row group's
//! pages. The pool never holds more than one row group's pages, the
//! memory that row group took anyway.

use std::sync::{Arc, Mutex};

/// Buffers smaller than this are not kept: small allocations are served
/// from the allocator's free lists, with no fresh memory.
const KEEP_FROM: usize = 64 * 1024;

/// A pool of page buffers shared by a writer's column writers (which may
/// run on encoding threads).
#[derive(Debug, Clone, Default)]
pub(crate) struct PagePool(Arc<Mutex<Vec<Vec<u8>>>>);

impl PagePool {
    /// An empty buffer with room for `room` bytes: a kept one when there
    /// is one.
    pub(crate) fn take(&self, room: usize) -> Vec<u8> {
        let kept = self.0.lock().ok().and_then(|mut v| v.pop());
        match kept {
            Some(mut buf) => {
                buf.clear();
                buf.reserve(room);
                buf
            }
            None => Vec::with_capacity(room),
        }
    }

    /// Keeps `buf`, written out, for a later page.
    pub(crate) fn give(&self, buf: Vec<u8>) {
        if buf.capacity() < KEEP_FROM {
            return;
        }
        if let Ok(mut v) = self.0.lock() {
            v.push(buf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_given_back_are_taken_again_empty() {
        let pool = PagePool::default();
        let mut big = Vec::with_capacity(KEEP_FROM);
        big.extend_from_slice(b"page");
        let at = big.as_ptr();
        pool.give(big);
        pool.give(vec![1u8; 10]); // too small to keep
        let again = pool.take(100);
        assert!(again.is_empty());
        assert_eq!(again.as_ptr(), at);
        // Nothing else was kept: a fresh buffer with the room asked for.
        let fresh = pool.take(KEEP_FROM * 2);
        assert!(fresh.capacity() >= KEEP_FROM * 2);
        assert_ne!(fresh.as_ptr(), at);
    }
}
