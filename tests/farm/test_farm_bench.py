"""`zynq-net-farm bench` on a labgrid farm on localhost (tests/farm/farmlab.py).

Real components: labgrid-coordinator and labgrid-exporter (labgrid 26.0.1
from PyPI), OpenSSH servers in the lab's namespaces, iperf3, the zynq-net
binary. Nothing of labgrid is mocked: places, reservations, acquire and
release go through the coordinator, the DUT is read through labgrid's
SSHDriver and the bench's ssh rides on that driver's control master.

What a farm of real boards adds and this cannot show: boot and power
control (the netns DUT is always on), a serial console, and traffic through
a real NIC (docs/farm.md, "What the localhost farm covers").
"""
import hashlib
import json
import os
import pathlib
import signal
import subprocess
import time

import pytest

from farmlab import ROOT

BOARD = pathlib.Path(__file__).resolve().parent / "boards" / "farm-dut.yml"
APPLIER = ROOT / "tools" / "crates" / "zynq-net-render" / "assets" / "zynq-net-apply.sh"


@pytest.fixture(scope="module")
def dut(farm, tmp_path_factory):
    """The farm-dut board generated, its plan installed on the DUT namespace
    and applied there by the applier (state apart from the machine's)."""
    d = tmp_path_factory.mktemp("dut")
    gen = d / "gen"
    subprocess.run([str(farm.zynq_net), "gen", str(BOARD), "-o", str(gen)], check=True, capture_output=True)
    plan = d / "zynq-net.plan"
    plan.write_bytes((gen / "tuning" / "zynq-net.plan").read_bytes())
    env = [f"ZYNQ_NET_STATE={d}/state", f"ZYNQ_NET_LOG={d}/apply.log", f"ZYNQ_NET_LOCK={d}/lock"]
    applier = ["env", *env, "sh", str(APPLIER)]
    r = subprocess.run(["ip", "netns", "exec", f"{farm.lab}-server", *applier, "apply", str(plan)],
                       capture_output=True, text=True)
    assert r.returncode in (0, 3), r.stdout + r.stderr
    return {"gen": gen, "plan": plan, "applier": " ".join(applier), "dir": d}


def farm_bench(farm, dut, rundir, *which, extra=(), bench=()):
    return ["bench", *which, "--ssh-key", str(farm.key), "--manifest", str(dut["gen"] / "manifest.json"),
            "--dut-plan", str(dut["plan"]), "--dut-applier", dut["applier"], *extra,
            "bench", "run", "--plan", str(BOARD), "-o", str(rundir), *bench]


def assert_free(farm):
    st = farm.status()[farm.place]
    assert st["acquired"] is None and st["reservation"] is None, st


def trials(rundir):
    return [json.loads(x) for x in (rundir / "results.jsonl").read_text().splitlines() if x.strip()]


def test_place_run_records_what_ran(farm, dut, tmp_path):
    run = tmp_path / "run"
    r = farm.run_farm(*farm_bench(farm, dut, run, "--place", farm.place))
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"acquired place {farm.place}" in r.stderr and f"released place {farm.place}" in r.stderr, r.stderr
    assert_free(farm)
    ts = trials(run)
    assert len(ts) == 2 and all(t["error"] is None and t["throughput_bps"] > 0 for t in ts), ts
    rec = json.loads((run / "farm.json").read_text())
    assert rec["format"] == "zynq-net-farm-run 1"
    assert rec["place"] == farm.place and rec["coordinator"] == farm.address
    assert rec["tags"] == {"board": "netns_lab", "tester": "veth"}
    assert rec["bench_exit"] == 0 and rec["exit"] == 0
    assert rec["acquired_at"] < rec["started_at"] < rec["ended_at"] < rec["released_at"]
    # what ran, read from the DUT through labgrid: the namespace shares this kernel
    assert rec["dut"]["kernel"] == os.uname().release
    plan_sha = hashlib.sha256(dut["plan"].read_bytes()).hexdigest()
    manifest = json.loads((dut["gen"] / "manifest.json").read_text())
    assert rec["dut"]["plan_sha256"] == plan_sha
    assert rec["manifest"]["plan_sha256"] == plan_sha == \
        [a["sha256"] for a in manifest["artifacts"] if a["kind"] == "plan"][0]
    assert rec["manifest"]["sha256"] == hashlib.sha256((dut["gen"] / "manifest.json").read_bytes()).hexdigest()
    assert rec["plan_matches_manifest"] is True
    st = rec["dut"]["tuning_status"]
    assert st["exit"] == 0 and st["verdict"] == "in force", st
    assert "tcp_rmem" in json.dumps(st["report"]), st
    # image.json, what `bench compare` holds runs against: the place's board
    # tag, the DUT's kernel and plan (no image files: the DUT was not booted)
    ident = json.loads((run / "image.json").read_text())
    assert ident == {"format": "zynq-net-image 1", "booted_by": f"zynq-net-farm place {farm.place}",
                     "board": "netns_lab", "kernel_release": os.uname().release,
                     "kernel_version": os.uname().version, "plan_sha256": plan_sha}, ident
    # the targets the bench used: the DUT and tester over ssh, from the place
    t = json.loads((run / "farm-targets.json").read_text())
    assert t["client"]["host"]["dest"] == f"root@{farm.dut_addr}" and t["client"]["address"] == farm.dut_addr
    assert t["server"]["host"]["dest"] == f"root@{farm.tester_addr}" and t["server"]["address"] == farm.tester_addr
    assert f"labgrid place {farm.place}" in t["description"]
    # the traffic ran between the namespaces: the DUT's iperf3 client was
    # started over ssh in the DUT (its sshd accepted our key)
    dut_log = next(s for s in farm.sshds if s.netns.endswith("-server")).log.read_text()
    assert "Accepted publickey for root" in dut_log


def test_two_clients_queue_and_do_not_interleave(farm, dut, tmp_path):
    runs = [tmp_path / "a", tmp_path / "b"]
    a = farm.popen_farm(*farm_bench(farm, dut, runs[0], "--reserve", "board=netns_lab"))
    deadline = time.monotonic() + 60
    while not (farm.tmp / "leases").exists() or not any((farm.tmp / "leases").iterdir()):
        assert a.poll() is None and time.monotonic() < deadline, a.communicate()
        time.sleep(0.05)
    b = farm.popen_farm(*farm_bench(farm, dut, runs[1], "--reserve", "board=netns_lab,tester=veth"))
    # a third that will not wait
    c = farm.run_farm(*farm_bench(farm, dut, tmp_path / "c", "--reserve", "board=netns_lab", "--wait", "0.5"))
    out = [p.communicate(timeout=300) for p in (a, b)]
    assert a.returncode == 0 and b.returncode == 0, out
    assert c.returncode == 4 and "no place free after 0.5 s" in c.stderr, c.stderr
    assert f"{farm.place}: acquired by" in c.stderr, c.stderr
    assert not (tmp_path / "c" / "results.jsonl").exists()
    assert f"waiting for board=netns_lab tester=veth: {farm.place}: acquired by" in out[1][1], out[1][1]
    ra, rb = (json.loads((r / "farm.json").read_text()) for r in runs)
    assert ra["place"] == rb["place"] == farm.place
    assert ra["released_at"] <= rb["acquired_at"], (ra, rb)
    assert rb["waited_seconds"] > 1, rb
    # every trial inside its own client's hold of the place
    for rec, run in ((ra, runs[0]), (rb, runs[1])):
        ts = trials(run)
        assert len(ts) == 2 and all(t["error"] is None for t in ts), ts
        for t in ts:
            assert rec["acquired_at"] <= t["started"] and t["started"] + t["wall_seconds"] <= rec["released_at"], (rec, t)
    assert_free(farm)


def wait_child(farm, timeout=60):
    """The lease of the running client once its bench child has started."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for p in (farm.tmp / "leases").glob("*.json"):
            lease = json.loads(p.read_text())
            if lease.get("child_pid"):
                return lease
        time.sleep(0.05)
    raise AssertionError("no bench child started")


def test_sigterm_releases_the_place(farm, dut, tmp_path):
    run = tmp_path / "run"
    p = farm.popen_farm(*farm_bench(farm, dut, run, "--place", farm.place, bench=("--repeats", "30")))
    wait_child(farm)
    deadline = time.monotonic() + 60
    while not (run / "results.jsonl").exists() or not (run / "results.jsonl").read_text().strip():
        assert time.monotonic() < deadline and p.poll() is None, "no trial ended"
        time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 128 + signal.SIGTERM, err
    assert f"released place {farm.place}" in err, err
    assert_free(farm)
    rec = json.loads((run / "farm.json").read_text())
    assert rec["signal"] == "SIGTERM" and rec["released_at"] >= rec["ended_at"], rec
    # the bench stopped and kept what it measured
    assert 1 <= len(trials(run)) < 30


def test_killed_client_is_reported_then_released(farm, dut, tmp_path):
    p = farm.popen_farm(*farm_bench(farm, dut, tmp_path / "killed", "--place", farm.place, bench=("--repeats", "30")))
    lease = wait_child(farm)
    p.send_signal(signal.SIGKILL)
    p.communicate(timeout=30)
    # the bench child does not outlive its client (PR_SET_PDEATHSIG)
    deadline = time.monotonic() + 20
    while os.path.exists(f"/proc/{lease['child_pid']}") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not os.path.exists(f"/proc/{lease['child_pid']}/cmdline") or \
        b"zynq-net" not in pathlib.Path(f"/proc/{lease['child_pid']}/cmdline").read_bytes()
    # labgrid keeps the place acquired (the coordinator does not release on
    # a client's disconnect); status reports the holder as gone
    st = farm.status()[farm.place]
    assert st["acquired"] and st["stale"] and f"pid {lease['pid']} is gone" in st["holder"], st
    r = farm.run_farm(*farm_bench(farm, dut, tmp_path / "next", "--reserve", "board=netns_lab"))
    assert r.returncode == 0, r.stderr
    assert f"place {farm.place} was held by zynq-net-farm pid {lease['pid']}" in r.stderr, r.stderr
    assert len(trials(tmp_path / "next")) == 2
    assert_free(farm)


def test_failures_release_and_say_why(farm, dut, tmp_path):
    # the bench fails (no such plan): its exit code, the place released
    args = farm_bench(farm, dut, tmp_path / "bad", "--place", farm.place)
    r = farm.run_farm(*[str(tmp_path / "missing.yml") if x == str(BOARD) else x for x in args])
    assert r.returncode == 2 and "missing.yml" in r.stderr, r.stderr
    assert json.loads((tmp_path / "bad" / "farm.json").read_text())["bench_exit"] == 2
    assert_free(farm)
    # the DUT runs another plan than the manifest's: refused before traffic
    other = dut["dir"] / "other.plan"
    other.write_text(dut["plan"].read_text() + "sysctl net.ipv4.tcp_wmem 4096 16384 4194304\n")
    args = farm_bench(farm, dut, tmp_path / "mm", "--place", farm.place, extra=("--require-manifest-match",))
    r = farm.run_farm(*[str(other) if x == str(dut["plan"]) else x for x in args])
    assert r.returncode == 2 and "is not the manifest's" in r.stderr and "nothing run" in r.stderr, r.stderr
    assert not (tmp_path / "mm" / "results.jsonl").exists()
    rec = json.loads((tmp_path / "mm" / "farm.json").read_text())
    assert rec["plan_matches_manifest"] is False and "released_at" in rec
    assert_free(farm)
    # nothing can match: said at once, with the places there are
    r = farm.run_farm(*farm_bench(farm, dut, tmp_path / "x", "--reserve", "board=zc702"), timeout=60)
    assert r.returncode == 2 and "no place has the tags board=zc702" in r.stderr, r.stderr
    assert f"{farm.place} (board=netns_lab tester=veth)" in r.stderr, r.stderr
    r = farm.run_farm(*farm_bench(farm, dut, tmp_path / "x", "--place", "nosuch"), timeout=60)
    assert r.returncode == 2 and "place `nosuch` does not exist" in r.stderr, r.stderr
    r = farm.run_farm("bench", "--place", farm.place, "bench", "run", "--plan", str(BOARD), "--lab", "znfm",
                      "-o", str(tmp_path / "x"), timeout=60)
    assert r.returncode == 2 and "`--lab` cannot be combined with a farm place" in r.stderr, r.stderr
    r = farm.run_farm("bench", "--reserve", "Board=x", "bench", "run", "-o", "x", timeout=60)
    assert r.returncode == 2 and "'Board=x': expected KEY=VALUE" in r.stderr, r.stderr
    assert_free(farm)
