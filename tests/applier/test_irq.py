"""IRQ affinity: IRQs resolved by action name from /proc/interrupts, masks
ANDed with the online CPUs, compared numerically (the kernel prints groups
with varying zero padding past 32 CPUs), refused writes reported as "not changeable"
(the kernel refuses some IRQs' affinity), effective_affinity read back.

Part 1 runs against a prepared /proc tree (ZYNQ_NET_PROC) and sysfs tree
(ZYNQ_NET_SYS: the online CPU list): gianfar-style per-queue-group names,
macb's device-node name, a shared IRQ line, a 48-CPU board (masks past 32 CPUs).
Part 2 changes one real IRQ of this machine and restores it.
"""
import pathlib
import re

import pytest

from conftest import write_plan, SHELLS, Applier, fmt, mask_int, need, online_mask

INTERRUPTS = """\
           CPU0       CPU1
 45:        100          0     GICv2  95 Level     eth0_g0_tx
 46:        200          0     GICv2  96 Level     eth0_g0_rx
 47:          0          0     GICv2  97 Level     eth0_g0_er
 48:          5          0     GICv2  98 Level     ff0e0000.ethernet
 49:          0          0     GICv2  99 Level     eth1, eth2
 50:          1          0     GICv2 100 Level     mmc0
 51:          1          0     GICv2 101 Level     eth0_g1_tx
IPI0:       123        456       Rescheduling interrupts
NMI:          0          0   Non-maskable interrupts
"""


def prepared(tmp, online, affinity):
    proc = tmp / "proc"
    (proc / "irq").mkdir(parents=True)
    (proc / "interrupts").write_text(INTERRUPTS)
    for irq, (aff, eff) in affinity.items():
        d = proc / "irq" / str(irq)
        d.mkdir()
        (d / "smp_affinity").write_text(aff + "\n")
        if eff is not None:
            (d / "effective_affinity").write_text(eff + "\n")
    sysroot = tmp / "sys"
    (sysroot / "devices" / "system" / "cpu").mkdir(parents=True)
    (sysroot / "devices" / "system" / "cpu" / "online").write_text(online + "\n")
    (sysroot / "class" / "net").mkdir(parents=True)
    return proc, sysroot


def aff(proc, irq):
    return (proc / "irq" / str(irq) / "smp_affinity").read_text().strip()


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_irq_prepared_tree(shell, tmp_path):
    need(SHELLS[shell][0])
    proc, sysroot = prepared(tmp_path, "0-1", {
        45: ("3", "1"), 46: ("3", "1"), 47: ("3", None), 48: ("3", "1"), 49: ("3", "1"),
        50: ("3", "1"), 51: ("2", "2")})
    plan = tmp_path / "irq.plan"
    write_plan(plan, "zynq-net-plan 2\nboard irqtest\n"
                    "irq eth0 eth0_g0_* 00000002\n"        # 3 IRQs by glob
                    "irq eth0 ff0e0000.ethernet 00000006\n"  # CPU 2 offline: dropped
                    "irq eth2 eth2 00000001\n"             # shared line "eth1, eth2"
                    "irq eth0 eth0_g1_tx 00000002\n"       # already so: unchanged
                    "irq eth3 eth3_* 00000001\n")          # no such IRQ
    ap = Applier(tmp_path, SHELLS[shell], proc=proc, sysroot=sysroot)
    doc = ap.json("apply", plan, expect=3)
    rep = fmt(doc)
    by = {s["target"]: s for s in doc["steps"] if s["verb"] == "irq"}
    for irq in (45, 46, 47):
        assert by[str(irq)]["result"] == "applied", rep
        assert mask_int(aff(proc, irq)) == 2, rep
    assert "effective 1" in by["45"]["detail"], rep          # read back effective_affinity
    assert "effective" not in by["47"]["detail"], rep        # absent file: not invented
    assert by["48"]["result"] == "applied" and mask_int(aff(proc, 48)) == 2, rep
    assert "offline CPUs dropped: 2" in by["48"]["detail"], rep
    assert by["49"]["result"] == "applied" and mask_int(aff(proc, 49)) == 1, rep
    assert by["51"]["result"] == "unchanged", rep
    assert mask_int(aff(proc, 50)) == 3, "mmc0 was not in the plan"
    assert by["eth3_*"]["result"] == "skipped" and "no IRQ named eth3_*" in by["eth3_*"]["detail"], rep
    # drift after boot (irqbalance) shows in status
    (proc / "irq" / "46" / "smp_affinity").write_text("3\n")
    st = ap.json("status", plan, expect=3)
    drift = [s for s in st["steps"] if s["result"] == "differs"]
    assert [s["target"] for s in drift] == ["46"], fmt(st)
    # revert restores every IRQ it changed
    ap.json("revert", expect=0)
    for irq in (45, 46, 47, 48, 49):
        assert aff(proc, irq) == "3"


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_irq_wide_masks_c1(shell, tmp_path):
    """48 CPUs: groups compared numerically, zero padding does not matter."""
    need(SHELLS[shell][0])
    proc, sysroot = prepared(tmp_path, "0-47", {
        45: ("f,ffffffff", None),            # kernel style, no padding
        46: ("0000ffff,ffffffff", None),
        50: ("ffff,ffffffff", None)})
    plan = tmp_path / "wide.plan"
    write_plan(plan, "zynq-net-plan 2\nboard wide\n"
                    "irq eth0 eth0_g0_tx 0000000f,ffffffff\n"
                    "irq eth0 eth0_g0_rx 0000000f,ffffffff\n"
                    "irq eth0 mmc0 00008000,00000001\n")
    ap = Applier(tmp_path, SHELLS[shell], proc=proc, sysroot=sysroot)
    doc = ap.json("apply", plan, expect=0)
    by = {s["target"]: s for s in doc["steps"]}
    assert by["45"]["result"] == "unchanged", fmt(doc)
    assert by["46"]["result"] == "applied" and aff(proc, 46) == "0000000f,ffffffff", fmt(doc)
    assert by["50"]["result"] == "applied" and aff(proc, 50) == "00008000,00000001", fmt(doc)
    # CPUs 32-47 offline: the high group is masked and, all zero, left out
    # (a kernel with 32 possible CPUs refuses a second group: test_masks.py)
    (sysroot / "devices" / "system" / "cpu" / "online").write_text("0-31\n")
    doc = ap.json("apply", plan, expect=0)
    by = {s["target"]: s for s in doc["steps"]}
    assert aff(proc, 50) == "00000001", fmt(doc)
    assert "offline CPUs dropped: 47" in by["50"]["detail"], fmt(doc)
    assert "offline CPUs dropped: 32,33,34,35" in by["46"]["detail"], fmt(doc)


def real_irqs():
    """[(irq, name, changeable)] from this machine's /proc/interrupts."""
    out = []
    for line in pathlib.Path("/proc/interrupts").read_text().splitlines()[1:]:
        m = re.match(r"\s*(\d+):", line)
        if not m:
            continue
        irq = int(m.group(1))
        name = line.split()[-1]
        f = pathlib.Path(f"/proc/irq/{irq}/smp_affinity")
        if not f.exists() or not re.fullmatch(r"[A-Za-z0-9_.:@-]+", name) or line.rstrip().endswith(","):
            continue
        cur = f.read_text().strip()
        try:
            f.write_text(cur + "\n")  # same value: changes nothing
            ok = True
        except OSError:
            ok = False
        out.append((irq, name, ok, cur))
    return out


@pytest.mark.parametrize("shell", ["dash"])
def test_irq_real_proc(shell, tmp_path):
    """One real IRQ is moved and restored; a managed one (if any) is "not changeable"."""
    need("dash")
    irqs = real_irqs()
    names = [n for _, n, _, _ in irqs]
    movable = [(i, n, c) for i, n, ok, c in irqs if ok and names.count(n) == 1]
    if not movable or bin(online_mask()).count("1") < 2:
        pytest.skip("no IRQ with a writable smp_affinity (or one CPU): cannot move one")
    irq, name, orig = movable[0]
    online = online_mask()
    cur = mask_int(orig) & online
    low = online & -online
    new = low if cur != low else (online & ~low) & -(online & ~low)
    plan = tmp_path / "real.plan"
    lines = [f"irq eth0 {name} {new:08x}"]
    managed = [(i, n) for i, n, ok, _ in irqs if not ok and names.count(n) == 1]
    if managed:
        lines.append(f"irq eth0 {managed[0][1]} {low:08x}")
    write_plan(plan, "zynq-net-plan 2\nboard real\n" + "\n".join(lines) + "\n")
    ap = Applier(tmp_path, ["dash"], proc=pathlib.Path("/proc"))
    path = pathlib.Path(f"/proc/irq/{irq}/smp_affinity")
    try:
        doc = ap.json("apply", plan, expect=(0, 3))
        by = {s["target"]: s for s in doc["steps"]}
        assert by[str(irq)]["result"] == "applied", fmt(doc)
        assert mask_int(path.read_text()) == new
        if pathlib.Path(f"/proc/irq/{irq}/effective_affinity").exists():
            assert "effective" in by[str(irq)]["detail"], fmt(doc)
        if managed:
            m = by[str(managed[0][0])]
            assert m["result"] == "skipped" and m["detail"].startswith("not changeable"), fmt(doc)
        else:
            print("no managed/per-CPU IRQ on this machine: the EIO/EPERM case is covered by test_faults")
        ap.json("revert", expect=0)
        assert mask_int(path.read_text()) == mask_int(orig)
    finally:
        try:
            path.write_text(orig + "\n")
        except OSError:
            pass
