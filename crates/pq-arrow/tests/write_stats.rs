//! Page and chunk statistics of byte-array columns, checked against the
//! values of each page: dictionary-encoded pages (whose bounds come from the
//! distinct values new to the page), pages after the dictionary falls back
//! mid-chunk, and PLAIN pages (bounds from 8-byte prefixes first), in both
//! data page versions, read back through arrow-rs's metadata reader.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, FixedSizeBinaryArray, RecordBatch, StringArray};
use arrow_schema::{Field, Schema};
use bytes::Bytes;
use parquet::file::metadata::{PageIndexPolicy, ParquetMetaDataReader};
use parquet::file::page_index::column_index::ColumnIndexMetaData;
use pq_arrow::write::{DataPageVersion, Encoding, ParquetWriter, WriterOptions};

fn rng(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *seed >> 33
}

fn batch(rows: usize) -> RecordBatch {
    let mut s = 5u64;
    // Low cardinality, drifting with the row so pages differ in bounds;
    // values sharing long prefixes so the prefix shortcut must fall through.
    let low = StringArray::from_iter_values((0..rows).map(|i| {
        format!(
            "common-prefix-{:02}-{}",
            i / 700,
            ["a", "b", "ab", ""][(rng(&mut s) % 4) as usize]
        )
    }));
    // High cardinality: the dictionary falls back part way.
    let high = StringArray::from_iter_values((0..rows).map(|_| {
        let len = (rng(&mut s) % 20) as usize;
        (0..len)
            .map(|_| (b'a' + (rng(&mut s) % 3) as u8) as char)
            .collect::<String>()
    }));
    let nullable = StringArray::from_iter(
        (0..rows)
            .map(|i| (!rng(&mut s).is_multiple_of(5)).then(|| format!("{}", (i * 7919) % 1000))),
    );
    let fixed = FixedSizeBinaryArray::try_from_iter(
        (0..rows).map(|i| [(i / 900) as u8, (rng(&mut s) % 4) as u8, 0xff]),
    )
    .unwrap();
    let cols: Vec<(&str, ArrayRef)> = vec![
        ("low", Arc::new(low)),
        ("high", Arc::new(high)),
        ("nullable", Arc::new(nullable)),
        ("fixed", Arc::new(fixed)),
    ];
    let schema = Schema::new(
        cols.iter()
            .map(|(n, a)| Field::new(*n, a.data_type().clone(), a.null_count() > 0))
            .collect::<Vec<_>>(),
    );
    RecordBatch::try_new(Arc::new(schema), cols.into_iter().map(|c| c.1).collect()).unwrap()
}

fn value(a: &dyn Array, i: usize) -> Option<Vec<u8>> {
    if a.is_null(i) {
        return None;
    }
    if let Some(s) = a.as_any().downcast_ref::<StringArray>() {
        return Some(s.value(i).as_bytes().to_vec());
    }
    let f = a.as_any().downcast_ref::<FixedSizeBinaryArray>().unwrap();
    Some(f.value(i).to_vec())
}

fn bounds(a: &dyn Array, rows: std::ops::Range<usize>) -> Option<(Vec<u8>, Vec<u8>)> {
    let vals: Vec<Vec<u8>> = rows.filter_map(|i| value(a, i)).collect();
    Some((vals.iter().min()?.clone(), vals.iter().max()?.clone()))
}

#[test]
fn page_bounds_are_those_of_the_page_values() {
    let rows = 20_000;
    let b = batch(rows);
    for version in [DataPageVersion::V1, DataPageVersion::V2] {
        for dictionary in [true, false] {
            let options = WriterOptions::builder()
                .set_writer_version(version)
                .set_data_page_size_limit(4096)
                .set_data_page_row_count_limit(1500)
                .set_dictionary_enabled(dictionary)
                .set_dictionary_page_size_limit(8192)
                .set_dictionary_max_entries(usize::MAX)
                // PLAIN after the fallback even in v2, for the direct path.
                .set_column_encoding("high", Encoding::PLAIN)
                .build();
            let mut w = ParquetWriter::try_new(Vec::new(), b.schema(), options).unwrap();
            // Several slices per page and pages across slices.
            for off in (0..rows).step_by(3000) {
                w.write(&b.slice(off, 3000.min(rows - off))).unwrap();
            }
            let (bytes, _) = w.close_into_inner().unwrap();
            let md = ParquetMetaDataReader::new()
                .with_page_index_policy(PageIndexPolicy::Required)
                .parse_and_finish(&Bytes::from(bytes))
                .unwrap();
            let rg = md.row_group(0);
            let (ci, oi) = (
                &md.column_index().unwrap()[0],
                &md.offset_index().unwrap()[0],
            );
            for c in 0..b.num_columns() {
                let what = format!("{version:?} dict={dictionary} column {c}");
                let col = b.column(c).as_ref();
                let stats = rg.column(c).statistics().unwrap();
                let (lo, hi) = bounds(col, 0..rows).unwrap();
                assert_eq!(stats.min_bytes_opt().unwrap(), &lo[..], "{what}");
                assert_eq!(stats.max_bytes_opt().unwrap(), &hi[..], "{what}");
                let locs = oi[c].page_locations();
                assert!(locs.len() > 4, "{what}: {} pages", locs.len());
                let index = match &ci[c] {
                    ColumnIndexMetaData::BYTE_ARRAY(x)
                    | ColumnIndexMetaData::FIXED_LEN_BYTE_ARRAY(x) => x,
                    other => panic!("{what}: {other:?}"),
                };
                for (p, loc) in locs.iter().enumerate() {
                    let start = loc.first_row_index as usize;
                    let end = locs.get(p + 1).map_or(rows, |l| l.first_row_index as usize);
                    match bounds(col, start..end) {
                        Some((lo, hi)) => {
                            assert_eq!(index.min_value(p).unwrap(), &lo[..], "{what} page {p}");
                            assert_eq!(index.max_value(p).unwrap(), &hi[..], "{what} page {p}");
                        }
                        None => assert!(index.min_value(p).is_none(), "{what} page {p}"),
                    }
                }
            }
        }
    }
}
