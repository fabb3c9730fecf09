//! What a long-running bench command must undo when it is interrupted
//! (SIGINT, SIGTERM, SIGHUP): the processes it started and still runs
//! (trafgen senders, netsniff-ng captures), tracked here by process id
//! from spawn to wait, so that a signal handler thread can end exactly
//! those (`kill -TERM PID`, then `-KILL`; never by name) before the command removes the
//! state it added and exits.

use std::collections::BTreeSet;
use std::sync::Mutex;

use crate::exec::{argv, Host};

static CHILDREN: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());

/// The tester ports in use: where each one's counting table and pacing
/// qdisc live (a targets file's ports are not the lab's `eth0`s).
static PORTS: Mutex<Vec<(Host, String)>> = Mutex::new(Vec::new());

/// Records a tester port (its namespace and interface) until [`untrack_port`].
pub fn track_port(host: &Host, dev: &str) {
    if let Ok(mut p) = PORTS.lock() {
        p.push((host.clone(), dev.to_string()));
    }
}

/// Forgets a tester port once its table and qdisc are removed.
pub fn untrack_port(host: &Host, dev: &str) {
    if let Ok(mut p) = PORTS.lock() {
        p.retain(|(h, d)| !(h == host && d == dev));
    }
}

/// The tester ports tracked now.
pub fn tracked_ports() -> Vec<(Host, String)> {
    PORTS.lock().map(|p| p.clone()).unwrap_or_default()
}

/// Records a child process started on this machine (or in one of its
/// namespaces: `ip netns exec` execs the command, so the child's id is the
/// tool's own).
pub fn track(pid: u32) {
    if let Ok(mut c) = CHILDREN.lock() {
        c.insert(pid);
    }
}

/// Forgets a child once it has been waited for (its id may be reused).
pub fn untrack(pid: u32) {
    if let Ok(mut c) = CHILDREN.lock() {
        c.remove(&pid);
    }
}

/// The children tracked now.
pub fn tracked() -> Vec<u32> {
    CHILDREN.lock().map(|c| c.iter().copied().collect()).unwrap_or_default()
}

/// Sends `signal` (`TERM`, `KILL`) to every tracked child; they stay
/// tracked until their waiter has reaped them ([`untrack`]), so a second
/// call reaches one that ignored the first.
pub fn signal_children(signal: &str) {
    for p in tracked() {
        let _ = Host::Local.output(&argv(&["kill", &format!("-{signal}"), &p.to_string()]));
    }
}
