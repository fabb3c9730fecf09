"""RSS exclusion of the zero-copy queue (mlx5-lab board: `rss eth2 equal 9`).

No NIC with an RSS indirection table exists here (veth has none, this
machine's kernel has no netdevsim module), so `ethtool` is a stand-in that
prints `ethtool -x` in ethtool 6.1's format and keeps the table in a file;
it covers the applier's parsing, read-back, idempotence and revert, not a
real driver accepting `ethtool -X`. The interface is a real veth in a netns.
"""
import os
import pathlib
import shutil
import subprocess

import pytest

from plan_seal import seal_plan

ROOT = pathlib.Path(__file__).resolve().parents[2]
# ZYNQ_NET_APPLIER: the applier under test (tests/applier/test_mutations.py)
APPLIER = pathlib.Path(os.environ.get("ZYNQ_NET_APPLIER") or ROOT / "tools/crates/zynq-net-render/assets/zynq-net-apply.sh")


FAKE_ETHTOOL = r'''#!/bin/sh
# stand-in: -x prints the table kept in $RSS_TABLE; -X IF equal N / default rewrites it
t=$RSS_TABLE
case $1 in
-x) n=$(cat "$t"); echo "RX flow hash indirection table for $2 with 10 RX ring(s):"
    i=0; line=""; while [ $i -lt 16 ]; do line="$line $((i % n))"; i=$((i+1)); done
    echo "    0: $line"; echo "RSS hash key:"; echo "6d:5a:56:da:25:5b:0e:c2"; echo "RSS hash function:"; echo "    toeplitz: on" ;;
-X) case $3 in equal) echo "$4" > "$t" ;; default) echo 10 > "$t" ;; esac ;;
*) exec /usr/sbin/ethtool "$@" ;;
esac
'''


@pytest.fixture
def ns(veth_netns):
    return veth_netns("znrss", "eth2", "p2")


def test_rss_equal_applied_idempotent_reverted(ns, tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "ethtool"
    fake.write_text(FAKE_ETHTOOL)
    fake.chmod(0o755)
    table = tmp_path / "table"
    table.write_text("10\n")
    plan = tmp_path / "p.plan"
    plan.write_text(seal_plan("zynq-net-plan 2\nboard t\nrss eth2 equal 9\n"))
    env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}", RSS_TABLE=str(table),
               ZYNQ_NET_STATE=str(tmp_path / "state"), ZYNQ_NET_LOG=str(tmp_path / "log"),
               ZYNQ_NET_LOCK=str(tmp_path / "lock"))
    sh = shutil.which("dash") or "sh"

    def run(*args):
        return subprocess.run(["ip", "netns", "exec", ns, sh, str(APPLIER), *args], env=env,
                              capture_output=True, text=True)

    r = run("status", str(plan))
    assert r.returncode == 3 and "differs rss eth2" in r.stdout, r.stdout + r.stderr
    r = run("apply", str(plan))
    assert r.returncode == 0 and "applied rss eth2 - = equal 9 (actual queues 0-8)" in r.stdout, r.stdout + r.stderr
    assert table.read_text().strip() == "9"
    r = run("apply", str(plan))
    assert r.returncode == 0 and "unchanged rss eth2" in r.stdout, r.stdout
    r = run("revert")
    assert r.returncode == 0 and "restored rss eth2" in r.stdout, r.stdout + r.stderr
    assert table.read_text().strip() == "10"
