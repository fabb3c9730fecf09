"""The generated zc702 tuning on the real macb driver of an emulated Zynq-7000.

scripts/qemu-zynq7000 cross-builds (once, cached) a small kernel from
Debian's linux-source-6.12 with gcc-arm-linux-gnueabihf:
tests/qemu/zynq7000-qemu-test-only.cfg on allnoconfig + the zc702 board's
generated kernel fragments (merge_config.sh -n, olddefconfig), checked with
`zynq-net kconfig verify`; compiles the kernel's zynq-zc702.dts with the
generated dt/zynq-net.dtsi (checked with `zynq-net dtb verify`); and boots
it on `qemu-system-arm -M xilinx-zynq-a9` with Debian's armhf
busybox-static, dash, ethtool and iproute2 in the initramfs. The init
(tests/qemu/macb-init.sh, shared with the ZCU102 check) runs the generated
plan, a variant plan, and dumps what the driver reports. One boot serves
every test here.

Driver facts checked (drivers/net/ethernet/cadence/macb_main.c, 6.12):
- "xlnx,zynq-gem" / "cdns,zynq-gem" -> zynq_config: no MACB_CAPS_JUMBO, so
  max_mtu = 1536 - ETH_HLEN - ETH_FCS_LEN = 1518: MTU 9000 is refused by
  the generator (with the limit) and by the driver (the variant);
- macb_set_ringparam(): rx 64..8192, tx 64..4096, roundup_pow_of_two(),
  default 512 (DEFAULT_RX/TX_RING_SIZE);
- no get/set_coalesce: `ethtool -C` is EOPNOTSUPP;
- one queue: macb_probe_queues() reads the GEM's DCFG6, and QEMU's GEM
  (num-priority-queues 1) like the Zynq-7000's reports none; the IRQ is
  requested with the netdev's name ("eth0");
- the GIC delivers an SPI to one CPU, the first online one of the mask
  (gic_set_affinity(), drivers/irqchip/irq-gic.c): effective_affinity.
What the QEMU model and TCG cannot show: the second Cortex-A9 - Debian
bookworm's QEMU 7.2 models one CPU on xilinx-zynq-a9 (later QEMU has
ZYNQ_MAX_CPUS 2; ZYNQ_NET_ZYNQ7000_SMP=2 runs the two-CPU checks there),
so the board's IRQ step (CPU 1) is skipped with the applier's reason and
the IRQ is read back on CPU 0 (a variant step names CPU 0); real throughput, interrupt
moderation (the Zynq-7000 GEM has none to show anyway), link speed and
autonegotiation (the GEM model reports a fixed 1000 Mb/s link), PHY
delays (rgmii-id), checksum and segmentation offload in hardware (the
model accepts the feature bits; the test reads them back, not their
effect).
"""
from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess

import pytest

from qemu_results import (Run, boot, ethtool_current, irq_affinity_rows, irq_rows, lowest_cpu, macb_ring,
                          mask_int, results, skip_without_tcg, step_keys, sysfs_values)

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
SCRIPT = ROOT / "scripts" / "qemu-zynq7000"
BOARD = ROOT / "meta-zynq-net" / "boards" / "zc702.yml"
TEST_ONLY_CFG = ROOT / "tests" / "qemu" / "zynq7000-qemu-test-only.cfg"
IFACE = "eth0"
SMP = int(os.environ.get("ZYNQ_NET_ZYNQ7000_SMP", "1"))
ONLINE = (1 << SMP) - 1
BOOT_TIMEOUT = int(os.environ.get("ZYNQ_NET_QEMU_TIMEOUT", "180"))
MAX_BOOT = float(os.environ.get("ZYNQ_NET_QEMU_MAX_BOOT", "120"))
# The whole script: a fresh kernel cross-build (docs/qemu.md has the
# figures) and ~6 MB of armhf packages.
SCRIPT_TIMEOUT = BOOT_TIMEOUT + 2 * 3600
# ZYNQ_NET_ZYNQ7000_CACHED_ONLY=1: never build (a CI with no time for it;
# .ci/run sets 0 and builds it first); the tests skip, saying so, when the
# kernel or userland is not cached.
CACHED_ONLY = os.environ.get("ZYNQ_NET_ZYNQ7000_CACHED_ONLY") == "1"
MACB_DEFAULT_RING = 512  # DEFAULT_RX_RING_SIZE / DEFAULT_TX_RING_SIZE
ZYNQ_GEM_MAX_MTU = 1536 - 14 - 4

# What the board cannot ask (the generator refuses or warns) but a plan can
# carry: sizes macb rounds, coalescing it lacks, an MTU above zynq_config's
# limit, XPS on its single TX queue; then a feature change to read back
# (gro off), a step after them that must still run, and the IRQ by name on
# CPU 0 (the only CPU QEMU 7.2 emulates).
VARIANT = """\
zynq-net-plan 2
# scripts/qemu-zynq7000 --extra-plan: test variant, not a board
board zc702-qemu-variant
rings eth0 rx 3000
rings eth0 tx 100
coalesce eth0 rx-usecs 64
mtu eth0 9000
xps eth0 tx-0 00000001
offload eth0 gro off
sysctl net.core.netdev_budget 600
irq eth0 eth0 00000001
"""


# --------------------------------------------------------------- fixture
@pytest.fixture(scope="module")
def run(gen_board, zynq_net, tmp_path_factory) -> Run:
    if not shutil.which("arm-linux-gnueabihf-gcc"):
        pytest.skip("arm-linux-gnueabihf-gcc missing (Debian gcc-arm-linux-gnueabihf, scripts/deps/apt.txt)")
    skip_without_tcg("qemu-system-arm", "qemu-system-arm")
    gen = gen_board("zc702")
    r = boot(tmp_path_factory, "qemu-zynq7000",
             lambda out: [str(SCRIPT), "--gen", str(gen), "--out", str(out), "--timeout", str(BOOT_TIMEOUT),
                          "--smp", str(SMP), "--zynq-net", str(zynq_net)] + (["--cached-only"] if CACHED_ONLY else []),
             gen, VARIANT, SCRIPT_TIMEOUT)
    if CACHED_ONLY and r.proc.returncode == 3:
        pytest.skip("ZYNQ_NET_ZYNQ7000_CACHED_ONLY=1 and the Zynq-7000 kernel/userland are not cached: "
                    + r.proc.stderr.strip().splitlines()[-1])
    return r


# ----------------------------------------------------------------- tests
def test_mtu_9000_refused_at_generation(zynq_net, tmp_path):
    """zc702.yml with MTU 9000 (and a bench column at 9000): `check` fails,
    naming the driver's limit, and `gen` writes nothing."""
    text = BOARD.read_text()
    assert "    mtu: 1500\n" in text and "mtus: [1500]" in text
    bad = tmp_path / "zc702-jumbo.yml"
    bad.write_text(text.replace("    mtu: 1500\n", "    mtu: 9000\n").replace("mtus: [1500]", "mtus: [1500, 9000]"))
    res = subprocess.run([str(zynq_net), "check", str(bad)], capture_output=True, text=True)
    assert res.returncode == 1, res.stderr
    assert f"MTU 9000 exceeds {ZYNQ_GEM_MAX_MTU} for macb on zynq7000" in res.stderr, res.stderr
    assert f"bench MTU 9000 exceeds {ZYNQ_GEM_MAX_MTU}" in res.stderr, res.stderr
    res = subprocess.run([str(zynq_net), "gen", str(bad), "-o", str(tmp_path / "out")],
                         capture_output=True, text=True)
    assert res.returncode == 1 and not (tmp_path / "out").exists(), res.stderr


def test_kernel_has_the_fragments_and_verifies(run):
    have = run.kernel_config(run.gen / "kernel")
    assert {"CONFIG_ARCH_ZYNQ=y", "CONFIG_MACB=y", "CONFIG_SERIAL_XILINX_PS_UART=y"} <= have
    # The small allnoconfig kernel: no modules, and the test-only base names
    # none of the board's symbols, so macb, SMP and RPS are in it only
    # through the generated fragments, which `kconfig verify` above holds.
    # (SYSFS is the harness's own need too: the init mounts /sys.)
    assert "CONFIG_MODULES=y" not in have
    base = {line.split("=")[0] for line in TEST_ONLY_CFG.read_text().splitlines()
            if line.startswith("CONFIG_")} - {"CONFIG_SYSFS"}
    for cfg in sorted((run.gen / "kernel").glob("zynq-net-*.cfg")):
        board = {line.split("=")[0] for line in cfg.read_text().splitlines() if line.startswith("CONFIG_")}
        assert not board & base, f"{TEST_ONLY_CFG.name} sets {sorted(board & base)} of {cfg.name}"


def test_dtb_has_the_fragment_and_verifies(run):
    report = (run.out / "dt-report.txt").read_text()
    assert (run.out / "dtb-verify.rc").read_text().strip() == "0", report
    assert "zynq-zc702.dts" in report and "zynq-net.dtsi" in report, report


def test_boots_to_result_on_macb(run):
    secs = run.boot_seconds(f", -smp {SMP}")
    assert secs < MAX_BOOT, f"boot-to-result {secs}s" + run.context()
    netdevs = run.text("netdevs")
    assert re.search(rf"^{IFACE} driver=macb queues=rx-0 tx-0 $", netdevs, re.M), \
        f"gem0 should be {IFACE} on macb with one RX and one TX queue:\n{netdevs}"
    assert run.text("cpus").strip() == ("0" if SMP == 1 else f"0-{SMP - 1}"), run.text("cpus") + run.context()
    # The MAC of the DT fragment (local-mac-address) reached the driver, not
    # the one QEMU loads into the GEM (scripts/qemu-zynq7000 gives it another).
    mac = re.search(r'mac: "([0-9a-f:]+)"', BOARD.read_text()).group(1)
    assert f"link/ether {mac}" in run.text("link-up"), run.text("link-up")
    assert "52:54:00:12:70:02" not in run.text("link-up"), run.text("link-up")
    # The ZC702's PHY address (ethernet-phy@7 in zynq-zc702.dts), which
    # QEMU's xilinx-zynq-a9 GEM answers.
    assert re.search(r"PHYAD: 7$", run.text("link-up"), re.M), run.text("link-up")


def test_rings_applied_and_read_back(run):
    before = ethtool_current(run.text("before-ethtool-g"))
    after = ethtool_current(run.text("ethtool-g"))
    got = {r["target"]: r for r in results(run.json("apply1"), "rings") if r["iface"] == IFACE}
    steps = [s for s in run.steps("rings") if s[1] == IFACE]
    assert steps, run.text("plan")
    for _, _, param, value in steps:
        assert before[param] == MACB_DEFAULT_RING, run.text("before-ethtool-g")
        assert int(value) != before[param], f"{param} already {value}: nothing proven"
        assert after[param] == macb_ring(param, int(value)) == int(value), run.text("ethtool-g")
        assert got[param]["result"] == "applied" and got[param]["actual"] == value, got[param]
    run.check_macb_variant_rings()


def test_coalescing_reported_unsupported_and_skipped(run):
    run.check_macb_coalesce_unsupported()


def test_mtu_above_the_driver_limit_is_refused_on_the_target(run):
    """A plan that asks MTU 9000 anyway: the real macb refuses it (max_mtu
    1518 for zynq_config), the applier reports it and goes on."""
    # The limit itself, as the driver states it (`ip -d link`: maxmtu).
    assert re.search(rf"\bmaxmtu {ZYNQ_GEM_MAX_MTU}\b", run.text("link-up")), run.text("link-up")
    doc = run.json("extra-apply")
    mtu = [r for r in results(doc, "mtu") if r["iface"] == IFACE]
    assert mtu and mtu[0]["result"] in ("failed", "skipped") and mtu[0]["detail"], mtu
    status = step_keys(run.json("extra-status-json"))
    assert status[("mtu", IFACE, "-")]["actual"] == "1500", status[("mtu", IFACE, "-")]
    budget = [r for r in results(doc, "sysctl") if r["target"] == "net.core.netdev_budget"]
    assert budget and budget[0]["result"] in ("applied", "unchanged"), "the step after a refused one must run"


def test_offloads_applied_and_read_back(run):
    k = run.text("ethtool-k")
    names = {"gro": "generic-receive-offload", "gso": "generic-segmentation-offload"}
    got = {r["target"]: r for r in results(run.json("apply1"), "offload") if r["iface"] == IFACE}
    steps = [s for s in run.steps("offload") if s[1] == IFACE]
    assert steps, run.text("plan")
    for _, _, feature, value in steps:
        assert re.search(rf"^{names[feature]}: {value}\b", k, re.M), f"{feature} {value}:\n{k}"
        assert got[feature]["result"] in ("applied", "unchanged"), got[feature]
    # The variant turns gro off: a change, read back by status.
    extra = step_keys(run.json("extra-apply"))[("offload", IFACE, "gro")]
    assert extra["result"] == "applied", extra
    status = step_keys(run.json("extra-status-json"))[("offload", IFACE, "gro")]
    assert status["result"] == "ok" and status["actual"] == "off", status


def test_rps_rfs_written_and_xps_skipped_on_one_tx_queue(run):
    before = sysfs_values(run.text("before-queues"))
    vals = sysfs_values(run.text("queues"))
    checked = 0
    for _, iface, queue, mask in (s for s in run.steps("rps") if s[1] == IFACE):
        assert mask_int(before[f"{queue}/rps_cpus"]) != mask_int(mask) & ONLINE, "RPS already set: nothing proven"
        assert mask_int(vals[f"{queue}/rps_cpus"]) == mask_int(mask) & ONLINE, (queue, vals)
        checked += 1
    for _, iface, queue, count in (s for s in run.steps("rfs") if s[1] == IFACE):
        assert int(vals[f"{queue}/rps_flow_cnt"]) == 1 << (int(count) - 1).bit_length(), (queue, vals)
        checked += 1
    assert checked >= 2, run.text("plan")
    for r in run.json("apply1")["steps"]:
        if r["verb"] in ("rps", "rfs"):
            assert r["result"] == "applied", r
    # xps_cpus of a single-queue device cannot be written or read
    # (net-sysfs.c: -ENOENT unless netif_is_multiqueue()): skipped, with why.
    assert not run.steps("xps"), "the zc702 board has one TX queue: no XPS expected in its plan"
    xps = results(run.json("extra-apply"), "xps")
    assert xps and all(r["result"] == "skipped" and r["detail"] for r in xps), xps


def test_irq_affinity_by_name_and_effective_cpu(run):
    irq_steps = [s for s in run.steps("irq") if s[1] == IFACE]
    assert irq_steps, run.text("plan")
    _, _, pattern, board_mask = irq_steps[-1]
    eth = irq_rows(run.text("interrupts"), IFACE)
    assert len(eth) == 1, f"one IRQ named {IFACE} expected (one GEM queue):\n{run.text('interrupts')}"
    (irq,) = eth
    board = [r for r in results(run.json("apply1"), "irq") if r["iface"] == IFACE]
    assert [r["target"] for r in board] == [str(irq)], f"the plan's IRQ pattern {pattern} found {board}"
    if mask_int(board_mask) & ONLINE:
        mask = board_mask
        assert board[0]["result"] == "applied", board
        steps_doc = "apply1"
    else:
        # CPU 1 is not emulated: skipped with the reason, never failed, and
        # the variant names CPU 0 by the same IRQ name.
        assert board[0]["result"] == "skipped" and "no CPU of the mask is online" in board[0]["detail"], board
        mask = [s for s in run.variant if s[0] == "irq"][-1][3]
        steps_doc = "extra-apply"
    want_cpu = lowest_cpu(mask_int(mask) & ONLINE)
    rows = {int(n): (smp, el) for n, smp, _, el in irq_affinity_rows(run.text("irqs"))}
    smp, eff_list = rows[irq]
    assert mask_int(smp) == mask_int(mask) & ONLINE, (irq, smp, mask)
    assert eff_list == str(want_cpu), f"IRQ {irq} effective on CPU {eff_list}, asked {mask}"
    steps = [r for r in results(run.json(steps_doc), "irq") if r["iface"] == IFACE]
    assert steps and all(r["result"] in ("applied", "unchanged") and r["target"] == str(irq) for r in steps), steps
    # Traffic after the plan (the ping to slirp's gateway) lands on that CPU only.
    before = irq_rows(run.text("interrupts-before-ping"), IFACE)
    delta = [a - b for a, b in zip(eth[irq], before[irq])]
    assert delta[want_cpu] > 0, f"no {IFACE} interrupts on CPU {want_cpu}: {delta}"
    assert sum(delta) == delta[want_cpu], f"{IFACE} IRQ {irq} spread: {delta}"


def test_sysctls_applied(run):
    run.check_sysctls()


def test_ring_change_keeps_queue_and_irq_settings(run):
    """macb reopens the device on `ethtool -G` (the variant's rings): the
    board's RPS/RFS/IRQ settings stay put."""
    doc = run.json("after-extra-status-json")
    checked = [r for r in doc["steps"] if r["verb"] in ("rps", "rfs", "irq") and r["iface"] == IFACE]
    assert checked, doc
    for r in checked:
        assert r["result"] == ("skipped" if cpu1_missing(r) else "ok"), r


def cpu1_missing(r: dict) -> bool:
    """The board's IRQ step on the one-CPU QEMU (see the module docstring)."""
    return SMP == 1 and r["verb"] == "irq" and "no CPU of the mask is online" in r["detail"]


def test_second_run_changes_nothing_and_status_shows_no_drift(run):
    run.check_second_apply()
    # Stricter than "ok where applied": every step but the one needing CPU 1.
    for r in run.json("status-json")["steps"]:
        assert r["result"] == ("skipped" if cpu1_missing(r) else "ok"), r
    # The same reading under busybox ash (Yocto's usual /bin/sh).
    run.check_status_same_under_ash()


def test_exit_codes_as_documented(run):
    """docs/applier.md: 0 all applied/unchanged (status: all ok), 3 some
    skipped, failed or differing; the JSON's "exit" is the exit code."""
    run.check_exit_codes(("apply1", "apply2", "status-json", "status2-json", "extra-apply"))
    # Everything of the board applies on the emulated GEM but what needs the
    # second CPU; the variant has refused steps by design.
    assert run.rc("apply1") == (3 if SMP == 1 else 0), run.text("apply1")
    assert [r for r in run.json("apply1")["steps"] if r["result"] not in ("applied", "unchanged")] == \
        [r for r in run.json("apply1")["steps"] if cpu1_missing(r)], run.text("apply1")
    assert run.rc("extra-apply") == 3, run.text("extra-apply")
