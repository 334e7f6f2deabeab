//! Iterating the pages of one column chunk.

use std::ops::Range;

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
    pub(crate) min_read: usize,
}

impl PageOptions {
    /// Default for [`max_page_values`](Self::max_page_values): 64 Mi.
    pub const DEFAULT_MAX_PAGE_VALUES: usize = 1 << 26;
    /// Default for [`max_dictionary_size`](Self::max_dictionary_size): 1 GiB.
    pub const DEFAULT_MAX_DICTIONARY_SIZE: usize = 1 << 30;
    /// Default for [`chunk_size_slack`](Self::chunk_size_slack): 16 MiB.
    pub const DEFAULT_CHUNK_SIZE_SLACK: u64 = 16 << 20;
    /// Default for [`min_read`](Self::min_read): 64 KiB.
    pub const DEFAULT_MIN_READ: usize = 64 << 10;

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
            min_read: Self::DEFAULT_MIN_READ,
        }
    }

    /// The defaults with the page-size limits raised to the largest size a
    /// page header can declare (`i32::MAX` bytes, decompressed and as a
    /// dictionary): what a reader that must read every valid file takes
    /// (the default 1 GiB dictionary limit refuses a valid file whose
    /// dictionary page declares 1 GiB and 4 bytes). Memory is then bounded
    /// by what the file's headers declare, and the chunk's declared total
    /// still bounds its pages together where it is given.
    ///
    /// ```
    /// let options = pq_page::PageOptions::any_declared_size();
    /// assert_eq!(options.max_dictionary_size(), i32::MAX as usize);
    /// assert_eq!(options.compress_limits().max_uncompressed_size(), i32::MAX as usize);
    /// assert_eq!(options.max_page_values(), pq_page::PageOptions::DEFAULT_MAX_PAGE_VALUES);
    /// ```
    pub const fn any_declared_size() -> Self {
        Self::new()
            .with_compress_limits(
                pq_compress::Limits::new().with_max_uncompressed_size(i32::MAX as usize),
            )
            .with_max_dictionary_size(i32::MAX as usize)
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

    /// The fewest bytes a reader fed in pieces ([`PageReader::streaming`])
    /// asks for at once (default
    /// [`DEFAULT_MIN_READ`](Self::DEFAULT_MIN_READ)): the first page of a
    /// chunk, whose size is unknown, is asked for with this many bytes.
    pub const fn min_read(&self) -> usize {
        self.min_read
    }

    /// Options with this [`min_read`](Self::min_read).
    pub const fn with_min_read(mut self, bytes: usize) -> Self {
        self.min_read = bytes;
        self
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

/// Room past a page's known size asked for with the next page, so that a
/// header somewhat larger than the last one still comes in the same read.
const HEADER_MARGIN: usize = 8 << 10;

/// Bytes asked for past a page whose length a held header gave, so that
/// the next page's header comes with it and that page is asked for exactly
/// in turn. These bytes are read again with their page: small, so that
/// little is (a page header without statistics takes some 30 bytes; with
/// a column's min and max, their lengths more).
const NEXT_HEADER: usize = 1 << 10;

/// The largest decompression buffer a reader keeps aside for later pages
/// ([`PageReader::decompress`]): writers' pages are about 1 MiB, and one
/// far larger (the corpus has pages of 1 GiB) is let go with its page
/// rather than held through the chunk.
const MAX_RESERVE: usize = 8 << 20;

/// Whether a buffer of `capacity` bytes may take a page of `size`: not far
/// larger, so that a short page does not hold a long one's memory.
fn fits_page(capacity: usize, size: usize) -> bool {
    capacity <= size.saturating_mul(4).max(64 << 10)
}

/// The buffer of the larger capacity, `a` if they are equal.
fn larger(a: Option<Vec<u8>>, b: Option<Vec<u8>>) -> Option<Vec<u8>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if b.capacity() > a.capacity() { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// What [`PageReader::poll_page`] found.
#[derive(Debug)]
pub enum PageStep {
    /// The next page.
    Page(Page),
    /// The next page is not (wholly) in the bytes pushed so far: push
    /// bytes covering this range of the file (absolute offsets) with
    /// [`PageReader::push`], then poll again.
    Needs(Range<u64>),
    /// The chunk's pages are all read.
    End,
}

/// Reads the pages of one column chunk, held in memory whole
/// ([`PageReader::new`]) or fed in pieces ([`PageReader::streaming`]).
///
/// Uncompressed page bodies are slices of the bytes held, without
/// copying; compressed ones are decompressed one page at a time into a buffer
/// that is reused once the previous page has been dropped.
///
/// Fed in pieces, the reader never performs IO: when the next page (header
/// and body) is not in what it holds, [`poll_page`](Self::poll_page) says
/// which bytes it needs, as absolute file offsets, always from the page's
/// first byte so that a page is never copied to join pieces. It asks for
/// `[page start, page start + guess)`, the guess being the larger of
/// [`PageOptions::min_read`] and the last data page's size plus a margin
/// (8 KiB, or `min_read` if smaller), with the dictionary page's length
/// added at the chunk's start (see
/// [`with_dictionary_page_len`](Self::with_dictionary_page_len) and
/// [`with_data_page_len`](Self::with_data_page_len) for the first
/// guess); when a held header gives the page's length, it asks for the page
/// and 1 KiB more, for the next page's header (short pages: `min_read`).
/// A request that comes within a quarter of the chunk's end is taken to
/// it. Bytes after a page in what was pushed are
/// kept for the next pages (and, with
/// [`releasing_read_bytes`](Self::releasing_read_bytes), let go with the
/// page that ends them). A header cut off by the end of what is held is
/// "needs more", not an error, until the held bytes reach the chunk's end:
/// then it is the same error as for a whole chunk.
#[derive(Debug)]
pub struct PageReader {
    /// The bytes held: `buf_start..buf_start + buf.len()` of the chunk.
    buf: Bytes,
    buf_start: usize,
    /// The chunk's length in bytes.
    chunk_len: usize,
    /// The next page's position in the chunk.
    pos: usize,
    /// Header and body bytes of the last data page, for the next guess
    /// (before any is read: [`PageReader::with_data_page_len`]).
    last_page_len: usize,
    /// Header and body bytes of the chunk's first data page, once read.
    first_data_page_len: usize,
    /// Data pages read or passed over.
    data_pages: usize,
    /// The dictionary page's bytes as the chunk's metadata places them
    /// ([`PageReader::with_dictionary_page_len`]), added to the first guess.
    dictionary_len: usize,
    ctx: ChunkContext,
    options: PageOptions,
    decompressor: Decompressor,
    /// The previous page's decompressed buffer, reclaimed when unshared.
    spare: Option<Bytes>,
    /// An unshared buffer too large for the page after it (see
    /// [`PageReader::decompress`]), kept for a later, larger page and for
    /// the column's next chunk.
    reserve: Option<Vec<u8>>,
    /// A buffer for the dictionary page ([`PageReader::with_dictionary_buffer`]).
    dictionary_buffer: Option<Vec<u8>>,
    values_seen: u64,
    page_index: usize,
    seen_data_page: bool,
    /// The chunk's `total_uncompressed_size`, when known.
    total_uncompressed: Option<u64>,
    /// Header plus uncompressed body bytes of the pages read so far.
    uncompressed_seen: u64,
    /// Rows of whole data pages that may be passed over unread.
    skip_budget: u64,
    /// Rows of the pages passed over, not yet taken.
    skipped: u64,
    /// The held bytes go with the page that ends them
    /// ([`PageReader::releasing_read_bytes`]).
    release: bool,
    /// Where the data pages lie, from the chunk's offset index (see
    /// [`PageReader::with_page_locations`]), in order.
    located: Vec<Located>,
}

/// A data page as the offset index places it.
#[derive(Debug, Clone, Copy)]
struct Located {
    /// Its header's position in the chunk.
    pos: usize,
    /// Its header and body bytes.
    len: usize,
    /// Its rows (its values: the column is not repeated).
    rows: u64,
}

/// What reading at the current position gave.
enum Read {
    Page(Page),
    /// A page that is skipped (index pages, unknown types).
    Skipped,
    Needs(Range<u64>),
}

impl PageReader {
    /// A reader over `chunk`, the bytes of one column chunk.
    pub fn new(chunk: Bytes, ctx: ChunkContext, options: &PageOptions) -> Self {
        let chunk_len = chunk.len();
        let mut reader = Self::streaming(chunk_len as u64, ctx, options);
        reader.buf = chunk;
        reader
    }

    /// A reader of a chunk of `chunk_len` bytes (starting at
    /// `ctx.file_offset`) of which it holds nothing yet: its bytes are pushed
    /// with [`push`](Self::push) as [`poll_page`](Self::poll_page) asks.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use pq_page::{column_chunk_range, ChunkContext, PageOptions, PageReader, PageStep};
    ///
    /// let file = bytes::Bytes::from(std::fs::read(concat!(
    ///     env!("CARGO_MANIFEST_DIR"),
    ///     "/../../data/sample.parquet"
    /// ))?);
    /// let meta = pq_format::read_metadata_from_bytes(&file, &pq_format::Limits::default())?;
    /// let cmd = meta.row_groups[0].columns[0].meta_data.as_ref().ok_or("no metadata")?;
    /// let range = column_chunk_range(cmd, file.len() as u64, meta.created_by.as_deref())?;
    /// let ctx = ChunkContext {
    ///     codec: pq_compress::Codec::from_thrift(cmd.codec.0)?,
    ///     num_values: cmd.num_values as u64,
    ///     max_def_level: 0,
    ///     max_rep_level: 0,
    ///     file_offset: range.start,
    ///     column: cmd.path_in_schema.join("."),
    /// };
    /// let options = PageOptions::default().with_min_read(16);
    /// let mut pages = PageReader::streaming(range.end - range.start, ctx, &options);
    /// let (mut values, mut requests) = (0, 0);
    /// loop {
    ///     match pages.poll_page()? {
    ///         PageStep::Needs(r) => {
    ///             requests += 1;
    ///             pages.push(r.start, file.slice(r.start as usize..r.end as usize));
    ///         }
    ///         PageStep::Page(pq_page::Page::Data(d)) => values += d.num_values,
    ///         PageStep::Page(_) => {}
    ///         PageStep::End => break,
    ///     }
    /// }
    /// assert_eq!(values as i64, cmd.num_values);
    /// assert!(requests > 0);
    /// # Ok(())
    /// # }
    /// ```
    pub fn streaming(chunk_len: u64, ctx: ChunkContext, options: &PageOptions) -> Self {
        PageReader {
            buf: Bytes::new(),
            buf_start: 0,
            chunk_len: usize::try_from(chunk_len).unwrap_or(usize::MAX),
            pos: 0,
            last_page_len: 0,
            first_data_page_len: 0,
            data_pages: 0,
            dictionary_len: 0,
            decompressor: Decompressor::new(options.compress_limits),
            options: options.clone(),
            ctx,
            spare: None,
            reserve: None,
            dictionary_buffer: None,
            values_seen: 0,
            page_index: 0,
            seen_data_page: false,
            total_uncompressed: None,
            uncompressed_seen: 0,
            skip_budget: 0,
            skipped: 0,
            release: false,
            located: Vec::new(),
        }
    }

    /// Places the chunk's data pages from its offset index (`locations`,
    /// absolute file offsets), so that pages within the rows to skip (see
    /// [`skip_rows`](Self::skip_rows)) are passed over without their
    /// headers being read or fetched, and a page is asked for as exactly
    /// its bytes. Only for a column that is not repeated; locations that do
    /// not fit the chunk (outside it, overlapping, out of order, a first
    /// page past row 0, rows that do not increase or reach past the chunk's
    /// values) are ignored whole. A page that is read is checked against
    /// its location: a header whose size or row count differs is an error,
    /// so an index that misplaces rows fails at the first page read after
    /// a jump rather than shifting the rows.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use pq_format::ThriftDecode;
    /// use pq_page::{column_chunk_range, ChunkContext, Page, PageOptions, PageReader, PageStep};
    ///
    /// let file = bytes::Bytes::from(std::fs::read(concat!(
    ///     env!("CARGO_MANIFEST_DIR"),
    ///     "/../../data/all_types_plain_v1.parquet"
    /// ))?);
    /// let meta = pq_format::read_metadata_from_bytes(&file, &pq_format::Limits::default())?;
    /// let chunk = &meta.row_groups[0].columns[4];
    /// let cmd = chunk.meta_data.as_ref().ok_or("no metadata")?;
    /// let at = chunk.offset_index_offset.ok_or("no offset index")? as usize;
    /// let len = chunk.offset_index_length.ok_or("no offset index")? as usize;
    /// let (index, _) = pq_format::OffsetIndex::decode_prefix(
    ///     &file[at..at + len],
    ///     &pq_format::Limits::default(),
    /// )?;
    /// let pages = &index.page_locations;
    /// let range = column_chunk_range(cmd, file.len() as u64, meta.created_by.as_deref())?;
    /// let ctx = ChunkContext {
    ///     codec: pq_compress::Codec::from_thrift(cmd.codec.0)?,
    ///     num_values: cmd.num_values as u64,
    ///     max_def_level: 1,
    ///     max_rep_level: 0,
    ///     file_offset: range.start,
    ///     column: cmd.path_in_schema.join("."),
    /// };
    /// let mut reader = PageReader::streaming(range.end - range.start, ctx, &PageOptions::default())
    ///     .with_page_locations(pages);
    /// // Skip the first page's rows: the first bytes asked for are the
    /// // second page's, exactly.
    /// reader.skip_rows(pages[1].first_row_index as u64);
    /// let PageStep::Needs(r) = reader.poll_page()? else { panic!("nothing held yet") };
    /// assert_eq!(r.start, pages[1].offset as u64);
    /// assert_eq!(r.end - r.start, pages[1].compressed_page_size as u64);
    /// reader.push(r.start, file.slice(r.start as usize..r.end as usize));
    /// let PageStep::Page(Page::Data(page)) = reader.poll_page()? else { panic!("a page") };
    /// assert_eq!(reader.take_skipped(), pages[1].first_row_index as u64);
    /// assert_eq!(page.num_values as i64, pages[2].first_row_index - pages[1].first_row_index);
    /// # Ok(())
    /// # }
    /// ```
    pub fn with_page_locations(mut self, locations: &[pq_format::PageLocation]) -> Self {
        if self.ctx.max_rep_level == 0 {
            self.located = self.place(locations).unwrap_or_default();
        }
        self
    }

    fn place(&self, locations: &[pq_format::PageLocation]) -> Option<Vec<Located>> {
        let mut out = Vec::with_capacity(locations.len());
        let mut end = 0usize;
        for (k, l) in locations.iter().enumerate() {
            let offset = u64::try_from(l.offset).ok()?;
            let pos = usize::try_from(offset.checked_sub(self.ctx.file_offset)?).ok()?;
            let len = usize::try_from(l.compressed_page_size)
                .ok()
                .filter(|&n| n > 0)?;
            let first = u64::try_from(l.first_row_index).ok()?;
            let next = match locations.get(k + 1) {
                Some(n) => u64::try_from(n.first_row_index).ok()?,
                None => self.ctx.num_values,
            };
            let rows = next.checked_sub(first).filter(|&r| r > 0)?;
            if (k == 0 && first != 0) || pos < end || pos.checked_add(len)? > self.chunk_len {
                return None;
            }
            end = pos + len;
            out.push(Located { pos, len, rows });
        }
        Some(out)
    }

    /// The byte ranges of the file (absolute offsets) that this reader asks
    /// for to read the rows in `rows` (ascending row ranges of the chunk)
    /// when the rows between them are skipped: the bytes before the first
    /// placed page (the dictionary page, asked for whole), then each run of
    /// consecutive placed pages holding a row of `rows`. `None` when no
    /// pages are placed (no locations, locations that do not fit, or a
    /// repeated column; see [`with_page_locations`](Self::with_page_locations)):
    /// the reader then reads the chunk from its start.
    ///
    /// For a fetcher that asks for more than a page at a time: a request
    /// widened to the end of its run brings what the reader will ask for
    /// next, and nothing it will pass over.
    ///
    /// ```
    /// use pq_format::PageLocation;
    /// use pq_page::{ChunkContext, PageOptions, PageReader};
    ///
    /// // A 1 000-byte dictionary page at 4 000, then four data pages of
    /// // 1 000 bytes and 100 rows each.
    /// let pages: Vec<PageLocation> = (0..4)
    ///     .map(|k| PageLocation {
    ///         offset: 5_000 + 1_000 * k,
    ///         compressed_page_size: 1_000,
    ///         first_row_index: 100 * k,
    ///     })
    ///     .collect();
    /// let ctx = ChunkContext {
    ///     codec: pq_compress::Codec::Uncompressed,
    ///     num_values: 400,
    ///     max_def_level: 0,
    ///     max_rep_level: 0,
    ///     file_offset: 4_000,
    ///     column: "c".into(),
    /// };
    /// let reader = PageReader::streaming(5_000, ctx, &PageOptions::default())
    ///     .with_page_locations(&pages);
    /// // Rows 150..160 and 320..330: the dictionary, pages 1 and 3.
    /// assert_eq!(
    ///     reader.ranges_for_rows(&[150..160, 320..330]),
    ///     Some(vec![4_000..5_000, 6_000..7_000, 8_000..9_000])
    /// );
    /// // Row 50 onwards: one run from the chunk's start.
    /// assert_eq!(reader.ranges_for_rows(&[50..400]), Some(vec![4_000..9_000]));
    /// ```
    pub fn ranges_for_rows(&self, rows: &[Range<u64>]) -> Option<Vec<Range<u64>>> {
        let first = self.located.first()?;
        let at = |pos: usize| self.ctx.file_offset.saturating_add(pos as u64);
        let mut out: Vec<Range<u64>> = Vec::new();
        if first.pos > 0 {
            out.push(at(0)..at(first.pos));
        }
        let mut row = 0u64;
        for l in &self.located {
            let (lo, hi) = (row, row.saturating_add(l.rows));
            row = hi;
            if !rows.iter().any(|r| r.start < hi && lo < r.end) {
                continue;
            }
            let (start, end) = (at(l.pos), at(l.pos.saturating_add(l.len)));
            match out.last_mut() {
                Some(run) if run.end == start => run.end = end,
                _ => out.push(start..end),
            }
        }
        Some(out)
    }

    /// `want` bytes from `pos` (where `held` are held), cut before the next
    /// located page: its bytes are asked for on their own, or not at all
    /// when it is passed over. Not cut when that would ask for no more
    /// than is held (a header that does not fit before the next page then
    /// reads on, and fails as it would). Before the first located page the
    /// bytes up to it are asked for whole, whatever `want` is: they are the
    /// dictionary page, of known extent, and a guess shorter than it read
    /// its first bytes twice (a 64 KiB header probe, then the megabyte
    /// page from the same offset).
    fn before_located(&self, pos: usize, want: usize, held: usize) -> usize {
        let k = self.located.partition_point(|l| l.pos <= pos);
        match self.located.get(k) {
            Some(l) if l.pos - pos > held && k == 0 => l.pos - pos,
            Some(l) if l.pos - pos > held => want.min(l.pos - pos),
            _ => want,
        }
    }

    /// The located page whose header is at `pos`, if any.
    fn located_at(&self, pos: usize) -> Option<Located> {
        self.located
            .binary_search_by_key(&pos, |l| l.pos)
            .ok()
            .and_then(|k| self.located.get(k).copied())
    }

    /// Lets the reader pass over whole data pages of at most `rows` rows in
    /// all (their headers read, their bodies neither fetched, decompressed
    /// nor checked) instead of returning them: for rows a reader skips.
    /// Only in a column that is not repeated, whose pages' value counts are
    /// their row counts; the first page that would overrun the budget is
    /// returned as usual. [`take_skipped`](Self::take_skipped) says how many
    /// rows were passed over.
    pub fn skip_rows(&mut self, rows: u64) {
        self.skip_budget = if self.ctx.max_rep_level == 0 { rows } else { 0 };
    }

    /// Rows of the pages passed over since the last call (see
    /// [`skip_rows`](Self::skip_rows)); the budget left is dropped.
    pub fn take_skipped(&mut self) -> u64 {
        self.skip_budget = 0;
        std::mem::take(&mut self.skipped)
    }

    /// Gives the reader bytes of the file starting at absolute offset
    /// `offset`. A piece that covers the next byte the reader needs
    /// replaces what it held (cut to the chunk's end), unless what it holds
    /// reaches further; any other piece is ignored. The bytes of the last
    /// page read stay with that page, not with the reader.
    pub fn push(&mut self, offset: u64, data: Bytes) {
        let chunk_start = self.ctx.file_offset;
        let chunk_end = chunk_start.saturating_add(self.chunk_len as u64);
        let data_end = offset.saturating_add(data.len() as u64).min(chunk_end);
        let start = offset.max(chunk_start);
        let pos = chunk_start.saturating_add(self.pos as u64);
        if start > pos || data_end <= pos {
            return;
        }
        let held_end = chunk_start.saturating_add((self.buf_start + self.buf.len()) as u64);
        if self.held_from() <= pos && held_end >= data_end && held_end > pos {
            return;
        }
        let (Ok(from), Ok(to)) = (
            usize::try_from(start - offset),
            usize::try_from(data_end - offset),
        ) else {
            return;
        };
        self.buf = data.slice(from..to);
        self.buf_start = usize::try_from(start - chunk_start).unwrap_or(usize::MAX);
    }

    /// The absolute offset of the first byte held.
    fn held_from(&self) -> u64 {
        self.ctx.file_offset.saturating_add(self.buf_start as u64)
    }

    /// Bytes of the chunk held (pushed and not yet replaced), the current
    /// page's included.
    pub fn buffered_bytes(&self) -> usize {
        self.buf.len()
    }

    /// The bytes the next page will ask for, when they are not all held:
    /// to read them ahead while the current page is decoded. `None` after
    /// the last page.
    pub fn next_request(&self) -> Option<Range<u64>> {
        if self.values_seen >= self.ctx.num_values || self.pos >= self.chunk_len {
            return None;
        }
        // Bytes held to the chunk's end hold the next page, whatever it
        // is: no header to decode (a reader given the rest of a file).
        let rest = self.held_at(self.pos);
        if self.pos.saturating_add(rest.len()) >= self.chunk_len {
            return None;
        }
        // A located page: exactly its bytes.
        if let Some(l) = self.located_at(self.pos) {
            return (rest.len() < l.len).then(|| self.request(self.pos, l.len));
        }
        // A held header says how far the page reaches: asking for the guess
        // beyond it would read the page again for the bytes after it.
        if let Ok((header, header_len)) =
            PageHeader::decode_prefix(rest, &self.options.format_limits)
        {
            let body = usize::try_from(header.compressed_page_size).unwrap_or(usize::MAX);
            let page_end =
                (self.pos.saturating_add(header_len).saturating_add(body)).min(self.chunk_len);
            return (page_end > self.pos.saturating_add(rest.len()))
                .then(|| self.request_to_end(self.pos, self.past_page(page_end - self.pos)));
        }
        let want = self.request_to_end(
            self.pos,
            self.before_located(self.pos, self.guess(), rest.len()),
        );
        let held_end = self.held_from().saturating_add(self.buf.len() as u64);
        (self.held_from() > want.start || held_end < want.end).then_some(want)
    }

    /// The absolute range `[chunk start + from, chunk start + from + len)`,
    /// cut at the chunk's end.
    fn request(&self, from: usize, len: usize) -> Range<u64> {
        let end = from.saturating_add(len).min(self.chunk_len);
        let base = self.ctx.file_offset;
        base.saturating_add(from as u64)..base.saturating_add(end as u64)
    }

    /// [`request`](Self::request), taken to the chunk's end when that is
    /// less than a quarter more (and no offset index places the pages):
    /// a chunk's only page guessed a little short (DuckDB's pages differ by
    /// a few percent from one row group to the next) is then not read
    /// twice, and a short last page comes with the one before it. The
    /// bytes are the chunk's, all read sooner or later.
    fn request_to_end(&self, from: usize, len: usize) -> Range<u64> {
        let rest = self.chunk_len.saturating_sub(from);
        let len = if self.located.is_empty() && rest <= len.saturating_add(len / 4) {
            rest
        } else {
            len
        };
        self.request(from, len)
    }

    /// How many bytes to ask for from a page's start when its header gave
    /// its length `page`: the page and the next one's header. Pages under
    /// an eighth of [`PageOptions::min_read`] come several to a read of
    /// `min_read`, of which what is re-read (the part of the page it ends
    /// in) is then under an eighth too.
    fn past_page(&self, page: usize) -> usize {
        if page < self.options.min_read / 8 {
            self.options.min_read
        } else {
            page.saturating_add(NEXT_HEADER)
        }
    }

    /// How many bytes to ask for from a page's start before its size is known.
    fn guess(&self) -> usize {
        // A `min_read` below the margin caps it too: reads that small are
        // asked for to read page by page, header by header.
        let margin = HEADER_MARGIN.min(self.options.min_read);
        let page = self
            .options
            .min_read
            .max(self.last_page_len.saturating_add(margin));
        // At the chunk's start, the dictionary page and the first data
        // page in one read.
        if self.pos == 0 {
            page.saturating_add(self.dictionary_len)
        } else {
            page
        }
    }

    fn note_data_page_len(&mut self, len: usize) {
        self.last_page_len = len;
        if self.first_data_page_len == 0 {
            self.first_data_page_len = len;
        }
        self.data_pages += 1;
    }

    /// What the column's next chunk may guess of its first data page (see
    /// [`with_data_page_len`](Self::with_data_page_len)), once this chunk
    /// has read or passed over a data page: the length of this chunk's
    /// first, or twice it when the chunk held that one data page only:
    /// writers that put a chunk in one page (DuckDB) do so in every row
    /// group, and the next chunk is then asked for whole (the request is
    /// cut at the chunk's end) unless its page is more than twice as long.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use pq_page::{ChunkContext, PageOptions, PageReader};
    /// let file = bytes::Bytes::from(std::fs::read(concat!(
    ///     env!("CARGO_MANIFEST_DIR"),
    ///     "/../../data/all_types_plain_v1.parquet"
    /// ))?);
    /// let meta = pq_format::read_metadata_from_bytes(&file, &pq_format::Limits::default())?;
    /// let cmd = meta.row_groups[0].columns[4].meta_data.as_ref().ok_or("no metadata")?;
    /// let range = pq_page::column_chunk_range(cmd, file.len() as u64, None)?;
    /// let ctx = ChunkContext {
    ///     codec: pq_compress::Codec::from_thrift(cmd.codec.0)?,
    ///     num_values: cmd.num_values as u64,
    ///     max_def_level: 1,
    ///     max_rep_level: 0,
    ///     file_offset: range.start,
    ///     column: cmd.path_in_schema.join("."),
    /// };
    /// let chunk = file.slice(range.start as usize..range.end as usize);
    /// let mut pages = PageReader::new(chunk, ctx, &PageOptions::default());
    /// assert_eq!(pages.data_page_hint(), None);
    /// while pages.next_page()?.is_some() {}
    /// assert!(pages.data_page_hint().is_some());
    /// # Ok(())
    /// # }
    /// ```
    pub fn data_page_hint(&self) -> Option<usize> {
        match self.data_pages {
            0 => None,
            1 if self.pos >= self.chunk_len => Some(self.first_data_page_len.saturating_mul(2)),
            _ => Some(self.first_data_page_len),
        }
    }

    /// Guesses a data page's bytes (header and body) before any is read: the
    /// first request of a chunk fed in pieces then asks for that much plus a
    /// margin for the next header, instead of
    /// [`PageOptions::min_read`] only. Without it, a chunk whose first page
    /// is larger than `min_read` reads that page's first `min_read` bytes
    /// twice (a page is always asked for from its first byte): DuckDB writes
    /// one page per column chunk, so its files were read some 6 % over, and
    /// Polars' 13 %. The column's previous chunk's
    /// [`data_page_hint`](Self::data_page_hint) is a good guess. Only a
    /// guess: the headers say where pages end.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use pq_page::{ChunkContext, PageOptions, PageReader, PageStep};
    /// let ctx = ChunkContext {
    ///     codec: pq_compress::Codec::Uncompressed,
    ///     num_values: 1,
    ///     max_def_level: 0,
    ///     max_rep_level: 0,
    ///     file_offset: 4,
    ///     column: "a".into(),
    /// };
    /// let options = PageOptions::default();
    /// let mut pages = PageReader::streaming(1 << 20, ctx, &options).with_data_page_len(300_000);
    /// let PageStep::Needs(r) = pages.poll_page()? else { panic!("nothing held yet") };
    /// assert!(r.end - r.start > 300_000);
    /// # Ok(())
    /// # }
    /// ```
    pub fn with_data_page_len(mut self, len: usize) -> Self {
        if self.pos == 0 {
            self.last_page_len = len;
        }
        self
    }

    /// The chunk's dictionary page's bytes (header and body) as its
    /// metadata places them (`data_page_offset` less
    /// `dictionary_page_offset`): the first request then covers the
    /// dictionary page and the first data page's guess together. Only a
    /// guess: a header that says otherwise is read as it says.
    pub fn with_dictionary_page_len(mut self, len: usize) -> Self {
        self.dictionary_len = len;
        self
    }

    /// The held bytes from chunk position `from` on (empty if not held).
    fn held_at(&self, from: usize) -> &[u8] {
        from.checked_sub(self.buf_start)
            .and_then(|i| self.buf.get(i..))
            .unwrap_or_default()
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

    /// The larger decompression buffer that no page still holds, for the
    /// next chunk's [`PageReader::with_buffer`]. The larger, not the last
    /// page's: a chunk's last page is often a short remainder (Polars'
    /// 493 KB pages end each chunk with one of 62 KB), and the next chunk's
    /// first page, decompressed into the short buffer, grew it page fault
    /// by page fault (and, for ZSTD pages of a high ratio, through the
    /// streaming decoder and its window, which took a tenth of TPC-H Q1's
    /// samples on Polars' default file).
    pub fn take_buffer(&mut self) -> Option<Vec<u8>> {
        let spare = self
            .spare
            .take()
            .and_then(|s| s.try_into_mut().ok())
            .map(Vec::from);
        larger(spare, self.reserve.take())
    }

    /// Decompresses with `decompressor`, the previous chunk's of the same
    /// column (from [`PageReader::take_decompressor`]), if it enforces this
    /// reader's limits: its state (a ZSTD context of some 100 KiB) is then
    /// made once per column rather than once per chunk; a file of 150 row
    /// groups spent 1 % of its read making them.
    ///
    /// ```
    /// use pq_compress::{Codec, Decompressor, Limits};
    /// use pq_page::{ChunkContext, PageOptions, PageReader};
    ///
    /// let ctx = ChunkContext {
    ///     codec: Codec::Zstd,
    ///     num_values: 0,
    ///     max_def_level: 0,
    ///     max_rep_level: 0,
    ///     file_offset: 4,
    ///     column: "a".into(),
    /// };
    /// let options = PageOptions::default();
    /// let mut first = PageReader::streaming(0, ctx.clone(), &options);
    /// let _next = PageReader::streaming(0, ctx.clone(), &options)
    ///     .with_decompressor(first.take_decompressor());
    /// // One enforcing other limits is not taken: the reader keeps its own.
    /// let strict = PageOptions::default()
    ///     .with_compress_limits(Limits::new().with_max_uncompressed_size(1 << 20));
    /// let mut other = PageReader::streaming(0, ctx, &strict).with_decompressor(Decompressor::default());
    /// assert_eq!(other.take_decompressor().limits(), strict.compress_limits());
    /// ```
    pub fn with_decompressor(mut self, decompressor: Decompressor) -> Self {
        if *decompressor.limits() == self.options.compress_limits {
            self.decompressor = decompressor;
        }
        self
    }

    /// The decompressor, for the column's next chunk (see
    /// [`PageReader::with_decompressor`]); this reader keeps a fresh one.
    pub fn take_decompressor(&mut self) -> Decompressor {
        let fresh = Decompressor::new(self.options.compress_limits);
        std::mem::replace(&mut self.decompressor, fresh)
    }

    /// Lets the bytes held go with the page that ends them, instead of
    /// keeping them until the next bytes are pushed: a compressed page's
    /// bytes are then freed as soon as it is decompressed. For a caller
    /// that reads one column's page at a time, so that the next column's
    /// read can reuse them; where pages are read ahead it cost page faults
    /// (1 400-1 900 more on a 60 MB DuckDB file read with two threads), so
    /// it is off by default.
    pub fn releasing_read_bytes(mut self, on: bool) -> Self {
        self.release = on;
        self
    }

    /// Whether the reader lets its read bytes go with the page that ends
    /// them ([`releasing_read_bytes`](Self::releasing_read_bytes)).
    pub fn releases_read_bytes(&self) -> bool {
        self.release
    }

    /// Checks the pages against the chunk's `total_uncompressed_size` from
    /// the metadata: together (headers plus uncompressed bodies) they may
    /// exceed it by at most [`PageOptions::chunk_size_slack`]. A negative
    /// size (invalid) turns the check off.
    pub fn with_total_uncompressed_size(mut self, total: i64) -> Self {
        self.total_uncompressed = u64::try_from(total).ok();
        self
    }

    /// The chunk's `total_uncompressed_size` given by
    /// [`with_total_uncompressed_size`](Self::with_total_uncompressed_size),
    /// if one was (and was not negative).
    pub fn total_uncompressed_size(&self) -> Option<u64> {
        self.total_uncompressed
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
    /// never parsed. For a reader fed in pieces, a page whose bytes were not
    /// pushed is an error: use [`poll_page`](Self::poll_page) there.
    pub fn next_page(&mut self) -> Result<Option<Page>> {
        match self.poll_page()? {
            PageStep::Page(p) => Ok(Some(p)),
            PageStep::End => Ok(None),
            PageStep::Needs(r) => Err(self.err(
                self.pos,
                ErrorKind::ChunkRange(format!(
                    "bytes {}..{} of the file were not given to the page reader",
                    r.start, r.end
                )),
            )),
        }
    }

    /// The next page, the bytes it needs, or the end of the chunk (see
    /// [`PageStep`]). Asking for bytes changes nothing in the reader: once
    /// they are pushed, the same page is read.
    pub fn poll_page(&mut self) -> Result<PageStep> {
        loop {
            // Once the chunk's values are read, stop: bytes after the last
            // page (padding, or a chunk of no values whose offsets point
            // nowhere useful) are never parsed, as in other readers.
            if self.values_seen >= self.ctx.num_values {
                return Ok(PageStep::End);
            }
            if self.pos >= self.chunk_len {
                if self.values_seen != self.ctx.num_values {
                    return Err(self.err(
                        self.pos,
                        ErrorKind::ValueCount {
                            expected: self.ctx.num_values,
                            found: self.values_seen,
                        },
                    ));
                }
                return Ok(PageStep::End);
            }
            match self.read_page()? {
                Read::Page(page) => return Ok(PageStep::Page(page)),
                Read::Needs(r) => return Ok(PageStep::Needs(r)),
                Read::Skipped => {}
            }
        }
    }

    /// Reads one page, or says which bytes it needs.
    fn read_page(&mut self) -> Result<Read> {
        let header_pos = self.pos;
        let here = self.located_at(header_pos);
        if let Some(l) = here
            && l.rows <= self.skip_budget
        {
            // Passed over from the offset index alone: neither its header
            // nor its body is read. Its values count as read.
            let rows = usize::try_from(l.rows).unwrap_or(usize::MAX);
            self.check_page_values(header_pos, rows)?;
            self.add_values(header_pos, rows)?;
            self.skip_budget -= l.rows;
            self.skipped += l.rows;
            self.pos = header_pos + l.len;
            self.note_data_page_len(l.len);
            self.seen_data_page = true;
            self.page_index += 1;
            return Ok(Read::Skipped);
        }
        let rest = self.held_at(header_pos);
        let held_end = header_pos + rest.len();
        if let Some(l) = here
            && rest.len() < l.len
        {
            return Ok(Read::Needs(self.request(header_pos, l.len)));
        }
        let (header, header_len) =
            match PageHeader::decode_prefix(rest, &self.options.format_limits) {
                Ok(h) => h,
                // A header cut off by the end of the held bytes may be whole in
                // the chunk: ask for more (twice as much each time, so a
                // header that is bad anyway costs few rounds) until the held
                // bytes reach the chunk's end, where the error is the same as
                // for a chunk held whole.
                Err(_) if held_end < self.chunk_len => {
                    let want = self.guess().max(rest.len().saturating_mul(2));
                    let want = self.before_located(header_pos, want, rest.len());
                    return Ok(Read::Needs(self.request_to_end(header_pos, want)));
                }
                Err(e) => return Err(self.err(header_pos, ErrorKind::Header(e))),
            };
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
        // Nothing changes before the page's bytes are all held: asking for
        // them leaves the reader as it was.
        let uncompressed_seen = self
            .uncompressed_seen
            .saturating_add(header_len as u64)
            .saturating_add(uncompressed as u64);
        if let Some(total) = self.total_uncompressed {
            let cap = total.saturating_add(self.options.chunk_size_slack);
            if uncompressed_seen > cap {
                return Err(self.err(
                    header_pos,
                    ErrorKind::LimitExceeded(format!(
                        "the pages so far decompress to {} bytes, more than the chunk's \
                         total_uncompressed_size {total} plus the allowed slack of {} bytes \
                         (PageOptions::chunk_size_slack)",
                        uncompressed_seen, self.options.chunk_size_slack
                    )),
                ));
            }
        }
        let remaining = self.chunk_len.saturating_sub(body_start);
        let body_end = body_start.saturating_add(compressed);
        if let Some(l) = here {
            self.check_location(header_pos, &header, body_end - header_pos, l)?;
        }
        // A data page within the rows to skip is passed over from its
        // header alone: its body is not fetched. Its values count as read,
        // so the chunk's value count is still checked.
        if self.skip_budget > 0 && compressed <= remaining {
            let rows = match (&header.data_page_header, &header.data_page_header_v2) {
                (Some(h), _) if header.type_ == PageType::DATA_PAGE => Some(h.num_values),
                (_, Some(h)) if header.type_ == PageType::DATA_PAGE_V2 => Some(h.num_values),
                _ => None,
            };
            if let Some(rows) = rows {
                let rows = self.header_count(header_pos, "num_values", rows)?;
                if rows as u64 <= self.skip_budget {
                    self.check_page_values(header_pos, rows)?;
                    self.add_values(header_pos, rows)?;
                    self.skip_budget -= rows as u64;
                    self.skipped += rows as u64;
                    self.uncompressed_seen = uncompressed_seen;
                    self.pos = body_end;
                    self.note_data_page_len(body_end - header_pos);
                    self.seen_data_page = true;
                    self.page_index += 1;
                    return Ok(Read::Skipped);
                }
            }
        }
        if compressed <= remaining && body_end > held_end {
            return Ok(Read::Needs(self.request_to_end(
                header_pos,
                self.past_page(body_end - header_pos),
            )));
        }
        if compressed > remaining {
            return Err(self.err(
                header_pos,
                ErrorKind::BodyPastChunk {
                    needed: compressed as u64,
                    remaining: remaining as u64,
                },
            ));
        }
        self.uncompressed_seen = uncompressed_seen;
        let from = body_start - self.buf_start;
        let body = self.buf.slice(from..from + compressed);
        self.pos = body_end;
        // The held bytes end with this page: let them go with it (see
        // `releasing_read_bytes`).
        if self.release && from + compressed >= self.buf.len() {
            self.buf = Bytes::new();
            self.buf_start = body_end;
        }
        // A dictionary page says nothing of the data pages' size (pyarrow's
        // reach 1 MiB where its data pages take some 40 KiB): guessed from
        // it, the next read would hold a dictionary's size of every column.
        if header.type_ != PageType::DICTIONARY_PAGE {
            self.note_data_page_len(body_end - header_pos);
        }

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
                // A dictionary's entries are PLAIN (PLAIN_DICTIONARY in files
                // of format 1.0). Any other value is a damaged header: read as
                // PLAIN anyway, its entries would be a guess.
                if !matches!(dict.encoding, Encoding::PLAIN | Encoding::PLAIN_DICTIONARY) {
                    return Err(self.err(
                        header_pos,
                        ErrorKind::InvalidHeader(format!(
                            "dictionary page encoded {} (dictionaries are PLAIN)",
                            dict.encoding
                        )),
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
                let buf = self.decompress_dictionary(header_pos, &body, uncompressed)?;
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
                return Ok(Read::Skipped);
            }
        };
        if let Page::Data(data) = &page {
            if !self.seen_data_page {
                self.check_first_rep_level(header_pos, data)?;
            }
            self.seen_data_page = true;
        }
        self.page_index += 1;
        Ok(Read::Page(page))
    }

    fn header_count(&self, pos: usize, field: &str, value: i32) -> Result<usize> {
        usize::try_from(value).map_err(|_| {
            self.err(
                pos,
                ErrorKind::InvalidHeader(format!("negative {field} {value}")),
            )
        })
    }

    /// A page read where the offset index places one: its size (`len`,
    /// header included) and rows must be the index's.
    fn check_location(
        &self,
        pos: usize,
        header: &PageHeader,
        len: usize,
        l: Located,
    ) -> Result<()> {
        let rows = match (&header.data_page_header, &header.data_page_header_v2) {
            (Some(h), _) if header.type_ == PageType::DATA_PAGE => Some(h.num_values),
            (_, Some(h)) if header.type_ == PageType::DATA_PAGE_V2 => Some(h.num_values),
            _ => None,
        };
        if len != l.len || rows.and_then(|r| u64::try_from(r).ok()) != Some(l.rows) {
            return Err(self.err(
                pos,
                ErrorKind::InvalidHeader(format!(
                    "the offset index places a data page of {} bytes and {} rows here, \
                     the page header says {len} bytes and {} values",
                    l.len,
                    l.rows,
                    rows.map_or("no".to_string(), |r| r.to_string()),
                )),
            ));
        }
        Ok(())
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

    /// A dictionary page's body, decompressed into a buffer of its
    /// own (see [`with_dictionary_buffer`](Self::with_dictionary_buffer)):
    /// the dictionary is held through the chunk, so the buffer it would
    /// take from the previous page (see [`decompress`](Self::decompress))
    /// would not come back for the data pages after it, which would each
    /// chunk allocate anew and page-fault through (Polars' files: 40 % of
    /// their pages decompressed into fresh memory, the buffer of the
    /// column's last data page grown to the dictionary's size instead).
    fn decompress_dictionary(&mut self, pos: usize, body: &Bytes, size: usize) -> Result<Bytes> {
        if self.ctx.codec == Codec::Uncompressed {
            return self.decompress(pos, body, size);
        }
        let buf = self
            .dictionary_buffer
            .take()
            .filter(|b| fits_page(b.capacity(), size))
            .unwrap_or_default();
        self.decompress_into(pos, body, size, buf)
    }

    /// Decompresses the chunk's dictionary page into `buffer` (its
    /// capacity, if not far larger than the page), the column's previous
    /// dictionary's once nothing holds it: like
    /// [`with_buffer`](Self::with_buffer) for the data pages, it spares
    /// each chunk a fresh allocation and its page faults.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use pq_page::{column_chunk_range, ChunkContext, Page, PageOptions, PageReader};
    /// let file = bytes::Bytes::from(std::fs::read(concat!(
    ///     env!("CARGO_MANIFEST_DIR"),
    ///     "/../../data/all_types_dict_snappy_v1.parquet"
    /// ))?);
    /// let meta = pq_format::read_metadata_from_bytes(&file, &pq_format::Limits::default())?;
    /// let cmd = meta.row_groups[0].columns[4].meta_data.as_ref().ok_or("no metadata")?;
    /// let range = column_chunk_range(cmd, file.len() as u64, None)?;
    /// let ctx = ChunkContext {
    ///     codec: pq_compress::Codec::from_thrift(cmd.codec.0)?,
    ///     num_values: cmd.num_values as u64,
    ///     max_def_level: 1,
    ///     max_rep_level: 0,
    ///     file_offset: range.start,
    ///     column: cmd.path_in_schema.join("."),
    /// };
    /// let chunk = file.slice(range.start as usize..range.end as usize);
    /// let buffer = Vec::with_capacity(16 << 10); // the dictionary: 13 824 bytes
    /// let at = buffer.as_ptr();
    /// let mut pages = PageReader::new(chunk, ctx, &PageOptions::default())
    ///     .with_dictionary_buffer(buffer);
    /// let Some(Page::Dictionary(dict)) = pages.next_page()? else { panic!("a dictionary") };
    /// assert_eq!(dict.buf.as_ptr(), at);
    /// # Ok(())
    /// # }
    /// ```
    pub fn with_dictionary_buffer(mut self, buffer: Vec<u8>) -> Self {
        // An uncompressed dictionary is a slice of the bytes read.
        if self.ctx.codec != Codec::Uncompressed {
            self.dictionary_buffer = Some(buffer);
        }
        self
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
        // Reuse the previous page's buffer if nobody holds it any more and
        // it is not far larger than this page: a short page would otherwise
        // hold a long one's. An unshared
        // buffer that is too large is kept aside (one, the largest, and
        // none past `MAX_RESERVE`) for the next page it fits and for the
        // next chunk (see `take_buffer`).
        let mut buf = match self.spare.take().map(Bytes::try_into_mut) {
            Some(Ok(m)) if fits_page(m.capacity(), size) => Vec::from(m),
            Some(Ok(m)) => {
                self.keep_reserve(Vec::from(m));
                Vec::new()
            }
            _ => Vec::new(),
        };
        if buf.capacity() < size
            && let Some(r) = self
                .reserve
                .take_if(|r| r.capacity() >= size && fits_page(r.capacity(), size))
        {
            buf = r;
        }
        let bytes = self.decompress_into(pos, body, size, buf)?;
        self.spare = Some(bytes.clone());
        Ok(bytes)
    }

    /// `body` decompressed into `buf` (its capacity; its bytes are
    /// overwritten) to exactly `size` bytes.
    fn decompress_into(
        &mut self,
        pos: usize,
        body: &Bytes,
        size: usize,
        mut buf: Vec<u8>,
    ) -> Result<Bytes> {
        if let Err(e) = self
            .decompressor
            .decompress(self.ctx.codec, body, size, &mut buf)
        {
            return Err(self.err(pos, ErrorKind::Decompress(e)));
        }
        Ok(Bytes::from(buf))
    }

    /// Keeps `buf` aside if it is larger than the buffer kept so far and
    /// not past [`MAX_RESERVE`].
    fn keep_reserve(&mut self, buf: Vec<u8>) {
        if buf.capacity() <= MAX_RESERVE {
            self.reserve = larger(self.reserve.take(), Some(buf));
        }
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
                self.pos = self.chunk_len;
                self.values_seen = self.ctx.num_values;
                Some(Err(e))
            }
        }
    }
}
