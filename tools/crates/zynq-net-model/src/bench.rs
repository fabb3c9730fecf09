//! The `bench` section of a board: who is measured against whom, the iperf3
//! matrix and the RFC 2544-style throughput search (used by `zynq-net bench`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::cpus::CpuList;

/// Benchmark description.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Bench {
    /// The device under test.
    pub dut: BenchHost,
    /// Traffic peers (iperf3 servers/clients on the other side of the DUT).
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

/// Transport protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// TCP.
    Tcp,
    /// UDP.
    Udp,
}

/// Direction seen from the DUT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// DUT sends.
    Tx,
    /// DUT receives.
    Rx,
    /// Both at once (`--bidir`).
    Bidir,
}

/// iperf3 matrix: the cross product of the lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Matrix {
    /// Protocols.
    pub protocols: Vec<Protocol>,
    /// Directions.
    pub directions: Vec<Direction>,
    /// MTUs in bytes.
    pub mtus: Vec<u32>,
    /// Parallel streams (`-P`).
    #[serde(default = "default_streams")]
    pub streams: Vec<u32>,
    /// Duration of each cell in seconds (`-t`).
    #[serde(default = "default_duration")]
    pub duration_s: u32,
    /// CPUs iperf3 is pinned to on the DUT (taskset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pin_cpus: Option<CpuList>,
    /// UDP offered rate (`-b`), e.g. `2500M`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub udp_rate: Option<String>,
    /// Repeats per cell (for noise estimates).
    #[serde(default = "default_repeats")]
    pub repeats: u32,
}

/// RFC 2544-style throughput search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rfc2544 {
    /// Ethernet frame sizes in bytes (RFC 2544 section 9: 64 ... 1518).
    pub frame_sizes: Vec<u32>,
    /// Line rate in Mbit/s (the physical limit reported beside each result).
    pub line_rate_mbps: u32,
    /// Accepted loss in percent (0 = RFC 2544 zero loss).
    #[serde(default)]
    pub loss_tolerance_pct: f64,
    /// Duration of one search trial in seconds.
    #[serde(default = "default_trial")]
    pub trial_s: u32,
    /// Duration of the confirmation trial in seconds.
    #[serde(default = "default_confirm")]
    pub confirm_s: u32,
    /// Maximum number of search trials per frame size.
    #[serde(default = "default_max_trials")]
    pub max_trials: u32,
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
