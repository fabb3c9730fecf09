//! `zynq-net`: the command-line front end. Thin: parsing arguments, calling
//! the library crates, printing, and mapping results to exit codes.
//!
//! Exit codes (docs/cli.md): 0 success; 1 invalid board or verification
//! mismatch; 2 usage or I/O error.

mod verify;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use zynq_net_model::{load_board, LoadError, LoadedBoard};

/// Exit code: success.
const EXIT_OK: u8 = 0;
/// Exit code: the board is invalid, or a verification found mismatches.
const EXIT_INVALID: u8 = 1;
/// Exit code: usage or I/O error.
const EXIT_USAGE: u8 = 2;
/// Exit code: `gen` interrupted by SIGINT/SIGTERM/SIGHUP (128 + SIGINT, as a shell reports it).
const EXIT_INTERRUPTED: u8 = 130;

#[derive(Parser)]
#[command(name = "zynq-net", version, about = "Network-tuned embedded Linux images from one board description")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Check a board file; print every problem with file:line:col.
    Check {
        /// Board description (YAML, format v1).
        board: PathBuf,
    },
    /// Generate every artifact of a board into a directory (atomically).
    Gen {
        /// Board description (YAML, format v1).
        board: PathBuf,
        /// Output directory (created or replaced as a whole).
        #[arg(short, long)]
        out: PathBuf,
    },
    /// Print the JSON Schema of the board format.
    Schema,
    /// List the validation rules (id, severity, summary); `--markdown`
    /// prints the rule table of docs/board-format.md.
    #[command(hide = true)]
    Rules {
        /// The Markdown table generated into docs/board-format.md.
        #[arg(long)]
        markdown: bool,
    },
    /// Kernel config checks.
    Kconfig {
        #[command(subcommand)]
        cmd: KconfigCmd,
    },
    /// Device-tree blob checks.
    Dtb {
        #[command(subcommand)]
        cmd: DtbCmd,
    },
    /// Benchmark runner: plan, run, rfc2544, compare, report (docs/bench.md).
    #[cfg(feature = "bench")]
    #[command(subcommand)]
    Bench(zynq_net_bench::cli::BenchCommand),
    /// Network-namespace lab to benchmark without hardware: up, down, status.
    #[cfg(feature = "bench")]
    #[command(subcommand)]
    Lab(zynq_net_bench::cli::LabCommand),
}

#[cfg(feature = "bench")]
fn bench_exit(r: anyhow::Result<i32>) -> ExitCode {
    match r {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(EXIT_INVALID)),
        Err(e) => {
            eprintln!("zynq-net: {e:#}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

#[derive(Subcommand)]
enum KconfigCmd {
    /// Compare a final kernel .config with what the board requires.
    Verify {
        /// Board description.
        board: PathBuf,
        /// The kernel's final .config.
        #[arg(long)]
        config: PathBuf,
    },
}

#[derive(Subcommand)]
enum DtbCmd {
    /// Confirm a compiled DTB carries every node and property the board asked for.
    Verify {
        /// Board description.
        board: PathBuf,
        /// Compiled device tree blob.
        dtb: PathBuf,
    },
}

fn load(path: &Path) -> Result<LoadedBoard, ExitCode> {
    match load_board(path) {
        Ok(b) => {
            if !b.warnings.is_empty() {
                eprint!("{}", b.warning_diagnostics().render());
            }
            Ok(b)
        }
        Err(LoadError::Invalid(d)) => {
            eprint!("{}", d.render());
            Err(ExitCode::from(EXIT_INVALID))
        }
        Err(e @ LoadError::Io { .. }) => {
            eprintln!("zynq-net: {e}");
            Err(ExitCode::from(EXIT_USAGE))
        }
    }
}

fn input_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

fn gen(board: &Path, out: &Path) -> ExitCode {
    let loaded = match load(board) {
        Ok(b) => b,
        Err(c) => return c,
    };
    let input = input_name(board);
    let artifacts = match zynq_net_render::render_all(&loaded.board, &input) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("zynq-net: internal error: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let resolved = match zynq_net_render::write::resolve_output(out) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("zynq-net: {e} (nothing was written)");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    if resolved.via_symlink {
        eprintln!(
            "zynq-net: note: {} goes through a symbolic link: writing {}",
            out.display(),
            resolved.path.display()
        );
    }
    // SIGINT/SIGTERM/SIGHUP set a flag instead of killing gen half-way:
    // write_atomic then removes its staging directory and gives up.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM, signal_hook::consts::SIGHUP] {
        let _ = signal_hook::flag::register(sig, std::sync::Arc::clone(&stop));
    }
    if let Some(ms) = std::env::var("ZYNQ_NET_TEST_GEN_DELAY_MS").ok().and_then(|v| v.parse::<u64>().ok()) {
        // tests: a window to deliver a signal while the staging directory exists
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
    let manifest = zynq_net_render::manifest::manifest_json(&artifacts, &input, &loaded.board.board.name);
    let mut files: Vec<(String, Vec<u8>, bool)> =
        artifacts.iter().map(|a| (a.path.clone(), a.contents.clone(), a.executable)).collect();
    files.push(("manifest.json".into(), manifest.into_bytes(), false));
    let cancelled = || stop.load(std::sync::atomic::Ordering::Relaxed);
    match zynq_net_render::write::write_atomic_cancellable(&resolved.path, &files, &cancelled) {
        Ok(()) => {
            println!("{}: wrote {} artifacts to {}", board.display(), artifacts.len(), out.display());
            ExitCode::from(EXIT_OK)
        }
        Err(e) if e.source.kind() == std::io::ErrorKind::Interrupted => {
            eprintln!("zynq-net: interrupted by a signal (nothing was written)");
            ExitCode::from(EXIT_INTERRUPTED)
        }
        Err(e) => {
            eprintln!("zynq-net: {e} (nothing was written)");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.cmd {
        Cmd::Check { board } => match load(&board) {
            Ok(b) => {
                println!(
                    "{}: ok ({} interfaces, {} warning(s))",
                    board.display(),
                    b.board.interfaces.len(),
                    b.warnings.len()
                );
                ExitCode::from(EXIT_OK)
            }
            Err(c) => c,
        },
        Cmd::Gen { board, out } => gen(&board, &out),
        Cmd::Schema => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            match out.write_all(zynq_net_model::schema::schema_json().as_bytes()).and_then(|()| out.flush()) {
                Ok(()) => ExitCode::from(EXIT_OK),
                Err(e) => {
                    eprintln!("zynq-net: cannot write the schema: {e}");
                    ExitCode::from(EXIT_USAGE)
                }
            }
        }
        Cmd::Rules { markdown } => {
            use std::io::Write;
            let text = if markdown {
                zynq_net_model::Rule::markdown_table()
            } else {
                zynq_net_model::Rule::ALL
                    .iter()
                    .map(|r| {
                        let sev = if r.severity() == zynq_net_model::Severity::Error { "error" } else { "warning" };
                        format!("{:<28} {sev:<7} {}\n", r.id(), r.summary())
                    })
                    .collect()
            };
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                Ok(()) => ExitCode::from(EXIT_OK),
                Err(e) => {
                    eprintln!("zynq-net: cannot write the rules: {e}");
                    ExitCode::from(EXIT_USAGE)
                }
            }
        }
        Cmd::Kconfig { cmd: KconfigCmd::Verify { board, config } } => match load(&board) {
            Ok(b) => verify::kconfig(&b, &config),
            Err(c) => c,
        },
        #[cfg(feature = "bench")]
        Cmd::Bench(c) => bench_exit(zynq_net_bench::cli::run_bench(c)),
        #[cfg(feature = "bench")]
        Cmd::Lab(c) => bench_exit(zynq_net_bench::cli::run_lab(c)),
        Cmd::Dtb { cmd: DtbCmd::Verify { board, dtb } } => match load(&board) {
            Ok(b) => verify::dtb(&b, &dtb),
            Err(c) => c,
        },
    }
}
