//! iperf3: version detection, command lines and `--json` result parsing.
//!
//! Facts this module relies on (iperf3 3.x, `src/iperf_api.c`, checked on
//! captures recorded in the lab, see `tests/data/`):
//! - `end.sum_received.bits_per_second` is the rate the **receiver** saw;
//!   for UDP, `end.sum.bits_per_second` is the *sender's* rate even though
//!   `end.sum.lost_packets` comes from the receiver. Only the received rate
//!   is a throughput.
//! - With `--bidir` the reverse direction is in `end.sum_*_bidir_reverse`.
//! - The UDP payload defaults to the control connection's MSS, so `-l` is
//!   always passed explicitly; `--udp-counters-64bit` avoids the 32-bit
//!   packet counter wrapping on long fast runs.
//! - From 3.16 iperf3 runs one thread per stream and `-A` pins *all* of them
//!   to one CPU, so CPU pinning is done with `taskset -c`, never `-A`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::BenchError;

/// An iperf3 version (`iperf 3.12`, `iperf 3.17.1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Version {
    /// Major version (3).
    pub major: u32,
    /// Minor version.
    pub minor: u32,
    /// Patch level (0 when absent).
    pub patch: u32,
}

impl Version {
    /// Parses the first line of `iperf3 --version` or `start.version` of a
    /// JSON result (`iperf 3.12`, `iperf 3.17.1 (cJSON 1.7.15)`, `iperf 3.9+`).
    pub fn parse(text: &str) -> Option<Version> {
        let word = text
            .split_whitespace()
            // the version is the first word that starts with 3
            .find(|w| w.starts_with('3'))?;
        let mut nums =
            word.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty()).map(|s| s.parse::<u32>().ok());
        let major = nums.next()??;
        let minor = nums.next().flatten().unwrap_or(0);
        let patch = nums.next().flatten().unwrap_or(0);
        Some(Version { major, minor, patch })
    }

    /// iperf3 3.16 and later run one thread per stream (esnet/iperf#1738:
    /// `-A` then pins every stream thread to the same CPU).
    pub fn multithreaded(self) -> bool {
        (self.major, self.minor) >= (3, 16)
    }

    /// `--bidir` exists from 3.7 on.
    pub fn has_bidir(self) -> bool {
        (self.major, self.minor) >= (3, 7)
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

// One Protocol and one Direction for the board, the bench file, the plan
// and iperf3: the model's (docs/board-format.md, `bench.matrix`).
// Direction is relative to the iperf3 client (the DUT on a board).
pub use zynq_net_model::bench::{Direction, Protocol};

/// What one iperf3 client invocation should do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientOpts {
    /// Server address.
    pub server: String,
    /// Server port.
    pub port: u16,
    /// Protocol.
    pub protocol: Protocol,
    /// Direction.
    pub direction: Direction,
    /// Parallel streams (`-P`).
    pub streams: u32,
    /// Duration in seconds (`-t`), may be fractional for short trials.
    pub seconds: f64,
    /// Buffer / UDP payload length in bytes (`-l`, always passed).
    pub length: u32,
    /// Target bitrate in bit/s (`-b`); `None` = iperf3 default (unlimited
    /// for TCP, which iperf3 treats as 0).
    pub bitrate: Option<u64>,
    /// TCP MSS (`-M`) to emulate an MTU without touching the links.
    pub mss: Option<u32>,
    /// Seconds omitted at the start (`-O`).
    pub omit: u32,
    /// Zero-copy send (`-Z`).
    pub zerocopy: bool,
    /// Socket buffer size (`-w`), bytes.
    #[serde(default)]
    pub window: Option<u64>,
}

impl ClientOpts {
    /// The iperf3 argument vector (without the program name and without any
    /// `taskset` prefix).
    pub fn args(&self, version: Version) -> Vec<String> {
        let mut a: Vec<String> = vec![
            "-c".into(),
            self.server.clone(),
            "-p".into(),
            self.port.to_string(),
            "--json".into(),
            "-t".into(),
            fmt_seconds(self.seconds),
            "-l".into(),
            self.length.to_string(),
            "-P".into(),
            self.streams.max(1).to_string(),
        ];
        if self.protocol == Protocol::Udp {
            a.push("-u".into());
            a.push("--udp-counters-64bit".into());
        }
        match self.direction {
            Direction::Tx => {}
            Direction::Rx => a.push("-R".into()),
            Direction::Bidir => {
                if version.has_bidir() {
                    a.push("--bidir".into());
                }
            }
        }
        if let Some(b) = self.bitrate {
            a.push("-b".into());
            a.push(b.to_string());
        } else if self.protocol == Protocol::Udp {
            // iperf3's UDP default is 1 Mbit/s: never what a benchmark means.
            a.push("-b".into());
            a.push("0".into());
        }
        if let Some(m) = self.mss {
            if self.protocol == Protocol::Tcp {
                a.push("-M".into());
                a.push(m.to_string());
            }
        }
        if self.omit > 0 {
            a.push("-O".into());
            a.push(self.omit.to_string());
        }
        if self.zerocopy {
            a.push("-Z".into());
        }
        if let Some(w) = self.window {
            a.push("-w".into());
            a.push(w.to_string());
        }
        a
    }
}

/// iperf3 takes `-t` as a float since 3.x; print without trailing noise.
fn fmt_seconds(s: f64) -> String {
    if (s - s.round()).abs() < 1e-9 {
        format!("{}", s.round() as u64)
    } else {
        format!("{s:.3}")
    }
}

/// One direction of a result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Flow {
    /// Rate the sender reported (bit/s).
    pub sent_bps: f64,
    /// Rate the receiver reported (bit/s): the throughput.
    pub received_bps: f64,
    /// Bytes sent.
    pub sent_bytes: u64,
    /// Bytes received.
    pub received_bytes: u64,
    /// TCP retransmits (sender side), if reported.
    pub retransmits: Option<u64>,
    /// UDP datagrams sent (`sum_sent.packets`).
    pub packets_sent: Option<u64>,
    /// UDP datagrams lost as counted by the receiver.
    pub lost_packets: Option<u64>,
    /// UDP loss in percent as counted by the receiver.
    pub lost_percent: Option<f64>,
    /// UDP jitter in ms.
    pub jitter_ms: Option<f64>,
    /// Receiver-side measurement time in seconds.
    pub seconds: f64,
}

/// The parts of an iperf3 `--json` result the benchmark uses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// `start.version`, parsed.
    pub version: Option<Version>,
    /// Protocol from `start.test_start.protocol`.
    pub protocol: Protocol,
    /// `start.test_start.num_streams`.
    pub streams: u32,
    /// `start.test_start.blksize` (the `-l` value).
    pub blksize: u64,
    /// `start.test_start.reverse`.
    pub reverse: bool,
    /// Whether the result is a `--bidir` one.
    pub bidir: bool,
    /// Client→server direction (the forward one).
    pub forward: Flow,
    /// Server→client direction of a `--bidir` test.
    pub reverse_flow: Option<Flow>,
    /// `end.cpu_utilization_percent.host_total` (iperf3's own view).
    pub host_cpu_percent: Option<f64>,
    /// `end.cpu_utilization_percent.remote_total`.
    pub remote_cpu_percent: Option<f64>,
}

impl Summary {
    /// Total received rate over both directions (bit/s).
    pub fn total_received_bps(&self) -> f64 {
        self.forward.received_bps + self.reverse_flow.as_ref().map_or(0.0, |f| f.received_bps)
    }
}

fn f64_at(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

fn u64_at(v: &Value, key: &str) -> Option<u64> {
    v.get(key).and_then(|x| x.as_u64().or_else(|| x.as_f64().map(|f| f as u64)))
}

fn flow(end: &Value, sent_key: &str, recv_key: &str, udp: bool) -> Result<Flow, BenchError> {
    let sent = end.get(sent_key).ok_or_else(|| BenchError::Iperf(format!("end.{sent_key} missing")))?;
    let recv = end.get(recv_key).ok_or_else(|| BenchError::Iperf(format!("end.{recv_key} missing")))?;
    let mut f = Flow {
        sent_bps: f64_at(sent, "bits_per_second").unwrap_or(0.0),
        received_bps: f64_at(recv, "bits_per_second")
            .ok_or_else(|| BenchError::Iperf(format!("end.{recv_key}.bits_per_second missing")))?,
        sent_bytes: u64_at(sent, "bytes").unwrap_or(0),
        received_bytes: u64_at(recv, "bytes").unwrap_or(0),
        retransmits: u64_at(sent, "retransmits"),
        seconds: f64_at(recv, "seconds").unwrap_or(0.0),
        ..Flow::default()
    };
    if udp {
        f.packets_sent = u64_at(sent, "packets");
        f.lost_packets = u64_at(recv, "lost_packets");
        f.lost_percent = f64_at(recv, "lost_percent");
        f.jitter_ms = f64_at(recv, "jitter_ms");
        // Some iperf3 releases leave the packet counters out of sum_received
        // for UDP; derive the loss from the byte counts then.
        if f.lost_packets.is_none() {
            if let (Some(sent_pk), true) = (f.packets_sent, f.sent_bytes > 0) {
                let recv_pk = (f.received_bytes as f64 / f.sent_bytes as f64 * sent_pk as f64).round() as u64;
                f.lost_packets = Some(sent_pk.saturating_sub(recv_pk));
            }
        }
    }
    Ok(f)
}

/// Parses an iperf3 `--json` client result.
pub fn parse(text: &str) -> Result<Summary, BenchError> {
    let v: Value = serde_json::from_str(text).map_err(|e| BenchError::Iperf(format!("not JSON: {e}")))?;
    parse_value(&v)
}

/// Parses an already-decoded iperf3 `--json` client result.
pub fn parse_value(v: &Value) -> Result<Summary, BenchError> {
    if let Some(err) = v.get("error").and_then(Value::as_str) {
        return Err(BenchError::Iperf(format!("iperf3 reported: {err}")));
    }
    let start = v.get("start").ok_or_else(|| BenchError::Iperf("start missing".into()))?;
    let ts = start.get("test_start").ok_or_else(|| BenchError::Iperf("start.test_start missing".into()))?;
    let protocol = match ts.get("protocol").and_then(Value::as_str) {
        Some(p) if p.eq_ignore_ascii_case("udp") => Protocol::Udp,
        Some(p) if p.eq_ignore_ascii_case("tcp") => Protocol::Tcp,
        other => return Err(BenchError::Iperf(format!("unsupported protocol {other:?}"))),
    };
    let udp = protocol == Protocol::Udp;
    let end = v.get("end").ok_or_else(|| BenchError::Iperf("end missing".into()))?;
    let bidir = end.get("sum_received_bidir_reverse").is_some() || ts.get("bidir").and_then(Value::as_u64) == Some(1);
    let forward = flow(end, "sum_sent", "sum_received", udp)?;
    let reverse_flow =
        if bidir { Some(flow(end, "sum_sent_bidir_reverse", "sum_received_bidir_reverse", udp)?) } else { None };
    let cpu = end.get("cpu_utilization_percent");
    Ok(Summary {
        version: start.get("version").and_then(Value::as_str).and_then(Version::parse),
        protocol,
        streams: u64_at(ts, "num_streams").unwrap_or(1) as u32,
        blksize: u64_at(ts, "blksize").unwrap_or(0),
        reverse: u64_at(ts, "reverse").unwrap_or(0) == 1,
        bidir,
        forward,
        reverse_flow,
        host_cpu_percent: cpu.and_then(|c| f64_at(c, "host_total")),
        remote_cpu_percent: cpu.and_then(|c| f64_at(c, "remote_total")),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(Version::parse("iperf 3.12 (cJSON 1.7.15)"), Some(Version { major: 3, minor: 12, patch: 0 }));
        assert_eq!(Version::parse("iperf 3.17.1"), Some(Version { major: 3, minor: 17, patch: 1 }));
        assert_eq!(Version::parse("iperf 3.9+"), Some(Version { major: 3, minor: 9, patch: 0 }));
        assert!(!Version::parse("iperf 3.12").map(|v| v.multithreaded()).unwrap_or(true));
        assert!(Version::parse("iperf 3.16").map(|v| v.multithreaded()).unwrap_or(false));
        assert_eq!(Version::parse("bash: iperf3: not found"), None);
        // --bidir came with 3.7
        let v = |major, minor| Version { major, minor, patch: 0 };
        assert!(!v(3, 6).has_bidir() && v(3, 7).has_bidir() && v(3, 12).has_bidir() && v(4, 0).has_bidir());
        assert!(!v(3, 15).multithreaded() && v(3, 16).multithreaded());
        assert_eq!(v(3, 12).to_string(), "3.12.0");
    }

    #[test]
    fn udp_args_always_carry_length_and_64bit_counters() {
        let o = ClientOpts {
            server: "10.201.2.2".into(),
            port: 5201,
            protocol: Protocol::Udp,
            direction: Direction::Rx,
            streams: 4,
            seconds: 1.5,
            length: 1472,
            bitrate: None,
            mss: Some(1460),
            omit: 0,
            zerocopy: false,
            window: None,
        };
        let a = o.args(Version { major: 3, minor: 12, patch: 0 }).join(" ");
        assert!(a.contains("-l 1472"), "{a}");
        assert!(a.contains("--udp-counters-64bit"), "{a}");
        assert!(a.contains("-R"), "{a}");
        assert!(a.contains("-b 0"), "{a}");
        assert!(a.contains("-t 1.500"), "{a}");
        assert!(!a.contains("-A"), "{a}");
        assert!(!a.contains("-M"), "MSS is TCP only: {a}");
    }

    fn opts(protocol: Protocol, direction: Direction) -> ClientOpts {
        ClientOpts {
            server: "192.0.2.1".into(),
            port: 5202,
            protocol,
            direction,
            streams: 0,
            seconds: 10.0,
            length: 131072,
            bitrate: None,
            mss: Some(1460),
            omit: 2,
            zerocopy: true,
            window: Some(4_194_304),
        }
    }

    #[test]
    fn tcp_args_in_order() {
        let v = Version { major: 3, minor: 12, patch: 0 };
        assert_eq!(
            opts(Protocol::Tcp, Direction::Tx).args(v).join(" "),
            "-c 192.0.2.1 -p 5202 --json -t 10 -l 131072 -P 1 -M 1460 -O 2 -Z -w 4194304"
        );
        let o = ClientOpts {
            bitrate: Some(1_000_000),
            omit: 0,
            zerocopy: false,
            window: None,
            ..opts(Protocol::Tcp, Direction::Bidir)
        };
        assert_eq!(o.args(v).join(" "), "-c 192.0.2.1 -p 5202 --json -t 10 -l 131072 -P 1 --bidir -b 1000000 -M 1460");
        // No --bidir before 3.7 (the runner refuses such a trial).
        assert!(!o.args(Version { major: 3, minor: 6, patch: 0 }).contains(&"--bidir".to_string()));
        assert_eq!(fmt_seconds(0.25), "0.250");
        assert_eq!(Protocol::Udp.to_string(), "udp");
        assert_eq!(Direction::Rx.to_string(), "rx");
        assert_eq!(Direction::Bidir.to_string(), "bidir");
    }

    /// The shape of iperf3's documented `--json` client output (start.
    /// test_start, end.sum_sent / sum_received, cpu_utilization_percent),
    /// written by hand: a UDP result whose sum_received lacks the packet
    /// counters, as some releases write it.
    const UDP_NO_COUNTERS: &str = r#"{"start": {"version": "iperf 3.9", "test_start": {"protocol": "UDP", "num_streams": 2, "blksize": 1472, "reverse": 1}},
 "end": {"sum_sent": {"bytes": 1472000, "bits_per_second": 11776000.0, "packets": 1000},
         "sum_received": {"bytes": 1457280, "bits_per_second": 11658240.0, "seconds": 1.0},
         "cpu_utilization_percent": {"host_total": 3.5, "remote_total": 1.25}}}"#;

    #[test]
    fn udp_loss_from_bytes_when_counters_are_missing() {
        let s = parse(UDP_NO_COUNTERS).unwrap();
        assert_eq!((s.protocol, s.streams, s.blksize, s.reverse, s.bidir), (Protocol::Udp, 2, 1472, true, false));
        assert_eq!(s.version, Some(Version { major: 3, minor: 9, patch: 0 }));
        // 1,457,280 of 1,472,000 bytes arrived: 990 of 1000 datagrams, 10 lost.
        assert_eq!((s.forward.packets_sent, s.forward.lost_packets), (Some(1000), Some(10)));
        assert_eq!((s.forward.sent_bytes, s.forward.received_bytes), (1_472_000, 1_457_280));
        assert_eq!((s.forward.received_bps, s.forward.sent_bps, s.forward.seconds), (11_658_240.0, 11_776_000.0, 1.0));
        assert_eq!((s.host_cpu_percent, s.remote_cpu_percent), (Some(3.5), Some(1.25)));
        // Nothing sent: no loss to derive.
        let none = UDP_NO_COUNTERS.replace("\"bytes\": 1472000", "\"bytes\": 0");
        assert_eq!(parse(&none).unwrap().forward.lost_packets, None);
    }

    #[test]
    fn bad_results_are_errors_that_say_why() {
        let e = |t: &str| parse(t).unwrap_err().to_string();
        assert!(e("nope").starts_with("iperf3: not JSON"));
        assert_eq!(
            e(r#"{"error": "unable to connect to server"}"#),
            "iperf3: iperf3 reported: unable to connect to server"
        );
        assert_eq!(e("{}"), "iperf3: start missing");
        assert_eq!(e(r#"{"start": {}}"#), "iperf3: start.test_start missing");
        assert_eq!(
            e(r#"{"start": {"test_start": {"protocol": "SCTP"}}, "end": {}}"#),
            "iperf3: unsupported protocol Some(\"SCTP\")"
        );
        assert_eq!(e(r#"{"start": {"test_start": {"protocol": "TCP"}}}"#), "iperf3: end missing");
        assert_eq!(
            e(r#"{"start": {"test_start": {"protocol": "TCP"}}, "end": {"sum_received": {}}}"#),
            "iperf3: end.sum_sent missing"
        );
        assert_eq!(
            e(r#"{"start": {"test_start": {"protocol": "TCP"}}, "end": {"sum_sent": {}, "sum_received": {}}}"#),
            "iperf3: end.sum_received.bits_per_second missing"
        );
        // bidir announced in test_start: the reverse sums are required.
        let t = r#"{"start": {"test_start": {"protocol": "tcp", "bidir": 1}}, "end": {"sum_sent": {}, "sum_received": {"bits_per_second": 1}}}"#;
        assert_eq!(e(t), "iperf3: end.sum_sent_bidir_reverse missing");
    }
}
