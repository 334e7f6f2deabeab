//! The command's errors: one line each, naming the file and what is wrong.

use std::fmt;

/// What ends a command with an error.
#[derive(Debug)]
pub enum CliError {
    /// A message for the user, already naming the file and the place.
    Message(String),
    /// The command line asks for something impossible (an unknown type or
    /// format, an empty column name): exit status 2, as clap's own errors.
    Usage(String),
    /// Standard output was closed by its reader: stop quietly.
    BrokenPipe,
}

impl CliError {
    /// An error about the input `file` (`-` is standard input).
    pub fn file(file: &std::path::Path, what: impl fmt::Display) -> Self {
        if crate::input::is_stdio(file) {
            return CliError::Message(format!("standard input: {what}"));
        }
        CliError::Message(format!("{}: {what}", file.display()))
    }

    /// An error about the output `file` (`-` is standard output).
    pub fn output(file: &std::path::Path, what: impl fmt::Display) -> Self {
        if crate::input::is_stdio(file) {
            return CliError::Message(format!("standard output: {what}"));
        }
        CliError::Message(format!("{}: {what}", file.display()))
    }
}

impl CliError {
    /// The same message as a usage error (exit status 2).
    pub fn usage(self) -> Self {
        match self {
            CliError::Message(m) => CliError::Usage(m),
            other => other,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Message(m) | CliError::Usage(m) => f.write_str(m),
            CliError::BrokenPipe => f.write_str("broken pipe"),
        }
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            CliError::BrokenPipe
        } else {
            CliError::Message(format!("writing output: {e}"))
        }
    }
}
