//! A Ballista executor that runs pq scans: Ballista's own executor with
//! pq's extension codecs, so that it can run the tasks a
//! `pq-ballista-scheduler` sends it.
//!
//! ```text
//! pq-ballista-executor [--scheduler HOST:PORT] [--bind HOST] [--port N]
//!                      [--grpc-port N] [--concurrent-tasks N] [--work-dir DIR]
//! ```
//! Defaults: scheduler 127.0.0.1:50050, bind 127.0.0.1, Arrow Flight port
//! 50051, gRPC port 50052, as many tasks as cores. `PQ_BALLISTA_LOG=info`
//! (or `debug`, …; default `warn`) sets what of Ballista's log reaches
//! standard error. Tables in object stores are read with the credentials
//! and endpoints of the environment (`AWS_*`, `GOOGLE_*`, `AZURE_*`).

mod common;

use std::process::ExitCode;
use std::sync::Arc;

use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
use pq_datafusion::codec::{PqLogicalCodec, PqPhysicalCodec, with_pq_codecs};

const USAGE: &str = "usage: pq-ballista-executor [--scheduler HOST:PORT] [--bind HOST] \
                     [--port N] [--grpc-port N] [--concurrent-tasks N] [--work-dir DIR]";

fn parse(mut args: impl Iterator<Item = String>) -> Result<ExecutorProcessConfig, String> {
    let mut config = ExecutorProcessConfig {
        scheduler_host: "127.0.0.1".to_owned(),
        ..ExecutorProcessConfig::default()
    };
    fn number<T: std::str::FromStr>(flag: &str, value: Option<String>) -> Result<T, String> {
        let value = value.ok_or_else(|| format!("{flag} needs a number"))?;
        value
            .parse()
            .map_err(|_| format!("{flag} takes a number, not '{value}'"))
    }
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--scheduler" => {
                let value = args.next().ok_or("--scheduler needs HOST:PORT")?;
                let (host, port) = value
                    .rsplit_once(':')
                    .ok_or_else(|| format!("--scheduler takes HOST:PORT, not '{value}'"))?;
                config.scheduler_host = host.to_owned();
                config.scheduler_port = number("--scheduler's port", Some(port.to_owned()))?;
            }
            "--bind" => config.bind_host = args.next().ok_or("--bind needs a host")?,
            "--port" => config.port = number("--port", args.next())?,
            "--grpc-port" => config.grpc_port = number("--grpc-port", args.next())?,
            "--concurrent-tasks" => config.vcores = number("--concurrent-tasks", args.next())?,
            "--work-dir" => config.work_dir = Some(args.next().ok_or("--work-dir needs a path")?),
            "-h" | "--help" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown argument '{other}'\n{USAGE}")),
        }
    }
    config.external_host = Some(config.bind_host.clone());
    Ok(config)
}

#[tokio::main]
async fn main() -> ExitCode {
    common::init_logging();
    let mut config = match parse(std::env::args().skip(1)) {
        Ok(config) => config,
        Err(message) => {
            eprintln!("pq-ballista-executor: {message}");
            return ExitCode::from(2);
        }
    };
    config.override_logical_codec = Some(Arc::new(PqLogicalCodec::default()));
    config.override_physical_codec = Some(Arc::new(PqPhysicalCodec::default()));
    // Ballista's default registry lacks DataFusion's nested functions
    // (`array_length`, …); a client's default session has them, so a plan
    // may name them.
    let session = datafusion::execution::SessionStateBuilder::new()
        .with_default_features()
        .build();
    config.override_function_registry = Some(Arc::new(
        ballista_core::registry::BallistaFunctionRegistry::from(&session),
    ));
    config.override_config_producer = Some(Arc::new(|| {
        with_pq_codecs(ballista_core::utils::default_config_producer())
    }));
    // Scans of tables in object stores build their stores from the URL and
    // the environment; spill files go to the work directory.
    let work_dir = config.work_dir.clone();
    config.override_runtime_producer = Some(Arc::new(move |_| common::runtime(work_dir.clone())));
    match start_executor_process(Arc::new(config)).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pq-ballista-executor: {e}");
            ExitCode::FAILURE
        }
    }
}
