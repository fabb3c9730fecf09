//! The bench runner and the CLI parse no board string into a value: the
//! board's strings are parsed once, by the loader (zynq-net-model:
//! `validate` for diagnostics, `resolve` for the typed values).
//!
//! zynq-net-render needs no grep: its only input is the resolved board
//! (`zynq_net_model::HiBoard`), which holds MACs, CPU sets, IRQ patterns,
//! IPv4 prefixes and MCDMA channel ids as typed values, not as strings.
//! The `bench` section stays in its written shape beside its typed values
//! (`HiBench`, `LoadedBench`: the bench crate writes plans and checks
//! command-line overrides as a `bench` section), so its CPU lists and UDP
//! rate are still strings the bench crate and the CLI could reach: this
//! test guards them.
//!
//! It greps those crates' sources (zynq-net-bench, zynq-net-cli) for
//! string-to-value parsing and fails on any hit that is not in
//! [`ALLOWED`], each with the reason it is not a board value. It also
//! fails on an allow-list entry that no longer matches, so the list cannot
//! go stale. Test modules (everything after a file's `#[cfg(test)]`) and
//! comment lines are not scanned.
//!
//! Run: `cargo test -p zynq-net-cli --test no_reparse`.

use std::fs;
use std::path::{Path, PathBuf};

/// What counts as parsing a string into a value.
const PATTERNS: &[&str] = &[
    ".parse::<",
    ".parse()",
    ".parse::",
    "str::parse",
    "from_str_radix",
    "FromStr",
    "from_str(",
    "parse_mac",
    "parse_ipv4",
    "parse_cpu_list",
    "parse_channel_id",
    ".cpus()",
    "Mac::parse",
    "Ipv4Prefix::parse",
    "CpuSet::from_list",
    "IrqPattern::check",
    "Ipv4Addr::",
    "Rate::parse",
];

/// (crate-relative file, text on the line, why it is not a board value).
const ALLOWED: &[(&str, &str, &str)] = &[
    ("zynq-net-bench/src/lab.rs", "cur.parse::<u64>()", "a /proc/sys value read on the lab host"),
    (
        "zynq-net-bench/src/lab.rs",
        "serde_json::from_str(json.trim())",
        "the applier's `apply --json` report in the lab's router",
    ),
    (
        "zynq-net-bench/src/spec.rs",
        "Rate::parse",
        "command-line rates (`bench rfc2544 --line-rate`, `lab up --shape`), with the loader's BitRate parser",
    ),
    ("zynq-net-bench/src/spec.rs", "FromStr for Rate", "command-line rates (clap parses them with FromStr)"),
    ("zynq-net-bench/src/spec.rs", "fn from_str(", "the FromStr impl above"),
    ("zynq-net-bench/src/iperf.rs", "s.parse::<u32>()", "iperf3 --version output"),
    ("zynq-net-bench/src/iperf.rs", "serde_json::from_str(text)", "iperf3 --json output"),
    ("zynq-net-bench/src/report.rs", "serde_json::from_str(&t)", "results files the bench wrote earlier"),
    ("zynq-net-bench/src/plan.rs", "serde_json::from_str(&text)", "a bench plan file the bench wrote"),
    ("zynq-net-bench/src/plan.rs", "x.parse().unwrap_or(0)", "per-CPU counts in /proc/interrupts"),
    ("zynq-net-bench/src/ablate/design.rs", "serde_json::from_str(&t)", "an ablation design file the bench wrote"),
    ("zynq-net-bench/src/records.rs", "serde_json::from_str(l)", "results files (JSON lines) the bench wrote earlier"),
    (
        "zynq-net-bench/src/records.rs",
        "serde_json::from_str(text).map_err",
        "whole-file records the bench wrote earlier (tester.json, rfc2544.json, image.json, a lab's state)",
    ),
    ("zynq-net-cli/src/bench.rs", "s.trim().parse().map_err", "a whole-number tester flag (clap value parser)"),
    ("zynq-net-bench/src/targets.rs", "serde_json::from_str(&text)", "the lab's targets file"),
    ("zynq-net-bench/src/cpu.rs", "num.parse()", "CPU numbers in /proc/stat"),
    ("zynq-net-bench/src/cpu.rs", "x.parse::<u64>()", "tick counts in /proc/stat"),
    ("zynq-net-cli/src/main.rs", "v.parse::<u64>()", "ZYNQ_NET_TEST_GEN_DELAY_MS, a test hook in the environment"),
    ("zynq-net-cli/src/bench.rs", "s.parse::<u32>()", "whole seconds on the command line (clap value parser)"),
    (
        "zynq-net-cli/src/bench.rs",
        "FromStr for PdrArg",
        "`rfc2544-tester --pdr` on the command line (clap parses it with FromStr)",
    ),
    ("zynq-net-cli/src/bench.rs", "fn from_str(", "the FromStr impl above"),
    ("zynq-net-cli/src/bench.rs", "s.trim().parse::<f64>()", "a --pdr percentage (clap value parser)"),
    ("zynq-net-bench/src/tester.rs", "serde_json::from_str(json)", "`nft -j` output on the tester"),
    ("zynq-net-bench/src/tester.rs", "serde_json::from_str(&out)", "`ip -j` output on the tester"),
    ("zynq-net-bench/src/tester.rs", "w.next()?.parse().ok()?", "trafgen's packet count"),
    (
        "zynq-net-bench/src/tester_targets.rs",
        "serde_json::from_str(json).map_err",
        "`ip -j route get` output in a port's namespace",
    ),
    (
        "zynq-net-bench/src/tester_targets.rs",
        "serde_json::from_str(json).ok()",
        "`ip -j neigh` output in a port's namespace",
    ),
];

/// Crates whose sources can reach a board string (the `bench` section's)
/// and must not parse it.
const CRATES: &[&str] = &["zynq-net-bench", "zynq-net-cli"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.expect("dir entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every (line number, line) of `text` that parses, comments and
/// `#[cfg(test)]` items excepted. An item is skipped from its attribute to
/// the line where its braces balance (or to its `;`), so code after a
/// test-only `impl` or `mod` is still scanned. Braces are counted per
/// character, which is enough for this tree's sources (no test item has an
/// unbalanced brace in a string; one would make the test fail, not pass, as
/// the following code would then be scanned or the stale check would fire).
fn hits(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    // Some(depth) while inside a #[cfg(test)] item; `opened` once its first `{` is seen.
    let mut skip: Option<i64> = None;
    let mut opened = false;
    for (n, l) in text.lines().enumerate() {
        if let Some(depth) = skip {
            let code = l.split("//").next().unwrap_or("");
            let d = depth + code.matches('{').count() as i64 - code.matches('}').count() as i64;
            opened |= code.contains('{');
            skip = if (opened && d <= 0) || (!opened && code.trim_end().ends_with(';')) { None } else { Some(d) };
            continue;
        }
        if l.trim() == "#[cfg(test)]" {
            skip = Some(0);
            opened = false;
            continue;
        }
        if !l.trim_start().starts_with("//") && PATTERNS.iter().any(|p| l.contains(p)) {
            out.push((n + 1, l));
        }
    }
    out
}

#[test]
fn no_generator_parses_a_string() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("crates dir");
    let mut bad = Vec::new();
    let mut used = vec![false; ALLOWED.len()];
    for c in CRATES {
        let mut files = Vec::new();
        rust_files(&crates.join(c).join("src"), &mut files);
        files.sort();
        assert!(!files.is_empty(), "no sources under {c}/src");
        for f in files {
            let rel = f.strip_prefix(crates).expect("under crates").to_string_lossy().replace('\\', "/");
            let text = fs::read_to_string(&f).expect("source");
            for (n, line) in hits(&text) {
                match ALLOWED.iter().position(|(file, needle, _)| *file == rel && line.contains(needle)) {
                    Some(k) => used[k] = true,
                    None => bad.push(format!("{rel}:{n}: {}", line.trim())),
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "string-to-value parsing outside the loader (read the typed value: HiBench::values, LoadedBench::resolved, \
         or allow-list it in tests/no_reparse.rs with a reason):\n{}",
        bad.join("\n")
    );
    let stale: Vec<String> =
        ALLOWED.iter().zip(&used).filter(|(_, u)| !**u).map(|((f, n, _), _)| format!("{f}: {n}")).collect();
    assert!(stale.is_empty(), "allow-list entries that match nothing any more:\n{}", stale.join("\n"));
}

/// The scanner finds what it is meant to find (so the test above can fail).
#[test]
fn the_scanner_sees_parses_and_skips_comments_and_tests() {
    let src = "let m = parse_mac(s);\n// x.parse::<u8>()\nlet c = qc.cpus.cpus();\nlet n: u8 = t.parse().unwrap();\n\
               #[cfg(test)]\nimpl T {\n    fn f() { let a = b.parse::<u8>(); }\n}\nlet k = Mac::parse(x);\n\
               #[cfg(test)]\nmod helpers;\nlet r = Rate::parse(y);\n\
               #[cfg(test)]\nmod tests { let a = b.parse::<u8>(); }\nlet z = w.parse::<u8>();\n";
    let lines: Vec<usize> = hits(src).into_iter().map(|(n, _)| n).collect();
    assert_eq!(lines, vec![1, 3, 4, 9, 12, 15]);
}
