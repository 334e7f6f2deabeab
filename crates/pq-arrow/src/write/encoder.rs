//! The value encoder of one column chunk, written once for every physical
//! type: values go to the dictionary while it is in use, to the page's
//! buffer in the column's other encoding once it has fallen back (or when
//! it is off), and each page is encoded from there.
//!
//! What differs between types is in [`WriteType`]: the buffer, which holds
//! the values in the layout their encoders take and can only be built for
//! an encoding the type allows (so the encoding of a page is never a
//! guess), and the dictionary ([`NoDictionary`] for BOOLEAN, which has
//! none: a dictionary of booleans does not type-check).

use std::fmt::Debug;

use pq_encoding::plain::FixedWidth;
use pq_encoding::{alp, byte_stream_split, delta_binary_packed, delta_byte_array, plain};
use pq_format::Encoding;

use crate::physical::{
    Boolean, ByteArray, Double, FixedLenByteArray, Float, Int32, Int64, PhysicalType,
};
use pq_encoding::dictionary::{BytesDict, DictKey, FixedDict};
use pq_encoding::rle;

/// Levels per mini-batch: page limits are checked between mini-batches,
/// and a dictionary may grow this many entries past its limit.
pub(crate) const MINI_BATCH: usize = 1024;

/// What the writer needs of a physical type.
pub(crate) trait WriteType: PhysicalType {
    /// Values of the page being built, in the layout their encoder takes.
    type Buffer: PageValues;
    /// The dictionary builder.
    type Dict: Dictionary;
    /// The encoding after a dictionary falls back with data page v2 when
    /// none was chosen: arrow-rs's 2.0 writer's.
    const V2_FALLBACK: Encoding;

    /// The buffer of values to encode with `encoding` (`width` bytes each
    /// for FIXED_LEN_BYTE_ARRAY); `None` when the type cannot take it.
    fn buffer(encoding: Encoding, width: usize) -> Option<Self::Buffer>;

    /// A dictionary expected to stop at `max_bytes` of PLAIN entries or
    /// `max_entries` entries; `None` for types without one.
    fn dictionary(max_bytes: usize, max_entries: usize) -> Option<Self::Dict>;
}

/// A page's values waiting to be encoded.
pub(crate) trait PageValues: Debug + Send {
    /// About the bytes they encode to.
    fn size(&self) -> usize;
    /// Encodes them into `out` (which may take the buffer's memory when it
    /// is empty) and empties the buffer.
    fn encode(&mut self, out: &mut Vec<u8>) -> pq_encoding::Result<()>;
    /// The encoding of [`encode`](Self::encode).
    fn encoding(&self) -> Encoding;
}

/// A dictionary builder: the entries of a chunk and the indices of the
/// page being built.
pub(crate) trait Dictionary: Debug + Send {
    fn num_entries(&self) -> usize;
    fn num_indices(&self) -> usize;
    /// Bytes of the PLAIN dictionary page.
    fn size(&self) -> usize;
    /// Writes the page's indices (bit width, then hybrid runs) and starts
    /// the next page.
    fn write_indices(&mut self, out: &mut Vec<u8>);
    /// Writes the PLAIN dictionary page body.
    fn write_dict(&self, out: &mut Vec<u8>);
}

/// Takes fixed-width values a slice at a time.
pub(crate) trait PutSlice<V> {
    fn put_slice(&mut self, values: &[V]);
}

/// Takes byte-array values one by one (`total`: the room to reserve for
/// their bytes, 0 when not known).
pub(crate) trait PutBytes {
    fn put_bytes<'b>(&mut self, values: impl Iterator<Item = &'b [u8]>, total: usize);
}

/// Values of one type, dictionary with fallback, for one column chunk.
#[derive(Debug)]
pub(crate) struct ValueEncoder<T: WriteType> {
    buffer: T::Buffer,
    dict: Option<T::Dict>,
    /// The dictionary takes the values (it has not fallen back).
    dict_active: bool,
    /// Whether [`ValueEncoder::dict_loses`] has judged the dictionary.
    judged: bool,
}

/// Values a chunk's dictionary takes before it is judged (see
/// [`ValueEncoder::dict_loses`]).
pub(crate) const DICT_PROBE: usize = 16 * 1024;

impl<T: WriteType> ValueEncoder<T> {
    pub(crate) fn new(buffer: T::Buffer, dict: Option<T::Dict>) -> Self {
        let dict_active = dict.is_some();
        Self {
            buffer,
            dict,
            dict_active,
            judged: false,
        }
    }

    /// The dictionary, while it takes the values.
    pub(crate) fn active_dict(&mut self) -> Option<&mut T::Dict> {
        self.dict.as_mut().filter(|_| self.dict_active)
    }

    /// The buffer, once values bypass the dictionary.
    pub(crate) fn buffer(&mut self) -> &mut T::Buffer {
        &mut self.buffer
    }

    /// About the bytes of the page's values.
    pub(crate) fn page_size(&self) -> usize {
        match &self.dict {
            Some(d) if self.dict_active => {
                let w = bit_width_of(d.num_entries());
                d.num_indices() * w / 8 + 1
            }
            _ => self.buffer.size(),
        }
    }

    /// Bytes of the dictionary page (kept after a fallback: its page is
    /// written for the pages before it).
    pub(crate) fn dict_size(&self) -> usize {
        self.dict.as_ref().map_or(0, Dictionary::size)
    }

    /// Whether the dictionary is in use and past a limit.
    pub(crate) fn dict_full(&self, max_bytes: usize, max_entries: usize) -> bool {
        match &self.dict {
            Some(d) if self.dict_active => d.size() > max_bytes || d.num_entries() > max_entries,
            _ => false,
        }
    }

    /// Whether the dictionary, in use, should give way to the buffer
    /// (after the page being built): it is past a limit
    /// ([`dict_full`](Self::dict_full)) or it does not pay
    /// ([`dict_loses`](Self::dict_loses)).
    pub(crate) fn dict_falls_back(&mut self, max_bytes: usize, max_entries: usize) -> bool {
        self.dict_full(max_bytes, max_entries) || self.dict_loses()
    }

    /// Whether the dictionary makes the chunk's values larger than PLAIN
    /// would: judged once, when its first page has taken [`DICT_PROBE`]
    /// values (not at all when the first page ends before), by its entries
    /// (PLAIN) and their indices against the same values PLAIN, the
    /// entries' mean size standing for the values'. Mostly distinct values
    /// (keys, timestamps, measurements) gain nothing from a dictionary, yet
    /// without this every one of them is hashed and kept until the
    /// dictionary fills (1 MiB: 131 072 distinct 8-byte values), and the
    /// chunk carries that dictionary and indices for as many values. Then
    /// it falls back, as when full (the rule parquet-java applies to a
    /// chunk's first page).
    pub(crate) fn dict_loses(&mut self) -> bool {
        let Some(d) = self
            .dict
            .as_ref()
            .filter(|_| self.dict_active && !self.judged)
        else {
            return false;
        };
        let (entries, indices) = (d.num_entries(), d.num_indices());
        if indices < DICT_PROBE {
            return false;
        }
        self.judged = true;
        let dict = d.size() as u128;
        let plain = dict * indices as u128 / entries.max(1) as u128;
        let encoded = dict + (indices * bit_width_of(entries) / 8) as u128;
        encoded >= plain
    }

    /// Sends the next values to the buffer (the page before is flushed).
    pub(crate) fn fall_back(&mut self) {
        self.dict_active = false;
    }

    /// Encodes the page's values into `out`, returning their encoding.
    pub(crate) fn flush(&mut self, out: &mut Vec<u8>) -> pq_encoding::Result<Encoding> {
        match &mut self.dict {
            Some(d) if self.dict_active => {
                d.write_indices(out);
                // Past the first page the indices held are the page's, not
                // the chunk's: the dictionary is judged on its first page.
                self.judged = true;
                Ok(Encoding::RLE_DICTIONARY)
            }
            _ => {
                self.buffer.encode(out)?;
                Ok(self.buffer.encoding())
            }
        }
    }

    /// The dictionary page body and its entry count, if there is a
    /// dictionary.
    pub(crate) fn dict_page(&self) -> Option<(Vec<u8>, usize)> {
        let d = self.dict.as_ref()?;
        let mut body = Vec::with_capacity(d.size());
        d.write_dict(&mut body);
        Some((body, d.num_entries()))
    }

    /// Adds fixed-width values.
    pub(crate) fn put_slice<V>(&mut self, values: &[V])
    where
        T::Dict: PutSlice<V>,
        T::Buffer: PutSlice<V>,
    {
        match &mut self.dict {
            Some(d) if self.dict_active => d.put_slice(values),
            _ => self.buffer.put_slice(values),
        }
    }
}

/// Bits of an index into `entries` entries.
fn bit_width_of(entries: usize) -> usize {
    (usize::BITS - entries.saturating_sub(1).leading_zeros()) as usize
}

impl<T: DictKey + Send> Dictionary for FixedDict<T> {
    fn num_entries(&self) -> usize {
        FixedDict::num_entries(self)
    }
    fn num_indices(&self) -> usize {
        FixedDict::num_indices(self)
    }
    fn size(&self) -> usize {
        FixedDict::size(self)
    }
    fn write_indices(&mut self, out: &mut Vec<u8>) {
        FixedDict::write_indices(self, out)
    }
    fn write_dict(&self, out: &mut Vec<u8>) {
        FixedDict::write_dict(self, out)
    }
}

impl<T: DictKey> PutSlice<T> for FixedDict<T> {
    fn put_slice(&mut self, values: &[T]) {
        self.put(values);
    }
}

/// A dictionary of byte arrays: BYTE_ARRAY entries with lengths, or
/// FIXED_LEN_BYTE_ARRAY entries without.
#[derive(Debug)]
pub(crate) struct ByteDict {
    pub(crate) inner: BytesDict,
    fixed: bool,
}

impl Dictionary for ByteDict {
    fn num_entries(&self) -> usize {
        self.inner.num_entries()
    }
    fn num_indices(&self) -> usize {
        self.inner.num_indices()
    }
    fn size(&self) -> usize {
        if self.fixed {
            self.inner.fixed_size()
        } else {
            self.inner.size()
        }
    }
    fn write_indices(&mut self, out: &mut Vec<u8>) {
        self.inner.write_indices(out);
        self.inner.next_page();
    }
    fn write_dict(&self, out: &mut Vec<u8>) {
        if self.fixed {
            self.inner.write_dict_fixed(out)
        } else {
            self.inner.write_dict(out)
        }
    }
}

/// The dictionary of a type that has none: no value of it exists, so
/// code that would use one cannot run.
#[derive(Debug)]
pub(crate) enum NoDictionary {}

impl Dictionary for NoDictionary {
    fn num_entries(&self) -> usize {
        match *self {}
    }
    fn num_indices(&self) -> usize {
        match *self {}
    }
    fn size(&self) -> usize {
        match *self {}
    }
    fn write_indices(&mut self, _: &mut Vec<u8>) {
        match *self {}
    }
    fn write_dict(&self, _: &mut Vec<u8>) {
        match *self {}
    }
}

impl<V> PutSlice<V> for NoDictionary {
    fn put_slice(&mut self, _: &[V]) {
        match *self {}
    }
}

/// BOOLEAN values: PLAIN (bits) or RLE.
#[derive(Debug)]
pub(crate) struct Bools {
    values: Vec<bool>,
    rle: bool,
}

impl PageValues for Bools {
    fn size(&self) -> usize {
        self.values.len() / 8
    }
    fn encode(&mut self, out: &mut Vec<u8>) -> pq_encoding::Result<()> {
        if self.rle {
            rle::encode_length_prefixed(&self.values, 1, out);
        } else {
            plain::encode_bool(&self.values, out);
        }
        self.values.clear();
        Ok(())
    }
    fn encoding(&self) -> Encoding {
        if self.rle {
            Encoding::RLE
        } else {
            Encoding::PLAIN
        }
    }
}

impl PutSlice<bool> for Bools {
    fn put_slice(&mut self, values: &[bool]) {
        self.values.extend_from_slice(values);
    }
}

/// The encodings of fixed-width numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NumberEncoding {
    Plain,
    /// Integers only.
    DeltaBinaryPacked,
    ByteStreamSplit,
    /// Floats only.
    Alp,
}

/// INT32, INT64, FLOAT or DOUBLE values.
#[derive(Debug)]
pub(crate) struct Numbers<V> {
    values: Vec<V>,
    kind: NumberEncoding,
    /// The same as `kind`, as the metadata names it.
    encoding: Encoding,
}

/// A fixed-width number type and the encodings it takes beyond PLAIN and
/// BYTE_STREAM_SPLIT.
pub(crate) trait Number: FixedWidth + Send {
    /// Whether DELTA_BINARY_PACKED (integers) or ALP (floats) applies.
    fn takes(encoding: NumberEncoding) -> bool;
    /// Encodes with DELTA_BINARY_PACKED or ALP, whichever applies.
    fn encode_special(values: &[Self], out: &mut Vec<u8>);
}

/// A number type: the encoding it does not take, and the encoder of the
/// one it takes instead.
macro_rules! number {
    ($t:ty, not $other:ident, $special:path) => {
        impl Number for $t {
            fn takes(encoding: NumberEncoding) -> bool {
                encoding != NumberEncoding::$other
            }
            fn encode_special(values: &[Self], out: &mut Vec<u8>) {
                $special(values, out)
            }
        }
    };
}

number!(i32, not Alp, delta_binary_packed::encode);
number!(i64, not Alp, delta_binary_packed::encode);
number!(f32, not DeltaBinaryPacked, alp::encode);
number!(f64, not DeltaBinaryPacked, alp::encode);

impl<V: Number> Numbers<V> {
    fn new(encoding: Encoding) -> Option<Self> {
        let kind = match encoding {
            Encoding::PLAIN => NumberEncoding::Plain,
            Encoding::DELTA_BINARY_PACKED => NumberEncoding::DeltaBinaryPacked,
            Encoding::BYTE_STREAM_SPLIT => NumberEncoding::ByteStreamSplit,
            Encoding::ALP => NumberEncoding::Alp,
            _ => return None,
        };
        V::takes(kind).then_some(Self {
            values: Vec::new(),
            kind,
            encoding,
        })
    }
}

impl<V: Number> PageValues for Numbers<V> {
    fn size(&self) -> usize {
        self.values.len() * V::SIZE
    }
    fn encode(&mut self, out: &mut Vec<u8>) -> pq_encoding::Result<()> {
        match self.kind {
            NumberEncoding::Plain => plain::encode(&self.values, out),
            NumberEncoding::ByteStreamSplit => byte_stream_split::encode(&self.values, out),
            NumberEncoding::DeltaBinaryPacked | NumberEncoding::Alp => {
                V::encode_special(&self.values, out)
            }
        }
        self.values.clear();
        Ok(())
    }
    fn encoding(&self) -> Encoding {
        self.encoding
    }
}

impl<V: Number> PutSlice<V> for Numbers<V> {
    fn put_slice(&mut self, values: &[V]) {
        self.values.extend_from_slice(values);
    }
}

/// BYTE_ARRAY values.
#[derive(Debug)]
pub(crate) enum ByteArrays {
    /// Already PLAIN-encoded (4-byte length, bytes): the page body as is.
    Plain(Vec<u8>),
    /// Kept one by one for DELTA_LENGTH_BYTE_ARRAY (`delta == false`) or
    /// DELTA_BYTE_ARRAY.
    Split {
        offsets: Vec<usize>,
        data: Vec<u8>,
        delta: bool,
    },
}

impl PageValues for ByteArrays {
    fn size(&self) -> usize {
        match self {
            ByteArrays::Plain(v) => v.len(),
            ByteArrays::Split { offsets, data, .. } => data.len() + 4 * (offsets.len() - 1),
        }
    }
    fn encode(&mut self, out: &mut Vec<u8>) -> pq_encoding::Result<()> {
        match self {
            ByteArrays::Plain(v) if out.is_empty() => {
                std::mem::swap(v, out);
                v.clear();
            }
            ByteArrays::Plain(v) => {
                out.extend_from_slice(v);
                v.clear();
            }
            ByteArrays::Split {
                offsets,
                data,
                delta,
            } => {
                let iter = offsets.windows(2).map(|w| &data[w[0]..w[1]]);
                if *delta {
                    delta_byte_array::encode_delta_byte_array(iter, out)?;
                } else {
                    delta_byte_array::encode_delta_length(iter, out)?;
                }
                offsets.truncate(1);
                data.clear();
            }
        }
        Ok(())
    }
    fn encoding(&self) -> Encoding {
        match self {
            ByteArrays::Plain(_) => Encoding::PLAIN,
            ByteArrays::Split { delta: false, .. } => Encoding::DELTA_LENGTH_BYTE_ARRAY,
            ByteArrays::Split { delta: true, .. } => Encoding::DELTA_BYTE_ARRAY,
        }
    }
}

impl PutBytes for ByteArrays {
    fn put_bytes<'b>(&mut self, values: impl Iterator<Item = &'b [u8]>, total: usize) {
        match self {
            ByteArrays::Plain(buf) => {
                buf.reserve(total + 4 * values.size_hint().0);
                for v in values {
                    buf.extend_from_slice(&(v.len() as u32).to_le_bytes());
                    buf.extend_from_slice(v);
                }
            }
            ByteArrays::Split { offsets, data, .. } => {
                data.reserve(total);
                for v in values {
                    data.extend_from_slice(v);
                    offsets.push(data.len());
                }
            }
        }
    }
}

impl ByteArrays {
    /// Takes the values `data[offsets[i]..offsets[i + 1]]` at `indices` of
    /// an Arrow array (its values between nulls): PLAIN-encoded in bulk
    /// ([`plain::encode_byte_array_indexed`]), else one by one.
    pub(crate) fn put_indexed<O: pq_encoding::OffsetSize>(
        &mut self,
        offsets: &[O],
        data: &[u8],
        indices: &[usize],
    ) {
        if let ByteArrays::Plain(buf) = self
            && plain::encode_byte_array_indexed(offsets, data, indices, buf).is_ok()
        {
            return;
        }
        let at = |o: &O| o.as_usize();
        // Room from the first value's start to the last one's end: enough
        // for them all (the bytes of null slots between, usually none,
        // come in too).
        let room = match (indices.first(), indices.last()) {
            (Some(&a), Some(&b)) => at(&offsets[b + 1]).saturating_sub(at(&offsets[a])),
            _ => 0,
        };
        let values = indices
            .iter()
            .map(|&i| &data[at(&offsets[i])..at(&offsets[i + 1])]);
        self.put_bytes(values, room);
    }

    /// Takes the values `data[offsets[i]..offsets[i + 1]]` of an Arrow
    /// array: PLAIN-encoded in bulk ([`plain::encode_byte_array_offsets`]),
    /// else one by one.
    pub(crate) fn put_offsets<O: pq_encoding::OffsetSize>(&mut self, offsets: &[O], data: &[u8]) {
        if let ByteArrays::Plain(buf) = self
            && plain::encode_byte_array_offsets(offsets, data, buf).is_ok()
        {
            return;
        }
        // Offsets an Arrow array cannot hold (it checks them when built)
        // are not encoded in bulk; taken one by one, they fail as before.
        let at = |o: &O| o.as_usize();
        let total = match (offsets.first(), offsets.last()) {
            (Some(a), Some(b)) => at(b).saturating_sub(at(a)),
            _ => 0,
        };
        let values = offsets.windows(2).map(|w| &data[at(&w[0])..at(&w[1])]);
        self.put_bytes(values, total);
    }
}

/// The encodings of FIXED_LEN_BYTE_ARRAY values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FixedEncoding {
    Plain,
    DeltaByteArray,
    ByteStreamSplit,
}

/// FIXED_LEN_BYTE_ARRAY values, back to back.
#[derive(Debug)]
pub(crate) struct FixedBytes {
    data: Vec<u8>,
    width: usize,
    kind: FixedEncoding,
    /// The same as `kind`, as the metadata names it.
    encoding: Encoding,
}

impl PageValues for FixedBytes {
    fn size(&self) -> usize {
        self.data.len()
    }
    fn encode(&mut self, out: &mut Vec<u8>) -> pq_encoding::Result<()> {
        match self.kind {
            FixedEncoding::Plain => out.extend_from_slice(&self.data),
            FixedEncoding::ByteStreamSplit => {
                byte_stream_split::encode_bytes(&self.data, self.width, out)
            }
            FixedEncoding::DeltaByteArray => delta_byte_array::encode_delta_byte_array(
                self.data.chunks_exact(self.width.max(1)),
                out,
            )?,
        }
        self.data.clear();
        Ok(())
    }
    fn encoding(&self) -> Encoding {
        self.encoding
    }
}

impl PutBytes for FixedBytes {
    fn put_bytes<'b>(&mut self, values: impl Iterator<Item = &'b [u8]>, total: usize) {
        self.data.reserve(total);
        for v in values {
            self.data.extend_from_slice(v);
        }
    }
}

impl WriteType for Boolean {
    type Buffer = Bools;
    type Dict = NoDictionary;
    const V2_FALLBACK: Encoding = Encoding::RLE;

    fn buffer(encoding: Encoding, _: usize) -> Option<Bools> {
        let rle = match encoding {
            Encoding::PLAIN => false,
            Encoding::RLE => true,
            _ => return None,
        };
        Some(Bools {
            values: Vec::new(),
            rle,
        })
    }

    fn dictionary(_: usize, _: usize) -> Option<NoDictionary> {
        None
    }
}

/// INT32, INT64, FLOAT and DOUBLE: numbers in a hash dictionary of
/// fixed-width entries.
macro_rules! number_type {
    ($t:ty, $native:ty, $v2_fallback:expr) => {
        impl WriteType for $t {
            type Buffer = Numbers<$native>;
            type Dict = FixedDict<$native>;
            const V2_FALLBACK: Encoding = $v2_fallback;

            fn buffer(encoding: Encoding, _: usize) -> Option<Self::Buffer> {
                Numbers::new(encoding)
            }

            fn dictionary(max_bytes: usize, max_entries: usize) -> Option<Self::Dict> {
                // Entries before the fallback, plus what one mini-batch
                // adds past it.
                let cap = (max_bytes / <$native as FixedWidth>::SIZE)
                    .min(max_entries)
                    .saturating_add(MINI_BATCH);
                Some(FixedDict::new(cap))
            }
        }
    };
}

number_type!(Int32, i32, Encoding::DELTA_BINARY_PACKED);
number_type!(Int64, i64, Encoding::DELTA_BINARY_PACKED);
number_type!(Float, f32, Encoding::PLAIN);
number_type!(Double, f64, Encoding::PLAIN);

impl WriteType for ByteArray {
    type Buffer = ByteArrays;
    type Dict = ByteDict;
    const V2_FALLBACK: Encoding = Encoding::DELTA_BYTE_ARRAY;

    fn buffer(encoding: Encoding, _: usize) -> Option<ByteArrays> {
        let delta = match encoding {
            Encoding::PLAIN => return Some(ByteArrays::Plain(Vec::new())),
            Encoding::DELTA_LENGTH_BYTE_ARRAY => false,
            Encoding::DELTA_BYTE_ARRAY => true,
            _ => return None,
        };
        Some(ByteArrays::Split {
            offsets: vec![0],
            data: Vec::new(),
            delta,
        })
    }

    fn dictionary(_: usize, _: usize) -> Option<ByteDict> {
        Some(ByteDict {
            inner: BytesDict::new(),
            fixed: false,
        })
    }
}

impl WriteType for FixedLenByteArray {
    type Buffer = FixedBytes;
    type Dict = ByteDict;
    const V2_FALLBACK: Encoding = Encoding::DELTA_BYTE_ARRAY;

    fn buffer(encoding: Encoding, width: usize) -> Option<FixedBytes> {
        let kind = match encoding {
            Encoding::PLAIN => FixedEncoding::Plain,
            Encoding::DELTA_BYTE_ARRAY => FixedEncoding::DeltaByteArray,
            Encoding::BYTE_STREAM_SPLIT => FixedEncoding::ByteStreamSplit,
            _ => return None,
        };
        Some(FixedBytes {
            data: Vec::new(),
            width,
            kind,
            encoding,
        })
    }

    fn dictionary(_: usize, _: usize) -> Option<ByteDict> {
        Some(ByteDict {
            inner: BytesDict::new(),
            fixed: true,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn buffers_only_for_encodings_the_type_takes() {
        assert!(Int32::buffer(Encoding::DELTA_BINARY_PACKED, 0).is_some());
        assert!(Int64::buffer(Encoding::ALP, 0).is_none());
        assert!(Double::buffer(Encoding::ALP, 0).is_some());
        assert!(Float::buffer(Encoding::DELTA_BINARY_PACKED, 0).is_none());
        assert!(Boolean::buffer(Encoding::RLE, 0).is_some());
        assert!(Boolean::buffer(Encoding::BYTE_STREAM_SPLIT, 0).is_none());
        assert!(ByteArray::buffer(Encoding::BYTE_STREAM_SPLIT, 0).is_none());
        assert!(FixedLenByteArray::buffer(Encoding::BYTE_STREAM_SPLIT, 4).is_some());
        assert!(FixedLenByteArray::buffer(Encoding::DELTA_LENGTH_BYTE_ARRAY, 4).is_none());
        assert!(Boolean::dictionary(1024, 1024).is_none());
    }

    #[test]
    fn buffers_name_the_encoding_asked_for() {
        let all = [
            Encoding::PLAIN,
            Encoding::RLE,
            Encoding::DELTA_BINARY_PACKED,
            Encoding::DELTA_LENGTH_BYTE_ARRAY,
            Encoding::DELTA_BYTE_ARRAY,
            Encoding::BYTE_STREAM_SPLIT,
            Encoding::ALP,
        ];
        let mut taken = 0;
        for e in all {
            let encodings = [
                Boolean::buffer(e, 0).map(|b| b.encoding()),
                Int32::buffer(e, 0).map(|b| b.encoding()),
                Int64::buffer(e, 0).map(|b| b.encoding()),
                Float::buffer(e, 0).map(|b| b.encoding()),
                Double::buffer(e, 0).map(|b| b.encoding()),
                ByteArray::buffer(e, 0).map(|b| b.encoding()),
                FixedLenByteArray::buffer(e, 3).map(|b| b.encoding()),
            ];
            for got in encodings.into_iter().flatten() {
                assert_eq!(got, e);
                taken += 1;
            }
        }
        // PLAIN for all 7, RLE for 1, DELTA_BINARY_PACKED for 2, DELTA_LENGTH
        // for 1, DELTA_BYTE_ARRAY for 2, BYTE_STREAM_SPLIT for 5, ALP for 2.
        assert_eq!(taken, 20);
    }

    #[test]
    fn falls_back_without_losing_values() {
        let mut enc = ValueEncoder::<Int32>::new(
            Int32::buffer(Encoding::PLAIN, 0).unwrap(),
            Int32::dictionary(8, 100),
        );
        enc.put_slice(&[1, 2, 3]);
        assert!(enc.dict_full(8, 100));
        let mut page = Vec::new();
        assert_eq!(enc.flush(&mut page).unwrap(), Encoding::RLE_DICTIONARY);
        // Bit width 2, then the indices 0, 1, 2 bit-packed.
        assert_eq!(page, [2, 3, 0b10_01_00, 0]);
        enc.fall_back();
        enc.put_slice(&[7, 8]);
        assert_eq!(enc.page_size(), 8);
        page.clear();
        assert_eq!(enc.flush(&mut page).unwrap(), Encoding::PLAIN);
        assert_eq!(page, [7, 0, 0, 0, 8, 0, 0, 0]);
        let (dict, entries) = enc.dict_page().unwrap();
        assert_eq!((dict.len(), entries), (12, 3));
    }

    fn int64_encoder() -> ValueEncoder<Int64> {
        ValueEncoder::<Int64>::new(
            Int64::buffer(Encoding::PLAIN, 0).unwrap(),
            Int64::dictionary(usize::MAX, usize::MAX),
        )
    }

    #[test]
    fn a_dictionary_of_distinct_values_is_judged_a_loss_once() {
        let distinct: Vec<i64> = (0..DICT_PROBE as i64).map(|i| i * 7919).collect();
        let mut enc = int64_encoder();
        enc.put_slice(&distinct[..DICT_PROBE - 1]);
        assert!(!enc.dict_loses(), "judged before its probe");
        enc.put_slice(&distinct[DICT_PROBE - 1..]);
        assert!(enc.dict_loses());
        assert!(!enc.dict_loses(), "judged twice");
    }

    #[test]
    fn a_dictionary_of_repeated_values_is_kept() {
        // A hundred values, each many times: the dictionary pays.
        let repeated: Vec<i64> = (0..DICT_PROBE as i64).map(|i| (i % 100) << 40).collect();
        let mut enc = int64_encoder();
        enc.put_slice(&repeated);
        assert!(!enc.dict_loses());
        // Judged once: what comes later changes nothing.
        let distinct: Vec<i64> = (0..4 * DICT_PROBE as i64).collect();
        enc.put_slice(&distinct);
        assert!(!enc.dict_loses());
    }

    #[test]
    fn a_dictionary_is_judged_on_its_first_page_only() {
        // The first page ends before the probe: later pages' indices are
        // theirs alone, against all the chunk's entries, and say nothing.
        let mut enc = int64_encoder();
        enc.put_slice(&[1, 2, 3]);
        let mut page = Vec::new();
        assert_eq!(enc.flush(&mut page).unwrap(), Encoding::RLE_DICTIONARY);
        let distinct: Vec<i64> = (0..2 * DICT_PROBE as i64).collect();
        enc.put_slice(&distinct);
        assert!(!enc.dict_loses());
    }

    #[test]
    fn byte_arrays_in_each_encoding() {
        let values: [&[u8]; 2] = [b"ab", b"abc"];
        for (encoding, expected) in [
            (Encoding::PLAIN, &b"\x02\0\0\0ab\x03\0\0\0abc"[..]),
            (Encoding::DELTA_LENGTH_BYTE_ARRAY, &[]),
            (Encoding::DELTA_BYTE_ARRAY, &[]),
        ] {
            let mut b = ByteArray::buffer(encoding, 0).unwrap();
            b.put_bytes(values.into_iter(), 5);
            assert_eq!(b.encoding(), encoding);
            let mut out = Vec::new();
            b.encode(&mut out).unwrap();
            if expected.is_empty() {
                let mut reference = Vec::new();
                match encoding {
                    Encoding::DELTA_LENGTH_BYTE_ARRAY => {
                        delta_byte_array::encode_delta_length(values, &mut reference).unwrap()
                    }
                    _ => delta_byte_array::encode_delta_byte_array(values, &mut reference).unwrap(),
                }
                assert_eq!(out, reference);
            } else {
                assert_eq!(out, expected);
            }
            assert_eq!(b.size(), 0, "{encoding}: emptied after encoding");
        }
    }
}
