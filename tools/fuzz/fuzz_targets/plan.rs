//! Plan reader fuzz target: the real applier (POSIX sh, under dash) reads
//! the input as a plan in `status` mode (reads, never writes). The shell is
//! not instrumented, so libFuzzer's coverage feedback stops at this harness:
//! the mutations are blind, which is why the harness itself steers half of
//! them past the end-line check. The first byte picks the mode:
//! - even: the bytes as they are. Anything but a plan whose end line
//!   matches (count + POSIX cksum) must be refused with exit 2;
//! - odd: the rest, sealed with a correct end line, so the step validation
//!   is what is fuzzed: exit 0, 2 or 3 only, and never a shell error
//!   (an unvalidated field reaching arithmetic, a test or a command).
//!
//! Environment: ZYNQ_NET_APPLIER (default: the source in the tree), TMPDIR.
#![no_main]

use std::io::Write;
use std::process::Command;

use libfuzzer_sys::fuzz_target;

fn applier() -> String {
    std::env::var("ZYNQ_NET_APPLIER").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../crates/zynq-net-render/assets/zynq-net-apply.sh").to_string()
    })
}

/// Whether `plan` ends with a correct end line (what the applier checks).
fn sealed_ok(plan: &[u8]) -> bool {
    let Some(stripped) = plan.strip_suffix(b"\n") else { return false };
    let start = stripped.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let (body, end) = plan.split_at(start);
    let Ok(end) = std::str::from_utf8(end) else { return false };
    let f: Vec<&str> = end.trim_end_matches('\n').split(' ').collect();
    f.len() == 4
        && f[0] == "end"
        && f[2] == zynq_net_render::plan::posix_cksum(body).to_string()
        && f[3] == body.len().to_string()
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    if rest.len() > 16 * 1024 || rest.contains(&0) {
        return; // a plan is a few KB of text; NUL cannot reach a shell variable
    }
    let input: Vec<u8> = if mode % 2 == 1 {
        let Ok(body) = std::str::from_utf8(rest) else { return };
        zynq_net_render::plan::seal(body).into_bytes()
    } else {
        rest.to_vec()
    };
    let mut f = tempfile_in_tmp();
    f.1.write_all(&input).expect("write");
    drop(f.1);
    let out = Command::new("dash")
        .arg(applier())
        .args(["status", &f.0])
        .env("ZYNQ_NET_WAIT_MAX", "0")
        .env("ZYNQ_NET_SYS", "/nonexistent-sys")
        .env("ZYNQ_NET_PROC", "/nonexistent-proc")
        .output()
        .expect("run dash");
    let _ = std::fs::remove_file(&f.0);
    f.0.clear();
    let rc = out.status.code();
    let err = String::from_utf8_lossy(&out.stderr);
    let sealed = sealed_ok(&input);
    if !sealed {
        assert_eq!(rc, Some(2), "unsealed input not refused (exit {rc:?}): {err}");
    } else {
        assert!(matches!(rc, Some(0 | 2 | 3)), "exit {rc:?}: {err}");
    }
    for bad in [
        "not found",
        "syntax error",
        "arithmetic",
        "Illegal number",
        "bad number",
        "parameter not set",
        "Bad substitution",
    ] {
        assert!(!err.contains(bad), "shell error `{bad}` (exit {rc:?}): {err}");
    }
});

fn tempfile_in_tmp() -> (String, std::fs::File) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::var("TMPDIR").unwrap_or_else(|_| "/tmp".into());
    let p = format!("{dir}/zynq-net-fuzz-plan.{}.{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed));
    let f = std::fs::File::create(&p).expect("create");
    (p, f)
}
