//! `zynq-net`: the command-line front end. Thin: parsing arguments, calling
//! the library crates, printing, and mapping results to exit codes.
//!
//! Exit codes (README, docs/board-format.md): 0 success; 1 invalid board or
//! verification mismatch; 2 usage or I/O error; 130 `gen` interrupted. Every
//! command returns `Result<(), Failure>`; [`exit::exit`] is the one place
//! that maps it to a code.

#[cfg(feature = "bench")]
mod bench;
mod exit;
mod verify;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use exit::Failure;
use zynq_net_model::{load_board, LoadError, LoadedBoard};

/// mimalloc instead of glibc malloc: a `check` or `gen` process allocates
/// many small values (YAML nodes, JSON maps) and frees them at exit;
/// under glibc malloc/free were a fifth of its instructions (callgrind,
/// benches/gen).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
        #[command(flatten)]
        dts: DtsArgs,
    },
    /// Generate every artifact of a board into a directory (atomically).
    Gen {
        /// Board description (YAML, format v1).
        board: PathBuf,
        /// Output directory (created or replaced as a whole).
        #[arg(short, long)]
        out: PathBuf,
        #[command(flatten)]
        dts: DtsArgs,
    },
    /// Print the JSON Schema of the board format.
    Schema,
    /// List the validation rules, or explain one (`zynq-net rules ring-pow2`).
    Rules {
        /// Explain one rule (the id in `error[ID]`): summary, source, hint.
        #[arg(conflicts_with = "markdown")]
        id: Option<String>,
        /// The Markdown table generated into docs/board-format.md.
        #[arg(long, hide = true)]
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
    /// Benchmark runner: plan, run, rfc2544, rfc2544-tester, ablate, compare, report (docs/bench.md).
    #[cfg(feature = "bench")]
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Network-namespace lab to benchmark without hardware: up, down, status.
    #[cfg(feature = "bench")]
    #[command(subcommand)]
    Lab(bench::LabCommand),
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

/// The board DTS, when at hand: with a kernel tree, `board.dts` is built
/// as the kernel does (cpp + dtc -@) and every label the board refers to
/// is looked up in it (rule dt-label-missing), its root compatible
/// against `board.soc` (rule soc-dts), before anything is written.
#[derive(clap::Args)]
struct DtsArgs {
    /// Kernel source tree holding `arch/ARCH/boot/dts/<board.dts>`.
    #[arg(long, value_name = "DIR")]
    kernel_tree: Option<PathBuf>,
    /// A file #included after the board DTS (a design's pl.dtsi), repeatable.
    #[arg(long = "include", value_name = "FILE", requires = "kernel_tree")]
    includes: Vec<PathBuf>,
}

/// The checks against the board DTS ([`DtsArgs`]); nothing when no kernel
/// tree is given or the board names no `dts`.
/// `writes`: the command writes files (gen), so an error says nothing was.
fn check_dts(b: &LoadedBoard, a: &DtsArgs, writes: bool) -> Result<(), Failure> {
    let Some(tree) = &a.kernel_tree else { return Ok(()) };
    let Some(dts) = &b.board.board.dts else {
        eprintln!("zynq-net: note: --kernel-tree given but the board names no `dts`: labels not checked");
        return Ok(());
    };
    let d = zynq_net_render::kernel_dts::board_dts(tree, b.board.board.arch, dts, &a.includes)
        .map_err(|e| Failure::Usage(format!("board DTS: {e}{}", if writes { " (nothing was written)" } else { "" })))?;
    let mut items = zynq_net_model::validate::labels(&b.board, &d.labels, &d.name);
    items.extend(zynq_net_model::validate::dt_paths(&b.board, &d.paths, &d.name));
    let soc = b.board.board.soc;
    if let Some(s) = zynq_net_model::validate::soc_of_compatible(&d.compatible) {
        if s != soc {
            items.push(zynq_net_model::Diagnostic::new(
                zynq_net_model::Rule::SocDts,
                "/board/soc",
                format!("soc `{soc}` but {dts} is a {s} board (root compatible {})", d.compatible.join(", ")),
            ));
        }
    }
    if items.is_empty() {
        return Ok(());
    }
    eprint!("{}", zynq_net_model::validate::located(b, items).render());
    Err(Failure::Invalid)
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

/// The board named `-`: standard input (at most
/// [`zynq_net_model::MAX_BOARD_BYTES`] of UTF-8), shown as `<stdin>`.
fn load_stdin() -> Result<zynq_net_model::LoadedBoard, LoadError> {
    use std::io::Read;
    let file = Path::new(STDIN_NAME);
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(zynq_net_model::MAX_BOARD_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| LoadError::Io { path: file.to_path_buf(), source })?;
    let read = (bytes.len() as u64 <= zynq_net_model::MAX_BOARD_BYTES).then_some(bytes);
    let text = zynq_net_model::board_text(file, read)?;
    zynq_net_model::load_board_str(file, &text).map_err(LoadError::Invalid)
}

/// How a board read from standard input (`-`) is named.
const STDIN_NAME: &str = "<stdin>";

/// Loads a board (`-`: standard input), printing its warnings, or its
/// diagnostics when invalid.
fn load(path: &Path) -> Result<LoadedBoard, Failure> {
    let loaded = if path == Path::new("-") { load_stdin() } else { load_board(path) };
    match loaded {
        Ok(b) => {
            if !b.warnings.is_empty() {
                eprint!("{}", b.warning_diagnostics().render());
            }
            Ok(b)
        }
        Err(LoadError::Invalid(d)) => {
            eprint!("{}", d.render());
            Err(Failure::Invalid)
        }
        Err(e @ LoadError::Io { .. }) => Err(Failure::Usage(e.to_string())),
    }
}

fn input_name(path: &Path) -> String {
    if path == Path::new("-") {
        return STDIN_NAME.into();
    }
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// A board path as the one-line reports show it: `<stdin>` for `-`,
/// control characters escaped ([`zynq_net_model::out::escaped`]).
fn shown(path: &Path) -> String {
    if path == Path::new("-") {
        return STDIN_NAME.into();
    }
    zynq_net_model::out::escaped_path(path)
}

fn gen(board: &Path, out: &Path, dts: &DtsArgs) -> Result<(), Failure> {
    // SIGINT/SIGTERM/SIGHUP set a flag instead of killing gen half-way:
    // write_atomic then removes its staging directory and gives up. Set
    // first, so that a signal while the board is read ends in the same
    // "interrupted" (130), not in death by the signal (143).
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM, signal_hook::consts::SIGHUP] {
        let _ = signal_hook::flag::register(sig, std::sync::Arc::clone(&stop));
    }
    // The output directory first: a system directory is refused before
    // the board is read (docs/cli.md).
    let resolved = zynq_net_render::write::resolve_output(out)
        .map_err(|e| Failure::Usage(format!("{e} (nothing was written)")))?;
    let loaded = load(board)?;
    check_dts(&loaded, dts, true)?;
    let input = input_name(board);
    let artifacts = zynq_net_render::render_all(&loaded.board, &input)
        .map_err(|e| Failure::Usage(format!("internal error: {e}")))?;
    if resolved.via_symlink {
        eprintln!("zynq-net: note: {} goes through a symbolic link: writing {}", shown(out), shown(&resolved.path));
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
            zynq_net_model::outln!("{}: wrote {} artifacts to {}", shown(board), artifacts.len(), shown(out));
            Ok(())
        }
        Err(e) if e.source.kind() == std::io::ErrorKind::Interrupted => Err(Failure::Interrupted),
        Err(e) => Err(Failure::Usage(format!("{e} (nothing was written)"))),
    }
}

/// `zynq-net rules`: the list, one rule explained, or the docs' table.
fn rules_text(id: Option<&str>, markdown: bool) -> Result<String, Failure> {
    use zynq_net_model::{Rule, Severity};
    let sev = |r: Rule| if r.severity() == Severity::Error { "error" } else { "warning" };
    if markdown {
        return Ok(Rule::markdown_table());
    }
    let Some(id) = id else {
        return Ok(Rule::ALL.iter().map(|r| format!("{:<28} {:<7} {}\n", r.id(), sev(*r), r.summary())).collect());
    };
    let r = Rule::from_id(id).ok_or_else(|| {
        Failure::Usage(match Rule::closest(id) {
            Some(c) => format!("no rule `{id}`; did you mean `{}`? (zynq-net rules lists them)", c.id()),
            None => format!("no rule `{id}` (zynq-net rules lists them)"),
        })
    })?;
    let hint = r.hint().unwrap_or("depends on the value (see the diagnostic)");
    Ok(format!("{}[{}]: {}\nsource: {}\nhint: {hint}\n", sev(r), r.id(), r.summary(), r.source()))
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return exit::exit(if e.use_stderr() { Err(Failure::BadArguments) } else { Ok(()) });
        }
    };
    exit::exit(run(cli.cmd))
}

fn run(cmd: Cmd) -> Result<(), Failure> {
    match cmd {
        Cmd::Check { board, dts } => {
            let b = load(&board)?;
            check_dts(&b, &dts, false)?;
            zynq_net_model::outln!(
                "{}: ok ({} interfaces, {} warning(s))",
                shown(&board),
                b.board.interfaces.len(),
                b.warnings.len()
            );
            Ok(())
        }
        Cmd::Gen { board, out, dts } => gen(&board, &out, &dts),
        Cmd::Schema => {
            zynq_net_model::out!("{}", zynq_net_model::schema::schema_json());
            Ok(())
        }
        Cmd::Rules { id, markdown } => {
            zynq_net_model::out!("{}", rules_text(id.as_deref(), markdown)?);
            Ok(())
        }
        Cmd::Kconfig { cmd: KconfigCmd::Verify { board, config } } => verify::kconfig(&load(&board)?, &config),
        Cmd::Dtb { cmd: DtbCmd::Verify { board, dtb } } => verify::dtb(&load(&board)?, &dtb),
        #[cfg(feature = "bench")]
        Cmd::Bench(c) => exit::bench(bench::run_bench(c)),
        #[cfg(feature = "bench")]
        Cmd::Lab(c) => exit::bench(bench::run_lab(c)),
    }
}
