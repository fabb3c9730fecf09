"""Fixtures for the benchmark-runner tests: the binary, and namespace labs.

`bench_bin` is `zynq-net` (ZYNQ_NET_BIN or the release build), the one
binary: `zynq-net bench ...` / `zynq-net lab ...`.
"""
import pathlib
import subprocess

import pytest

from benchlab import Lab, need_root_and_iperf3

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def bench_bin(zynq_net) -> pathlib.Path:
    r = subprocess.run([str(zynq_net), "bench", "--help"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, f"{zynq_net} has no `bench` command (built without the default `bench` feature?):\n{r.stderr}"
    return zynq_net


@pytest.fixture(scope="module")
def shaped_lab(bench_bin):
    """client -> router (tbf 200 Mbit/s) -> server."""
    need_root_and_iperf3()
    with Lab(bench_bin, "znbshape", 61, "--shape", "200M") as lab:
        yield lab
