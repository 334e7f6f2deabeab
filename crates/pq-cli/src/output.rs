//! Buffered standard output.

use std::io::{BufWriter, Stdout};

/// Standard output, buffered: commands write many small lines.
pub type Out = BufWriter<Stdout>;

/// A buffered handle on standard output.
pub fn stdout() -> Out {
    BufWriter::with_capacity(1 << 16, std::io::stdout())
}
