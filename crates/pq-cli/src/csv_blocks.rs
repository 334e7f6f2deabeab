//! CSV records parsed on several threads, delivered in the order of the
//! file.
//!
//! One thread reads the input in blocks of [`BLOCK`] bytes and cuts each
//! block after its last whole record: [`QuoteCheck`](crate::csv_in) follows
//! the quoting of every byte, so a cut never falls inside a quoted field,
//! however many line ends the field holds. Parser threads turn blocks into
//! batches (arrow-csv's decoder, then the conversions of the plan); the
//! caller takes them block by block in file order. Where blocks are cut
//! depends only on the bytes, never on the thread count or on how much a
//! read returned, so the batches, and the file written from them, are the
//! same whatever `--threads` says.
//!
//! Memory is bounded: at most `threads` blocks wait for a parser and
//! `threads` parsed blocks wait for the caller, besides one per parser.
//!
//! An error found in a block (a value that does not parse, a record of the
//! wrong length) is reported by reading the file again on one thread up to
//! it, so that its message names the line of the file exactly as the
//! one-thread reader does; the cost falls on failing inputs only.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use arrow_array::RecordBatch;

use crate::csv_in::{Batches, Plan};
use crate::input::Input;

/// Bytes read before a block is cut after its last whole record: large
/// enough that a block holds many batches' worth of records, small enough
/// that `threads` of them in flight cost little memory.
const BLOCK: usize = 4 << 20;

/// A block's batches, or why it failed (an arrow-csv message, the line
/// numbers in it counted from the block's start).
type Parsed = Result<Vec<RecordBatch>, String>;

/// One block for a parser: its bytes, whether it starts with the header
/// line, and where to send its batches.
struct Job {
    bytes: Vec<u8>,
    header: bool,
    done: SyncSender<Parsed>,
}

/// What the reading thread hands the caller for each block, in file order:
/// where its batches will come from and the bytes of the input read up to
/// its end; or an error of the input itself (unreadable, a quoted field
/// left open).
type Ticket = Result<(Receiver<Parsed>, u64), String>;

/// The batches of a CSV input, parsed on `threads` threads; `progress` is
/// set to the bytes of the input whose batches were delivered.
pub fn batches(
    path: &Path,
    data: Input,
    plan: Plan,
    threads: usize,
    progress: Arc<AtomicU64>,
) -> Batches {
    let threads = threads.max(1);
    let plan = Arc::new(plan);
    let (jobs_tx, jobs_rx) = sync_channel::<Job>(threads);
    let jobs_rx = Arc::new(Mutex::new(jobs_rx));
    let (tickets_tx, tickets_rx) = sync_channel::<Ticket>(threads);
    // Parsed blocks' buffers go back to the reading thread: fresh ones of
    // a few MB each cost page faults and zeroed pages every time.
    let (spare_tx, spare_rx) = sync_channel::<Vec<u8>>(threads + 1);
    let parsers = (0..threads)
        .map(|_| {
            let jobs = jobs_rx.clone();
            let plan = plan.clone();
            let spare = spare_tx.clone();
            std::thread::spawn(move || parse_jobs(&jobs, &plan, &spare))
        })
        .collect();
    let reader_plan = plan.clone();
    let reader = std::thread::spawn(move || {
        cut_blocks(data, &reader_plan, &jobs_tx, &tickets_tx, &spare_rx)
    });
    Box::new(Ordered {
        path: path.to_path_buf(),
        plan,
        tickets: Some(tickets_rx),
        ready: Vec::new().into_iter(),
        reader: Some(reader),
        parsers,
        progress,
    })
}

/// Parses blocks until the reading thread is done.
fn parse_jobs(jobs: &Mutex<Receiver<Job>>, plan: &Plan, spare: &SyncSender<Vec<u8>>) {
    loop {
        // The lock is held only to take a job, never while parsing.
        let job = match jobs.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        let Ok(job) = job else { return };
        // The caller may have stopped listening: then the result is dropped.
        let _ = job.done.send(parse(&job.bytes, job.header, plan));
        // When enough buffers wait already, this one is freed.
        let _ = spare.try_send(job.bytes);
    }
}

/// One block's batches.
fn parse(mut bytes: &[u8], header: bool, plan: &Plan) -> Parsed {
    let mut decoder = plan.decoder(header);
    let mut out = Vec::new();
    loop {
        // An empty slice tells the decoder the input has ended, completing
        // a last record without a line end.
        let ended = bytes.is_empty();
        let used = decoder.decode(bytes).map_err(|e| e.to_string())?;
        bytes = bytes.get(used..).unwrap_or_default();
        if decoder.capacity() == 0 || ended || used == 0 {
            let batch = decoder.flush().map_err(|e| e.to_string())?;
            let rows = batch.as_ref().map_or(0, RecordBatch::num_rows);
            if let Some(batch) = batch.filter(|b| b.num_rows() > 0) {
                out.push(
                    plan.convert(&batch)
                        .map_err(|(_, _, value, why)| format!("'{value}' {why}"))?,
                );
            }
            if rows == 0 && ended {
                return Ok(out);
            }
            // Never loop on input the decoder does not take.
            if rows == 0 && used == 0 {
                return Err("the CSV decoder took none of the block's remaining bytes".into());
            }
        }
    }
}

/// Reads `data` in blocks cut after whole records, hands each to the
/// parsers and its ticket to the caller, in order; gives the input back
/// (for an error to be found again on one thread).
fn cut_blocks(
    data: Input,
    plan: &Plan,
    jobs: &SyncSender<Job>,
    tickets: &SyncSender<Ticket>,
    spare: &Receiver<Vec<u8>>,
) -> Input {
    let mut data = data;
    // Inferring the types read part of the input already.
    if let Err(e) = data.seek(SeekFrom::Start(0)) {
        let _ = tickets.send(Err(e.to_string()));
        return data;
    }
    let mut checked = plan.checked(data);
    // Bytes read but not yet handed on: the start of the next block.
    let mut carry: Vec<u8> = Vec::new();
    let mut handed: u64 = 0;
    let mut first = true;
    let mut want = BLOCK;
    loop {
        let mut block = spare.try_recv().unwrap_or_default();
        block.clear();
        block.append(&mut carry);
        block.reserve(want.saturating_sub(block.len()));
        // Filled to `want` bytes whatever the reads return, so that where
        // the block is cut depends on the bytes alone.
        let room = want.saturating_sub(block.len()) as u64;
        if let Err(e) = (&mut checked).take(room).read_to_end(&mut block) {
            let _ = tickets.send(Err(e.to_string()));
            return checked.into_inner();
        }
        let at_end = block.len() < want;
        let cut = if at_end {
            block.len()
        } else {
            match usize::try_from(checked.record_end().saturating_sub(handed)) {
                Ok(c) if c > 0 && c <= block.len() => c,
                // No whole record in the block: read a larger one.
                _ => {
                    want = want.saturating_mul(2);
                    carry = block;
                    continue;
                }
            }
        };
        want = BLOCK;
        carry.extend_from_slice(block.get(cut..).unwrap_or_default());
        block.truncate(cut);
        handed += cut as u64;
        if !block.is_empty() || first {
            let (done_tx, done_rx) = sync_channel(1);
            let job = Job {
                bytes: block,
                header: first && plan.header(),
                done: done_tx,
            };
            if jobs.send(job).is_err() || tickets.send(Ok((done_rx, handed))).is_err() {
                return checked.into_inner();
            }
        }
        first = false;
        if at_end {
            return checked.into_inner();
        }
    }
}

/// The batches of the blocks, in file order.
struct Ordered {
    path: PathBuf,
    plan: Arc<Plan>,
    tickets: Option<Receiver<Ticket>>,
    ready: std::vec::IntoIter<RecordBatch>,
    reader: Option<JoinHandle<Input>>,
    parsers: Vec<JoinHandle<()>>,
    progress: Arc<AtomicU64>,
}

impl Ordered {
    /// Stops the threads and finds `error` again on one thread, for its
    /// message to name the line of the file.
    fn fail(&mut self, error: String) -> String {
        // Dropping the tickets stops the reading thread at its next block;
        // the parsers stop when it drops their queue.
        self.tickets = None;
        let data = self.reader.take().and_then(|r| r.join().ok());
        for p in self.parsers.drain(..) {
            let _ = p.join();
        }
        let Some(data) = data else {
            return error;
        };
        match crate::csv_in::sequential(&self.path, data, &self.plan) {
            Ok(batches) => {
                for b in batches {
                    if let Err(e) = b {
                        return e;
                    }
                }
                // Not found again: the block's own message.
                error
            }
            Err(e) => e.to_string(),
        }
    }
}

impl Iterator for Ordered {
    type Item = Result<RecordBatch, String>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(b) = self.ready.next() {
                return Some(Ok(b));
            }
            let ticket = self.tickets.as_ref()?.recv().ok();
            let parsed = match ticket {
                None => {
                    self.tickets = None;
                    return None;
                }
                // The input's own errors name their line already.
                Some(Err(e)) => {
                    self.tickets = None;
                    return Some(Err(e));
                }
                Some(Ok((done, end))) => match done.recv() {
                    Ok(p) => p.map(|b| (b, end)),
                    Err(_) => Err("a CSV parser thread stopped".to_string()),
                },
            };
            match parsed {
                Ok((batches, end)) => {
                    self.progress.store(end, Ordering::Relaxed);
                    self.ready = batches.into_iter();
                }
                Err(e) => return Some(Err(self.fail(e))),
            }
        }
    }
}
