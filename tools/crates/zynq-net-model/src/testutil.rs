//! Test helpers shared by the model's unit tests.

use std::path::PathBuf;

/// The repository's reference board `name` (meta-zynq-net/boards/NAME.yml):
/// its path and its text.
pub(crate) fn repo_board(name: &str) -> (PathBuf, String) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../meta-zynq-net/boards")
        .join(format!("{name}.yml"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (path, text)
}
