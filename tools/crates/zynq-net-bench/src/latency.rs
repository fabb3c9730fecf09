//! RFC 2544 §26.2 latency for the two-port tester ([`crate::tester`]): a
//! stream of tagged probe frames beside the load (TRex's latency streams,
//! MoonGen's timestamped probes), timed by the host kernel at both ports.
//!
//! ```text
//!  port A  trafgen load ─┐                                 ┌─▶ nft counter (load)
//!          trafgen probes┴▶ pacing tbf ─▶ TX tap ─▶ DUT ─▶ RX tap (port B)
//!                                    netsniff-ng (A)      netsniff-ng (B)
//!                                    send stamp           receive stamp
//! ```
//!
//! Probes (frames of the same size as the load, Ethernet II / IPv4 / UDP):
//! from 198.{A}.255.254 to 198.{B}.255.254 (a host no flow uses,
//! [`crate::tester::flow_host`] stops at x = 17), UDP source port
//! [`PROBE_SPORT`], destination port [`PROBE_DPORT`] (discard, RFC 863, not
//! the load's 7: the far port's nftables counter neither counts nor drops
//! them), payload [`MAGIC`], the direction byte (0 A to B, 1 B to A), three
//! zero bytes, the sequence number (u32, big endian), then zeros (a 64-byte
//! frame has 18 payload bytes, 12 used). trafgen sends them through the
//! port's qdisc (`-q`), so they join the load's pacing queue, spaced by its
//! gap option (`-t`, a sleep per frame, right for a few hundred frames/s);
//! the load is lowered by the probe rate so load plus probes is the rate
//! under test.
//!
//! Time stamps: `netsniff-ng` on each port writes the probes it sees in a
//! nanosecond pcap (`-T 0xa1b23c4d`, pcap-savefile(5)); the stamps are the
//! kernel's software stamps of its packet socket (net/packet/af_packet.c
//! tpacket_rcv, `CLOCK_REALTIME`): on the sending port when the frame
//! leaves the qdisc for the driver (net/core/dev.c dev_queue_xmit_nit, so
//! the tester's own pacing queue is not counted), on the far port when the
//! frame is received (`__netif_receive_skb_core`'s taps, before the
//! nftables netdev ingress hook). Latency = receive stamp - send stamp of
//! the same direction and sequence number. Both ports are namespaces of
//! this host: one clock, no synchronisation error. What this cannot see:
//! NIC hardware time stamps (the time the last bit left the PHY and the
//! first arrived, RFC 1242 §3.8), i.e. a real NIC's MAC/PHY and ring
//! delays; and it includes the veth hops and this host's softirq
//! scheduling (tens of µs on a loaded host).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::mpsc;
use std::time::Duration;

use crate::error::BenchError;
use crate::exec::{argv, Host};
use crate::suite::frames_for;
use crate::tester::{payload_len, trafgen_config, Port, Tester, Way, FRAME_RANGE};

/// The records this module produces ([`crate::records::tester`]).
pub use crate::records::tester::{DirLatency, Latency, LatencyTrial, Summary};

/// UDP destination port of the probes (discard, RFC 863).
pub const PROBE_DPORT: u16 = 9;

/// UDP source port of the probes (just below the load's flows).
pub const PROBE_SPORT: u16 = 49151;

/// First payload bytes of a probe.
pub const MAGIC: [u8; 4] = *b"ZNLP";

/// Most probes per direction and trial (the trafgen configuration holds
/// one frame per probe; the bench file's limit too).
pub const MAX_PROBES: u64 = zynq_net_model::bench::TESTER_MAX_PROBES;

/// pcap magic of nanosecond time stamps (pcap-savefile(5)).
pub const PCAP_NS_MAGIC: u32 = 0xa1b2_3c4d;

/// Seconds to wait for a capture to report it is running.
const CAPTURE_READY_SECONDS: u64 = 30;

fn way_byte(w: Way) -> u8 {
    match w {
        Way::Ab => 0,
        Way::Ba => 1,
    }
}

/// The trafgen configuration of `n` probes (sequence numbers `0..n`) of
/// `frame` bytes from `from` in direction `way` (one `{ ... }` per probe,
/// sent in order). Checks the frame size and MACs as
/// [`trafgen_config`] does.
pub fn probe_config(from: &Port, frame: u32, way: Way, n: u64) -> Result<String, BenchError> {
    // The load's checks (frame size, MACs, network), one flow.
    trafgen_config(from, frame, 1)?;
    if !(1..=MAX_PROBES).contains(&n) {
        return Err(BenchError::Invalid(format!("{n} probes: 1 to {MAX_PROBES} per trial")));
    }
    let (src, dst) = if from.net == 18 { (18, 19) } else { (19, 18) };
    let fill = payload_len(frame) - 12;
    let mut out = format!("/* zynq-net RFC 2544 latency probes: {n} of {frame} B from 198.{src}/16 */\n");
    for seq in 0..n {
        let mut p: Vec<u8> = MAGIC.to_vec();
        p.extend([way_byte(way), 0, 0, 0]);
        p.extend((seq as u32).to_be_bytes());
        let bytes: Vec<String> = p.iter().map(|b| format!("0x{b:02x}")).collect();
        out.push_str(&format!(
            "{{ eth(da={}, sa={}), ipv4(saddr=198.{src}.255.254, daddr=198.{dst}.255.254, ttl=64), udp(sport={PROBE_SPORT}, dport={PROBE_DPORT}), {}, fill(0x00, {fill}) }}\n",
            from.dut_mac,
            from.mac,
            bytes.join(", ")
        ));
    }
    Ok(out)
}

/// A probe seen in a capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    /// Direction written in the probe.
    pub way: Way,
    /// Sequence number.
    pub seq: u32,
    /// Kernel time stamp, nanoseconds since the epoch.
    pub ns: u64,
}

/// The probes in a nanosecond pcap file (pcap-savefile(5): a 24-byte
/// header with magic [`PCAP_NS_MAGIC`] in either byte order and link type
/// 1, Ethernet; then records of a 16-byte header, seconds, nanoseconds,
/// captured and original length, and the frame). Frames that are not
/// IPv4/UDP to [`PROBE_DPORT`] with [`MAGIC`] are skipped.
///
/// # Errors
/// [`BenchError::Invalid`] for a file that is not such a pcap or ends inside a record.
pub fn parse_pcap(d: &[u8]) -> Result<Vec<Seen>, BenchError> {
    let bad = |what: &str| BenchError::Invalid(format!("probe capture: {what}"));
    let head: [u8; 4] = d.get(0..4).and_then(|s| s.try_into().ok()).ok_or_else(|| bad("shorter than its header"))?;
    let le = if u32::from_le_bytes(head) == PCAP_NS_MAGIC {
        true
    } else if u32::from_be_bytes(head) == PCAP_NS_MAGIC {
        false
    } else {
        return Err(bad(&format!("magic {head:02x?}, not a nanosecond pcap (0xa1b23c4d)")));
    };
    let u32_at = |o: usize| -> Option<u32> {
        let b: [u8; 4] = d.get(o..o + 4)?.try_into().ok()?;
        Some(if le { u32::from_le_bytes(b) } else { u32::from_be_bytes(b) })
    };
    let link = u32_at(20).ok_or_else(|| bad("shorter than its header"))?;
    if link & 0xffff != 1 {
        return Err(bad(&format!("link type {link}, not Ethernet (1)")));
    }
    let mut out = Vec::new();
    let mut o = 24;
    while o < d.len() {
        let (Some(sec), Some(nsec), Some(len)) = (u32_at(o), u32_at(o + 4), u32_at(o + 8)) else {
            return Err(bad(&format!("a record header cut short at byte {o}")));
        };
        let start = o + 16;
        let frame = d.get(start..start + len as usize).ok_or_else(|| bad(&format!("a frame cut short at byte {o}")))?;
        o = start + len as usize;
        if let Some((way, seq)) = probe_of(frame) {
            out.push(Seen { way, seq, ns: u64::from(sec) * 1_000_000_000 + u64::from(nsec) });
        }
    }
    Ok(out)
}

/// Direction and sequence number of a probe frame (Ethernet II, IPv4, UDP).
fn probe_of(f: &[u8]) -> Option<(Way, u32)> {
    if f.get(12..14)? != [0x08, 0x00] {
        return None;
    }
    let ip = f.get(14..)?;
    let ihl = usize::from(ip.first()? & 0x0f) * 4;
    if ip.first()? >> 4 != 4 || *ip.get(9)? != 17 {
        return None;
    }
    let udp = ip.get(ihl..)?;
    if udp.get(2..4)? != PROBE_DPORT.to_be_bytes() {
        return None;
    }
    let p = udp.get(8..20)?;
    if p[0..4] != MAGIC {
        return None;
    }
    let way = match p[4] {
        0 => Way::Ab,
        1 => Way::Ba,
        _ => return None,
    };
    Some((way, u32::from_be_bytes([p[8], p[9], p[10], p[11]])))
}

impl Summary {
    /// Of latencies in nanoseconds (`None` when there are none).
    pub fn of(ns: &[i64]) -> Option<Summary> {
        if ns.is_empty() {
            return None;
        }
        let mut v: Vec<f64> = ns.iter().map(|&x| x as f64 / 1e3).collect();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 };
        let rank = ((0.99 * n as f64).ceil() as usize).clamp(1, n);
        Some(Summary {
            min_us: v[0],
            mean_us: v.iter().sum::<f64>() / n as f64,
            median_us: median,
            p99_us: v[rank - 1],
            max_us: v[n - 1],
        })
    }
}

/// One running capture (`netsniff-ng` writing a nanosecond pcap).
struct Capture {
    child: Child,
    child_id: u32,
    path: PathBuf,
    stdout: std::thread::JoinHandle<String>,
}

/// Starts `netsniff-ng` on `port` writing the probes it sees (both
/// directions, `udp dst port 9`) to `path`, and waits until it says it runs.
/// Options: `-s` silent, `-M` no promiscuous mode, `-Q` IRQ affinity
/// untouched, `-N` no hardware stamps, `-S 1MiB` ring (a start of ~1 s
/// instead of ~5 s with the default ring on a loaded host).
fn start_capture(port: &Port, path: &Path) -> Result<Capture, BenchError> {
    let _ = std::fs::remove_file(path);
    let p = path.to_string_lossy();
    let filter = format!("udp dst port {PROBE_DPORT}");
    let cmd = argv(&[
        "netsniff-ng",
        "-i",
        &port.dev,
        "-o",
        &p,
        "-s",
        "-T",
        "0xa1b23c4d",
        "-M",
        "-Q",
        "-N",
        "-S",
        "1MiB",
        "-f",
        &filter,
    ]);
    let mut child = port.host.spawn(&cmd)?;
    crate::interrupt::track(child.id());
    let out = child.stdout.take();
    let (tx, rx) = mpsc::channel();
    let stdout = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(o) = out {
            for line in BufReader::new(o).lines().map_while(Result::ok) {
                if line.contains("Running!") {
                    let _ = tx.send(());
                }
                text.push_str(&line);
                text.push('\n');
            }
        }
        text
    });
    let mut cap = Capture { child_id: child.id(), child, path: path.to_path_buf(), stdout };
    match rx.recv_timeout(Duration::from_secs(CAPTURE_READY_SECONDS)) {
        Ok(()) => Ok(cap),
        Err(_) => {
            let _ = cap.child.kill();
            let out = cap.child.wait_with_output();
            crate::interrupt::untrack(cap.child_id);
            let text = cap.stdout.join().unwrap_or_default();
            let err = out.map(|o| String::from_utf8_lossy(&o.stderr).into_owned()).unwrap_or_default();
            Err(BenchError::Command {
                cmd: format!("{} {}", port.host.label(), cmd.join(" ")),
                detail: format!("no `Running!` within {CAPTURE_READY_SECONDS} s: {}{}", text.trim(), err.trim()),
            })
        }
    }
}

impl Capture {
    /// Stops the capture (SIGINT: netsniff-ng closes its pcap) and returns the probes in it.
    fn stop(self) -> Result<Vec<Seen>, BenchError> {
        let pid = self.child.id().to_string();
        let _ = Host::Local {}.output(&argv(&["kill", "-INT", &pid]));
        let out = self
            .child
            .wait_with_output()
            .map_err(|e| BenchError::Command { cmd: "netsniff-ng".into(), detail: e.to_string() });
        crate::interrupt::untrack(self.child_id);
        let out = out?;
        let text = self.stdout.join().unwrap_or_default();
        let bytes = std::fs::read(&self.path).map_err(|e| BenchError::Command {
            cmd: "netsniff-ng".into(),
            detail: format!(
                "{}: {e} ({}; {}{})",
                self.path.display(),
                out.status,
                text.trim(),
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        })?;
        parse_pcap(&bytes)
    }
}

/// Latencies (ns) of direction `way`: each probe sent (in `tx`, the
/// sending port's capture) that reached the far port (in `rx`), receive
/// stamp minus send stamp; returns `(probes sent, latencies)`.
pub fn match_probes(way: Way, tx: &[Seen], rx: &[Seen]) -> (u64, Vec<i64>) {
    let sent: std::collections::BTreeMap<u32, u64> =
        tx.iter().filter(|s| s.way == way).map(|s| (s.seq, s.ns)).collect();
    let mut got = std::collections::BTreeMap::new();
    for s in rx.iter().filter(|s| s.way == way) {
        got.entry(s.seq).or_insert(s.ns);
    }
    let lat = got.iter().filter_map(|(seq, &r)| sent.get(seq).map(|&t| r as i64 - t as i64)).collect::<Vec<i64>>();
    (sent.len() as u64, lat)
}

/// One direction's probes of a trial: how many were sent, the latencies (ns) of those received.
type Probed = (u64, Vec<i64>);

/// Probes in a trial of `secs` at `probe_fps` (they cover its middle half).
pub fn probes_for(probe_fps: f64, secs: f64) -> u64 {
    frames_for(probe_fps, secs / 2.0)
}

/// The probe rate used for `fps` frames/s under test: `probe_fps`, at most a tenth of `fps`.
pub fn probe_rate(fps: f64, probe_fps: f64) -> f64 {
    probe_fps.min(fps / 10.0)
}

/// One latency trial at `fps` frames/s per direction in each of `ways`
/// (load `fps - probe_fps` through [`Tester::trial`], probes beside it from
/// a quarter of the trial on, for half of it), `secs` long; `n` numbers it.
/// Returns the trial and, per direction, the probes sent and the latencies (ns).
///
/// # Errors
/// A tool that fails to start, a capture that never runs or cannot be read.
#[allow(clippy::too_many_arguments)]
fn trial_raw(
    t: &Tester,
    ways: &[Way],
    frame: u32,
    fps: f64,
    probe_fps: f64,
    secs: f64,
    drain: Duration,
    n: u32,
) -> Result<(LatencyTrial, Vec<Probed>), BenchError> {
    if !((FRAME_RANGE.0..=FRAME_RANGE.1).contains(&frame) && fps > 0.0 && probe_fps > 0.0 && probe_fps < fps) {
        return Err(BenchError::Invalid(format!("latency trial: {frame} B, {fps} frames/s, {probe_fps} probes/s")));
    }
    let ends = |w: Way| match w {
        Way::Ab => (&t.a, &t.b),
        Way::Ba => (&t.b, &t.a),
    };
    let count = probes_for(probe_fps, secs);
    let mut cfgs = Vec::new();
    for &w in ways {
        let (from, _) = ends(w);
        let f = t.workdir.join(format!("probes-{}-{frame}-{count}.cfg", from.net));
        std::fs::write(&f, probe_config(from, frame, w, count)?).map_err(|e| BenchError::io(&f, e))?;
        cfgs.push((from, f));
    }
    let mut caps = Vec::new();
    for p in [&t.a, &t.b] {
        let path = t.workdir.join(format!("latency-{}-{frame}-{n}.pcap", p.net));
        match start_capture(p, &path) {
            Ok(c) => caps.push((p.net, c)),
            Err(e) => {
                for (_, c) in caps {
                    let _ = c.stop();
                }
                return Err(e);
            }
        }
    }
    let load_count = frames_for(fps - probe_fps, secs);
    let gap_us = format!("{}us", (1e6 / probe_fps).round().max(1.0) as u64);
    let (load, probes) = std::thread::scope(|s| {
        let probes = s.spawn(|| -> Result<(), BenchError> {
            std::thread::sleep(Duration::from_secs_f64(secs / 4.0));
            let mut kids = Vec::new();
            for (from, cfg) in &cfgs {
                let c = count.to_string();
                let cmd = argv(&[
                    "nice",
                    "-n",
                    "-10",
                    "trafgen",
                    "-q",
                    "-o",
                    &from.dev,
                    "-i",
                    &cfg.to_string_lossy(),
                    "-n",
                    &c,
                    "-t",
                    &gap_us,
                    "-P",
                    "1",
                    "-C",
                ]);
                let k = from.host.spawn(&cmd)?;
                crate::interrupt::track(k.id());
                kids.push(k);
            }
            let mut errs = Vec::new();
            for k in kids {
                let id = k.id();
                let out = k.wait_with_output();
                crate::interrupt::untrack(id);
                let out = out.map_err(|e| BenchError::Command { cmd: "trafgen".into(), detail: e.to_string() })?;
                if !out.status.success() {
                    errs.push(format!("{}: {}", out.status, String::from_utf8_lossy(&out.stderr).trim()));
                }
            }
            if errs.is_empty() {
                Ok(())
            } else {
                Err(BenchError::Command { cmd: "trafgen (latency probes)".into(), detail: errs.join("; ") })
            }
        });
        let load = t.trial(ways, frame, fps, load_count, drain);
        let probes = probes.join().unwrap_or_else(|_| Err(BenchError::Invalid("probe sender panicked".into())));
        (load, probes)
    });
    let mut seen = Vec::new();
    let mut stop_err = None;
    for (net, c) in caps {
        match c.stop() {
            Ok(v) => seen.push((net, v)),
            Err(e) => stop_err = stop_err.or(Some(e)),
        }
    }
    let load = load?;
    probes?;
    if let Some(e) = stop_err {
        return Err(e);
    }
    let of = |net: u8| seen.iter().find(|(n, _)| *n == net).map(|(_, v)| v.as_slice()).unwrap_or(&[]);
    let raw: Vec<Probed> = ways
        .iter()
        .map(|&w| {
            let (from, to) = ends(w);
            match_probes(w, of(from.net), of(to.net))
        })
        .collect();
    let dirs = ways
        .iter()
        .zip(&raw)
        .map(|(&w, (sent, lat))| DirLatency {
            way: w,
            probes_sent: *sent,
            probes_received: lat.len() as u64,
            latency: Summary::of(lat),
        })
        .collect();
    Ok((LatencyTrial { n, dirs, load }, raw))
}

/// Runs `repeats` latency trials and summarises every probe per direction.
///
/// # Errors
/// A tool that fails to start, a capture that never runs or cannot be read.
#[allow(clippy::too_many_arguments)]
pub fn run(
    t: &Tester,
    ways: &[Way],
    frame: u32,
    fps: f64,
    rate_from: &str,
    probe_fps: f64,
    secs: f64,
    repeats: u32,
    drain: Duration,
    before_each: &mut dyn FnMut() -> Result<(), BenchError>,
) -> Result<Latency, BenchError> {
    let probe_fps = probe_rate(fps, probe_fps);
    let mut trials = Vec::new();
    let mut all: Vec<(Way, u64, Vec<i64>)> = ways.iter().map(|&w| (w, 0, Vec::new())).collect();
    for n in 1..=repeats {
        before_each()?;
        let (tr, raw) = trial_raw(t, ways, frame, fps, probe_fps, secs, drain, n)?;
        for (a, (sent, lat)) in all.iter_mut().zip(raw) {
            a.1 += sent;
            a.2.extend(lat);
        }
        trials.push(tr);
    }
    let summary = all
        .into_iter()
        .map(|(way, sent, lat)| DirLatency {
            way,
            probes_sent: sent,
            probes_received: lat.len() as u64,
            latency: Summary::of(&lat),
        })
        .collect();
    Ok(Latency { offered_fps: fps, rate_from: rate_from.into(), probe_fps, trial_seconds: secs, trials, summary })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    use crate::tester::test_port as port;

    /// trial_raw refuses a probe rate of 0 and one equal to the load (the
    /// probes must be a part of it) before it writes or runs anything: the
    /// tester's work directory does not exist, so a trial that went on
    /// would fail writing its first probe configuration instead.
    #[test]
    fn a_probe_rate_of_zero_or_of_the_whole_load_is_refused_first() {
        let t = Tester { a: port(18), b: port(19), flows: 1, workdir: "/nonexistent/zynq-net-latency".into() };
        let trial = |fps: f64, probe_fps: f64| {
            trial_raw(&t, &[Way::Ab], 64, fps, probe_fps, 1.0, Duration::ZERO, 1).unwrap_err().to_string()
        };
        for (fps, probe, want) in [
            (1000.0, 0.0, "latency trial: 64 B, 1000 frames/s, 0 probes/s"),
            (1000.0, 1000.0, "latency trial: 64 B, 1000 frames/s, 1000 probes/s"),
            (0.0, 0.0, "latency trial: 64 B, 0 frames/s, 0 probes/s"),
        ] {
            let e = trial(fps, probe);
            assert!(e.contains(want), "{want}: {e}");
        }
        // Inside the bounds the check passes and the write fails.
        let e = trial(1000.0, 999.0);
        assert!(!e.contains("latency trial") && e.contains("/nonexistent/zynq-net-latency"), "{e}");
    }

    /// A probe frame as trafgen builds it from [`probe_config`] (60 bytes
    /// for 64 B: Ethernet II, IPv4 without options, UDP, 18 payload bytes).
    fn frame(way: u8, seq: u32, dport: u16) -> Vec<u8> {
        let mut f = vec![0u8; 12];
        f.extend([0x08, 0x00]);
        let mut ip = vec![0x45, 0, 0, 46, 0, 0, 0x40, 0, 64, 17, 0, 0, 198, 18, 255, 254, 198, 19, 255, 254];
        ip.extend(PROBE_SPORT.to_be_bytes());
        ip.extend(dport.to_be_bytes());
        ip.extend([0, 26, 0, 0]);
        ip.extend(MAGIC);
        ip.extend([way, 0, 0, 0]);
        ip.extend(seq.to_be_bytes());
        ip.extend([0u8; 6]);
        f.extend(ip);
        f
    }

    /// A pcap as pcap-savefile(5) lays it out, in the byte order `le` says.
    fn pcap(le: bool, recs: &[(u32, u32, Vec<u8>)]) -> Vec<u8> {
        let w = |v: u32| if le { v.to_le_bytes() } else { v.to_be_bytes() };
        let mut d = Vec::new();
        d.extend(w(PCAP_NS_MAGIC));
        d.extend(if le { [2, 0, 4, 0] } else { [0, 2, 0, 4] });
        d.extend([0u8; 8]);
        d.extend(w(65535));
        d.extend(w(1));
        for (s, ns, f) in recs {
            d.extend(w(*s));
            d.extend(w(*ns));
            d.extend(w(f.len() as u32));
            d.extend(w(f.len() as u32));
            d.extend(f);
        }
        d
    }

    #[test]
    fn the_probe_config_tags_each_frame_and_keeps_the_size() {
        let c = probe_config(&port(18), 64, Way::Ab, 3).unwrap();
        let lines: Vec<&str> = c.lines().filter(|l| l.starts_with('{')).collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].contains("saddr=198.18.255.254, daddr=198.19.255.254"), "{}", lines[0]);
        assert!(lines[0].contains("udp(sport=49151, dport=9)"), "{}", lines[0]);
        // "ZNLP", direction 0, three zeros, sequence 2; 18 - 12 = 6 bytes of fill.
        assert!(
            lines[2].contains("0x5a, 0x4e, 0x4c, 0x50, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, fill(0x00, 6)"),
            "{}",
            lines[2]
        );
        let b = probe_config(&port(19), 1518, Way::Ba, 1).unwrap();
        assert!(
            b.contains("saddr=198.19.255.254, daddr=198.18.255.254")
                && b.contains("0x01, 0x00")
                && b.contains("fill(0x00, 1460)"),
            "{b}"
        );
        assert!(probe_config(&port(18), 63, Way::Ab, 1).is_err());
        assert!(probe_config(&port(18), 64, Way::Ab, 0).is_err());
        assert!(probe_config(&port(18), 64, Way::Ab, MAX_PROBES + 1).is_err());
    }

    #[test]
    fn pcaps_of_either_byte_order_give_the_probes_and_skip_the_rest() {
        let recs = vec![
            (1_796_321_014, 311_338_169, frame(0, 1, PROBE_DPORT)),
            (1_796_321_014, 400_000_000, frame(0, 2, 7)), // the load's port: not a probe
            (1_796_321_015, 5, frame(1, 7, PROBE_DPORT)),
        ];
        for le in [true, false] {
            let s = parse_pcap(&pcap(le, &recs)).unwrap();
            assert_eq!(
                s,
                vec![
                    Seen { way: Way::Ab, seq: 1, ns: 1_796_321_014_311_338_169 },
                    Seen { way: Way::Ba, seq: 7, ns: 1_796_321_015_000_000_005 },
                ]
            );
        }
        let mut cut = pcap(true, &recs);
        cut.truncate(cut.len() - 3);
        assert!(parse_pcap(&cut).unwrap_err().to_string().contains("cut short"));
        let mut us = pcap(true, &recs);
        us[0..4].copy_from_slice(&0xa1b2_c3d4_u32.to_le_bytes());
        assert!(parse_pcap(&us).unwrap_err().to_string().contains("not a nanosecond pcap"));
        assert!(parse_pcap(&[]).is_err());
    }

    #[test]
    fn latency_is_receive_minus_send_per_sequence_and_direction() {
        let s = |way, seq, ns| Seen { way, seq, ns };
        let tx = [s(Way::Ab, 0, 1_000), s(Way::Ab, 1, 2_000), s(Way::Ab, 2, 3_000), s(Way::Ba, 0, 1_500)];
        // seq 1 lost; a duplicate of seq 0 keeps the first; B->A's probe is not A->B's.
        let rx = [s(Way::Ab, 0, 51_000), s(Way::Ab, 0, 99_000), s(Way::Ab, 2, 3_500), s(Way::Ba, 0, 1_600)];
        let (sent, lat) = match_probes(Way::Ab, &tx, &rx);
        assert_eq!((sent, lat), (3, vec![50_000, 500]));
        let (sent, lat) = match_probes(Way::Ba, &tx, &rx);
        assert_eq!((sent, lat), (1, vec![100]));
    }

    #[test]
    fn the_summary_is_in_microseconds_with_nearest_rank_p99() {
        // 1..=200 µs: median 100.5, p99 the 198th smallest.
        let ns: Vec<i64> = (1..=200).rev().map(|k| k * 1000).collect();
        let s = Summary::of(&ns).unwrap();
        assert_eq!((s.min_us, s.median_us, s.p99_us, s.max_us), (1.0, 100.5, 198.0, 200.0));
        assert!((s.mean_us - 100.5).abs() < 1e-9);
        let one = Summary::of(&[2_500]).unwrap();
        assert_eq!((one.min_us, one.median_us, one.p99_us, one.max_us), (2.5, 2.5, 2.5, 2.5));
        assert!(Summary::of(&[]).is_none());
        assert_eq!(probe_rate(500.0, 100.0), 50.0);
        assert_eq!(probes_for(100.0, 4.0), 200);
    }
}
