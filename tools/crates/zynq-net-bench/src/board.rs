//! A board description's `bench` section (`zynq_net_model::bench::Bench`,
//! loaded and validated by the model crate) turned into the runner's
//! [`BenchSpec`] and [`Targets`]: the DUT is the iperf3 client (so `tx`
//! means the DUT sends, as in seed 000's table), the first peer the server.

use std::path::Path;

use zynq_net_model::bench::{Bench, Direction as MDirection, Protocol as MProtocol};
use zynq_net_model::resolve::{CpuSet, ResolvedBench};

use crate::error::BenchError;
use crate::exec::Host;
use crate::iperf::{Direction, Protocol};
use crate::spec::{BenchSpec, Rate, Rfc2544Spec};
use crate::targets::{Endpoint, Targets, TARGETS_FORMAT};

fn cpus(s: &CpuSet) -> Vec<usize> {
    s.iter().map(|c| c as usize).collect()
}

fn host(ssh: &Option<String>) -> Host {
    match ssh {
        Some(dest) => Host::Ssh { dest: dest.clone(), opts: Vec::new() },
        None => Host::Local,
    }
}

/// Converts the model's bench section; `r` holds its resolved values
/// ([`zynq_net_model::LoadedBoard::resolved`]).
pub fn convert(b: &Bench, r: &ResolvedBench) -> Result<(BenchSpec, Targets), BenchError> {
    let mut s = BenchSpec::default();
    if let Some(m) = &b.matrix {
        s.protocols = m
            .protocols
            .iter()
            .map(|p| match p {
                MProtocol::Tcp => Protocol::Tcp,
                MProtocol::Udp => Protocol::Udp,
            })
            .collect();
        s.directions = m
            .directions
            .iter()
            .map(|d| match d {
                MDirection::Tx => Direction::Tx,
                MDirection::Rx => Direction::Rx,
                MDirection::Bidir => Direction::Bidir,
            })
            .collect();
        s.mtus = m.mtus.clone();
        s.streams = m.streams.clone();
        s.duration = f64::from(m.duration_s);
        s.repeats = m.repeats;
        if let Some(p) = &r.pin_cpus {
            s.cpus.client = cpus(p);
        }
        if let Some(r) = r.udp_rate {
            s.udp_bitrate = Rate(r.bits_per_second());
        }
    }
    if let Some(i) = &r.irq_cpus {
        s.irq_cpus.client = cpus(i);
    }
    if let Some(r) = &b.rfc2544 {
        s.frame_sizes = r.frame_sizes.clone();
        s.line_rate = Rate(f64::from(r.line_rate_mbps) * 1e6);
        s.rfc2544 = Rfc2544Spec {
            trial_seconds: f64::from(r.trial_s),
            confirm_seconds: f64::from(r.confirm_s),
            max_trials: r.max_trials,
            loss_tolerance_percent: r.loss_tolerance_pct,
            ..Rfc2544Spec::default()
        };
    }
    s.validate()?;
    let peer = b.peers.first().ok_or_else(|| BenchError::Invalid("bench.peers is empty".into()))?;
    let targets = Targets {
        format: TARGETS_FORMAT.into(),
        client: Endpoint {
            host: host(&b.dut.ssh),
            address: b.dut.address.clone(),
            // Links are not reconfigured on real hardware: smaller MTUs
            // are emulated with -M / -l (docs/bench.md).
            ifaces: Vec::new(),
            irq_pattern: None,
            pace_iface: None,
            nice: None,
        },
        server: Endpoint {
            host: host(&peer.ssh),
            address: peer.address.clone(),
            ifaces: Vec::new(),
            irq_pattern: None,
            pace_iface: None,
            nice: None,
        },
        dut: None,
        port: 5201,
        description: format!("DUT {} ({}) -> peer {} ({})", b.dut.address, b.dut.iface, peer.name, peer.address),
        udp_socket_buffer: None,
    };
    Ok((s, targets))
}

/// Loads a board file with the model crate (every diagnostic rendered on error).
pub fn load(path: &Path) -> Result<(String, BenchSpec, Targets), BenchError> {
    let loaded = zynq_net_model::load_board(path).map_err(|e| BenchError::Invalid(e.to_string()))?;
    let no_bench = || BenchError::Invalid(format!("{}: the board has no `bench` section", path.display()));
    let bench = loaded.board.bench.as_ref().ok_or_else(no_bench)?;
    let resolved = loaded.resolved.bench.as_ref().ok_or_else(no_bench)?;
    let (spec, targets) = convert(bench, resolved)?;
    Ok((loaded.board.board.name.clone(), spec, targets))
}
