//! CSV input for `pq convert`: the dialect options, column types given or
//! inferred, and the checks that keep a malformed file from becoming
//! plausible data.
//!
//! - A quoted field still open at the end of the file is an error naming
//!   the line it opened on (the CSV parser would take the rest of the file
//!   as that one field): [`QuoteCheck`] follows the quoting of the bytes as
//!   they pass, a state per byte and no copy.
//! - A header naming a column twice is an error, or with `--dedupe-header`
//!   the later ones become `name_2`, `name_3`.
//! - Types are inferred from the first `--infer-rows` records; a later
//!   value that does not fit is an error naming its line and column and the
//!   `--dtypes` that reads it, never a null or a cut value.
//! - An empty field and a quoted empty field (`""`) reach the reader alike:
//!   both are null by default. `--null` lists the strings that are null
//!   instead (repeatable; `--null ''` keeps empty fields null), so with
//!   `--null NA` an empty field in a string column is an empty string.

use std::cell::RefCell;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, RecordBatch, StringArray, TimestampMicrosecondArray,
    TimestampMillisecondArray, TimestampNanosecondArray, TimestampSecondArray,
};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef, TimeUnit};

use crate::csv_error::{self, Numbering};
use crate::error::CliError;
use crate::input::Input;

/// Records read to infer the column types, unless `--infer-rows` says.
pub const DEFAULT_INFER_ROWS: usize = 10_000;

/// The CSV options of `pq convert`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CsvArgs {
    /// CSV input: the field delimiter, one character (`\t` or `tab` for a
    /// tab). Default `,`.
    #[arg(long, value_name = "CHAR")]
    pub delimiter: Option<String>,
    /// CSV input: the quote character. Default `"`.
    #[arg(long, value_name = "CHAR")]
    pub quote: Option<String>,
    /// CSV input: the escape character inside quoted fields (by default a
    /// quote is escaped by doubling it).
    #[arg(long, value_name = "CHAR")]
    pub escape: Option<String>,
    /// CSV input: the first line is data; columns are named column_1, ...
    #[arg(long)]
    pub no_header: bool,
    /// CSV input: a string that is null (repeatable). Without it, empty
    /// fields and `""` are both null in every column (DuckDB's default);
    /// with it, only the strings given are, and empty fields and `""` are
    /// empty strings in string columns (`--null ''` keeps empty fields
    /// null).
    #[arg(long = "null", value_name = "STRING")]
    pub nulls: Vec<String>,
    /// CSV input: the chrono format (`%d/%m/%Y %H:%M`) of the columns
    /// --dtypes makes timestamps; with `%z` the offset is read too.
    #[arg(long, value_name = "FORMAT")]
    pub timestamp_format: Option<String>,
    /// CSV input: lines to skip before the header (titles, notes).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub skip_rows: usize,
    /// CSV input: rename repeated header names (`x`, `x_2`, ...) rather
    /// than stop.
    #[arg(long)]
    pub dedupe_header: bool,
    /// CSV input: records read to infer the column types.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_INFER_ROWS)]
    pub infer_rows: usize,
    /// Parse CSV input, and encode Parquet output, on this many threads
    /// each (default: one per core). The output is the same file whatever
    /// the number.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// One ASCII character of an option; `\t` and `tab` are a tab.
fn one_byte(option: &str, value: &str) -> Result<u8, CliError> {
    let v = match value {
        "\\t" | "tab" => "\t",
        v => v,
    };
    match v.as_bytes() {
        [b] if b.is_ascii() && *b != b'\n' && *b != b'\r' => Ok(*b),
        _ => Err(CliError::Usage(format!(
            "--{option} '{value}': expected one ASCII character other than a line end"
        ))),
    }
}

/// The dialect as bytes, checked.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Dialect {
    delimiter: u8,
    quote: u8,
    escape: Option<u8>,
}

impl CsvArgs {
    fn dialect(&self) -> Result<Dialect, CliError> {
        let d = Dialect {
            delimiter: self
                .delimiter
                .as_deref()
                .map_or(Ok(b','), |v| one_byte("delimiter", v))?,
            quote: self
                .quote
                .as_deref()
                .map_or(Ok(b'"'), |v| one_byte("quote", v))?,
            escape: self
                .escape
                .as_deref()
                .map(|v| one_byte("escape", v))
                .transpose()?,
        };
        if d.delimiter == d.quote {
            return Err(CliError::Usage(
                "--delimiter and --quote must differ".into(),
            ));
        }
        Ok(d)
    }

    fn null_regex(&self) -> Result<Option<regex::Regex>, CliError> {
        if self.nulls.is_empty() {
            return Ok(None);
        }
        let alternatives: Vec<String> = self.nulls.iter().map(|n| regex::escape(n)).collect();
        regex::Regex::new(&format!("^(?:{})$", alternatives.join("|")))
            .map(Some)
            .map_err(|e| CliError::Usage(format!("--null: {e}")))
    }

    /// Whether any CSV-only option was given.
    pub fn any(&self) -> bool {
        self.delimiter.is_some()
            || self.quote.is_some()
            || self.escape.is_some()
            || self.no_header
            || !self.nulls.is_empty()
            || self.timestamp_format.is_some()
            || self.skip_rows > 0
            || self.dedupe_header
            || self.infer_rows != DEFAULT_INFER_ROWS
    }
}

/// A `--dtypes` type: `int8` .. `uint64`, `float`, `double`, `boolean`,
/// `string`, `binary`, `date`, `time` (microseconds), `decimal(P,S)`,
/// `timestamp` (microseconds, no zone), `timestamp(UNIT)` or
/// `timestamp(UNIT, ZONE)` with UNIT s, ms, us or ns and ZONE `UTC`, an
/// offset such as `+02:00` or a name such as `Europe/Paris`.
pub fn dtype(name: &str) -> Result<DataType, CliError> {
    let lower = name.trim().to_ascii_lowercase();
    let unknown = || {
        CliError::Usage(format!(
            "unknown type '{name}'; types are: boolean, int8, int16, int32, int64, uint8, \
             uint16, uint32, uint64, float, double, decimal(P,S), string, binary, date, time, \
             timestamp, timestamp(UNIT), timestamp(UNIT, ZONE)"
        ))
    };
    // Zone names keep their case (Europe/Paris): the arguments are taken
    // from the name as given (ASCII lower-casing keeps every byte's place).
    let given = name.trim();
    let args = |prefix: &str| -> Option<Vec<String>> {
        let inner = given.get(prefix.len()..)?.trim().strip_prefix('(')?;
        let inner = inner.strip_suffix(')')?;
        Some(inner.split(',').map(|s| s.trim().to_string()).collect())
    };
    Ok(match lower.as_str() {
        "boolean" | "bool" => DataType::Boolean,
        "int8" => DataType::Int8,
        "int16" => DataType::Int16,
        "int32" => DataType::Int32,
        "int64" => DataType::Int64,
        "uint8" => DataType::UInt8,
        "uint16" => DataType::UInt16,
        "uint32" => DataType::UInt32,
        "uint64" => DataType::UInt64,
        "float" => DataType::Float32,
        "double" => DataType::Float64,
        "string" => DataType::Utf8,
        "binary" => DataType::Binary,
        "date" => DataType::Date32,
        "time" => DataType::Time64(TimeUnit::Microsecond),
        "timestamp" => DataType::Timestamp(TimeUnit::Microsecond, None),
        l if l.starts_with("decimal") => {
            let a = args("decimal").ok_or_else(unknown)?;
            let [p, s] = a.as_slice() else {
                return Err(unknown());
            };
            let (Ok(p), Ok(s)) = (p.parse::<u8>(), s.parse::<i8>()) else {
                return Err(unknown());
            };
            if p == 0 || p > 38 || i16::from(s) > i16::from(p) {
                return Err(CliError::Usage(format!(
                    "'{name}': the precision is 1 to 38 digits and the scale at most that"
                )));
            }
            DataType::Decimal128(p, s)
        }
        l if l.starts_with("timestamp") => {
            let a = args("timestamp").ok_or_else(unknown)?;
            let unit = match a.first().map(|u| u.to_ascii_lowercase()).as_deref() {
                Some("s") => TimeUnit::Second,
                Some("ms") => TimeUnit::Millisecond,
                Some("us") => TimeUnit::Microsecond,
                Some("ns") => TimeUnit::Nanosecond,
                _ => return Err(unknown()),
            };
            let zone = match a.get(1).map(String::as_str) {
                None => None,
                // Arrow's time zones are offsets without its chrono-tz
                // feature: UTC is +00:00.
                Some(z) if z.eq_ignore_ascii_case("utc") => Some("+00:00".to_string()),
                Some(z) if is_offset(z) => Some(z.to_string()),
                Some(z) if is_zone_name(z) => Some(z.to_string()),
                Some(_) => {
                    return Err(CliError::Usage(format!(
                        "'{name}': the zone is UTC, an offset such as +02:00 or a name such \
                         as Europe/Paris"
                    )));
                }
            };
            if a.len() > 2 {
                return Err(unknown());
            }
            DataType::Timestamp(unit, zone.map(Into::into))
        }
        _ => return Err(unknown()),
    })
}

/// A zone's name in the tz database: `Europe/Paris`, `America/New_York`,
/// `Etc/GMT+3`.
fn is_zone_name(z: &str) -> bool {
    z.starts_with(|c: char| c.is_ascii_alphabetic())
        && z.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-' | '+'))
}

/// `+hh:mm` or `-hh:mm`.
fn is_offset(z: &str) -> bool {
    let b = z.as_bytes();
    b.len() == 6
        && (b[0] == b'+' || b[0] == b'-')
        && b[1].is_ascii_digit()
        && b[2].is_ascii_digit()
        && b[3] == b':'
        && b[4].is_ascii_digit()
        && b[5].is_ascii_digit()
}

/// Where the quoting of the bytes read so far stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quoting {
    /// Outside quotes: at a field's start when the byte before is a
    /// delimiter or a line end, else inside an unquoted field.
    Outside,
    Quoted,
    /// A quote inside a quoted field: its end, or the first of a doubled one.
    QuoteInQuoted,
    /// The escape character inside a quoted field: the next byte is literal.
    Escaped,
}

/// A reader that skips the first lines, and fails at the end of the input
/// when a quoted field is still open (the message is also kept in `error`,
/// for the CSV reader's error to be replaced by it).
pub(crate) struct QuoteCheck<R> {
    inner: R,
    dialect: Dialect,
    state: Quoting,
    /// The line being read (from 1, skipped lines included).
    line: usize,
    /// The line the open quoted field started on.
    opened: usize,
    skip: usize,
    error: Rc<RefCell<Option<String>>>,
    /// The last byte passed on (a line end before the first).
    last: u8,
    /// Bytes passed on to the reader (skipped lines not counted).
    passed: u64,
    /// Bytes passed up to the end of the last whole record: just after its
    /// line end outside quotes. Where a block of records may be cut.
    record_end: u64,
}

impl<R: Read> QuoteCheck<R> {
    fn new(inner: R, dialect: Dialect, skip: usize, error: Rc<RefCell<Option<String>>>) -> Self {
        QuoteCheck {
            inner,
            dialect,
            state: Quoting::Outside,
            line: 1,
            opened: 0,
            skip,
            error,
            last: b'\n',
            passed: 0,
            record_end: 0,
        }
    }

    /// The reader inside.
    pub(crate) fn into_inner(self) -> R {
        self.inner
    }

    /// Bytes passed on up to the end of the last whole record.
    pub(crate) fn record_end(&self) -> u64 {
        self.record_end
    }

    /// Follows the quoting of `bytes`, jumping between the bytes that can
    /// change it (a quote, the escape, a line end) rather than stepping
    /// through each: this runs on one thread ahead of the parsers, and was
    /// a fifth of a conversion's time byte by byte.
    fn follow(&mut self, bytes: &[u8]) {
        let d = self.dialect;
        let mut end = None;
        let mut i = 0;
        while let Some(rest) = bytes.get(i..).filter(|r| !r.is_empty()) {
            match self.state {
                Quoting::Outside => match memchr::memchr2(d.quote, b'\n', rest) {
                    None => i = bytes.len(),
                    Some(k) => {
                        let at = i + k;
                        if rest.get(k) == Some(&b'\n') {
                            self.line += 1;
                            end = Some(at);
                        } else {
                            // A quote opens a quoted field only at a field's
                            // start; inside an unquoted field it is text.
                            let before = if k > 0 {
                                rest.get(k - 1).copied().unwrap_or(b'\n')
                            } else {
                                self.last
                            };
                            if before == d.delimiter || before == b'\n' || before == b'\r' {
                                self.opened = self.line;
                                self.state = Quoting::Quoted;
                            }
                        }
                        i = at + 1;
                    }
                },
                Quoting::Quoted => {
                    let found = match d.escape {
                        Some(e) => memchr::memchr2(d.quote, e, rest),
                        None => memchr::memchr(d.quote, rest),
                    };
                    let k = found.unwrap_or(rest.len());
                    let skipped = rest.get(..k).unwrap_or_default();
                    self.line += memchr::memchr_iter(b'\n', skipped).count();
                    if let Some(&b) = rest.get(k) {
                        self.state = if b == d.quote {
                            Quoting::QuoteInQuoted
                        } else {
                            Quoting::Escaped
                        };
                    }
                    i += (k + 1).min(rest.len());
                }
                Quoting::QuoteInQuoted | Quoting::Escaped => {
                    let b = rest.first().copied().unwrap_or_default();
                    self.state = match self.state {
                        // A doubled quote, or an escaped byte: still quoted.
                        Quoting::QuoteInQuoted if b != d.quote => Quoting::Outside,
                        _ => Quoting::Quoted,
                    };
                    if b == b'\n' {
                        self.line += 1;
                        if self.state == Quoting::Outside {
                            end = Some(i);
                        }
                    }
                    i += 1;
                }
            }
        }
        if let Some(&b) = bytes.last() {
            self.last = b;
        }
        if let Some(i) = end {
            self.record_end = self.passed + i as u64 + 1;
        }
        self.passed += bytes.len() as u64;
    }

    /// Reads and drops the lines to skip.
    fn skip_lines(&mut self) -> io::Result<()> {
        let mut buf = [0u8; 1];
        while self.skip > 0 {
            if self.inner.read(&mut buf)? == 0 {
                self.skip = 0;
                break;
            }
            if buf[0] == b'\n' {
                self.skip -= 1;
                self.line += 1;
            }
        }
        Ok(())
    }
}

impl<R: Read> Read for QuoteCheck<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.skip > 0 {
            self.skip_lines()?;
        }
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() && matches!(self.state, Quoting::Quoted | Quoting::Escaped) {
            let message = format!(
                "line {}: a quoted field opens here and is not closed by the end of the file",
                self.opened
            );
            *self.error.borrow_mut() = Some(message.clone());
            return Err(io::Error::new(io::ErrorKind::InvalidData, message));
        }
        self.follow(buf.get(..n).unwrap_or_default());
        Ok(n)
    }
}

/// How a column read as text becomes its type after the CSV reader.
#[derive(Debug, Clone)]
enum Then {
    Keep,
    Binary,
    /// `--timestamp-format` reads it.
    Timestamp(TimeUnit, Option<Arc<str>>),
    /// A timestamp without a zone: a value with an offset is an error, not
    /// silently moved to UTC wall time.
    Naive(TimeUnit),
    /// A timestamp in a named zone: every value carries its offset, which
    /// gives the instant (pq has no time zone database to place a wall time
    /// in a named zone).
    Named(TimeUnit, Arc<str>),
}

/// Batches of a CSV input, or the one line saying what is wrong.
pub type Batches = Box<dyn Iterator<Item = Result<RecordBatch, String>>>;

/// How to read a CSV input once its column types are known: what the
/// sequential reader and the block readers of `csv_blocks` share.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The columns as written.
    pub schema: SchemaRef,
    /// The columns as the CSV parser reads them (text where converted after).
    read_schema: SchemaRef,
    format: arrow_csv::reader::Format,
    null_regex: Option<regex::Regex>,
    then: Vec<Then>,
    /// Whether `--dtypes` named each column (else its type was inferred).
    given: Vec<bool>,
    dialect: Dialect,
    numbering: Numbering,
    infer_rows: usize,
    timestamp_format: Option<String>,
}

impl Plan {
    /// A CSV decoder of one block of records, which starts with the header
    /// when `header`.
    pub(crate) fn decoder(&self, header: bool) -> arrow_csv::reader::Decoder {
        let rows = batch_rows(self.read_schema.fields().len());
        let mut builder = arrow_csv::ReaderBuilder::new(self.read_schema.clone())
            .with_format(self.format.clone().with_header(header))
            .with_batch_size(rows);
        if let Some(r) = &self.null_regex {
            builder = builder.with_null_regex(r.clone());
        }
        builder.build_decoder()
    }

    /// Whether the file starts with a header line.
    pub(crate) fn header(&self) -> bool {
        self.numbering.header
    }

    /// A reader that checks the quoting of `data` and follows its records.
    pub(crate) fn checked<R: Read>(&self, data: R) -> QuoteCheck<R> {
        QuoteCheck::new(data, self.dialect, self.numbering.skipped, Rc::default())
    }

    /// A batch as the CSV parser read it, with its text columns converted;
    /// an error names the batch's row, the column, the value and why.
    pub(crate) fn convert(&self, batch: &RecordBatch) -> Result<RecordBatch, Failure> {
        convert(
            batch,
            &self.then,
            &self.schema,
            self.timestamp_format.as_deref(),
        )
    }
}

/// Infers the column types of `data` (the first `--infer-rows` records)
/// and applies `dtypes`.
pub fn plan(
    path: &Path,
    data: &mut Input,
    dtypes: &[(String, DataType)],
    args: &CsvArgs,
) -> Result<Plan, CliError> {
    let dialect = args.dialect()?;
    let null_regex = args.null_regex()?;
    let numbering = Numbering {
        header: !args.no_header,
        skipped: args.skip_rows,
    };
    let mut format = arrow_csv::reader::Format::default()
        .with_header(!args.no_header)
        .with_delimiter(dialect.delimiter)
        .with_quote(dialect.quote);
    if let Some(e) = dialect.escape {
        format = format.with_escape(e);
    }
    if let Some(r) = &null_regex {
        format = format.with_null_regex(r.clone());
    }
    let error = Rc::new(RefCell::new(None));
    let quote_error = |e: &ArrowError, error: &Rc<RefCell<Option<String>>>| {
        error
            .borrow()
            .clone()
            .unwrap_or_else(|| csv_error::message(e, &[], numbering))
    };
    let (inferred, _) = {
        let mut checked = QuoteCheck::new(&mut *data, dialect, args.skip_rows, error.clone());
        format
            .infer_schema(&mut checked, Some(args.infer_rows.max(1)))
            .map_err(|e| CliError::file(path, quote_error(&e, &error)))?
    };
    if inferred.fields().is_empty() {
        return Err(CliError::file(
            path,
            "has no header line naming its columns: nothing to convert",
        ));
    }
    let mut fields: Vec<Field> = inferred
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    check_names(path, &mut fields, args.dedupe_header, numbering)?;
    zone_offsets(data, &mut fields, format.clone(), dialect, args)
        .map_err(|e| CliError::file(path, quote_error(&e, &error)))?;
    let mut given = vec![false; fields.len()];
    for (col, ty) in dtypes {
        let Some(i) = fields.iter().position(|f| f.name() == col) else {
            let names: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
            return Err(CliError::file(
                path,
                format!("no column '{col}'; columns are: {}", names.join(", ")),
            ));
        };
        if let Some(f) = fields.get_mut(i) {
            *f = f.clone().with_data_type(ty.clone());
        }
        if let Some(g) = given.get_mut(i) {
            *g = true;
        }
    }
    // Types the CSV reader does not read, or not in the format asked, are
    // read as text and converted after it.
    let mut then = Vec::with_capacity(fields.len());
    let read_fields: Vec<Field> = fields
        .iter()
        .map(|f| {
            let t = match f.data_type() {
                DataType::Binary => Then::Binary,
                DataType::Timestamp(u, z) if args.timestamp_format.is_some() => {
                    Then::Timestamp(*u, z.clone())
                }
                DataType::Timestamp(u, None) => Then::Naive(*u),
                DataType::Timestamp(u, Some(z)) if !is_offset(z) => Then::Named(*u, z.clone()),
                _ => Then::Keep,
            };
            let read = match t {
                Then::Keep => f.clone(),
                _ => f.clone().with_data_type(DataType::Utf8),
            };
            then.push(t);
            read
        })
        .collect();
    if let Some(format) = &args.timestamp_format
        && !format.contains("%z")
        && !format.contains("%:z")
        && !format.contains("%#z")
        && let Some(f) = fields
            .iter()
            .find(|f| matches!(f.data_type(), DataType::Timestamp(_, Some(z)) if !is_offset(z)))
    {
        return Err(CliError::Usage(format!(
            "--timestamp-format '{format}' reads no offset, and column '{}' is in a named \
             zone: add %z to the format (pq has no time zone database to place a wall time)",
            f.name()
        )));
    }
    Ok(Plan {
        schema: Arc::new(Schema::new(fields)),
        read_schema: Arc::new(Schema::new(read_fields)),
        format,
        null_regex,
        then,
        given,
        dialect,
        numbering,
        infer_rows: args.infer_rows,
        timestamp_format: args.timestamp_format.clone(),
    })
}

/// The batches of `data`, read from its start on this thread, with errors
/// naming the line of the file.
pub fn sequential(path: &Path, mut data: Input, plan: &Plan) -> Result<Batches, CliError> {
    data.seek(SeekFrom::Start(0))
        .map_err(|e| CliError::file(path, e))?;
    let error = Rc::new(RefCell::new(None));
    let numbering = plan.numbering;
    let quote_error =
        move |e: &ArrowError, names: &[String], error: &Rc<RefCell<Option<String>>>| {
            error
                .borrow()
                .clone()
                .unwrap_or_else(|| csv_error::message(e, names, numbering))
        };
    let checked = QuoteCheck::new(data, plan.dialect, numbering.skipped, error.clone());
    let rows = batch_rows(plan.read_schema.fields().len());
    let mut builder = arrow_csv::ReaderBuilder::new(plan.read_schema.clone())
        .with_format(plan.format.clone())
        .with_batch_size(rows);
    if let Some(r) = &plan.null_regex {
        builder = builder.with_null_regex(r.clone());
    }
    let reader = builder
        .build(checked)
        .map_err(|e| CliError::file(path, e))?;
    let names: Vec<String> = plan
        .schema
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let plan = plan.clone();
    // Records before each batch, for the line of a conversion error.
    let mut records = 0usize;
    let batches = reader.map(move |b| {
        let batch = b.map_err(|e| {
            let text = quote_error(&e, &names, &error);
            match csv_error::bad_value(&e) {
                Some((col, value)) if !plan.given.get(col).copied().unwrap_or(true) => {
                    let name = names.get(col).map_or("?", String::as_str);
                    format!(
                        "{text} (the type was inferred from the first {} records); \
                         --dtypes '{name}={}' reads it",
                        plan.infer_rows,
                        fitting(&value)
                    )
                }
                _ => text,
            }
        })?;
        let first = records;
        records += batch.num_rows();
        plan.convert(&batch).map_err(|(row, col, value, why)| {
            let line = first + row + 1 + numbering.skipped + usize::from(numbering.header);
            let name = names.get(col).map_or("?", String::as_str);
            format!("line {line}, column '{name}': '{value}' {why}")
        })
    });
    Ok(Box::new(batches))
}

/// Rows per CSV batch: up to 65,536, fewer for wide files. The CSV reader
/// sets aside offsets and data for a whole batch of every column before it
/// reads a record (about 16 bytes a cell), so a fixed row count made a
/// 3-row file of 10,000 columns cost 1.3 GB; a budget of cells keeps a
/// batch's buffers to about 16 MB however many columns there are. Large
/// batches make the writer's per-batch work (levels, statistics, spreading
/// the columns over its threads) rare: on the 13 M-row file of `cargo xtask
/// bench-csv`, 64 Ki-row batches took 4.9-5.2 s where 8 Ki-row ones took
/// 5.3-5.7 s, for 40 MB more at the peak.
fn batch_rows(columns: usize) -> usize {
    const CELLS: usize = 1 << 20;
    (CELLS / columns.max(1)).clamp(1, 65_536)
}

/// Inferred timestamp columns whose sampled values carry an offset (`Z`,
/// `+02:00`) become zoned (UTC): the CSV reader would otherwise turn each
/// into UTC wall time in a zoneless column, and the instant would read as
/// local time. Values without an offset in such a column are taken as UTC
/// (`+00:00`: arrow knows zones by offset only, without its chrono-tz).
fn zone_offsets(
    data: &mut Input,
    fields: &mut [Field],
    format: arrow_csv::reader::Format,
    dialect: Dialect,
    args: &CsvArgs,
) -> Result<(), ArrowError> {
    let naive: Vec<usize> = fields
        .iter()
        .enumerate()
        .filter(|(_, f)| matches!(f.data_type(), DataType::Timestamp(_, None)))
        .map(|(i, _)| i)
        .collect();
    if naive.is_empty() {
        return Ok(());
    }
    data.seek(SeekFrom::Start(0))?;
    let text = Schema::new(
        fields
            .iter()
            .map(|f| Field::new(f.name(), DataType::Utf8, true))
            .collect::<Vec<_>>(),
    );
    let checked = QuoteCheck::new(&mut *data, dialect, args.skip_rows, Rc::default());
    let rows = batch_rows(text.fields().len());
    let reader = arrow_csv::ReaderBuilder::new(Arc::new(text))
        .with_format(format)
        .with_batch_size(rows)
        .with_bounds(0, args.infer_rows.max(1))
        .build(checked)?;
    let mut zoned = vec![false; fields.len()];
    for batch in reader {
        let batch = batch?;
        for &i in &naive {
            let Some(col) = batch.column(i).as_any().downcast_ref::<StringArray>() else {
                continue;
            };
            if col.iter().flatten().any(has_offset)
                && let Some(z) = zoned.get_mut(i)
            {
                *z = true;
            }
        }
    }
    for (f, z) in fields.iter_mut().zip(zoned) {
        if let (true, DataType::Timestamp(unit, None)) = (z, f.data_type()) {
            let t = DataType::Timestamp(*unit, Some("+00:00".into()));
            *f = f.clone().with_data_type(t);
        }
    }
    Ok(())
}

/// Whether a timestamp's text ends with a zone: `Z` or an offset after the
/// time of day.
fn has_offset(v: &str) -> bool {
    let v = v.trim();
    // The time of day follows the date's 10 characters and a `T` or space.
    let Some(time) = v.get(11..) else {
        return false;
    };
    time.ends_with(['Z', 'z']) || time.contains(['+', '-'])
}

/// The narrowest `--dtypes` type that reads `value`.
fn fitting(value: &str) -> &'static str {
    if value.trim().parse::<i64>().is_ok() {
        "int64"
    } else if value.trim().parse::<f64>().is_ok() {
        "double"
    } else {
        "string"
    }
}

/// Repeated header names: an error naming both places, or renamed.
fn check_names(
    path: &Path,
    fields: &mut [Field],
    dedupe: bool,
    n: Numbering,
) -> Result<(), CliError> {
    let mut seen: Vec<String> = Vec::with_capacity(fields.len());
    for i in 0..fields.len() {
        let Some(name) = fields.get(i).map(|f| f.name().clone()) else {
            continue;
        };
        if let Some(first) = seen.iter().position(|s| *s == name) {
            if !dedupe {
                return Err(CliError::file(
                    path,
                    format!(
                        "line {}: the header names column '{name}' twice (columns {} and {}); \
                         rename one, or give --dedupe-header",
                        n.skipped + 1,
                        first + 1,
                        i + 1
                    ),
                ));
            }
            let mut k = 2;
            let mut renamed = format!("{name}_{k}");
            while seen.contains(&renamed) || fields.iter().any(|f| *f.name() == renamed) {
                k += 1;
                renamed = format!("{name}_{k}");
            }
            if let Some(f) = fields.get_mut(i) {
                *f = f.clone().with_name(renamed.clone());
            }
            seen.push(renamed);
        } else {
            seen.push(name);
        }
    }
    Ok(())
}

/// A conversion failure: row of the batch, column, value and why.
pub(crate) type Failure = (usize, usize, String, String);

/// The columns read as text, converted to their types.
fn convert(
    batch: &RecordBatch,
    then: &[Then],
    schema: &SchemaRef,
    timestamp_format: Option<&str>,
) -> Result<RecordBatch, Failure> {
    if then.iter().all(|t| matches!(t, Then::Keep)) {
        return Ok(batch.clone());
    }
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(then.len());
    for (col, (array, t)) in batch.columns().iter().zip(then).enumerate() {
        let converted: ArrayRef = match t {
            Then::Keep => array.clone(),
            Then::Binary => arrow_cast::cast(array, &DataType::Binary)
                .map_err(|e| (0, col, String::new(), e.to_string()))?,
            Then::Timestamp(unit, zone) => {
                let text = array
                    .as_any()
                    .downcast_ref::<StringArray>()
                    .ok_or_else(|| (0, col, String::new(), "is not text".to_string()))?;
                let format = timestamp_format.unwrap_or("%Y-%m-%dT%H:%M:%S%.f");
                let micros = parse_timestamps(text, format)
                    .map_err(|(row, value, why)| (row, col, value, why))?;
                let ts = TimestampMicrosecondArray::from(micros);
                let ts: ArrayRef = match zone {
                    Some(z) => Arc::new(ts.with_timezone(z.clone())),
                    None => Arc::new(ts),
                };
                arrow_cast::cast(&ts, &DataType::Timestamp(*unit, zone.clone()))
                    .map_err(|e| (0, col, String::new(), e.to_string()))?
            }
            Then::Naive(unit) => {
                let text = text_of(array, col)?;
                instants(text, *unit, None, col)?
            }
            Then::Named(unit, zone) => {
                let text = text_of(array, col)?;
                instants(text, *unit, Some(zone), col)?
            }
        };
        columns.push(converted);
    }
    RecordBatch::try_new(schema.clone(), columns).map_err(|e| (0, 0, String::new(), e.to_string()))
}

/// A column read as text.
fn text_of(array: &ArrayRef, col: usize) -> Result<&StringArray, Failure> {
    array
        .as_any()
        .downcast_ref::<StringArray>()
        .ok_or_else(|| (0, col, String::new(), "is not text".to_string()))
}

/// Timestamps of a column in `unit`: without a zone, each value's wall
/// time, and a value with an offset is an error (the instant would become
/// UTC wall time beside local ones); in a named zone, each value's instant,
/// and a value without an offset is an error.
fn instants(
    text: &StringArray,
    unit: TimeUnit,
    zone: Option<&Arc<str>>,
    col: usize,
) -> Result<ArrayRef, Failure> {
    let mut out = Vec::with_capacity(text.len());
    for (row, v) in text.iter().enumerate() {
        let Some(v) = v else {
            out.push(None);
            continue;
        };
        let fail = |why: String| (row, col, v.to_string(), why);
        match (zone, has_offset(v)) {
            (None, true) => {
                return Err(fail(
                    "carries a UTC offset, but the column's timestamps have no zone (its \
                     type was inferred from values without one, or given so); --dtypes \
                     COLUMN='timestamp(us, UTC)' keeps every value's instant"
                        .into(),
                ));
            }
            (Some(z), false) => {
                return Err(fail(format!(
                    "has no UTC offset: in a column of zone {z} each value needs one \
                     (pq has no time zone database to place a wall time)"
                )));
            }
            _ => {}
        }
        let t = arrow_cast::parse::string_to_datetime(&chrono::Utc, v)
            .map_err(|e| fail(format!("is not a timestamp: {e}")))?;
        let n = match unit {
            TimeUnit::Second => Some(t.timestamp()),
            TimeUnit::Millisecond => Some(t.timestamp_millis()),
            TimeUnit::Microsecond => Some(t.timestamp_micros()),
            TimeUnit::Nanosecond => t.timestamp_nanos_opt(),
        };
        let n = n.ok_or_else(|| fail("is out of the range of nanosecond timestamps".into()))?;
        out.push(Some(n));
    }
    let zone = zone.cloned();
    Ok(match unit {
        TimeUnit::Second => Arc::new(TimestampSecondArray::from(out).with_timezone_opt(zone)),
        TimeUnit::Millisecond => {
            Arc::new(TimestampMillisecondArray::from(out).with_timezone_opt(zone))
        }
        TimeUnit::Microsecond => {
            Arc::new(TimestampMicrosecondArray::from(out).with_timezone_opt(zone))
        }
        TimeUnit::Nanosecond => {
            Arc::new(TimestampNanosecondArray::from(out).with_timezone_opt(zone))
        }
    })
}

/// Text in `format` as microseconds since the epoch: with an offset in the
/// format (`%z`), the instant; without, the wall time (in a zoned column,
/// taken as UTC).
fn parse_timestamps(
    text: &StringArray,
    format: &str,
) -> Result<Vec<Option<i64>>, (usize, String, String)> {
    let with_offset = format.contains("%z") || format.contains("%:z") || format.contains("%#z");
    let mut out = Vec::with_capacity(text.len());
    for (row, v) in text.iter().enumerate() {
        let Some(v) = v else {
            out.push(None);
            continue;
        };
        let parsed = if with_offset {
            chrono::DateTime::parse_from_str(v, format).map(|t| t.timestamp_micros())
        } else {
            chrono::NaiveDateTime::parse_from_str(v, format).map(|t| t.and_utc().timestamp_micros())
        };
        match parsed {
            Ok(m) => out.push(Some(m)),
            Err(e) => {
                return Err((
                    row,
                    v.to_string(),
                    format!("does not match --timestamp-format '{format}': {e}"),
                ));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Record end, line and whether a quoted field is open after `text`,
    /// fed in two reads cut at every place.
    fn follow_all(text: &[u8], escape: Option<u8>) -> Vec<(u64, usize, bool)> {
        let dialect = Dialect {
            delimiter: b',',
            quote: b'"',
            escape,
        };
        (0..=text.len())
            .map(|cut| {
                let mut q = QuoteCheck::new(io::empty(), dialect, 0, Rc::default());
                let (a, b) = text.split_at(cut);
                q.follow(a);
                q.follow(b);
                (
                    q.record_end(),
                    q.line,
                    matches!(q.state, Quoting::Quoted | Quoting::Escaped),
                )
            })
            .collect()
    }

    /// Text, escape character, then the record end, line and open quote
    /// expected after it.
    type Case = (&'static [u8], Option<u8>, u64, usize, bool);

    #[test]
    fn record_ends_fall_outside_quotes_wherever_reads_end() {
        let cases: &[Case] = &[
            // A quoted line end is not a record's end.
            (b"a,\"x\ny\"\nb", None, 8, 3, false),
            // A quote inside an unquoted field is text: the line end after
            // it ends the record.
            (b"a,b\"c\nd,\"e", None, 6, 2, true),
            // Doubled quotes stay inside the field.
            (b"\"a\"\"\n\"\n", None, 7, 3, false),
            // A quote after a carriage return opens a field.
            (b"a\r\"b\nc\"\n", None, 8, 3, false),
            // With an escape character, an escaped quote stays inside.
            (b"\"a\\\"\nb\"\n", Some(b'\\'), 8, 3, false),
            // Nothing closed: no record end yet.
            (b"\"open\n", None, 0, 2, true),
        ];
        for &(text, escape, end, line, open) in cases {
            for (cut, got) in follow_all(text, escape).into_iter().enumerate() {
                assert_eq!(
                    got,
                    (end, line, open),
                    "{:?} cut at {cut}",
                    String::from_utf8_lossy(text)
                );
            }
        }
    }
}
