//! Leaf column readers: the pages of one column chunk, read batch by batch,
//! to levels plus an Arrow array with one slot per level entry at or above
//! the leaf's slot definition level (null where the value is undefined;
//! see [`crate::assemble`]).
//!
//! A [`LeafReader`] keeps the state of its current page between batches: the
//! page's levels, and its values either still encoded (PLAIN: a byte
//! position), as dictionary indices, or decoded (the other encodings). Each
//! batch takes just the levels and values it needs, so memory is bounded by
//! one batch plus the current page of each column.

mod buffer;
pub(crate) mod byte_arrays;
mod converted;
pub(crate) mod deltas;
pub(crate) mod indices;
mod kept;
mod lengths;
mod native;
pub(crate) mod tested;
pub(crate) mod utf8;
pub(crate) mod values;
pub(crate) mod views;

use std::ops::Range;
use std::sync::Arc;

use arrow_array::ArrayRef;
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::DataType;
use bytes::Bytes;
use pq_format::Encoding;
use pq_page::{
    Bitmap, CompactLevels, DataPage, DictionaryPage, LevelForm, LevelShape, Levels, Page,
    PageReader, PageStep,
};

use crate::convert::{bits_where, to_arrow, wants_large_offsets};
use crate::error::{Error, Location, Result, data_err, enc_err};
use crate::pool::Pool;
use crate::schema::LeafColumn;
use deltas::PageDeltas;
use indices::PageIndices;
pub(crate) use kept::KeptRows;
use kept::RunCursor;
use lengths::PageLengths;
use values::{
    Dense, decode_plain, decode_values, extend_range, gather_dense, gather_plain_bytes,
    gather_plain_dict, gathers_plain_dict, indexes_plain_dict, plain_len, skip_plain, take_plain,
    take_plain_at,
};

/// The decoded content of one batch of a leaf column.
#[derive(Debug)]
pub(crate) struct LeafData {
    /// Definition levels, when the max level is above 0 and the array's
    /// validity does not give them: a column that is not repeated leaves
    /// them out when every level is the max level (the array has no null
    /// buffer) or the max level is 1 (a level is 1 where the array is
    /// valid). A column read as Null always keeps them.
    pub(crate) def: Option<Vec<i16>>,
    /// Repetition levels, when the max level is above 0.
    pub(crate) rep: Option<Vec<i16>>,
    /// One slot per level entry at or above the slot definition level;
    /// with `matched`, the values that passed alone (no nulls).
    pub(crate) array: ArrayRef,
    /// Whether each row passed the column's test, when it was read tested
    /// (see [`tested`]).
    pub(crate) matched: Option<BooleanBuffer>,
}

impl LeafData {
    /// What a skipped batch gives: nothing to assemble.
    pub(crate) fn skipped() -> Self {
        LeafData {
            def: None,
            rep: None,
            array: arrow_array::new_empty_array(&DataType::Null),
            matched: None,
        }
    }
}

fn empty_dense(leaf: &LeafColumn, dt: &DataType) -> Dense {
    Dense::empty(
        leaf.physical_type,
        leaf.fixed_width(),
        is_utf8(dt),
        wants_large_offsets(dt),
    )
}

fn page_err(source: pq_page::Error, at: &Location) -> Error {
    crate::error::page_err(source, at)
}

fn is_utf8(dt: &DataType) -> bool {
    matches!(
        dt,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    )
}

/// What a read that may need bytes not yet pushed gave.
#[derive(Debug)]
pub(crate) enum Step<T> {
    /// The read is complete.
    Ready(T),
    /// The read stopped at a page whose bytes (this absolute range of the
    /// file) have not been pushed; it resumes where it stopped once they are.
    Pending(Range<u64>),
}

/// What opening the next data page gave.
enum Opened {
    Page,
    End,
    Pending(Range<u64>),
}

/// A batch stopped at a page boundary, waiting for the page's bytes: what
/// it has gathered so far.
#[derive(Debug)]
struct Partial {
    def: CompactLevels,
    rep: Vec<i16>,
    dense: Dense,
    keys: Vec<u32>,
    keys_mode: bool,
    levels: usize,
    rows_left: usize,
    /// The rows of the batch it keeps, when it reads only those, and how
    /// far through them it is.
    kept: Option<(Arc<KeptRows>, RunCursor)>,
    /// Read tested (see [`tested`]): `dense` holds the values that passed
    /// alone, and `answers` whether each value (not row) did.
    tested: bool,
    answers: Bitmap,
}

/// The chunk's dictionary, decoded once (strings checked once, unless one
/// is invalid: then what is gathered from it is checked), or gathered from
/// its PLAIN page as it lies.
#[derive(Debug)]
struct Dict {
    /// The values, decoded; empty while `plain` stands for them.
    dense: Dense,
    /// The dictionary page, when values are gathered from it as it lies.
    /// A read may need a few entries of a dictionary of a megabyte (a
    /// selection's pages), and a decoded copy is memory to fault in and
    /// values to copy (and check, for strings) that are never used.
    plain: Option<PlainDict>,
    /// The dictionary as an Arrow array, for dictionary output and for
    /// values converted per value (see [`converted`]); made on first use
    /// and shared by every batch.
    array: Option<ArrayRef>,
    /// The dictionary as views, for view output; made on first use.
    views: Option<views::DictViews>,
    /// Whether each entry passes the column's test, when it is read tested;
    /// made on first use.
    passes: Option<Vec<bool>>,
}

impl Dict {
    /// The decoded dictionary as an Arrow array of type `dt` (see
    /// [`Dict::array`]), made on the first call.
    fn arrow_array(&mut self, dt: &DataType, at: &Location, pool: &Pool) -> Result<ArrayRef> {
        if let Some(a) = &self.array {
            return Ok(a.clone());
        }
        let len = self.dense.len();
        let a = to_arrow(self.dense.clone(), None, len, dt, at, pool)?;
        self.array = Some(a.clone());
        Ok(a)
    }

    /// The dictionary page's buffer, for the column's next chunk, if
    /// values are still gathered from it and nothing else holds it.
    fn into_page_buffer(self) -> Option<Vec<u8>> {
        let page = match self.plain? {
            PlainDict::Fixed { page, .. } | PlainDict::Bytes { page, .. } => page,
        };
        page.try_into_mut().ok().map(Vec::from)
    }
}

/// A dictionary page read where it lies (see [`Dict::plain`]).
#[derive(Debug)]
enum PlainDict {
    /// Fixed-width numbers: the page's PLAIN bytes are the values.
    Fixed { page: Bytes, n: usize },
    /// Byte arrays: where each entry starts in the page (see
    /// [`pq_encoding::plain::ByteArrayDecoder::index`]), and the bytes
    /// gathered so far. Strings are checked as they are gathered; once those
    /// outweigh the page, the dictionary is decoded and checked once
    /// instead, so that a read of every row costs at most one extra check
    /// of the page's bytes.
    Bytes {
        page: Bytes,
        starts: Vec<u32>,
        gathered: usize,
    },
}

/// The values of the current page not yet taken.
#[derive(Debug)]
enum PageValues {
    /// No values to read (a column read as Null, or every slot null).
    None,
    /// PLAIN values still encoded; `pos` is a byte position (a bit position
    /// for booleans).
    Plain { data: Bytes, pos: usize },
    /// Dictionary indices of the page's non-null values (boxed, as
    /// `Delta`'s decoder).
    Dict(Box<PageIndices>),
    /// DELTA_BINARY_PACKED integers, decoded as batches take them;
    /// `scratch` holds those of a batch that keeps some rows only. Boxed:
    /// the decoder's position holds a group of 32 unpacked values.
    Delta {
        deltas: Box<PageDeltas>,
        scratch: Dense,
    },
    /// DELTA_LENGTH_BYTE_ARRAY values, taken from the page's bytes as
    /// batches need them.
    Lengths(PageLengths),
    /// Values of another encoding, decoded when the page was opened.
    Decoded { dense: Dense, pos: usize },
}

/// The current data page.
#[derive(Debug)]
struct PageState {
    def: CompactLevels,
    /// Repetition levels, one per entry when the column is repeated.
    rep: CompactLevels,
    len: usize,
    pos: usize,
    values: PageValues,
    at: Location,
}

/// Reads one column chunk, batch by batch.
#[derive(Debug)]
pub(crate) struct LeafReader {
    pages: PageReader,
    max_def: i16,
    max_rep: i16,
    /// Level entries below this definition level (empty or null lists
    /// above the leaf) have no slot in the array.
    slot_def: i16,
    /// How definition levels are kept, in pages and batches: a repeated
    /// column needs each one; a flat column with max level 1 needs only
    /// its validity bits, and none at all while every value is defined.
    def_form: LevelForm,
    /// The value type (of the dictionary values, for dictionary output).
    dt: DataType,
    key_type: Option<DataType>,
    template: Dense,
    at: Location,
    dict: Option<Dict>,
    /// The chunk's dictionary page, until a page encoded with it is opened:
    /// a read whose pages are all PLAIN or passed over (a selection, a
    /// dictionary that overflowed) never decodes it.
    dict_page: Option<DictionaryPage>,
    page: Option<PageState>,
    /// The batch being read, while it waits for a page's bytes.
    partial: Option<Partial>,
    /// Rows still to skip, while a skip waits for a page's bytes.
    skip_left: Option<usize>,
    /// Rows passed over but not yet passed in the pages: a batch of kept
    /// rows whose last rows are not kept stops at its last page rather
    /// than open the next one for them (which would fetch it), and the next
    /// read passes them with whatever it skips first. A late column of a
    /// selective read so fetches only the pages that hold kept rows, a
    /// page of many batches included.
    lag: usize,
    /// Buffers of the last page, reused by the next one so that each page
    /// does not allocate (and page-fault) its levels and indices anew.
    spare: Spare,
    /// Where the batches' buffers come from and go back to.
    pool: Pool,
    /// Level entries, values and value bytes of the last batch: the room
    /// the next batch's buffers are taken with.
    last: (usize, usize, usize),
    /// The positions of the kept values of a page, when reading kept rows
    /// (reused from page to page).
    kept_vals: Vec<u32>,
    /// The test a batch's rows are read through, when the predicate is one
    /// on this column alone (see [`tested`]).
    test: Option<Arc<tested::ByteTest>>,
    /// Buffers of the test, reused from page to page.
    test_scratch: tested::Scratch,
}

/// A column's buffers, handed from one of its chunks to the next (see
/// [`LeafReader::take_buffers`]).
#[derive(Debug, Default)]
pub(crate) struct ChunkBuffers {
    /// Where pages are decompressed.
    page: Option<Vec<u8>>,
    /// What decompresses them (with its codec state).
    decompressor: Option<pq_compress::Decompressor>,
    /// Where pages' levels, indices and values are decoded.
    spare: Spare,
    /// The next chunk's guess of its first data page's bytes.
    first_page_len: Option<usize>,
    /// Where the dictionary page was decompressed, once nothing holds it.
    dictionary: Option<Vec<u8>>,
}

/// Buffers kept from one page to the next.
#[derive(Debug, Default)]
struct Spare {
    def: CompactLevels,
    rep: CompactLevels,
    idx: Vec<u32>,
    /// The offsets of a DELTA_LENGTH_BYTE_ARRAY page's values.
    lengths: Vec<i32>,
    /// The values of a page of another encoding than PLAIN or dictionary,
    /// decoded whole when the page opened (DELTA pages fill a megabyte
    /// or more of them).
    decoded: Option<Dense>,
}

impl Spare {
    /// Keeps the buffers of a finished page.
    fn keep(&mut self, page: PageState) {
        self.def = page.def;
        self.rep = page.rep;
        match page.values {
            PageValues::Dict(idx) => self.idx = idx.into_buffer(),
            PageValues::Lengths(l) => self.lengths = l.into_buffer(),
            PageValues::Decoded { mut dense, .. } => {
                dense.clear();
                self.decoded = Some(dense);
            }
            PageValues::None | PageValues::Plain { .. } | PageValues::Delta { .. } => {}
        }
    }
}

/// Decodes a page's levels in `form`, into the buffers of `spare`. `what`
/// ("definition levels", "repetition levels") names them in errors.
fn decode_levels(
    levels: &Levels,
    spare: CompactLevels,
    form: LevelForm,
    what: &str,
    at: &Location,
) -> Result<CompactLevels> {
    let (bits, buf) = spare.into_buffers();
    let mut out = CompactLevels::with_buffers(form, levels.max_level(), bits, buf);
    levels
        .decode_compact(&mut out)
        .map_err(|e| data_err(at, format!("{what}: {e}")))?;
    Ok(out)
}

/// The number of level entries of `rep` up to (not including) the start of
/// record `rows + 1`, and the records left to read after them. Whole
/// blocks whose record starts (repetition level 0) are counted at once go
/// without a branch per entry.
fn record_levels(rep: &[i16], mut rows: usize) -> (usize, usize) {
    const BLOCK: usize = 64;
    let mut taken = 0usize;
    let mut blocks = rep.chunks_exact(BLOCK);
    for b in &mut blocks {
        let starts = b.iter().map(|&r| usize::from(r == 0)).sum::<usize>();
        if starts > rows {
            break;
        }
        rows -= starts;
        taken += BLOCK;
    }
    for &r in rep.get(taken..).unwrap_or_default() {
        if r == 0 {
            if rows == 0 {
                break;
            }
            rows -= 1;
        }
        taken += 1;
    }
    (taken, rows)
}

/// [`record_levels`] over the repetition levels `range` of a page, in
/// whichever shape they are held. As bits (a max repetition level of 1),
/// record starts are the clear bits, counted a word at a time.
fn page_record_levels(rep: &CompactLevels, range: Range<usize>, mut rows: usize) -> (usize, usize) {
    let range = range.start.min(rep.len())..range.end.min(rep.len());
    let Some(bits) = rep.bits() else {
        return match rep.levels() {
            Some(levels) => record_levels(levels.get(range).unwrap_or_default(), rows),
            // Every entry continues a record: none starts in the range.
            None => (range.len(), rows),
        };
    };
    let mut at = range.start;
    while at < range.end {
        let k = (range.end - at).min(64);
        let mask = if k == 64 { u64::MAX } else { (1u64 << k) - 1 };
        let mut starts = !bits.word_at(at) & mask;
        let n = starts.count_ones() as usize;
        if n > rows {
            // The start of record `rows + 1` is the next set bit once the
            // first `rows` are cleared.
            for _ in 0..rows {
                starts &= starts - 1;
            }
            return (at + starts.trailing_zeros() as usize - range.start, 0);
        }
        rows -= n;
        at += k;
    }
    (range.len(), rows)
}

/// Validity of a leaf with a slot per level entry: set where the entry is
/// `max_def`. 64 entries at a time, without a branch ([`bits_where`]).
fn level_validity(def: &[i16], max_def: i16) -> BooleanBuffer {
    let pack = |entries: &[i16]| bits_where(entries, |d| d == max_def);
    let mut words: Vec<u64> = Vec::with_capacity(def.len().div_ceil(64));
    // Exact chunks first: their fixed length is what lets the loop vectorise.
    let chunks = def.chunks_exact(64);
    let rest = chunks.remainder();
    words.extend(chunks.map(pack));
    if !rest.is_empty() {
        words.push(pack(rest));
    }
    BooleanBuffer::new(arrow_buffer::Buffer::from_vec(words), 0, def.len())
}

/// Validity of the slots of `def` (the entries at or above `slot_def`):
/// set where the value is defined.
///
/// 64 entries at a time: two vectorised compares give the chunk's defined
/// and slot bits, and the defined bits of each run of slots are appended
/// whole (a chunk holds few runs: an entry without a slot is a null or
/// empty list). An entry at a time, the shift-and-count chain took 5 % of
/// a read of a nested table.
fn slot_validity(def: &[i16], slot_def: i16, max_def: i16) -> BooleanBuffer {
    let masks = |entries: &[i16]| {
        (
            bits_where(entries, |d| d == max_def),
            bits_where(entries, |d| d >= slot_def),
        )
    };
    let mut out = Bitmap::with_words(Vec::with_capacity(def.len().div_ceil(64)));
    // Exact chunks first: their fixed length is what lets the loop vectorise.
    let chunks = def.chunks_exact(64);
    let rest = chunks.remainder();
    for chunk in chunks {
        let (defined, slots) = masks(chunk);
        push_selected(&mut out, defined, slots);
    }
    if !rest.is_empty() {
        let (defined, slots) = masks(rest);
        push_selected(&mut out, defined, slots);
    }
    let len = out.len();
    BooleanBuffer::new(arrow_buffer::Buffer::from_vec(out.into_words()), 0, len)
}

/// Appends to `out` the bits of `bits` where `select` is set, in order: a
/// run of selected bits at a time.
fn push_selected(out: &mut Bitmap, bits: u64, mut select: u64) {
    while select != 0 {
        let from = select.trailing_zeros();
        // The run of set bits from `from` (a run to the top ends where the
        // shift brought in zeros).
        let run = (!(select >> from)).trailing_zeros();
        let mask = u64::MAX >> (64 - run);
        out.push_word((bits >> from) & mask, run as usize);
        select &= !(mask << from);
    }
}

/// Appends the dictionary indices `ix` of a batch's values: kept as keys
/// in keys mode (dictionary or view output), else their entries gathered.
fn append_indices(
    dict: Option<&mut Dict>,
    keys_mode: bool,
    keys: &mut Vec<u32>,
    dense: &mut Dense,
    ix: &[u32],
    at: &Location,
) -> Result<()> {
    let Some(dict) = dict else {
        return Err(no_dictionary(at));
    };
    if keys_mode {
        keys.extend_from_slice(ix);
        Ok(())
    } else {
        gather_dict(dense, dict, ix, at)
    }
}

fn no_dictionary(at: &Location) -> Error {
    data_err(at, "a dictionary-encoded page without a dictionary page")
}

/// Appends the dictionary's values at `ix` to `out`.
fn gather_dict(out: &mut Dense, dict: &mut Dict, ix: &[u32], at: &Location) -> Result<()> {
    match &mut dict.plain {
        Some(PlainDict::Fixed { page, n }) => gather_plain_dict(out, page, *n, ix, at),
        Some(PlainDict::Bytes {
            page,
            starts,
            gathered,
        }) => {
            *gathered += gather_plain_bytes(out, page, starts, ix, at)?;
            if *gathered > page.len() && matches!(out, Dense::Utf8(_) | Dense::LargeUtf8(_)) {
                // Binary values need no check: they are gathered from the
                // page to the end. The entries are those indexed: every
                // one starts, and one more start ends the last.
                let n = starts.len().saturating_sub(1);
                let dense = decode_dense(dict.dense.empty_like(), page, n, at)?;
                dict.dense = dense;
                dict.plain = None;
            }
            Ok(())
        }
        None => gather_dense(out, &dict.dense, ix, at),
    }
}

/// `n` PLAIN values of `page` decoded into `values` (empty): strings
/// checked once, unless one is invalid; then they are kept as bytes, for
/// what is gathered from them to be checked.
fn decode_dense(mut values: Dense, page: &[u8], n: usize, at: &Location) -> Result<Dense> {
    if let Err(e) = decode_plain(&mut values, page, n, at) {
        let Some(bytes) = values.unchecked_strings() else {
            return Err(e);
        };
        values = bytes;
        decode_plain(&mut values, page, n, at)?;
    }
    Ok(values)
}

/// At a page of another encoding than the dictionary's: values from here
/// on are plain, so what the batch's keys selected so far is gathered first,
/// into a values buffer `take` gives (a batch in keys mode starts without
/// one: most never leave it); the keys' buffer goes back to `pool`.
fn leave_keys_mode(
    dict: Option<&mut Dict>,
    keys_mode: &mut bool,
    keys: &mut Vec<u32>,
    dense: &mut Dense,
    take: impl FnOnce() -> Dense,
    pool: &Pool,
    at: &Location,
) -> Result<()> {
    if *keys_mode {
        let mut values = take();
        if let Some(dict) = dict {
            gather_dict(&mut values, dict, keys, at)?;
        }
        *dense = values;
        pool.put(std::mem::take(keys));
        *keys_mode = false;
    }
    Ok(())
}

/// The levels of the kept rows of `rows` of a page (whose definition levels
/// are `page_def`) appended to `def`, the cursor moved past `rows`, and the
/// positions of the kept rows' values among the page's values from
/// `rows.start` pushed to `vals`. Returns the level entries taken and the
/// values within `rows`, kept or not.
fn kept_levels(
    page_def: &CompactLevels,
    rows: Range<usize>,
    kept: &KeptRows,
    cursor: &mut RunCursor,
    def: &mut CompactLevels,
    vals: &mut Vec<u32>,
) -> (usize, usize) {
    // A page without nulls has a value for every row: the kept values'
    // positions are the kept rows', shifted, taken whole from the batch's
    // list rather than run by run (many short runs when a filter drops few
    // rows here and there).
    if page_def.shape() == LevelShape::AllMax {
        let from = cursor.row();
        let n = rows.len().min(kept.rows().saturating_sub(from));
        let kept_here = kept.positions_in(from..from + n);
        // `from` is at most a kept row's position, which is a `u32`.
        let base = from as u32;
        vals.extend(kept_here.iter().map(|&p| p - base));
        let taken = kept_here.len();
        def.extend_from(page_def, rows.start..rows.start + taken);
        cursor.seek(kept, from + n);
        return (taken, n);
    }
    kept_levels_by_runs(page_def, rows, kept, cursor, def, vals)
}

/// [`kept_levels`] a run of kept or passed rows at a time.
fn kept_levels_by_runs(
    page_def: &CompactLevels,
    rows: Range<usize>,
    kept: &KeptRows,
    cursor: &mut RunCursor,
    def: &mut CompactLevels,
    vals: &mut Vec<u32>,
) -> (usize, usize) {
    let (mut row, mut value, mut taken) = (rows.start, 0usize, 0usize);
    while row < rows.end {
        let (keep, run) = cursor.run(kept);
        let n = run.min(rows.end - row);
        if n == 0 {
            break;
        }
        cursor.advance(kept, n);
        let present = if keep {
            taken += n;
            let present = def.extend_from(page_def, row..row + n);
            // Page values are counted in `u32`s (a page's value count is
            // an `i32`).
            vals.extend((value..value + present).map(|v| v as u32));
            present
        } else {
            page_def.count_max(row..row + n)
        };
        value += present;
        row += n;
    }
    (taken, value)
}

/// Passes over the next `n` level entries of a page of a column that is not
/// repeated, and the values among them, without decoding those values.
fn pass_in_page(page: &mut PageState, template: &Dense, n: usize) -> Result<()> {
    let start = page.pos;
    let end = start.saturating_add(n).min(page.len);
    let non_null = page.def.count_max(start..end);
    page.pos = end;
    let at = &page.at;
    let fewer = |what: &str| data_err(at, format!("fewer {what} than values"));
    match &mut page.values {
        PageValues::None => {}
        PageValues::Plain { data, pos } => skip_plain(template, data, pos, non_null, at)?,
        PageValues::Dict(idx) => idx.skip(non_null).map_err(|e| enc_err(at, e))?,
        PageValues::Delta { deltas, .. } => deltas.skip(non_null, at)?,
        PageValues::Lengths(l) => l.skip(non_null, at)?,
        PageValues::Decoded { dense, pos } => {
            if dense.len().saturating_sub(*pos) < non_null {
                return Err(fewer("decoded values"));
            }
            *pos += non_null;
        }
    }
    Ok(())
}

impl LeafReader {
    /// Decodes into `buffers`, the previous chunk's of the same column (see
    /// [`LeafReader::take_buffers`]).
    pub(crate) fn with_buffers(mut self, buffers: ChunkBuffers) -> Self {
        if let Some(page) = buffers.page {
            self.pages = self.pages.with_buffer(page);
        }
        if let Some(d) = buffers.decompressor {
            self.pages = self.pages.with_decompressor(d);
        }
        if let Some(len) = buffers.first_page_len {
            self.pages = self.pages.with_data_page_len(len);
        }
        if let Some(b) = buffers.dictionary {
            self.pages = self.pages.with_dictionary_buffer(b);
        }
        self.spare = buffers.spare;
        self
    }

    /// The buffers the chunk's pages were decompressed and decoded into, for
    /// the column's next chunk: a chunk that allocated its own anew would
    /// page-fault every 4 KiB of them again (DuckDB writes a page per
    /// column per row group, so its indices and DELTA values fill
    /// megabytes), and the allocator may hand freed memory back to the
    /// system in between.
    pub(crate) fn take_buffers(&mut self) -> ChunkBuffers {
        let mut spare = std::mem::take(&mut self.spare);
        if let Some(page) = self.page.take() {
            spare.keep(page);
        }
        ChunkBuffers {
            page: self.pages.take_buffer(),
            decompressor: Some(self.pages.take_decompressor()),
            spare,
            first_page_len: self.pages.data_page_hint(),
            dictionary: self.dict.take().and_then(Dict::into_page_buffer),
        }
    }

    /// A reader of the chunk of `leaf` whose pages `pages` reads, read as
    /// Arrow `dt`.
    pub(crate) fn new(
        pages: PageReader,
        leaf: &LeafColumn,
        dt: &DataType,
        at: Location,
    ) -> Result<Self> {
        let (value_type, key_type) = match dt {
            DataType::Dictionary(k, v) => (v.as_ref().clone(), Some(k.as_ref().clone())),
            _ => (dt.clone(), None),
        };
        let template = empty_dense(leaf, &value_type);
        let def_form = if leaf.max_rep_level > 0 {
            LevelForm::Levels
        } else if matches!(value_type, DataType::Null) {
            // A Null array has no validity to carry the levels.
            LevelForm::Compact
        } else {
            // Bits for a max level of 1, else the levels when not all max.
            LevelForm::Bits
        };
        if template.is_zero_width() && !matches!(value_type, DataType::Null) {
            return Err(data_err(&at, "FIXED_LEN_BYTE_ARRAY of width 0"));
        }
        Ok(LeafReader {
            pages,
            max_def: leaf.max_def_level,
            max_rep: leaf.max_rep_level,
            slot_def: 0,
            def_form,
            dt: value_type,
            key_type,
            template,
            at,
            dict: None,
            dict_page: None,
            page: None,
            partial: None,
            skip_left: None,
            lag: 0,
            spare: Spare::default(),
            pool: Pool::none(),
            last: (0, 0, 0),
            kept_vals: Vec::new(),
            test: None,
            test_scratch: tested::Scratch::default(),
        })
    }

    /// Reads each batch (but kept rows) through `test`: the batch's array
    /// holds the values that pass, and [`LeafData::matched`] says which
    /// rows did (see [`tested`]). For a column that is not repeated, of
    /// byte arrays read as `Utf8`, `LargeUtf8`, `Binary` or `LargeBinary`;
    /// another is read as without it.
    pub(crate) fn with_test(mut self, test: Arc<tested::ByteTest>) -> Self {
        let bytes = matches!(
            self.template,
            Dense::Bytes(_) | Dense::LargeBytes(_) | Dense::Utf8(_) | Dense::LargeUtf8(_)
        );
        if bytes && self.max_rep == 0 && self.key_type.is_none() && !views::is_view(&self.dt) {
            self.test = Some(test);
        }
        self
    }

    /// Takes the batches' buffers from `pool` (by default each batch
    /// allocates its own).
    pub(crate) fn with_pool(mut self, pool: Pool) -> Self {
        self.pool = pool;
        self
    }

    /// Checks the chunk's pages against its metadata's
    /// `total_uncompressed_size` (see [`PageOptions::chunk_size_slack`]).
    pub(crate) fn with_total_uncompressed_size(mut self, total: i64) -> Self {
        self.pages = self.pages.with_total_uncompressed_size(total);
        self
    }

    /// The chunk's uncompressed size from its metadata (0 when not given):
    /// a guess of the work of reading it.
    pub(crate) fn chunk_size(&self) -> u64 {
        self.pages.total_uncompressed_size().unwrap_or(0)
    }

    /// Gives the array slots only to level entries at or above `slot_def`
    /// (the element level of the leaf's innermost list).
    pub(crate) fn with_slot_def(mut self, slot_def: i16) -> Self {
        self.slot_def = slot_def;
        self
    }

    /// An error of the page reader. A column that is not repeated is read to
    /// the row group's rows (see where its `ChunkContext` is built), so a
    /// count of values that differs is one of rows, and says so.
    fn pages_err(&self, e: pq_page::Error) -> Error {
        match e.kind {
            pq_page::ErrorKind::ValueCount { expected, found } if self.max_rep == 0 => {
                let more = if found > expected { "at least " } else { "" };
                data_err(
                    &self.at,
                    format!(
                        "the row group declares {expected} rows but the column chunk's pages \
                         hold {more}{found} values"
                    ),
                )
            }
            _ => page_err(e, &self.at),
        }
    }

    /// Gives the chunk's page reader bytes of the file from absolute
    /// offset `offset` (see [`PageReader::push`]).
    pub(crate) fn push(&mut self, offset: u64, data: Bytes) {
        self.pages.push(offset, data);
    }

    /// Where the column chunk is, for errors of reads made for it.
    pub(crate) fn location(&self) -> &Location {
        &self.at
    }

    /// The bytes its next page will need when they are not held yet (see
    /// [`PageReader::next_request`]).
    pub(crate) fn next_request(&self) -> Option<Range<u64>> {
        self.pages.next_request()
    }

    /// Whether the column is read a page at a time, alone: its page reader
    /// lets a page's read bytes go once the page is decompressed, for the
    /// next column's read (see `BatchDecoder::serial_reads`).
    pub(crate) fn reads_alone(&self) -> bool {
        self.pages.releases_read_bytes()
    }

    /// Bytes of the file the reader holds (see
    /// [`PageReader::buffered_bytes`]).
    pub(crate) fn buffered_bytes(&self) -> usize {
        self.pages.buffered_bytes()
    }

    /// Opens the next data page (decoding a dictionary page on the way),
    /// or says which bytes it needs.
    fn next_data_page(&mut self) -> Result<Opened> {
        loop {
            let page = match self.pages.poll_page().map_err(|e| self.pages_err(e))? {
                PageStep::Page(p) => p,
                PageStep::End => return Ok(Opened::End),
                PageStep::Needs(r) => return Ok(Opened::Pending(r)),
            };
            match page {
                Page::Dictionary(d) => {
                    self.dict = None;
                    self.dict_page = Some(d);
                }
                Page::Data(p) => {
                    if matches!(
                        p.encoding,
                        Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY
                    ) && let Some(d) = self.dict_page.take()
                    {
                        self.dict = Some(self.decode_dictionary(d)?);
                    }
                    let spare = std::mem::take(&mut self.spare);
                    self.page = Some(self.open_page(p, spare)?);
                    return Ok(Opened::Page);
                }
            }
        }
    }

    /// Decodes the chunk's dictionary page (when a page first needs it), or
    /// keeps it to gather from as it lies.
    fn decode_dictionary(&self, d: DictionaryPage) -> Result<Dict> {
        let at = self.at.clone().at_offset(d.file_offset).at_page(d.index);
        let dict = |dense, plain| Dict {
            dense,
            plain,
            array: None,
            views: None,
            passes: None,
        };
        // Kept as the page when batches want plain values (not keys or
        // views, which are made from the decoded dictionary) and the
        // dictionary is larger than the table small ones are gathered
        // through. Fixed widths when the bytes hold every entry, byte
        // arrays when every entry is found whole; short pages are decoded
        // below, to fail as such.
        let plain_values = d.num_values > native::SMALL_DICT
            && self.key_type.is_none()
            && !views::is_view(&self.dt);
        if plain_values
            && gathers_plain_dict(&self.template)
            && plain_len(&self.template, d.num_values).is_some_and(|n| n <= d.buf.len())
        {
            let (page, n) = (d.buf, d.num_values);
            return Ok(dict(
                self.template.empty_like(),
                Some(PlainDict::Fixed { page, n }),
            ));
        }
        if plain_values && indexes_plain_dict(&self.template) {
            let mut starts = Vec::new();
            let mut index = pq_encoding::plain::ByteArrayDecoder::new(&d.buf);
            if index.index(d.num_values, &mut starts).ok() == Some(d.num_values) {
                let plain = PlainDict::Bytes {
                    page: d.buf,
                    starts,
                    gathered: 0,
                };
                return Ok(dict(self.template.empty_like(), Some(plain)));
            }
        }
        let dense = decode_dense(self.template.empty_like(), &d.buf, d.num_values, &at)?;
        Ok(dict(dense, None))
    }

    fn open_page(&self, p: DataPage, spare: Spare) -> Result<PageState> {
        let at = self.at.clone().at_offset(p.file_offset).at_page(p.index);
        let n = p.num_values;
        let Spare {
            def,
            rep,
            mut idx,
            mut lengths,
            decoded,
        } = spare;
        let def = decode_levels(&p.def_levels, def, self.def_form, "definition levels", &at)?;
        let non_null = def.count_max(0..n);
        // A column that is not repeated has no repetition levels to keep
        // (they would be a zero per entry). Those of one level of lists are
        // kept as bits (a set bit continues a record): a page's levels are
        // decoded whole, and as `i16`s they took two bytes an entry, fresh
        // memory the size of the page's values for short ones.
        let rep = if self.max_rep > 0 {
            let form = if self.max_rep == 1 {
                LevelForm::Bits
            } else {
                LevelForm::Levels
            };
            decode_levels(&p.rep_levels, rep, form, "repetition levels", &at)?
        } else {
            rep
        };
        let values = if matches!(self.dt, DataType::Null) || non_null == 0 {
            PageValues::None
        } else {
            match p.encoding {
                Encoding::PLAIN => {
                    // PLAIN values of a fixed width fill the page exactly:
                    // bytes over or short mean the levels or the encoding
                    // are not what the writer wrote (a required column
                    // read from an optional one's page, say).
                    if let Some(want) = plain_len(&self.template, non_null)
                        && want != p.values.len()
                    {
                        return Err(data_err(
                            &at,
                            format!(
                                "{non_null} PLAIN values take {want} bytes, the page holds {}",
                                p.values.len()
                            ),
                        ));
                    }
                    PageValues::Plain {
                        data: p.values,
                        pos: 0,
                    }
                }
                Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY => {
                    if self.dict.is_none() {
                        return Err(no_dictionary(&at));
                    }
                    // Decoded as batches need them.
                    let idx = PageIndices::new(p.values, non_null, std::mem::take(&mut idx))
                        .map_err(|e| enc_err(&at, e))?;
                    PageValues::Dict(Box::new(idx))
                }
                Encoding::DELTA_BINARY_PACKED
                    if let Some(deltas) =
                        PageDeltas::new(p.values.clone(), non_null, &self.template, &at) =>
                {
                    PageValues::Delta {
                        deltas: Box::new(deltas?),
                        scratch: self.template.empty_like(),
                    }
                }
                Encoding::DELTA_LENGTH_BYTE_ARRAY
                    if let Some(page) = PageLengths::new(
                        p.values.clone(),
                        non_null,
                        &self.template,
                        std::mem::take(&mut lengths),
                        &at,
                    ) =>
                {
                    PageValues::Lengths(page?)
                }
                other => {
                    let mut dense = decoded.unwrap_or_else(|| self.template.empty_like());
                    decode_values(
                        &mut dense,
                        None,
                        other,
                        &p.values,
                        non_null,
                        &mut Vec::new(),
                        &at,
                    )?;
                    PageValues::Decoded { dense, pos: 0 }
                }
            }
        };
        Ok(PageState {
            def,
            rep,
            len: n,
            pos: 0,
            values,
            at,
        })
    }

    /// The empty buffers of a batch of `rows` records. With `fresh`, its
    /// values buffer is allocated to size rather than taken from the pool,
    /// whose buffers are sized for whole batches.
    fn start_batch(&self, rows: usize, fresh: bool) -> Partial {
        let max_def = self.max_def;
        let (last_levels, last_values, last_bytes) = self.last;
        let levels_room = rows.max(last_levels);
        // Levels and bits of a batch are few next to its values: taken
        // ahead from the pool (cheap) only in the forms that may write them.
        let (bits, levels) = match self.def_form {
            _ if max_def == 0 => (Bitmap::default(), Vec::new()),
            LevelForm::Bits => (
                Bitmap::with_words(self.pool.take(levels_room.div_ceil(64))),
                Vec::new(),
            ),
            LevelForm::Levels | LevelForm::Compact => {
                (Bitmap::default(), self.pool.take(levels_room))
            }
        };
        // Dictionary output keeps the keys; so does view output, whose
        // values are views of the dictionary's entries gathered by key, and
        // a read of values converted per value (see [`converted`]).
        let keys_mode = self.key_type.is_some()
            || views::is_view(&self.dt)
            || (self.test.is_none() && converted::converts_per_value(&self.template, &self.dt));
        Partial {
            def: CompactLevels::with_buffers(self.def_form, max_def, bits, levels),
            rep: if self.max_rep > 0 {
                self.pool.take(levels_room)
            } else {
                Vec::new()
            },
            // Values go to `dense` in keys mode only after a page of
            // another encoding: it grows then.
            dense: if fresh || keys_mode {
                let room = if keys_mode { 0 } else { rows };
                self.template.take_like(&Pool::none(), room, 0)
            } else {
                self.template
                    .take_like(&self.pool, last_values.max(rows), last_bytes)
            },
            keys: match (keys_mode, fresh) {
                (false, _) => Vec::new(),
                (true, true) => Vec::with_capacity(rows),
                (true, false) => self.pool.take(rows),
            },
            keys_mode,
            levels: 0,
            rows_left: rows,
            kept: None,
            tested: false,
            answers: Bitmap::default(),
        }
    }

    /// Reads the next `rows` records (fewer at the end of the chunk), or
    /// stops at a page whose bytes are not pushed yet: then the next call
    /// (with the same `rows`) resumes the batch where it stopped.
    /// Passes over the next `rows` rows (fewer at the chunk's end). In a
    /// column that is not repeated, whole pages within them are passed over
    /// from their headers (their bodies neither fetched nor decoded), and
    /// in a page they end or start in, the levels are counted and the
    /// values passed without being decoded (PLAIN byte arrays walk their
    /// lengths); a repeated column decodes and drops them all. Resumable as
    /// [`read`](Self::read) is.
    pub(crate) fn skip(&mut self, rows: usize) -> Result<Step<()>> {
        if self.max_rep > 0 {
            return Ok(match self.read(rows)? {
                Step::Ready(data) => {
                    self.put_back(data);
                    Step::Ready(())
                }
                Step::Pending(r) => Step::Pending(r),
            });
        }
        let mut left = self
            .skip_left
            .take()
            .unwrap_or(rows.saturating_add(std::mem::take(&mut self.lag)));
        loop {
            if left == 0 {
                return Ok(Step::Ready(()));
            }
            let in_page = self
                .page
                .as_ref()
                .map_or(0, |p| p.len.saturating_sub(p.pos));
            if in_page > 0
                && let Some(page) = self.page.as_mut()
            {
                let take = in_page.min(left);
                pass_in_page(page, &self.template, take)?;
                left -= take;
                continue;
            }
            if let Some(done) = self.page.take() {
                self.spare.keep(done);
            }
            self.pages.skip_rows(left as u64);
            let opened = self.next_data_page();
            let passed = usize::try_from(self.pages.take_skipped()).unwrap_or(usize::MAX);
            left = left.saturating_sub(passed);
            match opened? {
                Opened::Page => {}
                Opened::End => return Ok(Step::Ready(())),
                Opened::Pending(r) => {
                    self.skip_left = Some(left);
                    return Ok(Step::Pending(r));
                }
            }
        }
    }

    /// Whether the column is repeated (its rows are records of levels).
    pub(crate) fn is_repeated(&self) -> bool {
        self.max_rep > 0
    }

    /// A batch's levels back to the pool (its arrays give their buffers
    /// back when dropped).
    fn put_back(&self, data: LeafData) {
        self.pool.put(data.def.unwrap_or_default());
        self.pool.put(data.rep.unwrap_or_default());
    }

    pub(crate) fn read(&mut self, rows: usize) -> Result<Step<LeafData>> {
        self.read_rows(rows, None)
    }

    /// Reads the rows of the next `kept.rows()` that `kept` keeps, in a
    /// column that is not repeated: the others are passed over without
    /// being decoded, or, when the kept rows are many short runs, the batch
    /// is decoded whole and filtered. Resumable as [`read`](Self::read) is
    /// (called again with the same `kept`).
    pub(crate) fn read_kept(&mut self, kept: &Arc<KeptRows>) -> Result<Step<LeafData>> {
        if self.max_rep > 0 {
            return Err(data_err(
                &self.at,
                "a repeated column read by kept rows (a bug: please report it)",
            ));
        }
        // Many short runs cost more in steps than decoding the batch whole
        // and filtering it, except in a page without nulls, whose kept
        // values are found in one step (see `kept_levels`).
        let no_nulls = self
            .page
            .as_ref()
            .is_some_and(|p| p.pos < p.len && p.def.shape() == LevelShape::AllMax);
        // A batch resumed (its bytes arrived) goes on the way it began.
        let by_runs = match &self.partial {
            Some(p) => p.kept.is_some(),
            None => !kept.read_whole() || no_nulls,
        };
        if by_runs {
            return self.read_rows(kept.rows(), Some(kept));
        }
        let data = match self.read_rows(kept.rows(), None)? {
            Step::Ready(d) => d,
            Step::Pending(r) => return Ok(Step::Pending(r)),
        };
        // A chunk that ends early gives a short batch: both filter what it
        // gave (the batch's assembly reports the shortfall).
        let array = kept
            .filter(data.array.as_ref())
            .map_err(|e| crate::error::arrow_err(&self.at, e))?;
        let def = data.def.map(|d| {
            let kept: Vec<i16> = kept
                .positions_in(0..d.len())
                .iter()
                .filter_map(|&p| d.get(p as usize).copied())
                .collect();
            self.pool.put(d);
            kept
        });
        Ok(Step::Ready(LeafData {
            def,
            rep: None,
            array,
            matched: None,
        }))
    }

    fn read_rows(&mut self, rows: usize, kept: Option<&Arc<KeptRows>>) -> Result<Step<LeafData>> {
        let max_rep = self.max_rep;
        // Rows passed over before, for a batch that reads every row.
        if kept.is_none()
            && self.partial.is_none()
            && (self.lag > 0 || self.skip_left.is_some())
            && let Step::Pending(r) = self.skip(0)?
        {
            return Ok(Step::Pending(r));
        }
        let Partial {
            mut def,
            mut rep,
            mut dense,
            mut keys,
            mut keys_mode,
            mut levels,
            mut rows_left,
            kept: mut cursor,
            tested,
            mut answers,
        } = match self.partial.take() {
            Some(p) => p,
            None => {
                // Room for the kept rows only, and when they are few, not a
                // pooled buffer sized for a whole batch: a batch of a few
                // kept rows may wait long (for a batch of matches to be
                // gathered) and would hold that room all the while.
                let room = kept.map_or(rows, |k| k.kept());
                let mut p = self.start_batch(room, room.saturating_mul(8) < rows);
                p.rows_left = rows;
                p.kept = kept.map(|k| (k.clone(), RunCursor::default()));
                if self.test.is_some() && kept.is_none() && !p.keys_mode {
                    p.tested = true;
                    p.answers = Bitmap::with_words(Vec::with_capacity(rows.div_ceil(64)));
                }
                p
            }
        };
        // The page whose bytes the batch waits for, if it stopped at one.
        let waiting = loop {
            if rows_left == 0 && max_rep == 0 {
                break None;
            }
            if self.page.as_ref().is_none_or(|p| p.pos >= p.len) {
                if let Some(done) = self.page.take() {
                    self.spare.keep(done);
                }
                let run = cursor.as_ref().and_then(|(k, c)| c.skip_run(k));
                // The batch's other rows are all passed over: they wait
                // (see `lag`) rather than open a page.
                if let (Some(n), Some((k, c))) = (run, cursor.as_mut())
                    && n >= rows_left
                {
                    c.advance(k, rows_left);
                    self.lag += rows_left;
                    break None;
                }
                // Whole pages within a run of skipped rows (and the rows
                // passed over before) are passed over from their headers,
                // or from the offset index.
                let skip = match (run, self.lag) {
                    (run, 0) => run,
                    (Some(n), lag) => Some(n + lag),
                    (None, lag) => Some(lag),
                };
                if let Some(n) = skip {
                    self.pages.skip_rows(n as u64);
                }
                let opened = self.next_data_page();
                if skip.is_some() {
                    let passed = usize::try_from(self.pages.take_skipped()).unwrap_or(usize::MAX);
                    let from_lag = passed.min(self.lag);
                    self.lag -= from_lag;
                    let passed = (passed - from_lag).min(rows_left);
                    if let Some((k, c)) = cursor.as_mut() {
                        c.advance(k, passed);
                    }
                    rows_left -= passed;
                }
                match opened? {
                    Opened::Page => {
                        // Rows passed over before that the page holds.
                        if self.lag > 0
                            && let Some(page) = self.page.as_mut()
                        {
                            let n = self.lag.min(page.len.saturating_sub(page.pos));
                            pass_in_page(page, &self.template, n)?;
                            self.lag -= n;
                        }
                        continue;
                    }
                    Opened::End => break None,
                    Opened::Pending(range) => break Some(range),
                }
            }
            let Some(page) = self.page.as_mut() else {
                break None;
            };
            let start = page.pos;
            if let Some((k, c)) = cursor.as_mut() {
                // The kept rows of the page's next `t`: their levels, and
                // their values gathered by position in one step.
                let t = rows_left.min(page.len - start);
                let vals = &mut self.kept_vals;
                vals.clear();
                let (taken, passed) =
                    kept_levels(&page.def, start..start + t, k, c, &mut def, vals);
                page.pos = start + t;
                rows_left -= t;
                levels += taken;
                let at = &page.at;
                match &mut page.values {
                    PageValues::None => {}
                    PageValues::Dict(idx) => {
                        // Positions become the kept values' indices.
                        idx.gather(passed, vals).map_err(|e| enc_err(at, e))?;
                        let dict = self.dict.as_mut();
                        append_indices(dict, keys_mode, &mut keys, &mut dense, vals, at)?;
                    }
                    other => {
                        let dict = self.dict.as_mut();
                        let take = || self.template.take_like(&self.pool, rows, self.last.2);
                        let pool = &self.pool;
                        leave_keys_mode(
                            dict,
                            &mut keys_mode,
                            &mut keys,
                            &mut dense,
                            take,
                            pool,
                            at,
                        )?;
                        match other {
                            PageValues::Plain { data, pos } => {
                                take_plain_at(&mut dense, data, pos, vals, passed, at)?
                            }
                            PageValues::Decoded { dense: src, pos } => {
                                if src.len().saturating_sub(*pos) < passed {
                                    return Err(data_err(at, "fewer decoded values than levels"));
                                }
                                for v in vals.iter_mut() {
                                    *v = v.saturating_add(*pos as u32);
                                }
                                gather_dense(&mut dense, src, vals, at)?;
                                *pos += passed;
                            }
                            PageValues::Delta { deltas, scratch } => {
                                deltas.gather(&mut dense, passed, vals, scratch, at)?
                            }
                            PageValues::Lengths(l) => l.gather(&mut dense, passed, vals, at)?,
                            PageValues::None | PageValues::Dict(_) => {}
                        }
                    }
                }
                continue;
            }
            let take = if max_rep == 0 {
                let t = rows_left.min(page.len - start);
                rows_left -= t;
                t
            } else {
                // Up to (not including) the start of record `rows + 1`.
                let (t, left) = page_record_levels(&page.rep, start..page.len, rows_left);
                rows_left = left;
                t
            };
            if take == 0 {
                break None;
            }
            let end = start + take;
            let non_null = def.extend_from(&page.def, start..end);
            if max_rep > 0 {
                page.rep.levels_into(start..end, &mut rep);
            }
            page.pos = end;
            levels += take;
            if non_null == 0 {
                continue;
            }
            let at = &page.at;
            if let (true, Some(test)) = (tested, self.test.as_deref()) {
                let scratch = &mut self.test_scratch;
                match &mut page.values {
                    PageValues::None => {}
                    PageValues::Plain { data, pos } => tested::test_plain(
                        test,
                        &mut dense,
                        data,
                        pos,
                        non_null,
                        &mut answers,
                        scratch,
                        at,
                    )?,
                    PageValues::Dict(idx) => {
                        let ix = idx.take(non_null).map_err(|e| enc_err(at, e))?;
                        let Some(dict) = self.dict.as_mut() else {
                            return Err(no_dictionary(at));
                        };
                        tested::test_indices(test, dict, ix, &mut answers, &mut scratch.idx, at)?;
                        gather_dict(&mut dense, dict, &scratch.idx, at)?;
                    }
                    other => {
                        // Decoded as without the test, then tested.
                        let mut values = scratch
                            .values
                            .take()
                            .unwrap_or_else(|| self.template.empty_like());
                        values.clear();
                        match other {
                            PageValues::Decoded { dense: src, pos } => {
                                extend_range(&mut values, src, *pos, non_null, at)?;
                                *pos += non_null;
                            }
                            PageValues::Delta { deltas, .. } => {
                                deltas.append(&mut values, non_null, at)?
                            }
                            PageValues::Lengths(l) => l.append(&mut values, non_null, at)?,
                            PageValues::None | PageValues::Plain { .. } | PageValues::Dict(_) => {}
                        }
                        tested::test_decoded(test, &values, &mut answers, &mut scratch.idx, at)?;
                        gather_dense(&mut dense, &values, &scratch.idx, at)?;
                        scratch.values = Some(values);
                    }
                }
                continue;
            }
            match &mut page.values {
                PageValues::None => {}
                PageValues::Dict(idx) => {
                    let ix = idx.take(non_null).map_err(|e| enc_err(at, e))?;
                    let dict = self.dict.as_mut();
                    append_indices(dict, keys_mode, &mut keys, &mut dense, ix, at)?;
                }
                other => {
                    let dict = self.dict.as_mut();
                    let take = || self.template.take_like(&self.pool, rows, self.last.2);
                    let pool = &self.pool;
                    leave_keys_mode(dict, &mut keys_mode, &mut keys, &mut dense, take, pool, at)?;
                    match other {
                        PageValues::Plain { data, pos } => {
                            take_plain(&mut dense, data, pos, non_null, at)?
                        }
                        PageValues::Decoded { dense: src, pos } => {
                            extend_range(&mut dense, src, *pos, non_null, at)?;
                            *pos += non_null;
                        }
                        PageValues::Delta { deltas, .. } => {
                            deltas.append(&mut dense, non_null, at)?
                        }
                        PageValues::Lengths(l) => l.append(&mut dense, non_null, at)?,
                        PageValues::None | PageValues::Dict(_) => {}
                    }
                }
            }
        };
        let gathered = Partial {
            def,
            rep,
            dense,
            keys,
            keys_mode,
            levels,
            rows_left,
            kept: cursor,
            tested,
            answers,
        };
        if let Some(range) = waiting {
            self.partial = Some(gathered);
            return Ok(Step::Pending(range));
        }
        self.finish_batch(gathered).map(Step::Ready)
    }

    /// The batch gathered in `done` as Arrow arrays.
    fn finish_batch(&mut self, done: Partial) -> Result<LeafData> {
        let Partial {
            def,
            rep,
            dense,
            keys,
            keys_mode,
            levels,
            tested,
            answers,
            ..
        } = done;
        self.last = (levels, dense.len(), dense.value_bytes());
        let at = &self.at;
        let pool = &self.pool;
        let max_def = self.max_def;
        let (def, nulls) = match def.shape() {
            LevelShape::AllMax => {
                let (bits, levels) = def.into_buffers();
                pool.put(bits.into_words());
                pool.put(levels);
                (None, None)
            }
            LevelShape::Bits => {
                let (bits, levels) = def.into_bits();
                pool.put(levels);
                let nulls = bits.map(|b| {
                    let len = b.len();
                    NullBuffer::new(BooleanBuffer::new(pool.buffer(b.into_words()), 0, len))
                });
                (None, nulls)
            }
            LevelShape::Levels => {
                let (levels, spare) = def.into_levels();
                pool.put(spare);
                let levels = levels.unwrap_or_default();
                let buf = if self.slot_def > 0 {
                    slot_validity(&levels, self.slot_def, max_def)
                } else {
                    level_validity(&levels, max_def)
                };
                (Some(levels), Some(NullBuffer::new(buf)))
            }
        };
        // The array's length: its slots.
        let levels = nulls.as_ref().map(|n| n.len()).unwrap_or(levels);
        let valid = nulls
            .as_ref()
            .map(|n| n.len() - n.null_count())
            .unwrap_or(levels);
        let dt = &self.dt;
        if tested {
            let matched = tested::row_answers(answers, nulls.as_ref(), levels, at)?;
            pool.put(def.unwrap_or_default());
            let n = dense.len();
            return Ok(LeafData {
                def: None,
                rep: None,
                array: to_arrow(dense, None, n, dt, at, pool)?,
                matched: Some(matched),
            });
        }
        let array = if let Some(key_type) = &self.key_type {
            if keys_mode && let Some(d) = self.dict.as_mut() {
                check_decoded(valid, keys.len(), at)?;
                let values = d.arrow_array(dt, at, pool)?;
                crate::convert::dictionary_array(key_type, keys, false, nulls, values, at, pool)?
            } else {
                check_decoded(valid, dense.len(), at)?;
                let plain = to_arrow(dense, nulls.clone(), levels, dt, at, pool)?;
                let n = u32::try_from(levels)
                    .map_err(|_| data_err(at, "too many values for a dictionary"))?;
                crate::convert::dictionary_array(
                    key_type,
                    (0..n).collect(),
                    true,
                    nulls,
                    plain,
                    at,
                    pool,
                )?
            }
        } else if keys_mode
            && !views::is_view(dt)
            && let Some(d) = self.dict.as_mut()
        {
            check_decoded(valid, keys.len(), at)?;
            gather_converted(d, keys, dense, nulls, levels, dt, at, pool)?
        } else if keys_mode && let Some(d) = self.dict.as_mut() {
            // View output of dictionary-encoded values.
            check_decoded(valid, keys.len(), at)?;
            let dict_views = match &mut d.views {
                Some(v) => v,
                empty => match views::DictViews::new(&d.dense, at)? {
                    Some(v) => empty.insert(v),
                    None => return Err(data_err(at, format!("{dt} of values not byte arrays"))),
                },
            };
            let a = dict_views.gather(dt, &keys, nulls, at, pool)?;
            pool.put(keys);
            a
        } else {
            if !matches!(dt, DataType::Null) {
                check_decoded(valid, dense.len(), at)?;
            }
            to_arrow(dense, nulls, levels, dt, at, pool)?
        };
        Ok(LeafData {
            def,
            rep: (self.max_rep > 0).then_some(rep),
            array,
            matched: None,
        })
    }

    /// Checks that the chunk holds no values past the rows read: called
    /// after the row group's last batch. `Step::Pending` when a page to
    /// check has not been pushed (call again once it is).
    pub(crate) fn finish(&mut self) -> Result<Step<()>> {
        // Rows passed over at the end of the last batch.
        if (self.lag > 0 || self.skip_left.is_some())
            && let Step::Pending(r) = self.skip(0)?
        {
            return Ok(Step::Pending(r));
        }
        if let Some(p) = &self.page
            && p.pos < p.len
        {
            return Err(data_err(
                &p.at,
                "the column chunk holds more values than the row group's rows",
            ));
        }
        if let Some(done) = self.page.take() {
            self.spare.keep(done);
        }
        loop {
            let page = match self.pages.poll_page().map_err(|e| self.pages_err(e))? {
                PageStep::Page(p) => p,
                PageStep::End => return Ok(Step::Ready(())),
                PageStep::Needs(r) => return Ok(Step::Pending(r)),
            };
            if let Page::Data(p) = page
                && p.num_values > 0
            {
                let at = self.at.clone().at_offset(p.file_offset).at_page(p.index);
                return Err(data_err(
                    &at,
                    "the column chunk holds more values than the row group's rows",
                ));
            }
        }
    }
}

/// A batch of dictionary keys of values converted per value (see
/// [`converted`]) as its array: the entries of the dictionary converted
/// once, when it is decoded and no larger than the batch (or already
/// converted); else, for a dictionary gathered from as it lies or one a
/// few keys would not repay converting, the physical values gathered and
/// converted.
#[allow(clippy::too_many_arguments)]
fn gather_converted(
    d: &mut Dict,
    keys: Vec<u32>,
    mut dense: Dense,
    nulls: Option<NullBuffer>,
    levels: usize,
    dt: &DataType,
    at: &Location,
    pool: &Pool,
) -> Result<ArrayRef> {
    let entries = d.dense.len();
    let convert_once =
        d.plain.is_none() && (d.array.is_some() || entries <= keys.len().max(native::SMALL_DICT));
    let array = if convert_once {
        converted::gather(&d.arrow_array(dt, at, pool)?, &keys, nulls, at, pool)?
    } else {
        gather_dict(&mut dense, d, &keys, at)?;
        to_arrow(dense, nulls, levels, dt, at, pool)?
    };
    pool.put(keys);
    Ok(array)
}

/// Checks that a page decoded as many values as its levels say are present.
fn check_decoded(expected: usize, decoded: usize, at: &Location) -> Result<()> {
    if expected != decoded {
        return Err(data_err(
            at,
            format!("{expected} non-null values expected from the levels, {decoded} decoded"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{
        KeptRows, RunCursor, kept_levels, kept_levels_by_runs, level_validity, page_record_levels,
        record_levels, slot_validity,
    };
    use arrow_buffer::BooleanBuffer;
    use pq_page::{CompactLevels, LevelForm};

    #[test]
    fn level_validity_is_set_where_defined() {
        for n in [0usize, 1, 63, 64, 65, 130] {
            let def: Vec<i16> = (0..n).map(|i| ((i * 7) % 3) as i16).collect();
            let v = level_validity(&def, 2);
            assert_eq!(v.len(), n);
            let want: Vec<bool> = def.iter().map(|&d| d == 2).collect();
            assert_eq!(v.iter().collect::<Vec<_>>(), want, "n = {n}");
        }
    }

    #[test]
    fn record_levels_stop_before_the_next_record() {
        // Records of 1 to 5 entries, over several 64-entry blocks.
        let mut rep = Vec::new();
        let mut starts = Vec::new();
        for i in 0..100 {
            starts.push(rep.len());
            rep.push(0i16);
            rep.extend(std::iter::repeat_n(1i16, i % 5));
        }
        for rows in [0, 1, 13, 50, 99, 100, 150] {
            let (taken, left) = record_levels(&rep, rows);
            let expected = starts.get(rows).copied().unwrap_or(rep.len());
            assert_eq!(taken, expected, "rows = {rows}");
            assert_eq!(left, rows.saturating_sub(100), "rows = {rows}");
        }
        // A page continuing a record: entries before its first start.
        assert_eq!(record_levels(&rep[1..], 0), (starts[1] - 1, 0));
    }

    proptest::proptest! {
        /// In a page without nulls, the kept rows' levels and value
        /// positions taken in one step are those of the walk run by run,
        /// for any kept rows (mostly kept, mostly dropped), any stretch of
        /// the batch the page holds and pages cut anywhere in it, and the
        /// cursor ends where the walk leaves it.
        #[test]
        fn kept_values_of_a_page_without_nulls_match_the_runs(
            keep in proptest::collection::vec(proptest::bool::weighted(0.9), 0..600),
            dense in proptest::bool::ANY,
            cuts in proptest::collection::vec(0usize..600, 0..4),
            page_start in 0usize..50,
            max in 0i16..3,
        ) {
            let keep: Vec<bool> = if dense { keep } else { keep.iter().map(|k| !k).collect() };
            let kept = KeptRows::new(BooleanBuffer::from(keep.clone()));
            let mut page = CompactLevels::new(LevelForm::Bits, max);
            page.push_repeat(max, page_start + keep.len());
            // The batch's rows in pieces, as pages (or a batch waiting for
            // the next page's bytes) cut it.
            let mut ends: Vec<usize> = cuts.iter().map(|&c| c.min(keep.len())).collect();
            ends.push(keep.len());
            ends.sort_unstable();
            let (mut fast, mut slow) = (RunCursor::default(), RunCursor::default());
            let mut start = 0;
            for end in ends {
                let rows = page_start + start..page_start + end;
                let (mut def_a, mut def_b) = (CompactLevels::new(LevelForm::Bits, max), CompactLevels::new(LevelForm::Bits, max));
                let (mut vals_a, mut vals_b) = (Vec::new(), Vec::new());
                let a = kept_levels(&page, rows.clone(), &kept, &mut fast, &mut def_a, &mut vals_a);
                let b = kept_levels_by_runs(&page, rows, &kept, &mut slow, &mut def_b, &mut vals_b);
                proptest::prop_assert_eq!(a, b);
                proptest::prop_assert_eq!(vals_a, vals_b);
                proptest::prop_assert_eq!(def_a.len(), def_b.len());
                proptest::prop_assert_eq!(def_a.count_max(0..def_a.len()), def_b.count_max(0..def_b.len()));
                proptest::prop_assert_eq!(fast.row(), slow.row());
                proptest::prop_assert_eq!(fast.run(&kept), slow.run(&kept));
                start = end;
            }
        }

        /// Counted over bits (one level of lists) or over `i16`s, the
        /// entries of a page's records are those of the plain count, from
        /// any entry and for any number of records.
        #[test]
        fn page_record_levels_match_record_levels(
            rep in proptest::collection::vec(proptest::prop_oneof![3 => proptest::strategy::Just(1i16), 1 => proptest::strategy::Just(0i16)], 0..400),
            from in 0usize..400,
            to in 0usize..400,
            rows in 0usize..120,
        ) {
            let end = to.min(rep.len());
            let start = from.min(end);
            let want = record_levels(&rep[start..end], rows);
            for form in [LevelForm::Bits, LevelForm::Levels] {
                let mut page = CompactLevels::new(form, 1);
                page.push_levels(&rep);
                proptest::prop_assert_eq!(page_record_levels(&page, start..end, rows), want, "{:?}", form);
            }
        }
    }

    /// The slots' validity, an entry at a time.
    fn slots_one_at_a_time(def: &[i16], slot_def: i16, max_def: i16) -> Vec<bool> {
        def.iter()
            .filter(|&&d| d >= slot_def)
            .map(|&d| d == max_def)
            .collect()
    }

    #[test]
    fn slot_validity_packs_the_slots_only() {
        // Lengths around the 64-bit word edges, skipped entries anywhere.
        for n in [0usize, 1, 63, 64, 65, 130, 300] {
            let def: Vec<i16> = (0..n).map(|i| ((i * 7 + i / 5) % 4) as i16).collect();
            let (slot_def, max_def) = (1, 3);
            let expected = slots_one_at_a_time(&def, slot_def, max_def);
            let got = slot_validity(&def, slot_def, max_def);
            assert_eq!(got.len(), expected.len(), "n = {n}");
            assert_eq!(got.iter().collect::<Vec<_>>(), expected, "n = {n}");
        }
    }

    #[test]
    fn slot_validity_matches_an_entry_at_a_time_on_random_levels() {
        let mut rng = pq_testkit::Rng(0x05ee_d0f5_1075);
        for case in 0..300 {
            let n = rng.index(700);
            // No entry without a slot, a few, or many.
            let skip = [0, 2, 40][case % 3];
            let (slot_def, max_def) = (1i16, 3i16);
            let def: Vec<i16> = (0..n)
                .map(|_| {
                    if rng.chance(skip) {
                        0
                    } else {
                        1 + rng.index(3) as i16
                    }
                })
                .collect();
            let expected = slots_one_at_a_time(&def, slot_def, max_def);
            let got = slot_validity(&def, slot_def, max_def);
            assert_eq!(got.iter().collect::<Vec<_>>(), expected, "case {case}");
            // Bits past the length are clear (Arrow compares buffers whole).
            let words = got.inner().typed_data::<u64>();
            if !got.len().is_multiple_of(64) {
                let last = words.last().copied().unwrap_or(0);
                assert_eq!(last >> (got.len() % 64), 0, "case {case}");
            }
            assert_eq!(words.len(), got.len().div_ceil(64), "case {case}");
        }
    }
}
