//! Ablation: which groups of tuning steps help and which hurt, measured on
//! the user's own bench.
//!
//! For the chosen matrix cells it measures the **full** plan, the plan
//! **without** each group (leave-one-out) and the **untuned** DUT (the
//! applier's `revert`). Every round runs every variant once, in an order
//! drawn afresh per round from a recorded seed (and the cells in a random
//! order within a variant), so slow drift of the lab spreads over all
//! variants instead of posing as an effect. Before every variant the
//! applier reverts to the untuned state and applies that variant's plan,
//! an ordinary plan file written by [`groups::write_plan`].
//!
//! Files in the output directory:
//! `ablate.json` (the design: plan, groups, variants, cells, seed),
//! `ablate-trials.jsonl` (one line per trial, appended and flushed),
//! `plans/VARIANT.plan`, `raw/` (iperf3 JSON), and after analysis
//! `ablate.md`, `ablate.html`, `ablate-report.json`, `suggested.plan`,
//! `suggested-board.diff` (never applied by this tool).

pub mod design;
pub mod diff;
pub mod groups;
pub mod report;

use std::path::Path;

use serde_json::Value;

use crate::error::BenchError;
use crate::exec::{argv, Host};
use crate::plan::{Cell, Plan};
use crate::records::{append_jsonl, read_jsonl, AblateTrial, ApplyOutcome, TrialRecord};
use crate::run::{cell_opts, progress, say, set_mtu, trial, Context};
use crate::targets::{Endpoint, Targets};
pub use design::{files, Design, Variant, VariantKind, ABLATE_FORMAT};

/// The DUT as the ablation reaches it: where the applier runs, with which
/// environment, and where variant plans are put.
#[derive(Debug, Clone, PartialEq)]
pub struct Dut {
    /// Where commands run.
    pub host: Host,
    /// The applier on the DUT: a path (run with `sh`) or a command on its PATH.
    pub applier: String,
    /// `NAME=VALUE` environment for the applier (state, log, lock).
    pub env: Vec<String>,
    /// Directory on the DUT for variant plans (ssh targets); local and
    /// netns targets read them from the output directory.
    pub remote_dir: String,
}

impl Dut {
    fn applier_cmd(&self, args: &[&str]) -> Vec<String> {
        let mut v = Vec::new();
        if !self.env.is_empty() {
            v.push("env".to_string());
            v.extend(self.env.iter().cloned());
        }
        if self.applier.contains('/') {
            v.push("sh".into());
        }
        v.push(self.applier.clone());
        v.extend(argv(args));
        v
    }

    /// Puts a variant plan where the applier can read it; returns its path there.
    pub fn put_plan(&self, local: &Path, name: &str, text: &str) -> Result<String, BenchError> {
        match &self.host {
            Host::Ssh { .. } => {
                let p = format!("{}/{name}", self.remote_dir.trim_end_matches('/'));
                self.host.run(&argv(&["mkdir", "-p", &self.remote_dir]))?;
                self.host.put_file(&p, text.as_bytes())?;
                Ok(p)
            }
            _ => {
                let abs = std::fs::canonicalize(local).map_err(|e| BenchError::io(local, e))?;
                Ok(abs.to_string_lossy().into_owned())
            }
        }
    }

    /// `revert --quiet`; returns its exit status (0 or 3), fails on others.
    pub fn revert(&self) -> Result<i32, BenchError> {
        let cmd = self.applier_cmd(&["revert", "--quiet"]);
        let o = self.host.output(&cmd)?;
        match o.status.code() {
            Some(c @ (0 | 3)) => Ok(c),
            _ => Err(BenchError::Command {
                cmd: cmd.join(" "),
                detail: format!(
                    "{}: {}{}",
                    o.status,
                    String::from_utf8_lossy(&o.stdout).trim(),
                    String::from_utf8_lossy(&o.stderr).trim()
                ),
            }),
        }
    }

    /// `apply --json PLAN`; returns the exit status (0 or 3) and the steps.
    pub fn apply(&self, plan: &str) -> Result<(i32, Vec<Value>), BenchError> {
        let cmd = self.applier_cmd(&["apply", "--json", plan]);
        let o = self.host.output(&cmd)?;
        let text = String::from_utf8_lossy(&o.stdout);
        match o.status.code() {
            Some(c @ (0 | 3)) => {
                let steps = serde_json::from_str::<Value>(text.trim())
                    .ok()
                    .and_then(|v| v.get("steps").and_then(Value::as_array).cloned())
                    .unwrap_or_default();
                Ok((c, steps))
            }
            _ => Err(BenchError::Command {
                cmd: cmd.join(" "),
                detail: format!("{}: {}{}", o.status, text.trim(), String::from_utf8_lossy(&o.stderr).trim()),
            }),
        }
    }

    /// `status PLAN` exit status: 0 when the plan is in force, -1 when the applier died by a signal.
    pub fn status(&self, plan: &str) -> Result<i32, BenchError> {
        let o = self.host.output(&self.applier_cmd(&["status", plan]))?;
        Ok(o.status.code().unwrap_or(-1))
    }
}

/// Picks the endpoint the plan is applied on.
pub fn dut_endpoint<'a>(targets: &'a Targets, role: &str) -> Result<&'a Endpoint, BenchError> {
    match role {
        "dut" => targets.dut.as_ref().ok_or_else(|| {
            BenchError::Invalid("--dut dut: the targets have no `dut` (use --dut client or --dut server)".into())
        }),
        "client" => Ok(&targets.client),
        "server" => Ok(&targets.server),
        other => Err(BenchError::Invalid(format!("--dut `{other}`: expected dut, client or server"))),
    }
}

/// Options of [`run`].
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Keep the trials already done.
    pub resume: bool,
    /// No progress bar and no per-trial lines.
    pub quiet: bool,
}

fn done(trials: &[AblateTrial], round: u32, variant: &str, cell: &str) -> bool {
    trials.iter().any(|t| t.round == round && t.variant == variant && t.cell == cell && t.record.error.is_none())
}

/// Runs (or resumes) an ablation into `out`; returns every trial.
///
/// # Errors
/// [`BenchError`] when the output cannot be written, `--resume` finds a
/// different design, the targets cannot be probed, or the applier cannot
/// revert (a DUT that cannot be brought back to untuned cannot be measured).
/// A failed `apply` or iperf3 run is recorded as a failed trial instead.
pub fn run(
    design: &Design,
    bench: &Plan,
    targets: &Targets,
    dut: &Dut,
    out: &Path,
    opts: &RunOptions,
) -> Result<Vec<AblateTrial>, BenchError> {
    crate::records::output_dir(out)?;
    let plans_dir = out.join(files::PLANS_DIR);
    std::fs::create_dir_all(&plans_dir).map_err(|e| BenchError::io(&plans_dir, e))?;
    std::fs::create_dir_all(out.join(files::RAW_DIR)).map_err(|e| BenchError::io(out, e))?;
    let design_path = out.join(files::DESIGN);
    let trials_path = out.join(files::TRIALS);
    let mut trials: Vec<AblateTrial> = Vec::new();
    if opts.resume && design_path.exists() {
        let old = Design::load(&design_path)?;
        if old != *design {
            return Err(BenchError::Invalid(format!(
                "{}: --resume with a different plan, groups, cells, repeats or seed than this directory was started with; use a new output directory (or the same options)",
                design_path.display()
            )));
        }
        trials = read_jsonl(&trials_path)?;
    } else if trials_path.exists() {
        std::fs::remove_file(&trials_path).map_err(|e| BenchError::io(&trials_path, e))?;
    }
    design.save(&design_path)?;
    let mut plan_paths: Vec<Option<String>> = Vec::new();
    for v in &design.variants {
        match design.variant_plan(v) {
            Some(text) => {
                let name = format!("{}.plan", v.id);
                let local = plans_dir.join(&name);
                crate::records::write_file(&local, &text)?;
                plan_paths.push(Some(dut.put_plan(&local, &name, &text)?));
            }
            None => plan_paths.push(None),
        }
    }
    let full_path = plan_paths[0].clone().unwrap_or_default();
    // Leave the DUT as it was found: tuned if the full plan was in force.
    let was_tuned = dut.status(&full_path)? == 0;
    let ctx = Context::new(targets, bench)?;
    let pb = progress(design.nominal_seconds(), opts.quiet);
    let mut current_mtu: Option<u32> = None;
    let total = design.trial_count();
    let mut count = trials.iter().filter(|t| t.record.error.is_none()).count();
    let result = (|| -> Result<(), BenchError> {
        for round in 0..design.rounds {
            for (vi, cells) in design.round_order(round) {
                let v = &design.variants[vi];
                let todo: Vec<&Cell> =
                    cells.iter().map(|&c| &design.cells[c]).filter(|c| !done(&trials, round, &v.id, &c.id)).collect();
                pb.inc(resumed_ticks(cells.iter().map(|&c| &design.cells[c]), &todo));
                if todo.is_empty() {
                    continue;
                }
                pb.set_message(format!("round {}/{} {}", round + 1, design.rounds, v.id));
                let revert_exit = dut.revert()?;
                let applied = match &plan_paths[vi] {
                    None => Ok((None, Vec::new())),
                    Some(p) => dut.apply(p).map(|(c, s)| (Some(c), s)),
                };
                let (apply_exit, steps, apply_error) = match applied {
                    Ok((c, s)) => (c, s, None),
                    Err(e) => (Some(-1), Vec::new(), Some(e.to_string())),
                };
                let apply = ApplyOutcome { revert_exit, apply_exit, steps };
                for cell in todo {
                    let nominal = cell.progress_ticks();
                    let mut record = if let Some(e) = &apply_error {
                        failed_record(&cell.id, round, format!("applying variant {}: {e}", v.id))
                    } else {
                        // A plan may set MTUs; the cell's MTU is set after it.
                        let links = has_ifaces(targets);
                        if links && (current_mtu != Some(cell.mtu) || apply_exit.is_some()) {
                            set_mtu(targets, cell.mtu)?;
                            current_mtu = Some(cell.mtu);
                        }
                        let t = trial(&ctx, &cell_opts(&ctx, cell, !links, bench.spec.zerocopy), &cell.id, round);
                        if let Some(raw) = &t.raw {
                            let p = out.join(files::RAW_DIR).join(format!("{}-{}-r{round}.json", v.id, cell.id));
                            crate::records::write_file(&p, serde_json::to_string_pretty(raw).unwrap_or_default())?;
                        }
                        t.record
                    };
                    record.notes.push(format!("variant {}", v.id));
                    let line = AblateTrial {
                        round,
                        variant: v.id.clone(),
                        cell: cell.id.clone(),
                        apply: apply.clone(),
                        record,
                    };
                    append_jsonl(&trials_path, &line)?;
                    count += usize::from(line.record.error.is_none());
                    if !opts.quiet {
                        let what = match &line.record.error {
                            Some(e) => format!("FAILED: {e}"),
                            None => format!("{:.1} Mbit/s", line.record.throughput_bps / 1e6),
                        };
                        say(&pb, format!("[{count}/{total}] round {} {:<22} {}: {what}", round + 1, v.id, cell.id));
                    }
                    trials.retain(|t| !(t.round == round && t.variant == v.id && t.cell == cell.id));
                    trials.push(line);
                    pb.inc(nominal);
                }
            }
        }
        Ok(())
    })();
    pb.finish_and_clear();
    // Put the DUT back even when the run failed half-way.
    let restore = dut.revert().and_then(|_| if was_tuned { dut.apply(&full_path).map(|_| ()) } else { Ok(()) });
    result?;
    restore?;
    Ok(trials)
}

fn has_ifaces(t: &Targets) -> bool {
    [&t.client, &t.server].into_iter().chain(t.dut.as_ref()).any(|e| !e.ifaces.is_empty())
}

fn failed_record(cell: &str, round: u32, error: String) -> TrialRecord {
    TrialRecord {
        cell: cell.to_string(),
        repeat: round,
        started: 0.0,
        wall_seconds: 0.0,
        command: String::new(),
        throughput_bps: 0.0,
        summary: None,
        cpu: Vec::new(),
        cpu_bound: Vec::new(),
        notes: Vec::new(),
        error: Some(error),
    }
}

/// The progress-bar ticks of a round's cells already done (on `--resume`):
/// the nominal ticks ([`Cell::progress_ticks`]) of each of `cells` not in
/// `todo`, so the bar's percent and ETA count only what is left.
fn resumed_ticks<'a>(cells: impl Iterator<Item = &'a Cell>, todo: &[&Cell]) -> u64 {
    cells.filter(|c| !todo.iter().any(|t| t.id == c.id)).map(Cell::progress_ticks).sum()
}
#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::spec::BenchSpec;
    use groups::PlanText;

    /// On --resume, the cells already done advance the bar by their nominal
    /// ticks; those still to run do not.
    #[test]
    fn resumed_cells_advance_the_bar() {
        let d = design();
        let cells: Vec<&Cell> = d.cells.iter().collect();
        assert!(cells.len() >= 2, "{cells:?}");
        let all: u64 = cells.iter().map(|c| c.progress_ticks()).sum();
        assert_eq!(resumed_ticks(cells.iter().copied(), &[]), all);
        assert_eq!(resumed_ticks(cells.iter().copied(), &cells), 0);
        assert_eq!(resumed_ticks(cells.iter().copied(), &cells[..1]), all - cells[0].progress_ticks());
        assert!(cells[0].progress_ticks() > 0);
    }

    pub(crate) fn design() -> Design {
        let text = "zynq-net-plan 2\nboard lab\nwait eth0 10\noffload eth0 tso off\nxps eth0 tx-0 00000001\nsysctl net.ipv4.tcp_notsent_lowat 16384\n";
        let spec = BenchSpec {
            directions: vec![crate::iperf::Direction::Rx, crate::iperf::Direction::Tx],
            protocols: vec![crate::iperf::Protocol::Tcp],
            ..BenchSpec::default()
        };
        design_of(text, &Plan::from_spec(None, &spec), 4, 42, "test")
    }

    /// The design of an ablation of the plan `text` (board `lab`, file
    /// `lab.plan`, every group) over all of `bench`'s cells: `rounds`
    /// rounds, shuffled by `seed`; 95 % intervals, 1 % minimum effect.
    fn design_of(text: &str, bench: &Plan, rounds: u32, seed: u64, setup: &str) -> Design {
        let plan = PlanText::parse("lab.plan", text).unwrap();
        let groups = groups::resolve(&plan, &[]).unwrap();
        Design {
            format: ABLATE_FORMAT.into(),
            board: Some("lab".into()),
            board_file: None,
            plan_source: "lab.plan".into(),
            plan_text: text.into(),
            variants: Design::new_variants(&plan, &groups),
            plan,
            groups,
            cells: bench.cells.clone(),
            rounds,
            seed,
            confidence: 0.95,
            min_effect_percent: 1.0,
            dut_role: "dut".into(),
            setup: setup.into(),
        }
    }

    #[test]
    fn variants_leave_one_group_out_and_keep_the_base() {
        let d = design();
        let ids: Vec<&str> = d.variants.iter().map(|v| v.id.as_str()).collect();
        assert_eq!(ids, ["full", "untuned", "without-sysctl", "without-offloads", "without-xps"]);
        let w = d.variant_plan(&d.variants[3]).unwrap();
        assert!(w.contains("\nwait eth0 10\n") && w.contains("\nxps eth0"), "{w}");
        assert!(!w.lines().any(|l| l.starts_with("offload ")), "{w}");
        assert!(w.starts_with("# zynq-net ablation variant `without-offloads`"), "{w}");
        assert!(d.variant_plan(&d.variants[1]).is_none());
    }

    #[test]
    fn order_is_random_per_round_and_reproducible() {
        let d = design();
        let orders: Vec<Vec<usize>> =
            (0..d.rounds).map(|r| d.round_order(r).into_iter().map(|(v, _)| v).collect()).collect();
        assert_eq!(orders[0], d.round_order(0).into_iter().map(|(v, _)| v).collect::<Vec<_>>());
        assert!(orders.iter().any(|o| *o != orders[0]), "same order every round: {orders:?}");
        for o in &orders {
            let mut s = o.clone();
            s.sort_unstable();
            assert_eq!(s, (0..d.variants.len()).collect::<Vec<_>>());
        }
    }

    #[test]
    fn variants_steps_plans_and_time() {
        let d = design();
        // Steps: 0 wait, 1 offload, 2 xps, 3 sysctl.
        let steps: Vec<(&str, VariantKind, Option<&str>, &[usize])> =
            d.variants.iter().map(|v| (v.id.as_str(), v.kind, v.without.as_deref(), v.steps.as_slice())).collect();
        assert_eq!(
            steps,
            [
                ("full", VariantKind::Full, None, &[0, 1, 2, 3][..]),
                ("untuned", VariantKind::Untuned, None, &[][..]),
                ("without-sysctl", VariantKind::Without, Some("sysctl"), &[0, 1, 2][..]),
                ("without-offloads", VariantKind::Without, Some("offloads"), &[0, 2, 3][..]),
                ("without-xps", VariantKind::Without, Some("xps"), &[0, 1, 3][..]),
            ]
        );
        let full = d.variant_plan(&d.variants[0]).unwrap();
        assert!(
            full.starts_with(
                "# zynq-net ablation variant `full` of lab.plan (4 of 4 steps)\nzynq-net-plan 2\nboard lab\n"
            ),
            "{full}"
        );
        let w = d.variant_plan(&d.variants[4]).unwrap();
        assert!(
            w.starts_with("# zynq-net ablation variant `without-xps` of lab.plan (3 of 4 steps; without group xps)\n"),
            "{w}"
        );
        // Two 10 s cells (one with 2 s omitted) × 5 variants × 4 rounds.
        let mut d = d;
        d.cells[0].omit = 2;
        assert_eq!(d.nominal_seconds(), (12.0 + 10.0) * 5.0 * 4.0);
        // Each round shuffles the cells too.
        let cell_orders: Vec<Vec<usize>> = (0..8).flat_map(|r| d.round_order(r)).map(|(_, c)| c).collect();
        assert!(cell_orders.contains(&vec![0, 1]) && cell_orders.contains(&vec![1, 0]), "{cell_orders:?}");
    }

    /// `bench ablate --report-only` over a design and its trials: done when
    /// no trial failed (none recorded, or all passed), not "0 failed".
    #[test]
    fn an_ablation_is_done_only_without_failed_trials() {
        use crate::commands::{ablate, AblateOptions, Outcome, Where};
        let d = design();
        let out = tempfile::tempdir().unwrap();
        d.save(&out.path().join(files::DESIGN)).unwrap();
        let o = AblateOptions {
            board: out.path().join("unused.yml"),
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
            output: out.path().to_path_buf(),
            resume: false,
            report_only: true,
            quiet: true,
        };
        let trials = out.path().join(files::TRIALS);
        assert_eq!(ablate(&o).unwrap(), Outcome::Done, "no trial recorded");
        let trial = |error: Option<&str>| AblateTrial {
            round: 0,
            variant: "full".into(),
            cell: d.cells[0].id.clone(),
            apply: ApplyOutcome { revert_exit: 0, apply_exit: Some(0), steps: vec![] },
            record: TrialRecord { error: error.map(str::to_string), ..TrialRecord::for_test(&d.cells[0].id, 0, 1e9) },
        };
        append_jsonl(&trials, &trial(None)).unwrap();
        assert_eq!(ablate(&o).unwrap(), Outcome::Done, "one trial, passed");
        append_jsonl(&trials, &trial(Some("iperf3: refused"))).unwrap();
        assert_eq!(ablate(&o).unwrap(), Outcome::AblationTrialsFailed(1));
    }

    #[test]
    fn design_file_round_trip() {
        let d = design();
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(files::DESIGN);
        d.save(&p).unwrap();
        assert!(std::fs::read_to_string(&p).unwrap().ends_with("}\n"));
        assert_eq!(Design::load(&p).unwrap(), d);
        let other = Design { format: "zynq-net-bench-ablate 0".into(), ..d };
        other.save(&p).unwrap();
        let e = Design::load(&p).unwrap_err().to_string();
        assert!(e.contains("format `zynq-net-bench-ablate 0`, this tool reads `zynq-net-bench-ablate 1`"), "{e}");
        assert!(Design::load(&dir.path().join("missing.json")).is_err());
    }

    #[test]
    fn the_dut_end_and_its_applier_command() {
        let end = |a: &str, ifaces: Vec<String>| Endpoint {
            host: Host::Local {},
            address: a.into(),
            ifaces,
            irq_pattern: None,
            pace_iface: None,
            nice: None,
        };
        let mut t = Targets {
            format: crate::targets::TARGETS_FORMAT.into(),
            client: end("c", vec![]),
            server: end("s", vec![]),
            dut: None,
            port: 5201,
            description: String::new(),
            udp_socket_buffer: None,
        };
        assert_eq!(dut_endpoint(&t, "client").unwrap().address, "c");
        assert_eq!(dut_endpoint(&t, "server").unwrap().address, "s");
        assert!(dut_endpoint(&t, "dut").unwrap_err().to_string().contains("the targets have no `dut`"));
        assert!(dut_endpoint(&t, "router")
            .unwrap_err()
            .to_string()
            .contains("--dut `router`: expected dut, client or server"));
        assert!(!has_ifaces(&t));
        t.dut = Some(end("d", vec!["eth0".into()]));
        assert_eq!(dut_endpoint(&t, "dut").unwrap().address, "d");
        assert!(has_ifaces(&t));
        let dut =
            Dut { host: Host::Local {}, applier: "zynq-net-apply".into(), env: vec![], remote_dir: "/tmp".into() };
        assert_eq!(dut.applier_cmd(&["status", "p"]), argv(&["zynq-net-apply", "status", "p"]));
        let dut = Dut { applier: "/opt/zynq-net-apply.sh".into(), env: vec!["A=1".into(), "B=2".into()], ..dut };
        assert_eq!(
            dut.applier_cmd(&["revert"]),
            argv(&["env", "A=1", "B=2", "sh", "/opt/zynq-net-apply.sh", "revert"])
        );
        // Locally the plan is the file itself, by absolute path.
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("full.plan");
        std::fs::write(&f, "x").unwrap();
        assert_eq!(dut.put_plan(&f, "full.plan", "x").unwrap(), std::fs::canonicalize(&f).unwrap().to_string_lossy());
    }

    #[test]
    fn a_trial_is_done_only_without_error() {
        let rec = |round, variant: &str, cell: &str, error: Option<&str>| AblateTrial {
            round,
            variant: variant.into(),
            cell: cell.into(),
            apply: ApplyOutcome { revert_exit: 0, apply_exit: Some(0), steps: vec![] },
            record: TrialRecord { error: error.map(str::to_string), ..failed_record(cell, round, String::new()) },
        };
        let trials = [rec(0, "full", "a", None), rec(1, "full", "a", Some("x")), rec(0, "untuned", "b", None)];
        assert!(done(&trials, 0, "full", "a"));
        assert!(!done(&trials, 1, "full", "a"), "failed");
        assert!(!done(&trials, 2, "full", "a") && !done(&trials, 0, "full", "b") && !done(&trials, 0, "untuned", "a"));
        let f = failed_record("c", 3, "boom".into());
        assert_eq!((f.cell.as_str(), f.repeat, f.error.as_deref()), ("c", 3, Some("boom")));
    }

    /// An ablation on a real lab (root, network namespaces): the router is
    /// the DUT, tuned by the real applier between trials, and left as found.
    #[test]
    fn an_ablation_on_the_lab_router() {
        let name = format!("za{}", std::process::id() % 100_000);
        let st =
            crate::lab::up(&crate::lab::LabOptions { name: name.clone(), subnet: 60, ..Default::default() }).unwrap();
        let router = Host::Netns { name: crate::lab::namespaces(&name)[1].clone() };
        let lowat = || router.run(&argv(&["sysctl", "-n", "net.ipv4.tcp_notsent_lowat"])).unwrap();
        let before = lowat();
        let out = tempfile::tempdir().unwrap();
        let result = std::panic::catch_unwind(|| {
            let text = "zynq-net-plan 2\nboard lab\nsysctl net.ipv4.tcp_notsent_lowat 16385\nrfs eth0 rx-0 2048\n";
            // TCP at MTU 9000 (the lab's links are at 1500): the links are
            // set, not emulated with -M, before the first trial too, which
            // is the untuned variant's (the seed is picked for that).
            let spec = BenchSpec {
                duration: 1.0,
                protocols: vec![crate::iperf::Protocol::Tcp],
                directions: vec![crate::iperf::Direction::Tx],
                mtus: vec![9000],
                ..BenchSpec::default()
            };
            let bench = Plan::from_spec(None, &spec);
            let untuned_first = |s: u64| {
                let d = design_of(text, &bench, 1, s, "lab");
                d.variants[d.round_order(0)[0].0].kind == VariantKind::Untuned
            };
            let seed = (0..64).find(|&s| untuned_first(s)).unwrap();
            let design = design_of(text, &bench, 1, seed, "lab");
            let applier = crate::lab::find_applier(None).unwrap();
            let dut = Dut {
                host: router.clone(),
                applier: applier.to_string_lossy().into_owned(),
                env: crate::lab::applier_env_vars(&name),
                remote_dir: String::new(),
            };
            let quiet = RunOptions { resume: false, quiet: true };
            let trials = run(&design, &bench, &st.targets, &dut, out.path(), &quiet).unwrap();
            let ids: Vec<&str> = trials.iter().map(|t| t.variant.as_str()).collect();
            let mut sorted = ids.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, ["full", "untuned", "without-rfs", "without-sysctl"]);
            for t in &trials {
                assert_eq!(t.record.error, None, "{t:?}");
                assert_eq!((t.round, t.cell.as_str()), (0, "tcp-tx-mtu9000-p1"));
                assert!(!t.record.command.contains(" -M "), "the MTU is the links', not emulated: {t:?}");
                assert!(t.record.notes.contains(&format!("variant {}", t.variant)), "{:?}", t.record.notes);
                assert!(matches!(t.apply.revert_exit, 0 | 3), "{:?}", t.apply);
                assert!(t.record.throughput_bps > 1e6, "{t:?}");
                if t.variant == "untuned" {
                    assert_eq!(t.apply.apply_exit, None);
                } else {
                    assert!(matches!(t.apply.apply_exit, Some(0 | 3)), "{:?}", t.apply);
                    assert!(!t.apply.steps.is_empty(), "the applier's JSON steps: {:?}", t.apply);
                }
                let raw = out.path().join(files::RAW_DIR).join(format!("{}-{}-r0.json", t.variant, t.cell));
                let raw: Value = serde_json::from_slice(&std::fs::read(raw).unwrap()).unwrap();
                // 9000 - 20 (IPv4) - 20 (TCP) - 12 (timestamps).
                assert_eq!(raw["start"]["tcp_mss_default"], 8948, "{}: {}", t.variant, raw["start"]);
            }
            // The full plan set the sysctl while it was in force; afterwards the DUT is as found.
            assert_eq!(lowat(), before, "the DUT is put back untuned");
            assert_eq!(Design::load(&out.path().join(files::DESIGN)).unwrap(), design);
            assert_eq!(read_jsonl::<AblateTrial>(&out.path().join(files::TRIALS)).unwrap().len(), 4);
            for v in ["full", "without-rfs", "without-sysctl"] {
                let p = std::fs::read_to_string(out.path().join(files::PLANS_DIR).join(format!("{v}.plan"))).unwrap();
                assert_eq!(PlanText::parse(v, &p).unwrap().steps.len(), if v == "full" { 2 } else { 1 });
            }
            assert!(!out.path().join(files::PLANS_DIR).join("untuned.plan").exists());
            // --resume with everything done runs nothing; with another design it refuses.
            let resume = RunOptions { resume: true, quiet: true };
            assert_eq!(run(&design, &bench, &st.targets, &dut, out.path(), &resume).unwrap().len(), 4);
            assert_eq!(read_jsonl::<AblateTrial>(&out.path().join(files::TRIALS)).unwrap().len(), 4);
            // A failed trial is measured again on --resume, and replaces
            // the failed one among the trials returned.
            let path = out.path().join(files::TRIALS);
            let mut lines = read_jsonl::<AblateTrial>(&path).unwrap();
            lines.iter_mut().filter(|t| t.variant == "untuned").for_each(|t| t.record.error = Some("planted".into()));
            std::fs::remove_file(&path).unwrap();
            lines.iter().for_each(|t| append_jsonl(&path, t).unwrap());
            let trials = run(&design, &bench, &st.targets, &dut, out.path(), &resume).unwrap();
            assert_eq!(trials.len(), 4, "{trials:?}");
            assert!(trials.iter().all(|t| t.record.error.is_none()), "{trials:?}");
            assert_eq!(read_jsonl::<AblateTrial>(&path).unwrap().len(), 5);
            let other = Design { seed: seed + 1, ..design.clone() };
            let e = run(&other, &bench, &st.targets, &dut, out.path(), &resume).unwrap_err().to_string();
            assert!(e.contains("--resume with a different plan"), "{e}");
            // The applier's own view: the full plan is not in force now.
            let full = std::fs::canonicalize(out.path().join(files::PLANS_DIR).join("full.plan")).unwrap();
            assert_ne!(dut.status(&full.to_string_lossy()).unwrap(), 0);
            assert_eq!(dut.revert().unwrap(), 0);
            let (code, steps) = dut.apply(&full.to_string_lossy()).unwrap();
            assert!(matches!(code, 0 | 3) && steps.len() == 2, "{code} {steps:?}");
            assert_eq!(lowat().trim(), "16385");
            assert_eq!(dut.status(&full.to_string_lossy()).unwrap(), 0);
            assert_eq!(dut.revert().unwrap(), 0);
            assert_eq!(lowat(), before);
            let bad = Dut { applier: "/nonexistent/zynq-net-apply".into(), ..dut.clone() };
            assert!(bad.revert().is_err() && bad.apply(&full.to_string_lossy()).is_err());
            // A DUT whose applier reverts but refuses every plan (exit 2):
            // each tuned variant's trial fails with apply exit -1 and says
            // why; the untuned one is still measured.
            let refusing = out.path().join("refusing-apply.sh");
            let script = format!(
                "if [ \"$1\" = apply ]; then echo 'plan refused' >&2; exit 2; fi\nexec sh '{}' \"$@\"\n",
                applier.display()
            );
            std::fs::write(&refusing, script).unwrap();
            let refusing = Dut { applier: refusing.to_string_lossy().into_owned(), ..dut.clone() };
            let out2 = tempfile::tempdir().unwrap();
            let trials = run(&design, &bench, &st.targets, &refusing, out2.path(), &quiet).unwrap();
            assert_eq!(trials.len(), 4);
            for t in &trials {
                if t.variant == "untuned" {
                    assert_eq!((t.apply.apply_exit, &t.record.error), (None, &None), "{t:?}");
                } else {
                    assert_eq!(t.apply.apply_exit, Some(-1), "{t:?}");
                    let e = t.record.error.as_deref().unwrap_or_default();
                    assert!(e.starts_with(&format!("applying variant {}: ", t.variant)), "{e}");
                    assert!(e.contains("plan refused"), "{e}");
                }
            }
            assert_eq!(lowat(), before);
        });
        crate::lab::down(&name).unwrap();
        if let Err(e) = result {
            std::panic::resume_unwind(e);
        }
    }

    #[test]
    fn trial_count_is_variants_by_cells_by_rounds() {
        let d = design();
        assert_eq!((d.variants.len(), d.cells.len(), d.rounds), (5, 2, 4));
        assert_eq!(d.trial_count(), 40);
        assert_eq!(Design { rounds: 1, ..d }.trial_count(), 10);
    }

    /// Rounds are shuffled apart whatever the seed, all bits clear or set
    /// (the round is mixed into the seed, not masked or or-ed in).
    #[test]
    fn rounds_differ_for_extreme_seeds() {
        for seed in [0, u64::MAX, 0x9e37_79b9_7f4a_7c15] {
            let d = Design { seed, ..design() };
            let orders: Vec<_> = (0..d.rounds).map(|r| d.round_order(r)).collect();
            assert!(orders.iter().any(|o| *o != orders[0]), "seed {seed:#x}: the same order every round");
        }
    }

    /// An applier killed by a signal has no exit status: `status` says -1.
    #[test]
    fn status_of_an_applier_killed_by_a_signal() {
        let dir = tempfile::tempdir().unwrap();
        let applier = dir.path().join("apply.sh");
        std::fs::write(&applier, "kill -KILL $$\n").unwrap();
        let dut = Dut {
            host: Host::Local {},
            applier: applier.to_string_lossy().into_owned(),
            env: vec![],
            remote_dir: "/tmp".into(),
        };
        assert_eq!(dut.status("x.plan").unwrap(), -1);
    }
}
