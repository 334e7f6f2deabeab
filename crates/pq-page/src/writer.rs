//! Page writing: the inverse of the page reader.
//!
//! A [`PageWriter`] turns encoded page parts (levels and values, already
//! encoded by pq-encoding) into a page header followed by the page body,
//! compressed with the chunk's codec, with an optional CRC32 of the body.
//! Pages are appended to a caller buffer, usually the column chunk being
//! built.
//!
//! ```
//! use pq_page::{DataPageV1Parts, PageWriter};
//! use pq_compress::Codec;
//!
//! let mut writer = PageWriter::new(Codec::Uncompressed, None, true);
//! let mut chunk = Vec::new();
//! let mut values = Vec::new();
//! pq_encoding::plain::encode(&[1i32, 2, 3], &mut values);
//! let info = writer
//!     .write_data_v1(
//!         &DataPageV1Parts {
//!             rep_levels: &[],
//!             def_levels: &[],
//!             values: &values,
//!             num_values: 3,
//!             encoding: pq_format::Encoding::PLAIN,
//!         },
//!         &mut chunk,
//!     )
//!     .unwrap();
//! assert_eq!(info.total_len, chunk.len());
//! assert_eq!(info.uncompressed_body_len, 12);
//! ```

use pq_compress::Codec;
use pq_format::{
    DataPageHeader, DataPageHeaderV2, DictionaryPageHeader, Encoding, PageHeader, PageType,
    Statistics, ThriftEncode,
};

/// Why a page could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PageWriteError {
    /// Compressing the page body failed.
    #[error("compression failed: {0}")]
    Compress(#[source] pq_compress::Error),
    /// A page's header alone was asked for, to store its parts as they
    /// are, in a chunk that compresses them.
    #[error("pages of a {0:?} chunk are not stored as given")]
    Compressed(Codec),
    /// A size or count does not fit the header's 32-bit fields.
    #[error("page too large: {what} is {value}, at most 2^31-1")]
    TooLarge {
        /// Which field.
        what: &'static str,
        /// Its value.
        value: usize,
    },
}

/// What a written page took.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WrittenPage {
    /// Bytes of the Thrift page header.
    pub header_len: usize,
    /// Bytes of the body as stored (compressed).
    pub compressed_body_len: usize,
    /// Bytes of the body before compression.
    pub uncompressed_body_len: usize,
    /// Header plus stored body: what the page adds to the chunk.
    pub total_len: usize,
}

/// The parts of a data page v1: levels each with their 4-byte length
/// prefix (RLE) as the format requires, then values. Empty level slices
/// mean the column has no such levels.
#[derive(Debug, Clone, Copy)]
pub struct DataPageV1Parts<'a> {
    /// Repetition levels, length-prefixed RLE (empty when max rep is 0).
    pub rep_levels: &'a [u8],
    /// Definition levels, length-prefixed RLE (empty when max def is 0).
    pub def_levels: &'a [u8],
    /// The encoded values.
    pub values: &'a [u8],
    /// Levels in the page (values plus nulls plus empty lists).
    pub num_values: usize,
    /// Encoding of `values`.
    pub encoding: Encoding,
}

/// The parts of a data page v2: levels RLE without length prefix (never
/// compressed), then values (compressed unless the codec does not help).
#[derive(Debug, Clone, Copy)]
pub struct DataPageV2Parts<'a> {
    /// Repetition levels, RLE without length prefix.
    pub rep_levels: &'a [u8],
    /// Definition levels, RLE without length prefix.
    pub def_levels: &'a [u8],
    /// The encoded values.
    pub values: &'a [u8],
    /// Levels in the page.
    pub num_values: usize,
    /// Null values in the page.
    pub num_nulls: usize,
    /// Rows in the page.
    pub num_rows: usize,
    /// Encoding of `values`.
    pub encoding: Encoding,
    /// Optional page statistics.
    pub statistics: Option<&'a Statistics>,
}

/// Writes pages of one column chunk: headers, compression, checksums.
///
/// Holds scratch buffers reused from page to page.
#[derive(Debug)]
pub struct PageWriter {
    codec: Codec,
    level: Option<i32>,
    crc: bool,
    /// A v1 page's levels and values joined, the input of its codec.
    body: Vec<u8>,
    compressed: Vec<u8>,
}

fn i32_of(what: &'static str, value: usize) -> Result<i32, PageWriteError> {
    i32::try_from(value).map_err(|_| PageWriteError::TooLarge { what, value })
}

impl PageWriter {
    /// A writer compressing with `codec` at `level` (the codec's default
    /// when `None`), writing a CRC32 of each body when `crc` is set.
    pub fn new(codec: Codec, level: Option<i32>, crc: bool) -> Self {
        Self {
            codec,
            level,
            crc,
            body: Vec::new(),
            compressed: Vec::new(),
        }
    }

    /// The codec pages are compressed with.
    pub fn codec(&self) -> Codec {
        self.codec
    }

    /// Compresses `input` into the scratch buffer `compressed`.
    fn compress(&mut self, input: &[u8]) -> Result<(), PageWriteError> {
        self.compressed.clear();
        pq_compress::compress(self.codec, input, &mut self.compressed, self.level)
            .map_err(PageWriteError::Compress)
    }

    /// Appends the header, completed with the body's sizes (and CRC), then
    /// the body: `parts` as stored, one after another, `uncompressed` bytes
    /// before compression.
    fn emit(
        &self,
        header: PageHeader,
        uncompressed: usize,
        parts: [&[u8]; 3],
        out: &mut Vec<u8>,
    ) -> Result<WrittenPage, PageWriteError> {
        let written = self.header(header, uncompressed, parts, out)?;
        out.reserve(written.compressed_body_len);
        for p in parts {
            out.extend_from_slice(p);
        }
        Ok(written)
    }

    /// [`emit`](Self::emit) without the body: the header alone.
    fn header(
        &self,
        mut header: PageHeader,
        uncompressed: usize,
        parts: [&[u8]; 3],
        out: &mut Vec<u8>,
    ) -> Result<WrittenPage, PageWriteError> {
        let stored: usize = parts.iter().map(|p| p.len()).sum();
        header.uncompressed_page_size = i32_of("uncompressed page size", uncompressed)?;
        header.compressed_page_size = i32_of("compressed page size", stored)?;
        if self.crc {
            let mut h = crc32fast::Hasher::new();
            for p in parts {
                h.update(p);
            }
            header.crc = Some(h.finalize() as i32);
        }
        let start = out.len();
        header.encode_into(out);
        let header_len = out.len() - start;
        Ok(WrittenPage {
            header_len,
            compressed_body_len: stored,
            uncompressed_body_len: uncompressed,
            total_len: header_len + stored,
        })
    }

    /// Whether pages are stored as given (an uncompressed chunk), so that
    /// [`write_data_v1_header`](Self::write_data_v1_header) and
    /// [`write_data_v2_header`](Self::write_data_v2_header) can be used.
    pub fn stores_as_given(&self) -> bool {
        self.codec == Codec::Uncompressed
    }

    /// The error of asking for a page's header alone in a chunk that
    /// compresses its pages.
    fn check_as_given(&self) -> Result<(), PageWriteError> {
        if self.stores_as_given() {
            Ok(())
        } else {
            Err(PageWriteError::Compressed(self.codec))
        }
    }

    /// The header of a data page v1 of an uncompressed chunk, appended to
    /// `out` alone: the page is that header followed by the levels and
    /// values of `page` as they are, which a caller holding them in buffers
    /// of its own stores without copying them into one. Fails when the
    /// chunk compresses its pages (see [`stores_as_given`](Self::stores_as_given)).
    ///
    /// ```
    /// use pq_page::{DataPageV1Parts, PageWriter};
    /// use pq_compress::Codec;
    ///
    /// let values = 7i64.to_le_bytes();
    /// let page = DataPageV1Parts {
    ///     rep_levels: &[],
    ///     def_levels: &[],
    ///     values: &values,
    ///     num_values: 1,
    ///     encoding: pq_format::Encoding::PLAIN,
    /// };
    /// let mut w = PageWriter::new(Codec::Uncompressed, None, true);
    /// let (mut whole, mut split) = (Vec::new(), Vec::new());
    /// w.write_data_v1(&page, &mut whole).unwrap();
    /// let info = w.write_data_v1_header(&page, &mut split).unwrap();
    /// assert_eq!(info.header_len, split.len());
    /// split.extend_from_slice(&values);
    /// assert_eq!(split, whole);
    /// ```
    pub fn write_data_v1_header(
        &self,
        page: &DataPageV1Parts<'_>,
        out: &mut Vec<u8>,
    ) -> Result<WrittenPage, PageWriteError> {
        self.check_as_given()?;
        let (header, parts, uncompressed) = v1_header(page)?;
        self.header(header, uncompressed, parts, out)
    }

    /// [`write_data_v1_header`](Self::write_data_v1_header) for a data
    /// page v2: its header alone, the levels and values to follow as they
    /// are.
    pub fn write_data_v2_header(
        &self,
        page: &DataPageV2Parts<'_>,
        out: &mut Vec<u8>,
    ) -> Result<WrittenPage, PageWriteError> {
        self.check_as_given()?;
        let header = v2_header(page, false)?;
        let parts = [page.rep_levels, page.def_levels, page.values];
        let uncompressed = parts.iter().map(|p| p.len()).sum();
        self.header(header, uncompressed, parts, out)
    }

    /// Appends a dictionary page holding `num_values` PLAIN-encoded entries.
    pub fn write_dictionary(
        &mut self,
        values: &[u8],
        num_values: usize,
        out: &mut Vec<u8>,
    ) -> Result<WrittenPage, PageWriteError> {
        let header = PageHeader {
            type_: PageType::DICTIONARY_PAGE,
            dictionary_page_header: Some(DictionaryPageHeader {
                num_values: i32_of("dictionary entries", num_values)?,
                encoding: Encoding::PLAIN,
                is_sorted: Some(false),
            }),
            ..Default::default()
        };
        if self.stores_as_given() {
            return self.emit(header, values.len(), [values, &[], &[]], out);
        }
        self.compress(values)?;
        self.emit(header, values.len(), [&self.compressed, &[], &[]], out)
    }

    /// Appends a data page v1 (levels and values compressed together).
    /// Uncompressed, the parts are copied into `out` once, with no body
    /// assembled first.
    pub fn write_data_v1(
        &mut self,
        page: &DataPageV1Parts<'_>,
        out: &mut Vec<u8>,
    ) -> Result<WrittenPage, PageWriteError> {
        let (header, parts, uncompressed) = v1_header(page)?;
        if self.stores_as_given() {
            return self.emit(header, uncompressed, parts, out);
        }
        // The codecs take one input: the parts joined.
        let mut body = std::mem::take(&mut self.body);
        body.clear();
        for p in parts {
            body.extend_from_slice(p);
        }
        let compressed = self.compress(&body);
        self.body = body;
        compressed?;
        self.emit(header, uncompressed, [&self.compressed, &[], &[]], out)
    }

    /// Appends a data page v2 (levels stored as they are, values
    /// compressed; stored uncompressed when compression does not shrink
    /// them, with `is_compressed` false).
    pub fn write_data_v2(
        &mut self,
        page: &DataPageV2Parts<'_>,
        out: &mut Vec<u8>,
    ) -> Result<WrittenPage, PageWriteError> {
        let compressed = !self.stores_as_given() && {
            self.compress(page.values)?;
            self.compressed.len() < page.values.len()
        };
        let header = v2_header(page, compressed)?;
        let uncompressed = page.rep_levels.len() + page.def_levels.len() + page.values.len();
        let values: &[u8] = if compressed {
            &self.compressed
        } else {
            page.values
        };
        self.emit(
            header,
            uncompressed,
            [page.rep_levels, page.def_levels, values],
            out,
        )
    }
}

/// A data page v1's header (sizes still to fill in), its parts in order
/// and their bytes.
fn v1_header<'p>(
    page: &DataPageV1Parts<'p>,
) -> Result<(PageHeader, [&'p [u8]; 3], usize), PageWriteError> {
    let header = PageHeader {
        type_: PageType::DATA_PAGE,
        data_page_header: Some(DataPageHeader {
            num_values: i32_of("page values", page.num_values)?,
            encoding: page.encoding,
            definition_level_encoding: Encoding::RLE,
            repetition_level_encoding: Encoding::RLE,
            statistics: None,
        }),
        ..Default::default()
    };
    let parts = [page.rep_levels, page.def_levels, page.values];
    let uncompressed = parts.iter().map(|p| p.len()).sum();
    Ok((header, parts, uncompressed))
}

/// A data page v2's header (sizes still to fill in), its values stored
/// `compressed` or not.
fn v2_header(page: &DataPageV2Parts<'_>, compressed: bool) -> Result<PageHeader, PageWriteError> {
    Ok(PageHeader {
        type_: PageType::DATA_PAGE_V2,
        data_page_header_v2: Some(DataPageHeaderV2 {
            num_values: i32_of("page values", page.num_values)?,
            num_nulls: i32_of("page nulls", page.num_nulls)?,
            num_rows: i32_of("page rows", page.num_rows)?,
            encoding: page.encoding,
            definition_levels_byte_length: i32_of("definition levels", page.def_levels.len())?,
            repetition_levels_byte_length: i32_of("repetition levels", page.rep_levels.len())?,
            is_compressed: Some(compressed),
            statistics: page.statistics.cloned(),
        }),
        ..Default::default()
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::{ChunkContext, Page, PageOptions, PageReader};

    fn read_back(chunk: Vec<u8>, codec: Codec, num_values: u64, def: i16) -> Vec<Page> {
        let ctx = ChunkContext {
            codec,
            num_values,
            max_def_level: def,
            max_rep_level: 0,
            file_offset: 0,
            column: "c".into(),
        };
        let opts = PageOptions {
            verify_checksums: true,
            ..PageOptions::default()
        };
        PageReader::new(bytes::Bytes::from(chunk), ctx, &opts)
            .collect::<Result<Vec<_>, _>>()
            .unwrap()
    }

    #[test]
    fn pages_read_back_with_every_codec() {
        let mut values = Vec::new();
        pq_encoding::plain::encode(&(0..1000).collect::<Vec<i32>>(), &mut values);
        let mut def = Vec::new();
        let mut v2_def = Vec::new();
        pq_encoding::rle::encode(&[1u32; 1000], 1, &mut v2_def);
        pq_encoding::rle::encode_length_prefixed(&[1u32; 1000], 1, &mut def);
        for codec in [
            Codec::Uncompressed,
            Codec::Snappy,
            Codec::Gzip,
            Codec::Brotli,
            Codec::Lz4,
            Codec::Zstd,
            Codec::Lz4Raw,
        ] {
            let mut w = PageWriter::new(codec, None, true);
            let mut chunk = Vec::new();
            let mut dict = Vec::new();
            pq_encoding::plain::encode(&[7i32], &mut dict);
            w.write_dictionary(&dict, 1, &mut chunk).unwrap();
            let v1 = DataPageV1Parts {
                rep_levels: &[],
                def_levels: &def,
                values: &values,
                num_values: 1000,
                encoding: Encoding::PLAIN,
            };
            w.write_data_v1(&v1, &mut chunk).unwrap();
            let v2 = DataPageV2Parts {
                rep_levels: &[],
                def_levels: &v2_def,
                values: &values,
                num_values: 1000,
                num_nulls: 0,
                num_rows: 1000,
                encoding: Encoding::PLAIN,
                statistics: None,
            };
            w.write_data_v2(&v2, &mut chunk).unwrap();
            let pages = read_back(chunk, codec, 2000, 1);
            assert_eq!(pages.len(), 3);
            for p in &pages[1..] {
                let Page::Data(d) = p else { panic!() };
                assert_eq!(&d.values[..], &values[..]);
                assert_eq!(d.num_values, 1000);
            }
        }
    }

    #[test]
    fn a_header_then_the_parts_is_the_whole_page() {
        let values: Vec<u8> = (0..=255).collect();
        let (rep, def) = ([3u8, 0, 0, 0, 2, 1, 1], [4u8, 0, 0, 0, 2, 1, 9, 9]);
        for crc in [false, true] {
            let mut w = PageWriter::new(Codec::Uncompressed, None, crc);
            assert!(w.stores_as_given());
            let v1 = DataPageV1Parts {
                rep_levels: &rep,
                def_levels: &def,
                values: &values,
                num_values: 7,
                encoding: Encoding::PLAIN,
            };
            let (mut whole, mut split) = (Vec::new(), Vec::new());
            let a = w.write_data_v1(&v1, &mut whole).unwrap();
            let b = w.write_data_v1_header(&v1, &mut split).unwrap();
            assert_eq!((a, b.header_len), (b, split.len()));
            for p in [&rep[..], &def, &values] {
                split.extend_from_slice(p);
            }
            assert_eq!(split, whole, "v1, crc {crc}");

            let v2 = DataPageV2Parts {
                rep_levels: &rep[4..],
                def_levels: &def[4..],
                values: &values,
                num_values: 7,
                num_nulls: 1,
                num_rows: 3,
                encoding: Encoding::PLAIN,
                statistics: None,
            };
            let (mut whole, mut split) = (Vec::new(), Vec::new());
            let a = w.write_data_v2(&v2, &mut whole).unwrap();
            let b = w.write_data_v2_header(&v2, &mut split).unwrap();
            assert_eq!((a, b.header_len), (b, split.len()));
            for p in [&rep[4..], &def[4..], &values] {
                split.extend_from_slice(p);
            }
            assert_eq!(split, whole, "v2, crc {crc}");
        }
        // A compressing chunk has no page stored as given.
        let w = PageWriter::new(Codec::Snappy, None, false);
        assert!(!w.stores_as_given());
        let v1 = DataPageV1Parts {
            rep_levels: &[],
            def_levels: &[],
            values: &values,
            num_values: 256,
            encoding: Encoding::PLAIN,
        };
        let mut out = Vec::new();
        assert!(matches!(
            w.write_data_v1_header(&v1, &mut out),
            Err(PageWriteError::Compressed(Codec::Snappy))
        ));
        assert!(out.is_empty());
    }
}
