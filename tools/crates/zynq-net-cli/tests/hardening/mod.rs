//! Hardening: inputs an attacker or an unlucky user would feed
//! `zynq-net`, each a regression test of a failure found in a hostile trial.
//! Speed and memory figures of the same inputs: benches/hostile/bench.py.

use std::fs;
use std::path::Path;

use super::{board, gen, run, s};

fn write(dir: &Path, name: &str, text: impl AsRef<[u8]>) -> std::path::PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).expect("write");
    p
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Item 2: an anchored 4 KiB scalar aliased 3,000 times. saphyr resolves
/// each alias by cloning the subtree; the loader refuses aliases on the
/// event stream instead, at their positions, and quotes no long line.
#[test]
fn alias_bomb_is_refused_at_its_positions() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mut t = format!("version: 1\nx: &a \"{}\"\ny: [", "z".repeat(4000));
    t.push_str(&vec!["*a"; 3000].join(", "));
    t.push_str("]\n");
    let f = write(tmp.path(), "bomb.yml", t);
    let o = run(&["check", s(&f)]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("bomb.yml:3:5: YAML aliases (`*name`) are not supported"), "{err}");
    // 20 errors at most, none quoting the 15 KB line whole
    assert!(err.matches("error[").count() <= 20, "{err}");
    assert!(err.lines().all(|l| l.chars().count() < 400), "a long line was echoed whole");
}

/// Item 3: 10,000 nested block sequences (`- - - ... 1`, 20 KB) overflowed
/// the stack (SIGABRT); now an error at the 33rd level's line:col.
#[test]
fn deep_nesting_is_an_error_at_its_position_not_a_crash() {
    let tmp = tempfile::tempdir().expect("tmp");
    for (name, text) in [
        ("block", format!("{}1\n", "- ".repeat(10_000))),
        ("flow", format!("x: {}1{}\n", "[".repeat(10_000), "]".repeat(10_000))),
    ] {
        let f = write(tmp.path(), &format!("{name}.yml"), text);
        let o = run(&["check", s(&f)]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {err}");
        // block: our limit at the 33rd level; flow: saphyr's scanner stops
        // `[` nesting itself (its recursion limit) before the event stream
        // reaches level 33. Either way an error at a position, no crash.
        if name == "block" {
            assert!(err.contains(&format!("{name}.yml:1:65: nesting deeper than 32 levels")), "{name}: {err}");
        } else {
            assert!(
                err.contains(&format!("{name}.yml:1:"))
                    && (err.contains("nesting deeper than 32 levels") || err.contains("recursion limit exceeded")),
                "{name}: {err}"
            );
        }
        assert!(err.lines().all(|l| l.chars().count() < 400), "{name}: long line echoed");
    }
}

/// Item 2: a scalar above the byte limit is refused at its position.
#[test]
fn oversized_scalar_is_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let f = write(tmp.path(), "big.yml", format!("version: 1\nboard:\n  name: {}\n", "n".repeat(100_000)));
    let o = run(&["check", s(&f)]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("big.yml:3:9: value of 100000 bytes (limit 4096)"), "{err}");
    assert!(err.len() < 4000, "{} bytes of errors", err.len());
}

/// Errors quote a short excerpt of a long line around the column.
#[test]
fn long_lines_are_quoted_as_excerpts() {
    let tmp = tempfile::tempdir().expect("tmp");
    let text = fs::read_to_string(board("zcu102")).expect("board");
    let long = format!("# {}\n", "c".repeat(3000));
    let bad = text.replacen("version: 1\n", &format!("version: 1\nbogus_key: {}\n{long}", "v".repeat(3000)), 1);
    let f = write(tmp.path(), "long.yml", bad);
    let o = run(&["check", s(&f)]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("bogus_key"), "{err}");
    assert!(err.lines().all(|l| l.chars().count() < 400), "long line echoed: {err}");
}

/// Item 10: binary input is an invalid board (exit 1) with a position, not
/// an I/O error without one.
#[test]
fn binary_input_has_a_position() {
    let tmp = tempfile::tempdir().expect("tmp");
    let f = write(tmp.path(), "bin.yml", b"version: 1\nboard:\n  name: a\xff\xfeb\n".as_slice());
    let o = run(&["check", s(&f)]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("bin.yml:3:10: not UTF-8 text: byte 0xff at offset 27"), "{err}");
    let tmp2 = tmp.path().join("out");
    let o = gen(&f, &tmp2);
    assert_eq!(o.status.code(), Some(1));
    assert!(!tmp2.exists());
}

/// zcu102.yml with `edits` applied (each anchor must exist), written to `dir`.
fn zcu102_with(dir: &Path, edits: &[(&str, &str)]) -> std::path::PathBuf {
    let mut t = fs::read_to_string(board("zcu102")).expect("board");
    for (old, new) in edits {
        assert!(t.contains(old), "anchor missing: {old}");
        t = t.replacen(old, new, 1);
    }
    write(dir, "zcu102.yml", t)
}

/// Line:col of the first occurrence of `needle` in the file (1-based), for
/// asserting positions without hard-coding board line numbers.
fn pos_of(f: &Path, needle: &str) -> String {
    let t = fs::read_to_string(f).expect("read");
    let i = t.find(needle).unwrap_or_else(|| panic!("{needle} not in {}", f.display()));
    let line = t[..i].matches('\n').count() + 1;
    let col = t[..i].rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("{line}:{col}")
}

/// Item 4: `rfs_sock_flow_entries: 30000` is generated as the 32768 the
/// kernel keeps (the applier compares sysctls exactly: 30000 failed every
/// boot), with a warning; the per-queue count likewise.
#[test]
fn rfs_tables_are_rounded_like_the_kernel() {
    let tmp = tempfile::tempdir().expect("tmp");
    let f = zcu102_with(
        tmp.path(),
        &[
            ("rfs_sock_flow_entries: 32768", "rfs_sock_flow_entries: 30000"),
            ("rfs_flow_cnt: 2048", "rfs_flow_cnt: 2000"),
        ],
    );
    let out = tmp.path().join("out");
    let o = gen(&f, &out);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!(
            "warning[rfs-rounded]: {}:{}: the kernel rounds rps_sock_flow_entries 30000 up to 32768",
            f.display(),
            pos_of(&f, "30000")
        )),
        "{err}"
    );
    assert!(err.contains("rounds rps_flow_cnt 2000 up to 2048"), "{err}");
    let plan = fs::read_to_string(out.join("tuning/zynq-net.plan")).expect("plan");
    assert!(plan.contains("\nsysctl net.core.rps_sock_flow_entries 32768\n"), "{plan}");
    assert!(plan.contains("\nrfs eth1 rx-0 2048\n") && !plan.contains(" 2000\n"), "{plan}");
    let conf = fs::read_to_string(out.join("tuning/99-zynq-net.conf")).expect("sysctl.d");
    assert!(conf.contains("net.core.rps_sock_flow_entries = 32768"), "{conf}");
}

/// Item 6: values out of range are errors at the value's position, never
/// "internal error ... did not deserialize" and never "rounds up to 0".
#[test]
fn out_of_range_numbers_are_errors_at_their_position() {
    let tmp = tempfile::tempdir().expect("tmp");
    let cases: &[(&str, &str, &str, &str)] = &[
        ("mtu: 1500", "mtu: 4294967296", "4294967296", "4294967296 is greater than the maximum of 4294967295"),
        ("rfs_flow_cnt: 2048", "rfs_flow_cnt: 2147483649", "2147483649", "rps_flow_cnt 2147483649 is above 536870912"),
        (
            "rfs_sock_flow_entries: 32768",
            "rfs_sock_flow_entries: 1073741824",
            "1073741824",
            "rps_sock_flow_entries 1073741824 is above the kernel's limit",
        ),
        ("mtu: 1500", "mtu: 1500.0", "1500.0", "1500.0 is a decimal number; an integer is expected here"),
        ("size: 0x10000", "size: 0", "size: 0", "MAC register window of size 0"),
    ];
    for (old, new, at, msg) in cases {
        let f = zcu102_with(tmp.path(), &[(old, new)]);
        let o = run(&["check", s(&f)]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{new}: {err}");
        let mut p = pos_of(&f, at);
        if at.starts_with("size: ") {
            p = pos_of(&f, at).replace(
                &format!(":{}", p.split(':').nth(1).unwrap_or("1")),
                &format!(":{}", p.split(':').nth(1).and_then(|c| c.parse::<usize>().ok()).map_or(1, |c| c + 6)),
            );
        }
        assert!(err.contains(&format!("{}:{p}: {msg}", f.display())), "{new}: want {p}: {msg}\n{err}");
        assert!(!err.contains("internal error") && !err.contains("up to 0"), "{new}: {err}");
    }
}

/// Item 6: a ZynqMP has 4 GEMs; a fifth (or 4096) macb port is an error.
#[test]
fn absurd_port_counts_are_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mut extra = String::new();
    for i in 0..4096 {
        extra.push_str(&format!("  - {{ name: gem{i}, driver: macb, queues: {{ rx: 1, tx: 1 }} }}\n"));
    }
    let f = zcu102_with(tmp.path(), &[("interfaces:\n", &format!("interfaces:\n{extra}"))]);
    let o = run(&["check", s(&f)]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{}", &err[..err.len().min(2000)]);
    assert!(err.contains("more than 4 macb ports: the zynqmp SoC has 4 (GEM0-3)"), "{}", &err[..err.len().min(2000)]);
    assert!(err.contains("interfaces; a board file describes at most 64"), "{}", &err[..err.len().min(2000)]);
}

/// Item 9: XPS on a port with one TX queue does nothing: a warning.
#[test]
fn xps_on_a_single_tx_queue_port_warns() {
    let tmp = tempfile::tempdir().expect("tmp");
    let f = zcu102_with(
        tmp.path(),
        &[
            ("queues: { rx: 2, tx: 2 }\n    mtu: 1500", "queues: { rx: 2, tx: 1 }\n    mtu: 1500"),
            ("      - { queue: 0, cpus: 0 }\n      - { queue: 1, cpus: 1 }\n", "      - { queue: 0, cpus: 0 }\n"),
        ],
    );
    let o = run(&["check", s(&f)]);
    let err = stderr(&o);
    assert!(err.contains("XPS on `eth0`, which has one TX queue"), "{err}");
}

/// Item 7: `gen` leaves no staging directory behind on any error path, and
/// refuses `/` and system directories at once.
#[test]
fn gen_cleans_staging_on_every_error_path() {
    let tmp = tempfile::tempdir().expect("tmp");
    let b = board("zcu102");
    let staging = |d: &Path| -> Vec<String> {
        fs::read_dir(d)
            .expect("dir")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".zynq-net-"))
            .collect()
    };
    // `-o .` in an empty directory: written there (resolved to its real path)
    let empty = tmp.path().join("empty");
    fs::create_dir(&empty).expect("mkdir");
    let o = std::process::Command::new(super::bin())
        .current_dir(&empty)
        .args(["gen", s(&b), "-o", "."])
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(empty.join("manifest.json").exists());
    assert!(staging(tmp.path()).is_empty() && staging(&empty).is_empty(), "{:?}", staging(tmp.path()));
    // a symlinked parent: resolved and said
    std::os::unix::fs::symlink(tmp.path(), tmp.path().join("link")).expect("symlink");
    let o = run(&["gen", s(&b), "-o", s(&tmp.path().join("link/out2"))]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("goes through a symbolic link"), "{}", stderr(&o));
    assert!(tmp.path().join("out2/manifest.json").exists());
    // the output is a symlink to a directory (`link/`): refused, nothing left
    let o = run(&["gen", s(&b), "-o", &format!("{}/", tmp.path().join("link").display())]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // the final rename fails: the parent is not writable for the swap (a
    // read-only bind mount would need root; a file in the way does it)
    let blocked = tmp.path().join("blocked");
    fs::create_dir(&blocked).expect("mkdir");
    fs::write(blocked.join("x"), "foreign").expect("write");
    let o = run(&["gen", s(&b), "-o", s(&blocked)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(staging(tmp.path()).is_empty(), "{:?}", staging(tmp.path()));
    // a mount point: the final rename fails (EBUSY); needs root to mount
    let is_root =
        std::process::Command::new("id").arg("-u").output().map(|o| o.stdout.starts_with(b"0\n")).unwrap_or(false);
    if is_root {
        let mnt = tmp.path().join("mnt");
        fs::create_dir(&mnt).expect("mkdir");
        let m = std::process::Command::new("mount").args(["-t", "tmpfs", "zynq-net-test", s(&mnt)]).status();
        if m.is_ok_and(|st| st.success()) {
            let o = run(&["gen", s(&b), "-o", s(&mnt)]);
            let _ = std::process::Command::new("umount").arg(&mnt).status();
            assert_eq!(o.status.code(), Some(2), "mount point: {}", stderr(&o));
            assert!(stderr(&o).contains("nothing was written"), "{}", stderr(&o));
            assert!(staging(tmp.path()).is_empty(), "mount point: {:?}", staging(tmp.path()));
        }
    } else {
        eprintln!("not root: the mount-point case is skipped");
    }
    // system directories: refused at once, without walking them
    for d in ["/", "/usr", "/etc", "/var/lib"] {
        let t0 = std::time::Instant::now();
        let o = run(&["gen", s(&b), "-o", d]);
        assert_eq!(o.status.code(), Some(2), "{d}: {}", stderr(&o));
        assert!(stderr(&o).contains("is a system or home directory"), "{d}: {}", stderr(&o));
        assert!(t0.elapsed() < std::time::Duration::from_secs(5), "{d}: walked?");
    }
    // ... before the board is read (docs/cli.md): a missing board is not
    // what is said
    let o = run(&["gen", s(&tmp.path().join("no-such-board.yml")), "-o", "/etc"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("/etc: is a system or home directory") && !stderr(&o).contains("no-such-board"),
        "{}",
        stderr(&o)
    );
    // staging left by a killed run (dead pid) is removed by the next run
    let stale = tmp.path().join(".zynq-net-gen.999999999.abc");
    fs::create_dir(&stale).expect("mkdir");
    let o = run(&["gen", s(&b), "-o", s(&tmp.path().join("out3"))]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stale.exists(), "stale staging directory kept");
}

/// Item 7: SIGINT/SIGTERM while the staging directory exists: exit 130,
/// nothing written, no staging left.
#[test]
fn gen_cleans_staging_on_signals() {
    for sig in ["INT", "TERM"] {
        let tmp = tempfile::tempdir().expect("tmp");
        let out = tmp.path().join("out");
        let child = std::process::Command::new(super::bin())
            .args(["gen", s(&board("zcu102")), "-o", s(&out)])
            .env("ZYNQ_NET_TEST_GEN_DELAY_MS", "1500")
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        std::thread::sleep(std::time::Duration::from_millis(500));
        let k = std::process::Command::new("kill")
            .args([&format!("-{sig}"), &child.id().to_string()])
            .status()
            .expect("kill");
        assert!(k.success());
        let o = child.wait_with_output().expect("wait");
        assert_eq!(o.status.code(), Some(130), "{sig}: {}", stderr(&o));
        assert!(stderr(&o).contains("interrupted"), "{sig}: {}", stderr(&o));
        assert!(!out.exists());
        let left: Vec<_> =
            fs::read_dir(tmp.path()).expect("dir").filter_map(|e| e.ok()).map(|e| e.file_name()).collect();
        assert!(left.is_empty(), "{sig}: left {left:?}");
    }
}
