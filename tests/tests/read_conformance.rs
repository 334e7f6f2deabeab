//! pq-arrow reads every corpus file and every fixture exactly as the
//! arrow-rs `parquet` reader does: same Arrow schema, same values.
//!
//! Where arrow-rs itself fails or is wrong ([`PYARROW_REFERENCE`]), the
//! reference is pyarrow instead: `tests/pyarrow_to_ipc.py` reads the file
//! with pyarrow and writes an Arrow IPC file, which this test reads with
//! `arrow-ipc` and compares with ours. Files pq-arrow cannot read yet are
//! listed in [`KNOWN_FAILURES`] with the reason; every other file must match.
//! Every `bad_data/` file and every encrypted file must give an error, never
//! a panic.

use std::fs::File;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::Command;

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch, RecordBatchReader};
use arrow_schema::SchemaRef;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

/// Files where arrow-rs fails or differs from pyarrow: compared with
/// pyarrow (26) instead.
const PYARROW_REFERENCE: &[(&str, &str)] = &[
    (
        "dict-page-offset-zero.parquet",
        "arrow-rs rejects the chunk whose dictionary_page_offset is 0",
    ),
    (
        "nation.dict-malformed.parquet",
        "arrow-rs fails on the malformed dictionary page header",
    ),
    (
        "repeated_no_annotation.parquet",
        "arrow-rs fails on this repeated group without LIST annotation",
    ),
    (
        "int96_from_spark.parquet",
        "arrow-rs differs from pyarrow on INT96 values that overflow i64 nanoseconds",
    ),
];

/// Files pq-arrow cannot read (or read identically) yet, with the reason.
const KNOWN_FAILURES: &[(&str, &str)] = &[];

/// Files checked by their own test rather than by [`check_all`].
const READ_SEPARATELY: &[(&str, &str)] = &[(
    "large_string_map.brotli.parquet",
    "two rows of 1 GiB strings: more than one Utf8 array (i32 offsets) holds, \
     so no reader can put both rows in one batch; \
     `large_string_map_reads_batch_by_batch` reads it a row per batch",
)];

/// `bad_data/` files that pyarrow reads without error: compared with pyarrow
/// instead of required to fail.
const BAD_DATA_READABLE: &[(&str, &str)] = &[(
    "ARROW-GH-43605.parquet",
    "dictionary indices with bit width 0 (all zero), which pyarrow reads",
)];

fn listed<'a>(list: &'a [(&str, &str)], path: &Path) -> Option<&'a str> {
    let name = path.file_name()?.to_str()?;
    list.iter().find(|(n, _)| *n == name).map(|(_, r)| *r)
}

fn parquet_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            parquet_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "parquet") {
            out.push(p);
        }
    }
}

fn encrypted_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for p in entries.flatten().map(|e| e.path()) {
        if p.is_dir() {
            encrypted_files(&p, out);
        } else if p.to_string_lossy().ends_with(".parquet.encrypted") {
            out.push(p);
        }
    }
}

fn read_ours(path: &Path) -> Result<(SchemaRef, Vec<RecordBatch>), String> {
    let reader = pq_arrow::ParquetReader::open(path).map_err(|e| e.to_string())?;
    let reader = reader
        .with_batch_size(8192)
        .build()
        .map_err(|e| e.to_string())?;
    let schema = reader.schema();
    let batches = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    Ok((schema, batches))
}

fn read_arrow_rs(path: &Path) -> Result<(SchemaRef, Vec<RecordBatch>), String> {
    let f = File::open(path).map_err(|e| e.to_string())?;
    let b = ParquetRecordBatchReaderBuilder::try_new(f).map_err(|e| e.to_string())?;
    let r = b.with_batch_size(8192).build().map_err(|e| e.to_string())?;
    let schema = r.schema();
    let batches = r
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| pq_arrow::Error::from(e).to_string())?;
    Ok((schema, batches))
}

fn read_pyarrow(path: &Path) -> Result<(SchemaRef, Vec<RecordBatch>), String> {
    let script = pq_tests::workspace_root().join("tests/pyarrow_to_ipc.py");
    let out = std::env::temp_dir().join(format!(
        "pq-conformance-{}-{}.arrow",
        std::process::id(),
        path.file_name().and_then(|n| n.to_str()).unwrap_or("file")
    ));
    let status = Command::new("python3")
        .arg(&script)
        .arg(path)
        .arg(&out)
        .output()
        .map_err(|e| format!("cannot run python3: {e}"))?;
    if !status.status.success() {
        return Err(format!(
            "pyarrow failed: {}",
            String::from_utf8_lossy(&status.stderr)
        ));
    }
    let f = File::open(&out).map_err(|e| e.to_string())?;
    let r = arrow_ipc::reader::FileReader::try_new(f, None).map_err(|e| e.to_string())?;
    let schema = r.schema();
    let batches = r
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&out);
    Ok((schema, batches))
}

/// Compares schemas (fields, and metadata when `with_metadata`) and values;
/// the message names the first difference: column and row.
fn compare(
    ours: (SchemaRef, Vec<RecordBatch>),
    theirs: (SchemaRef, Vec<RecordBatch>),
    with_metadata: bool,
) -> Result<(), String> {
    let (os, ob) = ours;
    let (ts, tb) = theirs;
    if os.fields() != ts.fields() {
        for (i, (a, b)) in os.fields().iter().zip(ts.fields().iter()).enumerate() {
            if a != b {
                return Err(format!(
                    "schema differs at field {i}:\n  ours:   {a:?}\n  theirs: {b:?}"
                ));
            }
        }
        return Err(format!(
            "schema differs: {} fields vs {}",
            os.fields().len(),
            ts.fields().len()
        ));
    }
    if with_metadata && os.metadata() != ts.metadata() {
        return Err(format!(
            "schema metadata differs:\n  ours:   {:?}\n  theirs: {:?}",
            os.metadata(),
            ts.metadata()
        ));
    }
    let o = arrow_select::concat::concat_batches(&os, &ob).map_err(|e| e.to_string())?;
    let t = arrow_select::concat::concat_batches(&ts, &tb).map_err(|e| e.to_string())?;
    if o.num_rows() != t.num_rows() {
        return Err(format!("{} rows vs {}", o.num_rows(), t.num_rows()));
    }
    for (i, f) in os.fields().iter().enumerate() {
        let a = o.column(i);
        let b = t.column(i);
        if a.to_data() != b.to_data() {
            for r in 0..a.len() {
                let x = a.slice(r, 1);
                let y = b.slice(r, 1);
                if x.to_data() != y.to_data() {
                    return Err(format!(
                        "column {} differs first at row {r}:\n  ours:   {x:?}\n  theirs: {y:?}",
                        f.name()
                    ));
                }
            }
            return Err(format!(
                "column {} differs (no single row differs)",
                f.name()
            ));
        }
    }
    Ok(())
}

fn check_file(path: &Path) -> Result<(), String> {
    let ours = catch_unwind(AssertUnwindSafe(|| read_ours(path)))
        .map_err(|_| "pq-arrow panicked".to_string())?
        .map_err(|e| format!("pq-arrow failed: {e}"))?;
    if let Some(why) = listed(PYARROW_REFERENCE, path) {
        if !pq_testkit::have_pyarrow() {
            pq_testkit::skip(&format!(
                "python3 with pyarrow is not on the PATH: {} not compared ({why})",
                path.display()
            ));
            return Ok(());
        }
        let theirs = read_pyarrow(path).map_err(|e| format!("({why}) {e}"))?;
        compare(ours, theirs, false).map_err(|e| format!("vs pyarrow: {e}"))
    } else {
        let theirs = read_arrow_rs(path).map_err(|e| format!("arrow-rs failed: {e}"))?;
        compare(ours, theirs, false).map_err(|e| format!("vs arrow-rs: {e}"))?;
        // The file-level schemas, metadata included.
        let ours = pq_arrow::ParquetReader::open(path)
            .map_err(|e| e.to_string())?
            .schema()
            .clone();
        let f = File::open(path).map_err(|e| e.to_string())?;
        let theirs = ParquetRecordBatchReaderBuilder::try_new(f)
            .map_err(|e| e.to_string())?
            .schema()
            .clone();
        if ours.as_ref() != theirs.as_ref() {
            return Err(format!(
                "file schema differs:\n  ours:   {ours:?}\n  theirs: {theirs:?}"
            ));
        }
        Ok(())
    }
}

fn check_all(files: &[PathBuf]) {
    assert!(!files.is_empty(), "no files found");
    let mut failures = Vec::new();
    let mut now_passing = Vec::new();
    let mut passed = 0;
    for path in files {
        if let Some(why) = listed(READ_SEPARATELY, path) {
            eprintln!("{} is checked separately: {why}", path.display());
            continue;
        }
        let result = check_file(path);
        match (result, listed(KNOWN_FAILURES, path)) {
            (Ok(()), None) => passed += 1,
            (Ok(()), Some(_)) => now_passing.push(path.display().to_string()),
            (Err(e), None) => failures.push(format!("{}: {e}", path.display())),
            (Err(e), Some(why)) => {
                eprintln!("known failure {} ({why}): {e}", path.display());
            }
        }
    }
    eprintln!("{passed} of {} files read identically", files.len());
    assert!(
        now_passing.is_empty(),
        "files listed in KNOWN_FAILURES now pass, remove them: {now_passing:#?}"
    );
    assert!(
        failures.is_empty(),
        "{} files differ:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn corpus_reads_like_the_reference() {
    let Some(dir) = pq_tests::corpus_dir() else {
        return;
    };
    let mut files = Vec::new();
    parquet_files(&dir.join("data"), &mut files);
    check_all(&files);
}

/// `large_string_map.brotli.parquet` holds two rows whose strings take
/// 2 GiB together, in one row group: read one row per batch, every batch
/// holds under 2 GiB. It must read without error with the file's row count,
/// and match arrow-rs batch by batch when arrow-rs reads it too.
#[test]
fn large_string_map_reads_batch_by_batch() {
    let Some(dir) = pq_tests::corpus_dir() else {
        return;
    };
    let path = dir.join("data/large_string_map.brotli.parquet");
    if !path.exists() {
        return;
    }
    let reader = pq_arrow::ParquetReader::open(&path).unwrap();
    let expected_rows = reader.num_rows() as usize;
    let ours = reader.with_batch_size(1).build().unwrap();
    let mut theirs = File::open(&path)
        .ok()
        .and_then(|f| ParquetRecordBatchReaderBuilder::try_new(f).ok())
        .and_then(|b| b.with_batch_size(1).build().ok());
    let mut rows = 0;
    let mut compared = 0;
    for batch in ours {
        let batch = batch.unwrap();
        rows += batch.num_rows();
        let other = theirs.as_mut().and_then(|t| t.next());
        match other {
            Some(Ok(other)) => {
                assert_eq!(batch.schema(), other.schema());
                for (a, b) in batch.columns().iter().zip(other.columns()) {
                    assert!(a.to_data() == b.to_data(), "batch {compared} differs");
                }
                compared += 1;
            }
            Some(Err(e)) => {
                eprintln!("arrow-rs fails on {}: {e}", path.display());
                theirs = None;
            }
            None => theirs = None,
        }
    }
    assert_eq!(rows, expected_rows);
    eprintln!("{rows} rows read, {compared} batches compared with arrow-rs");
}

#[test]
fn fixtures_read_like_arrow_rs() {
    let mut files = Vec::new();
    parquet_files(&pq_tests::fixtures_dir(), &mut files);
    check_all(&files);
}

#[test]
fn bad_data_gives_errors_not_panics() {
    let Some(dir) = pq_tests::corpus_dir() else {
        return;
    };
    let mut files = Vec::new();
    parquet_files(&dir.join("bad_data"), &mut files);
    assert!(!files.is_empty());
    let mut problems = Vec::new();
    for path in &files {
        if let Some(why) = listed(BAD_DATA_READABLE, path) {
            if !pq_testkit::have_pyarrow() {
                pq_testkit::skip(&format!(
                    "python3 with pyarrow is not on the PATH: {} not compared ({why})",
                    path.display()
                ));
                continue;
            }
            let r = catch_unwind(AssertUnwindSafe(|| read_ours(path)))
                .map_err(|_| "panicked".to_string())
                .and_then(|r| r)
                .and_then(|ours| compare(ours, read_pyarrow(path)?, false));
            if let Err(e) = r {
                problems.push(format!("{} ({why}): {e}", path.display()));
            }
            continue;
        }
        match catch_unwind(AssertUnwindSafe(|| read_ours(path))) {
            Err(_) => problems.push(format!("{}: panicked", path.display())),
            Ok(Ok(_)) => problems.push(format!("{}: read without error", path.display())),
            Ok(Err(e)) => {
                eprintln!("{}: {e}", path.display());
                assert!(!e.is_empty());
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn encrypted_files_give_errors() {
    let Some(dir) = pq_tests::corpus_dir() else {
        return;
    };
    let mut files = Vec::new();
    encrypted_files(&dir.join("data"), &mut files);
    assert!(!files.is_empty());
    for path in &files {
        match catch_unwind(AssertUnwindSafe(|| read_ours(path))) {
            Err(_) => panic!("{}: panicked", path.display()),
            Ok(Ok(_)) => panic!("{}: read without error", path.display()),
            Ok(Err(e)) => {
                eprintln!("{}: {e}", path.display());
                assert!(e.contains("encrypt"), "{}: {e}", path.display());
            }
        }
    }
}

/// Every fixture and corpus file that pq-arrow reads plainly (none of the
/// listed ones), with its rows as one batch: the reference of the tests
/// of other output types.
fn plain_reads() -> Vec<(PathBuf, RecordBatch)> {
    let mut files = Vec::new();
    parquet_files(&pq_tests::fixtures_dir(), &mut files);
    if let Some(dir) = pq_tests::corpus_dir() {
        parquet_files(&dir.join("data"), &mut files);
    }
    files
        .into_iter()
        .filter(|p| listed(KNOWN_FAILURES, p).is_none() && listed(READ_SEPARATELY, p).is_none())
        .filter_map(|path| {
            let (schema, batches) = read_ours(&path).ok()?;
            let all = arrow_select::concat::concat_batches(&schema, &batches).unwrap();
            Some((path, all))
        })
        .collect()
}

/// Dictionary output (`with_dictionary(true)`) holds the same values as
/// plain output: every fixture and corpus file that reads plainly, top-level
/// dictionary columns compared after expanding them with `take`.
#[test]
fn dictionary_output_matches_plain() {
    let mut dict_columns = 0;
    for (path, p) in plain_reads() {
        let path = &path;
        let r = pq_arrow::ParquetReader::open(path)
            .and_then(|r| r.with_dictionary(true).build())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let ds = r.schema();
        let db: Vec<RecordBatch> = r
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let d = arrow_select::concat::concat_batches(&ds, &db).unwrap();
        for i in 0..p.num_columns() {
            let (pc, dc) = (p.column(i), d.column(i));
            if dc.as_any_dictionary_opt().is_some() {
                dict_columns += 1;
                assert_eq!(
                    expand(dc).to_data(),
                    expand(pc).to_data(),
                    "{} column {i}",
                    path.display()
                );
            }
        }
    }
    assert!(dict_columns > 0);
}

/// View output (`with_view_types(true)`, alone and with dictionaries)
/// holds the same values as plain output: every fixture and corpus file
/// that reads plainly, every column (nested ones too) compared after Arrow's
/// own cast of the views back to the plain types.
#[test]
fn view_output_matches_plain() {
    let mut view_columns = 0;
    for (path, p) in plain_reads() {
        let path = &path;
        for dictionary in [false, true] {
            let r = pq_arrow::ParquetReader::open(path)
                .and_then(|r| {
                    r.with_view_types(true)
                        .with_dictionary(dictionary)
                        .with_batch_size(1000)
                        .build()
                })
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let vs = r.schema();
            let vb: Vec<RecordBatch> = r
                .collect::<Result<_, _>>()
                .unwrap_or_else(|e| panic!("{} (dictionary {dictionary}): {e}", path.display()));
            let v = arrow_select::concat::concat_batches(&vs, &vb).unwrap();
            for i in 0..p.num_columns() {
                let (pc, vc) = (expand(p.column(i)), expand(v.column(i)));
                if pc.data_type() == vc.data_type() {
                    continue;
                }
                view_columns += 1;
                let back = arrow_cast::cast(&vc, pc.data_type()).unwrap_or_else(|e| {
                    panic!(
                        "{} column {i}: {} to {}: {e}",
                        path.display(),
                        vc.data_type(),
                        pc.data_type()
                    )
                });
                assert_eq!(
                    back.to_data(),
                    pc.to_data(),
                    "{} column {i} (dictionary {dictionary})",
                    path.display()
                );
            }
        }
    }
    assert!(view_columns > 0);
    eprintln!("{view_columns} columns read as views match");
}

/// Views of a column whose dictionary overflows mid-chunk (arrow-rs's
/// writer falls back to PLAIN pages), with nulls, over batches that cross
/// page boundaries: the same values as arrow-rs gives when asked for
/// `Utf8View`.
#[test]
fn views_across_a_dictionary_fallback_match_arrow_rs() {
    use std::sync::Arc;

    use arrow_array::StringArray;
    use arrow_schema::{DataType, Field, Schema};
    use parquet::arrow::ArrowWriter;
    use parquet::arrow::arrow_reader::ArrowReaderOptions;
    use parquet::file::properties::WriterProperties;

    // Short repeated strings first (dictionary pages), then long distinct
    // ones that overflow the dictionary (PLAIN pages).
    let values: StringArray = (0..60_000u32)
        .map(|i| match i {
            _ if i % 7 == 3 => None,
            _ if i < 20_000 => Some(format!("k{}", i % 50)),
            _ => Some(format!("a value longer than twelve bytes, number {i}")),
        })
        .collect();
    let schema = Arc::new(Schema::new(vec![Field::new("s", DataType::Utf8, true)]));
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(values)]).unwrap();
    let props = WriterProperties::builder()
        .set_dictionary_page_size_limit(16 * 1024)
        .set_data_page_row_count_limit(3_000)
        .set_write_batch_size(1_000)
        .build();
    let mut file = Vec::new();
    let mut w = ArrowWriter::try_new(&mut file, schema, Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let file = bytes::Bytes::from(file);

    let views = Arc::new(Schema::new(vec![Field::new("s", DataType::Utf8View, true)]));
    let theirs = ParquetRecordBatchReaderBuilder::try_new_with_options(
        file.clone(),
        ArrowReaderOptions::new().with_schema(views.clone()),
    )
    .unwrap()
    .build()
    .unwrap();
    let theirs: Vec<RecordBatch> = theirs.collect::<Result<_, _>>().unwrap();
    let theirs = arrow_select::concat::concat_batches(&views, &theirs).unwrap();
    let encodings: Vec<_> = pq_arrow::ParquetReader::from_bytes(file.clone())
        .unwrap()
        .metadata()
        .row_groups[0]
        .columns[0]
        .meta_data
        .as_ref()
        .unwrap()
        .encodings
        .iter()
        .copied()
        .collect();
    assert!(
        encodings.contains(&pq_format::Encoding::PLAIN)
            && encodings.contains(&pq_format::Encoding::RLE_DICTIONARY),
        "the chunk should mix dictionary and PLAIN pages: {encodings:?}"
    );
    for batch_size in [1_000, 4_096, 60_000] {
        let ours = pq_arrow::ParquetReader::from_bytes(file.clone())
            .unwrap()
            .with_view_types(true)
            .with_batch_size(batch_size)
            .build()
            .unwrap();
        assert_eq!(ours.schema(), views);
        let ours: Vec<RecordBatch> = ours.collect::<Result<_, _>>().unwrap();
        let ours = arrow_select::concat::concat_batches(&views, &ours).unwrap();
        assert_eq!(
            ours.column(0).as_string_view().iter().collect::<Vec<_>>(),
            theirs.column(0).as_string_view().iter().collect::<Vec<_>>(),
            "batch size {batch_size}"
        );
    }
}

/// A dictionary array's values in key order (other arrays as they are).
fn expand(a: &arrow_array::ArrayRef) -> arrow_array::ArrayRef {
    match a.as_any_dictionary_opt() {
        Some(d) => arrow_select::take::take(d.values().as_ref(), d.keys(), None).unwrap(),
        None => a.clone(),
    }
}
