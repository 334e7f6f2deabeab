//! `pq stats`: one row per column with what a first look at a table wants,
//! like DuckDB's `SUMMARIZE`.
//!
//! By default everything comes from the footers, so a file of any size
//! answers at once: values and nulls summed over the row groups, the least
//! minimum and greatest maximum (compared in the column's logical order),
//! sizes and encodings. A distinct count is shown only where the footer has
//! one for the whole column (a single row group): counts of several row
//! groups cannot be added.
//!
//! `--exact` reads the data instead, one batch at a time, one row per
//! top-level column (a struct or list is one value): values and nulls
//! counted, min and max compared in Arrow's row format (the order of a
//! sort: NaN above every number), and distinct values counted exactly
//! while they are few, by a HyperLogLog sketch beyond (`distinct_by` says
//! which). Sizes and encodings still come from the footers.

use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray, UInt64Array};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_row::{OwnedRow, RowConverter, SortField};
use arrow_schema::{DataType, Field, Schema};
use pq_format::{ParquetMetaData, Type};

use crate::cat::{self, Format};
use crate::dataset::{self, Dataset};
use crate::error::CliError;
use crate::input::{self, Input};
use crate::sources::{self, Source};
use crate::values::{SortKey, format_stat, name, sort_key, type_name};

/// What to compute and how to print it.
#[derive(Debug)]
pub struct StatsArgs<'a> {
    /// The inputs: files, globs, directories.
    pub paths: &'a [PathBuf],
    /// Read the data rather than the footers.
    pub exact: bool,
    /// Output format.
    pub format: Format,
    /// `--max-width` of a table.
    pub max_width: Option<usize>,
    /// Merge differing schemas by column name (`--exact`).
    pub union_by_name: bool,
}

/// Distinct values counted exactly up to this many; a sketch beyond.
const EXACT_DISTINCT: usize = 100_000;

/// One output row.
#[derive(Debug, Default)]
struct Row {
    column: String,
    ty: String,
    values: Option<u64>,
    nulls: Option<u64>,
    min: Option<String>,
    max: Option<String>,
    distinct: Option<u64>,
    distinct_by: Option<&'static str>,
    compressed: u64,
    uncompressed: u64,
    encodings: Vec<String>,
}

/// A leaf column's figures over every footer.
struct Leaf {
    row: Row,
    /// Its top-level column's name, to sum sizes for `--exact`.
    top: String,
    min: Option<(SortKey, String)>,
    max: Option<(SortKey, String)>,
    /// Whether every chunk with values had both bounds.
    bounds: bool,
    chunks: usize,
}

/// Prints the statistics of the inputs.
pub fn run(args: &StatsArgs<'_>, out: &mut impl Write) -> Result<(), CliError> {
    let sources = sources::expand(args.paths)?;
    let first_path = sources.first().map(|s| s.path.clone()).unwrap_or_default();
    let (leaves, first_input) = footers(&sources)?;
    let rows = if args.exact {
        exact(sources, first_input, args.union_by_name, &leaves)?
    } else {
        leaves.into_iter().map(finish_leaf).collect()
    };
    let batch = to_batch(&first_path, rows)?;
    cat::write_batch(&first_path, &batch, args.format, args.max_width, out)
}

/// The leaf columns of every file's footer, in order of first appearance,
/// and the first input (standard input cannot be read twice).
fn footers(sources: &[Source]) -> Result<(Vec<Leaf>, Option<Input>), CliError> {
    let mut leaves: Vec<Leaf> = Vec::new();
    let mut first = None;
    for (i, source) in sources.iter().enumerate() {
        let (input, meta) = input::metadata(&source.path)?;
        add_footer(&mut leaves, &meta);
        if i == 0 {
            first = Some(input);
        }
    }
    Ok((leaves, first))
}

fn add_footer(leaves: &mut Vec<Leaf>, meta: &ParquetMetaData) {
    for rg in &meta.file.row_groups {
        for (j, chunk) in rg.columns.iter().enumerate() {
            let (Some(column), Some(m)) = (meta.schema.column(j), &chunk.meta_data) else {
                continue;
            };
            let path = column.path_string();
            let at = match leaves.iter().position(|l| l.row.column == path) {
                Some(at) => at,
                None => {
                    leaves.push(Leaf {
                        row: Row {
                            column: path.clone(),
                            ty: type_name(column),
                            values: Some(0),
                            nulls: Some(0),
                            ..Row::default()
                        },
                        top: path.split('.').next().unwrap_or_default().to_string(),
                        min: None,
                        max: None,
                        bounds: true,
                        chunks: 0,
                    });
                    leaves.len() - 1
                }
            };
            let Some(leaf) = leaves.get_mut(at) else {
                continue;
            };
            leaf.chunks += 1;
            let r = &mut leaf.row;
            let values = u64::try_from(m.num_values).ok();
            r.values = r.values.zip(values).map(|(a, b)| a.saturating_add(b));
            r.compressed = r
                .compressed
                .saturating_add(u64::try_from(m.total_compressed_size).unwrap_or(0));
            r.uncompressed = r
                .uncompressed
                .saturating_add(u64::try_from(m.total_uncompressed_size).unwrap_or(0));
            for e in m.encodings.iter() {
                let e = name(*e);
                if !r.encodings.contains(&e) {
                    r.encodings.push(e);
                }
            }
            let Some(s) = &m.statistics else {
                r.nulls = None;
                r.distinct = None;
                leaf.bounds = false;
                continue;
            };
            let nulls = s.null_count.and_then(|n| u64::try_from(n).ok());
            r.nulls = r.nulls.zip(nulls).map(|(a, b)| a.saturating_add(b));
            // A distinct count holds for its own row group only.
            r.distinct = if leaf.chunks == 1 {
                s.distinct_count.and_then(|n| u64::try_from(n).ok())
            } else {
                None
            };
            let all_null = values.is_some() && nulls == values;
            // The deprecated min and max of byte arrays were compared as
            // signed bytes by old writers: a bound in another order than
            // the column's is no bound, so only the numeric ones are used.
            let legacy = !matches!(
                column.physical_type,
                Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY
            );
            let min = s.min_value.as_ref().or(s.min.as_ref().filter(|_| legacy));
            let max = s.max_value.as_ref().or(s.max.as_ref().filter(|_| legacy));
            match (min, max) {
                (Some(lo), Some(hi)) => {
                    let lo = sort_key(column, lo).map(|k| (k, format_stat(column, lo)));
                    let hi = sort_key(column, hi).map(|k| (k, format_stat(column, hi)));
                    match (lo, hi) {
                        (Some(lo), Some(hi)) => {
                            if leaf.min.as_ref().is_none_or(|m| lo.0 < m.0) {
                                leaf.min = Some(lo);
                            }
                            if leaf.max.as_ref().is_none_or(|m| hi.0 > m.0) {
                                leaf.max = Some(hi);
                            }
                        }
                        _ => leaf.bounds = false,
                    }
                }
                // Only nulls: no bounds to have.
                _ if all_null => {}
                _ => leaf.bounds = false,
            }
        }
    }
}

fn finish_leaf(leaf: Leaf) -> Row {
    let mut row = leaf.row;
    if leaf.bounds {
        row.min = leaf.min.map(|m| m.1);
        row.max = leaf.max.map(|m| m.1);
    }
    if row.distinct.is_some() {
        row.distinct_by = Some("footer");
    }
    row
}

/// Distinct values: a set of 64-bit hashes while small, a HyperLogLog
/// sketch (2^14 registers, about 1% standard error) beyond.
enum Distinct {
    Exact(std::collections::HashSet<u64>),
    Sketch(Box<[u8; 1 << HLL_BITS]>),
}

const HLL_BITS: u32 = 14;

impl Distinct {
    fn add(&mut self, hash: u64) {
        match self {
            Distinct::Exact(set) => {
                set.insert(hash);
                if set.len() > EXACT_DISTINCT {
                    let mut registers = Box::new([0u8; 1 << HLL_BITS]);
                    for h in set.iter() {
                        hll_add(&mut registers, *h);
                    }
                    *self = Distinct::Sketch(registers);
                }
            }
            Distinct::Sketch(registers) => hll_add(registers, hash),
        }
    }

    fn count(&self) -> (u64, &'static str) {
        match self {
            Distinct::Exact(set) => (set.len() as u64, "exact"),
            Distinct::Sketch(r) => (hll_estimate(r), "hyperloglog"),
        }
    }
}

fn hll_add(registers: &mut [u8; 1 << HLL_BITS], hash: u64) {
    let index = (hash >> (64 - HLL_BITS)) as usize;
    // The rank of the first 1 bit of the rest; the index bits shifted out
    // leave zeros below, capped by the sentinel bit.
    let rest = (hash << HLL_BITS) | (1 << (HLL_BITS - 1));
    let rank = rest.leading_zeros() as u8 + 1;
    if let Some(r) = registers.get_mut(index) {
        *r = (*r).max(rank);
    }
}

fn hll_estimate(registers: &[u8; 1 << HLL_BITS]) -> u64 {
    let m = registers.len() as f64;
    let alpha = 0.7213 / (1.0 + 1.079 / m);
    let sum: f64 = registers.iter().map(|&r| 2f64.powi(-i32::from(r))).sum();
    let raw = alpha * m * m / sum;
    let zeros = registers.iter().filter(|&&r| r == 0).count();
    let estimate = if raw <= 2.5 * m && zeros > 0 {
        // Few values: linear counting is the better estimate.
        m * (m / zeros as f64).ln()
    } else {
        raw
    };
    estimate.round() as u64
}

/// One top-level column's figures while the data is read.
struct Running {
    converter: RowConverter,
    values: u64,
    nulls: u64,
    min: Option<OwnedRow>,
    max: Option<OwnedRow>,
    distinct: Distinct,
}

fn exact(
    sources: Vec<Source>,
    first: Option<Input>,
    union_by_name: bool,
    leaves: &[Leaf],
) -> Result<Vec<Row>, CliError> {
    let path = sources.first().map(|s| s.path.clone()).unwrap_or_default();
    let table = Dataset::open_with(
        sources,
        first,
        dataset::Options {
            union_by_name,
            ..Default::default()
        },
    )?;
    let schema = table.schema();
    let mut running = schema
        .fields()
        .iter()
        .map(|f| {
            Ok(Running {
                converter: RowConverter::new(vec![SortField::new(f.data_type().clone())])
                    .map_err(|e| CliError::file(&path, e))?,
                values: 0,
                nulls: 0,
                min: None,
                max: None,
                distinct: Distinct::Exact(Default::default()),
            })
        })
        .collect::<Result<Vec<_>, CliError>>()?;
    let plan = table.range(0, None);
    for batch in table.batches(plan) {
        let batch = batch?;
        for (column, r) in batch.columns().iter().zip(running.iter_mut()) {
            add_column(&path, column, r)?;
        }
    }
    let mut rows = Vec::with_capacity(running.len());
    for (field, r) in schema.fields().iter().zip(running) {
        let (distinct, by) = r.distinct.count();
        let mut row = Row {
            column: field.name().clone(),
            ty: cat::short_type(field.data_type()),
            values: Some(r.values),
            nulls: Some(r.nulls),
            min: bound_text(&path, &r.converter, r.min.as_ref())?,
            max: bound_text(&path, &r.converter, r.max.as_ref())?,
            distinct: Some(distinct),
            distinct_by: Some(by),
            ..Row::default()
        };
        for leaf in leaves.iter().filter(|l| &l.top == field.name()) {
            row.compressed = row.compressed.saturating_add(leaf.row.compressed);
            row.uncompressed = row.uncompressed.saturating_add(leaf.row.uncompressed);
            for e in &leaf.row.encodings {
                if !row.encodings.contains(e) {
                    row.encodings.push(e.clone());
                }
            }
        }
        rows.push(row);
    }
    Ok(rows)
}

/// Counts one batch's column: rows in Arrow's row format, whose bytes
/// order as a sort does and hash as the value.
fn add_column(path: &Path, column: &ArrayRef, r: &mut Running) -> Result<(), CliError> {
    let encoded = r
        .converter
        .convert_columns(std::slice::from_ref(column))
        .map_err(|e| CliError::file(path, e))?;
    let nulls = column.logical_nulls();
    r.values += column.len() as u64;
    let mut batch_min = None;
    let mut batch_max = None;
    for (i, row) in encoded.iter().enumerate() {
        if nulls.as_ref().is_some_and(|n| n.is_null(i)) {
            r.nulls += 1;
            continue;
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        row.data().hash(&mut h);
        r.distinct.add(h.finish());
        if batch_min.is_none_or(|m| row < m) {
            batch_min = Some(row);
        }
        if batch_max.is_none_or(|m| row > m) {
            batch_max = Some(row);
        }
    }
    // Only the batch's bounds are kept beyond it.
    if let Some(lo) = batch_min
        && r.min.as_ref().is_none_or(|m| lo < m.row())
    {
        r.min = Some(lo.owned());
    }
    if let Some(hi) = batch_max
        && r.max.as_ref().is_none_or(|m| hi > m.row())
    {
        r.max = Some(hi.owned());
    }
    Ok(())
}

/// A bound back from the row format, as `cat` prints the value.
fn bound_text(
    path: &Path,
    converter: &RowConverter,
    row: Option<&OwnedRow>,
) -> Result<Option<String>, CliError> {
    let Some(row) = row else {
        return Ok(None);
    };
    let arrays = converter
        .convert_rows([row.row()])
        .map_err(|e| CliError::file(path, e))?;
    let Some(array) = arrays.first() else {
        return Ok(None);
    };
    let options = FormatOptions::default();
    let f =
        ArrayFormatter::try_new(array.as_ref(), &options).map_err(|e| CliError::file(path, e))?;
    Ok(Some(f.value(0).to_string()))
}

fn to_batch(path: &Path, rows: Vec<Row>) -> Result<RecordBatch, CliError> {
    let schema = Schema::new(vec![
        Field::new("column", DataType::Utf8, false),
        Field::new("type", DataType::Utf8, false),
        Field::new("values", DataType::UInt64, true),
        Field::new("nulls", DataType::UInt64, true),
        Field::new("min", DataType::Utf8, true),
        Field::new("max", DataType::Utf8, true),
        Field::new("distinct", DataType::UInt64, true),
        Field::new("distinct_by", DataType::Utf8, true),
        Field::new("compressed", DataType::UInt64, false),
        Field::new("uncompressed", DataType::UInt64, false),
        Field::new("ratio", DataType::Float64, true),
        Field::new("encodings", DataType::Utf8, false),
    ]);
    let ratio = |r: &Row| {
        (r.compressed > 0).then(|| {
            // Two decimals are what a person compares.
            (r.uncompressed as f64 / r.compressed as f64 * 100.0).round() / 100.0
        })
    };
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|r| &r.column),
        )),
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| &r.ty))),
        Arc::new(UInt64Array::from_iter(rows.iter().map(|r| r.values))),
        Arc::new(UInt64Array::from_iter(rows.iter().map(|r| r.nulls))),
        Arc::new(StringArray::from_iter(
            rows.iter().map(|r| r.min.as_deref()),
        )),
        Arc::new(StringArray::from_iter(
            rows.iter().map(|r| r.max.as_deref()),
        )),
        Arc::new(UInt64Array::from_iter(rows.iter().map(|r| r.distinct))),
        Arc::new(StringArray::from_iter(rows.iter().map(|r| r.distinct_by))),
        Arc::new(UInt64Array::from_iter_values(
            rows.iter().map(|r| r.compressed),
        )),
        Arc::new(UInt64Array::from_iter_values(
            rows.iter().map(|r| r.uncompressed),
        )),
        Arc::new(Float64Array::from_iter(rows.iter().map(ratio))),
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|r| r.encodings.join(" ")),
        )),
    ];
    RecordBatch::try_new(Arc::new(schema), columns).map_err(|e| CliError::file(path, e))
}
