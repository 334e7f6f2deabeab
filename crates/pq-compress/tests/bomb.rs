//! Decompression bombs: tiny inputs that expand far past the declared size
//! must fail without allocating for their full output.
//!
//! A counting global allocator records the peak of live heap bytes while
//! each bomb is decompressed. It sees Rust allocations only: libzstd's
//! context comes from C `malloc` (zstd decodes straight into the output
//! slice and needs no window buffer). Everything runs in one `#[test]` so no other
//! test thread allocates meanwhile.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: failures should panic

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use pq_compress::{Codec, Error, Limits, compress, decompress};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to `System`, only adding bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
            PEAK.fetch_max(live, Ordering::SeqCst);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
            PEAK.fetch_max(live, Ordering::SeqCst);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                let grow = new_size - layout.size();
                let live = LIVE.fetch_add(grow, Ordering::SeqCst) + grow;
                PEAK.fetch_max(live, Ordering::SeqCst);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::SeqCst);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Peak extra heap bytes while running `f`.
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let r = f();
    (r, PEAK.load(Ordering::SeqCst) - base)
}

const DECLARED: usize = 1 << 20;
/// What every bomb expands to: 32 times the declared size.
const EXPANDED: usize = 32 << 20;

/// Working memory a decoder may need besides the output, fixed by the codec
/// and the stream header, not by how much the stream expands: brotli's ring
/// buffer (the stream's window, 4 MiB at the default lgwin 22) and Huffman
/// tables (about 2 MiB measured), the LZ4 frame decoder's block buffers
/// (4 MiB blocks), gzip's 32 KiB window, zstd's context.
fn decoder_state_allowance(codec: Codec, body: &[u8]) -> usize {
    match codec {
        Codec::Brotli => 7 << 20,
        Codec::Lz4 if body.starts_with(&[0x04, 0x22, 0x4d, 0x18]) => 9 << 20,
        _ => 256 << 10,
    }
}

fn check(name: &str, codec: Codec, body: &[u8]) {
    assert!(
        body.len() * 50 < EXPANDED,
        "{name}: bomb of {} bytes is not tiny",
        body.len()
    );
    let mut out = Vec::new();
    let (result, peak) =
        peak_during(|| decompress(codec, body, DECLARED, &mut out, &Limits::default()));
    let err = result.expect_err(name);
    assert!(
        matches!(
            err,
            Error::OutputTooLarge {
                declared: DECLARED,
                ..
            } | Error::SizeMismatch {
                declared: DECLARED,
                ..
            }
        ),
        "{name}: {err}"
    );
    let bound = DECLARED + decoder_state_allowance(codec, body);
    println!(
        "{name}: {} byte bomb, peak heap {peak} bytes (bound {bound}): {err}",
        body.len()
    );
    assert!(
        peak <= bound,
        "{name}: allocated {peak} bytes, bound {bound}"
    );
}

#[test]
fn bombs_fail_within_the_declared_size() {
    let zeros = vec![0u8; EXPANDED];
    // A 64 MiB declared size with a 1 MiB limit is refused before allocating.
    let mut out = Vec::new();
    let (r, peak) = peak_during(|| {
        decompress(
            Codec::Zstd,
            b"whatever",
            EXPANDED,
            &mut out,
            &Limits::new().with_max_uncompressed_size(DECLARED),
        )
    });
    assert!(matches!(r, Err(Error::SizeLimitExceeded { .. })));
    assert_eq!(peak, 0, "allocated before rejecting an over-limit size");

    for codec in Codec::ALL {
        if !codec.is_available() || codec == Codec::Uncompressed {
            continue;
        }
        let mut body = Vec::new();
        let input = if codec == Codec::Snappy {
            // Snappy tops out near 21:1; its header states the real size.
            &zeros[..EXPANDED / 16]
        } else {
            &zeros[..]
        };
        compress(codec, input, &mut body, None).unwrap();
        if codec != Codec::Snappy {
            check(codec.name(), codec, &body);
        } else {
            let mut out = Vec::new();
            let (r, peak) =
                peak_during(|| decompress(codec, &body, DECLARED, &mut out, &Limits::default()));
            assert!(matches!(r, Err(Error::SizeMismatch { .. })), "{r:?}");
            assert!(peak <= DECLARED, "snappy allocated {peak}");
        }
    }

    #[cfg(feature = "zstd")]
    {
        use std::io::Write;
        let mut enc = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
        enc.include_contentsize(false).unwrap();
        enc.write_all(&zeros).unwrap();
        check(
            "zstd without content size",
            Codec::Zstd,
            &enc.finish().unwrap(),
        );
    }
    #[cfg(feature = "lz4")]
    {
        use std::io::Write;
        // A raw block read through the deprecated LZ4 codec's fallback.
        let block = lz4_flex::block::compress(&zeros);
        check("LZ4 raw-block fallback", Codec::Lz4, &block);
        // An LZ4 frame read through the fallback.
        let mut enc = lz4_flex::frame::FrameEncoder::new(Vec::new());
        enc.write_all(&zeros).unwrap();
        check("LZ4 frame fallback", Codec::Lz4, &enc.finish().unwrap());
        // A Hadoop header that lies about its size.
        let mut lying = Vec::new();
        lying.extend_from_slice(&(DECLARED as u32).to_be_bytes());
        lying.extend_from_slice(&(block.len() as u32).to_be_bytes());
        lying.extend_from_slice(&block);
        check("Hadoop LZ4 lying header", Codec::Lz4, &lying);
    }
    #[cfg(feature = "gzip")]
    {
        // Many members, each small: the bomb spreads across members.
        let mut body = Vec::new();
        let member_input = &zeros[..EXPANDED / 64];
        let mut member = Vec::new();
        compress(Codec::Gzip, member_input, &mut member, Some(9)).unwrap();
        for _ in 0..64 {
            body.extend_from_slice(&member);
        }
        check("gzip multi-member", Codec::Gzip, &body);
    }
}
