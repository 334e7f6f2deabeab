//! arrow-csv's errors in pq's words: the line of the file (the header is
//! line 1), the column by name, and what is wrong, on one line.
//!
//! arrow-csv reports errors as text only, in two numberings (the `csv`
//! crate's lines of the file, and arrow's own count of data rows), so the
//! text is taken apart here; a message of a shape not known here is kept,
//! without arrow's "Csv error:" prefix.

use arrow_schema::ArrowError;

/// How the lines of the file relate to the records the reader counts.
#[derive(Debug, Clone, Copy)]
pub struct Numbering {
    /// Whether the first record read is a header.
    pub header: bool,
    /// Lines skipped before the reader's first one (`--skip-rows`).
    pub skipped: usize,
}

impl Default for Numbering {
    fn default() -> Self {
        Numbering {
            header: true,
            skipped: 0,
        }
    }
}

/// A value that does not parse as its column's type: the column's index
/// and the value, from arrow-csv's message.
pub fn bad_value(e: &ArrowError) -> Option<(usize, String)> {
    let ArrowError::ParseError(text) = e else {
        return None;
    };
    let rest = text.strip_prefix("Error while parsing value '")?;
    let value = rest.split("' as type '").next()?.to_string();
    Some((number_after(rest, "for column ")?, value))
}

/// What is wrong with a CSV input, for [`crate::error::CliError::file`] to
/// prefix with the file's name. `columns` are the header's names.
pub fn message(e: &ArrowError, columns: &[String], n: Numbering) -> String {
    // Lines the reader does not see: skipped ones, and for arrow's own
    // count of data records, the header.
    let skipped = n.skipped;
    let data_line = |line: usize| line + skipped + usize::from(n.header);
    let text = match e {
        ArrowError::CsvError(m) | ArrowError::ParseError(m) => m.as_str(),
        other => return other.to_string(),
    };
    let column = |index: Option<usize>| {
        index
            .and_then(|i| columns.get(i))
            .map_or_else(|| "?".to_string(), |n| format!("'{n}'"))
    };
    // The `csv` crate's positions count the header line: they are lines of
    // the file as they are.
    if text.contains("unequal lengths")
        && let (Some(expected), Some(found), Some(line)) = (
            number_after(text, "Expected "),
            number_after(text, "found "),
            number_after(text, "at line "),
        )
    {
        return fields(line + skipped, &found.to_string(), expected, n.header);
    }
    // arrow's own record reader counts lines from 1 at the header, too.
    if text.starts_with("incorrect number of fields")
        && let (Some(line), Some(expected)) = (
            number_after(text, "for line "),
            number_after(text, "expected "),
        )
    {
        let found = text.split(" got ").nth(1).unwrap_or("?");
        return fields(line + skipped, found, expected, n.header);
    }
    if text.contains("UTF-8")
        && let Some(line) = number_after(text, "at line ").or(number_after(text, "for line "))
    {
        return format!("line {} is not valid UTF-8 text", line + skipped);
    }
    // arrow's value parsers count data rows from 1: the file's line is one
    // more, for the header.
    if let Some(rest) = text.strip_prefix("Error while parsing value '") {
        let value = rest.split("' as type '").next().unwrap_or("");
        let ty = between(rest, "as type '", "'").unwrap_or("");
        let col = number_after(rest, "for column ");
        if let Some(line) = number_after(rest, "at line ") {
            return format!(
                "line {}, column {}: '{value}' is not a valid {}",
                data_line(line),
                column(col),
                type_name(ty)
            );
        }
    }
    if let Some(rest) = text.strip_prefix("Error parsing column ") {
        let col = number_after(text, "column ");
        if let (Some(line), Some((_, why))) =
            (number_after(rest, "at line "), rest.split_once(": "))
        {
            let why = why.strip_prefix("Parser error: ").unwrap_or(why);
            return format!("line {}, column {}: {why}", data_line(line), column(col));
        }
    }
    format!("CSV: {text}")
}

fn fields(line: usize, found: &str, expected: usize, header: bool) -> String {
    let first = if header {
        "the header"
    } else {
        "the first line"
    };
    format!("line {line} has {found} fields, {first} has {expected}")
}

/// The number that follows `key` in `text`.
fn number_after(text: &str, key: &str) -> Option<usize> {
    let rest = &text[text.find(key)? + key.len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The text between `start` and the next `end`.
fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let rest = &text[text.find(start)? + start.len()..];
    rest.split(end).next()
}

/// An Arrow type's name in the words of `--dtypes`.
fn type_name(arrow: &str) -> String {
    match arrow {
        "Boolean" => "boolean".into(),
        "Int8" | "Int16" | "Int32" | "Int64" | "UInt8" | "UInt16" | "UInt32" | "UInt64" => {
            arrow.to_lowercase()
        }
        "Float32" => "float".into(),
        "Float64" => "double".into(),
        "Date32" => "date".into(),
        t if t.starts_with("Timestamp") => "timestamp".into(),
        t => t.to_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        vec!["id".into(), "name".into(), "x".into()]
    }

    #[test]
    fn known_shapes_in_pq_words() {
        let e = ArrowError::CsvError(
            "Encountered unequal lengths between records on CSV file. Expected 3 records, \
             found 2 records at line 3"
                .into(),
        );
        assert_eq!(
            message(&e, &names(), Numbering::default()),
            "line 3 has 2 fields, the header has 3"
        );
        let e = ArrowError::ParseError(
            "Error while parsing value 'zz' as type 'Int64' for column 0 at line 1. \
             Row data: '[zz,a]'"
                .into(),
        );
        assert_eq!(
            message(&e, &names(), Numbering::default()),
            "line 2, column 'id': 'zz' is not a valid int64"
        );
        let skipping = Numbering {
            header: false,
            skipped: 4,
        };
        assert_eq!(
            message(&e, &names(), skipping),
            "line 5, column 'id': 'zz' is not a valid int64"
        );
        assert_eq!(bad_value(&e), Some((0, "zz".to_string())));
        let e = ArrowError::CsvError("something new".into());
        assert_eq!(
            message(&e, &names(), Numbering::default()),
            "CSV: something new"
        );
    }
}
