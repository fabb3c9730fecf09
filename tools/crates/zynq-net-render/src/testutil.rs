//! Helpers shared by the crate's unit tests: a repository file's text,
//! a board text loaded, and one artifact of rendering it.

use std::path::Path;

use zynq_net_model::HiBoard;

use crate::Artifact;

/// The text of `rel`, a path from the repository root (a reference board
/// or a fixture).
pub fn repo_text(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..").join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A board text loaded, validated and resolved; panics with its diagnostics.
pub fn loaded(text: &str) -> HiBoard {
    zynq_net_model::load_board_str(Path::new("b.yml"), text).unwrap_or_else(|d| panic!("{d}")).board
}

/// The artifact at `path` (`dt/zynq-net.dtsi`) of rendering a board text,
/// if the board has one.
pub fn artifact(text: &str, path: &str) -> Option<Artifact> {
    crate::render_all(&loaded(text), "b.yml").expect("render").into_iter().find(|a| a.path == path)
}
