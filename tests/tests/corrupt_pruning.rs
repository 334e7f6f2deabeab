//! Damaged statistics, Bloom filter and page index entries in a footer
//! never make a filtered read drop or invent rows, nor panic: each one
//! that does not hold together is ignored, and the read keeps exactly the
//! rows a read without pruning keeps.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use bytes::Bytes;
use pq_arrow::predicate::{Predicate, PruningOptions};
use pq_arrow::{ParquetReader, WriterOptions};
use pq_format::FileMetaData;
use pq_tests::with_footer;

const ROWS: i64 = 2000;

fn file() -> Bytes {
    let ids: Vec<i64> = (0..ROWS).collect();
    let names: Vec<String> = ids.iter().map(|i| format!("n{i:05}")).collect();
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
        ("name", Arc::new(StringArray::from(names)) as ArrayRef),
    ])
    .unwrap();
    let options = WriterOptions::builder()
        .set_max_row_group_size(500)
        .set_data_page_row_count_limit(100)
        .set_bloom_filter_enabled(true)
        .build();
    let mut out = Vec::new();
    let mut w = pq_arrow::ParquetWriter::try_new(&mut out, batch.schema(), options).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

/// The ids a filtered read keeps.
fn ids(file: &Bytes, p: &str, pruning: PruningOptions) -> Vec<i64> {
    let reader = ParquetReader::from_bytes(file.clone())
        .unwrap()
        .with_pruning(pruning)
        .with_predicate(Predicate::parse(p).unwrap())
        .build()
        .unwrap();
    let mut out = Vec::new();
    for b in reader {
        let b = b.unwrap();
        let c = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        out.extend(c.values().iter().copied());
    }
    out
}

type Edit = fn(&mut FileMetaData);

fn each_chunk(md: &mut FileMetaData, f: impl Fn(&mut pq_format::ColumnChunk)) {
    for rg in &mut md.row_groups {
        rg.columns.iter_mut().for_each(&f);
    }
}

#[test]
fn damaged_pruning_metadata_is_ignored() {
    let good = file();
    let len = good.len() as i64;
    let edits: Vec<(&str, Edit)> = vec![
        ("bounds the wrong way round", |md| {
            each_chunk(md, |c| {
                let s = c.meta_data.as_mut().unwrap().statistics.as_mut().unwrap();
                std::mem::swap(&mut s.min_value, &mut s.max_value);
            })
        }),
        ("INT64 bounds of the wrong width", |md| {
            for rg in &mut md.row_groups {
                let s = rg.columns[0].meta_data.as_mut().unwrap();
                let s = s.statistics.as_mut().unwrap();
                s.min_value = Some(b"abc".to_vec().into());
                s.max_value = Some(b"abcde".to_vec().into());
            }
        }),
        ("more nulls than rows", |md| {
            each_chunk(md, |c| {
                c.meta_data
                    .as_mut()
                    .unwrap()
                    .statistics
                    .as_mut()
                    .unwrap()
                    .null_count = Some(1 << 40);
            })
        }),
        ("Bloom filters past the end", |md| {
            each_chunk(md, |c| {
                c.meta_data.as_mut().unwrap().bloom_filter_offset = Some(1 << 40);
            })
        }),
        ("Bloom filters of a huge length", |md| {
            each_chunk(md, |c| {
                c.meta_data.as_mut().unwrap().bloom_filter_length = Some(i32::MAX);
            })
        }),
        ("Bloom filters at the wrong offset", |md| {
            each_chunk(md, |c| {
                let m = c.meta_data.as_mut().unwrap();
                m.bloom_filter_offset = Some(m.data_page_offset);
                m.bloom_filter_length = None;
            })
        }),
        ("page indexes past the end", |md| {
            each_chunk(md, |c| {
                c.column_index_offset = Some(1 << 40);
                c.offset_index_offset = Some(-5);
            })
        }),
        ("page indexes cut short", |md| {
            each_chunk(md, |c| {
                c.column_index_length = c.column_index_length.map(|l| l / 2);
            })
        }),
        ("offset indexes of another row group", |md| {
            let first = md.row_groups[0].columns[0].offset_index_offset;
            each_chunk(md, |c| c.offset_index_offset = first);
        }),
        ("dictionary offsets that point at data", |md| {
            each_chunk(md, |c| {
                let m = c.meta_data.as_mut().unwrap();
                m.dictionary_page_offset = Some(m.data_page_offset / 2);
            })
        }),
    ];
    let off = PruningOptions::default()
        .with_statistics(false)
        .with_bloom_filters(false)
        .with_dictionaries(false)
        .with_page_index(false);
    for (what, edit) in edits {
        let bad = with_footer(&good, edit);
        assert!(bad.len() as i64 > len / 2);
        for p in [
            "id = 777",
            "name = 'n01234'",
            "id IN (5, 1500, 99999)",
            "id BETWEEN 990 AND 1010 OR name LIKE 'n0199%'",
            "id < 0",
            "name IS NULL",
        ] {
            let want = ids(&good, p, off);
            // The damaged file, every level on: the same rows, or an error
            // the plain read would also give (the pages are intact, so it
            // never should).
            let got = ParquetReader::from_bytes(bad.clone())
                .unwrap()
                .with_predicate(Predicate::parse(p).unwrap())
                .build()
                .and_then(|r| {
                    let mut out = Vec::new();
                    for b in r {
                        let b = b?;
                        let c = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
                        out.extend(c.values().iter().copied());
                    }
                    Ok(out)
                });
            match got {
                Ok(got) => assert_eq!(got, want, "{what}: {p}"),
                Err(e) => {
                    // Only damage that a plain read meets too.
                    let plain = ParquetReader::from_bytes(bad.clone())
                        .and_then(|r| r.build())
                        .and_then(|r| r.collect::<Result<Vec<_>, _>>().map_err(Into::into));
                    assert!(plain.is_err(), "{what}: {p}: {e}");
                }
            }
        }
    }
}
