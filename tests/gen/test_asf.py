"""Freescale ASF (legacy QorIQ SDK) end to end: the qoriq-sdk variant of the
P1020RDB board generates `module asf`, `module asfctrl` first and
`asf udp-timeout` last, and the applier sets the timeout through a prepared
sysfs tree (no QorIQ SDK kernel exists here: the asfctrl sysfs file and the
loaded-module list are prepared; what cannot be covered is the real asfctrl
driver accepting the value).
"""
import json
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BOARD = ROOT / "tools/crates/zynq-net-cli/tests/fixtures/good/p1020rdb-asf.yml"


@pytest.fixture
def asf_out(zynq_net, tmp_path):
    out = tmp_path / "out"
    subprocess.run([str(zynq_net), "gen", str(BOARD), "-o", str(out)], check=True)
    return out


def run_applier(out, tmp_path, sysroot, procroot, *args):
    shell = shutil.which("dash") or "sh"
    env = dict(os.environ, ZYNQ_NET_SYS=str(sysroot), ZYNQ_NET_PROC=str(procroot),
               ZYNQ_NET_STATE=str(tmp_path / "state"), ZYNQ_NET_LOG=str(tmp_path / "log"),
               ZYNQ_NET_LOCK=str(tmp_path / "lock"), ZYNQ_NET_WAIT_MAX="0")
    return subprocess.run([shell, str(out / "tuning/zynq-net-apply"), *args], env=env,
                          capture_output=True, text=True)


def test_asf_plan_order(asf_out):
    steps = [l for l in (asf_out / "tuning/zynq-net.plan").read_text().splitlines()
             if l and not l.startswith("#") and not l.startswith("end ")]
    verbs = [l.split()[0] for l in steps]
    assert steps[2:4] == ["module asf", "module asfctrl"], steps
    assert steps[-1] == "asf udp-timeout 9000", steps
    assert verbs.index("sysctl") < verbs.index("asf")
    cfg = (asf_out / "kernel/zynq-net-asf.cfg").read_text()
    assert "CONFIG_AS_FASTPATH=y" in cfg and "only in QorIQ SDK kernel" in cfg


def test_asf_timeout_applied_and_skipped(asf_out, tmp_path):
    sysroot, procroot = tmp_path / "sys", tmp_path / "proc"
    (sysroot / "asfctrl/ffp").mkdir(parents=True)
    knob = sysroot / "asfctrl/ffp/asfctrl_ffp_udp_tmout"
    knob.write_text("60\n")
    procroot.mkdir()
    (procroot / "modules").write_text("asfctrl 40960 0 - Live 0x0\nasf 200000 1 asfctrl, Live 0x0\n")
    (procroot / "interrupts").write_text("           CPU0       CPU1\n")
    r = run_applier(asf_out, tmp_path, sysroot, procroot, "apply", "--json", str(asf_out / "tuning/zynq-net.plan"))
    assert r.returncode == 3, r.stderr  # the interfaces are absent here: skipped
    steps = json.loads(r.stdout)
    steps = steps["steps"] if isinstance(steps, dict) else steps
    by = {(s["verb"], s["target"]): s for s in steps}
    assert by[("module", "asf")]["result"] == "unchanged", by[("module", "asf")]
    assert by[("asf", "udp-timeout")]["result"] == "applied", by[("asf", "udp-timeout")]
    assert knob.read_text().strip() == "9000"
    # An image without the SDK's asfctrl: reported and skipped, the rest goes on.
    knob.unlink()
    r = run_applier(asf_out, tmp_path, sysroot, procroot, "apply", "--json", str(asf_out / "tuning/zynq-net.plan"))
    steps = json.loads(r.stdout)
    steps = steps["steps"] if isinstance(steps, dict) else steps
    asf = [s for s in steps if s["verb"] == "asf"][0]
    assert asf["result"] == "skipped" and "absent" in asf["detail"], asf
