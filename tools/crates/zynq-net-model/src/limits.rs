//! Limits the kernel and the hardware set, checked so that no value is
//! generated that the target would refuse or silently change:
//! the RFS tables' rounding and maxima, register windows, and how many
//! on-chip MACs a SoC has.

use crate::diag::Diagnostic;
use crate::model::{Board, Driver, KernelFlavour, Soc};
use crate::rules::Rule;

/// The net sysctl names of Linux 6.12, one per line: derived from the
/// `.procname` entries of the kernel's net sysctl tables by
/// scripts/sysctl-keys (tests/gen/test_sysctl_keys.py re-derives it from
/// Debian's linux-source-6.12 and fails when they differ).
pub const SYSCTL_KEYS_6_12: &str = include_str!("../data/sysctl-keys-6.12.txt");

/// Whether `key` is a sysctl of Linux 6.12: `Some(true)`/`Some(false)` for
/// a key in a directory the table covers completely (`net.core`,
/// `net.ipv4`, `net.ipv6`, `net.netfilter`, ...), `None` elsewhere
/// (`net.ipv4.conf.eth0.*`, `vm.*`: not checked). With `false`, the closest
/// name of that directory (edit distance <= 3) as a suggestion.
pub fn known_sysctl(key: &str) -> Option<(bool, Option<String>)> {
    let (dir, _) = key.rsplit_once('.')?;
    // The names directly in `dir`: a prefix test per line, no set built
    // and nothing allocated unless the key is unknown (a board names a few
    // sysctls; this ran a table's worth of allocations per key).
    let in_dir =
        |k: &&str| k.strip_prefix(dir).and_then(|r| r.strip_prefix('.')).is_some_and(|leaf| !leaf.contains('.'));
    let siblings: Vec<&str> = SYSCTL_KEYS_6_12.lines().filter(in_dir).collect();
    if siblings.is_empty() {
        return None;
    }
    if siblings.contains(&key) {
        return Some((true, None));
    }
    let siblings: Vec<String> = siblings.into_iter().map(str::to_string).collect();
    Some((false, crate::text::closest(key, &siblings)))
}

/// Largest RFS table size the kernel accepts: `rps_sock_flow_entries`
/// above 2^29 is refused with EINVAL (net/core/sysctl_net_core.c,
/// `rps_sock_flow_sysctl`: "Enforce limit to prevent overflow"); the same
/// bound is applied to the per-queue `rps_flow_cnt`, which 32-bit kernels
/// refuse a little above it (net/core/net-sysfs.c,
/// `store_rps_dev_flow_table_cnt`) and which would need a vmalloc of 8
/// bytes per entry anyway.
pub const MAX_FLOW_ENTRIES: u32 = 1 << 29;

/// The value the kernel keeps for an RFS table size: rounded up to a power
/// of two (`roundup_pow_of_two` in both handlers); `None` above
/// [`MAX_FLOW_ENTRIES`]. 0 stays 0 (table freed).
pub fn kernel_flow_entries(n: u32) -> Option<u32> {
    match n {
        0 => Some(0),
        n if n > MAX_FLOW_ENTRIES => None,
        n => Some(n.next_power_of_two()),
    }
}

/// On-chip Ethernet MACs a SoC has of a driver, `(count, names)`: the
/// driver row's [`crate::drivers::DriverFacts::on_chip`] (ZynqMP GEM0-3,
/// UG1085 chapter 34, and Zynq-7000 GEM0-1, UG585 chapter 16, both `macb`;
/// P1020 eTSEC1-3, `gianfar`, P1020 reference manual; `enet0..2` in
/// arch/powerpc/boot/dts/fsl/p1020si-post.dtsi). `None`: the SoC has no
/// fixed number of them.
pub fn on_chip_macs(soc: Soc, driver: Driver) -> Option<(usize, &'static str)> {
    crate::drivers::facts(driver).on_chip.iter().find(|m| m.0 == soc).map(|&(_, n, names)| (n, names))
}

/// Most interfaces one board file describes.
pub const MAX_INTERFACES: usize = 64;

/// The limit checks; unlocated diagnostics (pointers).
pub fn check(b: &Board) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if let Some(n) = b.system.rfs_sock_flow_entries {
        match kernel_flow_entries(n) {
            None => out.push(
                Diagnostic::new(Rule::RfsLimit, "/system/rfs_sock_flow_entries", format!("rps_sock_flow_entries {n} is above the kernel's limit {MAX_FLOW_ENTRIES} (EINVAL, sysctl_net_core.c)"))
                    .hint("use a power of two such as 32768 (Documentation/networking/scaling.rst)"),
            ),
            Some(k) if k != n => out.push(
                Diagnostic::new(Rule::RfsRounded, "/system/rfs_sock_flow_entries", format!("the kernel rounds rps_sock_flow_entries {n} up to {k} (sysctl_net_core.c); generated as {k}"))
                    .hint(format!("write {k}")),
            ),
            Some(_) => {}
        }
    }
    for (i, ifc) in b.interfaces.iter().enumerate() {
        if let Some(n) = ifc.rfs_flow_cnt {
            if kernel_flow_entries(n).is_none() {
                out.push(
                    Diagnostic::new(Rule::RfsLimit, format!("/interfaces/{i}/rfs_flow_cnt"), format!("rps_flow_cnt {n} is above {MAX_FLOW_ENTRIES}: the kernel cannot allocate or refuses the table (net-sysfs.c)"))
                        .hint("use rfs_sock_flow_entries / rx queues, e.g. 2048"),
                );
            }
        }
        if ifc.queues.tx == 1 && !ifc.xps.is_empty() {
            out.push(Diagnostic::new(
                Rule::XpsSingleQueue,
                format!("/interfaces/{i}/xps"),
                format!(
                    "XPS on `{}`, which has one TX queue: the kernel refuses xps_cpus there (net-sysfs.c: -ENOENT unless netif_is_multiqueue); the plan leaves it out",
                    ifc.name
                ),
            ));
        }
        if let Some(node) = ifc.dt.as_ref().and_then(|d| d.node.as_ref()) {
            let base = format!("/interfaces/{i}/dt/node");
            for (what, ptr, reg, size) in [
                ("MAC", base.clone(), node.reg, node.size),
                ("DMA", format!("{base}/dma"), node.dma.reg, node.dma.size),
            ] {
                if size == 0 {
                    out.push(
                        Diagnostic::new(
                            Rule::RegWindow,
                            format!("{ptr}/size"),
                            format!("{what} register window of size 0"),
                        )
                        .hint("give the window's size in bytes from the address editor (e.g. 0x40000)"),
                    );
                } else if reg.checked_add(size).is_none() {
                    out.push(Diagnostic::new(Rule::RegWindow, format!("{ptr}/size"), format!("{what} register window {reg:#x} + {size:#x} passes the end of the 64-bit address space")).hint("check reg and size"));
                }
            }
        }
    }
    if b.interfaces.len() > MAX_INTERFACES {
        out.push(Diagnostic::new(
            Rule::TooManyInterfaces,
            format!("/interfaces/{MAX_INTERFACES}"),
            format!("{} interfaces; a board file describes at most {MAX_INTERFACES}", b.interfaces.len()),
        ));
    }
    // sysctl keys against the table of the kernel the image runs (the
    // QorIQ SDK kernels are older: not checked)
    if b.board.kernel != KernelFlavour::QoriqSdk {
        // a malformed name is rule sysctl-key's (an error), not also unknown
        for key in b.system.sysctl.keys().filter(|k| crate::text::sysctl_key_ok(k)) {
            if let Some((false, near)) = known_sysctl(key) {
                let hint = match near {
                    Some(n) => format!("did you mean `{n}`?"),
                    None => "the key may belong to an older kernel (e.g. tcp_tw_recycle, removed in 4.12) or to a module with its own table; check /proc/sys on the target".into(),
                };
                out.push(
                    Diagnostic::new(
                        Rule::SysctlUnknown,
                        format!("/system/sysctl/{}", crate::yaml::escape_segment(key)),
                        format!("`{key}` is not a sysctl of Linux 6.12 (net sysctl tables)"),
                    )
                    .hint(hint),
                );
            }
        }
    }
    out.extend(zynq7000_gem_and_bench_mtu(b));
    let mut count = std::collections::BTreeMap::new();
    for (i, ifc) in b.interfaces.iter().enumerate() {
        if let Some((max, names)) = on_chip_macs(b.board.soc, ifc.driver) {
            let c = count.entry(ifc.driver).or_insert(0usize);
            *c += 1;
            if *c == max + 1 {
                out.push(Diagnostic::new(
                    Rule::OnChipMacs,
                    format!("/interfaces/{i}/driver"),
                    format!("more than {max} {} ports: the {} SoC has {max} ({names})", ifc.driver, b.board.soc),
                ));
            }
        }
    }
    out
}

/// What the driver of the bench's DUT interface cannot carry, and the
/// Zynq-7000 GEM's single RX queue (the TX side is `max_tx_queues` in
/// [`crate::drivers::caps`]):
/// - a `bench.matrix.mtus` entry above the largest MTU of the DUT
///   interface's driver (macb on the Zynq-7000: 1518, no jumbo frames)
///   would fail on the target when the runner sets it;
/// - macb on the Zynq-7000 has one RX queue: macb_probe_queues counts the
///   queues the GEM reports and macb_init takes one IRQ per queue, and
///   zynq-7000.dtsi gives each GEM a single interrupt.
pub fn zynq7000_gem_and_bench_mtu(b: &Board) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (i, ifc) in b.interfaces.iter().enumerate() {
        if b.board.soc == Soc::Zynq7000 && ifc.driver == Driver::Macb && ifc.queues.rx > 1 {
            out.push(Diagnostic::new(
                Rule::RxQueuesMax,
                format!("/interfaces/{i}/queues/rx"),
                format!(
                    "macb on zynq7000 has 1 RX queue, not {}: the Zynq-7000 GEM has no priority queues (one \
                     interrupt per GEM in zynq-7000.dtsi; macb_main.c macb_probe_queues/macb_init)",
                    ifc.queues.rx
                ),
            ));
        }
    }
    let Some(bench) = &b.bench else { return out };
    let dut = bench.dut.as_ref().and_then(|d| b.interfaces.iter().find(|i| i.name == d.iface));
    let (Some(m), Some(dut)) = (&bench.matrix, dut) else {
        return out;
    };
    let c = crate::drivers::caps(dut.driver, b.board.soc);
    for (j, mtu) in m.mtus.iter().enumerate() {
        if (68..=65535).contains(mtu) && *mtu > c.max_mtu {
            out.push(
                Diagnostic::new(
                    Rule::BenchMtuDriver,
                    format!("/bench/matrix/mtus/{j}"),
                    format!(
                        "bench MTU {mtu} exceeds {}, the largest MTU of `{}` ({} on {}, {})",
                        c.max_mtu, dut.name, dut.driver, b.board.soc, c.source
                    ),
                )
                .hint(format!("use MTUs up to {} in bench.matrix.mtus", c.max_mtu)),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_entries_round_like_the_kernel() {
        assert_eq!(kernel_flow_entries(30_000), Some(32_768));
        assert_eq!(kernel_flow_entries(32_768), Some(32_768));
        assert_eq!(kernel_flow_entries(1), Some(1));
        assert_eq!(kernel_flow_entries(0), Some(0));
        assert_eq!(kernel_flow_entries(MAX_FLOW_ENTRIES), Some(MAX_FLOW_ENTRIES));
        assert_eq!(kernel_flow_entries(MAX_FLOW_ENTRIES + 1), None);
        assert_eq!(kernel_flow_entries(2_147_483_649), None);
    }

    #[test]
    fn sysctl_keys_are_checked_with_a_suggestion() {
        assert_eq!(known_sysctl("net.core.rmem_max"), Some((true, None)));
        assert_eq!(known_sysctl("net.core.rmem_maxx"), Some((false, Some("net.core.rmem_max".into()))));
        assert!(matches!(known_sysctl("net.ipv4.tcp_tw_recycle"), Some((false, _))));
        assert_eq!(known_sysctl("net.ipv4.conf.all.rp_filter"), None);
        assert_eq!(known_sysctl("vm.swappiness"), None);
    }

    /// The reference board `name` as the raw model the rules check (it loads
    /// without errors).
    fn repo_board(name: &str) -> Board {
        let (path, text) = crate::testutil::repo_board(name);
        crate::load_board_str(&path, &text).unwrap_or_else(|d| panic!("{d}"));
        let (doc, _) = crate::yaml::load(&text).unwrap_or_else(|d| panic!("{d:?}"));
        serde_json::from_value(doc).expect("a valid board deserializes")
    }

    fn rules(d: &[Diagnostic]) -> Vec<Rule> {
        d.iter().map(|d| d.rule).collect()
    }

    #[test]
    fn max_interfaces_is_allowed_and_one_more_is_not() {
        let mut b = repo_board("zcu102");
        b.interfaces = vec![b.interfaces[0].clone(); MAX_INTERFACES];
        assert!(!rules(&check(&b)).contains(&Rule::TooManyInterfaces));
        b.interfaces.push(b.interfaces[0].clone());
        let d = check(&b);
        let too_many: Vec<_> = d.iter().filter(|d| d.rule == Rule::TooManyInterfaces).collect();
        assert_eq!(too_many.len(), 1, "{d:?}");
        assert_eq!(too_many[0].pointer, format!("/interfaces/{MAX_INTERFACES}"));
    }

    /// A bench MTU equal to the DUT driver's largest MTU is measured; one
    /// more is refused (the Zynq-7000 GEM: 1518, macb_main.c macb_probe).
    #[test]
    fn a_bench_mtu_at_the_drivers_maximum_is_allowed() {
        let mut b = repo_board("zc702");
        let max = crate::drivers::caps(b.interfaces[0].driver, b.board.soc).max_mtu;
        assert_eq!(max, 1518);
        let mut mtus = |v: u32| {
            b.bench.as_mut().and_then(|x| x.matrix.as_mut()).expect("zc702 has a bench matrix").mtus = vec![v];
            rules(&zynq7000_gem_and_bench_mtu(&b))
        };
        assert!(!mtus(max).contains(&Rule::BenchMtuDriver));
        assert!(mtus(max + 1).contains(&Rule::BenchMtuDriver));
    }
}
