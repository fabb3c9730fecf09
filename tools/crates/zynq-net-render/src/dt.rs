//! Device-tree fragment view model: patches to existing nodes (by label)
//! and new PL nodes (AXI/XXV Ethernet and their DMA engines).
//!
//! Binding styles (case C5), from Documentation/devicetree/bindings/net/
//! xlnx,axi-ethernet.yaml (mainline) and linux-xlnx's xilinx_axienet.txt:
//! mainline connects the MAC to a dmaengine (`dmas`/`dma-names`,
//! `xlnx,axi-dma-1.00.a` with channel children); linux-xlnx connects it with
//! `axistream-connected` to an `xlnx,eth-dma` node and, for MCDMA, carries
//! `xlnx,num-queues` as `/bits/ 16` and `xlnx,channel-ids` as hex strings.

use zynq_net_model::model::{Arch, Board, Driver, IfaceDt, Interface, PlEthernet, Soc};
use zynq_net_model::validate::parse_mac;

/// Name of the bus node that holds the PL nodes a board describes itself
/// (`/zynq-net-bus`, a `simple-bus` under the root; its name matches
/// dt-schema's simple-bus node-name pattern `*-bus`).
pub const PL_BUS: &str = "zynq-net-bus";

/// A property line without the trailing `;` (`phy-mode = "rgmii-id"`).
pub type Prop = String;

/// Changes to an existing node, `&label { ... };`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Patch {
    /// Node label.
    pub label: String,
    /// Properties to set.
    pub props: Vec<Prop>,
    /// Comment lines written above the properties (decisions, omissions).
    pub notes: Vec<String>,
}

/// A new node.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Node {
    /// Label (`eth1_dma`).
    pub label: String,
    /// Node name with unit address (`dma@a0000000`).
    pub name: String,
    /// Properties.
    pub props: Vec<Prop>,
    /// Child nodes (DMA channels), one level.
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
    /// New PL nodes (empty = no bus node).
    pub pl_nodes: Vec<Node>,
    /// Name of the PL bus node ([`PL_BUS`]).
    pub bus: &'static str,
}

fn mac_prop(mac: &str) -> Option<Prop> {
    let m = parse_mac(mac)?;
    let bytes: Vec<String> = m.iter().map(|b| format!("{b:02x}")).collect();
    Some(format!("local-mac-address = [{}]", bytes.join(" ")))
}

fn reg(cells: u32, addr: u64, size: u64) -> Prop {
    if cells == 2 {
        format!("reg = <0x{:x} 0x{:x} 0x{:x} 0x{:x}>", addr >> 32, addr & 0xffff_ffff, size >> 32, size & 0xffff_ffff)
    } else {
        format!("reg = <0x{addr:x} 0x{size:x}>")
    }
}

fn irqs(list: &[u32]) -> Prop {
    // GIC: <GIC_SPI n IRQ_TYPE_LEVEL_HIGH> = <0 n 4>.
    let v: Vec<String> = list.iter().map(|n| format!("<0 {n} 4>")).collect();
    format!("interrupts = {}", v.join(", "))
}

fn gic_label(soc: Soc) -> &'static str {
    match soc {
        Soc::Zynq7000 => "intc",
        _ => "gic",
    }
}

fn clocks(n: &PlEthernet, count: usize) -> Prop {
    let one = format!("<&{} {}>", n.clock.label, n.clock.index);
    format!("clocks = {}", vec![one; count].join(", "))
}

/// Clock names the MAC driver asks for. AXI 1G/2.5G (xlnx,axi-ethernet.yaml
/// and axienet_probe): `s_axi_lite_clk`, `axis_clk`, `ref_clk`, `mgt_clk`;
/// XXV in linux-xlnx (xxvenet_clk_init): `s_axi_aclk`, `rx_core_clk`,
/// `dclk` (linux-xlnx's yaml only lists the 1G names; the driver wins, or
/// the clocks stay unclaimed and clk_disable_unused gates them).
/// The board names one PL clock; every input is fed from it.
fn mac_clock_names(driver: Driver) -> &'static [&'static str] {
    if driver == Driver::XxvMcdma {
        &["s_axi_aclk", "rx_core_clk", "dclk"]
    } else {
        // The binding lists four clocks without minItems: dt-schema wants all four.
        &["s_axi_lite_clk", "axis_clk", "ref_clk", "mgt_clk"]
    }
}

fn quoted(list: &[&str]) -> String {
    list.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(", ")
}

/// Why an AXI/XXV Ethernet node gets no `local-mac-address`.
fn axi_mac_note(mac: &str) -> String {
    format!("local-mac-address ({mac}) not written: xlnx,axi-ethernet.yaml (additionalProperties: false) does not allow it; set the MAC at boot (docs/kernel-fragments.md)")
}

/// MAC and phy-mode. AXI 1G/XXV Ethernet (`axi`): xlnx,axi-ethernet.yaml,
/// mainline 6.12 and linux-xlnx alike, has `additionalProperties: false`
/// without `local-mac-address`, so dt-schema rejects it there; the MAC is
/// left out of those nodes (with a note) instead of adding a schema error.
fn common_mac_props(dt: &IfaceDt, axi: bool, props: &mut Vec<Prop>, notes: &mut Vec<String>) {
    if let Some(p) = dt.mac.as_deref().and_then(mac_prop) {
        if axi {
            notes.push(axi_mac_note(dt.mac.as_deref().unwrap_or_default()));
        } else {
            props.push(p);
        }
    }
    if let Some(mode) = &dt.phy_mode {
        props.push(format!("phy-mode = \"{mode}\""));
    }
}

/// The MAC node's first properties, the same in both binding styles:
/// compatible, reg, interrupts (when given) and the clocks the driver asks for.
fn mac_head(eth: &mut Vec<Prop>, compat: &str, driver: Driver, n: &PlEthernet, gic: &str, cells: u32) {
    eth.push(format!("compatible = \"{compat}\""));
    eth.push(reg(cells, n.reg, n.size));
    if !n.interrupts.is_empty() {
        eth.push(format!("interrupt-parent = <&{gic}>"));
        eth.push(irqs(&n.interrupts));
    }
    let names = mac_clock_names(driver);
    eth.push(clocks(n, names.len()));
    eth.push(format!("clock-names = {}", quoted(names)));
}

fn pl_nodes(b: &Board, i: &Interface, dt: &IfaceDt, n: &PlEthernet, cells: u32) -> Vec<Node> {
    let gic = gic_label(b.board.soc);
    let d = &n.dma;
    let mut dma_props = Vec::new();
    let mut children = Vec::new();
    let mut eth = Vec::new();
    let half = d.interrupts.len() / 2;
    if n.axistream_connected == Some(true) {
        // linux-xlnx: xlnx,eth-dma (AXI DMA or MCDMA feeding axienet).
        dma_props.push("compatible = \"xlnx,eth-dma\"".to_string());
        dma_props.push(reg(cells, d.reg, d.size));
        dma_props.push(format!("interrupt-parent = <&{gic}>"));
        dma_props.push(irqs(&d.interrupts));
        if i.driver == Driver::XxvMcdma {
            let names: Vec<String> = (0..d.interrupts.len())
                .map(|k| if k < half { format!("mm2s_ch{}_introut", k + 1) } else { format!("s2mm_ch{}_introut", k - half + 1) })
                .collect();
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            dma_props.push(format!("interrupt-names = {}", quoted(&refs)));
        }
        dma_props.push(format!("xlnx,addrwidth = /bits/ 8 <0x{:x}>", d.addrwidth));
        if d.include_dre {
            dma_props.push("xlnx,include-dre".to_string());
        }
        let compat = if i.driver == Driver::XxvMcdma { "xlnx,xxv-ethernet-1.0" } else { "xlnx,axi-ethernet-1.00.a" };
        mac_head(&mut eth, compat, i.driver, n, gic, cells);
        eth.push(format!("axistream-connected = <&{}>", d.label));
        if let Some(q) = n.num_queues {
            eth.push(format!("xlnx,num-queues = /bits/ 16 <0x{q:x}>"));
        }
        if !n.channel_ids.is_empty() {
            let refs: Vec<&str> = n.channel_ids.iter().map(String::as_str).collect();
            eth.push(format!("xlnx,channel-ids = {}", quoted(&refs)));
        }
    } else {
        // Mainline: xlnx,axi-dma-1.00.a dmaengine with MM2S/S2MM channel
        // children (dma/xilinx/xilinx_dma.txt): the interrupts are per
        // channel, in the children; `dmas = <&dma 0>, <&dma 1>` selects
        // channel 0 (MM2S, TX) and 1 (S2MM, RX) in xilinx_dma's of_xlate.
        dma_props.push("compatible = \"xlnx,axi-dma-1.00.a\"".to_string());
        dma_props.push(reg(cells, d.reg, d.size));
        dma_props.push("#dma-cells = <1>".to_string());
        dma_props.push(format!("interrupt-parent = <&{gic}>"));
        dma_props.push(clocks(n, 3));
        dma_props.push(format!("clock-names = {}", quoted(&["s_axi_lite_aclk", "m_axi_mm2s_aclk", "m_axi_s2mm_aclk"])));
        dma_props.push(format!("xlnx,addrwidth = <0x{:x}>", d.addrwidth));
        // Channel children are named without a unit address: they have no
        // `reg` (xilinx_dma.txt's example uses dma-channel@ADDR, which dtc
        // flags with unit_address_vs_reg); xilinx_dma matches them by compatible.
        for (k, (compat, chan)) in [("xlnx,axi-dma-mm2s-channel", "mm2s"), ("xlnx,axi-dma-s2mm-channel", "s2mm")].iter().enumerate() {
            let mut props = vec![format!("compatible = \"{compat}\"")];
            let irq_slice = if k == 0 { &d.interrupts[..half.max(1)] } else { &d.interrupts[half.max(1)..] };
            props.push(irqs(irq_slice));
            props.push(format!("xlnx,datawidth = <0x{:x}>", d.datawidth));
            if d.include_dre {
                props.push("xlnx,include-dre".to_string());
            }
            children.push(Node { label: String::new(), name: format!("dma-channel-{chan}"), props, children: Vec::new(), notes: Vec::new() });
        }
        mac_head(&mut eth, "xlnx,axi-ethernet-1.00.a", i.driver, n, gic, cells);
        eth.push(format!("dmas = <&{0} 0>, <&{0} 1>", d.label));
        eth.push(format!("dma-names = {}", quoted(&["tx_chan0", "rx_chan0"])));
    }
    if let Some(ph) = &n.phy_handle {
        eth.push(format!("phy-handle = <&{ph}>"));
    }
    eth.push(format!("xlnx,rxmem = <0x{:x}>", n.rxmem));
    let mut notes = Vec::new();
    common_mac_props(dt, true, &mut eth, &mut notes);
    vec![
        Node { label: d.label.clone(), name: format!("dma@{:x}", d.reg), props: dma_props, children, notes: Vec::new() },
        Node { label: dt.label.clone(), name: format!("ethernet@{:x}", n.reg), props: eth, children: Vec::new(), notes },
    ]
}

/// Builds the fragment view of a board. Depends only on `interfaces[].dt`,
/// drivers, SoC and arch: never on runtime tuning.
pub fn view(b: &Board) -> DtView {
    let cells = if b.board.arch == Arch::Arm64 { 2 } else { 1 };
    let mut patches = Vec::new();
    let mut pl = Vec::new();
    for i in &b.interfaces {
        let Some(dt) = &i.dt else { continue };
        match &dt.node {
            Some(n) => pl.extend(pl_nodes(b, i, dt, n, cells)),
            None => {
                let mut props = vec!["status = \"okay\"".to_string()];
                let mut notes = Vec::new();
                let axi = matches!(i.driver, Driver::Axienet | Driver::XxvMcdma);
                common_mac_props(dt, axi, &mut props, &mut notes);
                patches.push(Patch { label: dt.label.clone(), props, notes });
            }
        }
    }
    DtView { patches, cells, pl_nodes: pl, bus: PL_BUS }
}
