//! Tuning plans as data for the ablation: parsing the plan text
//! (docs/plan-format.md), groups of steps, and writing a filtered plan.
//!
//! Filtering is done here rather than in the applier: the applier stays the
//! one fixed program that runs on the target, and every variant it is
//! handed is an ordinary, complete plan file.

use serde::{Deserialize, Serialize};

use crate::error::BenchError;

/// First line of a plan the applier accepts (docs/plan-format.md; the
/// version comes from the generator, zynq_net_render::plan::PLAN_VERSION).
pub const PLAN_HEADER: &str = "zynq-net-plan 2";

/// One step line of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanStep {
    /// Line number in the plan file (1-based).
    pub line_no: usize,
    /// The line as written.
    pub line: String,
}

impl PlanStep {
    /// Fields: verb first.
    pub fn fields(&self) -> Vec<&str> {
        self.line.split(' ').collect()
    }

    /// The verb.
    pub fn verb(&self) -> &str {
        self.line.split(' ').next().unwrap_or("")
    }
}

/// A parsed plan: its board name and its steps (comments dropped).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanText {
    /// `board NAME`, when present.
    pub board: Option<String>,
    /// Every step line other than `board`, in order.
    pub steps: Vec<PlanStep>,
}

impl PlanText {
    /// Parses the text of a plan.
    ///
    /// # Errors
    /// [`BenchError::Invalid`] naming `file:line` when the first
    /// non-comment line is not [`PLAN_HEADER`].
    pub fn parse(file: &str, text: &str) -> Result<PlanText, BenchError> {
        let mut header = false;
        let mut board = None;
        let mut steps = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim_end();
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            if !header {
                if line != PLAN_HEADER {
                    return Err(BenchError::Invalid(format!(
                        "{file}:{}:1: expected `{PLAN_HEADER}` as the first line of a tuning plan, found `{line}`",
                        i + 1
                    )));
                }
                header = true;
                continue;
            }
            // The end line (step count and checksum) seals the file; the
            // applier checks it. A filtered plan gets its own (write_plan).
            if line.starts_with("end ") {
                break;
            }
            if let Some(name) = line.strip_prefix("board ") {
                board = Some(name.to_string());
                continue;
            }
            steps.push(PlanStep { line_no: i + 1, line: line.to_string() });
        }
        if !header {
            return Err(BenchError::Invalid(format!("{file}: empty plan (no `{PLAN_HEADER}` line)")));
        }
        Ok(PlanText { board, steps })
    }
}

/// Writes a plan with the given steps, sealed with the end line (step count
/// and POSIX cksum, zynq_net_render::plan::seal) the applier requires.
pub fn write_plan(comment: &str, board: Option<&str>, steps: &[&PlanStep]) -> String {
    let mut s = String::new();
    for c in comment.lines() {
        s.push_str("# ");
        s.push_str(c);
        s.push('\n');
    }
    s.push_str(PLAN_HEADER);
    s.push('\n');
    if let Some(b) = board {
        s.push_str("board ");
        s.push_str(b);
        s.push('\n');
    }
    for st in steps {
        s.push_str(&st.line);
        s.push('\n');
    }
    zynq_net_render::plan::seal(&s)
}

/// Built-in groups in report order, with what they hold.
pub const BUILTIN_GROUPS: &[(&str, &str)] = &[
    ("sysctl", "sysctl steps (socket buffers, TCP), except the RFS table and the fast path's"),
    ("rings", "ethtool -G ring sizes (and header split, rx-buf-len)"),
    ("coalescing", "ethtool -C interrupt coalescing"),
    ("offloads", "ethtool -K offloads (GRO, TSO, GSO, ...)"),
    ("channels", "ethtool -L channels, RSS indirection, ntuple rules"),
    ("ptp", "PTP timestamping off"),
    ("rps", "RPS CPU masks"),
    ("rfs", "RFS flow counts and net.core.rps_sock_flow_entries"),
    ("xps", "XPS CPU masks"),
    ("irq", "IRQ affinity"),
    ("qdisc", "multiq root qdisc and skbedit filters"),
    ("fastpath", "fast path: ASF modules and timeout, conntrack table size"),
    ("other", "steps of verbs this tool does not know (newer plan)"),
];

/// The built-in group of a step; `None` for the base every variant keeps
/// (`wait`, `mac`, `mtu`, `net.ipv4.ip_forward`): without them the DUT
/// would not be the same network, not a less tuned one.
pub fn builtin_group(step: &PlanStep) -> Option<&'static str> {
    let f = step.fields();
    Some(match f[0] {
        "wait" | "mac" | "mtu" => return None,
        "sysctl" => match f.get(1).copied().unwrap_or("") {
            "net.ipv4.ip_forward" => return None,
            "net.core.rps_sock_flow_entries" => "rfs",
            "net.netfilter.nf_conntrack_max" => "fastpath",
            _ => "sysctl",
        },
        "rings" => "rings",
        "coalesce" => "coalescing",
        "offload" => "offloads",
        "channels" | "rss" | "ntuple" => "channels",
        "ptp" => "ptp",
        "rps" => "rps",
        "rfs" => "rfs",
        "xps" => "xps",
        "irq" => "irq",
        "qdisc" | "filter" => "qdisc",
        "module" | "asf" => "fastpath",
        _ => "other",
    })
}

/// Shell-style match of one field: `*` any run, `?` one character.
pub fn glob(pattern: &str, s: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), s.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(sp) = star {
            pi = sp + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

/// How a group picks its steps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Selection {
    /// A built-in group by name.
    Builtin {
        /// Group name.
        name: String,
    },
    /// Steps matching any of `VERB[:FIELD...]` selectors (globs per field).
    Selectors {
        /// The selectors, `:`-separated fields.
        selectors: Vec<String>,
    },
}

/// A named subset of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    /// Name (`offloads`, or a user's `NAME=...`).
    pub name: String,
    /// How steps were picked.
    pub selection: Selection,
    /// Indices into [`PlanText::steps`].
    pub steps: Vec<usize>,
}

fn valid_group_name(n: &str) -> bool {
    !n.is_empty() && n.len() <= 32 && n.chars().all(|c| c.is_ascii_alphanumeric() || "_-".contains(c))
}

fn selector_matches(sel: &str, step: &PlanStep) -> bool {
    let f = step.fields();
    let parts: Vec<&str> = sel.split(':').collect();
    parts.len() <= f.len() && parts.iter().zip(&f).all(|(p, x)| glob(p, x))
}

/// Resolves `--groups` items against a plan: built-in names, or
/// `NAME=SEL+SEL...` with `SEL` = `VERB[:FIELD[:FIELD...]]` (globs). With
/// no items: every built-in group that has steps in the plan. Steps of the
/// base (see [`builtin_group`]) are never in a built-in group; a selector
/// may pick them on purpose.
///
/// # Errors
/// Every bad item at once: unknown names, empty groups, bad names or
/// selectors, duplicates.
pub fn resolve(plan: &PlanText, items: &[String]) -> Result<Vec<Group>, BenchError> {
    let builtin = |name: &str| -> Vec<usize> {
        plan.steps.iter().enumerate().filter(|(_, s)| builtin_group(s) == Some(name)).map(|(i, _)| i).collect()
    };
    if items.is_empty() {
        return Ok(BUILTIN_GROUPS
            .iter()
            .filter_map(|(name, _)| {
                let steps = builtin(name);
                (!steps.is_empty()).then(|| Group {
                    name: (*name).to_string(),
                    selection: Selection::Builtin { name: (*name).to_string() },
                    steps,
                })
            })
            .collect());
    }
    let mut errors = Vec::new();
    let mut out: Vec<Group> = Vec::new();
    let names: Vec<&str> = BUILTIN_GROUPS.iter().map(|(n, _)| *n).collect();
    for item in items {
        let group = if let Some((name, sels)) = item.split_once('=') {
            let selectors: Vec<String> = sels.split('+').map(str::to_string).collect();
            if !valid_group_name(name) {
                errors.push(format!("--groups `{item}`: group name `{name}`: 1-32 characters of [A-Za-z0-9_-]"));
                continue;
            }
            if selectors.iter().any(|s| s.is_empty() || s.split(':').any(str::is_empty)) {
                errors.push(format!(
                    "--groups `{item}`: empty selector; write NAME=VERB[:FIELD...][+VERB...], e.g. `tcpwin=sysctl:net.ipv4.tcp_*mem`"
                ));
                continue;
            }
            let steps: Vec<usize> = plan
                .steps
                .iter()
                .enumerate()
                .filter(|(_, s)| selectors.iter().any(|sel| selector_matches(sel, s)))
                .map(|(i, _)| i)
                .collect();
            Group { name: name.to_string(), selection: Selection::Selectors { selectors }, steps }
        } else if names.contains(&item.as_str()) {
            Group { name: item.clone(), selection: Selection::Builtin { name: item.clone() }, steps: builtin(item) }
        } else {
            errors.push(format!(
                "--groups: unknown group `{item}`; built-in groups: {}; or define one as NAME=VERB[:FIELD...]",
                names.join(", ")
            ));
            continue;
        };
        if group.steps.is_empty() {
            errors.push(format!("--groups `{item}`: no step of the plan is in this group (nothing to leave out)"));
            continue;
        }
        if out.iter().any(|g| g.name == group.name) {
            errors.push(format!("--groups: group `{}` given twice", group.name));
            continue;
        }
        out.push(group);
    }
    if !errors.is_empty() {
        return Err(BenchError::Invalid(errors.join("\n")));
    }
    if out.is_empty() {
        return Err(BenchError::Invalid("--groups: no group to ablate".into()));
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const PLAN: &str = "# generated\nzynq-net-plan 2\nboard lab\nwait eth0 10\nmtu eth0 1500\n\
offload eth0 tso off\noffload eth0 gso off\nxps eth0 tx-0 00000001\n\
sysctl net.core.rps_sock_flow_entries 32768\nsysctl net.ipv4.ip_forward 1\n\
sysctl net.ipv4.tcp_notsent_lowat 16384\n";

    #[test]
    fn parse_and_builtin_groups() {
        let p = PlanText::parse("x.plan", PLAN).unwrap();
        assert_eq!(p.board.as_deref(), Some("lab"));
        assert_eq!(p.steps.len(), 8);
        assert_eq!(p.steps[0].line_no, 4);
        let g = resolve(&p, &[]).unwrap();
        let names: Vec<&str> = g.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, ["sysctl", "offloads", "rfs", "xps"]);
        let sysctl = &g[0];
        assert_eq!(sysctl.steps.len(), 1, "ip_forward is base, the RFS table is rfs");
        assert!(PlanText::parse("y", "board x\n").is_err());
    }

    #[test]
    fn custom_groups_and_errors() {
        let p = PlanText::parse("x.plan", PLAN).unwrap();
        let g = resolve(&p, &["seg=offload:eth0:?so".into(), "xps".into()]).unwrap();
        assert_eq!(g[0].steps.len(), 2);
        let e =
            resolve(&p, &["bogus".into(), "rings".into(), "a b=offload".into(), "x=".into()]).unwrap_err().to_string();
        assert!(e.contains("unknown group `bogus`"), "{e}");
        assert!(e.contains("`rings`: no step"), "{e}");
        assert!(e.contains("group name `a b`"), "{e}");
        assert!(e.contains("empty selector"), "{e}");
    }

    #[test]
    fn filtered_plan_is_a_plan() {
        let p = PlanText::parse("x.plan", PLAN).unwrap();
        let kept: Vec<&PlanStep> = p.steps.iter().filter(|s| s.verb() != "offload").collect();
        let text = write_plan("variant without offloads", p.board.as_deref(), &kept);
        // Sealed as the applier requires: `board` and 6 steps, cksum of the body.
        let (body, end) = text.trim_end().rsplit_once('\n').unwrap();
        assert!(end.starts_with("end 7 "), "{end}");
        assert_eq!(end, zynq_net_render::plan::seal(body).trim_end().rsplit_once('\n').unwrap().1);
        let back = PlanText::parse("v.plan", &text).unwrap();
        assert_eq!(back.steps.len(), 6);
        assert!(back.steps.iter().all(|s| s.verb() != "offload"));
        assert!(text.starts_with("# variant without offloads\nzynq-net-plan 2\nboard lab\n"));
    }

    #[test]
    fn globs() {
        assert!(glob("tcp_*mem", "tcp_rmem"));
        assert!(glob("*", ""));
        assert!(glob("eth?", "eth1"));
        assert!(!glob("eth?", "eth10"));
        assert!(glob("a*b*c", "aXXbYc"));
    }
}
