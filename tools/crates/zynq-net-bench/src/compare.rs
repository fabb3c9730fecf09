//! A vs B: per-cell throughput deltas with a noise estimate from the
//! repeats of each cell, and per-frame-size RFC 2544 deltas.
//!
//! Noise: with `n ≥ 2` repeats on both sides the difference of the means is
//! compared with twice its standard error, `2·sqrt(sA²/nA + sB²/nB)`
//! (≈ a 95% interval for a normal spread); a delta inside that is marked
//! "within noise". With a single repeat on either side there is no
//! estimate and the delta is marked so.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::BenchError;
use crate::records::{files, read_trials, Rfc2544Result, TrialRecord};
use crate::stats::Stats;
use crate::table::{Align::Left, Align::Right, Block, Doc, Inline, Table};

/// One compared cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellDelta {
    /// Cell id.
    pub cell: String,
    /// A's throughput (bit/s).
    pub a: Stats,
    /// B's throughput (bit/s).
    pub b: Stats,
    /// (B - A) / A in percent.
    pub delta_percent: Option<f64>,
    /// Noise bound in percent of A, when both sides have repeats.
    pub noise_percent: Option<f64>,
    /// `better`, `worse`, `within noise`, or `no noise estimate`.
    pub verdict: String,
    /// CPU-bound in A / in B.
    pub cpu_bound: (bool, bool),
}

/// One compared frame size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrameDelta {
    /// Frame size.
    pub frame_size: u32,
    /// A's frames/s.
    pub a_fps: f64,
    /// B's frames/s.
    pub b_fps: f64,
    /// Delta in percent.
    pub delta_percent: f64,
    /// Half the search resolution on each side counts as noise.
    pub verdict: String,
}

/// The comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Format tag.
    pub format: String,
    /// Label of A.
    pub a: String,
    /// Label of B.
    pub b: String,
    /// Matrix cells present in both.
    pub cells: Vec<CellDelta>,
    /// Cells only in one side.
    pub unmatched: Vec<String>,
    /// RFC 2544 frame sizes present in both.
    pub frames: Vec<FrameDelta>,
    /// `bench rfc2544-tester` results present in both (`tester.json`):
    /// per frame size, search (NDR, PDRs) and direction.
    #[serde(default)]
    pub tester: Vec<TesterDelta>,
    /// What `compare.md` says above its tables: the image check's
    /// differences when runs of different images were compared as asked.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// One side of a [`TesterDelta`]: the rate in an analyser's terms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TesterSide {
    /// Frames/s per direction (0: nothing confirmed).
    pub fps: f64,
    /// UDP payload Mbit/s (`F - 46` bytes a frame).
    pub payload_mbps: f64,
    /// Percent of the line rate.
    pub line_percent: f64,
    /// The final full-length trial passed.
    pub confirmed: bool,
    /// `DUT` or `tester` ([`crate::records::tester::limited_by`]).
    pub limited_by: String,
}

/// One frame size, search and direction of two `bench rfc2544-tester` runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TesterDelta {
    /// Frame size (bytes incl. FCS).
    pub frame_size: u32,
    /// Loss tolerated (0: the NDR, RFC 2544's throughput).
    pub loss_tolerance_percent: f64,
    /// `A->B` or `B->A`.
    pub direction: String,
    /// Run A.
    pub a: TesterSide,
    /// Run B.
    pub b: TesterSide,
    /// (B - A) / A in percent (None when A is 0).
    pub delta_percent: Option<f64>,
    /// `better`, `worse` or `within search resolution` (the coarser of both runs').
    pub verdict: String,
}

/// Compares two sets of trial records.
pub fn compare_records(a_label: &str, a: &[TrialRecord], b_label: &str, b: &[TrialRecord]) -> Comparison {
    let mut ids: Vec<String> = Vec::new();
    for r in a.iter().chain(b) {
        if !ids.contains(&r.cell) {
            ids.push(r.cell.clone());
        }
    }
    let mut cells = Vec::new();
    let mut unmatched = Vec::new();
    for id in ids {
        let pick = |set: &[TrialRecord]| -> (Vec<f64>, bool) {
            let ok: Vec<&TrialRecord> = set.iter().filter(|r| r.cell == id && r.error.is_none()).collect();
            (ok.iter().map(|r| r.throughput_bps).collect(), ok.iter().any(|r| !r.cpu_bound.is_empty()))
        };
        let (va, ba) = pick(a);
        let (vb, bb) = pick(b);
        if va.is_empty() || vb.is_empty() {
            unmatched.push(id);
            continue;
        }
        let (sa, sb) = (Stats::of(&va), Stats::of(&vb));
        // A baseline of 0 has no percentage change (not "+0.0%").
        let delta = (sa.mean > 0.0).then(|| (sb.mean - sa.mean) / sa.mean * 100.0);
        let noise = if sa.n >= 2 && sb.n >= 2 && sa.mean > 0.0 {
            Some(2.0 * (sa.sd.powi(2) / sa.n as f64 + sb.sd.powi(2) / sb.n as f64).sqrt() / sa.mean * 100.0)
        } else {
            None
        };
        let verdict = match (delta, noise) {
            (None, _) if sb.mean > 0.0 => "better (A is 0)".to_string(),
            (None, _) => "no change (A and B are 0)".to_string(),
            // B collapsed to nothing: no noise explains that, whatever
            // the repeats (one repeat has no noise estimate at all).
            (Some(_), _) if sb.mean == 0.0 => "worse".to_string(),
            (Some(_), None) => "no noise estimate (1 repeat)".to_string(),
            (Some(d), Some(nz)) if d.abs() <= nz => "within noise".to_string(),
            (Some(d), Some(_)) if d > 0.0 => "better".to_string(),
            (Some(_), Some(_)) => "worse".to_string(),
        };
        cells.push(CellDelta {
            cell: id,
            a: sa,
            b: sb,
            delta_percent: delta,
            noise_percent: noise,
            verdict,
            cpu_bound: (ba, bb),
        });
    }
    Comparison {
        format: "zynq-net-bench-compare 1".into(),
        a: a_label.into(),
        b: b_label.into(),
        cells,
        unmatched,
        frames: Vec::new(),
        tester: Vec::new(),
        notes: Vec::new(),
    }
}

/// Adds the `bench rfc2544-tester` deltas: for every frame size both runs
/// measured, the NDR and each PDR both searched, every direction both ran
/// (noise: the coarser search resolution, as [`compare_rfc2544`]).
pub fn compare_tester(c: &mut Comparison, a: &crate::records::tester::Report, b: &crate::records::tester::Report) {
    use crate::records::tester::{limited_by, FrameReport, Throughput};
    let res = a.options.search.resolution_percent.max(b.options.search.resolution_percent);
    let searches = |f: &FrameReport| -> Vec<Throughput> { f.ndr.iter().chain(&f.pdr).cloned().collect() };
    let side = |r: &crate::records::tester::Report, f: &FrameReport, n: &Throughput| TesterSide {
        fps: n.fps,
        payload_mbps: n.fps * 8.0 * f64::from(crate::records::tester::payload_len(f.frame_size)) / 1e6,
        line_percent: crate::records::line_percent(n.fps, f.frame_size, r.options.line_rate_bps),
        confirmed: n.confirmed,
        limited_by: limited_by(f, n).to_string(),
    };
    for fa in &a.frames {
        let Some(fb) = b.frames.iter().find(|f| f.frame_size == fa.frame_size) else { continue };
        for na in searches(fa) {
            let tol = na.loss_tolerance_percent;
            let Some(nb) = searches(fb).into_iter().find(|x| x.loss_tolerance_percent == tol) else { continue };
            for w in a.ways.iter().filter(|w| b.ways.contains(w)) {
                let delta = (na.fps > 0.0).then(|| (nb.fps - na.fps) / na.fps * 100.0);
                let verdict = match delta {
                    None if nb.fps > 0.0 => "better (A is 0)",
                    None => "no change (A and B are 0)",
                    Some(d) if d.abs() <= res => "within search resolution",
                    Some(d) if d > 0.0 => "better",
                    Some(_) => "worse",
                };
                c.tester.push(TesterDelta {
                    frame_size: fa.frame_size,
                    loss_tolerance_percent: tol,
                    direction: w.label().to_string(),
                    a: side(a, fa, &na),
                    b: side(b, fb, &nb),
                    delta_percent: delta,
                    verdict: verdict.to_string(),
                });
            }
        }
    }
}

/// `tester.json` of a run directory (`bench rfc2544-tester`), if any.
///
/// # Errors
/// An unreadable or damaged file, named.
pub fn load_tester(path: &Path) -> Result<Option<crate::records::tester::Report>, BenchError> {
    let p = path.join("tester.json");
    if !path.is_dir() || !p.exists() {
        return Ok(None);
    }
    let t = crate::records::read_input_text(&p)?;
    let r: crate::records::tester::Report = crate::records::parse_json(
        &p,
        &t,
        "expected the record `zynq-net bench rfc2544-tester` writes whole at its end (docs/bench.md); run the tester again into a new directory",
    )?;
    if r.format != crate::records::tester::FORMAT {
        return Err(BenchError::Invalid(format!(
            "{}: format `{}`, expected `{}`",
            p.display(),
            zynq_net_model::out::escaped(&r.format),
            crate::records::tester::FORMAT
        )));
    }
    Ok(Some(r))
}

/// Adds RFC 2544 deltas (noise: the search resolution of both sides).
pub fn compare_rfc2544(c: &mut Comparison, a: &Rfc2544Result, b: &Rfc2544Result) {
    let res = a.settings.resolution_percent.max(b.settings.resolution_percent);
    for fa in &a.frames {
        if let Some(fb) = b.frames.iter().find(|f| f.frame_size == fa.frame_size) {
            let delta = if fa.fps > 0.0 { (fb.fps - fa.fps) / fa.fps * 100.0 } else { 0.0 };
            let verdict = if delta.abs() <= res {
                "within search resolution".to_string()
            } else if delta > 0.0 {
                "better".to_string()
            } else {
                "worse".to_string()
            };
            c.frames.push(FrameDelta {
                frame_size: fa.frame_size,
                a_fps: fa.fps,
                b_fps: fb.fps,
                delta_percent: delta,
                verdict,
            });
        }
    }
}

/// Loads a run directory (or a `results.jsonl` file) and its RFC 2544 result if any.
pub fn load_run(path: &Path) -> Result<(Vec<TrialRecord>, Option<Rfc2544Result>), BenchError> {
    // What is wrong with the input, said for each kind of wrong.
    let meta = std::fs::metadata(path).map_err(|e| BenchError::io(path, e))?;
    if meta.is_file() && meta.len() == 0 {
        return Err(BenchError::Invalid(format!(
            "{}: empty: no trial records (one JSON object per line)",
            path.display()
        )));
    }
    let (results, rfc) = if path.is_dir() {
        (path.join(files::RESULTS), Some(path.join(files::RFC2544)))
    } else {
        (path.to_path_buf(), None)
    };
    let recs = read_trials(&results)?;
    let rfc = match rfc {
        Some(p) if p.exists() => {
            let t = crate::records::read_input_text(&p)?;
            Some(crate::records::parse_json(
                &p,
                &t,
                "expected the result `zynq-net bench rfc2544` writes whole at its end (docs/bench.md); run it again into a new directory",
            )?)
        }
        _ => None,
    };
    // A directory of `bench rfc2544-tester` alone is one too ([`load_tester`]).
    let tester_dir = path.is_dir() && path.join("tester.json").exists();
    if recs.is_empty() && rfc.is_none() && !tester_dir {
        // The file is there but holds no whole record (only a torn line, or
        // blank lines): say so of the file, not of the directory.
        if results.is_file() {
            return Err(BenchError::Invalid(format!(
                "{}: no trial records (one JSON object per line)",
                results.display()
            )));
        }
        return Err(BenchError::Invalid(format!(
            "{}: no results.jsonl, rfc2544.json or tester.json in this directory: not a run directory of `zynq-net bench run`, `bench rfc2544` or `bench rfc2544-tester`",
            path.display()
        )));
    }
    Ok((recs, rfc))
}

/// The matrix table of a comparison: A and B (mean ± sd (n)), delta,
/// noise bound and verdict per cell, as [`compare_records`] derived them.
pub fn cells_table(c: &Comparison) -> Table {
    let mut t = Table::new(&[
        ("cell", Left),
        ("A Mbit/s (n)", Right),
        ("B Mbit/s (n)", Right),
        ("delta", Right),
        ("noise (±)", Right),
        ("verdict", Left),
    ]);
    let side = |s: &Stats| format!("{:.1} ± {:.1} ({})", s.mean / 1e6, s.sd / 1e6, s.n);
    for d in &c.cells {
        t.row([
            d.cell.as_str().into(),
            side(&d.a).into(),
            side(&d.b).into(),
            d.delta_percent.map_or("n/a".to_string(), |x| format!("{x:+.1}%")).into(),
            d.noise_percent.map_or("n/a".to_string(), |n| format!("{n:.1}%")).into(),
            format!(
                "{}{}",
                d.verdict,
                match d.cpu_bound {
                    (true, true) => ", CPU-bound in A and B",
                    (true, false) => ", CPU-bound in A",
                    (false, true) => ", CPU-bound in B",
                    _ => "",
                }
            )
            .into(),
        ]);
    }
    t
}

/// The RFC 2544 table of a comparison: frames/s of A and B per frame size.
pub fn frames_table(c: &Comparison) -> Table {
    let mut t = Table::new(&[
        ("frame size", Right),
        ("A frames/s", Right),
        ("B frames/s", Right),
        ("delta", Right),
        ("verdict", Left),
    ]);
    for f in &c.frames {
        t.row([
            f.frame_size.to_string().into(),
            format!("{:.0}", f.a_fps).into(),
            format!("{:.0}", f.b_fps).into(),
            format!("{:+.1}%", f.delta_percent).into(),
            f.verdict.as_str().into(),
        ]);
    }
    t
}

/// The tester table of a comparison: per frame size, search and
/// direction, A's and B's frames/s, payload Mbit/s and % of line rate
/// (the analyser's terms), the delta and what limited each side.
pub fn tester_table(c: &Comparison) -> Table {
    let mut t = Table::new(&[
        ("frame size (B)", Right),
        ("search", Left),
        ("direction", Left),
        ("A frames/s", Right),
        ("A payload Mbit/s", Right),
        ("A line rate %", Right),
        ("B frames/s", Right),
        ("B payload Mbit/s", Right),
        ("B line rate %", Right),
        ("delta", Right),
        ("verdict", Left),
        ("limited by (A, B)", Left),
    ]);
    let conf = |s: &TesterSide| if s.confirmed { "" } else { " (not confirmed)" };
    for d in &c.tester {
        let search = if d.loss_tolerance_percent == 0.0 {
            "NDR".to_string()
        } else {
            format!("PDR {} %", d.loss_tolerance_percent)
        };
        t.row([
            d.frame_size.to_string().into(),
            search.into(),
            d.direction.as_str().into(),
            format!("{:.0}{}", d.a.fps, conf(&d.a)).into(),
            format!("{:.3}", d.a.payload_mbps).into(),
            format!("{:.1}", d.a.line_percent).into(),
            format!("{:.0}{}", d.b.fps, conf(&d.b)).into(),
            format!("{:.3}", d.b.payload_mbps).into(),
            format!("{:.1}", d.b.line_percent).into(),
            d.delta_percent.map_or("n/a".to_string(), |x| format!("{x:+.1}%")).into(),
            d.verdict.as_str().into(),
            format!("{}, {}", d.a.limited_by, d.b.limited_by).into(),
        ]);
    }
    t
}

/// The comparison as a document: title, which run is A and B, the tables.
pub fn document(c: &Comparison) -> Doc {
    let mut d = Doc::default();
    d.push(Block::H1("zynq-net bench compare".into()));
    d.push(Block::Para(Inline::text("A = ").code(c.a.as_str()).and(", B = ").code(c.b.as_str())));
    if !c.cells.is_empty() {
        d.push(Block::Table(cells_table(c)));
    }
    if !c.frames.is_empty() {
        d.push(Block::Table(frames_table(c)));
    }
    if !c.tester.is_empty() {
        d.push(Block::H2(Inline::text("RFC 2544 tester (").code("bench rfc2544-tester").and(")")));
        d.push(Block::Table(tester_table(c)));
    }
    if !c.unmatched.is_empty() {
        d.push(Block::Para(format!("Cells in only one run (or failed): {}", c.unmatched.join(", ")).into()));
    }
    d
}

/// Markdown of a comparison ([`document`]).
pub fn to_markdown(c: &Comparison) -> String {
    document(c).to_markdown()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn rec(cell: &str, bps: f64) -> TrialRecord {
        TrialRecord::for_test(cell, 0, bps)
    }

    #[test]
    fn noise_from_repeats() {
        let a = vec![rec("x", 100.0), rec("x", 102.0), rec("x", 98.0), rec("y", 100.0), rec("y", 101.0)];
        let b = vec![rec("x", 101.0), rec("x", 99.0), rec("x", 103.0), rec("y", 150.0), rec("y", 151.0), rec("z", 1.0)];
        let c = compare_records("a", &a, "b", &b);
        let x = c.cells.iter().find(|d| d.cell == "x").unwrap();
        assert_eq!(x.verdict, "within noise");
        let y = c.cells.iter().find(|d| d.cell == "y").unwrap();
        assert_eq!(y.verdict, "better");
        assert!((y.delta_percent.unwrap() - 49.75).abs() < 0.1);
        assert_eq!(c.unmatched, vec!["z".to_string()]);
        let one = compare_records("a", &[rec("x", 1.0)], "b", &[rec("x", 2.0)]);
        assert!(one.cells[0].noise_percent.is_none());
        assert!(to_markdown(&c).contains("within noise"));
    }

    #[test]
    fn stats_of_values() {
        assert_eq!(Stats::of(&[]), Stats { mean: 0.0, sd: 0.0, n: 0 });
        assert_eq!(Stats::of(&[7.0]), Stats { mean: 7.0, sd: 0.0, n: 1 });
        // 2, 4, 6: mean 4, sample sd sqrt((4 + 0 + 4) / 2) = 2.
        assert_eq!(Stats::of(&[2.0, 4.0, 6.0]), Stats { mean: 4.0, sd: 2.0, n: 3 });
    }

    #[test]
    fn deltas_noise_and_verdicts_by_hand() {
        // A 100, 102, 98 (mean 100, sd 2); B 101, 99, 103 (mean 101, sd 2):
        // +1%, noise 2 · sqrt(4/3 + 4/3) / 100 = 3.27%.
        let a = vec![rec("x", 100.0), rec("x", 102.0), rec("x", 98.0)];
        let b = vec![rec("x", 101.0), rec("x", 99.0), rec("x", 103.0)];
        let c = compare_records("A", &a, "B", &b);
        let x = &c.cells[0];
        assert!((x.delta_percent.unwrap() - 1.0).abs() < 1e-9, "{x:?}");
        assert!((x.noise_percent.unwrap() - 2.0 * (8.0f64 / 3.0).sqrt()).abs() < 1e-9, "{x:?}");
        assert_eq!(x.verdict, "within noise");
        // A 100, 101; B 90, 91: -9.95%, noise 2 · sqrt(0.25 + 0.25) / 100.5 = 1.41%.
        let c = compare_records("A", &[rec("y", 100.0), rec("y", 101.0)], "B", &[rec("y", 90.0), rec("y", 91.0)]);
        let y = &c.cells[0];
        assert!((y.delta_percent.unwrap() - (-10.0 / 100.5 * 100.0)).abs() < 1e-9, "{y:?}");
        assert!((y.noise_percent.unwrap() - 2.0 * 0.5f64.sqrt() / 100.5 * 100.0).abs() < 1e-9, "{y:?}");
        assert_eq!(y.verdict, "worse");
        assert_eq!((c.a.as_str(), c.b.as_str(), c.format.as_str()), ("A", "B", "zynq-net-bench-compare 1"));
        // One repeat on one side: no noise estimate.
        let c = compare_records("A", &[rec("z", 100.0), rec("z", 100.0)], "B", &[rec("z", 150.0)]);
        assert_eq!(c.cells[0].noise_percent, None);
        assert_eq!(c.cells[0].verdict, "no noise estimate (1 repeat)");
        // A side at zero: no percentage to take ("n/a", not "+0.0%"), and
        // the verdict does not blame a repeat count both sides have.
        let c = compare_records("A", &[rec("w", 0.0), rec("w", 0.0)], "B", &[rec("w", 5.0), rec("w", 6.0)]);
        assert_eq!((c.cells[0].delta_percent, c.cells[0].noise_percent), (None, None));
        assert_eq!(c.cells[0].verdict, "better (A is 0)");
        let md = to_markdown(&c);
        assert!(md.contains("| w | 0.0 ± 0.0 (2) | 0.0 ± 0.0 (2) | n/a | n/a | better (A is 0) |"), "{md}");
        let c = compare_records("A", &[rec("w", 0.0), rec("w", 0.0)], "B", &[rec("w", 0.0), rec("w", 0.0)]);
        assert_eq!(c.cells[0].verdict, "no change (A and B are 0)");
        // B collapsed to 0: worse, with one repeat (no noise estimate) or
        // with a noise estimate wider than 100 %.
        let c = compare_records("A", &[rec("v", 100.0)], "B", &[rec("v", 0.0)]);
        assert_eq!((c.cells[0].delta_percent, c.cells[0].verdict.as_str()), (Some(-100.0), "worse"));
        let c = compare_records("A", &[rec("v", 1.0), rec("v", 300.0)], "B", &[rec("v", 0.0), rec("v", 0.0)]);
        assert!(c.cells[0].noise_percent.unwrap() > 100.0, "{:?}", c.cells[0]);
        assert_eq!(c.cells[0].verdict, "worse");
    }

    #[test]
    fn failed_trials_and_cpu_bound_flags() {
        let mut failed = rec("x", 500.0);
        failed.error = Some("iperf3: refused".into());
        let mut bound = rec("x", 100.0);
        bound.cpu_bound = vec!["dut cpu0 99%".into()];
        let a = vec![rec("x", 100.0), failed.clone(), rec("only-a", 1.0)];
        let b = vec![bound, rec("x", 100.0), failed.clone()];
        let c = compare_records("A", &a, "B", &b);
        assert_eq!(c.cells.len(), 1);
        let x = &c.cells[0];
        assert_eq!((x.a.n, x.b.n), (1, 2), "failed trials do not count");
        assert_eq!(x.a.mean, 100.0);
        assert_eq!(x.cpu_bound, (false, true));
        assert_eq!(c.unmatched, vec!["only-a".to_string()]);
        // A cell that failed on one side is unmatched.
        let c = compare_records("A", &[rec("f", 1.0)], "B", &[TrialRecord { cell: "f".into(), ..failed }]);
        assert!(c.cells.is_empty());
        assert_eq!(c.unmatched, vec!["f".to_string()]);
        let md = to_markdown(&compare_records("A", &a, "B", &b));
        assert!(md.contains(", CPU-bound in B |"), "{md}");
        assert!(md.contains("\nCells in only one run (or failed): only-a\n"), "{md}");
    }

    fn rfc(res: f64, frames: &[(u32, f64)]) -> Rfc2544Result {
        Rfc2544Result {
            format: "zynq-net-bench-rfc2544 1".into(),
            line_rate_bps: 1e9,
            settings: crate::spec::Rfc2544Spec { resolution_percent: res, ..crate::spec::Rfc2544Spec::default() },
            frames: frames.iter().map(|&(f, fps)| crate::records::FrameResult::bare(f, fps, true)).collect(),
            deviations: vec![],
        }
    }

    #[test]
    fn rfc2544_deltas_count_the_coarser_resolution_as_noise() {
        let a = rfc(1.0, &[(64, 100_000.0), (512, 20_000.0), (1024, 10_000.0), (1518, 0.0)]);
        let b = rfc(2.0, &[(64, 101_500.0), (512, 20_500.0), (1024, 9_000.0), (1518, 5_000.0), (128, 1.0)]);
        let mut c = compare_records("A", &[], "B", &[]);
        compare_rfc2544(&mut c, &a, &b);
        let got: Vec<(u32, f64, &str)> =
            c.frames.iter().map(|f| (f.frame_size, f.delta_percent, f.verdict.as_str())).collect();
        // +1.5% is inside B's 2% resolution; +2.5% is not; -10% is worse; from 0 no percentage.
        assert_eq!(
            got,
            [
                (64, 1.5, "within search resolution"),
                (512, 2.5, "better"),
                (1024, -10.0, "worse"),
                (1518, 0.0, "within search resolution")
            ]
        );
        assert_eq!((c.frames[1].a_fps, c.frames[1].b_fps), (20_000.0, 20_500.0));
        let md = to_markdown(&c);
        assert!(md.contains("| 512 | 20000 | 20500 | +2.5% | better |"), "{md}");
        assert!(!md.contains("| cell |"), "no matrix table without cells: {md}");
    }

    fn tester_run(res: f64, rates: &[(u32, f64, f64, bool)]) -> crate::rfc2544_suite::Report {
        use crate::rfc2544_suite::{FrameReport, Options, Report, FORMAT};
        use crate::suite::Throughput;
        let tp = |tol: f64, fps: f64, confirmed: bool| Throughput {
            loss_tolerance_percent: tol,
            fps,
            confirmed,
            search_trials: 3,
            lowest_fail_fps: None,
            tester_limited: false,
            steps: vec![],
        };
        let mut o = Options::default();
        o.search.resolution_percent = res;
        Report {
            format: FORMAT.into(),
            options: o,
            ways: vec![crate::tester::Way::Ab, crate::tester::Way::Ba],
            ceilings: vec![],
            frames: rates
                .iter()
                .map(|&(f, ndr, pdr, confirmed)| FrameReport {
                    frame_size: f,
                    max_fps: crate::records::max_fps(1e9, f),
                    ceiling_fps: Some(130_000.0),
                    top_fps: 130_000.0,
                    ndr: Some(tp(0.0, ndr, confirmed)),
                    pdr: vec![tp(2.0, pdr, pdr > 0.0)],
                    frame_loss: vec![],
                    back_to_back: None,
                    latency: None,
                })
                .collect(),
            deviations: vec![],
            dut: None,
        }
    }

    #[test]
    fn tester_runs_compare_per_size_search_and_direction_in_the_analysers_terms() {
        // A: the slow path; B: the fast path. 64 B: 10,000 -> 12,000 frames/s
        // (+20 %); 1518 B: 8,000 -> 8,100 (+1.25 %, inside 5 %); 512 B only in A.
        let a = tester_run(
            5.0,
            &[(64, 10_000.0, 11_000.0, true), (512, 9_000.0, 9_000.0, true), (1518, 8_000.0, 8_000.0, true)],
        );
        let b = tester_run(1.0, &[(64, 12_000.0, 11_000.0, true), (1518, 8_100.0, 0.0, false)]);
        let mut c = compare_records("slow", &[], "fast", &[]);
        compare_tester(&mut c, &a, &b);
        // 2 sizes x (NDR, PDR 2 %) x 2 directions.
        assert_eq!(c.tester.len(), 8, "{:?}", c.tester);
        let row = |f: u32, tol: f64, dir: &str| {
            c.tester
                .iter()
                .find(|d| d.frame_size == f && d.loss_tolerance_percent == tol && d.direction == dir)
                .unwrap()
        };
        let r = row(64, 0.0, "B->A");
        assert_eq!((r.delta_percent.map(|d| (d * 1e6).round() / 1e6), r.verdict.as_str()), (Some(20.0), "better"));
        // 10,000 frames/s of 64 B: 18 B of payload a frame, 1.44 Mbit/s; 0.672 % of 1,488,095.
        assert!((r.a.payload_mbps - 1.44).abs() < 1e-9 && (r.a.line_percent - 0.672).abs() < 1e-3, "{r:?}");
        assert_eq!(row(1518, 0.0, "A->B").verdict, "within search resolution");
        let p = row(1518, 2.0, "A->B");
        assert_eq!((p.delta_percent, p.verdict.as_str(), p.b.confirmed), (Some(-100.0), "worse", false));
        let md = to_markdown(&c);
        assert!(
            md.contains("| 64 | NDR | A->B | 10000 | 1.440 | 0.7 | 12000 | 1.728 | 0.8 | +20.0% | better | DUT, DUT |"),
            "{md}"
        );
        assert!(
            md.contains(
                "| 1518 | PDR 2 % | B->A | 8000 | 94.208 | 9.8 | 0 (not confirmed) | 0.000 | 0.0 | -100.0% | worse |"
            ),
            "{md}"
        );
        assert!(!md.contains("| 512 |"), "{md}");
    }

    #[test]
    fn a_delta_exactly_at_the_noise_or_resolution_is_within_it() {
        // A 103, 99, 99, 99: mean 100, sd 2 (12 / 3 = 4); B 102, 102: sd 0.
        // Delta (102 - 100) / 100 x 100 and noise 2 sqrt(4/4 + 0/2) / 100 x
        // 100 are the same floating-point operations on 2: equal, bit for bit.
        let a = [103.0, 99.0, 99.0, 99.0].map(|v| rec("x", v));
        for (b, want) in [(102.0, "within noise"), (98.0, "within noise"), (102.5, "better"), (97.5, "worse")] {
            let c = compare_records("A", &a, "B", &[rec("x", b), rec("x", b)]);
            let x = &c.cells[0];
            assert_eq!(x.noise_percent, Some(2.0 / 100.0 * 100.0), "{x:?}");
            assert_eq!(x.verdict, want, "{x:?}");
        }
        // RFC 2544 and tester runs: 8,000 -> 10,000 frames/s is +25 %
        // exactly (0.25 x 100), at a 25 % resolution: within it; at 24.5 %
        // it is better.
        for (res, want) in [(25.0, "within search resolution"), (24.5, "better")] {
            let mut c = compare_records("A", &[], "B", &[]);
            compare_rfc2544(&mut c, &rfc(res, &[(64, 8_000.0)]), &rfc(res, &[(64, 10_000.0)]));
            assert_eq!((c.frames[0].delta_percent, c.frames[0].verdict.as_str()), (25.0, want));
            let mut c = compare_records("A", &[], "B", &[]);
            let (ta, tb) =
                (tester_run(res, &[(64, 8_000.0, 8_000.0, true)]), tester_run(res, &[(64, 10_000.0, 1.0, true)]));
            compare_tester(&mut c, &ta, &tb);
            let ndr = c.tester.iter().find(|d| d.loss_tolerance_percent == 0.0).unwrap();
            assert_eq!((ndr.delta_percent, ndr.verdict.as_str()), (Some(25.0), want));
        }
    }

    #[test]
    fn tester_searches_at_zero_on_both_sides_are_no_change() {
        // NDR 0 on both sides (nothing passed), PDR 0 -> 500: only the PDR
        // is "better (A is 0)".
        let a = tester_run(5.0, &[(64, 0.0, 0.0, false)]);
        let b = tester_run(5.0, &[(64, 0.0, 500.0, true)]);
        let mut c = compare_records("A", &[], "B", &[]);
        compare_tester(&mut c, &a, &b);
        assert_eq!(c.tester.len(), 4, "{:?}", c.tester);
        for d in &c.tester {
            let want = if d.loss_tolerance_percent == 0.0 { "no change (A and B are 0)" } else { "better (A is 0)" };
            assert_eq!((d.delta_percent, d.verdict.as_str()), (None, want), "{d:?}");
        }
    }

    #[test]
    fn a_tester_run_directory_loads_and_a_damaged_one_is_named() {
        let d = tempfile::tempdir().unwrap();
        assert!(load_tester(d.path()).unwrap().is_none());
        let r = tester_run(1.0, &[(64, 1.0, 1.0, true)]);
        std::fs::write(d.path().join("tester.json"), serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(load_tester(d.path()).unwrap(), Some(r));
        // A tester-only directory is a run directory for compare.
        let (recs, rfc) = load_run(d.path()).unwrap();
        assert!(recs.is_empty() && rfc.is_none());
        std::fs::write(d.path().join("tester.json"), "{\"format\": \"x\",\n").unwrap();
        let e = load_tester(d.path()).unwrap_err().to_string();
        let at =
            format!("{}:2:0: EOF while parsing a value; expected the record ", d.path().join("tester.json").display());
        assert!(e.starts_with(&at) && e.ends_with("run the tester again into a new directory"), "{e}");
    }

    /// `compare`'s Markdown, byte for byte (tests/golden/compare/).
    #[test]
    fn compare_markdown_is_the_golden() {
        let mut bound = rec("x", 2e6);
        bound.cpu_bound = vec!["client cpu1 97%".into()];
        let a = vec![bound.clone(), rec("x", 4e6), rec("y", 1e6), rec("z", 0.0), rec("z", 0.0), rec("only-a", 1.0)];
        let b = vec![bound, rec("x", 2e6), rec("y", 2e6), rec("z", 3e6), rec("z", 2e6)];
        let mut c = compare_records("runs/a", &a, "runs/b", &b);
        let ra = rfc(1.0, &[(64, 100_000.0), (512, 20_000.0), (1024, 10_000.0)]);
        let rb = rfc(2.0, &[(64, 101_500.0), (512, 20_500.0), (1024, 9_000.0)]);
        compare_rfc2544(&mut c, &ra, &rb);
        crate::golden::check("compare/compare.md", &to_markdown(&c));
        c.frames.clear();
        c.unmatched.clear();
        crate::golden::check("compare/cells-only.md", &to_markdown(&c));
    }

    #[test]
    fn markdown_rows_of_cells() {
        let mut bound = rec("x", 2e6);
        bound.cpu_bound = vec!["client cpu1 97%".into()];
        let c = compare_records("a", &[bound.clone(), rec("x", 4e6)], "b", &[bound, rec("x", 2e6)]);
        let md = to_markdown(&c);
        // A 2 and 4 Mbit/s (3.0 ± 1.4), B 2 and 2 (2.0 ± 0.0): -33.3%, noise
        // 2 · sqrt(2/2 + 0/2) / 3 = 66.7%.
        assert!(md.starts_with("# zynq-net bench compare\n\nA = `a`, B = `b`\n\n"), "{md}");
        assert!(
            md.contains("| x | 3.0 ± 1.4 (2) | 2.0 ± 0.0 (2) | -33.3% | 66.7% | within noise, CPU-bound in A and B |"),
            "{md}"
        );
        let c = compare_records("a", &[rec("y", 1e6)], "b", &[rec("y", 1e6)]);
        assert!(to_markdown(&c)
            .contains("| y | 1.0 ± 0.0 (1) | 1.0 ± 0.0 (1) | +0.0% | n/a | no noise estimate (1 repeat) |"));
    }

    #[test]
    fn load_run_reads_a_directory_or_a_file() {
        let d = tempfile::tempdir().unwrap();
        let results = d.path().join(files::RESULTS);
        crate::records::append_jsonl(&results, &rec("x", 1.0)).unwrap();
        let (recs, r) = load_run(d.path()).unwrap();
        assert_eq!((recs.len(), r), (1, None));
        std::fs::write(d.path().join(files::RFC2544), serde_json::to_string(&rfc(1.0, &[(64, 1.0)])).unwrap()).unwrap();
        let (_, r) = load_run(d.path()).unwrap();
        assert_eq!(r.unwrap().frames[0].frame_size, 64);
        // The results file itself: no RFC 2544 beside it.
        let (recs, r) = load_run(&results).unwrap();
        assert_eq!((recs.len(), r.is_none()), (1, true));
        // An RFC 2544 result alone is enough.
        std::fs::remove_file(&results).unwrap();
        assert!(load_run(d.path()).unwrap().0.is_empty());
        std::fs::write(d.path().join(files::RFC2544), "{").unwrap();
        let e = load_run(d.path()).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{}:1:1: EOF while parsing", d.path().join(files::RFC2544).display())), "{e}");
        let empty = tempfile::tempdir().unwrap();
        let e = load_run(empty.path()).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "{}: no results.jsonl, rfc2544.json or tester.json in this directory: not a run directory of `zynq-net bench run`, `bench rfc2544` or `bench rfc2544-tester`",
                empty.path().display()
            )
        );
        // Each bad input says what is wrong with it.
        let missing = empty.path().join("nope");
        let e = load_run(&missing).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{}: ", missing.display())) && e.contains("No such file"), "{e}");
        let blank = empty.path().join("blank.jsonl");
        std::fs::write(&blank, "").unwrap();
        let e = load_run(&blank).unwrap_err().to_string();
        assert_eq!(e, format!("{}: empty: no trial records (one JSON object per line)", blank.display()));
        // A results file of a run directory that holds no whole record (a
        // torn line alone) is named, not the directory called empty; a
        // whole line that is not JSON is an error at its line.
        let torn = tempfile::tempdir().unwrap();
        let r = torn.path().join(files::RESULTS);
        std::fs::write(&r, "{\"cell\":").unwrap();
        let e = load_run(torn.path()).unwrap_err().to_string();
        assert_eq!(e, format!("{}: no trial records (one JSON object per line)", r.display()));
        std::fs::write(&r, "{bad\n").unwrap();
        let e = load_run(torn.path()).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "{}:1:2: key must be a string: not a JSON record (one object per line, as the bench commands append them); remove the line",
                r.display()
            )
        );
    }
}
