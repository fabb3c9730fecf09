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
use crate::rfc2544::Rfc2544Result;
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
    let plan = if dir.join(files::PLAN).exists() { Some(Plan::load(&dir.join(files::PLAN))?) } else { None };
    let run = match std::fs::read_to_string(dir.join(files::RUN)) {
        Ok(t) => serde_json::from_str(&t).ok(),
        Err(_) => None,
    };
    let trials: Vec<TrialRecord> = read_jsonl(&dir.join(files::RESULTS))?;
    let rfc2544 = match std::fs::read_to_string(dir.join(files::RFC2544)) {
        Ok(t) => Some(
            serde_json::from_str(&t)
                .map_err(|e| BenchError::Invalid(format!("{}: {e}", dir.join(files::RFC2544).display())))?,
        ),
        Err(_) => None,
    };
    if trials.is_empty() && rfc2544.is_none() {
        return Err(BenchError::Invalid(format!("{}: no results.jsonl or rfc2544.json", dir.display())));
    }
    let mut ids: Vec<String> =
        plan.as_ref().map(|p| p.cells.iter().map(|c| c.id.clone()).collect()).unwrap_or_default();
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

/// Markdown.
pub fn to_markdown(r: &Report) -> String {
    let mut s = format!("# zynq-net benchmark: {}\n\n", r.title);
    if let Some(run) = &r.run {
        let ctx = &run["context"];
        let pin = |v: &serde_json::Value| match v.as_array() {
            Some(a) if !a.is_empty() => {
                format!("CPUs {}", a.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(","))
            }
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
        if let Some(d) = ctx["targets"]["description"].as_str().filter(|d| !d.is_empty()) {
            let _ = writeln!(s, "Setup: {d}\n");
        }
    }
    if !r.cells.is_empty() {
        s.push_str("## Matrix\n\n| cell | Mbit/s (mean ± sd) | n | UDP loss (max) | max core busy | CPU-bound | failed |\n|---|---:|---:|---:|---:|---|---:|\n");
        for c in &r.cells {
            let busy = c.cpu.iter().flat_map(|(_, cs)| cs.iter()).map(CoreLoad::busy).fold(0.0, f64::max);
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
        let notes: Vec<String> = dedup(&r.cells.iter().flat_map(|c| c.notes.iter().cloned()).collect::<Vec<_>>());
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
        let _ = writeln!(s, "## RFC 2544-style throughput (line rate {} Mbit/s)\n", mbit(x.line_rate_bps));
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
                        if st.pass { "✓".to_string() } else { format!("✗{}", st.lost) }
                    )
                })
                .collect();
            let _ = writeln!(s, "- {} B: {}", f.frame_size, steps.join(", "));
        }
        s.push_str("\nDeviations from RFC 2544:\n");
        for d in &x.deviations {
            let _ = writeln!(s, "- {d}");
        }
        s.push_str(
            "\nPercent of line rate counts 20 bytes of wire overhead per frame (preamble+SFD 8, inter-frame gap 12).\n",
        );
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
        let cell = r.plan.as_ref().and_then(|p| p.cells.iter().find(|c| c.id == t.cell));
        let sm = t.summary.as_ref();
        let busy = t.cpu.iter().flat_map(|m| m.cores.iter()).map(CoreLoad::busy).fold(0.0, f64::max);
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
            sm.map_or(0.0, |x| x.forward.sent_bps + x.reverse_flow.as_ref().map_or(0.0, |f| f.sent_bps)) / 1e6,
            sm.and_then(|x| x.forward.retransmits).map_or(String::new(), |v| v.to_string()),
            sm.and_then(|x| x.forward.lost_percent).map_or(String::new(), |v| format!("{v:.4}")),
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

pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
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

/// Minimal Markdown table → HTML for the report body.
pub(crate) fn md_tables_to_html(md: &str) -> String {
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
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>zynq-net benchmark: {}</title>\
<style>body{{font-family:sans-serif;margin:2em;max-width:1100px;color:#111}}table{{border-collapse:collapse;margin:1em 0}}\
td,th{{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:right}}th{{background:#eee}}td:first-child{{text-align:left}}\
figure{{margin:1em 0}}figcaption{{font-size:13px;font-weight:bold}}</style></head><body>\n{}\n</body></html>\n",
        esc(&r.title),
        body
    )
}

/// Writes `text` to `out/name` and records the path (the reports' writer).
pub(crate) fn put_file(out: &Path, name: &str, text: String, written: &mut Vec<PathBuf>) -> Result<(), BenchError> {
    let p = out.join(name);
    std::fs::write(&p, text).map_err(|e| BenchError::io(&p, e))?;
    written.push(p);
    Ok(())
}

/// Writes every format into `out`; returns the paths written.
pub fn write_all(r: &Report, out: &Path) -> Result<Vec<PathBuf>, BenchError> {
    std::fs::create_dir_all(out).map_err(|e| BenchError::io(out, e))?;
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
