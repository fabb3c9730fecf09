//! The `bench` and `lab` commands end to end, as the `zynq-net` binary runs
//! them (the binary itself, built by cargo for this test), with
//! the real iperf3, ip, tc and the applier (so that `cargo test`, and so
//! cargo-mutants, runs the command bodies of `rfc2544` and `ablate`, which
//! the Python tests of tests/bench alone would leave out of its reach):
//!
//! - `rfc2544` over loopback: the result, trials and plan it writes, the
//!   options it takes, its exit code when nothing is confirmed, its
//!   per-frame line on stderr; `compare` on two of its run directories;
//! - `run`'s summary line on stderr;
//! - `ablate`'s checks of its input: the matrix from `--bench` or the
//!   board, unknown `--cells`, a board without a `bench` section, a
//!   `--duration` under a second or not finite;
//! - `ablate` in a namespace lab (root): every variant measured with the
//!   plan `gen` makes for the board, applied by the applier in the lab's
//!   router, `--resume` on an empty directory and on a finished one (the
//!   seed kept), `--report-only` on a run whose numbers say a group hurts
//!   and whose one trial failed (exit 1, the suggested plan and board
//!   diff); `lab up`, `status` and `down`.
//!
//! Each command runs as a process of its own: its exit code, stdout and
//! stderr are what a user sees.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use zynq_net_bench::records::files;
use zynq_net_bench::targets::Targets;

/// `zynq-net KIND ARGS...` as a process: (exit code, stdout, stderr).
fn zynq_net(kind: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_zynq-net")).arg(kind).args(args).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// A command's exit code, or its error when it failed as a usage or input
/// error (exit 2, or exit 1 with diagnostics): stderr without the
/// `zynq-net: ` prefix.
fn status(kind: &str, args: &[&str]) -> Result<i32, String> {
    let (code, _, err) = zynq_net(kind, args);
    if code == 2 || (code == 1 && err.contains("error[")) {
        Err(err.strip_prefix("zynq-net: ").unwrap_or(&err).trim_end().to_string())
    } else {
        Ok(code)
    }
}

/// `zynq-net bench ARGS...`: see [`status`].
fn run_bench(args: &[&str]) -> Result<i32, String> {
    status("bench", args)
}

/// `zynq-net lab ARGS...`: see [`status`].
fn run_lab(args: &[&str]) -> Result<i32, String> {
    status("lab", args)
}

/// The error of a `bench` command that must fail.
fn bench_err(args: &[&str]) -> String {
    match run_bench(args) {
        Ok(code) => panic!("bench {args:?} exited {code}, expected an error"),
        Err(e) => e,
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn json(p: &Path) -> Value {
    let t = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&t).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn jsonl(p: &Path) -> Vec<Value> {
    let t = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    t.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// `zynq-net bench ARGS...`: (exit code, stdout, stderr).
fn bench_process(args: &[&str]) -> (i32, String, String) {
    zynq_net("bench", args)
}

/// A targets file of two local ends: the real iperf3 over loopback on a
/// free port, the client connecting to `server` (RFC 6761: a `.invalid`
/// name never resolves, so every trial fails).
fn loopback_targets(dir: &Path, server: &str) -> PathBuf {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let t = Targets::local(server, port);
    let f = dir.join(format!("targets-{server}.json"));
    t.save(&f).unwrap();
    f
}

/// The effective user is root (`Uid:` of /proc/self/status: real, effective, ...).
fn is_root() -> bool {
    let st = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    st.lines().find_map(|l| l.strip_prefix("Uid:")).and_then(|u| u.split_whitespace().nth(1)) == Some("0")
}

/// True, saying the test is skipped, when `tool` is not on PATH.
fn skip_without(tool: &str) -> bool {
    let missing = !have(tool);
    if missing {
        eprintln!("SKIPPED: {tool} is not installed (scripts/install-deps)");
    }
    missing
}

fn have(tool: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
}

/// A bench file (docs/bench.md) of one 1-second UDP cell; RFC 2544 frame
/// sizes and line rate at their defaults.
fn udp_bench_file(dir: &Path) -> PathBuf {
    let b = dir.join("bench.yml");
    std::fs::write(&b, "matrix: { protocols: [udp], directions: [tx], mtus: [1500], duration_s: 1, repeats: 1 }\n")
        .unwrap();
    b
}

/// `bench rfc2544 -q` at 1518 B over `targets` at `line_rate`: one search
/// trial and a confirmation of a second each, 50 % loss counted as zero
/// (loopback at 10 Mbit/s loses nothing; a loaded host must not make the
/// result depend on it).
fn rfc2544_args<'a>(plan: &'a str, targets: &'a str, out: &'a str, line_rate: &'a str) -> Vec<&'a str> {
    vec![
        "rfc2544",
        "-q",
        "-p",
        plan,
        "-t",
        targets,
        "-o",
        out,
        "--frame-sizes",
        "1518",
        "--line-rate",
        line_rate,
        "--trial-seconds",
        "1",
        "--confirm-seconds",
        "1",
        "--max-trials",
        "2",
        "--loss-tolerance",
        "50",
    ]
}

#[test]
fn rfc2544_writes_its_result_trials_and_plan_and_compare_reads_two_of_them() {
    if skip_without("iperf3") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let b = udp_bench_file(tmp.path());
    let t = loopback_targets(tmp.path(), "127.0.0.1");
    let (a, slow) = (tmp.path().join("a"), tmp.path().join("slow"));
    let mut args = rfc2544_args(s(&b), s(&t), s(&a), "10M");
    args.retain(|x| *x != "-q");
    let (code, _, err) = bench_process(&args);
    assert_eq!(code, 0, "confirmed: exit 0\n{err}");
    // Without -q, a line per frame size on stderr.
    let line = err.lines().find(|l| l.trim_start().starts_with("1518 B:")).unwrap_or_else(|| panic!("{err}"));
    assert!(
        line.contains(" frames/s ")
            && line.contains("1 search trial")
            && !line.contains("1 search trials")
            && !line.contains("NOT"),
        "{line}"
    );
    assert!(err.contains(&format!("RFC 2544-style result in {}", a.join(files::RFC2544).display())), "{err}");
    let (code, _, err) = bench_process(&rfc2544_args(s(&b), s(&t), s(&slow), "5M"));
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("1518 B:"), "-q: no line per frame size\n{err}");
    let res = json(&a.join(files::RFC2544));
    // The options given, not the bench file's defaults (frame sizes 64..1518 at 1 Gbit/s).
    assert_eq!(res["line_rate_bps"], 10e6);
    let set = &res["settings"];
    assert_eq!(
        (&set["trial_seconds"], &set["confirm_seconds"], &set["max_trials"], &set["loss_tolerance_percent"]),
        (&Value::from(1.0), &Value::from(1.0), &Value::from(2), &Value::from(50.0)),
        "{set}"
    );
    let frames = res["frames"].as_array().unwrap();
    assert_eq!(frames.iter().map(|f| f["frame_size"].as_u64().unwrap()).collect::<Vec<_>>(), [1518], "{res}");
    let f = &frames[0];
    let max_fps = 10e6 / (8.0 * (1518.0 + 20.0));
    assert_eq!(f["confirmed"], true, "{f}");
    let fps = f["fps"].as_f64().unwrap();
    assert!(fps > 0.5 * max_fps && fps <= max_fps * 1.001, "{fps} frames/s at 10 Mbit/s: {f}");
    // Every trial of the search and the confirmation is a line of the trials file.
    let trials = jsonl(&a.join(files::RFC2544_TRIALS));
    assert_eq!(trials.len(), f["steps"].as_array().unwrap().len(), "{f}");
    assert!(trials.iter().all(|r| r["cell"] == "rfc2544-1518" && r["error"].is_null()), "{trials:?}");
    // The run directory records the plan it ran, with the options in its spec.
    let plan = zynq_net_bench::plan::Plan::load(&a.join(files::PLAN)).unwrap();
    assert_eq!((plan.spec.frame_sizes.as_slice(), plan.spec.line_rate.0), (&[1518][..], 10e6));
    // Half the line rate: half the frame rate, which compare calls worse
    // (exit 1 only with --fail-on-worse); the other way round, better.
    let slow_fps = json(&slow.join(files::RFC2544))["frames"][0]["fps"].as_f64().unwrap();
    assert!(slow_fps < 0.6 * fps, "{slow_fps} at 5M vs {fps} at 10M");
    let cmp = tmp.path().join("cmp");
    assert_eq!(run_bench(&["compare", s(&a), s(&slow), "-o", s(&cmp), "--fail-on-worse"]).unwrap(), 1);
    let c = json(&cmp.join("compare.json"));
    assert_eq!((c["cells"].as_array().map(Vec::len), &c["frames"][0]["verdict"]), (Some(0), &Value::from("worse")));
    assert_eq!(run_bench(&["compare", s(&a), s(&slow)]).unwrap(), 0, "worse, not asked to fail");
    assert_eq!(run_bench(&["compare", s(&slow), s(&a), "-o", s(&cmp), "--fail-on-worse"]).unwrap(), 0);
    assert_eq!(json(&cmp.join("compare.json"))["frames"][0]["verdict"], "better");
    // What each run measured (image.json, as scripts/zynq-net-farm writes
    // it): the same image compares; another plan is refused (exit 2, the
    // difference and the override named, nothing written) unless asked;
    // one run without a record is refused the same way.
    let image = |plan: &str| {
        format!(
            r#"{{"format": "zynq-net-image 1", "board": "p1020_qemu", "kernel_release": "6.12.57", "plan_sha256": "{plan}"}}"#
        )
    };
    std::fs::write(a.join("image.json"), image("aa")).unwrap();
    let e = run_bench(&["compare", s(&a), s(&slow)]).unwrap_err();
    assert!(e.contains("B (") && e.contains("has no image.json") && e.contains("--allow-different-images"), "{e}");
    std::fs::write(slow.join("image.json"), image("aa")).unwrap();
    assert_eq!(run_bench(&["compare", s(&a), s(&slow), "--fail-on-worse"]).unwrap(), 1, "same image: compared");
    std::fs::write(slow.join("image.json"), image("bb")).unwrap();
    let cmp2 = tmp.path().join("cmp2");
    let e = run_bench(&["compare", s(&a), s(&slow), "-o", s(&cmp2), "--fail-on-worse"]).unwrap_err();
    assert!(e.starts_with("not comparing ") && e.contains("plan_sha256: A aa, B bb"), "{e}");
    assert!(!cmp2.exists(), "a refused comparison writes nothing");
    let (code, out, err) = bench_process(&["compare", s(&a), s(&slow), "-o", s(&cmp2), "--allow-different-images"]);
    assert_eq!(code, 0, "{err}");
    let note = "different images, compared as asked: plan_sha256: A aa, B bb";
    assert!(err.contains(note) && out.starts_with(&format!("> {note}")), "{out}\n{err}");
    assert!(std::fs::read_to_string(cmp2.join("compare.md")).unwrap().starts_with(&format!("> {note}")));
    // compare.json carries the same notes; the same image has none.
    assert_eq!(json(&cmp2.join("compare.json"))["notes"], serde_json::json!([note]));
    assert_eq!(json(&cmp.join("compare.json"))["notes"], serde_json::json!([]));
}

#[test]
fn rfc2544_exits_1_when_no_rate_is_confirmed_and_refuses_bad_input() {
    if skip_without("iperf3") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let b = udp_bench_file(tmp.path());
    // No trial gets through (the name does not resolve, which the client
    // does not retry; the server is ended 3 s later): nothing to confirm.
    let bad = loopback_targets(tmp.path(), "zn-bench.invalid");
    let x = tmp.path().join("x");
    let mut args = rfc2544_args(s(&b), s(&bad), s(&x), "10M");
    let i = args.iter().position(|a| *a == "--max-trials").unwrap();
    args[i + 1] = "1";
    assert_eq!(run_bench(&args).unwrap(), 1);
    let f = &json(&x.join(files::RFC2544))["frames"][0];
    assert_eq!(
        (&f["confirmed"], &f["fps"], &f["search_trials"]),
        (&Value::from(false), &Value::from(0.0), &Value::from(1))
    );
    let trials = jsonl(&x.join(files::RFC2544_TRIALS));
    assert!(trials.len() == 1 && trials[0]["error"].is_string(), "{trials:?}");
    // Not quiet, the run says why the trial failed (it was only in the
    // trials file) and counts one search trial in the singular.
    let loud = tmp.path().join("loud");
    args.retain(|a| *a != "-q");
    let o = args.iter().position(|a| *a == "-o").unwrap();
    args[o + 1] = s(&loud);
    let (code, _, err) = bench_process(&args);
    assert_eq!(code, 1, "{err}");
    let e = jsonl(&loud.join(files::RFC2544_TRIALS))[0]["error"].as_str().unwrap().to_string();
    assert!(err.contains(&format!("1518 B trial 1: FAILED: {e}")), "{err}");
    assert!(err.contains("of line rate, 1 search trial, NOT confirmed"), "{err}");
    // Bad input is an error naming the option and the file's key, in the
    // model's words (the same check as a bench file's), every problem at once.
    let e = bench_err(&[
        "rfc2544",
        "-p",
        s(&b),
        "-t",
        s(&bad),
        "-o",
        s(&x),
        "--frame-sizes",
        "32,64,64",
        "--resolution",
        "60",
    ]);
    for want in [
        "--frame-sizes: frame size 32 outside 64..9018 (the file's rfc2544.frame_sizes)",
        "--frame-sizes: `64` is listed twice (the file's rfc2544.frame_sizes)",
        "--resolution: 60 is outside (0, 50) percent (the file's rfc2544.resolution_pct)",
    ] {
        assert!(e.contains(want), "{want} in {e}");
    }
}

#[test]
fn run_says_how_many_trials_failed_and_were_cpu_bound() {
    if skip_without("iperf3") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let b = udp_bench_file(tmp.path());
    let t = loopback_targets(tmp.path(), "127.0.0.1");
    let r = tmp.path().join("run");
    let (code, _, err) = bench_process(&["run", "-q", "-p", s(&b), "-t", s(&t), "-o", s(&r)]);
    assert_eq!(code, 0, "{err}");
    let recs = jsonl(&r.join(files::RESULTS));
    assert!(recs.len() == 1 && recs[0]["error"].is_null(), "{recs:?}");
    let bound = recs.iter().filter(|x| x["cpu_bound"].as_array().is_some_and(|v| !v.is_empty())).count();
    let want = format!("1 trials in {} (0 failed, {bound} CPU-bound)", r.join(files::RESULTS).display());
    assert!(err.contains(&want), "`{want}` in\n{err}");
    // A failed trial is not counted CPU-bound, though its cores were
    // sampled busy (every core is past a 0.001 % bound); before, a run of 16
    // failed trials said "(16 failed, 10 CPU-bound)".
    let zero = tmp.path().join("zero.yml");
    std::fs::write(
        &zero,
        "matrix: { protocols: [udp], directions: [tx], mtus: [1500], duration_s: 1, repeats: 1, cpu_bound_pct: 0.001 }\n",
    )
    .unwrap();
    let unreachable = loopback_targets(tmp.path(), "zn-bench.invalid");
    let r = tmp.path().join("failed");
    let (code, _, err) = bench_process(&["run", "-q", "-p", s(&zero), "-t", s(&unreachable), "-o", s(&r)]);
    assert_eq!(code, 1, "{err}");
    let recs = jsonl(&r.join(files::RESULTS));
    assert!(recs.len() == 1 && !recs[0]["error"].is_null(), "{recs:?}");
    assert!(recs[0]["cpu_bound"].as_array().is_some_and(|v| !v.is_empty()), "sampled busy: {recs:?}");
    let want = format!("1 trials in {} (1 failed, 0 CPU-bound)", r.join(files::RESULTS).display());
    assert!(err.contains(&want), "`{want}` in\n{err}");
}

/// A board (format of meta-zynq-net/boards, as tests/bench/boards/lab-noise.yml)
/// for the lab: its plan sets a per-namespace sysctl and veth offloads to
/// the values a fresh namespace has (nothing on the host changes); its
/// bench section has two TCP cells (left out unless `with_bench`).
fn lab_board(dir: &Path, with_bench: bool) -> PathBuf {
    let mut text = String::from(
        "version: 1\nboard:\n  name: cli-lab\n  soc: generic\n  cpus: 2\n  machine: qemux86-64\n  kernel: mainline\n  arch: x86_64\n\
         system:\n  sysctl:\n    net.ipv4.tcp_notsent_lowat: 4294967295\n\
         interfaces:\n  - name: eth0\n    driver: veth\n    queues: { rx: 2, tx: 2 }\n    offloads: { tso: on, gso: on }\n",
    );
    if with_bench {
        text.push_str(
            "bench:\n  dut: { address: 10.201.47.1, iface: eth0 }\n  peers:\n    - { name: client, address: 10.201.46.2 }\n\
             \x20 matrix:\n    protocols: [tcp]\n    directions: [tx, rx]\n    mtus: [1500]\n    streams: [1]\n    duration_s: 2\n    repeats: 2\n",
        );
    }
    let p = dir.join(if with_bench { "cli-lab.yml" } else { "cli-lab-nobench.yml" });
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn ablate_takes_the_matrix_from_the_bench_file_or_the_board_and_names_unknown_cells() {
    let tmp = tempfile::tempdir().unwrap();
    let board = lab_board(tmp.path(), true);
    let bare = lab_board(tmp.path(), false);
    let bf = udp_bench_file(tmp.path());
    let out = tmp.path().join("out");
    // A lab that is not up: a command that gets past its checks stops at the targets.
    let ablate = |board: &Path, extra: &[&str]| {
        let mut args = vec!["ablate", s(board), "--lab", "zn-nolab", "-o", s(&out)];
        args.extend_from_slice(extra);
        bench_err(&args)
    };
    assert_eq!(
        ablate(&board, &["--cells", "nosuch,tcp-rx-mtu1500-p1,other"]),
        "--cells: unknown cell(s) nosuch, other; the matrix has: tcp-tx-mtu1500-p1, tcp-rx-mtu1500-p1"
    );
    // --bench: its matrix, not the board's (and a board without one will do).
    for b in [&board, &bare] {
        assert_eq!(
            ablate(b, &["--bench", s(&bf), "--cells", "tcp-tx-mtu1500-p1"]),
            "--cells: unknown cell(s) tcp-tx-mtu1500-p1; the matrix has: udp-tx-mtu1500-p1"
        );
    }
    let e = ablate(&bare, &[]);
    assert!(e.contains("cli-lab-nobench.yml: the board has no `bench` section"), "{e}");
    // Known cells pass; the targets are next.
    let e = ablate(&board, &["--cells", "tcp-rx-mtu1500-p1"]);
    assert!(e.contains("no lab `zn-nolab` is up"), "{e}");
    assert!(!out.exists(), "nothing written before the run starts");
    let e = format!("{:#}", run_lab(&["status", "--name", "zn-nolab"]).unwrap_err());
    assert!(e.contains("/run/zynq-net/lab-zn-nolab.json"), "{e}");
}

/// `bench rfc2544` checks its options, every problem at once, before it
/// looks for the lab: a user fixing the command line need not bring a lab
/// up to learn the options were out of range; the lab comes next.
#[test]
fn rfc2544_checks_its_options_before_the_lab() {
    let tmp = tempfile::tempdir().unwrap();
    let b = udp_bench_file(tmp.path());
    let out = tmp.path().join("out");
    let rfc = |extra: &[&str]| {
        let mut args = vec!["rfc2544", "-p", s(&b), "--lab", "zn-nolab", "-o", s(&out)];
        args.extend_from_slice(extra);
        bench_err(&args)
    };
    let e = rfc(&["--frame-sizes", "32,64", "--resolution", "60", "--loss-tolerance", "200"]);
    assert!(e.contains("--frame-sizes: frame size 32 outside 64..9018"), "{e}");
    assert!(e.contains("--resolution: 60 is outside (0, 50) percent"), "{e}");
    assert!(e.contains("--loss-tolerance"), "{e}");
    assert!(!e.contains("no lab"), "the options come first: {e}");
    let e = rfc(&["--frame-sizes", "64"]);
    assert!(e.contains("no lab `zn-nolab` is up"), "{e}");
    assert!(!out.exists(), "nothing written");
}

/// `lab down` of a lab that is not there says so on stderr and succeeds
/// (teardown is idempotent: scripts and CI traps run it either way); an
/// invalid name is still a usage error.
#[test]
fn lab_down_of_no_lab_is_a_note_and_success() {
    let (code, out, err) = zynq_net("lab", &["down", "--name", "zn-nolab"]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert_eq!(
        err,
        "lab down: no lab `zn-nolab` is up (no /run/zynq-net/lab-zn-nolab.json, no namespace zn-nolab-client, \
         zn-nolab-router or zn-nolab-server): nothing to do\n"
    );
    let e = format!("{:#}", run_lab(&["down", "--name", "Bad Name"]).unwrap_err());
    assert!(e.contains("lab name `Bad Name`: 1-12 characters of [a-z0-9-]"), "{e}");
}

/// Trial seconds on the command line are whole seconds, 1 to 86400, as
/// the file's `duration_s`, `trial_s` and `confirm_s`: iperf3 reads `-t`
/// as a whole number (3.12 runs `-t 1.5` for 1 s), so a fraction is
/// refused, not silently shortened.
#[test]
fn trial_seconds_are_whole_seconds_from_1_to_86400() {
    let parse = |d: &str| bench_err(&["ablate", "zn-no-board.yml", "-o", "zn-no-out", &format!("--duration={d}")]);
    for d in ["1", "30", "86400"] {
        // taken: the board is read next
        let e = parse(d);
        assert!(e.contains("zn-no-board.yml") && !e.contains("seconds"), "{d}: {e}");
    }
    let refused = |e: &str, d: &str| e.contains(&format!("`{d}` is not a whole number of seconds from 1 to 86400"));
    for d in ["1.5", "2.5", "0.5", "0", "-3", "86401", "inf", "NaN", "1s"] {
        let e = parse(d);
        assert!(refused(&e, d), "{d}: {e}");
    }
    for flag in ["--trial-seconds", "--confirm-seconds"] {
        let e = bench_err(&["rfc2544", "-p", "zn-no-plan.json", "-o", "zn-no-out", flag, "1.5"]);
        assert!(refused(&e, "1.5") && e.contains(flag), "{flag}: {e}");
        let e = bench_err(&["rfc2544", "-p", "zn-no-plan.json", "-o", "zn-no-out", flag, "2"]);
        assert!(e.contains("zn-no-plan.json") && !e.contains("seconds"), "{flag} 2 is taken: {e}");
    }
    let e = bench_err(&["plan", "zn-no-board.yml", "--duration", "1.5"]);
    assert!(refused(&e, "1.5"), "{e}");
}

/// Takes a lab down when dropped (a failed assertion included).
struct LabDown(String);

impl Drop for LabDown {
    fn drop(&mut self) {
        let _ = zynq_net_bench::lab::down(&self.0);
    }
}

/// `rfc2544-tester`: `--pdr ''` is "no PDR" (it was a float parse error),
/// and a lab that is not up is found before the calibration runs or the
/// run directory is made.
#[test]
fn rfc2544_tester_takes_no_pdr_and_checks_the_lab_first() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t");
    let e = bench_err(&["rfc2544-tester", "--lab", "zn-nolab", "--pdr", "", "-o", s(&out)]);
    assert!(e.contains("no lab `zn-nolab` is up"), "{e}");
    assert!(!out.exists(), "nothing written before the lab is found");
    let e = bench_err(&["rfc2544-tester", "--lab", "zn-nolab", "--pdr", "0.1,x", "-o", s(&out)]);
    assert!(e.contains("`x` is not a percentage"), "{e}");
}

/// A negative number given to `rfc2544-tester` reaches the checks (clap
/// called `-5` an unexpected argument); a whole number the flag's type
/// cannot hold is refused with the key's own limits (clap said `not in
/// 0..=4294967295`); `--line-rate` under a whole Mbit/s says how the
/// bit/s it was given became the file's 0 Mbit/s.
#[test]
fn rfc2544_tester_numbers_out_of_reach_are_named_with_the_keys_limits() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t");
    let tester = |extra: &[&str]| {
        let mut a = vec!["rfc2544-tester", "--lab", "zn-nolab", "-o", s(&out)];
        a.extend_from_slice(extra);
        bench_err(&a)
    };
    let e = tester(&["--trial-seconds", "-5", "--pdr", "-1", "--line-rate", "500k"]);
    for want in [
        "--trial-seconds: -5 is outside (0, 86400] seconds",
        "--pdr: -1 is outside (0, 100) percent",
        "--line-rate 500000 bit/s, 0 in whole Mbit/s: 0 is less than the minimum of 1; expected: Line rate in Mbit/s: the 100 % mark and the searches' top, 1 to 1600000 (1.6 Tbit/s, the fastest Ethernet, IEEE 802.3dj) (in a bench file: tester.line_rate_mbps)",
    ] {
        assert!(e.contains(want), "{want} missing from:\n{e}");
    }
    assert_eq!(e.lines().count(), 3, "{e}");
    let e = tester(&["--flows", "-1"]);
    assert!(
        e.contains("invalid value '-1' for '--flows <FLOWS>': -1 is negative; expected: Flows per port, 1 to 4096"),
        "{e}"
    );
    let e = tester(&["--frame-sizes", "64,99999999999"]);
    assert!(
        e.contains("'99999999999' for '--frame-sizes <FRAME_SIZES>': 99999999999 is more than this flag can hold (4294967295); expected: Frame sizes in bytes, FCS included, 64 to 2048"),
        "{e}"
    );
    let e = tester(&["--line-rate", "2T"]);
    assert!(
        e.contains(
            "--line-rate 2000000000000 bit/s, 2000000 in whole Mbit/s: 2000000 is greater than the maximum of 1600000"
        ),
        "{e}"
    );
    for pdr in ["0.1,,1", ","] {
        let e = tester(&["--pdr", pdr]);
        assert!(e.contains("--pdr: an empty value in a list of "), "{pdr}: {e}");
    }
    let e = tester(&["--calibrate-frames", "1e3"]);
    assert!(
        e.contains("`1e3` is not a whole number; expected: Frames per direction of the port-to-port calibration"),
        "{e}"
    );
    assert!(!out.exists());
}

/// `rfc2544-tester`'s flags get the checks of the bench file's `tester`
/// section (its ranges, rule bench-tester-range), each problem named by
/// its flag, all at once, before the lab is looked at; a flag left alone
/// keeps the file's value, which the file's own checks passed.
#[test]
fn rfc2544_tester_flags_get_the_bench_files_checks_named_by_the_flag() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t");
    let e = bench_err(&[
        "rfc2544-tester",
        "--lab",
        "zn-nolab",
        "-o",
        s(&out),
        "--frame-sizes",
        "32,64",
        "--max-trials",
        "0",
        "--b2b-max-frames",
        "0",
        "--b2b-repeats",
        "0",
        "--drain",
        "inf",
    ]);
    for want in [
        "--frame-sizes: frame size 32 outside 64..2048 bytes; the tester builds frames of 64 to 2048 bytes",
        "--max-trials: 0 is less than the minimum of 1",
        "--b2b-max-frames: 0 is less than the minimum of 1",
        "--b2b-repeats: 0 is less than the minimum of 1",
        "--drain: NaN or infinity: not a finite number",
    ] {
        assert!(e.contains(want), "{want} missing from:\n{e}");
    }
    assert!(!e.contains("no lab") && !out.exists(), "{e}");
    let bench = tmp.path().join("bench.yml");
    std::fs::write(&bench, "tester:\n  latency_s: 60\n  tests: [throughput, latency]\n").unwrap();
    let e = bench_err(&[
        "rfc2544-tester",
        "--lab",
        "zn-nolab",
        "-o",
        s(&out),
        "--bench",
        s(&bench),
        "--latency-probe-rate",
        "1000",
    ]);
    assert!(
        e.contains("--latency-probe-rate: 1000 probes/s over half of a 60 s trial is 30000 probes, above the tester's 20000; lower --latency-probe-rate or --latency-seconds"),
        "{e}"
    );
}

/// `bench plan -` reads the bench file from standard input, as `check -`
/// and `gen -` read a board (it was `cannot read -`), named `<stdin>` in
/// its diagnostics.
#[test]
fn bench_plan_reads_standard_input_for_dash() {
    use std::io::Write;
    let plan = |text: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_zynq-net"))
            .args(["bench", "plan", "-"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
        let o = child.wait_with_output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, out, err) = plan("matrix:\n  protocols: [udp]\n  directions: [tx]\n  mtus: [1500]\n  duration_s: 2\n");
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("udp-tx-mtu1500-p1"), "{out}");
    let (code, _, err) = plan("matrix:\n  duration_s: 0\n");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("<stdin>:2:15"), "{err}");
}

/// `lab up` refuses bad options before it creates anything, and a lab
/// whose --targets-out cannot be written is taken down again.
#[test]
fn lab_up_checks_first_and_leaves_nothing_behind() {
    let name = format!("zv{}", std::process::id() % 100_000);
    let ns = |role: &str| Path::new("/run/netns").join(format!("{name}-{role}"));
    let up_err = |extra: &[&str]| {
        let mut args = vec!["up", "--name", name.as_str(), "--subnet", "48"];
        args.extend_from_slice(extra);
        format!("{:#}", run_lab(&args).unwrap_err())
    };
    let e = up_err(&["--mtu", "67"]);
    assert!(e.contains("--mtu 67: a veth takes 68 to 65535"), "{e}");
    let e = up_err(&["--mtu", "65536"]);
    assert!(e.contains("--mtu 65536"), "{e}");
    let e = up_err(&["--shape", "0"]);
    assert!(e.contains("--shape 0: expected a rate of at least 8 bit/s"), "{e}");
    let e = up_err(&["--plan", "/nonexistent/zynq-net.plan"]);
    assert!(e.contains("--plan /nonexistent/zynq-net.plan: not a readable file"), "{e}");
    // a readable plan (only its being a file is checked before the build)
    // with an applier that is not there
    let plan = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let e = up_err(&["--plan", plan, "--applier", "/nonexistent/zynq-net-apply"]);
    assert!(e.contains("applier /nonexistent/zynq-net-apply: not a readable file"), "{e}");
    // --applier and --veth-ident act on --plan: without one they are usage
    // errors (clap's), not silently ignored.
    for flag in [["--applier", "/usr/bin/zynq-net-apply"].as_slice(), &["--veth-ident"]] {
        let e = up_err(flag);
        assert!(e.contains("the following required arguments were not provided:\n  --plan <PLAN>"), "{e}");
        assert!(e.contains(flag[0]), "{e}");
    }
    let e = up_err(&["--targets-out", "/nonexistent-dir/targets.json"]);
    assert!(
        e.contains("--targets-out /nonexistent-dir/targets.json: expected a file path in an existing directory"),
        "{e}"
    );
    let e = up_err(&["--targets-out", "/tmp"]);
    assert!(e.contains("--targets-out /tmp: expected a file path"), "{e}");
    // a file that is not a targets file is kept, not replaced by one
    let kept = std::env::temp_dir().join(format!("zn-bench-{name}.yml"));
    std::fs::write(&kept, "matrix: { repeats: 1 }\n").unwrap();
    let e = up_err(&["--targets-out", kept.to_str().unwrap()]);
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "matrix: { repeats: 1 }\n");
    std::fs::remove_file(&kept).unwrap();
    assert!(e.contains("exists and is not a targets file; only a targets file is replaced"), "{e}");
    assert!(!ns("router").exists(), "nothing created before the checks");
    let e = format!("{:#}", run_lab(&["status", "--name", &name]).unwrap_err());
    assert!(e.contains(&format!("no lab `{name}` is up")), "{e}");
    if !is_root() || !have("ip") {
        eprintln!("SKIPPED (the --targets-out half): the namespace lab needs root and ip (CI runs as root)");
        return;
    }
    let _down = LabDown(name.clone());
    // The edges pass: 68 and 65535 are a veth's own bounds.
    // /proc exists (the early check passes) but takes no new file
    let e = up_err(&["--mtu", "68", "--targets-out", "/proc/zynq-net-targets.json"]);
    assert!(e.contains("(the lab was taken down again)"), "{e}");
    for role in ["client", "router", "server"] {
        assert!(!ns(role).exists(), "{role} namespace left behind: {e}");
    }
    assert!(!zynq_net_bench::lab::state_path(&name).exists());
}

#[test]
fn ablate_in_a_namespace_lab_measures_resumes_and_reports() {
    if !is_root() {
        eprintln!("SKIPPED: the namespace lab needs root (CI runs as root)");
        return;
    }
    if let Some(t) = ["iperf3", "ip", "tc"].into_iter().find(|t| !have(t)) {
        eprintln!("SKIPPED: {t} is not installed (scripts/install-deps)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let board = lab_board(tmp.path(), true);
    let name = format!("zc{}", std::process::id() % 100_000);
    let _down = LabDown(name.clone());
    assert_eq!(run_lab(&["up", "--name", &name, "--subnet", "46"]).unwrap(), 0);
    assert_eq!(run_lab(&["status", "--name", &name]).unwrap(), 0);
    let applier = Path::new(env!("CARGO_MANIFEST_DIR")).join("../zynq-net-render/assets/zynq-net-apply.sh");
    let out = tmp.path().join("ablate");
    let ablate = |extra: &[&str]| {
        let mut args = vec!["ablate", s(&board), "--lab", &name, "--applier", s(&applier), "--groups", "sysctl"];
        args.extend(["--cells", "tcp-tx-mtu1500-p1", "--repeats", "2", "--duration", "1", "-q", "-o", s(&out)]);
        args.extend_from_slice(extra);
        run_bench(&args)
    };
    // --resume on a directory with nothing to resume starts the run.
    assert_eq!(ablate(&["--resume"]).unwrap(), 0);
    let design = json(&out.join("ablate.json"));
    let cells: Vec<&str> = design["cells"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(cells, ["tcp-tx-mtu1500-p1"]);
    assert_eq!((&design["dut_role"], &design["rounds"]), (&Value::from("dut"), &Value::from(2)));
    assert_eq!(design["board_file"], s(&board));
    let setup = design["setup"].as_str().unwrap();
    assert!(setup.contains(&format!("plan applied on the dut (netns:{name}-router)")), "{setup}");
    // The plan is the one gen makes for the board.
    let full = std::fs::read_to_string(out.join("plans/full.plan")).unwrap();
    assert!(full.contains("\nsysctl net.ipv4.tcp_notsent_lowat 4294967295\n"), "{full}");
    let trials = jsonl(&out.join("ablate-trials.jsonl"));
    let mut seen: Vec<(u64, &str)> =
        trials.iter().map(|t| (t["round"].as_u64().unwrap(), t["variant"].as_str().unwrap())).collect();
    seen.sort_unstable();
    let want: Vec<(u64, &str)> =
        (0..2).flat_map(|r| [(r, "full"), (r, "untuned"), (r, "without-sysctl")]).collect::<Vec<_>>();
    assert_eq!(seen, want);
    for t in &trials {
        assert!(t["record"]["error"].is_null() && t["record"]["throughput_bps"].as_f64().unwrap() > 0.0, "{t}");
    }
    let rep = json(&out.join("ablate-report.json"));
    assert_eq!((&rep["trials"], &rep["failed"]), (&Value::from(6), &Value::from(0)));
    assert!(out.join("ablate.md").is_file() && out.join("ablate.html").is_file());
    // Resumed without --seed: the run's own seed, nothing measured again.
    let seed = design["seed"].as_u64().unwrap();
    assert_eq!(ablate(&["--resume"]).unwrap(), 0);
    assert_eq!(json(&out.join("ablate.json"))["seed"], seed);
    assert_eq!(jsonl(&out.join("ablate-trials.jsonl")), trials);
    // --seed is the design's seed: the same one resumes, another is refused.
    assert_eq!(ablate(&["--resume", "--seed", &seed.to_string()]).unwrap(), 0);
    let other = (seed ^ 1).to_string();
    let e = format!("{:#}", ablate(&["--resume", "--seed", &other]).unwrap_err());
    assert!(e.contains("--resume with a different plan, groups, cells, repeats or seed"), "{e}");
    assert_eq!(jsonl(&out.join("ablate-trials.jsonl")), trials);
    // --report-only on the same design whose numbers say the sysctl group
    // hurts (the plan without it twice as fast in both rounds) and whose
    // one trial failed: exit 1, and the plan and board without the group.
    let hurt = tmp.path().join("hurt");
    std::fs::create_dir_all(&hurt).unwrap();
    std::fs::copy(out.join("ablate.json"), hurt.join("ablate.json")).unwrap();
    let mut lines = String::new();
    for mut t in trials.clone() {
        let base = 1e9 * (1.0 + 0.001 * t["round"].as_f64().unwrap());
        let v = t["variant"].as_str().unwrap().to_string();
        t["record"]["throughput_bps"] = Value::from(if v == "without-sysctl" { 2.0 * base } else { base });
        if v == "untuned" && t["round"] == 1 {
            t["record"]["error"] = Value::from("iperf3: planted failure");
        }
        lines.push_str(&format!("{t}\n"));
    }
    std::fs::write(hurt.join("ablate-trials.jsonl"), lines).unwrap();
    assert_eq!(run_bench(&["ablate", s(&board), "-o", s(&hurt), "--report-only"]).unwrap(), 1);
    let rep = json(&hurt.join("ablate-report.json"));
    assert_eq!((&rep["failed"], &rep["suggestion"]["remove"]), (&Value::from(1), &serde_json::json!(["sysctl"])));
    let plan = std::fs::read_to_string(hurt.join("suggested.plan")).unwrap();
    assert!(plan.contains("\noffload eth0 tso on\n") && !plan.contains("tcp_notsent_lowat"), "{plan}");
    let diff = std::fs::read_to_string(hurt.join("suggested-board.diff")).unwrap();
    assert!(diff.contains("\n-    net.ipv4.tcp_notsent_lowat: 4294967295\n"), "{diff}");
    // The lab goes: its namespaces and state file with it.
    assert_eq!(run_lab(&["down", "--name", &name]).unwrap(), 0);
    let [c, r, sv] = zynq_net_bench::lab::namespaces(&name);
    for ns in [c, r, sv] {
        assert!(!Path::new("/run/netns").join(&ns).exists(), "{ns}");
    }
    assert!(run_lab(&["status", "--name", &name]).is_err(), "status of a lab that is down");
}

/// A run that cannot reach its targets (here a network namespace that does
/// not exist: `ip netns exec` fails at once) leaves the results of the run
/// before it alone: `run` its results.jsonl and `rfc2544` its trials, and
/// neither writes a plan (the new-user trial lost a whole run's results to
/// a mistyped ssh host: they were deleted before the targets were asked).
#[test]
fn unreachable_targets_leave_the_earlier_results_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let b = udp_bench_file(tmp.path());
    let mut t = Targets::local("127.0.0.1", 5201);
    t.client.host = zynq_net_bench::exec::Host::Netns { name: "zn-no-such-netns".into() };
    let tf = tmp.path().join("targets.json");
    t.save(&tf).unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let (results, trials) = (out.join(files::RESULTS), out.join(files::RFC2544_TRIALS));
    std::fs::write(&results, "earlier results\n").unwrap();
    std::fs::write(&trials, "earlier trials\n").unwrap();
    let e = format!("{:#}", run_bench(&["run", "-q", "-p", s(&b), "-t", s(&tf), "-o", s(&out)]).unwrap_err());
    assert!(e.contains("zn-no-such-netns"), "{e}");
    let e = format!("{:#}", run_bench(&rfc2544_args(s(&b), s(&tf), s(&out), "10M")).unwrap_err());
    assert!(e.contains("zn-no-such-netns"), "{e}");
    assert_eq!(std::fs::read_to_string(&results).unwrap(), "earlier results\n");
    assert_eq!(std::fs::read_to_string(&trials).unwrap(), "earlier trials\n");
    assert!(!out.join(files::PLAN).exists());
}

/// `bench run` and `bench rfc2544` whose stderr is a closed pipe
/// (`... 2>&1 | head -1`): no panic (exit 101), every trial in
/// results.jsonl and a complete rfc2544.json.
#[test]
fn a_closed_stderr_pipe_loses_no_result() {
    if skip_without("iperf3") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let b = tmp.path().join("bench.yml");
    std::fs::write(&b, "matrix: { protocols: [tcp], directions: [tx, rx], mtus: [1500], duration_s: 1, repeats: 1 }\n")
        .unwrap();
    let t = loopback_targets(tmp.path(), "127.0.0.1");
    let closed = |args: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_zynq-net"))
            .arg("bench")
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stderr.take());
        child.wait().unwrap().code()
    };
    let run = tmp.path().join("run");
    assert_eq!(closed(&["run", "-p", s(&b), "-t", s(&t), "-o", s(&run)]), Some(0));
    assert_eq!(jsonl(&run.join(files::RESULTS)).len(), 2);
    let x = tmp.path().join("x");
    let mut args = rfc2544_args(s(&b), s(&t), s(&x), "10M");
    args.retain(|a| *a != "-q");
    assert_eq!(closed(&args), Some(0));
    assert_eq!(json(&x.join(files::RFC2544))["frames"].as_array().map(Vec::len), Some(1));
}
