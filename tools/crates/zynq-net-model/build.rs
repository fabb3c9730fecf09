//! Build script: the embedded validation schema (src/board.schema.min.json)
//! as a Rust constant tree (`schema::J`), so that `check` walks it without
//! parsing 14 KB of JSON into hash maps on every run (that parse was a
//! quarter of `check`'s instructions: callgrind, benches/gen). The test
//! `schema::tests::static_tree_is_the_embedded_schema` compares the tree
//! with the JSON file.
//!
//! It also builds every `pattern` of the schema into a dense DFA
//! (regex-automata, minimized) and writes it in the target's byte order
//! for `schema::PATTERN_DFAS`: the quick check then deserializes a DFA
//! (a validation pass over a few KB) instead of compiling the pattern on
//! every run, and matches at one transition per byte. A pattern that does
//! not build fails the build. The test
//! `schema::tests::pattern_dfas_agree_with_regex_lite` holds each DFA
//! against regex-lite on every string of the reference boards.
use regex_automata::dfa::dense;
use serde_json::Value;
use std::collections::BTreeSet;

/// Every `pattern` keyword's value in the schema.
fn patterns(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                match (k.as_str(), x) {
                    ("pattern", Value::String(p)) => {
                        out.insert(p.clone());
                    }
                    _ => patterns(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| patterns(x, out)),
        _ => {}
    }
}

fn emit(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("J::Null"),
        Value::Bool(b) => out.push_str(&format!("J::Bool({b})")),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => out.push_str(&format!("J::Int({i})")),
            (None, Some(u), _) => out.push_str(&format!("J::Int({u})")),
            (None, None, Some(f)) => out.push_str(&format!("J::Float({f:?}_f64)")),
            _ => panic!("board.schema.min.json: number {n} is neither an integer nor a float"),
        },
        // Debug of a str is a valid Rust string literal.
        Value::String(s) => out.push_str(&format!("J::Str({s:?})")),
        Value::Array(a) => {
            out.push_str("J::Arr(&[");
            for x in a {
                emit(x, out);
                out.push(',');
            }
            out.push_str("])");
        }
        Value::Object(m) => {
            out.push_str("J::Obj(&[");
            for (k, x) in m {
                out.push_str(&format!("({k:?},"));
                emit(x, out);
                out.push_str("),");
            }
            out.push_str("])");
        }
    }
}

fn main() {
    let path = "src/board.schema.min.json";
    println!("cargo:rerun-if-changed={path}");
    let text = std::fs::read_to_string(path).expect("read src/board.schema.min.json");
    let v: Value = serde_json::from_str(&text).expect("src/board.schema.min.json is JSON");
    let mut out = String::from("/// The embedded validation schema, written by build.rs.\nstatic SCHEMA_TREE: J = ");
    emit(&v, &mut out);
    out.push_str(";\n");
    let dir = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let big = std::env::var("CARGO_CFG_TARGET_ENDIAN").as_deref() == Ok("big");
    let mut pats = BTreeSet::new();
    patterns(&v, &mut pats);
    out.push_str("/// The schema's patterns as dense DFAs, written by build.rs.\n");
    out.push_str("static PATTERN_DFAS: &[(&str, &AlignedBytes<[u8]>)] = &[\n");
    for (i, p) in pats.iter().enumerate() {
        let dfa = dense::Builder::new()
            .configure(dense::Config::new().minimize(true))
            .build(p)
            .unwrap_or_else(|e| panic!("board.schema.min.json: pattern {p:?} does not build a DFA: {e}"));
        let (bytes, pad) = if big { dfa.to_bytes_big_endian() } else { dfa.to_bytes_little_endian() };
        let name = format!("pattern{i}.dfa");
        std::fs::write(dir.join(&name), &bytes[pad..]).expect("write a pattern DFA");
        out.push_str(&format!(
            "    ({p:?}, &AlignedBytes {{ _align: [], bytes: *include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{name}\")) }}),\n"
        ));
    }
    out.push_str("];\n");
    std::fs::write(dir.join("schema_tree.rs"), out).expect("write schema_tree.rs");
}
