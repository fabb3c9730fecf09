//! SVG charts of the reports, drawn with plotters' SVG backend (no bitmap,
//! font or image dependencies: text is left to the browser as SVG `<text>`).
//!
//! - [`rfc2544`]: frame size vs frames/s (log), with the line-rate curve;
//! - [`cells`]: throughput per matrix cell, ±sd whiskers, red when CPU-bound;
//! - [`cpu`]: stacked per-core usr/sys/irq/softirq bars with the CPU-bound line;
//! - [`effects`]: each ablation group's effect with its interval.
//!
//! A chart that cannot be drawn (a plotters error: a bug, not bad data)
//! comes back as a small SVG saying so, so a report is never lost to it.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::cpu::CoreLoad;
use crate::records::{max_fps, CellSummary, Rfc2544Result};
use crate::stats::Verdict;
use crate::table::esc;

/// Throughput bars (not CPU-bound).
pub const TEAL: RGBColor = RGBColor(0x0d, 0x94, 0x88);
/// CPU-bound bars, hurting groups.
pub const RED: RGBColor = RGBColor(0xdc, 0x26, 0x26);
/// usr share, measured RFC 2544 points.
pub const BLUE: RGBColor = RGBColor(0x25, 0x63, 0xeb);
/// sys share, helping groups.
pub const GREEN: RGBColor = RGBColor(0x16, 0xa3, 0x4a);
/// irq share, unconfirmed RFC 2544 points.
pub const AMBER: RGBColor = RGBColor(0xf5, 0x9e, 0x0b);
/// softirq share.
pub const PURPLE: RGBColor = RGBColor(0x93, 0x33, 0xea);
/// No measurable effect.
pub const GREY: RGBColor = RGBColor(0x6b, 0x72, 0x80);
/// Minor grid lines.
const LIGHT: RGBColor = RGBColor(0xf2, 0xf2, 0xf2);
/// The line-rate curve.
pub const LINE_RATE: RGBColor = RGBColor(0xcc, 0x33, 0x33);

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type DrawResult = Result<(), Box<dyn std::error::Error>>;
/// A share of a CPU bar: name, colour, value of a core.
type Share = (&'static str, RGBColor, fn(&CoreLoad) -> f64);

/// Runs `draw` on a fresh `w`×`h` SVG and returns the document.
fn svg(w: u32, h: u32, label: &str, draw: impl FnOnce(&Area<'_>) -> DrawResult) -> String {
    let mut s = String::new();
    let res = {
        let root = SVGBackend::with_string(&mut s, (w, h)).into_drawing_area();
        let r = root.fill(&WHITE).map_err(|e| e.to_string()).and_then(|()| draw(&root).map_err(|e| e.to_string()));
        r.and_then(|()| root.present().map_err(|e| e.to_string()))
    };
    match res {
        Ok(()) => s.replacen("<svg ", &format!("<svg role=\"img\" aria-label=\"{}\" ", esc(label)), 1),
        Err(e) => format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"40\"><text x=\"4\" y=\"20\" font-size=\"12\">chart `{}` could not be drawn: {}</text></svg>",
            esc(label),
            esc(&e)
        ),
    }
}

fn font(size: u32) -> TextStyle<'static> {
    ("sans-serif", size).into_font().into()
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

fn seg_index(v: &SegmentValue<i32>) -> Option<usize> {
    match v {
        SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => usize::try_from(*i).ok(),
        SegmentValue::Last => None,
    }
}

/// Frame size vs frames/s (log scale): measured zero-loss rates (blue,
/// amber when not confirmed) and the line-rate maximum (dashed).
pub fn rfc2544(x: &Rfc2544Result) -> String {
    svg(640, 360, "RFC 2544 frames per second", |root| {
        let sizes = x.frames.iter().map(|f| f.frame_size);
        let fmin = sizes.clone().min().unwrap_or(64).min(64) as f64;
        let fmax = sizes.max().unwrap_or(1518).max(1518) as f64;
        let ymax = max_fps(x.line_rate_bps, fmin as u32) * 1.2;
        let ymin_pos =
            x.frames.iter().map(|f| f.fps).filter(|v| *v > 0.0).fold(max_fps(x.line_rate_bps, fmax as u32), f64::min);
        let ymin = 10f64.powf((ymin_pos / 2.0).log10().floor());
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(fmin..fmax, (ymin..ymax).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("frame size (bytes)")
            .y_desc("frames/s (log)")
            .y_label_formatter(&|v| human(*v))
            .x_label_formatter(&|v| format!("{v:.0}"))
            .label_style(font(11))
            .light_line_style(LIGHT)
            .draw()?;
        let curve: Vec<(f64, f64)> = (0..=80)
            .map(|i| {
                let f = fmin + (fmax - fmin) * f64::from(i) / 80.0;
                (f, max_fps(x.line_rate_bps, f as u32))
            })
            .collect();
        chart
            .draw_series(DashedLineSeries::new(curve, 6, 4, LINE_RATE.stroke_width(2)))?
            .label(format!("line rate {:.1} Mbit/s", x.line_rate_bps / 1e6))
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], LINE_RATE.stroke_width(2)));
        let mut pts: Vec<(f64, f64, bool)> =
            x.frames.iter().filter(|f| f.fps > 0.0).map(|f| (f64::from(f.frame_size), f.fps, f.confirmed)).collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        chart
            .draw_series(LineSeries::new(pts.iter().map(|p| (p.0, p.1)), BLUE.stroke_width(2)))?
            .label("measured (zero loss)")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE.stroke_width(2)));
        chart.draw_series(
            pts.iter().map(|p| Circle::new((p.0, p.1), 4, if p.2 { BLUE.filled() } else { AMBER.filled() })),
        )?;
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(font(11))
            .draw()?;
        Ok(())
    })
}

/// Horizontal throughput bars per cell (Mbit/s), ±sd whiskers; teal, or red
/// when a repeat was CPU-bound.
pub fn cells(cells: &[CellSummary]) -> String {
    let h = 60 + 26 * cells.len() as u32;
    svg(700, h, "throughput per cell", |root| {
        let n = cells.len() as i32;
        let max = cells.iter().map(|c| (c.throughput.mean + c.throughput.sd) / 1e6).fold(1.0, f64::max) * 1.1;
        let names: Vec<String> = cells.iter().map(|c| c.cell.clone()).collect();
        // Row i of the list is drawn in segment n-1-i: the first at the top.
        let top = |i: usize| cells.len().checked_sub(i + 1);
        let mut chart = ChartBuilder::on(root)
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(180)
            .build_cartesian_2d(0.0..max, (0..(n - 1).max(0)).into_segmented())?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_desc("Mbit/s (mean ± sd; red: CPU-bound)")
            .y_labels(cells.len().max(1))
            .y_label_formatter(&|v| seg_index(v).and_then(|i| names.get(top(i)?).cloned()).unwrap_or_default())
            .label_style(font(11))
            .light_line_style(LIGHT)
            .draw()?;
        chart.draw_series(cells.iter().enumerate().map(|(i, c)| {
            let i = top(i).unwrap_or(0);
            let color = if c.cpu_bound.is_empty() { TEAL } else { RED };
            let mut r = Rectangle::new(
                [(0.0, SegmentValue::Exact(i as i32)), (c.throughput.mean / 1e6, SegmentValue::Exact(i as i32 + 1))],
                color.filled(),
            );
            r.set_margin(4, 4, 0, 0);
            r
        }))?;
        chart.draw_series(cells.iter().enumerate().filter(|(_, c)| c.throughput.n > 1).map(|(i, c)| {
            let i = top(i).unwrap_or(0);
            let (m, sd) = (c.throughput.mean / 1e6, c.throughput.sd / 1e6);
            ErrorBar::new_horizontal(SegmentValue::CenterOf(i as i32), m - sd, m, m + sd, BLACK.filled(), 8)
        }))?;
        Ok(())
    })
}

/// Stacked per-core bars (usr, sys, irq, softirq; percent) of every
/// machine for one cell, with the CPU-bound threshold dashed.
pub fn cpu(machines: &[(String, Vec<CoreLoad>)], threshold: f64) -> String {
    let bars: Vec<(String, &CoreLoad)> = machines
        .iter()
        .flat_map(|(role, cores)| {
            cores.iter().map(move |c| {
                let label = if machines.len() > 1 { format!("{role} cpu{}", c.cpu) } else { format!("cpu{}", c.cpu) };
                (label, c)
            })
        })
        .collect();
    let w = (120 + 40 * bars.len() as u32).max(420);
    let caption: Vec<&str> = machines.iter().map(|(r, _)| r.as_str()).collect();
    svg(w, 230, "per-core CPU load", |root| {
        let n = bars.len() as i32;
        let mut chart = ChartBuilder::on(root)
            .margin(10)
            .caption(caption.join(", "), font(11))
            .x_label_area_size(30)
            .y_label_area_size(40)
            .build_cartesian_2d((0..(n - 1).max(0)).into_segmented(), 0.0..100.0)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(bars.len().max(1))
            .x_label_formatter(&|v| seg_index(v).and_then(|i| bars.get(i).map(|b| b.0.clone())).unwrap_or_default())
            .y_label_formatter(&|v| format!("{v:.0}%"))
            .label_style(font(10))
            .light_line_style(LIGHT)
            .draw()?;
        let parts: [Share; 4] = [
            ("usr", BLUE, |c| c.usr),
            ("sys", GREEN, |c| c.sys),
            ("irq", AMBER, |c| c.irq),
            ("softirq", PURPLE, |c| c.softirq),
        ];
        let mut base = vec![0.0; bars.len()];
        for (name, color, get) in parts {
            let rects: Vec<Rectangle<(SegmentValue<i32>, f64)>> = bars
                .iter()
                .enumerate()
                .filter(|(_, (_, c))| get(c) > 0.0)
                .map(|(i, (_, c))| {
                    let (b, v) = (base[i], get(c));
                    let mut r = Rectangle::new(
                        [(SegmentValue::Exact(i as i32), b), (SegmentValue::Exact(i as i32 + 1), b + v)],
                        color.filled(),
                    );
                    r.set_margin(0, 0, 5, 5);
                    r
                })
                .collect();
            for (i, (_, c)) in bars.iter().enumerate() {
                base[i] += get(c);
            }
            chart
                .draw_series(rects)?
                .label(name)
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
        }
        chart
            .draw_series(DashedLineSeries::new(
                vec![(SegmentValue::Exact(0), threshold), (SegmentValue::Last, threshold)],
                4,
                3,
                RED.stroke_width(1),
            ))?
            .label(format!("CPU-bound {threshold:.0}%"))
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 10, y)], RED.stroke_width(1)));
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(font(10))
            .draw()?;
        Ok(())
    })
}

/// One row of an effects chart.
#[derive(Debug, Clone, PartialEq)]
pub struct EffectRow {
    /// Label (group name).
    pub label: String,
    /// Estimate, percent.
    pub percent: f64,
    /// Interval, percent (infinite: no interval).
    pub low: f64,
    /// Interval, percent.
    pub high: f64,
    /// Verdict (colour).
    pub verdict: Verdict,
}

/// Each group's effect with its interval, on a log-ratio axis labelled in
/// percent (so that ×2 and ×½ are equally far from zero): green helps, red
/// hurts, grey no measurable effect; a line at zero.
pub fn effects(title: &str, rows: &[EffectRow]) -> String {
    let h = 80 + 30 * rows.len() as u32;
    svg(720, h, &format!("effects {title}"), |root| {
        // ln(1 + p/100); -100% and below (or no interval) fall off the axis.
        let lr = |p: f64| if p.is_finite() && p > -99.9 { (1.0 + p / 100.0).ln() } else { f64::NAN };
        let vals: Vec<f64> =
            rows.iter().flat_map(|r| [lr(r.low), lr(r.percent), lr(r.high)]).filter(|v| v.is_finite()).collect();
        let lo = vals.iter().copied().fold(0.0, f64::min);
        let hi = vals.iter().copied().fold(0.0, f64::max);
        let pad = ((hi - lo) * 0.08).max(0.05);
        let (lo, hi) = (lo - pad, hi + pad);
        let clamp = |v: f64, dflt: f64| if v.is_finite() { v.clamp(lo, hi) } else { dflt };
        let n = rows.len() as i32;
        let names: Vec<String> = rows.iter().map(|r| r.label.clone()).collect();
        let top = |i: usize| rows.len().checked_sub(i + 1);
        let mut chart = ChartBuilder::on(root)
            .margin(10)
            .caption(title, font(13))
            .x_label_area_size(36)
            .y_label_area_size(170)
            .build_cartesian_2d(lo..hi, (0..(n - 1).max(0)).into_segmented())?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_desc("effect of the group on throughput (log scale), with its interval")
            .x_label_formatter(&|v| format!("{:+.0}%", (v.exp() - 1.0) * 100.0))
            .y_labels(rows.len().max(1))
            .y_label_formatter(&|v| seg_index(v).and_then(|i| names.get(top(i)?).cloned()).unwrap_or_default())
            .label_style(font(11))
            .light_line_style(LIGHT)
            .draw()?;
        chart.draw_series(LineSeries::new(
            vec![(0.0, SegmentValue::Exact(0)), (0.0, SegmentValue::Last)],
            BLACK.stroke_width(1),
        ))?;
        let colour = |v: Verdict| match v {
            Verdict::Helps => GREEN,
            Verdict::Hurts => RED,
            Verdict::NoEffect => GREY,
        };
        chart.draw_series(rows.iter().enumerate().map(|(i, r)| {
            let i = top(i).unwrap_or(0);
            let m = clamp(lr(r.percent), lo);
            ErrorBar::new_horizontal(
                SegmentValue::CenterOf(i as i32),
                clamp(lr(r.low), lo),
                m,
                clamp(lr(r.high), hi),
                colour(r.verdict).stroke_width(3),
                12,
            )
        }))?;
        chart.draw_series(rows.iter().enumerate().map(|(i, r)| {
            let i = top(i).unwrap_or(0);
            Circle::new((clamp(lr(r.percent), lo), SegmentValue::CenterOf(i as i32)), 5, colour(r.verdict).filled())
        }))?;
        Ok(())
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    #[test]
    fn axis_numbers_are_short() {
        assert_eq!(super::human(2.5e9), "2500M");
        assert_eq!(super::human(1e6), "1M");
        assert_eq!(super::human(999_999.0), "999.999k");
        assert_eq!(super::human(1e3), "1k");
        assert_eq!(super::human(999.0), "999");
    }

    use super::*;

    #[test]
    fn effects_chart_draws_every_row_in_its_colour() {
        let rows = vec![
            EffectRow { label: "offloads".into(), percent: -60.0, low: -70.0, high: -50.0, verdict: Verdict::Hurts },
            EffectRow { label: "sysctl".into(), percent: 40.0, low: 20.0, high: 60.0, verdict: Verdict::Helps },
            EffectRow { label: "xps".into(), percent: 1.0, low: -5.0, high: 7.0, verdict: Verdict::NoEffect },
        ];
        let s = effects("tcp-rx", &rows);
        assert!(s.starts_with("<svg role=\"img\""), "{}", &s[..80.min(s.len())]);
        for l in ["offloads", "sysctl", "xps", "(log scale)", "%\n</text>"] {
            assert!(s.contains(l), "label {l} missing");
        }
        for c in ["#DC2626", "#16A34A", "#6B7280"] {
            assert!(s.to_uppercase().contains(c), "colour {c} missing");
        }
        assert!(!s.contains("could not be drawn"));
    }

    #[test]
    fn the_effects_axis_pads_8_percent_of_the_span_beyond_each_end() {
        // +100 % and -50 %: ln 2 and ln 0.5 on the log axis, which then
        // spans 2 ln 2 plus 8 % of that on either side (0.08 x 2 ln 2 =
        // 0.111 is over the 0.05 floor), so the gap from each point to its end of
        // the axis is 8/100 of the distance between the points.
        let row = |label: &str, low: f64, percent: f64, verdict| EffectRow {
            label: label.into(),
            percent,
            low,
            high: percent,
            verdict,
        };
        let rows = [row("a", 100.0, 100.0, Verdict::Helps), row("b", -50.0, -50.0, Verdict::Hurts)];
        let s = effects("t", &rows);
        let (left, right) = x_axis(&s);
        let (green, red) = (circles(&s, GREEN), circles(&s, RED));
        // Each point is a dot and the error bar's mark, both at the estimate.
        assert_eq!((green.len(), red.len()), (2, 2), "{s}");
        assert!(green[0].0 == green[1].0 && red[0].0 == red[1].0, "{s}");
        let (g, r) = (green[0].0, red[0].0);
        let gap = 0.08 * (g - r);
        assert!((r - left - gap).abs() <= 2.0 && (right - g - gap).abs() <= 2.0, "{left} {r} {g} {right}");
        // A low end at -99.9 % (or below) falls off the axis: the axis and
        // the points stay where they were.
        let off = [rows[0].clone(), row("b", -99.9, -50.0, Verdict::Hurts)];
        let t = effects("t", &off);
        assert_eq!(x_axis(&t), (left, right));
        assert_eq!((circles(&t, GREEN), circles(&t, RED)), (green, red), "{t}");
    }

    /// The x range (pixels) of the horizontal axis line: the one
    /// horizontal polyline longer than 300 px (plotters draws the axis as
    /// `<polyline ... points="X1,Y X2,Y "/>`).
    fn x_axis(svg: &str) -> (f64, f64) {
        let lines: Vec<(f64, f64)> = svg
            .split("points=\"")
            .skip(1)
            .filter_map(|r| {
                let p: Vec<f64> = r[..r.find('"')?].split([' ', ',']).filter_map(|v| v.parse().ok()).collect();
                (p.len() == 4 && p[1] == p[3] && p[2] - p[0] > 300.0).then_some((p[0], p[2]))
            })
            .collect();
        assert_eq!(lines.len(), 1, "{svg}");
        lines[0]
    }

    #[test]
    fn cpu_chart_has_the_four_shares_and_the_threshold() {
        let core = |cpu| CoreLoad { cpu, usr: 20.0, sys: 10.0, irq: 5.0, softirq: 30.0, idle: 35.0 };
        let s = cpu(&[("client+server+dut".into(), vec![core(0), core(1)])], 95.0);
        for c in ["#2563EB", "#16A34A", "#F59E0B", "#9333EA", "#DC2626"] {
            assert!(s.to_uppercase().contains(c), "colour {c} missing");
        }
        assert!(s.contains("cpu1") && s.contains("CPU-bound 95%"));
    }

    /// `(x, y, width, height)` of every `<rect>` filled with `colour`
    /// wider than a legend swatch (plotters writes `fill="#RRGGBB"`).
    fn rects(svg: &str, colour: RGBColor) -> Vec<(f64, f64, f64, f64)> {
        let fill = format!("fill=\"#{:02X}{:02X}{:02X}\"", colour.0, colour.1, colour.2);
        svg.split("<rect")
            .skip(1)
            .map(|r| &r[..r.find("/>").unwrap_or(r.len())])
            .filter(|r| r.to_uppercase().contains(&fill.to_uppercase()))
            .map(|r| (attr(r, "x"), attr(r, "y"), attr(r, "width"), attr(r, "height")))
            .filter(|r| r.2 > 12.0)
            .collect()
    }

    fn circles(svg: &str, colour: RGBColor) -> Vec<(f64, f64)> {
        let fill = format!("#{:02X}{:02X}{:02X}", colour.0, colour.1, colour.2);
        svg.split("<circle")
            .skip(1)
            .map(|r| &r[..r.find("/>").unwrap_or(r.len())])
            .filter(|r| r.to_uppercase().contains(&fill))
            .map(|r| (attr(r, "cx"), attr(r, "cy")))
            .collect()
    }

    fn width_of(svg: &str) -> u32 {
        let i = svg.find("width=\"").unwrap() + 7;
        svg[i..i + svg[i..].find('"').unwrap()].parse().unwrap()
    }

    #[test]
    fn cell_bars_are_as_long_as_their_throughput() {
        use crate::stats::Stats;
        let cell = |name: &str, mean: f64, sd: f64, n: usize, bound: bool| CellSummary {
            cell: name.into(),
            throughput: Stats { mean, sd, n },
            cpu_bound: if bound { vec!["dut cpu0 99%".into()] } else { vec![] },
            failed: 0,
            cpu: vec![],
            notes: vec![],
        };
        let s = cells(&[cell("fast", 200e6, 0.0, 1, false), cell("slow", 100e6, 10e6, 3, true)]);
        assert!(s.contains("height=\"112\""), "60 + 26 per cell");
        let (teal, red) = (rects(&s, TEAL), rects(&s, RED));
        assert_eq!((teal.len(), red.len()), (1, 1), "{s}");
        // Bars start at the same x and end at 200 and 100 Mbit/s.
        assert!((teal[0].0 - red[0].0).abs() < 1.0);
        assert!((teal[0].2 / red[0].2 - 2.0).abs() < 0.03, "{teal:?} {red:?}");
        assert!(teal[0].1 < red[0].1, "the first cell is drawn on top");
        // The axis reaches 1.1 × the largest mean + sd: the 200 Mbit/s bar
        // takes 1/1.1 of the plot width (700 px less margins and labels).
        assert!(teal[0].2 > 0.8 * (700.0 - 180.0 - 20.0) / 1.1 && teal[0].2 < (700.0 - 180.0) / 1.1, "{teal:?}");
        assert!(s.contains("fast") && s.contains("slow"));
    }

    #[test]
    fn cpu_bars_stack_the_four_shares() {
        let core = |cpu| CoreLoad { cpu, usr: 20.0, sys: 10.0, irq: 5.0, softirq: 30.0, idle: 35.0 };
        let s = cpu(&[("dut".into(), vec![core(0), core(1)])], 95.0);
        assert_eq!(width_of(&s), 420, "at least 420 px");
        let (usr, sys, irq, soft) = (rects(&s, BLUE), rects(&s, GREEN), rects(&s, AMBER), rects(&s, PURPLE));
        assert_eq!((usr.len(), sys.len(), irq.len(), soft.len()), (2, 2, 2, 2), "{s}");
        for i in 0..2 {
            // heights in proportion 20 : 10 : 5 : 30 (whole pixels)
            let unit = (usr[i].3 + sys[i].3 + irq[i].3 + soft[i].3) / 65.0;
            for (r, share) in [(usr[i], 20.0), (sys[i], 10.0), (irq[i], 5.0), (soft[i], 30.0)] {
                assert!((r.3 - share * unit).abs() < 1.5, "{share}%: {r:?}, {unit} px per %");
            }
            // stacked bottom-up: usr, sys, irq, softirq, each on top of the last
            assert!((sys[i].1 + sys[i].3 - usr[i].1).abs() < 1.5, "{sys:?} on {usr:?}");
            assert!((irq[i].1 + irq[i].3 - sys[i].1).abs() < 1.5);
            assert!((soft[i].1 + soft[i].3 - irq[i].1).abs() < 1.5);
        }
        assert!(usr[0].0 < usr[1].0, "cpu0 left of cpu1");
        // The legend: a 10 × 10 swatch in each share's colour, beside its name.
        for (colour, name) in [(BLUE, "usr"), (GREEN, "sys"), (AMBER, "irq"), (PURPLE, "softirq")] {
            let fill = format!("fill=\"#{:02X}{:02X}{:02X}\"", colour.0, colour.1, colour.2);
            let swatches =
                s.split("<rect").filter(|r| r.contains(&fill) && r.contains(" width=\"10\" height=\"10\"")).count();
            assert_eq!(swatches, 1, "{name}: {s}");
            assert!(s.contains(&format!("\n{name}\n")), "{name}");
        }
        // One machine: bars named by core only; more machines: by role too.
        assert!(s.contains("\ncpu1\n") && !s.contains("dut cpu1"), "{s}");
        let many: Vec<CoreLoad> = (0..10).map(core).collect();
        let s = cpu(&[("client".into(), many.clone()), ("server".into(), vec![core(0)])], 90.0);
        assert_eq!(width_of(&s), 120 + 40 * 11);
        assert!(s.contains("server cpu0") && s.contains("client cpu9") && s.contains("CPU-bound 90%"));
    }

    #[test]
    fn rfc2544_points_and_their_colours() {
        use crate::records::{FrameResult, Rfc2544Result};
        let frame = FrameResult::bare;
        let x = Rfc2544Result {
            format: String::new(),
            line_rate_bps: 1e9,
            settings: crate::spec::Rfc2544Spec::default(),
            frames: vec![frame(1518, 80_000.0, true), frame(64, 300_000.0, false), frame(512, 0.0, true)],
            deviations: vec![],
        };
        let s = rfc2544(&x);
        assert!(!s.contains("could not be drawn"), "a frame size with nothing passed is left out: {s}");
        let (blue, amber) = (circles(&s, BLUE), circles(&s, AMBER));
        assert_eq!((blue.len(), amber.len()), (1, 1), "{s}");
        // 64 B left of 1518 B, and higher (more frames/s).
        assert!(amber[0].0 < blue[0].0 && amber[0].1 < blue[0].1, "{amber:?} {blue:?}");
        assert!(s.contains("line rate 1000.0 Mbit/s"));
        // The dashed line-rate curve runs across the whole frame-size axis
        // (64 to 1518 B: most of the 640 px wide chart).
        let xs: Vec<f64> = polylines(&s, "#CC3333").into_iter().flatten().map(|p| p.0).collect();
        let span = xs.iter().cloned().fold(f64::MIN, f64::max) - xs.iter().cloned().fold(f64::MAX, f64::min);
        assert!(span > 450.0, "line-rate curve spans {span} px: {s}");
        // The log axis starts at the decade below half the slowest measured
        // rate (80,000 / 2: 10k), not at the frame size that passed nothing.
        assert!(s.contains("\n10k\n") && !s.contains("\n1k\n"), "{s}");
    }

    /// The value of attribute `k` in an element's text.
    fn attr(e: &str, k: &str) -> f64 {
        let i = e.find(&format!(" {k}=\"")).unwrap() + k.len() + 3;
        e[i..i + e[i..].find('"').unwrap()].parse().unwrap()
    }

    /// The points of every `<polyline>` stroked `colour` (`#RRGGBB`).
    fn polylines(svg: &str, colour: &str) -> Vec<Vec<(f64, f64)>> {
        svg.split("<polyline")
            .skip(1)
            .map(|r| &r[..r.find("/>").unwrap_or(r.len())])
            .filter(|r| r.to_uppercase().contains(&format!("STROKE=\"{colour}\"")))
            .map(|r| {
                let i = r.find("points=\"").unwrap() + 8;
                r[i..i + r[i..].find('"').unwrap()]
                    .split_whitespace()
                    .map(|p| p.split_once(',').map(|(x, y)| (x.parse().unwrap(), y.parse().unwrap())).unwrap())
                    .collect()
            })
            .collect()
    }

    /// `(x1, y1, x2, y2)` of every opaque `<line>` stroked `colour`.
    fn lines(svg: &str, colour: &str) -> Vec<(f64, f64, f64, f64)> {
        svg.split("<line")
            .skip(1)
            .map(|r| &r[..r.find("/>").unwrap_or(r.len())])
            .filter(|r| r.contains(" opacity=\"1\"") && r.to_uppercase().contains(&format!("STROKE=\"{colour}\"")))
            .map(|r| (attr(r, "x1"), attr(r, "y1"), attr(r, "x2"), attr(r, "y2")))
            .collect()
    }

    /// The y range (pixels, top first) of the vertical axis: the leftmost
    /// vertical black polyline over 40 px (a zero line is right of it).
    fn y_axis(svg: &str) -> (f64, f64) {
        let v = polylines(svg, "#000000")
            .into_iter()
            .filter(|p| p.len() == 2 && p[0].0 == p[1].0 && (p[0].1 - p[1].1).abs() > 40.0)
            .min_by(|a, b| a[0].0.total_cmp(&b[0].0))
            .unwrap();
        (v[0].1.min(v[1].1), v[0].1.max(v[1].1))
    }

    fn near(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1.5
    }

    #[test]
    fn cell_rows_tile_the_plot_and_whiskers_span_mean_plus_minus_sd() {
        use crate::stats::Stats;
        let cell = |name: &str, mean: f64, sd: f64, n: usize| CellSummary {
            cell: name.into(),
            throughput: Stats { mean, sd, n },
            cpu_bound: vec![],
            failed: 0,
            cpu: vec![],
            notes: vec![],
        };
        // b's mean + sd (150 Mbit/s) is the largest: the axis ends at 1.1 x 150.
        let s = cells(&[cell("a", 120e6, 0.0, 1), cell("b", 100e6, 50e6, 3), cell("c", 60e6, 0.0, 1)]);
        let ((left, right), (top, bottom)) = (x_axis(&s), y_axis(&s));
        let x = |mbit: f64| left + (right - left) * mbit / 165.0;
        let row = (bottom - top) / 3.0;
        let bars = rects(&s, TEAL);
        assert_eq!(bars.len(), 3, "{s}");
        for (i, (b, mbit)) in bars.iter().zip([120.0, 100.0, 60.0]).enumerate() {
            // Row i from the top, less 4 px above and below; as long as the mean.
            let want = (left, top + row * i as f64 + 4.0, x(mbit) - left, row - 8.0);
            assert!(near(b.0, want.0) && near(b.1, want.1) && near(b.2, want.2) && near(b.3, want.3), "{b:?} {want:?}");
        }
        // One whisker, b's (n = 3; n = 1 has no sd): 50 to 150 Mbit/s across
        // the middle of its row, its mean marked.
        let whiskers: Vec<_> = lines(&s, "#000000").into_iter().filter(|l| l.1 == l.3).collect();
        assert_eq!(whiskers.len(), 1, "{s}");
        let (x1, y1, x2, _) = whiskers[0];
        assert!(near(x1, x(50.0)) && near(x2, x(150.0)) && near(y1, top + 1.5 * row), "{whiskers:?}");
        let dots = circles(&s, BLACK);
        assert!(dots.len() == 1 && near(dots[0].0, x(100.0)) && near(dots[0].1, y1), "{dots:?}");
    }

    #[test]
    fn rfc2544_axes_span_the_line_rate_curve_and_the_slowest_rate() {
        use crate::records::FrameResult;
        let frame = FrameResult::bare;
        let x = Rfc2544Result {
            format: String::new(),
            line_rate_bps: 1e9,
            settings: crate::spec::Rfc2544Spec::default(),
            frames: vec![frame(64, 1e6, true), frame(1518, 5_000.0, true)],
            deviations: vec![],
        };
        let s = rfc2544(&x);
        // From the decade under half the slowest rate (2,500 frames/s: 1k).
        assert!(s.contains("\n1k\n"), "{s}");
        let ((left, right), (top, bottom)) = (x_axis(&s), y_axis(&s));
        // The dashed line-rate curve (6 px dashes; the legend's is 20 px)
        // runs from 64 B at the left end to 1518 B at the right.
        let pts: Vec<(f64, f64)> = polylines(&s, "#CC3333")
            .into_iter()
            .filter(|p| p.len() == 2 && (p[1].0 - p[0].0).hypot(p[1].1 - p[0].1) < 10.0)
            .flatten()
            .collect();
        let first = pts.iter().copied().min_by(|a, b| a.0.total_cmp(&b.0)).unwrap();
        let last = pts.iter().copied().max_by(|a, b| a.0.total_cmp(&b.0)).unwrap();
        // log axis from 1k to 1.2 x the 64-byte line rate
        let (lo, hi) = (1e3f64.ln(), (1.2 * max_fps(1e9, 64)).ln());
        let y = |fps: f64| bottom - (bottom - top) * (fps.ln() - lo) / (hi - lo);
        assert!(near(first.0, left) && near(first.1, y(max_fps(1e9, 64))), "{first:?} {left} {top}..{bottom}");
        assert!((last.0 - right).abs() <= 3.0 && near(last.1, y(max_fps(1e9, 1518))), "{last:?} {right}");
    }

    #[test]
    fn cpu_bars_tile_the_axis_and_empty_shares_are_not_drawn() {
        let core = |cpu, irq| CoreLoad { cpu, usr: 20.0, sys: 10.0, irq, softirq: 30.0, idle: 40.0 - irq };
        let s = cpu(&[("dut".into(), vec![core(0, 0.0), core(1, 5.0), core(2, 0.0)])], 95.0);
        let (left, right) = x_axis(&s);
        let slot = (right - left) / 3.0;
        let usr = rects(&s, BLUE);
        assert_eq!(usr.len(), 3, "{s}");
        for (i, r) in usr.iter().enumerate() {
            assert!(near(r.0, left + slot * i as f64 + 5.0) && near(r.2, slot - 10.0), "{r:?} {left}..{right}");
        }
        // irq is 0 on cpu0 and cpu2: one irq bar, on cpu1.
        let irq = rects(&s, AMBER);
        assert!(irq.len() == 1 && near(irq[0].0, usr[1].0), "{irq:?}");
        // The threshold's legend mark is a 10 px line where the shares' swatches are.
        let swatch =
            s.split("<rect").find(|r| r.contains(" width=\"10\" height=\"10\"")).map(|r| attr(r, "x")).unwrap();
        let marks: Vec<_> = polylines(&s, "#DC2626")
            .into_iter()
            .filter(|p| p.len() == 2 && p[0].1 == p[1].1 && (p[1].0 - p[0].0).abs() == 10.0)
            .collect();
        assert!(marks.len() == 1 && marks[0][0].0 == swatch && marks[0][1].0 == swatch + 10.0, "{marks:?} {swatch}");
    }

    #[test]
    fn effects_rows_tile_the_plot() {
        let row = |label: &str, low: f64, percent: f64, high: f64, verdict| EffectRow {
            label: label.into(),
            percent,
            low,
            high,
            verdict,
        };
        let rows = [
            row("a", 10.0, 20.0, 30.0, Verdict::Helps),
            row("b", -30.0, -20.0, -10.0, Verdict::Hurts),
            row("c", -5.0, 0.0, 5.0, Verdict::NoEffect),
        ];
        let s = effects("t", &rows);
        assert!(s.contains(" width=\"720\" height=\"170\" "), "80 + 30 per row: {}", &s[..120]);
        let (top, bottom) = y_axis(&s);
        let h = (bottom - top) / 3.0;
        for (i, colour) in [GREEN, RED, GREY].into_iter().enumerate() {
            let c = circles(&s, colour);
            assert!(c.len() == 2 && c.iter().all(|p| near(p.1, top + h * (i as f64 + 0.5))), "row {i}: {c:?}");
        }
    }
}
