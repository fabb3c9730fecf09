//! The benchmark plan: the matrix of cells expanded from a [`BenchSpec`]
//! (protocol × direction × MTU × streams, seed 000's layout), saved as JSON.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::BenchError;
use crate::iperf::{Direction, Protocol};
use crate::spec::{BenchSpec, Rfc2544Spec};

/// Format tag of a plan file.
pub const PLAN_FORMAT: &str = "zynq-net-bench-plan 1";

/// IPv4 (20) + TCP (20) header bytes: MSS = MTU - 40.
pub const TCP_IPV4_OVERHEAD: u32 = 40;
/// IPv4 (20) + UDP (8) header bytes: a datagram filling one MTU has MTU - 28 payload bytes.
pub const UDP_IPV4_OVERHEAD: u32 = 28;

/// One cell of the matrix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Stable identifier, e.g. `tcp-tx-mtu1500-p1`.
    pub id: String,
    /// Protocol.
    pub protocol: Protocol,
    /// Direction (relative to the iperf3 client).
    pub direction: Direction,
    /// MTU of the cell.
    pub mtu: u32,
    /// Parallel streams.
    pub streams: u32,
    /// `-l`: TCP buffer length or UDP payload (MTU - 28, one datagram per frame).
    pub length: u32,
    /// `-b` in bit/s; `None` for TCP (unlimited).
    pub bitrate: Option<u64>,
    /// TCP MSS (MTU - 40), used to emulate the MTU where links are not reconfigured.
    pub mss: Option<u32>,
    /// Seconds per trial.
    pub seconds: f64,
    /// Seconds omitted at the start.
    pub omit: u32,
    /// Repeats.
    pub repeats: u32,
}

impl Cell {
    /// Nominal seconds of one trial: the measured `seconds` plus the
    /// `omit` seconds iperf3 runs first and leaves out.
    pub fn trial_seconds(&self) -> f64 {
        self.seconds + f64::from(self.omit)
    }

    /// Progress-bar ticks of one trial (the bars of `run` and `ablate`
    /// count tenths of nominal seconds): [`Cell::trial_seconds`] × 10,
    /// rounded up.
    pub fn progress_ticks(&self) -> u64 {
        (self.trial_seconds() * 10.0).ceil() as u64
    }
}

/// A whole plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// [`PLAN_FORMAT`].
    pub format: String,
    /// Board name, when known.
    pub board: Option<String>,
    /// The spec the plan was made from (CPU lists, thresholds, RFC 2544 settings).
    pub spec: BenchSpec,
    /// Matrix cells in run order.
    pub cells: Vec<Cell>,
    /// Where to run, when the board names its DUT and peers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub targets: Option<crate::targets::Targets>,
}

impl Plan {
    /// Expands the matrix. Order: MTU outermost (changing the MTU may
    /// reset a device, so it changes as rarely as possible), then protocol,
    /// direction, streams.
    pub fn from_spec(board: Option<String>, spec: &BenchSpec) -> Plan {
        let mut cells = Vec::new();
        for &mtu in &spec.mtus {
            for &protocol in &spec.protocols {
                for &direction in &spec.directions {
                    for &streams in &spec.streams {
                        let (length, bitrate, mss) = match protocol {
                            Protocol::Tcp => (spec.tcp_length, None, Some(mtu - TCP_IPV4_OVERHEAD)),
                            Protocol::Udp => (mtu - UDP_IPV4_OVERHEAD, Some(spec.udp_bitrate.0 as u64), None),
                        };
                        cells.push(Cell {
                            id: format!("{protocol}-{direction}-mtu{mtu}-p{streams}"),
                            protocol,
                            direction,
                            mtu,
                            streams,
                            length,
                            bitrate,
                            mss,
                            seconds: spec.duration,
                            omit: spec.omit,
                            repeats: spec.repeats,
                        });
                    }
                }
            }
        }
        Plan { format: PLAN_FORMAT.into(), board, spec: spec.clone(), cells, targets: None }
    }

    /// RFC 2544 settings of the plan.
    pub fn rfc2544(&self) -> &Rfc2544Spec {
        &self.spec.rfc2544
    }

    /// Total nominal trial seconds (for the ETA).
    pub fn nominal_seconds(&self) -> f64 {
        self.cells.iter().map(|c| c.trial_seconds() * f64::from(c.repeats)).sum()
    }

    /// Human-readable table.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "plan for {}: {} cells, {} trials, ~{:.0} s of traffic\n",
            self.board.as_deref().unwrap_or("(unnamed board)"),
            self.cells.len(),
            self.cells.iter().map(|c| c.repeats).sum::<u32>(),
            self.nominal_seconds()
        );
        s.push_str(&format!(
            "{:<24} {:>5} {:>6} {:>5} {:>4} {:>7} {:>10} {:>5} {:>4}\n",
            "cell", "proto", "dir", "mtu", "-P", "-l", "-b", "-t", "rep"
        ));
        for c in &self.cells {
            s.push_str(&format!(
                "{:<24} {:>5} {:>6} {:>5} {:>4} {:>7} {:>10} {:>5} {:>4}\n",
                c.id,
                c.protocol.to_string(),
                c.direction.to_string(),
                c.mtu,
                c.streams,
                c.length,
                c.bitrate.map_or("-".to_string(), |b| b.to_string()),
                c.seconds,
                c.repeats
            ));
        }
        if !self.spec.cpus.client.is_empty() || !self.spec.cpus.server.is_empty() {
            s.push_str(&format!(
                "pinning (taskset -c): client {:?}, server {:?}\n",
                self.spec.cpus.client, self.spec.cpus.server
            ));
        }
        if !self.spec.irq_cpus.client.is_empty() || !self.spec.irq_cpus.server.is_empty() {
            s.push_str(&format!(
                "iperf3 kept off NIC IRQ CPUs: client {:?}, server {:?}\n",
                self.spec.irq_cpus.client, self.spec.irq_cpus.server
            ));
        }
        s.push_str(&format!(
            "rfc2544 frame sizes {:?} at line rate {} bit/s\n",
            self.spec.frame_sizes, self.spec.line_rate.0
        ));
        s
    }

    /// Loads a plan file.
    pub fn load(path: &Path) -> Result<Plan, BenchError> {
        let text = crate::records::read_input_text(path)?;
        let p: Plan =
            serde_json::from_str(&text).map_err(|e| BenchError::Invalid(format!("{}: {e}", path.display())))?;
        if p.format != PLAN_FORMAT {
            return Err(BenchError::Invalid(format!(
                "{}: plan format `{}`, this tool reads `{PLAN_FORMAT}`",
                path.display(),
                p.format
            )));
        }
        Ok(p)
    }

    /// Writes the plan as pretty JSON.
    pub fn save(&self, path: &Path) -> Result<(), BenchError> {
        let text = serde_json::to_string_pretty(self).map_err(|e| BenchError::Invalid(e.to_string()))?;
        crate::records::write_file(path, text + "\n")
    }
}

/// CPUs iperf3 may run on: the configured list (or every online CPU when
/// empty) minus the CPUs that take the NIC IRQs (an iperf3 sharing
/// the core that serves the NIC's IRQ is bound by that core). When that leaves
/// nothing, the configured list is kept and a warning returned.
pub fn choose_cpus(configured: &[usize], irq_cpus: &[usize], online: &[usize]) -> (Vec<usize>, Option<String>) {
    let base: Vec<usize> = if configured.is_empty() { online.to_vec() } else { configured.to_vec() };
    if irq_cpus.is_empty() {
        return (configured.to_vec(), None);
    }
    let kept: Vec<usize> = base.iter().copied().filter(|c| !irq_cpus.contains(c)).collect();
    if kept.is_empty() {
        (
            configured.to_vec(),
            Some(format!("every CPU of {base:?} takes NIC IRQs ({irq_cpus:?}); iperf3 shares a CPU with the IRQ")),
        )
    } else {
        (kept, None)
    }
}

/// CPUs that serve the IRQs whose action name matches `pattern`
/// (substring), from the text of `/proc/interrupts`: for each matching line
/// the CPU column with the highest count.
pub fn irq_cpus_from_interrupts(text: &str, pattern: &str) -> Vec<usize> {
    let mut lines = text.lines();
    let Some(header) = lines.next() else {
        return Vec::new();
    };
    let ncpu = header.split_whitespace().filter(|w| w.starts_with("CPU")).count();
    let mut out = Vec::new();
    for line in lines {
        let mut f = line.split_whitespace();
        let Some(irq) = f.next() else { continue };
        if !irq.trim_end_matches(':').chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let counts: Vec<u64> = f.by_ref().take(ncpu).map(|x| x.parse().unwrap_or(0)).collect();
        let rest: Vec<&str> = f.collect();
        if !rest.iter().any(|w| w.contains(pattern)) {
            continue;
        }
        if let Some((cpu, _)) = counts.iter().enumerate().filter(|(_, n)| **n > 0).max_by_key(|(_, n)| **n) {
            if !out.contains(&cpu) {
                out.push(cpu);
            }
        }
    }
    out.sort_unstable();
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn seed000_matrix() {
        let spec = BenchSpec { mtus: vec![1500, 9000], streams: vec![1, 2], ..BenchSpec::default() };
        let p = Plan::from_spec(Some("zcu102".into()), &spec);
        assert_eq!(p.cells.len(), 2 * 2 * 2 * 2);
        let udp = p.cells.iter().find(|c| c.id == "udp-rx-mtu9000-p2").unwrap();
        assert_eq!(udp.length, 8972);
        let tcp = p.cells.iter().find(|c| c.id == "tcp-tx-mtu1500-p1").unwrap();
        assert_eq!(tcp.mss, Some(1460));
        assert_eq!(tcp.length, 131072);
        let back: Plan = serde_json::from_str(&serde_json::to_string(&p).unwrap()).unwrap();
        assert_eq!(back, p);
        // the table: a header naming the board, cells and trials, then one row per cell
        let text = p.to_text();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("plan for zcu102: 16 cells, "), "{text}");
        assert_eq!(lines.len(), 3 + p.cells.len(), "{text}");
        assert!(lines.last().unwrap().starts_with("rfc2544 frame sizes [64, "), "{text}");
        assert!(!text.contains("pinning") && !text.contains("kept off"), "{text}");
        assert!(lines[1].split_whitespace().eq(["cell", "proto", "dir", "mtu", "-P", "-l", "-b", "-t", "rep"]));
        assert!(lines.iter().any(|l| l.starts_with("udp-rx-mtu9000-p2 ") && l.contains(" 8972 ")), "{text}");
        assert!(Plan::from_spec(None, &spec).to_text().starts_with("plan for (unnamed board): "));
    }

    #[test]
    fn nominal_time_counts_the_omitted_start_of_every_trial() {
        // Worked by hand: 4 cells (tcp/udp x rx/tx) x 4 repeats x (3 s + 1 s omitted) = 64 s.
        let spec = BenchSpec { duration: 3.0, omit: 1, repeats: 4, ..BenchSpec::default() };
        let p = Plan::from_spec(None, &spec);
        assert_eq!(p.cells.len(), 4);
        assert_eq!(p.nominal_seconds(), 64.0);
        assert!(p.to_text().starts_with("plan for (unnamed board): 4 cells, 16 trials, ~64 s of traffic\n"));
        // The bars count tenths of a second, rounded up: 2.25 s + 1 s -> 32.5 -> 33 ticks.
        let c = Cell { seconds: 2.25, omit: 1, ..p.cells[0].clone() };
        assert_eq!(c.trial_seconds(), 3.25);
        assert_eq!(c.progress_ticks(), 33);
        assert_eq!(Cell { omit: 0, ..c }.progress_ticks(), 23);
    }

    #[test]
    fn c8_iperf3_kept_off_the_irq_cpu() {
        let (cpus, warn) = choose_cpus(&[], &[0], &[0, 1, 2, 3]);
        assert_eq!(cpus, vec![1, 2, 3]);
        assert!(warn.is_none());
        let (cpus, warn) = choose_cpus(&[0], &[0], &[0, 1]);
        assert_eq!(cpus, vec![0]);
        assert!(warn.is_some());
        let (cpus, _) = choose_cpus(&[], &[], &[0, 1]);
        assert!(cpus.is_empty(), "no IRQ CPU known and no list: no pinning");
    }

    #[test]
    fn irq_cpu_from_proc_interrupts() {
        let t = "           CPU0       CPU1       CPU2       CPU3\n\
                 11:          0          0          0          0     GICv2  30 Level     arch_timer\n\
                 45:     912345          0          2          0     GICv2  95 Level     eth0\n\
                 46:          0          0      77777          0     GICv2  96 Level     xilinx-dma-controller\n\
                 IPI0:       10         10         10         10       Rescheduling interrupts\n";
        assert_eq!(irq_cpus_from_interrupts(t, "eth0"), vec![0]);
        assert_eq!(irq_cpus_from_interrupts(t, "dma"), vec![2]);
        assert!(irq_cpus_from_interrupts(t, "eth9").is_empty());
        assert!(irq_cpus_from_interrupts(t, "arch_timer").is_empty(), "no interrupt counted: no CPU");
    }

    /// Pinning and the IRQ CPUs kept free are listed when either end has some.
    #[test]
    fn the_table_lists_pinning_and_irq_cpus_of_either_end() {
        let one = |client: Vec<usize>, server: Vec<usize>| crate::spec::PerEnd { client, server };
        let spec = BenchSpec { cpus: one(vec![], vec![2]), irq_cpus: one(vec![1], vec![]), ..BenchSpec::default() };
        let text = Plan::from_spec(None, &spec).to_text();
        assert!(text.contains("\npinning (taskset -c): client [], server [2]\n"), "{text}");
        assert!(text.contains("\niperf3 kept off NIC IRQ CPUs: client [1], server []\n"), "{text}");
        let spec = BenchSpec { cpus: one(vec![3], vec![]), irq_cpus: one(vec![], vec![0]), ..spec };
        let text = Plan::from_spec(None, &spec).to_text();
        assert!(text.contains("\npinning (taskset -c): client [3], server []\n"), "{text}");
        assert!(text.contains("\niperf3 kept off NIC IRQ CPUs: client [], server [0]\n"), "{text}");
    }
}
