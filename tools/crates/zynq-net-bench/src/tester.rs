//! A two-port RFC 2544 tester built from real tools: trafgen (Debian's
//! netsniff-ng, a packet-mmap generator) sends on each tester port, and
//! each port counts what it receives with an nftables netdev-family
//! ingress counter that matches only the test flows (so ARP, neighbour
//! discovery or anyone else's traffic on the port never counts); the
//! counter, not the sender's word, says what arrived.
//!
//! ```text
//!  port A (198.18.0.0/16 side)        DUT          port B (198.19.0.0/16 side)
//!  trafgen ── frames to DUT MAC A ──▶ routes ──▶ nft counter "rx" (from 198.18/16)
//!  nft counter "rx" (from 198.19/16) ◀── routes ◀── frames to DUT MAC B ── trafgen
//! ```
//!
//! Frames (RFC 2544 §9 and appendix C.2.6): Ethernet II / IPv4 / UDP, a
//! frame of `F` bytes (FCS included, as RFC 2544 counts it) is `F - 4`
//! bytes handed to the port: 14 Ethernet, 20 IPv4, 8 UDP and `F - 46`
//! payload bytes. Flows vary over RFC 2544's benchmarking addresses
//! (198.18.0.0/15, RFC 2544 appendix C.2.2; RFC 6815 keeps them off
//! production networks): flow `k` of port A goes from 198.18.X.Y to
//! 198.19.X.Y with UDP source port `49152 + k` (X.Y from [`flow_host`]) and
//! destination port 7 (RFC 2544 C.2.6.4's UDP echo); port B's flow `k` is
//! its mirror, the echo's answer: from 198.19.X.Y port 7 to 198.18.X.Y port
//! `49152 + k`, as an analyser's far port in mirror mode sends it (the field
//! notes' P1020 run). A stateful DUT (conntrack, an nftables flowtable) so
//! sees one connection per flow with traffic both ways: established, and
//! offloaded where a fast path offloads established flows.
//!
//! The DUT must route 198.19.0.0/16 towards port B and 198.18.0.0/16
//! towards port A ([`lab_ports`] adds those routes to a `zynq-net lab`; a
//! DUT the tester does not own has them itself, [`crate::tester_targets`]).

use std::process::Child;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::error::BenchError;
use crate::exec::{argv, Host};

/// The records this module produces ([`crate::records::tester`]).
pub use crate::records::tester::{payload_len, Ceiling, DirTrial, Way};

/// nftables table the counters live in (netdev family, one per port).
pub const TABLE: &str = "zn_rfc2544";

/// Most flows per port (the trafgen configuration holds one frame per
/// flow); the bench file's limit ([`zynq_net_model::bench::TESTER_MAX_FLOWS`]).
pub const MAX_FLOWS: u32 = zynq_net_model::bench::TESTER_MAX_FLOWS;

/// UDP destination port of every test frame (RFC 2544 appendix C.2.6.4).
pub const UDP_DPORT: u16 = 7;

/// First UDP source port; flow `k` uses `SPORT_BASE + k` (the dynamic range, RFC 6335).
pub const SPORT_BASE: u16 = 49152;

/// Smallest and largest frame sizes (bytes incl. FCS): 64 is Ethernet's
/// minimum; trafgen without `--jumbo-support` sends at most 2048 bytes
/// (the bench file's limit, [`zynq_net_model::bench::TESTER_FRAME_RANGE`]).
pub const FRAME_RANGE: (u32, u32) = zynq_net_model::bench::TESTER_FRAME_RANGE;

/// One tester port.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Port {
    /// Where the port's commands run (a namespace in the lab).
    pub host: Host,
    /// Interface name.
    pub dev: String,
    /// The port's own MAC address (frames' source).
    pub mac: String,
    /// The DUT interface's MAC address on this link (frames' destination).
    pub dut_mac: String,
    /// Second octet of this side's benchmarking network: 18 (198.18/16, port A) or 19 (port B).
    pub net: u8,
}

/// Third and fourth octet of flow `k`'s host addresses: `(k / 250 + 1, k % 250 + 2)`
/// (never a .0 or .255 host, never the .1 a DUT usually takes).
pub fn flow_host(k: u32) -> (u32, u32) {
    (k / 250 + 1, k % 250 + 2)
}

/// A valid MAC address `xx:xx:xx:xx:xx:xx` (hex), the only form trafgen's
/// `eth(da=..., sa=...)` is given (the configuration is generated text).
pub fn valid_mac(m: &str) -> bool {
    let parts: Vec<&str> = m.split(':').collect();
    parts.len() == 6 && parts.iter().all(|p| p.len() == 2 && p.chars().all(|c| c.is_ascii_hexdigit()))
}

/// The trafgen configuration for `flows` flows of `frame`-byte frames from
/// `from` (towards the DUT MAC on its link) to the other side's network
/// (trafgen(8) "packet configuration": one `{ ... }` per frame, sent round
/// robin; `eth()`, `ipv4()` and `udp()` fill lengths and checksums).
pub fn trafgen_config(from: &Port, frame: u32, flows: u32) -> Result<String, BenchError> {
    if !(FRAME_RANGE.0..=FRAME_RANGE.1).contains(&frame) {
        return Err(BenchError::Invalid(format!(
            "frame size {frame} B: the tester sends {}-{} B frames",
            FRAME_RANGE.0, FRAME_RANGE.1
        )));
    }
    if !(1..=MAX_FLOWS).contains(&flows) {
        return Err(BenchError::Invalid(format!("{flows} flows: 1 to {MAX_FLOWS} per port")));
    }
    for m in [&from.mac, &from.dut_mac] {
        if !valid_mac(m) {
            return Err(BenchError::Invalid(format!("`{m}` is not a MAC address (xx:xx:xx:xx:xx:xx)")));
        }
    }
    let (src, dst) = match from.net {
        18 => (18, 19),
        19 => (19, 18),
        n => return Err(BenchError::Invalid(format!("port network 198.{n}.0.0/16: 198.18 or 198.19"))),
    };
    let mut out = format!("/* zynq-net RFC 2544 tester: {flows} flows of {frame} B frames from 198.{src}/16 */\n");
    for k in 0..flows {
        let (x, y) = flow_host(k);
        // Port B's frames mirror port A's (the module documentation).
        let (sport, dport) = if src == 18 {
            (u32::from(SPORT_BASE) + k, u32::from(UDP_DPORT))
        } else {
            (u32::from(UDP_DPORT), u32::from(SPORT_BASE) + k)
        };
        out.push_str(&format!(
            "{{ eth(da={}, sa={}), ipv4(saddr=198.{src}.{x}.{y}, daddr=198.{dst}.{x}.{y}, ttl=64), udp(sport={sport}, dport={dport}), fill(0x00, {}) }}\n",
            from.dut_mac,
            from.mac,
            payload_len(frame)
        ));
    }
    Ok(out)
}

/// The nftables ruleset that counts, on `port`, the test frames coming
/// from the other side (source 198.{other}.0.0/16; UDP to port 7 on port
/// B, UDP from port 7 on port A: B's frames mirror A's) in the named
/// counter `rx`, and drops them there (the tester's own stack has no use
/// for them). netdev family, ingress hook: before anything else on the
/// port sees the frame (nft(8): "NETDEV ADDRESS FAMILY").
pub fn nft_ruleset(port: &Port) -> Result<String, BenchError> {
    if !valid_dev(&port.dev) {
        return Err(BenchError::Invalid(format!("`{}` is not an interface name", port.dev)));
    }
    let (from, dir) = if port.net == 18 { (19, "sport") } else { (18, "dport") };
    Ok(format!(
        "table netdev {TABLE} {{\n  counter rx {{ }}\n  chain ingress {{\n    type filter hook ingress device \"{}\" priority -500; policy accept;\n    ip saddr 198.{from}.0.0/16 udp {dir} {UDP_DPORT} counter name rx drop\n  }}\n}}\n",
        port.dev
    ))
}

/// An interface name the kernel accepts (1-15 bytes, no `/`, `:`,
/// whitespace or quotes: net/core/dev.c dev_valid_name, plus the quotes
/// our generated nft text cannot hold).
pub fn valid_dev(d: &str) -> bool {
    !d.is_empty()
        && d.len() < 16
        && d != "."
        && d != ".."
        && !d.chars().any(|c| c == '/' || c == ':' || c == '"' || c.is_whitespace())
}

/// Frames counted so far by `port`'s `rx` counter (`nft -j list counter`).
pub fn read_counter(port: &Port) -> Result<u64, BenchError> {
    let out = port.host.run(&argv(&["nft", "-j", "list", "counter", "netdev", TABLE, "rx"]))?;
    parse_counter(&out)
}

/// The packet count in `nft -j list counter` output
/// (`{"nftables": [{"metainfo": ...}, {"counter": {"packets": N, ...}}]}`).
pub fn parse_counter(json: &str) -> Result<u64, BenchError> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| BenchError::Invalid(format!("nft -j output: {e}")))?;
    v.get("nftables")
        .and_then(|a| a.as_array())
        .and_then(|a| a.iter().find_map(|o| o.get("counter")?.get("packets")?.as_u64()))
        .ok_or_else(|| BenchError::Invalid(format!("nft -j output without a counter: {json}")))
}

/// A port's transmitted-frame count from the kernel (`ip -s -j link show`:
/// `stats64.tx.packets`), all traffic included: a cross-check of trafgen's own count.
pub fn read_tx(port: &Port) -> Result<u64, BenchError> {
    let out = port.host.run(&argv(&["ip", "-s", "-j", "link", "show", "dev", &port.dev]))?;
    let v: serde_json::Value =
        serde_json::from_str(&out).map_err(|e| BenchError::Invalid(format!("ip -j output: {e}")))?;
    v.get(0)
        .and_then(|l| l.get("stats64")?.get("tx")?.get("packets")?.as_u64())
        .ok_or_else(|| BenchError::Invalid(format!("ip -s -j link: no tx packets for {}", port.dev)))
}

/// The MAC address of `dev` on `host` (`ip -j link show`).
pub fn mac_of(host: &Host, dev: &str) -> Result<String, BenchError> {
    let out = host.run(&argv(&["ip", "-j", "link", "show", "dev", dev]))?;
    let v: serde_json::Value =
        serde_json::from_str(&out).map_err(|e| BenchError::Invalid(format!("ip -j output: {e}")))?;
    v.get(0)
        .and_then(|l| l.get("address")?.as_str())
        .map(str::to_string)
        .filter(|m| valid_mac(m))
        .ok_or_else(|| BenchError::Invalid(format!("{}: no MAC address for {dev}", host.label())))
}

/// The ports of `zynq-net lab` `name`: A is the client namespace's eth0
/// (DUT MAC: the router's eth0), B the server namespace's eth0 (DUT MAC:
/// the router's eth1). Adds the routes the DUT needs: 198.18.0.0/16 via
/// the client, 198.19.0.0/16 via the server (`ip route replace`).
pub fn lab_ports(name: &str) -> Result<(Port, Port), BenchError> {
    let st = crate::lab::state(name)?;
    let [c, r, s] = crate::lab::namespaces(name);
    let router = Host::Netns { name: r };
    let n1 = st.options.subnet;
    let n2 = n1 + 1;
    router.run(&argv(&["ip", "route", "replace", "198.18.0.0/16", "via", &format!("10.201.{n1}.2")]))?;
    router.run(&argv(&["ip", "route", "replace", "198.19.0.0/16", "via", &format!("10.201.{n2}.2")]))?;
    let port = |ns: String, dut_dev: &str, net: u8| -> Result<Port, BenchError> {
        let host = Host::Netns { name: ns };
        Ok(Port { mac: mac_of(&host, "eth0")?, dut_mac: mac_of(&router, dut_dev)?, host, dev: "eth0".into(), net })
    };
    Ok((port(c, "eth0", 18)?, port(s, "eth1", 19)?))
}

/// A back-to-back pair of tester ports for calibration: two namespaces
/// `NAME-cala` / `NAME-calb` joined by one veth, each port's "DUT MAC" the
/// other end (no DUT). [`remove_calibration_ports`] deletes them.
pub fn calibration_ports(name: &str) -> Result<(Port, Port), BenchError> {
    let (a, b) = (format!("{name}-cala"), format!("{name}-calb"));
    remove_calibration_ports(name);
    let ip = |args: &[&str]| Host::Local {}.run(&argv(&[&["ip"], args].concat()));
    ip(&["netns", "add", &a])?;
    ip(&["netns", "add", &b])?;
    ip(&["link", "add", "eth0", "netns", &a, "type", "veth", "peer", "name", "eth0", "netns", &b])?;
    for ns in [&a, &b] {
        ip(&["-n", ns, "link", "set", "lo", "up"])?;
        ip(&["-n", ns, "link", "set", "eth0", "up"])?;
    }
    let (ha, hb) = (Host::Netns { name: a }, Host::Netns { name: b });
    let (ma, mb) = (mac_of(&ha, "eth0")?, mac_of(&hb, "eth0")?);
    Ok((
        Port { host: ha, dev: "eth0".into(), mac: ma.clone(), dut_mac: mb.clone(), net: 18 },
        Port { host: hb, dev: "eth0".into(), mac: mb, dut_mac: ma, net: 19 },
    ))
}

/// Deletes the calibration namespaces of [`calibration_ports`] (ignores absent ones).
pub fn remove_calibration_ports(name: &str) {
    for ns in [format!("{name}-cala"), format!("{name}-calb")] {
        let _ = Host::Local {}.output(&argv(&["ip", "netns", "del", &ns]));
    }
}

/// The tester: two ports, the counters installed on both.
#[derive(Debug)]
pub struct Tester {
    /// Port A (198.18/16 side).
    pub a: Port,
    /// Port B (198.19/16 side).
    pub b: Port,
    /// Flows per port.
    pub flows: u32,
    /// Directory for the trafgen configurations (same file system as the namespaces).
    pub workdir: std::path::PathBuf,
}

impl DirTrial {
    /// Frames lost (sent but not received); never negative.
    pub fn lost(&self) -> u64 {
        self.sent.saturating_sub(self.received)
    }
    /// Frames the far port counted beyond those sent (0 when it counted
    /// no more): frames the DUT duplicated, or frames of the test flows
    /// that were not this trial's (a late frame of the trial before, one
    /// the DUT's path sent again). The loss then reads 0 while it may hide
    /// as many lost frames.
    pub fn surplus(&self) -> u64 {
        self.received.saturating_sub(self.sent)
    }
    /// A warning for a direction whose far port counted more frames than
    /// were sent ([`DirTrial::surplus`]), `None` otherwise.
    pub fn surplus_note(&self) -> Option<String> {
        (self.surplus() > 0).then(|| {
            format!(
                "{}: received {} > sent {} ({} more): the far port counted frames that were not sent in this trial \
                 (duplicated by the DUT, or late from an earlier one), so the loss of 0 may hide lost frames",
                self.way.label(),
                self.received,
                self.sent,
                self.surplus()
            )
        })
    }
    /// Loss in percent of the frames sent (100 when nothing was sent).
    pub fn loss_percent(&self) -> f64 {
        if self.sent == 0 {
            100.0
        } else {
            100.0 * self.lost() as f64 / self.sent as f64
        }
    }
    /// Frames/s the sender managed (frames sent over its run time, start-up included).
    pub fn sent_fps(&self) -> f64 {
        if self.send_seconds > 0.0 {
            self.sent as f64 / self.send_seconds
        } else {
            0.0
        }
    }
    /// Did the sender fall short of `fps`: fewer frames than asked, or
    /// more than 2 % over the frames' time plus [`STARTUP_SECONDS`]?
    pub fn short_of(&self, fps: f64, count: u64) -> bool {
        fps > 0.0 && (self.sent < count || self.send_seconds > count as f64 / fps * 1.02 + STARTUP_SECONDS)
    }
}

/// trafgen's `-b` budget that never makes it sleep: its blocking send
/// path, paced by the port's qdisc.
pub const UNPACED: &str = "1000000000pps";

/// Seconds trafgen may take to start and stop beyond its frames' time
/// (measured 20-110 ms on a loaded 2-core host) before a trial counts its
/// sender as short of the rate asked.
pub const STARTUP_SECONDS: f64 = 0.3;

/// The pacing tbf for `fps` frames/s of `frame` bytes as `(rate bit/s,
/// burst bytes, limit bytes)`: the rate the qdisc sees (`frame - 4`
/// bytes a frame, no FCS); a bucket of 1 ms of traffic, at least two
/// frames (a late qdisc watchdog on a loaded host is caught up in a small
/// burst, not lost); a queue of 8 MiB, deeper than any socket send buffer.
pub fn pace_params(fps: f64, frame: u32) -> (u64, u64, u64) {
    let bytes = f64::from(frame - 4);
    let rate = (fps * 8.0 * bytes).round().max(8.0) as u64;
    let burst = ((fps * bytes / 1000.0).ceil() as u64).max(2 * u64::from(frame - 4));
    (rate, burst, 8 * 1024 * 1024)
}

/// Sets `port`'s pacing qdisc for `fps` (0: removes it, the port sends as fast as it can).
fn pace(port: &Port, fps: f64, frame: u32) -> Result<(), BenchError> {
    if fps <= 0.0 {
        let _ = port.host.output(&argv(&["tc", "qdisc", "del", "dev", &port.dev, "root"]));
        return Ok(());
    }
    let (rate, burst, limit) = pace_params(fps, frame);
    port.host
        .run(&argv(&[
            "tc",
            "qdisc",
            "replace",
            "dev",
            &port.dev,
            "root",
            "tbf",
            "rate",
            &format!("{rate}bit"),
            "burst",
            &burst.to_string(),
            "limit",
            &limit.to_string(),
        ]))
        .map(|_| ())
}

/// Parses trafgen's closing `N packets outgoing` line.
pub fn parse_trafgen_sent(out: &str) -> Option<u64> {
    out.lines().find_map(|l| {
        let mut w = l.split_whitespace();
        let n = w.next()?.parse().ok()?;
        (w.next() == Some("packets") && w.next() == Some("outgoing")).then_some(n)
    })
}

impl Tester {
    /// Installs the counting rules on both ports (replacing an earlier table).
    pub fn new(a: Port, b: Port, flows: u32, workdir: std::path::PathBuf) -> Result<Tester, BenchError> {
        std::fs::create_dir_all(&workdir).map_err(|e| BenchError::io(&workdir, e))?;
        let t = Tester { a, b, flows, workdir };
        for p in [&t.a, &t.b] {
            crate::interrupt::track_port(&p.host, &p.dev);
            let _ = p.host.output(&argv(&["nft", "delete", "table", "netdev", TABLE]));
            let f = t.workdir.join(format!("count-{}.nft", p.net));
            std::fs::write(&f, nft_ruleset(p)?).map_err(|e| BenchError::io(&f, e))?;
            p.host.run(&argv(&["nft", "-f", &f.to_string_lossy()]))?;
        }
        Ok(t)
    }

    /// Removes the counting rules and the pacing qdiscs.
    pub fn close(&self) {
        for p in [&self.a, &self.b] {
            let _ = p.host.output(&argv(&["nft", "delete", "table", "netdev", TABLE]));
            let _ = pace(p, 0.0, FRAME_RANGE.0);
            crate::interrupt::untrack_port(&p.host, &p.dev);
        }
    }

    fn ends(&self, way: Way) -> (&Port, &Port) {
        match way {
            Way::Ab => (&self.a, &self.b),
            Way::Ba => (&self.b, &self.a),
        }
    }

    fn config(&self, way: Way, frame: u32) -> Result<String, BenchError> {
        let (from, _) = self.ends(way);
        let f = self.workdir.join(format!("flows-{}-{frame}-{}.cfg", from.net, self.flows));
        if !f.exists() {
            std::fs::write(&f, trafgen_config(from, frame, self.flows)?).map_err(|e| BenchError::io(&f, e))?;
        }
        Ok(f.to_string_lossy().into_owned())
    }

    /// Sends `count` frames of `frame` bytes in each of `ways` at once,
    /// each at `fps` frames/s (0: as fast as the generator goes), waits
    /// `drain` after the last sender ends, and reads the far ports'
    /// counters (before/after difference).
    ///
    /// Pacing: trafgen's own rate option (`-b`) sends each second's frames
    /// in one burst and its gap option (`-t`) sleeps per frame (a few
    /// thousand frames/s at most), so neither offers a steady rate. The
    /// port's egress qdisc does: a tbf at the frame rate ([`pace_params`])
    /// with a queue deeper than the socket's send buffer, and trafgen on
    /// its blocking send path through the qdisc (`-q`, with a `-b` budget
    /// too large to ever sleep), so the socket's send buffer pushes back
    /// and no frame is dropped on the tester.
    pub fn trial(
        &self,
        ways: &[Way],
        frame: u32,
        fps: f64,
        count: u64,
        drain: Duration,
    ) -> Result<Vec<DirTrial>, BenchError> {
        let mut before = Vec::new();
        for &w in ways {
            let (from, to) = self.ends(w);
            pace(from, fps, frame)?;
            before.push((read_counter(to)?, read_tx(from)?));
        }
        let mut children: Vec<(Child, Instant)> = Vec::new();
        for &w in ways {
            let (from, _) = self.ends(w);
            let cfg = self.config(w, frame)?;
            let n = count.to_string();
            let cmd = argv(&[
                "nice", "-n", "-10", "trafgen", "-q", "-o", &from.dev, "-i", &cfg, "-n", &n, "-b", UNPACED, "-P", "1",
                "-C",
            ]);
            let child = from.host.spawn(&cmd)?;
            crate::interrupt::track(child.id());
            children.push((child, Instant::now()));
        }
        let mut runs = Vec::new();
        for (child, t0) in children {
            let id = child.id();
            let out = child.wait_with_output();
            crate::interrupt::untrack(id);
            let out = out.map_err(|e| BenchError::Command { cmd: "trafgen".into(), detail: e.to_string() })?;
            let secs = t0.elapsed().as_secs_f64();
            let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
            runs.push((out.status.success(), secs, text));
        }
        std::thread::sleep(drain);
        let mut res = Vec::new();
        for ((&w, (rx0, tx0)), (ok, secs, text)) in ways.iter().zip(before).zip(runs) {
            let (from, to) = self.ends(w);
            let rx = read_counter(to)?.saturating_sub(rx0);
            let tx = read_tx(from)?.saturating_sub(tx0);
            let sent = parse_trafgen_sent(&text);
            res.push(DirTrial {
                way: w,
                asked_fps: fps,
                sent: sent.unwrap_or(0),
                port_tx: tx,
                received: rx,
                send_seconds: secs,
                error: (!ok || sent.is_none()).then(|| text.trim().to_string()),
            });
        }
        Ok(res)
    }

    /// RFC 2544 §23 learning frames: one frame per flow in each of `ways`
    /// (so the DUT resolves its next hops and fills its flow tables), then `wait`.
    pub fn learn(&self, ways: &[Way], frame: u32, wait: Duration) -> Result<(), BenchError> {
        self.trial(ways, frame, 0.0, u64::from(self.flows), Duration::ZERO)?;
        std::thread::sleep(wait);
        Ok(())
    }
}

impl Ceiling {
    /// The lowest per-direction ceiling (frames/s).
    pub fn min_fps(&self) -> f64 {
        self.fps.iter().map(|(_, f)| *f).fold(f64::INFINITY, f64::min)
    }
}

/// Measures the generator's ceiling port to port: each of `ways` sends
/// `count` frames of each size as fast as trafgen can (the same send path
/// as a paced trial, without the pacing qdisc), all at once; the ceiling
/// is what arrived over the sender's run time (start-up included, so a
/// little low).
pub fn calibrate(t: &Tester, ways: &[Way], frames: &[u32], count: u64) -> Result<Vec<Ceiling>, BenchError> {
    let mut out = Vec::new();
    for &f in frames {
        t.learn(ways, f, Duration::from_millis(50))?;
        let trials = t.trial(ways, f, 0.0, count, Duration::from_millis(200))?;
        let fps = trials
            .iter()
            .map(|d| (d.way, if d.send_seconds > 0.0 { d.received as f64 / d.send_seconds } else { 0.0 }))
            .collect();
        out.push(Ceiling { frame_size: f, fps, trials });
    }
    Ok(out)
}

/// A port on this host for the unit tests (tester and latency).
#[cfg(test)]
pub(crate) fn test_port(net: u8) -> Port {
    Port {
        host: Host::Local {},
        dev: "eth0".into(),
        mac: "02:00:00:00:00:0a".into(),
        dut_mac: "02:00:00:00:00:0b".into(),
        net,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    use test_port as port;

    /// Interface names as the kernel takes them (net/core/dev.c
    /// dev_valid_name: IFNAMSIZ 16 with its NUL, so at most 15 bytes).
    #[test]
    fn interface_names_are_one_to_fifteen_bytes_without_separators() {
        for ok in ["e", "eth0", "enp1s0f0np0-abc", "veth.10_x-y"] {
            assert!(valid_dev(ok), "{ok}");
        }
        for bad in ["", ".", "..", "enp1s0f0np0-abcd", "a/b", "a:b", "a b", "a\"b", "a\tb"] {
            assert!(!valid_dev(bad), "{bad:?}");
        }
    }

    /// A sender is short beyond `count / fps x 1.02 + STARTUP_SECONDS`,
    /// not at it; a sender that ran no time has sent at 0 frames/s.
    #[test]
    fn a_sender_exactly_at_its_time_budget_is_not_short() {
        let d = |sent: u64, send_seconds: f64| DirTrial {
            way: Way::Ab,
            asked_fps: 1000.0,
            sent,
            port_tx: sent,
            received: sent,
            send_seconds,
            error: None,
        };
        let budget = 1000.0 / 1000.0 * 1.02 + STARTUP_SECONDS;
        assert!(!d(1000, budget).short_of(1000.0, 1000));
        assert!(d(1000, budget + 1e-9).short_of(1000.0, 1000));
        assert!(d(999, 1.0).short_of(1000.0, 1000) && !d(1000, 1.0).short_of(1000.0, 1000));
        assert!(!d(0, 5.0).short_of(0.0, 1000), "no rate asked: never short");
        assert_eq!(d(1000, 0.0).sent_fps(), 0.0);
        assert_eq!(d(0, 0.0).sent_fps(), 0.0);
        assert_eq!(d(1000, 0.5).sent_fps(), 2000.0);
    }

    #[test]
    fn the_config_has_one_frame_per_flow_of_the_right_length() {
        let c = trafgen_config(&port(18), 64, 3).unwrap();
        let frames: Vec<&str> = c.lines().filter(|l| l.starts_with('{')).collect();
        assert_eq!(frames.len(), 3);
        // 64 B incl. FCS: 60 B handed to the port, 18 B of UDP payload.
        assert!(frames[0].contains("saddr=198.18.1.2, daddr=198.19.1.2"), "{}", frames[0]);
        assert!(frames[2].contains("udp(sport=49154, dport=7), fill(0x00, 18)"), "{}", frames[2]);
        assert!(frames[0].contains("eth(da=02:00:00:00:00:0b, sa=02:00:00:00:00:0a)"));
        let b = trafgen_config(&port(19), 1518, 251).unwrap();
        let last = b.lines().last().unwrap();
        // Flow 250 is the first of the second /24: 198.19.2.2.
        assert!(last.contains("saddr=198.19.2.2, daddr=198.18.2.2") && last.contains("fill(0x00, 1472)"), "{last}");
        // Port B's flow k mirrors port A's: the reply tuple (a DUT's
        // conntrack sees it established), from port 7 to 49152 + k.
        assert!(last.contains("udp(sport=7, dport=49402)"), "{last}");
        assert!(b.lines().nth(1).unwrap().contains("udp(sport=7, dport=49152)"), "{b}");
    }

    #[test]
    fn the_config_refuses_what_it_cannot_send() {
        assert!(trafgen_config(&port(18), 63, 1).is_err());
        assert!(trafgen_config(&port(18), 2049, 1).is_err());
        assert!(trafgen_config(&port(18), 64, 0).is_err());
        assert!(trafgen_config(&port(18), 64, MAX_FLOWS + 1).is_err());
        assert!(trafgen_config(&port(17), 64, 1).is_err());
        let bad = Port { mac: "02:00:00:00:00:0a), fill(0xff".into(), ..port(18) };
        assert!(trafgen_config(&bad, 64, 1).is_err());
        // Hosts never .0, .1 or .255 across the whole range.
        assert!((0..MAX_FLOWS).all(|k| {
            let (x, y) = flow_host(k);
            x < 255 && (2..=251).contains(&y)
        }));
    }

    #[test]
    fn the_counter_matches_the_other_sides_flows_only() {
        let r = nft_ruleset(&port(19)).unwrap();
        assert!(r.contains("ip saddr 198.18.0.0/16 udp dport 7 counter name rx drop"), "{r}");
        // Port A counts port B's mirrored frames: from UDP port 7.
        let a = nft_ruleset(&port(18)).unwrap();
        assert!(a.contains("ip saddr 198.19.0.0/16 udp sport 7 counter name rx drop"), "{a}");
        assert!(r.contains("hook ingress device \"eth0\""), "{r}");
        assert!(nft_ruleset(&Port { dev: "a\"b".into(), ..port(18) }).is_err());
    }

    #[test]
    fn counters_and_trafgen_output_parse() {
        let j = r#"{"nftables": [{"metainfo": {"version": "1.0.6"}}, {"counter": {"family": "netdev", "name": "rx", "table": "zn_rfc2544", "handle": 1, "packets": 41666, "bytes": 1916636}}]}"#;
        assert_eq!(parse_counter(j).unwrap(), 41666);
        assert!(parse_counter(r#"{"nftables": []}"#).is_err());
        let t = "\n     2000000 packets outgoing\n   120000000 bytes outgoing\n";
        assert_eq!(parse_trafgen_sent(t), Some(2_000_000));
        assert_eq!(parse_trafgen_sent("Cannot set system socket memory"), None);
    }
}
