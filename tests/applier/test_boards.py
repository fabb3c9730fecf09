"""The zcu102 and p1020rdb plans applied in a network namespace.

Each board interface is a multi-queue veth named like the board's (eth0,
eth1, ...). The plan is applied by busybox ash and by dash; the test reads
back rps_cpus, rps_flow_cnt, xps_cpus, MTU, ethtool channels and offloads,
the multiq qdisc and u32/skbedit filters (`tc -j`) and the namespace's
sysctls, and checks them against the plan. A second run must change nothing,
`status` must report no drift and `revert` must restore the originals.

What veth cannot cover: rings and coalescing (veth has no -G/-C: those steps
must be reported skipped as unsupported, which is what a driver without them
does), IRQ affinity (veth has no IRQ; see test_irq.py), PTP (no ptp_1588).
The qdisc and filter steps must apply and read back (`tc -j`) whenever the
kernel has sch_multiq, cls_u32 and act_skbedit; only when it demonstrably
lacks one (conftest.TcSupport: its config says so, or modprobe fails) must
they be reported skipped instead: the qdisc as unsupported, its filters for
want of the root qdisc 1:. The multiq/u32/skbedit path itself, with traffic
through the filter, runs on the emulated boards (tests/qemu/), whose
kernels have them.
"""
import json
import pathlib

import pytest

from conftest import (ROOT, PLANS, SHELLS, Applier, as_driver, fmt, mask_int, need, online_mask, parse_plan,
                      plan_interfaces, pow2_up, prepared_proc, steps_of)

BOARDS = ["zcu102", "p1020rdb", "hand-zcu102", "hand-p1020rdb"]


def plan_for(board, request, tmp_path):
    """The generated plan once `zynq-net gen` and the board file exist, else
    the hand-written mirror in tests/applier/plans/ ("hand-BOARD": always the
    hand-written one; it also covers channels changes and multiq on a
    single-queue port)."""
    if board.startswith("hand-"):
        return PLANS / f"{board[5:]}.plan", "hand-written"
    if (ROOT / "meta-zynq-net" / "boards" / f"{board}.yml").exists():
        out = request.getfixturevalue("gen_board")(board)
        plan = out / "tuning" / "zynq-net.plan"
        assert plan.exists(), f"zynq-net gen wrote no {plan}"
        # the board's NICs are veths here: its ident lines say so (the
        # unchanged plan on veths is test_ident.py's)
        return as_driver(plan, tmp_path / "veth.plan"), "generated, ident: veth"
    return PLANS / f"{board}.plan", "hand-written"


def veth_queues(steps):
    """Queue count per interface: 1 stays single-queue, more get at least 4
    so that a `channels` step really changes something."""
    return {i: (max(q, 4) if q > 1 else 1) for i, q in plan_interfaces(steps).items()}


def sysctl_path(key):
    return "/proc/sys/" + (key if "/" in key else key.replace(".", "/"))


def netns_owned(ns, key):
    """Whether sysctl `key`, seen from `ns`, is that network namespace's
    own: under /proc/sys/net and writable there. A key outside net/ is
    global (kernel., vm.); in a namespace other than init_net, the net.core
    entries from wmem_max on (rmem_max, wmem_default, ...) are init_net's
    values shown read-only (linux 6.12 net/core/sysctl_net_core.c,
    sysctl_core_net_init: `tbl[i].mode &= ~0222`), and init_net-only tables
    (net_core_table: rps_sock_flow_entries, netdev_max_backlog, ...) are
    absent. A concurrent lab on this host may change those at any time."""
    path = sysctl_path(key)
    if not path.startswith("/proc/sys/net/"):
        return False
    r = ns.run(["stat", "-c", "%a", path], check=False)
    return r.returncode == 0 and int(r.stdout.strip(), 8) & 0o222 != 0


def snapshot(ns, steps):
    """Every value the plan touches that the test's network namespace owns,
    as the kernel reports it (sysctls: netns_owned)."""
    snap = {}
    for verb, f in steps:
        if verb == "mtu":
            snap[("mtu", f[0])] = ns.read(f"/sys/class/net/{f[0]}/mtu")
        elif verb == "channels":
            snap[("channels", f[0])] = ns.run(["ethtool", "-l", f[0]]).stdout.split("Current")[1]
        elif verb == "offload":
            snap[("offload", f[0])] = ns.run(["ethtool", "-k", f[0]]).stdout
        elif verb in ("rps", "rfs", "xps"):
            name = {"rps": "rps_cpus", "rfs": "rps_flow_cnt", "xps": "xps_cpus"}[verb]
            r = ns.run(["cat", f"/sys/class/net/{f[0]}/queues/{f[1]}/{name}"], check=False)
            snap[(verb, f[0], f[1])] = r.stdout.strip() if r.returncode == 0 else None
        elif verb in ("qdisc", "filter"):
            snap[("tc", f[0])] = (json.loads(ns.run(["tc", "-j", "qdisc", "show", "dev", f[0]]).stdout),
                                  ns.run(["tc", "-j", "filter", "show", "dev", f[0]], check=False).stdout)
        elif verb == "mac":
            snap[("mac", f[0])] = ns.read(f"/sys/class/net/{f[0]}/address")
        elif verb == "sysctl" and netns_owned(ns, f[0]):
            r = ns.run(["cat", sysctl_path(f[0])], check=False)
            snap[("sysctl", f[0])] = r.stdout.strip() if r.returncode == 0 else None
    return snap


def ethtool_field(text, section, key):
    part = text.split(section, 1)[1]
    for line in part.splitlines():
        if line.startswith(key + ":"):
            return line.split(":", 1)[1].strip()
    return None


def tx_queues(ns, iface):
    return len([q for q in ns.run(["ls", f"/sys/class/net/{iface}/queues"]).stdout.split() if q.startswith("tx-")])


def check_plan_applied(ns, steps, doc, tc):
    online = online_mask()
    report = fmt(doc)
    assert doc["failed"] == 0, report
    for verb, f in steps:
        if verb in ("board", "wait"):
            continue
        if verb == "ident":
            got = steps_of(doc, "ident", f[0])
            assert got and got[0]["result"] == "unchanged", f"{got}\n{report}"
            continue
        if verb == "sysctl":
            got = steps_of(doc, "sysctl", "-", f[0])
        elif verb == "irq":
            got = steps_of(doc, "irq", f[0])
        elif verb in ("mtu", "ptp", "qdisc", "mac"):
            got = steps_of(doc, verb, f[0])
        elif verb == "filter":
            got = steps_of(doc, verb, f[0], f[1])
        else:
            got = steps_of(doc, verb, f[0], f[1])
        assert got, f"no report for {verb} {f}\n{report}"
        res = got[0]
        ctx = f"{verb} {' '.join(f)}: {res}\n{report}"
        iface = f[0]
        if verb == "mtu":
            assert ns.read(f"/sys/class/net/{iface}/mtu") == f[1], ctx
        elif verb == "mac":
            assert res["result"] in ("applied", "unchanged"), ctx
            assert ns.read(f"/sys/class/net/{iface}/address") == f[1], ctx
        elif verb == "channels":
            cur = ethtool_field(ns.run(["ethtool", "-l", iface]).stdout, "Current hardware settings",
                                {"rx": "RX", "tx": "TX", "combined": "Combined", "other": "Other"}[f[1]])
            assert res["result"] in ("applied", "unchanged"), ctx
            assert cur == f[2], ctx
        elif verb == "offload":
            k = ns.run(["ethtool", "-k", iface]).stdout
            long = {"gro": "generic-receive-offload", "tso": "tcp-segmentation-offload",
                    "gso": "generic-segmentation-offload", "lro": "large-receive-offload"}.get(f[1], f[1])
            line = next((ln for ln in k.splitlines() if ln.strip().startswith(long + ":")), None)
            if res["result"] == "skipped":
                assert "unsupported" in res["detail"], ctx
                assert line is None or "[fixed]" in line, ctx
            else:
                assert line and line.split(":")[1].split()[0] == f[2], ctx
        elif verb in ("rings", "coalesce"):
            # veth has no ethtool -G/-C: a driver without the knob
            assert res["result"] == "skipped" and "unsupported" in res["detail"], ctx
        elif verb == "ptp":
            assert res["result"] == "skipped" and "absent" in res["detail"], ctx
        elif verb in ("rps", "xps"):
            want = mask_int(f[2]) & online
            if mask_int(f[2]) and not want:
                assert res["result"] == "skipped" and "no CPU" in res["detail"], ctx
                continue
            name = "rps_cpus" if verb == "rps" else "xps_cpus"
            assert mask_int(ns.read(f"/sys/class/net/{iface}/queues/{f[1]}/{name}")) == want, ctx
            if mask_int(f[2]) & ~online:
                assert "offline CPUs dropped" in res["detail"], ctx
        elif verb == "rfs":
            assert int(ns.read(f"/sys/class/net/{iface}/queues/{f[1]}/rps_flow_cnt")) == pow2_up(int(f[2])), ctx
        elif verb == "irq":
            # veth has no IRQ and the prepared /proc/interrupts names none
            assert res["result"] == "skipped" and "no IRQ named" in res["detail"], ctx
        elif verb == "qdisc":
            ntx = tx_queues(ns, iface)
            if ntx <= 1:
                assert res["result"] == "skipped" and "single TX queue (1 TX queue)" in res["detail"], ctx
            elif tc.has:
                assert res["result"] in ("applied", "unchanged"), f"{tc}\n{ctx}"
                q = json.loads(ns.run(["tc", "-j", "qdisc", "show", "dev", iface]).stdout)
                root = [x for x in q if x.get("root")]
                assert root and root[0]["kind"] == "multiq" and root[0]["handle"] == "1:", f"{q}\n{ctx}"
            else:
                assert res["result"] == "skipped" and "unsupported" in res["detail"], f"{tc}\n{ctx}"
        elif verb == "filter":
            if tc.has and tx_queues(ns, iface) > 1:
                assert res["result"] in ("applied", "unchanged"), f"{tc}\n{ctx}"
                out = json.loads(ns.run(["tc", "-j", "filter", "show", "dev", iface, "parent", "1:"]).stdout)
                mine = [x for x in out if x.get("pref") == int(f[1]) and "options" in x]
                text = json.dumps(mine)
                assert mine and "skbedit" in text and f'"queue_mapping": {f[4]}' in text, f"{out}\n{ctx}"
            else:
                assert res["result"] == "skipped" and "no root qdisc 1:" in res["detail"], f"{tc}\n{ctx}"
        elif verb == "sysctl":
            r = ns.run(["cat", sysctl_path(f[0])], check=False)
            if r.returncode != 0:
                # init-netns-only keys (rps_sock_flow_entries, netdev_max_backlog)
                assert res["result"] == "skipped" and "absent" in res["detail"], ctx
            elif res["result"] == "skipped":
                # read-only in a child netns (nf_conntrack_max): EACCES
                mode = ns.run(["stat", "-c", "%a", sysctl_path(f[0])]).stdout.strip()
                assert "refused (EACCES)" in res["detail"] and mode == "444", f"mode {mode}: {ctx}"
            else:
                assert r.stdout.split() == f[1:], ctx


@pytest.mark.parametrize("shell", sorted(SHELLS))
@pytest.mark.parametrize("board", BOARDS)
def test_board_plan_apply_idempotent_revert(board, shell, tmp_path, request, netns_factory,
                                            kernel_tc):
    need("ip", "tc", "ethtool", SHELLS[shell][0])
    plan, origin = plan_for(board, request, tmp_path)
    steps = parse_plan(plan)
    ns = netns_factory(veth_queues(steps))
    proc = prepared_proc(tmp_path, "           CPU0       CPU1\n")
    before = snapshot(ns, steps)
    ap = Applier(tmp_path, SHELLS[shell], netns=ns, proc=proc)

    first = ap.json("apply", plan, expect=(0, 3))
    print(f"{board} ({origin} plan) under {shell}:\n{fmt(first)}")
    assert first["applied"] > 0, fmt(first)
    check_plan_applied(ns, steps, first, kernel_tc)
    assert first["exit"] == (3 if first["skipped"] else 0)

    second = ap.json("apply", plan, expect=(0, 3))
    assert second["applied"] == 0 and second["failed"] == 0, fmt(second)
    assert second["unchanged"] == first["applied"] + first["unchanged"], fmt(second)

    status = ap.json("status", plan, expect=(0, 3))
    assert status["ok"] == second["unchanged"], fmt(status)
    # only a step apply had to skip may differ (multiq on a kernel without it)
    skipped = {(s["verb"], s["iface"], s["target"]) for s in steps_of(first) if s["result"] == "skipped"}
    differs = {(s["verb"], s["iface"], s["target"]) for s in steps_of(status) if s["result"] == "differs"}
    assert differs <= skipped, fmt(status)

    log = (tmp_path / "zynq-net.log").read_text()
    name = next(f[0] for v, f in steps if v == "board")
    assert log.count(f"zynq-net: {name}: apply:") == 2, log

    rev = ap.json("revert", expect=0)
    assert rev["restored"] == first["applied"], fmt(rev)
    assert snapshot(ns, steps) == before
    # nothing left to revert
    assert ap.json("revert", expect=0)["restored"] == 0
