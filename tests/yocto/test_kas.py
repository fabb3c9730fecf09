"""The kas files validate against the JSON schema of the pinned kas package,
resolve their includes with kas's own include handler, pin every repository
by commit, and name layer paths that exist.

This repository's layers are checked here always. The other repositories'
pins are checked against the `git archive` snapshots in
ZYNQ_NET_YOCTO_SNAPSHOTS (default ../shared/yocto beside the checkout):
each pin must be the commit of its snapshot, and each named layer in it.
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import sys

import jsonschema
import kas
import pytest
import yaml
from kas.context import create_global_context
from kas.includehandler import IncludeHandler

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import snapshots  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
KAS = ROOT / "kas"
TOP = sorted(KAS.glob("*.yml"))
ALL = sorted(KAS.rglob("*.yml"))
OPTS = sorted((KAS / "opt").glob("*.yml"))
SCHEMA = json.loads((pathlib.Path(kas.__file__).parent / "schema-kas.json").read_text())


def pinned_kas_version():
    for line in (ROOT / "scripts" / "deps" / "pip.txt").read_text().splitlines():
        if line.startswith("kas=="):
            return line.split("==", 1)[1].strip()
    return None


@pytest.fixture(autouse=True, scope="module")
def kas_context(tmp_path_factory):
    # kas's include handler runs git through its global context.
    work = tmp_path_factory.mktemp("kas-work")
    old = os.environ.get("KAS_WORK_DIR")
    os.environ["KAS_WORK_DIR"] = str(work)
    create_global_context(argparse.Namespace(no_color=True, update=False, force_checkout=False))
    yield
    if old is None:
        os.environ.pop("KAS_WORK_DIR", None)
    else:
        os.environ["KAS_WORK_DIR"] = old


def merged(*files):
    handler = IncludeHandler([str(f) for f in files], use_lock=False)
    config, missing = handler.get_config()
    assert not missing, f"{files}: includes from repos not checked out: {missing}"
    return config


def test_schema_is_the_pinned_kas():
    assert pinned_kas_version() == kas.__version__, \
        f"installed kas {kas.__version__} is not the pinned {pinned_kas_version()}"


def test_top_level_files_exist():
    names = {f.name for f in TOP}
    assert {"zcu102.yml", "zc702.yml", "p1020rdb.yml", "qemuarm64.yml"} <= names, names


@pytest.mark.parametrize("path", ALL, ids=lambda p: str(p.relative_to(ROOT)))
def test_validates_against_kas_schema(path):
    data = yaml.safe_load(path.read_text())
    errors = sorted(jsonschema.Draft7Validator(SCHEMA).iter_errors(data), key=str)
    assert not errors, "\n".join(f"{path}: {e.message}" for e in errors)


@pytest.mark.parametrize("path", TOP, ids=lambda p: p.name)
def test_entry_file_resolves(path):
    config = merged(path)
    assert config.get("machine"), f"{path.name}: no machine"
    assert config.get("target"), f"{path.name}: no target"
    repos = config["repos"]
    assert "poky" in repos and "meta-openembedded" in repos
    # The tools build with oe-core scarthgap's own Rust 1.75: no Rust mixin
    # layer (one layer fewer for a vendor; tests/yocto/test_rust_version.py).
    assert "meta-lts-mixins" not in repos, f"{path.name}: a Rust mixin layer is not needed"


@pytest.mark.parametrize("opt", OPTS, ids=lambda p: p.name)
def test_options_combine_with_every_board(opt):
    for top in TOP:
        merged(top, opt)


@pytest.mark.parametrize("path", TOP, ids=lambda p: p.name)
def test_repos_pinned_by_commit(path):
    for name, repo in merged(path)["repos"].items():
        if not repo or not repo.get("url"):
            continue
        commit = repo.get("commit", "")
        assert re.fullmatch(r"[0-9a-f]{40}", commit), \
            f"{path.name}: repo {name} is not pinned by a full commit id ({commit!r})"
        assert "branch" not in repo, f"{path.name}: repo {name}: pin by commit only"


@pytest.mark.parametrize("path", TOP, ids=lambda p: p.name)
def test_own_layers_exist(path):
    repos = merged(path)["repos"]
    own = [r for r in repos.values() if r is not None and not r.get("url")]
    assert own, f"{path.name}: this repository is not a kas repo"
    for repo in own:
        for layer in repo.get("layers") or {}:
            conf = ROOT / layer / "conf" / "layer.conf"
            assert conf.is_file(), f"{path.name}: layer {layer}: {conf} missing"


@pytest.mark.parametrize("path", TOP, ids=lambda p: p.name)
def test_external_layers_exist(path):
    # Every pinned repository has its `git archive` snapshot holding exactly
    # the pinned commit (tests/yocto/snapshots.py), and each layer the kas
    # file names is in it.
    folder = snapshots.snapshot_dir()
    if not folder.is_dir():
        pytest.skip(f"no layer snapshots in {folder} (ZYNQ_NET_YOCTO_SNAPSHOTS): pins not checked")
    repos = merged(path)["repos"]
    problems = []
    for name, repo in repos.items():
        if not repo or not repo.get("url"):
            continue
        tarball = snapshots.tarball(name, repo["commit"], folder)
        if not tarball.is_file():
            problems.append(f"{name}: no snapshot {tarball.name} for the pinned commit {repo['commit']}")
            continue
        got = snapshots.tar_commit(tarball)
        if got != repo["commit"]:
            problems.append(f"{name}: {tarball.name} holds {got}, the pin is {repo['commit']}")
            continue
        listing = set(subprocess.run(["tar", "-tJf", str(tarball)], capture_output=True, text=True,
                                     check=True).stdout.split())
        for layer in repo.get("layers") or {".": None}:
            conf = f"{name}/conf/layer.conf" if layer in (".", "") else f"{name}/{layer}/conf/layer.conf"
            if conf not in listing:
                problems.append(f"{name}: {conf} not in {tarball.name}")
    assert not problems, "\n".join(problems)


def test_snapshot_check_catches_a_moved_pin(tmp_path, monkeypatch):
    # A snapshot whose commit is not the pin is reported (not just a
    # missing file): a git archive of a throwaway repository, named as if
    # it were poky at the pinned commit.
    repo = tmp_path / "r"
    repo.mkdir()
    (repo / "f").write_text("x\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "f"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "x"], check=True)
    pins = snapshots.all_pins()
    folder = tmp_path / "snap"
    folder.mkdir()
    tar = subprocess.run(git + ["archive", "--prefix=poky/", "HEAD"], capture_output=True, check=True).stdout
    xz = subprocess.run(["xz", "-c"], input=tar, capture_output=True, check=True).stdout
    snapshots.tarball("poky", pins["poky"], folder).write_bytes(xz)
    problems = snapshots.problems(folder)
    assert any(p.startswith("poky:") and "holds commit" in p for p in problems), problems
    assert any(p.startswith("meta-openembedded:") and "no snapshot" in p for p in problems), problems
