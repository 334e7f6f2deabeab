//! Hostile input: truncated and corrupted footers, unknown fields of every
//! type, deep nesting and oversized lengths. Errors, never panics.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use pq_format::compact::ct;
use pq_format::{
    CompactWriter, DecodeErrorKind, FileMetaData, KeyValue, Limits, LogicalType, ParquetMetaData,
    ThriftDecode, ThriftEncode,
};
use pq_testkit::Rng;

/// Footers of every plaintext corpus file and of `bad_data/` whose footer
/// length fits.
fn corpus_footers() -> Vec<(String, Vec<u8>)> {
    let Some(root) = common::testing_dir() else {
        return Vec::new();
    };
    let mut files = common::plain_files(&root);
    files.extend(
        common::files(&root.join("bad_data"))
            .into_iter()
            .filter(|p| common::is_parquet(p)),
    );
    files
        .into_iter()
        .filter_map(|p| {
            let file = std::fs::read(&p).unwrap();
            let meta = pq_format::read_metadata_from_slice(&file, &Limits::default()).ok()?;
            let _ = meta;
            Some((
                p.display().to_string(),
                common::footer_bytes(&file).to_vec(),
            ))
        })
        .collect()
}

/// Whatever decodes must also survive the rest of the pipeline.
fn exercise(bytes: &[u8]) -> bool {
    match FileMetaData::decode(bytes) {
        Ok(md) => {
            let _ = ParquetMetaData::new(md.clone(), &Limits::default());
            // Compare encodings rather than values: a corrupted double may be
            // a NaN, which is not equal to itself.
            let encoded = md.encode();
            let again = FileMetaData::decode(&encoded).unwrap();
            assert_eq!(again.encode(), encoded);
            true
        }
        Err(e) => {
            assert!(
                e.offset() <= bytes.len(),
                "offset {} beyond {}",
                e.offset(),
                bytes.len()
            );
            let _ = e.to_string();
            false
        }
    }
}

/// Footers up to this size are truncated at every offset. Larger ones (a
/// fifth of the corpus, up to 37 KB) at every offset of their first 1 KiB
/// and last 256 bytes and at 500 seeded random offsets: the test is
/// quadratic in the footer size and runs in debug builds.
const EXHAUSTIVE_TRUNCATION_LIMIT: usize = 2048;

#[test]
fn truncated_footers_error_at_every_offset() {
    let footers = corpus_footers();
    // Two workers.
    let (a, b): (Vec<_>, Vec<_>) = footers.iter().enumerate().partition(|(i, _)| i % 2 == 0);
    std::thread::scope(|s| {
        for part in [a, b] {
            s.spawn(move || {
                for (i, (name, footer)) in part {
                    let n = footer.len();
                    let offsets: Vec<usize> = if n <= EXHAUSTIVE_TRUNCATION_LIMIT {
                        (0..n).collect()
                    } else {
                        let mut rng = Rng(0x7255_0000 + i as u64);
                        (0..1024)
                            .chain(n - 256..n)
                            .chain((0..500).map(|_| rng.index(n)))
                            .collect()
                    };
                    for end in offsets {
                        assert!(
                            !exercise(&footer[..end]),
                            "{name}: prefix of {end} bytes decoded"
                        );
                    }
                }
            });
        }
    });
}

#[test]
fn corrupted_footers_never_panic() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for (_name, footer) in corpus_footers() {
        if footer.is_empty() {
            continue;
        }
        for _ in 0..300 {
            let mut b = footer.clone();
            for _ in 0..1 + rng.index(4) {
                let i = rng.index(b.len());
                b[i] ^= 1 << rng.index(8);
                if rng.index(4) == 0 {
                    b[i] = rng.next() as u8;
                }
            }
            exercise(&b);
        }
    }
}

#[test]
fn a_known_union_field_of_another_type_re_encodes_to_what_decodes() {
    // LogicalType field 5 (DECIMAL) written as an i32 instead of a struct:
    // the decoder skips it as an unrecognised variant. Writing that back
    // must give bytes that decode again, not an empty DECIMAL struct
    // (which lacks its required scale and precision).
    let bytes = [0x55, 0x02, 0x00]; // field 5, i32 2; stop
    let Ok(lt) = LogicalType::decode(&bytes) else {
        return; // Refusing the field outright is as good.
    };
    let encoded = lt.encode();
    let again = LogicalType::decode(&encoded);
    assert!(again.is_ok(), "{lt:?} encoded as {encoded:02x?}: {again:?}");
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(42);
    for len in 0..2000 {
        let b: Vec<u8> = (0..len % 300).map(|_| rng.next() as u8).collect();
        exercise(&b);
        let _ = pq_format::PageHeader::decode(&b);
        let _ = pq_format::ColumnIndex::decode(&b);
        let _ = pq_format::OffsetIndex::decode(&b);
        let _ = pq_format::BloomFilterHeader::decode(&b);
    }
}

#[test]
fn corrupted_files_never_panic() {
    // Whole-file paths too: magic and length damage.
    let Some(root) = common::testing_dir() else {
        return;
    };
    let file = std::fs::read(root.join("data/alltypes_plain.parquet")).unwrap();
    let mut rng = Rng(7);
    for _ in 0..2000 {
        let mut b = file.clone();
        let tail = b.len() - rng.index(40.min(b.len())) - 1;
        b[tail] = rng.next() as u8;
        let _ = ParquetMetaData::from_slice(&b, &Limits::default());
        let _ = ParquetMetaData::read(&mut std::io::Cursor::new(&b), &Limits::default());
    }
    for len in 0..file.len().min(64) {
        let _ = ParquetMetaData::from_slice(&file[file.len() - len..], &Limits::default());
    }
}

/// Writes one unknown field of every wire type, ids from 100 up.
fn write_unknown_fields(w: &mut CompactWriter, last: &mut i16) {
    w.write_bool_field(100, true, last);
    w.write_bool_field(101, false, last);
    w.write_field_header(ct::BYTE, 102, last);
    w.write_i8(-5);
    w.write_field_header(ct::I16, 103, last);
    w.write_i16(-300);
    w.write_field_header(ct::I32, 104, last);
    w.write_i32(1 << 20);
    w.write_field_header(ct::I64, 105, last);
    w.write_i64(-1 << 40);
    w.write_field_header(ct::DOUBLE, 106, last);
    w.write_double(2.5);
    w.write_field_header(ct::BINARY, 107, last);
    w.write_binary(b"\xff\x00 not utf8");
    // list<i32>
    w.write_field_header(ct::LIST, 108, last);
    w.write_list(&[1i32, 2, 3]);
    // list<bool>
    w.write_field_header(ct::LIST, 109, last);
    w.write_list(&[true, false, true]);
    // set<binary> (long form header)
    w.write_field_header(ct::SET, 110, last);
    w.write_list_header(ct::BINARY, 20);
    for i in 0..20u8 {
        w.write_binary(&[i; 3]);
    }
    // map<i32, string>
    w.write_field_header(ct::MAP, 111, last);
    w.write_varint(2);
    w.write_byte((ct::I32 << 4) | ct::BINARY);
    w.write_i32(1);
    w.write_string("one");
    w.write_i32(2);
    w.write_string("two");
    // empty map
    w.write_field_header(ct::MAP, 112, last);
    w.write_varint(0);
    // map<bool, list<i64>>
    w.write_field_header(ct::MAP, 113, last);
    w.write_varint(1);
    w.write_byte((ct::BOOL_TRUE << 4) | ct::LIST);
    w.write_bool_elem(true);
    w.write_list(&[7i64, 8]);
    // nested struct containing a list of structs and a struct
    w.write_field_header(ct::STRUCT, 114, last);
    let mut inner_last = 0;
    w.write_field_header(ct::LIST, 1, &mut inner_last);
    w.write_list(&[KeyValue {
        key: "x".into(),
        value: None,
    }]);
    w.write_field_header(ct::STRUCT, 2, &mut inner_last);
    KeyValue {
        key: "y".into(),
        value: Some("z".into()),
    }
    .write_to(w);
    w.write_bool_field(3, true, &mut inner_last);
    w.write_stop();
    // uuid
    w.write_field_header(ct::UUID, 115, last);
    for i in 0..16 {
        w.write_byte(i);
    }
    // a large negative field id, long-form header
    w.write_field_header(ct::I32, -7, last);
    w.write_i32(9);
}

#[test]
fn unknown_fields_of_every_type_are_skipped() {
    let mut w = CompactWriter::new();
    let mut last = 0;
    w.write_field_header(ct::BINARY, 1, &mut last);
    w.write_string("key");
    write_unknown_fields(&mut w, &mut last);
    // A known field after the unknown ones (field id goes backwards).
    w.write_field_header(ct::BINARY, 2, &mut last);
    w.write_string("value");
    w.write_stop();
    let bytes = w.into_inner();
    let (kv, used) = KeyValue::decode_prefix(&bytes, &Limits::default()).unwrap();
    assert_eq!(used, bytes.len());
    assert_eq!(
        kv,
        KeyValue {
            key: "key".into(),
            value: Some("value".into())
        }
    );
}

#[test]
fn known_field_with_unexpected_wire_type_is_skipped() {
    let mut w = CompactWriter::new();
    let mut last = 0;
    w.write_field_header(ct::BINARY, 1, &mut last);
    w.write_string("key");
    w.write_field_header(ct::I32, 2, &mut last); // value should be a string
    w.write_i32(5);
    w.write_stop();
    let kv = KeyValue::decode(&w.into_inner()).unwrap();
    assert_eq!(kv.value, None);
}

#[test]
fn unknown_union_variants_are_kept_by_id() {
    let mut w = CompactWriter::new();
    let mut last = 0;
    w.write_field_header(ct::STRUCT, 42, &mut last);
    let mut l2 = 0;
    write_unknown_fields(&mut w, &mut l2);
    w.write_stop();
    w.write_stop();
    let lt = LogicalType::decode(&w.into_inner()).unwrap();
    assert_eq!(lt, LogicalType::Unrecognized(42));
    assert_eq!(LogicalType::decode(&lt.encode()).unwrap(), lt);
}

#[test]
fn missing_required_field_names_struct_and_field() {
    let mut w = CompactWriter::new();
    let mut last = 0;
    w.write_field_header(ct::BINARY, 2, &mut last);
    w.write_string("v");
    w.write_stop();
    let e = KeyValue::decode(&w.into_inner()).unwrap_err();
    assert_eq!(
        *e.kind(),
        DecodeErrorKind::MissingField {
            structure: "KeyValue",
            field: "key"
        }
    );
    assert!(e.to_string().contains("KeyValue.key"), "{e}");
}

fn nested_structs(depth: usize) -> Vec<u8> {
    // KeyValue { key, 99: { 1: { 1: ... } } }
    let mut b = vec![0x18, 1, b'k'];
    b.extend_from_slice(&[0x0c, 0xc6, 0x01]); // struct field 99 (long form)
    b.extend(std::iter::repeat_n(0x1c, depth)); // struct field 1
    b.extend(std::iter::repeat_n(0u8, depth + 2));
    b
}

#[test]
fn nesting_beyond_the_limit_errors() {
    let ok = nested_structs(50);
    assert!(KeyValue::decode(&ok).is_ok());
    let deep = nested_structs(10_000);
    let e = KeyValue::decode(&deep).unwrap_err();
    assert_eq!(
        *e.kind(),
        DecodeErrorKind::TooDeep(Limits::default().max_nesting_depth())
    );
    let strict = Limits::default().with_max_nesting_depth(10);
    let e = KeyValue::decode_prefix(&ok, &strict).unwrap_err();
    assert_eq!(*e.kind(), DecodeErrorKind::TooDeep(10));
    // Deep lists of lists are limited too.
    let mut b = vec![0x18, 1, b'k', 0x09, 0xc6, 0x01];
    b.extend(std::iter::repeat_n(0x19, 10_000)); // list of one list
    let e = KeyValue::decode(&b).unwrap_err();
    assert!(matches!(e.kind(), DecodeErrorKind::TooDeep(_)), "{e}");
}

#[test]
fn oversized_lengths_error_before_allocating() {
    // FileMetaData { version: 1, schema: list<struct> of 2^31-1 elements }
    let mut w = CompactWriter::new();
    let mut last = 0;
    w.write_field_header(ct::I32, 1, &mut last);
    w.write_i32(1);
    w.write_field_header(ct::LIST, 2, &mut last);
    w.write_list_header(ct::STRUCT, i32::MAX as usize);
    w.write_byte(0);
    let e = FileMetaData::decode(&w.into_inner()).unwrap_err();
    assert!(
        matches!(
            *e.kind(),
            DecodeErrorKind::LimitExceeded { .. } | DecodeErrorKind::LengthBeyondInput { .. }
        ),
        "{e}"
    );
    // A count under the list limit but beyond the bytes.
    let mut w = CompactWriter::new();
    let mut last = 0;
    w.write_field_header(ct::LIST, 2, &mut last);
    w.write_list_header(ct::STRUCT, 1_000_000);
    let bytes = w.into_inner();
    let e = FileMetaData::decode(&bytes).unwrap_err();
    assert_eq!(
        *e.kind(),
        DecodeErrorKind::LengthBeyondInput {
            declared: 1_000_000,
            remaining: 0
        }
    );
    assert_eq!(e.offset(), bytes.len());
    // Doubles need 8 bytes each.
    let mut w = CompactWriter::new();
    let mut last = 0;
    w.write_field_header(ct::LIST, 99, &mut last);
    w.write_list_header(ct::DOUBLE, 100);
    w.write_raw(&[0; 100]);
    let e = KeyValue::decode(&w.into_inner()).unwrap_err();
    assert!(
        matches!(e.kind(), DecodeErrorKind::LengthBeyondInput { .. }),
        "{e}"
    );
    // A huge binary length.
    let mut w = CompactWriter::new();
    let mut last = 0;
    w.write_field_header(ct::BINARY, 1, &mut last);
    w.write_varint(u64::MAX >> 1);
    let e = KeyValue::decode(&w.into_inner()).unwrap_err();
    assert!(
        matches!(e.kind(), DecodeErrorKind::LimitExceeded { .. }),
        "{e}"
    );
    // Over the configured list limit.
    let small = Limits::default().with_max_list_len(2);
    let md = FileMetaData {
        schema: vec![Default::default(); 3],
        ..Default::default()
    };
    let e = FileMetaData::decode_prefix(&md.encode(), &small).unwrap_err();
    assert!(
        matches!(
            *e.kind(),
            DecodeErrorKind::LimitExceeded {
                what: "list length",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn malformed_varints_and_types() {
    // An 11-byte varint.
    let mut b = vec![0x15];
    b.extend_from_slice(&[0xff; 10]);
    b.push(0x01);
    let e = FileMetaData::decode(&b).unwrap_err();
    assert!(matches!(e.kind(), DecodeErrorKind::VarintTooLong), "{e}");
    // An i32 that does not fit.
    let b = [0x15, 0xff, 0xff, 0xff, 0xff, 0x7f];
    let e = FileMetaData::decode(&b).unwrap_err();
    assert!(matches!(e.kind(), DecodeErrorKind::VarintTooLong), "{e}");
    // Wire type 14 does not exist.
    let b = [0x1e, 0x00];
    let e = FileMetaData::decode(&b).unwrap_err();
    assert_eq!(*e.kind(), DecodeErrorKind::InvalidType(14));
    assert_eq!(e.offset(), 0);
    // Invalid UTF-8 in a string field.
    let b = [0x18, 0x02, 0xff, 0xfe, 0x00];
    let e = KeyValue::decode(&b).unwrap_err();
    assert_eq!(*e.kind(), DecodeErrorKind::InvalidUtf8);
    assert_eq!(e.offset(), 1);
}

#[test]
fn varints_of_every_length_and_position() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut values: Vec<u64> = vec![0, 1, 0x7f, 0x80, u64::MAX, u64::MAX >> 1];
    for bits in 1..=64 {
        let top = 1u64 << (bits - 1);
        values.push(top);
        values.push(top | (rng.next() & (top - 1)));
        values.push(top.wrapping_mul(2).wrapping_sub(1));
    }
    for &v in &values {
        let mut w = CompactWriter::new();
        w.write_varint(v);
        let encoded = w.into_inner();
        // Followed by 0 to 11 bytes of anything: decoded from a whole word,
        // from ten bytes, or byte by byte near the end of the input.
        for tail in 0..12 {
            let mut buf = encoded.clone();
            buf.extend((0..tail).map(|_| rng.next() as u8));
            let mut r = pq_format::CompactReader::new(&buf);
            assert_eq!(r.read_varint().unwrap(), v, "{v:#x} + {tail} bytes");
            assert_eq!(r.position(), encoded.len(), "{v:#x} + {tail} bytes");
        }
        // Cut short, it is an error at any length.
        for cut in 0..encoded.len() {
            let mut r = pq_format::CompactReader::new(&encoded[..cut]);
            assert!(r.read_varint().is_err(), "{v:#x} cut to {cut} bytes");
        }
    }
    // Ten continuation bytes: too long, however much input follows.
    for tail in 0..12 {
        let mut buf = vec![0x80; 10];
        buf.extend(std::iter::repeat_n(0x00, tail));
        let e = pq_format::CompactReader::new(&buf)
            .read_varint()
            .unwrap_err();
        assert!(
            matches!(
                e.kind(),
                DecodeErrorKind::VarintTooLong | DecodeErrorKind::UnexpectedEof
            ),
            "{e}"
        );
    }
}

/// A column chunk's metadata whose path is `path`.
fn column_meta(path: &str) -> pq_format::ColumnMetaData {
    pq_format::ColumnMetaData {
        type_: pq_format::Type::INT32,
        path_in_schema: pq_format::StringList::from_values([path]),
        codec: pq_format::CompressionCodec::UNCOMPRESSED,
        num_values: 3,
        total_uncompressed_size: 10,
        total_compressed_size: 10,
        data_page_offset: 4,
        ..Default::default()
    }
}

#[test]
fn path_in_schema_of_bad_utf8_is_kept_lossily() {
    // The schema gives the path; a corrupt copy of it is no reason to
    // refuse the file.
    let mut b = column_meta("az").encode();
    let at = b.windows(2).position(|w| w == b"az").unwrap();
    b[at + 1] = 0xff;
    let cmd = pq_format::ColumnMetaData::decode(&b).unwrap();
    assert_eq!(cmd.path_in_schema.to_vec(), ["a\u{fffd}"]);
    assert_eq!(cmd.num_values, 3);
    // Well-formed paths are unchanged.
    let cmd = pq_format::ColumnMetaData::decode(&column_meta("é.b").encode()).unwrap();
    assert_eq!(cmd.path_in_schema.to_vec(), ["é.b"]);
}

#[test]
fn negative_counts_sizes_and_offsets_are_errors() {
    let file = || FileMetaData {
        num_rows: 3,
        row_groups: vec![pq_format::RowGroup {
            columns: vec![pq_format::ColumnChunk {
                meta_data: Some(column_meta("x")),
                ..Default::default()
            }],
            num_rows: 3,
            total_byte_size: 10,
            ..Default::default()
        }],
        ..Default::default()
    };
    pq_format::check_counts(&file()).unwrap();
    type Mutate = fn(&mut FileMetaData);
    let cases: &[(Mutate, &str)] = &[
        (|m| m.num_rows = -1, "negative FileMetaData.num_rows -1"),
        (
            |m| m.row_groups[0].num_rows = i64::from(i32::MIN),
            "negative num_rows of row group 0 -2147483648",
        ),
        (
            |m| meta(m).total_compressed_size = -1,
            "negative total_compressed_size of column 0 ('x') in row group 0 -1",
        ),
        (
            |m| meta(m).total_uncompressed_size = -1,
            "negative total_uncompressed_size of column 0 ('x') in row group 0 -1",
        ),
        (
            |m| meta(m).data_page_offset = -4,
            "negative data_page_offset of column 0 ('x') in row group 0 -4",
        ),
        (
            |m| meta(m).dictionary_page_offset = Some(-4),
            "negative dictionary_page_offset of column 0 ('x') in row group 0 -4",
        ),
    ];
    fn meta(m: &mut FileMetaData) -> &mut pq_format::ColumnMetaData {
        m.row_groups[0].columns[0].meta_data.as_mut().unwrap()
    }
    for (mutate, message) in cases {
        let mut m = file();
        mutate(&mut m);
        let e = pq_format::check_counts(&m).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("invalid Parquet metadata: {message}")
        );
    }
    // Fields a reader does not need are no reason to refuse the file.
    let ignored: &[Mutate] = &[
        |m| m.row_groups[0].total_byte_size = -5,
        |m| meta(m).num_values = -1,
    ];
    for mutate in ignored {
        let mut m = file();
        mutate(&mut m);
        pq_format::check_counts(&m).unwrap();
    }
}
