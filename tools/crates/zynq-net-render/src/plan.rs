//! The tuning plan (docs/plan-format.md): one step per line, in the order
//! the steps must run. MTU, channels and rings come first because they may
//! reset the device (macb reopens it; axienet/MCDMA accept them only while
//! down), then offloads, coalescing, RPS/RFS/XPS, IRQ affinity, qdisc and
//! filters, sysctl; Freescale ASF modules load first and its UDP timeout
//! is set last (qoriq-sdk boards only).

use zynq_net_model::model::{Board, Driver, Interface, MatchField, QueueSel, SysctlValue};
use zynq_net_model::resolve::{QueueCpuSet, ResolvedIface};
use zynq_net_model::LoadedBoard;

/// Plan format version written in the first line (`zynq-net-plan 2`).
/// Version 2 added the end line (`end STEPS CKSUM BYTES`); an applier of
/// version 1 would run a truncated plan, so the version changed with it.
pub const PLAN_VERSION: u32 = 2;

/// The POSIX `cksum` of `data` (IEEE Std 1003.1, cksum: CRC-32 with the
/// polynomial 0x04C11DB7, most significant bit first, over the bytes and
/// then the length in as few bytes as it takes, least significant first,
/// complemented): the first number `cksum` prints.
pub fn posix_cksum(data: &[u8]) -> u32 {
    fn feed(crc: u32, b: u8) -> u32 {
        let mut c = crc ^ (u32::from(b) << 24);
        for _ in 0..8 {
            c = if c & 0x8000_0000 != 0 { (c << 1) ^ 0x04C1_1DB7 } else { c << 1 };
        }
        c
    }
    let mut crc = data.iter().fold(0u32, |c, &b| feed(c, b));
    let mut len = data.len() as u64;
    while len != 0 {
        crc = feed(crc, (len & 0xff) as u8);
        len >>= 8;
    }
    !crc
}

/// Appends the end line to a rendered plan body (docs/plan-format.md):
/// `end STEPS CKSUM BYTES`, STEPS = lines that are neither blank (spaces
/// and tabs only), comments nor the version line, CKSUM and BYTES = what `cksum` prints for every
/// byte before the end line. The applier refuses a plan whose end line is
/// missing, not last, unterminated or does not match.
pub fn seal(body: &str) -> String {
    let mut body = body.to_string();
    if !body.ends_with('\n') {
        body.push('\n');
    }
    // blank = only spaces and tabs (what the applier's `set --` splits away)
    let blank = |l: &str| l.bytes().all(|b| b == b' ' || b == b'\t');
    let steps = body
        .split('\n')
        .skip_while(|l| blank(l) || l.starts_with('#'))
        .skip(1)
        .filter(|l| !blank(l) && !l.starts_with('#'))
        .count();
    let line = format!("end {steps} {} {}\n", posix_cksum(body.as_bytes()), body.len());
    body + &line
}

/// Seconds the applier waits for each interface to appear.
pub const WAIT_SECONDS: u32 = 10;

/// When a step runs: the plan is sorted by phase (stably: within a phase,
/// interface order, then board order). The one place the step order is
/// decided; docs/plan-format.md describes the same order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    /// `module` (Freescale ASF, loaded before anything uses it) and `wait`
    /// (the interface must exist before any step touches it).
    Prepare,
    /// `ident`: the device behind the interface name must be the board's
    /// (driver, DT node) before any step writes to it; the applier skips the
    /// interface's later steps when it is not (systemd.link(5) matches
    /// `Driver=`/`Path=` for the same reason: names follow probe order).
    Identity,
    /// `mac`, `mtu`: change the link itself; axienet/XXV accept a MAC or MTU
    /// change only while down, so they come before anything that needs it up.
    Link,
    /// `channels`: changes the queue count, which creates or removes the
    /// `queues/rx-N`/`tx-N` directories RPS, RFS and XPS write to.
    Channels,
    /// `rings`: macb (`macb_set_ringparam`: close, open) and gianfar
    /// (`gfar_sringparam`: `stop_gfar`, `startup_gfar`) restart a running
    /// device to resize its rings: after channels, before the steps whose
    /// values a restart could disturb.
    Rings,
    /// `offload`: features (`ethtool -K`).
    Offloads,
    /// `rings tcp-data-split` / `rx-buf-len`: header split needs the
    /// hardware GRO offload on first (mlx5 SHAMPO), so after the offloads.
    HeaderSplit,
    /// `coalesce`: after rings (a ring change may reset it).
    Coalesce,
    /// `ptp off`: hardware timestamping off.
    Ptp,
    /// `rps`: per-queue RPS masks (`queues/rx-N/rps_cpus`), after channels.
    Rps,
    /// `rfs`: per-queue `rps_flow_cnt`, after channels.
    Rfs,
    /// `xps`: per-queue XPS masks (`queues/tx-N/xps_cpus`), after channels.
    Xps,
    /// `rss`, `ntuple`: the RSS indirection table and flow rules, after
    /// channels (they name queues).
    FlowSteering,
    /// `irq`: IRQ affinity by name, after every step that may create,
    /// remove or re-request queue IRQs (a channel change does on mlx5).
    IrqAffinity,
    /// `qdisc`: the multiq root qdisc, after channels (one band per TX queue).
    Qdisc,
    /// `filter`: u32 + skbedit filters, which need the qdisc.
    Filter,
    /// `sysctl`: global, after the interfaces.
    Sysctl,
    /// `asf udp-timeout`: ASF's timeout, last (its modules are loaded and
    /// the interfaces are up by then).
    AsfTimeout,
}

/// One plan line.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Step {
    /// When it runs (the plan's sort key).
    #[serde(skip)]
    pub phase: Phase,
    /// The line, fields separated by single spaces.
    pub line: String,
}

/// The mask of each queue `0..count` that `list` names (later entries win),
/// as `(queue, kernel bitmap)`.
fn queue_masks(list: &[QueueCpuSet], count: u32, nr_cpus: u32) -> Vec<(u32, String)> {
    let mut per_queue: Vec<Option<String>> = vec![None; count as usize];
    // Later entries override earlier ones, so `all` followed by one queue works.
    for qc in list {
        let mask = qc.cpus.kernel_bitmap(nr_cpus);
        match qc.queue {
            QueueSel::All(_) => per_queue.iter_mut().for_each(|m| *m = Some(mask.clone())),
            QueueSel::One(q) => {
                if let Some(m) = per_queue.get_mut(q as usize) {
                    *m = Some(mask);
                }
            }
        }
    }
    (0..count).zip(per_queue).filter_map(|(q, m)| m.map(|m| (q, m))).collect()
}

/// A plan line built word by word, single spaces between words: for the
/// per-queue lines (rps, rfs, xps, irq), thousands on a large board, where
/// `format!` was half the cost of building the plan.
struct Line(String);

impl Line {
    /// `verb iface`.
    fn new(verb: &str, iface: &str) -> Self {
        let mut s = String::with_capacity(48);
        s.push_str(verb);
        s.push(' ');
        s.push_str(iface);
        Line(s)
    }

    /// Appends ` word`.
    fn word(mut self, word: &str) -> Self {
        self.0.push(' ');
        self.0.push_str(word);
        self
    }

    /// Appends ` {prefix}{n}` (decimal).
    fn num(mut self, prefix: &str, n: u32) -> Self {
        self.0.push(' ');
        self.0.push_str(prefix);
        self.0.push_str(itoa::Buffer::new().format(n));
        self
    }
}

/// The name of the kernel driver bound to a port of `driver`, as the
/// applier reads it: the `driver` link of `/sys/class/net/IFACE/device`
/// (the bus driver's `.name`), or `ethtool -i` for a device without one.
/// Sources (linux-source-6.12): macb_main.c `macb_driver` `.name = "macb"`;
/// xilinx_axienet_main.c `axienet_driver` `.name = "xilinx_axienet"` (the
/// same in linux-xlnx, which drives the XXV MACs with it); gianfar.c
/// `gfar_driver` `.name = "fsl-gianfar"`; mlx5 core/main.c `mlx5_core_driver`
/// `.name = KBUILD_MODNAME` (`mlx5_core`); virtio_net.c `virtio_net_driver`
/// (`virtio_net`); veth.c `DRV_NAME "veth"` (no device: `ethtool -i`).
pub fn kernel_driver(d: Driver) -> &'static str {
    match d {
        Driver::Macb => "macb",
        Driver::Axienet | Driver::Xxv | Driver::XxvMcdma => "xilinx_axienet",
        Driver::Gianfar => "fsl-gianfar",
        Driver::Mlx5 => "mlx5_core",
        Driver::VirtioNet => "virtio_net",
        Driver::Veth => "veth",
    }
}

/// The `ident` line of an interface: its driver and, when the board gives
/// the node's full path (`dt.path`), its DT node. The board's MAC is not a
/// permanent address the port is known by (on AXI ports without the DT
/// fragment it is the `mac` step that sets it), so it is not matched.
fn ident_line(i: &Interface) -> String {
    let mut line = format!("ident {} driver {}", i.name, kernel_driver(i.driver));
    // the applier's `is_dtpath`: no `.`/`..` component, at most 255 bytes
    let usable = |p: &&str| p.len() <= 255 && p.split('/').skip(1).all(|c| c != "." && c != "..");
    if let Some(path) = i.dt.as_ref().and_then(|d| d.path.as_deref()).filter(usable) {
        line.push_str(" of-node ");
        line.push_str(path);
    }
    line
}

fn iface_steps(i: &Interface, r: &ResolvedIface, nr_cpus: u32, out: &mut Vec<Step>) {
    let n = &i.name;
    let mut push = |phase: Phase, line: String| out.push(Step { phase, line });
    push(Phase::Prepare, format!("wait {n} {WAIT_SECONDS}"));
    push(Phase::Identity, ident_line(i));
    // AXI/XXV Ethernet: the DT fragment writes local-mac-address (probe
    // reads it); the board's MAC is also set at boot, before the MTU and the
    // link coming up, for images whose DTB does not carry the fragment.
    if i.driver.is_axi() {
        if let Some(mac) = r.mac {
            push(Phase::Link, format!("mac {n} {mac}"));
        }
    }
    if let Some(mtu) = i.mtu {
        push(Phase::Link, format!("mtu {n} {mtu}"));
    }
    if let Some(ch) = &i.channels {
        for (k, v) in [("combined", ch.combined), ("rx", ch.rx), ("tx", ch.tx)] {
            if let Some(v) = v {
                push(Phase::Channels, format!("channels {n} {k} {v}"));
            }
        }
    }
    if let Some(r) = &i.rings {
        for (k, v) in [("rx", r.rx), ("tx", r.tx)] {
            if let Some(v) = v {
                push(Phase::Rings, format!("rings {n} {k} {v}"));
            }
        }
    }
    for (k, v) in &i.offloads {
        push(Phase::Offloads, format!("offload {n} {k} {}", v.as_str()));
    }
    // Header split needs rx-gro-hw on first (mlx5 SHAMPO): after the offloads.
    if let Some(z) = &i.zero_copy_rx {
        if z.tcp_data_split {
            push(Phase::HeaderSplit, format!("rings {n} tcp-data-split on"));
        }
        if let Some(len) = z.rx_buf_len {
            push(Phase::HeaderSplit, format!("rings {n} rx-buf-len {len}"));
        }
    }
    for (k, v) in &i.coalesce {
        // ethtool -C takes adaptive-rx/adaptive-tx as on/off (board: 1/0).
        let v =
            if k.starts_with("adaptive-") { (if *v == 0 { "off" } else { "on" }).to_string() } else { v.to_string() };
        push(Phase::Coalesce, format!("coalesce {n} {k} {v}"));
    }
    if let Some(p) = i.ptp {
        if p.as_str() == "off" {
            push(Phase::Ptp, format!("ptp {n} off"));
        }
    }
    for (q, m) in queue_masks(&r.rps, i.queues.rx, nr_cpus) {
        push(Phase::Rps, Line::new("rps", n).num("rx-", q).word(&m).0);
    }
    if let Some(cnt) = i.rfs_flow_cnt {
        // what the kernel keeps (rounded up to a power of two, warned at validation)
        let cnt = zynq_net_model::limits::kernel_flow_entries(cnt).unwrap_or(cnt);
        for q in 0..i.queues.rx {
            push(Phase::Rfs, Line::new("rfs", n).num("rx-", q).num("", cnt).0);
        }
    }
    // One TX queue: the kernel refuses xps_cpus (net-sysfs.c, -ENOENT unless
    // netif_is_multiqueue; warned at validation), so no step.
    if i.queues.tx > 1 {
        for (q, m) in queue_masks(&r.xps, i.queues.tx, nr_cpus) {
            push(Phase::Xps, Line::new("xps", n).num("tx-", q).word(&m).0);
        }
    }
    if let Some(z) = &i.zero_copy_rx {
        // RSS over the queues below the zero-copy queue only (iou-zcrx.rst).
        if z.queue > 0 {
            push(Phase::FlowSteering, format!("rss {n} equal {}", z.queue));
        }
        push(
            Phase::FlowSteering,
            format!(
                "ntuple {n} flow-type {} dst-port {} action {}",
                z.flow.flow_type.as_str(),
                z.flow.dst_port,
                z.queue
            ),
        );
    }
    for ia in &r.irq_affinity {
        let line = Line::new("irq", n).word(ia.pattern.as_str()).word(&ia.cpus.kernel_bitmap(nr_cpus));
        push(Phase::IrqAffinity, line.0);
    }
    if i.qdisc.is_some() {
        push(Phase::Qdisc, format!("qdisc {n} multiq"));
        for (j, f) in r.filters.iter().enumerate() {
            let m = match f.match_ {
                MatchField::Src => "src",
                MatchField::Dst => "dst",
            };
            push(Phase::Filter, format!("filter {n} {} {m} {} {}", j + 1, f.prefix, f.queue));
        }
    }
}

/// Every sysctl the board sets, sorted by key: the `system.sysctl` map plus
/// the dedicated keys (RFS table, forwarding, conntrack).
pub fn sysctls(b: &Board) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = b
        .system
        .sysctl
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                match v {
                    SysctlValue::Int(i) => i.to_string(),
                    SysctlValue::Text(t) => t.clone(),
                },
            )
        })
        .collect();
    if let Some(n) = b.system.rfs_sock_flow_entries {
        // the value the kernel keeps (rounded, warned at validation): the
        // applier compares sysctls exactly, so 30000 would "fail" every boot
        let n = zynq_net_model::limits::kernel_flow_entries(n).unwrap_or(n);
        v.push(("net.core.rps_sock_flow_entries".into(), n.to_string()));
    }
    if let Some(f) = b.system.ip_forward {
        v.push(("net.ipv4.ip_forward".into(), u8::from(f).to_string()));
    }
    let conntrack = b.system.conntrack_max.or(b.fastpath.asf.as_ref().and_then(|a| a.conntrack_max));
    if let Some(n) = conntrack {
        v.push(("net.netfilter.nf_conntrack_max".into(), n.to_string()));
    }
    v.sort();
    v
}

/// All plan steps in execution order.
pub fn steps(loaded: &LoadedBoard) -> Vec<Step> {
    let b = &loaded.board;
    let mut out = Vec::new();
    // Freescale ASF (validation: only with kernel qoriq-sdk): modules
    // first, UDP timeout last.
    let asf = b.fastpath.asf.as_ref();
    if let Some(a) = asf {
        for m in &a.modules {
            out.push(Step { phase: Phase::Prepare, line: format!("module {m}") });
        }
    }
    for (i, r) in b.interfaces.iter().zip(&loaded.resolved.interfaces) {
        iface_steps(i, r, b.board.cpus, &mut out);
    }
    if let Some(t) = asf.and_then(|a| a.udp_timeout_s) {
        out.push(Step { phase: Phase::AsfTimeout, line: format!("asf udp-timeout {t}") });
    }
    for (k, v) in sysctls(b) {
        // Multi-word values (tcp_rmem) become several fields, one space apart.
        let v = v.split_whitespace().collect::<Vec<_>>().join(" ");
        out.push(Step { phase: Phase::Sysctl, line: format!("sysctl {k} {v}") });
    }
    // Stable sort: within a phase, interface order then board order.
    out.sort_by_key(|s| s.phase);
    out
}

/// IRQ name patterns the board pins (for the irqbalance policy; rule `irqbalance-running`).
pub fn pinned_irq_patterns(loaded: &LoadedBoard) -> Vec<String> {
    let mut v: Vec<String> = loaded
        .resolved
        .interfaces
        .iter()
        .flat_map(|i| i.irq_affinity.iter().map(|a| a.pattern.as_str().to_string()))
        .collect();
    v.sort();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `of-node` is written for a `dt.path` of up to 255 bytes (the
    /// applier's `is_dtpath` limit), exactly 255 included; 256 is left out.
    #[test]
    fn ident_of_node_up_to_255_bytes() {
        let text = crate::testutil::repo_text("meta-zynq-net/boards/zcu102.yml");
        for (len, written) in [(255, true), (256, false)] {
            let seg = |n: usize| format!("/{}", "a".repeat(n - 1));
            let path = format!("{}{}{}{}", seg(64), seg(64), seg(64), seg(len - 192));
            assert_eq!(path.len(), len);
            let board = text.replacen(
                "      label: xxv_ethernet_0\n",
                &format!("      label: xxv_ethernet_0\n      path: {path}\n"),
                1,
            );
            assert_ne!(board, text);
            let plan = crate::testutil::artifact(&board, "tuning/zynq-net.plan").expect("a plan");
            let plan = String::from_utf8(plan.contents).expect("utf-8");
            assert_eq!(plan.contains(&format!(" of-node {path}\n")), written, "{len} bytes:\n{plan}");
        }
    }

    #[test]
    fn cksum_matches_posix_examples() {
        // `printf '' | cksum` and `printf 'a' | cksum` (GNU coreutils, busybox)
        assert_eq!(posix_cksum(b""), 4_294_967_295);
        assert_eq!(posix_cksum(b"a"), 1_220_704_766);
        assert_eq!(posix_cksum(b"123456789"), 930_766_865);
    }

    /// Blank and comment lines before the version line are not steps, nor
    /// is the version line (the applier skips them the same way).
    #[test]
    fn seal_skips_what_comes_before_the_version_line() {
        let s = seal("# generated\n \t\nzynq-net-plan 2\nmtu eth0 1500\n");
        let (body, end) = s.rsplit_once("end ").expect("an end line");
        assert_eq!(end, format!("1 {} {}\n", posix_cksum(body.as_bytes()), body.len()));
    }

    #[test]
    fn seal_counts_steps_and_sums_the_body() {
        let s = seal("zynq-net-plan 2\n# c\n\nboard x\nmtu eth0 1500\n");
        let (body, end) = s.rsplit_once("end ").expect("an end line");
        assert_eq!(end, format!("2 {} {}\n", posix_cksum(body.as_bytes()), body.len()));
    }

    /// Freescale ASF: its modules are loaded first and its UDP timeout set
    /// last, after every interface step (the good fixture p1020rdb-asf:
    /// the QorIQ SDK kernel with `fastpath.asf`).
    #[test]
    fn asf_modules_first_and_udp_timeout_last() {
        let loaded = crate::testutil::loaded(&crate::testutil::repo_text(
            "tools/crates/zynq-net-cli/tests/fixtures/good/p1020rdb-asf.yml",
        ));
        let asf = loaded.board.fastpath.asf.as_ref().expect("fastpath.asf");
        let lines: Vec<String> = steps(&loaded).into_iter().map(|s| s.line).collect();
        let modules: Vec<String> = asf.modules.iter().map(|m| format!("module {m}")).collect();
        assert!(!modules.is_empty());
        assert_eq!(lines[..modules.len()], modules[..], "{lines:#?}");
        let t = asf.udp_timeout_s.expect("udp_timeout_s");
        let at = lines.iter().position(|l| *l == format!("asf udp-timeout {t}")).expect("the timeout step");
        assert!(lines[at + 1..].iter().all(|l| l.starts_with("sysctl ")), "{lines:#?}");
        assert!(lines[..at].iter().any(|l| l.starts_with("wait ")), "{lines:#?}");
    }
}
