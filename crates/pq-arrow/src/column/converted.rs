//! Dictionary-encoded values whose Arrow type is not their physical type
//! (decimals stored as integers or big-endian bytes, INT96 timestamps,
//! halves as two bytes): the dictionary is converted to the Arrow type
//! once, and each batch gathers the converted entries by key.
//!
//! Gathering the physical values and converting each afterwards did the
//! conversion once per value, and for FIXED_LEN_BYTE_ARRAY decimals (as
//! pyarrow writes them) copied a few bytes per value before it: a batch of
//! a dictionary of 50 prices cost as much as 50 thousand conversions. The
//! batch keeps its keys instead (the reader's keys mode), and the entries
//! are gathered straight into the Arrow type, one load and one store each.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, ArrowPrimitiveType, PrimitiveArray, downcast_primitive_array};
use arrow_buffer::{NullBuffer, ScalarBuffer};
use arrow_schema::DataType;

use super::native::gather_small;
use super::values::Dense;
use crate::convert::spread;
use crate::error::{Location, Result, arrow_err, enc_err, unsupported};
use crate::pool::Pool;

/// Whether values of `physical`'s kind read as `dt` are converted one by
/// one (so that a dictionary of them is better converted once): integer
/// decimals of another width, decimals from bytes, INT96 timestamps and
/// halves. Not those whose Arrow values are their physical ones.
pub(crate) fn converts_per_value(physical: &Dense, dt: &DataType) -> bool {
    use DataType as T;
    match physical {
        Dense::I32(_) => matches!(dt, T::Decimal64(..) | T::Decimal128(..) | T::Decimal256(..)),
        Dense::I64(_) => matches!(dt, T::Decimal32(..) | T::Decimal128(..) | T::Decimal256(..)),
        Dense::I96(_) => matches!(dt, T::Timestamp(..)),
        Dense::Fixed(_) | Dense::Bytes(_) | Dense::LargeBytes(_) => {
            matches!(
                dt,
                T::Decimal32(..) | T::Decimal64(..) | T::Decimal128(..) | T::Decimal256(..)
            ) || matches!((physical, dt), (Dense::Fixed(_), T::Float16))
        }
        _ => false,
    }
}

/// The entries of `dict` (a dictionary converted to a primitive Arrow type)
/// at `keys`, spread over `nulls` (`None`: every slot valid, one per key):
/// an array of `dict`'s type. A key past the dictionary is an error.
pub(crate) fn gather(
    dict: &ArrayRef,
    keys: &[u32],
    nulls: Option<NullBuffer>,
    at: &Location,
    pool: &Pool,
) -> Result<ArrayRef> {
    fn typed<T: ArrowPrimitiveType>(
        dict: &PrimitiveArray<T>,
        keys: &[u32],
        nulls: Option<NullBuffer>,
        at: &Location,
        pool: &Pool,
    ) -> Result<ArrayRef> {
        let mut out: Vec<T::Native> = pool.take(keys.len());
        gather_small(dict.values(), keys, &mut out).map_err(|e| enc_err(at, e))?;
        let nulls = nulls.filter(|n| n.null_count() > 0);
        let out = spread(out, nulls.as_ref(), pool);
        let len = out.len();
        let values = ScalarBuffer::new(pool.buffer(out), 0, len);
        let array = PrimitiveArray::<T>::try_new(values, nulls)
            .map_err(|e| arrow_err(at, e))?
            .with_data_type(dict.data_type().clone());
        Ok(Arc::new(array))
    }
    downcast_primitive_array!(
        dict => typed(dict, keys, nulls, at, pool),
        dt => Err(unsupported(at, format!("a dictionary of {dt} gathered by key"))),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use arrow_array::Decimal128Array;
    use arrow_buffer::BooleanBuffer;

    fn prices() -> ArrayRef {
        let v = Decimal128Array::from(vec![150_i128, -7, 99_999])
            .with_precision_and_scale(15, 2)
            .unwrap();
        Arc::new(v)
    }

    /// Keys pick entries in order, null slots get none, and the type (with
    /// its precision and scale) is the dictionary's.
    #[test]
    fn entries_are_gathered_by_key_and_spread_over_the_nulls() {
        let dict = prices();
        let nulls = NullBuffer::new(BooleanBuffer::from(vec![true, false, true, true, false]));
        let pool = Pool::none();
        let at = Location::default();
        let a = gather(&dict, &[2, 0, 1], Some(nulls), &at, &pool).unwrap();
        assert_eq!(a.data_type(), dict.data_type());
        let a = a.as_any().downcast_ref::<Decimal128Array>().unwrap();
        let got: Vec<Option<i128>> = a.iter().collect();
        assert_eq!(got, [Some(99_999), None, Some(150), Some(-7), None]);
        let b = gather(&dict, &[1, 1], None, &at, &pool).unwrap();
        assert_eq!(b.len(), 2);
        assert_eq!(b.null_count(), 0);
    }

    /// A key past the dictionary fails the batch, naming it; none wraps
    /// around to another entry.
    #[test]
    fn a_key_past_the_dictionary_is_an_error() {
        let at = Location::default();
        let e = gather(&prices(), &[0, 3, 1], None, &at, &Pool::none()).unwrap_err();
        assert!(e.to_string().contains('3'), "{e}");
        let e = gather(&prices(), &[256], None, &at, &Pool::none()).unwrap_err();
        assert!(e.to_string().contains("256"), "{e}");
    }

    /// Only conversions that do work per value take this path.
    #[test]
    fn which_reads_convert_per_value() {
        let d128 = DataType::Decimal128(15, 2);
        assert!(converts_per_value(&Dense::I64(vec![]), &d128));
        assert!(converts_per_value(&Dense::I32(vec![]), &d128));
        assert!(!converts_per_value(
            &Dense::I64(vec![]),
            &DataType::Decimal64(15, 2)
        ));
        assert!(!converts_per_value(&Dense::I64(vec![]), &DataType::Int64));
        assert!(!converts_per_value(&Dense::I32(vec![]), &DataType::Date32));
    }
}
