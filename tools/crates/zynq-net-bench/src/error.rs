//! Typed errors of the benchmark library.

use std::path::PathBuf;

/// Everything that can go wrong in the benchmark library.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// An iperf3 result could not be understood, or iperf3 reported an error.
    #[error("iperf3: {0}")]
    Iperf(String),
    /// A command failed to start or exited non-zero.
    #[error("command `{cmd}` failed: {detail}")]
    Command {
        /// The command line, for the message.
        cmd: String,
        /// Exit status and stderr.
        detail: String,
    },
    /// ssh itself failed (exit 255: unreachable, refused, no key): not a
    /// problem of the command it was to run.
    #[error("{host}: ssh failed (exit 255): {detail}")]
    Ssh {
        /// The end (`ssh:DEST`).
        host: String,
        /// ssh's stderr.
        detail: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Invalid input (bench spec, plan, targets, results).
    #[error("{0}")]
    Invalid(String),
    /// A board or bench file with errors: every diagnostic, already
    /// rendered (`error[RULE]: FILE:LINE:COL: message`, the line, a hint),
    /// as `check` prints them; the CLI prints it as is and exits 1.
    #[error("{0}")]
    Diagnostics(String),
    /// `/proc/stat` could not be parsed.
    #[error("/proc/stat: {0}")]
    ProcStat(String),
}

impl BenchError {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        BenchError::Io { path: path.into(), source }
    }
}
