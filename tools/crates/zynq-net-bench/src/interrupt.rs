//! What a long-running bench command must undo when it is interrupted
//! (SIGINT, SIGTERM, SIGHUP): the processes it started and still runs
//! (trafgen senders, netsniff-ng captures), tracked here by process id
//! from spawn to wait, so that a signal handler thread can end exactly
//! those (`kill -TERM PID`, never by name) before the command removes the
//! state it added and exits.

use std::collections::BTreeSet;
use std::sync::Mutex;

use crate::exec::{argv, Host};

static CHILDREN: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());

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

/// Sends SIGTERM to every tracked child (trafgen and netsniff-ng stop on
/// it) and forgets them.
pub fn end_children() {
    let pids = tracked();
    for p in &pids {
        let _ = Host::Local.output(&argv(&["kill", "-TERM", &p.to_string()]));
        untrack(*p);
    }
}
