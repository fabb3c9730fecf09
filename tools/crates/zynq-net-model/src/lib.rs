//! zynq-net board model: the typed board description, span-preserving YAML
//! loading, the derived JSON Schema, and every validation rule.
//!
//! Flow: `load_board` parses YAML with positions ([`yaml`]), validates the
//! document against the JSON Schema derived from [`model::Board`]
//! ([`schema`]), deserializes it, then runs the semantic rules
//! ([`validate`]) and, for a board without errors, resolves it into the
//! board generators read, [`hi::HiBoard`], its string values turned into
//! typed ones ([`resolve`]). All problems come back at once as
//! [`Diagnostics`].
//!
//! `load_bench` reads the benchmark input of `zynq-net bench` with the same
//! machinery: a board file's `bench` section, or a standalone bench file
//! holding that section's keys at the top level ([`bench`]).

pub mod bench;
pub mod cpus;
pub mod diag;
pub mod drivers;
pub mod hi;
pub mod limits;
pub mod model;
pub mod out;
pub mod resolve;
pub mod rules;
pub mod schema;
mod text;
pub mod validate;
pub mod yaml;

#[cfg(test)]
mod branch_coverage;

/// The failing board cases of the cli crate's tests (one file read by both
/// crates' tests): the model's tests read every case's board text.
#[cfg(test)]
#[path = "../../zynq-net-cli/tests/bad_cases/mod.rs"]
#[allow(dead_code)]
mod bad_cases;

use std::path::{Path, PathBuf};

pub use diag::{Diagnostic, Diagnostics, Pos, Severity};
pub use hi::HiBoard;
pub use model::Board;
pub use rules::Rule;
pub use yaml::SourceMap;

/// A board that loaded without errors, with its warnings.
#[derive(Debug, Clone)]
pub struct LoadedBoard {
    /// The validated board, resolved ([`Board::resolve`]): its string
    /// values parsed once into typed ones. The only board generators read.
    pub board: HiBoard,
    /// The file it came from.
    pub file: PathBuf,
    /// The file's text.
    pub source: String,
    /// Warnings (already located).
    pub warnings: Vec<Diagnostic>,
}

impl LoadedBoard {
    /// Warnings as a [`Diagnostics`] set, for rendering.
    pub fn warning_diagnostics(&self) -> Diagnostics {
        diagnostics(&self.file, &self.source, self.warnings.clone())
    }
}

/// Loads and validates a board from text; `file` is used in messages.
///
/// # Errors
/// [`Diagnostics`] with every error and warning found, sorted by position.
pub fn load_board_str(file: &Path, text: &str) -> Result<LoadedBoard, Diagnostics> {
    let text = strip_bom(text);
    let (value, map) = yaml::load(text).map_err(|items| stopped(file, text, items))?;
    board_from(file, text, value, &map)
}

/// A byte order mark may open a YAML 1.2 stream (spec 5.2, editors on
/// Windows write one); it is not part of the first key.
fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// The diagnostics of a file (`text`: its text, shown under each one),
/// sorted by position (errors first at one position): every
/// [`Diagnostics`] the loaders return or a loaded file's warnings.
fn diagnostics(file: &Path, text: &str, mut items: Vec<Diagnostic>) -> Diagnostics {
    items.sort_by_key(|a| (a.pos, a.severity()));
    Diagnostics { file: file.to_path_buf(), source: text.to_string(), items, note: None }
}

/// What a user is told when the YAML or the schema stage stopped the checks.
const LATER_CHECKS: &str =
    "the value checks (ranges, driver and kernel limits, cross-references) run once these are fixed";

/// [`diagnostics`] for a stage that stops the later checks: says so.
fn stopped(file: &Path, text: &str, items: Vec<Diagnostic>) -> Diagnostics {
    Diagnostics { note: Some(LATER_CHECKS.to_string()), ..diagnostics(file, text, items) }
}

/// Validates and resolves a parsed board document.
fn board_from(file: &Path, text: &str, value: serde_json::Value, map: &SourceMap) -> Result<LoadedBoard, Diagnostics> {
    let fail = |items: Vec<Diagnostic>| diagnostics(file, text, items);
    if let Some(v) = value.get("version").and_then(serde_json::Value::as_u64) {
        if v != u64::from(model::FORMAT_VERSION) {
            let d = map.locate(Diagnostic::new(
                Rule::FormatVersion,
                "/version",
                format!(
                    "board format version {v} is not supported by this zynq-net (reads version {})",
                    model::FORMAT_VERSION
                ),
            ));
            return Err(fail(vec![d]));
        }
    }
    let structural: Vec<Diagnostic> = schema::validate_structure(&value, map)
        .into_iter()
        .map(|d| {
            // a bench file given to `check` (its sections at the top level)
            let key = d.pointer.strip_prefix('/').filter(|k| !k.contains('/')).map(str::to_string);
            match (d.rule, key) {
                (Rule::UnknownKey, Some(k)) if BENCH_SECTIONS.contains(&k.as_str()) => d.hint(format!(
                    "`{k}` is a section of a bench file (docs/bench.md): in a board file it goes under `bench:`; a bench file is read by the `zynq-net bench` commands (`--bench FILE`), not by `check`"
                )),
                _ => d,
            }
        })
        .collect();
    if !structural.is_empty() {
        return Err(stopped(file, text, structural));
    }
    let (board, warnings) = typed(value, map, fail, "board", validate::validate, Board::resolve)?;
    Ok(LoadedBoard { board, file: file.to_path_buf(), source: text.to_string(), warnings })
}

/// The top-level keys of a bench file (its sections), which a board file
/// has only under `bench:`.
const BENCH_SECTIONS: &[&str] = &["dut", "peers", "matrix", "rfc2544", "tester"];

/// The stages after the schema, for a board or a bench file (`what`):
/// deserialize the schema-valid document, run the semantic `rules`
/// (located with `map`), and `resolve` the value (consuming it) when no
/// rule reported an error. Returns the resolved value and the warnings,
/// sorted by position.
fn typed<T: serde::de::DeserializeOwned, R>(
    value: serde_json::Value,
    map: &SourceMap,
    fail: impl Fn(Vec<Diagnostic>) -> Diagnostics,
    what: &str,
    rules: impl FnOnce(&T) -> Vec<Diagnostic>,
    resolve: impl FnOnce(T) -> Result<R, resolve::Unresolved>,
) -> Result<(R, Vec<Diagnostic>), Diagnostics> {
    let internal = |ptr: String, msg: String| fail(vec![map.locate(Diagnostic::new(Rule::Internal, ptr, msg))]);
    let t: T = serde_json::from_value(value).map_err(|e| {
        internal(String::new(), format!("internal error: schema-valid {what} did not deserialize: {e}"))
    })?;
    let items: Vec<Diagnostic> = rules(&t).into_iter().map(|d| map.locate(d)).collect();
    if items.iter().any(Diagnostic::is_error) {
        return Err(fail(items));
    }
    let r = resolve(t)
        .map_err(|u| internal(u.ptr, format!("internal error: validated value `{}` did not resolve", u.what)))?;
    let mut warnings = items;
    warnings.sort_by_key(|d| d.pos);
    Ok((r, warnings))
}

/// A benchmark description loaded without errors ([`load_bench`]).
#[derive(Debug, Clone)]
pub struct LoadedBench {
    /// The validated `bench` section (of the board, or the bench file),
    /// resolved: its CPU lists and UDP rate as typed values.
    pub bench: hi::HiBench,
    /// The board's name when the file is a board file; `None` for a bench file.
    pub board: Option<String>,
    /// The file it came from.
    pub file: PathBuf,
    /// The file's text.
    pub source: String,
    /// Warnings (already located).
    pub warnings: Vec<Diagnostic>,
}

impl LoadedBench {
    /// Warnings as a [`Diagnostics`] set, for rendering.
    pub fn warning_diagnostics(&self) -> Diagnostics {
        diagnostics(&self.file, &self.source, self.warnings.clone())
    }
}

/// Which document a text is, by one structural rule (docs/bench.md, "The
/// bench file"): a mapping with a top-level `board` key is a board file;
/// any other document is a standalone bench file.
pub fn doc_kind(doc: &serde_json::Value) -> schema::DocKind {
    if doc.get("board").is_some() {
        schema::DocKind::Board
    } else {
        schema::DocKind::Bench
    }
}

/// Loads a benchmark description from text; `file` is used in messages.
///
/// A board file (a top-level `board` key, [`doc_kind`]) is loaded and
/// validated whole, as [`load_board_str`] does, and its `bench` section
/// returned (a board without one is a `missing-key` error). Any other
/// document is a standalone bench file: the keys of a board's `bench`
/// section (`dut`, `peers`, `matrix`, `rfc2544`) at the top level, checked
/// against the same schema (without a board's required `dut` and `peers`)
/// and the same bench rules, except those that need a board (the DUT's
/// interface, CPU lists against the board's CPU count).
///
/// # Errors
/// [`Diagnostics`] with every error and warning found, sorted by position;
/// each names `file:line:col`, what was expected and a hint.
pub fn load_bench_str(file: &Path, text: &str) -> Result<LoadedBench, Diagnostics> {
    let text = strip_bom(text);
    let fail = |items: Vec<Diagnostic>| diagnostics(file, text, items);
    let (value, map) = yaml::load(text).map_err(|items| {
        let items = items
            .into_iter()
            .map(|d| match d.rule {
                Rule::EmptyFile => d.hint("write a bench file (docs/bench.md) or a board file (docs/board-format.md)"),
                _ => d,
            })
            .collect();
        stopped(file, text, items)
    })?;
    if doc_kind(&value) == schema::DocKind::Board {
        let board = board_from(file, text, value, &map)?;
        let Some(bench) = board.board.bench else {
            let d = Diagnostic::new(
                Rule::MissingKey,
                "",
                format!(
                    "missing required key `bench`: board `{}` has no benchmark description",
                    board.board.board.name
                ),
            )
            .hint("add a `bench:` section (docs/board-format.md), or give a bench file (docs/bench.md)");
            return Err(fail(vec![map.locate(d)]));
        };
        return Ok(LoadedBench {
            bench,
            board: Some(board.board.board.name),
            file: file.to_path_buf(),
            source: text.to_string(),
            warnings: board.warnings,
        });
    }
    let structural: Vec<Diagnostic> = schema::validate_structure_of(&value, &map, schema::DocKind::Bench)
        .into_iter()
        .map(|d| {
            let key = d.pointer.strip_prefix('/').filter(|k| !k.contains('/'));
            match (d.rule, key.and_then(|k| schema::FORMER_SPEC_KEYS.iter().find(|(old, _)| *old == k))) {
                (Rule::UnknownKey, Some((old, new))) => d.hint(format!(
                    "`{old}` is a key of the former bench spec; a bench file writes it as `{new}` (docs/bench.md)"
                )),
                (Rule::UnknownKey, None) if key.is_some() => {
                    let h = d.hint.clone().unwrap_or_default();
                    d.hint(format!("{h} (a file with a top-level `board:` key is read as a board file)"))
                }
                _ => d,
            }
        })
        .collect();
    if !structural.is_empty() {
        return Err(stopped(file, text, structural));
    }
    let (bench, warnings) =
        typed(value, &map, fail, "bench file", |b| validate::bench(b, "", None), |b| hi::resolve_bench(b, "", None))?;
    Ok(LoadedBench { bench, board: None, file: file.to_path_buf(), source: text.to_string(), warnings })
}

/// Checks a `bench` section that no file holds as is (a file's section or
/// a saved plan's settings with command-line overrides applied): the
/// schema's ranges and types for a bench file and the bench rules that
/// need no board ([`validate::bench`]), the same checks a bench file gets.
/// Returns the errors, unlocated: each pointer is into the section
/// (`/matrix/duration_s`, `/rfc2544/frame_sizes/1`), for the caller to
/// name the option that set it.
///
/// A NaN or infinite number (JSON has none: it becomes `null`) is said as
/// such (`NaN or infinity: not a finite number`), and a value the schema
/// refused gets no second error from the bench rules.
pub fn check_bench(b: &bench::Bench) -> Vec<Diagnostic> {
    let mut out = match serde_json::to_value(b) {
        Ok(v) => schema::validate_structure_of(&v, &SourceMap::default(), schema::DocKind::Bench)
            .into_iter()
            .map(|d| match v.pointer(&d.pointer) {
                // a typed section is `null` only where a float was not finite
                Some(serde_json::Value::Null) => {
                    Diagnostic { message: "NaN or infinity: not a finite number".to_string(), ..d }
                }
                _ => d,
            })
            .collect(),
        Err(e) => vec![Diagnostic::new(Rule::Internal, "", format!("internal error: bench section as JSON: {e}"))],
    };
    let refused: Vec<String> = out.iter().map(|d| d.pointer.clone()).collect();
    out.extend(validate::bench(b, "", None).into_iter().filter(|d| !refused.contains(&d.pointer)));
    out.retain(Diagnostic::is_error);
    out
}

/// Reads a benchmark description: a board file's `bench` section or a
/// standalone bench file ([`load_bench_str`]), within the board loader's
/// limits (size, UTF-8, YAML limits).
///
/// # Errors
/// [`LoadError::Io`] when unreadable, [`LoadError::Invalid`] with all diagnostics.
pub fn load_bench(path: &Path) -> Result<LoadedBench, LoadError> {
    let text = read_bounded(path)?;
    load_bench_str(path, &text).map_err(LoadError::Invalid)
}

/// Largest board file accepted (bytes).
pub const MAX_BOARD_BYTES: u64 = 1 << 20;

/// Error reading a board file.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", crate::out::escaped_path(path))]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file has errors.
    #[error("{0}")]
    Invalid(Diagnostics),
}

/// A file that is not UTF-8 text (binary input): one error at the first
/// bad byte's line:col.
fn not_utf8(path: &Path, e: std::string::FromUtf8Error) -> Diagnostics {
    let valid = e.utf8_error().valid_up_to();
    let bytes = e.into_bytes();
    let prefix = String::from_utf8_lossy(&bytes[..valid]);
    let line = prefix.matches('\n').count() + 1;
    let col = prefix.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    let byte = bytes.get(valid).copied().unwrap_or(0);
    let d = Diagnostic {
        pos: Pos { line, col },
        ..Diagnostic::new(Rule::NotUtf8, "", format!("not UTF-8 text: byte 0x{byte:02x} at offset {valid}"))
    };
    diagnostics(path, &String::from_utf8_lossy(&bytes), vec![d])
}

/// Reads and validates a board file.
///
/// # Errors
/// [`LoadError::Io`] when unreadable, [`LoadError::Invalid`] with all diagnostics.
pub fn load_board(path: &Path) -> Result<LoadedBoard, LoadError> {
    let text = read_bounded(path)?;
    load_board_str(path, &text).map_err(LoadError::Invalid)
}

/// The bytes of `path` when it holds at most `cap` bytes, `None` when it
/// holds more: at most `cap + 1` bytes are read, so `/dev/zero`, a FIFO that
/// never ends or a stray disk image is refused without being read whole.
/// The one bounded read of every input file (board, bench, `.config`, DTB).
///
/// # Errors
/// The [`std::io::Error`] of opening or reading `path`.
pub fn read_at_most(path: &Path, cap: u64) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= cap).then_some(bytes))
}

/// Reads a file of at most [`MAX_BOARD_BYTES`] of UTF-8 text (rules
/// file-too-large, not-utf8).
fn read_bounded(path: &Path) -> Result<String, LoadError> {
    // A FIFO would block open(2) until a writer came (check and gen hung),
    // a device or socket is no board either: regular files only.
    if let Ok(m) = std::fs::metadata(path) {
        if !m.is_file() {
            let why = format!("{}, not a regular file: name the board's YAML file", file_kind(&m));
            return Err(LoadError::Io { path: path.to_path_buf(), source: std::io::Error::other(why) });
        }
    }
    // Bounded read: a board is kilobytes; /dev/zero or a stray image file is refused.
    let read =
        read_at_most(path, MAX_BOARD_BYTES).map_err(|source| LoadError::Io { path: path.to_path_buf(), source })?;
    board_text(path, read)
}

/// The text of a board read by [`read_at_most`] with [`MAX_BOARD_BYTES`]
/// (`None`: more than that), named `path` in diagnostics; also for a board
/// read from standard input, so both say the same (rules file-too-large,
/// not-utf8; exit 1).
///
/// # Errors
/// [`LoadError::Invalid`] with the file-too-large or not-utf8 diagnostic.
pub fn board_text(path: &Path, read: Option<Vec<u8>>) -> Result<String, LoadError> {
    let Some(bytes) = read else {
        let d = Diagnostic {
            pos: Pos { line: 1, col: 1 },
            ..Diagnostic::new(
                Rule::FileTooLarge,
                "",
                format!("larger than {} MiB: not a board file", MAX_BOARD_BYTES >> 20),
            )
        };
        return Err(LoadError::Invalid(diagnostics(path, "", vec![d])));
    };
    String::from_utf8(bytes).map_err(|e| LoadError::Invalid(not_utf8(path, e)))
}

/// What a non-regular file is, for the error (`is a FIFO`).
pub fn file_kind(m: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        if t.is_fifo() {
            return "is a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "is a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "is a device";
        }
    }
    if m.is_dir() {
        "is a directory"
    } else if m.file_type().is_symlink() {
        "is a symbolic link"
    } else {
        "is not a regular file"
    }
}

#[cfg(test)]
mod read_tests {
    use super::read_at_most;

    #[test]
    fn read_at_most_takes_exactly_cap_and_refuses_one_more() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, b"12345").unwrap();
        assert_eq!(read_at_most(&p, 5).unwrap().as_deref(), Some(&b"12345"[..]));
        assert_eq!(read_at_most(&p, 4).unwrap(), None);
        assert_eq!(read_at_most(&p, u64::MAX).unwrap().as_deref(), Some(&b"12345"[..]));
        // An endless file is refused after cap + 1 bytes, not read whole.
        assert_eq!(read_at_most(std::path::Path::new("/dev/zero"), 1 << 10).unwrap(), None);
        assert_eq!(read_at_most(&dir.path().join("absent"), 5).unwrap_err().kind(), std::io::ErrorKind::NotFound);
    }
}

/// The standalone bench file path of [`load_bench_str`] (the bench crate's
/// tests read bench files too, but the model's mutation run sees only the
/// model, render and CLI tests).
#[cfg(test)]
mod bench_file_tests {
    use super::{load_bench_str, Rule};
    use crate::bench::{Direction, Protocol};
    use std::path::Path;

    fn load(text: &str) -> Result<super::LoadedBench, super::Diagnostics> {
        load_bench_str(Path::new("bench.yml"), text)
    }

    /// The one diagnostic of a file that must fail: (rule, pointer, hint).
    fn only_error(text: &str) -> (Rule, String, String) {
        let d = load(text).map(|l| l.bench).expect_err("the file must fail");
        assert_eq!(d.items.len(), 1, "{d}");
        let i = &d.items[0];
        (i.rule, i.pointer.clone(), i.hint.clone().unwrap_or_default())
    }

    #[test]
    fn a_bench_file_loads_with_its_values_and_no_board() {
        let l = load("matrix: { protocols: [udp], directions: [rx, bidir], mtus: [9000], duration_s: 5 }\n")
            .unwrap_or_else(|d| panic!("{d}"));
        let m = l.bench.matrix.as_ref().expect("matrix");
        assert_eq!(
            (&m.protocols, &m.directions, &m.mtus, m.duration_s),
            (&vec![Protocol::Udp], &vec![Direction::Rx, Direction::Bidir], &vec![9000], 5)
        );
        assert_eq!((l.board, l.warnings.len(), l.file.as_path()), (None, 0, Path::new("bench.yml")));
    }

    /// CPU lists and the UDP rate come resolved (the bench runner reads them).
    #[test]
    fn a_bench_files_cpu_lists_and_rate_are_resolved() {
        let l = load(
            "matrix: { protocols: [udp], directions: [tx], mtus: [1500], pin_cpus: \"2-3\", peer_pin_cpus: 5, udp_rate: 2.5G }\n",
        )
        .unwrap_or_else(|d| panic!("{d}"));
        let cpus = |s: &Option<crate::resolve::CpuSet>| s.as_ref().map(|s| s.iter().collect::<Vec<_>>());
        let m = l.bench.matrix.as_ref().expect("matrix");
        assert_eq!((cpus(&m.pin_cpus), cpus(&m.peer_pin_cpus)), (Some(vec![2, 3]), Some(vec![5])));
        assert_eq!(m.udp_rate.map(|r| r.bits_per_second()), Some(2.5e9));
        assert!(l.bench.dut.is_none());
    }

    #[test]
    fn an_empty_bench_file_says_what_to_write() {
        let (rule, _, hint) = only_error("");
        assert_eq!(rule, Rule::EmptyFile);
        assert_eq!(hint, "write a bench file (docs/bench.md) or a board file (docs/board-format.md)");
    }

    /// `tester:` with nothing after it: the hint lists the section's keys,
    /// as an unknown key's does (the section's description alone named none).
    #[test]
    fn an_empty_section_lists_its_keys() {
        let (rule, pointer, hint) = only_error("tester:\n");
        assert_eq!((rule, pointer.as_str()), (Rule::WrongType, "/tester"));
        let keys = hint.split_once(" keys: ").map(|(_, k)| k.split(", ").collect::<Vec<_>>()).unwrap_or_default();
        assert!(hint.starts_with("expected: RFC 2544 with the trafgen tester"), "{hint}");
        // the keys serde writes for a section with every optional key set
        let t = crate::bench::Tester { latency_fps: Some(1.0), ..Default::default() };
        let fields = serde_json::to_value(t).expect("tester as JSON");
        let fields: Vec<&str> = fields.as_object().expect("a mapping").keys().map(String::as_str).collect();
        assert_eq!(keys, fields, "{hint}");
    }

    /// A repeated value's hint names `repeats` only where there is one (the
    /// matrix); the tester and rfc2544 lists run each value once.
    #[test]
    fn a_repeated_value_names_repeats_only_in_the_matrix() {
        let (rule, pointer, hint) = only_error("tester: { frame_sizes: [64, 64] }\n");
        assert_eq!(
            (rule, pointer.as_str(), hint.as_str()),
            (Rule::BenchRepeated, "/tester/frame_sizes/1", "remove the repeated value")
        );
        let (_, pointer, hint) = only_error("rfc2544: { frame_sizes: [64, 64], line_rate_mbps: 1000 }\n");
        assert_eq!((pointer.as_str(), hint.as_str()), ("/rfc2544/frame_sizes/1", "remove the repeated value"));
        let (_, pointer, hint) = only_error("matrix: { protocols: [tcp, tcp], directions: [tx], mtus: [1500] }\n");
        assert_eq!(pointer, "/matrix/protocols/1");
        assert!(hint.contains("use `repeats`"), "{hint}");
    }

    /// A bench file given where a board is read (`check`): its sections
    /// are unknown keys of a board, and the hint says where they belong
    /// (it offered `did you mean `system`?` for `tester`).
    #[test]
    fn a_bench_section_in_a_board_says_where_it_belongs() {
        let text =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../meta-zynq-net/boards/p1020rdb.yml"))
                .expect("the reference board");
        let text = format!("{text}tester: {{ flows: 8 }}\n");
        let d = super::load_board_str(Path::new("b.yml"), &text).map(|_| ()).expect_err("an unknown key");
        assert_eq!(d.items.len(), 1, "{d}");
        assert_eq!((d.items[0].rule, d.items[0].pointer.as_str()), (Rule::UnknownKey, "/tester"));
        assert!(
            d.items[0].hint.as_deref().is_some_and(|h| h.starts_with("`tester` is a section of a bench file")),
            "{d}"
        );
        // keys of the schema's Bench, so the list cannot drift from it
        let bench = crate::schema::bench_schema_of(&crate::schema::schema_value());
        let keys: Vec<&str> =
            bench["properties"].as_object().expect("Bench properties").keys().map(String::as_str).collect();
        assert_eq!(super::BENCH_SECTIONS, keys.as_slice());
    }

    #[test]
    fn a_former_spec_key_names_its_new_place() {
        let (rule, pointer, hint) = only_error("duration: 10\n");
        assert_eq!((rule, pointer.as_str()), (Rule::UnknownKey, "/duration"));
        assert_eq!(hint, "`duration` is a key of the former bench spec; a bench file writes it as `matrix: { duration_s: ... }` (docs/bench.md)");
        // Only at the top level: the same word inside a section is an unknown key of that section.
        let (rule, pointer, hint) =
            only_error("matrix: { protocols: [tcp], directions: [tx], mtus: [1500], duration: 10 }\n");
        assert_eq!((rule, pointer.as_str()), (Rule::UnknownKey, "/matrix/duration"));
        assert!(!hint.contains("former") && !hint.contains("board file"), "{hint}");
    }

    #[test]
    fn an_unknown_top_level_key_says_how_a_board_file_is_told_apart() {
        let (rule, pointer, hint) = only_error("matrx: {}\n");
        assert_eq!((rule, pointer.as_str()), (Rule::UnknownKey, "/matrx"));
        assert!(hint.ends_with(" (a file with a top-level `board:` key is read as a board file)"), "{hint}");
        assert!(hint.len() > " (a file with a top-level `board:` key is read as a board file)".len(), "{hint}");
    }

    #[test]
    fn protocols_and_directions_display_as_written() {
        for p in [Protocol::Tcp, Protocol::Udp] {
            assert_eq!(serde_json::to_value(p).unwrap(), serde_json::Value::from(p.to_string()));
        }
        for d in [Direction::Tx, Direction::Rx, Direction::Bidir] {
            assert_eq!(serde_json::to_value(d).unwrap(), serde_json::Value::from(d.to_string()));
        }
    }
}

#[cfg(test)]
mod testutil;
