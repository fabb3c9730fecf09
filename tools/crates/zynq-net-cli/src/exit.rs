//! The one place that turns a command's outcome into the process exit code
//! (README, "The CLI"; docs/board-format.md, "Exit codes"), in the manner
//! of ripgrep's `main.rs` and kas's `KasUserError`: commands return
//! `Result<(), Failure>` and never pick a number themselves.

use std::process::ExitCode;

/// Why a command did not succeed.
#[derive(Debug)]
pub enum Failure {
    /// The board is invalid, or a verification found mismatches; the
    /// diagnostics or the report are already printed. Exit 1.
    Invalid,
    /// A usage or I/O error (unreadable file, output directory not ours, a
    /// damaged DTB, an internal error), printed as `zynq-net: MESSAGE`. Exit 2.
    Usage(String),
    /// A command-line error clap has already printed. Exit 2.
    BadArguments,
    /// `gen` stopped by SIGINT/SIGTERM/SIGHUP before anything was written.
    /// Exit 130 (128 + SIGINT, as a shell reports it).
    Interrupted,
    /// A `bench`/`lab` command ran and found what docs/bench.md calls a
    /// failure (a trial failed, a frame size not confirmed, a cell worse
    /// with `--fail-on-worse`, a lab not wholly removed); already said. Exit 1.
    #[cfg(feature = "bench")]
    Unmet,
}

/// Exit code of a success.
pub const EXIT_OK: u8 = 0;
/// Exit code of [`Failure::Invalid`].
pub const EXIT_INVALID: u8 = 1;
/// Exit code of [`Failure::Usage`] and [`Failure::BadArguments`].
pub const EXIT_USAGE: u8 = 2;
/// Exit code of [`Failure::Interrupted`].
pub const EXIT_INTERRUPTED: u8 = 130;

impl Failure {
    /// The process exit code.
    pub fn code(&self) -> u8 {
        match self {
            Failure::Invalid => EXIT_INVALID,
            Failure::Usage(_) | Failure::BadArguments => EXIT_USAGE,
            Failure::Interrupted => EXIT_INTERRUPTED,
            #[cfg(feature = "bench")]
            Failure::Unmet => EXIT_INVALID,
        }
    }

    /// What is printed on stderr (after `zynq-net: `), if anything is left to print.
    pub fn message(&self) -> Option<String> {
        match self {
            Failure::Usage(m) => Some(m.clone()),
            Failure::Interrupted => Some("interrupted by a signal (nothing was written)".into()),
            _ => None,
        }
    }
}

/// A `bench`/`lab` command's result: [`Outcome::Done`] is success, any
/// other outcome [`Failure::Unmet`]; a board or bench file with errors
/// prints its diagnostics as `check` does ([`Failure::Invalid`]); any other
/// error is [`Failure::Usage`] with its message.
///
/// [`Outcome::Done`]: zynq_net_bench::commands::Outcome::Done
#[cfg(feature = "bench")]
pub fn bench(result: Result<zynq_net_bench::commands::Outcome, zynq_net_bench::BenchError>) -> Result<(), Failure> {
    use zynq_net_bench::{commands::Outcome, BenchError};
    match result {
        Ok(Outcome::Done) => Ok(()),
        Ok(_) => Err(Failure::Unmet),
        Err(BenchError::Diagnostics(text)) => {
            zynq_net_model::eout!("{text}");
            Err(Failure::Invalid)
        }
        Err(e) => Err(Failure::Usage(e.to_string())),
    }
}

/// Prints what is left to print and returns the exit code. A command that
/// succeeded but whose standard output could not be written (other than
/// by the reader closing the pipe: [`zynq_net_model::out`]) is a usage/I/O
/// failure.
pub fn exit(result: Result<(), Failure>) -> ExitCode {
    let result = match (result, zynq_net_model::out::stdout_error()) {
        (Ok(()), Some(m)) => Err(Failure::Usage(m)),
        (r, _) => r,
    };
    match result {
        Ok(()) => ExitCode::from(EXIT_OK),
        Err(f) => {
            if let Some(m) = f.message() {
                zynq_net_model::eoutln!("zynq-net: {m}");
            }
            ExitCode::from(f.code())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_documented_ones() {
        assert_eq!(Failure::Invalid.code(), 1);
        assert_eq!(Failure::Usage("x".into()).code(), 2);
        assert_eq!(Failure::BadArguments.code(), 2);
        assert_eq!(Failure::Interrupted.code(), 130);
        assert_eq!(Failure::Invalid.message(), None);
        assert_eq!(Failure::Usage("cannot read x".into()).message().as_deref(), Some("cannot read x"));
    }
}
