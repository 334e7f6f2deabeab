//! [`StringList`]: a Thrift `list<string>` kept as its encoded bytes.

use bytes::Bytes;

use crate::Limits;
use crate::compact::{CompactReader, CompactWriter};

/// A Thrift `list<string>` (such as `ColumnMetaData::path_in_schema`), kept
/// as the list's encoded elements instead of one `String` per element.
///
/// Decoding from [`Bytes`] takes a zero-copy slice of the input and checks
/// every element (length and UTF-8) once; it allocates nothing. A footer has
/// one such list per column chunk, so this saves two allocations per chunk.
/// Elements are read back on demand: [`StringList::get`] walks the list,
/// which is fine for the short lists the format uses.
///
/// ```
/// use pq_format::StringList;
/// let path = StringList::from_values(["a", "b"]);
/// assert_eq!(path.len(), 2);
/// assert_eq!(path.get(1), Some("b"));
/// assert_eq!(path.join("."), "a.b");
/// assert_eq!(path, StringList::from(vec!["a".to_string(), "b".to_string()]));
/// ```
#[derive(Clone, Default)]
pub struct StringList {
    /// The elements as on the wire: each a ULEB128 length then that many
    /// UTF-8 bytes. Only built by [`StringList::from_values`] or by the
    /// decoder after checking each element, so reading it back never fails.
    raw: Bytes,
    len: usize,
}

impl StringList {
    /// A list of the given values.
    pub fn from_values<I>(values: I) -> Self
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let mut w = CompactWriter::new();
        let mut len = 0;
        for v in values {
            w.write_string(v.as_ref());
            len += 1;
        }
        Self {
            raw: Bytes::from(w.into_inner()),
            len,
        }
    }

    /// A list over `raw`, already checked by the decoder to hold `len`
    /// well-formed elements.
    pub(crate) fn from_checked(raw: Bytes, len: usize) -> Self {
        Self { raw, len }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Value `i`.
    pub fn get(&self, i: usize) -> Option<&str> {
        self.iter().nth(i)
    }

    /// The values in order.
    pub fn iter(&self) -> StringListIter<'_> {
        StringListIter {
            raw: &self.raw,
            left: self.len,
        }
    }

    /// The values joined with `sep` (e.g. a dotted column path).
    pub fn join(&self, sep: &str) -> String {
        let mut out = String::with_capacity(self.raw.len());
        for (i, s) in self.iter().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            out.push_str(s);
        }
        out
    }

    /// The values as owned strings.
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_owned).collect()
    }
}

/// The iterator of [`StringList::iter`].
#[derive(Clone, Debug)]
pub struct StringListIter<'a> {
    raw: &'a [u8],
    left: usize,
}

impl<'a> Iterator for StringListIter<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.left == 0 {
            return None;
        }
        // The elements were checked against the decoder's limits already.
        let limits = Limits {
            max_string_len: usize::MAX,
            ..Limits::default()
        };
        let mut r = CompactReader::with_limits(self.raw, &limits);
        let s = std::str::from_utf8(r.read_binary_slice().ok()?).ok()?;
        self.raw = self.raw.get(r.position()..)?;
        self.left -= 1;
        Some(s)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<'a> IntoIterator for &'a StringList {
    type Item = &'a str;
    type IntoIter = StringListIter<'a>;
    fn into_iter(self) -> StringListIter<'a> {
        self.iter()
    }
}

impl PartialEq for StringList {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl Eq for StringList {}

impl std::fmt::Debug for StringList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<S: AsRef<str>> FromIterator<S> for StringList {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        Self::from_values(iter)
    }
}

impl From<Vec<String>> for StringList {
    fn from(v: Vec<String>) -> Self {
        Self::from_values(v)
    }
}

impl From<&[String]> for StringList {
    fn from(v: &[String]) -> Self {
        Self::from_values(v)
    }
}

impl From<&[&str]> for StringList {
    fn from(v: &[&str]) -> Self {
        Self::from_values(v)
    }
}
