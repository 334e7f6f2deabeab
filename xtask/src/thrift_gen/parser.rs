//! A small parser for the Thrift IDL subset used by `format/parquet.thrift`:
//! `namespace`, `enum`, `struct`, `union`, field ids, `required`/`optional`,
//! base types, `list<T>`, named types and constant defaults.

/// A Thrift type reference.
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    Bool,
    Byte,
    I16,
    I32,
    I64,
    Double,
    String,
    Binary,
    List(Box<Ty>),
    Named(String),
}

/// A constant default value.
#[derive(Debug, Clone, PartialEq)]
pub enum Const {
    Int(i64),
    Double(String),
    Bool(bool),
    Str(String),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Req {
    Required,
    Optional,
    Default,
}

#[derive(Debug, Clone)]
pub struct Field {
    pub id: i16,
    pub req: Req,
    pub ty: Ty,
    pub name: String,
    pub default: Option<Const>,
    pub doc: Vec<String>,
    /// `(pq.boxed = "true")`: an optional struct field that is large and
    /// rare, stored as `Option<Box<T>>` to keep its parent small.
    pub boxed: bool,
}

#[derive(Debug, Clone)]
pub struct EnumDef {
    pub name: String,
    pub doc: Vec<String>,
    pub values: Vec<(String, i32, Vec<String>)>,
}

#[derive(Debug, Clone)]
pub struct StructDef {
    pub name: String,
    pub doc: Vec<String>,
    pub is_union: bool,
    pub fields: Vec<Field>,
}

#[derive(Debug, Clone)]
pub enum Def {
    Enum(EnumDef),
    Struct(StructDef),
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Int(i64),
    Float(String),
    Str(String),
    Punct(char),
    /// A `//` or `#` comment line (text after the marker, trimmed).
    Comment(String),
    /// A blank line, which detaches comments from what follows.
    Blank,
}

fn lex(src: &str) -> Result<Vec<(Tok, usize)>, String> {
    let chars: Vec<char> = src.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    let mut line = 1;
    let mut line_has_tok = false;
    while let Some(&c) = chars.get(i) {
        if c == '\n' {
            if !line_has_tok {
                toks.push((Tok::Blank, line));
            }
            line += 1;
            line_has_tok = false;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let at = |k: usize| chars.get(k).copied().unwrap_or('\0');
        if c == '#' || (c == '/' && at(i + 1) == '/') {
            let start = if c == '#' { i + 1 } else { i + 2 };
            let mut j = start;
            while j < chars.len() && chars[j] != '\n' {
                j += 1;
            }
            let text: String = chars[start..j].iter().collect();
            // A trailing comment documents nothing we keep.
            if !line_has_tok {
                toks.push((Tok::Comment(text.trim().to_string()), line));
            }
            line_has_tok = true;
            i = j;
            continue;
        }
        if c == '/' && at(i + 1) == '*' {
            let mut j = i + 2;
            while j < chars.len() && !(chars[j] == '*' && at(j + 1) == '/') {
                if chars[j] == '\n' {
                    line += 1;
                }
                j += 1;
            }
            i = j + 2;
            line_has_tok = true;
            continue;
        }
        line_has_tok = true;
        if c.is_ascii_alphabetic() || c == '_' {
            let mut j = i;
            while j < chars.len()
                && (chars[j].is_ascii_alphanumeric() || chars[j] == '_' || chars[j] == '.')
            {
                j += 1;
            }
            toks.push((Tok::Ident(chars[i..j].iter().collect()), line));
            i = j;
        } else if c.is_ascii_digit() || ((c == '-' || c == '+') && at(i + 1).is_ascii_digit()) {
            let mut j = i + 1;
            let mut float = false;
            while j < chars.len()
                && (chars[j].is_ascii_digit() || matches!(chars[j], '.' | 'e' | 'E' | 'x' | 'X'))
            {
                float |= matches!(chars[j], '.' | 'e' | 'E');
                j += 1;
            }
            let text: String = chars[i..j].iter().collect();
            if float {
                toks.push((Tok::Float(text), line));
            } else {
                let v = if let Some(hex) = text.strip_prefix("0x") {
                    i64::from_str_radix(hex, 16)
                } else {
                    text.parse::<i64>()
                }
                .map_err(|e| format!("line {line}: bad integer {text}: {e}"))?;
                toks.push((Tok::Int(v), line));
            }
            i = j;
        } else if c == '"' || c == '\'' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != c {
                j += 1;
            }
            if j >= chars.len() {
                return Err(format!("line {line}: unterminated string"));
            }
            toks.push((Tok::Str(chars[i + 1..j].iter().collect()), line));
            i = j + 1;
        } else if "{}<>:;,=()[]".contains(c) {
            toks.push((Tok::Punct(c), line));
            i += 1;
        } else {
            return Err(format!("line {line}: unexpected character {c:?}"));
        }
    }
    Ok(toks)
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    pending_doc: Vec<String>,
}

impl Parser {
    /// The next significant token, collecting comments into `pending_doc`.
    fn peek(&mut self) -> Option<Tok> {
        loop {
            match self.toks.get(self.pos) {
                Some((Tok::Comment(c), _)) => {
                    self.pending_doc.push(c.clone());
                    self.pos += 1;
                }
                Some((Tok::Blank, _)) => {
                    self.pending_doc.clear();
                    self.pos += 1;
                }
                Some((t, _)) => return Some(t.clone()),
                None => return None,
            }
        }
    }

    fn line(&self) -> usize {
        self.toks
            .get(self.pos)
            .or(self.toks.last())
            .map(|t| t.1)
            .unwrap_or(0)
    }

    fn next(&mut self) -> Result<Tok, String> {
        let t = self
            .peek()
            .ok_or_else(|| "unexpected end of IDL".to_string())?;
        self.pos += 1;
        Ok(t)
    }

    fn take_doc(&mut self) -> Vec<String> {
        std::mem::take(&mut self.pending_doc)
    }

    fn err<T>(&self, msg: impl std::fmt::Display) -> Result<T, String> {
        Err(format!("parquet.thrift line {}: {msg}", self.line()))
    }

    fn ident(&mut self) -> Result<String, String> {
        match self.next()? {
            Tok::Ident(s) => Ok(s),
            t => self.err(format!("expected identifier, found {t:?}")),
        }
    }

    fn punct(&mut self, c: char) -> Result<(), String> {
        match self.next()? {
            Tok::Punct(p) if p == c => Ok(()),
            t => self.err(format!("expected {c:?}, found {t:?}")),
        }
    }

    fn eat_sep(&mut self) {
        if let Some(Tok::Punct(';' | ',')) = self.peek() {
            self.pos += 1;
        }
    }

    fn ty(&mut self) -> Result<Ty, String> {
        let name = self.ident()?;
        Ok(match name.as_str() {
            "bool" => Ty::Bool,
            "byte" | "i8" => Ty::Byte,
            "i16" => Ty::I16,
            "i32" => Ty::I32,
            "i64" => Ty::I64,
            "double" => Ty::Double,
            "string" => Ty::String,
            "binary" => Ty::Binary,
            "list" => {
                self.punct('<')?;
                let inner = self.ty()?;
                self.punct('>')?;
                Ty::List(Box::new(inner))
            }
            "set" | "map" => return self.err(format!("{name} is not supported by the generator")),
            _ => Ty::Named(name),
        })
    }

    fn constant(&mut self) -> Result<Const, String> {
        Ok(match self.next()? {
            Tok::Int(v) => Const::Int(v),
            Tok::Float(v) => Const::Double(v),
            Tok::Str(s) => Const::Str(s),
            Tok::Ident(s) if s == "true" => Const::Bool(true),
            Tok::Ident(s) if s == "false" => Const::Bool(false),
            t => return self.err(format!("unsupported default value {t:?}")),
        })
    }

    fn enum_def(&mut self, doc: Vec<String>) -> Result<EnumDef, String> {
        let name = self.ident()?;
        self.punct('{')?;
        self.take_doc();
        let mut values = Vec::new();
        let mut next_value = 0i64;
        loop {
            if let Some(Tok::Punct('}')) = self.peek() {
                self.pos += 1;
                break;
            }
            let vdoc = self.take_doc();
            let vname = self.ident()?;
            if let Some(Tok::Punct('=')) = self.peek() {
                self.pos += 1;
                match self.next()? {
                    Tok::Int(v) => next_value = v,
                    t => return self.err(format!("expected enum value, found {t:?}")),
                }
            }
            let v = i32::try_from(next_value)
                .map_err(|_| format!("enum value {next_value} out of range"))?;
            values.push((vname, v, vdoc));
            next_value += 1;
            self.eat_sep();
        }
        Ok(EnumDef { name, doc, values })
    }

    fn struct_def(&mut self, doc: Vec<String>, is_union: bool) -> Result<StructDef, String> {
        let name = self.ident()?;
        self.punct('{')?;
        self.take_doc();
        let mut fields: Vec<Field> = Vec::new();
        loop {
            if let Some(Tok::Punct('}')) = self.peek() {
                self.pos += 1;
                break;
            }
            let fdoc = self.take_doc();
            let id = match self.next()? {
                Tok::Int(v) => {
                    i16::try_from(v).map_err(|_| format!("field id {v} out of range"))?
                }
                t => return self.err(format!("{name}: expected field id, found {t:?}")),
            };
            if id <= 0 {
                return self.err(format!("{name}: field ids must be positive"));
            }
            self.punct(':')?;
            let req = match self.peek() {
                Some(Tok::Ident(s)) if s == "required" => {
                    self.pos += 1;
                    Req::Required
                }
                Some(Tok::Ident(s)) if s == "optional" => {
                    self.pos += 1;
                    Req::Optional
                }
                _ => Req::Default,
            };
            let ty = self.ty()?;
            let fname = self.ident()?;
            let default = if let Some(Tok::Punct('=')) = self.peek() {
                self.pos += 1;
                Some(self.constant()?)
            } else {
                None
            };
            let mut boxed = false;
            if let Some(Tok::Punct('(')) = self.peek() {
                self.pos += 1;
                loop {
                    if let Some(Tok::Punct(')')) = self.peek() {
                        self.pos += 1;
                        break;
                    }
                    let key = self.ident()?;
                    self.punct('=')?;
                    let value = match self.next()? {
                        Tok::Str(v) => v,
                        t => return self.err(format!("{name}.{fname}: annotation value {t:?}")),
                    };
                    match (key.as_str(), value.as_str()) {
                        ("pq.boxed", "true") => boxed = true,
                        _ => {
                            return self.err(format!(
                                "{name}.{fname}: unknown annotation {key} = {value:?}"
                            ));
                        }
                    }
                    self.eat_sep();
                }
            }
            self.eat_sep();
            if fields.iter().any(|f| f.id == id || f.name == fname) {
                return self.err(format!("{name}: duplicate field {id} {fname}"));
            }
            fields.push(Field {
                id,
                req,
                ty,
                name: fname,
                default,
                doc: fdoc,
                boxed,
            });
        }
        Ok(StructDef {
            name,
            doc,
            is_union,
            fields,
        })
    }
}

/// Parse the IDL into its definitions, in file order.
pub fn parse(src: &str) -> Result<Vec<Def>, String> {
    let mut p = Parser {
        toks: lex(src)?,
        pos: 0,
        pending_doc: Vec::new(),
    };
    let mut defs = Vec::new();
    while p.peek().is_some() {
        let doc = p.take_doc();
        let kw = p.ident()?;
        match kw.as_str() {
            "namespace" => {
                p.ident()?;
                p.ident()?;
            }
            "enum" => defs.push(Def::Enum(p.enum_def(doc)?)),
            "struct" => defs.push(Def::Struct(p.struct_def(doc, false)?)),
            "union" => defs.push(Def::Struct(p.struct_def(doc, true)?)),
            other => return p.err(format!("unsupported definition `{other}`")),
        }
    }
    Ok(defs)
}
