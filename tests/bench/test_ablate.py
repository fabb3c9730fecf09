"""`zynq-net bench ablate` on the namespace lab, the DUT reached over real SSH.

The lab's server namespace is the DUT: an OpenSSH server runs inside it,
listening on a management link (a veth pair from this namespace, as a lab
board's management port), and every command on the DUT -- the applier's
revert/apply, the iperf3 server, /proc/stat -- goes through `ssh`.

- tests/bench/boards/lab-ablate.yml on a DUT whose stock receive buffers
  are small (tcp_rmem 4096 4096 4096): one group built to help (windows:
  tcp_rmem up to 6 MiB), one built to hurt (autotune: tcp_moderate_rcvbuf
  0) and one without effect (rfs without the global table): ablate must
  call them helps / hurts / no measurable effect, with intervals, in 6
  rounds of 1 s trials (30 s of traffic);
- lab-noise.yml's steps all set the values the DUT already has (identical
  variants): no group may be called helping or hurting; that run is also
  interrupted and resumed.
"""
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import time

import pytest

from benchlab import Lab, need_root_and_iperf3

ROOT = pathlib.Path(__file__).resolve().parents[2]
BOARDS = pathlib.Path(__file__).resolve().parent / "boards"
APPLIER = ROOT / "tools" / "crates" / "zynq-net-render" / "assets" / "zynq-net-apply.sh"
SSHD = "/usr/sbin/sshd"
LAB, SUBNET = "znab", 71
DUT_NS = f"{LAB}-server"
MGMT_HOST, MGMT_DUT = f"10.202.{SUBNET}.1", f"10.202.{SUBNET}.2"


def ip(*args):
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


class SshDut:
    """sshd in the DUT's namespace on a management veth; key-only, pinned host key."""

    def __init__(self, tmp: pathlib.Path):
        self.dir = tmp
        self.proc = None

    def __enter__(self):
        d = self.dir
        for name in ("hostkey", "id"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / name)], check=True)
        (d / "authorized_keys").write_text((d / "id.pub").read_text())
        host_pub = (d / "hostkey.pub").read_text().split()
        (d / "known_hosts").write_text(f"{MGMT_DUT} {host_pub[0]} {host_pub[1]}\n")
        (d / "sshd_config").write_text(
            f"ListenAddress {MGMT_DUT}\nHostKey {d / 'hostkey'}\nAuthorizedKeysFile {d / 'authorized_keys'}\n"
            "PermitRootLogin prohibit-password\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
            f"UsePAM no\nStrictModes no\nPidFile {d / 'sshd.pid'}\nMaxStartups 50\nMaxSessions 50\n")
        os.makedirs("/run/sshd", exist_ok=True)  # privilege separation directory
        ip("link", "add", "name", f"{LAB}-mgmt", "type", "veth", "peer", "name", "mgmt0", "netns", DUT_NS)
        ip("addr", "add", f"{MGMT_HOST}/30", "dev", f"{LAB}-mgmt")
        ip("link", "set", f"{LAB}-mgmt", "up")
        ip("-n", DUT_NS, "addr", "add", f"{MGMT_DUT}/30", "dev", "mgmt0")
        ip("-n", DUT_NS, "link", "set", "mgmt0", "up")
        self.log = d / "sshd.log"
        self.proc = subprocess.Popen(["ip", "netns", "exec", DUT_NS, SSHD, "-D", "-e", "-f", str(d / "sshd_config")],
                                     stdout=subprocess.DEVNULL, stderr=self.log.open("w"))
        deadline = time.monotonic() + 20
        while True:
            r = subprocess.run(["ssh", *self.opts(), f"root@{MGMT_DUT}", "--", "true"], capture_output=True, text=True)
            if r.returncode == 0:
                break
            assert time.monotonic() < deadline and self.proc.poll() is None, \
                f"sshd in {DUT_NS} did not come up: {r.stderr}\n{self.log.read_text()}"
            time.sleep(0.2)
        return self

    def opts(self):
        d = self.dir
        return ["-i", str(d / "id"), "-F", "/dev/null", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes",
                "-o", f"UserKnownHostsFile={d / 'known_hosts'}", "-o", "StrictHostKeyChecking=yes",
                "-o", "ControlMaster=auto", "-o", f"ControlPath={d}/cm-%C", "-o", "ControlPersist=30"]

    def __exit__(self, *exc):
        subprocess.run(["ssh", *self.opts(), "-O", "exit", f"root@{MGMT_DUT}"], capture_output=True)
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        subprocess.run(["ip", "link", "del", f"{LAB}-mgmt"], capture_output=True)


@pytest.fixture(scope="module")
def ssh_lab(bench_bin, tmp_path_factory):
    need_root_and_iperf3()
    if not os.path.exists(SSHD) or shutil.which("ssh") is None:
        pytest.skip("openssh-server/openssh-client are not installed (scripts/install-deps)")
    tmp = tmp_path_factory.mktemp("sshdut")
    with Lab(bench_bin, LAB, SUBNET) as lab, SshDut(tmp) as dut:
        state = json.loads(subprocess.run([str(bench_bin), "lab", "status", "--name", LAB],
                                          capture_output=True, text=True, check=True).stdout)
        targets = state["targets"]
        targets["server"]["host"] = {"kind": "ssh", "dest": f"root@{MGMT_DUT}", "opts": dut.opts()}
        targets["server"]["ifaces"] = []
        targets["client"]["ifaces"] = []
        targets["dut"] = None
        targets["description"] = f"lab `{LAB}`: client netns -> router netns -> DUT netns `{DUT_NS}` over ssh"
        path = tmp / "targets.json"
        path.write_text(json.dumps(targets, indent=1))
        lab.targets, lab.ssh = path, dut
        yield lab


def ablate_cmd(lab, board, out, cell, *extra):
    return [str(lab.binary), "bench", "ablate", str(BOARDS / board), "--targets", str(lab.targets),
            "--dut", "server", "--applier", str(APPLIER), "--applier-state", str(out.parent / "applier"),
            "--remote-dir", str(out.parent / "dut-plans"), "--cells", cell, "-o", str(out), *extra]


def dut(*cmd):
    return subprocess.run(["ip", "netns", "exec", DUT_NS, *cmd], capture_output=True, text=True, check=True).stdout


GROUPS = "windows=sysctl:net.ipv4.tcp_rmem,autotune=sysctl:net.ipv4.tcp_moderate_rcvbuf,rfs"
STOCK_RMEM = "4096 4096 4096"


def test_helps_hurts_and_no_effect_over_ssh(ssh_lab, tmp_path):
    out = tmp_path / "ablate"
    default_rmem = dut("sysctl", "-n", "net.ipv4.tcp_rmem")
    dut("sysctl", "-q", "-w", f"net.ipv4.tcp_rmem={STOCK_RMEM}")  # the board's stock state
    try:
        t0 = time.monotonic()
        r = subprocess.run(ablate_cmd(ssh_lab, "lab-ablate.yml", out, "tcp-tx-mtu1500-p1", "--groups", GROUPS,
                                      "--repeats", "6", "--duration", "1", "--seed", "15"),
                           capture_output=True, text=True, timeout=400)
        wall = time.monotonic() - t0
        # the DUT is left as it was found: stock, the plan not in force
        assert dut("sysctl", "-n", "net.ipv4.tcp_rmem").split() == STOCK_RMEM.split()
        assert dut("sysctl", "-n", "net.ipv4.tcp_moderate_rcvbuf").strip() == "1"
    finally:
        dut("sysctl", "-q", "-w", f"net.ipv4.tcp_rmem={default_rmem.strip()}")
    assert r.returncode == 0, f"{r.stdout}\n{r.stderr}"
    rep = json.loads((out / "ablate-report.json").read_text())
    cell = rep["cells"][0]
    g = {x["group"]: x for x in cell["groups"]}
    table = "\n".join(f"{k}: {v['effect']}" for k, v in g.items()) + f"\n{r.stdout}"
    assert set(g) == {"windows", "autotune", "rfs"}, table
    assert g["windows"]["effect"]["verdict"] == "helps", table
    assert g["windows"]["effect"]["low"] > 0, table
    assert g["autotune"]["effect"]["verdict"] == "hurts", table
    assert g["autotune"]["effect"]["high"] < 0, table
    assert g["rfs"]["effect"]["verdict"] == "no measurable effect", table
    for x in g.values():
        assert x["effect"]["n"] == 6, table
        assert x["dut"]["applied"] >= 1, f"the applier did not apply {x['group']} on the DUT: {x['dut']}"
    # every variant in every round, in an order that changes between rounds
    trials = [json.loads(x) for x in (out / "ablate-trials.jsonl").read_text().splitlines()]
    assert len(trials) == 5 * 6 and all(t["record"]["error"] is None for t in trials)
    # one progress line per trial on stderr, counted against the run's 30
    progress = re.findall(r"^\[(\d+)/(\d+)\] round ", r.stderr, re.M)
    assert progress == [(str(k), "30") for k in range(1, 31)], r.stderr
    orders = {tuple(t["variant"] for t in trials if t["round"] == k) for k in range(6)}
    assert len(orders) > 1, orders
    # the variant plans were put on the DUT over ssh, in --remote-dir
    local = {p.name: p.read_text() for p in (out / "plans").iterdir()}
    put = {p.name: p.read_text() for p in (out.parent / "dut-plans").iterdir()}
    assert put == local and len(put) == 4, (sorted(put), sorted(local))
    # the DUT was reached over ssh: the sshd logged our key
    log = ssh_lab.ssh.log.read_text()
    assert "Accepted publickey for root" in log, log[-2000:]
    # the suggestion drops the hurting group, as a plan and as a board diff; nothing applied
    plan = (out / "suggested.plan").read_text()
    assert "\nsysctl net.ipv4.tcp_moderate_rcvbuf" not in plan and "\nsysctl net.ipv4.tcp_rmem 4096 16384 6291456\n" in plan
    diff = (out / "suggested-board.diff").read_text()
    assert "-    net.ipv4.tcp_moderate_rcvbuf: 0" in diff, diff
    assert not [x for x in diff.splitlines() if x.startswith("+") and not x.startswith("+++")], diff
    assert "tcp_moderate_rcvbuf: 0" in (BOARDS / "lab-ablate.yml").read_text()
    md = (out / "ablate.md").read_text()
    assert "| autotune | 1 |" in md and "**hurts**" in md and "simultaneous 95% intervals" in md
    html = (out / "ablate.html").read_text()
    assert 'class="plot-effects"' in html and "<svg" in html and "<script" not in html
    print(f"ablate: {wall:.0f} s wall for 45 s of traffic\n{r.stdout}")


def test_pure_noise_calls_nothing_and_resumes(ssh_lab, tmp_path):
    out = tmp_path / "noise"
    cmd = ablate_cmd(ssh_lab, "lab-noise.yml", out, "tcp-rx-mtu1500-p1", "--repeats", "5", "--duration", "1", "--confidence", "0.99",
                     "--seed", "7")
    # SIGINT at its default in the runner (a background CI job passes it on as ignored)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    trials = out / "ablate-trials.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if trials.exists() and len(trials.read_text().splitlines()) >= 3:
            break
        time.sleep(0.05)
    os.killpg(p.pid, signal.SIGINT)
    p.wait(timeout=60)
    kept = [json.loads(x) for x in trials.read_text().splitlines()]
    assert 3 <= len(kept) < 20, len(kept)
    r = subprocess.run(cmd + ["--resume", "--quiet"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"{r.stdout}\n{r.stderr}"
    assert not re.search(r"^\[\d+/\d+\] round ", r.stderr, re.M), f"--quiet printed trials:\n{r.stderr}"
    done = [json.loads(x) for x in trials.read_text().splitlines()]
    assert len(done) == 4 * 5, len(done)
    assert [d["record"]["started"] for d in done[:len(kept)]] == [k["record"]["started"] for k in kept]
    assert len({(d["round"], d["variant"]) for d in done}) == 20, "a trial ran twice"
    rep = json.loads((out / "ablate-report.json").read_text())
    cell = rep["cells"][0]
    for x in cell["groups"] + [{"group": "whole plan", "effect": cell["whole_plan"], "dut": {"applied": 0}}]:
        assert x["effect"]["verdict"] == "no measurable effect", (x, r.stdout)
        assert x["dut"]["applied"] == 0, x  # identical variants: the applier changed nothing
    assert rep["suggestion"]["remove"] == []
    assert not (out / "suggested.plan").exists()
