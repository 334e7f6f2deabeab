//! `pq count`: rows of the files from their footers, no page read: the
//! sum of the row groups' counts, the rows a read gives.

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
        // The rows a read gives are the row groups': some writers leave the
        // file's own count 0 (parquet-testing's repeated_no_annotation).
        let mut rows: u64 = 0;
        for (g, rg) in meta.file.row_groups.iter().enumerate() {
            let n = u64::try_from(rg.num_rows).map_err(|_| {
                CliError::file(path, format!("row group {g} declares {} rows", rg.num_rows))
            })?;
            rows = rows.saturating_add(n);
        }
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
