"""The benchmark input has one schema: a board's `bench` section,
or a bench file holding that section's keys at the top level; a top-level
`board:` key makes a file a board file. Loaded by the model crate, so errors
name FILE:LINE:COL, the rule, what was expected and a hint, all at once.

No root, no iperf3: only `zynq-net bench plan`, which does not run traffic.
"""
import json
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
BOARDS = ROOT / "meta-zynq-net" / "boards"


def plan(binary, path, *extra):
    return subprocess.run([str(binary), "bench", "plan", str(path), *extra],
                          capture_output=True, text=True, timeout=60)


def test_bench_file_errors_carry_file_line_col_all_at_once(bench_bin, tmp_path):
    f = tmp_path / "bench.yml"
    f.write_text("matrix:\n"
                 "  protocols: [tcp]\n"
                 "  directions: [tx, sideways]\n"
                 "  mtus: [1500]\n")
    r = plan(bench_bin, f)
    assert r.returncode == 1, r.stderr
    assert f"error[bad-enum]: {f}:3:20: \"sideways\" is not one of" in r.stderr, r.stderr
    assert "hint:" in r.stderr
    # semantic rules: every problem, each at its value
    f.write_text("matrix:\n"
                 "  protocols: [tcp]\n"
                 "  directions: [tx]\n"
                 "  mtus: [1500]\n"
                 "  streams: [1, 200]\n"
                 "  udp_rate: 2500MB/s\n"
                 "rfc2544: { frame_sizes: [60], line_rate_mbps: 1000, resolution_pct: 50 }\n")
    r = plan(bench_bin, f)
    assert r.returncode == 1, r.stderr
    # as `check` prints them: no `zynq-net: ` prefix, exit 1 (an invalid file)
    got = re.findall(r"^error\[([a-z0-9-]+)\]: (\S+):(\d+):(\d+): ", r.stderr, re.M)
    assert got == [("bench-streams", str(f), "5", "16"), ("bench-udp-rate", str(f), "6", "13"),
                   ("bench-frame-size", str(f), "7", "26"), ("bench-percent", str(f), "7", "69")], r.stderr
    assert r.stderr.count("hint:") == 4, r.stderr
    assert "zynq-net:" not in r.stderr and not r.stderr.endswith("\n\n"), r.stderr
    assert not r.stdout


def test_a_warning_is_located_and_does_not_stop(bench_bin, tmp_path):
    f = tmp_path / "bench.yml"
    f.write_text("dut: { address: 10.0.0.1, iface: eth0, irq_cpus: 1 }\n"
                 "matrix: { protocols: [tcp], directions: [tx], mtus: [1500], pin_cpus: \"1-2\" }\n")
    r = plan(bench_bin, f)
    assert r.returncode == 0, r.stderr
    assert f"warning[bench-pin-irq-cpu]: {f}:2:71: iperf3 would share a CPU with the NIC's IRQ" in r.stderr, \
        r.stderr
    assert r.stdout.startswith("plan for (unnamed board): 1 cells")


def test_former_spec_keys_say_where_they_went(bench_bin, tmp_path):
    f = tmp_path / "spec.yml"
    f.write_text("duration: 1\nudp_bitrate: 100M\nrfc2544: { frame_sizes: [64], line_rate_mbps: 1000, trial_seconds: 1 }\n")
    r = plan(bench_bin, f)
    assert r.returncode == 1, r.stderr
    assert f"error[unknown-key]: {f}:1:1: unknown key `duration`" in r.stderr, r.stderr
    assert "a bench file writes it as `matrix: { duration_s: ... }`" in r.stderr, r.stderr
    assert f"error[unknown-key]: {f}:2:1: unknown key `udp_bitrate`" in r.stderr, r.stderr
    assert f"error[unknown-key]: {f}:3:53: unknown key `trial_seconds`" in r.stderr, r.stderr
    assert "`trial_seconds` is spelled `trial_s`" in r.stderr, r.stderr


def test_a_bench_file_is_a_boards_bench_section(bench_bin, tmp_path):
    """zcu102's bench section copied into a bench file plans the same matrix;
    the board file names its board and targets, the bench file neither."""
    board = BOARDS / "zcu102.yml"
    lines = board.read_text().splitlines(keepends=True)
    start = lines.index("bench:\n")
    section = "".join(ln[2:] if ln.startswith("  ") else ln for ln in lines[start + 1:])
    f = tmp_path / "bench.yml"
    f.write_text(section)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    ra, rb = plan(bench_bin, board, "-o", a), plan(bench_bin, f, "-o", b)
    assert ra.returncode == 0 and rb.returncode == 0, ra.stderr + rb.stderr
    pa, pb = json.loads(a.read_text()), json.loads(b.read_text())
    assert pa["cells"] == pb["cells"] and len(pa["cells"]) == 16
    assert pa["spec"] == pb["spec"]
    assert pa["spec"]["udp_bitrate"] == 2.5e9 and pa["spec"]["irq_cpus"]["client"] == [1]
    assert pa["board"] == "zcu102" and pb["board"] is None
    # the section names its DUT and peer in both files
    assert pa["targets"]["client"]["address"] == pb["targets"]["client"]["address"] == "192.0.2.192"
    assert ra.stdout.startswith("plan for zcu102: 16 cells")
    assert rb.stdout.startswith("plan for (unnamed board): 16 cells")
    # without dut and peers: no targets; `bench run` then needs --lab or --targets
    f.write_text("matrix: { protocols: [tcp], directions: [tx], mtus: [1500] }\n")
    r = plan(bench_bin, f, "-o", b)
    assert r.returncode == 0, r.stderr
    assert "targets" not in json.loads(b.read_text())
    r = subprocess.run([str(bench_bin), "bench", "run", "--plan", str(f), "-o", str(tmp_path / "run")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--targets or --lab is required" in r.stderr, r.stderr


def test_a_board_without_bench_section(bench_bin, tmp_path):
    text = (BOARDS / "zc702.yml").read_text()
    f = tmp_path / "zc702.yml"
    f.write_text(text[:text.index("\nbench:\n") + 1])
    r = plan(bench_bin, f)
    assert r.returncode == 1, r.stderr
    assert re.search(rf"error\[missing-key\]: {re.escape(str(f))}:\d+:1: missing required key `bench`", r.stderr), \
        r.stderr


def test_ablate_takes_its_matrix_from_a_bench_file(bench_bin, tmp_path):
    """`bench ablate BOARD --bench FILE`: the matrix is the bench file's (the
    unknown cell's error lists it, before any traffic), and a bench-file
    error is located like any other."""
    f = tmp_path / "bench.yml"
    f.write_text("matrix: { protocols: [udp], directions: [rx], mtus: [1500], streams: [3] }\n")
    cmd = [str(bench_bin), "bench", "ablate", str(BOARDS / "zcu102.yml"), "--bench", str(f),
           "--cells", "no-such-cell", "-o", str(tmp_path / "abl")]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    assert "unknown cell(s) no-such-cell; the matrix has: udp-rx-mtu1500-p3" in r.stderr, r.stderr
    f.write_text("matrix: { protocols: [udp], directions: [rx], mtus: [1500], streams: [300] }\n")
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stderr
    assert f"error[bench-streams]: {f}:1:71: 300 parallel streams" in r.stderr, r.stderr


def test_input_that_is_not_a_bench_file_or_plan(bench_bin, tmp_path):
    """A binary file is reported at its first bad byte like `check` does; a
    plan of another format version says so instead of `unknown key`."""
    f = tmp_path / "bin.yml"
    f.write_bytes(b"matrix:\n  protocols: [tcp]\n\xff\xfe\n")
    r = plan(bench_bin, f)
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith(f"error[not-utf8]: {f}:3:1: "), r.stderr
    p = tmp_path / "plan.json"
    p.write_text(json.dumps({"format": "zynq-net-bench-plan 2", "cells": []}))
    r = plan(bench_bin, p)
    assert r.returncode == 2, r.stderr
    assert "plan format `zynq-net-bench-plan 2` is not the one this zynq-net reads" in r.stderr, r.stderr
    assert not r.stdout
