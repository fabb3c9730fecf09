"""Shared fixtures for the system tests.

`zynq_net` is the release binary built by tests/run-all (ZYNQ_NET_BIN), or
built here when the tests are run on their own. `gen_board` runs
`zynq-net gen` on a reference board into a temporary directory.
"""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
BOARDS = ROOT / "meta-zynq-net" / "boards"
CACHE = pathlib.Path(os.environ.get("ZYNQ_NET_CACHE", "/var/tmp/zynq-net-cache"))


@pytest.fixture(scope="session")
def zynq_net() -> pathlib.Path:
    env_bin = os.environ.get("ZYNQ_NET_BIN")
    if env_bin:
        return pathlib.Path(env_bin)
    subprocess.run(
        ["cargo", "build", "--release", "--locked", "--manifest-path",
         str(ROOT / "tools" / "Cargo.toml"), "--bin", "zynq-net"],
        check=True)
    return ROOT / "tools" / "target" / "release" / "zynq-net"


@pytest.fixture(scope="session")
def gen_board(zynq_net, tmp_path_factory):
    """gen_board("zcu102") -> pathlib.Path of the generated output directory."""
    done = {}

    def _gen(name: str) -> pathlib.Path:
        if name not in done:
            out = tmp_path_factory.mktemp(f"gen-{name}") / "out"
            subprocess.run([str(zynq_net), "gen", str(BOARDS / f"{name}.yml"),
                            "-o", str(out)], check=True)
            done[name] = out
        return done[name]

    return _gen
