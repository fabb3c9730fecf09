//! Build script: the embedded validation schema (src/board.schema.min.json)
//! as a Rust constant tree (`schema::J`), so that `check` walks it without
//! parsing 14 KB of JSON into hash maps on every run (that parse was a
//! quarter of `check`'s instructions: callgrind, benches/gen). The test
//! `schema::tests::static_tree_is_the_embedded_schema` compares the tree
//! with the JSON file.
use serde_json::Value;

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
    let dest = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("schema_tree.rs");
    std::fs::write(dest, out).expect("write schema_tree.rs");
}
