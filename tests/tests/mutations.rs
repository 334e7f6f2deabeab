//! Mutation test: every fixture and corpus file, mutated in seeded ways that
//! aim at the reader's weak spots, read whole through pq-arrow. Each read must
//! end in `Ok` or `Err`: no panic, no hang (a per-file time cap), and no
//! allocation past a cap (a counting global allocator).
//!
//! The mutations: bit flips, random byte runs, truncation at every offset of
//! the footer, every integer field of the footer and of the first page
//! headers set to 0, -1, huge and just past the end, page headers with their
//! two sizes swapped, and huge varints planted in the data.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use pq_format::{PageHeader, ThriftDecode, ThriftEncode};

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
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        if live > ALLOC_CAP {
            // Report and stop: unwinding out of an allocator is not allowed.
            report_cap("an allocation takes the heap past the 1 GiB cap");
        }
        // SAFETY: same layout contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let grow = new_size - layout.size();
            let live = LIVE.fetch_add(grow, Ordering::Relaxed) + grow;
            if live > ALLOC_CAP {
                report_cap("a reallocation takes the heap past the 1 GiB cap");
            }
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// SplitMix64, seeded per file, so every run mutates the same way.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

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
    for i in 0..8 {
        let mut m = file.to_vec();
        for _ in 0..=rng.below(8) {
            let at = rng.below(n);
            m[at] ^= 1 << rng.below(8);
        }
        out(format!("bit flips #{i}"), m.into());
    }
    for i in 0..4 {
        let mut m = file.to_vec();
        let at = rng.below(n);
        let len = (1 + rng.below(16)).min(n - at);
        for b in &mut m[at..at + len] {
            *b = rng.next() as u8;
        }
        out(format!("random run #{i} at {at}"), m.into());
    }
    for i in 0..4 {
        // A 10-byte varint of all ones planted in the data.
        let at = rng.below(n.saturating_sub(12));
        let mut m = file.to_vec();
        m[at..at + 10]
            .copy_from_slice(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
        out(format!("huge varint #{i} at {at}"), m.into());
    }
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
        fields.remove(rng.below(fields.len()));
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

/// Reads `data` whole, on another thread, within the time cap.
fn read_within_cap(path: &Path, what: &str, data: Bytes) {
    {
        let mut current = CURRENT.lock().unwrap();
        current.clear();
        current.push_str(&format!("{} ({what})", path.display()));
    }
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        pq_tests::harness::read_bytes(data);
        let _ = tx.send(());
    });
    match rx.recv_timeout(TIME_CAP) {
        Ok(()) => {}
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

#[test]
fn mutated_files_end_in_ok_or_err() {
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
