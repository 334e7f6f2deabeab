//! Field names and column paths of a schema tree, sharing one buffer of
//! names so that building the tree allocates nothing per node for them.

use std::sync::Arc;

use crate::small_list::SmallList;

/// A field name of a schema tree.
///
/// The names of a schema share one buffer (see [`ColumnPath`]), so the tree
/// allocates nothing per node for them. It dereferences to `str`, prints as
/// the name and compares equal to a `str` or `String`.
///
/// ```
/// use pq_format::FieldName;
/// let n = FieldName::from("id");
/// assert_eq!(n, "id");
/// assert_eq!(n.len(), 2);
/// assert_eq!(format!("{n} {n:?}"), "id \"id\"");
/// ```
#[derive(Clone)]
pub struct FieldName {
    pub(crate) names: Arc<str>,
    pub(crate) from: usize,
    pub(crate) to: usize,
}

impl FieldName {
    /// The name.
    pub fn as_str(&self) -> &str {
        // The range is built from the buffer itself, on name boundaries.
        self.names.get(self.from..self.to).unwrap_or_default()
    }
}

impl From<&str> for FieldName {
    fn from(name: &str) -> Self {
        Self {
            names: Arc::from(name),
            from: 0,
            to: name.len(),
        }
    }
}

impl From<String> for FieldName {
    fn from(name: String) -> Self {
        let to = name.len();
        Self {
            names: Arc::from(name),
            from: 0,
            to,
        }
    }
}

impl From<&FieldName> for String {
    fn from(name: &FieldName) -> Self {
        name.as_str().to_owned()
    }
}

impl std::ops::Deref for FieldName {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for FieldName {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for FieldName {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Display for FieldName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Debug for FieldName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq for FieldName {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for FieldName {}

impl std::hash::Hash for FieldName {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // As `str` hashes, which `Borrow<str>` requires.
        self.as_str().hash(state);
    }
}

impl PartialEq<str> for FieldName {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for FieldName {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for FieldName {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

/// A column's path: the field names from below the root down to the leaf.
///
/// The paths of a schema share one buffer holding every field name, so
/// building the schema allocates nothing per column for them (a footer of
/// many narrow columns otherwise spends much of its time allocating names).
/// It reads like a list of `&str` and compares equal to one.
///
/// ```
/// use pq_format::ColumnPath;
/// let p = ColumnPath::from(&["a", "b.c"][..]);
/// assert_eq!(p.len(), 2);
/// assert_eq!(&p[1], "b.c");
/// assert_eq!(p.join("/"), "a/b.c");
/// assert_eq!(p, ["a", "b.c"]);
/// assert_eq!(p.iter().collect::<Vec<_>>(), ["a", "b.c"]);
/// assert_eq!(p.to_vec(), vec!["a".to_string(), "b.c".to_string()]);
/// ```
#[derive(Clone)]
pub struct ColumnPath {
    /// Names of (at least) this path's fields.
    pub(crate) names: Arc<str>,
    /// Byte ranges of this path's fields in `names`, root side first.
    pub(crate) ranges: SmallList<(usize, usize)>,
}

impl ColumnPath {
    /// Number of fields.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Whether the path has no field.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The field name at `index`.
    pub fn get(&self, index: usize) -> Option<&str> {
        let &(from, to) = self.ranges.get(index)?;
        self.names.get(from..to)
    }

    /// The first field name (a top-level field).
    pub fn first(&self) -> Option<&str> {
        self.get(0)
    }

    /// The last field name (the leaf).
    pub fn last(&self) -> Option<&str> {
        self.get(self.len().checked_sub(1)?)
    }

    /// The field names, root side first.
    pub fn iter(&self) -> ColumnPathIter<'_> {
        ColumnPathIter {
            names: &self.names,
            ranges: self.ranges.iter(),
        }
    }

    /// The names joined by `sep`.
    pub fn join(&self, sep: &str) -> String {
        let mut out = String::with_capacity(
            self.ranges.iter().map(|(a, b)| b - a).sum::<usize>()
                + sep.len() * self.len().saturating_sub(1),
        );
        for (i, name) in self.iter().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            out.push_str(name);
        }
        out
    }

    /// The names as owned strings.
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_owned).collect()
    }
}

impl<S: AsRef<str>> From<&[S]> for ColumnPath {
    fn from(names: &[S]) -> Self {
        let mut buf = String::new();
        let mut ranges = SmallList::new();
        for n in names {
            let from = buf.len();
            buf.push_str(n.as_ref());
            ranges.push((from, buf.len()));
        }
        Self {
            names: Arc::from(buf),
            ranges,
        }
    }
}

impl<S: AsRef<str>, const N: usize> From<[S; N]> for ColumnPath {
    fn from(names: [S; N]) -> Self {
        Self::from(&names[..])
    }
}

/// One name: the path of a top-level field. A name is never split at its
/// dots (a field name may hold one), as arrow-rs's `ColumnPath` does.
impl From<&str> for ColumnPath {
    fn from(name: &str) -> Self {
        Self::from(&[name][..])
    }
}

/// One name, as `From<&str>`.
impl From<String> for ColumnPath {
    fn from(name: String) -> Self {
        Self::from(name.as_str())
    }
}

impl From<Vec<String>> for ColumnPath {
    fn from(names: Vec<String>) -> Self {
        Self::from(names.as_slice())
    }
}

impl std::ops::Index<usize> for ColumnPath {
    type Output = str;

    /// The field name at `index`; panics when out of range, like a slice.
    fn index(&self, index: usize) -> &str {
        #[allow(clippy::expect_used)]
        self.get(index).expect("ColumnPath index out of range")
    }
}

impl std::fmt::Debug for ColumnPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for ColumnPath {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for ColumnPath {}

impl std::hash::Hash for ColumnPath {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.len().hash(state);
        for name in self {
            name.hash(state);
        }
    }
}

impl<S: AsRef<str>> PartialEq<[S]> for ColumnPath {
    fn eq(&self, other: &[S]) -> bool {
        self.iter().eq(other.iter().map(AsRef::as_ref))
    }
}

impl<S: AsRef<str>, const N: usize> PartialEq<[S; N]> for ColumnPath {
    fn eq(&self, other: &[S; N]) -> bool {
        *self == other[..]
    }
}

impl<S: AsRef<str>> PartialEq<&[S]> for ColumnPath {
    fn eq(&self, other: &&[S]) -> bool {
        *self == **other
    }
}

impl<S: AsRef<str>> PartialEq<Vec<S>> for ColumnPath {
    fn eq(&self, other: &Vec<S>) -> bool {
        *self == other[..]
    }
}

impl<'a> IntoIterator for &'a ColumnPath {
    type Item = &'a str;
    type IntoIter = ColumnPathIter<'a>;

    fn into_iter(self) -> ColumnPathIter<'a> {
        self.iter()
    }
}

/// The field names of a [`ColumnPath`].
#[derive(Debug, Clone)]
pub struct ColumnPathIter<'a> {
    names: &'a str,
    ranges: std::slice::Iter<'a, (usize, usize)>,
}

impl<'a> Iterator for ColumnPathIter<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let &(from, to) = self.ranges.next()?;
        // Ranges are built from the buffer itself, on name boundaries.
        Some(self.names.get(from..to).unwrap_or_default())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.ranges.size_hint()
    }
}

impl DoubleEndedIterator for ColumnPathIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let &(from, to) = self.ranges.next_back()?;
        Some(self.names.get(from..to).unwrap_or_default())
    }
}

impl ExactSizeIterator for ColumnPathIter<'_> {}
