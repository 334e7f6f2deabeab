//! The SQL-like text of a predicate (see [`Predicate::parse`]).
//!
//! A hand-written recursive descent over tokens: the grammar is small,
//! and errors name the position and what was expected there.

use super::literal::{parse_decimal, parse_timestamp};
use super::{CmpOp, ColumnPath, Literal, Predicate};

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    /// A bare word: a keyword or a column name.
    Word(String),
    /// A double-quoted name.
    Quoted(String),
    Str(String),
    Number(String),
    Op(CmpOp),
    LParen,
    RParen,
    Comma,
    Dot,
    Minus,
}

const KEYWORDS: &[&str] = &[
    "AND",
    "OR",
    "NOT",
    "IN",
    "IS",
    "NULL",
    "BETWEEN",
    "LIKE",
    "TRUE",
    "FALSE",
    "DATE",
    "TIMESTAMP",
];

/// Whether `word` is a keyword (a column of that name must be quoted).
pub(super) fn is_keyword(word: &str) -> bool {
    KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(word))
}

fn lex(text: &str) -> Result<Vec<(usize, Tok)>, String> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some(&(at, c)) = chars.peek() {
        let tok = match c {
            c if c.is_whitespace() => {
                chars.next();
                continue;
            }
            '(' | ')' | ',' | '.' | '-' | '=' => {
                chars.next();
                match c {
                    '(' => Tok::LParen,
                    ')' => Tok::RParen,
                    ',' => Tok::Comma,
                    '.' if chars.peek().is_some_and(|(_, d)| d.is_ascii_digit()) => {
                        let mut n = String::from(".");
                        while let Some(&(_, d)) = chars.peek() {
                            if !d.is_ascii_alphanumeric() && d != '.' {
                                break;
                            }
                            n.push(d);
                            chars.next();
                        }
                        Tok::Number(n)
                    }
                    '.' => Tok::Dot,
                    '-' => Tok::Minus,
                    _ => Tok::Op(CmpOp::Eq),
                }
            }
            '<' | '>' | '!' => {
                chars.next();
                let next = chars.peek().map(|&(_, d)| d);
                let (op, two) = match (c, next) {
                    ('<', Some('=')) => (CmpOp::LtEq, true),
                    ('<', Some('>')) => (CmpOp::NotEq, true),
                    ('<', _) => (CmpOp::Lt, false),
                    ('>', Some('=')) => (CmpOp::GtEq, true),
                    ('>', _) => (CmpOp::Gt, false),
                    ('!', Some('=')) => (CmpOp::NotEq, true),
                    _ => return Err(format!("unexpected '!' at position {at}")),
                };
                if two {
                    chars.next();
                }
                Tok::Op(op)
            }
            '\'' | '"' => {
                chars.next();
                let mut s = String::new();
                loop {
                    match chars.next() {
                        Some((_, q)) if q == c => {
                            // A doubled quote is the quote itself.
                            if chars.peek().is_some_and(|&(_, d)| d == c) {
                                chars.next();
                                s.push(c);
                            } else {
                                break;
                            }
                        }
                        Some((_, d)) => s.push(d),
                        None => {
                            let what = if c == '\'' { "string" } else { "quoted name" };
                            return Err(format!("unclosed {what} starting at position {at}"));
                        }
                    }
                }
                if c == '\'' {
                    Tok::Str(s)
                } else {
                    Tok::Quoted(s)
                }
            }
            c if c.is_ascii_digit() => {
                let mut n = String::new();
                while let Some(&(_, d)) = chars.peek() {
                    // Digits, a point, an exponent and its sign.
                    let exp_sign = (d == '+' || d == '-') && n.ends_with(['e', 'E']);
                    if !d.is_ascii_alphanumeric() && d != '.' && !exp_sign {
                        break;
                    }
                    n.push(d);
                    chars.next();
                }
                Tok::Number(n)
            }
            c if c.is_alphabetic() || c == '_' => {
                let mut w = String::new();
                while let Some(&(_, d)) = chars.peek() {
                    if !d.is_alphanumeric() && d != '_' {
                        break;
                    }
                    w.push(d);
                    chars.next();
                }
                Tok::Word(w)
            }
            other => return Err(format!("unexpected '{other}' at position {at}")),
        };
        out.push((at, tok));
    }
    Ok(out)
}

struct Parser {
    toks: Vec<(usize, Tok)>,
    pos: usize,
    len: usize,
}

pub(super) fn parse(text: &str) -> Result<Predicate, String> {
    let toks = lex(text)?;
    if toks.is_empty() {
        return Err("the predicate is empty".into());
    }
    let mut p = Parser {
        toks,
        pos: 0,
        len: text.len(),
    };
    let pred = p.or()?;
    if p.pos < p.toks.len() {
        return Err(format!(
            "expected AND, OR or the end at position {}",
            p.at()
        ));
    }
    Ok(pred)
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(_, t)| t)
    }

    fn at(&self) -> usize {
        self.toks.get(self.pos).map_or(self.len, |(a, _)| *a)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).map(|(_, t)| t.clone());
        self.pos += 1;
        t
    }

    fn keyword(&mut self, kw: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Word(w)) if w.eq_ignore_ascii_case(kw)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect_keyword(&mut self, kw: &str) -> Result<(), String> {
        if self.keyword(kw) {
            Ok(())
        } else {
            Err(format!("expected {kw} at position {}", self.at()))
        }
    }

    fn expect(&mut self, tok: Tok, what: &str) -> Result<(), String> {
        if self.peek() == Some(&tok) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!("expected {what} at position {}", self.at()))
        }
    }

    fn or(&mut self) -> Result<Predicate, String> {
        let mut left = self.and()?;
        while self.keyword("OR") {
            left = left.or(self.and()?);
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Predicate, String> {
        let mut left = self.not()?;
        while self.keyword("AND") {
            left = left.and(self.not()?);
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Predicate, String> {
        if self.keyword("NOT") {
            return Ok(self.not()?.not());
        }
        if self.peek() == Some(&Tok::LParen) {
            self.pos += 1;
            let inner = self.or()?;
            self.expect(Tok::RParen, "')'")?;
            return Ok(inner);
        }
        self.condition()
    }

    /// A literal first (`5 < x`) is turned around.
    fn condition(&mut self) -> Result<Predicate, String> {
        if self.starts_literal() {
            let value = self.literal()?;
            let Some(Tok::Op(op)) = self.next() else {
                self.pos -= 1;
                return Err(format!(
                    "expected a comparison after the value at position {}",
                    self.at()
                ));
            };
            let column = self.column()?;
            return Ok(Predicate::Compare {
                column,
                op: op.flip(),
                value,
            });
        }
        let column = self.column()?;
        if let Some(Tok::Op(op)) = self.peek().cloned() {
            self.pos += 1;
            let value = self.literal()?;
            return Ok(Predicate::Compare { column, op, value });
        }
        if self.keyword("IS") {
            let negated = self.keyword("NOT");
            self.expect_keyword("NULL")?;
            return Ok(Predicate::IsNull { column, negated });
        }
        let negated = self.keyword("NOT");
        if self.keyword("IN") {
            self.expect(Tok::LParen, "'(' after IN")?;
            let mut values = vec![self.literal()?];
            while self.peek() == Some(&Tok::Comma) {
                self.pos += 1;
                values.push(self.literal()?);
            }
            self.expect(Tok::RParen, "')' or ',' in the IN list")?;
            return Ok(Predicate::InList {
                column,
                values,
                negated,
            });
        }
        if self.keyword("BETWEEN") {
            let low = self.literal()?;
            self.expect_keyword("AND")?;
            let high = self.literal()?;
            let between = super::Column(column).between(low, high);
            return Ok(if negated { between.not() } else { between });
        }
        if self.keyword("LIKE") {
            let at = self.at();
            let Some(Tok::Str(pattern)) = self.next() else {
                return Err(format!(
                    "expected a quoted pattern after LIKE at position {at}"
                ));
            };
            return Ok(Predicate::Like {
                column,
                pattern,
                negated,
            });
        }
        Err(format!(
            "expected a comparison, IN, BETWEEN, LIKE or IS after the column at position {}",
            self.at()
        ))
    }

    fn starts_literal(&self) -> bool {
        match self.peek() {
            Some(Tok::Str(_) | Tok::Number(_) | Tok::Minus) => true,
            Some(Tok::Word(w)) => ["TRUE", "FALSE", "DATE", "TIMESTAMP"]
                .iter()
                .any(|k| k.eq_ignore_ascii_case(w)),
            _ => false,
        }
    }

    fn column(&mut self) -> Result<ColumnPath, String> {
        let at = self.at();
        let mut names = Vec::new();
        loop {
            match self.next() {
                Some(Tok::Word(w)) if !is_keyword(&w) => names.push(w),
                // A quoted name with dots is a path: `"a.b"`. A column
                // whose own name holds a dot is found as one name too
                // (see the binding), since quoting says it is a name.
                Some(Tok::Quoted(q)) => names.extend(q.split('.').map(str::to_owned)),
                _ => {
                    self.pos -= 1;
                    return Err(format!("expected a column name at position {}", self.at()));
                }
            }
            if self.peek() != Some(&Tok::Dot) {
                break;
            }
            self.pos += 1;
        }
        if names.iter().any(String::is_empty) {
            return Err(format!("empty column name at position {at}"));
        }
        Ok(ColumnPath::from(names))
    }

    fn literal(&mut self) -> Result<Literal, String> {
        let at = self.at();
        let negative = self.peek() == Some(&Tok::Minus);
        if negative {
            self.pos += 1;
        }
        let tok = self.next();
        let lit = match tok {
            Some(Tok::Number(n)) => {
                let text = if negative { format!("-{n}") } else { n.clone() };
                match parse_decimal(&text) {
                    Some(l) => l,
                    None => match text.parse::<f64>() {
                        Ok(f) if n.contains(['e', 'E']) => Literal::Float(f),
                        _ => return Err(format!("'{text}' at position {at} is not a number")),
                    },
                }
            }
            _ if negative => {
                return Err(format!("expected a number after '-' at position {at}"));
            }
            Some(Tok::Str(s)) => Literal::String(s),
            Some(Tok::Word(w)) if w.eq_ignore_ascii_case("TRUE") => Literal::Boolean(true),
            Some(Tok::Word(w)) if w.eq_ignore_ascii_case("FALSE") => Literal::Boolean(false),
            Some(Tok::Word(w)) if w.eq_ignore_ascii_case("DATE") => {
                let Some(Tok::Str(s)) = self.next() else {
                    return Err(format!("expected 'YYYY-MM-DD' after DATE at position {at}"));
                };
                match super::literal::parse_date(&s) {
                    Some(d) => Literal::Date(d),
                    None => {
                        return Err(format!("'{s}' at position {at} is not a date (YYYY-MM-DD)"));
                    }
                }
            }
            Some(Tok::Word(w)) if w.eq_ignore_ascii_case("TIMESTAMP") => {
                let Some(Tok::Str(s)) = self.next() else {
                    return Err(format!(
                        "expected a quoted timestamp after TIMESTAMP at position {at}"
                    ));
                };
                match parse_timestamp(&s) {
                    Some((nanos, utc)) => Literal::Timestamp { nanos, utc },
                    None => {
                        return Err(format!(
                            "'{s}' at position {at} is not a timestamp (YYYY-MM-DD HH:MM:SS[.fff][+HH:MM])"
                        ));
                    }
                }
            }
            Some(Tok::Word(w)) if w.eq_ignore_ascii_case("NULL") => {
                return Err(format!(
                    "a comparison with NULL at position {at} is never true: use IS NULL"
                ));
            }
            _ => return Err(format!("expected a value at position {at}")),
        };
        Ok(lit)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::col;
    use super::*;

    fn p(text: &str) -> Predicate {
        parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn precedence_and_forms() {
        assert_eq!(
            p("a = 1 OR b < 2 AND NOT c IS NULL"),
            col("a")
                .eq(1)
                .or(col("b").lt(2).and(col("c").is_null().not()))
        );
        assert_eq!(
            p("(a = 1 OR b <> 'x') and c >= -2.50").to_string(),
            "((a = 1 OR b != 'x') AND c >= -2.50)"
        );
        assert_eq!(p("5 > x"), col("x").lt(5));
        assert_eq!(p("x BETWEEN 1 AND 3"), col("x").between(1, 3));
        assert_eq!(p("x NOT BETWEEN 1 AND 3"), col("x").between(1, 3).not());
        assert_eq!(p("x not in (1,2)").to_string(), "x NOT IN (1, 2)");
        assert_eq!(p("s LIKE 'it''s%'"), col("s").like("it's%"));
        assert_eq!(p("a.b.c = TRUE"), col(["a", "b", "c"]).eq(true));
        assert_eq!(p("\"a.b\" = 1"), col(["a", "b"]).eq(1));
        assert_eq!(p("\"my col\" = 1.5e3"), col("my col").eq(1500.0));
        assert_eq!(
            p("t < TIMESTAMP '2024-01-01 00:00:00+01:00'"),
            col("t").lt(Literal::timestamp("2023-12-31 23:00:00Z").unwrap())
        );
    }

    #[test]
    fn display_parses_back() {
        for text in [
            "((a = 1 OR b != 'x''y') AND NOT c IS NOT NULL)",
            "\"select\" IN (DATE '2024-01-01', DATE '1969-12-31')",
            "x >= -1.25e-3",
            "t = TIMESTAMP '2024-05-06 07:08:09.500000000'",
        ] {
            let once = p(text);
            assert_eq!(p(&once.to_string()), once, "{text}");
        }
    }

    #[test]
    fn errors_name_the_position() {
        for (text, want) in [
            ("", "empty"),
            ("x <", "expected a value at position 3"),
            ("x = 'abc", "unclosed string starting at position 4"),
            ("x IN (1, 2", "')' or ','"),
            ("= 3", "expected a column name at position 0"),
            ("x = 1 y", "expected AND, OR or the end at position 6"),
            ("x = NULL", "use IS NULL"),
            ("x = DATE '2024-02-30'", "not a date"),
            ("x LIKE 5", "quoted pattern"),
            ("x ! 3", "unexpected '!'"),
            ("and = 1", "expected a column name"),
            ("x = 1..2", "not a number"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(want), "{text}: {e}");
        }
    }
}
