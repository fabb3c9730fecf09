//! Semantic validation: the rules a schema cannot express (CPU ranges,
//! per-driver ring/coalescing/MTU limits, queue mappings, MAC addresses,
//! interface names, kernel-flavour constraints, DT binding styles).
//! Every rule reports at the JSON pointer of the offending value; see
//! docs/board-format.md for the list and the field cases they come from.

use std::collections::{BTreeMap, BTreeSet};

use crate::bench::Bench;
use crate::cpus::{CpuList, CpuListError};
use crate::diag::Diagnostic;
use crate::drivers::{self, caps, RingLimit};
use crate::hi::HiBoard;
use crate::model::*;
use crate::resolve::{parse_channel_id, BitRate, Ipv4Prefix, Mac};
use crate::rules::Rule;

/// Characters allowed in an interface name. Linux allows more (anything but
/// `/`, `:`, whitespace; 1-15 bytes, net/core/dev.c `dev_valid_name`); we also
/// refuse shell metacharacters because names end up in generated shell.
pub fn valid_iface_name(name: &str) -> bool {
    (1..=15).contains(&name.len())
        && name != "."
        && name != ".."
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
}

/// An IPv4 or IPv6 address (a link-local one with its zone, `fe80::1%eth0`),
/// or a DNS host name: labels of 1-63 letters,
/// digits and `-` (not first or last), 253 bytes at most (RFC 1123 2.1),
/// and not all digits and dots (that is an IPv4 address, and
/// `192.0.2.300` is none).
fn host_address_ok(a: &str) -> bool {
    if a.parse::<std::net::IpAddr>().is_ok() {
        return true;
    }
    // a link-local IPv6 address with its zone: fe80::1%eth0 (RFC 4007 11.2)
    if let Some((ip, zone)) = a.split_once('%') {
        return ip.parse::<std::net::Ipv6Addr>().is_ok() && valid_iface_name(zone);
    }
    let a = a.strip_suffix('.').unwrap_or(a); // a fully qualified name
    let label_ok = |l: &str| {
        (1..=63).contains(&l.len())
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    a.len() <= 253 && a.split('.').all(label_ok) && !a.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}

/// Rule bench-repeated: each value of `list` (at `ptr`) after its first.
fn repeated<T: PartialEq + std::fmt::Display>(out: &mut Vec<Diagnostic>, ptr: &str, list: &[T]) {
    for (j, v) in list.iter().enumerate() {
        if list[..j].contains(v) {
            let d = Diagnostic::new(Rule::BenchRepeated, format!("{ptr}/{j}"), format!("`{v}` is listed twice"));
            // only the matrix has `repeats`: the rfc2544 and tester lists
            // run each value once, and have nothing to say instead
            let d = if ptr.contains("/matrix/") { d } else { d.hint("remove the repeated value") };
            out.push(d);
        }
    }
}

struct V<'a> {
    b: &'a Board,
    out: Vec<Diagnostic>,
}

/// Runs every semantic rule; returns errors and warnings (unlocated: the
/// caller fills positions from the source map).
pub fn validate(board: &Board) -> Vec<Diagnostic> {
    let mut v = V { b: board, out: Vec::new() };
    v.platform();
    v.interfaces();
    v.shared_irqs();
    v.axienet_dma_kinds();
    v.system();
    v.fastpath();
    if let Some(b) = &board.bench {
        v.out.extend(bench(b, "/bench", Some(board)));
    }
    v.out.extend(crate::limits::check(board));
    v.out
}

impl V<'_> {
    /// A diagnostic of `rule`, with the rule's fixed hint.
    #[track_caller]
    fn report(&mut self, rule: Rule, ptr: String, msg: String) {
        debug_assert!(rule.hint().is_some(), "{rule} has no fixed hint");
        self.out.push(Diagnostic::new(rule, ptr, msg));
    }
    /// A diagnostic of `rule` whose hint depends on the value.
    #[track_caller]
    fn report_hint(&mut self, rule: Rule, ptr: String, msg: String, hint: impl Into<String>) {
        debug_assert!(rule.hint().is_none(), "{rule} has a fixed hint");
        self.out.push(Diagnostic::new(rule, ptr, msg).hint(hint));
    }

    /// Checks a CPU list against the board's CPU count (rules cpu-list-syntax, cpu-range).
    fn cpus(&mut self, ptr: impl FnOnce() -> String, list: &CpuList) -> Option<BTreeSet<u32>> {
        cpu_set(&mut self.out, ptr, list, Some(self.b.board.cpus))
    }

    fn interfaces(&mut self) {
        let b = self.b;
        let mut names: BTreeMap<&str, usize> = BTreeMap::new();
        let mut macs: BTreeMap<[u8; 6], usize> = BTreeMap::new();
        let mut labels: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, ifc) in b.interfaces.iter().enumerate() {
            let p = format!("/interfaces/{i}");
            if !valid_iface_name(&ifc.name) {
                self.report(
                    Rule::IfaceName,
                    format!("{p}/name"),
                    format!("interface name `{}` is not 1-15 characters of letters, digits, `_`, `-`, `.`", ifc.name),
                );
            }
            if let Some(j) = names.insert(&ifc.name, i) {
                self.report(
                    Rule::IfaceDuplicate,
                    format!("{p}/name"),
                    format!("interface `{}` is already described at /interfaces/{j}", ifc.name),
                );
            }
            let c = caps(ifc.driver, b.board.soc);
            self.mtu(&p, ifc, &c);
            self.rings(&p, ifc, &c);
            self.coalesce(&p, ifc, &c);
            self.offloads(&p, ifc);
            self.queues(&p, ifc, &c);
            self.steering(&p, ifc);
            self.irqs(&p, ifc);
            self.qdisc(&p, ifc);
            self.zcrx(&p, ifc, &c);
            if ifc.ptp == Some(OnOff::On) {
                self.report(
                    Rule::PtpOn,
                    format!("{p}/ptp"),
                    "`ptp: on` does nothing; only `off` disables timestamping".into(),
                );
            }
            if let Some(dt) = &ifc.dt {
                if let Some(mac) = &dt.mac {
                    self.mac(&format!("{p}/dt/mac"), mac, &mut macs, i);
                }
                if let Some(j) = labels.insert(&dt.label, i) {
                    self.report(
                        Rule::DtLabelDuplicate,
                        format!("{p}/dt/label"),
                        format!("DT label `{}` is already used by /interfaces/{j}", dt.label),
                    );
                }
                for (k, c) in dt.fixed_clocks.iter().enumerate() {
                    if let Some(j) = labels.insert(&c.label, i) {
                        self.report(
                            Rule::DtLabelDuplicate,
                            format!("{p}/dt/fixed_clocks/{k}/label"),
                            format!("DT label `{}` is already used by /interfaces/{j}", c.label),
                        );
                    }
                }
                self.dt(&p, ifc, dt);
            }
        }
    }

    fn mac(&mut self, ptr: &str, mac: &str, seen: &mut BTreeMap<[u8; 6], usize>, i: usize) {
        let Some(Mac(m)) = Mac::parse(mac) else {
            self.report(Rule::MacSyntax, ptr.into(), format!("`{mac}` is not a MAC address"));
            return;
        };
        if m == [0; 6] {
            self.report(Rule::MacZero, ptr.into(), "MAC address is all zeros".into());
        } else if m == [0xff; 6] {
            self.report(Rule::MacBroadcast, ptr.into(), "MAC address is the broadcast address".into());
        } else if Mac(m).is_multicast() {
            self.report(
                Rule::MacMulticast,
                ptr.into(),
                format!("`{mac}` is a multicast address (bit 0 of the first octet set)"),
            );
        }
        if let Some(j) = seen.insert(m, i) {
            self.report(Rule::MacDuplicate, ptr.into(), format!("MAC address `{mac}` is also used by /interfaces/{j}"));
        }
    }

    fn mtu(&mut self, p: &str, ifc: &Interface, c: &drivers::DriverCaps) {
        if let Some(mtu) = ifc.mtu {
            if mtu < 68 {
                self.report(Rule::MtuMin, format!("{p}/mtu"), format!("MTU {mtu} is below the IPv4 minimum of 68"));
            } else if mtu > c.max_mtu {
                self.report_hint(
                    Rule::MtuMax,
                    format!("{p}/mtu"),
                    format!(
                        "MTU {mtu} exceeds {} for {} on {} ({})",
                        c.max_mtu, ifc.driver, self.b.board.soc, c.source
                    ),
                    format!("use at most {}", c.max_mtu),
                );
            }
        }
    }

    fn ring(&mut self, ptr: String, dir: &str, v: u32, lim: Option<RingLimit>, ifc: &Interface, src: &str) {
        let Some(l) = lim else {
            self.report(Rule::RingUnsupported, ptr, format!("{} does not support `ethtool -G` ({src})", ifc.driver));
            return;
        };
        if v < l.min || v > l.max {
            self.report_hint(
                Rule::RingLimit,
                ptr,
                format!("{dir} ring {v} outside {}..{} for {} ({src})", l.min, l.max, ifc.driver),
                format!("use a size between {} and {}", l.min, l.max),
            );
        } else if l.pow2_required && !v.is_power_of_two() {
            let lo = 1u32 << (31 - v.leading_zeros());
            let hi = v.next_power_of_two().min(l.max);
            self.report_hint(
                Rule::RingPow2,
                ptr,
                format!("{dir} ring {v} is not a power of two; {} refuses it ({src})", ifc.driver),
                format!("use {lo} or {hi}"),
            );
        } else if l.pow2_rounded && !v.is_power_of_two() {
            self.report_hint(Rule::RingRounded, ptr, format!("{} rounds the {dir} ring {v} up to {} ({src})", ifc.driver, v.next_power_of_two()), format!("write {} to say what you get; rings are applied before IRQ and RPS steps because the driver reopens the device", v.next_power_of_two()));
        }
    }

    fn rings(&mut self, p: &str, ifc: &Interface, c: &drivers::DriverCaps) {
        if let Some(r) = &ifc.rings {
            if let Some(v) = r.rx {
                self.ring(format!("{p}/rings/rx"), "rx", v, c.rx_ring, ifc, c.source);
            }
            if let Some(v) = r.tx {
                self.ring(format!("{p}/rings/tx"), "tx", v, c.tx_ring, ifc, c.source);
            }
        }
    }

    fn coalesce(&mut self, p: &str, ifc: &Interface, c: &drivers::DriverCaps) {
        if ifc.coalesce.is_empty() {
            return;
        }
        if c.coalesce.is_empty() {
            self.report(
                Rule::CoalesceUnsupported,
                format!("{p}/coalesce"),
                format!("{} has no interrupt coalescing (`ethtool -C` unsupported, {})", ifc.driver, c.source),
            );
            return;
        }
        for (k, v) in &ifc.coalesce {
            let ptr = format!("{p}/coalesce/{k}");
            match c.coalesce.iter().find(|cp| cp.name == k) {
                None => {
                    let names: Vec<&str> = c.coalesce.iter().map(|cp| cp.name).collect();
                    self.report_hint(
                        Rule::CoalesceParam,
                        ptr,
                        format!("{} does not support coalescing parameter `{k}`", ifc.driver),
                        format!("supported: {}", names.join(", ")),
                    );
                }
                Some(cp) if *v > cp.max => {
                    self.report_hint(
                        Rule::CoalesceLimit,
                        ptr,
                        format!("{k} {v} exceeds {} for {} ({})", cp.max, ifc.driver, c.source),
                        format!("use at most {}", cp.max),
                    );
                }
                Some(_) => {}
            }
        }
        if ifc.driver == Driver::Gianfar {
            for dir in ["rx", "tx"] {
                let u = ifc.coalesce.get(&format!("{dir}-usecs")).copied();
                let f = ifc.coalesce.get(&format!("{dir}-frames")).copied();
                if matches!((u, f), (Some(0), Some(x)) | (Some(x), Some(0)) if x > 0) || u.is_some() != f.is_some() {
                    self.report_hint(Rule::GianfarCoalescePair, format!("{p}/coalesce"), format!("gianfar enables {dir} coalescing only when both {dir}-usecs and {dir}-frames are non-zero (gianfar_ethtool.c)"), format!("set both {dir}-usecs and {dir}-frames"));
                }
            }
        }
    }

    fn offloads(&mut self, p: &str, ifc: &Interface) {
        for k in ifc.offloads.keys() {
            let ptr = format!("{p}/offloads/{k}");
            if !k.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
                || k.is_empty()
            {
                self.report(Rule::OffloadName, ptr, format!("`{k}` is not an ethtool feature name"));
            } else if !drivers::known_offload(k) {
                self.report(
                    Rule::OffloadUnknown,
                    ptr,
                    format!(
                        "`{k}` is not an `ethtool -K` feature of Linux 6.12; it is passed to `ethtool -K` as written"
                    ),
                );
            }
        }
    }

    fn queues(&mut self, p: &str, ifc: &Interface, c: &drivers::DriverCaps) {
        if let (Driver::Gianfar, Some((n, src))) = (ifc.driver, self.b.board.soc.etsec_queues()) {
            for (dir, have) in [("rx", ifc.queues.rx), ("tx", ifc.queues.tx)] {
                if have > n {
                    self.report_hint(Rule::GianfarQueueGroups, format!("{p}/queues/{dir}"), format!("gianfar on {} has {n} {} queue(s): one per eTSEC queue-group ({src}; gianfar.c gfar_of_init)", self.b.board.soc, dir.to_uppercase()), format!("use at most {n}"));
                }
            }
            return;
        }
        if ifc.queues.tx > c.max_tx_queues {
            let why = if ifc.driver == Driver::Gianfar { " (one TX queue per eTSEC queue-group)" } else { "" };
            self.report_hint(
                Rule::TxQueuesMax,
                format!("{p}/queues/tx"),
                format!("{} on {} has at most {} TX queues{why}", ifc.driver, self.b.board.soc, c.max_tx_queues),
                format!("use at most {}", c.max_tx_queues),
            );
        }
        if let Some(ch) = &ifc.channels {
            let rx = ch.combined.unwrap_or(0) + ch.rx.unwrap_or(0);
            let tx = ch.combined.unwrap_or(0) + ch.tx.unwrap_or(0);
            if (rx > 0 && rx != ifc.queues.rx) || (tx > 0 && tx != ifc.queues.tx) {
                self.report(
                    Rule::ChannelsMismatch,
                    format!("{p}/channels"),
                    format!(
                        "channels give {rx} RX / {tx} TX queues but `queues` says {} / {}",
                        ifc.queues.rx, ifc.queues.tx
                    ),
                );
            }
        }
    }

    fn steering(&mut self, p: &str, ifc: &Interface) {
        for (key, list, count) in [("rps", &ifc.rps, ifc.queues.rx), ("xps", &ifc.xps, ifc.queues.tx)] {
            for (j, qc) in list.iter().enumerate() {
                let qp = || format!("{p}/{key}/{j}");
                if let QueueSel::One(q) = qc.queue {
                    if q >= count {
                        let dir = if key == "rps" { "RX" } else { "TX" };
                        self.report_hint(
                            Rule::QueueIndex,
                            format!("{}/queue", qp()),
                            format!("queue {q} does not exist: `{}` has {count} {dir} queues", ifc.name),
                            format!("use 0..{} or `all`", count - 1),
                        );
                    }
                }
                self.cpus(|| format!("{}/cpus", qp()), &qc.cpus);
            }
        }
        if let Some(n) = ifc.rfs_flow_cnt {
            // above the limit: an error from crate::limits instead
            if !n.is_power_of_two() && n <= crate::limits::MAX_FLOW_ENTRIES {
                self.report_hint(
                    Rule::RfsRounded,
                    format!("{p}/rfs_flow_cnt"),
                    format!(
                        "the kernel rounds rps_flow_cnt {n} up to {} (net-sysfs.c); generated as {}",
                        n.next_power_of_two(),
                        n.next_power_of_two()
                    ),
                    "write a power of two",
                );
            }
            if self.b.system.rfs_sock_flow_entries.is_none() {
                self.report(
                    Rule::RfsNeedsGlobal,
                    format!("{p}/rfs_flow_cnt"),
                    "RFS needs the global flow table too".into(),
                );
            }
        }
    }

    fn irqs(&mut self, p: &str, ifc: &Interface) {
        for (j, ia) in ifc.irq_affinity.iter().enumerate() {
            let ip = || format!("{p}/irq_affinity/{j}");
            if ia.irq.bytes().all(|b| b.is_ascii_digit()) {
                self.report(
                    Rule::IrqNumber,
                    format!("{}/irq", ip()),
                    format!("`{}` is an IRQ number; numbers change between kernels and boots", ia.irq),
                );
            } else if ia.irq.bytes().filter(|b| !matches!(b, b'*' | b'?')).count() < 3 {
                // (a number such as `63` is irq-number only: one fault, one error)
                self.report(
                    Rule::IrqPatternBroad,
                    format!("{}/irq", ip()),
                    format!("IRQ pattern `{}` would match almost every IRQ of the system", ia.irq),
                );
            }
            if let Some(set) = self.cpus(|| format!("{}/cpus", ip()), &ia.cpus) {
                if set.len() > 1 {
                    if let Some(ctl) = self.b.board.soc.single_destination_irqs() {
                        self.report(
                            Rule::IrqMultiCpu,
                            format!("{}/cpus", ip()),
                            format!(
                                "{ctl} delivers each interrupt to one CPU: a {}-CPU mask does not spread load",
                                set.len()
                            ),
                        );
                    }
                }
            }
            if self.b.system.irqbalance == Irqbalance::Running {
                self.report(
                    Rule::IrqbalanceRunning,
                    ip(),
                    "irqbalance runs on this image and will undo pinned IRQ affinity".into(),
                );
            }
        }
    }

    fn qdisc(&mut self, p: &str, ifc: &Interface) {
        let Some(q) = &ifc.qdisc else { return };
        if ifc.queues.tx < 2 {
            self.report(
                Rule::MultiqSingleQueue,
                format!("{p}/qdisc"),
                format!("multiq on `{}` with {} TX queue does nothing; the applier skips it", ifc.name, ifc.queues.tx),
            );
        }
        for (j, f) in q.filters.iter().enumerate() {
            let fp = format!("{p}/qdisc/filters/{j}");
            if f.queue >= ifc.queues.tx {
                self.report_hint(
                    Rule::SkbeditQueue,
                    format!("{fp}/queue"),
                    format!(
                        "queue_mapping {} >= the {} TX queues of `{}`: the kernel ignores it (net/sched/act_skbedit.c)",
                        f.queue, ifc.queues.tx, ifc.name
                    ),
                    format!("use a queue in 0..{}", ifc.queues.tx.saturating_sub(1)),
                );
            }
            if Ipv4Prefix::parse(&f.address).is_none() {
                self.report(
                    Rule::FilterAddress,
                    format!("{fp}/address"),
                    format!("`{}` is not an IPv4 address or prefix", f.address),
                );
            }
        }
    }

    fn zcrx(&mut self, p: &str, ifc: &Interface, c: &drivers::DriverCaps) {
        let Some(z) = &ifc.zero_copy_rx else { return };
        let zp = format!("{p}/zero_copy_rx");
        if !c.zero_copy_rx {
            self.report(
                Rule::ZcrxUnsupported,
                zp.clone(),
                format!("{} has no zero-copy receive support (netdev queue API and header split)", ifc.driver),
            );
        }
        if z.queue >= ifc.queues.rx {
            self.report_hint(
                Rule::QueueIndex,
                format!("{zp}/queue"),
                format!("queue {} does not exist: `{}` has {} RX queues", z.queue, ifc.name, ifc.queues.rx),
                "pick a queue below queues.rx (and keep it out of RSS)",
            );
        }
        if let Some(len) = z.rx_buf_len {
            if !len.is_power_of_two() || len < 4096 {
                self.report(
                    Rule::ZcrxBufLen,
                    format!("{zp}/rx_buf_len"),
                    format!("rx-buf-len {len} must be a power of two of at least 4096"),
                );
            }
        }
        if z.tcp_data_split && ifc.offloads.get("rx-gro-hw") != Some(&OnOff::On) {
            self.report(
                Rule::ZcrxHeaderSplit,
                format!("{zp}/tcp_data_split"),
                "tcp-data-split needs hardware GRO first (mlx5 SHAMPO)".into(),
            );
        }
        if self.b.board.kernel != KernelFlavour::Mainline {
            self.report(Rule::ZcrxKernel, zp, "io_uring zero-copy receive needs Linux 6.15+ (IO_URING_ZCRX)".into());
        }
    }

    fn dt(&mut self, p: &str, ifc: &Interface, dt: &IfaceDt) {
        let dp = format!("{p}/dt");
        let flavour = self.b.board.kernel;
        let axi = ifc.driver.is_axi();
        let full = dt.node.is_some();
        if let Some(mode) = &dt.phy_mode {
            let mp = format!("{dp}/phy_mode");
            if axi && mode == "xgmii" {
                self.report(
                    Rule::PhyModeXgmii,
                    mp,
                    "phy-mode \"xgmii\" is not what the XXV MAC runs: its 10G/25G interface is 10GBASE-R/25GBASE-R"
                        .into(),
                );
            } else if !drivers::PHY_MODES.contains(&mode.as_str()) {
                self.report(
                    Rule::PhyModeUnknown,
                    mp,
                    format!("`{mode}` is not a phy-mode of ethernet-controller.yaml"),
                );
            } else if ifc.driver.is_xxv() && !drivers::XXV_PHY_MODES.contains(&mode.as_str()) {
                self.report_hint(
                    Rule::PhyModeMac,
                    mp,
                    format!("phy-mode `{mode}` on an XXV port: the XXV MAC runs {}", drivers::XXV_PHY_MODES.join(", ")),
                    "use 10gbase-r or 25gbase-r as the IP is configured",
                );
            } else if ifc.driver == Driver::Axienet && !drivers::AXIENET_PHY_MODES.contains(&mode.as_str()) {
                self.report_hint(
                    Rule::PhyModeMac,
                    mp,
                    format!("phy-mode `{mode}` is not one axienet's 1G/2.5G MAC runs"),
                    format!(
                        "use one of {} (axienet_probe accepts every RGMII variant)",
                        drivers::AXIENET_PHY_MODES.join(", ")
                    ),
                );
            }
        } else if full && ifc.driver.is_xxv() {
            self.report_hint(Rule::PhyModeMissing, format!("{dp}/label"), "an XXV node needs `phy_mode`: linux-xlnx's axienet_probe fails silently without phy-mode or xlnx,phy-type (of_get_phy_mode, cleanup_clk)".into(), "add `phy_mode: 10gbase-r` (or 25gbase-r)");
        } else if full {
            self.report_hint(
                Rule::PhyModeMissing,
                format!("{dp}/label"),
                "a generated AXI Ethernet node needs `phy_mode` (axienet_probe: of_get_phy_mode)".into(),
                "add phy_mode, e.g. sgmii, 1000base-x or rgmii-rxid",
            );
        }
        if let Some(sp) = dt.max_speed {
            if ![10, 100, 1000, 2500, 10000, 25000].contains(&sp) {
                self.report(
                    Rule::MaxSpeed,
                    format!("{dp}/max_speed"),
                    format!("max-speed {sp} is not an Ethernet speed"),
                );
            }
        } else if full && ifc.driver == Driver::Axienet && flavour == KernelFlavour::LinuxXlnx {
            self.report(Rule::MaxSpeedMissing, format!("{dp}/label"), "a linux-xlnx 1G/2.5G AXI Ethernet node needs `max_speed`: axienet_probe fails with \"couldn't find MAC Rate\" (-EINVAL)".into());
        }
        if axi && !ifc.driver.is_xxv() && full && dt.phy_handle.is_none() && dt.pcs_handle.is_none() {
            let needs =
                flavour == KernelFlavour::LinuxXlnx || matches!(dt.phy_mode.as_deref(), Some("sgmii" | "1000base-x"));
            if needs {
                self.report(Rule::PhyOrPcsMissing, format!("{dp}/label"), format!("axienet on {flavour} refuses this port without `phy-handle` or `pcs-handle` (\"pcs-handle ... or phy-handle required\", -EINVAL)"));
            }
        }
        if ifc.driver.is_xxv()
            && !full
            && dt.phy_handle.is_none()
            && dt.fixed_link.is_none()
            && dt.managed != Some(Managed::InBandStatus)
        {
            // A patched node: the base tree may have the link; `dtb verify`
            // decides (rule open-phylink-no-link). `sfp` alone is not a link.
            self.report(Rule::XxvNoLink, format!("{dp}/label"), "an XXV port without phy-handle, fixed-link or `managed: in-band-status` (an `sfp` alone does not count): linux-xlnx's axienet_open -> phylink_fwnode_phy_connect returns -ENODEV unless the base tree has one".into());
        }
        if let Some(n) = &dt.node {
            if axi {
                let planned = drivers::PlannedNode { dt, node: n, driver: ifc.driver, flavour };
                for (row, problem) in drivers::open_problems(ifc.driver, flavour, &planned) {
                    let at = match row.need {
                        drivers::OpenNeed::PhylinkLink | drivers::OpenNeed::PhyOrFixedLink => format!("{dp}/label"),
                        drivers::OpenNeed::MacIrq => format!("{dp}/node"),
                        drivers::OpenNeed::DmaClocksEnabled => format!("{dp}/node/dma"),
                        // PlannedNode leaves the PHY to the check below.
                        drivers::OpenNeed::PhyRgmiiDelays | drivers::OpenNeed::PhyIsPhy => format!("{dp}/phy_handle"),
                    };
                    self.report(row.rule, at, drivers::open_message(row, &problem));
                }
            }
        }
        self.phy_delays(&dp, ifc, dt);
        if let Some(s) = &dt.sfp {
            self.sfp(&format!("{dp}/sfp"), s);
        }
        let need_axi = [("pcs_handle", dt.pcs_handle.is_some()), ("checksum", dt.checksum.is_some())];
        for (key, set) in need_axi {
            if set && !axi {
                self.report(
                    Rule::AxiOnlyProperty,
                    format!("{dp}/{key}"),
                    format!("`{key}` is an AXI Ethernet property; {} does not read it", ifc.driver),
                );
            }
        }
        if dt.tbi_handle.is_some() && ifc.driver != Driver::Gianfar {
            self.report(
                Rule::TbiHandle,
                format!("{dp}/tbi_handle"),
                format!("`tbi_handle` is read by gianfar only, not {}", ifc.driver),
            );
        }
        if ifc.driver == Driver::Gianfar && dt.phy_mode.as_deref() == Some("sgmii") && dt.tbi_handle.is_none() {
            self.report(Rule::GianfarSgmiiTbi, format!("{dp}/phy_mode"), "SGMII on gianfar without `tbi_handle`: gfar_configure_serdes warns and the SerDes stays unconfigured (unless the base tree has it)".into());
        }
        if let Some(f) = &dt.fixed_link {
            if ![10, 100, 1000, 2500, 10000].contains(&f.speed) {
                self.report(
                    Rule::FixedLinkSpeed,
                    format!("{dp}/fixed_link/speed"),
                    format!("fixed-link speed {} is not one the fixed PHY emulates", f.speed),
                );
            }
            if dt.phy_handle.is_some() {
                self.report(Rule::FixedLinkPhy, format!("{dp}/fixed_link"), "both `fixed_link` and `phy_handle`: a fixed link has no PHY (phylink/of_phy_is_fixed_link take one or the other)".into());
            }
            if dt.managed == Some(Managed::InBandStatus) {
                self.report(
                    Rule::FixedLinkInBand,
                    format!("{dp}/managed"),
                    "phylink refuses fixed-link with in-band-status (\"can't use both fixed-link and in-band-status\")"
                        .into(),
                );
            }
        }
        if let Some(m) = &dt.mdio {
            let mut seen_addr = BTreeMap::new();
            for (j, d) in m.devices.iter().enumerate() {
                if let Some(t) = &d.dp83867 {
                    let tp = format!("{dp}/mdio/devices/{j}/dp83867");
                    for (key, ps) in [
                        ("rx_internal_delay_ps", t.rx_internal_delay_ps),
                        ("tx_internal_delay_ps", t.tx_internal_delay_ps),
                    ] {
                        if let Some(ps) = ps.filter(|&ps| Dp83867::delay_code(ps).is_none()) {
                            self.report_hint(Rule::Dp83867Value, format!("{tp}/{key}"), format!("DP83867 delay {ps} ps is not one the PHY has (RGMIIDCTL: 250..4000 ps in steps of 250)"), "round to a multiple of 250 ps between 250 and 4000 (2000 is the strap default)");
                        }
                    }
                    for (key, n) in [("tx_fifo_depth", t.tx_fifo_depth), ("rx_fifo_depth", t.rx_fifo_depth)] {
                        if let Some(n) = n.filter(|&n| Dp83867::fifo_code(n).is_none()) {
                            self.report_hint(
                                Rule::Dp83867Value,
                                format!("{tp}/{key}"),
                                format!("DP83867 FIFO depth {n} nibbles is not one the PHY has"),
                                "use 3, 4, 6 or 8 (nibbles; the driver's default is 4)",
                            );
                        }
                    }
                }
                self.mdio_device(&format!("{dp}/mdio/devices/{j}"), d);
                if let Some(k) = seen_addr.insert(d.address, j) {
                    self.report(
                        Rule::MdioAddress,
                        format!("{dp}/mdio/devices/{j}/address"),
                        format!("MDIO address {} is already used by devices/{k}", d.address),
                    );
                }
            }
        }
        if let Some(n) = &dt.node {
            self.pl_node(p, ifc, n);
        }
        self.fixed_clock_refs(&dp, dt);
    }

    /// References to the board's fixed clocks take no index (rule
    /// fixed-clock-index).
    fn fixed_clock_refs(&mut self, dp: &str, dt: &IfaceDt) {
        let Some(n) = &dt.node else { return };
        let fixed: BTreeSet<&str> = self
            .b
            .interfaces
            .iter()
            .filter_map(|i| i.dt.as_ref())
            .flat_map(|d| d.fixed_clocks.iter().map(|c| c.label.as_str()))
            .collect();
        let np = format!("{dp}/node");
        let mut refs: Vec<(String, &ClockRef)> = Vec::new();
        refs.extend(n.clock.as_ref().map(|c| (format!("{np}/clock/index"), c)));
        for (k, c) in &n.clocks {
            refs.push((format!("{np}/clocks/{}/index", crate::yaml::escape_segment(k)), c));
        }
        for (k, c) in &n.dma.clocks {
            refs.push((format!("{np}/dma/clocks/{}/index", crate::yaml::escape_segment(k)), c));
        }
        for (ptr, c) in refs {
            if let Some(i) = c.index.filter(|_| fixed.contains(c.label.as_str())) {
                self.report(
                    Rule::FixedClockIndex,
                    ptr,
                    format!("`{}` is a fixed clock of this board (#clock-cells = <0>), so index {i} would be read as the next clock's phandle", c.label),
                );
            }
        }
    }

    /// An SFP cage: its power limit (rule sfp-max-power) and the mux its
    /// I2C bus is a channel of (rule sfp-i2c-mux).
    fn sfp(&mut self, sp: &str, s: &Sfp) {
        if let Some(mw) = s.maximum_power_milliwatt.filter(|&mw| mw < 1000) {
            self.report(
                Rule::SfpMaxPower,
                format!("{sp}/maximum_power_milliwatt"),
                format!("maximum-power-milliwatt {mw} is below 1000: sff,sfp.yaml's minimum; sfp_probe warns \"Firmware bug\" and allows 1 W"),
            );
        }
        match (&s.i2c_mux, &s.i2c_bus) {
            (Some(m), _) if drivers::i2c_mux_symbols(m).is_none() => {
                let known: Vec<String> =
                    drivers::I2C_MUXES.iter().flat_map(|(c, _)| c.iter().map(|x| x.to_string())).collect();
                let hint = match crate::text::closest(m, &known) {
                    Some(c) => format!("did you mean `{c}`? (the mux node's compatible in the board DTS)"),
                    None => format!("the mux node's compatible in the board DTS, one of {}", known.join(", ")),
                };
                self.report_hint(Rule::SfpI2cMux, format!("{sp}/i2c_mux"), format!("`{m}` is no I2C mux compatible of drivers/i2c/muxes (pca954x_of_match, i2c-mux-gpio): the kernel fragment cannot request its driver"), hint);
            }
            (None, Some(bus)) if drivers::path_through_mux(bus) => {
                self.report_hint(Rule::SfpI2cMux, format!("{sp}/i2c_bus"), format!("the cage's I2C bus {bus} is a mux channel, but `i2c_mux` does not say which mux: the channel is an adapter only once the mux driver probes, and the kernel fragment cannot request it"), "add `i2c_mux:` with the mux node's compatible (ZCU102 U34/U135: nxp,pca9548)");
            }
            _ => {}
        }
    }

    /// One MDIO device on its own: one kind of chip (rule
    /// mdio-device-kind), DP83867 delays where dp83867 reads them (rule
    /// dp83867-generic-delay), a converter that follows a PHY (rule
    /// gmii2rgmii-phy-handle).
    fn mdio_device(&mut self, devp: &str, d: &crate::model::MdioDevice) {
        let kinds: Vec<&str> = [
            ("dp83867", d.dp83867.is_some()),
            ("pcs_pma", d.pcs_pma.is_some()),
            ("gmii_to_rgmii", d.gmii_to_rgmii.is_some()),
        ]
        .into_iter()
        .filter(|k| k.1)
        .map(|k| k.0)
        .collect();
        if kinds.len() > 1 {
            self.report(
                Rule::MdioDeviceKind,
                format!("{devp}/{}", kinds[1]),
                format!(
                    "MDIO device `{}` is both {}: one chip answers at one MDIO address and one driver binds it (phy_bus_match), so the other's properties would be read by nobody",
                    d.label,
                    kinds.join(" and ")
                ),
            );
        }
        // A compatible naming a PHY ID binds that ID's driver
        // (phy_device_create takes the ID from it): with a `dp83867` block it
        // must be the DP83867's; the converter writes its own compatible.
        if let Some(c) = &d.compatible {
            let other_id = c.starts_with("ethernet-phy-id") && c != drivers::DP83867_COMPATIBLE;
            let clash = if d.gmii_to_rgmii.is_some() {
                Some(format!(
                    "`compatible: {c}` on a GMII-to-RGMII converter, which is {}",
                    drivers::GMII2RGMII_COMPATIBLE
                ))
            } else if d.dp83867.is_some() && other_id {
                Some(format!("`compatible: {c}` names another PHY than the DP83867 ({}): that ID's driver binds and reads no ti,* property", drivers::DP83867_COMPATIBLE))
            } else {
                None
            };
            if let Some(m) = clash {
                self.report(
                    Rule::MdioDeviceKind,
                    format!("{devp}/compatible"),
                    format!("MDIO device `{}`: {m}", d.label),
                );
            }
        }
        let dp83867 = d.dp83867.is_some() || d.compatible.as_deref() == Some(drivers::DP83867_COMPATIBLE);
        if dp83867 {
            for (key, ps, ti) in [
                (
                    "rx_internal_delay_ps",
                    d.rx_internal_delay_ps,
                    d.dp83867.as_ref().and_then(|t| t.rx_internal_delay_ps),
                ),
                (
                    "tx_internal_delay_ps",
                    d.tx_internal_delay_ps,
                    d.dp83867.as_ref().and_then(|t| t.tx_internal_delay_ps),
                ),
            ] {
                let Some(ps) = ps else { continue };
                let hint = match ti {
                    Some(t) if t == ps => format!("drop `{key}`: `dp83867.{key}: {t}` already sets it"),
                    Some(t) => format!("drop `{key}`; `dp83867.{key}: {t}` is what the PHY gets"),
                    None => format!(
                        "move it: `dp83867: {{ {key}: {} }}` (250..4000 ps in steps of 250)",
                        ps.clamp(250, 4000) / 250 * 250
                    ),
                };
                self.report_hint(
                    Rule::Dp83867GenericDelay,
                    format!("{devp}/{key}"),
                    format!("`{key}: {ps}` on the DP83867 `{}`: dp83867_of_init reads only ti,{}-internal-delay, so this delay is written and never applied", d.label, &key[..2]),
                    hint,
                );
            }
        }
        if let Some(c) = &d.gmii_to_rgmii {
            let target = self
                .b
                .interfaces
                .iter()
                .filter_map(|i| i.dt.as_ref()?.mdio.as_ref())
                .flat_map(|m| m.devices.iter())
                .find(|x| x.label == c.phy_handle);
            let what = match target {
                Some(t) if t.label == d.label => Some("itself".to_string()),
                Some(t) if t.gmii_to_rgmii.is_some() => Some(format!("the converter `{}`", t.label)),
                _ => None,
            };
            if let Some(w) = what {
                self.report(
                    Rule::Gmii2rgmiiPhyHandle,
                    format!("{devp}/gmii_to_rgmii/phy_handle"),
                    format!("the GMII-to-RGMII converter `{}` follows {w}, not a PHY: xgmiitorgmii_probe's of_phy_find_device finds no phy_device there and defers for ever (\"Couldn't find phydev\"), so the converter keeps its reset speed", d.label),
                );
            }
        }
    }

    /// The open rows of the PHY `phy_handle` names, when the board
    /// describes that device (on any port's MDIO bus): it is a PHY, not a
    /// converter (rule open-phy-is-converter), and has the delays the
    /// port's mode needs (rule open-phy-delay). A base-tree PHY is left to
    /// `dtb verify`.
    fn phy_delays(&mut self, dp: &str, ifc: &Interface, dt: &IfaceDt) {
        let Some(handle) = &dt.phy_handle else { return };
        let row = |need| drivers::OPEN.iter().find(|r| r.need == need && r.drivers.contains(&ifc.driver));
        let found = self.b.interfaces.iter().enumerate().find_map(|(i, other)| {
            let m = other.dt.as_ref()?.mdio.as_ref()?;
            let j = m.devices.iter().position(|d| &d.label == handle)?;
            Some((format!("/interfaces/{i}/dt/mdio/devices/{j}"), &m.devices[j]))
        });
        let Some((devp, dev)) = found else { return };
        let facts = drivers::PhyFacts::of_device(dev);
        if let Some(row) = row(drivers::OpenNeed::PhyIsPhy).filter(|_| facts.converter) {
            let problem = format!(
                "port {}: phy_handle `{handle}` names a GMII-to-RGMII converter ({}), not a PHY",
                ifc.name,
                drivers::GMII2RGMII_COMPATIBLE
            );
            self.report(row.rule, format!("{dp}/phy_handle"), drivers::open_message(row, &problem));
        }
        let (Some(mode), Some(row)) = (&dt.phy_mode, row(drivers::OpenNeed::PhyRgmiiDelays)) else { return };
        if let Some(problem) = drivers::dp83867_delay_problem(mode, &facts) {
            let at = if dev.dp83867.is_some() { format!("{devp}/dp83867") } else { format!("{devp}/compatible") };
            let problem = format!("port {}: {problem}", ifc.name);
            self.report(row.rule, at, drivers::open_message(row, &problem));
        }
    }

    fn pl_node(&mut self, p: &str, ifc: &Interface, n: &PlEthernet) {
        let np = format!("{p}/dt/node");
        if !ifc.driver.is_axi() {
            self.report(
                Rule::PlNodeDriver,
                np.clone(),
                format!("a PL node is only generated for axienet, xxv and xxv-mcdma ports, not {}", ifc.driver),
            );
            return;
        }
        let flavour = self.b.board.kernel;
        let dmas = n.dmas == Some(true);
        let axis = n.axistream_connected == Some(true);
        match (dmas, axis) {
            (true, true) => self.report_hint(
                Rule::DmaStylesMixed,
                np.clone(),
                "both `dmas` (mainline dmaengine style) and `axistream_connected` (linux-xlnx style) are set".into(),
                format!(
                    "pick one style: {} for the {} kernel",
                    if flavour == KernelFlavour::LinuxXlnx { "axistream_connected" } else { "dmas" },
                    flavour
                ),
            ),
            (false, false) => self.report(Rule::DmaNone, np.clone(), "the MAC is connected to no DMA engine".into()),
            (true, false) if flavour == KernelFlavour::LinuxXlnx => self.report(
                Rule::DmasOnLinuxXlnx,
                format!("{np}/dmas"),
                "linux-xlnx's axienet reads `axistream-connected`, not `dmas`".into(),
            ),
            _ => {}
        }
        if !(32..=64).contains(&n.dma.addrwidth) {
            self.report(
                Rule::DmaAddrWidth,
                format!("{np}/dma/addrwidth"),
                format!("DMA address width {} outside 32..64 bits", n.dma.addrwidth),
            );
        }
        if !(n.dma.datawidth.is_power_of_two() && (8..=1024).contains(&n.dma.datawidth)) {
            self.report(
                Rule::DmaDataWidth,
                format!("{np}/dma/datawidth"),
                format!("stream data width {} is not a power of two in 8..1024 bits", n.dma.datawidth),
            );
        }
        if n.rxmem == 0 {
            self.report(
                Rule::RxmemZero,
                format!("{np}/rxmem"),
                "xlnx,rxmem 0: axienet_change_mtu refuses every MTU change".into(),
            );
        }
        if n.reg < n.dma.reg.saturating_add(n.dma.size) && n.dma.reg < n.reg.saturating_add(n.size) {
            self.report(
                Rule::DmaOverlapsMac,
                format!("{np}/dma/reg"),
                "the DMA register window overlaps the MAC's".into(),
            );
        }
        let mac_names = if ifc.driver.is_xxv() { drivers::MAC_CLOCKS_XXV } else { drivers::MAC_CLOCKS_1G };
        let dma_names = if dmas { drivers::DMA_CLOCKS_DMAENGINE } else { drivers::DMA_CLOCKS_ETH };
        for (key, map, names) in [("clocks", &n.clocks, mac_names), ("dma/clocks", &n.dma.clocks, dma_names)] {
            for k in map.keys() {
                if !names.contains(&k.as_str()) {
                    self.report_hint(
                        Rule::ClockName,
                        format!("{np}/{key}/{}", crate::yaml::escape_segment(k)),
                        format!("`{k}` is not a clock name the driver asks for"),
                        format!("use {}", names.join(", ")),
                    );
                }
            }
            if n.clock.is_none() {
                let missing: Vec<&str> = names.iter().copied().filter(|c| !map.contains_key(*c)).collect();
                if !missing.is_empty() {
                    self.report_hint(
                        Rule::ClockMissing,
                        np.clone(),
                        format!("no clock for {} (and no `clock` for all)", missing.join(", ")),
                        format!("set `clock`, or `{key}` for each of {}", names.join(", ")),
                    );
                }
            }
        }
        let mcdma = ifc.driver == Driver::XxvMcdma;
        if !mcdma && n.dma.interrupts.len() != 2 {
            // axistream-connected: axienet reads the DMA node's index 0 and 1;
            // dmaengine: one channel child each, and xilinx_dma_chan_probe
            // takes of_irq_get(child, 0) (mainline 6.12 xilinx_dma.c).
            let reads = if dmas {
                "xilinx_dma reads one per channel node, MM2S (TX) then S2MM (RX)"
            } else {
                "the driver reads index 0 (MM2S, TX) and 1 (S2MM, RX)"
            };
            self.report(
                Rule::AxidmaIrqCount,
                format!("{np}/dma/interrupts"),
                format!("{} DMA interrupts for an AXI DMA: {reads}", n.dma.interrupts.len()),
            );
        }
        if let Some(q) = n.num_queues {
            if n.dma.interrupts.len() != 2 * usize::from(q) {
                self.report_hint(
                    Rule::McdmaIrqCount,
                    format!("{np}/dma/interrupts"),
                    format!("{} DMA interrupts for {q} MCDMA queues", n.dma.interrupts.len()),
                    format!("list {} interrupts: one MM2S and one S2MM per channel (shared lines may repeat)", 2 * q),
                );
            }
        }
        if ifc.driver.is_xxv() && flavour != KernelFlavour::LinuxXlnx {
            self.report(
                Rule::XxvLinuxXlnx,
                format!("{p}/driver"),
                "the XXV Ethernet driver exists only in linux-xlnx".into(),
            );
        }
        if mcdma {
            match n.num_queues {
                None => self.report(
                    Rule::McdmaNumQueues,
                    np.to_string(),
                    "xxv-mcdma needs `num_queues` (xlnx,num-queues; linux-xlnx assumes 16 without it)".into(),
                ),
                Some(q) => {
                    if u32::from(q) != ifc.queues.rx {
                        self.report(
                            Rule::McdmaQueuesRx,
                            format!("{np}/num_queues"),
                            format!("num_queues {q} differs from queues.rx {}", ifc.queues.rx),
                        );
                    }
                    if n.channel_ids.len() != usize::from(q) {
                        self.report(
                            Rule::McdmaChannelIdCount,
                            format!("{np}/channel_ids"),
                            format!("{} channel ids for {q} queues", n.channel_ids.len()),
                        );
                    }
                }
            }
            let mut ids = BTreeSet::new();
            for (j, id) in n.channel_ids.iter().enumerate() {
                let v = parse_channel_id(id);
                match v {
                    None => self.report_hint(Rule::McdmaChannelId, format!("{np}/channel_ids/{j}"), format!("channel id `{id}` is not a hex number like \"0x1\" or \"a\""), "linux-xlnx parses xlnx,channel-ids with kstrtou16(s, 16): hex digits, the 0x prefix optional"),
                    Some(v) if !(1..=16).contains(&v) => self.report_hint(Rule::McdmaChannelId, format!("{np}/channel_ids/{j}"), format!("channel id {id} outside 1..16: MCDMA channel ids are 1-based (register 0x40 + (id-1) * 0x40)"), "use 0x1 .. 0x10"),
                    Some(v) if !ids.insert(v) => self.report(Rule::McdmaChannelIdDuplicate, format!("{np}/channel_ids/{j}"), format!("channel id {id} twice")),
                    Some(_) => {}
                }
            }
        } else if n.num_queues.is_some() || !n.channel_ids.is_empty() {
            self.report(
                Rule::McdmaProps,
                np.clone(),
                "num_queues/channel_ids are MCDMA properties (xxv-mcdma only)".into(),
            );
        }
        if n.interrupts.len() > 1 {
            self.report(
                Rule::MacIrqCount,
                format!("{np}/interrupts/1"),
                format!("{} MAC interrupts: axienet_probe reads only the first (platform_get_irq(pdev, 0)) when a DMA node is connected; the others would be dropped", n.interrupts.len()),
            );
        }
        if ifc.driver == Driver::Axienet && dmas && n.interrupts.is_empty() {
            self.report(
                Rule::AxienetInterrupts,
                format!("{np}/interrupts"),
                "xlnx,axi-ethernet.yaml requires the MAC's `interrupts`".into(),
            );
        }
        if let Some(ranges) = self.b.board.soc.pl_irq_spis() {
            let all = n
                .interrupts
                .iter()
                .enumerate()
                .map(|(j, i)| (format!("{np}/interrupts/{j}"), i))
                .chain(n.dma.interrupts.iter().enumerate().map(|(j, i)| (format!("{np}/dma/interrupts/{j}"), i)));
            for (ptr, irq) in all {
                if !ranges.iter().any(|r| r.contains(&irq.spi())) {
                    let [a, b] = &ranges;
                    self.report_hint(
                        Rule::PlIrqLine,
                        ptr,
                        format!("GIC SPI {} is not a PL-to-PS interrupt line on {}", irq.spi(), self.b.board.soc),
                        format!(
                            "PL interrupts are SPI {}-{} and {}-{} (IRQ ID - 32)",
                            a.start(),
                            a.end(),
                            b.start(),
                            b.end()
                        ),
                    );
                }
            }
        }
    }

    /// PL interrupt lines used more than once across the board: allowed
    /// only where every user requests the line with IRQF_SHARED and it is
    /// level-triggered (an edge on a wired-OR line is lost). linux-xlnx: the
    /// MCDMA channel IRQs and the MAC IRQ are shared, the AXI DMA ones are
    /// not (axienet_init_legacy_dma: flags 0); mainline 6.12 requests all
    /// with IRQF_SHARED (axienet_open).
    fn shared_irqs(&mut self) {
        let xlnx = self.b.board.kernel == KernelFlavour::LinuxXlnx;
        let mut uses: BTreeMap<u32, Vec<(String, Irq, bool)>> = BTreeMap::new();
        for (i, ifc) in self.b.interfaces.iter().enumerate() {
            let Some(n) = ifc.dt.as_ref().and_then(|d| d.node.as_ref()) else { continue };
            let np = format!("/interfaces/{i}/dt/node");
            for (j, irq) in n.interrupts.iter().enumerate() {
                uses.entry(irq.spi()).or_default().push((format!("{np}/interrupts/{j}"), *irq, true));
            }
            let shared = !xlnx || ifc.driver == Driver::XxvMcdma;
            for (j, irq) in n.dma.interrupts.iter().enumerate() {
                uses.entry(irq.spi()).or_default().push((format!("{np}/dma/interrupts/{j}"), *irq, shared));
            }
        }
        for (spi, list) in uses {
            if list.len() < 2 {
                continue;
            }
            let first = list[0].0.clone();
            for (ptr, irq, shared) in &list[1..] {
                if !shared || !list[0].2 {
                    self.report(Rule::PlIrqNotShared, ptr.clone(), format!("GIC SPI {spi} is also used by {first}, and linux-xlnx requests AXI DMA interrupts without IRQF_SHARED (axienet_init_legacy_dma): request_irq fails with -EBUSY"));
                } else if irq.trigger() == Trigger::Edge || list[0].1.trigger() == Trigger::Edge {
                    self.report(Rule::PlIrqSharedEdge, ptr.clone(), format!("GIC SPI {spi} is shared with {first} but edge-triggered: edges from two sources on one line are lost"));
                }
            }
        }
    }

    /// linux-xlnx builds axienet for AXI DMA or for MCDMA
    /// (`CONFIG_AXIENET_HAS_MCDMA` switches every port of the kernel).
    fn axienet_dma_kinds(&mut self) {
        if self.b.board.kernel != KernelFlavour::LinuxXlnx {
            return;
        }
        let mcdma = self.b.interfaces.iter().position(|i| i.driver == Driver::XxvMcdma);
        let axidma = self.b.interfaces.iter().position(|i| matches!(i.driver, Driver::Axienet | Driver::Xxv));
        if let (Some(m), Some(a)) = (mcdma, axidma) {
            self.report(Rule::McdmaAxidmaMixed, format!("/interfaces/{}/driver", m.max(a)), format!("/interfaces/{m} uses MCDMA and /interfaces/{a} an AXI DMA: linux-xlnx's CONFIG_AXIENET_HAS_MCDMA switches every axienet port of the kernel, so one of them cannot probe"));
        }
    }

    fn platform(&mut self) {
        let bi = &self.b.board;
        let want = match bi.soc {
            Soc::Zynqmp => Some(Arch::Arm64),
            Soc::Zynq7000 => Some(Arch::Arm),
            Soc::QoriqP1010 | Soc::QoriqP1020 | Soc::QoriqP2020 => Some(Arch::Powerpc),
            Soc::Generic => None,
        };
        if let Some(a) = want.filter(|a| *a != bi.arch) {
            self.report_hint(
                Rule::SocArch,
                "/board/arch".into(),
                format!("soc {} is {a}, not {}", bi.soc, bi.arch),
                format!("set arch: {a}"),
            );
        }
        // The vendor kernels build only for their vendor's SoCs (their
        // recipes' COMPATIBLE_MACHINE); `generic` may be any SoC.
        let kernel_ok = match (bi.kernel, bi.soc) {
            (_, Soc::Generic) | (KernelFlavour::Mainline, _) => true,
            (KernelFlavour::LinuxXlnx, s) => matches!(s, Soc::Zynqmp | Soc::Zynq7000),
            (KernelFlavour::LinuxQoriq | KernelFlavour::QoriqSdk, s) => s.is_qoriq(),
        };
        if !kernel_ok {
            let fit = if bi.soc.is_qoriq() { "linux-qoriq (or mainline)" } else { "linux-xlnx (or mainline)" };
            self.report_hint(
                Rule::KernelSoc,
                "/board/kernel".into(),
                format!("kernel {} does not build for soc {}", bi.kernel, bi.soc),
                format!("set kernel: {fit}"),
            );
        }
        let max = match bi.soc {
            Soc::Zynqmp => Some(4),
            Soc::Zynq7000 | Soc::QoriqP1020 | Soc::QoriqP2020 => Some(2),
            Soc::QoriqP1010 => Some(1),
            Soc::Generic => None,
        };
        if let Some(m) = max.filter(|m| bi.cpus > *m) {
            self.report_hint(
                Rule::SocCpus,
                "/board/cpus".into(),
                format!("soc {} has at most {m} CPUs", bi.soc),
                format!("set cpus: {m} (or fewer)"),
            );
        }
        for (j, i) in self.b.interfaces.iter().enumerate() {
            if drivers::facts(i.driver).not_on.contains(&bi.soc) {
                self.report(
                    Rule::DriverNotOnSoc,
                    format!("/interfaces/{j}/driver"),
                    format!("{} does not exist on soc {}", i.driver, bi.soc),
                );
            }
        }
    }

    fn system(&mut self) {
        let s = &self.b.system;
        for (k, v) in &s.sysctl {
            let ptr = format!("/system/sysctl/{}", crate::yaml::escape_segment(k));
            if !crate::text::sysctl_key_ok(k) {
                self.report(Rule::SysctlKey, ptr.clone(), format!("`{k}` is not a sysctl key"));
            }
            if let SysctlValue::Text(t) = v {
                if t.is_empty()
                    || !t.bytes().all(|b| b.is_ascii_graphic() && !b"'\"`$\\;&|<>(){}".contains(&b) || b == b' ')
                {
                    self.report(
                        Rule::SysctlValue,
                        ptr.clone(),
                        format!("sysctl value `{t}` has characters that are not allowed"),
                    );
                }
            }
            for (key, set) in [
                ("net.ipv4.ip_forward", s.ip_forward.is_some()),
                ("net.core.rps_sock_flow_entries", s.rfs_sock_flow_entries.is_some()),
                ("net.netfilter.nf_conntrack_max", s.conntrack_max.is_some()),
            ] {
                if k == key && set {
                    self.report(
                        Rule::SysctlDedicatedKey,
                        ptr.clone(),
                        format!("`{k}` is also set by a dedicated key of `system`"),
                    );
                }
            }
        }
    }

    fn fastpath(&mut self) {
        let b = self.b;
        if let Some(asf) = &b.fastpath.asf {
            if b.board.kernel != KernelFlavour::QoriqSdk {
                self.report(
                    Rule::AsfNeedsSdk,
                    "/fastpath/asf".into(),
                    format!(
                        "Freescale ASF needs the QorIQ SDK kernel (CONFIG_AS_FASTPATH); board.kernel is {}",
                        b.board.kernel
                    ),
                );
            }
            for (j, m) in asf.modules.iter().enumerate() {
                if m.is_empty() || !m.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-') {
                    self.report(
                        Rule::AsfModuleName,
                        format!("/fastpath/asf/modules/{j}"),
                        format!("`{m}` is not a module name"),
                    );
                }
            }
        }
        if let Some(ft) = &b.fastpath.flowtable {
            if b.board.kernel == KernelFlavour::QoriqSdk {
                self.report(
                    Rule::FlowtableSdk,
                    "/fastpath/flowtable".into(),
                    "the QorIQ SDK kernel predates nftables flowtables".into(),
                );
            }
            for (j, n) in ft.interfaces.iter().enumerate() {
                if !b.interfaces.iter().any(|i| &i.name == n) {
                    self.report_hint(
                        Rule::UnknownInterface,
                        format!("/fastpath/flowtable/interfaces/{j}"),
                        format!("no interface `{n}` in `interfaces`"),
                        "list interfaces described in this board",
                    );
                }
            }
            if b.system.ip_forward != Some(true) {
                // at `ip_forward: false` when written, else at the flowtable
                let ptr = if b.system.ip_forward.is_some() { "/system/ip_forward" } else { "/fastpath/flowtable" };
                self.report(
                    Rule::FlowtableForwarding,
                    ptr.into(),
                    "a flowtable only speeds up forwarded traffic, but system.ip_forward is not true".into(),
                );
            }
        }
    }
}

/// Checks a CPU list (rule cpu-list-syntax) and, with the machine's CPU
/// count `nr`, its range (rule cpu-range); the set when both hold.
/// `ptr` is called only for a diagnostic (a large board has thousands of
/// CPU lists, nearly all valid: formatting each one's pointer up front was
/// a twentieth of `check`).
fn cpu_set(
    out: &mut Vec<Diagnostic>,
    ptr: impl FnOnce() -> String,
    list: &CpuList,
    nr: Option<u32>,
) -> Option<BTreeSet<u32>> {
    let set = match list.cpus() {
        Ok(set) => set,
        Err(CpuListError::OutOfRange(_, cpu)) => {
            let whole = match nr {
                Some(n) => format!("the board's {n} CPUs (0-{})", n.saturating_sub(1)),
                None => format!("any board (CPU numbers are below {})", crate::cpus::CPU_NUMBER_LIMIT),
            };
            out.push(Diagnostic::new(Rule::CpuRange, ptr(), format!("CPU {cpu} outside {whole}")));
            return None;
        }
        Err(e) => {
            out.push(Diagnostic::new(Rule::CpuListSyntax, ptr(), e.to_string()));
            return None;
        }
    };
    let Some(n) = nr else { return Some(set) };
    let bad: BTreeSet<u32> = set.iter().copied().filter(|c| *c >= n).collect();
    if bad.is_empty() {
        return Some(set);
    }
    let d = Diagnostic::new(
        Rule::CpuRange,
        ptr(),
        format!("CPU {} outside the board's {n} CPUs (0-{})", crate::cpus::format_cpu_list(&bad), n - 1),
    );
    out.push(match mask_hint(list) {
        Some(h) => d.hint(h),
        None => d,
    });
    None
}

/// A hint for a CPU list written as a kernel CPU mask (`"00000020"`, as
/// `rps_cpus` takes it): a number of several digits with a leading zero.
fn mask_hint(list: &CpuList) -> Option<String> {
    let CpuList::List(s) = list else { return None };
    if s.len() < 2 || !s.starts_with('0') || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mask = u64::from_str_radix(s, 16).ok().filter(|m| *m != 0)?;
    let cpus: BTreeSet<u32> = (0..64).filter(|c| mask >> c & 1 == 1).collect();
    Some(format!(
        "`{s}` looks like a hexadecimal CPU mask (as rps_cpus takes it); `cpus` is a CPU list: for the mask 0x{s} write \"{}\"",
        crate::cpus::format_cpu_list(&cpus)
    ))
}

/// The rules of a `bench` section, reported under `prefix` (`/bench` on a
/// board, the empty string in a standalone bench file). On a board
/// (`board` given) the DUT's interface must be one of the board's and CPU
/// lists within its CPU count; a bench file has neither to check against.
/// The labels a board generates itself: full PL nodes and their DMA
/// nodes, MDIO buses and devices, SFP cages it writes (with `i2c_bus`),
/// fixed clocks.
pub fn generated_labels(b: &HiBoard) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for dt in b.interfaces.iter().filter_map(|i| i.dt.as_ref()) {
        if let Some(n) = &dt.node {
            out.insert(dt.label.clone());
            out.insert(n.dma.label.clone());
        }
        if let Some(m) = &dt.mdio {
            out.extend(m.label.clone());
            out.extend(m.devices.iter().map(|d| d.label.clone()));
        }
        if let Some(s) = dt.sfp.as_ref().filter(|s| s.i2c_bus.is_some()) {
            out.insert(s.label.clone());
        }
        out.extend(dt.fixed_clocks.iter().map(|c| c.label.clone()));
    }
    out
}

/// Every label the board refers to: `(JSON pointer, label)`. The GIC
/// label a PL node's `interrupt-parent` names is the generator's
/// (`gic`/`intc`), not the board's, and is left to dtc.
pub fn label_refs(b: &HiBoard) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let gpio = |out: &mut Vec<(String, String)>, ptr: String, g: &Option<Gpio>| {
        if let Some(g) = g {
            out.push((format!("{ptr}/controller"), g.controller.clone()));
        }
    };
    for (i, ifc) in b.interfaces.iter().enumerate() {
        let Some(dt) = &ifc.dt else { continue };
        let dp = format!("/interfaces/{i}/dt");
        if dt.node.is_none() {
            out.push((format!("{dp}/label"), dt.label.clone()));
        }
        for (key, l) in [("phy_handle", &dt.phy_handle), ("pcs_handle", &dt.pcs_handle), ("tbi_handle", &dt.tbi_handle)]
        {
            if let Some(l) = l {
                out.push((format!("{dp}/{key}"), l.clone()));
            }
        }
        if let Some(s) = &dt.sfp {
            match &s.i2c_bus {
                Some(bus) if bus.starts_with('/') => {}
                Some(bus) => out.push((format!("{dp}/sfp/i2c_bus"), bus.clone())),
                None => out.push((format!("{dp}/sfp/label"), s.label.clone())),
            }
            gpio(&mut out, format!("{dp}/sfp/mod_def0_gpio"), &s.mod_def0_gpio);
            gpio(&mut out, format!("{dp}/sfp/los_gpio"), &s.los_gpio);
            gpio(&mut out, format!("{dp}/sfp/tx_fault_gpio"), &s.tx_fault_gpio);
            gpio(&mut out, format!("{dp}/sfp/tx_disable_gpio"), &s.tx_disable_gpio);
        }
        if let Some(m) = &dt.mdio {
            for (j, d) in m.devices.iter().enumerate() {
                gpio(&mut out, format!("{dp}/mdio/devices/{j}/reset_gpio"), &d.reset_gpio);
                if let Some(c) = &d.gmii_to_rgmii {
                    out.push((format!("{dp}/mdio/devices/{j}/gmii_to_rgmii/phy_handle"), c.phy_handle.clone()));
                }
            }
        }
        if let Some(n) = &dt.node {
            let np = format!("{dp}/node");
            if let Some(c) = &n.clock {
                out.push((format!("{np}/clock/label"), c.label.clone()));
            }
            for (k, c) in &n.clocks {
                out.push((format!("{np}/clocks/{}/label", crate::yaml::escape_segment(k)), c.label.clone()));
            }
            for (k, c) in &n.dma.clocks {
                out.push((format!("{np}/dma/clocks/{}/label", crate::yaml::escape_segment(k)), c.label.clone()));
            }
        }
    }
    out
}

/// Labels checked before dtc (rule dt-label-missing): every label the
/// board refers to ([`label_refs`]) must be one it generates
/// ([`generated_labels`]) or one of `known` (the labels of the board DTS
/// and its includes, from `/__symbols__` of the tree compiled with
/// `dtc -@`). `source` names where `known` came from, for the message.
pub fn labels(b: &HiBoard, known: &BTreeSet<String>, source: &str) -> Vec<Diagnostic> {
    let ours = generated_labels(b);
    let all: Vec<String> = ours.iter().chain(known.iter()).cloned().collect();
    let mut out = Vec::new();
    for (ptr, label) in label_refs(b) {
        if ours.contains(&label) || known.contains(&label) {
            continue;
        }
        let hint = match crate::text::closest(&label, &all) {
            Some(c) => format!("did you mean `{c}`?"),
            None => "name a label of the board DTS (or one the board generates), or pass the design's pl.dtsi with --include".to_string(),
        };
        out.push(
            Diagnostic::new(
                Rule::DtLabelMissing,
                ptr,
                format!("label `{label}` is defined neither by this board nor in {source}: dtc would fail (\"Reference to non-existent node or label\")"),
            )
            .hint(hint),
        );
    }
    out
}

/// Every node path the board refers to (an SFP cage's `i2c_bus` given as
/// a path): `(JSON pointer, path)`.
pub fn path_refs(b: &HiBoard) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (i, ifc) in b.interfaces.iter().enumerate() {
        let Some(s) = ifc.dt.as_ref().and_then(|d| d.sfp.as_ref()) else { continue };
        if let Some(bus) = s.i2c_bus.as_ref().filter(|b| b.starts_with('/')) {
            out.push((format!("/interfaces/{i}/dt/sfp/i2c_bus"), bus.clone()));
        }
    }
    out
}

/// Paths checked before dtc (rule dt-label-missing): every path the board
/// refers to ([`path_refs`]) must be a node of the board DTS (`known`:
/// every node path of the tree compiled as the kernel does). dtc fails on
/// a path reference to no node, and an overlay's `target-path` to no node
/// fails fdtoverlay.
pub fn dt_paths(b: &HiBoard, known: &BTreeSet<String>, source: &str) -> Vec<Diagnostic> {
    let all: Vec<String> = known.iter().cloned().collect();
    let mut out = Vec::new();
    for (ptr, path) in path_refs(b) {
        if known.contains(path.trim_end_matches('/')) {
            continue;
        }
        // The deepest ancestor that exists, and the children it has: the
        // near miss is usually one component.
        let hint = match crate::text::closest(&path, &all) {
            Some(c) => format!("did you mean `{c}`?"),
            None => {
                let mut parent = path.trim_end_matches('/').to_string();
                while !parent.is_empty() && !known.contains(&parent) {
                    parent.truncate(parent.rfind('/').unwrap_or(0));
                }
                let parent = if parent.is_empty() { "/".to_string() } else { parent };
                let prefix = if parent == "/" { "/".to_string() } else { format!("{parent}/") };
                let kids: Vec<&str> = all
                    .iter()
                    .filter_map(|p| p.strip_prefix(&prefix))
                    .filter(|rest| !rest.is_empty() && !rest.contains('/'))
                    .collect();
                format!("{parent} exists; its children: {}", kids.join(", "))
            }
        };
        out.push(
            Diagnostic::new(
                Rule::DtLabelMissing,
                ptr,
                format!("path `{path}` is no node of {source}: dtc would fail (\"Reference to non-existent node or label\")"),
            )
            .hint(hint),
        );
    }
    out
}

/// Diagnostics found after loading (the label and SoC checks against the
/// board DTS), located in the board file and sorted, ready to render.
pub fn located(loaded: &crate::LoadedBoard, items: Vec<Diagnostic>) -> crate::Diagnostics {
    let mut items: Vec<Diagnostic> = match crate::yaml::load(&loaded.source) {
        Ok((_, map)) => items.into_iter().map(|d| map.locate(d)).collect(),
        Err(_) => items,
    };
    items.sort_by_key(|a| (a.pos, a.severity()));
    crate::Diagnostics { file: loaded.file.clone(), source: loaded.source.clone(), items, note: None }
}

/// The SoC a board DTS's root `compatible` names (rule soc-dts), if any.
pub fn soc_of_compatible(compatible: &[String]) -> Option<Soc> {
    let has = |p: &str| compatible.iter().any(|c| c.to_ascii_lowercase().contains(p));
    if has("xlnx,zynqmp") {
        Some(Soc::Zynqmp)
    } else if has("xlnx,zynq-7000") {
        Some(Soc::Zynq7000)
    } else if has("p1020") {
        Some(Soc::QoriqP1020)
    } else if has("p1010") {
        Some(Soc::QoriqP1010)
    } else if has("p2020") {
        Some(Soc::QoriqP2020)
    } else {
        None
    }
}

/// Unlocated diagnostics, as [`validate`] returns them.
pub fn bench(bench: &Bench, prefix: &str, board: Option<&Board>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let nr = board.map(|b| b.board.cpus);
    if let (Some(b), Some(dut)) = (board, &bench.dut) {
        if !b.interfaces.iter().any(|i| i.name == dut.iface) {
            out.push(
                Diagnostic::new(
                    Rule::UnknownInterface,
                    format!("{prefix}/dut/iface"),
                    format!("no interface `{}` in `interfaces`", dut.iface),
                )
                .hint("name the interface under test"),
            );
        }
    }
    let hosts = bench.dut.iter().map(|d| ("dut".to_string(), &d.address));
    let peers = bench.peers.iter().enumerate().map(|(j, p)| (format!("peers/{j}"), &p.address));
    for (at, a) in hosts.chain(peers) {
        if !host_address_ok(a) {
            out.push(Diagnostic::new(
                Rule::BenchAddress,
                format!("{prefix}/{at}/address"),
                format!("`{a}` is not an IP address or host name"),
            ));
        }
    }
    let irq = bench
        .dut
        .as_ref()
        .and_then(|d| d.irq_cpus.as_ref())
        .and_then(|c| cpu_set(&mut out, || format!("{prefix}/dut/irq_cpus"), c, nr));
    if let Some(m) = &bench.matrix {
        let pin = m.pin_cpus.as_ref().and_then(|c| cpu_set(&mut out, || format!("{prefix}/matrix/pin_cpus"), c, nr));
        if let Some(c) = &m.peer_pin_cpus {
            // the peer is another machine: syntax only
            cpu_set(&mut out, || format!("{prefix}/matrix/peer_pin_cpus"), c, None);
        }
        if let (Some(irq), Some(pin)) = (irq, pin) {
            if !irq.is_disjoint(&pin) {
                out.push(Diagnostic::new(
                    Rule::BenchPinIrqCpu,
                    format!("{prefix}/matrix/pin_cpus"),
                    "iperf3 would share a CPU with the NIC's IRQ",
                ));
            }
        }
        if let Some(r) = m.udp_rate.as_deref() {
            // iperf3 -b takes whole bit/s and reads 0 as unlimited: a rate
            // that truncates to 0 would flood instead of trickle.
            let problem = match BitRate::parse(r).map(BitRate::bits_per_second) {
                None => Some(format!("`{r}` is not a bit rate (expected e.g. 2500M, 1G, 1000000)")),
                Some(b) if b > 0.0 && b < 1.0 => Some(format!(
                    "`{r}` is below 1 bit/s, which iperf3 -b reads as 0, unlimited (write 0 for unlimited, \
                     or a rate with its suffix, e.g. 400M)"
                )),
                Some(b) if b > crate::bench::MAX_RATE_BPS => {
                    Some(format!("`{r}` is above 1.6 Tbit/s, the fastest Ethernet (IEEE 802.3dj)"))
                }
                Some(_) => None,
            };
            if let Some(message) = problem {
                out.push(Diagnostic::new(Rule::BenchUdpRate, format!("{prefix}/matrix/udp_rate"), message));
            }
        }
        repeated(&mut out, &format!("{prefix}/matrix/protocols"), &m.protocols);
        repeated(&mut out, &format!("{prefix}/matrix/directions"), &m.directions);
        repeated(&mut out, &format!("{prefix}/matrix/mtus"), &m.mtus);
        repeated(&mut out, &format!("{prefix}/matrix/streams"), &m.streams);
        for (j, mtu) in m.mtus.iter().enumerate() {
            if !(68..=65535).contains(mtu) {
                out.push(Diagnostic::new(
                    Rule::BenchMtu,
                    format!("{prefix}/matrix/mtus/{j}"),
                    format!("MTU {mtu} out of range"),
                ));
            }
        }
        for (j, n) in m.streams.iter().enumerate() {
            if !(1..=MAX_STREAMS).contains(n) {
                out.push(Diagnostic::new(
                    Rule::BenchStreams,
                    format!("{prefix}/matrix/streams/{j}"),
                    format!("{n} parallel streams: iperf3 -P takes 1..{MAX_STREAMS}"),
                ));
            }
        }
        percent(&mut out, format!("{prefix}/matrix/cpu_bound_pct"), m.cpu_bound_pct, Bound::Open(0.0), 100.0, true);
    }
    if let Some(r) = &bench.rfc2544 {
        repeated(&mut out, &format!("{prefix}/rfc2544/frame_sizes"), &r.frame_sizes);
        for (j, f) in r.frame_sizes.iter().enumerate() {
            if !(64..=9018).contains(f) {
                out.push(Diagnostic::new(
                    Rule::BenchFrameSize,
                    format!("{prefix}/rfc2544/frame_sizes/{j}"),
                    format!("frame size {f} outside 64..9018"),
                ));
            }
        }
        let p = format!("{prefix}/rfc2544/loss_tolerance_pct");
        percent(&mut out, p, r.loss_tolerance_pct, Bound::Closed(0.0), 100.0, false);
        percent(&mut out, format!("{prefix}/rfc2544/resolution_pct"), r.resolution_pct, Bound::Open(0.0), 50.0, false);
    }
    if let Some(t) = &bench.tester {
        tester(&mut out, &format!("{prefix}/tester"), t);
    }
    out
}

/// The tester section's ranges (rules bench-tester-range, bench-percent,
/// bench-repeated; the integer ranges are the schema's). The command
/// checks its options again after the flags are applied
/// (zynq-net-bench rfc2544_suite), naming the flags.
fn tester(out: &mut Vec<Diagnostic>, p: &str, t: &crate::bench::Tester) {
    use crate::bench::{TesterTest, TESTER_FRAME_RANGE};
    repeated(out, &format!("{p}/tests"), &t.tests);
    repeated(out, &format!("{p}/frame_sizes"), &t.frame_sizes);
    repeated(out, &format!("{p}/pdr_pct"), &t.pdr_pct);
    let (lo, hi) = TESTER_FRAME_RANGE;
    for (j, f) in t.frame_sizes.iter().enumerate() {
        if !(lo..=hi).contains(f) {
            out.push(
                Diagnostic::new(
                    Rule::BenchTesterRange,
                    format!("{p}/frame_sizes/{j}"),
                    format!("frame size {f} outside {lo}..{hi} bytes"),
                )
                .hint(format!("the tester builds frames of {lo} to {hi} bytes, FCS included")),
            );
        }
    }
    for (key, v, lo, hi) in [
        ("trial_s", t.trial_s, Bound::Open(0.0), 86400.0),
        ("final_s", t.final_s, Bound::Open(0.0), 86400.0),
        ("loss_trial_s", t.loss_trial_s, Bound::Open(0.0), 86400.0),
        ("latency_s", t.latency_s, Bound::Open(0.0), 86400.0),
        ("settle_s", t.settle_s, Bound::Closed(0.0), 3600.0),
        ("learning_s", t.learning_s, Bound::Closed(0.0), 3600.0),
        ("drain_s", t.drain_s, Bound::Closed(0.0), 3600.0),
    ] {
        within(out, Rule::BenchTesterRange, format!("{p}/{key}"), v, lo, hi, true, "seconds");
    }
    within(
        out,
        Rule::BenchTesterRange,
        format!("{p}/latency_probe_fps"),
        t.latency_probe_fps,
        Bound::Closed(1.0),
        f64::INFINITY,
        true,
        "probes/s",
    );
    if let Some(f) = t.latency_fps {
        within(
            out,
            Rule::BenchTesterRange,
            format!("{p}/latency_fps"),
            f,
            Bound::Closed(10.0),
            f64::INFINITY,
            true,
            "frames/s",
        );
    }
    percent(out, format!("{p}/resolution_pct"), t.resolution_pct, Bound::Open(0.0), 50.0, true);
    percent(out, format!("{p}/b2b_resolution_pct"), t.b2b_resolution_pct, Bound::Open(0.0), 50.0, true);
    percent(out, format!("{p}/loss_step_pct"), t.loss_step_pct, Bound::Open(0.0), 10.0, true);
    for (j, v) in t.pdr_pct.iter().enumerate() {
        percent(out, format!("{p}/pdr_pct/{j}"), *v, Bound::Open(0.0), 100.0, false);
    }
    // The probes of a trial go out over its middle half, one trafgen frame each.
    let probes = (t.latency_probe_fps * t.latency_s / 2.0).round();
    if probes > crate::bench::TESTER_MAX_PROBES as f64 {
        out.push(
            Diagnostic::new(
                Rule::BenchTesterRange,
                format!("{p}/latency_probe_fps"),
                format!(
                    "{} probes/s over half of a {} s trial is {probes} probes, above the tester's {}",
                    t.latency_probe_fps,
                    t.latency_s,
                    crate::bench::TESTER_MAX_PROBES
                ),
            )
            .hint("lower latency_probe_fps or latency_s"),
        );
    }
    let at = |x: TesterTest| t.tests.iter().position(|y| *y == x);
    if t.latency_fps.is_none() {
        if let Some(l) = at(TesterTest::Latency) {
            if !matches!(at(TesterTest::Throughput), Some(th) if th < l) {
                out.push(
                    Diagnostic::new(
                        Rule::BenchTesterRange,
                        format!("{p}/tests/{l}"),
                        "latency runs at each frame size's throughput (NDR), which no earlier test measures"
                            .to_string(),
                    )
                    .hint("list throughput before latency, or give latency_fps"),
                );
            }
        }
    }
}

/// iperf3's largest `-P` (src/iperf.h: MAX_STREAMS).
pub const MAX_STREAMS: u32 = 128;

/// The lower end of a percentage's range.
#[derive(Clone, Copy)]
enum Bound {
    /// The value may equal it.
    Closed(f64),
    /// The value must exceed it.
    Open(f64),
}

/// Rule bench-percent: `v` within its range (`hi` included when `hi_closed`).
fn percent(out: &mut Vec<Diagnostic>, ptr: String, v: f64, lo: Bound, hi: f64, hi_closed: bool) {
    within(out, Rule::BenchPercent, ptr, v, lo, hi, hi_closed, "percent");
}

/// Rule `rule`: `v` within its range (`hi` included when `hi_closed`), in
/// `unit`; the diagnostic's site is the caller's (the line naming the rule).
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn within(out: &mut Vec<Diagnostic>, rule: Rule, ptr: String, v: f64, lo: Bound, hi: f64, hi_closed: bool, unit: &str) {
    let (l, lo_ok, open) = match lo {
        Bound::Closed(l) => (l, v >= l, "["),
        Bound::Open(l) => (l, v > l, "("),
    };
    let hi_ok = if hi_closed { v <= hi } else { v < hi };
    if lo_ok && hi_ok {
        return;
    }
    // Without an upper bound (`hi` infinite) the range is said in words.
    let range = match (hi.is_infinite(), lo) {
        (true, Bound::Closed(_)) => format!("at least {l}"),
        (true, Bound::Open(_)) => format!("above {l}"),
        (false, _) => format!("{open}{l}, {hi}{}", if hi_closed { "]" } else { ")" }),
    };
    let hint = if unit == "percent" {
        format!("write a percentage in {range}")
    } else {
        format!("write a value {}{range} {unit}", if hi.is_infinite() { "" } else { "in " })
    };
    let msg = if hi.is_infinite() {
        format!("{v} is below the least allowed, {l} {unit}")
    } else {
        format!("{v} is outside {range} {unit}")
    };
    out.push(Diagnostic::new(rule, ptr, msg).hint(hint));
}

#[cfg(test)]
mod tests {
    use super::valid_iface_name;

    /// Each allowed kind of character alone beside letters and digits, the
    /// 15-byte limit (IFNAMSIZ 16 with the NUL, dev_valid_name), and names
    /// the kernel refuses or the generated shell must never see.
    #[test]
    fn iface_names_allowed_and_refused() {
        for ok in ["eth0", "eth_0", "br-lan", "eth0.10", "a", "abcdefghijklmno"] {
            assert!(valid_iface_name(ok), "{ok:?} refused");
        }
        for bad in ["", ".", "..", "abcdefghijklmnop", "eth 0", "eth0;", "a/b", "eth0:1", "$(x)", "é"] {
            assert!(!valid_iface_name(bad), "{bad:?} accepted");
        }
    }

    /// A malformed sysctl name is one sysctl-key error at the key (line
    /// 20 col 5 of the edited zcu102 board), not also a sysctl-unknown
    /// warning for the same name; a well-formed unknown name is the warning
    /// alone, at its key too.
    #[test]
    fn sysctl_name_diagnostics_point_at_the_key_once() {
        let (_, text) = crate::testutil::repo_board("zcu102");
        let line = text.lines().position(|l| l.trim_start().starts_with("net.core.rmem_max:")).expect("rmem_max") + 1;
        let col = text.lines().nth(line - 1).map(|l| l.len() - l.trim_start().len() + 1).expect("line");
        let at = |d: &crate::Diagnostic| (d.rule, d.pos.line, d.pos.col);
        let spaced = text.replacen("net.core.rmem_max:", "net.core.rmem max:", 1);
        let e = crate::load_board_str(std::path::Path::new("b.yml"), &spaced).unwrap_err();
        let all: Vec<_> = e.items.iter().map(at).collect();
        assert_eq!(all, [(crate::Rule::SysctlKey, line, col)], "{e}");
        let unknown = text.replacen("net.core.rmem_max:", "net.core.rmem_maxx:", 1);
        let ok = crate::load_board_str(std::path::Path::new("b.yml"), &unknown).expect("a warning only");
        let warned: Vec<_> = ok.warnings.iter().map(at).filter(|w| w.0 == crate::Rule::SysctlUnknown).collect();
        assert_eq!(warned, [(crate::Rule::SysctlUnknown, line, col)]);
    }

    /// A generic delay beside the DP83867's own: the hint says whether the
    /// `dp83867` value already is the same (drop the generic one) or is
    /// what the PHY gets instead (tests/kernel/fixtures/kv260-dp83867.yml,
    /// whose `dp83867.tx_internal_delay_ps` is 2750).
    #[test]
    fn dp83867_generic_delay_hint_compares_the_two_values() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/kernel/fixtures/kv260-dp83867.yml");
        let text = std::fs::read_to_string(&path).expect("fixture");
        let hint = |ps: u32| {
            let edited = text.replacen(
                "            dp83867:\n",
                &format!("            tx_internal_delay_ps: {ps}\n            dp83867:\n"),
                1,
            );
            assert_ne!(edited, text);
            let e = crate::load_board_str(&path, &edited).unwrap_err();
            let d: Vec<_> = e.items.iter().filter(|d| d.rule == crate::Rule::Dp83867GenericDelay).collect();
            assert_eq!(d.len(), 1, "{e}");
            d[0].hint.clone().unwrap_or_default()
        };
        assert!(hint(2750).contains("`dp83867.tx_internal_delay_ps: 2750` already sets it"), "{}", hint(2750));
        assert!(hint(2000).contains("`dp83867.tx_internal_delay_ps: 2750` is what the PHY gets"), "{}", hint(2000));
    }

    /// Bench host addresses: IP addresses and host names pass; a dotted
    /// quad out of range, shell text, empty labels and bad hyphens do not.
    #[test]
    fn bench_addresses() {
        for ok in ["192.0.2.16", "2001:db8::1", "fe80::1%eth0", "peer", "peer.lab", "peer.lab.", "a-1.example.org"] {
            assert!(super::host_address_ok(ok), "{ok:?} refused");
        }
        for bad in [
            "",
            "192.0.2.300",
            "192.0.2.1%eth0",
            "fe80::1%",
            "fe80::1%a;b",
            "192.0.2",
            "1.2.3.4.5",
            "x;id",
            "-peer",
            "peer-",
            "a..b",
            "a b",
            "$(id)",
            "é.lab",
        ] {
            assert!(!super::host_address_ok(bad), "{bad:?} accepted");
        }
        assert!(!super::host_address_ok(&format!("{}.lab", "a".repeat(64))));
        assert!(super::host_address_ok(&format!("{}.lab", "a".repeat(63))));
        // a host name of 253 characters (RFC 1035 2.3.4, without the final
        // dot) passes, 254 do not
        let name = |last: usize| format!("{a}.{a}.{a}.{}", "b".repeat(last), a = "a".repeat(63));
        assert_eq!(name(61).len(), 253);
        assert!(super::host_address_ok(&name(61)));
        assert!(super::host_address_ok(&format!("{}.", name(61))));
        assert!(!super::host_address_ok(&name(62)));
    }

    /// The rules and their messages for `text` as a board file: (rule id,
    /// message) of every error, or of every warning when it loads.
    fn findings(text: &str) -> Vec<(crate::Rule, String)> {
        let all = |d: &[crate::Diagnostic]| d.iter().map(|d| (d.rule, d.message.clone())).collect();
        match crate::load_board_str(std::path::Path::new("b.yml"), text) {
            Ok(b) => all(&b.warnings),
            Err(e) => all(&e.items),
        }
    }

    /// The rule ids of [`findings`], in order.
    fn ids(f: &[(crate::Rule, String)]) -> Vec<crate::Rule> {
        f.iter().map(|x| x.0).collect()
    }

    /// The zcu102 board with `from` replaced by `to` once.
    fn zcu102_with(from: &str, to: &str) -> String {
        let (_, text) = crate::testutil::repo_board("zcu102");
        assert!(text.contains(from), "{from:?}");
        text.replacen(from, to, 1)
    }

    /// MTU and ring sizes at their limits are accepted, one past is refused
    /// (macb: MTU from 68, rings rx 64..8192 and tx 64..4096, macb_main.c).
    #[test]
    fn mtu_and_rings_at_their_limits() {
        use crate::Rule;
        assert_eq!(findings(&zcu102_with("mtu: 1500", "mtu: 68")), []);
        assert_eq!(findings(&zcu102_with("mtu: 1500", "mtu: 67"))[0].0, Rule::MtuMin);
        assert_eq!(
            findings(&zcu102_with(
                "rings: { rx: 1024, tx: 1024 }\n    offloads",
                "rings: { rx: 64, tx: 4096 }\n    offloads"
            )),
            []
        );
        let e = findings(&zcu102_with(
            "rings: { rx: 1024, tx: 1024 }\n    offloads",
            "rings: { rx: 32, tx: 8192 }\n    offloads",
        ));
        let got: Vec<_> = e.iter().map(|(r, m)| (*r, m.split(" for ").next().unwrap_or(""))).collect();
        assert_eq!(
            got,
            [(Rule::RingLimit, "rx ring 32 outside 64..8192"), (Rule::RingLimit, "tx ring 8192 outside 64..4096")]
        );
    }

    /// An SFP cage's power limit of exactly 1000 mW (sff,sfp.yaml's minimum)
    /// is accepted, 999 refused (rule sfp-max-power); the fixture is
    /// tests/kernel/fixtures/zcu102-sfp-mux.yml.
    #[test]
    fn sfp_power_at_its_minimum() {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/kernel/fixtures/zcu102-sfp-mux.yml");
        let text = std::fs::read_to_string(&root).expect("the sfp fixture");
        let with = |mw: &str| {
            assert!(text.contains("maximum_power_milliwatt: 2000"));
            findings(&text.replacen("maximum_power_milliwatt: 2000", &format!("maximum_power_milliwatt: {mw}"), 1))
        };
        assert!(!ids(&with("1000")).contains(&crate::Rule::SfpMaxPower), "{:?}", with("1000"));
        assert_eq!(ids(&with("999")), [crate::Rule::SfpMaxPower]);
    }

    /// The tester's latency probes: exactly TESTER_MAX_PROBES over half a
    /// trial is accepted (100 probes/s for 400 s: 20,000), one more refused.
    #[test]
    fn latency_probes_at_the_tester_limit() {
        let probes = |fps: &str, s: &str| {
            let text = format!("tester: {{ latency_probe_fps: {fps}, latency_s: {s} }}\n");
            match crate::load_bench_str(std::path::Path::new("bench.yml"), &text) {
                Ok(_) => Vec::new(),
                Err(e) => e.items.iter().map(|d| (d.rule, d.pointer.clone())).collect(),
            }
        };
        assert_eq!(crate::bench::TESTER_MAX_PROBES, 20_000);
        assert_eq!(probes("100", "400"), []);
        assert_eq!(probes("100", "400.02"), [(crate::Rule::BenchTesterRange, "/tester/latency_probe_fps".to_string())]);
    }

    /// gianfar refuses a ring that is not a power of two; the hint names the
    /// powers of two around it (gianfar_ethtool.c gfar_sringparam).
    #[test]
    fn ring_pow2_hint_names_the_neighbours() {
        let (_, text) = crate::testutil::repo_board("p1020rdb");
        let text = text.replacen("rings: { rx: 32, tx: 32 }", "rings: { rx: 100, tx: 32 }", 1);
        let e = crate::load_board_str(std::path::Path::new("b.yml"), &text).unwrap_err();
        let got: Vec<_> = e.items.iter().map(|d| (d.rule, d.hint.clone())).collect();
        assert_eq!(got, [(crate::Rule::RingPow2, Some("use 64 or 128".to_string()))], "{e}");
    }

    /// Too many TX queues: the eTSEC queue-group note is gianfar's alone.
    #[test]
    fn tx_queue_limit_message() {
        let e = findings(&zcu102_with(
            "queues: { rx: 2, tx: 2 }\n    mtu: 1500",
            "queues: { rx: 2, tx: 9 }\n    mtu: 1500",
        ));
        assert_eq!(e, [(crate::Rule::TxQueuesMax, "macb on zynqmp has at most 8 TX queues".to_string())]);
    }

    /// A queue index out of range names the direction of its list: RX for
    /// rps, TX for xps.
    #[test]
    fn queue_index_names_its_direction() {
        let rps = findings(&zcu102_with("- { queue: 1, cpus: \"2-3\" }", "- { queue: 5, cpus: \"2-3\" }"));
        assert_eq!(rps, [(crate::Rule::QueueIndex, "queue 5 does not exist: `eth1` has 2 RX queues".to_string())]);
        let xps = findings(&zcu102_with("- { queue: 1, cpus: 3 }", "- { queue: 5, cpus: 3 }"));
        assert_eq!(xps, [(crate::Rule::QueueIndex, "queue 5 does not exist: `eth1` has 2 TX queues".to_string())]);
    }

    /// `channels` (ethtool -L) against `queues`: combined channels count in
    /// both directions, rx/tx ones in theirs, and a direction that names no
    /// channel is not compared (mlx5-lab: 10 RX / 10 TX queues).
    #[test]
    fn channels_against_queues() {
        let (_, text) = crate::testutil::repo_board("mlx5-lab");
        let with = |ch: &str| findings(&text.replacen("channels: { combined: 10 }", &format!("channels: {ch}"), 1));
        for ok in
            ["{ combined: 10 }", "{ rx: 10, tx: 10 }", "{ combined: 4, rx: 6, tx: 6 }", "{ rx: 10 }", "{ tx: 10 }"]
        {
            assert_eq!(with(ok), [], "{ok}");
        }
        for bad in ["{ combined: 9 }", "{ rx: 11, tx: 10 }", "{ tx: 9 }", "{ rx: 9 }", "{ combined: 4, tx: 6 }"] {
            let e = with(bad);
            assert_eq!(ids(&e), [crate::Rule::ChannelsMismatch], "{bad}: {e:?}");
        }
    }

    /// An IRQ pattern needs three characters that are not wildcards (`eth*`
    /// passes, `et*` would match almost every IRQ).
    #[test]
    fn irq_pattern_breadth_boundary() {
        assert_eq!(findings(&zcu102_with("{ irq: eth0, cpus: 1 }", "{ irq: \"eth*\", cpus: 1 }")), []);
        let e = findings(&zcu102_with("{ irq: eth0, cpus: 1 }", "{ irq: \"et*?\", cpus: 1 }"));
        assert_eq!(ids(&e), [crate::Rule::IrqPatternBroad], "{e:?}");
    }

    /// io_uring zero-copy receive buffers: 4096 (a page) is the smallest
    /// accepted, 2048 is refused (mlx5-lab).
    #[test]
    fn zcrx_buffer_length_boundary() {
        let (_, text) = crate::testutil::repo_board("mlx5-lab");
        assert_eq!(findings(&text.replacen("rx_buf_len: 131072", "rx_buf_len: 4096", 1)), []);
        let e = findings(&text.replacen("rx_buf_len: 131072", "rx_buf_len: 2048", 1));
        assert_eq!(ids(&e), [crate::Rule::ZcrxBufLen], "{e:?}");
    }

    /// A missing phy_mode is an error for a node we generate (the XXV
    /// message for an XXV port), not for a node the design's own DTS has
    /// and we only patch by label.
    #[test]
    fn phy_mode_missing_only_for_generated_nodes() {
        let (_, text) = crate::testutil::repo_board("zcu102");
        let start = text.find("      phy_mode: 10gbase-r").expect("phy_mode");
        let end = text.find("addrwidth: 64\n").expect("addrwidth") + "addrwidth: 64\n".len();
        let patched = format!("{}{}", &text[..start], &text[end..]);
        let e = findings(&patched);
        assert!(!e.iter().any(|x| x.0 == crate::Rule::PhyModeMissing), "{e:?}");
        let generated = text.replacen("      phy_mode: 10gbase-r\n", "", 1);
        let e = findings(&generated);
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(e[0].0, crate::Rule::PhyModeMissing);
        assert!(e[0].1.starts_with("an XXV node needs `phy_mode`"), "{e:?}");
    }

    /// A text sysctl value may hold spaces (tcp_rmem's three numbers), never
    /// shell characters, control characters or nothing at all.
    #[test]
    fn sysctl_text_values() {
        let with = |v: &str| findings(&zcu102_with("  sysctl:\n", &format!("  sysctl:\n    net.ipv4.tcp_rmem: {v}\n")));
        assert_eq!(with("\"4096 87380 6291456\""), []);
        for bad in ["\"4096;reboot\"", "\"a$b\"", "\"a\\tb\"", "\"\""] {
            let e = with(bad);
            assert_eq!(ids(&e), [crate::Rule::SysctlValue], "{bad}: {e:?}");
        }
    }

    /// ASF module names: letters, digits, `_` and `-`, not empty
    /// (fixtures/good/p1020rdb-asf.yml with modules added).
    #[test]
    fn asf_module_names() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../zynq-net-cli/tests/fixtures/good/p1020rdb-asf.yml");
        let text = std::fs::read_to_string(&root).expect("p1020rdb-asf fixture");
        let from = "asf: { udp_timeout_s: 9000, conntrack_max: 140000 }";
        assert!(text.contains(from));
        let with = |m: &str| {
            findings(&text.replacen(
                from,
                &format!("asf: {{ udp_timeout_s: 9000, conntrack_max: 140000, modules: [{m}] }}"),
                1,
            ))
        };
        assert_eq!(with("asf_ipsec, asf-qos"), []);
        for bad in ["\"\"", "\"a;b\""] {
            let e = with(bad);
            assert_eq!(ids(&e), [crate::Rule::AsfModuleName], "{bad}: {e:?}");
        }
    }

    /// Each of the three driver/SoC mismatches on its own: gianfar on a
    /// Zynq, macb on a QorIQ, a PL (AXI) driver on a QorIQ.
    #[test]
    fn driver_not_on_soc_each_case() {
        let has = |text: &str| findings(text).iter().any(|x| x.0 == crate::Rule::DriverNotOnSoc);
        assert!(has(&zcu102_with("driver: macb", "driver: gianfar")));
        let (_, p1020) = crate::testutil::repo_board("p1020rdb");
        assert!(has(&p1020.replacen("driver: gianfar", "driver: macb", 1)));
        assert!(has(&p1020.replacen("driver: gianfar", "driver: axienet", 1)));
        assert!(!has(&p1020));
    }

    /// Each check with a bound, on the bound: a queue index equal to the
    /// queue count is one past the last queue (rps, xps, an skbedit
    /// filter), and CPU 4 one past a 4-CPU board; a closed percent bound
    /// takes its bound (cpu_bound_pct 100).
    #[test]
    fn values_on_their_bounds() {
        use crate::Rule;
        let rps = findings(&zcu102_with("- { queue: 1, cpus: \"2-3\" }", "- { queue: 2, cpus: \"2-3\" }"));
        assert_eq!(rps, [(Rule::QueueIndex, "queue 2 does not exist: `eth1` has 2 RX queues".to_string())]);
        let xps = findings(&zcu102_with("- { queue: 1, cpus: 3 }", "- { queue: 2, cpus: 3 }"));
        assert_eq!(xps, [(Rule::QueueIndex, "queue 2 does not exist: `eth1` has 2 TX queues".to_string())]);
        let skbedit = findings(&zcu102_with("address: 192.0.2.3, queue: 1 }", "address: 192.0.2.3, queue: 2 }"));
        assert_eq!(ids(&skbedit), [Rule::SkbeditQueue], "{skbedit:?}");
        let cpu = findings(&zcu102_with("{ irq: eth0, cpus: 1 }", "{ irq: eth0, cpus: 4 }"));
        assert_eq!(ids(&cpu), [Rule::CpuRange], "{cpu:?}");
        assert_eq!(findings(&zcu102_with("{ irq: eth0, cpus: 1 }", "{ irq: eth0, cpus: 3 }")), []);
        let pct =
            |v: &str| findings(&zcu102_with("    repeats: 3\n", &format!("    repeats: 3\n    cpu_bound_pct: {v}\n")));
        assert_eq!(pct("100"), []);
        assert_eq!(ids(&pct("100.5")), [Rule::BenchPercent]);
    }

    /// A CPU list that looks like a kernel CPU mask gets the mask's CPUs in
    /// its hint from two digits on (`05`: CPUs 0 and 2).
    #[test]
    fn mask_hint_from_two_digits() {
        let hint = super::mask_hint(&crate::cpus::CpuList::List("05".into())).expect("a hint for 05");
        assert!(hint.ends_with("write \"0,2\""), "{hint}");
        assert_eq!(super::mask_hint(&crate::cpus::CpuList::List("0".into())), None);
    }

    /// gianfar coalescing: both values 0 is coalescing off (no pair error);
    /// one of them 0 with the other set is the error (gianfar_ethtool.c).
    #[test]
    fn gianfar_coalesce_off_is_both_zero() {
        let (_, text) = crate::testutil::repo_board("p1020rdb");
        let with = |c: &str| findings(&text.replace("coalesce: { rx-frames: 12, rx-usecs: 32 }", c));
        assert_eq!(with("coalesce: { rx-frames: 0, rx-usecs: 0 }"), []);
        let e = with("coalesce: { rx-frames: 0, rx-usecs: 32 }");
        assert_eq!(ids(&e), [crate::Rule::GianfarCoalescePair, crate::Rule::GianfarCoalescePair], "{e:?}");
    }

    /// AXI windows that touch but do not overlap are accepted, the DMA's
    /// above the MAC's (the zcu102 board) or below it; one MAC interrupt
    /// is what axienet_probe reads, a second one is reported.
    #[test]
    fn axi_windows_and_mac_interrupts_on_their_bounds() {
        use crate::Rule;
        assert_eq!(findings(&zcu102_with("reg: 0xa0010000", "reg: 0x9fff0000")), []);
        let e = findings(&zcu102_with("reg: 0xa0010000", "reg: 0x9fff0001"));
        assert_eq!(ids(&e), [Rule::DmaOverlapsMac], "{e:?}");
        let irqs = |list: &str| {
            findings(&zcu102_with("rxmem: 0x8000\n", &format!("rxmem: 0x8000\n        interrupts: {list}\n")))
        };
        assert!(!ids(&irqs("[88]")).contains(&Rule::MacIrqCount), "{:?}", irqs("[88]"));
        assert!(ids(&irqs("[88, 87]")).contains(&Rule::MacIrqCount), "{:?}", irqs("[88, 87]"));
    }

    /// udp_rate on its bounds: `0` is iperf3's unlimited and passes, so do
    /// exactly 1 bit/s and exactly 1.6 Tbit/s (IEEE 802.3dj's fastest
    /// Ethernet); 0.4 bit/s (which `-b` truncates to 0, a flood) and
    /// 1.7 Tbit/s are refused.
    #[test]
    fn udp_rate_on_its_bounds() {
        let with = |v: &str| findings(&zcu102_with("udp_rate: 2500M", &format!("udp_rate: {v}")));
        for ok in ["\"0\"", "\"1\"", "1.6T", "1600G"] {
            assert_eq!(with(ok), [], "{ok}");
        }
        for bad in ["\"0.4\"", "1.7T"] {
            assert_eq!(ids(&with(bad)), [crate::Rule::BenchUdpRate], "{bad}");
        }
    }

    /// An open lower bound refuses the bound itself: a resolution of 0 %
    /// would never end the RFC 2544 search; 0.1 % is accepted.
    #[test]
    fn open_percent_bound() {
        let with = |v: &str| {
            findings(&zcu102_with("    max_trials: 12\n", &format!("    max_trials: 12\n    resolution_pct: {v}\n")))
        };
        assert_eq!(with("0.1"), []);
        let e = with("0");
        assert_eq!(ids(&e), [crate::Rule::BenchPercent], "{e:?}");
    }
}
