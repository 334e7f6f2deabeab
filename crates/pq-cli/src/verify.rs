//! `pq verify`: read a file with pq and with the arrow-rs `parquet` reader
//! and compare every value.

use std::io::Write;
use std::path::Path;

use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchReader};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::ArrowError;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::error::CliError;
use crate::input;

/// Batches of one reader, consumed row by row across batch boundaries.
struct Cursor<I> {
    batches: I,
    current: Option<RecordBatch>,
    offset: usize,
    /// Rows consumed before `current`.
    row: usize,
}

impl<I, E> Cursor<I>
where
    I: Iterator<Item = Result<RecordBatch, E>>,
{
    fn new(batches: I) -> Self {
        Cursor {
            batches,
            current: None,
            offset: 0,
            row: 0,
        }
    }

    /// The unread rows of the current batch, fetching the next batch when
    /// this one is used up; `None` at the end.
    fn rest(&mut self) -> Result<Option<RecordBatch>, E> {
        loop {
            if let Some(b) = &self.current
                && self.offset < b.num_rows()
            {
                return Ok(Some(b.slice(self.offset, b.num_rows() - self.offset)));
            }
            if let Some(b) = self.current.take() {
                self.row += b.num_rows();
            }
            self.offset = 0;
            match self.batches.next() {
                None => return Ok(None),
                Some(b) => self.current = Some(b?),
            }
        }
    }

    fn advance(&mut self, n: usize) {
        self.offset += n;
    }

    /// The row number of the next unread row.
    fn position(&self) -> usize {
        self.row + self.offset
    }
}

fn show(array: &ArrayRef, row: usize) -> String {
    let options = FormatOptions::default().with_null("null");
    match ArrayFormatter::try_new(array.as_ref(), &options) {
        Ok(f) => f.value(row).to_string(),
        Err(e) => format!("<{e}>"),
    }
}

/// Compares the two readers' output; prints "identical" or the first
/// difference (an error, so that the exit status is 1).
pub fn run(path: &Path, out: &mut impl Write) -> Result<(), CliError> {
    // One input, read once: standard input cannot be read twice.
    let input = input::open_parquet(path)?;
    let second = input.reopen(path)?;
    let ours = crate::read::open_input(path, input, None)?
        .build()
        .map_err(|e| CliError::file(path, format!("pq reader: {e}")))?;
    let theirs = match second {
        input::Input::File { file, .. } => {
            ParquetRecordBatchReaderBuilder::try_new(file).and_then(|b| b.build())
        }
        input::Input::Memory(bytes) => {
            ParquetRecordBatchReaderBuilder::try_new(bytes.into_inner()).and_then(|b| b.build())
        }
        input::Input::Remote(_) => {
            return Err(CliError::file(
                path,
                "verify reads local files (download the object first)",
            ));
        }
    }
    .map_err(|e| CliError::file(path, format!("arrow-rs reader: {e}")))?;

    let schema = ours.schema();
    let their_schema = theirs.schema();
    if schema.fields().len() != their_schema.fields().len() {
        return Err(CliError::file(
            path,
            format!(
                "differ: pq reads {} columns, arrow-rs {}",
                schema.fields().len(),
                their_schema.fields().len()
            ),
        ));
    }
    for (a, b) in schema.fields().iter().zip(their_schema.fields()) {
        if a.name() != b.name() || a.data_type() != b.data_type() {
            return Err(CliError::file(
                path,
                format!(
                    "differ: column {}: pq reads {} {}, arrow-rs {} {}",
                    a.name(),
                    a.name(),
                    a.data_type(),
                    b.name(),
                    b.data_type()
                ),
            ));
        }
    }

    // pq's own error, without the `ArrowError` around it.
    let mut left = Cursor::new(ours.map(|b| b.map_err(pq_arrow::Error::from)));
    let mut right = Cursor::new(theirs);
    loop {
        let l = left
            .rest()
            .map_err(|e| CliError::file(path, format!("pq reader: {e}")))?;
        let r = right
            .rest()
            .map_err(|e: ArrowError| CliError::file(path, format!("arrow-rs reader: {e}")))?;
        match (l, r) {
            (None, None) => break,
            (Some(_), None) | (None, Some(_)) => {
                let (ours_rows, theirs_rows) = (count_rest(&mut left), count_rest(&mut right));
                return Err(CliError::file(
                    path,
                    format!("differ: pq reads {ours_rows} rows, arrow-rs {theirs_rows}",),
                ));
            }
            (Some(l), Some(r)) => {
                let n = l.num_rows().min(r.num_rows());
                let base = left.position();
                for (c, field) in schema.fields().iter().enumerate() {
                    let a = l.column(c).slice(0, n);
                    let b = r.column(c).slice(0, n);
                    if a.to_data() == b.to_data() {
                        continue;
                    }
                    let row = (0..n)
                        .find(|&i| a.slice(i, 1).to_data() != b.slice(i, 1).to_data())
                        .unwrap_or(0);
                    return Err(CliError::file(
                        path,
                        format!(
                            "differ: column {}, row {}: pq {}, arrow-rs {}",
                            field.name(),
                            base + row,
                            show(&a, row),
                            show(&b, row)
                        ),
                    ));
                }
                left.advance(n);
                right.advance(n);
            }
        }
    }
    writeln!(
        out,
        "identical: {} rows, {} columns",
        left.position(),
        schema.fields().len()
    )?;
    Ok(())
}

/// The number of rows a reader gives in all, reading the rest of it
/// (errors end the count).
fn count_rest<I, E>(cursor: &mut Cursor<I>) -> usize
where
    I: Iterator<Item = Result<RecordBatch, E>>,
{
    while let Ok(Some(b)) = cursor.rest() {
        cursor.advance(b.num_rows());
    }
    cursor.position()
}
