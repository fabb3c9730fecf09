"""The offload names zynq-net accepts without a warning (rule
offload-unknown) against the world: the kernel's feature strings
(tools/crates/zynq-net-model/data/ethtool-features-6.12.txt) as
scripts/ethtool-features derives them from the real Linux 6.12 sources,
and every accepted name taken by the real `ethtool -K` on a real veth.

ethtool's own names come from the tool, not from us: the short ones from
its manual page (ethtool(8), -K), the long ones from what `ethtool -k`
prints at the top level on the veth.
"""
import gzip
import pathlib
import re
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TABLE = ROOT / "tools/crates/zynq-net-model/data/ethtool-features-6.12.txt"
MAN = pathlib.Path("/usr/share/man/man8/ethtool.8.gz")
# UDP fragmentation offload left the kernel in 4.14: ethtool(8) still lists
# `ufo`, `-K ufo` fails, and zynq-net warns.
GONE = {"ufo", "udp-fragmentation-offload"}
# NETIF_F_NEVER_CHANGE (include/linux/netdev_features.h): in the kernel's
# strings, refused by `ethtool -K`, left out of the table.
NEVER = {"vlan-challenged"}


def test_table_matches_the_kernel_sources():
    r = subprocess.run([str(ROOT / "scripts/kernel-tree")], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"no linux-source-6.12 tree: {r.stderr.strip()}")
    derived = subprocess.run([str(ROOT / "scripts/ethtool-features"), "--src", r.stdout.strip()],
                             capture_output=True, text=True, check=True).stdout
    assert derived == TABLE.read_text(), \
        "regenerate: scripts/ethtool-features > " + str(TABLE.relative_to(ROOT))
    names = derived.split()
    assert {"rx-gro-hw", "rx-checksum", "tx-udp_tnl-segmentation", "hw-tc-offload"} <= set(names)
    assert not NEVER & set(names)


def man_short_names() -> set[str]:
    """The `-K` names of ethtool(8): `.A2 NAME on off` lines after `.B \\-K`."""
    text = gzip.decompress(MAN.read_bytes()).decode(errors="replace")
    section = text[text.index(".B \\-K"):]
    section = section[:section.index(".B \\-", 6)]
    return set(re.findall(r"^\.A2 (\S+) on off", section, re.M))


@pytest.fixture
def veth(veth_netns):
    if shutil.which("ethtool") is None or not MAN.exists():
        pytest.skip("needs ethtool and its manual page (apt: ethtool)")
    return veth_netns("znoff", "v0", "v1")


def ethtool(ns: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", "netns", "exec", ns, "ethtool", *args], capture_output=True, text=True)


def refused_name(r: subprocess.CompletedProcess) -> bool:
    """ethtool did not take the name itself (not: the veth cannot change it)."""
    return "bit name not found" in r.stderr or "non-ethtool features" in r.stderr or "bad command" in r.stderr


def test_accepted_names_are_names_ethtool_takes(veth, zynq_net, tmp_path):
    short = man_short_names()
    assert {"gro", "tso", "rxhash", "ufo"} <= short, short
    k = ethtool(veth, "-k", "v0")
    assert k.returncode == 0, k.stderr
    long = {line.split(":")[0] for line in k.stdout.splitlines()[1:] if line and not line[0].isspace()}
    assert {"generic-receive-offload", "rx-checksumming", "highdma"} <= long, long
    kernel = set(TABLE.read_text().split())
    accepted = (short | long | kernel) - GONE - NEVER
    # zynq-net: none of them warns; the gone and never-change ones do
    board = (ROOT / "meta-zynq-net/boards/zcu102.yml").read_text()
    anchor = "offloads: { gro: on, tso: on, gso: on }"
    assert anchor in board
    names = sorted(accepted | GONE | NEVER)
    path = tmp_path / "b.yml"
    path.write_text(board.replace(anchor, "offloads: { " + ", ".join(f"{n}: on" for n in names) + " }", 1))
    r = subprocess.run([str(zynq_net), "check", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    warned = set(re.findall(r"warning\[offload-unknown\]: [^\n]*`([^`]+)` is not an `ethtool -K` feature", r.stderr))
    assert warned == GONE | NEVER, r.stderr
    # the real ethtool takes each accepted name (the veth may not change it)
    for n in sorted(accepted):
        r = ethtool(veth, "-K", "v0", n, "off")
        assert not refused_name(r), f"ethtool -K v0 {n} off: {r.returncode} {r.stderr}"
    for n in sorted(NEVER):
        assert refused_name(ethtool(veth, "-K", "v0", n, "off")), n
