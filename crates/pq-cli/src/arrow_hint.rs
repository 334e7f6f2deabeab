//! The `ARROW:schema` key-value entry that Arrow writers store: base64 of an
//! Arrow IPC schema message. `pq meta` shows the schema it holds, not the
//! blob.

use arrow_schema::Schema;
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};

/// The key Arrow writers store their schema under.
pub const KEY: &str = "ARROW:schema";

/// The Arrow schema of an `ARROW:schema` value, or why it is not one.
pub fn decode(value: &str) -> Result<Schema, String> {
    let bytes = STANDARD
        .decode(value.trim())
        .or_else(|_| STANDARD_NO_PAD.decode(value.trim()))
        .map_err(|e| format!("not base64: {e}"))?;
    arrow_ipc::convert::try_schema_from_ipc_buffer(&bytes)
        .map_err(|e| format!("not an Arrow IPC schema: {e}"))
}

/// One line per field: `name: type`, with `not null` for required fields.
pub fn field_lines(schema: &Schema) -> impl Iterator<Item = String> + '_ {
    schema.fields().iter().map(|f| {
        let null = if f.is_nullable() { "" } else { " not null" };
        format!("{}: {}{null}", f.name(), f.data_type())
    })
}

/// The schema as one text: its field lines joined by `; `.
pub fn text(schema: &Schema) -> String {
    field_lines(schema).collect::<Vec<_>>().join("; ")
}
