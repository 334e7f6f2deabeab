//! `pq meta`: the footer, readable.

use std::io::Write;
use std::path::Path;

use pq_format::{ColumnChunk, ColumnDescriptor, ParquetMetaData, Statistics};
use serde_json::{Value, json};

use crate::error::CliError;
use crate::input;
use crate::values::{format_stat, name};

/// Prints the metadata of `path` as text or JSON.
pub fn run(path: &Path, as_json: bool, out: &mut impl Write) -> Result<(), CliError> {
    let (_, meta) = input::metadata(path)?;
    let report = report(&meta);
    if as_json {
        serde_json::to_writer_pretty(&mut *out, &report)
            .map_err(|e| CliError::from(std::io::Error::from(e)))?;
        writeln!(out)?;
    } else {
        write_text(&report, out)?;
    }
    Ok(())
}

fn stats_json(column: &ColumnDescriptor, s: &Statistics) -> Value {
    // The modern min_value/max_value fields win over the deprecated ones,
    // whose sort order was undefined for most types.
    let min = s.min_value.as_ref().or(s.min.as_ref());
    let max = s.max_value.as_ref().or(s.max.as_ref());
    json!({
        "min": min.map(|v| format_stat(column, v)),
        "max": max.map(|v| format_stat(column, v)),
        "null_count": s.null_count,
        "distinct_count": s.distinct_count,
        "nan_count": s.nan_count,
    })
}

fn chunk_json(column: Option<&ColumnDescriptor>, chunk: &ColumnChunk) -> Value {
    let Some(m) = &chunk.meta_data else {
        return json!({ "file_path": chunk.file_path, "metadata": null });
    };
    json!({
        "path": m.path_in_schema.join("."),
        "type": name(m.type_),
        "encodings": m.encodings.iter().map(|e| name(*e)).collect::<Vec<_>>(),
        "codec": name(m.codec),
        "num_values": m.num_values,
        "total_compressed_size": m.total_compressed_size,
        "total_uncompressed_size": m.total_uncompressed_size,
        "data_page_offset": m.data_page_offset,
        "dictionary_page_offset": m.dictionary_page_offset,
        "index_page_offset": m.index_page_offset,
        "column_index_offset": chunk.column_index_offset,
        "column_index_length": chunk.column_index_length,
        "offset_index_offset": chunk.offset_index_offset,
        "offset_index_length": chunk.offset_index_length,
        "bloom_filter_offset": m.bloom_filter_offset,
        "bloom_filter_length": m.bloom_filter_length,
        "statistics": match (column, &m.statistics) {
            (Some(c), Some(s)) => stats_json(c, s),
            _ => Value::Null,
        },
    })
}

fn report(meta: &ParquetMetaData) -> Value {
    let f = &meta.file;
    let kv: Vec<Value> = f
        .key_value_metadata
        .iter()
        .flatten()
        .map(|kv| json!({ "key": kv.key, "value": kv.value }))
        .collect();
    let row_groups: Vec<Value> = f
        .row_groups
        .iter()
        .map(|rg| {
            json!({
                "num_rows": rg.num_rows,
                "total_byte_size": rg.total_byte_size,
                "total_compressed_size": rg.total_compressed_size,
                "file_offset": rg.file_offset,
                "columns": rg
                    .columns
                    .iter()
                    .enumerate()
                    .map(|(i, c)| chunk_json(meta.schema.column(i), c))
                    .collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "version": f.version,
        "num_rows": f.num_rows,
        "created_by": f.created_by,
        "num_columns": meta.schema.num_columns(),
        "key_value_metadata": kv,
        "row_groups": row_groups,
    })
}

fn write_text(r: &Value, out: &mut impl Write) -> std::io::Result<()> {
    let s = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Null => "-".into(),
        other => other.to_string(),
    };
    writeln!(out, "version: {}", s(&r["version"]))?;
    writeln!(out, "rows: {}", s(&r["num_rows"]))?;
    writeln!(out, "created by: {}", s(&r["created_by"]))?;
    writeln!(out, "columns: {}", s(&r["num_columns"]))?;
    let empty = Vec::new();
    let kvs = r["key_value_metadata"].as_array().unwrap_or(&empty);
    if !kvs.is_empty() {
        writeln!(out, "key-value metadata:")?;
        for kv in kvs {
            let value = s(&kv["value"]);
            // Long values (the ARROW:schema hint) are shortened in text.
            let shown = if value.chars().count() > 80 {
                let cut: String = value.chars().take(77).collect();
                format!("{cut}... ({} bytes)", value.len())
            } else {
                value
            };
            writeln!(out, "  {}: {shown}", s(&kv["key"]))?;
        }
    }
    for (i, rg) in r["row_groups"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .enumerate()
    {
        writeln!(out)?;
        writeln!(
            out,
            "row group {i}: {} rows, {} bytes",
            s(&rg["num_rows"]),
            s(&rg["total_byte_size"])
        )?;
        for (j, c) in rg["columns"]
            .as_array()
            .unwrap_or(&empty)
            .iter()
            .enumerate()
        {
            writeln!(out)?;
            writeln!(out, "column {j}:")?;
            writeln!(out, "{}", "-".repeat(80))?;
            writeln!(out, "column type: {}", s(&c["type"]))?;
            writeln!(out, "column path: {:?}", s(&c["path"]))?;
            let encodings: Vec<String> = c["encodings"]
                .as_array()
                .unwrap_or(&empty)
                .iter()
                .map(s)
                .collect();
            writeln!(out, "encodings: {}", encodings.join(" "))?;
            writeln!(out, "codec: {}", s(&c["codec"]))?;
            writeln!(out, "values: {}", s(&c["num_values"]))?;
            writeln!(
                out,
                "size: {} compressed, {} uncompressed",
                s(&c["total_compressed_size"]),
                s(&c["total_uncompressed_size"])
            )?;
            writeln!(
                out,
                "offsets: data page {}, dictionary page {}",
                s(&c["data_page_offset"]),
                s(&c["dictionary_page_offset"])
            )?;
            if !c["column_index_offset"].is_null() || !c["offset_index_offset"].is_null() {
                writeln!(
                    out,
                    "page index: column index at {} ({} bytes), offset index at {} ({} bytes)",
                    s(&c["column_index_offset"]),
                    s(&c["column_index_length"]),
                    s(&c["offset_index_offset"]),
                    s(&c["offset_index_length"])
                )?;
            }
            let st = &c["statistics"];
            if !st.is_null() {
                writeln!(
                    out,
                    "statistics: min {}, max {}, nulls {}, distinct {}",
                    s(&st["min"]),
                    s(&st["max"]),
                    s(&st["null_count"]),
                    s(&st["distinct_count"])
                )?;
            }
        }
    }
    Ok(())
}
