//! The DataFusion side of whole-process SQL comparisons: `pq sql --threads
//! 1 --table lineitem=FILE QUERY` against the same query through
//! DataFusion's built-in Parquet format (arrow-rs's reader), one target
//! partition on a two-worker runtime (as `pq sql` runs), the result printed
//! as CSV as `pq sql --format csv` prints it.
//!
//! `cargo run --release -p pq-datafusion --example datafusion_parquet_sql -- FILE QUERY`

use std::process::ExitCode;

use datafusion::arrow::csv::WriterBuilder;
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, query] = args.as_slice() else {
        eprintln!("usage: datafusion_parquet_sql FILE QUERY");
        return ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("datafusion_parquet_sql: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(file, query)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("datafusion_parquet_sql: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(file: &str, query: &str) -> Result<(), Box<dyn std::error::Error>> {
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(1));
    ctx.register_parquet("lineitem", file, ParquetReadOptions::default())
        .await?;
    let batches = ctx.sql(query).await?.collect().await?;
    let mut writer = WriterBuilder::new().build(std::io::stdout());
    for batch in &batches {
        writer.write(batch)?;
    }
    Ok(())
}
