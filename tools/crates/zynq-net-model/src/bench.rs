//! The `bench` section of a board: who is measured against whom, the iperf3
//! matrix and the RFC 2544-style throughput search (used by `zynq-net bench`).
//!
//! It is the only benchmark input schema: a standalone bench file is this
//! section on its own ([`crate::load_bench`]), with the same keys. On a
//! board `dut` and `peers` are required (the schema says so:
//! [`crate::schema::schema_value`]); in a bench file they are optional,
//! because `zynq-net bench --lab`/`--targets` say where to run.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::cpus::CpuList;

/// Benchmark description.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Bench {
    /// The device under test (required on a board; optional in a bench file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dut: Option<BenchHost>,
    /// Traffic peers (iperf3 servers/clients on the other side of the DUT;
    /// required on a board, optional in a bench file).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(min = 1))]
    pub peers: Vec<BenchPeer>,
    /// iperf3 matrix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix: Option<Matrix>,
    /// RFC 2544-style throughput search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rfc2544: Option<Rfc2544>,
    /// RFC 2544 with the trafgen tester (`zynq-net bench rfc2544-tester`):
    /// every knob of its tests; a command-line flag overrides its key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tester: Option<Tester>,
}

/// The device under test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BenchHost {
    /// `user@host` for ssh; absent = run locally.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ssh: Option<String>,
    /// Data-plane address of the DUT (what peers connect to).
    pub address: String,
    /// Interface under test (a name from `interfaces`).
    pub iface: String,
    /// CPUs that take the NIC's IRQs (iperf3 is kept off them: rule bench-pin-irq-cpu).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub irq_cpus: Option<CpuList>,
}

/// A traffic peer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BenchPeer {
    /// Name used in reports.
    #[schemars(regex(pattern = r"^[A-Za-z0-9_-]{1,32}$"))]
    pub name: String,
    /// `user@host` for ssh; absent = run locally.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ssh: Option<String>,
    /// Data-plane address of the peer.
    pub address: String,
}

/// Transport protocol (displayed as written: `tcp`, `udp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// TCP.
    Tcp,
    /// UDP.
    Udp,
}

impl std::fmt::Display for Protocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Protocol::Tcp => "tcp",
            Protocol::Udp => "udp",
        })
    }
}

/// Direction seen from the DUT, which is the iperf3 client (displayed as
/// written: `tx`, `rx`, `bidir`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// DUT sends (client to server).
    Tx,
    /// DUT receives (`-R`: server to client).
    Rx,
    /// Both at once (`--bidir`).
    Bidir,
}

impl std::fmt::Display for Direction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Direction::Tx => "tx",
            Direction::Rx => "rx",
            Direction::Bidir => "bidir",
        })
    }
}

/// iperf3 matrix: the cross product of the lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Matrix {
    /// Protocols (`tcp`, `udp`).
    #[schemars(length(min = 1))]
    pub protocols: Vec<Protocol>,
    /// Directions (`tx`, `rx`, `bidir`).
    #[schemars(length(min = 1))]
    pub directions: Vec<Direction>,
    /// MTUs in bytes.
    #[schemars(length(min = 1))]
    pub mtus: Vec<u32>,
    /// Parallel streams (`-P`), 1-128 each.
    #[serde(default = "default_streams")]
    #[schemars(length(min = 1))]
    pub streams: Vec<u32>,
    /// Duration of each cell in seconds (`-t`), 1 to 86400 (iperf3 refuses
    /// more: src/iperf.h MAX_TIME).
    #[serde(default = "default_duration")]
    #[schemars(range(min = 1, max = 86400))]
    pub duration_s: u32,
    /// Seconds omitted at the start of each cell (`-O`: TCP slow start).
    #[serde(default)]
    pub omit_s: u32,
    /// CPUs iperf3 is pinned to on the DUT (taskset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pin_cpus: Option<CpuList>,
    /// CPUs iperf3 is pinned to on the peer (taskset; not checked against
    /// the board's CPU count: the peer is another machine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer_pin_cpus: Option<CpuList>,
    /// UDP offered rate (`-b`), e.g. `2500M`; absent = unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub udp_rate: Option<String>,
    /// TCP buffer length in bytes (`-l`), 1 to 1 MiB (iperf3 src/iperf.h: MAX_BLOCKSIZE).
    #[serde(default = "default_tcp_length")]
    #[schemars(range(min = 1, max = 1048576))]
    pub tcp_length: u32,
    /// Zero-copy send (`-Z`).
    #[serde(default)]
    pub zerocopy: bool,
    /// A core at least this busy (percent, 0 < x <= 100) flags the cell CPU-bound.
    #[serde(default = "default_cpu_bound")]
    pub cpu_bound_pct: f64,
    /// Repeats per cell (for noise estimates), 1 to 1000: the plan lists
    /// every trial, and 1000 repeats of the largest matrix the schema
    /// allows stay within memory and a 64-bit trial count.
    #[serde(default = "default_repeats")]
    #[schemars(range(min = 1, max = 1000))]
    pub repeats: u32,
}

/// RFC 2544-style throughput search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rfc2544 {
    /// Ethernet frame sizes in bytes (RFC 2544 section 9: 64 ... 1518).
    #[schemars(length(min = 1))]
    pub frame_sizes: Vec<u32>,
    /// Line rate in Mbit/s (the physical limit reported beside each
    /// result, and the first search rate), 1 to 1600000 (1.6 Tbit/s, the
    /// fastest Ethernet, IEEE 802.3dj).
    #[schemars(range(min = 1, max = 1_600_000))]
    pub line_rate_mbps: u32,
    /// Accepted loss in percent (0 <= x < 100; 0 = RFC 2544 zero loss).
    #[serde(default)]
    pub loss_tolerance_pct: f64,
    /// Duration of one search trial in seconds, 1 to 86400 (iperf3 `-t`
    /// refuses more: src/iperf.h MAX_TIME).
    #[serde(default = "default_trial")]
    #[schemars(range(min = 1, max = 86400))]
    pub trial_s: u32,
    /// Duration of the confirmation trial in seconds, 1 to 86400 (as `trial_s`).
    #[serde(default = "default_confirm")]
    #[schemars(range(min = 1, max = 86400))]
    pub confirm_s: u32,
    /// Maximum number of search trials per frame size, at least 1.
    #[serde(default = "default_max_trials")]
    #[schemars(range(min = 1))]
    pub max_trials: u32,
    /// The search stops when the pass/fail bracket is narrower than this
    /// (percent of its upper bound, 0 < x < 50).
    #[serde(default = "default_resolution")]
    pub resolution_pct: f64,
}

/// The fastest rate a bench file may ask for, in bit/s: 1.6 Tbit/s, the
/// fastest Ethernet (IEEE 802.3dj), as `line_rate_mbps`'s maximum.
pub const MAX_RATE_BPS: f64 = 1.6e12;

/// The tester's frame sizes in bytes, FCS included: 64 (the Ethernet
/// minimum) to 2048 (trafgen without `--jumbo-support` sends no larger).
pub const TESTER_FRAME_RANGE: (u32, u32) = (64, 2048);

/// The tester's most flows per port (addresses and UDP source ports
/// within 198.18.0.0/15, RFC 2544 appendix C.2.2).
pub const TESTER_MAX_FLOWS: u32 = 4096;

/// Most latency probes per direction and trial: the trafgen configuration
/// holds one frame per probe, and the probes go out over the middle half
/// of the trial (`latency_probe_fps * latency_s / 2`).
pub const TESTER_MAX_PROBES: u64 = 20_000;

/// A test of RFC 2544 section 26 (written as `throughput`, `frame-loss`,
/// `back-to-back`, `latency`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TesterTest {
    /// Section 26.1: the NDR and each PDR.
    Throughput,
    /// Section 26.3: frame loss rate from 100 % down.
    FrameLoss,
    /// Section 26.4: the longest lossless burst.
    BackToBack,
    /// Section 26.2: tagged probes at the throughput rate.
    Latency,
}

impl std::fmt::Display for TesterTest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TesterTest::Throughput => "throughput",
            TesterTest::FrameLoss => "frame-loss",
            TesterTest::BackToBack => "back-to-back",
            TesterTest::Latency => "latency",
        })
    }
}

/// RFC 2544 with the trafgen tester: the knobs of sections 23-26
/// (docs/bench.md, "RFC 2544 with the trafgen tester"). Seconds may be
/// fractional; every key has the default shown by [`Tester::default`],
/// which is also what the command uses without a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Tester {
    /// Tests, in the order they run (latency runs at the NDR, so after
    /// `throughput`, unless `latency_fps` is given).
    #[schemars(length(min = 1))]
    pub tests: Vec<TesterTest>,
    /// Frame sizes in bytes, FCS included, 64 to 2048.
    #[schemars(length(min = 1))]
    pub frame_sizes: Vec<u32>,
    /// Line rate in Mbit/s: the 100 % mark and the searches' top, 1 to
    /// 1600000 (1.6 Tbit/s, the fastest Ethernet, IEEE 802.3dj).
    #[schemars(range(min = 1, max = 1_600_000))]
    pub line_rate_mbps: u32,
    /// Both ports send at once (full duplex); `false`: port A to B only.
    pub duplex: bool,
    /// Flows per port, 1 to 4096.
    #[schemars(range(min = 1, max = 4096))]
    pub flows: u32,
    /// Seconds per search trial, (0, 86400].
    pub trial_s: f64,
    /// Seconds of the final full-length trial, (0, 86400].
    pub final_s: f64,
    /// Search trials per frame size and search, 1 to 1000.
    #[schemars(range(min = 1, max = 1000))]
    pub max_trials: u32,
    /// Search resolution, percent of the bracket's top, (0, 50].
    pub resolution_pct: f64,
    /// Partial drop rates searched besides the NDR, percent each, (0, 100);
    /// `[]` for none.
    pub pdr_pct: Vec<f64>,
    /// Frame loss step, percent of the top rate, (0, 10] (section 26.3).
    pub loss_step_pct: f64,
    /// Seconds per frame loss trial, (0, 86400].
    pub loss_trial_s: f64,
    /// Longest back-to-back burst tried, frames per direction.
    #[schemars(range(min = 1))]
    pub b2b_max_frames: u64,
    /// Back-to-back repetitions (section 26.4 asks for 50).
    #[schemars(range(min = 1, max = 1000))]
    pub b2b_repeats: u32,
    /// Back-to-back resolution, percent of the burst, (0, 50].
    pub b2b_resolution_pct: f64,
    /// Wait before each trial, seconds, [0, 3600] (section 23).
    pub settle_s: f64,
    /// Wait after the learning frames, seconds, [0, 3600] (section 23).
    pub learning_s: f64,
    /// Wait after the senders stop before the counters are read, seconds,
    /// [0, 3600] (section 23 asks for 2).
    pub drain_s: f64,
    /// Frames per direction of the port-to-port calibration of the
    /// generator's ceiling (0: none).
    pub calibrate_frames: u64,
    /// Latency trials per frame size (section 26.2 asks for 20).
    #[schemars(range(min = 1, max = 1000))]
    pub latency_repeats: u32,
    /// Seconds per latency trial, (0, 86400] (section 26.2 asks for 120).
    pub latency_s: f64,
    /// Latency probes per second per direction, at least 1, and at most
    /// 20000 probes over half the trial (`latency_probe_fps * latency_s / 2`).
    pub latency_probe_fps: f64,
    /// Frames/s per direction of the latency test's load; absent: each
    /// frame size's NDR.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_fps: Option<f64>,
}

/// The tester's defaults: the throughput, frame loss and back-to-back
/// tests at RFC 2544's frame sizes, full duplex over 16 flows per port at
/// 1000 Mbit/s, 2 s trials and a 10 s final one, a 0.1 % PDR, and the
/// section 23 waits (settle 1 s, learning 0.5 s, drain 2 s).
impl Default for Tester {
    fn default() -> Self {
        Tester {
            tests: vec![TesterTest::Throughput, TesterTest::FrameLoss, TesterTest::BackToBack],
            frame_sizes: vec![64, 128, 256, 512, 1024, 1280, 1518],
            line_rate_mbps: 1000,
            duplex: true,
            flows: 16,
            trial_s: 2.0,
            final_s: 10.0,
            max_trials: 8,
            resolution_pct: 1.0,
            pdr_pct: vec![0.1],
            loss_step_pct: 10.0,
            loss_trial_s: 2.0,
            b2b_max_frames: 100_000,
            b2b_repeats: 5,
            b2b_resolution_pct: 1.0,
            settle_s: 1.0,
            learning_s: 0.5,
            drain_s: 2.0,
            calibrate_frames: 300_000,
            latency_repeats: 3,
            latency_s: 4.0,
            latency_probe_fps: 100.0,
            latency_fps: None,
        }
    }
}

/// What a bench input without a `matrix` section measures: TCP and UDP,
/// tx and rx, MTU 1500, and every key's own default (one stream, 10 s,
/// 3 repeats, ...).
impl Default for Matrix {
    fn default() -> Self {
        Matrix {
            protocols: vec![Protocol::Tcp, Protocol::Udp],
            directions: vec![Direction::Tx, Direction::Rx],
            mtus: vec![1500],
            streams: default_streams(),
            duration_s: default_duration(),
            omit_s: 0,
            pin_cpus: None,
            peer_pin_cpus: None,
            udp_rate: None,
            tcp_length: default_tcp_length(),
            zerocopy: false,
            cpu_bound_pct: default_cpu_bound(),
            repeats: default_repeats(),
        }
    }
}

/// What `zynq-net bench rfc2544` searches without an `rfc2544` section:
/// RFC 2544 section 9.1's frame sizes (64 ... 1518) at 1000 Mbit/s, and
/// every key's own default (2 s trials, 10 s confirmation, ...).
impl Default for Rfc2544 {
    fn default() -> Self {
        Rfc2544 {
            frame_sizes: vec![64, 128, 256, 512, 1024, 1280, 1518],
            line_rate_mbps: 1000,
            loss_tolerance_pct: 0.0,
            trial_s: default_trial(),
            confirm_s: default_confirm(),
            max_trials: default_max_trials(),
            resolution_pct: default_resolution(),
        }
    }
}

fn default_streams() -> Vec<u32> {
    vec![1]
}
fn default_duration() -> u32 {
    10
}
fn default_repeats() -> u32 {
    3
}
fn default_trial() -> u32 {
    2
}
fn default_confirm() -> u32 {
    10
}
fn default_max_trials() -> u32 {
    10
}
fn default_tcp_length() -> u32 {
    128 * 1024
}
fn default_cpu_bound() -> f64 {
    95.0
}
fn default_resolution() -> f64 {
    1.0
}
