//! The plan's verbs as a type: [`Phase`] (when a step runs) and [`Verb`]
//! (the one table of what each verb is: its name in the plan, its phase,
//! its ablation group, whether it names an interface, and the journal
//! ORDER the applier saves its old values under). docs/plan-format.md
//! describes the same verbs; `tests` below hold the applier's verb list
//! and journal numbers (assets/zynq-net-apply.sh) and that document's
//! verb table to this one.
//!
//! Adding a verb: one row in [`verbs!`] below, its steps in plan.rs, one
//! arm in the bench's ablation (`ablate::report::applier_target`, an
//! exhaustive match), one block in the applier.

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

/// Whether a verb's second field is an interface name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `VERB IFACE FIELD...`: the applier's hot-plug filter keeps the step
    /// for IFACE only, and skips it when IFACE's `ident` failed.
    Iface,
    /// `VERB FIELD...`: not about one interface.
    Global,
}

/// The ablation's built-in groups (`zynq-net bench ablate`, docs/bench.md),
/// in report order. [`AblationGroup::Base`] is what every variant keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum AblationGroup {
    /// `wait`, `ident`, `mac`, `mtu`, `net.ipv4.ip_forward`: without them
    /// the DUT would not be the same network, not a less tuned one
    /// (`ident` is the guard that the interface is the board's NIC).
    Base,
    /// `sysctl` steps other than the ones below.
    Sysctl,
    /// `rings` (with header split).
    Rings,
    /// `coalesce`.
    Coalescing,
    /// `offload`.
    Offloads,
    /// `channels`, `rss`, `ntuple`.
    Channels,
    /// `ptp`.
    Ptp,
    /// `rps`.
    Rps,
    /// `rfs` and [`SYSCTL_RFS_TABLE`].
    Rfs,
    /// `xps`.
    Xps,
    /// `irq`.
    Irq,
    /// `qdisc`, `filter`.
    Qdisc,
    /// `module`, `asf` and [`SYSCTL_CONNTRACK_MAX`].
    Fastpath,
}

impl AblationGroup {
    /// The groups an ablation can leave out, in report order.
    pub const TUNING: [AblationGroup; 12] = [
        AblationGroup::Sysctl,
        AblationGroup::Rings,
        AblationGroup::Coalescing,
        AblationGroup::Offloads,
        AblationGroup::Channels,
        AblationGroup::Ptp,
        AblationGroup::Rps,
        AblationGroup::Rfs,
        AblationGroup::Xps,
        AblationGroup::Irq,
        AblationGroup::Qdisc,
        AblationGroup::Fastpath,
    ];

    /// The group's name (`--groups NAME`, `without-NAME`); `base` for [`AblationGroup::Base`].
    pub const fn name(self) -> &'static str {
        match self {
            AblationGroup::Base => "base",
            AblationGroup::Sysctl => "sysctl",
            AblationGroup::Rings => "rings",
            AblationGroup::Coalescing => "coalescing",
            AblationGroup::Offloads => "offloads",
            AblationGroup::Channels => "channels",
            AblationGroup::Ptp => "ptp",
            AblationGroup::Rps => "rps",
            AblationGroup::Rfs => "rfs",
            AblationGroup::Xps => "xps",
            AblationGroup::Irq => "irq",
            AblationGroup::Qdisc => "qdisc",
            AblationGroup::Fastpath => "fastpath",
        }
    }

    /// What the group holds, in words (the ablation's report).
    pub const fn about(self) -> &'static str {
        match self {
            AblationGroup::Base => "wait, ident, mac, mtu and net.ipv4.ip_forward: kept by every variant",
            AblationGroup::Sysctl => "sysctl steps (socket buffers, TCP), except the RFS table and the fast path's",
            AblationGroup::Rings => "ethtool -G ring sizes (and header split, rx-buf-len)",
            AblationGroup::Coalescing => "ethtool -C interrupt coalescing",
            AblationGroup::Offloads => "ethtool -K offloads (GRO, TSO, GSO, ...)",
            AblationGroup::Channels => "ethtool -L channels, RSS indirection, ntuple rules",
            AblationGroup::Ptp => "PTP timestamping off",
            AblationGroup::Rps => "RPS CPU masks",
            AblationGroup::Rfs => "RFS flow counts and net.core.rps_sock_flow_entries",
            AblationGroup::Xps => "XPS CPU masks",
            AblationGroup::Irq => "IRQ affinity",
            AblationGroup::Qdisc => "multiq root qdisc and skbedit filters",
            AblationGroup::Fastpath => "fast path: ASF modules and timeout, conntrack table size",
        }
    }
}

/// The sysctl of the board's `system.rfs_sock_flow_entries` (group `rfs`).
pub const SYSCTL_RFS_TABLE: &str = "net.core.rps_sock_flow_entries";
/// The sysctl of the board's `system.ip_forward` (group `base`).
pub const SYSCTL_IP_FORWARD: &str = "net.ipv4.ip_forward";
/// The sysctl of the board's `system.conntrack_max` or
/// `fastpath.asf.conntrack_max` (group `fastpath`).
pub const SYSCTL_CONNTRACK_MAX: &str = "net.netfilter.nf_conntrack_max";

/// One row of the verb table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerbRow {
    /// The verb as the plan writes it (first field of the line).
    pub name: &'static str,
    /// When its steps run (`rings`' header-split steps run later, in
    /// [`Phase::HeaderSplit`]: plan.rs says so where it makes them).
    pub phase: Phase,
    /// Its ablation group (`sysctl` by key: [`Verb::group`]).
    pub group: AblationGroup,
    /// Whether its second field is an interface.
    pub scope: Scope,
    /// The journal ORDER the applier saves the old value under (`save NN`,
    /// `file_knob NN`, `ETH_O=NN`); `None`: it saves nothing and `revert`
    /// leaves it alone.
    pub journal: Option<u8>,
}

macro_rules! verbs {
    ($($(#[$doc:meta])* $verb:ident = $name:literal, $phase:ident, $group:ident, $scope:ident, $journal:expr;)*) => {
        /// A plan verb (docs/plan-format.md). Its properties are one row
        /// of the table in verb.rs ([`Verb::row`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Verb {
            $($(#[$doc])* $verb,)*
        }

        impl Verb {
            /// Every verb, in table order.
            pub const ALL: &'static [Verb] = &[$(Verb::$verb),*];

            /// The verb's row of the table.
            pub const fn row(self) -> VerbRow {
                match self {
                    $(Verb::$verb => VerbRow {
                        name: $name,
                        phase: Phase::$phase,
                        group: AblationGroup::$group,
                        scope: Scope::$scope,
                        journal: $journal,
                    },)*
                }
            }
        }
    };
}

verbs! {
    // verb     = name,       phase,        group,      scope,  journal ORDER
    /// `wait IFACE SECONDS`.
    Wait        = "wait",     Prepare,      Base,       Iface,  None;
    /// `ident IFACE driver NAME [of-node PATH]`.
    Ident       = "ident",    Identity,     Base,       Iface,  None;
    /// `mac IFACE ADDR` (AXI/XXV ports).
    Mac         = "mac",      Link,         Base,       Iface,  Some(1);
    /// `mtu IFACE BYTES`.
    Mtu         = "mtu",      Link,         Base,       Iface,  Some(1);
    /// `channels IFACE KIND COUNT` (`ethtool -L`).
    Channels    = "channels", Channels,     Channels,   Iface,  Some(2);
    /// `rings IFACE PARAM VALUE` (`ethtool -G`).
    Rings       = "rings",    Rings,        Rings,      Iface,  Some(3);
    /// `offload IFACE FEATURE on|off` (`ethtool -K`).
    Offload     = "offload",  Offloads,     Offloads,   Iface,  Some(4);
    /// `coalesce IFACE PARAM VALUE` (`ethtool -C`).
    Coalesce    = "coalesce", Coalesce,     Coalescing, Iface,  Some(5);
    /// `ptp IFACE off`.
    Ptp         = "ptp",      Ptp,          Ptp,        Iface,  Some(6);
    /// `rps IFACE rx-N MASK`.
    Rps         = "rps",      Rps,          Rps,        Iface,  Some(7);
    /// `rfs IFACE rx-N COUNT`.
    Rfs         = "rfs",      Rfs,          Rfs,        Iface,  Some(8);
    /// `xps IFACE tx-N MASK`.
    Xps         = "xps",      Xps,          Xps,        Iface,  Some(9);
    /// `rss IFACE equal N` (`ethtool -X`).
    Rss         = "rss",      FlowSteering, Channels,   Iface,  Some(10);
    /// `ntuple IFACE flow-type ...` (`ethtool -N`).
    Ntuple      = "ntuple",   FlowSteering, Channels,   Iface,  Some(10);
    /// `irq IFACE PATTERN MASK`.
    Irq         = "irq",      IrqAffinity,  Irq,        Iface,  Some(11);
    /// `qdisc IFACE multiq`.
    Qdisc       = "qdisc",    Qdisc,        Qdisc,      Iface,  Some(12);
    /// `filter IFACE PRIO MATCH ADDR QUEUE`.
    Filter      = "filter",   Filter,       Qdisc,      Iface,  Some(13);
    /// `module NAME` (Freescale ASF).
    Module      = "module",   Prepare,      Fastpath,   Global, None;
    /// `asf udp-timeout SECONDS` (Freescale ASF).
    Asf         = "asf",      AsfTimeout,   Fastpath,   Global, Some(15);
    /// `sysctl KEY VALUE...`.
    Sysctl      = "sysctl",   Sysctl,       Sysctl,     Global, Some(14);
}

impl Verb {
    /// The verb as the plan writes it.
    pub const fn name(self) -> &'static str {
        self.row().name
    }

    /// The verb a plan line's first field names; `None` for a verb this
    /// generator does not know (a newer plan's).
    pub fn from_name(name: &str) -> Option<Verb> {
        Verb::ALL.iter().copied().find(|v| v.name() == name)
    }

    /// The ablation group of a step of this verb whose first field after
    /// the verb is `first` (the sysctl KEY: three keys of dedicated board
    /// settings have their own group; see [`AblationGroup`]).
    pub fn group(self, first: Option<&str>) -> AblationGroup {
        match (self, first) {
            (Verb::Sysctl, Some(SYSCTL_IP_FORWARD)) => AblationGroup::Base,
            (Verb::Sysctl, Some(SYSCTL_RFS_TABLE)) => AblationGroup::Rfs,
            (Verb::Sysctl, Some(SYSCTL_CONNTRACK_MAX)) => AblationGroup::Fastpath,
            _ => self.row().group,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The verbs of the applier's `is_verb` list, in its order.
    fn applier_verbs(applier: &str) -> Vec<&str> {
        let start = applier.find("\nis_verb() {").expect("the applier defines is_verb");
        let body = &applier[start..];
        let case = body.lines().find(|l| l.trim_end().ends_with(") return 0 ;;")).expect("is_verb's case arm");
        case.trim().split(')').next().unwrap_or("").split('|').collect()
    }

    /// The journal ORDER the applier saves each verb under: `save NN VERB`
    /// and `file_knob NN VERB` calls, `v_VERB_eth` blocks (`ETH_O=NN`), and
    /// `link_knob VERB` callers (with link_knob's own `save NN`).
    fn applier_journal(applier: &str) -> BTreeMap<String, Vec<u8>> {
        let mut out: BTreeMap<String, Vec<u8>> = BTreeMap::new();
        let mut add = |verb: &str, nn: &str| {
            let n: u8 = nn.parse().unwrap_or_else(|_| panic!("journal ORDER `{nn}` of `{verb}` is not a number"));
            let v = out.entry(verb.trim_matches('"').to_string()).or_default();
            if !v.contains(&n) {
                v.push(n);
            }
        };
        let mut link_order = None;
        for line in applier.lines() {
            let code = line.split(" #").next().unwrap_or("").trim();
            if code.starts_with('#') {
                continue;
            }
            for word in ["save ", "file_knob "] {
                for (at, _) in code.match_indices(word) {
                    let before = code[..at].chars().last();
                    if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                        continue;
                    }
                    let mut f = code[at + word.len()..].split_whitespace();
                    if let (Some(nn), Some(verb)) = (f.next(), f.next()) {
                        if nn.len() == 2 && nn.bytes().all(|b| b.is_ascii_digit()) {
                            if verb == "\"$lkk_v\"" {
                                link_order = Some(nn.to_string());
                            } else {
                                add(verb, nn);
                            }
                        }
                    }
                }
            }
            if let Some(rest) = code.strip_prefix("v_") {
                if let Some((verb, tail)) = rest.split_once("_eth() {") {
                    let nn = tail.split("ETH_O=").nth(1).and_then(|t| t.split_whitespace().next());
                    add(verb, nn.unwrap_or_else(|| panic!("v_{verb}_eth sets no ETH_O")));
                }
            }
        }
        let link = link_order.expect("link_knob saves under one ORDER");
        for line in applier.lines() {
            if let Some((_, rest)) = line.split_once("{ link_knob ") {
                add(rest.split_whitespace().next().unwrap_or(""), &link);
            }
        }
        out
    }

    /// The applier knows every verb of the table and no other (`board`,
    /// the plan's name line, aside), and saves each under the table's
    /// journal ORDER: a verb added to the table but not to the applier
    /// fails here, named.
    #[test]
    fn the_applier_holds_to_the_verb_table() {
        let applier = crate::APPLIER;
        let listed = applier_verbs(applier);
        let mut problems = Vec::new();
        for v in Verb::ALL {
            if !listed.contains(&v.name()) {
                problems.push(format!("verb `{}` is in the table but not in the applier's is_verb", v.name()));
            }
        }
        for name in &listed {
            if *name != "board" && Verb::from_name(name).is_none() {
                problems.push(format!("the applier's is_verb names `{name}`, which the verb table (verb.rs) has not"));
            }
        }
        let journal = applier_journal(applier);
        for v in Verb::ALL {
            let want: Vec<u8> = v.row().journal.into_iter().collect();
            let got = journal.get(v.name()).cloned().unwrap_or_default();
            if got != want {
                problems.push(format!(
                    "verb `{}`: the applier saves it under journal ORDER {got:02?}, the table says {want:02?}",
                    v.name()
                ));
            }
        }
        // A global verb's first field is no interface: the applier must not
        // skip it as a step of an interface whose `ident` failed.
        let exempt = applier
            .lines()
            .find(|l| l.trim_start().starts_with("case $rpn_verb in board|sysctl|"))
            .and_then(|l| l.split(" in ").nth(1))
            .and_then(|l| l.split(')').next())
            .expect("read_plan's ident-skip exemptions");
        for v in Verb::ALL.iter().filter(|v| v.row().scope == Scope::Global) {
            if !exempt.split('|').any(|x| x == v.name()) {
                problems.push(format!(
                    "global verb `{}` is not among read_plan's ident-skip exemptions ({exempt})",
                    v.name()
                ));
            }
        }
        for name in journal.keys() {
            if Verb::from_name(name).is_none() {
                problems.push(format!("the applier journals `{name}`, which the verb table has not"));
            }
        }
        assert!(problems.is_empty(), "assets/zynq-net-apply.sh vs the verb table:\n{}", problems.join("\n"));
    }

    /// The readers of the applier find what they look for (so the test
    /// above can fail): a verb missing from is_verb and a changed ORDER.
    #[test]
    fn the_applier_readers_see_verbs_and_orders() {
        let applier = crate::APPLIER;
        assert_eq!(applier_verbs(applier).len(), Verb::ALL.len() + 1);
        // asf taken out of the list, wherever it stands in it
        let listed = applier_verbs(applier);
        let kept: Vec<&str> = listed.iter().copied().filter(|v| *v != "asf").collect();
        let fewer = applier.replacen(&format!("{})", listed.join("|")), &format!("{})", kept.join("|")), 1);
        assert_ne!(fewer, applier);
        assert!(!applier_verbs(&fewer).contains(&"asf"));
        let j = applier_journal(applier);
        assert_eq!(j.get("mtu"), Some(&vec![1]));
        assert_eq!(j.get("coalesce"), Some(&vec![5]));
        assert_eq!(j.get("ntuple"), Some(&vec![10]));
        assert_eq!(j.get("irq"), Some(&vec![11]));
        assert_eq!(j.get("wait"), None);
        let moved = applier.replacen("file_knob 09 xps", "file_knob 16 xps", 1);
        assert_eq!(applier_journal(&moved).get("xps"), Some(&vec![16]));
        let moved = applier.replacen("ETH_O=03", "ETH_O=07", 1);
        assert_eq!(applier_journal(&moved).get("rings"), Some(&vec![7]));
    }

    /// The ablation groups' names are the ones docs/bench.md gives (`--groups
    /// NAME`, in report order) and each says in its own words what it
    /// holds (the ablation report's legend): the bench crate's commands
    /// print them, which render's own tests would otherwise never read.
    #[test]
    fn ablation_groups_are_named_as_documented() {
        let doc = crate::testutil::repo_text("docs/bench.md");
        let para = doc.split("**The plan and its groups.**").nth(1).expect("the groups paragraph");
        let para = para.split("\n\n").next().expect("its end");
        let mut at = 0;
        for g in AblationGroup::TUNING {
            let pos = para[at..].find(&format!("`{}`", g.name())).map(|p| p + at);
            at = pos.unwrap_or_else(|| panic!("`{}` not in docs/bench.md's groups, in order:\n{para}", g.name()));
        }
        assert_eq!(AblationGroup::Base.name(), "base");
        let abouts: std::collections::BTreeSet<&str> =
            AblationGroup::TUNING.iter().chain([&AblationGroup::Base]).map(|g| g.about()).collect();
        assert_eq!(abouts.len(), AblationGroup::TUNING.len() + 1, "one legend per group: {abouts:?}");
        assert!(abouts.iter().all(|a| a.len() > 8), "{abouts:?}");
        assert!(AblationGroup::Base.about().starts_with("wait, ident, mac, mtu"));
    }

    /// docs/plan-format.md's verb table has one row per verb of this table
    /// (and `board`), in the same order.
    #[test]
    fn the_plan_format_doc_lists_every_verb() {
        let doc = crate::testutil::repo_text("docs/plan-format.md");
        let rows: Vec<&str> = doc
            .lines()
            .skip_while(|l| !l.starts_with("| verb |"))
            .skip(2)
            .take_while(|l| l.starts_with('|'))
            .map(|l| l.split('`').nth(1).unwrap_or(""))
            .collect();
        let mut want = vec!["board"];
        want.extend(Verb::ALL.iter().map(|v| v.name()));
        assert_eq!(rows, want, "docs/plan-format.md's verb table vs the verb table (verb.rs)");
    }

    #[test]
    fn names_are_unique_and_round_trip() {
        for v in Verb::ALL {
            assert_eq!(Verb::from_name(v.name()), Some(*v));
        }
        assert_eq!(Verb::from_name("board"), None);
        assert_eq!(Verb::from_name("frobnicate"), None);
        assert_eq!(Verb::Sysctl.group(Some(SYSCTL_IP_FORWARD)), AblationGroup::Base);
        assert_eq!(Verb::Sysctl.group(Some(SYSCTL_RFS_TABLE)), AblationGroup::Rfs);
        assert_eq!(Verb::Sysctl.group(Some(SYSCTL_CONNTRACK_MAX)), AblationGroup::Fastpath);
        assert_eq!(Verb::Sysctl.group(Some("net.core.rmem_max")), AblationGroup::Sysctl);
        assert_eq!(Verb::Offload.group(Some(SYSCTL_RFS_TABLE)), AblationGroup::Offloads);
        assert!(AblationGroup::TUNING.windows(2).all(|w| w[0] < w[1]));
    }
}
