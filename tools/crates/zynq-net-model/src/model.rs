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
    /// NXP/Freescale QorIQ P1020 (2x e500v2, MPIC).
    QoriqP1020,
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
            Soc::QoriqP1020 => Some("MPIC"),
            Soc::Generic => None,
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

impl Arch {
    /// The kernel's `ARCH=` value.
    pub fn kernel_arch(self) -> &'static str {
        match self {
            Arch::Arm64 => "arm64",
            Arch::Arm => "arm",
            Arch::Powerpc => "powerpc",
            Arch::X86_64 => "x86",
        }
    }
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
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum QueueSel {
    /// One queue, by index.
    One(u32),
    /// Every queue of that direction.
    All(AllQueues),
}

/// The word `all`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    /// (macb: `ff0e0000.ethernet`; gianfar: `eth0_g0_rx`; never a number).
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IfaceDt {
    /// Label of the Ethernet node: an existing node of the board DTS or of an
    /// XSA/SDT `pl.dtsi` (patched with `&label { ... }`), or the new node
    /// described by `node`.
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]{0,62}$"))]
    pub label: String,
    /// MAC address (`local-mac-address`), `xx:xx:xx:xx:xx:xx`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mac: Option<String>,
    /// `phy-mode` (Documentation/devicetree/bindings/net/ethernet-controller.yaml).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phy_mode: Option<String>,
    /// A programmable-logic Ethernet node the board describes itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<PlEthernet>,
}

/// A PL (programmable logic) Ethernet MAC with its DMA engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlEthernet {
    /// Base address of the MAC's registers.
    pub reg: u64,
    /// Size of the register window in bytes.
    pub size: u64,
    /// GIC SPI numbers of the MAC's interrupts (`interrupts = <0 SPI 4>`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub interrupts: Vec<u32>,
    /// Clock provider label and index for the AXI clocks (e.g. `zynqmp_clk` 71 = pl0_ref).
    pub clock: ClockRef,
    /// Label of the PHY node (`phy-handle`), when the MAC has an external PHY.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]{0,62}$"))]
    pub phy_handle: Option<String>,
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
    /// Clock index in the provider.
    pub index: u32,
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
    /// GIC SPI numbers: MM2S (TX) channels first, then S2MM (RX).
    #[schemars(length(min = 2))]
    pub interrupts: Vec<u32>,
    /// Data realignment engine present (`xlnx,include-dre`).
    #[serde(default)]
    pub include_dre: bool,
    /// Stream data width in bits (`xlnx,datawidth`).
    #[serde(default = "default_datawidth")]
    pub datawidth: u32,
    /// Address width in bits (`xlnx,addrwidth`).
    #[serde(default = "default_addrwidth")]
    pub addrwidth: u32,
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
