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
            host: crate::exec::Host::Local,
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
        if t.format != TARGETS_FORMAT {
            return Err(BenchError::Invalid(format!(
                "{}: targets format `{}`, expected `{TARGETS_FORMAT}`",
                path.display(),
                t.format
            )));
        }
        if t.server.address.is_empty() {
            return Err(BenchError::Invalid(format!("{}: server.address is empty", path.display())));
        }
        let ends = [("client", &t.client), ("server", &t.server)].into_iter().chain(t.dut.as_ref().map(|d| ("dut", d)));
        for (role, e) in ends.clone() {
            if let Host::Ssh { opts, .. } = &e.host {
                if let Err(bad) = check_ssh_opts(opts) {
                    return Err(BenchError::Invalid(format!(
                        "{}: {role}.host.opts: `{bad}` is not an ssh option a targets file may pass \
                         (allowed: -p PORT, -l USER, -i FILE, -J HOST, -F FILE, -4, -6, -q, -C, and -o with {})",
                        path.display(),
                        SSH_OPTIONS.join(", ")
                    )));
                }
            }
        }
        for (_, e) in ends {
            for i in e.ifaces.iter().chain(e.pace_iface.as_ref()) {
                if !valid_ifname(i) {
                    return Err(BenchError::Invalid(format!(
                        "{}: interface name `{i}`: 1-15 characters of [A-Za-z0-9_.-]",
                        path.display()
                    )));
                }
            }
        }
        Ok(t)
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
/// ([`SSH_OPTIONS`] for `-o`; `-p`, `-l`, `-i`, `-J`, `-F` with a value; the
/// flags `-4`, `-6`, `-q`, `-C`); the first word refused is returned.
pub fn check_ssh_opts(opts: &[String]) -> Result<(), String> {
    let mut it = opts.iter();
    while let Some(o) = it.next() {
        let kv = |s: &str| -> bool {
            let (k, v) = s.split_once('=').unwrap_or((s, ""));
            SSH_OPTIONS.iter().any(|a| a.eq_ignore_ascii_case(k)) && ssh_value_ok(v)
        };
        let ok = match o.as_str() {
            "-4" | "-6" | "-q" | "-C" => true,
            "-o" => match it.next() {
                Some(v) if kv(v) => true,
                Some(v) => return Err(v.clone()),
                None => false,
            },
            "-p" | "-l" | "-i" | "-J" | "-F" => match it.next() {
                Some(v) if ssh_value_ok(v) => true,
                Some(v) => return Err(v.clone()),
                None => false,
            },
            s => s.strip_prefix("-o").is_some_and(kv),
        };
        if !ok {
            return Err(o.clone());
        }
    }
    Ok(())
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
        assert!(e.ends_with("server.address is empty"), "{e}");
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
        assert!(valid_ifname("eth0.100") && valid_ifname("br_lan-1") && valid_ifname(&"a".repeat(15)));
        assert!(!valid_ifname("") && !valid_ifname(&"a".repeat(16)) && !valid_ifname("eth 0") && !valid_ifname("a/b"));
    }
}
