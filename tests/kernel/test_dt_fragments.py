"""Generated device-tree fragments against the real board DTS and bindings.

For each case: the board DTS of Debian's linux-source-6.12 (plus, for a
board that patches an XSA/SDT pl.dtsi by label, tests/kernel/fixtures/
pl.dtsi or pl-xxv.dtsi) compiled with cpp + dtc -@ (base), the same with dt/zynq-net.dtsi
#included after it (include), and dt/zynq-net.dtso compiled with dtc -@
and applied with fdtoverlay to the base (overlay). Then:
- dtc gives no warning for include that it does not give for base;
- dt-validate (PyPI dtschema, the kernel's bindings + the typing supplement
  in tests/kernel/schemas/) reports no error for include or overlay that it
  does not report for base;
- `zynq-net dtb verify` passes on include and overlay, fails on base.
Cases C5 (styles mixed) and C10 (phy-mode "xgmii") are checked on the model.
"""
import re

import pytest

from conftest import (BOARDS, FIXTURES, build_dtb, dt_validate, dtc_warnings, run)

# name: (board file, arch, board DTS, extra includes before the fragment)
CASES = {
    "zcu102": (BOARDS / "zcu102.yml", "arm64", "xilinx/zynqmp-zcu102-rev1.0.dts", []),
    "p1020rdb": (BOARDS / "p1020rdb.yml", "powerpc", "fsl/p1020rdb.dts", []),
    "zcu102-pl": (FIXTURES / "zcu102-pl.yml", "arm64", "xilinx/zynqmp-zcu102-rev1.0.dts", [FIXTURES / "pl.dtsi"]),
    "zcu102-axidma": (FIXTURES / "zcu102-axidma.yml", "arm64", "xilinx/zynqmp-zcu102-rev1.0.dts", []),
    "zcu102-sdt": (FIXTURES / "zcu102-sdt.yml", "arm64", "xilinx/zynqmp-zcu102-rev1.0.dts", [FIXTURES / "pl-xxv.dtsi"]),
}


@pytest.fixture(scope="module")
def built(kernel_tree, gen_any, tmp_path_factory):
    """{case: {"base"|"include"|"overlay": dtb path, "warn_*": dtc warnings, "out": gen dir}}."""
    res = {}
    for name, (board, arch, dts, extra) in CASES.items():
        d = tmp_path_factory.mktemp(f"dt-{name}")
        out = gen_any(board)
        r = {"out": out, "board": board}
        r["base"] = d / "base.dtb"
        r["warn_base"] = dtc_warnings(build_dtb(kernel_tree, arch, dts, r["base"], extra))
        r["include"] = d / "include.dtb"
        r["warn_include"] = dtc_warnings(build_dtb(kernel_tree, arch, dts, r["include"], [*extra, out / "dt" / "zynq-net.dtsi"]))
        dtbo = d / "zynq-net.dtbo"
        run(["dtc", "-@", "-I", "dts", "-O", "dtb", "-o", dtbo, out / "dt" / "zynq-net.dtso"])
        r["overlay"] = d / "overlay.dtb"
        run(["fdtoverlay", "-i", r["base"], "-o", r["overlay"], dtbo])
        res[name] = r
    return res


@pytest.fixture(scope="module")
def validated(built, dt_schema):
    dtbs = [r[k] for r in built.values() for k in ("base", "include", "overlay")]
    return dt_validate(dt_schema, dtbs)


@pytest.mark.parametrize("case", sorted(CASES))
def test_dtsi_compiles_without_new_dtc_warnings(case, built):
    r = built[case]
    new = r["warn_include"] - r["warn_base"]
    assert not new, f"{case}: dtc warnings the fragment adds:\n" + "\n".join(new)


@pytest.mark.parametrize("case", sorted(CASES))
def test_no_new_dt_validate_errors(case, built, validated):
    r = built[case]
    before = validated[str(r["base"])]
    for kind in ("include", "overlay"):
        after = validated[str(r[kind])]
        new = after - before
        print(f"\n{case} {kind}: dt-validate errors before {sum(before.values())}, after {sum(after.values())}, new {sum(new.values())}")
        assert not new, f"{case} ({kind}): new dt-validate errors:\n" + "\n".join(new)


@pytest.mark.parametrize("case", sorted(CASES))
def test_dtb_verify(case, built, zynq_net):
    r = built[case]
    for kind in ("include", "overlay"):
        res = run([zynq_net, "dtb", "verify", r["board"], r[kind]], check=False)
        assert res.returncode == 0, f"{case} {kind}:\n{res.stdout}{res.stderr}"
        assert re.search(r": [1-9]\d* node\(s\) checked, 0 problem\(s\)", res.stdout), res.stdout
    res = run([zynq_net, "dtb", "verify", r["board"], r["base"]], check=False)
    assert res.returncode == 1, f"{case}: dtb verify passed the unmodified DTB:\n{res.stdout}"
    assert re.search(r"^(missing|different)", res.stdout, re.M), res.stdout


def test_dtb_verify_catches_a_changed_value(built, zynq_net, tmp_path):
    """A DTB whose patched property differs (not only lacks it) fails."""
    r = built["p1020rdb"]
    dts = tmp_path / "x.dts"
    run(["dtc", "-I", "dtb", "-O", "dts", "-o", dts, r["include"]])
    text = dts.read_text()
    changed = text.replace("local-mac-address = [00 04 9f 00 10 20]", "local-mac-address = [00 04 9f 00 10 99]")
    assert changed != text
    dts.write_text(changed)
    dtb = tmp_path / "x.dtb"
    run(["dtc", "-I", "dts", "-O", "dtb", "-o", dtb, dts])
    res = run([zynq_net, "dtb", "verify", r["board"], dtb], check=False)
    assert res.returncode == 1 and "different" in res.stdout and "local-mac-address" in res.stdout, res.stdout


def test_zcu102_linux_xlnx_style(built):
    """XXV + MCDMA in the linux-xlnx style: axistream-connected, /bits/ 16
    num-queues, hex-string channel ids, /bits/ 8 addrwidth; no dmaengine."""
    dtsi = (built["zcu102"]["out"] / "dt" / "zynq-net.dtsi").read_text()
    assert re.search(r"axistream-connected = <&axi_mcdma_0>;", dtsi)
    assert "xlnx,num-queues = /bits/ 16 <0x2>;" in dtsi
    assert 'xlnx,channel-ids = "0x1", "0x2";' in dtsi
    assert "xlnx,addrwidth = /bits/ 8 <0x40>;" in dtsi
    assert "dmas =" not in dtsi and "dma-names" not in dtsi
    assert "xgmii" not in dtsi


def test_mainline_style(built):
    dtsi = (built["zcu102-axidma"]["out"] / "dt" / "zynq-net.dtsi").read_text()
    assert 'dmas = <&axi_dma_1 0>, <&axi_dma_1 1>;' in dtsi and 'dma-names = "tx_chan0", "rx_chan0";' in dtsi
    assert "axistream-connected" not in dtsi and "/bits/" not in dtsi


def _variant(tmp_path, text, name):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_c5_mixed_styles_rejected(zynq_net, tmp_path):
    text = (BOARDS / "zcu102.yml").read_text()
    mixed = text.replace("axistream_connected: true", "axistream_connected: true\n        dmas: true", 1)
    assert mixed != text
    res = run([zynq_net, "check", _variant(tmp_path, mixed, "mixed.yml")], check=False)
    assert res.returncode == 1 and "C5" in res.stderr, res.stderr
    # dmaengine style on linux-xlnx alone is refused too: one style per flavour.
    xlnx_dmas = text.replace("axistream_connected: true", "dmas: true", 1)
    res = run([zynq_net, "check", _variant(tmp_path, xlnx_dmas, "dmas.yml")], check=False)
    assert res.returncode == 1 and "axistream" in res.stderr, res.stderr


def test_c10_xgmii_rejected_with_hint(zynq_net, tmp_path):
    text = (BOARDS / "zcu102.yml").read_text()
    xgmii = re.sub(r"(\n( +)label: xxv_ethernet_0\n)", r"\1\2phy_mode: xgmii\n", text, count=1)
    assert xgmii != text
    res = run([zynq_net, "check", _variant(tmp_path, xgmii, "xgmii.yml")], check=False)
    assert res.returncode == 1 and "xgmii" in res.stderr and "leave `phy_mode` out" in res.stderr, res.stderr
    # Any other phy-mode on the XXV port is outside linux-xlnx's binding: a warning.
    other = xgmii.replace("phy_mode: xgmii", "phy_mode: 10gbase-r")
    res = run([zynq_net, "check", _variant(tmp_path, other, "10g.yml")], check=False)
    assert res.returncode == 0 and "warning:" in res.stderr and "10gbase-r" in res.stderr, res.stderr


def test_fragments_are_deterministic(zynq_net, tmp_path):
    for board in ("zcu102", "p1020rdb"):
        outs = []
        for k in range(2):
            o = tmp_path / f"{board}-{k}"
            run([zynq_net, "gen", BOARDS / f"{board}.yml", "-o", o])
            outs.append({p.name: p.read_bytes() for d in ("dt", "kernel") for p in (o / d).iterdir()})
        assert outs[0] == outs[1]


def test_fragments_are_sliced(zynq_net, tmp_path):
    """Tuning-only edits (rings, sysctl, IRQ/XPS CPUs, coalescing) leave the
    kernel and DT fragments byte-identical (bitbake then keeps the kernel)."""
    edits = {
        "zcu102": [("rings: { rx: 1024, tx: 1024 }", "rings: { rx: 512, tx: 512 }"),
                   ("net.core.rmem_max: 4194304", "net.core.rmem_max: 8388608"),
                   ("- { irq: eth0, cpus: 1 }", "- { irq: eth0, cpus: 2 }")],
        "p1020rdb": [("coalesce: { rx-frames: 12, rx-usecs: 32 }", "coalesce: { rx-frames: 8, rx-usecs: 16 }"),
                     ("- { queue: 0, cpus: 1 }", "- { queue: 0, cpus: 0 }")],
    }
    for board, subs in edits.items():
        text = (BOARDS / f"{board}.yml").read_text()
        tuned = text
        for old, new in subs:
            assert old in tuned, f"{board}: {old!r} not in the reference board any more"
            tuned = tuned.replace(old, new, 1)
        outs = []
        for k, t in enumerate((text, tuned)):
            src = tmp_path / f"{board}-{k}" / f"{board}.yml"
            src.parent.mkdir()
            src.write_text(t)
            run([zynq_net, "gen", src, "-o", src.parent / "out"])
            outs.append(src.parent / "out")
        assert (outs[0] / "tuning" / "zynq-net.plan").read_bytes() != (outs[1] / "tuning" / "zynq-net.plan").read_bytes()
        for d in ("dt", "kernel"):
            for p in sorted((outs[0] / d).iterdir()):
                assert p.read_bytes() == (outs[1] / d / p.name).read_bytes(), f"{board}: {d}/{p.name} changed with tuning only"
