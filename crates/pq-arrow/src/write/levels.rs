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
    /// Entry `i` is index `i` of the array, no repetition: open at level
    /// `open` where `valid` is set, final at level `null` where not. A
    /// nullable column (or struct) at the top, its nulls not spelled out
    /// per entry until something below needs them.
    Masked {
        valid: NullBuffer,
        null: i16,
        open: i16,
    },
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
            Ctx::Masked { valid, null, open } => {
                let def = masked_levels(&valid, null, open);
                let idx = (0..valid.len())
                    .map(|i| if valid.is_valid(i) { i } else { DONE })
                    .collect();
                (def, None, idx)
            }
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
            // Every entry open: the nulls are a mask over them.
            (Ctx::Identity(_), Some(valid)) => Ctx::Masked {
                valid: valid.clone(),
                null: def,
                open: present,
            },
            // Open entries take this field's level (the same one when it
            // is required).
            (Ctx::Masked { valid, null, .. }, None) => Ctx::Masked {
                valid,
                null,
                open: present,
            },
            // Entries still open are at level `def` (set by the parent):
            // without this field's own level to add, nothing changes.
            (ctx @ Ctx::Entries { .. }, None) if !nullable => ctx,
            (ctx, nulls) => {
                let (mut d, r, mut idx) = ctx.materialise(def);
                mark_nulls(&mut d, &mut idx, nulls.as_ref(), present);
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
            let ctx = repeat(apply_nulls(ctx), present, rep_depth, |i| {
                (offs[i] as usize, offs[i + 1] as usize)
            });
            visit(f, l.values(), ctx, present + 1, rep_depth + 1, out)
        }
        DataType::LargeList(f) => {
            let l = array.as_list::<i64>();
            let offs = l.value_offsets();
            let ctx = repeat(apply_nulls(ctx), present, rep_depth, |i| {
                (offs[i] as usize, offs[i + 1] as usize)
            });
            visit(f, l.values(), ctx, present + 1, rep_depth + 1, out)
        }
        DataType::FixedSizeList(f, _) => {
            let l = array.as_fixed_size_list();
            let ctx = repeat(apply_nulls(ctx), present, rep_depth, |i| {
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
            let ctx = repeat(apply_nulls(ctx), present, rep_depth, |i| {
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
                // A nullable leaf, or the leaf of a nullable struct, with
                // no list above: its levels and values come from the one
                // validity bitmap.
                Ctx::Masked { valid, null, open } => {
                    let (d, selection) = flat_levels(&valid, null, open);
                    LeafLevels {
                        array: array.clone(),
                        num_levels: d.len(),
                        def: Some(d),
                        rep: None,
                        selection,
                    }
                }
                Ctx::Entries { def: d, rep, idx } => {
                    let n = d.len();
                    let selection = select(idx);
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

/// The definition levels and selected values of entries masked by `nulls`
/// (`def` for a null, `present` for a value; see `Ctx::Masked`), read off
/// the validity bitmap 64 entries at a time: what [`mark_nulls`] and
/// [`select`] give for them, without an index materialised per entry
/// (most columns of most files are nullable, flat and have a few nulls).
fn flat_levels(nulls: &NullBuffer, def: i16, present: i16) -> (Vec<i16>, Selection) {
    let levels = masked_levels(nulls, def, present);
    let n = nulls.len();
    let kept = n - nulls.null_count();
    let first = nulls.valid_indices().next();
    let selection = match first {
        None => Selection::Range(0),
        // One run of values (nulls only before or after it).
        Some(f) if nulls.inner().slice(f, kept).count_set_bits() == kept => Selection::Range(f),
        Some(_) => Selection::Indices(valid_indices(nulls, kept)),
    };
    (levels, selection)
}

/// The indices of the `kept` valid entries of `nulls`, word by word: the
/// bit iterator's `extend` (its `next` not inlined into the loop) took 6 %
/// of a write of pyarrow's PLAIN nullable lineitem file.
fn valid_indices(nulls: &NullBuffer, kept: usize) -> Vec<usize> {
    let mut idx = Vec::with_capacity(kept);
    for (w, mut word) in nulls.inner().bit_chunks().iter_padded().enumerate() {
        let base = w * 64;
        while word != 0 {
            idx.push(base + word.trailing_zeros() as usize);
            word &= word - 1;
        }
    }
    idx
}

/// The levels of [`flat_levels`] alone.
fn masked_levels(nulls: &NullBuffer, def: i16, present: i16) -> Vec<i16> {
    let n = nulls.len();
    let step = present - def;
    let mut levels = Vec::with_capacity(n.next_multiple_of(64));
    for word in nulls.inner().bit_chunks().iter_padded() {
        levels.extend((0..64).map(|b| def + step * ((word >> b) & 1) as i16));
    }
    levels.truncate(n);
    levels
}

/// The leaf array's entries that hold values, from the levels' entries:
/// a range when they follow one another (null or empty lists hold no
/// entries of the leaf, so only a null leaf value, or a null struct between
/// the leaf and its list, breaks the run), which the encoders take as a
/// slice; else the indices.
///
/// The entries still open are compacted in place without a branch on each
/// (null lists and values fall anywhere, so a branch would be mispredicted
/// as often as they come). Their indices strictly increase (list offsets
/// never decrease, as Arrow's `OffsetBuffer` guarantees, and a null or
/// empty list holds no open entry), so they follow one another exactly
/// when the last is the first plus their count less one.
fn select(mut idx: Vec<usize>) -> Selection {
    let mut k = 0;
    for j in 0..idx.len() {
        let i = idx[j];
        idx[k] = i;
        k += usize::from(i != DONE);
    }
    idx.truncate(k);
    debug_assert!(idx.windows(2).all(|w| w[0] < w[1]));
    match (idx.first(), idx.last()) {
        (None, _) | (_, None) => Selection::Range(0),
        (Some(&first), Some(&last)) if last - first + 1 == k => Selection::Range(first),
        _ => Selection::Indices(idx),
    }
}

/// Marks the open entries whose value is null final (`DONE`) and gives the
/// others the field's own definition level `present`.
///
/// Without a branch on each entry: which entries are null is data, and on
/// columns with scattered nulls a branch was mispredicted at every one.
fn mark_nulls(def: &mut [i16], idx: &mut [usize], nulls: Option<&NullBuffer>, present: i16) {
    // `keep` is 0 or 1, turned into masks: written as `if`s, the compiler
    // made branches of them again.
    let mark = |d: &mut i16, i: &mut usize, keep: usize| {
        let m = keep.wrapping_neg();
        *i |= !m;
        let m = -(keep as i16);
        *d = (*d & !m) | (present & m);
    };
    match nulls {
        None => {
            for (d, i) in def.iter_mut().zip(idx.iter_mut()) {
                let open = usize::from(*i != DONE);
                mark(d, i, open);
            }
        }
        Some(n) => {
            let (bits, offset) = (n.validity(), n.offset());
            for (d, i) in def.iter_mut().zip(idx.iter_mut()) {
                let open = usize::from(*i != DONE);
                // A final entry tests bit 0 of the slice (any bit) and
                // stays final whatever it holds.
                let at = (*i & open.wrapping_neg()) + offset;
                let bit = bits
                    .get(at >> 3)
                    .map_or(0, |b| usize::from(b >> (at & 7) & 1));
                mark(d, i, open & bit);
            }
        }
    }
}

/// Expands the present entries of a list-like array into its elements.
///
/// In two passes: the entries out are counted first, so that the levels
/// are filled in place (a list's elements all share one definition level,
/// and all but its first one repetition level) instead of pushed one by
/// one.
fn repeat(ctx: Ctx, present: i16, rep_depth: i16, range: impl Fn(usize) -> (usize, usize)) -> Ctx {
    // Entries out of an entry whose list is `i`: its elements, or one
    // final entry when it is empty.
    let len = |i: usize| {
        let (a, b) = range(i);
        b.saturating_sub(a).max(1)
    };
    let total: usize = match &ctx {
        Ctx::Identity(n) => (0..*n).map(len).sum(),
        Ctx::Masked { valid, .. } => (0..valid.len())
            .map(|i| if valid.is_valid(i) { len(i) } else { 1 })
            .sum(),
        Ctx::Entries { idx, .. } => idx
            .iter()
            .map(|&i| if i == DONE { 1 } else { len(i) })
            .sum(),
    };
    let mut out = Expanded {
        def: vec![present + 1; total],
        rep: vec![rep_depth + 1; total],
        idx: Vec::with_capacity(total),
    };
    match ctx {
        // Every entry present, none repeated (a list at the top without
        // nulls): walked as the list's own indices, nothing materialised.
        Ctx::Identity(n) => {
            for i in 0..n {
                out.list(range(i), 0, present);
            }
        }
        // A list at the top with nulls: the bitmap read as the entries go.
        Ctx::Masked { valid, null, .. } => {
            for i in 0..valid.len() {
                if valid.is_valid(i) {
                    out.list(range(i), 0, present);
                } else {
                    out.done(null, 0);
                }
            }
        }
        Ctx::Entries { def, rep, idx } => {
            for (k, (&dv, &i)) in def.iter().zip(&idx).enumerate() {
                let rv = rep.as_ref().map_or(0, |r| r[k]);
                if i == DONE {
                    out.done(dv, rv);
                } else {
                    out.list(range(i), rv, present);
                }
            }
        }
    }
    Ctx::Entries {
        def: out.def,
        rep: Some(out.rep),
        idx: out.idx,
    }
}

/// The entries of a list-like array's elements, filled by [`repeat`]:
/// `def` and `rep` sized and preset for list elements, `idx` pushed (its
/// length is the next entry's position).
struct Expanded {
    def: Vec<i16>,
    rep: Vec<i16>,
    idx: Vec<usize>,
}

impl Expanded {
    /// An entry already final (a null or empty ancestor).
    fn done(&mut self, def: i16, rep: i16) {
        let at = self.idx.len();
        if let (Some(d), Some(r)) = (self.def.get_mut(at), self.rep.get_mut(at)) {
            *d = def;
            *r = rep;
        }
        self.idx.push(DONE);
    }

    /// The elements `a..b` of a present list whose entry repeats at `rep`.
    #[inline]
    fn list(&mut self, (a, b): (usize, usize), rep: i16, present: i16) {
        if a >= b {
            // Empty: one final entry at the list's own level.
            self.done(present, rep);
            return;
        }
        // The elements' definition levels, and the repetition levels of
        // all but the first, are preset.
        if let Some(r) = self.rep.get_mut(self.idx.len()) {
            *r = rep;
        }
        self.idx.extend(a..b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The entries' levels and selection done one entry at a time with
    /// branches, as the bulk versions must match.
    fn naive(def: &[i16], idx: &[usize], valid: &[bool], present: i16) -> (Vec<i16>, Vec<usize>) {
        let mut d = def.to_vec();
        let mut kept = Vec::new();
        for (d, &i) in d.iter_mut().zip(idx) {
            if i != DONE && valid[i] {
                *d = present;
                kept.push(i);
            }
        }
        (d, kept)
    }

    #[test]
    fn nulls_marked_and_values_selected_as_one_entry_at_a_time() {
        let mut rng = pq_testkit::Rng(0x9e37_79b9_7f4a_7c15);
        for case in 0..200 {
            let n = rng.index(300);
            // Leaf indices strictly increasing, some entries final; every
            // third case has gaps (a null struct, or a null list holding
            // elements).
            let mut at = rng.index(4);
            let mut idx = Vec::new();
            for _ in 0..n {
                if rng.chance(20) {
                    idx.push(DONE);
                } else {
                    at += 1 + usize::from(case % 3 == 0 && rng.chance(15));
                    idx.push(at);
                }
            }
            let values = (n + 8).max(at + 1);
            let offset = rng.index(9);
            // Every fourth case has no null value.
            let valid: Vec<bool> = (0..values)
                .map(|_| case % 4 == 0 || !rng.chance(17))
                .collect();
            let all: Vec<bool> = (0..offset)
                .map(|_| false)
                .chain(valid.iter().copied())
                .collect();
            let nulls = NullBuffer::from(all).slice(offset, values);
            let def: Vec<i16> = (0..n).map(|_| rng.index(3) as i16).collect();

            let (want_def, want_kept) = naive(&def, &idx, &valid, 3);
            let (mut d, mut i) = (def.clone(), idx.clone());
            mark_nulls(&mut d, &mut i, Some(&nulls), 3);
            assert_eq!(d, want_def, "case {case}");
            let got: Vec<usize> = match select(i) {
                Selection::Range(first) => (first..first + want_kept.len()).collect(),
                Selection::Indices(v) => v,
            };
            assert_eq!(got, want_kept, "case {case}");

            // No null buffer: every open entry is present.
            let (mut d, mut i) = (def.clone(), idx.clone());
            mark_nulls(&mut d, &mut i, None, 3);
            assert_eq!(
                d,
                naive(&def, &idx, &vec![true; values], 3).0,
                "case {case}"
            );
        }
    }

    /// `n` entries (1 to 300) from `offset` (0 to 69) of a validity
    /// bitmap, each null with chance `null_pct` %, so that a bitmap need
    /// not start at a word.
    fn random_validity(rng: &mut pq_testkit::Rng, null_pct: u64) -> (usize, usize, Vec<bool>) {
        let n = 1 + rng.index(300);
        let offset = rng.index(70);
        let valid = (0..offset + n).map(|_| !rng.chance(null_pct)).collect();
        (n, offset, valid)
    }

    /// The levels and selection read off the bitmap a word at a time are
    /// those of one entry at a time: nulls dense and sparse, bitmaps not
    /// starting at a word, runs of values alone and between nulls.
    #[test]
    fn flat_levels_are_each_entrys() {
        let mut rng = pq_testkit::Rng(0x0f1a_7e5e_1ec7_0001);
        for case in 0..300 {
            let (n, offset, mut valid) = random_validity(&mut rng, [1, 10, 50, 90, 99][case % 5]);
            if case % 7 == 0 {
                // One run of values, nulls only around it.
                let (a, b) = (rng.index(n), rng.index(n));
                for (i, v) in valid[offset..].iter_mut().enumerate() {
                    *v = (a.min(b)..=a.max(b)).contains(&i);
                }
            }
            let nulls = NullBuffer::from(valid.clone()).slice(offset, n);
            let want: Vec<usize> = (0..n).filter(|&i| valid[offset + i]).collect();
            let (levels, selection) = flat_levels(&nulls, 1, 2);
            let want_levels: Vec<i16> = (0..n).map(|i| 1 + i16::from(valid[offset + i])).collect();
            assert_eq!(levels, want_levels, "case {case}");
            let got: Vec<usize> = match selection {
                Selection::Range(f) => (f..f + want.len()).collect(),
                Selection::Indices(ix) => ix,
            };
            assert_eq!(got, want, "case {case}");
        }
    }

    fn parts(ctx: Ctx) -> (Vec<i16>, Option<Vec<i16>>, Vec<usize>) {
        ctx.materialise(-1)
    }

    #[test]
    fn masked_entries_expand_as_the_entries_they_stand_for() {
        let mut rng = pq_testkit::Rng(0x51_7cc1_b727_220a);
        for case in 0..200 {
            let (n, offset, valid) = random_validity(&mut rng, [1, 10, 50, 90][case % 4]);
            let nulls = NullBuffer::from(valid).slice(offset, n);
            // List offsets: empty lists among them, and lists under nulls
            // that hold elements.
            let mut offs = vec![rng.index(5)];
            for _ in 0..n {
                let last = *offs.last().unwrap();
                offs.push(last + if rng.chance(20) { 0 } else { rng.index(6) });
            }
            let range = |i: usize| (offs[i], offs[i + 1]);
            let (def, present) = ((case % 3) as i16, (case % 3) as i16 + 1);

            let masked = Ctx::Masked {
                valid: nulls.clone(),
                null: def,
                open: present,
            };
            // What the walk gave before the mask: every entry spelled out.
            let (mut d, _, mut idx) = Ctx::Identity(n).materialise(def);
            mark_nulls(&mut d, &mut idx, Some(&nulls), present);
            let entries = Ctx::Entries {
                def: d,
                rep: None,
                idx,
            };
            assert_eq!(parts(masked.clone()), parts(entries.clone()), "case {case}");
            assert_eq!(
                parts(repeat(masked, present, 0, range)),
                parts(repeat(entries, present, 0, range)),
                "case {case}"
            );
        }
    }
}
