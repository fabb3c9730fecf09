//! Standard output of the command-line tools (`zynq-net`, its `bench` and
//! `lab` commands): [`outln!`](crate::outln) and [`out!`](crate::out)
//! instead of `println!`/`print!`, which panic (exit 101, a backtrace) when
//! the reader has gone: `zynq-net check B | head -1`. A closed pipe ends the
//! process quietly with status 0, as ripgrep does (crates/core/main.rs:
//! `io::ErrorKind::BrokenPipe` -> success); any other write error is
//! reported and ends it with status 2.

use std::io::Write;

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
