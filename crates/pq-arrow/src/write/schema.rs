//! From an Arrow schema to a Parquet schema, as arrow-rs's
//! `ArrowSchemaConverter` maps it (without type coercion), and the
//! `ARROW:schema` footer hint.
//!
//! The schema elements written are built into pq-format's
//! [`SchemaDescriptor`], the tree the reader builds from a footer: what is
//! written passes the checks of what is read, and the leaves' paths, types
//! and levels come from the same code.

use arrow_ipc::writer::{DictionaryTracker, IpcDataGenerator, IpcWriteOptions};
use arrow_schema::{DataType, Field, IntervalUnit, Schema, TimeUnit};
use base64::Engine;
use base64::prelude::BASE64_STANDARD;
use pq_format::{
    ColumnDescriptor, ConvertedType, DateType, DecimalType, FieldRepetitionType, Float16Type,
    IntType, Limits, ListType, LogicalType, MapType, MicroSeconds, MilliSeconds, NanoSeconds,
    NullType, SchemaDescriptor, SchemaElement, StringType, TimeType, TimestampType, Type,
};

use crate::error::{Location, Result, schema_err, unsupported};
use crate::schema::{FIELD_ID_META_KEY, from_schema_error};

/// How the leaf's values compare, for statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SortOrder {
    /// Signed integers, booleans.
    Signed,
    /// Unsigned integers.
    Unsigned,
    /// IEEE 754 floats (NaN skipped, zero signs normalised).
    Float,
    /// Half floats in FIXED_LEN_BYTE_ARRAY(2), little-endian.
    Float16,
    /// Big-endian two's complement (decimals in byte arrays).
    SignedBytes,
    /// Unsigned lexicographic bytes.
    Bytes,
    /// No defined order (INTERVAL): no min/max.
    Undefined,
}

/// One leaf column of the Parquet schema: its descriptor in the schema
/// tree (path, physical type, width, levels; read through), and how its
/// values compare.
#[derive(Debug, Clone)]
pub(crate) struct Leaf {
    pub column: ColumnDescriptor,
    /// The path's names, owned, as option lookups take them.
    pub path: Vec<String>,
    pub sort: SortOrder,
}

impl std::ops::Deref for Leaf {
    type Target = ColumnDescriptor;

    fn deref(&self) -> &ColumnDescriptor {
        &self.column
    }
}

/// The Parquet schema of an Arrow schema.
#[derive(Debug, Clone)]
pub(crate) struct ParquetSchema {
    /// Depth-first schema elements, root first.
    pub elements: Vec<SchemaElement>,
    pub leaves: Vec<Leaf>,
}

/// The elements and each leaf's sort order, in leaf order, while the Arrow
/// schema is walked.
struct Building {
    elements: Vec<SchemaElement>,
    sorts: Vec<SortOrder>,
}

/// The name of the root, as arrow-rs writes it.
const ROOT: &str = "arrow_schema";

/// Bytes of a FIXED_LEN_BYTE_ARRAY holding decimals of `precision` digits.
pub(crate) fn decimal_length_from_precision(precision: u8) -> usize {
    (((10.0_f64.powi(precision as i32) + 1.0).log2() + 1.0) / 8.0).ceil() as usize
}

/// Converts an Arrow schema: its elements, then their tree as a reader
/// builds it (with the reader's default limits, so that what is written
/// can be read back).
pub(crate) fn to_parquet(schema: &Schema) -> Result<ParquetSchema> {
    let mut out = Building {
        elements: vec![SchemaElement {
            name: ROOT.to_string(),
            num_children: Some(schema.fields().len() as i32),
            ..Default::default()
        }],
        sorts: Vec::new(),
    };
    let mut path = Vec::new();
    for f in schema.fields() {
        convert_field(f, f.name(), &mut path, &mut out)?;
    }
    let tree = SchemaDescriptor::new(&out.elements, &Limits::default()).map_err(|e| match e {
        pq_format::FormatError::Schema(e) => from_schema_error(e),
        e => schema_err(&Location::default(), e.to_string()),
    })?;
    let leaves = tree
        .columns()
        .iter()
        .zip(out.sorts)
        .map(|(column, sort)| Leaf {
            path: column.path.to_vec(),
            column: column.clone(),
            sort,
        })
        .collect();
    Ok(ParquetSchema {
        elements: out.elements,
        leaves,
    })
}

fn converted_of(logical: &Option<LogicalType>) -> Option<ConvertedType> {
    logical.as_ref().and_then(LogicalType::to_converted_type)
}

fn int(bits: i8, signed: bool) -> Option<LogicalType> {
    Some(LogicalType::Integer(IntType {
        bit_width: bits,
        is_signed: signed,
    }))
}

fn unit(u: TimeUnit) -> pq_format::TimeUnit {
    match u {
        TimeUnit::Millisecond => pq_format::TimeUnit::Millis(MilliSeconds {}),
        TimeUnit::Microsecond => pq_format::TimeUnit::Micros(MicroSeconds {}),
        _ => pq_format::TimeUnit::Nanos(NanoSeconds {}),
    }
}

fn convert_field(
    field: &Field,
    name: &str,
    path: &mut Vec<String>,
    out: &mut Building,
) -> Result<()> {
    let repetition = if field.is_nullable() {
        FieldRepetitionType::OPTIONAL
    } else {
        FieldRepetitionType::REQUIRED
    };
    let field_id = field
        .metadata()
        .get(FIELD_ID_META_KEY)
        .and_then(|v| v.parse().ok());
    path.push(name.to_string());
    let at = || Location::column(path.join("."));
    let group = |n: usize, logical: Option<LogicalType>| SchemaElement {
        name: name.to_string(),
        repetition_type: Some(repetition),
        num_children: Some(n as i32),
        converted_type: converted_of(&logical),
        logical_type: logical,
        field_id,
        ..Default::default()
    };
    match field.data_type() {
        DataType::Dictionary(_, value) => {
            let inner = field.clone().with_data_type(value.as_ref().clone());
            path.pop();
            return convert_field(&inner, name, path, out);
        }
        DataType::Struct(fields) => {
            if fields.is_empty() {
                return Err(schema_err(
                    &at(),
                    "Parquet does not support writing empty structs",
                ));
            }
            out.elements.push(group(fields.len(), None));
            for f in fields {
                convert_field(f, f.name(), path, out)?;
            }
        }
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::ListView(f)
        | DataType::LargeListView(f) => {
            if matches!(
                field.data_type(),
                DataType::ListView(_) | DataType::LargeListView(_)
            ) {
                return Err(unsupported(&at(), "writing list views"));
            }
            out.elements
                .push(group(1, Some(LogicalType::List(ListType {}))));
            out.elements.push(SchemaElement {
                name: "list".to_string(),
                repetition_type: Some(FieldRepetitionType::REPEATED),
                num_children: Some(1),
                ..Default::default()
            });
            path.push("list".to_string());
            convert_field(f, f.name(), path, out)?;
            path.pop();
        }
        DataType::Map(entries, _) => {
            let DataType::Struct(kv) = entries.data_type() else {
                return Err(schema_err(&at(), "a map's entries must be a struct"));
            };
            if kv.len() != 2 {
                return Err(schema_err(&at(), "a map's entries must have two fields"));
            }
            out.elements
                .push(group(1, Some(LogicalType::Map(MapType {}))));
            out.elements.push(SchemaElement {
                name: entries.name().to_string(),
                repetition_type: Some(FieldRepetitionType::REPEATED),
                num_children: Some(2),
                ..Default::default()
            });
            path.push(entries.name().to_string());
            for f in kv {
                convert_field(f, f.name(), path, out)?;
            }
            path.pop();
        }
        dt => {
            let (physical, length, logical, sort) = primitive(dt)
                .ok_or_else(|| unsupported(&at(), format!("writing Arrow type {dt} to Parquet")))?;
            let (precision, scale) = match dt {
                DataType::Decimal32(p, s)
                | DataType::Decimal64(p, s)
                | DataType::Decimal128(p, s)
                | DataType::Decimal256(p, s) => (Some(*p as i32), Some(*s as i32)),
                _ => (None, None),
            };
            let converted = if matches!(dt, DataType::Interval(_)) {
                Some(ConvertedType::INTERVAL)
            } else {
                converted_of(&logical)
            };
            out.elements.push(SchemaElement {
                type_: Some(physical),
                type_length: (physical == Type::FIXED_LEN_BYTE_ARRAY).then_some(length as i32),
                repetition_type: Some(repetition),
                name: name.to_string(),
                converted_type: converted,
                scale,
                precision,
                field_id,
                logical_type: logical,
                ..Default::default()
            });
            out.sorts.push(sort);
        }
    }
    path.pop();
    Ok(())
}

/// Physical type, FIXED_LEN_BYTE_ARRAY width, logical type and sort order
/// of a leaf Arrow type; `None` when it cannot be written.
pub(crate) fn primitive(dt: &DataType) -> Option<(Type, usize, Option<LogicalType>, SortOrder)> {
    use SortOrder::*;
    let ts = |u: &TimeUnit, tz: bool| {
        Some(LogicalType::Timestamp(TimestampType {
            is_adjusted_to_utc: tz,
            unit: unit(*u),
        }))
    };
    Some(match dt {
        DataType::Null => (
            Type::INT32,
            0,
            Some(LogicalType::Unknown(NullType {})),
            Signed,
        ),
        DataType::Boolean => (Type::BOOLEAN, 0, None, Signed),
        DataType::Int8 => (Type::INT32, 0, int(8, true), Signed),
        DataType::Int16 => (Type::INT32, 0, int(16, true), Signed),
        DataType::Int32 => (Type::INT32, 0, None, Signed),
        DataType::Int64 => (Type::INT64, 0, None, Signed),
        DataType::UInt8 => (Type::INT32, 0, int(8, false), Unsigned),
        DataType::UInt16 => (Type::INT32, 0, int(16, false), Unsigned),
        DataType::UInt32 => (Type::INT32, 0, int(32, false), Unsigned),
        DataType::UInt64 => (Type::INT64, 0, int(64, false), Unsigned),
        DataType::Float16 => (
            Type::FIXED_LEN_BYTE_ARRAY,
            2,
            Some(LogicalType::Float16(Float16Type {})),
            Float16,
        ),
        DataType::Float32 => (Type::FLOAT, 0, None, Float),
        DataType::Float64 => (Type::DOUBLE, 0, None, Float),
        DataType::Timestamp(TimeUnit::Second, _) => (Type::INT64, 0, None, Signed),
        DataType::Timestamp(u, tz) => (
            Type::INT64,
            0,
            ts(u, matches!(tz, Some(z) if !z.is_empty())),
            Signed,
        ),
        DataType::Date32 => (Type::INT32, 0, Some(LogicalType::Date(DateType {})), Signed),
        DataType::Date64 => (Type::INT64, 0, None, Signed),
        DataType::Time32(TimeUnit::Second) => (Type::INT32, 0, None, Signed),
        DataType::Time32(u) => (
            Type::INT32,
            0,
            Some(LogicalType::Time(TimeType {
                is_adjusted_to_utc: false,
                unit: unit(*u),
            })),
            Signed,
        ),
        DataType::Time64(u) => (
            Type::INT64,
            0,
            Some(LogicalType::Time(TimeType {
                is_adjusted_to_utc: false,
                unit: unit(*u),
            })),
            Signed,
        ),
        DataType::Duration(_) => (Type::INT64, 0, None, Signed),
        DataType::Interval(IntervalUnit::YearMonth | IntervalUnit::DayTime) => {
            (Type::FIXED_LEN_BYTE_ARRAY, 12, None, Undefined)
        }
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
            (Type::BYTE_ARRAY, 0, None, Bytes)
        }
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => (
            Type::BYTE_ARRAY,
            0,
            Some(LogicalType::String(StringType {})),
            Bytes,
        ),
        DataType::FixedSizeBinary(n) => (Type::FIXED_LEN_BYTE_ARRAY, *n as usize, None, Bytes),
        DataType::Decimal32(p, s)
        | DataType::Decimal64(p, s)
        | DataType::Decimal128(p, s)
        | DataType::Decimal256(p, s) => {
            let logical = Some(LogicalType::Decimal(DecimalType {
                scale: *s as i32,
                precision: *p as i32,
            }));
            if *p <= 9 {
                (Type::INT32, 0, logical, Signed)
            } else if *p <= 18 {
                (Type::INT64, 0, logical, Signed)
            } else {
                (
                    Type::FIXED_LEN_BYTE_ARRAY,
                    decimal_length_from_precision(*p),
                    logical,
                    SignedBytes,
                )
            }
        }
        _ => return None,
    })
}

/// The `ARROW:schema` value: base64 of the IPC schema message with the
/// legacy continuation marker and length prefix, as arrow-rs and pyarrow
/// write it.
pub(crate) fn encode_arrow_schema(schema: &Schema) -> String {
    let options = IpcWriteOptions::default();
    let mut tracker = DictionaryTracker::new(true);
    let generator = IpcDataGenerator::default();
    let encoded = generator.schema_to_bytes_with_dictionary_tracker(schema, &mut tracker, &options);
    let msg = encoded.ipc_message;
    let mut out = Vec::with_capacity(msg.len() + 8);
    out.extend_from_slice(&[255, 255, 255, 255]);
    out.extend_from_slice(&(msg.len() as u32).to_le_bytes());
    out.extend_from_slice(&msg);
    BASE64_STANDARD.encode(&out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::sync::Arc;

    use arrow_schema::{DataType, Field, Fields, Schema};

    use super::*;

    #[test]
    fn leaves_are_the_trees_columns_with_their_sort_orders() {
        let item = Field::new(
            "item",
            DataType::Struct(Fields::from(vec![
                Field::new("a", DataType::UInt32, false),
                Field::new("b", DataType::FixedSizeBinary(4), true),
            ])),
            true,
        );
        let schema = Schema::new(vec![
            Field::new("l", DataType::List(Arc::new(item)), true),
            Field::new("s", DataType::Utf8, false),
        ]);
        let p = to_parquet(&schema).unwrap();
        let got: Vec<_> = p
            .leaves
            .iter()
            .map(|l| {
                (
                    l.dotted(),
                    l.physical_type,
                    l.fixed_width(),
                    l.max_def_level,
                    l.max_rep_level,
                    l.sort,
                    l.path.join("."),
                )
            })
            .collect();
        let leaf = |p: &str, t, w, d, r, s| (p.to_string(), t, w, d, r, s, p.to_string());
        assert_eq!(
            got,
            [
                leaf("l.list.item.a", Type::INT32, 0, 3, 1, SortOrder::Unsigned),
                leaf(
                    "l.list.item.b",
                    Type::FIXED_LEN_BYTE_ARRAY,
                    4,
                    4,
                    1,
                    SortOrder::Bytes
                ),
                leaf("s", Type::BYTE_ARRAY, 0, 0, 0, SortOrder::Bytes),
            ]
        );
    }

    #[test]
    fn a_schema_the_reader_would_refuse_is_not_written() {
        // 129 structs deep: one past the depth a reader accepts by default.
        let mut field = Field::new("x", DataType::Int32, true);
        for i in 0..129 {
            field = Field::new(
                format!("s{i}"),
                DataType::Struct(Fields::from(vec![field])),
                true,
            );
        }
        let err = to_parquet(&Schema::new(vec![field]))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("is nested 129 deep, deeper than the limit of 128"),
            "{err}"
        );
    }
}
