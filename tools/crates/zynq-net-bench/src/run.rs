//! Running trials: one iperf3 client/server pair, per-core CPU load on every
//! machine involved, the CPU-bound flag (an iperf3 bound by one core), and the matrix runner that
//! appends one JSON line per trial so an interrupted run keeps its results.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::cpu::{self, CoreLoad};
use crate::error::BenchError;
use crate::exec::{argv, Host};
use crate::iperf::{self, ClientOpts, Version};
use crate::plan::{choose_cpus, irq_cpus_from_interrupts, Cell, Plan};
use crate::records::{append_jsonl, files, read_jsonl, MachineLoad, TrialRecord};
use crate::targets::{Endpoint, Targets};

/// Ends the one-off iperf3 server of a trial. It exits by itself after its
/// test; one that is still there after 3 s (no client reached it) gets
/// SIGTERM, which `timeout` passes on to iperf3 (SIGKILL would end
/// `timeout` alone and leave iperf3 holding the port for ever), and
/// SIGKILL if it is still there 2 s later.
fn end_server(server: &mut std::process::Child) {
    if exits_within(server, Duration::from_secs(3)) {
        return;
    }
    let _ = std::process::Command::new("kill").args(["-TERM", &server.id().to_string()]).status();
    if !exits_within(server, Duration::from_secs(2)) {
        let _ = server.kill();
        let _ = server.wait();
    }
}

/// Whether `child` has exited (and been reaped) within `d`.
fn exits_within(child: &mut std::process::Child, d: Duration) -> bool {
    let until = Instant::now() + d;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => return true,
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
            _ => return false,
        }
    }
}

/// Everything a trial needs, resolved once per run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Context {
    /// The targets.
    pub targets: Targets,
    /// iperf3 version on the client end.
    pub client_version: Version,
    /// iperf3 version on the server end.
    pub server_version: Version,
    /// taskset list for the client (empty: not pinned).
    pub client_cpus: Vec<usize>,
    /// taskset list for the server.
    pub server_cpus: Vec<usize>,
    /// Machines sampled for CPU load: role label and host.
    pub machines: Vec<(String, Host)>,
    /// CPU-bound threshold, percent busy.
    pub cpu_bound_percent: f64,
    /// Notes for every trial.
    pub notes: Vec<String>,
    /// Seconds each end may run past the trial's time (connecting, the
    /// exchange of results) before `timeout` stops it: [`GRACE_S`]; tests
    /// shorten it.
    pub grace_s: u64,
}

/// [`Context::grace_s`]'s value in a run.
pub const GRACE_S: u64 = 30;

fn detect_version(h: &Host) -> Result<Version, BenchError> {
    detect_version_with(h, "iperf3")
}

/// The version of `iperf3` (the command `iperf3`) on `h`.
fn detect_version_with(h: &Host, iperf3: &str) -> Result<Version, BenchError> {
    let out = h.output(&argv(&[iperf3, "--version"])).map_err(|e| {
        BenchError::Iperf(format!("{}: `{iperf3}` could not be run: not installed or not on PATH? ({e})", h.label()))
    })?;
    let err = String::from_utf8_lossy(&out.stderr);
    match (h, out.status.code()) {
        // ssh's own failure (ssh(1): "exits with 255 if an error occurred")
        (Host::Ssh { .. }, Some(255)) => {
            return Err(BenchError::Ssh { host: h.label(), detail: err.trim().to_string() });
        }
        // the shell's "command not found" (POSIX: 127)
        (_, Some(127)) => {
            return Err(BenchError::Iperf(format!(
                "{}: `{iperf3}` is not installed (or not on PATH): {}",
                h.label(),
                err.trim()
            )))
        }
        _ => {}
    }
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    Version::parse(&text).ok_or_else(|| {
        BenchError::Iperf(format!("{}: cannot tell the iperf3 version from `{}`", h.label(), text.trim()))
    })
}

fn online_cpus(h: &Host) -> Result<Vec<usize>, BenchError> {
    Ok(cpu::parse_proc_stat(&h.read_file("/proc/stat")?)?.cpus.iter().map(|(c, _)| *c).collect())
}

fn irq_cpus(e: &Endpoint, configured: &[usize]) -> Result<Vec<usize>, BenchError> {
    let mut v = configured.to_vec();
    if let Some(p) = &e.irq_pattern {
        for c in irq_cpus_from_interrupts(&e.host.read_file("/proc/interrupts")?, p) {
            if !v.contains(&c) {
                v.push(c);
            }
        }
    }
    Ok(v)
}

impl Context {
    /// Probes both ends: iperf3 versions, online CPUs, IRQ CPUs; decides pinning.
    pub fn new(targets: &Targets, plan: &Plan) -> Result<Context, BenchError> {
        let spec = &plan.spec;
        let client_version = detect_version(&targets.client.host)?;
        let server_version = detect_version(&targets.server.host)?;
        let mut notes = Vec::new();
        let mut pick =
            |end: &Endpoint, configured: &[usize], irq_conf: &[usize], name: &str| -> Result<Vec<usize>, BenchError> {
                let irq = irq_cpus(end, irq_conf)?;
                let online = online_cpus(&end.host)?;
                // taskset would refuse every trial (new-user trial: 16 of
                // 16 failed after 48 s on a 2-CPU host with pin_cpus 2-3)
                let absent: Vec<usize> = configured.iter().copied().filter(|c| !online.contains(c)).collect();
                if !absent.is_empty() {
                    let key = if name == "client" { "pin_cpus" } else { "peer_pin_cpus" };
                    return Err(BenchError::Invalid(format!(
                        "matrix.{key} `{}`: the {name} ({}) has no CPU {} (online: {}); pin to CPUs of \
                         the machine iperf3 runs on, or leave {key} out",
                        cpu_list(configured),
                        end.host.label(),
                        cpu_list(&absent),
                        cpu_list(&online)
                    )));
                }
                let (cpus, warn) = choose_cpus(configured, &irq, &online);
                if let Some(w) = warn {
                    notes.push(format!("{name}: {w}"));
                } else if !irq.is_empty() {
                    notes.push(format!("{name}: NIC IRQ on CPU {irq:?}, iperf3 pinned to {cpus:?} with taskset"));
                }
                Ok(cpus)
            };
        let client_cpus = pick(&targets.client, &spec.cpus.client, &spec.irq_cpus.client, "client")?;
        let server_cpus = pick(&targets.server, &spec.cpus.server, &spec.irq_cpus.server, "server")?;
        let mut machines: Vec<(String, Host)> = Vec::new();
        for (role, e) in targets.ends() {
            if let Some(m) = machines.iter_mut().find(|(_, h)| h.same_machine(&e.host)) {
                m.0.push('+');
                m.0.push_str(role);
            } else {
                machines.push((role.to_string(), e.host.clone()));
            }
        }
        Ok(Context {
            targets: targets.clone(),
            client_version,
            server_version,
            client_cpus,
            server_cpus,
            machines,
            cpu_bound_percent: spec.cpu_bound_percent,
            grace_s: GRACE_S,
            notes,
        })
    }
}

fn cpu_list(c: &[usize]) -> String {
    c.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
}

/// Prefixes `nice -n N` when asked.
pub fn niced(nice: Option<i32>, cmd: Vec<String>) -> Vec<String> {
    match nice {
        Some(n) => {
            let mut v = argv(&["nice", "-n"]);
            v.push(n.to_string());
            v.extend(cmd);
            v
        }
        None => cmd,
    }
}

/// Prefixes `taskset -c LIST` when `cpus` is not empty. iperf3's own `-A`
/// is never used: from 3.16 it pins every stream thread to one CPU.
pub fn pinned(cpus: &[usize], cmd: Vec<String>) -> Vec<String> {
    if cpus.is_empty() {
        return cmd;
    }
    let mut v = argv(&["taskset", "-c"]);
    v.push(cpu_list(cpus));
    v.extend(cmd);
    v
}

fn sample_all(ctx: &Context) -> Vec<Option<cpu::Sample>> {
    ctx.machines
        .iter()
        .map(|(_, h)| h.read_file("/proc/stat").ok().and_then(|t| cpu::parse_proc_stat(&t).ok()))
        .collect()
}

fn now_unix() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}

/// The outcome of one trial, with the raw iperf3 JSON.
#[derive(Debug, Clone)]
pub struct Trial {
    /// The record.
    pub record: TrialRecord,
    /// Raw iperf3 client JSON (when it produced any).
    pub raw: Option<Value>,
}

/// Runs one iperf3 trial: a one-off server on the server end, the client
/// (retried while the server is not listening yet), CPU samples around it.
pub fn trial(ctx: &Context, opts: &ClientOpts, cell: &str, repeat: u32) -> Trial {
    let started = now_unix();
    let t0 = Instant::now();
    let mut notes = ctx.notes.clone();
    if opts.streams > 1 && !ctx.client_version.multithreaded() {
        notes.push(format!(
            "iperf3 {} (< 3.16) is single-threaded: the {} streams share one CPU",
            ctx.client_version, opts.streams
        ));
    }
    // The server is bounded in time so that nothing is left behind on a
    // remote end if this process dies.
    let limit = server_limit(opts, ctx.grace_s);
    let mut server_cmd = argv(&["timeout", &limit.to_string(), "iperf3", "-s", "-1", "-p"]);
    server_cmd.push(opts.port.to_string());
    let server_cmd = niced(ctx.targets.server.nice, pinned(&ctx.server_cpus, server_cmd));
    // So is the client: a peer that accepts the connection and never
    // answers (something else listening at the address) held a trial, and
    // the run, without end (new-user trial: over 3.5 minutes of a 1 s
    // trial). Here it is killed at the limit (output_within), staying in
    // this process group for Ctrl-C; on an ssh end the remote iperf3 is
    // also under `timeout`, which killing the local ssh would not stop.
    let wait_s = limit + if matches!(ctx.targets.client.host, Host::Ssh { .. }) { 5 } else { 0 };
    let client_cmd = {
        let mut c = match ctx.targets.client.host {
            Host::Ssh { .. } => argv(&["timeout", &limit.to_string(), "iperf3"]),
            Host::Local {} | Host::Netns { .. } => argv(&["iperf3"]),
        };
        c.extend(opts.args(ctx.client_version));
        niced(ctx.targets.client.nice, pinned(&ctx.client_cpus, c))
    };
    let command = client_cmd.join(" ");
    let mut record = TrialRecord {
        cell: cell.to_string(),
        repeat,
        started,
        wall_seconds: 0.0,
        command,
        throughput_bps: 0.0,
        summary: None,
        cpu: Vec::new(),
        cpu_bound: Vec::new(),
        notes,
        error: None,
    };
    if opts.direction == crate::iperf::Direction::Bidir && !ctx.client_version.has_bidir() {
        record.error = Some(format!("iperf3 {} has no --bidir (needs 3.7 or later)", ctx.client_version));
        return Trial { record, raw: None };
    }
    let mut server = match ctx
        .targets
        .server
        .host
        .command(&server_cmd)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        Ok(s) => s,
        Err(e) => {
            record.error = Some(format!("cannot start iperf3 server: {e}"));
            return Trial { record, raw: None };
        }
    };
    let mut before = None;
    let mut output = None;
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut delay = Duration::from_millis(5);
    loop {
        before = before.or_else(|| Some(sample_all(ctx)));
        // the remote `timeout` first (it ends the remote iperf3), then here
        match ctx.targets.client.host.output_within(&client_cmd, Duration::from_secs(wait_s)) {
            Ok((o, killed)) => {
                let text = String::from_utf8_lossy(&o.stdout).into_owned();
                // ECONNREFUSED: the one-off server is not listening yet, so
                // try again. Any other failure to connect (a name that does
                // not resolve: iperf3 says "unable to connect to server:
                // Invalid argument"; no route) does not mend by waiting.
                // The text is strerror's in the C locale whatever LANG is:
                // iperf3 and libiperf never call setlocale (nm -D).
                let refused = text.contains("Connection refused");
                if refused && Instant::now() < deadline {
                    std::thread::sleep(delay);
                    delay = retry_delay(delay);
                    before = None;
                    continue;
                }
                output = Some((o, text, killed));
            }
            Err(e) => record.error = Some(e.to_string()),
        }
        break;
    }
    let after = sample_all(ctx);
    end_server(&mut server);
    if let Some(before) = before {
        for (((role, _), b), a) in ctx.machines.iter().zip(before).zip(after) {
            if let (Some(b), Some(a)) = (b, a) {
                let cores = cpu::load(&b, &a);
                record.cpu_bound.extend(cpu_bound(role, &cores, ctx.cpu_bound_percent));
                record.cpu.push(MachineLoad { role: role.clone(), cores });
            }
        }
    }
    let mut raw = None;
    // stopped: by the limit here (killed), or by `timeout` on the ssh end
    let stopped = output.as_ref().and_then(|(o, _, killed)| match (*killed, o.status.code()) {
        (true, _) => Some(wait_s),
        (false, Some(TIMED_OUT)) => Some(limit),
        _ => None,
    });
    if let Some(after) = stopped {
        record.error = Some(format!(
            "iperf3 client stopped after {after} s (the trial's time and {} s) without a result: \
             check that {}:{} is the iperf3 server's address and port (something else may have \
             accepted the connection)",
            after - (limit - ctx.grace_s),
            ctx.targets.server.address,
            opts.port
        ));
    } else if let Some((o, text, _)) = output {
        match serde_json::from_str::<Value>(&text) {
            Ok(v) => {
                match iperf::parse_value(&v) {
                    Ok(s) => {
                        record.throughput_bps = s.total_received_bps();
                        record.summary = Some(s);
                    }
                    Err(e) => record.error = Some(e.to_string()),
                }
                raw = Some(v);
            }
            Err(_) => {
                record.error = Some(format!(
                    "iperf3 client exited {} without JSON: {}",
                    o.status,
                    String::from_utf8_lossy(&o.stderr).trim()
                ))
            }
        }
    }
    record.wall_seconds = t0.elapsed().as_secs_f64();
    Trial { record, raw }
}

/// Cores at or above `threshold` percent busy, as `ROLE cpuN P%`
/// (iperf3's sender or receiver at one full core is the limit measured).
pub fn cpu_bound(role: &str, cores: &[CoreLoad], threshold: f64) -> Vec<String> {
    cores.iter().filter(|c| c.busy() >= threshold).map(|c| format!("{role} cpu{} {:.0}%", c.cpu, c.busy())).collect()
}

/// Builds the iperf3 client options of a matrix cell.
pub fn cell_opts(ctx: &Context, cell: &Cell, emulate_mtu: bool, zerocopy: bool) -> ClientOpts {
    ClientOpts {
        server: ctx.targets.server.address.clone(),
        port: ctx.targets.port,
        protocol: cell.protocol,
        direction: cell.direction,
        streams: cell.streams,
        seconds: cell.seconds,
        length: cell.length,
        bitrate: cell.bitrate,
        mss: if emulate_mtu { cell.mss } else { None },
        omit: cell.omit,
        zerocopy,
        window: if cell.protocol == crate::iperf::Protocol::Udp { ctx.targets.udp_socket_buffer } else { None },
    }
}

/// Sets the MTU of every listed interface on every end; returns whether
/// links were reconfigured (otherwise the MTU is emulated by `-M`/`-l`).
pub fn set_mtu(targets: &Targets, mtu: u32) -> Result<bool, BenchError> {
    let mut any = false;
    for e in [&targets.client, &targets.server].into_iter().chain(targets.dut.as_ref()) {
        for i in &e.ifaces {
            e.host.run(&argv(&["ip", "link", "set", "dev", i, "mtu", &mtu.to_string()]))?;
            any = true;
        }
    }
    Ok(any)
}

/// Options of [`run_plan`].
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Keep trials already in `results.jsonl` and run only the missing ones.
    pub resume: bool,
    /// No progress bar.
    pub quiet: bool,
}

/// The progress bar's length for `total_seconds` of nominal trial time:
/// the bar counts tenths of a second, rounded up (0 for a total <= 0 or
/// NaN). indicatif derives the percent and the ETA from this length and
/// the ticks of [`ticks`].
pub fn bar_len(total_seconds: f64) -> u64 {
    (total_seconds * 10.0).ceil() as u64
}

/// The ticks a trial of `wall_seconds` advances the bar: whole tenths of
/// a second, rounded down (0 for a negative or NaN time).
pub fn ticks(wall_seconds: f64) -> u64 {
    (wall_seconds * 10.0) as u64
}

/// A progress bar over nominal trial seconds, with ETA, on stderr.
pub fn progress(total_seconds: f64, quiet: bool) -> indicatif::ProgressBar {
    let pb = if quiet { indicatif::ProgressBar::hidden() } else { indicatif::ProgressBar::new(bar_len(total_seconds)) };
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {percent:>3}% ETA {eta} {msg}")
    {
        pb.set_style(style);
    }
    pb
}

/// Prints a line above the progress bar, or on stderr when there is no
/// terminal to draw the bar on (CI logs still show each trial).
pub fn say(pb: &indicatif::ProgressBar, line: String) {
    if pb.is_hidden() {
        // never panics on a closed stderr (`2>&1 | head -1`)
        zynq_net_model::eoutln!("{line}");
    } else {
        pb.println(line);
    }
}

fn json_of<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// The keys (dotted, from `prefix`) whose values differ between two JSON
/// objects, down to the first level that is not an object on both sides.
fn differing_keys(prefix: &str, a: &Value, b: &Value) -> Vec<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter()
                .flat_map(|k| {
                    let name = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                    differing_keys(&name, x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null))
                })
                .collect()
        }
        _ if a == b => Vec::new(),
        _ => vec![if prefix.is_empty() { "the whole".into() } else { prefix.to_string() }],
    }
}

/// Runs the matrix of `plan` against `targets`, appending to `out/results.jsonl`.
pub fn run_plan(plan: &Plan, targets: &Targets, out: &Path, opts: &RunOptions) -> Result<Vec<TrialRecord>, BenchError> {
    let ctx = Context::new(targets, plan)?; // first: unreachable targets leave OUT as it was
    crate::records::output_dir(out)?;
    std::fs::create_dir_all(out.join(files::RAW_DIR)).map_err(|e| BenchError::io(out, e))?;
    let results_path = out.join(files::RESULTS);
    let mut done: Vec<TrialRecord> = if opts.resume {
        // Trials of other settings (another --duration, other cells) would
        // be mixed into one result set under the same cell ids.
        // Nor may other targets: run.json would describe ends that made
        // none of the earlier trials.
        let saved = out.join(files::PLAN);
        if saved.exists() {
            let old = Plan::load(&saved)?;
            let mut differ = differing_keys("", &json_of(&old.spec), &json_of(&plan.spec));
            if old.cells != plan.cells {
                differ.push("cells".into());
            }
            if !differ.is_empty() {
                return Err(BenchError::Invalid(format!(
                    "{}: --resume with other settings or cells than this directory was started with (its plan.json \
                     differs in: {}); resume with the same plan and options, or use a new output directory",
                    saved.display(),
                    differ.join(", ")
                )));
            }
        }
        let meta = out.join(files::RUN);
        if let Ok(text) = std::fs::read_to_string(&meta) {
            let was = serde_json::from_str::<Value>(&text).ok().map(|v| v["context"]["targets"].clone());
            let now = json_of(targets);
            if let Some(was) = was.filter(|w| !w.is_null() && *w != now) {
                return Err(BenchError::Invalid(format!(
                    "{}: --resume with other targets than this directory was started with (its run.json differs \
                     in: {}); resume with the same --targets or --lab, or use a new output directory",
                    meta.display(),
                    differing_keys("", &was, &now).join(", ")
                )));
            }
        }
        read_jsonl(&results_path)?
    } else {
        if results_path.exists() {
            std::fs::remove_file(&results_path).map_err(|e| BenchError::io(&results_path, e))?;
        }
        Vec::new()
    };
    plan.save(&out.join(files::PLAN))?;
    let run_meta = serde_json::json!({
        "format": "zynq-net-bench-run 1",
        "tool": concat!("zynq-net ", env!("CARGO_PKG_VERSION")),
        "started": now_unix(),
        "context": ctx,
    });
    crate::records::write_file(
        &out.join(files::RUN),
        serde_json::to_string_pretty(&run_meta).unwrap_or_default() + "\n",
    )?;
    let pb = progress(plan.nominal_seconds(), opts.quiet);
    let mut current_mtu = None;
    let mut links_set = false;
    for cell in &plan.cells {
        for rep in 0..cell.repeats {
            let nominal = cell.progress_ticks();
            if done.iter().any(|r| r.cell == cell.id && r.repeat == rep && r.error.is_none()) {
                pb.inc(nominal);
                continue;
            }
            if current_mtu != Some(cell.mtu) {
                links_set = set_mtu(targets, cell.mtu)?;
                current_mtu = Some(cell.mtu);
            }
            pb.set_message(format!("{} #{}", cell.id, rep + 1));
            let t = trial(&ctx, &cell_opts(&ctx, cell, !links_set, plan.spec.zerocopy), &cell.id, rep);
            if let Some(raw) = &t.raw {
                let p: PathBuf = out.join(files::RAW_DIR).join(format!("{}-r{}.json", cell.id, rep));
                crate::records::write_file(&p, serde_json::to_string_pretty(raw).unwrap_or_default())?;
            }
            append_jsonl(&results_path, &t.record)?;
            if opts.quiet {
                // keep quiet
            } else if let Some(e) = &t.record.error {
                say(&pb, format!("{} #{}: FAILED: {e}", cell.id, rep + 1));
            } else {
                say(
                    &pb,
                    format!(
                        "{} #{}: {:.1} Mbit/s{}",
                        cell.id,
                        rep + 1,
                        t.record.throughput_bps / 1e6,
                        if t.record.cpu_bound.is_empty() {
                            String::new()
                        } else {
                            format!(" CPU-bound ({})", t.record.cpu_bound.join(", "))
                        }
                    ),
                );
            }
            done.retain(|r| !(r.cell == cell.id && r.repeat == rep));
            done.push(t.record);
            pb.inc(nominal);
        }
    }
    pb.finish_and_clear();
    Ok(done)
}

/// coreutils/busybox `timeout`'s exit status when it stopped the command.
const TIMED_OUT: i32 = 124;

/// Seconds the one-off server may live (`timeout` around `iperf3 -s -1`):
/// the trial with its omitted start, and `grace_s` ([`GRACE_S`]) for the
/// client to connect and the results to be exchanged. The client has the
/// same bound.
fn server_limit(opts: &ClientOpts, grace_s: u64) -> u64 {
    (opts.seconds + opts.omit as f64).ceil() as u64 + grace_s
}

/// The wait before the next connection attempt while the one-off iperf3
/// server is not listening yet: twice the last one, at most 100 ms (so a
/// slow server start costs little, a fast one almost nothing).
fn retry_delay(last: Duration) -> Duration {
    (last * 2).min(Duration::from_millis(100))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    /// The bar counts tenths of a second: its length rounds a nominal total
    /// up, a trial's ticks round its wall time down, so a run that takes
    /// exactly its nominal time fills the bar and never overfills it.
    #[test]
    fn progress_bar_arithmetic() {
        assert_eq!(super::bar_len(1.25), 13);
        assert_eq!(super::bar_len(45.0), 450);
        assert_eq!(super::bar_len(0.0), 0);
        assert_eq!(super::ticks(1.29), 12);
        assert_eq!(super::ticks(1.3), 13);
        assert_eq!(super::ticks(0.05), 0);
        assert_eq!(super::ticks(-1.0), 0);
        let trials = [1.25_f64; 4];
        assert_eq!(trials.iter().map(|t| super::ticks(*t)).sum::<u64>(), 48);
        assert!(48 <= super::bar_len(trials.iter().sum()));
    }

    use super::*;

    /// An ssh end that cannot be reached is an ssh failure (ssh exits
    /// 255), not "cannot tell the iperf3 version".
    #[test]
    fn an_unreachable_ssh_end_is_an_ssh_error() {
        // RFC 6761: .invalid never resolves.
        let h = Host::Ssh { dest: "root@zn-bench.invalid".into(), opts: vec!["-oConnectTimeout=2".into()] };
        let e = detect_version(&h).unwrap_err().to_string();
        assert!(e.starts_with("ssh:root@zn-bench.invalid: ssh failed (exit 255): "), "{e}");
        assert!(!e.contains("version"), "{e}");
        // A command that is not there is said so.
        let e = detect_version_with(&Host::Local {}, "zn-no-such-iperf3").unwrap_err().to_string();
        assert!(e.contains("zn-no-such-iperf3") && e.contains("not installed"), "{e}");
    }

    #[test]
    fn taskset_not_dash_a() {
        let v = pinned(&[1, 3], argv(&["iperf3", "-c", "x", "-P", "4"]));
        assert_eq!(v[..3], argv(&["taskset", "-c", "1,3"])[..]);
        assert!(!v.iter().any(|a| a == "-A"));
        assert_eq!(pinned(&[], argv(&["iperf3"])), argv(&["iperf3"]));
    }

    #[test]
    fn c8_a_core_at_95_percent_flags_the_trial() {
        let core = |cpu, idle: f64| CoreLoad { cpu, usr: 10.0, sys: 20.0, irq: 0.0, softirq: 70.0 - idle, idle };
        let cores = [core(0, 3.0), core(1, 60.0), core(2, 5.0)];
        assert_eq!(
            cpu_bound("client", &cores, 95.0),
            vec!["client cpu0 97%".to_string(), "client cpu2 95%".to_string()]
        );
        assert!(cpu_bound("client", &cores[1..2], 95.0).is_empty());
    }

    #[test]
    fn niced_and_progress() {
        let cmd = argv(&["iperf3", "-s"]);
        assert_eq!(niced(Some(-5), cmd.clone()), argv(&["nice", "-n", "-5", "iperf3", "-s"]));
        assert_eq!(niced(None, cmd.clone()), cmd);
        // The bar counts tenths of nominal seconds.
        assert_eq!(progress(2.55, false).length(), Some(26));
        assert!(progress(1.0, true).is_hidden() && progress(1.0, true).length().is_none());
    }

    /// A TCP/UDP port nobody listens on now (the kernel's choice).
    fn free_port() -> u16 {
        std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
    }

    fn local_targets(port: u16) -> Targets {
        Targets { description: String::new(), ..Targets::local("127.0.0.1", port) }
    }

    fn online() -> Vec<usize> {
        cpu::parse_proc_stat(&std::fs::read_to_string("/proc/stat").unwrap())
            .unwrap()
            .cpus
            .iter()
            .map(|c| c.0)
            .collect()
    }

    /// The real iperf3 over loopback: one trial as the runner makes it.
    #[test]
    fn a_trial_runs_iperf3_and_samples_every_core() {
        let port = free_port();
        let mut targets = local_targets(port);
        targets.client.nice = Some(0);
        let version = detect_version(&Host::Local {}).unwrap();
        let ctx = Context {
            targets,
            client_version: version,
            server_version: version,
            client_cpus: vec![0],
            server_cpus: vec![],
            machines: vec![("client+server".into(), Host::Local {})],
            // Every core is at least 0% busy: each is listed.
            cpu_bound_percent: 0.0,
            grace_s: GRACE_S,
            notes: vec!["from the context".into()],
        };
        let opts = ClientOpts {
            server: "127.0.0.1".into(),
            port,
            protocol: iperf::Protocol::Udp,
            direction: iperf::Direction::Tx,
            streams: 2,
            seconds: 1.0,
            length: 1000,
            bitrate: Some(8_000_000),
            mss: None,
            omit: 0,
            zerocopy: false,
            window: None,
        };
        let before = now_unix();
        let t = trial(&ctx, &opts, "udp-cell", 3);
        let r = &t.record;
        assert_eq!(r.error, None, "{r:?}");
        assert_eq!((r.cell.as_str(), r.repeat), ("udp-cell", 3));
        assert_eq!(
            r.command,
            format!("nice -n 0 taskset -c 0 iperf3 -c 127.0.0.1 -p {port} --json -t 1 -l 1000 -P 2 -u --udp-counters-64bit -b 8000000")
        );
        assert!(r.started >= before - 1.0 && r.started <= now_unix(), "{} vs {before}", r.started);
        assert!(r.wall_seconds >= 1.0 && r.wall_seconds < 20.0, "{}", r.wall_seconds);
        let s = r.summary.as_ref().unwrap();
        assert_eq!((s.protocol, s.streams, s.blksize), (iperf::Protocol::Udp, 2, 1000));
        // -b is per stream: 2 · 8 Mbit/s offered; loopback delivers it.
        assert!(r.throughput_bps > 8e6 && r.throughput_bps < 20e6, "{}", r.throughput_bps);
        assert_eq!(r.throughput_bps, s.total_received_bps());
        assert_eq!(t.raw.as_ref().unwrap()["start"]["test_start"]["blksize"], 1000);
        assert_eq!(r.cpu.len(), 1);
        assert_eq!(r.cpu[0].role, "client+server");
        assert_eq!(r.cpu[0].cores.iter().map(|c| c.cpu).collect::<Vec<_>>(), online());
        assert_eq!(r.cpu_bound.len(), online().len(), "{:?}", r.cpu_bound);
        assert!(r.cpu_bound.iter().all(|c| c.starts_with("client+server cpu")), "{:?}", r.cpu_bound);
        assert_eq!(r.notes[0], "from the context");
        if !version.multithreaded() {
            assert!(r.notes[1].contains("single-threaded: the 2 streams share one CPU"), "{:?}", r.notes);
        }
        // The one-off server is gone: the port is free again.
        assert!(std::net::TcpListener::bind(("127.0.0.1", port)).is_ok());
        // --bidir on an iperf3 without it: an error, nothing run.
        let old = Version { major: 3, minor: 6, patch: 0 };
        let ctx = Context { client_version: old, ..ctx };
        let t = trial(&ctx, &ClientOpts { direction: iperf::Direction::Bidir, ..opts.clone() }, "bidir", 0);
        assert_eq!(t.record.error.as_deref(), Some("iperf3 3.6.0 has no --bidir (needs 3.7 or later)"));
        assert!(t.record.summary.is_none() && t.raw.is_none() && t.record.cpu.is_empty());
        // The same old iperf3 without --bidir runs; one stream has no
        // single-threaded note.
        let t = trial(&ctx, &ClientOpts { streams: 1, ..opts.clone() }, "old", 0);
        assert_eq!(
            (t.record.error.as_deref(), t.record.notes.as_slice()),
            (None, &["from the context".to_string()][..])
        );
        // The one-off server's lifetime: the trial, its omitted start and 30 s.
        assert_eq!(server_limit(&ClientOpts { seconds: 1.5, omit: 0, ..opts.clone() }, GRACE_S), 32);
        assert_eq!(server_limit(&ClientOpts { seconds: 10.0, omit: 20, ..opts }, GRACE_S), 60);
    }

    /// The online CPUs as /sys lists them (`0-1,4`), to hold the runner's
    /// reading of /proc/stat against.
    #[test]
    fn online_cpus_are_the_kernels() {
        let text = std::fs::read_to_string("/sys/devices/system/cpu/online").unwrap();
        let mut want = Vec::new();
        for part in text.trim().split(',') {
            let (a, b) = part.split_once('-').unwrap_or((part, part));
            want.extend(a.parse::<usize>().unwrap()..=b.parse::<usize>().unwrap());
        }
        assert_eq!(online_cpus(&Host::Local {}).unwrap(), want);
    }

    /// A context of `targets` with nothing pinned or sampled, 95 % CPU
    /// bound, a run's grace.
    fn bare_context(targets: Targets, version: Version) -> Context {
        Context {
            targets,
            client_version: version,
            server_version: version,
            client_cpus: vec![],
            server_cpus: vec![],
            machines: vec![],
            cpu_bound_percent: 95.0,
            grace_s: GRACE_S,
            notes: vec![],
        }
    }

    /// One TCP stream for 1 s to 127.0.0.1:`port`.
    fn tcp_1s(port: u16) -> ClientOpts {
        ClientOpts {
            server: "127.0.0.1".into(),
            port,
            protocol: iperf::Protocol::Tcp,
            direction: iperf::Direction::Tx,
            streams: 1,
            seconds: 1.0,
            length: 1000,
            bitrate: None,
            mss: None,
            omit: 0,
            zerocopy: false,
            window: None,
        }
    }

    /// A client that never reaches the one-off server (here: it cannot
    /// even start, in a namespace that does not exist): the trial is a
    /// failure and the waiting server is stopped 3 s later, not left
    /// waiting for ever (the port is free again).
    #[test]
    fn a_server_no_client_reached_is_stopped() {
        let port = free_port();
        let mut targets = local_targets(port);
        targets.client.host = Host::Netns { name: format!("zn-absent-{}", std::process::id()) };
        let version = detect_version(&Host::Local {}).unwrap();
        let ctx = bare_context(targets, version);
        let opts = tcp_1s(port);
        let t0 = Instant::now();
        let t = trial(&ctx, &opts, "lost", 0);
        assert!(t.record.error.is_some() && t.record.summary.is_none(), "{:?}", t.record);
        // It had 3 s to end by itself first.
        let took = t0.elapsed();
        assert!(took >= Duration::from_secs(3) && took < Duration::from_secs(20), "{took:?}");
        assert!(std::net::TcpListener::bind(("127.0.0.1", port)).is_ok(), "the server still holds port {port}");
    }

    /// Pinning to a CPU the end does not have is refused before any trial,
    /// naming the setting, the end and its CPUs; pinning to the last
    /// online CPU is kept.
    #[test]
    fn pinning_to_an_absent_cpu_is_refused_up_front() {
        let cpus = online();
        let last = *cpus.last().unwrap();
        let with = |client: Vec<usize>, server: Vec<usize>| {
            let spec = crate::spec::BenchSpec {
                cpus: crate::spec::PerEnd { client, server },
                ..crate::spec::BenchSpec::default()
            };
            Context::new(&local_targets(free_port()), &Plan::from_spec(None, &spec))
        };
        let e = with(vec![last, last + 1], vec![]).unwrap_err().to_string();
        let want = format!("matrix.pin_cpus `{last},{}`: the client (local) has no CPU {}", last + 1, last + 1);
        assert!(e.starts_with(&want), "{e}");
        let e = with(vec![], vec![last + 2]).unwrap_err().to_string();
        assert!(e.starts_with(&format!("matrix.peer_pin_cpus `{}`: the server (local)", last + 2)), "{e}");
        assert_eq!(with(vec![last], vec![last]).unwrap().client_cpus, [last]);
    }

    /// A peer that accepts the connection and never answers (a listener
    /// that is not iperf3 holds the port, so the one-off server cannot
    /// bind it): the client is stopped by `timeout` after the trial's time
    /// and the grace (1 s here, 30 in a run), and the trial fails saying
    /// so, instead of holding the run without end (new-user trial).
    #[test]
    fn a_client_whose_peer_never_answers_is_stopped() {
        let silent = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let port = silent.local_addr().unwrap().port();
        let version = detect_version(&Host::Local {}).unwrap();
        let ctx = Context { grace_s: 1, ..bare_context(local_targets(port), version) };
        let t0 = Instant::now();
        let t = trial(&ctx, &tcp_1s(port), "silent", 0);
        let took = t0.elapsed();
        let e = t.record.error.clone().unwrap_or_default();
        assert!(e.starts_with("iperf3 client stopped after 2 s (the trial's time and 1 s) without a result"), "{e}");
        assert!(e.contains(&format!("127.0.0.1:{port}")), "{e}");
        // a local client is not under `timeout`: a Ctrl-C of the run reaches it
        assert!(t.record.command.starts_with("iperf3 -c "), "{}", t.record.command);
        assert!(took >= Duration::from_secs(2) && took < Duration::from_secs(15), "{took:?}");
        drop(silent);
    }

    /// The matrix runner over loopback: files, pinning away from IRQ CPUs,
    /// MSS emulation when no link MTU is set, and `--resume`.
    #[test]
    fn run_plan_writes_every_trial_and_resumes() {
        let cpus = online();
        let spec = crate::spec::BenchSpec {
            duration: 1.0,
            protocols: vec![iperf::Protocol::Tcp, iperf::Protocol::Udp],
            directions: vec![iperf::Direction::Tx],
            udp_bitrate: crate::spec::Rate(5e6),
            irq_cpus: crate::spec::PerEnd { client: vec![], server: vec![*cpus.last().unwrap()] },
            cpu_bound_percent: 0.0,
            ..crate::spec::BenchSpec::default()
        };
        let plan = Plan::from_spec(Some("loop".into()), &spec);
        let port = free_port();
        let targets = local_targets(port);
        let out = tempfile::tempdir().unwrap();
        let quiet = RunOptions { resume: false, quiet: true };
        // Leftovers of an earlier run are not kept without --resume.
        std::fs::write(out.path().join(files::RESULTS), "{}\n").unwrap();
        let recs = run_plan(&plan, &targets, out.path(), &quiet).unwrap();
        let ids: Vec<&str> = recs.iter().map(|r| r.cell.as_str()).collect();
        assert_eq!(ids, ["tcp-tx-mtu1500-p1", "udp-tx-mtu1500-p1"]);
        assert!(recs.iter().all(|r| r.error.is_none() && r.throughput_bps > 0.0), "{recs:?}");
        let lines = |recs: &[TrialRecord]| -> String {
            recs.iter().map(|r| serde_json::to_string(r).unwrap() + "\n").collect()
        };
        let results = out.path().join(files::RESULTS);
        let text = std::fs::read_to_string(&results).unwrap();
        assert_eq!(text, lines(&recs), "one JSON line per trial, in order");
        // No interface to set the MTU on: TCP emulates it with -M (1500 - 40).
        assert!(recs[0].command.contains(" -M 1460"), "{}", recs[0].command);
        assert!(recs[1].command.contains(" -l 1472 ") && recs[1].command.ends_with("-b 5000000"));
        // The server is kept off the CPU that takes the NIC's interrupts.
        if cpus.len() > 1 {
            let rest = cpus[..cpus.len() - 1].iter().map(usize::to_string).collect::<Vec<_>>().join(",");
            assert!(recs[0].notes.iter().any(|n| n.starts_with("server: NIC IRQ on CPU")), "{:?}", recs[0].notes);
            assert!(!recs[0].command.starts_with("taskset"), "the client is not pinned: {}", recs[0].command);
            let run: Value =
                serde_json::from_str(&std::fs::read_to_string(out.path().join(files::RUN)).unwrap()).unwrap();
            assert_eq!(run["context"]["server_cpus"].to_string(), format!("[{rest}]"));
        }
        let run: Value = serde_json::from_str(&std::fs::read_to_string(out.path().join(files::RUN)).unwrap()).unwrap();
        assert_eq!(run["format"], "zynq-net-bench-run 1");
        assert_eq!(run["context"]["machines"].as_array().unwrap().len(), 1, "one machine: {run}");
        assert_eq!(run["context"]["machines"][0][0], "client+server");
        assert_eq!(Plan::load(&out.path().join(files::PLAN)).unwrap(), plan);
        for id in &ids {
            let raw = std::fs::read_to_string(out.path().join(files::RAW_DIR).join(format!("{id}-r0.json"))).unwrap();
            assert!(iperf::parse(&raw).is_ok(), "{id}");
        }
        // --resume with other settings is refused, leaving the results.
        let resume = RunOptions { resume: true, quiet: true };
        let longer = Plan::from_spec(Some("loop".into()), &crate::spec::BenchSpec { duration: 3.0, ..spec.clone() });
        let e = run_plan(&longer, &targets, out.path(), &resume).unwrap_err().to_string();
        assert!(e.contains("--resume with other settings or cells than this directory was started with"), "{e}");
        assert!(e.contains("(its plan.json differs in: duration"), "{e}");
        assert_eq!(std::fs::read_to_string(&results).unwrap(), text);
        // So are other targets (the run.json of the first would be
        // rewritten to describe ends that made none of its trials).
        let elsewhere = Targets { port: free_port(), ..targets.clone() };
        let run_json = std::fs::read_to_string(out.path().join(files::RUN)).unwrap();
        let e = run_plan(&plan, &elsewhere, out.path(), &resume).unwrap_err().to_string();
        assert!(
            e.contains(
                "--resume with other targets than this directory was started with (its run.json differs in: port)"
            ),
            "{e}"
        );
        assert_eq!(std::fs::read_to_string(out.path().join(files::RUN)).unwrap(), run_json);
        assert_eq!(std::fs::read_to_string(&results).unwrap(), text);
        // --resume with everything done runs nothing.
        let kept = read_jsonl::<TrialRecord>(&results).unwrap();
        assert_eq!(run_plan(&plan, &targets, out.path(), &resume).unwrap(), kept);
        assert_eq!(std::fs::read_to_string(&results).unwrap(), text);
        // --resume re-runs a failed trial and keeps the good one.
        let mut failed = recs[1].clone();
        failed.error = Some("iperf3: interrupted".into());
        std::fs::remove_file(out.path().join(files::RESULTS)).unwrap();
        append_jsonl(&out.path().join(files::RESULTS), &recs[0]).unwrap();
        append_jsonl(&out.path().join(files::RESULTS), &failed).unwrap();
        let again = run_plan(&plan, &targets, out.path(), &resume).unwrap();
        assert_eq!(again.len(), 2);
        assert_eq!(again[0], kept[0]);
        assert!(again[1].cell == recs[1].cell && again[1].error.is_none() && again[1].started > recs[1].started);
        assert_eq!(read_jsonl::<TrialRecord>(&out.path().join(files::RESULTS)).unwrap().len(), 3);
        // --resume after a write torn mid-record: the torn trial runs again
        // and the file stays readable (the tear is cut off, not glued onto).
        let whole = serde_json::to_string(&recs[0]).unwrap() + "\n";
        let torn = &serde_json::to_string(&recs[1]).unwrap()[..40];
        std::fs::write(&results, format!("{whole}{torn}")).unwrap();
        let again = run_plan(&plan, &targets, out.path(), &resume).unwrap();
        assert_eq!((again.len(), &again[0]), (2, &kept[0]));
        assert!(again[1].cell == recs[1].cell && again[1].error.is_none());
        // (cells compared: serde_json's float text need not read back to the same last bit)
        let cells = |rs: &[TrialRecord]| rs.iter().map(|r| (r.cell.clone(), r.error.is_none())).collect::<Vec<_>>();
        let read: Vec<TrialRecord> = read_jsonl(&results).unwrap();
        assert_eq!(cells(&read), cells(&again), "the file holds the two whole records");
        assert!(read[1].started > recs[1].started + 0.5, "the torn trial was measured again");
    }

    /// Differing keys are named by their dotted path, one level past the
    /// last object they share; equal values name nothing.
    #[test]
    fn differing_keys_name_the_path() {
        let a = serde_json::json!({"port": 1, "client": {"address": "a", "ifaces": ["x"]}, "gone": 1});
        let b = serde_json::json!({"port": 1, "client": {"address": "b", "ifaces": ["x"]}, "new": 2});
        assert_eq!(super::differing_keys("", &a, &b), ["client.address", "gone", "new"]);
        assert!(super::differing_keys("", &a, &a).is_empty());
        assert_eq!(super::differing_keys("", &Value::from(1), &Value::from(2)), ["the whole"]);
    }

    /// The lab's UDP socket buffer (-w) goes to UDP cells only.
    #[test]
    fn the_udp_socket_buffer_is_for_udp_cells() {
        let mut targets = local_targets(5201);
        targets.udp_socket_buffer = Some(4 << 20);
        let v = Version { major: 3, minor: 12, patch: 0 };
        let ctx = Context {
            targets,
            client_version: v,
            server_version: v,
            client_cpus: vec![],
            server_cpus: vec![],
            machines: vec![],
            cpu_bound_percent: 95.0,
            grace_s: GRACE_S,
            notes: vec![],
        };
        let spec = crate::spec::BenchSpec {
            protocols: vec![iperf::Protocol::Tcp, iperf::Protocol::Udp],
            ..crate::spec::BenchSpec::default()
        };
        let plan = crate::plan::Plan::from_spec(None, &spec);
        for c in &plan.cells {
            let want = if c.protocol == iperf::Protocol::Udp { Some(4 << 20) } else { None };
            assert_eq!(cell_opts(&ctx, c, false, false).window, want, "{}", c.id);
        }
    }

    /// A server that ignores SIGTERM is killed 2 s after it (5 s in all),
    /// not left holding its port.
    #[test]
    fn a_server_deaf_to_sigterm_is_killed() {
        let mut child = std::process::Command::new("sh").args(["-c", "trap '' TERM; exec sleep 30"]).spawn().unwrap();
        let t0 = Instant::now();
        end_server(&mut child);
        let (took, gone) = (t0.elapsed(), child.try_wait().unwrap().is_some());
        if !gone {
            let _ = child.kill();
            let _ = child.wait();
        }
        assert!(gone, "still running after end_server");
        assert!(took >= Duration::from_secs(5) && took < Duration::from_secs(15), "{took:?}");
    }

    /// An end's IRQ CPUs: the configured ones, then the CPU serving each
    /// interrupt its pattern names in its /proc/interrupts, once each. On
    /// this machine's own table: an interrupt one CPU alone has served.
    #[test]
    fn irq_cpus_add_the_cpu_serving_the_named_interrupt() {
        let text = std::fs::read_to_string("/proc/interrupts").unwrap();
        let one_cpu = |l: &str| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let counts: Vec<&str> = w.iter().skip(1).take_while(|x| x.parse::<u64>().is_ok()).copied().collect();
            let numbered = w.first().is_some_and(|n| n.trim_end_matches(':').parse::<u32>().is_ok());
            (numbered && counts.iter().filter(|c| **c != "0").count() == 1 && w.len() > counts.len() + 2)
                .then(|| w[w.len() - 1].to_string())
        };
        // ... and whose name no other line has (the pattern matches by substring)
        let unique = |n: &String| text.lines().filter(|l| l.contains(n.as_str())).count() == 1;
        let Some(name) = text.lines().skip(1).filter_map(one_cpu).find(unique) else {
            eprintln!("SKIPPED: no interrupt here that one CPU alone has served");
            return;
        };
        let want = crate::plan::irq_cpus_from_interrupts(&text, &name);
        assert_eq!(want.len(), 1, "{name}: {want:?}");
        let mut e = local_targets(5201).client;
        e.irq_pattern = Some(name.clone());
        assert_eq!(irq_cpus(&e, &[]).unwrap(), want, "{name}");
        assert_eq!(irq_cpus(&e, &[want[0]]).unwrap(), want, "configured and found: listed once");
        e.irq_pattern = None;
        assert_eq!(irq_cpus(&e, &[7]).unwrap(), [7]);
    }

    /// The back-off between connection attempts doubles from 5 ms up to
    /// 100 ms and stays there.
    #[test]
    fn the_retry_back_off_doubles_up_to_100_ms() {
        let ms = Duration::from_millis;
        let mut d = ms(5);
        let mut seen = Vec::new();
        for _ in 0..6 {
            d = retry_delay(d);
            seen.push(d.as_millis());
        }
        assert_eq!(seen, [10, 20, 40, 80, 100, 100]);
    }
}
