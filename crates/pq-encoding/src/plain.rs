//! PLAIN (encoding 0) for every physical type.
//!
//! Fixed-width values are little-endian back to back; booleans are
//! bit-packed LSB first; byte arrays are a 4-byte length then the bytes;
//! fixed-length byte arrays are just the bytes.

use alloc::vec::Vec;

use crate::error::{Result, eof, invalid};
use crate::offsets::{ByteArrayDecode, COPY_SLACK, OffsetSize, begin_append, copy_value};
use crate::stream::check_left;

/// A fixed-width physical type: `i32`, `i64`, `f32`, `f64`, or INT96 as
/// `[u32; 3]` (little-endian words, as stored).
pub trait FixedWidth: Copy + Default + PartialEq + core::fmt::Debug + 'static {
    /// Bytes per value.
    const SIZE: usize;
    /// Reads one value from exactly `SIZE` bytes.
    fn from_le(b: &[u8]) -> Self;
    /// Writes one value into exactly `SIZE` bytes.
    fn to_le(self, out: &mut [u8]);
    /// The value's bits, for hashing and bitwise comparison (so that NaN
    /// payloads and -0.0 stay distinct in dictionaries).
    fn bits(self) -> u128;
}

macro_rules! fixed_width {
    ($($t:ty, $n:literal, $bits:ty;)*) => {$(
        impl FixedWidth for $t {
            const SIZE: usize = $n;
            #[inline(always)]
            fn from_le(b: &[u8]) -> Self {
                // `try_from` on an exact-length slice compiles to one load;
                // a `copy_from_slice` here sometimes became a memcpy call.
                match b.get(..$n).map(<[u8; $n]>::try_from) {
                    Some(Ok(a)) => <$t>::from_le_bytes(a),
                    _ => <$t>::default(),
                }
            }
            #[inline(always)]
            fn to_le(self, out: &mut [u8]) {
                out[..$n].copy_from_slice(&self.to_le_bytes());
            }
            #[inline(always)]
            fn bits(self) -> u128 {
                <$bits>::from_le_bytes(self.to_le_bytes()) as u128
            }
        }
    )*};
}
fixed_width! {
    i32, 4, u32;
    i64, 8, u64;
    u32, 4, u32;
    u64, 8, u64;
    f32, 4, u32;
    f64, 8, u64;
}

impl FixedWidth for [u32; 3] {
    const SIZE: usize = 12;
    #[inline(always)]
    fn from_le(b: &[u8]) -> Self {
        [
            <u32 as FixedWidth>::from_le(&b[0..4]),
            <u32 as FixedWidth>::from_le(&b[4..8]),
            <u32 as FixedWidth>::from_le(&b[8..12]),
        ]
    }
    #[inline(always)]
    fn to_le(self, out: &mut [u8]) {
        FixedWidth::to_le(self[0], &mut out[0..4]);
        FixedWidth::to_le(self[1], &mut out[4..8]);
        FixedWidth::to_le(self[2], &mut out[8..12]);
    }
    #[inline(always)]
    fn bits(self) -> u128 {
        u128::from(self[0]) | (u128::from(self[1]) << 32) | (u128::from(self[2]) << 64)
    }
}

/// Decodes values from `bytes` (exactly `out.len() * T::SIZE` of them).
#[inline]
pub(crate) fn decode_slice<T: FixedWidth>(bytes: &[u8], out: &mut [T]) {
    // Blocks of 16 values keep the loop a vector copy; a flat per-value loop
    // over 4-byte chunks was turned into a slow `rep movsb` memmove.
    let mut outs = out.chunks_exact_mut(16);
    let mut ins = bytes.chunks_exact(16 * T::SIZE);
    for (o, c) in (&mut outs).zip(&mut ins) {
        for (o, c) in o.iter_mut().zip(c.chunks_exact(T::SIZE)) {
            *o = T::from_le(c);
        }
    }
    for (o, c) in outs
        .into_remainder()
        .iter_mut()
        .zip(ins.remainder().chunks_exact(T::SIZE))
    {
        *o = T::from_le(c);
    }
}

/// Streaming PLAIN decoder of fixed-width values.
///
/// ```
/// use pq_encoding::plain::{PlainDecoder, encode};
/// let mut buf = Vec::new();
/// encode(&[1i32, -2, 3], &mut buf);
/// let mut dec = PlainDecoder::<i32>::new(&buf);
/// let mut out = Vec::new();
/// dec.decode_into(&mut out, 3).unwrap();
/// assert_eq!(out, [1, -2, 3]);
/// ```
#[derive(Debug, Clone)]
pub struct PlainDecoder<'a, T> {
    data: &'a [u8],
    pos: usize,
    _t: core::marker::PhantomData<T>,
}

impl<'a, T: FixedWidth> PlainDecoder<'a, T> {
    /// A decoder over `data`; trailing bytes that do not make a whole value
    /// are never read.
    pub fn new(data: &'a [u8]) -> Self {
        Self {
            data,
            pos: 0,
            _t: core::marker::PhantomData,
        }
    }

    /// Values left.
    pub fn remaining(&self) -> usize {
        (self.data.len() - self.pos) / T::SIZE
    }

    /// The bytes of the next `n` values (fewer if fewer are left), the
    /// position moved past them: the one place the position advances.
    fn take(&mut self, n: usize) -> &'a [u8] {
        let n = n.min(self.remaining());
        let end = self.pos + n * T::SIZE;
        // Always in bounds: `n` is at most the whole values left.
        let bytes = self.data.get(self.pos..end).unwrap_or_default();
        self.pos += bytes.len();
        bytes
    }

    /// Fills `out` with up to `out.len()` values; returns how many.
    pub fn decode(&mut self, out: &mut [T]) -> Result<usize> {
        let bytes = self.take(out.len());
        let n = bytes.len() / T::SIZE;
        decode_slice(bytes, &mut out[..n]);
        Ok(n)
    }

    /// Appends exactly `n` values to `out`, or fails without appending.
    pub fn decode_into(&mut self, out: &mut Vec<T>, n: usize) -> Result<()> {
        check_left(n, self.remaining(), "PLAIN values")?;
        // Extending from an iterator of known length writes each value
        // once; sizing the vector first (`resize`) zeroed every value's
        // place before it was written (8 192 values in 0.54-0.59 of the
        // time).
        out.extend(self.take(n).chunks_exact(T::SIZE).map(T::from_le));
        Ok(())
    }

    /// Skips up to `n` values; returns how many.
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        Ok(self.take(n).len() / T::SIZE)
    }
}

/// Appends `values` PLAIN-encoded.
pub fn encode<T: FixedWidth>(values: &[T], out: &mut Vec<u8>) {
    let at = out.len();
    out.resize(at + values.len() * T::SIZE, 0);
    for (c, v) in out[at..].chunks_exact_mut(T::SIZE).zip(values) {
        v.to_le(c);
    }
}

/// PLAIN BOOLEAN decoder: bits LSB first.
#[derive(Debug, Clone)]
pub struct BooleanDecoder<'a> {
    data: &'a [u8],
    bit: usize,
}

impl<'a> BooleanDecoder<'a> {
    /// A decoder over `data` (8 values per byte; the page's value count says
    /// how many are real).
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, bit: 0 }
    }

    /// Values left (including padding bits of the last byte).
    pub fn remaining(&self) -> usize {
        self.data.len() * 8 - self.bit
    }

    /// Fills up to `out.len()` values; returns how many.
    pub fn decode(&mut self, out: &mut [bool]) -> Result<usize> {
        let n = out.len().min(self.remaining());
        for (i, o) in out[..n].iter_mut().enumerate() {
            let b = self.bit + i;
            *o = (self.data[b / 8] >> (b % 8)) & 1 == 1;
        }
        self.bit += n;
        Ok(n)
    }

    /// Skips up to `n` values; returns how many.
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        let n = n.min(self.remaining());
        self.bit += n;
        Ok(n)
    }
}

/// Appends booleans PLAIN-encoded (bit-packed LSB first, zero padded).
pub fn encode_bool(values: &[bool], out: &mut Vec<u8>) {
    for chunk in values.chunks(8) {
        let mut b = 0u8;
        for (i, &v) in chunk.iter().enumerate() {
            b |= (v as u8) << i;
        }
        out.push(b);
    }
}

/// Bytes of the length before each PLAIN BYTE_ARRAY value (a `u32`,
/// little-endian).
pub const LENGTH_PREFIX: usize = 4;

/// PLAIN BYTE_ARRAY decoder appending to an Arrow offsets + values pair.
///
/// ```
/// use pq_encoding::ByteArrayDecode;
/// use pq_encoding::plain::{ByteArrayDecoder, encode_byte_array};
/// let mut buf = Vec::new();
/// encode_byte_array([&b"ab"[..], b"", b"xyz"], &mut buf);
/// let (mut offsets, mut values) = (Vec::<i32>::new(), Vec::new());
/// let mut dec = ByteArrayDecoder::new(&buf);
/// assert_eq!(dec.decode(&mut offsets, &mut values, 10).unwrap(), 3);
/// assert_eq!(offsets, [0, 2, 2, 5]);
/// assert_eq!(values, b"abxyz");
/// ```
#[derive(Debug, Clone)]
pub struct ByteArrayDecoder<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> ByteArrayDecoder<'a> {
    /// A decoder over `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, pos: 0 }
    }

    #[inline]
    fn next(&mut self) -> Result<Option<&'a [u8]>> {
        if self.pos >= self.data.len() {
            return Ok(None);
        }
        let rest = &self.data[self.pos..];
        let Some(len) = rest.get(..4) else {
            return Err(eof("BYTE_ARRAY length", 4, rest.len()));
        };
        let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]);
        if len > i32::MAX as u32 {
            return Err(invalid(
                "BYTE_ARRAY length",
                "0 to 2^31-1",
                i64::from(len as i32),
            ));
        }
        let len = len as usize;
        let Some(v) = rest.get(4..4 + len) else {
            return Err(eof("BYTE_ARRAY value", len, rest.len() - 4));
        };
        self.pos += 4 + len;
        Ok(Some(v))
    }

    /// Bytes of the input consumed so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Walks over up to `n` values from the position, calling `each` with
    /// where each one begins (past its prefix) and its length, and moves
    /// the position past them; returns how many. One tight loop over the
    /// lengths (a load and an add a value), stopping at the first value the
    /// input does not hold whole; [`stopped`](Self::stopped) reports it.
    #[inline(always)]
    fn walk(&mut self, n: usize, mut each: impl FnMut(usize, usize)) -> usize {
        let data = self.data;
        let mut pos = self.pos;
        let mut done = 0;
        while done < n {
            let Some(Ok(b)) = data.get(pos..pos + 4).map(<[u8; 4]>::try_from) else {
                break;
            };
            let len = u32::from_le_bytes(b);
            if len > i32::MAX as u32 || len as usize > data.len() - pos - 4 {
                break;
            }
            each(pos + LENGTH_PREFIX, len as usize);
            pos += LENGTH_PREFIX + len as usize;
            done += 1;
        }
        self.pos = pos;
        done
    }

    /// After a walk that gave `done` of `n` values: the error of the value
    /// that stopped it, as decoding it would report it (none at the end of
    /// the input).
    fn stopped(&mut self, done: usize, n: usize) -> Result<()> {
        if done < n && self.pos < self.data.len() {
            self.next()?;
        }
        Ok(())
    }

    /// Skips up to `n` values; returns how many. A length that does not
    /// fit what is left is reported as decoding it would report it.
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        let mut done = 0;
        // Runs of one short length passed by arithmetic (see `uniform`),
        // other values walked a chunk at a time.
        while done < n {
            let want = (n - done).min(Self::CHUNK);
            if let Some((len, k)) = self.uniform(want) {
                self.pos += k * (LENGTH_PREFIX + len);
                done += k;
                continue;
            }
            let walked = self.walk(want, |_, _| {});
            done += walked;
            if walked < want {
                break;
            }
        }
        self.stopped(done, n)?;
        Ok(done)
    }

    /// Indexes up to `n` values without copying them; returns how many.
    /// `starts` is cleared, then holds where each value begins in the
    /// decoder's input (past its length prefix) and, last, where one more
    /// would begin: value `i` is `input[starts[i]..starts[i + 1] -
    /// LENGTH_PREFIX]`, which is how
    /// [`gather_plain_byte_array`](crate::dictionary::gather_plain_byte_array)
    /// reads it. Stops, as [`skip`](Self::skip) does, at the first value the
    /// input does not hold whole, and reports it as decoding would; an
    /// input of 4 GiB or more (past `u32` positions) is an error.
    ///
    /// ```
    /// use pq_encoding::plain::{ByteArrayDecoder, encode_byte_array, LENGTH_PREFIX};
    /// let mut page = Vec::new();
    /// encode_byte_array([&b"ab"[..], b"", b"xyz"], &mut page);
    /// let mut starts = Vec::new();
    /// assert_eq!(ByteArrayDecoder::new(&page).index(10, &mut starts).unwrap(), 3);
    /// assert_eq!(starts, [4, 10, 14, 21]);
    /// assert_eq!(&page[starts[2] as usize..starts[3] as usize - LENGTH_PREFIX], b"xyz");
    /// ```
    pub fn index(&mut self, n: usize, starts: &mut Vec<u32>) -> Result<usize> {
        let data = self.data;
        starts.clear();
        if data.len() > u32::MAX as usize - 2 * LENGTH_PREFIX {
            return Err(invalid(
                "PLAIN BYTE_ARRAY bytes to index",
                "under 4 GiB",
                data.len() as i128,
            ));
        }
        // Each value takes at least its prefix: room for what the input
        // can hold, whatever `n` claims.
        let most = data.len().saturating_sub(self.pos) / LENGTH_PREFIX;
        starts.reserve(n.min(most) + 1);
        // Positions are below `u32::MAX`: the input's length was checked
        // above.
        let done = self.walk(n, |start, _| starts.push(start as u32));
        starts.push((self.pos + LENGTH_PREFIX) as u32);
        self.stopped(done, n)?;
        Ok(done)
    }

    /// Calls `each` with where each of up to `n` values begins in the
    /// input (past its prefix) and its length, and moves the position past
    /// them; returns how many. Every range given lies inside the input.
    /// Nothing is copied: a caller that tests values (an equality, say)
    /// looks at each one where it lies, in the one walk over the lengths,
    /// and copies only what it keeps. Stops, as [`skip`](Self::skip) does,
    /// at the first value the input does not hold whole, and reports it as
    /// decoding would.
    ///
    /// ```
    /// use pq_encoding::plain::{ByteArrayDecoder, encode_byte_array};
    /// let mut page = Vec::new();
    /// encode_byte_array([&b"ab"[..], b"", b"ab"], &mut page);
    /// let mut found = Vec::new();
    /// let n = ByteArrayDecoder::new(&page)
    ///     .for_each(10, |start, len| {
    ///         if &page[start..start + len] == b"ab" {
    ///             found.push(start)
    ///         }
    ///     })
    ///     .unwrap();
    /// assert_eq!((n, found), (3, vec![4, 14]));
    /// ```
    #[inline(always)]
    pub fn for_each(&mut self, n: usize, each: impl FnMut(usize, usize)) -> Result<usize> {
        let done = self.walk(n, each);
        self.stopped(done, n)?;
        Ok(done)
    }
}

impl ByteArrayDecode for ByteArrayDecoder<'_> {
    /// In chunks of 64 values: one walk over their lengths
    /// (each checked against the bytes left) notes where each value lies and
    /// sums them, so that the values buffer grows and the offsets are
    /// checked once a chunk; then the chunk's values are copied from the
    /// positions noted, short ones as one fixed-size move each. The walk is
    /// a chain of dependent loads (each length says where the next one is);
    /// the copies are not, so they overlap, where a second walk to copy
    /// took as long as the first. A run of values of one short length
    /// needs no walk (see `ByteArrayDecoder::uniform`).
    fn fill<O: OffsetSize>(&mut self, o: &mut Vec<O>, v: &mut Vec<u8>, n: usize) -> Result<usize> {
        let (offsets, values) = (o, v);
        let data = self.data;
        let (o0, v0) = (offsets.len(), values.len());
        // The offsets started, whatever follows.
        begin_append(offsets, values, 0)?;
        let mut starts = [0usize; Self::CHUNK];
        let mut lens = [0usize; Self::CHUNK];
        let mut done = 0usize;
        while done < n {
            let want = (n - done).min(Self::CHUNK);
            // A run of one length, or values found by the walk (which
            // moves the position past them).
            let run = self.uniform(want);
            let (k, total) = match run {
                Some((len, k)) => (k, k * len),
                None => {
                    let (mut k, mut total) = (0usize, 0usize);
                    self.walk(want, |start, len| {
                        // `k` is below `CHUNK`.
                        starts[k % Self::CHUNK] = start;
                        lens[k % Self::CHUNK] = len;
                        total += len;
                        k += 1;
                    });
                    (k, total)
                }
            };
            if k == 0 {
                break;
            }
            let base = match begin_append(offsets, values, total) {
                Ok(base) => base,
                Err(e) => {
                    offsets.truncate(o0);
                    values.truncate(v0);
                    return Err(e);
                }
            };
            done += k;
            if let Some((len, _)) = run {
                self.append_run(offsets, values, base, k, len);
                continue;
            }
            values.resize(base + total + COPY_SLACK, 0);
            let out = values.get_mut(base..).unwrap_or_default();
            let mut at = 0;
            offsets.extend(starts.iter().zip(&lens).take(k).map(|(&start, &len)| {
                // Checked in the walk.
                copy_value(out, at, data, start, len);
                at += len;
                // Fits: the total was checked by `begin_append`.
                O::from_usize(base + at).unwrap_or_default()
            }));
            values.truncate(base + at);
            if k < want {
                break;
            }
        }
        // Stopped before `n` values: at the end of the data, or at a
        // malformed value, whose error this gives.
        self.stopped(done, n)?;
        Ok(done)
    }
}

impl ByteArrayDecoder<'_> {
    /// Values walked before their copies in [`ByteArrayDecode::fill`].
    const CHUNK: usize = 64;

    /// Values at most this long are tried by [`uniform`](Self::uniform):
    /// as long as one fixed-size move copies them (ISO timestamps, hashes
    /// in hex, UUIDs as text).
    const UNIFORM_MAX: usize = COPY_SLACK;

    /// Fewer values of one length than this are walked, not taken as a
    /// run.
    const MIN_RUN: usize = 8;

    /// `(len, k)` when the next `k` values (at least [`MIN_RUN`], at most
    /// `n`) are whole in the input and all `len` bytes long, a short length:
    /// flags, codes, fixed-width identifiers. Their prefixes then lie
    /// `LENGTH_PREFIX + len` bytes apart, so each is checked where it must
    /// be, the loads independent of each other, rather than found by the
    /// walk's chain of loads (each length saying where the next one is). A
    /// column of varied lengths fails at the first or second value, a load
    /// or two per `n` values; a run broken by a value of another length
    /// is taken up to it.
    ///
    /// [`MIN_RUN`]: Self::MIN_RUN
    #[inline(always)]
    fn uniform(&self, n: usize) -> Option<(usize, usize)> {
        let data = self.data;
        let first: [u8; 4] = data.get(self.pos..self.pos + 4)?.try_into().ok()?;
        let len = u32::from_le_bytes(first) as usize;
        if len > Self::UNIFORM_MAX {
            return None;
        }
        let stride = LENGTH_PREFIX + len;
        // Whole strides only: a value counted lies inside the input.
        let k = data
            .get(self.pos..)?
            .chunks_exact(stride)
            .take(n)
            .take_while(|v| v.get(..4) == Some(&first[..]))
            .count();
        (k >= Self::MIN_RUN).then_some((len, k))
    }

    /// Appends the next `n` values, each `len` bytes long as
    /// [`uniform`](Self::uniform) found them, after `base` bytes of values
    /// that [`begin_append`] allowed `n * len` more of, and moves the
    /// position past them: the offsets by arithmetic, each value one
    /// fixed-size move (one byte for one-byte values).
    #[inline(always)]
    fn append_run<O: OffsetSize>(
        &mut self,
        offsets: &mut Vec<O>,
        values: &mut Vec<u8>,
        base: usize,
        n: usize,
        len: usize,
    ) {
        let stride = LENGTH_PREFIX + len;
        let total = n * len;
        // Fit, and no sum overflows: `begin_append` checked `base + total`.
        offsets.extend((1..=n).map(|k| O::from_usize(base + k * len).unwrap_or_default()));
        // `uniform` checked that the input holds `n` strides from here.
        let first = self.pos + LENGTH_PREFIX;
        match len {
            0 => {}
            1 => {
                let run = self.data.get(self.pos..self.pos + n * stride);
                values.extend(
                    run.unwrap_or_default()
                        .chunks_exact(stride)
                        .map(|v| v.last().copied().unwrap_or(0)),
                );
            }
            _ => {
                values.resize(base + total + COPY_SLACK, 0);
                let out = values.get_mut(base..).unwrap_or_default();
                // From the whole input, not just the run: the last values'
                // fixed-size moves may read past the run.
                for k in 0..n {
                    copy_value(out, k * len, self.data, first + k * stride, len);
                }
                values.truncate(base + total);
            }
        }
        self.pos += n * stride;
    }
}

/// Appends byte arrays PLAIN-encoded.
pub fn encode_byte_array<'b, I: IntoIterator<Item = &'b [u8]>>(values: I, out: &mut Vec<u8>) {
    for v in values {
        out.extend_from_slice(&(v.len() as u32).to_le_bytes());
        out.extend_from_slice(v);
    }
}

/// Appends the byte arrays `data[offsets[i]..offsets[i + 1]]` PLAIN-encoded,
/// as [`encode_byte_array`] does, from the Arrow offsets + values layout:
/// the output is sized once, and values of up to 64 bytes are moved as one
/// fixed-size copy each rather than a `memcpy` call (most strings are
/// short). Fails, appending nothing, when the offsets decrease, point past
/// `data`, or give a value longer than a 4-byte length can declare.
///
/// ```
/// use pq_encoding::plain;
/// let (offsets, data) = ([0i32, 2, 2, 5], b"hiabc");
/// let mut out = Vec::new();
/// plain::encode_byte_array_offsets(&offsets, data, &mut out).unwrap();
/// let mut want = Vec::new();
/// plain::encode_byte_array([&b"hi"[..], b"", b"abc"], &mut want);
/// assert_eq!(out, want);
/// assert!(plain::encode_byte_array_offsets(&[0i32, 3, 2], data, &mut out).is_err());
/// ```
pub fn encode_byte_array_offsets<O: OffsetSize>(
    offsets: &[O],
    data: &[u8],
    out: &mut Vec<u8>,
) -> Result<()> {
    let (Some(first), Some(last)) = (offsets.first(), offsets.last()) else {
        return Ok(());
    };
    let (first, last) = (first.as_usize(), last.as_usize());
    // One pass of checks, so that the copying loop needs none of its own.
    let bad = offsets.windows(2).find(|w| {
        let (a, b) = (w[0].as_usize(), w[1].as_usize());
        b < a || b - a > u32::MAX as usize
    });
    if let Some(w) = bad {
        return Err(invalid(
            "byte array offset",
            "non-decreasing, a value at most 4 GiB long",
            w[1].as_usize() as u64,
        ));
    }
    if last > data.len() {
        return Err(invalid("byte array offset", "within the data", last as u64));
    }
    let n = offsets.len() - 1;
    let start = out.len();
    let end = start + LENGTH_PREFIX * n + (last - first);
    out.resize(end + COPY_SLACK, 0);
    let mut at = start;
    for w in offsets.windows(2) {
        at = put_prefixed(out, at, data, w[0].as_usize(), w[1].as_usize());
    }
    out.truncate(end);
    Ok(())
}

/// Writes value `data[a..b]` at `at` of `out` with its length prefix;
/// returns where the next one goes. The caller has checked the range
/// (`a <= b <= data.len()`, a length that fits in 4 bytes) and made room
/// for the value and [`COPY_SLACK`] bytes past the last one.
#[inline(always)]
fn put_prefixed(out: &mut [u8], at: usize, data: &[u8], a: usize, b: usize) -> usize {
    let len = b - a;
    if let Some(d) = out.get_mut(at..at + LENGTH_PREFIX) {
        d.copy_from_slice(&(len as u32).to_le_bytes());
    }
    copy_value(out, at + LENGTH_PREFIX, data, a, len);
    at + LENGTH_PREFIX + len
}

/// Appends the byte arrays `data[offsets[i]..offsets[i + 1]]` for each `i`
/// of `indices`, in that order, PLAIN-encoded as
/// [`encode_byte_array_offsets`] encodes a contiguous run: the values of an
/// Arrow array between its nulls. The output is sized once and short
/// values are moved as one fixed-size copy each. Fails, appending nothing,
/// when an index has no value in `offsets`, or a value's offsets decrease,
/// point past `data` or give a value longer than a 4-byte length can
/// declare.
///
/// ```
/// use pq_encoding::plain;
/// let (offsets, data) = ([0i32, 2, 2, 5], b"hiabc");
/// let mut out = Vec::new();
/// plain::encode_byte_array_indexed(&offsets, data, &[2, 0], &mut out).unwrap();
/// let mut want = Vec::new();
/// plain::encode_byte_array([&b"abc"[..], b"hi"], &mut want);
/// assert_eq!(out, want);
/// assert!(plain::encode_byte_array_indexed(&offsets, data, &[3], &mut out).is_err());
/// ```
pub fn encode_byte_array_indexed<O: OffsetSize>(
    offsets: &[O],
    data: &[u8],
    indices: &[usize],
    out: &mut Vec<u8>,
) -> Result<()> {
    let value = |i: usize| match (
        offsets.get(i),
        i.checked_add(1).and_then(|j| offsets.get(j)),
    ) {
        (Some(a), Some(b)) => Some((a.as_usize(), b.as_usize())),
        _ => None,
    };
    // One pass of checks and the total, so that the copying loop needs
    // none of its own.
    let mut total = 0usize;
    for &i in indices {
        let Some((a, b)) = value(i) else {
            return Err(invalid("byte array index", "an index of a value", i as u64));
        };
        if b < a || b - a > u32::MAX as usize || b > data.len() {
            return Err(invalid(
                "byte array offset",
                "non-decreasing, within the data, a value at most 4 GiB long",
                b as u64,
            ));
        }
        total = total
            .checked_add(LENGTH_PREFIX + (b - a))
            .ok_or_else(|| invalid("PLAIN BYTE_ARRAY bytes", "fewer than 2^64", u64::MAX))?;
    }
    let start = out.len();
    let end = start + total;
    out.resize(end + COPY_SLACK, 0);
    let mut at = start;
    for &i in indices {
        let (a, b) = value(i).unwrap_or_default();
        at = put_prefixed(out, at, data, a, b);
    }
    out.truncate(end);
    Ok(())
}

/// PLAIN FIXED_LEN_BYTE_ARRAY decoder appending to one flat buffer.
#[derive(Debug, Clone)]
pub struct FixedLenDecoder<'a> {
    data: &'a [u8],
    pos: usize,
    width: usize,
}

impl<'a> FixedLenDecoder<'a> {
    /// A decoder of values `width` (at least 1) bytes wide.
    pub fn new(data: &'a [u8], width: usize) -> Result<Self> {
        if width == 0 {
            return Err(invalid("FIXED_LEN_BYTE_ARRAY width", "at least 1", 0));
        }
        Ok(Self {
            data,
            pos: 0,
            width,
        })
    }

    /// Values left.
    pub fn remaining(&self) -> usize {
        (self.data.len() - self.pos) / self.width
    }

    /// Appends up to `n` values to `out`; returns how many.
    pub fn decode(&mut self, out: &mut Vec<u8>, n: usize) -> Result<usize> {
        let n = n.min(self.remaining());
        let end = self.pos + n * self.width;
        out.extend_from_slice(&self.data[self.pos..end]);
        self.pos = end;
        Ok(n)
    }

    /// Skips up to `n` values; returns how many.
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        let n = n.min(self.remaining());
        self.pos += n * self.width;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int96_and_bool() {
        let v = [[1u32, 2, 3], [u32::MAX, 0, 7]];
        let mut buf = Vec::new();
        encode(&v, &mut buf);
        assert_eq!(buf.len(), 24);
        assert_eq!(&buf[..4], &[1, 0, 0, 0]);
        let mut out = Vec::new();
        PlainDecoder::<[u32; 3]>::new(&buf)
            .decode_into(&mut out, 2)
            .unwrap();
        assert_eq!(out, v);

        let mut b = Vec::new();
        encode_bool(
            &[true, false, true, true, false, false, false, false, true],
            &mut b,
        );
        assert_eq!(b, [0b0000_1101, 0b1]);
        let mut o = [false; 9];
        assert_eq!(BooleanDecoder::new(&b).decode(&mut o).unwrap(), 9);
        assert_eq!(
            o,
            [true, false, true, true, false, false, false, false, true]
        );
    }

    #[test]
    fn byte_array_errors() {
        let (mut o, mut v) = (Vec::<i32>::new(), Vec::new());
        assert!(
            ByteArrayDecoder::new(&[1, 0])
                .decode(&mut o, &mut v, 1)
                .is_err()
        );
        assert!(
            ByteArrayDecoder::new(&[5, 0, 0, 0, 1])
                .decode(&mut o, &mut v, 1)
                .is_err()
        );
        assert!(
            ByteArrayDecoder::new(&[0, 0, 0, 0x80])
                .decode(&mut o, &mut v, 1)
                .is_err()
        );
        assert!(FixedLenDecoder::new(&[], 0).is_err());
    }
}
