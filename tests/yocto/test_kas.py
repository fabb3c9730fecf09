"""The kas files validate against the JSON schema of the pinned kas package,
resolve their includes with kas's own include handler, pin every repository
by commit, and name layer paths that exist.

This repository's layers are checked here always. The layers of the other
repositories are checked when ZYNQ_NET_YOCTO_DIR names a folder of
checkouts (one per kas repo key, see docs/yocto.md); otherwise only their
names are listed in the test output.
"""
import argparse
import json
import os
import pathlib
import re
import subprocess

import jsonschema
import kas
import pytest
import yaml
from kas.context import create_global_context
from kas.includehandler import IncludeHandler

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
    assert {"zcu102.yml", "p1020rdb.yml", "qemuarm64.yml"} <= names, names


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
    assert "meta-lts-mixins" in repos, f"{path.name}: the Rust >= 1.85 mixin is missing"


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
    yocto = os.environ.get("ZYNQ_NET_YOCTO_DIR")
    repos = merged(path)["repos"]
    external = {name: r for name, r in repos.items() if r and r.get("url")}
    if not yocto:
        names = [f"{n}/{layer}" for n, r in external.items() for layer in (r.get("layers") or {".": None})]
        pytest.skip("ZYNQ_NET_YOCTO_DIR not set: external layer paths not checked "
                    f"({', '.join(names)})")
    missing = []
    for name, repo in external.items():
        base = pathlib.Path(yocto) / name
        if not base.is_dir():
            missing.append(f"{name}: no checkout at {base}")
            continue
        res = subprocess.run(["git", "-c", "safe.directory=*", "-C", str(base), "cat-file", "-e", repo["commit"] + "^{commit}"],
                             capture_output=True)
        if res.returncode != 0:
            missing.append(f"{name}: commit {repo['commit']} not in {base}")
            continue
        tree = subprocess.run(["git", "-c", "safe.directory=*", "-C", str(base), "ls-tree", "-r", "--name-only", repo["commit"]],
                              capture_output=True, text=True, check=True).stdout.split()
        for layer in repo.get("layers") or {".": None}:
            conf = "conf/layer.conf" if layer in (".", "") else f"{layer}/conf/layer.conf"
            if conf not in tree:
                missing.append(f"{name}: {conf} not in commit {repo['commit']}")
    optional = set(os.environ.get("ZYNQ_NET_YOCTO_OPTIONAL", "meta-lts-mixins").split())
    hard = [m for m in missing if m.split(":")[0] not in optional]
    for m in missing:
        print("external layer:", m)
    assert not hard, "\n".join(hard)
