"""tests/qemu/flowtable-load.c (the emulated router's stand-in for `nft -f
zynq-net-flowtable.nft`) against this host's kernel and the real nft, in a
network namespace of the test's own.

The real nft decides what the kernel can do: where `nft -f` loads the
image's ruleset (a kernel with NF_FLOW_TABLE), flowtable-load must load
the same ruleset (`nft list ruleset` of both compared); where nft's load is
refused (this CI host: no flowtable in its kernel), flowtable-load must be
refused at the flowtable too, after the kernel took its table messages,
with nothing left behind (one transaction). The guest side (gianfar
forwarding through the loaded flowtable) is
tests/qemu/test_p1020_forwarding.py.
"""
from __future__ import annotations

import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
SRC = ROOT / "tests" / "qemu" / "flowtable-load.c"
NFT_IN = ROOT / "meta-zynq-net" / "recipes-connectivity" / "zynq-net-flowtable" / "files" / "zynq-net-flowtable.nft.in"
TABLE, FT = "zynq_net_fastpath", "ft"


@pytest.fixture(scope="module")
def tool(tmp_path_factory) -> pathlib.Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc missing")
    out = tmp_path_factory.mktemp("ftload") / "flowtable-load"
    subprocess.run(["gcc", "-Wall", "-Wextra", "-Werror", "-O2", "-o", str(out), str(SRC)], check=True)
    return out


@pytest.fixture()
def netns():
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root")
    if shutil.which("nft") is None:
        pytest.skip("nft missing (Debian nftables, scripts/deps/apt.txt)")
    name = f"znft{os.getpid() % 100000}"
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        # A veth pair as the two ports (this host's kernel loads no dummy module).
        subprocess.run(["ip", "-n", name, "link", "add", "eth0", "type", "veth", "peer", "name", "eth1"],
                       check=True)
        for i in (0, 1):
            subprocess.run(["ip", "-n", name, "link", "set", f"eth{i}", "up"], check=True)
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], check=False)


def run(ns: str, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", "netns", "exec", ns, *argv], capture_output=True, text=True, timeout=30)


def ruleset(ns: str) -> str:
    r = run(ns, "nft", "list", "ruleset")
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_names_are_validated_before_anything_is_sent(tool):
    for argv in (["add", "t;x", FT, "eth0"], ["add", TABLE, "f t", "eth0"],
                 ["add", TABLE, FT, "a" * 16], ["add", TABLE, FT, "eth0/1"], ["add", TABLE, FT],
                 ["delete", ""], ["bogus"]):
        r = subprocess.run([str(tool), *argv], capture_output=True, text=True, timeout=10)
        assert r.returncode == 2, (argv, r.returncode, r.stderr)
        assert r.stderr.startswith(("flowtable-load: ", "usage: flowtable-load")), (argv, r.stderr)


def test_loads_what_nft_loads_or_is_refused_whole(tool, netns, tmp_path):
    # What the image loads: the recipe's template with the board's devices
    # (zynq-net-flowtable_1.0.bb do_compile, without hardware offload).
    nft_file = tmp_path / "zynq-net-flowtable.nft"
    nft_file.write_text(NFT_IN.read_text().replace("@DEVICES@", "eth0, eth1")
                        .replace("@FLAGS@", "# no hardware offload"))
    by_nft = run(netns, "nft", "-f", str(nft_file))
    nft_rules = ruleset(netns)
    run(netns, "nft", "flush", "ruleset")
    ours = run(netns, str(tool), "add", TABLE, FT, "eth0", "eth1")
    if by_nft.returncode == 0:
        # A kernel with the flowtable: the same ruleset, but for the one rule
        # with an anonymous set that is two rules here (flowtable-load.c).
        assert ours.returncode == 0, ours.stderr
        mine = ruleset(netns)
        assert mine.replace("meta l4proto tcp flow add @ft\n\t\tct state established,related meta l4proto udp",
                            "meta l4proto { tcp, udp }") == nft_rules, (mine, nft_rules)
        listed = run(netns, str(tool), "list")
        assert listed.stdout.split("\n")[0] == (
            f"flowtable inet {TABLE} {FT} hook ingress priority 0 use 1 devices eth0 eth1"), listed.stdout
    else:
        # nft was refused (no flowtable in this kernel): so is flowtable-load,
        # at the flowtable, the table messages before it taken; nothing stays.
        assert "Error" in by_nft.stderr and nft_rules == "", (by_nft.stderr, nft_rules)
        assert ours.returncode == 1, (ours.returncode, ours.stderr)
        assert ours.stderr.startswith("flowtable-load: the kernel refused the flowtable: "), ours.stderr
        if "No such file or directory" in ours.stderr:
            # ENOENT at the flowtable: no flowtable type registered, said as such
            assert "(a kernel without CONFIG_NF_FLOW_TABLE and CONFIG_NF_FLOW_TABLE_INET?)" in ours.stderr, ours.stderr
        assert ruleset(netns) == "", ruleset(netns)
        listed = run(netns, str(tool), "list")
        assert listed.returncode == 0 and listed.stdout == "", listed


def test_delete_of_a_missing_table_is_the_kernels_error(tool, netns):
    r = run(netns, str(tool), "delete", TABLE)
    assert r.returncode == 1 and r.stderr.strip() == (
        "flowtable-load: the kernel refused the table (delete): No such file or directory"), r.stderr
    # An existing table goes (made by the real nft).
    assert run(netns, "nft", "add", "table", "inet", TABLE).returncode == 0
    r = run(netns, str(tool), "delete", TABLE)
    assert r.returncode == 0, r.stderr
    assert ruleset(netns) == ""
