//! From dense physical values plus a validity bitmap to an Arrow array of
//! the field's type: INT96 timestamps, decimals from every physical type,
//! FLOAT16, intervals, unsigned integers, dates, times and timestamps.

use std::sync::Arc;

use arrow_array::types::*;
use arrow_array::*;
use arrow_buffer::{
    BooleanBuffer, Buffer, IntervalDayTime, NullBuffer, OffsetBuffer, ScalarBuffer, i256,
};
use arrow_data::ArrayData;
use arrow_schema::{DataType, IntervalUnit, TimeUnit};

use crate::column::values::{Dense, Offsets};
use crate::error::{Location, Result, arrow_err, data_err, unsupported};
use crate::pool::Pool;

const JULIAN_DAY_OF_EPOCH: i64 = 2_440_588;

/// Spreads dense values over `nulls.len()` slots: slot `i` gets the next
/// dense value when valid, `T::default()` when null. The validity is read
/// 64 slots at a time: a word of 64 valid slots is one copy, any other word
/// a step per valid slot, found by its bit without a branch per slot
/// (validity of real data is hard to predict).
fn spread<T: Copy + Default + Send + 'static>(
    dense: Vec<T>,
    nulls: Option<&NullBuffer>,
    pool: &Pool,
) -> Vec<T> {
    let Some(nulls) = nulls else { return dense };
    if nulls.null_count() == 0 {
        return dense;
    }
    let n = nulls.len();
    let mut out = pool.take(n);
    out.resize(n, T::default());
    let mut k = 0usize;
    for (w, word) in nulls.inner().bit_chunks().iter_padded().enumerate() {
        let s = w * 64;
        let m = n.saturating_sub(s).min(64);
        let Some(slots) = out.get_mut(s..s + m) else {
            break;
        };
        if word == u64::MAX
            && let Some(src) = dense.get(k..k + m)
        {
            slots.copy_from_slice(src);
            k += m;
            continue;
        }
        // Mixed: each valid slot, found by its bit, takes the next value;
        // null slots keep the default they were created with.
        let cnt = word.count_ones() as usize;
        // (Fewer values than valid slots is rejected before; should it
        // happen, the slots past the values keep the default.)
        let src = dense.get(k..(k + cnt).min(dense.len())).unwrap_or_default();
        let mut bits = word;
        for &v in src {
            if let Some(slot) = slots.get_mut(bits.trailing_zeros() as usize) {
                *slot = v;
            }
            bits &= bits.wrapping_sub(1);
        }
        k += cnt;
    }
    pool.put(dense);
    out
}

/// Most bytes the slots of one batch of fixed-length values may take. Null
/// slots hold `width` zero bytes each, which the file does not store, so a
/// width from a damaged schema could otherwise ask for terabytes.
const MAX_FIXED_BATCH_BYTES: usize = 1 << 30;

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

fn spread_offsets<O: Copy + Default + Send + 'static>(
    dense: Vec<O>,
    nulls: Option<&NullBuffer>,
    pool: &Pool,
) -> Vec<O> {
    let Some(nulls) = nulls else { return dense };
    if nulls.null_count() == 0 {
        return dense;
    }
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

fn decimal<T: DecimalType>(a: PrimitiveArray<T>, p: u8, s: i8, at: &Location) -> Result<ArrayRef> {
    Ok(Arc::new(
        a.with_precision_and_scale(p, s)
            .map_err(|e| arrow_err(at, e))?,
    ))
}

/// Big-endian two's complement bytes to i128 (sign-extended).
fn be_i128(b: &[u8]) -> i128 {
    let mut buf = if b.first().is_some_and(|x| x & 0x80 != 0) {
        [0xffu8; 16]
    } else {
        [0u8; 16]
    };
    let n = b.len().min(16);
    let src = b.get(b.len() - n..).unwrap_or_default();
    if let Some(dst) = buf.get_mut(16 - n..) {
        dst.copy_from_slice(src);
    }
    i128::from_be_bytes(buf)
}

fn be_i256(b: &[u8]) -> i256 {
    let mut buf = if b.first().is_some_and(|x| x & 0x80 != 0) {
        [0xffu8; 32]
    } else {
        [0u8; 32]
    };
    let n = b.len().min(32);
    let src = b.get(b.len() - n..).unwrap_or_default();
    if let Some(dst) = buf.get_mut(32 - n..) {
        dst.copy_from_slice(src);
    }
    i256::from_be_bytes(buf)
}

fn int96_to(v: [u32; 3], unit: TimeUnit) -> i64 {
    let nanos = ((v[1] as i64) << 32) | v[0] as i64;
    // The Julian day is unsigned, as pyarrow reads it.
    let day = v[2] as i64 - JULIAN_DAY_OF_EPOCH;
    match unit {
        TimeUnit::Second => day.wrapping_mul(86_400).wrapping_add(nanos / 1_000_000_000),
        TimeUnit::Millisecond => day.wrapping_mul(86_400_000).wrapping_add(nanos / 1_000_000),
        TimeUnit::Microsecond => day.wrapping_mul(86_400_000_000).wrapping_add(nanos / 1_000),
        TimeUnit::Nanosecond => day.wrapping_mul(86_400_000_000_000).wrapping_add(nanos),
    }
}

/// Builds the Arrow array of type `dt` from `dense` values and `nulls`
/// (`None`: all `len` slots valid).
pub(crate) fn to_arrow(
    dense: Dense,
    nulls: Option<NullBuffer>,
    len: usize,
    dt: &DataType,
    utf8_checked: bool,
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
                Ok(Arc::new(BooleanArray::new(BooleanBuffer::from(v), nulls)))
            }
            _ => Err(bad()),
        },
        Dense::I32(v) => {
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
                DataType::Decimal32(p, s) => {
                    decimal(prim::<Decimal32Type>(v, nulls, at, pool)?, *p, *s, at)
                }
                DataType::Decimal64(p, s) => {
                    let v = convert(v, pool, i64::from);
                    decimal(prim::<Decimal64Type>(v, nulls, at, pool)?, *p, *s, at)
                }
                DataType::Decimal128(p, s) => {
                    let v = convert(v, pool, i128::from);
                    decimal(prim::<Decimal128Type>(v, nulls, at, pool)?, *p, *s, at)
                }
                DataType::Decimal256(p, s) => {
                    let v = convert(v, pool, i256::from);
                    decimal(prim::<Decimal256Type>(v, nulls, at, pool)?, *p, *s, at)
                }
                _ => Err(bad()),
            }
        }
        Dense::I64(v) => {
            let v = spread(v, n, pool);
            match dt {
                DataType::Int64 => Ok(Arc::new(prim::<Int64Type>(v, nulls, at, pool)?)),
                DataType::UInt64 => map_prim::<_, UInt64Type>(v, nulls, |x| x as u64, at, pool),
                DataType::Date64 => Ok(Arc::new(prim::<Date64Type>(v, nulls, at, pool)?)),
                DataType::Time64(_) | DataType::Timestamp(_, _) | DataType::Duration(_) => {
                    tz_prim::<Int64Type>(v, nulls, dt, at, pool)
                }
                DataType::Decimal64(p, s) => {
                    decimal(prim::<Decimal64Type>(v, nulls, at, pool)?, *p, *s, at)
                }
                DataType::Decimal32(p, s) => {
                    let v = convert(v, pool, |x| x as i32);
                    decimal(prim::<Decimal32Type>(v, nulls, at, pool)?, *p, *s, at)
                }
                DataType::Decimal128(p, s) => {
                    let v = convert(v, pool, i128::from);
                    decimal(prim::<Decimal128Type>(v, nulls, at, pool)?, *p, *s, at)
                }
                DataType::Decimal256(p, s) => {
                    let v = convert(v, pool, i256::from);
                    decimal(prim::<Decimal256Type>(v, nulls, at, pool)?, *p, *s, at)
                }
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
        Dense::F32(v) => match dt {
            DataType::Float32 => Ok(Arc::new(prim::<Float32Type>(
                spread(v, n, pool),
                nulls,
                at,
                pool,
            )?)),
            _ => Err(bad()),
        },
        Dense::F64(v) => match dt {
            DataType::Float64 => Ok(Arc::new(prim::<Float64Type>(
                spread(v, n, pool),
                nulls,
                at,
                pool,
            )?)),
            _ => Err(bad()),
        },
        Dense::Bytes { offsets, values } => {
            bytes_to_arrow(offsets, values, nulls, dt, utf8_checked, at, pool)
        }
        Dense::Fixed { width, data } => {
            let data = spread_fixed(data, width, n, pool, at)?;
            match dt {
                DataType::FixedSizeBinary(w) => {
                    let a = FixedSizeBinaryArray::try_new(*w, pool.buffer(data), nulls)
                        .map_err(|e| arrow_err(at, e))?;
                    Ok(Arc::new(a))
                }
                DataType::Float16 => {
                    // A byte vector need not be 2-aligned (an empty one
                    // never is: its pointer is 1); copy it then.
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
                DataType::Decimal128(p, s) if width <= 16 => {
                    let v = data.chunks_exact(width.max(1)).map(be_i128).collect();
                    decimal(prim::<Decimal128Type>(v, nulls, at, pool)?, *p, *s, at)
                }
                DataType::Decimal256(p, s) => {
                    let v = data.chunks_exact(width.max(1)).map(be_i256).collect();
                    decimal(prim::<Decimal256Type>(v, nulls, at, pool)?, *p, *s, at)
                }
                DataType::Decimal64(p, s) if width <= 8 => {
                    let v = data
                        .chunks_exact(width.max(1))
                        .map(|b| be_i128(b) as i64)
                        .collect();
                    decimal(prim::<Decimal64Type>(v, nulls, at, pool)?, *p, *s, at)
                }
                DataType::Decimal32(p, s) if width <= 4 => {
                    let v = data
                        .chunks_exact(width.max(1))
                        .map(|b| be_i128(b) as i32)
                        .collect();
                    decimal(prim::<Decimal32Type>(v, nulls, at, pool)?, *p, *s, at)
                }
                DataType::Interval(IntervalUnit::YearMonth) if width == 12 => {
                    let v = data
                        .chunks_exact(12)
                        .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                        .collect();
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
                    Ok(Arc::new(prim::<IntervalDayTimeType>(v, nulls, at, pool)?))
                }
                _ => Err(bad()),
            }
        }
    }
}

/// The first value of `offsets`/`values` that is not valid UTF-8, by index.
pub(crate) fn check_utf8<O: Copy + Into<i64>>(
    offsets: &[O],
    values: &[u8],
    at: &Location,
) -> Result<()> {
    // ASCII text (most text in practice) is valid UTF-8 with a character
    // boundary at every byte, so no offset needs a look: one fast pass.
    if values.is_ascii() {
        return Ok(());
    }
    let all = std::str::from_utf8(values);
    let boundaries_ok = match &all {
        Ok(s) => offsets.iter().all(|o| {
            let o: i64 = (*o).into();
            usize::try_from(o).is_ok_and(|o| s.is_char_boundary(o))
        }),
        Err(_) => false,
    };
    if boundaries_ok {
        return Ok(());
    }
    for (i, w) in offsets.windows(2).enumerate() {
        let (a, b): (i64, i64) = (w[0].into(), w[1].into());
        let v = values
            .get(a.max(0) as usize..b.max(0) as usize)
            .unwrap_or_default();
        if let Err(e) = std::str::from_utf8(v) {
            return Err(data_err(
                &at.clone().at_row(i),
                format!("invalid UTF-8 in value {i} (non-null value index): {e}"),
            ));
        }
    }
    Err(data_err(at, "invalid UTF-8"))
}

/// A string or binary array from offsets built by this crate's decoders
/// and values whose UTF-8 the caller has checked (for strings).
///
/// Arrow's own construction checks the offsets and the UTF-8 again, a pass
/// over every value; it is skipped when the offsets start at 0, end at the
/// values' length and match the validity in length, which the decoders
/// guarantee. Otherwise the checked construction runs.
fn byte_array<T: ByteArrayType>(
    o: Vec<T::Offset>,
    values: Vec<u8>,
    nulls: Option<NullBuffer>,
    at: &Location,
    pool: &Pool,
) -> Result<ArrayRef> {
    use arrow_buffer::ArrowNativeType;
    let trusted = o.first().is_some_and(|f| f.as_usize() == 0)
        && o.last().is_some_and(|l| l.as_usize() == values.len())
        && nulls.as_ref().is_none_or(|n| n.len() + 1 == o.len());
    let values = pool.buffer(values);
    if trusted {
        // SAFETY: every decoder appends a value's bytes and then pushes the
        // new length of `values` as the next offset, and nulls repeat the
        // previous offset (`spread_offsets`), so the offsets never decrease;
        // the first is 0 and the last the values' length (checked above),
        // so every range is in bounds. Strings were checked by `check_utf8`
        // (the whole buffer valid, every offset on a char boundary), or were
        // gathered whole from a dictionary checked so: a concatenation of
        // valid strings, split at their boundaries.
        let offsets = unsafe { OffsetBuffer::new_unchecked(scalars(o, pool)) };
        // SAFETY: as above; the validity has one entry per value (checked).
        let a = unsafe { GenericByteArray::<T>::new_unchecked(offsets, values, nulls) };
        return Ok(Arc::new(a));
    }
    let offsets = OffsetBuffer::new(scalars(o, pool));
    Ok(Arc::new(
        GenericByteArray::<T>::try_new(offsets, values, nulls).map_err(|e| arrow_err(at, e))?,
    ))
}

fn bytes_to_arrow(
    offsets: Offsets,
    values: Vec<u8>,
    nulls: Option<NullBuffer>,
    dt: &DataType,
    utf8_checked: bool,
    at: &Location,
    pool: &Pool,
) -> Result<ArrayRef> {
    let n = nulls.as_ref();
    match (offsets, dt) {
        (Offsets::I32(o), DataType::Binary | DataType::Utf8) => {
            let o = if o.is_empty() { vec![0] } else { o };
            if matches!(dt, DataType::Utf8) {
                if !utf8_checked {
                    check_utf8(&o, &values, at)?;
                }
                byte_array::<Utf8Type>(spread_offsets(o, n, pool), values, nulls, at, pool)
            } else {
                byte_array::<BinaryType>(spread_offsets(o, n, pool), values, nulls, at, pool)
            }
        }
        (Offsets::I64(o), DataType::LargeBinary | DataType::LargeUtf8) => {
            let o = if o.is_empty() { vec![0] } else { o };
            if matches!(dt, DataType::LargeUtf8) {
                if !utf8_checked {
                    check_utf8(&o, &values, at)?;
                }
                byte_array::<LargeUtf8Type>(spread_offsets(o, n, pool), values, nulls, at, pool)
            } else {
                byte_array::<LargeBinaryType>(spread_offsets(o, n, pool), values, nulls, at, pool)
            }
        }
        (Offsets::I32(o), DataType::Utf8View | DataType::BinaryView) => {
            let o = if o.is_empty() { vec![0] } else { o };
            if matches!(dt, DataType::Utf8View) && !utf8_checked {
                check_utf8(&o, &values, at)?;
            }
            let o = OffsetBuffer::new(ScalarBuffer::from(spread_offsets(o, n, pool)));
            let bin = BinaryArray::try_new(o, Buffer::from_vec(values), nulls)
                .map_err(|e| arrow_err(at, e))?;
            let view = BinaryViewArray::from(&bin);
            Ok(if matches!(dt, DataType::Utf8View) {
                // Validated above.
                Arc::new(view.to_string_view().map_err(|e| arrow_err(at, e))?)
            } else {
                Arc::new(view)
            })
        }
        (Offsets::I32(o), DataType::Decimal128(p, s)) => {
            let v = byte_values(&o, &values).map(be_i128).collect();
            decimal(
                prim::<Decimal128Type>(spread(v, n, pool), nulls, at, pool)?,
                *p,
                *s,
                at,
            )
        }
        (Offsets::I32(o), DataType::Decimal256(p, s)) => {
            let v = byte_values(&o, &values).map(be_i256).collect();
            decimal(
                prim::<Decimal256Type>(spread(v, n, pool), nulls, at, pool)?,
                *p,
                *s,
                at,
            )
        }
        _ => Err(unsupported(
            at,
            format!("reading a BYTE_ARRAY column as Arrow {dt}"),
        )),
    }
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
        let k = keys
            .into_iter()
            .map(|k| {
                K::Native::from_usize(k as usize).ok_or_else(|| {
                    data_err(at, format!("dictionary key {k} does not fit the key type"))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let keys = PrimitiveArray::<K>::try_new(ScalarBuffer::from(k), nulls)
            .map_err(|e| arrow_err(at, e))?;
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
    use arrow_array::cast::AsArray;

    fn pool() -> Pool {
        Pool::new(1 << 20)
    }

    fn bytes(offsets: Vec<i32>, values: &[u8]) -> Dense {
        Dense::Bytes {
            offsets: Offsets::I32(offsets),
            values: values.to_vec(),
        }
    }

    #[test]
    fn null_fixed_slots_past_the_batch_cap_are_an_error() {
        let nulls = NullBuffer::from(vec![true, false, false, true]);
        let a = to_arrow(
            Dense::Fixed {
                width: 3,
                data: b"abcdef".to_vec(),
            },
            Some(nulls.clone()),
            4,
            &DataType::FixedSizeBinary(3),
            false,
            &Location::default(),
            &pool(),
        )
        .unwrap();
        assert_eq!(a.as_fixed_size_binary().value(3), b"def");
        // A width from a damaged schema, every slot null: no bytes in the
        // file, terabytes asked of the allocator.
        let r = to_arrow(
            Dense::Fixed {
                width: i32::MAX as usize,
                data: Vec::new(),
            },
            Some(NullBuffer::new_null(1024)),
            1024,
            &DataType::FixedSizeBinary(i32::MAX),
            false,
            &Location::default(),
            &pool(),
        );
        let e = r.unwrap_err().to_string();
        assert!(e.contains("1024 slots of 2147483647-byte values"), "{e}");
    }

    #[test]
    fn float16_from_no_values_is_aligned() {
        // An empty list's child: no bytes, a dangling byte pointer.
        let empty = Dense::Fixed {
            width: 2,
            data: Vec::new(),
        };
        let a = to_arrow(
            empty,
            None,
            0,
            &DataType::Float16,
            false,
            &Location::default(),
            &pool(),
        );
        assert_eq!(a.unwrap().len(), 0);
        let two = Dense::Fixed {
            width: 2,
            data: vec![0x00, 0x3c, 0x00, 0xc0],
        };
        let a = to_arrow(
            two,
            None,
            2,
            &DataType::Float16,
            false,
            &Location::default(),
            &pool(),
        )
        .unwrap();
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
            false,
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
    fn invalid_utf8_is_an_error_unless_checked_by_the_dictionary() {
        let r = to_arrow(
            bytes(vec![0, 1, 3], b"a\xff\xfe"),
            None,
            2,
            &DataType::Utf8,
            false,
            &Location::default(),
            &pool(),
        );
        assert!(r.is_err());
        // Binary takes the same bytes as they are.
        let a = to_arrow(
            bytes(vec![0, 1, 3], b"a\xff\xfe"),
            None,
            2,
            &DataType::Binary,
            false,
            &Location::default(),
            &pool(),
        )
        .unwrap();
        assert_eq!(a.as_binary::<i32>().value(1), b"\xff\xfe");
    }

    #[test]
    fn offsets_not_ending_at_the_values_use_the_checked_construction() {
        // The last offset stops short of the values: not trusted, and the
        // checked construction accepts it (values past the end are unused).
        let a = byte_array::<Utf8Type>(
            vec![0, 1, 2],
            b"abc".to_vec(),
            None,
            &Location::default(),
            &pool(),
        )
        .unwrap();
        assert_eq!(a.as_string::<i32>().value(1), "b");
        // Offsets past the values are rejected, not trusted.
        let r = std::panic::catch_unwind(|| {
            byte_array::<Utf8Type>(
                vec![0, 4],
                b"abc".to_vec(),
                None,
                &Location::default(),
                &pool(),
            )
        });
        assert!(!matches!(r, Ok(Ok(_))));
    }
}
