//! `pq schema --ddl`: a `CREATE TABLE` statement for the file's columns,
//! with the SQL type nearest to each Arrow type pq reads (DuckDB's names
//! and nested syntax: `T[]`, `STRUCT(…)`, `MAP(K, V)`).

use std::io::Write;
use std::path::Path;

use arrow_schema::{DataType, Field};

use crate::error::CliError;
use crate::input;
use crate::read;

/// Words quoted as column names: the SQL standard's and DuckDB's reserved
/// words that tables are likely to use, and type names (quoting a name
/// that needs none is harmless; the reverse is a syntax error).
const RESERVED: &[&str] = &[
    "all",
    "and",
    "any",
    "array",
    "as",
    "asc",
    "between",
    "both",
    "by",
    "case",
    "cast",
    "check",
    "collate",
    "column",
    "constraint",
    "create",
    "cross",
    "current_date",
    "current_time",
    "current_timestamp",
    "current_user",
    "default",
    "desc",
    "distinct",
    "do",
    "else",
    "end",
    "except",
    "false",
    "fetch",
    "for",
    "foreign",
    "from",
    "full",
    "grant",
    "group",
    "having",
    "in",
    "inner",
    "intersect",
    "into",
    "is",
    "join",
    "key",
    "leading",
    "left",
    "like",
    "limit",
    "natural",
    "not",
    "null",
    "offset",
    "on",
    "only",
    "or",
    "order",
    "outer",
    "primary",
    "references",
    "returning",
    "right",
    "select",
    "some",
    "table",
    "then",
    "to",
    "trailing",
    "true",
    "union",
    "unique",
    "user",
    "using",
    "values",
    "when",
    "where",
    "window",
    "with",
    "struct",
    "map",
    "list",
    "row",
    "interval",
    "date",
    "time",
    "timestamp",
];

/// `name` as an SQL identifier: as it is when it is a plain lowercase word,
/// in double quotes otherwise (keeping its case, and doubling any quote).
pub fn ident(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !RESERVED.contains(&name);
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// The SQL type of a field.
pub fn sql_type(f: &Field) -> String {
    if f.metadata()
        .get("ARROW:extension:name")
        .is_some_and(|n| n == "arrow.uuid")
    {
        return "UUID".into();
    }
    data_type(f.data_type())
}

fn data_type(t: &DataType) -> String {
    match t {
        DataType::Boolean => "BOOLEAN".into(),
        DataType::Int8 => "TINYINT".into(),
        DataType::Int16 => "SMALLINT".into(),
        DataType::Int32 => "INTEGER".into(),
        DataType::Int64 => "BIGINT".into(),
        DataType::UInt8 => "UTINYINT".into(),
        DataType::UInt16 => "USMALLINT".into(),
        DataType::UInt32 => "UINTEGER".into(),
        DataType::UInt64 => "UBIGINT".into(),
        // No SQL type of 16 bits: REAL holds every value.
        DataType::Float16 | DataType::Float32 => "REAL".into(),
        DataType::Float64 => "DOUBLE".into(),
        DataType::Decimal32(p, s)
        | DataType::Decimal64(p, s)
        | DataType::Decimal128(p, s)
        | DataType::Decimal256(p, s) => format!("DECIMAL({p},{s})"),
        DataType::Date32 | DataType::Date64 => "DATE".into(),
        DataType::Time32(_) | DataType::Time64(_) => "TIME".into(),
        DataType::Timestamp(_, None) => "TIMESTAMP".into(),
        DataType::Timestamp(_, Some(_)) => "TIMESTAMP WITH TIME ZONE".into(),
        DataType::Duration(_) | DataType::Interval(_) => "INTERVAL".into(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => "VARCHAR".into(),
        DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView
        | DataType::FixedSizeBinary(_) => "BLOB".into(),
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::ListView(f)
        | DataType::LargeListView(f) => format!("{}[]", sql_type(f)),
        DataType::FixedSizeList(f, n) => format!("{}[{n}]", sql_type(f)),
        DataType::Struct(fields) => format!(
            "STRUCT({})",
            fields
                .iter()
                .map(|f| format!("{} {}", ident(f.name()), sql_type(f)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(kv) if kv.len() == 2 => {
                format!("MAP({}, {})", sql_type(&kv[0]), sql_type(&kv[1]))
            }
            _ => "MAP(VARCHAR, VARCHAR)".into(),
        },
        DataType::Dictionary(_, v) => data_type(v),
        DataType::RunEndEncoded(_, v) => sql_type(v),
        // A column of nulls only (Parquet's UNKNOWN logical type): any type
        // holds it; the most general one.
        _ => "VARCHAR".into(),
    }
}

/// The table's name: the file's name without its extensions.
fn table_name(path: &Path) -> String {
    if input::is_stdio(path) {
        return "stdin".into();
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "t".into());
    name.split('.')
        .next()
        .filter(|n| !n.is_empty())
        .unwrap_or("t")
        .to_string()
}

/// Prints `CREATE TABLE` for `path`.
pub fn run(path: &Path, out: &mut impl Write) -> Result<(), CliError> {
    let reader = read::open_input(path, input::open_parquet(path)?, None)?;
    let schema = reader.arrow_schema();
    writeln!(out, "CREATE TABLE {} (", ident(&table_name(path)))?;
    let n = schema.fields().len();
    for (i, f) in schema.fields().iter().enumerate() {
        let not_null = if f.is_nullable() { "" } else { " NOT NULL" };
        let comma = if i + 1 < n { "," } else { "" };
        writeln!(
            out,
            "    {} {}{not_null}{comma}",
            ident(f.name()),
            sql_type(f)
        )?;
    }
    writeln!(out, ");")?;
    Ok(())
}
