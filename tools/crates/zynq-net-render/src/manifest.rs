//! `manifest.json`: every artifact with its kind and SHA-256.

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::{Artifact, Kind, TOOL_VERSION};

#[derive(Serialize)]
struct Entry<'a> {
    path: &'a str,
    kind: Kind,
    sha256: String,
}

#[derive(Serialize)]
struct Manifest<'a> {
    tool: &'static str,
    version: &'static str,
    input: &'a str,
    board: &'a str,
    artifacts: Vec<Entry<'a>>,
}

/// Hex SHA-256 of `data`.
pub fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data).iter().map(|b| format!("{b:02x}")).collect()
}

/// The manifest of `artifacts` as pretty JSON (sorted by path, trailing newline).
pub fn manifest_json(artifacts: &[Artifact], input: &str, board: &str) -> String {
    let m = Manifest {
        tool: "zynq-net",
        version: TOOL_VERSION,
        input,
        board,
        artifacts: artifacts
            .iter()
            .map(|a| Entry { path: &a.path, kind: a.kind, sha256: sha256_hex(&a.contents) })
            .collect(),
    };
    let mut s = serde_json::to_string_pretty(&m).unwrap_or_default();
    s.push('\n');
    s
}
