//! Iterating the pages of one column chunk.

use bytes::Bytes;
use pq_compress::{Codec, Decompressor};
use pq_format::{Encoding, PageHeader, PageType, ThriftDecode};

use crate::error::{Error, ErrorKind, Location, Result};
use crate::levels::{LevelEncoding, Levels};
use crate::page::{DataPage, DictionaryPage, Page};

/// What the page reader needs to know about the chunk, from the metadata.
#[derive(Debug, Clone)]
pub struct ChunkContext {
    /// The chunk's codec.
    pub codec: Codec,
    /// `num_values` of the column chunk: the pages must hold exactly this many.
    pub num_values: u64,
    /// The column's max definition level.
    pub max_def_level: i16,
    /// The column's max repetition level.
    pub max_rep_level: i16,
    /// The absolute file offset of the chunk's first byte, for error locations.
    pub file_offset: u64,
    /// The column's dotted path, for error locations.
    pub column: String,
}

/// Options of the page reader. The defaults are safe for untrusted files.
///
/// Besides the codec and Thrift limits, three limits bound what a chunk's
/// headers can make a reader allocate or do, each checked from the header
/// before anything is allocated or decompressed:
///
/// | limit | default | why |
/// |---|---|---|
/// | [`max_page_values`](Self::max_page_values) | 64 Mi | levels of RLE runs cost no bytes, so a page's `num_values` is not backed by its size; readers allocate about 16 bytes per value (levels, indices, values), so this caps one page at about 1 GiB |
/// | [`max_dictionary_size`](Self::max_dictionary_size) | 1 GiB | a dictionary is kept decoded for the whole chunk; writers cap it at about 1 MiB, but real files hold dictionaries of single 1 GiB strings, so the default is the page limit: lower it for untrusted input |
/// | [`chunk_size_slack`](Self::chunk_size_slack) | 16 MiB | the pages of a chunk may decompress to at most its metadata's `total_uncompressed_size` plus this, so a chunk cannot expand without bound page after page |
///
/// The last applies only where the chunk's size is given with
/// [`PageReader::with_total_uncompressed_size`].
///
/// Like [`pq_compress::Limits`] and [`pq_format::Limits`], each setting has
/// a getter, a `with_*` setter and, for limits, a `DEFAULT_*` constant.
///
/// ```
/// let options = pq_page::PageOptions::default().with_max_page_values(1 << 20);
/// assert_eq!(options.max_page_values(), 1 << 20);
/// assert_eq!(options.max_dictionary_size(), 1 << 30);
/// assert!(!options.verify_checksums());
/// // The defaults.
/// let defaults = pq_page::PageOptions::default();
/// assert_eq!(defaults.max_page_values(), 1 << 26);
/// assert_eq!(defaults.chunk_size_slack(), 16 << 20);
/// assert_eq!(defaults.compress_limits(), &pq_compress::Limits::default());
/// assert_eq!(defaults.format_limits(), &pq_format::Limits::default());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PageOptions {
    pub(crate) verify_checksums: bool,
    pub(crate) compress_limits: pq_compress::Limits,
    pub(crate) format_limits: pq_format::Limits,
    pub(crate) max_page_values: usize,
    pub(crate) max_dictionary_size: usize,
    pub(crate) chunk_size_slack: u64,
}

impl PageOptions {
    /// Default for [`max_page_values`](Self::max_page_values): 64 Mi.
    pub const DEFAULT_MAX_PAGE_VALUES: usize = 1 << 26;
    /// Default for [`max_dictionary_size`](Self::max_dictionary_size): 1 GiB.
    pub const DEFAULT_MAX_DICTIONARY_SIZE: usize = 1 << 30;
    /// Default for [`chunk_size_slack`](Self::chunk_size_slack): 16 MiB.
    pub const DEFAULT_CHUNK_SIZE_SLACK: u64 = 16 << 20;

    /// Options with the defaults.
    ///
    /// ```
    /// assert_eq!(pq_page::PageOptions::new(), pq_page::PageOptions::default());
    /// ```
    pub const fn new() -> Self {
        PageOptions {
            verify_checksums: false,
            compress_limits: pq_compress::Limits::new(),
            format_limits: pq_format::Limits::new(),
            max_page_values: Self::DEFAULT_MAX_PAGE_VALUES,
            max_dictionary_size: Self::DEFAULT_MAX_DICTIONARY_SIZE,
            chunk_size_slack: Self::DEFAULT_CHUNK_SIZE_SLACK,
        }
    }

    /// Whether page CRC32 checksums are verified where the header has one.
    /// Off by default, as in other readers: it costs a pass over every page.
    pub const fn verify_checksums(&self) -> bool {
        self.verify_checksums
    }

    /// Limits on decompressed page sizes (default:
    /// [`pq_compress::Limits::default`]).
    pub const fn compress_limits(&self) -> &pq_compress::Limits {
        &self.compress_limits
    }

    /// Limits on page header decoding (default:
    /// [`pq_format::Limits::default`]).
    pub const fn format_limits(&self) -> &pq_format::Limits {
        &self.format_limits
    }

    /// Most values (levels) one data page may declare (default
    /// [`DEFAULT_MAX_PAGE_VALUES`](Self::DEFAULT_MAX_PAGE_VALUES)).
    pub const fn max_page_values(&self) -> usize {
        self.max_page_values
    }

    /// Largest dictionary page accepted, in uncompressed bytes (default
    /// [`DEFAULT_MAX_DICTIONARY_SIZE`](Self::DEFAULT_MAX_DICTIONARY_SIZE)).
    pub const fn max_dictionary_size(&self) -> usize {
        self.max_dictionary_size
    }

    /// Bytes the pages of a chunk (headers plus uncompressed bodies) may add
    /// up to beyond the chunk's `total_uncompressed_size` (default
    /// [`DEFAULT_CHUNK_SIZE_SLACK`](Self::DEFAULT_CHUNK_SIZE_SLACK)).
    pub const fn chunk_size_slack(&self) -> u64 {
        self.chunk_size_slack
    }

    /// Options with checksum verification on or off.
    pub const fn with_verify_checksums(mut self, verify: bool) -> Self {
        self.verify_checksums = verify;
        self
    }

    /// Options with these decompression limits.
    pub const fn with_compress_limits(mut self, limits: pq_compress::Limits) -> Self {
        self.compress_limits = limits;
        self
    }

    /// Options with these Thrift limits for page headers.
    pub const fn with_format_limits(mut self, limits: pq_format::Limits) -> Self {
        self.format_limits = limits;
        self
    }

    /// Options with this [`max_page_values`](Self::max_page_values).
    pub const fn with_max_page_values(mut self, max: usize) -> Self {
        self.max_page_values = max;
        self
    }

    /// Options with this [`max_dictionary_size`](Self::max_dictionary_size).
    pub const fn with_max_dictionary_size(mut self, max: usize) -> Self {
        self.max_dictionary_size = max;
        self
    }

    /// Options with this [`chunk_size_slack`](Self::chunk_size_slack).
    pub const fn with_chunk_size_slack(mut self, slack: u64) -> Self {
        self.chunk_size_slack = slack;
        self
    }
}

impl Default for PageOptions {
    fn default() -> Self {
        PageOptions::new()
    }
}

/// Reads the pages of one column chunk held in memory.
///
/// Uncompressed page bodies are slices of the chunk's `Bytes`, without
/// copying; compressed ones are decompressed one page at a time into a buffer
/// that is reused once the previous page has been dropped.
#[derive(Debug)]
pub struct PageReader {
    chunk: Bytes,
    pos: usize,
    ctx: ChunkContext,
    options: PageOptions,
    decompressor: Decompressor,
    /// The previous page's decompressed buffer, reclaimed when unshared.
    spare: Option<Bytes>,
    values_seen: u64,
    page_index: usize,
    seen_data_page: bool,
    /// The chunk's `total_uncompressed_size`, when known.
    total_uncompressed: Option<u64>,
    /// Header plus uncompressed body bytes of the pages read so far.
    uncompressed_seen: u64,
}

impl PageReader {
    /// A reader over `chunk`, the bytes of one column chunk.
    pub fn new(chunk: Bytes, ctx: ChunkContext, options: &PageOptions) -> Self {
        PageReader {
            chunk,
            pos: 0,
            decompressor: Decompressor::new(options.compress_limits),
            options: options.clone(),
            ctx,
            spare: None,
            values_seen: 0,
            page_index: 0,
            seen_data_page: false,
            total_uncompressed: None,
            uncompressed_seen: 0,
        }
    }

    /// Decompresses pages into `buffer` (its capacity; its bytes are
    /// overwritten): the buffer of the previous chunk of the same column,
    /// from [`PageReader::take_buffer`], spares each chunk's first pages a
    /// fresh allocation and its page faults.
    pub fn with_buffer(mut self, buffer: Vec<u8>) -> Self {
        if self.spare.is_none() {
            self.spare = Some(Bytes::from(buffer));
        }
        self
    }

    /// The decompression buffer, if no page still holds it; for the next
    /// chunk's [`PageReader::with_buffer`].
    pub fn take_buffer(&mut self) -> Option<Vec<u8>> {
        let spare = self.spare.take()?;
        spare.try_into_mut().ok().map(Vec::from)
    }

    /// Checks the pages against the chunk's `total_uncompressed_size` from
    /// the metadata: together (headers plus uncompressed bodies) they may
    /// exceed it by at most [`PageOptions::chunk_size_slack`]. A negative
    /// size (invalid) turns the check off.
    pub fn with_total_uncompressed_size(mut self, total: i64) -> Self {
        self.total_uncompressed = u64::try_from(total).ok();
        self
    }

    /// The chunk context this reader was made with.
    pub fn context(&self) -> &ChunkContext {
        &self.ctx
    }

    fn location(&self, page: Option<usize>, pos: usize) -> Box<Location> {
        Box::new(Location {
            column: Some(self.ctx.column.clone()),
            page,
            file_offset: Some(self.ctx.file_offset + pos as u64),
            ..Location::default()
        })
    }

    fn err(&self, pos: usize, kind: ErrorKind) -> Error {
        Error {
            kind,
            location: self.location(Some(self.page_index), pos),
        }
    }

    /// The next page, or `None` after the last one.
    ///
    /// Index pages and page types this reader does not know are skipped.
    /// Reading stops once the pages have held the chunk's `num_values`, so
    /// bytes after the last page (old writers padded the chunk range) are
    /// never parsed.
    pub fn next_page(&mut self) -> Result<Option<Page>> {
        loop {
            // Once the chunk's values are read, stop: bytes after the last
            // page (padding, or a chunk of no values whose offsets point
            // nowhere useful) are never parsed, as in other readers.
            if self.values_seen >= self.ctx.num_values {
                return Ok(None);
            }
            if self.pos >= self.chunk.len() {
                if self.values_seen != self.ctx.num_values {
                    return Err(self.err(
                        self.pos,
                        ErrorKind::ValueCount {
                            expected: self.ctx.num_values,
                            found: self.values_seen,
                        },
                    ));
                }
                return Ok(None);
            }
            if let Some(page) = self.read_page()? {
                return Ok(Some(page));
            }
        }
    }

    /// Reads one page; `None` for a page that is skipped.
    fn read_page(&mut self) -> Result<Option<Page>> {
        let header_pos = self.pos;
        let rest = self.chunk.get(header_pos..).unwrap_or_default();
        let (header, header_len) = PageHeader::decode_prefix(rest, &self.options.format_limits)
            .map_err(|e| self.err(header_pos, ErrorKind::Header(e)))?;
        let body_start = header_pos + header_len;
        let compressed = usize::try_from(header.compressed_page_size).map_err(|_| {
            self.err(
                header_pos,
                ErrorKind::InvalidHeader(format!(
                    "negative compressed_page_size {}",
                    header.compressed_page_size
                )),
            )
        })?;
        let uncompressed = usize::try_from(header.uncompressed_page_size).map_err(|_| {
            self.err(
                header_pos,
                ErrorKind::InvalidHeader(format!(
                    "negative uncompressed_page_size {}",
                    header.uncompressed_page_size
                )),
            )
        })?;
        // In a chunk stored uncompressed the body is the page, framed by
        // `compressed_page_size`; `uncompressed_page_size` is then a copy
        // other readers ignore, and a wrong copy must not fail a page that
        // frames correctly. (A negative one is still refused above.)
        let uncompressed = if self.ctx.codec == Codec::Uncompressed {
            compressed
        } else {
            uncompressed
        };
        self.uncompressed_seen = self
            .uncompressed_seen
            .saturating_add(header_len as u64)
            .saturating_add(uncompressed as u64);
        if let Some(total) = self.total_uncompressed {
            let cap = total.saturating_add(self.options.chunk_size_slack);
            if self.uncompressed_seen > cap {
                return Err(self.err(
                    header_pos,
                    ErrorKind::LimitExceeded(format!(
                        "the pages so far decompress to {} bytes, more than the chunk's \
                         total_uncompressed_size {total} plus the allowed slack of {} bytes \
                         (PageOptions::chunk_size_slack)",
                        self.uncompressed_seen, self.options.chunk_size_slack
                    )),
                ));
            }
        }
        let remaining = self.chunk.len().saturating_sub(body_start);
        if compressed > remaining {
            return Err(self.err(
                header_pos,
                ErrorKind::BodyPastChunk {
                    needed: compressed as u64,
                    remaining: remaining as u64,
                },
            ));
        }
        let body = self.chunk.slice(body_start..body_start + compressed);
        self.pos = body_start + compressed;

        if let (true, Some(crc)) = (self.options.verify_checksums, header.crc) {
            let actual = crc32fast::hash(&body);
            // The header stores the CRC as a signed i32 of the same bits.
            let expected = crc as u32;
            if actual != expected {
                return Err(self.err(header_pos, ErrorKind::Checksum { expected, actual }));
            }
        }

        let index = self.page_index;
        let file_offset = self.ctx.file_offset + header_pos as u64;
        let page = match header.type_ {
            PageType::DICTIONARY_PAGE => {
                let Some(dict) = &header.dictionary_page_header else {
                    return Err(self.err(
                        header_pos,
                        ErrorKind::InvalidHeader(
                            "dictionary page without dictionary_page_header".into(),
                        ),
                    ));
                };
                if self.seen_data_page {
                    return Err(self.err(
                        header_pos,
                        ErrorKind::InvalidHeader("dictionary page after a data page".into()),
                    ));
                }
                let num_values =
                    self.header_count(header_pos, "dictionary page num_values", dict.num_values)?;
                if uncompressed > self.options.max_dictionary_size {
                    return Err(self.err(
                        header_pos,
                        ErrorKind::LimitExceeded(format!(
                            "dictionary page of {uncompressed} bytes exceeds the limit of {} \
                             bytes (PageOptions::max_dictionary_size)",
                            self.options.max_dictionary_size
                        )),
                    ));
                }
                let buf = self.decompress(header_pos, &body, uncompressed)?;
                Page::Dictionary(DictionaryPage {
                    buf,
                    num_values,
                    encoding: dict.encoding,
                    is_sorted: dict.is_sorted.unwrap_or(false),
                    index,
                    file_offset,
                })
            }
            PageType::DATA_PAGE => {
                let Some(h) = &header.data_page_header else {
                    return Err(self.err(
                        header_pos,
                        ErrorKind::InvalidHeader("data page without data_page_header".into()),
                    ));
                };
                let num_values = self.header_count(header_pos, "num_values", h.num_values)?;
                self.check_page_values(header_pos, num_values)?;
                self.add_values(header_pos, num_values)?;
                let buf = self.decompress(header_pos, &body, uncompressed)?;
                let mut rest = buf;
                let rep_levels = self.split_v1_levels(
                    header_pos,
                    &mut rest,
                    h.repetition_level_encoding,
                    self.ctx.max_rep_level,
                    num_values,
                )?;
                let def_levels = self.split_v1_levels(
                    header_pos,
                    &mut rest,
                    h.definition_level_encoding,
                    self.ctx.max_def_level,
                    num_values,
                )?;
                Page::Data(DataPage {
                    num_values,
                    num_nulls: h
                        .statistics
                        .as_ref()
                        .and_then(|s| s.null_count)
                        .and_then(|n| usize::try_from(n).ok()),
                    num_rows: None,
                    encoding: h.encoding,
                    rep_levels,
                    def_levels,
                    values: rest,
                    index,
                    file_offset,
                    is_v2: false,
                })
            }
            PageType::DATA_PAGE_V2 => {
                let Some(h) = &header.data_page_header_v2 else {
                    return Err(self.err(
                        header_pos,
                        ErrorKind::InvalidHeader("data page v2 without data_page_header_v2".into()),
                    ));
                };
                let num_values = self.header_count(header_pos, "num_values", h.num_values)?;
                self.check_page_values(header_pos, num_values)?;
                let num_nulls = self.header_count(header_pos, "num_nulls", h.num_nulls)?;
                let num_rows = self.header_count(header_pos, "num_rows", h.num_rows)?;
                let rep_len = self.header_count(
                    header_pos,
                    "repetition_levels_byte_length",
                    h.repetition_levels_byte_length,
                )?;
                let def_len = self.header_count(
                    header_pos,
                    "definition_levels_byte_length",
                    h.definition_levels_byte_length,
                )?;
                let levels_len = rep_len.saturating_add(def_len);
                if levels_len > body.len() || levels_len > uncompressed {
                    return Err(self.err(
                        header_pos,
                        ErrorKind::InvalidHeader(format!(
                            "level byte lengths ({rep_len} + {def_len}) exceed the page ({} bytes)",
                            body.len().min(uncompressed)
                        )),
                    ));
                }
                if num_nulls > num_values {
                    return Err(self.err(
                        header_pos,
                        ErrorKind::InvalidHeader(format!(
                            "num_nulls {num_nulls} exceeds num_values {num_values}"
                        )),
                    ));
                }
                self.add_values(header_pos, num_values)?;
                let rep_bytes = body.slice(..rep_len);
                let def_bytes = body.slice(rep_len..levels_len);
                let values_compressed = body.slice(levels_len..);
                let values_uncompressed = uncompressed - levels_len;
                let values = if h.is_compressed.unwrap_or(true) {
                    self.decompress(header_pos, &values_compressed, values_uncompressed)?
                } else {
                    if values_compressed.len() != values_uncompressed {
                        return Err(self.err(
                            header_pos,
                            ErrorKind::InvalidHeader(format!(
                                "uncompressed v2 page holds {} value bytes, header says {}",
                                values_compressed.len(),
                                values_uncompressed
                            )),
                        ));
                    }
                    values_compressed
                };
                Page::Data(DataPage {
                    num_values,
                    num_nulls: Some(num_nulls),
                    num_rows: Some(num_rows),
                    encoding: h.encoding,
                    rep_levels: Levels::new(
                        rep_bytes,
                        LevelEncoding::Rle,
                        self.ctx.max_rep_level,
                        num_values,
                    ),
                    def_levels: Levels::new(
                        def_bytes,
                        LevelEncoding::Rle,
                        self.ctx.max_def_level,
                        num_values,
                    ),
                    values,
                    index,
                    file_offset,
                    is_v2: true,
                })
            }
            // Index pages are not used by any writer; unknown page types come
            // from newer writers. Both are skipped whole.
            _ => {
                self.page_index += 1;
                return Ok(None);
            }
        };
        if let Page::Data(data) = &page {
            if !self.seen_data_page {
                self.check_first_rep_level(header_pos, data)?;
            }
            self.seen_data_page = true;
        }
        self.page_index += 1;
        Ok(Some(page))
    }

    fn header_count(&self, pos: usize, field: &str, value: i32) -> Result<usize> {
        usize::try_from(value).map_err(|_| {
            self.err(
                pos,
                ErrorKind::InvalidHeader(format!("negative {field} {value}")),
            )
        })
    }

    fn check_page_values(&self, pos: usize, n: usize) -> Result<()> {
        if n > self.options.max_page_values {
            return Err(self.err(
                pos,
                ErrorKind::LimitExceeded(format!(
                    "data page of {n} values exceeds the limit of {} values per page \
                     (PageOptions::max_page_values)",
                    self.options.max_page_values
                )),
            ));
        }
        Ok(())
    }

    /// A column chunk starts a record: its first repetition level must be 0
    /// (a reader would otherwise attach the first values to a record that
    /// does not exist).
    fn check_first_rep_level(&self, pos: usize, page: &DataPage) -> Result<()> {
        if self.ctx.max_rep_level == 0 || page.num_values == 0 {
            return Ok(());
        }
        let mut first = [0i16; 1];
        page.rep_levels
            .decoder()
            .and_then(|mut d| d.decode(&mut first))
            .map_err(|e| self.err(pos, ErrorKind::Levels(e)))?;
        if first[0] != 0 {
            return Err(self.err(
                pos,
                ErrorKind::InvalidLevels(format!(
                    "the column chunk's first repetition level is {}: a record must start \
                     with repetition level 0",
                    first[0]
                )),
            ));
        }
        Ok(())
    }

    fn add_values(&mut self, pos: usize, n: usize) -> Result<()> {
        let total = self.values_seen.saturating_add(n as u64);
        if total > self.ctx.num_values {
            return Err(self.err(
                pos,
                ErrorKind::ValueCount {
                    expected: self.ctx.num_values,
                    found: total,
                },
            ));
        }
        self.values_seen = total;
        Ok(())
    }

    /// Decompresses `body` to exactly `size` bytes; uncompressed chunks are
    /// sliced without copying.
    fn decompress(&mut self, pos: usize, body: &Bytes, size: usize) -> Result<Bytes> {
        if self.ctx.codec == Codec::Uncompressed {
            if body.len() != size {
                return Err(self.err(
                    pos,
                    ErrorKind::InvalidHeader(format!(
                        "uncompressed page body is {} bytes, header says {size}",
                        body.len()
                    )),
                ));
            }
            return Ok(body.clone());
        }
        // Reuse the previous page's buffer if nobody holds it any more.
        let mut buf = match self.spare.take().map(Bytes::try_into_mut) {
            Some(Ok(m)) => Vec::from(m),
            _ => Vec::new(),
        };
        if let Err(e) = self
            .decompressor
            .decompress(self.ctx.codec, body, size, &mut buf)
        {
            return Err(self.err(pos, ErrorKind::Decompress(e)));
        }
        let bytes = Bytes::from(buf);
        self.spare = Some(bytes.clone());
        Ok(bytes)
    }

    /// Splits the length-prefixed (RLE) or bit-packed levels off the front of
    /// a v1 page body.
    fn split_v1_levels(
        &self,
        pos: usize,
        rest: &mut Bytes,
        encoding: Encoding,
        max_level: i16,
        num_values: usize,
    ) -> Result<Levels> {
        if max_level == 0 {
            return Ok(Levels::new(Bytes::new(), LevelEncoding::Rle, 0, num_values));
        }
        let (level_encoding, len, skip) = if encoding == Encoding::BIT_PACKED {
            let width = usize::from(crate::levels::bit_width(max_level));
            let len = num_values.saturating_mul(width).div_ceil(8);
            (LevelEncoding::BitPacked, len, 0)
        } else if encoding == Encoding::RLE {
            let Some(prefix) = rest.get(..4) else {
                return Err(self.err(
                    pos,
                    ErrorKind::InvalidHeader(
                        "levels' length prefix past the end of the page".into(),
                    ),
                ));
            };
            let mut le = [0u8; 4];
            le.copy_from_slice(prefix);
            (LevelEncoding::Rle, u32::from_le_bytes(le) as usize, 4)
        } else {
            return Err(self.err(
                pos,
                ErrorKind::InvalidHeader(format!("unsupported level encoding {encoding:?}")),
            ));
        };
        let end = skip + len;
        if end > rest.len() {
            return Err(self.err(
                pos,
                ErrorKind::InvalidHeader(format!(
                    "levels of {len} bytes run past the end of the page ({} bytes remain)",
                    rest.len().saturating_sub(skip)
                )),
            ));
        }
        let levels = rest.slice(skip..end);
        *rest = rest.slice(end..);
        Ok(Levels::new(levels, level_encoding, max_level, num_values))
    }
}

impl Iterator for PageReader {
    type Item = Result<Page>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.next_page() {
            Ok(Some(page)) => Some(Ok(page)),
            Ok(None) => None,
            Err(e) => {
                // After an error the position is unreliable: stop.
                self.pos = self.chunk.len();
                self.values_seen = self.ctx.num_values;
                Some(Err(e))
            }
        }
    }
}
