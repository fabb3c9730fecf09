//! End-to-end tests of the `zynq-net` binary: reference boards (golden
//! output), one failing fixture per validation rule, schema snapshot,
//! determinism, slicing and atomic output.
//!
//! Accept intended output changes with `UPDATE_GOLDEN=1 cargo test -p zynq-net-cli --test cli`
//! and review the diff of tests/golden/.

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
        if update {
            let _ = fs::remove_dir_all(&golden);
            for (rel, data) in &got {
                let p = golden.join(rel);
                fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
                fs::write(p, data).expect("write golden");
            }
            continue;
        }
        let want = tree(&golden);
        let names = |t: &[(String, Vec<u8>)]| t.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        assert_eq!(
            names(&got),
            names(&want),
            "{b}: artifact list differs from tests/golden/{b} (UPDATE_GOLDEN=1 to accept)"
        );
        for ((n, g), (_, w)) in got.iter().zip(&want) {
            assert!(g == w, "{b}: {n} differs from tests/golden/{b}/{n} (UPDATE_GOLDEN=1 cargo test -p zynq-net-cli --test cli to accept)\n--- got ---\n{}", String::from_utf8_lossy(g));
        }
    }
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

/// What a fixture expects: one `# expect: RULE-ID LINE:COL message` line
/// per diagnostic, at the top of the file.
struct Expect {
    rule: Rule,
    pos: String,
    msg: String,
}

/// The `# expect:` lines of a fixture, then its `# derived from:` line.
fn expectations(f: &Path, text: &str) -> (Vec<Expect>, String) {
    let mut lines = text.lines();
    let mut out = Vec::new();
    let mut next = lines.next().unwrap_or_default();
    while let Some(spec) = next.strip_prefix("# expect: ") {
        let mut it = spec.splitn(3, ' ');
        let (id, pos, msg) =
            (it.next().unwrap_or_default(), it.next().unwrap_or_default(), it.next().unwrap_or_default());
        let rule =
            Rule::from_id(id).unwrap_or_else(|| panic!("{}: `{id}` is not a rule id (zynq-net rules)", f.display()));
        assert!(
            pos.split_once(':').is_some_and(|(l, c)| l.parse::<usize>().is_ok() && c.parse::<usize>().is_ok()),
            "{}: `# expect: RULE-ID LINE:COL message`, got {spec:?}",
            f.display()
        );
        assert!(!msg.is_empty(), "{}: no message in {spec:?}", f.display());
        out.push(Expect { rule, pos: pos.to_string(), msg: msg.to_string() });
        next = lines.next().unwrap_or_default();
    }
    assert!(!out.is_empty(), "{}: no `# expect: RULE-ID LINE:COL message` line", f.display());
    let from = next
        .strip_prefix("# derived from: ")
        .unwrap_or_else(|| panic!("{}: the line after `# expect:` is `# derived from: BOARD`", f.display()));
    let named = from.split_whitespace().next().map(|b| b.trim_end_matches([',', ';']));
    if let Some(b) = named.filter(|b| b.starts_with("meta-zynq-net/boards/")) {
        assert!(root().join(b).is_file(), "{}: derived from {b}, which does not exist", f.display());
    }
    (out, from.to_string())
}

/// Runs `gen` on a failing input and checks every expectation: the
/// diagnostic `error[ID]: FILE:LINE:COL: ...message...` (or `warning[ID]`),
/// no error that is not expected, exit code 1 and nothing written when an
/// error is expected, else exit 0 and the output written.
fn check_expectations(f: &Path, expects: &[Expect]) {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("out");
    let o = gen(f, &out);
    let err = String::from_utf8_lossy(&o.stderr);
    let any_error = expects.iter().any(|e| e.rule.severity() == Severity::Error);
    assert_eq!(o.status.code(), Some(if any_error { 1 } else { 0 }), "{}: exit code; stderr:\n{err}", f.display());
    for e in expects {
        let kind = if e.rule.severity() == Severity::Error { "error" } else { "warning" };
        let want = format!("{kind}[{}]: {}:{}: ", e.rule.id(), f.display(), e.pos);
        assert!(
            err.lines().any(|l| l.starts_with(&want) && l[want.len()..].contains(&e.msg)),
            "{}: expected `{want}...{}...`; got:\n{err}",
            f.display(),
            e.msg
        );
    }
    // One fault planted: every error printed is one the fixture expects
    // (warnings of the base board may come along).
    for line in err.lines().filter(|l| l.starts_with("error[")) {
        assert!(
            expects.iter().any(|e| e.rule.severity() == Severity::Error
                && line.starts_with(&format!("error[{}]: {}:{}: ", e.rule.id(), f.display(), e.pos))
                && line.contains(&e.msg)),
            "{}: an error the fixture does not expect (add a `# expect:` line, or plant one fault only):\n{line}",
            f.display()
        );
    }
    assert!(err.contains("hint:"), "{}: no hint:\n{err}", f.display());
    assert_eq!(
        out.exists(),
        !any_error,
        "{}: output written for an invalid board, or not for a valid one",
        f.display()
    );
}

fn bad_fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bad");
    let mut entries: Vec<_> = fs::read_dir(&dir).expect("fixtures").map(|e| e.expect("entry").path()).collect();
    entries.sort();
    entries
}

/// One failing fixture per validation rule: `# expect: RULE-ID LINE:COL
/// message` on line 1 (several lines for several diagnostics), then
/// `# derived from: meta-zynq-net/boards/BOARD.yml` naming the reference
/// board the fault was planted in.
#[test]
fn each_bad_fixture_reports_its_rule_at_its_position() {
    let mut n = 0;
    for f in bad_fixtures() {
        let text = fs::read_to_string(&f).expect("fixture");
        let (expects, _) = expectations(&f, &text);
        check_expectations(&f, &expects);
        n += 1;
    }
    assert!(n >= 40, "only {n} fixtures found");
}

/// Inputs too large or not text, for the rules no fixture file can hold
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

/// Every rule of `Rule::ALL` has a failing fixture (or a generated input,
/// for sizes no fixture file should have) asserting its id and position.
#[test]
fn every_rule_has_a_failing_fixture() {
    let mut covered = std::collections::BTreeSet::new();
    for f in bad_fixtures() {
        let text = fs::read_to_string(&f).expect("fixture");
        covered.extend(expectations(&f, &text).0.into_iter().map(|e| e.rule));
    }
    let tmp = tempfile::tempdir().expect("tmp");
    for (rule, name, bytes, pos, msg) in generated_fixtures() {
        let f = tmp.path().join(name);
        fs::write(&f, bytes).expect("write");
        check_expectations(&f, &[Expect { rule, pos: pos.into(), msg: msg.into() }]);
        covered.insert(rule);
    }
    // internal-error: a zynq-net bug that no input should reach
    let missing: Vec<&str> =
        Rule::ALL.iter().filter(|r| !covered.contains(r) && **r != Rule::Internal).map(|r| r.id()).collect();
    assert!(missing.is_empty(), "rules without a failing fixture in tests/fixtures/bad: {}", missing.join(", "));
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
    let bad = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bad/skbedit-queue.yml");
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
/// a file that reached them does not (issue 16: a user fixed the listed
/// errors and met new ones without warning).
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
