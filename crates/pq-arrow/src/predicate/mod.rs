//! Row predicates: which rows a read keeps, and what the footer's
//! statistics let the reader skip without decoding.
//!
//! A [`Predicate`] names columns by [`ColumnPath`] (a leaf of the Parquet
//! schema, nested struct fields included) and compares them with
//! [`Literal`]s. It is built in code, or parsed from a SQL-like string
//! with [`Predicate::parse`]:
//!
//! ```
//! use pq_arrow::predicate::{col, Predicate};
//! let built = col("l_shipmode").eq("AIR").and(col("l_quantity").lt(5));
//! let parsed = Predicate::parse("l_shipmode = 'AIR' AND l_quantity < 5")?;
//! assert_eq!(built, parsed);
//! # Ok::<(), pq_arrow::Error>(())
//! ```
//!
//! Before anything is read (when the reader is built) the predicate is
//! bound to the file's schema: an unknown column, a repeated (list)
//! column, or a literal that does not fit the column's Arrow type is an
//! error then. Evaluated on a batch, it follows SQL's `WHERE`: a
//! comparison with a null is unknown, and unknown rows are not kept. Comparisons follow Arrow's
//! orderings (the ones arrow-ord's kernels use), so floats order NaN as
//! IEEE 754's total order does.
//!
//! Before a row group is read, its statistics, Bloom filters, dictionaries
//! and page index say whether any of its rows can match; they only ever
//! answer "no" when that is certain (see [`PruningOptions`] and
//! [`PruningMetrics`]). The statistics may also show that every row of a
//! row group matches (bounds that settle each comparison, no nulls): that
//! row group is read as without a predicate, its rows untested. In the
//! other row groups that are read, the predicate's columns are decoded
//! first and the others only for the rows it keeps (late materialization,
//! also in [`PruningOptions`]).

pub(crate) mod bind;
pub(crate) mod bloom;
pub(crate) mod byte_eq;
pub(crate) mod dictionary;
pub(crate) mod eval;
mod literal;
pub(crate) mod page_index;
mod parse;
mod plain;
pub(crate) mod stats;

use std::fmt;

pub use crate::reader::{PruningMetrics, PruningOptions, RowFiltering};
pub use literal::Literal;
pub use pq_format::ColumnPath;
pub use stats::{ColumnChunkStatistics, column_chunk_statistics};

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `=`
    Eq,
    /// `!=` (or `<>`)
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    LtEq,
    /// `>`
    Gt,
    /// `>=`
    GtEq,
}

impl CmpOp {
    /// The operator that holds exactly where this one is false (for rows
    /// where both sides are not null).
    pub fn negate(self) -> CmpOp {
        match self {
            CmpOp::Eq => CmpOp::NotEq,
            CmpOp::NotEq => CmpOp::Eq,
            CmpOp::Lt => CmpOp::GtEq,
            CmpOp::LtEq => CmpOp::Gt,
            CmpOp::Gt => CmpOp::LtEq,
            CmpOp::GtEq => CmpOp::Lt,
        }
    }

    /// The operator with its sides swapped (`5 < x` is `x > 5`).
    pub fn flip(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::LtEq => CmpOp::GtEq,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::GtEq => CmpOp::LtEq,
            other => other,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::NotEq => "!=",
            CmpOp::Lt => "<",
            CmpOp::LtEq => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtEq => ">=",
        }
    }
}

/// Which rows to keep. See the [module documentation](self).
#[derive(Debug, Clone, PartialEq)]
pub enum Predicate {
    /// `column op value`.
    Compare {
        /// The column.
        column: ColumnPath,
        /// The operator.
        op: CmpOp,
        /// The value, converted to the column's type when bound.
        value: Literal,
    },
    /// `column [NOT] IN (values…)`.
    InList {
        /// The column.
        column: ColumnPath,
        /// The values.
        values: Vec<Literal>,
        /// `NOT IN`.
        negated: bool,
    },
    /// `column IS [NOT] NULL`.
    IsNull {
        /// The column.
        column: ColumnPath,
        /// `IS NOT NULL`.
        negated: bool,
    },
    /// `column [NOT] LIKE pattern`: `%` matches any run of characters, `_`
    /// one character, and `\` escapes either.
    Like {
        /// The column (strings).
        column: ColumnPath,
        /// The pattern.
        pattern: String,
        /// `NOT LIKE`.
        negated: bool,
    },
    /// Both.
    And(Box<Predicate>, Box<Predicate>),
    /// Either.
    Or(Box<Predicate>, Box<Predicate>),
    /// Not.
    Not(Box<Predicate>),
}

/// A reference to a column, from which comparisons are built.
///
/// ```
/// use pq_arrow::predicate::col;
/// let p = col("a.b").gt_eq(10).and(col("c").is_not_null());
/// assert_eq!(p.to_string(), "(a.b >= 10 AND c IS NOT NULL)");
/// ```
pub fn col(path: impl Into<ColumnPath>) -> Column {
    let path = path.into();
    // A dotted name given as one string is a nested path.
    let path = if path.len() == 1 && path.first().is_some_and(|n| n.contains('.')) {
        let dotted = path.first().unwrap_or_default().to_owned();
        ColumnPath::from(dotted.split('.').map(str::to_owned).collect::<Vec<_>>())
    } else {
        path
    };
    Column(path)
}

/// A column of a predicate being built; see [`col`].
#[derive(Debug, Clone, PartialEq)]
pub struct Column(ColumnPath);

impl Column {
    fn cmp(self, op: CmpOp, value: impl Into<Literal>) -> Predicate {
        Predicate::Compare {
            column: self.0,
            op,
            value: value.into(),
        }
    }

    /// `= value`
    pub fn eq(self, value: impl Into<Literal>) -> Predicate {
        self.cmp(CmpOp::Eq, value)
    }

    /// `!= value`
    pub fn not_eq(self, value: impl Into<Literal>) -> Predicate {
        self.cmp(CmpOp::NotEq, value)
    }

    /// `< value`
    pub fn lt(self, value: impl Into<Literal>) -> Predicate {
        self.cmp(CmpOp::Lt, value)
    }

    /// `<= value`
    pub fn lt_eq(self, value: impl Into<Literal>) -> Predicate {
        self.cmp(CmpOp::LtEq, value)
    }

    /// `> value`
    pub fn gt(self, value: impl Into<Literal>) -> Predicate {
        self.cmp(CmpOp::Gt, value)
    }

    /// `>= value`
    pub fn gt_eq(self, value: impl Into<Literal>) -> Predicate {
        self.cmp(CmpOp::GtEq, value)
    }

    /// `BETWEEN low AND high` (both ends included).
    pub fn between(self, low: impl Into<Literal>, high: impl Into<Literal>) -> Predicate {
        self.clone()
            .cmp(CmpOp::GtEq, low)
            .and(self.cmp(CmpOp::LtEq, high))
    }

    /// `IN (values…)`
    pub fn in_list<L: Into<Literal>>(self, values: impl IntoIterator<Item = L>) -> Predicate {
        Predicate::InList {
            column: self.0,
            values: values.into_iter().map(Into::into).collect(),
            negated: false,
        }
    }

    /// `IS NULL`
    pub fn is_null(self) -> Predicate {
        Predicate::IsNull {
            column: self.0,
            negated: false,
        }
    }

    /// `IS NOT NULL`
    pub fn is_not_null(self) -> Predicate {
        Predicate::IsNull {
            column: self.0,
            negated: true,
        }
    }

    /// `LIKE pattern` (see [`Predicate::Like`]).
    pub fn like(self, pattern: impl Into<String>) -> Predicate {
        Predicate::Like {
            column: self.0,
            pattern: pattern.into(),
            negated: false,
        }
    }

    /// Strings that start with `prefix` (`LIKE 'prefix%'`, with the
    /// prefix's own `%`, `_` and `\` escaped).
    pub fn starts_with(self, prefix: &str) -> Predicate {
        let mut pattern = String::with_capacity(prefix.len() + 1);
        for c in prefix.chars() {
            if matches!(c, '%' | '_' | '\\') {
                pattern.push('\\');
            }
            pattern.push(c);
        }
        pattern.push('%');
        self.like(pattern)
    }
}

impl Predicate {
    /// Parses a predicate from its SQL-like text: comparisons
    /// (`= != <> < <= > >=`), `[NOT] IN (…)`, `[NOT] BETWEEN … AND …`,
    /// `IS [NOT] NULL`, `[NOT] LIKE '…'`, `AND`, `OR`, `NOT` and
    /// parentheses. Columns are names, dotted paths (`a.b`) or double-quoted
    /// (`"my col"`, `"a.b"`); literals are numbers, `'strings'` (`''` is a
    /// quote), `TRUE`, `FALSE`, `DATE 'YYYY-MM-DD'` and
    /// `TIMESTAMP 'YYYY-MM-DD HH:MM:SS[.fff][+HH:MM|Z]'`.
    ///
    /// ```
    /// use pq_arrow::predicate::Predicate;
    /// let p = Predicate::parse(r#""a.b" >= DATE '2024-01-01' AND x IN (1, 2, 3)"#)?;
    /// assert_eq!(p.to_string(), "(a.b >= DATE '2024-01-01' AND x IN (1, 2, 3))");
    /// assert!(Predicate::parse("x <").is_err());
    /// # Ok::<(), pq_arrow::Error>(())
    /// ```
    pub fn parse(text: &str) -> crate::Result<Predicate> {
        parse::parse(text).map_err(|message| crate::Error::Request { message })
    }

    /// Both this and `other`.
    pub fn and(self, other: Predicate) -> Predicate {
        Predicate::And(Box::new(self), Box::new(other))
    }

    /// This or `other`.
    pub fn or(self, other: Predicate) -> Predicate {
        Predicate::Or(Box::new(self), Box::new(other))
    }

    /// The rows where this is false (not those where it is unknown).
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Predicate {
        Predicate::Not(Box::new(self))
    }

    /// Every column the predicate reads.
    pub fn columns(&self) -> Vec<&ColumnPath> {
        let mut out = Vec::new();
        self.visit_columns(&mut |c| out.push(c));
        out
    }

    fn visit_columns<'a>(&'a self, f: &mut impl FnMut(&'a ColumnPath)) {
        match self {
            Predicate::Compare { column, .. }
            | Predicate::InList { column, .. }
            | Predicate::IsNull { column, .. }
            | Predicate::Like { column, .. } => f(column),
            Predicate::And(a, b) | Predicate::Or(a, b) => {
                a.visit_columns(f);
                b.visit_columns(f);
            }
            Predicate::Not(p) => p.visit_columns(f),
        }
    }

    /// The same predicate with every `NOT` pushed down to the comparisons
    /// (De Morgan's laws, which hold in SQL's three-valued logic): pruning
    /// by statistics then only meets positive forms.
    pub(crate) fn push_down_not(self) -> Predicate {
        self.normal(false)
    }

    fn normal(self, negate: bool) -> Predicate {
        match self {
            Predicate::Not(p) => p.normal(!negate),
            Predicate::And(a, b) if negate => {
                Predicate::Or(Box::new(a.normal(true)), Box::new(b.normal(true)))
            }
            Predicate::Or(a, b) if negate => {
                Predicate::And(Box::new(a.normal(true)), Box::new(b.normal(true)))
            }
            Predicate::And(a, b) => {
                Predicate::And(Box::new(a.normal(false)), Box::new(b.normal(false)))
            }
            Predicate::Or(a, b) => {
                Predicate::Or(Box::new(a.normal(false)), Box::new(b.normal(false)))
            }
            Predicate::Compare { column, op, value } if negate => Predicate::Compare {
                column,
                op: op.negate(),
                value,
            },
            Predicate::InList {
                column,
                values,
                negated,
            } => Predicate::InList {
                column,
                values,
                negated: negated ^ negate,
            },
            Predicate::IsNull { column, negated } => Predicate::IsNull {
                column,
                negated: negated ^ negate,
            },
            Predicate::Like {
                column,
                pattern,
                negated,
            } => Predicate::Like {
                column,
                pattern,
                negated: negated ^ negate,
            },
            p @ Predicate::Compare { .. } => p,
        }
    }
}

/// A column path as the parser reads it back: dotted, double-quoted when
/// a name holds anything but letters, digits and `_`.
struct PathText<'a>(&'a ColumnPath);

impl fmt::Display for PathText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plain = self.0.iter().all(|n| {
            !n.is_empty()
                && n.chars().all(|c| c.is_alphanumeric() || c == '_')
                && !n.starts_with(|c: char| c.is_ascii_digit())
                && !parse::is_keyword(n)
        });
        if plain {
            f.write_str(&self.0.join("."))
        } else {
            write!(f, "\"{}\"", self.0.join(".").replace('"', "\"\""))
        }
    }
}

impl fmt::Display for Predicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let not = |n: bool| if n { "NOT " } else { "" };
        match self {
            Predicate::Compare { column, op, value } => {
                write!(f, "{} {} {value}", PathText(column), op.symbol())
            }
            Predicate::InList {
                column,
                values,
                negated,
            } => {
                write!(f, "{} {}IN (", PathText(column), not(*negated))?;
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str(")")
            }
            Predicate::IsNull { column, negated } => {
                write!(f, "{} IS {}NULL", PathText(column), not(*negated))
            }
            Predicate::Like {
                column,
                pattern,
                negated,
            } => write!(
                f,
                "{} {}LIKE {}",
                PathText(column),
                not(*negated),
                Literal::String(pattern.clone())
            ),
            Predicate::And(a, b) => write!(f, "({a} AND {b})"),
            Predicate::Or(a, b) => write!(f, "({a} OR {b})"),
            Predicate::Not(p) => write!(f, "NOT {p}"),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn not_is_pushed_down_to_the_comparisons() {
        let p = col("a").lt(1).and(col("b").is_null()).not();
        assert_eq!(p.push_down_not().to_string(), "(a >= 1 OR b IS NOT NULL)");
        let p = col("a").in_list([1, 2]).or(col("s").like("x%")).not().not();
        assert_eq!(
            p.push_down_not().to_string(),
            "(a IN (1, 2) OR s LIKE 'x%')"
        );
    }

    #[test]
    fn starts_with_escapes_wildcards() {
        assert_eq!(
            col("s").starts_with("a%_\\").to_string(),
            r"s LIKE 'a\%\_\\%'"
        );
    }

    #[test]
    fn columns_lists_every_reference() {
        let p = col("a").eq(1).or(col("b.c").is_null().not());
        let cols: Vec<String> = p.columns().iter().map(|c| c.join(".")).collect();
        assert_eq!(cols, ["a", "b.c"]);
    }
}
