//! The decoding of one row group as tasks, each one batch of one leaf
//! column, shared by the caller's thread and any decoding threads.
//!
//! A thread with nothing else to do takes the task of the earliest batch
//! not yet decoded (preferring a column it decoded last, for its caches,
//! in this row group or, for its first batches, in the one before (see
//! [`RowGroupTasks::with_last_threads`]), then the column with the largest
//! chunk, so that long tasks start first),
//! so the threads stay balanced however uneven the columns are, and none
//! waits for the other at fixed points: while the caller assembles and uses
//! batch `b`, the decoding threads work on the next ones, at most `ahead`
//! batches beyond the last one handed out (which bounds memory). The
//! caller's thread decodes too whenever the batch it wants is not complete.
//!
//! A column's batches are decoded in order (its reader holds the position
//! in its pages), by whichever thread takes them; which thread decodes a
//! batch does not change what it decodes.
//!
//! With a predicate, the columns it reads are *early* and the others may be
//! *late*: a batch's early columns are decoded first and handed to the
//! caller ([`Next::Predicate`]), which tests its rows and says which it
//! keeps ([`RowGroupTasks::keep`]); only then are the late columns of the
//! batch decoded, and only the kept rows of them ([`Next::Batch`]).
//!
//! No thread performs IO here unless the sync reader hands the tasks its
//! positioned reads ([`RowGroupTasks::with_reads`]): then a task whose
//! column needs its next page reads exactly that range on the thread that
//! runs it, and goes on. Otherwise a column whose next page has not been
//! pushed stops its batch at the page ([`Step::Pending`]) and is not
//! picked again until the caller has pushed the bytes it needs
//! ([`RowGroupTasks::deliver`]); the caller's [`RowGroupTasks::next_batch`]
//! returns those needs instead of blocking when it has nothing to decode.
//! With decoding threads, the caller reads before it decodes: whenever a
//! column waits, or a column's next page is not held or asked for yet (one
//! page ahead per column, the budget that bounds memory), it returns the
//! needs of all columns, so that the threads find their pages when they
//! reach them instead of waiting while the caller decodes.

use std::cmp::Reverse;
use std::collections::VecDeque;
use std::ops::Range;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use bytes::Bytes;

use crate::assemble::Leaves;
use crate::column::{KeptRows, LeafData, LeafReader, Step};
use crate::error::{Location, Result, data_err};

/// The batches of a row group: `skip` rows in batches of `step` (rows
/// before the reader's offset, decoded and dropped), then `read` rows in
/// batches of `size`. Computed, not listed: a row count comes from the
/// file, and a list of batches would be memory it does not justify.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Batches {
    pub(crate) skip: usize,
    pub(crate) step: usize,
    pub(crate) read: usize,
    pub(crate) size: usize,
}

impl Batches {
    /// The leading batches of skipped rows.
    fn skipped(&self) -> usize {
        self.skip.div_ceil(self.step.max(1))
    }

    fn len(&self) -> usize {
        self.skipped() + self.read.div_ceil(self.size.max(1))
    }

    /// The rows of batch `k`.
    fn rows(&self, k: usize) -> Option<usize> {
        let (step, size) = (self.step.max(1), self.size.max(1));
        match k.checked_sub(self.skipped()) {
            None => Some(step.min(self.skip - k * step)),
            Some(j) if j < self.read.div_ceil(size) => Some(size.min(self.read - j * size)),
            Some(_) => None,
        }
    }
}

/// One leaf column of the row group.
#[derive(Debug)]
struct Slot {
    column: usize,
    /// `None` while a thread decodes a batch of it. Boxed: a reader is
    /// about 2 KB, which each task would otherwise copy out of the shared
    /// slots and back under the lock, into memory the other thread's next
    /// pick reads (with two threads, every task fetched those lines from
    /// the other core's cache).
    reader: Option<Box<LeafReader>>,
    /// The next batch to decode.
    next: usize,
    /// The thread that decoded its last batch.
    last_thread: usize,
    /// A batch of it failed: no more tasks (the error ends the reading
    /// when the caller reaches that batch).
    broken: bool,
    /// The bytes (absolute file range) its batch waits for, if any.
    need: Option<Range<u64>>,
    /// Its next page's bytes, asked for ahead and not delivered yet.
    ahead: Option<Range<u64>>,
    /// Read late: a batch of it waits for the rows the caller keeps.
    late: bool,
    /// The bytes of the file its reader held when last counted (after
    /// bytes were pushed to it, and after each of its tasks).
    held: usize,
    /// Its column chunk's uncompressed size, the guess of its work that
    /// orders the columns of one batch (see
    /// [`RowGroupTasks::largest_first`]); 0 for all keeps file order.
    size: u64,
}

impl Slot {
    /// The key by which [`RowGroupTasks::pick`] orders the columns it may
    /// take: it takes the least.
    fn order(&self, thread: usize) -> (usize, bool, Reverse<u64>) {
        (self.next, self.last_thread != thread, Reverse(self.size))
    }
}

/// Reads bytes of the file from `range.start` covering `range`, on any
/// thread; the location names the column for errors.
#[derive(Clone)]
pub(crate) struct ReadAt(Arc<ReadFn>);

type ReadFn = dyn Fn(&Range<u64>, &Location) -> Result<Bytes> + Send + Sync;

impl ReadAt {
    pub(crate) fn new(
        read: impl Fn(&Range<u64>, &Location) -> Result<Bytes> + Send + Sync + 'static,
    ) -> Self {
        ReadAt(Arc::new(read))
    }

    fn read(&self, range: &Range<u64>, at: &Location) -> Result<Bytes> {
        (self.0)(range, at)
    }
}

impl std::fmt::Debug for ReadAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReadAt")
    }
}

/// Bytes from an absolute offset covering a range, or `None` while they
/// are not all there.
pub(crate) type Fetch<'a> = dyn FnMut(&Range<u64>) -> Option<(u64, Bytes)> + 'a;

/// What the caller's next batch is.
#[derive(Debug)]
pub(crate) enum Next {
    /// The batch: its rows and its leaves by column index. With late
    /// columns, the rows the caller kept, and the late leaves only.
    Batch(usize, Result<Leaves>),
    /// The early leaves of a batch with late columns, and its rows: the
    /// caller says which rows it keeps ([`RowGroupTasks::keep`]) before
    /// asking for the next batch.
    Predicate(usize, Result<Leaves>),
    /// Columns wait for these bytes of the file (absolute ranges).
    Needs(Vec<Range<u64>>),
    /// Every batch has been handed out.
    Done,
}

#[derive(Debug)]
struct State {
    slots: Vec<Slot>,
    sizes: Batches,
    /// Batches handed to the caller.
    taken: usize,
    /// Results of batches `taken..`, one entry per slot.
    results: VecDeque<Vec<Option<Result<LeafData>>>>,
    /// Threads waiting for a task or a result.
    waiting: usize,
    /// The caller stopped reading this row group: no more tasks.
    closed: bool,
    /// The early leaves of batch `taken` went to the caller.
    early_taken: bool,
    /// The rows batch `taken` keeps, once the caller has said.
    kept: Option<Arc<KeptRows>>,
}

impl State {
    /// Asks for the next page of each column that waits for nothing and
    /// does not hold it yet (once each: one page ahead per column is the
    /// budget that bounds memory); whether any was asked for now.
    fn ask_ahead(&mut self) -> bool {
        let batches = self.sizes.len();
        let mut asked = false;
        for s in &mut self.slots {
            if s.ahead.is_none()
                && s.need.is_none()
                && !s.broken
                && s.next < batches
                && let Some(reader) = &s.reader
            {
                s.ahead = reader.next_request();
                asked |= s.ahead.is_some();
            }
        }
        asked
    }

    /// Counts again the bytes slot `slot`'s reader holds, back from a task
    /// (a reader lets a page's bytes go once it has read the page).
    fn recount(&mut self, slot: usize) {
        if let Some(s) = self.slots.get_mut(slot)
            && let Some(reader) = &s.reader
        {
            s.held = reader.buffered_bytes();
        }
    }

    /// The bytes columns wait for, and the next pages asked for ahead
    /// (by [`State::ask_ahead`], with decoding threads) and not delivered.
    fn needs(&self) -> Vec<Range<u64>> {
        self.slots
            .iter()
            .flat_map(|s| s.need.iter().chain(s.ahead.iter()).cloned())
            .collect()
    }
}

/// The decoding tasks of one row group.
#[derive(Debug)]
pub(crate) struct RowGroupTasks {
    state: Mutex<State>,
    changed: Condvar,
    ahead: usize,
    /// Whether the columns' next pages are asked for ahead.
    read_ahead: bool,
    /// How tasks read the pages they need themselves, if they do.
    reads: Option<ReadAt>,
}

/// A task taken: decode batch `batch` of slot `slot`.
struct Task {
    slot: usize,
    batch: usize,
    rows: usize,
    /// The batch's rows are skipped (before the offset), not read.
    skip: bool,
    /// The rows of the batch a late column reads.
    kept: Option<Arc<KeptRows>>,
    reader: Box<LeafReader>,
}

impl RowGroupTasks {
    /// Tasks reading batches of `sizes` rows from every reader, at most
    /// `ahead` (at least 1) batches past the last one the caller took.
    pub(crate) fn new(readers: Vec<(usize, LeafReader)>, sizes: Batches, ahead: usize) -> Self {
        let slots = readers
            .into_iter()
            .map(|(column, reader)| Slot {
                column,
                reader: Some(Box::new(reader)),
                next: 0,
                last_thread: 0,
                broken: false,
                need: None,
                ahead: None,
                late: false,
                held: 0,
                size: 0,
            })
            .collect();
        RowGroupTasks {
            state: Mutex::new(State {
                slots,
                sizes,
                taken: 0,
                results: VecDeque::new(),
                waiting: 0,
                closed: false,
                early_taken: false,
                kept: None,
            }),
            changed: Condvar::new(),
            ahead: ahead.max(1),
            read_ahead: false,
            reads: None,
        }
    }

    /// Tasks read the pages their column needs with `reads`, on the thread
    /// that runs them, instead of stopping for the caller to push them:
    /// for sources any thread can read at once (a file read at positions,
    /// `Bytes`), so that reading is shared out with decoding.
    pub(crate) fn with_reads(mut self, reads: Option<ReadAt>) -> Self {
        self.reads = reads;
        self
    }

    /// Asks for the columns' next pages ahead (see the module's comment):
    /// worth a page per column of memory only when threads decode while
    /// the caller reads.
    pub(crate) fn with_read_ahead(mut self, on: bool) -> Self {
        self.read_ahead = on;
        self
    }

    /// Takes the columns of one batch largest first, by their chunks'
    /// uncompressed sizes (see [`RowGroupTasks::pick`]).
    pub(crate) fn largest_first(self) -> Self {
        {
            let mut state = self.lock();
            for s in &mut state.slots {
                s.size = s.reader.as_ref().map_or(0, |r| r.chunk_size());
            }
        }
        self
    }

    /// Starts each column as last decoded by the thread `last` names for
    /// it (`(column, thread)`, from [`RowGroupTasks::last_threads`] of the
    /// row group before): the buffers a column's reader takes over from its
    /// previous chunk (its decompressed page, its decompressor's state,
    /// its levels and indices) are in that thread's caches. Without it
    /// every column starts as the caller's, and at each row group about
    /// half the columns went to the thread that had not written their
    /// buffers, which then fetched each line of them from the other core:
    /// with the host running the two cores apart, 5-7 % of two threads'
    /// time on files of many row groups (ZSTD files written by Polars and
    /// DuckDB; see BENCHMARKS.md).
    pub(crate) fn with_last_threads(self, last: &[(usize, usize)]) -> Self {
        {
            let mut state = self.lock();
            for s in &mut state.slots {
                if let Some(&(_, thread)) = last.iter().find(|(c, _)| *c == s.column) {
                    s.last_thread = thread;
                }
            }
        }
        self
    }

    /// The thread that decoded each column's last batch, as `(column,
    /// thread)`: for the next row group's [`RowGroupTasks::with_last_threads`].
    pub(crate) fn last_threads(&self) -> Vec<(usize, usize)> {
        self.lock()
            .slots
            .iter()
            .map(|s| (s.column, s.last_thread))
            .collect()
    }

    /// Reads the columns `late` says are late only for the rows the
    /// caller keeps (see the module's comment). Only columns that are not
    /// repeated can be.
    pub(crate) fn with_late(self, late: impl Fn(usize) -> bool) -> Self {
        {
            let mut state = self.lock();
            for s in &mut state.slots {
                s.late = late(s.column);
            }
        }
        self
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock is caught (see `run`) and the
        // state stays consistent: go on with it.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn wait<'a>(&self, mut state: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        state.waiting += 1;
        let mut state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
        state.waiting -= 1;
        state
    }

    /// Takes the next task for `thread`: the earliest batch not yet
    /// decoded, a column this thread decoded last first, then the largest
    /// column. Largest first, so that the longest tasks start first and
    /// the threads finish a batch, and a row group, together: writers that
    /// put a column chunk in one large page (DuckDB, Polars) make its first
    /// batch decompress all of it, and taken last it would keep one thread
    /// busy while the other waits for the batch (two threads went from
    /// 1.6× to 1.8× one on DuckDB's lineitem file).
    fn pick(&self, state: &mut State, thread: usize) -> Option<Task> {
        if state.closed {
            return None;
        }
        let limit = state.sizes.len().min(state.taken + self.ahead);
        let skipped = state.sizes.skipped();
        // A late column reads a batch once its kept rows are known.
        let kept_batch = state.kept.as_ref().map(|_| state.taken);
        let (i, _) = state
            .slots
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                s.reader.is_some()
                    && s.need.is_none()
                    && !s.broken
                    && s.next < limit
                    && (!s.late || s.next < skipped || Some(s.next) == kept_batch)
            })
            .min_by_key(|(_, s)| s.order(thread))?;
        let kept = state.kept.clone();
        let slot = state.slots.get_mut(i)?;
        let batch = slot.next;
        let late = slot.late;
        let reader = slot.reader.take()?;
        let rows = state.sizes.rows(batch).unwrap_or(0);
        let skip = batch < skipped;
        Some(Task {
            slot: i,
            batch,
            rows,
            skip,
            kept: if late && !skip { kept } else { None },
            reader,
        })
    }

    /// Decodes `task` without the lock, then stores its result; returns
    /// holding the lock, so that this thread picks its next task before a
    /// woken one can take the column it just decoded (a column moving
    /// between threads loses its data from the cache).
    fn run(&self, task: Task, thread: usize) -> MutexGuard<'_, State> {
        let Task {
            slot,
            batch,
            rows,
            skip,
            kept,
            mut reader,
        } = task;
        let reads = self.reads.as_ref();
        let decode = || loop {
            let step = if skip {
                match reader.skip(rows)? {
                    Step::Ready(()) => Step::Ready(LeafData::skipped()),
                    Step::Pending(r) => Step::Pending(r),
                }
            } else if let Some(kept) = &kept {
                reader.read_kept(kept)?
            } else {
                reader.read(rows)?
            };
            match (step, reads) {
                // The batch resumes from where it stopped once its reader
                // has the bytes.
                (Step::Pending(range), Some(read)) => {
                    let at = reader.location().clone().at_offset(range.start);
                    let data = read.read(&range, &at)?;
                    reader.push(range.start, data);
                }
                (step, _) => return Ok(step),
            }
        };
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(decode)).unwrap_or_else(|_| {
                Err(data_err(
                    &Location::default(),
                    "decoding a batch panicked (a bug: please report it)",
                ))
            });
        let mut state = self.lock();
        let result = match result {
            Ok(Step::Ready(data)) => Ok(data),
            Ok(Step::Pending(range)) => {
                // The batch resumes, from where it stopped, once the
                // bytes are pushed.
                if let Some(s) = state.slots.get_mut(slot) {
                    s.reader = Some(reader);
                    s.need = Some(range);
                    s.last_thread = thread;
                }
                state.recount(slot);
                if state.waiting > 0 {
                    self.changed.notify_all();
                }
                return state;
            }
            Err(e) => Err(e),
        };
        let failed = result.is_err();
        let taken = state.taken;
        let n_slots = state.slots.len();
        if let Some(k) = batch.checked_sub(taken) {
            while state.results.len() <= k {
                state
                    .results
                    .push_back((0..n_slots).map(|_| None).collect());
            }
            if let Some(r) = state.results.get_mut(k).and_then(|b| b.get_mut(slot)) {
                *r = Some(result);
            }
        }
        if let Some(s) = state.slots.get_mut(slot) {
            s.reader = Some(reader);
            s.next = batch + 1;
            s.last_thread = thread;
            s.broken |= failed;
        }
        state.recount(slot);
        if state.waiting > 0 {
            self.changed.notify_all();
        }
        state
    }

    /// Gives the readers waiting for bytes what `fetch` has of them:
    /// `fetch(range)` gives bytes from an absolute offset covering `range`,
    /// or `None` while it has not got them all.
    pub(crate) fn deliver(&self, fetch: &mut Fetch<'_>) {
        let mut state = self.lock();
        let mut delivered = false;
        for s in state.slots.iter_mut() {
            let Slot {
                reader,
                need,
                ahead,
                held,
                ..
            } = s;
            let Some(reader) = reader.as_mut() else {
                // Being decoded: what it asked ahead waits for its return.
                continue;
            };
            for want in [need, ahead] {
                let Some(range) = want.as_ref() else {
                    continue;
                };
                if let Some((offset, data)) = fetch(range) {
                    reader.push(offset, data);
                    *held = reader.buffered_bytes();
                    *want = None;
                    delivered = true;
                }
            }
        }
        if delivered && state.waiting > 0 {
            self.changed.notify_all();
        }
    }

    /// The ranges asked for and not delivered yet.
    pub(crate) fn outstanding(&self) -> Vec<Range<u64>> {
        self.lock().needs()
    }

    /// Bytes of the file the row group's readers hold.
    pub(crate) fn buffered_bytes(&self) -> usize {
        self.lock().slots.iter().map(|s| s.held).sum()
    }

    /// The caller's next batch: its rows and its leaves by column index,
    /// decoding on this thread (thread 0) while it is not complete. Batches
    /// of rows skipped by the offset are decoded (the pages hold no index to
    /// skip by) and dropped here. When nothing is left to decode before
    /// columns get bytes not pushed yet, the bytes they wait for.
    pub(crate) fn next_batch(&self) -> Next {
        let mut state = self.lock();
        loop {
            let Some(rows) = state.sizes.rows(state.taken) else {
                return Next::Done;
            };
            let skipped = state.taken < state.sizes.skipped();
            // Late columns wait for the rows the batch keeps: its early
            // leaves go to the caller first, once they are all decoded.
            let two_phase = !skipped && state.slots.iter().any(|s| s.late);
            if two_phase && !state.early_taken {
                let n_slots = state.slots.len();
                if state.results.is_empty() {
                    state
                        .results
                        .push_back((0..n_slots).map(|_| None).collect());
                }
                let State { slots, results, .. } = &mut *state;
                if let Some(front) = results.front_mut()
                    && slots
                        .iter()
                        .zip(front.iter())
                        .all(|(s, r)| s.late || r.is_some())
                {
                    let leaves: Result<Leaves> = slots
                        .iter()
                        .zip(front.iter_mut())
                        .filter(|(s, _)| !s.late)
                        .map(|(s, r)| {
                            r.take()
                                .unwrap_or_else(|| Err(lost()))
                                .map(|l| (s.column, l))
                        })
                        .collect();
                    state.early_taken = true;
                    return Next::Predicate(rows, leaves);
                }
            }
            let complete = state.results.front().is_some_and(|b| {
                state
                    .slots
                    .iter()
                    .zip(b.iter())
                    .all(|(s, r)| r.is_some() || (two_phase && !s.late))
            }) && (!two_phase || state.kept.is_some());
            if complete {
                let results = state.results.pop_front().unwrap_or_default();
                let leaves: Result<Leaves> = state
                    .slots
                    .iter()
                    .zip(results)
                    .filter(|(s, _)| !two_phase || s.late)
                    .map(|(s, r)| r.unwrap_or_else(|| Err(lost())).map(|l| (s.column, l)))
                    .collect();
                state.taken += 1;
                state.early_taken = false;
                state.kept = None;
                if state.waiting > 0 {
                    self.changed.notify_all();
                }
                if skipped && leaves.is_ok() {
                    // Dropped without the lock: their buffers go back to
                    // the pool.
                    drop(state);
                    drop(leaves);
                    state = self.lock();
                    continue;
                }
                return Next::Batch(rows, leaves);
            }
            // With decoding threads, reading comes before decoding here: a
            // column waiting for bytes, or a next page not asked for yet,
            // is read for first, so that the other threads find their
            // pages instead of waiting while this one decodes.
            if self.read_ahead {
                let asked = state.ask_ahead();
                if asked || state.slots.iter().any(|s| s.need.is_some()) {
                    return Next::Needs(state.needs());
                }
            }
            match self.pick(&mut state, 0) {
                Some(task) => {
                    let slot = task.slot;
                    drop(state);
                    state = self.run(task, 0);
                    // A column read alone gets its bytes before the next
                    // column runs.
                    if state.slots.get(slot).is_some_and(|s| {
                        s.need.is_some() && s.reader.as_ref().is_some_and(|r| r.reads_alone())
                    }) {
                        return Next::Needs(state.needs());
                    }
                }
                // Nothing to decode here until bytes come: the caller
                // fetches them (the other threads go on meanwhile).
                None if state.slots.iter().any(|s| s.need.is_some()) => {
                    return Next::Needs(state.needs());
                }
                // No task to take and none being decoded: nothing can
                // complete the batch (cannot happen unless a column broke
                // before it), so waiting would never end.
                None if state.slots.iter().all(|s| s.reader.is_some()) => {
                    return Next::Batch(rows, Err(lost()));
                }
                None => state = self.wait(state),
            }
        }
    }

    /// The rows the batch of the last [`Next::Predicate`] keeps: its late
    /// columns read only those.
    pub(crate) fn keep(&self, kept: KeptRows) {
        let mut state = self.lock();
        state.kept = Some(Arc::new(kept));
        if state.waiting > 0 {
            self.changed.notify_all();
        }
    }

    /// Work for a decoding thread: tasks until none is left, or the caller
    /// has closed the row group.
    pub(crate) fn work(&self, thread: usize) {
        let mut state = self.lock();
        loop {
            if state.closed
                || state
                    .slots
                    .iter()
                    .all(|s| s.broken || s.next >= state.sizes.len())
            {
                return;
            }
            match self.pick(&mut state, thread) {
                Some(task) => {
                    drop(state);
                    state = self.run(task, thread);
                }
                None => state = self.wait(state),
            }
        }
    }

    /// Stops the tasks and gives the readers back once no thread decodes
    /// any, with whether every batch was decoded.
    pub(crate) fn close(&self) -> (Vec<(usize, LeafReader)>, bool) {
        let mut state = self.lock();
        state.closed = true;
        self.changed.notify_all();
        while state.slots.iter().any(|s| s.reader.is_none()) {
            state = self.wait(state);
        }
        let all = state.taken >= state.sizes.len();
        let readers = state
            .slots
            .iter_mut()
            .filter_map(|s| s.reader.take().map(|r| (s.column, *r)))
            .collect();
        (readers, all)
    }
}

fn lost() -> crate::error::Error {
    data_err(&Location::default(), "a decoding thread stopped")
}

#[cfg(test)]
mod tests {
    use super::{Batches, RowGroupTasks, Slot};

    fn slot(column: usize, next: usize, last_thread: usize, size: u64) -> Slot {
        Slot {
            column,
            reader: None,
            next,
            last_thread,
            broken: false,
            need: None,
            ahead: None,
            late: false,
            held: 0,
            size,
        }
    }

    /// The earliest batch first; in it, a column the thread decoded last,
    /// then the largest.
    #[test]
    fn columns_are_taken_earliest_batch_then_own_then_largest() {
        let slots = [
            slot(0, 1, 0, 10),
            slot(1, 1, 0, 500),
            slot(2, 1, 1, 900),
            slot(3, 2, 1, 9000),
            slot(4, 1, 1, 100),
        ];
        let order = |thread: usize| {
            let mut by: Vec<&Slot> = slots.iter().collect();
            by.sort_by_key(|s| s.order(thread));
            by.iter().map(|s| s.column).collect::<Vec<_>>()
        };
        assert_eq!(order(0), [1, 0, 2, 4, 3]);
        assert_eq!(order(1), [2, 4, 1, 0, 3]);
    }

    /// A row group's columns start as last decoded by the thread that
    /// decoded them in the row group before, and report where they ended.
    #[test]
    fn columns_start_on_the_thread_of_the_row_group_before() {
        let sizes = Batches {
            skip: 0,
            step: 8192,
            read: 10,
            size: 10,
        };
        let tasks = RowGroupTasks::new(Vec::new(), sizes, 2);
        tasks.lock().slots = vec![slot(3, 0, 0, 10), slot(5, 0, 0, 10), slot(7, 0, 0, 10)];
        let tasks = tasks.with_last_threads(&[(7, 2), (5, 1), (9, 1)]);
        assert_eq!(tasks.last_threads(), [(3, 0), (5, 1), (7, 2)]);
        // Thread 1 takes its own column of the earliest batch first.
        let state = tasks.lock();
        let first = state.slots.iter().min_by_key(|s| s.order(1));
        assert_eq!(first.map(|s| s.column), Some(5));
    }

    #[test]
    fn batches_cover_the_skipped_then_the_read_rows() {
        for (skip, step, read, size) in [
            (0, 8192, 0, 10),
            (0, 8192, 25, 10),
            (20_000, 8192, 7, 3),
            (8192, 8192, 8192, 8192),
            (5, 8192, 1, 1),
        ] {
            let b = Batches {
                skip,
                step,
                read,
                size,
            };
            let rows: Vec<usize> = (0..b.len()).map(|k| b.rows(k).unwrap_or(0)).collect();
            let (skipped, kept) = rows.split_at(b.skipped());
            assert_eq!(skipped.iter().sum::<usize>(), skip);
            assert_eq!(kept.iter().sum::<usize>(), read);
            assert!(skipped.iter().all(|&r| r > 0 && r <= step));
            assert!(kept.iter().all(|&r| r > 0 && r <= size));
            assert_eq!(b.rows(b.len()), None);
        }
        // A row count from a damaged footer costs no memory up front.
        let huge = Batches {
            skip: 0,
            step: 8192,
            read: usize::MAX / 2,
            size: 1,
        };
        assert_eq!(huge.rows(123), Some(1));
    }
}
