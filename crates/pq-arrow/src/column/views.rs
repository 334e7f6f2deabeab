//! Byte views (Arrow's `Utf8View` and `BinaryView`) made without copying
//! value bytes again.
//!
//! A view is 16 bytes: a value's length and, up to 12 bytes, the value
//! itself; for a longer value, its first 4 bytes and where it lies in one
//! of the array's shared buffers. Views come from two places:
//! - a chunk's dictionary ([`DictViews`]): one view per entry, made once per
//!   chunk over the dictionary's bytes, so that a batch of
//!   dictionary-encoded values is a gather of views by key and no value
//!   byte moves, whatever the values' lengths (query engines ask for views
//!   because this is cheap; DataFusion does by default);
//! - decoded values ([`views_of`]): views into the batch's own value
//!   buffer, made from its offsets.
//!
//! Strings from [`CheckedUtf8`](super::utf8::CheckedUtf8) are valid UTF-8
//! cut at character boundaries, so their views skip Arrow's second pass
//! over the bytes, as their `Utf8` arrays do (with Arrow's validation of
//! every batch, reading the lineitem files of the read bench as views took
//! 1.5-2.2 times as long); binary values, and strings of a dictionary that
//! holds an invalid one, go through Arrow's checked constructor.

use std::sync::Arc;

use arrow_array::builder::make_view;
use arrow_array::{ArrayRef, BinaryViewArray, StringViewArray};
use arrow_buffer::{Buffer, NullBuffer, ScalarBuffer};
use arrow_schema::DataType;
use pq_encoding::offsets::OffsetSize;

use super::values::Dense;
use crate::convert::spread;
use crate::error::{Location, Result, data_err};
use crate::pool::Pool;

/// Whether `dt` is read as views.
pub(crate) fn is_view(dt: &DataType) -> bool {
    matches!(dt, DataType::Utf8View | DataType::BinaryView)
}

/// Appends to `out` the views of the values of `values` that `offsets`
/// (`len + 1` of them, or none) delimit, pointing into buffer 0. Each
/// range is taken with a bounds check, so a view never leaves the values.
fn make_views<O: OffsetSize>(
    offsets: &[O],
    values: &[u8],
    out: &mut Vec<u128>,
    at: &Location,
) -> Result<()> {
    let bad = || data_err(at, "byte array offsets decrease or run past the values");
    out.reserve(offsets.len().saturating_sub(1));
    for pair in offsets.windows(2) {
        let &[start, end] = pair else {
            return Err(bad());
        };
        let (start, end) = (start.as_usize(), end.as_usize());
        let value = values.get(start..end).ok_or_else(bad)?;
        let offset = u32::try_from(start).map_err(|_| {
            data_err(
                at,
                "byte array values past 4 GiB in one batch (a smaller batch size reads them)",
            )
        })?;
        out.push(make_view(value, 0, offset));
    }
    Ok(())
}

/// The view array of `dt` of `dense` views (one per valid slot) spread
/// over `nulls`, sharing `buffer`. `checked`: the views cut valid UTF-8 at
/// character boundaries (see the module docs).
fn view_array(
    dt: &DataType,
    dense: Vec<u128>,
    buffer: Buffer,
    nulls: Option<NullBuffer>,
    checked: bool,
    at: &Location,
    pool: &Pool,
) -> Result<ArrayRef> {
    let valid = nulls
        .as_ref()
        .map_or(dense.len(), |n| n.len() - n.null_count());
    if valid != dense.len() {
        return Err(data_err(
            at,
            format!("{} values decoded for {valid} non-null slots", dense.len()),
        ));
    }
    let views = spread(dense, nulls.as_ref(), pool);
    let len = views.len();
    let views = ScalarBuffer::new(pool.buffer(views), 0, len);
    let bad = |e: arrow_schema::ArrowError| data_err(at, format!("byte array values: {e}"));
    match dt {
        DataType::Utf8View if checked => {
            // SAFETY: each view was made by `make_view` from a bounds-checked
            // range of this buffer (or is the empty view of a null slot), so
            // its length, prefix, buffer index and offset agree with the
            // buffer; the range is valid UTF-8 because the strings it came
            // from are valid UTF-8 and their offsets fall on character
            // boundaries (`CheckedUtf8`'s invariant); the validity has one
            // entry per view (spread gives one view per slot, counted above).
            // `views_of_checked_strings_pass_arrows_checks` holds this
            // against Arrow's own validation.
            let a = unsafe { StringViewArray::new_unchecked(views, vec![buffer], nulls) };
            Ok(Arc::new(a))
        }
        DataType::Utf8View => Ok(Arc::new(
            StringViewArray::try_new(views, vec![buffer], nulls).map_err(bad)?,
        )),
        DataType::BinaryView => Ok(Arc::new(
            BinaryViewArray::try_new(views, vec![buffer], nulls).map_err(bad)?,
        )),
        other => Err(data_err(at, format!("{other} is not a view type"))),
    }
}

/// The values of decoded byte arrays (`offsets`, `values`) as a view
/// array of `dt` over `nulls`: views into `values`, which the array keeps
/// (its memory returns to `pool`).
pub(crate) fn views_of<O: OffsetSize>(
    dt: &DataType,
    offsets: &[O],
    values: Vec<u8>,
    nulls: Option<NullBuffer>,
    checked: bool,
    at: &Location,
    pool: &Pool,
) -> Result<ArrayRef> {
    let mut dense = pool.take(offsets.len().saturating_sub(1));
    make_views(offsets, &values, &mut dense, at)?;
    view_array(dt, dense, pool.buffer(values), nulls, checked, at, pool)
}

/// A chunk's dictionary as views: one per entry, over a copy of its value
/// bytes that every batch's array shares.
#[derive(Debug)]
pub(crate) struct DictViews {
    views: Vec<u128>,
    buffer: Buffer,
    /// The entries are checked strings (see the module docs).
    checked: bool,
}

impl DictViews {
    /// The views of dictionary `dict`; `None` for values that are not byte
    /// arrays.
    pub(crate) fn new(dict: &Dense, at: &Location) -> Result<Option<Self>> {
        let (raw, checked) = match dict {
            Dense::Utf8(c) => (c.raw(), true),
            Dense::Bytes(b) => (b, false),
            _ => return Ok(None),
        };
        let mut views = Vec::new();
        make_views(&raw.offsets, &raw.values, &mut views, at)?;
        Ok(Some(DictViews {
            views,
            buffer: Buffer::from_vec(raw.values.clone()),
            checked,
        }))
    }

    /// The values of dictionary keys `keys` (one per valid slot of `nulls`)
    /// as a view array of `dt`. A key past the dictionary is an error.
    pub(crate) fn gather(
        &self,
        dt: &DataType,
        keys: &[u32],
        nulls: Option<NullBuffer>,
        at: &Location,
        pool: &Pool,
    ) -> Result<ArrayRef> {
        let mut dense: Vec<u128> = pool.take(keys.len());
        let mut past_end = false;
        dense.extend(keys.iter().map(|&k| {
            // One predictable branch per key; the error is reported after
            // the loop so that the loop stays a plain gather.
            let v = usize::try_from(k).ok().and_then(|k| self.views.get(k));
            past_end |= v.is_none();
            v.copied().unwrap_or_default()
        }));
        if past_end {
            pool.put(dense);
            return Err(data_err(
                at,
                format!(
                    "a dictionary index is past the dictionary's {} entries",
                    self.views.len()
                ),
            ));
        }
        view_array(
            dt,
            dense,
            self.buffer.clone(),
            nulls,
            self.checked,
            at,
            pool,
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use arrow_array::{Array, StringArray};

    use super::*;
    use crate::column::utf8::CheckedUtf8;

    fn at() -> Location {
        Location::default()
    }

    fn checked(strings: &[&str]) -> CheckedUtf8<i32> {
        let mut c = CheckedUtf8::with_buffers(Vec::new(), Vec::new());
        c.append_with(&at(), |o, v| {
            for s in strings {
                v.extend_from_slice(s.as_bytes());
                o.push(i32::try_from(v.len()).unwrap());
            }
            Ok(())
        })
        .unwrap();
        c
    }

    /// Short (inline), 12- and 13-byte, long and multi-byte strings.
    const STRINGS: [&str; 7] = [
        "",
        "a",
        "twelve bytes",
        "thirteen byte",
        "a string longer than twelve bytes",
        "größer als zwölf Bytes",
        "ü",
    ];

    #[test]
    fn views_of_checked_strings_pass_arrows_checks() {
        let c = checked(&STRINGS);
        let nulls = NullBuffer::from(vec![true, false, true, true, true, false, true, true, true]);
        let raw = c.raw().clone();
        let a = views_of(
            &DataType::Utf8View,
            &raw.offsets,
            raw.values,
            Some(nulls.clone()),
            true,
            &at(),
            &Pool::none(),
        )
        .unwrap();
        let a = a.as_any().downcast_ref::<StringViewArray>().unwrap();
        // Arrow's own validation of what was built without it.
        StringViewArray::try_new(a.views().clone(), a.data_buffers().to_vec(), None).unwrap();
        let mut want = STRINGS.iter().map(|s| Some(*s));
        let want: Vec<Option<&str>> = nulls
            .iter()
            .map(|v| if v { want.next().unwrap() } else { None })
            .collect();
        assert_eq!(a.iter().collect::<Vec<_>>(), want);
    }

    #[test]
    fn dictionary_views_gather_by_key_and_reject_keys_past_the_end() {
        let dict = Dense::Utf8(checked(&STRINGS));
        let views = DictViews::new(&dict, &at()).unwrap().unwrap();
        let keys = [4u32, 0, 5, 5, 2, 6];
        let a = views
            .gather(&DataType::Utf8View, &keys, None, &at(), &Pool::none())
            .unwrap();
        let want: StringArray = keys.iter().map(|&k| Some(STRINGS[k as usize])).collect();
        let got = arrow_array::cast::AsArray::as_string_view(&a);
        assert_eq!(
            got.iter().collect::<Vec<_>>(),
            want.iter().collect::<Vec<_>>()
        );
        let e = views
            .gather(&DataType::Utf8View, &[1, 7], None, &at(), &Pool::none())
            .unwrap_err();
        assert!(
            e.to_string().contains("past the dictionary's 7 entries"),
            "{e}"
        );
    }

    #[test]
    fn an_unchecked_dictionary_is_checked_when_gathered() {
        // Entry 1 is not UTF-8: gathering entry 0 is fine, entry 1 is not.
        let dict = Dense::Bytes(super::super::byte_arrays::ByteArrays {
            offsets: vec![0, 2, 4],
            values: b"ok\xff\xfe".to_vec(),
        });
        let views = DictViews::new(&dict, &at()).unwrap().unwrap();
        let a = views
            .gather(&DataType::Utf8View, &[0, 0], None, &at(), &Pool::none())
            .unwrap();
        assert_eq!(a.len(), 2);
        let e = views
            .gather(&DataType::Utf8View, &[0, 1], None, &at(), &Pool::none())
            .unwrap_err();
        assert!(e.to_string().contains("UTF-8"), "{e}");
        // As binary, both are values.
        let b = views
            .gather(&DataType::BinaryView, &[0, 1], None, &at(), &Pool::none())
            .unwrap();
        assert_eq!(b.len(), 2);
    }

    #[test]
    fn offsets_past_the_values_are_errors() {
        let e = views_of(
            &DataType::BinaryView,
            &[0i32, 3, 9],
            b"abcdef".to_vec(),
            None,
            false,
            &at(),
            &Pool::none(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("run past the values"), "{e}");
    }
}
