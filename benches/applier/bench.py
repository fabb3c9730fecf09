#!/usr/bin/env python3
"""Benchmark of zynq-net-apply against a naive one-process-per-knob script.

A synthetic board of 16 interfaces x 8 queues lives in a network namespace
(multi-queue veth pairs eth0..eth15). Its plan sets, per interface, GRO and
TSO, RPS + RFS on 8 RX queues and XPS on 8 TX queues (16 x 26 = 416 knobs),
plus two namespace sysctls. Both contenders start from the same reset state
and do the same writes and a read-back of each knob, in the same run:

- applier: `zynq-net-apply apply PLAN` under dash and busybox ash (it reads,
  writes, reads back and reports every step);
- naive: what rc.local scripts do, one process per knob write
  (`sh -c 'echo V > FILE'`, `ethtool -K IF gro on`, `sysctl -w`) and one per
  read-back (`cat FILE`, `ethtool -k IF`).

Prints wall times and the processes each spawned (counted with
`strace -f -e trace=process` in a separate run, so tracing does not skew the
times). Target: applier <= 1 s and <= half the naive time.
Usage (root): benches/applier/bench.py [--repeat N]
"""
import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

ROOT = pathlib.Path(__file__).resolve().parents[2]
APPLIER = ROOT / "tools" / "crates" / "zynq-net-render" / "assets" / "zynq-net-apply.sh"
NIF, NQ = 16, 8


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def online_cpus():
    cpus = []
    for part in pathlib.Path("/sys/devices/system/cpu/online").read_text().strip().split(","):
        a, _, b = part.partition("-")
        cpus += list(range(int(a), int(b or a) + 1))
    return cpus


def knobs():
    """[(kind, iface, target, value)] of the synthetic board."""
    cpus = online_cpus()
    out = []
    for i in range(NIF):
        ifc = f"eth{i}"
        out.append(("offload", ifc, "gro", "on"))
        out.append(("offload", ifc, "tso", "off"))
        for q in range(NQ):
            out.append(("rps", ifc, f"rx-{q}", f"{1 << cpus[(q + 1) % len(cpus)]:08x}"))
        for q in range(NQ):
            out.append(("rfs", ifc, f"rx-{q}", "4096"))
        for q in range(NQ):
            out.append(("xps", ifc, f"tx-{q}", f"{1 << cpus[q % len(cpus)]:08x}"))
    out.append(("sysctl", "-", "net.core.somaxconn", "8192"))
    out.append(("sysctl", "-", "net.ipv4.tcp_window_scaling", "1"))
    return out


def plan_text(ks):
    lines = ["zynq-net-plan 2", "board bench16x8"]
    lines += [f"wait eth{i} 10" for i in range(NIF)]
    lines += [f"{k} {i} {t} {v}" if k != "sysctl" else f"sysctl {t} {v}" for k, i, t, v in ks]
    body = "\n".join(lines) + "\n"
    # end line (docs/plan-format.md): step count and the real cksum of the body
    crc, size = subprocess.run(["cksum"], input=body.encode(), capture_output=True, check=True).stdout.split()
    return f"{body}end {len(lines) - 1} {int(crc)} {int(size)}\n"


SYSFILE = {"rps": "rps_cpus", "rfs": "rps_flow_cnt", "xps": "xps_cpus"}


def naive_script(ks):
    """One process per knob write and one per read-back."""
    out = ["#!/bin/sh", "# naive rc.local style: a process per knob"]
    for k, i, t, v in ks:
        if k == "offload":
            out.append(f"ethtool -K {i} {t} {v}")
            out.append(f"ethtool -k {i} >/dev/null")
        elif k == "sysctl":
            out.append(f"sysctl -q -w {t}={v}")
            out.append(f"cat /proc/sys/{t.replace('.', '/')} >/dev/null")
        else:
            f = f"/sys/class/net/{i}/queues/{t}/{SYSFILE[k]}"
            out.append(f"sh -c 'echo {v} > {f}'")
            out.append(f"cat {f} >/dev/null")
    return "\n".join(out) + "\n"


def reset_script():
    out = ["#!/bin/sh"]
    for i in range(NIF):
        out.append(f"ethtool -K eth{i} gro off tso on")
        for q in range(NQ):
            out.append(f"echo 0 > /sys/class/net/eth{i}/queues/rx-{q}/rps_cpus")
            out.append(f"echo 0 > /sys/class/net/eth{i}/queues/rx-{q}/rps_flow_cnt")
            out.append(f"echo 0 > /sys/class/net/eth{i}/queues/tx-{q}/xps_cpus")
    out.append("echo 4096 > /proc/sys/net/core/somaxconn")
    out.append("echo 0 > /proc/sys/net/ipv4/tcp_window_scaling")
    return "\n".join(out) + "\n"


def count_procs(ns, cmd, env):
    """(processes spawned, programs executed) by cmd run as `ip netns exec NS
    SHELL ...`: distinct PIDs in an `strace -f` log minus the first, execve
    calls minus the two of `ip` and of the shell it becomes."""
    with tempfile.NamedTemporaryFile(prefix="strace-", suffix=".txt") as t:
        subprocess.run(["strace", "-f", "-qq", "-e", "trace=process", "-o", t.name] + cmd,
                       check=False, capture_output=True, env=env)
        pids, execs = set(), 0
        for line in pathlib.Path(t.name).read_text().splitlines():
            pid = line.split(" ", 1)[0]
            if pid.isdigit():
                pids.add(pid)
            if "execve(" in line and "= -1" not in line and "resumed" not in line:
                execs += 1
        return len(pids) - 1, execs - 2


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per contender (median reported)")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench: needs root (network namespace, sysfs writes)")
    for t in ("ip", "ethtool", "dash", "busybox", "sysctl"):
        if not shutil.which(t):
            sys.exit(f"bench: {t} missing")
    have_strace = shutil.which("strace") is not None

    ns = "znb-" + uuid.uuid4().hex[:6]
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="zynq-net-bench-"))
    run(["ip", "netns", "add", ns])
    try:
        for i in range(NIF):
            run(["ip", "-n", ns, "link", "add", f"eth{i}", "numtxqueues", str(NQ), "numrxqueues", str(NQ),
                 "type", "veth", "peer", "name", f"bp{i}", "numtxqueues", str(NQ), "numrxqueues", str(NQ)])
            run(["ip", "-n", ns, "link", "set", f"eth{i}", "up"])
            run(["ip", "-n", ns, "link", "set", f"bp{i}", "up"])
        ks = knobs()
        plan = tmp / "bench.plan"
        plan.write_text(plan_text(ks))
        naive = tmp / "naive.sh"
        naive.write_text(naive_script(ks))
        reset = tmp / "reset.sh"
        reset.write_text(reset_script())
        proc = tmp / "proc"
        proc.mkdir()
        (proc / "interrupts").write_text("           CPU0\n")
        (proc / "sys").symlink_to("/proc/sys")
        env = dict(os.environ, ZYNQ_NET_STATE=str(tmp / "state"), ZYNQ_NET_LOG=str(tmp / "log"),
                   ZYNQ_NET_LOCK=str(tmp / "lock"), ZYNQ_NET_PROC=str(proc))

        def in_ns(cmd):
            return ["ip", "netns", "exec", ns] + cmd

        contenders = {
            "applier (dash)": ["dash", str(APPLIER), "apply", "--quiet", str(plan)],
            "applier (busybox ash)": ["busybox", "sh", str(APPLIER), "apply", "--quiet", str(plan)],
            "naive (dash)": ["dash", str(naive)],
        }
        results = {}
        summary_line = {}
        for name, cmd in contenders.items():
            times = []
            for _ in range(args.repeat):
                subprocess.run(in_ns(["dash", str(reset)]), check=True, capture_output=True)
                shutil.rmtree(tmp / "state", ignore_errors=True)
                t0 = time.perf_counter()
                r = subprocess.run(in_ns(cmd), capture_output=True, text=True, env=env)
                times.append(time.perf_counter() - t0)
                if r.returncode not in (0, 3):
                    sys.exit(f"bench: {name} exit {r.returncode}: {r.stderr}")
                summary_line[name] = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
            # the second (all unchanged) run of the applier: what every boot after a re-run costs
            results[name] = {"first": statistics.median(times)}
            if name.startswith("applier"):
                t0 = time.perf_counter()
                subprocess.run(in_ns(cmd), capture_output=True, env=env)
                results[name]["rerun"] = time.perf_counter() - t0
            if have_strace:
                subprocess.run(in_ns(["dash", str(reset)]), check=True, capture_output=True)
                shutil.rmtree(tmp / "state", ignore_errors=True)
                results[name]["procs"], results[name]["execs"] = count_procs(ns, in_ns(cmd), env)

        nk = len(ks)
        print(f"zynq-net-apply benchmark: {NIF} interfaces x {NQ} queues, {nk} knobs "
              f"(+{NIF} wait steps), {len(online_cpus())} online CPUs, median of {args.repeat}")
        print(f"{'contender':24} {'apply+readback':>15} {'re-run':>8} {'processes':>10} {'execs':>6}")
        for name, r in results.items():
            rerun = f"{r['rerun']:.3f}s" if "rerun" in r else "-"
            procs, execs = str(r.get("procs", "n/a")), str(r.get("execs", "n/a"))
            print(f"{name:24} {r['first']:>14.3f}s {rerun:>8} {procs:>10} {execs:>6}")
        for name in contenders:
            if summary_line.get(name):
                print(f"  {name}: {summary_line[name]}")
        naive_t = results["naive (dash)"]["first"]
        for name in ("applier (dash)", "applier (busybox ash)"):
            t = results[name]["first"]
            ok = t <= 1.0 and t <= naive_t / 2
            print(f"{name}: {t:.3f}s = {t / naive_t:.0%} of naive; target <= 1 s and <= 50%: "
                  f"{'met' if ok else 'NOT met'}")
    finally:
        subprocess.run(["ip", "netns", "del", ns], check=False)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
