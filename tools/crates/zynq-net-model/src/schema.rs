//! The JSON Schema of the board format, derived from the model, and
//! structural validation of a loaded document against it.

use serde_json::Value;

use crate::diag::Diagnostic;
use crate::model::Board;
use crate::rules::Rule;
use crate::text::closest;
use crate::yaml::{escape_segment, SourceMap};

/// Keys renamed or commonly mistyped, with the key to use instead.
const RENAMED_KEYS: &[(&str, &str)] = &[
    ("rps_flow_cnt", "rfs_flow_cnt"),
    ("irqs", "irq_affinity"),
    ("smp_affinity", "irq_affinity"),
    ("ring", "rings"),
    ("coalescing", "coalesce"),
    ("offload", "offloads"),
    ("features", "offloads"),
    ("phy-mode", "phy_mode"),
    ("local-mac-address", "mac"),
    ("mac_address", "mac"),
    ("rps_sock_flow_entries", "rfs_sock_flow_entries"),
    ("nf_conntrack_max", "conntrack_max"),
    ("num_queues", "queues"),
    // the bench runner's former spec file (before the bench section took its place)
    ("duration", "duration_s"),
    ("omit", "omit_s"),
    ("udp_bitrate", "udp_rate"),
    ("cpu_bound_percent", "cpu_bound_pct"),
    ("line_rate", "line_rate_mbps"),
    ("trial_seconds", "trial_s"),
    ("confirm_seconds", "confirm_s"),
    ("loss_tolerance_percent", "loss_tolerance_pct"),
    ("resolution_percent", "resolution_pct"),
];

/// Top-level keys of the bench runner's former spec file (before issue
/// 16), with where a bench file writes them now: the unknown-key hint at
/// the top of a bench file.
pub(crate) const FORMER_SPEC_KEYS: &[(&str, &str)] = &[
    ("duration", "matrix: { duration_s: ... }"),
    ("omit", "matrix: { omit_s: ... }"),
    ("repeats", "matrix: { repeats: ... }"),
    ("protocols", "matrix: { protocols: [...] }"),
    ("directions", "matrix: { directions: [...] }"),
    ("mtus", "matrix: { mtus: [...] }"),
    ("streams", "matrix: { streams: [...] }"),
    ("tcp_length", "matrix: { tcp_length: ... }"),
    ("udp_bitrate", "matrix: { udp_rate: ... }"),
    ("zerocopy", "matrix: { zerocopy: ... }"),
    ("cpu_bound_percent", "matrix: { cpu_bound_pct: ... }"),
    ("cpus", "matrix: { pin_cpus: ..., peer_pin_cpus: ... }"),
    ("irq_cpus", "dut: { irq_cpus: ... }"),
    ("line_rate", "rfc2544: { line_rate_mbps: ... }"),
    ("frame_sizes", "rfc2544: { frame_sizes: [...] }"),
];

/// The JSON Schema (draft 2020-12) of board format v1, pretty-printed.
pub fn schema_json() -> String {
    let mut s = serde_json::to_string_pretty(&schema_value()).unwrap_or_default();
    s.push('\n');
    s
}

/// The JSON Schema as a value.
pub fn schema_value() -> Value {
    // Optional keys are simply not required; without the `null` alternative
    // schemars adds for `Option<T>`, a mistake inside an optional map is
    // reported at the key itself (unknown key, wrong type) instead of as
    // "not valid under anyOf" at the parent.
    let mut v = serde_json::to_value(schemars::schema_for!(Board)).unwrap_or(Value::Null);
    drop_null_alternatives(&mut v);
    bound_integers(&mut v);
    require_bench_targets(&mut v);
    v
}

/// A board's `bench` names its DUT and peers. The Rust type leaves them
/// optional because a standalone bench file may omit them
/// ([`bench_schema_of`]); the board schema requires them.
fn require_bench_targets(v: &mut Value) {
    if let Some(Value::Object(b)) = v.pointer_mut("/$defs/Bench") {
        b.insert("required".into(), Value::from(vec!["dut", "peers"]));
    }
}

/// The JSON Schema of a standalone bench file (docs/bench.md, "The bench
/// file"), derived from a board schema (`board`: [`schema_value`] or the
/// embedded validation schema): its `Bench` definition as the root, with
/// the same `$defs`, without the required `dut` and `peers`.
pub fn bench_schema_of(board: &Value) -> Value {
    let mut root = board.pointer("/$defs/Bench").cloned().unwrap_or(Value::Bool(false));
    if let Value::Object(o) = &mut root {
        o.remove("required");
        if let Some(defs) = board.get("$defs") {
            o.insert("$defs".into(), defs.clone());
        }
        if let Some(s) = board.get("$schema") {
            o.insert("$schema".into(), s.clone());
        }
    }
    root
}

/// The first sentence of the description of a bench file's key at JSON
/// pointer `pointer` (`/tester/flows`: "Flows per port, 1 to 4096."), as a
/// diagnostic's `expected:` hint gives it: what a CLI flag that sets the
/// key says of its value. `None` for a pointer the bench schema has not.
pub fn bench_key_description(pointer: &str) -> Option<String> {
    describe(&bench_schema_of(&schema_value()), pointer)
}

/// Which document a file is: a board, or a standalone bench file (the
/// `bench` section on its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocKind {
    /// A board file (`version`, `board`, `interfaces`, ...).
    Board,
    /// A bench file: the keys of a board's `bench` section at the top level.
    Bench,
}

/// Adds the range of the Rust integer type (schemars writes it as
/// `format: uint32` etc., which validators do not check) as `minimum` /
/// `maximum`, so a value that does not fit is an error at its position
/// instead of a failed deserialization.
fn bound_integers(v: &mut Value) {
    match v {
        Value::Object(map) => {
            let range: Option<(i128, i128)> = match map.get("format").and_then(Value::as_str) {
                Some("uint8") => Some((0, u8::MAX.into())),
                Some("uint16") => Some((0, u16::MAX.into())),
                Some("uint32") => Some((0, u32::MAX.into())),
                Some("uint64") => Some((0, u64::MAX.into())),
                Some("int32") => Some((i32::MIN.into(), i32::MAX.into())),
                Some("int64") => Some((i64::MIN.into(), i64::MAX.into())),
                _ => None,
            };
            if let Some((lo, hi)) = range {
                let num = |x: i128| {
                    u64::try_from(x)
                        .map(Value::from)
                        .unwrap_or_else(|_| i64::try_from(x).map(Value::from).unwrap_or(Value::Null))
                };
                map.entry("minimum").or_insert_with(|| num(lo));
                map.entry("maximum").or_insert_with(|| num(hi));
            }
            map.values_mut().for_each(bound_integers);
        }
        Value::Array(items) => items.iter_mut().for_each(bound_integers),
        _ => {}
    }
}

/// Removes the `null` alternative of optional values: `"type": ["integer",
/// "null"]` becomes `"integer"`, `anyOf: [X, {"type": "null"}]` becomes X.
fn drop_null_alternatives(v: &mut Value) {
    match v {
        Value::Object(map) => {
            if let Some(Value::Array(types)) = map.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let t = types[0].clone();
                    map.insert("type".into(), t);
                }
            }
            let single = match map.get("anyOf") {
                Some(Value::Array(alts))
                    if alts.len() == 2 && alts.iter().any(|a| a.get("type") == Some(&Value::String("null".into()))) =>
                {
                    alts.iter().find(|a| a.get("type") != Some(&Value::String("null".into()))).cloned()
                }
                _ => None,
            };
            if let Some(Value::Object(inner)) = single {
                map.remove("anyOf");
                for (k, x) in inner {
                    map.entry(k).or_insert(x);
                }
            }
            map.values_mut().for_each(drop_null_alternatives);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_null_alternatives),
        _ => {}
    }
}

/// The schema with only what validation reads (no `description`, `title`,
/// `default`, ids), as compact JSON: [`schema_value`] with those keywords
/// removed. Checked in as `board.schema.min.json` so that a run does not
/// derive the schema (schemars: about 5 M instructions); the test
/// `embedded_schema_is_current` fails when the model changed and the file
/// did not (regenerate it with `cargo test -p zynq-net-model -- --ignored
/// regenerate_embedded_schema`).
pub fn validation_schema_json() -> String {
    let mut v = schema_value();
    strip_annotations(&mut v);
    let mut s = serde_json::to_string(&v).unwrap_or_default();
    s.push('\n');
    s
}

/// The checked-in validation schema as text (build.rs turns it into
/// [`SCHEMA_TREE`]; the tests compare the two and the file with the model).
#[cfg(test)]
const EMBEDDED_SCHEMA: &str = include_str!("board.schema.min.json");

/// Keywords that do not take part in validation (annotations).
const ANNOTATIONS: &[&str] = &["description", "title", "default", "examples", "$schema", "$id"];

/// Removes the annotation keywords from a schema (not from `properties` /
/// `$defs` names, which are maps of subschemas by name).
fn strip_annotations(v: &mut Value) {
    match v {
        Value::Object(map) => {
            map.retain(|k, _| !ANNOTATIONS.contains(&k.as_str()));
            for (k, x) in map.iter_mut() {
                match (k.as_str(), x) {
                    ("properties" | "$defs" | "definitions", Value::Object(named)) => {
                        named.values_mut().for_each(strip_annotations);
                    }
                    ("enum" | "const" | "required", _) => {}
                    (_, x) => strip_annotations(x),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_annotations),
        _ => {}
    }
}

/// Formats no validator checks (schemars' names of Rust number types):
/// `format` with one of these constrains nothing.
const UNCHECKED_FORMATS: &[&str] =
    &["uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "double", "float", "uint", "int"];

/// A yes/no check of a document against the schema, for the common case of
/// a valid board: it interprets the keywords the board schema uses
/// (Draft 7 semantics) directly on the schema value, so nothing is
/// compiled. It is conservative: any keyword, format, number or `items`
/// form it does not know answers "not valid", and the caller then runs the
/// full validator, which produces the diagnostics. It never answers "valid"
/// for a document jsonschema rejects (test `quick_check_agrees_with_jsonschema`
/// holds it against jsonschema on every fixture).
struct Quick {
    root: &'static J,
    regexes: std::collections::HashMap<&'static str, Option<Pattern>>,
}

/// A JSON value fixed at build time: build.rs writes the embedded
/// validation schema (`board.schema.min.json`) as one ([`SCHEMA_TREE`]), so
/// the quick check walks constant slices instead of parsing the JSON into
/// hash maps on every run. Objects keep the file's key order and are
/// searched linearly (a schema object has a few keys; `$defs` a few dozen).
#[derive(Debug, PartialEq)]
// `Null` and `Float` are written by build.rs for a schema that has them
// (today's has neither).
#[allow(dead_code)]
enum J {
    Null,
    Bool(bool),
    /// Every JSON integer of the schema (bounds up to `u64::MAX`).
    Int(i128),
    Float(f64),
    Str(&'static str),
    Arr(&'static [J]),
    Obj(&'static [(&'static str, J)]),
}

impl J {
    fn get(&self, key: &str) -> Option<&J> {
        match self {
            J::Obj(m) => m.iter().find(|(k, _)| *k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&'static str> {
        match self {
            J::Str(s) => Some(s),
            _ => None,
        }
    }

    fn as_array(&self) -> Option<&'static [J]> {
        match self {
            J::Arr(a) => Some(a),
            _ => None,
        }
    }

    fn as_u64(&self) -> Option<u64> {
        match self {
            J::Int(i) => u64::try_from(*i).ok(),
            _ => None,
        }
    }

    /// RFC 6901 JSON pointer lookup (`/a/0/b`, `~1` for `/`, `~0` for `~`).
    fn pointer(&self, ptr: &str) -> Option<&J> {
        if ptr.is_empty() {
            return Some(self);
        }
        let mut cur = self;
        for raw in ptr.strip_prefix('/')?.split('/') {
            let seg = raw.replace("~1", "/").replace("~0", "~");
            cur = match cur {
                J::Obj(_) => cur.get(&seg)?,
                J::Arr(a) => a.get(seg.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(cur)
    }
}

include!(concat!(env!("OUT_DIR"), "/schema_tree.rs"));

/// What the schema walk ([`subschema`]) reads of a schema node: the
/// derived schema (`serde_json::Value`, with descriptions, for messages)
/// and the embedded tree ([`J`], for the type at a pointer) share it.
trait Node: Sized {
    fn key(&self, key: &str) -> Option<&Self>;
    fn text(&self) -> Option<&str>;
    fn list(&self) -> Option<&[Self]>;
    fn at(&self, pointer: &str) -> Option<&Self>;
    fn is_map(&self) -> bool;
}

impl Node for Value {
    fn key(&self, key: &str) -> Option<&Self> {
        self.get(key)
    }
    fn text(&self) -> Option<&str> {
        self.as_str()
    }
    fn list(&self) -> Option<&[Self]> {
        self.as_array().map(Vec::as_slice)
    }
    fn at(&self, pointer: &str) -> Option<&Self> {
        self.pointer(pointer)
    }
    fn is_map(&self) -> bool {
        self.is_object()
    }
}

impl Node for J {
    fn key(&self, key: &str) -> Option<&Self> {
        self.get(key)
    }
    fn text(&self) -> Option<&str> {
        self.as_str()
    }
    fn list(&self) -> Option<&[Self]> {
        self.as_array()
    }
    fn at(&self, pointer: &str) -> Option<&Self> {
        self.pointer(pointer)
    }
    fn is_map(&self) -> bool {
        matches!(self, J::Obj(_))
    }
}

impl Quick {
    /// The subschema a local `$ref` names; `#/$defs/Name` (every `$ref`
    /// schemars writes) without the general JSON-pointer walk.
    fn target(&self, r: &str) -> Option<&'static J> {
        let root: &'static J = self.root;
        match r.strip_prefix("#/$defs/") {
            Some(name) if !name.contains(['~', '/']) => root.get("$defs")?.get(name),
            _ => root.pointer(r.strip_prefix('#')?),
        }
    }

    fn valid(&mut self, inst: &Value, schema: &'static J, depth: usize) -> bool {
        self.valid_except(inst, schema, depth, "")
    }

    /// [`Self::valid`] with the keyword `ignore` of `schema` itself left out.
    fn valid_except(&mut self, inst: &Value, schema: &'static J, depth: usize, ignore: &str) -> bool {
        if depth > 2 * crate::yaml::MAX_DEPTH + 16 {
            return false;
        }
        let obj = match schema {
            J::Obj(o) => *o,
            J::Bool(b) => return *b,
            _ => return false,
        };
        if let Some(r) = schema.get("$ref") {
            // Draft 7: `$ref` ignores its siblings.
            let Some(target) = r.as_str().and_then(|r| self.target(r)) else {
                return false;
            };
            return self.valid(inst, target, depth + 1);
        }
        let d = depth + 1;
        for (k, v) in obj {
            let ok = match *k {
                k if k == ignore => true,
                "$defs" | "definitions" => true,
                k if ANNOTATIONS.contains(&k) => true,
                "format" => v.as_str().is_some_and(|f| UNCHECKED_FORMATS.contains(&f)),
                "type" => match v {
                    J::Str(t) => type_is(inst, t),
                    J::Arr(ts) => ts.iter().any(|t| t.as_str().is_some_and(|t| type_is(inst, t))),
                    _ => false,
                },
                "enum" => v.as_array().is_some_and(|a| a.iter().any(|e| same(e, inst))),
                "const" => same(v, inst),
                "properties" => match (inst, v) {
                    (Value::Object(o), J::Obj(props)) => {
                        props.iter().all(|(name, s)| o.get(*name).map_or(true, |x| self.valid(x, s, d)))
                    }
                    (Value::Object(_), _) => false,
                    _ => true,
                },
                "additionalProperties" => match inst {
                    Value::Object(o) => {
                        let props = schema.get("properties");
                        o.iter()
                            .filter(|(name, _)| props.and_then(|p| p.get(name)).is_none())
                            .all(|(_, x)| self.valid(x, v, d))
                    }
                    _ => true,
                },
                "required" => match inst {
                    Value::Object(o) => {
                        v.as_array().is_some_and(|r| r.iter().all(|n| n.as_str().is_some_and(|n| o.contains_key(n))))
                    }
                    _ => true,
                },
                "items" => match inst {
                    Value::Array(a) => !matches!(v, J::Arr(_)) && a.iter().all(|x| self.valid(x, v, d)),
                    _ => true,
                },
                "minItems" => match inst {
                    Value::Array(a) => v.as_u64().is_some_and(|m| a.len() as u64 >= m),
                    _ => true,
                },
                "minimum" => !inst.is_number() || int_cmp(inst, v).is_some_and(|o| o.is_ge()),
                "maximum" => !inst.is_number() || int_cmp(inst, v).is_some_and(|o| o.is_le()),
                "pattern" => match inst {
                    Value::String(s) => match v.as_str() {
                        Some(p) => {
                            self.regexes.entry(p).or_insert_with(|| pattern(p)).as_ref().is_some_and(|r| r.is_match(s))
                        }
                        None => false,
                    },
                    _ => true,
                },
                "anyOf" => v.as_array().is_some_and(|a| a.iter().any(|s| self.valid(inst, s, d))),
                "oneOf" => v.as_array().is_some_and(|a| a.iter().filter(|s| self.valid(inst, s, d)).count() == 1),
                _ => false,
            };
            if !ok {
                return false;
            }
        }
        true
    }
}

/// Bytes aligned for a DFA's `u32` transition table (regex-automata's
/// `DFA::from_bytes` needs 4-byte alignment; `include_bytes!` gives 1).
#[repr(C)]
struct AlignedBytes<B: ?Sized> {
    _align: [u32; 0],
    bytes: B,
}

/// A schema `pattern`, ready to match.
enum Pattern {
    /// Built at build time (build.rs, [`PATTERN_DFAS`]): every pattern of
    /// the embedded schema. Boxed: the DFA's header is 768 bytes.
    Dfa(Box<regex_automata::dfa::dense::DFA<&'static [u32]>>),
    /// Compiled now, for a pattern the embedded schema does not have (the
    /// tests' small schemas only: the quick check runs on the embedded
    /// schema): regex-lite.
    #[cfg(test)]
    Lite(regex_lite::Regex),
}

impl Pattern {
    /// `s` matches (JSON Schema `pattern`: a search, so `^`/`$` anchor it).
    /// A DFA that gives up (it cannot: the patterns have no Unicode word
    /// boundary) answers "no", so the caller runs the full validator.
    fn is_match(&self, s: &str) -> bool {
        use regex_automata::dfa::Automaton;
        match self {
            Pattern::Dfa(d) => {
                d.try_search_fwd(&regex_automata::Input::new(s).earliest(true)).is_ok_and(|m| m.is_some())
            }
            #[cfg(test)]
            Pattern::Lite(r) => r.is_match(s),
        }
    }
}

/// `p` ready to match: the build-time DFA of the embedded schema's
/// pattern (in tests, a pattern of another schema is compiled with
/// regex-lite); `None` otherwise (the answer is then "not sure").
fn pattern(p: &str) -> Option<Pattern> {
    match PATTERN_DFAS.iter().find(|(q, _)| *q == p) {
        Some((_, b)) => {
            regex_automata::dfa::dense::DFA::from_bytes(&b.bytes).ok().map(|(d, _)| Pattern::Dfa(Box::new(d)))
        }
        #[cfg(test)]
        None => regex_lite::Regex::new(p).ok().map(Pattern::Lite),
        #[cfg(not(test))]
        None => None,
    }
}

/// `inst` is of JSON Schema type `t`; a float is never taken for an
/// integer here (conservative: the full validator decides).
fn type_is(inst: &Value, t: &str) -> bool {
    match (t, inst) {
        ("object", Value::Object(_))
        | ("array", Value::Array(_))
        | ("string", Value::String(_))
        | ("boolean", Value::Bool(_))
        | ("null", Value::Null)
        | ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => n.is_i64() || n.is_u64(),
        _ => false,
    }
}

/// Equality of a schema value with a document value for `enum`/`const`,
/// conservative for numbers: only integers compare (jsonschema takes `1`
/// and `1.0` as equal; this says "differ", and the full validator decides).
fn same(a: &J, b: &Value) -> bool {
    match (a, b) {
        (J::Int(x), Value::Number(y)) => int_of(y) == Some(*x),
        (J::Null, Value::Null) => true,
        (J::Bool(x), Value::Bool(y)) => x == y,
        (J::Str(x), Value::String(y)) => x == y,
        (J::Arr(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (J::Obj(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, a)| y.get(*k).is_some_and(|b| same(a, b)))
        }
        _ => false,
    }
}

fn int_of(n: &serde_json::Number) -> Option<i128> {
    n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from))
}

/// Exact comparison of a document number with a schema bound; `None` when
/// it cannot be exact here (a float against an integer beyond 2^53, or not
/// numbers).
fn int_cmp(a: &Value, b: &J) -> Option<std::cmp::Ordering> {
    const EXACT: i128 = 1 << 53;
    let Value::Number(x) = a else { return None };
    match (int_of(x), b) {
        (Some(i), J::Int(j)) => Some(i.cmp(j)),
        (i, _) => {
            if i.is_some_and(|i| !(-EXACT..=EXACT).contains(&i)) {
                return None;
            }
            let y = match b {
                J::Int(j) if (-EXACT..=EXACT).contains(j) => *j as f64,
                J::Float(f) => *f,
                _ => return None,
            };
            x.as_f64()?.partial_cmp(&y)
        }
    }
}

/// `doc` is valid under the schema of `kind`, decided without compiling
/// it (on the build-time tree, [`SCHEMA_TREE`]); `false` means "not sure",
/// not "invalid". A bench file is checked against the board schema's
/// `Bench` definition without its `required` (as [`bench_schema_of`]).
fn quick_valid(doc: &Value, kind: DocKind) -> bool {
    let mut q = Quick { root: &SCHEMA_TREE, regexes: std::collections::HashMap::new() };
    match kind {
        DocKind::Board => q.valid(doc, &SCHEMA_TREE, 0),
        DocKind::Bench => match SCHEMA_TREE.pointer("/$defs/Bench") {
            Some(bench) => q.valid_except(doc, bench, 0, "required"),
            None => false,
        },
    }
}

/// Validates `doc` against the board schema; returns every violation,
/// located with `map`.
///
/// A valid board (no float where the file wrote one) is recognised by a
/// quick check that compiles nothing; anything else goes to jsonschema,
/// which finds and describes every violation.
pub fn validate_structure(doc: &Value, map: &SourceMap) -> Vec<Diagnostic> {
    validate_structure_of(doc, map, DocKind::Board)
}

/// [`validate_structure`] for a document of `kind` (a board, or a
/// standalone bench file against [`bench_schema_of`]).
pub fn validate_structure_of(doc: &Value, map: &SourceMap, kind: DocKind) -> Vec<Diagnostic> {
    let floats_fit = || map.floats().iter().all(|(p, _)| !wants_integer(kind, p));
    if floats_fit() && quick_valid(doc, kind) {
        return Vec::new();
    }
    validate_full(doc, map, kind)
}

/// The schema of `kind` expects an integer at `ptr` (where the file wrote
/// a float), read from the embedded schema tree.
fn wants_integer(kind: DocKind, ptr: &str) -> bool {
    let start = match kind {
        DocKind::Board => Some(&SCHEMA_TREE),
        DocKind::Bench => SCHEMA_TREE.pointer("/$defs/Bench"),
    };
    start.and_then(|start| subschema_from(&SCHEMA_TREE, start, ptr)).is_some_and(integer_only)
}

/// `s` takes integers and no other numbers: its `type`, or for an
/// `anyOf`/`oneOf` (a queue index or `all`, a CPU number or list) its
/// alternatives. jsonschema takes `1.0` for an integer where serde does
/// not, so such a float must be reported here (a fuzzer found `queue: 1.`
/// reaching `internal-error`).
fn integer_only(s: &'static J) -> bool {
    let types = |t: &J, want: &'static str| match t {
        J::Str(x) => *x == want,
        J::Arr(a) => a.contains(&J::Str(want)),
        _ => false,
    };
    if let Some(t) = s.get("type") {
        return types(t, "integer") && !types(t, "number");
    }
    let alts: Vec<&'static J> = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| s.get(k).and_then(J::as_array))
        .flatten()
        .map(|a| resolve(&SCHEMA_TREE, a))
        .collect();
    alts.iter().any(|a| integer_only(a)) && !alts.iter().any(|a| a.get("type").is_some_and(|t| types(t, "number")))
}

/// The full validation: every violation, with jsonschema.
fn validate_full(doc: &Value, map: &SourceMap, kind: DocKind) -> Vec<Diagnostic> {
    // Built once per process (the fuzz target and `bench` load many boards).
    // The `regex` engine (linear time, no backtracking) is enough for our
    // patterns and much cheaper to set up than the default fancy-regex.
    //
    // Validated as Draft 7, although schemars writes 2020-12: the schema
    // uses only keywords both drafts share (`$ref` siblings are only
    // `description`/`default`; `$defs` is reached by JSON pointer; every
    // `format` is schemars' own, e.g. `uint32`, which no draft checks).
    // jsonschema 0.33 (the release line that builds with Rust 1.75) compiles
    // the 2020-12 meta-schema, `$dynamicRef`s and all, on every run to check
    // the schema first: 80 ms of CPU per `zynq-net gen`, against a few ms
    // for Draft 7's (benches/gen; docs/yocto.md, "Rust"). Compiled once per
    // process.
    type Compiled = std::sync::OnceLock<(Value, Result<jsonschema::Validator, String>)>;
    static COMPILED: Compiled = std::sync::OnceLock::new();
    static COMPILED_BENCH: Compiled = std::sync::OnceLock::new();
    let once = match kind {
        DocKind::Board => &COMPILED,
        DocKind::Bench => &COMPILED_BENCH,
    };
    let (schema, validator) = once.get_or_init(|| {
        let schema = match kind {
            DocKind::Board => schema_value(),
            DocKind::Bench => bench_schema_of(&schema_value()),
        };
        let v = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft7)
            .with_pattern_options(jsonschema::PatternOptions::regex())
            .build(&schema)
            .map_err(|e| e.to_string());
        (schema, v)
    });
    let validator = match validator {
        Ok(v) => v,
        Err(e) => {
            return vec![Diagnostic::new(
                Rule::Internal,
                "",
                format!("internal error: board schema does not compile: {e}"),
            )]
        }
    };
    let mut out = Vec::new();
    // Values reported here as not integers: the validator's errors about
    // the same value (not of type integer, above the maximum) would say
    // the same thing again.
    let mut not_integers: Vec<&str> = Vec::new();
    for (ptr, written) in map.floats() {
        if wants_integer(kind, ptr) {
            let written = short_text(written);
            // an integer beyond 64 bits is a float to YAML
            let too_large = written.trim_start_matches(['-', '+']).bytes().all(|b| b.is_ascii_digit());
            let (msg, fix) = if too_large {
                (format!("{written} is too large for an integer here"), "write a number in the allowed range")
            } else {
                (
                    format!("{written} is a decimal number; an integer is expected here"),
                    "write it without a fraction or exponent",
                )
            };
            let d = Diagnostic::new(Rule::NotInteger, ptr.clone(), msg);
            let d = match describe(schema, ptr) {
                Some(w) => d.hint(format!("{fix} ({w})")),
                None => d.hint(fix),
            };
            out.push(map.locate(d));
            not_integers.push(ptr);
        }
    }
    for err in validator.iter_errors(doc) {
        let ptr = err.instance_path.to_string();
        if not_integers.contains(&ptr.as_str()) {
            continue;
        }
        // An `anyOf`/`oneOf` value (`{spi: 104.5}` of an interrupt) that
        // fails only as a whole because a value inside it is a decimal:
        // the not-integer error there says where and why.
        let inside = |n: &&str| n.len() > ptr.len() && n.starts_with(&ptr) && n.as_bytes()[ptr.len()] == b'/';
        if matches!(
            err.kind,
            jsonschema::error::ValidationErrorKind::AnyOf { .. }
                | jsonschema::error::ValidationErrorKind::OneOfNotValid { .. }
        ) && not_integers.iter().any(inside)
        {
            continue;
        }
        let expected = describe(schema, &ptr);
        match &err.kind {
            jsonschema::error::ValidationErrorKind::AdditionalProperties { unexpected } => {
                for key in unexpected.iter().map(String::as_str) {
                    let child = format!("{ptr}/{}", escape_segment(key));
                    let allowed = allowed_keys(schema, &ptr);
                    let hint = match RENAMED_KEYS.iter().find(|(old, _)| *old == key) {
                        Some((_, new)) if allowed.iter().any(|a| a == new) => {
                            format!("`{key}` is spelled `{new}` in board format v1")
                        }
                        _ => match closest(key, &allowed) {
                            Some(c) => format!("did you mean `{c}`? allowed here: {}", allowed.join(", ")),
                            None => format!("allowed here: {}", allowed.join(", ")),
                        },
                    };
                    out.push(Diagnostic {
                        pos: map.key_pos(&child),
                        ..Diagnostic::new(Rule::UnknownKey, child, format!("unknown key `{key}`")).hint(hint)
                    });
                }
            }
            jsonschema::error::ValidationErrorKind::Required { property } => {
                let name = property.as_str().unwrap_or("?").to_string();
                let child = format!("{ptr}/{}", escape_segment(&name));
                let what = describe(schema, &child);
                let d = Diagnostic::new(Rule::MissingKey, ptr.clone(), format!("missing required key `{name}`"));
                let d = match what {
                    Some(w) => d.hint(format!("add `{name}:` ({w})")),
                    None => d.hint(format!("add `{name}:`")),
                };
                out.push(map.locate(d));
            }
            kind => {
                use jsonschema::error::ValidationErrorKind as K;
                let choices = enum_choices(schema, &ptr);
                let got = short(&err.instance);
                let below_min = matches!(kind, K::Minimum { .. } | K::ExclusiveMinimum { .. });
                // NaN and infinity (`.nan`, `.inf`, `1e999`) are floats
                // JSON cannot hold: the document has `null` there
                let non_finite = map
                    .floats()
                    .iter()
                    .find(|(p, _)| *p == ptr && err.instance.is_null())
                    .map(|(_, written)| short_text(written));
                // `tester:` with nothing after it: YAML's null, where a
                // section (a mapping) goes
                let empty_section = err.instance.is_null()
                    && matches!(
                        kind,
                        K::Type { kind: jsonschema::error::TypeKind::Single(jsonschema::JsonType::Object) }
                    );
                let message = if let Some(written) = non_finite {
                    format!("{written} is not a finite number")
                } else if empty_section {
                    "empty section: remove it or give keys".to_string()
                } else if !choices.is_empty() {
                    format!("{got} is not one of {}", choices.join(", "))
                } else if let Some(min) = below_min.then(|| enforced_minimum(&ptr)).flatten() {
                    // the schema's 0 is only the type's floor (u32): name
                    // the minimum the value checks enforce
                    format!("{got} is less than the minimum of {min}")
                } else {
                    {
                        let m = plain_message(&err.to_string());
                        if m.starts_with(&got) {
                            m
                        } else {
                            format!("{got}: {m}")
                        }
                    }
                };
                // each arm is its rule's reporting site (Diagnostic::site)
                let here = std::panic::Location::caller;
                let (rule, site) = match kind {
                    _ if !choices.is_empty() => (Rule::BadEnum, here()),
                    K::Enum { .. } | K::Constant { .. } => (Rule::BadEnum, here()),
                    K::Minimum { .. } | K::Maximum { .. } | K::ExclusiveMinimum { .. } | K::ExclusiveMaximum { .. } => {
                        (Rule::IntegerRange, here())
                    }
                    K::Pattern { .. } => (Rule::Pattern, here()),
                    K::MinItems { .. } => (Rule::TooFewItems, here()),
                    // `type`, and a value none of the accepted shapes
                    // (`oneOf`/`anyOf`) takes; the schema uses no other keyword
                    _ => (Rule::WrongType, here()),
                };
                let d = Diagnostic { site: crate::diag::Site(site), ..Diagnostic::new(rule, ptr.clone(), message) };
                let d = match expected {
                    _ if (got == "true" || got == "false") && choices.iter().any(|c| c == "\"on\"") => {
                        // a YAML 1.1 tool (PyYAML) read `on` as a boolean
                        // and wrote it back as `true`
                        let v = if got == "true" { "on" } else { "off" };
                        d.hint(format!(
                            "write `{v}`: a YAML 1.1 tool (PyYAML, yq v3) rewrites on/off as true/false, which YAML 1.2 reads as booleans"
                        ))
                    }
                    // an empty section's keys, as an unknown key's hint lists them
                    _ if empty_section && !allowed_keys(schema, &ptr).is_empty() => {
                        let keys = allowed_keys(schema, &ptr).join(", ");
                        match expected {
                            Some(w) => d.hint(format!("expected: {w} keys: {keys}")),
                            None => d.hint(format!("keys: {keys}")),
                        }
                    }
                    Some(w) => d.hint(format!("expected: {w}")),
                    None => d,
                };
                out.push(map.locate(d));
            }
        }
    }
    out
}

/// The smallest value the value checks accept at `ptr`, where it is above
/// the schema's type floor: an MTU is at least 68 (rule `mtu-min`, RFC 791;
/// net/ethernet/eth.c ETH_MIN_MTU), so `mtu: -1` is not told "minimum of 0".
fn enforced_minimum(ptr: &str) -> Option<&'static str> {
    let mtu = ptr.ends_with("/mtu") || ptr.rsplit_once('/').is_some_and(|(parent, _)| parent.ends_with("/mtus"));
    mtu.then_some("68 (the IPv4 minimum MTU)")
}

fn plain_message(m: &str) -> String {
    if m.contains("is not valid under any of the schemas") || m.contains("oneOf") || m.contains("anyOf") {
        "not a valid value here".to_string()
    } else {
        m.to_string()
    }
}

fn short(v: &Value) -> String {
    short_text(&v.to_string())
}

/// `s`, cut to 60 characters with `...`.
fn short_text(s: &str) -> String {
    if s.chars().count() > 60 {
        // by characters: a byte index could fall inside a UTF-8 sequence
        format!("{}...", s.chars().take(57).collect::<String>())
    } else {
        s.to_string()
    }
}

/// Follows `$ref`s to the subschema describing the instance at `pointer`.
fn subschema<'a, N: Node>(root: &'a N, pointer: &str) -> Option<&'a N> {
    subschema_from(root, root, pointer)
}

/// [`subschema`] of `start` (a subschema of `root`; `$ref`s resolve in `root`).
fn subschema_from<'a, N: Node>(root: &'a N, start: &'a N, pointer: &str) -> Option<&'a N> {
    let mut cur = resolve(root, start);
    for seg in pointer.split('/').skip(1) {
        let seg = seg.replace("~1", "/").replace("~0", "~");
        cur = resolve(root, unwrap_option(root, child(root, cur, &seg)?));
    }
    Some(cur)
}

/// The subschema of `cur`'s child `seg`: a property, an item, an
/// additional property, or the child in one of its `anyOf`/`oneOf`
/// alternatives (an IRQ is a number or `{spi, trigger}`).
fn child<'a, N: Node>(root: &'a N, cur: &'a N, seg: &str) -> Option<&'a N> {
    if let Some(p) = cur.key("properties").and_then(|p| p.key(seg)) {
        return Some(p);
    }
    if let Some(items) = cur.key("items") {
        return seg.parse::<usize>().ok().map(|_| items);
    }
    if let Some(a) = cur.key("additionalProperties").filter(|a| a.is_map()) {
        return Some(a);
    }
    ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| cur.key(k).and_then(N::list))
        .flatten()
        .find_map(|alt| child(root, resolve(root, alt), seg))
}

fn unwrap_option<'a, N: Node>(root: &'a N, s: &'a N) -> &'a N {
    // `Option<T>` is rendered as anyOf [T, null]; use T.
    if let Some(any) = s.key("anyOf").and_then(N::list) {
        if let Some(t) = any.iter().find(|a| a.key("type").and_then(N::text) != Some("null")) {
            return resolve(root, t);
        }
    }
    s
}

fn resolve<'a, N: Node>(root: &'a N, s: &'a N) -> &'a N {
    let mut cur = s;
    for _ in 0..8 {
        match cur.key("$ref").and_then(N::text) {
            Some(r) => match r.strip_prefix("#") {
                Some(p) => match root.at(p) {
                    Some(t) => cur = t,
                    None => return cur,
                },
                None => return cur,
            },
            None => return cur,
        }
    }
    cur
}

fn describe(root: &Value, pointer: &str) -> Option<String> {
    let s = subschema(root, pointer)?;
    s.get("description").and_then(Value::as_str).map(first_sentence)
}

/// The first sentence of a field's doc comment, its lines joined (a
/// sentence may wrap: its first line alone left brackets open).
fn first_sentence(doc: &str) -> String {
    let para: Vec<&str> = doc.lines().map(str::trim).take_while(|l| !l.is_empty()).collect();
    let text = para.join(" ");
    let end = text
        .match_indices(". ")
        .map(|(i, _)| i)
        .find(|&i| !(text[..i].ends_with("e.g") || text[..i].ends_with("i.e") || text[..i].ends_with("cf")));
    match end {
        Some(i) => text[..=i].to_string(),
        None => text,
    }
}

fn enum_choices(root: &Value, pointer: &str) -> Vec<String> {
    let Some(s) = subschema(root, pointer) else { return Vec::new() };
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        return e.iter().map(|v| v.to_string()).collect();
    }
    if let Some(one) = s.get("oneOf").and_then(Value::as_array) {
        let consts: Vec<String> = one
            .iter()
            .filter_map(|o| o.get("const").or_else(|| o.get("enum").and_then(|e| e.get(0))))
            .map(|v| v.to_string())
            .collect();
        if consts.len() == one.len() {
            return consts;
        }
    }
    Vec::new()
}

fn allowed_keys(root: &Value, pointer: &str) -> Vec<String> {
    subschema(root, pointer)
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture_docs() -> Vec<(std::path::PathBuf, Value, SourceMap)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let dirs = [root.join("../meta-zynq-net/boards"), root.join("crates/zynq-net-cli/tests/fixtures/good")];
        let mut out = Vec::new();
        for dir in dirs {
            let mut files: Vec<_> = std::fs::read_dir(&dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "yml"))
                .collect();
            files.sort();
            for f in files {
                let text = std::fs::read_to_string(&f).unwrap_or_default();
                if let Ok((v, m)) = crate::yaml::load(&text) {
                    out.push((f, v, m));
                }
            }
        }
        // the failing cases' boards (bad-cases.txt), named CASES_FILE/NAME
        let cases = crate::bad_cases::Cases::load(&root.join(".."));
        for (name, text) in cases.materialized(&root.join("..")) {
            if let Ok((v, m)) = crate::yaml::load(&text) {
                out.push((std::path::Path::new(crate::bad_cases::CASES_FILE).join(name), v, m));
            }
        }
        out
    }

    /// The checked-in validation schema, parsed once per process.
    fn embedded_schema() -> Option<&'static Value> {
        static PARSED: std::sync::OnceLock<Option<Value>> = std::sync::OnceLock::new();
        PARSED.get_or_init(|| serde_json::from_str(EMBEDDED_SCHEMA).ok()).as_ref()
    }

    /// A parsed JSON value as a [`J`] tree (leaked: tests only).
    fn leak(v: &Value) -> J {
        let text = |s: &str| -> &'static str { Box::leak(s.to_string().into_boxed_str()) };
        match v {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Number(n) => int_of(n).map_or_else(|| J::Float(n.as_f64().unwrap_or(f64::NAN)), J::Int),
            Value::String(s) => J::Str(text(s)),
            Value::Array(a) => J::Arr(Box::leak(a.iter().map(leak).collect::<Vec<_>>().into_boxed_slice())),
            Value::Object(m) => {
                J::Obj(Box::leak(m.iter().map(|(k, x)| (text(k), leak(x))).collect::<Vec<_>>().into_boxed_slice()))
            }
        }
    }

    /// build.rs wrote the schema file's tree exactly: every key, in order,
    /// every value (a tree that differed would make the quick check answer
    /// for another schema).
    #[test]
    fn static_tree_is_the_embedded_schema() {
        let parsed = embedded_schema().unwrap_or_else(|| panic!("board.schema.min.json does not parse"));
        assert_eq!(SCHEMA_TREE, leak(parsed));
        assert!(matches!(SCHEMA_TREE.get("$defs"), Some(J::Obj(d)) if d.len() > 10));
        // RFC 6901 pointers, escapes included
        let j = leak(&serde_json::json!({"a/b": [0, {"c~d": true}]}));
        assert_eq!(j.pointer("/a~1b/1/c~0d"), Some(&J::Bool(true)));
        assert_eq!(j.pointer("/a~1b/0"), Some(&J::Int(0)));
        assert_eq!(j.pointer(""), Some(&j));
        assert_eq!(j.pointer("/a~1b/2"), None);
        assert_eq!(j.pointer("/x"), None);
        assert_eq!(j.pointer("a"), None);
    }

    /// Every pattern of the embedded schema has a build-time DFA, and the
    /// DFA answers as regex-lite does on every string of the reference
    /// boards and on corner cases (empty, too long, a newline at the end,
    /// non-ASCII), with at least one match and one miss per pattern.
    #[test]
    fn pattern_dfas_agree_with_regex_lite() {
        fn strings(v: &Value, out: &mut Vec<String>) {
            match v {
                Value::String(s) => out.push(s.clone()),
                Value::Object(m) => m.iter().for_each(|(k, x)| {
                    out.push(k.clone());
                    strings(x, out)
                }),
                Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
                _ => {}
            }
        }
        let mut samples: Vec<String> = ["", "a", "A_b", "_x", "0-3,5", "1-", ",", "eth0", "eth0\n", "é", "/a/b", "//"]
            .iter()
            .map(|s| s.to_string())
            .chain(["x".repeat(63), "x".repeat(64), "x".repeat(65), "ethernet-phy-ieee802.3-c22".into()])
            .collect();
        let boards = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../meta-zynq-net/boards");
        for e in std::fs::read_dir(&boards).expect("boards") {
            let text = std::fs::read_to_string(e.expect("entry").path()).expect("board");
            strings(&crate::yaml::load(&text).expect("reference board loads").0, &mut samples);
        }
        let mut schema_patterns = Vec::new();
        strings_at_key(&SCHEMA_TREE, "pattern", &mut schema_patterns);
        assert!(!PATTERN_DFAS.is_empty());
        for p in &schema_patterns {
            assert!(PATTERN_DFAS.iter().any(|(q, _)| q == p), "no build-time DFA for {p:?}");
        }
        for (p, _) in PATTERN_DFAS {
            let dfa = pattern(p).expect("DFA deserializes");
            assert!(matches!(dfa, Pattern::Dfa(_)), "{p}");
            let lite = regex_lite::Regex::new(p).expect("regex-lite compiles it");
            let (mut hit, mut miss) = (false, false);
            for s in &samples {
                let want = lite.is_match(s);
                assert_eq!(dfa.is_match(s), want, "pattern {p:?} on {s:?}");
                hit |= want;
                miss |= !want;
            }
            assert!(hit && miss, "pattern {p:?}: the samples do not both match and miss it");
        }
    }

    fn strings_at_key(j: &J, key: &str, out: &mut Vec<String>) {
        match j {
            J::Obj(m) => m.iter().for_each(|(k, x)| match x {
                J::Str(s) if *k == key => out.push(s.to_string()),
                _ => strings_at_key(x, key, out),
            }),
            J::Arr(a) => a.iter().for_each(|x| strings_at_key(x, key, out)),
            _ => {}
        }
    }

    /// A value inside one of an `anyOf`'s alternatives is described by that
    /// alternative's field (an IRQ is a number or `{spi, trigger}`): the
    /// walk descends into the alternatives of the derived schema too.
    #[test]
    fn fields_inside_alternatives_are_described() {
        let root = schema_value();
        let d = describe(&root, "/interfaces/0/dt/node/interrupts/0/spi").unwrap_or_default();
        assert!(d.starts_with("GIC SPI number"), "{d:?}");
        assert_eq!(describe(&root, "/interfaces/0/dt/node/interrupts/0/nope"), None);
    }

    /// Null alternatives go wherever a subschema sits, inside arrays of
    /// subschemas (`anyOf`, `items` lists) too.
    #[test]
    fn null_alternatives_are_dropped_inside_arrays() {
        let mut v = serde_json::json!({"anyOf": [{"type": ["integer", "null"]}, {"anyOf": [{"type": "string"}, {"type": "null"}]}]});
        drop_null_alternatives(&mut v);
        assert_eq!(v, serde_json::json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}));
    }

    #[test]
    fn a_description_is_its_first_sentence_whole() {
        assert_eq!(
            first_sentence("Line rate in Mbit/s (the physical\nlimit). Used for x.\n\nMore."),
            "Line rate in Mbit/s (the physical limit)."
        );
        assert_eq!(first_sentence("One line"), "One line");
        assert_eq!(first_sentence("Rates, e.g. 200M or 1G. Then x."), "Rates, e.g. 200M or 1G.");
        assert_eq!(first_sentence("The ring, i.e. its slots. Then x."), "The ring, i.e. its slots.");
        assert_eq!(first_sentence("Coalescing (cf. ethtool -C). Then x."), "Coalescing (cf. ethtool -C).");
        assert_eq!(first_sentence("Two\nlines\n\nthen more"), "Two lines");
    }

    /// A float where an `anyOf` of an integer and something else stands
    /// (queue index or `all`, CPU number or list, IRQ number or `{spi,
    /// trigger}`, sysctl value) is `not-integer` at its position, never
    /// `internal-error` (jsonschema takes `1.0` for an integer, serde does
    /// not: the fuzzer's `queue: 1.`, tools/fuzz/regressions/board/).
    #[test]
    fn a_float_in_an_integer_alternative_is_reported() {
        let (_, text) = crate::testutil::repo_board("zcu102");
        for (from, to, line) in [
            ("      - { queue: 1, cpus: 1 }", "      - { queue: 1., cpus: 1 }", 41),
            ("      - { queue: 0, cpus: 2 }", "      - { queue: 0, cpus: 2.0 }", 66),
            ("interrupts: [89, 90, 91, 92]", "interrupts: [89, 90.0, 91, 92]", 94),
            ("interrupts: [89, 90, 91, 92]", "interrupts: [89, {spi: 90.0, trigger: level}, 91, 92]", 94),
            (
                "  dut: { ssh: root@zcu102, address: 192.0.2.192, iface: eth0, irq_cpus: 1 }",
                "  dut: { ssh: root@zcu102, address: 192.0.2.192, iface: eth0, irq_cpus: 1.0 }",
                99,
            ),
        ] {
            assert!(text.contains(from), "{from}");
            let bad = text.replacen(from, to, 1);
            let d = crate::load_board_str(std::path::Path::new("f.yml"), &bad).unwrap_err();
            assert!(!d.items.iter().any(|i| i.rule == Rule::Internal), "{to}: {d}");
            assert!(d.items.iter().any(|i| i.rule == Rule::NotInteger && i.pos.line == line), "{to}: {d}");
        }
        // a number where numbers are allowed stays a number
        assert!(!integer_only(SCHEMA_TREE.pointer("/$defs/Matrix/properties/cpu_bound_pct").unwrap()));
        // `type` as a list (JSON Schema allows it; schemars writes none for
        // this schema today): integer-or-null is integer-only, a list that
        // also allows numbers is not
        static INT_OR_NULL: J = J::Obj(&[("type", J::Arr(&[J::Str("integer"), J::Str("null")]))]);
        static INT_OR_NUMBER: J = J::Obj(&[("type", J::Arr(&[J::Str("integer"), J::Str("number")]))]);
        assert!(integer_only(&INT_OR_NULL));
        assert!(!integer_only(&INT_OR_NUMBER));
    }

    #[test]
    fn embedded_schema_is_current() {
        assert!(
            EMBEDDED_SCHEMA == validation_schema_json(),
            "src/board.schema.min.json is stale: run `cargo test -p zynq-net-model -- --ignored regenerate_embedded_schema`"
        );
    }

    #[test]
    #[ignore = "writes src/board.schema.min.json"]
    fn regenerate_embedded_schema() {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/board.schema.min.json");
        std::fs::write(p, validation_schema_json()).unwrap_or_else(|e| panic!("{e}"));
    }

    /// The quick check against jsonschema on every board and fixture that
    /// parses: never "valid" where jsonschema finds a violation (that
    /// would drop diagnostics), and "valid" on every board jsonschema
    /// accepts without floats (else the speed-up is lost).
    #[test]
    fn quick_check_agrees_with_jsonschema() {
        let docs = fixture_docs();
        assert!(docs.len() > 50, "{} documents", docs.len());
        let (mut valid, mut invalid) = (0, 0);
        for (f, doc, map) in &docs {
            let full = validate_full(doc, map, DocKind::Board);
            let quick = quick_valid(doc, DocKind::Board);
            let fast = validate_structure(doc, map);
            assert_eq!(format!("{fast:?}"), format!("{full:?}"), "{}", f.display());
            if quick {
                assert!(full.is_empty(), "{}: quick check says valid, jsonschema finds {full:?}", f.display());
            } else if map.floats().iter().all(|(p, _)| !wants_integer(DocKind::Board, p)) {
                assert!(!full.is_empty(), "{}: jsonschema accepts, quick check does not", f.display());
            }
            if full.is_empty() {
                valid += 1;
            } else {
                invalid += 1;
            }
        }
        // both outcomes exercised
        assert!(valid >= 3 && invalid >= 5, "{valid} valid, {invalid} invalid");
    }

    /// The bench-file schema: the quick check agrees with jsonschema on the
    /// reference boards' bench sections (valid) and on faults planted in
    /// them (invalid), and `dut`/`peers` are optional there only.
    #[test]
    fn bench_file_schema_quick_and_full_agree() {
        let mut docs: Vec<Value> = fixture_docs()
            .into_iter()
            .filter(|(f, _, _)| f.parent().is_some_and(|d| d.ends_with("boards")))
            .filter_map(|(_, v, _)| v.get("bench").cloned())
            .collect();
        assert!(docs.len() >= 3, "{} bench sections", docs.len());
        let valid = docs.len();
        let base = docs[0].clone();
        let mut planted = |f: &dyn Fn(&mut Value)| {
            let mut d = base.clone();
            f(&mut d);
            docs.push(d);
        };
        planted(&|d| d["matrix"]["streams"] = serde_json::json!([]));
        planted(&|d| d["matrix"]["tcp_length"] = serde_json::json!(0));
        planted(&|d| d["matrix"]["tcp_length"] = serde_json::json!(2_000_000));
        planted(&|d| d["matrix"]["duration"] = serde_json::json!(1));
        planted(&|d| d["rfc2544"]["trial_s"] = serde_json::json!(0));
        planted(&|d| d["udp_bitrate"] = serde_json::json!("1G"));
        planted(&|d| d["matrix"]["protocols"] = serde_json::json!(["sctp"]));
        planted(&|d| {
            d["matrix"].as_object_mut().map(|m| m.remove("mtus"));
        });
        let map = SourceMap::default();
        for (i, doc) in docs.iter().enumerate() {
            let full = validate_full(doc, &map, DocKind::Bench);
            assert_eq!(quick_valid(doc, DocKind::Bench), full.is_empty(), "{i}: {doc}\n{full:?}");
            assert_eq!(full.is_empty(), i < valid, "{i}: {doc}\n{full:?}");
        }
        // no DUT and no peers: a valid bench file, not a valid board bench section
        let mut bare = base.clone();
        bare.as_object_mut().map(|o| {
            o.remove("dut");
            o.remove("peers")
        });
        assert!(validate_full(&bare, &map, DocKind::Bench).is_empty());
        let board = serde_json::json!({ "bench": bare });
        let missing: Vec<String> = validate_full(&board, &map, DocKind::Board)
            .into_iter()
            .filter(|d| d.rule == Rule::MissingKey && d.pointer == "/bench")
            .map(|d| d.message)
            .collect();
        assert_eq!(missing, ["missing required key `dut`", "missing required key `peers`"]);
    }

    #[test]
    fn quick_check_each_keyword_rejects() {
        let root = serde_json::json!({
            "type": "object", "additionalProperties": false, "required": ["a"],
            "properties": {
                "a": { "type": "integer", "minimum": 1, "maximum": 9, "format": "uint32" },
                "b": { "type": "string", "pattern": "^x[0-9]$" },
                "c": { "type": "array", "items": { "$ref": "#/$defs/E" }, "minItems": 1 },
                "d": { "oneOf": [{ "const": "on" }, { "enum": ["off", "x"] }] },
                "e": { "anyOf": [{ "type": "boolean" }, { "type": "null" }] },
                "f": { "type": "string", "format": "ipv4" },
                "g": { "type": "number", "format": "double", "minimum": 0, "maximum": 100 },
                "h": { "const": true },
                "i": { "enum": [null, [1, 2], { "x": "y" }] }
            },
            "$defs": { "E": { "enum": ["p", "q"] } }
        });
        let root: &'static J = Box::leak(Box::new(leak(&root)));
        let check = |doc: Value| Quick { root, regexes: std::collections::HashMap::new() }.valid(&doc, root, 0);
        assert!(check(serde_json::json!({"a": 1, "b": "x1", "c": ["p"], "d": "on", "e": null, "g": 0.0})));
        assert!(check(serde_json::json!({"a": 9, "g": 100})));
        // `enum`/`const` of every JSON type
        for good in [
            serde_json::json!({"a": 1, "h": true}),
            serde_json::json!({"a": 1, "i": null}),
            serde_json::json!({"a": 1, "i": [1, 2]}),
            serde_json::json!({"a": 1, "i": {"x": "y"}}),
        ] {
            assert!(check(good.clone()), "{good}");
        }
        for bad in [
            serde_json::json!({"b": "x1"}),
            serde_json::json!({"a": 1, "z": 0}),
            serde_json::json!({"a": "1"}),
            serde_json::json!({"a": 1.0}),
            serde_json::json!({"a": 0}),
            serde_json::json!({"a": 10}),
            serde_json::json!({"a": 9.5}),
            serde_json::json!({"a": 1, "g": 100.5}),
            serde_json::json!({"a": 1, "g": -0.1}),
            serde_json::json!({"a": 1, "b": "y1"}),
            serde_json::json!({"a": 1, "c": []}),
            serde_json::json!({"a": 1, "c": ["r"]}),
            serde_json::json!({"a": 1, "d": "no"}),
            serde_json::json!({"a": 1, "e": 3}),
            serde_json::json!({"a": 1, "h": false}),
            serde_json::json!({"a": 1, "i": false}),
            serde_json::json!({"a": 1, "i": [1, 3]}),
            serde_json::json!({"a": 1, "i": [1]}),
            serde_json::json!({"a": 1, "i": {"x": "z"}}),
            serde_json::json!({"a": 1, "i": {"x": "y", "w": 1}}),
            // a checked format: not sure, so not valid
            serde_json::json!({"a": 1, "f": "1.2.3.4"}),
        ] {
            assert!(!check(bad.clone()), "{bad}");
        }
    }

    /// Each Rust integer format gets its type's range (schemars writes one
    /// itself only for some: the u8/u16 ranges are then kept as they are).
    #[test]
    fn integer_formats_get_their_types_range() {
        let range = |format: &str| {
            let mut v = serde_json::json!({ "type": "integer", "format": format });
            bound_integers(&mut v);
            (v.get("minimum").cloned(), v.get("maximum").cloned())
        };
        let r = |lo: Value, hi: Value| (Some(lo), Some(hi));
        assert_eq!(range("uint8"), r(0.into(), 255.into()));
        assert_eq!(range("uint16"), r(0.into(), 65535.into()));
        assert_eq!(range("uint32"), r(0.into(), u32::MAX.into()));
        assert_eq!(range("uint64"), r(0.into(), u64::MAX.into()));
        assert_eq!(range("int32"), r(i32::MIN.into(), i32::MAX.into()));
        assert_eq!(range("int64"), r(i64::MIN.into(), i64::MAX.into()));
        assert_eq!(range("double"), (None, None));
        // nested and an existing bound kept
        let mut v = serde_json::json!({ "items": [{ "format": "uint8", "maximum": 31 }] });
        bound_integers(&mut v);
        assert_eq!(v, serde_json::json!({ "items": [{ "format": "uint8", "minimum": 0, "maximum": 31 }] }));
    }

    /// Keywords and shapes the board schema has no instance of today: a
    /// `minItems` above 1, boolean subschemas, a `$defs` name that needs
    /// JSON-pointer escaping, and the depth limit a recursive schema hits.
    #[test]
    fn quick_check_beyond_todays_schema() {
        let root = serde_json::json!({
            "type": "object",
            "properties": {
                "two": { "type": "array", "minItems": 2 },
                "any": true,
                "none": false,
                "esc": { "$ref": "#/$defs/E~1F~0G" },
                "either": { "type": ["integer", "string"] },
                "int": { "type": "integer" },
                "odd": { "properties": 1 },
                "ann": { "type": "integer", "description": "a number", "title": "N" },
                "fl": { "type": "number", "minimum": 0.5, "maximum": 100.5 },
                "huge": { "type": "number", "maximum": 9007199254740993u64 }
            },
            "$defs": { "E/F~G": { "type": "integer" } }
        });
        let root: &'static J = Box::leak(Box::new(leak(&root)));
        let check = |doc: Value| Quick { root, regexes: std::collections::HashMap::new() }.valid(&doc, root, 0);
        for (doc, valid) in [
            (serde_json::json!({"two": [1, 2]}), true),
            (serde_json::json!({"two": [1]}), false),
            (serde_json::json!({"any": [{"x": 1}]}), true),
            (serde_json::json!({"none": 1}), false),
            (serde_json::json!({"esc": 1}), true),
            (serde_json::json!({"esc": "1"}), false),
            (serde_json::json!({"either": 1}), true),
            (serde_json::json!({"either": "x"}), true),
            (serde_json::json!({"either": 1.5}), false),
            // integers beyond u64 or below 0 are integers too
            (serde_json::json!({"int": -1}), true),
            (serde_json::json!({"int": u64::MAX}), true),
            // `properties` that is not an object: not sure
            (serde_json::json!({"odd": {"x": 1}}), false),
            (serde_json::json!({"odd": 1}), true),
            // annotations (the embedded tree has none: minified) are no constraint
            (serde_json::json!({"ann": 1}), true),
            // integers against decimal bounds compare exactly (below 2^53)
            (serde_json::json!({"fl": 50}), true),
            (serde_json::json!({"fl": 50.5}), true),
            (serde_json::json!({"fl": 101}), false),
            (serde_json::json!({"fl": 0}), false),
            // a bound beyond 2^53 cannot be compared with a decimal exactly: not sure
            (serde_json::json!({"huge": 1.5}), false),
            (serde_json::json!({"huge": 1}), true),
        ] {
            assert_eq!(check(doc.clone()), valid, "{doc}");
        }
        // A recursive schema (nested arrays of integers) stops at depth
        // 2 * MAX_DEPTH + 16 = 80 and answers "not sure" beyond: each
        // nesting level is 3 steps (the root, its `anyOf` alternative, the
        // `items` `$ref`), the innermost integer's alternative is 3k + 1
        // deep, plus the depth the walk starts at.
        let nested = serde_json::json!({
            "anyOf": [{ "type": "integer" }, { "type": "array", "items": { "$ref": "#" } }]
        });
        let nested: &'static J = Box::leak(Box::new(leak(&nested)));
        let deep = |k: usize, start: usize| {
            let mut doc = Value::from(1);
            for _ in 0..k {
                doc = Value::Array(vec![doc]);
            }
            Quick { root: nested, regexes: std::collections::HashMap::new() }.valid_except(&doc, nested, start, "")
        };
        assert_eq!(2 * crate::yaml::MAX_DEPTH + 16, 80);
        // deepest step 3k + 1 + start: valid up to 80
        assert!(deep(26, 0) && deep(26, 1) && !deep(26, 2) && !deep(27, 0));
        assert!(deep(25, 4) && !deep(25, 5));
    }

    /// The quick check exists to answer "valid" for the documents users
    /// write (at the speed users expect of it): every reference and good fixture board,
    /// and a bench section without the `dut` and `peers` a board needs,
    /// as a standalone bench file has it.
    #[test]
    fn quick_check_accepts_the_reference_documents() {
        let mut boards = 0;
        for (f, v, _) in fixture_docs() {
            if f.starts_with(crate::bad_cases::CASES_FILE) {
                continue;
            }
            assert!(quick_valid(&v, DocKind::Board), "{}", f.display());
            boards += 1;
            if let Some(mut bench) = v.get("bench").cloned() {
                bench.as_object_mut().map(|b| (b.remove("dut"), b.remove("peers")));
                assert!(quick_valid(&bench, DocKind::Bench), "{}: bench", f.display());
            }
        }
        assert!(boards >= 5, "{boards}");
    }

    #[test]
    fn values_in_messages_are_cut_at_60_characters() {
        let sixty = "x".repeat(60);
        assert_eq!(short_text(&sixty), sixty);
        let cut = short_text(&"y".repeat(61));
        assert_eq!((cut.chars().count(), cut.ends_with("yyy...")), (60, true));
        // by characters, not bytes
        assert_eq!(short_text(&"é".repeat(61)), format!("{}...", "é".repeat(57)));
        assert_eq!(short(&Value::from("z".repeat(70))), format!("\"{}...", "z".repeat(56)));
    }

    /// Several faults at once, each reported as itself: a not-integer does
    /// not hide an `anyOf` error elsewhere (only one at or inside the same
    /// value), and a former key name is suggested only where its new name
    /// is allowed.
    #[test]
    fn structural_errors_side_by_side() {
        let (path, text) = crate::testutil::repo_board("zcu102");
        let text = text
            .replacen("    mtu: 1500\n", "    mtu: 1500.5\n", 1)
            .replacen("      - { queue: 0, cpus: 0 }", "      - { queue: x, cpus: 0 }", 1)
            .replacen("interrupts: [89, 90, 91, 92]", "interrupts: [89, 90, 91, 92.5]", 1)
            .replacen("version: 1\n", "version: 1\nring: 1\n", 1);
        let d = crate::load_board_str(&path, &text).map(|_| ()).expect_err("four faults");
        let got: Vec<(Rule, &str, &str)> =
            d.items.iter().map(|i| (i.rule, i.pointer.as_str(), i.message.as_str())).collect();
        assert_eq!(
            got,
            [
                (Rule::UnknownKey, "/ring", "unknown key `ring`"),
                (Rule::NotInteger, "/interfaces/0/mtu", "1500.5 is a decimal number; an integer is expected here"),
                (Rule::WrongType, "/interfaces/0/xps/0/queue", "\"x\": not a valid value here"),
                (
                    Rule::NotInteger,
                    "/interfaces/1/dt/node/dma/interrupts/3",
                    "92.5 is a decimal number; an integer is expected here"
                ),
            ]
        );
        // `rings` is not a top-level key: no "spelled" hint for `ring` there
        assert_eq!(
            d.items[0].hint.as_deref(),
            Some("allowed here: version, board, system, fastpath, interfaces, bench")
        );
    }

    #[test]
    fn alternatives_messages_are_plain() {
        for m in [
            "\"x\" is not valid under any of the schemas listed in the 'anyOf' keyword",
            "1 is valid under more than one of the schemas listed in the 'oneOf' keyword",
            "2 is not valid under any of the schemas listed in the 'oneOf' keyword",
        ] {
            assert_eq!(plain_message(m), "not a valid value here", "{m}");
        }
        assert_eq!(plain_message("3 is less than the minimum of 4"), "3 is less than the minimum of 4");
    }

    /// `anyOf` alternatives: integer-only when one is an integer and none a
    /// number (a number alternative takes decimals).
    #[test]
    fn integer_only_through_alternatives() {
        const INT: J = J::Obj(&[("type", J::Str("integer"))]);
        const NUM: J = J::Obj(&[("type", J::Str("number"))]);
        const STR: J = J::Obj(&[("type", J::Str("string"))]);
        static INT_OR_STR: J = J::Obj(&[("anyOf", J::Arr(&[INT, STR]))]);
        static INT_OR_NUM: J = J::Obj(&[("anyOf", J::Arr(&[INT, NUM]))]);
        assert!(integer_only(&INT) && !integer_only(&NUM) && !integer_only(&STR));
        assert!(integer_only(&INT_OR_STR));
        assert!(!integer_only(&INT_OR_NUM));
    }

    /// An `Option<T>` rendered as `anyOf [T, null]` describes as `T`.
    #[test]
    fn optional_values_describe_as_their_type() {
        let root = serde_json::json!({
            "properties": { "o": { "anyOf": [{ "type": "null" }, { "$ref": "#/$defs/T" }] } },
            "$defs": { "T": { "type": "integer", "description": "The T. More." } }
        });
        assert_eq!(describe(&root, "/o").as_deref(), Some("The T."));
    }
}
