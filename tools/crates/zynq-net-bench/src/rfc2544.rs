//! RFC 2544-style throughput: for each frame size, the highest offered
//! frame rate with (configurably) zero loss, found by a binary search of
//! short trials and checked by one longer confirmation trial.
//!
//! Frame arithmetic (RFC 2544 §9.1 and §26, IEEE 802.3): a frame of `F`
//! bytes (Ethernet header 14 + payload + FCS 4) occupies `F + 20` bytes on
//! the wire (preamble and SFD 8, inter-frame gap 12), so the line-rate
//! maximum is `fps = rate / (8 · (F + 20))`. The UDP payload that makes an
//! `F`-byte frame is `F - 46` (14 + 4 + IPv4 20 + UDP 8).

use crate::iperf::{ClientOpts, Direction, Protocol};
use crate::records::{frame_bps, line_percent, max_fps, udp_payload, FrameResult, Rfc2544Result, Step};
use crate::run::{Context, Trial};
use crate::spec::Rfc2544Spec;

/// The deviations from RFC 2544 this method has.
pub fn deviations(s: &Rfc2544Spec, server_version: &str) -> Vec<String> {
    let mut d = vec![
        format!("RFC 2544-style, not RFC 2544: the tester is iperf3 {server_version} UDP on host network stacks, not a hardware traffic generator; sender timing jitter and host-side drops count as DUT loss."),
        format!("Trial duration {} s for the search and {} s for the confirmation (RFC 2544 §26.1 asks for at least 60 s).", s.trial_seconds, s.confirm_seconds),
        "Binary search seeded by the received rate of the first (line-rate) trial; it stops when the pass/fail bracket is narrower than the resolution or the trial budget is spent.".to_string(),
        "Unidirectional UDP/IPv4 traffic of one flow; no learning frames, no bidirectional or multi-port traffic, no latency or back-to-back measurement.".to_string(),
        "Frames counted from the bytes the receiver read and iperf3's gap count; no drain wait: up to 50 ms of traffic unread at a trial's end is taken as in flight, a longer tail as lost (RFC 2544 §23 waits 2 s). A frame size maps to a UDP payload of F - 46 bytes.".to_string(),
        format!("A trial iperf3 could not run (an error and no counts: e.g. its UDP stream set-up datagram was lost) is repeated at the same rate up to {TESTER_RETRIES} times; it counts as a trial, not as loss."),
    ];
    if s.loss_tolerance_percent > 0.0 {
        d.push(format!("Loss tolerance {}% (RFC 2544 throughput is zero loss).", s.loss_tolerance_percent));
    }
    d
}

/// How many times a trial the tester could not run is repeated at the same
/// rate before it counts as a failure at that rate. iperf3 sets up each
/// UDP stream with one datagram each way and gives up when either is lost
/// ("unable to read from stream socket: Resource temporarily unavailable",
/// esnet/iperf#862: no retransmission); through a router whose RX ring the
/// previous trial overflowed, that datagram can be the one dropped. Such a
/// trial measured nothing about the DUT.
pub const TESTER_RETRIES: u32 = 2;

/// Seconds of traffic (at the trial's sent rate, at least one datagram)
/// that may be unread at a trial's end without counting as lost: the
/// datagrams in flight or in the server's socket buffer when iperf3 ends
/// the test. Seen through a tbf on veth: 1 datagram a trial on a quiet
/// host, up to 48 (4.6 ms at 10,400 frames/s) on a loaded one; a router
/// that stalls leaves a tail of most of the trial (37,800 sent, a few
/// thousand read through the emulated ZCU102 before the GEM fix).
pub const TAIL_ALLOWANCE_S: f64 = 0.05;

fn step_from(trial: &Trial, n: u32, confirm: bool, offered_fps: f64, payload: u32, tol: f64) -> Step {
    let mut st = Step {
        n,
        confirm,
        offered_fps,
        sent_fps: 0.0,
        received_fps: 0.0,
        sent: 0,
        lost: 0,
        loss_percent: 100.0,
        pass: false,
        error: trial.record.error.clone(),
    };
    if let Some(s) = &trial.record.summary {
        let f = &s.forward;
        let secs = if f.seconds > 0.0 { f.seconds } else { 1.0 };
        st.sent = f.packets_sent.unwrap_or_else(|| f.sent_bytes / payload as u64);
        st.lost = f.lost_packets.unwrap_or(0);
        // iperf3 counts a loss only as a gap before a later datagram
        // (iperf_udp.c: lost = sequence number - count), so the datagrams
        // dropped after the last one that arrived are in no loss count: a
        // router that stops forwarding half-way shows no loss at all. What
        // arrived is the server's byte count over the payload; the rest,
        // neither read nor counted lost, is the tail. A short tail is in
        // flight when the server stops reading (RFC 2544 §23 waits 2 s for
        // it; iperf3 cannot): up to TAIL_ALLOWANCE_S of traffic is taken as
        // such, a longer one is lost whole.
        let arrived = f.received_bytes / u64::from(payload.max(1));
        let tail = st.sent.saturating_sub(st.lost).saturating_sub(arrived);
        if tail as f64 > (st.sent as f64 / secs * TAIL_ALLOWANCE_S).max(1.0) {
            st.lost += tail;
        }
        st.sent_fps = st.sent as f64 / secs;
        st.received_fps = st.sent.saturating_sub(st.lost) as f64 / secs;
        st.loss_percent = if st.sent > 0 { 100.0 * st.lost as f64 / st.sent as f64 } else { 100.0 };
        st.pass = st.sent > 0 && st.loss_percent <= tol;
    }
    st
}

/// The search for one frame size; `run_trial(opts, label, n)` executes one trial.
pub fn search<F>(ctx: &Context, s: &Rfc2544Spec, line_bps: f64, frame: u32, mut run_trial: F) -> FrameResult
where
    F: FnMut(&ClientOpts, u32) -> Trial,
{
    let payload = udp_payload(frame);
    let top = max_fps(line_bps, frame);
    let opts_for = |fps: f64, secs: f64| ClientOpts {
        server: ctx.targets.server.address.clone(),
        port: ctx.targets.port,
        protocol: Protocol::Udp,
        direction: Direction::Tx,
        streams: 1,
        seconds: secs,
        length: payload,
        bitrate: Some((fps * 8.0 * payload as f64).round().max(1.0) as u64),
        mss: None,
        omit: 0,
        zerocopy: false,
        window: ctx.targets.udp_socket_buffer,
    };
    let mut steps = Vec::new();
    let mut lo = 0.0_f64; // highest passing rate
    let mut hi = top; // lowest failing rate (or the top, untested)
    let mut hi_failed = false;
    // Receive rate of the latest failing trial: where the DUT saturated.
    let mut estimate: Option<f64> = None;
    let mut sender_limited = false;
    let mut short_sends = 0;
    let mut gallop = 0u32;
    let mut n = 0;
    let mut probe = top;
    let mut retries = 0;
    while n < s.max_trials {
        n += 1;
        let t = run_trial(&opts_for(probe, s.trial_seconds), n);
        let st = step_from(&t, n, false, probe, payload, s.loss_tolerance_percent);
        if st.error.is_some() && retries < TESTER_RETRIES {
            // The tester failed, the DUT was not measured: same rate again.
            retries += 1;
            steps.push(st);
            continue;
        }
        retries = 0;
        if st.pass {
            // The rate asked counts (iperf3's own rate control lands within
            // a percent or so of it), unless the sender fell more than 2%
            // short (small frames, a busy host): then the rate it sent.
            let achieved = if st.sent_fps < probe * 0.98 { st.sent_fps } else { probe };
            lo = lo.max(achieved);
            if st.sent_fps < probe * 0.98 {
                // Two short sends in a row, or one at line rate before any
                // loss: the tester, not the DUT, is the limit.
                short_sends += 1;
                if short_sends >= 2 || !hi_failed {
                    sender_limited = true;
                    steps.push(st);
                    break;
                }
            } else {
                short_sends = 0;
            }
            if !hi_failed {
                steps.push(st);
                break; // line rate without loss
            }
        } else {
            // Loss at the rate actually offered (the sender may have fallen short).
            let offered = if st.sent_fps > lo && st.sent_fps < probe * 0.98 { st.sent_fps } else { probe };
            hi = offered.min(hi);
            hi_failed = true;
            if st.error.is_none() && st.received_fps > 0.0 {
                estimate = Some(st.received_fps);
                gallop = 0;
            }
        }
        steps.push(st);
        if hi_failed && (hi - lo) / hi * 100.0 <= s.resolution_percent {
            break;
        }
        // Next probe: just under the receive rate of the latest lossy trial
        // (where the DUT saturated), else just over it, else the middle of
        // the bracket; never a rate already tried.
        let tried = |x: f64| steps.iter().any(|st: &Step| (st.offered_fps - x).abs() <= x * 1e-3);
        probe = next_probe(estimate, lo, hi, s.resolution_percent, &mut gallop, tried);
        if tried(probe) {
            break; // no new rate left to learn from (the sender cannot offer more)
        }
    }
    let search_trials = n;
    // Confirmation at the found rate; step down by the resolution (at most
    // twice) if it does not hold over the longer trial.
    let mut confirmed = false;
    let mut rate = lo;
    let mut max_busy: f64 = 0.0;
    let mut cpu_bound = Vec::new();
    let mut next = search_trials;
    let mut rates = 0;
    retries = 0;
    while rates < 3 && rate > 0.0 {
        next += 1;
        let t = run_trial(&opts_for(rate, s.confirm_seconds), next);
        let st = step_from(&t, next, true, rate, payload, s.loss_tolerance_percent);
        max_busy = t.record.cpu.iter().flat_map(|m| m.cores.iter()).map(|c| c.busy()).fold(0.0, f64::max);
        cpu_bound = t.record.cpu_bound.clone();
        let pass = st.pass;
        let sent = st.sent_fps;
        let tester_failed = st.error.is_some();
        steps.push(st);
        if tester_failed && retries < TESTER_RETRIES {
            retries += 1;
            continue;
        }
        retries = 0;
        rates += 1;
        if pass {
            confirmed = true;
            if sent < rate * 0.98 {
                sender_limited = true;
                rate = sent;
            }
            break;
        }
        rate *= 1.0 - s.resolution_percent / 100.0;
    }
    FrameResult {
        frame_size: frame,
        udp_payload: payload,
        fps: rate,
        frame_bps: frame_bps(rate, frame),
        payload_bps: rate * 8.0 * payload as f64,
        line_percent: line_percent(rate, frame, line_bps),
        max_fps: top,
        search_trials,
        confirmed,
        sender_limited,
        max_core_busy: max_busy,
        cpu_bound,
        steps,
    }
}

/// The tbf that paces the client's egress to `fps` frames of `frame` bytes,
/// as `(rate bit/s, burst bytes, limit bytes)`: the frame rate in bytes the
/// qdisc sees (`F - 4`, no FCS) plus 2% (room to catch up after a late
/// qdisc watchdog; iperf3 itself keeps the average), at least 8 kbit/s;
/// a bucket of 1.5 ms of traffic (at least two frames and 3200 bytes), so
/// iperf3's catch-up bursts leave the tester spread out while a late qdisc
/// watchdog on a loaded host does not throttle the sender; a queue of the
/// bucket, 0.1 s of traffic and 8 MiB (room for a whole socket send buffer:
/// the socket, not the qdisc, pushes back).
pub fn pace_params(fps: f64, frame: u32) -> (f64, u64, u64) {
    let rate = (fps * 8.0 * (frame - 4) as f64 * 1.02).max(8000.0);
    let burst = (2 * frame as u64).max((rate / 8.0 * 0.0015) as u64).max(3200);
    let limit = burst + (rate / 8.0 * 0.1) as u64 + 8 * 1024 * 1024;
    (rate, burst, limit)
}

/// Paces the client's egress on `dev` with the tbf of [`pace_params`].
fn pace(host: &crate::exec::Host, dev: &str, fps: f64, frame: u32) -> Result<(), crate::BenchError> {
    let (rate, burst, limit) = pace_params(fps, frame);
    crate::exec::replace_tbf(host, dev, rate, burst, limit)
}

/// Runs the search for every frame size; `on_trial` gets every trial (to
/// save it) and `on_frame` every finished frame size.
pub fn run<F, G>(
    ctx: &Context,
    s: &Rfc2544Spec,
    line_bps: f64,
    frames: &[u32],
    mut on_trial: F,
    mut on_frame: G,
) -> Rfc2544Result
where
    F: FnMut(u32, Trial) -> Trial,
    G: FnMut(&FrameResult),
{
    let mut out = Vec::new();
    let pacer = ctx.targets.client.pace_iface.clone();
    for &f in frames {
        let label = format!("rfc2544-{f}");
        let r = search(ctx, s, line_bps, f, |o, n| {
            let mut note = None;
            if let Some(dev) = &pacer {
                let fps = o.bitrate.unwrap_or(0) as f64 / (8.0 * o.length as f64);
                note = Some(match pace(&ctx.targets.client.host, dev, fps, f) {
                    Ok(()) => format!("offered load paced by tbf on the client's {dev}"),
                    Err(e) => format!("pacing on {dev} failed: {e}"),
                });
            }
            let mut t = crate::run::trial(ctx, o, &label, n);
            t.record.notes.extend(note);
            on_trial(f, t)
        });
        on_frame(&r);
        out.push(r);
    }
    if let Some(dev) = &pacer {
        let _ = ctx.targets.client.host.output(&crate::exec::argv(&["tc", "qdisc", "del", "dev", dev, "root"]));
    }
    Rfc2544Result {
        format: "zynq-net-bench-rfc2544 1".into(),
        line_rate_bps: line_bps,
        settings: s.clone(),
        frames: out,
        deviations: deviations(s, &ctx.server_version.to_string()),
    }
}

/// The next rate to probe in the RFC 2544 search, in frames/s.
///
/// `lo` is the highest rate that passed (0.0 before any), `hi` the lowest
/// that lost frames (or the line rate), `estimate` the receive rate of the
/// latest lossy trial (where the DUT saturated), `resolution_percent` the
/// search's resolution and `tried` whether a rate was already offered.
/// Returns, in this order: half a resolution step under the estimate, else
/// half a step over it, if inside the bracket and untried; else, when both
/// sides of the estimate are spent and something passed, a gallop up from
/// `lo` in doubling steps of the resolution (counted in `gallop`), never
/// past the middle of the bracket; else the middle.
fn next_probe(
    estimate: Option<f64>,
    lo: f64,
    hi: f64,
    resolution_percent: f64,
    gallop: &mut u32,
    tried: impl Fn(f64) -> bool,
) -> f64 {
    let mid = (lo + hi) / 2.0;
    let half = resolution_percent / 200.0;
    match estimate {
        Some(e) if e * (1.0 - half) > lo && e * (1.0 - half) < hi && !tried(e * (1.0 - half)) => e * (1.0 - half),
        Some(e) if e * (1.0 + half) > lo && e * (1.0 + half) < hi && !tried(e * (1.0 + half)) => e * (1.0 + half),
        // Both sides of the estimate tried: gallop up from the last pass in
        // doubling steps (a lossy trial's receive rate is a good guess, so
        // the limit is near), never past the middle.
        Some(_) if lo > 0.0 => {
            *gallop += 1;
            (lo * (1.0 + resolution_percent / 100.0 * f64::from(1u32 << (*gallop).min(16)))).min(mid)
        }
        _ => mid,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    use crate::exec::Host;
    use crate::iperf::{Flow, Summary, Version};
    use crate::records::TrialRecord;
    use crate::run::Context;
    use crate::targets::{Endpoint, Targets, TARGETS_FORMAT};

    fn ctx() -> Context {
        let e = |a: &str| Endpoint {
            host: Host::Local {},
            address: a.into(),
            ifaces: vec![],
            irq_pattern: None,
            pace_iface: None,
            nice: None,
        };
        let v = Version { major: 3, minor: 12, patch: 0 };
        Context {
            targets: Targets {
                format: TARGETS_FORMAT.into(),
                client: e("c"),
                server: e("s"),
                dut: None,
                port: 5201,
                description: String::new(),
                udp_socket_buffer: None,
            },
            client_version: v,
            server_version: v,
            client_cpus: vec![],
            server_cpus: vec![],
            machines: vec![],
            cpu_bound_percent: 95.0,
            grace_s: crate::run::GRACE_S,
            notes: vec![],
        }
    }

    /// A simulated DUT forwarding at most `cap` frames/s behind a sender
    /// that manages at most `send_max` frames/s.
    fn sim(o: &ClientOpts, cap: f64, send_max: f64) -> Trial {
        let asked = o.bitrate.unwrap_or(0) as f64 / (8.0 * o.length as f64);
        let sent = asked.min(send_max);
        let got = sent.min(cap);
        let secs = o.seconds;
        let sent_n = (sent * secs).round() as u64;
        let got_n = (got * secs).round() as u64;
        let flow = Flow {
            sent_bps: sent * 8.0 * o.length as f64,
            received_bps: got * 8.0 * o.length as f64,
            sent_bytes: sent_n * o.length as u64,
            received_bytes: got_n * o.length as u64,
            packets_sent: Some(sent_n),
            lost_packets: Some(sent_n - got_n),
            seconds: secs,
            ..Flow::default()
        };
        trial_of(flow, o.length)
    }

    /// A trial whose iperf3 result has `flow` as its forward direction.
    fn trial_of(flow: Flow, length: u32) -> Trial {
        let secs = flow.seconds;
        let summary = Summary {
            version: None,
            protocol: Protocol::Udp,
            streams: 1,
            blksize: u64::from(length),
            reverse: false,
            bidir: false,
            forward: flow,
            reverse_flow: None,
            host_cpu_percent: None,
            remote_cpu_percent: None,
        };
        Trial {
            record: TrialRecord {
                cell: "sim".into(),
                repeat: 0,
                started: 0.0,
                wall_seconds: secs,
                command: String::new(),
                throughput_bps: summary.forward.received_bps,
                summary: Some(summary),
                cpu: vec![],
                cpu_bound: vec![],
                notes: vec![],
                error: None,
            },
            raw: None,
        }
    }

    #[test]
    fn search_finds_a_200_mbit_shaper_in_few_trials() {
        // tbf at 200 Mbit/s counts 1514-byte skbs: 16,512 frames/s.
        let cap = 200e6 / (8.0 * 1514.0);
        let r = search(&ctx(), &Rfc2544Spec::default(), 1e9, 1518, |o, _| sim(o, cap, 1e9));
        assert!(r.confirmed);
        assert!(r.search_trials <= 4, "{} trials: {:?}", r.search_trials, r.steps);
        assert_probes_inside_the_bracket(&r.steps);
        assert!(r.fps <= cap && r.fps >= cap * 0.99, "{} vs {cap}", r.fps);
        assert!(!r.sender_limited);
        assert!((r.frame_bps / 200e6 - 1.0).abs() < 0.03);
    }

    #[test]
    fn search_at_line_rate_stops_after_one_trial() {
        let r = search(&ctx(), &Rfc2544Spec::default(), 1e9, 512, |o, _| sim(o, 1e9, 1e9));
        assert_eq!(r.search_trials, 1);
        assert!((r.line_percent - 100.0).abs() < 0.01, "{}", r.line_percent);
    }

    #[test]
    fn a_slow_sender_is_reported_not_mistaken_for_the_dut() {
        let r = search(&ctx(), &Rfc2544Spec::default(), 1e9, 64, |o, _| sim(o, 1e9, 50_000.0));
        assert!(r.sender_limited);
        assert!((r.fps - 50_000.0).abs() < 1.0, "{}", r.fps);
        assert!((r.frame_bps - 50_000.0 * 64.0 * 8.0).abs() < 1000.0);
    }

    #[test]
    fn search_without_a_usable_estimate_is_a_binary_search() {
        // A DUT that drops everything above cap but reports garbage receive
        // rates (0): plain bisection, bounded by max_trials.
        let cap = 30_000.0;
        let spec = Rfc2544Spec { max_trials: 20, ..Rfc2544Spec::default() };
        let r = search(&ctx(), &spec, 1e9, 256, |o, _| {
            let mut t = sim(o, cap, 1e9);
            if let Some(s) = t.record.summary.as_mut() {
                if s.forward.lost_packets != Some(0) {
                    s.forward.received_bps = 0.0;
                    s.forward.lost_packets = s.forward.packets_sent;
                }
            }
            t
        });
        assert!(r.search_trials < 20, "bisection from line rate to 1% takes about 10 trials");
        assert!(r.fps <= cap && r.fps > cap * 0.98, "{}", r.fps);
        // Bisection halves the bracket each trial and stops at the resolution.
        let search: Vec<&Step> = r.steps.iter().filter(|s| !s.confirm).collect();
        let lo = search.iter().filter(|s| s.pass).map(|s| s.offered_fps).fold(0.0, f64::max);
        let hi = search.iter().filter(|s| !s.pass).map(|s| s.offered_fps).fold(f64::INFINITY, f64::min);
        {
            assert!((hi - lo) / hi * 100.0 <= 1.0, "stopped with the bracket {lo}..{hi}");
            let prev_hi = search[..search.len() - 1]
                .iter()
                .filter(|s| !s.pass)
                .map(|s| s.offered_fps)
                .fold(f64::INFINITY, f64::min);
            let prev_lo =
                search[..search.len() - 1].iter().filter(|s| s.pass).map(|s| s.offered_fps).fold(0.0, f64::max);
            assert!((prev_hi - prev_lo) / prev_hi * 100.0 > 1.0, "one trial too many: {search:?}");
        }
        for w in search.windows(2) {
            assert!((w[1].offered_fps - w[0].offered_fps).abs() > 1.0, "a rate tried twice: {search:?}");
        }
        // Each probe is the middle of the bracket the trials before it left.
        for k in 1..search.len() {
            let lo = search[..k].iter().filter(|s| s.pass).map(|s| s.offered_fps).fold(0.0, f64::max);
            let hi = search[..k].iter().filter(|s| !s.pass).map(|s| s.offered_fps).fold(f64::INFINITY, f64::min);
            assert!((search[k].offered_fps - (lo + hi) / 2.0).abs() < 1e-6, "probe {k} not the middle: {search:?}");
        }
    }

    /// Every search probe after the first lies strictly inside the bracket
    /// the trials before it left (above the highest pass, below the lowest
    /// failure): a probe outside it could teach nothing.
    fn assert_probes_inside_the_bracket(steps: &[Step]) {
        let search: Vec<&Step> = steps.iter().filter(|s| !s.confirm).collect();
        for k in 1..search.len() {
            let lo = search[..k].iter().filter(|s| s.pass).map(|s| s.offered_fps).fold(0.0, f64::max);
            let hi = search[..k].iter().filter(|s| !s.pass).map(|s| s.offered_fps).fold(f64::INFINITY, f64::min);
            let p = search[k].offered_fps;
            assert!(p > lo && p < hi, "probe {k} at {p} outside {lo}..{hi}: {search:?}");
        }
    }

    fn offered(o: &ClientOpts) -> f64 {
        o.bitrate.unwrap_or(0) as f64 / (8.0 * o.length as f64)
    }

    /// A DUT whose buffer hides loss in short trials: it forwards `cap`
    /// frames/s for trials of at most `short` seconds and only `long_cap`
    /// over longer ones (the confirmation).
    fn sim_buffered(o: &ClientOpts, cap: f64, long_cap: f64, short: f64) -> Trial {
        sim(o, if o.seconds <= short { cap } else { long_cap }, 1e9)
    }

    #[test]
    fn confirmation_steps_down_by_the_resolution_until_it_holds() {
        let cap = 40_000.0;
        // Over 5 s the DUT keeps 98.5% of what short trials show: the first
        // step down (1%) still loses, the second (1.99%) holds.
        let spec = Rfc2544Spec::default();
        let r = search(&ctx(), &spec, 1e9, 512, |o, _| sim_buffered(o, cap, cap * 0.985, 1.0));
        let confirms: Vec<&Step> = r.steps.iter().filter(|s| s.confirm).collect();
        assert_eq!(confirms.len(), 3, "{:?}", r.steps);
        assert!(!confirms[0].pass && !confirms[1].pass && confirms[2].pass, "{confirms:?}");
        for w in confirms.windows(2) {
            let ratio = w[1].offered_fps / w[0].offered_fps;
            assert!((ratio - 0.99).abs() < 1e-9, "confirmation must step down by 1%: {ratio}");
        }
        assert!(confirms.iter().all(|s| s.n > r.search_trials), "confirm trials numbered after the search");
        assert!(r.confirmed);
        assert!((r.fps - confirms[2].offered_fps).abs() < 1e-6 && r.fps <= cap * 0.985, "{}", r.fps);
        // Trial lengths: search trials short, confirmations long.
        assert!(r.steps.iter().filter(|s| !s.confirm).count() as u32 == r.search_trials);
    }

    #[test]
    fn confirmation_gives_up_after_three_trials() {
        let r = search(&ctx(), &Rfc2544Spec::default(), 1e9, 512, |o, _| sim_buffered(o, 40_000.0, 10_000.0, 1.0));
        assert!(!r.confirmed);
        assert_eq!(r.steps.iter().filter(|s| s.confirm).count(), 3);
        assert!(r.steps.iter().filter(|s| s.confirm).all(|s| !s.pass));
    }

    #[test]
    fn the_search_brackets_to_the_resolution_within_max_trials() {
        for (cap, res, max) in [(12_345.0, 1.0, 10), (77_000.0, 0.5, 12), (3_000.0, 2.0, 4)] {
            let spec = Rfc2544Spec { resolution_percent: res, max_trials: max, ..Rfc2544Spec::default() };
            let r = search(&ctx(), &spec, 1e9, 1024, |o, _| sim(o, cap, 1e9));
            assert!(r.search_trials <= max, "{cap}: {} trials", r.search_trials);
            assert_probes_inside_the_bracket(&r.steps);
            let passes: Vec<f64> = r.steps.iter().filter(|s| !s.confirm && s.pass).map(|s| s.offered_fps).collect();
            let fails: Vec<f64> = r.steps.iter().filter(|s| !s.confirm && !s.pass).map(|s| s.offered_fps).collect();
            assert!(passes.iter().all(|&p| p <= cap * 1.0001), "{cap}: a pass above the cap: {passes:?}");
            assert!(fails.iter().all(|&f| f > cap), "{cap}: a fail below the cap: {fails:?}");
            if r.search_trials < max {
                let lo = passes.iter().cloned().fold(0.0, f64::max);
                let hi = fails.iter().cloned().fold(f64::INFINITY, f64::min);
                assert!((hi - lo) / hi * 100.0 <= res, "{cap}: bracket {lo}..{hi} wider than {res}%");
            }
            assert!(r.fps <= cap && r.fps >= cap * (1.0 - 2.0 * res / 100.0), "{cap}: {}", r.fps);
            assert!(r.confirmed);
        }
    }

    #[test]
    fn loss_tolerance_counts_small_loss_as_zero() {
        // 0.5% loss at every rate: a pass at line rate with 1% tolerance, a
        // search with 0%.
        let lossy = |o: &ClientOpts| sim(o, offered(o) * 0.995, 1e9);
        let tol = Rfc2544Spec { loss_tolerance_percent: 1.0, ..Rfc2544Spec::default() };
        let r = search(&ctx(), &tol, 1e9, 1518, |o, _| lossy(o));
        assert_eq!(r.search_trials, 1);
        assert!(r.confirmed && (r.line_percent - 100.0).abs() < 0.01);
        let step = &r.steps[0];
        assert!((step.loss_percent - 0.5).abs() < 0.05 && step.pass && step.lost > 0, "{step:?}");
        let strict = search(&ctx(), &Rfc2544Spec::default(), 1e9, 1518, |o, _| lossy(o));
        assert!(!strict.steps[0].pass);
        assert!(strict.search_trials > 1);
        assert!(deviations(&tol, "3.12").iter().any(|d| d.contains("Loss tolerance 1%")));
        assert!(!deviations(&Rfc2544Spec::default(), "3.12").iter().any(|d| d.contains("Loss tolerance")));
        assert!(deviations(&Rfc2544Spec::default(), "3.12")[1].contains("1 s for the search and 5 s"));
    }

    /// A trial the tester could not run: an error, no counts.
    fn failed(mut t: Trial) -> Trial {
        t.record.summary = None;
        t.record.error = Some("iperf3: unable to read from stream socket: Resource temporarily unavailable".into());
        t
    }

    #[test]
    fn a_trial_the_tester_could_not_run_is_repeated_at_the_same_rate() {
        let clean = search(&ctx(), &Rfc2544Spec::default(), 1e9, 256, |o, _| sim(o, 20_000.0, 1e9));
        // The third search trial and the confirmation each fail once.
        let r = search(&ctx(), &Rfc2544Spec::default(), 1e9, 256, |o, n| {
            let t = sim(o, 20_000.0, 1e9);
            if n == 3 || n == clean.search_trials + 2 {
                failed(t)
            } else {
                t
            }
        });
        let e: Vec<usize> = (0..r.steps.len()).filter(|&i| r.steps[i].error.is_some()).collect();
        assert_eq!(e.len(), 2, "{:?}", r.steps);
        for &i in &e {
            let (bad, again) = (&r.steps[i], &r.steps[i + 1]);
            assert!(!bad.pass && bad.sent == 0 && bad.loss_percent == 100.0);
            assert_eq!(
                bad.error.as_deref(),
                Some("iperf3: unable to read from stream socket: Resource temporarily unavailable")
            );
            assert_eq!((again.offered_fps, again.confirm, again.n), (bad.offered_fps, bad.confirm, bad.n + 1));
            assert!(again.error.is_none());
        }
        // The same search otherwise: nothing moved by the failed trials.
        let ok =
            |v: &[Step]| v.iter().filter(|s| s.error.is_none()).map(|s| (s.offered_fps, s.pass)).collect::<Vec<_>>();
        assert_eq!(ok(&r.steps), ok(&clean.steps));
        assert_eq!(r.search_trials, clean.search_trials + 1);
        assert!(r.confirmed && clean.confirmed);
        assert_eq!(r.fps, clean.fps);
    }

    #[test]
    fn a_tester_failing_three_times_running_is_a_failure_at_that_rate() {
        let mut n = 0;
        let r = search(&ctx(), &Rfc2544Spec::default(), 1e9, 256, |o, _| {
            n += 1;
            let t = sim(o, 20_000.0, 1e9);
            if n <= 1 + TESTER_RETRIES {
                failed(t)
            } else {
                t
            }
        });
        let top = max_fps(1e9, 256);
        for st in &r.steps[..3] {
            assert!(st.error.is_some() && !st.pass && st.offered_fps == top, "{st:?}");
        }
        // No receive-rate estimate from a failed trial: the next probe is the middle.
        assert!((r.steps[3].offered_fps - top / 2.0).abs() < 1.0, "{:?}", r.steps[3]);
        assert!(r.steps[3].error.is_none());
    }

    #[test]
    fn a_confirmation_the_tester_never_runs_ends_unconfirmed() {
        // Every confirmation attempt fails: three rates, each tried three
        // times, then the result says unconfirmed.
        let clean = search(&ctx(), &Rfc2544Spec::default(), 1e9, 256, |o, _| sim(o, 20_000.0, 1e9));
        let r = search(&ctx(), &Rfc2544Spec::default(), 1e9, 256, |o, n| {
            let t = sim(o, 20_000.0, 1e9);
            if n > clean.search_trials {
                failed(t)
            } else {
                t
            }
        });
        let confirm: Vec<&Step> = r.steps.iter().filter(|s| s.confirm).collect();
        assert_eq!(confirm.len() as u32, 3 * (1 + TESTER_RETRIES));
        assert!(!r.confirmed);
        let rates: Vec<f64> = confirm.iter().map(|s| s.offered_fps).collect();
        assert!(rates.chunks(3).all(|c| c[0] == c[1] && c[1] == c[2]), "{rates:?}");
        assert!(rates[3] < rates[0] && rates[6] < rates[3], "{rates:?}");
    }

    #[test]
    fn frame_arithmetic() {
        // 1 Gbit/s at 64 B: the classic 1,488,095 frames/s.
        assert!((max_fps(1e9, 64) - 1_488_095.2).abs() < 1.0);
        // 1518 B: 81,274 frames/s.
        assert!((max_fps(1e9, 1518) - 81_274.4).abs() < 1.0);
        assert_eq!(udp_payload(64), 18);
        assert_eq!(udp_payload(1518), 1472);
        assert!((line_percent(max_fps(1e9, 512), 512, 1e9) - 100.0).abs() < 1e-9);
        // frame bits, not wire bits: 64 B at line rate is 761.9 Mbit/s of frames.
        assert!((frame_bps(max_fps(1e9, 64), 64) / 1e6 - 761.9).abs() < 0.1);
    }

    /// The frame counts of a step come from iperf3's UDP counters: sent by
    /// the client, lost as the receiver counts them, over the receiver's
    /// measurement time.
    #[test]
    fn a_step_counts_frames_per_second_of_the_receivers_interval() {
        // 2000 datagrams sent over 2 s, 100 lost: 1000 sent/s, 950 received/s, 5% loss.
        let flow = |packets: Option<u64>, lost: Option<u64>, bytes: u64, seconds: f64| Flow {
            packets_sent: packets,
            lost_packets: lost,
            sent_bytes: bytes,
            received_bytes: match (packets, lost) {
                (Some(p), Some(l)) if p > 0 => bytes / p * (p - l),
                _ => bytes,
            },
            seconds,
            ..Flow::default()
        };
        let t = trial_of(flow(Some(2000), Some(100), 2000 * 1472, 2.0), 1472);
        let st = step_from(&t, 4, false, 1000.0, 1472, 5.0);
        assert_eq!((st.n, st.confirm, st.sent, st.lost), (4, false, 2000, 100));
        assert!((st.sent_fps - 1000.0).abs() < 1e-9, "{st:?}");
        assert!((st.received_fps - 950.0).abs() < 1e-9, "{st:?}");
        assert!((st.loss_percent - 5.0).abs() < 1e-9, "{st:?}");
        assert!(st.pass, "5% loss is within a 5% tolerance: {st:?}");
        assert!(!step_from(&t, 4, false, 1000.0, 1472, 4.9).pass, "5% loss is over 4.9%");
        // No packet counter (an iperf3 that left it out): frames from the
        // bytes sent over the payload; no lost counter: nothing lost.
        let t = trial_of(flow(None, None, 3000 * 1472, 1.5), 1472);
        let st = step_from(&t, 1, true, 2000.0, 1472, 0.0);
        assert_eq!((st.sent, st.lost), (3000, 0));
        assert!((st.sent_fps - 2000.0).abs() < 1e-9 && st.pass && st.confirm, "{st:?}");
        // A result without a measurement time counts as one second, not as
        // an infinite rate.
        let t = trial_of(flow(Some(500), Some(0), 500 * 18, 0.0), 18);
        let st = step_from(&t, 1, false, 500.0, 18, 0.0);
        assert!((st.sent_fps - 500.0).abs() < 1e-9 && (st.received_fps - 500.0).abs() < 1e-9, "{st:?}");
        // Nothing sent never passes, whatever the tolerance: its loss is 100%.
        let t = trial_of(flow(Some(0), Some(0), 0, 1.0), 18);
        let st = step_from(&t, 1, false, 500.0, 18, 100.0);
        assert!(!st.pass && st.loss_percent == 100.0 && st.sent_fps == 0.0, "{st:?}");
    }

    /// Datagrams dropped after the last one that arrived are in no iperf3
    /// loss count (a gap before a later datagram is): the server's bytes
    /// say how many arrived. A router that stopped forwarding after 1,500
    /// of 2,000 datagrams (1 s) loses 500, not 0; a tail of up to 50 ms of
    /// traffic (100 here) is in flight, not lost; iperf3's own gap count
    /// always counts.
    #[test]
    fn frames_dropped_at_a_trials_end_are_lost() {
        let f = |lost: u64, arrived: u64| Flow {
            packets_sent: Some(2000),
            lost_packets: Some(lost),
            sent_bytes: 2000 * 1472,
            received_bytes: arrived * 1472,
            seconds: 1.0,
            ..Flow::default()
        };
        let st = step_from(&trial_of(f(0, 1500), 1472), 1, false, 2000.0, 1472, 0.0);
        assert_eq!((st.sent, st.lost), (2000, 500), "{st:?}");
        assert!(!st.pass && (st.received_fps - 1500.0).abs() < 1e-9 && (st.loss_percent - 25.0).abs() < 1e-9);
        let st = step_from(&trial_of(f(3, 2000), 1472), 1, false, 2000.0, 1472, 0.0);
        assert_eq!((st.sent, st.lost), (2000, 3), "{st:?}");
        let st = step_from(&trial_of(f(0, 2000), 1472), 1, false, 2000.0, 1472, 0.0);
        assert!(st.pass && st.lost == 0, "{st:?}");
        // The allowance's edge: 100 unread pass, 101 are lost with the gaps.
        let st = step_from(&trial_of(f(0, 1900), 1472), 1, false, 2000.0, 1472, 0.0);
        assert!(st.pass && st.lost == 0, "{st:?}");
        let st = step_from(&trial_of(f(2, 1897), 1472), 1, false, 2000.0, 1472, 0.0);
        assert_eq!(st.lost, 103, "{st:?}");
        // One datagram unread at a low rate is in flight, two are not.
        let g = |arrived: u64| Flow { packets_sent: Some(10), received_bytes: arrived * 18, ..f(0, 0) };
        assert_eq!(step_from(&trial_of(g(9), 18), 1, false, 10.0, 18, 0.0).lost, 0);
        assert_eq!(step_from(&trial_of(g(8), 18), 1, false, 10.0, 18, 0.0).lost, 2);
    }

    /// A line rate whose frame maximum is exactly 100,000 frames/s at 1518 B
    /// (8 · 1538 · 100,000 bit/s).
    const LINE_100K: f64 = 8.0 * 1538.0 * 100_000.0;

    #[test]
    fn a_sender_exactly_2_percent_short_still_offers_the_rate() {
        // "unless the sender fell more than 2% short": 98,000 of 100,000
        // frames/s is not short; 97,000 is.
        assert_eq!(max_fps(LINE_100K, 1518), 100_000.0);
        assert_eq!(100_000.0 * 0.98, 98_000.0);
        let r = search(&ctx(), &Rfc2544Spec::default(), LINE_100K, 1518, |o, _| sim(o, 1e9, 98_000.0));
        assert_eq!(r.search_trials, 1, "{:?}", r.steps);
        assert!(!r.sender_limited && r.confirmed, "{r:?}");
        assert_eq!(r.fps, 100_000.0);
        let r = search(&ctx(), &Rfc2544Spec::default(), LINE_100K, 1518, |o, _| sim(o, 1e9, 97_000.0));
        assert!(r.sender_limited && r.confirmed, "{r:?}");
        assert_eq!(r.fps, 97_000.0);
    }

    #[test]
    fn two_short_sends_after_a_loss_mean_the_sender_is_the_limit() {
        // Trial 1 at line rate loses (the DUT forwards 30,000 frames/s), then
        // the sender manages only 20,000: one short pass is not yet a
        // verdict, the second is. The result is the rate actually sent.
        let r = search(&ctx(), &Rfc2544Spec::default(), 1e9, 512, |o, n| {
            sim(o, 30_000.0, if n == 1 { 1e9 } else { 20_000.0 })
        });
        assert!(!r.steps[0].pass && r.steps[1].pass && r.steps[2].pass, "{:?}", r.steps);
        assert_eq!(r.search_trials, 3, "{:?}", r.steps);
        assert!(r.sender_limited && r.confirmed, "{r:?}");
        assert_eq!(r.fps, 20_000.0);
        // The probes after the loss sit just under and just over its receive rate.
        assert!((r.steps[1].offered_fps - 30_000.0 * 0.995).abs() < 1e-6, "{:?}", r.steps[1]);
        assert!((r.steps[2].offered_fps - 30_000.0 * 1.005).abs() < 1e-6, "{:?}", r.steps[2]);
    }

    #[test]
    fn a_loss_where_the_sender_fell_short_bounds_the_bracket_at_the_rate_sent() {
        // The sender manages 40,160 frames/s, the DUT forwards 40,000: trial 1
        // loses at 40,160 (not at the line rate asked), trial 2 passes at
        // 40,000 · 0.995 = 39,800, and 40,160 - 39,800 is 0.9% of 40,160:
        // within the 1% resolution, so the search stops there.
        let r = search(&ctx(), &Rfc2544Spec::default(), 1e9, 512, |o, _| sim(o, 40_000.0, 40_160.0));
        assert_eq!(r.search_trials, 2, "{:?}", r.steps);
        assert!(!r.steps[0].pass && r.steps[1].pass);
        assert!((r.fps - 39_800.0).abs() < 1e-6 && r.confirmed, "{r:?}");
        assert!(!r.sender_limited, "the sender was short only where the DUT lost");
    }

    #[test]
    fn when_the_estimate_is_spent_the_search_gallops_up_from_the_last_pass() {
        // A DUT that forwards 50,000 frames/s but collapses to 25,000 when
        // overloaded: the receive rate of a lossy trial underestimates it.
        // After the two probes around the estimate, each probe is the last
        // pass raised by the resolution times 2, 4, 8, ...
        let (cap, collapsed) = (50_000.0, 25_000.0);
        let mut numbers = Vec::new();
        let r = search(&ctx(), &Rfc2544Spec::default(), 1e9, 512, |o, n| {
            numbers.push(n);
            let mut t = sim(o, cap, 1e9);
            if offered(o) > cap {
                t = sim(o, collapsed, 1e9);
            }
            t
        });
        let s: Vec<f64> = r.steps.iter().map(|s| s.offered_fps).collect();
        assert!((s[1] - collapsed * 0.995).abs() < 1e-6 && (s[2] - collapsed * 1.005).abs() < 1e-6, "{s:?}");
        let mut k = 1;
        for w in r.steps[2..].windows(2).take_while(|w| w[0].pass && w[1].pass && !w[1].confirm) {
            let want = 1.0 + 0.01 * f64::from(1u32 << k);
            assert!((w[1].offered_fps / w[0].offered_fps - want).abs() < 1e-9, "step {k}: {s:?}");
            k += 1;
        }
        assert!(k >= 5, "at least four doubling steps before reaching the DUT's limit: {s:?}");
        // Every probe passes below the cap and fails above it.
        assert!(r.steps.iter().all(|st| st.pass == (st.offered_fps <= cap)), "{:?}", r.steps);
        assert_eq!(r.search_trials, 10, "the trial budget runs out: {s:?}");
        assert!(r.confirmed && r.fps <= cap && r.fps > cap * 0.8, "{r:?}");
        // The trials are numbered 1, 2, 3, ... in the order run, confirmation included.
        let total = r.steps.len() as u32;
        assert_eq!(numbers, (1..=total).collect::<Vec<_>>());
        assert_eq!(r.steps.iter().map(|s| s.n).collect::<Vec<_>>(), numbers);
    }

    /// The search rates offered by a search (resolution 12.5 %: the probes
    /// around an estimate are it × 15/16 and × 17/16, exact in binary)
    /// whose trials report, in order, `script`'s (frames sent, frames lost)
    /// over 1 s; 1518 B frames at 1 Gbit/s (line rate 81,274.4 frames/s).
    fn probes(script: &[(u64, u64)]) -> Vec<f64> {
        let spec =
            Rfc2544Spec { resolution_percent: 12.5, max_trials: script.len() as u32 + 1, ..Rfc2544Spec::default() };
        let mut left = script.iter();
        let r = search(&ctx(), &spec, 1e9, 1518, |o, _| {
            let (sent, lost) = left.next().copied().unwrap_or((1, 1));
            let flow = Flow {
                packets_sent: Some(sent),
                lost_packets: Some(lost),
                received_bytes: (sent - lost) * u64::from(o.length),
                seconds: 1.0,
                ..Flow::default()
            };
            trial_of(flow, o.length)
        });
        r.steps.iter().filter(|s| !s.confirm).map(|s| s.offered_fps).collect()
    }

    /// A rate within 0.1 % of one already offered counts as tried, that
    /// 0.1 % itself included. Worked in floating point: at 1230 B on
    /// 511,235,234.51 bit/s the line rate is 51,123.523451 frames/s; 51,098
    /// of them through puts the probe under the estimate at 51,098 x
    /// 0.9995 = 51,072.451 (0.1 % resolution), which is exactly 0.1 % of
    /// itself under the line rate: tried, so (the probe over the estimate
    /// being above the line rate) the next probe is the middle.
    #[test]
    fn a_rate_exactly_0_1_percent_from_one_offered_counts_as_tried() {
        let line = 511_235_234.51;
        let top = max_fps(line, 1230);
        let x = 51_098.0 * (1.0 - 0.1 / 200.0);
        assert_eq!((top, x, top - x), (51_123.523451, 51_072.451, x * 1e-3));
        let spec = Rfc2544Spec { resolution_percent: 0.1, max_trials: 2, ..Rfc2544Spec::default() };
        let r = search(&ctx(), &spec, line, 1230, |o, n| {
            let (sent, lost) = if n == 1 { (51_124, 26) } else { (1, 1) };
            trial_of(
                Flow { packets_sent: Some(sent), lost_packets: Some(lost), seconds: 1.0, ..Flow::default() },
                o.length,
            )
        });
        let p: Vec<f64> = r.steps.iter().filter(|s| !s.confirm).map(|s| s.offered_fps).collect();
        assert_eq!(p, [top, top / 2.0], "{:?}", r.steps);
    }

    #[test]
    fn a_probe_just_under_the_estimate_must_be_above_the_last_pass() {
        // Worked by hand. 1: line rate, 64,000 of 81,000 through -> estimate
        // 64,000, next 60,000 (x 15/16). 2: only 48,000 sent (short), none
        // lost -> last pass 48,000; 60,000 is tried, next 68,000 (x 17/16).
        // 3: 51,200 of 68,000 through -> estimate 51,200, whose x 15/16 is
        // 48,000: the last pass itself, not above it, so x 17/16 = 54,400.
        let p = probes(&[(81_000, 17_000), (48_000, 0), (68_000, 16_800)]);
        assert_eq!(p[1..], [60_000.0, 68_000.0, 54_400.0], "{p:?}");
    }

    #[test]
    fn a_probe_just_over_the_estimate_must_be_above_the_last_pass() {
        // Worked by hand. 1: as above, next 60,000. 2: only 51,000 sent
        // (short), none lost -> last pass 51,000; next 68,000 (x 17/16).
        // 3: 48,000 of 68,000 through -> estimate 48,000: x 15/16 = 45,000
        // is below the last pass and x 17/16 = 51,000 is the last pass
        // itself, so the search gallops: min(51,000 x 1.25, the middle
        // (51,000 + 68,000) / 2 = 59,500) = 59,500.
        let p = probes(&[(81_000, 17_000), (51_000, 0), (68_000, 20_000)]);
        assert_eq!(p[1..], [60_000.0, 68_000.0, 59_500.0], "{p:?}");
    }

    #[test]
    fn the_result_states_rates_in_frames_payload_and_line_terms() {
        // A DUT at exactly 10,000 frames/s of 1518 B at 1 Gbit/s.
        let cap = 10_000.0;
        let r = search(&ctx(), &Rfc2544Spec::default(), 1e9, 1518, |o, _| sim(o, cap, 1e9));
        assert_eq!((r.frame_size, r.udp_payload), (1518, 1472));
        let fps = r.fps;
        assert!(fps <= cap && fps > cap * 0.98, "{fps}");
        assert!((r.frame_bps - fps * 1518.0 * 8.0).abs() < 1e-6);
        assert!((r.payload_bps - fps * 1472.0 * 8.0).abs() < 1e-6);
        // 1518 B at 1 Gbit/s: 81,274 frames/s at most.
        assert!((r.max_fps - 1e9 / (8.0 * 1538.0)).abs() < 1e-6);
        assert!((r.line_percent - 100.0 * fps * 8.0 * 1538.0 / 1e9).abs() < 1e-9);
        // The search asks iperf3 for the payload rate of the frames: -l 1472, -b fps·8·1472.
        let mut asked = Vec::new();
        search(&ctx(), &Rfc2544Spec::default(), 1e9, 1518, |o, _| {
            asked.push((o.length, o.bitrate, o.seconds, o.protocol, o.streams));
            sim(o, cap, 1e9)
        });
        let top: f64 = 1e9 / (8.0 * 1538.0);
        assert_eq!(asked[0], (1472, Some((top * 8.0 * 1472.0).round() as u64), 1.0, Protocol::Udp, 1));
        assert_eq!(asked.last().map(|a| a.2), Some(5.0), "the confirmation runs confirm_seconds");
    }

    #[test]
    fn the_confirmation_reports_the_load_it_saw() {
        let core = |cpu, idle| crate::cpu::CoreLoad { cpu, usr: 0.0, sys: 0.0, irq: 0.0, softirq: 100.0 - idle, idle };
        let r = search(&ctx(), &Rfc2544Spec::default(), 1e9, 1518, |o, _| {
            let mut t = sim(o, 1e9, 1e9);
            let busy_core = if o.seconds > 1.0 { 3.0 } else { 50.0 };
            t.record.cpu = vec![crate::records::MachineLoad {
                role: "dut".into(),
                cores: vec![core(0, 90.0), core(1, busy_core)],
            }];
            t.record.cpu_bound = if o.seconds > 1.0 { vec!["dut cpu1 97%".into()] } else { vec![] };
            t
        });
        assert!((r.max_core_busy - 97.0).abs() < 1e-9, "{}", r.max_core_busy);
        assert_eq!(r.cpu_bound, vec!["dut cpu1 97%".to_string()]);
    }

    #[test]
    fn pacing_tbf_follows_the_frame_rate() {
        // 10,000 frames/s of 1518 B: the qdisc sees 1514 B each, plus 2%:
        // 10,000 · 8 · 1514 · 1.02 = 123,542,400 bit/s; 1.5 ms of that is
        // 23,164 bytes; the queue adds 0.1 s (1,544,280 B) and 8 MiB.
        assert_eq!(pace_params(10_000.0, 1518), (123_542_400.0, 23_164, 23_164 + 1_544_280 + 8_388_608));
        // 100 frames/s of 64 B: 48,960 bit/s; the bucket is the 3200-byte floor.
        assert_eq!(pace_params(100.0, 64), (48_960.0, 3200, 3200 + 612 + 8_388_608));
        // 1 frame/s: the 8 kbit/s floor.
        assert_eq!(pace_params(1.0, 64), (8000.0, 3200, 3200 + 100 + 8_388_608));
        // Jumbo frames at a low rate: the bucket holds two frames.
        let (rate, burst, limit) = pace_params(10.0, 9018);
        assert!((rate - 735_542.4).abs() < 1e-6, "{rate}");
        assert_eq!((burst, limit), (18_036, 18_036 + 9194 + 8_388_608));
    }

    /// One frame lost in a 2 s trial (under 1 frame/s) is a failure, and
    /// the next probe is just under that trial's receive rate (the search
    /// resolution's half below it), not a bisection.
    #[test]
    fn one_lost_frame_puts_the_next_probe_just_under_the_receive_rate() {
        let top = max_fps(1e9, 256);
        let spec = Rfc2544Spec { trial_seconds: 2.0, ..Rfc2544Spec::default() };
        let r = search(&ctx(), &spec, 1e9, 256, |o, _| {
            let mut t = sim(o, 1e9, 1e9);
            if offered(o) > 0.98 * top {
                t.record.summary.as_mut().unwrap().forward.lost_packets = Some(1);
            }
            t
        });
        let search: Vec<&Step> = r.steps.iter().filter(|s| !s.confirm).collect();
        let e = search[0].received_fps;
        assert!(!search[0].pass && search[0].offered_fps - e < 1.0, "{search:?}");
        assert!((search[1].offered_fps / (e * 0.995) - 1.0).abs() < 1e-6, "{search:?}");
        assert_probes_inside_the_bracket(&r.steps);
        assert!(r.fps <= 0.98 * top && r.fps > 0.97 * top, "{}", r.fps);
    }

    /// A sender 1 % over the asked rate and a DUT at half the line rate:
    /// the second trial fails receiving more than it was asked to offer, so
    /// both sides of the estimate are used up with nothing passed yet; the
    /// next probe is the middle of the bracket (no gallop up from 0).
    #[test]
    fn with_nothing_passed_and_the_estimate_used_up_the_probe_is_the_middle() {
        let top = max_fps(1e9, 512);
        let r = search(&ctx(), &Rfc2544Spec::default(), 1e9, 512, |o, _| {
            let over = ClientOpts { bitrate: o.bitrate.map(|b| (b as f64 * 1.01) as u64), ..o.clone() };
            sim(&over, top / 2.0, 1e9)
        });
        let search: Vec<&Step> = r.steps.iter().filter(|s| !s.confirm).collect();
        assert!(!search[0].pass && !search[1].pass && search[1].received_fps > search[1].offered_fps, "{search:?}");
        assert!((search[2].offered_fps / (search[1].offered_fps / 2.0) - 1.0).abs() < 1e-9, "{search:?}");
        assert_probes_inside_the_bracket(&r.steps);
    }

    /// A lossy trial whose sender fell exactly 2 % short counts at the rate
    /// asked ("more than 2 % short" counts what was sent): at 1230 B on
    /// 1 Gbit/s the line rate is 100,000 frames/s and a sender capped at
    /// 98,000 is exactly 2 % short, so the bracket's top stays 100,000 and
    /// the probe over the estimate (97,600 x 1.005 = 98,088) fits under it.
    #[test]
    fn a_send_exactly_two_percent_short_counts_at_the_rate_asked() {
        assert_eq!(max_fps(1e9, 1230), 100_000.0);
        let r = search(&ctx(), &Rfc2544Spec::default(), 1e9, 1230, |o, _| sim(o, 97_600.0, 98_000.0));
        let search: Vec<&Step> = r.steps.iter().filter(|s| !s.confirm).collect();
        assert_eq!((search[0].sent_fps, search[0].pass), (98_000.0, false), "{search:?}");
        assert!((search[1].offered_fps - 97_600.0 * 0.995).abs() < 0.01 && search[1].pass, "{search:?}");
        assert!((search[2].offered_fps - 97_600.0 * 1.005).abs() < 0.01, "{search:?}");
    }

    /// A bracket exactly the resolution wide ends the search: at 1230 B on
    /// 1 Gbit/s the line rate is 100,000 frames/s; a DUT that forwards
    /// 50,000 (reporting no receive rate when it loses, so the search
    /// bisects) fails the first probe and passes the middle, 50,000: the
    /// bracket is (100,000 - 50,000) / 100,000 = 50 % exactly, the
    /// resolution, and no third probe runs. At 49.5 % a third one does.
    #[test]
    fn a_bracket_exactly_the_resolution_wide_ends_the_search() {
        let dut = |o: &ClientOpts| {
            let mut t = sim(o, 50_000.0, 1e9);
            if let Some(s) = t.record.summary.as_mut() {
                if s.forward.lost_packets != Some(0) {
                    s.forward.received_bps = 0.0;
                    s.forward.lost_packets = s.forward.packets_sent;
                }
            }
            t
        };
        for (res, want) in [(50.0, vec![100_000.0, 50_000.0]), (49.5, vec![100_000.0, 50_000.0, 75_000.0])] {
            let spec = Rfc2544Spec { resolution_percent: res, max_trials: 3, ..Rfc2544Spec::default() };
            let r = search(&ctx(), &spec, 1e9, 1230, |o, _| dut(o));
            let p: Vec<f64> = r.steps.iter().filter(|s| !s.confirm).map(|s| s.offered_fps).collect();
            assert_eq!(p, want, "{res} %: {:?}", r.steps);
        }
    }

    /// A DUT that forwards nothing: every probe fails, nothing passed, so
    /// there is no rate to confirm and no confirmation trial runs (one at
    /// 0 frames/s would measure nothing).
    #[test]
    fn a_dut_that_passes_nothing_gets_no_confirmation() {
        let spec = Rfc2544Spec { max_trials: 4, ..Rfc2544Spec::default() };
        let r = search(&ctx(), &spec, 1e9, 1518, |o, _| sim(o, 0.0, 1e9));
        assert_eq!(r.search_trials, 4);
        assert!(r.steps.iter().all(|s| !s.confirm && !s.pass), "{:?}", r.steps);
        assert_eq!((r.fps, r.confirmed, r.steps.len()), (0.0, false, 4));
    }

    /// Trials are numbered 1, 2, ... in the order they run, the
    /// confirmation trials after the search's, as run_trial is told and as
    /// the steps record.
    #[test]
    fn trials_are_numbered_in_order_through_the_confirmation() {
        let mut labels = Vec::new();
        let r = search(&ctx(), &Rfc2544Spec::default(), 1e9, 1518, |o, n| {
            labels.push(n);
            sim_buffered(o, 40_000.0, 39_400.0, 1.0)
        });
        let n = r.steps.len() as u32;
        assert!(r.steps.iter().filter(|s| s.confirm).count() >= 2, "{:?}", r.steps);
        assert_eq!(labels, (1..=n).collect::<Vec<_>>());
        assert_eq!(r.steps.iter().map(|s| s.n).collect::<Vec<_>>(), labels);
    }

    /// next_probe's guards at the edges of the bracket, with the receive
    /// rate of the last lossy trial at 100 frames/s and a 1 % resolution:
    /// the probes under and over it are 99.5 and 100.5. These corners (an
    /// estimate a frame/s from the bracket's ends) need rates under 201
    /// frames/s, which no simulated search above reaches.
    #[test]
    fn next_probe_takes_the_rate_over_the_estimate_only_inside_the_bracket_and_untried() {
        let probe = |lo: f64, hi: f64, tried: &[f64]| {
            let mut gallop = 0;
            let p =
                next_probe(Some(100.0), lo, hi, 1.0, &mut gallop, |x| tried.iter().any(|t| (t - x).abs() <= x * 1e-3));
            (p, gallop)
        };
        let near = |(p, g): (f64, u32), want: f64, gallop: u32| (p - want).abs() < 1e-9 && g == gallop;
        // lo between 99.5 and 100.5: the rate under the estimate is out of
        // the bracket, the one over it is the probe.
        assert!(near(probe(99.7, 1000.0, &[]), 100.5, 0), "{:?}", probe(99.7, 1000.0, &[]));
        // lo over 100.5 (but under 100 + 1.005): neither fits, so gallop
        // from lo: 100.7 x (1 + 1 % x 2).
        assert!(near(probe(100.7, 1000.0, &[]), 100.7 * 1.02, 1), "{:?}", probe(100.7, 1000.0, &[]));
        // hi just over 100.5 with 99.5 tried and nothing passed: the probe
        // over the estimate fits under hi.
        assert!(near(probe(0.0, 100.8, &[99.5]), 100.5, 0), "{:?}", probe(0.0, 100.8, &[99.5]));
        // hi under 100.5: it does not, and with nothing passed the probe is
        // the middle.
        assert!(near(probe(0.0, 100.3, &[99.5]), 50.15, 0), "{:?}", probe(0.0, 100.3, &[99.5]));
        // Both sides tried: gallop from lo, 50 x 1.02.
        assert!(near(probe(50.0, 1000.0, &[99.5, 100.5]), 51.0, 1), "{:?}", probe(50.0, 1000.0, &[99.5, 100.5]));
        // A probe exactly at hi (a rate that lost frames) is not inside the
        // bracket: with nothing passed the probe is the middle instead.
        let (under, over) = (100.0 * (1.0 - 1.0 / 200.0), 100.0 * (1.0 + 1.0 / 200.0));
        assert!(near(probe(0.0, under, &[]), under / 2.0, 0), "{:?}", probe(0.0, under, &[]));
        assert!(near(probe(0.0, over, &[under]), over / 2.0, 0), "{:?}", probe(0.0, over, &[under]));
        // Only the one over tried: the one under is the probe.
        assert!(near(probe(50.0, 1000.0, &[100.5]), 99.5, 0), "{:?}", probe(50.0, 1000.0, &[100.5]));
    }
}
