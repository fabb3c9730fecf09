#!/usr/bin/env python3
"""Complexity guards: each "stays linear" claim held by a ratio of
instruction counts, not by wall time.

For every input family the script runs the `zynq-net` binary under
valgrind --tool=callgrind (instructions executed: the same count on an
idle or a loaded machine) at three sizes, 0, n and 10n, and checks

    (I(10n) - I(0)) / (I(n) - I(0)) <= 15

(linear work gives 10; a quadratic step, 100 at these sizes). Families:
- wide-mapping: `check` of a board with one flow mapping of n keys (the
  loader's duplicate-key check, yaml.rs SeenKeys: a hash map past 16 keys;
  n = 2,000, 10n = 20,000 keys, 220 KB; `--keys 8000` runs the 80,000-key,
  870 KB file, minutes under valgrind);
- many-interfaces: `check` of n = 6 and 60 interfaces of 16 queues each
  (the board format's limit is 64);
- long-cpu-list: `check` of one RPS entry listing n = 100 and 1,000 CPUs
  (`"0,1,2,...,999"`, 3,890 bytes: a value is at most 4 KiB; a 4,096-CPU
  board);
- long-plan: `gen` of n = 6 and 60 interfaces of 16 queues: the plan,
  the applier's input, grows with them (about 70 steps per interface);
- long-results: `bench report` of a results.jsonl of n = 300 and 3,000
  cells of one trial each, no plan (report.rs groups trials by cell, and
  the matrix and trials tables look cells up: each once per trial, not a
  scan of all; a scan per cell gave 29.7 at these sizes).
Each size's input must give the same exit status at every size (the same
path through the loader), or the family fails.

Exit status 0 when every ratio is within the bound, 1 when one is not, 2
when valgrind is missing. Prints a table and the seconds taken. CI runs it
(tests/run-all); about 2 minutes on a loaded 2-core machine.

Usage: benches/complexity/bench.py [--bin tools/target/release/zynq-net] [--keys 2000] [--only NAME]
"""
import argparse
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
BOUND = 15.0
ZCU102 = (ROOT / "meta-zynq-net/boards/zcu102.yml").read_text()


def wide_mapping(n):
    """The zcu102 board with `x: {k0: 0, ..., k<n-1>: 0}` (an unknown key:
    the loader reads the whole mapping, then refuses the key)."""
    keys = ", ".join(f"k{i}: 0" for i in range(n))
    return ZCU102.replace("version: 1\n", f"version: 1\nx: {{{keys}}}\n", 1)


def synthetic(n_if, queues=16, cpus=64, rps_cpus=None):
    """A generic board of n_if virtio-net interfaces (as benches/gen's)."""
    lines = ["version: 1", "board:", "  name: synthetic", "  soc: generic", f"  cpus: {cpus}",
             "  machine: genericx86-64", "  kernel: mainline", "  arch: x86_64",
             "system:", "  rfs_sock_flow_entries: 65536", "interfaces:"]
    for i in range(max(n_if, 1)):
        lines += [f"  - name: eth{i}", "    driver: virtio-net", f"    queues: {{ rx: {queues}, tx: {queues} }}",
                  "    mtu: 9000", "    rfs_flow_cnt: 4096", "    rps:"]
        if rps_cpus is not None:
            lines += [f"      - {{ queue: 0, cpus: \"{rps_cpus}\" }}"]
            continue
        lines += [f"      - {{ queue: {q}, cpus: \"{q % cpus}-{(q % cpus) + 3}\" }}" for q in range(queues)]
        lines += ["    xps:"] + [f"      - {{ queue: {q}, cpus: {(i + q) % cpus} }}" for q in range(queues)]
        lines += ["    irq_affinity:"] + [f"      - {{ irq: \"virtio{i}-input.{q}\", cpus: {(i + q) % cpus} }}"
                                            for q in range(queues)]
    if n_if == 0:
        # one interface without per-queue settings: the fixed cost
        lines = lines[: lines.index("    rps:")]
    return "\n".join(lines) + "\n"


def long_cpu_list(n):
    return synthetic(1, queues=1, cpus=4096, rps_cpus=",".join(str(c) for c in range(max(n, 1))))


def long_results(n):
    """A results.jsonl of n trials, each of its own cell (the record shape
    `bench run` appends: records.rs TrialRecord; no iperf3 summary)."""
    rec = {"repeat": 0, "started": 0.0, "wall_seconds": 1.0, "command": "iperf3 -c 192.0.2.1",
           "summary": None, "cpu": [], "cpu_bound": [], "notes": [], "error": None}
    return "".join(json.dumps(dict(rec, cell=f"cell{i}", throughput_bps=1e6 + i)) + "\n" for i in range(max(n, 1)))


def families(keys):
    """(name, command, input of size s, n)."""
    return [
        ("wide-mapping", "check", wide_mapping, keys),
        ("many-interfaces", "check", synthetic, 6),
        ("long-cpu-list", "check", long_cpu_list, 100),
        ("long-plan", "gen", synthetic, 6),
        ("long-results", "report", long_results, 300),
    ]


def instructions(binary, cmd, board, tmp):
    """(instructions executed, exit status) of `zynq-net CMD board`
    (`report`: `zynq-net bench report` of a run directory holding `board`
    as its results.jsonl)."""
    args = [str(binary), cmd, str(board)]
    if cmd == "report":
        run = tmp / "run"
        shutil.rmtree(run, ignore_errors=True)
        run.mkdir()
        shutil.copy(board, run / "results.jsonl")
        args = [str(binary), "bench", "report", str(run), "-o", str(run / "out")]
    if cmd == "gen":
        out = tmp / "out"
        shutil.rmtree(out, ignore_errors=True)
        args += ["--out", str(out)]
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + args,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    m = re.search(r"Collected : (\d+)", r.stderr)
    if not m:
        sys.exit(f"benches/complexity: no instruction count from valgrind:\n{r.stderr[-2000:]}")
    status = re.search(r"exited? with (?:exit )?(?:code|status) (\d+)", r.stderr)
    return int(m.group(1)), r.returncode if status is None else int(status.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(ROOT / "tools/target/release/zynq-net"))
    ap.add_argument("--keys", type=int, default=2000, help="n of wide-mapping (10n keys are measured too)")
    ap.add_argument("--only", help="one family")
    a = ap.parse_args()
    if not shutil.which("valgrind"):
        print("benches/complexity: valgrind not installed (scripts/deps/apt.txt)", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    bad = 0
    print(f"{'family':16} {'cmd':5} {'n':>6} {'I(0)':>12} {'I(n)':>12} {'I(10n)':>13} {'ratio':>7}  bound {BOUND:.0f}")
    with tempfile.TemporaryDirectory() as d:
        tmp = pathlib.Path(d)
        for name, cmd, make, n in families(a.keys):
            if a.only and a.only != name:
                continue
            counts, codes = [], set()
            for size in (0, n, 10 * n):
                f = tmp / f"{name}-{size}.yml"
                f.write_text(make(size))
                ins, code = instructions(a.bin, cmd, f, tmp)
                counts.append(ins)
                codes.add(code)
            i0, i1, i10 = counts
            ratio = (i10 - i0) / max(1, i1 - i0)
            ok = ratio <= BOUND and len(codes) == 1
            bad += not ok
            why = "" if ok else ("  <-- OVER" if ratio > BOUND else f"  <-- exit status differs by size: {sorted(codes)}")
            print(f"{name:16} {cmd:5} {n:>6} {i0:>12,} {i1:>12,} {i10:>13,} {ratio:>7.2f}{why}")
    print(f"{time.monotonic() - t0:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
