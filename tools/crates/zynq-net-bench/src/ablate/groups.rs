//! Tuning plans as data for the ablation: parsing the plan text
//! (docs/plan-format.md), groups of steps, and writing a filtered plan.
//!
//! Filtering is done here rather than in the applier: the applier stays the
//! one fixed program that runs on the target, and every variant it is
//! handed is an ordinary, complete plan file.

use serde::{Deserialize, Serialize};
use zynq_net_render::verb::{AblationGroup, Verb};

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

    /// The verb as written.
    pub fn verb(&self) -> &str {
        self.line.split(' ').next().unwrap_or("")
    }

    /// The verb, typed; `None` for a verb the verb table has not (a newer plan's).
    pub fn known_verb(&self) -> Option<Verb> {
        Verb::from_name(self.verb())
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

/// The group of steps whose verb this tool does not know (a newer plan's).
pub const OTHER_GROUP: &str = "other";

/// Built-in groups in report order, with what they hold: the verb table's
/// tuning groups (zynq_net_render::verb::AblationGroup) and [`OTHER_GROUP`].
pub const BUILTIN_GROUPS: [(&str, &str); AblationGroup::TUNING.len() + 1] = {
    let mut out =
        [(OTHER_GROUP, "steps of verbs this tool does not know (newer plan)"); AblationGroup::TUNING.len() + 1];
    let mut i = 0;
    while i < AblationGroup::TUNING.len() {
        out[i] = (AblationGroup::TUNING[i].name(), AblationGroup::TUNING[i].about());
        i += 1;
    }
    out
};

/// The built-in group of a step: its verb's group in the verb table
/// (zynq_net_render::verb), [`OTHER_GROUP`] for a verb the table has not;
/// `None` for the base every variant keeps (`wait`, `ident`, `mac`, `mtu`,
/// `net.ipv4.ip_forward`): without them the DUT would not be the same
/// network, not a less tuned one (`ident` is the guard that the interface
/// is the board's NIC, not tuning).
pub fn builtin_group(step: &PlanStep) -> Option<&'static str> {
    match step.known_verb() {
        None => Some(OTHER_GROUP),
        Some(v) => match v.group(step.line.split(' ').nth(1)) {
            AblationGroup::Base => None,
            g => Some(g.name()),
        },
    }
}

/// Shell-style match of one field: `*` any run, `?` one character.
pub fn glob(pattern: &str, s: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), s.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
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
            // Name what the plan has: a misspelt or unknown verb is then plain.
            let mut verbs: Vec<&str> = plan.steps.iter().map(PlanStep::verb).collect();
            verbs.sort_unstable();
            verbs.dedup();
            errors.push(format!(
                "--groups `{item}`: no step of the plan is in this group (nothing to leave out); the plan's verbs: {}",
                verbs.join(", ")
            ));
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

    fn step(line: &str) -> PlanStep {
        PlanStep { line_no: 1, line: line.into() }
    }

    #[test]
    fn every_verb_has_its_builtin_group() {
        // docs/plan-format.md verbs, grouped as BUILTIN_GROUPS describes them.
        for (line, want) in [
            ("wait eth0 10", None),
            ("ident eth0 driver macb of-node /axi/ethernet@ff0e0000", None),
            ("mac eth0 02:00:00:00:00:01", None),
            ("mtu eth0 9000", None),
            ("sysctl net.ipv4.ip_forward 1", None),
            ("sysctl net.core.rmem_max 4194304", Some("sysctl")),
            ("sysctl net.core.rps_sock_flow_entries 32768", Some("rfs")),
            ("sysctl net.netfilter.nf_conntrack_max 65536", Some("fastpath")),
            ("rings eth0 rx 4096", Some("rings")),
            ("coalesce eth0 rx-usecs 64", Some("coalescing")),
            ("offload eth0 gro on", Some("offloads")),
            ("channels eth0 combined 4", Some("channels")),
            ("rss eth0 equal 4", Some("channels")),
            ("ntuple eth0 on", Some("channels")),
            ("ptp eth0 off", Some("ptp")),
            ("rps eth0 rx-0 0000000e", Some("rps")),
            ("rfs eth0 rx-0 4096", Some("rfs")),
            ("xps eth0 tx-0 00000001", Some("xps")),
            ("irq eth0 0 2", Some("irq")),
            ("qdisc eth0 multiq", Some("qdisc")),
            ("filter eth0 1 0x11", Some("qdisc")),
            ("module asf", Some("fastpath")),
            ("asf timeout 30", Some("fastpath")),
            ("frobnicate eth0", Some("other")),
        ] {
            assert_eq!(builtin_group(&step(line)), want, "{line}");
        }
        // Every verb of the table is in a built-in group or the base, none in `other`.
        for v in zynq_net_render::verb::Verb::ALL {
            let g = builtin_group(&step(&format!("{} eth0 x", v.name())));
            assert_ne!(g, Some(OTHER_GROUP), "{v:?}");
            assert!(g.is_none_or(|g| BUILTIN_GROUPS.iter().any(|(n, _)| *n == g)), "{v:?}: {g:?}");
        }
        assert_eq!(BUILTIN_GROUPS.last(), Some(&(OTHER_GROUP, "steps of verbs this tool does not know (newer plan)")));
        assert_eq!(BUILTIN_GROUPS[0].0, "sysctl");
        assert_eq!(step("offload eth0 gro on").fields(), ["offload", "eth0", "gro", "on"]);
        assert_eq!(step("offload eth0 gro on").verb(), "offload");
    }

    #[test]
    fn glob_matches_whole_strings() {
        for (p, s, want) in [
            ("abc", "abc", true),
            ("abc", "abd", false),
            ("abcd", "abc", false),
            ("abc", "abcd", false),
            ("?", "", false),
            ("*", "anything", true),
            ("a*", "ba", false),
            ("*c", "abc", true),
            ("*c", "abd", false),
            ("a*bc", "abxbc", true),
            ("a*b?d", "aXbYbzd", true),
            ("abc**", "abc", true),
            ("a*", "a", true),
            ("*x*", "abc", false),
            // A '*' in the pattern is a wildcard even where the text has
            // one (a plan's IRQ step names a pattern: `irq eth0_g*`).
            ("eth*", "eth*-rx", true),
            ("e*x", "e*yx", true),
            ("*", "*", true),
            ("a*", "*", false),
        ] {
            assert_eq!(glob(p, s), want, "glob({p:?}, {s:?})");
        }
    }

    #[test]
    fn group_names_and_selectors() {
        assert!(valid_group_name("tcp_win-2"));
        assert!(valid_group_name(&"a".repeat(32)));
        assert!(!valid_group_name(&"a".repeat(33)));
        assert!(!valid_group_name(""));
        assert!(!valid_group_name("a.b"));
        let s = step("offload eth0 tso off");
        assert!(selector_matches("offload", &s));
        assert!(selector_matches("offload:eth0:t*", &s));
        assert!(selector_matches("offload:eth0:tso:off", &s));
        assert!(!selector_matches("offload:eth0:tso:off:x", &s), "more fields than the step has");
        assert!(!selector_matches("offload:eth1", &s));
        let p = PlanText::parse("x.plan", PLAN).unwrap();
        // Several selectors joined with +: the union of their steps, in plan order.
        let g = resolve(&p, &["mix=xps+offload:eth0:gso".into(), "sysctl".into()]).unwrap();
        assert_eq!(g[0].steps, vec![3, 4]);
        assert_eq!(g[0].selection, Selection::Selectors { selectors: vec!["xps".into(), "offload:eth0:gso".into()] });
        assert_eq!(g[1].steps, vec![7], "sysctl: neither ip_forward nor the RFS table");
        assert_eq!(g[1].selection, Selection::Builtin { name: "sysctl".into() });
        let e = resolve(&p, &["xps".into(), "xps".into()]).unwrap_err().to_string();
        assert_eq!(e, "--groups: group `xps` given twice");
        let e = resolve(&p, &["a=offload::x".into()]).unwrap_err().to_string();
        assert!(e.contains("empty selector"), "{e}");
        let e = resolve(&p, &["a=offload+".into()]).unwrap_err().to_string();
        assert!(e.contains("empty selector"), "{e}");
        let e = resolve(&p, &["none=rings".into()]).unwrap_err().to_string();
        assert!(e.contains("`none=rings`: no step of the plan"), "{e}");
        let e = resolve(&p, &["x=nosuchverb".into()]).unwrap_err().to_string();
        assert!(e.ends_with("no step of the plan is in this group (nothing to leave out); the plan's verbs: mtu, offload, sysctl, wait, xps"), "{e}");
        // Only base steps: no built-in group to ablate.
        let base = PlanText::parse("b.plan", "zynq-net-plan 2\nwait eth0 5\n").unwrap();
        assert!(resolve(&base, &[]).unwrap().is_empty());
    }

    #[test]
    fn parse_skips_comments_and_stops_at_the_end_line() {
        let text = "  # indented comment\n\n   \nzynq-net-plan 2\n# c\nmtu eth0 1500\n  \nxps eth0 tx-0 1\nend 2 12345 67\nrps eth0 rx-0 1\n";
        let p = PlanText::parse("p.plan", text).unwrap();
        assert_eq!(p.board, None);
        assert_eq!(
            p.steps,
            vec![
                PlanStep { line_no: 6, line: "mtu eth0 1500".into() },
                PlanStep { line_no: 8, line: "xps eth0 tx-0 1".into() }
            ]
        );
        let e = PlanText::parse("p.plan", "# c\n\nzynq-net-plan 1\n").unwrap_err().to_string();
        assert_eq!(
            e,
            "p.plan:3:1: expected `zynq-net-plan 2` as the first line of a tuning plan, found `zynq-net-plan 1`"
        );
        let e = PlanText::parse("p.plan", "# only a comment\n").unwrap_err().to_string();
        assert_eq!(e, "p.plan: empty plan (no `zynq-net-plan 2` line)");
        // write_plan: every comment line prefixed, no board line without a board.
        let text = write_plan("a\nb", None, &[&p.steps[0]]);
        assert!(text.starts_with("# a\n# b\nzynq-net-plan 2\nmtu eth0 1500\nend 1 "), "{text}");
    }
}
