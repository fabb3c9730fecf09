//! The board DTS of a kernel tree, built as the kernel's dtbs rule builds
//! it (scripts/Makefile.dtbs: cpp with the dts include paths, then dtc
//! with `-@`), for the checks that need it before anything is written:
//! which labels it defines (`/__symbols__`) and which SoC its root
//! `compatible` names. Extra includes (a design's `pl.dtsi`) go after the
//! DTS, as a Yocto device-tree recipe appends them.
//!
//! Needs `cpp` and `dtc` on PATH (the Debian packages cpp and
//! device-tree-compiler; scripts/install-deps installs them).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use zynq_net_model::model::Arch;

/// What the checks read of a compiled board DTS.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BoardDts {
    /// Every label of the tree (`/__symbols__` property names).
    pub labels: BTreeSet<String>,
    /// Every node's path (`/axi/i2c@ff030000/i2c-mux@75/i2c@7`).
    pub paths: BTreeSet<String>,
    /// The root node's `compatible` strings.
    pub compatible: Vec<String>,
    /// What was compiled, for messages (`xilinx/zynqmp-zcu102-rev1.0.dts`
    /// of `/path/to/linux`, plus includes).
    pub name: String,
}

fn arch_dir(arch: Arch) -> &'static str {
    match arch {
        Arch::Arm64 => "arm64",
        Arch::Arm => "arm",
        Arch::Powerpc => "powerpc",
        Arch::X86_64 => "x86",
    }
}

/// Compiles `dts` (relative to `arch/ARCH/boot/dts` of `tree`) with
/// `includes` after it and reads its labels and root compatible.
///
/// # Errors
/// A message naming the step that failed (the DTS missing, cpp or dtc's
/// own message, a DTB without `/__symbols__`).
pub fn board_dts(tree: &Path, arch: Arch, dts: &str, includes: &[PathBuf]) -> Result<BoardDts, String> {
    let dts_root = tree.join("arch").join(arch_dir(arch)).join("boot/dts");
    let board = dts_root.join(dts);
    if !board.is_file() {
        return Err(format!(
            "{} does not exist (board.dts `{dts}` in the kernel tree {})",
            board.display(),
            tree.display()
        ));
    }
    let tmp = tempfile::tempdir().map_err(|e| format!("temporary directory: {e}"))?;
    let wrapper = tmp.path().join("board.dts");
    let mut text = String::new();
    for p in std::iter::once(&board).chain(includes) {
        let abs = std::fs::canonicalize(p).map_err(|e| format!("{}: {e}", p.display()))?;
        text.push_str(&format!("#include \"{}\"\n", abs.display()));
    }
    std::fs::write(&wrapper, text).map_err(|e| format!("{}: {e}", wrapper.display()))?;
    let pre = tmp.path().join("board.pp.dts");
    let dir = board.parent().unwrap_or(&dts_root);
    let cpp = Command::new("cpp")
        .args(["-nostdinc", "-undef", "-D__DTS__", "-x", "assembler-with-cpp", "-I"])
        .arg(&dts_root)
        .arg("-I")
        .arg(dir)
        .arg("-I")
        .arg(tree.join("include"))
        .arg("-I")
        .arg(tree.join("scripts/dtc/include-prefixes"))
        .arg("-o")
        .arg(&pre)
        .arg(&wrapper)
        .output()
        .map_err(|e| format!("cpp: {e} (install the cpp package)"))?;
    if !cpp.status.success() {
        return Err(format!("cpp on {}: {}", board.display(), String::from_utf8_lossy(&cpp.stderr).trim()));
    }
    let dtb = tmp.path().join("board.dtb");
    let dtc = Command::new("dtc")
        .args(["-@", "-q", "-I", "dts", "-O", "dtb", "-i"])
        .arg(dir)
        .arg("-i")
        .arg(&dts_root)
        .arg("-o")
        .arg(&dtb)
        .arg(&pre)
        .output()
        .map_err(|e| format!("dtc: {e} (install the device-tree-compiler package)"))?;
    if !dtc.status.success() {
        let files: Vec<&PathBuf> = std::iter::once(&board).chain(includes).collect();
        let msg = String::from_utf8_lossy(&dtc.stderr);
        let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
        return Err(format!("dtc on {}: {}", names.join(" + "), wrapper_lines_named(msg.trim(), &wrapper, &files)));
    }
    let bytes = std::fs::read(&dtb).map_err(|e| format!("{}: {e}", dtb.display()))?;
    let fdt = fdt::Fdt::new(&bytes).map_err(|e| format!("{}: not a DTB ({e:?})", dtb.display()))?;
    let labels = fdt
        .find_node("/__symbols__")
        .map(|n| n.properties().map(|p| p.name.to_string()).collect())
        .ok_or_else(|| format!("{}: no /__symbols__ after dtc -@", dtb.display()))?;
    let mut paths = BTreeSet::new();
    fn walk(path: &str, n: fdt::node::FdtNode<'_, '_>, out: &mut BTreeSet<String>) {
        for c in n.children() {
            let p = format!("{}/{}", path.trim_end_matches('/'), c.name);
            walk(&p, c, out);
            out.insert(p);
        }
    }
    if let Some(root) = fdt.find_node("/") {
        paths.insert("/".to_string());
        walk("/", root, &mut paths);
    }
    let compatible = fdt
        .find_node("/")
        .and_then(|r| r.compatible())
        .map(|c| c.all().map(str::to_string).collect())
        .unwrap_or_default();
    let mut name = format!("{dts} of {}", tree.display());
    for i in includes {
        name.push_str(&format!(" + {}", i.display()));
    }
    Ok(BoardDts { labels, paths, compatible, name })
}

/// dtc's positions in the wrapper (`WRAPPER:L.C-L2.C2`, line L being the
/// `#include` of `files[L-1]`, where dtc lands when an included file ends
/// inside a node, e.g. an unclosed `{`) named by that file instead of the
/// deleted temporary wrapper.
fn wrapper_lines_named(msg: &str, wrapper: &Path, files: &[&PathBuf]) -> String {
    let w = wrapper.display().to_string();
    let mut out = String::new();
    let mut rest = msg;
    while let Some(i) = rest.find(&w) {
        out.push_str(&rest[..i]);
        let after = &rest[i + w.len()..];
        let line: String = after.strip_prefix(':').unwrap_or("").chars().take_while(char::is_ascii_digit).collect();
        let file = line.parse::<usize>().ok().and_then(|l| l.checked_sub(1)).and_then(|k| files.get(k));
        match file {
            Some(f) => {
                out.push_str(&format!("the end of {}:", f.display()));
                // skip the position: up to the next whitespace
                let end = after.find(char::is_whitespace).unwrap_or(after.len());
                rest = &after[end..];
            }
            None => {
                out.push_str(&w);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// zynqmp-zcu102-rev1.0.dts of Debian's linux-source-6.12 defines the
    /// labels the boards name (gem3 in zynqmp.dtsi, phyc in
    /// zynqmp-zcu102-revA.dts, zynqmp_clk in zynqmp-clk-ccf.dtsi) and its
    /// root compatible is xlnx,zynqmp-zcu102-rev1.0 ... xlnx,zynqmp.
    #[test]
    fn zcu102_dts_labels_and_compatible() {
        let o = Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../scripts/kernel-tree"))
            .output()
            .expect("scripts/kernel-tree runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let tree = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
        let d = board_dts(&tree, Arch::Arm64, "xilinx/zynqmp-zcu102-rev1.0.dts", &[]).expect("builds");
        for l in ["gem3", "phyc", "zynqmp_clk", "gpio", "i2c1", "gic"] {
            assert!(d.labels.contains(l), "{l}: {:?}", d.labels);
        }
        assert!(!d.labels.contains("axi_ethernet_0"));
        assert!(d.compatible.iter().any(|c| c == "xlnx,zynqmp"), "{:?}", d.compatible);
        let e = board_dts(&tree, Arch::Arm64, "xilinx/no-such-board.dts", &[]).expect_err("missing DTS");
        assert!(e.contains("does not exist"), "{e}");
        // An include that ends inside a node: dtc stops at the wrapper's
        // line of that include; the message names the include, not the
        // deleted wrapper.
        let tmp = tempfile::tempdir().expect("tmp");
        let bad = tmp.path().join("bad.dtsi");
        std::fs::write(&bad, "/ { broken\n").expect("write");
        let e = board_dts(&tree, Arch::Arm64, "xilinx/zynqmp-zcu102-rev1.0.dts", std::slice::from_ref(&bad))
            .expect_err("bad");
        assert!(e.contains(&format!("the end of {}", bad.display())), "{e}");
        assert!(!e.contains("board.dts:"), "{e}");
    }

    #[test]
    fn wrapper_positions_name_the_included_file() {
        let (w, a, b) = (Path::new("/t/board.dts"), PathBuf::from("/k/a.dts"), PathBuf::from("/d/b.dtsi"));
        let files = [&a, &b];
        assert_eq!(
            wrapper_lines_named("Error: /t/board.dts:2.34-3.1 syntax error", w, &files),
            "Error: the end of /d/b.dtsi: syntax error"
        );
        assert_eq!(wrapper_lines_named("/t/board.dts:1.5-6 x", w, &files), "the end of /k/a.dts: x");
        // a line past the files, or none: left as dtc wrote it
        assert_eq!(wrapper_lines_named("/t/board.dts:3.1 x", w, &files), "/t/board.dts:3.1 x");
        assert_eq!(wrapper_lines_named("/t/board.dts: x", w, &files), "/t/board.dts: x");
        assert_eq!(wrapper_lines_named("/k/a.dts:9.1-2 y", w, &files), "/k/a.dts:9.1-2 y");
    }
}
