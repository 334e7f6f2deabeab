//! `pq pages`: every page of every column chunk.
//!
//! A chunk is read a window at a time ([`ChunkWindow`]), not whole: the
//! memory a listing takes is bounded by the window and the largest page,
//! however large the chunks, and a remote file is still read in few
//! requests.

use std::io::{Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::Path;

use bytes::Bytes;
use pq_format::{Limits, PageHeader, PageType, ThriftDecode};
use pq_page::{ChunkContext, Page, PageOptions, PageReader, PageStep, column_chunk_range};

use crate::error::CliError;
use crate::input;
use crate::values::name;

/// Prints one line per page; only `column`'s chunks when given.
pub fn run(path: &Path, column: Option<&str>, out: &mut impl Write) -> Result<(), CliError> {
    let (mut file, meta) = input::metadata(path)?;
    let file_len = file.len();
    if let Some(wanted) = column
        && !meta
            .schema
            .columns()
            .iter()
            .any(|c| c.path_string() == wanted)
    {
        let known: Vec<String> = meta
            .schema
            .columns()
            .iter()
            .map(|c| c.path_string())
            .collect();
        return Err(CliError::file(
            path,
            format!("no column '{wanted}'; columns are: {}", known.join(", ")),
        ));
    }
    writeln!(
        out,
        "{:<3} {:<6} {:<5} {:<16} {:<24} {:>10} {:>12} {:>8} {:>7} {:<18} {:<3}",
        "rg",
        "column",
        "page",
        "type",
        "encoding",
        "compressed",
        "uncompressed",
        "values",
        "nulls",
        "levels (rep/def)",
        "crc"
    )?;
    // The reader's limits: a page the reader decodes is listed too.
    let options = PageOptions::any_declared_size();
    for (rg_index, rg) in meta.file.row_groups.iter().enumerate() {
        for (col_index, chunk) in rg.columns.iter().enumerate() {
            let Some(desc) = meta.schema.column(col_index) else {
                continue;
            };
            let path_string = desc.path_string();
            if column.is_some_and(|c| c != path_string) {
                continue;
            }
            let Some(cmd) = &chunk.meta_data else {
                continue;
            };
            let at = |e: &dyn std::fmt::Display| {
                CliError::file(
                    path,
                    format!("row group {rg_index}, column '{path_string}': {e}"),
                )
            };
            // A page layer error names the column itself: it gains the row
            // group rather than a second copy of the column.
            let chunk_at = pq_page::Location::chunk(rg_index, path_string.clone());
            let page_at = |e: pq_page::Error| CliError::file(path, e.within(&chunk_at));
            let range = column_chunk_range(cmd, file_len, meta.file.created_by.as_deref())
                .map_err(page_at)?;
            let mut window = ChunkWindow::new(&mut file, range.clone());
            let fail = |f: Failed| match f {
                Failed::Page(e) => page_at(e),
                Failed::Io(e) => at(&e),
            };

            // Null counts come from decoding the levels of each data page,
            // which the page layer reads (and checks) in step with the
            // headers listed here, from the same windows.
            let ctx = ChunkContext {
                codec: pq_compress::Codec::from_thrift(cmd.codec.0).map_err(|e| at(&e))?,
                num_values: u64::try_from(cmd.num_values).unwrap_or(0),
                max_def_level: desc.max_def_level,
                max_rep_level: desc.max_rep_level,
                file_offset: range.start,
                column: path_string.clone(),
            };
            let mut pages = PageReader::streaming(range.end - range.start, ctx, &options)
                .releasing_read_bytes(true);
            let mut levels = Vec::new();

            let mut pos = range.start;
            let mut page_index = 0usize;
            let mut values = 0i64;
            while pos < range.end && values < cmd.num_values {
                let (h, len) = match window.header(pos) {
                    Ok(found) => found,
                    // The page layer reads the same header: its error names
                    // the page and its offset.
                    Err(e) => {
                        while next_page(&mut pages, &mut window).map_err(fail)?.is_some() {}
                        return Err(at(&format!("page {page_index}, file offset {pos}: {e}")));
                    }
                };
                let body = u64::try_from(h.compressed_page_size).unwrap_or(0);
                let (encoding, count, levels_desc) = describe(&h);
                let null_text = match h.type_ {
                    PageType::DATA_PAGE | PageType::DATA_PAGE_V2 => {
                        values += i64::from(count);
                        // The page layer's next data page is this one (it
                        // passes over the same pages).
                        let data = loop {
                            match next_page(&mut pages, &mut window).map_err(fail)? {
                                Some(Page::Data(p)) => break Some(p),
                                Some(Page::Dictionary(_)) => {}
                                None => break None,
                            }
                        };
                        match data {
                            Some(p) => {
                                levels.clear();
                                p.def_levels.decode_into(&mut levels).map_err(|e| at(&e))?;
                                let max = desc.max_def_level;
                                levels.iter().filter(|&&l| l < max).count().to_string()
                            }
                            None => String::new(),
                        }
                    }
                    _ => "-".into(),
                };
                writeln!(
                    out,
                    "{:<3} {:<6} {:<5} {:<16} {:<24} {:>10} {:>12} {:>8} {:>7} {:<18} {:<3}",
                    rg_index,
                    col_index,
                    page_index,
                    name(h.type_),
                    encoding,
                    h.compressed_page_size,
                    h.uncompressed_page_size,
                    count,
                    null_text,
                    levels_desc,
                    if h.crc.is_some() { "yes" } else { "no" }
                )?;
                pos = pos.saturating_add(len as u64).saturating_add(body);
                page_index += 1;
            }
            // To the chunk's end in the page layer too, which checks that
            // its pages hold the values the chunk declares.
            while next_page(&mut pages, &mut window).map_err(fail)?.is_some() {}
        }
    }
    Ok(())
}

/// The value encoding, the value count and the level encodings of a page.
fn describe(h: &PageHeader) -> (String, i32, String) {
    if let Some(d) = &h.data_page_header {
        (
            name(d.encoding),
            d.num_values,
            format!(
                "{}/{}",
                name(d.repetition_level_encoding),
                name(d.definition_level_encoding)
            ),
        )
    } else if let Some(d) = &h.data_page_header_v2 {
        (name(d.encoding), d.num_values, "RLE/RLE (v2)".into())
    } else if let Some(d) = &h.dictionary_page_header {
        (name(d.encoding), d.num_values, "-".into())
    } else {
        ("-".into(), 0, "-".into())
    }
}

/// What stopped [`next_page`].
enum Failed {
    /// The page layer's error.
    Page(pq_page::Error),
    /// Reading the file.
    Io(std::io::Error),
}

/// The page layer's next page (`None` after the chunk's last), its bytes
/// given from `window`.
fn next_page(pages: &mut PageReader, window: &mut ChunkWindow<'_>) -> Result<Option<Page>, Failed> {
    // What was last given: asked again for no more than that, the page
    // layer would wait for ever.
    let mut given: Option<(u64, usize)> = None;
    loop {
        match pages.poll_page().map_err(Failed::Page)? {
            PageStep::Page(page) => return Ok(Some(page)),
            PageStep::End => return Ok(None),
            PageStep::Needs(r) => {
                let held = window
                    .bytes_from(r.start, r.end.saturating_sub(r.start))
                    .map_err(Failed::Io)?;
                if given.is_some_and(|(at, len)| at == r.start && held.len() <= len) {
                    return Err(Failed::Io(std::io::Error::other(format!(
                        "bytes {}..{} asked for again past the column chunk's end",
                        r.start, r.end
                    ))));
                }
                given = Some((r.start, held.len()));
                pages.push(r.start, held);
            }
        }
    }
}

/// Bytes read from a file at least this many at a time (fewer at a chunk's
/// end): few reads (and few requests, for a remote file) without holding a
/// large chunk whole.
const WINDOW: u64 = 8 << 20;

/// A page header's bytes are first looked for in this many; a longer one
/// (large statistics) is read again with twice as many, and so on.
const HEADER_PROBE: u64 = 64 << 10;

/// The bytes of one column chunk, held one window at a time: a window
/// starts at a page's first byte, holds at least [`WINDOW`] bytes (or the
/// rest of the chunk) and is replaced when a page reaches past it. A file
/// held in memory is sliced, never copied.
struct ChunkWindow<'a> {
    input: &'a mut crate::input::Input,
    /// The chunk's bytes in the file: nothing outside is read.
    chunk: Range<u64>,
    /// The file offset of `held`'s first byte.
    start: u64,
    held: Bytes,
}

impl<'a> ChunkWindow<'a> {
    fn new(input: &'a mut crate::input::Input, chunk: Range<u64>) -> Self {
        ChunkWindow {
            input,
            start: chunk.start,
            chunk,
            held: Bytes::new(),
        }
    }

    /// The bytes held from file offset `from` on, at least `len` of them
    /// (fewer only where the chunk ends): read anew when they are not all
    /// held.
    fn bytes_from(&mut self, from: u64, len: u64) -> std::io::Result<Bytes> {
        let end = from.saturating_add(len).min(self.chunk.end);
        let held_end = self.start.saturating_add(self.held.len() as u64);
        if from < self.start || end > held_end || from > self.chunk.end {
            let read_end = from.saturating_add(len.max(WINDOW)).min(self.chunk.end);
            let n = usize::try_from(read_end.saturating_sub(from))
                .map_err(|_| std::io::Error::other("a window larger than memory"))?;
            self.held = match self.input.memory() {
                Some(file) => usize::try_from(from)
                    .ok()
                    .and_then(|at| file.get(at..at.checked_add(n)?))
                    .map(|b| file.slice_ref(b))
                    .ok_or_else(|| std::io::Error::other("past the end of the input"))?,
                None => {
                    let mut buf = vec![0u8; n];
                    self.input.seek(SeekFrom::Start(from))?;
                    self.input.read_exact(&mut buf)?;
                    Bytes::from(buf)
                }
            };
            self.start = from;
        }
        let at = usize::try_from(from - self.start).unwrap_or(usize::MAX);
        Ok(self.held.slice(at.min(self.held.len())..))
    }

    /// The page header at file offset `at` and its length in bytes.
    fn header(&mut self, at: u64) -> Result<(PageHeader, usize), String> {
        let mut want = HEADER_PROBE;
        loop {
            let held = self.bytes_from(at, want).map_err(|e| e.to_string())?;
            match PageHeader::decode_prefix(&held, &Limits::default()) {
                Ok(found) => return Ok(found),
                // Cut off, perhaps: more bytes, up to the chunk's end.
                Err(_) if at.saturating_add(held.len() as u64) < self.chunk.end => {
                    want = want.saturating_mul(2);
                }
                Err(e) => return Err(e.to_string()),
            }
        }
    }
}
