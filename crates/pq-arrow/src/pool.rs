//! Output buffers that come back: the memory of a batch's arrays returns to
//! its reader's pool when the last array using it is dropped, and a later
//! batch decodes into it.
//!
//! Why: decoding a batch otherwise allocates a megabyte or more and frees
//! it once the caller drops the batch. With several decoding threads the
//! two happen on different threads, and glibc's allocator gives each thread
//! its own arena: memory freed from another thread goes back to the
//! decoding thread's arena, which trims it to the system, and the next
//! batch faults every page in again (reading on two threads was slower than
//! on one). With the pool, steady-state decoding allocates no large buffer,
//! whichever thread decodes and whichever drops. Memory stays bounded: the
//! pool keeps at most its limit in bytes and drops the oldest beyond it or
//! left untaken for long, and a buffer still in use when the reader is gone
//! is simply freed.

use std::any::{Any, TypeId};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, Weak};

use arrow_buffer::Buffer;

/// Bytes a reader's pool keeps at most: a few rounds of batches of a wide
/// table (a 13-column lineitem batch of 8192 rows is about 1.5 MB).
pub(crate) const DEFAULT_POOL_BYTES: usize = 64 << 20;

/// Vectors a pool keeps at most, whatever their bytes: a lookup scans all
/// those of its element type. A few rounds of a wide table's batches are a
/// few hundred buffers; a selective read producing thousands of small
/// arrays made the scan 12 % of its time before this bound.
const MAX_KEPT: usize = 256;

/// Vectors smaller than this are not kept: the allocator serves them from
/// its own free lists without faulting pages in, which is what the pool
/// saves on large ones.
const MIN_KEPT_BYTES: usize = 4096;

/// A vector kept while this many others of its element type were put
/// back and not taken is let go: the pool holds what the read uses, not
/// every size it once did. Without it, kept buffers that no request fits
/// (too large since [`MAX_FIT_RATIO`], or grown past what later requests
/// want) piled up to the pool's limit over a long read (78 MB of peak
/// memory on a 13 M-row file, against 31 MB).
///
/// Counted by type, not over the whole pool: a read buffer is taken once
/// a row group per column when the writer puts a column chunk in one page
/// (DuckDB), and the batches between put back hundreds of value, offset
/// and bitmap vectors, more than 512 with a few nullable columns. Counted
/// over the pool (512 then), every row group's read buffers were let go
/// and read into fresh pages: one thread on `lineitem_nulls.duckdb.zstd_v2`
/// faulted 8 600 pages in, 4 300 now, and took 3-7 % longer. Of byte
/// vectors, a row group of 122 880 rows puts back about 16 per string
/// column (its read buffer and fifteen batches of values), so 256 keeps a
/// read buffer for the next row group with up to about 15 string columns;
/// 512 held 1-2 MB more on the same files for no more speed.
const MAX_AGE: u64 = 256;

/// A kept vector more than this many times the size asked for is not
/// handed out. A page of 40 KiB that took a kept 600 KiB buffer left the
/// next 600 KiB page to fault a fresh one in (a read of a 16-column table
/// touched 12.7 MB of read buffers, at most 6.3 MB of them in use at
/// once); allocating the small one instead costs only its own pages.
const MAX_FIT_RATIO: usize = 4;

/// A vector kept for reuse.
struct Kept {
    /// Its capacity in bytes.
    bytes: usize,
    /// [`Free::puts`] when it was put: which of all is the oldest.
    put_at: u64,
    /// [`Class::puts`] when it was put: its age (see [`MAX_AGE`]).
    class_put_at: u64,
    /// The thread that filled it ([`filler`]).
    filler: usize,
    vec: Box<dyn Any + Send>,
}

/// A number for the calling thread, to tell which thread filled a vector.
///
/// A thread is handed back the vectors it filled itself first: their
/// memory is in its core's caches, where the other core's writes would
/// first have to fetch every line from the cache of the core that last
/// wrote it. That fetch is dearest on a virtual machine whose host runs the
/// two cores apart (see `cargo xtask core-round-trip`); measured there the
/// preference is worth a few per cent at most (two threads on
/// `lineitem.duckdb.zstd_v2` 1.41× against 1.52× one thread in 28 rounds
/// with the cores apart, no change in 18 such rounds of another run, and
/// none with the cores near), and it costs nothing. A counter of our own
/// rather than `std::thread::current().id()`, which clones the thread's
/// handle (two atomic operations) on every take and put.
fn filler() -> usize {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(1);
    thread_local! {
        static ID: usize = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    ID.with(|id| *id)
}

/// The kept vectors of one element type, oldest first.
///
/// Apart by type so that a lookup scans only the vectors it could take:
/// with two decoding threads the scan of every kept vector, whose memory
/// the other thread's last put or take had just written, took 3 % of a
/// scan's time (against 0.5 % on one thread).
struct Class {
    type_id: TypeId,
    kept: VecDeque<Kept>,
    /// Vectors of this type put so far.
    puts: u64,
}

#[derive(Default)]
struct Free {
    /// A handful of element types: bytes, offsets, values, bitmaps.
    classes: Vec<Class>,
    /// Vectors kept, over every class.
    len: usize,
    bytes: usize,
    /// Vectors put so far.
    puts: u64,
}

impl Free {
    fn class(&mut self, type_id: TypeId) -> Option<&mut Class> {
        self.classes.iter_mut().find(|c| c.type_id == type_id)
    }

    /// The class of `type_id`, made if it is the first of its type.
    fn class_or_new(&mut self, type_id: TypeId) -> &mut Class {
        let i = match self.classes.iter().position(|c| c.type_id == type_id) {
            Some(i) => i,
            None => {
                self.classes.push(Class {
                    type_id,
                    kept: VecDeque::new(),
                    puts: 0,
                });
                self.classes.len() - 1
            }
        };
        &mut self.classes[i]
    }

    /// Counts a put of `type_id` and moves the vectors of its class that
    /// have aged past [`MAX_AGE`] to `dropped`; the put's number within
    /// its class.
    fn count_put(&mut self, type_id: TypeId, dropped: &mut Vec<Kept>) -> u64 {
        let class = self.class_or_new(type_id);
        class.puts += 1;
        let stale = class.puts.saturating_sub(MAX_AGE);
        let (mut gone, mut gone_bytes) = (0, 0);
        while class.kept.front().is_some_and(|k| k.class_put_at < stale)
            && let Some(old) = class.kept.pop_front()
        {
            gone += 1;
            gone_bytes += old.bytes;
            dropped.push(old);
        }
        let at = class.puts;
        self.len -= gone;
        self.bytes -= gone_bytes;
        at
    }

    /// The oldest kept vector of all, taken out.
    fn pop_oldest(&mut self) -> Option<Kept> {
        let class = self
            .classes
            .iter_mut()
            .filter(|c| !c.kept.is_empty())
            .min_by_key(|c| c.kept.front().map_or(u64::MAX, |k| k.put_at))?;
        let old = class.kept.pop_front()?;
        self.len -= 1;
        self.bytes -= old.bytes;
        Some(old)
    }
}

struct Shared {
    free: Mutex<Free>,
    limit: usize,
}

/// A pool of vectors for output buffers; cheap to clone (one pool shared).
/// `None`: no pool (every [`Pool::take`] allocates, [`Pool::buffer`] is a
/// plain Arrow buffer).
#[derive(Clone)]
pub(crate) struct Pool(Option<Arc<Shared>>);

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pool(limit {})", self.0.as_ref().map_or(0, |s| s.limit))
    }
}

impl Pool {
    /// A pool keeping at most `limit` bytes; 0 is [`Pool::none`].
    pub(crate) fn new(limit: usize) -> Self {
        if limit == 0 {
            return Pool::none();
        }
        Pool(Some(Arc::new(Shared {
            free: Mutex::new(Free::default()),
            limit,
        })))
    }

    /// No pool: vectors are allocated and freed as usual.
    pub(crate) fn none() -> Self {
        Pool(None)
    }

    /// The bytes of the vectors kept now.
    #[cfg(test)]
    pub(crate) fn kept_bytes(&self) -> usize {
        self.0
            .as_ref()
            .and_then(|s| s.free.lock().ok().map(|f| f.bytes))
            .unwrap_or(0)
    }

    /// An empty vector with room for at least `cap` values: the smallest
    /// kept one that is large enough (one this thread filled first, see
    /// [`filler`]), else the largest kept one grown, else a new one.
    pub(crate) fn take<T: Copy + Send + 'static>(&self, cap: usize) -> Vec<T> {
        let mut v = self.take_filled::<T>(cap).unwrap_or_default();
        v.clear();
        v.reserve(cap);
        v
    }

    /// A kept vector for `cap` values, not grown: the smallest with room
    /// for them of those this thread filled, else of all (see [`filler`]),
    /// unless it is more than [`MAX_FIT_RATIO`] times too large
    /// (a `cap` of 0, a size not known, takes the smallest whatever its
    /// size); else the largest too small (for the caller to grow, fallibly,
    /// when `cap` comes from a file); else none. Growing a small one rather
    /// than allocating anew keeps the pool from holding buffers too small
    /// for the reads to come beside new ones: over a long read whose pages
    /// slowly change size, they would pile up to the pool's limit.
    ///
    /// The vector still holds the values it held when it was put back: a
    /// caller about to overwrite `n` values truncates it, or resizes it
    /// (setting only those past its length), instead of setting all `n`
    /// first. Reads from a file zeroed each buffer before the read
    /// overwrote it, 6 % of a read of an uncompressed file.
    pub(crate) fn take_filled<T: Copy + Send + 'static>(&self, cap: usize) -> Option<Vec<T>> {
        let shared = self.0.as_ref()?;
        let want = cap.saturating_mul(size_of::<T>());
        let id = TypeId::of::<Vec<T>>();
        let kept = {
            let mut guard = shared.free.lock().ok()?;
            let free = &mut *guard;
            let kept = &mut free.class(id)?.kept;
            // (index, bytes) of the smallest large enough and of the
            // largest too small.
            let mut fit: Option<(usize, usize)> = None;
            let mut own_fit: Option<(usize, usize)> = None;
            let mut under: Option<(usize, usize)> = None;
            let me = filler();
            // Newest first: of equal sizes, the one put back last is the
            // likeliest still in the cache.
            for (i, k) in kept.iter().enumerate().rev() {
                if k.bytes >= want {
                    if fit.is_none_or(|(_, b)| k.bytes < b) {
                        fit = Some((i, k.bytes));
                    }
                    if k.filler == me && own_fit.is_none_or(|(_, b)| k.bytes < b) {
                        own_fit = Some((i, k.bytes));
                    }
                } else if under.is_none_or(|(_, b)| k.bytes > b) {
                    under = Some((i, k.bytes));
                }
            }
            let fits = |&(_, bytes): &(usize, usize)| {
                want == 0 || bytes / MAX_FIT_RATIO <= want.max(MIN_KEPT_BYTES)
            };
            let (i, _) = own_fit.filter(fits).or(fit.filter(fits)).or(under)?;
            let k = kept.remove(i)?;
            free.len -= 1;
            free.bytes -= k.bytes;
            k
        };
        kept.vec.downcast::<Vec<T>>().ok().map(|b| *b)
    }

    /// Keeps `v` for reuse (values and all), dropping the oldest kept vectors if
    /// the pool would exceed its limit.
    pub(crate) fn put<T: Copy + Send + 'static>(&self, v: Vec<T>) {
        if let Some(shared) = &self.0 {
            put(shared, v, filler());
        }
    }

    /// An Arrow buffer of `v`'s values whose memory comes back to this pool
    /// when the last array using it is dropped (if the pool still exists).
    pub(crate) fn buffer<T: arrow_buffer::ArrowNativeType + Send + 'static>(
        &self,
        v: Vec<T>,
    ) -> Buffer {
        let Some(shared) = self.0.as_ref().filter(|_| v.capacity() > 0) else {
            return Buffer::from_vec(v);
        };
        let len = std::mem::size_of_val(v.as_slice());
        // A vector's pointer is never null (dangling but aligned when empty).
        let ptr = std::ptr::NonNull::from(v.as_slice()).cast::<u8>();
        let owner = Arc::new(Returning {
            vec: Mutex::new(v),
            filler: filler(),
            pool: Arc::downgrade(shared),
        });
        // SAFETY: `ptr` is the start of `v`'s `len` initialised bytes, and
        // `v` lives in `owner`, untouched until `owner` is dropped: moving a
        // vector does not move its heap buffer, and nothing else can reach
        // it (the mutex is only taken by `Drop`). Arrow keeps `owner` alive
        // as long as any array uses the buffer.
        unsafe { Buffer::from_custom_allocation(ptr, len, owner) }
    }
}

impl Pool {
    /// `Bytes` of `v` whose memory comes back to this pool when the last
    /// clone is dropped (if the pool still exists): for bytes read from a
    /// file, so that each read does not fault fresh pages in.
    pub(crate) fn bytes(&self, v: Vec<u8>) -> bytes::Bytes {
        let Some(shared) = self.0.as_ref().filter(|_| v.capacity() > 0) else {
            return bytes::Bytes::from(v);
        };
        bytes::Bytes::from_owner(ReturningBytes {
            vec: v,
            filler: filler(),
            pool: Arc::downgrade(shared),
        })
    }
}

/// The owner of pooled `Bytes`: gives its vector back on drop.
struct ReturningBytes {
    vec: Vec<u8>,
    filler: usize,
    pool: Weak<Shared>,
}

impl AsRef<[u8]> for ReturningBytes {
    fn as_ref(&self) -> &[u8] {
        &self.vec
    }
}

impl Drop for ReturningBytes {
    fn drop(&mut self) {
        if let Some(shared) = self.pool.upgrade() {
            put(&shared, std::mem::take(&mut self.vec), self.filler);
        }
    }
}

fn put<T: Copy + Send + 'static>(shared: &Shared, v: Vec<T>, filler: usize) {
    let bytes = v.capacity().saturating_mul(size_of::<T>());
    if bytes < MIN_KEPT_BYTES || bytes > shared.limit {
        return;
    }
    let Ok(mut free) = shared.free.lock() else {
        return;
    };
    free.puts += 1;
    // Let go after the lock is released: freeing a large vector returns
    // its pages to the system, which with several threads stops every
    // core to flush their address translations, and the other threads
    // would wait for the lock meanwhile.
    let mut dropped = Vec::new();
    let type_id = TypeId::of::<Vec<T>>();
    let class_put_at = free.count_put(type_id, &mut dropped);
    while free.bytes + bytes > shared.limit || free.len >= MAX_KEPT {
        let Some(old) = free.pop_oldest() else {
            break;
        };
        dropped.push(old);
    }
    free.bytes += bytes;
    free.len += 1;
    let kept = Kept {
        bytes,
        put_at: free.puts,
        class_put_at,
        filler,
        vec: Box::new(v),
    };
    free.class_or_new(type_id).kept.push_back(kept);
    drop(free);
    drop(dropped);
}

/// The owner of a pooled Arrow buffer's memory: gives it back on drop.
struct Returning<T: Copy + Send + 'static> {
    /// A mutex only to make the owner `Sync` and unwind-safe for Arrow.
    vec: Mutex<Vec<T>>,
    filler: usize,
    pool: Weak<Shared>,
}

impl<T: Copy + Send + 'static> Drop for Returning<T> {
    fn drop(&mut self) {
        if let Some(shared) = self.pool.upgrade() {
            let v = match self.vec.get_mut() {
                Ok(v) => std::mem::take(v),
                Err(poisoned) => std::mem::take(poisoned.into_inner()),
            };
            put(&shared, v, self.filler);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pooled_bytes_come_back_when_the_last_clone_is_dropped() {
        let pool = Pool::new(1 << 20);
        let mut v: Vec<u8> = pool.take(5000);
        v.extend_from_slice(&[7; 5000]);
        let p = v.as_ptr();
        let b = pool.bytes(v);
        let part = b.slice(10..20);
        drop(b);
        assert_eq!(&part[..], &[7; 10]);
        // Still in use: not handed out.
        let other = pool.take::<u8>(5000);
        assert_ne!(other.as_ptr(), p);
        drop(part);
        let back = pool.take::<u8>(5000);
        assert_eq!(back.as_ptr(), p);
    }

    /// Of two vectors that fit, a thread takes the one it filled, though
    /// the other was put back later and by this thread; the other thread's
    /// goes once its own are gone.
    #[test]
    fn a_thread_takes_back_what_it_filled_first() {
        let pool = Pool::new(1 << 20);
        let mine: Vec<u8> = vec![1; 8000];
        let p_mine = mine.as_ptr() as usize;
        let held = pool.buffer(mine);
        // Filled on another thread, let go here.
        let theirs = {
            let pool = pool.clone();
            std::thread::spawn(move || pool.buffer(vec![2u8; 8000]))
                .join()
                .unwrap()
        };
        let p_theirs = theirs.as_ptr() as usize;
        drop(held);
        drop(theirs);
        let first: Vec<u8> = pool.take(8000);
        assert_eq!(first.as_ptr() as usize, p_mine);
        let second: Vec<u8> = pool.take(8000);
        assert_eq!(second.as_ptr() as usize, p_theirs);
        // The other thread takes its own back though this one's is there.
        pool.put(first);
        let back = {
            let pool = pool.clone();
            std::thread::spawn(move || {
                let v: Vec<u8> = vec![3; 8000];
                let p = v.as_ptr() as usize;
                drop(pool.buffer(v));
                let taken: Vec<u8> = pool.take(8000);
                (p, taken.as_ptr() as usize)
            })
            .join()
            .unwrap()
        };
        assert_eq!(back.0, back.1);
    }

    #[test]
    fn a_vector_put_back_is_taken_again() {
        let pool = Pool::new(1 << 20);
        let v: Vec<u64> = Vec::with_capacity(1000);
        let p = v.as_ptr();
        pool.put(v);
        let w: Vec<u64> = pool.take(50);
        assert_eq!(w.as_ptr(), p);
        assert!(w.is_empty() && w.capacity() >= 1000);
        // Another type is not handed out for it.
        pool.put(w);
        let x: Vec<u32> = pool.take(50);
        assert_ne!(x.as_ptr().cast::<u64>(), p);
    }

    #[test]
    fn a_filled_vector_keeps_its_values_and_an_empty_one_does_not() {
        let pool = Pool::new(1 << 20);
        pool.put(vec![7u8; 10_000]);
        let v: Vec<u8> = pool.take_filled(8000).unwrap();
        assert_eq!(v, vec![7u8; 10_000]);
        pool.put(v);
        let w: Vec<u8> = pool.take(8000);
        assert!(w.is_empty() && w.capacity() >= 10_000);
    }

    #[test]
    fn take_prefers_the_smallest_large_enough() {
        let pool = Pool::new(1 << 20);
        for cap in [5000usize, 100_000, 10_000, 60_000] {
            pool.put(Vec::<u8>::with_capacity(cap));
        }
        assert_eq!(pool.take::<u8>(6000).capacity(), 10_000);
        // The 60 000 and 100 000 are too large for 6 000: the 5 000, grown.
        let grown = pool.take::<u8>(6000);
        assert!((6000..60_000).contains(&grown.capacity()));
        assert_eq!(pool.take::<u8>(30_000).capacity(), 60_000);
        // Only one too large left: a fresh vector, the kept one stays.
        let fresh = pool.take::<u8>(6000);
        assert!((6000..100_000).contains(&fresh.capacity()));
        assert_eq!(kept(&pool), 1);
        // A size not known (0): the smallest, whatever its size.
        assert_eq!(pool.take::<u8>(0).capacity(), 100_000);
        assert_eq!(kept(&pool), 0);
    }

    fn kept(pool: &Pool) -> usize {
        pool.0
            .as_ref()
            .and_then(|s| s.free.lock().ok().map(|f| f.len))
            .unwrap_or(0)
    }

    #[test]
    fn of_equal_sizes_the_last_put_back_is_taken() {
        let pool = Pool::new(1 << 20);
        let older: Vec<u64> = Vec::with_capacity(1000);
        let newer: Vec<u64> = Vec::with_capacity(1000);
        let newer_at = newer.as_ptr();
        pool.put(older);
        pool.put(newer);
        let got: Vec<u64> = pool.take(1000);
        assert_eq!(got.as_ptr(), newer_at);
    }

    #[test]
    fn a_vector_not_taken_for_long_is_let_go() {
        let pool = Pool::new(1 << 30);
        pool.put(Vec::<u8>::with_capacity(1 << 20));
        // Others of its type come and go: the first is never wanted (more
        // than four times too large for them).
        for _ in 0..MAX_AGE {
            pool.put(Vec::<u8>::with_capacity(4096));
            drop(pool.take::<u8>(4096));
        }
        assert_eq!(kept(&pool), 1);
        pool.put(Vec::<u8>::with_capacity(4096));
        assert_eq!(kept(&pool), 1, "the old vector is dropped");
        assert!(pool.take::<u8>(1 << 19).capacity() < 1 << 20);
    }

    /// A read buffer wanted once a row group outlives the many vectors of
    /// other types the row group's batches put back.
    #[test]
    fn vectors_of_other_types_do_not_age_a_kept_one() {
        let pool = Pool::new(1 << 30);
        let read = Vec::<u8>::with_capacity(1 << 20);
        let p = read.as_ptr();
        pool.put(read);
        for _ in 0..4 * MAX_AGE {
            pool.put(Vec::<u16>::with_capacity(4096));
            drop(pool.take::<u16>(4096));
        }
        let back = pool.take::<u8>(1 << 19);
        assert_eq!(back.as_ptr(), p);
    }

    #[test]
    fn the_limit_drops_the_oldest() {
        let pool = Pool::new(25_000);
        for cap in [10_000usize, 10_000, 10_000] {
            pool.put(Vec::<u8>::with_capacity(cap));
        }
        let free = pool.0.as_ref().unwrap().free.lock().unwrap();
        assert!(free.bytes <= 25_000 && free.len == 2, "{}", free.bytes);
    }

    #[test]
    fn the_oldest_is_dropped_whatever_its_type() {
        let pool = Pool::new(25_000);
        let first = Vec::<u64>::with_capacity(1250);
        let second = Vec::<u8>::with_capacity(9_000);
        let p2 = second.as_ptr();
        pool.put(first);
        pool.put(second);
        // Over the limit: the oldest of all goes (the u64 vector), not the
        // oldest of the newcomer's type.
        pool.put(Vec::<u8>::with_capacity(10_000));
        assert_eq!(kept(&pool), 2);
        assert!(pool.take_filled::<u64>(1250).is_none());
        let bytes = pool.take::<u8>(9_000);
        assert_eq!(bytes.as_ptr(), p2);
    }

    #[test]
    fn small_vectors_are_not_kept_and_the_count_is_bounded() {
        let pool = Pool::new(1 << 30);
        pool.put(Vec::<u8>::with_capacity(MIN_KEPT_BYTES - 1));
        assert_eq!(pool.0.as_ref().unwrap().free.lock().unwrap().len, 0);
        let first = Vec::<u8>::with_capacity(MIN_KEPT_BYTES);
        let p = first.as_ptr();
        pool.put(first);
        for _ in 0..MAX_KEPT {
            pool.put(Vec::<u8>::with_capacity(2 * MIN_KEPT_BYTES));
        }
        let free = pool.0.as_ref().unwrap().free.lock().unwrap();
        assert_eq!(free.len, MAX_KEPT);
        assert_eq!(free.bytes, MAX_KEPT * 2 * MIN_KEPT_BYTES);
        drop(free);
        // The oldest (the only one of its size) was dropped to make room.
        let smallest = pool.take::<u8>(1);
        assert_ne!(smallest.as_ptr(), p);
    }

    #[test]
    fn arrow_buffers_come_back_when_dropped() {
        let pool = Pool::new(1 << 20);
        let v: Vec<i64> = (0..1000).collect();
        let p = v.as_ptr();
        let b = pool.buffer(v);
        let a = arrow_array::Int64Array::new(arrow_buffer::ScalarBuffer::new(b, 0, 1000), None);
        let sliced = arrow_array::Array::slice(&a, 10, 5);
        assert_eq!(a.value(999), 999);
        drop(a);
        // Still used by the slice: not back yet.
        let other: Vec<i64> = pool.take(10);
        assert_ne!(other.as_ptr(), p);
        assert_eq!(sliced.len(), 5);
        drop(sliced);
        let w: Vec<i64> = pool.take(10);
        assert_eq!(w.as_ptr(), p);
        assert!(w.is_empty());
    }

    #[test]
    fn buffers_outliving_the_pool_are_freed() {
        let pool = Pool::new(1 << 20);
        let b = pool.buffer(vec![1u32, 2, 3]);
        drop(pool);
        assert_eq!(b.typed_data::<u32>(), &[1, 2, 3]);
        drop(b);
    }

    #[test]
    fn a_pool_without_room_keeps_nothing() {
        let pool = Pool::new(0);
        pool.put(Vec::<u8>::with_capacity(10));
        assert_eq!(pool.take::<u8>(0).capacity(), 0);
        let b = pool.buffer(vec![1u8, 2]);
        assert_eq!(b.as_slice(), &[1, 2]);
    }
}
