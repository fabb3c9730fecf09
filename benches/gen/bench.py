#!/usr/bin/env python3
"""Benchmark of `zynq-net check` and `gen`: instructions and median wall time
per board process.

Boards: the three reference boards and synthetic boards of N interfaces x 16
queues (N = 8, 16, 32, 64) to show how time grows.

Targets: `check` of a reference board <= 5 M instructions
and `gen` <= 8 M (valgrind --tool=callgrind, instructions counted: stable
under load, unlike time); the 64x16 board under 20 ms median wall per
`gen` process on a 2-core machine; growth no worse than linear.
Under valgrind sha2 cannot use the CPU's SHA extensions (valgrind hides
them), so `gen` counts the portable SHA-256 of the board's own outputs
(the applier's digest is computed at build time); natively it uses them
when the CPU has them. The instruction columns are left out, saying so,
when valgrind is not installed. Prints a table; not a test (timings depend on the
machine).

The binary measured is tools/Cargo.toml's `dist` profile (fat LTO; the
Yocto recipe builds its build-time generator unoptimised, which costs
milliseconds per board there), built first when no `--bin` is given. `--bin tools/target/release/zynq-net` measures the test build.

On a shared host the medians drift by 10-30 % from one minute to the next;
`--against OTHER` times the 64x16 `gen` of both binaries interleaved, run
by run, and prints their medians and ratio, which drift does not skew.

Usage: benches/gen/bench.py [--runs 30] [--bin PATH] [--against PATH]
"""
import argparse
import pathlib
import os
import re
import resource
import shutil
import statistics
import subprocess
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


def synthetic(n_if: int, queues: int = 16) -> str:
    cpus = 64
    lines = ["version: 1", "board:", "  name: synthetic", "  soc: generic", f"  cpus: {cpus}",
             "  machine: genericx86-64", "  kernel: mainline", "  arch: x86_64",
             "system:", "  rfs_sock_flow_entries: 65536", "  sysctl:", "    net.core.rmem_max: 4194304",
             "interfaces:"]
    for i in range(n_if):
        lines += [f"  - name: eth{i}", "    driver: virtio-net", f"    queues: {{ rx: {queues}, tx: {queues} }}",
                  "    mtu: 9000", "    rings: { rx: 1024, tx: 1024 }", "    coalesce: { rx-usecs: 32, rx-frames: 16 }",
                  "    offloads: { gro: on, tso: on }", "    rfs_flow_cnt: 4096", "    rps:"]
        lines += [f"      - {{ queue: {q}, cpus: \"{q % cpus}-{(q % cpus) + 3}\" }}" for q in range(queues)]
        lines += ["    xps:"] + [f"      - {{ queue: {q}, cpus: {(i + q) % cpus} }}" for q in range(queues)]
        lines += ["    irq_affinity:"] + [f"      - {{ irq: \"virtio{i}-input.{q}\", cpus: {(i + q) % cpus} }}" for q in range(queues)]
        lines += ["    qdisc:", "      kind: multiq", "      filters:",
                  f"        - {{ match: dst, address: 10.0.{i}.1, queue: {queues - 1} }}"]
    return "\n".join(lines) + "\n"


def measure(binary: str, board: pathlib.Path, runs: int) -> tuple[list[float], list[float]]:
    """Wall time and CPU time (user + sys of the child) per run, in ms.
    CPU time is the figure to compare on a busy machine."""
    times, cpu = [], []
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "out"
        for _ in range(runs):
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run([binary, "gen", str(board), "-o", str(out)], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times.append((time.perf_counter() - t0) * 1000)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000)
    return times, cpu


def instructions(cmd: list[str]) -> int | None:
    """Instructions executed by `cmd` (callgrind's total), or None without valgrind."""
    if shutil.which("valgrind") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out", *cmd],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
        m = re.search(r"Collected : (\d+)", r.stderr)
        if r.returncode != 0 or m is None:
            raise SystemExit(f"valgrind failed on {cmd}: {r.stderr[-2000:]}")
        return int(m.group(1))


def mega(n: int | None) -> str:
    return "n/a" if n is None else f"{n / 1e6:.2f}M"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--bin", help="binary to measure (default: build and measure the dist profile)")
    ap.add_argument("--against", help="a second binary: 64x16 gen timed interleaved with --bin, and the ratio")
    args = ap.parse_args()
    if args.bin is None:
        subprocess.run(["cargo", "build", "--profile", "dist", "--locked", "--manifest-path",
                        str(ROOT / "tools/Cargo.toml"), "--bin", "zynq-net"], check=True)
        args.bin = str(ROOT / "tools/target/dist/zynq-net")
    boards = [(n, ROOT / "meta-zynq-net/boards" / f"{n}.yml", 0) for n in ("zcu102", "p1020rdb", "mlx5-lab")]
    tmp = tempfile.TemporaryDirectory()
    for n in (8, 16, 32, 64):
        p = pathlib.Path(tmp.name) / f"synthetic-{n}x16.yml"
        p.write_text(synthetic(n))
        boards.append((f"synthetic {n}x16", p, n))
    print(f"{args.bin}: zynq-net gen, {args.runs} runs each, per process (ms); load average {open('/proc/loadavg').read().split()[0]}")
    if shutil.which("valgrind") is None:
        print("valgrind not found: instruction columns (check/gen Ir) not measured")
    print("targets: check <= 5M and gen <= 8M instructions (reference boards); synthetic 64x16 gen < 20 ms median wall")
    print(f"{'board':18} {'lines':>6} {'check Ir':>9} {'gen Ir':>9} {'wall med':>9} {'wall p90':>9} {'wall min':>9} {'cpu med':>8}")
    per_if = []
    for name, path, n in boards:
        t, c = measure(args.bin, path, args.runs)
        t.sort()
        med, cmed = statistics.median(t), statistics.median(c)
        lines = len(path.read_text().splitlines())
        ic = instructions([args.bin, "check", str(path)])
        with tempfile.TemporaryDirectory() as gen_dir:
            ig = instructions([args.bin, "gen", str(path), "-o", os.path.join(gen_dir, "out")])
        print(f"{name:18} {lines:6d} {mega(ic):>9} {mega(ig):>9} {med:9.2f} {t[int(len(t) * 0.9) - 1]:9.2f} "
              f"{t[0]:9.2f} {cmed:8.2f}")
        if n:
            per_if.append((n, cmed))
    if args.against:
        big = pathlib.Path(tmp.name) / "synthetic-64x16.yml"
        runs = {args.bin: ([], []), args.against: ([], [])}
        for _ in range(args.runs):
            for b, (t, c) in runs.items():
                t1, c1 = measure(b, big, 1)
                t += t1
                c += c1
        (ta, ca), (tb, cb) = runs[args.bin], runs[args.against]
        print(f"interleaved 64x16 gen, {args.runs} runs: wall median {statistics.median(ta):.2f} ms "
              f"({args.bin}) vs {statistics.median(tb):.2f} ms ({args.against}): "
              f"ratio {statistics.median(ta) / statistics.median(tb):.3f}; cpu median ratio "
              f"{statistics.median(ca) / statistics.median(cb):.3f}")
    if len(per_if) >= 2:
        (n0, m0), (n1, m1) = per_if[0], per_if[-1]
        print(f"growth (cpu): {n1 / n0:.0f}x interfaces -> {m1 / m0:.2f}x time (linear or better if <= {n1 / n0:.0f})")


if __name__ == "__main__":
    main()
