//! What each Ethernet driver accepts, from its `ethtool_ops` and probe code
//! in Debian's linux-source-6.12. Every limit names the file it comes from.

use crate::model::{Driver, Soc};

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

/// Capabilities of `driver` on `soc`.
pub fn caps(driver: Driver, soc: Soc) -> DriverCaps {
    match driver {
        // macb_main.c: macb_set_ringparam clamps rx to 64..8192 (MIN/MAX_RX_RING_SIZE),
        // tx to 64..4096, then roundup_pow_of_two() and reopens the device; no
        // set_coalesce; max_mtu = jumbo_max_len - ETH_HLEN - ETH_FCS_LEN
        // (zynqmp_config: 10240 -> 10222), 1536 - 18 = 1518 without jumbo (Zynq-7000:
        // zynq_config has no MACB_CAPS_JUMBO). Queues: macb_probe_queues counts what
        // the GEM reports (DCFG6, at most MACB_MAX_QUEUES = 8) and macb_init takes one
        // IRQ per queue (platform_get_irq(pdev, q)); the Zynq-7000 GEM has one queue
        // (zynq-7000.dtsi: one interrupt per GEM; UG585 ch. 16: no priority queues).
        Driver::Macb => DriverCaps {
            source: "drivers/net/ethernet/cadence/macb_main.c",
            rx_ring: ring(64, 8192, false, true),
            tx_ring: ring(64, 4096, false, true),
            coalesce: &[],
            max_mtu: if soc == Soc::Zynq7000 { 1518 } else { 10222 },
            max_tx_queues: if soc == Soc::Zynq7000 { 1 } else { 8 },
            zero_copy_rx: false,
        },
        // gianfar_ethtool.c: gfar_sringparam rejects > GFAR_{RX,TX}_MAX_RING_SIZE (256)
        // and non-powers of two; gfar_scoalesce: usecs <= 0xffff, frames <= 0xff.
        // gianfar.c: max_mtu = GFAR_JUMBO_FRAME_SIZE (9600) - ETH_HLEN = 9586;
        // one TX queue per queue-group (P1020 eTSEC: 2 groups).
        Driver::Gianfar => DriverCaps {
            source: "drivers/net/ethernet/freescale/gianfar_ethtool.c",
            rx_ring: ring(1, 256, true, false),
            tx_ring: ring(1, 256, true, false),
            coalesce: GIANFAR_COAL,
            max_mtu: 9586,
            max_tx_queues: soc.etsec_queues().map_or(8, |q| q.0),
            zero_copy_rx: false,
        },
        // xilinx_axienet_main.c: RX_BD_NUM_MAX = TX_BD_NUM_MAX = 4096,
        // TX_BD_NUM_MIN = MAX_SKB_FRAGS + 1 (18); coalesce frames <= 255;
        // max_mtu = XAE_JUMBO_MTU (9000) with jumbo frames in the IP.
        Driver::Axienet => DriverCaps {
            source: "drivers/net/ethernet/xilinx/xilinx_axienet_main.c",
            rx_ring: ring(64, 4096, false, false),
            tx_ring: ring(18, 4096, false, false),
            coalesce: AXIENET_COAL,
            max_mtu: 9000,
            max_tx_queues: 1,
            zero_copy_rx: false,
        },
        // linux-xlnx xilinx_axienet_mcdma.c: same limits, one queue per MCDMA channel
        // (at most 16); -G/-C only while the interface is down.
        Driver::XxvMcdma | Driver::Xxv => DriverCaps {
            source: "linux-xlnx drivers/net/ethernet/xilinx/xilinx_axienet_mcdma.c",
            rx_ring: ring(64, 4096, false, false),
            tx_ring: ring(18, 4096, false, false),
            coalesce: AXIENET_COAL,
            max_mtu: 9000,
            max_tx_queues: if driver == Driver::Xxv { 1 } else { 16 },
            zero_copy_rx: false,
        },
        // mlx5/core/en.h: MLX5E_PARAMS_{MINIMUM,MAXIMUM}_LOG_{SQ,RQ}_SIZE: 64..8192,
        // rounded up to a power of two; en_ethtool.c coalescing; queue API for zcrx.
        Driver::Mlx5 => DriverCaps {
            source: "drivers/net/ethernet/mellanox/mlx5/core/en_ethtool.c",
            rx_ring: ring(64, 8192, false, true),
            tx_ring: ring(64, 8192, false, true),
            coalesce: MLX5_COAL,
            max_mtu: 9978,
            max_tx_queues: 1024,
            zero_copy_rx: true,
        },
        // virtio_net.c: ring resize up to the device's maximum; coalescing with
        // VIRTIO_NET_F_NOTF_COAL only.
        Driver::VirtioNet => DriverCaps {
            source: "drivers/net/virtio_net.c",
            rx_ring: ring(1, 32768, false, false),
            tx_ring: ring(1, 32768, false, false),
            coalesce: VIRTIO_COAL,
            max_mtu: 65535,
            max_tx_queues: 1024,
            zero_copy_rx: false,
        },
        // veth.c: no set_ringparam, no set_coalesce; max_mtu = ETH_MAX_MTU.
        Driver::Veth => DriverCaps {
            source: "drivers/net/veth.c",
            rx_ring: None,
            tx_ring: None,
            coalesce: &[],
            max_mtu: 65535,
            max_tx_queues: 4096,
            zero_copy_rx: false,
        },
    }
}

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
