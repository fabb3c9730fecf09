//! zynq-net board model: the typed board description, span-preserving YAML
//! loading, the derived JSON Schema, and every validation rule.
//!
//! Flow: `load_board` parses YAML with positions ([`yaml`]), validates the
//! document against the JSON Schema derived from [`model::Board`]
//! ([`schema`]), deserializes it, then runs the semantic rules
//! ([`validate`]) and, for a board without errors, resolves its string
//! values into typed ones ([`resolve`]). All problems come back at once as
//! [`Diagnostics`].

pub mod bench;
pub mod cpus;
pub mod diag;
pub mod drivers;
pub mod limits;
pub mod model;
pub mod resolve;
pub mod rules;
pub mod schema;
pub mod validate;
pub mod yaml;

use std::path::{Path, PathBuf};

pub use diag::{Diagnostic, Diagnostics, Pos, Severity};
pub use model::Board;
pub use rules::Rule;
pub use yaml::SourceMap;

/// A board that loaded without errors, with its warnings.
#[derive(Debug, Clone)]
pub struct LoadedBoard {
    /// The validated board.
    pub board: Board,
    /// Its typed values ([`resolve`]): what generators read instead of
    /// the board's strings.
    pub resolved: resolve::Resolved,
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
        Diagnostics { file: self.file.clone(), source: self.source.clone(), items: self.warnings.clone() }
    }
}

/// Loads and validates a board from text; `file` is used in messages.
///
/// # Errors
/// [`Diagnostics`] with every error and warning found, sorted by position.
pub fn load_board_str(file: &Path, text: &str) -> Result<LoadedBoard, Diagnostics> {
    // A byte order mark may open a YAML 1.2 stream (spec 5.2, editors on
    // Windows write one); it is not part of the first key.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let fail = |items: Vec<Diagnostic>| {
        let mut items = items;
        items.sort_by_key(|a| (a.pos, a.severity()));
        Diagnostics { file: file.to_path_buf(), source: text.to_string(), items }
    };
    let (value, map) = yaml::load(text).map_err(fail)?;
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
    let structural = schema::validate_structure(&value, &map);
    if !structural.is_empty() {
        return Err(fail(structural));
    }
    let board: Board = serde_json::from_value(value).map_err(|e| {
        fail(vec![map.locate(Diagnostic::new(
            Rule::Internal,
            "",
            format!("internal error: schema-valid board did not deserialize: {e}"),
        ))])
    })?;
    let items: Vec<Diagnostic> = validate::validate(&board).into_iter().map(|d| map.locate(d)).collect();
    if items.iter().any(Diagnostic::is_error) {
        return Err(fail(items));
    }
    let resolved = resolve::resolve(&board).map_err(|u| {
        fail(vec![map.locate(Diagnostic::new(
            Rule::Internal,
            u.ptr,
            format!("internal error: validated value `{}` did not resolve", u.what),
        ))])
    })?;
    let mut warnings = items;
    warnings.sort_by_key(|d| d.pos);
    Ok(LoadedBoard { board, resolved, file: file.to_path_buf(), source: text.to_string(), warnings })
}

/// Largest board file accepted (bytes).
pub const MAX_BOARD_BYTES: u64 = 1 << 20;

/// Error reading a board file.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
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
    Diagnostics { file: path.to_path_buf(), source: String::from_utf8_lossy(&bytes).into_owned(), items: vec![d] }
}

/// Reads and validates a board file.
///
/// # Errors
/// [`LoadError::Io`] when unreadable, [`LoadError::Invalid`] with all diagnostics.
pub fn load_board(path: &Path) -> Result<LoadedBoard, LoadError> {
    use std::io::Read;
    let io = |source| LoadError::Io { path: path.to_path_buf(), source };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    // Bounded read: a board is kilobytes; /dev/zero or a stray image file is refused.
    file.take(MAX_BOARD_BYTES + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > MAX_BOARD_BYTES {
        let d = Diagnostic {
            pos: Pos { line: 1, col: 1 },
            ..Diagnostic::new(
                Rule::FileTooLarge,
                "",
                format!("larger than {} MiB: not a board file", MAX_BOARD_BYTES >> 20),
            )
        };
        return Err(LoadError::Invalid(Diagnostics {
            file: path.to_path_buf(),
            source: String::new(),
            items: vec![d],
        }));
    }
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => return Err(LoadError::Invalid(not_utf8(path, e))),
    };
    load_board_str(path, &text).map_err(LoadError::Invalid)
}
