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

/// Hex SHA-256 of the embedded applier ([`crate::APPLIER`]), computed by
/// build.rs when the crate is built.
const APPLIER_SHA256: &str = include_str!(concat!(env!("OUT_DIR"), "/applier_sha256.txt"));

/// [`sha256_hex`], with the build-time digest when `data` is exactly the
/// embedded applier (the one artifact that is the same for every board,
/// and most of the bytes `gen` writes).
fn sha256_hex_of(data: &[u8]) -> String {
    if data == crate::APPLIER.as_bytes() {
        APPLIER_SHA256.to_string()
    } else {
        sha256_hex(data)
    }
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
            .map(|a| Entry { path: &a.path, kind: a.kind, sha256: sha256_hex_of(&a.contents) })
            .collect(),
    };
    let mut s = serde_json::to_string_pretty(&m).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The build-time digest is the digest of the bytes `gen` writes, so a
    /// stale or wrong build script cannot put a wrong SHA-256 in a manifest.
    #[test]
    fn applier_digest_is_the_digest_of_the_applier() {
        assert_eq!(APPLIER_SHA256, sha256_hex(crate::APPLIER.as_bytes()));
        assert_eq!(sha256_hex_of(crate::APPLIER.as_bytes()), sha256_hex(crate::APPLIER.as_bytes()));
    }

    /// Any other content, even the applier with one byte changed, is hashed.
    #[test]
    fn other_contents_are_hashed() {
        let mut edited = crate::APPLIER.as_bytes().to_vec();
        edited.push(b'\n');
        assert_eq!(sha256_hex_of(&edited), sha256_hex(&edited));
        assert_ne!(sha256_hex_of(&edited), APPLIER_SHA256);
        // FIPS 180-2 appendix B.1: SHA-256("abc").
        assert_eq!(sha256_hex_of(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
