#!/usr/bin/env python3
"""Benchmark of `zynq-net gen`: median wall time per board process.

Boards: the three reference boards and synthetic boards of N interfaces x 16
queues (N = 8, 16, 32, 64) to show how time grows. Target (issue 2): under
20 ms median per board process on a 2-core machine, growing no worse than
linearly. Prints a table; not a test (timings depend on the machine).

Usage: benches/gen/bench.py [--runs 30] [--bin tools/target/release/zynq-net]
"""
import argparse
import pathlib
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


def measure(binary: str, board: pathlib.Path, runs: int) -> list[float]:
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "out"
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run([binary, "gen", str(board), "-o", str(out)], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times.append((time.perf_counter() - t0) * 1000)
    return times


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--bin", default=str(ROOT / "tools/target/release/zynq-net"))
    args = ap.parse_args()
    boards = [(n, ROOT / "meta-zynq-net/boards" / f"{n}.yml", 0) for n in ("zcu102", "p1020rdb", "mlx5-lab")]
    tmp = tempfile.TemporaryDirectory()
    for n in (8, 16, 32, 64):
        p = pathlib.Path(tmp.name) / f"synthetic-{n}x16.yml"
        p.write_text(synthetic(n))
        boards.append((f"synthetic {n}x16", p, n))
    print(f"zynq-net gen, {args.runs} runs each, wall time per process (ms)")
    print(f"{'board':18} {'lines':>6} {'median':>8} {'p90':>8} {'min':>8}")
    per_if = []
    for name, path, n in boards:
        t = sorted(measure(args.bin, path, args.runs))
        med = statistics.median(t)
        lines = len(path.read_text().splitlines())
        print(f"{name:18} {lines:6d} {med:8.2f} {t[int(len(t) * 0.9) - 1]:8.2f} {t[0]:8.2f}")
        if n:
            per_if.append((n, med))
    if len(per_if) >= 2:
        (n0, m0), (n1, m1) = per_if[0], per_if[-1]
        print(f"growth: {n1 / n0:.0f}x interfaces -> {m1 / m0:.2f}x time (linear or better if <= {n1 / n0:.0f})")


if __name__ == "__main__":
    main()
