//! Every page of every column chunk of every readable file: the corpus and
//! the project's fixtures.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use bytes::Bytes;
use common::*;
use pq_page::{ErrorKind, PageOptions};

#[test]
fn every_page_of_every_fixture() {
    let files = parquet_files(&fixtures_dir());
    assert!(files.len() >= 20, "fixtures missing: run `cargo xtask gen`");
    for path in files {
        let bytes = Bytes::from(std::fs::read(&path).unwrap());
        let walk = walk_pages(&bytes, &PageOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(walk.data_pages > 0, "{}", path.display());
    }
}

#[test]
fn every_page_of_every_corpus_file() {
    let Some(dir) = corpus_dir() else { return };
    let mut read = 0;
    for path in parquet_files(&dir.join("data")) {
        if is_encrypted(&path) {
            continue;
        }
        if path.ends_with("large_string_map.brotli.parquet") {
            // Pages of 1 GiB: see `pages_above_the_size_limit`.
            continue;
        }
        let bytes = Bytes::from(std::fs::read(&path).unwrap());
        match walk_pages(&bytes, &PageOptions::default()) {
            Ok(walk) => {
                assert!(
                    walk.chunks > 0 || path.ends_with("empty.parquet"),
                    "{}",
                    path.display()
                );
                read += 1;
            }
            Err(e) => panic!("{}: {e}", path.display()),
        }
    }
    assert!(read >= 60, "only {read} corpus files read");
}

fn corpus_file(name: &str) -> Option<Bytes> {
    let dir = corpus_dir()?;
    Some(Bytes::from(
        std::fs::read(dir.join("data").join(name)).unwrap(),
    ))
}

#[test]
fn checksums_verified_on_request() {
    let Some(dir) = corpus_dir() else { return };
    let verify = PageOptions::default().with_verify_checksums(true);
    let mut checked = 0;
    for path in parquet_files(&dir.join("data")) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.contains("checksum") {
            continue;
        }
        let bytes = Bytes::from(std::fs::read(&path).unwrap());
        // Off by default: every file reads.
        walk_pages(&bytes, &PageOptions::default()).unwrap();
        let verified = walk_pages(&bytes, &verify);
        if name.contains("corrupt") {
            let err = verified.expect_err(&name);
            let err = err.downcast_ref::<pq_page::Error>().expect("a page error");
            assert!(
                matches!(err.kind, ErrorKind::Checksum { .. }),
                "{name}: {err}"
            );
            let msg = err.to_string();
            assert!(msg.contains("page ") && msg.contains("checksum"), "{msg}");
        } else {
            verified.unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        checked += 1;
    }
    assert!(checked >= 5, "checksum files missing from the corpus");
}

#[test]
fn dictionary_page_offset_zero() {
    // parquet-mr writes dictionary_page_offset = 0 for "none": the chunk
    // starts at data_page_offset, not at the file's magic.
    let Some(bytes) = corpus_file("dict-page-offset-zero.parquet") else {
        return;
    };
    let walk = walk_pages(&bytes, &PageOptions::default()).unwrap();
    assert_eq!(walk.chunks, 1);
    assert!(walk.data_pages >= 1);
}

#[test]
fn empty_v2_pages() {
    for name in [
        "datapage_v2_empty_datapage.snappy.parquet",
        "page_v2_empty_compressed.parquet",
    ] {
        let Some(bytes) = corpus_file(name) else {
            return;
        };
        walk_pages(&bytes, &PageOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn more_than_i16_pages_in_a_chunk() {
    let Some(bytes) = corpus_file("overflow_i16_page_cnt.parquet") else {
        return;
    };
    let walk = walk_pages(&bytes, &PageOptions::default()).unwrap();
    assert!(walk.data_pages > 32_767, "{} pages", walk.data_pages);
}

#[test]
fn old_parquet_mr_short_dictionary_chunk() {
    // parquet-mr before 1.2.9 left the dictionary page header out of the
    // chunk size; the range is widened as other readers do.
    let Some(bytes) = corpus_file("nation.dict-malformed.parquet") else {
        return;
    };
    let walk = walk_pages(&bytes, &PageOptions::default()).unwrap();
    assert_eq!(walk.chunks, 4);
    assert!(walk.dictionary_pages >= 1);

    // Without the widening the same chunks do not read: the workaround is
    // what makes this file work.
    let meta = pq_format::read_metadata_from_bytes(&bytes, &Default::default()).unwrap();
    let failures = meta.row_groups[0]
        .columns
        .iter()
        .filter(|c| {
            let cmd = c.meta_data.as_ref().unwrap();
            let range = pq_page::column_chunk_range(
                cmd,
                bytes.len() as u64,
                Some("parquet-mr version 1.12.0"),
            )
            .unwrap();
            let ctx = pq_page::ChunkContext {
                codec: pq_compress::Codec::Uncompressed,
                num_values: cmd.num_values as u64,
                max_def_level: 1,
                max_rep_level: 0,
                file_offset: range.start,
                column: cmd.path_in_schema.join("."),
            };
            let data = bytes.slice(range.start as usize..range.end as usize);
            pq_page::PageReader::new(data, ctx, &PageOptions::default()).any(|p| p.is_err())
        })
        .count();
    assert!(failures > 0);
}

#[test]
fn every_bad_file_reads_or_errors() {
    let Some(dir) = corpus_dir() else { return };
    for path in parquet_files(&dir.join("bad_data")) {
        let bytes = Bytes::from(std::fs::read(&path).unwrap());
        // Either outcome is fine; a panic fails the test. An error must say
        // something.
        if let Err(e) = walk_pages(&bytes, &PageOptions::default()) {
            assert!(e.to_string().len() > 10, "{}: {e}", path.display());
        }
    }
}

#[test]
fn pages_above_the_size_limit() {
    // Its dictionary page declares 1 GiB + 4 bytes uncompressed: above the
    // default limit, which is reported before anything is allocated; with
    // the limit raised it reads.
    let Some(bytes) = corpus_file("large_string_map.brotli.parquet") else {
        return;
    };
    let err = walk_pages(&bytes, &PageOptions::default()).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("exceeds the limit"), "{msg}");
    assert!(
        msg.contains("arr.key_value.key") && msg.contains("page 0"),
        "{msg}"
    );

    // The page is the chunk's dictionary: both limits are raised.
    let raised = PageOptions::any_declared_size();
    let walk = walk_pages(&bytes, &raised).unwrap();
    assert_eq!(walk.chunks, 2);
}
