//! What the two Ballista binaries share: a logger for Ballista's `log`
//! records, so that a task that fails says why in the process's output,
//! and the runtime whose object stores come from URLs and the
//! environment.

use std::sync::Arc;

use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};
use log::{Level, Log, Metadata, Record};
use pq_datafusion::stores::EnvObjectStoreRegistry;

/// A runtime whose stores are built from a table's URL and the
/// environment (`AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, …), its spill
/// files in `temp_dir` when one is given.
pub fn runtime(temp_dir: Option<String>) -> datafusion::common::Result<Arc<RuntimeEnv>> {
    let mut builder = RuntimeEnvBuilder::new()
        .with_object_store_registry(Arc::new(EnvObjectStoreRegistry::default()));
    if let Some(dir) = temp_dir {
        builder = builder.with_temp_file_path(dir);
    }
    Ok(Arc::new(builder.build()?))
}

/// Writes records at `PQ_BALLISTA_LOG`'s level or above (`error`, `warn`,
/// `info`, `debug`, `trace`; default `warn`) to standard error.
struct StderrLogger {
    level: Level,
}

impl Log for StderrLogger {
    fn enabled(&self, metadata: &Metadata) -> bool {
        metadata.level() <= self.level
    }

    fn log(&self, record: &Record) {
        if self.enabled(record.metadata()) {
            eprintln!("{} {}: {}", record.level(), record.target(), record.args());
        }
    }

    fn flush(&self) {}
}

/// Installs the logger; a second call, or another logger already
/// installed, leaves things as they are.
pub fn init_logging() {
    let level = std::env::var("PQ_BALLISTA_LOG")
        .ok()
        .and_then(|v| v.parse::<Level>().ok())
        .unwrap_or(Level::Warn);
    let logger = Box::leak(Box::new(StderrLogger { level }));
    if log::set_logger(logger).is_ok() {
        log::set_max_level(level.to_level_filter());
    }
}
