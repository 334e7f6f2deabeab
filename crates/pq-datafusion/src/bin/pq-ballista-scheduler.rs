//! A Ballista scheduler that plans pq scans: Ballista's own scheduler with
//! pq's extension codecs, so that clients can send it plans over pq tables
//! (registered with `register_pq` or `STORED AS PQ`).
//!
//! ```text
//! pq-ballista-scheduler [--bind HOST:PORT]     (default 127.0.0.1:50050)
//! ```
//! `PQ_BALLISTA_LOG=info` (or `debug`, …; default `warn`) sets what of
//! Ballista's log reaches standard error. Tables in object stores
//! (`s3://`, `gs://`, `az://`, `http(s)://`) are reached with the
//! credentials and endpoints of the environment (`AWS_*`, `GOOGLE_*`,
//! `AZURE_*`), as the object_store crate reads them.

mod common;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;
use pq_datafusion::codec::{PqLogicalCodec, PqPhysicalCodec, with_pq_codecs};

const USAGE: &str = "usage: pq-ballista-scheduler [--bind HOST:PORT]";

fn parse(mut args: impl Iterator<Item = String>) -> Result<SocketAddr, String> {
    let mut bind = "127.0.0.1:50050".to_owned();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--bind" => bind = args.next().ok_or("--bind needs HOST:PORT")?,
            "-h" | "--help" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown argument '{other}'\n{USAGE}")),
        }
    }
    bind.parse()
        .map_err(|e| format!("--bind {bind}: {e}\n{USAGE}"))
}

#[tokio::main]
async fn main() -> ExitCode {
    common::init_logging();
    let addr = match parse(std::env::args().skip(1)) {
        Ok(addr) => addr,
        Err(message) => {
            eprintln!("pq-ballista-scheduler: {message}");
            return ExitCode::from(2);
        }
    };
    let config = SchedulerConfig {
        bind_host: addr.ip().to_string(),
        bind_port: addr.port(),
        external_host: addr.ip().to_string(),
        override_logical_codec: Some(Arc::new(PqLogicalCodec::default())),
        override_physical_codec: Some(Arc::new(PqPhysicalCodec::default())),
        override_config_producer: Some(Arc::new(|| {
            with_pq_codecs(ballista_core::utils::default_config_producer())
        })),
        // Tables in object stores are planned (listed, their footers read)
        // here: their stores are built from the URL and the environment.
        override_session_builder: Some(Arc::new(|config| {
            let state = ballista_core::utils::default_session_builder(config)?;
            let runtime = common::runtime(None)?;
            Ok(
                datafusion::execution::SessionStateBuilder::new_from_existing(state)
                    .with_runtime_env(runtime)
                    .build(),
            )
        })),
        ..SchedulerConfig::default()
    };
    let result = async {
        let cluster = BallistaCluster::new_from_config(&config).await?;
        start_server(cluster, addr, Arc::new(config)).await
    }
    .await;
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pq-ballista-scheduler: {e}");
            ExitCode::FAILURE
        }
    }
}
