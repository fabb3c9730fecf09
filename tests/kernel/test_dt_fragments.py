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
The rules dma-styles-mixed, dmas-on-linux-xlnx and phy-mode-xgmii are checked on the model.

The design fixtures (fixtures/pl-*.dtsi + a board file each) are written by
us in the shape of real generated output; each names the public design it
mirrors. dt-validate findings the fragment adds are allowed only on
properties the mainline bindings do not document but the board's kernel
flavour reads: DT_EXCEPTIONS lists each with the driver line that reads it.
"""
import collections
import re

import pytest

from conftest import (BOARDS, FIXTURES, build_dtb, dt_validate, dtc_warnings, run)

ZCU102 = "xilinx/zynqmp-zcu102-rev1.0.dts"
# name: (board file, arch, board DTS, extra includes before the fragment)
CASES = {
    "zcu102": (BOARDS / "zcu102.yml", "arm64", ZCU102, []),
    "p1020rdb": (BOARDS / "p1020rdb.yml", "powerpc", "fsl/p1020rdb-pd.dts", []),
    "zc702": (BOARDS / "zc702.yml", "arm", "xilinx/zynq-zc702.dts", []),
    "zcu102-pl": (FIXTURES / "zcu102-pl.yml", "arm64", ZCU102, [FIXTURES / "pl.dtsi"]),
    "zcu102-axidma": (FIXTURES / "zcu102-axidma.yml", "arm64", ZCU102, []),
    # Design fixtures: one per kind of real design.
    "zcu102-sdt": (FIXTURES / "zcu102-sdt.yml", "arm64", ZCU102, [FIXTURES / "pl-xxv.dtsi"]),
    "zcu102-1g-sfp": (FIXTURES / "zcu102-1g-sfp.yml", "arm64", ZCU102, [FIXTURES / "pl-1g-sfp.dtsi"]),
    "zcu102-4x-rgmii": (FIXTURES / "zcu102-4x-rgmii.yml", "arm64", ZCU102, [FIXTURES / "pl-4x-rgmii.dtsi"]),
    "zcu102-xxv-x4": (FIXTURES / "zcu102-xxv-x4.yml", "arm64", ZCU102, [FIXTURES / "pl-xxv-x4.dtsi"]),
    "zcu102-xxv-mcdma16": (FIXTURES / "zcu102-xxv-mcdma16.yml", "arm64", ZCU102, []),
    "zcu102-axi-1g-xlnx": (FIXTURES / "zcu102-axi-1g-xlnx.yml", "arm64", ZCU102, []),
    "zcu102-gem-emio": (FIXTURES / "zcu102-gem-emio.yml", "arm64", ZCU102, []),
    "p1020rdb-pd": (FIXTURES / "p1020rdb-pd.yml", "powerpc", "fsl/p1020rdb-pd.dts", []),
    # The P2020 class: eTSEC1 ("gianfar"), one queue each, on the P2020RDB-PC DTS.
    "p2020rdb-pc": (FIXTURES / "p2020rdb-pc.yml", "powerpc", "fsl/p2020rdb-pc_32b.dts", []),
    # A DP83867 written by the board (the KV260 carrier's GEM3 PHY on the SOM DTS).
    "kv260-dp83867": (FIXTURES / "kv260-dp83867.yml", "arm64", "xilinx/zynqmp-smk-k26-revA.dts", []),
    "zcu102-gem-gmii2rgmii": (FIXTURES / "zcu102-gem-gmii2rgmii.yml", "arm64", ZCU102, []),
    # An SFP cage on an unlabelled mux channel (by path), 2 W, on the 1G SFP design.
    "zcu102-sfp-mux": (FIXTURES / "zcu102-sfp-mux.yml", "arm64", ZCU102, [FIXTURES / "pl-1g-sfp.dtsi"]),
    # An XXV + MCDMA full node with its 156.25 MHz GT clock declared as a fixed clock.
    "zcu102-xxv-fixed-clock": (FIXTURES / "zcu102-xxv-fixed-clock.yml", "arm64", ZCU102, []),
}

# Overlays that cannot express a design: `dtb verify` must fail on them
# with this reason. An overlay cannot delete a base property, and
# xlnx,phy-type has no value meaning rgmii-rxid (xilinx_axienet.h
# XAE_PHY_TYPE_*), so the generated RGMII 2.0 type (rgmii-id) stays and
# axienet_probe ignores phy-mode: only the .dtsi is right there.
OVERLAY_FAILS = {"zcu102-4x-rgmii": r"xlnx,phy-type = <3> \(rgmii-id\) overrides phy-mode"}

# Properties the mainline 6.12 bindings do not allow on a node we change,
# read by the board's kernel flavour: {property: the driver line that reads it}.
DT_EXCEPTIONS = {
    "max-speed": "linux-xlnx xilinx_axienet_main.c axienet_probe: of_property_read_u32(np, \"max-speed\") (\"couldn't find MAC Rate\")",
    "managed": "axienet_probe -> phylink_create -> phylink_parse_mode (drivers/net/phy/phylink.c)",
    "sfp": "axienet_probe -> phylink_create -> phylink_register_sfp (drivers/net/phy/phylink.c)",
    "local-mac-address": "axienet_probe: of_get_mac_address (xilinx_axienet_main.c, mainline and linux-xlnx)",
    "xlnx,phy-type": "linux-xlnx drivers/net/phy/xilinx_phy.c xilinxphy_of_init (on a PCS/PMA PHY node)",
}
# phy-mode values outside xlnx,axi-ethernet.yaml's enum that axienet_probe
# accepts (it adds the declared mode to phylink's supported interfaces).
PHY_MODE_EXCEPTIONS = {"rgmii-id", "rgmii-rxid", "rgmii-txid", "2500base-x"}


# dtc's warnings on a generated overlay compiled alone (`dtc -@`, as the
# .dtso header says), for an overlay that adds the PL bus under the root
# (full-node mode). dtc checks a fragment's nodes against their parent in
# the overlay, `__overlay__`, which has no #address-cells/#size-cells (the
# target's are unknown until fdtoverlay): the bus's `ranges` is then read
# against the defaults 2/1 (scripts/dtc/checks.c check_ranges_format,
# check_avoid_default_addr_size; the last two are that check's failed
# prerequisite). Restating the root's cells in the overlay would silence
# them, but fdtoverlay would then write them over the base's root: on a base
# whose root differs, every node under it would be misread. The .dtsi,
# compiled with the base, adds none (test_dtsi_compiles_without_new_dtc_warnings).
OVERLAY_BUS_WARNINGS = collections.Counter({
    'ranges_format: /fragment@*/__overlay__/zynq-net-bus:ranges: empty "ranges" property but its #size-cells (2) differs from /fragment@*/__overlay__ (1)': 1,
    "avoid_default_addr_size: /fragment@*/__overlay__/zynq-net-bus: Relying on default #address-cells value": 1,
    "avoid_default_addr_size: /fragment@*/__overlay__/zynq-net-bus: Relying on default #size-cells value": 1,
    "avoid_unnecessary_addr_size: Failed prerequisite 'avoid_default_addr_size'": 1,
    "unique_unit_address: Failed prerequisite 'avoid_default_addr_size'": 1,
})
# Boards and cases whose overlay adds the PL bus (a `dt.node` full node);
# every other overlay compiles without a warning.
PL_BUS_OVERLAYS = {"zcu102", "zcu102-axidma", "zcu102-xxv-mcdma16", "zcu102-axi-1g-xlnx", "zcu102-xxv-fixed-clock"}


def overlay_warnings(stderr: str):
    """dtc warnings of an overlay, fragment numbers folded (fragment@*)."""
    return dtc_warnings(re.sub(r"/fragment@\d+/", "/fragment@*/", stderr).splitlines())


def expected_overlay_warnings(name: str):
    return OVERLAY_BUS_WARNINGS if name in PL_BUS_OVERLAYS else collections.Counter()


def per_property(records):
    """Splits a record listing several unexpected properties into one
    record per property, so a fragment that adds one more property to a
    node the base already has findings on shows exactly what it added."""
    out = collections.Counter()
    for rec, n in records.items():
        m = re.match(r"^(.*?): ((?:'[^']+'(?:, )?)+) (?:do|does) not match any of the regexes(.*)$", rec)
        m2 = re.search(r"^(.*?)\((.+?) (?:was|were) unexpected\)(.*)$", rec)
        if m:
            for prop in re.findall(r"'([^']+)'", m.group(2)):
                out[f"{m.group(1)}: ('{prop}' was unexpected){m.group(3)}"] += n
        elif m2:
            for prop in re.findall(r"'([^']+)'", m2.group(2)):
                out[f"{m2.group(1)}('{prop}' was unexpected){m2.group(3)}"] += n
        else:
            out[rec] += n
    return out


def excused(record: str) -> bool:
    """A dt-validate record that only names DT_EXCEPTIONS properties."""
    m = re.search(r"\((.+?) (?:was|were) unexpected\)", record)
    if m:
        names = set(re.findall(r"'([^']+)'", m.group(1)))
        return bool(names) and names <= set(DT_EXCEPTIONS)
    m = re.search(r"phy-mode:0?:? '([^']+)' is not one of", record)
    return bool(m) and m.group(1) in PHY_MODE_EXCEPTIONS


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
        r["warn_overlay"] = overlay_warnings(run(["dtc", "-@", "-I", "dts", "-O", "dtb", "-o", dtbo, out / "dt" / "zynq-net.dtso"]).stderr)
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
def test_overlay_dtc_warnings_are_the_listed_ones(case, built):
    """The overlay compiled alone gives exactly the warnings listed above:
    one more (or one fewer: the list is then stale) fails."""
    got = built[case]["warn_overlay"]
    want = expected_overlay_warnings(case)
    assert got == want, f"{case}: dtc warnings on zynq-net.dtso:\n  new: {dict(got - want)}\n  gone: {dict(want - got)}"


@pytest.mark.parametrize("case", sorted(CASES))
def test_no_new_dt_validate_errors(case, built, validated):
    r = built[case]
    before = per_property(validated[str(r["base"])])
    for kind in ("include", "overlay"):
        after = per_property(validated[str(r[kind])])
        new = after - before
        allowed = {k for k in new if excused(k)}
        print(f"\n{case} {kind}: dt-validate errors before {sum(before.values())}, after {sum(after.values())}, new {sum(new.values())} ({len(allowed)} listed exceptions)")
        rest = [k for k in new if k not in allowed]
        assert not rest, f"{case} ({kind}): new dt-validate errors:\n" + "\n".join(rest)


@pytest.mark.parametrize("case", sorted(CASES))
def test_dtb_verify(case, built, zynq_net):
    r = built[case]
    for kind in ("include", "overlay"):
        res = run([zynq_net, "dtb", "verify", r["board"], r[kind]], check=False)
        if kind == "overlay" and case in OVERLAY_FAILS:
            assert res.returncode == 1 and re.search(OVERLAY_FAILS[case], res.stdout), f"{case} overlay:\n{res.stdout}"
            continue
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
    num-queues, hex-string channel ids, /bits/ 8 addrwidth; no dmaengine;
    the per-channel interrupts with their names on the Ethernet node
    (axienet_mcdma_tx_probe/rx_probe look them up there), phy-mode, MAC."""
    dtsi = (built["zcu102"]["out"] / "dt" / "zynq-net.dtsi").read_text()
    assert re.search(r"axistream-connected = <&axi_mcdma_0>;", dtsi)
    assert "xlnx,num-queues = /bits/ 16 <0x2>;" in dtsi
    assert 'xlnx,channel-ids = "0x1", "0x2";' in dtsi
    assert "xlnx,addrwidth = /bits/ 8 <0x40>;" in dtsi
    assert "dmas =" not in dtsi and "dma-names" not in dtsi
    assert "xgmii" not in dtsi
    eth = dtsi[dtsi.index("xxv_ethernet_0: ethernet@a0000000"):]
    eth = eth[:eth.index("};")]
    assert 'interrupt-names = "mm2s_ch1_introut", "mm2s_ch2_introut", "s2mm_ch1_introut", "s2mm_ch2_introut";' in eth, eth
    assert "interrupts = <0 89 4>, <0 90 4>, <0 91 4>, <0 92 4>;" in eth, eth
    assert 'phy-mode = "10gbase-r";' in eth and "local-mac-address = [00 0a 35 66 44 c4];" in eth, eth


def test_mainline_style(built):
    dtsi = (built["zcu102-axidma"]["out"] / "dt" / "zynq-net.dtsi").read_text()
    assert 'dmas = <&axi_dma_1 0>, <&axi_dma_1 1>;' in dtsi and 'dma-names = "tx_chan0", "rx_chan0";' in dtsi
    assert "axistream-connected" not in dtsi and "/bits/" not in dtsi


def _variant(tmp_path, text, name):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_mixed_dma_styles_rejected(zynq_net, tmp_path):
    text = (BOARDS / "zcu102.yml").read_text()
    mixed = text.replace("axistream_connected: true", "axistream_connected: true\n        dmas: true", 1)
    assert mixed != text
    res = run([zynq_net, "check", _variant(tmp_path, mixed, "mixed.yml")], check=False)
    assert res.returncode == 1 and "error[dma-styles-mixed]: " in res.stderr, res.stderr
    # dmaengine style on linux-xlnx alone is refused too: one style per flavour.
    xlnx_dmas = text.replace("axistream_connected: true", "dmas: true", 1)
    res = run([zynq_net, "check", _variant(tmp_path, xlnx_dmas, "dmas.yml")], check=False)
    assert res.returncode == 1 and "error[dmas-on-linux-xlnx]: " in res.stderr and "axistream" in res.stderr, res.stderr


def test_xgmii_rejected_with_hint(zynq_net, tmp_path):
    text = (BOARDS / "zcu102.yml").read_text()
    xgmii = text.replace("phy_mode: 10gbase-r", "phy_mode: xgmii", 1)
    assert xgmii != text
    res = run([zynq_net, "check", _variant(tmp_path, xgmii, "xgmii.yml")], check=False)
    assert res.returncode == 1 and "error[phy-mode-xgmii]: " in res.stderr and "phy_mode: 10gbase-r" in res.stderr, res.stderr
    # Leaving it out of a full XXV node is refused too: the probe needs a mode.
    none = re.sub(r"\n +phy_mode: 10gbase-r\n", "\n", text, count=1)
    assert none != text
    res = run([zynq_net, "check", _variant(tmp_path, none, "none.yml")], check=False)
    assert res.returncode == 1 and "error[phy-mode-missing]: " in res.stderr and "needs `phy_mode`" in res.stderr, res.stderr


def _dts(zynq_net, dtb, tmp_path, name):
    dts = tmp_path / f"{name}.dts"
    run(["dtc", "-I", "dtb", "-O", "dts", "-o", dts, dtb])
    return dts, dts.read_text()


def _verify_text(zynq_net, board, text, tmp_path, name, symbols=True):
    src = tmp_path / f"{name}.dts"
    src.write_text(text)
    dtb = tmp_path / f"{name}.dtb"
    run(["dtc", *(["-@"] if symbols else []), "-I", "dts", "-O", "dtb", "-o", dtb, src])
    return run([zynq_net, "dtb", "verify", board, dtb], check=False)


def test_dtb_verify_refuses_the_old_mcdma_shape(built, zynq_net, tmp_path):
    """MCDMA channel interrupts only on the DMA node (the shape the generator
    had before): linux-xlnx looks them up on the Ethernet node, by name."""
    r = built["zcu102"]
    _, text = _dts(zynq_net, r["include"], tmp_path, "mcdma")
    eth = text.index("ethernet@a0000000 {")
    end = text.index("};", eth)
    node = text[eth:end]
    old = re.sub(r"\n\s*interrupts = <[^;]*;", "", node, count=1)
    old = re.sub(r"\n\s*interrupt-names = [^;]*;", "", old, count=1)
    assert old != node
    res = _verify_text(zynq_net, r["board"], text[:eth] + old + text[end:], tmp_path, "mcdma-old")
    assert res.returncode == 1, res.stdout
    assert "no interrupt named `mm2s_ch1_introut`" in res.stdout and "platform_get_irq_byname" in res.stdout, res.stdout


def test_dtb_verify_refuses_1g_linux_xlnx_without_pcs_or_phy(built, zynq_net, tmp_path):
    """linux-xlnx axienet_probe: -EINVAL without pcs-handle or phy-handle."""
    r = built["zcu102-1g-sfp"]
    _, text = _dts(zynq_net, r["include"], tmp_path, "nophy")
    bad = re.sub(r"\n\s*(pcs|phy)-handle = <[^;]*;", "", text)
    assert bad != text
    res = _verify_text(zynq_net, r["board"], bad, tmp_path, "nophy-bad")
    assert res.returncode == 1 and "none of pcs-handle, phy-handle" in res.stdout and "-EINVAL" in res.stdout, res.stdout


def test_dtb_verify_refuses_a_duplicate_reg(built, zynq_net, tmp_path):
    """Full-node mode beside a generated pl.dtsi that already has the MAC:
    the overlay adds a second node at the same registers."""
    r = built["zcu102-sdt"]
    full = (FIXTURES / "zcu102-xxv-mcdma16.yml").read_text().replace("name: zcu102-xxv-mcdma16", "name: dup")
    board = _variant(tmp_path, full, "dup.yml")
    out = tmp_path / "dup-out"
    run([zynq_net, "gen", board, "-o", out])
    dtbo = tmp_path / "dup.dtbo"
    run(["dtc", "-@", "-I", "dts", "-O", "dtb", "-o", dtbo, out / "dt" / "zynq-net.dtso"])
    merged = tmp_path / "dup.dtb"
    run(["fdtoverlay", "-i", r["base"], "-o", merged, dtbo])
    res = run([zynq_net, "dtb", "verify", board, merged], check=False)
    assert res.returncode == 1 and "duplicate reg" in res.stdout, res.stdout


def test_dtb_verify_without_symbols(built, zynq_net, kernel_tree, tmp_path):
    """A vendor DTB compiled without -@: nodes are found by dt.path or by
    compatible + unit address, and the verdict is the same. (Built from the
    sources: a dtc decompile/recompile round trip mangles string lists such
    as "1", "2" into octal escapes.)"""
    for case, how in (("zcu102-sdt", "(path)"), ("p1020rdb-pd", "(compatible + unit address)"), ("zcu102", "(compatible + unit address)")):
        board, arch, dts, extra = CASES[case]
        dtb = tmp_path / f"{case}-nosym.dtb"
        build_dtb(kernel_tree, arch, dts, dtb, [*extra, built[case]["out"] / "dt" / "zynq-net.dtsi"], symbols=False)
        res = run(["fdtget", dtb, "/__symbols__", "gem3"], check=False)
        assert res.returncode != 0, "the DTB still has __symbols__"
        res = run([zynq_net, "dtb", "verify", board, dtb], check=False)
        assert res.returncode == 0 and how in res.stdout, f"{case}:\n{res.stdout}"


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


def test_dtb_verify_refuses_a_damaged_blob(built, zynq_net, tmp_path):
    """A DTB whose header points past its end (strings block size and
    offset, as a truncated copy or a bad write leaves them): exit 2 with a
    plain reason, never a panic of the DTB reader."""
    import struct
    data = bytearray(built["zcu102"]["include"].read_bytes())
    for field, value in ((12, len(data) + 4096), (32, 0x7FFFFFFF)):  # off_dt_strings, size_dt_strings
        bad = bytearray(data)
        struct.pack_into(">I", bad, field, value)
        p = tmp_path / f"bad-{field}.dtb"
        p.write_bytes(bytes(bad))
        res = run([zynq_net, "dtb", "verify", built["zcu102"]["board"], p], check=False)
        assert res.returncode == 2 and "not a valid DTB" in res.stderr and "panicked" not in res.stderr, res.stderr


@pytest.mark.parametrize("board", sorted(p.stem for p in BOARDS.glob("*.yml")))
def test_every_boards_overlay_compiles(board, zynq_net, tmp_path):
    """Every reference board's dt/zynq-net.dtso builds with the command its
    header gives (`dtc -@ -I dts -O dtb`), also a board with no device-tree
    changes (mlx5-lab, qemuarm64: a PCIe NIC or a virtio one): an overlay
    with no fragment is still an overlay, while `/plugin/;` with nothing
    after it is a dtc syntax error. Its dtc warnings are the listed ones
    (OVERLAY_BUS_WARNINGS for a board with a PL bus, else none)."""
    out = tmp_path / "out"
    run([zynq_net, "gen", BOARDS / f"{board}.yml", "-o", out])
    dtso = out / "dt" / "zynq-net.dtso"
    assert "dtc -@ -I dts -O dtb" in dtso.read_text()
    res = run(["dtc", "-@", "-I", "dts", "-O", "dtb", "-o", tmp_path / "o.dtbo", dtso], check=False)
    assert res.returncode == 0, f"{board}: dtc exit {res.returncode}\n{res.stderr}"
    got, want = overlay_warnings(res.stderr), expected_overlay_warnings(board)
    assert got == want, f"{board}: dtc warnings on zynq-net.dtso:\n  new: {dict(got - want)}\n  gone: {dict(want - got)}"
    assert (tmp_path / "o.dtbo").read_bytes()[:4] == bytes.fromhex("d00dfeed")


def _fdtget(dtb, path, prop, fmt=None):
    res = run(["fdtget", *(["-t", fmt] if fmt else []), dtb, path, prop], check=False)
    return res.stdout.strip() if res.returncode == 0 else None


def _node_of_phandle(dtb, ph):
    """The path of the node whose phandle is `ph` in a compiled tree."""
    res = run(["dtc", "-I", "dtb", "-O", "dts", dtb], check=False)
    path, found = [], None
    for line in res.stdout.splitlines():
        t = line.strip()
        if t.endswith("{"):
            path.append(t[:-1].strip().split(": ")[-1])
        elif t == "};":
            path.pop()
        elif t == f"phandle = <{ph:#04x}>;" or t == f"phandle = <{ph:#x}>;":
            found = "/" + "/".join(p for p in path[1:])
    return found


@pytest.mark.parametrize("kind", ["include", "overlay"])
def test_sfp_cage_on_a_mux_channel_by_path(built, kind):
    """The cage's i2c-bus names U135's channel 7 (no label in the board
    DTS) in the .dtsi (`LABEL: &{PATH} { };`) and in the overlay (a
    target-path fragment carrying the label: fdtoverlay gives the channel a
    phandle), and the cage allows 2 W modules (sfp.c maximum-power-milliwatt)."""
    dtb = built["zcu102-sfp-mux"][kind]
    assert _fdtget(dtb, "/sfp-eth1", "compatible") == "sff,sfp"
    assert _fdtget(dtb, "/sfp-eth1", "maximum-power-milliwatt", "u") == "2000"
    ph = int(_fdtget(dtb, "/sfp-eth1", "i2c-bus", "u"))
    assert _node_of_phandle(dtb, ph) == "/axi/i2c@ff030000/i2c-mux@75/i2c@7"
    # The base tree gives that channel no phandle: the fragment does.
    assert _fdtget(built["zcu102-sfp-mux"]["base"], "/axi/i2c@ff030000/i2c-mux@75/i2c@7", "phandle") is None


@pytest.mark.parametrize("kind", ["include", "overlay"])
def test_xxv_rx_core_clock_is_the_declared_fixed_clock(built, kind):
    """rx_core_clk of the XXV node and the MCDMA's mm2s/s2mm clocks resolve
    to the board's 156.25 MHz fixed-clock node (enclustra's misc_clk_0)."""
    dtb = built["zcu102-xxv-fixed-clock"][kind]
    clk = "/clock-misc-clk-0"
    assert _fdtget(dtb, clk, "compatible") == "fixed-clock"
    assert _fdtget(dtb, clk, "clock-frequency", "u") == "156250000"
    assert _fdtget(dtb, clk, "#clock-cells", "u") == "0"
    ph = int(_fdtget(dtb, clk, "phandle", "u"))

    def named(node):
        # Split the specifiers: the fixed clock has no argument cell
        # (#clock-cells = <0>), zynqmp_clk one.
        names = _fdtget(dtb, node, "clock-names").split()
        cells = [int(c) for c in _fdtget(dtb, node, "clocks", "u").split()]
        specs, k = [], 0
        while k < len(cells):
            specs.append("fixed" if cells[k] == ph else f"zynqmp {cells[k + 1]}")
            k += 1 if cells[k] == ph else 2
        return dict(zip(names, specs))

    # Every DMA clock is one of the MAC's (pl0_ref or the GT clock), so
    # linux-xlnx's axienet_dma_clk_init needs no DMA names on the MAC.
    assert named("/zynq-net-bus/ethernet@80010000") == {
        "s_axi_aclk": "zynqmp 71", "rx_core_clk": "fixed", "dclk": "zynqmp 71"}
    assert named("/zynq-net-bus/dma@80000000") == {
        "s_axi_lite_aclk": "zynqmp 71", "m_axi_sg_aclk": "zynqmp 71",
        "m_axi_mm2s_aclk": "fixed", "m_axi_s2mm_aclk": "fixed"}
