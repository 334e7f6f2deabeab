//! A file's statistics for DataFusion's planner, from its footer.
//!
//! Row counts are exact. Null counts and bounds come from
//! [`pq_arrow::predicate::column_chunk_statistics`], which already refuses
//! what cannot be trusted (unknown column orders, float bounds without a
//! NaN count, counts that exceed the rows). DataFusion answers `MIN`,
//! `MAX` and `COUNT` from *exact* statistics without reading data, so a
//! bound is exact only when every row group's is (none truncated), and a
//! column the file does not have is all nulls.

use arrow_schema::{DataType, Schema};
use datafusion::common::stats::Precision;
use datafusion::common::{ColumnStatistics, Statistics};
use datafusion::scalar::ScalarValue;
use pq_arrow::predicate::column_chunk_statistics;
use pq_format::ParquetMetaData;

use crate::format::reads_as;

/// Statistics of a file read as `file_schema`, for the columns of
/// `table_schema` (which may have columns the file lacks).
pub(crate) fn file_statistics(
    md: &ParquetMetaData,
    file_schema: &Schema,
    table_schema: &Schema,
) -> Statistics {
    let rows: u64 = md
        .row_groups
        .iter()
        .map(|rg| u64::try_from(rg.num_rows).unwrap_or_default())
        .sum();
    let bytes: u64 = md
        .row_groups
        .iter()
        .map(|rg| u64::try_from(rg.total_byte_size).unwrap_or_default())
        .sum();
    let rows = usize::try_from(rows).unwrap_or(usize::MAX);
    let columns = table_schema
        .fields()
        .iter()
        .map(|field| match file_schema.column_with_name(field.name()) {
            None => ColumnStatistics {
                null_count: Precision::Exact(rows),
                ..ColumnStatistics::new_unknown()
            },
            // The file's type, or its view type (the table's strings
            // under DataFusion's `schema_force_view_types`): bounds made in
            // the table's type.
            Some((_, file_field)) if reads_as(file_field.data_type(), field.data_type()) => {
                column_statistics(md, field.name(), field.data_type())
            }
            Some(_) => ColumnStatistics::new_unknown(),
        })
        .collect();
    Statistics {
        num_rows: Precision::Exact(rows),
        total_byte_size: Precision::Inexact(usize::try_from(bytes).unwrap_or(usize::MAX)),
        column_statistics: columns,
    }
}

/// The statistics of top-level column `name` over every row group.
fn column_statistics(md: &ParquetMetaData, name: &str, dt: &DataType) -> ColumnStatistics {
    let unknown = ColumnStatistics::new_unknown();
    if dt.is_nested() || matches!(dt, DataType::Dictionary(..)) {
        return unknown;
    }
    let Some(leaf) = (0..md.schema.num_columns()).find(|&i| {
        md.schema
            .column(i)
            .is_some_and(|c| c.path.len() == 1 && c.path.first() == Some(name))
    }) else {
        return unknown;
    };
    let mut nulls = Some(0u64);
    let mut min: Option<ScalarValue> = None;
    let mut max: Option<ScalarValue> = None;
    let mut bounds_known = true;
    let mut exact = true;
    for rg in 0..md.row_groups.len() {
        let Some(s) = column_chunk_statistics(md, rg, leaf, dt) else {
            return unknown;
        };
        nulls = nulls.zip(s.nulls).map(|(a, b)| a + b);
        if s.nulls == Some(s.rows) {
            // All nulls: no bounds to add.
            continue;
        }
        let Some((lo, hi)) = s.bounds else {
            bounds_known = false;
            continue;
        };
        exact &= s.exact;
        let (Ok(lo), Ok(hi)) = (
            ScalarValue::try_from_array(&lo, 0),
            ScalarValue::try_from_array(&hi, 0),
        ) else {
            bounds_known = false;
            continue;
        };
        min = Some(match min {
            Some(m) if m.partial_cmp(&lo).is_some_and(|o| o.is_le()) => m,
            Some(m) if m.partial_cmp(&lo).is_none() => {
                bounds_known = false;
                m
            }
            _ => lo,
        });
        max = Some(match max {
            Some(m) if m.partial_cmp(&hi).is_some_and(|o| o.is_ge()) => m,
            Some(m) if m.partial_cmp(&hi).is_none() => {
                bounds_known = false;
                m
            }
            _ => hi,
        });
    }
    let bound = |v: Option<ScalarValue>| match v {
        Some(v) if bounds_known && exact => Precision::Exact(v),
        Some(v) if bounds_known => Precision::Inexact(v),
        _ => Precision::Absent,
    };
    ColumnStatistics {
        null_count: nulls
            .and_then(|n| usize::try_from(n).ok())
            .map_or(Precision::Absent, Precision::Exact),
        min_value: bound(min),
        max_value: bound(max),
        ..unknown
    }
}
