"""Init integration and the applier's shell hygiene.

- zynq-net-apply passes `shellcheck -s sh` and stays small (P1020 images);
- the sysvinit script (as `zynq-net gen` writes it for the P1020RDB, the
  plan and applier paths swapped for the test's) passes shellcheck, has an LSB header, `start` always exits 0
  with a one-line summary, `status` maps to LSB codes, `stop` is a no-op;
- the systemd unit passes `systemd-analyze verify`;
- the udev rule re-runs the applier for a hot-plugged interface: before the
  boot-time run it does nothing (coldplug), after it a late interface gets
  exactly its own steps;
- the irqbalance policy script bans exactly the IRQs the board pins (irqbalance would
  undo them);
- the generated artifacts (zynq-net gen) carry the same applier bytes and
  shell-clean init files.
"""
import os
import pathlib
import re
import subprocess

import pytest

from conftest import write_plan, APPLIER, ROOT, SHELLS, SOURCE_APPLIER, Applier, need, prepared_proc, sh, steps_of

# Where the image installs the plan and the applier (zynq-net-tuning_1.0.bb);
# the generated init files name them, and a test deploying them elsewhere
# swaps each path for its own.
PLAN_PATH = "/etc/zynq-net/zynq-net.plan"
APPLIER_PATH = "/usr/sbin/zynq-net-apply"


def generated(zynq_net, tmp_path, board="p1020rdb", edits=()) -> pathlib.Path:
    """The tuning/ directory `zynq-net gen` writes for a reference board
    with `system.irqbalance: ban-pinned` (so the policy script is written)
    and each (old, new) of `edits` replaced once in the board file: the
    init files as the product renders them, no copy of the templates' view
    model here."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    text = (ROOT / "meta-zynq-net" / "boards" / f"{board}.yml").read_text()
    for old, new in (("irqbalance: absent", "irqbalance: ban-pinned"), *edits):
        assert text.count(old) >= 1, (board, old)
        text = text.replace(old, new)
    src = tmp_path / f"{board}.yml"
    src.write_text(text)
    out = tmp_path / f"gen-{board}"
    subprocess.run([str(zynq_net), "gen", str(src), "-o", str(out)], check=True, capture_output=True)
    return out / "tuning"


def deployed(text: str, plan: pathlib.Path, applier: pathlib.Path) -> str:
    """`text` with the image's plan and applier paths swapped for `plan`
    and `applier` (each must occur)."""
    assert PLAN_PATH in text and APPLIER_PATH in text, text
    return text.replace(PLAN_PATH, str(plan)).replace(APPLIER_PATH, str(applier))


def test_applier_shellcheck_and_size():
    need("shellcheck")
    r = sh(["shellcheck", "-s", "sh", str(APPLIER)], check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    size = APPLIER.stat().st_size
    print(f"zynq-net-apply: {size} bytes")
    # 40 KB until the plan end line, the sealed journal and the od checksum
    # fallback came (about 5 KB); 48 KB until every verb got one block
    # with a header saying what it writes, reads back, saves
    # and reverts (about 3 KB): still small next to busybox
    assert size < 52 * 1024, f"{size} bytes: keep the applier under 52 KB for P1020 images"


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_sysvinit_script(shell, tmp_path, netns_factory, zynq_net):
    need("shellcheck", "ip", SHELLS[shell][0])
    plan = tmp_path / "zynq-net.plan"
    write_plan(plan, "zynq-net-plan 2\nboard testboard\nwait eth0 5\nrps eth0 rx-0 00000001\n"
                    "offload eth0 gro on\n")
    init = tmp_path / "zynq-net.init"
    init.write_text(deployed((generated(zynq_net, tmp_path) / "zynq-net.init").read_text(), plan, APPLIER))
    r = sh(["shellcheck", "-s", "sh", str(init)], check=False)
    assert r.returncode == 0, r.stdout
    text = init.read_text()
    assert "### BEGIN INIT INFO" in text and "### END INIT INFO" in text and "Provides:          zynq-net" in text
    ns = netns_factory({"eth0": 2})
    proc = prepared_proc(tmp_path, "           CPU0       CPU1\n")
    ap = Applier(tmp_path, SHELLS[shell], netns=ns, proc=proc)
    cmd = ["ip", "netns", "exec", ns.name] + SHELLS[shell] + [str(init)]
    run = lambda *a: subprocess.run(cmd + list(a), capture_output=True, text=True, env=ap.env)
    r = run("start")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines() == ["zynq-net: testboard: apply: 2 applied, 1 unchanged, 0 skipped, 0 failed"], r.stdout
    assert int(ns.read("/sys/class/net/eth0/queues/rx-0/rps_cpus"), 16) == 1
    assert run("status").returncode == 0
    assert run("stop").returncode == 0
    assert int(ns.read("/sys/class/net/eth0/queues/rx-0/rps_cpus"), 16) == 1, "stop is a no-op"
    ns.run(["sh", "-c", "echo 2 > /sys/class/net/eth0/queues/rx-0/rps_cpus"])
    assert run("status").returncode == 3, "drift: LSB 3"
    r = run("restart")
    assert r.returncode == 0 and "1 applied" in r.stdout
    # a broken plan: nothing applied, start says so and exits 1 (the unit
    # fails the same way: test_init_wrappers_agree_on_exit_codes)
    write_plan(plan, "zynq-net-plan 2\nboard testboard\nrps eth0 rx-0 zz\n")
    r = run("start")
    assert r.returncode == 1 and "tuning NOT applied: applier exit 2" in r.stdout, r.stdout + r.stderr
    plan.unlink()
    r = run("start")
    assert r.returncode == 0 and "no tuning applied" in r.stdout
    assert run("bogus").returncode != 0


def test_systemd_unit(tmp_path, zynq_net):
    need("systemd-analyze")
    d = tmp_path / "units"
    d.mkdir()
    plan = tmp_path / "zynq-net.plan"
    write_plan(plan, "zynq-net-plan 2\nboard testboard\n")
    unit = d / "zynq-net.service"
    unit.write_text(deployed((generated(zynq_net, tmp_path) / "zynq-net.service").read_text(), plan, APPLIER))
    r = subprocess.run(["systemd-analyze", "verify", "--man=no", str(unit)], capture_output=True, text=True,
                       env=dict(os.environ, SYSTEMD_UNIT_PATH=f"{d}:"))
    mine = [ln for ln in (r.stdout + r.stderr).splitlines() if "zynq-net.service" in ln]
    assert not mine, "\n".join(mine)
    text = unit.read_text()
    for want in ("Type=oneshot", "RemainAfterExit=yes", "Before=network-pre.target", "Wants=network-pre.target",
                 "After=local-fs.target systemd-sysctl.service", "SuccessExitStatus=3 4"):
        assert want in text, want


def test_init_wrappers_agree_on_exit_codes(tmp_path, zynq_net):
    """The sysvinit script and the systemd unit count the same applier exit
    codes as success (0, 3, 4) and as failure (1, 2)."""
    need("dash")
    plan = tmp_path / "zynq-net.plan"
    write_plan(plan, "zynq-net-plan 2\nboard testboard\n")
    fake = tmp_path / "fake-apply"
    fake.write_text('#!/bin/sh\nexit "$FAKE_RC"\n')
    fake.chmod(0o755)
    tuning = generated(zynq_net, tmp_path)
    init = tmp_path / "zynq-net.init"
    init.write_text(deployed((tuning / "zynq-net.init").read_text(), plan, fake))
    unit = deployed((tuning / "zynq-net.service").read_text(), plan, fake)
    ok_unit = {0} | {int(c) for ln in unit.splitlines() if ln.startswith("SuccessExitStatus=")
                     for c in ln.split("=", 1)[1].split()}
    for rc in range(5):
        r = subprocess.run(["dash", str(init), "start"], capture_output=True, text=True,
                           env=dict(os.environ, FAKE_RC=str(rc)))
        assert (r.returncode == 0) == (rc in ok_unit), \
            f"applier exit {rc}: sysvinit start exit {r.returncode}, unit success codes {sorted(ok_unit)}"
    assert ok_unit == {0, 3, 4}
    # revert, asked for by hand, passes the applier's exit through
    for rc in range(5):
        r = subprocess.run(["dash", str(init), "revert"], capture_output=True, text=True,
                           env=dict(os.environ, FAKE_RC=str(rc)))
        assert r.returncode == rc, f"applier exit {rc}: revert exit {r.returncode}"
    fake.unlink()
    r = subprocess.run(["dash", str(init), "revert"], capture_output=True, text=True)
    assert r.returncode == 5 and "missing: nothing reverted" in r.stderr, r


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_hotplug_late_interface(shell, tmp_path, netns_factory, zynq_net):
    """udev/mdev re-run for an interface that appears after boot-time tuning
    (the P1020RDB's rule: its eTSECs are eth0 and eth1)."""
    need("ip", SHELLS[shell][0])
    rule = (generated(zynq_net, tmp_path) / "90-zynq-net.rules").read_text()
    line = [ln for ln in rule.splitlines() if ln and not ln.startswith("#")]
    assert len(line) == 1 and 'KERNEL=="eth0|eth1"' in line[0] and 'SUBSYSTEM=="net"' in line[0]
    assert "apply --quiet --hotplug --iface %k /etc/zynq-net/zynq-net.plan" in line[0]

    ns = netns_factory({"eth0": 2})
    plan = tmp_path / "late.plan"
    write_plan(plan, "zynq-net-plan 2\nboard late\nwait eth0 5\nwait eth1 5\n"
                    "rps eth0 rx-0 00000001\nrps eth1 rx-0 00000002\nxps eth1 tx-1 00000001\n"
                    "sysctl net.core.somaxconn 8192\n")
    proc = prepared_proc(tmp_path, "           CPU0       CPU1\n")
    ap = Applier(tmp_path, SHELLS[shell], netns=ns, proc=proc)
    # coldplug event before the boot-time run: nothing to do
    r = ap("apply", "--quiet", "--hotplug", "--iface", "eth0", plan, expect=0)
    assert r.stdout == "" and not (tmp_path / "state").exists()
    boot = ap.json("apply", plan, expect=3)
    assert steps_of(boot, "wait", "eth1")[0]["result"] == "skipped"
    # eth1 appears late (driver probe, hot-plug)
    ns.run(["ip", "link", "add", "eth1", "numtxqueues", "2", "numrxqueues", "2", "type", "veth",
            "peer", "name", "zl1", "numtxqueues", "2", "numrxqueues", "2"])
    late = ap.json("apply", "--hotplug", "--iface", "eth1", plan, expect=0)
    assert {s["iface"] for s in late["steps"]} == {"eth1"}, late["steps"]
    assert late["applied"] == 2 and late["failed"] == 0
    assert int(ns.read("/sys/class/net/eth1/queues/rx-0/rps_cpus"), 16) == 2
    assert int(ns.read("/sys/class/net/eth1/queues/tx-1/xps_cpus"), 16) == 1
    # revert covers both runs
    assert ap.json("revert", expect=0)["restored"] == boot["applied"] + 2


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_irqbalance_policy_bans_pinned(shell, tmp_path, zynq_net):
    """The P1020RDB pins its eTSECs' queue-group IRQs (`eth0_g*`,
    `eth1_g*`: gianfar names them eth0_g0_tx ..., gfar_request_irq); the
    policy script bans those, a shared line carrying one, and nothing
    else."""
    need("shellcheck", SHELLS[shell][0])
    pol = tmp_path / "policy"
    pol.write_text((generated(zynq_net, tmp_path) / "zynq-net-irqbalance-policy").read_text())
    r = sh(["shellcheck", "-s", "sh", str(pol)], check=False)
    assert r.returncode == 0, r.stdout
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "interrupts").write_text(
        "           CPU0       CPU1\n"
        " 45:        100          0  OpenPIC  29 Edge      eth0_g0_tx\n"
        " 46:        200          0  OpenPIC  30 Edge      eth1_g0_rx\n"
        " 47:          5          0  OpenPIC  31 Edge      eth2_g0_rx\n"
        " 49:          0          0  OpenPIC  33 Edge      mmc0, eth1_g0_er\n"
        " 50:          1          0  OpenPIC  34 Edge      mmc0\n")
    env = dict(os.environ, ZYNQ_NET_PROC=str(proc))

    def ask(irq):
        r = subprocess.run(SHELLS[shell] + [str(pol), "/sys/devices/platform/x", str(irq)],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr
        return r.stdout.strip()

    assert ask(45) == "ban=true"
    assert ask(46) == "ban=true"
    assert ask(47) == ""           # an interface the board does not pin
    assert ask(49) == "ban=true"   # shared line carrying a pinned device
    assert ask(50) == ""
    assert ask(99) == ""
    # no pinned IRQs: still a valid script that bans nothing
    unpinned = generated(zynq_net, tmp_path / "unpinned", edits=(
        ('      - { irq: "eth0_g*", cpus: 1 }\n', ""), ('      - { irq: "eth1_g*", cpus: 0 }\n', ""),
        ("    irq_affinity:\n", "")))
    pol.write_text((unpinned / "zynq-net-irqbalance-policy").read_text())
    assert ask(45) == "" and ask(49) == ""


@pytest.mark.parametrize("board", ["zcu102", "p1020rdb"])
def test_generated_tuning_artifacts(board, request):
    """zynq-net gen ships the applier byte for byte and shell-clean init files."""
    need("shellcheck")
    if not (ROOT / "meta-zynq-net" / "boards" / f"{board}.yml").exists():
        pytest.skip(f"no meta-zynq-net/boards/{board}.yml yet")
    out = request.getfixturevalue("gen_board")(board) / "tuning"
    assert (out / "zynq-net-apply").read_bytes() == SOURCE_APPLIER.read_bytes()
    for f in ("zynq-net-apply", "zynq-net.init", "zynq-net-irqbalance-policy"):
        if (out / f).exists():
            r = sh(["shellcheck", "-s", "sh", str(out / f)], check=False)
            assert r.returncode == 0, f"{f}:\n{r.stdout}"
    r = sh(["dash", str(out / "zynq-net-apply"), "status", str(out / "zynq-net.plan")], check=False)
    assert r.returncode in (0, 3), r.stderr  # the generated plan parses and validates
