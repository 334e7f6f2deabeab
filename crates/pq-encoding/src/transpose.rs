//! The byte transposes behind BYTE_STREAM_SPLIT.
//!
//! [`join`] gathers byte `k` of each value from stream `k`; [`split`] is the
//! inverse. Widths 2 and 4 are plain loops the compiler turns into vector
//! shuffles by itself. Every other width goes through eight streams at a
//! time, where the compiler gives up, so those are written by hand:
//!
//! * everywhere: an 8 × 8 byte transpose in eight `u64`s (three rounds of
//!   masked shifts), about 7× the per-byte loop;
//! * x86_64: SSE2 (always present there) unpacks 16 values per step, about
//!   1.8× the `u64` transpose;
//! * x86_64 with AVX2: 32 values per step for 8-byte values, another ~10%.
//!   With the `std` feature AVX2 is detected at run time
//!   (`is_x86_feature_detected!`, which caches its answer); without it, only
//!   when the build enables it (`-C target-feature=+avx2` or a `target-cpu`
//!   that has it).
//!
//! Each kernel handles the whole blocks it can from a starting value and
//! returns where it stopped, so AVX2 hands its tail to SSE2, and SSE2 its
//! tail to the portable code.

/// Joins `out.len() / width` values: byte `k` of value `i` is
/// `data[k * stride + start + i]`. Streams that do not fit in `data` (the
/// caller never asks for them) are left unwritten.
pub(crate) fn join(data: &[u8], stride: usize, start: usize, width: usize, out: &mut [u8]) {
    if width == 0 {
        return;
    }
    let n = out.len() / width;
    let out = &mut out[..n * width];
    match width {
        2 => join_small::<2>(data, stride, start, out),
        4 => join_small::<4>(data, stride, start, out),
        _ => {
            let mut k = 0;
            while k + 8 <= width {
                if let (Some(s), Some(o)) =
                    (streams::<8>(data, stride, start, k, n), out.get_mut(k..))
                {
                    join8(&s, o, width);
                }
                k += 8;
            }
            for k in k..width {
                let Some([s]) = streams::<1>(data, stride, start, k, n) else {
                    continue;
                };
                let dst = out.get_mut(k..).unwrap_or_default();
                for (d, &b) in dst.iter_mut().step_by(width).zip(s) {
                    *d = b;
                }
            }
        }
    }
}

/// Splits `src`, values of `width` bytes back to back, into streams: byte
/// `k` of value `i` goes to `dst[k * stride + start + i]`. Streams that do
/// not fit in `dst` (the caller never asks for them) are left unwritten.
pub(crate) fn split(src: &[u8], width: usize, dst: &mut [u8], stride: usize, start: usize) {
    if width == 0 || stride == 0 {
        return;
    }
    let m = src.len() / width;
    let src = &src[..m * width];
    match width {
        2 => split_small::<2>(src, dst, stride, start),
        4 => split_small::<4>(src, dst, stride, start),
        _ => {
            let mut streams = dst
                .chunks_mut(stride)
                .map(|s| s.get_mut(start..).and_then(|s| s.get_mut(..m)));
            let mut k = 0;
            while k + 8 <= width {
                if let (Some(mut d), Some(s)) = (next_streams::<8>(&mut streams), src.get(k..)) {
                    split8(s, width, &mut d);
                }
                k += 8;
            }
            for k in k..width {
                let Some([d]) = next_streams::<1>(&mut streams) else {
                    continue;
                };
                let s = src.get(k..).unwrap_or_default();
                for (d, &b) in d.iter_mut().zip(s.iter().step_by(width)) {
                    *d = b;
                }
            }
        }
    }
}

/// Streams `first..first + K`, each `n` bytes from `start`.
fn streams<const K: usize>(
    data: &[u8],
    stride: usize,
    start: usize,
    first: usize,
    n: usize,
) -> Option<[&[u8]; K]> {
    let mut s = [&[][..]; K];
    for (j, x) in s.iter_mut().enumerate() {
        let at = (first + j).checked_mul(stride)?.checked_add(start)?;
        *x = data.get(at..)?.get(..n)?;
    }
    Some(s)
}

/// The next `K` output streams, or `None` if any is missing.
fn next_streams<'a, const K: usize>(
    it: &mut impl Iterator<Item = Option<&'a mut [u8]>>,
) -> Option<[&'a mut [u8]; K]> {
    let s: [Option<&'a mut [u8]>; K] = core::array::from_fn(|_| it.next().flatten());
    if s.iter().any(Option::is_none) {
        return None;
    }
    Some(s.map(Option::unwrap_or_default))
}

/// `out.len() / W` values of `W` bytes, byte `k` of value `i` from
/// `data[start + k * stride + i]`; nothing if `data` is too short. Indexing
/// from one base is the form the compiler vectorises (from an array of `W`
/// stream slices it did not: 1.9 against 18 GiB/s for W = 4).
#[inline(never)]
fn join_small<const W: usize>(data: &[u8], stride: usize, start: usize, out: &mut [u8]) {
    let n = out.len() / W;
    let fits = (W - 1)
        .checked_mul(stride)
        .and_then(|x| x.checked_add(start)?.checked_add(n))
        .is_some_and(|end| end <= data.len());
    if !fits {
        return;
    }
    // Bounded below only: with the end bound the loop kept a bounds check
    // per byte and was not vectorised; this way it is.
    let src = &data[start..];
    for i in 0..n {
        for k in 0..W {
            out[i * W + k] = src[i + k * stride];
        }
    }
}

/// The inverse of [`join_small`]: value `i` of `src` to
/// `dst[start + k * stride + i]`; nothing if `dst` is too short.
fn split_small<const W: usize>(src: &[u8], dst: &mut [u8], stride: usize, start: usize) {
    let n = src.len() / W;
    let Some(dst) = (W - 1)
        .checked_mul(stride)
        .and_then(|x| x.checked_add(start)?.checked_add(n))
        .and_then(|end| dst.get_mut(start..end))
    else {
        return;
    };
    let src = &src[..n * W];
    for i in 0..n {
        for k in 0..W {
            dst[i + k * stride] = src[i * W + k];
        }
    }
}

/// Joins eight streams of equal length `n`: value `i`'s bytes go to
/// `out[i * out_stride..][..8]`, through the fastest kernel the CPU has.
fn join8(s: &[&[u8]; 8], out: &mut [u8], out_stride: usize) {
    #[allow(unused_mut)]
    let mut from = 0;
    #[cfg(target_arch = "x86_64")]
    {
        if out_stride == 8 && x86::has_avx2() {
            // SAFETY: the CPU has AVX2 (detected at run time with `std`,
            // enabled at compile time without it).
            from = unsafe { x86::join8_avx2(s, out, from) };
        }
        from = x86::join8_sse2(s, out, out_stride, from);
    }
    join8_portable(s, out, out_stride, from);
}

/// Splits bytes `0..8` of each `in_stride`-byte value in `src` into the
/// eight streams `d`, through the fastest kernel the CPU has.
fn split8(src: &[u8], in_stride: usize, d: &mut [&mut [u8]; 8]) {
    #[allow(unused_mut)]
    let mut from = 0;
    #[cfg(target_arch = "x86_64")]
    if in_stride == 8 {
        from = x86::split8_sse2(src, d);
    }
    split8_portable(src, in_stride, d, from);
}

/// An 8 × 8 byte transpose: in `r[k]` byte `j` is moved to `r[j]` byte `k`.
/// Three rounds swap the off-diagonal 1-, 2- then 4-byte blocks.
#[inline(always)]
fn transpose8x8(r: &mut [u64; 8]) {
    macro_rules! swap {
        ($sh:literal, $mask:literal, $($a:literal $b:literal),*) => {$(
            let t = ((r[$a] >> $sh) ^ r[$b]) & $mask;
            r[$b] ^= t;
            r[$a] ^= t << $sh;
        )*};
    }
    swap!(8, 0x00FF_00FF_00FF_00FF, 0 1, 2 3, 4 5, 6 7);
    swap!(16, 0x0000_FFFF_0000_FFFF, 0 2, 1 3, 4 6, 5 7);
    swap!(32, 0x0000_0000_FFFF_FFFF, 0 4, 1 5, 2 6, 3 7);
}

/// [`join8`] without SIMD intrinsics, from value `from` to the end.
pub(crate) fn join8_portable(s: &[&[u8]; 8], out: &mut [u8], out_stride: usize, from: usize) {
    let n = s[0].len();
    let mut i = from;
    if out_stride == 8 {
        // Whole blocks of 8 values, sliced to one length so that the loop
        // has no bounds checks (with them it ran at a third of the speed).
        let s = s.map(|s| s.get(i..).unwrap_or_default().as_chunks::<8>().0);
        let (o, _) = out
            .get_mut(i * 8..)
            .unwrap_or_default()
            .as_chunks_mut::<64>();
        let blocks = s.iter().map(|s| s.len()).fold(o.len(), usize::min);
        let s = s.map(|s| &s[..blocks]);
        for (b, o) in o[..blocks].iter_mut().enumerate() {
            let mut r = [0u64; 8];
            for (r, s) in r.iter_mut().zip(&s) {
                *r = u64::from_le_bytes(s[b]);
            }
            transpose8x8(&mut r);
            let (o, _) = o.as_chunks_mut::<8>();
            for (o, r) in o.iter_mut().zip(&r) {
                *o = r.to_le_bytes();
            }
        }
        i += blocks * 8;
    } else {
        while i + 8 <= n {
            let mut r = [0u64; 8];
            for (r, s) in r.iter_mut().zip(s) {
                let Some(b) = s.get(i..).and_then(<[u8]>::first_chunk::<8>) else {
                    return;
                };
                *r = u64::from_le_bytes(*b);
            }
            transpose8x8(&mut r);
            for (j, r) in r.iter().enumerate() {
                let Some(o) = out
                    .get_mut((i + j) * out_stride..)
                    .and_then(<[u8]>::first_chunk_mut::<8>)
                else {
                    return;
                };
                *o = r.to_le_bytes();
            }
            i += 8;
        }
    }
    for i in i..n {
        let Some(o) = out
            .get_mut(i * out_stride..)
            .and_then(<[u8]>::first_chunk_mut::<8>)
        else {
            return;
        };
        for (o, s) in o.iter_mut().zip(s) {
            *o = s.get(i).copied().unwrap_or(0);
        }
    }
}

/// The inverse of [`join8_portable`] for bytes `0..8` of each `in_stride`-byte
/// value in `src`: byte `k` goes to `d[k]`, from value `from` on.
pub(crate) fn split8_portable(src: &[u8], in_stride: usize, d: &mut [&mut [u8]; 8], from: usize) {
    let n = d.iter().map(|d| d.len()).min().unwrap_or(0);
    let mut i = from;
    while i + 8 <= n {
        let mut r = [0u64; 8];
        for (j, r) in r.iter_mut().enumerate() {
            let Some(b) = src
                .get((i + j) * in_stride..)
                .and_then(<[u8]>::first_chunk::<8>)
            else {
                return;
            };
            *r = u64::from_le_bytes(*b);
        }
        transpose8x8(&mut r);
        for (d, r) in d.iter_mut().zip(&r) {
            if let Some(d) = d.get_mut(i..).and_then(<[u8]>::first_chunk_mut::<8>) {
                *d = r.to_le_bytes();
            }
        }
        i += 8;
    }
    for i in i..n {
        let Some(v) = src.get(i * in_stride..).and_then(<[u8]>::first_chunk::<8>) else {
            return;
        };
        for (d, &b) in d.iter_mut().zip(v) {
            if let Some(d) = d.get_mut(i) {
                *d = b;
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86 {
    use core::arch::x86_64::*;

    /// Whether the AVX2 kernels may run.
    #[cfg(feature = "std")]
    pub(crate) fn has_avx2() -> bool {
        std::is_x86_feature_detected!("avx2")
    }

    /// Whether the AVX2 kernels may run: without `std` there is no
    /// detection, so only when the build targets AVX2.
    #[cfg(not(feature = "std"))]
    pub(crate) fn has_avx2() -> bool {
        cfg!(target_feature = "avx2")
    }

    /// Whether [`super::join8`]'s arguments are consistent: eight streams of
    /// one length `n`, and room in `out` for value `n - 1` at
    /// `(n - 1) * out_stride`. The kernels rely on this for every pointer
    /// they form.
    fn fits(s: &[&[u8]; 8], out: &[u8], out_stride: usize) -> bool {
        let n = s[0].len();
        out_stride >= 8
            && s.iter().all(|s| s.len() == n)
            && (n == 0
                || (n - 1)
                    .checked_mul(out_stride)
                    .and_then(|x| x.checked_add(8))
                    .is_some_and(|end| end <= out.len()))
    }

    /// Three rounds of unpacks turn 8 registers of 16 stream bytes into 8
    /// registers of two 8-byte values each, in value order (within each
    /// 128-bit lane for AVX2, whose unpacks work lane by lane).
    macro_rules! transpose {
        ($s:ident, $u8lo:ident, $u8hi:ident, $u16lo:ident, $u16hi:ident, $u32lo:ident, $u32hi:ident) => {{
            let a0 = $u8lo($s[0], $s[1]);
            let a1 = $u8hi($s[0], $s[1]);
            let a2 = $u8lo($s[2], $s[3]);
            let a3 = $u8hi($s[2], $s[3]);
            let a4 = $u8lo($s[4], $s[5]);
            let a5 = $u8hi($s[4], $s[5]);
            let a6 = $u8lo($s[6], $s[7]);
            let a7 = $u8hi($s[6], $s[7]);
            let b0 = $u16lo(a0, a2);
            let b1 = $u16hi(a0, a2);
            let b2 = $u16lo(a1, a3);
            let b3 = $u16hi(a1, a3);
            let b4 = $u16lo(a4, a6);
            let b5 = $u16hi(a4, a6);
            let b6 = $u16lo(a5, a7);
            let b7 = $u16hi(a5, a7);
            [
                $u32lo(b0, b4),
                $u32hi(b0, b4),
                $u32lo(b1, b5),
                $u32hi(b1, b5),
                $u32lo(b2, b6),
                $u32hi(b2, b6),
                $u32lo(b3, b7),
                $u32hi(b3, b7),
            ]
        }};
    }

    /// [`super::join8`] with SSE2, 16 values per step, from value `from`;
    /// returns the first value not written.
    pub(crate) fn join8_sse2(
        s: &[&[u8]; 8],
        out: &mut [u8],
        out_stride: usize,
        from: usize,
    ) -> usize {
        // SAFETY: SSE2 is part of the x86_64 baseline, every such CPU has it.
        unsafe { join8_sse2_tf(s, out, out_stride, from) }
    }

    /// [`join8_sse2`]; the attribute lets the intrinsics inline.
    #[target_feature(enable = "sse2")]
    fn join8_sse2_tf(s: &[&[u8]; 8], out: &mut [u8], out_stride: usize, from: usize) -> usize {
        if !fits(s, out, out_stride) {
            return from;
        }
        let n = s[0].len();
        let p = s.map(<[u8]>::as_ptr);
        let mut i = from;
        // 16 values from `i` on, as 8 registers of two values each.
        let step = |i: usize| {
            // SAFETY: callers keep `i + 16 <= n`, the length of every
            // stream (`fits`); `loadu` needs no alignment.
            let v = p.map(|p| unsafe { _mm_loadu_si128(p.add(i).cast()) });
            transpose!(
                v,
                _mm_unpacklo_epi8,
                _mm_unpackhi_epi8,
                _mm_unpacklo_epi16,
                _mm_unpackhi_epi16,
                _mm_unpacklo_epi32,
                _mm_unpackhi_epi32
            )
        };
        // Two loops, not one with a branch inside: sharing one loop, the
        // strided addresses took every register and the contiguous case
        // ran at half speed.
        if out_stride == 8 {
            let o = out.as_mut_ptr();
            while i + 16 <= n {
                for (j, r) in step(i).into_iter().enumerate() {
                    // SAFETY: bytes `i * 8 + 16 * j..+16` lie below
                    // `(i + 16) * 8 <= n * 8 <= out.len()` (`fits`);
                    // `storeu` needs no alignment.
                    unsafe { _mm_storeu_si128(o.add(i * 8 + 16 * j).cast(), r) };
                }
                i += 16;
            }
        } else {
            while i + 16 <= n {
                // Value `i`; each store moves on by one value.
                // SAFETY: `i < n`, so this is within `out` (`fits`).
                let mut q = unsafe { out.as_mut_ptr().add(i * out_stride) };
                for r in step(i) {
                    // SAFETY: `q` is value `v` then `v + 1`, both below `n`,
                    // and value `v` ends at `v * out_stride + 8 <=
                    // out.len()` (`fits`); these stores need no alignment.
                    // (`wrapping_add`: the last step may point past `out`,
                    // where nothing is stored.)
                    unsafe {
                        _mm_storel_epi64(q.cast(), r);
                        q = q.wrapping_add(out_stride);
                        _mm_storeh_pd(q.cast(), _mm_castsi128_pd(r));
                    }
                    q = q.wrapping_add(out_stride);
                }
                i += 16;
            }
        }
        i
    }

    /// [`super::split8`] of 8-byte values with SSE2, 16 values per step;
    /// returns the first value not split.
    pub(crate) fn split8_sse2(src: &[u8], d: &mut [&mut [u8]; 8]) -> usize {
        // SAFETY: SSE2 is part of the x86_64 baseline, every such CPU has it.
        unsafe { split8_sse2_tf(src, d) }
    }

    /// [`split8_sse2`]; the attribute lets the intrinsics inline.
    #[target_feature(enable = "sse2")]
    fn split8_sse2_tf(src: &[u8], d: &mut [&mut [u8]; 8]) -> usize {
        let n = d.iter().map(|d| d.len()).fold(src.len() / 8, usize::min);
        let p = src.as_ptr();
        let o = d.each_mut().map(|d| d.as_mut_ptr());
        let mut i = 0;
        while i + 16 <= n {
            // SAFETY: bytes `i * 8..(i + 16) * 8` lie within `n * 8 <=
            // src.len()`; `loadu` needs no alignment.
            let mut r: [__m128i; 8] =
                core::array::from_fn(|j| unsafe { _mm_loadu_si128(p.add(i * 8 + 16 * j).cast()) });
            // Register `j` holds values `2j, 2j + 1`. Each round pairs
            // registers `m` and `m + 4` and interleaves their bytes; after
            // four, register `k` holds byte `k` of the 16 values in order.
            for _ in 0..4 {
                r = [
                    _mm_unpacklo_epi8(r[0], r[4]),
                    _mm_unpackhi_epi8(r[0], r[4]),
                    _mm_unpacklo_epi8(r[1], r[5]),
                    _mm_unpackhi_epi8(r[1], r[5]),
                    _mm_unpacklo_epi8(r[2], r[6]),
                    _mm_unpackhi_epi8(r[2], r[6]),
                    _mm_unpacklo_epi8(r[3], r[7]),
                    _mm_unpackhi_epi8(r[3], r[7]),
                ];
            }
            for (o, r) in o.iter().zip(r) {
                // SAFETY: `i + 16 <= n <= ` every stream's length; `storeu`
                // needs no alignment.
                unsafe { _mm_storeu_si128(o.add(i).cast(), r) };
            }
            i += 16;
        }
        i
    }

    /// [`super::join8`] for 8-byte values (`out_stride` 8) with AVX2, 32
    /// values per step, from value `from`; returns the first value not
    /// written.
    #[target_feature(enable = "avx2")]
    pub(crate) fn join8_avx2(s: &[&[u8]; 8], out: &mut [u8], from: usize) -> usize {
        if !fits(s, out, 8) {
            return from;
        }
        let n = s[0].len();
        let p = s.map(<[u8]>::as_ptr);
        let o = out.as_mut_ptr();
        let mut i = from;
        while i + 32 <= n {
            // SAFETY: `i + 32 <= n`, the length of every stream (`fits`);
            // `loadu` needs no alignment.
            let v = p.map(|p| unsafe { _mm256_loadu_si256(p.add(i).cast()) });
            // Low lanes hold values `i..i + 16`, high lanes the next 16.
            let r = transpose!(
                v,
                _mm256_unpacklo_epi8,
                _mm256_unpackhi_epi8,
                _mm256_unpacklo_epi16,
                _mm256_unpackhi_epi16,
                _mm256_unpacklo_epi32,
                _mm256_unpackhi_epi32
            );
            let w = [
                _mm256_permute2x128_si256::<0x20>(r[0], r[1]),
                _mm256_permute2x128_si256::<0x20>(r[2], r[3]),
                _mm256_permute2x128_si256::<0x20>(r[4], r[5]),
                _mm256_permute2x128_si256::<0x20>(r[6], r[7]),
                _mm256_permute2x128_si256::<0x31>(r[0], r[1]),
                _mm256_permute2x128_si256::<0x31>(r[2], r[3]),
                _mm256_permute2x128_si256::<0x31>(r[4], r[5]),
                _mm256_permute2x128_si256::<0x31>(r[6], r[7]),
            ];
            for (j, w) in w.into_iter().enumerate() {
                // SAFETY: bytes `i * 8 + 32 * j..+32` lie below
                // `(i + 32) * 8 <= n * 8 <= out.len()` (`fits`); `storeu`
                // needs no alignment.
                unsafe { _mm256_storeu_si256(o.add(i * 8 + 32 * j).cast(), w) };
            }
            i += 32;
        }
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;
    use proptest::prelude::*;

    /// The definition, one byte at a time.
    fn join_ref(data: &[u8], width: usize) -> Vec<u8> {
        let n = data.len() / width;
        (0..n * width)
            .map(|x| data[(x % width) * n + x / width])
            .collect()
    }

    fn eight(data: &[u8], n: usize) -> [&[u8]; 8] {
        core::array::from_fn(|k| &data[k * n..(k + 1) * n])
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Every width and start offset against the definition, and split
        /// as the inverse of join.
        #[test]
        fn join_split(width in 1usize..40, n in 0usize..300, start_frac in 0.0f64..1.0, seed: u64) {
            let data: Vec<u8> = (0..n * width)
                .map(|i| (seed.wrapping_mul(i as u64 + 1) >> 13) as u8)
                .collect();
            let start = ((n as f64) * start_frac) as usize;
            let want = join_ref(&data, width);
            let mut out = vec![0u8; (n - start) * width];
            join(&data, n, start, width, &mut out);
            prop_assert_eq!(&out[..], &want[start * width..]);
            let mut back = vec![0u8; n * width];
            split(&want[..start * width], width, &mut back, n, 0);
            split(&want[start * width..], width, &mut back, n, start);
            prop_assert_eq!(back, data);
        }

        /// The SIMD kernels write exactly what the portable one does, for
        /// every output stride, from any starting value.
        #[test]
        fn kernels_agree(n in 0usize..200, extra in 0usize..3, from_frac in 0.0f64..1.0, seed: u64) {
            let data: Vec<u8> = (0..n * 8)
                .map(|i| (seed.wrapping_mul(i as u64 + 7) >> 17) as u8)
                .collect();
            let s = eight(&data, n);
            let from = ((n as f64) * from_frac) as usize;
            let stride = 8 + 4 * extra;
            let len = n * stride;
            let mut want = vec![0u8; len];
            join8_portable(&s, &mut want, stride, from);
            // The portable kernel is itself the definition.
            for i in 0..n {
                for k in 0..8 {
                    let b = if i < from { 0 } else { data[k * n + i] };
                    prop_assert_eq!(want[i * stride + k], b);
                }
            }
            #[cfg(target_arch = "x86_64")]
            {
                let mut got = vec![0u8; len];
                let done = x86::join8_sse2(&s, &mut got, stride, from);
                prop_assert!(done >= from && done <= n && n - done < 16);
                join8_portable(&s, &mut got, stride, done);
                prop_assert_eq!(&got, &want);
                if stride == 8 && x86::has_avx2() {
                    let mut got = vec![0u8; len];
                    // SAFETY: the CPU has AVX2, checked just above.
                    let done = unsafe { x86::join8_avx2(&s, &mut got, from) };
                    prop_assert!(done >= from && done <= n && n - done < 32);
                    join8_portable(&s, &mut got, stride, done);
                    prop_assert_eq!(&got, &want);
                }
            }
        }
    }

    proptest! {
        /// The SSE2 split writes exactly what the portable one does.
        #[test]
        fn split_kernels_agree(n in 0usize..200, seed: u64) {
            let src: Vec<u8> = (0..n * 8)
                .map(|i| (seed.wrapping_mul(i as u64 + 3) >> 19) as u8)
                .collect();
            let mut want = vec![0u8; n * 8];
            {
                let mut d = want.chunks_mut(n.max(1)).collect::<Vec<_>>();
                d.resize_with(8, Default::default);
                let mut d: [&mut [u8]; 8] = d.try_into().unwrap();
                split8_portable(&src, 8, &mut d, 0);
            }
            prop_assert_eq!(join_ref(&want, 8), src.clone());
            #[cfg(target_arch = "x86_64")]
            {
                let mut got = vec![0u8; n * 8];
                let mut d = got.chunks_mut(n.max(1)).collect::<Vec<_>>();
                d.resize_with(8, Default::default);
                let mut d: [&mut [u8]; 8] = d.try_into().unwrap();
                let done = x86::split8_sse2(&src, &mut d);
                prop_assert!(done <= n && n - done < 16);
                split8_portable(&src, 8, &mut d, done);
                prop_assert_eq!(got, want);
            }
        }
    }

    #[test]
    fn portable_is_the_definition() {
        let data: Vec<u8> = (0..8 * 37).map(|i| (i * 13 % 256) as u8).collect();
        let mut out = vec![0u8; 8 * 37];
        join8_portable(&eight(&data, 37), &mut out, 8, 0);
        assert_eq!(out, join_ref(&data, 8));
    }
}
