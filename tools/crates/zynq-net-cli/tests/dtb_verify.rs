//! `zynq-net dtb verify` and `zynq-net kconfig verify` on artifacts built
//! the way a kernel build makes them, each with faults planted one at a time.
//!
//! DTBs: the board DTS of Debian's linux-source-6.12 (unpacked by
//! scripts/kernel-tree; scripts/install-deps installs the package), run
//! through cpp and `dtc -@` as the kernel's dtbs rule does, with the
//! generated `dt/zynq-net.dtsi` #included after it (and, for a design, the
//! tests/kernel/fixtures pl.dtsi it patches). The unmodified build must pass;
//! each planted fault (a DTS snippet #included after the fragment: a property
//! deleted or changed, a node duplicated, queue groups removed) must fail
//! with the problem it plants, and nothing else may be reported. The same
//! DTBs are checked against the kernel's bindings by tests/kernel (pytest);
//! this suite is here so that cargo's tests — the ones cargo-mutants runs —
//! see a broken `dtb verify`.
//!
//! Needs `cpp`, `dtc` and the kernel tree: missing, the tests fail (they
//! are installed by scripts/install-deps, which CI runs first).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_zynq-net"))
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..").canonicalize().expect("repo root")
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e} (run scripts/install-deps)"))
}

fn ok(cmd: &mut Command) -> Output {
    let o = run(cmd);
    assert!(o.status.success(), "{cmd:?} failed:\n{}", String::from_utf8_lossy(&o.stderr));
    o
}

fn kernel_tree() -> PathBuf {
    let o = ok(&mut Command::new(root().join("scripts/kernel-tree")));
    PathBuf::from(String::from_utf8(o.stdout).expect("utf-8").trim())
}

/// cpp + `dtc` (`-@` when `symbols`): `dts` (relative to the arch's dts
/// directory) followed by `includes`, as tests/kernel/conftest.py's build_dtb.
fn build_dtb(tree: &Path, arch: &str, dts: &str, includes: &[PathBuf], out: &Path, symbols: bool) {
    let dts_root = tree.join("arch").join(arch).join("boot/dts");
    let board = dts_root.join(dts);
    let wrapper = out.with_extension("wrap.dts");
    let text: String =
        std::iter::once(&board).chain(includes).map(|p| format!("#include \"{}\"\n", p.display())).collect();
    fs::write(&wrapper, text).expect("write wrapper");
    let pre = out.with_extension("pp.dts");
    ok(Command::new("cpp")
        .args(["-nostdinc", "-undef", "-D__DTS__", "-x", "assembler-with-cpp", "-I"])
        .arg(&dts_root)
        .arg("-I")
        .arg(board.parent().expect("dir"))
        .arg("-I")
        .arg(tree.join("include"))
        .arg("-I")
        .arg(tree.join("scripts/dtc/include-prefixes"))
        .arg("-o")
        .arg(&pre)
        .arg(&wrapper));
    let mut dtc = Command::new("dtc");
    if symbols {
        dtc.arg("-@");
    }
    ok(dtc
        .args(["-q", "-I", "dts", "-O", "dtb", "-i"])
        .arg(board.parent().expect("dir"))
        .arg("-i")
        .arg(&dts_root)
        .arg("-o")
        .arg(out)
        .arg(&pre));
}

struct Case {
    board: PathBuf,
    arch: &'static str,
    dts: &'static str,
    /// A design pl.dtsi the board patches by label (#included before the fragment).
    design: Option<PathBuf>,
    /// (DTS snippet appended after the fragment, text the report must contain)
    faults: &'static [(&'static str, &'static str)],
    /// `dtc -@`: with `/__symbols__`. Without, ports are found by dt.path
    /// or by compatible + unit address (vendor DTBs).
    symbols: bool,
    /// Nodes the clean DTB has checked: each port, each DMA node, each
    /// child node the fragment writes (fixed-link, dma-channel-*).
    checked: usize,
    /// `found` lines the clean DTB's report must have (`eth0: PATH (how)`).
    found: &'static [&'static str],
    /// DTS snippets appended after the fragment that must still verify
    /// clean: what the kernel accepts although the fragment would not write
    /// it (a legacy property an overlay cannot delete, a property at the
    /// value the overlay sets instead of deleting it).
    clean: &'static [&'static str],
}

fn verify(board: &Path, dtb: &Path) -> (Option<i32>, String) {
    let o = run(Command::new(bin()).arg("dtb").arg("verify").arg(board).arg(dtb));
    (o.status.code(), format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)))
}

fn problems(report: &str) -> Vec<&str> {
    report.lines().filter(|l| !l.starts_with("found ") && !l.contains(" node(s) checked, ")).collect()
}

fn check_case(name: &str, c: &Case) {
    let tree = kernel_tree();
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("out");
    let g = run(Command::new(bin()).arg("gen").arg(&c.board).arg("-o").arg(&out));
    assert_eq!(g.status.code(), Some(0), "{name}: gen: {}", String::from_utf8_lossy(&g.stderr));
    let fragment = out.join("dt/zynq-net.dtsi");
    let mut base_inc: Vec<PathBuf> = c.design.iter().cloned().collect();
    // The board DTS (and design) alone: what the fragment adds is missing.
    let base = tmp.path().join("base.dtb");
    build_dtb(&tree, c.arch, c.dts, &base_inc, &base, c.symbols);
    let (code, rep) = verify(&c.board, &base);
    assert_eq!(code, Some(1), "{name}: verify passed on the DTB without the fragment:\n{rep}");
    assert!(rep.contains("missing ") || rep.contains("different "), "{name}: {rep}");
    // With the fragment: clean.
    base_inc.push(fragment);
    let good = tmp.path().join("good.dtb");
    build_dtb(&tree, c.arch, c.dts, &base_inc, &good, c.symbols);
    let (code, rep) = verify(&c.board, &good);
    assert_eq!(code, Some(0), "{name}: verify fails on the DTB with the fragment:\n{rep}");
    assert!(problems(&rep).is_empty(), "{name}: {rep}");
    assert!(rep.contains(", 0 problem(s)") && rep.contains("found "), "{name}: {rep}");
    let summary = format!(": {} node(s) checked, 0 problem(s)", c.checked);
    assert!(rep.contains(&summary), "{name}: wanted {summary:?}:\n{rep}");
    for f in c.found {
        assert!(rep.lines().any(|l| l == format!("found         {f}")), "{name}: not found as {f:?}:\n{rep}");
    }
    for (k, snippet) in c.clean.iter().enumerate() {
        let f = tmp.path().join(format!("clean{k}.dtsi"));
        fs::write(&f, snippet).expect("write snippet");
        let mut inc = base_inc.clone();
        inc.push(f);
        let dtb = tmp.path().join(format!("clean{k}.dtb"));
        build_dtb(&tree, c.arch, c.dts, &inc, &dtb, c.symbols);
        let (code, rep) = verify(&c.board, &dtb);
        assert_eq!(code, Some(0), "{name}: {snippet:?} is no fault, but verify fails:\n{rep}");
        assert!(problems(&rep).is_empty() && rep.contains(&summary), "{name}: {snippet:?}: wanted {summary:?}:\n{rep}");
    }
    // One fault at a time.
    for (k, (snippet, want)) in c.faults.iter().enumerate() {
        let f = tmp.path().join(format!("fault{k}.dtsi"));
        fs::write(&f, snippet).expect("write fault");
        let mut inc = base_inc.clone();
        inc.push(f);
        let dtb = tmp.path().join(format!("fault{k}.dtb"));
        build_dtb(&tree, c.arch, c.dts, &inc, &dtb, c.symbols);
        let (code, rep) = verify(&c.board, &dtb);
        assert_eq!(code, Some(1), "{name}: fault {snippet:?} not seen:\n{rep}");
        let ps = problems(&rep);
        assert!(
            ps.iter().any(|p| p.contains(want)),
            "{name}: fault {snippet:?}: no problem containing {want:?}:\n{rep}"
        );
        let summary = format!(", {} problem(s)", ps.len());
        assert!(rep.contains(&summary), "{name}: problem count in the summary:\n{rep}");
    }
}

fn boards() -> PathBuf {
    root().join("meta-zynq-net/boards")
}

fn fixtures() -> PathBuf {
    root().join("tests/kernel/fixtures")
}

#[test]
fn zcu102_reference_board() {
    check_case(
        "zcu102",
        &Case {
            board: boards().join("zcu102.yml"),
            arch: "arm64",
            dts: "xilinx/zynqmp-zcu102-rev1.0.dts",
            symbols: true,
            // gem3, the XXV MAC and its MCDMA
            checked: 3,
            found: &[],
            design: None,
            clean: &[],
            faults: &[
                ("&gem3 { /delete-property/ phy-mode; };", "missing prop  /axi/ethernet@ff0e0000: phy-mode"),
                ("&gem3 { local-mac-address = [00 0a 35 00 22 02]; };", "local-mac-address is [00 0a 35 00 22 02]"),
                ("&gem3 { status = \"disabled\"; };", "status is \"disabled\", wanted status = \"okay\""),
                // The generated XXV + MCDMA node (full-node mode).
                ("&xxv_ethernet_0 { /delete-property/ xlnx,rxmem; };", "xlnx,rxmem"),
                ("&xxv_ethernet_0 { xlnx,num-queues = /bits/ 16 <3>; };", "xlnx,num-queues"),
                ("&xxv_ethernet_0 { /delete-property/ axistream-connected; };", "axistream-connected"),
                (
                    "&xxv_ethernet_0 { interrupt-names = \"mm2s_ch1_introut\", \"mm2s_ch2_introut\", \"s2mm_ch1_introut\", \"s2mm_ch9_introut\"; };",
                    "interrupt-names",
                ),
                ("&axi_mcdma_0 { /delete-property/ xlnx,addrwidth; };", "xlnx,addrwidth"),
                ("&axi_mcdma_0 { interrupts = <0 89 4>; };", "interrupts"),
                ("&xxv_ethernet_0 { phy-mode = \"sgmii\"; };", "phy-mode is \"sgmii\""),
                // Open table, PHY row, on a PHY of the board DTS (the board
                // names no PHY): the rev1.0 board's DP83867 (zynqmp-zcu102-revB.dts
                // phyc) without its RX delay; dp83867_config_init returns
                // -EINVAL at open.
                (
                    "&phyc { /delete-property/ ti,rx-internal-delay; };",
                    "open          /axi/ethernet@ff0e0000: [open-phy-delay] phy-mode \"rgmii-id\" and the DP83867 PHY has no ti,rx-internal-delay: macb_open -> macb_phylink_connect",
                ),
                // Open table: phylink at open wants a PHY without in-band
                // status (phylink_fwnode_phy_connect, -ENODEV).
                (
                    "&xxv_ethernet_0 { /delete-property/ managed; };",
                    "open          /zynq-net-bus/ethernet@a0000000: [open-no-link] no phy-handle, fixed-link or managed = \"in-band-status\": axienet_open -> phylink_of_phy_connect -> phylink_fwnode_phy_connect",
                ),
                (
                    "/ { amba_pl: amba_pl@0 { #address-cells = <2>; #size-cells = <2>; compatible = \"simple-bus\"; ranges; \
                     other: ethernet@a0000000 { compatible = \"xlnx,xxv-ethernet-1.0\"; reg = <0 0xa0000000 0 0x10000>; }; }; };",
                    "duplicate reg",
                ),
                ("&axi_mcdma_0 { compatible = \"xlnx,axi-dma-1.00.a\"; };", "compatible is \"xlnx,axi-dma-1.00.a\""),
                // Two GIC specifiers (#interrupt-cells = <3>, zynqmp.dtsi) for
                // four names: the MCDMA probe finds no IRQ for two channels.
                (
                    "&xxv_ethernet_0 { interrupts = <0 89 4>, <0 90 4>; };",
                    "linux-xlnx MCDMA: 4 interrupt-names but 2 interrupts on the Ethernet node",
                ),
            ],
        },
    );
}

#[test]
fn p1020rdb_reference_board() {
    check_case(
        "p1020rdb",
        &Case {
            board: boards().join("p1020rdb.yml"),
            arch: "powerpc",
            dts: "fsl/p1020rdb-pd.dts",
            symbols: true,
            // enet0, enet1
            checked: 2,
            found: &[],
            design: None,
            clean: &[],
            faults: &[
                ("&enet1 { /delete-property/ local-mac-address; };", "local-mac-address"),
                ("&enet0 { /delete-node/ queue-group@b4000; };", "gianfar (gfar_of_init): fsl,etsec2 with 1 queue group(s) gives 1 RX/TX queue(s), the board says rx 2 tx 2"),
                ("&enet1 { tbi-handle = \"x\"; };", "tbi-handle"),
                // Open table, gianfar row: init_phy's of_phy_connect has no
                // PHY node (gianfar.c:1678, -ENODEV).
                ("&enet1 { /delete-property/ phy-handle; };", "[open-no-link] no phy-handle and no fixed-link: gfar_enet_open -> init_phy -> of_phy_connect"),
                // Rule soc-dts on the compiled tree: a P2020 root compatible.
                (
                    "/ { compatible = \"fsl,P2020RDB-PC\"; };",
                    "soc           /: [soc-dts] root compatible fsl,P2020RDB-PC is a qoriq-p2020 board, the board file says soc `qoriq-p1020`",
                ),
            ],
        },
    );
}

#[test]
fn xxv_mcdma_design_patched_by_label() {
    check_case(
        "zcu102-sdt",
        &Case {
            board: fixtures().join("zcu102-sdt.yml"),
            arch: "arm64",
            dts: "xilinx/zynqmp-zcu102-rev1.0.dts",
            symbols: true,
            // gem3, xxv_ethernet_1 (patched: its DMA is the design's)
            checked: 2,
            found: &[],
            design: Some(fixtures().join("pl-xxv.dtsi")),
            clean: &[],
            faults: &[
                ("&xxv_ethernet_1 { phy-mode = \"base-r\"; };", "phy-mode is \"base-r\""),
                // the design's node has no PHY either: open fails (phylink)
                ("&xxv_ethernet_1 { /delete-property/ managed; };", "[open-no-link]"),
                ("&xxv_ethernet_1 { xlnx,channel-ids = \"0x1\"; };", "xlnx,num-queues 16 but 1 channel id(s)"),
            ],
        },
    );
}

#[test]
fn axienet_sfp_design_patched_by_label() {
    check_case(
        "zcu102-1g-sfp",
        &Case {
            board: fixtures().join("zcu102-1g-sfp.yml"),
            arch: "arm64",
            dts: "xilinx/zynqmp-zcu102-rev1.0.dts",
            symbols: true,
            // axi_ethernet_0 (patched)
            checked: 1,
            found: &[],
            design: Some(fixtures().join("pl-1g-sfp.dtsi")),
            // The fragment deletes the design's xlnx,phy-type; the overlay,
            // which cannot, sets it to 5, XAE_PHY_TYPE_1000BASE_X
            // (xilinx_axienet.h), the board's phy_mode: that value is no fault.
            clean: &["&axi_ethernet_0 { xlnx,phy-type = <5>; };"],
            faults: &[
                ("&axi_ethernet_0 { /delete-property/ sfp; };", "sfp"),
                // 1 is XAE_PHY_TYPE_GMII: axienet_probe would run GMII.
                (
                    "&axi_ethernet_0 { xlnx,phy-type = <1>; };",
                    "not deleted   /amba_pl@0/ethernet@a0040000: xlnx,phy-type is <0x1>",
                ),
                ("&axi_ethernet_0 { /delete-property/ max-speed; };", "max-speed"),
                // A phandle to another node of the design: the label's
                // phandle (from /__symbols__) is compared, not only the length.
                (
                    "&axi_ethernet_0 { pcs-handle = <&axi_ethernet_0_dma>; };",
                    "different     /amba_pl@0/ethernet@a0040000: pcs-handle is",
                ),
                // One GIC specifier (3 cells, the DMA node's interrupt-parent)
                // where axienet_dma_probe maps two (TX, RX).
                (
                    "&axi_ethernet_0_dma { interrupts = <0 89 4>; };",
                    "DMA node `interrupts` has 12 byte(s), probe reads at least 2 interrupt(s)",
                ),
            ],
        },
    );
}

#[test]
fn axi_dma_full_node() {
    check_case(
        "zcu102-axidma",
        &Case {
            board: fixtures().join("zcu102-axidma.yml"),
            arch: "arm64",
            dts: "xilinx/zynqmp-zcu102-rev1.0.dts",
            symbols: true,
            // the MAC, the AXI DMA and its two dma-channel children
            checked: 4,
            found: &[],
            design: None,
            clean: &[],
            faults: &[
                (
                    "&axi_dma_1 { dma-channel-s2mm { /delete-property/ interrupts; }; };",
                    "missing prop  /zynq-net-bus/dma@a0080000/dma-channel-s2mm: interrupts",
                ),
                (
                    "&axi_dma_1 { /delete-node/ dma-channel-mm2s; };",
                    "missing node  /zynq-net-bus/dma@a0080000/dma-channel-mm2s",
                ),
                ("&axi_ethernet_1 { /delete-property/ clocks; };", "clocks"),
                // Open table, mainline axienet row
                ("&axi_ethernet_1 { /delete-property/ phy-handle; };", "[open-no-link]"),
            ],
        },
    );
}

/// The linux-xlnx 1G full node (axistream-connected AXI DMA): the open
/// table's linux-xlnx rows, each fault removing what its row names.
#[test]
fn axi_1g_xlnx_full_node() {
    check_case(
        "zcu102-axi-1g-xlnx",
        &Case {
            board: fixtures().join("zcu102-axi-1g-xlnx.yml"),
            arch: "arm64",
            dts: "xilinx/zynqmp-zcu102-rev1.0.dts",
            symbols: true,
            // the MAC, its mdio bus and PHY, the AXI DMA
            checked: 4,
            found: &[],
            design: None,
            clean: &[],
            faults: &[
                // axienet_init_legacy_dma: request_irq(lp->eth_irq) untested
                ("&axi_ethernet_0 { /delete-property/ interrupts; };", "[open-mac-irq] no MAC interrupt"),
                // a DMA clock nothing enables (axienet_dma_clk_init reads the
                // DMA clock names from the Ethernet node only)
                (
                    "&axi_ethernet_0_dma { clocks = <&zynqmp_clk 71>, <&zynqmp_clk 72>, <&zynqmp_clk 71>, <&zynqmp_clk 71>; };",
                    "[open-dma-clocks] the DMA node's m_axi_sg_aclk is no clock the Ethernet node enables",
                ),
                ("&axi_ethernet_0 { /delete-property/ phy-handle; };", "[open-no-link]"),
            ],
        },
    );
}

/// A DP83867 the board writes itself (the KV260 carrier's GEM3 PHY on the
/// K26 SOM's DTS): the open table's PHY row, each fault removing a delay
/// the phy-mode needs (dp83867_verify_rgmii_cfg at open).
#[test]
fn dp83867_phy_written_by_the_board() {
    check_case(
        "kv260-dp83867",
        &Case {
            board: fixtures().join("kv260-dp83867.yml"),
            arch: "arm64",
            dts: "xilinx/zynqmp-smk-k26-revA.dts",
            symbols: true,
            // gem3, its mdio bus and PHY
            checked: 3,
            found: &[],
            design: None,
            clean: &[],
            faults: &[
                (
                    "&phy0 { /delete-property/ ti,rx-internal-delay; };",
                    "[open-phy-delay] phy-mode \"rgmii-id\" and the DP83867 PHY has no ti,rx-internal-delay:",
                ),
                (
                    "&phy0 { /delete-property/ ti,tx-internal-delay; };",
                    "[open-phy-delay] phy-mode \"rgmii-id\" and the DP83867 PHY has no ti,tx-internal-delay:",
                ),
                // Without a compatible (the PHY ID read from its registers),
                // a property only the DP83867 binding has marks it.
                (
                    "&phy0 { /delete-property/ compatible; /delete-property/ ti,rx-internal-delay; };",
                    "[open-phy-delay] phy-mode \"rgmii-id\" and the DP83867 PHY has no ti,rx-internal-delay:",
                ),
                // The generic property is no substitute.
                (
                    "&phy0 { /delete-property/ ti,tx-internal-delay; tx-internal-delay-ps = <2750>; };",
                    "has no ti,tx-internal-delay (it does not read the generic rx/tx-internal-delay-ps it has)",
                ),
            ],
        },
    );
}

/// A PS GEM over EMIO through the GMII-to-RGMII converter: the open table's
/// converter row (the MAC's phy-handle on the converter finds no PHY).
#[test]
fn gmii_to_rgmii_converter() {
    check_case(
        "zcu102-gem-gmii2rgmii",
        &Case {
            board: fixtures().join("zcu102-gem-gmii2rgmii.yml"),
            arch: "arm64",
            dts: "xilinx/zynqmp-zcu102-rev1.0.dts",
            symbols: true,
            // gem0, its mdio bus, the PHY and the converter
            checked: 4,
            found: &[],
            design: None,
            clean: &[],
            faults: &[
                (
                    "&gem0 { phy-handle = <&gmii_to_rgmii_0>; };",
                    "[open-phy-is-converter] phy-handle names a GMII-to-RGMII converter (xlnx,gmii-to-rgmii-1.0): macb_open",
                ),
                ("&gmii_to_rgmii_0 { /delete-property/ phy-handle; };", "phy-handle"),
            ],
        },
    );
}

/// Without `/__symbols__`: the eTSECs are found by compatible ("fsl,etsec2",
/// pq3-etsec2-N.dtsi) and unit address (ethernet@b0000/b1000/b2000 under
/// soc@ffe00000, p1020rdb-pd.dts). Each eTSEC has a `queue-group@` child at
/// its own unit address (no compatible): only the MAC node may match. A
/// phandle the DTB cannot resolve is checked by its length.
#[test]
fn p1020rdb_pd_without_symbols() {
    check_case(
        "p1020rdb-pd-nosym",
        &Case {
            board: fixtures().join("p1020rdb-pd.yml"),
            arch: "powerpc",
            dts: "fsl/p1020rdb-pd.dts",
            symbols: false,
            // three eTSECs and enet0's fixed-link child
            checked: 4,
            found: &[
                "eth0: /soc@ffe00000/ethernet@b0000 (compatible + unit address)",
                "eth1: /soc@ffe00000/ethernet@b1000 (compatible + unit address)",
                "eth2: /soc@ffe00000/ethernet@b2000 (compatible + unit address)",
            ],
            design: None,
            // p1020rdb-pd.dts's legacy `fixed-link = <1 1 1000 0 0>`, which
            // the fragment deletes and an overlay cannot: the fixed-link
            // node the fragment adds wins (of_phy_register_fixed_link looks
            // for the child node first), so it is no fault.
            clean: &["&enet0 { fixed-link = <1 1 1000 0 0>; };"],
            faults: &[
                (
                    "&enet1 { tbi-handle = <&tbi1 &tbi1>; };",
                    "different     /soc@ffe00000/ethernet@b1000: tbi-handle has 8 byte(s), wanted 4",
                ),
                ("&enet0 { /delete-node/ fixed-link; };", "missing node  /soc@ffe00000/ethernet@b0000/fixed-link"),
            ],
        },
    );
}

/// The P2020 design fixture (P2020RDB-PC, p2020rdb-pc.dtsi): three eTSEC1
/// controllers (compatible "gianfar", pq3-etsec1-N.dtsi), one queue each,
/// eth0 on a fixed link, eth1 SGMII with its TBI PHY, eth2 RGMII.
#[test]
fn p2020rdb_pc_design_fixture() {
    check_case(
        "p2020rdb-pc",
        &Case {
            board: fixtures().join("p2020rdb-pc.yml"),
            arch: "powerpc",
            dts: "fsl/p2020rdb-pc_32b.dts",
            symbols: true,
            // three eTSECs and enet0's fixed-link child
            checked: 4,
            found: &[],
            design: None,
            // The board DTS's legacy 5-cell fixed-link: the child node wins.
            clean: &["&enet0 { fixed-link = <1 1 1000 0 0>; };"],
            faults: &[
                ("&enet0 { /delete-node/ fixed-link; };", "missing node  /soc@ffe00000/ethernet@24000/fixed-link"),
                ("&enet1 { /delete-property/ tbi-handle; };", "missing prop  /soc@ffe00000/ethernet@25000: tbi-handle"),
                // Open table, gianfar row (gfar_enet_open -> init_phy: -ENODEV).
                ("&enet2 { /delete-property/ phy-handle; };", "[open-no-link] no phy-handle and no fixed-link: gfar_enet_open -> init_phy -> of_phy_connect"),
                // An eTSEC2 compatible on a node with no queue-group child:
                // gfar_of_init counts 0 groups and probe fails.
                (
                    "&enet2 { compatible = \"fsl,etsec2\"; };",
                    "gianfar (gfar_of_init): fsl,etsec2 with 0 queue group(s): the driver takes 1 to 2 (MAXGROUPS), probe fails",
                ),
            ],
        },
    );
}

/// The P1020RDB-PD fixture with eth0 at rx 2 / tx 1 and eth1 at rx 1 /
/// tx 2 (validate allows each up to the two queue groups, independently).
fn p1020rdb_pd_asymmetric(dir: &Path) -> PathBuf {
    let text = fs::read_to_string(fixtures().join("p1020rdb-pd.yml")).expect("fixture");
    let q = "queues: { rx: 2, tx: 2 }";
    assert_eq!(text.matches(q).count(), 3, "p1020rdb-pd.yml changed: {text}");
    let text = text.replacen(q, "queues: { rx: 2, tx: 1 }", 1).replacen(q, "queues: { rx: 1, tx: 2 }", 1);
    let board = dir.join("p1020rdb-pd-asym.yml");
    fs::write(&board, text).expect("write board");
    board
}

/// gianfar's queue count (gfar_of_init): an fsl,etsec2 gets one RX and one
/// TX queue per available `queue-group` child (gfar_of_group_count:
/// for_each_available_child_of_node, of_node_name_eq "queue-group"), 1 to
/// MAXGROUPS = 2 of them (gianfar.h; else probe fails). Two per eTSEC in
/// p1020si-post.dtsi (pq3-etsec2-N.dtsi and pq3-etsec2-grp2-N.dtsi:
/// queue-group@b0000/b4000 on enet0, b1000/b5000 on enet1, b2000/b6000 on
/// enet2). enet0 also has the fixed-link child node, which is no group.
#[test]
fn p1020rdb_pd_queue_groups() {
    let dir = tempfile::tempdir().expect("tmp");
    check_case(
        "p1020rdb-pd-queues",
        &Case {
            board: p1020rdb_pd_asymmetric(dir.path()),
            arch: "powerpc",
            dts: "fsl/p1020rdb-pd.dts",
            symbols: true,
            checked: 4,
            found: &[],
            design: None,
            // of_device_is_available: "okay" is available.
            clean: &["&enet1 { queue-group@b5000 { status = \"okay\"; }; };"],
            faults: &[
                // Only RX, then only TX, is more than the one group left.
                ("&enet0 { /delete-node/ queue-group@b4000; };", "probe         /soc@ffe00000/ethernet@b0000: gianfar (gfar_of_init): fsl,etsec2 with 1 queue group(s) gives 1 RX/TX queue(s), the board says rx 2 tx 1"),
                ("&enet1 { /delete-node/ queue-group@b5000; };", "probe         /soc@ffe00000/ethernet@b1000: gianfar (gfar_of_init): fsl,etsec2 with 1 queue group(s) gives 1 RX/TX queue(s), the board says rx 1 tx 2"),
                // A disabled group is not counted.
                ("&enet2 { queue-group@b6000 { status = \"disabled\"; }; };", "/soc@ffe00000/ethernet@b2000: gianfar (gfar_of_init): fsl,etsec2 with 1 queue group(s) gives 1 RX/TX queue(s), the board says rx 2 tx 2"),
                // A third group (its reg is made up: gfar_of_init refuses the
                // count before it parses any group).
                (
                    "&enet2 { queue-group@ba000 { #address-cells = <1>; #size-cells = <1>; reg = <0xba000 0x1000>; interrupts = <25 2 0 0 26 2 0 0 27 2 0 0>; }; };",
                    "/soc@ffe00000/ethernet@b2000: gianfar (gfar_of_init): fsl,etsec2 with 3 queue group(s): the driver takes 1 to 2 (MAXGROUPS), probe fails",
                ),
                (
                    "&enet2 { /delete-node/ queue-group@b2000; /delete-node/ queue-group@b6000; };",
                    "/soc@ffe00000/ethernet@b2000: gianfar (gfar_of_init): fsl,etsec2 with 0 queue group(s): the driver takes 1 to 2 (MAXGROUPS), probe fails",
                ),
            ],
        },
    );
}

/// A P2020RDB board (the three eTSECs of arch/powerpc/boot/dts/fsl/
/// p2020rdb.dts, one queue each: eTSEC1, p2020si-post.dtsi), in the format
/// of meta-zynq-net/boards/p1020rdb.yml.
const P2020RDB: &str = "version: 1
board:
  name: p2020rdb
  soc: qoriq-p2020
  cpus: 2
  machine: p2020rdb
  kernel: linux-qoriq
  arch: powerpc
  dts: fsl/p2020rdb.dts
  defconfig: mpc85xx_smp_defconfig
interfaces:
  - { name: eth0, driver: gianfar, queues: { rx: 1, tx: 1 }, dt: { label: enet0, mac: \"00:04:9f:00:20:20\" } }
  - { name: eth1, driver: gianfar, queues: { rx: 1, tx: 1 }, dt: { label: enet1, mac: \"00:04:9f:00:20:21\" } }
  - { name: eth2, driver: gianfar, queues: { rx: 1, tx: 1 }, dt: { label: enet2, mac: \"00:04:9f:00:20:22\" } }
";

/// P2020 without `/__symbols__`: its eTSECs are eTSEC1 ("gianfar",
/// pq3-etsec1-N.dtsi) at ethernet@24000/25000/26000, not the P1020's
/// eTSEC2 addresses; one queue each, no `queue-group` children.
#[test]
fn p2020rdb_without_symbols() {
    let dir = tempfile::tempdir().expect("tmp");
    let board = dir.path().join("p2020rdb.yml");
    fs::write(&board, P2020RDB).expect("write board");
    check_case(
        "p2020rdb-nosym",
        &Case {
            board,
            arch: "powerpc",
            dts: "fsl/p2020rdb.dts",
            symbols: false,
            checked: 3,
            found: &[
                "eth0: /soc@ffe00000/ethernet@24000 (compatible + unit address)",
                "eth1: /soc@ffe00000/ethernet@25000 (compatible + unit address)",
                "eth2: /soc@ffe00000/ethernet@26000 (compatible + unit address)",
            ],
            design: None,
            clean: &[],
            faults: &[(
                "&enet2 { local-mac-address = [00 04 9f 00 20 99]; };",
                "different     /soc@ffe00000/ethernet@26000: local-mac-address is [00 04 9f 00 20 99]",
            )],
        },
    );
}

/// Zynq-7000 without `/__symbols__`: gem0 is found by compatible
/// ("xlnx,zynq-gem", "cdns,gem") and unit address (zynq-7000.dtsi:
/// `gem0: ethernet@e000b000` under `amba: axi`).
#[test]
fn zc702_without_symbols() {
    check_case(
        "zc702-nosym",
        &Case {
            board: boards().join("zc702.yml"),
            arch: "arm",
            dts: "xilinx/zynq-zc702.dts",
            symbols: false,
            checked: 1,
            found: &["eth0: /axi/ethernet@e000b000 (compatible + unit address)"],
            design: None,
            clean: &[],
            faults: &[("&gem0 { phy-mode = \"rgmii\"; };", "phy-mode is \"rgmii\"")],
        },
    );
}

/// A full AXI Ethernet node without `/__symbols__`: found by compatible
/// ("xlnx,axi-ethernet-1.00.a") and the board's `node.reg` (0xa0040000),
/// its DMA (and the DMA's channels) by path beside it.
#[test]
fn axi_dma_full_node_without_symbols() {
    check_case(
        "zcu102-axidma-nosym",
        &Case {
            board: fixtures().join("zcu102-axidma.yml"),
            arch: "arm64",
            dts: "xilinx/zynqmp-zcu102-rev1.0.dts",
            symbols: false,
            checked: 4,
            found: &["eth1: /zynq-net-bus/ethernet@a0040000 (compatible + unit address)"],
            design: None,
            clean: &[],
            faults: &[
                ("&axi_ethernet_1 { phy-handle = <&phyc &phyc>; };", "phy-handle has 8 byte(s), wanted 4"),
                (
                    "&axi_dma_1 { /delete-node/ dma-channel-s2mm; };",
                    "missing node  /zynq-net-bus/dma@a0080000/dma-channel-s2mm",
                ),
            ],
        },
    );
}

/// Without `/__symbols__` nodes are found by compatible and unit address
/// (vendor DTBs built without `dtc -@`), and a fault is still seen.
#[test]
fn dtb_without_symbols() {
    let tree = kernel_tree();
    let tmp = tempfile::tempdir().expect("tmp");
    let board = boards().join("zcu102.yml");
    let out = tmp.path().join("out");
    assert_eq!(run(Command::new(bin()).arg("gen").arg(&board).arg("-o").arg(&out)).status.code(), Some(0));
    let dtb = tmp.path().join("nosym.dtb");
    build_dtb(&tree, "arm64", "xilinx/zynqmp-zcu102-rev1.0.dts", &[out.join("dt/zynq-net.dtsi")], &dtb, false);
    let (code, rep) = verify(&board, &dtb);
    assert_eq!(code, Some(0), "{rep}");
    assert!(rep.contains("eth0: /axi/ethernet@ff0e0000 (compatible + unit address)"), "{rep}");
    let base = tmp.path().join("base-nosym.dtb");
    build_dtb(&tree, "arm64", "xilinx/zynqmp-zcu102-rev1.0.dts", &[], &base, false);
    let (code, rep) = verify(&board, &base);
    assert_eq!(code, Some(1), "{rep}");
    assert!(rep.contains("the DTB has no /__symbols__"), "{rep}");
}

/// `kconfig verify` on a `.config`: every requested symbol with its value
/// passes; one missing, one `m` for `y`, one `n` each fail and are named.
#[test]
fn kconfig_verify_on_a_config() {
    let tmp = tempfile::tempdir().expect("tmp");
    let board = boards().join("p1020rdb.yml");
    let out = tmp.path().join("out");
    assert_eq!(run(Command::new(bin()).arg("gen").arg(&board).arg("-o").arg(&out)).status.code(), Some(0));
    // The union of the generated fragments is a .config that has every symbol.
    let mut config = String::new();
    let mut syms = Vec::new();
    for e in fs::read_dir(out.join("kernel")).expect("kernel dir") {
        let p = e.expect("entry").path();
        if p.extension().is_some_and(|x| x == "cfg") {
            for l in fs::read_to_string(&p).expect("cfg").lines().filter(|l| l.starts_with("CONFIG_")) {
                config.push_str(l);
                config.push('\n');
                syms.push(l.split_once('=').expect("=").0.to_string());
            }
        }
    }
    assert!(syms.len() >= 10, "{syms:?}");
    let cfg = tmp.path().join(".config");
    let kv = |text: &str| {
        fs::write(&cfg, text).expect("write");
        let o = run(Command::new(bin()).arg("kconfig").arg("verify").arg("--config").arg(&cfg).arg(&board));
        (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr))
    };
    let (code, rep) = kv(&config);
    assert_eq!(code, Some(0), "{rep}");
    let (a, b, c) = (&syms[0], &syms[1], &syms[2]);
    let broken = config
        .lines()
        .filter(|l| !l.starts_with(&format!("{a}=")))
        .map(|l| {
            if l.starts_with(&format!("{b}=")) {
                format!("# {b} is not set")
            } else if l.starts_with(&format!("{c}=y")) {
                format!("{c}=m")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let (code, rep) = kv(&broken);
    assert_eq!(code, Some(1), "{rep}");
    for s in [a, b] {
        assert!(rep.contains(s.trim_start_matches("CONFIG_")), "{s} not reported:\n{rep}");
    }
    let (code, _) = kv("# nothing here\n");
    assert_eq!(code, Some(2), "a file without CONFIG_ lines is a usage error");
}

/// `check`/`gen --kernel-tree`: the board DTS built as the kernel does
/// (cpp + dtc -@), every label the board names looked up in it and in what
/// the board generates (rule dt-label-missing, at the board's line:col with
/// a did-you-mean), and `soc` against its root compatible (rule soc-dts);
/// nothing written on an error. A design's pl.dtsi is passed with
/// --include.
#[test]
fn labels_are_checked_against_the_board_dts() {
    let tree = kernel_tree();
    let tmp = tempfile::tempdir().expect("tmp");
    let check = |board: &Path, extra: &[&Path]| {
        let mut c = Command::new(bin());
        c.arg("check").arg(board).arg("--kernel-tree").arg(&tree);
        for e in extra {
            c.arg("--include").arg(e);
        }
        let o = run(&mut c);
        (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    // The reference boards: every label is the DTS's or their own.
    for b in ["zcu102.yml", "zc702.yml", "p1020rdb.yml"] {
        let (code, err) = check(&boards().join(b), &[]);
        assert_eq!(code, Some(0), "{b}: {err}");
    }
    // A mistyped label: the error is at its line:col, with the closest label.
    let text = fs::read_to_string(boards().join("zcu102.yml")).expect("board");
    let bad = text.replacen("label: gem3 ", "label: gem33", 1);
    assert_ne!(bad, text);
    let line = bad.lines().position(|l| l.contains("label: gem33")).expect("line") + 1;
    let f = tmp.path().join("zcu102.yml");
    fs::write(&f, &bad).expect("write");
    let (code, err) = check(&f, &[]);
    assert_eq!(code, Some(1), "{err}");
    let want = format!("error[dt-label-missing]: {}:{line}:14: label `gem33` is defined neither by this board nor in xilinx/zynqmp-zcu102-rev1.0.dts", f.display());
    assert!(err.contains(&want), "wanted {want:?}:\n{err}");
    assert!(err.contains("did you mean `gem3`?"), "{err}");
    // gen writes nothing then.
    let out = tmp.path().join("out");
    let o = run(Command::new(bin()).arg("gen").arg(&f).arg("-o").arg(&out).arg("--kernel-tree").arg(&tree));
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!out.exists(), "gen wrote output for a board with a missing label");
    // A design patched by label: its labels are the pl.dtsi's, given with --include.
    let sfp = fixtures().join("zcu102-1g-sfp.yml");
    let (code, err) = check(&sfp, &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("label `axi_ethernet_0` is defined neither"), "{err}");
    let (code, err) = check(&sfp, &[&fixtures().join("pl-1g-sfp.dtsi")]);
    assert_eq!(code, Some(0), "{err}");
    // The DTS of another SoC: a P1020 board built on the P2020RDB's DTS
    // (root compatible "fsl,P2020RDB").
    let p1020 = fs::read_to_string(boards().join("p1020rdb.yml")).expect("board");
    let other = p1020.replacen("dts: fsl/p1020rdb-pd.dts", "dts: fsl/p2020rdb.dts", 1);
    assert_ne!(other, p1020);
    let f = tmp.path().join("p1020rdb.yml");
    fs::write(&f, other).expect("write");
    let (code, err) = check(&f, &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("error[soc-dts]") && err.contains("is a qoriq-p2020 board"), "{err}");
}

/// A cage's I2C bus given by path and a clock naming a fixed clock are
/// checked against the board DTS before anything is written: the design
/// fixtures pass; a path to no node is an error at its line:col naming the
/// nearest path (U135 has channels 0-7, not 8) or, when none is near, the
/// children of the deepest ancestor that exists; a clock label neither
/// declared nor in the DTS names the fixed clock the board does declare.
#[test]
fn sfp_bus_paths_and_fixed_clock_labels_are_checked_against_the_board_dts() {
    let tree = kernel_tree();
    let tmp = tempfile::tempdir().expect("tmp");
    let pl = fixtures().join("pl-1g-sfp.dtsi");
    let check = |board: &Path, include: bool| {
        let mut c = Command::new(bin());
        c.arg("check").arg(board).arg("--kernel-tree").arg(&tree);
        if include {
            c.arg("--include").arg(&pl);
        }
        let o = run(&mut c);
        (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let sfp = fixtures().join("zcu102-sfp-mux.yml");
    let xxv = fixtures().join("zcu102-xxv-fixed-clock.yml");
    assert_eq!(check(&sfp, true).0, Some(0), "{}", check(&sfp, true).1);
    assert_eq!(check(&xxv, false).0, Some(0), "{}", check(&xxv, false).1);
    let text = fs::read_to_string(&sfp).expect("board");
    for (from, to, want) in [
        ("i2c-mux@75/i2c@7 ", "i2c-mux@75/i2c@8 ", "did you mean `/axi/i2c@ff030000/i2c-mux@75/i2c@0`?".to_string()),
        (
            "/axi/i2c@ff030000/i2c-mux@75/i2c@7 ",
            "/axi/i2c@ff030000/i2c-switch@75/i2c@7 ",
            "/axi/i2c@ff030000 exists; its children: i2c-mux@74, i2c-mux@75".to_string(),
        ),
    ] {
        let bad = text.replacen(from, to, 1);
        assert_ne!(bad, text);
        let line = bad.lines().position(|l| l.contains("i2c_bus:")).expect("line") + 1;
        let f = tmp.path().join("sfp.yml");
        fs::write(&f, &bad).expect("write");
        let (code, err) = check(&f, true);
        assert_eq!(code, Some(1), "{err}");
        let at = format!("error[dt-label-missing]: {}:{line}:18: path `", f.display());
        assert!(err.contains(&at) && err.contains("is no node of xilinx/zynqmp-zcu102-rev1.0.dts"), "{at}\n{err}");
        assert!(err.contains(&want), "{want}\n{err}");
        let out = tmp.path().join("out");
        let o = run(Command::new(bin())
            .arg("gen")
            .arg(&f)
            .arg("-o")
            .arg(&out)
            .arg("--kernel-tree")
            .arg(&tree)
            .arg("--include")
            .arg(&pl));
        assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(!out.exists(), "gen wrote output for a board with a missing path");
    }
    let text = fs::read_to_string(&xxv).expect("board");
    let bad = text.replacen("rx_core_clk: { label: misc_clk_0 }", "rx_core_clk: { label: misc_clk0 }", 1);
    assert_ne!(bad, text);
    let f = tmp.path().join("xxv.yml");
    fs::write(&f, &bad).expect("write");
    let (code, err) = check(&f, false);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("label `misc_clk0` is defined neither by this board")
            && err.contains("did you mean `misc_clk_0`?"),
        "{err}"
    );
}

/// A file shorter than the DTB header (an empty file, a stray short
/// config) is named as such, not as a truncated DTB; a longer non-DTB is
/// bad magic. Both are usage errors (exit 2).
#[test]
fn short_and_foreign_files_are_not_dtbs() {
    let tmp = tempfile::tempdir().expect("tmp");
    let board = boards().join("zcu102.yml");
    for (bytes, want) in [
        (0usize, "0 bytes, too short for the 40-byte DTB header"),
        (39, "39 bytes, too short for the 40-byte DTB header"),
        (200, "bad magic"),
    ] {
        let p = tmp.path().join(format!("f{bytes}"));
        std::fs::write(&p, &"CONFIG_X=y\n".repeat(20).as_bytes()[..bytes]).expect("write");
        let (code, rep) = verify(&board, &p);
        assert_eq!(code, Some(2), "{bytes}: {rep}");
        assert!(rep.contains(want), "{bytes}: {rep}");
    }
}
