//! Standard output of the command-line tools (`zynq-net`, its `bench` and
//! `lab` commands): [`outln!`](crate::outln) and [`out!`](crate::out)
//! instead of `println!`/`print!`, which panic (exit 101, a backtrace) when
//! the reader has gone: `zynq-net check B | head -1`. A closed pipe ends the
//! process quietly with status 0, as ripgrep does (crates/core/main.rs:
//! `io::ErrorKind::BrokenPipe` -> success); any other write error is
//! reported and ends it with status 2.

use std::borrow::Cow;
use std::io::Write;

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
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("zynq-net: cannot write to standard output: {e}");
        std::process::exit(2);
    }
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
