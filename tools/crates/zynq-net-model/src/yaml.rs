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

use saphyr::{LoadableYamlNode, MarkedYaml, Scalar, YamlData};
use saphyr_parser::{Event, Parser};
use serde_json::{Map, Number, Value};

use crate::diag::{Diagnostic, Pos};
use crate::rules::Rule;

/// Positions of every node of a loaded YAML document, by JSON pointer.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    values: HashMap<String, Pos>,
    keys: HashMap<String, Pos>,
    /// Pointers of the values written as YAML floats (`1500.0`, `1e3`).
    floats: Vec<String>,
}

impl SourceMap {
    /// Position of the value at `pointer`, or of its closest existing parent.
    pub fn value_pos(&self, pointer: &str) -> Pos {
        let mut p = pointer.to_string();
        loop {
            if let Some(pos) = self.values.get(&p) {
                return *pos;
            }
            match p.rfind('/') {
                Some(i) => p.truncate(i),
                None => return Pos { line: 1, col: 1 },
            }
        }
    }

    /// Position of the mapping key that names `pointer` (falls back to the value).
    pub fn key_pos(&self, pointer: &str) -> Pos {
        self.keys.get(pointer).copied().unwrap_or_else(|| self.value_pos(pointer))
    }

    /// Pointers of the values the file wrote as floats: `1500.0` is a
    /// float in YAML 1.2 and serde cannot read it as an integer, so the
    /// schema check reports them where it expects an integer.
    pub fn float_pointers(&self) -> &[String] {
        &self.floats
    }

    /// Fills in the position of a diagnostic from its pointer.
    pub fn locate(&self, mut d: Diagnostic) -> Diagnostic {
        d.pos = self.value_pos(&d.pointer);
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

fn pos_of(node: &MarkedYaml<'_>) -> Pos {
    Pos { line: node.span.start.line(), col: node.span.start.col() + 1 }
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
    scan(text, None)
}

/// [`check_limits`], and when `dups` is given, [`DuplicateKeys`] on the
/// same pass over the events (one parse instead of two).
fn scan(text: &str, mut dups: Option<&mut DuplicateKeys>) -> Result<(), Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let (mut depth, mut nodes) = (0usize, 0usize);
    for ev in Parser::new_from_str(text) {
        let Ok((ev, span)) = ev else { break };
        let pos = Pos { line: span.start.line(), col: span.start.col() + 1 };
        if let Some(d) = dups.as_deref_mut() {
            d.event(&ev, pos);
        }
        let at = |rule: Rule, msg: String| Diagnostic { pos, ..Diagnostic::new(rule, "", msg) };
        match ev {
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                depth += 1;
                nodes += 1;
                if depth > MAX_DEPTH {
                    errors.push(at(Rule::NestingDepth, format!("nesting deeper than {MAX_DEPTH} levels")));
                    break;
                }
            }
            Event::SequenceEnd | Event::MappingEnd => depth = depth.saturating_sub(1),
            Event::Alias(_) => {
                nodes += 1;
                errors.push(at(Rule::YamlAlias, "YAML aliases (`*name`) are not supported in board files".into()));
            }
            Event::Scalar(s, ..) => {
                nodes += 1;
                if s.len() > MAX_SCALAR_BYTES {
                    errors
                        .push(at(Rule::ValueTooLong, format!("value of {} bytes (limit {MAX_SCALAR_BYTES})", s.len())));
                }
            }
            _ => {}
        }
        if nodes > MAX_NODES {
            errors.push(at(Rule::TooManyNodes, format!("more than {MAX_NODES} YAML nodes")));
            break;
        }
        if errors.len() >= MAX_LIMIT_ERRORS {
            break;
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Parses YAML text into a JSON value and its source map.
///
/// # Errors
/// Diagnostics for the limits of [`check_limits`], syntax errors, duplicate
/// keys (each repeated key), non-string keys, aliases and multiple documents.
pub fn load(text: &str) -> Result<(Value, SourceMap), Vec<Diagnostic>> {
    let mut dups = DuplicateKeys::default();
    scan(text, Some(&mut dups))?;
    let docs = MarkedYaml::load_from_str(text).map_err(|e| {
        let m = e.marker();
        vec![Diagnostic {
            pos: Pos { line: m.line(), col: m.col() + 1 },
            ..Diagnostic::new(Rule::YamlSyntax, "", format!("YAML syntax error: {}", e.info()))
        }]
    })?;
    let mut map = SourceMap::default();
    let mut errors = dups.found;
    let value = match docs.as_slice() {
        [] => {
            errors.push(Diagnostic::new(Rule::EmptyFile, "", "the file is empty"));
            Value::Null
        }
        [doc] => convert(doc, String::new(), &mut map, &mut errors),
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

fn convert(node: &MarkedYaml<'_>, ptr: String, map: &mut SourceMap, errors: &mut Vec<Diagnostic>) -> Value {
    map.values.insert(ptr.clone(), pos_of(node));
    match &node.data {
        YamlData::Value(s) => {
            if matches!(s, Scalar::FloatingPoint(_)) {
                map.floats.push(ptr);
            }
            scalar(s)
        }
        YamlData::Representation(s, _, _) => Value::String(s.to_string()),
        YamlData::Sequence(items) => {
            Value::Array(items.iter().enumerate().map(|(i, n)| convert(n, format!("{ptr}/{i}"), map, errors)).collect())
        }
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
                map.keys.insert(child.clone(), pos_of(k));
                let val = convert(v, child, map, errors);
                out.insert(key, val);
            }
            Value::Object(out)
        }
        YamlData::Tagged(_, inner) => convert(inner, ptr, map, errors),
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
    Map { keys: HashMap<String, Pos>, key_next: bool },
    Seq,
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
                self.stack.push(Frame::Map { keys: HashMap::new(), key_next: true });
            }
            Event::SequenceStart(..) => {
                self.fill_slot();
                self.stack.push(Frame::Seq);
            }
            Event::MappingEnd | Event::SequenceEnd => {
                self.stack.pop();
            }
            Event::Scalar(value, ..) => {
                if let Some(Frame::Map { keys, key_next: true }) = self.stack.last_mut() {
                    if let Some(first) = keys.get(value.as_ref()) {
                        self.found.push(Diagnostic {
                            pos,
                            ..Diagnostic::new(
                                Rule::DuplicateKey,
                                "",
                                format!(
                                    "YAML syntax error: duplicate key `{value}` (first at line {}, column {})",
                                    first.line, first.col
                                ),
                            )
                        });
                    } else {
                        keys.insert(value.to_string(), pos);
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

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
