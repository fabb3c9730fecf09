//! Where a benchmark runs: the iperf3 client end, the server end and an
//! optional DUT in between (the lab's router), as a JSON file written by
//! `lab up` or by hand for a board and its peer.
//!
//! ```json
//! {"format": "zynq-net-bench-targets 1",
//!  "client": {"host": {"kind": "ssh", "dest": "root@zcu102"}, "address": "192.0.2.10",
//!             "ifaces": ["eth0"], "irq_pattern": "eth0"},
//!  "server": {"host": {"kind": "local"}, "address": "192.0.2.1", "ifaces": []},
//!  "port": 5201}
//! ```

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::BenchError;
use crate::exec::Host;

/// Format tag of a targets file.
pub const TARGETS_FORMAT: &str = "zynq-net-bench-targets 1";

/// One end (or the DUT).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Endpoint {
    /// Where commands run.
    pub host: Host,
    /// Address of this end on the test path (the client connects to the server's).
    #[serde(default)]
    pub address: String,
    /// Interfaces whose MTU the runner sets per cell (empty: MTU emulated
    /// with `-M`/`-l` only).
    #[serde(default)]
    pub ifaces: Vec<String>,
    /// Name (substring) of the NIC's IRQ in `/proc/interrupts`: the CPU
    /// serving it is kept free of iperf3 (sharing it, iperf3 is bound by
    /// that one core).
    #[serde(default)]
    pub irq_pattern: Option<String>,
    /// Interface on which RFC 2544 trials pace the offered load with a tbf
    /// at the trial's rate (a host sender catches up in bursts after being
    /// descheduled; a hardware tester offers a constant rate). Client only.
    #[serde(default)]
    pub pace_iface: Option<String>,
    /// Run iperf3 under `nice -n N` (negative: ahead of background load on
    /// a shared lab host).
    #[serde(default)]
    pub nice: Option<i32>,
}

/// A targets file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Targets {
    /// [`TARGETS_FORMAT`].
    pub format: String,
    /// iperf3 client end.
    pub client: Endpoint,
    /// iperf3 server end.
    pub server: Endpoint,
    /// Device in between (forwarding DUT), sampled for CPU load and MTU.
    #[serde(default)]
    pub dut: Option<Endpoint>,
    /// iperf3 server port.
    #[serde(default = "default_port")]
    pub port: u16,
    /// Free text shown in reports (e.g. the lab's shaping).
    #[serde(default)]
    pub description: String,
    /// Socket buffer (`-w`, bytes) for UDP tests, so the receiving iperf3
    /// being descheduled for a moment does not count as DUT loss
    /// (`UdpRcvbufErrors`). Capped by the peer's `net.core.rmem_max`.
    #[serde(default)]
    pub udp_socket_buffer: Option<u64>,
}

fn default_port() -> u16 {
    5201
}

impl Targets {
    /// Both ends on this host, without a lab: the iperf3 server listens on
    /// `port`, the client connects to `server` (`127.0.0.1` for loopback).
    /// What the tests and a quick loopback run of the runner use.
    pub fn local(server: &str, port: u16) -> Targets {
        let end = |address: &str| Endpoint {
            host: crate::exec::Host::Local {},
            address: address.into(),
            ifaces: vec![],
            irq_pattern: None,
            pace_iface: None,
            nice: None,
        };
        Targets {
            format: TARGETS_FORMAT.into(),
            client: end(""),
            server: end(server),
            dut: None,
            port,
            description: "loopback".into(),
            udp_socket_buffer: None,
        }
    }

    /// Loads and checks a targets file.
    pub fn load(path: &Path) -> Result<Targets, BenchError> {
        let text = std::fs::read_to_string(path).map_err(|e| BenchError::io(path, e))?;
        let t: Targets = serde_json::from_str(&text).map_err(|e| {
            // `zynq-net lab up --targets-out` writes one; a YAML or hand-made
            // file fails at its first character with serde's words only
            let hint = if e.is_syntax() || e.is_eof() {
                " (a targets file is JSON, as `zynq-net lab up --targets-out T.json` writes it; docs/bench.md)"
            } else {
                ""
            };
            BenchError::Invalid(format!("{}: {e}{hint}", path.display()))
        })?;
        let problems = t.problems();
        if !problems.is_empty() {
            let lines: Vec<String> = problems.iter().map(|p| format!("{}: {p}", path.display())).collect();
            return Err(BenchError::Invalid(lines.join("\n")));
        }
        Ok(t)
    }

    /// The ends with their roles: `client`, `server` and, when given, `dut`.
    pub fn ends(&self) -> impl Iterator<Item = (&'static str, &Endpoint)> {
        [("client", &self.client), ("server", &self.server)].into_iter().chain(self.dut.as_ref().map(|d| ("dut", d)))
    }

    /// Every rule the targets break, one line each (`FIELD: what, expected`),
    /// all at once: what would otherwise fail every trial later (port 0, a
    /// server address iperf3 cannot use), run a command on this machine (an
    /// ssh option, a `dest` starting with `-`), leave a namespace
    /// (`../..` as a netns name) or be ignored (`pace_iface` on the server,
    /// `nice` out of range, an empty `irq_pattern` matching every IRQ).
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.format != TARGETS_FORMAT {
            out.push(format!("targets format `{}`, expected `{TARGETS_FORMAT}`", self.format));
        }
        if self.port == 0 {
            out.push("port 0: expected the iperf3 server's port, 1-65535 (default 5201)".into());
        }
        if self.server.address.is_empty() {
            out.push(
                "server.address is missing or empty: expected the address the client connects to, \
                 an IP address or a host name"
                    .into(),
            );
        }
        for (role, e) in self.ends() {
            match &e.host {
                Host::Local {} => {}
                Host::Netns { name } if !valid_netns(name) => out.push(format!(
                    "{role}.host.name `{name}`: expected a network namespace's name (`ip netns list`), \
                     1-64 characters of [A-Za-z0-9_.-], not `.` or `..`"
                )),
                Host::Netns { .. } => {}
                Host::Ssh { dest, opts } => {
                    if !ssh_value_ok(dest) {
                        out.push(format!(
                            "{role}.host.dest `{dest}`: expected user@host or an ssh config alias \
                             (not empty, no leading `-`, no spaces)"
                        ));
                    }
                    if let Err((word, why)) = check_ssh_opts(opts) {
                        out.push(format!("{role}.host.opts: `{word}` {why}"));
                    }
                }
            }
            if !e.address.is_empty() && !valid_address(&e.address) {
                out.push(format!(
                    "{role}.address `{}`: expected an IP address or a host name \
                     (letters, digits, `.`, `-`, `:`, `%`; no leading `-`)",
                    e.address
                ));
            }
            for i in e.ifaces.iter().chain(e.pace_iface.as_ref()) {
                if !valid_ifname(i) {
                    out.push(format!("{role}: interface name `{i}`: 1-15 characters of [A-Za-z0-9_.-]"));
                }
            }
            if let Some(p) = &e.irq_pattern {
                if p.trim().is_empty() || p.chars().any(char::is_control) {
                    out.push(format!(
                        "{role}.irq_pattern `{p}`: expected the NIC's IRQ name as /proc/interrupts shows it \
                         (e.g. eth0); an empty one matches every IRQ"
                    ));
                }
            }
            if let Some(n) = e.nice.filter(|n| !(-20..=19).contains(n)) {
                out.push(format!("{role}.nice {n}: expected -20 to 19, as nice(1) takes"));
            }
            if role != "client" && e.pace_iface.is_some() {
                out.push(format!(
                    "{role}.pace_iface: only the client paces the offered load (RFC 2544 trials); \
                     move it to the client or drop it"
                ));
            }
        }
        out
    }

    /// Writes the file.
    pub fn save(&self, path: &Path) -> Result<(), BenchError> {
        let text = serde_json::to_string_pretty(self).map_err(|e| BenchError::Invalid(e.to_string()))?;
        crate::records::write_file(path, text + "\n")
    }
}

/// The `-o` options (ssh_config(5) keywords) a targets file may pass to
/// ssh: where and as whom to connect, which key, how long to wait, how to
/// treat host keys. Nothing that runs a command (`ProxyCommand`,
/// `LocalCommand`, `KnownHostsCommand`, `Match exec`) or forwards: a
/// targets file from elsewhere must not carry code to run on this machine.
/// A configuration file of this machine (`-F FILE`, as the ssh lab of
/// tests/bench uses) is allowed: what it says is this machine's own.
pub const SSH_OPTIONS: &[&str] = &[
    "Port",
    "User",
    "IdentityFile",
    "IdentitiesOnly",
    "ConnectTimeout",
    "ConnectionAttempts",
    "ServerAliveInterval",
    "ServerAliveCountMax",
    "StrictHostKeyChecking",
    "UserKnownHostsFile",
    "HostKeyAlias",
    "Compression",
    "LogLevel",
    "AddressFamily",
    "BatchMode",
    // Which authentication methods to try (a farm's SSHDriver options:
    // scripts/zynq-net-farm): they only narrow what ssh does.
    "PasswordAuthentication",
    "PubkeyAuthentication",
    "KbdInteractiveAuthentication",
    "PreferredAuthentications",
    "ControlMaster",
    "ControlPath",
    "ControlPersist",
];

/// A value of an ssh option: no leading `-` (which ssh would read as an
/// option), no whitespace or control character (ssh_config splits on
/// them), not empty.
fn ssh_value_ok(v: &str) -> bool {
    !v.is_empty() && !v.starts_with('-') && !v.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// Checks a targets file's ssh `opts` against the allow-list
/// ([`SSH_OPTIONS`] for `-o`; `-p PORT`, `-l`, `-i`, `-J`, `-F` with a
/// value; the flags `-4`, `-6`, `-q`, `-C`).
///
/// # Errors
/// The first word refused and why, as `(word, "is not ...")`.
pub fn check_ssh_opts(opts: &[String]) -> Result<(), (String, String)> {
    let not_allowed = || {
        format!(
            "is not an ssh option a targets file may pass (allowed: -p PORT, -l USER, -i FILE, -J HOST, -F FILE, \
             -4, -6, -q, -C, and -o with {})",
            SSH_OPTIONS.join(", ")
        )
    };
    let allowed_key = |k: &str| SSH_OPTIONS.iter().any(|a| a.eq_ignore_ascii_case(k));
    let kv = |s: &str| -> Result<(), String> {
        match s.split_once('=') {
            Some((k, v)) if allowed_key(k) && ssh_value_ok(v) => Ok(()),
            None if s.split_once(char::is_whitespace).is_some_and(|(k, _)| allowed_key(k)) => {
                Err("is not KEY=VALUE: write the option with `=` (e.g. ConnectTimeout=5)".into())
            }
            _ => Err(not_allowed()),
        }
    };
    let mut it = opts.iter();
    while let Some(o) = it.next() {
        match o.as_str() {
            "-4" | "-6" | "-q" | "-C" => {}
            "-o" | "-p" | "-l" | "-i" | "-J" | "-F" => {
                let Some(v) = it.next() else {
                    return Err((o.clone(), "needs a value after it".into()));
                };
                let checked = match o.as_str() {
                    "-o" => kv(v),
                    "-p" if !v.parse::<u16>().is_ok_and(|p| p > 0) => Err("is not a port: expected 1-65535".into()),
                    _ if ssh_value_ok(v) => Ok(()),
                    _ => Err(not_allowed()),
                };
                checked.map_err(|why| (v.clone(), why))?;
            }
            s => match s.strip_prefix("-o") {
                Some(rest) => kv(rest).map_err(|why| (o.clone(), why))?,
                None => return Err((o.clone(), not_allowed())),
            },
        }
    }
    Ok(())
}

/// A network namespace's name as `ip netns` keeps it (a file in
/// /run/netns): 1-64 characters of `[A-Za-z0-9_.-]`, not `.` or `..`.
pub fn valid_netns(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s != "."
        && s != ".."
        && s.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
}

/// An address iperf3 and ssh take for an end: an IPv4 or IPv6 address
/// (with a `%zone`) or a host name; never starting with `-`.
pub fn valid_address(s: &str) -> bool {
    s.parse::<std::net::IpAddr>().is_ok()
        || (!s.starts_with('-')
            && s.len() <= 253
            && s.chars().all(|c| c.is_ascii_alphanumeric() || ".-:%_".contains(c)))
}

/// Interface names as the kernel and the plan format accept them.
pub fn valid_ifname(s: &str) -> bool {
    !s.is_empty() && s.len() <= 15 && s.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const T: &str = r#"{"format": "zynq-net-bench-targets 1",
 "client": {"host": {"kind": "ssh", "dest": "root@zcu102"}, "address": "192.0.2.10", "ifaces": ["eth0"], "irq_pattern": "eth0"},
 "server": {"host": {"kind": "local"}, "address": "192.0.2.1"}}"#;

    #[test]
    fn load_save_and_defaults() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t.json");
        std::fs::write(&p, T).unwrap();
        let t = Targets::load(&p).unwrap();
        assert_eq!((t.port, t.dut.is_none(), t.udp_socket_buffer), (5201, true, None));
        assert_eq!(t.client.host, Host::Ssh { dest: "root@zcu102".into(), opts: vec![] });
        assert!(t.server.ifaces.is_empty());
        let q = d.path().join("saved.json");
        t.save(&q).unwrap();
        assert!(std::fs::read_to_string(&q).unwrap().ends_with("}\n"));
        assert_eq!(Targets::load(&q).unwrap(), t);
        assert!(t.save(d.path()).is_err(), "a directory is not a file");
    }

    /// What a new-user trial found accepted and failing later (or never):
    /// each refused when the file is read, every one in one error, a line
    /// each naming the file and the field; values on their bounds pass.
    #[test]
    fn every_bad_value_is_refused_at_once() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t.json");
        let bad = r#"{"format": "zynq-net-bench-targets 1", "port": 0,
 "client": {"host": {"kind": "ssh", "dest": "-oProxyCommand=id"}, "address": "not an address; id", "nice": 20},
 "server": {"host": {"kind": "netns", "name": ".."}, "address": "192.0.2.1", "irq_pattern": "", "pace_iface": "eth0"},
 "dut": {"host": {"kind": "ssh", "dest": ""}, "nice": -21}}"#;
        std::fs::write(&p, bad).unwrap();
        let e = Targets::load(&p).unwrap_err().to_string();
        let lines: Vec<&str> = e.lines().collect();
        let want = [
            "port 0: expected",
            "client.host.dest `-oProxyCommand=id`: expected user@host",
            "client.address `not an address; id`: expected an IP address or a host name",
            "client.nice 20: expected -20 to 19",
            "server.host.name `..`: expected a network namespace's name",
            "server.irq_pattern ``: expected the NIC's IRQ name",
            "server.pace_iface: only the client paces",
            "dut.host.dest ``: expected user@host",
            "dut.nice -21: expected -20 to 19",
        ];
        assert_eq!(lines.len(), want.len(), "{e}");
        for (line, w) in lines.iter().zip(want) {
            assert!(line.starts_with(&format!("{}: {w}", p.display())), "{line} / {w}");
        }
        // on the bounds, and the forms that are good
        let good = r#"{"format": "zynq-net-bench-targets 1", "port": 65535,
 "client": {"host": {"kind": "netns", "name": "zn-lab_1.c"}, "address": "fe80::1%eth0", "nice": -20, "pace_iface": "eth0"},
 "server": {"host": {"kind": "ssh", "dest": "root@p1020rdb"}, "address": "peer.lab-2.example", "nice": 19,
            "irq_pattern": "eth0"},
 "dut": {"host": {"kind": "local"}, "address": "192.0.2.1"}}"#;
        std::fs::write(&p, good).unwrap();
        Targets::load(&p).unwrap();
        assert!(valid_netns(&"n".repeat(64)) && !valid_netns(&"n".repeat(65)) && !valid_netns("a/b"));
        assert!(!valid_address("-x") && valid_address("::1") && !valid_address(&"a".repeat(254)));
        // unknown keys of a host are refused, as everywhere else in the file
        std::fs::write(
            &p,
            good.replace(r#""kind": "netns", "name": "zn-lab_1.c""#, r#""kind": "netns", "name": "n", "opts": []"#),
        )
        .unwrap();
        let e = Targets::load(&p).unwrap_err().to_string();
        assert!(e.contains("unknown field `opts`"), "{e}");
        std::fs::write(&p, good.replace(r#""kind": "local""#, r#""kind": "local", "name": "x""#)).unwrap();
        let e = Targets::load(&p).unwrap_err().to_string();
        assert!(e.contains("unknown field `name`"), "{e}");
    }

    /// Every ```` ```json targets ```` example in docs/bench.md loads as a
    /// targets file (one at least: the docs' example of the format).
    #[test]
    fn the_docs_examples_load() {
        let docs = include_str!("../../../../docs/bench.md");
        let d = tempfile::tempdir().unwrap();
        let mut n = 0;
        for block in docs.split("```json targets\n").skip(1) {
            let text = block.split("```").next().unwrap();
            let p = d.path().join(format!("t{n}.json"));
            std::fs::write(&p, text).unwrap();
            let t = Targets::load(&p).unwrap_or_else(|e| panic!("docs/bench.md example {n}: {e}"));
            assert!(t.dut.is_some() && !t.description.is_empty(), "example {n} shows every part");
            n += 1;
        }
        assert!(n >= 1, "docs/bench.md has no ```json targets example");
    }

    #[test]
    fn load_refuses_what_would_fail_later() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t.json");
        let err = |text: &str| {
            std::fs::write(&p, text).unwrap();
            Targets::load(&p).unwrap_err().to_string()
        };
        let e = err(&T.replace("targets 1", "targets 0"));
        assert!(e.ends_with("targets format `zynq-net-bench-targets 0`, expected `zynq-net-bench-targets 1`"), "{e}");
        let e = err(&T.replace("\"address\": \"192.0.2.1\"", "\"address\": \"\""));
        assert!(e.contains(": server.address is missing or empty: expected the address"), "{e}");
        let e = err(&T.replace("[\"eth0\"]", "[\"eth0; reboot\"]"));
        assert!(e.contains("interface name `eth0; reboot`"), "{e}");
        let e = err(&T.replace("\"irq_pattern\": \"eth0\"", "\"pace_iface\": \"a-sixteen-chars0\""));
        assert!(e.contains("interface name `a-sixteen-chars0`"), "{e}");
        let e = err(&T.replace("\"ifaces\"", "\"interfaces\""));
        assert!(e.contains("unknown field `interfaces`") && !e.contains("is JSON"), "{e}");
        // YAML (or anything not JSON): said what the file must be
        for text in ["client:\n  address: 10.0.0.1\n", "", "{\"format\": "] {
            let e = err(text);
            assert!(
                e.ends_with(
                    "(a targets file is JSON, as `zynq-net lab up --targets-out T.json` writes it; docs/bench.md)"
                ),
                "{e}"
            );
        }
        assert!(Targets::load(&d.path().join("missing.json")).is_err());
        // ssh options: what a lab needs passes; an option that runs a
        // command or reads another configuration is refused, naming it.
        let with_opts =
            |opts: &str| T.replace(r#""dest": "root@zcu102""#, &format!(r#""dest": "root@zcu102", "opts": {opts}"#));
        for ok in [
            r#"["-p", "2222"]"#,
            r#"["-i", "/root/.ssh/lab_ed25519", "-l", "root"]"#,
            r#"["-oConnectTimeout=5", "-o", "StrictHostKeyChecking=accept-new", "-oUserKnownHostsFile=/dev/null"]"#,
            r#"["-J", "jump@bastion.example", "-4", "-oServerAliveInterval=10", "-oPort=22"]"#,
            r#"["-F", "/dev/null", "-o", "ControlMaster=auto", "-o", "ControlPath=/tmp/lab/cm-%C", "-oControlPersist=30"]"#,
        ] {
            std::fs::write(&p, with_opts(ok)).unwrap();
            Targets::load(&p).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
        for (bad, named) in [
            (r#"["-oProxyCommand=touch /tmp/x"]"#, "-oProxyCommand=touch /tmp/x"),
            (r#"["-o", "ProxyCommand touch /tmp/x"]"#, "ProxyCommand touch /tmp/x"),
            (r#"["-oLocalCommand=id", "-oPermitLocalCommand=yes"]"#, "-oLocalCommand=id"),
            (r#"["-F", "-oProxyCommand=x"]"#, "-oProxyCommand=x"),
            (r#"["-Fconfig"]"#, "-Fconfig"),
            (r#"["-p"]"#, "-p"),
            (r#"["-J", "-oProxyCommand=x"]"#, "-oProxyCommand=x"),
            (r#"["-oMatch=exec x"]"#, "-oMatch=exec x"),
        ] {
            let e = err(&with_opts(bad));
            assert!(e.contains(&format!("client.host.opts: `{named}`")), "{bad}: {e}");
        }
        let e = err(&with_opts(r#"["-p"]"#));
        assert!(e.ends_with("client.host.opts: `-p` needs a value after it"), "{e}");
        let e = err(&with_opts(r#"["-p", "abc"]"#));
        assert!(e.ends_with("client.host.opts: `abc` is not a port: expected 1-65535"), "{e}");
        let e = err(&with_opts(r#"["-o", "ConnectTimeout 5"]"#));
        assert!(
            e.ends_with("`ConnectTimeout 5` is not KEY=VALUE: write the option with `=` (e.g. ConnectTimeout=5)"),
            "{e}"
        );
        assert!(valid_ifname("eth0.100") && valid_ifname("br_lan-1") && valid_ifname(&"a".repeat(15)));
        assert!(!valid_ifname("") && !valid_ifname(&"a".repeat(16)) && !valid_ifname("eth 0") && !valid_ifname("a/b"));
    }
}
