"""Fixtures of the farm tests: a labgrid farm on localhost (farmlab.Farm)."""
import os
import shutil
import subprocess

import pytest

from farmlab import SSHD, Farm


def need_farm_tools():
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root")
    pytest.importorskip("labgrid", reason="labgrid is not installed (scripts/deps/pip.txt, scripts/install-deps)")
    for t in ("iperf3", "ssh", "ssh-keygen"):
        if shutil.which(t) is None:
            pytest.skip(f"{t} is not installed (scripts/install-deps)")
    if not os.path.exists(SSHD):
        pytest.skip("openssh-server is not installed (scripts/install-deps)")


@pytest.fixture(scope="session")
def farm_bin(zynq_net):
    r = subprocess.run([str(zynq_net), "bench", "--help"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, f"{zynq_net} has no `bench` command:\n{r.stderr}"
    return zynq_net


@pytest.fixture(scope="module")
def farm(farm_bin, tmp_path_factory):
    need_farm_tools()
    with Farm(tmp_path_factory.mktemp("farm"), farm_bin, "znfm", 91) as f:
        yield f
