//! The benchmark commands as library calls: what `zynq-net bench ...` and
//! `zynq-net lab ...` do, with plain option structs (no clap: the CLI
//! crate owns the command line and the one exit map).
//!
//! Every command returns `Result<Outcome, BenchError>`: an error is input,
//! usage or I/O ([`BenchError::Diagnostics`] for a board or bench file with
//! errors, the rest with their message); an [`Outcome`] other than
//! [`Outcome::Done`] says the command ran and what it found that its caller
//! may call a failure (trials that failed, frame sizes not confirmed, a
//! cell worse beyond noise).

use std::path::{Path, PathBuf};

use zynq_net_model::{eout, eoutln, outln};

use crate::ablate::{self, groups, Design, Dut};
use crate::compare;
use crate::error::BenchError;
use crate::image;
use crate::lab::{self, LabOptions};
use crate::plan::{Plan, PLAN_FORMAT};
use crate::records::{self, files, AblateTrial};
use crate::report;
use crate::rfc2544;
use crate::run::{self, Context, RunOptions};
use crate::spec::Rate;
use crate::targets::Targets;

/// What a command that ran found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Everything asked for was done.
    Done,
    /// `run`: this many trials failed (their errors are in `results.jsonl`).
    TrialsFailed(usize),
    /// `rfc2544`: the frame sizes whose rate the confirmation trial did not confirm.
    NotConfirmed(Vec<u32>),
    /// `compare --fail-on-worse`: this many cells or frame sizes are worse beyond noise.
    Worse(usize),
    /// `ablate`: this many trials failed.
    AblationTrialsFailed(usize),
    /// `lab down`: what could not be undone (already said on stderr).
    LabLeftovers(Vec<String>),
}

impl Outcome {
    /// Did the command find nothing to complain about?
    pub fn is_done(&self) -> bool {
        *self == Outcome::Done
    }
}

/// Command-line overrides of the bench section (`--duration`, `--repeats`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overrides {
    /// Seconds per matrix trial (the file's `duration_s`).
    pub duration_s: Option<u32>,
    /// Repeats per cell (the file's `repeats`).
    pub repeats: Option<u32>,
}

/// Where a plan runs: a targets file, a lab, or (both `None`) the DUT and
/// peer the plan names.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Where {
    /// Targets file.
    pub targets: Option<PathBuf>,
    /// A lab made by `lab up`.
    pub lab: Option<String>,
}

impl Where {
    /// The targets: the file, the lab's, else the plan's.
    ///
    /// # Errors
    /// An unreadable targets file, a lab that is not up, or a plan that
    /// names no DUT and peer when neither is given.
    pub fn load(&self, plan: &Plan) -> Result<Targets, BenchError> {
        match (&self.targets, &self.lab, &plan.targets) {
            (Some(p), _, _) => Targets::load(p),
            (None, Some(name), _) => lab::state(name).map(|s| s.targets),
            (None, None, Some(t)) => Ok(t.clone()),
            (None, None, None) => {
                Err(BenchError::Invalid("--targets or --lab is required (the plan names no DUT and peer)".into()))
            }
        }
    }
}

/// What runs and where (`bench run`, `bench rfc2544`).
#[derive(Debug, Clone, PartialEq)]
pub struct PlanInput {
    /// plan.json from `bench plan`, a board file or a bench file.
    pub plan: PathBuf,
    /// Overrides of the bench section.
    pub overrides: Overrides,
    /// Where it runs.
    pub at: Where,
}

impl PlanInput {
    fn load(&self) -> Result<(Plan, Targets), BenchError> {
        let plan = load_plan(&self.plan, &self.overrides)?;
        let targets = self.at.load(&plan)?;
        Ok((plan, targets))
    }
}

/// A plan from `path`: a plan file that `bench plan -o` wrote (JSON whose
/// `format` is [`PLAN_FORMAT`]), else a board file or a bench file, which
/// the model crate tells apart by the top-level `board:` key.
///
/// # Errors
/// An unreadable file, a plan of another format, a board or bench file
/// with errors ([`BenchError::Diagnostics`]), or overrides out of range.
pub fn load_plan(path: &Path, o: &Overrides) -> Result<Plan, BenchError> {
    // Bytes, not text: a file that is not UTF-8 goes to the board loader,
    // which reports it at its line:col (rule not-utf8).
    let bytes = records::read_input(path)?;
    let format = std::str::from_utf8(&bytes)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok())
        .and_then(|v| v.get("format").and_then(|f| f.as_str().map(str::to_string)));
    let mut plan = match format.as_deref() {
        Some(PLAN_FORMAT) => Plan::load(path)?,
        Some(f) if f.starts_with("zynq-net-bench-plan") => {
            return Err(BenchError::Invalid(format!(
                "{}: plan format `{f}` is not the one this zynq-net reads (`{PLAN_FORMAT}`): \
                 make the plan again with `zynq-net bench plan BENCH-FILE -o PLAN`",
                path.display()
            )))
        }
        _ => {
            let (name, spec, targets) = crate::board::load(path)?;
            let mut p = Plan::from_spec(name, &spec);
            p.targets = targets;
            p
        }
    };
    if o.duration_s.is_some() || o.repeats.is_some() {
        if let Some(d) = o.duration_s {
            plan.spec.duration = f64::from(d);
        }
        if let Some(r) = o.repeats {
            plan.spec.repeats = r;
        }
        plan.spec.check()?;
        let targets = plan.targets.take();
        plan = Plan::from_spec(plan.board.clone(), &plan.spec);
        plan.targets = targets;
    }
    Ok(plan)
}

/// `bench plan`: the matrix printed on stdout, saved as JSON to `output`.
///
/// # Errors
/// See [`load_plan`]; an unwritable `output`.
pub fn plan(input: &Path, output: Option<&Path>, overrides: &Overrides) -> Result<Outcome, BenchError> {
    let plan = load_plan(input, overrides)?;
    zynq_net_model::out!("{}", plan.to_text());
    if let Some(o) = output {
        plan.save(o)?;
        eoutln!("plan saved to {}", o.display());
    }
    Ok(Outcome::Done)
}

/// `bench run`: the matrix into `output` (see [`run::run_plan`]).
///
/// # Errors
/// See [`PlanInput`] and [`run::run_plan`].
pub fn run(input: &PlanInput, output: &Path, opts: &RunOptions) -> Result<Outcome, BenchError> {
    let (plan, targets) = input.load()?;
    let recs = run::run_plan(&plan, &targets, output, opts)?;
    let failed = recs.iter().filter(|r| r.error.is_some()).count();
    // of the trials that ran: a failed one measured no throughput to bound
    let bound = recs.iter().filter(|r| r.error.is_none() && !r.cpu_bound.is_empty()).count();
    eoutln!(
        "{} trials in {} ({} failed, {} CPU-bound); `zynq-net bench report {}` for the reports",
        recs.len(),
        output.join(files::RESULTS).display(),
        failed,
        bound,
        output.display()
    );
    Ok(if failed > 0 { Outcome::TrialsFailed(failed) } else { Outcome::Done })
}

/// Overrides of `bench rfc2544` (each `None` or empty: the plan's).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rfc2544Overrides {
    /// Frame sizes (bytes).
    pub frame_sizes: Vec<u32>,
    /// Line rate.
    pub line_rate: Option<Rate>,
    /// Seconds per search trial, 1 to 86400 (the file's `trial_s`, whole
    /// seconds: iperf3 reads `-t` as a whole number).
    pub trial_seconds: Option<u32>,
    /// Seconds of the confirmation trial, 1 to 86400 (the file's `confirm_s`).
    pub confirm_seconds: Option<u32>,
    /// Search trials per frame size.
    pub max_trials: Option<u32>,
    /// Loss counted as zero, percent.
    pub loss_tolerance: Option<f64>,
    /// Search resolution, percent.
    pub resolution: Option<f64>,
}

/// `bench rfc2544`: the search per frame size into `output`
/// (`rfc2544.json`, `rfc2544-trials.jsonl`, `plan.json`).
///
/// The rfc2544 command's nominal time in seconds, the length of its
/// progress bar (its percent and ETA): per frame size, half the search's
/// `max_trials` trials of `trial_seconds` (a binary search stops about
/// half way on average) plus the confirmation.
pub fn rfc2544_nominal_seconds(frame_sizes: usize, s: &crate::spec::Rfc2544Spec) -> f64 {
    frame_sizes as f64 * (s.trial_seconds * s.max_trials as f64 / 2.0 + s.confirm_seconds)
}

/// # Errors
/// See [`PlanInput`]; overrides out of range; unreachable targets (then
/// `output` is left as it was); an unwritable `output`.
pub fn rfc2544(input: &PlanInput, output: &Path, o: &Rfc2544Overrides, quiet: bool) -> Result<Outcome, BenchError> {
    // The options first, every problem at once, then the targets (a lab
    // that is not up, an unreadable targets file): the options leave the
    // plan's `targets` alone, and a user fixing a command line should not
    // have to bring up a lab to learn its options were out of range.
    let mut plan = load_plan(&input.plan, &input.overrides)?;
    {
        let s = &mut plan.spec;
        if !o.frame_sizes.is_empty() {
            s.frame_sizes = o.frame_sizes.clone();
        }
        if let Some(l) = o.line_rate {
            s.line_rate = l;
        }
        let r = &mut s.rfc2544;
        r.trial_seconds = o.trial_seconds.map_or(r.trial_seconds, f64::from);
        r.confirm_seconds = o.confirm_seconds.map_or(r.confirm_seconds, f64::from);
        r.max_trials = o.max_trials.unwrap_or(r.max_trials);
        r.loss_tolerance_percent = o.loss_tolerance.unwrap_or(r.loss_tolerance_percent);
        r.resolution_percent = o.resolution.unwrap_or(r.resolution_percent);
        s.check()?;
    }
    let targets = input.at.load(&plan)?;
    let ctx = Context::new(&targets, &plan)?; // first: unreachable targets leave OUTPUT as it was
    crate::records::output_dir(output)?;
    let trials_path = output.join(files::RFC2544_TRIALS);
    if trials_path.exists() {
        std::fs::remove_file(&trials_path).map_err(|e| BenchError::io(&trials_path, e))?;
    }
    if !output.join(files::PLAN).exists() {
        plan.save(&output.join(files::PLAN))?;
    }
    let s = plan.rfc2544().clone();
    let pb = run::progress(rfc2544_nominal_seconds(plan.spec.frame_sizes.len(), &s), quiet);
    let mut save_err = None;
    let res = rfc2544::run(
        &ctx,
        &s,
        plan.spec.line_rate.0,
        &plan.spec.frame_sizes,
        |f, t| {
            pb.set_message(format!("{f} B trial {}", t.record.repeat));
            pb.inc(run::ticks(t.record.wall_seconds));
            if let Err(e) = records::append_jsonl(&trials_path, &t.record) {
                save_err.get_or_insert(e);
            }
            // why a trial failed, as `bench run` says it (it was only in
            // rfc2544-trials.jsonl: the result read 0 frames/s)
            if let (false, Some(e)) = (quiet, &t.record.error) {
                run::say(&pb, format!("{f} B trial {}: FAILED: {e}", t.record.repeat));
            }
            t
        },
        |fr| {
            if !quiet {
                run::say(
                    &pb,
                    format!(
                        "{:>5} B: {:>10.0} frames/s {:>9.1} Mbit/s {:>5.1}% of line rate, {} search trial{}{}{}",
                        fr.frame_size,
                        fr.fps,
                        fr.frame_bps / 1e6,
                        fr.line_percent,
                        fr.search_trials,
                        if fr.search_trials == 1 { "" } else { "s" },
                        if fr.confirmed { "" } else { ", NOT confirmed" },
                        if fr.sender_limited { ", sender-limited" } else { "" }
                    ),
                );
            }
        },
    );
    pb.finish_and_clear();
    if let Some(e) = save_err {
        return Err(e);
    }
    let p = output.join(files::RFC2544);
    let text = serde_json::to_string_pretty(&res).map_err(|e| BenchError::Invalid(e.to_string()))? + "\n";
    crate::records::write_file(&p, text)?;
    eoutln!("RFC 2544-style result in {}", p.display());
    let unconfirmed: Vec<u32> = res.frames.iter().filter(|f| !f.confirmed).map(|f| f.frame_size).collect();
    Ok(if unconfirmed.is_empty() { Outcome::Done } else { Outcome::NotConfirmed(unconfirmed) })
}

/// `bench compare A B`: the comparison on stdout, `compare.md` and
/// `compare.json` in `output`; [`Outcome::Worse`] only with `fail_on_worse`.
/// First, [`image::check_same`]: runs whose `image.json` records differ (or
/// only one of which has one) are refused unless `allow_different_images`,
/// which puts the differences at the top of the Markdown and on stderr.
///
/// # Errors
/// A run directory without results, damaged results, a damaged
/// `image.json`, runs of different images, an unwritable `output`.
pub fn compare(
    a: &Path,
    b: &Path,
    output: Option<&Path>,
    fail_on_worse: bool,
    allow_different_images: bool,
) -> Result<Outcome, BenchError> {
    let (ra, xa) = compare::load_run(a)?;
    let (rb, xb) = compare::load_run(b)?;
    let (la, lb) = (a.display().to_string(), b.display().to_string());
    let notes =
        image::check_same(&la, image::load(a)?.as_ref(), &lb, image::load(b)?.as_ref(), allow_different_images)?;
    let mut c = compare::compare_records(&la, &ra, &lb, &rb);
    if let (Some(xa), Some(xb)) = (&xa, &xb) {
        compare::compare_rfc2544(&mut c, xa, xb);
    }
    if let (Some(ta), Some(tb)) = (compare::load_tester(a)?, compare::load_tester(b)?) {
        compare::compare_tester(&mut c, &ta, &tb);
    }
    // Each run's cell ids, and those with a successful trial: set lookups,
    // so a comparison stays linear in the records (as `bench report`).
    let cells = |recs: &[crate::records::TrialRecord], ok_only: bool| -> std::collections::HashSet<String> {
        recs.iter().filter(|r| !ok_only || r.error.is_none()).map(|r| r.cell.clone()).collect()
    };
    let (ids_b, ok_a, ok_b) = (cells(&rb, false), cells(&ra, true), cells(&rb, true));
    let shared = ra.iter().any(|x| ids_b.contains(&x.cell));
    if !shared && c.frames.is_empty() && c.tester.is_empty() {
        // Two runs of different commands (a `bench run` and a tester run),
        // or of disjoint cells: a table of nothing, exit 0, was no answer.
        return Err(BenchError::Invalid(format!(
            "{la} ({}) and {lb} ({}) have no cell, RFC 2544 frame size or tester result in common: nothing to compare; compare two runs of one command over the same cells",
            run_kind(&ra, xa.as_ref(), a),
            run_kind(&rb, xb.as_ref(), b)
        )));
    }
    c.notes.clone_from(&notes);
    let mut md = compare::to_markdown(&c);
    if !notes.is_empty() {
        for n in &notes {
            eoutln!("zynq-net: warning: {n}");
        }
        md = notes.iter().map(|n| format!("> {n}\n")).collect::<String>() + "\n" + &md;
    }
    zynq_net_model::out!("{md}");
    if let Some(o) = output {
        crate::records::output_dir(o)?;
        let (m, j) = (o.join("compare.md"), o.join("compare.json"));
        crate::records::write_file(&m, &md)?;
        let json = serde_json::to_string_pretty(&c).map_err(|e| BenchError::Invalid(e.to_string()))? + "\n";
        crate::records::write_file(&j, json)?;
    }
    // A cell A measured that B lost (no successful trial, or not run) is
    // worse too: a gate that passed when B's cells failed let them through.
    let lost = c.unmatched.iter().filter(|cell| ok_a.contains(*cell) && !ok_b.contains(*cell)).count();
    let worse = c.cells.iter().filter(|d| d.verdict == "worse").count()
        + c.frames.iter().filter(|f| f.verdict == "worse").count()
        + c.tester.iter().filter(|t| t.verdict == "worse").count()
        + lost;
    Ok(if fail_on_worse && worse > 0 { Outcome::Worse(worse) } else { Outcome::Done })
}

/// What a run directory holds, for [`compare`]'s refusal.
fn run_kind(recs: &[crate::records::TrialRecord], rfc: Option<&crate::records::Rfc2544Result>, dir: &Path) -> String {
    let mut kinds = Vec::new();
    if rfc.is_some() {
        kinds.push("`bench rfc2544`".to_string());
    } else if !recs.is_empty() {
        kinds.push(format!("`bench run`, {} trial(s)", recs.len()));
    }
    if dir.join("tester.json").is_file() {
        kinds.push("`bench rfc2544-tester`".to_string());
    }
    if kinds.is_empty() {
        "no result".to_string()
    } else {
        kinds.join(" and ")
    }
}

/// `bench report DIR`: the reports of a run directory into `output`
/// (default: the run directory), their paths on stdout.
///
/// # Errors
/// A directory without results; an unwritable `output`.
pub fn report(dir: &Path, output: Option<&Path>) -> Result<Outcome, BenchError> {
    // A path that is not there, or a file: said so (both read as "not a
    // run directory", or as `FILE/results.jsonl: Not a directory`).
    let meta = std::fs::metadata(dir).map_err(|e| BenchError::io(dir, e))?;
    if !meta.is_dir() {
        return Err(BenchError::Invalid(format!(
            "{}: a file, not a run directory: give the directory `bench run`, `bench rfc2544` or `bench rfc2544-tester` wrote (their -o)",
            dir.display()
        )));
    }
    let out = output.unwrap_or(dir);
    // A directory of `bench rfc2544-tester` (tester.json, no iperf3 trials
    // or rfc2544.json): its tables again, as `bench compare` reads it.
    if !dir.join(files::RESULTS).exists() && !dir.join(files::RFC2544).exists() {
        if let Some(t) = compare::load_tester(dir)? {
            for p in tester_report(&t, out)? {
                outln!("{}", p.display());
            }
            return Ok(Outcome::Done);
        }
    }
    let r = report::load(dir)?;
    for p in report::write_all(&r, out)? {
        outln!("{}", p.display());
    }
    Ok(Outcome::Done)
}

/// The report of a `bench rfc2544-tester` run from its `tester.json`: the
/// tables the run wrote (tester.md, tester.html, tester.csv,
/// tester-latency.csv) as report.md, report.html, report.csv and
/// report-latency.csv (with latency results) in `out`; returns the paths
/// written.
///
/// # Errors
/// A file that cannot be written.
pub fn tester_report(t: &crate::rfc2544_suite::Report, out: &Path) -> Result<Vec<PathBuf>, BenchError> {
    use crate::rfc2544_suite as s;
    crate::records::output_dir(out)?;
    let mut written = Vec::new();
    let mut put = |name: &str, text: String| report::put_file(out, name, text, &mut written);
    put("report.md", s::markdown(t))?;
    put("report.csv", s::throughput_table(t).to_csv())?;
    if t.frames.iter().any(|f| f.latency.is_some()) {
        put("report-latency.csv", s::latency_table(t).to_csv())?;
    }
    put("report.html", s::html(t))?;
    Ok(written)
}

/// Options of `bench ablate` (docs/bench.md, "Ablation").
#[derive(Debug, Clone, PartialEq)]
pub struct AblateOptions {
    /// Board file: its tuning plan and, unless `bench`, its bench section.
    pub board: PathBuf,
    /// Groups to leave out one at a time (built-in names or definitions).
    pub groups: Vec<String>,
    /// Matrix cells to measure (default: all).
    pub cells: Vec<String>,
    /// A bench file for the matrix instead of the board's section.
    pub bench: Option<PathBuf>,
    /// A tuning plan file instead of the one generated from the board.
    pub tuning_plan: Option<PathBuf>,
    /// Seconds per trial, 1 to 86400 (the file's `duration_s`, whole
    /// seconds: iperf3 reads `-t` as a whole number).
    pub duration: Option<u32>,
    /// Rounds, 2 to 1000.
    pub repeats: u32,
    /// Where it runs.
    pub at: Where,
    /// Which end carries the plan: `dut`, `client` or `server`.
    pub dut: Option<String>,
    /// The applier on the DUT.
    pub applier: Option<String>,
    /// Directory on the DUT for the applier's state, log and lock.
    pub applier_state: Option<String>,
    /// Directory on an ssh DUT for the variant plans.
    pub remote_dir: String,
    /// Family-wise confidence of the intervals, in [0.5, 1).
    pub confidence: f64,
    /// Smallest effect (percent) called helps or hurts, in [0, 100).
    pub min_effect: f64,
    /// Seed of the run order (default: from the clock).
    pub seed: Option<u64>,
    /// Output directory.
    pub output: PathBuf,
    /// Keep the trials already in `output`.
    pub resume: bool,
    /// Only analyse `output` again.
    pub report_only: bool,
    /// No progress bar and no per-trial lines.
    pub quiet: bool,
}

fn invalid(m: String) -> BenchError {
    BenchError::Invalid(m)
}

/// `bench ablate`.
///
/// # Errors
/// Options out of range, an unreadable or invalid board, plan or bench
/// file, unknown cells or groups, unreachable targets, an unwritable output.
pub fn ablate(a: &AblateOptions) -> Result<Outcome, BenchError> {
    let out = &a.output;
    let design_path = out.join(ablate::files::DESIGN);
    if a.report_only {
        let design = Design::load(&design_path)?;
        let trials: Vec<AblateTrial> = records::read_jsonl(&out.join(ablate::files::TRIALS))?;
        return ablate_reports(&design, &trials, &design.setup, out);
    }
    if !(0.5..1.0).contains(&a.confidence) {
        return Err(invalid(format!("--confidence {}: expected a value in [0.5, 1), e.g. 0.95", a.confidence)));
    }
    if !(0.0..100.0).contains(&a.min_effect) {
        return Err(invalid(format!("--min-effect {}: expected percent in [0, 100)", a.min_effect)));
    }
    if a.repeats < 2 {
        return Err(invalid(format!("--repeats {}: an interval needs at least 2 rounds", a.repeats)));
    }
    // The plan: generated from the board exactly as `gen` does, or given.
    let loaded = zynq_net_model::load_board(&a.board).map_err(|e| match e {
        zynq_net_model::LoadError::Invalid(d) => BenchError::Diagnostics(d.render()),
        zynq_net_model::LoadError::Io { path, source } => BenchError::Io { path, source },
    })?;
    let input = a.board.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let (plan_source, plan_text) = match &a.tuning_plan {
        Some(p) => (p.display().to_string(), std::fs::read_to_string(p).map_err(|e| BenchError::io(p, e))?),
        None => {
            let arts = zynq_net_render::render_all(&loaded.board, &input)
                .map_err(|e| invalid(format!("internal error rendering {input}: {e}")))?;
            let art = arts
                .iter()
                .find(|x| x.path == "tuning/zynq-net.plan")
                .ok_or_else(|| invalid("the board renders no tuning plan".into()))?;
            (format!("{input} (tuning/zynq-net.plan)"), String::from_utf8_lossy(&art.contents).into_owned())
        }
    };
    let plan = groups::PlanText::parse(&plan_source, &plan_text)?;
    let groups = groups::resolve(&plan, &a.groups)?;
    // The matrix and the targets.
    let board_name = loaded.board.board.name.clone();
    let (mut spec, board_targets) = match (&a.bench, &loaded.board.bench) {
        (Some(f), _) => {
            let (_, spec, targets) = crate::board::load(f)?;
            (spec, targets)
        }
        (None, Some(b)) => (crate::spec::BenchSpec::from_model(b), crate::board::targets(b)),
        _ => {
            return Err(invalid(format!(
            "{}: the board has no `bench` section; add one (docs/board-format.md) or pass --bench FILE (docs/bench.md)",
            a.board.display()
        )))
        }
    };
    if let Some(d) = a.duration {
        spec.duration = f64::from(d);
    }
    spec.repeats = a.repeats;
    spec.check()?;
    let mut bench = Plan::from_spec(Some(board_name.clone()), &spec);
    bench.targets = board_targets;
    let mut cells = bench.cells.clone();
    if !a.cells.is_empty() {
        let unknown: Vec<&String> = a.cells.iter().filter(|c| !cells.iter().any(|x| &x.id == *c)).collect();
        if !unknown.is_empty() {
            return Err(invalid(format!(
                "--cells: unknown cell(s) {}; the matrix has: {}",
                unknown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "),
                cells.iter().map(|c| c.id.as_str()).collect::<Vec<_>>().join(", ")
            )));
        }
        cells.retain(|c| a.cells.contains(&c.id));
    }
    let targets = a.at.load(&bench)?;
    let role = a.dut.clone().unwrap_or_else(|| if targets.dut.is_some() { "dut".into() } else { "client".into() });
    let end = ablate::dut_endpoint(&targets, &role)?;
    let applier = match (&a.applier, &end.host) {
        (Some(p), _) => p.clone(),
        (None, crate::exec::Host::Ssh { .. }) => "zynq-net-apply".into(),
        (None, _) => lab::find_applier(None)
            .ok_or_else(|| invalid("no applier found: pass --applier or set ZYNQ_NET_APPLIER".into()))?
            .display()
            .to_string(),
    };
    let env = match (&a.applier_state, &a.at.lab) {
        (Some(d), _) => {
            let d = d.trim_end_matches('/');
            end.host
                .run(&crate::exec::argv(&["mkdir", "-p", d]))
                .map_err(|e| invalid(format!("creating --applier-state {d} on the DUT: {e}")))?;
            vec![
                format!("ZYNQ_NET_STATE={d}/state"),
                format!("ZYNQ_NET_LOG={d}/apply.log"),
                format!("ZYNQ_NET_LOCK={d}/lock"),
            ]
        }
        (None, Some(name)) => lab::applier_env_vars(name),
        (None, None) => Vec::new(),
    };
    let dut = Dut { host: end.host.clone(), applier, env, remote_dir: a.remote_dir.clone() };
    let seed = match (a.seed, a.resume) {
        (Some(s), _) => s,
        (None, true) if design_path.exists() => Design::load(&design_path)?.seed,
        _ => {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1)
        }
    };
    let design = Design {
        format: ablate::ABLATE_FORMAT.into(),
        board: Some(board_name),
        board_file: if a.tuning_plan.is_none() { Some(a.board.clone()) } else { None },
        plan_source,
        plan_text,
        variants: Design::new_variants(&plan, &groups),
        plan,
        groups,
        cells,
        rounds: a.repeats,
        seed,
        confidence: a.confidence,
        min_effect_percent: a.min_effect,
        setup: format!("{}; plan applied on the {role} ({})", targets.description, end.host.label()),
        dut_role: role,
    };
    eoutln!(
        "ablation: {} groups ({}), {} variants x {} cells x {} rounds = {} trials, ~{:.0} s of traffic; DUT {} ({})",
        design.groups.len(),
        design.groups.iter().map(|g| g.name.as_str()).collect::<Vec<_>>().join(", "),
        design.variants.len(),
        design.cells.len(),
        design.rounds,
        design.trial_count(),
        design.nominal_seconds(),
        design.dut_role,
        end.host.label()
    );
    let trials =
        ablate::run(&design, &bench, &targets, &dut, out, &ablate::RunOptions { resume: a.resume, quiet: a.quiet })?;
    ablate_reports(&design, &trials, &design.setup, out)
}

fn ablate_reports(design: &Design, trials: &[AblateTrial], setup: &str, out: &Path) -> Result<Outcome, BenchError> {
    use crate::ablate::{diff, report as arep};
    let r = arep::analyse(design, trials, setup);
    let board_diff = match (&design.board_file, r.suggestion.remove.is_empty()) {
        (Some(b), false) => match diff::board_diff(b, &design.plan, &r.suggestion.removed_lines) {
            Ok(d) => Some(d),
            Err(e) => {
                eoutln!("warning: {e}");
                None
            }
        },
        _ => None,
    };
    let line = |name: &str, e: &crate::stats::Effect| {
        outln!(
            "  {:<12} {:>8} [{}, {}]  {}",
            name,
            arep::pct(e.percent),
            arep::pct(e.low),
            arep::pct(e.high),
            e.verdict
        );
    };
    for c in &r.cells {
        outln!("{}:", c.cell);
        for g in &c.groups {
            line(&g.group, &g.effect);
        }
        line("whole plan", &c.whole_plan);
    }
    for p in arep::write_all(design, &r, board_diff, out)? {
        eoutln!("wrote {}", p.display());
    }
    Ok(if r.failed > 0 { Outcome::AblationTrialsFailed(r.failed) } else { Outcome::Done })
}

/// `lab up`: the namespaces, the targets written to `targets_out`; the
/// targets' description and the state file on stdout.
///
/// # Errors
/// See [`lab::up`]; an unwritable `targets_out`.
pub fn lab_up(o: &LabOptions, targets_out: Option<&Path>) -> Result<Outcome, BenchError> {
    // Checked before anything is built: a lab brought up only to be taken
    // down again because its targets file has nowhere to go wastes a minute.
    if let Some(p) = targets_out {
        let dir = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if p.is_dir() || !dir.is_dir() {
            return Err(BenchError::Invalid(format!(
                "--targets-out {}: expected a file path in an existing directory (the targets JSON is written there)",
                p.display()
            )));
        }
        // an earlier targets file is replaced; anything else (a board or
        // bench file given by mistake) is kept (new-user trial: a bench.yml
        // was overwritten with JSON)
        if p.exists() && crate::targets::Targets::load(p).is_err() {
            return Err(BenchError::Invalid(format!(
                "--targets-out {}: exists and is not a targets file; only a targets file is replaced: \
                 name a new file",
                p.display()
            )));
        }
    }
    let st = lab::up(o)?;
    if let Some(p) = targets_out {
        // A lab whose targets could not be written is of no use to the
        // caller who asked for them: take it down again, say so.
        if let Err(e) = st.targets.save(p) {
            let left = lab::down(&st.options.name).unwrap_or_else(|e| vec![e.to_string()]);
            let mut msg = format!("{e} (the lab was taken down again)");
            for m in left {
                msg.push_str(&format!("\nlab down: {m}"));
            }
            return Err(BenchError::Invalid(msg));
        }
    }
    outln!("{}", st.targets.description);
    outln!("state: {}", lab::state_path(&st.options.name).display());
    if let Some(o) = &st.apply_output {
        eout!("{o}");
    }
    Ok(Outcome::Done)
}

/// `lab down`: what could not be undone is said on stderr and returned.
/// A lab that is not there (no state file, none of its namespaces) is a
/// note on stderr and success, not an error: `lab down` is the cleanup
/// step of scripts, CI traps and test harnesses, which run it whether or
/// not `lab up` got far, and teardown is idempotent there (as `rm -f`);
/// the note still shows a mistyped `--name`.
///
/// # Errors
/// See [`lab::down`].
pub fn lab_down(name: &str) -> Result<Outcome, BenchError> {
    if !lab::exists(name)? {
        let [c, r, s] = lab::namespaces(name);
        eoutln!(
            "lab down: no lab `{name}` is up (no {}, no namespace {c}, {r} or {s}): nothing to do",
            lab::state_path(name).display()
        );
        return Ok(Outcome::Done);
    }
    let msgs = lab::down(name)?;
    for m in &msgs {
        eoutln!("lab down: {m}");
    }
    Ok(if msgs.is_empty() { Outcome::Done } else { Outcome::LabLeftovers(msgs) })
}

/// `lab status`: the lab's state as JSON on stdout.
///
/// # Errors
/// A lab that is not up.
pub fn lab_status(name: &str) -> Result<Outcome, BenchError> {
    let st = lab::state(name)?;
    let text = serde_json::to_string_pretty(&st).map_err(|e| BenchError::Invalid(e.to_string()))?;
    outln!("{text}");
    Ok(Outcome::Done)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    /// 3 sizes x (10 trials of 2 s / 2 + 5 s confirmation) = 45 s.
    #[test]
    fn rfc2544_nominal_time() {
        let s =
            crate::spec::Rfc2544Spec { trial_seconds: 2.0, max_trials: 10, confirm_seconds: 5.0, ..Default::default() };
        assert_eq!(super::rfc2544_nominal_seconds(3, &s), 45.0);
        assert_eq!(super::rfc2544_nominal_seconds(0, &s), 0.0);
    }

    use super::*;
    use crate::records::{append_jsonl, TrialRecord};

    /// `bench report` of a `bench rfc2544-tester` run directory writes the
    /// run's tables again from tester.json (it said "no results.jsonl or
    /// rfc2544.json"); a directory with neither is still refused.
    #[test]
    fn report_of_a_tester_run_gives_its_tables() {
        use crate::rfc2544_suite::{FrameReport, Options, Report, FORMAT};
        let d = tempfile::tempdir().unwrap();
        let r = Report {
            format: FORMAT.into(),
            options: Options { frame_sizes: vec![64], ..Options::default() },
            ways: vec![crate::tester::Way::Ab],
            ceilings: vec![],
            frames: vec![FrameReport {
                frame_size: 64,
                max_fps: 1_488_095.2,
                ceiling_fps: None,
                top_fps: 1_488_095.2,
                ndr: None,
                pdr: vec![],
                frame_loss: vec![],
                back_to_back: None,
                latency: None,
            }],
            deviations: vec!["the deviation".into()],
            dut: Some("the DUT".into()),
        };
        std::fs::write(d.path().join("tester.json"), serde_json::to_string(&r).unwrap()).unwrap();
        let out = d.path().join("rep");
        report(d.path(), Some(&out)).unwrap();
        let md = std::fs::read_to_string(out.join("report.md")).unwrap();
        assert_eq!(md, crate::rfc2544_suite::markdown(&r));
        assert!(out.join("report.html").exists() && out.join("report.csv").exists());
        let empty = tempfile::tempdir().unwrap();
        assert!(report(empty.path(), None).unwrap_err().to_string().contains("no results.jsonl"));
    }

    fn zcu102() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../meta-zynq-net/boards/zcu102.yml")
    }

    fn no_overrides() -> Overrides {
        Overrides::default()
    }

    #[test]
    fn a_plan_is_made_from_a_board_saved_and_read_back() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("plan.json");
        let board = zcu102();
        assert_eq!(plan(&board, Some(&out), &no_overrides()).unwrap(), Outcome::Done);
        let made = load_plan(&board, &no_overrides()).unwrap();
        assert_eq!(made.board.as_deref(), Some("zcu102"));
        assert!(made.targets.is_some(), "the board names its DUT and peer");
        // The saved plan is read as a plan (not as a board), whole.
        assert_eq!(Plan::load(&out).unwrap(), made);
        assert_eq!(load_plan(&out, &no_overrides()).unwrap(), made);
    }

    #[test]
    fn overrides_remake_the_matrix_and_keep_the_targets() {
        let board = zcu102();
        let base = load_plan(&board, &no_overrides()).unwrap();
        let d = load_plan(&board, &Overrides { duration_s: Some(3), repeats: None }).unwrap();
        assert!(d.cells.iter().all(|c| c.seconds == 3.0 && c.repeats == base.spec.repeats), "{:?}", d.cells);
        let r = load_plan(&board, &Overrides { duration_s: None, repeats: Some(7) }).unwrap();
        assert!(r.cells.iter().all(|c| c.repeats == 7 && c.seconds == base.spec.duration), "{:?}", r.cells);
        assert_eq!((d.targets.as_ref(), r.targets.as_ref()), (base.targets.as_ref(), base.targets.as_ref()));
        assert!(load_plan(&board, &Overrides { duration_s: Some(0), repeats: None }).is_err(), "validated");
    }

    #[test]
    fn a_plan_of_another_format_is_refused_and_other_json_goes_to_the_board_loader() {
        let tmp = tempfile::tempdir().unwrap();
        let old = tmp.path().join("old.json");
        std::fs::write(&old, r#"{"format": "zynq-net-bench-plan 0", "cells": []}"#).unwrap();
        let e = load_plan(&old, &no_overrides()).unwrap_err().to_string();
        assert!(e.contains("plan format `zynq-net-bench-plan 0` is not the one this zynq-net reads"), "{e}");
        // JSON of another kind (a targets file) is not taken for a plan.
        let other = tmp.path().join("targets.json");
        std::fs::write(&other, r#"{"format": "zynq-net-bench-targets 1"}"#).unwrap();
        let e = load_plan(&other, &no_overrides()).unwrap_err().to_string();
        assert!(!e.contains("plan format"), "{e}");
    }

    #[test]
    fn targets_come_from_the_flag_else_the_plan() {
        let tmp = tempfile::tempdir().unwrap();
        let plan = load_plan(&zcu102(), &no_overrides()).unwrap();
        let none = Where { targets: None, lab: None };
        assert_eq!(&none.load(&plan).unwrap(), plan.targets.as_ref().unwrap());
        let mut own = plan.targets.clone().unwrap();
        own.port = 5999;
        let f = tmp.path().join("targets.json");
        own.save(&f).unwrap();
        assert_eq!(Where { targets: Some(f), lab: None }.load(&plan).unwrap().port, 5999);
        let bare = Plan { targets: None, ..plan };
        let e = none.load(&bare).unwrap_err().to_string();
        assert!(e.contains("--targets or --lab is required"), "{e}");
        let lab = Where { targets: None, lab: Some("zn-nosuchlab".into()) };
        let e = lab.load(&bare).unwrap_err().to_string();
        assert!(e.contains("no lab `zn-nosuchlab` is up"), "{e}");
    }

    /// A run directory whose results.jsonl holds `bps` as the repeats of cell `c`.
    fn run_dir(root: &Path, name: &str, bps: &[f64]) -> PathBuf {
        let d = root.join(name);
        std::fs::create_dir_all(&d).unwrap();
        for (i, b) in bps.iter().enumerate() {
            append_jsonl(&d.join(files::RESULTS), &TrialRecord::for_test("c", i as u32, *b)).unwrap();
        }
        d
    }

    #[test]
    fn compare_exits_1_only_when_asked_to_and_a_cell_is_worse() {
        let tmp = tempfile::tempdir().unwrap();
        let a = run_dir(tmp.path(), "a", &[100e6, 102e6, 101e6]);
        let worse = run_dir(tmp.path(), "worse", &[50e6, 52e6, 51e6]);
        let better = run_dir(tmp.path(), "better", &[200e6, 202e6, 201e6]);
        let out = tmp.path().join("cmp");
        let code = |b: &Path, fail: bool| compare(&a, b, Some(&out), fail, false).unwrap();
        assert_eq!(code(&worse, true), Outcome::Worse(1));
        let json = std::fs::read_to_string(out.join("compare.json")).unwrap();
        assert!(json.contains("\"worse\"") && out.join("compare.md").exists(), "{json}");
        assert_eq!(code(&worse, false), Outcome::Done);
        assert_eq!(code(&better, true), Outcome::Done);
    }

    /// `--fail-on-worse` counts a cell A measured that B lost (every trial
    /// failed, or not run) as worse; runs with nothing in common (a
    /// `bench run` against a tester run) are refused, naming both kinds
    /// (both exited 0 with a table of "Cells in only one run").
    #[test]
    fn compare_counts_a_lost_cell_as_worse_and_refuses_runs_with_nothing_in_common() {
        let tmp = tempfile::tempdir().unwrap();
        let both = |name: &str, cells: &[(&str, bool)]| {
            let d = tmp.path().join(name);
            std::fs::create_dir_all(&d).unwrap();
            for (cell, ok) in cells {
                for i in 0..2 {
                    let mut r = TrialRecord::for_test(cell, i, 100e6 + f64::from(i));
                    if !ok {
                        r.error = Some("iperf3: unable to connect".into());
                    }
                    append_jsonl(&d.join(files::RESULTS), &r).unwrap();
                }
            }
            d
        };
        let a = both("a", &[("c", true), ("d", true)]);
        let b_failed = both("bf", &[("c", true), ("d", false)]);
        let b_missing = both("bm", &[("c", true)]);
        let b_more = both("bx", &[("c", true), ("d", true), ("e", true)]);
        assert_eq!(compare(&a, &b_failed, None, true, false).unwrap(), Outcome::Worse(1));
        assert_eq!(compare(&a, &b_missing, None, true, false).unwrap(), Outcome::Worse(1));
        assert_eq!(compare(&a, &b_missing, None, false, false).unwrap(), Outcome::Done);
        // a cell B has and A had not is no loss
        assert_eq!(compare(&a, &b_more, None, true, false).unwrap(), Outcome::Done);
        let other = both("o", &[("x", true)]);
        let e = compare(&a, &other, None, false, false).unwrap_err().to_string();
        assert!(
            e.contains("(`bench run`, 4 trial(s)) and ") && e.contains("(`bench run`, 2 trial(s)) have no cell, RFC 2544 frame size or tester result in common: nothing to compare"),
            "{e}"
        );
        let t = tmp.path().join("t");
        std::fs::create_dir_all(&t).unwrap();
        let tester = crate::rfc2544_suite::Report {
            format: crate::rfc2544_suite::FORMAT.into(),
            options: crate::rfc2544_suite::Options::default(),
            ways: Vec::new(),
            ceilings: Vec::new(),
            frames: Vec::new(),
            deviations: Vec::new(),
            dut: None,
        };
        std::fs::write(t.join("tester.json"), serde_json::to_string(&tester).unwrap()).unwrap();
        let e = compare(&a, &t, None, true, false).unwrap_err().to_string();
        assert!(e.contains("and ") && e.contains(" (`bench rfc2544-tester`) have no cell"), "{e}");
    }

    /// `bench report` of a path that is not there, or of a file, says so
    /// (they read as "not a run directory" and "FILE/results.jsonl: Not a
    /// directory"); an output directory of `/` or the home directory is
    /// refused before anything is written.
    #[test]
    fn report_names_a_missing_path_a_file_and_a_system_output() {
        let tmp = tempfile::tempdir().unwrap();
        let e = report(&tmp.path().join("nope"), None).unwrap_err().to_string();
        assert!(e.contains("nope") && e.contains("No such file or directory"), "{e}");
        let f = tmp.path().join("afile");
        std::fs::write(&f, "x").unwrap();
        let e = report(&f, None).unwrap_err().to_string();
        assert!(e.ends_with("afile: a file, not a run directory: give the directory `bench run`, `bench rfc2544` or `bench rfc2544-tester` wrote (their -o)"), "{e}");
        let d = run_dir(tmp.path(), "run", &[100e6, 102e6]);
        let e = report(&d, Some(Path::new("/"))).unwrap_err().to_string();
        assert_eq!(e, "/: is a system or home directory: the command writes its files into it; choose a new directory such as ./run");
    }

    #[test]
    fn report_writes_the_reports_into_the_run_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let d = run_dir(tmp.path(), "run", &[100e6, 102e6]);
        assert_eq!(report(&d, None).unwrap(), Outcome::Done);
        for f in ["report.md", "report.csv", "report.json", "report.html"] {
            assert!(d.join(f).exists(), "{f}");
        }
    }

    /// Targets on this machine: the real iperf3 over loopback on a free
    /// port, the client connecting to `server` (a name that does not
    /// resolve makes every trial fail).
    fn loopback_targets(dir: &Path, server: &str) -> PathBuf {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let t = Targets::local(server, port);
        let f = dir.join("targets.json");
        t.save(&f).unwrap();
        f
    }

    #[test]
    fn run_exits_1_when_a_trial_failed() {
        let tmp = tempfile::tempdir().unwrap();
        let b = tmp.path().join("bench.yml");
        std::fs::write(&b, "matrix: { protocols: [tcp], directions: [tx], mtus: [1500], duration_s: 1, repeats: 1 }\n")
            .unwrap();
        let run = |targets: &Path, out: &Path| {
            let input = PlanInput {
                plan: b.clone(),
                overrides: no_overrides(),
                at: Where { targets: Some(targets.to_path_buf()), lab: None },
            };
            super::run(&input, out, &RunOptions { resume: false, quiet: true }).unwrap()
        };
        let good = tmp.path().join("good");
        std::fs::create_dir_all(&good).unwrap();
        assert_eq!(run(&loopback_targets(&good, "127.0.0.1"), &good.join("run")), Outcome::Done);
        assert_eq!(records::read_jsonl::<TrialRecord>(&good.join("run").join(files::RESULTS)).unwrap().len(), 1);
        let bad = tmp.path().join("bad");
        std::fs::create_dir_all(&bad).unwrap();
        // RFC 6761: .invalid never resolves.
        assert_eq!(run(&loopback_targets(&bad, "zn-bench.invalid"), &bad.join("run")), Outcome::TrialsFailed(1));
    }

    /// `bench ablate`'s options with the command line's defaults.
    fn ablate_options(board: &Path, out: &Path) -> AblateOptions {
        AblateOptions {
            board: board.to_path_buf(),
            groups: vec![],
            cells: vec![],
            bench: None,
            tuning_plan: None,
            duration: None,
            repeats: 5,
            at: Where::default(),
            dut: None,
            applier: None,
            applier_state: None,
            remote_dir: "/tmp/zynq-net-ablate".into(),
            confidence: 0.95,
            min_effect: 1.0,
            seed: None,
            output: out.to_path_buf(),
            resume: false,
            report_only: false,
            quiet: true,
        }
    }

    #[test]
    fn ablate_checks_its_numbers_before_anything_else() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("no-board.yml");
        let base = ablate_options(&missing, tmp.path());
        let err = |o: AblateOptions| ablate(&o).unwrap_err().to_string();
        let e = err(AblateOptions { confidence: 1.0, ..base.clone() });
        assert!(e.contains("--confidence 1: expected a value in [0.5, 1)"), "{e}");
        assert!(err(AblateOptions { confidence: 0.4, ..base.clone() }).contains("--confidence 0.4"));
        let e = err(AblateOptions { min_effect: 100.0, ..base.clone() });
        assert!(e.contains("--min-effect 100: expected percent in [0, 100)"), "{e}");
        assert!(err(AblateOptions { min_effect: -1.0, ..base.clone() }).contains("--min-effect -1"));
        let e = err(AblateOptions { repeats: 1, ..base.clone() });
        assert!(e.contains("--repeats 1: an interval needs at least 2 rounds"), "{e}");
        // At the edges of the ranges the numbers pass and the board is read.
        for ok in [
            AblateOptions { confidence: 0.5, ..base.clone() },
            AblateOptions { min_effect: 0.0, ..base.clone() },
            AblateOptions { repeats: 2, ..base.clone() },
        ] {
            let e = err(ok.clone());
            assert!(e.contains("no-board.yml") && !e.contains("expected") && !e.contains("needs"), "{ok:?}: {e}");
        }
    }
}
