//! `kconfig verify` and `dtb verify`: compare what a build produced with
//! what the board asked for. Both list every problem (not the first) and
//! exit 1 on any mismatch (docs/kernel-fragments.md).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use zynq_net_model::LoadedBoard;
use zynq_net_render::{dt, kconfig};

use crate::{EXIT_INVALID, EXIT_OK, EXIT_USAGE};

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

/// `zynq-net kconfig verify`: every symbol of every generated fragment must
/// be in the final `.config` with its value. Vendor-only symbols that this
/// tree does not define are listed as such (never counted as passed).
pub fn kconfig(b: &LoadedBoard, config: &Path) -> ExitCode {
    let text = match std::fs::read_to_string(config) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("zynq-net: cannot read {}: {e}", config.display());
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let have = parse_config(&text);
    if have.is_empty() {
        eprintln!("zynq-net: {} has no CONFIG_ lines: not a kernel .config", config.display());
        return ExitCode::from(EXIT_USAGE);
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
                    println!(
                        "vendor-only  CONFIG_{sym}={want} ({}): not defined by this kernel tree; exists only in {} ({}); {}. NOT verified here: check it on that tree.",
                        f.name, v.trees, v.source, v.note
                    );
                }
                SymState::Missing => {
                    bad += 1;
                    println!("missing      CONFIG_{sym}={want} ({}): not in .config (olddefconfig dropped it: a dependency is off, or the tree lacks the symbol)", f.name);
                }
                SymState::Module => {
                    bad += 1;
                    println!("module       CONFIG_{sym}={want} ({}): built as a module (m) instead of y (a dependency is m)", f.name);
                }
                SymState::Wrong(g) => {
                    bad += 1;
                    println!("wrong value  CONFIG_{sym}={want} ({}): .config has {g}", f.name);
                }
            }
        }
    }
    println!(
        "{}: requested {requested}, as required {ok}, mismatches {bad}, vendor-only not in this tree {vendor}",
        config.display()
    );
    ExitCode::from(if bad == 0 { EXIT_OK } else { EXIT_INVALID })
}

/// `zynq-net dtb verify`.
pub fn dtb(b: &LoadedBoard, path: &Path) -> ExitCode {
    let data = match std::fs::read(path) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("zynq-net: cannot read {}: {e}", path.display());
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let fdt = match fdt::Fdt::new(&data) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("zynq-net: {} is not a valid DTB: {e:?}", path.display());
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let (checked, problems) = dtb_problems(&b.board, &fdt);
    for p in &problems {
        println!("{p}");
    }
    println!("{}: {checked} node(s) checked, {} problem(s)", path.display(), problems.len());
    ExitCode::from(if problems.is_empty() { EXIT_OK } else { EXIT_INVALID })
}

/// Resolves a label to a node path through `/__symbols__` (DTBs built with
/// `dtc -@`, which Yocto's device-tree recipes and fdtoverlay need anyway).
fn label_path<'a>(fdt: &fdt::Fdt<'a>, label: &str) -> Option<&'a str> {
    fdt.find_node("/__symbols__")?.property(label)?.as_str()
}

/// The phandle of the node a label names, if the DTB can tell.
fn label_phandle(fdt: &fdt::Fdt<'_>, label: &str) -> Option<u32> {
    let node = fdt.find_node(label_path(fdt, label)?)?;
    let p = node.property("phandle").or_else(|| node.property("linux,phandle"))?;
    let b: [u8; 4] = p.value.try_into().ok()?;
    Some(u32::from_be_bytes(b))
}

/// Checks one node's properties; returns problems.
fn check_props(fdt: &fdt::Fdt<'_>, path: &str, node: fdt::node::FdtNode<'_, '_>, props: &[String], out: &mut Vec<String>) {
    for p in props {
        let (name, want) = match p.split_once(" = ") {
            Some((n, v)) => (n, Some(v)),
            None => (p.as_str(), None),
        };
        let Some(prop) = node.property(name) else {
            out.push(format!("missing prop  {path}: {name} (wanted {})", want.unwrap_or("present")));
            continue;
        };
        let Some(w) = want else {
            if !prop.value.is_empty() {
                out.push(format!("different     {path}: {name} has a value {:02x?}, wanted an empty (boolean) property", prop.value));
            }
            continue;
        };
        match expected_bytes(w, &|l| label_phandle(fdt, l)) {
            Expected::Bytes(exp) if exp != prop.value => {
                out.push(format!("different     {path}: {name} is {}, wanted {w}", show(prop.value)));
            }
            Expected::Bytes(_) => {}
            // A phandle whose label this DTB cannot resolve (no /__symbols__):
            // check the length only.
            Expected::Len(n) if n != prop.value.len() => {
                out.push(format!("different     {path}: {name} has {} byte(s), wanted {n} ({w})", prop.value.len()));
            }
            Expected::Len(_) => {}
        }
    }
}

fn show(v: &[u8]) -> String {
    let printable = !v.is_empty() && v.last() == Some(&0) && v[..v.len() - 1].iter().all(|b| b.is_ascii_graphic() || *b == b' ' || *b == 0);
    if printable {
        let parts: Vec<String> = v[..v.len() - 1].split(|b| *b == 0).map(|s| format!("\"{}\"", String::from_utf8_lossy(s))).collect();
        parts.join(", ")
    } else {
        format!("{v:02x?}")
    }
}

/// Everything the board asked for that the DTB lacks or has differently:
/// `(nodes checked, problems)`.
pub fn dtb_problems(board: &zynq_net_model::Board, fdt: &fdt::Fdt<'_>) -> (usize, Vec<String>) {
    let view = dt::view(board);
    let mut out = Vec::new();
    let mut checked = 0;
    let has_symbols = fdt.find_node("/__symbols__").is_some();
    for p in &view.patches {
        let Some(path) = label_path(fdt, &p.label) else {
            out.push(if has_symbols {
                format!("missing node  &{}: no such label in /__symbols__ (the board DTS or pl.dtsi lacks it)", p.label)
            } else {
                format!("missing node  &{}: cannot resolve labels: the DTB has no /__symbols__ (compile it with dtc -@)", p.label)
            });
            continue;
        };
        let Some(node) = fdt.find_node(path) else {
            out.push(format!("missing node  {path} (&{})", p.label));
            continue;
        };
        checked += 1;
        check_props(fdt, path, node, &p.props, &mut out);
    }
    for n in &view.pl_nodes {
        let fallback = format!("/{}/{}", dt::PL_BUS, n.name);
        let path = label_path(fdt, &n.label).map_or(fallback, str::to_string);
        let Some(node) = fdt.find_node(&path) else {
            out.push(format!("missing node  {path} (&{})", n.label));
            continue;
        };
        checked += 1;
        check_props(fdt, &path, node, &n.props, &mut out);
        for c in &n.children {
            let cpath = format!("{path}/{}", c.name);
            match fdt.find_node(&cpath) {
                Some(cn) if node.children().any(|x| x.name == c.name) => {
                    checked += 1;
                    check_props(fdt, &cpath, cn, &c.props, &mut out);
                }
                _ => out.push(format!("missing node  {cpath}")),
            }
        }
    }
    (checked, out)
}

/// What a property value must be.
#[derive(Debug, PartialEq, Eq)]
enum Expected {
    /// Exactly these bytes.
    Bytes(Vec<u8>),
    /// This many bytes (a phandle could not be resolved).
    Len(usize),
}

/// Encodes the DT values we generate: strings and string lists, `<cells>`
/// groups (numbers and `&label` phandles), `[bytes]`, `/bits/ 8|16 <..>`.
fn expected_bytes(v: &str, phandle: &dyn Fn(&str) -> Option<u32>) -> Expected {
    let v = v.trim();
    if v.starts_with('"') {
        let mut out = Vec::new();
        for part in v.split("\", \"") {
            out.extend(part.trim_matches('"').as_bytes());
            out.push(0);
        }
        return Expected::Bytes(out);
    }
    if let Some(inner) = v.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
        let bytes: Option<Vec<u8>> = inner.split_whitespace().map(|b| u8::from_str_radix(b, 16).ok()).collect();
        return bytes.map_or(Expected::Len(inner.split_whitespace().count()), Expected::Bytes);
    }
    let (width, rest) = if let Some(r) = v.strip_prefix("/bits/ 8 ") {
        (1, r)
    } else if let Some(r) = v.strip_prefix("/bits/ 16 ") {
        (2, r)
    } else {
        (4, v)
    };
    let mut out = Vec::new();
    let mut exact = true;
    for group in rest.split(',') {
        let inner = group.trim().trim_start_matches('<').trim_end_matches('>');
        for cell in inner.split_whitespace() {
            let n = if let Some(label) = cell.strip_prefix('&') {
                phandle(label).map(u64::from)
            } else if let Some(h) = cell.strip_prefix("0x") {
                u64::from_str_radix(h, 16).ok()
            } else {
                cell.parse::<u64>().ok()
            };
            let n = n.unwrap_or_else(|| {
                exact = false;
                0
            });
            // Values are generated to fit their width; truncation cannot happen.
            match width {
                1 => out.push((n & 0xff) as u8),
                2 => out.extend(((n & 0xffff) as u16).to_be_bytes()),
                _ => out.extend(((n & 0xffff_ffff) as u32).to_be_bytes()),
            }
        }
    }
    if exact {
        Expected::Bytes(out)
    } else {
        Expected::Len(out.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn expected_values() {
        let ph = |l: &str| (l == "gic").then_some(3);
        assert_eq!(expected_bytes("\"a\", \"bc\"", &ph), Expected::Bytes(b"a\0bc\0".to_vec()));
        assert_eq!(expected_bytes("[00 0a]", &ph), Expected::Bytes(vec![0, 0x0a]));
        assert_eq!(expected_bytes("/bits/ 16 <0x2>", &ph), Expected::Bytes(vec![0, 2]));
        assert_eq!(expected_bytes("/bits/ 8 <0x40>", &ph), Expected::Bytes(vec![0x40]));
        assert_eq!(expected_bytes("<&gic>", &ph), Expected::Bytes(vec![0, 0, 0, 3]));
        assert_eq!(expected_bytes("<&nope 1>, <&nope 2>", &ph), Expected::Len(16));
        assert_eq!(expected_bytes("<0 89 4>, <0 90 4>", &ph), Expected::Bytes([0u32, 89, 4, 0, 90, 4].iter().flat_map(|c| c.to_be_bytes()).collect()));
    }
}
