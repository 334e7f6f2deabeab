//! `pq cat`: rows as a table, CSV or JSON lines, one batch at a time.

use std::collections::VecDeque;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use arrow_array::{Array, RecordBatch};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::dataset::{self, Dataset};
use crate::error::CliError;
use crate::jsonable;
use crate::{read, sources};

/// How `cat` prints rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A box-drawn table fitted to the terminal: first and last 5 rows.
    Table,
    /// CSV with a header line (RFC 4180 quoting, nulls empty).
    Csv,
    /// One JSON object per line.
    Jsonl,
}

/// Which rows to print.
#[derive(Debug, Clone, Copy)]
pub enum Rows {
    /// Skip `offset` rows, then print at most `limit`.
    Range {
        /// Rows to skip first.
        offset: usize,
        /// Most rows to print.
        limit: Option<usize>,
    },
    /// The last rows, this many.
    Last(usize),
}

/// What to read and how to print it.
#[derive(Debug)]
pub struct CatArgs<'a> {
    /// The inputs: files, globs, directories.
    pub paths: &'a [PathBuf],
    /// Selected columns (all when `None`).
    pub columns: Option<Vec<String>>,
    /// Merge differing schemas by column name.
    pub union_by_name: bool,
    /// Which rows.
    pub rows: Rows,
    /// Output format.
    pub format: Format,
    /// A table shows every row, not only the first and last 5 (`head`,
    /// `tail`: the rows are few by request).
    pub all_rows: bool,
    /// The width to fit a table to (`--max-width`); 0 means no limit.
    pub max_width: Option<usize>,
    /// `--where`: only the rows it keeps.
    pub predicate: Option<pq_arrow::predicate::Predicate>,
}

/// Rows shown at each end of a table.
const ENDS: usize = 5;
/// Longest cell of a table fitted to a width, in terminal columns.
const MAX_CELL: usize = 32;

/// Prints the rows of the inputs.
pub fn run(args: &CatArgs<'_>, out: &mut impl Write) -> Result<(), CliError> {
    let sources = sources::expand(args.paths)?;
    // Messages about the output (not about one input) name the first input.
    let first = sources.first().map(|s| s.path.clone()).unwrap_or_default();
    let path = first.as_path();
    let table = Dataset::open(
        sources,
        dataset::Options {
            columns: args.columns.clone(),
            union_by_name: args.union_by_name,
            predicate: args.predicate.clone(),
            ..Default::default()
        },
    )?;
    let schema = table.schema();
    let batches: Box<dyn Iterator<Item = Result<RecordBatch, CliError>>> =
        if args.predicate.is_some() {
            // Which rows match is known only once they are read: every row
            // is planned, and the offset, limit or last rows counted after.
            let every = table.range(0, None);
            let matching = table.batches(every);
            Box::new(matching_rows(matching, args.rows)?)
        } else {
            let plan = match args.rows {
                Rows::Range { offset, limit } => table.range(offset, limit),
                Rows::Last(n) => table.last(n),
            };
            Box::new(table.batches(plan))
        };
    let ends = if args.all_rows { usize::MAX } else { ENDS };
    let mut printer = BatchPrinter::with_ends(&schema, args.format, ends, args.max_width, out)?;
    for batch in batches {
        printer.push(path, batch?)?;
    }
    printer.finish(path)
}

/// Prints batches in a format as `cat` does, one batch at a time: JSON
/// lines and CSV as they come, a table (its first and last rows) at the
/// end.
pub struct BatchPrinter<'w, W: Write> {
    to: Printer<'w, W>,
}

enum Printer<'w, W: Write> {
    Jsonl(arrow_json::LineDelimitedWriter<&'w mut W>),
    Csv(&'w mut W),
    Table {
        table: Table,
        width: Option<usize>,
        out: &'w mut W,
    },
}

impl<'w, W: Write> BatchPrinter<'w, W> {
    /// A printer of batches of `schema`; a table shows its first and last
    /// rows.
    pub fn new(
        schema: &Schema,
        format: Format,
        max_width: Option<usize>,
        out: &'w mut W,
    ) -> Result<Self, CliError> {
        Self::with_ends(schema, format, ENDS, max_width, out)
    }

    fn with_ends(
        schema: &Schema,
        format: Format,
        ends: usize,
        max_width: Option<usize>,
        out: &'w mut W,
    ) -> Result<Self, CliError> {
        let to = match format {
            Format::Jsonl => Printer::Jsonl(json_writer(out)),
            Format::Csv => {
                write_csv_header(schema, out)?;
                Printer::Csv(out)
            }
            Format::Table => {
                let width = table_width(max_width);
                Printer::Table {
                    table: Table::new(schema, ends, width.map(|_| MAX_CELL)),
                    width,
                    out,
                }
            }
        };
        Ok(BatchPrinter { to })
    }

    /// Prints (or, for a table, takes) `batch`; errors name `path`.
    pub fn push(&mut self, path: &Path, batch: RecordBatch) -> Result<(), CliError> {
        let batch = displayable(path, batch)?;
        match &mut self.to {
            Printer::Jsonl(writer) => {
                let batch = jsonable::batch(&batch).map_err(|e| CliError::file(path, e))?;
                writer.write(&batch).map_err(|e| read::arrow_err(path, e))
            }
            Printer::Csv(out) => write_csv(path, &batch, *out),
            Printer::Table { table, .. } => table.push(path, &batch),
        }
    }

    /// Ends the output (prints a table).
    pub fn finish(self, path: &Path) -> Result<(), CliError> {
        match self.to {
            Printer::Jsonl(mut writer) => writer.finish().map_err(|e| read::arrow_err(path, e)),
            Printer::Csv(_) => Ok(()),
            Printer::Table { table, width, out } => table.print(width.unwrap_or(usize::MAX), out),
        }
    }
}

/// `rows` of the batches of matching rows: their offset and limit, read
/// no further than the limit, or their last rows.
fn matching_rows(
    batches: impl Iterator<Item = Result<RecordBatch, CliError>> + 'static,
    rows: Rows,
) -> Result<Box<dyn Iterator<Item = Result<RecordBatch, CliError>>>, CliError> {
    match rows {
        Rows::Range { offset, limit } => {
            let mut skip = offset;
            let mut left = limit.unwrap_or(usize::MAX);
            Ok(Box::new(
                batches
                    .map_while(move |b| {
                        if left == 0 {
                            return None;
                        }
                        Some(b.map(|b| {
                            let from = skip.min(b.num_rows());
                            skip -= from;
                            let take = left.min(b.num_rows() - from);
                            left -= take;
                            b.slice(from, take)
                        }))
                    })
                    .filter(|b| b.as_ref().map_or(true, |b| b.num_rows() > 0)),
            ))
        }
        Rows::Last(n) => {
            // Only the last `n` rows are kept while reading.
            let mut kept: VecDeque<RecordBatch> = VecDeque::new();
            let mut held = 0usize;
            for b in batches {
                let b = b?;
                held += b.num_rows();
                kept.push_back(b);
                while let Some(front) = kept.front() {
                    if held - front.num_rows() < n {
                        break;
                    }
                    held -= front.num_rows();
                    kept.pop_front();
                }
            }
            if held > n
                && let Some(front) = kept.pop_front()
            {
                let cut = held - n;
                kept.push_front(front.slice(cut, front.num_rows() - cut));
            }
            Ok(Box::new(kept.into_iter().map(Ok)))
        }
    }
}

/// Prints one batch (a few rows a command computed, not read from a file)
/// in `format`: every row of a table, fitted as `cat` fits its tables.
pub fn write_batch(
    path: &Path,
    batch: &RecordBatch,
    format: Format,
    max_width: Option<usize>,
    out: &mut impl Write,
) -> Result<(), CliError> {
    match format {
        Format::Jsonl => {
            let mut writer = json_writer(out);
            writer.write(batch).map_err(|e| read::arrow_err(path, e))?;
            writer.finish().map_err(|e| read::arrow_err(path, e))?;
        }
        Format::Csv => {
            write_csv_header(&batch.schema(), out)?;
            write_csv(path, batch, out)?;
        }
        Format::Table => {
            let width = table_width(max_width);
            let mut table = Table::new(&batch.schema(), usize::MAX, width.map(|_| MAX_CELL));
            table.push(path, batch)?;
            table.print(width.unwrap_or(usize::MAX), out)?;
        }
    }
    Ok(())
}

/// A JSON lines writer that writes null fields as `null`: a reader of the
/// lines sees every column in every row, as in the schema.
pub fn json_writer<W: Write>(out: W) -> arrow_json::LineDelimitedWriter<W> {
    arrow_json::WriterBuilder::new()
        .with_explicit_nulls(true)
        .build::<W, arrow_json::writer::LineDelimited>(out)
}

/// `t` with named time zones (`UTC`, `Europe/Paris`) replaced by `+00:00`:
/// this build formats only offset time zones (arrow's `chrono-tz` feature is
/// off), so timestamps in named zones are shown in UTC.
fn offset_zones(t: &DataType) -> DataType {
    match t {
        DataType::Timestamp(u, Some(tz)) if !tz.starts_with(['+', '-']) => {
            DataType::Timestamp(*u, Some("+00:00".into()))
        }
        DataType::List(f) => DataType::List(offset_field(f)),
        DataType::LargeList(f) => DataType::LargeList(offset_field(f)),
        DataType::FixedSizeList(f, n) => DataType::FixedSizeList(offset_field(f), *n),
        DataType::Struct(fields) => DataType::Struct(fields.iter().map(offset_field).collect()),
        DataType::Map(f, sorted) => DataType::Map(offset_field(f), *sorted),
        t => t.clone(),
    }
}

fn offset_field(f: &arrow_schema::FieldRef) -> arrow_schema::FieldRef {
    std::sync::Arc::new(
        f.as_ref()
            .clone()
            .with_data_type(offset_zones(f.data_type())),
    )
}

/// `batch` with timestamps in named time zones cast to `+00:00` (see
/// [`offset_zones`]), ready for formatting.
pub fn displayable(path: &Path, batch: RecordBatch) -> Result<RecordBatch, CliError> {
    let schema = batch.schema();
    let fields: Vec<arrow_schema::FieldRef> = schema.fields().iter().map(offset_field).collect();
    if fields
        .iter()
        .zip(schema.fields())
        .all(|(a, b)| a.data_type() == b.data_type())
    {
        return Ok(batch);
    }
    let columns = batch
        .columns()
        .iter()
        .zip(&fields)
        .map(|(c, f)| arrow_cast::cast(c, f.data_type()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| CliError::file(path, e))?;
    RecordBatch::try_new(std::sync::Arc::new(Schema::new(fields)), columns)
        .map_err(|e| CliError::file(path, e))
}

/// The width to fit a table to: `--max-width`, else `COLUMNS`, else the
/// terminal's; `None` (no limit) when the output is not a terminal, so a
/// table written to a file or a pipe keeps every column and whole values.
fn table_width(max_width: Option<usize>) -> Option<usize> {
    if let Some(w) = max_width {
        return (w > 0).then_some(w);
    }
    if let Some(w) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|w| *w > 0)
    {
        return Some(w);
    }
    if !std::io::stdout().is_terminal() {
        return None;
    }
    // Without a terminal-size dependency, ask the shell's usual source.
    let asked = std::process::Command::new("stty")
        .arg("size")
        .stdin(std::process::Stdio::inherit())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.split_whitespace().nth(1).and_then(|w| w.parse().ok()))
        .filter(|w: &usize| *w > 0);
    Some(asked.unwrap_or(100))
}

fn format_options() -> FormatOptions<'static> {
    FormatOptions::default().with_null("null")
}

/// The first and last rows of a stream of batches, as text.
struct Table {
    names: Vec<String>,
    types: Vec<String>,
    head: Vec<Vec<String>>,
    tail: VecDeque<Vec<String>>,
    rows: usize,
    /// Rows kept at each end.
    ends: usize,
    /// Longest cell, in terminal columns; `None` keeps whole values.
    max_cell: Option<usize>,
}

impl Table {
    fn new(schema: &Schema, ends: usize, max_cell: Option<usize>) -> Self {
        Table {
            names: schema.fields().iter().map(|f| f.name().clone()).collect(),
            types: schema
                .fields()
                .iter()
                .map(|f| short_type(f.data_type()))
                .collect(),
            head: Vec::new(),
            tail: VecDeque::new(),
            rows: 0,
            ends,
            max_cell,
        }
    }

    /// Keeps the rows of `batch` among the first or last 5.
    fn push(&mut self, path: &Path, batch: &RecordBatch) -> Result<(), CliError> {
        let options = format_options();
        let formatters = batch
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| CliError::file(path, e))?;
        let row_text = |row: usize| -> Vec<String> {
            formatters
                .iter()
                .map(|f| cell(&f.value(row).to_string(), self.max_cell))
                .collect()
        };
        let n = batch.num_rows();
        let mut row = 0;
        while row < n && self.head.len() < self.ends {
            self.head.push(row_text(row));
            row += 1;
        }
        // Of the rest, only the last few can end up in the tail.
        let from = row.max(n.saturating_sub(self.ends));
        for r in from..n {
            self.tail.push_back(row_text(r));
            if self.tail.len() > self.ends {
                self.tail.pop_front();
            }
        }
        self.rows += n;
        Ok(())
    }

    fn print(&self, width: usize, out: &mut impl Write) -> Result<(), CliError> {
        writeln!(
            out,
            "shape: ({}, {})",
            underscored(self.rows),
            underscored(self.names.len())
        )?;
        let mut body: Vec<Option<&Vec<String>>> = self.head.iter().map(Some).collect();
        if self.rows > self.head.len() + self.tail.len() {
            body.push(None);
        }
        body.extend(self.tail.iter().map(Some));

        let widths: Vec<usize> = (0..self.names.len())
            .map(|c| {
                let mut w = chars(&self.names[c]).max(chars(&self.types[c])).max(3);
                for row in body.iter().flatten() {
                    w = w.max(row.get(c).map_or(0, |s| chars(s)));
                }
                w
            })
            .collect();
        // Each column takes its width plus 3 (padding and a separator), and
        // the table one more for its left border.
        let mut shown = widths.len();
        let fits = |k: usize, elided: bool| {
            let cols: usize = widths[..k].iter().map(|w| w + 3).sum();
            cols + 1 + if elided { 4 } else { 0 } <= width
        };
        if !fits(shown, false) {
            shown = (0..widths.len())
                .rev()
                .find(|&k| fits(k, true))
                .unwrap_or(0);
        }
        let elided = shown < widths.len();
        let mut cols: Vec<usize> = widths[..shown].to_vec();
        if elided {
            cols.push(1);
        }
        let line = |l: &str, m: &str, r: &str, fill: &str| -> String {
            let parts: Vec<String> = cols.iter().map(|w| fill.repeat(w + 2)).collect();
            format!("{l}{}{r}", parts.join(m))
        };
        let cells = |texts: Vec<&str>| -> String {
            let mut s = String::from("│");
            for (i, (t, w)) in texts.iter().zip(&cols).enumerate() {
                if i > 0 {
                    s.push('┆');
                }
                s.push(' ');
                s.push_str(t);
                s.push_str(&" ".repeat(w.saturating_sub(chars(t)) + 1));
            }
            s.push('│');
            s
        };
        fn more(mut v: Vec<&str>, elided: bool) -> Vec<&str> {
            if elided {
                v.push("…");
            }
            v
        }
        let with_more = |v| more(v, elided);
        writeln!(out, "{}", line("┌", "┬", "┐", "─"))?;
        writeln!(
            out,
            "{}",
            cells(with_more(
                self.names[..shown].iter().map(String::as_str).collect()
            ))
        )?;
        writeln!(out, "{}", cells(with_more(vec!["---"; shown])))?;
        writeln!(
            out,
            "{}",
            cells(with_more(
                self.types[..shown].iter().map(String::as_str).collect()
            ))
        )?;
        writeln!(out, "{}", line("╞", "╪", "╡", "═"))?;
        for row in &body {
            let texts = match row {
                Some(r) => r[..shown].iter().map(String::as_str).collect(),
                None => vec!["…"; shown],
            };
            writeln!(out, "{}", cells(with_more(texts)))?;
        }
        writeln!(out, "{}", line("└", "┴", "┘", "─"))?;
        Ok(())
    }
}

/// Terminal columns `s` takes: 2 for CJK and most emoji, 0 for combining
/// marks, so borders line up whatever the script.
fn chars(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// A value as one table cell: control characters escaped, text wider than
/// `max` terminal columns cut.
fn cell(s: &str, max: Option<usize>) -> String {
    let mut escaped = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => escaped.push_str("\\n"),
            '\r' => escaped.push_str("\\r"),
            '\t' => escaped.push_str("\\t"),
            c if c.is_control() => escaped.push('?'),
            c => escaped.push(c),
        }
    }
    match max {
        Some(max) if chars(&escaped) > max => {
            // Keep what fits in max - 1 columns, then the ellipsis.
            let mut cut = String::new();
            let mut used = 0;
            for c in escaped.chars() {
                let w = UnicodeWidthChar::width(c).unwrap_or(0);
                if used + w > max - 1 {
                    break;
                }
                used += w;
                cut.push(c);
            }
            cut.push('…');
            cut
        }
        _ => escaped,
    }
}

/// `62689` as `62_689`.
fn underscored(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('_');
        }
        out.push(c);
    }
    out
}

/// A short name of an Arrow type, as polars prints them.
pub fn short_type(t: &DataType) -> String {
    match t {
        DataType::Null => "null".into(),
        DataType::Boolean => "bool".into(),
        DataType::Int8 => "i8".into(),
        DataType::Int16 => "i16".into(),
        DataType::Int32 => "i32".into(),
        DataType::Int64 => "i64".into(),
        DataType::UInt8 => "u8".into(),
        DataType::UInt16 => "u16".into(),
        DataType::UInt32 => "u32".into(),
        DataType::UInt64 => "u64".into(),
        DataType::Float16 => "f16".into(),
        DataType::Float32 => "f32".into(),
        DataType::Float64 => "f64".into(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => "str".into(),
        DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView
        | DataType::FixedSizeBinary(_) => "binary".into(),
        DataType::Date32 | DataType::Date64 => "date".into(),
        DataType::Time32(u) | DataType::Time64(u) => format!("time[{}]", unit(u)),
        DataType::Timestamp(u, None) => format!("datetime[{}]", unit(u)),
        DataType::Timestamp(u, Some(tz)) => format!("datetime[{}, {tz}]", unit(u)),
        DataType::Duration(u) => format!("duration[{}]", unit(u)),
        DataType::Decimal32(p, s)
        | DataType::Decimal64(p, s)
        | DataType::Decimal128(p, s)
        | DataType::Decimal256(p, s) => format!("decimal[{p},{s}]"),
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::ListView(f)
        | DataType::LargeListView(f) => format!("list[{}]", short_type(f.data_type())),
        DataType::FixedSizeList(f, n) => format!("array[{}, {n}]", short_type(f.data_type())),
        DataType::Struct(fields) => format!("struct[{}]", fields.len()),
        DataType::Map(f, _) => match f.data_type() {
            DataType::Struct(kv) if kv.len() == 2 => format!(
                "map[{}, {}]",
                short_type(kv[0].data_type()),
                short_type(kv[1].data_type())
            ),
            _ => "map".into(),
        },
        DataType::Dictionary(_, v) => format!("cat[{}]", short_type(v)),
        other => other.to_string().to_lowercase(),
    }
}

fn unit(u: &TimeUnit) -> &'static str {
    match u {
        TimeUnit::Second => "s",
        TimeUnit::Millisecond => "ms",
        TimeUnit::Microsecond => "μs",
        TimeUnit::Nanosecond => "ns",
    }
}

/// Whether values of this type are printed as JSON text in CSV.
fn is_nested(t: &DataType) -> bool {
    matches!(
        t,
        DataType::List(_)
            | DataType::LargeList(_)
            | DataType::ListView(_)
            | DataType::LargeListView(_)
            | DataType::FixedSizeList(_, _)
            | DataType::Struct(_)
            | DataType::Map(_, _)
            | DataType::Union(_, _)
    )
}

/// A CSV field, quoted when it holds a comma, quote or line break.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Writes the CSV header line: the column names.
pub fn write_csv_header(schema: &Schema, out: &mut impl Write) -> Result<(), CliError> {
    let names: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| csv_field(f.name()))
        .collect();
    writeln!(out, "{}", names.join(","))?;
    Ok(())
}

/// The values of a nested column as JSON text, one per row (`None` for null).
fn json_values(
    path: &Path,
    field: &Field,
    array: &dyn Array,
) -> Result<Vec<Option<String>>, CliError> {
    let key = "v";
    let one = Schema::new(vec![field.clone().with_name(key)]);
    let batch = RecordBatch::try_new(
        std::sync::Arc::new(one),
        vec![arrow_array::make_array(array.to_data())],
    )
    .and_then(|b| jsonable::batch(&b))
    .map_err(|e| CliError::file(path, e))?;
    let mut buf = Vec::new();
    {
        let mut writer = json_writer(&mut buf);
        writer.write(&batch).map_err(|e| CliError::file(path, e))?;
        writer.finish().map_err(|e| CliError::file(path, e))?;
    }
    // Each line is `{"v":VALUE}` (nulls written out, line breaks escaped):
    // the value is the text between, in the writer's field order.
    let text = String::from_utf8_lossy(&buf);
    let prefix = format!("{{\"{key}\":");
    let mut out = Vec::with_capacity(array.len());
    for line in text.lines() {
        let value = line
            .strip_prefix(prefix.as_str())
            .and_then(|l| l.strip_suffix('}'))
            .ok_or_else(|| CliError::file(path, format!("unexpected JSON line: {line}")))?;
        out.push((value != "null").then(|| value.to_string()));
    }
    Ok(out)
}

/// Writes the rows of `batch` as CSV lines; nested values as JSON text.
pub fn write_csv(path: &Path, batch: &RecordBatch, out: &mut impl Write) -> Result<(), CliError> {
    let options = FormatOptions::default();
    enum Col<'a> {
        Flat(&'a dyn Array, ArrayFormatter<'a>),
        Json(Vec<Option<String>>),
    }
    let schema = batch.schema();
    let mut cols = Vec::with_capacity(batch.num_columns());
    for (field, array) in schema.fields().iter().zip(batch.columns()) {
        if is_nested(field.data_type()) {
            cols.push(Col::Json(json_values(path, field, array.as_ref())?));
        } else {
            let f = ArrayFormatter::try_new(array.as_ref(), &options)
                .map_err(|e| CliError::file(path, e))?;
            cols.push(Col::Flat(array.as_ref(), f));
        }
    }
    let mut line = String::new();
    for row in 0..batch.num_rows() {
        line.clear();
        for (i, col) in cols.iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            match col {
                Col::Flat(array, f) => {
                    if array.is_valid(row) {
                        line.push_str(&csv_field(&f.value(row).to_string()));
                    }
                }
                Col::Json(values) => {
                    if let Some(Some(v)) = values.get(row) {
                        line.push_str(&csv_field(v));
                    }
                }
            }
        }
        line.push('\n');
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}
