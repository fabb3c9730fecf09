"""The generated tuning on the real gianfar driver of an emulated P1020-class
router.

scripts/qemu-p1020 cross-builds (once, cached) a small kernel from Debian's
linux-source-6.12: tests/qemu/p1020-qemu-test-only.cfg (the QEMU platform,
console, initramfs, net stack) on allnoconfig + the p1020rdb board's
generated kernel fragments (gianfar, the flowtable, tc, RPS come from
these alone), checks it with `zynq-net kconfig verify`, and boots it on `qemu-system-ppc -M ppce500
-cpu e500v2` with two eTSEC ports and an initramfs of static busybox,
ethtool and iproute2 built from Debian's source packages. The guest runs the
plan of tests/qemu/boards/p1020-qemu.yml (the test board for the emulated
machine) with tests/qemu/p1020-init.sh; one boot serves every test here.

Driver facts checked (drivers/net/ethernet/freescale/gianfar*.c, 6.12):
- gfar_sringparam(): sizes above GFAR_RX_MAX_RING_SIZE/GFAR_TX_MAX_RING_SIZE
  (256) or not a power of two are refused with EINVAL, never rounded;
- gfar_scoalesce(): usecs <= GFAR_MAX_COAL_USECS (0xffff), frames <= 0xff;
  usecs are stored as eTSEC timer ticks, DIV_ROUND_UP(usecs * 1000, tick)
  with tick 512 ns at 1000 Mbit/s, 2560 at 100, 25600 at 10
  (GFAR_GBIT_TIME...), and gfar_gcoalesce() reads back ticks * tick / 1000;
- gfar_request_irq(): with separate tx/rx/error interrupts each queue group
  names them IFACE_g0_tx, IFACE_g0_rx, IFACE_g0_er;
- gfar_of_init(): an "fsl,etsec2" node has one TX and one RX queue per
  queue-group child; QEMU's eTSEC node has one (hw/ppc/e500.c).
"""
from __future__ import annotations

import re

import pytest

import qemu_results
from p1020 import SCRIPT, SCRIPT_TIMEOUT, SMP, generate, script_args, skip_if_not_cached, skip_without_tools
from qemu_results import boot, ethtool_current, interrupt_table, lowest_cpu, mask_int, results

TEST_ONLY_CFG = SCRIPT.parent.parent / "tests" / "qemu" / "p1020-qemu-test-only.cfg"
IFACES = ("eth0", "eth1")
ONLINE = (1 << SMP) - 1
GFAR_TICK_NS = {1000: 512, 100: 2560, 10: 25600}

# What the board cannot ask (the model refuses it) but a plan can carry:
# gianfar must refuse these ring sizes, and the applier must report it and
# go on with the next step. An ntuple rule for gianfar's filer
# (gianfar_ethtool.c gfar_set_nfc).
VARIANT = """\
zynq-net-plan 2
# scripts/qemu-p1020 --extra-plan: test variant, not a board
board p1020-qemu-variant
rings eth1 rx 100
rings eth1 tx 512
coalesce eth1 rx-usecs 1000
coalesce eth1 rx-frames 255
ntuple eth1 flow-type udp4 dst-port 5000 action 0
xps eth1 tx-0 00000001
sysctl net.core.netdev_budget 500
"""


# --------------------------------------------------------------- helpers
def gfar_usecs(usecs: int, speed: int) -> int:
    """What gfar_gcoalesce() reads back after gfar_scoalesce(usecs)."""
    tick = GFAR_TICK_NS.get(speed, GFAR_TICK_NS[10])
    ticks = -(-usecs * 1000 // tick)
    return ticks * tick // 1000


def ethtool_blocks(text: str) -> dict[str, str]:
    """Split 'ethtool -X eth0; ethtool -X eth1' output per interface."""
    out = {}
    for m in re.finditer(r"(?:Ring parameters|Coalesce parameters) for (\S+):(.*?)(?=(?:Ring|Coalesce) parameters for |\Z)",
                         text, re.S):
        out[m.group(1)] = m.group(2)
    return out


def coalesce_value(block: str, key: str) -> int:
    m = re.search(rf"^{re.escape(key)}:\s+(\d+)", block, re.M)
    assert m, f"{key} not in:\n{block}"
    return int(m.group(1))


def irq_rows(text: str, pattern: str) -> dict[int, tuple[str, list[int]]]:
    """IRQ -> (action name, per-CPU counts) for /proc/interrupts rows whose
    last field (gianfar's one action name) matches the regex pattern."""
    return {irq: (rest[-1], counts) for irq, counts, rest in interrupt_table(text)
            if rest and re.fullmatch(pattern, rest[-1])}


class Run(qemu_results.Run):
    def speed(self, iface: str) -> int:
        """Link speed in Mb/s from the `link-up` section's `ethtool IFACE`."""
        blocks = re.split(r"(?=Settings for )", self.text("link-up"))
        for b in blocks:
            if b.startswith(f"Settings for {iface}:"):
                m = re.search(r"Speed:\s+(\d+)Mb/s", b)
                assert m, b
                return int(m.group(1))
        raise AssertionError(f"no ethtool settings for {iface}:\n{self.text('link-up')}")


# --------------------------------------------------------------- fixture
@pytest.fixture(scope="module")
def gens(zynq_net, tmp_path_factory):
    """(test board gen dir, reference p1020rdb gen dir)."""
    return generate(zynq_net, tmp_path_factory.mktemp("p1020-gen"))


@pytest.fixture(scope="module")
def run(gens, zynq_net, tmp_path_factory) -> Run:
    skip_without_tools()
    r = boot(tmp_path_factory, "qemu-p1020", lambda out: script_args(gens, out, zynq_net), gens[0], VARIANT,
             SCRIPT_TIMEOUT, Run)
    skip_if_not_cached(r.proc.returncode, r.proc.stderr)
    return r


# ----------------------------------------------------------------- tests
def test_test_board_has_the_reference_kernel_fragments(gens):
    """The kernel is built with p1020rdb.yml's fragments; the test board's
    are the same bytes but for the header naming its file, so the booted
    kernel is the one its plan was generated for."""
    gen, ref = gens
    names = sorted(p.name for p in (ref / "kernel").glob("*.cfg"))
    assert names == sorted(p.name for p in (gen / "kernel").glob("*.cfg"))
    for n in names:
        body = [line for line in (ref / "kernel" / n).read_text().splitlines() if not line.startswith("#")]
        assert body == [line for line in (gen / "kernel" / n).read_text().splitlines()
                        if not line.startswith("#")], n


def test_kernel_has_the_fragments_and_verifies(run, gens):
    _, ref = gens
    have = run.kernel_config(ref / "kernel")
    assert "CONFIG_PPC_QEMU_E500=y" in have and "CONFIG_GIANFAR=y" in have
    # The small allnoconfig kernel: no modules, no PCI (mpc85xx_smp_defconfig
    # has both), and the test-only base names none of the board's symbols,
    # so gianfar, the flowtable, tc and RPS are in it only through the
    # generated fragments, which `kconfig verify` above holds.
    assert "CONFIG_MODULES=y" not in have and "CONFIG_PCI=y" not in have
    # (SYSFS is the harness's own need too: the init mounts /sys; so are NET
    # and INET, which the flowtable fragment lists to be closed over its
    # dependencies: ping and nc run with any board.)
    base = {line.split("=")[0] for line in TEST_ONLY_CFG.read_text().splitlines()
            if line.startswith("CONFIG_")} - {"CONFIG_SYSFS", "CONFIG_NET", "CONFIG_INET"}
    for cfg in sorted((ref / "kernel").glob("zynq-net-*.cfg")):
        board = {line.split("=")[0] for line in cfg.read_text().splitlines() if line.startswith("CONFIG_")}
        assert not board & base, f"{TEST_ONLY_CFG.name} sets {sorted(board & base)} of {cfg.name}"


def test_boots_to_result_on_gianfar(run):
    run.boot_seconds(f", -smp {SMP}")
    netdevs = run.text("netdevs")
    for iface in IFACES:
        assert re.search(rf"^{iface} driver=fsl-gianfar queues=rx-0 tx-0 $", netdevs, re.M), \
            f"{iface}: gianfar with one RX and one TX queue expected:\n{netdevs}"
    cpus = run.text("cpus").strip()
    assert cpus == ("0" if SMP == 1 else f"0-{SMP - 1}"), f"online CPUs {cpus}" + run.context()


def test_rings_applied_and_read_back(run):
    blocks = ethtool_blocks(run.text("before-ethtool-g"))
    doc = run.json("apply1")
    for iface in IFACES:
        before = ethtool_current(blocks[iface])
        after = ethtool_current(ethtool_blocks(run.text(f"ethtool-g-{iface}"))[iface])
        got = {r["target"]: r for r in results(doc, "rings") if r["iface"] == iface}
        for _, _, param, value in (s for s in run.steps("rings") if s[1] == iface):
            assert before[param] != int(value), f"{iface} {param} already {value}: nothing proven"
            assert after[param] == int(value), f"{iface} {param}: {after[param]}, plan {value}"
            assert got[param]["result"] == "applied" and got[param]["actual"] == value, got[param]


def test_rings_gianfar_refuses_are_reported(run):
    """rx 100 (not a power of two) and tx 512 (> 256): gianfar returns
    EINVAL and keeps the old size; the applier says so and goes on."""
    doc = run.json("extra-apply")
    got = {r["target"]: r for r in results(doc, "rings") if r["iface"] == "eth1"}
    cur = ethtool_current(ethtool_blocks(run.text("extra-ethtool-g"))["eth1"])
    board = {s[2]: int(s[3]) for s in run.steps("rings") if s[1] == "eth1"}
    for param in ("rx", "tx"):
        assert got[param]["result"] in ("failed", "skipped"), got[param]
        assert got[param]["detail"], got[param]
        assert cur[param] == board[param], f"gianfar changed {param} to {cur[param]}"
    assert run.rc("extra-apply") == 3, run.text("extra-apply")
    budget = [r for r in results(doc, "sysctl") if r["target"] == "net.core.netdev_budget"]
    assert budget and budget[0]["result"] == "applied", "the step after a refused one must run"


def test_coalescing_applied_and_read_back(run):
    doc = run.json("apply1")
    for iface in IFACES:
        speed = run.speed(iface)
        block = ethtool_blocks(run.text(f"ethtool-c-{iface}"))[iface]
        want = {s[2]: int(s[3]) for s in run.steps("coalesce") if s[1] == iface}
        assert coalesce_value(block, "rx-frames") == want["rx-frames"], block
        assert coalesce_value(block, "rx-usecs") == gfar_usecs(want["rx-usecs"], speed), \
            f"{iface} at {speed} Mb/s: rx-usecs {want['rx-usecs']} reads back as gianfar's ticks\n{block}"
        got = {r["target"]: r for r in results(doc, "coalesce") if r["iface"] == iface}
        assert got["rx-frames"]["result"] == "applied", got
        assert got["rx-usecs"]["result"] == "applied", got
    # The variant: 1000 us = 1954 ticks at 1 Gbit/s, frames 255 = the maximum.
    block = ethtool_blocks(run.text("extra-ethtool-c"))["eth1"]
    assert coalesce_value(block, "rx-usecs") == gfar_usecs(1000, run.speed("eth1")), block
    assert coalesce_value(block, "rx-frames") == 255, block


def test_irq_affinity_by_gianfar_names(run):
    interrupts = run.text("interrupts")
    irqs = {int(n): (s, e) for n, s, e in
            re.findall(r"^irq (\d+) smp_affinity (\S+) effective_affinity (\S+)", run.text("irqs"), re.M)}
    doc = run.json("apply1")
    for _, iface, pattern, mask in run.steps("irq"):
        rows = irq_rows(interrupts, re.escape(iface) + r"_g0_(tx|rx|er)")
        assert sorted(n for n, _ in rows.values()) == [f"{iface}_g0_er", f"{iface}_g0_rx", f"{iface}_g0_tx"], \
            f"gianfar IRQ names for {iface}:\n{interrupts}"
        want_cpu = lowest_cpu(mask_int(mask) & ONLINE)
        for irq in rows:
            smp, eff = irqs[irq]
            assert mask_int(smp) == mask_int(mask) & ONLINE, (iface, irq, smp, mask)
            if not eff.startswith("cat:"):
                assert mask_int(eff) == 1 << want_cpu, (iface, irq, eff)
        steps = [r for r in results(doc, "irq") if r["iface"] == iface]
        assert steps and all(r["result"] == "applied" for r in steps), steps
        # Traffic after the plan (pings, the slirp gateway's ARP) lands on that CPU only.
        before = irq_rows(run.text("interrupts-after-apply"), re.escape(iface) + r"_g0_(tx|rx)")
        moved = 0
        for irq, (name, counts) in rows.items():
            if irq not in before:
                continue
            delta = [a - b for a, b in zip(counts, before[irq][1])]
            for cpu, d in enumerate(delta):
                if cpu != want_cpu:
                    assert d == 0, f"{name} (IRQ {irq}) still on CPU {cpu}: {delta}"
            moved += delta[want_cpu]
        if iface == "eth0":
            assert moved > 0, f"no {iface} interrupts on CPU {want_cpu}"


def test_xps_on_one_tx_queue_is_left_out_or_skipped_with_the_reason(run):
    """xps_cpus of a single-queue device cannot be written or read
    (net-sysfs.c: -ENOENT unless netif_is_multiqueue()): the generator
    leaves the test board's xps entries out of the plan (warning
    xps-single-queue), and the applier, given such a step anyway (the
    variant plan), skips it and says why, never reports it applied."""
    assert not run.steps("xps"), run.text("plan")
    steps = results(run.json("extra-apply"), "xps")
    assert steps, run.json("extra-apply")
    for r in steps:
        assert r["result"] == "skipped" and r["detail"], r


def test_rps_rfs_written(run):
    for verb, knob in (("rps", "rps_cpus"), ("rfs", "rps_flow_cnt")):
        for _, iface, queue, value in run.steps(verb):
            vals = dict(line.split(" ", 1) for line in run.text(f"queues-{iface}").splitlines() if line)
            got = vals[f"{queue}/{knob}"].strip()
            if verb == "rfs":
                assert int(got) == 1 << (int(value) - 1).bit_length(), (iface, queue, got)
            else:
                assert mask_int(got) == mask_int(value) & ONLINE, (iface, queue, knob, got, value)
    for r in run.json("apply1")["steps"]:
        if r["verb"] in ("rps", "rfs"):
            assert r["result"] == "applied", r


def test_multiq_on_one_tx_queue_is_skipped_with_the_reason(run):
    """QEMU's eTSEC has one TX queue: multiq has nothing to spread, so
    the applier skips the qdisc and its filter with the reason, and the
    device keeps its default qdisc."""
    steps = [r for r in run.json("apply1")["steps"] if r["verb"] in ("qdisc", "filter")]
    assert steps, run.text("plan")
    for r in steps:
        assert r["result"] == "skipped" and r["detail"], r
    assert "multiq" not in run.text("tc-qdisc-eth0"), run.text("tc-qdisc-eth0")


def test_sysctls_applied(run):
    guest = run.check_sysctls()
    assert guest["net.ipv4.ip_forward"].strip() == "1"


def test_second_run_changes_nothing(run):
    run.check_status_ok_where_applied(run.check_second_apply())


def test_exit_codes_as_documented(run):
    """docs/applier.md: 0 all applied/unchanged (status: all ok), 3 some
    skipped, failed or differing; the JSON's "exit" is the exit code."""
    run.check_exit_codes(("apply1", "apply2", "status-json", "status2-json", "extra-apply"))


def test_ntuple_rule_on_gianfar(run):
    """`ntuple` on a real driver: gianfar's filer takes the rule
    (gfar_set_nfc(), ETHTOOL_SRXCLSRLINS); the applier records the location
    ethtool reports ("Added rule with ID N"; ethtool picks the last free one,
    MAX_FILER_IDX - 1 = 254), `ethtool -n` lists it with the plan's fields,
    and `status` finds the same rule again. Not covered: revert on the
    guest (the init does not revert) - test_verbs.py covers it with a
    stand-in."""
    doc = run.json("extra-apply")
    nt = [r for r in results(doc, "ntuple") if r["iface"] == "eth1"]
    assert len(nt) == 1 and nt[0]["result"] == "applied", nt
    loc = nt[0]["target"].removeprefix("rule")
    listing = run.text("extra-ethtool-n")
    assert re.search(rf"^Filter: {loc}$", listing, re.M), listing
    rule = listing.split(f"Filter: {loc}", 1)[1]
    assert "Rule Type: UDP over IPv4" in rule and re.search(r"Dest port: 5000 ", rule) \
        and "Action: Direct to queue 0" in rule, listing
    status = [r for r in results(run.json("extra-status-json"), "ntuple") if r["iface"] == "eth1"]
    assert status and status[0]["result"] == "ok" and status[0]["target"] == f"rule{loc}", status
