//! Result records: what the runners write and the presenters (report,
//! chart, compare, the ablation report) read. The runners ([`crate::run`],
//! [`crate::rfc2544`], [`crate::ablate`]) produce them; nothing here runs
//! anything, so a presenter imports this file and never a runner.
//!
//! Frame arithmetic (RFC 2544 §9.1 and §26, IEEE 802.3): a frame of `F`
//! bytes (Ethernet header 14 + payload + FCS 4) occupies `F + 20` bytes on
//! the wire (preamble and SFD 8, inter-frame gap 12), so the line-rate
//! maximum is `fps = rate / (8 · (F + 20))`. The UDP payload that makes an
//! `F`-byte frame is `F - 46` (14 + 4 + IPv4 20 + UDP 8).

use std::fs::OpenOptions;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::cpu::CoreLoad;
use crate::error::BenchError;
use crate::iperf::Summary;
use crate::spec::Rfc2544Spec;
use crate::stats::Stats;

pub mod tester;

/// File names inside a run directory.
pub mod files {
    /// The plan the run executed.
    pub const PLAN: &str = "plan.json";
    /// Run metadata (versions, pinning, targets).
    pub const RUN: &str = "run.json";
    /// One JSON line per matrix trial.
    pub const RESULTS: &str = "results.jsonl";
    /// RFC 2544 summary.
    pub const RFC2544: &str = "rfc2544.json";
    /// One JSON line per RFC 2544 trial.
    pub const RFC2544_TRIALS: &str = "rfc2544-trials.jsonl";
    /// Raw iperf3 JSON per trial.
    pub const RAW_DIR: &str = "raw";
}

/// CPU load of one machine over a trial.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineLoad {
    /// Which end(s) this machine is (`client`, `server`, `dut`, or
    /// `client+server+dut` when they share one machine as in the lab).
    pub role: String,
    /// Per-core load.
    pub cores: Vec<CoreLoad>,
}

/// One trial's record (a line of `results.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialRecord {
    /// Cell id (or `rfc2544-F` for search trials).
    pub cell: String,
    /// Repeat index (trial index for RFC 2544).
    pub repeat: u32,
    /// Unix time the trial started.
    pub started: f64,
    /// Wall time of the whole trial including process start-up.
    pub wall_seconds: f64,
    /// The client command line as run.
    pub command: String,
    /// Received throughput (bit/s), both directions for `--bidir`.
    pub throughput_bps: f64,
    /// Parsed iperf3 result.
    pub summary: Option<Summary>,
    /// Per-core load on every machine.
    pub cpu: Vec<MachineLoad>,
    /// Cores at or above the CPU-bound threshold (`client cpu1 97%`).
    pub cpu_bound: Vec<String>,
    /// Notes (pinning decisions, single-threaded iperf3, ...).
    pub notes: Vec<String>,
    /// Error, when the trial failed.
    pub error: Option<String>,
}

impl TrialRecord {
    /// The busiest core of any machine over the trial, percent
    /// (usr+sys+irq+softirq, [`CoreLoad::busy`]); 0 without CPU figures.
    pub fn max_core_busy(&self) -> f64 {
        self.cpu.iter().flat_map(|m| m.cores.iter()).map(CoreLoad::busy).fold(0.0, f64::max)
    }

    /// Sent throughput (bit/s), both directions for `--bidir`; 0 without
    /// a parsed iperf3 result.
    pub fn sent_bps(&self) -> f64 {
        self.summary.as_ref().map_or(0.0, |x| x.forward.sent_bps + x.reverse_flow.as_ref().map_or(0.0, |f| f.sent_bps))
    }

    /// UDP loss of the forward flow, percent (iperf3 `end.sum.lost_percent`).
    pub fn lost_percent(&self) -> Option<f64> {
        self.summary.as_ref()?.forward.lost_percent
    }

    /// TCP retransmits of the forward flow.
    pub fn retransmits(&self) -> Option<u64> {
        self.summary.as_ref()?.forward.retransmits
    }
}

#[cfg(test)]
impl TrialRecord {
    /// A successful trial of `cell` at `bps` bit/s (1 s, no summary, no
    /// CPU figures): the record the report, compare and ablation tests
    /// build their runs from.
    pub(crate) fn for_test(cell: &str, repeat: u32, bps: f64) -> TrialRecord {
        TrialRecord {
            cell: cell.into(),
            repeat,
            started: 0.0,
            wall_seconds: 1.0,
            command: String::new(),
            throughput_bps: bps,
            summary: None,
            cpu: vec![],
            cpu_bound: vec![],
            notes: vec![],
            error: None,
        }
    }
}

// ---- per-cell summaries (report, chart) ----

/// Aggregated cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellSummary {
    /// Cell id.
    pub cell: String,
    /// Throughput over the successful repeats (bit/s).
    pub throughput: Stats,
    /// Any repeat CPU-bound?
    pub cpu_bound: Vec<String>,
    /// Failed repeats.
    pub failed: usize,
    /// Mean per-core load per machine over the repeats.
    pub cpu: Vec<(String, Vec<CoreLoad>)>,
    /// Notes of the first repeat.
    pub notes: Vec<String>,
}

impl CellSummary {
    /// The busiest mean core of any machine, percent ([`CoreLoad::busy`]).
    pub fn max_core_busy(&self) -> f64 {
        self.cpu.iter().flat_map(|(_, cs)| cs.iter()).map(CoreLoad::busy).fold(0.0, f64::max)
    }
}

// ---- RFC 2544 ----

/// Wire overhead per frame: preamble + SFD (8) and inter-frame gap (12).
pub const WIRE_OVERHEAD: u32 = 20;
/// Ethernet header (14) + FCS (4) + IPv4 (20) + UDP (8).
pub const UDP_FRAME_OVERHEAD: u32 = 46;

/// Line-rate maximum frames per second for frame size `f` at `line_bps`.
pub fn max_fps(line_bps: f64, f: u32) -> f64 {
    line_bps / (8.0 * (f + WIRE_OVERHEAD) as f64)
}

/// Frame bits per second (what RFC 2544 tables call Mb/s: frames × size).
pub fn frame_bps(fps: f64, f: u32) -> f64 {
    fps * 8.0 * f as f64
}

/// Percent of line rate including the 20 bytes of wire overhead per frame.
pub fn line_percent(fps: f64, f: u32, line_bps: f64) -> f64 {
    100.0 * fps / max_fps(line_bps, f)
}

/// UDP payload (`-l`) for an `f`-byte frame.
pub fn udp_payload(f: u32) -> u32 {
    f.saturating_sub(UDP_FRAME_OVERHEAD).max(1)
}

/// One trial of the search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// 1-based trial number (search trials; confirmation trials are marked).
    pub n: u32,
    /// Confirmation trial?
    pub confirm: bool,
    /// Offered frame rate asked from iperf3.
    pub offered_fps: f64,
    /// Frame rate iperf3 actually sent.
    pub sent_fps: f64,
    /// Frame rate the receiver got.
    pub received_fps: f64,
    /// Frames sent.
    pub sent: u64,
    /// Frames lost (receiver's count).
    pub lost: u64,
    /// Loss percent.
    pub loss_percent: f64,
    /// Passed the loss criterion?
    pub pass: bool,
    /// Error of the trial, if any.
    pub error: Option<String>,
}

/// Result for one frame size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrameResult {
    /// Frame size in bytes.
    pub frame_size: u32,
    /// UDP payload used.
    pub udp_payload: u32,
    /// Throughput in frames per second (0 if nothing passed).
    pub fps: f64,
    /// Throughput in frame bits per second.
    pub frame_bps: f64,
    /// UDP payload bits per second at that rate.
    pub payload_bps: f64,
    /// Percent of line rate (with 20 B/frame wire overhead).
    pub line_percent: f64,
    /// Line-rate maximum frames per second.
    pub max_fps: f64,
    /// Search trials used.
    pub search_trials: u32,
    /// Did the longer confirmation trial pass at `fps`?
    pub confirmed: bool,
    /// The sender could not offer the rate asked (the tester, not the DUT, limited the result).
    pub sender_limited: bool,
    /// Highest CPU load seen (any core of any machine) during the confirmation.
    pub max_core_busy: f64,
    /// CPU-bound cores during the confirmation (a tester at 100 % of one core
    /// measures itself, not the DUT).
    pub cpu_bound: Vec<String>,
    /// Every trial.
    pub steps: Vec<Step>,
}

/// Test results for the chart and compare tests: `frame_size` bytes at
/// `fps` frames/s, one search trial, `max_fps` at 1 Gbit/s line rate, no
/// steps, CPU load or sender limit.
#[cfg(test)]
impl FrameResult {
    pub(crate) fn bare(frame_size: u32, fps: f64, confirmed: bool) -> FrameResult {
        FrameResult {
            frame_size,
            udp_payload: frame_size - 46,
            fps,
            frame_bps: 0.0,
            payload_bps: 0.0,
            line_percent: 0.0,
            max_fps: max_fps(1e9, frame_size),
            search_trials: 1,
            confirmed,
            sender_limited: false,
            max_core_busy: 0.0,
            cpu_bound: vec![],
            steps: vec![],
        }
    }
}

/// The whole RFC 2544 result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rfc2544Result {
    /// Format tag.
    pub format: String,
    /// Line rate used (bit/s).
    pub line_rate_bps: f64,
    /// Search settings.
    pub settings: Rfc2544Spec,
    /// Per frame size.
    pub frames: Vec<FrameResult>,
    /// Deviations from RFC 2544, stated for the report.
    pub deviations: Vec<String>,
}

// ---- ablation ----

/// The applier's outcome for one variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApplyOutcome {
    /// Exit status of `revert` (0 everything restored, 3 some values not).
    pub revert_exit: i32,
    /// Exit status of `apply` (0 all applied, 3 some skipped or failed);
    /// `None` for the untuned variant, -1 when `apply` failed (the trial's error says why).
    pub apply_exit: Option<i32>,
    /// Per-step results of `apply --json` (`result`, `verb`, `iface`, `target`, ...).
    #[serde(default)]
    pub steps: Vec<Value>,
}

/// One trial of the ablation (a line of `ablate-trials.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AblateTrial {
    /// Round (0-based).
    pub round: u32,
    /// Variant id.
    pub variant: String,
    /// Cell id.
    pub cell: String,
    /// How the variant was applied before this trial.
    pub apply: ApplyOutcome,
    /// The trial.
    pub record: TrialRecord,
}

/// Appends one JSON line and flushes it to disk. A torn last line (an
/// earlier append interrupted mid-write: no final newline; `bench run
/// --resume` appends after one) is cut off first, so the new record is not
/// glued onto it: its trial was never recorded whole, and [`read_jsonl`]
/// leaves it out, so a resumed run measures it again. A last line that is
/// a whole record without its newline gets the newline instead.
///
/// # Errors
/// [`BenchError::Io`] naming `path`; [`BenchError::Invalid`] when the
/// value does not serialize.
pub fn append_jsonl<T: Serialize>(path: &Path, value: &T) -> Result<(), BenchError> {
    let io = |e| BenchError::io(path, e);
    let mut f = OpenOptions::new().create(true).read(true).append(true).open(path).map_err(io)?;
    let len = f.metadata().map_err(io)?.len();
    if len > 0 {
        let mut last = [0u8];
        f.seek(SeekFrom::End(-1)).map_err(io)?;
        f.read_exact(&mut last).map_err(io)?;
        if last[0] != b'\n' {
            let mut all = Vec::new();
            f.seek(SeekFrom::Start(0)).map_err(io)?;
            f.read_to_end(&mut all).map_err(io)?;
            let keep = all.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
            if serde_json::from_slice::<Value>(&all[keep..]).is_ok() {
                // a whole record without its newline (cut just before it,
                // or edited by hand): kept, as read_jsonl keeps it
                f.write_all(b"\n").map_err(io)?;
            } else {
                f.set_len(keep as u64).map_err(io)?;
            }
        }
    }
    let mut line = serde_json::to_string(value).map_err(|e| BenchError::Invalid(e.to_string()))?;
    line.push('\n');
    f.write_all(line.as_bytes()).map_err(|e| BenchError::io(path, e))?;
    f.sync_data().map_err(|e| BenchError::io(path, e))
}

/// Writes a whole output file so that `path` holds the old contents or the
/// new ones at every instant, never a torn mix (a bench killed mid-write,
/// a full disk): the bytes go to a temporary file beside `path`, are
/// synced, and the file is renamed over `path` (rename(2) is atomic within
/// a file system). Mode 0644, as the plain `std::fs::write` under the
/// usual umask 022 gave.
///
/// # Errors
/// [`BenchError::Io`] naming `path` (a missing parent directory, no room,
/// no permission); `path` is then left as it was.
/// An existing `path` that is not a regular file is refused, not
/// replaced: a device node, FIFO, socket, directory or symbolic link there
/// (`-o /dev/null` run as root would otherwise replace the machine's
/// /dev/null with a file).
pub fn write_file(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), BenchError> {
    if let Ok(m) = std::fs::symlink_metadata(path) {
        if !m.file_type().is_file() {
            return Err(BenchError::Invalid(format!(
                "{}: {}, not a regular file: an output is written whole and renamed into place, which would \
                 replace it; give the path of a regular file or of one that does not exist yet",
                path.display(),
                zynq_net_model::file_kind(&m)
            )));
        }
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let io = |e: std::io::Error| BenchError::io(path, e);
    let mut tmp = tempfile::Builder::new().prefix(".zynq-net-bench.").tempfile_in(dir).map_err(io)?;
    tmp.write_all(bytes.as_ref()).map_err(io)?;
    tmp.as_file().sync_data().map_err(io)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file().set_permissions(std::fs::Permissions::from_mode(0o644)).map_err(io)?;
    }
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

/// Largest input file the bench reads (plans, results, run files): far
/// above any plan or run it writes, and a bound on what a wrong path (a
/// device such as /dev/zero) can make it read.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// The bytes of an input file: a regular file (a symbolic link to one
/// too) of at most [`MAX_INPUT_BYTES`]; a FIFO, device, socket or
/// directory is refused at once instead of being waited on or read
/// without end.
///
/// # Errors
/// [`BenchError::Io`] (not found, no permission), [`BenchError::Invalid`]
/// for the other cases, naming the file.
pub fn read_input(path: &Path) -> Result<Vec<u8>, BenchError> {
    if path == Path::new("-") {
        return stdin_bytes();
    }
    let m = std::fs::metadata(path).map_err(|e| BenchError::io(path, e))?;
    if !m.is_file() {
        return Err(BenchError::Invalid(format!(
            "{}: {}, not a regular file",
            path.display(),
            zynq_net_model::file_kind(&m)
        )));
    }
    zynq_net_model::read_at_most(path, MAX_INPUT_BYTES).map_err(|e| BenchError::io(path, e))?.ok_or_else(|| {
        BenchError::Invalid(format!(
            "{}: larger than {} MiB: not a file the bench wrote",
            path.display(),
            MAX_INPUT_BYTES >> 20
        ))
    })
}

/// How an input named `-` (standard input) is named in messages, as
/// `zynq-net check -` names it.
pub const STDIN_NAME: &str = "<stdin>";

/// Standard input, read once (at most [`MAX_INPUT_BYTES`]) and kept: an
/// input named `-` may be read again (a plan's format is looked at before
/// the plan or the bench file is loaded).
///
/// # Errors
/// As [`read_input`], naming [`STDIN_NAME`].
pub fn stdin_bytes() -> Result<Vec<u8>, BenchError> {
    use std::io::Read;
    static READ: std::sync::OnceLock<Result<Vec<u8>, String>> = std::sync::OnceLock::new();
    let read = READ.get_or_init(|| {
        let mut bytes = Vec::new();
        match std::io::stdin().lock().take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes) {
            Err(e) => Err(format!("{STDIN_NAME}: {e}")),
            Ok(_) if bytes.len() as u64 > MAX_INPUT_BYTES => {
                Err(format!("{STDIN_NAME}: larger than {} MiB: not a file the bench wrote", MAX_INPUT_BYTES >> 20))
            }
            Ok(_) => Ok(bytes),
        }
    });
    read.clone().map_err(BenchError::Invalid)
}

/// [`read_input`] as text.
///
/// # Errors
/// As [`read_input`]; text that is not UTF-8.
pub fn read_input_text(path: &Path) -> Result<String, BenchError> {
    String::from_utf8(read_input(path)?).map_err(|e| BenchError::Invalid(format!("{}: not UTF-8: {e}", path.display())))
}

/// Makes the output directory `dir` a command writes its files into (with
/// its parents), after refusing `/`, the system directories and the home
/// directory as `gen -o` does ([`zynq_net_render::write::check_output_dir`]).
///
/// # Errors
/// [`BenchError::Invalid`] for a refused directory; [`BenchError::Io`]
/// when it cannot be made.
pub fn output_dir(dir: &Path) -> Result<(), BenchError> {
    zynq_net_render::write::check_output_dir(dir)
        .map_err(|e| BenchError::Invalid(format!("{}: {}", e.path.display(), e.source)))?;
    // create_dir_all says only "File exists" for a file in the way
    if let Some(file) = dir.ancestors().find(|a| a.symlink_metadata().is_ok_and(|m| !m.is_dir() && !a.is_dir())) {
        return Err(BenchError::Invalid(format!(
            "{}: exists and is not a directory; the output is a directory of files (RUNDIR): \
             give a new path or an existing directory",
            file.display()
        )));
    }
    std::fs::create_dir_all(dir).map_err(|e| BenchError::io(dir, e))
}

/// Parses a whole-file JSON record read back (tester.json, rfc2544.json,
/// image.json, a lab's state): a damaged one is an error in the
/// `FILE:LINE:COL: what` form (serde_json's position: line 1-based, column
/// 0 before a line's first character), then `hint`, what the file should be
/// and how to get a good one.
///
/// # Errors
/// [`BenchError::Invalid`] as above.
pub fn parse_json<T: for<'de> Deserialize<'de>>(path: &Path, text: &str, hint: &str) -> Result<T, BenchError> {
    serde_json::from_str(text).map_err(|e| {
        BenchError::Invalid(format!("{}:{}:{}: {}; {hint}", path.display(), e.line(), e.column(), serde_what(&e)))
    })
}

/// serde_json's message without the ` at line L column C` it appends (the
/// callers put the position first, as `FILE:LINE:COL`).
fn serde_what(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let at = format!(" at line {} column {}", e.line(), e.column());
    full.strip_suffix(&at).map_or_else(|| full.clone(), str::to_string)
}

/// Reads a JSON-lines file. A torn last line (an interrupted
/// [`append_jsonl`], which ends every record with its newline, so a tear
/// leaves a last line without one) is left out, with a warning on stderr
/// naming the file and line; any other line that is not JSON is an error
/// naming the file and its line number (blank lines counted).
pub fn read_jsonl<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>, BenchError> {
    // Nothing there: no records. Any other failure (no permission) is
    // read_input's error, as it was before inputs were checked.
    if matches!(std::fs::symlink_metadata(path), Err(e) if e.kind() == std::io::ErrorKind::NotFound) {
        return Ok(Vec::new());
    }
    let text = read_input_text(path)?;
    let torn = !text.ends_with('\n');
    let lines: Vec<(usize, &str)> = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).collect();
    let mut out = Vec::new();
    for (k, (n, l)) in lines.iter().enumerate() {
        match serde_json::from_str(l) {
            Ok(v) => out.push(v),
            Err(_) if torn && k + 1 == lines.len() => eprintln!(
                "warning: {}:{}: a torn last line (a write interrupted before its newline): its record is left out",
                path.display(),
                n + 1
            ),
            Err(e) => {
                return Err(BenchError::Invalid(format!(
                    "{}:{}:{}: {}: not a JSON record (one object per line, as the bench commands append them); remove the line",
                    path.display(),
                    n + 1,
                    e.column(),
                    serde_what(&e)
                )));
            }
        }
    }
    Ok(out)
}

/// Highest throughput a trial record may hold, in bit/s (10 Tbit/s: above
/// any Ethernet port); a larger one is a damaged results file, which the
/// charts could not scale (an axis of 1e200 never finished).
pub const MAX_PLAUSIBLE_BPS: f64 = 1e13;

/// The trial records of a `results.jsonl` ([`read_jsonl`]), each with a
/// throughput that is a finite rate from 0 to [`MAX_PLAUSIBLE_BPS`].
///
/// # Errors
/// [`BenchError::Invalid`] naming the file, line and value of the first
/// record that is not; the errors of [`read_jsonl`].
pub fn read_trials(path: &Path) -> Result<Vec<TrialRecord>, BenchError> {
    let recs: Vec<TrialRecord> = read_jsonl(path)?;
    if let Some((i, r)) = recs.iter().enumerate().find(|(_, r)| !(0.0..=MAX_PLAUSIBLE_BPS).contains(&r.throughput_bps))
    {
        return Err(BenchError::Invalid(format!(
            "{}: record {} ({} repeat {}): throughput_bps {} is not a rate from 0 to 10 Tbit/s: a damaged results file?",
            path.display(),
            i + 1,
            r.cell,
            r.repeat,
            r.throughput_bps
        )));
    }
    Ok(recs)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A results file with a rate no port has (1e200 bit/s hung the
    /// report's chart) or a negative one is refused, naming the record;
    /// 0 and 800 Gbit/s are rates.
    #[test]
    fn trial_rates_are_plausible() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join(files::RESULTS);
        for bps in [0.0, 8e11] {
            append_jsonl(&f, &TrialRecord::for_test("tcp-tx-mtu1500-p1", 0, bps)).unwrap();
        }
        assert_eq!(read_trials(&f).unwrap().len(), 2);
        for bad in [1e200, -1.0, MAX_PLAUSIBLE_BPS * 1.01] {
            let g = dir.path().join("bad.jsonl");
            std::fs::copy(&f, &g).unwrap();
            append_jsonl(&g, &TrialRecord::for_test("udp-rx-mtu1500-p1", 4, bad)).unwrap();
            // a last line that does not parse is an interrupted write: keep one that does after it
            append_jsonl(&g, &TrialRecord::for_test("udp-rx-mtu1500-p1", 5, 1e9)).unwrap();
            let e = read_trials(&g).unwrap_err().to_string();
            assert!(e.contains("record 3 (udp-rx-mtu1500-p1 repeat 4): throughput_bps"), "{e}");
        }
        assert!(crate::report::load(dir.path()).is_ok());
    }

    #[test]
    fn jsonl_survives_a_torn_last_line() {
        let d = std::env::temp_dir().join(format!("znb-jsonl-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("r.jsonl");
        std::fs::write(&p, "{\"a\":1}\n{\"a\":2}\n{\"a\":").unwrap();
        let v: Vec<Value> = read_jsonl(&p).unwrap();
        assert_eq!(v.len(), 2);
        // An append after the tear (`bench run --resume`) cuts the torn
        // line off instead of gluing its record onto it.
        append_jsonl(&p, &serde_json::json!({"a": 3})).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n");
        std::fs::write(&p, "{\"a\":").unwrap();
        append_jsonl(&p, &serde_json::json!({"a": 4})).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "{\"a\":4}\n", "a file that is one torn line");
        std::fs::write(&p, "{\"a\":1}\n{\"a\":2}").unwrap();
        append_jsonl(&p, &serde_json::json!({"a": 3})).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n", "a whole record is kept");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn jsonl_round_trip_and_errors() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.jsonl");
        assert!(read_jsonl::<Value>(&p).unwrap().is_empty(), "a missing file is no results yet");
        append_jsonl(&p, &serde_json::json!({"a": 1})).unwrap();
        append_jsonl(&p, &serde_json::json!({"a": 2})).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "{\"a\":1}\n{\"a\":2}\n");
        assert_eq!(read_jsonl::<Value>(&p).unwrap(), vec![serde_json::json!({"a": 1}), serde_json::json!({"a": 2})]);
        // A broken line that is not the last is an error naming file and
        // line (the blank line 2 counted: the broken one is line 3).
        std::fs::write(&p, "{\"a\":1}\n\n{\"a\"\n{\"a\":3}\n").unwrap();
        let e = read_jsonl::<Value>(&p).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{}:3:4: EOF while parsing an object: not a JSON record", p.display())), "{e}");
        // A broken last line that ends with its newline was written whole:
        // not a tear, an error.
        std::fs::write(&p, "{\"a\":1}\n{bad\n").unwrap();
        let e = read_jsonl::<Value>(&p).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{}:2:2: key must be a string", p.display())), "{e}");
        // A directory is not a results file.
        assert!(read_jsonl::<Value>(d.path()).is_err());
        assert!(append_jsonl(d.path(), &1).is_err());
    }

    /// A file is replaced whole, mode 0644, with no temporary file left
    /// beside it; a write that cannot happen names the path and leaves the
    /// old contents.
    /// An output path that is a symbolic link, a socket or a device is
    /// refused and left as it was (its target too); a FIFO or a device as
    /// an input is refused at once instead of being waited on or read
    /// without end.
    #[test]
    fn non_regular_files_are_refused_as_outputs_and_inputs() {
        let d = tempfile::tempdir().unwrap();
        let target = d.path().join("target");
        std::fs::write(&target, "keep").unwrap();
        let link = d.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = write_file(&link, "new").unwrap_err().to_string();
        assert!(e.contains("is a symbolic link, not a regular file"), "{e}");
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        let sock = d.path().join("sock");
        let _l = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        assert!(write_file(&sock, "new").unwrap_err().to_string().contains("is a socket"));
        // (No device node here: a mutant without the check would replace
        // the machine's /dev/null, the tests running as root.)
        // Inputs: a link to a regular file is read; a FIFO and a device are not.
        assert_eq!(read_input(&link).unwrap(), b"keep");
        let fifo = d.path().join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        assert!(read_input(&fifo).unwrap_err().to_string().contains("is a FIFO"));
        assert!(read_jsonl::<serde_json::Value>(&fifo).unwrap_err().to_string().contains("is a FIFO"));
        assert!(read_input(Path::new("/dev/zero")).unwrap_err().to_string().contains("is a device"));
        assert!(read_jsonl::<serde_json::Value>(&d.path().join("absent")).unwrap().is_empty());
    }

    #[test]
    fn write_file_replaces_whole_and_leaves_nothing_beside() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("report.json");
        write_file(&p, "first\n").unwrap();
        write_file(&p, "second\n").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "second\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o644);
        }
        let names: Vec<_> = std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("report.json")]);
        // a directory in the way: rename(2) refuses, the directory stays
        let blocked = d.path().join("dir");
        std::fs::create_dir(&blocked).unwrap();
        let e = write_file(&blocked, "x").unwrap_err().to_string();
        assert!(e.contains(&blocked.display().to_string()), "{e}");
        assert!(blocked.is_dir());
        let missing = d.path().join("no/such/dir/x.json");
        assert!(write_file(&missing, "x").unwrap_err().to_string().contains("no/such/dir/x.json"));
        let mut names: Vec<_> = std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        assert_eq!(names, vec![std::ffi::OsString::from("dir"), std::ffi::OsString::from("report.json")]);
    }

    /// An output directory is made with its parents; a file in its place,
    /// or in place of a parent, is named with what RUNDIR must be (before,
    /// "File exists" alone); a link to a directory is followed.
    #[test]
    fn output_dir_names_a_file_in_the_way() {
        let d = tempfile::tempdir().unwrap();
        let new = d.path().join("a/b/run");
        output_dir(&new).unwrap();
        assert!(new.is_dir());
        output_dir(&new).unwrap();
        let file = d.path().join("f");
        std::fs::write(&file, "x").unwrap();
        for out in [file.clone(), file.join("sub")] {
            let e = output_dir(&out).unwrap_err().to_string();
            assert!(e.starts_with(&format!("{}: exists and is not a directory", file.display())), "{e}");
        }
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
        let link = d.path().join("link");
        std::os::unix::fs::symlink(&new, &link).unwrap();
        output_dir(&link.join("inner")).unwrap();
        assert!(new.join("inner").is_dir());
    }
}
