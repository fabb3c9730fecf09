"""Layer hygiene that the Yocto Project Compatible checks (yocto-check-layer)
and the project's style expect, checked without bitbake.
"""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
META = ROOT / "meta-zynq-net"
LAYERS = [ROOT, META]
RECIPE_SUFFIXES = (".bb", ".bbappend", ".bbclass", ".inc")


def layer_files(layer, suffixes):
    out = []
    for path in layer.rglob("*"):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in ("tools", ".git", "tests", "kas", "docs", "scripts"):
            continue
        if layer == ROOT and rel.parts[0] == "meta-zynq-net":
            continue
        if path.is_file() and path.name.endswith(suffixes):
            out.append(path)
    return out


def layer_conf(layer):
    return (layer / "conf" / "layer.conf").read_text()


def test_root_layer_pattern_covers_only_recipes_rust():
    conf = layer_conf(ROOT)
    pattern = re.search(r'^BBFILE_PATTERN_zynq-net-tools\s*=\s*"([^"]+)"', conf, re.M).group(1)
    regex = re.compile(pattern.replace("${LAYERDIR}", re.escape(str(ROOT))))
    tools = list((ROOT / "recipes-rust").rglob("*.bb"))
    assert tools and all(regex.match(str(p)) for p in tools)
    meta = list(META.rglob("*.bb")) + list(META.rglob("*.bbappend"))
    assert meta
    claimed = [str(p) for p in meta if regex.match(str(p))]
    assert not claimed, f"root layer pattern also matches: {claimed}"
    bbfiles = re.search(r'^BBFILES \+= "([^"]+)"', conf, re.M | re.S).group(1)
    assert all("${LAYERDIR}/recipes-rust/" in g for g in bbfiles.replace("\\", " ").split())


@pytest.mark.parametrize("layer", LAYERS, ids=["root", "meta-zynq-net"])
def test_layer_conf_basics(layer):
    conf = layer_conf(layer)
    coll = re.search(r'^BBFILE_COLLECTIONS \+= "([^"]+)"', conf, re.M).group(1)
    for var in ("BBFILE_PATTERN", "BBFILE_PRIORITY", "LAYERSERIES_COMPAT", "LAYERDEPENDS", "LAYERVERSION"):
        assert re.search(rf"^{var}_{re.escape(coll)}\s*=", conf, re.M), f"{layer}: {var}_{coll} missing"
    compat = re.search(rf'^LAYERSERIES_COMPAT_{re.escape(coll)} = "([^"]+)"', conf, re.M).group(1)
    assert compat.split() == ["scarthgap"], compat


def test_dynamic_layers_match_bbfiles_dynamic():
    conf = layer_conf(META)
    named = set(re.findall(r"^\s*([a-z0-9-]+):\$\{LAYERDIR\}/dynamic-layers/([a-z0-9-]+)/", conf, re.M))
    assert named and all(a == b for a, b in named), named
    dirs = {p.name for p in (META / "dynamic-layers").iterdir() if p.is_dir()}
    assert dirs == {a for a, _ in named}, (dirs, named)


@pytest.mark.parametrize("layer", LAYERS, ids=["root", "meta-zynq-net"])
def test_no_machine_or_distro_conf(layer):
    # A software layer: machine and distro configuration belong elsewhere.
    assert not (layer / "conf" / "machine").exists()
    assert not (layer / "conf" / "distro").exists()


def test_no_network_tasks_and_no_autorev():
    for path in layer_files(ROOT, RECIPE_SUFFIXES) + layer_files(META, RECIPE_SUFFIXES):
        text = path.read_text()
        assert "[network]" not in text, f"{path}: [network] task flag"
        assert "AUTOREV" not in text.replace("or AUTOREV", ""), f"{path}: AUTOREV"


def test_patches_have_upstream_status_and_signoff():
    patches = [p for layer in LAYERS for p in layer_files(layer, (".patch", ".diff"))]
    for p in patches:
        text = p.read_text(errors="replace")
        assert re.search(r"^Upstream-Status: (Pending|Submitted|Accepted|Backport|Denied|Inactive-Upstream|Inappropriate)",
                         text, re.M), f"{p}: no valid Upstream-Status"
        assert re.search(r"^Signed-off-by: .+ <.+@.+>", text, re.M), f"{p}: no Signed-off-by"
    print(f"{len(patches)} patches checked")


def test_readme_sections():
    text = (META / "README.md").read_text()
    for section in ("Dependencies", "Maintainers", "Patches", "Security"):
        assert re.search(rf"^#+ .*{section}", text, re.M | re.I), f"README.md: no '{section}' section"
    deps = text.split("Dependencies", 1)[1]
    for uri in ("git.yoctoproject.org/poky", "git.openembedded.org/meta-openembedded"):
        assert uri in deps, f"README.md: dependency {uri} missing"
    assert re.search(r"branch:\s*scarthgap", deps), "README.md: dependency branches missing"
    assert re.search(r"<[^@>\s]+@[^>\s]+>", text), "README.md: no maintainer e-mail address"
    assert "bbparse.py" in text, "README.md: how to run the local bitbake -p check"


def test_security_md():
    text = (META / "SECURITY.md").read_text()
    assert re.search(r"[^@\s]+@[^@\s]+\.[a-z]+", text), "SECURITY.md: no contact address"


def test_public_variables_documented():
    # Every ZYNQ_NET_* variable a user may set has a [doc] flag.
    docs, public = set(), set()
    for path in layer_files(META, RECIPE_SUFFIXES):
        text = path.read_text()
        docs |= set(re.findall(r"^(ZYNQ_NET_[A-Z0-9_]+)\[doc\]", text, re.M))
        public |= set(re.findall(r"^(ZYNQ_NET_[A-Z0-9_]+) \?\??=", text, re.M))
    undocumented = sorted(public - docs)
    assert not undocumented, f"ZYNQ_NET_* defaults without [doc]: {undocumented}"


def test_oeqa_case_importable_names():
    text = (META / "lib" / "oeqa" / "runtime" / "cases" / "zynq_net.py").read_text()
    assert "OERuntimeTestCase" in text and "OETestDepends" in text and "OEHasPackage" in text
    compile(text, "zynq_net.py", "exec")


def test_run_ptest_prints_pass_fail():
    text = (META / "recipes-connectivity" / "zynq-net" / "files" / "run-ptest").read_text()
    assert "PASS: " in text and "FAIL: " in text
