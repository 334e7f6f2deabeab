//! Mutation test: every fixture and corpus file, mutated in seeded ways that
//! aim at the reader's weak spots, read whole through pq-arrow. Each read must
//! end in `Ok` or `Err`: no panic, no hang (a per-file time cap), and no
//! allocation past a cap (a counting global allocator).
//!
//! The mutations: bit flips, random byte runs, truncation at every offset of
//! the footer, every integer field of the footer and of the first page
//! headers set to 0, -1, huge and just past the end, page headers with their
//! two sizes swapped, and huge varints planted in the data.
//!
//! A second test is an oracle on values: each mutated file is also read by
//! the arrow-rs reader, and what the two readers return is compared with
//! each other and with the unmutated file ([`Verdict`]). pq must never
//! return data that differs from arrow-rs's (unless arrow-rs is the one
//! returning something other than the original), nor changed data where
//! arrow-rs reports corruption. The files pq refuses while arrow-rs reads
//! them identically to the original are counted and their reasons printed.
//! By default it compares a seeded sample of the mutations (every tenth,
//! seconds in a debug build), so CI runs it; `PQ_MUTATIONS=N` compares at
//! least N (every fixed mutation, then further seeded rounds of random
//! ones). Cases where pq returns data arrow-rs does not fail it, unless
//! [`ALLOWED`] names them with the reason.
//!
//! A third reads every tenth mutation through the async reader too, its
//! answers split into pieces anywhere, and requires the sync reader's
//! batches and error: the async reader's own fetching (merged and
//! prefetched ranges, pages joined across pieces) adds no way around the
//! checks.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use arrow_array::{RecordBatch, RecordBatchReader};
use bytes::Bytes;
use pq_format::{PageHeader, ThriftDecode, ThriftEncode};
use pq_testkit::Rng;

/// Bytes live on the heap at once above which the test fails. Real files
/// here need a few MB; a mutated length must not make the reader ask for
/// gigabytes.
const ALLOC_CAP: usize = 1 << 30;
/// Integer fields of a footer mutated at most; larger footers are sampled
/// (seeded), so the whole test stays within a few minutes.
const MAX_FIELDS: usize = 12;
/// Time one mutated file may take to read.
const TIME_CAP: Duration = Duration::from_secs(20);

struct CountingAlloc;

static LIVE: AtomicUsize = AtomicUsize::new(0);
/// The part of [`LIVE`] the reference reader holds (see [`REFERENCE`]).
static REF_LIVE: AtomicUsize = AtomicUsize::new(0);

/// Heap bytes pq holds: what the reference reader holds is not pq's (a
/// reference thread left behind after a hang may hold gigabytes).
fn pq_live(live: usize) -> usize {
    live.saturating_sub(REF_LIVE.load(Ordering::Relaxed))
}

thread_local! {
    /// Set on the threads that run the reference reader: arrow-rs sizes
    /// some buffers from the file's claims, which is not what this test
    /// checks, so its allocations are counted but not capped, and its
    /// panics are recorded without a backtrace.
    static REFERENCE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Held by each test for its whole run: the heap count is shared, so the
/// two tests of this file must not read at the same time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Most a reference thread may hold: arrow-rs believes some sizes in a
/// mutated footer and would take tens of gigabytes. A thread that asks for
/// more is parked for good (an allocator cannot fail softly) and its read
/// counts as a hang.
const REFERENCE_CAP: usize = 512 << 20;

thread_local! {
    /// Heap bytes this reference thread holds.
    static REFERENCE_HELD: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Reference threads that gave up (parked past [`REFERENCE_CAP`]).
static GAVE_UP: AtomicUsize = AtomicUsize::new(0);

/// Counts `grow` bytes more (or fewer) held by this reference thread, and
/// parks it past the cap.
fn reference_holds(grow: isize) {
    let held = REFERENCE_HELD.with(|h| {
        let v = h.get().saturating_add_signed(grow);
        h.set(v);
        v
    });
    if grow > 0 && held > REFERENCE_CAP {
        GAVE_UP.fetch_add(1, Ordering::Relaxed);
        loop {
            std::thread::park();
        }
    }
}

fn capped() -> bool {
    !REFERENCE.with(std::cell::Cell::get)
}

/// The file and mutation being read, for the message when a cap is hit.
static CURRENT: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

fn report_cap(what: &str) -> ! {
    // `try_lock`: the allocator must not block, and must not allocate here.
    match CURRENT.try_lock() {
        Ok(current) => eprintln!("{what} while reading {current}"),
        Err(_) => eprintln!("{what}"),
    }
    std::process::abort();
}

// SAFETY: forwards to the system allocator, only counting sizes.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !capped() {
            // Checked before it is counted: a parked thread holds nothing more.
            reference_holds(layout.size() as isize);
            REF_LIVE.fetch_add(layout.size(), Ordering::Relaxed);
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        } else if pq_live(LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size())
            > ALLOC_CAP
        {
            // Report and stop: unwinding out of an allocator is not allowed.
            report_cap("an allocation takes the heap past the 1 GiB cap");
        }
        // SAFETY: same layout contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        if !capped() {
            reference_holds(-(layout.size() as isize));
            REF_LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let grow = new_size - layout.size();
            if !capped() {
                reference_holds(grow as isize);
                REF_LIVE.fetch_add(grow, Ordering::Relaxed);
                LIVE.fetch_add(grow, Ordering::Relaxed);
            } else if pq_live(LIVE.fetch_add(grow, Ordering::Relaxed) + grow) > ALLOC_CAP {
                report_cap("a reallocation takes the heap past the 1 GiB cap");
            }
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            if !capped() {
                reference_holds(-((layout.size() - new_size) as isize));
                REF_LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// The footer: (start, end) of the Thrift metadata in `file`.
fn footer_range(file: &[u8]) -> Option<(usize, usize)> {
    let n = file.len();
    let len_bytes = file.get(n.checked_sub(8)?..n - 4)?;
    let len = u32::from_le_bytes(len_bytes.try_into().ok()?) as usize;
    let start = (n - 8).checked_sub(len)?;
    Some((start, n - 8))
}

/// Rebuilds `file` with `footer` as its metadata (fixing the length field).
fn with_footer(file: &[u8], start: usize, footer: &[u8]) -> Vec<u8> {
    let mut out = file[..start].to_vec();
    out.extend_from_slice(footer);
    out.extend_from_slice(&(footer.len() as u32).to_le_bytes());
    out.extend_from_slice(b"PAR1");
    out
}

/// Positions (offset, length) of every varint integer field in a compact
/// Thrift struct, found by walking it generically.
fn integer_fields(buf: &[u8]) -> Vec<(usize, usize)> {
    fn varint(buf: &[u8], pos: &mut usize) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..70).step_by(7) {
            let b = *buf.get(*pos)?;
            *pos += 1;
            v |= u64::from(b & 0x7f) << shift.min(63);
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }
    fn value(
        buf: &[u8],
        pos: &mut usize,
        ty: u8,
        out: &mut Vec<(usize, usize)>,
        depth: usize,
    ) -> Option<()> {
        if depth > 32 {
            return None;
        }
        match ty {
            1 | 2 => {}
            3 => *pos += 1,
            4..=6 => {
                let start = *pos;
                varint(buf, pos)?;
                out.push((start, *pos - start));
            }
            7 => *pos += 8,
            8 => {
                let len = varint(buf, pos)? as usize;
                *pos = pos.checked_add(len)?;
            }
            9 | 10 => {
                let header = *buf.get(*pos)?;
                *pos += 1;
                let mut n = usize::from(header >> 4);
                if n == 15 {
                    n = varint(buf, pos)? as usize;
                }
                let elem = header & 0x0f;
                for _ in 0..n.min(buf.len()) {
                    if elem == 1 || elem == 2 {
                        *pos += 1;
                    } else {
                        value(buf, pos, elem, out, depth + 1)?;
                    }
                }
            }
            11 => {
                let n = varint(buf, pos)? as usize;
                if n > 0 {
                    let kv = *buf.get(*pos)?;
                    *pos += 1;
                    for _ in 0..n.min(buf.len()) {
                        value(buf, pos, kv >> 4, out, depth + 1)?;
                        value(buf, pos, kv & 0x0f, out, depth + 1)?;
                    }
                }
            }
            12 => loop {
                let header = *buf.get(*pos)?;
                *pos += 1;
                if header == 0 {
                    break;
                }
                if header >> 4 == 0 {
                    // Long form: the field id follows as a zigzag varint.
                    varint(buf, pos)?;
                }
                value(buf, pos, header & 0x0f, out, depth + 1)?;
            },
            _ => return None,
        }
        (*pos <= buf.len()).then_some(())
    }
    let mut out = Vec::new();
    let mut pos = 0;
    let _ = value(buf, &mut pos, 12, &mut out, 0);
    out
}

/// A zigzag varint of `v`.
fn zigzag(v: i64) -> Vec<u8> {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    let mut out = Vec::new();
    loop {
        let b = (z & 0x7f) as u8;
        z >>= 7;
        if z == 0 {
            out.push(b);
            return out;
        }
        out.push(b | 0x80);
    }
}

/// Replaces `buf[at..at + len]` with `with`.
fn splice(buf: &[u8], at: usize, len: usize, with: &[u8]) -> Vec<u8> {
    let mut out = buf[..at].to_vec();
    out.extend_from_slice(with);
    out.extend_from_slice(&buf[at + len..]);
    out
}

/// Calls `out` with every mutation of one file, in a fixed order; returns
/// how many. One mutation is alive at a time.
fn mutations(file: &Bytes, seed: u64, out: &mut dyn FnMut(String, Bytes)) -> usize {
    let count = std::cell::Cell::new(0);
    let mut out = |what: String, data: Bytes| {
        count.set(count.get() + 1);
        out(what, data);
    };
    let mut rng = Rng(seed);
    let n = file.len();
    if n < 16 {
        return count.get();
    }
    random_mutations(file, &mut rng, &mut out);
    let Some((start, end)) = footer_range(file) else {
        return count.get();
    };
    // Truncation at every offset of the footer (and its 8-byte tail).
    for cut in start..n {
        out(format!("truncated at {cut}"), file.slice(..cut));
    }
    // Every integer field of the footer set to 0, -1, huge and just past
    // the end of the file. Large footers get a seeded sample of fields.
    let footer = &file[start..end];
    let mut fields = integer_fields(footer);
    while fields.len() > MAX_FIELDS {
        fields.remove(rng.index(fields.len()));
    }
    for (at, len) in fields {
        for v in [0i64, -1, i64::from(i32::MAX), n as i64 + 1] {
            let m = with_footer(file, start, &splice(footer, at, len, &zigzag(v)));
            out(
                format!("footer field at {} set to {v}", start + at),
                m.into(),
            );
        }
    }
    // The page headers of the first column chunks: each integer field set
    // likewise, and the two sizes swapped.
    if let Ok(meta) = pq_format::read_metadata_from_bytes(file, &Default::default()) {
        let chunks = meta.row_groups.iter().flat_map(|rg| &rg.columns).take(2);
        for chunk in chunks {
            let Some(cmd) = &chunk.meta_data else {
                continue;
            };
            let pos = cmd
                .dictionary_page_offset
                .filter(|&d| d > 0)
                .unwrap_or(cmd.data_page_offset);
            let Ok(pos) = usize::try_from(pos) else {
                continue;
            };
            let Some(rest) = file.get(pos..) else {
                continue;
            };
            let Ok((header, header_len)) = PageHeader::decode_prefix(rest, &Default::default())
            else {
                continue;
            };
            for (at, len) in integer_fields(&rest[..header_len])
                .into_iter()
                .take(MAX_FIELDS)
            {
                for v in [0i64, -1, i64::from(i32::MAX), (n - pos) as i64 + 1] {
                    let m = splice(file, pos + at, len, &zigzag(v));
                    out(
                        format!("page header field at {} set to {v}", pos + at),
                        m.into(),
                    );
                }
            }
            let mut swapped = header.clone();
            swapped.compressed_page_size = header.uncompressed_page_size;
            swapped.uncompressed_page_size = header.compressed_page_size;
            let m = splice(file, pos, header_len, &swapped.encode());
            out(format!("page header at {pos} with sizes swapped"), m.into());
        }
    }
    count.get()
}

/// The seeded random mutations of one file (at least 16 bytes long): bit
/// flips, random byte runs and huge varints anywhere, 4-byte swaps, and
/// footer integer fields set to random values.
fn random_mutations(file: &Bytes, rng: &mut Rng, out: &mut dyn FnMut(String, Bytes)) {
    let n = file.len();
    for i in 0..8 {
        let mut m = file.to_vec();
        for _ in 0..=rng.index(8) {
            let at = rng.index(n);
            m[at] ^= 1 << rng.index(8);
        }
        out(format!("bit flips #{i}"), m.into());
    }
    for i in 0..4 {
        let mut m = file.to_vec();
        let at = rng.index(n);
        let len = (1 + rng.index(16)).min(n - at);
        for b in &mut m[at..at + len] {
            *b = rng.next() as u8;
        }
        out(format!("random run #{i} at {at}"), m.into());
    }
    for i in 0..4 {
        // A 10-byte varint of all ones planted in the data.
        let at = rng.index(n.saturating_sub(12));
        let mut m = file.to_vec();
        m[at..at + 10]
            .copy_from_slice(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
        out(format!("huge varint #{i} at {at}"), m.into());
    }
}

/// A further seeded round of mutations of one file, for long runs: the
/// random mutations, 4-byte swaps, and footer integer fields set to values
/// drawn at random (small, negative, huge).
fn more_mutations(file: &Bytes, seed: u64, out: &mut dyn FnMut(String, Bytes)) {
    let mut rng = Rng(seed);
    let n = file.len();
    if n < 16 {
        return;
    }
    random_mutations(file, &mut rng, out);
    for i in 0..4 {
        let at = rng.index(n - 8);
        let mut m = file.to_vec();
        let (a, b) = m[at..at + 8].split_at_mut(4);
        a.swap_with_slice(b);
        out(format!("4-byte swap #{i} at {at}"), m.into());
    }
    let Some((start, end)) = footer_range(file) else {
        return;
    };
    let footer = &file[start..end];
    let fields = integer_fields(footer);
    for _ in 0..8.min(fields.len()) {
        let (at, len) = fields[rng.index(fields.len())];
        let v = match rng.index(4) {
            0 => rng.index(64) as i64,
            1 => -(rng.index(1 << 20) as i64) - 1,
            2 => rng.next() as i64,
            _ => i64::from(rng.next() as i32),
        };
        let m = with_footer(file, start, &splice(footer, at, len, &zigzag(v)));
        out(
            format!("footer field at {} set to {v}", start + at),
            m.into(),
        );
    }
}

/// Files left out, with the reason. Nothing else is skipped.
const EXCLUDED: &[(&str, &str)] = &[(
    "large_string_map.brotli.parquet",
    "its pages really decode to 1 GiB each, so any read of it passes the cap \
     (pq-page's tests read it with the limit raised)",
)];

fn files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![pq_tests::fixtures_dir()];
    if let Some(corpus) = pq_tests::corpus_dir() {
        dirs.push(corpus.join("data"));
        dirs.push(corpus.join("bad_data"));
    }
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "parquet") {
                match EXCLUDED.iter().find(|(name, _)| p.ends_with(name)) {
                    Some((name, why)) => eprintln!("not mutated: {name}: {why}"),
                    None => out.push(p),
                }
            }
        }
    }
    out.sort();
    out
}

/// Runs `read` (a reader of one mutated file) on another thread, within
/// the time cap: a hang ends the test run, a panic fails the test, naming
/// the file and mutation either way.
fn within_cap<T: Send + 'static>(
    path: &Path,
    what: &str,
    read: impl FnOnce() -> T + Send + 'static,
) -> T {
    {
        let mut current = CURRENT.lock().unwrap();
        current.clear();
        current.push_str(&format!("{} ({what})", path.display()));
    }
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(read());
    });
    match rx.recv_timeout(TIME_CAP) {
        Ok(outcome) => outcome,
        Err(mpsc::RecvTimeoutError::Timeout) => {
            eprintln!(
                "{} ({what}): still reading after {TIME_CAP:?}",
                path.display()
            );
            std::process::exit(1);
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            panic!("{} ({what}): the reader panicked", path.display());
        }
    }
}

/// Reads `data` whole, on another thread, within the time cap.
fn read_within_cap(path: &Path, what: &str, data: Bytes) {
    within_cap(path, what, move || pq_tests::harness::read_bytes(data))
}

#[test]
fn mutated_files_end_in_ok_or_err() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let started = Instant::now();
    let mut total = 0;
    for (i, path) in files().iter().enumerate() {
        let file = Bytes::from(std::fs::read(path).unwrap());
        if std::env::var_os("MUTATIONS_VERBOSE").is_some() {
            eprintln!(
                "{} (heap {} bytes)",
                path.display(),
                LIVE.load(Ordering::Relaxed)
            );
        }
        let seed = 0x5EED_0000 + i as u64;
        total += mutations(&file, seed, &mut |what, data| {
            read_within_cap(path, &what, data)
        });
    }
    eprintln!("{total} mutated files read in {:.1?}", started.elapsed());
    assert!(
        total > 1000,
        "only {total} mutations: are the fixtures there?"
    );
}

/// What one reader made of a file: its batches concatenated, or the error.
type Outcome = Result<RecordBatch, String>;

/// Reads `data` with pq-arrow, within the time cap; a panic or hang fails
/// the test as in [`mutated_files_end_in_ok_or_err`].
fn read_pq(path: &Path, what: &str, data: Bytes) -> Outcome {
    within_cap(path, what, move || -> Outcome {
        let reader = pq_arrow::ParquetReader::from_bytes(data).map_err(|e| e.to_string())?;
        let reader = reader
            .with_batch_size(8192)
            .build()
            .map_err(|e| e.to_string())?;
        let schema = reader.schema();
        let batches = reader
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| pq_arrow::Error::from(e).to_string())?;
        arrow_select::concat::concat_batches(&schema, &batches).map_err(|e| e.to_string())
    })
}

/// How the reference reader ended.
enum Reference {
    Read(Outcome),
    Panicked,
    Hung,
}

/// Reads `data` with arrow-rs on a thread of its own; a thread still
/// reading after the time cap is left behind.
fn read_arrow_rs(data: Bytes) -> Reference {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        REFERENCE.with(|r| r.set(true));
        let read = || -> Outcome {
            let b = ParquetRecordBatchReaderBuilder::try_new(data).map_err(|e| e.to_string())?;
            let r = b.with_batch_size(8192).build().map_err(|e| e.to_string())?;
            let schema = r.schema();
            let batches = r
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| e.to_string())?;
            arrow_select::concat::concat_batches(&schema, &batches).map_err(|e| e.to_string())
        };
        let _ = tx.send(read());
    });
    let gave_up = GAVE_UP.load(Ordering::Relaxed);
    let started = Instant::now();
    while started.elapsed() < TIME_CAP {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(outcome) => return Reference::Read(outcome),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if GAVE_UP.load(Ordering::Relaxed) != gave_up {
                    return Reference::Hung;
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return Reference::Panicked,
        }
    }
    Reference::Hung
}

/// Same fields and same values (schema metadata aside).
fn same(a: &RecordBatch, b: &RecordBatch) -> bool {
    a.schema().fields() == b.schema().fields()
        && a.num_rows() == b.num_rows()
        && a.columns()
            .iter()
            .zip(b.columns())
            .all(|(x, y)| x.to_data() == y.to_data())
}

/// How the two readers' answers on one mutated file compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Verdict {
    /// Both return the same data as each other.
    BothReadSame,
    /// Both report an error.
    BothReject,
    /// pq rejects; arrow-rs returns data other than the original.
    PqRejectsArrowRsChanged,
    /// pq returns the original; arrow-rs reports an error.
    PqReadsOriginalArrowRsRejects,
    /// pq returns the original; arrow-rs returns something else (arrow-rs
    /// is wrong).
    PqOriginalArrowRsDiffers,
    /// arrow-rs panicked or hung (its bug, counted apart).
    ArrowRsPanicOrHang,
    /// pq rejects what arrow-rs reads identically to the original.
    OverStrict,
    /// Both return data, pq's changed and different from arrow-rs's.
    Differ,
    /// pq returns changed data where arrow-rs reports corruption.
    CorruptAsData,
}

impl Verdict {
    /// Whether the verdict fails the test.
    fn is_failure(self) -> bool {
        matches!(self, Verdict::Differ | Verdict::CorruptAsData)
    }
}

fn classify(original: &RecordBatch, ours: &Outcome, theirs: &Reference) -> Verdict {
    let theirs = match theirs {
        Reference::Read(o) => o,
        Reference::Panicked | Reference::Hung => return Verdict::ArrowRsPanicOrHang,
    };
    match (ours, theirs) {
        (Ok(o), Ok(t)) if same(o, t) => Verdict::BothReadSame,
        (Ok(o), Ok(_)) if same(o, original) => Verdict::PqOriginalArrowRsDiffers,
        (Ok(_), Ok(_)) => Verdict::Differ,
        (Err(_), Err(_)) => Verdict::BothReject,
        (Err(_), Ok(t)) if same(t, original) => Verdict::OverStrict,
        (Err(_), Ok(_)) => Verdict::PqRejectsArrowRsChanged,
        (Ok(o), Err(_)) if same(o, original) => Verdict::PqReadsOriginalArrowRsRejects,
        (Ok(_), Err(_)) => Verdict::CorruptAsData,
    }
}

/// An error message with its numbers (offsets, counts) blanked, to group
/// the same reason across files.
fn reason(message: &str) -> String {
    let mut out = String::new();
    let mut in_number = false;
    for c in message.chars() {
        if c.is_ascii_digit() {
            if !in_number {
                out.push('#');
            }
            in_number = true;
        } else {
            in_number = false;
            out.push(c);
        }
    }
    out.chars().take(160).collect()
}

/// (file, mutation, why) of the mutated files where pq may return data
/// that differs from arrow-rs's, or data where arrow-rs reports an error:
/// those where arrow-rs is the one that is wrong, or where the mutation
/// leaves a file no reader can tell from a valid one.
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "alltypes_plain.parquet",
        "huge varint #2 at 966",
        "the bytes land in an INT96 value of the dictionary page, making its \
         Julian day 2^32 - 1: arrow-rs reads the day as signed, pq as unsigned \
         as pyarrow does; a value no reader can tell from one written so",
    ),
    (
        "geography-points.parquet",
        "bit flips #3",
        "three flips land in PLAIN value bytes (no page checksum), which no \
         reader can detect; arrow-rs rejects the file only for the fourth, an \
         unknown encoding in the chunk metadata's lists of encodings, which no \
         page needs (an encoding a newer writer lists must not fail the file)",
    ),
    (
        "fixed_length_byte_array.parquet",
        "bit flips #5",
        "four flips land in the value and level bytes of data pages, which \
         only their CRCs could reveal and which neither pq nor arrow-rs \
         checks unless asked (`with_verify_checksums`); arrow-rs rejects the \
         file only for two flips in the footer's encoding_stats, a page type \
         of -145 that no reader needs to read the pages",
    ),
    (
        "geospatial-with-nan.parquet",
        "bit flips #5",
        "as geography-points.parquet (bit flips #3): flips in value bytes no \
         reader can detect, and one in the chunk metadata's lists of encodings \
         that arrow-rs alone refuses",
    ),
    (
        "alltypes_plain.parquet",
        "random run #3 at 976",
        "the run lands in INT96 values of timestamp_col, which no reader can \
         tell from values written so; pq reads them as pyarrow does, arrow-rs \
         otherwise (as for huge varint #2 at 966)",
    ),
    (
        "alltypes_tiny_pages_plain.parquet",
        "huge varint #1 at 521736",
        "as alltypes_plain.parquet (random run #3 at 976): the bytes land in \
         INT96 values of timestamp_col; pq reads them as pyarrow does",
    ),
    (
        "nested_plain_v1.parquet",
        "bit flips #5",
        "two flips land in PLAIN values of list_int64 (no page checksum), \
         which no reader can detect; the third, in a page of \
         map_utf8_int64.entries.values, leaves that column as pq and pyarrow \
         read it equal to the original, where arrow-rs stops (StructArrayReader \
         out of sync); pq returns what pyarrow returns",
    ),
    (
        "fixed_length_decimal.parquet",
        "bit flips #1",
        "the flip shortens the column's name in the footer by a byte ('valu'), \
         the byte after it then read as a Thrift field that is skipped: a \
         valid footer, which pq reads as pyarrow does and arrow-rs refuses \
         (Empty struct has fields)",
    ),
    (
        "nonnullable.impala.parquet",
        "bit flips #6",
        "flips in the footer's schema rename repeated groups ('list' to \
         'lisd', 'map' to 'mAp'), names no reader may rely on, and touch bytes \
         no column reads: pq reads every value of the original, as pyarrow \
         does, its Arrow names following the groups'; arrow-rs refuses the \
         footer (Unexpected struct field type I64)",
    ),
];

/// The reason [`ALLOWED`] gives for `name` (`file (mutation)`), if any.
fn allowed(name: &str) -> Option<&'static str> {
    ALLOWED
        .iter()
        .find(|(file, what, _)| name == format!("{file} ({what})"))
        .map(|(_, _, why)| *why)
}

#[test]
fn mutated_files_read_like_arrow_rs() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // Compare every STRIDE-th mutation by default (about 20 000, seconds
    // in a debug build); `PQ_MUTATIONS=N` compares every one, in rounds,
    // until N.
    const STRIDE: usize = 10;
    let wanted: Option<usize> = std::env::var("PQ_MUTATIONS")
        .ok()
        .map(|v| v.parse().expect("PQ_MUTATIONS is a count"));
    let stride = if wanted.is_some() { 1 } else { STRIDE };
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if capped() {
            quiet(info);
        }
    }));
    let started = Instant::now();
    let files = files();
    let mut verdicts: std::collections::BTreeMap<Verdict, usize> = Default::default();
    let mut over_strict: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    let mut failures: Vec<String> = Vec::new();
    let mut allowed_seen: Vec<String> = Vec::new();
    let mut unusable = Vec::new();
    let mut seen = 0usize;
    let mut compared = 0usize;
    let mut round = 0u64;
    loop {
        for (i, path) in files.iter().enumerate() {
            let file = Bytes::from(std::fs::read(path).unwrap());
            // The original as both readers see it; a file they do not
            // read alike gives no reference for its mutations.
            let ours = read_pq(path, "original", file.clone());
            let theirs = read_arrow_rs(file.clone());
            let usable = matches!((&ours, &theirs), (Ok(o), Reference::Read(Ok(t))) if same(o, t));
            REFERENCE.with(|r| r.set(true));
            drop(theirs);
            REFERENCE.with(|r| r.set(false));
            let original = match ours {
                Ok(o) if usable => o,
                _ => {
                    if round == 0 {
                        unusable.push(path.display().to_string());
                    }
                    continue;
                }
            };
            let seed = 0x5EED_0000 + i as u64;
            let mut each = |what: String, data: Bytes| {
                seen += 1;
                if !seen.is_multiple_of(stride) {
                    return;
                }
                compared += 1;
                if compared.is_multiple_of(1000) {
                    eprintln!(
                        "{compared} compared in {:.0?}: {verdicts:?}",
                        started.elapsed()
                    );
                }
                let ours = read_pq(path, &what, data.clone());
                // `data` outlives the reference thread's clone, so that its bytes
                // are not freed as the reference's.
                let theirs = read_arrow_rs(data.clone());
                let verdict = classify(&original, &ours, &theirs);
                *verdicts.entry(verdict).or_default() += 1;
                let name = format!(
                    "{} ({what})",
                    path.file_name().unwrap_or_default().to_string_lossy()
                );
                match (verdict, &ours) {
                    (Verdict::OverStrict, Err(e)) => {
                        over_strict.entry(reason(e)).or_default().push(name);
                    }
                    (v, _) if v.is_failure() && allowed(&name).is_some() => {
                        allowed_seen.push(format!("{v:?}: {name}"));
                    }
                    (v, _) if v.is_failure() => {
                        let theirs = match &theirs {
                            Reference::Read(Err(e)) => format!("arrow-rs: {e}"),
                            Reference::Read(Ok(b)) => format!("arrow-rs: {} rows", b.num_rows()),
                            _ => String::new(),
                        };
                        let ours = match &ours {
                            Ok(b) => format!("pq: {} rows", b.num_rows()),
                            Err(e) => format!("pq: {e}"),
                        };
                        failures.push(format!("{v:?}: {name}: {ours}; {theirs}"));
                    }
                    _ => {}
                }
                // Freed as the reference's memory, which it was counted as.
                REFERENCE.with(|r| r.set(true));
                drop(theirs);
                REFERENCE.with(|r| r.set(false));
            };
            if round == 0 {
                mutations(&file, seed, &mut each);
            } else {
                more_mutations(&file, seed ^ (round << 32), &mut each);
            }
        }
        round += 1;
        if wanted.is_none_or(|n| compared >= n) || round > 1000 {
            break;
        }
    }
    eprintln!(
        "{compared} mutated files compared with arrow-rs in {:.1?} ({round} rounds)",
        started.elapsed()
    );
    eprintln!("files without a reference (the readers differ on the original): {unusable:?}");
    eprintln!("{:<32} {:>8}", "verdict", "files");
    for (v, n) in &verdicts {
        eprintln!("{:<32} {n:>8}", format!("{v:?}"));
    }
    let mut reasons: Vec<_> = over_strict.iter().collect();
    reasons.sort_by_key(|(_, files)| std::cmp::Reverse(files.len()));
    eprintln!(
        "pq rejects, arrow-rs reads the original ({} files):",
        over_strict.values().map(Vec::len).sum::<usize>()
    );
    for (r, files) in reasons {
        eprintln!("  {:>5}  {r}\n         e.g. {}", files.len(), files[0]);
    }
    for f in &allowed_seen {
        eprintln!(
            "allowed: {f}: {}",
            allowed(f.split_once(": ").unwrap().1).unwrap()
        );
    }
    for f in &failures {
        eprintln!("{f}");
    }
    assert!(compared > 100, "only {compared} mutations compared");
    assert!(
        failures.is_empty(),
        "{} mutated files where pq returns data arrow-rs does not",
        failures.len()
    );
}

/// A mutated file in memory, read through the async reader: its answers
/// come in pieces that split pages and their headers anywhere
/// ([`pq_testkit::in_pieces`]).
#[derive(Debug)]
struct InPieces(Bytes);

impl pq_arrow::AsyncRangeReader for InPieces {
    fn size(&self) -> futures::future::BoxFuture<'_, std::io::Result<u64>> {
        Box::pin(async move { Ok(self.0.len() as u64) })
    }
    fn get_range(
        &self,
        range: std::ops::Range<u64>,
    ) -> futures::future::BoxFuture<'_, std::io::Result<Bytes>> {
        Box::pin(async move {
            let (start, end) = (range.start as usize, range.end as usize);
            if start > end || end > self.0.len() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("{start}..{end} is past the end ({})", self.0.len()),
                ));
            }
            Ok(self.0.slice(start..end))
        })
    }
    fn get_range_stream(
        &self,
        range: std::ops::Range<u64>,
    ) -> futures::stream::BoxStream<'_, std::io::Result<Bytes>> {
        use futures::{StreamExt, TryStreamExt};
        let answer = async move {
            let data = self.get_range(range).await?;
            Ok::<_, std::io::Error>(futures::stream::iter(pq_testkit::in_pieces(data).map(Ok)))
        };
        futures::stream::once(answer).try_flatten().boxed()
    }
    fn name(&self) -> String {
        "mutated file".into()
    }
}

/// What one reader made of a file, batch by batch: the batches it
/// returned and the error that ended them, if any.
type Batches = (Vec<RecordBatch>, Option<String>);

/// Reads `data` with the sync reader from `Bytes`, batch by batch.
fn read_sync_batches(path: &Path, what: &str, data: Bytes) -> Batches {
    within_cap(path, what, move || -> Batches {
        let mut batches = Vec::new();
        let mut reader = match pq_arrow::ParquetReader::from_bytes(data)
            .and_then(|r| r.with_batch_size(1024).build())
        {
            Ok(r) => r,
            Err(e) => return (batches, Some(e.to_string())),
        };
        loop {
            match reader.next_batch() {
                Ok(Some(b)) => batches.push(b),
                Ok(None) => return (batches, None),
                Err(e) => return (batches, Some(e.to_string())),
            }
        }
    })
}

/// Reads `data` with the async reader over [`InPieces`], batch by batch,
/// with `fetch`, on a runtime of its own.
fn read_async_batches(
    path: &Path,
    what: &str,
    data: Bytes,
    fetch: pq_arrow::FetchOptions,
) -> Batches {
    within_cap(path, what, move || -> Batches {
        use futures::StreamExt;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let mut batches = Vec::new();
            let built =
                pq_arrow::ParquetRecordBatchStreamBuilder::new_with_options(InPieces(data), fetch)
                    .await
                    .and_then(|b| b.with_batch_size(1024).build());
            let mut stream = match built {
                Ok(s) => s,
                Err(e) => return (batches, Some(e.to_string())),
            };
            while let Some(b) = stream.next().await {
                match b {
                    Ok(b) => batches.push(b),
                    Err(e) => return (batches, Some(e.to_string())),
                }
            }
            (batches, None)
        })
    })
}

/// The async reader shares the sync reader's core, but fetches on its own:
/// ranges merged and prefetched, answers taken in pieces, pages joined
/// across pieces. On mutated files it must return what the sync reader
/// returns, batch for batch, and end in the same error: a damaged footer's
/// ranges, lengths and counts must not reach past the checks by way of
/// its fetching. Every `STRIDE`-th mutation of every file, with the
/// default fetch options and with options that make a request of every
/// range (nothing merged, nothing prefetched, an 8-byte footer guess),
/// both checking the magic at the start of the file as the sync reader
/// does.
#[test]
fn mutated_files_read_async_as_sync() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    const STRIDE: usize = 10;
    // The magic at the start of the file checked by both, as the sync
    // reader always does: the async reader leaves it unchecked by default
    // (a request saved), so a damaged one would otherwise differ.
    let default = pq_arrow::FetchOptions::default().with_head_check(true);
    let tiny = default
        .clone()
        .with_coalesce_gap(0)
        .with_prefetch_bytes(0)
        .with_max_requests(1)
        .with_footer_prefetch(8);
    let started = Instant::now();
    let (mut seen, mut compared, mut ended_in_error) = (0usize, 0usize, 0usize);
    let mut differ = Vec::new();
    for (i, path) in files().iter().enumerate() {
        let file = Bytes::from(std::fs::read(path).unwrap());
        let seed = 0x5EED_0000 + i as u64;
        mutations(&file, seed, &mut |what, data| {
            seen += 1;
            if !seen.is_multiple_of(STRIDE) {
                return;
            }
            compared += 1;
            let expected = read_sync_batches(path, &what, data.clone());
            ended_in_error += usize::from(expected.1.is_some());
            for (options, fetch) in [("default", default.clone()), ("tiny", tiny.clone())] {
                let got = read_async_batches(path, &what, data.clone(), fetch);
                if got != expected {
                    let name = path.file_name().unwrap_or_default().to_string_lossy();
                    let show = |(b, e): &Batches| {
                        format!(
                            "{} batches, {}",
                            b.len(),
                            e.as_deref().unwrap_or("no error")
                        )
                    };
                    differ.push(format!(
                        "{name} ({what}), {options} fetch options: async {}; sync {}",
                        show(&got),
                        show(&expected)
                    ));
                }
            }
        });
    }
    eprintln!(
        "{compared} mutated files read async and sync in {:.1?}, {ended_in_error} ending in an error",
        started.elapsed()
    );
    for d in &differ {
        eprintln!("{d}");
    }
    assert!(compared > 100, "only {compared} mutations compared");
    assert!(
        ended_in_error > compared / 10,
        "only {ended_in_error} of {compared} mutations ended in an error: are they mutating?"
    );
    assert!(
        differ.is_empty(),
        "{} mutated files read differently",
        differ.len()
    );
}
