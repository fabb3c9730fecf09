//! clap commands: `zynq-net bench ...` and `zynq-net lab ...`.
//!
//! Exit codes: 0 success; 1 the benchmark ran but some trial failed (or
//! `compare --fail-on-worse` found a regression); 2 usage, input or I/O
//! error (returned as `Err` to the binary, which prints the cause chain).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};
use clap::{Args, Subcommand};

use crate::compare;
use crate::lab::{self, LabOptions};
use crate::plan::{Plan, PLAN_FORMAT};
use crate::records::{self, files};
use crate::report;
use crate::rfc2544;
use crate::run::{self, Context, RunOptions};

use crate::spec::Rate;
use crate::targets::Targets;

/// `zynq-net bench`.
#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Expand the board's bench section (or a bench file) into the matrix; print it and save it as JSON.
    Plan {
        /// Board YAML (its `bench:` section; a top-level `board:` key) or a bench file (docs/bench.md).
        board: PathBuf,
        /// Write the plan here (JSON).
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[allow(missing_docs)]
        #[command(flatten)]
        overrides: Overrides,
    },
    /// Run the matrix: iperf3 --json per cell and repeat, per-core CPU load on every end.
    Run {
        #[allow(missing_docs)]
        #[command(flatten)]
        input: PlanInput,
        /// Run directory (plan.json, run.json, results.jsonl, raw/).
        #[arg(short, long)]
        output: PathBuf,
        /// Keep the trials already in OUTPUT/results.jsonl; run only the missing ones.
        #[arg(long)]
        resume: bool,
        /// No progress bar and no per-trial lines.
        #[arg(short, long)]
        quiet: bool,
    },
    /// RFC 2544-style zero-loss throughput search per frame size (UDP).
    Rfc2544 {
        #[allow(missing_docs)]
        #[command(flatten)]
        input: PlanInput,
        /// Run directory (rfc2544.json, rfc2544-trials.jsonl).
        #[arg(short, long)]
        output: PathBuf,
        /// Frame sizes (bytes), comma-separated; default: the plan's.
        #[arg(long, value_delimiter = ',')]
        frame_sizes: Vec<u32>,
        /// Line rate (e.g. 1G, 200M): upper search bound and 100% mark.
        #[arg(long)]
        line_rate: Option<Rate>,
        /// Seconds per search trial.
        #[arg(long)]
        trial_seconds: Option<f64>,
        /// Seconds of the confirmation trial.
        #[arg(long)]
        confirm_seconds: Option<f64>,
        /// Maximum search trials per frame size.
        #[arg(long)]
        max_trials: Option<u32>,
        /// Loss counted as zero, percent.
        #[arg(long)]
        loss_tolerance: Option<f64>,
        /// Search resolution, percent.
        #[arg(long)]
        resolution: Option<f64>,
        /// No progress output.
        #[arg(short, long)]
        quiet: bool,
    },
    /// Compare two run directories (A = baseline, B = candidate).
    Compare {
        /// Baseline run directory (or results.jsonl).
        a: PathBuf,
        /// Candidate run directory (or results.jsonl).
        b: PathBuf,
        /// Write compare.md and compare.json here.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Exit 1 when a cell is worse beyond noise.
        #[arg(long)]
        fail_on_worse: bool,
    },
    /// Which groups of tuning steps help and which hurt: the full plan, the
    /// plan without each group, and the untuned DUT, in random interleaved
    /// order; effects with simultaneous intervals; a suggested plan and
    /// board diff without the groups that hurt (never applied).
    Ablate(Box<AblateArgs>),
    /// Write report.md, report.csv, report.json and report.html for a run directory.
    Report {
        /// Run directory.
        dir: PathBuf,
        /// Output directory (default: the run directory).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}

/// `zynq-net bench ablate`.
#[derive(Debug, Args)]
pub struct AblateArgs {
    /// Board YAML: its tuning plan (as `gen` makes it) and, unless --bench,
    /// its bench section (matrix, DUT and peer).
    pub board: PathBuf,
    /// Groups to leave out one at a time: built-in names (sysctl, rings,
    /// coalescing, offloads, channels, ptp, rps, rfs, xps, irq, qdisc,
    /// fastpath, other) or NAME=VERB[:FIELD...][+VERB...] with shell globs
    /// per field (e.g. tcpwin=sysctl:net.ipv4.tcp_*mem). Default: every
    /// built-in group with steps in the plan.
    #[arg(long, value_delimiter = ',')]
    pub groups: Vec<String>,
    /// Matrix cells to measure (ids as `bench plan` prints them). Default: all.
    #[arg(long, value_delimiter = ',')]
    pub cells: Vec<String>,
    /// A bench file (docs/bench.md) for the matrix instead of the board's bench section.
    #[arg(long)]
    pub bench: Option<PathBuf>,
    /// A tuning plan file instead of the one generated from the board.
    #[arg(long)]
    pub tuning_plan: Option<PathBuf>,
    /// Seconds per trial, at least 1 (a fraction is passed to iperf3 `-t`
    /// as written; iperf3 3.12 reads the whole part).
    #[arg(long, value_parser = seconds_at_least_one)]
    pub duration: Option<f64>,
    /// Rounds: every variant × cell runs once per round (default 5; 2 to
    /// 1000, as the board's `repeats`).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeats: u32,
    #[allow(missing_docs)]
    #[command(flatten)]
    pub target: TargetArgs,
    /// Which end of the targets carries the plan: dut, client or server
    /// (default: the targets' dut if any, else the client, which is the
    /// board's DUT for targets made from a board).
    #[arg(long)]
    pub dut: Option<String>,
    /// The applier on the DUT: a path (run with sh) or a command on its
    /// PATH (default: zynq-net-apply over ssh; locally $ZYNQ_NET_APPLIER,
    /// zynq-net-apply on PATH, or the source tree's).
    #[arg(long)]
    pub applier: Option<String>,
    /// Directory on the DUT for the applier's state, log and lock (default:
    /// the applier's own, so `revert` undoes what the boot applied; with
    /// --lab, the lab's).
    #[arg(long)]
    pub applier_state: Option<String>,
    /// Directory on an ssh DUT for the variant plans.
    #[arg(long, default_value = "/tmp/zynq-net-ablate")]
    pub remote_dir: String,
    /// Family-wise confidence of the intervals, over all groups and cells.
    #[arg(long, default_value_t = 0.95)]
    pub confidence: f64,
    /// Smallest effect (percent) that is called helps or hurts.
    #[arg(long, default_value_t = 1.0)]
    pub min_effect: f64,
    /// Seed of the run order (default: from the clock; recorded).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Output directory.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Keep the trials already in OUTPUT; run only the missing ones.
    #[arg(long)]
    pub resume: bool,
    /// Only analyse OUTPUT again and rewrite its reports (no traffic).
    #[arg(long)]
    pub report_only: bool,
    /// No progress bar and no per-trial lines.
    #[arg(short, long)]
    pub quiet: bool,
}

/// What runs and where (`bench run`, `bench rfc2544`): the plan, its
/// overrides and the targets.
#[derive(Debug, Args)]
pub struct PlanInput {
    /// plan.json from `bench plan`, a board YAML or a bench file.
    #[arg(short, long)]
    pub plan: PathBuf,
    #[allow(missing_docs)]
    #[command(flatten)]
    pub overrides: Overrides,
    #[allow(missing_docs)]
    #[command(flatten)]
    pub target: TargetArgs,
}

impl PlanInput {
    /// The plan (see [`load_plan`]) and the targets it runs on (see
    /// [`TargetArgs::load`]).
    fn load(&self) -> anyhow::Result<(Plan, Targets)> {
        let plan = load_plan(&self.plan, &self.overrides)?;
        let targets = self.target.load(&plan)?;
        Ok((plan, targets))
    }
}

/// A `--duration` of ablate: a finite number of seconds, at least 1 (not
/// `inf` or `nan`, which a saved design could not hold as JSON).
fn seconds_at_least_one(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 1.0 => Ok(v),
        _ => Err(format!("`{s}` is not a number of seconds of at least 1")),
    }
}

/// Quick overrides of the bench section.
#[derive(Debug, Args, Default)]
pub struct Overrides {
    /// Seconds per matrix trial: a whole number, 1 to 86400 (the board's
    /// `duration_s`; iperf3 `-t`, which stops at MAX_TIME 86400).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=86400))]
    pub duration: Option<u32>,
    /// Repeats per cell, 1 to 1000 (the board's `repeats`).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeats: Option<u32>,
}

/// Where it runs.
#[derive(Debug, Args)]
#[group(required = false, multiple = false)]
pub struct TargetArgs {
    /// Targets file (client, server, optional DUT; local, netns or ssh).
    /// Default: the DUT and first peer of the board's bench section.
    #[arg(short, long)]
    pub targets: Option<PathBuf>,
    /// A lab made by `zynq-net lab up` (its name).
    #[arg(long)]
    pub lab: Option<String>,
}

impl TargetArgs {
    fn load(&self, plan: &Plan) -> anyhow::Result<Targets> {
        match (&self.targets, &self.lab, &plan.targets) {
            (Some(p), _, _) => Ok(Targets::load(p)?),
            (None, Some(name), _) => Ok(lab::state(name).with_context(|| format!("lab `{name}` is not up"))?.targets),
            (None, None, Some(t)) => Ok(t.clone()),
            (None, None, None) => {
                bail!("--targets or --lab is required (the plan names no DUT and peer)")
            }
        }
    }
}

/// A plan from `path`: a plan file that `bench plan -o` wrote (JSON whose
/// `format` is [`PLAN_FORMAT`]), else a board file or a bench file, which
/// the model crate tells apart by the top-level `board:` key.
fn load_plan(path: &Path, o: &Overrides) -> anyhow::Result<Plan> {
    // Bytes, not text: a file that is not UTF-8 goes to the board loader,
    // which reports it at its line:col (rule not-utf8).
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let format = std::str::from_utf8(&bytes)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok())
        .and_then(|v| v.get("format").and_then(|f| f.as_str().map(str::to_string)));
    let mut plan = match format.as_deref() {
        Some(PLAN_FORMAT) => Plan::load(path)?,
        Some(f) if f.starts_with("zynq-net-bench-plan") => anyhow::bail!(
            "{}: plan format `{f}` is not the one this zynq-net reads (`{PLAN_FORMAT}`): \
             make the plan again with `zynq-net bench plan BENCH-FILE -o PLAN`",
            path.display()
        ),
        _ => {
            let (name, spec, targets) = crate::board::load(path)?;
            let mut p = Plan::from_spec(name, &spec);
            p.targets = targets;
            p
        }
    };
    if o.duration.is_some() || o.repeats.is_some() {
        if let Some(d) = o.duration {
            plan.spec.duration = f64::from(d);
        }
        if let Some(r) = o.repeats {
            plan.spec.repeats = r;
        }
        plan.spec.validate()?;
        let targets = plan.targets.take();
        plan = Plan::from_spec(plan.board.clone(), &plan.spec);
        plan.targets = targets;
    }
    Ok(plan)
}

/// Runs a `bench` command; returns the exit code.
pub fn run_bench(cmd: BenchCommand) -> anyhow::Result<i32> {
    match cmd {
        BenchCommand::Plan { board, output, overrides } => {
            let plan = load_plan(&board, &overrides)?;
            zynq_net_model::out!("{}", plan.to_text());
            if let Some(o) = output {
                plan.save(&o)?;
                eprintln!("plan saved to {}", o.display());
            }
            Ok(0)
        }
        BenchCommand::Run { input, output, resume, quiet } => {
            let (plan, targets) = input.load()?;
            let recs = run::run_plan(&plan, &targets, &output, &RunOptions { resume, quiet })?;
            let failed = recs.iter().filter(|r| r.error.is_some()).count();
            let bound = recs.iter().filter(|r| !r.cpu_bound.is_empty()).count();
            eprintln!(
                "{} trials in {} ({} failed, {} CPU-bound); `zynq-net bench report {}` for the reports",
                recs.len(),
                output.join(files::RESULTS).display(),
                failed,
                bound,
                output.display()
            );
            Ok(if failed > 0 { 1 } else { 0 })
        }
        BenchCommand::Rfc2544 {
            input,
            output,
            frame_sizes,
            line_rate,
            trial_seconds,
            confirm_seconds,
            max_trials,
            loss_tolerance,
            resolution,
            quiet,
        } => {
            // The targets come from the plan's `targets`, which the
            // options below leave alone.
            let (mut plan, targets) = input.load()?;
            {
                let s = &mut plan.spec;
                if !frame_sizes.is_empty() {
                    s.frame_sizes = frame_sizes;
                }
                if let Some(l) = line_rate {
                    s.line_rate = l;
                }
                let r = &mut s.rfc2544;
                r.trial_seconds = trial_seconds.unwrap_or(r.trial_seconds);
                r.confirm_seconds = confirm_seconds.unwrap_or(r.confirm_seconds);
                r.max_trials = max_trials.unwrap_or(r.max_trials);
                r.loss_tolerance_percent = loss_tolerance.unwrap_or(r.loss_tolerance_percent);
                r.resolution_percent = resolution.unwrap_or(r.resolution_percent);
                s.validate()?;
            }
            let ctx = Context::new(&targets, &plan)?; // first: unreachable targets leave OUTPUT as it was
            std::fs::create_dir_all(&output).with_context(|| format!("creating {}", output.display()))?;
            let trials_path = output.join(files::RFC2544_TRIALS);
            if trials_path.exists() {
                std::fs::remove_file(&trials_path)?;
            }
            if !output.join(files::PLAN).exists() {
                plan.save(&output.join(files::PLAN))?;
            }
            let s = plan.rfc2544().clone();
            let est =
                plan.spec.frame_sizes.len() as f64 * (s.trial_seconds * s.max_trials as f64 / 2.0 + s.confirm_seconds);
            let pb = run::progress(est, quiet);
            let mut save_err = None;
            let res = rfc2544::run(
                &ctx,
                &s,
                plan.spec.line_rate.0,
                &plan.spec.frame_sizes,
                |f, t| {
                    pb.set_message(format!("{f} B trial {}", t.record.repeat));
                    pb.inc((t.record.wall_seconds * 10.0) as u64);
                    if let Err(e) = records::append_jsonl(&trials_path, &t.record) {
                        save_err.get_or_insert(e);
                    }
                    t
                },
                |fr| {
                    if !quiet {
                        run::say(
                            &pb,
                            format!(
                                "{:>5} B: {:>10.0} frames/s {:>9.1} Mbit/s {:>5.1}% of line rate, {} search trials{}{}",
                                fr.frame_size,
                                fr.fps,
                                fr.frame_bps / 1e6,
                                fr.line_percent,
                                fr.search_trials,
                                if fr.confirmed { "" } else { ", NOT confirmed" },
                                if fr.sender_limited { ", sender-limited" } else { "" }
                            ),
                        );
                    }
                },
            );
            pb.finish_and_clear();
            if let Some(e) = save_err {
                return Err(e.into());
            }
            let p = output.join(files::RFC2544);
            std::fs::write(&p, serde_json::to_string_pretty(&res)? + "\n")
                .with_context(|| format!("writing {}", p.display()))?;
            eprintln!("RFC 2544-style result in {}", p.display());
            Ok(if res.frames.iter().all(|f| f.confirmed) { 0 } else { 1 })
        }
        BenchCommand::Compare { a, b, output, fail_on_worse } => {
            let (ra, xa) = compare::load_run(&a)?;
            let (rb, xb) = compare::load_run(&b)?;
            let mut c = compare::compare_records(&a.display().to_string(), &ra, &b.display().to_string(), &rb);
            if let (Some(xa), Some(xb)) = (&xa, &xb) {
                compare::compare_rfc2544(&mut c, xa, xb);
            }
            let md = compare::to_markdown(&c);
            zynq_net_model::out!("{md}");
            if let Some(o) = output {
                std::fs::create_dir_all(&o)?;
                std::fs::write(o.join("compare.md"), &md)?;
                std::fs::write(o.join("compare.json"), serde_json::to_string_pretty(&c)? + "\n")?;
            }
            let worse = c.cells.iter().any(|d| d.verdict == "worse") || c.frames.iter().any(|f| f.verdict == "worse");
            Ok(if fail_on_worse && worse { 1 } else { 0 })
        }
        BenchCommand::Ablate(a) => run_ablate(&a),
        BenchCommand::Report { dir, output } => {
            let r = report::load(&dir)?;
            let out = output.unwrap_or_else(|| dir.clone());
            for p in report::write_all(&r, &out)? {
                zynq_net_model::outln!("{}", p.display());
            }
            Ok(0)
        }
    }
}

fn run_ablate(a: &AblateArgs) -> anyhow::Result<i32> {
    use crate::ablate::{self, groups, Design, Dut};
    let out = &a.output;
    let design_path = out.join(ablate::files::DESIGN);
    if a.report_only {
        let design = Design::load(&design_path)?;
        let trials: Vec<records::AblateTrial> = records::read_jsonl(&out.join(ablate::files::TRIALS))?;
        return ablate_reports(&design, &trials, &design.setup, out);
    }
    if !(0.5..1.0).contains(&a.confidence) {
        bail!("--confidence {}: expected a value in [0.5, 1), e.g. 0.95", a.confidence);
    }
    if !(0.0..100.0).contains(&a.min_effect) {
        bail!("--min-effect {}: expected percent in [0, 100)", a.min_effect);
    }
    if a.repeats < 2 {
        bail!("--repeats {}: an interval needs at least 2 rounds", a.repeats);
    }
    // The plan: generated from the board exactly as `gen` does, or given.
    let loaded = zynq_net_model::load_board(&a.board).map_err(|e| anyhow::anyhow!("{e}"))?;
    let input = a.board.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let (plan_source, plan_text) = match &a.tuning_plan {
        Some(p) => {
            (p.display().to_string(), std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?)
        }
        None => {
            let arts = zynq_net_render::render_all(&loaded, &input)?;
            let art =
                arts.iter().find(|x| x.path == "tuning/zynq-net.plan").context("the board renders no tuning plan")?;
            (format!("{input} (tuning/zynq-net.plan)"), String::from_utf8_lossy(&art.contents).into_owned())
        }
    };
    let plan = groups::PlanText::parse(&plan_source, &plan_text)?;
    let groups = groups::resolve(&plan, &a.groups)?;
    // The matrix and the targets.
    let board_name = loaded.board.board.name.clone();
    let (mut spec, board_targets) = match (&a.bench, &loaded.board.bench, &loaded.resolved.bench) {
        (Some(f), _, _) => {
            let (_, spec, targets) = crate::board::load(f)?;
            (spec, targets)
        }
        (None, Some(b), Some(r)) => (crate::spec::BenchSpec::from_model(b, r), crate::board::targets(b)),
        _ => bail!(
            "{}: the board has no `bench` section; add one (docs/board-format.md) or pass --bench FILE (docs/bench.md)",
            a.board.display()
        ),
    };
    if let Some(d) = a.duration {
        spec.duration = d;
    }
    spec.repeats = a.repeats;
    spec.validate()?;
    let mut bench = Plan::from_spec(Some(board_name.clone()), &spec);
    bench.targets = board_targets;
    let mut cells = bench.cells.clone();
    if !a.cells.is_empty() {
        let unknown: Vec<&String> = a.cells.iter().filter(|c| !cells.iter().any(|x| &x.id == *c)).collect();
        if !unknown.is_empty() {
            bail!(
                "--cells: unknown cell(s) {}; the matrix has: {}",
                unknown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "),
                cells.iter().map(|c| c.id.as_str()).collect::<Vec<_>>().join(", ")
            );
        }
        cells.retain(|c| a.cells.contains(&c.id));
    }
    let targets = a.target.load(&bench)?;
    let role = a.dut.clone().unwrap_or_else(|| if targets.dut.is_some() { "dut".into() } else { "client".into() });
    let end = ablate::dut_endpoint(&targets, &role)?;
    let applier = match (&a.applier, &end.host) {
        (Some(p), _) => p.clone(),
        (None, crate::exec::Host::Ssh { .. }) => "zynq-net-apply".into(),
        (None, _) => lab::find_applier(None)
            .context("no applier found: pass --applier or set ZYNQ_NET_APPLIER")?
            .display()
            .to_string(),
    };
    let env = match (&a.applier_state, &a.target.lab) {
        (Some(d), _) => {
            let d = d.trim_end_matches('/');
            end.host
                .run(&crate::exec::argv(&["mkdir", "-p", d]))
                .with_context(|| format!("creating --applier-state {d} on the DUT"))?;
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
    eprintln!(
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
    let rc = ablate_reports(&design, &trials, &design.setup, out)?;
    Ok(rc)
}

fn ablate_reports(
    design: &crate::ablate::Design,
    trials: &[crate::records::AblateTrial],
    setup: &str,
    out: &Path,
) -> anyhow::Result<i32> {
    use crate::ablate::{diff, report as arep};
    let r = arep::analyse(design, trials, setup);
    let board_diff = match (&design.board_file, r.suggestion.remove.is_empty()) {
        (Some(b), false) => match diff::board_diff(b, &design.plan, &r.suggestion.removed_lines) {
            Ok(d) => Some(d),
            Err(e) => {
                eprintln!("warning: {e}");
                None
            }
        },
        _ => None,
    };
    let line = |name: &str, e: &crate::stats::Effect| {
        zynq_net_model::outln!(
            "  {:<12} {:>8} [{}, {}]  {}",
            name,
            arep::pct(e.percent),
            arep::pct(e.low),
            arep::pct(e.high),
            e.verdict
        );
    };
    for c in &r.cells {
        zynq_net_model::outln!("{}:", c.cell);
        for g in &c.groups {
            line(&g.group, &g.effect);
        }
        line("whole plan", &c.whole_plan);
    }
    for p in arep::write_all(design, &r, board_diff, out)? {
        eprintln!("wrote {}", p.display());
    }
    Ok(if r.failed > 0 { 1 } else { 0 })
}

/// `zynq-net lab`.
#[derive(Debug, Subcommand)]
pub enum LabCommand {
    /// Create the namespaces client / router (DUT) / server.
    Up {
        /// Lab name (namespace prefix).
        #[arg(long, default_value = "znlab")]
        name: String,
        /// Client subnet 10.201.N.0/24 (the server gets N+1).
        #[arg(long, default_value_t = 1)]
        subnet: u8,
        /// Shape the router's egress to this rate with tbf (e.g. 200M).
        #[arg(long)]
        shape: Option<Rate>,
        /// Forward through an nftables flowtable.
        #[arg(long)]
        flowtable: bool,
        /// Apply this board tuning plan in the router namespace.
        #[arg(long)]
        plan: Option<PathBuf>,
        /// The applier script (default: $ZYNQ_NET_APPLIER, zynq-net-apply on PATH, the source tree's).
        #[arg(long)]
        applier: Option<PathBuf>,
        /// veth queues.
        #[arg(long, default_value_t = 2)]
        queues: u32,
        /// Link MTU.
        #[arg(long, default_value_t = 1500)]
        mtu: u32,
        /// Also write the targets file here.
        #[arg(long)]
        targets_out: Option<PathBuf>,
    },
    /// Remove the lab (reverting an applied plan first).
    Down {
        /// Lab name.
        #[arg(long, default_value = "znlab")]
        name: String,
    },
    /// Print the lab's state (targets) as JSON.
    Status {
        /// Lab name.
        #[arg(long, default_value = "znlab")]
        name: String,
    },
}

/// Runs a `lab` command; returns the exit code.
pub fn run_lab(cmd: LabCommand) -> anyhow::Result<i32> {
    match cmd {
        LabCommand::Up { name, subnet, shape, flowtable, plan, applier, queues, mtu, targets_out } => {
            let st = lab::up(&LabOptions {
                name,
                subnet,
                shape: shape.map(|r| r.0),
                flowtable,
                plan,
                applier,
                queues,
                mtu,
            })?;
            if let Some(p) = targets_out {
                st.targets.save(&p)?;
            }
            zynq_net_model::outln!("{}", st.targets.description);
            zynq_net_model::outln!("state: {}", lab::state_path(&st.options.name).display());
            if let Some(o) = &st.apply_output {
                eprint!("{o}");
            }
            Ok(0)
        }
        LabCommand::Down { name } => {
            let msgs = lab::down(&name)?;
            for m in &msgs {
                eprintln!("lab down: {m}");
            }
            Ok(if msgs.is_empty() { 0 } else { 1 })
        }
        LabCommand::Status { name } => {
            let st = lab::state(&name)?;
            zynq_net_model::outln!("{}", serde_json::to_string_pretty(&st)?);
            Ok(0)
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use clap::FromArgMatches as _;

    use crate::records::{append_jsonl, TrialRecord};

    fn zcu102() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../meta-zynq-net/boards/zcu102.yml")
    }

    /// `zynq-net bench ARGS...` as clap parses it.
    fn bench(args: &[&str]) -> BenchCommand {
        let cmd = BenchCommand::augment_subcommands(clap::Command::new("bench"));
        let m = cmd.try_get_matches_from(std::iter::once("bench").chain(args.iter().copied())).unwrap();
        BenchCommand::from_arg_matches(&m).unwrap()
    }

    fn no_overrides() -> Overrides {
        Overrides::default()
    }

    #[test]
    fn a_plan_is_made_from_a_board_saved_and_read_back() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("plan.json");
        let board = zcu102();
        assert_eq!(run_bench(bench(&["plan", board.to_str().unwrap(), "-o", out.to_str().unwrap()])).unwrap(), 0);
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
        let d = load_plan(&board, &Overrides { duration: Some(3), repeats: None }).unwrap();
        assert!(d.cells.iter().all(|c| c.seconds == 3.0 && c.repeats == base.spec.repeats), "{:?}", d.cells);
        let r = load_plan(&board, &Overrides { duration: None, repeats: Some(7) }).unwrap();
        assert!(r.cells.iter().all(|c| c.repeats == 7 && c.seconds == base.spec.duration), "{:?}", r.cells);
        assert_eq!((d.targets.as_ref(), r.targets.as_ref()), (base.targets.as_ref(), base.targets.as_ref()));
        assert!(load_plan(&board, &Overrides { duration: Some(0), repeats: None }).is_err(), "validated");
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
        let e = format!("{:#}", load_plan(&other, &no_overrides()).unwrap_err());
        assert!(!e.contains("plan format"), "{e}");
    }

    #[test]
    fn targets_come_from_the_flag_else_the_plan() {
        let tmp = tempfile::tempdir().unwrap();
        let plan = load_plan(&zcu102(), &no_overrides()).unwrap();
        let none = TargetArgs { targets: None, lab: None };
        assert_eq!(&none.load(&plan).unwrap(), plan.targets.as_ref().unwrap());
        let mut own = plan.targets.clone().unwrap();
        own.port = 5999;
        let f = tmp.path().join("targets.json");
        own.save(&f).unwrap();
        assert_eq!(TargetArgs { targets: Some(f), lab: None }.load(&plan).unwrap().port, 5999);
        let bare = Plan { targets: None, ..plan };
        let e = none.load(&bare).unwrap_err().to_string();
        assert!(e.contains("--targets or --lab is required"), "{e}");
        let lab = TargetArgs { targets: None, lab: Some("zn-no-such-lab".into()) };
        let e = lab.load(&bare).unwrap_err().to_string();
        assert!(e.contains("lab `zn-no-such-lab` is not up"), "{e}");
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
        let p = |x: &Path| x.to_str().unwrap().to_string();
        let code = |b: &Path, fail: bool| {
            let mut args = vec!["compare".to_string(), p(&a), p(b), "-o".into(), p(&out)];
            if fail {
                args.push("--fail-on-worse".into());
            }
            run_bench(bench(&args.iter().map(String::as_str).collect::<Vec<_>>())).unwrap()
        };
        assert_eq!(code(&worse, true), 1);
        let json = std::fs::read_to_string(out.join("compare.json")).unwrap();
        assert!(json.contains("\"worse\"") && out.join("compare.md").exists(), "{json}");
        assert_eq!(code(&worse, false), 0);
        assert_eq!(code(&better, true), 0);
    }

    #[test]
    fn report_writes_the_reports_into_the_run_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let d = run_dir(tmp.path(), "run", &[100e6, 102e6]);
        assert_eq!(run_bench(bench(&["report", d.to_str().unwrap()])).unwrap(), 0);
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
        let p = |x: &Path| x.to_str().unwrap().to_string();
        let run = |targets: &Path, out: &Path| {
            let args = ["run", "-q", "-p", &p(&b), "-t", &p(targets), "-o", &p(out)];
            run_bench(bench(&args)).unwrap()
        };
        let good = tmp.path().join("good");
        std::fs::create_dir_all(&good).unwrap();
        assert_eq!(run(&loopback_targets(&good, "127.0.0.1"), &good.join("run")), 0);
        assert_eq!(records::read_jsonl::<TrialRecord>(&good.join("run").join(files::RESULTS)).unwrap().len(), 1);
        let bad = tmp.path().join("bad");
        std::fs::create_dir_all(&bad).unwrap();
        // RFC 6761: .invalid never resolves.
        assert_eq!(run(&loopback_targets(&bad, "zn-bench.invalid"), &bad.join("run")), 1);
    }

    #[test]
    fn ablate_checks_its_numbers_before_anything_else() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().to_str().unwrap();
        let missing = tmp.path().join("no-board.yml");
        let missing = missing.to_str().unwrap();
        let err = |extra: &[&str]| {
            let mut args = vec!["ablate", missing, "-o", out];
            args.extend_from_slice(extra);
            format!("{:#}", run_bench(bench(&args)).unwrap_err())
        };
        assert!(err(&["--confidence", "1"]).contains("--confidence 1: expected a value in [0.5, 1)"));
        assert!(err(&["--confidence", "0.4"]).contains("--confidence 0.4"));
        assert!(err(&["--min-effect", "100"]).contains("--min-effect 100: expected percent in [0, 100)"));
        assert!(err(&["--min-effect=-1"]).contains("--min-effect -1"));
        assert!(err(&["--repeats", "1"]).contains("--repeats 1: an interval needs at least 2 rounds"));
        // At the edges of the ranges the numbers pass and the board is read.
        for ok in [&["--confidence", "0.5"][..], &["--min-effect", "0"], &["--repeats", "2"]] {
            let e = err(ok);
            assert!(e.contains("no-board.yml") && !e.contains("expected") && !e.contains("needs"), "{ok:?}: {e}");
        }
    }
}
