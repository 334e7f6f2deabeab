//! `pq count`: rows of the files from their footers, no page read.

use std::io::Write;

use crate::error::CliError;
use crate::input;
use crate::sources::Source;

/// Prints the total number of rows; with `per_file`, each file's count
/// first (`COUNT<TAB>FILE`, as `wc` lists), then `COUNT<TAB>total`.
pub fn run(sources: &[Source], per_file: bool, out: &mut impl Write) -> Result<(), CliError> {
    let mut total: u64 = 0;
    for source in sources {
        let path = &source.path;
        let (_, meta) = input::metadata(path)?;
        let rows = u64::try_from(meta.file.num_rows).map_err(|_| {
            CliError::file(
                path,
                format!("the footer declares {} rows", meta.file.num_rows),
            )
        })?;
        total = total.saturating_add(rows);
        if per_file {
            writeln!(out, "{rows}\t{}", path.display())?;
        }
    }
    if per_file {
        writeln!(out, "{total}\ttotal")?;
    } else {
        writeln!(out, "{total}")?;
    }
    Ok(())
}
