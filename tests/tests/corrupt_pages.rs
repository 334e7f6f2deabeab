//! Hand-built corruptions of pages that other readers report and pq must
//! report too, never decoding them into rows: level runs longer than the
//! page, levels that leave runs over, dictionary index runs past the
//! page's values, negative counts in the metadata, and the headers other
//! readers decode (DELTA with a huge block size or total) that pq must
//! decode too, and PLAIN values that do not fill their page exactly.
//!
//! Each file is written by pq-arrow's writer in memory; the bytes to change
//! are found from the footer and the page header, so the test does not
//! depend on where the writer puts things.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int32Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use pq_arrow::write::{DataPageVersion, ParquetWriter, WriterOptions};
use pq_format::{PageHeader, ThriftDecode, ThriftEncode};

/// 5000 rows of an optional INT32 column `x`: `first` rows null, the rest
/// the row number (or the rows where `null` says so null).
fn column(null: impl Fn(usize) -> bool) -> ArrayRef {
    Arc::new(Int32Array::from_iter(
        (0..5000).map(|i| (!null(i)).then_some(i as i32)),
    ))
}

fn write(array: ArrayRef, options: WriterOptions) -> Bytes {
    let schema = Arc::new(Schema::new(vec![Field::new(
        "x",
        array.data_type().clone(),
        true,
    )]));
    let batch = RecordBatch::try_new(schema.clone(), vec![array]).unwrap();
    // Bytes are planted in the pages' bodies, so they are written as they are.
    let options = options
        .into_builder()
        .set_compression(pq_arrow::write::Codec::Uncompressed)
        .build();
    let mut w = ParquetWriter::try_new(Vec::new(), schema, options).unwrap();
    w.write(&batch).unwrap();
    let (bytes, _) = w.close_into_inner().unwrap();
    Bytes::from(bytes)
}

fn plain(version: DataPageVersion) -> WriterOptions {
    WriterOptions::builder()
        .set_dictionary_enabled(false)
        .set_statistics_enabled(false)
        .set_writer_version(version)
        .set_data_page_size_limit(1 << 20)
        .set_data_page_row_count_limit(1 << 20)
        .build()
}

/// The file offset of the first page of the first column chunk (the
/// dictionary page, if any), its header and the offset of its body.
fn first_page(file: &[u8]) -> (usize, PageHeader, usize) {
    let meta = pq_format::read_metadata_from_slice(file, &Default::default()).unwrap();
    let cmd = meta.row_groups[0].columns[0].meta_data.clone().unwrap();
    let at = cmd
        .dictionary_page_offset
        .filter(|&d| d > 0)
        .unwrap_or(cmd.data_page_offset) as usize;
    let (header, len) = PageHeader::decode_prefix(&file[at..], &Default::default()).unwrap();
    (at, header, at + len)
}

/// The file offset of the first data page, and of its definition level
/// runs (after the v1 length prefix).
fn def_levels(file: &[u8]) -> (usize, usize) {
    let (at, header, body) = first_page(file);
    if header.data_page_header_v2.is_some() {
        (at, body)
    } else {
        (at, body + 4)
    }
}

/// Reads `file` whole with pq-arrow: the rows, or the error message.
fn read(file: Bytes) -> Result<RecordBatch, String> {
    let r = pq_arrow::ParquetReader::from_bytes(file).map_err(|e| e.to_string())?;
    let r = r.build().map_err(|e| e.to_string())?;
    let schema = r.schema();
    let batches = r
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| pq_arrow::Error::from(e).to_string())?;
    Ok(arrow_select::concat::concat_batches(&schema, &batches).unwrap())
}

/// Whether arrow-rs reads `file` (it is the reference of what must fail).
fn arrow_rs_reads(file: Bytes) -> bool {
    let Ok(b) = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file) else {
        return false;
    };
    let Ok(r) = b.build() else {
        return false;
    };
    r.collect::<Result<Vec<_>, _>>().is_ok()
}

fn expect_error(file: Bytes, pieces: &[&str]) {
    let e = match read(file) {
        Ok(b) => panic!("read {} rows of corrupt data", b.num_rows()),
        Err(e) => e,
    };
    assert!(!e.contains('\n'), "not one line: {e}");
    for p in pieces {
        assert!(e.contains(p), "{e:?} lacks {p:?}");
    }
}

#[test]
fn a_huge_bit_packed_run_planted_in_the_levels_is_an_error() {
    // Nulls scattered, so the levels are bit-packed runs.
    for version in [DataPageVersion::V1, DataPageVersion::V2] {
        let mut file = write(column(|i| i % 7 == 3 || i % 11 == 0), plain(version)).to_vec();
        let original = read(Bytes::from(file.clone())).unwrap();
        assert_eq!(original.column(0).null_count(), 1104);
        let (page, levels) = def_levels(&file);
        file[levels..levels + 5].copy_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
        let file = Bytes::from(file);
        assert!(!arrow_rs_reads(file.clone()));
        expect_error(
            file,
            &[
                "column x",
                "row group 0",
                "page 0",
                &format!("file offset {page}"),
                "definition levels",
                "bit-packed run of 17179869176 values at byte 0 runs past the 5000 values \
                 that remain",
            ],
        );
    }
}

/// The levels of 2500 nulls then 2500 values, as two repeated runs.
const TWO_RUNS: [u8; 6] = [0x88, 0x27, 0x00, 0x88, 0x27, 0x01];

#[test]
fn a_repeated_level_run_longer_than_the_page_is_an_error() {
    for version in [DataPageVersion::V1, DataPageVersion::V2] {
        let mut file = write(column(|i| i < 2500), plain(version)).to_vec();
        let (page, levels) = def_levels(&file);
        assert_eq!(file[levels..levels + 6], TWO_RUNS);
        // The nulls' run claims 6000 levels: read as 5000 nulls before.
        file[levels..levels + 2].copy_from_slice(&[0xe0, 0x5d]);
        expect_error(
            Bytes::from(file),
            &[
                "column x",
                "page 0",
                &format!("file offset {page}"),
                "definition levels: repeated run of 6000 values at byte 0 runs past the 5000 \
                 values that remain",
            ],
        );
    }
}

#[test]
fn level_runs_left_after_the_page_are_an_error() {
    for version in [DataPageVersion::V1, DataPageVersion::V2] {
        let mut file = write(column(|i| i < 2500), plain(version)).to_vec();
        let (page, levels) = def_levels(&file);
        assert_eq!(file[levels..levels + 6], TWO_RUNS);
        // The nulls' run covers the page: the values' run is left over.
        // Read as 5000 nulls before.
        file[levels..levels + 2].copy_from_slice(&[0x90, 0x4e]);
        expect_error(
            Bytes::from(file),
            &[
                "column x",
                "page 0",
                &format!("file offset {page}"),
                "definition levels: 3 bytes left after the last run, which ends at byte 3",
            ],
        );
    }
}

#[test]
fn a_padded_last_bit_packed_run_still_reads() {
    // 5000 is a multiple of 8; 4999 rows leave the last group padded by 1.
    let array: ArrayRef = Arc::new(Int32Array::from_iter(
        (0..4999).map(|i| (i % 3 != 0).then_some(i)),
    ));
    for version in [DataPageVersion::V1, DataPageVersion::V2] {
        let file = write(array.clone(), plain(version));
        let batch = read(file).unwrap();
        assert_eq!(batch.column(0).as_ref(), array.as_ref());
    }
}

#[test]
fn a_dictionary_index_run_past_the_page_is_an_error() {
    // No nulls; two values, 2500 rows each: two repeated runs of indices.
    let array: ArrayRef = Arc::new(Int32Array::from_iter_values(
        (0..5000).map(|i| if i < 2500 { 7 } else { 9 }),
    ));
    let options = WriterOptions::builder()
        .set_dictionary_enabled(true)
        .set_statistics_enabled(false)
        .build();
    let mut file = write(array, options).to_vec();
    let (_, dict_header, dict_body) = first_page(&file);
    let data_page = dict_body + dict_header.compressed_page_size as usize;
    let (header, len) = PageHeader::decode_prefix(&file[data_page..], &Default::default()).unwrap();
    assert!(header.data_page_header.is_some());
    // v1 body: the definition levels (one run of 5000 ones, length
    // prefixed), then the indices' bit width and runs.
    let levels_len = u32::from_le_bytes(file[data_page + len..][..4].try_into().unwrap());
    let indices = data_page + len + 4 + levels_len as usize;
    assert_eq!(
        file[indices..indices + 7],
        [1, 0x88, 0x27, 0x00, 0x88, 0x27, 0x01]
    );
    // The first run claims 6000 indices: read as 5000 sevens before.
    file[indices + 1..indices + 3].copy_from_slice(&[0xe0, 0x5d]);
    expect_error(
        Bytes::from(file),
        &[
            "column x",
            "page 1",
            &format!("file offset {data_page}"),
            "repeated run of 6000 values at byte 0 runs past the 5000 values that remain",
        ],
    );
}

#[test]
fn negative_counts_in_the_metadata_are_errors() {
    let file = write(column(|i| i % 5 == 0), plain(DataPageVersion::V1));
    type Edit = fn(&mut pq_format::FileMetaData);
    let cases: &[(Edit, &str)] = &[
        (
            |m| m.row_groups[0].num_rows = -1,
            "negative num_rows of row group 0 -1",
        ),
        (
            |m| m.row_groups[0].num_rows = i64::from(i32::MIN),
            "negative num_rows of row group 0 -2147483648",
        ),
        (|m| m.num_rows = -1, "negative FileMetaData.num_rows -1"),
    ];
    for (edit, message) in cases {
        expect_error(pq_tests::with_footer(&file, edit), &[message]);
    }
}

#[test]
fn a_row_count_the_chunks_do_not_hold_names_both() {
    let file = write(column(|i| i % 5 == 0), plain(DataPageVersion::V1));
    let file = pq_tests::with_footer(&file, |m| m.row_groups[0].num_rows = 1_000_000_000);
    expect_error(
        file,
        &[
            "column x",
            "row group 0",
            "the row group declares 1000000000 rows",
            "5000",
        ],
    );
}

/// A file of `values` in one DELTA_BINARY_PACKED page, with the page's
/// DELTA header edited by `edit` (block size, miniblocks, total, first
/// value, the rest of the stream).
fn delta_file(values: &[i32], block_size: u64, total: u64) -> Bytes {
    let array: ArrayRef = Arc::new(Int32Array::from(values.to_vec()));
    let options = WriterOptions::builder()
        .set_statistics_enabled(false)
        .set_encoding(pq_format::Encoding::DELTA_BINARY_PACKED)
        .set_dictionary_enabled(false)
        .build();
    let file = write(array, options).to_vec();
    let (at, header, body) = first_page(&file);
    let h = header.data_page_header.as_ref().unwrap();
    assert_eq!(h.encoding, pq_format::Encoding::DELTA_BINARY_PACKED);
    let levels_len = u32::from_le_bytes(file[body..][..4].try_into().unwrap()) as usize;
    let stream = body + 4 + levels_len;
    // The writer's header: block size 128 (2 bytes), 4 miniblocks, the
    // total as a varint.
    assert_eq!(file[stream..stream + 3], [0x80, 0x01, 4]);
    let mut pos = stream + 3;
    while file[pos] & 0x80 != 0 {
        pos += 1;
    }
    pos += 1;
    let mut new_header = Vec::new();
    uleb(&mut new_header, block_size);
    new_header.push(4);
    uleb(&mut new_header, total);
    let grow = new_header.len() as i32 - (pos - stream) as i32;
    let mut page_header = header.clone();
    page_header.compressed_page_size += grow;
    page_header.uncompressed_page_size += grow;
    let mut out = file[..at].to_vec();
    out.extend_from_slice(&page_header.encode());
    out.extend_from_slice(&file[body..stream]);
    out.extend_from_slice(&new_header);
    out.extend_from_slice(&file[pos..body + header.compressed_page_size as usize]);
    let moved = out.len() as i64 - (body + header.compressed_page_size as usize) as i64;
    out.extend_from_slice(&file[body + header.compressed_page_size as usize..]);
    pq_tests::with_footer(&out, |m| {
        let cmd = m.row_groups[0].columns[0].meta_data.as_mut().unwrap();
        cmd.total_compressed_size += moved;
        cmd.total_uncompressed_size += moved;
    })
}

fn uleb(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

#[test]
fn delta_headers_other_readers_decode_are_decoded() {
    let values: Vec<i32> = (0..20).map(|i| i * 3 - 11).collect();
    for (block_size, total) in [(128, 20), (1 << 31, 20), (128, (1 << 31) - 1)] {
        let file = delta_file(&values, block_size, total);
        assert!(arrow_rs_reads(file.clone()), "{block_size} {total}");
        let batch = read(file).unwrap_or_else(|e| panic!("{block_size} {total}: {e}"));
        let expected: ArrayRef = Arc::new(Int32Array::from(values.clone()));
        assert_eq!(batch.column(0).as_ref(), expected.as_ref());
    }
    // A block size that is no multiple of 128: the message says the rule.
    expect_error(
        delta_file(&values, 100, 20),
        &["invalid DELTA block size: expected a positive multiple of 128 below 2^32, found 100"],
    );
}

#[test]
fn a_corrupt_arrow_schema_hint_is_one_line() {
    let file = write(column(|i| i % 5 == 0), plain(DataPageVersion::V1));
    let file = pq_tests::with_footer(&file, |m| {
        let kv = m.key_value_metadata.get_or_insert_with(Vec::new);
        kv.retain(|kv| kv.key != "ARROW:schema");
        kv.push(pq_format::KeyValue {
            key: "ARROW:schema".into(),
            // Base64 of bytes that are no flatbuffer.
            value: Some("/////xAAAAAAAAAAAAAAAAAAAAAAAAAA".into()),
        });
    });
    expect_error(file.clone(), &["invalid ARROW:schema metadata"]);
    // Skipping the hint reads the Parquet schema's columns.
    let r = pq_arrow::ParquetReader::from_bytes(file).unwrap();
    let batches: Vec<RecordBatch> = r
        .with_skip_arrow_metadata(true)
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 5000);
    assert_eq!(batches[0].schema().field(0).data_type(), &DataType::Int32);
}

#[test]
fn a_row_group_of_no_rows_with_values_is_an_error() {
    // Read as no rows before: the chunk's 5000 values dropped silently.
    let file = write(column(|i| i % 5 == 0), plain(DataPageVersion::V1));
    let file = pq_tests::with_footer(&file, |m| m.row_groups[0].num_rows = 0);
    expect_error(
        file,
        &[
            "column x",
            "row group 0",
            "the row group declares 0 rows but the column chunk holds 5000 values",
        ],
    );
}

#[test]
fn plain_values_that_do_not_fill_the_page_exactly_are_an_error() {
    // An optional column without nulls, its schema edited to required: the
    // page's definition levels (a length and one run, 7 bytes) are then
    // read as values, shifting every value by 7 bytes.
    let file = write(column(|_| false), plain(DataPageVersion::V1));
    let edited = pq_tests::with_footer(&file, |m| {
        m.schema[1].repetition_type = Some(pq_format::FieldRepetitionType::REQUIRED);
    });
    expect_error(
        edited,
        &[
            "column x",
            "row group 0",
            "5000 PLAIN values take 20000 bytes, the page holds 20007",
        ],
    );
    // The same for a fixed-length byte array of 6 bytes.
    let fixed: ArrayRef = Arc::new(
        arrow_array::FixedSizeBinaryArray::try_from_iter((0..100u32).map(|i| [i as u8; 6]))
            .unwrap(),
    );
    let file = write(fixed, plain(DataPageVersion::V1));
    assert_eq!(read(file.clone()).unwrap().num_rows(), 100);
    let edited = pq_tests::with_footer(&file, |m| {
        m.schema[1].repetition_type = Some(pq_format::FieldRepetitionType::REQUIRED);
    });
    expect_error(
        edited,
        &["100 PLAIN values take 600 bytes, the page holds 607"],
    );
}

#[test]
fn a_wrong_chunk_value_count_is_ignored_when_the_pages_agree_with_the_row_group() {
    // Several pages, so that a count that stops too early or too late would
    // show; the value count a column that is not repeated holds is its rows.
    let options = plain(DataPageVersion::V1)
        .into_builder()
        .set_data_page_size_limit(4096)
        .set_data_page_row_count_limit(4096)
        .build();
    let file = write(column(|i| i % 5 == 0), options);
    let original = read(file.clone()).unwrap();
    for wrong in [-5, 0, 1, 4999, 5001, i64::from(i32::MAX)] {
        let edited = pq_tests::with_footer(&file, |m| {
            m.row_groups[0].columns[0]
                .meta_data
                .as_mut()
                .unwrap()
                .num_values = wrong;
        });
        assert!(arrow_rs_reads(edited.clone()), "arrow-rs reads {wrong}");
        let got = read(edited).unwrap_or_else(|e| panic!("num_values {wrong}: {e}"));
        assert_eq!(got, original, "num_values {wrong}");
    }
    // The rows still count: a row group claiming more rows than the pages
    // hold is an error whatever the chunk's count says.
    let edited = pq_tests::with_footer(&file, |m| {
        m.row_groups[0].num_rows = 5001;
        m.row_groups[0].columns[0]
            .meta_data
            .as_mut()
            .unwrap()
            .num_values = 5001;
    });
    expect_error(edited, &["column x", "row group 0", "5001"]);
}
