//! A generic walk of compact-protocol bytes with the `thrift` crate (the
//! independent reference): struct → field id → value.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;

use thrift::protocol::{
    TCompactInputProtocol, TCompactOutputProtocol, TFieldIdentifier, TInputProtocol,
    TListIdentifier, TMapIdentifier, TOutputProtocol, TSetIdentifier, TStructIdentifier, TType,
};

/// A Thrift value, typed only by the wire.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Bool(bool),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    /// Bits, so that NaN compares equal to itself.
    Double(u64),
    Binary(Vec<u8>),
    Struct(BTreeMap<i16, (TTypeKey, Value)>),
    List(TTypeKey, Vec<Value>),
    Set(TTypeKey, Vec<Value>),
    Map(TTypeKey, TTypeKey, Vec<(Value, Value)>),
}

/// A comparable stand-in for `TType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TTypeKey(pub u8);

fn key(t: TType) -> TTypeKey {
    TTypeKey(match t {
        TType::Stop => 0,
        TType::Void => 1,
        TType::Bool => 2,
        TType::I08 => 3,
        TType::Double => 4,
        TType::I16 => 6,
        TType::I32 => 8,
        TType::I64 => 10,
        TType::String => 11,
        TType::Struct => 12,
        TType::Map => 13,
        TType::Set => 14,
        TType::List => 15,
        TType::Utf7 => 7,
        TType::Uuid => 18,
    })
}

fn unkey(k: TTypeKey) -> TType {
    match k.0 {
        2 => TType::Bool,
        3 => TType::I08,
        4 => TType::Double,
        6 => TType::I16,
        8 => TType::I32,
        10 => TType::I64,
        11 => TType::String,
        12 => TType::Struct,
        13 => TType::Map,
        14 => TType::Set,
        15 => TType::List,
        _ => TType::Void,
    }
}

fn read_value(p: &mut dyn TInputProtocol, t: TType) -> thrift::Result<Value> {
    Ok(match t {
        TType::Bool => Value::Bool(p.read_bool()?),
        TType::I08 => Value::I8(p.read_i8()?),
        TType::I16 => Value::I16(p.read_i16()?),
        TType::I32 => Value::I32(p.read_i32()?),
        TType::I64 => Value::I64(p.read_i64()?),
        TType::Double => Value::Double(p.read_double()?.to_bits()),
        TType::String => Value::Binary(p.read_bytes()?),
        TType::Struct => read_struct(p)?,
        TType::List => {
            let id = p.read_list_begin()?;
            let mut v = Vec::new();
            for _ in 0..id.size {
                v.push(read_value(p, id.element_type)?);
            }
            p.read_list_end()?;
            Value::List(key(id.element_type), v)
        }
        TType::Set => {
            let id = p.read_set_begin()?;
            let mut v = Vec::new();
            for _ in 0..id.size {
                v.push(read_value(p, id.element_type)?);
            }
            p.read_set_end()?;
            Value::Set(key(id.element_type), v)
        }
        TType::Map => {
            let id = p.read_map_begin()?;
            let mut v = Vec::new();
            let (kt, vt) = (
                id.key_type.unwrap_or(TType::Void),
                id.value_type.unwrap_or(TType::Void),
            );
            for _ in 0..id.size {
                let k = read_value(p, kt)?;
                let x = read_value(p, vt)?;
                v.push((k, x));
            }
            p.read_map_end()?;
            Value::Map(key(kt), key(vt), v)
        }
        other => {
            return Err(thrift::Error::Protocol(thrift::ProtocolError::new(
                thrift::ProtocolErrorKind::InvalidData,
                format!("unsupported type {other:?}"),
            )));
        }
    })
}

fn read_struct(p: &mut dyn TInputProtocol) -> thrift::Result<Value> {
    p.read_struct_begin()?;
    let mut fields = BTreeMap::new();
    loop {
        let f = p.read_field_begin()?;
        if f.field_type == TType::Stop {
            break;
        }
        let id = f.id.unwrap_or(0);
        let v = read_value(p, f.field_type)?;
        p.read_field_end()?;
        fields.insert(id, (key(f.field_type), v));
    }
    p.read_struct_end()?;
    Ok(Value::Struct(fields))
}

/// Walk one struct from the start of `buf`; returns it and the bytes used.
pub fn walk(buf: &[u8]) -> thrift::Result<(Value, usize)> {
    let mut cursor = std::io::Cursor::new(buf);
    let v = {
        let mut p = TCompactInputProtocol::new(&mut cursor);
        read_struct(&mut p)?
    };
    Ok((v, cursor.position() as usize))
}

fn write_value(p: &mut dyn TOutputProtocol, v: &Value) -> thrift::Result<()> {
    match v {
        Value::Bool(b) => p.write_bool(*b),
        Value::I8(x) => p.write_i8(*x),
        Value::I16(x) => p.write_i16(*x),
        Value::I32(x) => p.write_i32(*x),
        Value::I64(x) => p.write_i64(*x),
        Value::Double(x) => p.write_double(f64::from_bits(*x)),
        Value::Binary(b) => p.write_bytes(b),
        Value::Struct(fields) => {
            p.write_struct_begin(&TStructIdentifier::new("s"))?;
            for (id, (t, v)) in fields {
                p.write_field_begin(&TFieldIdentifier::new("f", unkey(*t), *id))?;
                write_value(p, v)?;
                p.write_field_end()?;
            }
            p.write_field_stop()?;
            p.write_struct_end()
        }
        Value::List(t, items) => {
            p.write_list_begin(&TListIdentifier::new(unkey(*t), items.len() as i32))?;
            for x in items {
                write_value(p, x)?;
            }
            p.write_list_end()
        }
        Value::Set(t, items) => {
            p.write_set_begin(&TSetIdentifier::new(unkey(*t), items.len() as i32))?;
            for x in items {
                write_value(p, x)?;
            }
            p.write_set_end()
        }
        Value::Map(kt, vt, items) => {
            p.write_map_begin(&TMapIdentifier::new(
                unkey(*kt),
                unkey(*vt),
                items.len() as i32,
            ))?;
            for (k, x) in items {
                write_value(p, k)?;
                write_value(p, x)?;
            }
            p.write_map_end()
        }
    }
}

/// Encode a walked value with the `thrift` crate's compact writer.
pub fn unwalk(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut p = TCompactOutputProtocol::new(&mut out);
        write_value(&mut p, v).unwrap();
        p.flush().unwrap();
    }
    out
}

/// Every difference between two walked values, as paths with a short
/// description.
pub fn diff(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Struct(x), Value::Struct(y)) => {
            for (id, (ta, va)) in x {
                match y.get(id) {
                    None => out.push(format!("{path}.{id}: only in left ({ta:?})")),
                    Some((tb, vb)) => {
                        if ta != tb {
                            out.push(format!("{path}.{id}: type {ta:?} vs {tb:?}"));
                        } else {
                            diff(va, vb, &format!("{path}.{id}"), out);
                        }
                    }
                }
            }
            for k in y.keys().filter(|k| !x.contains_key(k)) {
                out.push(format!("{path}.{k}: only in right"));
            }
        }
        (Value::List(ta, x), Value::List(tb, y)) | (Value::Set(ta, x), Value::Set(tb, y)) => {
            if ta != tb || x.len() != y.len() {
                out.push(format!(
                    "{path}: list {ta:?}x{} vs {tb:?}x{}",
                    x.len(),
                    y.len()
                ));
                return;
            }
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                diff(p, q, &format!("{path}[{i}]"), out);
            }
        }
        _ if a == b => {}
        _ => out.push(format!("{path}: {a:?} vs {b:?}")),
    }
}
