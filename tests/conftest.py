"""Shared fixtures for the system tests.

`zynq_net` is the release binary built by tests/run-all (ZYNQ_NET_BIN), or
built here when the tests are run on their own. `gen_board` runs
`zynq-net gen` on a reference board into a temporary directory.
"""
import os
import pathlib
import subprocess
import uuid

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


@pytest.fixture
def veth_netns():
    """veth_netns(prefix, a, b) -> the name of a new network namespace that
    holds the veth pair a/b (down); every one made is deleted after the
    test. Skips the test when not root."""
    made = []

    def _make(prefix: str, a: str, b: str) -> str:
        if os.geteuid() != 0:
            pytest.skip("needs root for network namespaces")
        name = f"{prefix}-{uuid.uuid4().hex[:8]}"
        subprocess.run(["ip", "netns", "add", name], check=True)
        made.append(name)
        subprocess.run(["ip", "-n", name, "link", "add", a, "type", "veth", "peer", "name", b], check=True)
        return name

    yield _make
    for name in made:
        subprocess.run(["ip", "netns", "del", name], check=False)
