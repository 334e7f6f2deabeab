//! Pretty-printed JSON written straight to the output as it is produced.
//!
//! A footer may hold millions of key-value entries or column chunks; a
//! document tree of them costs hundreds of bytes per entry, far more than
//! the footer itself. This writer keeps only the nesting, so the memory of
//! `pq meta --json` is the decoded footer's and no more. The layout is
//! serde_json's pretty one: two spaces of indent, `"key": value`, and `[]` or
//! `{}` for empty containers.

use std::fmt::Display;
use std::io::{self, Write};

/// Writes one JSON document to `out`, value by value.
pub struct JsonWriter<W: Write> {
    out: W,
    /// For each open container, whether it has an item yet.
    open: Vec<bool>,
    /// A key was just written: the next value follows it on the same line.
    after_key: bool,
}

impl<W: Write> JsonWriter<W> {
    /// A writer of one document on `out`.
    pub fn new(out: W) -> Self {
        JsonWriter {
            out,
            open: Vec::new(),
            after_key: false,
        }
    }

    /// The separator and indent before the next item of the open container.
    fn item(&mut self) -> io::Result<()> {
        if self.after_key {
            self.after_key = false;
            return Ok(());
        }
        let depth = self.open.len();
        if let Some(has_items) = self.open.last_mut() {
            if *has_items {
                self.out.write_all(b",")?;
            }
            *has_items = true;
            self.out.write_all(b"\n")?;
            self.indent(depth)?;
        }
        Ok(())
    }

    fn indent(&mut self, depth: usize) -> io::Result<()> {
        for _ in 0..depth {
            self.out.write_all(b"  ")?;
        }
        Ok(())
    }

    fn begin(&mut self, bracket: &[u8]) -> io::Result<()> {
        self.item()?;
        self.out.write_all(bracket)?;
        self.open.push(false);
        Ok(())
    }

    fn end(&mut self, bracket: &[u8]) -> io::Result<()> {
        if self.open.pop() == Some(true) {
            self.out.write_all(b"\n")?;
            self.indent(self.open.len())?;
        }
        self.out.write_all(bracket)
    }

    /// Opens an object.
    pub fn begin_object(&mut self) -> io::Result<()> {
        self.begin(b"{")
    }

    /// Closes the innermost object.
    pub fn end_object(&mut self) -> io::Result<()> {
        self.end(b"}")
    }

    /// Opens an array.
    pub fn begin_array(&mut self) -> io::Result<()> {
        self.begin(b"[")
    }

    /// Closes the innermost array.
    pub fn end_array(&mut self) -> io::Result<()> {
        self.end(b"]")
    }

    /// The key of the next member of the open object.
    pub fn key(&mut self, key: &str) -> io::Result<()> {
        self.string(key)?;
        self.out.write_all(b": ")?;
        self.after_key = true;
        Ok(())
    }

    /// A string value, escaped.
    pub fn string(&mut self, s: &str) -> io::Result<()> {
        self.item()?;
        serde_json::to_writer(&mut self.out, s).map_err(io::Error::from)
    }

    /// A number (or `true`/`false`), as its `Display` text.
    pub fn number(&mut self, n: impl Display) -> io::Result<()> {
        self.item()?;
        write!(self.out, "{n}")
    }

    /// `null`.
    pub fn null(&mut self) -> io::Result<()> {
        self.item()?;
        self.out.write_all(b"null")
    }

    /// A string, or `null` when absent.
    pub fn opt_string(&mut self, s: Option<&str>) -> io::Result<()> {
        match s {
            Some(s) => self.string(s),
            None => self.null(),
        }
    }

    /// A number, or `null` when absent.
    pub fn opt_number(&mut self, n: Option<impl Display>) -> io::Result<()> {
        match n {
            Some(n) => self.number(n),
            None => self.null(),
        }
    }

    /// `key` and a string-or-null member.
    pub fn field_str(&mut self, key: &str, s: Option<&str>) -> io::Result<()> {
        self.key(key)?;
        self.opt_string(s)
    }

    /// `key` and a number-or-null member.
    pub fn field_num(&mut self, key: &str, n: Option<impl Display>) -> io::Result<()> {
        self.key(key)?;
        self.opt_number(n)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// The writer's layout is serde_json's pretty one, byte for byte.
    #[test]
    fn matches_serde_json_pretty() {
        let mut buf = Vec::new();
        let mut w = JsonWriter::new(&mut buf);
        w.begin_object().unwrap();
        w.field_num("n", Some(3)).unwrap();
        w.field_str("s", Some("a \"quoted\"\nline\u{1}")).unwrap();
        w.field_num("none", None::<i64>).unwrap();
        w.key("empty").unwrap();
        w.begin_array().unwrap();
        w.end_array().unwrap();
        w.key("list").unwrap();
        w.begin_array().unwrap();
        w.begin_object().unwrap();
        w.field_str("k", None).unwrap();
        w.end_object().unwrap();
        w.begin_object().unwrap();
        w.end_object().unwrap();
        w.number(-1.5).unwrap();
        w.end_array().unwrap();
        w.end_object().unwrap();
        let expected = serde_json::json!({
            "n": 3,
            "s": "a \"quoted\"\nline\u{1}",
            "none": null,
            "empty": [],
            "list": [{ "k": null }, {}, -1.5],
        });
        let parsed: serde_json::Value = serde_json::from_slice(&buf).unwrap();
        assert_eq!(parsed, expected);
        // Same text as serde_json's, once the keys are in its (sorted) order.
        let mut sorted = Vec::new();
        let mut w = JsonWriter::new(&mut sorted);
        w.begin_object().unwrap();
        w.key("a").unwrap();
        w.begin_array().unwrap();
        w.number(1).unwrap();
        w.begin_object().unwrap();
        w.field_str("b", Some("x")).unwrap();
        w.end_object().unwrap();
        w.end_array().unwrap();
        w.field_num("c", None::<i64>).unwrap();
        w.end_object().unwrap();
        let reference =
            serde_json::to_vec_pretty(&serde_json::json!({ "a": [1, { "b": "x" }], "c": null }))
                .unwrap();
        assert_eq!(
            String::from_utf8(sorted).unwrap(),
            String::from_utf8(reference).unwrap()
        );
    }
}
