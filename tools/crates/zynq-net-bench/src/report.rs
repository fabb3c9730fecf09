//! Reports of a run directory: Markdown, CSV, JSON and one self-contained
//! HTML file with inline SVG plots (RFC 2544 frame size vs frames/s with the
//! line-rate curve; throughput per matrix cell; per-core CPU bars).

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::cpu::CoreLoad;
use crate::error::BenchError;
use crate::plan::Plan;
use crate::records::{files, read_trials, CellSummary, Rfc2544Result, TrialRecord};
use crate::stats::Stats;
use crate::table::{esc, html_page, Align::Left, Align::Right, Block, Doc, Inline, Table};

/// Everything a report shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Format tag.
    pub format: String,
    /// Title (board name or directory).
    pub title: String,
    /// The plan, when present.
    pub plan: Option<Plan>,
    /// Run metadata (`run.json`), when present.
    pub run: Option<serde_json::Value>,
    /// Cells.
    pub cells: Vec<CellSummary>,
    /// All trials.
    pub trials: Vec<TrialRecord>,
    /// RFC 2544 result.
    pub rfc2544: Option<Rfc2544Result>,
}

fn mean_loads(recs: &[&TrialRecord]) -> Vec<(String, Vec<CoreLoad>)> {
    let mut out: Vec<(String, Vec<CoreLoad>, usize)> = Vec::new();
    for r in recs {
        for m in &r.cpu {
            let slot = match out.iter_mut().position(|(role, _, _)| *role == m.role) {
                Some(i) => &mut out[i],
                None => {
                    out.push((m.role.clone(), Vec::new(), 0));
                    let last = out.len() - 1;
                    &mut out[last]
                }
            };
            slot.2 += 1;
            for c in &m.cores {
                match slot.1.iter_mut().find(|x| x.cpu == c.cpu) {
                    Some(x) => {
                        x.usr += c.usr;
                        x.sys += c.sys;
                        x.irq += c.irq;
                        x.softirq += c.softirq;
                        x.idle += c.idle;
                    }
                    None => slot.1.push(c.clone()),
                }
            }
        }
    }
    out.into_iter()
        .map(|(role, mut cores, n)| {
            let k = n.max(1) as f64;
            for c in &mut cores {
                c.usr /= k;
                c.sys /= k;
                c.irq /= k;
                c.softirq /= k;
                c.idle /= k;
            }
            cores.sort_by_key(|c| c.cpu);
            (role, cores)
        })
        .collect()
}

/// Loads a run directory into a [`Report`].
pub fn load(dir: &Path) -> Result<Report, BenchError> {
    let plan = if dir.join(files::PLAN).exists() { Some(Plan::load(&dir.join(files::PLAN))?) } else { None };
    let run = match std::fs::read_to_string(dir.join(files::RUN)) {
        Ok(t) => serde_json::from_str(&t).ok(),
        Err(_) => None,
    };
    let trials: Vec<TrialRecord> = read_trials(&dir.join(files::RESULTS))?;
    let rfc2544 = match std::fs::read_to_string(dir.join(files::RFC2544)) {
        Ok(t) => Some(
            serde_json::from_str(&t)
                .map_err(|e| BenchError::Invalid(format!("{}: {e}", dir.join(files::RFC2544).display())))?,
        ),
        Err(_) => None,
    };
    if trials.is_empty() && rfc2544.is_none() {
        return Err(BenchError::Invalid(format!(
            "{}: no results.jsonl with a record, rfc2544.json or tester.json in this directory: not a run \
             directory of `zynq-net bench run`, `bench rfc2544` or `bench rfc2544-tester` (or its results file is empty)",
            dir.display()
        )));
    }
    // Cells in the plan's order, then those only the results name, each
    // with its trials: one pass over the trials (a results file of many
    // cells stays linear: benches/complexity, long-results).
    let mut ids: Vec<String> =
        plan.as_ref().map(|p| p.cells.iter().map(|c| c.id.clone()).collect()).unwrap_or_default();
    let mut by_cell: HashMap<&str, Vec<&TrialRecord>> = HashMap::new();
    for t in &trials {
        by_cell.entry(t.cell.as_str()).or_default().push(t);
    }
    let mut seen: HashSet<&str> = ids.iter().map(String::as_str).collect();
    let extra: Vec<String> = trials.iter().filter(|t| seen.insert(t.cell.as_str())).map(|t| t.cell.clone()).collect();
    ids.extend(extra);
    let mut cells = Vec::new();
    for id in ids {
        let Some(all) = by_cell.get(id.as_str()) else {
            continue;
        };
        let ok: Vec<&TrialRecord> = all.iter().copied().filter(|t| t.error.is_none()).collect();
        cells.push(CellSummary {
            cell: id,
            throughput: Stats::of(&ok.iter().map(|t| t.throughput_bps).collect::<Vec<_>>()),
            cpu_bound: ok.iter().flat_map(|t| t.cpu_bound.iter().cloned()).collect(),
            failed: all.len() - ok.len(),
            cpu: mean_loads(&ok),
            notes: all.first().map(|t| t.notes.clone()).unwrap_or_default(),
        });
    }
    let title = plan
        .as_ref()
        .and_then(|p| p.board.clone())
        .unwrap_or_else(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "run".into()));
    Ok(Report { format: "zynq-net-bench-report 1".into(), title, plan, run, cells, trials, rfc2544 })
}

fn mbit(bps: f64) -> String {
    format!("{:.1}", bps / 1e6)
}

/// The matrix table: one row per cell (mean ± sd of the good repeats,
/// worst UDP loss, busiest mean core, CPU-bound, failed repeats).
pub fn matrix_table(r: &Report) -> Table {
    let mut t = Table::new(&[
        ("cell", Left),
        ("Mbit/s (mean ± sd)", Right),
        ("n", Right),
        ("UDP loss (max)", Right),
        ("max core busy", Right),
        ("CPU-bound", Left),
        ("failed", Right),
    ]);
    // The worst UDP loss (percent) of each cell's trials, failed ones
    // included; none when no trial reports a loss (TCP). One pass.
    let mut worst: HashMap<&str, f64> = HashMap::new();
    for (cell, v) in r.trials.iter().filter_map(|t| t.lost_percent().map(|v| (t.cell.as_str(), v))) {
        let w = worst.entry(cell).or_insert(v);
        *w = w.max(v);
    }
    for c in &r.cells {
        let loss = worst.get(c.cell.as_str()).copied();
        t.row([
            c.cell.as_str().into(),
            format!("{} ± {}", mbit(c.throughput.mean), mbit(c.throughput.sd)).into(),
            c.throughput.n.to_string().into(),
            loss.map_or_else(|| "-".to_string(), |v| format!("{v:.2}%")).into(),
            format!("{:.0}%", c.max_core_busy()).into(),
            if c.cpu_bound.is_empty() {
                "no".into()
            } else {
                Inline::default().strong("yes").and(format!(" ({})", dedup(&c.cpu_bound).join(", ")))
            },
            c.failed.to_string().into(),
        ]);
    }
    t
}

/// The RFC 2544 table as the report shows it: frames/s, Mbit/s of
/// frames, % of line rate, the line-rate maximum, trials, confirmation
/// and notes (sender-limited, CPU-bound), figures from
/// [`crate::records::FrameResult`].
pub fn rfc2544_table(x: &Rfc2544Result) -> Table {
    let mut t = Table::new(&[
        ("frame size (B)", Right),
        ("frames/s", Right),
        ("Mbit/s (frames)", Right),
        ("% of line rate", Right),
        ("line-rate frames/s", Right),
        ("search trials", Right),
        ("confirmed", Left),
        ("notes", Left),
    ]);
    for f in &x.frames {
        let mut notes = Vec::new();
        if f.sender_limited {
            notes.push("sender-limited".to_string());
        }
        if !f.cpu_bound.is_empty() {
            notes.push(format!("CPU-bound ({})", f.cpu_bound.join(", ")));
        }
        t.row([
            f.frame_size.to_string().into(),
            format!("{:.0}", f.fps).into(),
            mbit(f.frame_bps).into(),
            format!("{:.1}%", f.line_percent).into(),
            format!("{:.0}", f.max_fps).into(),
            f.search_trials.to_string().into(),
            if f.confirmed { "yes" } else { "no" }.into(),
            notes.join("; ").into(),
        ]);
    }
    t
}

/// The document of a report: title, context, the matrix and the RFC 2544
/// sections (Markdown and the HTML body are its encodings).
pub fn document(r: &Report) -> Doc {
    let mut d = Doc::default();
    d.push(Block::H1(format!("zynq-net benchmark: {}", r.title).into()));
    if let Some(run) = &r.run {
        let ctx = &run["context"];
        let pin = |v: &serde_json::Value| match v.as_array() {
            Some(a) if !a.is_empty() => {
                format!("CPUs {}", a.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(","))
            }
            _ => "not pinned".to_string(),
        };
        d.push(Block::Para(
            format!(
                "iperf3 client {} / server {}; client {}, server {} (taskset).",
                ver(&ctx["client_version"]),
                ver(&ctx["server_version"]),
                pin(&ctx["client_cpus"]),
                pin(&ctx["server_cpus"])
            )
            .into(),
        ));
        if let Some(desc) = ctx["targets"]["description"].as_str().filter(|x| !x.is_empty()) {
            d.push(Block::Para(format!("Setup: {desc}").into()));
        }
    }
    if !r.cells.is_empty() {
        d.push(Block::H2("Matrix".into()));
        d.push(Block::Table(matrix_table(r)));
        let notes: Vec<String> = dedup(&r.cells.iter().flat_map(|c| c.notes.iter().cloned()).collect::<Vec<_>>());
        if !notes.is_empty() {
            d.push(Block::List { lead: Some("Notes:".into()), items: notes.into_iter().map(Inline::from).collect() });
        }
        d.push(Block::Para(
            format!(
                "A cell is CPU-bound when a core of any machine was at least {}% busy (usr+sys+irq+softirq) during a trial.",
                r.plan.as_ref().map_or(95.0, |p| p.spec.cpu_bound_percent)
            )
            .into(),
        ));
    }
    if let Some(x) = &r.rfc2544 {
        d.push(Block::H2(format!("RFC 2544-style throughput (line rate {} Mbit/s)", mbit(x.line_rate_bps)).into()));
        d.push(Block::Table(rfc2544_table(x)));
        let steps = |f: &crate::records::FrameResult| -> Inline {
            let steps: Vec<String> = f
                .steps
                .iter()
                .map(|st| {
                    format!(
                        "{}{:.0}{} {}",
                        if st.confirm { "c " } else { "" },
                        st.offered_fps,
                        if st.sent_fps < st.offered_fps * 0.98 {
                            format!(" (sent {:.0})", st.sent_fps)
                        } else {
                            String::new()
                        },
                        if st.pass { "✓".to_string() } else { format!("✗{}", st.lost) }
                    )
                })
                .collect();
            format!("{} B: {}", f.frame_size, steps.join(", ")).into()
        };
        d.push(Block::List {
            lead: Some("Search (frames/s asked of iperf3, and sent when >2% short: pass ✓ / loss ✗ with frames lost; c = confirmation trial):".into()),
            items: x.frames.iter().map(steps).collect(),
        });
        d.push(Block::List {
            lead: Some("Deviations from RFC 2544:".into()),
            items: x.deviations.iter().map(|s| s.as_str().into()).collect(),
        });
        d.push(Block::Para(
            "Percent of line rate counts 20 bytes of wire overhead per frame (preamble+SFD 8, inter-frame gap 12)."
                .into(),
        ));
    }
    d
}

/// Markdown.
pub fn to_markdown(r: &Report) -> String {
    document(r).to_markdown()
}

fn ver(v: &serde_json::Value) -> String {
    format!("{}.{}.{}", v["major"], v["minor"], v["patch"])
}

fn dedup(v: &[String]) -> Vec<String> {
    let mut o: Vec<String> = Vec::new();
    for x in v {
        if !o.contains(x) {
            o.push(x.clone());
        }
    }
    o
}

/// The trials table of `report.csv`: one row per matrix trial, its cell's
/// settings from the plan (empty without one), rates in Mbit/s.
pub fn trials_table(r: &Report) -> Table {
    let mut t = Table::new(&[
        ("cell", Left),
        ("repeat", Right),
        ("protocol", Left),
        ("direction", Left),
        ("mtu", Right),
        ("streams", Right),
        ("received_mbps", Right),
        ("sent_mbps", Right),
        ("retransmits", Right),
        ("lost_percent", Right),
        ("max_core_busy", Right),
        ("cpu_bound", Left),
        ("error", Left),
    ]);
    let plan_cells: HashMap<&str, &crate::plan::Cell> =
        r.plan.iter().flat_map(|p| p.cells.iter().rev().map(|c| (c.id.as_str(), c))).collect();
    for tr in &r.trials {
        let cell = plan_cells.get(tr.cell.as_str());
        t.row([
            tr.cell.as_str().into(),
            tr.repeat.to_string().into(),
            cell.map_or(String::new(), |c| c.protocol.to_string()).into(),
            cell.map_or(String::new(), |c| c.direction.to_string()).into(),
            cell.map_or(String::new(), |c| c.mtu.to_string()).into(),
            cell.map_or(String::new(), |c| c.streams.to_string()).into(),
            format!("{:.3}", tr.throughput_bps / 1e6).into(),
            format!("{:.3}", tr.sent_bps() / 1e6).into(),
            tr.retransmits().map_or(String::new(), |v| v.to_string()).into(),
            tr.lost_percent().map_or(String::new(), |v| format!("{v:.4}")).into(),
            format!("{:.1}", tr.max_core_busy()).into(),
            tr.cpu_bound.join(" ").into(),
            tr.error.as_deref().unwrap_or("").into(),
        ]);
    }
    t
}

/// CSV of every matrix trial ([`trials_table`]).
pub fn to_csv(r: &Report) -> String {
    trials_table(r).to_csv()
}

/// The RFC 2544 table of `report-rfc2544.csv`: every figure of
/// [`crate::records::FrameResult`] at full precision, Mbit/s of frames
/// and of UDP payload.
pub fn rfc2544_data_table(x: &Rfc2544Result) -> Table {
    let mut t = Table::new(&[
        ("frame_size", Right),
        ("udp_payload", Right),
        ("fps", Right),
        ("frame_mbps", Right),
        ("payload_mbps", Right),
        ("line_percent", Right),
        ("max_fps", Right),
        ("search_trials", Right),
        ("confirmed", Left),
        ("sender_limited", Left),
    ]);
    for f in &x.frames {
        t.row([
            f.frame_size.to_string().into(),
            f.udp_payload.to_string().into(),
            format!("{:.1}", f.fps).into(),
            format!("{:.3}", f.frame_bps / 1e6).into(),
            format!("{:.3}", f.payload_bps / 1e6).into(),
            format!("{:.2}", f.line_percent).into(),
            format!("{:.1}", f.max_fps).into(),
            f.search_trials.to_string().into(),
            f.confirmed.to_string().into(),
            f.sender_limited.to_string().into(),
        ]);
    }
    t
}

/// CSV of the RFC 2544 table ([`rfc2544_data_table`]).
pub fn rfc2544_csv(x: &Rfc2544Result) -> String {
    rfc2544_data_table(x).to_csv()
}

/// SVG: frame size vs frames/s (log scale), measured points and the
/// line-rate curve ([`crate::chart::rfc2544`]).
pub fn svg_rfc2544(x: &Rfc2544Result) -> String {
    crate::chart::rfc2544(x)
}

/// SVG: horizontal bars of throughput per cell, with ±sd whiskers
/// ([`crate::chart::cells`]).
pub fn svg_cells(cells: &[CellSummary]) -> String {
    crate::chart::cells(cells)
}

/// SVG: stacked per-core bars (usr, sys, irq, softirq) per machine for one
/// cell ([`crate::chart::cpu`]).
pub fn svg_cpu(cell: &CellSummary, threshold: f64) -> String {
    crate::chart::cpu(&cell.cpu, threshold)
}

/// One self-contained HTML page (no external resources): the report's
/// [`document`] and the plots.
pub fn to_html(r: &Report) -> String {
    let threshold = r.plan.as_ref().map_or(95.0, |p| p.spec.cpu_bound_percent);
    let mut body = document(r).to_html();
    if let Some(x) = &r.rfc2544 {
        let _ = write!(
            body,
            "<h2>RFC 2544-style: frame size vs frames/s</h2><figure id=\"plot-rfc2544\">{}</figure>",
            svg_rfc2544(x)
        );
    }
    if !r.cells.is_empty() {
        let _ = write!(
            body,
            "<h2>Throughput per matrix cell</h2><figure id=\"plot-cells\">{}</figure>",
            svg_cells(&r.cells)
        );
        body.push_str("<h2>Per-core CPU load (mean over repeats)</h2>");
        for c in &r.cells {
            if !c.cpu.is_empty() {
                let _ = write!(
                    body,
                    "<figure class=\"plot-cpu\"><figcaption>{}</figcaption>{}</figure>",
                    esc(&c.cell),
                    svg_cpu(c, threshold)
                );
            }
        }
    }
    html_page(&format!("zynq-net benchmark: {}", r.title), "figcaption{font-size:13px;font-weight:bold}", &body)
}

/// Writes `text` to `out/name` and records the path (the reports' writer).
pub(crate) fn put_file(out: &Path, name: &str, text: String, written: &mut Vec<PathBuf>) -> Result<(), BenchError> {
    let p = out.join(name);
    crate::records::write_file(&p, text)?;
    written.push(p);
    Ok(())
}

/// Writes every format into `out`; returns the paths written.
pub fn write_all(r: &Report, out: &Path) -> Result<Vec<PathBuf>, BenchError> {
    crate::records::output_dir(out)?;
    let mut written = Vec::new();
    let mut put = |name: &str, text: String| put_file(out, name, text, &mut written);
    put("report.md", to_markdown(r))?;
    put("report.csv", to_csv(r))?;
    if let Some(x) = &r.rfc2544 {
        put("report-rfc2544.csv", rfc2544_csv(x))?;
    }
    put("report.json", serde_json::to_string_pretty(r).map_err(|e| BenchError::Invalid(e.to_string()))? + "\n")?;
    put("report.html", to_html(r))?;
    Ok(written)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    use crate::iperf::{Flow, Protocol, Summary};
    use crate::records::{append_jsonl, FrameResult, MachineLoad, Step};
    use crate::spec::Rfc2544Spec;

    fn core(cpu: usize, usr: f64, sys: f64, irq: f64, softirq: f64) -> CoreLoad {
        CoreLoad { cpu, usr, sys, irq, softirq, idle: 100.0 - usr - sys - irq - softirq }
    }

    fn rec(cell: &str, repeat: u32, bps: f64) -> TrialRecord {
        TrialRecord::for_test(cell, repeat, bps)
    }

    fn udp(bps: f64, sent: f64, lost_percent: f64, reverse_sent: Option<f64>) -> Summary {
        Summary {
            version: None,
            protocol: Protocol::Udp,
            streams: 1,
            blksize: 1472,
            reverse: false,
            bidir: reverse_sent.is_some(),
            forward: Flow { received_bps: bps, sent_bps: sent, lost_percent: Some(lost_percent), ..Flow::default() },
            reverse_flow: reverse_sent.map(|s| Flow { sent_bps: s, ..Flow::default() }),
            host_cpu_percent: None,
            remote_cpu_percent: None,
        }
    }

    /// Two cells: `tcp` with two good repeats (100 and 120 Mbit/s, the
    /// second CPU-bound) and a failed one; `udp` with two repeats (0.1234%
    /// and 1.5% loss). Every figure below is worked out by hand from these.
    fn trials() -> Vec<TrialRecord> {
        let mut a = rec("tcp", 0, 100e6);
        a.cpu = vec![MachineLoad {
            role: "client+server".into(),
            cores: vec![core(1, 30.0, 10.0, 0.0, 20.0), core(0, 10.0, 10.0, 0.0, 0.0)],
        }];
        a.notes = vec!["client: pinned".into()];
        let mut b = rec("tcp", 1, 120e6);
        b.cpu = vec![MachineLoad {
            role: "client+server".into(),
            cores: vec![core(0, 30.0, 10.0, 0.0, 0.0), core(1, 50.0, 20.0, 10.0, 16.0)],
        }];
        b.cpu_bound = vec!["client+server cpu1 96%".into()];
        let mut c = rec("tcp", 2, 0.0);
        c.error = Some("iperf3: boom, \"refused\"".into());
        c.cpu = vec![MachineLoad { role: "client+server".into(), cores: vec![core(0, 100.0, 0.0, 0.0, 0.0)] }];
        c.cpu_bound = vec!["client+server cpu0 100%".into()];
        let mut d = rec("udp", 0, 50e6);
        d.summary = Some(udp(50e6, 52e6, 0.1234, Some(3e6)));
        d.notes = vec!["client: pinned".into(), "single-threaded".into()];
        let mut e = rec("udp", 1, 40e6);
        e.summary = Some(udp(40e6, 41e6, 1.5, None));
        vec![a, b, c, d, e]
    }

    fn frames() -> Rfc2544Result {
        let step = |n, confirm, offered_fps, sent_fps, lost, pass| Step {
            n,
            confirm,
            offered_fps,
            sent_fps,
            received_fps: sent_fps,
            sent: sent_fps as u64,
            lost,
            loss_percent: 0.0,
            pass,
            error: None,
        };
        Rfc2544Result {
            format: "zynq-net-bench-rfc2544 1".into(),
            line_rate_bps: 1e9,
            settings: Rfc2544Spec::default(),
            frames: vec![
                FrameResult {
                    frame_size: 1518,
                    udp_payload: 1472,
                    fps: 40_000.0,
                    frame_bps: 485.76e6,
                    payload_bps: 471.04e6,
                    line_percent: 49.2159,
                    max_fps: 81_274.38,
                    search_trials: 2,
                    confirmed: true,
                    sender_limited: false,
                    max_core_busy: 99.0,
                    cpu_bound: vec!["dut cpu0 99%".into()],
                    steps: vec![
                        step(1, false, 81_274.38, 81_274.0, 41_000, false),
                        step(2, false, 40_000.0, 40_000.0, 0, true),
                        step(3, true, 40_000.0, 40_000.0, 0, true),
                    ],
                },
                FrameResult {
                    frame_size: 64,
                    udp_payload: 18,
                    fps: 50_000.0,
                    frame_bps: 25.6e6,
                    payload_bps: 7.2e6,
                    line_percent: 3.36,
                    max_fps: 1_488_095.2,
                    search_trials: 1,
                    confirmed: false,
                    sender_limited: true,
                    max_core_busy: 10.0,
                    cpu_bound: vec![],
                    steps: vec![step(1, false, 1_488_095.2, 50_000.0, 0, true)],
                },
            ],
            deviations: vec!["RFC 2544-style, not RFC 2544.".into()],
        }
    }

    /// A run directory as `bench run` and `bench rfc2544` leave it.
    fn run_dir(with_rfc: bool) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for t in trials() {
            append_jsonl(&d.path().join(files::RESULTS), &t).unwrap();
        }
        let ctx = serde_json::json!({"context": {
            "client_version": {"major": 3, "minor": 12, "patch": 0},
            "server_version": {"major": 3, "minor": 9, "patch": 1},
            "client_cpus": [1, 3], "server_cpus": [],
            "targets": {"description": "lab shaped to 200 Mbit/s"}}});
        std::fs::write(d.path().join(files::RUN), ctx.to_string()).unwrap();
        if with_rfc {
            std::fs::write(d.path().join(files::RFC2544), serde_json::to_string(&frames()).unwrap()).unwrap();
        }
        d
    }

    #[test]
    fn cells_aggregate_the_good_repeats() {
        let d = run_dir(false);
        let r = load(d.path()).unwrap();
        assert_eq!(r.title, d.path().file_name().unwrap().to_string_lossy());
        assert_eq!(r.trials.len(), 5);
        assert_eq!(r.cells.iter().map(|c| c.cell.as_str()).collect::<Vec<_>>(), ["tcp", "udp"]);
        let tcp = &r.cells[0];
        // 100 and 120 Mbit/s: mean 110, sample sd sqrt(2 · 10²) = 14.14; the failed repeat is counted apart.
        assert_eq!((tcp.throughput.n, tcp.failed), (2, 1));
        assert!((tcp.throughput.mean - 110e6).abs() < 1.0);
        assert!((tcp.throughput.sd - 200f64.sqrt() * 1e6).abs() < 1.0);
        assert_eq!(tcp.cpu_bound, vec!["client+server cpu1 96%".to_string()], "failed repeats do not count");
        assert_eq!(tcp.notes, vec!["client: pinned".to_string()]);
        // Per-core means over the good repeats, sorted by CPU.
        let (role, cores) = &tcp.cpu[0];
        assert_eq!((role.as_str(), tcp.cpu.len(), cores.len()), ("client+server", 1, 2));
        let want = [core(0, 20.0, 10.0, 0.0, 0.0), core(1, 40.0, 15.0, 5.0, 18.0)];
        for (got, want) in cores.iter().zip(&want) {
            assert_eq!(got.cpu, want.cpu);
            for (g, w) in [(got.usr, want.usr), (got.sys, want.sys), (got.irq, want.irq), (got.softirq, want.softirq)] {
                assert!((g - w).abs() < 1e-9, "{got:?} vs {want:?}");
            }
            assert!((got.idle - want.idle).abs() < 1e-9, "{got:?} vs {want:?}");
        }
        assert!(r.rfc2544.is_none() && r.plan.is_none() && r.run.is_some());
        // Nothing to report is an error that names the directory.
        let empty = tempfile::tempdir().unwrap();
        let e = load(empty.path()).unwrap_err().to_string();
        assert!(e.contains(&empty.path().display().to_string()) && e.contains("no results.jsonl"), "{e}");
        // A broken rfc2544.json is an error naming the file, not a silent gap.
        std::fs::write(empty.path().join(files::RFC2544), "{").unwrap();
        let e = load(empty.path()).unwrap_err().to_string();
        assert!(e.contains("rfc2544.json"), "{e}");
    }

    #[test]
    fn markdown_shows_the_matrix_and_the_rfc2544_table() {
        let d = run_dir(true);
        let md = to_markdown(&load(d.path()).unwrap());
        let title = d.path().file_name().unwrap().to_string_lossy().into_owned();
        assert!(md.starts_with(&format!("# zynq-net benchmark: {title}\n\n")), "{md}");
        for line in [
            "iperf3 client 3.12.0 / server 3.9.1; client CPUs 1,3, server not pinned (taskset).",
            "Setup: lab shaped to 200 Mbit/s",
            // busiest mean core: cpu1 at 40 + 15 + 5 + 18 = 78%
            "| tcp | 110.0 ± 14.1 | 2 | - | 78% | **yes** (client+server cpu1 96%) | 1 |",
            // 50 and 40 Mbit/s: sd sqrt(50) = 7.07; the worst loss of the two repeats
            "| udp | 45.0 ± 7.1 | 2 | 1.50% | 0% | no | 0 |",
            "- client: pinned\n- single-threaded\n",
            "at least 95% busy",
            "## RFC 2544-style throughput (line rate 1000.0 Mbit/s)",
            "| 1518 | 40000 | 485.8 | 49.2% | 81274 | 2 | yes | CPU-bound (dut cpu0 99%) |",
            "| 64 | 50000 | 25.6 | 3.4% | 1488095 | 1 | no | sender-limited |",
            "- 1518 B: 81274 ✗41000, 40000 ✓, c 40000 ✓\n",
            "- 64 B: 1488095 (sent 50000) ✓\n",
            "Deviations from RFC 2544:\n- RFC 2544-style, not RFC 2544.\n",
        ] {
            assert!(md.contains(line), "missing `{line}` in\n{md}");
        }
        // A sender exactly 2 % short (98 % of the rate asked) is not
        // flagged as short in the search line; one frame/s less is.
        for (sent, want) in [(50_000.0 * 0.98, "- 1518 B: 50000 ✓\n"), (48_999.0, "- 1518 B: 50000 (sent 48999) ✓\n")]
        {
            let mut r = load(d.path()).unwrap();
            let f = r.rfc2544.as_mut().unwrap().frames.iter_mut().find(|f| f.frame_size == 1518).unwrap();
            f.steps.truncate(1);
            (f.steps[0].offered_fps, f.steps[0].sent_fps, f.steps[0].pass, f.steps[0].confirm) =
                (50_000.0, sent, true, false);
            let md = to_markdown(&r);
            assert!(md.contains(want), "missing `{want}` in\n{md}");
        }
        // Without a matrix or an RFC 2544 result, neither section.
        let mut r = load(d.path()).unwrap();
        r.cells.clear();
        r.rfc2544 = None;
        r.run = None;
        let md = to_markdown(&r);
        assert!(!md.contains("## Matrix") && !md.contains("RFC 2544") && !md.contains("iperf3 client"), "{md}");
    }

    #[test]
    fn csv_has_one_line_per_trial() {
        let csv = to_csv(&load(run_dir(false).path()).unwrap());
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 6, "{csv}");
        assert!(lines[0].starts_with("cell,repeat,protocol,direction,mtu,streams,received_mbps,sent_mbps"));
        // busiest core of the first repeat: cpu1, 60%
        assert_eq!(lines[1], "tcp,0,,,,,100.000,0.000,,,60.0,,");
        assert_eq!(lines[2], "tcp,1,,,,,120.000,0.000,,,96.0,client+server cpu1 96%,");
        // an error with a comma and quotes is one quoted field
        assert_eq!(lines[3], "tcp,2,,,,,0.000,0.000,,,100.0,client+server cpu0 100%,\"iperf3: boom, \"\"refused\"\"\"");
        // sent: both directions of a bidir result (52 + 3 Mbit/s)
        assert_eq!(lines[4], "udp,0,,,,,50.000,55.000,,0.1234,0.0,,");
        assert_eq!(lines[5], "udp,1,,,,,40.000,41.000,,1.5000,0.0,,");
        let rfc = rfc2544_csv(&frames());
        let lines: Vec<&str> = rfc.lines().collect();
        assert_eq!(lines[1], "1518,1472,40000.0,485.760,471.040,49.22,81274.4,2,true,false");
        assert_eq!(lines[2], "64,18,50000.0,25.600,7.200,3.36,1488095.2,1,false,true");
    }

    #[test]
    fn html_is_one_page_with_the_plots_and_every_file_is_written() {
        let d = run_dir(true);
        let mut r = load(d.path()).unwrap();
        r.title = "zcu102 <A&B>".into();
        let html = to_html(&r);
        assert!(html.starts_with("<!DOCTYPE html>") && html.ends_with("</html>\n"));
        assert!(html.contains("<title>zynq-net benchmark: zcu102 &lt;A&amp;B&gt;</title>"));
        assert!(html.contains("<figure id=\"plot-rfc2544\"><svg"));
        assert!(html.contains("<figure id=\"plot-cells\"><svg"));
        // a CPU plot for the cell with CPU samples only
        assert_eq!(html.matches("<figure class=\"plot-cpu\">").count(), 1);
        assert!(html.contains("<figcaption>tcp</figcaption><svg role=\"img\" aria-label=\"per-core CPU load\""));
        assert!(!html.contains("src=\"http") && !html.contains("href=\"http"), "self-contained");
        let out = tempfile::tempdir().unwrap();
        let written = write_all(&r, out.path()).unwrap();
        let names: Vec<String> =
            written.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["report.md", "report.csv", "report-rfc2544.csv", "report.json", "report.html"]);
        for (p, want) in written.iter().zip([to_markdown(&r), to_csv(&r)]) {
            assert_eq!(std::fs::read_to_string(p).unwrap(), want);
        }
        let back: Report =
            serde_json::from_str(&std::fs::read_to_string(out.path().join("report.json")).unwrap()).unwrap();
        assert_eq!(back, r);
        r.rfc2544 = None;
        let written = write_all(&r, out.path()).unwrap();
        assert_eq!(written.len(), 4);
        assert!(!to_html(&r).contains("plot-rfc2544"));
    }

    /// Every file `report` writes, byte for byte (tests/golden/report/),
    /// with the plan of a two-cell matrix.
    #[test]
    fn report_files_are_the_goldens() {
        let d = run_dir(true);
        let mut r = load(d.path()).unwrap();
        r.title = "zcu102 <lab> & co".into();
        let spec = crate::spec::BenchSpec {
            protocols: vec![crate::iperf::Protocol::Tcp, crate::iperf::Protocol::Udp],
            ..crate::spec::BenchSpec::default()
        };
        let mut plan = crate::plan::Plan::from_spec(Some("zcu102".into()), &spec);
        plan.cells.truncate(2);
        plan.cells[0].id = "tcp".into();
        plan.cells[1].id = "udp".into();
        r.plan = Some(plan);
        let out = tempfile::tempdir().unwrap();
        for p in write_all(&r, out.path()).unwrap() {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            crate::golden::check(&format!("report/{name}"), &std::fs::read_to_string(&p).unwrap());
        }
        r.rfc2544 = None;
        crate::golden::check("report/no-rfc2544.md", &to_markdown(&r));
        r.cells.clear();
        r.run = None;
        crate::golden::check("report/rfc2544-only.html", &to_html(&Report { rfc2544: Some(frames()), ..r }));
    }

    /// With the plan, each CSV row has its own cell's protocol, direction,
    /// MTU and streams.
    #[test]
    fn csv_rows_take_their_cells_settings_from_the_plan() {
        let mut r = load(run_dir(false).path()).unwrap();
        let spec = crate::spec::BenchSpec {
            protocols: vec![crate::iperf::Protocol::Tcp, crate::iperf::Protocol::Udp],
            directions: vec![crate::iperf::Direction::Rx],
            mtus: vec![9000],
            streams: vec![2],
            ..crate::spec::BenchSpec::default()
        };
        let mut plan = crate::plan::Plan::from_spec(None, &spec);
        plan.cells[0].id = "tcp".into();
        plan.cells[1].id = "udp".into();
        r.plan = Some(plan);
        let csv = to_csv(&r);
        let cols = |i: usize| csv.lines().nth(i).unwrap().split(',').take(6).collect::<Vec<_>>().join(",");
        assert_eq!(cols(1), "tcp,0,tcp,rx,9000,2", "{csv}");
        assert_eq!(cols(4), "udp,0,udp,rx,9000,2", "{csv}");
    }
}
