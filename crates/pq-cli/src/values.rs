//! Statistics values decoded to readable text, by physical and logical type.

use pq_format::{ColumnDescriptor, ConvertedType, LogicalType, Type};

/// A statistics bound (PLAIN-encoded bytes) as text: numbers as numbers,
/// strings quoted, other binary as hex.
pub fn format_stat(column: &ColumnDescriptor, bytes: &[u8]) -> String {
    let unsigned = matches!(&column.logical_type, Some(LogicalType::Integer(i)) if !i.is_signed)
        || matches!(
            column.converted_type,
            Some(
                ConvertedType::UINT_8
                    | ConvertedType::UINT_16
                    | ConvertedType::UINT_32
                    | ConvertedType::UINT_64
            )
        );
    match column.physical_type {
        Type::BOOLEAN => match bytes {
            [0] => "false".into(),
            [1] => "true".into(),
            _ => hex(bytes),
        },
        Type::INT32 => match <[u8; 4]>::try_from(bytes) {
            Ok(b) if unsigned => u32::from_le_bytes(b).to_string(),
            Ok(b) => i32::from_le_bytes(b).to_string(),
            Err(_) => hex(bytes),
        },
        Type::INT64 => match <[u8; 8]>::try_from(bytes) {
            Ok(b) if unsigned => u64::from_le_bytes(b).to_string(),
            Ok(b) => i64::from_le_bytes(b).to_string(),
            Err(_) => hex(bytes),
        },
        Type::FLOAT => match <[u8; 4]>::try_from(bytes) {
            Ok(b) => f32::from_le_bytes(b).to_string(),
            Err(_) => hex(bytes),
        },
        Type::DOUBLE => match <[u8; 8]>::try_from(bytes) {
            Ok(b) => f64::from_le_bytes(b).to_string(),
            Err(_) => hex(bytes),
        },
        Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY if is_text(column) => {
            format!("{:?}", String::from_utf8_lossy(bytes))
        }
        _ => hex(bytes),
    }
}

fn is_text(column: &ColumnDescriptor) -> bool {
    matches!(
        column.logical_type,
        Some(LogicalType::String(_) | LogicalType::Enum(_) | LogicalType::Json(_))
    ) || matches!(
        column.converted_type,
        Some(ConvertedType::UTF8 | ConvertedType::ENUM | ConvertedType::JSON)
    )
}

/// Bytes as `0x` and lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(2 + bytes.len() * 2);
    s.push_str("0x");
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// An open-enum value's name, or its number when this version does not know it.
pub fn name<T: std::fmt::Debug>(value: T) -> String {
    format!("{value:?}")
}
