"""Fixtures for the benchmark-runner tests: the binary, and namespace labs.

`bench_bin` is `zynq-net` when it has the `bench` command (ZYNQ_NET_BIN or
the release build), else the stand-alone `zynq-net-bench` binary of the
bench crate, which takes the same `bench ...` / `lab ...` arguments.
"""
import os
import pathlib
import subprocess

import pytest

from benchlab import Lab, need_root_and_iperf3

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _has_bench(binary: pathlib.Path) -> bool:
    try:
        r = subprocess.run([str(binary), "bench", "--help"], capture_output=True, timeout=30)
    except OSError:
        return False
    return r.returncode == 0


@pytest.fixture(scope="session")
def bench_bin(zynq_net) -> pathlib.Path:
    if _has_bench(zynq_net):
        return zynq_net
    subprocess.run(
        ["cargo", "build", "--release", "--locked", "--manifest-path",
         str(ROOT / "tools" / "Cargo.toml"), "-p", "zynq-net-bench", "--bin", "zynq-net-bench"],
        check=True)
    return ROOT / "tools" / "target" / "release" / "zynq-net-bench"


@pytest.fixture(scope="module")
def shaped_lab(bench_bin):
    """client -> router (tbf 200 Mbit/s) -> server."""
    need_root_and_iperf3()
    with Lab(bench_bin, "znbshape", 61, "--shape", "200M") as lab:
        yield lab
