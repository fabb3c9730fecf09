//! The tester's ports on a DUT it does not own: `bench rfc2544-tester
//! --targets FILE` (docs/bench.md, "RFC 2544 with the trafgen tester").
//!
//! A targets file (as `scripts/qemu-p1020 --lab` and `--lab` of the other
//! emulated routers write it) names the client and server ends, each a
//! network namespace on this machine, and their addresses. Port A is the
//! client's interface towards the server's address, port B the server's
//! towards the client's: `ip -j route get ADDRESS` in each namespace gives
//! the interface and the next hop, which is the DUT; its MAC address on
//! that link is the one the next hop's neighbour entry holds after a ping
//! of the far end through the DUT (never of the DUT itself: an emulated
//! router of tests/qemu ends its lab on the first echo request addressed
//! to it). Nothing runs on the DUT: the tester adds no routes
//! there (a `zynq-net lab` router is the tester's to configure, this one
//! is not). The DUT must route 198.18.0.0/16 towards port A and
//! 198.19.0.0/16 towards port B itself; [`check_forwards`] says so when
//! it does not.

use std::path::Path;

use crate::error::BenchError;
use crate::exec::{argv, Host};
use crate::targets::{Endpoint, Targets};
use crate::tester::{mac_of, Port, Tester, Way};

/// The interface and the next hop (the DUT) from `host` towards `dest`,
/// from `ip -j route get DEST` (`[{"dst": ..., "gateway": ..., "dev": ...}]`).
///
/// # Errors
/// [`BenchError::Invalid`] for output without `dev`, or a route without a
/// gateway (`dest` on the port's own link: no DUT in between).
pub fn parse_route_get(json: &str, dest: &str) -> Result<(String, String), BenchError> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| BenchError::Invalid(format!("ip -j route get output: {e}")))?;
    let r = v.get(0).ok_or_else(|| BenchError::Invalid(format!("ip -j route get {dest}: no route")))?;
    let dev = r.get("dev").and_then(|d| d.as_str()).unwrap_or_default().to_string();
    if dev.is_empty() {
        return Err(BenchError::Invalid(format!("ip -j route get {dest}: no interface in {json}")));
    }
    let gw = r.get("gateway").and_then(|g| g.as_str()).ok_or_else(|| {
        BenchError::Invalid(format!(
            "{dest} is on the link of {dev} itself (no gateway): the tester's ports must reach each other through the DUT, a router"
        ))
    })?;
    Ok((dev, gw.to_string()))
}

/// The MAC address in `ip -j neigh show ADDR dev DEV` output (`lladdr`),
/// when the entry is resolved.
pub fn parse_neigh(json: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    v.as_array()?.iter().find_map(|n| n.get("lladdr")?.as_str().map(str::to_string))
}

fn netns_of(role: &str, e: &Endpoint, file: &Path) -> Result<String, BenchError> {
    match &e.host {
        Host::Netns { name } => Ok(name.clone()),
        other => Err(BenchError::Invalid(format!(
            "{}: {role}.host is {}: the tester's ports are network namespaces on this machine \
             (its nftables rules and trafgen configurations are files here)",
            file.display(),
            other.label()
        ))),
    }
}

/// One port: the interface of namespace `ns` towards `dest` (the other
/// end) and the MAC address of the DUT, its next hop (resolved by a ping
/// of `dest` through it).
fn port(ns: &str, dest: &str, net: u8) -> Result<Port, BenchError> {
    let host = Host::Netns { name: ns.to_string() };
    let (dev, gw) = parse_route_get(&host.run(&argv(&["ip", "-j", "route", "get", dest]))?, dest)?;
    let ping = host.output(&argv(&["ping", "-c", "1", "-W", "2", dest]))?;
    let neigh = host.run(&argv(&["ip", "-j", "neigh", "show", &gw, "dev", &dev]))?;
    let dut_mac = parse_neigh(&neigh).ok_or_else(|| {
        BenchError::Invalid(format!(
            "netns {ns}: no MAC address for the DUT {gw} on {dev} after a ping of {dest} through it ({})",
            String::from_utf8_lossy(&ping.stdout).lines().last().unwrap_or("no output").trim()
        ))
    })?;
    Ok(Port { mac: mac_of(&host, &dev)?, dut_mac, host, dev, net })
}

/// A targets file read and checked for the tester, before anything runs:
/// the client's and the server's network namespaces and addresses, and
/// the file's description (the DUT, for the report).
#[derive(Debug, Clone, PartialEq)]
pub struct Ends {
    /// Port A's namespace and the address of the client end.
    pub client: (String, String),
    /// Port B's namespace and the address of the server end.
    pub server: (String, String),
    /// The targets file's description.
    pub description: String,
}

/// Reads the targets file `file` and checks it names two distinct network
/// namespaces with an address each; runs nothing (the ports are found
/// later, [`ports`]).
///
/// # Errors
/// The file's own errors ([`Targets::load`]); ends that are not two
/// distinct network namespaces or lack an address.
pub fn read(file: &Path) -> Result<Ends, BenchError> {
    let t = Targets::load(file)?;
    let (c, s) = (netns_of("client", &t.client, file)?, netns_of("server", &t.server, file)?);
    if c == s {
        return Err(BenchError::Invalid(format!(
            "{}: client and server are both netns {c}: the tester needs two ports in two namespaces",
            file.display()
        )));
    }
    if t.client.address.is_empty() {
        return Err(BenchError::Invalid(format!(
            "{}: client.address is empty: the tester finds port B's way to the DUT from it",
            file.display()
        )));
    }
    Ok(Ends { client: (c, t.client.address), server: (s, t.server.address), description: t.description })
}

/// Ports A (client) and B (server) of the ends of a targets file
/// ([`read`]), and its description (the DUT, for the report).
///
/// # Errors
/// No route through a DUT; a DUT that does not answer.
pub fn ports(e: &Ends) -> Result<(Port, Port, String), BenchError> {
    let a = port(&e.client.0, &e.server.1, 18)?;
    let b = port(&e.server.0, &e.client.1, 19)?;
    Ok((a, b, e.description.clone()))
}

/// Learning frames of `frame` bytes, one per flow in each of `ways`, and
/// what arrived: an error naming the route the DUT lacks when a direction
/// received none of them (a DUT the tester does not own has to route the
/// benchmarking networks itself).
///
/// # Errors
/// As above, and the trial's own errors.
pub fn check_forwards(t: &Tester, ways: &[Way], frame: u32) -> Result<(), BenchError> {
    let trials = t.trial(ways, frame, 0.0, u64::from(t.flows), std::time::Duration::from_millis(500))?;
    let dead: Vec<String> = trials
        .iter()
        .filter(|d| d.received == 0)
        .map(|d| {
            let (net, to) = if d.way == Way::Ab { (19, &t.b) } else { (18, &t.a) };
            format!(
                "{}: none of {} learning frames arrived: does the DUT route 198.{net}.0.0/16 towards {} ({})?",
                d.way.label(),
                d.sent,
                to.host.label(),
                to.dev
            )
        })
        .collect();
    if dead.is_empty() {
        Ok(())
    } else {
        Err(BenchError::Invalid(format!(
            "{}\n  (the tester does not configure a DUT it does not own: add the routes for 198.18.0.0/16 \
             and 198.19.0.0/16 on the DUT, via the port on each side)",
            dead.join("\n")
        )))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn route_get_gives_the_port_and_the_dut() {
        // iproute2 6.1 `ip -j route get 10.214.2.2` in the P1020 lab's client namespace.
        let j = r#"[{"dst":"10.214.2.2","gateway":"10.214.1.1","dev":"eth0","prefsrc":"10.214.1.2","flags":[],"uid":0,"cache":[]}]"#;
        assert_eq!(parse_route_get(j, "10.214.2.2").unwrap(), ("eth0".into(), "10.214.1.1".into()));
        let direct = r#"[{"dst":"10.214.1.1","dev":"eth0","prefsrc":"10.214.1.2","flags":[],"uid":0,"cache":[]}]"#;
        let e = parse_route_get(direct, "10.214.1.1").unwrap_err().to_string();
        assert!(e.contains("no gateway") && e.contains("through the DUT"), "{e}");
        assert!(parse_route_get("[]", "x").unwrap_err().to_string().contains("no route"));
        assert!(parse_route_get(r#"[{"gateway":"1.2.3.4"}]"#, "x").unwrap_err().to_string().contains("no interface"));
    }

    #[test]
    fn neigh_gives_the_mac_once_resolved() {
        let j = r#"[{"dst":"10.214.1.1","dev":"eth0","lladdr":"52:54:00:10:20:00","state":["REACHABLE"]}]"#;
        assert_eq!(parse_neigh(j).as_deref(), Some("52:54:00:10:20:00"));
        assert_eq!(parse_neigh(r#"[{"dst":"10.214.1.1","dev":"eth0","state":["FAILED"]}]"#), None);
        assert_eq!(parse_neigh("[]"), None);
    }

    #[test]
    fn ends_must_be_two_namespaces_with_addresses() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("t.json");
        let write = |client: &str, server: &str| {
            std::fs::write(
                &f,
                format!(r#"{{"format": "zynq-net-bench-targets 1", "client": {client}, "server": {server}}}"#),
            )
            .unwrap();
        };
        write(
            r#"{"host": {"kind": "local"}, "address": "10.0.0.2"}"#,
            r#"{"host": {"kind": "netns", "name": "b"}, "address": "10.0.1.2"}"#,
        );
        let e = read(&f).unwrap_err().to_string();
        assert!(e.contains("client.host is local") && e.contains("network namespaces"), "{e}");
        write(
            r#"{"host": {"kind": "netns", "name": "a"}, "address": "10.0.0.2"}"#,
            r#"{"host": {"kind": "netns", "name": "a"}, "address": "10.0.1.2"}"#,
        );
        assert!(read(&f).unwrap_err().to_string().contains("both netns a"));
        write(
            r#"{"host": {"kind": "netns", "name": "a"}}"#,
            r#"{"host": {"kind": "netns", "name": "b"}, "address": "x"}"#,
        );
        assert!(read(&f).unwrap_err().to_string().contains("client.address is empty"));
    }
}
