"""Forwarding lab through the emulated P1020-class router (issue 14).

scripts/qemu-p1020 --lab boots the router (tests/qemu/boards/p1020-qemu.yml
plan applied: IP forwarding, rings, coalescing, IRQs) with its two eTSEC
ports on tap devices moved into two host namespaces (client, server), and
runs `zynq-net bench rfc2544` from the client to the server namespace
through it, then `zynq-net bench report`. A functional test: the frame
rates are whatever TCG gives on the machine, not a performance claim.
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from test_qemu_p1020 import BOARD, CACHED_ONLY, REF_BOARD, SCRIPT, SMP, _skip_without_tools

FRAMES = (1518, 512)
LAB_TIMEOUT = int(os.environ.get("ZYNQ_NET_P1020_LAB_TIMEOUT", "1800"))

# Runs on the host once the router forwards: argv, never a shell string
# built from values ($1 zynq-net, $2 spec, $3 run dir).
LAB_CMD = r'''
set -e
"$1" bench rfc2544 --plan "$2" --targets "$ZNQ_LAB_TARGETS" -o "$3" \
    --frame-sizes 1518,512 --line-rate 1G --trial-seconds 1 --confirm-seconds 2 \
    --max-trials 8 || echo "rfc2544 exit $?" >"$3.rc"
"$1" bench report "$3"
'''


@pytest.fixture(scope="module")
def lab(zynq_net, tmp_path_factory):
    _skip_without_tools()
    if os.geteuid() != 0:
        pytest.skip("the lab needs root (network namespaces, tap devices)")
    if not shutil.which("iperf3"):
        pytest.skip("iperf3 missing (scripts/deps/apt.txt)")
    if not os.path.exists("/dev/net/tun"):
        pytest.skip("no /dev/net/tun: QEMU cannot open tap devices here")
    work = tmp_path_factory.mktemp("p1020-lab")
    gens = {}
    for name, board in (("test", BOARD), ("ref", REF_BOARD)):
        gens[name] = work / f"gen-{name}"
        subprocess.run([str(zynq_net), "gen", str(board), "-o", str(gens[name])], check=True,
                       capture_output=True)
    spec = work / "spec.yml"
    spec.write_text("frame_sizes: [1518, 512]\nline_rate: 1G\n")
    out = work / "out"
    run = work / "run"
    proc = subprocess.run(
        [str(SCRIPT), "--gen", str(gens["test"]), "--kernel-gen", str(gens["ref"]),
         "--out", str(out), "--smp", str(SMP), "--zynq-net", str(zynq_net),
         *(["--cached-only"] if CACHED_ONLY else []),
         "--lab", "znp", "--lab-subnet", "7", "--",
         "sh", "-c", LAB_CMD, "sh", str(zynq_net), str(spec), str(run)],
        capture_output=True, text=True, timeout=LAB_TIMEOUT + 3 * 3600)
    if CACHED_ONLY and proc.returncode == 3:
        pytest.skip("ZYNQ_NET_P1020_CACHED_ONLY=1 and the P1020 kernel/userland are not cached")
    return out, run, proc


def context(out: pathlib.Path, proc) -> str:
    console = out / "console.log"
    tail = ""
    if console.exists():
        tail = "\n".join(console.read_text(errors="replace").splitlines()[-40:])
    return f"\n--- rc {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}\n--- console\n{tail}"


def link_stats(text: str, iface: str) -> dict[str, int]:
    """RX/TX packets of `ip -s link show dev IFACE`."""
    m = re.search(r"RX:.*?\n\s*(\d+)\s+(\d+).*?TX:.*?\n\s*(\d+)\s+(\d+)", text, re.S)
    assert m, f"{iface}:\n{text}"
    return {"rx_packets": int(m.group(2)), "tx_packets": int(m.group(4))}


def test_router_forwards_and_the_search_converges(lab):
    out, run, proc = lab
    assert proc.returncode == 0, context(out, proc)
    res = json.loads((run / "rfc2544.json").read_text())
    frames = {f["frame_size"]: f for f in res["frames"]}
    assert set(frames) == set(FRAMES), res
    for size, f in frames.items():
        trace = "\n".join(f"  {s}" for s in f["steps"])
        assert f["fps"] > 0, f"{size} B: no zero-loss rate found\n{trace}"
        assert f["search_trials"] <= 8, trace
        assert abs(f["frame_bps"] - f["fps"] * size * 8) < 1
        print(f"{size} B through the emulated router: {f['fps']:.0f} frames/s, "
              f"{f['frame_bps'] / 1e6:.1f} Mbit/s of frames, {f['search_trials']} trials, "
              f"confirmed={f.get('confirmed')}")
    # The router forwarded the trial traffic: what came in on eth0 went out on eth1.
    sections = out / "sections"
    rx0 = link_stats((sections / "link-stats-eth0.txt").read_text(), "eth0")
    tx1 = link_stats((sections / "link-stats-eth1.txt").read_text(), "eth1")
    assert rx0["rx_packets"] > 1000, rx0
    assert tx1["tx_packets"] > 0.5 * rx0["rx_packets"], (rx0, tx1)


def test_report_has_the_rfc2544_plot(lab):
    out, run, proc = lab
    html = (run / "report.html").read_text()
    assert 'id="plot-rfc2544"' in html, context(out, proc)
    desc = json.loads((out / "targets.json").read_text())["description"]
    assert "emulated P1020" in desc
