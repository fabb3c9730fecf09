"""Our recipes' tasks run by a real bitbake, offline (scripts/yocto-offline-build):
zynq-net-tools-native compiled by oe-core's cargo class from the crates
bitbake fetched (checksums of the .inc) into DL_DIR, zynq-net-fragments
deployed for zcu102, p1020rdb and qemuarm64, and the deployed tree
byte-identical (modes included) to `zynq-net gen` of the same board.

Then the faults this must catch, each planted in a copy of this checkout
and run for qemuarm64: a crate missing from the .inc, a file missing from
the tools recipe's file:// list, a wrong output flag of the generator in
zynq-net.bbclass. Each must make the build or the comparison fail.

The upstream layers come from where test_bitbake_parse.py takes them
(ZYNQ_NET_YOCTO_DIR checkouts, or the ZYNQ_NET_YOCTO_SNAPSHOTS tarballs at
the kas pins); without them the test skips, saying so. The build folder,
its DL_DIR and sstate live in $ZYNQ_NET_CACHE/yocto/offline-build, so a
second run restores from sstate. The script's task lines, comparison and
costs are written to the terminal (and to
$ZYNQ_NET_CACHE/yocto/offline-build/zynq-net-results/).
ZYNQ_NET_OFFLINE_BOARDS=qemuarm64 runs one board.
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
import snapshots  # noqa: E402

CACHE = pathlib.Path(os.environ.get("ZYNQ_NET_CACHE", "/var/tmp/zynq-net-cache"))
BUILD = CACHE / "yocto" / "offline-build"
SCRIPT = ROOT / "scripts" / "yocto-offline-build"
# ZYNQ_NET_OFFLINE_BOARDS: a comma-separated subset (the faults run on qemuarm64).
BOARDS = [b for b in os.environ.get("ZYNQ_NET_OFFLINE_BOARDS", "zcu102,p1020rdb,qemuarm64").split(",") if b]
MACHINE = {"zcu102": "zcu102-zynqmp", "p1020rdb": "p1020rdb", "qemuarm64": "qemuarm64"}
TOOLS_TASKS = ["do_fetch", "do_unpack", "do_patch", "do_prepare_recipe_sysroot", "do_configure",
               "do_compile", "do_install", "do_populate_sysroot"]


def report(request, text: str) -> None:
    """Shown in the CI log whether the test passes or not."""
    term = request.config.pluginmanager.getplugin("terminalreporter")
    for line in text.splitlines():
        (term.write_line if term else print)(line)


@pytest.fixture(scope="module")
def layers():
    if os.environ.get("ZYNQ_NET_YOCTO_DIR"):
        return pathlib.Path(os.environ["ZYNQ_NET_YOCTO_DIR"])
    folder = snapshots.snapshot_dir()
    if not folder.is_dir():
        pytest.skip(f"no upstream layers: neither ZYNQ_NET_YOCTO_DIR (layer checkouts) nor layer "
                    f"snapshots in {folder} (ZYNQ_NET_YOCTO_SNAPSHOTS): the offline bitbake build of "
                    "our recipes is skipped (it runs where the layers are given, docs/yocto.md)")
    bad = snapshots.problems(folder)
    assert not bad, "kas pins without their snapshot:\n" + "\n".join(bad)
    dest = CACHE / "yocto" / "layers"
    snapshots.extract(dest, folder)
    return dest


@pytest.fixture(scope="module")
def gen_binary():
    if not shutil.which("cargo"):
        pytest.skip("no cargo on this host: the offline bitbake build uses the host's Rust")
    res = subprocess.run(["cargo", "build", "--release", "--locked", "--manifest-path",
                          str(ROOT / "tools" / "Cargo.toml"), "-p", "zynq-net-cli"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-4000:]
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "tools" / "target"))
    return target / "release" / "zynq-net"


def run(script: pathlib.Path, layers: pathlib.Path, gen: pathlib.Path, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(script), "--layers", str(layers), "--gen", str(gen),
                           "--build", str(BUILD), *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def build(request, layers, gen_binary):
    # --fresh-tmp: as a CI job with the sstate cache but no build folder.
    res = run(SCRIPT, layers, gen_binary, "--machines", ",".join(BOARDS), "--fresh-tmp")
    report(request, res.stdout[-20000:] + res.stderr[-4000:])
    return res


def test_build_succeeds(build):
    assert build.returncode == 0, build.stdout[-12000:] + build.stderr[-4000:]
    assert re.search(r"^yocto-offline-build: boards=\S+ .* ok$", build.stdout, re.M), build.stdout[-3000:]


def task_ran(out: str, board: str, pn: str, task: str) -> bool:
    """The task ran and succeeded, or bitbake restored its output from
    sstate (the _setscene task), in BOARD's run."""
    pat = rf"^  {board}: NOTE: recipe {re.escape(pn)}-[^:]+: task {task}(_setscene)?: Succeeded$"

    return re.search(pat, out, re.M) is not None


def test_tools_native_tasks(build):
    """Compiled in this run (cold), or restored from the sstate a compile
    with the same signature left (warm: TMPDIR is removed first)."""
    out = build.stdout
    ran = [t for t in TOOLS_TASKS if task_ran(out, BOARDS[0], "zynq-net-tools-native", t)]
    restored = re.search(rf"^  {BOARDS[0]}: NOTE: recipe zynq-net-tools-native-[^:]+: "
                         r"task do_populate_sysroot_setscene: Succeeded$", out, re.M)
    assert ran == TOOLS_TASKS or restored, \
        f"zynq-net-tools-native: only {ran} succeeded and no sstate restore\n{out[-8000:]}"


@pytest.mark.parametrize("board", BOARDS)
def test_fragments_deployed_identical_to_gen(build, board):
    out = build.stdout
    assert task_ran(out, board, "zynq-net-fragments", "do_deploy"), out[-8000:]
    line = re.search(rf"^yocto-offline-build: {board}: (.*)$", out, re.M)
    assert line and "is byte-identical to `zynq-net gen" in line.group(1), out[-8000:]
    deploy = BUILD / "tmp" / "deploy" / "images" / MACHINE[board] / "zynq-net"
    assert (deploy / "tuning" / "zynq-net-apply").is_file()
    assert os.access(deploy / "tuning" / "zynq-net-apply", os.X_OK)


# The planted faults: (file, text, replacement, what the failure must say).
FAULTS = {
    "crate-missing-from-inc": (
        "recipes-rust/zynq-net-tools/zynq-net-tools-crates.inc",
        "    crate://crates.io/fdt/0.1.5 \\\n", "",
        r"searched package name: `fdt`"),
    "file-missing-from-src-uri": (
        "recipes-rust/zynq-net-tools/zynq-net-tools-native_0.1.0.bb",
        "            file://tools/Cargo.lock \\\n", "",
        r"Cargo\.lock"),
    "wrong-generator-flag": (
        "meta-zynq-net/classes/zynq-net.bbclass",
        'zynq-net gen "${ZYNQ_NET_BOARD}" -o "${ZYNQ_NET_GEN_DIR}"',
        'zynq-net gen "${ZYNQ_NET_BOARD}" -o "${ZYNQ_NET_GEN_DIR}/tuning"',
        r"qemuarm64: \S+ differs from `zynq-net gen"),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_planted_fault_fails(request, build, layers, gen_binary, tmp_path, fault):
    assert build.returncode == 0, "the unplanted build must pass first"
    path, old, new, says = FAULTS[fault]
    copy = tmp_path / "zynq-net"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(".git", "target", "__pycache__", ".pytest_cache"))
    text = (copy / path).read_text()
    assert old in text, f"{path} no longer holds {old!r}: update the planted fault"
    (copy / path).write_text(text.replace(old, new, 1))
    # --fresh-tmp: in a kept work folder the crates and Cargo.lock of the
    # previous do_unpack stay, and both faults then went unnoticed (seen).
    res = run(copy / "scripts" / "yocto-offline-build", layers, gen_binary, "--machines", "qemuarm64",
              "--fresh-tmp")
    report(request, f"--- planted fault {fault}:\n" + "\n".join(
        line for line in res.stdout.splitlines() if "Failed" in line or "ERROR" in line
        or "differs" in line or "boards=" in line)[-6000:])
    assert res.returncode != 0, f"{fault} planted, yet the build passed:\n{res.stdout[-6000:]}"
    assert re.search(says, res.stdout + res.stderr), res.stdout[-8000:]


# --- do_package / do_packagedata (scripts/yocto-offline-build --package) ---
# What docs/yocto.md ("Where things land") says the image holds, by
# package, with the generator's file each is installed from and its mode.
# poky's DISTRO_FEATURES carry sysvinit, not systemd: the init script is
# packaged, the unit is not.
TUNING_FILES = {
    "etc/zynq-net/zynq-net.plan": ("tuning/zynq-net.plan", 0o644),
    "usr/sbin/zynq-net-apply": ("tuning/zynq-net-apply", 0o755),
    "etc/sysctl.d/99-zynq-net.conf": ("tuning/99-zynq-net.conf", 0o644),
    "etc/init.d/zynq-net": ("tuning/zynq-net.init", 0o755),
}
OPTIONAL_TUNING = {  # packaged when the board's generator output has them
    "lib/udev/rules.d/90-zynq-net.rules": ("tuning/90-zynq-net.rules", 0o644),
    "etc/zynq-net/irqbalance-policy": ("tuning/zynq-net-irqbalance-policy", 0o755),
}


@pytest.fixture(scope="module")
def packaged(request, build, layers, gen_binary):
    if not pathlib.Path("/usr/bin/pseudo").is_file():
        pytest.skip("Debian's pseudo is not installed (scripts/deps/apt.txt): do_package of our "
                    "recipes needs a fakeroot, and pseudo-native's sources are out of reach offline")
    res = run(SCRIPT, layers, gen_binary, "--machines", ",".join(BOARDS), "--package")
    report(request, "--- --package:\n" + res.stdout[-12000:] + res.stderr[-3000:])
    return res


def pkgdata(board: str, pkg: str) -> str:
    return (BUILD / "tmp" / "pkgdata" / MACHINE[board] / "runtime" / pkg).read_text()


def split_dir(board: str, pn: str, pkg: str) -> pathlib.Path:
    arch = MACHINE[board].replace("-", "_")
    hits = sorted((BUILD / "tmp" / "work").glob(f"{arch}-*/{pn}/*/packages-split/{pkg}"))
    assert hits, f"no packages-split/{pkg} of {pn} for {board} under {BUILD / 'tmp' / 'work'}"
    return hits[-1]


def test_package_tasks_succeed(packaged):
    missing = sorted(set(re.findall(r"Nothing R?PROVIDES '([^']+)'", packaged.stdout)))
    assert not missing, ("bitbake found no provider for (the sources or recipes missing from the "
                         f"reduced offline layer set): {missing}")
    assert packaged.returncode == 0, packaged.stdout[-12000:] + packaged.stderr[-3000:]
    for board in BOARDS:
        for pn in ("zynq-net-tuning", "zynq-net-fragments"):
            for task in ("do_install", "do_package", "do_packagedata"):
                assert task_ran(packaged.stdout, board, pn, task), f"{board} {pn} {task}\n{packaged.stdout[-6000:]}"


@pytest.mark.parametrize("board", BOARDS)
def test_tuning_package_contents(packaged, board):
    assert packaged.returncode == 0, packaged.stdout[-6000:]
    gen = BUILD / "zynq-net-results" / f"gen-{board}"
    pkg = split_dir(board, "zynq-net-tuning", "zynq-net-tuning")
    want = dict(TUNING_FILES)
    want.update({k: v for k, v in OPTIONAL_TUNING.items() if (gen / v[0]).is_file()})
    have = {p.relative_to(pkg).as_posix() for p in pkg.rglob("*") if p.is_file()}
    assert have == set(want), f"{board}: zynq-net-tuning holds {sorted(have)}, docs/yocto.md {sorted(want)}"
    for path, (src, mode) in want.items():
        assert (pkg / path).read_bytes() == (gen / src).read_bytes(), f"{board}: {path} is not gen's {src}"
        assert (pkg / path).stat().st_mode & 0o7777 == mode, f"{board}: {path} mode"
    data = pkgdata(board, "zynq-net-tuning")
    rdeps = re.search(r"^RDEPENDS:zynq-net-tuning: (.*)$", data, re.M).group(1).split()
    assert {"ethtool", "iproute2-ip", "iproute2-tc"} <= set(rdeps), rdeps
    # update-rc.d.bbclass: the postinst registers the script as the recipe says.
    post = re.search(r"^pkg_postinst:zynq-net-tuning: (.*)$", data, re.M)
    assert post and "update-rc.d" in post.group(1) and "zynq-net start 05 S ." in post.group(1), data[-3000:]
    conffiles = re.search(r"^CONFFILES:zynq-net-tuning: (.*)$", data, re.M)
    assert conffiles and set(conffiles.group(1).split()) == {
        "/etc/zynq-net/zynq-net.plan", "/etc/sysctl.d/99-zynq-net.conf"}, data[-3000:]


@pytest.mark.parametrize("board", BOARDS)
def test_ptest_and_fragments_packages(packaged, board):
    assert packaged.returncode == 0, packaged.stdout[-6000:]
    gen = BUILD / "zynq-net-results" / f"gen-{board}"
    ptest = split_dir(board, "zynq-net-tuning", "zynq-net-tuning-ptest")
    base = ptest / "usr" / "lib" / "zynq-net-tuning" / "ptest"
    assert (base / "manifest.json").read_bytes() == (gen / "manifest.json").read_bytes()
    assert (base / "run-ptest").stat().st_mode & 0o111, "run-ptest not executable"
    rdeps = re.search(r"^RDEPENDS:zynq-net-tuning-ptest: (.*)$", pkgdata(board, "zynq-net-tuning-ptest"),
                      re.M).group(1).split()
    assert "zynq-net-tuning" in rdeps, rdeps
    # The fragments are build-time input: in -dev only, nothing in the main package.
    dev = split_dir(board, "zynq-net-fragments", "zynq-net-fragments-dev") / "usr" / "share" / "zynq-net"
    for sub in ("dt", "kernel"):
        names = sorted(p.name for p in (gen / sub).iterdir())
        assert sorted(p.name for p in (dev / sub).iterdir()) == names, f"{board}: -dev {sub}/"
        for name in names:
            assert (dev / sub / name).read_bytes() == (gen / sub / name).read_bytes()
    main = split_dir(board, "zynq-net-fragments", "zynq-net-fragments")
    assert not [p for p in main.rglob("*") if p.is_file()], "zynq-net-fragments (main) is not empty"
