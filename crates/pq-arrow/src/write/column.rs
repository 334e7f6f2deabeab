//! The writer of one column chunk: slices of levels and values go in
//! mini-batches to the page being built, which is written when it reaches
//! its limits (or when the dictionary falls back), and the chunk is
//! assembled at the end.
//!
//! The parts: the typed values and bounds (`typed.rs`, over the value
//! encoder of `encoder.rs` and the bounds of `stats.rs`), the page's levels
//! and the written pages (`pages.rs`), and the page index (`page_index.rs`).

use pq_format::{ColumnIndex, ColumnMetaData, CompressionCodec, OffsetIndex, Statistics};
use pq_page::{PageWriteError, PageWriter};

use crate::error::{Error, Location, Result, write_err};
use crate::write::encoder::MINI_BATCH;
use crate::write::levels::LeafLevels;
use crate::write::options::{DataPageVersion, ResolvedColumn, WriterOptions};
use crate::write::page_index::{IndexedPage, PageIndexBuilder};
use crate::write::pages::{PageAssembler, PageError, PageLevels, SpareBuffers};
use crate::write::phys::{Scratch, phys};
use crate::write::schema::Leaf;
use crate::write::stats::truncate_bounds;
use crate::write::typed::{ColumnValues, Picked, column_values};

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
    /// The Bloom filter (header and bitset), when one is written.
    pub bloom: Option<Vec<u8>>,
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

/// Values that cannot be encoded (a byte array of 2 GiB or more).
fn encode_err(at: &Location, e: pq_encoding::Error) -> Error {
    write_err(at, format!("cannot encode the values of a page: {e}"))
}

/// The limits of a column's pages and dictionary.
#[derive(Debug, Clone, Copy)]
struct Limits {
    /// Target bytes of a data page (before compression).
    page_bytes: usize,
    page_rows: usize,
    dict_bytes: usize,
    dict_entries: usize,
    /// Longest binary bound in the chunk's statistics.
    truncate_statistics: Option<usize>,
}

/// Writes the pages of one leaf column in one row group.
#[derive(Debug)]
pub(crate) struct ColumnChunkWriter {
    leaf: Leaf,
    at: Location,
    opts: ResolvedColumn,
    limits: Limits,
    /// The typed part: value encoder and bounds.
    values: Box<dyn ColumnValues>,
    /// Levels and counts of the page being built.
    page: PageLevels,
    pages: PageAssembler,
    index: PageIndexBuilder,
    /// Converted values of the slice being written (see [`phys`]), kept
    /// from one slice to the next.
    conv: Scratch,
}

impl ColumnChunkWriter {
    /// The writer of `leaf`'s chunk; fails when the column's encoding does
    /// not fit its type or is a Preview encoding `options` do not allow.
    pub(crate) fn new(
        leaf: &Leaf,
        opts: ResolvedColumn,
        options: &WriterOptions,
        spare: SpareBuffers,
    ) -> Result<Self> {
        let values = column_values(leaf, &opts, options)?;
        let writer = PageWriter::new(opts.codec, opts.level, options.page_checksums);
        let v2 = options.data_page_version == DataPageVersion::V2;
        Ok(Self {
            leaf: leaf.clone(),
            at: Location::column(leaf.path.join(".")),
            opts,
            limits: Limits {
                page_bytes: options.data_page_size,
                page_rows: options.data_page_rows,
                dict_bytes: options.dictionary_page_size_limit,
                dict_entries: options.dictionary_max_entries,
                truncate_statistics: options.statistics_truncate_length,
            },
            values,
            page: PageLevels::default(),
            pages: PageAssembler::new(writer, v2, leaf.max_def_level, leaf.max_rep_level, spare),
            index: PageIndexBuilder::new(
                options.page_index,
                leaf.sort,
                options.column_index_truncate_length,
            ),
            conv: Scratch::default(),
        })
    }

    /// Bytes buffered so far (pages written, the page being built and the
    /// dictionary).
    pub(crate) fn buffered_bytes(&self) -> usize {
        self.pages.data_len() + self.page_estimate() + self.values.dict_size()
    }

    fn page_estimate(&self) -> usize {
        self.pages.levels_size(&self.page) + self.values.page_size()
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
        let path = self.at.column.clone().unwrap_or_default();
        let phys = phys(leaf.array.as_ref(), &path, conv)?;
        let n = leaf.num_levels;
        let max_def = self.leaf.max_def_level;
        let (mut a, mut va) = (0, 0);
        while a < n {
            // A mini-batch ends where the page's row limit does, so that
            // pages hold the rows asked for even below a mini-batch.
            let room = self.limits.page_rows.saturating_sub(self.page.rows).max(1);
            let mut b = (a + MINI_BATCH.min(room)).min(n);
            if let Some(rep) = &leaf.rep {
                while b < n && rep[b] != 0 {
                    b += 1;
                }
            }
            let nv = match &leaf.def {
                Some(d) => d[a..b].iter().filter(|&&x| x == max_def).count(),
                None => b - a,
            };
            self.page.add(leaf, a, b, nv);
            if nv > 0 {
                let picked = Picked {
                    sel: &leaf.selection,
                    from: va,
                    to: va + nv,
                };
                self.values
                    .put(&phys, picked)
                    .map_err(|message| write_err(&self.at, message))?;
            }
            va += nv;
            a = b;
            self.check_limits()?;
        }
        Ok(())
    }

    fn check_limits(&mut self) -> Result<()> {
        let l = self.limits;
        if self.values.dict_falls_back(l.dict_bytes, l.dict_entries) {
            self.flush_page()?;
            self.values.fall_back();
            return Ok(());
        }
        if self.page_estimate() >= l.page_bytes || self.page.rows >= l.page_rows {
            self.flush_page()?;
        }
        Ok(())
    }

    fn flush_page(&mut self) -> Result<()> {
        if self.page.levels == 0 {
            return Ok(());
        }
        let (null_count, values) = (self.page.nulls, self.page.values);
        let mut bounds = None;
        let column_values = &mut self.values;
        let written = self
            .pages
            .write_data_page(&mut self.page, |body| {
                let (encoding, b) = column_values.flush_page(body)?;
                bounds = b;
                Ok(encoding)
            })
            .map_err(|e| match e {
                PageError::Values(e) => encode_err(&self.at, e),
                PageError::Page(e) => page_err(&self.at, e),
            })?;
        self.index.push(IndexedPage {
            offset: written.offset,
            len: written.len,
            first_row: written.first_row,
            null_count,
            values,
            bounds,
        });
        Ok(())
    }

    /// Flushes the last page and assembles the chunk.
    pub(crate) fn finish(mut self) -> Result<FinishedChunk> {
        self.flush_page()?;
        let dict = self
            .values
            .dict_page()
            .filter(|_| self.pages.used_dictionary());
        let (dict_page, dict_len) = match &dict {
            Some((body, entries)) => self
                .pages
                .write_dictionary(body, *entries)
                .map_err(|e| page_err(&self.at, e))?,
            None => (Vec::new(), 0),
        };
        let (encodings, encoding_stats) = self.pages.encodings(dict.is_some());
        let stats_on = self.opts.statistics;
        let statistics = stats_on.then(|| {
            let mut s = Statistics {
                null_count: Some(self.pages.nulls as i64),
                ..Default::default()
            };
            if let Some(mut bounds) = self.values.chunk_bounds() {
                let (lo_exact, hi_exact) =
                    truncate_bounds(&mut bounds, self.leaf.sort, self.limits.truncate_statistics);
                s.min_value = Some(bounds.0.into());
                s.max_value = Some(bounds.1.into());
                s.is_min_value_exact = Some(lo_exact);
                s.is_max_value_exact = Some(hi_exact);
            }
            s
        });
        let values = &self.values;
        let (column_index, offset_index) = self
            .index
            .finish(dict_len, stats_on, |a, b| values.compare_bounds(a, b));
        let meta = ColumnMetaData {
            type_: self.leaf.physical_type,
            encodings: encodings.into(),
            path_in_schema: self.leaf.path.as_slice().into(),
            codec: CompressionCodec(self.opts.codec.thrift_id()),
            num_values: self.pages.num_values as i64,
            total_uncompressed_size: self.pages.uncompressed as i64,
            total_compressed_size: (dict_page.len() + self.pages.data_len()) as i64,
            data_page_offset: dict_len as i64,
            dictionary_page_offset: (dict_len > 0).then_some(0),
            statistics,
            encoding_stats: Some(encoding_stats.into()),
            ..Default::default()
        };
        Ok(FinishedChunk {
            dict_page,
            pages: self.pages.take_pages(),
            meta,
            column_index,
            offset_index,
            bloom: self.values.take_bloom(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_failures_are_worded_for_writing() {
        let e = pq_encoding::Error::Invalid {
            what: "byte array length",
            expected: "at most 2^31-1",
            found: 1 << 31,
        };
        let message = encode_err(&Location::column("c"), e).to_string();
        assert!(message.contains("column c"), "{message}");
        assert!(message.contains("cannot encode"), "{message}");
        assert!(message.contains("byte array length"), "{message}");
        assert!(!message.contains("decod"), "{message}");
        assert!(!message.contains("reading"), "{message}");
    }
}
