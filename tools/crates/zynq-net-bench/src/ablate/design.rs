//! The design of an ablation run (`ablate.json`): plan, groups, variants,
//! cells, rounds and seed. Data only: the runner ([`super::run`]) and the
//! report ([`super::report`]) both read it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::groups::{write_plan, Group, PlanStep, PlanText};
use crate::error::BenchError;
use crate::plan::Cell;
use crate::stats::SplitMix64;

/// Format tag of `ablate.json`.
pub const ABLATE_FORMAT: &str = "zynq-net-bench-ablate 1";

/// File names in an ablation directory.
pub mod files {
    /// The design.
    pub const DESIGN: &str = "ablate.json";
    /// One JSON line per trial.
    pub const TRIALS: &str = "ablate-trials.jsonl";
    /// Variant plans.
    pub const PLANS_DIR: &str = "plans";
    /// Raw iperf3 JSON.
    pub const RAW_DIR: &str = "raw";
    /// Markdown report.
    pub const REPORT_MD: &str = "ablate.md";
    /// HTML report.
    pub const REPORT_HTML: &str = "ablate.html";
    /// The analysis as JSON.
    pub const REPORT_JSON: &str = "ablate-report.json";
    /// The full plan without the groups that hurt.
    pub const SUGGESTED_PLAN: &str = "suggested.plan";
    /// The same as a diff of the board file.
    pub const SUGGESTED_DIFF: &str = "suggested-board.diff";
}

/// What a variant is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VariantKind {
    /// Every step of the plan.
    Full,
    /// The DUT reverted: no step applied.
    Untuned,
    /// The plan without one group.
    Without,
}

/// One configuration of the DUT.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Variant {
    /// `full`, `untuned` or `without-GROUP`.
    pub id: String,
    /// Kind.
    pub kind: VariantKind,
    /// The group left out (for [`VariantKind::Without`]).
    pub without: Option<String>,
    /// Indices of the plan steps applied.
    pub steps: Vec<usize>,
}

/// Everything that fixes an ablation run (saved as `ablate.json`;
/// `--resume` refuses a directory whose design differs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Design {
    /// [`ABLATE_FORMAT`].
    pub format: String,
    /// Board name.
    pub board: Option<String>,
    /// Board file, when the plan came from one (for the suggested diff).
    pub board_file: Option<PathBuf>,
    /// Where the plan came from (board file or plan file).
    pub plan_source: String,
    /// The plan's text as generated.
    pub plan_text: String,
    /// The parsed plan.
    pub plan: PlanText,
    /// Groups.
    pub groups: Vec<Group>,
    /// Variants: full, untuned, then one per group.
    pub variants: Vec<Variant>,
    /// Matrix cells measured.
    pub cells: Vec<Cell>,
    /// Rounds (repeats of every variant × cell).
    pub rounds: u32,
    /// Seed of the run order.
    pub seed: u64,
    /// Family-wise confidence of the intervals.
    pub confidence: f64,
    /// Smallest effect (percent) called helps or hurts.
    pub min_effect_percent: f64,
    /// Which end of the targets the plan is applied on (`dut`, `client`, `server`).
    pub dut_role: String,
    /// The setup in words (targets, where the plan is applied), for the reports.
    #[serde(default)]
    pub setup: String,
}

impl Design {
    /// Builds the variants for the groups.
    pub fn new_variants(plan: &PlanText, groups: &[Group]) -> Vec<Variant> {
        let all: Vec<usize> = (0..plan.steps.len()).collect();
        let mut v = vec![
            Variant { id: "full".into(), kind: VariantKind::Full, without: None, steps: all.clone() },
            Variant { id: "untuned".into(), kind: VariantKind::Untuned, without: None, steps: Vec::new() },
        ];
        for g in groups {
            v.push(Variant {
                id: format!("without-{}", g.name),
                kind: VariantKind::Without,
                without: Some(g.name.clone()),
                steps: all.iter().copied().filter(|i| !g.steps.contains(i)).collect(),
            });
        }
        v
    }

    /// The plan file of a variant (`None` for untuned: nothing is applied).
    pub fn variant_plan(&self, v: &Variant) -> Option<String> {
        if v.kind == VariantKind::Untuned {
            return None;
        }
        let steps: Vec<&PlanStep> = v.steps.iter().map(|&i| &self.plan.steps[i]).collect();
        let comment = format!(
            "zynq-net ablation variant `{}` of {} ({} of {} steps{})",
            v.id,
            self.plan_source,
            steps.len(),
            self.plan.steps.len(),
            v.without.as_ref().map(|g| format!("; without group {g}")).unwrap_or_default()
        );
        Some(write_plan(&comment, self.plan.board.as_deref(), &steps))
    }

    /// Run order of one round: variant indices, each with its cell indices.
    pub fn round_order(&self, round: u32) -> Vec<(usize, Vec<usize>)> {
        let mut rng = SplitMix64::new(self.seed ^ u64::from(round).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut vs: Vec<usize> = (0..self.variants.len()).collect();
        rng.shuffle(&mut vs);
        vs.into_iter()
            .map(|v| {
                let mut cs: Vec<usize> = (0..self.cells.len()).collect();
                rng.shuffle(&mut cs);
                (v, cs)
            })
            .collect()
    }

    /// Nominal trial seconds of the whole run.
    pub fn nominal_seconds(&self) -> f64 {
        let per_round: f64 = self.cells.iter().map(Cell::trial_seconds).sum::<f64>() * self.variants.len() as f64;
        per_round * f64::from(self.rounds)
    }

    /// Saves `ablate.json`.
    pub fn save(&self, path: &Path) -> Result<(), BenchError> {
        let t = serde_json::to_string_pretty(self).map_err(|e| BenchError::Invalid(e.to_string()))?;
        crate::records::write_file(path, t + "\n")
    }

    /// Loads `ablate.json`.
    pub fn load(path: &Path) -> Result<Design, BenchError> {
        let t = std::fs::read_to_string(path).map_err(|e| BenchError::io(path, e))?;
        let d: Design =
            serde_json::from_str(&t).map_err(|e| BenchError::Invalid(format!("{}: {e}", path.display())))?;
        if d.format != ABLATE_FORMAT {
            return Err(BenchError::Invalid(format!(
                "{}: format `{}`, this tool reads `{ABLATE_FORMAT}`",
                path.display(),
                d.format
            )));
        }
        Ok(d)
    }
}

impl Design {
    /// Trials of the whole run: variants × cells × rounds.
    pub fn trial_count(&self) -> usize {
        self.variants.len() * self.cells.len() * self.rounds as usize
    }
}
