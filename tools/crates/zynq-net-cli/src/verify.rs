//! `kconfig verify` and `dtb verify`: compare what a build produced with
//! what the board asked for. Both list every problem (not the first) and
//! exit 1 on any mismatch (docs/kernel-fragments.md).

use std::collections::BTreeMap;
use std::path::Path;

use zynq_net_model::LoadedBoard;
use zynq_net_render::{dtb, kconfig};

use crate::exit::Failure;

/// Parses a kernel `.config`: `CONFIG_X=v` lines and `# CONFIG_X is not set`
/// (stored as `n`). A symbol that is in neither form is absent: the tree does
/// not define it, or its dependencies are off (Kconfig writes every visible
/// symbol, set or not).
fn parse_config(text: &str) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("CONFIG_") {
            if let Some((k, v)) = rest.split_once('=') {
                m.insert(k.to_string(), v.to_string());
            }
        } else if let Some(rest) = line.strip_prefix("# CONFIG_") {
            if let Some(k) = rest.strip_suffix(" is not set") {
                m.insert(k.to_string(), "n".to_string());
            }
        }
    }
    m
}

/// Outcome of one requested symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
enum SymState {
    /// Present with the requested value (or `y` where `m` was asked).
    Ok,
    /// Absent from the `.config`.
    Missing,
    /// `m` where `y` was asked.
    Module,
    /// Any other value (`n`, or a different string/number).
    Wrong(String),
    /// A [`kconfig::VENDOR_ONLY`] symbol absent from this tree.
    VendorOnly(kconfig::VendorOnly),
}

fn classify(sym: &str, want: &str, got: Option<&str>) -> SymState {
    match (got, kconfig::vendor_only(sym)) {
        (Some(g), _) if g == want || (want == "m" && g == "y") => SymState::Ok,
        (None, Some(v)) => SymState::VendorOnly(v),
        (None, None) => SymState::Missing,
        (Some("m"), _) if want == "y" => SymState::Module,
        (Some(g), _) => SymState::Wrong(g.to_string()),
    }
}

/// Largest `.config` or DTB read, in bytes: a kernel `.config` is a few
/// hundred KB and a DTB tens of KB (the arm64 boot protocol caps it at
/// 2 MiB); `/dev/zero` or an image file must not be read whole.
pub const MAX_INPUT_BYTES: u64 = 16 << 20;

/// The bytes of `path`, at most [`MAX_INPUT_BYTES`].
///
/// # Errors
/// [`Failure::Usage`] when it cannot be read or is larger (naming `what`
/// was expected).
fn read_capped(path: &Path, what: &str) -> Result<Vec<u8>, Failure> {
    zynq_net_model::read_at_most(path, MAX_INPUT_BYTES)
        .map_err(|e| Failure::Usage(format!("cannot read {}: {e}", path.display())))?
        .ok_or_else(|| {
            Failure::Usage(format!("{} is larger than {} MiB: not {what}", path.display(), MAX_INPUT_BYTES >> 20))
        })
}

/// `zynq-net kconfig verify`: every symbol of every generated fragment must
/// be in the final `.config` with its value. Vendor-only symbols that this
/// tree does not define are listed as such (never counted as passed).
///
/// # Errors
/// [`Failure::Usage`] when the file is unreadable or not a `.config`,
/// [`Failure::Invalid`] when a symbol is missing or has another value.
pub fn kconfig(b: &LoadedBoard, config: &Path) -> Result<(), Failure> {
    let text = String::from_utf8_lossy(&read_capped(config, "a kernel .config")?).into_owned();
    let have = parse_config(&text);
    if have.is_empty() {
        return Err(Failure::Usage(format!("{} has no CONFIG_ lines: not a kernel .config", config.display())));
    }
    let (mut requested, mut ok, mut bad, mut vendor) = (0, 0, 0, 0);
    for f in kconfig::features(&b.board) {
        for (sym, val) in &f.symbols {
            requested += 1;
            let want = if *val == kconfig::Value::Y { "y" } else { "m" };
            match classify(sym, want, have.get(*sym).map(String::as_str)) {
                SymState::Ok => ok += 1,
                SymState::VendorOnly(v) => {
                    vendor += 1;
                    zynq_net_model::outln!(
                        "vendor-only  CONFIG_{sym}={want} ({}): not defined by this kernel tree; exists only in {} ({}); {}. NOT verified here: check it on that tree.",
                        f.name, v.trees, v.source, v.note
                    );
                }
                SymState::Missing => {
                    bad += 1;
                    zynq_net_model::outln!("missing      CONFIG_{sym}={want} ({}): not in .config (olddefconfig dropped it: a dependency is off, or the tree lacks the symbol)", f.name);
                }
                SymState::Module => {
                    bad += 1;
                    zynq_net_model::outln!(
                        "module       CONFIG_{sym}={want} ({}): built as a module (m) instead of y (a dependency is m)",
                        f.name
                    );
                }
                SymState::Wrong(g) => {
                    bad += 1;
                    zynq_net_model::outln!("wrong value  CONFIG_{sym}={want} ({}): .config has {g}", f.name);
                }
            }
        }
    }
    zynq_net_model::outln!(
        "{}: requested {requested}, as required {ok}, mismatches {bad}, vendor-only not in this tree {vendor}",
        config.display()
    );
    if bad == 0 {
        Ok(())
    } else {
        Err(Failure::Invalid)
    }
}

/// `zynq-net dtb verify`.
///
/// # Errors
/// [`Failure::Usage`] when the file is unreadable or not a valid DTB,
/// [`Failure::Invalid`] when a node or property the board asks for is not there.
pub fn dtb(b: &LoadedBoard, path: &Path) -> Result<(), Failure> {
    let data = read_capped(path, "a DTB")?;
    // The fdt crate indexes the blob as its header says and panics on a
    // damaged one (sizes or offsets past the end, huge property lengths):
    // a bad DTB is a usage error (exit 2) with a plain reason, never a panic.
    let silent = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let res = std::panic::catch_unwind(|| fdt::Fdt::new(&data).map(|f| dtb::verify(&b.board, &f)));
    std::panic::set_hook(silent);
    let rep = match res {
        Ok(Ok(rep)) => rep,
        Ok(Err(e)) => {
            let why = match e {
                fdt::FdtError::BadMagic => "bad magic (not a flattened device tree)".to_string(),
                // fdt reads the 40-byte header first: a shorter file has none
                // (Documentation/devicetree/usage-model.rst, the DTSpec's fdt_header)
                fdt::FdtError::BufferTooSmall if data.len() < 40 => {
                    format!("{} bytes, too short for the 40-byte DTB header", data.len())
                }
                fdt::FdtError::BufferTooSmall => "truncated (shorter than its header says)".to_string(),
                other => format!("{other:?}"),
            };
            return Err(Failure::Usage(format!("{} is not a valid DTB: {why}", path.display())));
        }
        Err(_) => {
            return Err(Failure::Usage(format!("{} is not a valid DTB: a size, offset or property length points past the end of the blob (damaged or truncated)", path.display())));
        }
    };
    for f in &rep.found {
        zynq_net_model::outln!("found         {f}");
    }
    for p in &rep.problems {
        zynq_net_model::outln!("{p}");
    }
    zynq_net_model::outln!("{}: {} node(s) checked, {} problem(s)", path.display(), rep.checked, rep.problems.len());
    if rep.problems.is_empty() {
        Ok(())
    } else {
        Err(Failure::Invalid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An endless input (`/dev/zero`) is refused after the cap, not read
    /// until memory runs out; a directory is a plain read error.
    #[test]
    fn inputs_are_read_up_to_a_cap() {
        let board = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../meta-zynq-net/boards/zcu102.yml");
        let b = zynq_net_model::load_board(&board).expect("reference board");
        for r in [kconfig(&b, Path::new("/dev/zero")), dtb(&b, Path::new("/dev/zero"))] {
            match r {
                Err(Failure::Usage(m)) => assert!(m.contains("/dev/zero is larger than 16 MiB: not a"), "{m}"),
                other => panic!("{other:?}"),
            }
        }
        match kconfig(&b, Path::new("/")) {
            Err(Failure::Usage(m)) => assert!(m.starts_with("cannot read /: "), "{m}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn classify_states() {
        assert_eq!(classify("MACB", "y", Some("y")), SymState::Ok);
        assert_eq!(classify("MACB", "y", Some("m")), SymState::Module);
        assert_eq!(classify("MACB", "y", Some("n")), SymState::Wrong("n".into()));
        assert_eq!(classify("MACB", "y", None), SymState::Missing);
        assert!(matches!(classify("AXIENET_HAS_MCDMA", "y", None), SymState::VendorOnly(_)));
        // A vendor symbol the tree defines but left off is a real mismatch.
        assert_eq!(classify("AXIENET_HAS_MCDMA", "y", Some("n")), SymState::Wrong("n".into()));
        assert_eq!(classify("VETH", "m", Some("y")), SymState::Ok);
    }

    #[test]
    fn parse_config_lines() {
        let m = parse_config("CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=\"x\"\n# comment\n");
        assert_eq!(m.get("A").map(String::as_str), Some("y"));
        assert_eq!(m.get("B").map(String::as_str), Some("n"));
        assert_eq!(m.get("C").map(String::as_str), Some("\"x\""));
    }
}
