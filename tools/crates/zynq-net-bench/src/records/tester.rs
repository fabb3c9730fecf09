//! The records of `bench rfc2544-tester` (`tester.json`): the run's
//! options, each frame size's throughput, frame loss, back-to-back and
//! latency results, and the trials behind them. The runners
//! ([`crate::rfc2544_suite`], [`crate::suite`], [`crate::tester`],
//! [`crate::latency`]) produce them and re-export them under their old
//! paths; the presenters (`tester.md`/`.html`/`.csv`, [`crate::compare`])
//! read them from here, so no presenter imports a runner.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The tests to run (RFC 2544 section 26), as the bench file names them.
pub use zynq_net_model::bench::TesterTest as Test;

// A tester.json written before latency was measured lacks these keys.
fn default_latency_repeats() -> u32 {
    zynq_net_model::bench::Tester::default().latency_repeats
}

fn default_latency_seconds() -> f64 {
    zynq_net_model::bench::Tester::default().latency_s
}

fn default_latency_probe_fps() -> f64 {
    zynq_net_model::bench::Tester::default().latency_probe_fps
}

/// Output format tag of `tester.json`.
pub const FORMAT: &str = "zynq-net-bench-rfc2544-tester 1";

/// Everything the run needs (the knobs of RFC 2544 §23-26).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Options {
    /// The lab (`zynq-net lab up`) whose client and server namespaces are the tester ports
    /// (with `targets`: only the prefix of the calibration namespaces).
    pub lab: String,
    /// A targets file whose client and server namespaces are the ports, on
    /// a DUT the tester does not own ([`crate::tester_targets`]); instead of the lab.
    #[serde(default)]
    pub targets: Option<PathBuf>,
    /// Frame sizes (bytes incl. FCS).
    pub frame_sizes: Vec<u32>,
    /// Line rate, bit/s: the 100 % mark and the search's top (with the calibrated ceiling).
    pub line_rate_bps: f64,
    /// Both ports send at once (full duplex); else A to B only.
    pub duplex: bool,
    /// Flows per port (198.18.0.0/15 addresses, UDP source ports).
    pub flows: u32,
    /// Tests to run, in order.
    pub tests: Vec<Test>,
    /// Throughput search settings (NDR: its tolerance is ignored and 0 used).
    pub search: SearchSettings,
    /// Partial drop rates to search for besides the NDR, percent each.
    pub pdr_percent: Vec<f64>,
    /// Frame loss step, percent of the top rate (at most 10).
    pub loss_step_percent: f64,
    /// Frame loss trial length, seconds.
    pub loss_trial_seconds: f64,
    /// Longest burst tried (frames per direction).
    pub b2b_max_frames: u64,
    /// Back-to-back repetitions.
    pub b2b_repeats: u32,
    /// Back-to-back resolution, percent of the burst (at least one frame).
    pub b2b_resolution_percent: f64,
    /// Wait before each trial, seconds (RFC 2544 §23: the DUT restabilizes).
    pub settle_seconds: f64,
    /// Wait after learning frames, seconds (RFC 2544 §23).
    pub learning_seconds: f64,
    /// Wait after the senders stop before the counters are read, seconds (RFC 2544 §23: 2 s).
    pub drain_seconds: f64,
    /// Frames per direction of the port-to-port calibration (0: no calibration).
    pub calibrate_frames: u64,
    /// Latency trials per frame size (RFC 2544 §26.2: at least 20).
    #[serde(default = "default_latency_repeats")]
    pub latency_repeats: u32,
    /// Seconds per latency trial (RFC 2544 §26.2: at least 120).
    #[serde(default = "default_latency_seconds")]
    pub latency_seconds: f64,
    /// Latency probes per second per direction (at most a tenth of the rate under test).
    #[serde(default = "default_latency_probe_fps")]
    pub latency_probe_fps: f64,
    /// Frames/s per direction for the latency test; `None`: each frame size's NDR
    /// (the throughput test must run before it).
    #[serde(default)]
    pub latency_fps: Option<f64>,
}

/// Results for one frame size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrameReport {
    /// Frame size (bytes incl. FCS).
    pub frame_size: u32,
    /// Line-rate maximum, frames/s per direction.
    pub max_fps: f64,
    /// Generator ceiling port to port (frames/s per direction, the lowest), if calibrated.
    pub ceiling_fps: Option<f64>,
    /// The searches' top: the line-rate maximum or the ceiling, whichever is lower.
    pub top_fps: f64,
    /// NDR search.
    pub ndr: Option<Throughput>,
    /// PDR searches.
    pub pdr: Vec<Throughput>,
    /// Frame loss rate steps.
    pub frame_loss: Vec<LossStep>,
    /// Back-to-back.
    pub back_to_back: Option<BackToBack>,
    /// Latency.
    #[serde(default)]
    pub latency: Option<Latency>,
}

/// `tester.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// [`FORMAT`].
    pub format: String,
    /// The options of the run.
    pub options: Options,
    /// Directions traffic went.
    pub ways: Vec<Way>,
    /// Port-to-port calibration per frame size.
    pub ceilings: Vec<Ceiling>,
    /// Per frame size.
    pub frames: Vec<FrameReport>,
    /// Where this differs from RFC 2544.
    pub deviations: Vec<String>,
    /// The DUT as the targets file describes it (with `targets`).
    #[serde(default)]
    pub dut: Option<String>,
}

/// What limited a throughput result: `tester` when a sender fell short in
/// a trial that counted or the rate is at 95 % of the generator's
/// calibrated ceiling or more, else `DUT`.
pub fn limited_by(f: &FrameReport, n: &Throughput) -> &'static str {
    if n.tester_limited || f.ceiling_fps.is_some_and(|c| n.fps >= 0.95 * c) {
        "tester"
    } else {
        "DUT"
    }
}

/// Settings of the throughput search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchSettings {
    /// Seconds per search trial.
    pub trial_seconds: f64,
    /// Seconds of the final full-length trial at the rate found (RFC 2544 §24: at least 60).
    pub final_seconds: f64,
    /// At most this many search trials (the final trial not counted).
    pub max_trials: u32,
    /// Stop when the pass/fail bracket is within this percentage of its top.
    pub resolution_percent: f64,
    /// Loss tolerated per direction, percent of frames sent (0: NDR).
    pub loss_tolerance_percent: f64,
}

/// One trial of a search: the rate asked and what each direction did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchStep {
    /// 1, 2, ... in the order run.
    pub n: u32,
    /// The final full-length trial?
    pub final_trial: bool,
    /// Frames/s asked per direction.
    pub offered_fps: f64,
    /// Every direction within the tolerance, and something sent?
    pub pass: bool,
    /// Some direction's sender fell short of the rate asked.
    pub sender_short: bool,
    /// Per direction.
    pub dirs: Vec<DirTrial>,
    /// Warnings about the trial: a direction whose far port counted more
    /// frames than were sent ([`DirTrial::surplus_note`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Result of a throughput search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Throughput {
    /// Loss tolerated (0: NDR).
    pub loss_tolerance_percent: f64,
    /// The rate found, frames/s per direction (0 if nothing passed).
    pub fps: f64,
    /// The final full-length trial passed at `fps`.
    pub confirmed: bool,
    /// Search trials run (the final trials not counted).
    pub search_trials: u32,
    /// The lowest rate that failed (the bracket's top; the top rate if none failed).
    pub lowest_fail_fps: Option<f64>,
    /// A sender fell short in a trial that counted: the result may be the tester's limit.
    pub tester_limited: bool,
    /// Every trial.
    pub steps: Vec<SearchStep>,
}

/// One step of the frame loss rate test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LossStep {
    /// Percent of the top rate offered.
    pub percent: f64,
    /// Frames/s asked per direction.
    pub offered_fps: f64,
    /// Some direction's sender fell short of the rate asked.
    pub sender_short: bool,
    /// Per direction.
    pub dirs: Vec<DirTrial>,
    /// Warnings about the trial ([`SearchStep::notes`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Result of the back-to-back test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BackToBack {
    /// Longest lossless burst of each repetition (frames per direction).
    pub bursts: Vec<u64>,
    /// Their mean.
    pub mean: f64,
    /// Bursts per repetition's search stop when the bracket is within
    /// `max(1 frame, this % of the longer end)`.
    pub resolution_percent: f64,
    /// Burst lengths tried, per repetition: (frames, lossless).
    pub trials: Vec<Vec<(u64, bool)>>,
    /// Frames/s the senders managed in the longest bursts sent (a burst
    /// "back to back" is as fast as the generator goes).
    pub burst_fps: f64,
    /// The longest burst tried never lost a frame: the DUT's limit is above it.
    pub unbounded: bool,
    /// Warnings about the bursts (`burst of N frames: ` and
    /// [`SearchStep::notes`]' text).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Which way traffic goes: A to B, B to A.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Way {
    /// Port A sends, port B counts.
    Ab,
    /// Port B sends, port A counts.
    Ba,
}

impl Way {
    /// Label for reports: `A->B` / `B->A`.
    pub fn label(self) -> &'static str {
        match self {
            Way::Ab => "A->B",
            Way::Ba => "B->A",
        }
    }
}

/// UDP payload bytes of a frame of `frame` bytes incl. FCS: `frame - 46`.
pub fn payload_len(frame: u32) -> u32 {
    frame.saturating_sub(46)
}

/// What one direction of a trial did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DirTrial {
    /// Direction.
    pub way: Way,
    /// Frames/s asked of the generator (0: as fast as it can).
    pub asked_fps: f64,
    /// Frames trafgen says it sent.
    pub sent: u64,
    /// Frames the sending port's kernel counted out (all traffic on it).
    pub port_tx: u64,
    /// Frames the far port's counter saw (test flows only).
    pub received: u64,
    /// Seconds trafgen ran (process start to exit: includes its set-up).
    pub send_seconds: f64,
    /// trafgen's error output when it failed.
    pub error: Option<String>,
}

/// The generator's ceiling for one frame size, measured port to port.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ceiling {
    /// Frame size (bytes incl. FCS).
    pub frame_size: u32,
    /// Per direction: frames/s received at the far port while both ports
    /// (or one, for a one-way run) sent as fast as they could.
    pub fps: Vec<(Way, f64)>,
    /// The trials behind it.
    pub trials: Vec<DirTrial>,
}

/// min/mean/median/p99/max of one direction's latencies, microseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Smallest.
    pub min_us: f64,
    /// Arithmetic mean.
    pub mean_us: f64,
    /// Median (the mean of the middle two for an even count).
    pub median_us: f64,
    /// 99th percentile, nearest rank (the `ceil(0.99 n)`-th smallest).
    pub p99_us: f64,
    /// Largest.
    pub max_us: f64,
}

/// One direction's probes in one or more trials.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DirLatency {
    /// Direction.
    pub way: Way,
    /// Probes seen leaving the sending port.
    pub probes_sent: u64,
    /// Of those, probes seen at the far port.
    pub probes_received: u64,
    /// Latency of the probes received (`None`: none arrived).
    pub latency: Option<Summary>,
}

/// One latency trial: the load's counts and the probes' latencies per direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencyTrial {
    /// 1, 2, ... in the order run.
    pub n: u32,
    /// Per direction.
    pub dirs: Vec<DirLatency>,
    /// The load beside the probes, per direction (frames the load's trafgen
    /// sent and the far counter saw; probes not included).
    pub load: Vec<DirTrial>,
}

/// The latency test of one frame size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    /// Frames/s per direction under test (load plus probes).
    pub offered_fps: f64,
    /// Where that rate came from: `ndr` (the frame size's throughput) or `fixed` (`--latency-fps`).
    pub rate_from: String,
    /// Probes/s per direction.
    pub probe_fps: f64,
    /// Seconds per trial (probes are sent over its middle half).
    pub trial_seconds: f64,
    /// Every trial.
    pub trials: Vec<LatencyTrial>,
    /// All trials' probes together, per direction.
    pub summary: Vec<DirLatency>,
}
