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
    /// result, and the first search rate), at least 1.
    #[schemars(range(min = 1))]
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
