//! Repetition and definition levels of every leaf of a column, computed
//! from the Arrow arrays' validity bitmaps and offsets.

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field};

use crate::error::{Location, Result, arrow_err, unsupported};

/// Which entries of the leaf array hold the non-null values.
#[derive(Debug, Clone)]
pub(crate) enum Selection {
    /// Every index from this one on, as many as there are values.
    Range(usize),
    /// These indices, ascending.
    Indices(Vec<usize>),
}

/// The levels and values of one leaf for a slice of rows.
#[derive(Debug, Clone)]
pub(crate) struct LeafLevels {
    /// The leaf's values (dictionaries already materialised).
    pub array: ArrayRef,
    /// Definition levels, `None` when the leaf's max definition level is 0.
    pub def: Option<Vec<i16>>,
    /// Repetition levels, `None` when the leaf is not repeated.
    pub rep: Option<Vec<i16>>,
    /// Non-null values in `array`.
    pub selection: Selection,
    /// Number of levels.
    pub num_levels: usize,
}

const DONE: usize = usize::MAX;

/// Entries of an array being walked: one per level so far.
#[derive(Debug, Clone)]
enum Ctx {
    /// Entry `i` is index `i` of the array, every definition level equal,
    /// no repetition.
    Identity(usize),
    /// Explicit entries; `idx == DONE` when the level is final (a null or
    /// empty ancestor).
    Entries {
        def: Vec<i16>,
        rep: Option<Vec<i16>>,
        idx: Vec<usize>,
    },
}

impl Ctx {
    fn materialise(self, def_value: i16) -> (Vec<i16>, Option<Vec<i16>>, Vec<usize>) {
        match self {
            Ctx::Identity(n) => (vec![def_value; n], None, (0..n).collect()),
            Ctx::Entries { def, rep, idx } => (def, rep, idx),
        }
    }
}

/// Computes the leaves of a top-level column, in schema order.
pub(crate) fn leaves(field: &Field, array: &ArrayRef, out: &mut Vec<LeafLevels>) -> Result<()> {
    visit(field, array, Ctx::Identity(array.len()), 0, 0, out)
}

fn nulls_of(array: &dyn Array) -> Option<NullBuffer> {
    array.logical_nulls().filter(|n| n.null_count() > 0)
}

fn visit(
    field: &Field,
    array: &ArrayRef,
    ctx: Ctx,
    def: i16,
    rep_depth: i16,
    out: &mut Vec<LeafLevels>,
) -> Result<()> {
    let nullable = field.is_nullable();
    let nulls = if nullable { nulls_of(array) } else { None };
    let present = def + nullable as i16;
    // Marks null entries final; returns the context of present entries.
    let apply_nulls = |ctx: Ctx| -> Ctx {
        match (ctx, &nulls) {
            (Ctx::Identity(n), None) => Ctx::Identity(n),
            (ctx, nulls) => {
                let (mut d, r, mut idx) = ctx.materialise(def);
                for (d, i) in d.iter_mut().zip(idx.iter_mut()) {
                    if *i == DONE {
                        continue;
                    }
                    if nulls.as_ref().is_some_and(|n| n.is_null(*i)) {
                        *i = DONE;
                    } else {
                        *d = present;
                    }
                }
                Ctx::Entries {
                    def: d,
                    rep: r,
                    idx,
                }
            }
        }
    };
    match field.data_type() {
        DataType::Struct(fields) => {
            let s = array.as_struct();
            let ctx = apply_nulls(ctx);
            for (f, child) in fields.iter().zip(s.columns()) {
                visit(f, child, ctx.clone(), present, rep_depth, out)?;
            }
            Ok(())
        }
        DataType::List(f) => {
            let l = array.as_list::<i32>();
            let offs = l.value_offsets();
            let ctx = repeat(apply_nulls(ctx), def, present, rep_depth, |i| {
                (offs[i] as usize, offs[i + 1] as usize)
            });
            visit(f, l.values(), ctx, present + 1, rep_depth + 1, out)
        }
        DataType::LargeList(f) => {
            let l = array.as_list::<i64>();
            let offs = l.value_offsets();
            let ctx = repeat(apply_nulls(ctx), def, present, rep_depth, |i| {
                (offs[i] as usize, offs[i + 1] as usize)
            });
            visit(f, l.values(), ctx, present + 1, rep_depth + 1, out)
        }
        DataType::FixedSizeList(f, _) => {
            let l = array.as_fixed_size_list();
            let ctx = repeat(apply_nulls(ctx), def, present, rep_depth, |i| {
                // Element i's values start at i × the list length (arrow's
                // own offset of the child is already in `l.values()`).
                let len = l.value_length() as usize;
                (i * len, i * len + len)
            });
            visit(f, l.values(), ctx, present + 1, rep_depth + 1, out)
        }
        DataType::Map(entries, _) => {
            let m = array.as_map();
            let offs = m.value_offsets();
            let ctx = repeat(apply_nulls(ctx), def, present, rep_depth, |i| {
                (offs[i] as usize, offs[i + 1] as usize)
            });
            let DataType::Struct(kv) = entries.data_type() else {
                return Err(unsupported(
                    &Location::column(field.name()),
                    "map entries that are not a struct",
                ));
            };
            let s = m.entries();
            for (f, child) in kv.iter().zip(s.columns()) {
                visit(f, child, ctx.clone(), present + 1, rep_depth + 1, out)?;
            }
            Ok(())
        }
        DataType::Dictionary(_, _) => {
            let dict = array.as_any_dictionary();
            let values = arrow_select::take::take(dict.values().as_ref(), dict.keys(), None)
                .map_err(|e| arrow_err(&Location::column(field.name()), e))?;
            let inner = field.clone().with_data_type(values.data_type().clone());
            // Nulls of the keys and of the values, seen through the keys.
            visit(&inner, &values, ctx, def, rep_depth, out)
        }
        _ => {
            let leaf = match apply_nulls(ctx) {
                Ctx::Identity(n) => LeafLevels {
                    array: array.clone(),
                    def: (present > 0).then(|| vec![present; n]),
                    rep: None,
                    selection: Selection::Range(0),
                    num_levels: n,
                },
                Ctx::Entries { def: d, rep, idx } => {
                    let n = d.len();
                    let selection =
                        Selection::Indices(idx.into_iter().filter(|&i| i != DONE).collect());
                    LeafLevels {
                        array: array.clone(),
                        def: (present > 0).then_some(d),
                        rep,
                        selection,
                        num_levels: n,
                    }
                }
            };
            out.push(leaf);
            Ok(())
        }
    }
}

/// Expands the present entries of a list-like array into its elements.
fn repeat(
    ctx: Ctx,
    def: i16,
    present: i16,
    rep_depth: i16,
    range: impl Fn(usize) -> (usize, usize),
) -> Ctx {
    let (d, r, idx) = ctx.materialise(present);
    let _ = def;
    let mut nd = Vec::with_capacity(d.len());
    let mut nr = Vec::with_capacity(d.len());
    let mut ni = Vec::with_capacity(d.len());
    for (k, (&dv, &i)) in d.iter().zip(&idx).enumerate() {
        let rv = r.as_ref().map_or(0, |r| r[k]);
        if i == DONE {
            nd.push(dv);
            nr.push(rv);
            ni.push(DONE);
            continue;
        }
        let (a, b) = range(i);
        if a == b {
            nd.push(present);
            nr.push(rv);
            ni.push(DONE);
            continue;
        }
        for (j, e) in (a..b).enumerate() {
            nd.push(present + 1);
            nr.push(if j == 0 { rv } else { rep_depth + 1 });
            ni.push(e);
        }
    }
    Ctx::Entries {
        def: nd,
        rep: Some(nr),
        idx: ni,
    }
}
