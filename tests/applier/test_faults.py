"""Fault injection: each fault is reported and skipped while the other steps
of the same plan still apply.

- a knob veth does not support (coalescing: EOPNOTSUPP from ethtool),
- a missing interface (bounded wait, then every step for it skipped),
- a read-only file (prepared sysfs tree via ZYNQ_NET_SYS, the file
  bind-mounted read-only: EROFS),
- a write the kernel refuses (applier run without CAP_NET_ADMIN: the real
  rps_cpus store, ethtool netlink and the forwarding sysctl answer EPERM;
  net.core.somaxconn, which needs no CAP_NET_ADMIN, still applies),
- a malformed plan (exit 2, nothing applied), a held lock (exit 4).
"""
import pathlib
import subprocess

import pytest

from conftest import write_plan, SHELLS, Applier, fmt, need, prepared_proc, steps_of


def write(path: pathlib.Path, text: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_unsupported_missing_readonly(shell, tmp_path, netns_factory):
    need("ip", "ethtool", "mount", SHELLS[shell][0])
    ns = netns_factory({"eth0": 4})
    sysroot = tmp_path / "sys"
    q = sysroot / "class" / "net" / "eth0" / "queues"
    for name in ("rx-0/rps_cpus", "rx-1/rps_cpus", "tx-0/xps_cpus"):
        write(q / name, "00000000\n")
    write(sysroot / "devices" / "system" / "cpu" / "online", "0-1\n")
    ro = q / "rx-0" / "rps_cpus"
    subprocess.run(["mount", "--bind", str(ro), str(ro)], check=True)
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(ro)], check=True)
        plan = tmp_path / "faults.plan"
        write_plan(plan, "zynq-net-plan 2\nboard faults\n"
                        "wait eth0 5\nwait eth9 5\n"
                        "offload eth0 gro on\n"
                        "coalesce eth0 rx-usecs 50\n"
                        "rps eth0 rx-0 00000001\n"
                        "rps eth0 rx-1 00000002\n"
                        "rps eth9 rx-0 00000001\n"
                        "xps eth0 tx-0 00000003\n"
                        "sysctl net.ipv4.ip_forward 1\n")
        proc = prepared_proc(tmp_path, "           CPU0       CPU1\n")
        ap = Applier(tmp_path, SHELLS[shell], netns=ns, proc=proc, sysroot=sysroot)
        doc = ap.json("apply", plan, expect=3)
        rep = fmt(doc)
        by = {(s["verb"], s["iface"], s["target"]): s for s in doc["steps"]}
        # the faults
        assert by[("coalesce", "eth0", "rx-usecs")]["result"] == "skipped", rep
        assert "unsupported (EOPNOTSUPP" in by[("coalesce", "eth0", "rx-usecs")]["detail"], rep
        assert by[("wait", "eth9", "-")]["result"] == "skipped", rep
        assert by[("rps", "eth9", "rx-0")]["detail"] == "absent interface (waited)", rep
        assert by[("rps", "eth0", "rx-0")]["result"] == "skipped", rep
        assert by[("rps", "eth0", "rx-0")]["detail"] == "read-only (EROFS)", rep
        assert ro.read_text() == "00000000\n"
        # the rest applied
        assert by[("offload", "eth0", "gro")]["result"] == "applied", rep
        assert "generic-receive-offload: on" in ns.run(["ethtool", "-k", "eth0"]).stdout
        assert by[("rps", "eth0", "rx-1")]["result"] == "applied", rep
        assert (q / "rx-1" / "rps_cpus").read_text() == "00000002\n"
        assert (q / "tx-0" / "xps_cpus").read_text() == "00000003\n"
        assert by[("sysctl", "-", "net.ipv4.ip_forward")]["result"] == "applied", rep
        assert ns.read("/proc/sys/net/ipv4/ip_forward") == "1"
        assert doc["skipped"] == 4 and doc["failed"] == 0 and doc["applied"] == 4, rep
        # the wait for eth9 is bounded by ZYNQ_NET_WAIT_MAX (1 s here)
        assert "after 1s" in by[("wait", "eth9", "-")]["detail"], rep
        # a refused write saved nothing: revert restores exactly what changed
        rev = ap.json("revert", expect=0)
        assert rev["restored"] == 4, fmt(rev)
        assert (q / "rx-1" / "rps_cpus").read_text() == "00000000\n"
    finally:
        subprocess.run(["umount", str(ro)], check=False)


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_refused_write_eperm(shell, tmp_path, netns_factory):
    need("ip", "ethtool", "setpriv", SHELLS[shell][0])
    ns = netns_factory({"eth0": 2})
    plan = tmp_path / "refused.plan"
    write_plan(plan, "zynq-net-plan 2\nboard refused\n"
                    "offload eth0 gro on\n"
                    "rps eth0 rx-0 00000001\n"
                    "sysctl net.core.somaxconn 8192\n")
    proc = prepared_proc(tmp_path, "           CPU0       CPU1\n")
    ap = Applier(tmp_path, SHELLS[shell], netns=ns, proc=proc)
    ap.prefix = ["setpriv", "--bounding-set", "-net_admin", "--inh-caps", "-net_admin"]
    doc = ap.json("apply", plan, expect=3)
    rep = fmt(doc)
    by = {(s["verb"], s["iface"], s["target"]): s for s in doc["steps"]}
    assert by[("rps", "eth0", "rx-0")]["result"] == "skipped", rep
    assert by[("rps", "eth0", "rx-0")]["detail"] == "refused (EPERM)", rep
    assert by[("offload", "eth0", "gro")]["result"] == "skipped", rep
    assert "refused (EPERM)" in by[("offload", "eth0", "gro")]["detail"], rep
    assert int(ns.read("/sys/class/net/eth0/queues/rx-0/rps_cpus"), 16) == 0
    assert by[("sysctl", "-", "net.core.somaxconn")]["result"] == "applied", rep
    assert ns.read("/proc/sys/net/core/somaxconn") == "8192"


def test_bad_plan_and_lock(tmp_path):
    need("dash")
    ap = Applier(tmp_path, ["dash"])
    bad = tmp_path / "bad.plan"
    for body, why in [
        ("zynq-net-plan 3\n", "version"),
        ("zynq-net-plan 2\nrps eth0/../x rx-0 1\n", "interface name"),
        ("zynq-net-plan 2\nrps eth0 rx-0 $(reboot)\n", "mask"),
        ("zynq-net-plan 2\nirq eth0 eth0;rm 1\n", "pattern"),
        ("zynq-net-plan 2\nsysctl ../../etc/passwd 1\n", "sysctl key"),
        ("zynq-net-plan 2\nfilter eth0 1 dst 300.1.1.1 1\n", "address"),
        ("zynq-net-plan 2\nrps eth0 rx-0 123456789\n", "mask group > 32 bits"),
    ]:
        write_plan(bad, body)
        r = ap("apply", bad)
        assert r.returncode == 2, f"{why}: {r.stdout}{r.stderr}"
        assert "bad.plan:" in r.stderr, r.stderr
    assert not (tmp_path / "state").exists(), "a bad plan must change nothing"
    # unknown verbs are skipped (forward compatibility within version 2)
    good = tmp_path / "good.plan"
    write_plan(good, "zynq-net-plan 2\nboard x\nfrobnicate eth0 1\n")
    r = ap("apply", good, expect=3)
    assert "skipped frobnicate eth0" in r.stdout
    # another instance holds the lock
    (tmp_path / "lock").mkdir()
    (tmp_path / "lock" / "pid").write_text("1\n")  # pid 1 is alive
    ap.env["ZYNQ_NET_LOCK_WAIT"] = "0"
    r = ap("apply", good)
    assert r.returncode == 4 and "locked" in r.stderr, r.stderr
    # a stale lock (dead owner) is taken over
    (tmp_path / "lock" / "pid").write_text("999999999\n")
    ap("apply", good, expect=3)
    assert not (tmp_path / "lock").exists()
    # usage errors
    assert ap("bogus").returncode == 2
    assert ap("apply").returncode == 2
    assert ap("--help").returncode == 0
