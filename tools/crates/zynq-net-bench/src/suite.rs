//! The RFC 2544 tests (RFC 2544 §26) over any two-port trial, as pure
//! searches: each takes a closure that runs one trial — `count` frames per
//! direction at `fps` frames/s each (0: as fast as the generator can), all
//! directions at once — and returns what each direction sent and what the
//! far port counted ([`DirTrial`]). [`crate::tester::Tester::trial`] is the
//! real one; the unit tests below drive simulated DUTs.
//!
//! - [`throughput`] (§26.1): the highest rate at which every direction
//!   loses no more than the tolerance (0: NDR, the RFC's throughput; a
//!   percentage: PDR, as TRex's ndr_bench calls it), by a binary search of
//!   `trial_seconds` trials seeded by the far ports' receive rate of the
//!   first (overloaded) trial, ending when the pass/fail bracket is within
//!   the resolution or the trial budget is spent, then checked by one final
//!   full-length trial (stepping down by the resolution, at most twice);
//! - [`frame_loss`] (§26.3): loss at 100 % of the top rate, then down in
//!   steps of at most 10 %, until two successive trials lose nothing;
//! - [`back_to_back`] (§26.4): the longest burst at the generator's full
//!   speed that loses nothing, by a binary search on the burst length,
//!   repeated.

use crate::error::BenchError;
use crate::tester::DirTrial;

/// The records this module produces ([`crate::records::tester`]).
pub use crate::records::tester::{BackToBack, LossStep, SearchSettings, SearchStep, Throughput};

/// The warnings of a trial's directions ([`DirTrial::surplus_note`]).
pub fn notes_of(dirs: &[DirTrial]) -> Vec<String> {
    dirs.iter().filter_map(DirTrial::surplus_note).collect()
}

fn step_of(n: u32, final_trial: bool, fps: f64, count: u64, dirs: Vec<DirTrial>, tol: f64) -> SearchStep {
    let pass = !dirs.is_empty() && dirs.iter().all(|d| d.sent > 0 && d.error.is_none() && d.loss_percent() <= tol);
    let sender_short = dirs.iter().any(|d| d.short_of(fps, count));
    let notes = notes_of(&dirs);
    SearchStep { n, final_trial, offered_fps: fps, pass, sender_short, dirs, notes }
}

/// Frames in a trial of `secs` seconds at `fps` (at least one).
pub fn frames_for(fps: f64, secs: f64) -> u64 {
    (fps * secs).round().max(1.0) as u64
}

/// The throughput search between 0 and `top_fps` (the line-rate maximum,
/// or the generator's calibrated ceiling if lower); `trial(fps, count)`
/// runs one trial. See the module documentation for the procedure.
///
/// The probe after a failed trial that lost more than a resolution step is
/// half a step under the lowest far-port receive rate of that trial (where
/// the DUT saturated), else half a step over it, if inside the bracket and
/// untried; else (and after a trial that lost less) the middle of the bracket.
pub fn throughput<F>(top_fps: f64, s: &SearchSettings, mut trial: F) -> Result<Throughput, BenchError>
where
    F: FnMut(f64, u64) -> Result<Vec<DirTrial>, BenchError>,
{
    let tol = s.loss_tolerance_percent;
    let half = s.resolution_percent / 200.0;
    let (mut lo, mut hi) = (0.0_f64, top_fps);
    let mut failed = false;
    let mut steps: Vec<SearchStep> = Vec::new();
    let mut estimate: Option<f64> = None;
    let mut probe = top_fps;
    let mut n = 0;
    let mut tester_limited = false;
    while n < s.max_trials {
        n += 1;
        let secs = s.trial_seconds;
        let count = frames_for(probe, secs);
        let st = step_of(n, false, probe, count, trial(probe, count)?, tol);
        if st.pass {
            // A short sender passed only at the rate it managed.
            let got =
                if st.sender_short { st.dirs.iter().map(DirTrial::sent_fps).fold(probe, f64::min) } else { probe };
            lo = lo.max(got);
            tester_limited |= st.sender_short;
            let done = !failed || st.sender_short;
            steps.push(st);
            if done {
                break; // the top passed, or the sender cannot offer more
            }
        } else {
            hi = hi.min(probe);
            failed = true;
            // Receive rate of the worst direction over the time the trial should have taken.
            let nominal = secs.max(1e-9);
            let rx = st.dirs.iter().map(|d| d.received as f64 / nominal).fold(f64::INFINITY, f64::min);
            // Only a trial that lost more than a resolution step is a rate
            // limit worth aiming at; a few frames lost near the probe say
            // nothing about where the limit is (bisect instead).
            estimate = (rx.is_finite() && rx > 0.0 && rx < probe * (1.0 - s.resolution_percent / 100.0)).then_some(rx);
            steps.push(st);
        }
        if failed && (hi - lo) / hi * 100.0 <= s.resolution_percent {
            break;
        }
        let tried = |x: f64| steps.iter().any(|t| (t.offered_fps - x).abs() <= x * 1e-6);
        let inside = |x: f64| x > lo && x < hi && !tried(x);
        probe = match estimate {
            Some(e) if inside(e * (1.0 - half)) => e * (1.0 - half),
            Some(e) if inside(e * (1.0 + half)) => e * (1.0 + half),
            _ => (lo + hi) / 2.0,
        };
        if tried(probe) {
            break;
        }
    }
    let search_trials = n;
    let mut rate = lo;
    let mut confirmed = false;
    for k in 0..3 {
        if rate <= 0.0 {
            break;
        }
        let count = frames_for(rate, s.final_seconds);
        let st = step_of(search_trials + k + 1, true, rate, count, trial(rate, count)?, tol);
        let pass = st.pass;
        tester_limited |= pass && st.sender_short;
        steps.push(st);
        if pass {
            confirmed = true;
            break;
        }
        rate *= 1.0 - s.resolution_percent / 100.0;
    }
    Ok(Throughput {
        loss_tolerance_percent: tol,
        fps: if confirmed { rate } else { 0.0 },
        confirmed,
        search_trials,
        lowest_fail_fps: failed.then_some(hi),
        tester_limited,
        steps,
    })
}

/// RFC 2544 §26.3 frame loss rate: trials at 100 % of `top_fps`, then
/// `step_percent` lower each time (at most 10, RFC 2544 asks for steps of
/// 10 % or finer), until two successive trials lose no frame in any
/// direction (or the rate reaches 0).
pub fn frame_loss<F>(
    top_fps: f64,
    step_percent: f64,
    trial_seconds: f64,
    mut trial: F,
) -> Result<Vec<LossStep>, BenchError>
where
    F: FnMut(f64, u64) -> Result<Vec<DirTrial>, BenchError>,
{
    if !(step_percent > 0.0 && step_percent <= 10.0) {
        return Err(BenchError::Invalid(format!("frame loss step {step_percent} %: more than 0 and at most 10")));
    }
    let mut out = Vec::new();
    let mut clean = 0;
    let mut k = 0u32;
    loop {
        let percent = 100.0 - step_percent * f64::from(k);
        if percent <= 1e-9 {
            break;
        }
        let fps = top_fps * percent / 100.0;
        let count = frames_for(fps, trial_seconds);
        let dirs = trial(fps, count)?;
        let lossless = !dirs.is_empty() && dirs.iter().all(|d| d.sent > 0 && d.error.is_none() && d.lost() == 0);
        let sender_short = dirs.iter().any(|d| d.short_of(fps, count));
        let notes = notes_of(&dirs);
        out.push(LossStep { percent, offered_fps: fps, sender_short, dirs, notes });
        clean = if lossless { clean + 1 } else { 0 };
        if clean >= 2 {
            break;
        }
        k += 1;
    }
    Ok(out)
}

/// RFC 2544 §26.4 back-to-back: for each of `repeats` repetitions, the
/// longest burst (frames per direction, sent at the generator's full
/// speed by `trial(0.0, n)`) that loses nothing, between 1 and `max_burst`
/// frames, by binary search to within the resolution (at least 1 frame).
/// The first repetition starts from `max_burst`; later ones from twice the
/// previous answer (then widen if that passes).
pub fn back_to_back<F>(
    max_burst: u64,
    repeats: u32,
    resolution_percent: f64,
    mut trial: F,
) -> Result<BackToBack, BenchError>
where
    F: FnMut(f64, u64) -> Result<Vec<DirTrial>, BenchError>,
{
    let mut bursts = Vec::new();
    let mut all = Vec::new();
    let mut fast: f64 = 0.0;
    let mut unbounded = false;
    let mut prev: Option<u64> = None;
    let mut notes = Vec::new();
    for _ in 0..repeats.max(1) {
        let mut tried = Vec::new();
        let mut run = |n: u64, tried: &mut Vec<(u64, bool)>| -> Result<bool, BenchError> {
            let dirs = trial(0.0, n)?;
            notes.extend(notes_of(&dirs).into_iter().map(|w| format!("burst of {n} frames: {w}")));
            let ok = !dirs.is_empty() && dirs.iter().all(|d| d.sent == n && d.error.is_none() && d.lost() == 0);
            if let Some(f) = dirs.iter().map(DirTrial::sent_fps).reduce(f64::min) {
                if n >= max_burst.min(prev.unwrap_or(max_burst)) {
                    fast = fast.max(f);
                }
            }
            tried.push((n, ok));
            Ok(ok)
        };
        let (mut lo, mut hi) = (0u64, max_burst + 1); // lo passes (0 trivially), hi fails
        let mut first = prev.map_or(max_burst, |p| (2 * p).clamp(1, max_burst));
        loop {
            if run(first, &mut tried)? {
                lo = first;
                if first >= max_burst {
                    break;
                }
                first = (2 * first).min(max_burst);
            } else {
                hi = first;
                break;
            }
        }
        while hi > lo + 1 && (hi - lo) as f64 > hi as f64 * resolution_percent / 100.0 {
            let mid = lo + (hi - lo) / 2;
            if run(mid, &mut tried)? {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        unbounded |= hi > max_burst;
        prev = Some(lo.max(1));
        bursts.push(lo);
        all.push(tried);
    }
    let mean = bursts.iter().sum::<u64>() as f64 / bursts.len() as f64;
    Ok(BackToBack { bursts, mean, resolution_percent, trials: all, burst_fps: fast, unbounded, notes })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::tester::Way;

    /// A DUT that forwards at most `cap` frames/s per direction over a
    /// trial and holds `queue` frames beyond it; a sender capped at `send_max`.
    fn sim(fps: f64, count: u64, cap: f64, queue: u64, send_max: f64) -> Vec<DirTrial> {
        let rate = if fps > 0.0 { fps.min(send_max) } else { send_max };
        let secs = count as f64 / rate;
        let through = ((cap * secs) as u64 + queue).min(count);
        [Way::Ab, Way::Ba]
            .iter()
            .map(|&way| DirTrial {
                way,
                asked_fps: fps,
                sent: count,
                port_tx: count,
                received: through,
                send_seconds: secs,
                error: None,
            })
            .collect()
    }

    fn settings(tol: f64) -> SearchSettings {
        SearchSettings {
            trial_seconds: 1.0,
            final_seconds: 2.0,
            max_trials: 8,
            resolution_percent: 1.0,
            loss_tolerance_percent: tol,
        }
    }

    #[test]
    fn ndr_lands_within_the_resolution_in_few_trials() {
        let cap = 41_666.0;
        let r = throughput(280_000.0, &settings(0.0), |f, n| Ok(sim(f, n, cap, 0, 300_000.0))).unwrap();
        assert!(r.confirmed && r.fps <= cap && r.fps >= cap * 0.99, "{r:?}");
        assert!(r.search_trials <= 4, "{:?}", r.steps.iter().map(|s| s.offered_fps).collect::<Vec<_>>());
        assert!(!r.tester_limited);
        let fail = r.lowest_fail_fps.unwrap();
        assert!((fail - r.fps) / fail <= 0.01 + 1e-12);
    }

    #[test]
    fn a_bad_estimate_falls_back_to_bisection_within_the_budget() {
        // The DUT collapses to a tenth of its capacity when overloaded: the
        // estimate is useless, bisection must still converge.
        let cap = 50_000.0;
        let r = throughput(100_000.0, &SearchSettings { max_trials: 12, ..settings(0.0) }, |f, n| {
            Ok(sim(f, n, if f > cap { cap / 10.0 } else { cap }, 0, 1e9))
        })
        .unwrap();
        assert!(r.confirmed && r.fps <= cap && r.fps > cap * 0.98, "{r:?}");
    }

    #[test]
    fn pdr_tolerates_its_loss_and_ndr_does_not() {
        // 1 % of frames always lost above 30,000 frames/s, everything up to 40,000.
        let dut = |f: f64, n: u64| {
            let mut d = sim(f, n, 40_000.0, 0, 1e9);
            if f > 30_000.0 {
                for x in &mut d {
                    x.received = x.received.min(n - n / 100);
                }
            }
            Ok(d)
        };
        let ndr = throughput(100_000.0, &SearchSettings { max_trials: 12, ..settings(0.0) }, dut).unwrap();
        let pdr = throughput(100_000.0, &SearchSettings { max_trials: 12, ..settings(1.0) }, dut).unwrap();
        assert!(ndr.fps <= 30_000.0 && ndr.fps > 29_500.0, "{ndr:?}");
        // PDR 1 %: beyond 40,000 the loss is (f - 40,000) / f, 1 % at 40,404.
        assert!(pdr.fps <= 40_404.1 && pdr.fps > 40_000.0, "{pdr:?}");
    }

    #[test]
    fn one_lossy_direction_fails_the_trial() {
        // One frame lost says nothing about the rate: plain bisection from
        // 100,000 needs about log2(100,000 / 200) trials to get within 1 %.
        let r = throughput(100_000.0, &SearchSettings { max_trials: 14, ..settings(0.0) }, |f, n| {
            let mut d = sim(f, n, 1e9, 0, 1e9);
            if f > 20_000.0 {
                d[1].received -= 1;
            }
            Ok(d)
        })
        .unwrap();
        assert!(r.fps <= 20_000.0 && r.fps > 19_700.0, "{r:?}");
    }

    #[test]
    fn a_short_sender_marks_the_result_tester_limited() {
        let r = throughput(1_488_095.0, &settings(0.0), |f, n| Ok(sim(f, n, 1e9, 0, 250_000.0))).unwrap();
        assert!(r.tester_limited && r.confirmed, "{r:?}");
        assert!((r.fps - 250_000.0).abs() < 1.0, "{}", r.fps);
    }

    /// A lossy trial whose receive rate is exactly a resolution step under
    /// the probe is not an estimate ("more than a resolution step"): at
    /// 50 % resolution, 50,000 of 100,000 frames through in 1 s gives
    /// 50,000 = 100,000 x (1 - 0.5), so the next probe is the middle of the
    /// bracket, 50,000, not a quarter under the estimate (37,500). It
    /// passes and the bracket is 50 % wide: the search ends there.
    #[test]
    fn a_receive_rate_exactly_one_step_under_the_probe_is_no_estimate() {
        let s = SearchSettings { resolution_percent: 50.0, max_trials: 4, ..settings(0.0) };
        let r = throughput(100_000.0, &s, |f, n| Ok(sim(f, n, 50_000.0, 0, 1e9))).unwrap();
        assert_eq!(r.steps[0].dirs[0].received, 50_000, "{r:?}");
        let p: Vec<f64> = r.steps.iter().filter(|t| !t.final_trial).map(|t| t.offered_fps).collect();
        assert_eq!(p, [100_000.0, 50_000.0], "{r:?}");
        // One frame fewer through: the estimate counts.
        let r = throughput(100_000.0, &s, |f, n| Ok(sim(f, n, 49_999.0, 0, 1e9))).unwrap();
        assert_eq!(r.steps[1].offered_fps, 49_999.0 * 0.75, "{r:?}");
    }

    /// The trial budget is exact: a DUT that forwards nothing fails every
    /// probe, the bracket never narrows from 0, and the search stops after
    /// max_trials trials, not one more (nothing passed: no final trial).
    #[test]
    fn the_search_runs_exactly_max_trials() {
        let s = SearchSettings { max_trials: 5, ..settings(0.0) };
        let r = throughput(100_000.0, &s, |f, n| Ok(sim(f, n, 0.0, 0, 1e9))).unwrap();
        assert_eq!((r.search_trials, r.steps.len(), r.confirmed), (5, 5, false), "{r:?}");
    }

    /// A step whose senders sent nothing is not clean (nothing lost of
    /// nothing): frame loss goes on down to the last step.
    #[test]
    fn frame_loss_counts_a_step_that_sent_nothing_as_not_clean() {
        let steps = frame_loss(100_000.0, 10.0, 1.0, |f, n| {
            let mut d = sim(f, n, 1e9, 0, 1e9);
            for x in &mut d {
                (x.sent, x.port_tx, x.received) = (0, 0, 0);
            }
            Ok(d)
        })
        .unwrap();
        let p: Vec<f64> = steps.iter().map(|s| s.percent).collect();
        assert_eq!(p, [100.0, 90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 20.0, 10.0]);
    }

    #[test]
    fn frame_loss_steps_down_until_two_clean_trials() {
        let steps = frame_loss(100_000.0, 10.0, 1.0, |f, n| Ok(sim(f, n, 65_000.0, 0, 1e9))).unwrap();
        let p: Vec<f64> = steps.iter().map(|s| s.percent).collect();
        assert_eq!(p, [100.0, 90.0, 80.0, 70.0, 60.0, 50.0]);
        assert!((steps[0].dirs[0].loss_percent() - 35.0).abs() < 0.01);
        assert_eq!(steps[4].dirs[0].lost(), 0);
        assert!(frame_loss(1.0, 10.5, 1.0, |f, n| Ok(sim(f, n, 1.0, 0, 1.0))).is_err());
        // A step of 0 would never lower the rate: refused, as is one below.
        assert!(frame_loss(1.0, 0.0, 1.0, |f, n| Ok(sim(f, n, 1.0, 0, 1.0))).is_err());
        assert!(frame_loss(1.0, -1.0, 1.0, |f, n| Ok(sim(f, n, 1.0, 0, 1.0))).is_err());
    }

    /// The longest burst tried lost frames: the DUT's limit is below it,
    /// not unbounded, even when every shorter burst passed (the bracket's
    /// top then stays at max_burst).
    #[test]
    fn a_lossy_longest_burst_is_a_bound() {
        let r = back_to_back(1000, 1, 0.0, |f, n| {
            let mut d = sim(f, n, 1e9, 0, 1e9);
            if n >= 1000 {
                d[0].received -= 1;
            }
            Ok(d)
        })
        .unwrap();
        assert_eq!((r.bursts.as_slice(), r.unbounded), ([999].as_slice(), false), "{r:?}");
        let r = back_to_back(1000, 1, 0.0, |f, n| Ok(sim(f, n, 1e9, 0, 1e9))).unwrap();
        assert_eq!((r.bursts.as_slice(), r.unbounded), ([1000].as_slice(), true), "{r:?}");
    }

    #[test]
    fn back_to_back_finds_the_queue() {
        // 200 frames of queue, a drain of 1 % of the generator's rate.
        let r = back_to_back(10_000, 3, 1.0, |f, n| Ok(sim(f, n, 2_000.0, 200, 200_000.0))).unwrap();
        for &b in &r.bursts {
            // 200 + 2000 * b / 200000: 202 frames; the resolution is 1 % (2 frames).
            assert!((200..=204).contains(&b), "{r:?}");
        }
        assert!(!r.unbounded);
        let r = back_to_back(500, 1, 1.0, |f, n| Ok(sim(f, n, 2_000.0, 10_000, 200_000.0))).unwrap();
        assert!(r.unbounded && r.bursts == [500], "{r:?}");
    }
}
