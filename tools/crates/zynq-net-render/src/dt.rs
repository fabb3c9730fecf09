//! Device-tree fragment view model: patches to existing nodes (by label),
//! nodes added under the root (SFP cages) and new PL nodes (AXI/XXV
//! Ethernet and their DMA engines). Values are typed ([`crate::dtval`]):
//! the DTS templates and `dtb verify` ([`crate::dtb`]) encode the same
//! objects.
//!
//! Binding styles (rule `dma-styles-mixed`), from Documentation/devicetree/bindings/net/
//! xlnx,axi-ethernet.yaml (mainline) and linux-xlnx's xilinx_axienet.txt:
//! mainline connects the MAC to a dmaengine (`dmas`/`dma-names`,
//! `xlnx,axi-dma-1.00.a` with channel children) or, when `dmas` is absent,
//! to the DMA node named by `axistream-connected` (6.12 axienet_probe);
//! linux-xlnx connects it with `axistream-connected` to an `xlnx,eth-dma`
//! node and, for MCDMA, carries `xlnx,num-queues` as `/bits/ 16` and
//! `xlnx,channel-ids` as hex strings. What each driver's probe reads is in
//! [`crate::probe`].

use zynq_net_model::drivers;
use zynq_net_model::hi::{HiIfaceDt, HiInterface, HiPlEthernet};
use zynq_net_model::model::{
    Arch, ClockRef, Dp83867, Driver, FixedClock, Gpio, Irq, KernelFlavour, Mdio, PcsPmaMode, Sfp, Soc,
};
use zynq_net_model::HiBoard;

use crate::dtval::{Cell, Prop};
use crate::probe;

/// Name of the bus node that holds the PL nodes a board describes itself
/// (`/zynq-net-bus`, a `simple-bus` under the root; its name matches
/// dt-schema's simple-bus node-name pattern `*-bus`).
pub const PL_BUS: &str = "zynq-net-bus";

/// A node the fragment adds (PL MAC/DMA, DMA channel, MDIO bus, PHY,
/// `fixed-link`, SFP cage).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Node {
    /// Label (`eth1_dma`), empty for none.
    pub label: String,
    /// Node name with unit address (`dma@a0000000`).
    pub name: String,
    /// Properties.
    pub props: Vec<Prop>,
    /// Child nodes.
    pub children: Vec<Node>,
    /// Comment lines written above the properties (decisions, omissions).
    pub notes: Vec<String>,
}

/// Changes to an existing node, `&label { ... };`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Patch {
    /// Node label.
    pub label: String,
    /// Properties to set.
    pub props: Vec<Prop>,
    /// Properties to delete (`/delete-property/`, `.dtsi` only: an overlay
    /// cannot delete a property of the base tree).
    pub delete: Vec<String>,
    /// Properties the overlay sets instead of deleting (`xlnx,phy-type` set
    /// to the value that matches `phy-mode`).
    pub overlay_props: Vec<Prop>,
    /// Child nodes to add (MDIO bus, `fixed-link`).
    pub children: Vec<Node>,
    /// Comment lines written above the properties (decisions, omissions).
    pub notes: Vec<String>,
}

/// The whole fragment.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DtView {
    /// Patches, in interface order.
    pub patches: Vec<Patch>,
    /// `#address-cells`/`#size-cells` of the PL bus (2 on arm64, 1 on 32-bit).
    pub cells: u32,
    /// Nodes added directly under the root (SFP cages).
    pub root_nodes: Vec<Node>,
    /// Labels given to existing nodes named by path ([`PathLabel`]).
    pub path_labels: Vec<PathLabel>,
    /// New PL nodes (empty = no bus node).
    pub pl_nodes: Vec<Node>,
    /// Name of the PL bus node ([`PL_BUS`]).
    pub bus: &'static str,
}

fn num(n: impl Into<u64>) -> Cell {
    Cell::Num(n.into())
}

fn reg(cells: u32, addr: u64, size: u64) -> Prop {
    let g = if cells == 2 {
        vec![num(addr >> 32), num(addr & 0xffff_ffff), num(size >> 32), num(size & 0xffff_ffff)]
    } else {
        vec![num(addr), num(size)]
    };
    Prop::cells("reg", 32, vec![g])
}

/// `interrupts = <0 SPI TYPE>, ...` (GIC_SPI = 0; type from the board).
fn irqs(list: &[Irq]) -> Prop {
    Prop::cells("interrupts", 32, list.iter().map(|i| vec![num(0u32), num(i.spi()), num(i.trigger().cell())]).collect())
}

fn gic_label(soc: Soc) -> &'static str {
    match soc {
        Soc::Zynq7000 => "intc",
        _ => "gic",
    }
}

fn clock_cells(c: &ClockRef) -> Vec<Cell> {
    let mut v = vec![Cell::Ref(c.label.clone())];
    v.extend(c.index.map(num));
    v
}

fn gpio_cells(g: &Gpio) -> Vec<Cell> {
    vec![Cell::Ref(g.controller.clone()), num(g.pin), num(u32::from(g.active_low))]
}

/// `clocks` + `clock-names` for the clock names a driver asks for: each name
/// takes its own entry of `by_name`, else `fallback`. Validation guarantees
/// one of them exists.
fn clock_props(
    names: &[&str],
    by_name: &std::collections::BTreeMap<String, ClockRef>,
    fallback: Option<&ClockRef>,
) -> Vec<Prop> {
    let refs: Vec<Vec<Cell>> = names.iter().filter_map(|n| by_name.get(*n).or(fallback).map(clock_cells)).collect();
    if refs.len() != names.len() {
        return Vec::new();
    }
    vec![Prop::cells("clocks", 32, refs), Prop::strs("clock-names", names)]
}

/// MAC address, phy-mode and the link properties shared by both modes.
fn link_props(i: &HiInterface, dt: &HiIfaceDt, props: &mut Vec<Prop>) {
    if let Some(m) = dt.mac {
        props.push(Prop::bytes("local-mac-address", &m.octets()));
    }
    if let Some(mode) = &dt.phy_mode {
        // The driver row's property name: gianfar trees spell it
        // phy-connection-type (replace theirs, never add a second one).
        let name = drivers::facts(i.driver).phy_mode_prop;
        props.push(Prop::str(name, mode));
    }
    if let Some(s) = dt.max_speed {
        props.push(Prop::u32("max-speed", s));
    }
    for (name, label) in
        [("phy-handle", &dt.phy_handle), ("pcs-handle", &dt.pcs_handle), ("tbi-handle", &dt.tbi_handle)]
    {
        if let Some(l) = label {
            props.push(Prop::phandle(name, l));
        }
    }
    if let Some(m) = dt.managed {
        props.push(Prop::str("managed", m.as_str()));
    }
    if let Some(s) = &dt.sfp {
        props.push(Prop::phandle("sfp", &s.label));
    }
    if let Some(c) = &dt.checksum {
        for (name, mode) in [("xlnx,txcsum", c.tx), ("xlnx,rxcsum", c.rx)] {
            if let Some(m) = mode {
                props.push(Prop::u32(name, probe::csum_value(m)));
            }
        }
    }
}

/// `mdio` and `fixed-link` children.
fn link_children(dt: &HiIfaceDt) -> Vec<Node> {
    let mut out = Vec::new();
    if let Some(m) = &dt.mdio {
        out.push(mdio_node(m));
    }
    if let Some(f) = &dt.fixed_link {
        let mut props = vec![Prop::u32("speed", f.speed)];
        if f.full_duplex {
            props.push(Prop::flag("full-duplex"));
        }
        if f.pause {
            props.push(Prop::flag("pause"));
        }
        out.push(Node {
            label: String::new(),
            name: "fixed-link".into(),
            props,
            children: Vec::new(),
            notes: Vec::new(),
        });
    }
    out
}

fn mdio_node(m: &Mdio) -> Node {
    let devices = m
        .devices
        .iter()
        .map(|d| {
            let mut props = Vec::new();
            if d.gmii_to_rgmii.is_some() {
                props.push(Prop::str("compatible", drivers::GMII2RGMII_COMPATIBLE));
            } else if let Some(c) = &d.compatible {
                props.push(Prop::str("compatible", c));
            }
            props.push(Prop::u32("reg", d.address));
            if let Some(c) = &d.gmii_to_rgmii {
                props.push(Prop::phandle("phy-handle", &c.phy_handle));
            }
            if let Some(g) = &d.reset_gpio {
                props.push(Prop::cells("reset-gpios", 32, vec![gpio_cells(g)]));
            }
            for (name, v) in [
                ("reset-assert-us", d.reset_assert_us),
                ("reset-deassert-us", d.reset_deassert_us),
                ("rx-internal-delay-ps", d.rx_internal_delay_ps),
                ("tx-internal-delay-ps", d.tx_internal_delay_ps),
            ] {
                if let Some(v) = v {
                    props.push(Prop::u32(name, v));
                }
            }
            if let Some(m) = d.pcs_pma {
                let mode = if m == PcsPmaMode::Sgmii { "sgmii" } else { "1000base-x" };
                props.push(Prop::u32("xlnx,phy-type", probe::phy_type_for_mode(mode).unwrap_or_default()));
            }
            if let Some(t) = &d.dp83867 {
                // drivers/net/phy/dp83867.c dp83867_of_init; codes from
                // include/dt-bindings/net/ti-dp83867.h (validated before).
                for (name, code) in [
                    ("ti,rx-internal-delay", t.rx_internal_delay_ps.and_then(Dp83867::delay_code)),
                    ("ti,tx-internal-delay", t.tx_internal_delay_ps.and_then(Dp83867::delay_code)),
                    ("tx-fifo-depth", t.tx_fifo_depth.and_then(Dp83867::fifo_code)),
                    ("rx-fifo-depth", t.rx_fifo_depth.and_then(Dp83867::fifo_code)),
                ] {
                    if let Some(c) = code {
                        props.push(Prop::u32(name, c));
                    }
                }
                if t.rxctrl_strap_quirk {
                    props.push(Prop::flag("ti,dp83867-rxctrl-strap-quirk"));
                }
                if t.sgmii_ref_clock_output {
                    props.push(Prop::flag("ti,sgmii-ref-clock-output-enable"));
                }
            }
            // A converter is no PHY: named as the binding's example
            // (xlnx,gmii-to-rgmii.yaml), not ethernet-phy@ (ethernet-phy.yaml).
            let kind = if d.gmii_to_rgmii.is_some() { "gmiitorgmii" } else { "ethernet-phy" };
            Node {
                label: d.label.clone(),
                name: format!("{kind}@{:x}", d.address),
                props,
                children: Vec::new(),
                notes: Vec::new(),
            }
        })
        .collect();
    Node {
        label: m.label.clone().unwrap_or_default(),
        name: "mdio".into(),
        props: vec![Prop::u32("#address-cells", 1), Prop::u32("#size-cells", 0)],
        children: devices,
        notes: Vec::new(),
    }
}

/// A label the fragment gives an existing node named by path (an
/// unlabelled I2C mux channel), so that a property can refer to it: the
/// `.dtsi` writes `LABEL: &{PATH} { };`, the overlay a fragment with
/// `target-path` whose `__overlay__` carries the label (dtc cannot fix up
/// a path reference in an overlay: `__fixups__` name labels only, and
/// fdtoverlay fails with FDT_ERR_NOTFOUND; the labelled `__overlay__`
/// gives the target node its phandle when applied).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PathLabel {
    /// The label (`zynq_net_sfp_eth1_i2c`).
    pub label: String,
    /// The node's absolute path.
    pub path: String,
    /// Name of the overlay fragment node (`fragment-zynq-net-sfp-eth1-i2c`).
    pub fragment: String,
}

/// The label an SFP cage's I2C bus given by path gets ([`PathLabel`]).
pub fn i2c_path_label(cage: &str) -> String {
    format!("zynq_net_{cage}_i2c")
}

/// A `fixed-clock` node (fixed-clock.yaml: compatible, `#clock-cells =
/// <0>`, clock-frequency; named `clock-*` as the binding's node-name
/// pattern prefers).
fn fixed_clock_node(c: &FixedClock) -> Node {
    Node {
        label: c.label.clone(),
        name: format!("clock-{}", c.label.to_ascii_lowercase().replace('_', "-")),
        props: vec![
            Prop::str("compatible", "fixed-clock"),
            Prop::u32("#clock-cells", 0),
            Prop::u32("clock-frequency", c.frequency),
        ],
        children: Vec::new(),
        notes: Vec::new(),
    }
}

/// The SFP cage node (sff,sfp.yaml), when the board gives its I2C bus.
fn sfp_node(s: &Sfp, labels: &mut Vec<PathLabel>) -> Option<Node> {
    let bus = s.i2c_bus.as_ref()?;
    let bus_label = if bus.starts_with('/') {
        let label = i2c_path_label(&s.label);
        labels.push(PathLabel {
            fragment: format!("fragment-{}", label.replace('_', "-")),
            label: label.clone(),
            path: bus.clone(),
        });
        label
    } else {
        bus.clone()
    };
    let mut props = vec![Prop::str("compatible", "sff,sfp"), Prop::phandle("i2c-bus", &bus_label)];
    if let Some(mw) = s.maximum_power_milliwatt {
        // sfp.c sfp_probe: device_property_read_u32 (validated >= 1000).
        props.push(Prop::u32("maximum-power-milliwatt", mw));
    }
    for (name, g) in [
        ("mod-def0-gpios", &s.mod_def0_gpio),
        ("los-gpios", &s.los_gpio),
        ("tx-fault-gpios", &s.tx_fault_gpio),
        ("tx-disable-gpios", &s.tx_disable_gpio),
    ] {
        if let Some(g) = g {
            props.push(Prop::cells(name, 32, vec![gpio_cells(g)]));
        }
    }
    // Named after its label, as the port names it (`sfp = <&label>`).
    let name = s.label.replace('_', "-");
    Some(Node { label: s.label.clone(), name, props, children: Vec::new(), notes: Vec::new() })
}

/// `xlnx,phy-type` handling for a patched AXI/XXV node with a `phy_mode`:
/// axienet_probe reads `xlnx,phy-type` first and, when present, ignores
/// `phy-mode` (mainline 6.12 xilinx_axienet_main.c; linux-xlnx alike), and a
/// DTG pl.dtsi writes it. The `.dtsi` deletes it; the overlay, which cannot
/// delete, sets it to the value meaning the same mode where one exists.
fn phy_type_fix(i: &HiInterface, dt: &HiIfaceDt, p: &mut Patch) {
    let Some(mode) = &dt.phy_mode else { return };
    if !i.driver.is_axi() {
        return;
    }
    p.delete.push("xlnx,phy-type".into());
    match probe::phy_type_for_mode(mode) {
        Some(v) => p.overlay_props.push(Prop::u32("xlnx,phy-type", v)),
        // XXV nodes never carry it (the Xilinx generator writes it for the
        // 1G MAC only): the .dtsi still deletes it, without a note.
        None if i.driver.is_xxv() => {}
        None => p.notes.push(format!(
            "overlay: xlnx,phy-type has no value for {mode}; if the base tree carries it, only the .dtsi (which deletes it) makes the driver read phy-mode"
        )),
    }
}

fn pl_nodes(b: &HiBoard, i: &HiInterface, dt: &HiIfaceDt, n: &HiPlEthernet, cells: u32) -> Vec<Node> {
    let gic = gic_label(b.board.soc);
    let d = &n.dma;
    let flavour = b.board.kernel;
    let layout = probe::irq_layout(i.driver, flavour, n);
    let mut dma_props = Vec::new();
    let mut children = Vec::new();
    let mut eth = Vec::new();
    if n.dmas != Some(true) {
        // axistream-connected: linux-xlnx xlnx,eth-dma (AXI DMA or MCDMA), or
        // mainline 6.12 reading the DMA node's reg and interrupts 0 (TX), 1 (RX).
        dma_props.push(Prop::str("compatible", "xlnx,eth-dma"));
        dma_props.push(reg(cells, d.reg, d.size));
        dma_props.push(Prop::phandle("interrupt-parent", gic));
        dma_props.push(irqs(&d.interrupts));
        if !layout.dma_names.is_empty() {
            dma_props.push(Prop::strs("interrupt-names", &layout.dma_names));
        }
        if flavour == KernelFlavour::LinuxXlnx {
            // axienet_dma_probe / the MCDMA probe: of_property_read_u8.
            dma_props.push(Prop::cells("xlnx,addrwidth", 8, vec![vec![num(d.addrwidth)]]));
            // MCDMA only: validation requires num_queues for xxv-mcdma and
            // refuses it for every other driver.
            if let Some(q) = n.num_queues {
                dma_props.push(Prop::cells("xlnx,num-queues", 16, vec![vec![num(q)]]));
            }
        }
        if d.include_dre {
            dma_props.push(Prop::flag("xlnx,include-dre"));
        }
        dma_props.extend(clock_props(probe::DMA_CLOCKS_ETH, &d.clocks, n.clock.as_ref()));
        let compat = if i.driver.is_xxv() { "xlnx,xxv-ethernet-1.0" } else { "xlnx,axi-ethernet-1.00.a" };
        mac_head(&mut eth, compat, i.driver, flavour, n, gic, cells);
        push_irqs(&mut eth, &layout.eth);
        eth.push(Prop::phandle("axistream-connected", &d.label));
        if let Some(q) = n.num_queues {
            eth.push(Prop::cells("xlnx,num-queues", 16, vec![vec![num(q)]]));
        }
        if !n.channel_ids.is_empty() {
            eth.push(Prop::strs("xlnx,channel-ids", &n.channel_ids));
        }
    } else {
        // Mainline: xlnx,axi-dma-1.00.a dmaengine with MM2S/S2MM channel
        // children (dma/xilinx/xilinx_dma.txt): the interrupts are per
        // channel, in the children; `dmas = <&dma 0>, <&dma 1>` selects
        // channel 0 (MM2S, TX) and 1 (S2MM, RX) in xilinx_dma's of_xlate.
        dma_props.push(Prop::str("compatible", "xlnx,axi-dma-1.00.a"));
        dma_props.push(reg(cells, d.reg, d.size));
        dma_props.push(Prop::u32("#dma-cells", 1));
        dma_props.push(Prop::phandle("interrupt-parent", gic));
        dma_props.extend(clock_props(probe::DMA_CLOCKS_DMAENGINE, &d.clocks, n.clock.as_ref()));
        dma_props.push(Prop::u32("xlnx,addrwidth", d.addrwidth));
        // Channel children are named without a unit address: they have no
        // `reg` (xilinx_dma.txt's example uses dma-channel@ADDR, which dtc
        // flags with unit_address_vs_reg); xilinx_dma matches them by compatible.
        // One interrupt per channel child, MM2S then S2MM (validation: exactly
        // two; xilinx_dma_chan_probe reads of_irq_get(child, 0)).
        for (k, (compat, chan)) in
            [("xlnx,axi-dma-mm2s-channel", "mm2s"), ("xlnx,axi-dma-s2mm-channel", "s2mm")].iter().enumerate()
        {
            let mut props = vec![Prop::str("compatible", compat)];
            props.push(irqs(&d.interrupts[k..=k]));
            props.push(Prop::u32("xlnx,datawidth", d.datawidth));
            if d.include_dre {
                props.push(Prop::flag("xlnx,include-dre"));
            }
            children.push(Node {
                label: String::new(),
                name: format!("dma-channel-{chan}"),
                props,
                children: Vec::new(),
                notes: Vec::new(),
            });
        }
        mac_head(&mut eth, "xlnx,axi-ethernet-1.00.a", i.driver, flavour, n, gic, cells);
        push_irqs(&mut eth, &layout.eth);
        eth.push(Prop::cells(
            "dmas",
            32,
            vec![vec![Cell::Ref(d.label.clone()), num(0u32)], vec![Cell::Ref(d.label.clone()), num(1u32)]],
        ));
        eth.push(Prop::strs("dma-names", &["tx_chan0", "rx_chan0"]));
    }
    eth.push(Prop::u32("xlnx,rxmem", n.rxmem));
    link_props(i, dt, &mut eth);
    vec![
        Node {
            label: d.label.clone(),
            name: format!("dma@{:x}", d.reg),
            props: dma_props,
            children,
            notes: Vec::new(),
        },
        Node {
            label: dt.label.clone(),
            name: format!("ethernet@{:x}", n.reg),
            props: eth,
            children: link_children(dt),
            notes: Vec::new(),
        },
    ]
}

fn push_irqs(eth: &mut Vec<Prop>, list: &[(Irq, String)]) {
    if list.is_empty() {
        return;
    }
    let v: Vec<Irq> = list.iter().map(|(i, _)| *i).collect();
    eth.push(irqs(&v));
    if list.iter().any(|(_, n)| !n.is_empty()) {
        let names: Vec<&str> = list.iter().map(|(_, n)| n.as_str()).collect();
        eth.push(Prop::strs("interrupt-names", &names));
    }
}

/// The MAC node's first properties, the same in both binding styles:
/// compatible, reg, interrupt parent and the clocks the driver asks for.
/// On linux-xlnx with `axistream-connected`, the DMA clocks go on the MAC
/// node too when they are not the MAC's own (axienet_dma_clk_init reads
/// them from the Ethernet device; drivers::mac_clock_names_written).
fn mac_head(
    eth: &mut Vec<Prop>,
    compat: &str,
    driver: Driver,
    flavour: KernelFlavour,
    n: &HiPlEthernet,
    gic: &str,
    cells: u32,
) {
    eth.push(Prop::str("compatible", compat));
    eth.push(reg(cells, n.reg, n.size));
    eth.push(Prop::phandle("interrupt-parent", gic));
    let names = drivers::mac_clock_names_written(driver, flavour, n.clock_inputs());
    let own = probe::mac_clock_names(driver);
    let refs: Vec<Vec<Cell>> = names
        .iter()
        .filter_map(|name| {
            let map = if own.contains(name) { &n.clocks } else { &n.dma.clocks };
            map.get(*name).or(n.clock.as_ref()).map(clock_cells)
        })
        .collect();
    if refs.len() == names.len() {
        eth.push(Prop::cells("clocks", 32, refs));
        eth.push(Prop::strs("clock-names", &names));
    }
}

/// Builds the fragment view of a board. Depends only on `interfaces[].dt`,
/// drivers, SoC, kernel flavour and arch: never on runtime tuning.
pub fn view(b: &HiBoard) -> DtView {
    let cells = if b.board.arch == Arch::Arm64 { 2 } else { 1 };
    let mut patches = Vec::new();
    let mut pl = Vec::new();
    let mut root = Vec::new();
    let mut path_labels = Vec::new();
    for i in &b.interfaces {
        let Some(dt) = &i.dt else { continue };
        root.extend(dt.fixed_clocks.iter().map(fixed_clock_node));
        if let Some(n) = dt.sfp.as_ref().and_then(|s| sfp_node(s, &mut path_labels)) {
            root.push(n);
        }
        match &dt.node {
            Some(n) => pl.extend(pl_nodes(b, i, dt, n, cells)),
            None => {
                let mut p = Patch {
                    label: dt.label.clone(),
                    props: vec![Prop::str("status", "okay")],
                    delete: Vec::new(),
                    overlay_props: Vec::new(),
                    children: link_children(dt),
                    notes: Vec::new(),
                };
                link_props(i, dt, &mut p.props);
                phy_type_fix(i, dt, &mut p);
                if dt.fixed_link.is_some() {
                    // A legacy 5-cell `fixed-link` property (p1020rdb-pd.dts) beside
                    // our node: of_phy_is_fixed_link takes the node first; the
                    // .dtsi also removes the property.
                    p.delete.push("fixed-link".into());
                }
                for d in &dt.delete {
                    if !p.delete.contains(&d.0) {
                        p.delete.push(d.0.clone());
                    }
                }
                patches.push(p);
            }
        }
    }
    DtView { patches, cells, root_nodes: root, path_labels, pl_nodes: pl, bus: PL_BUS }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{artifact, repo_text};

    /// The generated `dt/zynq-net.dtsi` of a board text.
    fn dtsi_of(text: &str) -> String {
        let dtsi = artifact(text, "dt/zynq-net.dtsi").expect("dt/zynq-net.dtsi");
        String::from_utf8_lossy(&dtsi.contents).into_owned()
    }

    /// The PL node's `interrupt-parent` is the SoC's GIC by the label its
    /// kernel dtsi gives it: `intc: interrupt-controller@f8f01000` in
    /// arch/arm/boot/dts/xilinx/zynq-7000.dtsi, `gic:
    /// interrupt-controller@f9010000` in arch/arm64/boot/dts/xilinx/zynqmp.dtsi
    /// (Linux 6.12). A wrong label fails dtc on the real board's tree.
    #[test]
    fn pl_interrupts_go_to_the_socs_gic_label() {
        // ZC702 with a 1G AXI Ethernet in the PL: IRQ_F2P SPIs 29-31 and
        // FCLK0 (clkc output 15, zynq-7000.dtsi clock-output-names); the PHY
        // label is zynq-zc702.dts's (only the GIC label is read here).
        let pl = "  - name: eth1\n    driver: axienet\n    queues: { rx: 1, tx: 1 }\n    dt:\n      label: axi_ethernet_0\n      \
                  mac: \"00:0a:35:00:01:23\"\n      phy_mode: rgmii-id\n      max_speed: 1000\n      phy_handle: ethernet_phy\n      \
                  node:\n        reg: 0x41000000\n        size: 0x40000\n        interrupts: [29]\n        \
                  clock: { label: clkc, index: 15 }\n        rxmem: 0x1000\n        axistream_connected: true\n        \
                  dma:\n          label: axi_dma_0\n          reg: 0x40400000\n          size: 0x10000\n          \
                  interrupts: [30, 31]\n          include_dre: true\n          datawidth: 32\n          addrwidth: 32\n";
        let zc702 = repo_text("meta-zynq-net/boards/zc702.yml");
        let zc702 = zc702.replacen("\nbench:", &format!("{pl}\nbench:"), 1);
        let zcu102 = repo_text("tests/kernel/fixtures/zcu102-axidma.yml");
        for (text, want, not) in [(zc702, "<&intc>", "<&gic>"), (zcu102, "<&gic>", "<&intc>")] {
            let dtsi = dtsi_of(&text);
            assert!(dtsi.contains(&format!("interrupt-parent = {want};")) && !dtsi.contains(not), "{dtsi}");
        }
    }

    /// A GPIO is `<&controller pin flags>`, flags 1 for GPIO_ACTIVE_LOW
    /// (include/dt-bindings/gpio/gpio.h; Documentation/devicetree/bindings/
    /// gpio/gpio.txt): the PHY reset of the EMIO GEM fixture, as written
    /// and made active low.
    #[test]
    fn gpios_are_controller_pin_and_flags() {
        let text = repo_text("tests/kernel/fixtures/zcu102-gem-emio.yml");
        let low = text.replacen("pin: 78 }", "pin: 78, active_low: true }", 1);
        assert_ne!(low, text);
        for (text, want) in [(text, "reset-gpios = <&gpio 78 0>;"), (low, "reset-gpios = <&gpio 78 1>;")] {
            let dtsi = dtsi_of(&text);
            assert!(dtsi.contains(want), "{want}\n{dtsi}");
        }
    }

    /// `dt.delete` lists properties of the design's node to drop: each is
    /// one `/delete-property/` in the `.dtsi`, once even when the generator
    /// deletes it too. The 1G SFP design's pl.dtsi carries `phy-handle` to
    /// the PCS/PMA (fixtures/pl-1g-sfp.dtsi), which mainline 6.12
    /// axienet_probe takes for the PCS only without `pcs-handle`; with
    /// `pcs_handle` a user deletes it. `xlnx,phy-type` is deleted already
    /// (phy_mode set: axienet_probe reads it first).
    #[test]
    fn delete_lists_drop_each_property_once() {
        let text = repo_text("tests/kernel/fixtures/zcu102-1g-sfp.yml");
        let del = text.replacen(
            "      label: axi_ethernet_0\n",
            "      label: axi_ethernet_0\n      delete: [phy-handle, \"xlnx,phy-type\"]\n",
            1,
        );
        assert_ne!(del, text);
        let count = |dtsi: &str, prop: &str| dtsi.matches(&format!("/delete-property/ {prop};")).count();
        let plain = dtsi_of(&text);
        assert_eq!((count(&plain, "phy-handle"), count(&plain, "xlnx,phy-type")), (0, 1), "{plain}");
        let dtsi = dtsi_of(&del);
        assert_eq!((count(&dtsi, "phy-handle"), count(&dtsi, "xlnx,phy-type")), (1, 1), "{dtsi}");
    }

    /// MCDMA channel ids as the Xilinx generator writes them ("1".."a"):
    /// linux-xlnx's kstrtou16(s, 16) reads "a" as 10, so the channel's
    /// interrupts are named `mm2s_ch10_introut` (axienet_mcdma_tx_probe),
    /// and the ids are written as given.
    #[test]
    fn mcdma_channel_ids_without_0x_name_their_interrupts() {
        let text = repo_text("meta-zynq-net/boards/zcu102.yml");
        let dtg = text.replacen("channel_ids: [\"0x1\", \"0x2\"]", "channel_ids: [\"1\", \"a\"]", 1);
        assert_ne!(dtg, text);
        let dtsi = dtsi_of(&dtg);
        for want in [
            "xlnx,channel-ids = \"1\", \"a\";",
            "\"mm2s_ch10_introut\"",
            "\"s2mm_ch10_introut\"",
            "\"mm2s_ch1_introut\"",
        ] {
            assert!(dtsi.contains(want), "{want}\n{dtsi}");
        }
        assert!(!dtsi.contains("ch2_introut"), "{dtsi}");
    }

    /// linux-xlnx axienet_dma_clk_init reads the DMA clocks from the
    /// Ethernet device: a DMA clock that is not the MAC's goes on the MAC
    /// node too (as the Xilinx generator writes them); with one clock for
    /// everything, the MAC node keeps its own names only.
    #[test]
    fn linux_xlnx_dma_clocks_go_on_the_mac_when_they_differ() {
        let text = repo_text("tests/kernel/fixtures/zcu102-axi-1g-xlnx.yml");
        let own = text.replacen(
            "          addrwidth: 32\n",
            "          addrwidth: 32\n          clocks: { m_axi_sg_aclk: { label: zynqmp_clk, index: 72 } }\n",
            1,
        );
        assert_ne!(own, text);
        let mac = |dtsi: &str| {
            let at = dtsi.find("ethernet@a0040000 {").unwrap_or_else(|| panic!("{dtsi}"));
            dtsi[at..at + dtsi[at..].find("};").expect("node end")].to_string()
        };
        let same = mac(&dtsi_of(&text));
        assert!(same.contains("clock-names = \"s_axi_lite_clk\", \"axis_clk\", \"ref_clk\", \"mgt_clk\";"), "{same}");
        let differ = mac(&dtsi_of(&own));
        assert!(
            differ.contains("clock-names = \"s_axi_lite_clk\", \"axis_clk\", \"ref_clk\", \"mgt_clk\", \"m_axi_sg_aclk\", \"m_axi_mm2s_aclk\", \"m_axi_s2mm_aclk\";")
                && differ.contains("<&zynqmp_clk 72>, <&zynqmp_clk 71>, <&zynqmp_clk 71>;"),
            "{differ}"
        );
    }

    /// A dmaengine AXI DMA (mainline `dmas`): one channel child per
    /// direction, each with its one interrupt, MM2S first (xilinx_dma.txt;
    /// xilinx_dma_chan_probe: of_irq_get(child, 0)). The design fixture
    /// lists GIC SPI 105 (MM2S) then 106 (S2MM), level.
    #[test]
    fn dmaengine_channels_take_one_interrupt_each() {
        let text = repo_text("tests/kernel/fixtures/zcu102-axidma.yml");
        let dtsi = dtsi_of(&text);
        let child = |name: &str| {
            let at = dtsi.find(&format!("{name} {{")).unwrap_or_else(|| panic!("{name}\n{dtsi}"));
            dtsi[at..at + dtsi[at..].find("};").expect("node end")].to_string()
        };
        let (mm2s, s2mm) = (child("dma-channel-mm2s"), child("dma-channel-s2mm"));
        assert!(mm2s.contains("interrupts = <0 105 4>;") && !mm2s.contains("106"), "{mm2s}");
        assert!(s2mm.contains("interrupts = <0 106 4>;") && !s2mm.contains("105"), "{s2mm}");
    }
}
