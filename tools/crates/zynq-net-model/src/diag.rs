//! Diagnostics: every problem in a board file, each with `file:line:col`,
//! what was expected and a hint (the style of `just` and kas: report all
//! errors, not the first).

use std::fmt;
use std::path::{Path, PathBuf};

/// Severity of a diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The board is invalid; nothing is generated.
    Error,
    /// The board is valid but something deserves attention.
    Warning,
}

/// A 1-based line and column in the board file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Pos {
    /// Line, 1-based.
    pub line: usize,
    /// Column, 1-based (characters).
    pub col: usize,
}

/// One problem found in a board file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Where in the file.
    pub pos: Pos,
    /// JSON pointer of the offending value (`/interfaces/0/rings/rx`).
    pub pointer: String,
    /// What is wrong and what was expected.
    pub message: String,
    /// How to fix it.
    pub hint: Option<String>,
}

impl Diagnostic {
    /// An error at `pointer` (position filled in by [`crate::SourceMap::locate`]).
    pub fn error(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Error, pos: Pos::default(), pointer: pointer.into(), message: message.into(), hint: None }
    }

    /// A warning at `pointer`.
    pub fn warning(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(pointer, message) }
    }

    /// Adds a hint.
    #[must_use]
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Renders the diagnostic against the file it came from:
    ///
    /// ```text
    /// error: boards/x.yml:12:11: rx ring 1000 is not a power of two (gianfar)
    ///    |
    /// 12 |       rx: 1000
    ///    |           ^
    ///    = hint: use 512 or 1024 ...
    /// ```
    pub fn render(&self, file: &Path, source: &str) -> String {
        Rendered { d: self, file, source }.to_string()
    }
}

struct Rendered<'a> {
    d: &'a Diagnostic,
    file: &'a Path,
    source: &'a str,
}

impl fmt::Display for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        writeln!(f, "{kind}: {}:{}:{}: {}", self.file.display(), self.d.pos.line, self.d.pos.col, self.d.message)?;
        if let Some(text) = self.source.lines().nth(self.d.pos.line.saturating_sub(1)) {
            let num = self.d.pos.line.to_string();
            let pad = " ".repeat(num.len());
            writeln!(f, "{pad} |")?;
            writeln!(f, "{num} | {text}")?;
            writeln!(f, "{pad} | {}^", " ".repeat(self.d.pos.col.saturating_sub(1)))?;
            if let Some(h) = &self.d.hint {
                writeln!(f, "{pad} = hint: {h}")?;
            }
        } else if let Some(h) = &self.d.hint {
            writeln!(f, "  = hint: {h}")?;
        }
        Ok(())
    }
}

/// The result of loading a board file that has errors: every diagnostic.
#[derive(Debug, Clone)]
pub struct Diagnostics {
    /// The file the diagnostics refer to.
    pub file: PathBuf,
    /// The file's text (for rendering source lines).
    pub source: String,
    /// All diagnostics, sorted by position.
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Number of errors.
    pub fn error_count(&self) -> usize {
        self.items.iter().filter(|d| d.is_error()).count()
    }

    /// Renders every diagnostic plus a summary line.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for d in &self.items {
            out.push_str(&d.render(&self.file, &self.source));
        }
        let errors = self.error_count();
        let warnings = self.items.len() - errors;
        out.push_str(&format!("{}: {errors} error(s), {warnings} warning(s)\n", self.file.display()));
        out
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for Diagnostics {}
