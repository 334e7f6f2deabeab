//! Reading from a path holds a few pages per column, not column chunks,
//! and reads each byte of them once.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use pq_arrow::ParquetReader;
use pq_arrow::write::{Codec, ParquetWriter, WriterOptions};

const COLUMNS: usize = 8;
const ROWS: usize = 1 << 20;
const PAGE: usize = 256 << 10;

/// Writes `COLUMNS` INT64 columns of `rows` rows to `path`, in batches of
/// `step` rows, value `value(row, column)`.
fn write_columns(
    path: &Path,
    rows: usize,
    step: usize,
    options: WriterOptions,
    value: impl Fn(usize, usize) -> i64,
) {
    let fields: Vec<Field> = (0..COLUMNS)
        .map(|c| Field::new(format!("c{c}"), DataType::Int64, false))
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let file = std::fs::File::create(path).unwrap();
    let mut w = ParquetWriter::try_new(file, schema.clone(), options).unwrap();
    for start in (0..rows).step_by(step) {
        let columns: Vec<ArrayRef> = (0..COLUMNS)
            .map(|c| {
                let v: Int64Array = (start..(start + step).min(rows))
                    .map(|i| value(i, c))
                    .collect();
                Arc::new(v) as ArrayRef
            })
            .collect();
        w.write(&RecordBatch::try_new(schema.clone(), columns).unwrap())
            .unwrap();
    }
    w.close().unwrap();
}

/// Reads every batch, giving the rows read.
fn read_rows(batches: &mut pq_arrow::ParquetRecordBatchReader) -> usize {
    let mut rows = 0;
    while let Some(b) = batches.next_batch().unwrap() {
        rows += b.num_rows();
    }
    rows
}

#[test]
fn a_path_is_read_a_few_pages_per_column_at_a_time() {
    let dir = std::env::temp_dir().join(format!("pq-bounded-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("wide.parquet");
    let options = WriterOptions::builder()
        .set_compression(Codec::Uncompressed)
        .set_dictionary_enabled(false)
        .set_data_page_size_limit(PAGE)
        .set_max_row_group_size(ROWS)
        .build();
    write_columns(&path, ROWS, 1 << 16, options, |i, c| {
        (i as i64).wrapping_mul(c as i64 + 7) ^ 0x5555
    });

    let reader = ParquetReader::open(&path).unwrap();
    let chunk = reader.metadata().row_groups[0].columns[0]
        .meta_data
        .as_ref()
        .unwrap()
        .total_compressed_size as usize;
    assert_eq!(reader.num_row_groups(), 1);
    assert!(chunk > 16 * PAGE, "a chunk of {chunk} bytes");
    drop(reader);
    // With decoding threads, each column's next page is also read ahead.
    for threads in [1, 3] {
        let mut batches = ParquetReader::open(&path)
            .unwrap()
            .with_threads(threads)
            .build()
            .unwrap();
        assert_eq!(read_rows(&mut batches), ROWS);
        let peak = batches.peak_buffered_bytes();
        let budget = COLUMNS * 4 * PAGE;
        println!(
            "{threads} threads: peak {peak} bytes held, chunk {chunk} bytes, {} requests, \
             {} bytes read",
            batches.requests(),
            batches.bytes_read()
        );
        assert!(peak > 0);
        assert!(
            peak <= budget,
            "{threads} threads: {peak} bytes held at once, more than {budget} (4 pages per column)"
        );
        // Every byte of the chunks read about once.
        let data: u64 = (COLUMNS * chunk) as u64;
        assert!(
            batches.bytes_read() >= data && batches.bytes_read() < data + data / 8,
            "{threads} threads: {} bytes read for {data}",
            batches.bytes_read()
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A file of one compressed page per column chunk (as DuckDB writes them)
/// is read from a path a column at a time: one column's compressed page is
/// held, not every column's beside their decompressed copies.
#[test]
fn a_path_of_one_page_per_chunk_holds_one_compressed_page() {
    const ROWS: usize = 1 << 18;
    let dir = std::env::temp_dir().join(format!("pq-one-page-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("one-page.parquet");
    let options = WriterOptions::builder()
        .set_compression(Codec::Snappy)
        .set_dictionary_enabled(false)
        .set_data_page_size_limit(64 << 20)
        .set_data_page_row_count_limit(ROWS)
        .set_max_row_group_size(ROWS)
        .build();
    write_columns(&path, ROWS, ROWS, options, |i, c| {
        ((i as i64).wrapping_mul(c as i64 + 7) ^ 0x5555) % 100_000
    });

    let reader = ParquetReader::open(&path).unwrap();
    let largest = reader.metadata().row_groups[0]
        .columns
        .iter()
        .map(|c| c.meta_data.as_ref().unwrap().total_compressed_size as usize)
        .max()
        .unwrap();
    assert!(largest > 1 << 20, "a chunk of {largest} bytes");
    let mut batches = reader.build().unwrap();
    assert_eq!(read_rows(&mut batches), ROWS);
    // One page per chunk: a first read of each column's guessed size,
    // then its whole page.
    let pages = COLUMNS;
    let peak = batches.peak_buffered_bytes();
    println!(
        "peak {peak} bytes held, largest chunk {largest} bytes, {} requests",
        batches.requests()
    );
    assert!(batches.requests() <= 2 * pages as u64);
    // A column's page and the first read of the next column's at most;
    // gathered, every column's page was held (8 of them).
    assert!(
        peak < 2 * largest,
        "{peak} bytes held at once, two chunks of {largest} bytes or more"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Files of one page per column chunk, row group after row group (as DuckDB
/// writes them), with and without dictionaries: no byte is read twice but
/// the first row group's first guesses. The first
/// read of a chunk covers its dictionary page (placed by the chunk's
/// metadata) and a data page as long as the column's last chunk's first,
/// and a page a little longer than guessed is read to the chunk's end
/// rather than again (each chunk's first 64 KiB were read twice before:
/// DuckDB's files 6 % over).
#[test]
fn one_page_chunks_are_read_once() {
    const ROWS: usize = 1 << 17;
    const GROUPS: usize = 6;
    let dir = std::env::temp_dir().join(format!("pq-read-once-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, codec, dictionary) in [
        ("plain", Codec::Uncompressed, false),
        ("snappy", Codec::Snappy, false),
        ("dictionary", Codec::Snappy, true),
    ] {
        let path = dir.join(format!("{name}.parquet"));
        let options = WriterOptions::builder()
            .set_compression(codec)
            .set_dictionary_enabled(dictionary)
            .set_data_page_size_limit(64 << 20)
            .set_data_page_row_count_limit(ROWS)
            .set_max_row_group_size(ROWS)
            .build();
        // Values whose compressed pages differ in size from one row group
        // to the next; 5 000 of them, so that dictionaries stay.
        write_columns(&path, GROUPS * ROWS, ROWS, options, |i, c| {
            let x = (i as u64 ^ (c as u64) << 40).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            ((x >> 33) % (5_000 + (i / ROWS) as u64 * 300)) as i64
        });
        let reader = ParquetReader::open(&path).unwrap();
        let md = reader.metadata();
        assert_eq!(md.row_groups.len(), GROUPS);
        let chunk = |g: usize, c: usize| {
            md.row_groups[g].columns[c]
                .meta_data
                .as_ref()
                .unwrap()
                .total_compressed_size as u64
        };
        let data: u64 = (0..GROUPS)
            .flat_map(|g| (0..COLUMNS).map(move |c| (g, c)))
            .map(|(g, c)| chunk(g, c))
            .sum();
        // The first row group's first guesses, each read again at most.
        let guessed = (COLUMNS * pq_page::PageOptions::DEFAULT_MIN_READ) as u64;
        assert!(
            (0..COLUMNS).all(|c| chunk(0, c) > 2 * pq_page::PageOptions::DEFAULT_MIN_READ as u64),
            "{name}: pages longer than the first guess"
        );
        let mut batches = reader.build().unwrap();
        assert_eq!(read_rows(&mut batches), GROUPS * ROWS);
        let read = batches.bytes_read();
        println!(
            "{name}: {read} bytes read of {data} in {} requests",
            batches.requests()
        );
        assert!(read >= data, "{name}: {read} bytes read of {data}");
        assert!(
            read - data <= guessed,
            "{name}: {} bytes read twice, more than the first row group's guesses ({guessed})",
            read - data
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
