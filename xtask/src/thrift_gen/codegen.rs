//! Rust code for the parsed IDL: types plus their compact-protocol
//! `ThriftDecode`/`ThriftEncode` impls over `pq_format::compact`.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use super::parser::{Const, Def, EnumDef, Field, Req, StructDef, Ty};

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Enum,
    Struct,
    Union,
}

struct Gen<'a> {
    kinds: HashMap<&'a str, Kind>,
    /// Structs whose fields are all numbers, booleans or enums: they derive
    /// `Copy`, and lists of them are `SmallList`s.
    plain: HashSet<&'a str>,
    out: String,
}

const KEYWORDS: &[&str] = &[
    "type", "match", "ref", "move", "fn", "struct", "enum", "union", "mod", "use", "impl", "trait",
    "where", "loop", "self", "super", "crate", "in", "as", "box", "dyn", "static", "const",
];

/// `isAdjustedToUTC` → `is_adjusted_to_utc`, `type` → `type_`.
pub fn snake(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut s = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev = if i > 0 {
                chars.get(i - 1).copied()
            } else {
                None
            };
            let next = chars.get(i + 1).copied();
            let boundary = match prev {
                Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_ascii_uppercase() => next.is_some_and(|n| n.is_ascii_lowercase()),
                _ => false,
            };
            if boundary && !s.ends_with('_') {
                s.push('_');
            }
            s.push(c.to_ascii_lowercase());
        } else {
            s.push(c);
        }
    }
    if KEYWORDS.contains(&s.as_str()) {
        s.push('_');
    }
    s
}

/// `ENCRYPTION_WITH_FOOTER_KEY` → `EncryptionWithFooterKey`.
pub fn camel(name: &str) -> String {
    let mut s = String::new();
    for part in name.split('_').filter(|p| !p.is_empty()) {
        let mut cs = part.chars();
        if let Some(first) = cs.next() {
            s.push(first.to_ascii_uppercase());
            s.extend(cs.map(|c| c.to_ascii_lowercase()));
        }
    }
    s
}

fn doc(out: &mut String, lines: &[String], extra: &str) {
    for l in lines {
        if l.is_empty() {
            out.push_str("///\n");
        } else {
            let _ = writeln!(out, "/// {l}");
        }
    }
    if !extra.is_empty() {
        if !lines.is_empty() {
            out.push_str("///\n");
        }
        let _ = writeln!(out, "/// {extra}");
    }
}

impl<'a> Gen<'a> {
    fn kind(&self, name: &str) -> Result<Kind, String> {
        self.kinds
            .get(name)
            .copied()
            .ok_or_else(|| format!("unknown type {name}"))
    }

    /// Whether lists of `ty` are `SmallList`s: short lists of `Copy`
    /// values, several per column chunk, that should not allocate.
    fn is_small(&self, ty: &Ty) -> bool {
        match ty {
            Ty::Bool | Ty::Byte | Ty::I16 | Ty::I32 | Ty::I64 | Ty::Double => true,
            Ty::Named(n) => {
                self.kinds.get(n.as_str()) == Some(&Kind::Enum) || self.plain.contains(n.as_str())
            }
            Ty::String | Ty::Binary | Ty::List(_) => false,
        }
    }

    fn rust_ty(&self, ty: &Ty) -> Result<String, String> {
        Ok(match ty {
            Ty::Bool => "bool".into(),
            Ty::Byte => "i8".into(),
            Ty::I16 => "i16".into(),
            Ty::I32 => "i32".into(),
            Ty::I64 => "i64".into(),
            Ty::Double => "f64".into(),
            Ty::String => "String".into(),
            Ty::Binary => "Bytes".into(),
            Ty::List(inner) if **inner == Ty::Binary => "BinaryList".into(),
            Ty::List(inner) if **inner == Ty::String => "StringList".into(),
            Ty::List(inner) if self.is_small(inner) => {
                format!("SmallList<{}>", self.rust_ty(inner)?)
            }
            Ty::List(inner) => {
                if matches!(**inner, Ty::List(_)) {
                    return Err("nested lists are not supported".into());
                }
                format!("Vec<{}>", self.rust_ty(inner)?)
            }
            Ty::Named(n) => {
                self.kind(n)?;
                n.clone()
            }
        })
    }

    /// The wire type code (an expression) of a non-bool type.
    fn wire(&self, ty: &Ty) -> Result<&'static str, String> {
        Ok(match ty {
            Ty::Bool => "ct::BOOL_TRUE",
            Ty::Byte => "ct::BYTE",
            Ty::I16 => "ct::I16",
            Ty::I32 => "ct::I32",
            Ty::I64 => "ct::I64",
            Ty::Double => "ct::DOUBLE",
            Ty::String | Ty::Binary => "ct::BINARY",
            Ty::List(_) => "ct::LIST",
            Ty::Named(n) => match self.kind(n)? {
                Kind::Enum => "ct::I32",
                Kind::Struct | Kind::Union => "ct::STRUCT",
            },
        })
    }

    fn read_expr(&self, ty: &Ty) -> Result<String, String> {
        Ok(match ty {
            Ty::Bool => return Err("bool is read from the field header".into()),
            Ty::Byte => "r.read_i8()?".into(),
            Ty::I16 => "r.read_i16()?".into(),
            Ty::I32 => "r.read_i32()?".into(),
            Ty::I64 => "r.read_i64()?".into(),
            Ty::Double => "r.read_double()?".into(),
            Ty::String => "r.read_string()?".into(),
            Ty::Binary => "r.read_binary()?".into(),
            Ty::List(inner) if **inner == Ty::Binary => "r.read_binary_list()?".into(),
            Ty::List(inner) if **inner == Ty::String => "r.read_string_list()?".into(),
            Ty::List(inner) if self.is_small(inner) => "r.read_small_list()?".into(),
            Ty::List(inner) => format!("r.read_list::<{}>()?", self.rust_ty(inner)?),
            Ty::Named(n) => match self.kind(n)? {
                Kind::Enum => format!("{n}(r.read_i32()?)"),
                Kind::Struct | Kind::Union => format!("{n}::read_from(r)?"),
            },
        })
    }

    /// Statements writing field `id` whose value is the reference `v`.
    fn write_stmts(&self, ty: &Ty, id: i16) -> Result<String, String> {
        if *ty == Ty::Bool {
            return Ok(format!("w.write_bool_field({id}, *v, &mut last_id);"));
        }
        let value = match ty {
            Ty::Bool => String::new(),
            Ty::Byte => "w.write_i8(*v);".into(),
            Ty::I16 => "w.write_i16(*v);".into(),
            Ty::I32 => "w.write_i32(*v);".into(),
            Ty::I64 => "w.write_i64(*v);".into(),
            Ty::Double => "w.write_double(*v);".into(),
            Ty::String => "w.write_string(v);".into(),
            Ty::Binary => "w.write_binary(v);".into(),
            Ty::List(inner) if **inner == Ty::Binary => "w.write_binary_list(v);".into(),
            Ty::List(inner) if **inner == Ty::String => "w.write_string_list(v);".into(),
            Ty::List(_) => "w.write_list(v.as_slice());".into(),
            Ty::Named(n) => match self.kind(n)? {
                Kind::Enum => "w.write_i32(v.0);".into(),
                Kind::Struct | Kind::Union => "v.write_to(w);".into(),
            },
        };
        Ok(format!(
            "w.write_field_header({}, {id}, &mut last_id); {value}",
            self.wire(ty)?
        ))
    }

    fn const_expr(&self, ty: &Ty, c: &Const) -> Result<String, String> {
        Ok(match (ty, c) {
            (Ty::Bool, Const::Bool(b)) => b.to_string(),
            (Ty::Byte | Ty::I16 | Ty::I32 | Ty::I64, Const::Int(v)) => v.to_string(),
            (Ty::Double, Const::Int(v)) => format!("{v}.0"),
            (Ty::Double, Const::Double(v)) => v.clone(),
            (Ty::String, Const::Str(s)) => format!("{s:?}.to_string()"),
            (Ty::Named(n), Const::Int(v)) if self.kind(n)? == Kind::Enum => format!("{n}({v})"),
            _ => return Err(format!("unsupported default {c:?} for {ty:?}")),
        })
    }

    fn gen_enum(&mut self, e: &EnumDef) {
        let n = &e.name;
        let o = &mut self.out;
        doc(
            o,
            &e.doc,
            "An open enum: values unknown to this version are kept as they are.",
        );
        let _ = writeln!(
            o,
            "#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]\npub struct {n}(pub i32);\n\nimpl {n} {{"
        );
        for (vn, v, vdoc) in &e.values {
            doc(o, vdoc, &format!("`{vn}` = {v}."));
            let _ = writeln!(o, "pub const {vn}: {n} = {n}({v});");
        }
        let _ = writeln!(
            o,
            "/// The values this version knows.\npub const KNOWN: &'static [{n}] = &[{}];",
            e.values
                .iter()
                .map(|(vn, _, _)| format!("{n}::{vn}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let _ = writeln!(
            o,
            "/// The name of a known value, `None` for others.\npub fn name(self) -> Option<&'static str> {{ match self.0 {{"
        );
        let mut seen = std::collections::HashSet::new();
        for (vn, v, _) in &e.values {
            if seen.insert(*v) {
                let _ = writeln!(o, "{v} => Some({vn:?}),");
            }
        }
        let _ = writeln!(o, "_ => None, }} }}\n}}\n");
        let _ = writeln!(
            o,
            "impl fmt::Debug for {n} {{ fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {{ match self.name() {{ Some(s) => f.write_str(s), None => write!(f, \"{n}({{}})\", self.0) }} }} }}\n"
        );
        let _ = writeln!(
            o,
            "impl fmt::Display for {n} {{ fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {{ fmt::Debug::fmt(self, f) }} }}\n"
        );
        let _ = writeln!(
            o,
            "impl ListElement for {n} {{ const ELEM_TYPE: u8 = ct::I32; #[inline] fn read_elem(r: &mut CompactReader<'_>) -> Result<Self, DecodeError> {{ Ok({n}(r.read_i32()?)) }} #[inline] fn write_elem(&self, w: &mut CompactWriter) {{ w.write_i32(self.0) }} }}\n"
        );
    }

    fn field_rust_ty(&self, f: &Field) -> Result<String, String> {
        let t = self.rust_ty(&f.ty)?;
        if f.boxed {
            let is_struct = matches!(&f.ty, Ty::Named(n) if self.kind(n)? != Kind::Enum);
            if f.req != Req::Optional || !is_struct {
                return Err(format!(
                    "{}: only optional struct fields can be boxed",
                    f.name
                ));
            }
            return Ok(format!("Option<Box<{t}>>"));
        }
        Ok(if f.req == Req::Optional {
            format!("Option<{t}>")
        } else {
            t
        })
    }

    fn gen_struct(&mut self, s: &StructDef) -> Result<(), String> {
        let n = &s.name;
        let mut o = String::new();
        doc(&mut o, &s.doc, &format!("The Thrift struct `{n}`."));
        let copy = if self.plain.contains(n.as_str()) {
            "Copy, "
        } else {
            ""
        };
        let _ = writeln!(
            o,
            "#[derive(Debug, Clone, {copy}PartialEq, Default)]\npub struct {n} {{"
        );
        for f in &s.fields {
            let req = match f.req {
                Req::Required => "required",
                Req::Optional => "optional",
                Req::Default => "default requiredness",
            };
            let mut extra = format!("Field {} `{}`, {req}", f.id, f.name);
            if let Some(d) = &f.default {
                let _ = write!(extra, ", default {}", self.const_expr(&f.ty, d)?);
            }
            extra.push('.');
            doc(&mut o, &f.doc, &extra);
            let _ = writeln!(o, "pub {}: {},", snake(&f.name), self.field_rust_ty(f)?);
        }
        o.push_str("}\n\n");

        // Decoder: fields are written in place into `out`; a bit per
        // non-optional field records its presence.
        let _ = writeln!(
            o,
            "impl ThriftDecode for {n} {{ #[inline] fn read_from(r: &mut CompactReader<'_>) -> Result<Self, DecodeError> {{ let mut out = Self::default(); Self::read_into(r, &mut out)?; Ok(out) }}\n\
             fn read_into(r: &mut CompactReader<'_>, out: &mut Self) -> Result<(), DecodeError> {{"
        );
        let tracked: Vec<&Field> = s.fields.iter().filter(|f| f.req != Req::Optional).collect();
        if tracked.len() > 64 {
            return Err(format!("{n}: more than 64 non-optional fields"));
        }
        let bit = |f: &Field| -> Option<u64> {
            tracked.iter().position(|t| t.id == f.id).map(|i| 1u64 << i)
        };
        let needs_start = tracked
            .iter()
            .any(|f| f.req == Req::Required || f.default.is_none());
        if needs_start {
            o.push_str("let start = r.position();\n");
        }
        o.push_str("r.enter()?;\n");
        if s.fields.is_empty() {
            o.push_str("let _ = out;\n");
        }
        if !tracked.is_empty() {
            o.push_str("let mut seen = 0u64;\n");
        }
        o.push_str("let mut last_id = 0i16;\n");
        if s.fields.is_empty() {
            o.push_str(
                "while let Some((ty, _)) = r.read_field_header(&mut last_id)? { r.skip(ty)?; }\n",
            );
        } else {
            o.push_str(
                "while let Some((ty, id)) = r.read_field_header(&mut last_id)? { match id {\n",
            );
            for f in &s.fields {
                let field = snake(&f.name);
                let (guard, value) = if f.ty == Ty::Bool {
                    (
                        "ct::is_bool(ty)".to_string(),
                        "ty == ct::BOOL_TRUE".to_string(),
                    )
                } else {
                    (
                        format!("ty == {}", self.wire(&f.ty)?),
                        self.read_expr(&f.ty)?,
                    )
                };
                let nested_struct = matches!(&f.ty, Ty::Named(t) if self.kind(t)? == Kind::Struct);
                match bit(f) {
                    None if nested_struct => {
                        let _ = writeln!(
                            o,
                            "{} if {guard} => {}::read_into(r, out.{field}.insert(Default::default()){})?,",
                            f.id,
                            self.rust_ty(&f.ty)?,
                            if f.boxed { ".as_mut()" } else { "" }
                        );
                    }
                    None if f.boxed => {
                        let _ = writeln!(
                            o,
                            "{} if {guard} => out.{field} = Some(Box::new({value})),",
                            f.id
                        );
                    }
                    None => {
                        let _ = writeln!(o, "{} if {guard} => out.{field} = Some({value}),", f.id);
                    }
                    Some(b) if nested_struct => {
                        let _ = writeln!(
                            o,
                            "{} if {guard} => {{ out.{field} = Default::default(); {}::read_into(r, &mut out.{field})?; seen |= {b:#x}; }}",
                            f.id,
                            self.rust_ty(&f.ty)?
                        );
                    }
                    Some(b) => {
                        let _ = writeln!(
                            o,
                            "{} if {guard} => {{ out.{field} = {value}; seen |= {b:#x}; }}",
                            f.id
                        );
                    }
                }
            }
            o.push_str("_ => r.skip(ty)?, } }\n");
        }
        o.push_str("r.leave();\n");
        for f in &tracked {
            let field = snake(&f.name);
            let b = bit(f).unwrap_or(0);
            match (&f.req, &f.default) {
                // A default only fills fields of default requiredness:
                // required fields must be on the wire, as Thrift reads them.
                (Req::Default, Some(d)) => {
                    let value = self.const_expr(&f.ty, d)?;
                    let _ = writeln!(o, "if seen & {b:#x} == 0 {{ out.{field} = {value}; }}");
                }
                _ => {
                    let _ = writeln!(
                        o,
                        "if seen & {b:#x} == 0 {{ return Err(r.missing_field(start, {n:?}, {:?})); }}",
                        f.name
                    );
                }
            }
        }
        o.push_str("Ok(()) } }\n\n");

        // Encoder.
        let _ = writeln!(
            o,
            "impl ThriftEncode for {n} {{ fn write_to(&self, w: &mut CompactWriter) {{"
        );
        if !s.fields.is_empty() {
            o.push_str("let mut last_id = 0i16;\n");
        }
        for f in &s.fields {
            let stmts = self.write_stmts(&f.ty, f.id)?;
            let field = snake(&f.name);
            if f.req == Req::Optional {
                let _ = writeln!(o, "if let Some(v) = &self.{field} {{ {stmts} }}");
            } else {
                let _ = writeln!(o, "{{ let v = &self.{field}; {stmts} }}");
            }
        }
        o.push_str("w.write_stop(); } }\n\n");
        self.list_elem(&mut o, n, true);
        self.out.push_str(&o);
        Ok(())
    }

    fn list_elem(&self, o: &mut String, n: &str, in_place: bool) {
        let into = if in_place {
            "#[inline] fn read_elem_into(r: &mut CompactReader<'_>, v: &mut Vec<Self>) -> Result<(), DecodeError> { v.push(Self::default()); match v.last_mut() { Some(last) => Self::read_into(r, last), None => Ok(()) } }"
        } else {
            ""
        };
        let _ = writeln!(
            o,
            "impl ListElement for {n} {{ const ELEM_TYPE: u8 = ct::STRUCT; #[inline] fn read_elem(r: &mut CompactReader<'_>) -> Result<Self, DecodeError> {{ Self::read_from(r) }} {into} #[inline] fn write_elem(&self, w: &mut CompactWriter) {{ self.write_to(w) }} }}\n"
        );
    }

    fn gen_union(&mut self, s: &StructDef) -> Result<(), String> {
        let n = &s.name;
        let mut o = String::new();
        doc(
            &mut o,
            &s.doc,
            &format!("The Thrift union `{n}`: exactly one field is set."),
        );
        let _ = writeln!(o, "#[derive(Debug, Clone, PartialEq)]\npub enum {n} {{");
        for f in &s.fields {
            doc(&mut o, &f.doc, &format!("Field {} `{}`.", f.id, f.name));
            let _ = writeln!(o, "{}({}),", camel(&f.name), self.rust_ty(&f.ty)?);
        }
        o.push_str(
            "/// A field this version does not know (from a newer writer), by field id; its value is skipped.\nUnrecognized(i16),\n}\n\n",
        );
        let first = s
            .fields
            .first()
            .ok_or_else(|| format!("union {n} has no fields"))?;
        let _ = writeln!(
            o,
            "impl Default for {n} {{ fn default() -> Self {{ {n}::{}(Default::default()) }} }}\n",
            camel(&first.name)
        );

        let _ = writeln!(
            o,
            "impl ThriftDecode for {n} {{ fn read_from(r: &mut CompactReader<'_>) -> Result<Self, DecodeError> {{ let start = r.position(); r.enter()?; let mut value: Option<{n}> = None; let mut last_id = 0i16;"
        );
        o.push_str("while let Some((ty, id)) = r.read_field_header(&mut last_id)? { match id {\n");
        for f in &s.fields {
            let v = camel(&f.name);
            if f.ty == Ty::Bool {
                let _ = writeln!(
                    o,
                    "{} if ct::is_bool(ty) => value = Some({n}::{v}(ty == ct::BOOL_TRUE)),",
                    f.id
                );
            } else {
                let _ = writeln!(
                    o,
                    "{} if ty == {} => value = Some({n}::{v}({})),",
                    f.id,
                    self.wire(&f.ty)?,
                    self.read_expr(&f.ty)?
                );
            }
        }
        // A known field id of another wire type is skipped like an unknown
        // field, but is not kept as `Unrecognized`: written back under its
        // known id it would read as that field, with nothing in it.
        let known: Vec<String> = s.fields.iter().map(|f| f.id.to_string()).collect();
        let _ = writeln!(
            o,
            "_ => {{ r.skip(ty)?; if value.is_none() && !matches!(id, {}) {{ value = Some({n}::Unrecognized(id)); }} }} }} }}",
            known.join(" | ")
        );
        let _ = writeln!(
            o,
            "r.leave(); match value {{ Some(v) => Ok(v), None => Err(r.empty_union(start, {n:?})) }} }} }}\n"
        );

        let _ = writeln!(
            o,
            "impl ThriftEncode for {n} {{ fn write_to(&self, w: &mut CompactWriter) {{ let mut last_id = 0i16; match self {{"
        );
        for f in &s.fields {
            let _ = writeln!(
                o,
                "{n}::{}(v) => {{ {} }}",
                camel(&f.name),
                self.write_stmts(&f.ty, f.id)?
            );
        }
        o.push_str(
            "Self::Unrecognized(id) => { w.write_field_header(ct::STRUCT, *id, &mut last_id); w.write_stop(); }\n",
        );
        o.push_str("} w.write_stop(); } }\n\n");
        self.list_elem(&mut o, n, false);
        self.out.push_str(&o);
        Ok(())
    }
}

/// Generate the (unformatted) Rust module for `defs`.
pub fn generate(defs: &[Def]) -> Result<String, String> {
    let mut kinds = HashMap::new();
    for d in defs {
        let (name, kind) = match d {
            Def::Enum(e) => (e.name.as_str(), Kind::Enum),
            Def::Struct(s) if s.is_union => (s.name.as_str(), Kind::Union),
            Def::Struct(s) => (s.name.as_str(), Kind::Struct),
        };
        if kinds.insert(name, kind).is_some() {
            return Err(format!("duplicate definition {name}"));
        }
    }
    let plain = defs
        .iter()
        .filter_map(|d| match d {
            Def::Struct(s) if !s.is_union => Some(s),
            _ => None,
        })
        .filter(|s| {
            s.fields.iter().all(|f| match &f.ty {
                Ty::Bool | Ty::Byte | Ty::I16 | Ty::I32 | Ty::I64 | Ty::Double => true,
                Ty::Named(n) => kinds.get(n.as_str()) == Some(&Kind::Enum),
                _ => false,
            })
        })
        .map(|s| s.name.as_str())
        .collect();
    let mut g = Gen {
        kinds,
        plain,
        out: String::new(),
    };
    g.out.push_str(
        "// @generated by `cargo xtask gen` from `format/parquet.thrift`. Do not edit by hand.\n\n\
         //! The Parquet Thrift types with their compact-protocol decoders and encoders,\n\
         //! generated from `format/parquet.thrift`.\n\n\
         use std::fmt;\n\n\
         use bytes::Bytes;\n\n\
         use crate::compact::{ct, BinaryList, CompactReader, CompactWriter, DecodeError, ListElement, ThriftDecode, ThriftEncode};\n\
         use crate::{SmallList, StringList};\n\n",
    );
    for d in defs {
        match d {
            Def::Enum(e) => g.gen_enum(e),
            Def::Struct(s) if s.is_union => g.gen_union(s)?,
            Def::Struct(s) => g.gen_struct(s)?,
        }
    }
    Ok(g.out)
}
