"""tools/Cargo.toml's rust-version is the true minimum of the locked graph
(scripts/check-rust-version, from `cargo metadata`), it is the Rust the
Yocto recipe asks for (ZYNQ_NET_RUST_MIN), and stock scarthgap oe-core's
Rust (RUSTVERSION in the poky snapshot) is not older. A deliberately raised
dependency makes the check fail."""
import importlib.machinery
import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
SCRIPT = ROOT / "scripts" / "check-rust-version"
RECIPE = ROOT / "recipes-rust" / "zynq-net-tools" / "zynq-net-tools-native_0.1.0.bb"

_loader = importlib.machinery.SourceFileLoader("check_rust_version", str(SCRIPT))
check_rust_version = importlib.util.module_from_spec(importlib.util.spec_from_loader("check_rust_version", _loader))
_loader.exec_module(check_rust_version)

sys.path.insert(0, str(ROOT / "tests" / "yocto"))
import snapshots  # noqa: E402


def declared() -> str:
    return tomllib.loads((ROOT / "tools" / "Cargo.toml").read_text())["workspace"]["package"]["rust-version"]


def test_locked_graph_fits_rust_version():
    res = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"Rust {declared()}" in res.stdout


def test_recipe_asks_for_the_same_rust():
    m = re.search(r'^ZYNQ_NET_RUST_MIN \?= "([0-9.]+)"', RECIPE.read_text(), re.M)
    assert m, f"{RECIPE.name}: no ZYNQ_NET_RUST_MIN"
    assert m.group(1) == declared(), f"{RECIPE.name} asks for Rust {m.group(1)}, tools/Cargo.toml says {declared()}"


def test_scarthgap_rust_is_enough():
    folder = snapshots.snapshot_dir()
    pins = snapshots.all_pins()
    tarball = snapshots.tarball("poky", pins["poky"], folder)
    if not tarball.is_file():
        pytest.skip(f"no poky snapshot {tarball} (ZYNQ_NET_YOCTO_SNAPSHOTS): RUSTVERSION not checked")
    inc = subprocess.run(["tar", "-xJOf", str(tarball), "poky/meta/conf/distro/include/tcmode-default.inc"],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r'^RUSTVERSION \?= "([0-9.]+)%?"', inc, re.M)
    assert m, "poky tcmode-default.inc sets no RUSTVERSION"
    have = check_rust_version.vtuple(m.group(1))
    assert have >= check_rust_version.vtuple(declared()), \
        f"poky at the kas pin builds Rust {m.group(1)}, tools/Cargo.toml needs {declared()}"


def test_checker_flags_declared_and_edition_minimums():
    # The checker's rules on a small graph: a declared rust-version above
    # ours, an edition-2024 crate without one, a fitting crate, and a crate
    # outside the resolved graph (another platform) that must not count.
    meta = {"packages": [
        {"id": "a", "name": "raised", "version": "1.0.0", "rust_version": "1.90", "edition": "2021"},
        {"id": "b", "name": "ed2024", "version": "0.2.10", "rust_version": None, "edition": "2024"},
        {"id": "c", "name": "fits", "version": "1.0.0", "rust_version": "1.70", "edition": "2021"},
        {"id": "d", "name": "wasm-only", "version": "1.0.0", "rust_version": "1.99", "edition": "2024"},
    ], "resolve": {"nodes": [{"id": "a"}, {"id": "b"}, {"id": "c"}]}}
    got = check_rust_version.offenders(meta, "1.75")
    assert got == ["ed2024 0.2.10 needs Rust 1.85 (edition 2024)", "raised 1.0.0 needs Rust 1.90 (rust-version 1.90)"]
    assert check_rust_version.offenders(meta, "1.90") == []


def test_raised_dependency_fails(tmp_path):
    # A copy of the workspace with one real dependency moved to a release
    # that needs a newer Rust (clap 4.6 declares 1.85): the check must fail
    # and name it. Needs crates.io (cargo fetches the new manifest).
    ws = tmp_path / "tools"
    ws.mkdir()
    for f in ("Cargo.toml", "Cargo.lock"):
        shutil.copy(ROOT / "tools" / f, ws / f)
    shutil.copytree(ROOT / "tools" / "crates", ws / "crates", ignore=shutil.ignore_patterns("target"))
    env = dict(os.environ, CARGO_TARGET_DIR=str(tmp_path / "target"))
    res = subprocess.run(["cargo", "update", "--manifest-path", str(ws / "Cargo.toml"),
                          "-p", "clap", "--precise", "4.6.0"], capture_output=True, text=True, env=env)
    if res.returncode != 0:
        if re.search(r"failed to (download|get|query)|Could not resolve|network|timed out|offline", res.stderr, re.I):
            pytest.skip(f"crates.io unreachable, cannot raise a dependency: {res.stderr.strip()[-300:]}")
        pytest.fail(res.stderr)
    res = subprocess.run([sys.executable, str(SCRIPT), "--manifest-path", str(ws / "Cargo.toml")],
                         capture_output=True, text=True, env=env)
    assert res.returncode == 1, res.stdout + res.stderr
    assert re.search(r"clap 4\.6\.0 needs Rust 1\.85", res.stderr), res.stderr
