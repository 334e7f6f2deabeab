//! The writer of one column chunk: values from Arrow buffers into pages,
//! dictionary with fallback, statistics and the page index.

use pq_encoding::{alp, byte_stream_split, delta_binary_packed, delta_byte_array, plain};
use pq_format::{
    BinaryList, BoundaryOrder, ColumnIndex, ColumnMetaData, CompressionCodec, Encoding,
    OffsetIndex, PageEncodingStats, PageLocation, PageType, Statistics, Type,
};
use pq_page::{DataPageV1Parts, DataPageV2Parts, PageWriteError, PageWriter, bit_width};

use crate::error::{Error, Location, Result, write_err};
use crate::write::dict::{BytesDict, FixedDict};
use crate::write::levels::{LeafLevels, Selection};
use crate::write::options::{DataPageVersion, ResolvedColumn, WriterOptions};
use crate::write::phys::{ByteSource, Phys, Scratch, phys};
use crate::write::rle;
use crate::write::schema::{Leaf, SortOrder};
use crate::write::stats::{
    Order, Stats, half_to_f32, minmax_f64, minmax_i32, minmax_i64, truncate_max, truncate_min,
};

/// Levels per mini-batch: page limits are checked between mini-batches.
const MINI_BATCH: usize = 1024;

/// Whether `encoding` can encode values of `physical`.
pub(crate) fn encoding_allowed(physical: Type, encoding: Encoding) -> bool {
    match physical {
        Type::BOOLEAN => matches!(encoding, Encoding::PLAIN | Encoding::RLE),
        Type::INT32 | Type::INT64 => matches!(
            encoding,
            Encoding::PLAIN | Encoding::DELTA_BINARY_PACKED | Encoding::BYTE_STREAM_SPLIT
        ),
        Type::FLOAT | Type::DOUBLE => matches!(
            encoding,
            Encoding::PLAIN | Encoding::BYTE_STREAM_SPLIT | Encoding::ALP
        ),
        Type::BYTE_ARRAY => matches!(
            encoding,
            Encoding::PLAIN | Encoding::DELTA_LENGTH_BYTE_ARRAY | Encoding::DELTA_BYTE_ARRAY
        ),
        Type::FIXED_LEN_BYTE_ARRAY => matches!(
            encoding,
            Encoding::PLAIN | Encoding::DELTA_BYTE_ARRAY | Encoding::BYTE_STREAM_SPLIT
        ),
        _ => false,
    }
}

/// Buffered non-dictionary values of the page being built.
#[derive(Debug)]
enum Values {
    Bool(Vec<bool>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    /// BYTE_ARRAY values for encodings that need them one by one.
    Bytes {
        offsets: Vec<usize>,
        data: Vec<u8>,
    },
    /// BYTE_ARRAY values already PLAIN-encoded (4-byte length, bytes).
    PlainBytes(Vec<u8>),
    Fixed(Vec<u8>, usize),
}

impl Values {
    fn new(leaf: &Leaf, encoding: Encoding) -> Self {
        match leaf.physical {
            Type::BYTE_ARRAY if encoding == Encoding::PLAIN => Values::PlainBytes(Vec::new()),
            Type::BOOLEAN => Values::Bool(Vec::new()),
            Type::INT32 => Values::I32(Vec::new()),
            Type::INT64 => Values::I64(Vec::new()),
            Type::FLOAT => Values::F32(Vec::new()),
            Type::DOUBLE => Values::F64(Vec::new()),
            Type::BYTE_ARRAY => Values::Bytes {
                offsets: vec![0],
                data: Vec::new(),
            },
            _ => Values::Fixed(Vec::new(), leaf.type_length),
        }
    }

    fn size(&self) -> usize {
        match self {
            Values::Bool(v) => v.len() / 8,
            Values::I32(v) => v.len() * 4,
            Values::I64(v) => v.len() * 8,
            Values::F32(v) => v.len() * 4,
            Values::F64(v) => v.len() * 8,
            Values::Bytes { offsets, data } => data.len() + 4 * (offsets.len() - 1),
            Values::PlainBytes(v) => v.len(),
            Values::Fixed(v, _) => v.len(),
        }
    }

    fn clear(&mut self) {
        match self {
            Values::Bool(v) => v.clear(),
            Values::I32(v) => v.clear(),
            Values::I64(v) => v.clear(),
            Values::F32(v) => v.clear(),
            Values::F64(v) => v.clear(),
            Values::Bytes { offsets, data } => {
                offsets.truncate(1);
                data.clear();
            }
            Values::PlainBytes(v) => v.clear(),
            Values::Fixed(v, _) => v.clear(),
        }
    }

    /// Encodes the values into `out` (taking the buffer when it already
    /// holds the encoding and `out` is empty); [`clear`](Self::clear) next.
    fn encode(&mut self, encoding: Encoding, out: &mut Vec<u8>) -> pq_encoding::Result<()> {
        match (self, encoding) {
            (Values::PlainBytes(v), _) if out.is_empty() => std::mem::swap(v, out),
            (Values::PlainBytes(v), _) => out.extend_from_slice(v),
            (Values::Bool(v), Encoding::RLE) => rle::encode_length_prefixed(v, 1, out),
            (Values::Bool(v), _) => plain::encode_bool(v, out),
            (Values::I32(v), Encoding::DELTA_BINARY_PACKED) => delta_binary_packed::encode(v, out),
            (Values::I64(v), Encoding::DELTA_BINARY_PACKED) => delta_binary_packed::encode(v, out),
            (Values::I32(v), Encoding::BYTE_STREAM_SPLIT) => byte_stream_split::encode(v, out),
            (Values::I64(v), Encoding::BYTE_STREAM_SPLIT) => byte_stream_split::encode(v, out),
            (Values::F32(v), Encoding::BYTE_STREAM_SPLIT) => byte_stream_split::encode(v, out),
            (Values::F64(v), Encoding::BYTE_STREAM_SPLIT) => byte_stream_split::encode(v, out),
            (Values::F32(v), Encoding::ALP) => alp::encode(v, out),
            (Values::F64(v), Encoding::ALP) => alp::encode(v, out),
            (Values::I32(v), _) => plain::encode(v, out),
            (Values::I64(v), _) => plain::encode(v, out),
            (Values::F32(v), _) => plain::encode(v, out),
            (Values::F64(v), _) => plain::encode(v, out),
            (Values::Bytes { offsets, data }, e) => {
                let iter = offsets.windows(2).map(|w| &data[w[0]..w[1]]);
                match e {
                    Encoding::DELTA_LENGTH_BYTE_ARRAY => {
                        delta_byte_array::encode_delta_length(iter, out)?
                    }
                    Encoding::DELTA_BYTE_ARRAY => {
                        delta_byte_array::encode_delta_byte_array(iter, out)?
                    }
                    _ => {
                        out.reserve(data.len() + 4 * (offsets.len() - 1));
                        plain::encode_byte_array(iter, out)
                    }
                }
            }
            (Values::Fixed(v, w), Encoding::BYTE_STREAM_SPLIT) => {
                byte_stream_split::encode_bytes(v, *w, out)
            }
            (Values::Fixed(v, w), Encoding::DELTA_BYTE_ARRAY) => {
                delta_byte_array::encode_delta_byte_array(v.chunks_exact((*w).max(1)), out)?
            }
            (Values::Fixed(v, _), _) => out.extend_from_slice(v),
        }
        Ok(())
    }
}

/// The dictionary of a column chunk.
#[derive(Debug)]
enum Dict {
    I32(FixedDict<i32>),
    I64(FixedDict<i64>),
    F32(FixedDict<f32>),
    F64(FixedDict<f64>),
    Bytes(BytesDict),
    /// FIXED_LEN_BYTE_ARRAY values.
    Fixed(BytesDict),
}

impl Dict {
    /// A dictionary; `max_bytes` and `max_entries` are the fallback limits.
    fn new(physical: Type, max_bytes: usize, max_entries: usize) -> Option<Self> {
        // Entries before the fallback, plus what one mini-batch adds past it.
        let cap = |size: usize| {
            (max_bytes / size)
                .min(max_entries)
                .saturating_add(MINI_BATCH)
        };
        Some(match physical {
            Type::INT32 => Dict::I32(FixedDict::new(cap(4))),
            Type::INT64 => Dict::I64(FixedDict::new(cap(8))),
            Type::FLOAT => Dict::F32(FixedDict::new(cap(4))),
            Type::DOUBLE => Dict::F64(FixedDict::new(cap(8))),
            Type::BYTE_ARRAY => Dict::Bytes(BytesDict::new()),
            Type::FIXED_LEN_BYTE_ARRAY => Dict::Fixed(BytesDict::new()),
            _ => return None,
        })
    }

    fn num_entries(&self) -> usize {
        match self {
            Dict::I32(d) => d.num_entries(),
            Dict::I64(d) => d.num_entries(),
            Dict::F32(d) => d.num_entries(),
            Dict::F64(d) => d.num_entries(),
            Dict::Bytes(d) | Dict::Fixed(d) => d.num_entries(),
        }
    }

    /// Bytes of the dictionary page as written.
    fn size(&self) -> usize {
        match self {
            Dict::I32(d) => d.size(),
            Dict::I64(d) => d.size(),
            Dict::F32(d) => d.size(),
            Dict::F64(d) => d.size(),
            Dict::Bytes(d) => d.size(),
            Dict::Fixed(d) => d.fixed_size(),
        }
    }

    fn num_indices(&self) -> usize {
        match self {
            Dict::I32(d) => d.num_indices(),
            Dict::I64(d) => d.num_indices(),
            Dict::F32(d) => d.num_indices(),
            Dict::F64(d) => d.num_indices(),
            Dict::Bytes(d) | Dict::Fixed(d) => d.num_indices(),
        }
    }

    fn write_indices(&mut self, out: &mut Vec<u8>) {
        match self {
            Dict::I32(d) => d.write_indices(out),
            Dict::I64(d) => d.write_indices(out),
            Dict::F32(d) => d.write_indices(out),
            Dict::F64(d) => d.write_indices(out),
            Dict::Bytes(d) | Dict::Fixed(d) => {
                d.write_indices(out);
                d.next_page();
            }
        }
    }

    fn write_dict(&self, out: &mut Vec<u8>) {
        match self {
            Dict::I32(d) => d.write_dict(out),
            Dict::I64(d) => d.write_dict(out),
            Dict::F32(d) => d.write_dict(out),
            Dict::F64(d) => d.write_dict(out),
            Dict::Bytes(d) => d.write_dict(out),
            Dict::Fixed(d) => d.write_dict_fixed(out),
        }
    }
}

/// One data page's place in the chunk and its index entry.
#[derive(Debug)]
struct PageMeta {
    /// Offset of the page header from the first data page.
    offset: usize,
    len: usize,
    first_row: u64,
    null_count: u64,
    /// No non-null values.
    null_page: bool,
    bounds: Option<(Vec<u8>, Vec<u8>)>,
}

/// A written column chunk, its offsets relative to its first byte.
#[derive(Debug)]
pub(crate) struct FinishedChunk {
    /// Dictionary page, empty when there is none.
    pub dict_page: Vec<u8>,
    /// Data pages, in order, written right after the dictionary page.
    pub pages: Vec<Vec<u8>>,
    /// Metadata with offsets relative to the chunk start.
    pub meta: ColumnMetaData,
    pub column_index: Option<ColumnIndex>,
    /// Page locations relative to the chunk start.
    pub offset_index: Option<OffsetIndex>,
}

fn page_err(at: &Location, e: PageWriteError) -> Error {
    match e {
        PageWriteError::Compress(source) => Error::Compress {
            at: Box::new(at.clone()),
            source,
        },
        other => write_err(at, other),
    }
}

/// Writes the pages of one leaf column in one row group.
#[derive(Debug)]
pub(crate) struct ColumnChunkWriter {
    leaf: Leaf,
    at: Location,
    opts: ResolvedColumn,
    order: Order,
    version: DataPageVersion,
    page_size: usize,
    page_row_limit: usize,
    dict_max_bytes: usize,
    dict_max_entries: usize,
    page_index: bool,
    trunc_stats: Option<usize>,
    trunc_index: Option<usize>,
    pw: PageWriter,
    // The page being built.
    def: Vec<i16>,
    rep: Vec<i16>,
    page_levels: usize,
    page_rows: usize,
    page_stats: Stats,
    values: Values,
    dict: Option<Dict>,
    dict_active: bool,
    // The chunk so far: one buffer per page. Page-sized buffers are
    // recycled by the allocator across chunks and row groups; one buffer
    // growing to the chunk's size would be fresh memory (page faults) for
    // every chunk.
    data: Vec<Vec<u8>>,
    data_len: usize,
    pages: Vec<PageMeta>,
    chunk_stats: Stats,
    rows: u64,
    num_values: u64,
    uncompressed: u64,
    encodings: Vec<Encoding>,
    encoding_stats: Vec<PageEncodingStats>,
    // Scratch.
    level_buf: Vec<u8>,
    level_buf2: Vec<u8>,
    body: Vec<u8>,
    i32s: Vec<i32>,
    i64s: Vec<i64>,
    f32s: Vec<f32>,
    f64s: Vec<f64>,
    bools: Vec<bool>,
    /// Converted values of the slice being written (see [`phys`]).
    conv: Scratch,
}

impl ColumnChunkWriter {
    pub(crate) fn new(leaf: &Leaf, opts: ResolvedColumn, options: &WriterOptions) -> Self {
        let dict = if opts.dictionary {
            Dict::new(
                leaf.physical,
                options.dictionary_page_size_limit,
                options.dictionary_max_entries,
            )
        } else {
            None
        };
        let at = Location::column(leaf.path.join("."));
        let dict_active = dict.is_some();
        Self {
            leaf: leaf.clone(),
            at,
            opts,
            order: Order {
                physical: leaf.physical,
                sort: leaf.sort,
            },
            version: options.data_page_version,
            page_size: options.data_page_size,
            page_row_limit: options.data_page_rows,
            dict_max_bytes: options.dictionary_page_size_limit,
            dict_max_entries: options.dictionary_max_entries,
            page_index: options.page_index,
            trunc_stats: options.statistics_truncate_length,
            trunc_index: options.column_index_truncate_length,
            pw: PageWriter::new(opts.codec, opts.level, options.page_checksums),
            def: Vec::new(),
            rep: Vec::new(),
            page_levels: 0,
            page_rows: 0,
            page_stats: Stats::default(),
            values: Values::new(leaf, opts.encoding),
            dict,
            dict_active,
            data: Vec::new(),
            data_len: 0,
            pages: Vec::new(),
            chunk_stats: Stats::default(),
            rows: 0,
            num_values: 0,
            uncompressed: 0,
            encodings: Vec::new(),
            encoding_stats: Vec::new(),
            level_buf: Vec::new(),
            level_buf2: Vec::new(),
            body: Vec::new(),
            i32s: Vec::new(),
            i64s: Vec::new(),
            f32s: Vec::new(),
            f64s: Vec::new(),
            bools: Vec::new(),
            conv: Scratch::default(),
        }
    }

    /// Bytes buffered so far (pages written, the page being built and the
    /// dictionary).
    pub(crate) fn buffered_bytes(&self) -> usize {
        self.data_len + self.page_estimate() + self.dict.as_ref().map_or(0, Dict::size)
    }

    fn page_estimate(&self) -> usize {
        let levels = (self.page_levels
            * (bit_width(self.leaf.max_def) + bit_width(self.leaf.max_rep)) as usize)
            / 8;
        let values = match (&self.dict, self.dict_active) {
            (Some(d), true) => {
                let w = pq_page_bits(d.num_entries());
                d.num_indices() * w / 8 + 1
            }
            _ => self.values.size(),
        };
        levels + values
    }

    /// Adds the levels and values of one slice of rows.
    pub(crate) fn write(&mut self, leaf: &LeafLevels) -> Result<()> {
        // Taken out while `phys` borrows it, put back when done.
        let mut conv = std::mem::take(&mut self.conv);
        let result = self.write_with(leaf, &mut conv);
        self.conv = conv;
        result
    }

    fn write_with(&mut self, leaf: &LeafLevels, conv: &mut Scratch) -> Result<()> {
        let phys = phys(
            leaf.array.as_ref(),
            &self.at.column.clone().unwrap_or_default(),
            conv,
        )?;
        let n = leaf.num_levels;
        let max_def = self.leaf.max_def;
        let (mut a, mut va) = (0, 0);
        while a < n {
            let mut b = (a + MINI_BATCH).min(n);
            if let Some(rep) = &leaf.rep {
                while b < n && rep[b] != 0 {
                    b += 1;
                }
            }
            let nv = match &leaf.def {
                Some(d) => d[a..b].iter().filter(|&&x| x == max_def).count(),
                None => b - a,
            };
            let rows = match &leaf.rep {
                Some(r) => {
                    self.rep.extend_from_slice(&r[a..b]);
                    r[a..b].iter().filter(|&&x| x == 0).count()
                }
                None => b - a,
            };
            if let Some(d) = &leaf.def {
                self.def.extend_from_slice(&d[a..b]);
            }
            self.add_values(&phys, &leaf.selection, va, va + nv);
            self.page_levels += b - a;
            self.page_rows += rows;
            self.page_stats.null_count += (b - a - nv) as u64;
            self.page_stats.values += nv as u64;
            va += nv;
            a = b;
            self.check_limits()?;
        }
        Ok(())
    }

    fn check_limits(&mut self) -> Result<()> {
        if let (Some(d), true) = (&self.dict, self.dict_active)
            && (d.size() > self.dict_max_bytes || d.num_entries() > self.dict_max_entries)
        {
            self.flush_page()?;
            self.dict_active = false;
            return Ok(());
        }
        if self.page_estimate() >= self.page_size || self.page_rows >= self.page_row_limit {
            self.flush_page()?;
        }
        Ok(())
    }

    fn add_values(&mut self, phys: &Phys<'_>, sel: &Selection, va: usize, vb: usize) {
        if va == vb {
            return;
        }
        let stats = self.opts.statistics;
        let unsigned = self.leaf.sort == SortOrder::Unsigned;
        match phys {
            Phys::I32(v) => {
                let s = gather(v, sel, va, vb, &mut self.i32s);
                if stats && let Some((lo, hi)) = minmax_i32(s, unsigned) {
                    self.page_stats
                        .update(&self.order, &lo.to_le_bytes(), &hi.to_le_bytes());
                }
                match (&mut self.dict, &mut self.values) {
                    (Some(Dict::I32(d)), _) if self.dict_active => {
                        d.put(s);
                    }
                    (_, Values::I32(out)) => out.extend_from_slice(s),
                    _ => {}
                }
            }
            Phys::I64(v) => {
                let s = gather(v, sel, va, vb, &mut self.i64s);
                if stats && let Some((lo, hi)) = minmax_i64(s, unsigned) {
                    self.page_stats
                        .update(&self.order, &lo.to_le_bytes(), &hi.to_le_bytes());
                }
                match (&mut self.dict, &mut self.values) {
                    (Some(Dict::I64(d)), _) if self.dict_active => {
                        d.put(s);
                    }
                    (_, Values::I64(out)) => out.extend_from_slice(s),
                    _ => {}
                }
            }
            Phys::F32(v) => {
                let s = gather(v, sel, va, vb, &mut self.f32s);
                if stats && let Some((lo, hi)) = minmax_f64(s.iter().map(|&x| x as f64)) {
                    let (lo, hi) = (lo as f32, hi as f32);
                    self.page_stats
                        .update(&self.order, &lo.to_le_bytes(), &hi.to_le_bytes());
                }
                match (&mut self.dict, &mut self.values) {
                    (Some(Dict::F32(d)), _) if self.dict_active => {
                        d.put(s);
                    }
                    (_, Values::F32(out)) => out.extend_from_slice(s),
                    _ => {}
                }
            }
            Phys::F64(v) => {
                let s = gather(v, sel, va, vb, &mut self.f64s);
                if stats && let Some((lo, hi)) = minmax_f64(s.iter().copied()) {
                    self.page_stats
                        .update(&self.order, &lo.to_le_bytes(), &hi.to_le_bytes());
                }
                match (&mut self.dict, &mut self.values) {
                    (Some(Dict::F64(d)), _) if self.dict_active => {
                        d.put(s);
                    }
                    (_, Values::F64(out)) => out.extend_from_slice(s),
                    _ => {}
                }
            }
            Phys::Bool(arr) => {
                self.bools.clear();
                let bits = arr.values();
                match sel {
                    Selection::Range(a) => {
                        self.bools.extend((a + va..a + vb).map(|i| bits.value(i)))
                    }
                    Selection::Indices(ix) => {
                        self.bools.extend(ix[va..vb].iter().map(|&i| bits.value(i)))
                    }
                }
                if stats {
                    let lo = !self.bools.iter().any(|b| !b);
                    let hi = self.bools.iter().any(|&b| b);
                    self.page_stats
                        .update(&self.order, &[lo as u8], &[hi as u8]);
                }
                if let Values::Bool(out) = &mut self.values {
                    out.extend_from_slice(&self.bools);
                }
            }
            Phys::Bytes(src) => match (src, sel) {
                // Contiguous offsets: walked directly, no per-value dispatch.
                (ByteSource::O32(o, d), Selection::Range(a)) => {
                    let o = &o[a + va..=a + vb];
                    let total = (o[o.len() - 1] - o[0]) as usize;
                    let iter = o.windows(2).map(|w| &d[w[0] as usize..w[1] as usize]);
                    self.put_bytes(iter, stats, total);
                }
                (ByteSource::O64(o, d), Selection::Range(a)) => {
                    let o = &o[a + va..=a + vb];
                    let total = (o[o.len() - 1] - o[0]) as usize;
                    let iter = o.windows(2).map(|w| &d[w[0] as usize..w[1] as usize]);
                    self.put_bytes(iter, stats, total);
                }
                _ => {
                    let get = |k: usize| match sel {
                        Selection::Range(a) => src.get(a + k),
                        Selection::Indices(ix) => src.get(ix[k]),
                    };
                    self.put_bytes((va..vb).map(get), stats, 0);
                }
            },
            Phys::Fixed(data, w) => {
                let w = *w;
                let get = |k: usize| {
                    let i = match sel {
                        Selection::Range(a) => a + k,
                        Selection::Indices(ix) => ix[k],
                    };
                    &data[i * w..i * w + w]
                };
                self.put_bytes((va..vb).map(get), stats, (vb - va) * w);
            }
        }
    }

    /// Adds byte-array values (`total` bytes of them, when known).
    fn put_bytes<'b>(
        &mut self,
        values: impl Iterator<Item = &'b [u8]> + Clone,
        stats: bool,
        total: usize,
    ) {
        let stats = stats && self.leaf.sort != SortOrder::Undefined;
        let order = self.order;
        match (&mut self.dict, &mut self.values) {
            (Some(Dict::Bytes(d) | Dict::Fixed(d)), _) if self.dict_active => {
                let from = d.num_indices();
                for v in values {
                    d.put(v);
                }
                // Bounds of the distinct values new to this page: the same
                // as over every value, for a fraction of the comparisons.
                if stats && let Some((lo, hi)) = byte_bounds(&order, d.new_in_page(from)) {
                    self.page_stats.update(&order, lo, hi);
                }
                return;
            }
            (_, Values::PlainBytes(buf)) => {
                buf.reserve(total + 4 * values.size_hint().0);
                for v in values.clone() {
                    buf.extend_from_slice(&(v.len() as u32).to_le_bytes());
                    buf.extend_from_slice(v);
                }
            }
            (_, Values::Bytes { offsets, data }) => {
                data.reserve(total);
                for v in values.clone() {
                    data.extend_from_slice(v);
                    offsets.push(data.len());
                }
            }
            (_, Values::Fixed(data, _)) => {
                data.reserve(total);
                for v in values.clone() {
                    data.extend_from_slice(v);
                }
            }
            _ => {}
        }
        if stats && let Some((lo, hi)) = byte_bounds(&order, values) {
            self.page_stats.update(&order, lo, hi);
        }
    }

    fn encode_levels(&mut self, v2: bool) {
        self.level_buf.clear();
        self.level_buf2.clear();
        for (levels, max, out) in [
            (&self.rep, self.leaf.max_rep, &mut self.level_buf),
            (&self.def, self.leaf.max_def, &mut self.level_buf2),
        ] {
            if max == 0 {
                continue;
            }
            if v2 {
                rle::encode(levels, bit_width(max), out);
            } else {
                rle::encode_length_prefixed(levels, bit_width(max), out);
            }
        }
    }

    fn flush_page(&mut self) -> Result<()> {
        if self.page_levels == 0 {
            return Ok(());
        }
        let v2 = self.version == DataPageVersion::V2;
        self.encode_levels(v2);
        self.body.clear();
        let encoding = match (&mut self.dict, self.dict_active) {
            (Some(d), true) => {
                d.write_indices(&mut self.body);
                Encoding::RLE_DICTIONARY
            }
            _ => {
                self.values
                    .encode(self.opts.encoding, &mut self.body)
                    .map_err(|e| write_err(&self.at, e))?;
                self.values.clear();
                self.opts.encoding
            }
        };
        let offset = self.data_len;
        // Room for the header and levels, and the body (compressed, it is
        // usually smaller; it may grow past this otherwise).
        let mut page =
            Vec::with_capacity(self.body.len() + self.level_buf.len() + self.level_buf2.len() + 64);
        let written = if v2 {
            let parts = DataPageV2Parts {
                rep_levels: &self.level_buf,
                def_levels: &self.level_buf2,
                values: &self.body,
                num_values: self.page_levels,
                num_nulls: self.page_stats.null_count as usize,
                num_rows: self.page_rows,
                encoding,
                statistics: None,
            };
            self.pw.write_data_v2(&parts, &mut page)
        } else {
            let parts = DataPageV1Parts {
                rep_levels: &self.level_buf,
                def_levels: &self.level_buf2,
                values: &self.body,
                num_values: self.page_levels,
                encoding,
            };
            self.pw.write_data_v1(&parts, &mut page)
        }
        .map_err(|e| page_err(&self.at, e))?;
        // A compressed page can be far smaller than its room: give the rest
        // back (in place, no copy) so that a buffered row group holds about
        // its compressed size.
        if page.len() < page.capacity() / 4 * 3 {
            page.shrink_to_fit();
        }
        self.data_len += page.len();
        self.data.push(page);
        self.uncompressed += (written.header_len + written.uncompressed_body_len) as u64;
        let mut bounds = self.page_stats.bounds(&self.order);
        if let (Some((lo, hi)), Some(n), SortOrder::Bytes) =
            (&mut bounds, self.trunc_index, self.leaf.sort)
        {
            truncate_min(lo, n);
            truncate_max(hi, n);
        }
        self.pages.push(PageMeta {
            offset,
            len: written.total_len,
            first_row: self.rows,
            null_count: self.page_stats.null_count,
            null_page: self.page_stats.values == 0,
            bounds,
        });
        let page_type = if v2 {
            PageType::DATA_PAGE_V2
        } else {
            PageType::DATA_PAGE
        };
        self.note_encoding(page_type, encoding);
        self.chunk_stats.merge(&self.order, &self.page_stats);
        self.page_stats.clear();
        self.rows += self.page_rows as u64;
        self.num_values += self.page_levels as u64;
        self.page_levels = 0;
        self.page_rows = 0;
        self.def.clear();
        self.rep.clear();
        Ok(())
    }

    fn note_encoding(&mut self, page_type: PageType, encoding: Encoding) {
        if !self.encodings.contains(&encoding) {
            self.encodings.push(encoding);
        }
        match self
            .encoding_stats
            .iter_mut()
            .find(|s| s.page_type == page_type && s.encoding == encoding)
        {
            Some(s) => s.count += 1,
            None => self.encoding_stats.push(PageEncodingStats {
                page_type,
                encoding,
                count: 1,
            }),
        }
    }

    /// Flushes the last page and assembles the chunk.
    pub(crate) fn finish(mut self) -> Result<FinishedChunk> {
        self.flush_page()?;
        let mut bytes = Vec::new();
        let mut dict_len = 0;
        let used_dict = self
            .encoding_stats
            .iter()
            .any(|s| s.encoding == Encoding::RLE_DICTIONARY);
        let mut encodings = Vec::new();
        let mut encoding_stats = Vec::new();
        if let (Some(d), true) = (&self.dict, used_dict) {
            let mut body = Vec::with_capacity(d.size());
            d.write_dict(&mut body);
            let written = self
                .pw
                .write_dictionary(&body, d.num_entries(), &mut bytes)
                .map_err(|e| page_err(&self.at, e))?;
            dict_len = written.total_len;
            self.uncompressed += (written.header_len + written.uncompressed_body_len) as u64;
            encodings.push(Encoding::PLAIN);
            encoding_stats.push(PageEncodingStats {
                page_type: PageType::DICTIONARY_PAGE,
                encoding: Encoding::PLAIN,
                count: 1,
            });
        }
        if self.leaf.max_def > 0 || self.leaf.max_rep > 0 {
            encodings.push(Encoding::RLE);
        }
        for e in &self.encodings {
            if !encodings.contains(e) {
                encodings.push(*e);
            }
        }
        encoding_stats.extend(self.encoding_stats.iter().cloned());
        let pages = std::mem::take(&mut self.data);
        let stats_on = self.opts.statistics;
        let statistics = stats_on.then(|| {
            let mut s = Statistics {
                null_count: Some(self.chunk_stats.null_count as i64),
                ..Default::default()
            };
            if let Some((mut lo, mut hi)) = self.chunk_stats.bounds(&self.order) {
                let (mut lo_exact, mut hi_exact) = (true, true);
                if let (Some(n), SortOrder::Bytes) = (self.trunc_stats, self.leaf.sort) {
                    lo_exact = !truncate_min(&mut lo, n);
                    hi_exact = !truncate_max(&mut hi, n);
                }
                s.min_value = Some(lo.into());
                s.max_value = Some(hi.into());
                s.is_min_value_exact = Some(lo_exact);
                s.is_max_value_exact = Some(hi_exact);
            }
            s
        });
        let page_locations: Vec<PageLocation> = self
            .pages
            .iter()
            .map(|p| PageLocation {
                offset: (dict_len + p.offset) as i64,
                compressed_page_size: p.len as i32,
                first_row_index: p.first_row as i64,
            })
            .collect();
        let column_index = (self.page_index && stats_on)
            .then(|| column_index(&self.pages, &self.order))
            .flatten();
        let offset_index = self.page_index.then_some(OffsetIndex {
            page_locations: page_locations.into(),
            unencoded_byte_array_data_bytes: None,
        });
        let meta = ColumnMetaData {
            type_: self.leaf.physical,
            encodings: encodings.into(),
            path_in_schema: self.leaf.path.as_slice().into(),
            codec: CompressionCodec(self.opts.codec.thrift_id()),
            num_values: self.num_values as i64,
            total_uncompressed_size: self.uncompressed as i64,
            total_compressed_size: (bytes.len() + self.data_len) as i64,
            data_page_offset: dict_len as i64,
            dictionary_page_offset: (dict_len > 0).then_some(0),
            statistics,
            encoding_stats: Some(encoding_stats.into()),
            ..Default::default()
        };
        Ok(FinishedChunk {
            dict_page: bytes,
            pages,
            meta,
            column_index,
            offset_index,
        })
    }
}

fn pq_page_bits(entries: usize) -> usize {
    (usize::BITS - entries.saturating_sub(1).leading_zeros()) as usize
}

fn column_index(pages: &[PageMeta], order: &Order) -> Option<ColumnIndex> {
    let mut ci = ColumnIndex {
        null_counts: Some(pages.iter().map(|p| p.null_count as i64).collect()),
        ..Default::default()
    };
    let (mut mins, mut maxs): (Vec<&[u8]>, Vec<&[u8]>) = (Vec::new(), Vec::new());
    for p in pages {
        ci.null_pages.push(p.null_page);
        match (&p.bounds, p.null_page) {
            (Some((lo, hi)), false) => {
                mins.push(lo);
                maxs.push(hi);
            }
            (_, true) => {
                mins.push(&[]);
                maxs.push(&[]);
            }
            // Values without bounds (all NaN, or no order): no index.
            (None, false) => return None,
        }
    }
    ci.min_values = BinaryList::from_values(mins);
    ci.max_values = BinaryList::from_values(maxs);
    let bounded: Vec<&PageMeta> = pages.iter().filter(|p| !p.null_page).collect();
    let pairs = || {
        bounded
            .windows(2)
            .filter_map(|w| Some((w[0].bounds.as_ref()?, w[1].bounds.as_ref()?)))
    };
    let asc = pairs().all(|(a, b)| order.cmp(&a.0, &b.0).is_le() && order.cmp(&a.1, &b.1).is_le());
    let desc = pairs().all(|(a, b)| order.cmp(&a.0, &b.0).is_ge() && order.cmp(&a.1, &b.1).is_ge());
    ci.boundary_order = if asc {
        BoundaryOrder::ASCENDING
    } else if desc {
        BoundaryOrder::DESCENDING
    } else {
        BoundaryOrder::UNORDERED
    };
    Some(ci)
}

/// The first 8 bytes, zero-padded, as a big-endian number: when two
/// values' prefixes differ, so do the values, in the same order.
#[inline(always)]
fn prefix(v: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = v.len().min(8);
    b[..n].copy_from_slice(&v[..n]);
    u64::from_be_bytes(b)
}

/// Min and max of byte-array values under `order`, NaN (FLOAT16) skipped.
fn byte_bounds<'b>(
    order: &Order,
    mut values: impl Iterator<Item = &'b [u8]>,
) -> Option<(&'b [u8], &'b [u8])> {
    if order.sort == SortOrder::Bytes {
        // Most comparisons are decided by the 8-byte prefixes.
        let first = values.next()?;
        let (mut lo, mut hi) = (first, first);
        let (mut plo, mut phi) = (prefix(first), prefix(first));
        for v in values {
            let p = prefix(v);
            if p < plo || (p == plo && v < lo) {
                lo = v;
                plo = p;
            }
            if p > phi || (p == phi && v > hi) {
                hi = v;
                phi = p;
            }
        }
        return Some((lo, hi));
    }
    let mut bounds: Option<(&[u8], &[u8])> = None;
    for v in values {
        if order.sort == SortOrder::Float16
            && half_to_f32(u16::from_le_bytes([v[0], v[1]])).is_nan()
        {
            continue;
        }
        bounds = Some(match bounds {
            None => (v, v),
            Some((lo, hi)) => (
                if order.cmp(v, lo).is_lt() { v } else { lo },
                if order.cmp(v, hi).is_gt() { v } else { hi },
            ),
        });
    }
    bounds
}

/// The selected values `va..vb` as a slice: borrowed when contiguous,
/// gathered into `scratch` otherwise.
fn gather<'a, T: Copy>(
    v: &'a [T],
    sel: &Selection,
    va: usize,
    vb: usize,
    scratch: &'a mut Vec<T>,
) -> &'a [T] {
    match sel {
        Selection::Range(a) => &v[a + va..a + vb],
        Selection::Indices(ix) => {
            scratch.clear();
            scratch.extend(ix[va..vb].iter().map(|&i| v[i]));
            scratch
        }
    }
}
