//! Hand-built column chunks: every header check of the page reader.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use bytes::Bytes;
use pq_compress::Codec;
use pq_format::{
    DataPageHeader, DataPageHeaderV2, DictionaryPageHeader, Encoding, PageHeader, PageType,
    ThriftEncode,
};
use pq_page::{ChunkContext, ErrorKind, LevelEncoding, Page, PageOptions, PageReader};

fn ctx(num_values: u64, max_def: i16) -> ChunkContext {
    ChunkContext {
        codec: Codec::Uncompressed,
        num_values,
        max_def_level: max_def,
        max_rep_level: 0,
        file_offset: 1000,
        column: "a.b".into(),
    }
}

fn v1_header(num_values: i32, body_len: usize) -> PageHeader {
    PageHeader {
        type_: PageType::DATA_PAGE,
        uncompressed_page_size: body_len as i32,
        compressed_page_size: body_len as i32,
        data_page_header: Some(DataPageHeader {
            num_values,
            encoding: Encoding::PLAIN,
            definition_level_encoding: Encoding::RLE,
            repetition_level_encoding: Encoding::RLE,
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn page(header: &PageHeader, body: &[u8]) -> Vec<u8> {
    let mut out = header.encode();
    out.extend_from_slice(body);
    out
}

/// A v1 page of `n` values whose uncompressed body is `body`, compressed
/// with `codec`, and the length of its compressed body.
fn compressed_page(codec: Codec, n: i32, body: &[u8]) -> (Vec<u8>, usize) {
    let mut z = Vec::new();
    pq_compress::compress(codec, body, &mut z, None).unwrap();
    let mut h = v1_header(n, body.len());
    h.compressed_page_size = z.len() as i32;
    (page(&h, &z), z.len())
}

/// A v1 page of `n` required INT32 values.
fn required_page(n: i32) -> Vec<u8> {
    let body: Vec<u8> = (0..n).flat_map(|v| v.to_le_bytes()).collect();
    page(&v1_header(n, body.len()), &body)
}

fn read_all(
    chunk: Vec<u8>,
    ctx: ChunkContext,
    options: &PageOptions,
) -> Result<Vec<Page>, pq_page::Error> {
    PageReader::new(Bytes::from(chunk), ctx, options).collect()
}

fn kind(chunk: Vec<u8>, ctx: ChunkContext) -> ErrorKind {
    read_all(chunk, ctx, &PageOptions::default())
        .unwrap_err()
        .kind
}

#[test]
fn well_formed_pages_read() {
    let mut chunk = required_page(3);
    chunk.extend(required_page(2));
    let pages = read_all(chunk, ctx(5, 0), &PageOptions::default()).unwrap();
    assert_eq!(pages.len(), 2);
    let Page::Data(p) = &pages[1] else { panic!() };
    assert_eq!(p.num_values, 2);
    assert_eq!(p.index, 1);
    assert_eq!(&p.values[..], &[0, 0, 0, 0, 1, 0, 0, 0]);
}

#[test]
fn body_past_the_chunk() {
    let mut chunk = required_page(3);
    chunk.truncate(chunk.len() - 1);
    let err = read_all(chunk, ctx(3, 0), &PageOptions::default()).unwrap_err();
    assert!(matches!(
        err.kind,
        ErrorKind::BodyPastChunk {
            needed: 12,
            remaining: 11
        }
    ));
    // The location names the column, the page and the file offset.
    assert_eq!(
        err.to_string().split(':').next().unwrap(),
        "column a.b, page 0, file offset 1000"
    );
}

#[test]
fn negative_sizes_and_counts() {
    let mut h = v1_header(3, 12);
    h.compressed_page_size = -1;
    assert!(
        matches!(kind(page(&h, &[0; 12]), ctx(3, 0)), ErrorKind::InvalidHeader(m) if m.contains("negative compressed_page_size"))
    );
    let mut h = v1_header(3, 12);
    h.uncompressed_page_size = -5;
    assert!(
        matches!(kind(page(&h, &[0; 12]), ctx(3, 0)), ErrorKind::InvalidHeader(m) if m.contains("negative uncompressed_page_size"))
    );
    let h = v1_header(-3, 12);
    assert!(
        matches!(kind(page(&h, &[0; 12]), ctx(3, 0)), ErrorKind::InvalidHeader(m) if m.contains("negative num_values"))
    );
}

#[test]
fn value_counts_must_match_the_chunk() {
    // More values in the pages than the chunk declares.
    let mut chunk = required_page(3);
    chunk.extend(required_page(3));
    assert!(matches!(
        kind(chunk, ctx(4, 0)),
        ErrorKind::ValueCount {
            expected: 4,
            found: 6
        }
    ));
    // Fewer: the chunk ends first.
    assert!(matches!(
        kind(required_page(3), ctx(4, 0)),
        ErrorKind::ValueCount {
            expected: 4,
            found: 3
        }
    ));
}

#[test]
fn truncated_header() {
    let chunk = required_page(3);
    let err = kind(chunk[..3].to_vec(), ctx(3, 0));
    assert!(matches!(err, ErrorKind::Header(_)), "{err}");
}

#[test]
fn index_and_unknown_pages_are_skipped() {
    let index = PageHeader {
        type_: PageType::INDEX_PAGE,
        uncompressed_page_size: 4,
        compressed_page_size: 4,
        ..Default::default()
    };
    let unknown = PageHeader {
        type_: PageType(17),
        uncompressed_page_size: 2,
        compressed_page_size: 2,
        ..Default::default()
    };
    let mut chunk = page(&index, &[9; 4]);
    chunk.extend(page(&unknown, &[9; 2]));
    chunk.extend(required_page(2));
    let pages = read_all(chunk, ctx(2, 0), &PageOptions::default()).unwrap();
    assert_eq!(pages.len(), 1);
}

#[test]
fn dictionary_after_data_is_an_error() {
    let mut chunk = required_page(1);
    chunk.extend(dict_page(1, &[1, 0, 0, 0]));
    chunk.extend(required_page(1));
    let err = kind(chunk, ctx(2, 0));
    assert!(
        matches!(err, ErrorKind::InvalidHeader(ref m) if m.contains("after a data page")),
        "{err}"
    );
}

#[test]
fn v1_levels() {
    // Optional column, 4 levels [1, 0, 1, 1] as an RLE bit-packed run, two... three values.
    let mut levels = Vec::new();
    pq_encoding::rle::encode(&[1u32, 0, 1, 1], 1, &mut levels);
    let mut body = (levels.len() as u32).to_le_bytes().to_vec();
    body.extend(&levels);
    body.extend([7u8; 12]);
    let chunk = page(&v1_header(4, body.len()), &body);
    let pages = read_all(chunk.clone(), ctx(4, 1), &PageOptions::default()).unwrap();
    let Page::Data(p) = &pages[0] else { panic!() };
    let mut out = Vec::new();
    p.def_levels.decode_into(&mut out).unwrap();
    assert_eq!(out, [1, 0, 1, 1]);
    assert_eq!(p.values.len(), 12);

    // A length prefix past the end of the page.
    let mut bad = body.clone();
    bad[0] = 200;
    let err = kind(page(&v1_header(4, bad.len()), &bad), ctx(4, 1));
    assert!(
        matches!(err, ErrorKind::InvalidHeader(ref m) if m.contains("levels of 200 bytes")),
        "{err}"
    );

    // A level above the column's max level is caught when decoding: max
    // level 2 takes 2 bits, which can also hold a 3.
    let wrong = pq_page::Levels::new(Bytes::from(levels_with(&[3, 0])), LevelEncoding::Rle, 2, 2);
    let err = wrong.decode_into(&mut out).unwrap_err();
    assert!(err.to_string().contains("max level"), "{err}");
}

fn levels_with(values: &[u32]) -> Vec<u8> {
    let mut out = Vec::new();
    pq_encoding::rle::encode(values, 2, &mut out);
    out
}

#[test]
fn bit_packed_levels() {
    // Deprecated MSB-first levels, width 2 for max level 3: 0 1 2 3.
    let levels = pq_page::Levels::new(
        Bytes::from_static(&[0b0001_1011]),
        LevelEncoding::BitPacked,
        3,
        4,
    );
    let mut out = Vec::new();
    levels.decode_into(&mut out).unwrap();
    assert_eq!(out, [0, 1, 2, 3]);
    // Decoding in pieces gives the same.
    let mut dec = levels.decoder().unwrap();
    let mut a = [0i16; 3];
    let mut b = [0i16; 3];
    assert_eq!(dec.decode(&mut a).unwrap(), 3);
    assert_eq!(dec.decode(&mut b).unwrap(), 1);
    assert_eq!((a, b[0]), ([0, 1, 2], 3));
}

#[test]
fn v2_level_lengths_within_the_page() {
    let h = PageHeader {
        type_: PageType::DATA_PAGE_V2,
        uncompressed_page_size: 8,
        compressed_page_size: 8,
        data_page_header_v2: Some(DataPageHeaderV2 {
            num_values: 2,
            num_nulls: 0,
            num_rows: 2,
            encoding: Encoding::PLAIN,
            definition_levels_byte_length: 6,
            repetition_levels_byte_length: 6,
            is_compressed: Some(false),
            statistics: None,
        }),
        ..Default::default()
    };
    let err = kind(page(&h, &[0; 8]), ctx(2, 1));
    assert!(
        matches!(err, ErrorKind::InvalidHeader(ref m) if m.contains("level byte lengths")),
        "{err}"
    );
}

#[test]
fn checksums() {
    let body: Vec<u8> = (0..3i32).flat_map(|v| v.to_le_bytes()).collect();
    let mut h = v1_header(3, body.len());
    h.crc = Some(crc32fast::hash(&body) as i32);
    let verify = PageOptions::default().with_verify_checksums(true);
    read_all(page(&h, &body), ctx(3, 0), &verify).unwrap();
    h.crc = Some(h.crc.unwrap() ^ 1);
    let err = read_all(page(&h, &body), ctx(3, 0), &verify).unwrap_err();
    assert!(matches!(err.kind, ErrorKind::Checksum { .. }));
    // Off by default.
    read_all(page(&h, &body), ctx(3, 0), &PageOptions::default()).unwrap();
}

#[test]
fn compressed_pages_decompress() {
    let body: Vec<u8> = (0..100i32).flat_map(|v| v.to_le_bytes()).collect();
    let mut compressed = Vec::new();
    pq_compress::compress(Codec::Snappy, &body, &mut compressed, None).unwrap();
    let mut h = v1_header(100, body.len());
    h.compressed_page_size = compressed.len() as i32;
    let mut chunk = page(&h, &compressed);
    chunk.extend(page(&h, &compressed));
    let mut c = ctx(200, 0);
    c.codec = Codec::Snappy;
    let pages = read_all(chunk.clone(), c.clone(), &PageOptions::default()).unwrap();
    for p in pages {
        let Page::Data(p) = p else { panic!() };
        assert_eq!(&p.values[..], &body[..]);
    }
    // A wrong declared size is an error, not a short page.
    let mut h2 = h.clone();
    h2.uncompressed_page_size += 1;
    let err = kind(
        page(&h2, &compressed),
        ChunkContext {
            num_values: 100,
            ..c
        },
    );
    assert!(matches!(err, ErrorKind::Decompress(_)), "{err}");
}

/// An optional column's v1 page claiming `n` values, all null, in one RLE
/// run of a few bytes: the levels are backed by no bytes at all.
fn all_null_page(n: u32) -> Vec<u8> {
    let mut levels = Vec::new();
    // RLE run header (count << 1), then the level 0 in one byte.
    let mut header = u64::from(n) << 1;
    while header >= 0x80 {
        levels.push((header as u8) | 0x80);
        header >>= 7;
    }
    levels.push(header as u8);
    levels.push(0);
    let mut body = (levels.len() as u32).to_le_bytes().to_vec();
    body.extend(&levels);
    page(&v1_header(n as i32, body.len()), &body)
}

#[test]
fn values_per_page_limit() {
    // 2^31 - 1 levels in 9 bytes: the header's count, not the bytes, would
    // size the levels.
    let n = i32::MAX as u32;
    let err = kind(all_null_page(n), ctx(u64::from(n), 1));
    assert!(
        matches!(&err, ErrorKind::LimitExceeded(m)
            if m.contains(&format!("data page of {n} values exceeds the limit of {} values per page",
                PageOptions::DEFAULT_MAX_PAGE_VALUES))
            && m.contains("max_page_values")),
        "{err}"
    );
    // Under a lower limit, a page at the limit reads and one past it does not.
    let options = PageOptions::default().with_max_page_values(1000);
    assert!(read_all(all_null_page(1000), ctx(1000, 1), &options).is_ok());
    let err = read_all(all_null_page(1001), ctx(1001, 1), &options).unwrap_err();
    assert!(matches!(err.kind, ErrorKind::LimitExceeded(_)), "{err}");
    assert_eq!(err.location.page, Some(0));
    assert_eq!(err.location.file_offset, Some(1000));
}

/// A PLAIN dictionary page header of `num_values` entries declaring
/// `uncompressed` bytes, `compressed` of them stored.
fn dict_header(num_values: i32, uncompressed: i32, compressed: i32) -> PageHeader {
    PageHeader {
        type_: PageType::DICTIONARY_PAGE,
        uncompressed_page_size: uncompressed,
        compressed_page_size: compressed,
        dictionary_page_header: Some(DictionaryPageHeader {
            num_values,
            encoding: Encoding::PLAIN,
            is_sorted: None,
        }),
        ..Default::default()
    }
}

fn dict_page(num_values: i32, body: &[u8]) -> Vec<u8> {
    let len = body.len() as i32;
    page(&dict_header(num_values, len, len), body)
}

#[test]
fn dictionary_size_limit() {
    let dict: Vec<u8> = (0..100i32).flat_map(|v| v.to_le_bytes()).collect();
    let mut chunk = dict_page(100, &dict);
    chunk.extend(required_page(1));
    let options = PageOptions::default().with_max_dictionary_size(400);
    assert!(read_all(chunk.clone(), ctx(1, 0), &options).is_ok());
    let options = options.with_max_dictionary_size(399);
    let err = read_all(chunk, ctx(1, 0), &options).unwrap_err();
    assert!(
        matches!(&err.kind, ErrorKind::LimitExceeded(m)
            if m.contains("dictionary page of 400 bytes exceeds the limit of 399 bytes")),
        "{err}"
    );
    assert_eq!(
        (err.location.page, err.location.file_offset),
        (Some(0), Some(1000))
    );

    // The default stops a compressed dictionary declaring more than 1 GiB
    // before it is decompressed.
    let h = dict_header(1, (1 << 30) + 1, 4);
    let mut c = ctx(1, 0);
    c.codec = Codec::Snappy;
    let err = kind(page(&h, &[0; 4]), c);
    assert!(
        matches!(&err, ErrorKind::LimitExceeded(m) if m.contains("max_dictionary_size")),
        "{err}"
    );
}

#[test]
fn chunk_decompressed_size_limit() {
    // Three pages of 40 value bytes each (plus headers).
    let mut chunk = Vec::new();
    for _ in 0..3 {
        chunk.extend(required_page(10));
    }
    let total = chunk.len() as i64;
    let strict = PageOptions::default().with_chunk_size_slack(0);
    let reader = |total: i64, options: &PageOptions| {
        PageReader::new(Bytes::from(chunk.clone()), ctx(30, 0), options)
            .with_total_uncompressed_size(total)
            .collect::<Result<Vec<_>, _>>()
    };
    // Exactly the metadata's size reads; so does a size off by the slack.
    assert!(reader(total, &strict).is_ok());
    assert!(reader(total - 10, &strict.clone().with_chunk_size_slack(10)).is_ok());
    // One byte short of what the pages decompress to: the last page fails.
    let err = reader(total - 1, &strict).unwrap_err();
    assert!(
        matches!(&err.kind, ErrorKind::LimitExceeded(m)
            if m.contains(&format!("decompress to {total} bytes, more than the chunk's total_uncompressed_size {}", total - 1))
            && m.contains("chunk_size_slack")),
        "{err}"
    );
    assert_eq!(err.location.page, Some(2));
    // The default slack lets small mistakes in the metadata through, and a
    // negative size turns the check off.
    assert!(reader(0, &PageOptions::default()).is_ok());
    assert!(reader(-1, &strict).is_ok());
}

#[test]
fn first_repetition_level_must_be_zero() {
    // A repeated column (max rep 1, max def 1) whose first level says
    // "continue the previous record".
    let mut body = Vec::new();
    pq_encoding::rle::encode_length_prefixed(&[1u32, 0], 1, &mut body);
    pq_encoding::rle::encode_length_prefixed(&[1u32, 1], 1, &mut body);
    body.extend([0u8; 8]);
    let mut c = ctx(2, 1);
    c.max_rep_level = 1;
    let err = kind(page(&v1_header(2, body.len()), &body), c);
    assert!(
        matches!(&err, ErrorKind::InvalidLevels(m)
            if m.contains("first repetition level is 1: a record must start with repetition level 0")),
        "{err}"
    );
}

/// A reused decompression buffer (the previous chunk's, holding other
/// bytes) gives the same pages as a fresh one, and comes back for the
/// next chunk once no page holds it.
#[test]
fn reused_page_buffer_reads_the_same_pages() {
    if !Codec::Snappy.is_available() {
        return;
    }
    let mut chunk = Vec::new();
    for n in [300i32, 7] {
        let body: Vec<u8> = (0..n).flat_map(|v| (v * 31).to_le_bytes()).collect();
        chunk.extend(compressed_page(Codec::Snappy, n, &body).0);
    }
    let ctx = ChunkContext {
        codec: Codec::Snappy,
        ..ctx(307, 0)
    };
    let fresh: Vec<Page> = PageReader::new(
        Bytes::from(chunk.clone()),
        ctx.clone(),
        &PageOptions::default(),
    )
    .collect::<Result<_, _>>()
    .unwrap();
    let mut reader = PageReader::new(Bytes::from(chunk), ctx, &PageOptions::default())
        .with_buffer(vec![0xAA; 1 << 16]);
    let mut reused = Vec::new();
    for p in reader.by_ref() {
        let Page::Data(p) = p.unwrap() else { panic!() };
        reused.push(p.values.to_vec());
    }
    let fresh: Vec<Vec<u8>> = fresh
        .iter()
        .map(|p| match p {
            Page::Data(p) => p.values.to_vec(),
            _ => panic!(),
        })
        .collect();
    assert_eq!(reused, fresh);
    assert!(reader.take_buffer().is_some());
}

/// A chunk of a long page then a short one (a writer's remainder) hands
/// the next chunk the long page's buffer, not the short one's, so that
/// its first long page decompresses into room it already has; the pages
/// read the same either way.
#[test]
fn next_chunk_gets_the_long_page_buffer() {
    if !Codec::Zstd.is_available() {
        return;
    }
    // Compressible values (a ratio above 4), as decimals' are.
    let pages = [200_000i32, 1_000];
    let mut chunk = Vec::new();
    let mut bodies = Vec::new();
    for n in pages {
        let body: Vec<u8> = (0..n).flat_map(|v| (v % 100).to_le_bytes()).collect();
        let (page, compressed) = compressed_page(Codec::Zstd, n, &body);
        assert!(compressed * 4 < body.len());
        chunk.extend(page);
        bodies.push(body);
    }
    let ctx = ChunkContext {
        codec: Codec::Zstd,
        ..ctx(pages.iter().sum::<i32>() as u64, 0)
    };
    let long = bodies[0].len();
    let mut reader = PageReader::new(Bytes::from(chunk), ctx, &PageOptions::default());
    let mut read = Vec::new();
    for p in reader.by_ref() {
        let Page::Data(p) = p.unwrap() else { panic!() };
        read.push(p.values.to_vec());
    }
    assert_eq!(read, bodies);
    let buffer = reader.take_buffer().expect("a buffer no page holds");
    assert!(
        buffer.capacity() >= long,
        "the next chunk gets {} bytes, its first page needs {long}",
        buffer.capacity()
    );
}

#[test]
fn level_runs_must_fit_the_page() {
    let levels = |bytes: &'static [u8], n| {
        let mut out = Vec::new();
        pq_page::Levels::new(Bytes::from_static(bytes), LevelEncoding::Rle, 1, n)
            .decode_into(&mut out)
            .map(|()| out)
    };
    // A repeated run of 3 ones then one of 2 zeros: exactly 5 levels.
    assert_eq!(
        levels(&[0x06, 0x01, 0x04, 0x00], 5).unwrap(),
        [1, 1, 1, 0, 0]
    );
    // The same runs for a page of 4 levels: the second run overruns.
    let err = levels(&[0x06, 0x01, 0x04, 0x00], 4).unwrap_err();
    assert_eq!(
        err.to_string(),
        "repeated run of 2 values at byte 2 runs past the 1 values that remain"
    );
    // For a page of 3 levels: the second run is left over.
    let err = levels(&[0x06, 0x01, 0x04, 0x00], 3).unwrap_err();
    assert_eq!(
        err.to_string(),
        "2 bytes left after the last run, which ends at byte 2"
    );
    // A bit-packed group of 8 for 5 levels: padding, allowed.
    assert_eq!(levels(&[0x03, 0b1_0101], 5).unwrap(), [1, 0, 1, 0, 1]);
    // Two groups (16 levels) for 5 whose bytes end the block: whole groups
    // of padding, as DuckDB writes its last run.
    assert_eq!(levels(&[0x05, 0b1_0101, 0], 5).unwrap(), [1, 0, 1, 0, 1]);
    // The same run with another after it: a whole group past the page.
    let err = levels(&[0x05, 0b1_0101, 0, 0x02, 0x01], 5).unwrap_err();
    assert!(
        err.to_string().contains("bit-packed run of 16 values"),
        "{err}"
    );
}

#[test]
fn a_wrong_uncompressed_size_is_ignored_in_an_uncompressed_chunk() {
    // The body is the page: compressed_page_size frames it, and the
    // uncompressed size, a copy other readers ignore, cannot change it.
    let body: Vec<u8> = (0..3i32).flat_map(|v| v.to_le_bytes()).collect();
    for wrong in [0, 11, 13, i32::MAX] {
        let mut h = v1_header(3, body.len());
        h.uncompressed_page_size = wrong;
        let mut chunk = page(&h, &body);
        chunk.extend(required_page(2));
        let pages = read_all(chunk, ctx(5, 0), &PageOptions::default())
            .unwrap_or_else(|e| panic!("uncompressed_page_size {wrong}: {e}"));
        assert_eq!(pages.len(), 2);
        let Page::Data(p) = &pages[0] else { panic!() };
        assert_eq!(&p.values[..], &body[..], "uncompressed_page_size {wrong}");
    }
}

#[test]
fn a_dictionary_page_is_plain() {
    let body = [1u8, 0, 0, 0];
    for (encoding, ok) in [
        (Encoding::PLAIN, true),
        (Encoding::PLAIN_DICTIONARY, true),
        (Encoding::RLE, false),
        (Encoding::RLE_DICTIONARY, false),
        (Encoding(16), false),
    ] {
        let mut header = dict_header(1, 4, 4);
        if let Some(d) = header.dictionary_page_header.as_mut() {
            d.encoding = encoding;
        }
        let mut chunk = page(&header, &body);
        chunk.extend(required_page(1));
        let read = read_all(chunk, ctx(1, 0), &PageOptions::default());
        match (read, ok) {
            (Ok(pages), true) => assert_eq!(pages.len(), 2),
            (Err(e), false) => assert!(
                matches!(&e.kind, ErrorKind::InvalidHeader(m)
                    if m.contains(&format!("dictionary page encoded {encoding}"))),
                "{e}"
            ),
            (r, _) => panic!("{encoding}: {:?}", r.map(|p| p.len())),
        }
    }
}
