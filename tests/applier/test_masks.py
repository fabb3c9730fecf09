"""CPU masks of a board with more CPUs than the kernel has possible CPUs.

A 64-CPU board's plan writes two 32-bit groups (`ffffffff,ffffffff`); a
kernel whose nr_cpu_ids is 32 or less refuses any second group, even
`00000000,`, with EOVERFLOW (bitmap_parse, lib/bitmap-str.c in
linux-source-6.12: `if (!chunks--) return -EOVERFLOW;`). The applier ANDs
the mask with the online CPUs and writes only the groups that are left
(docs/plan-format.md), reporting the CPUs it dropped; the step is applied,
so exit 0.

Run against this machine's real kernel (rps_cpus, xps_cpus of a veth in a
namespace); the test needs a kernel with fewer than 33 possible CPUs
(the CI VM and this 2-CPU machine: /sys/devices/system/cpu/possible 0-1)
and says so when it has more.
"""
import pathlib

import pytest

from conftest import SHELLS, Applier, cpulist_int, fmt, mask_int, need, online_mask, steps_of, write_plan


def possible_cpus() -> int:
    return cpulist_int(pathlib.Path("/sys/devices/system/cpu/possible").read_text()).bit_length()


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_64_cpu_masks_on_a_small_kernel(shell, tmp_path, netns_factory):
    need("ip", SHELLS[shell][0])
    if possible_cpus() > 32:
        pytest.skip(f"this kernel has {possible_cpus()} possible CPUs: two groups are valid here")
    online = online_mask()
    ns = netns_factory({"eth0": 2})
    # the kernel itself refuses the plan's two groups (what the applier wrote before)
    r = ns.run(["sh", "-c", "echo 00000000,00000001 | dd of=/sys/class/net/eth0/queues/rx-0/rps_cpus"],
               check=False)
    assert r.returncode != 0 and "Value too large" in r.stderr, r
    # masks as `zynq-net gen` writes them for `cpus: 64` (model cpus.rs kernel_bitmap)
    plan = write_plan(tmp_path / "p.plan", "zynq-net-plan 2\nboard big\nwait eth0 1\n"
                      "rps eth0 rx-0 ffffffff,ffffffff\n"
                      "rps eth0 rx-1 00000000,00000001\n"
                      "xps eth0 tx-0 00000000,00000003\n"
                      "xps eth0 tx-1 ffffffff,00000000\n")
    ap = Applier(tmp_path, SHELLS[shell], netns=ns)
    doc = ap.json("apply", plan, expect=3)
    print(fmt(doc))
    rx0 = steps_of(doc, "rps", "eth0", "rx-0")[0]
    assert rx0["result"] == "applied", fmt(doc)
    gone = [c for c in range(64) if not online >> c & 1]
    assert rx0["detail"].endswith("offline CPUs dropped: " + ",".join(map(str, gone))), fmt(doc)
    assert mask_int(ns.read("/sys/class/net/eth0/queues/rx-0/rps_cpus")) == online
    assert steps_of(doc, "rps", "eth0", "rx-1")[0]["result"] == "applied", fmt(doc)
    assert mask_int(ns.read("/sys/class/net/eth0/queues/rx-1/rps_cpus")) == 1
    assert steps_of(doc, "xps", "eth0", "tx-0")[0]["result"] == "applied", fmt(doc)
    assert mask_int(ns.read("/sys/class/net/eth0/queues/tx-0/xps_cpus")) == 3 & online
    # CPUs 32-63 only: nothing left to write
    tx1 = steps_of(doc, "xps", "eth0", "tx-1")[0]
    assert tx1["result"] == "skipped" and "no CPU of the mask is online" in tx1["detail"], fmt(doc)
    assert doc["failed"] == 0 and doc["skipped"] == 1, fmt(doc)
    # a second run: nothing to change
    again = ap.json("apply", plan, expect=3)
    assert again["applied"] == 0 and again["failed"] == 0, fmt(again)
    # without the all-offline step everything applies: exit 0 (docs/applier.md)
    plan2 = write_plan(tmp_path / "p2.plan", "zynq-net-plan 2\nboard big\n"
                       "rps eth0 rx-0 ffffffff,fffffffe\n")
    doc = ap.json("apply", plan2, expect=0)
    assert mask_int(ns.read("/sys/class/net/eth0/queues/rx-0/rps_cpus")) == online & ~1


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_xps_on_a_single_queue_device_says_why(shell, tmp_path, netns_factory):
    """xps_cpus of a one-TX-queue device cannot even be read (net-sysfs.c
    xps_cpus_show: -ENOENT unless netif_is_multiqueue): the skip says so
    rather than "unreadable"."""
    need("ip", SHELLS[shell][0])
    ns = netns_factory({"eth0": 1})
    plan = write_plan(tmp_path / "p.plan", "zynq-net-plan 2\nboard b\nxps eth0 tx-0 00000001\n")
    doc = Applier(tmp_path, SHELLS[shell], netns=ns).json("apply", plan, expect=3)
    s = steps_of(doc, "xps")[0]
    assert s["result"] == "skipped" and s["detail"].startswith("single TX queue: no XPS"), fmt(doc)
