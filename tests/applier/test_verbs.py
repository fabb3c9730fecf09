"""Plan verbs and applier paths the board plans do not reach:
each is applied, read back, run again (no change), checked with `status`
and reverted. Where this machine has the kernel object, the test uses it;
where no kernel here has it, the docstring says what stands in and what is
therefore not covered.

This machine's kernel (checked: /proc/config.gz) has no netdevsim, no
sch_multiq/act_skbedit and no loadable modules; veth has no ethtool -G, -C,
-X or -N. The emulated boards (tests/qemu/) cover rings and coalescing on
macb and gianfar, and multiq + u32/skbedit with traffic on macb.
"""
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from conftest import (ROOT, SHELLS, Applier, fmt, need, parse_plan, prepared_proc, steps_of,
                      write_plan)

# A stand-in for a driver behind ethtool, for the knobs no kernel here has.
# It prints what ethtool 6.1 prints (its format strings, as `strings
# /usr/sbin/ethtool` shows them: "Adaptive RX: %s  TX: %s", "Added rule
# with ID %d", the ring sections) and keeps its values in $FAKE_STATE.
# -G refuses with EBUSY while the REAL interface (the veth in the test's
# namespace) is administratively up (IFF_UP in sysfs `flags`), as axienet
# does (xilinx_axienet_main.c: set_ringparam, set_coalesce and change_mtu
# return -EBUSY if netif_running()).
FAKE_ETHTOOL = r'''#!/bin/sh
st=$FAKE_STATE
get() { cat "$st/$1" 2>/dev/null || echo "$2"; }
log() { printf '%s\n' "$*" >>"$st/log"; }
case $1 in
-c) printf 'Coalesce parameters for %s:\nAdaptive RX: %s  TX: %s\nstats-block-usecs:\tn/a\n' \
        "$2" "$(get adaptive-rx off)" "$(get adaptive-tx off)"
    printf 'sample-interval:\tn/a\npkt-rate-low:\t\tn/a\npkt-rate-high:\t\tn/a\n\n'
    printf 'rx-usecs:\t%s\nrx-frames:\t%s\n\ntx-usecs:\t%s\ntx-frames:\t%s\n' \
        "$(get rx-usecs 8)" "$(get rx-frames 1)" "$(get tx-usecs 8)" "$(get tx-frames 1)" ;;
-C) dev=$2; shift 2; changed=0
    while [ $# -ge 2 ]; do
        case $1 in adaptive-rx|adaptive-tx|rx-usecs|rx-frames|tx-usecs|tx-frames) ;;
        *) echo "netlink error: Operation not supported" >&2; exit 1 ;; esac
        [ "$(get "$1" x)" = "$2" ] || changed=1
        echo "$2" >"$st/$1"; shift 2
    done
    log "-C $dev changed=$changed"
    [ $changed = 1 ] || exit 80 ;;
-g) printf 'Ring parameters for %s:\nPre-set maximums:\nRX:\t\t4096\nRX Mini:\tn/a\nRX Jumbo:\tn/a\nTX:\t\t4096\n' "$2"
    printf 'Current hardware settings:\nRX:\t\t%s\nRX Mini:\tn/a\nRX Jumbo:\tn/a\nTX:\t\t%s\n' "$(get rx 128)" "$(get tx 128)" ;;
-G) dev=$2; up=$(( $(cat "/sys/class/net/$dev/flags") & 1 ))
    log "-G $dev up=$up"
    if [ "$up" = 1 ]; then echo "netlink error: Device or resource busy" >&2; exit 1; fi
    shift 2
    while [ $# -ge 2 ]; do echo "$2" >"$st/$1"; shift 2; done ;;
-n) [ "$3" = rule ] || { echo "fake ethtool: $*" >&2; exit 1; }
    [ -e "$st/rule.$4" ] || { echo "rmgr: Cannot find rule $4" >&2; exit 1; }
    printf 'Filter: %s\n' "$4"; cat "$st/rule.$4" ;;
-N) dev=$2; shift 2
    if [ "$1" = delete ]; then
        [ -e "$st/rule.$2" ] || { echo "rmgr: Invalid RX class rule" >&2; exit 1; }
        rm -f "$st/rule.$2"; log "-N delete $2"; exit 0
    fi
    loc=1023; while [ -e "$st/rule.$loc" ]; do loc=$((loc - 1)); done
    echo "$*" >"$st/rule.$loc"; log "-N insert $loc $*"
    echo "Added rule with ID $loc" ;;
*) echo "fake ethtool: $*" >&2; exit 1 ;;
esac
'''


# A stand-in for `ip` in front of the real one: `link set dev IF mtu|address`
# is refused with EBUSY while IF is up (axienet_change_mtu(); eth.c
# eth_prepare_mac_addr_change() without IFF_LIVE_ADDR_CHANGE), as
# iproute2 prints it; everything else is the real ip.
FAKE_IP = r'''#!/bin/sh
if [ "$1 $2 $3" = "link set dev" ] && { [ "$5" = mtu ] || [ "$5" = address ]; }; then
    up=$(( $(cat "/sys/class/net/$4/flags") & 1 ))
    printf 'ip %s %s up=%s\n' "$5" "$4" "$up" >>"$FAKE_STATE/log"
    if [ "$up" = 1 ]; then echo "RTNETLINK answers: Device or resource busy" >&2; exit 2; fi
fi
exec REAL_IP "$@"
'''


def fake_ethtool(tmp_path, with_ip=False):
    """(PATH with the stand-in ethtool (and ip) first, its state directory)."""
    bindir = tmp_path / "fakebin"
    bindir.mkdir()
    (bindir / "ethtool").write_text(FAKE_ETHTOOL)
    (bindir / "ethtool").chmod(0o755)
    if with_ip:
        (bindir / "ip").write_text(FAKE_IP.replace("REAL_IP", shutil.which("ip")))
        (bindir / "ip").chmod(0o755)
    state = tmp_path / "fake-state"
    state.mkdir()
    return f"{bindir}:{os.environ['PATH']}", state


def by_target(doc, verb):
    return {s["target"]: s for s in steps_of(doc, verb)}


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_rfs_count_rounded_up_to_power_of_two(shell, tmp_path, netns_factory):
    """rfs on a real veth queue: the kernel rounds rps_flow_cnt up to a
    power of two (net/core/net-sysfs.c store_rps_dev_flow_table_cnt():
    "mask = roundup_pow_of_two(count) - 1", open-coded), so 3000 reads back
    as 4096; the applier must count
    that as applied (actual 4096), a re-run as unchanged, status as ok."""
    need("ip", SHELLS[shell][0])
    ns = netns_factory({"eth0": 2})
    plan = write_plan(tmp_path / "rfs.plan", "zynq-net-plan 2\nboard rfs\n"
                      "rfs eth0 rx-0 3000\nrfs eth0 rx-1 2048\n")
    ap = Applier(tmp_path, SHELLS[shell], netns=ns, proc=prepared_proc(tmp_path, "  CPU0\n"))
    doc = ap.json("apply", plan, expect=0)
    got = by_target(doc, "rfs")
    assert got["rx-0"]["result"] == "applied" and got["rx-0"]["actual"] == "4096", fmt(doc)
    assert got["rx-1"]["result"] == "applied" and got["rx-1"]["actual"] == "2048", fmt(doc)
    assert ns.read("/sys/class/net/eth0/queues/rx-0/rps_flow_cnt") == "4096"
    again = ap.json("apply", plan, expect=0)
    assert again["unchanged"] == 2 and again["applied"] == 0, fmt(again)
    assert ap.json("status", plan, expect=0)["ok"] == 2
    assert ap.json("revert", expect=0)["restored"] == 2
    assert ns.read("/sys/class/net/eth0/queues/rx-0/rps_flow_cnt") == "0"


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_ptp_asf_module_on_prepared_trees(shell, tmp_path):
    """`ptp IFACE off`, `asf udp-timeout N` and `module NAME`.

    Not coverable on a real kernel here: `ptp_1588` and
    `/sys/asfctrl/ffp/asfctrl_ffp_udp_tmout` exist only with the QorIQ SDK's
    gianfar and asfctrl (no mainline driver has them), so both files sit in
    a prepared sysfs tree (ZYNQ_NET_SYS) and only the applier's side is
    checked: off writes 0, the timeout is written, both read back and
    revert. `module` reads a prepared /proc/modules (this kernel has no
    module support) and runs the real modprobe, which fails for a module
    this machine does not have: reported skipped with modprobe's words."""
    need("modprobe", SHELLS[shell][0])
    sysroot = tmp_path / "sys"
    (sysroot / "class/net/eth0").mkdir(parents=True)
    (sysroot / "class/net/eth0/ptp_1588").write_text("1\n")
    (sysroot / "asfctrl/ffp").mkdir(parents=True)
    (sysroot / "asfctrl/ffp/asfctrl_ffp_udp_tmout").write_text("180\n")
    (sysroot / "devices/system/cpu").mkdir(parents=True)
    (sysroot / "devices/system/cpu/online").write_text("0-1\n")
    proc = prepared_proc(tmp_path, "  CPU0\n")
    (proc / "modules").write_text("asf 372736 0 - Live 0x0000000000000000\n")
    plan = write_plan(tmp_path / "sdk.plan", "zynq-net-plan 2\nboard sdk\n"
                      "module asf\nmodule zynq_net_no_such_module\n"
                      "ptp eth0 off\nasf udp-timeout 30\n")
    ap = Applier(tmp_path, SHELLS[shell], proc=proc, sysroot=sysroot)
    doc = ap.json("apply", plan, expect=3)
    rep = fmt(doc)
    mods = by_target(doc, "module")
    assert mods["asf"]["result"] == "unchanged", rep
    assert mods["zynq_net_no_such_module"]["result"] == "skipped", rep
    assert "modprobe:" in mods["zynq_net_no_such_module"]["detail"], rep
    ptp = steps_of(doc, "ptp")[0]
    assert ptp["result"] == "applied" and ptp["actual"] == "0" and "was 1" in ptp["detail"], rep
    assert (sysroot / "class/net/eth0/ptp_1588").read_text() == "0\n"
    asf = steps_of(doc, "asf")[0]
    assert asf["result"] == "applied" and asf["actual"] == "30", rep
    assert (sysroot / "asfctrl/ffp/asfctrl_ffp_udp_tmout").read_text() == "30\n"
    again = ap.json("apply", plan, expect=3)
    assert again["applied"] == 0 and again["unchanged"] == 3, fmt(again)
    rev = ap.json("revert", expect=0)
    assert rev["restored"] == 2, fmt(rev)
    assert (sysroot / "class/net/eth0/ptp_1588").read_text() == "1\n"
    assert (sysroot / "asfctrl/ffp/asfctrl_ffp_udp_tmout").read_text() == "180\n"


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_ntuple_rule_inserted_found_again_and_deleted(shell, tmp_path, netns_factory):
    """`ntuple`: on a real veth the kernel has no ntuple support, and the
    applier must say so (skipped, EOPNOTSUPP) and go on. The rule
    bookkeeping (the ID ethtool reports, found again by the next run,
    deleted by revert) needs a driver with ntuple filters, which no kernel
    here has (QEMU's GEM model reports ntuple-filters off [fixed]): the
    stand-in ethtool plays one. Not covered: a real driver's rule table."""
    need("ip", "ethtool", SHELLS[shell][0])
    ns = netns_factory({"eth0": 2})
    proc = prepared_proc(tmp_path, "  CPU0\n")
    rule = "flow-type tcp4 dst-ip 192.0.2.7 dst-port 5201 action 1"
    plan = write_plan(tmp_path / "nt.plan", f"zynq-net-plan 2\nboard nt\nntuple eth0 {rule}\n"
                      "sysctl net.core.somaxconn 4242\n")
    (tmp_path / "real").mkdir()
    (tmp_path / "fake").mkdir()
    real = Applier(tmp_path / "real", SHELLS[shell], netns=ns, proc=proc)
    doc = real.json("apply", plan, expect=3)
    nt = steps_of(doc, "ntuple")[0]
    assert nt["result"] == "skipped" and "unsupported" in nt["detail"], fmt(doc)
    assert steps_of(doc, "sysctl")[0]["result"] == "applied", fmt(doc)

    path, state = fake_ethtool(tmp_path)
    ap = Applier(tmp_path / "fake", SHELLS[shell], netns=ns, proc=proc, extra_env={"PATH": path, "FAKE_STATE": str(state)})
    doc = ap.json("apply", plan, expect=0)
    nt = steps_of(doc, "ntuple")[0]
    assert nt["result"] == "applied" and nt["target"] == "rule1023", fmt(doc)
    assert (state / "rule.1023").read_text().split() == rule.split()
    again = ap.json("apply", plan, expect=0)
    assert steps_of(again, "ntuple")[0]["result"] == "unchanged", fmt(again)
    assert sorted(p.name for p in state.glob("rule.*")) == ["rule.1023"], "a re-run must not add a rule"
    assert ap.json("status", plan, expect=0)["ok"] == 2
    rev = ap.json("revert", expect=0)
    assert {(s["verb"], s["target"]) for s in rev["steps"]} >= {("ntuple", "1023")}, fmt(rev)
    assert not list(state.glob("rule.*")), "revert must delete the rule"
    assert not list((tmp_path / "fake/state").glob("ntuple+*")), "revert must forget the rule IDs"


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_adaptive_coalescing(shell, tmp_path):
    """`coalesce IFACE adaptive-rx on|off` and `adaptive-tx`: ethtool prints
    both on one line ("Adaptive RX: on  TX: off"), which the applier splits.
    No driver here has adaptive coalescing (veth: no -C; macb: no -C;
    gianfar: usecs and frames only), so the stand-in ethtool prints that
    line; not covered: a real driver's DIM (net/dim) behind it."""
    need(SHELLS[shell][0])
    path, state = fake_ethtool(tmp_path)
    sysroot = tmp_path / "sys"
    (sysroot / "class/net/eth0").mkdir(parents=True)
    plan = write_plan(tmp_path / "ad.plan", "zynq-net-plan 2\nboard adaptive\n"
                      "coalesce eth0 adaptive-rx on\ncoalesce eth0 adaptive-tx off\ncoalesce eth0 rx-usecs 24\n")
    (state / "adaptive-tx").write_text("on\n")
    ap = Applier(tmp_path, SHELLS[shell], sysroot=sysroot, extra_env={"PATH": path, "FAKE_STATE": str(state)})
    doc = ap.json("apply", plan, expect=0)
    got = by_target(doc, "coalesce")
    assert got["adaptive-rx"]["result"] == "applied" and got["adaptive-rx"]["actual"] == "on", fmt(doc)
    assert got["adaptive-tx"]["result"] == "applied" and got["adaptive-tx"]["actual"] == "off", fmt(doc)
    assert "was on" in got["adaptive-tx"]["detail"] and "was off" in got["adaptive-rx"]["detail"], fmt(doc)
    assert got["rx-usecs"]["result"] == "applied" and got["rx-usecs"]["actual"] == "24", fmt(doc)
    assert [(state / k).read_text().strip() for k in ("adaptive-rx", "adaptive-tx", "rx-usecs")] == ["on", "off", "24"]
    assert ap.json("apply", plan, expect=0)["unchanged"] == 3
    assert ap.json("status", plan, expect=0)["ok"] == 3
    assert ap.json("revert", expect=0)["restored"] == 3
    assert [(state / k).read_text().strip() for k in ("adaptive-rx", "adaptive-tx", "rx-usecs")] == ["off", "on", "8"]


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_ebusy_changes_retried_with_the_link_down(shell, tmp_path, netns_factory):
    """axienet refuses ring, coalescing and MTU changes while the interface
    is up (EBUSY), and a running device without IFF_LIVE_ADDR_CHANGE refuses
    a MAC change: the applier takes the REAL interface (a veth in a
    namespace) down, retries, and brings it up again, on apply and on
    revert. The peer is down, so eth0 has no carrier (operstate
    lowerlayerdown) while it is up: "up" is IFF_UP, not operstate. The
    stand-in ethtool and ip refuse by the veth's real IFF_UP flag. Not
    covered: a real axienet (programmable logic; QEMU has no model of it)."""
    need("ip", SHELLS[shell][0])
    ns = netns_factory({"eth0": 2})
    ns.run(["ip", "link", "set", "zp0", "down"])
    path, state = fake_ethtool(tmp_path, with_ip=True)
    mac0 = ns.read("/sys/class/net/eth0/address")
    plan = write_plan(tmp_path / "busy.plan", "zynq-net-plan 2\nboard busy\nmac eth0 02:00:00:00:00:42\n"
                      "mtu eth0 1400\nrings eth0 rx 1024\nrings eth0 tx 512\n")
    ap = Applier(tmp_path, SHELLS[shell], netns=ns, proc=prepared_proc(tmp_path, "  CPU0\n"),
                 extra_env={"PATH": path, "FAKE_STATE": str(state)})

    def is_up():
        return int(ns.read("/sys/class/net/eth0/flags"), 16) & 1 == 1

    doc = ap.json("apply", plan, expect=0)
    got = {(s["verb"], s["target"]): s for s in doc["steps"]}
    assert got[("mac", "-")]["result"] == "applied" and got[("mac", "-")]["actual"] == "02:00:00:00:00:42", fmt(doc)
    assert got[("mtu", "-")]["result"] == "applied" and got[("mtu", "-")]["actual"] == "1400", fmt(doc)
    assert got[("rings", "rx")]["result"] == "applied" and got[("rings", "rx")]["actual"] == "1024", fmt(doc)
    assert got[("rings", "tx")]["result"] == "applied" and got[("rings", "tx")]["actual"] == "512", fmt(doc)
    want = ["ip address eth0 up=1", "ip address eth0 up=0", "ip mtu eth0 up=1", "ip mtu eth0 up=0",
            "-G eth0 up=1", "-G eth0 up=0"]
    assert (state / "log").read_text().splitlines() == want
    assert is_up(), "the link must be up again: " + ns.run(["ip", "-o", "link", "show", "eth0"]).stdout
    assert ns.read("/sys/class/net/eth0/operstate") != "up", "eth0 has no carrier (peer down)"
    assert ap.json("apply", plan, expect=0)["unchanged"] == 4
    # revert meets the same EBUSY and takes the same way (it failed before
    # revert had no retry, and mtu/mac had none at all)
    rev = ap.json("revert", expect=0)
    assert rev["restored"] == 4, fmt(rev)
    assert [(state / k).read_text().strip() for k in ("rx", "tx")] == ["128", "128"]
    assert ns.read("/sys/class/net/eth0/mtu") == "1500" and ns.read("/sys/class/net/eth0/address") == mac0
    assert is_up(), "the link must be up again after revert"


def test_ban_pinned_policy_bans_what_the_plan_pins(tmp_path, zynq_net):
    """`irqbalance: ban-pinned` (the Rust side: render's
    pinned_irq_patterns and the policy artifact): the zcu102 board with that
    policy generates tuning/zynq-net-irqbalance-policy, which bans every IRQ
    the plan's `irq` steps pin and no other. irqbalance calls the script
    as SCRIPT SYSFS-PATH IRQ (irqbalance(1), --policyscript); it runs here
    on a /proc/interrupts whose action names are the plan's patterns (with
    any glob filled in) and one the plan does not pin. Not covered: a
    running irqbalance daemon (none installed)."""
    need("dash")
    board = tmp_path / "zcu102-ban.yml"
    text = (ROOT / "meta-zynq-net/boards/zcu102.yml").read_text()
    text, n = re.subn(r"irqbalance: absent\b", "irqbalance: ban-pinned", text)
    assert n == 1, "zcu102.yml no longer says `irqbalance: absent`"
    board.write_text(text)
    out = tmp_path / "out"
    subprocess.run([str(zynq_net), "gen", str(board), "-o", str(out)], check=True, capture_output=True)
    policy = out / "tuning" / "zynq-net-irqbalance-policy"
    assert policy.exists(), sorted(p.name for p in (out / "tuning").iterdir())
    pinned = sorted({f[1] for v, f in parse_plan(out / "tuning" / "zynq-net.plan") if v == "irq"})
    assert pinned, "the zcu102 plan pins no IRQ"
    names = [p.replace("*", "x").replace("?", "y") for p in pinned]
    rows = ["           CPU0       CPU1"]
    rows += [f" {40 + i}:  1  0  GICv2  {90 + i} Level  {n}" for i, n in enumerate(names)]
    rows.append(" 99:  1  0  GICv2 150 Level  mmc0")
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "interrupts").write_text("\n".join(rows) + "\n")
    env = dict(os.environ, ZYNQ_NET_PROC=str(proc))

    def ask(irq):
        r = subprocess.run(["dash", str(policy), "/sys/devices/platform/x", str(irq)], capture_output=True,
                           text=True, env=env)
        assert r.returncode == 0, r.stderr
        return r.stdout.strip()

    for i, n in enumerate(names):
        assert ask(40 + i) == "ban=true", f"IRQ {40 + i} ({n}) is pinned by the plan: {pinned}"
    assert ask(99) == "", "mmc0 is not pinned"


def test_tc_filter_replace_keeps_the_old_u32_key(netns_factory):
    """Why the applier deletes and adds a filter instead of `tc filter
    replace` (docs/plan-format.md, `filter`): without a handle, replace adds
    a second u32 key at the same prio (cls_u32.c u32_change() allocates a
    new handle), so the old match would stay. Checked on this kernel with
    an htb root (it has no multiq) and a plain flowid (no skbedit)."""
    need("ip", "tc")
    ns = netns_factory({"eth0": 1})
    r = ns.run(["tc", "qdisc", "add", "dev", "eth0", "root", "handle", "1:", "htb"], check=False)
    if r.returncode != 0:
        pytest.skip(f"no htb qdisc in this kernel: {r.stderr.strip()}")
    base = ["tc", "filter", "{}", "dev", "eth0", "parent", "1:", "protocol", "ip", "prio", "1", "u32",
            "match", "ip", "dst", "{}", "flowid", "1:1"]
    for verb, addr in (("add", "192.0.2.1"), ("replace", "192.0.2.2")):
        ns.run([verb if a == "{}" and i == 2 else (addr if a == "{}" else a) for i, a in enumerate(base)])
    keys = re.findall(r"match (\w+)/ffffffff at 16", ns.run(["tc", "filter", "show", "dev", "eth0", "parent", "1:"]).stdout)
    assert keys == ["c0000201", "c0000202"], keys
