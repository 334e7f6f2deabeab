//! Decompression bombs: tiny inputs that expand far past the declared size
//! must fail without allocating for their full output.
//!
//! A counting global allocator records the peak of live heap bytes while
//! each bomb is decompressed. It sees Rust allocations only: libzstd's
//! context comes from C `malloc` (zstd decodes straight into the output
//! slice and needs no window buffer; its streaming window buffer, used only
//! when the output must grow, is bounded by the frame). Every `#[test]` holds
//! [`SERIAL`] for its whole run so no other test thread allocates meanwhile.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: failures should panic

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
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

/// Held by every test: peaks are only meaningful with one test running.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Heap bytes counted while a check allocates nothing for its output: not
/// 0, since the test harness's own thread may allocate a few bytes
/// meanwhile (it prints other tests' results; a CI run once counted 35).
const HARNESS_NOISE: usize = 1024;

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
    let _serial = serial();
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
    assert!(
        peak < HARNESS_NOISE,
        "allocated {peak} bytes before rejecting an over-limit size"
    );

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

/// What a page header can declare, and the limit the Arrow reader sets.
const HUGE: usize = i32::MAX as usize;

fn huge_limits() -> Limits {
    Limits::new().with_max_uncompressed_size(HUGE)
}

/// Deterministic filler that does not compress.
fn noise(len: usize, mut seed: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 24) as u8
        })
        .collect()
}

fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Small bodies, valid or not, that claim (or are declared with) `i32::MAX`
/// bytes for `codec`.
fn small_bodies(codec: Codec) -> Vec<(&'static str, Vec<u8>)> {
    let page = b"a small page of values, a small page of values. ".repeat(40);
    let mut valid = Vec::new();
    compress(codec, &page, &mut valid, None).unwrap();
    let mut bodies = vec![
        ("valid page", valid),
        ("garbage", noise(100, 7)),
        ("one byte", vec![0]),
    ];
    match codec {
        Codec::Snappy => {
            // The mutation: a header that agrees with the declared size.
            let mut b = Vec::new();
            varint(HUGE as u64, &mut b);
            b.extend_from_slice(&[0x00, b'a', 0xfe, 0x01, 0x00]);
            bodies.push(("header claiming i32::MAX", b));
        }
        Codec::Zstd => {
            // Frame header: single segment, 8-byte content size of i32::MAX,
            // then an RLE block of 128 KiB and garbage.
            let mut b = vec![0x28, 0xb5, 0x2f, 0xfd, 0xe0];
            b.extend_from_slice(&(HUGE as u64).to_le_bytes());
            b.extend_from_slice(&[0x02, 0x00, 0x10, b'x']);
            b.extend_from_slice(&noise(64, 9));
            bodies.push(("frame header claiming i32::MAX", b));
            // Frame without a content size and a large window.
            let mut b = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x88];
            b.extend_from_slice(&noise(64, 11));
            bodies.push(("frame with a 32 MiB window, no content size", b));
        }
        Codec::Gzip => {
            let mut b = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
            b.extend_from_slice(&noise(100, 13));
            bodies.push(("gzip header then garbage", b));
        }
        Codec::Lz4 => {
            let mut b = Vec::new();
            b.extend_from_slice(&(HUGE as u32).to_be_bytes());
            b.extend_from_slice(&4u32.to_be_bytes());
            b.extend_from_slice(&[0x1f, b'a', 0x01, 0x00]);
            bodies.push(("Hadoop header claiming i32::MAX", b));
            let mut b = vec![0x04, 0x22, 0x4d, 0x18, 0x60, 0x70, 0x73];
            b.extend_from_slice(&noise(64, 15));
            bodies.push(("LZ4 frame header then garbage", b));
        }
        _ => {}
    }
    bodies
}

#[test]
fn huge_declared_sizes_allocate_little() {
    let _serial = serial();
    for codec in Codec::ALL {
        if !codec.is_available() {
            continue;
        }
        for (name, body) in small_bodies(codec) {
            let mut out = Vec::new();
            let (result, peak) =
                peak_during(|| decompress(codec, &body, HUGE, &mut out, &huge_limits()));
            let err = result.expect_err(name);
            println!(
                "{codec} {name}: {} byte body, peak heap {peak} bytes: {err}",
                body.len()
            );
            // Brotli may set up its ring buffer (the stream's window, up to
            // 16 MiB) and tables; every other decoder is far below this.
            let bound = if codec == Codec::Brotli {
                16 << 20
            } else {
                1 << 20
            };
            assert!(peak < bound, "{codec} {name}: allocated {peak} bytes");
        }
    }
}

/// Bombs whose real output is far below the declared `i32::MAX`: the output
/// grows no further than twice what they produce (or they are rejected up
/// front by the codec's ratio bound).
#[test]
fn bombs_under_a_huge_declared_size_allocate_what_they_produce() {
    let _serial = serial();
    let zeros = vec![0u8; EXPANDED];
    for codec in Codec::ALL {
        if !codec.is_available() || codec == Codec::Uncompressed {
            continue;
        }
        let mut body = Vec::new();
        compress(codec, &zeros, &mut body, None).unwrap();
        let mut out = Vec::new();
        let (result, peak) =
            peak_during(|| decompress(codec, &body, HUGE, &mut out, &huge_limits()));
        let err = result.unwrap_err();
        println!("{codec}: {} byte bomb, peak heap {peak}: {err}", body.len());
        assert!(
            matches!(
                err,
                Error::SizeMismatch { declared: HUGE, .. }
                    | Error::SizeUnreachable { declared: HUGE, .. }
            ),
            "{codec}: {err}"
        );
        let bound = 2 * EXPANDED + decoder_state_allowance(codec, &body);
        assert!(peak <= bound, "{codec}: allocated {peak}, bound {bound}");
    }
    #[cfg(feature = "zstd")]
    {
        use std::io::Write;
        let mut enc = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
        enc.include_contentsize(false).unwrap();
        enc.write_all(&zeros).unwrap();
        let body = enc.finish().unwrap();
        let mut out = Vec::new();
        let (result, peak) =
            peak_during(|| decompress(Codec::Zstd, &body, HUGE, &mut out, &huge_limits()));
        let err = result.unwrap_err();
        println!("zstd without content size: peak heap {peak}: {err}");
        assert!(
            matches!(
                err,
                Error::SizeMismatch {
                    declared: HUGE,
                    actual: EXPANDED,
                    ..
                }
            ),
            "{err}"
        );
        assert!(peak <= 2 * EXPANDED, "allocated {peak}");
    }
}

/// Pages of realistic size decode to exactly their declared size under the
/// raised limit, allocating about the page once, and nothing more once `out`
/// is warm.
#[test]
fn real_pages_decode_and_allocate_the_page() {
    let _serial = serial();
    let mut page = Vec::new();
    let mut i = 0u64;
    while page.len() < 1 << 20 {
        page.extend_from_slice(&(i * 7 / 3).to_le_bytes());
        page.extend_from_slice(b"value ");
        i += 1;
    }
    page.extend_from_slice(&noise(100_000, 3));
    for codec in Codec::ALL {
        if !codec.is_available() {
            continue;
        }
        let mut body = Vec::new();
        compress(codec, &page, &mut body, None).unwrap();
        let mut dec = pq_compress::Decompressor::new(huge_limits());
        let mut out = Vec::new();
        let (r, cold) = peak_during(|| dec.decompress(codec, &body, page.len(), &mut out));
        r.unwrap();
        assert!(out == page, "{codec}");
        let (r, warm) = peak_during(|| dec.decompress(codec, &body, page.len(), &mut out));
        r.unwrap();
        assert!(out == page, "{codec}");
        println!(
            "{codec}: {} -> {} bytes, peak heap cold {cold}, warm {warm}",
            body.len(),
            page.len()
        );
        let allowance = decoder_state_allowance(codec, &body);
        assert!(cold <= page.len() + allowance, "{codec}: cold {cold}");
        if matches!(
            codec,
            Codec::Uncompressed | Codec::Snappy | Codec::Zstd | Codec::Lz4Raw | Codec::Lz4
        ) {
            assert!(
                warm < HARNESS_NOISE,
                "{codec}: allocated {warm} bytes once warm"
            );
        }
    }
}

/// Checks that `body` decodes to exactly `len` bytes, and that its codec's
/// ratio bound rejects `bound + 1` before allocating (where the bound is
/// the `max` the codec reports for an unreachable size).
fn at_the_bound(name: &str, codec: Codec, body: &[u8], len: usize, expected_max: usize) {
    let mut out = Vec::new();
    decompress(codec, body, len, &mut out, &huge_limits()).expect(name);
    assert_eq!(out.len(), len, "{name}");
    assert!(
        len <= expected_max,
        "{name}: {len} bytes from {} is above the bound {expected_max}",
        body.len()
    );
    let ratio = len as f64 / body.len() as f64;
    println!(
        "{name}: {} -> {len} bytes, ratio {ratio:.2}, bound {expected_max}",
        body.len()
    );
    if expected_max < HUGE {
        let mut out = Vec::new();
        let (r, peak) =
            peak_during(|| decompress(codec, body, expected_max + 1, &mut out, &huge_limits()));
        let err = r.unwrap_err();
        if codec != Codec::Snappy {
            // Snappy's own header disagrees first.
            assert!(
                matches!(err, Error::SizeUnreachable { max, .. } if max == expected_max),
                "{name}: {err}"
            );
        }
        assert!(
            peak < HARNESS_NOISE,
            "{name}: allocated {peak} bytes before rejecting"
        );
    }
}

#[test]
fn maximal_ratio_inputs_decode() {
    let _serial = serial();
    #[cfg(feature = "snappy")]
    {
        // [header][literal "a"][copy-2 of 64 at offset 1] * k: 64/3 per byte.
        let k = 100_000;
        let len = 1 + 64 * k;
        let mut body = Vec::new();
        varint(len as u64, &mut body);
        body.extend_from_slice(&[0x00, b'a']);
        for _ in 0..k {
            body.extend_from_slice(&[0xfe, 0x01, 0x00]);
        }
        let max = body.len() * 64 / 3;
        at_the_bound("snappy, hand-made", Codec::Snappy, &body, len, max);
        // A header claiming one byte more than such a block can hold.
        let mut lying = Vec::new();
        varint((max + 1) as u64, &mut lying);
        lying.extend_from_slice(&body[body.len() - 3 * k - 2..]);
        let mut out = Vec::new();
        let claimed = max + 1;
        let (r, peak) =
            peak_during(|| decompress(Codec::Snappy, &lying, claimed, &mut out, &huge_limits()));
        let err = r.unwrap_err();
        assert!(
            matches!(err, Error::SizeUnreachable { declared, .. } if declared == claimed),
            "{err}"
        );
        assert!(peak < HARNESS_NOISE, "allocated {peak} bytes");
        // The encoder's own best: 2 MiB of zeros.
        let zeros = vec![0u8; 2 << 20];
        let mut body = Vec::new();
        compress(Codec::Snappy, &zeros, &mut body, None).unwrap();
        let max = body.len() * 64 / 3;
        at_the_bound("snappy, zeros", Codec::Snappy, &body, zeros.len(), max);
    }
    #[cfg(feature = "lz4")]
    {
        // [token: 1 literal, match 15+][a][offset 1][255 * (m - 1), 254][token: 0]
        let m = 40_000;
        let mut body = vec![0x1f, b'a', 0x01, 0x00];
        body.extend(std::iter::repeat_n(255u8, m - 1));
        body.extend_from_slice(&[254, 0x00]);
        let len = 1 + 18 + 255 * m;
        for codec in [Codec::Lz4Raw, Codec::Lz4] {
            at_the_bound(
                &format!("{codec}, hand-made"),
                codec,
                &body,
                len,
                body.len() * 255,
            );
        }
        let zeros = vec![0u8; 16 << 20];
        let block = lz4_flex::block::compress(&zeros);
        for codec in [Codec::Lz4Raw, Codec::Lz4] {
            at_the_bound(
                &format!("{codec}, zeros"),
                codec,
                &block,
                zeros.len(),
                block.len() * 255,
            );
        }
    }
    #[cfg(feature = "gzip")]
    {
        let zeros = vec![0u8; 16 << 20];
        let mut body = Vec::new();
        compress(Codec::Gzip, &zeros, &mut body, Some(9)).unwrap();
        assert!(zeros.len() > body.len() * 1000, "gzip ratio below 1000");
        at_the_bound(
            "gzip level 9, zeros",
            Codec::Gzip,
            &body,
            zeros.len(),
            body.len() * 1032,
        );
    }
}
