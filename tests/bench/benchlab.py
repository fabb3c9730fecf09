"""Helpers of the benchmark-runner tests: a `zynq-net lab` as a context manager."""
import os
import shutil
import subprocess

import pytest


def need_root_and_iperf3():
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root")
    if shutil.which("iperf3") is None:
        pytest.skip("iperf3 is not installed (scripts/install-deps)")


class Lab:
    """A `zynq-net lab` brought up for a test module and torn down after."""

    def __init__(self, binary, name, subnet, *extra):
        self.binary = binary
        self.name = name
        self.args = ["lab", "up", "--name", name, "--subnet", str(subnet), *extra]

    def __enter__(self):
        subprocess.run([str(self.binary), "lab", "down", "--name", self.name], capture_output=True)
        r = subprocess.run([str(self.binary), *self.args], capture_output=True, text=True)
        assert r.returncode == 0, f"lab up failed:\n{r.stdout}\n{r.stderr}"
        self.up_output = r.stdout + r.stderr
        return self

    def __exit__(self, *exc):
        r = subprocess.run([str(self.binary), "lab", "down", "--name", self.name],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr

    def bench(self, *args, check=True, timeout=600):
        r = subprocess.run([str(self.binary), "bench", *args], capture_output=True, text=True,
                           timeout=timeout)
        if check:
            assert r.returncode == 0, f"bench {' '.join(args)} -> {r.returncode}\n{r.stdout}\n{r.stderr}"
        return r
