"""The sysctl key table zynq-net checks boards against
(tools/crates/zynq-net-model/data/sysctl-keys-6.12.txt) is what
scripts/sysctl-keys derives from the real Linux 6.12 sources (Debian's
linux-source-6.12, unpacked by scripts/kernel-tree): the `.procname`
entries of the net sysctl tables. A kernel update or a hand edit that makes
them differ fails here (regenerate with the script).

And the check itself: a key the kernel does not have is
a warning with a did-you-mean, the board still generates.
"""
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TABLE = ROOT / "tools/crates/zynq-net-model/data/sysctl-keys-6.12.txt"


def test_table_matches_the_kernel_sources():
    r = subprocess.run([str(ROOT / "scripts/kernel-tree")], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"no linux-source-6.12 tree: {r.stderr.strip()}")
    tree = r.stdout.strip()
    derived = subprocess.run([str(ROOT / "scripts/sysctl-keys"), "--src", tree],
                             capture_output=True, text=True, check=True).stdout
    assert derived == TABLE.read_text(), "regenerate: scripts/sysctl-keys --src $(scripts/kernel-tree) > " + str(TABLE)
    keys = derived.split()
    # the names the trial used, as the kernel has (or lacks) them
    assert "net.core.rmem_max" in keys and "net.ipv4.tcp_rmem" in keys
    assert "net.ipv4.tcp_tw_recycle" not in keys  # removed in Linux 4.12
    assert len(keys) > 250


def test_unknown_keys_warn_with_a_suggestion(zynq_net, tmp_path):
    text = (ROOT / "meta-zynq-net/boards/zcu102.yml").read_text()
    anchor = "net.core.rmem_max: 4194304"
    assert anchor in text
    board = tmp_path / "zcu102.yml"
    board.write_text(text.replace(anchor, anchor + "\n    net.core.rmem_maxx: 1\n    net.ipv4.tcp_tw_recycle: 1", 1))
    r = subprocess.run([str(zynq_net), "gen", str(board), "-o", str(tmp_path / "out")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "`net.core.rmem_maxx` is not a sysctl of Linux 6.12" in r.stderr, r.stderr
    assert "did you mean `net.core.rmem_max`?" in r.stderr, r.stderr
    assert "`net.ipv4.tcp_tw_recycle` is not a sysctl of Linux 6.12" in r.stderr, r.stderr
