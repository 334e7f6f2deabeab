//! An Arrow IPC schema message (the flatbuffer inside `ARROW:schema`) to an
//! Arrow [`Schema`], where every missing table, unknown enum value and
//! wrong child count is an error rather than a panic.
//!
//! arrow-ipc's own `fb_to_schema` (arrow 59, the version the workspace
//! follows) unwraps and panics on such input, and the hint comes from the
//! file: a corrupt footer must end in one error line. The flatbuffer
//! verifier (`root_as_message`) has already checked that every offset is in
//! bounds; this walk checks what the verifier cannot: that the tables a
//! type needs are there and its values are ones Arrow knows.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_ipc as fb;
use arrow_schema::{
    DataType, Field, Fields, IntervalUnit, Schema, TimeUnit, UnionFields, UnionMode,
};

/// Nesting deeper than this is refused: a hint is a few levels deep, and
/// the walk recurses once per level.
const MAX_DEPTH: usize = 64;

type Result<T> = std::result::Result<T, String>;

/// The schema in an IPC schema message.
pub(crate) fn schema_from_ipc(schema: fb::Schema<'_>) -> Result<Schema> {
    if schema.endianness() == fb::Endianness::Big {
        return Err("big-endian schemas are not supported".into());
    }
    let fields = match schema.fields() {
        Some(fields) => fields
            .iter()
            .map(|f| field(f, 0))
            .collect::<Result<Vec<_>>>()?,
        None => Vec::new(),
    };
    Ok(Schema::new_with_metadata(
        fields,
        metadata(schema.custom_metadata().into_iter().flatten()),
    ))
}

fn metadata<'a>(kvs: impl IntoIterator<Item = fb::KeyValue<'a>>) -> HashMap<String, String> {
    kvs.into_iter()
        .filter_map(|kv| Some((kv.key()?.to_owned(), kv.value()?.to_owned())))
        .collect()
}

fn field(f: fb::Field<'_>, depth: usize) -> Result<Field> {
    if depth > MAX_DEPTH {
        return Err(format!("fields nested deeper than {MAX_DEPTH} levels"));
    }
    let name = f.name().unwrap_or_default();
    let mut data_type = data_type(f, depth).map_err(|e| format!("field '{name}': {e}"))?;
    if let Some(dict) = f.dictionary() {
        let int = dict
            .indexType()
            .ok_or_else(|| format!("field '{name}': a dictionary without an index type"))?;
        let index = int_type(int.bitWidth(), int.is_signed())
            .map_err(|e| format!("field '{name}': dictionary index: {e}"))?;
        data_type = DataType::Dictionary(Box::new(index), Box::new(data_type));
    }
    Ok(Field::new(name, data_type, f.nullable())
        .with_metadata(metadata(f.custom_metadata().into_iter().flatten())))
}

fn int_type(bits: i32, signed: bool) -> Result<DataType> {
    Ok(match (bits, signed) {
        (8, true) => DataType::Int8,
        (8, false) => DataType::UInt8,
        (16, true) => DataType::Int16,
        (16, false) => DataType::UInt16,
        (32, true) => DataType::Int32,
        (32, false) => DataType::UInt32,
        (64, true) => DataType::Int64,
        (64, false) => DataType::UInt64,
        (b, s) => return Err(format!("an integer of {b} bits, signed {s}")),
    })
}

fn time_unit(unit: fb::TimeUnit) -> Result<TimeUnit> {
    Ok(match unit {
        fb::TimeUnit::SECOND => TimeUnit::Second,
        fb::TimeUnit::MILLISECOND => TimeUnit::Millisecond,
        fb::TimeUnit::MICROSECOND => TimeUnit::Microsecond,
        fb::TimeUnit::NANOSECOND => TimeUnit::Nanosecond,
        other => return Err(format!("unknown time unit {}", other.0)),
    })
}

fn missing(what: &str) -> String {
    format!("a {what} type without its parameters")
}

/// The children of a field, all converted.
fn children(f: fb::Field<'_>, depth: usize) -> Result<Vec<Field>> {
    f.children()
        .into_iter()
        .flatten()
        .map(|c| field(c, depth + 1))
        .collect()
}

/// The only child of a list-like field.
fn one_child(f: fb::Field<'_>, depth: usize, what: &str) -> Result<Arc<Field>> {
    let mut kids = children(f, depth)?;
    match (kids.pop(), kids.is_empty()) {
        (Some(child), true) => Ok(Arc::new(child)),
        _ => Err(format!("a {what} needs exactly one child")),
    }
}

fn data_type(f: fb::Field<'_>, depth: usize) -> Result<DataType> {
    Ok(match f.type_type() {
        fb::Type::Null => DataType::Null,
        fb::Type::Bool => DataType::Boolean,
        fb::Type::Int => {
            let int = f.type_as_int().ok_or_else(|| missing("integer"))?;
            int_type(int.bitWidth(), int.is_signed())?
        }
        fb::Type::Binary => DataType::Binary,
        fb::Type::BinaryView => DataType::BinaryView,
        fb::Type::LargeBinary => DataType::LargeBinary,
        fb::Type::Utf8 => DataType::Utf8,
        fb::Type::Utf8View => DataType::Utf8View,
        fb::Type::LargeUtf8 => DataType::LargeUtf8,
        fb::Type::FixedSizeBinary => {
            let t = f
                .type_as_fixed_size_binary()
                .ok_or_else(|| missing("fixed-size binary"))?;
            if t.byteWidth() < 0 {
                return Err(format!("a fixed-size binary of {} bytes", t.byteWidth()));
            }
            DataType::FixedSizeBinary(t.byteWidth())
        }
        fb::Type::FloatingPoint => {
            let t = f.type_as_floating_point().ok_or_else(|| missing("float"))?;
            match t.precision() {
                fb::Precision::HALF => DataType::Float16,
                fb::Precision::SINGLE => DataType::Float32,
                fb::Precision::DOUBLE => DataType::Float64,
                other => return Err(format!("unknown float precision {}", other.0)),
            }
        }
        fb::Type::Date => {
            let t = f.type_as_date().ok_or_else(|| missing("date"))?;
            match t.unit() {
                fb::DateUnit::DAY => DataType::Date32,
                fb::DateUnit::MILLISECOND => DataType::Date64,
                other => return Err(format!("unknown date unit {}", other.0)),
            }
        }
        fb::Type::Time => {
            let t = f.type_as_time().ok_or_else(|| missing("time"))?;
            match (t.bitWidth(), time_unit(t.unit())?) {
                (32, u @ (TimeUnit::Second | TimeUnit::Millisecond)) => DataType::Time32(u),
                (64, u @ (TimeUnit::Microsecond | TimeUnit::Nanosecond)) => DataType::Time64(u),
                (bits, unit) => return Err(format!("a time of {bits} bits in {unit:?}")),
            }
        }
        fb::Type::Timestamp => {
            let t = f.type_as_timestamp().ok_or_else(|| missing("timestamp"))?;
            DataType::Timestamp(time_unit(t.unit())?, t.timezone().map(Into::into))
        }
        fb::Type::Duration => {
            let t = f.type_as_duration().ok_or_else(|| missing("duration"))?;
            DataType::Duration(time_unit(t.unit())?)
        }
        fb::Type::Interval => {
            let t = f.type_as_interval().ok_or_else(|| missing("interval"))?;
            DataType::Interval(match t.unit() {
                fb::IntervalUnit::YEAR_MONTH => IntervalUnit::YearMonth,
                fb::IntervalUnit::DAY_TIME => IntervalUnit::DayTime,
                fb::IntervalUnit::MONTH_DAY_NANO => IntervalUnit::MonthDayNano,
                other => return Err(format!("unknown interval unit {}", other.0)),
            })
        }
        fb::Type::Decimal => {
            let t = f.type_as_decimal().ok_or_else(|| missing("decimal"))?;
            let precision = u8::try_from(t.precision())
                .map_err(|_| format!("a decimal precision of {}", t.precision()))?;
            let scale =
                i8::try_from(t.scale()).map_err(|_| format!("a decimal scale of {}", t.scale()))?;
            match t.bitWidth() {
                32 => DataType::Decimal32(precision, scale),
                64 => DataType::Decimal64(precision, scale),
                128 => DataType::Decimal128(precision, scale),
                256 => DataType::Decimal256(precision, scale),
                bits => return Err(format!("a decimal of {bits} bits")),
            }
        }
        fb::Type::List => DataType::List(one_child(f, depth, "list")?),
        fb::Type::LargeList => DataType::LargeList(one_child(f, depth, "large list")?),
        fb::Type::ListView => DataType::ListView(one_child(f, depth, "list view")?),
        fb::Type::LargeListView => DataType::LargeListView(one_child(f, depth, "large list view")?),
        fb::Type::FixedSizeList => {
            let t = f
                .type_as_fixed_size_list()
                .ok_or_else(|| missing("fixed-size list"))?;
            if t.listSize() < 0 {
                return Err(format!("a fixed-size list of {} values", t.listSize()));
            }
            DataType::FixedSizeList(one_child(f, depth, "fixed-size list")?, t.listSize())
        }
        fb::Type::Map => {
            let t = f.type_as_map().ok_or_else(|| missing("map"))?;
            DataType::Map(one_child(f, depth, "map")?, t.keysSorted())
        }
        fb::Type::Struct_ => DataType::Struct(Fields::from(children(f, depth)?)),
        fb::Type::RunEndEncoded => {
            let kids = children(f, depth)?;
            let [run_ends, values]: [Field; 2] = kids
                .try_into()
                .map_err(|_| "a run-end encoded type needs exactly two children".to_owned())?;
            DataType::RunEndEncoded(Arc::new(run_ends), Arc::new(values))
        }
        fb::Type::Union => {
            let t = f.type_as_union().ok_or_else(|| missing("union"))?;
            let mode = match t.mode() {
                fb::UnionMode::Dense => UnionMode::Dense,
                fb::UnionMode::Sparse => UnionMode::Sparse,
                other => return Err(format!("unknown union mode {}", other.0)),
            };
            let kids = children(f, depth)?;
            let ids: Vec<i8> = match t.typeIds() {
                Some(ids) => ids
                    .iter()
                    .map(|i| i8::try_from(i).map_err(|_| format!("a union type id of {i}")))
                    .collect::<Result<_>>()?,
                None => (0..kids.len())
                    .map(|i| i8::try_from(i).map_err(|_| "more than 128 union members".to_owned()))
                    .collect::<Result<_>>()?,
            };
            let fields = UnionFields::try_new(ids, kids).map_err(|e| e.to_string())?;
            DataType::Union(fields, mode)
        }
        other => return Err(format!("unknown type {}", other.0)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_schema::Schema;

    /// A schema through arrow-ipc's encoder and back through this walk.
    fn round_trip(schema: &Schema) -> Schema {
        let data = arrow_ipc::writer::IpcDataGenerator::default()
            .schema_to_bytes_with_dictionary_tracker(
                schema,
                &mut arrow_ipc::writer::DictionaryTracker::new(false),
                &arrow_ipc::writer::IpcWriteOptions::default(),
            );
        let message =
            arrow_ipc::root_as_message(&data.ipc_message).unwrap_or_else(|e| panic!("{e}"));
        let header = message
            .header_as_schema()
            .unwrap_or_else(|| panic!("no schema"));
        schema_from_ipc(header).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn every_kind_of_type_survives() {
        let item = Arc::new(Field::new("item", DataType::Int32, true));
        let entries = Arc::new(Field::new(
            "entries",
            DataType::Struct(Fields::from(vec![
                Field::new("key", DataType::Utf8, false),
                Field::new("value", DataType::Float64, true),
            ])),
            false,
        ));
        let schema = Schema::new(vec![
            Field::new("n", DataType::Null, true),
            Field::new("b", DataType::Boolean, false),
            Field::new("u16", DataType::UInt16, true),
            Field::new("f16", DataType::Float16, true),
            Field::new("d64", DataType::Date64, true),
            Field::new("t32", DataType::Time32(TimeUnit::Millisecond), true),
            Field::new(
                "ts",
                DataType::Timestamp(TimeUnit::Microsecond, Some("+02:00".into())),
                true,
            ),
            Field::new("dur", DataType::Duration(TimeUnit::Second), true),
            Field::new("iv", DataType::Interval(IntervalUnit::MonthDayNano), true),
            Field::new("dec", DataType::Decimal128(15, 2), true),
            Field::new("dec256", DataType::Decimal256(40, -3), true),
            Field::new("fsb", DataType::FixedSizeBinary(16), true),
            Field::new("ls", DataType::LargeUtf8, true),
            Field::new("view", DataType::Utf8View, true),
            Field::new("l", DataType::List(item.clone()), true),
            Field::new("fsl", DataType::FixedSizeList(item.clone(), 3), true),
            Field::new("m", DataType::Map(entries, false), true),
            Field::new(
                "dict",
                DataType::Dictionary(Box::new(DataType::Int16), Box::new(DataType::Utf8)),
                true,
            ),
            Field::new(
                "s",
                DataType::Struct(Fields::from(vec![Field::new("x", DataType::Int64, true)])),
                true,
            )
            .with_metadata(HashMap::from([("k".to_owned(), "v".to_owned())])),
        ])
        .with_metadata(HashMap::from([("schema".to_owned(), "meta".to_owned())]));
        assert_eq!(round_trip(&schema), schema);
    }
}
