//! `kconfig verify` and `dtb verify`: compare what a build produced with
//! what the board asked for.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use zynq_net_model::LoadedBoard;
use zynq_net_render::{dt, kconfig};

use crate::{EXIT_INVALID, EXIT_OK, EXIT_USAGE};

/// Parses a kernel `.config`: `CONFIG_X=v` lines and `# CONFIG_X is not set`.
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

pub fn kconfig(b: &LoadedBoard, config: &Path) -> ExitCode {
    let text = match std::fs::read_to_string(config) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("zynq-net: cannot read {}: {e}", config.display());
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let have = parse_config(&text);
    let (mut ok, mut bad, mut vendor) = (0, 0, 0);
    for f in kconfig::features(&b.board) {
        for (sym, val) in &f.symbols {
            let want = if *val == kconfig::Value::Y { "y" } else { "m" };
            let got = have.get(*sym).map(String::as_str);
            match (got, kconfig::vendor_only(sym)) {
                (Some(g), _) if g == want => ok += 1,
                (None, Some(v)) => {
                    vendor += 1;
                    println!("vendor-only  CONFIG_{sym}: absent from this tree (exists only in {}: {})", v.trees, v.source);
                }
                (None, None) => {
                    bad += 1;
                    println!("missing      CONFIG_{sym}: wanted {want} ({}), not in .config (dropped: a dependency is off, or the symbol does not exist)", f.name);
                }
                (Some(g), _) => {
                    bad += 1;
                    let what = if g == "m" && want == "y" { "built as a module (m) instead of y".to_string() } else { format!("is {g}") };
                    println!("mismatch     CONFIG_{sym}: wanted {want} ({}), {what}", f.name);
                }
            }
        }
    }
    println!("{}: {ok} symbol(s) as required, {bad} mismatch(es), {vendor} vendor-only absent", config.display());
    ExitCode::from(if bad == 0 { EXIT_OK } else { EXIT_INVALID })
}

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
    let problems = crate::verify::dtb_problems(&b.board, &fdt);
    for p in &problems {
        println!("{p}");
    }
    println!("{}: {} problem(s)", path.display(), problems.len());
    ExitCode::from(if problems.is_empty() { EXIT_OK } else { EXIT_INVALID })
}

/// Resolves a label to a node path through `/__symbols__` (DTBs built with
/// `-@`) or, failing that, through the `zynq-net-bus` for generated nodes.
fn label_path<'a>(fdt: &fdt::Fdt<'a>, label: &str) -> Option<&'a str> {
    let syms = fdt.find_node("/__symbols__")?;
    let prop = syms.property(label)?;
    prop.as_str()
}

/// Everything the board asked for that the DTB lacks or has differently.
pub fn dtb_problems(board: &zynq_net_model::Board, fdt: &fdt::Fdt<'_>) -> Vec<String> {
    let view = dt::view(board);
    let mut out = Vec::new();
    let mut check = |label: &str, node_path: Option<String>, props: &[String]| {
        let Some(path) = node_path else {
            out.push(format!("missing node  &{label}: label not found (compile with -@ so /__symbols__ exists, or the node is absent)"));
            return;
        };
        let Some(node) = fdt.find_node(&path) else {
            out.push(format!("missing node  {path} (&{label})"));
            return;
        };
        for p in props {
            let (name, want) = match p.split_once(" = ") {
                Some((n, v)) => (n, Some(v)),
                None => (p.as_str(), None),
            };
            match node.property(name) {
                None => out.push(format!("missing prop  {path}: {name}")),
                Some(prop) => {
                    if let Some(w) = want {
                        if let Some(exp) = expected_bytes(w) {
                            if exp != prop.value {
                                out.push(format!("different     {path}: {name} is {:02x?}, wanted {w}", prop.value));
                            }
                        }
                    }
                }
            }
        }
    };
    for p in &view.patches {
        check(&p.label, label_path(fdt, &p.label).map(str::to_string), &p.props);
    }
    for n in &view.pl_nodes {
        let path = label_path(fdt, &n.label).map(str::to_string).or_else(|| Some(format!("/zynq-net-bus/{}", n.name)));
        // Phandle-valued properties are resolved by dtc; compare only plain values.
        let plain: Vec<String> = n.props.iter().filter(|p| !p.contains('&')).cloned().collect();
        check(&n.label, path, &plain);
    }
    out
}

/// Encodes the simple DT values we generate: strings, string lists,
/// `<cells>`, `[bytes]`, `/bits/ 8|16 <..>`. `None` = not comparable.
fn expected_bytes(v: &str) -> Option<Vec<u8>> {
    let v = v.trim();
    if v.starts_with('"') {
        let mut out = Vec::new();
        for part in v.split("\", \"") {
            out.extend(part.trim_matches('"').as_bytes());
            out.push(0);
        }
        return Some(out);
    }
    if let Some(inner) = v.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
        return inner.split_whitespace().map(|b| u8::from_str_radix(b, 16).ok()).collect();
    }
    let (width, rest) = if let Some(r) = v.strip_prefix("/bits/ 8 ") {
        (1, r)
    } else if let Some(r) = v.strip_prefix("/bits/ 16 ") {
        (2, r)
    } else {
        (4, v)
    };
    let mut out = Vec::new();
    for group in rest.split(',') {
        let inner = group.trim().strip_prefix('<')?.strip_suffix('>')?;
        for cell in inner.split_whitespace() {
            let n = if let Some(h) = cell.strip_prefix("0x") { u64::from_str_radix(h, 16).ok()? } else { cell.parse::<u64>().ok()? };
            match width {
                1 => out.push(u8::try_from(n).ok()?),
                2 => out.extend(u16::try_from(n).ok()?.to_be_bytes()),
                _ => out.extend(u32::try_from(n).ok()?.to_be_bytes()),
            }
        }
    }
    Some(out)
}
