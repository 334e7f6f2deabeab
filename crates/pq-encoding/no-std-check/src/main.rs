//! A `#![no_std]` binary that round-trips a few encodings through
//! pq-encoding built without its `std` feature. It links against the C
//! library only for `malloc`/`free`/`exit`; exit status 0 means success.
#![no_std]
#![no_main]

extern crate alloc;

use alloc::vec::Vec;
use core::alloc::{GlobalAlloc, Layout};

use pq_encoding::ByteArrayDecode;
use pq_encoding::{alp, byte_stream_split, delta_binary_packed, delta_byte_array, plain, rle};

#[link(name = "c")]
unsafe extern "C" {
    fn aligned_alloc(align: usize, size: usize) -> *mut u8;
    fn free(p: *mut u8);
    fn exit(code: i32) -> !;
}

struct Malloc;

unsafe impl GlobalAlloc for Malloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: aligned_alloc wants a size that is a multiple of the alignment.
        let size = layout.size().div_ceil(layout.align()) * layout.align();
        unsafe { aligned_alloc(layout.align(), size.max(layout.align())) }
    }
    unsafe fn dealloc(&self, p: *mut u8, _layout: Layout) {
        // SAFETY: p came from aligned_alloc above.
        unsafe { free(p) }
    }
}

#[global_allocator]
static ALLOC: Malloc = Malloc;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: exit never returns.
    unsafe { exit(101) }
}

fn check() -> bool {
    let ints: Vec<i64> = (0..1000).map(|i| i * i - 500).collect();
    let mut buf = Vec::new();
    delta_binary_packed::encode(&ints, &mut buf);
    let mut back = Vec::new();
    let Ok(mut dec) = delta_binary_packed::DeltaBitPackDecoder::<i64>::new(&buf) else { return false };
    if dec.decode_into(&mut back, ints.len()).is_err() || back != ints {
        return false;
    }

    let levels: Vec<u32> = (0..1000).map(|i| (i / 10) % 4).collect();
    let mut buf = Vec::new();
    rle::encode(&levels, 2, &mut buf);
    let mut back: Vec<u32> = Vec::new();
    let Ok(mut dec) = rle::RleDecoder::new(&buf, 2) else { return false };
    if dec.decode_into(&mut back, levels.len()).is_err() || back != levels {
        return false;
    }

    let words = [&b"axis"[..], b"axle", b"babble", b"babyhood"];
    let mut buf = Vec::new();
    if delta_byte_array::encode_delta_byte_array(words, &mut buf).is_err() {
        return false;
    }
    let (mut offsets, mut values) = (Vec::<i32>::new(), Vec::new());
    let Ok(mut dec) = delta_byte_array::DeltaByteArrayDecoder::new(&buf) else { return false };
    if dec.decode(&mut offsets, &mut values, 4) != Ok(4) || values != b"axisaxlebabblebabyhood" {
        return false;
    }

    // BYTE_STREAM_SPLIT picks its transpose without CPU detection here.
    let floats: Vec<f64> = (0..3000).map(|i| f64::from(i) * 0.37).collect();
    let mut buf = Vec::new();
    byte_stream_split::encode(&floats, &mut buf);
    let mut back = alloc::vec![0f64; floats.len()];
    let Ok(mut dec) = byte_stream_split::ByteStreamSplitDecoder::new(&buf, 8) else { return false };
    if dec.decode(&mut back) != Ok(floats.len()) || back != floats {
        return false;
    }

    let floats: Vec<f64> = (0..3000).map(|i| f64::from(i) * 0.01).collect();
    let mut buf = Vec::new();
    alp::encode(&floats, &mut buf);
    let mut back = Vec::new();
    let Ok(mut dec) = alp::AlpDecoder::<f64>::new(&buf) else { return false };
    if dec.decode_into(&mut back, floats.len()).is_err() || back != floats {
        return false;
    }

    let mut buf = Vec::new();
    plain::encode(&[1.5f32, -2.0], &mut buf);
    let mut out = [0f32; 2];
    plain::PlainDecoder::<f32>::new(&buf).decode(&mut out) == Ok(2) && out == [1.5, -2.0]
}

#[unsafe(no_mangle)]
extern "C" fn main(_argc: i32, _argv: *const *const u8) -> i32 {
    if check() { 0 } else { 1 }
}

/// The prebuilt `alloc` refers to the unwinding personality even though
/// `panic = "abort"` never unwinds; this stub satisfies the linker.
#[unsafe(no_mangle)]
extern "C" fn rust_eh_personality() {}
