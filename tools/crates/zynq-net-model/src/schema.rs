//! The JSON Schema of the board format, derived from the model, and
//! structural validation of a loaded document against it.

use serde_json::Value;

use crate::diag::Diagnostic;
use crate::model::Board;
use crate::rules::Rule;
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
    v
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

/// Validates `doc` against the board schema; returns every violation,
/// located with `map`.
pub fn validate_structure(doc: &Value, map: &SourceMap) -> Vec<Diagnostic> {
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
    static COMPILED: std::sync::OnceLock<(Value, Result<jsonschema::Validator, String>)> = std::sync::OnceLock::new();
    let (schema, validator) = COMPILED.get_or_init(|| {
        let schema = schema_value();
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
    for ptr in map.float_pointers() {
        let ty = subschema(schema, ptr).and_then(|s| s.get("type")).cloned();
        let wants_int = ty.as_ref().is_some_and(|t| {
            t == "integer"
                || t.as_array().is_some_and(|a| a.iter().any(|x| x == "integer") && !a.iter().any(|x| x == "number"))
        });
        if wants_int {
            let got = doc.pointer(ptr).map(short).unwrap_or_default();
            let d = Diagnostic::new(
                Rule::NotInteger,
                ptr.clone(),
                format!("{got} is a decimal number; an integer is expected here"),
            );
            let d = match describe(schema, ptr) {
                Some(w) => d.hint(format!("write it without a fraction or exponent ({w})")),
                None => d.hint("write it without a fraction or exponent"),
            };
            out.push(map.locate(d));
        }
    }
    for err in validator.iter_errors(doc) {
        let ptr = err.instance_path.to_string();
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
                let message = if !choices.is_empty() {
                    format!("{got} is not one of {}", choices.join(", "))
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
                let rule = match kind {
                    _ if !choices.is_empty() => Rule::BadEnum,
                    K::Enum { .. } | K::Constant { .. } => Rule::BadEnum,
                    K::Minimum { .. } | K::Maximum { .. } | K::ExclusiveMinimum { .. } | K::ExclusiveMaximum { .. } => {
                        Rule::IntegerRange
                    }
                    K::Pattern { .. } => Rule::Pattern,
                    K::MinItems { .. } => Rule::TooFewItems,
                    // `type`, and a value none of the accepted shapes
                    // (`oneOf`/`anyOf`) takes; the schema uses no other keyword
                    _ => Rule::WrongType,
                };
                let d = Diagnostic::new(rule, ptr.clone(), message);
                let d = match expected {
                    Some(w) => d.hint(format!("expected: {w}")),
                    None => d,
                };
                out.push(map.locate(d));
            }
        }
    }
    out
}

fn plain_message(m: &str) -> String {
    if m.contains("is not valid under any of the schemas") || m.contains("oneOf") || m.contains("anyOf") {
        "not a valid value here".to_string()
    } else {
        m.to_string()
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 {
        // by characters: a byte index could fall inside a UTF-8 sequence
        format!("{}...", s.chars().take(57).collect::<String>())
    } else {
        s
    }
}

/// Follows `$ref`s to the subschema describing the instance at `pointer`.
fn subschema<'a>(root: &'a Value, pointer: &str) -> Option<&'a Value> {
    let mut cur = resolve(root, root);
    for seg in pointer.split('/').skip(1) {
        let seg = seg.replace("~1", "/").replace("~0", "~");
        let next = if let Some(p) = cur.get("properties").and_then(|p| p.get(&seg)) {
            Some(p)
        } else if let Some(items) = cur.get("items") {
            seg.parse::<usize>().ok().map(|_| items)
        } else {
            cur.get("additionalProperties").filter(|a| a.is_object())
        };
        cur = resolve(root, unwrap_option(root, next?));
    }
    Some(cur)
}

fn unwrap_option<'a>(root: &'a Value, s: &'a Value) -> &'a Value {
    // `Option<T>` is rendered as anyOf [T, null]; use T.
    if let Some(any) = s.get("anyOf").and_then(Value::as_array) {
        if let Some(t) = any.iter().find(|a| a.get("type") != Some(&Value::String("null".into()))) {
            return resolve(root, t);
        }
    }
    s
}

fn resolve<'a>(root: &'a Value, s: &'a Value) -> &'a Value {
    let mut cur = s;
    for _ in 0..8 {
        match cur.get("$ref").and_then(Value::as_str) {
            Some(r) => match r.strip_prefix("#") {
                Some(p) => match root.pointer(p) {
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
    s.get("description").and_then(Value::as_str).map(|d| d.lines().next().unwrap_or(d).to_string())
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

/// Closest allowed key by edit distance (at most 3 edits).
pub(crate) fn closest(key: &str, allowed: &[String]) -> Option<String> {
    allowed.iter().map(|a| (levenshtein(key, a), a)).filter(|(d, _)| *d <= 3).min().map(|(_, a)| a.clone())
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}
