//! `bench rfc2544-tester`: the RFC 2544 tests ([`crate::suite`]) run
//! through the trafgen/nftables tester ([`crate::tester`]) on a
//! `zynq-net lab`, full duplex by default, after calibrating the
//! generator port to port; results in `tester.json`, and the tables per
//! frame size in the shape an analyser prints in `tester.md`,
//! `tester.html` and (the throughput table) `tester.csv`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::BenchError;
use crate::latency;
use crate::records::{line_percent, max_fps};
use crate::suite::{self, SearchSettings};
use crate::table::{Align, Block, Doc, Inline, Table};
use crate::tester::{self, Ceiling, DirTrial, Tester, Way};

/// The records this module produces ([`crate::records::tester`]).
pub use crate::records::tester::{limited_by, FrameReport, Options, Report, Test, FORMAT};

/// The bench file's defaults ([`zynq_net_model::bench::Tester::default`]) on lab `znlab`.
impl Default for Options {
    fn default() -> Self {
        Options::from_model(&zynq_net_model::bench::Tester::default(), "znlab".into(), None)
    }
}

impl Options {
    /// The options of a bench file's `tester` section (units converted:
    /// Mbit/s to bit/s) on lab `lab` or through `targets`.
    pub fn from_model(t: &zynq_net_model::bench::Tester, lab: String, targets: Option<PathBuf>) -> Options {
        Options {
            lab,
            targets,
            frame_sizes: t.frame_sizes.clone(),
            line_rate_bps: f64::from(t.line_rate_mbps) * 1e6,
            duplex: t.duplex,
            flows: t.flows,
            tests: t.tests.clone(),
            search: SearchSettings {
                trial_seconds: t.trial_s,
                final_seconds: t.final_s,
                max_trials: t.max_trials,
                resolution_percent: t.resolution_pct,
                loss_tolerance_percent: 0.0,
            },
            pdr_percent: t.pdr_pct.clone(),
            loss_step_percent: t.loss_step_pct,
            loss_trial_seconds: t.loss_trial_s,
            b2b_max_frames: t.b2b_max_frames,
            b2b_repeats: t.b2b_repeats,
            b2b_resolution_percent: t.b2b_resolution_pct,
            settle_seconds: t.settle_s,
            learning_seconds: t.learning_s,
            drain_seconds: t.drain_s,
            calibrate_frames: t.calibrate_frames,
            latency_repeats: t.latency_repeats,
            latency_seconds: t.latency_s,
            latency_probe_fps: t.latency_probe_fps,
            latency_fps: t.latency_fps,
        }
    }
}

/// The option that overrides each key of the `tester` section, for
/// [`validate`]'s messages (the flags of `bench rfc2544-tester`).
const FLAGS: &[(&str, &str)] = &[
    ("tests", "--tests"),
    ("frame_sizes", "--frame-sizes"),
    ("line_rate_mbps", "--line-rate"),
    ("duplex", "--one-way"),
    ("flows", "--flows"),
    ("trial_s", "--trial-seconds"),
    ("final_s", "--final-seconds"),
    ("max_trials", "--max-trials"),
    ("resolution_pct", "--resolution"),
    ("pdr_pct", "--pdr"),
    ("loss_step_pct", "--loss-step"),
    ("loss_trial_s", "--loss-trial-seconds"),
    ("b2b_max_frames", "--b2b-max-frames"),
    ("b2b_repeats", "--b2b-repeats"),
    ("b2b_resolution_pct", "--b2b-resolution"),
    ("settle_s", "--settle"),
    ("learning_s", "--learning-wait"),
    ("drain_s", "--drain"),
    ("calibrate_frames", "--calibrate-frames"),
    ("latency_repeats", "--latency-repeats"),
    ("latency_s", "--latency-seconds"),
    ("latency_probe_fps", "--latency-probe-rate"),
    ("latency_fps", "--latency-fps"),
];

/// `text` (a message or hint of the file's checks) with each key of the
/// section that it names written as its flag (`give latency_fps` ->
/// `give --latency-fps`).
fn flag_words(text: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(FLAGS.iter().find(|(k, _)| *k == word.as_str()).map_or(word.as_str(), |(_, f)| f));
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

impl Options {
    /// The bench file's `tester` section these options are (the inverse of
    /// [`Options::from_model`]; the line rate in whole Mbit/s, rounded
    /// down, as the section writes it).
    pub fn to_model(&self) -> zynq_net_model::bench::Tester {
        zynq_net_model::bench::Tester {
            tests: self.tests.clone(),
            frame_sizes: self.frame_sizes.clone(),
            line_rate_mbps: (self.line_rate_bps / 1e6) as u32,
            duplex: self.duplex,
            flows: self.flows,
            trial_s: self.search.trial_seconds,
            final_s: self.search.final_seconds,
            max_trials: self.search.max_trials,
            resolution_pct: self.search.resolution_percent,
            pdr_pct: self.pdr_percent.clone(),
            loss_step_pct: self.loss_step_percent,
            loss_trial_s: self.loss_trial_seconds,
            b2b_max_frames: self.b2b_max_frames,
            b2b_repeats: self.b2b_repeats,
            b2b_resolution_pct: self.b2b_resolution_percent,
            settle_s: self.settle_seconds,
            learning_s: self.learning_seconds,
            drain_s: self.drain_seconds,
            calibrate_frames: self.calibrate_frames,
            latency_repeats: self.latency_repeats,
            latency_s: self.latency_seconds,
            latency_probe_fps: self.latency_probe_fps,
            latency_fps: self.latency_fps,
        }
    }
}

/// Checks the options after the flags are applied with the checks a bench
/// file's `tester` section gets ([`zynq_net_model::check_bench`]: the
/// schema's ranges, rule bench-tester-range with the model's
/// [`zynq_net_model::bench::TESTER_FRAME_RANGE`], `TESTER_MAX_FLOWS` and
/// `TESTER_MAX_PROBES`): every problem at once, one line each, named by
/// the flag that sets the key and the key in the file
/// (`--frame-sizes: frame size 32 outside 64..2048 bytes (in a bench file:
/// tester.frame_sizes)`).
fn validate(o: &Options) -> Result<(), BenchError> {
    let bench = zynq_net_model::bench::Bench {
        dut: None,
        peers: Vec::new(),
        matrix: None,
        rfc2544: None,
        tester: Some(o.to_model()),
    };
    let errs: Vec<String> = zynq_net_model::check_bench(&bench)
        .iter()
        .map(|d| {
            let key = d.pointer.trim_start_matches("/tester").trim_start_matches('/');
            let name = key.split('/').next().unwrap_or_default();
            let flag = FLAGS.iter().find(|(k, _)| *k == name).map_or(name, |(_, f)| f);
            // the flag is in bit/s, the key (and so the message) in whole
            // Mbit/s, rounded down
            let given = if name == "line_rate_mbps" {
                format!(" {} bit/s, {} in whole Mbit/s", o.line_rate_bps, (o.line_rate_bps / 1e6) as u32)
            } else {
                String::new()
            };
            // a hint that is a sentence loses its full stop before the bracket
            let hint =
                d.hint.as_deref().map_or(String::new(), |h| format!("; {}", flag_words(h.trim_end_matches('.'))));
            format!(
                "{flag}{given}: {}{hint} (in a bench file: tester.{})",
                flag_words(&d.message),
                key.replace('/', ".")
            )
        })
        .collect();
    if errs.is_empty() {
        Ok(())
    } else {
        Err(BenchError::Invalid(errs.join("\n")))
    }
}

fn secs(x: f64) -> Duration {
    Duration::from_secs_f64(x.max(0.0))
}

/// Runs the tests; writes `tester.json` and `tester.md` into `out`; prints progress unless `quiet`.
pub fn run(o: &Options, out: &Path, quiet: bool) -> Result<Report, BenchError> {
    validate(o)?;
    // The lab, or the targets file, before anything runs or is written (a
    // bad one was found only after the calibration, leaving an empty run
    // directory); the DUT behind a targets file is pinged for its MAC
    // address once the calibration is done.
    let ends = match &o.targets {
        Some(f) => Some(crate::tester_targets::read(f)?),
        None => {
            crate::lab::state(&o.lab)?;
            None
        }
    };
    crate::records::output_dir(out)?;
    let ways = if o.duplex { vec![Way::Ab, Way::Ba] } else { vec![Way::Ab] };
    let work: PathBuf = out.join("tester");
    let say = |s: String| {
        if !quiet {
            zynq_net_model::eoutln!("{s}");
        }
    };
    let mut ceilings = Vec::new();
    if o.calibrate_frames > 0 {
        let (a, b) = tester::calibration_ports(&o.lab)?;
        let res = Tester::new(a, b, o.flows, work.join("calibration"))
            .and_then(|t| tester::calibrate(&t, &ways, &o.frame_sizes, o.calibrate_frames));
        tester::remove_calibration_ports(&o.lab);
        ceilings = res?;
        for c in &ceilings {
            say(format!(
                "calibration {} B port to port: {}",
                c.frame_size,
                c.fps.iter().map(|(w, f)| format!("{} {:.0} frames/s", w.label(), f)).collect::<Vec<_>>().join(", ")
            ));
        }
    }
    let (a, b, dut) = match &ends {
        Some(e) => {
            let (a, b, d) = crate::tester_targets::ports(e)?;
            (a, b, Some(d))
        }
        None => {
            let (a, b) = tester::lab_ports(&o.lab)?;
            (a, b, None)
        }
    };
    let t = Tester::new(a, b, o.flows, work.join("dut"))?;
    let res = match (&o.targets, o.frame_sizes.first()) {
        (Some(_), Some(&f)) => crate::tester_targets::check_forwards(&t, &ways, f),
        _ => Ok(()),
    }
    .and_then(|()| run_sizes(o, &t, &ways, &ceilings, &say));
    t.close();
    let frames = res?;
    let report =
        Report { format: FORMAT.into(), options: o.clone(), ways, ceilings, frames, deviations: deviations(o), dut };
    let j = out.join("tester.json");
    crate::records::write_file(&j, serde_json::to_string_pretty(&report).unwrap_or_default() + "\n")?;
    for (name, text) in [
        ("tester.md", markdown(&report)),
        ("tester.csv", throughput_table(&report).to_csv()),
        ("tester.html", html(&report)),
        ("tester-latency.csv", latency_table(&report).to_csv()),
    ] {
        if name == "tester-latency.csv" && report.frames.iter().all(|f| f.latency.is_none()) {
            continue;
        }
        let p = out.join(name);
        crate::records::write_file(&p, text)?;
    }
    // said even when quiet: a result to read with care, not progress
    for w in warnings(&report) {
        zynq_net_model::eoutln!("warning: {w}");
    }
    Ok(report)
}

/// Undoes what a run on lab `lab` added, for a run that was interrupted
/// (the CLI calls it from its signal handler thread): ends the tester's
/// child processes ([`crate::interrupt`]: SIGTERM), deletes the nftables
/// table [`tester::TABLE`] and the root (pacing) qdisc of the tester ports
/// (the lab's client and server `eth0`, which the lab itself leaves
/// without a root qdisc; only its router is shaped; and the ports of a
/// targets file, tracked by [`crate::interrupt::track_port`]) and the calibration
/// namespaces; then, 0.3 s later, SIGKILL to a child still there (trafgen
/// may still be flushing its ring) and the same deletions again (a `tc` or
/// `nft` the run had already started when the signal came has finished by
/// then: each takes milliseconds), and waits up to 5 s for the children to
/// end. Errors are ignored: what is already gone stays gone.
pub fn cleanup(lab: &str) {
    let [c, _, s] = crate::lab::namespaces(lab);
    for signal in ["TERM", "KILL"] {
        crate::interrupt::signal_children(signal);
        // The lab's ports, and any other port in use (a targets file's).
        let mut ports: Vec<(crate::exec::Host, String)> =
            [&c, &s].iter().map(|ns| (crate::exec::Host::Netns { name: (*ns).clone() }, "eth0".to_string())).collect();
        ports.extend(crate::interrupt::tracked_ports());
        for (h, dev) in &ports {
            let _ = h.output(&crate::exec::argv(&["nft", "delete", "table", "netdev", tester::TABLE]));
            let _ = h.output(&crate::exec::argv(&["tc", "qdisc", "del", "dev", dev, "root"]));
        }
        tester::remove_calibration_ports(lab);
        if signal == "TERM" {
            std::thread::sleep(Duration::from_millis(300));
        }
    }
    // Exit only once the children have ended: a process tearing down a
    // packet ring can take a while on a loaded host after SIGKILL, and one
    // left behind would go on sending into the namespaces.
    let _ = crate::interrupt::wait_children(Duration::from_secs(5));
}

fn run_sizes(
    o: &Options,
    t: &Tester,
    ways: &[Way],
    ceilings: &[Ceiling],
    say: &dyn Fn(String),
) -> Result<Vec<FrameReport>, BenchError> {
    let mut frames = Vec::new();
    for &f in &o.frame_sizes {
        let line = max_fps(o.line_rate_bps, f);
        let ceiling = ceilings.iter().find(|c| c.frame_size == f).map(Ceiling::min_fps);
        let top = ceiling.map_or(line, |c| c.min(line));
        let mut trial = |fps: f64, count: u64| -> Result<Vec<DirTrial>, BenchError> {
            std::thread::sleep(secs(o.settle_seconds));
            t.learn(ways, f, secs(o.learning_seconds))?;
            t.trial(ways, f, fps, count, secs(o.drain_seconds))
        };
        let mut fr = FrameReport {
            frame_size: f,
            max_fps: line,
            ceiling_fps: ceiling,
            top_fps: top,
            ndr: None,
            pdr: Vec::new(),
            frame_loss: Vec::new(),
            back_to_back: None,
            latency: None,
        };
        for test in &o.tests {
            match test {
                Test::Throughput => {
                    let ndr = suite::throughput(
                        top,
                        &SearchSettings { loss_tolerance_percent: 0.0, ..o.search.clone() },
                        &mut trial,
                    )?;
                    say(format!(
                        "{f} B NDR {:.0} frames/s per direction ({} search trials, confirmed {})",
                        ndr.fps, ndr.search_trials, ndr.confirmed
                    ));
                    for &p in &o.pdr_percent {
                        let r = suite::throughput(
                            top,
                            &SearchSettings { loss_tolerance_percent: p, ..o.search.clone() },
                            &mut trial,
                        )?;
                        say(format!("{f} B PDR {p} %: {:.0} frames/s", r.fps));
                        fr.pdr.push(r);
                    }
                    fr.ndr = Some(ndr);
                }
                Test::FrameLoss => {
                    fr.frame_loss = suite::frame_loss(line, o.loss_step_percent, o.loss_trial_seconds, &mut trial)?;
                    say(format!("{f} B frame loss: {} steps", fr.frame_loss.len()));
                }
                Test::BackToBack => {
                    let b = suite::back_to_back(o.b2b_max_frames, o.b2b_repeats, o.b2b_resolution_percent, &mut trial)?;
                    say(format!("{f} B back-to-back: {:?} frames (mean {:.1})", b.bursts, b.mean));
                    fr.back_to_back = Some(b);
                }
                Test::Latency => {
                    let (fps, from) = match (o.latency_fps, &fr.ndr) {
                        (Some(f), _) => (f, "fixed"),
                        (None, Some(n)) => (n.fps, "ndr"),
                        (None, None) => (0.0, "ndr"),
                    };
                    if fps <= 0.0 {
                        say(format!("{f} B latency: skipped, no throughput rate to run it at"));
                        continue;
                    }
                    let mut before = || -> Result<(), BenchError> {
                        std::thread::sleep(secs(o.settle_seconds));
                        t.learn(ways, f, secs(o.learning_seconds))
                    };
                    let l = latency::run(
                        t,
                        ways,
                        f,
                        fps,
                        from,
                        o.latency_probe_fps,
                        o.latency_seconds,
                        o.latency_repeats,
                        secs(o.drain_seconds),
                        &mut before,
                    )?;
                    for d in &l.summary {
                        say(format!(
                            "{f} B latency {} at {fps:.0} frames/s: {}",
                            d.way.label(),
                            d.latency.as_ref().map_or("no probe arrived".to_string(), |s| format!(
                                "min {:.1} mean {:.1} median {:.1} p99 {:.1} max {:.1} us ({}/{} probes)",
                                s.min_us, s.mean_us, s.median_us, s.p99_us, s.max_us, d.probes_received, d.probes_sent
                            ))
                        ));
                    }
                    fr.latency = Some(l);
                }
            }
        }
        frames.push(fr);
    }
    Ok(frames)
}

/// How this run differs from RFC 2544 and from a hardware analyser.
pub fn deviations(o: &Options) -> Vec<String> {
    let mut d = vec![
        "The tester is trafgen (netsniff-ng, packet mmap) on host network stacks, not a hardware analyser: frame timing is the host's; the searches' top is the lower of the line-rate maximum and the generator's port-to-port ceiling, and a result at the ceiling says the tester, not the DUT, was the limit.".to_string(),
        "Frames received are counted by nftables netdev ingress counters on the far port that match only the test flows; frames sent are trafgen's count (the port's own tx counter is kept beside it).".to_string(),
    ];
    if o.search.trial_seconds < 60.0 || o.search.final_seconds < 60.0 {
        d.push(format!(
            "Trials of {} s (search) and {} s (final) where RFC 2544 §24 asks for at least 60 s.",
            o.search.trial_seconds, o.search.final_seconds
        ));
    }
    if o.drain_seconds < 2.0 || o.settle_seconds < 5.0 {
        d.push(format!(
            "Waits of {} s before each trial and {} s after it where RFC 2544 §23 has about 5 s and 2 s.",
            o.settle_seconds, o.drain_seconds
        ));
    }
    if o.b2b_repeats < 50 {
        d.push(format!("Back-to-back repeated {} times (RFC 2544 §26.4: 50).", o.b2b_repeats));
    }
    if o.tests.contains(&Test::Latency) {
        d.push("Latency is timed by the host kernel's software stamps on both ports (packet-socket taps, netsniff-ng: sent when the frame leaves the sending port's qdisc, received at the far port's ingress), one clock since both ports are namespaces of this host; it is not NIC hardware timestamping (the wire's first and last bit, RFC 1242 §3.8), and it includes the veth hops and this host's softirq scheduling.".into());
        d.push(format!(
            "Latency from a stream of tagged probes ({} per second per direction, over the middle half of each trial, the load lowered by as much) rather than one tagged frame per trial; every probe's latency is kept and summarised (min, mean, median, p99, max).",
            o.latency_probe_fps
        ));
        if o.latency_repeats < 20 || o.latency_seconds < 120.0 {
            d.push(format!(
                "Latency: {} trial(s) of {} s where RFC 2544 §26.2 asks for at least 20 of at least 120 s.",
                o.latency_repeats, o.latency_seconds
            ));
        }
        if o.latency_fps.is_some() {
            d.push(
                "Latency at a rate given by --latency-fps, not at the throughput rate RFC 2544 §26.2 asks for.".into(),
            );
        }
    } else {
        d.push("No latency test (RFC 2544 §26.2) in this run.".into());
    }
    d
}

fn fmt_fps(x: f64) -> String {
    format!("{x:.0}")
}

fn t(s: impl Into<String>) -> Inline {
    Inline::text(s)
}

/// The analyser-shaped throughput table: per frame size and direction, the
/// NDR in frames/s, payload Mbit/s (UDP payload, `F - 46` bytes a frame),
/// % of line rate, the generator's ceiling and what limited the result.
pub fn throughput_table(r: &Report) -> Table {
    let mut tb = Table::new(&[
        ("frame size (B)", Align::Right),
        ("direction", Align::Left),
        ("NDR frames/s", Align::Right),
        ("payload Mbit/s", Align::Right),
        ("line rate %", Align::Right),
        ("generator ceiling frames/s", Align::Right),
        ("limited by", Align::Left),
    ]);
    for f in &r.frames {
        let Some(n) = &f.ndr else { continue };
        for w in &r.ways {
            let payload = n.fps * 8.0 * f64::from(tester::payload_len(f.frame_size)) / 1e6;
            let ceiling = r
                .ceilings
                .iter()
                .find(|c| c.frame_size == f.frame_size)
                .and_then(|c| c.fps.iter().find(|(x, _)| x == w))
                .map(|(_, v)| *v);
            let limited = limited_by(f, n);
            tb.row([
                t(f.frame_size.to_string()),
                t(w.label()),
                t(fmt_fps(n.fps)),
                t(format!("{payload:.3}")),
                t(format!("{:.1}", line_percent(n.fps, f.frame_size, r.options.line_rate_bps))),
                t(ceiling.map_or("-".into(), fmt_fps)),
                t(limited),
            ]);
        }
    }
    tb
}

/// The latency table (`tester-latency.csv`): per frame size and
/// direction, the rate under test, where it came from, the trials, the
/// probes received of those sent and min/mean/median/p99/max in µs over
/// every probe of every trial.
pub fn latency_table(r: &Report) -> Table {
    let mut tb = Table::new(&[
        ("frame size (B)", Align::Right),
        ("direction", Align::Left),
        ("frames/s", Align::Right),
        ("rate", Align::Left),
        ("trials", Align::Right),
        ("probes received", Align::Right),
        ("probes sent", Align::Right),
        ("min us", Align::Right),
        ("mean us", Align::Right),
        ("median us", Align::Right),
        ("p99 us", Align::Right),
        ("max us", Align::Right),
    ]);
    for f in &r.frames {
        let Some(l) = &f.latency else { continue };
        for d in &l.summary {
            let us =
                |g: fn(&latency::Summary) -> f64| d.latency.as_ref().map_or("-".into(), |s| format!("{:.1}", g(s)));
            tb.row([
                t(f.frame_size.to_string()),
                t(d.way.label()),
                t(fmt_fps(l.offered_fps)),
                t(l.rate_from.clone()),
                t(l.trials.len().to_string()),
                t(d.probes_received.to_string()),
                t(d.probes_sent.to_string()),
                t(us(|s| s.min_us)),
                t(us(|s| s.mean_us)),
                t(us(|s| s.median_us)),
                t(us(|s| s.p99_us)),
                t(us(|s| s.max_us)),
            ]);
        }
    }
    tb
}

/// The whole report as a document: the throughput table, the PDRs,
/// back-to-back, the loss curve and the deviations.
pub fn document(r: &Report) -> Doc {
    let mut d = Doc::default();
    d.push(Block::H1(t(format!(
        "RFC 2544 ({}, {} flow(s) per port, line rate {:.1} Mbit/s)",
        if r.options.duplex { "full duplex" } else { "A to B" },
        r.options.flows,
        r.options.line_rate_bps / 1e6
    ))));
    if let Some(dut) = &r.dut {
        d.push(Block::Para(t(format!("DUT: {dut}"))));
    }
    if r.frames.iter().any(|f| f.ndr.is_some()) {
        d.push(Block::H2(t("Throughput (NDR)")));
        d.push(Block::Table(throughput_table(r)));
    }
    if r.frames.iter().any(|f| !f.pdr.is_empty()) {
        let mut tb = Table::new(&[
            ("frame size (B)", Align::Right),
            ("loss tolerated %", Align::Right),
            ("frames/s per direction", Align::Right),
            ("payload Mbit/s", Align::Right),
            ("line rate %", Align::Right),
            ("confirmed", Align::Left),
            ("limited by", Align::Left),
        ]);
        for f in &r.frames {
            for p in &f.pdr {
                tb.row([
                    t(f.frame_size.to_string()),
                    t(p.loss_tolerance_percent.to_string()),
                    t(fmt_fps(p.fps)),
                    t(format!("{:.3}", p.fps * 8.0 * f64::from(tester::payload_len(f.frame_size)) / 1e6)),
                    t(format!("{:.1}", line_percent(p.fps, f.frame_size, r.options.line_rate_bps))),
                    t(if p.confirmed { "yes" } else { "no" }),
                    t(limited_by(f, p)),
                ]);
            }
        }
        d.push(Block::H2(t("Partial drop rate (PDR)")));
        d.push(Block::Table(tb));
    }
    if r.frames.iter().any(|f| f.back_to_back.is_some()) {
        let mut tb = Table::new(&[
            ("frame size (B)", Align::Right),
            ("back-to-back frames (mean)", Align::Right),
            ("min", Align::Right),
            ("max", Align::Right),
            ("repetitions", Align::Right),
            ("burst frames/s", Align::Right),
        ]);
        for f in &r.frames {
            if let Some(b) = &f.back_to_back {
                let (mn, mx) =
                    (b.bursts.iter().min().copied().unwrap_or(0), b.bursts.iter().max().copied().unwrap_or(0));
                let mean = if b.unbounded { format!("> {:.1}", b.mean) } else { format!("{:.1}", b.mean) };
                tb.row([
                    t(f.frame_size.to_string()),
                    t(mean),
                    t(mn.to_string()),
                    t(mx.to_string()),
                    t(b.bursts.len().to_string()),
                    t(fmt_fps(b.burst_fps)),
                ]);
            }
        }
        d.push(Block::H2(t("Back-to-back")));
        d.push(Block::Table(tb));
    }
    if r.frames.iter().any(|f| !f.frame_loss.is_empty()) {
        let mut cols: Vec<(String, Align)> = vec![
            ("frame size (B)".into(), Align::Right),
            ("offered % of line rate".into(), Align::Right),
            ("frames/s asked".into(), Align::Right),
        ];
        cols.extend(r.ways.iter().map(|w| (format!("{} loss %", w.label()), Align::Right)));
        cols.push(("sender short".into(), Align::Left));
        let refs: Vec<(&str, Align)> = cols.iter().map(|(c, a)| (c.as_str(), *a)).collect();
        let mut tb = Table::new(&refs);
        for f in &r.frames {
            for st in &f.frame_loss {
                let mut row =
                    vec![t(f.frame_size.to_string()), t(format!("{:.0}", st.percent)), t(fmt_fps(st.offered_fps))];
                row.extend(st.dirs.iter().map(|x| t(format!("{:.2}", x.loss_percent()))));
                row.push(t(if st.sender_short { "yes" } else { "no" }));
                tb.row(row);
            }
        }
        d.push(Block::H2(t("Frame loss rate")));
        d.push(Block::Table(tb));
    }
    if r.frames.iter().any(|f| f.latency.is_some()) {
        d.push(Block::H2(t("Latency")));
        d.push(Block::Table(latency_table(r)));
    }
    let w = warnings(r);
    if !w.is_empty() {
        d.push(Block::List { lead: Some(t("Warnings:")), items: w.iter().map(t).collect() });
    }
    d.push(Block::List { lead: Some(t("Deviations from RFC 2544:")), items: r.deviations.iter().map(t).collect() });
    d
}

/// The trials' warnings (the steps' `notes`: a far port that counted more
/// frames than were sent), each named by frame size, test and trial.
pub fn warnings(r: &Report) -> Vec<String> {
    let mut out = Vec::new();
    for f in &r.frames {
        let searches = f.ndr.iter().map(|x| ("NDR".to_string(), x));
        for (name, th) in searches.chain(f.pdr.iter().map(|p| (format!("PDR {} %", p.loss_tolerance_percent), p))) {
            for st in &th.steps {
                let which = if st.final_trial { "final trial" } else { "trial" };
                out.extend(st.notes.iter().map(|n| format!("{} B, {name} {which} {}: {n}", f.frame_size, st.n)));
            }
        }
        for st in &f.frame_loss {
            out.extend(st.notes.iter().map(|n| format!("{} B, frame loss at {} %: {n}", f.frame_size, st.percent)));
        }
        if let Some(b) = &f.back_to_back {
            out.extend(b.notes.iter().map(|n| format!("{} B, back-to-back {n}", f.frame_size)));
        }
    }
    out
}

/// `tester.md`.
pub fn markdown(r: &Report) -> String {
    document(r).to_markdown()
}

/// `tester.html`: the same document as one self-contained page.
pub fn html(r: &Report) -> String {
    crate::table::html_page("RFC 2544", "", &document(r).to_html())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::records::tester::{LossStep, Throughput};

    /// A bad targets file is refused before the calibration runs or the
    /// run directory is made (it was read only after both, leaving an
    /// empty directory).
    #[test]
    fn a_bad_targets_file_is_refused_before_the_run_directory_is_made() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("targets.json");
        std::fs::write(
            &f,
            r#"{"format": "zynq-net-bench-targets 1", "client": {"host": {"kind": "local"}, "address": "10.0.0.2"},
                "server": {"host": {"kind": "netns", "name": "b"}, "address": "10.0.1.2"}}"#,
        )
        .unwrap();
        let out = d.path().join("run");
        let o = Options { targets: Some(f), ..Options::default() };
        let e = run(&o, &out, true).unwrap_err().to_string();
        assert!(e.contains("client.host is local"), "{e}");
        assert!(!out.exists(), "run directory made before the targets file was checked");
        let o = Options { targets: Some(d.path().join("missing.json")), ..Options::default() };
        assert!(run(&o, &out, true).is_err() && !out.exists());
    }

    #[test]
    fn bad_options_are_refused_all_at_once() {
        let o = Options {
            frame_sizes: vec![63, 64],
            flows: 0,
            loss_step_percent: 12.0,
            pdr_percent: vec![0.0],
            drain_seconds: -1.0,
            search: SearchSettings { trial_seconds: f64::NAN, ..Options::default().search },
            ..Options::default()
        };
        let e = validate(&o).unwrap_err().to_string();
        // the file's checks (rule bench-tester-range, the schema's
        // ranges), each named by its flag, all at once
        for want in [
            "--frame-sizes: frame size 63 outside 64..2048 bytes; the tester builds frames of 64 to 2048 bytes",
            "--flows: 0 is less than the minimum of 1",
            "--loss-step: 12 is outside (0, 10] percent",
            "--pdr: 0 is outside (0, 100) percent",
            "--drain: -1 is outside [0, 3600] seconds",
            "--trial-seconds: NaN or infinity: not a finite number",
        ] {
            assert!(e.contains(want), "{want} missing from:\n{e}");
        }
        assert_eq!(e.lines().count(), 6, "one line per problem:\n{e}");
        // the integer ranges are the schema's: flows up to TESTER_MAX_FLOWS,
        // each count at least 1 (they were one combined message)
        let o = Options {
            flows: zynq_net_model::bench::TESTER_MAX_FLOWS + 1,
            search: SearchSettings { max_trials: 0, ..Options::default().search },
            b2b_max_frames: 0,
            b2b_repeats: 0,
            ..Options::default()
        };
        let e = validate(&o).unwrap_err().to_string();
        for want in [
            "--flows: 4097 is greater than the maximum of 4096",
            "--max-trials: 0 is less than the minimum of 1",
            "--b2b-max-frames: 0 is less than the minimum of 1",
            "--b2b-repeats: 0 is less than the minimum of 1",
        ] {
            assert!(e.contains(want), "{want} missing from:\n{e}");
        }
        assert!(validate(&Options::default()).is_ok());
        // upper bounds and repeats (a wait of 1e20 s panicked in the sleep)
        let o = Options {
            frame_sizes: vec![64, 128, 64],
            pdr_percent: vec![0.1, 0.1],
            settle_seconds: 1e20,
            learning_seconds: 3600.5,
            line_rate_bps: 999_999.0,
            search: SearchSettings { resolution_percent: 100.0, final_seconds: 86400.5, ..Options::default().search },
            ..Options::default()
        };
        let e = validate(&o).unwrap_err().to_string();
        for want in [
            "--frame-sizes: `64` is listed twice",
            "--pdr: `0.1` is listed twice",
            "--settle: 100000000000000000000 is outside [0, 3600] seconds",
            "--learning-wait: 3600.5 is outside [0, 3600] seconds",
            "--line-rate 999999 bit/s, 0 in whole Mbit/s: 0 is less than the minimum of 1",
            "--resolution: 100 is outside (0, 50] percent",
            "--final-seconds: 86400.5 is outside (0, 86400] seconds",
        ] {
            assert!(e.contains(want), "{want} missing from:\n{e}");
        }
        // the bounds themselves pass
        let o = Options {
            settle_seconds: 3600.0,
            drain_seconds: 0.0,
            line_rate_bps: 1e6,
            search: SearchSettings { resolution_percent: 50.0, final_seconds: 86400.0, ..Options::default().search },
            ..Options::default()
        };
        validate(&o).unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn latency_options_are_checked_and_need_a_rate() {
        let o = Options { tests: vec![Test::Latency], ..Options::default() };
        let e = validate(&o).unwrap_err().to_string();
        assert!(e.contains("--tests: latency runs at each frame size's throughput (NDR)"), "{e}");
        assert!(e.contains("list throughput before latency, or give --latency-fps"), "{e}");
        let o = Options { tests: vec![Test::Latency, Test::Throughput], ..Options::default() };
        assert!(validate(&o).is_err());
        let o = Options { tests: vec![Test::Throughput, Test::Latency], ..Options::default() };
        validate(&o).unwrap_or_else(|e| panic!("{e}"));
        let o = Options {
            tests: vec![Test::Latency],
            latency_fps: Some(5.0),
            latency_repeats: 0,
            latency_seconds: 0.0,
            latency_probe_fps: 0.5,
            ..Options::default()
        };
        let e = validate(&o).unwrap_err().to_string();
        for want in
            ["--latency-fps: 5 ", "--latency-repeats: 0 ", "--latency-seconds: 0 ", "--latency-probe-rate: 0.5 "]
        {
            assert!(e.contains(want), "{want} missing from:\n{e}");
        }
        let o = Options {
            tests: vec![Test::Latency],
            latency_fps: Some(1e4),
            latency_probe_fps: 1000.0,
            latency_seconds: 60.0,
            ..Options::default()
        };
        let e = validate(&o).unwrap_err().to_string();
        assert!(e.contains("--latency-probe-rate: 1000 probes/s over half of a 60 s trial is 30000 probes"), "{e}");
        assert!(e.contains("lower --latency-probe-rate or --latency-seconds"), "{e}");
        // The deviations say what the latency run is not.
        let d = deviations(&Options { tests: vec![Test::Throughput, Test::Latency], ..Options::default() }).join("\n");
        assert!(d.contains("not NIC hardware timestamping") && d.contains("3 trial(s) of 4 s"), "{d}");
        assert!(deviations(&Options::default()).join("\n").contains("No latency test"));
    }

    /// The tester is the limit from 95 % of its calibrated ceiling up
    /// (that rate itself included), the DUT below it.
    #[test]
    fn the_tester_limits_from_95_percent_of_its_ceiling() {
        let c = 100_000.0;
        let f = FrameReport {
            frame_size: 64,
            max_fps: crate::records::max_fps(1e9, 64),
            ceiling_fps: Some(c),
            top_fps: c,
            ndr: None,
            pdr: vec![],
            frame_loss: vec![],
            back_to_back: None,
            latency: None,
        };
        let n = |fps: f64| Throughput {
            loss_tolerance_percent: 0.0,
            fps,
            confirmed: true,
            search_trials: 1,
            lowest_fail_fps: None,
            tester_limited: false,
            steps: vec![],
        };
        assert_eq!(limited_by(&f, &n(0.95 * c)), "tester");
        assert_eq!(limited_by(&f, &n(0.95 * c - 0.5)), "DUT");
        assert_eq!(limited_by(&FrameReport { ceiling_fps: None, ..f.clone() }, &n(c)), "DUT");
        assert_eq!(limited_by(&f, &Throughput { tester_limited: true, ..n(1.0) }), "tester");
    }

    /// --loss-step and --pdr at their open ends: a step of 0 and a PDR of
    /// 100 % are refused.
    #[test]
    fn a_loss_step_of_0_and_a_pdr_of_100_are_refused() {
        let e = validate(&Options { loss_step_percent: 0.0, pdr_percent: vec![100.0], ..Options::default() })
            .unwrap_err()
            .to_string();
        assert!(e.contains("--loss-step: 0 is outside (0, 10]") && e.contains("--pdr: 100 is outside (0, 100)"), "{e}");
        validate(&Options { loss_step_percent: 10.0, pdr_percent: vec![99.5], ..Options::default() })
            .unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn latency_options_at_their_bounds_pass() {
        // 1 probe/s, 10 frames/s, and exactly MAX_PROBES probes per trial
        // (1000 probes/s over half of 40 s) are allowed; one more is not.
        let at = Options {
            tests: vec![Test::Latency],
            latency_fps: Some(10.0),
            latency_probe_fps: 1.0,
            ..Options::default()
        };
        validate(&at).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(latency::probes_for(1000.0, 40.0), latency::MAX_PROBES);
        let most = Options { latency_probe_fps: 1000.0, latency_seconds: 40.0, ..at.clone() };
        validate(&most).unwrap_or_else(|e| panic!("{e}"));
        let over = Options { latency_seconds: 40.002, ..most };
        let e = validate(&over).unwrap_err().to_string();
        assert!(e.contains("is 20001 probes, above the tester's 20000"), "{e}");
        let e = validate(&Options { latency_fps: Some(9.5), latency_probe_fps: 0.99, ..at }).unwrap_err().to_string();
        assert!(e.contains("--latency-fps: 9.5 is below") && e.contains("--latency-probe-rate: 0.99 is below"), "{e}");
    }

    #[test]
    fn deviations_start_just_below_the_rfc_figures() {
        // RFC 2544 §24 (60 s trials), §23 (5 s settle, 2 s drain), §26.4 (50
        // back-to-back), §26.2 (20 latency trials of 120 s): a run exactly at
        // a figure deviates in nothing; one step below it, in that one thing.
        let at = Options {
            tests: vec![Test::Throughput, Test::Latency],
            search: SearchSettings { trial_seconds: 60.0, final_seconds: 60.0, ..Options::default().search },
            settle_seconds: 5.0,
            drain_seconds: 2.0,
            b2b_repeats: 50,
            latency_repeats: 20,
            latency_seconds: 120.0,
            ..Options::default()
        };
        let d = deviations(&at).join("\n");
        for not in ["§24", "§23", "§26.4", "at least 20 of"] {
            assert!(!d.contains(not), "{not} at the RFC figure:\n{d}");
        }
        let below = |o: Options, want: &str| {
            let d = deviations(&o).join("\n");
            assert!(d.contains(want), "{want} missing from:\n{d}");
        };
        let s = at.search.clone();
        below(Options { search: SearchSettings { trial_seconds: 59.5, ..s.clone() }, ..at.clone() }, "59.5 s (search)");
        below(Options { search: SearchSettings { final_seconds: 59.5, ..s }, ..at.clone() }, "59.5 s (final)");
        below(Options { settle_seconds: 4.5, ..at.clone() }, "Waits of 4.5 s before");
        below(Options { drain_seconds: 1.5, ..at.clone() }, "1.5 s after it");
        below(Options { b2b_repeats: 49, ..at.clone() }, "repeated 49 times");
        below(Options { latency_repeats: 19, ..at.clone() }, "19 trial(s) of 120 s");
        below(Options { latency_seconds: 119.5, ..at.clone() }, "20 trial(s) of 119.5 s");
    }

    fn dir(way: Way, sent: u64, received: u64) -> DirTrial {
        DirTrial { way, asked_fps: 0.0, sent, port_tx: sent, received, send_seconds: 1.0, error: None }
    }

    #[test]
    fn the_table_has_a_row_per_size_and_direction_in_the_analysers_terms() {
        let ndr = Throughput {
            loss_tolerance_percent: 0.0,
            fps: 81_274.4,
            confirmed: true,
            search_trials: 1,
            lowest_fail_fps: None,
            tester_limited: false,
            steps: vec![],
        };
        let r = Report {
            format: FORMAT.into(),
            options: Options { frame_sizes: vec![1518], ..Options::default() },
            ways: vec![Way::Ab, Way::Ba],
            ceilings: vec![Ceiling {
                frame_size: 1518,
                fps: vec![(Way::Ab, 82_000.0), (Way::Ba, 200_000.0)],
                trials: vec![],
            }],
            frames: vec![FrameReport {
                frame_size: 1518,
                max_fps: 81_274.4,
                ceiling_fps: Some(82_000.0),
                top_fps: 81_274.4,
                ndr: Some(ndr.clone()),
                pdr: vec![
                    Throughput { loss_tolerance_percent: 2.0, fps: 40_000.0, ..ndr.clone() },
                    Throughput { loss_tolerance_percent: 5.0, fps: 79_000.0, ..ndr },
                ],
                frame_loss: vec![LossStep {
                    percent: 100.0,
                    offered_fps: 81_274.4,
                    sender_short: false,
                    dirs: vec![dir(Way::Ab, 1000, 990), dir(Way::Ba, 1000, 1000)],
                    notes: vec![],
                }],
                back_to_back: None,
                latency: None,
            }],
            deviations: vec!["d".into()],
            dut: Some("emulated router".into()),
        };
        let md = markdown(&r);
        assert!(md.contains("\nDUT: emulated router\n"), "{md}");
        // The PDR in the same terms: 40,000 frames/s of 1472 B payload is
        // 471.040 Mbit/s, 49.2 % of the 81,274 frames/s line rate.
        assert!(md.contains("| 1518 | 2 | 40000 | 471.040 | 49.2 | yes | DUT |"), "{md}");
        // At 96 % of the ceiling (82,000) the tester is the PDR's limit too.
        assert!(md.contains("| 1518 | 5 | 79000 | 930.304 | 97.2 | yes | tester |"), "{md}");
        // 1518 B at line rate: 1472 B of payload a frame, 957.087 Mbit/s; at
        // 99 % of the ceiling (82,000) the tester is the limit.
        assert!(md.contains("| 1518 | A->B | 81274 | 957.087 | 100.0 | 82000 | tester |"), "{md}");
        assert!(md.contains("| 1518 | 100 | 81274 | 1.00 | 0.00 | no |"), "{md}");
        let csv = throughput_table(&r).to_csv();
        assert_eq!(csv.lines().count(), 3, "{csv}");
        assert!(!md.contains("Warnings:"), "{md}");
    }

    /// A trial whose far port counted more frames than were sent (the
    /// trafgen tester through TCG counted 16 more) carries a warning on its
    /// step, and the report lists it; the step still passes (no frame is
    /// known lost).
    #[test]
    fn received_more_than_sent_is_a_warning_on_the_step_and_in_the_report() {
        let s = SearchSettings { max_trials: 1, ..Options::default().search };
        let th = suite::throughput(1000.0, &s, |_, n| Ok(vec![dir(Way::Ab, n, n + 16), dir(Way::Ba, n, n)])).unwrap();
        let st = &th.steps[0];
        assert!(st.pass, "{st:?}");
        assert_eq!(st.notes.len(), 1, "{st:?}");
        assert!(st.notes[0].starts_with("A->B: received 2016 > sent 2000 (16 more)"), "{}", st.notes[0]);
        let loss = suite::frame_loss(1000.0, 10.0, 1.0, |_, n| Ok(vec![dir(Way::Ab, n, n + 1)])).unwrap();
        assert!(loss.iter().all(|l| l.notes.len() == 1), "{loss:?}");
        let b2b = suite::back_to_back(4, 1, 1.0, |_, n| Ok(vec![dir(Way::Ab, n, n + 2)])).unwrap();
        assert!(b2b.notes.iter().all(|n| n.starts_with("burst of 4 frames: A->B: received 6 > sent 4")), "{b2b:?}");
        assert!(!b2b.notes.is_empty());
        let r = Report {
            format: FORMAT.into(),
            options: Options { frame_sizes: vec![64], ..Options::default() },
            ways: vec![Way::Ab, Way::Ba],
            ceilings: vec![],
            frames: vec![FrameReport {
                frame_size: 64,
                max_fps: 1000.0,
                ceiling_fps: None,
                top_fps: 1000.0,
                ndr: Some(th),
                pdr: vec![],
                frame_loss: loss,
                back_to_back: Some(b2b),
                latency: None,
            }],
            deviations: vec![],
            dut: None,
        };
        let md = markdown(&r);
        assert!(md.contains("Warnings:") && md.contains("64 B, NDR trial 1: A->B: received 2016 > sent 2000"), "{md}");
        assert!(md.contains("64 B, frame loss at 100 %: A->B: received"), "{md}");
        assert!(md.contains("64 B, back-to-back burst of 4 frames: A->B"), "{md}");
        // the notes are kept in tester.json, and a step without one writes none
        let j = serde_json::to_value(&r).unwrap();
        assert!(j.pointer("/frames/0/ndr/steps/0/notes/0").is_some(), "{j}");
        let clean = suite::throughput(1000.0, &s, |_, n| Ok(vec![dir(Way::Ab, n, n)])).unwrap();
        assert!(serde_json::to_value(&clean).unwrap().pointer("/steps/0/notes").is_none());
    }
}
