//! Diagnostics: every problem in a board file, each with `file:line:col`,
//! what was expected and a hint (the style of `just` and kas: report all
//! errors, not the first).

use std::fmt;
use std::path::{Path, PathBuf};

use crate::rules::Rule;

pub use crate::rules::Severity;

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
    /// The rule it breaks (its id, severity, fixed hint and source).
    pub rule: Rule,
    /// Where in the file.
    pub pos: Pos,
    /// JSON pointer of the offending value (`/interfaces/0/rings/rx`).
    pub pointer: String,
    /// What is wrong and what was expected.
    pub message: String,
    /// How to fix it.
    pub hint: Option<String>,
    /// Where in zynq-net's source the diagnostic was made: the line of the
    /// `Diagnostic::new` call, or of the call of a `#[track_caller]` report
    /// helper. Not shown to users; the rule-branch coverage test maps it to
    /// the rule's reporting site (each `Rule::X` written in the loader) to
    /// hold a failing case for every branch of every rule.
    pub site: Site,
}

/// Where in zynq-net's source a [`Diagnostic`] was made (see
/// [`Diagnostic::site`]). Every two sites compare equal and print as
/// `Site`: where a diagnostic was made never makes two diagnostics differ.
#[derive(Clone, Copy)]
pub struct Site(pub &'static std::panic::Location<'static>);

impl PartialEq for Site {
    fn eq(&self, _: &Site) -> bool {
        true
    }
}

impl Eq for Site {}

impl std::fmt::Debug for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Site")
    }
}

impl Diagnostic {
    /// A diagnostic of `rule` at `pointer`, with the rule's fixed hint if it
    /// has one (position filled in by [`crate::SourceMap::locate`]).
    #[track_caller]
    pub fn new(rule: Rule, pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            site: Site(std::panic::Location::caller()),
            rule,
            pos: Pos::default(),
            pointer: pointer.into(),
            message: message.into(),
            hint: rule.hint().map(str::to_string),
        }
    }

    /// Error or warning: the rule's severity.
    pub fn severity(&self) -> Severity {
        self.rule.severity()
    }

    /// Sets the hint (for a rule whose hint depends on the value).
    #[must_use]
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity() == Severity::Error
    }

    /// Renders the diagnostic against the file it came from:
    ///
    /// ```text
    /// error[ring-pow2]: boards/x.yml:12:11: rx ring 1000 is not a power of two (gianfar)
    ///    |
    /// 12 |       rx: 1000
    ///    |           ^
    ///    = hint: use 512 or 1024 ...
    /// ```
    pub fn render(&self, file: &Path, source: &str) -> String {
        Rendered { d: self, file, source }.to_string()
    }
}

/// Longest part of a source line shown under a diagnostic, in characters.
const EXCERPT_CHARS: usize = 100;
/// Longest message shown, in characters (messages may quote a value).
const MESSAGE_CHARS: usize = 300;

/// At most [`EXCERPT_CHARS`] of `line` around column `col` (1-based), with
/// `…` where it was cut, and the caret column within the excerpt.
fn excerpt(line: &str, col: usize) -> (String, usize) {
    let len = line.chars().count();
    if len <= EXCERPT_CHARS {
        return (line.to_string(), col);
    }
    let c = col.saturating_sub(1).min(len);
    let start = c.saturating_sub(EXCERPT_CHARS / 2).min(len - EXCERPT_CHARS);
    let end = start + EXCERPT_CHARS;
    let mut s = String::new();
    if start > 0 {
        s.push('…');
    }
    s.extend(line.chars().skip(start).take(EXCERPT_CHARS));
    if end < len {
        s.push('…');
    }
    (s, c - start + 1 + usize::from(start > 0))
}

/// `s` with every control character but the tab shown as U+FFFD, one
/// character for one (the caret column stays right): a file's bytes are
/// echoed to a terminal, where ESC sequences would clear the screen or set
/// the title.
fn printable(s: &str) -> String {
    s.chars().map(|c| if c.is_control() && c != '\t' { '\u{FFFD}' } else { c }).collect()
}

fn shorten(msg: &str) -> std::borrow::Cow<'_, str> {
    if msg.chars().count() <= MESSAGE_CHARS {
        return msg.into();
    }
    let mut s: String = msg.chars().take(MESSAGE_CHARS).collect();
    s.push('…');
    s.into()
}

struct Rendered<'a> {
    d: &'a Diagnostic,
    file: &'a Path,
    source: &'a str,
}

impl fmt::Display for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.d.severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        writeln!(
            f,
            "{kind}[{}]: {}:{}:{}: {}",
            self.d.rule.id(),
            crate::out::escaped_path(self.file),
            self.d.pos.line,
            self.d.pos.col,
            crate::out::escaped(&shorten(&self.d.message))
        )?;
        if let Some(text) = self.source.lines().nth(self.d.pos.line.saturating_sub(1)) {
            let num = self.d.pos.line.to_string();
            let pad = " ".repeat(num.len());
            let (text, col) = excerpt(&printable(text), self.d.pos.col);
            writeln!(f, "{pad} |")?;
            writeln!(f, "{num} | {text}")?;
            writeln!(f, "{pad} | {}^", " ".repeat(col.saturating_sub(1)))?;
            if let Some(h) = &self.d.hint {
                writeln!(f, "{pad} = hint: {}", crate::out::escaped(h))?;
            }
        } else if let Some(h) = &self.d.hint {
            writeln!(f, "  = hint: {}", crate::out::escaped(h))?;
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
    /// Said after the diagnostics when a stage stopped the checks, so the
    /// user knows a fixed file may show more (e.g. the value checks run
    /// only on a file whose structure is valid).
    pub note: Option<String>,
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
        if let Some(n) = &self.note {
            out.push_str(&format!("note: {n}\n"));
        }
        out.push_str(&format!("{}: {errors} error(s), {warnings} warning(s)\n", crate::out::escaped_path(&self.file)));
        out
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `Diagnostics` shown as an error (`{}`: error chains, the bench
    /// crate) is the same text `check` prints: every item located, then the
    /// count line.
    #[test]
    fn display_is_the_rendered_report() {
        let e = crate::load_board_str(Path::new("b.yml"), "version: 1\nboard: 3\n").unwrap_err();
        let shown = e.to_string();
        assert_eq!(shown, e.render());
        assert!(
            shown.contains("error[wrong-type]: b.yml:2:8: ") && shown.ends_with("b.yml: 2 error(s), 0 warning(s)\n"),
            "{shown}"
        );
    }

    #[test]
    fn long_lines_are_cut_around_the_column() {
        let line = format!("key: {}X{}", "a".repeat(5000), "b".repeat(5000));
        let (ex, col) = excerpt(&line, 5006);
        assert!(ex.chars().count() <= EXCERPT_CHARS + 2, "{}", ex.len());
        assert_eq!(ex.chars().nth(col - 1), Some('X'), "{ex}");
        assert!(ex.starts_with('…') && ex.ends_with('…'));
        // centred: half the excerpt before the column (after the `…`)
        assert_eq!(col, EXCERPT_CHARS / 2 + 2, "{ex}");
        // at the end of the line the excerpt is the line's last EXCERPT_CHARS
        let (ex, col) = excerpt(&line, line.len());
        assert_eq!((ex.chars().count(), col), (EXCERPT_CHARS + 1, EXCERPT_CHARS + 1), "{ex}");
        assert!(ex.starts_with('…') && ex.ends_with('b'), "{ex}");
        // at the start of the line: no leading `…`, the column as it is
        let (ex, col) = excerpt(&line, 5);
        assert_eq!((ex.chars().count(), col), (EXCERPT_CHARS + 1, 5), "{ex}");
        assert!(ex.starts_with("key: a") && ex.ends_with('…'), "{ex}");
        let (ex, col) = excerpt("short: 1", 8);
        assert_eq!((ex.as_str(), col), ("short: 1", 8));
        let d = Diagnostic::new(Rule::Internal, "", "x".repeat(10_000));
        assert!(d.render(Path::new("f"), &line).len() < 1000);
    }

    /// A message of exactly the limit is shown whole; one character more is
    /// cut there, with `…`.
    #[test]
    fn messages_are_cut_past_the_limit() {
        let at = "é".repeat(MESSAGE_CHARS);
        assert_eq!(shorten(&at), at.as_str());
        let past = format!("{at}x");
        assert_eq!(shorten(&past), format!("{at}…"));
    }

    #[test]
    fn control_characters_of_the_file_are_not_echoed() {
        let d = Diagnostic { pos: Pos { line: 1, col: 9 }, ..Diagnostic::new(Rule::YamlSyntax, "", "bad") };
        let out = d.render(Path::new("b\u{1b}]0;t\u{7}.yml"), "name: \u{1b}[2J x\u{9b}1m\tz\n");
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}') && !out.contains('\u{9b}'), "{out:?}");
        assert!(out.contains("1 | name: \u{FFFD}[2J x\u{FFFD}1m\tz\n"), "{out:?}");
        // the caret still points at column 9 (one character per control character)
        assert!(out.contains("  |         ^\n"), "{out:?}");
        // the file name as escapes, as docs/cli.md says of names and values
        assert!(out.starts_with("error[yaml-syntax]: b\\u{1b}]0;t\\u{7}.yml:1:9: bad\n"), "{out:?}");
        let all = Diagnostics { file: "a\nok.yml".into(), source: "x\n".into(), items: vec![d], note: None }.render();
        assert!(all.ends_with("a\\nok.yml: 1 error(s), 0 warning(s)\n"), "{all:?}");
    }

    #[test]
    fn rendering_names_the_rule_and_its_severity() {
        let mut d = Diagnostic::new(Rule::RingPow2, "/interfaces/0/rings/rx", "rx ring 100 is not a power of two");
        d.pos = Pos { line: 2, col: 9 };
        let r = d.hint("use 64 or 128").render(Path::new("b.yml"), "a: 1\nrings: 100\n");
        assert!(r.starts_with("error[ring-pow2]: b.yml:2:9: rx ring 100 is not a power of two\n"), "{r}");
        assert!(r.ends_with("  = hint: use 64 or 128\n"), "{r}");
        let w = Diagnostic::new(Rule::RingRounded, "", "rounded");
        assert_eq!(w.severity(), Severity::Warning);
        assert!(w.render(Path::new("b.yml"), "").starts_with("warning[ring-rounded]: b.yml:0:0: rounded\n"));
        // a rule's fixed hint comes with it
        assert_eq!(Diagnostic::new(Rule::MacZero, "", "zero").hint, Rule::MacZero.hint().map(str::to_string));
    }
}
