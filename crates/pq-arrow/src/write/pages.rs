//! Page assembly of a column chunk: the levels of the page being built,
//! and the framing (levels, values, header, compression, checksum) of each
//! finished page, with the counts and encodings the chunk's metadata needs.

use std::sync::{Arc, Mutex};

use pq_format::{Encoding, PageEncodingStats, PageType};
use pq_page::{DataPageV1Parts, DataPageV2Parts, PageWriteError, PageWriter, bit_width};

use crate::write::levels::LeafLevels;
use pq_encoding::rle;

/// The levels and counts of the page being built.
#[derive(Debug, Default)]
pub(crate) struct PageLevels {
    def: Vec<i16>,
    rep: Vec<i16>,
    /// Levels (values and nulls) in the page.
    pub levels: usize,
    /// Rows that start in the page.
    pub rows: usize,
    pub nulls: u64,
    /// Non-null values.
    pub values: u64,
}

impl PageLevels {
    /// Adds the levels `a..b` of `leaf`, `values` of them non-null.
    pub(crate) fn add(&mut self, leaf: &LeafLevels, a: usize, b: usize, values: usize) {
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
        self.levels += b - a;
        self.rows += rows;
        self.nulls += (b - a - values) as u64;
        self.values += values as u64;
    }

    fn clear(&mut self) {
        *self = Self {
            def: std::mem::take(&mut self.def),
            rep: std::mem::take(&mut self.rep),
            ..Default::default()
        };
        self.def.clear();
        self.rep.clear();
    }
}

/// The page buffers of the row group written last, for the pages of the
/// next one. A writer makes each row group's column writers anew; left to
/// the allocator, the buffers of a written row group went back to the
/// system (glibc trims the freed top of its heap) and the next row group
/// faulted its pages in again: with DuckDB's 122 880-row groups, about
/// 400 MB more a write of its PLAIN lineitem file than arrow-rs, whose
/// faults were the output's alone (see BENCHMARKS.md).
#[derive(Debug, Clone, Default)]
pub(crate) struct SpareBuffers(Arc<Mutex<Vec<Vec<u8>>>>);

impl SpareBuffers {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Vec<u8>>> {
        // A list of empty buffers stays valid whatever panicked.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// An empty buffer with room for `len` bytes: a spare one with at
    /// most twice that room (a buffered row group holds about its pages'
    /// bytes, not far more), the least such, or a new one.
    pub(crate) fn take(&self, len: usize) -> Vec<u8> {
        let most = len.saturating_mul(2).max(4096);
        let mut spare = self.lock();
        let best = spare
            .iter()
            .enumerate()
            .filter(|(_, b)| (len..=most).contains(&b.capacity()))
            .min_by_key(|(_, b)| b.capacity())
            .map(|(i, _)| i);
        match best {
            Some(i) => {
                let mut b = spare.swap_remove(i);
                b.clear();
                b
            }
            None => Vec::with_capacity(len),
        }
    }

    /// Keeps `buffers` (a written row group's pages) as the spare ones,
    /// in place of those the row group before left untaken: at most one
    /// row group's buffers are kept. Buffers without room past their bytes
    /// are freed instead: a compressed page shrunk to its bytes
    /// (`store_compressed`) is smaller than any later page's request, and
    /// kept, such pages held a whole row group more of peak memory (ZSTD
    /// with 1 Mi-row groups: 113 MB against 79).
    pub(crate) fn replace(&self, mut buffers: Vec<Vec<u8>>) {
        buffers.retain(|b| b.capacity() > b.len());
        // The untaken ones are freed once the lock is let go.
        let _untaken = std::mem::replace(&mut *self.lock(), buffers);
    }
}

/// Where a data page went.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WrittenPage {
    /// Offset of its header from the first data page.
    pub offset: usize,
    /// Bytes, header included.
    pub len: usize,
    /// Index of its first row in the chunk.
    pub first_row: u64,
}

/// The written pages of a column chunk.
#[derive(Debug)]
pub(crate) struct PageAssembler {
    writer: PageWriter,
    v2: bool,
    max_def: i16,
    max_rep: i16,
    // Scratch of one page.
    rep_buf: Vec<u8>,
    def_buf: Vec<u8>,
    body: Vec<u8>,
    /// One buffer per page (two for an uncompressed one, see
    /// `store_as_given`). Page-sized buffers are recycled across row
    /// groups by [`SpareBuffers`]; one buffer growing to the chunk's size
    /// would be fresh memory (page faults) for every chunk.
    data: Vec<Vec<u8>>,
    data_len: usize,
    /// Where page buffers come from.
    spare: SpareBuffers,
    /// Rows, levels and nulls of the pages written.
    pub rows: u64,
    pub num_values: u64,
    pub nulls: u64,
    /// Header and uncompressed body bytes of every page written.
    pub uncompressed: u64,
    encodings: Vec<Encoding>,
    encoding_stats: Vec<PageEncodingStats>,
}

impl PageAssembler {
    pub(crate) fn new(
        writer: PageWriter,
        v2: bool,
        max_def: i16,
        max_rep: i16,
        spare: SpareBuffers,
    ) -> Self {
        Self {
            writer,
            v2,
            max_def,
            max_rep,
            rep_buf: Vec::new(),
            def_buf: Vec::new(),
            body: Vec::new(),
            data: Vec::new(),
            data_len: 0,
            spare,
            rows: 0,
            num_values: 0,
            nulls: 0,
            uncompressed: 0,
            encodings: Vec::new(),
            encoding_stats: Vec::new(),
        }
    }

    /// Bytes of the data pages written.
    pub(crate) fn data_len(&self) -> usize {
        self.data_len
    }

    /// About the bytes the levels of `levels` encode to.
    pub(crate) fn levels_size(&self, levels: &PageLevels) -> usize {
        (levels.levels * (bit_width(self.max_def) + bit_width(self.max_rep)) as usize) / 8
    }

    fn encode_levels(&mut self, page: &PageLevels) {
        self.rep_buf.clear();
        self.def_buf.clear();
        for (levels, max, out) in [
            (&page.rep, self.max_rep, &mut self.rep_buf),
            (&page.def, self.max_def, &mut self.def_buf),
        ] {
            if max == 0 {
                continue;
            }
            if self.v2 {
                rle::encode(levels, bit_width(max), out);
            } else {
                rle::encode_length_prefixed(levels, bit_width(max), out);
            }
        }
    }

    /// Writes a data page of `page`'s levels and the values `values`
    /// encodes (returning their encoding), and starts the next page.
    pub(crate) fn write_data_page<E>(
        &mut self,
        page: &mut PageLevels,
        values: impl FnOnce(&mut Vec<u8>) -> Result<Encoding, E>,
    ) -> Result<WrittenPage, PageError<E>> {
        self.encode_levels(page);
        self.body.clear();
        let encoding = values(&mut self.body).map_err(PageError::Values)?;
        let offset = self.data_len;
        let written = if self.writer.stores_as_given() {
            self.store_as_given(page, encoding)
        } else {
            self.store_compressed(page, encoding)
        }
        .map_err(PageError::Page)?;
        self.uncompressed += (written.header_len + written.uncompressed_body_len) as u64;
        let page_type = if self.v2 {
            PageType::DATA_PAGE_V2
        } else {
            PageType::DATA_PAGE
        };
        self.note_encoding(page_type, encoding);
        let done = WrittenPage {
            offset,
            len: written.total_len,
            first_row: self.rows,
        };
        self.rows += page.rows as u64;
        self.num_values += page.levels as u64;
        self.nulls += page.nulls;
        page.clear();
        Ok(done)
    }

    /// An uncompressed page: its header and levels in a buffer of their
    /// own, then the values' buffer itself, moved rather than copied (a
    /// fresh one, about as large, takes its place for the next page's
    /// values).
    fn store_as_given(
        &mut self,
        page: &PageLevels,
        encoding: Encoding,
    ) -> Result<pq_page::WrittenPage, PageWriteError> {
        // A body filling less than three quarters of its buffer (dictionary
        // indices, a short last page) is copied after the levels instead:
        // a buffered row group holds about its pages' bytes, not their
        // buffers' room.
        let (body_len, room) = (self.body.len(), self.body.capacity());
        let moved = body_len >= room / 4 * 3;
        let head_room = self.rep_buf.len() + self.def_buf.len() + 64;
        let mut head = self.spare.take(if moved {
            head_room
        } else {
            head_room + body_len
        });
        let written = self.write_parts(page, encoding, &mut head, Stored::HeaderOnly)?;
        head.extend_from_slice(&self.rep_buf);
        head.extend_from_slice(&self.def_buf);
        if moved {
            // The next page's values are about as many: an eighth more
            // room, so that they seldom outgrow the buffer (doubling it).
            let next = self.spare.take(body_len + body_len / 8);
            let body = std::mem::replace(&mut self.body, next);
            self.data_len += head.len() + body.len();
            self.data.push(head);
            self.data.push(body);
        } else {
            head.extend_from_slice(&self.body);
            self.data_len += head.len();
            self.data.push(head);
        }
        Ok(written)
    }

    /// A compressed page, in one buffer.
    fn store_compressed(
        &mut self,
        page: &PageLevels,
        encoding: Encoding,
    ) -> Result<pq_page::WrittenPage, PageWriteError> {
        // Room for the header and levels, and the body (compressed, it is
        // usually smaller; it may grow past this otherwise).
        let mut out = self
            .spare
            .take(self.body.len() + self.rep_buf.len() + self.def_buf.len() + 64);
        let written = self.write_parts(page, encoding, &mut out, Stored::Whole)?;
        // A compressed page can be far smaller than its room: give the rest
        // back (in place, no copy) so that a buffered row group holds about
        // its compressed size.
        if out.len() < out.capacity() / 4 * 3 {
            out.shrink_to_fit();
        }
        self.data_len += out.len();
        self.data.push(out);
        Ok(written)
    }

    /// Writes the page of `page`'s levels (encoded in `rep_buf` and
    /// `def_buf`) and the values in `body` to `out`, as a v1 or v2 page:
    /// whole, or its header alone.
    fn write_parts(
        &mut self,
        page: &PageLevels,
        encoding: Encoding,
        out: &mut Vec<u8>,
        stored: Stored,
    ) -> Result<pq_page::WrittenPage, PageWriteError> {
        let (rep_levels, def_levels, values) = (&self.rep_buf, &self.def_buf, &self.body);
        if self.v2 {
            let parts = DataPageV2Parts {
                rep_levels,
                def_levels,
                values,
                num_values: page.levels,
                num_nulls: page.nulls as usize,
                num_rows: page.rows,
                encoding,
                statistics: None,
            };
            match stored {
                Stored::Whole => self.writer.write_data_v2(&parts, out),
                Stored::HeaderOnly => self.writer.write_data_v2_header(&parts, out),
            }
        } else {
            let parts = DataPageV1Parts {
                rep_levels,
                def_levels,
                values,
                num_values: page.levels,
                encoding,
            };
            match stored {
                Stored::Whole => self.writer.write_data_v1(&parts, out),
                Stored::HeaderOnly => self.writer.write_data_v1_header(&parts, out),
            }
        }
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

    /// Whether a data page is dictionary-encoded (so the dictionary page
    /// must be written).
    pub(crate) fn used_dictionary(&self) -> bool {
        self.encoding_stats
            .iter()
            .any(|s| s.encoding == Encoding::RLE_DICTIONARY)
    }

    /// Writes the dictionary page of `entries` entries, to go before the
    /// data pages; returns it and its length.
    pub(crate) fn write_dictionary(
        &mut self,
        body: &[u8],
        entries: usize,
    ) -> Result<(Vec<u8>, usize), PageWriteError> {
        let mut bytes = Vec::new();
        let written = self.writer.write_dictionary(body, entries, &mut bytes)?;
        self.uncompressed += (written.header_len + written.uncompressed_body_len) as u64;
        Ok((bytes, written.total_len))
    }

    /// The chunk's encodings and per-page-type encoding counts, with or
    /// without a dictionary page: the dictionary's PLAIN first, then RLE
    /// when there are levels, then the data pages' in order of appearance.
    pub(crate) fn encodings(&self, dictionary: bool) -> (Vec<Encoding>, Vec<PageEncodingStats>) {
        let mut encodings = Vec::new();
        let mut encoding_stats = Vec::new();
        if dictionary {
            encodings.push(Encoding::PLAIN);
            encoding_stats.push(PageEncodingStats {
                page_type: PageType::DICTIONARY_PAGE,
                encoding: Encoding::PLAIN,
                count: 1,
            });
        }
        if self.max_def > 0 || self.max_rep > 0 {
            encodings.push(Encoding::RLE);
        }
        for e in &self.encodings {
            if !encodings.contains(e) {
                encodings.push(*e);
            }
        }
        encoding_stats.extend(self.encoding_stats.iter().cloned());
        (encodings, encoding_stats)
    }

    /// The data pages, in order, as pieces to store one after another (an
    /// uncompressed page is two: header and levels, then values).
    pub(crate) fn take_pages(&mut self) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.data)
    }
}

/// What [`PageAssembler::write_parts`] writes of a page.
#[derive(Debug, Clone, Copy)]
enum Stored {
    /// Header, levels and values (compressed when the chunk is).
    Whole,
    /// The header alone, the parts to be stored after it as they are.
    HeaderOnly,
}

/// Why a data page could not be written.
#[derive(Debug)]
pub(crate) enum PageError<E> {
    /// Encoding the values failed.
    Values(E),
    /// Framing or compressing the page failed.
    Page(PageWriteError),
}

#[cfg(test)]
mod tests {
    use super::SpareBuffers;

    fn with_room(room: usize) -> Vec<u8> {
        let mut b = Vec::with_capacity(room);
        b.extend(std::iter::repeat_n(7u8, room / 2));
        b
    }

    /// A spare buffer is handed out empty, the least one with room enough
    /// and at most twice the room asked for; otherwise a new one.
    #[test]
    fn takes_the_least_spare_buffer_that_fits() {
        let spare = SpareBuffers::default();
        spare.replace(vec![
            with_room(100_000),
            with_room(30_000),
            with_room(20_000),
        ]);
        let b = spare.take(15_000);
        assert!(b.is_empty());
        assert!((20_000..30_000).contains(&b.capacity()), "{}", b.capacity());
        // Too much room for 40 000 bytes' worth? No: 100 000 is more than twice.
        let b = spare.take(40_000);
        assert!(
            (40_000..100_000).contains(&b.capacity()),
            "{}",
            b.capacity()
        );
        assert_eq!(spare.lock().len(), 2);
        // Nothing spare fits: a new buffer.
        let b = spare.take(500_000);
        assert!(b.capacity() >= 500_000);
        assert_eq!(spare.lock().len(), 2);
    }

    /// The buffers a row group left untaken go when the next row group's
    /// pages come, so that at most one row group's buffers are kept.
    #[test]
    fn keeps_one_row_groups_buffers() {
        let spare = SpareBuffers::default();
        spare.replace((0..5).map(|_| with_room(1000)).collect());
        let _ = spare.take(1000);
        spare.replace((0..3).map(|_| with_room(2000)).collect());
        let rooms: Vec<usize> = spare.lock().iter().map(Vec::capacity).collect();
        assert_eq!(rooms.len(), 3);
        assert!(
            rooms.iter().all(|&r| (2000..4000).contains(&r)),
            "{rooms:?}"
        );
    }

    /// A buffer its bytes fill (a compressed page shrunk to them) is not
    /// kept: no later page's request would take it.
    #[test]
    fn full_buffers_are_not_kept() {
        let spare = SpareBuffers::default();
        let mut shrunk = with_room(1000);
        shrunk.shrink_to_fit();
        spare.replace(vec![shrunk, with_room(1000)]);
        let kept: Vec<usize> = spare.lock().iter().map(Vec::len).collect();
        assert_eq!(kept, [500]);
    }

    /// A writer's files are the same with buffers handed from one row
    /// group to the next as without: every row group's pages are read
    /// back as written.
    #[test]
    fn row_groups_written_on_spare_buffers_read_back() {
        use std::sync::Arc;

        use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};

        use crate::write::{Codec, ParquetWriter, WriterOptions};

        let n = 10_000i64;
        let ids: ArrayRef = Arc::new(Int64Array::from_iter(
            (0..n).map(|i| (i % 7 != 0).then_some(i * 3)),
        ));
        let names: ArrayRef = Arc::new(StringArray::from_iter_values(
            (0..n).map(|i| format!("row {i} {}", "x".repeat((i % 13) as usize))),
        ));
        let batch = RecordBatch::try_from_iter([("id", ids), ("name", names)]).unwrap();
        for codec in [Codec::Uncompressed, Codec::Snappy] {
            let options = WriterOptions::builder()
                .set_compression(codec)
                .set_dictionary_enabled(false)
                .set_max_row_group_size(1000)
                .set_data_page_row_count_limit(300)
                .build();
            let mut w = ParquetWriter::try_new(Vec::new(), batch.schema(), options).unwrap();
            w.write(&batch).unwrap();
            let (bytes, _) = w.close_into_inner().unwrap();
            let reader = crate::ParquetReader::from_bytes(bytes::Bytes::from(bytes))
                .unwrap()
                .with_batch_size(10_000)
                .build()
                .unwrap();
            let mut at = 0;
            for read in reader {
                let read = read.unwrap();
                let want = batch.slice(at, read.num_rows());
                assert_eq!(read.columns(), want.columns(), "{codec:?} at row {at}");
                at += read.num_rows();
            }
            assert_eq!(at, batch.num_rows());
        }
    }
}
