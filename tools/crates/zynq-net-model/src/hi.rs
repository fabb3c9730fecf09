//! The resolved board, [`HiBoard`] (ripgrep's low-args -> high-args,
//! crates/core/flags/hiargs.rs): what [`Board::resolve`] makes of a raw
//! board that validation accepted, consuming it. Every value the board
//! file writes as a string and that means something else — MAC addresses,
//! CPU lists, IRQ name patterns, IPv4 prefixes, MCDMA channel ids — is
//! held here as its typed value ([`crate::resolve`]) in the place the raw
//! model had the string, so a generator cannot parse a board string again:
//! the string is gone. Names, labels, enums and numbers move over as they
//! are (the raw model's types, where they hold no such string).
//!
//! A [`HiBoard`] is built only by the loader ([`crate::load_board_str`])
//! from a board without errors; a value validation accepted but
//! resolution refused is a zynq-net bug, reported as rule
//! `internal-error` ([`Unresolved`]).

use std::collections::BTreeMap;

use crate::bench::{Bench, BenchHost, BenchPeer, Direction, Matrix, Protocol, Rfc2544, Tester};
use crate::cpus::CpuList;
use crate::model::{
    Board, BoardInfo, Channels, ChecksumOffload, ClockRef, Driver, Fastpath, FixedClock, FixedLink, Irq, Managed, Mdio,
    OnOff, PlDma, PlEthernet, PropName, Qdisc, QdiscKind, Queues, Rings, Sfp, System, ZeroCopyRx,
};
use crate::resolve::{
    cpus, parse_channel_id, BitRate, ChannelId, CpuSet, Ipv4Prefix, IrqPattern, IrqPin, Mac, QueueCpuSet, QueueFilter,
    Unresolved,
};

/// A board after resolution: the only board generators see.
#[derive(Debug, Clone, PartialEq)]
pub struct HiBoard {
    /// The board: SoC, CPUs, Yocto MACHINE and kernel flavour (as written).
    pub board: BoardInfo,
    /// System-wide settings (as written: sysctl values are written to
    /// `/proc/sys` as they are, never parsed).
    pub system: System,
    /// Forwarding fast path (as written).
    pub fastpath: Fastpath,
    /// Network interfaces, in the order the kernel names them (board order).
    pub interfaces: Vec<HiInterface>,
    /// The benchmark description, with its typed values, when the board has one.
    pub bench: Option<HiBench>,
}

/// A `bench` section after resolution (of a board, or of a standalone
/// bench file: [`crate::LoadedBench`]): the section's keys as written,
/// except that its CPU lists and UDP rate are typed values, so the bench
/// runner cannot parse a bench string again: the string is gone.
#[derive(Debug, Clone, PartialEq)]
pub struct HiBench {
    /// The device under test, when the section names one.
    pub dut: Option<HiBenchHost>,
    /// Traffic peers (names and addresses as written).
    pub peers: Vec<BenchPeer>,
    /// The iperf3 matrix, when the section has one.
    pub matrix: Option<HiMatrix>,
    /// The RFC 2544-style throughput search (no strings: as written).
    pub rfc2544: Option<Rfc2544>,
    /// The trafgen tester's settings (no strings: as written).
    pub tester: Option<Tester>,
}

/// The device under test, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct HiBenchHost {
    /// `user@host` for ssh; `None` = run locally.
    pub ssh: Option<String>,
    /// Data-plane address of the DUT (handed to iperf3 as written).
    pub address: String,
    /// Interface under test (a name from `interfaces` on a board).
    pub iface: String,
    /// CPUs that take the NIC's IRQs (`dut.irq_cpus`; rule bench-pin-irq-cpu),
    /// every CPU below the board's CPU count.
    pub irq_cpus: Option<CpuSet>,
}

/// The iperf3 matrix, resolved: [`Matrix`] with its CPU lists as CPU sets
/// and its UDP rate in bit/s.
#[derive(Debug, Clone, PartialEq)]
pub struct HiMatrix {
    /// Protocols.
    pub protocols: Vec<Protocol>,
    /// Directions, seen from the DUT (the iperf3 client).
    pub directions: Vec<Direction>,
    /// MTUs in bytes.
    pub mtus: Vec<u32>,
    /// Parallel streams (`-P`).
    pub streams: Vec<u32>,
    /// Seconds per cell (`-t`).
    pub duration_s: u32,
    /// Seconds omitted at the start of each cell (`-O`).
    pub omit_s: u32,
    /// CPUs iperf3 is pinned to on the DUT (`matrix.pin_cpus`), every CPU
    /// below the board's CPU count.
    pub pin_cpus: Option<CpuSet>,
    /// CPUs iperf3 is pinned to on the peer (`matrix.peer_pin_cpus`; another
    /// machine: not bounded by the board).
    pub peer_pin_cpus: Option<CpuSet>,
    /// UDP offered rate (`-b`, `matrix.udp_rate`); `None` = unlimited.
    pub udp_rate: Option<BitRate>,
    /// TCP buffer length in bytes (`-l`).
    pub tcp_length: u32,
    /// Zero-copy send (`-Z`).
    pub zerocopy: bool,
    /// A core at least this busy (percent) flags the cell CPU-bound.
    pub cpu_bound_pct: f64,
    /// Repeats per cell.
    pub repeats: u32,
}

impl Default for HiMatrix {
    /// The model's default matrix ([`Matrix::default`]), which writes no
    /// CPU list and no UDP rate.
    fn default() -> Self {
        HiMatrix::with(Matrix::default(), None, None, None)
    }
}

impl HiMatrix {
    /// `m`'s values with its CPU lists and UDP rate replaced by their
    /// resolved values (`m`'s strings are dropped).
    fn with(m: Matrix, pin_cpus: Option<CpuSet>, peer_pin_cpus: Option<CpuSet>, udp_rate: Option<BitRate>) -> Self {
        let Matrix {
            protocols,
            directions,
            mtus,
            streams,
            duration_s,
            omit_s,
            pin_cpus: _,
            peer_pin_cpus: _,
            udp_rate: _,
            tcp_length,
            zerocopy,
            cpu_bound_pct,
            repeats,
        } = m;
        HiMatrix {
            protocols,
            directions,
            mtus,
            streams,
            duration_s,
            omit_s,
            pin_cpus,
            peer_pin_cpus,
            udp_rate,
            tcp_length,
            zerocopy,
            cpu_bound_pct,
            repeats,
        }
    }
}

/// Resolves a `bench` section that validation accepted, consuming it, its
/// pointers under `prefix`; DUT CPU lists are bounded by `nr_cpus` (a
/// board's CPU count; `None` in a standalone bench file, which names no
/// board).
///
/// # Errors
/// [`Unresolved`] for a value validation should have refused (a bug).
pub(crate) fn resolve_bench(bn: Bench, prefix: &str, nr_cpus: Option<u32>) -> Result<HiBench, Unresolved> {
    let nr = nr_cpus.unwrap_or(u32::MAX);
    let list = |key: &str, l: Option<&CpuList>, nr: u32| match l {
        Some(l) => cpus(|| format!("{prefix}/{key}"), l, nr).map(Some),
        None => Ok(None),
    };
    let Bench { dut, peers, matrix, rfc2544, tester } = bn;
    let dut = match dut {
        Some(BenchHost { ssh, address, iface, irq_cpus }) => {
            Some(HiBenchHost { ssh, address, iface, irq_cpus: list("dut/irq_cpus", irq_cpus.as_ref(), nr)? })
        }
        None => None,
    };
    let matrix = match matrix {
        Some(m) => {
            let pin = list("matrix/pin_cpus", m.pin_cpus.as_ref(), nr)?;
            let peer = list("matrix/peer_pin_cpus", m.peer_pin_cpus.as_ref(), u32::MAX)?;
            let rate = match m.udp_rate.as_deref() {
                Some(r) => Some(
                    BitRate::parse(r)
                        .ok_or_else(|| Unresolved { ptr: format!("{prefix}/matrix/udp_rate"), what: r.to_string() })?,
                ),
                None => None,
            };
            Some(HiMatrix::with(m, pin, peer, rate))
        }
        None => None,
    };
    Ok(HiBench { dut, peers, matrix, rfc2544, tester })
}

/// One network interface and its tuning, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct HiInterface {
    /// Kernel interface name: 1-15 characters of `[A-Za-z0-9_.-]`.
    pub name: String,
    /// Ethernet driver.
    pub driver: Driver,
    /// Hardware queue counts the device has (after `channels`).
    pub queues: Queues,
    /// MTU in bytes (L3; `ip link set mtu`).
    pub mtu: Option<u32>,
    /// `ethtool -L` channel counts.
    pub channels: Option<Channels>,
    /// `ethtool -G` ring sizes in descriptors.
    pub rings: Option<Rings>,
    /// `ethtool -C` coalescing parameters by ethtool name (`rx-usecs`, ...).
    pub coalesce: BTreeMap<String, u32>,
    /// `ethtool -K` features by ethtool name (`gro`, `tso`, ...).
    pub offloads: BTreeMap<String, OnOff>,
    /// RPS CPUs per RX queue (`rps_cpus`), in board order (later entries
    /// override earlier ones); every CPU below the board's CPU count.
    pub rps: Vec<QueueCpuSet>,
    /// RFS flow count per RX queue (`rps_flow_cnt`; as written, rounded
    /// up to a power of two where it is applied).
    pub rfs_flow_cnt: Option<u32>,
    /// XPS CPUs per TX queue (`xps_cpus`), in board order.
    pub xps: Vec<QueueCpuSet>,
    /// IRQ affinity by IRQ name pattern, in board order.
    pub irq_affinity: Vec<IrqPin>,
    /// Root qdisc with its queue-mapping filters.
    pub qdisc: Option<HiQdisc>,
    /// Hardware PTP timestamping; `off` disables it.
    pub ptp: Option<OnOff>,
    /// Dedicated zero-copy receive queue (io_uring zcrx).
    pub zero_copy_rx: Option<ZeroCopyRx>,
    /// Device-tree description of the port.
    pub dt: Option<HiIfaceDt>,
}

/// Root qdisc, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HiQdisc {
    /// Qdisc kind (`multiq`).
    pub kind: QdiscKind,
    /// u32 + skbedit queue-mapping filters, in board order.
    pub filters: Vec<QueueFilter>,
}

/// Device-tree description of one Ethernet port, resolved (the raw
/// [`crate::model::IfaceDt`] documents each field: patch mode without
/// `node`, full-node mode with it).
#[derive(Debug, Clone, PartialEq)]
pub struct HiIfaceDt {
    /// Label of the Ethernet node (patched, or the node `node` describes).
    pub label: String,
    /// Full path of the node (`/amba_pl@0/ethernet@80000000`).
    pub path: Option<String>,
    /// MAC address (`local-mac-address`).
    pub mac: Option<Mac>,
    /// `phy-mode` (`phy-connection-type` on gianfar), as written.
    pub phy_mode: Option<String>,
    /// `max-speed` in Mbit/s.
    pub max_speed: Option<u32>,
    /// Label of the PHY node (`phy-handle`).
    pub phy_handle: Option<String>,
    /// Label of the PCS/PMA node (`pcs-handle`).
    pub pcs_handle: Option<String>,
    /// Label of the TBI PHY (`tbi-handle`).
    pub tbi_handle: Option<String>,
    /// `managed`.
    pub managed: Option<Managed>,
    /// A fixed link (`fixed-link` child node).
    pub fixed_link: Option<FixedLink>,
    /// The SFP cage the port uses (`sfp = <&label>`).
    pub sfp: Option<Sfp>,
    /// `xlnx,txcsum`/`xlnx,rxcsum` of an AXI Ethernet.
    pub checksum: Option<ChecksumOffload>,
    /// An MDIO bus as a child `mdio` node, with its PHY/PCS devices.
    pub mdio: Option<Mdio>,
    /// Properties of the existing node to delete (`/delete-property/`).
    pub delete: Vec<PropName>,
    /// A programmable-logic Ethernet node the board describes itself.
    pub node: Option<HiPlEthernet>,
    /// `fixed-clock` nodes the port's nodes use.
    pub fixed_clocks: Vec<FixedClock>,
}

/// A PL Ethernet MAC with its DMA engine, resolved (the raw
/// [`PlEthernet`] documents each field).
#[derive(Debug, Clone, PartialEq)]
pub struct HiPlEthernet {
    /// Base address of the MAC's registers.
    pub reg: u64,
    /// Size of the register window in bytes.
    pub size: u64,
    /// The MAC's own interrupt (`mac_irq`).
    pub interrupts: Vec<Irq>,
    /// One clock for every clock input the driver names.
    pub clock: Option<ClockRef>,
    /// Clocks by the driver's clock name; names not given take `clock`.
    pub clocks: BTreeMap<String, ClockRef>,
    /// RX memory size in bytes (`xlnx,rxmem`).
    pub rxmem: u32,
    /// Number of MCDMA queues (`xlnx,num-queues`).
    pub num_queues: Option<u16>,
    /// MCDMA channel ids (`xlnx,channel-ids`), 1..=16, in board order.
    pub channel_ids: Vec<ChannelId>,
    /// Mainline (dmaengine) style: `dmas`/`dma-names` to `dma.label`.
    pub dmas: Option<bool>,
    /// linux-xlnx style: `axistream-connected` to `dma.label`.
    pub axistream_connected: Option<bool>,
    /// The DMA engine feeding the MAC.
    pub dma: PlDma,
}

impl HiPlEthernet {
    /// The node's clock inputs, for [`crate::drivers::mac_clock_names_written`].
    pub fn clock_inputs(&self) -> crate::drivers::PlClocks<'_> {
        crate::drivers::PlClocks {
            dmas: self.dmas,
            clock: self.clock.as_ref(),
            clocks: &self.clocks,
            dma_clocks: &self.dma.clocks,
        }
    }
}

impl Board {
    /// Resolves a board that validation accepted into the board the
    /// generators read, consuming it: each string value is parsed once,
    /// with the parsers the validator checked it with.
    ///
    /// # Errors
    /// [`Unresolved`] for a value validation should have refused (a bug:
    /// the loader reports it as rule `internal-error`).
    pub fn resolve(self) -> Result<HiBoard, Unresolved> {
        let Board { version: _, board, system, fastpath, interfaces, bench } = self;
        let nr = board.cpus;
        let interfaces = interfaces
            .into_iter()
            .enumerate()
            .map(|(i, ifc)| {
                let p = || format!("/interfaces/{i}");
                let sets = |key: &str, list: Vec<crate::model::QueueCpus>| {
                    list.into_iter()
                        .enumerate()
                        .map(|(j, qc)| {
                            let cpus = cpus(|| format!("{}/{key}/{j}/cpus", p()), &qc.cpus, nr)?;
                            Ok(QueueCpuSet { queue: qc.queue, cpus })
                        })
                        .collect::<Result<Vec<_>, Unresolved>>()
                };
                let rps = sets("rps", ifc.rps)?;
                let xps = sets("xps", ifc.xps)?;
                let irq_affinity = ifc
                    .irq_affinity
                    .into_iter()
                    .enumerate()
                    .map(|(j, ia)| {
                        let pattern = IrqPattern::check(&ia.irq)
                            .ok_or_else(|| Unresolved { ptr: format!("{}/irq_affinity/{j}/irq", p()), what: ia.irq })?;
                        let cpus = cpus(|| format!("{}/irq_affinity/{j}/cpus", p()), &ia.cpus, nr)?;
                        Ok(IrqPin { pattern, cpus })
                    })
                    .collect::<Result<Vec<_>, Unresolved>>()?;
                let qdisc = ifc.qdisc.map(|q| qdisc(q, &p)).transpose()?;
                let dt = ifc.dt.map(|d| iface_dt(d, &p)).transpose()?;
                Ok(HiInterface {
                    name: ifc.name,
                    driver: ifc.driver,
                    queues: ifc.queues,
                    mtu: ifc.mtu,
                    channels: ifc.channels,
                    rings: ifc.rings,
                    coalesce: ifc.coalesce,
                    offloads: ifc.offloads,
                    rps,
                    rfs_flow_cnt: ifc.rfs_flow_cnt,
                    xps,
                    irq_affinity,
                    qdisc,
                    ptp: ifc.ptp,
                    zero_copy_rx: ifc.zero_copy_rx,
                    dt,
                })
            })
            .collect::<Result<Vec<_>, Unresolved>>()?;
        let bench = bench.map(|b| resolve_bench(b, "/bench", Some(nr))).transpose()?;
        Ok(HiBoard { board, system, fastpath, interfaces, bench })
    }
}

/// A qdisc's filters resolved; `p` names the interface.
fn qdisc(q: Qdisc, p: &impl Fn() -> String) -> Result<HiQdisc, Unresolved> {
    let filters = q
        .filters
        .into_iter()
        .enumerate()
        .map(|(j, f)| {
            let prefix = Ipv4Prefix::parse(&f.address)
                .ok_or_else(|| Unresolved { ptr: format!("{}/qdisc/filters/{j}/address", p()), what: f.address })?;
            Ok(QueueFilter { match_: f.match_, prefix, queue: f.queue })
        })
        .collect::<Result<Vec<_>, Unresolved>>()?;
    Ok(HiQdisc { kind: q.kind, filters })
}

/// A port's device-tree description resolved; `p` names the interface.
fn iface_dt(d: crate::model::IfaceDt, p: &impl Fn() -> String) -> Result<HiIfaceDt, Unresolved> {
    let mac = match d.mac {
        Some(m) => Some(Mac::parse(&m).ok_or_else(|| Unresolved { ptr: format!("{}/dt/mac", p()), what: m })?),
        None => None,
    };
    let node = d.node.map(|n| pl_ethernet(n, p)).transpose()?;
    Ok(HiIfaceDt {
        label: d.label,
        path: d.path,
        mac,
        phy_mode: d.phy_mode,
        max_speed: d.max_speed,
        phy_handle: d.phy_handle,
        pcs_handle: d.pcs_handle,
        tbi_handle: d.tbi_handle,
        managed: d.managed,
        fixed_link: d.fixed_link,
        sfp: d.sfp,
        checksum: d.checksum,
        mdio: d.mdio,
        delete: d.delete,
        node,
        fixed_clocks: d.fixed_clocks,
    })
}

/// A PL Ethernet node's channel ids resolved; `p` names the interface.
fn pl_ethernet(n: PlEthernet, p: &impl Fn() -> String) -> Result<HiPlEthernet, Unresolved> {
    let channel_ids = n
        .channel_ids
        .into_iter()
        .enumerate()
        .map(|(j, id)| {
            let v = parse_channel_id(&id).filter(|v| (1..=16).contains(v)).and_then(|v| u8::try_from(v).ok());
            match v {
                Some(value) => Ok(ChannelId::new(value, id)),
                None => Err(Unresolved { ptr: format!("{}/dt/node/channel_ids/{j}", p()), what: id }),
            }
        })
        .collect::<Result<Vec<_>, Unresolved>>()?;
    Ok(HiPlEthernet {
        reg: n.reg,
        size: n.size,
        interrupts: n.interrupts,
        clock: n.clock,
        clocks: n.clocks,
        rxmem: n.rxmem,
        num_queues: n.num_queues,
        channel_ids,
        dmas: n.dmas,
        axistream_connected: n.axistream_connected,
        dma: n.dma,
    })
}

#[cfg(test)]
mod tests {
    use crate::model::{MatchField, QueueSel};

    /// The zcu102 reference board resolved: each interface holds its own
    /// typed values (no index-zipped side-car), the channel ids keep the
    /// text the board wrote.
    #[test]
    fn each_interface_holds_its_typed_values() {
        let (path, text) = crate::testutil::repo_board("zcu102");
        let b = crate::load_board_str(&path, &text).unwrap_or_else(|d| panic!("{d}")).board;
        let [eth0, eth1] = b.interfaces.as_slice() else { panic!("zcu102 has two interfaces") };
        let cpus = |s: &crate::resolve::CpuSet| s.iter().collect::<Vec<_>>();
        assert_eq!(eth0.dt.as_ref().and_then(|d| d.mac).map(|m| m.to_string()).as_deref(), Some("00:0a:35:00:22:01"));
        assert_eq!((eth0.irq_affinity[0].pattern.as_str(), cpus(&eth0.irq_affinity[0].cpus)), ("eth0", vec![1]));
        assert_eq!((eth1.rps[1].queue, cpus(&eth1.rps[1].cpus)), (QueueSel::One(1), vec![2, 3]));
        let f = &eth1.qdisc.as_ref().expect("eth1 has a qdisc").filters[0];
        assert_eq!((f.match_, f.prefix.to_string(), f.queue), (MatchField::Dst, "192.0.2.3".to_string(), 1));
        let ids = &eth1.dt.as_ref().and_then(|d| d.node.as_ref()).expect("eth1 is a full PL node").channel_ids;
        let ids: Vec<(u8, &str)> = ids.iter().map(|c| (c.value(), c.as_written())).collect();
        assert_eq!(ids, [(1, "0x1"), (2, "0x2")]);
        let bench = b.bench.as_ref().expect("zcu102 has a bench section");
        assert_eq!(bench.dut.as_ref().and_then(|d| d.irq_cpus.as_ref()).map(cpus), Some(vec![1]));
    }
}
