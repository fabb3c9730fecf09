//! The typed board description (board format v1).
//!
//! These types are the single source of truth: the JSON Schema that editors
//! use (`zynq-net schema`) is derived from them with `schemars`, and the YAML
//! loader validates a board file against that schema before deserializing it
//! into these types. Unknown keys are errors (`deny_unknown_fields`).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::bench::Bench;
use crate::cpus::CpuList;

/// Version of the board format this model reads (`version:` header).
pub const FORMAT_VERSION: u32 = 1;

/// A board description, format version 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "zynq-net board description", extend("$id" = "https://zynq-net.dev/schema/board-v1.json"))]
pub struct Board {
    /// Board format version; must be 1.
    #[schemars(range(min = 1, max = 1))]
    pub version: u32,
    /// The board: SoC, CPUs, Yocto MACHINE and kernel flavour.
    pub board: BoardInfo,
    /// System-wide settings: sysctl, RFS table, irqbalance, forwarding.
    #[serde(default)]
    pub system: System,
    /// Forwarding fast path: nftables flowtable or (legacy) Freescale ASF.
    #[serde(default)]
    pub fastpath: Fastpath,
    /// Network interfaces, in the order the kernel names them.
    #[schemars(length(min = 1))]
    pub interfaces: Vec<Interface>,
    /// Benchmark description used by `zynq-net bench`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bench: Option<Bench>,
}

/// The hardware and software platform of the board.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BoardInfo {
    /// Board name (used in file headers and reports): letters, digits, `-`, `_`.
    #[schemars(regex(pattern = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"))]
    pub name: String,
    /// SoC family; selects driver limits, the interrupt controller and DT conventions.
    pub soc: Soc,
    /// Number of CPUs of the SoC (CPU numbers in the board are 0..cpus-1).
    #[schemars(range(min = 1, max = 4096))]
    pub cpus: u32,
    /// Yocto MACHINE the board is built with (e.g. `zcu102-zynqmp`, `p1020rdb`).
    #[schemars(regex(pattern = r"^[a-z0-9][a-z0-9_-]*$"))]
    pub machine: String,
    /// Kernel flavour; selects the device-tree binding style and vendor-only symbols.
    pub kernel: KernelFlavour,
    /// Kernel architecture (`ARCH=` of the kernel build).
    pub arch: Arch,
    /// Board device tree source inside the kernel tree, relative to
    /// `arch/ARCH/boot/dts/` (e.g. `xilinx/zynqmp-zcu102-rev1.0.dts`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dts: Option<String>,
    /// Kernel defconfig the board's kernel starts from (e.g. `mpc85xx_smp_defconfig`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defconfig: Option<String>,
}

/// SoC family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Soc {
    /// Xilinx/AMD Zynq UltraScale+ MPSoC (4x Cortex-A53, GIC-400).
    Zynqmp,
    /// Xilinx/AMD Zynq-7000 (2x Cortex-A9, GIC-390).
    Zynq7000,
    /// NXP/Freescale QorIQ P1010 (1x e500v2, MPIC; eTSEC2 with one queue group).
    QoriqP1010,
    /// NXP/Freescale QorIQ P1020 (2x e500v2, MPIC; eTSEC2 with two queue groups).
    QoriqP1020,
    /// NXP/Freescale QorIQ P2020 (2x e500v2, MPIC; eTSEC1: one queue).
    QoriqP2020,
    /// Anything else (PC, server, virtual machine).
    Generic,
}

impl Soc {
    /// Whether the SoC's interrupt controller delivers each interrupt to exactly
    /// one CPU (GIC-400/GIC-390 on Zynq, MPIC on QorIQ): a multi-CPU
    /// `smp_affinity` mask then does not spread load (check `effective_affinity`).
    pub fn single_destination_irqs(self) -> Option<&'static str> {
        match self {
            Soc::Zynqmp => Some("GIC-400"),
            Soc::Zynq7000 => Some("GIC-390"),
            Soc::QoriqP1010 | Soc::QoriqP1020 | Soc::QoriqP2020 => Some("MPIC"),
            Soc::Generic => None,
        }
    }

    /// A QorIQ e500v2 SoC (P1010, P1020, P2020): powerpc, MPIC, eTSEC.
    pub fn is_qoriq(self) -> bool {
        matches!(self, Soc::QoriqP1010 | Soc::QoriqP1020 | Soc::QoriqP2020)
    }

    /// Queues of one eTSEC port, with the kernel device tree it comes from.
    /// gianfar.c `gfar_of_init`: an `fsl,etsec2` node gets one RX and one TX
    /// queue per `queue-group` child (at most MAXGROUPS = 2), any other
    /// (`gianfar`, eTSEC1) one queue. arch/powerpc/boot/dts/fsl:
    /// p1020si-post.dtsi includes pq3-etsec2-N.dtsi plus
    /// pq3-etsec2-grp2-N.dtsi (2 groups); p1010si-post.dtsi only
    /// pq3-etsec2-N.dtsi (1 group); p2020si-post.dtsi pq3-etsec1-N.dtsi.
    pub fn etsec_queues(self) -> Option<(u32, &'static str)> {
        match self {
            Soc::QoriqP1020 => Some((2, "p1020si-post.dtsi: eTSEC2 with 2 queue-groups")),
            Soc::QoriqP1010 => Some((1, "p1010si-post.dtsi: eTSEC2 with 1 queue-group")),
            Soc::QoriqP2020 => Some((1, "p2020si-post.dtsi: eTSEC1, single queue")),
            _ => None,
        }
    }

    /// The PL-to-PS interrupt lines as GIC SPI ranges (IRQ ID - 32): ZynqMP
    /// `pl_ps_irq0..7` = SPI 89-96 and `pl_ps_irq8..15` = SPI 104-111 (UG1085
    /// table 13-1); Zynq-7000 `IRQ_F2P[7:0]` = SPI 29-36 and `IRQ_F2P[15:8]` =
    /// SPI 52-59 (UG585 table 7-4). `None` off Zynq.
    pub fn pl_irq_spis(self) -> Option<[std::ops::RangeInclusive<u32>; 2]> {
        match self {
            Soc::Zynqmp => Some([89..=96, 104..=111]),
            Soc::Zynq7000 => Some([29..=36, 52..=59]),
            _ => None,
        }
    }
}

/// Kernel flavour the image is built with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum KernelFlavour {
    /// kernel.org / linux-yocto.
    Mainline,
    /// AMD/Xilinx linux-xlnx (meta-xilinx).
    LinuxXlnx,
    /// NXP linux-qoriq (meta-freescale, current).
    LinuxQoriq,
    /// The legacy Freescale QorIQ SDK kernel (has ASF, `CONFIG_AS_FASTPATH`).
    QoriqSdk,
}

/// Kernel architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Arch {
    /// 64-bit Arm.
    Arm64,
    /// 32-bit Arm.
    Arm,
    /// PowerPC (32-bit e500 included).
    Powerpc,
    /// x86-64.
    X86_64,
}

/// irqbalance policy of the image.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Irqbalance {
    /// The image has no irqbalance (default).
    #[default]
    Absent,
    /// The image has irqbalance; generate a policy that bans the IRQs the board pins.
    BanPinned,
    /// The image has irqbalance and it balances everything (then the board
    /// must not pin IRQs: irqbalance would undo it).
    Running,
}

/// A sysctl value as written to `/proc/sys`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SysctlValue {
    /// An integer.
    Int(i64),
    /// A string, e.g. `"4096 87380 6291456"` (validated: printable, no quotes).
    Text(String),
}

/// System-wide settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct System {
    /// sysctl keys (dotted, as in `sysctl.conf`) and values.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub sysctl: BTreeMap<String, SysctlValue>,
    /// RFS global flow table size, `net.core.rps_sock_flow_entries`
    /// (Documentation/networking/scaling.rst; rounded up to a power of two).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rfs_sock_flow_entries: Option<u32>,
    /// irqbalance policy of the image.
    #[serde(default)]
    pub irqbalance: Irqbalance,
    /// IPv4 forwarding (`net.ipv4.ip_forward`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ip_forward: Option<bool>,
    /// Connection tracking table size (`net.netfilter.nf_conntrack_max`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conntrack_max: Option<u32>,
}

/// Forwarding fast path.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fastpath {
    /// nftables flowtable (current kernels: `NF_FLOW_TABLE`, `NFT_FLOW_OFFLOAD`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flowtable: Option<Flowtable>,
    /// Freescale ASF (only with the `qoriq-sdk` kernel flavour).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asf: Option<Asf>,
}

/// nftables flowtable over a set of interfaces.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Flowtable {
    /// Interfaces (names from `interfaces`) in the flowtable's `devices`.
    #[schemars(length(min = 1))]
    pub interfaces: Vec<String>,
    /// Request hardware offload (`flags offload`), where the driver supports it.
    #[serde(default)]
    pub hw_offload: bool,
}

/// Freescale Application Specific Fastpath (QorIQ SDK kernels only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Asf {
    /// Kernel modules to load, in order.
    #[serde(default = "default_asf_modules")]
    pub modules: Vec<String>,
    /// UDP flow timeout in seconds (`/sys/asfctrl/ffp/asfctrl_ffp_udp_tmout`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub udp_timeout_s: Option<u32>,
    /// Connection tracking maximum for ASF flows (`nf_conntrack_max`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conntrack_max: Option<u32>,
}

fn default_asf_modules() -> Vec<String> {
    vec!["asf".into(), "asfctrl".into()]
}

/// Ethernet driver of an interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Driver {
    /// Cadence GEM (Zynq/ZynqMP PS Ethernet), drivers/net/ethernet/cadence/macb_main.c.
    Macb,
    /// Xilinx AXI 1G/2.5G Ethernet, drivers/net/ethernet/xilinx/xilinx_axienet_main.c.
    Axienet,
    /// Xilinx 10G/25G XXV Ethernet over AXI MCDMA (linux-xlnx axienet with MCDMA).
    XxvMcdma,
    /// Xilinx 10G/25G XXV Ethernet over a plain AXI DMA (linux-xlnx axienet
    /// built without `CONFIG_AXIENET_HAS_MCDMA`).
    Xxv,
    /// Freescale eTSEC, drivers/net/ethernet/freescale/gianfar.c.
    Gianfar,
    /// NVIDIA/Mellanox ConnectX, drivers/net/ethernet/mellanox/mlx5/core.
    Mlx5,
    /// virtio-net.
    VirtioNet,
    /// Virtual Ethernet pair (tests, labs).
    Veth,
}

/// Hardware queue counts of an interface (after `channels` is applied).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Queues {
    /// Number of RX queues (`/sys/class/net/IFACE/queues/rx-N`).
    #[schemars(range(min = 1, max = 1024))]
    pub rx: u32,
    /// Number of TX queues (`/sys/class/net/IFACE/queues/tx-N`).
    #[schemars(range(min = 1, max = 1024))]
    pub tx: u32,
}

/// `ethtool -L` channel counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Channels {
    /// RX-only channels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rx: Option<u32>,
    /// TX-only channels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx: Option<u32>,
    /// Combined channels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub combined: Option<u32>,
}

/// `ethtool -G` ring parameters, in descriptors.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rings {
    /// RX ring size (descriptors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rx: Option<u32>,
    /// TX ring size (descriptors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx: Option<u32>,
}

/// On/off switch, as `ethtool -K` spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OnOff {
    /// Enabled.
    On,
    /// Disabled.
    Off,
}

impl OnOff {
    /// `on` or `off`.
    pub fn as_str(self) -> &'static str {
        match self {
            OnOff::On => "on",
            OnOff::Off => "off",
        }
    }
}

/// A queue selector: one queue index or `all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum QueueSel {
    /// One queue, by index.
    One(u32),
    /// Every queue of that direction.
    All(AllQueues),
}

/// The word `all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AllQueues {
    /// Every queue.
    All,
}

/// CPUs for one queue (RPS: RX queue, XPS: TX queue).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueueCpus {
    /// Queue index, or `all`.
    pub queue: QueueSel,
    /// CPU list, e.g. `"0-3"` or `2`.
    pub cpus: CpuList,
}

/// IRQ affinity for the IRQs whose `/proc/interrupts` name matches a pattern.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IrqAffinity {
    /// Glob pattern over the IRQ action name in `/proc/interrupts`
    /// (macb: the interface name, `eth0`, macb_main.c requests its IRQs
    /// with `dev->name`; gianfar: `eth0_g0_rx`; never a number).
    #[schemars(regex(pattern = r"^[A-Za-z0-9_.:@*?-]{1,64}$"))]
    pub irq: String,
    /// CPU list, e.g. `"1"`.
    pub cpus: CpuList,
}

/// Root qdisc.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Qdisc {
    /// Qdisc kind; `multiq` (one band per TX queue, net/sched/sch_multiq.c).
    pub kind: QdiscKind,
    /// u32 filters with a skbedit queue-mapping action.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filters: Vec<QueueFilter>,
}

/// Supported root qdisc kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum QdiscKind {
    /// Multiqueue band qdisc.
    Multiq,
}

/// `u32 match ip {src|dst} ADDR action skbedit queue_mapping QUEUE`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueueFilter {
    /// Which address field to match.
    #[serde(rename = "match")]
    pub match_: MatchField,
    /// IPv4 address with optional prefix length (`192.168.0.3`, `10.0.0.0/8`).
    pub address: String,
    /// TX queue to map to (must be below the TX queue count, net/sched/act_skbedit.c).
    pub queue: u32,
}

/// Address field of a u32 match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MatchField {
    /// Source address.
    Src,
    /// Destination address.
    Dst,
}

/// A dedicated zero-copy receive queue (io_uring zcrx, Linux 6.15+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ZeroCopyRx {
    /// RX queue dedicated to zero-copy receive.
    pub queue: u32,
    /// `ethtool -G rx-buf-len` in bytes (power of two, e.g. 4096 or 131072).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rx_buf_len: Option<u32>,
    /// `ethtool -G tcp-data-split on` (header/data split; needs `rx-gro-hw on`).
    #[serde(default = "default_true")]
    pub tcp_data_split: bool,
    /// Flow steering rule (`ethtool -N`) sending the flow to the queue.
    pub flow: ZcrxFlow,
}

fn default_true() -> bool {
    true
}

/// A flow steering rule for zero-copy receive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ZcrxFlow {
    /// `flow-type` of `ethtool -N`.
    pub flow_type: FlowType,
    /// Destination port.
    pub dst_port: u16,
}

/// ethtool ntuple flow types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FlowType {
    /// TCP over IPv4.
    Tcp4,
    /// TCP over IPv6.
    Tcp6,
    /// UDP over IPv4.
    Udp4,
    /// UDP over IPv6.
    Udp6,
}

impl FlowType {
    /// ethtool's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            FlowType::Tcp4 => "tcp4",
            FlowType::Tcp6 => "tcp6",
            FlowType::Udp4 => "udp4",
            FlowType::Udp6 => "udp6",
        }
    }
}

/// One network interface and its tuning.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Interface {
    /// Kernel interface name: 1-15 characters of `[A-Za-z0-9_.-]`.
    pub name: String,
    /// Ethernet driver.
    pub driver: Driver,
    /// Hardware queue counts the device has (after `channels`).
    pub queues: Queues,
    /// MTU in bytes (L3; `ip link set mtu`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtu: Option<u32>,
    /// `ethtool -L` channel counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels: Option<Channels>,
    /// `ethtool -G` ring sizes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rings: Option<Rings>,
    /// `ethtool -C` coalescing parameters by ethtool name (`rx-usecs`, `rx-frames`, ...).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub coalesce: BTreeMap<String, u32>,
    /// `ethtool -K` features by ethtool name (`gro`, `tso`, `gso`, `lro`, `rx-gro-hw`, ...).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub offloads: BTreeMap<String, OnOff>,
    /// RPS CPUs per RX queue (`rps_cpus`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rps: Vec<QueueCpus>,
    /// RFS flow count per RX queue (`rps_flow_cnt`; rounded up to a power of two).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rfs_flow_cnt: Option<u32>,
    /// XPS CPUs per TX queue (`xps_cpus`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub xps: Vec<QueueCpus>,
    /// IRQ affinity by IRQ name pattern.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub irq_affinity: Vec<IrqAffinity>,
    /// Root qdisc with queue-mapping filters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qdisc: Option<Qdisc>,
    /// Hardware PTP timestamping; `off` disables it (QorIQ SDK gianfar `ptp_1588`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptp: Option<OnOff>,
    /// Dedicated zero-copy receive queue (io_uring zcrx).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zero_copy_rx: Option<ZeroCopyRx>,
    /// Device-tree description of the port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dt: Option<IfaceDt>,
}

/// Device-tree description of one Ethernet port.
///
/// Two ways, as real projects work: **patch mode** (no `node`): the port's
/// node exists in the board DTS or in a generated `pl.dtsi` (PetaLinux/DTG,
/// SDT) and is patched by `label`, as a `system-user.dtsi` does; **full-node
/// mode** (`node`): the board describes a PL MAC and its DMA itself, for
/// designs without a generated `pl.dtsi`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IfaceDt {
    /// Label of the Ethernet node: an existing node of the board DTS or of an
    /// XSA/SDT `pl.dtsi` (patched with `&label { ... }`), or the new node
    /// described by `node`.
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]{0,62}$"))]
    pub label: String,
    /// Full path of the node (`/amba_pl@0/ethernet@80000000`), so that
    /// `dtb verify` finds it in a DTB compiled without `-@` (no `__symbols__`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^(/[A-Za-z0-9,._+@-]{1,64})+$"))]
    pub path: Option<String>,
    /// MAC address (`local-mac-address`), `xx:xx:xx:xx:xx:xx`; read by every
    /// driver here through `of_get_mac_address` (drivers/net/ethernet/...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mac: Option<String>,
    /// `phy-mode` (Documentation/devicetree/bindings/net/ethernet-controller.yaml);
    /// written as `phy-connection-type` on gianfar (the QorIQ trees' spelling).
    /// On AXI/XXV ports a generated `xlnx,phy-type` would override it
    /// (axienet_probe): the `.dtsi` deletes it, the overlay sets it to match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phy_mode: Option<String>,
    /// `max-speed` in Mbit/s (linux-xlnx axienet needs it on 1G/2.5G ports:
    /// "couldn't find MAC Rate").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_speed: Option<u32>,
    /// Label of the PHY node (`phy-handle`): one of `mdio.devices` or an
    /// existing node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]{0,62}$"))]
    pub phy_handle: Option<String>,
    /// Label of the PCS/PMA node (`pcs-handle`, SGMII/1000BASE-X on axienet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]{0,62}$"))]
    pub pcs_handle: Option<String>,
    /// Label of the TBI PHY (`tbi-handle`, gianfar SGMII: gfar_configure_serdes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]{0,62}$"))]
    pub tbi_handle: Option<String>,
    /// `managed`: `in-band-status` for SGMII/1000BASE-X in-band autonegotiation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed: Option<Managed>,
    /// A fixed link (no PHY: a switch port), as a `fixed-link` child node
    /// (Documentation/devicetree/bindings/net/ethernet-controller.yaml).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed_link: Option<FixedLink>,
    /// The SFP cage the port uses (`sfp = <&label>`); with `i2c_bus` the cage
    /// node (`sff,sfp`, Documentation/devicetree/bindings/net/sff,sfp.yaml)
    /// is generated too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sfp: Option<Sfp>,
    /// Checksum offload of an AXI Ethernet (`xlnx,txcsum`/`xlnx,rxcsum`:
    /// 0 none, 1 partial, 2 full; axienet_probe).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<ChecksumOffload>,
    /// An MDIO bus as a child `mdio` node of the MAC, with its PHY/PCS devices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mdio: Option<Mdio>,
    /// Properties of the existing node to delete (`/delete-property/`), where
    /// a generated property would make the driver ignore ours.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub delete: Vec<PropName>,
    /// A programmable-logic Ethernet node the board describes itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<PlEthernet>,
    /// Fixed clocks the port's nodes use (a GT reference clock from an
    /// external oscillator), generated under the root as `fixed-clock`
    /// nodes (Documentation/devicetree/bindings/clock/fixed-clock.yaml;
    /// drivers/clk/clk-fixed-rate.c `of_fixed_clk_setup`) and referred to
    /// by their label without an index (`#clock-cells = <0>`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixed_clocks: Vec<FixedClock>,
}

/// A `fixed-clock` node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FixedClock {
    /// Label (what `clock`/`clocks` entries name).
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]{0,62}$"))]
    pub label: String,
    /// `clock-frequency` in Hz (the XXV's GT reference: 156250000).
    #[schemars(range(min = 1))]
    pub frequency: u32,
}

/// A device-tree property name (`xlnx,phy-type`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct PropName(#[schemars(regex(pattern = r"^[a-z0-9][a-z0-9,._+#-]{0,62}$"))] pub String);

/// `managed` values (ethernet-controller.yaml).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Managed {
    /// In-band autonegotiation status (SGMII, 1000BASE-X).
    InBandStatus,
    /// Link management by the PHY/MAC driver (the default when absent).
    Auto,
}

impl Managed {
    /// The DT string.
    pub fn as_str(self) -> &'static str {
        match self {
            Managed::InBandStatus => "in-band-status",
            Managed::Auto => "auto",
        }
    }
}

/// A `fixed-link` child node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FixedLink {
    /// Link speed in Mbit/s (10, 100, 1000, 2500, 10000).
    pub speed: u32,
    /// Full duplex (default true).
    #[serde(default = "default_true")]
    pub full_duplex: bool,
    /// Symmetric pause.
    #[serde(default)]
    pub pause: bool,
}

/// Checksum offload mode of the AXI Ethernet IP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CsumMode {
    /// No offload (0).
    None,
    /// Partial checksum (1).
    Partial,
    /// Full TCP/UDP over IPv4 checksum (2).
    Full,
}

/// `xlnx,txcsum` / `xlnx,rxcsum`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChecksumOffload {
    /// `xlnx,txcsum`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx: Option<CsumMode>,
    /// `xlnx,rxcsum`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rx: Option<CsumMode>,
}

/// A GPIO `<&controller pin flags>` (2-cell GPIO controllers: ZynqMP/Zynq
/// `gpio`, QorIQ `gpio0`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Gpio {
    /// Label of the GPIO controller node.
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]{0,62}$"))]
    pub controller: String,
    /// Pin (GPIO line) number.
    pub pin: u32,
    /// Active low (`GPIO_ACTIVE_LOW`, flag 1).
    #[serde(default)]
    pub active_low: bool,
}

/// An MDIO bus child node (`mdio`, Documentation/devicetree/bindings/net/mdio.yaml).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Mdio {
    /// Label of the bus node (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]{0,62}$"))]
    pub label: Option<String>,
    /// PHYs and PCS/PMA devices on the bus.
    #[schemars(length(min = 1))]
    pub devices: Vec<MdioDevice>,
}

/// One device on an MDIO bus (ethernet-phy.yaml).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MdioDevice {
    /// Label (what `phy_handle`/`pcs_handle` name).
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]{0,62}$"))]
    pub label: String,
    /// MDIO address, 0-31 (`reg`).
    #[schemars(range(max = 31))]
    pub address: u32,
    /// `compatible`, e.g. `ethernet-phy-id2000.a231` or
    /// `ethernet-phy-ieee802.3-c22` (omitted: the PHY is identified by its ID registers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^ethernet-phy-(id[0-9a-f]{4}\.[0-9a-f]{4}|ieee802\.3-c(22|45))$"))]
    pub compatible: Option<String>,
    /// Reset line (`reset-gpios`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reset_gpio: Option<Gpio>,
    /// `reset-assert-us`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reset_assert_us: Option<u32>,
    /// `reset-deassert-us`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reset_deassert_us: Option<u32>,
    /// `rx-internal-delay-ps` (RGMII delay in the PHY).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rx_internal_delay_ps: Option<u32>,
    /// `tx-internal-delay-ps`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_internal_delay_ps: Option<u32>,
    /// The device is a Xilinx PCS/PMA (gig_ethernet_pcs_pma) in this mode:
    /// `xlnx,phy-type = <4>` (SGMII) or `<5>` (1000BASE-X), read by
    /// linux-xlnx drivers/net/phy/xilinx_phy.c `xilinxphy_of_init` (the
    /// Xilinx generator writes it for PS GEM over EMIO).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcs_pma: Option<PcsPmaMode>,
    /// The device is a TI DP83867 PHY, with its own properties
    /// (Documentation/devicetree/bindings/net/ti,dp83867.yaml): the driver
    /// reads `ti,rx-internal-delay`/`ti,tx-internal-delay`, not the generic
    /// `rx-internal-delay-ps` (drivers/net/phy/dp83867.c `dp83867_of_init`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dp83867: Option<Dp83867>,
    /// The device is a Xilinx GMII-to-RGMII converter (PS GEM over EMIO to
    /// an RGMII PHY): `compatible = "xlnx,gmii-to-rgmii-1.0"` and a
    /// `phy-handle` to the external PHY it follows
    /// (Documentation/devicetree/bindings/net/xlnx,gmii-to-rgmii.yaml;
    /// drivers/net/phy/xilinx_gmii2rgmii.c `xgmiitorgmii_probe`). It is an
    /// MDIO device, not a PHY: the MAC's `phy_handle` names the external
    /// PHY, never the converter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gmii_to_rgmii: Option<GmiiToRgmii>,
}

/// A Xilinx GMII-to-RGMII converter's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GmiiToRgmii {
    /// Label of the external RGMII PHY (`phy-handle`; xgmiitorgmii_probe
    /// fails with -ENODEV without it).
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]{0,62}$"))]
    pub phy_handle: String,
}

/// TI DP83867 settings, written as the `ti,*` properties its driver reads
/// (drivers/net/phy/dp83867.c `dp83867_of_init`, Linux 6.12;
/// include/dt-bindings/net/ti-dp83867.h for the encodings).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Dp83867 {
    /// RGMII receive clock delay in picoseconds, 250..4000 in steps of 250:
    /// `ti,rx-internal-delay = <ps / 250 - 1>` (DP83867_RGMIIDCTL_*).
    /// Required for `rgmii-id` and `rgmii-rxid` (dp83867_verify_rgmii_cfg
    /// returns -EINVAL at open without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rx_internal_delay_ps: Option<u32>,
    /// RGMII transmit clock delay in picoseconds, as `rx_internal_delay_ps`:
    /// `ti,tx-internal-delay`; required for `rgmii-id` and `rgmii-txid`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_internal_delay_ps: Option<u32>,
    /// Transmit FIFO depth in nibbles, 3, 4, 6 or 8: `tx-fifo-depth`
    /// (DP83867_PHYCR_FIFO_DEPTH_*_B_NIB; the driver's default is 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_fifo_depth: Option<u32>,
    /// Receive FIFO depth in nibbles, 3, 4, 6 or 8: `rx-fifo-depth`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rx_fifo_depth: Option<u32>,
    /// `ti,dp83867-rxctrl-strap-quirk`: RX_DV/RX_CTRL strapped in mode 1 or 2
    /// (the ZCU102 sets it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rxctrl_strap_quirk: bool,
    /// `ti,sgmii-ref-clock-output-enable` (6-wire SGMII).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sgmii_ref_clock_output: bool,
}

impl Dp83867 {
    /// The register value of a delay in picoseconds (`ps / 250 - 1`), when
    /// it is one the PHY has (250..4000 in steps of 250).
    pub fn delay_code(ps: u32) -> Option<u32> {
        (ps % 250 == 0 && (250..=4000).contains(&ps)).then(|| ps / 250 - 1)
    }
    /// The register value of a FIFO depth in nibbles (3, 4, 6, 8 -> 0..3).
    pub fn fifo_code(nibbles: u32) -> Option<u32> {
        [3, 4, 6, 8].iter().position(|&n| n == nibbles).map(|i| i as u32)
    }
}

/// Mode of a Xilinx PCS/PMA core.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum PcsPmaMode {
    /// SGMII (`xlnx,phy-type = <4>`).
    #[serde(rename = "sgmii")]
    Sgmii,
    /// 1000BASE-X (`xlnx,phy-type = <5>`).
    #[serde(rename = "1000base-x")]
    Base1000X,
}

/// An SFP cage (`sff,sfp`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Sfp {
    /// Label of the cage node.
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]{0,62}$"))]
    pub label: String,
    /// The I2C bus of the module EEPROM (`i2c-bus`): a label (`i2c1`, or
    /// a labelled mux channel such as `sfp0_i2c`) or the absolute path of
    /// an unlabelled node (`/axi/i2c@ff030000/i2c-mux@75/i2c@7`, a mux
    /// channel of the ZCU102's U135). When set, the cage node is generated
    /// under the root (else it must exist in the base tree).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^([A-Za-z_][A-Za-z0-9_]{0,62}|(/[A-Za-z0-9,._+@-]{1,64}){1,16})$"))]
    pub i2c_bus: Option<String>,
    /// The `compatible` of the I2C mux whose channel `i2c_bus` is
    /// (`nxp,pca9548`), so the kernel fragment requests its driver
    /// (drivers/i2c/muxes/i2c-mux-pca954x.c, i2c-mux-gpio.c); required when
    /// `i2c_bus` is a path through an `i2c-mux@` node (rule sfp-i2c-mux).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[a-z0-9,._-]{1,64}$"))]
    pub i2c_mux: Option<String>,
    /// `maximum-power-milliwatt`: the most a module may draw in this cage,
    /// 1000 or more (sff,sfp.yaml; modules are 1 W, 1.5 W or 2 W). Without
    /// it sfp.c allows 1 W: a 1.5 W or 2 W module stays in power level 1
    /// ("Host does not support 2.0W modules", sfp_module_parse_power).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum_power_milliwatt: Option<u32>,
    /// `mod-def0-gpios` (module present).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mod_def0_gpio: Option<Gpio>,
    /// `los-gpios` (loss of signal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub los_gpio: Option<Gpio>,
    /// `tx-fault-gpios`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_fault_gpio: Option<Gpio>,
    /// `tx-disable-gpios`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_disable_gpio: Option<Gpio>,
}

/// Interrupt trigger type (the third GIC cell, dt-bindings/interrupt-controller/irq.h).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Trigger {
    /// `IRQ_TYPE_LEVEL_HIGH` (4): the DMA `introut` lines.
    #[default]
    Level,
    /// `IRQ_TYPE_EDGE_RISING` (1): the AXI Ethernet `mac_irq` in generated trees.
    Edge,
}

impl Trigger {
    /// The GIC cell value.
    pub fn cell(self) -> u32 {
        match self {
            Trigger::Level => 4,
            Trigger::Edge => 1,
        }
    }
}

/// One PL-to-PS interrupt: a GIC SPI number (level-triggered) or
/// `{ spi, trigger }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Irq {
    /// A GIC SPI number, level-triggered.
    Spi(u32),
    /// A GIC SPI with its trigger type.
    Typed {
        /// GIC SPI number (IRQ ID - 32).
        spi: u32,
        /// Trigger type.
        trigger: Trigger,
    },
}

impl Irq {
    /// The SPI number.
    pub fn spi(self) -> u32 {
        match self {
            Irq::Spi(n) | Irq::Typed { spi: n, .. } => n,
        }
    }
    /// The trigger type.
    pub fn trigger(self) -> Trigger {
        match self {
            Irq::Spi(_) => Trigger::Level,
            Irq::Typed { trigger, .. } => trigger,
        }
    }
}

/// A PL (programmable logic) Ethernet MAC with its DMA engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlEthernet {
    /// Base address of the MAC's registers.
    pub reg: u64,
    /// Size of the register window in bytes.
    pub size: u64,
    /// The MAC's own interrupt (`mac_irq`; optional for the driver, edge in
    /// generated trees).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub interrupts: Vec<Irq>,
    /// One clock for every clock input the driver names (e.g. `zynqmp_clk` 71 = pl0_ref).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockRef>,
    /// Clocks by the driver's clock name (`s_axi_lite_clk`, `axis_clk`,
    /// `ref_clk`, `mgt_clk`; XXV: `s_axi_aclk`, `rx_core_clk`, `dclk`);
    /// names not given take `clock`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub clocks: BTreeMap<String, ClockRef>,
    /// RX memory size in bytes (`xlnx,rxmem`).
    #[serde(default = "default_rxmem")]
    pub rxmem: u32,
    /// Number of MCDMA queues (`xlnx,num-queues`, linux-xlnx, `/bits/ 16`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_queues: Option<u16>,
    /// MCDMA channel ids (`xlnx,channel-ids`, hex strings, linux-xlnx).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub channel_ids: Vec<String>,
    /// Mainline (dmaengine) style: `dmas`/`dma-names` to `dma.label`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dmas: Option<bool>,
    /// linux-xlnx style: `axistream-connected` to `dma.label`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axistream_connected: Option<bool>,
    /// The DMA engine feeding the MAC.
    pub dma: PlDma,
}

fn default_rxmem() -> u32 {
    0x8000
}

/// A clock reference `<&label index>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClockRef {
    /// Label of the clock provider node.
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]{0,62}$"))]
    pub label: String,
    /// Clock index in the provider (omit for a fixed clock with `#clock-cells = <0>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
}

/// AXI DMA / MCDMA engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlDma {
    /// Label of the DMA node.
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]{0,62}$"))]
    pub label: String,
    /// Base address.
    pub reg: u64,
    /// Register window size in bytes.
    pub size: u64,
    /// Interrupts: MM2S (TX) channels first, then S2MM (RX). PL lines may
    /// be shared (a 16-channel MCDMA has 32 interrupts for 16 PL-PS lines):
    /// shared lines must be level-triggered.
    #[schemars(length(min = 2))]
    pub interrupts: Vec<Irq>,
    /// Data realignment engine present (`xlnx,include-dre`).
    #[serde(default)]
    pub include_dre: bool,
    /// Stream data width in bits (`xlnx,datawidth`).
    #[serde(default = "default_datawidth")]
    pub datawidth: u32,
    /// Address width in bits (`xlnx,addrwidth`).
    #[serde(default = "default_addrwidth")]
    pub addrwidth: u32,
    /// Clocks by the DMA's clock name (`s_axi_lite_aclk`, `m_axi_sg_aclk`,
    /// `m_axi_mm2s_aclk`, `m_axi_s2mm_aclk`); names not given take the MAC's `clock`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub clocks: BTreeMap<String, ClockRef>,
}

fn default_datawidth() -> u32 {
    32
}
fn default_addrwidth() -> u32 {
    64
}

/// Displays an enum the way the board file spells it (its serde name).
macro_rules! display_as_serde {
    ($($t:ty),*) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match serde_json::to_value(self) {
                    Ok(serde_json::Value::String(s)) => f.write_str(&s),
                    _ => write!(f, "{self:?}"),
                }
            }
        }
    )*};
}
display_as_serde!(Soc, KernelFlavour, Arch, Driver, Irqbalance);

#[cfg(test)]
mod tests {
    use super::Soc;

    /// eTSEC queue-groups per QorIQ SoC (arch/powerpc/boot/dts/fsl: the
    /// pq3-etsec2-grp2 include only on the P1020); none off QorIQ.
    #[test]
    fn etsec_queue_groups_per_soc() {
        let n = |s: Soc| s.etsec_queues().map(|q| q.0);
        assert_eq!(
            [n(Soc::QoriqP1020), n(Soc::QoriqP1010), n(Soc::QoriqP2020), n(Soc::Zynqmp), n(Soc::Zynq7000)],
            [Some(2), Some(1), Some(1), None, None]
        );
    }

    /// PL-to-PS interrupt lines: UG1085 table 13-1 (ZynqMP), UG585 table
    /// 7-4 (Zynq-7000); none off Zynq.
    #[test]
    fn pl_interrupt_lines_per_soc() {
        assert_eq!(Soc::Zynqmp.pl_irq_spis(), Some([89..=96, 104..=111]));
        assert_eq!(Soc::Zynq7000.pl_irq_spis(), Some([29..=36, 52..=59]));
        assert_eq!(Soc::QoriqP1020.pl_irq_spis(), None);
    }
}
