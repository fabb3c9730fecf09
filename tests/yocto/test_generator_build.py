"""The generator as the Yocto recipe builds it (zynq-net-tools-native:
`cargo build --package zynq-net-cli --no-default-features`): it compiles
without the benchmark crate, has no `bench`/`lab` subcommands, and writes
the same artifacts as the lab-host build.

Builds into tools/target like tests/run-all (the dependencies are shared,
only the CLI crate is rebuilt), then rebuilds the default binary so the
other tests keep using the full tool.
"""
import filecmp
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
MANIFEST = ROOT / "tools" / "Cargo.toml"
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "tools" / "target"))
RECIPE = ROOT / "recipes-rust" / "zynq-net-tools" / "zynq-net-tools-native_0.1.0.bb"


def cargo_build(*extra):
    return subprocess.run(["cargo", "build", "--release", "--locked", "--manifest-path", str(MANIFEST),
                           "-p", "zynq-net-cli", *extra], capture_output=True, text=True)


@pytest.fixture(scope="module")
def recipe_binary(tmp_path_factory):
    if not shutil.which("cargo"):
        pytest.skip("no cargo on this host")
    assert "--no-default-features" in RECIPE.read_text(), "the recipe no longer builds without default features"
    built = cargo_build("--no-default-features")
    out = tmp_path_factory.mktemp("recipe-build") / "zynq-net"
    try:
        assert built.returncode == 0, built.stderr[-4000:]
        shutil.copy2(TARGET / "release" / "zynq-net", out)
        tree = subprocess.run(["cargo", "tree", "--locked", "--manifest-path", str(MANIFEST), "-p",
                               "zynq-net-cli", "--no-default-features", "-e", "normal", "--prefix", "none"],
                              capture_output=True, text=True, check=True).stdout
    finally:
        restored = cargo_build()
        assert restored.returncode == 0, restored.stderr[-4000:]
    return out, tree


def test_no_benchmark_crate(recipe_binary):
    _, tree = recipe_binary
    names = {line.split()[0] for line in tree.splitlines() if line.strip()}
    assert "zynq-net-render" in names and "zynq-net-model" in names
    assert "zynq-net-bench" not in names and "indicatif" not in names, sorted(names)


def test_no_bench_subcommand(recipe_binary):
    binary, _ = recipe_binary
    help_text = subprocess.run([str(binary), "--help"], capture_output=True, text=True, check=True).stdout
    assert "gen" in help_text and "kconfig" in help_text
    res = subprocess.run([str(binary), "bench", "plan"], capture_output=True, text=True)
    assert res.returncode == 2 and "unrecognized subcommand" in res.stderr, res.stderr


@pytest.mark.parametrize("board", ["zcu102", "zc702", "p1020rdb", "qemuarm64"])
def test_same_artifacts_as_the_full_tool(recipe_binary, tmp_path, board):
    binary, _ = recipe_binary
    full = TARGET / "release" / "zynq-net"
    path = ROOT / "meta-zynq-net" / "boards" / f"{board}.yml"
    for exe, out in ((binary, tmp_path / "recipe"), (full, tmp_path / "full")):
        res = subprocess.run([str(exe), "gen", str(path), "-o", str(out)], capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
    cmp = filecmp.dircmp(tmp_path / "recipe", tmp_path / "full")
    diffs = []

    def walk(c, prefix=""):
        diffs.extend(prefix + f for f in c.diff_files + c.left_only + c.right_only)
        for name, sub in c.subdirs.items():
            walk(sub, prefix + name + "/")
    walk(cmp)
    assert not diffs, f"{board}: the recipe's generator writes other artifacts: {diffs}"
