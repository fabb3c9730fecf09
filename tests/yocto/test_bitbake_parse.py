"""A real `bitbake -p` (and `bitbake -g zynq-net-image`) of the layers with
the layer list, machine and local.conf of each kas file, offline.

Runs only when ZYNQ_NET_YOCTO_DIR names a folder of checkouts (poky/,
meta-openembedded/, meta-arm/, meta-xilinx/, meta-xilinx-tools/,
meta-freescale/, optionally meta-lts-mixins/); CI has no oe-core and skips
it, saying so. How to set the folder up: docs/yocto.md, "Checking the
layers with bitbake". ZYNQ_NET_YOCTO_CHECK_LAYER=1 also runs
yocto-check-layer on meta-zynq-net (slow: several parses).
"""
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
YOCTO = os.environ.get("ZYNQ_NET_YOCTO_DIR")
SKIP = ("ZYNQ_NET_YOCTO_DIR is not set: no oe-core + bitbake checkout, bitbake -p "
        "skipped (see docs/yocto.md to run it locally)")

pytestmark = pytest.mark.skipif(not YOCTO, reason=SKIP)


@pytest.mark.parametrize("kasfile", ["kas/p1020rdb.yml", "kas/zcu102.yml", "kas/qemuarm64.yml"])
def test_bitbake_parse(kasfile):
    machine = pathlib.Path(kasfile).stem
    missing = [r for r in ("poky", "meta-openembedded") if not (pathlib.Path(YOCTO) / r).is_dir()]
    if missing:
        pytest.skip(f"{YOCTO} lacks {missing}")
    env = dict(os.environ)
    # The reference board (if the repository has it) or the one named by
    # ZYNQ_NET_TEST_BOARD_<MACHINE>, so the board-dependent parts parse too.
    board = os.environ.get(f"ZYNQ_NET_TEST_BOARD_{machine.upper()}")
    if board:
        env["ZYNQ_NET_YOCTO_LOCAL_CONF"] = f'ZYNQ_NET_BOARD = "{board}"\n'
    res = subprocess.run([sys.executable, str(ROOT / "tests" / "yocto" / "bbparse.py"), kasfile],
                         cwd=ROOT, env=env, capture_output=True, text=True)
    print(res.stdout[-6000:], res.stderr[-2000:])
    assert res.returncode == 0, f"bitbake parse of {kasfile} failed:\n{res.stdout[-6000:]}"


def test_yocto_check_layer():
    if os.environ.get("ZYNQ_NET_YOCTO_CHECK_LAYER") != "1":
        pytest.skip("set ZYNQ_NET_YOCTO_CHECK_LAYER=1 to run yocto-check-layer (slow)")
    poky = pathlib.Path(YOCTO) / "poky"
    build = pathlib.Path(YOCTO) / "build-zynq-net-check-layer"
    # A snapshot of the checkout: yocto-check-layer compares signatures of
    # runs minutes apart, and an edit of tools/ in between (the tools recipe
    # checksums those files) would show up as a changed signature.
    snap = pathlib.Path(YOCTO) / "zynq-net-snapshot"
    subprocess.run(["rm", "-rf", str(snap)], check=True)
    snap.mkdir()
    subprocess.run(f"tar -C {ROOT} --exclude=./.git --exclude=./tools/target -cf - . | tar -C {snap} -xf -",
                   shell=True, check=True)
    deps = " ".join(str(p) for p in [snap, pathlib.Path(YOCTO) / "meta-openembedded" / "meta-oe",
                                     pathlib.Path(YOCTO) / "meta-openembedded" / "meta-python",
                                     pathlib.Path(YOCTO) / "meta-openembedded" / "meta-networking"])
    cmd = (f"export LANG=en_US.UTF-8; cd {poky} && . ./oe-init-build-env {build} >/dev/null && "
           f"printf 'BB_NO_NETWORK = \"1\"\\nCONNECTIVITY_CHECK_URIS = \"\"\\n' >> conf/local.conf && "
           f"yocto-check-layer --no-auto-dependency --dependency {deps} -- {snap / 'meta-zynq-net'} "
           "2>&1 | tail -n 60")
    if os.geteuid() == 0:
        user = os.environ.get("ZYNQ_NET_BBUSER", "bb")
        subprocess.run(["chown", "-R", user, YOCTO], check=True)
        argv = ["su", user, "-c", cmd]
    else:
        argv = ["bash", "-c", cmd]
    res = subprocess.run(argv, capture_output=True, text=True)
    print(res.stdout)
    assert "FAILED" not in res.stdout and "INFO: meta-zynq-net ... PASS" in res.stdout, res.stdout
