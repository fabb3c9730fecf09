//! Where commands run: this machine, a network namespace on it, or a host
//! reached over ssh. Arguments are passed as a vector; for ssh (which hands
//! one string to the remote shell) every argument is single-quoted, so no
//! value from a plan or a target file is ever interpreted by a shell.

use std::process::{Child, Command, Output, Stdio};

use serde::{Deserialize, Serialize};

use crate::error::BenchError;

/// A place to run commands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Host {
    /// This machine.
    Local {},
    /// A network namespace on this machine (`ip netns exec NAME`).
    Netns {
        /// Namespace name.
        name: String,
    },
    /// A remote machine (`ssh [OPTS] -- DEST CMD`), key-based, no prompts.
    Ssh {
        /// `user@host` or an ssh config alias.
        dest: String,
        /// Extra ssh options (e.g. `["-p", "2222"]`).
        #[serde(default)]
        opts: Vec<String>,
    },
}

/// Quotes one word for a POSIX shell.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=,@+%".contains(c)) {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

impl Host {
    /// Same machine (same `/proc/stat`) as `other`?
    pub fn same_machine(&self, other: &Host) -> bool {
        match (self, other) {
            (Host::Ssh { dest: a, .. }, Host::Ssh { dest: b, .. }) => a == b,
            (Host::Ssh { .. }, _) | (_, Host::Ssh { .. }) => false,
            _ => true,
        }
    }

    /// Short label for reports.
    pub fn label(&self) -> String {
        match self {
            Host::Local {} => "local".into(),
            Host::Netns { name } => format!("netns:{name}"),
            Host::Ssh { dest, .. } => format!("ssh:{dest}"),
        }
    }

    /// Builds the process for `argv` on this host.
    pub fn command(&self, argv: &[String]) -> Command {
        match self {
            Host::Local {} => {
                let mut c = Command::new(&argv[0]);
                c.args(&argv[1..]);
                c
            }
            Host::Netns { name } => {
                let mut c = Command::new("ip");
                c.args(["netns", "exec", name]).args(argv);
                c
            }
            Host::Ssh { dest, opts } => {
                let mut c = Command::new("ssh");
                // `--` before the destination: a destination that starts
                // with `-` (`-oProxyCommand=...` in a board's `ssh:`) is a
                // host name to ssh, never an option; ssh also reads no
                // option after it (ssh.c: opt_terminated).
                c.args(["-o", "BatchMode=yes"]).args(opts).arg("--").arg(dest);
                c.arg(argv.iter().map(|a| shell_quote(a)).collect::<Vec<_>>().join(" "));
                c
            }
        }
    }

    /// Runs `argv` to completion and returns its output (any exit status).
    pub fn output(&self, argv: &[String]) -> Result<Output, BenchError> {
        self.command(argv)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| BenchError::Command { cmd: argv.join(" "), detail: e.to_string() })
    }

    /// Runs `argv` as [`Host::output`] does, but for at most `limit`: past
    /// it the process is killed (SIGKILL) and the output so far returned
    /// with `true`. The process stays in this process group, so a Ctrl-C
    /// reaches it too (a `timeout` wrapper would take it out: GNU timeout
    /// makes its own group). On an ssh end this kills the local ssh only.
    pub fn output_within(&self, argv: &[String], limit: std::time::Duration) -> Result<(Output, bool), BenchError> {
        use std::io::Read;
        let mut child = self.spawn(argv)?;
        let pipe = |r: Option<Box<dyn Read + Send>>| {
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                if let Some(mut r) = r {
                    let _ = r.read_to_end(&mut buf);
                }
                buf
            })
        };
        let out = pipe(child.stdout.take().map(|r| Box::new(r) as Box<dyn Read + Send>));
        let err = pipe(child.stderr.take().map(|r| Box::new(r) as Box<dyn Read + Send>));
        let until = std::time::Instant::now() + limit;
        let mut timed_out = false;
        let status = loop {
            match child.try_wait() {
                Ok(Some(st)) => break st,
                Ok(None) if std::time::Instant::now() < until => {
                    std::thread::sleep(std::time::Duration::from_millis(5))
                }
                Ok(None) => {
                    timed_out = true;
                    let _ = child.kill();
                    break child
                        .wait()
                        .map_err(|e| BenchError::Command { cmd: argv.join(" "), detail: e.to_string() })?;
                }
                Err(e) => return Err(BenchError::Command { cmd: argv.join(" "), detail: e.to_string() }),
            }
        };
        let stdout = out.join().unwrap_or_default();
        let stderr = err.join().unwrap_or_default();
        Ok((Output { status, stdout, stderr }, timed_out))
    }

    /// Runs `argv`, fails unless it exits 0, returns stdout.
    pub fn run(&self, argv: &[String]) -> Result<String, BenchError> {
        let out = self.output(argv)?;
        if !out.status.success() {
            return Err(BenchError::Command {
                cmd: format!("{} {}", self.label(), argv.join(" ")),
                detail: format!("{}: {}", out.status, String::from_utf8_lossy(&out.stderr).trim()),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Starts `argv` in the background with stdout/stderr captured.
    pub fn spawn(&self, argv: &[String]) -> Result<Child, BenchError> {
        self.command(argv)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| BenchError::Command { cmd: argv.join(" "), detail: e.to_string() })
    }

    /// Writes `bytes` to the file `path` on the host (created or truncated):
    /// directly here or in a namespace (same file system), through `dd`
    /// reading stdin over ssh (no shell redirection on the remote end).
    pub fn put_file(&self, path: &str, bytes: &[u8]) -> Result<(), BenchError> {
        match self {
            Host::Local {} | Host::Netns { .. } => std::fs::write(path, bytes).map_err(|e| BenchError::io(path, e)),
            Host::Ssh { .. } => {
                use std::io::Write as _;
                let cmd = vec!["dd".to_string(), format!("of={path}")];
                let mut child = self
                    .command(&cmd)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|e| BenchError::Command { cmd: cmd.join(" "), detail: e.to_string() })?;
                if let Some(mut i) = child.stdin.take() {
                    i.write_all(bytes).map_err(|e| BenchError::io(path, e))?;
                }
                let out = child.wait_with_output().map_err(|e| BenchError::io(path, e))?;
                if out.status.success() {
                    Ok(())
                } else {
                    Err(BenchError::Command {
                        cmd: format!("{} {}", self.label(), cmd.join(" ")),
                        detail: format!("{}: {}", out.status, String::from_utf8_lossy(&out.stderr).trim()),
                    })
                }
            }
        }
    }

    /// Reads a file on the host (`/proc/stat`, `/proc/interrupts`).
    pub fn read_file(&self, path: &str) -> Result<String, BenchError> {
        match self {
            // /proc/stat and /proc/interrupts are not per network namespace.
            Host::Local {} | Host::Netns { .. } => std::fs::read_to_string(path).map_err(|e| BenchError::io(path, e)),
            Host::Ssh { .. } => self.run(&["cat".to_string(), path.to_string()]),
        }
    }
}

/// Replaces the root qdisc of `dev` on `host` with a token bucket filter
/// (`tc qdisc replace dev DEV root tbf rate RATEbit burst BYTES limit BYTES`).
/// Used by the lab's shaper and by the RFC 2544 tester pacing.
///
/// # Errors
/// [`BenchError`] when `tc` fails.
pub fn replace_tbf(host: &Host, dev: &str, rate_bps: f64, burst: u64, limit: u64) -> Result<(), BenchError> {
    host.run(&argv(&[
        "tc",
        "qdisc",
        "replace",
        "dev",
        dev,
        "root",
        "tbf",
        "rate",
        &format!("{}bit", rate_bps as u64),
        "burst",
        &burst.to_string(),
        "limit",
        &limit.to_string(),
    ]))
    .map(|_| ())
}

/// Builds an argv from string slices.
pub fn argv(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| (*s).to_string()).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("10.201.2.2"), "10.201.2.2");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("x'; rm -rf /"), "'x'\\''; rm -rf /'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn ssh_command_is_one_quoted_string() {
        let h = Host::Ssh { dest: "root@dut".into(), opts: vec![] };
        let c = h.command(&argv(&["iperf3", "-c", "a;b"]));
        let args: Vec<String> = c.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        assert_eq!(args.last().map(String::as_str), Some("iperf3 -c 'a;b'"));
    }

    /// A destination that looks like an ssh option is a host name to the
    /// real ssh: its ProxyCommand never runs.
    #[test]
    fn an_ssh_destination_is_never_an_option() {
        let tmp = tempfile::tempdir().unwrap();
        let marker = tmp.path().join("ran");
        let dest = format!("-oProxyCommand=touch {}", marker.display());
        let h = Host::Ssh { dest: dest.clone(), opts: vec!["-oConnectTimeout=2".into()] };
        let c = h.command(&argv(&["true"]));
        let args: Vec<String> = c.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        assert_eq!(args, ["-o", "BatchMode=yes", "-oConnectTimeout=2", "--", dest.as_str(), "true"]);
        let out = h.output(&argv(&["true"])).expect("ssh (openssh-client, scripts/deps/apt.txt) runs");
        assert!(!out.status.success());
        assert!(!marker.exists(), "ssh ran the destination as an option: {}", String::from_utf8_lossy(&out.stderr));
    }

    #[test]
    fn machines_and_labels() {
        let ssh = |d: &str| Host::Ssh { dest: d.into(), opts: vec![] };
        let ns = Host::Netns { name: "lab-router".into() };
        assert!(
            Host::Local {}.same_machine(&ns)
                && ns.same_machine(&Host::Local {})
                && Host::Local {}.same_machine(&Host::Local {})
        );
        assert!(ssh("a").same_machine(&ssh("a")));
        assert!(!ssh("a").same_machine(&ssh("b")));
        assert!(!ssh("a").same_machine(&Host::Local {}) && !Host::Local {}.same_machine(&ssh("a")));
        assert_eq!(
            (Host::Local {}.label(), ns.label(), ssh("root@b").label()),
            ("local".into(), "netns:lab-router".into(), "ssh:root@b".into())
        );
        let c = ns.command(&argv(&["tc", "qdisc"]));
        assert_eq!(c.get_program(), "ip");
        let args: Vec<String> = c.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        assert_eq!(args, ["netns", "exec", "lab-router", "tc", "qdisc"]);
        let c = Host::Ssh { dest: "d".into(), opts: vec!["-p".into(), "2222".into()] }.command(&argv(&["true"]));
        let args: Vec<String> = c.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        assert_eq!(args, ["-o", "BatchMode=yes", "-p", "2222", "--", "d", "true"]);
    }

    #[test]
    fn running_commands_here() {
        let h = Host::Local {};
        assert_eq!(h.run(&argv(&["sh", "-c", "echo hi"])).unwrap(), "hi\n");
        let e = h.run(&argv(&["sh", "-c", "echo oops >&2; exit 3"])).unwrap_err().to_string();
        assert!(e.starts_with("command `local sh -c echo oops >&2; exit 3` failed: exit status: 3: oops"), "{e}");
        let e = h.output(&argv(&["/nonexistent/zynq-net-x"])).unwrap_err().to_string();
        assert!(e.starts_with("command `/nonexistent/zynq-net-x` failed"), "{e}");
        let out = h.spawn(&argv(&["sh", "-c", "echo out; echo err >&2"])).unwrap().wait_with_output().unwrap();
        assert_eq!((out.stdout.as_slice(), out.stderr.as_slice()), (&b"out\n"[..], &b"err\n"[..]));
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f").display().to_string();
        h.put_file(&p, b"x y\n").unwrap();
        assert_eq!(h.read_file(&p).unwrap(), "x y\n");
        assert!(h.read_file(&format!("{p}.missing")).is_err());
        // tc refuses a device that does not exist: the error comes back.
        let e = replace_tbf(&h, "zn-no-such0", 1e6, 3200, 10_000).unwrap_err().to_string();
        assert!(e.contains("tc qdisc replace dev zn-no-such0 root tbf rate 1000000bit burst 3200 limit 10000"), "{e}");
    }
}
