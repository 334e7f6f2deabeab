//! Every file of the corpus's `bad_data/` directory gives a specific error
//! naming what is wrong and where (column, row group, page, file offset), or,
//! for the file other readers read on purpose, the values they read.
//!
//! [`EXPECTED`] lists every file: a file the corpus adds later fails
//! [`every_bad_data_file_is_listed`] until its expected error is written
//! down here.

use std::path::PathBuf;

use arrow_array::cast::AsArray;
use arrow_array::types::UInt16Type;
use arrow_array::{Array, RecordBatch};

/// What reading a file must give.
enum Expect {
    /// An error whose message holds every one of these pieces.
    Error(&'static [&'static str]),
    /// Read without error; checked by its own test.
    Readable,
}

/// Every `bad_data/` file, with what it breaks (from the corpus README) and
/// the pieces of our error message that say so.
const EXPECTED: &[(&str, &str, Expect)] = &[
    (
        "ARROW-GH-41317.parquet",
        "columns not all of the same size: the footer is corrupt, a list's \
         element type does not match the schema",
        Expect::Error(&[
            "malformed Parquet metadata at file offset 49313",
            "malformed Thrift at byte 13783",
            "list element type 4, expected 5",
        ]),
    ),
    (
        "ARROW-GH-41321.parquet",
        "fewer decoded levels than the page header's num_values",
        Expect::Error(&[
            "column int64, row group 0, page 1, file offset 1313",
            "definition levels",
            "unexpected end of input",
        ]),
    ),
    ("ARROW-GH-43605.parquet", "", Expect::Readable),
    (
        "ARROW-GH-45185.parquet",
        "repetition levels start with 1 instead of 0",
        Expect::Error(&[
            "column x.list.element, row group 0, page 0, file offset 4",
            "the column chunk's first repetition level is 1: a record must start with \
             repetition level 0",
        ]),
    ),
    (
        "ARROW-GH-47662.parquet",
        "a required column holding nulls: the page's values are short of its \
         num_values",
        Expect::Error(&[
            "column flba_field, row group 0, page 0, file offset 4",
            "100 PLAIN values take 400 bytes, the page holds 364",
        ]),
    ),
    (
        "ARROW-RS-GH-6229-DICTHEADER.parquet",
        "a dictionary page header with a negative num_values (and chunks past \
         the end of the file, found first when every column is read)",
        Expect::Error(&[
            "column region_key, row group 0, file offset 466",
            "invalid column chunk range: chunk at 466..591 runs past the end of the file \
             (533 bytes)",
        ]),
    ),
    (
        "ARROW-RS-GH-6229-LEVELS.parquet",
        "a page with more levels than the chunk holds values",
        Expect::Error(&[
            "column outer.list.item.c, row group 0, page 1, file offset 19",
            "pages hold 21 values, the column chunk metadata says 1",
        ]),
    ),
    (
        "PARQUET-1481.parquet",
        "a corrupted physical type in the schema",
        Expect::Error(&[
            "schema error at column Handle",
            "unknown physical type value -7",
        ]),
    ),
];

fn bad_data_dir() -> Option<PathBuf> {
    Some(pq_tests::corpus_dir()?.join("bad_data"))
}

fn read(path: &std::path::Path, columns: Option<&[&str]>) -> Result<Vec<RecordBatch>, String> {
    let mut reader = pq_arrow::ParquetReader::open(path).map_err(|e| e.to_string())?;
    if let Some(c) = columns {
        let paths = c
            .iter()
            .map(|name| pq_format::ColumnPath::from(&[*name][..]));
        let mask = pq_arrow::ProjectionMask::columns(reader.parquet_schema(), paths);
        reader = reader.with_projection(mask);
    }
    reader
        .build()
        .map_err(|e| e.to_string())?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| pq_arrow::Error::from(e).to_string())
}

fn expect_error(path: &std::path::Path, columns: Option<&[&str]>, pieces: &[&str]) {
    let name = path.display();
    let message = match read(path, columns) {
        Ok(b) => panic!(
            "{name} ({columns:?}): read {} batches, expected an error",
            b.len()
        ),
        Err(e) => e,
    };
    for piece in pieces {
        assert!(
            message.contains(piece),
            "{name} ({columns:?}): error {message:?} lacks {piece:?}"
        );
    }
}

#[test]
fn every_bad_data_file_is_listed() {
    let Some(dir) = bad_data_dir() else { return };
    let mut found = 0;
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".parquet") {
            continue;
        }
        found += 1;
        assert!(
            EXPECTED.iter().any(|(n, _, _)| *n == name),
            "bad_data/{name} is not in EXPECTED: add the error it must give"
        );
    }
    assert_eq!(
        found,
        EXPECTED.len(),
        "files listed in EXPECTED are missing"
    );
}

#[test]
fn every_bad_data_file_gives_its_error() {
    let Some(dir) = bad_data_dir() else { return };
    for (name, why, expect) in EXPECTED {
        if let Expect::Error(pieces) = expect {
            eprintln!("{name}: {why}");
            expect_error(&dir.join(name), None, pieces);
        }
    }
}

#[test]
fn dictheader_columns_each_name_their_own_defect() {
    // Read one column at a time, each chunk shows its own corruption; the
    // one the file was made for is the negative dictionary num_values.
    let Some(dir) = bad_data_dir() else { return };
    let path = dir.join("ARROW-RS-GH-6229-DICTHEADER.parquet");
    expect_error(
        &path,
        Some(&["name"]),
        &[
            "column name, row group 0, page 0, file offset 129",
            "invalid page header: negative dictionary page num_values -26",
        ],
    );
    expect_error(
        &path,
        Some(&["nation_key"]),
        &[
            "column nation_key, row group 0, page 0, file offset 4",
            "required field DataPageHeader.num_values is missing",
        ],
    );
    expect_error(
        &path,
        Some(&["comment_col"]),
        &["chunk at 591..2593 runs past the end of the file (533 bytes)"],
    );
}

#[test]
fn arrow_gh_43605_reads_as_pyarrow_does() {
    // Dictionary indices of bit width 0 are all index 0: pyarrow reads
    // 21186 rows of the dictionary's single value 0, no nulls.
    let Some(dir) = bad_data_dir() else { return };
    let batches = read(&dir.join("ARROW-GH-43605.parquet"), None).unwrap();
    let mut rows = 0;
    for b in &batches {
        assert_eq!(b.num_columns(), 1);
        assert_eq!(b.schema().field(0).name(), "min_fl");
        let col = b.column(0).as_primitive::<UInt16Type>();
        assert_eq!(col.null_count(), 0);
        assert!(col.values().iter().all(|&v| v == 0));
        rows += b.num_rows();
    }
    assert_eq!(rows, 21186);
}
