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
        let _ = Host::Local {}.output(&argv(&["kill", &format!("-{signal}"), &p.to_string()]));
    }
}

/// Whether process `pid` still runs: its `/proc/PID/stat` exists and its
/// state is not `Z` (a zombie has ended; only its exit status waits to be
/// reaped) nor `X` (proc(5)).
pub fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        // The state follows the command name, which is in parentheses and
        // may itself hold spaces or parentheses: read after the last `)`.
        let state = s.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next());
        !matches!(state, Some("Z" | "X") | None)
    })
}

/// Waits up to `limit` for every tracked child to end (dead or a
/// zombie); the ones still running then, by process id.
pub fn wait_children(limit: std::time::Duration) -> Vec<u32> {
    let until = std::time::Instant::now() + limit;
    loop {
        let left: Vec<u32> = tracked().into_iter().filter(|&p| running(p)).collect();
        if left.is_empty() || std::time::Instant::now() >= until {
            return left;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A child that ignores SIGTERM runs on, SIGKILL ends it; `running`
    /// tells a zombie (killed, not yet reaped) from a running process, and
    /// `wait_children` returns once it has ended.
    #[test]
    fn a_killed_child_is_not_running_before_it_is_reaped() {
        let mut c = std::process::Command::new("sh").args(["-c", "trap '' TERM; exec sleep 30"]).spawn().unwrap();
        let pid = c.id();
        track(pid);
        std::thread::sleep(std::time::Duration::from_millis(200));
        signal_children("TERM");
        assert_eq!(wait_children(std::time::Duration::from_millis(300)), vec![pid]);
        assert!(running(pid));
        signal_children("KILL");
        assert!(wait_children(std::time::Duration::from_secs(5)).is_empty());
        // Not reaped yet: a zombie, whose stat still exists.
        assert!(std::fs::metadata(format!("/proc/{pid}/stat")).is_ok());
        assert!(!running(pid));
        c.wait().unwrap();
        untrack(pid);
        assert!(!running(pid));
    }
}
