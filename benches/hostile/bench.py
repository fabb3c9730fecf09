#!/usr/bin/env python3
"""Peak memory and time of `zynq-net check` on hostile inputs.

Inputs, generated here:
- alias-bomb-1mib: the hostile trial's input, a 1 MiB scalar anchored once
  and aliased 3,000 times (before the fix: 6.2 GB and 19.5 s);
- alias-bomb-small: a 4,000-byte scalar aliased 3,000 times (under the file
  size limit, so the event-stream check itself is measured);
- deep-block: 10,000 nested block sequences `- - - ... 1` (20 KB; before:
  stack overflow, SIGABRT);
- deep-flow: 10,000 nested flow sequences `[[[...]]]`;
- long-scalar: a 900 KB scalar on one line (limit 4 KiB; excerpt-only errors).

Target: each run under 100 MB peak RSS and 1 s. Prints a table (peak RSS
from GNU time's %M, else wait4's ru_maxrss, wall time, exit code, stderr bytes) and exits 1 if
a target is missed or a run crashed (exit code other than 1).
Not a unit test: figures depend on the machine.

Usage: benches/hostile/bench.py [--bin tools/target/release/zynq-net]
"""
import argparse
import os
import pathlib
import shutil
import subprocess
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
MAX_RSS_MB = 100
MAX_SECONDS = 1.0


def inputs():
    yield "alias-bomb-1mib", "version: 1\nx: &a " + "z" * (1 << 20) + "\ny: [" + ", ".join(["*a"] * 3000) + "]\n"
    yield "alias-bomb-small", "version: 1\nx: &a " + "z" * 4000 + "\ny: [" + ", ".join(["*a"] * 3000) + "]\n"
    yield "deep-block", "- " * 10_000 + "1\n"
    yield "deep-flow", "x: " + "[" * 10_000 + "1" + "]" * 10_000 + "\n"
    yield "long-scalar", "version: 1\nboard:\n  name: " + "n" * 900_000 + "\n"


def measure(binary, path):
    """(peak RSS MB, wall s, exit code, stderr bytes). GNU time's %M when
    installed: wait4's ru_maxrss of a child forked from Python counts
    Python's own pages (about 16 MB) until exec."""
    gnu_time = shutil.which("time") or ("/usr/bin/time" if os.path.exists("/usr/bin/time") else None)
    if gnu_time:
        with tempfile.NamedTemporaryFile("r") as out:
            t0 = time.monotonic()
            p = subprocess.run([gnu_time, "-o", out.name, "-f", "%M %x", str(binary), "check", str(path)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            wall = time.monotonic() - t0
            fields = out.read().split()
            if len(fields) >= 2 and fields[-2].isdigit():
                return int(fields[-2]) / 1024, wall, int(fields[-1]), len(p.stderr)
    t0 = time.monotonic()
    p = subprocess.Popen([str(binary), "check", str(path)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss / 1024, wall, p.returncode, len(err)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(ROOT / "tools/target/release/zynq-net"))
    args = ap.parse_args()
    bad = 0
    print(f"{'input':18} {'size':>9} {'peak RSS':>10} {'time':>8} {'exit':>4} {'stderr':>7}")
    with tempfile.TemporaryDirectory() as d:
        for name, text in inputs():
            f = pathlib.Path(d) / f"{name}.yml"
            f.write_text(text)
            rss, wall, rc, nerr = measure(args.bin, f)
            ok = rss < MAX_RSS_MB and wall < MAX_SECONDS and rc == 1
            bad += not ok
            print(f"{name:18} {len(text):>9} {rss:>8.1f}MB {wall:>7.3f}s {rc:>4} {nerr:>7}{'' if ok else '  <-- MISSED'}")
    print(f"target: < {MAX_RSS_MB} MB peak RSS, < {MAX_SECONDS} s, exit 1 (invalid board, no crash)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
