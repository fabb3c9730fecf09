//! Where a benchmark runs: the iperf3 client end, the server end and an
//! optional DUT in between (the lab's router), as a JSON file written by
//! `lab up` or by hand for a board and its peer.
//!
//! ```json
//! {"format": "zynq-net-bench-targets 1",
//!  "client": {"host": {"kind": "ssh", "dest": "root@zcu102"}, "address": "192.0.2.10",
//!             "ifaces": ["eth0"], "irq_pattern": "eth0"},
//!  "server": {"host": {"kind": "local"}, "address": "192.0.2.1", "ifaces": []},
//!  "port": 5201}
//! ```

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::BenchError;
use crate::exec::Host;

/// Format tag of a targets file.
pub const TARGETS_FORMAT: &str = "zynq-net-bench-targets 1";

/// One end (or the DUT).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Endpoint {
    /// Where commands run.
    pub host: Host,
    /// Address of this end on the test path (the client connects to the server's).
    #[serde(default)]
    pub address: String,
    /// Interfaces whose MTU the runner sets per cell (empty: MTU emulated
    /// with `-M`/`-l` only).
    #[serde(default)]
    pub ifaces: Vec<String>,
    /// Name (substring) of the NIC's IRQ in `/proc/interrupts`: the CPU
    /// serving it is kept free of iperf3 (C8).
    #[serde(default)]
    pub irq_pattern: Option<String>,
    /// Interface on which RFC 2544 trials pace the offered load with a tbf
    /// at the trial's rate (a host sender catches up in bursts after being
    /// descheduled; a hardware tester offers a constant rate). Client only.
    #[serde(default)]
    pub pace_iface: Option<String>,
    /// Run iperf3 under `nice -n N` (negative: ahead of background load on
    /// a shared lab host).
    #[serde(default)]
    pub nice: Option<i32>,
}

/// A targets file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Targets {
    /// [`TARGETS_FORMAT`].
    pub format: String,
    /// iperf3 client end.
    pub client: Endpoint,
    /// iperf3 server end.
    pub server: Endpoint,
    /// Device in between (forwarding DUT), sampled for CPU load and MTU.
    #[serde(default)]
    pub dut: Option<Endpoint>,
    /// iperf3 server port.
    #[serde(default = "default_port")]
    pub port: u16,
    /// Free text shown in reports (e.g. the lab's shaping).
    #[serde(default)]
    pub description: String,
    /// Socket buffer (`-w`, bytes) for UDP tests, so the receiving iperf3
    /// being descheduled for a moment does not count as DUT loss
    /// (`UdpRcvbufErrors`). Capped by the peer's `net.core.rmem_max`.
    #[serde(default)]
    pub udp_socket_buffer: Option<u64>,
}

fn default_port() -> u16 {
    5201
}

impl Targets {
    /// Loads and checks a targets file.
    pub fn load(path: &Path) -> Result<Targets, BenchError> {
        let text = std::fs::read_to_string(path).map_err(|e| BenchError::io(path, e))?;
        let t: Targets =
            serde_json::from_str(&text).map_err(|e| BenchError::Invalid(format!("{}: {e}", path.display())))?;
        if t.format != TARGETS_FORMAT {
            return Err(BenchError::Invalid(format!(
                "{}: targets format `{}`, expected `{TARGETS_FORMAT}`",
                path.display(),
                t.format
            )));
        }
        if t.server.address.is_empty() {
            return Err(BenchError::Invalid(format!("{}: server.address is empty", path.display())));
        }
        for e in [&t.client, &t.server].into_iter().chain(t.dut.as_ref()) {
            for i in e.ifaces.iter().chain(e.pace_iface.as_ref()) {
                if !valid_ifname(i) {
                    return Err(BenchError::Invalid(format!(
                        "{}: interface name `{i}`: 1-15 characters of [A-Za-z0-9_.-]",
                        path.display()
                    )));
                }
            }
        }
        Ok(t)
    }

    /// Writes the file.
    pub fn save(&self, path: &Path) -> Result<(), BenchError> {
        let text = serde_json::to_string_pretty(self).map_err(|e| BenchError::Invalid(e.to_string()))?;
        std::fs::write(path, text + "\n").map_err(|e| BenchError::io(path, e))
    }
}

/// Interface names as the kernel and the plan format accept them.
pub fn valid_ifname(s: &str) -> bool {
    !s.is_empty() && s.len() <= 15 && s.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
}
