//! The `bench` and `lab` commands' command line (clap types) and their
//! translation into the benchmark library's calls
//! ([`zynq_net_bench::commands`]), whose [`Outcome`] or error the binary's
//! exit map ([`crate::exit`]) turns into the exit code (docs/bench.md).

use std::path::PathBuf;

use clap::{Args, Subcommand};
use zynq_net_bench::commands::{self, AblateOptions, Outcome, Overrides as BenchOverrides, Rfc2544Overrides, Where};
use zynq_net_bench::lab::LabOptions;
use zynq_net_bench::run::RunOptions;
use zynq_net_bench::spec::Rate;
use zynq_net_bench::BenchError;

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
        /// Seconds per search trial: whole seconds, 1 to 86400 (the file's
        /// `trial_s`; see --duration for why whole).
        #[arg(long, value_parser = whole_seconds)]
        trial_seconds: Option<u32>,
        /// Seconds of the confirmation trial: whole seconds, 1 to 86400
        /// (the file's `confirm_s`).
        #[arg(long, value_parser = whole_seconds)]
        confirm_seconds: Option<u32>,
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
    /// RFC 2544 through a lab with the trafgen/nftables tester: NDR/PDR
    /// throughput, frame loss rate, back-to-back, full duplex over many flows.
    Rfc2544Tester(Box<TesterArgs>),
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
        /// Compare runs whose image.json say they measured different
        /// images (another board, kernel, image or tuning plan), or only
        /// one of which says what it measured; refused otherwise (exit 2).
        #[arg(long)]
        allow_different_images: bool,
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
    /// Seconds per trial: whole seconds, 1 to 86400, as the file's
    /// `duration_s` (see `bench run --duration`).
    #[arg(long, value_parser = whole_seconds)]
    pub duration: Option<u32>,
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

/// Trial seconds on the command line (`--duration`, `--trial-seconds`,
/// `--confirm-seconds`): whole seconds, 1 to 86400, the type of the
/// file's `duration_s`, `trial_s` and `confirm_s`. Whole, because iperf3
/// reads `-t` as a whole number (src/iperf_api.c, `atoi`: iperf3 3.12 run
/// with `-t 1.5` reports `"duration": 1` and measures about 1.0 s), so
/// `--duration 1.5` is refused rather than run as 1 s; at most iperf3's
/// MAX_TIME (src/iperf.h).
fn whole_seconds(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(v) if (1..=86400).contains(&v) => Ok(v),
        _ => Err(format!(
            "`{s}` is not a whole number of seconds from 1 to 86400 (iperf3 -t takes whole seconds: -t 1.5 runs 1 s)"
        )),
    }
}

/// Quick overrides of the bench section.
#[derive(Debug, Args, Default)]
pub struct Overrides {
    /// Seconds per matrix trial: whole seconds, 1 to 86400 (the board's
    /// `duration_s`; iperf3 reads `-t` as a whole number and stops at
    /// MAX_TIME 86400, so a fraction such as 1.5 is refused).
    #[arg(long, value_parser = whole_seconds)]
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
        /// The applier script (default: $ZYNQ_NET_APPLIER, zynq-net-apply on PATH, the source tree's);
        /// only with --plan (without one nothing is applied).
        #[arg(long, requires = "plan")]
        applier: Option<PathBuf>,
        /// Rewrite the plan's `ident` lines to `driver veth` (the lab's NICs are veths, not the
        /// board's devices, whose ident checks would skip every interface step).
        #[arg(long, requires = "plan")]
        veth_ident: bool,
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

impl TargetArgs {
    fn to_where(&self) -> Where {
        Where { targets: self.targets.clone(), lab: self.lab.clone() }
    }
}

impl PlanInput {
    fn to_input(&self) -> commands::PlanInput {
        commands::PlanInput {
            plan: self.plan.clone(),
            overrides: self.overrides.to_model(),
            at: self.target.to_where(),
        }
    }
}

impl Overrides {
    fn to_model(&self) -> BenchOverrides {
        BenchOverrides { duration_s: self.duration, repeats: self.repeats }
    }
}

impl AblateArgs {
    fn to_options(&self) -> AblateOptions {
        AblateOptions {
            board: self.board.clone(),
            groups: self.groups.clone(),
            cells: self.cells.clone(),
            bench: self.bench.clone(),
            tuning_plan: self.tuning_plan.clone(),
            duration: self.duration,
            repeats: self.repeats,
            at: self.target.to_where(),
            dut: self.dut.clone(),
            applier: self.applier.clone(),
            applier_state: self.applier_state.clone(),
            remote_dir: self.remote_dir.clone(),
            confidence: self.confidence,
            min_effect: self.min_effect,
            seed: self.seed,
            output: self.output.clone(),
            resume: self.resume,
            report_only: self.report_only,
            quiet: self.quiet,
        }
    }
}

/// The value parser of a whole-number flag of `bench rfc2544-tester` that
/// sets the bench file's `tester.KEY`: any integer is read (a negative one
/// too), and one the flag's type cannot hold is refused naming the key's
/// own limits, the first sentence of its description in the bench schema
/// (clap's own parser said `-1` was an unexpected argument, and
/// `99999999999` was `not in 0..=4294967295`). Values the type holds go on
/// to the bench file's checks ([`zynq_net_bench::rfc2544_suite::run`]).
fn whole<T>(key: &'static str) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static
where
    T: TryFrom<i128> + std::fmt::Display + Bounded,
{
    // the limits only for an error: the description is read from the
    // schema, which is generated anew for each call
    let limits = move || {
        zynq_net_model::schema::bench_key_description(&format!("/tester/{key}"))
            .map_or(String::new(), |d| format!("; expected: {}", d.trim_end_matches('.')))
    };
    move |s: &str| {
        let n: i128 = s.trim().parse().map_err(|_| format!("`{s}` is not a whole number{}", limits()))?;
        T::try_from(n).map_err(|_| {
            if n < 0 {
                format!("{n} is negative{}", limits())
            } else {
                format!("{n} is more than this flag can hold ({}){}", T::MAX, limits())
            }
        })
    }
}

/// The largest value of a flag's integer type, for [`whole`]'s message.
trait Bounded: Sized {
    const MAX: Self;
}
impl Bounded for u32 {
    const MAX: Self = u32::MAX;
}
impl Bounded for u64 {
    const MAX: Self = u64::MAX;
}

/// `bench rfc2544-tester` (docs/bench.md, "RFC 2544 with the trafgen tester").
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("ports").required(true).args(["lab", "targets"])))]
pub struct TesterArgs {
    /// The lab (`zynq-net lab up`): its client and server namespaces are the tester's ports A and B
    /// (the tester adds the 198.18.0.0/15 routes on its router).
    #[arg(long)]
    pub lab: Option<String>,
    /// A targets file whose client and server are network namespaces: the tester's ports A and B,
    /// through a DUT the tester does not own (it must route 198.18.0.0/16 and 198.19.0.0/16 itself;
    /// e.g. `$ZNQ_LAB_TARGETS` of scripts/qemu-p1020 --lab).
    #[arg(long)]
    pub targets: Option<PathBuf>,
    /// Run directory (tester.json, tester.md).
    #[arg(short, long)]
    pub output: PathBuf,
    /// A board file or bench file whose `tester` section gives the settings
    /// (docs/bench.md); each flag below overrides its key.
    #[arg(long)]
    pub bench: Option<PathBuf>,
    /// Tests, comma-separated: throughput, frame-loss, back-to-back, latency
    /// (latency runs at the NDR, so after throughput, unless --latency-fps is given).
    /// Default: the bench file's `tests`, else throughput,frame-loss,back-to-back.
    #[arg(long, value_delimiter = ',')]
    pub tests: Option<Vec<TestName>>,
    /// Frame sizes (bytes incl. FCS), comma-separated.
    /// Default: the bench file's `frame_sizes`, else 64,128,256,512,1024,1280,1518.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, value_parser = whole::<u32>("frame_sizes"))]
    pub frame_sizes: Option<Vec<u32>>,
    /// Line rate (e.g. 1G): the 100 % mark and the searches' top.
    /// Default: the bench file's `line_rate_mbps`, else 1000 (1G).
    #[arg(long, allow_hyphen_values = true)]
    pub line_rate: Option<Rate>,
    /// Port A sends to B only (default: the bench file's `duplex`, else both ports at once).
    #[arg(long)]
    pub one_way: bool,
    /// Flows per port (198.18.0.0/15 addresses and UDP source ports).
    /// Default: the bench file's `flows`, else 16.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>("flows"))]
    pub flows: Option<u32>,
    /// Seconds per search trial.
    /// Default: the bench file's `trial_s`, else 2.
    #[arg(long, allow_negative_numbers = true)]
    pub trial_seconds: Option<f64>,
    /// Seconds of the final full-length trial.
    /// Default: the bench file's `final_s`, else 10.
    #[arg(long, allow_negative_numbers = true)]
    pub final_seconds: Option<f64>,
    /// Search trials per frame size and search.
    /// Default: the bench file's `max_trials`, else 8.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>("max_trials"))]
    pub max_trials: Option<u32>,
    /// Search resolution, percent.
    /// Default: the bench file's `resolution_pct`, else 1.
    #[arg(long, allow_negative_numbers = true)]
    pub resolution: Option<f64>,
    /// Partial drop rates to search besides the NDR, percent (comma-separated; `--pdr ''` for none).
    /// Default: the bench file's `pdr_pct`, else 0.1.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub pdr: Option<Vec<PdrArg>>,
    /// Frame loss step, percent of the line rate (at most 10).
    /// Default: the bench file's `loss_step_pct`, else 10.
    #[arg(long, allow_negative_numbers = true)]
    pub loss_step: Option<f64>,
    /// Seconds per frame loss trial.
    /// Default: the bench file's `loss_trial_s`, else 2.
    #[arg(long, allow_negative_numbers = true)]
    pub loss_trial_seconds: Option<f64>,
    /// Longest back-to-back burst tried (frames per direction).
    /// Default: the bench file's `b2b_max_frames`, else 100000.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>("b2b_max_frames"))]
    pub b2b_max_frames: Option<u64>,
    /// Back-to-back repetitions.
    /// Default: the bench file's `b2b_repeats`, else 5.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>("b2b_repeats"))]
    pub b2b_repeats: Option<u32>,
    /// Back-to-back resolution, percent of the burst (at least one frame).
    /// Default: the bench file's `b2b_resolution_pct`, else 1.
    #[arg(long, allow_negative_numbers = true)]
    pub b2b_resolution: Option<f64>,
    /// Seconds to wait before each trial.
    /// Default: the bench file's `settle_s`, else 1.
    #[arg(long, allow_negative_numbers = true)]
    pub settle: Option<f64>,
    /// Seconds to wait after the learning frames.
    /// Default: the bench file's `learning_s`, else 0.5.
    #[arg(long, allow_negative_numbers = true)]
    pub learning_wait: Option<f64>,
    /// Seconds to wait after sending before reading the counters.
    /// Default: the bench file's `drain_s`, else 2.
    #[arg(long, allow_negative_numbers = true)]
    pub drain: Option<f64>,
    /// Frames per direction of the port-to-port calibration (0: skip it).
    /// Default: the bench file's `calibrate_frames`, else 300000.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>("calibrate_frames"))]
    pub calibrate_frames: Option<u64>,
    /// Latency trials per frame size (RFC 2544 §26.2 asks for at least 20).
    /// Default: the bench file's `latency_repeats`, else 3.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>("latency_repeats"))]
    pub latency_repeats: Option<u32>,
    /// Seconds per latency trial (RFC 2544 §26.2 asks for at least 120).
    /// Default: the bench file's `latency_s`, else 4.
    #[arg(long, allow_negative_numbers = true)]
    pub latency_seconds: Option<f64>,
    /// Latency probes per second per direction (at most a tenth of the rate under test).
    /// Default: the bench file's `latency_probe_fps`, else 100.
    #[arg(long, allow_negative_numbers = true)]
    pub latency_probe_rate: Option<f64>,
    /// Frames/s per direction for the latency test.
    /// Default: the bench file's `latency_fps`, else each frame size's NDR.
    #[arg(long, allow_negative_numbers = true)]
    pub latency_fps: Option<f64>,
    /// No progress output.
    #[arg(short, long)]
    pub quiet: bool,
}

/// One `--pdr` value: a percentage, or nothing (`--pdr ''`: no PDR search).
#[derive(Debug, Clone, Copy)]
pub struct PdrArg(Option<f64>);

impl std::str::FromStr for PdrArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.trim().is_empty() {
            return Ok(PdrArg(None));
        }
        s.trim().parse::<f64>().map(|v| PdrArg(Some(v))).map_err(|_| format!("`{s}` is not a percentage (e.g. 0.1)"))
    }
}

/// A test of `bench rfc2544-tester`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum TestName {
    /// NDR and PDR throughput (RFC 2544 §26.1).
    Throughput,
    /// Frame loss rate (RFC 2544 §26.3).
    FrameLoss,
    /// Back-to-back frames (RFC 2544 §26.4).
    BackToBack,
    /// Latency (RFC 2544 §26.2).
    Latency,
}

impl TesterArgs {
    /// The options: the bench file's `tester` section (or its defaults),
    /// then each flag given.
    fn to_options(&self) -> Result<zynq_net_bench::rfc2544_suite::Options, BenchError> {
        use zynq_net_bench::rfc2544_suite::{Options, Test};
        let file = match &self.bench {
            Some(f) => zynq_net_bench::board::tester(f)?,
            None => zynq_net_model::bench::Tester::default(),
        };
        // With a targets file: the prefix of the calibration namespaces only.
        let lab = self.lab.clone().unwrap_or_else(|| format!("zntst{}", std::process::id() % 100_000));
        let mut o = Options::from_model(&file, lab, self.targets.clone());
        fn set<T: Clone>(to: &mut T, flag: &Option<T>) {
            if let Some(v) = flag {
                *to = v.clone();
            }
        }
        if let Some(t) = &self.tests {
            o.tests = t
                .iter()
                .map(|t| match t {
                    TestName::Throughput => Test::Throughput,
                    TestName::FrameLoss => Test::FrameLoss,
                    TestName::BackToBack => Test::BackToBack,
                    TestName::Latency => Test::Latency,
                })
                .collect();
        }
        set(&mut o.frame_sizes, &self.frame_sizes);
        set(&mut o.line_rate_bps, &self.line_rate.map(|r| r.0));
        o.duplex &= !self.one_way;
        set(&mut o.flows, &self.flows);
        set(&mut o.search.trial_seconds, &self.trial_seconds);
        set(&mut o.search.final_seconds, &self.final_seconds);
        set(&mut o.search.max_trials, &self.max_trials);
        set(&mut o.search.resolution_percent, &self.resolution);
        // `--pdr ''` alone is no PDR search; an empty value inside a list
        // (`0.1,,1`, `,`) is a typo, not "none"
        if let Some(p) = self.pdr.as_ref().filter(|p| p.len() > 1 && p.iter().any(|x| x.0.is_none())) {
            return Err(BenchError::Invalid(format!(
                "--pdr: an empty value in a list of {} (`0.1,,1`); write the percentages, or `--pdr ''` alone for no PDR search",
                p.len()
            )));
        }
        set(&mut o.pdr_percent, &self.pdr.as_ref().map(|p| p.iter().filter_map(|p| p.0).collect()));
        set(&mut o.loss_step_percent, &self.loss_step);
        set(&mut o.loss_trial_seconds, &self.loss_trial_seconds);
        set(&mut o.b2b_max_frames, &self.b2b_max_frames);
        set(&mut o.b2b_repeats, &self.b2b_repeats);
        set(&mut o.b2b_resolution_percent, &self.b2b_resolution);
        set(&mut o.settle_seconds, &self.settle);
        set(&mut o.learning_seconds, &self.learning_wait);
        set(&mut o.drain_seconds, &self.drain);
        set(&mut o.calibrate_frames, &self.calibrate_frames);
        set(&mut o.latency_repeats, &self.latency_repeats);
        set(&mut o.latency_seconds, &self.latency_seconds);
        set(&mut o.latency_probe_fps, &self.latency_probe_rate);
        if self.latency_fps.is_some() {
            o.latency_fps = self.latency_fps;
        }
        Ok(o)
    }
}

/// SIGINT, SIGTERM and SIGHUP during `rfc2544-tester` set a flag; a
/// watcher thread then ends the tester's child processes, removes the
/// nftables tables and pacing qdiscs it added to lab `lab`'s ports and
/// its calibration namespaces ([`zynq_net_bench::rfc2544_suite::cleanup`])
/// and exits 130.
fn undo_on_signal(lab: &str) {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM, signal_hook::consts::SIGHUP] {
        let _ = signal_hook::flag::register(sig, Arc::clone(&stop));
    }
    let lab = lab.to_string();
    std::thread::spawn(move || loop {
        if stop.load(Ordering::Relaxed) {
            zynq_net_bench::rfc2544_suite::cleanup(&lab);
            zynq_net_model::eoutln!(
                "zynq-net: interrupted: removed the tester's nftables tables, pacing qdiscs and calibration namespaces"
            );
            std::process::exit(i32::from(crate::exit::EXIT_INTERRUPTED));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    });
}

/// Runs a `bench` command.
///
/// # Errors
/// The library's [`BenchError`] (input, usage, I/O; a board or bench file
/// with errors).
pub fn run_bench(cmd: BenchCommand) -> Result<Outcome, BenchError> {
    match cmd {
        BenchCommand::Plan { board, output, overrides } => {
            commands::plan(&board, output.as_deref(), &overrides.to_model())
        }
        BenchCommand::Run { input, output, resume, quiet } => {
            commands::run(&input.to_input(), &output, &RunOptions { resume, quiet })
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
            let o = Rfc2544Overrides {
                frame_sizes,
                line_rate,
                trial_seconds,
                confirm_seconds,
                max_trials,
                loss_tolerance,
                resolution,
            };
            commands::rfc2544(&input.to_input(), &output, &o, quiet)
        }
        BenchCommand::Rfc2544Tester(t) => {
            let o = t.to_options()?;
            undo_on_signal(&o.lab);
            let r = zynq_net_bench::rfc2544_suite::run(&o, &t.output, t.quiet)?;
            if !t.quiet {
                zynq_net_model::out!("{}", zynq_net_bench::rfc2544_suite::markdown(&r));
            }
            let unconfirmed: Vec<u32> = r
                .frames
                .iter()
                .filter(|f| f.ndr.as_ref().is_some_and(|n| !n.confirmed))
                .map(|f| f.frame_size)
                .collect();
            Ok(if unconfirmed.is_empty() { Outcome::Done } else { Outcome::NotConfirmed(unconfirmed) })
        }
        BenchCommand::Compare { a, b, output, fail_on_worse, allow_different_images } => {
            commands::compare(&a, &b, output.as_deref(), fail_on_worse, allow_different_images)
        }
        BenchCommand::Ablate(a) => commands::ablate(&a.to_options()),
        BenchCommand::Report { dir, output } => commands::report(&dir, output.as_deref()),
    }
}

/// Runs a `lab` command.
///
/// # Errors
/// The library's [`BenchError`].
pub fn run_lab(cmd: LabCommand) -> Result<Outcome, BenchError> {
    match cmd {
        LabCommand::Up { name, subnet, shape, flowtable, plan, applier, veth_ident, queues, mtu, targets_out } => {
            let o = LabOptions {
                name,
                subnet,
                shape: shape.map(|r| r.0),
                flowtable,
                plan,
                applier,
                veth_ident,
                queues,
                mtu,
            };
            commands::lab_up(&o, targets_out.as_deref())
        }
        LabCommand::Down { name } => commands::lab_down(&name),
        LabCommand::Status { name } => commands::lab_status(&name),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct T {
        #[command(flatten)]
        a: TesterArgs,
    }

    fn options(args: &[&str]) -> Result<zynq_net_bench::rfc2544_suite::Options, BenchError> {
        let t = T::try_parse_from([&["t", "--lab", "zl", "-o", "/nonexistent/out"], args].concat()).unwrap();
        t.a.to_options()
    }

    /// The bench file's `tester` section gives the settings, each flag
    /// given overrides its key, and a key in neither takes the default.
    #[test]
    fn tester_flags_override_the_bench_file_which_overrides_the_defaults() {
        use zynq_net_bench::rfc2544_suite::{Options, Test};
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("bench.yml");
        std::fs::write(
            &f,
            "tester:\n  tests: [throughput, latency]\n  flows: 64\n  trial_s: 0.5\n  duplex: false\n  pdr_pct: []\n  line_rate_mbps: 100\n",
        )
        .unwrap();
        let def = Options::default();
        let file = options(&["--bench", f.to_str().unwrap()]).unwrap();
        assert_eq!(file.tests, [Test::Throughput, Test::Latency]);
        assert_eq!((file.flows, file.search.trial_seconds, file.duplex), (64, 0.5, false));
        assert!(file.pdr_percent.is_empty());
        assert_eq!(file.line_rate_bps, 100e6);
        assert_eq!(file.search.final_seconds, def.search.final_seconds);
        assert_eq!(file.frame_sizes, def.frame_sizes);
        let both = options(&[
            "--bench",
            f.to_str().unwrap(),
            "--flows",
            "8",
            "--pdr",
            "1,2",
            "--line-rate",
            "1G",
            "--final-seconds",
            "3",
        ])
        .unwrap();
        assert_eq!((both.flows, both.search.trial_seconds, both.search.final_seconds), (8, 0.5, 3.0));
        assert_eq!((both.pdr_percent.clone(), both.line_rate_bps), (vec![1.0, 2.0], 1e9));
        // No file: the flags over the same defaults `Options::default` has.
        let none = options(&["--flows", "8"]).unwrap();
        assert_eq!(none, Options { lab: "zl".into(), flows: 8, ..def });
    }

    /// A bench file whose tester section is out of range is refused with
    /// its position, before anything runs.
    #[test]
    fn a_tester_section_out_of_range_is_a_diagnostic_at_its_line() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("bench.yml");
        std::fs::write(&f, "tester:\n  flows: 8\n  drain_s: -1\n").unwrap();
        match options(&["--bench", f.to_str().unwrap()]) {
            Err(BenchError::Diagnostics(text)) => {
                assert!(text.contains("bench-tester-range") && text.contains("bench.yml:3:12"), "{text}")
            }
            other => panic!("{other:?}"),
        }
    }
}
