//! `pq pages`: every page of every column chunk.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use bytes::Bytes;
use pq_format::{Limits, PageHeader, PageType, ThriftDecode};
use pq_page::{ChunkContext, Page, PageOptions, PageReader, column_chunk_range};

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
            let mut buf = vec![0u8; (range.end - range.start) as usize];
            file.seek(SeekFrom::Start(range.start))
                .map_err(|e| at(&e))?;
            file.read_exact(&mut buf).map_err(|e| at(&e))?;
            let chunk_bytes = Bytes::from(buf);

            // Null counts come from decoding the levels of each data page.
            let ctx = ChunkContext {
                codec: pq_compress::Codec::from_thrift(cmd.codec.0).map_err(|e| at(&e))?,
                num_values: u64::try_from(cmd.num_values).unwrap_or(0),
                max_def_level: desc.max_def_level,
                max_rep_level: desc.max_rep_level,
                file_offset: range.start,
                column: path_string.clone(),
            };
            let mut nulls = Vec::new();
            let mut levels = Vec::new();
            for page in PageReader::new(chunk_bytes.clone(), ctx, &options) {
                if let Page::Data(p) = page.map_err(page_at)? {
                    levels.clear();
                    p.def_levels.decode_into(&mut levels).map_err(|e| at(&e))?;
                    nulls.push(levels.iter().filter(|&&l| l < desc.max_def_level).count());
                }
            }
            let mut nulls = nulls.into_iter();

            let mut pos = 0usize;
            let mut page_index = 0usize;
            let mut values = 0i64;
            while pos < chunk_bytes.len() && values < cmd.num_values {
                let (h, len) = PageHeader::decode_prefix(&chunk_bytes[pos..], &Limits::default())
                    .map_err(|e| at(&e))?;
                let (encoding, count, levels_desc) = describe(&h);
                if matches!(h.type_, PageType::DATA_PAGE | PageType::DATA_PAGE_V2) {
                    values += i64::from(count);
                }
                let null_text = match h.type_ {
                    PageType::DATA_PAGE | PageType::DATA_PAGE_V2 => {
                        nulls.next().map(|n| n.to_string()).unwrap_or_default()
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
                pos += len + usize::try_from(h.compressed_page_size).unwrap_or(0);
                page_index += 1;
            }
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
