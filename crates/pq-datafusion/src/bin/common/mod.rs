//! What the two Ballista binaries share: a logger for Ballista's `log`
//! records, so that a task that fails says why in the process's output.

use log::{Level, Log, Metadata, Record};

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
