"""The emulated P1020 and Zynq-7000 as places of the localhost farm, booted
from what their harnesses have cached (nothing is built here: a board whose
kernel or userland is not cached skips, saying so and how to build it).

- P1020 (farm/env/qemu-p1020.yaml): `zynq-net-farm bench --place ... --env`
  books the place, boots the router through labgrid's QEMUDriver (the
  patched qemu-system-ppc of scripts/qemu-build), ZynqNetStrategy brings it
  to `tuned` over the console, and a short `zynq-net bench run` goes from
  the client namespace through the router's two eTSEC ports (gianfar) to
  the server namespace (farm/qemu-router-net cables them before the boot);
  image.json records what was booted, and `bench compare` holds it.
- Zynq-7000 (farm/env/qemu-zynq7000.yaml): booked, booted and tuned through
  labgrid, the applier's `status --json` read over the console.

Real components: labgrid-coordinator, labgrid's QEMUDriver/ShellDriver,
QEMU (TCG), the kernels cross-built from Debian's linux-source-6.12 by
scripts/qemu-p1020 and scripts/qemu-zynq7000, iperf3, the zynq-net binary.
What this cannot show: the real boards' throughput (TCG sets the rate), a
U-Boot or power switch (QEMUDriver is the power).
"""
import fcntl
import gzip
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from farmlab import ROOT
from test_farm_qemu import BOOT, INIT, newc

CACHE = pathlib.Path(os.environ.get("ZYNQ_NET_CACHE", "/var/tmp/zynq-net-cache"))
NET = "znfp"
SUBNET = "7"
P1020_PLACE = "znfarm-p1020-qemu"
Z7_PLACE = "znfarm-zynq7000-qemu"


def sha(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def need_tcg(binary):
    if not binary or not os.access(binary, os.X_OK):
        pytest.skip(f"{binary}: no QEMU")
    r = subprocess.run([binary, "-accel", "help"], capture_output=True, text=True)
    if "tcg" not in r.stdout:
        pytest.skip(f"{binary} has no TCG accelerator: {r.stdout.strip()}")


def with_farm_init(initrd, dest):
    """The harness's initramfs with /farm-init appended (the kernel unpacks
    concatenated cpio archives in order)."""
    dest.write_bytes(pathlib.Path(initrd).read_bytes() +
                     gzip.compress(newc([("farm-init", 0o100755, INIT.read_bytes())])))
    return dest


def cached_build(cmd, what, how, cache):
    """Runs a harness with --cached-only --no-boot; skips when it says (exit
    3) that something is not cached, or when a build holds the harness's
    cache lock (the harness would wait up to an hour for it: what is being
    built is not cached yet)."""
    lock = cache / ".lock"
    if lock.exists():
        with open(lock) as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pytest.skip(f"a build holds {lock} (the {what} is being built): this test boots only what "
                            "is cached and does not wait for it")
            fcntl.flock(f, fcntl.LOCK_UN)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if r.returncode == 3:
        last = (r.stderr.strip().splitlines() or ["(no message)"])[-1]
        pytest.skip(f"the {what} is not cached, and this test boots only what is cached: {last} "
                    f"(`{how}` builds it)")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return r


@pytest.fixture(scope="module")
def p1020(farm, tmp_path_factory):
    if shutil.which("powerpc-linux-gnu-gcc") is None:
        pytest.skip("powerpc-linux-gnu-gcc missing (scripts/qemu-p1020 needs it to find its cache key)")
    q = subprocess.run([str(ROOT / "scripts" / "qemu-build"), "--cached-only", "ppc"], capture_output=True, text=True)
    if q.returncode == 3:
        pytest.skip("the patched qemu-system-ppc is not cached (`scripts/qemu-build ppc` builds it)")
    assert q.returncode == 0, q.stderr
    qemu = q.stdout.strip().splitlines()[-1]
    need_tcg(qemu)
    d = tmp_path_factory.mktemp("p1020")
    gens = {}
    for name, board in (("test", ROOT / "tests" / "qemu" / "boards" / "p1020-qemu.yml"),
                        ("ref", ROOT / "meta-zynq-net" / "boards" / "p1020rdb.yml")):
        gens[name] = d / name
        subprocess.run([str(farm.zynq_net), "gen", str(board), "-o", str(gens[name])], check=True, capture_output=True)
    out = d / "out"
    # --lab with --no-boot: the initramfs's qemu.env gives the router's
    # ports the lab's addresses (10.21N.1.1, 10.21N.2.1); nothing boots
    r = cached_build([str(ROOT / "scripts" / "qemu-p1020"), "--gen", str(gens["test"]), "--kernel-gen", str(gens["ref"]),
                      "--out", str(out), "--zynq-net", str(farm.zynq_net), "--cached-only", "--no-boot",
                      "--lab", NET, "--lab-subnet", SUBNET, "--", "true"],
                     "P1020 kernel or userland", "scripts/qemu-p1020 --build-only", CACHE / "qemu-p1020")
    m = re.search(r"^qemu-p1020: kernel (\S+) \(", r.stderr, re.M)
    assert m, r.stderr
    kernel = pathlib.Path(m.group(1)) / "vmlinux"
    assert kernel.is_file(), kernel
    initrd = with_farm_init(out / "initramfs.cpio.gz", d / "farm-initramfs.cpio.gz")
    return {"qemu": qemu, "kernel": kernel, "initrd": initrd, "gen": gens["test"],
            "plan": gens["test"] / "tuning" / "zynq-net.plan", "dir": d}


@pytest.fixture
def router_net(tmp_path):
    """The tester side cabled to the router's ports (farm/qemu-router-net)."""
    targets = tmp_path / "targets.json"
    script = ROOT / "farm" / "qemu-router-net"
    r = subprocess.run([str(script), "up", NET, SUBNET, str(targets)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    yield targets
    subprocess.run([str(script), "down", NET], capture_output=True)


def qemu_running(marker):
    """PIDs of processes whose command line holds `marker` (our initrd)."""
    found = []
    for p in pathlib.Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if marker.encode() in (p / "cmdline").read_bytes():
                    found.append(int(p.name))
            except OSError:
                pass
    return found


def test_p1020_place_booked_booted_tuned_and_benched(farm, p1020, router_net, tmp_path):
    if P1020_PLACE not in farm.status():
        farm.client("-p", P1020_PLACE, "create")
        farm.client("-p", P1020_PLACE, "set-tags", "board=p1020_qemu", "soc=qoriq")
    bench = tmp_path / "bench.yml"
    bench.write_text("matrix: { protocols: [tcp], directions: [tx], mtus: [1500], duration_s: 3, repeats: 2 }\n")
    run = tmp_path / "run"
    env = dict(farm.env, LG_P1020_QEMU_BIN=p1020["qemu"], LG_P1020_QEMU_KERNEL=str(p1020["kernel"]),
               LG_P1020_QEMU_INITRD=str(p1020["initrd"]), LG_P1020_QEMU_NET=NET)
    r = subprocess.run(farm.farm_cmd("bench", "--place", P1020_PLACE, "--env", str(ROOT / "farm" / "env" / "qemu-p1020.yaml"),
                                     "--manifest", str(p1020["gen"] / "manifest.json"),
                                     "bench", "run", "--plan", str(bench), "--targets", str(router_net),
                                     "-o", str(run), "--quiet"),
                       capture_output=True, text=True, env=env, timeout=1500)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-6000:]
    assert f"acquired place {P1020_PLACE}" in r.stderr and f"released place {P1020_PLACE}" in r.stderr, r.stderr
    st = farm.status()[P1020_PLACE]
    assert st["acquired"] is None and st["reservation"] is None, st
    assert qemu_running(str(p1020["initrd"])) == [], "QEMU stopped with the place's release"
    # the traffic: client namespace -> router eth0 ... eth1 -> server
    # namespace; the namespaces' only route between them is the router
    trials = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines() if x.strip()]
    assert len(trials) == 2 and all(t["error"] is None and t["throughput_bps"] > 0 for t in trials), trials
    rec = json.loads((run / "farm.json").read_text())
    assert rec["place"] == P1020_PLACE and rec["tags"] == {"board": "p1020_qemu", "soc": "qoriq"}, rec
    dut = rec["dut"]
    # read over the console: the cross-built powerpc kernel, the test plan
    assert dut["machine"] == "ppc" and dut["kernel"].startswith("6.12"), dut
    assert dut["plan_sha256"] == sha(p1020["plan"]) == rec["manifest"]["plan_sha256"], dut
    assert rec["plan_matches_manifest"] is True
    ts = dut["tuning_status"]
    assert ts["exit"] in (0, 3) and ts["report"]["board"] == "p1020-qemu", ts
    assert ts["report"]["ok"] > 0, ts
    ident = json.loads((run / "image.json").read_text())
    assert ident == {"format": "zynq-net-image 1", "booted_by": f"zynq-net-farm place {P1020_PLACE} (qemu-p1020.yaml)",
                     "board": "p1020_qemu", "kernel_release": dut["kernel"], "kernel_version": dut["kernel_version"],
                     "kernel_sha256": sha(p1020["kernel"]), "image_sha256": sha(p1020["initrd"]),
                     "plan_sha256": sha(p1020["plan"])}, ident
    assert ident["kernel_version"].startswith("#"), ident
    # bench compare holds image.json: the run against itself compares; a
    # run of another plan is refused (exit 2) unless asked
    zn = str(farm.zynq_net)
    c = subprocess.run([zn, "bench", "compare", str(run), str(run)], capture_output=True, text=True)
    assert c.returncode == 0, c.stderr
    other = tmp_path / "other"
    shutil.copytree(run, other)
    (other / "image.json").write_text(json.dumps(dict(ident, plan_sha256="0" * 64)))
    c = subprocess.run([zn, "bench", "compare", str(run), str(other)], capture_output=True, text=True)
    assert c.returncode == 2 and f"plan_sha256: A {ident['plan_sha256']}, B {'0' * 64}" in c.stderr, c.stderr
    c = subprocess.run([zn, "bench", "compare", str(run), str(other), "--allow-different-images"],
                       capture_output=True, text=True)
    assert c.returncode == 0 and "different images, compared as asked" in c.stdout, c.stdout + c.stderr


def test_zynq7000_place_booked_booted_tuned(farm, tmp_path):
    if shutil.which("arm-linux-gnueabihf-gcc") is None:
        pytest.skip("arm-linux-gnueabihf-gcc missing (scripts/qemu-zynq7000 needs it to find its cache key)")
    need_tcg(shutil.which("qemu-system-arm"))
    gen = tmp_path / "gen"
    subprocess.run([str(farm.zynq_net), "gen", str(ROOT / "meta-zynq-net" / "boards" / "zc702.yml"), "-o", str(gen)],
                   check=True, capture_output=True)
    out = tmp_path / "out"
    r = cached_build([str(ROOT / "scripts" / "qemu-zynq7000"), "--gen", str(gen), "--out", str(out),
                      "--zynq-net", str(farm.zynq_net), "--cached-only", "--no-boot"],
                     "Zynq-7000 kernel or userland", "scripts/qemu-zynq7000 --build-only", CACHE / "qemu-zynq7000")
    m = re.search(r"kernel (\S+) \(", r.stderr)
    assert m, r.stderr
    kernel = pathlib.Path(m.group(1)) / "zImage"
    initrd = with_farm_init(out / "initramfs.cpio.gz", tmp_path / "farm-initramfs.cpio.gz")
    if Z7_PLACE not in farm.status():
        farm.client("-p", Z7_PLACE, "create")
        farm.client("-p", Z7_PLACE, "set-tags", "board=zynq7000_qemu", "soc=zynq7000")
    farm.client("-p", Z7_PLACE, "acquire")
    try:
        env = dict(farm.env, LG_ZYNQ7000_QEMU_KERNEL=str(kernel), LG_ZYNQ7000_QEMU_DTB=str(out / "dt" / "zc702-qemu.dtb"),
                   LG_ZYNQ7000_QEMU_INITRD=str(initrd))
        b = subprocess.run([sys.executable, "-c", BOOT, str(ROOT / "farm" / "env" / "qemu-zynq7000.yaml")],
                           capture_output=True, text=True, env=env, timeout=900)
    finally:
        farm.client("-p", Z7_PLACE, "release")
    assert b.returncode == 0, b.stdout[-3000:] + b.stderr[-5000:]
    res = json.loads(b.stdout.splitlines()[-1])
    assert res["status"] == "tuned" and res["plan_sha256"] == sha(gen / "tuning" / "zynq-net.plan"), res
    tuning = res["tuning"]
    assert tuning["command"] == "status" and tuning["board"] == "zc702" and tuning["ok"] > 0, tuning
