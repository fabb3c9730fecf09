//! What each Ethernet driver's probe reads from the device tree, per kernel
//! flavour, as data: the generator writes nodes from these facts and
//! `dtb verify` ([`crate::dtb`]) checks compiled trees against them ("would
//! this node probe on linux-xlnx?").
//!
//! Sources:
//! - mainline 6.12: Debian `linux-source-6.12`,
//!   drivers/net/ethernet/xilinx/xilinx_axienet_main.c `axienet_probe`,
//!   drivers/net/ethernet/freescale/gianfar.c `gfar_of_init`/`gfar_parse_group`,
//!   drivers/net/ethernet/cadence/macb_main.c `macb_probe`.
//! - linux-xlnx: Xilinx/linux-xlnx xilinx_axienet_main.c at commit
//!   00521735b8a3 (the 6.12-based 2025.x tree; the rel-v2024.2 tree, 6.6
//!   SRCREV 4303ca7c18ba, is not readable here: its probe has the same
//!   shape for every row below except, possibly, the phy-handle rule for
//!   RGMII ports) and xilinx_axienet_mcdma.c `axienet_mcdma_{tx,rx}_probe`.

use zynq_net_model::drivers::ProbeTable;
use zynq_net_model::hi::HiPlEthernet;
use zynq_net_model::model::{CsumMode, Driver, Irq, KernelFlavour};

pub use zynq_net_model::drivers::{DMA_CLOCKS_DMAENGINE, DMA_CLOCKS_ETH, MAC_CLOCKS_1G, MAC_CLOCKS_XXV};

/// The clock names the MAC driver asks for.
pub fn mac_clock_names(driver: Driver) -> &'static [&'static str] {
    if driver.is_xxv() {
        MAC_CLOCKS_XXV
    } else {
        MAC_CLOCKS_1G
    }
}

/// `xlnx,txcsum`/`xlnx,rxcsum` value (axienet_probe: 1 partial, 2 full).
pub fn csum_value(m: CsumMode) -> u32 {
    match m {
        CsumMode::None => 0,
        CsumMode::Partial => 1,
        CsumMode::Full => 2,
    }
}

/// `xlnx,phy-type` values axienet_probe maps (xilinx_axienet.h
/// XAE_PHY_TYPE_*): 0 mii, 1 gmii, 3 rgmii-id (RGMII 2.0), 4 sgmii,
/// 5 1000base-x; linux-xlnx also 7 usxgmii. Any other value: mainline fails
/// probe (-EINVAL), linux-xlnx silently leaves the mode unset.
pub const PHY_TYPES: &[(u32, &str)] =
    &[(0, "mii"), (1, "gmii"), (3, "rgmii-id"), (4, "sgmii"), (5, "1000base-x"), (7, "usxgmii")];

/// The `xlnx,phy-type` value meaning `mode`, if one exists.
pub fn phy_type_for_mode(mode: &str) -> Option<u32> {
    PHY_TYPES.iter().find(|(_, m)| *m == mode).map(|(v, _)| *v)
}

/// The mode an `xlnx,phy-type` value gives, per flavour.
pub fn mode_for_phy_type(v: u32, flavour: KernelFlavour) -> Option<&'static str> {
    if v == 7 && flavour != KernelFlavour::LinuxXlnx {
        return None;
    }
    PHY_TYPES.iter().find(|(t, _)| *t == v).map(|(_, m)| *m)
}

/// Where the interrupts of a PL port go and what they are called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IrqLayout {
    /// Interrupts on the Ethernet node, with names (empty names: unnamed).
    pub eth: Vec<(Irq, String)>,
    /// `interrupt-names` of the DMA node (empty: unnamed).
    pub dma_names: Vec<String>,
}

/// The interrupt layout a port's driver reads:
/// - MAC core IRQ: `platform_get_irq(pdev, 0)` on the Ethernet node (index
///   0, optional, both flavours), named `mac_irq` as generated trees do.
/// - linux-xlnx MCDMA: `platform_get_irq_byname(pdev, "mm2s_ch%d_introut")`
///   and `"s2mm_ch%d_introut"` with %d the channel id, on the **Ethernet**
///   node (axienet_mcdma_tx_probe/rx_probe); the DMA node carries them too,
///   as the Xilinx device-tree generator writes.
/// - AXI DMA through `axistream-connected` (linux-xlnx axienet_dma_probe,
///   mainline 6.12 axienet_probe): `irq_of_parse_and_map(dma, 0)` TX and
///   `(dma, 1)` RX on the DMA node, names unused (`mm2s_introut`,
///   `s2mm_introut` as generated).
///
/// The MCDMA channel ids are the node's resolved values
/// ([`HiPlEthernet::channel_ids`]).
pub fn irq_layout(driver: Driver, flavour: KernelFlavour, n: &HiPlEthernet) -> IrqLayout {
    let mut eth: Vec<(Irq, String)> = n.interrupts.iter().take(1).map(|i| (*i, "mac_irq".to_string())).collect();
    let d = &n.dma.interrupts;
    if driver == Driver::XxvMcdma && flavour == KernelFlavour::LinuxXlnx {
        let half = d.len() / 2;
        let mut names = Vec::new();
        for (k, irq) in d.iter().enumerate() {
            let (dir, idx) = if k < half { ("mm2s", k) } else { ("s2mm", k - half) };
            let id = n.channel_ids.get(idx).map_or(idx + 1, |c| usize::from(c.value()));
            let name = format!("{dir}_ch{id}_introut");
            eth.push((*irq, name.clone()));
            names.push(name);
        }
        return IrqLayout { eth, dma_names: names };
    }
    if n.dmas == Some(true) {
        // dmaengine: the channel children carry the DMA interrupts.
        eth.iter_mut().for_each(|e| e.1.clear());
        return IrqLayout { eth, dma_names: Vec::new() };
    }
    let names = if d.len() == 2 { vec!["mm2s_introut".to_string(), "s2mm_introut".to_string()] } else { Vec::new() };
    // Names on the MAC node only matter for MCDMA: leave the single MAC IRQ unnamed.
    eth.iter_mut().for_each(|e| e.1.clear());
    IrqLayout { eth, dma_names: names }
}

/// How a probe reads one property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A 32-bit cell.
    U32,
    /// `of_property_read_u16`: `/bits/ 16`.
    U16,
    /// `of_property_read_u8`: `/bits/ 8` (a 32-bit cell reads as its first byte).
    U8,
    /// A string.
    Str,
    /// A string list.
    StrList,
    /// A phandle to a node of this tree.
    Phandle,
    /// A boolean (presence).
    Bool,
    /// A 6-byte MAC address.
    Mac,
    /// `reg`.
    Reg,
    /// `interrupts` with at least this many entries.
    Irqs(usize),
}

/// Whether probe needs a property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Probe fails without it.
    Required,
    /// Probe fails unless one of these (this one included) is present.
    AnyOf(&'static [&'static str]),
    /// Read when present; the default applies otherwise.
    Optional,
}

/// Which node of a port a row is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum On {
    /// The Ethernet (MAC) node.
    Mac,
    /// The DMA node `axistream-connected` names.
    Dma,
}

/// One row of a probe table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// Property name.
    pub prop: &'static str,
    /// Node.
    pub on: On,
    /// How it is read.
    pub kind: Kind,
    /// Whether probe needs it.
    pub need: Need,
    /// Function and file that read it.
    pub source: &'static str,
    /// What happens when it is missing or malformed.
    pub effect: &'static str,
}

const fn row(prop: &'static str, on: On, kind: Kind, need: Need, source: &'static str, effect: &'static str) -> Row {
    Row { prop, on, kind, need, source, effect }
}

const MAIN_6_12: &str = "axienet_probe, drivers/net/ethernet/xilinx/xilinx_axienet_main.c (6.12)";
const XLNX_MAIN: &str = "axienet_probe, linux-xlnx xilinx_axienet_main.c";
const XLNX_DMA: &str = "axienet_dma_probe, linux-xlnx xilinx_axienet_main.c";
const XLNX_MCDMA: &str = "axienet_mcdma_probe, linux-xlnx xilinx_axienet_main.c";
const PHY_MODE_ANY: Need = Need::AnyOf(&["phy-mode", "phy-connection-type", "xlnx,phy-type"]);
const PCS_OR_PHY: Need = Need::AnyOf(&["pcs-handle", "phy-handle"]);

/// Rows common to every axienet MAC: reg, MAC, checksum, rxmem, phy-type.
const AXI_COMMON: &[Row] = &[
    row(
        "reg",
        On::Mac,
        Kind::Reg,
        Need::Required,
        "devm_platform_get_and_ioremap_resource(pdev, 0)",
        "probe fails (no registers)",
    ),
    row("local-mac-address", On::Mac, Kind::Mac, Need::Optional, "of_get_mac_address", "random MAC at every boot"),
    row("xlnx,txcsum", On::Mac, Kind::U32, Need::Optional, "axienet_probe", "no TX checksum offload"),
    row("xlnx,rxcsum", On::Mac, Kind::U32, Need::Optional, "axienet_probe", "no RX checksum offload"),
    row(
        "xlnx,rxmem",
        On::Mac,
        Kind::U32,
        Need::Optional,
        "axienet_probe; axienet_change_mtu",
        "0: every MTU change fails (-EINVAL)",
    ),
    row(
        "xlnx,phy-type",
        On::Mac,
        Kind::U32,
        Need::Optional,
        "axienet_probe",
        "read first: when present phy-mode is ignored",
    ),
];

/// linux-xlnx `phy-mode`, read alike for every axienet MAC.
const XLNX_PHY_MODE: Row = row(
    "phy-mode",
    On::Mac,
    Kind::Str,
    PHY_MODE_ANY,
    XLNX_MAIN,
    "of_get_phy_mode fails: probe returns silently (cleanup_clk)",
);

/// linux-xlnx, AXI 1G/2.5G MAC: the link rows (the table adds
/// [`XLNX_AXI_DMA`] and `xlnx,include-dre`).
pub const XLNX_1G: &[Row] = &[
    XLNX_PHY_MODE,
    row("max-speed", On::Mac, Kind::U32, Need::Required, XLNX_MAIN, "\"couldn't find MAC Rate\", -EINVAL"),
    row(
        "pcs-handle",
        On::Mac,
        Kind::Phandle,
        PCS_OR_PHY,
        XLNX_MAIN,
        "\"pcs-handle ... or phy-handle required for external PHY\", -EINVAL",
    ),
    row(
        "phy-handle",
        On::Mac,
        Kind::Phandle,
        PCS_OR_PHY,
        XLNX_MAIN,
        "as pcs-handle; also phylink_of_phy_connect at open",
    ),
];

/// linux-xlnx, the AXI DMA that `axistream-connected` names, as
/// axienet_dma_probe reads it for the 1G and the XXV MAC alike
/// (`CONFIG_AXIENET_HAS_MCDMA` off).
pub const XLNX_AXI_DMA: &[Row] = &[
    row(
        "axistream-connected",
        On::Mac,
        Kind::Phandle,
        Need::Required,
        XLNX_DMA,
        "DMA regs and IRQs taken from the MAC's reg 1 / interrupts 0-1 instead",
    ),
    row("reg", On::Dma, Kind::Reg, Need::Required, XLNX_DMA, "\"unable to get DMA resource\", -ENODEV"),
    row(
        "interrupts",
        On::Dma,
        Kind::Irqs(2),
        Need::Required,
        "axienet_dma_probe: irq_of_parse_and_map(dma, 0) TX, (dma, 1) RX",
        "request_irq fails at open",
    ),
    row(
        "xlnx,addrwidth",
        On::Dma,
        Kind::U8,
        Need::Optional,
        "axienet_dma_probe: of_property_read_u8",
        "32-bit DMA mask",
    ),
];

/// linux-xlnx, AXI 1G/2.5G MAC only: the DMA's data realignment engine.
const XLNX_1G_DRE: Row = row(
    "xlnx,include-dre",
    On::Dma,
    Kind::Bool,
    Need::Optional,
    "axienet_dma_probe",
    "bounce buffers for unaligned data",
);

/// linux-xlnx, XXV MAC over AXI MCDMA (`CONFIG_AXIENET_HAS_MCDMA=y`). The
/// per-channel IRQ names are checked separately ([`mcdma_irq_names`]).
pub const XLNX_XXV_MCDMA: &[Row] = &[
    XLNX_PHY_MODE,
    row("xlnx,num-queues", On::Mac, Kind::U16, Need::Required, "axienet_probe: of_property_read_u16", "missing: 16 queues assumed, channel ids read past the list; a 32-bit cell reads as its first two bytes (0 queues: alloc_etherdev_mq fails)"),
    row("xlnx,channel-ids", On::Mac, Kind::StrList, Need::Required, XLNX_MCDMA, "-EINVAL"),
    row("interrupt-names", On::Mac, Kind::StrList, Need::Required, "axienet_mcdma_tx_probe/rx_probe: platform_get_irq_byname(pdev, \"mm2s_ch%d_introut\")", "no channel IRQs: open fails"),
    row("axistream-connected", On::Mac, Kind::Phandle, Need::Required, XLNX_MCDMA, "\"unable to get DMA resource\""),
    row("reg", On::Dma, Kind::Reg, Need::Required, XLNX_MCDMA, "\"unable to get DMA resource\""),
    row("xlnx,addrwidth", On::Dma, Kind::U8, Need::Optional, "axienet_mcdma_probe: of_property_read_u8", "32-bit DMA mask"),
];

/// Mainline 6.12 axienet (1G/2.5G), either DMA style.
pub const MAINLINE_AXI: &[Row] = &[
    row("phy-mode", On::Mac, Kind::Str, PHY_MODE_ANY, MAIN_6_12, "of_get_phy_mode fails: probe returns (cleanup_clk)"),
    row(
        "interrupts",
        On::Mac,
        Kind::Irqs(1),
        Need::Optional,
        "axienet_probe: platform_get_irq_optional(pdev, 0)",
        "\"Ethernet core IRQ not defined\"",
    ),
];

/// Rows read only in mainline's `axistream-connected` branch (no `dmas`).
pub const MAINLINE_AXIS: &[Row] = &[
    row("reg", On::Dma, Kind::Reg, Need::Required, MAIN_6_12, "\"unable to get DMA resource\""),
    row(
        "interrupts",
        On::Dma,
        Kind::Irqs(2),
        Need::Required,
        "axienet_probe: irq_of_parse_and_map(np, 1) RX, (np, 0) TX",
        "\"could not determine irqs\", -ENOMEM",
    ),
];

/// Rows read only in mainline's dmaengine branch (`dmas` present).
pub const MAINLINE_DMAENGINE: &[Row] = &[row(
    "dma-names",
    On::Mac,
    Kind::StrList,
    Need::Required,
    "axienet_probe: dma_request_chan(dev, \"tx_chan0\"); axienet_init_dmaengine: \"rx_chan0\"",
    "\"No Ethernet DMA (TX) channel found\"",
)];

/// gianfar (mainline 6.12, linux-qoriq alike).
pub const GIANFAR: &[Row] = &[
    row(
        "phy-connection-type",
        On::Mac,
        Kind::Str,
        Need::Optional,
        "gfar_of_init: of_get_phy_mode (phy-mode first)",
        "interface guessed from the ECNTRL register",
    ),
    row("phy-handle", On::Mac, Kind::Phandle, Need::Optional, "gfar_of_init", "no PHY unless fixed-link"),
    row(
        "tbi-handle",
        On::Mac,
        Kind::Phandle,
        Need::Optional,
        "gfar_of_init; gfar_configure_serdes",
        "SGMII: \"SGMII mode requires that the device tree specify a tbi-handle\"",
    ),
    row("local-mac-address", On::Mac, Kind::Mac, Need::Optional, "gfar_of_init: of_get_mac_address", "random MAC"),
];

/// macb (mainline 6.12).
pub const MACB: &[Row] = &[
    row("phy-mode", On::Mac, Kind::Str, Need::Optional, "macb_probe: of_get_phy_mode", "MII (10/100)"),
    row(
        "local-mac-address",
        On::Mac,
        Kind::Mac,
        Need::Optional,
        "macb_get_hwaddr: of_get_ethdev_address",
        "address from the GEM registers, else random",
    ),
];

/// The probe table of a port: `(rows, name of the table)`.
pub fn table(driver: Driver, flavour: KernelFlavour, dmaengine: bool) -> (Vec<Row>, &'static str) {
    match (zynq_net_model::drivers::facts(driver).probe, flavour) {
        (ProbeTable::Axienet, KernelFlavour::LinuxXlnx) => {
            ([AXI_COMMON, XLNX_1G, XLNX_AXI_DMA, &[XLNX_1G_DRE]].concat(), "linux-xlnx axienet (1G, AXI DMA)")
        }
        (ProbeTable::Xxv, _) => {
            ([AXI_COMMON, &[XLNX_PHY_MODE], XLNX_AXI_DMA].concat(), "linux-xlnx axienet (XXV, AXI DMA)")
        }
        (ProbeTable::XxvMcdma, _) => ([AXI_COMMON, XLNX_XXV_MCDMA].concat(), "linux-xlnx axienet (XXV, MCDMA)"),
        (ProbeTable::Axienet, _) => (
            [AXI_COMMON, MAINLINE_AXI, if dmaengine { MAINLINE_DMAENGINE } else { MAINLINE_AXIS }].concat(),
            "mainline 6.12 axienet",
        ),
        (ProbeTable::Gianfar, _) => (GIANFAR.to_vec(), "gianfar"),
        (ProbeTable::Macb, _) => (MACB.to_vec(), "macb"),
        (ProbeTable::None, _) => (Vec::new(), "none"),
    }
}

/// The property view a check needs of a node (a DTB node in `dtb verify`).
pub trait NodeProps {
    /// Raw bytes of a property.
    fn prop(&self, name: &str) -> Option<&[u8]>;
}

/// The strings of a string-list property.
pub(crate) fn strings(v: &[u8]) -> Vec<String> {
    v.split(|b| *b == 0).filter(|s| !s.is_empty()).map(|s| String::from_utf8_lossy(s).into_owned()).collect()
}

fn be32(v: &[u8]) -> Option<u32> {
    v.try_into().ok().map(u32::from_be_bytes)
}

/// Checks a value's shape against how probe reads it.
fn shape_problem(kind: Kind, v: &[u8], irq_cells: usize) -> Option<String> {
    let bad = match kind {
        Kind::U32 | Kind::Phandle => v.len() != 4,
        Kind::U16 => v.len() != 2,
        Kind::U8 => v.len() != 1,
        Kind::Str | Kind::StrList => v.last() != Some(&0),
        Kind::Bool => !v.is_empty(),
        Kind::Mac => v.len() != 6,
        Kind::Reg => v.is_empty() || v.len() % 4 != 0,
        Kind::Irqs(n) => v.len() < n * irq_cells * 4,
    };
    bad.then(|| {
        let want = match kind {
            Kind::U32 => "one 32-bit cell".to_string(),
            Kind::Phandle => "one phandle".to_string(),
            Kind::U16 => "/bits/ 16 (2 bytes)".to_string(),
            Kind::U8 => "/bits/ 8 (1 byte)".to_string(),
            Kind::Str | Kind::StrList => "a string".to_string(),
            Kind::Bool => "an empty (boolean) property".to_string(),
            Kind::Mac => "6 bytes".to_string(),
            Kind::Reg => "address/size cells".to_string(),
            Kind::Irqs(n) => format!("at least {n} interrupt(s)"),
        };
        format!("has {} byte(s), probe reads {want}", v.len())
    })
}

/// Checks one node (and its DMA node) against a table; returns problems,
/// each naming the row's source.
pub fn check(
    rows: &[Row],
    table_name: &str,
    mac: &dyn NodeProps,
    dma: Option<&dyn NodeProps>,
    irq_cells: usize,
) -> Vec<String> {
    let mut out = Vec::new();
    for r in rows {
        let node = match r.on {
            On::Mac => Some(mac),
            On::Dma => dma,
        };
        let Some(node) = node else {
            if r.need == Need::Required {
                out.push(format!("{table_name}: no DMA node to read `{}` from ({}): {}", r.prop, r.source, r.effect));
            }
            continue;
        };
        let whose = if r.on == On::Dma { "DMA node" } else { "node" };
        match (node.prop(r.prop), r.need) {
            (Some(v), _) => {
                if let Some(p) = shape_problem(r.kind, v, irq_cells) {
                    out.push(format!("{table_name}: {whose} `{}` {p} ({}): {}", r.prop, r.source, r.effect));
                }
            }
            (None, Need::Required) => {
                out.push(format!("{table_name}: {whose} lacks `{}` ({}): {}", r.prop, r.source, r.effect))
            }
            (None, Need::AnyOf(alts)) => {
                if alts.iter().all(|a| node.prop(a).is_none()) && alts.first() == Some(&r.prop) {
                    out.push(format!(
                        "{table_name}: {whose} has none of {} ({}): {}",
                        alts.join(", "),
                        r.source,
                        r.effect
                    ));
                }
            }
            (None, Need::Optional) => {}
        }
    }
    out
}

/// linux-xlnx MCDMA: every channel's `mm2s_ch%d_introut` and
/// `s2mm_ch%d_introut` must be named on the Ethernet node, with as many
/// interrupt specifiers as names (platform_get_irq_byname).
pub fn mcdma_irq_names(mac: &dyn NodeProps, irq_cells: usize) -> Vec<String> {
    let src = "axienet_mcdma_tx_probe/rx_probe, linux-xlnx xilinx_axienet_mcdma.c: platform_get_irq_byname on the Ethernet device";
    let ids: Vec<String> = mac.prop("xlnx,channel-ids").map(strings).unwrap_or_default();
    // of_property_read_u16 reads the first two bytes of any longer value;
    // absent, the MCDMA probe assumes 16 (XAE_MAX_QUEUES).
    let nq = mac.prop("xlnx,num-queues").map_or(16, |v| {
        v.get(..2).and_then(|b| b.try_into().ok()).map_or(0, |b: [u8; 2]| usize::from(u16::from_be_bytes(b)))
    });
    let mut out = Vec::new();
    if ids.len() < nq {
        out.push(format!("linux-xlnx MCDMA: xlnx,num-queues {nq} but {} channel id(s) (axienet_mcdma_probe reads one id per queue, no bounds check)", ids.len()));
    }
    let names: Vec<String> = mac.prop("interrupt-names").map(strings).unwrap_or_default();
    let n_irqs = mac.prop("interrupts").map_or(0, |v| v.len() / (4 * irq_cells.max(1)));
    if n_irqs < names.len() {
        out.push(format!(
            "linux-xlnx MCDMA: {} interrupt-names but {n_irqs} interrupts on the Ethernet node",
            names.len()
        ));
    }
    for id in ids.iter().take(nq) {
        let n = u16::from_str_radix(id.trim_start_matches("0x"), 16).unwrap_or(0);
        for dir in ["mm2s", "s2mm"] {
            let want = format!("{dir}_ch{n}_introut");
            if !names.contains(&want) {
                out.push(format!("linux-xlnx MCDMA: the Ethernet node has no interrupt named `{want}` ({src}); the channel's IRQ is not found and open fails"));
            }
        }
    }
    out
}

/// `phy-mode` vs `xlnx,phy-type`: the latter wins in axienet_probe. Returns
/// a problem when the mode the driver will use differs from `want`.
pub fn phy_type_problem(mac: &dyn NodeProps, flavour: KernelFlavour, want: Option<&str>) -> Option<String> {
    let t = mac.prop("xlnx,phy-type").and_then(be32)?;
    let got = mode_for_phy_type(t, flavour);
    let src = "axienet_probe reads xlnx,phy-type before phy-mode";
    match (got, want) {
        (None, _) if flavour == KernelFlavour::LinuxXlnx => Some(format!("xlnx,phy-type = <{t}> maps to no mode: linux-xlnx leaves the interface mode unset ({src}); delete it or set phy_mode")),
        (None, _) => Some(format!("xlnx,phy-type = <{t}> is not a mode mainline knows: probe fails with -EINVAL ({src})")),
        (Some(g), Some(w)) if g != w => Some(format!("xlnx,phy-type = <{t}> ({g}) overrides phy-mode \"{w}\" ({src}): delete xlnx,phy-type (the .dtsi does) or set it to match")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    struct N(BTreeMap<&'static str, Vec<u8>>);
    impl NodeProps for N {
        fn prop(&self, name: &str) -> Option<&[u8]> {
            self.0.get(name).map(Vec::as_slice)
        }
    }

    #[test]
    fn phy_type_mapping_follows_the_driver() {
        assert_eq!(phy_type_for_mode("rgmii-id"), Some(3));
        assert_eq!(phy_type_for_mode("rgmii-rxid"), None);
        assert_eq!(mode_for_phy_type(7, KernelFlavour::LinuxXlnx), Some("usxgmii"));
        assert_eq!(mode_for_phy_type(7, KernelFlavour::Mainline), None);
        assert_eq!(mode_for_phy_type(2, KernelFlavour::LinuxXlnx), None);
        let n = N([("xlnx,phy-type", 4u32.to_be_bytes().to_vec())].into_iter().collect());
        assert!(
            phy_type_problem(&n, KernelFlavour::LinuxXlnx, Some("rgmii-rxid")).is_some_and(|p| p.contains("overrides"))
        );
        assert_eq!(phy_type_problem(&n, KernelFlavour::LinuxXlnx, Some("sgmii")), None);
    }

    #[test]
    fn linux_xlnx_1g_needs_max_speed_and_a_pcs_or_phy() {
        let mac =
            N([("reg", vec![0; 16]), ("phy-mode", b"sgmii\0".to_vec()), ("axistream-connected", vec![0, 0, 0, 5])]
                .into_iter()
                .collect());
        let dma = N([("reg", vec![0; 16]), ("interrupts", vec![0; 24])].into_iter().collect());
        let (rows, name) = table(Driver::Axienet, KernelFlavour::LinuxXlnx, false);
        let p = check(&rows, name, &mac, Some(&dma), 3);
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(p[0].contains("max-speed") && p[0].contains("couldn't find MAC Rate"));
        assert!(p[1].contains("pcs-handle, phy-handle"));
    }

    #[test]
    fn widths_are_checked() {
        let mac = N([("xlnx,num-queues", vec![0, 0, 0, 2])].into_iter().collect());
        let p = check(&[row("xlnx,num-queues", On::Mac, Kind::U16, Need::Required, "s", "e")], "t", &mac, None, 3);
        assert!(p[0].contains("/bits/ 16"), "{p:?}");
    }

    #[test]
    fn mcdma_names_by_channel_id() {
        let mut m: BTreeMap<&'static str, Vec<u8>> = BTreeMap::new();
        m.insert("xlnx,channel-ids", b"0x1\x000x2\0".to_vec());
        m.insert("xlnx,num-queues", vec![0, 2]);
        m.insert("interrupt-names", b"mm2s_ch1_introut\0mm2s_ch2_introut\0s2mm_ch1_introut\0".to_vec());
        m.insert("interrupts", vec![0; 36]);
        let p = mcdma_irq_names(&N(m), 3);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].contains("s2mm_ch2_introut"));
    }

    /// Which probe code `dtb verify` holds a node to, per driver and
    /// kernel (its reports name the table), and that each table reads the
    /// node: `phy-mode` without its NUL (a string property, of_get_phy_mode)
    /// is a problem in every Ethernet table.
    #[test]
    fn each_driver_and_kernel_has_its_probe_table() {
        use KernelFlavour::*;
        let bad = N([("phy-mode", b"sgmii".to_vec())].into_iter().collect());
        for (d, k, want) in [
            (Driver::Axienet, LinuxXlnx, "linux-xlnx axienet (1G, AXI DMA)"),
            (Driver::Xxv, LinuxXlnx, "linux-xlnx axienet (XXV, AXI DMA)"),
            (Driver::XxvMcdma, LinuxXlnx, "linux-xlnx axienet (XXV, MCDMA)"),
            (Driver::Axienet, Mainline, "mainline 6.12 axienet"),
            (Driver::Macb, Mainline, "macb"),
            (Driver::Macb, LinuxXlnx, "macb"),
        ] {
            let (rows, name) = table(d, k, false);
            assert_eq!(name, want, "{d:?} on {k:?}");
            let p = check(&rows, name, &bad, None, 3);
            assert!(p.iter().any(|x| x.contains("phy-mode")), "{d:?} on {k:?}: {p:?}");
        }
        assert_eq!(table(Driver::Mlx5, Mainline, false), (Vec::new(), "none"));
    }

    /// `reg` is a non-empty whole number of cells; a row read from the DMA
    /// node is a problem without one only when probe requires it.
    #[test]
    fn reg_shape_and_rows_without_a_dma_node() {
        assert!(shape_problem(Kind::Reg, &[], 3).is_some());
        assert!(shape_problem(Kind::Reg, &[0; 6], 3).is_some());
        assert!(shape_problem(Kind::Reg, &[0; 8], 3).is_none());
        let rows = [
            row("reg", On::Dma, Kind::Reg, Need::Required, "s", "e"),
            row("xlnx,addrwidth", On::Dma, Kind::U8, Need::Optional, "s2", "e2"),
        ];
        let p = check(&rows, "t", &N(BTreeMap::new()), None, 3);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].contains("no DMA node to read `reg`"), "{p:?}");
    }

    /// A group of alternatives (Need::AnyOf: pcs-handle or phy-handle) that
    /// the node has none of is one problem, whatever the group's size, and
    /// none once the node has any one of them.
    #[test]
    fn a_missing_group_of_alternatives_is_one_problem() {
        const ABC: &[&str] = &["a", "b", "c"];
        let rows: Vec<Row> = ABC.iter().map(|p| row(p, On::Mac, Kind::Phandle, Need::AnyOf(ABC), "s", "e")).collect();
        let p = check(&rows, "t", &N(BTreeMap::new()), None, 3);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].contains("has none of a, b, c"), "{p:?}");
        let has_c = N([("c", vec![0, 0, 0, 1])].into_iter().collect());
        assert_eq!(check(&rows, "t", &has_c, None, 3), Vec::<String>::new());
    }

    /// An `xlnx,phy-type` value that names no mode: linux-xlnx leaves the
    /// mode unset, mainline fails probe (-EINVAL); 7 (USXGMII) is a mode on
    /// linux-xlnx only (xilinx_axienet.h XAE_PHY_TYPE_*).
    #[test]
    fn phy_type_without_a_mode_per_kernel() {
        let t = |v: u32| N([("xlnx,phy-type", v.to_be_bytes().to_vec())].into_iter().collect());
        let xlnx = phy_type_problem(&t(2), KernelFlavour::LinuxXlnx, Some("sgmii")).expect("a problem");
        assert!(xlnx.contains("linux-xlnx leaves the interface mode unset"), "{xlnx}");
        let main = phy_type_problem(&t(2), KernelFlavour::Mainline, Some("sgmii")).expect("a problem");
        assert!(main.contains("probe fails with -EINVAL"), "{main}");
        assert_eq!(phy_type_problem(&t(7), KernelFlavour::LinuxXlnx, Some("usxgmii")), None);
        assert!(
            phy_type_problem(&t(7), KernelFlavour::Mainline, Some("usxgmii")).is_some_and(|p| p.contains("-EINVAL"))
        );
        assert_eq!(phy_type_problem(&N(BTreeMap::new()), KernelFlavour::Mainline, Some("sgmii")), None);
    }
}
