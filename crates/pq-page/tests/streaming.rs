//! A page reader fed in pieces gives exactly the pages (and errors) of one
//! given the whole chunk, however the pieces are cut.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use bytes::Bytes;
use pq_format::{Limits, SchemaDescriptor};
use pq_page::{ChunkContext, PageOptions, PageReader, PageStep, column_chunk_range};

/// How the bytes asked for are given.
#[derive(Debug, Clone, Copy)]
enum Feed {
    /// Exactly the range asked for.
    Exact,
    /// From the range's start to well past the chunk's end.
    Over,
}

/// Every page of the chunk as text, then the error if any; and where
/// each request started.
fn pages(mut reader: PageReader, file: &Bytes, feed: Feed) -> (Vec<String>, Vec<u64>) {
    let mut out = Vec::new();
    let mut requests = Vec::new();
    loop {
        // What a reader asks to read ahead is what its next page lacks:
        // nothing when the page is held whole (asking for the guess
        // beyond it read each page twice).
        let ahead = reader.next_request();
        match reader.poll_page() {
            Ok(PageStep::Page(p)) => {
                assert_eq!(ahead, None, "read ahead for a page held whole");
                out.push(format!("{p:?}"));
            }
            Ok(PageStep::End) => break,
            Ok(PageStep::Needs(r)) => {
                requests.push(r.start);
                assert!(requests.len() < 1_000_000, "no progress");
                assert!(r.start < r.end, "empty request {r:?}");
                let end = match feed {
                    Feed::Exact => r.end,
                    Feed::Over => (r.end + 1000).min(file.len() as u64),
                };
                reader.push(r.start, file.slice(r.start as usize..end as usize));
            }
            Err(e) => {
                out.push(format!("error: {e}"));
                break;
            }
        }
    }
    (out, requests)
}

/// Every page as text, then the error if any; and where each page starts.
fn whole(reader: PageReader) -> (Vec<String>, Vec<u64>) {
    let mut out = Vec::new();
    let mut starts = Vec::new();
    for p in reader {
        match p {
            Ok(p) => {
                starts.push(match &p {
                    pq_page::Page::Data(d) => d.file_offset,
                    pq_page::Page::Dictionary(d) => d.file_offset,
                });
                out.push(format!("{p:?}"));
            }
            Err(e) => out.push(format!("error: {e}")),
        }
    }
    (out, starts)
}

fn check_file(path: &std::path::Path) -> usize {
    let Ok(raw) = std::fs::read(path) else {
        return 0;
    };
    let file = Bytes::from(raw);
    let limits = Limits::default();
    let Ok(meta) = pq_format::read_metadata_from_bytes(&file, &limits) else {
        return 0;
    };
    let Ok(schema) = SchemaDescriptor::new(&meta.schema, &limits) else {
        return 0;
    };
    let mut chunks = 0;
    for rg in &meta.row_groups {
        for (i, chunk) in rg.columns.iter().enumerate() {
            let (Some(cmd), Some(column)) = (chunk.meta_data.as_ref(), schema.column(i)) else {
                continue;
            };
            let Ok(range) = column_chunk_range(cmd, file.len() as u64, meta.created_by.as_deref())
            else {
                continue;
            };
            let Ok(codec) = pq_compress::Codec::from_thrift(cmd.codec.0) else {
                continue;
            };
            let ctx = ChunkContext {
                codec,
                num_values: u64::try_from(cmd.num_values).unwrap_or(0),
                max_def_level: column.max_def_level,
                max_rep_level: column.max_rep_level,
                file_offset: range.start,
                column: column.path_string(),
            };
            let total = cmd.total_uncompressed_size;
            let options = PageOptions::default().with_verify_checksums(true);
            let data = file.slice(range.start as usize..range.end as usize);
            let (expected, starts) = whole(
                PageReader::new(data, ctx.clone(), &options).with_total_uncompressed_size(total),
            );
            let failed = expected.last().is_some_and(|p| p.starts_with("error"));
            let len = range.end - range.start;
            for min_read in [1usize, 13, 64 << 10] {
                for feed in [Feed::Exact, Feed::Over] {
                    let options = options.clone().with_min_read(min_read);
                    let reader = PageReader::streaming(len, ctx.clone(), &options)
                        .with_total_uncompressed_size(total);
                    let (got, requests) = pages(reader, &file, feed);
                    assert_eq!(
                        got,
                        expected,
                        "{}: column {} min_read {min_read} {feed:?}",
                        path.display(),
                        ctx.column
                    );
                    if len > 0 && !expected.is_empty() {
                        assert!(!requests.is_empty());
                    }
                    // Every request starts at a page's first byte, so that
                    // no page is joined from pieces (chunks that fail, or
                    // skip index pages, aside).
                    if !failed {
                        let stray: Vec<_> = requests
                            .iter()
                            .filter(|r| !starts.contains(r) && **r != range.start)
                            .collect();
                        assert!(
                            stray.is_empty(),
                            "{}: column {} requests {stray:?} start inside pages",
                            path.display(),
                            ctx.column
                        );
                    }
                }
            }
            chunks += 1;
        }
    }
    chunks
}

#[test]
fn pieces_read_as_the_whole_chunk() {
    let mut files = common::parquet_files(&common::fixtures_dir());
    if let Some(dir) = common::corpus_dir() {
        files.extend(common::parquet_files(&dir.join("data")));
        files.extend(common::parquet_files(&dir.join("bad_data")));
    }
    let chunks: usize = files
        .iter()
        .filter(|p| !common::is_encrypted(p))
        .map(|p| check_file(p))
        .sum();
    assert!(chunks > 100, "only {chunks} chunks checked");
}
