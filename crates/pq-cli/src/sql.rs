//! `pq sql`: a SQL query over Parquet files, planned and run by DataFusion
//! with pq reading the files (pq-datafusion).
//!
//! Tables are named with `--table name=LOCATION`, or written in the query
//! itself as a quoted location after `FROM` or `JOIN`
//! (`FROM 'data/*.parquet'`): files, quoted globs, directories and object
//! URLs (the same stores and settings as every other command). Results
//! print as `cat` prints rows.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use datafusion::error::DataFusionError;
use datafusion::prelude::{SessionConfig, SessionContext};
use futures::StreamExt;
use pq_datafusion::{PqOptions, PqReadOptions, SessionContextExt};

use crate::cat::{self, Format};
use crate::error::CliError;
use crate::remote;

/// What `pq sql` was asked.
#[derive(Debug)]
pub struct SqlArgs<'a> {
    /// The query.
    pub query: &'a str,
    /// `--table NAME=LOCATION`, in order.
    pub tables: &'a [String],
    /// Output format.
    pub format: Format,
    /// `--max-width` of a table.
    pub max_width: Option<usize>,
    /// DataFusion's target partitions (`--threads`).
    pub threads: usize,
}

/// Runs the query and prints its rows.
pub fn run(args: &SqlArgs<'_>, out: &mut impl Write) -> Result<(), CliError> {
    let mut tables = Vec::new();
    for t in args.tables {
        let Some((name, location)) = t
            .split_once('=')
            .filter(|(n, l)| !n.trim().is_empty() && !l.trim().is_empty())
        else {
            return Err(CliError::Usage(format!(
                "--table takes NAME=LOCATION, not '{t}'"
            )));
        };
        tables.push((name.trim().to_owned(), location.trim().to_owned()));
    }
    let (query, inline) = inline_tables(args.query);
    tables.extend(inline);
    remote::block_on(query_and_print(args, &query, &tables, out))?
}

/// `query` with each quoted location after `FROM` or `JOIN` replaced by a
/// table name, and those tables.
fn inline_tables(query: &str) -> (String, Vec<(String, String)>) {
    let mut out = String::with_capacity(query.len());
    let mut tables = Vec::new();
    let mut rest = query;
    while let Some(quote) = rest.find('\'') {
        let (before, after) = rest.split_at(quote);
        out.push_str(before);
        let Some(end) = after[1..].find('\'') else {
            out.push_str(after);
            rest = "";
            break;
        };
        let literal = &after[..end + 2];
        let keyword = before
            .trim_end()
            .rsplit(|c: char| c.is_whitespace() || c == ',' || c == '(')
            .next()
            .unwrap_or_default()
            .to_ascii_uppercase();
        if keyword == "FROM" || keyword == "JOIN" {
            let name = format!("pq_table_{}", tables.len() + 1);
            out.push('"');
            out.push_str(&name);
            out.push('"');
            tables.push((name, literal[1..literal.len() - 1].to_owned()));
        } else {
            out.push_str(literal);
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    (out, tables)
}

async fn query_and_print(
    args: &SqlArgs<'_>,
    query: &str,
    tables: &[(String, String)],
    out: &mut impl Write,
) -> Result<(), CliError> {
    let config = SessionConfig::new().with_target_partitions(args.threads.max(1));
    let ctx = SessionContext::new_with_config(config);
    ctx.register_pq_format(Default::default())
        .map_err(|e| sql_err(&e))?;
    for (name, location) in tables {
        register_store(&ctx, location)?;
        let options = PqReadOptions {
            format: PqOptions {
                fetch: remote::fetch_options(),
                ..PqOptions::default()
            },
            ..PqReadOptions::default()
        };
        ctx.register_pq(name, location, options)
            .await
            .map_err(|e| {
                CliError::Message(format!("table {name} ({location}): {}", one_line(&e)))
            })?;
    }
    let frame = ctx.sql(query).await.map_err(|e| sql_err(&e))?;
    let schema = Arc::new(frame.schema().as_arrow().clone());
    let mut stream = frame.execute_stream().await.map_err(|e| sql_err(&e))?;
    let path = Path::new("query");
    let mut printer = cat::BatchPrinter::new(&schema, args.format, args.max_width, out)?;
    while let Some(batch) = stream.next().await {
        let batch = batch.map_err(|e| sql_err(&e))?;
        printer.push(path, batch)?;
    }
    printer.finish(path)
}

/// Registers the store of an object URL with the context; local paths
/// need none (DataFusion resolves them against the working directory). A
/// URL may name a prefix (`s3://bucket/table/`) or a glob: the table is
/// then every Parquet object the store lists under it, as for a local
/// directory.
fn register_store(ctx: &SessionContext, location: &str) -> Result<(), CliError> {
    let path = Path::new(location);
    if remote::is_url(path) {
        let (store, root) = remote::store_of(location)?;
        ctx.register_object_store(&root, store);
    }
    Ok(())
}

/// A DataFusion error as one line (pq's own messages inside it are one
/// line already; DataFusion's may span several).
fn sql_err(e: &DataFusionError) -> CliError {
    CliError::Message(format!("sql: {}", one_line(e)))
}

fn one_line(e: &DataFusionError) -> String {
    e.to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_locations_after_from_and_join_become_tables() {
        let (q, t) = inline_tables(
            "SELECT a, 'x' FROM 'data/*.parquet' JOIN 'b.parquet' ON x = 'y' WHERE s = 'FROM'",
        );
        assert_eq!(
            q,
            "SELECT a, 'x' FROM \"pq_table_1\" JOIN \"pq_table_2\" ON x = 'y' WHERE s = 'FROM'"
        );
        assert_eq!(
            t,
            vec![
                ("pq_table_1".to_owned(), "data/*.parquet".to_owned()),
                ("pq_table_2".to_owned(), "b.parquet".to_owned())
            ]
        );
        let (q, t) = inline_tables("SELECT 'unclosed");
        assert_eq!((q.as_str(), t.len()), ("SELECT 'unclosed", 0));
    }
}
