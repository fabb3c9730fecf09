"""tests/yocto/bbparse.py (the offline bitbake runner) reads the kas files
the same way kas merges them: machine, target, repos and local.conf lines,
and maps repositories to checkout folders (no bitbake needed here)."""
import importlib.util
import pathlib

import pytest

HERE = pathlib.Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("bbparse", HERE / "bbparse.py")
bbparse = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bbparse)
ROOT = bbparse.ROOT


@pytest.mark.parametrize("name,machine,extra", [
    ("zcu102", "zcu102-zynqmp", {"meta-arm", "meta-xilinx", "meta-xilinx-tools"}),
    ("zc702", "zc702-zynq7", {"meta-arm", "meta-xilinx", "meta-xilinx-tools"}),
    ("p1020rdb", "p1020rdb", {"meta-freescale"}),
    ("qemuarm64", "qemuarm64", set()),
])
def test_load_kas_merges_includes(name, machine, extra):
    kas = bbparse.load_kas(ROOT / "kas" / f"{name}.yml")
    assert kas["machine"] == machine
    assert kas["target"] == "zynq-net-image"
    assert kas["distro"] == "poky"
    assert {"zynq-net", "poky", "meta-openembedded"} | extra == set(kas["repos"])
    assert any("CONF_VERSION" in text for text in kas["local_conf_header"].values())


def test_layer_paths_map_checkouts_and_optional_repos(tmp_path):
    kas = bbparse.load_kas(ROOT / "kas" / "p1020rdb.yml")
    for repo in ("poky", "meta-openembedded"):
        (tmp_path / repo).mkdir()
    layers, missing = bbparse.layer_paths(kas, tmp_path, {"meta-freescale"})
    assert missing == ["meta-freescale"]
    (tmp_path / "meta-freescale").mkdir()
    layers, missing = bbparse.layer_paths(kas, tmp_path, set())
    assert missing == []
    assert ROOT in layers and ROOT / "meta-zynq-net" in layers
    assert tmp_path / "poky" / "meta" in layers
    assert tmp_path / "meta-openembedded" / "meta-networking" in layers
    assert tmp_path / "meta-freescale" in layers
    (tmp_path / "meta-freescale").rmdir()
    with pytest.raises(SystemExit):
        bbparse.layer_paths(kas, tmp_path, set())
