//! Standard output and standard error of the command-line tools
//! (`zynq-net`, its `bench` and `lab` commands): [`outln!`](crate::outln),
//! [`out!`](crate::out) and [`eoutln!`](crate::eoutln) instead of
//! `println!`/`print!`/`eprintln!`, which panic (exit 101, a backtrace)
//! when the reader has gone: `zynq-net check B | head -1`,
//! `zynq-net bench rfc2544 ... 2>&1 | head -1`.
//!
//! Nothing here ends the process. A closed pipe on standard output is
//! remembered and later writes are dropped (the command finishes its work:
//! a benchmark keeps writing its result files), as ripgrep treats
//! `io::ErrorKind::BrokenPipe` as success (crates/core/main.rs); any other
//! write error is remembered too, and the binary's exit map reports it
//! ([`stdout_error`]). Standard error is best effort: a line that cannot
//! be written is dropped.

use std::borrow::Cow;
use std::io::Write;
use std::sync::Mutex;

/// What went wrong writing standard output: `None` while every write
/// succeeded; `Some(None)` once the reader closed the pipe (not an error);
/// `Some(Some(message))` after any other failure.
static STDOUT_STATE: Mutex<Option<Option<String>>> = Mutex::new(None);

/// `s` with its control characters written as Rust escapes (`\n`, `\t`,
/// `\u{1b}`), for a file name or a value quoted on the terminal: a name
/// holding a newline could otherwise print a forged `ok` line, an ESC
/// sequence clear the screen (the artifact headers do the same:
/// zynq-net-render `header_safe`).
pub fn escaped(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// [`escaped`] for a path (lossy for non-UTF-8 bytes, as `display` is).
pub fn escaped_path(p: &std::path::Path) -> String {
    escaped(&p.display().to_string()).into_owned()
}

/// Writes `args` to standard output; see the module documentation for
/// what happens when that fails.
pub fn write(args: std::fmt::Arguments<'_>) {
    let mut state = STDOUT_STATE.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if state.is_some() {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        *state = Some(if e.kind() == std::io::ErrorKind::BrokenPipe {
            None
        } else {
            Some(format!("cannot write to standard output: {e}"))
        });
    }
}

/// A write to standard output that failed other than by the reader
/// closing the pipe (the message), for the binary's exit map: such a
/// command's output is incomplete, and it exits 2.
pub fn stdout_error() -> Option<String> {
    STDOUT_STATE.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone().flatten()
}

/// Writes `args` to standard error, dropping it when that fails (a closed
/// pipe: `2>&1 | head -1`).
pub fn ewrite(args: std::fmt::Arguments<'_>) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_fmt(args).and_then(|()| stderr.flush());
}

/// `println!` for the command-line tools ([`write`]).
#[macro_export]
macro_rules! outln {
    () => {
        $crate::out::write(format_args!("\n"))
    };
    ($($t:tt)*) => {
        $crate::out::write(format_args!("{}\n", format_args!($($t)*)))
    };
}

/// `print!` for the command-line tools ([`write`]).
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => {
        $crate::out::write(format_args!($($t)*))
    };
}

/// `eprintln!` for the command-line tools ([`ewrite`]): never panics.
#[macro_export]
macro_rules! eoutln {
    () => {
        $crate::out::ewrite(format_args!("\n"))
    };
    ($($t:tt)*) => {
        $crate::out::ewrite(format_args!("{}\n", format_args!($($t)*)))
    };
}

/// `eprint!` for the command-line tools ([`ewrite`]): never panics.
#[macro_export]
macro_rules! eout {
    ($($t:tt)*) => {
        $crate::out::ewrite(format_args!($($t)*))
    };
}

#[cfg(test)]
mod tests {
    use super::escaped;

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(escaped("boards/zcu102.yml"), "boards/zcu102.yml");
        assert_eq!(escaped("a\nb: ok"), "a\\nb: ok");
        assert_eq!(escaped("\u{1b}[2Jx\tyé"), "\\u{1b}[2Jx\\tyé");
    }
}
