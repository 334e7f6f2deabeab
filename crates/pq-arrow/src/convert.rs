//! From dense physical values plus a validity bitmap to an Arrow array of
//! the field's type: INT96 timestamps, decimals from every physical type,
//! FLOAT16, intervals, unsigned integers, dates, times and timestamps.

use std::sync::Arc;

use arrow_array::types::*;
use arrow_array::*;
use arrow_buffer::{BooleanBuffer, Buffer, IntervalDayTime, NullBuffer, ScalarBuffer, i256};
use arrow_data::ArrayData;
use arrow_schema::{DataType, IntervalUnit, TimeUnit};

use pq_encoding::offsets::OffsetSize;

use crate::column::byte_arrays::ByteArrays;
use crate::column::utf8::{CheckedUtf8, offset_buffer};
use crate::column::values::Dense;
use crate::column::views::views_of;
use crate::error::{Location, Result, arrow_err, data_err, unsupported};
use crate::pool::Pool;

const JULIAN_DAY_OF_EPOCH: i64 = 2_440_588;

/// The validity of slots of which some are null: nothing to spread
/// otherwise.
fn with_nulls(nulls: Option<&NullBuffer>) -> Option<&NullBuffer> {
    nulls.filter(|n| n.null_count() > 0)
}

/// Spreads dense values over `nulls.len()` slots: slot `i` gets the next
/// dense value when valid, `T::default()` when null. Without nulls the
/// dense values are the slots, returned as they are.
pub(crate) fn spread<T: Copy + Default + Send + 'static>(
    dense: Vec<T>,
    nulls: Option<&NullBuffer>,
    pool: &Pool,
) -> Vec<T> {
    if with_nulls(nulls).is_none() {
        return dense;
    }
    spread_map(dense, nulls, pool, |x| x)
}

/// [`spread`] with each value converted by `f` on its way to its slot: a
/// widening (an INT64 decimal to `i128`, say) and the spread in one pass
/// over the batch, not a spread copy widened by a second.
///
/// The validity is read 64 slots at a time: a word of 64 valid slots is
/// one run of converted values, any other word first gets its slots as
/// defaults (while they are in cache, not the whole batch ahead) and then
/// a step per valid slot, found by its bit without a branch per slot
/// (validity of real data is hard to predict).
pub(crate) fn spread_map<S, T>(
    dense: Vec<S>,
    nulls: Option<&NullBuffer>,
    pool: &Pool,
    f: impl Fn(S) -> T,
) -> Vec<T>
where
    S: Copy + Send + 'static,
    T: Copy + Default + Send + 'static,
{
    let Some(nulls) = with_nulls(nulls) else {
        return convert(dense, pool, f);
    };
    let n = nulls.len();
    let mut out: Vec<T> = pool.take(n);
    let mut k = 0usize;
    for (w, word) in nulls.inner().bit_chunks().iter_padded().enumerate() {
        let m = n.saturating_sub(w * 64).min(64);
        if m == 0 {
            break;
        }
        if word == u64::MAX
            && let Some(src) = dense.get(k..k + m)
        {
            out.extend(src.iter().map(|&x| f(x)));
            k += m;
            continue;
        }
        // Mixed: each valid slot, found by its bit, takes the next value;
        // null slots keep the default. (Fewer values than valid slots is
        // rejected before; should it happen, the slots past the values
        // keep the default.)
        let s = out.len();
        out.resize(s + m, T::default());
        let slots = out.get_mut(s..).unwrap_or_default();
        let cnt = (word & low_bits(m)).count_ones() as usize;
        let src = dense.get(k..(k + cnt).min(dense.len())).unwrap_or_default();
        let mut bits = word;
        for &v in src {
            if let Some(slot) = slots.get_mut(bits.trailing_zeros() as usize) {
                *slot = f(v);
            }
            bits &= bits.wrapping_sub(1);
        }
        k += cnt;
    }
    pool.put(dense);
    out
}

/// A word with its low `m` (at most 64) bits set.
fn low_bits(m: usize) -> u64 {
    if m >= 64 { u64::MAX } else { (1u64 << m) - 1 }
}

/// Most bytes the slots of one batch of fixed-length values may take. Null
/// slots hold `width` zero bytes each, which the file does not store, so a
/// width from a damaged schema could otherwise ask for terabytes.
const MAX_FIXED_BATCH_BYTES: usize = 1 << 30;

/// The items (at most 64; more are left out) that satisfy `test`, as the
/// bits of a word (item `i` is bit `i`).
///
/// Tests into bytes of 0 or 1 (vector compares and packs), then bytes into
/// bits eight at a time by a multiply: eight such bytes as one
/// little-endian word times `0x0102_0408_1020_4080` gather byte `i`'s bit
/// at bit `56 + i`. Shifting each test's result into place compiled to
/// slow vector shifts.
#[inline]
pub(crate) fn bits_where<T: Copy>(items: &[T], test: impl Fn(T) -> bool) -> u64 {
    const GATHER: u64 = 0x0102_0408_1020_4080;
    let mut b = [0u8; 64];
    for (d, &e) in b.iter_mut().zip(items) {
        *d = u8::from(test(e));
    }
    let mut word = 0u64;
    for (k, eight) in b.chunks_exact(8).enumerate() {
        let mut x = [0u8; 8];
        x.copy_from_slice(eight);
        word |= (u64::from_le_bytes(x).wrapping_mul(GATHER) >> 56) << (8 * k);
    }
    word
}

/// Packs booleans into a bitmap, least significant bit first, 64 at a time
/// ([`bits_where`]). Arrow's `BooleanBuffer::from(&[bool])` takes a value
/// at a time (2 % of reading a file with one boolean column in eleven).
fn pack_bools(v: &[bool], pool: &Pool) -> BooleanBuffer {
    let mut words: Vec<u64> = pool.take(v.len().div_ceil(64));
    words.extend(v.chunks(64).map(|c| bits_where(c, |b| b)));
    BooleanBuffer::new(pool.buffer(words), 0, v.len())
}

fn spread_fixed(
    data: Vec<u8>,
    width: usize,
    nulls: Option<&NullBuffer>,
    pool: &Pool,
    at: &Location,
) -> Result<Vec<u8>> {
    let Some(nulls) = nulls else { return Ok(data) };
    if nulls.null_count() == 0 || width == 0 {
        return Ok(data);
    }
    let Some(n) = nulls
        .len()
        .checked_mul(width)
        .filter(|&n| n <= MAX_FIXED_BATCH_BYTES)
    else {
        return Err(data_err(
            at,
            format!(
                "{} slots of {width}-byte values would take more than {MAX_FIXED_BATCH_BYTES} \
                 bytes in one batch (a smaller batch size reads them)",
                nulls.len()
            ),
        ));
    };
    let mut out = pool.take(n);
    out.resize(n, 0u8);
    for (i, v) in nulls.valid_indices().zip(data.chunks_exact(width)) {
        if let Some(slot) = out.get_mut(i * width..(i + 1) * width) {
            slot.copy_from_slice(v);
        }
    }
    pool.put(data);
    Ok(out)
}

pub(crate) fn spread_offsets<O>(dense: Vec<O>, nulls: Option<&NullBuffer>, pool: &Pool) -> Vec<O>
where
    O: Copy + Default + Send + 'static,
{
    let Some(nulls) = with_nulls(nulls) else {
        return dense;
    };
    // Null slots repeat the previous end offset: no value bytes move. The
    // end of slot `i` is dense offset `k`, the valid slots up to `i`.
    let mut out = pool.take(nulls.len() + 1);
    let mut last = dense.first().copied().unwrap_or_default();
    out.push(last);
    let mut k = 0usize;
    for valid in nulls.inner().iter() {
        k += usize::from(valid);
        last = dense.get(k).copied().unwrap_or(last);
        out.push(last);
    }
    pool.put(dense);
    out
}

/// An Arrow buffer of `values` whose memory returns to `pool`.
fn scalars<T: arrow_buffer::ArrowNativeType>(values: Vec<T>, pool: &Pool) -> ScalarBuffer<T> {
    let len = values.len();
    ScalarBuffer::new(pool.buffer(values), 0, len)
}

fn prim<T: ArrowPrimitiveType>(
    values: Vec<T::Native>,
    nulls: Option<NullBuffer>,
    at: &Location,
    pool: &Pool,
) -> Result<PrimitiveArray<T>> {
    PrimitiveArray::<T>::try_new(scalars(values, pool), nulls).map_err(|e| arrow_err(at, e))
}

/// `f` of each of `values`, in a vector from `pool`; `values` go back to it.
fn convert<S: Copy + Send + 'static, T: Copy + Send + 'static>(
    values: Vec<S>,
    pool: &Pool,
    f: impl Fn(S) -> T,
) -> Vec<T> {
    let mut out = pool.take(values.len());
    out.extend(values.iter().map(|&x| f(x)));
    pool.put(values);
    out
}

fn map_prim<S: Copy + Send + 'static, T: ArrowPrimitiveType>(
    values: Vec<S>,
    nulls: Option<NullBuffer>,
    f: impl Fn(S) -> T::Native,
    at: &Location,
    pool: &Pool,
) -> Result<ArrayRef> {
    let v = convert(values, pool, f);
    Ok(Arc::new(prim::<T>(v, nulls, at, pool)?))
}

fn tz_prim<T: ArrowPrimitiveType>(
    values: Vec<T::Native>,
    nulls: Option<NullBuffer>,
    dt: &DataType,
    at: &Location,
    pool: &Pool,
) -> Result<ArrayRef> {
    let a = prim::<T>(values, nulls, at, pool)?;
    let data = a.into_data().into_builder().data_type(dt.clone());
    Ok(make_array(data.build().map_err(|e| arrow_err(at, e))?))
}

/// A decimal array of precision `p` and scale `s` from its native values.
fn decimal<T: DecimalType>(
    values: Vec<T::Native>,
    nulls: Option<NullBuffer>,
    p: u8,
    s: i8,
    at: &Location,
    pool: &Pool,
) -> Result<ArrayRef> {
    let a = prim::<T>(values, nulls, at, pool)?;
    Ok(Arc::new(
        a.with_precision_and_scale(p, s)
            .map_err(|e| arrow_err(at, e))?,
    ))
}

/// Values whose Arrow type is exactly their physical type, spread over
/// the nulls; `None` if `dt` (the type asked for) is another type.
fn same_prim<T: ArrowPrimitiveType>(
    dt: &DataType,
    v: Vec<T::Native>,
    nulls: Option<NullBuffer>,
    at: &Location,
    pool: &Pool,
) -> Option<Result<ArrayRef>> {
    (*dt == T::DATA_TYPE).then(|| {
        let v = spread(v, nulls.as_ref(), pool);
        prim::<T>(v, nulls, at, pool).map(|a| Arc::new(a) as ArrayRef)
    })
}

/// An INT32 or INT64 column's dense values widened (or, for Decimal32
/// from INT64, narrowed) to the native type of decimal `dt` as they are
/// spread over the nulls; `None` if `dt` is not a decimal. The arm whose
/// width matches the source is taken before this, without a copy.
fn int_decimal<T: DecimalInt>(
    v: Vec<T>,
    nulls: Option<NullBuffer>,
    dt: &DataType,
    at: &Location,
    pool: &Pool,
) -> Option<Result<ArrayRef>> {
    let n = nulls.as_ref();
    Some(match dt {
        DataType::Decimal32(p, s) => {
            decimal::<Decimal32Type>(spread_map(v, n, pool, T::narrow), nulls, *p, *s, at, pool)
        }
        DataType::Decimal64(p, s) => {
            decimal::<Decimal64Type>(spread_map(v, n, pool, T::widen), nulls, *p, *s, at, pool)
        }
        DataType::Decimal128(p, s) => {
            let v = spread_map(v, n, pool, T::widen128);
            decimal::<Decimal128Type>(v, nulls, *p, *s, at, pool)
        }
        DataType::Decimal256(p, s) => {
            let v = spread_map(v, n, pool, T::widen256);
            decimal::<Decimal256Type>(v, nulls, *p, *s, at, pool)
        }
        _ => return None,
    })
}

/// The integer physical types a decimal can be stored as.
trait DecimalInt: Copy + Send + 'static {
    fn narrow(self) -> i32;
    fn widen(self) -> i64;
    fn widen128(self) -> i128 {
        i128::from(self.widen())
    }
    fn widen256(self) -> i256 {
        i256::from(self.widen())
    }
}

impl DecimalInt for i32 {
    fn narrow(self) -> i32 {
        self
    }
    fn widen(self) -> i64 {
        i64::from(self)
    }
}

impl DecimalInt for i64 {
    fn narrow(self) -> i32 {
        self as i32
    }
    fn widen(self) -> i64 {
        self
    }
}

/// Big-endian two's complement bytes sign-extended to `N` bytes (the
/// last `N` if there are more).
fn sign_extend<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut buf = if b.first().is_some_and(|x| x & 0x80 != 0) {
        [0xffu8; N]
    } else {
        [0u8; N]
    };
    let n = b.len().min(N);
    let src = b.get(b.len() - n..).unwrap_or_default();
    if let Some(dst) = buf.get_mut(N - n..) {
        dst.copy_from_slice(src);
    }
    buf
}

/// Big-endian two's complement bytes to i128 (sign-extended).
fn be_i128(b: &[u8]) -> i128 {
    i128::from_be_bytes(sign_extend(b))
}

fn be_i256(b: &[u8]) -> i256 {
    i256::from_be_bytes(sign_extend(b))
}

fn int96_to(v: [u32; 3], unit: TimeUnit) -> i64 {
    let nanos = ((v[1] as i64) << 32) | v[0] as i64;
    // The Julian day is unsigned, as pyarrow reads it.
    let day = v[2] as i64 - JULIAN_DAY_OF_EPOCH;
    let nanos_per_unit: i64 = match unit {
        TimeUnit::Second => 1_000_000_000,
        TimeUnit::Millisecond => 1_000_000,
        TimeUnit::Microsecond => 1_000,
        TimeUnit::Nanosecond => 1,
    };
    let per_day = 86_400_000_000_000 / nanos_per_unit;
    day.wrapping_mul(per_day)
        .wrapping_add(nanos / nanos_per_unit)
}

/// Where converted values go: `len` slots of Arrow type `dt`, with their
/// validity (`None`: all valid), and the pool their buffers come from.
struct Slots<'a> {
    nulls: Option<NullBuffer>,
    len: usize,
    dt: &'a DataType,
    at: &'a Location,
    pool: &'a Pool,
}

/// Builds the Arrow array of type `dt` from `dense` values and `nulls`
/// (`None`: all `len` slots valid).
pub(crate) fn to_arrow(
    dense: Dense,
    nulls: Option<NullBuffer>,
    len: usize,
    dt: &DataType,
    at: &Location,
    pool: &Pool,
) -> Result<ArrayRef> {
    let nulls = nulls.filter(|n| n.null_count() > 0);
    let n = nulls.as_ref();
    let bad = || {
        unsupported(
            at,
            format!("reading a column of this physical type as Arrow {dt}"),
        )
    };
    if let DataType::Null = dt {
        return Ok(Arc::new(NullArray::new(len)));
    }
    match dense {
        Dense::Bool(v) => match dt {
            DataType::Boolean => {
                let v = spread(v, n, pool);
                let bits = pack_bools(&v, pool);
                pool.put(v);
                Ok(Arc::new(BooleanArray::new(bits, nulls)))
            }
            _ => Err(bad()),
        },
        Dense::I32(v) => {
            if matches!(
                dt,
                DataType::Decimal64(..) | DataType::Decimal128(..) | DataType::Decimal256(..)
            ) {
                return int_decimal(v, nulls, dt, at, pool).unwrap_or_else(|| Err(bad()));
            }
            let v = spread(v, n, pool);
            match dt {
                DataType::Int32 => Ok(Arc::new(prim::<Int32Type>(v, nulls, at, pool)?)),
                DataType::Int8 => map_prim::<_, Int8Type>(v, nulls, |x| x as i8, at, pool),
                DataType::Int16 => map_prim::<_, Int16Type>(v, nulls, |x| x as i16, at, pool),
                DataType::UInt8 => map_prim::<_, UInt8Type>(v, nulls, |x| x as u8, at, pool),
                DataType::UInt16 => map_prim::<_, UInt16Type>(v, nulls, |x| x as u16, at, pool),
                DataType::UInt32 => map_prim::<_, UInt32Type>(v, nulls, |x| x as u32, at, pool),
                DataType::Int64 => map_prim::<_, Int64Type>(v, nulls, |x| x as i64, at, pool),
                DataType::UInt64 => {
                    map_prim::<_, UInt64Type>(v, nulls, |x| x as u32 as u64, at, pool)
                }
                DataType::Date32 => Ok(Arc::new(prim::<Date32Type>(v, nulls, at, pool)?)),
                DataType::Date64 => {
                    map_prim::<_, Date64Type>(v, nulls, |x| x as i64 * 86_400_000, at, pool)
                }
                DataType::Time32(TimeUnit::Millisecond) => {
                    Ok(Arc::new(prim::<Time32MillisecondType>(v, nulls, at, pool)?))
                }
                DataType::Time32(TimeUnit::Second) => {
                    Ok(Arc::new(prim::<Time32SecondType>(v, nulls, at, pool)?))
                }
                DataType::Timestamp(_, _) => {
                    let v: Vec<i64> = convert(v, pool, i64::from);
                    tz_prim::<Int64Type>(v, nulls, dt, at, pool)
                }
                DataType::Decimal32(p, s) => decimal::<Decimal32Type>(v, nulls, *p, *s, at, pool),
                // Not a type these values make (the other decimal widths
                // are spread as they are widened, above).
                _ => Err(bad()),
            }
        }
        Dense::I64(v) => {
            if matches!(
                dt,
                DataType::Decimal32(..) | DataType::Decimal128(..) | DataType::Decimal256(..)
            ) {
                return int_decimal(v, nulls, dt, at, pool).unwrap_or_else(|| Err(bad()));
            }
            let v = spread(v, n, pool);
            match dt {
                DataType::Int64 => Ok(Arc::new(prim::<Int64Type>(v, nulls, at, pool)?)),
                DataType::UInt64 => map_prim::<_, UInt64Type>(v, nulls, |x| x as u64, at, pool),
                DataType::Date64 => Ok(Arc::new(prim::<Date64Type>(v, nulls, at, pool)?)),
                DataType::Time64(_) | DataType::Timestamp(_, _) | DataType::Duration(_) => {
                    tz_prim::<Int64Type>(v, nulls, dt, at, pool)
                }
                DataType::Decimal64(p, s) => decimal::<Decimal64Type>(v, nulls, *p, *s, at, pool),
                // Not a type these values make (the other decimal widths
                // are spread as they are widened, above).
                _ => Err(bad()),
            }
        }
        Dense::I96(v) => match dt {
            DataType::Timestamp(unit, _) => {
                let unit = *unit;
                let v: Vec<i64> = convert(v, pool, |x| int96_to(x, unit));
                tz_prim::<Int64Type>(spread(v, n, pool), nulls, dt, at, pool)
            }
            _ => Err(bad()),
        },
        Dense::F32(v) => {
            same_prim::<Float32Type>(dt, v, nulls, at, pool).unwrap_or_else(|| Err(bad()))
        }
        Dense::F64(v) => {
            same_prim::<Float64Type>(dt, v, nulls, at, pool).unwrap_or_else(|| Err(bad()))
        }
        Dense::Utf8(c) => match dt {
            DataType::Utf8 => c.into_array(nulls, at, pool),
            DataType::Utf8View => {
                let ByteArrays { offsets, values } = c.into_raw();
                let a = views_of(dt, &offsets, values, nulls, true, at, pool);
                pool.put(offsets);
                a
            }
            _ => Err(bad()),
        },
        Dense::LargeUtf8(c) => match dt {
            DataType::LargeUtf8 => c.into_array(nulls, at, pool),
            _ => Err(bad()),
        },
        Dense::Bytes(b) => bytes_to_arrow(b, nulls, dt, at, pool),
        Dense::LargeBytes(b) => large_bytes_to_arrow(b, nulls, dt, at, pool),
        Dense::Fixed(f) => fixed_to_arrow(
            f.width,
            f.data,
            Slots {
                nulls,
                len,
                dt,
                at,
                pool,
            },
        ),
    }
}

/// Big-endian two's complement values of `width` bytes (1 to 16) to
/// `i128`, sign-extended: specialised per width, so each value is a load,
/// a byte swap and a shift. Other widths give no values.
fn be_i128s(data: &[u8], width: usize, pool: &Pool) -> Vec<i128> {
    fn conv<const W: usize>(data: &[u8], out: &mut Vec<i128>) {
        out.extend(data.chunks_exact(W).map(|c| {
            let mut b = [0u8; 16];
            if let Some(high) = b.get_mut(..W) {
                high.copy_from_slice(c);
            }
            i128::from_be_bytes(b) >> (128 - 8 * W as u32)
        }));
    }
    let mut out = pool.take(data.len().checked_div(width).unwrap_or(0));
    macro_rules! by_width {
        ($($w:literal)*) => {
            match width {
                $($w => conv::<$w>(data, &mut out),)*
                _ => {}
            }
        };
    }
    by_width!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16);
    out
}

/// FIXED_LEN_BYTE_ARRAY values to `dt`. Values converted to numbers are
/// converted dense and then spread over the slots; bytes kept as bytes are
/// spread first.
fn fixed_to_arrow(width: usize, data: Vec<u8>, slots: Slots<'_>) -> Result<ArrayRef> {
    let Slots {
        nulls,
        len,
        dt,
        at,
        pool,
    } = slots;
    let n = nulls.as_ref();
    match dt {
        DataType::Decimal128(p, s) if width <= 16 => {
            let v = be_i128s(&data, width, pool);
            pool.put(data);
            let v = spread(v, n, pool);
            decimal::<Decimal128Type>(v, nulls, *p, *s, at, pool)
        }
        DataType::Decimal64(p, s) if width <= 8 => {
            let v = convert(be_i128s(&data, width, pool), pool, |x| x as i64);
            pool.put(data);
            let v = spread(v, n, pool);
            decimal::<Decimal64Type>(v, nulls, *p, *s, at, pool)
        }
        DataType::Decimal32(p, s) if width <= 4 => {
            let v = convert(be_i128s(&data, width, pool), pool, |x| x as i32);
            pool.put(data);
            let v = spread(v, n, pool);
            decimal::<Decimal32Type>(v, nulls, *p, *s, at, pool)
        }
        DataType::Decimal256(p, s) => {
            let v = data.chunks_exact(width.max(1)).map(be_i256).collect();
            let v = spread(v, n, pool);
            decimal::<Decimal256Type>(v, nulls, *p, *s, at, pool)
        }
        DataType::Interval(IntervalUnit::YearMonth) if width == 12 => {
            let v = data
                .chunks_exact(12)
                .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            let v = spread(v, n, pool);
            Ok(Arc::new(prim::<IntervalYearMonthType>(v, nulls, at, pool)?))
        }
        DataType::Interval(IntervalUnit::DayTime) if width == 12 => {
            let v = data
                .chunks_exact(12)
                .map(|b| {
                    IntervalDayTime::new(
                        i32::from_le_bytes([b[4], b[5], b[6], b[7]]),
                        i32::from_le_bytes([b[8], b[9], b[10], b[11]]),
                    )
                })
                .collect();
            let v = spread(v, n, pool);
            Ok(Arc::new(prim::<IntervalDayTimeType>(v, nulls, at, pool)?))
        }
        DataType::FixedSizeBinary(w) => {
            let data = spread_fixed(data, width, n, pool, at)?;
            let a = FixedSizeBinaryArray::try_new(*w, pool.buffer(data), nulls)
                .map_err(|e| arrow_err(at, e))?;
            Ok(Arc::new(a))
        }
        DataType::Float16 => {
            let data = spread_fixed(data, width, n, pool, at)?;
            // A byte vector need not be 2-aligned (an empty one never is:
            // its pointer is 1); copy it then.
            let buf = Buffer::from_vec(data);
            let buf = if buf.as_ptr().align_offset(2) == 0 {
                buf
            } else {
                Buffer::from_slice_ref(buf.as_slice())
            };
            let d = ArrayData::builder(DataType::Float16)
                .len(len)
                .add_buffer(buf)
                .nulls(nulls)
                .build()
                .map_err(|e| arrow_err(at, e))?;
            Ok(make_array(d))
        }
        _ => Err(unsupported(
            at,
            format!("reading a column of this physical type as Arrow {dt}"),
        )),
    }
}

/// A binary array of `o` and `values` (offsets checked in order, then
/// Arrow's checks of their bounds: no pass over the values).
fn binary<T: ByteArrayType<Offset = O>, O: OffsetSize + OffsetSizeTrait>(
    o: Vec<O>,
    values: Vec<u8>,
    nulls: Option<NullBuffer>,
    at: &Location,
    pool: &Pool,
) -> Result<ArrayRef> {
    let o = spread_offsets(o, nulls.as_ref(), pool);
    let offsets = offset_buffer(o, values.len(), at, pool)?;
    let a = GenericByteArray::<T>::try_new(offsets, pool.buffer(values), nulls)
        .map_err(|e| arrow_err(at, e))?;
    Ok(Arc::new(a))
}

/// BYTE_ARRAY values with `i32` offsets to `dt`.
fn bytes_to_arrow(
    b: ByteArrays<i32>,
    nulls: Option<NullBuffer>,
    dt: &DataType,
    at: &Location,
    pool: &Pool,
) -> Result<ArrayRef> {
    let n = nulls.as_ref();
    let ByteArrays { offsets: o, values } = b;
    match dt {
        DataType::Binary => binary::<BinaryType, _>(o, values, nulls, at, pool),
        // Strings that did not come through a checked decoder (a dictionary
        // with an invalid string): checked whole.
        DataType::Utf8 => CheckedUtf8::check_parts(o, values, at)?.into_array(nulls, at, pool),
        // Views into the values (strings checked as the array is built).
        DataType::BinaryView | DataType::Utf8View => {
            let a = views_of(dt, &o, values, nulls, false, at, pool);
            pool.put(o);
            a
        }
        DataType::Decimal128(p, s) => {
            let v = byte_values(&o, &values).map(be_i128).collect();
            decimal::<Decimal128Type>(spread(v, n, pool), nulls, *p, *s, at, pool)
        }
        DataType::Decimal256(p, s) => {
            let v = byte_values(&o, &values).map(be_i256).collect();
            decimal::<Decimal256Type>(spread(v, n, pool), nulls, *p, *s, at, pool)
        }
        _ => Err(unsupported_bytes(dt, at)),
    }
}

/// BYTE_ARRAY values with `i64` offsets to `dt`.
fn large_bytes_to_arrow(
    b: ByteArrays<i64>,
    nulls: Option<NullBuffer>,
    dt: &DataType,
    at: &Location,
    pool: &Pool,
) -> Result<ArrayRef> {
    let ByteArrays { offsets: o, values } = b;
    match dt {
        DataType::LargeBinary => binary::<LargeBinaryType, _>(o, values, nulls, at, pool),
        DataType::LargeUtf8 => CheckedUtf8::check_parts(o, values, at)?.into_array(nulls, at, pool),
        _ => Err(unsupported_bytes(dt, at)),
    }
}

fn unsupported_bytes(dt: &DataType, at: &Location) -> crate::error::Error {
    unsupported(at, format!("reading a BYTE_ARRAY column as Arrow {dt}"))
}

fn byte_values<'a>(o: &'a [i32], values: &'a [u8]) -> impl Iterator<Item = &'a [u8]> + 'a {
    o.windows(2).map(move |w| {
        values
            .get(w[0].max(0) as usize..w[1].max(0) as usize)
            .unwrap_or_default()
    })
}

/// Which offsets a BYTE_ARRAY column read as `dt` needs.
pub(crate) fn wants_large_offsets(dt: &DataType) -> bool {
    matches!(dt, DataType::LargeBinary | DataType::LargeUtf8)
        || matches!(dt, DataType::Dictionary(_, v) if wants_large_offsets(v))
}

/// The largest of `keys` (0 for none), in sixteen lanes: one running
/// maximum is a chain of dependent compares (on baseline x86-64, three
/// instructions a step), sixteen are independent and fill the vector unit.
/// For a predicate's columns read as keys this pass was 5 % of a filtered
/// read.
fn max_key(keys: &[u32]) -> u32 {
    let mut lanes = [0u32; 16];
    let chunks = keys.chunks_exact(16);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (m, &k) in lanes.iter_mut().zip(chunk) {
            *m = (*m).max(k);
        }
    }
    lanes
        .into_iter()
        .chain(rest.iter().copied())
        .max()
        .unwrap_or(0)
}

/// A dictionary array of `key_type` keys: `keys` are the dense (non-null)
/// keys, spread over `nulls` (or already one per slot when `spaced`).
pub(crate) fn dictionary_array(
    key_type: &DataType,
    keys: Vec<u32>,
    spaced: bool,
    nulls: Option<NullBuffer>,
    values: ArrayRef,
    at: &Location,
    pool: &Pool,
) -> Result<ArrayRef> {
    let nulls = nulls.filter(|n| n.null_count() > 0);
    let keys = if spaced {
        keys
    } else {
        spread(keys, nulls.as_ref(), pool)
    };
    fn make<K: ArrowDictionaryKeyType>(
        keys: Vec<u32>,
        nulls: Option<NullBuffer>,
        values: ArrayRef,
        at: &Location,
    ) -> Result<ArrayRef> {
        use arrow_buffer::ArrowNativeType;
        // One check of the largest key, then a plain conversion (in place
        // for 32-bit keys).
        let max = max_key(&keys);
        if K::Native::from_usize(max as usize).is_none() {
            return Err(data_err(
                at,
                format!("dictionary key {max} does not fit the key type"),
            ));
        }
        let k: Vec<K::Native> = keys
            .into_iter()
            .map(|k| K::Native::usize_as(k as usize))
            .collect();
        let keys = PrimitiveArray::<K>::try_new(ScalarBuffer::from(k), nulls)
            .map_err(|e| arrow_err(at, e))?;
        if (max as usize) < values.len() {
            // SAFETY: every key, null slots' included, is at most `max`,
            // below the values' length: each is in bounds, which is all
            // `new_unchecked` asks. `try_new` would check each key again (a
            // second pass over every key of a predicate's column read as
            // keys: 6 % of a filtered read).
            return Ok(Arc::new(unsafe {
                DictionaryArray::<K>::new_unchecked(keys, values)
            }));
        }
        // A key past the values (or no values): `try_new` says which.
        Ok(Arc::new(
            DictionaryArray::<K>::try_new(keys, values).map_err(|e| arrow_err(at, e))?,
        ))
    }
    match key_type {
        DataType::Int8 => make::<Int8Type>(keys, nulls, values, at),
        DataType::Int16 => make::<Int16Type>(keys, nulls, values, at),
        DataType::Int32 => make::<Int32Type>(keys, nulls, values, at),
        DataType::Int64 => make::<Int64Type>(keys, nulls, values, at),
        DataType::UInt8 => make::<UInt8Type>(keys, nulls, values, at),
        DataType::UInt16 => make::<UInt16Type>(keys, nulls, values, at),
        DataType::UInt32 => make::<UInt32Type>(keys, nulls, values, at),
        DataType::UInt64 => make::<UInt64Type>(keys, nulls, values, at),
        other => Err(unsupported(at, format!("dictionary key type {other}"))),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    use crate::column::byte_arrays::FixedBytes;
    use arrow_array::cast::AsArray;

    #[test]
    fn booleans_pack_as_arrow_packs_them() {
        let pool = Pool::new(1 << 20);
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for len in (0..200).chain([1000, 4097]) {
            let v: Vec<bool> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x & 1 == 1
                })
                .collect();
            assert_eq!(
                pack_bools(&v, &pool),
                BooleanBuffer::from(v.as_slice()),
                "{len}"
            );
        }
    }

    fn pool() -> Pool {
        Pool::new(1 << 20)
    }

    fn bytes(offsets: Vec<i32>, values: &[u8]) -> Dense {
        Dense::Bytes(ByteArrays {
            offsets,
            values: values.to_vec(),
        })
    }

    fn fixed(width: usize, data: &[u8]) -> Dense {
        Dense::Fixed(FixedBytes {
            width,
            data: data.to_vec(),
        })
    }

    #[test]
    fn null_fixed_slots_past_the_batch_cap_are_an_error() {
        let nulls = NullBuffer::from(vec![true, false, false, true]);
        let a = to_arrow(
            fixed(3, b"abcdef"),
            Some(nulls.clone()),
            4,
            &DataType::FixedSizeBinary(3),
            &Location::default(),
            &pool(),
        )
        .unwrap();
        assert_eq!(a.as_fixed_size_binary().value(3), b"def");
        // A width from a damaged schema, every slot null: no bytes in the
        // file, terabytes asked of the allocator.
        let r = to_arrow(
            fixed(i32::MAX as usize, &[]),
            Some(NullBuffer::new_null(1024)),
            1024,
            &DataType::FixedSizeBinary(i32::MAX),
            &Location::default(),
            &pool(),
        );
        let e = r.unwrap_err().to_string();
        assert!(e.contains("1024 slots of 2147483647-byte values"), "{e}");
    }

    #[test]
    fn float16_from_no_values_is_aligned() {
        let halves = |bytes: &[u8]| {
            let n = bytes.len() / 2;
            to_arrow(
                fixed(2, bytes),
                None,
                n,
                &DataType::Float16,
                &Location::default(),
                &pool(),
            )
        };
        // An empty list's child: no bytes, a dangling byte pointer.
        assert_eq!(halves(&[]).unwrap().len(), 0);
        let a = halves(&[0x00, 0x3c, 0x00, 0xc0]).unwrap();
        let v = a.as_primitive::<Float16Type>();
        assert_eq!(v.value(0).to_f32(), 1.0);
        assert_eq!(v.value(1).to_f32(), -2.0);
    }

    #[test]
    fn spread_places_values_at_the_valid_slots() {
        let nulls = NullBuffer::from(vec![false, true, true, false, true, false]);
        assert_eq!(
            spread(vec![1, 2, 3], Some(&nulls), &pool()),
            vec![0, 1, 2, 0, 3, 0]
        );
        // Fewer values than valid slots (rejected earlier): defaults.
        assert_eq!(
            spread(vec![1], Some(&nulls), &pool()),
            vec![0, 1, 0, 0, 0, 0]
        );
        assert_eq!(
            spread_offsets(vec![0, 2, 5, 6], Some(&nulls), &pool()),
            vec![0, 0, 2, 5, 5, 6, 6]
        );
        assert_eq!(spread(vec![4, 5], None, &pool()), vec![4, 5]);
    }

    /// The word-at-a-time spread against a slot-by-slot one: lengths around
    /// the 64-slot words, all-valid and mixed words, and a sliced (offset)
    /// validity buffer.
    #[test]
    fn spread_matches_slot_by_slot() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for n in [1usize, 63, 64, 65, 127, 128, 200, 1000] {
            for density in [0u64, 1, 50, 99, 100] {
                for offset in [0usize, 3] {
                    let bits: Vec<bool> = (0..n + offset)
                        .map(|_| {
                            seed ^= seed << 13;
                            seed ^= seed >> 7;
                            seed ^= seed << 17;
                            seed % 100 < density
                        })
                        .collect();
                    let nulls = NullBuffer::from(bits).slice(offset, n);
                    let dense: Vec<i64> =
                        (1..=nulls.len() as i64 - nulls.null_count() as i64).collect();
                    let mut want = Vec::new();
                    let mut k = 0;
                    for valid in nulls.iter() {
                        want.push(if valid { dense[k] } else { 0 });
                        k += usize::from(valid);
                    }
                    // Widened on the way, as INT64 decimals are.
                    let wide: Vec<i128> = want.iter().map(|&x| i128::from(x) << 64).collect();
                    assert_eq!(
                        spread_map(dense.clone(), Some(&nulls), &pool(), |x| i128::from(x)
                            << 64),
                        wide,
                        "n {n} density {density} offset {offset}"
                    );
                    assert_eq!(
                        spread(dense, Some(&nulls), &pool()),
                        want,
                        "n {n} density {density} offset {offset}"
                    );
                }
            }
        }
    }

    #[test]
    fn strings_with_nulls_take_the_trusted_path() {
        let nulls = NullBuffer::from(vec![true, false, true, false]);
        let a = to_arrow(
            bytes(vec![0, 2, 5], b"abcde"),
            Some(nulls),
            4,
            &DataType::Utf8,
            &Location::default(),
            &pool(),
        )
        .unwrap();
        let s = a.as_string::<i32>();
        assert_eq!(s.value_offsets(), &[0, 2, 2, 5, 5]);
        assert_eq!(s.value(0), "ab");
        assert!(s.is_null(1));
        assert_eq!(s.value(2), "cde");
        // Arrow's own validation agrees with what was built unchecked.
        a.to_data().validate_full().unwrap();
    }

    #[test]
    fn dictionary_keys_are_checked_against_the_values() {
        let values: ArrayRef = Arc::new(Int64Array::from(vec![10, 20, 30]));
        let make = |keys: Vec<u32>, nulls: Option<NullBuffer>, values: ArrayRef| {
            dictionary_array(
                &DataType::Int32,
                keys,
                true,
                nulls,
                values,
                &Location::default(),
                &pool(),
            )
        };
        // In bounds (nulls' keys included): the array the checked
        // constructor builds.
        let nulls = NullBuffer::from(vec![true, false, true, true]);
        let a = make(vec![2, 0, 1, 2], Some(nulls.clone()), values.clone()).unwrap();
        let keys = Int32Array::new(vec![2, 0, 1, 2].into(), Some(nulls));
        let want = DictionaryArray::<Int32Type>::try_new(keys, values.clone()).unwrap();
        assert_eq!(a.as_ref(), &want as &dyn Array);
        a.to_data().validate_full().unwrap();
        // A key past the values, valid or under a null, and any key of an
        // empty dictionary: errors, never an array with keys out of bounds.
        assert!(make(vec![0, 3], None, values.clone()).is_err());
        let empty: ArrayRef = Arc::new(Int64Array::from(Vec::<i64>::new()));
        assert!(make(vec![0], None, empty).is_err());
        if let Ok(a) = make(
            vec![0, 3],
            Some(NullBuffer::from(vec![true, false])),
            values,
        ) {
            a.to_data().validate_full().unwrap();
        }
    }

    #[test]
    fn invalid_utf8_is_an_error_unless_checked_by_the_dictionary() {
        let read_as = |dt: &DataType| {
            let values = bytes(vec![0, 1, 3], b"a\xff\xfe");
            to_arrow(values, None, 2, dt, &Location::default(), &pool())
        };
        assert!(read_as(&DataType::Utf8).is_err());
        // Binary takes the same bytes as they are.
        let a = read_as(&DataType::Binary).unwrap();
        assert_eq!(a.as_binary::<i32>().value(1), b"\xff\xfe");
    }

    /// The per-width decimal conversion against the byte-by-byte one, for
    /// every width, positive and negative values.
    #[test]
    fn decimals_of_every_width_match_the_general_conversion() {
        let mut seed = 0x1234_5678_9abc_def1u64;
        for width in 1..=16usize {
            let data: Vec<u8> = (0..width * 50)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect();
            let want: Vec<i128> = data.chunks_exact(width).map(be_i128).collect();
            assert_eq!(be_i128s(&data, width, &pool()), want, "width {width}");
            assert!(want.iter().any(|&v| v < 0) && want.iter().any(|&v| v > 0));
        }
        assert_eq!(be_i128(&[0xff, 0x85]), -123);
        assert_eq!(be_i256(&[0x00, 0x80]).as_i128(), 128);
    }

    #[test]
    fn int96_in_every_unit() {
        // The day after the epoch, 1.5 s in.
        let ns = 1_500_000_000u64;
        let v = [ns as u32, (ns >> 32) as u32, JULIAN_DAY_OF_EPOCH as u32 + 1];
        assert_eq!(int96_to(v, TimeUnit::Second), 86_401);
        assert_eq!(int96_to(v, TimeUnit::Millisecond), 86_401_500);
        assert_eq!(int96_to(v, TimeUnit::Microsecond), 86_401_500_000);
        assert_eq!(int96_to(v, TimeUnit::Nanosecond), 86_401_500_000_000);
    }

    #[test]
    fn offsets_out_of_order_or_past_the_values_are_errors() {
        // Decreasing offsets, and offsets past the values, from a decoder
        // with a bug: errors, not arrays.
        for (offsets, values) in [(vec![0, 3, 1, 4], &b"abcd"[..]), (vec![0, 5], &b"abc"[..])] {
            for dt in [DataType::Binary, DataType::Utf8, DataType::BinaryView] {
                let r = to_arrow(
                    bytes(offsets.clone(), values),
                    None,
                    offsets.len() - 1,
                    &dt,
                    &Location::default(),
                    &pool(),
                );
                assert!(r.is_err(), "{offsets:?} as {dt}");
            }
        }
    }
}
