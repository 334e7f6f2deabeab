//! Leaf column readers: the pages of one column chunk to levels plus an
//! Arrow array with one slot per level (null where the value is undefined).

pub(crate) mod values;

use arrow_array::ArrayRef;
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::DataType;
use bytes::Bytes;
use pq_format::Type;
use pq_page::{ChunkContext, Page, PageOptions, PageReader};

use crate::convert::{to_arrow, wants_large_offsets};
use crate::error::{Error, Location, Result, data_err, enc_err};
use crate::schema::LeafColumn;
use values::{Dense, Offsets, decode_plain, decode_values};

/// The decoded content of one leaf column chunk.
#[derive(Debug)]
pub(crate) struct LeafData {
    /// Definition levels, when the max level is above 0.
    pub(crate) def: Option<Vec<i16>>,
    /// Repetition levels, when the max level is above 0.
    pub(crate) rep: Option<Vec<i16>>,
    /// One slot per level.
    pub(crate) array: ArrayRef,
}

fn empty_dense(leaf: &LeafColumn, dt: &DataType) -> Dense {
    match leaf.physical {
        Type::BOOLEAN => Dense::Bool(Vec::new()),
        Type::INT32 => Dense::I32(Vec::new()),
        Type::INT64 => Dense::I64(Vec::new()),
        Type::INT96 => Dense::I96(Vec::new()),
        Type::FLOAT => Dense::F32(Vec::new()),
        Type::DOUBLE => Dense::F64(Vec::new()),
        Type::BYTE_ARRAY => Dense::Bytes {
            offsets: if wants_large_offsets(dt) {
                Offsets::I64(Vec::new())
            } else {
                Offsets::I32(Vec::new())
            },
            values: Vec::new(),
        },
        _ => Dense::Fixed {
            width: usize::try_from(leaf.type_length).unwrap_or(0),
            data: Vec::new(),
        },
    }
}

fn page_err(source: pq_page::Error, at: &Location) -> Error {
    Error::Page {
        at: Box::new(at.clone()),
        source: Box::new(source),
    }
}

/// Reads every page of one column chunk.
pub(crate) fn read_leaf(
    chunk: Bytes,
    ctx: ChunkContext,
    leaf: &LeafColumn,
    dt: &DataType,
    options: &PageOptions,
    at: &Location,
) -> Result<LeafData> {
    let (value_type, key_type) = match dt {
        DataType::Dictionary(k, v) => (v.as_ref(), Some(k.as_ref())),
        _ => (dt, None),
    };
    // Dictionary output keeps the indices of dictionary-encoded pages
    // instead of gathering, until a page of another encoding comes.
    let mut dict_mode = key_type.is_some();
    let mut keys: Vec<u32> = Vec::new();
    let dt = value_type;
    let max_def = leaf.max_def_level;
    let max_rep = leaf.max_rep_level;
    let expected = usize::try_from(ctx.num_values).unwrap_or(0);
    let mut reader = PageReader::new(chunk, ctx, options);
    let mut dense = empty_dense(leaf, dt);
    if matches!(dense, Dense::Fixed { width: 0, .. }) && !matches!(dt, DataType::Null) {
        return Err(data_err(at, "FIXED_LEN_BYTE_ARRAY of width 0"));
    }
    let mut dict: Option<Dense> = None;
    let mut def: Vec<i16> = Vec::new();
    let mut rep: Vec<i16> = Vec::new();
    let mut indices = Vec::new();
    let mut levels_total = 0usize;
    let cap = expected.min(1 << 24);
    if max_def > 0 {
        def.reserve(cap);
    }
    if max_rep > 0 {
        rep.reserve(cap);
    }
    while let Some(page) = reader.next_page().map_err(|e| page_err(e, at))? {
        match page {
            Page::Dictionary(d) => {
                let at = at.clone().at_offset(d.file_offset).at_page(d.index);
                if dict_mode && !keys.is_empty() {
                    // A second dictionary: gather what the first one keyed.
                    if let Some(old) = dict.as_ref() {
                        values::gather_dense(&mut dense, old, &keys, &at)?;
                    }
                    keys.clear();
                    dict_mode = false;
                }
                let mut values = dense.empty_like();
                decode_plain(&mut values, &d.buf, d.num_values, &at)?;
                dict = Some(values);
            }
            Page::Data(p) => {
                let at = at.clone().at_offset(p.file_offset).at_page(p.index);
                let n = p.num_values;
                let non_null = if max_def > 0 {
                    let start = def.len();
                    p.def_levels
                        .decode_into(&mut def)
                        .map_err(|e| enc_err(&at, e))?;
                    let page_def = def.get(start..).unwrap_or_default();
                    if page_def.len() != n {
                        return Err(data_err(
                            &at,
                            format!("expected {n} definition levels, found {}", page_def.len()),
                        ));
                    }
                    if let Some(bad) = page_def.iter().find(|&&d| d > max_def || d < 0) {
                        return Err(data_err(
                            &at,
                            format!("definition level {bad} above the maximum {max_def}"),
                        ));
                    }
                    page_def.iter().filter(|&&d| d == max_def).count()
                } else {
                    n
                };
                if max_rep > 0 {
                    let start = rep.len();
                    p.rep_levels
                        .decode_into(&mut rep)
                        .map_err(|e| enc_err(&at, e))?;
                    let page_rep = rep.get(start..).unwrap_or_default();
                    if page_rep.len() != n {
                        return Err(data_err(
                            &at,
                            format!("expected {n} repetition levels, found {}", page_rep.len()),
                        ));
                    }
                    if let Some(bad) = page_rep.iter().find(|&&r| r > max_rep || r < 0) {
                        return Err(data_err(
                            &at,
                            format!("repetition level {bad} above the maximum {max_rep}"),
                        ));
                    }
                }
                levels_total += n;
                let is_dict_page = matches!(
                    p.encoding,
                    pq_format::Encoding::PLAIN_DICTIONARY | pq_format::Encoding::RLE_DICTIONARY
                );
                if dict_mode && !is_dict_page {
                    if let Some(old) = dict.as_ref() {
                        values::gather_dense(&mut dense, old, &keys, &at)?;
                    }
                    keys.clear();
                    dict_mode = false;
                }
                if dict_mode && dict.is_some() {
                    if non_null > 0 {
                        pq_encoding::dictionary::indices_decoder(&p.values)
                            .map_err(|e| enc_err(&at, e))?
                            .decode_into(&mut keys, non_null)
                            .map_err(|e| enc_err(&at, e))?;
                    }
                } else if !matches!(dt, DataType::Null) {
                    decode_values(
                        &mut dense,
                        dict.as_ref(),
                        p.encoding,
                        &p.values,
                        non_null,
                        &mut indices,
                        &at,
                    )?;
                }
            }
        }
    }
    let nulls = if max_def > 0 {
        let buf = BooleanBuffer::collect_bool(def.len(), |i| def.get(i) == Some(&max_def));
        Some(NullBuffer::new(buf))
    } else {
        None
    };
    let valid = nulls
        .as_ref()
        .map(|n| n.len() - n.null_count())
        .unwrap_or(levels_total);
    if let Some(key_type) = key_type {
        let array = if dict_mode && let Some(d) = dict {
            if valid != keys.len() {
                return Err(data_err(
                    at,
                    format!(
                        "{valid} non-null values expected from the levels, {} decoded",
                        keys.len()
                    ),
                ));
            }
            let dict_len = d.len();
            let values = to_arrow(d, None, dict_len, dt, at)?;
            crate::convert::dictionary_array(key_type, keys, false, nulls, values, at)?
        } else {
            if valid != dense.len() {
                return Err(data_err(
                    at,
                    format!(
                        "{valid} non-null values expected from the levels, {} decoded",
                        dense.len()
                    ),
                ));
            }
            let plain = to_arrow(dense, nulls.clone(), levels_total, dt, at)?;
            let n = u32::try_from(levels_total)
                .map_err(|_| data_err(at, "too many values for a dictionary"))?;
            crate::convert::dictionary_array(key_type, (0..n).collect(), true, nulls, plain, at)?
        };
        return Ok(LeafData {
            def: (max_def > 0).then_some(def),
            rep: (max_rep > 0).then_some(rep),
            array,
        });
    }
    if !matches!(dt, DataType::Null) && valid != dense.len() {
        return Err(data_err(
            at,
            format!(
                "{valid} non-null values expected from the levels, {} decoded",
                dense.len()
            ),
        ));
    }
    let array = to_arrow(dense, nulls, levels_total, dt, at)?;
    Ok(LeafData {
        def: (max_def > 0).then_some(def),
        rep: (max_rep > 0).then_some(rep),
        array,
    })
}
