//! The benchmark input: a board file's `bench` section or a standalone
//! bench file, loaded by the model crate ([`zynq_net_model::load_bench`]:
//! positions, schema, rules; every diagnostic at once) and turned into the
//! runner's [`BenchSpec`] and, when the section names its DUT and a peer,
//! [`Targets`]: the DUT is the iperf3 client (so `tx` means the DUT sends,
//! as in seed 000's table), the first peer the server.

use std::path::Path;

use zynq_net_model::bench::Tester;
use zynq_net_model::hi::HiBench;
use zynq_net_model::LoadedBench;

use crate::error::BenchError;
use crate::exec::Host;
use crate::spec::BenchSpec;
use crate::targets::{Endpoint, Targets, TARGETS_FORMAT};

fn host(ssh: &Option<String>) -> Host {
    match ssh {
        Some(dest) => Host::Ssh { dest: dest.clone(), opts: Vec::new() },
        None => Host::Local {},
    }
}

fn endpoint(ssh: &Option<String>, address: &str) -> Endpoint {
    Endpoint {
        host: host(ssh),
        address: address.to_string(),
        // Links are not reconfigured on real hardware: smaller MTUs
        // are emulated with -M / -l (docs/bench.md).
        ifaces: Vec::new(),
        irq_pattern: None,
        pace_iface: None,
        nice: None,
    }
}

/// Where the section says to run: its DUT as the client, its first peer as
/// the server; `None` when it names no DUT or no peer (a bench file for
/// `--lab` or `--targets`).
pub fn targets(b: &HiBench) -> Option<Targets> {
    let (dut, peer) = (b.dut.as_ref()?, b.peers.first()?);
    Some(Targets {
        format: TARGETS_FORMAT.into(),
        client: endpoint(&dut.ssh, &dut.address),
        server: endpoint(&peer.ssh, &peer.address),
        dut: None,
        port: 5201,
        description: format!("DUT {} ({}) -> peer {} ({})", dut.address, dut.iface, peer.name, peer.address),
        udp_socket_buffer: None,
    })
}

/// The runner's settings and targets of a loaded benchmark description.
pub fn convert(l: &LoadedBench) -> (BenchSpec, Option<Targets>) {
    (BenchSpec::from_model(&l.bench), targets(&l.bench))
}

/// Loads a board file or a bench file (told apart by a top-level `board:`
/// key, [`zynq_net_model::doc_kind`]): the board's name (`None` for a bench
/// file), the settings and the targets the file names. Warnings about the
/// bench section go to stderr.
///
/// # Errors
/// [`BenchError::Diagnostics`] with every diagnostic rendered
/// (`error[RULE]: FILE:LINE:COL: message`, the line, a hint), or
/// [`BenchError::Io`] when the file cannot be read.
pub fn load(path: &Path) -> Result<(Option<String>, BenchSpec, Option<Targets>), BenchError> {
    let l = load_model(path)?;
    let (spec, targets) = convert(&l);
    Ok((l.board.clone(), spec, targets))
}

/// The `tester` section of a board file or a bench file, loaded and
/// checked as [`load`] does; the defaults ([`Tester::default`]) when the
/// file has none.
///
/// # Errors
/// As [`load`].
pub fn tester(path: &Path) -> Result<Tester, BenchError> {
    Ok(load_model(path)?.bench.tester.unwrap_or_default())
}

/// Loads a board file or a bench file; `-` is standard input, named
/// `<stdin>` in the diagnostics (as `zynq-net check -` reads a board).
fn load_model(path: &Path) -> Result<LoadedBench, BenchError> {
    let loaded = if path == Path::new("-") {
        let file = Path::new(crate::records::STDIN_NAME);
        let bytes = crate::records::stdin_bytes()?;
        let read = (bytes.len() as u64 <= zynq_net_model::MAX_BOARD_BYTES).then_some(bytes);
        zynq_net_model::board_text(file, read)
            .and_then(|text| zynq_net_model::load_bench_str(file, &text).map_err(zynq_net_model::LoadError::Invalid))
    } else {
        zynq_net_model::load_bench(path)
    };
    let mut l = loaded.map_err(|e| match e {
        zynq_net_model::LoadError::Invalid(d) => BenchError::Diagnostics(d.render()),
        zynq_net_model::LoadError::Io { path, source } => BenchError::Io { path, source },
    })?;
    if l.board.is_some() {
        // a board's other warnings are `check`'s business
        l.warnings.retain(|d| d.pointer.starts_with("/bench"));
    }
    if !l.warnings.is_empty() {
        zynq_net_model::eout!("{}", l.warning_diagnostics());
    }
    Ok(l)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_board_names_its_targets_and_a_bench_file_may_not() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../meta-zynq-net/boards/zcu102.yml");
        let (name, spec, t) = load(&root).unwrap();
        assert_eq!(name.as_deref(), Some("zcu102"));
        let t = t.unwrap();
        assert_eq!((t.client.address.as_str(), t.server.address.as_str()), ("192.0.2.192", "192.0.2.16"));
        assert_eq!(t.client.host, Host::Ssh { dest: "root@zcu102".into(), opts: vec![] });
        assert_eq!(spec.irq_cpus.client, vec![1]);
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("bench.yml");
        std::fs::write(&f, "matrix: { protocols: [tcp], directions: [tx], mtus: [1500] }\n").unwrap();
        let (name, _, t) = load(&f).unwrap();
        assert_eq!((name, t), (None, None));
    }

    #[test]
    fn bench_file_errors_name_file_line_col_and_all_problems() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("bench.yml");
        std::fs::write(&f, "matrix:\n  protocols: [tcp]\n  directions: [tx]\n  mtus: [1500]\n  streams: [0, 2]\nrfc2544: { frame_sizes: [32], line_rate_mbps: 1000, resolution_pct: 60 }\n").unwrap();
        // iperf3's -t stops at 86400 s (src/iperf.h MAX_TIME): so do a
        // search trial and its confirmation
        let g = tmp.path().join("long.yml");
        std::fs::write(&g, "rfc2544: { frame_sizes: [64], line_rate_mbps: 1000, trial_s: 86401, confirm_s: 90000 }\n")
            .unwrap();
        let e = load(&g).unwrap_err().to_string();
        assert!(
            e.contains(&format!("{}:1:62: ", g.display())) && e.contains(&format!("{}:1:80: ", g.display())),
            "{e}"
        );
        assert!(e.contains("86401 is greater than the maximum of 86400") && e.contains("90000 is greater"), "{e}");
        let e = load(&f).unwrap_err().to_string();
        let file = f.display();
        for want in [
            format!("error[bench-streams]: {file}:5:13: 0 parallel streams: iperf3 -P takes 1..128"),
            format!("error[bench-frame-size]: {file}:6:26: frame size 32 outside 64..9018"),
            format!("error[bench-percent]: {file}:6:69: 60 is outside (0, 50) percent"),
        ] {
            assert!(e.contains(&want), "{want} in:\n{e}");
        }
        assert!(e.contains("hint:"), "{e}");
    }
}
