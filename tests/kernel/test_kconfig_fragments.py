"""Generated kernel fragments survive olddefconfig on the real Kconfig.

For each reference board: `make ARCH=... DEFCONFIG` in Debian's
linux-source-6.12, merge every generated kernel/zynq-net-*.cfg with
scripts/kconfig/merge_config.sh -m (what kernel-yocto does), olddefconfig,
then every requested symbol that the tree defines must be in the final
.config with its value; symbols the tree does not define must be exactly the
ones declared vendor-only, and `zynq-net kconfig verify` must agree (and fail
on a deliberately broken .config). Case C6 (multiq + skbedit on
mpc85xx_smp_defconfig) and e500v2 MATH_EMULATION are tests of their own.
"""
import concurrent.futures
import re

import pytest

from conftest import BOARDS, FIXTURES, config_values, fragment_symbols, merged_config, run

CASES = {
    "zcu102": ("arm64", "defconfig"),
    "zc702": ("arm", "multi_v7_defconfig"),
    "p1020rdb": ("powerpc", "mpc85xx_smp_defconfig"),
    "mlx5-lab": ("x86", "x86_64_defconfig"),
    # Design fixture: an SFP cage on a mux channel of i2c1 with its lines on
    # the PS GPIO (the fragment follows the device tree: SFP, I2C_CADENCE,
    # I2C_MUX_PCA954x, GPIO_ZYNQ).
    "zcu102-sfp-mux": ("arm64", "defconfig"),
}
# Boards that are design fixtures (tests/kernel/fixtures), not reference boards.
FIXTURE_CASES = {"zcu102-sfp-mux"}


def board_path(board):
    return (FIXTURES if board in FIXTURE_CASES else BOARDS) / f"{board}.yml"

SUMMARY = re.compile(r"requested (\d+), as required (\d+), mismatches (\d+), vendor-only not in this tree (\d+)")


@pytest.fixture(scope="module")
def merged(kernel_tree, gen_any, tmp_path_factory):
    """merged(board) -> (generated dir, base values, final .config path).

    All boards are configured on first use, in parallel (make runs outside
    the GIL; each board has its own O= directory)."""
    done = {}

    def _one(board, out, work):
        arch, defconfig = CASES[board]
        frags = sorted((out / "kernel").glob("zynq-net-*.cfg"))
        assert frags, f"{board}: no kernel fragments generated"
        base, final = merged_config(kernel_tree, work, arch, defconfig, frags)
        return out, config_values(base), final

    def _m(board):
        if not done:
            jobs = {b: (gen_any(board_path(b)), tmp_path_factory.mktemp(f"k-{b}")) for b in CASES}
            with concurrent.futures.ThreadPoolExecutor(max_workers=len(jobs)) as pool:
                futs = {b: pool.submit(_one, b, *args) for b, args in jobs.items()}
                for b, f in futs.items():
                    done[b] = f.result()
        return done[board]

    return _m


def verify(zynq_net, board, config):
    return run([zynq_net, "kconfig", "verify", board_path(board), "--config", config], check=False)


@pytest.mark.parametrize("board", sorted(CASES))
def test_every_requested_symbol_survives(board, merged, kconfig_symbols, zynq_net):
    out, base, final = merged(board)
    have = config_values(final.read_text())
    syms = fragment_symbols(out / "kernel")
    dropped, vendor, survived = [], [], []
    for feature, sym, val, vendor_only in syms:
        if sym not in kconfig_symbols:
            # Not in this tree: must be declared vendor-only, never silently passed.
            assert vendor_only, f"{board}: CONFIG_{sym} ({feature}) is in no Kconfig of 6.12 and not declared vendor-only"
            vendor.append(sym)
            continue
        assert not vendor_only or sym not in kconfig_symbols, f"CONFIG_{sym} is declared vendor-only but 6.12 defines it"
        if have.get(sym) == val:
            survived.append(sym)
        else:
            dropped.append(f"CONFIG_{sym}={val} ({feature}): final .config has {have.get(sym, 'nothing')}")
    assert not dropped, f"{board} ({CASES[board]}): olddefconfig changed requested symbols:\n" + "\n".join(dropped)
    added = [s for s in survived if base.get(s) != have.get(s)]
    print(f"\n{board} {CASES[board][0]} {CASES[board][1]}: requested {len(syms)}, survived {len(survived)}, "
          f"vendor-only {len(vendor)} {vendor}; changed from the defconfig: {added}")

    res = verify(zynq_net, board, final)
    assert res.returncode == 0, f"kconfig verify disagrees:\n{res.stdout}{res.stderr}"
    m = SUMMARY.search(res.stdout)
    assert m, res.stdout
    assert tuple(map(int, m.groups())) == (len(syms), len(survived), 0, len(vendor)), res.stdout
    for sym in vendor:
        assert re.search(rf"^vendor-only\s+CONFIG_{sym}=", res.stdout, re.M), f"CONFIG_{sym} not reported as vendor-only:\n{res.stdout}"


@pytest.mark.parametrize("board,breakage", [
    ("zcu102", {"MACB": "m", "NET_SCH_MULTIQ": None, "RPS": "n"}),
    ("p1020rdb", {"GIANFAR": "m", "NET_SCHED": "n", "NF_FLOW_TABLE": None, "MATH_EMULATION": "n"}),
])
def test_verify_fails_on_broken_config(board, breakage, merged, zynq_net, tmp_path):
    _, _, final = merged(board)
    lines = final.read_text().splitlines()
    out = []
    for line in lines:
        m = re.match(r"^(?:# )?CONFIG_([A-Za-z0-9_]+)[= ]", line)
        if m and m.group(1) in breakage:
            new = breakage[m.group(1)]
            if new is None:
                continue
            line = f"# CONFIG_{m.group(1)} is not set" if new == "n" else f"CONFIG_{m.group(1)}={new}"
        out.append(line)
    broken = tmp_path / ".config"
    broken.write_text("\n".join(out) + "\n")
    res = verify(zynq_net, board, broken)
    assert res.returncode == 1, f"verify passed a broken .config:\n{res.stdout}"
    for sym, new in breakage.items():
        kind = {"m": "module", "n": "wrong value", None: "missing"}[new]
        assert re.search(rf"^{kind}\s+CONFIG_{sym}=", res.stdout, re.M), f"CONFIG_{sym} not reported as {kind}:\n{res.stdout}"
    m = SUMMARY.search(res.stdout)
    assert m and int(m.group(3)) == len(breakage), res.stdout


def test_verify_rejects_non_config(zynq_net, tmp_path):
    junk = tmp_path / "junk"
    junk.write_text("hello\n")
    assert verify(zynq_net, "zcu102", junk).returncode == 2


def test_c6_multiq_skbedit_on_mpc85xx_smp_defconfig(merged, kernel_tree, tmp_path):
    """C6: multiq + skbedit for p1020rdb. The defconfig has NET_SCHED off, so
    a fragment with only the leaf symbols is silently dropped; the generated
    fragment carries NET_SCHED/NET_CLS/NET_CLS_ACT and survives."""
    out, base, final = merged("p1020rdb")
    assert base.get("NET_SCHED") == "n", "mpc85xx_smp_defconfig has NET_SCHED on now: C6 proves nothing"
    cfg = (out / "kernel" / "zynq-net-multiq.cfg").read_text()
    want = dict(re.findall(r"^CONFIG_([A-Z0-9_]+)=(\S+)$", cfg, re.M))
    assert {"NET_SCHED", "NET_CLS_ACT", "NET_SCH_MULTIQ", "NET_ACT_SKBEDIT", "NET_CLS_U32"} <= set(want)
    have = config_values(final.read_text())
    assert {s: have.get(s) for s in want} == want

    # The naive fragment (leaf symbols only) is dropped: the failure mode is real.
    naive = tmp_path / "naive.cfg"
    naive.write_text("CONFIG_NET_SCH_MULTIQ=y\nCONFIG_NET_ACT_SKBEDIT=y\n")
    _, naive_final = merged_config(kernel_tree, tmp_path / "naive", "powerpc", "mpc85xx_smp_defconfig", [naive])
    naive_have = config_values(naive_final.read_text())
    assert naive_have.get("NET_SCH_MULTIQ") is None and naive_have.get("NET_ACT_SKBEDIT") is None


def test_e500v2_gets_math_emulation(merged):
    out, _, final = merged("p1020rdb")
    cfg = (out / "kernel" / "zynq-net-e500v2.cfg").read_text()
    assert re.search(r"^CONFIG_MATH_EMULATION=y$", cfg, re.M)
    have = config_values(final.read_text())
    assert have.get("MATH_EMULATION") == "y" and have.get("MATH_EMULATION_FULL") == "y"


def test_sfp_cage_controllers_survive_where_the_defconfig_lacks_them(merged):
    """The SFP cage's own drivers: arm64 defconfig has neither SFP nor
    GPIO_ZYNQ (and I2C_CADENCE only as a module), so a cage on the ZCU102's
    U135 mux channel with its lines on the PS GPIO would never probe
    (sfp_probe defers until its I2C adapter and GPIOs exist); the fragment
    requests them and olddefconfig keeps them."""
    out, base, final = merged("zcu102-sfp-mux")
    want = {"SFP": "y", "I2C_CADENCE": "y", "I2C_MUX": "y", "I2C_MUX_PCA954x": "y", "GPIOLIB": "y", "GPIO_ZYNQ": "y"}
    assert base.get("SFP", "n") == "n" and base.get("GPIO_ZYNQ", "n") == "n" and base.get("I2C_CADENCE") == "m", \
        "arm64 defconfig has the cage's drivers now: this case proves nothing"
    cfg = (out / "kernel" / "zynq-net-drivers.cfg").read_text()
    asked = dict(re.findall(r"^CONFIG_([A-Za-z0-9_]+)=(\S+)$", cfg, re.M))
    assert {k: asked.get(k) for k in want} == want, cfg
    have = config_values(final.read_text())
    assert {k: have.get(k) for k in want} == want


def test_scc_lists_every_fragment(gen_any):
    for board in CASES:
        kdir = gen_any(board_path(board)) / "kernel"
        scc = (kdir / "zynq-net.scc").read_text()
        assert re.search(r'^define KFEATURE_DESCRIPTION ".+"$', scc, re.M)
        listed = re.findall(r"^kconf (?:hardware|non-hardware) (\S+)$", scc, re.M)
        assert sorted(listed) == sorted(p.name for p in kdir.glob("zynq-net-*.cfg")), scc
