//! The benchmark section of a board description (`bench:`), as the runner
//! reads it, and loading it from a board YAML file or a standalone spec.
//!
//! ```yaml
//! bench:
//!   duration: 10          # seconds per matrix trial
//!   omit: 1               # seconds omitted at the start (TCP slow start)
//!   repeats: 3            # repeats per cell: the noise estimate of `compare`
//!   protocols: [tcp, udp]
//!   directions: [tx, rx]  # relative to the DUT as iperf3 client; bidir too
//!   mtus: [1500, 9000]
//!   streams: [1, 2]
//!   tcp_length: 131072    # -l for TCP
//!   udp_bitrate: 0        # -b for UDP matrix cells (0 = unlimited)
//!   cpus: {client: [2, 3], server: []}   # taskset lists; empty = any
//!   irq_cpus: {client: [0]}              # the CPU taking the NIC IRQ
//!   cpu_bound_percent: 95
//!   line_rate: 1G
//!   frame_sizes: [64, 128, 256, 512, 1024, 1280, 1518]
//!   rfc2544: {trial_seconds: 1, confirm_seconds: 5, max_trials: 10,
//!             loss_tolerance_percent: 0, resolution_percent: 1}
//! ```

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::BenchError;
use crate::iperf::{Direction, Protocol};

/// A bit rate in bit/s, written as a number or with an SI suffix
/// (`200M`, `1G`, `2500M`, `100k`), the way iperf3's `-b` reads it.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(try_from = "Value", into = "f64")]
pub struct Rate(pub f64);

impl From<Rate> for f64 {
    fn from(r: Rate) -> f64 {
        r.0
    }
}

impl TryFrom<Value> for Rate {
    type Error = String;
    fn try_from(v: Value) -> Result<Self, String> {
        match v {
            Value::Number(n) => n.as_f64().map(Rate).ok_or_else(|| "bad number".to_string()),
            Value::String(s) => Rate::parse(&s),
            other => Err(format!("expected a rate like 200M, got {other}")),
        }
    }
}

impl Rate {
    /// Parses `200M`, `1G`, `1.5g`, `100k`, `1000000`, `200mbit` with the
    /// board loader's parser ([`zynq_net_model::resolve::BitRate`]), so a
    /// spec file and a board's `udp_rate` accept the same rates.
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
#[serde(deny_unknown_fields)]
pub struct PerEnd {
    /// iperf3 client side (the DUT on a board, the client namespace in the lab).
    #[serde(default)]
    pub client: Vec<usize>,
    /// iperf3 server side (the peer).
    #[serde(default)]
    pub server: Vec<usize>,
}

/// RFC 2544-style search settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Rfc2544Spec {
    /// Seconds per search trial.
    pub trial_seconds: f64,
    /// Seconds of the confirmation trial at the found rate.
    pub confirm_seconds: f64,
    /// At most this many search trials per frame size.
    pub max_trials: u32,
    /// Loss still counted as "zero loss", in percent of sent frames.
    pub loss_tolerance_percent: f64,
    /// Stop when the pass/fail bracket is narrower than this (percent of the upper bound).
    pub resolution_percent: f64,
}

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

/// The `bench` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BenchSpec {
    /// Seconds per matrix trial.
    pub duration: f64,
    /// Seconds omitted at the start of each trial (`-O`).
    pub omit: u32,
    /// Repeats per cell.
    pub repeats: u32,
    /// Protocols.
    pub protocols: Vec<Protocol>,
    /// Directions.
    pub directions: Vec<Direction>,
    /// MTUs.
    pub mtus: Vec<u32>,
    /// Parallel stream counts.
    pub streams: Vec<u32>,
    /// `-l` for TCP cells.
    pub tcp_length: u32,
    /// `-b` for UDP cells (0 = unlimited).
    pub udp_bitrate: Rate,
    /// iperf3 CPU lists (taskset).
    pub cpus: PerEnd,
    /// CPUs taking the NIC interrupts: iperf3 is kept off them (C8).
    pub irq_cpus: PerEnd,
    /// A core at or above this busy percentage flags the cell CPU-bound (C8).
    pub cpu_bound_percent: f64,
    /// Line rate for RFC 2544 percentages and the upper search bound.
    pub line_rate: Rate,
    /// RFC 2544 frame sizes (bytes, Ethernet frame incl. FCS).
    pub frame_sizes: Vec<u32>,
    /// RFC 2544 search settings.
    pub rfc2544: Rfc2544Spec,
    /// Zero-copy send (`-Z`).
    pub zerocopy: bool,
}

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

impl BenchSpec {
    /// Checks values a serde type cannot express; collects every problem.
    pub fn validate(&self) -> Result<(), BenchError> {
        let mut errs = Vec::new();
        if self.duration.is_nan() || self.duration <= 0.0 {
            errs.push("bench.duration: must be > 0 seconds".to_string());
        }
        if self.repeats == 0 {
            errs.push("bench.repeats: must be at least 1".to_string());
        }
        for m in &self.mtus {
            if !(576..=65535).contains(m) {
                errs.push(format!("bench.mtus: {m} is outside 576..65535"));
            }
        }
        for s in &self.streams {
            if !(1..=128).contains(s) {
                errs.push(format!("bench.streams: {s} is outside 1..128 (iperf3 -P)"));
            }
        }
        for f in &self.frame_sizes {
            if !(64..=65535).contains(f) {
                errs.push(format!("bench.frame_sizes: {f} is below the 64-byte Ethernet minimum or too large"));
            }
        }
        if self.protocols.is_empty() || self.directions.is_empty() || self.mtus.is_empty() || self.streams.is_empty() {
            errs.push("bench: protocols, directions, mtus and streams must not be empty".to_string());
        }
        if self.line_rate.0.is_nan() || self.line_rate.0 <= 0.0 {
            errs.push("bench.line_rate: must be > 0".to_string());
        }
        if !(0.0..=100.0).contains(&self.cpu_bound_percent) {
            errs.push("bench.cpu_bound_percent: must be 0..100".to_string());
        }
        let r = &self.rfc2544;
        if !(r.trial_seconds > 0.0 && r.confirm_seconds > 0.0) {
            errs.push("bench.rfc2544: trial_seconds and confirm_seconds must be > 0".to_string());
        }
        if r.max_trials == 0 {
            errs.push("bench.rfc2544.max_trials: must be at least 1".to_string());
        }
        if !(0.0..100.0).contains(&r.loss_tolerance_percent) {
            errs.push("bench.rfc2544.loss_tolerance_percent: must be 0..100".to_string());
        }
        if !(r.resolution_percent > 0.0 && r.resolution_percent < 50.0) {
            errs.push("bench.rfc2544.resolution_percent: must be in (0, 50)".to_string());
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(BenchError::Invalid(errs.join("\n")))
        }
    }
}

/// Converts a YAML document to a JSON value (strings, numbers, booleans,
/// sequences, mappings with scalar keys).
fn yaml_to_json(y: &saphyr::YamlOwned) -> Result<Value, String> {
    use saphyr::{ScalarOwned, YamlOwned};
    Ok(match y {
        YamlOwned::Value(s) => match s {
            ScalarOwned::Null => Value::Null,
            ScalarOwned::Boolean(b) => Value::Bool(*b),
            ScalarOwned::Integer(i) => Value::from(*i),
            ScalarOwned::FloatingPoint(f) => Value::from(f.into_inner()),
            ScalarOwned::String(s) => Value::String(s.clone()),
        },
        YamlOwned::Representation(s, _, _) => Value::String(s.clone()),
        YamlOwned::Sequence(seq) => Value::Array(seq.iter().map(yaml_to_json).collect::<Result<_, _>>()?),
        YamlOwned::Mapping(m) => {
            let mut o = serde_json::Map::new();
            for (k, v) in m {
                let key = match yaml_to_json(k)? {
                    Value::String(s) => s,
                    Value::Number(n) => n.to_string(),
                    Value::Bool(b) => b.to_string(),
                    other => return Err(format!("unsupported mapping key {other}")),
                };
                o.insert(key, yaml_to_json(v)?);
            }
            Value::Object(o)
        }
        YamlOwned::Tagged(_, inner) => yaml_to_json(inner)?,
        YamlOwned::Alias(_) => return Err("YAML aliases are not supported".into()),
        YamlOwned::BadValue => return Err("invalid YAML value".into()),
    })
}

/// Loads a YAML (or JSON) text into a JSON value, within the board
/// loader's limits (no aliases, nesting, value size, node count:
/// `zynq_net_model::yaml::check_limits`), so a spec cannot exhaust memory
/// or the stack either.
pub fn load_yaml(text: &str) -> Result<Value, String> {
    use saphyr::LoadableYamlNode;
    if let Err(diags) = zynq_net_model::yaml::check_limits(text) {
        let d = &diags[0];
        return Err(format!("{}:{}: {}", d.pos.line, d.pos.col, d.message));
    }
    let docs = saphyr::YamlOwned::load_from_str(text).map_err(|e| e.to_string())?;
    match docs.first() {
        Some(d) => yaml_to_json(d),
        None => Ok(Value::Null),
    }
}

/// Reads the `bench` section of a board file, or a file that *is* a bench
/// section (when it has no `bench` key and looks like one).
pub fn load_spec(path: &Path) -> Result<(Option<String>, BenchSpec), BenchError> {
    let text = std::fs::read_to_string(path).map_err(|e| BenchError::io(path, e))?;
    let doc = load_yaml(&text).map_err(|e| BenchError::Invalid(format!("{}: {e}", path.display())))?;
    let board = doc
        .get("board")
        .and_then(|b| {
            b.as_str().map(str::to_string).or_else(|| b.get("name").and_then(Value::as_str).map(str::to_string))
        })
        .or_else(|| doc.get("name").and_then(Value::as_str).map(str::to_string));
    let section = match doc.get("bench") {
        Some(b) => b.clone(),
        None if doc.is_object() && doc.get("interfaces").is_none() => doc.clone(),
        None => return Err(BenchError::Invalid(format!("{}: the board has no `bench` section", path.display()))),
    };
    let spec: BenchSpec =
        serde_json::from_value(section).map_err(|e| BenchError::Invalid(format!("{}: bench: {e}", path.display())))?;
    spec.validate().map_err(|e| BenchError::Invalid(format!("{}: {e}", path.display())))?;
    Ok((board, spec))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn hostile_yaml_is_refused_with_a_position() {
        let bomb = format!("a: &x {}\nb: [{}]\n", "z".repeat(1000), vec!["*x"; 100].join(", "));
        let e = load_yaml(&bomb).unwrap_err();
        assert!(e.starts_with("2:5: YAML aliases"), "{e}");
        let deep = format!("{}1\n", "- ".repeat(10_000));
        let e = load_yaml(&deep).unwrap_err();
        assert!(e.contains("nesting deeper than 32 levels"), "{e}");
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
    fn yaml_bench_section() {
        let v =
            load_yaml("board: zcu102\nbench:\n  mtus: [1500, 9000]\n  line_rate: 10G\n  protocols: [tcp]\n").unwrap();
        let s: BenchSpec = serde_json::from_value(v["bench"].clone()).unwrap();
        assert_eq!(s.mtus, vec![1500, 9000]);
        assert_eq!(s.line_rate, Rate(10e9));
        assert_eq!(s.protocols, vec![Protocol::Tcp]);
    }

    #[test]
    fn unknown_keys_are_errors_and_all_problems_are_reported() {
        let v = load_yaml("mtuz: [1500]\n").unwrap();
        assert!(serde_json::from_value::<BenchSpec>(v).is_err());
        let s = BenchSpec { repeats: 0, mtus: vec![100], ..BenchSpec::default() };
        let e = s.validate().unwrap_err().to_string();
        assert!(e.contains("repeats") && e.contains("mtus"), "{e}");
    }
}
