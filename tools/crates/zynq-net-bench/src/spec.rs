//! The runner's settings, resolved: [`BenchSpec`] is built only from the
//! model's resolved `bench` section ([`HiBench`], loaded with positions by
//! [`zynq_net_model::load_bench`]: a board file's section or a standalone
//! bench file; its CPU lists and UDP rate typed), then adjusted by
//! command-line overrides. It is never read
//! from a user's YAML; serde is only for the plan file (`plan.json`) that
//! `bench plan` writes and `bench run --plan` reads back.
//!
//! A section the input leaves out (no `matrix`, no `rfc2544`) is the
//! model's default section ([`zynq_net_model::hi::HiMatrix`]'s and
//! [`zynq_net_model::bench::Rfc2544`]'s `Default`): one set of defaults for
//! a board, a bench file and the runner.

use serde::{Deserialize, Serialize};

use zynq_net_model::bench::{Bench, Direction, Matrix, Protocol, Rfc2544};
use zynq_net_model::hi::HiBench;
use zynq_net_model::resolve::CpuSet;

use crate::error::BenchError;

/// A bit rate in bit/s. Parsed from the command line (`--line-rate 1G`,
/// `lab up --shape 200M`) with the board loader's parser, so the CLI and a
/// bench file's `udp_rate` accept the same rates; a number in `plan.json`.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Rate(pub f64);

impl Rate {
    /// Parses `200M`, `1G`, `1.5g`, `100k`, `1000000`, `200mbit` with
    /// [`zynq_net_model::resolve::BitRate::parse`] (suffixes are powers of 1000).
    pub fn parse(s: &str) -> Result<Rate, String> {
        zynq_net_model::resolve::BitRate::parse(s).map(|r| Rate(r.bits_per_second())).ok_or_else(|| {
            format!(
                "`{s}` is not a rate (a non-negative number with an optional k/M/G/T suffix, e.g. 200M, 1G, 1000000)"
            )
        })
    }
}

impl std::str::FromStr for Rate {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Rate::parse(s)
    }
}

/// CPU lists per end.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PerEnd {
    /// iperf3 client side (the DUT on a board, the client namespace in the lab).
    pub client: Vec<usize>,
    /// iperf3 server side (the peer).
    pub server: Vec<usize>,
}

/// RFC 2544-style search settings (from `bench.rfc2544`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rfc2544Spec {
    /// Seconds per search trial (`trial_s`).
    pub trial_seconds: f64,
    /// Seconds of the confirmation trial at the found rate (`confirm_s`).
    pub confirm_seconds: f64,
    /// At most this many search trials per frame size (`max_trials`).
    pub max_trials: u32,
    /// Loss still counted as "zero loss", in percent of sent frames (`loss_tolerance_pct`).
    pub loss_tolerance_percent: f64,
    /// Stop when the pass/fail bracket is narrower than this (percent of
    /// the upper bound, `resolution_pct`).
    pub resolution_percent: f64,
}

/// Fixed values for unit tests that build settings by hand (the runner's
/// come from the model's section: [`BenchSpec::from_model`]).
#[cfg(test)]
impl Default for Rfc2544Spec {
    fn default() -> Self {
        Rfc2544Spec {
            trial_seconds: 1.0,
            confirm_seconds: 5.0,
            max_trials: 10,
            loss_tolerance_percent: 0.0,
            resolution_percent: 1.0,
        }
    }
}

/// Everything the runner reads, resolved (see the module documentation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchSpec {
    /// Seconds per matrix trial (`matrix.duration_s`, or `--duration`).
    pub duration: f64,
    /// Seconds omitted at the start of each trial (`-O`, `matrix.omit_s`).
    pub omit: u32,
    /// Repeats per cell (`matrix.repeats`).
    pub repeats: u32,
    /// Protocols.
    pub protocols: Vec<Protocol>,
    /// Directions (relative to the iperf3 client, the DUT).
    pub directions: Vec<Direction>,
    /// MTUs.
    pub mtus: Vec<u32>,
    /// Parallel stream counts.
    pub streams: Vec<u32>,
    /// `-l` for TCP cells (`matrix.tcp_length`).
    pub tcp_length: u32,
    /// `-b` for UDP cells, 0 = unlimited (`matrix.udp_rate`).
    pub udp_bitrate: Rate,
    /// iperf3 CPU lists for taskset (`matrix.pin_cpus`, `matrix.peer_pin_cpus`).
    pub cpus: PerEnd,
    /// CPUs taking the NIC interrupts: iperf3 is kept off them
    /// (`dut.irq_cpus`; rule bench-pin-irq-cpu).
    pub irq_cpus: PerEnd,
    /// A core at or above this busy percentage flags the cell CPU-bound (`matrix.cpu_bound_pct`).
    pub cpu_bound_percent: f64,
    /// Line rate for RFC 2544 percentages and the upper search bound (`rfc2544.line_rate_mbps`).
    pub line_rate: Rate,
    /// RFC 2544 frame sizes (bytes, Ethernet frame incl. FCS).
    pub frame_sizes: Vec<u32>,
    /// RFC 2544 search settings.
    pub rfc2544: Rfc2544Spec,
    /// Zero-copy send (`-Z`, `matrix.zerocopy`).
    pub zerocopy: bool,
}

/// Fixed values for unit tests that build a spec by hand; a bench input's
/// spec comes from [`BenchSpec::from_model`], whose defaults are the
/// model's (3 repeats and 2 s / 10 s RFC 2544 trials where this has 1 and
/// 1 s / 5 s). Tests only: no runner path starts from other defaults
/// than the model's.
#[cfg(test)]
impl Default for BenchSpec {
    fn default() -> Self {
        BenchSpec {
            duration: 10.0,
            omit: 0,
            repeats: 1,
            protocols: vec![Protocol::Tcp, Protocol::Udp],
            directions: vec![Direction::Tx, Direction::Rx],
            mtus: vec![1500],
            streams: vec![1],
            tcp_length: 131072,
            udp_bitrate: Rate(0.0),
            cpus: PerEnd::default(),
            irq_cpus: PerEnd::default(),
            cpu_bound_percent: 95.0,
            line_rate: Rate(1e9),
            frame_sizes: vec![64, 128, 256, 512, 1024, 1280, 1518],
            rfc2544: Rfc2544Spec::default(),
            zerocopy: false,
        }
    }
}

fn cpus(s: &CpuSet) -> Vec<usize> {
    s.iter().map(|c| c as usize).collect()
}

impl BenchSpec {
    /// The runner's settings from a resolved `bench` section (of a
    /// [`zynq_net_model::LoadedBench`] or a resolved board); a section left
    /// out is the model's default section.
    pub fn from_model(b: &HiBench) -> BenchSpec {
        let m = b.matrix.clone().unwrap_or_default();
        let x = b.rfc2544.clone().unwrap_or_default();
        let list = |s: &Option<CpuSet>| s.as_ref().map(cpus).unwrap_or_default();
        let irq = b.dut.as_ref().and_then(|d| d.irq_cpus.as_ref()).map(cpus).unwrap_or_default();
        BenchSpec {
            duration: f64::from(m.duration_s),
            omit: m.omit_s,
            repeats: m.repeats,
            protocols: m.protocols,
            directions: m.directions,
            mtus: m.mtus,
            streams: m.streams,
            tcp_length: m.tcp_length,
            udp_bitrate: Rate(m.udp_rate.map_or(0.0, |u| u.bits_per_second())),
            cpus: PerEnd { client: list(&m.pin_cpus), server: list(&m.peer_pin_cpus) },
            irq_cpus: PerEnd { client: irq, server: Vec::new() },
            cpu_bound_percent: m.cpu_bound_pct,
            line_rate: Rate(f64::from(x.line_rate_mbps) * 1e6),
            frame_sizes: x.frame_sizes,
            rfc2544: Rfc2544Spec {
                trial_seconds: f64::from(x.trial_s),
                confirm_seconds: f64::from(x.confirm_s),
                max_trials: x.max_trials,
                loss_tolerance_percent: x.loss_tolerance_pct,
                resolution_percent: x.resolution_pct,
            },
            zerocopy: m.zerocopy,
        }
    }

    /// The model's `bench` section for these settings: the matrix and
    /// the RFC 2544 search (seconds and the line rate as the file writes
    /// them: whole seconds, whole Mbit/s rounded down); no DUT, peers,
    /// CPU lists or UDP rate (no option overrides them, and the file's
    /// were checked with the board).
    pub fn to_model(&self) -> Bench {
        // `as` saturates: a NaN or negative figure becomes 0, which the
        // schema's minimum refuses.
        let whole = |x: f64| x as u32;
        Bench {
            dut: None,
            peers: Vec::new(),
            matrix: Some(Matrix {
                protocols: self.protocols.clone(),
                directions: self.directions.clone(),
                mtus: self.mtus.clone(),
                streams: self.streams.clone(),
                duration_s: whole(self.duration),
                omit_s: self.omit,
                pin_cpus: None,
                peer_pin_cpus: None,
                udp_rate: None,
                tcp_length: self.tcp_length,
                zerocopy: self.zerocopy,
                cpu_bound_pct: self.cpu_bound_percent,
                repeats: self.repeats,
            }),
            rfc2544: Some(Rfc2544 {
                frame_sizes: self.frame_sizes.clone(),
                line_rate_mbps: whole(self.line_rate.0 / 1e6),
                loss_tolerance_pct: self.rfc2544.loss_tolerance_percent,
                trial_s: whole(self.rfc2544.trial_seconds),
                confirm_s: whole(self.rfc2544.confirm_seconds),
                max_trials: self.rfc2544.max_trials,
                resolution_pct: self.rfc2544.resolution_percent,
            }),
            tester: None,
        }
    }

    /// Checks the settings after command-line overrides (`--duration`,
    /// `--repeats`, `bench rfc2544 --frame-sizes` ...) with the model's
    /// checks of a bench file ([`zynq_net_model::check_bench`]: the
    /// schema's ranges, the bench rules): every problem at once, each
    /// named by the option that sets the key and the key in the file
    /// (`--resolution: 60 is outside (0, 50) percent (the file's
    /// rfc2544.resolution_pct)`).
    ///
    /// # Errors
    /// [`BenchError::Invalid`], one line per problem.
    pub fn check(&self) -> Result<(), BenchError> {
        let errs: Vec<String> = zynq_net_model::check_bench(&self.to_model())
            .iter()
            .map(|d| {
                let key = d.pointer.trim_start_matches('/');
                // `/rfc2544/frame_sizes/1` is the list's option
                let flag = FLAGS
                    .iter()
                    .find(|(k, _)| key == *k || key.strip_prefix(k).is_some_and(|r| r.starts_with('/')))
                    .map(|(k, f)| (*f, k.replace('/', ".")));
                match flag {
                    Some((f, k)) => format!("{f}: {} (the file's {k})", d.message),
                    None => format!("{}: {}", key.replace('/', "."), d.message),
                }
            })
            .collect();
        if errs.is_empty() {
            Ok(())
        } else {
            Err(BenchError::Invalid(errs.join("\n")))
        }
    }
}

/// The option that overrides each key of the section, for
/// [`BenchSpec::check`]'s messages.
const FLAGS: &[(&str, &str)] = &[
    ("matrix/duration_s", "--duration"),
    ("matrix/repeats", "--repeats"),
    ("rfc2544/frame_sizes", "--frame-sizes"),
    ("rfc2544/line_rate_mbps", "--line-rate"),
    ("rfc2544/trial_s", "--trial-seconds"),
    ("rfc2544/confirm_s", "--confirm-seconds"),
    ("rfc2544/max_trials", "--max-trials"),
    ("rfc2544/loss_tolerance_pct", "--loss-tolerance"),
    ("rfc2544/resolution_pct", "--resolution"),
];

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::path::Path;

    use super::*;

    fn spec_of(yaml: &str) -> BenchSpec {
        let l = zynq_net_model::load_bench_str(Path::new("bench.yml"), yaml).unwrap_or_else(|d| panic!("{d}"));
        BenchSpec::from_model(&l.bench)
    }

    #[test]
    fn rates() {
        assert_eq!(Rate::parse("200M"), Ok(Rate(200e6)));
        assert_eq!(Rate::parse("1G"), Ok(Rate(1e9)));
        assert_eq!(Rate::parse("200mbit"), Ok(Rate(200e6)));
        assert_eq!(Rate::parse("1500000"), Ok(Rate(1.5e6)));
        assert!(Rate::parse("fast").is_err());
    }

    #[test]
    fn every_key_of_a_bench_file_reaches_the_spec() {
        let s = spec_of(
            "matrix:\n  protocols: [udp]\n  directions: [bidir, rx]\n  mtus: [1500, 9000]\n  streams: [2]\n  \
             duration_s: 3\n  omit_s: 1\n  repeats: 4\n  tcp_length: 65536\n  udp_rate: 200M\n  zerocopy: true\n  \
             cpu_bound_pct: 90\n  pin_cpus: \"2-3\"\n  peer_pin_cpus: 5\n\
             dut: { address: 10.0.0.1, iface: eth0, irq_cpus: 1 }\n\
             rfc2544:\n  frame_sizes: [64, 1518]\n  line_rate_mbps: 10000\n  trial_s: 3\n  confirm_s: 7\n  \
             max_trials: 12\n  loss_tolerance_pct: 0.5\n  resolution_pct: 2\n",
        );
        let want = BenchSpec {
            duration: 3.0,
            omit: 1,
            repeats: 4,
            protocols: vec![Protocol::Udp],
            directions: vec![Direction::Bidir, Direction::Rx],
            mtus: vec![1500, 9000],
            streams: vec![2],
            tcp_length: 65536,
            udp_bitrate: Rate(200e6),
            cpus: PerEnd { client: vec![2, 3], server: vec![5] },
            irq_cpus: PerEnd { client: vec![1], server: vec![] },
            cpu_bound_percent: 90.0,
            line_rate: Rate(10e9),
            frame_sizes: vec![64, 1518],
            rfc2544: Rfc2544Spec {
                trial_seconds: 3.0,
                confirm_seconds: 7.0,
                max_trials: 12,
                loss_tolerance_percent: 0.5,
                resolution_percent: 2.0,
            },
            zerocopy: true,
        };
        assert_eq!(s, want);
        want.check().unwrap();
    }

    #[test]
    fn a_section_left_out_is_the_models_default_section() {
        // the defaults of keys left out and of a whole section left out agree
        let a = spec_of("rfc2544: { frame_sizes: [64, 128, 256, 512, 1024, 1280, 1518], line_rate_mbps: 1000 }\n");
        let b = spec_of("matrix: { protocols: [tcp, udp], directions: [tx, rx], mtus: [1500] }\n");
        assert_eq!(a, b);
        assert_eq!((a.duration, a.repeats, a.streams.clone(), a.omit), (10.0, 3, vec![1], 0));
        assert_eq!((a.rfc2544.trial_seconds, a.rfc2544.confirm_seconds, a.rfc2544.max_trials), (2.0, 10.0, 10));
        assert_eq!((a.line_rate, a.udp_bitrate, a.tcp_length), (Rate(1e9), Rate(0.0), 131072));
        assert!(a.cpus.client.is_empty() && a.irq_cpus.client.is_empty());
    }

    #[test]
    fn overrides_are_checked_naming_the_option() {
        let s = BenchSpec { repeats: 0, duration: 0.0, ..BenchSpec::default() };
        let e = s.check().unwrap_err().to_string();
        assert_eq!(
            e,
            "--duration: 0 is less than the minimum of 1 (the file's matrix.duration_s)\n\
--repeats: 0 is less than the minimum of 1 (the file's matrix.repeats)"
        );
        let s = BenchSpec {
            rfc2544: Rfc2544Spec { resolution_percent: 50.0, ..Rfc2544Spec::default() },
            ..BenchSpec::default()
        };
        assert_eq!(
            s.check().unwrap_err().to_string(),
            "--resolution: 50 is outside (0, 50) percent (the file's rfc2544.resolution_pct)"
        );
        BenchSpec::default().check().unwrap();
        // A key no option sets (a saved plan's) is named by its key.
        let s = BenchSpec { cpu_bound_percent: 0.0, ..BenchSpec::default() };
        let e = s.check().unwrap_err().to_string();
        assert!(e.starts_with("matrix.cpu_bound_pct: 0 is outside"), "{e}");
    }

    #[test]
    fn plan_json_keeps_rates_as_numbers() {
        let s = BenchSpec { udp_bitrate: Rate(2.5e8), ..BenchSpec::default() };
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["udp_bitrate"], serde_json::json!(2.5e8));
        let back: BenchSpec = serde_json::from_value(v).unwrap();
        assert_eq!(back, s);
    }

    /// Each override at its bounds: just inside passes; the bound or just
    /// outside is refused, naming the option; every problem at once.
    #[test]
    fn overrides_at_their_bounds() {
        let rfc = |r: Rfc2544Spec| BenchSpec { rfc2544: r, ..BenchSpec::default() };
        let d = Rfc2544Spec::default();
        let inside = [
            BenchSpec { duration: 1.0, repeats: 1, line_rate: Rate(1e6), ..BenchSpec::default() },
            BenchSpec { frame_sizes: vec![64, 9018], duration: 86400.0, repeats: 1000, ..BenchSpec::default() },
            rfc(Rfc2544Spec { trial_seconds: 86400.0, confirm_seconds: 86400.0, ..d.clone() }),
            rfc(Rfc2544Spec { trial_seconds: 1.0, confirm_seconds: 1.0, max_trials: 1, ..d.clone() }),
            rfc(Rfc2544Spec { loss_tolerance_percent: 0.0, resolution_percent: 0.001, ..d.clone() }),
            rfc(Rfc2544Spec { loss_tolerance_percent: 99.99, resolution_percent: 49.99, ..d.clone() }),
        ];
        for s in inside {
            s.check().unwrap_or_else(|e| panic!("{e}: {s:?}"));
        }
        let outside = [
            (
                BenchSpec { line_rate: Rate(0.0), ..BenchSpec::default() },
                "--line-rate: 0 is less than the minimum of 1",
            ),
            // below 1 Mbit/s: the file's line_rate_mbps is whole Mbit/s
            (BenchSpec { line_rate: Rate(999e3), ..BenchSpec::default() }, "--line-rate: 0 is less"),
            (BenchSpec { frame_sizes: vec![63], ..BenchSpec::default() }, "--frame-sizes: frame size 63 outside"),
            (BenchSpec { frame_sizes: vec![9019], ..BenchSpec::default() }, "--frame-sizes: frame size 9019 outside"),
            (rfc(Rfc2544Spec { trial_seconds: 0.0, ..d.clone() }), "--trial-seconds: 0 is less"),
            (rfc(Rfc2544Spec { confirm_seconds: 0.0, ..d.clone() }), "--confirm-seconds: 0 is less"),
            (rfc(Rfc2544Spec { max_trials: 0, ..d.clone() }), "--max-trials: 0 is less"),
            (rfc(Rfc2544Spec { loss_tolerance_percent: 100.0, ..d.clone() }), "--loss-tolerance: 100 is outside"),
            (rfc(Rfc2544Spec { loss_tolerance_percent: -0.1, ..d.clone() }), "--loss-tolerance: -0.1 is outside"),
            (rfc(Rfc2544Spec { resolution_percent: 0.0, ..d.clone() }), "--resolution: 0 is outside"),
            // iperf3 refuses -t above 86400 (src/iperf.h MAX_TIME): refused
            // here, not a trial that fails with "0 frames/s, NOT confirmed"
            (rfc(Rfc2544Spec { trial_seconds: 86401.0, ..d.clone() }), "--trial-seconds: 86401 is greater"),
            (rfc(Rfc2544Spec { confirm_seconds: 86401.0, ..d.clone() }), "--confirm-seconds: 86401 is greater"),
            (BenchSpec { duration: 86401.0, ..BenchSpec::default() }, "--duration: 86401 is greater"),
            (BenchSpec { repeats: 1001, ..BenchSpec::default() }, "--repeats: 1001 is greater"),
            (
                BenchSpec { frame_sizes: vec![64, 128, 64], ..BenchSpec::default() },
                "--frame-sizes: `64` is listed twice",
            ),
        ];
        for (s, want) in &outside {
            let e = s.check().unwrap_err().to_string();
            assert!(e.starts_with(want) && !e.contains('\n'), "{want}: {e}");
        }
        let all = BenchSpec {
            repeats: 0,
            frame_sizes: vec![10, 20],
            rfc2544: Rfc2544Spec { max_trials: 0, resolution_percent: 60.0, ..d },
            ..BenchSpec::default()
        };
        assert_eq!(all.check().unwrap_err().to_string().lines().count(), 5);
    }
}
