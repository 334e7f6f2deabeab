//! Helpers shared by the pq-page tests: finding files and walking the pages
//! of every column chunk of a file.

#![allow(dead_code, missing_docs)]

use std::path::{Path, PathBuf};

use bytes::Bytes;
use pq_format::{Limits, SchemaDescriptor};
use pq_page::{ChunkContext, Page, PageOptions, PageReader, column_chunk_range};

/// The parquet-testing corpus, or `None` (the test reported skipped) when
/// `PARQUET_TESTING_DIR` is unset; with `CI` set a missing corpus fails.
pub fn corpus_dir() -> Option<PathBuf> {
    pq_testkit::parquet_testing_dir()
}

/// The project's fixtures.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data")
}

/// Every `*.parquet` file under `dir`, recursively, sorted.
pub fn parquet_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "parquet") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// What walking a file's pages found.
#[derive(Debug, Default)]
pub struct Walk {
    pub chunks: usize,
    pub data_pages: usize,
    pub dictionary_pages: usize,
    pub levels: usize,
}

/// Reads every page of every column chunk of `bytes`, decompressing it and
/// decoding its levels; checks each chunk's value count against the
/// metadata (the page reader itself errors on a mismatch).
pub fn walk_pages(
    bytes: &Bytes,
    options: &PageOptions,
) -> Result<Walk, Box<dyn std::error::Error>> {
    let limits = Limits::default();
    let meta = pq_format::read_metadata_from_bytes(bytes, &limits)?;
    let schema = SchemaDescriptor::new(&meta.schema, &limits)?;
    let mut walk = Walk::default();
    let mut levels = Vec::new();
    for rg in &meta.row_groups {
        for (i, chunk) in rg.columns.iter().enumerate() {
            let cmd = chunk
                .meta_data
                .as_ref()
                .ok_or("column chunk without metadata")?;
            let column = schema.column(i).ok_or("more column chunks than leaves")?;
            let range = column_chunk_range(cmd, bytes.len() as u64, meta.created_by.as_deref())?;
            let ctx = ChunkContext {
                codec: pq_compress::Codec::from_thrift(cmd.codec.0)?,
                num_values: u64::try_from(cmd.num_values)?,
                max_def_level: column.max_def_level,
                max_rep_level: column.max_rep_level,
                file_offset: range.start,
                column: column.path_string(),
            };
            let data = bytes.slice(range.start as usize..range.end as usize);
            let mut values = 0u64;
            for page in PageReader::new(data, ctx, options) {
                match page? {
                    Page::Dictionary(_) => walk.dictionary_pages += 1,
                    Page::Data(p) => {
                        walk.data_pages += 1;
                        values += p.num_values as u64;
                        levels.clear();
                        p.rep_levels.decode_into(&mut levels)?;
                        p.def_levels.decode_into(&mut levels)?;
                        walk.levels += levels.len();
                    }
                }
            }
            assert_eq!(
                values as i64,
                cmd.num_values,
                "value count of {}",
                column.path_string()
            );
            walk.chunks += 1;
        }
    }
    Ok(walk)
}

/// Whether a corpus file is encrypted (we do not read those).
pub fn is_encrypted(path: &Path) -> bool {
    let s = path.to_string_lossy();
    s.contains(".encrypted") || s.contains("/aes256/")
}
