//! Reports of a run directory: Markdown, CSV, JSON and one self-contained
//! HTML file with inline SVG plots (RFC 2544 frame size vs frames/s with the
//! line-rate curve; throughput per matrix cell; per-core CPU bars).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::compare::Stats;
use crate::cpu::CoreLoad;
use crate::error::BenchError;
use crate::plan::Plan;
use crate::rfc2544::{max_fps, Rfc2544Result};
use crate::run::{files, read_jsonl, TrialRecord};

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
    let plan = if dir.join(files::PLAN).exists() {
        Some(Plan::load(&dir.join(files::PLAN))?)
    } else {
        None
    };
    let run = match std::fs::read_to_string(dir.join(files::RUN)) {
        Ok(t) => serde_json::from_str(&t).ok(),
        Err(_) => None,
    };
    let trials: Vec<TrialRecord> = read_jsonl(&dir.join(files::RESULTS))?;
    let rfc2544 = match std::fs::read_to_string(dir.join(files::RFC2544)) {
        Ok(t) => Some(serde_json::from_str(&t).map_err(|e| {
            BenchError::Invalid(format!("{}: {e}", dir.join(files::RFC2544).display()))
        })?),
        Err(_) => None,
    };
    if trials.is_empty() && rfc2544.is_none() {
        return Err(BenchError::Invalid(format!(
            "{}: no results.jsonl or rfc2544.json",
            dir.display()
        )));
    }
    let mut ids: Vec<String> = plan
        .as_ref()
        .map(|p| p.cells.iter().map(|c| c.id.clone()).collect())
        .unwrap_or_default();
    for t in &trials {
        if !ids.contains(&t.cell) {
            ids.push(t.cell.clone());
        }
    }
    let mut cells = Vec::new();
    for id in ids {
        let all: Vec<&TrialRecord> = trials.iter().filter(|t| t.cell == id).collect();
        if all.is_empty() {
            continue;
        }
        let ok: Vec<&TrialRecord> = all.iter().copied().filter(|t| t.error.is_none()).collect();
        cells.push(CellSummary {
            cell: id,
            throughput: Stats::of(&ok.iter().map(|t| t.throughput_bps).collect::<Vec<_>>()),
            cpu_bound: ok
                .iter()
                .flat_map(|t| t.cpu_bound.iter().cloned())
                .collect(),
            failed: all.len() - ok.len(),
            cpu: mean_loads(&ok),
            notes: all.first().map(|t| t.notes.clone()).unwrap_or_default(),
        });
    }
    let title = plan
        .as_ref()
        .and_then(|p| p.board.clone())
        .unwrap_or_else(|| {
            dir.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "run".into())
        });
    Ok(Report {
        format: "zynq-net-bench-report 1".into(),
        title,
        plan,
        run,
        cells,
        trials,
        rfc2544,
    })
}

fn mbit(bps: f64) -> String {
    format!("{:.1}", bps / 1e6)
}

/// Markdown.
pub fn to_markdown(r: &Report) -> String {
    let mut s = format!("# zynq-net benchmark: {}\n\n", r.title);
    if let Some(run) = &r.run {
        let ctx = &run["context"];
        let pin = |v: &serde_json::Value| match v.as_array() {
            Some(a) if !a.is_empty() => format!(
                "CPUs {}",
                a.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            _ => "not pinned".to_string(),
        };
        let _ = writeln!(
            s,
            "iperf3 client {} / server {}; client {}, server {} (taskset).\n",
            ver(&ctx["client_version"]),
            ver(&ctx["server_version"]),
            pin(&ctx["client_cpus"]),
            pin(&ctx["server_cpus"])
        );
        if let Some(d) = ctx["targets"]["description"]
            .as_str()
            .filter(|d| !d.is_empty())
        {
            let _ = writeln!(s, "Setup: {d}\n");
        }
    }
    if !r.cells.is_empty() {
        s.push_str("## Matrix\n\n| cell | Mbit/s (mean ± sd) | n | UDP loss (max) | max core busy | CPU-bound | failed |\n|---|---:|---:|---:|---:|---|---:|\n");
        for c in &r.cells {
            let busy = c
                .cpu
                .iter()
                .flat_map(|(_, cs)| cs.iter())
                .map(CoreLoad::busy)
                .fold(0.0, f64::max);
            // UDP: the worst repeat's loss (iperf3 end.sum.lost_percent), as in report.csv
            let loss = r
                .trials
                .iter()
                .filter(|t| t.cell == c.cell)
                .filter_map(|t| t.summary.as_ref()?.forward.lost_percent)
                .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
            let _ = writeln!(
                s,
                "| {} | {} ± {} | {} | {} | {:.0}% | {} | {} |",
                c.cell,
                mbit(c.throughput.mean),
                mbit(c.throughput.sd),
                c.throughput.n,
                loss.map_or_else(|| "-".to_string(), |v| format!("{v:.2}%")),
                busy,
                if c.cpu_bound.is_empty() {
                    "no".to_string()
                } else {
                    format!("**yes** ({})", dedup(&c.cpu_bound).join(", "))
                },
                c.failed
            );
        }
        let notes: Vec<String> = dedup(
            &r.cells
                .iter()
                .flat_map(|c| c.notes.iter().cloned())
                .collect::<Vec<_>>(),
        );
        if !notes.is_empty() {
            s.push_str("\nNotes:\n");
            for n in notes {
                let _ = writeln!(s, "- {n}");
            }
        }
        s.push_str("\nA cell is CPU-bound when a core of any machine was at least ");
        let _ = writeln!(
            s,
            "{}% busy (usr+sys+irq+softirq) during a trial.\n",
            r.plan.as_ref().map_or(95.0, |p| p.spec.cpu_bound_percent)
        );
    }
    if let Some(x) = &r.rfc2544 {
        let _ = writeln!(
            s,
            "## RFC 2544-style throughput (line rate {} Mbit/s)\n",
            mbit(x.line_rate_bps)
        );
        s.push_str("| frame size (B) | frames/s | Mbit/s (frames) | % of line rate | line-rate frames/s | search trials | confirmed | notes |\n|---:|---:|---:|---:|---:|---:|---|---|\n");
        for f in &x.frames {
            let mut notes = Vec::new();
            if f.sender_limited {
                notes.push("sender-limited".to_string());
            }
            if !f.cpu_bound.is_empty() {
                notes.push(format!("CPU-bound ({})", f.cpu_bound.join(", ")));
            }
            let _ = writeln!(
                s,
                "| {} | {:.0} | {} | {:.1}% | {:.0} | {} | {} | {} |",
                f.frame_size,
                f.fps,
                mbit(f.frame_bps),
                f.line_percent,
                f.max_fps,
                f.search_trials,
                if f.confirmed { "yes" } else { "no" },
                notes.join("; ")
            );
        }
        s.push_str("\nSearch (frames/s asked of iperf3, and sent when >2% short: pass ✓ / loss ✗ with frames lost; c = confirmation trial):\n");
        for f in &x.frames {
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
                        if st.pass {
                            "✓".to_string()
                        } else {
                            format!("✗{}", st.lost)
                        }
                    )
                })
                .collect();
            let _ = writeln!(s, "- {} B: {}", f.frame_size, steps.join(", "));
        }
        s.push_str("\nDeviations from RFC 2544:\n");
        for d in &x.deviations {
            let _ = writeln!(s, "- {d}");
        }
        s.push_str("\nPercent of line rate counts 20 bytes of wire overhead per frame (preamble+SFD 8, inter-frame gap 12).\n");
    }
    s
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

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// CSV of every matrix trial.
pub fn to_csv(r: &Report) -> String {
    let mut s = String::from("cell,repeat,protocol,direction,mtu,streams,received_mbps,sent_mbps,retransmits,lost_percent,max_core_busy,cpu_bound,error\n");
    for t in &r.trials {
        let cell = r
            .plan
            .as_ref()
            .and_then(|p| p.cells.iter().find(|c| c.id == t.cell));
        let sm = t.summary.as_ref();
        let busy = t
            .cpu
            .iter()
            .flat_map(|m| m.cores.iter())
            .map(CoreLoad::busy)
            .fold(0.0, f64::max);
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{:.3},{:.3},{},{},{:.1},{},{}",
            csv_field(&t.cell),
            t.repeat,
            cell.map_or(String::new(), |c| c.protocol.to_string()),
            cell.map_or(String::new(), |c| c.direction.to_string()),
            cell.map_or(String::new(), |c| c.mtu.to_string()),
            cell.map_or(String::new(), |c| c.streams.to_string()),
            t.throughput_bps / 1e6,
            sm.map_or(0.0, |x| x.forward.sent_bps
                + x.reverse_flow.as_ref().map_or(0.0, |f| f.sent_bps))
                / 1e6,
            sm.and_then(|x| x.forward.retransmits)
                .map_or(String::new(), |v| v.to_string()),
            sm.and_then(|x| x.forward.lost_percent)
                .map_or(String::new(), |v| format!("{v:.4}")),
            busy,
            csv_field(&t.cpu_bound.join(" ")),
            csv_field(t.error.as_deref().unwrap_or(""))
        );
    }
    s
}

/// CSV of the RFC 2544 table.
pub fn rfc2544_csv(x: &Rfc2544Result) -> String {
    let mut s = String::from("frame_size,udp_payload,fps,frame_mbps,payload_mbps,line_percent,max_fps,search_trials,confirmed,sender_limited\n");
    for f in &x.frames {
        let _ = writeln!(
            s,
            "{},{},{:.1},{:.3},{:.3},{:.2},{:.1},{},{},{}",
            f.frame_size,
            f.udp_payload,
            f.fps,
            f.frame_bps / 1e6,
            f.payload_bps / 1e6,
            f.line_percent,
            f.max_fps,
            f.search_trials,
            f.confirmed,
            f.sender_limited
        );
    }
    s
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// SVG: frame size vs frames/s (log scale), measured points and the line-rate curve.
pub fn svg_rfc2544(x: &Rfc2544Result) -> String {
    let (w, h, ml, mr, mt, mb) = (640.0, 360.0, 70.0, 20.0, 20.0, 45.0);
    let fmin = x
        .frames
        .iter()
        .map(|f| f.frame_size)
        .min()
        .unwrap_or(64)
        .min(64) as f64;
    let fmax = x
        .frames
        .iter()
        .map(|f| f.frame_size)
        .max()
        .unwrap_or(1518)
        .max(1518) as f64;
    let ymax = max_fps(x.line_rate_bps, fmin as u32) * 1.2;
    let ymin_pos = x
        .frames
        .iter()
        .map(|f| f.fps)
        .filter(|v| *v > 0.0)
        .fold(max_fps(x.line_rate_bps, fmax as u32), f64::min);
    let ymin = 10f64.powf((ymin_pos / 2.0).log10().floor());
    let px = |f: f64| ml + (f - fmin) / (fmax - fmin) * (w - ml - mr);
    let py = |v: f64| {
        let v = v.max(ymin);
        mt + (1.0 - (v.log10() - ymin.log10()) / (ymax.log10() - ymin.log10())) * (h - mt - mb)
    };
    let mut s = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"RFC 2544 frames per second\">");
    let _ = write!(
        s,
        "<rect x=\"{ml}\" y=\"{mt}\" width=\"{}\" height=\"{}\" fill=\"#fafafa\" stroke=\"#999\"/>",
        w - ml - mr,
        h - mt - mb
    );
    let mut d = ymin;
    while d <= ymax {
        let y = py(d);
        let _ = write!(s, "<line x1=\"{ml}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\">{}</text>", w - mr, ml - 4.0, y + 4.0, human(d));
        d *= 10.0;
    }
    for f in &x.frames {
        let xx = px(f.frame_size as f64);
        let _ = write!(
            s,
            "<text x=\"{xx:.1}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
            h - mb + 15.0,
            f.frame_size
        );
    }
    let _ = write!(
        s,
        "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">frame size (bytes)</text>",
        (ml + w - mr) / 2.0,
        h - 8.0
    );
    let _ = write!(s, "<text x=\"14\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 14 {})\">frames/s (log)</text>", (mt + h - mb) / 2.0, (mt + h - mb) / 2.0);
    let mut curve = String::new();
    let steps = 80;
    for i in 0..=steps {
        let f = fmin + (fmax - fmin) * i as f64 / steps as f64;
        let _ = write!(
            curve,
            "{:.1},{:.1} ",
            px(f),
            py(max_fps(x.line_rate_bps, f as u32))
        );
    }
    let _ = write!(s, "<polyline points=\"{curve}\" fill=\"none\" stroke=\"#c33\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>");
    let mut sorted: Vec<&crate::rfc2544::FrameResult> =
        x.frames.iter().filter(|f| f.fps > 0.0).collect();
    sorted.sort_by_key(|f| f.frame_size);
    let pts: Vec<String> = sorted
        .iter()
        .map(|f| format!("{:.1},{:.1}", px(f.frame_size as f64), py(f.fps)))
        .collect();
    let _ = write!(
        s,
        "<polyline points=\"{}\" fill=\"none\" stroke=\"#2563eb\" stroke-width=\"2\"/>",
        pts.join(" ")
    );
    for f in x.frames.iter().filter(|f| f.fps > 0.0) {
        let _ = write!(
            s,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"{}\"><title>{} B: {:.0} frames/s, {:.1} Mbit/s, {:.1}% of line rate</title></circle>",
            px(f.frame_size as f64),
            py(f.fps),
            if f.confirmed { "#2563eb" } else { "#f59e0b" },
            f.frame_size,
            f.fps,
            f.frame_bps / 1e6,
            f.line_percent
        );
    }
    let _ = write!(s, "<g font-size=\"11\"><line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#c33\" stroke-dasharray=\"6 4\" stroke-width=\"2\"/><text x=\"{}\" y=\"{}\">line rate {} Mbit/s</text>", w - 230.0, w - 200.0, mt + 15.0, mt + 15.0, w - 195.0, mt + 19.0, mbit(x.line_rate_bps));
    let _ = write!(s, "<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#2563eb\" stroke-width=\"2\"/><text x=\"{}\" y=\"{}\">measured (zero loss)</text></g>", w - 230.0, w - 200.0, mt + 32.0, mt + 32.0, w - 195.0, mt + 36.0);
    s.push_str("</svg>");
    s
}

fn human(v: f64) -> String {
    if v >= 1e6 {
        format!("{}M", v / 1e6)
    } else if v >= 1e3 {
        format!("{}k", v / 1e3)
    } else {
        format!("{v}")
    }
}

/// SVG: horizontal bars of throughput per cell, with ±sd whiskers.
pub fn svg_cells(cells: &[CellSummary]) -> String {
    let row = 26.0;
    let (w, ml, mr, mt) = (640.0, 190.0, 90.0, 10.0);
    let h = mt + row * cells.len() as f64 + 30.0;
    let max = cells
        .iter()
        .map(|c| c.throughput.mean + c.throughput.sd)
        .fold(1.0, f64::max);
    let sx = |v: f64| ml + v / max * (w - ml - mr);
    let mut s = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"throughput per cell\">");
    for (i, c) in cells.iter().enumerate() {
        let y = mt + i as f64 * row;
        let color = if c.cpu_bound.is_empty() {
            "#0d9488"
        } else {
            "#dc2626"
        };
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"end\">{}</text>",
            ml - 6.0,
            y + 16.0,
            esc(&c.cell)
        );
        let _ = write!(
            s,
            "<rect x=\"{ml}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{}\" fill=\"{color}\"><title>{}: {} Mbit/s ± {} (n={}){}</title></rect>",
            y + 4.0,
            (sx(c.throughput.mean) - ml).max(0.5),
            row - 8.0,
            esc(&c.cell),
            mbit(c.throughput.mean),
            mbit(c.throughput.sd),
            c.throughput.n,
            if c.cpu_bound.is_empty() { "" } else { ", CPU-bound" }
        );
        if c.throughput.n > 1 {
            let (a, b) = (
                sx(c.throughput.mean - c.throughput.sd),
                sx(c.throughput.mean + c.throughput.sd),
            );
            let _ = write!(
                s,
                "<line x1=\"{a:.1}\" x2=\"{b:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#111\"/>",
                y + row / 2.0,
                y + row / 2.0
            );
        }
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\">{} Mbit/s</text>",
            sx(c.throughput.mean + c.throughput.sd) + 4.0,
            y + 16.0,
            mbit(c.throughput.mean)
        );
    }
    let _ = write!(s, "<text x=\"{ml}\" y=\"{:.1}\" font-size=\"11\">teal: not CPU-bound; red: CPU-bound (a core at or above the threshold)</text>", h - 8.0);
    s.push_str("</svg>");
    s
}

/// SVG: stacked per-core bars (usr, sys, irq, softirq) per machine for one cell.
pub fn svg_cpu(cell: &CellSummary, threshold: f64) -> String {
    let cores: usize = cell.cpu.iter().map(|(_, c)| c.len()).sum();
    let bar = 26.0;
    let gap = 14.0;
    let (ml, mt, hplot) = (40.0, 10.0, 120.0);
    let w = (ml + (cores as f64) * (bar + 6.0) + gap * cell.cpu.len() as f64 + 150.0).max(320.0);
    let h = mt + hplot + 40.0;
    let py = |p: f64| mt + hplot * (1.0 - p / 100.0);
    let mut s = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"per-core CPU load\">");
    for p in [0.0, 50.0, 100.0] {
        let _ = write!(s, "<line x1=\"{ml}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"end\">{p}%</text>", w - 150.0, py(p), py(p), ml - 4.0, py(p) + 3.0);
    }
    let _ = write!(s, "<line x1=\"{ml}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#dc2626\" stroke-dasharray=\"4 3\"/>", w - 150.0, py(threshold), py(threshold));
    let mut x = ml + 4.0;
    let parts = [
        ("usr", "#2563eb"),
        ("sys", "#16a34a"),
        ("irq", "#f59e0b"),
        ("softirq", "#9333ea"),
    ];
    for (role, cs) in &cell.cpu {
        let x0 = x;
        for c in cs {
            let mut base = 0.0;
            for (name, color) in parts {
                let v = match name {
                    "usr" => c.usr,
                    "sys" => c.sys,
                    "irq" => c.irq,
                    _ => c.softirq,
                };
                if v > 0.0 {
                    let _ = write!(s, "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{bar}\" height=\"{:.1}\" fill=\"{color}\"><title>{} cpu{} {name} {v:.1}%</title></rect>", py(base + v), hplot * v / 100.0, esc(role), c.cpu);
                }
                base += v;
            }
            let _ = write!(s, "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"middle\">cpu{}</text>", x + bar / 2.0, mt + hplot + 12.0, c.cpu);
            x += bar + 6.0;
        }
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"middle\">{}</text>",
            (x0 + x - 6.0) / 2.0,
            mt + hplot + 26.0,
            esc(role)
        );
        x += gap;
    }
    let lx = w - 140.0;
    for (i, (name, color)) in parts.iter().enumerate() {
        let y = mt + 10.0 + i as f64 * 16.0;
        let _ = write!(s, "<rect x=\"{lx}\" y=\"{y}\" width=\"10\" height=\"10\" fill=\"{color}\"/><text x=\"{}\" y=\"{}\" font-size=\"11\">{name}</text>", lx + 14.0, y + 9.0);
    }
    s.push_str("</svg>");
    s
}

/// Minimal Markdown table → HTML for the report body.
fn md_tables_to_html(md: &str) -> String {
    let mut out = String::new();
    let mut in_table = false;
    let mut in_list = false;
    for line in md.lines() {
        let t = line.trim();
        if t.starts_with('|') {
            if t.contains("---") {
                continue;
            }
            let cells: Vec<&str> = t.trim_matches('|').split('|').map(str::trim).collect();
            if !in_table {
                out.push_str("<table><tr>");
                for c in cells {
                    let _ = write!(out, "<th>{}</th>", esc(c));
                }
                out.push_str("</tr>\n");
                in_table = true;
            } else {
                out.push_str("<tr>");
                for c in cells {
                    let _ = write!(out, "<td>{}</td>", esc(&c.replace("**", "")));
                }
                out.push_str("</tr>\n");
            }
            continue;
        }
        if in_table {
            out.push_str("</table>\n");
            in_table = false;
        }
        if let Some(item) = t.strip_prefix("- ") {
            if !in_list {
                out.push_str("<ul>");
                in_list = true;
            }
            let _ = write!(out, "<li>{}</li>", esc(item));
            continue;
        }
        if in_list {
            out.push_str("</ul>\n");
            in_list = false;
        }
        if let Some(hh) = t.strip_prefix("## ") {
            let _ = writeln!(out, "<h2>{}</h2>", esc(hh));
        } else if let Some(hh) = t.strip_prefix("# ") {
            let _ = writeln!(out, "<h1>{}</h1>", esc(hh));
        } else if !t.is_empty() {
            let _ = writeln!(out, "<p>{}</p>", esc(&t.replace('`', "")));
        }
    }
    if in_table {
        out.push_str("</table>\n");
    }
    if in_list {
        out.push_str("</ul>\n");
    }
    out
}

/// One self-contained HTML page (no external resources).
pub fn to_html(r: &Report) -> String {
    let threshold = r.plan.as_ref().map_or(95.0, |p| p.spec.cpu_bound_percent);
    let mut body = md_tables_to_html(&to_markdown(r));
    if let Some(x) = &r.rfc2544 {
        let _ = write!(body, "<h2>RFC 2544-style: frame size vs frames/s</h2><figure id=\"plot-rfc2544\">{}</figure>", svg_rfc2544(x));
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
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>zynq-net benchmark: {}</title>\
<style>body{{font-family:sans-serif;margin:2em;max-width:1100px;color:#111}}table{{border-collapse:collapse;margin:1em 0}}\
td,th{{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:right}}th{{background:#eee}}td:first-child{{text-align:left}}\
figure{{margin:1em 0}}figcaption{{font-size:13px;font-weight:bold}}</style></head><body>\n{}\n</body></html>\n",
        esc(&r.title),
        body
    )
}

/// Writes every format into `out`; returns the paths written.
pub fn write_all(r: &Report, out: &Path) -> Result<Vec<PathBuf>, BenchError> {
    std::fs::create_dir_all(out).map_err(|e| BenchError::io(out, e))?;
    let mut written = Vec::new();
    let mut put = |name: &str, text: String| -> Result<(), BenchError> {
        let p = out.join(name);
        std::fs::write(&p, text).map_err(|e| BenchError::io(&p, e))?;
        written.push(p);
        Ok(())
    };
    put("report.md", to_markdown(r))?;
    put("report.csv", to_csv(r))?;
    if let Some(x) = &r.rfc2544 {
        put("report-rfc2544.csv", rfc2544_csv(x))?;
    }
    put(
        "report.json",
        serde_json::to_string_pretty(r).map_err(|e| BenchError::Invalid(e.to_string()))? + "\n",
    )?;
    put("report.html", to_html(r))?;
    Ok(written)
}
