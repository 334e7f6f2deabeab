//! The typed half of a column chunk writer: its value encoder and its
//! running bounds, behind one object-safe trait so that the rest of the
//! chunk writer (levels, pages, page index) is written once for every type.
//!
//! [`column_values`] is the one place where a leaf's physical type picks
//! the Rust type; everything after it is generic.

use std::cmp::Ordering;
use std::fmt::Debug;

use arrow_array::OffsetSizeTrait;

use pq_format::Encoding;

use crate::error::{Error, Result};
use crate::physical::{
    Boolean, ByteArray, Double, FixedLenByteArray, Float, Int32, Int64, Int96, PhysicalType,
};
use crate::write::bloom::BloomBuilder;
use crate::write::encoder::{ByteDict, PutBytes, PutSlice, ValueEncoder, WriteType};
use crate::write::levels::Selection;
use crate::write::options::{DataPageVersion, ResolvedColumn, WriterOptions, is_preview_encoding};
use crate::write::phys::{ByteSource, Phys};
use crate::write::schema::{Leaf, SortOrder};
use crate::write::stats::{Bounds, SliceBounds, byte_bounds};

/// The values `from..to` of those a [`Selection`] picks from an array.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Picked<'s> {
    pub sel: &'s Selection,
    pub from: usize,
    pub to: usize,
}

/// A page's encoding and its bounds (PLAIN, zero signs fixed), if any.
pub(crate) type FlushedPage = (Encoding, Option<(Vec<u8>, Vec<u8>)>);

/// The values and bounds of one column chunk, whatever their type.
pub(crate) trait ColumnValues: Debug + Send {
    /// Adds the `picked` values of `src`, with their bounds when statistics
    /// are on. Fails when `src` holds values of another physical type than
    /// the column's.
    fn put(&mut self, src: &Phys<'_>, picked: Picked<'_>) -> Result<(), String>;
    /// About the bytes of the open page's values.
    fn page_size(&self) -> usize;
    /// Bytes of the dictionary page (0 without one).
    fn dict_size(&self) -> usize;
    /// Whether the dictionary is in use and should fall back: past a
    /// limit, or not paying (see `ValueEncoder::dict_falls_back`).
    fn dict_falls_back(&mut self, max_bytes: usize, max_entries: usize) -> bool;
    /// Sends the next values past the dictionary.
    fn fall_back(&mut self);
    /// Encodes the open page's values into `out` and closes its bounds
    /// (taking them into the chunk's).
    fn flush_page(&mut self, out: &mut Vec<u8>) -> pq_encoding::Result<FlushedPage>;
    /// The chunk's bounds (PLAIN, zero signs fixed), if any.
    fn chunk_bounds(&self) -> Option<(Vec<u8>, Vec<u8>)>;
    /// The dictionary page body and its entry count, if there is a
    /// dictionary.
    fn dict_page(&self) -> Option<(Vec<u8>, usize)>;
    /// Compares two bounds of this column (as [`flush_page`](Self::flush_page)
    /// gives them, truncated or not).
    fn compare_bounds(&self, a: &[u8], b: &[u8]) -> Ordering;
    /// The chunk's Bloom filter, when one is built.
    fn take_bloom(&mut self) -> Option<Vec<u8>>;
}

/// A physical type the writer takes from Arrow arrays.
pub(crate) trait FromArrow: WriteType + Sized {
    /// Buffer for values gathered from scattered indices.
    type Scratch: Default + Debug + Send;
    /// Adds the `picked` values of `src`.
    fn put(col: &mut TypedColumn<Self>, src: &Phys<'_>, picked: Picked<'_>) -> Result<(), String>;
}

/// [`ColumnValues`] of one physical type.
#[derive(Debug)]
pub(crate) struct TypedColumn<T: FromArrow> {
    encoder: ValueEncoder<T>,
    sort: SortOrder,
    /// Bounds are kept: statistics on, and the type has an order.
    track: bool,
    page: Bounds<T>,
    chunk: Bounds<T>,
    scratch: T::Scratch,
    bloom: Option<BloomBuilder>,
}

impl<T: FromArrow> ColumnValues for TypedColumn<T> {
    fn put(&mut self, src: &Phys<'_>, picked: Picked<'_>) -> Result<(), String> {
        T::put(self, src, picked)
    }
    fn page_size(&self) -> usize {
        self.encoder.page_size()
    }
    fn dict_size(&self) -> usize {
        self.encoder.dict_size()
    }
    fn dict_falls_back(&mut self, max_bytes: usize, max_entries: usize) -> bool {
        self.encoder.dict_falls_back(max_bytes, max_entries)
    }
    fn fall_back(&mut self) {
        self.encoder.fall_back();
    }
    fn flush_page(&mut self, out: &mut Vec<u8>) -> pq_encoding::Result<FlushedPage> {
        let encoding = self.encoder.flush(out)?;
        let bounds = self.page.encoded(self.sort);
        self.chunk.merge(self.sort, &self.page);
        self.page.clear();
        Ok((encoding, bounds))
    }
    fn chunk_bounds(&self) -> Option<(Vec<u8>, Vec<u8>)> {
        self.chunk.encoded(self.sort)
    }
    fn dict_page(&self) -> Option<(Vec<u8>, usize)> {
        self.encoder.dict_page()
    }
    fn compare_bounds(&self, a: &[u8], b: &[u8]) -> Ordering {
        T::compare_plain(self.sort, a, b)
    }
    fn take_bloom(&mut self) -> Option<Vec<u8>> {
        self.bloom.take().map(BloomBuilder::finish)
    }
}

/// The picked values as a slice: borrowed when contiguous, gathered into
/// `scratch` otherwise.
fn gather<'a, V: Copy>(v: &'a [V], p: Picked<'_>, scratch: &'a mut Vec<V>) -> &'a [V] {
    match p.sel {
        Selection::Range(a) => &v[a + p.from..a + p.to],
        Selection::Indices(ix) => {
            scratch.clear();
            scratch.extend(ix[p.from..p.to].iter().map(|&i| v[i]));
            scratch
        }
    }
}

/// The values of offsets `o` (already sliced to them) into `d`.
fn values_of<'d, O: OffsetSizeTrait>(
    o: &'d [O],
    d: &'d [u8],
) -> impl Iterator<Item = &'d [u8]> + Clone {
    o.windows(2)
        .map(move |w| &d[w[0].as_usize()..w[1].as_usize()])
}

/// The values at indices `ix` of offsets `o` into `d`.
fn indexed<'d, O: OffsetSizeTrait>(
    o: &'d [O],
    d: &'d [u8],
    ix: &'d [usize],
) -> impl Iterator<Item = &'d [u8]> + Clone {
    ix.iter()
        .map(move |&i| &d[o[i].as_usize()..o[i + 1].as_usize()])
}

/// Adds fixed-width values and their bounds.
fn put_slice<T, V>(
    encoder: &mut ValueEncoder<T>,
    page: Option<&mut Bounds<T>>,
    sort: SortOrder,
    values: &[V],
) where
    T: WriteType<Value = V>,
    V: SliceBounds,
    T::Dict: PutSlice<V>,
    T::Buffer: PutSlice<V>,
{
    if let Some(page) = page
        && let Some((lo, hi)) = V::bounds(values, sort)
    {
        page.update(sort, &lo, &hi);
    }
    encoder.put_slice(values);
}

/// Adds byte-array values and their bounds; `total` is the room to reserve
/// for their bytes (their bytes exactly, or a little more, or 0 when not
/// known).
fn put_bytes<'b, T>(
    encoder: &mut ValueEncoder<T>,
    page: Option<&mut Bounds<T>>,
    sort: SortOrder,
    values: impl Iterator<Item = &'b [u8]> + Clone,
    total: usize,
    bloom: Option<&mut BloomBuilder>,
) where
    T: WriteType<Value = [u8], Dict = ByteDict>,
    T::Buffer: PutBytes,
{
    let fill = |b: &mut T::Buffer| b.put_bytes(values.clone(), total);
    put_bytes_with(encoder, page, sort, values.clone(), bloom, fill);
}

/// [`put_bytes`], with `fill` adding the values to the buffer once they
/// bypass the dictionary (a layout's own bulk copy).
fn put_bytes_with<'b, T>(
    encoder: &mut ValueEncoder<T>,
    page: Option<&mut Bounds<T>>,
    sort: SortOrder,
    values: impl Iterator<Item = &'b [u8]> + Clone,
    bloom: Option<&mut BloomBuilder>,
    fill: impl FnOnce(&mut T::Buffer),
) where
    T: WriteType<Value = [u8], Dict = ByteDict>,
{
    if let Some(b) = bloom {
        b.insert_bytes(values.clone());
    }
    if let Some(d) = encoder.active_dict() {
        let d = &mut d.inner;
        let from = d.num_indices();
        for v in values {
            d.put(v);
        }
        // Bounds of the distinct values new to this page: the same as over
        // every value, for a fraction of the comparisons.
        if let Some(page) = page
            && let Some((lo, hi)) = byte_bounds::<T>(sort, d.new_in_page(from))
        {
            page.update(sort, lo, hi);
        }
        return;
    }
    fill(encoder.buffer());
    if let Some(page) = page
        && let Some((lo, hi)) = byte_bounds::<T>(sort, values)
    {
        page.update(sort, lo, hi);
    }
}

/// Values of the wrong physical type: the schema mapping and the Arrow
/// view disagree, which is a bug, reported rather than written.
fn mismatch<T: PhysicalType>(src: &Phys<'_>) -> String {
    format!(
        "{} values given for a column of physical type {}",
        src.kind(),
        T::TYPE
    )
}

/// INT32, INT64, FLOAT and DOUBLE from their `Phys` variant.
macro_rules! from_numbers {
    ($t:ty, $variant:ident, $native:ty) => {
        impl FromArrow for $t {
            type Scratch = Vec<$native>;
            fn put(
                col: &mut TypedColumn<Self>,
                src: &Phys<'_>,
                picked: Picked<'_>,
            ) -> Result<(), String> {
                let Phys::$variant(v) = src else {
                    return Err(mismatch::<Self>(src));
                };
                let s = gather(v, picked, &mut col.scratch);
                if let Some(b) = col.bloom.as_mut() {
                    b.insert_values::<Self>(s.iter());
                }
                let page = col.track.then_some(&mut col.page);
                put_slice(&mut col.encoder, page, col.sort, s);
                Ok(())
            }
        }
    };
}

from_numbers!(Int32, I32, i32);
from_numbers!(Int64, I64, i64);
from_numbers!(Float, F32, f32);
from_numbers!(Double, F64, f64);

impl FromArrow for Boolean {
    type Scratch = Vec<bool>;
    fn put(col: &mut TypedColumn<Self>, src: &Phys<'_>, picked: Picked<'_>) -> Result<(), String> {
        let Phys::Bool(arr) = src else {
            return Err(mismatch::<Self>(src));
        };
        let bits = arr.values();
        let bools = &mut col.scratch;
        bools.clear();
        let (va, vb) = (picked.from, picked.to);
        match picked.sel {
            Selection::Range(a) => bools.extend((a + va..a + vb).map(|i| bits.value(i))),
            Selection::Indices(ix) => bools.extend(ix[va..vb].iter().map(|&i| bits.value(i))),
        }
        let page = col.track.then_some(&mut col.page);
        put_slice(&mut col.encoder, page, col.sort, bools);
        Ok(())
    }
}

impl FromArrow for ByteArray {
    type Scratch = ();
    fn put(col: &mut TypedColumn<Self>, src: &Phys<'_>, picked: Picked<'_>) -> Result<(), String> {
        let Phys::Bytes(src) = src else {
            return Err(mismatch::<Self>(src));
        };
        let page = col.track.then_some(&mut col.page);
        let (encoder, sort) = (&mut col.encoder, col.sort);
        let bloom = col.bloom.as_mut();
        let (va, vb) = (picked.from, picked.to);
        match (src, picked.sel) {
            // Contiguous offsets: walked directly, no per-value dispatch.
            (ByteSource::O32(o, d), Selection::Range(a)) => {
                let o = &o[a + va..=a + vb];
                put_bytes_with(encoder, page, sort, values_of(o, d), bloom, |b| {
                    b.put_offsets(o, d)
                });
            }
            (ByteSource::O64(o, d), Selection::Range(a)) => {
                let o = &o[a + va..=a + vb];
                put_bytes_with(encoder, page, sort, values_of(o, d), bloom, |b| {
                    b.put_offsets(o, d)
                });
            }
            // Values between nulls: the offsets looked up at each index,
            // without a dispatch on the layout per value.
            (ByteSource::O32(o, d), Selection::Indices(ix)) => {
                let ix = &ix[va..vb];
                put_bytes_with(encoder, page, sort, indexed(o, d, ix), bloom, |b| {
                    b.put_indexed(o, d, ix)
                });
            }
            (ByteSource::O64(o, d), Selection::Indices(ix)) => {
                let ix = &ix[va..vb];
                put_bytes_with(encoder, page, sort, indexed(o, d, ix), bloom, |b| {
                    b.put_indexed(o, d, ix)
                });
            }
            (_, sel) => {
                let get = |k: usize| match sel {
                    Selection::Range(a) => src.get(a + k),
                    Selection::Indices(ix) => src.get(ix[k]),
                };
                put_bytes(encoder, page, sort, (va..vb).map(get), 0, bloom);
            }
        }
        Ok(())
    }
}

impl FromArrow for FixedLenByteArray {
    type Scratch = ();
    fn put(col: &mut TypedColumn<Self>, src: &Phys<'_>, picked: Picked<'_>) -> Result<(), String> {
        let Phys::Fixed(data, w) = src else {
            return Err(mismatch::<Self>(src));
        };
        let (w, sel, va, vb) = (*w, picked.sel, picked.from, picked.to);
        let get = |k: usize| {
            let i = match sel {
                Selection::Range(a) => a + k,
                Selection::Indices(ix) => ix[k],
            };
            &data[i * w..i * w + w]
        };
        let page = col.track.then_some(&mut col.page);
        put_bytes(
            &mut col.encoder,
            page,
            col.sort,
            (va..vb).map(get),
            (vb - va) * w,
            col.bloom.as_mut(),
        );
        Ok(())
    }
}

/// The error of an encoding a column's type cannot take.
fn not_allowed(leaf: &Leaf, encoding: Encoding) -> Error {
    Error::Request {
        message: format!(
            "encoding {} cannot encode column '{}' of type {}",
            encoding,
            leaf.path.join("."),
            leaf.physical_type
        ),
    }
}

fn typed<T: FromArrow>(
    leaf: &Leaf,
    opts: &ResolvedColumn,
    options: &WriterOptions,
) -> Result<Box<dyn ColumnValues>> {
    let encoding = if opts.default_fallback && options.data_page_version == DataPageVersion::V2 {
        T::V2_FALLBACK
    } else {
        opts.encoding
    };
    let buffer =
        T::buffer(encoding, leaf.fixed_width()).ok_or_else(|| not_allowed(leaf, encoding))?;
    if is_preview_encoding(encoding) && !options.allow_preview_encodings {
        return Err(Error::Request {
            message: format!(
                "encoding {} of column '{}' is a Preview encoding, which not every \
                 reader reads (pyarrow 26 and DuckDB 2.0 do not); set \
                 WriterOptionsBuilder::set_allow_preview_encodings to write it",
                encoding,
                leaf.path.join(".")
            ),
        });
    }
    let dict = if opts.dictionary {
        T::dictionary(
            options.dictionary_page_size_limit,
            options.dictionary_max_entries,
        )
    } else {
        None
    };
    Ok(Box::new(TypedColumn::<T> {
        encoder: ValueEncoder::new(buffer, dict),
        sort: leaf.sort,
        track: opts.statistics && leaf.sort != SortOrder::Undefined,
        page: Bounds::default(),
        chunk: Bounds::default(),
        scratch: Default::default(),
        // Booleans have two values: a filter would say nothing.
        bloom: opts
            .bloom_filter
            .filter(|_| T::TYPE != Boolean::TYPE)
            .map(|(ndv, fpp)| BloomBuilder::new(ndv, fpp)),
    }))
}

/// The values of `leaf`'s chunk, its encoding checked against its type
/// (and against `options` for a Preview encoding).
pub(crate) fn column_values(
    leaf: &Leaf,
    opts: &ResolvedColumn,
    options: &WriterOptions,
) -> Result<Box<dyn ColumnValues>> {
    match leaf.physical_type {
        Boolean::TYPE => typed::<Boolean>(leaf, opts, options),
        Int32::TYPE => typed::<Int32>(leaf, opts, options),
        Int64::TYPE => typed::<Int64>(leaf, opts, options),
        Float::TYPE => typed::<Float>(leaf, opts, options),
        Double::TYPE => typed::<Double>(leaf, opts, options),
        ByteArray::TYPE => typed::<ByteArray>(leaf, opts, options),
        FixedLenByteArray::TYPE => typed::<FixedLenByteArray>(leaf, opts, options),
        // No Arrow type is written as INT96.
        Int96::TYPE => Err(not_allowed(leaf, opts.encoding)),
        // Ids outside the format.
        _ => Err(not_allowed(leaf, opts.encoding)),
    }
}
