//! The write benches' settings as arrow-rs writer properties, and what a
//! file records of its own writer's settings (the `as_written` setting),
//! read with arrow-rs: shared by the write bench and the `arrow_rs_convert`
//! example, so that both write with the same settings.

// Each user takes a part of this file.
#![allow(dead_code)]

use std::path::Path;

use parquet::basic::{Compression, ZstdLevel};
use parquet::column::page::Page;
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::file::reader::{FileReader, SerializedFileReader};

/// The settings a file records of its writer's choices: its codec, whether
/// it has dictionary pages, its data page version and the rows of its
/// first row group. What it does not record (a ZSTD level, page sizes) is
/// left to each writer's own defaults but the ZSTD level, 1 as in
/// [`Setting::ZstdV2`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Written {
    pub codec: WrittenCodec,
    /// Any column chunk of the first row group has a dictionary page.
    pub dictionary: bool,
    /// The first data page of the first column chunk is a v2 page.
    pub page_v2: bool,
    /// The rows of the first row group.
    pub row_group_rows: usize,
}

/// The codec of the first column chunk (the matrix's writers give every
/// column the same one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WrittenCodec {
    Uncompressed,
    Snappy,
    Zstd,
}

impl std::fmt::Display for Written {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:?}, {}dictionaries, page v{}, {} rows per row group",
            self.codec,
            if self.dictionary { "" } else { "no " },
            if self.page_v2 { 2 } else { 1 },
            self.row_group_rows
        )
    }
}

/// What the file at `path` records of its writer's settings.
pub fn read(path: &Path) -> Result<Written, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let reader = SerializedFileReader::new(file).map_err(|e| e.to_string())?;
    let meta = reader.metadata();
    let rg = meta.row_groups().first().ok_or("no row group")?;
    let first = rg.columns().first().ok_or("no column")?;
    let codec = match first.compression() {
        Compression::UNCOMPRESSED => WrittenCodec::Uncompressed,
        Compression::SNAPPY => WrittenCodec::Snappy,
        Compression::ZSTD(_) => WrittenCodec::Zstd,
        other => return Err(format!("codec {other} is not one the matrix uses")),
    };
    let dictionary = rg
        .columns()
        .iter()
        .any(|c| c.dictionary_page_offset().is_some());
    let mut pages = reader
        .get_row_group(0)
        .and_then(|r| r.get_column_page_reader(0))
        .map_err(|e| e.to_string())?;
    let page_v2 = loop {
        match pages.get_next_page().map_err(|e| e.to_string())? {
            Some(Page::DictionaryPage { .. }) => continue,
            Some(p) => break matches!(p, Page::DataPageV2 { .. }),
            None => return Err("the first column chunk has no data page".into()),
        }
    };
    let row_group_rows = usize::try_from(rg.num_rows()).map_err(|e| e.to_string())?;
    Ok(Written {
        codec,
        dictionary,
        page_v2,
        row_group_rows,
    })
}

/// The properties of the settings with fixed values, by their names
/// (`Setting::name`): each writer's defaults, SNAPPY with dictionaries, and
/// ZSTD (level 1) with data page v2.
pub fn named_properties(name: &str) -> Option<WriterProperties> {
    Some(match name {
        "defaults" => WriterProperties::default(),
        "snappy_dict" => WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_dictionary_enabled(true)
            .build(),
        "zstd_v2" => WriterProperties::builder()
            .set_writer_version(WriterVersion::PARQUET_2_0)
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .build(),
        _ => return None,
    })
}

/// What a file records of its writer's settings, as arrow-rs's writer
/// properties.
pub fn properties(w: &Written) -> WriterProperties {
    WriterProperties::builder()
        .set_compression(match w.codec {
            WrittenCodec::Uncompressed => Compression::UNCOMPRESSED,
            WrittenCodec::Snappy => Compression::SNAPPY,
            WrittenCodec::Zstd => Compression::ZSTD(ZstdLevel::default()),
        })
        .set_dictionary_enabled(w.dictionary)
        .set_writer_version(if w.page_v2 {
            WriterVersion::PARQUET_2_0
        } else {
            WriterVersion::PARQUET_1_0
        })
        .set_max_row_group_row_count(Some(w.row_group_rows))
        .build()
}

/// The settings as `pq convert`'s flags.
pub fn pq_flags(w: &Written) -> Vec<String> {
    let codec = match w.codec {
        WrittenCodec::Uncompressed => "none",
        WrittenCodec::Snappy => "snappy",
        WrittenCodec::Zstd => "zstd",
    };
    let dictionary = if w.dictionary {
        "--dictionary"
    } else {
        "--no-dictionary"
    };
    let version = if w.page_v2 { "2" } else { "1" };
    let rows = w.row_group_rows.to_string();
    [
        "--compression",
        codec,
        dictionary,
        "--page-version",
        version,
        "--rows-per-group",
        &rows,
    ]
    .map(String::from)
    .to_vec()
}
