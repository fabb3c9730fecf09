//! The failing board cases of `tests/fixtures/bad-cases.txt`: each a few
//! text edits planting one fault in a base board, and the diagnostics that
//! fault must give (the model: ripgrep's flag tests in
//! crates/core/flags/defs.rs, each case a few lines next to what it tests).
//!
//! This module reads and applies them and nothing else (std only), so the
//! model crate's tests include it too (`#[path]` in zynq-net-model's
//! lib.rs) and see every case's board text. The cli tests (tests/cli.rs)
//! run `zynq-net gen` on each and check its diagnostics.
//!
//! The file, one item per line (leading blanks ignored; `#` starts a
//! comment line):
//!
//! ```text
//! board NAME            an inline base board, its text on `| ` lines
//! | TEXT
//! case NAME             a case (its board is written to NAME.yml)
//! base PATH-OR-NAME     a repository file (meta-zynq-net/boards/zcu102.yml) or an inline board
//! - TEXT                text to replace: `-` lines joined by newlines, occurring exactly once
//! + TEXT                its replacement (`+` lines; none: delete the `-` text)
//! error[RULE-ID] MESSAGE    an expected diagnostic (or warning[RULE-ID]); MESSAGE is a substring
//!   after TEXT          optional: TEXT occurs once in the edited board; `at` is searched after it
//!   at TEXT             the diagnostic's line:col is where TEXT starts (first match after
//!                       `after`; without `after`, TEXT occurs exactly once)
//! ```
//!
//! Edits apply in order, each to the text the previous ones left. A line's
//! TEXT is everything after the marker and one space, kept verbatim
//! (leading blanks included). Every mistake (a `-` text found twice or not
//! at all, an anchor that is not unique) is an error naming the line of
//! the cases file.

use std::collections::BTreeMap;
use std::path::Path;

/// The cases file, relative to the repository root.
pub const CASES_FILE: &str = "tools/crates/zynq-net-cli/tests/fixtures/bad-cases.txt";

/// One expected diagnostic of a case.
#[derive(Debug, Clone)]
pub struct Expect {
    /// `error` or `warning`, as written.
    pub severity: String,
    /// The rule id between the brackets.
    pub rule: String,
    /// A substring of the diagnostic's message.
    pub msg: String,
    /// Text before the position (unique in the edited board).
    pub after: Option<String>,
    /// Text starting at the position.
    pub at: String,
    /// Line of the `error[...]`/`warning[...]` line in the cases file.
    pub line: usize,
}

/// One text replacement.
#[derive(Debug, Clone)]
pub struct Edit {
    /// The text to replace (must occur exactly once).
    pub find: String,
    /// What replaces it.
    pub replace: String,
    /// Line of its first `-` line in the cases file.
    pub line: usize,
}

/// One failing case.
#[derive(Debug, Clone)]
pub struct Case {
    /// Its name (also the board file's stem).
    pub name: String,
    /// The base: a repository path (has a `/`) or an inline board's name.
    pub base: String,
    /// The edits, in order.
    pub edits: Vec<Edit>,
    /// The diagnostics it must give.
    pub expects: Vec<Expect>,
    /// Line of its `case` line in the cases file.
    pub line: usize,
}

/// A parsed cases file.
#[derive(Debug, Clone)]
pub struct Cases {
    /// The file's name in messages.
    pub file: String,
    /// Inline base boards by name.
    pub boards: BTreeMap<String, String>,
    /// Every case, in file order.
    pub cases: Vec<Case>,
}

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The TEXT after a one-character marker: `- TEXT`, or empty for a bare `-`.
fn marked(line: &str, marker: char) -> Option<&str> {
    let rest = line.strip_prefix(marker)?;
    if rest.is_empty() {
        Some("")
    } else {
        rest.strip_prefix(' ')
    }
}

/// Parses a cases file (`file` names it in errors).
///
/// # Errors
/// The first malformed line, as `FILE:LINE: what is wrong`.
pub fn parse(file: &str, text: &str) -> Result<Cases, String> {
    enum Item {
        None,
        Board(String, Vec<String>, usize),
        Case(Box<Case>),
    }
    let mut out = Cases { file: file.to_string(), boards: BTreeMap::new(), cases: Vec::new() };
    let mut item = Item::None;
    // the `-`/`+` lines of the edit being read
    let mut find: Vec<&str> = Vec::new();
    let mut replace: Vec<&str> = Vec::new();
    let mut edit_line = 0;
    let err = |n: usize, what: String| format!("{file}:{n}: {what}");

    fn flush_edit(case: &mut Case, find: &mut Vec<&str>, replace: &mut Vec<&str>, line: usize) {
        if !find.is_empty() {
            case.edits.push(Edit { find: find.join("\n"), replace: replace.join("\n"), line });
            find.clear();
            replace.clear();
        }
    }
    let finish = |item: Item, out: &mut Cases| -> Result<(), String> {
        match item {
            Item::None => Ok(()),
            Item::Board(name, lines, at) => {
                if lines.is_empty() {
                    return Err(err(at, format!("board `{name}` has no `| ` text lines")));
                }
                out.boards.insert(name, lines.iter().map(|l| format!("{l}\n")).collect());
                Ok(())
            }
            Item::Case(c) => {
                if c.base.is_empty() {
                    return Err(err(c.line, format!("case `{}` has no `base` line", c.name)));
                }
                if c.expects.is_empty() {
                    return Err(err(
                        c.line,
                        format!("case `{}` expects nothing: add an `error[RULE-ID] message` line", c.name),
                    ));
                }
                if let Some(e) = c.expects.iter().find(|e| e.at.is_empty()) {
                    return Err(err(e.line, format!("`{}[{}]` has no `at TEXT` line after it", e.severity, e.rule)));
                }
                out.cases.push(*c);
                Ok(())
            }
        }
    };

    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim_start();
        if line.starts_with('#') {
            continue;
        }
        // an edit's `-` lines, then its `+` lines; anything else (a blank
        // line too) ends it
        if let Item::Case(c) = &mut item {
            let continues = raw.starts_with('+') || (raw.starts_with('-') && replace.is_empty());
            if !continues {
                flush_edit(c, &mut find, &mut replace, edit_line);
            }
        }
        if line.is_empty() {
            continue;
        }
        if let Some(name) = line.strip_prefix("board ") {
            finish(std::mem::replace(&mut item, Item::None), &mut out)?;
            if !is_name(name) || out.boards.contains_key(name) {
                return Err(err(n, format!("`board {name}`: a new name of lowercase letters, digits and `-`")));
            }
            item = Item::Board(name.to_string(), Vec::new(), n);
        } else if let Some(rest) = marked(line, '|') {
            match &mut item {
                Item::Board(_, lines, _) => lines.push(rest.to_string()),
                _ => return Err(err(n, "a `| ` board text line outside a `board NAME` block".into())),
            }
        } else if let Some(name) = line.strip_prefix("case ") {
            finish(std::mem::replace(&mut item, Item::None), &mut out)?;
            if !is_name(name) || out.cases.iter().any(|c| c.name == name) {
                return Err(err(n, format!("`case {name}`: a new name of lowercase letters, digits and `-`")));
            }
            let case = Case { name: name.into(), base: String::new(), edits: vec![], expects: vec![], line: n };
            item = Item::Case(Box::new(case));
        } else {
            let Item::Case(c) = &mut item else {
                return Err(err(n, format!("`{line}` outside a case: a case starts with `case NAME`")));
            };
            if let Some(base) = line.strip_prefix("base ") {
                if !c.base.is_empty() {
                    return Err(err(n, "a second `base` line in one case".into()));
                }
                c.base = base.to_string();
            } else if let Some(t) = marked(raw, '-').filter(|_| raw.starts_with('-')) {
                if c.base.is_empty() || !c.expects.is_empty() {
                    return Err(err(n, "edits come after `base` and before the expected diagnostics".into()));
                }
                if find.is_empty() {
                    edit_line = n;
                }
                find.push(t);
            } else if let Some(t) = marked(raw, '+').filter(|_| raw.starts_with('+')) {
                if find.is_empty() {
                    return Err(err(n, "a `+` line without the `-` lines of the text it replaces".into()));
                }
                replace.push(t);
            } else if let Some((sev, rest)) = line.split_once('[').filter(|(s, _)| *s == "error" || *s == "warning") {
                let Some((rule, msg)) = rest.split_once("] ").filter(|(r, m)| is_name(r) && !m.trim().is_empty())
                else {
                    return Err(err(n, format!("`{line}`: expected `{sev}[RULE-ID] message`")));
                };
                if c.expects.last().is_some_and(|e| e.at.is_empty()) {
                    return Err(err(n, "the diagnostic above has no `at TEXT` line".into()));
                }
                c.expects.push(Expect {
                    severity: sev.into(),
                    rule: rule.into(),
                    msg: msg.into(),
                    after: None,
                    at: String::new(),
                    line: n,
                });
            } else if let Some(t) = line.strip_prefix("after ") {
                match c.expects.last_mut() {
                    Some(e) if e.at.is_empty() && e.after.is_none() => e.after = Some(t.to_string()),
                    _ => return Err(err(n, "`after TEXT` belongs between an `error[...]` line and its `at`".into())),
                }
            } else if let Some(t) = line.strip_prefix("at ") {
                match c.expects.last_mut() {
                    Some(e) if e.at.is_empty() && !t.is_empty() => e.at = t.to_string(),
                    _ => return Err(err(n, "`at TEXT` belongs after an `error[...]` line (one each)".into())),
                }
            } else {
                return Err(err(
                    n,
                    format!("`{line}`: expected `base`, `- `/`+ ` edit lines, `error[ID] message`, `after` or `at`"),
                ));
            }
        }
    }
    if let Item::Case(c) = &mut item {
        flush_edit(c, &mut find, &mut replace, edit_line);
    }
    finish(item, &mut out)?;
    Ok(out)
}

/// How often `needle` occurs in `hay` (overlapping matches count).
fn occurrences(hay: &str, needle: &str) -> usize {
    (0..hay.len()).filter(|&i| hay.is_char_boundary(i) && hay[i..].starts_with(needle)).count()
}

impl Cases {
    /// Reads and parses [`CASES_FILE`] under the repository `root`.
    ///
    /// # Panics
    /// When the file is missing or malformed (test support: the panic is
    /// the failing test, naming the line).
    pub fn load(root: &Path) -> Cases {
        let path = root.join(CASES_FILE);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        parse(CASES_FILE, &text).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The case named `name`.
    ///
    /// # Panics
    /// When there is none.
    pub fn get(&self, name: &str) -> &Case {
        self.cases.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("{}: no case `{name}`", self.file))
    }

    /// The board text of `case`: its base with its edits applied.
    ///
    /// # Errors
    /// `FILE:LINE: ...` when the base is missing or an edit's `-` text does
    /// not occur exactly once.
    pub fn materialize(&self, case: &Case, root: &Path) -> Result<String, String> {
        let mut text = if case.base.contains('/') {
            std::fs::read_to_string(root.join(&case.base))
                .map_err(|e| format!("{}:{}: case `{}`: base {}: {e}", self.file, case.line, case.name, case.base))?
        } else {
            self.boards.get(&case.base).cloned().ok_or_else(|| {
                format!(
                    "{}:{}: case `{}`: no inline board `{}` (a repository path has a `/`)",
                    self.file, case.line, case.name, case.base
                )
            })?
        };
        for e in &case.edits {
            let n = occurrences(&text, &e.find);
            if n != 1 {
                return Err(format!(
                    "{}:{}: case `{}`: the `-` text occurs {n} times in {} (after the edits above), not once; \
                     {}: {:?}",
                    self.file,
                    e.line,
                    case.name,
                    case.base,
                    if n == 0 { "copy it from the base exactly" } else { "add a neighbouring line or word" },
                    e.find
                ));
            }
            text = text.replacen(&e.find, &e.replace, 1);
        }
        Ok(text)
    }

    /// Every case's name and board text, for tests that read every board.
    ///
    /// # Panics
    /// When a case does not apply.
    pub fn materialized(&self, root: &Path) -> Vec<(String, String)> {
        self.cases
            .iter()
            .map(|c| (c.name.clone(), self.materialize(c, root).unwrap_or_else(|e| panic!("{e}"))))
            .collect()
    }

    /// Where `e` points in `text` (the case's board): 1-based line and
    /// column (in characters, as diagnostics count them).
    ///
    /// # Errors
    /// `FILE:LINE: ...` when `after` is not unique, `at` is not found after
    /// it, or (without `after`) `at` is not unique.
    pub fn position(&self, case: &Case, e: &Expect, text: &str) -> Result<(usize, usize), String> {
        let fail = |what: String| format!("{}:{}: case `{}`: {what}", self.file, e.line, case.name);
        let start = match &e.after {
            Some(a) => {
                let n = occurrences(text, a);
                if n != 1 {
                    return Err(fail(format!("`after {a}` occurs {n} times in the edited board, not once")));
                }
                text.find(a.as_str()).map_or(0, |i| i + a.len())
            }
            None => {
                let n = occurrences(text, &e.at);
                if n != 1 {
                    return Err(fail(format!(
                        "`at {}` occurs {n} times in the edited board, not once (an `after TEXT` line before it \
                         picks one)",
                        e.at
                    )));
                }
                0
            }
        };
        let Some(off) = text[start..].find(e.at.as_str()).map(|i| start + i) else {
            return Err(fail(format!("`at {}` is not in the edited board after its `after` text", e.at)));
        };
        let line_start = text[..off].rfind('\n').map_or(0, |i| i + 1);
        Ok((text[..off].matches('\n').count() + 1, text[line_start..off].chars().count() + 1))
    }
}
