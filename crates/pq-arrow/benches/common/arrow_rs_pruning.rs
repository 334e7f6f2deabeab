//! The pruning DataFusion does for arrow-rs's reader, which arrow-rs
//! leaves to its callers: row groups and pages of a key range from the
//! statistics and the page index, row groups of an equality from the Bloom
//! filters. Shared by the benches and the `arrow_rs_filter` example (which
//! includes this file by path), so that every comparison gives arrow-rs
//! the same help.

// Each user takes a part of this file.
#![allow(dead_code)]

use parquet::file::reader::ChunkReader;

/// The row groups of `md` whose INT64 statistics of leaf `c` meet
/// `lo..=hi`, and the rows of their pages that may (by the page index, as
/// DataFusion turns it into a `RowSelection`; every row of a row group
/// without one).
pub fn key_selection(
    md: &parquet::file::metadata::ParquetMetaData,
    c: usize,
    (lo, hi): (i64, i64),
) -> (Vec<usize>, parquet::arrow::arrow_reader::RowSelection) {
    use parquet::arrow::arrow_reader::RowSelector;
    use parquet::file::page_index::column_index::ColumnIndexMetaData;
    use parquet::file::statistics::Statistics;
    let mut groups = Vec::new();
    let mut selectors = Vec::new();
    for (i, rg) in md.row_groups().iter().enumerate() {
        let meets = match rg.column(c).statistics() {
            Some(Statistics::Int64(s)) => match (s.min_opt(), s.max_opt()) {
                (Some(&min), Some(&max)) => max >= lo && min <= hi,
                _ => true,
            },
            _ => true,
        };
        if !meets {
            continue;
        }
        groups.push(i);
        let rows = rg.num_rows() as usize;
        let ci = md.column_index().and_then(|ci| ci.get(i)?.get(c));
        let oi = md.offset_index().and_then(|oi| oi.get(i)?.get(c));
        let (Some(ci), Some(oi)) = (ci, oi) else {
            selectors.push(RowSelector::select(rows));
            continue;
        };
        let locations = oi.page_locations();
        for (p, loc) in locations.iter().enumerate() {
            let start = loc.first_row_index as usize;
            let end = locations
                .get(p + 1)
                .map_or(rows, |l| l.first_row_index as usize);
            let keep = match ci {
                ColumnIndexMetaData::INT64(x) => match (x.min_value(p), x.max_value(p)) {
                    (Some(&min), Some(&max)) => max >= lo && min <= hi,
                    _ => true,
                },
                _ => true,
            };
            selectors.push(if keep {
                RowSelector::select(end - start)
            } else {
                RowSelector::skip(end - start)
            });
        }
    }
    (groups, selectors.into())
}

/// The row groups whose Bloom filter of leaf `c` may hold the string
/// `value` (all those without one).
pub fn bloom_groups<R: ChunkReader + 'static>(reader: R, c: usize, value: &str) -> Vec<usize> {
    use parquet::file::reader::FileReader;
    let options = parquet::file::serialized_reader::ReadOptionsBuilder::new()
        .with_reader_properties(
            parquet::file::properties::ReaderProperties::builder()
                .set_read_bloom_filter(true)
                .build(),
        )
        .build();
    let f =
        parquet::file::serialized_reader::SerializedFileReader::new_with_options(reader, options)
            .unwrap_or_else(|e| panic!("{e}"));
    (0..f.num_row_groups())
        .filter(|&i| {
            f.get_row_group(i)
                .ok()
                .and_then(|g| g.get_column_bloom_filter(c).map(|s| s.check(value)))
                .unwrap_or(true)
        })
        .collect()
}
