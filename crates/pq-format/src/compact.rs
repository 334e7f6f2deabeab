//! The Thrift compact protocol: the hand-written runtime under the generated
//! types.
//!
//! [`CompactReader`] decodes from a byte slice. It never panics: every read is
//! bounds-checked, every list, string and binary length is compared with the
//! bytes that remain (and with [`Limits`]) before anything is allocated, and
//! struct nesting is limited by [`Limits::max_nesting_depth`]. Errors carry
//! the byte offset at which the input went wrong.
//!
//! [`CompactWriter`] encodes the standard compact protocol (field-id deltas,
//! booleans in the field type nibble, short list headers), so that
//! decode → encode → decode gives back the same value.
//!
//! The generated types implement [`ThriftDecode`] and [`ThriftEncode`] on top
//! of this module.

use bytes::Bytes;

use crate::Limits;
use crate::small_list::SmallList;
use crate::string_list::StringList;

/// Compact protocol wire type codes (the low nibble of a field header).
pub mod ct {
    /// End of a struct's fields.
    pub const STOP: u8 = 0;
    /// A boolean field whose value is `true` (also the list element type for booleans).
    pub const BOOL_TRUE: u8 = 1;
    /// A boolean field whose value is `false`.
    pub const BOOL_FALSE: u8 = 2;
    /// An 8-bit integer.
    pub const BYTE: u8 = 3;
    /// A zigzag varint 16-bit integer.
    pub const I16: u8 = 4;
    /// A zigzag varint 32-bit integer.
    pub const I32: u8 = 5;
    /// A zigzag varint 64-bit integer.
    pub const I64: u8 = 6;
    /// A little-endian IEEE 754 double.
    pub const DOUBLE: u8 = 7;
    /// A length-prefixed string or binary.
    pub const BINARY: u8 = 8;
    /// A list.
    pub const LIST: u8 = 9;
    /// A set (encoded like a list).
    pub const SET: u8 = 10;
    /// A map.
    pub const MAP: u8 = 11;
    /// A struct (or union).
    pub const STRUCT: u8 = 12;
    /// A 16-byte UUID (newer Thrift versions).
    pub const UUID: u8 = 13;

    /// Whether `ty` is one of the two boolean field types.
    #[inline]
    pub fn is_bool(ty: u8) -> bool {
        ty == BOOL_TRUE || ty == BOOL_FALSE
    }
}

/// What went wrong while decoding compact-protocol bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The input ended in the middle of a value.
    UnexpectedEof,
    /// A varint was longer than its type allows.
    VarintTooLong,
    /// A wire type code that the compact protocol does not define.
    InvalidType(u8),
    /// A boolean list element that is neither 0, 1 nor 2.
    InvalidBool(u8),
    /// A list whose element type is not the one the schema expects.
    UnexpectedListType {
        /// The element type expected.
        expected: u8,
        /// The element type found.
        found: u8,
    },
    /// A negative length or count.
    NegativeLength(i64),
    /// A length or count larger than the bytes that remain could hold.
    LengthBeyondInput {
        /// The declared length or count.
        declared: u64,
        /// The bytes remaining in the input.
        remaining: usize,
    },
    /// A length or count larger than the configured limit.
    LimitExceeded {
        /// Which limit.
        what: &'static str,
        /// The declared length or count.
        declared: u64,
        /// The limit.
        limit: u64,
    },
    /// Structs nested deeper than [`Limits::max_nesting_depth`].
    TooDeep(u32),
    /// A `string` field that is not valid UTF-8.
    InvalidUtf8,
    /// A required field was absent.
    MissingField {
        /// The struct.
        structure: &'static str,
        /// The field.
        field: &'static str,
    },
    /// A union with no field set.
    EmptyUnion(&'static str),
}

impl std::fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::UnexpectedEof => write!(f, "unexpected end of input"),
            Self::VarintTooLong => write!(f, "varint too long"),
            Self::InvalidType(t) => write!(f, "invalid compact type code {t}"),
            Self::InvalidBool(b) => write!(f, "invalid boolean byte {b}"),
            Self::UnexpectedListType { expected, found } => {
                write!(f, "list element type {found}, expected {expected}")
            }
            Self::NegativeLength(n) => write!(f, "negative length {n}"),
            Self::LengthBeyondInput {
                declared,
                remaining,
            } => write!(
                f,
                "declared length {declared} exceeds the {remaining} bytes remaining"
            ),
            Self::LimitExceeded {
                what,
                declared,
                limit,
            } => write!(f, "{what} {declared} exceeds the limit {limit}"),
            Self::TooDeep(limit) => write!(f, "nesting deeper than {limit}"),
            Self::InvalidUtf8 => write!(f, "string is not valid UTF-8"),
            Self::MissingField { structure, field } => {
                write!(f, "required field {structure}.{field} is missing")
            }
            Self::EmptyUnion(name) => write!(f, "union {name} has no field set"),
        }
    }
}

/// A compact-protocol decoding error, with the byte offset (from the start
/// of the decoded buffer) at which it was detected.
///
/// Boxed, so that `Result<T, DecodeError>` of a small `T` is returned in
/// registers: the decoder's hot path returns one per field.
#[derive(Clone, PartialEq, Eq)]
pub struct DecodeError(Box<DecodeErrorInner>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct DecodeErrorInner {
    offset: usize,
    kind: DecodeErrorKind,
}

impl DecodeError {
    /// An error of `kind` at byte `offset`.
    #[cold]
    pub fn new(offset: usize, kind: DecodeErrorKind) -> Self {
        Self(Box::new(DecodeErrorInner { offset, kind }))
    }

    /// Byte offset in the input.
    pub fn offset(&self) -> usize {
        self.0.offset
    }

    /// What went wrong.
    pub fn kind(&self) -> &DecodeErrorKind {
        &self.0.kind
    }
}

impl std::fmt::Debug for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DecodeError")
            .field("offset", &self.0.offset)
            .field("kind", &self.0.kind)
            .finish()
    }
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "malformed Thrift at byte {}: {}",
            self.0.offset, self.0.kind
        )
    }
}

impl std::error::Error for DecodeError {}

/// A type that can be read from compact-protocol bytes.
///
/// ```
/// use pq_format::{KeyValue, ThriftDecode, ThriftEncode};
/// let kv = KeyValue { key: "k".into(), value: Some("v".into()) };
/// let bytes = kv.encode();
/// assert_eq!(KeyValue::decode(&bytes).unwrap(), kv);
/// ```
pub trait ThriftDecode: Sized {
    /// Read one value at the reader's position.
    fn read_from(r: &mut CompactReader<'_>) -> Result<Self, DecodeError>;

    /// Read one value at the reader's position into `out` (for structs,
    /// `out` should be `Default::default()`: fields absent from the input
    /// are left as they are). Avoids moving large structs.
    fn read_into(r: &mut CompactReader<'_>, out: &mut Self) -> Result<(), DecodeError> {
        *out = Self::read_from(r)?;
        Ok(())
    }

    /// Decode a value from the start of `buf` with the default [`Limits`].
    /// Trailing bytes are ignored; see [`ThriftDecode::decode_prefix`].
    fn decode(buf: &[u8]) -> Result<Self, DecodeError> {
        Self::read_from(&mut CompactReader::new(buf))
    }

    /// Decode a value from the start of `buf` and return it with the number
    /// of bytes it occupied (e.g. a page header followed by page data).
    /// `binary` values are copied; see [`ThriftDecode::decode_bytes_prefix`].
    fn decode_prefix(buf: &[u8], limits: &Limits) -> Result<(Self, usize), DecodeError> {
        let mut r = CompactReader::with_limits(buf, limits);
        let v = Self::read_from(&mut r)?;
        Ok((v, r.position()))
    }

    /// Decode a value from the start of `buf`, its `binary` values being
    /// zero-copy slices of `buf`, with the default [`Limits`].
    ///
    /// ```
    /// use pq_format::{Statistics, ThriftDecode, ThriftEncode};
    /// let s = Statistics { min_value: Some(b"abc".to_vec().into()), ..Default::default() };
    /// let buf = bytes::Bytes::from(s.encode());
    /// assert_eq!(Statistics::decode_bytes(&buf).unwrap(), s);
    /// ```
    fn decode_bytes(buf: &Bytes) -> Result<Self, DecodeError> {
        Self::read_from(&mut CompactReader::with_bytes(buf, &Limits::default()))
    }

    /// Like [`ThriftDecode::decode_prefix`], with `binary` values as
    /// zero-copy slices of `buf`.
    fn decode_bytes_prefix(buf: &Bytes, limits: &Limits) -> Result<(Self, usize), DecodeError> {
        let mut r = CompactReader::with_bytes(buf, limits);
        let v = Self::read_from(&mut r)?;
        Ok((v, r.position()))
    }
}

/// A type that can be written as compact-protocol bytes.
///
/// ```
/// use pq_format::{PageHeader, PageType, ThriftDecode, ThriftEncode};
/// let h = PageHeader {
///     type_: PageType::DICTIONARY_PAGE,
///     uncompressed_page_size: 10,
///     compressed_page_size: 8,
///     ..Default::default()
/// };
/// assert_eq!(PageHeader::decode(&h.encode()).unwrap(), h);
/// ```
pub trait ThriftEncode {
    /// Write the value at the writer's end.
    fn write_to(&self, w: &mut CompactWriter);

    /// Encode the value into a new buffer.
    fn encode(&self) -> Vec<u8> {
        let mut w = CompactWriter::new();
        self.write_to(&mut w);
        w.into_inner()
    }

    /// Append the encoded value to `out`.
    fn encode_into(&self, out: &mut Vec<u8>) {
        let mut w = CompactWriter::from_vec(std::mem::take(out));
        self.write_to(&mut w);
        *out = w.into_inner();
    }
}

/// A type that can be an element of a Thrift `list`.
pub trait ListElement: Sized {
    /// The compact type code of the element.
    const ELEM_TYPE: u8;
    /// The fewest bytes one element occupies on the wire.
    const MIN_SIZE: usize = 1;
    /// Read one element.
    fn read_elem(r: &mut CompactReader<'_>) -> Result<Self, DecodeError>;
    /// Read one element and append it to `v` (structs decode in place).
    #[inline]
    fn read_elem_into(r: &mut CompactReader<'_>, v: &mut Vec<Self>) -> Result<(), DecodeError> {
        v.push(Self::read_elem(r)?);
        Ok(())
    }
    /// Write one element.
    fn write_elem(&self, w: &mut CompactWriter);
}

/// A bounds-checked compact-protocol reader over a byte slice.
#[derive(Debug, Clone)]
pub struct CompactReader<'a> {
    buf: &'a [u8],
    /// When decoding from a `Bytes`, binaries are zero-copy slices of it.
    source: Option<&'a Bytes>,
    pos: usize,
    depth: u32,
    max_depth: u32,
    max_string_len: usize,
    max_list_len: usize,
}

impl<'a> CompactReader<'a> {
    /// A reader with the default [`Limits`].
    pub fn new(buf: &'a [u8]) -> Self {
        Self::with_limits(buf, &Limits::default())
    }

    /// A reader with the given limits.
    pub fn with_limits(buf: &'a [u8], limits: &Limits) -> Self {
        Self {
            buf,
            source: None,
            pos: 0,
            depth: 0,
            max_depth: limits.max_nesting_depth,
            max_string_len: limits.max_string_len,
            max_list_len: limits.max_list_len,
        }
    }

    /// A reader over a [`Bytes`] buffer: `binary` values are decoded as
    /// zero-copy slices of it (which keep the buffer alive).
    pub fn with_bytes(buf: &'a Bytes, limits: &Limits) -> Self {
        let mut r = Self::with_limits(buf, limits);
        r.source = Some(buf);
        r
    }

    /// Bytes consumed so far.
    #[inline]
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not yet consumed.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    /// An error of the given kind at the current position.
    #[cold]
    pub fn error(&self, kind: DecodeErrorKind) -> DecodeError {
        DecodeError::new(self.pos, kind)
    }

    /// The error for a missing required field of a struct starting at `start`.
    #[cold]
    pub fn missing_field(
        &self,
        start: usize,
        structure: &'static str,
        field: &'static str,
    ) -> DecodeError {
        DecodeError::new(start, DecodeErrorKind::MissingField { structure, field })
    }

    /// The error for a union without a field, starting at `start`.
    #[cold]
    pub fn empty_union(&self, start: usize, name: &'static str) -> DecodeError {
        DecodeError::new(start, DecodeErrorKind::EmptyUnion(name))
    }

    /// Enter a struct: checks the nesting limit.
    #[inline]
    pub fn enter(&mut self) -> Result<(), DecodeError> {
        if self.depth >= self.max_depth {
            return Err(self.error(DecodeErrorKind::TooDeep(self.max_depth)));
        }
        self.depth += 1;
        Ok(())
    }

    /// Leave a struct entered with [`CompactReader::enter`].
    #[inline]
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Read one byte.
    #[inline]
    pub fn read_byte(&mut self) -> Result<u8, DecodeError> {
        match self.buf.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.error(DecodeErrorKind::UnexpectedEof)),
        }
    }

    /// Read `n` bytes.
    #[inline]
    pub fn read_bytes(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self
            .pos
            .checked_add(n)
            .ok_or_else(|| self.error(DecodeErrorKind::UnexpectedEof))?;
        match self.buf.get(self.pos..end) {
            Some(s) => {
                self.pos = end;
                Ok(s)
            }
            None => Err(self.error(DecodeErrorKind::LengthBeyondInput {
                declared: n as u64,
                remaining: self.remaining(),
            })),
        }
    }

    /// Read an unsigned LEB128 varint of at most 10 bytes.
    #[inline]
    pub fn read_varint(&mut self) -> Result<u64, DecodeError> {
        // Fast path: one byte (field ids, small counts, enum values).
        if let Some(&b) = self.buf.get(self.pos)
            && b < 0x80
        {
            self.pos += 1;
            return Ok(u64::from(b));
        }
        self.read_varint_long()
    }

    /// [`CompactReader::read_varint`] past its one-byte fast path.
    #[inline(never)]
    fn read_varint_long(&mut self) -> Result<u64, DecodeError> {
        let start = self.pos;
        // With ten bytes left (the longest varint), one bounds check for all.
        if let Some(bytes) = self.buf.get(start..start.saturating_add(10)) {
            let mut result: u64 = 0;
            for (i, &b) in bytes.iter().enumerate() {
                result |= u64::from(b & 0x7f) << (7 * i);
                if b < 0x80 {
                    self.pos = start + i + 1;
                    return Ok(result);
                }
            }
            return Err(DecodeError::new(start, DecodeErrorKind::VarintTooLong));
        }
        let mut result: u64 = 0;
        let mut shift = 0u32;
        loop {
            let b = self.read_byte()?;
            result |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(result);
            }
            shift += 7;
            if shift > 63 {
                return Err(DecodeError::new(start, DecodeErrorKind::VarintTooLong));
            }
        }
    }

    /// Read a zigzag varint `i16`.
    #[inline]
    pub fn read_i16(&mut self) -> Result<i16, DecodeError> {
        let start = self.pos;
        let v = self.read_varint()?;
        let v = u16::try_from(v)
            .map_err(|_| DecodeError::new(start, DecodeErrorKind::VarintTooLong))?;
        Ok(((v >> 1) as i16) ^ -((v & 1) as i16))
    }

    /// Read a zigzag varint `i32`.
    #[inline]
    pub fn read_i32(&mut self) -> Result<i32, DecodeError> {
        let start = self.pos;
        let v = self.read_varint()?;
        let v = u32::try_from(v)
            .map_err(|_| DecodeError::new(start, DecodeErrorKind::VarintTooLong))?;
        Ok(((v >> 1) as i32) ^ -((v & 1) as i32))
    }

    /// Read a zigzag varint `i64`.
    #[inline]
    pub fn read_i64(&mut self) -> Result<i64, DecodeError> {
        let v = self.read_varint()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// Read an 8-bit integer.
    #[inline]
    pub fn read_i8(&mut self) -> Result<i8, DecodeError> {
        Ok(self.read_byte()? as i8)
    }

    /// Read a little-endian double.
    #[inline]
    pub fn read_double(&mut self) -> Result<f64, DecodeError> {
        let b = self.read_bytes(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(f64::from_le_bytes(a))
    }

    /// Read a boolean list element (1 is true, 0 or 2 is false).
    #[inline]
    pub fn read_bool_elem(&mut self) -> Result<bool, DecodeError> {
        match self.read_byte()? {
            1 => Ok(true),
            0 | 2 => Ok(false),
            b => {
                self.pos -= 1;
                Err(self.error(DecodeErrorKind::InvalidBool(b)))
            }
        }
    }

    /// Check a declared length against a limit and the bytes remaining
    /// (each unit needing at least `min_size` bytes).
    #[inline]
    fn check_len(
        &self,
        len: u64,
        min_size: usize,
        limit: usize,
        what: &'static str,
    ) -> Result<usize, DecodeError> {
        if len > limit as u64 {
            return Err(self.error(DecodeErrorKind::LimitExceeded {
                what,
                declared: len,
                limit: limit as u64,
            }));
        }
        let remaining = self.remaining();
        if len.saturating_mul(min_size as u64) > remaining as u64 {
            return Err(self.error(DecodeErrorKind::LengthBeyondInput {
                declared: len,
                remaining,
            }));
        }
        // `len <= remaining`, which is a usize.
        Ok(len as usize)
    }

    /// Read a length-prefixed binary, borrowed from the input.
    #[inline]
    pub fn read_binary_slice(&mut self) -> Result<&'a [u8], DecodeError> {
        let len = self.read_varint()?;
        let len = self.check_len(len, 1, self.max_string_len, "string length")?;
        self.read_bytes(len)
    }

    /// Read a length-prefixed binary: a slice of the input when reading
    /// from [`Bytes`], else a copy.
    #[inline]
    pub fn read_binary(&mut self) -> Result<Bytes, DecodeError> {
        let len = self.read_varint()?;
        let len = self.check_len(len, 1, self.max_string_len, "string length")?;
        let start = self.pos;
        self.read_bytes(len)?;
        Ok(self.bytes_since(start))
    }

    /// The input from `start` to the current position: a slice of it when
    /// reading from [`Bytes`], else a copy.
    #[inline]
    fn bytes_since(&self, start: usize) -> Bytes {
        match self.source {
            Some(b) => b.slice(start..self.pos),
            None => Bytes::copy_from_slice(self.buf.get(start..self.pos).unwrap_or_default()),
        }
    }

    /// Read a length-prefixed UTF-8 string.
    #[inline]
    pub fn read_string(&mut self) -> Result<String, DecodeError> {
        let start = self.pos;
        let b = self.read_binary_slice()?;
        match std::str::from_utf8(b) {
            Ok(s) => Ok(s.to_owned()),
            Err(_) => Err(DecodeError::new(start, DecodeErrorKind::InvalidUtf8)),
        }
    }

    /// Read a `list<binary>` into a [`BinaryList`]: one buffer (a slice of
    /// the input when reading from [`Bytes`]) and the value ranges, instead
    /// of one allocation per value.
    pub fn read_binary_list(&mut self) -> Result<BinaryList, DecodeError> {
        let count = self.read_list_header_of::<Bytes>()?;
        let start = self.pos;
        let mut ranges = Vec::with_capacity(count);
        for _ in 0..count {
            let len = self.read_varint()?;
            let len = self.check_len(len, 1, self.max_string_len, "string length")?;
            let from = self.pos - start;
            self.read_bytes(len)?;
            ranges.push((from, self.pos - start));
        }
        Ok(BinaryList {
            data: self.bytes_since(start),
            ranges,
        })
    }

    /// Read a `list<string>` into a [`StringList`]: the encoded elements (a
    /// slice of the input when reading from [`Bytes`]), each checked for
    /// length and UTF-8, with no allocation per value.
    ///
    /// An element that is not valid UTF-8 is kept with U+FFFD in place of
    /// its bad bytes rather than refused: the format's `list<string>`s are
    /// `path_in_schema`, which only repeats the path the schema gives, so a
    /// reader need not trust it and a corrupt one is no reason to refuse
    /// the file's data.
    pub fn read_string_list(&mut self) -> Result<StringList, DecodeError> {
        let count = self.read_list_header_of::<Bytes>()?;
        let start = self.pos;
        let mut valid = true;
        for _ in 0..count {
            let s = self.read_binary_slice()?;
            // Paths are nearly always ASCII, which is checked word by word.
            valid &= s.is_ascii() || std::str::from_utf8(s).is_ok();
        }
        let raw = self.bytes_since(start);
        if valid {
            return Ok(StringList::from_checked(raw, count));
        }
        Ok(lossy_string_list(&raw, count))
    }

    /// Read a list (or set) header: the element type and the count, checked
    /// against the list limit and against the bytes remaining (each element
    /// taking at least `min_size` bytes).
    #[inline]
    pub fn read_list_header(&mut self, min_size: usize) -> Result<(u8, usize), DecodeError> {
        let b = self.read_byte()?;
        let elem = b & 0x0f;
        let short = u64::from(b >> 4);
        let count = if short == 15 {
            let n = self.read_varint()?;
            // Counts are i32 on the wire.
            if n > i32::MAX as u64 {
                return Err(self.error(DecodeErrorKind::NegativeLength(n as i64)));
            }
            n
        } else {
            short
        };
        let count = self.check_len(count, min_size, self.max_list_len, "list length")?;
        Ok((elem, count))
    }

    /// Read a list header for elements of type `T`, checking the element type.
    #[inline]
    fn read_list_header_of<T: ListElement>(&mut self) -> Result<usize, DecodeError> {
        let start = self.pos;
        let (elem, count) = self.read_list_header(T::MIN_SIZE)?;
        let matches = if T::ELEM_TYPE == ct::BOOL_TRUE {
            ct::is_bool(elem)
        } else {
            elem == T::ELEM_TYPE
        };
        if !matches && count > 0 {
            return Err(DecodeError::new(
                start,
                DecodeErrorKind::UnexpectedListType {
                    expected: T::ELEM_TYPE,
                    found: elem,
                },
            ));
        }
        Ok(count)
    }

    /// Read `count` list elements into a vector.
    fn read_list_body<T: ListElement>(&mut self, count: usize) -> Result<Vec<T>, DecodeError> {
        // `count` is bounded by the bytes remaining, but one byte on the wire
        // can decode to a large value: reserve at most 1 MiB up front and
        // let real elements grow the vector.
        let cap = count.min((1 << 20) / std::mem::size_of::<T>().max(1));
        let mut v = Vec::with_capacity(cap);
        for _ in 0..count {
            T::read_elem_into(self, &mut v)?;
        }
        Ok(v)
    }

    /// Read a `list<T>`.
    pub fn read_list<T: ListElement>(&mut self) -> Result<Vec<T>, DecodeError> {
        let count = self.read_list_header_of::<T>()?;
        self.read_list_body(count)
    }

    /// Read a `list<T>` of small `Copy` values into a [`SmallList`]: inline,
    /// without allocating, when it has at most `N` elements.
    pub fn read_small_list<T, const N: usize>(&mut self) -> Result<SmallList<T, N>, DecodeError>
    where
        T: ListElement + Copy + Default,
    {
        let count = self.read_list_header_of::<T>()?;
        if count <= N {
            let mut l = SmallList::new();
            for _ in 0..count {
                l.push(T::read_elem(self)?);
            }
            Ok(l)
        } else {
            Ok(self.read_list_body(count)?.into())
        }
    }

    /// Read a field header. Returns `None` at the end of the struct, else
    /// the wire type and the field id; `last_id` carries the delta state.
    #[inline]
    pub fn read_field_header(
        &mut self,
        last_id: &mut i16,
    ) -> Result<Option<(u8, i16)>, DecodeError> {
        let b = self.read_byte()?;
        if b == ct::STOP {
            return Ok(None);
        }
        let ty = b & 0x0f;
        let delta = b >> 4;
        let id = if delta == 0 {
            self.read_i16()?
        } else {
            last_id.wrapping_add(i16::from(delta))
        };
        *last_id = id;
        Ok(Some((ty, id)))
    }

    /// Skip one value of wire type `ty` (as found in a field header).
    pub fn skip(&mut self, ty: u8) -> Result<(), DecodeError> {
        self.skip_value(ty, true)
    }

    fn skip_value(&mut self, ty: u8, in_field: bool) -> Result<(), DecodeError> {
        match ty {
            ct::BOOL_TRUE | ct::BOOL_FALSE => {
                if !in_field {
                    self.read_bool_elem()?;
                }
                Ok(())
            }
            ct::BYTE => self.read_byte().map(drop),
            ct::I16 | ct::I32 | ct::I64 => self.read_varint().map(drop),
            ct::DOUBLE => self.read_bytes(8).map(drop),
            ct::UUID => self.read_bytes(16).map(drop),
            ct::BINARY => {
                let len = self.read_varint()?;
                let len = self.check_len(len, 1, usize::MAX, "string length")?;
                self.read_bytes(len).map(drop)
            }
            ct::LIST | ct::SET => {
                self.enter()?;
                let (elem, count) = self.read_list_header(1)?;
                for _ in 0..count {
                    self.skip_value(elem, false)?;
                }
                self.leave();
                Ok(())
            }
            ct::MAP => {
                self.enter()?;
                let n = self.read_varint()?;
                let count = self.check_len(n, 2, self.max_list_len, "map length")?;
                if count > 0 {
                    let kv = self.read_byte()?;
                    for _ in 0..count {
                        self.skip_value(kv >> 4, false)?;
                        self.skip_value(kv & 0x0f, false)?;
                    }
                }
                self.leave();
                Ok(())
            }
            ct::STRUCT => {
                self.enter()?;
                let mut last = 0i16;
                while let Some((t, _)) = self.read_field_header(&mut last)? {
                    self.skip_value(t, true)?;
                }
                self.leave();
                Ok(())
            }
            other => {
                self.pos = self.pos.saturating_sub(usize::from(in_field));
                Err(self.error(DecodeErrorKind::InvalidType(other)))
            }
        }
    }
}

/// The `count` elements of a `list<string>` whose bytes `raw` the decoder
/// has read (so each is well formed), with bad UTF-8 replaced by U+FFFD.
fn lossy_string_list(raw: &[u8], count: usize) -> StringList {
    let limits = Limits {
        max_string_len: usize::MAX,
        ..Limits::default()
    };
    let mut r = CompactReader::with_limits(raw, &limits);
    let values: Vec<String> = (0..count)
        .map_while(|_| r.read_binary_slice().ok())
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .collect();
    StringList::from_values(values)
}

/// A compact-protocol writer into a `Vec<u8>`.
#[derive(Debug, Default, Clone)]
pub struct CompactWriter {
    buf: Vec<u8>,
}

impl CompactWriter {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// A writer appending to `buf`.
    pub fn from_vec(buf: Vec<u8>) -> Self {
        Self { buf }
    }

    /// The bytes written.
    pub fn into_inner(self) -> Vec<u8> {
        self.buf
    }

    /// Write one byte.
    #[inline]
    pub fn write_byte(&mut self, b: u8) {
        self.buf.push(b);
    }

    /// Append raw bytes (no length prefix).
    #[inline]
    pub fn write_raw(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Write an unsigned LEB128 varint.
    #[inline]
    pub fn write_varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }

    /// Write a zigzag varint `i16`.
    #[inline]
    pub fn write_i16(&mut self, v: i16) {
        self.write_varint(u64::from(((v << 1) ^ (v >> 15)) as u16));
    }

    /// Write a zigzag varint `i32`.
    #[inline]
    pub fn write_i32(&mut self, v: i32) {
        self.write_varint(u64::from(((v << 1) ^ (v >> 31)) as u32));
    }

    /// Write a zigzag varint `i64`.
    #[inline]
    pub fn write_i64(&mut self, v: i64) {
        self.write_varint(((v << 1) ^ (v >> 63)) as u64);
    }

    /// Write an 8-bit integer.
    #[inline]
    pub fn write_i8(&mut self, v: i8) {
        self.buf.push(v as u8);
    }

    /// Write a little-endian double.
    #[inline]
    pub fn write_double(&mut self, v: f64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    /// Write a boolean list element.
    #[inline]
    pub fn write_bool_elem(&mut self, v: bool) {
        self.buf.push(if v { 1 } else { 2 });
    }

    /// Write a length-prefixed binary.
    #[inline]
    pub fn write_binary(&mut self, v: &[u8]) {
        self.write_varint(v.len() as u64);
        self.buf.extend_from_slice(v);
    }

    /// Write a length-prefixed string.
    #[inline]
    pub fn write_string(&mut self, v: &str) {
        self.write_binary(v.as_bytes());
    }

    /// Write a field header for field `id` of wire type `ty`.
    #[inline]
    pub fn write_field_header(&mut self, ty: u8, id: i16, last_id: &mut i16) {
        let delta = i32::from(id) - i32::from(*last_id);
        if (1..=15).contains(&delta) {
            self.buf.push(((delta as u8) << 4) | ty);
        } else {
            self.buf.push(ty);
            self.write_i16(id);
        }
        *last_id = id;
    }

    /// Write a boolean field (the value goes in the type nibble).
    #[inline]
    pub fn write_bool_field(&mut self, id: i16, v: bool, last_id: &mut i16) {
        let ty = if v { ct::BOOL_TRUE } else { ct::BOOL_FALSE };
        self.write_field_header(ty, id, last_id);
    }

    /// End a struct.
    #[inline]
    pub fn write_stop(&mut self) {
        self.buf.push(ct::STOP);
    }

    /// Write a list header.
    #[inline]
    pub fn write_list_header(&mut self, elem: u8, len: usize) {
        if len < 15 {
            self.buf.push(((len as u8) << 4) | elem);
        } else {
            self.buf.push(0xf0 | elem);
            self.write_varint(len as u64);
        }
    }

    /// Write a `list<binary>`.
    pub fn write_binary_list(&mut self, v: &BinaryList) {
        self.write_list_header(ct::BINARY, v.len());
        for b in v.iter() {
            self.write_binary(b);
        }
    }

    /// Write a `list<string>`.
    pub fn write_string_list(&mut self, v: &StringList) {
        self.write_list_header(ct::BINARY, v.len());
        for s in v.iter() {
            self.write_string(s);
        }
    }

    /// Write a `list<T>`.
    pub fn write_list<T: ListElement>(&mut self, v: &[T]) {
        self.write_list_header(T::ELEM_TYPE, v.len());
        for e in v {
            e.write_elem(self);
        }
    }
}

/// A `list<binary>` (e.g. [`ColumnIndex::min_values`](crate::ColumnIndex)):
/// the values share one buffer instead of one allocation each.
///
/// ```
/// use pq_format::BinaryList;
/// let l = BinaryList::from_values([&b"a"[..], b"bc"]);
/// assert_eq!(l.len(), 2);
/// assert_eq!(l.get(1), Some(&b"bc"[..]));
/// assert_eq!(l.iter().collect::<Vec<_>>(), [&b"a"[..], b"bc"]);
/// ```
#[derive(Clone, Default)]
pub struct BinaryList {
    data: Bytes,
    ranges: Vec<(usize, usize)>,
}

impl BinaryList {
    /// A list of the given values.
    pub fn from_values<I>(values: I) -> Self
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        let mut data = Vec::new();
        let mut ranges = Vec::new();
        for v in values {
            let from = data.len();
            data.extend_from_slice(v.as_ref());
            ranges.push((from, data.len()));
        }
        Self {
            data: Bytes::from(data),
            ranges,
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Value `i`.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        let &(a, b) = self.ranges.get(i)?;
        self.data.get(a..b)
    }

    /// Value `i` as a zero-copy [`Bytes`].
    pub fn get_bytes(&self, i: usize) -> Option<Bytes> {
        let &(a, b) = self.ranges.get(i)?;
        if b <= self.data.len() && a <= b {
            Some(self.data.slice(a..b))
        } else {
            None
        }
    }

    /// The values in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u8]> + '_ {
        self.ranges
            .iter()
            .map(|&(a, b)| self.data.get(a..b).unwrap_or_default())
    }
}

impl PartialEq for BinaryList {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for BinaryList {}

impl std::fmt::Debug for BinaryList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: AsRef<[u8]>> FromIterator<T> for BinaryList {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Self::from_values(iter)
    }
}

macro_rules! list_elem {
    ($t:ty, $ct:expr, $min:expr, $read:ident, $write:ident, $conv:tt) => {
        impl ListElement for $t {
            const ELEM_TYPE: u8 = $ct;
            const MIN_SIZE: usize = $min;
            #[inline]
            fn read_elem(r: &mut CompactReader<'_>) -> Result<Self, DecodeError> {
                r.$read()
            }
            #[inline]
            fn write_elem(&self, w: &mut CompactWriter) {
                list_elem!(@w w, $write, self, $conv)
            }
        }
    };
    (@w $w:ident, $write:ident, $s:ident, copy) => {
        $w.$write(*$s)
    };
    (@w $w:ident, $write:ident, $s:ident, borrow) => {
        $w.$write($s)
    };
}

list_elem!(
    bool,
    ct::BOOL_TRUE,
    1,
    read_bool_elem,
    write_bool_elem,
    copy
);
list_elem!(i8, ct::BYTE, 1, read_i8, write_i8, copy);
list_elem!(i16, ct::I16, 1, read_i16, write_i16, copy);
list_elem!(i32, ct::I32, 1, read_i32, write_i32, copy);
list_elem!(i64, ct::I64, 1, read_i64, write_i64, copy);
list_elem!(f64, ct::DOUBLE, 8, read_double, write_double, copy);
list_elem!(String, ct::BINARY, 1, read_string, write_string, borrow);
list_elem!(Bytes, ct::BINARY, 1, read_binary, write_binary, borrow);
