//! Every corpus file: footers parse (or encrypted files are refused), the
//! schema tree builds, decode → encode → decode is identical, and
//! `bad_data/` errors cleanly.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use pq_format::{FileMetaData, FormatError, Limits, ParquetMetaData, ThriftDecode, ThriftEncode};

#[test]
fn every_plain_file_parses() {
    let Some(root) = common::testing_dir() else {
        return;
    };
    let files = common::plain_files(&root);
    assert!(
        files.len() > 50,
        "corpus looks incomplete: {} files",
        files.len()
    );
    let mut compared = 0;
    for p in &files {
        let md = ParquetMetaData::read_path(p, &Limits::default())
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        // The in-memory path agrees with the Read + Seek path.
        let bytes = bytes::Bytes::from(std::fs::read(p).unwrap());
        let md2 = ParquetMetaData::from_bytes(&bytes, &Limits::default()).unwrap();
        assert_eq!(md, md2, "{}", p.display());
        let md3 = ParquetMetaData::from_slice(&bytes, &Limits::default()).unwrap();
        assert_eq!(md, md3, "{}", p.display());
        assert!(
            md.schema.num_columns() > 0 || md.file.schema.len() == 1,
            "{}",
            p.display()
        );
        for col in md.schema.columns() {
            assert_eq!(col.path.len(), col.path_nodes.len());
            assert!(!col.path.is_empty());
        }
        // Paths and levels agree with arrow-rs's schema, where it reads the file.
        if let Ok(theirs) =
            parquet::file::metadata::ParquetMetaDataReader::new().parse_and_finish(&bytes)
        {
            let descr = theirs.file_metadata().schema_descr();
            assert_eq!(
                descr.num_columns(),
                md.schema.num_columns(),
                "{}",
                p.display()
            );
            for (ours, theirs) in md.schema.columns().iter().zip(descr.columns()) {
                assert_eq!(ours.path, theirs.path().parts(), "{}", p.display());
                assert_eq!(ours.name(), theirs.name(), "{}", p.display());
                assert_eq!(
                    (ours.max_def_level, ours.max_rep_level),
                    (theirs.max_def_level(), theirs.max_rep_level()),
                    "{}: {}",
                    p.display(),
                    ours.path_string()
                );
            }
            compared += 1;
        }
    }
    assert!(
        compared > 50,
        "only {compared} files compared with arrow-rs"
    );
}

#[test]
fn encrypted_files_are_refused() {
    let Some(root) = common::testing_dir() else {
        return;
    };
    let files: Vec<_> = common::files(&root.join("data"))
        .into_iter()
        .filter(|p| common::is_parquet(p) && common::is_encrypted(p))
        .collect();
    assert!(files.len() >= 10);
    for p in &files {
        let err = ParquetMetaData::read_path(p, &Limits::default()).unwrap_err();
        assert!(
            matches!(err, FormatError::Encrypted { .. }),
            "{}: {err}",
            p.display()
        );
        assert!(
            err.to_string()
                .contains("encrypted Parquet files are not supported"),
            "{}: {err}",
            p.display()
        );
    }
}

#[test]
fn decode_encode_decode_is_identical() {
    let Some(root) = common::testing_dir() else {
        return;
    };
    for p in common::plain_files(&root) {
        let file = std::fs::read(&p).unwrap();
        let footer = common::footer_bytes(&file);
        let md = FileMetaData::decode(footer).unwrap();
        let encoded = md.encode();
        let back = FileMetaData::decode(&encoded).unwrap();
        assert_eq!(md, back, "{}", p.display());
        // Encoding is deterministic.
        assert_eq!(back.encode(), encoded, "{}", p.display());
    }
}

#[test]
fn bad_data_reads_or_errors_cleanly() {
    let Some(root) = common::testing_dir() else {
        return;
    };
    for p in common::files(&root.join("bad_data")) {
        if !common::is_parquet(&p) {
            continue;
        }
        match ParquetMetaData::read_path(&p, &Limits::default()) {
            Ok(md) => eprintln!(
                "{}: footer reads ({} columns)",
                p.display(),
                md.schema.num_columns()
            ),
            Err(e) => eprintln!("{}: {e}", p.display()),
        }
    }
}

#[test]
fn parquet_1481_names_the_bad_physical_type() {
    let Some(root) = common::testing_dir() else {
        return;
    };
    let p = root.join("bad_data/PARQUET-1481.parquet");
    let err = ParquetMetaData::read_path(&p, &Limits::default()).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, FormatError::Schema(_)), "{msg}");
    assert!(msg.contains("unknown physical type value"), "{msg}");
}

#[test]
fn file_errors_are_clear() {
    let limits = Limits::default();
    let e = pq_format::read_metadata_from_slice(b"PAR1PAR1", &limits).unwrap_err();
    assert!(matches!(e, FormatError::FileTooShort { len: 8 }), "{e}");
    let e = pq_format::read_metadata_from_slice(b"PAR1\0\0\0\0\0\0\0\0XXXX", &limits).unwrap_err();
    assert!(e.to_string().contains("bad magic at the end"), "{e}");
    assert!(e.to_string().contains("XXXX"), "{e}");
    let e = pq_format::read_metadata_from_slice(b"ABCD\0\0\0\0\0\0\0\0PAR1", &limits).unwrap_err();
    assert!(e.to_string().contains("bad magic at the start"), "{e}");
    let e =
        pq_format::read_metadata_from_slice(b"PAR1\0\0\0\0\x10\0\0\0PAR1", &limits).unwrap_err();
    assert!(
        matches!(
            e,
            FormatError::MetadataBeyondFile {
                len: 16,
                available: 4
            }
        ),
        "{e}"
    );
    let e = pq_format::read_metadata_from_slice(b"PARE\0\0\0\0\0\0\0\0PARE", &limits).unwrap_err();
    assert!(
        e.to_string()
            .contains("encrypted Parquet files are not supported"),
        "{e}"
    );
    // Malformed Thrift reports the file offset.
    let e = pq_format::read_metadata_from_slice(b"PAR1\x15\x02\x19\x4c\x04\0\0\0PAR1", &limits)
        .unwrap_err();
    match e {
        FormatError::Thrift { offset, .. } => assert!((4..=8).contains(&offset), "{offset}"),
        e => panic!("{e}"),
    }
    let small = Limits::default().with_max_metadata_size(2);
    let e = pq_format::read_metadata_from_slice(b"PAR1\0\0\0\0\x04\0\0\0PAR1", &small).unwrap_err();
    assert!(matches!(e, FormatError::MetadataTooLarge { .. }), "{e}");
}

#[test]
fn read_seek_reads_only_the_footer() {
    use std::io::{Cursor, Read, Seek, SeekFrom};
    struct Counting<R> {
        inner: R,
        read: u64,
    }
    impl<R: Read> Read for Counting<R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.inner.read(buf)?;
            self.read += n as u64;
            Ok(n)
        }
    }
    impl<R: Seek> Seek for Counting<R> {
        fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
            self.inner.seek(pos)
        }
    }
    let Some(root) = common::testing_dir() else {
        return;
    };
    let file = std::fs::read(root.join("data/alltypes_tiny_pages.parquet")).unwrap();
    let footer_len = common::footer_bytes(&file).len() as u64;
    let mut r = Counting {
        inner: Cursor::new(&file),
        read: 0,
    };
    pq_format::read_metadata(&mut r, &Limits::default()).unwrap();
    assert_eq!(r.read, footer_len + 8 + 4);
    assert!(r.read < file.len() as u64 / 2);
}
