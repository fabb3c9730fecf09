"""The static flowtable kernel feature of meta-zynq-net
(files/zynq-net-kmeta/zynq-net-flowtable.cfg) survives olddefconfig on the
real Kconfig of both kernel families: every symbol it sets is still =y in
the final .config, merged exactly as bitbake merges fragments
(scripts/kconfig/merge_config.sh, then olddefconfig).

Kernel tree: Debian's linux-source-6.12 (scripts/kernel-tree).
"""
import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
FRAG = ROOT / "meta-zynq-net" / "files" / "zynq-net-kmeta" / "zynq-net-fastpath-flowtable.cfg"
SCC = FRAG.with_suffix(".scc")


def kernel_tree() -> pathlib.Path:
    res = subprocess.run([str(ROOT / "scripts" / "kernel-tree")], capture_output=True, text=True)
    if res.returncode != 0:
        pytest.fail("scripts/kernel-tree failed (run scripts/install-deps): " + res.stderr)
    return pathlib.Path(res.stdout.strip())


def symbols():
    return re.findall(r"^(CONFIG_[A-Z0-9_]+)=y$", FRAG.read_text(), re.M)


def set_symbols(config: pathlib.Path):
    return set(re.findall(r"^(CONFIG_[A-Z0-9_]+)=y$", config.read_text(), re.M))


def test_scc_names_the_fragment():
    assert re.search(r"^kconf non-hardware zynq-net-fastpath-flowtable\.cfg$", SCC.read_text(), re.M)
    assert {"CONFIG_NF_FLOW_TABLE", "CONFIG_NFT_FLOW_OFFLOAD"} <= set(symbols())


@pytest.mark.parametrize("arch,defconfig", [("arm64", "defconfig"),
                                            ("powerpc", "mpc85xx_smp_defconfig")])
def test_flowtable_survives_olddefconfig(tmp_path, arch, defconfig):
    tree = kernel_tree()
    out = tmp_path / "o"
    out.mkdir()

    def make(*args):
        subprocess.run(["make", "-s", "-C", str(tree), f"O={out}", f"ARCH={arch}", *args],
                       check=True, capture_output=True)

    make(defconfig)
    base = set_symbols(out / ".config")
    subprocess.run([str(tree / "scripts" / "kconfig" / "merge_config.sh"), "-m", "-O", str(out),
                    str(out / ".config"), str(FRAG)], cwd=out, check=True, capture_output=True)
    make("olddefconfig")
    final = set_symbols(out / ".config")
    dropped = [s for s in symbols() if s not in final]
    assert not dropped, f"{arch} {defconfig}: dropped by olddefconfig: {dropped}"
    added = [s for s in symbols() if s not in base]
    print(f"{arch} {defconfig}: fragment adds {added}")
    assert "CONFIG_NFT_FLOW_OFFLOAD" in added, "defconfig already had the flowtable: test proves nothing"


def test_static_fragment_is_the_generators(zynq_net, tmp_path):
    """The layer's static fragment (ZYNQ_NET_FASTPATH = "flowtable") and the
    one `gen` writes for a board's fastpath.flowtable set the same symbols
    (they had drifted apart: the static one lacked NETFILTER_INGRESS's
    NET_INGRESS, NF_TABLES_IPV4 and IPV6)."""
    out = tmp_path / "g"
    subprocess.run([str(zynq_net), "gen", str(ROOT / "meta-zynq-net" / "boards" / "p1020rdb.yml"), "-o", str(out)],
                   check=True, capture_output=True)
    generated = set(re.findall(r"^(CONFIG_[A-Z0-9_]+)=y$", (out / "kernel" / "zynq-net-flowtable.cfg").read_text(),
                               re.M))
    assert generated, "gen wrote no flowtable fragment for p1020rdb"
    assert set(symbols()) == generated
