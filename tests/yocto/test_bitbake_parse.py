"""A real bitbake, offline, on each kas file's own layers, machine and
local.conf: `bitbake -p`, `bitbake -g zynq-net-image` and `bitbake -e`
assertions that the tuning is baked in and that no Rust is built for the
target.

The upstream layers come from the `git archive` snapshots at the kas pins
(ZYNQ_NET_YOCTO_SNAPSHOTS, default ../shared/yocto beside this checkout;
tests/yocto/snapshots.py), extracted once into $ZYNQ_NET_CACHE/yocto/layers.
One build folder for the three ($ZYNQ_NET_CACHE/yocto/build) keeps bitbake's
recipe cache per configuration and its code-parser cache for all, so a
second run only reparses what changed. ZYNQ_NET_YOCTO_DIR, if
set, names a folder of checkouts to use instead (docs/yocto.md). bitbake
refuses root: as root the parse runs as ZYNQ_NET_BBUSER (default "bb") on a
copy of this checkout in the cache that the user can read.

Skips, saying why, when the snapshots are absent or the host lacks what
bitbake needs (scripts/yocto-host-check lists it).
ZYNQ_NET_YOCTO_CHECK_LAYER=1 also runs yocto-check-layer (slow).
"""
import os
import pathlib
import re
import shlex
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
import snapshots  # noqa: E402

CACHE = pathlib.Path(os.environ.get("ZYNQ_NET_CACHE", "/var/tmp/zynq-net-cache"))
USER = os.environ.get("ZYNQ_NET_BBUSER", "bb")
# kas file -> (kernel recipe, other recipes whose final variables are checked)
MACHINES = {
    "zcu102": ("linux-xlnx", ["device-tree"]),
    "zc702": ("linux-xlnx", ["device-tree"]),
    "p1020rdb": ("linux-qoriq", ["zynq-net-flowtable"]),
    "qemuarm64": ("linux-yocto", []),
}
COMMON = ["zynq-net-image", "zynq-net-tools-native", "packagegroup-zynq-net"]


def as_user(cmd: list) -> list:
    return cmd if os.geteuid() != 0 else ["su", USER, "-s", "/bin/sh", "-c", shlex.join(cmd)]


@pytest.fixture(scope="module")
def yocto():
    """(layers folder, project copy) ready for the bitbake user."""
    if os.environ.get("ZYNQ_NET_YOCTO_DIR"):
        layers = pathlib.Path(os.environ["ZYNQ_NET_YOCTO_DIR"])
    else:
        folder = snapshots.snapshot_dir()
        if not folder.is_dir():
            pytest.skip(f"no layer snapshots in {folder} (set ZYNQ_NET_YOCTO_SNAPSHOTS to the folder "
                        "of poky/meta-* .tar.xz snapshots): real bitbake parse skipped")
        bad = snapshots.problems(folder)
        assert not bad, "kas pins without their snapshot:\n" + "\n".join(bad)
        layers = CACHE / "yocto" / "layers"
        snapshots.extract(layers, folder)
    base = CACHE / "yocto"
    project = base / "zynq-net"
    if os.geteuid() == 0:
        subprocess.run(["id", USER], check=False, capture_output=True).returncode == 0 or \
            subprocess.run(["useradd", "-m", "-s", "/bin/sh", USER], check=True)
    # bitbake's user must read the layers, and this checkout may sit in
    # root's home: a copy (rsync keeps unchanged files' mtimes, so the parse
    # cache stays valid).
    subprocess.run(["rsync", "-a", "--delete", "--exclude=.git", "--exclude=tools/target",
                    "--exclude=__pycache__", "--exclude=.pytest_cache", f"{ROOT}/", f"{project}/"], check=True)
    if os.geteuid() == 0:
        subprocess.run(["chown", "-R", USER, str(project)], check=True)
        subprocess.run(["chmod", "-R", "a+rX", str(layers)], check=True)
    res = subprocess.run(as_user([str(project / "scripts" / "yocto-host-check"), "kas/zcu102.yml",
                                  "--build-dir", str(base), "--min-disk-gb", "5"]),
                         cwd=project, capture_output=True, text=True)
    if res.returncode != 0:
        pytest.skip("the host cannot run bitbake (scripts/install-deps installs what is missing):\n"
                    + res.stdout + res.stderr)
    return layers, project


_runs: dict = {}


def parsed(yocto, name: str) -> dict:
    """Runs tests/yocto/bbparse.py once per kas file (parse, task graph,
    bitbake -e of the checked recipes); returns its results."""
    if name in _runs:
        return _runs[name]
    layers, project = yocto
    build = CACHE / "yocto" / "build"
    kernel, extra = MACHINES[name]
    env = dict(os.environ, ZYNQ_NET_YOCTO_DIR=str(layers), ZYNQ_NET_YOCTO_PROJECT=str(project),
               ZYNQ_NET_YOCTO_BUILD=str(build), ZYNQ_NET_BBUSER=USER)
    res = subprocess.run([sys.executable, str(HERE / "bbparse.py"), f"kas/{name}.yml",
                          "--env", kernel, *extra, *COMMON], cwd=ROOT, env=env, capture_output=True, text=True)
    summary = re.search(r"^bbparse: .*$", res.stdout, re.M)
    print(summary.group(0) if summary else res.stdout[-3000:])
    _runs[name] = {"rc": res.returncode, "out": res.stdout + res.stderr,
                   "results": build / "zynq-net-results" / name,
                   "summary": summary.group(0) if summary else ""}
    return _runs[name]


def env_var(run: dict, recipe: str, var: str) -> str:
    text = (run["results"] / f"env-{recipe}.txt").read_text()
    found = re.findall(rf'^{re.escape(var)}="(.*)"$', text, re.M)
    assert found, f"bitbake -e {recipe}: {var} not set"
    return found[-1]


def graph(run: dict) -> str:
    return (run["results"] / "task-depends.dot").read_text()


@pytest.mark.parametrize("name", list(MACHINES))
def test_parse_and_task_graph(yocto, name):
    run = parsed(yocto, name)
    assert run["rc"] == 0, f"bitbake parse / task graph of kas/{name}.yml failed:\n{run['out'][-8000:]}"
    m = re.search(r"recipes=(\d+) cached=\d+ errors=(\d+)", run["summary"])
    assert m and int(m.group(2)) == 0, run["summary"]
    assert int(m.group(1)) > 2000, f"only {m.group(1)} recipes parsed: layers missing? {run['summary']}"
    assert '"zynq-net-image.do_build"' in graph(run)


@pytest.mark.parametrize("name", list(MACHINES))
def test_kernel_carries_the_board_fragment(yocto, name):
    run = parsed(yocto, name)
    kernel, _ = MACHINES[name]
    if kernel == "linux-qoriq":
        # meta-freescale's DELTA_KERNEL_DEFCONFIG path, and the board's DTS is
        # the one the machine builds (the fragment is included there).
        assert "zynq-net.cfg" in env_var(run, kernel, "DELTA_KERNEL_DEFCONFIG").split()
        dtbs = env_var(run, kernel, "ZYNQ_NET_KERNEL_DTBS").split()
        assert dtbs == env_var(run, kernel, "KERNEL_DEVICETREE").split()
        board = (ROOT / "meta-zynq-net" / "boards" / "p1020rdb.yml").read_text()
        dts = re.search(r"^\s+dts:\s*(\S+)", board, re.M).group(1)
        assert dts.removesuffix(".dts") + ".dtb" in dtbs, f"board dts {dts}, machine builds {dtbs}"
    else:
        features = env_var(run, kernel, "KERNEL_FEATURES").split()
        assert "zynq-net.scc" in features, features
        assert "file://zynq-net-kmeta;type=kmeta;destsuffix=zynq-net-kmeta" in env_var(run, kernel, "SRC_URI")
    if kernel == "linux-xlnx":
        # The vendor's audit setting is kept (linux-xlnx: 0).
        assert env_var(run, kernel, "KCONF_AUDIT_LEVEL") == "0"
        assert "zynq-net.dtsi" in env_var(run, "device-tree", "EXTRA_DT_INCLUDE_FILES").split()


@pytest.mark.parametrize("name", list(MACHINES))
def test_image_installs_the_tuning(yocto, name):
    run = parsed(yocto, name)
    assert "packagegroup-zynq-net" in env_var(run, "zynq-net-image", "IMAGE_INSTALL").split()
    dot = graph(run)
    for task in ("packagegroup-zynq-net.do_package_write_ipk", "zynq-net-tuning.do_package_write_ipk",
                 "zynq-net-verify.do_zynq_net_verify", "zynq-net-fragments.do_populate_sysroot"):
        assert f'"{task}"' in dot, f"{task} not in the task graph of zynq-net-image"
    # Every reference board says `irqbalance: absent`: nothing may pull it in.
    assert "irqbalance" in env_var(run, "zynq-net-image", "PACKAGE_EXCLUDE").split()
    assert '"irqbalance.' not in dot


@pytest.mark.parametrize("name", list(MACHINES))
def test_no_rust_for_the_target(yocto, name):
    run = parsed(yocto, name)
    dot = graph(run)
    # The generator is built, natively: the negative checks below are not vacuous.
    assert '"zynq-net-tools-native.do_compile"' in dot
    assert '"rust-native.do_populate_sysroot"' in dot
    for target_rust in ('"libstd-rs.', '"zynq-net-tools.', '"rust.', '"rust-cross-', '"cargo.'):
        assert target_rust not in dot, f"{target_rust} in the task graph of zynq-net-image: Rust built for the target"
    flags = env_var(run, "zynq-net-tools-native", "CARGO_BUILD_FLAGS")
    assert "--no-default-features" in flags.split(), f"the benchmark crate is built: {flags}"


@pytest.mark.parametrize("name", list(MACHINES))
def test_layer_set_rust_fits_the_workspace(yocto, name):
    import tomllib
    run = parsed(yocto, name)
    have = env_var(run, "zynq-net-tools-native", "RUSTVERSION").rstrip("%")
    need = tomllib.loads((ROOT / "tools" / "Cargo.toml").read_text())["workspace"]["package"]["rust-version"]
    assert tuple(map(int, have.split("."))) >= tuple(map(int, need.split("."))), (have, need)


@pytest.mark.parametrize("name", list(MACHINES))
def test_board_drives_the_fast_path(yocto, name):
    run = parsed(yocto, name)
    dot = graph(run)
    board = (ROOT / "meta-zynq-net" / "boards" / f"{name}.yml").read_text()
    wants = re.search(r"^fastpath:\s*\n\s+flowtable:", board, re.M) is not None
    assert ('"zynq-net-flowtable.do_package_write_ipk"' in dot) == wants, \
        f"board {name} {'asks' if wants else 'does not ask'} for a flowtable"
    if name == "p1020rdb":
        assert env_var(run, "zynq-net-flowtable", "ZYNQ_NET_FLOWTABLE_DEVICES").split() == ["eth0", "eth1"]
    kernel, _ = MACHINES[name]
    if kernel != "linux-qoriq":
        has = "zynq-net-fastpath-flowtable.scc" in env_var(run, kernel, "KERNEL_FEATURES").split()
        assert has == wants


def test_yocto_check_layer(yocto):
    if os.environ.get("ZYNQ_NET_YOCTO_CHECK_LAYER") != "1":
        pytest.skip("set ZYNQ_NET_YOCTO_CHECK_LAYER=1 to run yocto-check-layer (slow)")
    layers, project = yocto
    poky = layers / "poky"
    build = CACHE / "yocto" / "build-check-layer"
    deps = " ".join(str(p) for p in [project, layers / "meta-openembedded" / "meta-oe",
                                     layers / "meta-openembedded" / "meta-python",
                                     layers / "meta-openembedded" / "meta-networking"])
    cmd = (f"export LANG=en_US.UTF-8; cd {poky} && . ./oe-init-build-env {build} >/dev/null && "
           f"printf 'BB_NO_NETWORK = \"1\"\\nCONNECTIVITY_CHECK_URIS = \"\"\\n' >> conf/local.conf && "
           f"yocto-check-layer --no-auto-dependency --dependency {deps} -- {project / 'meta-zynq-net'} "
           "2>&1 | tail -n 60")
    argv = ["su", USER, "-s", "/bin/bash", "-c", cmd] if os.geteuid() == 0 else ["bash", "-c", cmd]
    if os.geteuid() == 0:
        build.mkdir(parents=True, exist_ok=True)
        subprocess.run(["chown", "-R", USER, str(build)], check=True)
    res = subprocess.run(argv, capture_output=True, text=True)
    print(res.stdout)
    assert "FAILED" not in res.stdout and "INFO: meta-zynq-net ... PASS" in res.stdout, res.stdout
