//! Analysis and reports of an ablation: per cell, each group's effect
//! (full plan vs the plan without the group) and the whole plan's (full vs
//! untuned), with simultaneous intervals and verdicts ([`crate::stats`]);
//! the suggested plan without the groups that hurt; Markdown, JSON and a
//! self-contained HTML page with one effects chart per cell.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::design::{files, Design};
use super::groups::{write_plan, PlanStep};
use crate::chart::{self, EffectRow};
use crate::error::BenchError;
use crate::records::AblateTrial;
use crate::stats::{paired_effect, Analysis, Effect, Stats, Verdict, MAX_REPEATS_ESTIMATE};
use crate::table::{esc, html_page, Align::Left, Align::Right, Block, Doc, Inline, Table};
use zynq_net_render::verb::Verb;

/// Throughput of one variant in one cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VariantStats {
    /// Variant id.
    pub variant: String,
    /// Received throughput over the successful rounds (bit/s).
    pub throughput: Stats,
    /// Failed trials.
    pub failed: usize,
    /// Rounds with a CPU-bound trial.
    pub cpu_bound: usize,
}

/// What the DUT did with a group's steps when the full plan was applied.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DutSteps {
    /// Steps written.
    pub applied: usize,
    /// Steps already at the plan's value.
    pub unchanged: usize,
    /// Steps the DUT skipped (unsupported, absent, ...).
    pub skipped: usize,
    /// Steps that failed.
    pub failed: usize,
}

impl DutSteps {
    /// The DUT ran some of the group's steps but wrote none (each was
    /// unchanged, skipped or failed): the variant without the group is the
    /// full plan as the DUT saw it. False when no step ran at all.
    pub fn changed_nothing(&self) -> bool {
        self.applied == 0 && self.skipped + self.unchanged + self.failed > 0
    }
}

/// One group in one cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupEffect {
    /// Group name.
    pub group: String,
    /// Plan steps in the group.
    pub steps: usize,
    /// Effect of having the group (full vs without it).
    pub effect: Effect,
    /// What the DUT did with the group's steps (from the full plan's apply).
    pub dut: DutSteps,
}

/// One cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellAnalysis {
    /// Cell id.
    pub cell: String,
    /// Throughput per variant.
    pub variants: Vec<VariantStats>,
    /// Each group's effect.
    pub groups: Vec<GroupEffect>,
    /// The whole plan's effect (full vs untuned).
    pub whole_plan: Effect,
}

/// What to change.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suggestion {
    /// Groups that hurt in at least one cell and help in none: left out of
    /// the suggested plan.
    pub remove: Vec<String>,
    /// Groups that hurt in some cells and help in others: kept, listed for
    /// the user to decide on their traffic.
    pub mixed: Vec<String>,
    /// Plan steps the suggestion removes (line numbers of the full plan).
    pub removed_lines: Vec<usize>,
}

/// The whole analysis (`ablate-report.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AblationReport {
    /// Format tag.
    pub format: String,
    /// Board name.
    pub board: Option<String>,
    /// Where the plan came from.
    pub plan_source: String,
    /// Statistical settings.
    pub analysis: Analysis,
    /// Rounds planned.
    pub rounds: u32,
    /// Trials recorded / failed.
    pub trials: usize,
    /// Failed trials.
    pub failed: usize,
    /// Targets description and DUT.
    pub setup: String,
    /// Per cell.
    pub cells: Vec<CellAnalysis>,
    /// The suggestion.
    pub suggestion: Suggestion,
}

/// How the applier's `apply --json` report names a step of a verb
/// (zynq-net-apply.sh: the `report` calls of the verb's block).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reported {
    /// `iface` is the step's IFACE, `target` one of its later fields (or
    /// `-`): `offload eth0 tso on` is reported as eth0, tso.
    IfaceField,
    /// `iface` is the step's IFACE, `target` something the plan line does
    /// not hold (an IRQ number, the rule ID): matched on IFACE only.
    Iface,
    /// `iface` is `-`, `target` the first field (sysctl KEY, module NAME,
    /// `udp-timeout`).
    Key,
}

/// The ablation's arm per verb: how the applier reports its steps. Every
/// verb of the table has one; a new verb is a compile error here until it
/// is given one.
fn reported(v: Verb) -> Reported {
    match v {
        Verb::Wait
        | Verb::Ident
        | Verb::Mac
        | Verb::Mtu
        | Verb::Channels
        | Verb::Rings
        | Verb::Offload
        | Verb::Coalesce
        | Verb::Ptp
        | Verb::Rps
        | Verb::Rfs
        | Verb::Xps
        | Verb::Filter => Reported::IfaceField,
        Verb::Irq | Verb::Qdisc | Verb::Rss | Verb::Ntuple => Reported::Iface,
        Verb::Sysctl | Verb::Module | Verb::Asf => Reported::Key,
    }
}

fn step_matches(j: &Value, s: &PlanStep) -> bool {
    let f = s.fields();
    let get = |k: &str| j.get(k).and_then(Value::as_str).unwrap_or("-");
    if get("verb") != f[0] {
        return false;
    }
    let (iface, target) = (get("iface"), get("target"));
    // A verb the table has not (a newer plan's): IFACE and a later field.
    match s.known_verb().map_or(Reported::IfaceField, reported) {
        Reported::Key => f.get(1) == Some(&target),
        Reported::Iface => f.get(1) == Some(&iface),
        Reported::IfaceField => f.get(1) == Some(&iface) && (target == "-" || f.iter().skip(2).any(|x| *x == target)),
    }
}

/// Analyses the trials of a design.
pub fn analyse(design: &Design, trials: &[AblateTrial], setup: &str) -> AblationReport {
    let m = (design.groups.len() + 1) * design.cells.len();
    let a = Analysis { confidence: design.confidence, comparisons: m, min_effect_percent: design.min_effect_percent };
    let full_apply: Vec<Value> = trials
        .iter()
        .find(|t| t.variant == "full" && t.apply.apply_exit.is_some_and(|c| c >= 0))
        .map(|t| t.apply.steps.clone())
        .unwrap_or_default();
    let series = |variant: &str, cell: &str| -> Vec<Option<f64>> {
        (0..design.rounds)
            .map(|r| {
                trials
                    .iter()
                    .find(|t| t.round == r && t.variant == variant && t.cell == cell && t.record.error.is_none())
                    .map(|t| t.record.throughput_bps)
            })
            .collect()
    };
    let mut cells = Vec::new();
    for c in &design.cells {
        let variants = design
            .variants
            .iter()
            .map(|v| {
                let all: Vec<&AblateTrial> = trials.iter().filter(|t| t.variant == v.id && t.cell == c.id).collect();
                let ok: Vec<f64> =
                    all.iter().filter(|t| t.record.error.is_none()).map(|t| t.record.throughput_bps).collect();
                VariantStats {
                    variant: v.id.clone(),
                    throughput: Stats::of(&ok),
                    failed: all.iter().filter(|t| t.record.error.is_some()).count(),
                    cpu_bound: all.iter().filter(|t| !t.record.cpu_bound.is_empty()).count(),
                }
            })
            .collect();
        let full = series("full", &c.id);
        let groups = design
            .groups
            .iter()
            .map(|g| {
                let mut dut = DutSteps::default();
                for j in &full_apply {
                    if g.steps.iter().any(|&i| step_matches(j, &design.plan.steps[i])) {
                        match j.get("result").and_then(Value::as_str).unwrap_or("") {
                            "applied" => dut.applied += 1,
                            "unchanged" => dut.unchanged += 1,
                            "skipped" => dut.skipped += 1,
                            _ => dut.failed += 1,
                        }
                    }
                }
                GroupEffect {
                    group: g.name.clone(),
                    steps: g.steps.len(),
                    effect: paired_effect(&full, &series(&format!("without-{}", g.name), &c.id), &a),
                    dut,
                }
            })
            .collect();
        cells.push(CellAnalysis {
            cell: c.id.clone(),
            variants,
            groups,
            whole_plan: paired_effect(&full, &series("untuned", &c.id), &a),
        });
    }
    let mut suggestion = Suggestion::default();
    for g in &design.groups {
        let verdicts: Vec<Verdict> = cells
            .iter()
            .filter_map(|c| c.groups.iter().find(|x| x.group == g.name).map(|x| x.effect.verdict))
            .collect();
        let hurts = verdicts.contains(&Verdict::Hurts);
        let helps = verdicts.contains(&Verdict::Helps);
        if hurts && !helps {
            suggestion.remove.push(g.name.clone());
            suggestion.removed_lines.extend(g.steps.iter().map(|&i| design.plan.steps[i].line_no));
        } else if hurts {
            suggestion.mixed.push(g.name.clone());
        }
    }
    suggestion.removed_lines.sort_unstable();
    suggestion.removed_lines.dedup();
    AblationReport {
        format: "zynq-net-bench-ablate-report 1".into(),
        board: design.board.clone(),
        plan_source: design.plan_source.clone(),
        analysis: a,
        rounds: design.rounds,
        trials: trials.len(),
        failed: trials.iter().filter(|t| t.record.error.is_some()).count(),
        setup: setup.to_string(),
        cells,
        suggestion,
    }
}

/// The full plan without the suggested removals (or `None` when nothing hurts).
pub fn suggested_plan(design: &Design, r: &AblationReport) -> Option<String> {
    if r.suggestion.remove.is_empty() {
        return None;
    }
    let kept: Vec<&PlanStep> =
        design.plan.steps.iter().filter(|s| !r.suggestion.removed_lines.contains(&s.line_no)).collect();
    Some(write_plan(
        &format!(
            "zynq-net ablation suggestion: {} without {} (groups that hurt, see ablate.md).\nReview before use; zynq-net never applies it by itself.",
            design.plan_source,
            r.suggestion.remove.join(", ")
        ),
        design.plan.board.as_deref(),
        &kept,
    ))
}

/// A percentage for the reports; beyond +9999% (an interval of very few
/// rounds on a log scale) the figure means nothing more than "unbounded".
pub fn pct(v: f64) -> String {
    if !v.is_finite() {
        "n/a".into()
    } else if v > 9999.0 {
        "> +9999%".into()
    } else {
        format!("{v:+.1}%")
    }
}

fn interval(e: &Effect) -> String {
    if e.low.is_finite() {
        format!("{} [{}, {}]", pct(e.percent), pct(e.low), pct(e.high))
    } else {
        format!("{} [n/a]", pct(e.percent))
    }
}

fn repeats(e: &Effect) -> String {
    match e.repeats_needed {
        None => "-".into(),
        Some(n) if n > MAX_REPEATS_ESTIMATE => format!("> {MAX_REPEATS_ESTIMATE}"),
        Some(n) => format!("≈ {n}"),
    }
}

/// The groups table of one cell: per group its steps, what the DUT did
/// with them, the effect with its interval, the verdict and the repeats
/// for a clear one; last, the whole plan against untuned.
pub fn groups_table(design: &Design, c: &CellAnalysis) -> Table {
    let mut t = Table::new(&[
        ("group", Left),
        ("steps", Right),
        ("DUT: applied / unchanged / skipped / failed", Left),
        ("effect [interval]", Right),
        ("verdict", Left),
        ("repeats for a clear verdict", Right),
        ("notes", Left),
    ]);
    for g in &c.groups {
        let mut notes = vec![];
        if !g.effect.note.is_empty() {
            notes.push(g.effect.note.clone());
        }
        if g.dut.changed_nothing() {
            notes.push("no step of the group changed anything on the DUT: its variant equals full".into());
        }
        t.row([
            g.group.as_str().into(),
            g.steps.to_string().into(),
            format!("{} / {} / {} / {}", g.dut.applied, g.dut.unchanged, g.dut.skipped, g.dut.failed).into(),
            interval(&g.effect).into(),
            Inline::default().strong(g.effect.verdict.to_string()),
            repeats(&g.effect).into(),
            notes.join("; ").into(),
        ]);
    }
    let w = &c.whole_plan;
    t.row([
        "whole plan vs untuned".into(),
        design.plan.steps.len().to_string().into(),
        Inline::default(),
        interval(w).into(),
        Inline::default().strong(w.verdict.to_string()),
        repeats(w).into(),
        w.note.as_str().into(),
    ]);
    t
}

/// The variants table of one cell: throughput, repeats, failures and
/// CPU-bound trials per variant.
pub fn variants_table(c: &CellAnalysis) -> Table {
    let mut t = Table::new(&[
        ("variant", Left),
        ("Mbit/s (mean ± sd)", Right),
        ("n", Right),
        ("failed", Right),
        ("CPU-bound trials", Right),
    ]);
    for v in &c.variants {
        t.row([
            v.variant.as_str().into(),
            format!("{:.1} ± {:.1}", v.throughput.mean / 1e6, v.throughput.sd / 1e6).into(),
            v.throughput.n.to_string().into(),
            v.failed.to_string().into(),
            v.cpu_bound.to_string().into(),
        ]);
    }
    t
}

/// The report as a document: design, method, per cell its two tables,
/// the suggestion.
pub fn document(design: &Design, r: &AblationReport) -> Doc {
    let mut d = Doc::default();
    d.push(Block::H1(format!("zynq-net ablation: {}", r.board.as_deref().unwrap_or(&r.plan_source)).into()));
    d.push(Block::Para(Inline::text("Plan: ").code(r.plan_source.as_str()).and(format!(
        ", {} steps in {} groups. Setup: {}.",
        design.plan.steps.len(),
        design.groups.len(),
        r.setup
    ))));
    d.push(Block::Para(format!(
        "Design: {} rounds × {} variants (full, untuned, and the plan without each group) × {} cells; the order of the variants (and of the cells within a variant) is drawn afresh every round (seed {}); the applier reverts to untuned and applies the variant's plan before each. {} trials, {} failed.",
        r.rounds,
        design.variants.len(),
        design.cells.len(),
        design.seed,
        r.trials,
        r.failed
    ).into()));
    d.push(Block::Para(
        Inline::text(format!(
            "Effect of a group = throughput with the full plan vs without that group, paired by round, on log throughput (percent). Intervals are simultaneous {:.0}% intervals over all {} comparisons (Student t, Bonferroni: each at {:.2}%), so pure noise gets a verdict in at most {:.0}% of ablations. ",
            r.analysis.confidence * 100.0,
            r.analysis.comparisons,
            100.0 * (1.0 - r.analysis.alpha_each()),
            (1.0 - r.analysis.confidence) * 100.0,
        ))
        .em("helps")
        .and(" / ")
        .em("hurts")
        .and(format!(
            " only when the whole interval is on one side of zero and the estimate is at least {}%; otherwise ",
            r.analysis.min_effect_percent
        ))
        .em("no measurable effect")
        .and(format!(
            ", with the repeats that would make an effect of the measured size (or {}%, if larger) clear.",
            r.analysis.min_effect_percent
        )),
    ));
    for c in &r.cells {
        d.push(Block::H2(c.cell.as_str().into()));
        d.push(Block::Table(groups_table(design, c)));
        d.push(Block::Table(variants_table(c)));
    }
    d.push(Block::H2("Suggestion".into()));
    if r.suggestion.remove.is_empty() {
        d.push(Block::Para("No group hurts at this confidence: no change suggested.".into()));
    } else {
        d.push(Block::Para(
            Inline::text(format!(
                "Leave out {} (hurt in at least one cell, help in none): ",
                r.suggestion.remove.join(", ")
            ))
            .code(files::SUGGESTED_PLAN)
            .and(" and, for the board, ")
            .code(files::SUGGESTED_DIFF)
            .and(". Both are suggestions to review; nothing was applied."),
        ));
    }
    if !r.suggestion.mixed.is_empty() {
        d.push(Block::Para(
            format!(
                "Mixed (hurt in some cells, help in others; kept): {}. Which matters depends on your traffic.",
                r.suggestion.mixed.join(", ")
            )
            .into(),
        ));
    }
    d
}

/// Markdown report ([`document`]).
pub fn to_markdown(design: &Design, r: &AblationReport) -> String {
    document(design, r).to_markdown()
}

/// Self-contained HTML page: the report's [`document`] and one effects
/// chart per cell.
pub fn to_html(design: &Design, r: &AblationReport) -> String {
    let mut body = document(design, r).to_html();
    body.push_str("<h2>Effects</h2>");
    for c in &r.cells {
        let mut rows: Vec<EffectRow> = c
            .groups
            .iter()
            .map(|g| EffectRow {
                label: g.group.clone(),
                percent: g.effect.percent,
                low: g.effect.low,
                high: g.effect.high,
                verdict: g.effect.verdict,
            })
            .collect();
        rows.push(EffectRow {
            label: "whole plan vs untuned".into(),
            percent: c.whole_plan.percent,
            low: c.whole_plan.low,
            high: c.whole_plan.high,
            verdict: c.whole_plan.verdict,
        });
        let _ = write!(
            body,
            "<figure class=\"plot-effects\" id=\"effects-{}\">{}</figure>",
            esc(&c.cell),
            chart::effects(&c.cell, &rows)
        );
    }
    html_page(&format!("zynq-net ablation: {}", r.board.as_deref().unwrap_or(&r.plan_source)), "", &body)
}

/// Writes the reports (and the suggestion files) into `out`; returns the paths.
pub fn write_all(
    design: &Design,
    r: &AblationReport,
    board_diff: Option<String>,
    out: &Path,
) -> Result<Vec<PathBuf>, BenchError> {
    let mut written = Vec::new();
    let mut put = |name: &str, text: String| crate::report::put_file(out, name, text, &mut written);
    put(files::REPORT_MD, to_markdown(design, r))?;
    put(files::REPORT_HTML, to_html(design, r))?;
    put(files::REPORT_JSON, serde_json::to_string_pretty(r).map_err(|e| BenchError::Invalid(e.to_string()))? + "\n")?;
    for name in [files::SUGGESTED_PLAN, files::SUGGESTED_DIFF] {
        let p = out.join(name);
        if p.exists() {
            std::fs::remove_file(&p).map_err(|e| BenchError::io(&p, e))?;
        }
    }
    if let Some(p) = suggested_plan(design, r) {
        put(files::SUGGESTED_PLAN, p)?;
    }
    if let Some(d) = board_diff {
        put(files::SUGGESTED_DIFF, d)?;
    }
    Ok(written)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::ablate::tests::design;
    use crate::records::{ApplyOutcome, TrialRecord};

    fn t(round: u32, variant: &str, cell: &str, bps: f64) -> AblateTrial {
        AblateTrial {
            round,
            variant: variant.into(),
            cell: cell.into(),
            apply: ApplyOutcome {
                revert_exit: 0,
                apply_exit: Some(0),
                steps: vec![
                    serde_json::json!({"result": "applied", "verb": "offload", "iface": "eth0", "target": "tso"}),
                    serde_json::json!({"result": "skipped", "verb": "xps", "iface": "eth0", "target": "tx-0"}),
                ],
            },
            record: TrialRecord::for_test(cell, round, bps),
        }
    }

    #[test]
    fn verdicts_and_suggestion_from_synthetic_trials() {
        let d = design();
        let mut trials = Vec::new();
        let jitter = [1.0, 0.97, 1.03, 0.99];
        for r in 0..4u32 {
            let j = jitter[r as usize];
            for c in &d.cells {
                // offloads hurt (without them: 2x), sysctl helps (without: 0.6x), xps nothing.
                trials.push(t(r, "full", &c.id, 1000e6 * j));
                trials.push(t(r, "untuned", &c.id, 1200e6 * j));
                trials.push(t(r, "without-offloads", &c.id, 2000e6 * j * [1.0, 1.01, 0.99, 1.0][r as usize]));
                trials.push(t(r, "without-sysctl", &c.id, 600e6 * j * [1.0, 0.99, 1.01, 1.0][r as usize]));
                trials.push(t(r, "without-xps", &c.id, 1000e6 * j * [1.02, 0.97, 1.01, 0.995][r as usize]));
            }
        }
        let r = analyse(&d, &trials, "synthetic");
        let v = |cell: usize, g: &str| r.cells[cell].groups.iter().find(|x| x.group == g).unwrap().clone();
        for cell in 0..d.cells.len() {
            assert_eq!(v(cell, "offloads").effect.verdict, Verdict::Hurts);
            assert!((v(cell, "offloads").effect.percent + 50.0).abs() < 1.0);
            assert_eq!(v(cell, "sysctl").effect.verdict, Verdict::Helps);
            assert_eq!(v(cell, "xps").effect.verdict, Verdict::NoEffect);
            assert!(v(cell, "xps").effect.repeats_needed.is_some());
        }
        assert_eq!(v(0, "offloads").dut.applied, 1);
        assert_eq!(v(0, "xps").dut.skipped, 1);
        assert_eq!(r.suggestion.remove, vec!["offloads".to_string()]);
        let plan = suggested_plan(&d, &r).unwrap();
        assert!(!plan.lines().any(|l| l.starts_with("offload ")), "{plan}");
        assert!(plan.contains("\nsysctl net.ipv4.tcp_notsent_lowat 16384\n"), "{plan}");
        let md = to_markdown(&d, &r);
        crate::golden::check("ablate/suggestion.md", &md);
        assert!(md.contains("| offloads | 1 |") && md.contains("**hurts**") && md.contains("**helps**"));
        // offloads' step was applied (changed the DUT): no "changed nothing" note on its rows;
        // xps' was skipped: the note.
        for row in md.lines().filter(|l| l.starts_with("| offloads |")) {
            assert!(!row.contains("changed anything"), "{row}");
        }
        assert!(md.lines().filter(|l| l.starts_with("| xps |")).all(|l| l.contains("its variant equals full")), "{md}");
        let html = to_html(&d, &r);
        assert_eq!(html.matches("class=\"plot-effects\"").count(), d.cells.len());
        assert!(!html.contains("could not be drawn"));
        // written: the three reports and the suggestions; a stale suggestion
        // of an earlier run is removed when this run has none
        let out = tempfile::tempdir().unwrap();
        let paths = write_all(&d, &r, Some("--- a\n+++ b\n".into()), out.path()).unwrap();
        let names: Vec<String> = paths.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
        for n in
            [files::REPORT_MD, files::REPORT_HTML, files::REPORT_JSON, files::SUGGESTED_PLAN, files::SUGGESTED_DIFF]
        {
            assert!(names.iter().any(|x| x == n), "{n} not written: {names:?}");
            assert!(out.path().join(n).is_file(), "{n}");
        }
        assert_eq!(std::fs::read_to_string(out.path().join(files::REPORT_MD)).unwrap(), md);
        let back: AblationReport =
            serde_json::from_str(&std::fs::read_to_string(out.path().join(files::REPORT_JSON)).unwrap()).unwrap();
        assert_eq!(back.suggestion.remove, r.suggestion.remove);
        write_all(&d, &r, None, out.path()).unwrap();
        assert!(!out.path().join(files::SUGGESTED_DIFF).exists(), "stale suggested diff kept");
    }

    #[test]
    fn a_group_changed_nothing_when_it_ran_but_wrote_no_step() {
        let d = |applied, unchanged, skipped, failed| DutSteps { applied, unchanged, skipped, failed };
        assert!(!d(0, 0, 0, 0).changed_nothing(), "no step ran: nothing is known");
        assert!(d(0, 1, 0, 0).changed_nothing());
        assert!(d(0, 0, 1, 0).changed_nothing());
        assert!(d(0, 0, 0, 1).changed_nothing());
        assert!(d(0, 1, 0, 1).changed_nothing());
        assert!(!d(1, 0, 0, 0).changed_nothing());
        assert!(!d(1, 1, 1, 1).changed_nothing(), "one step written is a change");
    }

    #[test]
    fn figures_for_the_tables() {
        assert_eq!(pct(f64::NAN), "n/a");
        assert_eq!(pct(f64::INFINITY), "n/a");
        assert_eq!(pct(10_000.0), "> +9999%");
        assert_eq!(pct(9999.0), "+9999.0%");
        assert_eq!(pct(-5.26), "-5.3%");
        assert_eq!(pct(12.34), "+12.3%");
        let e = |low: f64, repeats_needed| Effect {
            n: 3,
            percent: 10.0,
            low,
            high: 20.0,
            verdict: Verdict::NoEffect,
            repeats_needed,
            note: String::new(),
        };
        assert_eq!(interval(&e(1.0, None)), "+10.0% [+1.0%, +20.0%]");
        assert_eq!(interval(&e(f64::NEG_INFINITY, None)), "+10.0% [n/a]");
        assert_eq!(repeats(&e(1.0, None)), "-");
        assert_eq!(repeats(&e(1.0, Some(7))), "≈ 7");
        assert_eq!(repeats(&e(1.0, Some(MAX_REPEATS_ESTIMATE))), "≈ 1000");
        assert_eq!(repeats(&e(1.0, Some(MAX_REPEATS_ESTIMATE + 1))), "> 1000");
    }

    #[test]
    fn applier_steps_are_matched_to_plan_steps() {
        let st = |line: &str| PlanStep { line_no: 1, line: line.into() };
        let j = |v: &str, iface: &str, target: &str| serde_json::json!({"verb": v, "iface": iface, "target": target});
        assert!(step_matches(&j("sysctl", "-", "net.core.rmem_max"), &st("sysctl net.core.rmem_max 1")));
        assert!(!step_matches(&j("sysctl", "-", "net.core.wmem_max"), &st("sysctl net.core.rmem_max 1")));
        for v in ["irq", "qdisc", "rss", "ntuple"] {
            assert!(step_matches(&j(v, "eth0", "x"), &st(&format!("{v} eth0 0 1"))), "{v}");
            assert!(!step_matches(&j(v, "eth1", "x"), &st(&format!("{v} eth0 0 1"))), "{v}");
        }
        assert!(step_matches(&j("offload", "eth0", "tso"), &st("offload eth0 tso off")));
        assert!(!step_matches(&j("offload", "eth0", "gso"), &st("offload eth0 tso off")));
        assert!(!step_matches(&j("offload", "eth1", "tso"), &st("offload eth0 tso off")));
        assert!(step_matches(&serde_json::json!({"verb": "mtu", "iface": "eth0"}), &st("mtu eth0 1500")), "no target");
        assert!(!step_matches(&j("rings", "eth0", "rx"), &st("offload eth0 rx on")), "another verb");
        // The global verbs: `iface` is `-`, the first field is the target
        // (zynq-net-apply.sh: `report ... module - NAME`, `file_knob 15 asf - udp-timeout`).
        assert!(step_matches(&j("module", "-", "asf"), &st("module asf")));
        assert!(!step_matches(&j("module", "-", "asfctrl"), &st("module asf")));
        assert!(step_matches(&j("asf", "-", "udp-timeout"), &st("asf udp-timeout 30")));
        // A verb of a newer plan: IFACE and a later field.
        assert!(step_matches(&j("eee", "eth0", "on"), &st("eee eth0 on")));
        assert!(!step_matches(&j("eee", "eth1", "on"), &st("eee eth0 on")));
    }

    #[test]
    fn dut_outcomes_mixed_verdicts_and_the_markdown() {
        let d = design();
        // Cell 0: offloads hurt, sysctl helps; cell 1: offloads help, sysctl hurts.
        let mut trials = Vec::new();
        let jitter = [1.0, 0.97, 1.03, 0.99];
        for r in 0..4u32 {
            let j = jitter[r as usize];
            for (ci, c) in d.cells.iter().enumerate() {
                let (off, sys) = if ci == 0 { (2.0, 0.5) } else { (0.5, 2.0) };
                trials.push(t(r, "full", &c.id, 1000e6 * j));
                trials.push(t(r, "untuned", &c.id, 1000e6 * j * [1.0, 1.02, 0.98, 1.01][r as usize]));
                trials.push(t(r, "without-offloads", &c.id, off * 1000e6 * j * [1.0, 1.01, 0.99, 1.0][r as usize]));
                trials.push(t(r, "without-sysctl", &c.id, sys * 1000e6 * j * [1.0, 0.99, 1.01, 1.0][r as usize]));
                trials.push(t(r, "without-xps", &c.id, 1000e6 * j * [1.02, 0.97, 1.01, 0.995][r as usize]));
            }
        }
        // The applier's report of the full plan: the first full trial with an apply counts.
        let steps = vec![
            serde_json::json!({"result": "unchanged", "verb": "offload", "iface": "eth0", "target": "tso"}),
            serde_json::json!({"result": "unchanged", "verb": "xps", "iface": "eth0", "target": "tx-0"}),
            serde_json::json!({"result": "failed", "verb": "sysctl", "target": "net.ipv4.tcp_notsent_lowat"}),
        ];
        for t in trials.iter_mut().filter(|t| t.variant == "full") {
            t.apply.steps = steps.clone();
        }
        trials[0].apply.apply_exit = Some(-1);
        trials[0].apply.steps =
            vec![serde_json::json!({"result": "applied", "verb": "xps", "iface": "eth0", "target": "tx-0"})];
        let mut failed = t(0, "without-xps", &d.cells[0].id, 0.0);
        failed.record.error = Some("iperf3: refused".into());
        failed.record.cpu_bound = vec!["dut cpu0 99%".into()];
        trials.push(failed);
        let r = analyse(&d, &trials, "lab");
        assert_eq!(r.analysis.comparisons, (3 + 1) * 2);
        assert_eq!((r.trials, r.failed, r.rounds), (trials.len(), 1, 4));
        let g = |c: usize, name: &str| r.cells[c].groups.iter().find(|x| x.group == name).unwrap().clone();
        assert_eq!(g(0, "offloads").dut, DutSteps { applied: 0, unchanged: 1, skipped: 0, failed: 0 });
        assert_eq!(g(0, "sysctl").dut, DutSteps { applied: 0, unchanged: 0, skipped: 0, failed: 1 });
        assert_eq!(g(0, "offloads").effect.verdict, Verdict::Hurts);
        assert_eq!(g(1, "offloads").effect.verdict, Verdict::Helps);
        assert_eq!(
            r.suggestion,
            Suggestion { remove: vec![], mixed: vec!["sysctl".into(), "offloads".into()], removed_lines: vec![] }
        );
        assert!(suggested_plan(&d, &r).is_none());
        let xps = r.cells[0].variants.iter().find(|v| v.variant == "without-xps").unwrap();
        assert_eq!((xps.throughput.n, xps.failed, xps.cpu_bound), (4, 1, 1));
        let md = to_markdown(&d, &r);
        for line in [
            "# zynq-net ablation: lab\n",
            "Plan: `lab.plan`, 4 steps in 3 groups. Setup: lab.",
            "Design: 4 rounds × 5 variants (full, untuned, and the plan without each group) × 2 cells;",
            "(seed 42);",
            "41 trials, 1 failed.",
            "simultaneous 95% intervals over all 8 comparisons (Student t, Bonferroni: each at 99.38%), so pure noise gets a verdict in at most 5% of ablations.",
            "| offloads | 1 | 0 / 1 / 0 / 0 |",
            "no step of the group changed anything on the DUT: its variant equals full",
            "| whole plan vs untuned | 4 |  |",
            "No group hurts at this confidence: no change suggested.",
            "Mixed (hurt in some cells, help in others; kept): sysctl, offloads.",
        ] {
            assert!(md.contains(line), "missing `{line}` in\n{md}");
        }
        assert!(md.contains(" | 4 | 1 | 1 |\n"), "n 4, 1 failed, 1 CPU-bound: {md}");
        // A group whose effect has no note shows the DUT note alone, no
        // empty note joined before it.
        let alone = "| no step of the group changed anything on the DUT: its variant equals full |";
        assert!(md.lines().any(|l| l.starts_with("| offloads |") && l.ends_with(alone)), "{md}");
        assert!(!md.contains("| ; "), "{md}");
        // Every report file, byte for byte (tests/golden/ablate/).
        let out = tempfile::tempdir().unwrap();
        for p in write_all(&d, &r, None, out.path()).unwrap() {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            crate::golden::check(&format!("ablate/{name}"), &std::fs::read_to_string(&p).unwrap());
        }
    }

    /// Effects pair each round's trials: a group whose effect swings from
    /// +10 % in rounds 0 and 1 to -10 % in rounds 2 and 3 (the rounds
    /// themselves drifting 2x) has an effect near zero, not the +10 % of
    /// the first rounds.
    #[test]
    fn effects_pair_the_trials_of_each_round() {
        let d = design();
        let (drift, k) = ([1.0, 2.0, 1.0, 2.0], [1.1, 1.1, 0.9, 0.9]);
        let mut trials = Vec::new();
        for r in 0..4u32 {
            let full = 1000e6 * drift[r as usize];
            for c in &d.cells {
                for v in ["full", "untuned", "without-offloads", "without-xps"] {
                    trials.push(t(r, v, &c.id, full));
                }
                trials.push(t(r, "without-sysctl", &c.id, full / k[r as usize]));
            }
        }
        let r = analyse(&d, &trials, "lab");
        let e = &r.cells[0].groups.iter().find(|g| g.group == "sysctl").unwrap().effect;
        let want = 100.0 * (k.iter().map(|x: &f64| x.ln()).sum::<f64>() / 4.0).exp_m1();
        assert_eq!(e.n, 4, "{e:?}");
        assert!((e.percent - want).abs() < 0.1, "want {want:.2} %: {e:?}");
    }
}
