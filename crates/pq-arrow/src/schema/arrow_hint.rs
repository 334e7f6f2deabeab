//! The `ARROW:schema` key-value hint: the Arrow schema an Arrow writer
//! stored in the footer, base64 of an Arrow IPC `Schema` message.

use arrow_schema::Schema;
use base64::Engine;
use base64::prelude::BASE64_STANDARD;

use crate::error::{Location, Result, schema_err};

/// The footer key of the hint.
pub const ARROW_SCHEMA_META_KEY: &str = "ARROW:schema";

/// Decodes the hint: base64, then an IPC message with or without the
/// continuation marker and length prefix.
///
/// A hint that does not decode is an error, not silently dropped: the
/// hint is what the writer said the columns are (time zones, large or view
/// types, dictionaries, durations), and reading without it would hand back
/// other types than were written without a word. A user who wants the data
/// anyway asks for the Parquet schema alone with
/// [`ParquetReader::with_skip_arrow_metadata`](crate::ParquetReader::with_skip_arrow_metadata).
/// The error is one line (the IPC decoder's own messages span several).
pub fn decode_arrow_schema(encoded: &str) -> Result<Schema> {
    let bytes = BASE64_STANDARD
        .decode(encoded.trim())
        .map_err(|e| hint_err("not base64", e))?;
    let slice = match bytes.get(..4) {
        Some([255, 255, 255, 255]) if bytes.len() > 8 => bytes.get(8..).unwrap_or_default(),
        _ => bytes.as_slice(),
    };
    let message =
        arrow_ipc::root_as_message(slice).map_err(|e| hint_err("not an IPC message", e))?;
    let schema = message
        .header_as_schema()
        .ok_or_else(|| hint_err("the IPC message is not a schema", ""))?;
    super::ipc_schema::schema_from_ipc(schema).map_err(|e| hint_err("invalid schema", e))
}

/// The error of a hint that does not decode: `what`, then the first line
/// of the cause.
fn hint_err(what: &str, cause: impl std::fmt::Display) -> crate::Error {
    let cause = cause.to_string();
    let first = cause.lines().next().unwrap_or_default().trim();
    let cause = if first.is_empty() {
        String::new()
    } else {
        format!(": {first}")
    };
    let message = format!(
        "invalid {ARROW_SCHEMA_META_KEY} metadata, {what}{cause} \
         (ParquetReader::with_skip_arrow_metadata reads the Parquet schema alone)"
    );
    schema_err(&Location::default(), message)
}
