"""Shared fixtures for the system tests.

`zynq_net` is the release binary built by tests/run-all (ZYNQ_NET_BIN), or
built here when the tests are run on their own. `gen_board` runs
`zynq-net gen` on a reference board into a temporary directory.

With ZYNQ_NET_STAGE_TIMES set (tests/run-all under .ci/run), each test
group (tests/GROUP/) appends one line to that file, as the shell stages of
scripts/lib/stage-times.sh do: "pytest tests/GROUP", wall seconds, CPU
seconds (user + system of pytest and of the processes it waited for, from
getrusage), and 0 or 1 (a test failed). Only the outermost pytest run
records: it takes the variable out of its environment at start, so a
pytest run inside a test (tests/applier's mutation tests run pytest on a
planted bug, and expect it to fail) or a script that records stages
(scripts/lib/stage-times.sh) started by a test adds no line of its own.
"""
import os
import pathlib
import resource
import subprocess
import time
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


# ------------------------------------------------------------ stage times
_GROUPS: dict[str, list] = {}
# The file the groups' lines go to, or None. Taken out of the environment
# when this conftest is loaded (before any test runs), so the processes the
# tests start do not inherit it: a nested pytest run records nothing.
_STAGE_TIMES = os.environ.pop("ZYNQ_NET_STAGE_TIMES", None)


def _group(nodeid: str) -> list:
    """[wall s, CPU s, failed] of the test group (tests/GROUP/) of a test id,
    which is relative to the rootdir: the repository or tests/."""
    name = nodeid.removeprefix("tests/").split("/")[0]
    return _GROUPS.setdefault(name, [0.0, 0.0, 0])


def _cpu_seconds() -> float:
    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                 resource.getrusage(resource.RUSAGE_CHILDREN)))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Wall and CPU time of each test, setup (module fixtures: a QEMU boot)
    and teardown included, summed per group."""
    t0, c0 = time.monotonic(), _cpu_seconds()
    yield
    group = _group(item.nodeid)
    group[0] += time.monotonic() - t0
    group[1] += _cpu_seconds() - c0


def pytest_runtest_logreport(report):
    if report.failed:
        _group(report.nodeid)[2] = 1


def pytest_sessionfinish(session, exitstatus):
    if _STAGE_TIMES and _GROUPS:
        with open(_STAGE_TIMES, "a", encoding="utf-8") as f:
            for name, (wall, cpu, failed) in _GROUPS.items():
                f.write(f"pytest tests/{name}\t{wall:.1f}\t{cpu:.1f}\t{failed}\n")
