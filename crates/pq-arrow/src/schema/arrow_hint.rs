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
pub fn decode_arrow_schema(encoded: &str) -> Result<Schema> {
    let at = Location::default();
    let bytes = BASE64_STANDARD.decode(encoded.trim()).map_err(|e| {
        schema_err(
            &at,
            format!("unable to decode the base64 schema stored in {ARROW_SCHEMA_META_KEY}: {e}"),
        )
    })?;
    let slice = match bytes.get(..4) {
        Some([255, 255, 255, 255]) if bytes.len() > 8 => bytes.get(8..).unwrap_or_default(),
        _ => bytes.as_slice(),
    };
    let message = arrow_ipc::root_as_message(slice).map_err(|e| {
        schema_err(
            &at,
            format!("unable to read the IPC message stored in {ARROW_SCHEMA_META_KEY}: {e}"),
        )
    })?;
    let schema = message.header_as_schema().ok_or_else(|| {
        schema_err(
            &at,
            format!("the message stored in {ARROW_SCHEMA_META_KEY} is not an Arrow schema"),
        )
    })?;
    arrow_ipc::convert::try_fb_to_schema(schema).map_err(|e| {
        schema_err(
            &at,
            format!("invalid schema in {ARROW_SCHEMA_META_KEY}: {e}"),
        )
    })
}
