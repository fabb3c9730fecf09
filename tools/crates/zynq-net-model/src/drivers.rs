//! What each Ethernet driver accepts, from its `ethtool_ops` and probe code
//! in Debian's linux-source-6.12. Every limit names the file it comes from.
//! One [`DriverFacts`] row per [`Driver`] ([`facts`]) holds every per-driver
//! fact both crates read (limits, Kconfig symbols, compatibles, probe table).

use crate::model::{Driver, KernelFlavour, Soc};

/// Limits of one ring direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingLimit {
    /// Smallest accepted size.
    pub min: u32,
    /// Largest accepted size.
    pub max: u32,
    /// The driver rejects sizes that are not a power of two.
    pub pow2_required: bool,
    /// The driver rounds sizes up to a power of two.
    pub pow2_rounded: bool,
}

/// Coalescing parameter limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoalesceParam {
    /// ethtool's name of the parameter.
    pub name: &'static str,
    /// Largest accepted value.
    pub max: u32,
}

/// What a driver supports.
#[derive(Debug, Clone, Copy)]
pub struct DriverCaps {
    /// Source file the facts come from.
    pub source: &'static str,
    /// RX ring limits; `None` = `ethtool -G` unsupported.
    pub rx_ring: Option<RingLimit>,
    /// TX ring limits; `None` = `ethtool -G` unsupported.
    pub tx_ring: Option<RingLimit>,
    /// Accepted `ethtool -C` parameters (empty = `-C` unsupported).
    pub coalesce: &'static [CoalesceParam],
    /// Largest MTU.
    pub max_mtu: u32,
    /// Largest number of TX queues.
    pub max_tx_queues: u32,
    /// Supports a dedicated zero-copy RX queue (netdev queue API + header split).
    pub zero_copy_rx: bool,
}

const fn ring(min: u32, max: u32, pow2_required: bool, pow2_rounded: bool) -> Option<RingLimit> {
    Some(RingLimit { min, max, pow2_required, pow2_rounded })
}

const GIANFAR_COAL: &[CoalesceParam] = &[
    CoalesceParam { name: "rx-usecs", max: 0xffff },
    CoalesceParam { name: "rx-frames", max: 0xff },
    CoalesceParam { name: "tx-usecs", max: 0xffff },
    CoalesceParam { name: "tx-frames", max: 0xff },
];
const AXIENET_COAL: &[CoalesceParam] = &[
    CoalesceParam { name: "rx-usecs", max: 0xffff },
    CoalesceParam { name: "rx-frames", max: 0xff },
    CoalesceParam { name: "tx-usecs", max: 0xffff },
    CoalesceParam { name: "tx-frames", max: 0xff },
];
const MLX5_COAL: &[CoalesceParam] = &[
    CoalesceParam { name: "rx-usecs", max: 4095 },
    CoalesceParam { name: "rx-frames", max: 65535 },
    CoalesceParam { name: "tx-usecs", max: 4095 },
    CoalesceParam { name: "tx-frames", max: 65535 },
    CoalesceParam { name: "adaptive-rx", max: 1 },
    CoalesceParam { name: "adaptive-tx", max: 1 },
];
const VIRTIO_COAL: &[CoalesceParam] = &[
    CoalesceParam { name: "rx-usecs", max: u32::MAX },
    CoalesceParam { name: "rx-frames", max: u32::MAX },
    CoalesceParam { name: "tx-usecs", max: u32::MAX },
    CoalesceParam { name: "tx-frames", max: u32::MAX },
];

/// Capabilities of `driver` on `soc`: the row's [`DriverFacts::caps`].
pub fn caps(driver: Driver, soc: Soc) -> DriverCaps {
    (facts(driver).caps)(soc)
}

/// Which probe table render's `probe::table` checks a compiled node of the
/// driver against (the table itself may depend on the kernel flavour and
/// the DMA style, which render decides).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeTable {
    /// No probe table: the driver's node is not checked property by property.
    None,
    /// macb (mainline 6.12).
    Macb,
    /// gianfar (mainline 6.12).
    Gianfar,
    /// The AXI 1G/2.5G MAC: linux-xlnx or mainline 6.12 axienet.
    Axienet,
    /// linux-xlnx axienet, XXV MAC over an AXI DMA.
    Xxv,
    /// linux-xlnx axienet, XXV MAC over an AXI MCDMA.
    XxvMcdma,
}

/// Which AXI Ethernet MAC in the programmable logic a driver drives (a PL
/// node is generated only for these).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlMac {
    /// The AXI 1G/2.5G Ethernet subsystem (`xlnx,axi-ethernet-1.00.a`).
    Axi1g,
    /// The XXV 10G/25G Ethernet (`xlnx,xxv-ethernet-1.0`, linux-xlnx only).
    Xxv,
}

/// Everything the tools know about one Ethernet driver, in one row: adding a
/// [`Driver`] does not compile until [`facts`] has its row, so every fact is
/// decided for it. Facts that also depend on the SoC are a function of it
/// ([`DriverFacts::caps`]) or a per-SoC table ([`DriverFacts::on_chip`]).
#[derive(Debug)]
pub struct DriverFacts {
    /// The driver the row is about.
    pub driver: Driver,
    /// `ethtool -G`/`-C`, MTU and queue limits on a SoC (see [`DriverCaps`]).
    pub caps: fn(Soc) -> DriverCaps,
    /// The kernel's name of the driver, as the applier reads it: the
    /// `driver` link of `/sys/class/net/IFACE/device` (the bus driver's
    /// `.name`), or `ethtool -i` for a device without one.
    pub kernel_driver: &'static str,
    /// Kconfig symbols the kernel fragment sets `=y` for the driver,
    /// dependency-closed, in fragment order.
    pub kconfig: &'static [&'static str],
    /// `compatible` strings of the driver's nodes (`dtb verify` finds a port
    /// by compatible + unit address); empty: not a device-tree device.
    pub compatibles: &'static [&'static str],
    /// The property the MAC node's PHY interface mode is written as.
    pub phy_mode_prop: &'static str,
    /// The PL MAC the driver drives, `None` for a MAC that is no PL IP.
    pub pl: Option<PlMac>,
    /// The probe table a compiled node is checked against.
    pub probe: ProbeTable,
    /// On-chip MACs of the driver per SoC: `(soc, count, names)`; a SoC
    /// not listed has no fixed number of them.
    pub on_chip: &'static [(Soc, usize, &'static str)],
    /// SoCs the driver's MAC does not exist on (rule driver-not-on-soc).
    pub not_on: &'static [Soc],
}

const QORIQ: &[Soc] = &[Soc::QoriqP1010, Soc::QoriqP1020, Soc::QoriqP2020];

/// drivers/net/ethernet/xilinx/Kconfig (6.12): XILINX_AXI_EMAC depends on
/// XILINX_DMA (drivers/dma/Kconfig, under DMADEVICES). Without it
/// olddefconfig drops the MAC on arm64 defconfig (XILINX_DMA is off).
/// XXV over a plain AXI DMA is the same driver without the MCDMA switch.
const AXIENET_KCONFIG: &[&str] = &["DMADEVICES", "XILINX_DMA", "NET_VENDOR_XILINX", "XILINX_AXI_EMAC"];

// The driver's own questions, answered from its row (an inherent impl of
// the model's enum kept here, so that model.rs need not import this file).
impl Driver {
    /// An AXI/XXV Ethernet in the programmable logic (axienet): the row's
    /// [`DriverFacts::pl`] is set.
    pub fn is_axi(self) -> bool {
        facts(self).pl.is_some()
    }
    /// An XXV 10G/25G MAC (linux-xlnx only).
    pub fn is_xxv(self) -> bool {
        facts(self).pl == Some(PlMac::Xxv)
    }
}

/// The facts of a driver. Exhaustive on purpose: no wildcard arm.
pub fn facts(driver: Driver) -> &'static DriverFacts {
    match driver {
        Driver::Macb => &MACB,
        Driver::Axienet => &AXIENET,
        Driver::XxvMcdma => &XXV_MCDMA,
        Driver::Xxv => &XXV,
        Driver::Gianfar => &GIANFAR,
        Driver::Mlx5 => &MLX5,
        Driver::VirtioNet => &VIRTIO_NET,
        Driver::Veth => &VETH,
    }
}

// macb_main.c: macb_set_ringparam clamps rx to 64..8192 (MIN/MAX_RX_RING_SIZE),
// tx to 64..4096, then roundup_pow_of_two() and reopens the device; no
// set_coalesce; max_mtu = jumbo_max_len - ETH_HLEN - ETH_FCS_LEN
// (zynqmp_config: 10240 -> 10222), 1536 - 18 = 1518 without jumbo (Zynq-7000:
// zynq_config has no MACB_CAPS_JUMBO). Queues: macb_probe_queues counts what
// the GEM reports (DCFG6, at most MACB_MAX_QUEUES = 8) and macb_init takes one
// IRQ per queue (platform_get_irq(pdev, q)); the Zynq-7000 GEM has one queue
// (zynq-7000.dtsi: one interrupt per GEM; UG585 ch. 16: no priority queues).
fn macb_caps(soc: Soc) -> DriverCaps {
    DriverCaps {
        source: "drivers/net/ethernet/cadence/macb_main.c",
        rx_ring: ring(64, 8192, false, true),
        tx_ring: ring(64, 4096, false, true),
        coalesce: &[],
        max_mtu: if soc == Soc::Zynq7000 { 1518 } else { 10222 },
        max_tx_queues: if soc == Soc::Zynq7000 { 1 } else { 8 },
        zero_copy_rx: false,
    }
}

/// Cadence GEM (macb).
static MACB: DriverFacts = DriverFacts {
    driver: Driver::Macb,
    caps: macb_caps,
    // macb_main.c `macb_driver` `.name = "macb"`.
    kernel_driver: "macb",
    // drivers/net/ethernet/cadence/Kconfig: MACB depends on HAS_DMA && COMMON_CLK.
    kconfig: &["COMMON_CLK", "NET_VENDOR_CADENCE", "MACB"],
    // macb_main.c macb_dt_ids (the ones zynqmp.dtsi / zynq-7000.dtsi use).
    compatibles: &["cdns,zynqmp-gem", "cdns,zynq-gem", "cdns,gem", "cdns,macb"],
    // macb_probe: of_get_phy_mode.
    phy_mode_prop: "phy-mode",
    pl: None,
    probe: ProbeTable::Macb,
    // ZynqMP GEM0-3 (UG1085, chapter 34) and Zynq-7000 GEM0-1 (UG585, chapter 16).
    on_chip: &[(Soc::Zynqmp, 4, "GEM0-3"), (Soc::Zynq7000, 2, "GEM0-1")],
    not_on: QORIQ,
};

// gianfar_ethtool.c: gfar_sringparam rejects > GFAR_{RX,TX}_MAX_RING_SIZE (256)
// and non-powers of two; gfar_scoalesce: usecs <= 0xffff, frames <= 0xff.
// gianfar.c: max_mtu = GFAR_JUMBO_FRAME_SIZE (9600) - ETH_HLEN = 9586;
// one TX queue per queue-group (P1020 eTSEC: 2 groups).
fn gianfar_caps(soc: Soc) -> DriverCaps {
    DriverCaps {
        source: "drivers/net/ethernet/freescale/gianfar_ethtool.c",
        rx_ring: ring(1, 256, true, false),
        tx_ring: ring(1, 256, true, false),
        coalesce: GIANFAR_COAL,
        max_mtu: 9586,
        max_tx_queues: soc.etsec_queues().map_or(8, |q| q.0),
        zero_copy_rx: false,
    }
}

/// Freescale eTSEC (gianfar).
static GIANFAR: DriverFacts = DriverFacts {
    driver: Driver::Gianfar,
    caps: gianfar_caps,
    // gianfar.c `gfar_driver` `.name = "fsl-gianfar"`.
    kernel_driver: "fsl-gianfar",
    // drivers/net/ethernet/freescale/Kconfig: GIANFAR depends on HAS_DMA and
    // selects FSL_PQ_MDIO (listed so the check sees the MDIO bus driver too).
    kconfig: &["NET_VENDOR_FREESCALE", "FSL_PQ_MDIO", "GIANFAR"],
    // gianfar.c gfar_match.
    compatibles: &["fsl,etsec2", "gianfar"],
    // gianfar trees spell it phy-connection-type (of_get_phy_mode reads
    // phy-mode first, then phy-connection-type): replace theirs, never add a
    // second one beside it.
    phy_mode_prop: "phy-connection-type",
    pl: None,
    probe: ProbeTable::Gianfar,
    // P1020 eTSEC1-3 (P1020 reference manual; `enet0..2` in
    // arch/powerpc/boot/dts/fsl/p1020si-post.dtsi).
    on_chip: &[(Soc::QoriqP1020, 3, "eTSEC1-3")],
    not_on: &[Soc::Zynqmp, Soc::Zynq7000],
};

// xilinx_axienet_main.c: RX_BD_NUM_MAX = TX_BD_NUM_MAX = 4096,
// TX_BD_NUM_MIN = MAX_SKB_FRAGS + 1 (18); coalesce frames <= 255;
// max_mtu = XAE_JUMBO_MTU (9000) with jumbo frames in the IP.
fn axienet_caps(_: Soc) -> DriverCaps {
    DriverCaps {
        source: "drivers/net/ethernet/xilinx/xilinx_axienet_main.c",
        rx_ring: ring(64, 4096, false, false),
        tx_ring: ring(18, 4096, false, false),
        coalesce: AXIENET_COAL,
        max_mtu: 9000,
        max_tx_queues: 1,
        zero_copy_rx: false,
    }
}

/// Xilinx AXI 1G/2.5G Ethernet (axienet).
static AXIENET: DriverFacts = DriverFacts {
    driver: Driver::Axienet,
    caps: axienet_caps,
    // xilinx_axienet_main.c `axienet_driver` `.name = "xilinx_axienet"`.
    kernel_driver: "xilinx_axienet",
    kconfig: AXIENET_KCONFIG,
    // xilinx_axienet_main.c axienet_of_match.
    compatibles: &[
        "xlnx,axi-ethernet-1.00.a",
        "xlnx,axi-ethernet-1.01.a",
        "xlnx,axi-ethernet-2.01.a",
        "xlnx,axi-2_5-gig-ethernet-1.0",
    ],
    // axienet_probe: of_get_phy_mode.
    phy_mode_prop: "phy-mode",
    pl: Some(PlMac::Axi1g),
    probe: ProbeTable::Axienet,
    on_chip: &[],
    not_on: QORIQ,
};

// linux-xlnx xilinx_axienet_mcdma.c: same limits, one queue per MCDMA channel
// (at most 16); -G/-C only while the interface is down.
fn xxv_caps(max_tx_queues: u32) -> DriverCaps {
    DriverCaps {
        source: "linux-xlnx drivers/net/ethernet/xilinx/xilinx_axienet_mcdma.c",
        rx_ring: ring(64, 4096, false, false),
        tx_ring: ring(18, 4096, false, false),
        coalesce: AXIENET_COAL,
        max_mtu: 9000,
        max_tx_queues,
        zero_copy_rx: false,
    }
}

/// Xilinx XXV over a plain AXI DMA (linux-xlnx axienet without MCDMA).
static XXV: DriverFacts = DriverFacts {
    driver: Driver::Xxv,
    caps: |_| xxv_caps(1),
    // linux-xlnx drives the XXV MACs with `axienet_driver` (`xilinx_axienet`).
    kernel_driver: "xilinx_axienet",
    kconfig: AXIENET_KCONFIG,
    // linux-xlnx xilinx_axienet_main.c axienet_of_match.
    compatibles: &["xlnx,xxv-ethernet-1.0"],
    phy_mode_prop: "phy-mode",
    pl: Some(PlMac::Xxv),
    probe: ProbeTable::Xxv,
    on_chip: &[],
    not_on: QORIQ,
};

/// Xilinx XXV over AXI MCDMA (linux-xlnx axienet with MCDMA).
static XXV_MCDMA: DriverFacts = DriverFacts {
    driver: Driver::XxvMcdma,
    caps: |_| xxv_caps(16),
    kernel_driver: "xilinx_axienet",
    // linux-xlnx: the MCDMA path is AXIENET_HAS_MCDMA (depends on XILINX_AXI_EMAC);
    // XILINX_AXI_EMAC depends on XILINX_DMA there too, which is why the
    // generated MCDMA node is `xlnx,eth-dma` as the Xilinx device-tree
    // generator writes it for AXI DMA and MCDMA alike (axi_mcdma.tcl), not
    // xilinx_dma's `xlnx,axi-mcdma-1.00.a`: xilinx_dma must not claim it.
    kconfig: &["DMADEVICES", "XILINX_DMA", "NET_VENDOR_XILINX", "XILINX_AXI_EMAC", "AXIENET_HAS_MCDMA"],
    compatibles: &["xlnx,xxv-ethernet-1.0"],
    phy_mode_prop: "phy-mode",
    pl: Some(PlMac::Xxv),
    probe: ProbeTable::XxvMcdma,
    on_chip: &[],
    not_on: QORIQ,
};

// mlx5/core/en.h: MLX5E_PARAMS_{MINIMUM,MAXIMUM}_LOG_{SQ,RQ}_SIZE: 64..8192,
// rounded up to a power of two; en_ethtool.c coalescing; queue API for zcrx.
fn mlx5_caps(_: Soc) -> DriverCaps {
    DriverCaps {
        source: "drivers/net/ethernet/mellanox/mlx5/core/en_ethtool.c",
        rx_ring: ring(64, 8192, false, true),
        tx_ring: ring(64, 8192, false, true),
        coalesce: MLX5_COAL,
        max_mtu: 9978,
        max_tx_queues: 1024,
        zero_copy_rx: true,
    }
}

/// NVIDIA/Mellanox ConnectX (mlx5), a PCI device.
static MLX5: DriverFacts = DriverFacts {
    driver: Driver::Mlx5,
    caps: mlx5_caps,
    // mlx5 core/main.c `mlx5_core_driver` `.name = KBUILD_MODNAME` (`mlx5_core`).
    kernel_driver: "mlx5_core",
    // drivers/net/ethernet/mellanox/mlx5/core/Kconfig: MLX5_CORE depends on PCI;
    // MLX5_CORE_EN on MLX5_CORE (and selects PAGE_POOL).
    kconfig: &["PCI", "NET_VENDOR_MELLANOX", "MLX5_CORE", "MLX5_CORE_EN"],
    compatibles: &[],
    phy_mode_prop: "phy-mode",
    pl: None,
    probe: ProbeTable::None,
    on_chip: &[],
    not_on: &[],
};

// virtio_net.c: ring resize up to the device's maximum; coalescing with
// VIRTIO_NET_F_NOTF_COAL only.
fn virtio_net_caps(_: Soc) -> DriverCaps {
    DriverCaps {
        source: "drivers/net/virtio_net.c",
        rx_ring: ring(1, 32768, false, false),
        tx_ring: ring(1, 32768, false, false),
        coalesce: VIRTIO_COAL,
        max_mtu: 65535,
        max_tx_queues: 1024,
        zero_copy_rx: false,
    }
}

/// virtio-net.
static VIRTIO_NET: DriverFacts = DriverFacts {
    driver: Driver::VirtioNet,
    caps: virtio_net_caps,
    // virtio_net.c `virtio_net_driver` (`virtio_net`).
    kernel_driver: "virtio_net",
    // drivers/net/Kconfig: VIRTIO_NET depends on VIRTIO.
    kconfig: &["VIRTIO", "VIRTIO_NET"],
    compatibles: &[],
    phy_mode_prop: "phy-mode",
    pl: None,
    probe: ProbeTable::None,
    on_chip: &[],
    not_on: &[],
};

// veth.c: no set_ringparam, no set_coalesce; max_mtu = ETH_MAX_MTU.
fn veth_caps(_: Soc) -> DriverCaps {
    DriverCaps {
        source: "drivers/net/veth.c",
        rx_ring: None,
        tx_ring: None,
        coalesce: &[],
        max_mtu: 65535,
        max_tx_queues: 4096,
        zero_copy_rx: false,
    }
}

/// Virtual Ethernet pair.
static VETH: DriverFacts = DriverFacts {
    driver: Driver::Veth,
    caps: veth_caps,
    // veth.c `DRV_NAME "veth"` (no device: `ethtool -i`).
    kernel_driver: "veth",
    // drivers/net/Kconfig: VETH.
    kconfig: &["VETH"],
    compatibles: &[],
    phy_mode_prop: "phy-mode",
    pl: None,
    probe: ProbeTable::None,
    on_chip: &[],
    not_on: &[],
};

/// `phy-mode` values of Documentation/devicetree/bindings/net/ethernet-controller.yaml (6.12).
pub const PHY_MODES: &[&str] = &[
    "internal",
    "mii",
    "gmii",
    "sgmii",
    "psgmii",
    "qsgmii",
    "qusgmii",
    "tbi",
    "rev-mii",
    "rmii",
    "rev-rmii",
    "moca",
    "rgmii",
    "rgmii-id",
    "rgmii-rxid",
    "rgmii-txid",
    "rtbi",
    "smii",
    "xgmii",
    "trgmii",
    "1000base-x",
    "2500base-x",
    "5gbase-r",
    "rxaui",
    "xaui",
    "10gbase-kr",
    "10gbase-r",
    "25gbase-r",
    "usxgmii",
    "10g-qxgmii",
];

/// `phy-mode` values axienet's 1G/2.5G MAC runs: the binding's enum
/// (xlnx,axi-ethernet.yaml, 6.12: mii, gmii, rgmii, sgmii, 1000base-x) plus
/// the RGMII delay variants and 2500base-x, which axienet_probe accepts
/// (it puts the declared mode in phylink's supported interfaces).
pub const AXIENET_PHY_MODES: &[&str] =
    &["mii", "gmii", "rgmii", "rgmii-id", "rgmii-rxid", "rgmii-txid", "sgmii", "1000base-x", "2500base-x"];

/// Clock names of the AXI 1G/2.5G MAC: axienet_probe (6.12) takes
/// `s_axi_lite_clk` then the bulk `axis_clk`, `ref_clk`, `mgt_clk`;
/// linux-xlnx `axienet_clk_init` reads the first three. The mainline binding
/// lists all four without minItems: dt-schema wants all four.
pub const MAC_CLOCKS_1G: &[&str] = &["s_axi_lite_clk", "axis_clk", "ref_clk", "mgt_clk"];
/// Clock names of the XXV MAC: linux-xlnx `xxvenet_clk_init`.
pub const MAC_CLOCKS_XXV: &[&str] = &["s_axi_aclk", "rx_core_clk", "dclk"];
/// Clock names of an `xlnx,eth-dma` node as generated trees carry them
/// (linux-xlnx `axienet_dma_clk_init` reads the MM2S/S2MM/SG names).
pub const DMA_CLOCKS_ETH: &[&str] = &["s_axi_lite_aclk", "m_axi_sg_aclk", "m_axi_mm2s_aclk", "m_axi_s2mm_aclk"];
/// Clock names of a mainline `xlnx,axi-dma-1.00.a` dmaengine node
/// (dma/xilinx/xilinx_dma.c `axidma_clk_init`).
pub const DMA_CLOCKS_DMAENGINE: &[&str] = &["s_axi_lite_aclk", "m_axi_mm2s_aclk", "m_axi_s2mm_aclk"];

/// `phy-mode` values of the XXV MAC (linux-xlnx axienet: 10GBASE-R or
/// 25GBASE-R as the IP's XXV_STAT_CORE_SPEED says; USXGMII for the
/// `xlnx,xxv-usxgmii-ethernet-1.0` variant).
pub const XXV_PHY_MODES: &[&str] = &["10gbase-r", "25gbase-r", "10gbase-kr", "usxgmii"];

/// ethtool's own `-K` names: the short ones of ethtool(8) and the long ones
/// `ethtool -k` prints for them (`ufo`/`udp-fragmentation-offload` left
/// out: UDP fragmentation offload left the kernel in 4.14 and `-K ufo`
/// fails).
pub const ETHTOOL_LEGACY_FEATURES: &[&str] = &[
    "rx",
    "tx",
    "sg",
    "tso",
    "gso",
    "gro",
    "lro",
    "rxvlan",
    "txvlan",
    "ntuple",
    "rxhash",
    "rx-checksumming",
    "tx-checksumming",
    "scatter-gather",
    "tcp-segmentation-offload",
    "generic-segmentation-offload",
    "generic-receive-offload",
    "large-receive-offload",
    "rx-vlan-offload",
    "tx-vlan-offload",
    "ntuple-filters",
    "receive-hashing",
];

/// The kernel's `ethtool -K` feature names, one per line, sorted: Linux
/// 6.12's netdev_features_strings (net/ethtool/common.c) without
/// NETIF_F_NEVER_CHANGE, as scripts/ethtool-features derives them from the
/// Debian linux-source-6.12 tree (tests/gen/test_offload_names.py checks
/// the table against the source and every name against the real ethtool).
pub const KERNEL_FEATURES_6_12: &str = include_str!("../data/ethtool-features-6.12.txt");

/// Whether `name` is an `ethtool -K` feature name: an ethtool legacy name or
/// a Linux 6.12 feature string (rule offload-unknown warns otherwise).
pub fn known_offload(name: &str) -> bool {
    ETHTOOL_LEGACY_FEATURES.contains(&name) || KERNEL_FEATURES_6_12.lines().any(|l| l == name)
}

/// What a driver's `ndo_open` needs of the device tree, beside what its
/// probe reads (render's `probe` tables): a port that probes and then
/// fails at `ip link set up` is an error naming the function. One row per
/// check; `check` runs the rows on the node a board will generate (a full
/// PL node: everything is known), `dtb verify` on the compiled tree (every
/// port, patched ones too).
///
/// Sources (read, not guessed):
/// - mainline 6.12 (Debian linux-source-6.12): drivers/net/phy/phylink.c
///   `phylink_fwnode_phy_connect` (lines 2084-2125), drivers/net/phy/
///   phy_device.c `fwnode_get_phy_node` (phy-handle, phy, phy-device;
///   3554-3559), drivers/net/mdio/of_mdio.c `of_phy_is_fixed_link`,
///   drivers/net/ethernet/xilinx/xilinx_axienet_main.c `axienet_open`
///   (phylink_of_phy_connect at 1620), drivers/net/ethernet/freescale/
///   gianfar.c `gfar_enet_open` -> `init_phy` (of_phy_connect, -ENODEV at
///   1678; phy_node from phy-handle or the fixed link, `gfar_of_init`
///   804-814).
/// - linux-xlnx (Xilinx/linux-xlnx at 00521735b8a3, the 6.12-based tree;
///   its lines move between releases, so functions only):
///   xilinx_axienet_main.c `axienet_probe` (phylink_create for the 1G and
///   XXV MACs; `lp->eth_irq = platform_get_irq(pdev, 0)`;
///   `axienet_dma_clk_init(pdev)` on the Ethernet device), `axienet_open`
///   (phylink_of_phy_connect, then `axienet_init_legacy_dma`: request_irq
///   of every DMA channel and, for the 1G MAC without
///   `xlnx,eth-hasnobuf`, of `lp->eth_irq`, without testing it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenRow {
    /// The rule whose id the diagnostic carries.
    pub rule: crate::Rule,
    /// What the row checks.
    pub need: OpenNeed,
    /// Drivers the row applies to.
    pub drivers: &'static [Driver],
    /// Kernel flavours the row applies to (empty: every flavour).
    pub flavours: &'static [KernelFlavour],
    /// The property (or properties) the row is about.
    pub props: &'static [&'static str],
    /// The call chain that fails, ending in the function that returns the error.
    pub function: &'static str,
    /// Where that function is: file and, for mainline 6.12, line.
    pub at: &'static str,
    /// What happens at open.
    pub effect: &'static str,
}

/// The checks of [`OpenRow`]s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenNeed {
    /// phylink connects a PHY at open unless the link is fixed or in-band:
    /// `phy-handle`/`phy`/`phy-device`, a `fixed-link`, or
    /// `managed = "in-band-status"`. `sfp` and `pcs-handle` do not count.
    PhylinkLink,
    /// phylib's of_phy_connect: `phy-handle`, or a fixed link
    /// (of_phy_is_fixed_link: a `fixed-link` node or property, or
    /// `managed = "in-band-status"`).
    PhyOrFixedLink,
    /// The MAC interrupt (index 0 of `interrupts`), requested at open
    /// unless `xlnx,eth-hasnobuf`; only with the driver's own DMA code
    /// (`axistream-connected`, no `dmas`).
    MacIrq,
    /// Every clock of the DMA node is one the Ethernet driver enables:
    /// only the Ethernet node's clocks are enabled (linux-xlnx reads the
    /// DMA clock names there; mainline reads none for an
    /// `axistream-connected` DMA); only without `dmas`.
    DmaClocksEnabled,
    /// The PHY `phy-handle` names gets the port's RGMII delays it needs:
    /// a TI DP83867 on `rgmii-id`/`rgmii-rxid` needs
    /// `ti,rx-internal-delay`, on `rgmii-id`/`rgmii-txid`
    /// `ti,tx-internal-delay` (checked in its `config_init`, which
    /// phy_attach_direct runs at open).
    PhyRgmiiDelays,
    /// `phy-handle` names a PHY, not an MDIO device such as a
    /// GMII-to-RGMII converter (fwnode_phy_find_device returns NULL).
    PhyIsPhy,
}

/// What an open row knows of the PHY node a port's `phy-handle` names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PhyFacts {
    /// The PHY is a TI DP83867: the board says so (`dp83867`), its
    /// `compatible` is `ethernet-phy-id2000.a231` (DP83867_PHY_ID), or it
    /// carries a property only the DP83867 binding has.
    pub dp83867: bool,
    /// `ti,rx-internal-delay` is present.
    pub rx_delay: bool,
    /// `ti,tx-internal-delay` is present.
    pub tx_delay: bool,
    /// The generic `rx-internal-delay-ps`/`tx-internal-delay-ps` are
    /// present (which dp83867 does not read).
    pub generic_delays: bool,
    /// The node is a Xilinx GMII-to-RGMII converter
    /// (`xlnx,gmii-to-rgmii-1.0`): an MDIO device, not a PHY.
    pub converter: bool,
}

/// The converter's compatible (drivers/net/phy/xilinx_gmii2rgmii.c).
pub const GMII2RGMII_COMPATIBLE: &str = "xlnx,gmii-to-rgmii-1.0";

/// The DP83867 PHY ID as an MDIO `compatible` (drivers/net/phy/dp83867.c:
/// DP83867_PHY_ID 0x2000a231).
pub const DP83867_COMPATIBLE: &str = "ethernet-phy-id2000.a231";

/// Properties only the DP83867 binding has (ti,dp83867.yaml); a PHY node
/// with one of them and no `compatible` is taken for a DP83867 (the
/// ZCU102's is written so: its ID comes from the PHY's registers).
pub const DP83867_ONLY_PROPS: &[&str] = &[
    "ti,rx-internal-delay",
    "ti,tx-internal-delay",
    "ti,fifo-depth",
    "ti,dp83867-rxctrl-strap-quirk",
    "ti,sgmii-ref-clock-output-enable",
];

impl PhyFacts {
    /// The facts of an MDIO device the board describes.
    pub fn of_device(d: &crate::model::MdioDevice) -> PhyFacts {
        let ti = d.dp83867.as_ref();
        PhyFacts {
            dp83867: ti.is_some() || d.compatible.as_deref() == Some(DP83867_COMPATIBLE),
            rx_delay: ti.is_some_and(|t| t.rx_internal_delay_ps.is_some()),
            tx_delay: ti.is_some_and(|t| t.tx_internal_delay_ps.is_some()),
            generic_delays: d.rx_internal_delay_ps.is_some() || d.tx_internal_delay_ps.is_some(),
            converter: d.gmii_to_rgmii.is_some(),
        }
    }
}

/// What a DP83867 on a port of this phy-mode lacks at open, if anything
/// (dp83867_verify_rgmii_cfg, drivers/net/phy/dp83867.c:533-545, 6.12).
pub fn dp83867_delay_problem(mode: &str, phy: &PhyFacts) -> Option<String> {
    if !phy.dp83867 {
        return None;
    }
    let rx = matches!(mode, "rgmii-id" | "rgmii-rxid") && !phy.rx_delay;
    let tx = matches!(mode, "rgmii-id" | "rgmii-txid") && !phy.tx_delay;
    let missing: Vec<&str> =
        [("ti,rx-internal-delay", rx), ("ti,tx-internal-delay", tx)].into_iter().filter(|x| x.1).map(|x| x.0).collect();
    if missing.is_empty() {
        return None;
    }
    let generic =
        if phy.generic_delays { " (it does not read the generic rx/tx-internal-delay-ps it has)" } else { "" };
    Some(format!("phy-mode \"{mode}\" and the DP83867 PHY has no {}{generic}", missing.join(" and no ")))
}

const AXI_1G: &[Driver] = &[Driver::Axienet];
const XXV_ALL: &[Driver] = &[Driver::Xxv, Driver::XxvMcdma];
const XLNX: &[KernelFlavour] = &[KernelFlavour::LinuxXlnx];

/// The open table.
pub const OPEN: &[OpenRow] = &[
    OpenRow {
        rule: crate::Rule::OpenNoLink,
        need: OpenNeed::PhylinkLink,
        drivers: AXI_1G,
        flavours: &[],
        props: &["phy-handle", "fixed-link", "managed"],
        function: "axienet_open -> phylink_of_phy_connect -> phylink_fwnode_phy_connect",
        at: "drivers/net/phy/phylink.c:2101 (axienet_open: drivers/net/ethernet/xilinx/xilinx_axienet_main.c:1620; linux-xlnx alike)",
        effect: "returns -ENODEV: the link mode is MLO_AN_PHY and the node names no PHY",
    },
    OpenRow {
        rule: crate::Rule::OpenNoLink,
        need: OpenNeed::PhylinkLink,
        drivers: XXV_ALL,
        flavours: XLNX,
        props: &["phy-handle", "fixed-link", "managed"],
        function: "axienet_open -> phylink_of_phy_connect -> phylink_fwnode_phy_connect",
        at: "drivers/net/phy/phylink.c:2101 (linux-xlnx xilinx_axienet_main.c: axienet_probe creates phylink for the XXV MAC)",
        effect: "returns -ENODEV: the link mode is MLO_AN_PHY and the node names no PHY",
    },
    OpenRow {
        rule: crate::Rule::OpenNoLink, // gianfar
        need: OpenNeed::PhyOrFixedLink,
        drivers: &[Driver::Gianfar],
        flavours: &[],
        props: &["phy-handle", "fixed-link"],
        function: "gfar_enet_open -> init_phy -> of_phy_connect",
        at: "drivers/net/ethernet/freescale/gianfar.c:1678 (phy_node: gfar_of_init, 804-814)",
        effect: "\"could not attach to PHY\", -ENODEV: priv->phy_node is NULL",
    },
    OpenRow {
        rule: crate::Rule::OpenMacIrq,
        need: OpenNeed::MacIrq,
        drivers: AXI_1G,
        flavours: XLNX,
        props: &["interrupts"],
        function: "axienet_open -> axienet_init_legacy_dma -> request_irq(lp->eth_irq)",
        at: "linux-xlnx drivers/net/ethernet/xilinx/xilinx_axienet_main.c (axienet_probe: lp->eth_irq = platform_get_irq(pdev, 0), not tested)",
        effect: "request_irq of a negative IRQ fails (-EINVAL): \"request_irq() failed\"",
    },
    OpenRow {
        rule: crate::Rule::OpenPhyDelay,
        need: OpenNeed::PhyRgmiiDelays,
        drivers: &[Driver::Macb, Driver::Axienet, Driver::Gianfar],
        flavours: &[],
        props: &["ti,rx-internal-delay", "ti,tx-internal-delay"],
        function: "macb_open -> macb_phylink_connect / axienet_open / gfar_enet_open -> init_phy, then phy_attach_direct -> phy_init_hw -> dp83867_config_init -> dp83867_verify_rgmii_cfg",
        at: "drivers/net/phy/dp83867.c:537, 545 (phy_attach_direct -> phy_init_hw: drivers/net/phy/phy_device.c:1663, 1311; macb_open: drivers/net/ethernet/cadence/macb_main.c:3108)",
        effect: "returns -EINVAL (\"ti,rx-internal-delay must be specified\"): `ip link set up` fails with Invalid argument",
    },
    OpenRow {
        rule: crate::Rule::OpenPhyIsConverter,
        need: OpenNeed::PhyIsPhy,
        drivers: &[Driver::Macb, Driver::Axienet],
        flavours: &[],
        props: &["phy-handle"],
        function: "macb_open -> macb_phylink_connect / axienet_open -> phylink_of_phy_connect -> phylink_fwnode_phy_connect -> fwnode_phy_find_device",
        at: "drivers/net/phy/phylink.c:2108 (fwnode_phy_find_device: drivers/net/phy/phy_device.c:3519-3524; of_mdiobus_child_is_phy: drivers/net/mdio/of_mdio.c:135-138)",
        effect: "returns -ENODEV: the node phy-handle names is an MDIO device with a non-PHY compatible, not a PHY",
    },
    OpenRow {
        rule: crate::Rule::OpenDmaClocks,
        need: OpenNeed::DmaClocksEnabled,
        drivers: &[Driver::Axienet, Driver::Xxv, Driver::XxvMcdma],
        flavours: &[],
        props: &["clocks", "clock-names"],
        function: "axienet_probe -> axienet_dma_clk_init: devm_clk_get(&pdev->dev, \"m_axi_mm2s_aclk\" / \"m_axi_s2mm_aclk\" / \"m_axi_sg_aclk\")",
        at: "linux-xlnx drivers/net/ethernet/xilinx/xilinx_axienet_main.c (the Ethernet device, not the DMA node); mainline 6.12 axienet_probe takes no DMA clock",
        effect: "nothing enables the DMA's clock: clk_disable_unused gates it at late init and the DMA reset at open (axienet_device_reset) reads an unclocked register window",
    },
];

/// Clock names each flavour's axienet enables on the Ethernet node
/// (`axistream-connected`): mainline 6.12 axienet_probe `s_axi_lite_clk`
/// and the bulk `axis_clk`, `ref_clk`, `mgt_clk`; linux-xlnx
/// `axienet_clk_init`/`xxvenet_clk_init` plus `axienet_dma_clk_init`'s DMA
/// names.
pub fn enabled_clock_names(driver: Driver, flavour: KernelFlavour) -> Vec<&'static str> {
    let mut v: Vec<&str> = if driver.is_xxv() { MAC_CLOCKS_XXV.to_vec() } else { MAC_CLOCKS_1G.to_vec() };
    if flavour == KernelFlavour::LinuxXlnx {
        v.extend(["m_axi_mm2s_aclk", "m_axi_s2mm_aclk", "m_axi_sg_aclk"]);
    }
    v
}

/// A node as an open row reads it: the node a board will generate
/// (`check`) or a node of a compiled tree (`dtb verify`).
pub trait OpenNode {
    /// Whether the Ethernet node has a property.
    fn has(&self, prop: &str) -> bool;
    /// A string property of the Ethernet node.
    fn string(&self, prop: &str) -> Option<String>;
    /// Whether the Ethernet node has a child of this name.
    fn has_child(&self, name: &str) -> bool;
    /// The Ethernet node's clocks as `(clock-name, specifier)`; specifiers
    /// compare equal when they name the same clock.
    fn clocks(&self) -> Vec<(String, String)>;
    /// The clocks of the DMA node `axistream-connected` names (`None`: no
    /// such node).
    fn dma_clocks(&self) -> Option<Vec<(String, String)>>;
    /// What is known of the PHY node `phy-handle` names (`None`: no such
    /// node, or not decided here).
    fn phy(&self) -> Option<PhyFacts>;
}

/// The rows of [`OPEN`] a port's node fails, each with the reason.
pub fn open_problems(driver: Driver, flavour: KernelFlavour, n: &dyn OpenNode) -> Vec<(&'static OpenRow, String)> {
    let mut out = Vec::new();
    let in_band = n.string("managed").as_deref() == Some("in-band-status");
    let fixed = n.has_child("fixed-link") || n.has("fixed-link");
    let own_dma = !n.has("dmas");
    for r in OPEN {
        if !r.drivers.contains(&driver) || !(r.flavours.is_empty() || r.flavours.contains(&flavour)) {
            continue;
        }
        let problem = match r.need {
            OpenNeed::PhylinkLink => {
                let phy = ["phy-handle", "phy", "phy-device"].iter().any(|p| n.has(p));
                (!phy && !fixed && !in_band).then(|| {
                    let extra: Vec<&str> = ["sfp", "pcs-handle"].into_iter().filter(|p| n.has(p)).collect();
                    let also = if extra.is_empty() {
                        String::new()
                    } else {
                        format!(" (`{}` does not count: phylink still wants a PHY)", extra.join("`, `"))
                    };
                    format!("no phy-handle, fixed-link or managed = \"in-band-status\"{also}")
                })
            }
            OpenNeed::PhyOrFixedLink => {
                (!n.has("phy-handle") && !fixed && !in_band).then(|| "no phy-handle and no fixed-link".to_string())
            }
            OpenNeed::MacIrq => (own_dma && !n.has("xlnx,eth-hasnobuf") && !n.has("interrupts"))
                .then(|| "no MAC interrupt (`interrupts` index 0)".to_string()),
            OpenNeed::DmaClocksEnabled => {
                let enabled = enabled_clock_names(driver, flavour);
                let on: Vec<String> =
                    n.clocks().into_iter().filter(|(name, _)| enabled.contains(&name.as_str())).map(|c| c.1).collect();
                let off: Vec<String> = n
                    .dma_clocks()
                    .filter(|_| own_dma)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|(_, spec)| !on.contains(spec))
                    .map(|(name, _)| name)
                    .collect();
                (!off.is_empty()).then(|| {
                    format!(
                        "the DMA node's {} {} no clock the Ethernet node enables ({})",
                        off.join(", "),
                        if off.len() == 1 { "is" } else { "are" },
                        enabled.join(", ")
                    )
                })
            }
            OpenNeed::PhyIsPhy => n
                .phy()
                .filter(|p| p.converter)
                .map(|_| format!("phy-handle names a GMII-to-RGMII converter ({GMII2RGMII_COMPATIBLE})")),
            OpenNeed::PhyRgmiiDelays => {
                let mode = n.string("phy-mode").or_else(|| n.string("phy-connection-type"));
                mode.zip(n.phy()).and_then(|(m, phy)| dp83867_delay_problem(&m, &phy))
            }
        };
        if let Some(p) = problem {
            out.push((r, p));
        }
    }
    out
}

/// One open problem as a line: `rule-id`, what is missing, the function
/// that fails, where it is and what happens.
pub fn open_message(r: &OpenRow, problem: &str) -> String {
    format!("{problem}: {} fails at open ({}): {}", r.function, r.at, r.effect)
}

/// The DMA clock names linux-xlnx `axienet_dma_clk_init` reads from the
/// Ethernet node, in the order the Xilinx device-tree generator writes them.
pub const DMA_CLOCKS_ON_MAC: &[&str] = &["m_axi_sg_aclk", "m_axi_mm2s_aclk", "m_axi_s2mm_aclk"];

/// The clock inputs of a PL MAC node and its DMA engine (`dt.node`), as
/// [`mac_clock_names_written`] reads them: one shape for the raw node
/// ([`crate::model::PlEthernet`]) and the resolved board's.
#[derive(Debug, Clone, Copy)]
pub struct PlClocks<'a> {
    /// `dmas`: mainline dmaengine style when `Some(true)`.
    pub dmas: Option<bool>,
    /// The one clock for every input not named in `clocks`.
    pub clock: Option<&'a crate::model::ClockRef>,
    /// The MAC's clocks by the driver's clock name.
    pub clocks: &'a std::collections::BTreeMap<String, crate::model::ClockRef>,
    /// The DMA engine's clocks by clock name.
    pub dma_clocks: &'a std::collections::BTreeMap<String, crate::model::ClockRef>,
}

impl<'a> PlClocks<'a> {
    /// The clock inputs of a raw node.
    pub fn of(n: &'a crate::model::PlEthernet) -> PlClocks<'a> {
        PlClocks { dmas: n.dmas, clock: n.clock.as_ref(), clocks: &n.clocks, dma_clocks: &n.dma.clocks }
    }
}

/// A clock as the board gives it, as a comparable specifier.
fn clock_spec(c: &crate::model::ClockRef) -> String {
    match c.index {
        Some(i) => format!("<&{} {i}>", c.label),
        None => format!("<&{}>", c.label),
    }
}

/// The clock names a generated PL MAC node carries: the MAC's own and, on
/// linux-xlnx with `axistream-connected`, the DMA names of
/// [`DMA_CLOCKS_ON_MAC`] when a DMA clock is not already one of the MAC's
/// (axienet_dma_clk_init reads them from the Ethernet node; the Xilinx
/// generator writes them there).
///
/// `n` is the port's clock inputs ([`PlClocks::of`] a raw node; the
/// resolved board's node gives the same fields).
pub fn mac_clock_names_written(driver: Driver, flavour: KernelFlavour, n: PlClocks<'_>) -> Vec<&'static str> {
    let mac: Vec<&str> = if driver.is_xxv() { MAC_CLOCKS_XXV.to_vec() } else { MAC_CLOCKS_1G.to_vec() };
    if flavour != KernelFlavour::LinuxXlnx || n.dmas == Some(true) {
        return mac;
    }
    let pick = |map: &std::collections::BTreeMap<String, crate::model::ClockRef>, name: &str| {
        map.get(name).or(n.clock).map(clock_spec)
    };
    let mac_specs: Vec<Option<String>> = mac.iter().map(|m| pick(n.clocks, m)).collect();
    let needs = DMA_CLOCKS_ON_MAC.iter().any(|d| !mac_specs.contains(&pick(n.dma_clocks, d)));
    if needs {
        [mac, DMA_CLOCKS_ON_MAC.to_vec()].concat()
    } else {
        mac
    }
}

/// The node a full PL port (`dt.node`) will be generated as, for the open
/// rows at `check` time (render's dt.rs writes the same properties).
pub struct PlannedNode<'a> {
    /// The port's device-tree section.
    pub dt: &'a crate::model::IfaceDt,
    /// Its PL node.
    pub node: &'a crate::model::PlEthernet,
    /// The port's driver.
    pub driver: Driver,
    /// The board's kernel flavour.
    pub flavour: KernelFlavour,
}

impl OpenNode for PlannedNode<'_> {
    fn has(&self, prop: &str) -> bool {
        let d = self.dt;
        match prop {
            "phy-handle" => d.phy_handle.is_some(),
            "pcs-handle" => d.pcs_handle.is_some(),
            "managed" => d.managed.is_some(),
            "sfp" => d.sfp.is_some(),
            "dmas" => self.node.dmas == Some(true),
            "interrupts" => !self.node.interrupts.is_empty(),
            _ => false,
        }
    }
    fn string(&self, prop: &str) -> Option<String> {
        match prop {
            "managed" => self.dt.managed.map(|m| m.as_str().to_string()),
            "phy-mode" => self.dt.phy_mode.clone(),
            _ => None,
        }
    }
    fn has_child(&self, name: &str) -> bool {
        name == "fixed-link" && self.dt.fixed_link.is_some()
    }
    fn clocks(&self) -> Vec<(String, String)> {
        let n = self.node;
        mac_clock_names_written(self.driver, self.flavour, PlClocks::of(n))
            .into_iter()
            .filter_map(|name| {
                let map = if DMA_CLOCKS_ON_MAC.contains(&name) && !MAC_CLOCKS_1G.contains(&name) {
                    &n.dma.clocks
                } else {
                    &n.clocks
                };
                map.get(name).or(n.clock.as_ref()).map(|c| (name.to_string(), clock_spec(c)))
            })
            .collect()
    }
    fn phy(&self) -> Option<PhyFacts> {
        // `check` runs the PHY row on every port, full or patched
        // (validate.rs), from the board's MDIO devices.
        None
    }
    fn dma_clocks(&self) -> Option<Vec<(String, String)>> {
        let n = self.node;
        if n.dmas == Some(true) {
            return None;
        }
        Some(
            DMA_CLOCKS_ETH
                .iter()
                .filter_map(|name| {
                    n.dma.clocks.get(*name).or(n.clock.as_ref()).map(|c| (name.to_string(), clock_spec(c)))
                })
                .collect(),
        )
    }
}

/// I2C muxes an SFP cage's bus may be a channel of: `compatible` -> the
/// Kconfig symbols its driver needs, dependency-closed (Linux 6.12:
/// drivers/i2c/Kconfig I2C_MUX; drivers/i2c/muxes/Kconfig, the menu
/// depends on I2C_MUX: I2C_MUX_PCA954x depends on GPIOLIB || COMPILE_TEST,
/// I2C_MUX_GPIO on GPIOLIB). Compatibles from the drivers' of_match
/// tables (i2c-mux-pca954x.c pca954x_of_match, i2c-mux-gpio.c).
pub const I2C_MUXES: &[(&[&str], &[&str])] = &[
    (
        &[
            "nxp,pca9540",
            "nxp,pca9542",
            "nxp,pca9543",
            "nxp,pca9544",
            "nxp,pca9545",
            "nxp,pca9546",
            "nxp,pca9547",
            "nxp,pca9548",
            "nxp,pca9846",
            "nxp,pca9847",
            "nxp,pca9848",
            "nxp,pca9849",
            "maxim,max7356",
            "maxim,max7357",
            "maxim,max7358",
            "maxim,max7367",
            "maxim,max7368",
            "maxim,max7369",
        ],
        &["I2C_MUX", "GPIOLIB", "I2C_MUX_PCA954x"],
    ),
    (&["i2c-mux-gpio"], &["I2C_MUX", "GPIOLIB", "I2C_MUX_GPIO"]),
];

/// The Kconfig symbols of an I2C mux's driver, by its `compatible`.
pub fn i2c_mux_symbols(compatible: &str) -> Option<&'static [&'static str]> {
    I2C_MUXES.iter().find(|(c, _)| c.contains(&compatible)).map(|(_, s)| *s)
}

/// Whether an `i2c_bus` path goes through an I2C mux node (`i2c-mux@N`,
/// the node name Documentation/devicetree/bindings/i2c/i2c-mux.yaml gives).
pub fn path_through_mux(path: &str) -> bool {
    path.starts_with('/') && path.split('/').any(|c| c == "i2c-mux" || c.starts_with("i2c-mux@"))
}

/// The SoC's own I2C and GPIO controllers as its kernel .dtsi labels them,
/// with the Kconfig symbols of their drivers (dependency-closed, 6.12):
/// zynqmp.dtsi `i2c0`/`i2c1` (`cdns,i2c-r1p14`) and `gpio`
/// (`xlnx,zynqmp-gpio-1.0`); zynq-7000.dtsi `i2c0`/`i2c1`
/// (`cdns,i2c-r1p10`) and `gpio0` (`xlnx,zynq-gpio-1.0`).
/// drivers/i2c/busses/Kconfig: I2C_CADENCE depends on ARCH_ZYNQ || ARM64
/// || ...; drivers/gpio/Kconfig: GPIO_ZYNQ depends on ARCH_ZYNQ ||
/// ARCH_ZYNQMP, inside `if GPIOLIB`. arm64 defconfig has I2C_CADENCE only
/// as a module and no GPIO_ZYNQ.
pub struct SocControllers {
    /// Labels of the I2C controllers.
    pub i2c_labels: &'static [&'static str],
    /// Unit addresses of the I2C controllers (a path's `i2c@ADDR`).
    pub i2c_addrs: &'static [&'static str],
    /// The I2C controller driver's symbols.
    pub i2c_symbols: &'static [&'static str],
    /// Label of the GPIO controller.
    pub gpio_label: &'static str,
    /// The GPIO controller driver's symbols.
    pub gpio_symbols: &'static [&'static str],
}

/// [`SocControllers`] of a SoC, where the tables know it.
pub fn soc_controllers(soc: Soc) -> Option<SocControllers> {
    match soc {
        Soc::Zynqmp => Some(SocControllers {
            i2c_labels: &["i2c0", "i2c1"],
            i2c_addrs: &["i2c@ff020000", "i2c@ff030000"],
            i2c_symbols: &["I2C", "I2C_CADENCE"],
            gpio_label: "gpio",
            gpio_symbols: &["GPIOLIB", "GPIO_ZYNQ"],
        }),
        Soc::Zynq7000 => Some(SocControllers {
            i2c_labels: &["i2c0", "i2c1"],
            i2c_addrs: &["i2c@e0004000", "i2c@e0005000"],
            i2c_symbols: &["I2C", "I2C_CADENCE"],
            gpio_label: "gpio0",
            gpio_symbols: &["GPIOLIB", "GPIO_ZYNQ"],
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every driver the board format names: the `const`/`enum` strings of
    /// the schema of [`Driver`], each parsed back.
    fn all_drivers() -> Vec<Driver> {
        fn names(v: &serde_json::Value, out: &mut Vec<String>) {
            match v {
                serde_json::Value::Object(m) => {
                    for (k, x) in m {
                        match (k.as_str(), x) {
                            ("const", serde_json::Value::String(s)) => out.push(s.clone()),
                            ("enum", serde_json::Value::Array(a)) => {
                                out.extend(a.iter().filter_map(|s| s.as_str().map(str::to_string)));
                            }
                            _ => names(x, out),
                        }
                    }
                }
                serde_json::Value::Array(a) => a.iter().for_each(|x| names(x, out)),
                _ => {}
            }
        }
        let mut out = Vec::new();
        names(&serde_json::to_value(schemars::schema_for!(Driver)).expect("schema"), &mut out);
        out.iter().map(|n| serde_json::from_value(serde_json::Value::String(n.clone())).expect(n)).collect()
    }

    /// Each driver's row is its own, and its facts hang together: Kconfig
    /// symbols to build it, a probe table exactly for the device-tree MACs
    /// (those with compatibles), a PL MAC only with one of axienet's tables,
    /// no SoC both with on-chip MACs and without the MAC, sane ring limits.
    #[test]
    fn every_driver_has_a_consistent_row_of_its_own() {
        let all = all_drivers();
        assert_eq!(all.len(), 8, "{all:?}");
        for d in all {
            let f = facts(d);
            assert_eq!(f.driver, d, "facts({d:?}) is the row of {:?}", f.driver);
            assert!(!f.kconfig.is_empty(), "{d:?}: no Kconfig symbol");
            assert_eq!(f.probe == ProbeTable::None, f.compatibles.is_empty(), "{d:?}: probe table vs compatibles");
            let axi_table = matches!(f.probe, ProbeTable::Axienet | ProbeTable::Xxv | ProbeTable::XxvMcdma);
            assert_eq!(f.pl.is_some(), axi_table, "{d:?}: PL MAC vs probe table");
            assert!(f.on_chip.iter().all(|m| !f.not_on.contains(&m.0)), "{d:?}: on-chip MACs on a SoC it is not on");
            for soc in [Soc::Zynqmp, Soc::Zynq7000, Soc::QoriqP1010, Soc::QoriqP1020, Soc::QoriqP2020, Soc::Generic] {
                let c = (f.caps)(soc);
                for r in [c.rx_ring, c.tx_ring].into_iter().flatten() {
                    assert!(1 <= r.min && r.min <= r.max, "{d:?} on {soc:?}: ring {r:?}");
                }
                assert!(c.max_mtu >= 1500 - 18 && c.max_tx_queues >= 1, "{d:?} on {soc:?}");
            }
        }
    }

    /// Values read in linux-source-6.12, pinned row by row.
    #[test]
    fn rows_hold_the_values_of_the_driver_sources() {
        // macb_main.c MAX_RX_RING_SIZE 8192, MAX_TX_RING_SIZE 4096.
        let m = caps(Driver::Macb, Soc::Zynqmp);
        assert_eq!((m.rx_ring.map(|r| r.max), m.tx_ring.map(|r| r.max)), (Some(8192), Some(4096)));
        // xilinx_axienet_main.c TX_BD_NUM_MIN = MAX_SKB_FRAGS + 1.
        for d in [Driver::Axienet, Driver::Xxv, Driver::XxvMcdma] {
            assert_eq!(caps(d, Soc::Zynqmp).tx_ring.map(|r| (r.min, r.max)), Some((18, 4096)), "{d:?}");
        }
        assert_eq!(caps(Driver::Xxv, Soc::Zynqmp).max_tx_queues, 1);
        assert_eq!(caps(Driver::XxvMcdma, Soc::Zynqmp).max_tx_queues, 16);
        assert_eq!(facts(Driver::Gianfar).phy_mode_prop, "phy-connection-type");
        assert_eq!(crate::limits::on_chip_macs(Soc::QoriqP1020, Driver::Gianfar), Some((3, "eTSEC1-3")));
        assert_eq!(crate::limits::on_chip_macs(Soc::QoriqP2020, Driver::Gianfar), None);
    }
}
