"""The generated zcu102 tuning applied to the real macb driver under QEMU.

scripts/qemu-zcu102 boots Debian's arm64 kernel on QEMU's xlnx-zcu102
machine (four Cortex-A53, GIC-400, Cadence GEMs; eth0 = gem3) with a
TEST-ONLY DTB (tests/qemu/zcu102-qemu-adapt.dtsi) and an initramfs holding
the generated plan and applier (tests/qemu/macb-init.sh runs them). One
boot serves every test in this module; the guest's results arrive as
sections (see the script's header) and are checked here against the plan.

Driver facts checked (drivers/net/ethernet/cadence/macb_main.c, 6.12):
- macb_set_ringparam(): rx 64..8192, tx 64..4096, roundup_pow_of_two().
- no get/set_coalesce in macb_ethtool_ops: `ethtool -C` is EOPNOTSUPP.
- every queue requests the same IRQ line (both `interrupts` entries of
  gem3 are GIC SPI 63), named after the netdev ("eth0, eth0").
- the GIC-400 delivers an SPI to one CPU: the first online CPU of the mask
  (gic_set_affinity(), drivers/irqchip/irq-gic.c), read back from
  /proc/irq/N/effective_affinity.
"""
from __future__ import annotations

import json
import os
import pathlib
import re

import pytest

from qemu_results import (Run, boot, ethtool_current, irq_affinity_rows, irq_rows, lowest_cpu, macb_ring,
                          mask_int, results, skip_without_tcg, sysfs_values)

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
SCRIPT = ROOT / "scripts" / "qemu-zcu102"
IFACE = "eth0"
ONLINE = 0xF  # -smp 4
# Hard limit of the QEMU run itself (the boot takes ~10 s under TCG).
BOOT_TIMEOUT = int(os.environ.get("ZYNQ_NET_QEMU_TIMEOUT", "120"))
MAX_BOOT = float(os.environ.get("ZYNQ_NET_QEMU_MAX_BOOT", "90"))
# Whole script, including a first download of ~100 MB into the cache.
SCRIPT_TIMEOUT = BOOT_TIMEOUT + 600

# The variant plan: what the board's plan does not exercise. The board asks
# rings of 1024 (already powers of two); the variant asks rx 3000 and tx 100,
# which macb rounds up to 4096 and 128 (rule ring-rounded's rx 1000 -> 1024 is the
# same roundup_pow_of_two); coalescing must be reported unsupported; RPS/RFS on
# both GEM RX queues (the zcu102 board keeps RPS off on eth0: a single TCP
# flow got slower with it in the field notes); ptp_1588 does not exist on
# macb; BBR is a module the emulated kernel does not have in its initramfs
# (a kernel feature it lacks): reported, and the next step still runs.
# multiq and two u32/skbedit filters on gem3's two TX queues (Debian's
# sch_multiq, cls_u32 and act_skbedit modules, loaded by the initramfs):
# the guest pings the gateway (dst filter -> queue 1) and, through it, a
# TEST-NET address (only the src filter matches -> queue 0).
VARIANT = """\
zynq-net-plan 2
# scripts/qemu-zcu102 --extra-plan: test variant, not a board
board zcu102-qemu-variant
wait eth0 5
rings eth0 rx 3000
rings eth0 tx 100
coalesce eth0 rx-usecs 64
ptp eth0 off
rps eth0 rx-0 0000000c
rps eth0 rx-1 0000000c
rfs eth0 rx-0 2048
rfs eth0 rx-1 2048
qdisc eth0 multiq
filter eth0 1 dst 10.0.2.2 1
filter eth0 2 src 10.0.2.0/24 0
sysctl net.ipv4.tcp_congestion_control bbr
sysctl net.core.netdev_budget 600
"""


# --------------------------------------------------------------- fixture
@pytest.fixture(scope="module")
def run(gen_board, zynq_net, tmp_path_factory) -> Run:
    skip_without_tcg("qemu-system-aarch64", "qemu-system-arm")
    gen = gen_board("zcu102")
    return boot(tmp_path_factory, "qemu-zcu102",
                lambda out: [str(SCRIPT), "--gen", str(gen), "--out", str(out), "--timeout", str(BOOT_TIMEOUT),
                             "--zynq-net", str(zynq_net)],
                gen, VARIANT, SCRIPT_TIMEOUT)


# ----------------------------------------------------------------- tests
def test_boots_to_result_in_time(run):
    secs = run.boot_seconds()
    # Typically 10-15 s on two idle host cores (TCG, -smp 4); the limit has
    # headroom for a loaded CI machine.
    assert secs < MAX_BOOT, f"boot-to-result {secs}s" + run.context()
    (run.out / "boot-to-result.txt").write_text(f"{secs}\n")
    netdevs = run.text("netdevs")
    assert re.search(rf"^{IFACE} driver=macb queues=rx-0 rx-1 tx-0 tx-1", netdevs, re.M), \
        f"gem3 should be {IFACE} (macb, 2 queues):\n{netdevs}"


def test_plans_cover_both_gem_queues_and_the_irq(run):
    """RPS (variant or board) and XPS (board) on both GEM queues; eth0 IRQ."""
    steps = run.plan + run.variant
    rps = {s[2] for s in steps if s[0] == "rps" and s[1] == IFACE}
    xps = {s[2] for s in steps if s[0] == "xps" and s[1] == IFACE}
    plan = run.text("plan")
    assert {"rx-0", "rx-1"} <= rps, f"RPS for both GEM RX queues expected:\n{plan}"
    assert {"tx-0", "tx-1"} <= xps, f"XPS for both GEM TX queues expected:\n{plan}"
    assert any(s[1] == IFACE for s in run.steps("irq")), f"no irq step for {IFACE}:\n{plan}"


def test_rings_applied_and_rounded_like_macb(run):
    cur = ethtool_current(run.text("ethtool-g"))
    doc = run.json("apply1")
    got = {r["target"]: r for r in results(doc, "rings") if r["iface"] == IFACE}
    for _, iface, param, value in (s for s in run.steps("rings") if s[1] == IFACE):
        want = macb_ring(param, int(value))
        assert cur[param] == want, (
            f"ethtool -g {param}: {cur[param]}, macb keeps {want} for {value}\n"
            + run.text("ethtool-g"))
        assert got[param]["result"] in ("applied", "unchanged"), got[param]
        assert int(got[param]["actual"]) == want, got[param]
    run.check_macb_variant_rings()
    assert macb_ring("rx", 1000) == 1024


def test_multiq_and_u32_skbedit_filters_on_macb(run):
    """The variant's qdisc and filter steps on the real macb and Debian's
    sch_multiq/cls_u32/act_skbedit: applied, read back with tc (the root is
    multiq 1: with one band per TX queue; each filter's u32 key is the
    address at the IPv4 header offset of its field, 16 for dst and 12 for
    src, include/uapi/linux/ip.h), `status` says ok, and traffic to each
    mapped address went through its filter's action into its band."""
    doc = run.json("extra-apply")
    got = {(r["verb"], r["target"]): r for r in doc["steps"] if r["verb"] in ("qdisc", "filter")}
    for key in (("qdisc", "-"), ("filter", "1"), ("filter", "2")):
        assert key in got and got[key]["result"] == "applied", f"{key}: {got.get(key)}\n" + run.text("extra-apply")
    qdisc = run.text("extra-tc-qdisc")
    assert re.search(r"^qdisc multiq 1: root .*bands 2/2", qdisc, re.M), qdisc
    status = {(r["verb"], r["target"]): r["result"] for r in run.json("extra-status-json")["steps"]}
    assert all(status[k] == "ok" for k in got), status
    filters = [f for f in run.json("extra-tc-filter") if "match" in f.get("options", {})]
    by_pref = {f["pref"]: f["options"] for f in filters}
    want = {}  # pref -> (value, mask, offset, queue) from the plan
    for _, iface, prio, field, addr, queue in (s for s in run.variant if s[0] == "filter"):
        ip, _, plen = addr.partition("/")
        mask = (0xFFFFFFFF << (32 - int(plen or 32))) & 0xFFFFFFFF
        value = int.from_bytes(bytes(int(o) for o in ip.split(".")), "big") & mask
        want[int(prio)] = (value, mask, {"dst": 16, "src": 12}[field], int(queue))
    assert sorted(by_pref) == sorted(want), run.text("extra-tc-filter-text")
    bands = {int(b): int(p) for b, p in re.findall(r"class multiq 1:(\d+) .*\n Sent \d+ bytes (\d+) pkt",
                                                   run.text("extra-tc-class"))}
    for pref, (value, mask, off, queue) in want.items():
        opt = by_pref[pref]
        m = opt["match"]
        assert (int(m["value"], 16), int(m["mask"], 16), m["off"]) == (value, mask, off), opt
        act = [a for a in opt["actions"] if a["kind"] == "skbedit"]
        assert act and act[0]["queue_mapping"] == queue, opt
        hits = act[0]["stats"]["packets"]
        assert hits > 0, f"no packet through filter {pref}:\n" + run.text("extra-tc-filter-text")
        assert bands.get(queue + 1, 0) >= hits, f"band {queue + 1} (TX queue {queue}): {bands}"


def test_coalescing_reported_unsupported_and_skipped(run):
    run.check_macb_coalesce_unsupported()


def _check_queues(run, steps, section):
    vals = sysfs_values(run.text(section))
    checked = 0
    for verb, knob in (("rps", "rps_cpus"), ("xps", "xps_cpus")):
        for _, iface, queue, mask in (s for s in steps if s[0] == verb and s[1] == IFACE):
            key = f"{queue}/{knob}"
            assert key in vals, f"{key} missing:\n{run.text(section)}"
            assert mask_int(vals[key]) == mask_int(mask) & ONLINE, \
                f"{key} = {vals[key]}, plan {mask}"
            checked += 1
    for _, iface, queue, count in (s for s in steps if s[0] == "rfs" and s[1] == IFACE):
        got = int(vals[f"{queue}/rps_flow_cnt"])
        assert got == 1 << (int(count) - 1).bit_length(), f"{queue} rps_flow_cnt {got}"
    return checked


def test_rps_xps_written_for_both_queues(run):
    # The board's steps, read back after its plan ran ...
    board = _check_queues(run, run.plan, "queues")
    # ... and the variant's (RPS on rx-0 and rx-1), after it ran.
    variant = _check_queues(run, run.variant, "extra-queues")
    assert board + variant >= 4, "expected RPS and XPS steps for both GEM queues"
    for doc, steps in ((run.json("apply1"), run.plan), (run.json("extra-apply"), run.variant)):
        for r in doc["steps"]:
            if r["verb"] in ("rps", "xps", "rfs") and r["iface"] == IFACE:
                assert r["result"] in ("applied", "unchanged"), r


def test_irq_effective_affinity_on_the_board_cpu(run):
    irq_steps = [s for s in run.steps("irq") if s[1] == IFACE]
    assert irq_steps, run.text("plan")
    _, _, pattern, mask = irq_steps[-1]
    want_cpu = lowest_cpu(mask_int(mask) & ONLINE)
    rows = irq_affinity_rows(run.text("irqs"))
    eth = irq_rows(run.text("interrupts"), IFACE)
    assert eth, f"no IRQ named {IFACE}:\n{run.text('interrupts')}"
    for irq, smp, eff, eff_list in rows:
        if int(irq) not in eth:
            continue
        assert mask_int(smp) == mask_int(mask) & ONLINE, (irq, smp, mask)
        assert eff_list == str(want_cpu), \
            f"IRQ {irq} effective on CPU {eff_list}, board asked {mask} -> CPU {want_cpu}"
    # Traffic after the plan lands only on that CPU.
    before = irq_rows(run.text("interrupts-before-ping"), IFACE)
    for irq, counts in eth.items():
        delta = [a - b for a, b in zip(counts, before.get(irq, [0] * len(counts)))]
        assert delta[want_cpu] > 0, f"no {IFACE} interrupts on CPU {want_cpu}: {delta}"
        assert sum(delta) == delta[want_cpu], f"{IFACE} IRQ {irq} spread: {delta}"
    steps = [r for r in results(run.json("apply1"), "irq") if r["iface"] == IFACE]
    assert steps and all(r["result"] in ("applied", "unchanged") for r in steps), steps


def test_sysctls_applied(run):
    run.check_sysctls()


def test_ring_change_keeps_queue_and_irq_settings(run):
    """macb reopens the device on `ethtool -G`; RPS/XPS/IRQ stay put."""
    doc = run.json("after-extra-status-json")
    for r in doc["steps"]:
        if r["verb"] in ("rps", "xps", "rfs", "irq") and r["iface"] == IFACE:
            assert r["result"] == "ok", r


def test_exit_code_as_documented(run):
    """`zynq-net-apply --help` (docs/applier.md): 0 all applied/unchanged
    (status: all ok), 3 some skipped, failed or differing; the JSON's
    "exit" is the exit code."""
    run.check_exit_codes(("apply1", "apply2", "status-json", "status2-json", "extra-apply"))


def test_unsupported_or_absent_is_skipped_not_failed(run):
    """What the emulated board cannot do - PL interfaces that never appear,
    offloads the GEM model does not have - is skipped with a reason; only a
    real error is 'failed'."""
    failed = [r for r in run.json("apply1")["steps"] if r["result"] == "failed"]
    assert not failed, "steps reported failed on the emulated board:\n" + \
        "\n".join(json.dumps(r) for r in failed)


def test_second_run_changes_nothing(run):
    run.check_status_ok_where_applied(run.check_second_apply())


def test_status_same_under_busybox_ash(run):
    """The applier is POSIX sh: busybox ash reads the system as dash does."""
    run.check_status_same_under_ash()


def test_missing_kernel_features_reported_not_fatal(run):
    doc = run.json("extra-apply")
    by = {(r["verb"], r["target"]): r for r in doc["steps"]}
    ptp = by[("ptp", "-")] if ("ptp", "-") in by else results(doc, "ptp")[0]
    assert ptp["result"] == "skipped", ptp
    bbr = by[("sysctl", "net.ipv4.tcp_congestion_control")]
    assert bbr["result"] in ("failed", "skipped") and bbr["detail"], bbr
    assert by[("sysctl", "net.core.netdev_budget")]["result"] in ("applied", "unchanged"), \
        "the step after the missing feature must still run: " + run.text("extra-apply")
    assert run.rc("extra-apply") == 3
    # Host side: what the generated fragments ask that Debian's kernel lacks
    # (the boot went on regardless) ...
    have = {}
    for line in (run.out / "kernel.config").read_text().splitlines():
        m = re.match(r"(CONFIG_\w+)=(.*)", line) or re.match(r"# (CONFIG_\w+) is not set", line)
        if m:
            have[m.group(1)] = m.group(2) if m.lastindex == 2 else "n"
    report = (run.out / "kconfig-report.txt").read_text()
    for cfg in sorted((run.gen / "kernel").glob("*.cfg")):
        for sym, val in re.findall(r"^(CONFIG_\w+)=(\S+)", cfg.read_text(), re.M):
            if have.get(sym) != val:
                assert f"{cfg.name}: wants {sym}={val};" in report, \
                    f"{sym}={val} (kernel: {have.get(sym)}) not reported:\n{report}"
    # ... and the PL nodes of the DT fragment QEMU cannot emulate: disabled in
    # the test DTB and listed, never an error.
    dt_report = (run.out / "dt-report.txt").read_text()
    frag_path = run.gen / "dt" / "zynq-net.dtsi"
    frag = frag_path.read_text() if frag_path.exists() else ""
    pl = re.findall(r'compatible = "(xlnx,(?:axi-ethernet|xxv-ethernet|eth-dma|axi-dma|axi-mcdma)[^"]*)"', frag)
    for compat in pl:
        assert compat in dt_report, f"PL node {compat} not reported:\n{dt_report}"
    if frag:
        assert "zynq-net dtb verify" in dt_report, dt_report
    assert run.env.get("done") == "1"
