//! Span-preserving YAML loading.
//!
//! serde_yaml is archived, and a serde deserializer stops at the first error
//! with little position information. We parse with `saphyr` (a maintained,
//! YAML 1.2, span-preserving parser: every node keeps its line and column),
//! convert the document to a `serde_json::Value` plus a map from JSON
//! pointers to positions, validate that value against the JSON Schema derived
//! from the model (so *every* structural error is reported, each with its
//! position), and only then deserialize it into the typed model.

use std::collections::HashMap;

use saphyr::Scalar;
use saphyr_parser::{Event, Parser};
use serde_json::{Map, Number, Value};

use crate::diag::{Diagnostic, Pos};
use crate::rules::Rule;

/// Positions of every node of a loaded YAML document, by JSON pointer.
///
/// Recorded in document order as the file is read; the pointer index is
/// built on the first lookup, which only a diagnostic makes (a valid board
/// hashes none of its thousands of pointers).
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    values: Vec<(String, Pos)>,
    keys: Vec<(String, Pos)>,
    /// Pointers of the values written as YAML floats (`1500.0`, `1e3`, or
    /// an integer too large for 64 bits), with their text as written.
    floats: Vec<(String, String)>,
    /// (values, keys) by pointer; a later entry for a pointer wins.
    index: std::sync::OnceLock<(HashMap<String, Pos>, HashMap<String, Pos>)>,
}

impl PartialEq for SourceMap {
    fn eq(&self, other: &Self) -> bool {
        self.index() == other.index() && self.floats == other.floats
    }
}

impl SourceMap {
    fn index(&self) -> &(HashMap<String, Pos>, HashMap<String, Pos>) {
        self.index.get_or_init(|| (self.values.iter().cloned().collect(), self.keys.iter().cloned().collect()))
    }

    /// Position of the value at `pointer`, or of its closest existing parent.
    pub fn value_pos(&self, pointer: &str) -> Pos {
        let values = &self.index().0;
        let mut p = pointer;
        loop {
            if let Some(pos) = values.get(p) {
                return *pos;
            }
            match p.rfind('/') {
                Some(i) => p = &p[..i],
                None => return Pos { line: 1, col: 1 },
            }
        }
    }

    /// Position of the mapping key that names `pointer` (falls back to the value).
    pub fn key_pos(&self, pointer: &str) -> Pos {
        self.index().1.get(pointer).copied().unwrap_or_else(|| self.value_pos(pointer))
    }

    /// The values the file wrote as floats, as (pointer, text as written):
    /// `1500.0` is a float in YAML 1.2 and serde cannot read it as an
    /// integer, nor an integer beyond 64 bits, which YAML reads as a float;
    /// the schema check reports them where it expects an integer.
    pub fn floats(&self) -> &[(String, String)] {
        &self.floats
    }

    /// Fills in the position of a diagnostic from its pointer: the value's,
    /// or the key's for a rule about the key ([`Rule::at_key`]).
    pub fn locate(&self, mut d: Diagnostic) -> Diagnostic {
        d.pos = if d.rule.at_key() { self.key_pos(&d.pointer) } else { self.value_pos(&d.pointer) };
        d
    }
}

/// Escapes one JSON-pointer segment (RFC 6901).
pub fn escape_segment(s: &str) -> String {
    if s.contains(['~', '/']) {
        s.replace('~', "~0").replace('/', "~1")
    } else {
        s.to_string()
    }
}

/// `ptr` + `/` + `key` escaped (RFC 6901): the pointer of a mapping's
/// child, built in one allocation (the loader makes one per key; `format!`
/// was a third of the builder's instructions on a large board).
fn child_pointer(ptr: &str, key: &str) -> String {
    let mut out = String::with_capacity(ptr.len() + 1 + key.len());
    out.push_str(ptr);
    out.push('/');
    if key.contains(['~', '/']) {
        out.push_str(&escape_segment(key));
    } else {
        out.push_str(key);
    }
    out
}

/// `ptr` + `/` + `index`: the pointer of a sequence's item.
fn item_pointer(ptr: &str, index: usize) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(ptr.len() + 4);
    out.push_str(ptr);
    out.push('/');
    let _ = write!(out, "{index}");
    out
}

/// Deepest nesting of sequences and mappings accepted (a board needs 5).
pub const MAX_DEPTH: usize = 32;
/// Longest scalar accepted, in bytes (a board's longest value is a path or
/// a description: well under this).
pub const MAX_SCALAR_BYTES: usize = 4096;
/// Most nodes (scalars, sequences, mappings) accepted in one file.
pub const MAX_NODES: usize = 50_000;
/// Most diagnostics the limit check reports before it stops.
const MAX_LIMIT_ERRORS: usize = 20;

/// Checks the limits on the parser's event stream, before any tree is
/// built: aliases (refused: saphyr would resolve each by cloning the
/// anchored subtree, so a 1 MiB file could expand to gigabytes), nesting
/// depth (the tree and every later pass recurse: 10,000 nested sequences
/// overflowed the stack), scalar bytes and node count. Memory and time stay
/// bounded by the file size: the stream holds one event at a time.
///
/// # Errors
/// Every alias and every over-long scalar (up to 20), or the first place
/// the depth or node limit is crossed, each at its line:col. A syntax error
/// ends the check silently: [`load`] reports it with its position.
pub fn check_limits(text: &str) -> Result<(), Vec<Diagnostic>> {
    non_printable(text)?;
    let mut limits = Limits::default();
    for ev in Parser::new_from_str(text) {
        let Ok((ev, span)) = ev else { break };
        if limits.event(&ev, Pos { line: span.start.line(), col: span.start.col() + 1 }) {
            break;
        }
    }
    if limits.errors.is_empty() {
        Ok(())
    } else {
        Err(limits.errors)
    }
}

/// A character YAML 1.2 allows in a stream (section 5.1, `c-printable`):
/// tab, line feed, carriage return, printable ASCII, NEL and the printable
/// Unicode ranges (a BOM, U+FEFF, is one of them).
fn yaml_printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

/// Every character of `text` YAML does not allow (a NUL, a control
/// character, DEL), at its line:col, at most [`MAX_LIMIT_ERRORS`] of them.
/// saphyr reads a NUL as the end of the stream, so a board with one was
/// silently cut short there; the others it let through in comments.
///
/// # Errors
/// One `yaml-syntax` diagnostic per such character.
fn non_printable(text: &str) -> Result<(), Vec<Diagnostic>> {
    if text.bytes().all(|b| (b' '..=b'~').contains(&b) || matches!(b, b'\t' | b'\n' | b'\r')) {
        return Ok(());
    }
    let (mut line, mut col, mut out) = (1, 1, Vec::new());
    for c in text.chars() {
        if c == '\n' {
            line += 1;
            col = 1;
            continue;
        }
        if !yaml_printable(c) {
            let d = Diagnostic::new(
                Rule::YamlSyntax,
                "",
                format!(
                    "character U+{:04X} is not allowed in YAML (YAML 1.2, 5.1: printable characters only)",
                    c as u32
                ),
            )
            .hint("remove it: a board file is printable text (a NUL or control byte: is this the right file?)");
            out.push(Diagnostic { pos: Pos { line, col }, ..d });
            if out.len() >= MAX_LIMIT_ERRORS {
                break;
            }
        }
        col += 1;
    }
    if out.is_empty() {
        Ok(())
    } else {
        Err(out)
    }
}

/// The limits of [`check_limits`], one event at a time.
#[derive(Default)]
struct Limits {
    depth: usize,
    nodes: usize,
    errors: Vec<Diagnostic>,
}

impl Limits {
    /// Counts `ev`; `true` when the check must stop here.
    fn event(&mut self, ev: &Event<'_>, pos: Pos) -> bool {
        let at = |rule: Rule, msg: String| Diagnostic { pos, ..Diagnostic::new(rule, "", msg) };
        match ev {
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                self.depth += 1;
                self.nodes += 1;
                if self.depth > MAX_DEPTH {
                    self.errors.push(at(Rule::NestingDepth, format!("nesting deeper than {MAX_DEPTH} levels")));
                    return true;
                }
            }
            Event::SequenceEnd | Event::MappingEnd => self.depth = self.depth.saturating_sub(1),
            Event::Alias(_) => {
                self.nodes += 1;
                self.errors.push(at(Rule::YamlAlias, "YAML aliases (`*name`) are not supported in board files".into()));
            }
            Event::Scalar(s, ..) => {
                self.nodes += 1;
                if s.len() > MAX_SCALAR_BYTES {
                    self.errors
                        .push(at(Rule::ValueTooLong, format!("value of {} bytes (limit {MAX_SCALAR_BYTES})", s.len())));
                }
            }
            _ => {}
        }
        if self.nodes > MAX_NODES {
            self.errors.push(at(Rule::TooManyNodes, format!("more than {MAX_NODES} YAML nodes")));
            return true;
        }
        self.errors.len() >= MAX_LIMIT_ERRORS
    }
}

/// Parses YAML text into a JSON value and its source map.
///
/// One pass over saphyr-parser's events checks the limits
/// ([`check_limits`]), finds duplicate keys ([`DuplicateKeys`]) and builds
/// the value and its positions ([`Builder`]) with saphyr's own scalar
/// resolution (YAML 1.2 core schema): what `saphyr::MarkedYaml` and a walk
/// over its tree gave, without building that tree or parsing twice (test
/// `builder_agrees_with_saphyrs_tree` holds the two together).
///
/// # Errors
/// Diagnostics for the limits of [`check_limits`], syntax errors, duplicate
/// keys (each repeated key), non-string keys, aliases and multiple documents.
pub fn load(text: &str) -> Result<(Value, SourceMap), Vec<Diagnostic>> {
    non_printable(text)?;
    let mut limits = Limits::default();
    let mut dups = DuplicateKeys::default();
    let mut b = Builder::default();
    for ev in Parser::new_from_str(text) {
        let (ev, span) = match ev {
            Ok(e) => e,
            // Limit errors found before the syntax error are reported instead.
            Err(_) if !limits.errors.is_empty() => break,
            Err(e) => {
                let m = e.marker();
                let d = Diagnostic::new(Rule::YamlSyntax, "", format!("YAML syntax error: {}", e.info()));
                // saphyr's scanner reads flow collections ahead of its
                // events: hundreds of `[` stop it ("recursion limit
                // exceeded") before the depth limit sees level 33
                let d = if e.info().contains("recursion limit") {
                    Diagnostic::new(Rule::NestingDepth, "", format!("nesting deeper than {MAX_DEPTH} levels"))
                } else {
                    d
                };
                // saphyr: "tabs disallowed within this context (block indentation)"
                let d = if e.info().contains("tabs") {
                    d.hint("indent with spaces, not tabs: YAML does not allow a tab in indentation")
                } else if e.info().contains("':' must be followed by")
                    && text.lines().nth(m.line().saturating_sub(1)).is_some_and(|l| l.contains(":\t"))
                {
                    // `mtu:<TAB>1500`: YAML 1.2 allows a tab there
                    // (s-separate-in-line), saphyr 0.0.8 does not
                    Diagnostic::new(Rule::YamlSyntax, "", "a tab after `:`: this parser takes only spaces there")
                        .hint("write a space after the colon instead of the tab")
                } else {
                    d
                };
                return Err(vec![at_marker(text, m.index(), m.line(), m.col(), d)]);
            }
        };
        let pos = Pos { line: span.start.line(), col: span.start.col() + 1 };
        if limits.event(&ev, pos) {
            break;
        }
        dups.event(&ev, pos);
        if limits.errors.is_empty() {
            b.event(ev, pos);
        }
    }
    if !limits.errors.is_empty() {
        return Err(limits.errors);
    }
    let mut errors = dups.found;
    let value = match b.docs {
        0 => {
            errors.push(Diagnostic::new(Rule::EmptyFile, "", "the file is empty"));
            Value::Null
        }
        1 => {
            errors.append(&mut b.errors);
            b.root.take().unwrap_or(Value::Null)
        }
        _ => {
            errors.push(Diagnostic {
                pos: b.second_doc.unwrap_or(Pos { line: 1, col: 1 }),
                ..Diagnostic::new(Rule::MultipleDocuments, "", "more than one YAML document")
            });
            Value::Null
        }
    };
    let map = b.map;
    if errors.is_empty() {
        Ok((value, map))
    } else {
        Err(errors.into_iter().map(|d| if d.pos.line == 0 { map.locate(d) } else { d }).collect())
    }
}

/// Builds the JSON value and the [`SourceMap`] of the first document from
/// the parser's events.
#[derive(Default)]
struct Builder {
    stack: Vec<Node>,
    map: SourceMap,
    /// Errors of the first document's nodes (keys that are not strings,
    /// values their `!!` tag refuses).
    errors: Vec<Diagnostic>,
    /// Documents ended so far.
    docs: usize,
    root: Option<Value>,
    /// Where the second document's node starts.
    second_doc: Option<Pos>,
}

/// A collection being built.
enum Node {
    Seq {
        ptr: String,
        items: Vec<Value>,
    },
    Map {
        ptr: String,
        out: Map<String, Value>,
        slot: Slot,
    },
    /// A subtree that is read and dropped: a key that is not a string
    /// (reported), the value after it, and any document after the first.
    Skip,
}

/// What the next node of a mapping is.
enum Slot {
    Key,
    /// The value of this key, at this pointer (`place` takes the pointer
    /// when the value starts).
    Value(String, String),
    /// A refused key that is a collection is being dropped.
    SkippingKey,
    /// The value of a refused key comes next: dropped.
    Drop,
    /// That value is a collection, being dropped.
    Dropping,
}

/// Where a new node goes.
enum Place {
    /// At this pointer.
    At(String),
    /// It is the key of the mapping on top of the stack.
    Key,
    /// It is the value of a refused key.
    Drop,
    /// Inside a dropped subtree, or a document after the first.
    Skip,
}

impl Builder {
    fn event(&mut self, ev: Event<'_>, pos: Pos) {
        match ev {
            Event::Scalar(v, style, _, tag) => match self.place(pos) {
                Place::At(ptr) => {
                    self.map.values.push((ptr.clone(), pos));
                    if let Some(t) = tag.as_ref().filter(|t| !known_tag(t)).map(|t| tag_text(t)) {
                        // `!foo 1500` was read as 1500: a tag meant for
                        // another tool must not pass unnoticed
                        let msg = format!(
                            "unknown YAML tag `{t}`: a board uses no tags but the core schema's (`!!str`, `!!int`, `!!float`, `!!bool`, `!!null`)"
                        );
                        self.errors.push(Diagnostic { pos, ..Diagnostic::new(Rule::YamlTag, ptr, msg) });
                        self.finish(Value::Null);
                        return;
                    }
                    let written = v.clone(); // borrowed from the text: no copy unless a float
                    let value = match resolve_scalar(v, style, tag.as_ref()) {
                        Some(s) => {
                            if matches!(s, Scalar::FloatingPoint(_)) {
                                self.map.floats.push((ptr, written.into_owned()));
                            }
                            scalar(&s)
                        }
                        // a `!!int`/`!!float`/`!!bool`/`!!null` tag on text that is not of that type
                        None => {
                            self.errors.push(Diagnostic {
                                pos,
                                ..Diagnostic::new(
                                    Rule::YamlTag,
                                    ptr,
                                    "the value does not parse as the type its `!!` tag names",
                                )
                            });
                            Value::Null
                        }
                    };
                    self.finish(value);
                }
                Place::Key => self.key(key_text(v, style, tag.as_ref()), pos),
                Place::Drop => self.set_slot(Slot::Key),
                Place::Skip => {}
            },
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                let seq = matches!(ev, Event::SequenceStart(..));
                let node = match self.place(pos) {
                    Place::At(ptr) => {
                        self.map.values.push((ptr.clone(), pos));
                        if seq {
                            Node::Seq { ptr, items: Vec::new() }
                        } else {
                            Node::Map { ptr, out: Map::new(), slot: Slot::Key }
                        }
                    }
                    Place::Key => {
                        self.key(None, pos);
                        self.set_slot(Slot::SkippingKey);
                        Node::Skip
                    }
                    Place::Drop => {
                        self.set_slot(Slot::Dropping);
                        Node::Skip
                    }
                    Place::Skip => Node::Skip,
                };
                self.stack.push(node);
            }
            Event::SequenceEnd | Event::MappingEnd => match self.stack.pop() {
                Some(Node::Seq { items, .. }) => self.finish(Value::Array(items)),
                Some(Node::Map { out, .. }) => self.finish(Value::Object(out)),
                Some(Node::Skip) => self.skipped(),
                None => {}
            },
            // Every document holds exactly one node: saphyr-parser's
            // document_start/document_content (parser.rs) follow each
            // DocumentStart with a node, an empty one (`~`) for a document
            // with no content, or with an error, which ends the read.
            Event::DocumentEnd => self.docs += 1,
            // Aliases never get here: the limit check refuses every one first.
            _ => {}
        }
    }

    /// Where the node starting at `pos` goes.
    fn place(&mut self, pos: Pos) -> Place {
        match self.stack.last_mut() {
            None => match self.docs {
                0 => Place::At(String::new()),
                1 => {
                    self.second_doc.get_or_insert(pos);
                    Place::Skip
                }
                _ => Place::Skip,
            },
            Some(Node::Seq { ptr, items }) => Place::At(item_pointer(ptr, items.len())),
            Some(Node::Map { slot: Slot::Key, .. }) => Place::Key,
            Some(Node::Map { slot: Slot::Value(_, child), .. }) => Place::At(std::mem::take(child)),
            Some(Node::Map { slot: Slot::Drop, .. }) => Place::Drop,
            Some(Node::Map { slot: Slot::SkippingKey | Slot::Dropping, .. }) | Some(Node::Skip) => Place::Skip,
        }
    }

    /// A key of the mapping on top: its text, or `None` when it is not a
    /// plain string or integer (reported; its value is then dropped).
    fn key(&mut self, key: Option<String>, pos: Pos) {
        let Some(Node::Map { ptr, slot, .. }) = self.stack.last_mut() else { return };
        match key {
            Some(k) => {
                let child = child_pointer(ptr, &k);
                self.map.keys.push((child.clone(), pos));
                *slot = Slot::Value(k, child);
            }
            None => {
                self.errors.push(Diagnostic {
                    pos,
                    ..Diagnostic::new(Rule::KeyNotString, ptr.clone(), "mapping keys must be plain strings")
                });
                *slot = Slot::Drop;
            }
        }
    }

    /// A value is complete: into its parent, or the document's root.
    fn finish(&mut self, value: Value) {
        match self.stack.last_mut() {
            None => self.root = Some(value),
            Some(Node::Seq { items, .. }) => items.push(value),
            Some(Node::Map { out, slot, .. }) => {
                if let Slot::Value(k, _) = std::mem::replace(slot, Slot::Key) {
                    out.insert(k, value);
                }
            }
            Some(Node::Skip) => {}
        }
    }

    /// A dropped subtree ended: after a refused key that is a collection
    /// its value is dropped next; after a dropped value the next key comes.
    fn skipped(&mut self) {
        if let Some(Node::Map { slot, .. }) = self.stack.last_mut() {
            match slot {
                Slot::SkippingKey => *slot = Slot::Drop,
                Slot::Dropping => *slot = Slot::Key,
                _ => {}
            }
        }
    }

    fn set_slot(&mut self, to: Slot) {
        if let Some(Node::Map { slot, .. }) = self.stack.last_mut() {
            *slot = to;
        }
    }
}

/// The name a scalar key takes in the JSON object: a string, or an integer
/// as its decimal text (`01` and `1` are both `"1"`); `None` for any other
/// key (a bool, null, float, or a tag other than the core schema's).
fn key_text<'a>(
    v: std::borrow::Cow<'a, str>,
    style: saphyr_parser::ScalarStyle,
    tag: Option<&std::borrow::Cow<'a, saphyr_parser::Tag>>,
) -> Option<String> {
    match tag {
        Some(t) if !t.is_yaml_core_schema() => None,
        _ => match resolve_scalar(v, style, tag) {
            Some(Scalar::String(s)) => Some(s.into_owned()),
            Some(Scalar::Integer(i)) => Some(i.to_string()),
            _ => None,
        },
    }
}

/// A scalar as saphyr resolves it (`Yaml::value_from_cow_and_metadata`):
/// Whether a scalar's tag is one a board may carry: the core schema's
/// (YAML 1.2, section 10.3: `!!str`, `!!int`, `!!float`, `!!bool`,
/// `!!null`) or the non-specific `!` (a string).
fn known_tag(t: &saphyr_parser::Tag) -> bool {
    (t.is_yaml_core_schema() && matches!(t.suffix.as_str(), "str" | "int" | "float" | "bool" | "null"))
        || (t.handle == "!" && matches!(t.suffix.as_str(), "" | "!"))
}

/// A tag as the file spells it (`!!binary`, `!foo`).
fn tag_text(t: &saphyr_parser::Tag) -> String {
    if t.is_yaml_core_schema() {
        format!("!!{}", t.suffix)
    } else {
        t.to_string()
    }
}

/// quoted is a string; a core-schema tag (`!!int`, ...) forces its type
/// (`None` when the text is not of that type); any other tag is ignored;
/// untagged plain text is guessed by the YAML 1.2 core schema.
fn resolve_scalar<'a>(
    v: std::borrow::Cow<'a, str>,
    style: saphyr_parser::ScalarStyle,
    tag: Option<&std::borrow::Cow<'a, saphyr_parser::Tag>>,
) -> Option<Scalar<'a>> {
    Scalar::parse_from_cow_and_metadata(v, style, tag.filter(|t| t.is_yaml_core_schema()))
}

/// Every repeated key of a mapping, at the repeated key's position, fed
/// the parser's events by [`scan`].
///
/// saphyr before 0.0.9 (the line that builds with Rust 1.75, the Rust of
/// Yocto scarthgap) keeps the last of duplicate keys silently, so this pass
/// over the parser's events finds them. Syntax errors end the pass: the
/// loader reports those.
#[derive(Default)]
struct DuplicateKeys {
    stack: Vec<Frame>,
    found: Vec<Diagnostic>,
}

enum Frame {
    Map { keys: SeenKeys, key_next: bool },
    Seq,
}

/// The keys one mapping has had so far, by name, with the first position
/// of each: a short list searched in order (a board's mappings have a few
/// keys; hashing each key was most of this pass), a hash map once there
/// are more than [`SeenKeys::FEW`] (a long mapping stays linear).
#[derive(Default)]
struct SeenKeys {
    few: Vec<(String, Pos)>,
    many: HashMap<String, Pos>,
}

impl SeenKeys {
    const FEW: usize = 16;

    fn get(&self, name: &str) -> Option<Pos> {
        if self.many.is_empty() {
            self.few.iter().find(|(n, _)| n == name).map(|(_, p)| *p)
        } else {
            self.many.get(name).copied()
        }
    }

    fn insert(&mut self, name: String, pos: Pos) {
        if self.many.is_empty() && self.few.len() < Self::FEW {
            self.few.push((name, pos));
        } else {
            self.many.extend(self.few.drain(..));
            self.many.insert(name, pos);
        }
    }
}

impl DuplicateKeys {
    // A node in a mapping fills its key slot, then its value slot.
    fn fill_slot(&mut self) {
        if let Some(Frame::Map { key_next, .. }) = self.stack.last_mut() {
            *key_next = !*key_next;
        }
    }

    fn event(&mut self, event: &Event<'_>, pos: Pos) {
        match event {
            Event::MappingStart(..) => {
                self.fill_slot();
                self.stack.push(Frame::Map { keys: SeenKeys::default(), key_next: true });
            }
            Event::SequenceStart(..) => {
                self.fill_slot();
                self.stack.push(Frame::Seq);
            }
            Event::MappingEnd | Event::SequenceEnd => {
                self.stack.pop();
            }
            Event::Scalar(value, style, _, tag) => {
                if let Some(Frame::Map { keys, key_next: true }) = self.stack.last_mut() {
                    // Keys are compared by the name they take (`1`, `01` and
                    // `"1"` are one key), else by their text.
                    let name = key_text(value.clone(), *style, tag.as_ref()).unwrap_or_else(|| value.to_string());
                    if let Some(first) = keys.get(&name) {
                        self.found.push(Diagnostic {
                            pos,
                            ..Diagnostic::new(
                                Rule::DuplicateKey,
                                "",
                                format!("duplicate key `{value}` (first at line {}, column {})", first.line, first.col),
                            )
                        });
                    } else {
                        keys.insert(name, pos);
                    }
                }
                self.fill_slot();
            }
            Event::Alias(_) => self.fill_slot(),
            _ => {}
        }
    }
}

fn scalar(s: &Scalar<'_>) -> Value {
    match s {
        Scalar::Null => Value::Null,
        Scalar::Boolean(b) => Value::Bool(*b),
        Scalar::Integer(i) => Value::Number((*i).into()),
        // A float stays a float (`mtu: 1500.0` is refused where an integer
        // is expected: SourceMap::float_pointers); NaN/inf become null.
        Scalar::FloatingPoint(f) => Number::from_f64(f.into_inner()).map_or(Value::Null, Value::Number),
        Scalar::String(s) => Value::String(s.to_string()),
    }
}

/// A syntax error at the scanner's marker (`index` in chars, `line`
/// 1-based, `col` 0-based). At the end of the text (an unclosed `[` or
/// quote) the marker sits one line past a file that ends without a newline:
/// the error is put on the last character instead, and says it was the end.
fn at_marker(text: &str, index: usize, line: usize, col: usize, d: Diagnostic) -> Diagnostic {
    if index < text.chars().count() || text.is_empty() {
        return Diagnostic { pos: Pos { line, col: col + 1 }, ..d };
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    let last_line = body.split('\n').count();
    let last_col = body.rsplit('\n').next().map_or(0, |l| l.chars().count());
    let message = format!("{} (at the end of the file)", d.message);
    Diagnostic { pos: Pos { line: last_line, col: last_col.max(1) }, message, ..d }
}

#[cfg(test)]
mod tests {
    use super::*;
    use saphyr::{LoadableYamlNode, MarkedYaml, YamlData};

    fn pos_of(node: &MarkedYaml<'_>) -> Pos {
        Pos { line: node.span.start.line(), col: node.span.start.col() + 1 }
    }

    /// The loader as it was before [`Builder`]: saphyr's tree, walked (the
    /// reference the builder is held to).
    fn load_by_tree(text: &str) -> Result<(Value, SourceMap), Vec<Diagnostic>> {
        check_limits(text)?;
        let mut dups = DuplicateKeys::default();
        for ev in Parser::new_from_str(text) {
            let Ok((ev, span)) = ev else { break };
            dups.event(&ev, Pos { line: span.start.line(), col: span.start.col() + 1 });
        }
        let docs = MarkedYaml::load_from_str(text).map_err(|e| {
            let m = e.marker();
            let d = Diagnostic::new(Rule::YamlSyntax, "", format!("YAML syntax error: {}", e.info()));
            vec![at_marker(text, m.index(), m.line(), m.col(), d)]
        })?;
        let mut map = SourceMap::default();
        let mut errors = dups.found;
        let value = match docs.as_slice() {
            [] => {
                errors.push(Diagnostic::new(Rule::EmptyFile, "", "the file is empty"));
                Value::Null
            }
            [doc] => convert(doc, String::new(), text, &mut map, &mut errors),
            [_, second, ..] => {
                errors.push(Diagnostic {
                    pos: pos_of(second),
                    ..Diagnostic::new(Rule::MultipleDocuments, "", "more than one YAML document")
                });
                Value::Null
            }
        };
        if errors.is_empty() {
            Ok((value, map))
        } else {
            Err(errors.into_iter().map(|d| if d.pos.line == 0 { map.locate(d) } else { d }).collect())
        }
    }

    fn convert(
        node: &MarkedYaml<'_>,
        ptr: String,
        text: &str,
        map: &mut SourceMap,
        errors: &mut Vec<Diagnostic>,
    ) -> Value {
        map.values.push((ptr.clone(), pos_of(node)));
        match &node.data {
            YamlData::Value(s) => {
                if matches!(s, Scalar::FloatingPoint(_)) {
                    let written: String = text.chars().skip(node.span.start.index()).take(node.span.len()).collect();
                    map.floats.push((ptr, written));
                }
                scalar(s)
            }
            YamlData::Representation(s, _, _) => Value::String(s.to_string()),
            YamlData::Sequence(items) => Value::Array(
                items.iter().enumerate().map(|(i, n)| convert(n, format!("{ptr}/{i}"), text, map, errors)).collect(),
            ),
            YamlData::Mapping(m) => {
                let mut out = Map::new();
                for (k, v) in m {
                    let key = match &k.data {
                        YamlData::Value(Scalar::String(s)) => s.to_string(),
                        YamlData::Value(Scalar::Integer(i)) => i.to_string(),
                        YamlData::Representation(s, _, _) => s.to_string(),
                        _ => {
                            errors.push(Diagnostic {
                                pos: pos_of(k),
                                ..Diagnostic::new(Rule::KeyNotString, ptr.clone(), "mapping keys must be plain strings")
                            });
                            continue;
                        }
                    };
                    let child = format!("{ptr}/{}", escape_segment(&key));
                    map.keys.push((child.clone(), pos_of(k)));
                    let val = convert(v, child, text, map, errors);
                    out.insert(key, val);
                }
                Value::Object(out)
            }
            YamlData::Tagged(tag, inner)
                if !known_tag(tag)
                    && matches!(inner.data, YamlData::Value(_) | YamlData::Representation(..) | YamlData::BadValue) =>
            {
                errors.push(Diagnostic {
                    pos: pos_of(inner),
                    ..Diagnostic::new(
                        Rule::YamlTag,
                        ptr,
                        format!(
                            "unknown YAML tag `{}`: a board uses no tags but the core schema's (`!!str`, `!!int`, `!!float`, `!!bool`, `!!null`)",
                            tag_text(tag)
                        ),
                    )
                });
                Value::Null
            }
            YamlData::Tagged(_, inner) => convert(inner, ptr, text, map, errors),
            YamlData::Alias(_) => {
                errors.push(Diagnostic {
                    pos: pos_of(node),
                    // not reached: check_limits refuses every alias first
                    ..Diagnostic::new(Rule::YamlAlias, ptr, "YAML aliases are not supported in board files")
                });
                Value::Null
            }
            // a `!!int`/`!!float`/`!!bool`/`!!null` tag on text that is not of that type
            YamlData::BadValue => {
                errors.push(Diagnostic {
                    pos: pos_of(node),
                    ..Diagnostic::new(Rule::YamlTag, ptr, "the value does not parse as the type its `!!` tag names")
                });
                Value::Null
            }
        }
    }

    #[test]
    fn positions_are_recorded_for_keys_and_values() {
        let (v, map) = load("a:\n  b: [1, 2]\n  c: x\n").unwrap();
        assert_eq!(v["a"]["c"], "x");
        assert_eq!(map.value_pos("/a/b/1"), Pos { line: 2, col: 10 });
        assert_eq!(map.key_pos("/a/c"), Pos { line: 3, col: 3 });
        assert_eq!(map.value_pos("/a/c"), Pos { line: 3, col: 6 });
        // a missing child falls back to its parent
        assert_eq!(map.value_pos("/a/zzz"), map.value_pos("/a"));
    }

    #[test]
    fn mac_addresses_stay_strings_in_yaml_1_2() {
        let (v, _) = load("mac: 00:0a:35:66:44:c4\n").unwrap();
        assert_eq!(v["mac"], "00:0a:35:66:44:c4");
    }

    #[test]
    fn syntax_and_duplicate_key_errors_have_positions() {
        let e = load("a: 1\na: 2\n").unwrap_err();
        assert_eq!(e.len(), 1);
        assert_eq!((e[0].pos.line, e[0].pos.col), (2, 1), "{e:?}");
        assert!(e[0].message.contains("duplicate key `a` (first at line 1, column 1)"), "{e:?}");
        let e = load("a: [1, 2\n").unwrap_err();
        assert!(e[0].message.contains("syntax"), "{e:?}");
        // keys that name the same JSON key are duplicates too (saphyr kept
        // the last silently)
        for text in ["1: a\n01: b\n", "1: a\n'1': b\n", "0x10: a\n16: b\n"] {
            let e = load(text).unwrap_err();
            assert_eq!(e.len(), 1, "{text:?}: {e:?}");
            assert_eq!((e[0].pos.line, e[0].pos.col), (2, 1), "{text:?}: {e:?}");
            assert!(e[0].message.contains("(first at line 1, column 1)"), "{text:?}: {e:?}");
        }
        assert!(load("a: 1\n'b': 2\n1: 3\n\"2\": 4\n").is_ok());
    }

    /// A NUL (saphyr's end of input: the rest of the board was silently
    /// dropped) or any other character YAML does not allow is an error at
    /// its position, each one; printable non-ASCII text is not.
    #[test]
    fn characters_yaml_does_not_allow_are_errors_at_their_position() {
        let e = load("a: 1\nb: 2 # x\u{0}y\nc: 3\n").unwrap_err();
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!((e[0].rule, e[0].pos.line, e[0].pos.col), (Rule::YamlSyntax, 2, 9), "{e:?}");
        assert!(e[0].message.contains("U+0000"), "{e:?}");
        let e = load("\u{1}a: 1\nb: \u{7f}\n# \u{9b}\n").unwrap_err();
        let at: Vec<(usize, usize)> = e.iter().map(|d| (d.pos.line, d.pos.col)).collect();
        assert_eq!(at, vec![(1, 1), (2, 4), (3, 3)], "{e:?}");
        assert!(check_limits("a: \u{0}\n").is_err());
        assert!(load("a: é ü\t# \u{85} \u{feff} \u{1f600}\r\nb: 2\n").is_ok());
    }

    /// Flow sequences nested past what saphyr's scanner takes (it stops
    /// with "recursion limit exceeded" before the depth limit counts level
    /// 33): the nesting-depth error, as for 33 levels, not a syntax error.
    #[test]
    fn deep_flow_nesting_is_the_depth_error() {
        for n in [33, 10_000] {
            let text = format!("a: {}{}\n", "[".repeat(n), "]".repeat(n));
            let e = load(&text).unwrap_err();
            assert_eq!(e.len(), 1, "{n}: {e:?}");
            assert_eq!(e[0].rule, Rule::NestingDepth, "{n}: {e:?}");
            assert_eq!(e[0].message, format!("nesting deeper than {MAX_DEPTH} levels"));
        }
    }

    #[test]
    fn a_tab_in_indentation_is_named_in_the_hint() {
        let e = load("board:\n\tname: x\n").unwrap_err();
        assert_eq!((e[0].rule, e[0].pos.line, e[0].pos.col), (Rule::YamlSyntax, 2, 2), "{e:?}");
        assert!(e[0].hint.as_deref().is_some_and(|h| h.contains("spaces, not tabs")), "{e:?}");
        // other syntax errors keep the rule's general hint
        let e = load("a: [1, 2\n").unwrap_err();
        assert!(!e[0].hint.as_deref().is_some_and(|h| h.contains("tabs")), "{e:?}");
    }

    /// A mapping longer than `SeenKeys::FEW` moves its keys to a hash map:
    /// a duplicate of a key from before the move, from after it, and of
    /// the key that made it move, is each found with its first position.
    #[test]
    fn duplicate_keys_are_found_in_long_mappings() {
        let n = SeenKeys::FEW + 10;
        let mut text: String = (0..n).map(|i| format!("k{i}: {i}\n")).collect();
        text.push_str(&format!("k3: x\nk{}: x\nk{}: x\n", n - 1, SeenKeys::FEW));
        let e = load(&text).unwrap_err();
        let got: Vec<(usize, String)> = e.iter().map(|d| (d.pos.line, d.message.clone())).collect();
        assert_eq!(got.len(), 3, "{got:?}");
        for ((line, msg), (want_line, key, first)) in
            got.iter().zip([(n + 1, 3, 4), (n + 2, n - 1, n), (n + 3, SeenKeys::FEW, SeenKeys::FEW + 1)])
        {
            assert_eq!(*line, want_line, "{got:?}");
            assert!(msg.contains(&format!("duplicate key `k{key}` (first at line {first}, column 1)")), "{got:?}");
        }
        assert!(load(&(0..n).map(|i| format!("k{i}: {i}\n")).collect::<String>()).is_ok());
    }

    /// The one-pass builder gives what saphyr's tree gave (value, every
    /// position, every diagnostic) on every board and fixture of the repo
    /// and on the YAML corners a file can hold: documents, complex and
    /// non-string keys, tags, escapes, aliases, syntax errors.
    #[test]
    fn builder_agrees_with_saphyrs_tree() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
        let mut texts: Vec<(String, String)> = Vec::new();
        for dir in [
            "meta-zynq-net/boards",
            "tools/crates/zynq-net-cli/tests/fixtures/good",
            "tests/kernel/fixtures",
            "tests/bench/boards",
        ] {
            let d = root.join(dir);
            let mut files: Vec<_> = std::fs::read_dir(&d)
                .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "yml" || x == "yaml"))
                .collect();
            files.sort();
            for f in files {
                texts.push((f.display().to_string(), std::fs::read_to_string(&f).unwrap_or_default()));
            }
        }
        // the failing cases' boards (bad-cases.txt)
        let cases = crate::bad_cases::Cases::load(&root);
        texts.extend(cases.materialized(&root).into_iter().map(|(n, t)| (format!("{}: {n}", cases.file), t)));
        assert!(texts.len() > 80, "{} files", texts.len());
        let corners = [
            "",
            "# a comment only\n",
            "---\n",
            "---\n...\n",
            "a: 1\n---\nb: 2\n",
            "---\n---\n",
            "a: 1\n---\n",
            "? [a, b]\n: 1\nc: 2\n",
            "? {x: 1}\n: {y: [1, 2]}\nz: 3\n",
            "{[1]: 2, b: 3}\n",
            "1: a\n01: b\n",
            "true: 1\nnull: 2\n1.5: 3\nk: v\n",
            "!foo a: 1\nb: !bar 2\nc: !!int x\nd: !!str 5\ne: !!float 1\nf: !!null ~\ng: !!bool yes\n",
            "!!str 1: a\n!!int 2: b\nz: 1\n",
            "a: [1, 2.5, .inf, -.nan, 0x1F, 0o17, 1e3, '3', \"4\", ~, null, true, False]\n",
            "a: !custom {b: 1}\nc: !custom [1]\nd: !!map {e: 1}\n",
            "a/b: 1\nc~d: {e: 2}\n",
            "a: &x 1\nb: *x\n",
            "a: [1, 2\n",
            "- a\n- b: c\n  d: [e]\n",
            "a:\n  - ? x\n    : y\n",
            "? |\n  block\n: v\n",
            "a: 1\n? [b]\n",
            "? a\n",
            "a: {b: {c: [[1], [2, {d: 1.0}]]}}\n",
            "a: 1\na: 2\n",
            "[1, {a: 1, a: 2}]\n",
            "x: !!int 1.5\n",
            "k: v\n? [q]\n: {r: !!bool maybe}\nn: !!float 2\n",
        ];
        texts.extend(corners.iter().map(|c| (format!("{c:?}"), (*c).to_string())));
        for (name, text) in &texts {
            match (load(text), load_by_tree(text)) {
                (Ok((v1, m1)), Ok((v2, m2))) => {
                    assert_eq!(v1, v2, "{name}");
                    assert_eq!(m1, m2, "{name}");
                }
                // the builder words saphyr's "':' must be followed by" after
                // a tab as its own message (the tree path does not): rule
                // and position still agree
                (Err(e1), Err(e2)) if e1.iter().any(|d| d.message.starts_with("a tab after `:`")) => {
                    let at = |e: &[Diagnostic]| e.iter().map(|d| (d.rule, d.pos)).collect::<Vec<_>>();
                    assert_eq!(at(&e1), at(&e2), "{name}");
                }
                (Err(e1), Err(e2)) => assert_eq!(format!("{e1:?}"), format!("{e2:?}"), "{name}"),
                (a, b) => panic!("{name}: builder {a:?}\ntree {b:?}"),
            }
        }
    }

    /// Where saphyr's tree was wrong, the builder reports: a key its `!!`
    /// tag refuses (`!!int x`) became saphyr's "no key yet" marker, so the
    /// next scalar was taken for the key and the mapping shifted by one
    /// (`{"c": "z"}` from `!!int x: c` then `z: 1`), silently.
    #[test]
    fn a_key_its_tag_refuses_is_reported() {
        let e = load("!!str 1: a\n!!int x: c\nz: 1\n").unwrap_err();
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(e[0].rule, Rule::KeyNotString, "{e:?}");
        assert_eq!((e[0].pos.line, e[0].pos.col), (2, 7), "{e:?}");
        let e = load("a:\n  ? !!int z\n  : {b: 1}\n  c: 2\n").unwrap_err();
        assert_eq!((e.len(), e[0].rule, e[0].pos.line), (1, Rule::KeyNotString, 2), "{e:?}");
    }

    /// Two maps are equal only with the same positions and the same decimals.
    #[test]
    fn source_maps_differ_by_position_or_decimal() {
        let map = |t: &str| load(t).unwrap().1;
        assert_eq!(map("a: 1\n"), map("a: 1\n"));
        assert_ne!(map("a: 1\n"), map("a:  1\n"));
        assert_ne!(map("a: 1.0\n"), map("a: 100\n"));
    }

    /// Nesting of exactly MAX_DEPTH levels (the top mapping is the first)
    /// loads; one level more is the depth error.
    #[test]
    fn nesting_of_the_limit_is_read_and_one_level_more_is_not() {
        let nest = |n: usize| format!("a: {}{}\n", "[".repeat(n), "]".repeat(n));
        assert!(load(&nest(MAX_DEPTH - 1)).is_ok());
        let e = load(&nest(MAX_DEPTH)).unwrap_err();
        assert_eq!(e.iter().map(|d| d.rule).collect::<Vec<_>>(), [Rule::NestingDepth], "{e:?}");
    }

    /// A file of many faults of one kind gets the first MAX_LIMIT_ERRORS of
    /// them, not one more: control characters, and aliases.
    #[test]
    fn limit_errors_stop_at_their_count() {
        let e = load(&"a: \u{1}\n".repeat(MAX_LIMIT_ERRORS + 5)).unwrap_err();
        assert_eq!(e.len(), MAX_LIMIT_ERRORS, "{e:?}");
        let mut text = String::from("a: &x 1\n");
        for i in 0..MAX_LIMIT_ERRORS + 5 {
            text.push_str(&format!("b{i}: *x\n"));
        }
        let e = load(&text).unwrap_err();
        assert_eq!(e.len(), MAX_LIMIT_ERRORS, "{e:?}");
        assert!(e.iter().all(|d| d.rule == Rule::YamlAlias), "{e:?}");
    }

    #[test]
    fn a_value_of_the_limit_is_read_and_one_byte_more_is_not() {
        assert!(load(&format!("a: {}\n", "x".repeat(MAX_SCALAR_BYTES))).is_ok());
        let e = load(&format!("a: {}\n", "x".repeat(MAX_SCALAR_BYTES + 1))).unwrap_err();
        assert_eq!(e.iter().map(|d| d.rule).collect::<Vec<_>>(), [Rule::ValueTooLong]);
    }

    /// A limit error found before a syntax error is what the file gets
    /// (the syntax error may be a consequence of what the limit stopped).
    #[test]
    fn limit_errors_come_before_a_later_syntax_error() {
        let e = load("a: &x 1\nb: *x\nc: [\n").unwrap_err();
        assert_eq!(e.iter().map(|d| d.rule).collect::<Vec<_>>(), [Rule::YamlAlias], "{e:?}");
    }

    /// Duplicate keys are found past the small-map size (16 keys), and a
    /// nested mapping's keys are its own.
    #[test]
    fn duplicate_keys_in_big_and_nested_maps() {
        let mut big: String = (0..20).map(|i| format!("k{i}: {i}\n")).collect();
        big.push_str("k18: again\n");
        let e = load(&big).unwrap_err();
        assert_eq!((e.len(), e[0].rule, e[0].pos.line), (1, Rule::DuplicateKey, 21), "{e:?}");
        assert!(load("a: {x: 1}\nx: 2\nb: [{x: 3}]\n").is_ok());
        let e = load("a: {x: 1}\nc: 1\nc: 2\n").unwrap_err();
        assert_eq!((e.len(), e[0].pos.line), (1, 3), "{e:?}");
    }

    /// A tag outside the core schema (meant for another tool) is an error
    /// at the value, not silently dropped (`!foo 1500` was read as 1500).
    #[test]
    fn an_unknown_tag_is_an_error_at_its_value() {
        for (text, tag) in [("a:\n  b: !foo 1500\n", "`!foo`"), ("a:\n  b: !!binary aGk=\n", "`!!binary`")] {
            let e = load(text).expect_err(text);
            assert_eq!((e[0].rule, e[0].pos.line), (Rule::YamlTag, 2), "{e:?}");
            assert!(e[0].message.contains(tag), "{e:?}");
        }
        assert!(load("a:\n  b: !!str x\n  c: !!int 3\n").is_ok());
    }

    /// A tagged value that is not of its tag's type is an error at the value.
    #[test]
    fn a_wrong_tag_is_an_error_at_its_value() {
        let e = load("a: 1\nb: !!int x\n").unwrap_err();
        assert_eq!((e[0].rule, e[0].pos.line, e[0].pos.col), (Rule::YamlTag, 2, 10), "{e:?}");
    }

    /// After a key that is a collection (refused) and its dropped value,
    /// the mapping is read on: a second such key is reported too, and the
    /// keys after it are keys again.
    #[test]
    fn reading_goes_on_after_a_dropped_collection_key() {
        let e = load("? [a]\n: {b: 1}\n? [c]\n: [2]\nd: 1\nd: 2\n").unwrap_err();
        let got: Vec<_> = e.iter().map(|d| (d.rule, d.pos.line)).collect();
        assert_eq!(got, [(Rule::DuplicateKey, 6), (Rule::KeyNotString, 1), (Rule::KeyNotString, 3)], "{e:?}");
    }

    /// An alias counts as a node toward [`MAX_NODES`]: the one that passes
    /// the limit is refused as an alias and as one node too many.
    #[test]
    fn an_alias_counts_toward_the_node_limit() {
        // the sequence, MAX_NODES - 1 scalars (the first anchored), the alias
        let mut text = String::from("- &a 1\n");
        text.push_str(&"- 1\n".repeat(MAX_NODES - 2));
        text.push_str("- *a\n");
        let e = load(&text).unwrap_err();
        let got: Vec<_> = e.iter().map(|d| (d.rule, d.pos.line)).collect();
        assert_eq!(got, [(Rule::YamlAlias, MAX_NODES), (Rule::TooManyNodes, MAX_NODES)], "{e:?}");
        // one scalar fewer: the alias is the last node allowed
        let text = text.replacen("- 1\n", "", 1);
        let e = load(&text).unwrap_err();
        let got: Vec<_> = e.iter().map(|d| d.rule).collect();
        assert_eq!(got, [Rule::YamlAlias], "{e:?}");
    }

    /// A file that ends inside a flow collection: the error sits on the
    /// file's last character and says it is the end, with or without a
    /// final newline (the scanner's marker is one line past the text); an
    /// error inside the text keeps the scanner's position.
    #[test]
    fn a_syntax_error_at_the_end_points_into_the_file() {
        for text in ["board:\n  name: [a, bc", "board:\n  name: [a, bc\n"] {
            let e = load(text).unwrap_err();
            assert_eq!((e[0].rule, e[0].pos.line, e[0].pos.col), (Rule::YamlSyntax, 2, 14), "{text:?}: {e:?}");
            assert!(e[0].message.ends_with("(at the end of the file)"), "{e:?}");
        }
        let e = load("a: [1, 2\nb: ]\nc: 3\n").unwrap_err();
        assert!(e[0].pos.line <= 2 && !e[0].message.contains("end of the file"), "{e:?}");
    }
}
