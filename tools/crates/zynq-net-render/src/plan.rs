//! The tuning plan (docs/plan-format.md): one step per line, in the order
//! the steps must run. MTU, channels and rings come first because they may
//! reset the device (macb reopens it; axienet/MCDMA accept them only while
//! down), then offloads, coalescing, RPS/RFS/XPS, IRQ affinity, qdisc and
//! filters, sysctl; Freescale ASF modules load first and its UDP timeout
//! is set last (qoriq-sdk boards only).

use zynq_net_model::hi::HiInterface;
use zynq_net_model::model::{Driver, MatchField, QueueSel, SysctlValue};
use zynq_net_model::resolve::QueueCpuSet;
use zynq_net_model::yaml::escape_segment;
use zynq_net_model::HiBoard;

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

pub use crate::verb::{AblationGroup, Phase, Scope, Verb, VerbRow};
use crate::verb::{SYSCTL_CONNTRACK_MAX, SYSCTL_IP_FORWARD, SYSCTL_RFS_TABLE};

/// The board setting a step comes from: deleting it from the board drops
/// the step, with the other steps of the same setting (the ablation's
/// board diff deletes it; `bench ablate`). Coarser than the value's own
/// key where one value alone is not a setting: the ASF modules and
/// timeout come from `/fastpath/asf`, header split, RSS and the ntuple
/// rule from the interface's `zero_copy_rx`, filters from its `qdisc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    /// Index into the board's `interfaces` for a setting of one interface
    /// (`path` is then below `/interfaces/N`).
    pub iface: Option<usize>,
    /// The JSON pointer (RFC 6901) of the setting, or of the mapping that
    /// holds it when `key_field` is set; `""` for the interface itself.
    pub path: &'static str,
    /// The setting is the mapping's key written in the step's field N
    /// (0 = the verb): `offload eth0 tso on` from `.../offloads/tso`.
    pub key_field: Option<u8>,
}

impl Origin {
    const fn iface(index: usize, path: &'static str) -> Self {
        Origin { iface: Some(index), path, key_field: None }
    }

    const fn board(path: &'static str) -> Self {
        Origin { iface: None, path, key_field: None }
    }

    const fn keyed(self, field: u8) -> Self {
        Origin { key_field: Some(field), ..self }
    }
}

/// One plan line, typed: the verb, the line as written, and the board
/// setting it came from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Step {
    /// The verb (the line's first field).
    #[serde(skip)]
    pub verb: Verb,
    /// When it runs (the plan's sort key): the verb's phase, except
    /// `rings`' header-split steps ([`Phase::HeaderSplit`]).
    #[serde(skip)]
    pub phase: Phase,
    /// The line, fields separated by single spaces, the verb first.
    pub line: String,
    /// The board setting it came from.
    #[serde(skip)]
    pub origin: Origin,
}

impl Step {
    fn new(verb: Verb, origin: Origin, line: String) -> Self {
        debug_assert!(line.starts_with(verb.name()) && line.as_bytes().get(verb.name().len()) == Some(&b' '));
        Step { verb, phase: verb.row().phase, line, origin }
    }

    /// The fields after the verb.
    fn rest(&self) -> std::str::Split<'_, char> {
        let mut f = self.line.split(' ');
        f.next();
        f
    }

    /// The interface it is about (a [`Scope::Iface`] verb's second field).
    pub fn iface(&self) -> Option<&str> {
        match self.verb.row().scope {
            Scope::Iface => self.rest().next(),
            Scope::Global => None,
        }
    }

    /// The fields after the verb and the interface.
    pub fn args(&self) -> Vec<&str> {
        let skip = usize::from(self.verb.row().scope == Scope::Iface);
        self.rest().skip(skip).collect()
    }

    /// Its ablation group (the verb's, or the sysctl KEY's).
    pub fn group(&self) -> AblationGroup {
        self.verb.group(self.rest().next())
    }

    /// The JSON pointer of [`Step::origin`]: `/interfaces/0/offloads/tso`.
    pub fn pointer(&self) -> String {
        let mut p = match self.origin.iface {
            Some(i) => format!("/interfaces/{i}{}", self.origin.path),
            None => self.origin.path.to_string(),
        };
        if let Some(n) = self.origin.key_field {
            p.push('/');
            p.push_str(&escape_segment(self.line.split(' ').nth(usize::from(n)).unwrap_or("")));
        }
        p
    }
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
    fn new(verb: Verb, iface: &str) -> Self {
        let mut s = String::with_capacity(48);
        s.push_str(verb.name());
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
/// The driver row's `kernel_driver` (zynq_net_model::drivers::facts; each
/// row cites the driver struct's `.name` in linux-source-6.12).
pub fn kernel_driver(d: Driver) -> &'static str {
    zynq_net_model::drivers::facts(d).kernel_driver
}

/// The `ident` line of an interface: its driver and, when the board gives
/// the node's full path (`dt.path`), its DT node. The board's MAC is not a
/// permanent address the port is known by (on AXI ports without the DT
/// fragment it is the `mac` step that sets it), so it is not matched.
fn ident_line(i: &HiInterface) -> String {
    let mut line = format!("{} {} driver {}", Verb::Ident.name(), i.name, kernel_driver(i.driver));
    // the applier's `is_dtpath`: no `.`/`..` component, at most 255 bytes
    let usable = |p: &&str| p.len() <= 255 && p.split('/').skip(1).all(|c| c != "." && c != "..");
    if let Some(path) = i.dt.as_ref().and_then(|d| d.path.as_deref()).filter(usable) {
        line.push_str(" of-node ");
        line.push_str(path);
    }
    line
}

fn iface_steps(idx: usize, i: &HiInterface, nr_cpus: u32, out: &mut Vec<Step>) {
    use Verb as V;
    let n = &i.name;
    let at = |path: &'static str| Origin::iface(idx, path);
    let mut push = |verb: Verb, origin: Origin, line: String| out.push(Step::new(verb, origin, line));
    push(V::Wait, at(""), format!("{} {n} {WAIT_SECONDS}", V::Wait.name()));
    push(V::Ident, at(""), ident_line(i));
    // AXI/XXV Ethernet: the DT fragment writes local-mac-address (probe
    // reads it); the board's MAC is also set at boot, before the MTU and the
    // link coming up, for images whose DTB does not carry the fragment.
    if i.driver.is_axi() {
        if let Some(mac) = i.dt.as_ref().and_then(|d| d.mac) {
            push(V::Mac, at("/dt/mac"), format!("{} {n} {mac}", V::Mac.name()));
        }
    }
    if let Some(mtu) = i.mtu {
        push(V::Mtu, at("/mtu"), format!("{} {n} {mtu}", V::Mtu.name()));
    }
    if let Some(ch) = &i.channels {
        for (k, v) in [("combined", ch.combined), ("rx", ch.rx), ("tx", ch.tx)] {
            if let Some(v) = v {
                push(V::Channels, at("/channels").keyed(2), format!("{} {n} {k} {v}", V::Channels.name()));
            }
        }
    }
    if let Some(r) = &i.rings {
        for (k, v) in [("rx", r.rx), ("tx", r.tx)] {
            if let Some(v) = v {
                push(V::Rings, at("/rings").keyed(2), format!("{} {n} {k} {v}", V::Rings.name()));
            }
        }
    }
    for (k, v) in &i.offloads {
        push(V::Offload, at("/offloads").keyed(2), format!("{} {n} {k} {}", V::Offload.name(), v.as_str()));
    }
    // Header split needs rx-gro-hw on first (mlx5 SHAMPO): after the offloads.
    let mut split = |line: String| {
        let mut s = Step::new(V::Rings, at("/zero_copy_rx"), line);
        s.phase = Phase::HeaderSplit;
        out.push(s);
    };
    if let Some(z) = &i.zero_copy_rx {
        if z.tcp_data_split {
            split(format!("{} {n} tcp-data-split on", V::Rings.name()));
        }
        if let Some(len) = z.rx_buf_len {
            split(format!("{} {n} rx-buf-len {len}", V::Rings.name()));
        }
    }
    let mut push = |verb: Verb, origin: Origin, line: String| out.push(Step::new(verb, origin, line));
    for (k, v) in &i.coalesce {
        // ethtool -C takes adaptive-rx/adaptive-tx as on/off (board: 1/0).
        let v =
            if k.starts_with("adaptive-") { (if *v == 0 { "off" } else { "on" }).to_string() } else { v.to_string() };
        push(V::Coalesce, at("/coalesce").keyed(2), format!("{} {n} {k} {v}", V::Coalesce.name()));
    }
    if let Some(p) = i.ptp {
        if p.as_str() == "off" {
            push(V::Ptp, at("/ptp"), format!("{} {n} off", V::Ptp.name()));
        }
    }
    for (q, m) in queue_masks(&i.rps, i.queues.rx, nr_cpus) {
        push(V::Rps, at("/rps"), Line::new(V::Rps, n).num("rx-", q).word(&m).0);
    }
    if let Some(cnt) = i.rfs_flow_cnt {
        // what the kernel keeps (rounded up to a power of two, warned at validation)
        let cnt = zynq_net_model::limits::kernel_flow_entries(cnt).unwrap_or(cnt);
        for q in 0..i.queues.rx {
            push(V::Rfs, at("/rfs_flow_cnt"), Line::new(V::Rfs, n).num("rx-", q).num("", cnt).0);
        }
    }
    // One TX queue: the kernel refuses xps_cpus (net-sysfs.c, -ENOENT unless
    // netif_is_multiqueue; warned at validation), so no step.
    if i.queues.tx > 1 {
        for (q, m) in queue_masks(&i.xps, i.queues.tx, nr_cpus) {
            push(V::Xps, at("/xps"), Line::new(V::Xps, n).num("tx-", q).word(&m).0);
        }
    }
    if let Some(z) = &i.zero_copy_rx {
        // RSS over the queues below the zero-copy queue only (iou-zcrx.rst).
        if z.queue > 0 {
            push(V::Rss, at("/zero_copy_rx"), format!("{} {n} equal {}", V::Rss.name(), z.queue));
        }
        push(
            V::Ntuple,
            at("/zero_copy_rx"),
            format!(
                "{} {n} flow-type {} dst-port {} action {}",
                V::Ntuple.name(),
                z.flow.flow_type.as_str(),
                z.flow.dst_port,
                z.queue
            ),
        );
    }
    for ia in &i.irq_affinity {
        let line = Line::new(V::Irq, n).word(ia.pattern.as_str()).word(&ia.cpus.kernel_bitmap(nr_cpus));
        push(V::Irq, at("/irq_affinity"), line.0);
    }
    if let Some(q) = &i.qdisc {
        push(V::Qdisc, at("/qdisc"), format!("{} {n} multiq", V::Qdisc.name()));
        for (j, f) in q.filters.iter().enumerate() {
            let m = match f.match_ {
                MatchField::Src => "src",
                MatchField::Dst => "dst",
            };
            push(V::Filter, at("/qdisc"), format!("{} {n} {} {m} {} {}", V::Filter.name(), j + 1, f.prefix, f.queue));
        }
    }
}

/// Every sysctl the board sets, sorted by key: the `system.sysctl` map plus
/// the dedicated keys (RFS table, forwarding, conntrack).
pub fn sysctls(b: &HiBoard) -> Vec<(String, String)> {
    sysctl_entries(b).into_iter().map(|(k, v, _)| (k, v)).collect()
}

/// [`sysctls`], each with the setting it comes from.
fn sysctl_entries(b: &HiBoard) -> Vec<(String, String, Origin)> {
    let mut v: Vec<(String, String, Origin)> = b
        .system
        .sysctl
        .iter()
        .map(|(k, v)| {
            let v = match v {
                SysctlValue::Int(i) => i.to_string(),
                SysctlValue::Text(t) => t.clone(),
            };
            (k.clone(), v, Origin::board("/system/sysctl").keyed(1))
        })
        .collect();
    if let Some(n) = b.system.rfs_sock_flow_entries {
        // the value the kernel keeps (rounded, warned at validation): the
        // applier compares sysctls exactly, so 30000 would "fail" every boot
        let n = zynq_net_model::limits::kernel_flow_entries(n).unwrap_or(n);
        v.push((SYSCTL_RFS_TABLE.into(), n.to_string(), Origin::board("/system/rfs_sock_flow_entries")));
    }
    if let Some(f) = b.system.ip_forward {
        v.push((SYSCTL_IP_FORWARD.into(), u8::from(f).to_string(), Origin::board("/system/ip_forward")));
    }
    let asf_conntrack = b.fastpath.asf.as_ref().and_then(|a| a.conntrack_max);
    match (b.system.conntrack_max, asf_conntrack) {
        (Some(n), _) => v.push((SYSCTL_CONNTRACK_MAX.into(), n.to_string(), Origin::board("/system/conntrack_max"))),
        (None, Some(n)) => {
            v.push((SYSCTL_CONNTRACK_MAX.into(), n.to_string(), Origin::board("/fastpath/asf/conntrack_max")));
        }
        (None, None) => {}
    }
    v.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    v
}

/// All plan steps in execution order.
pub fn steps(b: &HiBoard) -> Vec<Step> {
    let mut out = Vec::new();
    // Freescale ASF (validation: only with kernel qoriq-sdk): modules
    // first, UDP timeout last.
    let asf = b.fastpath.asf.as_ref();
    let asf_origin = Origin::board("/fastpath/asf");
    if let Some(a) = asf {
        for m in &a.modules {
            out.push(Step::new(Verb::Module, asf_origin, format!("{} {m}", Verb::Module.name())));
        }
    }
    for (idx, i) in b.interfaces.iter().enumerate() {
        iface_steps(idx, i, b.board.cpus, &mut out);
    }
    if let Some(t) = asf.and_then(|a| a.udp_timeout_s) {
        out.push(Step::new(Verb::Asf, asf_origin, format!("{} udp-timeout {t}", Verb::Asf.name())));
    }
    for (k, v, origin) in sysctl_entries(b) {
        // Multi-word values (tcp_rmem) become several fields, one space apart.
        let v = v.split_whitespace().collect::<Vec<_>>().join(" ");
        out.push(Step::new(Verb::Sysctl, origin, format!("{} {k} {v}", Verb::Sysctl.name())));
    }
    // Stable sort: within a phase, interface order then board order.
    out.sort_by_key(|s| s.phase);
    out
}

/// IRQ name patterns the board pins (for the irqbalance policy; rule `irqbalance-running`).
pub fn pinned_irq_patterns(b: &HiBoard) -> Vec<String> {
    let mut v: Vec<String> =
        b.interfaces.iter().flat_map(|i| i.irq_affinity.iter().map(|a| a.pattern.as_str().to_string())).collect();
    v.sort();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `of-node` is written for a `dt.path` of up to 255 bytes (the
    /// applier's `is_dtpath` limit), exactly 255 included; 256 is left out,
    /// and so is a path with a `.` or `..` component (the schema's pattern
    /// lets them through; the applier's `is_dtpath` refuses them).
    #[test]
    fn ident_of_node_up_to_255_bytes() {
        let text = crate::testutil::repo_text("meta-zynq-net/boards/zcu102.yml");
        let seg = |n: usize| format!("/{}", "a".repeat(n - 1));
        let long = |len: usize| format!("{}{}{}{}", seg(64), seg(64), seg(64), seg(len - 192));
        for (path, written) in [
            (long(255), true),
            (long(256), false),
            ("/axi/../ethernet@a0000000".to_string(), false),
            ("/axi/./ethernet@a0000000".to_string(), false),
            ("/axi/ethernet@a0000000".to_string(), true),
        ] {
            let len = path.len();
            assert!(len == 255 || len == 256 || path.starts_with("/axi/"));
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

    /// Every step of every reference board and good fixture comes from a
    /// setting its board has (the pointer resolves in the YAML), names its
    /// verb first, and is about the interface its origin points into; the
    /// settings of a few steps are the ones the ablation's board diff
    /// deletes.
    #[test]
    fn every_step_comes_from_a_setting_of_its_board() {
        let mut boards: Vec<String> = ["zcu102", "zc702", "p1020rdb", "qemuarm64", "mlx5-lab"]
            .iter()
            .map(|b| format!("meta-zynq-net/boards/{b}.yml"))
            .collect();
        boards.push("tools/crates/zynq-net-cli/tests/fixtures/good/p1020rdb-asf.yml".into());
        let mut seen = std::collections::BTreeSet::new();
        let mut all = Vec::new();
        for rel in &boards {
            let text = crate::testutil::repo_text(rel);
            let (doc, _) = zynq_net_model::yaml::load(&text).expect("yaml");
            let loaded = crate::testutil::loaded(&text);
            for s in steps(&loaded) {
                let p = s.pointer();
                assert!(doc.pointer(&p).is_some(), "{rel}: `{}` from {p}, which the board has not", s.line);
                assert!(s.line.starts_with(&format!("{} ", s.verb.name())), "{rel}: {s:?}");
                if let Some(i) = s.origin.iface {
                    let name = doc.pointer(&format!("/interfaces/{i}/name")).and_then(|v| v.as_str());
                    assert_eq!(s.iface(), name, "{rel}: `{}` from {p}", s.line);
                } else {
                    assert_eq!(s.verb.row().scope, Scope::Global, "{rel}: `{}` from {p}", s.line);
                }
                seen.insert(s.verb);
                all.push((s.line.clone(), p));
            }
        }
        for (line, want) in [
            ("offload eth0 gro on", "/interfaces/0/offloads/gro"),
            ("module asf", "/fastpath/asf"),
            ("asf udp-timeout", "/fastpath/asf"),
            ("sysctl net.core.rmem_max", "/system/sysctl/net.core.rmem_max"),
        ] {
            let (got_line, got) = all.iter().find(|(l, _)| l.starts_with(line)).expect(line);
            assert_eq!(got, want, "{got_line}");
        }
        let missing: Vec<&str> = Verb::ALL.iter().filter(|v| !seen.contains(v)).map(|v| v.name()).collect();
        assert!(missing.is_empty(), "verbs no board makes (add one to a fixture): {missing:?}");
    }

    /// The pointers of each kind of origin, and the typed views of a step.
    #[test]
    fn pointers_and_fields_of_steps() {
        let step = |verb: Verb, origin: Origin, line: &str| Step::new(verb, origin, line.into());
        for (s, want) in [
            (
                step(Verb::Offload, Origin::iface(1, "/offloads").keyed(2), "offload eth1 tso off"),
                "/interfaces/1/offloads/tso",
            ),
            (step(Verb::Rps, Origin::iface(0, "/rps"), "rps eth0 rx-0 3"), "/interfaces/0/rps"),
            (step(Verb::Wait, Origin::iface(2, ""), "wait eth2 10"), "/interfaces/2"),
            (
                step(Verb::Sysctl, Origin::board("/system/sysctl").keyed(1), "sysctl net/ipv4~x 1"),
                "/system/sysctl/net~1ipv4~0x",
            ),
            (
                step(Verb::Sysctl, Origin::board("/system/ip_forward"), "sysctl net.ipv4.ip_forward 1"),
                "/system/ip_forward",
            ),
        ] {
            assert_eq!(s.pointer(), want, "{s:?}");
        }
        let s = step(Verb::Offload, Origin::iface(0, "/offloads").keyed(2), "offload eth0 tso off");
        assert_eq!((s.iface(), s.args(), s.group()), (Some("eth0"), vec!["tso", "off"], AblationGroup::Offloads));
        let s = step(
            Verb::Sysctl,
            Origin::board("/system/rfs_sock_flow_entries"),
            "sysctl net.core.rps_sock_flow_entries 4096",
        );
        assert_eq!((s.iface(), s.args(), s.group()), (None, vec![SYSCTL_RFS_TABLE, "4096"], AblationGroup::Rfs));
        assert_eq!(s.phase, Phase::Sysctl);
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
        let asf = loaded.fastpath.asf.as_ref().expect("fastpath.asf");
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
