//! Golden files of the presenters' outputs (tests only): a presenter's
//! text is compared byte for byte with `tests/golden/<name>`;
//! `UPDATE_GOLDEN=1` (exactly `1`) rewrites the file instead. Review the
//! diff of tests/golden/ before committing an update.

use std::path::PathBuf;

/// Compares `got` with `tests/golden/<name>` (or rewrites it).
#[allow(clippy::unwrap_used, clippy::panic)]
pub(crate) fn check(name: &str, got: &str) {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_GOLDEN=1 cargo test -p zynq-net-bench to create)", p.display()));
    if got != want {
        let diff = similar::TextDiff::from_lines(want.as_str(), got);
        panic!(
            "{name} differs from tests/golden/{name} (UPDATE_GOLDEN=1 cargo test -p zynq-net-bench to accept):\n{}",
            diff.unified_diff().header("golden", "got")
        );
    }
}
