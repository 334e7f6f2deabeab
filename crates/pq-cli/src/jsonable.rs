//! Arrays reshaped so that JSON can hold them: arrow-json writes a map only
//! when its keys are strings (a JSON object's keys are), so a map with
//! other keys (integers, dates, structs) becomes the list of its entries,
//! `[{"key": …, "value": …}]`, as pyarrow and DuckDB print such maps.
//! Everything else is left as it is, without a copy.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, GenericListArray, OffsetSizeTrait, RecordBatch, StructArray};
use arrow_schema::{ArrowError, DataType, Field, FieldRef, Fields, Schema};

/// `batch` with every map whose keys are not strings, at any depth, as a
/// list of key/value structs.
pub fn batch(batch: &RecordBatch) -> Result<RecordBatch, ArrowError> {
    let schema = batch.schema();
    let mut changed = false;
    let mut fields = Vec::with_capacity(batch.num_columns());
    let mut columns = Vec::with_capacity(batch.num_columns());
    for (f, c) in schema.fields().iter().zip(batch.columns()) {
        match array(c)? {
            Some(new) => {
                changed = true;
                fields.push(Arc::new(
                    f.as_ref().clone().with_data_type(new.data_type().clone()),
                ));
                columns.push(new);
            }
            None => {
                fields.push(f.clone());
                columns.push(c.clone());
            }
        }
    }
    if !changed {
        return Ok(batch.clone());
    }
    RecordBatch::try_new(
        Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone())),
        columns,
    )
}

fn is_string(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

/// The array reshaped, or `None` when it holds no map to reshape.
fn array(a: &ArrayRef) -> Result<Option<ArrayRef>, ArrowError> {
    match a.data_type() {
        DataType::Map(entries, _) => {
            let map = a.as_map();
            let keys = map.keys();
            let values = map.values();
            let new_keys = array(keys)?;
            let new_values = array(values)?;
            if is_string(keys.data_type()) && new_values.is_none() {
                return Ok(None);
            }
            let keys = new_keys.unwrap_or_else(|| keys.clone());
            let values = new_values.unwrap_or_else(|| values.clone());
            let (key_nullable, value_nullable) = match entries.data_type() {
                DataType::Struct(kv) if kv.len() == 2 => (kv[0].is_nullable(), kv[1].is_nullable()),
                _ => (false, true),
            };
            let kv_fields = Fields::from(vec![
                Field::new("key", keys.data_type().clone(), key_nullable),
                Field::new("value", values.data_type().clone(), value_nullable),
            ]);
            if is_string(keys.data_type()) {
                // String keys stay a map: only the values changed.
                let pairs = StructArray::try_new(kv_fields, vec![keys, values], None)?;
                let field = Arc::new(Field::new(entries.name(), pairs.data_type().clone(), false));
                return Ok(Some(Arc::new(arrow_array::MapArray::try_new(
                    field,
                    map.offsets().clone(),
                    pairs,
                    map.nulls().cloned(),
                    false,
                )?)));
            }
            let entries = StructArray::try_new(kv_fields, vec![keys, values], None)?;
            let item = Arc::new(Field::new("item", entries.data_type().clone(), false));
            Ok(Some(Arc::new(GenericListArray::<i32>::try_new(
                item,
                map.offsets().clone(),
                Arc::new(entries),
                map.nulls().cloned(),
            )?)))
        }
        DataType::List(f) => list::<i32>(a.as_list::<i32>(), f),
        DataType::LargeList(f) => list::<i64>(a.as_list::<i64>(), f),
        DataType::Struct(fields) => {
            let s = a.as_struct();
            let mut changed = false;
            let mut new_fields: Vec<FieldRef> = Vec::with_capacity(fields.len());
            let mut columns = Vec::with_capacity(fields.len());
            for (f, c) in fields.iter().zip(s.columns()) {
                match array(c)? {
                    Some(new) => {
                        changed = true;
                        new_fields.push(Arc::new(
                            f.as_ref().clone().with_data_type(new.data_type().clone()),
                        ));
                        columns.push(new);
                    }
                    None => {
                        new_fields.push(f.clone());
                        columns.push(c.clone());
                    }
                }
            }
            if !changed {
                return Ok(None);
            }
            Ok(Some(Arc::new(StructArray::try_new(
                Fields::from(new_fields),
                columns,
                s.nulls().cloned(),
            )?)))
        }
        _ => Ok(None),
    }
}

fn list<O: OffsetSizeTrait>(
    l: &GenericListArray<O>,
    f: &FieldRef,
) -> Result<Option<ArrayRef>, ArrowError> {
    let Some(values) = array(l.values())? else {
        return Ok(None);
    };
    let item = Arc::new(
        f.as_ref()
            .clone()
            .with_data_type(values.data_type().clone()),
    );
    Ok(Some(Arc::new(GenericListArray::<O>::try_new(
        item,
        l.offsets().clone(),
        values,
        l.nulls().cloned(),
    )?)))
}
