//! End-to-end tests of the `zynq-net` binary: reference boards (golden
//! output), failing cases for every validation rule (tests/fixtures/bad-cases.txt), schema snapshot,
//! determinism, slicing and atomic output.
//!
//! Accept intended output changes with `UPDATE_GOLDEN=1 cargo test -p zynq-net-cli --test cli`
//! and review the diff of tests/golden/.

// shared with zynq-net-model's tests, which use the parts this file does not
#[allow(dead_code)]
mod bad_cases;
mod hardening;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use zynq_net_model::{Rule, Severity};

/// `UPDATE_GOLDEN=1` (exactly `1`: `UPDATE_GOLDEN=0` or an empty value
/// compares as usual) rewrites the goldens instead of comparing.
fn update_golden() -> bool {
    std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1")
}

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_zynq-net"))
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..").canonicalize().expect("repo root")
}

fn board(name: &str) -> PathBuf {
    root().join("meta-zynq-net/boards").join(format!("{name}.yml"))
}

/// `zynq-net ARGS` with `input` on standard input.
fn run_with_stdin(args: &[&str], input: Vec<u8>) -> Output {
    use std::io::Write;
    let mut child = Command::new(bin())
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn zynq-net");
    let mut stdin = child.stdin.take().expect("stdin");
    // the tool stops reading past 1 MiB: a broken pipe is its answer, not an error
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let o = child.wait_with_output().expect("zynq-net runs");
    writer.join().expect("writer");
    o
}

fn run(args: &[&str]) -> Output {
    Command::new(bin()).args(args).output().expect("run zynq-net")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn gen(board: &Path, out: &Path) -> Output {
    run(&["gen", s(board), "-o", s(out)])
}

/// Every file under `dir`, relative path -> bytes, sorted.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).expect("read_dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).expect("prefix").to_string_lossy().into_owned();
                out.push((rel, fs::read(&p).expect("read")));
            }
        }
    }
    out.sort();
    out
}

const REFERENCE_BOARDS: &[&str] = &["zcu102", "p1020rdb", "mlx5-lab", "qemuarm64", "zc702"];

#[test]
fn reference_boards_check_clean() {
    for b in REFERENCE_BOARDS {
        let o = run(&["check", s(&board(b))]);
        assert_eq!(o.status.code(), Some(0), "{b}: {}", String::from_utf8_lossy(&o.stderr));
        assert!(o.stderr.is_empty(), "{b} has warnings: {}", String::from_utf8_lossy(&o.stderr));
    }
}

#[test]
fn golden_output_of_reference_boards() {
    let update = update_golden();
    for b in REFERENCE_BOARDS {
        let tmp = tempfile::tempdir().expect("tmp");
        let out = tmp.path().join("out");
        let o = gen(&board(b), &out);
        assert_eq!(o.status.code(), Some(0), "{b}: {}", String::from_utf8_lossy(&o.stderr));
        let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(b);
        // The applier is the same fixed file for every board: compare it with
        // its source instead of keeping a golden copy per board.
        let applier = fs::read(out.join("tuning/zynq-net-apply")).expect("applier");
        let asset = Path::new(env!("CARGO_MANIFEST_DIR")).join("../zynq-net-render/assets/zynq-net-apply.sh");
        assert!(applier == fs::read(asset).expect("applier source"), "{b}: generated applier differs from its source");
        let got: Vec<_> = tree(&out).into_iter().filter(|(n, _)| n != "tuning/zynq-net-apply").collect();
        same_as_golden(b, &got, &golden, update);
    }
}

/// `got` (relative path, bytes) is the tree under `golden`; with
/// `UPDATE_GOLDEN=1` it becomes it.
fn same_as_golden(name: &str, got: &[(String, Vec<u8>)], golden: &Path, update: bool) {
    let shown = golden.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(golden).display().to_string();
    if update {
        let _ = fs::remove_dir_all(golden);
        for (rel, data) in got {
            let p = golden.join(rel);
            fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            fs::write(p, data).expect("write golden");
        }
        return;
    }
    let want = tree(golden);
    let names = |t: &[(String, Vec<u8>)]| t.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(got), names(&want), "{name}: artifact list differs from {shown} (UPDATE_GOLDEN=1 to accept)");
    for ((n, g), (_, w)) in got.iter().zip(&want) {
        assert!(g == w, "{name}: {n} differs from {shown}/{n} (UPDATE_GOLDEN=1 cargo test -p zynq-net-cli --test cli to accept)\n--- got ---\n{}", String::from_utf8_lossy(g));
    }
}

/// The DT fragments and kernel fragments of the kernel tests' design
/// boards and of the good fixtures (tests/kernel/fixtures/*.yml,
/// tests/fixtures/good/*.yml: PL Ethernet over AXI DMA, MCDMA,
/// XXV, SGMII/SFP, EMIO GEM, XSA/SDT patch mode, the P1020 with queue
/// groups) are the goldens under tests/golden/designs/. Those outputs are
/// what tests/kernel/test_dt_fragments.py compiles with dtc into the real
/// kernel trees and holds against the drivers' probe code; this test pins
/// them so that a change to a generator shows here, in `cargo test`, too.
#[test]
fn golden_dt_and_kernel_fragments_of_the_design_boards() {
    let update = update_golden();
    let designs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/kernel/fixtures");
    // and the good fixtures (p1020rdb-asf: the QorIQ SDK kernel with ASF,
    // which tests/gen/test_asf.py runs through the applier)
    let good = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/good");
    let mut boards: Vec<PathBuf> = [designs, good]
        .iter()
        .flat_map(|d| fs::read_dir(d).unwrap_or_else(|e| panic!("{}: {e}", d.display())))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "yml"))
        .collect();
    boards.sort();
    assert!(boards.len() >= 10, "{boards:?}");
    for b in boards {
        let name = b.file_stem().expect("stem").to_string_lossy().to_string();
        let tmp = tempfile::tempdir().expect("tmp");
        let out = tmp.path().join("out");
        let o = gen(&b, &out);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        let got: Vec<_> =
            tree(&out).into_iter().filter(|(n, _)| n.starts_with("dt/") || n.starts_with("kernel/")).collect();
        assert!(got.iter().any(|(n, _)| n.starts_with("dt/")), "{name}: no dt/ output");
        let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/designs").join(&name);
        same_as_golden(&name, &got, &golden, update);
    }
}

/// XPS on a port with one TX queue is warned about and left out of the
/// plan: the kernel refuses xps_cpus there (net-sysfs.c, -ENOENT unless
/// netif_is_multiqueue), so the step could only fail at boot. The same
/// entry on a two-queue port is kept.
#[test]
fn xps_on_a_single_queue_port_is_not_planned() {
    let base = fs::read_to_string(board("qemuarm64")).expect("board");
    let xps = "    xps:\n      - { queue: 0, cpus: \"0-3\" }\n";
    let one = base.replacen("    rfs_flow_cnt:", &format!("{xps}    rfs_flow_cnt:"), 1);
    assert_ne!(one, base);
    let two = one.replacen("queues: { rx: 1, tx: 1 }", "queues: { rx: 1, tx: 2 }", 1);
    assert_ne!(two, one);
    let tmp = tempfile::tempdir().expect("tmp");
    for (text, planned) in [(one, false), (two, true)] {
        let f = tmp.path().join("b.yml");
        fs::write(&f, text).expect("write");
        let out = tmp.path().join(if planned { "two" } else { "one" });
        let o = gen(&f, &out);
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(String::from_utf8_lossy(&o.stderr).contains("warning[xps-single-queue]"), !planned);
        let plan = fs::read_to_string(out.join("tuning/zynq-net.plan")).expect("plan");
        assert_eq!(plan.lines().any(|l| l.starts_with("xps eth0 tx-0 ")), planned, "{plan}");
    }
}

/// `--duration` is what a board's `duration_s` is: whole seconds, at
/// least 1. `inf` once made a plan whose duration was saved as null and
/// could not be read back.
#[test]
fn bench_duration_is_whole_seconds() {
    let b = board("zcu102");
    for bad in ["inf", "1.5", "0", "-1"] {
        let o = run(&["bench", "plan", s(&b), "--duration", bad]);
        assert_eq!(o.status.code(), Some(2), "--duration {bad}: {}", String::from_utf8_lossy(&o.stderr));
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let plan = tmp.path().join("plan.json");
    let o = run(&["bench", "plan", s(&b), "--duration", "3", "-o", s(&plan)]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&["bench", "plan", s(&plan)]);
    assert_eq!(o.status.code(), Some(0), "the saved plan reads back: {}", String::from_utf8_lossy(&o.stderr));
}

/// The e500v2 fragment (math emulation: e500v2 has no classic FPU) is for
/// a QorIQ SoC on powerpc only, not for any powerpc board: a generic
/// powerpc board gets none, the P1020RDB does.
#[test]
fn e500v2_fragment_only_for_qoriq_on_powerpc() {
    let tmp = tempfile::tempdir().expect("tmp");
    let generic = fs::read_to_string(board("mlx5-lab")).expect("board").replacen("arch: x86_64", "arch: powerpc", 1);
    let f = tmp.path().join("generic-ppc.yml");
    fs::write(&f, generic).expect("write");
    for (b, want) in [(f, false), (board("p1020rdb"), true)] {
        let out = tmp.path().join(b.file_stem().expect("stem"));
        let o = gen(&b, &out);
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(out.join("kernel/zynq-net-e500v2.cfg").exists(), want, "{}", b.display());
    }
}

/// Plan lines the reference boards do not reach: ethtool -C takes the
/// adaptive switches as on/off (the board writes 1/0), and a zero-copy
/// queue 0 leaves no queue below it for RSS, so there is no `rss` step.
#[test]
fn adaptive_coalescing_and_zcrx_queue_zero_plan_lines() {
    let base = fs::read_to_string(board("mlx5-lab")).expect("board");
    let text = base
        .replacen("    mtu: 9000\n", "    mtu: 9000\n    coalesce: { adaptive-rx: 1, adaptive-tx: 0 }\n", 1)
        .replacen("      queue: 9\n", "      queue: 0\n", 1);
    assert_ne!(text, base);
    let tmp = tempfile::tempdir().expect("tmp");
    let f = tmp.path().join("b.yml");
    fs::write(&f, text).expect("write");
    let o = gen(&f, &tmp.path().join("out"));
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let plan = fs::read_to_string(tmp.path().join("out/tuning/zynq-net.plan")).expect("plan");
    let lines: Vec<&str> = plan.lines().collect();
    assert!(
        lines.contains(&"coalesce eth2 adaptive-rx on") && lines.contains(&"coalesce eth2 adaptive-tx off"),
        "{plan}"
    );
    assert!(!lines.iter().any(|l| l.starts_with("rss ")), "{plan}");
}

#[test]
fn manifest_lists_every_kind_with_hashes() {
    let tmp = tempfile::tempdir().expect("tmp");
    for b in ["zcu102", "p1020rdb"] {
        let out = tmp.path().join(b);
        assert_eq!(gen(&board(b), &out).status.code(), Some(0));
        let m: serde_json::Value =
            serde_json::from_slice(&fs::read(out.join("manifest.json")).expect("manifest")).expect("json");
        assert_eq!(m["tool"], "zynq-net");
        assert_eq!(m["version"], env!("CARGO_PKG_VERSION"));
        assert_eq!(m["input"], format!("{b}.yml"));
        let arts = m["artifacts"].as_array().expect("artifacts");
        for kind in ["dtsi", "dtso", "kconfig", "scc", "plan", "applier", "sysvinit", "systemd", "sysctl"] {
            assert!(arts.iter().any(|a| a["kind"] == kind), "{b}: no {kind} in manifest");
        }
        for a in arts {
            let data = fs::read(out.join(a["path"].as_str().expect("path"))).expect("artifact exists");
            assert_eq!(a["sha256"].as_str().expect("sha").len(), 64);
            assert_eq!(a["sha256"], zynq_net_sha(&data), "{b}: {} hash", a["path"]);
        }
        // Every generated text file names the tool version and its input (the applier is fixed).
        for a in arts.iter().filter(|a| a["kind"] != "applier") {
            let text = fs::read_to_string(out.join(a["path"].as_str().expect("path"))).expect("utf-8");
            let head: String = text.lines().take(20).collect::<Vec<_>>().join("\n");
            assert!(
                head.contains(&format!("zynq-net {}", env!("CARGO_PKG_VERSION"))) && head.contains(&format!("{b}.yml")),
                "{b}: {} header: {head}",
                a["path"]
            );
        }
    }
}

fn zynq_net_sha(data: &[u8]) -> String {
    // sha256sum, the tool a user would check the manifest with.
    let tmp = tempfile::NamedTempFile::new().expect("tmp");
    fs::write(tmp.path(), data).expect("write");
    let o = Command::new("sha256sum").arg(tmp.path()).output().expect("sha256sum");
    String::from_utf8_lossy(&o.stdout).split_whitespace().next().unwrap_or_default().to_string()
}

#[test]
fn output_is_deterministic() {
    let tmp = tempfile::tempdir().expect("tmp");
    for b in REFERENCE_BOARDS {
        let (a, c) = (tmp.path().join(format!("{b}-1")), tmp.path().join(format!("{b}-2")));
        assert_eq!(gen(&board(b), &a).status.code(), Some(0));
        assert_eq!(gen(&board(b), &c).status.code(), Some(0));
        assert_eq!(tree(&a), tree(&c), "{b}: two runs differ");
    }
}

/// Tuning-only edits must leave the device-tree and kernel fragments byte-identical.
#[test]
fn tuning_changes_do_not_touch_dt_or_kernel_fragments() {
    let text = fs::read_to_string(board("zcu102")).expect("board");
    let edits: &[(&str, &str)] = &[
        (
            "rings: { rx: 1024, tx: 1024 }\n    offloads: { gro: on, tso: on, gso: on }",
            "rings: { rx: 512, tx: 256 }\n    offloads: { gro: off, tso: on, gso: on }",
        ),
        ("- { irq: eth0, cpus: 1 }", "- { irq: eth0, cpus: 3 }"),
        ("{ queue: 0, cpus: \"0-1\" }", "{ queue: 0, cpus: \"0-3\" }"),
        ("rfs_flow_cnt: 2048", "rfs_flow_cnt: 4096"),
        ("net.core.rmem_max: 4194304", "net.core.rmem_max: 8388608"),
        ("address: 192.0.2.3, queue: 1", "address: 192.0.2.9, queue: 0"),
        ("mtu: 9000", "mtu: 4000"),
        ("rfs_sock_flow_entries: 32768", "rfs_sock_flow_entries: 65536"),
        ("duration_s: 60", "duration_s: 5"),
    ];
    let mut tuned = text.clone();
    for (old, new) in edits {
        assert!(tuned.contains(old), "edit anchor missing: {old}");
        tuned = tuned.replacen(old, new, 1);
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let tuned_path = tmp.path().join("zcu102.yml");
    fs::write(&tuned_path, tuned).expect("write");
    let (a, b) = (tmp.path().join("base"), tmp.path().join("tuned"));
    assert_eq!(gen(&board("zcu102"), &a).status.code(), Some(0));
    let o = gen(&tuned_path, &b);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let (ta, tb) = (tree(&a), tree(&b));
    for ((n, x), (m, y)) in ta.iter().zip(&tb) {
        assert_eq!(n, m);
        let hw = n.starts_with("dt/") || n.starts_with("kernel/");
        if hw {
            assert!(x == y, "{n} changed after a tuning-only edit");
        }
    }
    let plan = |t: &[(String, Vec<u8>)]| t.iter().find(|(n, _)| n == "tuning/zynq-net.plan").map(|(_, d)| d.clone());
    assert_ne!(plan(&ta), plan(&tb), "the plan must reflect the tuning edits");
}

/// One expected diagnostic: `error[ID]: FILE:LINE:COL: ...MSG...` (or
/// `warning[ID]`).
struct Expect {
    rule: Rule,
    pos: String,
    msg: String,
}

fn repo_cases() -> bad_cases::Cases {
    bad_cases::Cases::load(&root())
}

/// A case's board written to `dir/NAME.yml`, and what it expects (each
/// position resolved from its `after`/`at` anchors, each rule id and
/// severity checked against the rules).
fn materialize(cases: &bad_cases::Cases, case: &bad_cases::Case, dir: &Path) -> (PathBuf, Vec<Expect>) {
    let text = cases.materialize(case, &root()).unwrap_or_else(|e| panic!("{e}"));
    let mut expects = Vec::new();
    for e in &case.expects {
        let at = format!("{}:{}: case `{}`", cases.file, e.line, case.name);
        let rule = Rule::from_id(&e.rule)
            .unwrap_or_else(|| panic!("{at}: `{}` is not a rule id (`zynq-net rules` lists them)", e.rule));
        let sev = if rule.severity() == Severity::Error { "error" } else { "warning" };
        assert_eq!(e.severity, sev, "{at}: {} is a rule of severity {sev}: write `{sev}[{}]`", e.rule, e.rule);
        let (line, col) = cases.position(case, e, &text).unwrap_or_else(|e| panic!("{e}"));
        expects.push(Expect { rule, pos: format!("{line}:{col}"), msg: e.msg.clone() });
    }
    let f = dir.join(format!("{}.yml", case.name));
    fs::write(&f, text).expect("write case");
    (f, expects)
}

/// Runs `gen` on a failing input and checks every expectation: the
/// diagnostic `error[ID]: FILE:LINE:COL: ...message...` (or `warning[ID]`),
/// no error that is not expected, exit code 1 and nothing written when an
/// error is expected, else exit 0 and the output written. `what` names the
/// input in failures (the case's line in the cases file).
fn check_expectations(f: &Path, what: &str, expects: &[Expect]) {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("out");
    let o = gen(f, &out);
    let err = String::from_utf8_lossy(&o.stderr);
    let any_error = expects.iter().any(|e| e.rule.severity() == Severity::Error);
    assert_eq!(o.status.code(), Some(if any_error { 1 } else { 0 }), "{what}: exit code; stderr:\n{err}");
    for e in expects {
        let kind = if e.rule.severity() == Severity::Error { "error" } else { "warning" };
        let want = format!("{kind}[{}]: {}:{}: ", e.rule.id(), f.display(), e.pos);
        assert!(
            err.lines().any(|l| l.starts_with(&want) && l[want.len()..].contains(&e.msg)),
            "{what}: expected `{want}...{}...`; got:\n{err}",
            e.msg
        );
    }
    // One fault planted: every error printed is one the case expects
    // (warnings of the base board may come along).
    for line in err.lines().filter(|l| l.starts_with("error[")) {
        assert!(
            expects.iter().any(|e| e.rule.severity() == Severity::Error
                && line.starts_with(&format!("error[{}]: {}:{}: ", e.rule.id(), f.display(), e.pos))
                && line.contains(&e.msg)),
            "{what}: an error the case does not expect (add an `error[ID] message` line, or plant one fault only):\n{line}"
        );
    }
    assert!(err.contains("hint:"), "{what}: no hint:\n{err}");
    assert_eq!(out.exists(), !any_error, "{what}: output written for an invalid board, or not for a valid one");
}

/// Every case of tests/fixtures/bad-cases.txt (bad_cases/mod.rs: a base
/// board, a few edits planting a fault, the diagnostics it gives) reports
/// its rules at their positions.
#[test]
fn each_bad_case_reports_its_rule_at_its_position() {
    let cases = repo_cases();
    let tmp = tempfile::tempdir().expect("tmp");
    for case in &cases.cases {
        let (f, expects) = materialize(&cases, case, tmp.path());
        check_expectations(&f, &format!("{}:{}: case `{}`", cases.file, case.line, case.name), &expects);
    }
    assert!(cases.cases.len() >= 132, "only {} cases", cases.cases.len());
}

/// Every case's edits apply and its anchors resolve. With
/// `ZYNQ_NET_WRITE_BAD_CASES=DIR`, each case's board is also written to
/// DIR/NAME.yml (scripts/fuzz seeds the board fuzzer with them).
#[test]
fn bad_cases_materialize() {
    let cases = repo_cases();
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = std::env::var_os("ZYNQ_NET_WRITE_BAD_CASES").map_or_else(|| tmp.path().to_path_buf(), PathBuf::from);
    fs::create_dir_all(&dir).expect("mkdir");
    for case in &cases.cases {
        let (f, _) = materialize(&cases, case, &dir);
        assert!(f.is_file(), "{}", f.display());
    }
}

/// An inline base board is a valid board (the planted edit is the only
/// fault; its warnings may come along, as a reference board's may not),
/// unless a case uses it unedited: then the base is the fault.
#[test]
fn inline_base_boards_check_clean() {
    let cases = repo_cases();
    let tmp = tempfile::tempdir().expect("tmp");
    for (name, text) in &cases.boards {
        let used: Vec<_> = cases.cases.iter().filter(|c| &c.base == name).collect();
        assert!(!used.is_empty(), "{}: board `{name}` is no case's base", cases.file);
        if used.iter().any(|c| c.edits.is_empty()) {
            continue;
        }
        let f = tmp.path().join(format!("{name}.yml"));
        fs::write(&f, text).expect("write");
        let o = run(&["check", s(&f)]);
        assert_eq!(o.status.code(), Some(0), "{}: board {name}: {}", cases.file, String::from_utf8_lossy(&o.stderr));
    }
}

/// The harness fails loudly: an edit whose text is missing or repeated, an
/// anchor that is missing or not unique, a malformed line; and a wrong
/// position, rule or message fails the check.
#[test]
fn bad_case_harness_refuses_what_does_not_apply() {
    let root = root();
    let base = "version: 1\nboard:\n  name: t\n  cpus: 4\n  arch: arm64\n";
    // the inline board after the case: the case's lines are numbered from 1
    let parse = |body: &str| {
        let board: String = base.lines().map(|l| format!("| {l}\n")).collect();
        bad_cases::parse("t.txt", &format!("{body}\nboard b\n{board}"))
    };
    let one = |body: &str| -> Result<(String, Vec<(usize, usize)>), String> {
        let c = parse(body)?;
        let case = &c.cases[0];
        let text = c.materialize(case, &root)?;
        let pos = case.expects.iter().map(|e| c.position(case, e, &text)).collect::<Result<_, _>>()?;
        Ok((text, pos))
    };
    // the working form: an edit, then `after`/`at` resolved in the edited text
    let (text, pos) =
        one("case x\nbase b\n- cpus: 4\n+ cpus: 8\nerror[soc-cpus] m\n  after cpus:\n  at 8\n").expect("applies");
    assert_eq!((text.as_str(), pos), ("version: 1\nboard:\n  name: t\n  cpus: 8\n  arch: arm64\n", vec![(4, 9)]));
    let (_, pos) = one("case x\nbase b\nerror[soc-cpus] m\n  at arch\n").expect("applies");
    assert_eq!(pos, vec![(5, 3)]);
    let (text, _) =
        one("case x\nbase b\n- board:\n-   name: t\n+ board:\nerror[missing-key] m\n  at board").expect("deletes");
    assert_eq!(text, "version: 1\nboard:\n  cpus: 4\n  arch: arm64\n");
    for (body, want) in [
        (
            "case x\nbase b\n- cpus: 5\n+ cpus: 8\nerror[soc-cpus] m\n  at 8\n",
            "t.txt:3: case `x`: the `-` text occurs 0 times",
        ),
        ("case x\nbase b\n- : \n+ :\nerror[soc-cpus] m\n  at 8\n", "t.txt:3: case `x`: the `-` text occurs 4 times"),
        ("case x\nbase b\nerror[soc-cpus] m\n  at 8\n", "t.txt:3: case `x`: `at 8` occurs 0 times"),
        ("case x\nbase b\nerror[soc-cpus] m\n  at a\n", "`at a` occurs 4 times in the edited board, not once"),
        ("case x\nbase b\nerror[soc-cpus] m\n  after :\n  at a\n", "`after :` occurs 5 times"),
        ("case x\nbase b\nerror[soc-cpus] m\n  after arch\n  at cpus\n", "`at cpus` is not in the edited board after"),
        ("case x\nbase nope\nerror[soc-cpus] m\n  at a\n", "no inline board `nope`"),
        ("case x\nbase no/such.yml\nerror[soc-cpus] m\n  at a\n", "case `x`: base no/such.yml: "),
        ("case x\nbase b\n+ cpus: 8\nerror[soc-cpus] m\n  at 8\n", "t.txt:3: a `+` line without the `-` lines"),
        ("case x\nbase b\nerror[soc-cpus] m\n", "t.txt:3: `error[soc-cpus]` has no `at TEXT` line"),
        ("case x\nbase b\n", "t.txt:1: case `x` expects nothing"),
        ("case x\nerror[soc-cpus] m\n  at a\n", "t.txt:1: case `x` has no `base` line"),
        ("case x\nbase b\nerror[soc-cpus]\n  at a\n", "t.txt:3: `error[soc-cpus]`: expected `error[RULE-ID] message`"),
        ("case x\nbase b\nerror[soc-cpus] m\n  at a\n- cpus: 4\n", "t.txt:5: edits come after `base` and before"),
        ("case x\nbase b\nfrobnicate\n", "t.txt:3: `frobnicate`: expected `base`"),
        ("case x\nbase b\nerror[soc-cpus] m\n  at arch\ncase x\n", "t.txt:5: `case x`: a new name"),
    ] {
        let got = one(body).map(|_| ()).expect_err(body);
        assert!(got.contains(want), "{body:?}: got {got:?}, want {want:?}");
    }
    // A wrong position, rule or message fails the check (the same case, right, passes).
    let cases = repo_cases();
    let case = cases.get("skbedit-queue");
    let tmp = tempfile::tempdir().expect("tmp");
    let (f, expects) = materialize(&cases, case, tmp.path());
    check_expectations(&f, "skbedit-queue", &expects);
    let e = &expects[0];
    let (line, col) = e.pos.split_once(':').expect("pos");
    let col: usize = col.parse().expect("col");
    for wrong in [
        Expect { rule: e.rule, pos: format!("{line}:{}", col + 1), msg: e.msg.clone() },
        Expect { rule: Rule::QueueIndex, pos: e.pos.clone(), msg: e.msg.clone() },
        Expect { rule: e.rule, pos: e.pos.clone(), msg: "a message it does not give".into() },
    ] {
        let pos = wrong.pos.clone();
        let r = std::panic::catch_unwind(|| check_expectations(&f, "wrong", &[wrong]));
        let msg = r.expect_err("a wrong expectation passed").downcast::<String>().map(|m| *m).unwrap_or_default();
        assert!(msg.contains("wrong: "), "{pos}: {msg}");
    }
}

/// Inputs too large or not text, for the rules no case's board can hold
/// sensibly: (rule, file name, contents, position, message).
fn generated_fixtures() -> Vec<(Rule, &'static str, Vec<u8>, &'static str, &'static str)> {
    let zcu102 = fs::read_to_string(board("zcu102")).expect("board");
    let mut huge = zcu102.clone().into_bytes();
    huge.resize(zynq_net_model::MAX_BOARD_BYTES as usize + 1, b'#');
    let nodes = zcu102.replacen("version: 1\n", &format!("version: 1\nx: [{}]\n", vec!["0"; 50_001].join(",")), 1);
    let mut ports = String::new();
    for i in 0..65 {
        ports.push_str(&format!("  - {{ name: lab{i}, driver: veth, queues: {{ rx: 1, tx: 1 }} }}\n"));
    }
    let interfaces = zcu102.replacen("interfaces:\n", &format!("interfaces:\n{ports}"), 1);
    let utf8 = zcu102.replacen("name: zcu102", "name: zcu\u{fffd}102", 1).replace('\u{fffd}', "\u{1}");
    let utf8 = utf8.into_bytes().into_iter().map(|b| if b == 1 { 0xff } else { b }).collect();
    vec![
        (Rule::FileTooLarge, "huge.yml", huge, "1:1", "larger than 1 MiB: not a board file"),
        (Rule::TooManyNodes, "nodes.yml", nodes.into_bytes(), "6:99995", "more than 50000 YAML nodes"),
        (
            Rule::TooManyInterfaces,
            "ports.yml",
            interfaces.into_bytes(),
            "93:5",
            "interfaces; a board file describes at most 64",
        ),
        (Rule::NotUtf8, "latin1.yml", utf8, "7:12", "not UTF-8 text: byte 0xff"),
    ]
}

/// The rules of `Rule::ALL` no case or generated input covers
/// (`internal-error`, a zynq-net bug no input should reach, aside).
fn uncovered(covered: &std::collections::BTreeSet<Rule>) -> Vec<&'static str> {
    Rule::ALL.iter().filter(|r| !covered.contains(r) && **r != Rule::Internal).map(|r| r.id()).collect()
}

/// Every rule of `Rule::ALL` has a failing case (or a generated input, for
/// sizes no case should have) asserting its id and position.
#[test]
fn every_rule_has_a_failing_fixture() {
    let cases = repo_cases();
    let mut covered = std::collections::BTreeSet::new();
    for case in &cases.cases {
        for e in &case.expects {
            covered.insert(
                Rule::from_id(&e.rule).unwrap_or_else(|| panic!("{}:{}: no rule `{}`", cases.file, e.line, e.rule)),
            );
        }
    }
    let tmp = tempfile::tempdir().expect("tmp");
    for (rule, name, bytes, pos, msg) in generated_fixtures() {
        let f = tmp.path().join(name);
        fs::write(&f, bytes).expect("write");
        check_expectations(&f, name, &[Expect { rule, pos: pos.into(), msg: msg.into() }]);
        covered.insert(rule);
        if matches!(rule, Rule::FileTooLarge | Rule::NotUtf8) {
            // the same bytes on standard input: the same rule and exit 1
            // (it was an I/O error, exit 2, with another wording)
            let o = run_with_stdin(&["check", "-"], fs::read(&f).expect("read"));
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{name} on stdin: {err}");
            assert!(err.contains(&format!("error[{}]: <stdin>:{pos}: {msg}", rule.id())), "{name} on stdin: {err}");
        }
    }
    // Rules that need the kernel tree's board DTS (`--kernel-tree`): their
    // failing cases are in tests/dtb_verify.rs
    // (labels_are_checked_against_the_board_dts), which asserts id and position.
    covered.extend([Rule::DtLabelMissing, Rule::SocDts]);
    let missing = uncovered(&covered);
    assert!(missing.is_empty(), "rules without a failing case in {}: {}", cases.file, missing.join(", "));
    // and the check has teeth: without its case, a rule is reported
    covered.remove(&Rule::SkbeditQueue);
    assert_eq!(uncovered(&covered), ["skbedit-queue"]);
}

#[test]
fn all_errors_are_reported_at_once() {
    let text = fs::read_to_string(board("p1020rdb"))
        .expect("board")
        .replacen("rings: { rx: 32, tx: 32 }", "rings: { rx: 1000, tx: 32 }", 1)
        .replacen("queue: 1 }", "queue: 3 }", 1)
        .replacen("\"00:04:9f:00:10:21\"", "\"01:04:9f:00:10:21\"", 1)
        .replacen("cpus: 0 }", "cpus: 7 }", 1);
    let tmp = tempfile::tempdir().expect("tmp");
    let f = tmp.path().join("many.yml");
    fs::write(&f, text).expect("write");
    let o = run(&["check", s(&f)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1));
    let errors = err.lines().filter(|l| l.starts_with("error[")).count();
    assert_eq!(errors, 4, "{err}");
    assert!(err.contains("4 error(s)"), "{err}");
    // Structural errors are all reported too (two unknown keys, one bad type).
    let text = fs::read_to_string(board("zcu102"))
        .expect("board")
        .replacen("    mtu: 1500", "    mtu: 1500\n    ring: {}\n    coalescing: {}", 1)
        .replacen("cpus: 4", "cpus: four", 1);
    fs::write(&f, text).expect("write");
    let o = run(&["check", s(&f)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().filter(|l| l.starts_with("error[")).count(), 3, "{err}");
    assert!(err.contains("`ring` is spelled `rings`") && err.contains("`coalescing` is spelled `coalesce`"), "{err}");
}

#[test]
fn warnings_do_not_fail_and_macb_ring_rounding_is_explained() {
    let text = fs::read_to_string(board("zcu102")).expect("board").replacen(
        "rings: { rx: 1024, tx: 1024 }",
        "rings: { rx: 1000, tx: 1024 }",
        1,
    );
    let tmp = tempfile::tempdir().expect("tmp");
    let f = tmp.path().join("zcu102.yml");
    fs::write(&f, text).expect("write");
    let o = run(&["gen", s(&f), "-o", s(&tmp.path().join("out"))]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("warning[ring-rounded]: ") && l.contains("rounds the rx ring 1000 up to 1024")),
        "{err}"
    );
    // The plan keeps rings before the IRQ and RPS steps (macb reopens the device).
    let plan = fs::read_to_string(tmp.path().join("out/tuning/zynq-net.plan")).expect("plan");
    let pos = |p: &str| plan.lines().position(|l| l.starts_with(p)).unwrap_or_else(|| panic!("no {p} step:\n{plan}"));
    assert!(
        pos("rings eth0 rx 1000") < pos("irq ") && pos("rings ") < pos("rps ") && pos("mtu ") < pos("rings "),
        "{plan}"
    );
}

#[test]
fn exit_codes_for_usage_and_io_errors() {
    assert_eq!(run(&["check", "/nonexistent/board.yml"]).status.code(), Some(2));
    assert_eq!(run(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(run(&["gen", s(&board("zcu102"))]).status.code(), Some(2), "missing -o");
    assert_eq!(run(&["--version"]).status.code(), Some(0));
}

#[test]
fn gen_is_atomic_and_never_clobbers_foreign_directories() {
    let tmp = tempfile::tempdir().expect("tmp");
    // A directory that is not ours is refused, untouched.
    let foreign = tmp.path().join("src");
    fs::create_dir(&foreign).expect("mkdir");
    fs::write(foreign.join("main.c"), "int main;").expect("write");
    let o = gen(&board("zcu102"), &foreign);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(fs::read_to_string(foreign.join("main.c")).expect("kept"), "int main;");
    // An earlier output is replaced as a whole; a failing board leaves it as it was.
    let out = tmp.path().join("out");
    assert_eq!(gen(&board("p1020rdb"), &out).status.code(), Some(0));
    let before = tree(&out);
    let cases = repo_cases();
    let (bad, _) = materialize(&cases, cases.get("skbedit-queue"), tmp.path());
    assert_eq!(gen(&bad, &out).status.code(), Some(1));
    assert_eq!(tree(&out), before, "failed gen changed the output");
    assert_eq!(gen(&board("zcu102"), &out).status.code(), Some(0));
    let after = tree(&out);
    assert!(!after.iter().any(|(n, _)| n.contains("e500v2") || n.contains("flowtable")), "stale p1020 files survived");
    // A file added to an earlier output, a board kept inside it, a manifest
    // that is not ours, or a symlink: refused, nothing deleted.
    fs::write(out.join("notes.txt"), "mine").expect("write");
    assert_eq!(gen(&board("zcu102"), &out).status.code(), Some(2));
    assert_eq!(fs::read_to_string(out.join("notes.txt")).expect("kept"), "mine");
    fs::remove_file(out.join("notes.txt")).expect("rm");
    let fake = tmp.path().join("fake");
    fs::create_dir(&fake).expect("mkdir");
    fs::write(fake.join("manifest.json"), "{}").expect("write");
    fs::write(fake.join("important.c"), "keep").expect("write");
    let o = gen(&board("zcu102"), &fake);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(fake.join("important.c").exists());
    let inside = out.join("board.yml");
    fs::copy(board("zcu102"), &inside).expect("copy");
    assert_eq!(gen(&inside, &out).status.code(), Some(2));
    assert!(inside.exists(), "the input board was deleted");
    fs::remove_file(&inside).expect("rm");
    #[cfg(unix)]
    {
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&out, &link).expect("symlink");
        assert_eq!(gen(&board("zcu102"), &link).status.code(), Some(2));
        assert!(link.join("manifest.json").exists(), "symlink target emptied");
    }
    // No temporary directories are left beside the output.
    let leftovers: Vec<_> = fs::read_dir(tmp.path())
        .expect("ls")
        .map(|e| e.expect("e").file_name())
        .filter(|n| n.to_string_lossy().starts_with(".zynq-net"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn schema_snapshot_and_self_consistency() {
    let o = run(&["schema"]);
    assert_eq!(o.status.code(), Some(0));
    let got = String::from_utf8(o.stdout).expect("utf-8");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/schema.json");
    if update_golden() {
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(&path, &got).expect("write");
    }
    let want = fs::read_to_string(&path).expect("tests/golden/schema.json (UPDATE_GOLDEN=1 to create)");
    assert!(got == want, "schema changed: update docs/board-format.md's changelog and run UPDATE_GOLDEN=1");
    let v: serde_json::Value = serde_json::from_str(&got).expect("json");
    assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema");
    for key in ["version", "board", "system", "fastpath", "interfaces", "bench"] {
        assert!(v["properties"].get(key).is_some(), "schema lacks {key}");
    }
}

/// A bench error that already says its cause is printed with the cause
/// once: `bench plan B -o /tmp` (a directory where the plan file goes)
/// said "Is a directory (os error 21)" twice.
#[test]
fn bench_errors_say_their_cause_once() {
    let board = root().join("meta-zynq-net/boards/zcu102.yml");
    let tmp = tempfile::tempdir().expect("tmp");
    let o = run(&["bench", "plan", board.to_str().expect("utf-8"), "-o", tmp.path().to_str().expect("utf-8")]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.to_lowercase().matches("is a directory").count(), 1, "{err}");
}

/// A reader that goes away (`zynq-net schema | head -1`) ends the tool
/// quietly with status 0, not with println!'s panic (exit 101 and a
/// backtrace). The schema is larger than a pipe's buffer, so the write
/// meets the closed pipe whenever the read end is dropped.
#[test]
fn a_closed_stdout_pipe_is_a_quiet_success() {
    for args in [&["schema"][..], &["rules"][..]] {
        let mut child = Command::new(bin())
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        drop(child.stdout.take());
        let o = child.wait_with_output().expect("wait");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// docs/board-format.md names every value of the board's enumerations
/// (`soc`, `kernel`, `arch`, `driver`) and every required key of the top
/// level, `board` and an interface, as the schema has them (`zynq-net
/// schema`): a value added to the model and not to the docs fails here.
#[test]
fn board_format_doc_lists_every_enum_value_and_required_key() {
    let o = run(&["schema"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let doc = fs::read_to_string(root().join("docs/board-format.md")).expect("docs/board-format.md");
    // where each list lives: the `board` section, the driver row of the
    // interface table, the "Required:" sentence
    let between = |from: &str, to: &str| {
        let a = doc.find(from).unwrap_or_else(|| panic!("docs/board-format.md: no {from:?}"));
        let b = doc[a..].find(to).unwrap_or_else(|| panic!("docs/board-format.md: no {to:?} after {from:?}"));
        doc[a..a + b].to_string()
    };
    let board = between("### `board`", "### `system`");
    let driver = between("| `driver` |", "\n");
    let required = between("Required: ", ".");
    let defs = &v["$defs"];
    let mut missing = Vec::new();
    for (e, text) in [("Soc", &board), ("KernelFlavour", &board), ("Arch", &board), ("Driver", &driver)] {
        let alts = defs[e]["oneOf"].as_array().unwrap_or_else(|| panic!("{e}: no oneOf"));
        assert!(alts.len() >= 3, "{e}: {alts:?}");
        for c in alts.iter().filter_map(|a| a["const"].as_str()) {
            if !text.contains(&format!("`{c}`")) {
                missing.push(format!("{e} value `{c}`"));
            }
        }
    }
    let keys = |req: &serde_json::Value| -> Vec<String> {
        req.as_array().expect("required").iter().filter_map(|k| k.as_str().map(str::to_string)).collect()
    };
    for (at, req, text) in [
        ("top level", keys(&v["required"]), &required),
        ("board", keys(&defs["BoardInfo"]["required"]), &board),
        ("interface", keys(&defs["Interface"]["required"]), &required),
    ] {
        for k in req {
            if !text.contains(&format!("`{k}`")) {
                missing.push(format!("{at} key `{k}`"));
            }
        }
    }
    assert!(missing.is_empty(), "docs/board-format.md does not name: {missing:?}");
}

/// docs/board-format.md's rule table is `zynq-net rules --markdown`, between
/// `<!-- rules:begin -->` and `<!-- rules:end -->` (UPDATE_GOLDEN=1 rewrites it).
#[test]
fn rule_table_in_the_docs_is_generated_from_the_rules() {
    let o = run(&["rules", "--markdown"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8(o.stdout).expect("utf-8");
    // one rule explained, as a diagnostic's id invites
    let o = run(&["rules", "ring-pow2"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        text.starts_with("error[ring-pow2]: gianfar ring sizes are powers of two\nsource: drivers/net/ethernet/freescale/gianfar_ethtool.c: gfar_sringparam\n"),
        "{text}"
    );
    assert_eq!(run(&["rules", "no-such-rule"]).status.code(), Some(2));
    // a misspelt or differently cased id: exit 2, naming the rule meant
    for (typed, meant) in [("sysctl-kye", "sysctl-key"), ("RING_POW2", "ring-pow2")] {
        let o = run(&["rules", typed]);
        assert_eq!(o.status.code(), Some(2), "{typed}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(&format!("no rule `{typed}`; did you mean `{meant}`?")), "{err}");
    }
    let err = String::from_utf8_lossy(&run(&["rules", "zzzzzzzzzzzz"]).stderr).to_string();
    assert!(!err.contains("did you mean"), "{err}");
    assert_eq!(table.lines().count(), Rule::ALL.len() + 2, "{table}");
    let path = root().join("docs/board-format.md");
    let doc = fs::read_to_string(&path).expect("docs/board-format.md");
    let (begin, end) = ("<!-- rules:begin -->\n", "<!-- rules:end -->");
    let a = doc.find(begin).expect("<!-- rules:begin --> in docs/board-format.md") + begin.len();
    let b = doc[a..].find(end).expect("<!-- rules:end --> after rules:begin") + a;
    if update_golden() {
        fs::write(&path, format!("{}{table}{}", &doc[..a], &doc[b..])).expect("write docs/board-format.md");
        return;
    }
    assert!(
        doc[a..b] == table,
        "docs/board-format.md's rule table differs from `zynq-net rules --markdown` (UPDATE_GOLDEN=1 cargo test -p zynq-net-cli --test cli to regenerate it)"
    );
}

/// A UTF-8 byte order mark (YAML 1.2 allows one at the start of a stream)
/// is not read as part of the first key; positions are unchanged.
#[test]
fn a_byte_order_mark_is_accepted() {
    let tmp = tempfile::tempdir().expect("tmp");
    let f = tmp.path().join("bom.yml");
    let mut text = "\u{feff}".to_string() + &fs::read_to_string(board("zcu102")).expect("board");
    fs::write(&f, &text).expect("write");
    let o = run(&["check", s(&f)]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    text = text.replacen("mtu: 9000", "mtu: 99999", 1);
    let line = text.lines().position(|l| l.contains("mtu: 99999")).expect("line") + 1;
    fs::write(&f, &text).expect("write");
    let err = String::from_utf8_lossy(&run(&["check", s(&f)]).stderr).into_owned();
    assert!(err.contains(&format!("bom.yml:{line}:10: MTU 99999")), "{err}");
}

/// A file stopped at the schema says the value checks are still to come;
/// a file that reached them does not (a user fixed the listed errors and
/// met new ones without warning).
#[test]
fn a_stage_that_stops_the_checks_says_so() {
    let tmp = tempfile::tempdir().expect("tmp");
    let text = std::fs::read_to_string(board("zcu102")).expect("zcu102");
    let note = "note: the value checks (ranges, driver and kernel limits, cross-references) run once these are fixed";
    // an unknown key: the schema stage stops
    let f = tmp.path().join("typo.yml");
    std::fs::write(&f, text.replacen("  mtu:", "  mtuu:", 1)).expect("write");
    let o = run(&["check", s(&f)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("error[unknown-key]") && err.contains(note), "{err}");
    // a value out of range: the value checks ran, no note
    let f = tmp.path().join("range.yml");
    std::fs::write(&f, text.replacen("    mtu: 9000", "    mtu: 99999", 1)).expect("write");
    let o = run(&["check", s(&f)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("error[") && !err.contains("note:"), "{err}");
}
