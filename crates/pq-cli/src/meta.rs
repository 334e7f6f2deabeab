//! `pq meta`: the footer, readable.
//!
//! Both forms are written straight from the decoded footer as they go, with
//! nothing built per key-value entry or column chunk, so the memory used is
//! the decoded footer's whatever the number of entries.

use std::fmt::Display;
use std::io::{self, Write};
use std::path::Path;

use pq_format::{ColumnChunk, ColumnDescriptor, ColumnMetaData, ParquetMetaData, Statistics};

use crate::arrow_hint;
use crate::error::CliError;
use crate::input;
use crate::json::JsonWriter;
use crate::sources::Source;
use crate::values::{format_stat, name};

/// Prints the metadata of `path` as text or JSON.
pub fn run(path: &Path, as_json: bool, out: &mut impl Write) -> Result<(), CliError> {
    let (_, meta) = input::metadata(path)?;
    if as_json {
        write_json(&meta, out)?;
        writeln!(out)?;
    } else {
        write_text(&meta, out)?;
    }
    Ok(())
}

/// The statistics bounds: the modern min_value/max_value fields win over
/// the deprecated ones, whose sort order was undefined for most types.
fn bounds(column: &ColumnDescriptor, s: &Statistics) -> (Option<String>, Option<String>) {
    let min = s.min_value.as_ref().or(s.min.as_ref());
    let max = s.max_value.as_ref().or(s.max.as_ref());
    (
        min.map(|v| format_stat(column, v)),
        max.map(|v| format_stat(column, v)),
    )
}

/// Prints the metadata of every file as JSON: one document for one file,
/// an array of them, each with a `file` member, for several.
pub fn run_json(sources: &[Source], out: &mut impl Write) -> Result<(), CliError> {
    if let [one] = sources {
        return run(&one.path, true, out);
    }
    let mut w = JsonWriter::new(&mut *out);
    w.begin_array()?;
    for source in sources {
        let (_, meta) = input::metadata(&source.path)?;
        json_document(&mut w, &meta, Some(&source.path.to_string_lossy()))?;
    }
    w.end_array()?;
    drop(w);
    writeln!(out)?;
    Ok(())
}

fn write_json(meta: &ParquetMetaData, out: &mut impl Write) -> io::Result<()> {
    json_document(&mut JsonWriter::new(out), meta, None)
}

/// One file's metadata as a JSON object, naming the file when given.
fn json_document<W: Write>(
    w: &mut JsonWriter<W>,
    meta: &ParquetMetaData,
    file: Option<&str>,
) -> io::Result<()> {
    let f = &meta.file;
    w.begin_object()?;
    if let Some(file) = file {
        w.field_str("file", Some(file))?;
    }
    w.field_num("version", Some(f.version))?;
    w.field_num("num_rows", Some(f.num_rows))?;
    w.field_str("created_by", f.created_by.as_deref())?;
    w.field_num("num_columns", Some(meta.schema.num_columns()))?;
    w.field_num("num_row_groups", Some(f.row_groups.len()))?;
    w.key("key_value_metadata")?;
    w.begin_array()?;
    for kv in f.key_value_metadata.iter().flatten() {
        w.begin_object()?;
        w.field_str("key", Some(&kv.key))?;
        w.field_str("value", kv.value.as_deref())?;
        // The raw value stays for programs; the schema it holds is added.
        if let (arrow_hint::KEY, Some(v)) = (kv.key.as_str(), kv.value.as_deref()) {
            match arrow_hint::decode(v) {
                Ok(schema) => w.field_str("arrow_schema", Some(&arrow_hint::text(&schema)))?,
                Err(e) => w.field_str("arrow_schema_error", Some(&e))?,
            }
        }
        w.end_object()?;
    }
    w.end_array()?;
    w.key("row_groups")?;
    w.begin_array()?;
    for rg in &f.row_groups {
        w.begin_object()?;
        w.field_num("num_rows", Some(rg.num_rows))?;
        w.field_num("total_byte_size", Some(rg.total_byte_size))?;
        w.field_num("total_compressed_size", rg.total_compressed_size)?;
        w.field_num("file_offset", rg.file_offset)?;
        w.key("columns")?;
        w.begin_array()?;
        for (i, chunk) in rg.columns.iter().enumerate() {
            chunk_json(w, meta.schema.column(i), chunk)?;
        }
        w.end_array()?;
        w.end_object()?;
    }
    w.end_array()?;
    w.end_object()
}

fn chunk_json<W: Write>(
    w: &mut JsonWriter<W>,
    column: Option<&ColumnDescriptor>,
    chunk: &ColumnChunk,
) -> io::Result<()> {
    w.begin_object()?;
    let Some(m) = &chunk.meta_data else {
        w.field_str("file_path", chunk.file_path.as_deref())?;
        w.key("metadata")?;
        w.null()?;
        return w.end_object();
    };
    w.field_str("path", Some(&m.path_in_schema.join(".")))?;
    w.field_str("type", Some(&name(m.type_)))?;
    w.key("encodings")?;
    w.begin_array()?;
    for e in m.encodings.iter() {
        w.string(&name(*e))?;
    }
    w.end_array()?;
    w.field_str("codec", Some(&name(m.codec)))?;
    w.field_num("num_values", Some(m.num_values))?;
    w.field_num("total_compressed_size", Some(m.total_compressed_size))?;
    w.field_num("total_uncompressed_size", Some(m.total_uncompressed_size))?;
    w.field_num("data_page_offset", Some(m.data_page_offset))?;
    w.field_num("dictionary_page_offset", m.dictionary_page_offset)?;
    w.field_num("index_page_offset", m.index_page_offset)?;
    w.field_num("column_index_offset", chunk.column_index_offset)?;
    w.field_num("column_index_length", chunk.column_index_length)?;
    w.field_num("offset_index_offset", chunk.offset_index_offset)?;
    w.field_num("offset_index_length", chunk.offset_index_length)?;
    w.field_num("bloom_filter_offset", m.bloom_filter_offset)?;
    w.field_num("bloom_filter_length", m.bloom_filter_length)?;
    w.key("statistics")?;
    match (column, &m.statistics) {
        (Some(c), Some(s)) => {
            let (min, max) = bounds(c, s);
            w.begin_object()?;
            w.field_str("min", min.as_deref())?;
            w.field_str("max", max.as_deref())?;
            w.field_num("null_count", s.null_count)?;
            w.field_num("distinct_count", s.distinct_count)?;
            w.field_num("nan_count", s.nan_count)?;
            w.end_object()?;
        }
        _ => w.null()?,
    }
    w.end_object()
}

/// The whole file's sizes and codecs, from its column chunks.
struct Totals {
    compressed: i64,
    uncompressed: i64,
    /// Every codec used, in order of first use.
    codecs: Vec<String>,
}

fn totals(meta: &ParquetMetaData) -> Totals {
    let mut t = Totals {
        compressed: 0,
        uncompressed: 0,
        codecs: Vec::new(),
    };
    for m in meta
        .file
        .row_groups
        .iter()
        .flat_map(|rg| &rg.columns)
        .filter_map(|c| c.meta_data.as_ref())
    {
        // A hostile footer's sizes must not overflow the sum.
        t.compressed = t.compressed.saturating_add(m.total_compressed_size);
        t.uncompressed = t.uncompressed.saturating_add(m.total_uncompressed_size);
        let codec = name(m.codec);
        if !t.codecs.contains(&codec) {
            t.codecs.push(codec);
        }
    }
    t
}

/// An optional value as text: `-` when absent.
fn or_dash(v: Option<impl Display>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

fn write_text(meta: &ParquetMetaData, out: &mut impl Write) -> io::Result<()> {
    let f = &meta.file;
    // The summary a person wants first; the row groups follow.
    let t = totals(meta);
    writeln!(out, "rows: {}", f.num_rows)?;
    writeln!(out, "row groups: {}", f.row_groups.len())?;
    writeln!(out, "columns: {}", meta.schema.num_columns())?;
    let ratio = if t.compressed > 0 {
        format!(
            " (ratio {:.2})",
            t.uncompressed as f64 / t.compressed as f64
        )
    } else {
        String::new()
    };
    writeln!(
        out,
        "size: {} bytes compressed, {} uncompressed{ratio}",
        t.compressed, t.uncompressed
    )?;
    writeln!(
        out,
        "codecs: {}",
        if t.codecs.is_empty() {
            "-".to_string()
        } else {
            t.codecs.join(", ")
        }
    )?;
    writeln!(out, "created by: {}", or_dash(f.created_by.as_deref()))?;
    writeln!(out, "version: {}", f.version)?;
    if let Some(kvs) = f.key_value_metadata.as_deref().filter(|k| !k.is_empty()) {
        writeln!(out, "key-value metadata:")?;
        for kv in kvs {
            let value = kv.value.as_deref().unwrap_or("-");
            if kv.key == arrow_hint::KEY {
                match arrow_hint::decode(value) {
                    Ok(schema) => {
                        writeln!(out, "  {}: (Arrow schema, {} bytes)", kv.key, value.len())?;
                        for line in arrow_hint::field_lines(&schema) {
                            writeln!(out, "    {line}")?;
                        }
                        continue;
                    }
                    Err(e) => writeln!(out, "  {}: {e}", kv.key)?,
                }
            }
            // Long values are shortened in text.
            if value.chars().count() > 80 {
                let cut: String = value.chars().take(77).collect();
                writeln!(out, "  {}: {cut}... ({} bytes)", kv.key, value.len())?;
            } else {
                writeln!(out, "  {}: {value}", kv.key)?;
            }
        }
    }
    for (i, rg) in f.row_groups.iter().enumerate() {
        writeln!(out)?;
        writeln!(
            out,
            "row group {i}: {} rows, {} bytes",
            rg.num_rows, rg.total_byte_size
        )?;
        for (j, chunk) in rg.columns.iter().enumerate() {
            writeln!(out)?;
            writeln!(out, "column {j}:")?;
            writeln!(out, "{}", "-".repeat(80))?;
            match &chunk.meta_data {
                Some(m) => chunk_text(meta.schema.column(j), chunk, m, out)?,
                None => writeln!(
                    out,
                    "no metadata (file path: {})",
                    or_dash(chunk.file_path.as_deref())
                )?,
            }
        }
    }
    Ok(())
}

fn chunk_text(
    column: Option<&ColumnDescriptor>,
    chunk: &ColumnChunk,
    m: &ColumnMetaData,
    out: &mut impl Write,
) -> io::Result<()> {
    writeln!(out, "column type: {}", name(m.type_))?;
    writeln!(out, "column path: {:?}", m.path_in_schema.join("."))?;
    write!(out, "encodings:")?;
    for e in m.encodings.iter() {
        write!(out, " {}", name(*e))?;
    }
    writeln!(out)?;
    writeln!(out, "codec: {}", name(m.codec))?;
    writeln!(out, "values: {}", m.num_values)?;
    writeln!(
        out,
        "size: {} compressed, {} uncompressed",
        m.total_compressed_size, m.total_uncompressed_size
    )?;
    writeln!(
        out,
        "offsets: data page {}, dictionary page {}",
        m.data_page_offset,
        or_dash(m.dictionary_page_offset)
    )?;
    if chunk.column_index_offset.is_some() || chunk.offset_index_offset.is_some() {
        writeln!(
            out,
            "page index: column index at {} ({} bytes), offset index at {} ({} bytes)",
            or_dash(chunk.column_index_offset),
            or_dash(chunk.column_index_length),
            or_dash(chunk.offset_index_offset),
            or_dash(chunk.offset_index_length)
        )?;
    }
    if let (Some(c), Some(s)) = (column, &m.statistics) {
        let (min, max) = bounds(c, s);
        writeln!(
            out,
            "statistics: min {}, max {}, nulls {}, distinct {}",
            or_dash(min),
            or_dash(max),
            or_dash(s.null_count),
            or_dash(s.distinct_count)
        )?;
    }
    Ok(())
}
