//! A benchmark lab in network namespaces on one machine:
//!
//! ```text
//!  NAME-client            NAME-router (the DUT)             NAME-server
//!  eth0 10.201.N.2 ──veth── eth0 10.201.N.1 | eth1 10.201.N+1.1 ──veth── eth0 10.201.N+1.2
//! ```
//!
//! The router forwards (net.ipv4.ip_forward in its namespace), optionally
//! through an nftables flowtable, optionally shaped with tbf to a known rate
//! on both egress interfaces, optionally tuned by a board plan applied with
//! the zynq-net applier. All addresses exist only inside the namespaces.
//! `lab up` writes a targets file for `bench run`/`rfc2544`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::BenchError;
use crate::exec::{argv, Host};
use crate::targets::{Endpoint, Targets, TARGETS_FORMAT};

/// Where lab state files live.
pub const STATE_DIR: &str = "/run/zynq-net";

/// Options of `lab up`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabOptions {
    /// Lab name: namespace prefix (1-12 of `[a-z0-9-]`).
    pub name: String,
    /// Third octet of the client subnet (the server subnet is the next one): 10.201.N.0/24.
    pub subnet: u8,
    /// Shape both router egress interfaces to this rate with tbf.
    pub shape: Option<f64>,
    /// Forward through an nftables flowtable.
    pub flowtable: bool,
    /// Board tuning plan applied inside the router namespace.
    pub plan: Option<PathBuf>,
    /// The applier (`zynq-net-apply`).
    pub applier: Option<PathBuf>,
    /// Apply the plan with its `ident` lines rewritten to `driver veth`
    /// (see [`veth_ident_plan`]).
    #[serde(default)]
    pub veth_ident: bool,
    /// veth queue count.
    pub queues: u32,
    /// MTU of every lab link.
    pub mtu: u32,
}

impl Default for LabOptions {
    fn default() -> Self {
        LabOptions {
            name: "znlab".into(),
            subnet: 1,
            shape: None,
            flowtable: false,
            plan: None,
            applier: None,
            veth_ident: false,
            queues: 2,
            mtu: 1500,
        }
    }
}

/// What `lab up` did (saved in the state file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabState {
    /// Options.
    pub options: LabOptions,
    /// Targets for the runner.
    pub targets: Targets,
    /// Applier used, when a plan was applied.
    pub applier: Option<PathBuf>,
    /// Applier output.
    pub apply_output: Option<String>,
    /// Global sysctls the lab raised: (key, original value, value set).
    #[serde(default)]
    pub raised_sysctls: Vec<(String, String, String)>,
}

/// UDP socket buffer the lab's tests use (`-w`).
pub const LAB_UDP_BUFFER: u64 = 4 * 1024 * 1024;

/// `net.core.rmem_max`/`wmem_max` exist only in the initial namespace: the
/// lab raises them (never lowers) so `-w` can take effect, and `lab down`
/// puts back the originals unless someone changed them meanwhile (`sys`: /proc/sys).
fn raise_buffer_limits(sys: &Path) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for key in ["net/core/rmem_max", "net/core/wmem_max"] {
        let p = sys.join(key);
        let Ok(cur) = std::fs::read_to_string(&p) else {
            continue;
        };
        let cur = cur.trim().to_string();
        let want = (2 * LAB_UDP_BUFFER).to_string();
        if cur.parse::<u64>().is_ok_and(|v| v < 2 * LAB_UDP_BUFFER) && std::fs::write(&p, &want).is_ok() {
            out.push((key.replace('/', "."), cur, want));
        }
    }
    out
}

fn restore_buffer_limits(sys: &Path, raised: &[(String, String, String)]) {
    for (key, orig, set) in raised {
        let p = sys.join(key.replace('.', "/"));
        if std::fs::read_to_string(&p).map(|v| v.trim() == set).unwrap_or(false) {
            let _ = std::fs::write(&p, orig);
        }
    }
}

fn valid_name(n: &str) -> bool {
    !n.is_empty() && n.len() <= 12 && n.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// Namespace names of a lab.
pub fn namespaces(name: &str) -> [String; 3] {
    [format!("{name}-client"), format!("{name}-router"), format!("{name}-server")]
}

/// State file of a lab.
pub fn state_path(name: &str) -> PathBuf {
    Path::new(STATE_DIR).join(format!("lab-{name}.json"))
}

/// A multi-queue veth pair between two namespaces: `(name, netns)` each end.
fn veth_pair<'a>(a: (&'a str, &'a str), b: (&'a str, &'a str), queues: &'a str) -> Result<String, BenchError> {
    let end = |(name, ns): (&'a str, &'a str)| [name, "netns", ns, "numtxqueues", queues, "numrxqueues", queues];
    let mut args = vec!["link", "add"];
    args.extend(end(a));
    args.extend(["type", "veth", "peer", "name"]);
    args.extend(end(b));
    ip(&args)
}

fn ip(args: &[&str]) -> Result<String, BenchError> {
    let mut v = vec!["ip"];
    v.extend_from_slice(args);
    Host::Local {}.run(&argv(&v))
}

fn netns_exists(ns: &str) -> bool {
    Path::new("/run/netns").join(ns).exists()
}

/// tbf parameters for `rate` bit/s: a bucket of 2.5 ms of traffic (at
/// least 16 KiB and two frames) and 2.5 ms of queue beyond it. The bucket
/// rides out a late qdisc watchdog on a loaded host; bucket plus queue stay
/// under 0.5% of a second of traffic, so a one-second trial offered 0.5%
/// above the rate loses frames.
pub fn tbf_params(rate_bps: f64, mtu: u32) -> (u64, u64) {
    let bytes_per_ms = rate_bps / 8.0 / 1000.0;
    let burst = ((2.5 * bytes_per_ms).ceil() as u64).max(16384).max(2 * (mtu as u64 + 14));
    let limit = burst + (2.5 * bytes_per_ms).ceil() as u64;
    (burst, limit)
}

/// The applier: the option, `$ZYNQ_NET_APPLIER`, `zynq-net-apply` on
/// PATH, or the source tree's copy.
pub fn find_applier(opt: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = opt {
        return Some(p.to_path_buf());
    }
    if let Some(p) = std::env::var_os("ZYNQ_NET_APPLIER") {
        return Some(PathBuf::from(p));
    }
    if let Some(path) = std::env::var_os("PATH") {
        for d in std::env::split_paths(&path) {
            let c = d.join("zynq-net-apply");
            if c.is_file() {
                return Some(c);
            }
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../zynq-net-render/assets/zynq-net-apply.sh");
    src.is_file().then_some(src)
}

/// `env` prefix giving the applier its own state, log and lock files per
/// lab, so a lab never touches the machine's `/var/lib/zynq-net`.
fn applier_env(name: &str) -> Vec<String> {
    let mut v = vec!["env".to_string()];
    v.extend(applier_env_vars(name));
    v
}

/// The `NAME=VALUE` settings of [`applier_env`]: state, log and lock of a
/// lab's applier (also used by `bench ablate --lab`).
pub fn applier_env_vars(name: &str) -> Vec<String> {
    let d = Path::new(STATE_DIR);
    vec![
        format!("ZYNQ_NET_STATE={}", d.join(format!("lab-{name}-state")).display()),
        format!("ZYNQ_NET_LOG={}", d.join(format!("lab-{name}-apply.log")).display()),
        format!("ZYNQ_NET_LOCK={}", d.join(format!("lab-{name}.lock")).display()),
        "ZYNQ_NET_WAIT_MAX=2".to_string(),
    ]
}

/// MTU range of a veth: `ETH_MIN_MTU`..`ETH_MAX_MTU` (drivers/net/veth.c,
/// `veth_setup`: `dev->min_mtu = ETH_MIN_MTU; dev->max_mtu = ETH_MAX_MTU`).
pub const VETH_MTU: (u32, u32) = (68, 65535);

/// Smallest `--shape` rate in bit/s: tbf takes its rate in bytes/s and
/// refuses 0 (tc: "the \"rate\" parameter is mandatory").
pub const MIN_SHAPE_BPS: f64 = 8.0;

/// Most TX or RX queues a link may be created with
/// (net/core/rtnetlink.c, rtnl_create_link: "Invalid number of transmit queues").
pub const MAX_QUEUES: u32 = 4096;

/// Where `--veth-ident` writes the plan the lab's applier runs.
pub fn veth_plan_path(name: &str) -> PathBuf {
    Path::new(STATE_DIR).join(format!("lab-{name}-veth.plan"))
}

/// The lab's NICs are veths: the driver `ethtool -i` names for them
/// (drivers/net/veth.c, `DRV_NAME "veth"`, reported by `veth_get_drvinfo`).
pub const VETH_DRIVER: &str = "veth";

/// `--veth-ident`: the plan `text` (from `file`) with every `ident IFACE
/// ...` line replaced by `ident IFACE driver veth` and resealed (the end
/// line's step count and checksum, [`crate::ablate::groups::write_plan`]).
/// A board's plan checks that each interface is the board's device (its
/// driver, DT node, permanent MAC) and skips every step of one that is
/// not; in a lab every interface is a veth, so the board's checks skip
/// the whole plan. Rewritten, the checks still catch an interface that
/// is missing or not a veth, and the steps run on the lab's veths.
///
/// # Errors
/// A text that is not a tuning plan (`file:line:1`, the header expected).
pub fn veth_ident_plan(file: &str, text: &str) -> Result<String, BenchError> {
    use crate::ablate::groups::{write_plan, PlanStep, PlanText};
    let p = PlanText::parse(file, text)?;
    let steps: Vec<PlanStep> = p
        .steps
        .iter()
        .map(|st| match st.fields().as_slice() {
            ["ident", iface, ..] => {
                PlanStep { line_no: st.line_no, line: format!("ident {iface} driver {VETH_DRIVER}") }
            }
            _ => st.clone(),
        })
        .collect();
    let comment = format!("{file} for a zynq-net lab: ident lines name the veth driver (lab up --veth-ident)");
    Ok(write_plan(&comment, p.board.as_deref(), &steps.iter().collect::<Vec<_>>()))
}

/// What the applier's `apply --json` reported for a lab's plan
/// (docs/applier.md: one object per step with `result` applied,
/// unchanged, skipped or failed, `verb`, `iface`, `target`, `desired`,
/// `actual`, `detail`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ApplyReport {
    /// Each step as the applier prints it without `--json`:
    /// `RESULT VERB IFACE TARGET = DESIRED [(actual A)] [-- DETAIL]`.
    pub lines: Vec<String>,
    /// Steps applied or already in force, other than the checks
    /// (`ident`, `wait`): the tuning the plan brought.
    pub in_force: usize,
    /// Steps reported applied, unchanged, skipped, failed (the applier's summary).
    pub counts: [usize; 4],
    /// `ident` steps that failed: `IFACE: DETAIL`.
    pub ident_failed: Vec<String>,
}

impl ApplyReport {
    /// The report from the applier's `apply --json` output; `None` when it
    /// is not that JSON.
    pub fn from_json(json: &str) -> Option<ApplyReport> {
        let v: serde_json::Value = serde_json::from_str(json.trim()).ok()?;
        let mut r = ApplyReport::default();
        for st in v.get("steps")?.as_array()? {
            let f = |k: &str| st.get(k).and_then(serde_json::Value::as_str).unwrap_or("").to_string();
            let (result, verb, iface, detail, actual, desired) =
                (f("result"), f("verb"), f("iface"), f("detail"), f("actual"), f("desired"));
            let mut line = format!("{result} {verb} {iface} {} = {desired}", f("target"));
            if !actual.is_empty() && actual != desired {
                line.push_str(&format!(" (actual {actual})"));
            }
            if !detail.is_empty() {
                line.push_str(&format!(" -- {detail}"));
            }
            r.lines.push(line);
            let i = ["applied", "unchanged", "skipped", "failed"].iter().position(|x| *x == result);
            if let Some(i) = i {
                r.counts[i] += 1;
            }
            let check = verb == "ident" || verb == "wait";
            if i.is_some_and(|i| i < 2) && !check {
                r.in_force += 1;
            }
            if verb == "ident" && result == "failed" {
                // "not the board's device: driver is veth, the plan says macb; its steps are skipped"
                let first = detail.lines().next().unwrap_or("");
                r.ident_failed.push(format!("{iface}: {}", first.split("; its steps").next().unwrap_or(first)));
            }
        }
        Some(r)
    }

    /// The step lines, then a summary naming the plan.
    pub fn to_text(&self, plan: &str) -> String {
        let [a, u, s, f] = self.counts;
        let mut t: String = self.lines.iter().map(|l| format!("{l}\n")).collect();
        t.push_str(&format!("lab up: tuning plan {plan}: {a} applied, {u} unchanged, {s} skipped, {f} failed\n"));
        t
    }

    /// Why `lab up` refuses the lab, if it does, and a hint: a lab whose
    /// plan did not take effect would be measured untuned while the user
    /// believes it tuned (the applier exits 3 for one skipped step as for
    /// all of them). Refused: any failed `ident` (every step of that
    /// interface was skipped), or no tuning step in force at all. Some
    /// skipped steps are normal on veths (no IRQs, no ring sizes, fixed
    /// offloads): reported, accepted.
    pub fn refusal(&self, veth_ident: bool) -> Option<(String, String)> {
        let hint = if veth_ident {
            "the lab's interfaces are the router's eth0 and eth1: a plan for other interface names does not apply"
        } else {
            "the lab's NICs are veths, not the board's devices: pass --veth-ident to rewrite the plan's ident \
             lines to `driver veth` for the lab (docs/bench.md, \"The lab\"), or apply a plan made for veths"
        };
        let why = if !self.ident_failed.is_empty() {
            format!(
                "lab up refused: the plan's ident check failed on {} (every step of {} was skipped: the lab \
                 would run untuned); the lab was taken down",
                self.ident_failed.join("; "),
                if self.ident_failed.len() == 1 { "that interface" } else { "those interfaces" }
            )
        } else if self.in_force == 0 {
            "lab up refused: no step of the plan took effect (the lab would run untuned); the lab was taken down"
                .to_string()
        } else {
            return None;
        };
        Some((why, format!("hint: {hint}")))
    }
}

/// Brings a lab up; fails (after tearing down what it made) on any error.
pub fn up(o: &LabOptions) -> Result<LabState, BenchError> {
    if !valid_name(&o.name) {
        return Err(BenchError::Invalid(format!("lab name `{}`: 1-12 characters of [a-z0-9-]", o.name)));
    }
    if !(1..=MAX_QUEUES).contains(&o.queues) {
        return Err(BenchError::Invalid(format!(
            "--queues {}: a veth has 1 to {MAX_QUEUES} queues (net/core/rtnetlink.c: rtnl_create_link)",
            o.queues
        )));
    }
    if o.subnet == 255 {
        return Err(BenchError::Invalid("--subnet must be below 255 (the server uses the next /24)".into()));
    }
    // Checked before anything is created (the namespaces were made first,
    // and torn down again, when ip or tc refused these).
    if !(VETH_MTU.0..=VETH_MTU.1).contains(&o.mtu) {
        return Err(BenchError::Invalid(format!(
            "--mtu {}: a veth takes {} to {} (drivers/net/veth.c: ETH_MIN_MTU, ETH_MAX_MTU)",
            o.mtu, VETH_MTU.0, VETH_MTU.1
        )));
    }
    if let Some(rate) = o.shape {
        if !(rate.is_finite() && rate >= MIN_SHAPE_BPS) {
            return Err(BenchError::Invalid(format!(
                "--shape {rate}: expected a rate of at least {MIN_SHAPE_BPS} bit/s (tc's tbf needs a non-zero byte rate), e.g. 100M"
            )));
        }
    }
    // The plan and the applier that applies it, found and checked once,
    // before anything is created.
    let tuning = match &o.plan {
        None => None,
        Some(plan) => {
            if !plan.is_file() {
                return Err(BenchError::Invalid(format!(
                    "--plan {}: not a readable file (expected the zynq-net.plan from `zynq-net gen`)",
                    plan.display()
                )));
            }
            let applier = find_applier(o.applier.as_deref()).ok_or_else(|| {
                BenchError::Invalid("no applier found: pass --applier or set ZYNQ_NET_APPLIER".into())
            })?;
            if !applier.is_file() {
                return Err(BenchError::Invalid(format!(
                    "applier {}: not a readable file (expected zynq-net-apply, from `zynq-net gen`'s tuning/ or the source tree)",
                    applier.display()
                )));
            }
            // --veth-ident: the rewritten plan, made now so a file that is
            // not a plan is refused before anything is created.
            let veth = match o.veth_ident {
                false => None,
                true => {
                    let text = std::fs::read_to_string(plan).map_err(|e| BenchError::io(plan, e))?;
                    Some(veth_ident_plan(&plan.display().to_string(), &text)?)
                }
            };
            Some((plan.as_path(), applier, veth))
        }
    };
    if o.veth_ident && o.plan.is_none() {
        return Err(BenchError::Invalid("--veth-ident rewrites the ident lines of --plan PLAN: give the plan".into()));
    }
    let [c, r, s] = namespaces(&o.name);
    if [&c, &r, &s].iter().any(|n| netns_exists(n)) {
        return Err(BenchError::Invalid(format!(
            "lab `{}` exists; `zynq-net lab down --name {}` first",
            o.name, o.name
        )));
    }
    match build(o, tuning, &c, &r, &s) {
        Ok(st) => Ok(st),
        Err(e) => {
            let _ = teardown(&o.name);
            Err(e)
        }
    }
}

fn build(
    o: &LabOptions,
    tuning: Option<(&Path, PathBuf, Option<String>)>,
    c: &str,
    r: &str,
    s: &str,
) -> Result<LabState, BenchError> {
    let (n1, n2) = (o.subnet, o.subnet + 1);
    let q = o.queues.to_string();
    let mtu = o.mtu.to_string();
    for ns in [c, r, s] {
        ip(&["netns", "add", ns])?;
        ip(&["-n", ns, "link", "set", "lo", "up"])?;
    }
    veth_pair(("eth0", c), ("eth0", r), &q)?;
    veth_pair(("eth1", r), ("eth0", s), &q)?;
    let addr = |a: u8, b: u8| format!("10.201.{a}.{b}/24");
    ip(&["-n", c, "addr", "add", &addr(n1, 2), "dev", "eth0"])?;
    ip(&["-n", r, "addr", "add", &addr(n1, 1), "dev", "eth0"])?;
    ip(&["-n", r, "addr", "add", &addr(n2, 1), "dev", "eth1"])?;
    ip(&["-n", s, "addr", "add", &addr(n2, 2), "dev", "eth0"])?;
    for (ns, dev) in [(c, "eth0"), (r, "eth0"), (r, "eth1"), (s, "eth0")] {
        ip(&["-n", ns, "link", "set", "dev", dev, "mtu", &mtu, "up"])?;
    }
    ip(&["-n", c, "route", "add", "default", "via", &format!("10.201.{n1}.1")])?;
    ip(&["-n", s, "route", "add", "default", "via", &format!("10.201.{n2}.1")])?;
    let router = Host::Netns { name: r.to_string() };
    router.run(&argv(&["sysctl", "-q", "-w", "net.ipv4.ip_forward=1"]))?;
    let mut desc = format!("lab `{}`: netns {c} -> {r} (IPv4 forwarding", o.name);
    if o.flowtable {
        let rules = "table inet zynq_net_lab {\n  flowtable ft {\n    hook ingress priority 0; devices = { eth0, eth1 };\n  }\n  chain forward {\n    type filter hook forward priority 0; policy accept;\n    meta l4proto { tcp, udp } flow add @ft\n  }\n}\n";
        let f = std::env::temp_dir().join(format!("zynq-net-lab-{}-{}.nft", o.name, std::process::id()));
        std::fs::write(&f, rules).map_err(|e| BenchError::io(&f, e))?;
        let res = router.run(&argv(&["nft", "-f", &f.to_string_lossy()]));
        let _ = std::fs::remove_file(&f);
        res.map_err(|e| BenchError::Invalid(format!(
            "{e}\nhint: the nftables flowtable needs a kernel with CONFIG_NF_FLOW_TABLE, CONFIG_NF_FLOW_TABLE_INET and CONFIG_NFT_FLOW_OFFLOAD"
        )))?;
        desc.push_str(", nftables flowtable");
    }
    if let Some(rate) = o.shape {
        let (burst, limit) = tbf_params(rate, o.mtu);
        for dev in ["eth0", "eth1"] {
            crate::exec::replace_tbf(&router, dev, rate, burst, limit)?;
        }
        desc.push_str(&format!(", tbf {} Mbit/s burst {burst} B limit {limit} B", rate / 1e6));
    }
    let mut applier_used = None;
    let mut apply_output = None;
    if let Some((plan, applier, veth)) = tuning {
        // With --veth-ident the applier gets the rewritten copy, kept
        // beside the lab's state for the lab's lifetime.
        let applied = match veth {
            Some(text) => {
                let p = veth_plan_path(&o.name);
                std::fs::create_dir_all(STATE_DIR).map_err(|e| BenchError::io(STATE_DIR, e))?;
                crate::records::write_file(&p, text)?;
                p
            }
            None => plan.to_path_buf(),
        };
        let mut cmd = applier_env(&o.name);
        cmd.extend(argv(&["sh", &applier.to_string_lossy(), "apply", "--json", &applied.to_string_lossy()]));
        let out = router.output(&cmd)?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        // 0: all applied; 3: some steps skipped or failed (judged below).
        let report = match out.status.code() {
            Some(0) | Some(3) => ApplyReport::from_json(&stdout),
            _ => None,
        };
        let Some(report) = report else {
            return Err(BenchError::Command {
                cmd: format!("{} apply --json {}", applier.display(), applied.display()),
                detail: format!("{}: {}{}", out.status, stdout.trim(), String::from_utf8_lossy(&out.stderr).trim()),
            });
        };
        let text = report.to_text(&plan.display().to_string());
        if let Some((why, hint)) = report.refusal(o.veth_ident) {
            return Err(BenchError::Invalid(format!("{why}\n{text}{hint}")));
        }
        desc.push_str(&format!(", tuning plan {}", plan.display()));
        applier_used = Some(applier);
        apply_output = Some(text);
    }
    desc.push_str(&format!(") -> {s}"));
    let endpoint = |ns: &str, address: String, ifaces: &[&str]| Endpoint {
        host: Host::Netns { name: ns.to_string() },
        address,
        ifaces: ifaces.iter().map(|s| (*s).to_string()).collect(),
        irq_pattern: None,
        pace_iface: None,
        // The lab shares one machine with whatever else runs on it: the
        // tester processes go first so they, not the background, set the pace.
        nice: Some(-10),
    };
    let targets = Targets {
        format: TARGETS_FORMAT.into(),
        client: Endpoint { pace_iface: Some("eth0".into()), ..endpoint(c, format!("10.201.{n1}.2"), &["eth0"]) },
        server: endpoint(s, format!("10.201.{n2}.2"), &["eth0"]),
        dut: Some(endpoint(r, format!("10.201.{n1}.1"), &["eth0", "eth1"])),
        port: 5201,
        description: desc,
        udp_socket_buffer: Some(LAB_UDP_BUFFER),
    };
    let raised_sysctls = raise_buffer_limits(Path::new("/proc/sys"));
    let st = LabState { options: o.clone(), targets, applier: applier_used, apply_output, raised_sysctls };
    std::fs::create_dir_all(STATE_DIR).map_err(|e| BenchError::io(STATE_DIR, e))?;
    let p = state_path(&o.name);
    crate::records::write_file(&p, serde_json::to_string_pretty(&st).unwrap_or_default() + "\n")?;
    Ok(st)
}

/// Loads the state of a running lab.
pub fn state(name: &str) -> Result<LabState, BenchError> {
    // before the hint below suggests `lab up --name NAME` with it
    if !valid_name(name) {
        return Err(BenchError::Invalid(format!("lab name `{name}`: 1-12 characters of [a-z0-9-]")));
    }
    let p = state_path(name);
    let t = std::fs::read_to_string(&p).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => BenchError::Invalid(format!(
            "no lab `{name}` is up (no {}); start one with `zynq-net lab up --name {name}`",
            p.display()
        )),
        _ => BenchError::io(&p, e),
    })?;
    crate::records::parse_json(
        &p,
        &t,
        &format!(
            "expected the state `zynq-net lab up` writes; `zynq-net lab down --name {name}` still removes the lab's namespaces (without the applier's revert)"
        ),
    )
}

fn teardown(name: &str) -> Vec<String> {
    let mut msgs = Vec::new();
    for ns in namespaces(name) {
        if netns_exists(&ns) {
            if let Err(e) = ip(&["netns", "del", &ns]) {
                msgs.push(e.to_string());
            }
        }
    }
    let _ = std::fs::remove_file(state_path(name));
    let d = Path::new(STATE_DIR);
    let _ = std::fs::remove_dir_all(d.join(format!("lab-{name}-state")));
    let _ = std::fs::remove_file(d.join(format!("lab-{name}-apply.log")));
    let _ = std::fs::remove_file(d.join(format!("lab-{name}.lock")));
    let _ = std::fs::remove_file(veth_plan_path(name));
    msgs
}

/// Is anything of lab `name` there: its state file or any of its namespaces?
///
/// # Errors
/// An invalid lab name.
pub fn exists(name: &str) -> Result<bool, BenchError> {
    if !valid_name(name) {
        return Err(BenchError::Invalid(format!("lab name `{name}`: 1-12 characters of [a-z0-9-]")));
    }
    Ok(state_path(name).exists() || namespaces(name).iter().any(|ns| netns_exists(ns)))
}

/// Tears a lab down: reverts an applied plan (global sysctls live outside
/// the namespaces), deletes the namespaces (and with them the veths).
pub fn down(name: &str) -> Result<Vec<String>, BenchError> {
    if !valid_name(name) {
        return Err(BenchError::Invalid(format!("lab name `{name}`: 1-12 characters of [a-z0-9-]")));
    }
    let mut msgs = Vec::new();
    if let Ok(st) = state(name) {
        if let (Some(applier), Some(_)) = (&st.applier, &st.options.plan) {
            let router = Host::Netns { name: namespaces(name)[1].clone() };
            let mut cmd = applier_env(name);
            cmd.extend(argv(&["sh", &applier.to_string_lossy(), "revert"]));
            match router.output(&cmd) {
                Ok(o) if o.status.success() => {}
                Ok(o) => {
                    msgs.push(format!("applier revert: {}: {}", o.status, String::from_utf8_lossy(&o.stderr).trim()))
                }
                Err(e) => msgs.push(e.to_string()),
            }
        }
        restore_buffer_limits(Path::new("/proc/sys"), &st.raised_sysctls);
    }
    msgs.extend(teardown(name));
    Ok(msgs)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// `--queues 0` is refused before anything is made (it was made as 1
    /// queue without a word); so is more than the kernel creates.
    #[test]
    fn queue_counts_the_kernel_refuses_are_refused_first() {
        for q in [0, MAX_QUEUES + 1] {
            let o = LabOptions { name: "zn-q-never".into(), queues: q, ..LabOptions::default() };
            let e = up(&o).unwrap_err().to_string();
            assert!(e.starts_with(&format!("--queues {q}: a veth has 1 to 4096 queues")), "{e}");
        }
    }

    #[test]
    fn tbf_resolves_one_percent_in_one_second() {
        let rate = 200e6;
        let (burst, limit) = tbf_params(rate, 1500);
        assert!(burst >= 16384);
        // 0.5% excess over one second must overflow the bucket and queue.
        assert!((limit as f64) <= rate / 8.0 * 0.005, "limit {limit}");
        let (b9, _) = tbf_params(10e6, 9000);
        assert!(b9 >= 2 * 9014);
    }

    #[test]
    fn names() {
        assert!(valid_name("znlab"));
        assert!(!valid_name("a/b"));
        assert!(!valid_name("waytoolongname1"));
        assert_eq!(namespaces("x")[1], "x-router");
    }

    /// `lab status --name A/B` says what a name is; its hint never
    /// suggests `lab up --name A/B`, which `lab up` refuses.
    #[test]
    fn the_state_of_an_invalid_name_suggests_no_invalid_name() {
        for bad in ["A/B", "Lab", "waytoolongname1"] {
            let e = state(bad).unwrap_err().to_string();
            assert!(e.contains("1-12 characters of [a-z0-9-]") && !e.contains("lab up --name"), "{e}");
        }
        // a valid name that is not up: the hint names it
        let e = state("zzzz-nits-9").unwrap_err().to_string();
        assert!(e.contains("zynq-net lab up --name zzzz-nits-9"), "{e}");
    }

    #[test]
    fn tbf_parameters_by_hand() {
        // 200 Mbit/s = 25,000 bytes/ms: bucket 2.5 ms = 62,500 B, queue 62,500 B more.
        assert_eq!(tbf_params(200e6, 1500), (62_500, 125_000));
        // 1 Mbit/s: 2.5 ms is 313 B, the bucket is the 16 KiB floor.
        assert_eq!(tbf_params(1e6, 1500), (16_384, 16_384 + 313));
        // 10 Mbit/s with jumbo frames: two 9014-byte frames.
        assert_eq!(tbf_params(10e6, 9000), (18_028, 18_028 + 3125));
    }

    /// A shaper of exactly MIN_SHAPE_BPS passes the --shape check (the
    /// missing plan, checked next and before anything is created, is then
    /// the error); just under it is refused.
    #[test]
    fn a_shape_of_exactly_the_minimum_is_taken() {
        let o = LabOptions {
            name: "zb".into(),
            shape: Some(MIN_SHAPE_BPS),
            plan: Some("/nonexistent/zynq-net.plan".into()),
            ..LabOptions::default()
        };
        let e = up(&o).unwrap_err().to_string();
        assert!(e.contains("--plan /nonexistent/zynq-net.plan") && !e.contains("--shape"), "{e}");
        let e = up(&LabOptions { shape: Some(7.5), ..o }).unwrap_err().to_string();
        assert!(e.contains("--shape 7.5: expected a rate of at least 8 bit/s"), "{e}");
    }

    #[test]
    fn lab_names_files_and_applier_environment() {
        assert!(valid_name("lab-2") && valid_name(&"a".repeat(12)));
        assert!(!valid_name("") && !valid_name("Lab") && !valid_name(&"a".repeat(13)) && !valid_name("a_b"));
        assert_eq!(namespaces("zn"), ["zn-client".to_string(), "zn-router".into(), "zn-server".into()]);
        assert_eq!(state_path("zn"), Path::new("/run/zynq-net/lab-zn.json"));
        assert_eq!(
            applier_env("zn"),
            [
                "env",
                "ZYNQ_NET_STATE=/run/zynq-net/lab-zn-state",
                "ZYNQ_NET_LOG=/run/zynq-net/lab-zn-apply.log",
                "ZYNQ_NET_LOCK=/run/zynq-net/lab-zn.lock",
                "ZYNQ_NET_WAIT_MAX=2"
            ]
        );
        assert_eq!(LAB_UDP_BUFFER, 4 << 20);
        assert_eq!(find_applier(Some(Path::new("/opt/apply"))), Some(PathBuf::from("/opt/apply")));
        let d = LabOptions::default();
        assert_eq!((d.name.as_str(), d.subnet, d.queues, d.mtu, d.flowtable), ("znlab", 1, 2, 1500, false));
    }

    /// The tbf on `dev` in `ns` as tc reports it: (rate bytes/s, burst bytes).
    fn tbf_of(ns: &str, dev: &str) -> Option<(u64, u64)> {
        let out = Host::Netns { name: ns.into() }.run(&argv(&["tc", "-j", "qdisc", "show", "dev", dev])).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let q = v.as_array()?.iter().find(|q| q["kind"] == "tbf" && q["root"] == true)?;
        Some((q["options"]["rate"].as_u64()?, q["options"]["burst"].as_u64()?))
    }

    /// A real lab (root, network namespaces): up with a shaper, an RFC
    /// 2544 search through it with the tester paced by tbf, and down.
    #[test]
    fn a_lab_comes_up_paces_the_tester_and_goes_down() {
        let name = format!("zm{}", std::process::id() % 100_000);
        // With a tuning plan applied on the router by the real applier.
        let dir = tempfile::tempdir().unwrap();
        let plan = dir.path().join("lab.plan");
        std::fs::write(&plan, lab_plan()).unwrap();
        let o = LabOptions {
            name: name.clone(),
            subnet: 40,
            shape: Some(50e6),
            plan: Some(plan.clone()),
            ..LabOptions::default()
        };
        let st = up(&o).unwrap();
        let [c, r, s] = namespaces(&name);
        let result = std::panic::catch_unwind(|| {
            assert!(netns_exists(&c) && netns_exists(&r) && netns_exists(&s));
            assert_eq!(state(&name).unwrap(), st);
            let t = &st.targets;
            assert_eq!((t.client.address.as_str(), t.server.address.as_str()), ("10.201.40.2", "10.201.41.2"));
            assert_eq!(t.dut.as_ref().unwrap().ifaces, ["eth0", "eth1"]);
            assert_eq!((t.client.pace_iface.as_deref(), t.udp_socket_buffer), (Some("eth0"), Some(LAB_UDP_BUFFER)));
            assert!(t.description.contains("tbf 50 Mbit/s"), "{}", t.description);
            assert!(t.description.contains(&format!("tuning plan {}", plan.display())), "{}", t.description);
            let lowat = Host::Netns { name: r.clone() }.run(&argv(&["sysctl", "-n", "net.ipv4.tcp_notsent_lowat"]));
            assert_eq!(lowat.unwrap().trim(), "16385");
            assert!(st.applier.is_some() && st.apply_output.is_some(), "{st:?}");
            // The router's shaper: 50 Mbit/s = 6,250,000 bytes/s on both legs.
            for dev in ["eth0", "eth1"] {
                assert_eq!(tbf_of(&r, dev).map(|q| q.0), Some(6_250_000), "{dev}");
            }
            assert!(up(&o).unwrap_err().to_string().contains("exists"), "a second lab of the same name");
            // -w needs the global buffer limits: raised to 8 MiB (or already above), each raise recorded.
            for key in ["rmem_max", "wmem_max"] {
                let v: u64 =
                    std::fs::read_to_string(format!("/proc/sys/net/core/{key}")).unwrap().trim().parse().unwrap();
                assert!(v >= 2 * LAB_UDP_BUFFER, "{key} {v}");
            }
            for (key, orig, set) in &st.raised_sysctls {
                assert!(key == "net.core.rmem_max" || key == "net.core.wmem_max", "{key}");
                assert_eq!(set, &(2 * LAB_UDP_BUFFER).to_string());
                assert!(orig.parse::<u64>().unwrap() < 2 * LAB_UDP_BUFFER, "{orig}");
            }
            // The runner sets the MTU of every listed interface on every end.
            assert!(crate::run::set_mtu(t, 1400).unwrap());
            let mtu = |ns: &str, dev: &str| -> u64 {
                let out =
                    Host::Netns { name: ns.into() }.run(&argv(&["ip", "-j", "link", "show", "dev", dev])).unwrap();
                serde_json::from_str::<serde_json::Value>(&out).unwrap()[0]["mtu"].as_u64().unwrap()
            };
            assert_eq!([mtu(&c, "eth0"), mtu(&r, "eth0"), mtu(&r, "eth1"), mtu(&s, "eth0")], [1400; 4]);
            assert!(crate::run::set_mtu(t, 1500).unwrap());
            assert_eq!(mtu(&r, "eth1"), 1500);
            // RFC 2544 at 10 Mbit/s (well under the shaper): the tester's
            // pacing tbf follows each trial's rate, and goes when done.
            let spec = crate::spec::Rfc2544Spec {
                confirm_seconds: 1.0,
                loss_tolerance_percent: 100.0,
                ..crate::spec::Rfc2544Spec::default()
            };
            let plan = crate::plan::Plan::from_spec(None, &crate::spec::BenchSpec::default());
            let ctx = crate::run::Context::new(t, &plan).unwrap();
            let mut paced = Vec::new();
            let mut frames = 0;
            let x = crate::rfc2544::run(
                &ctx,
                &spec,
                10e6,
                &[1518],
                |f, trial| {
                    paced.push((f, tbf_of(&c, "eth0"), trial.record.notes.clone(), trial.record.command.clone()));
                    trial
                },
                |_| frames += 1,
            );
            assert_eq!(frames, 1);
            assert_eq!(x.frames.len(), 1);
            let f = &x.frames[0];
            assert!(f.confirmed && f.fps > 0.0 && f.fps <= crate::records::max_fps(10e6, 1518) * 1.001, "{f:?}");
            assert_eq!(paced.len(), f.steps.len());
            for (size, tbf, notes, cmd) in &paced {
                assert_eq!(*size, 1518);
                // The lab's testers go first (nice -10) on a shared machine.
                assert!(cmd.starts_with("nice -n -10 "), "{cmd}");
                assert!(notes.iter().any(|n| n == "offered load paced by tbf on the client's eth0"), "{notes:?}");
                // -b of the trial back to frames/s, then the tbf it should have set.
                let b: f64 = cmd.split(" -b ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
                let (rate, burst, _) = crate::rfc2544::pace_params(b / (8.0 * 1472.0), 1518);
                let (got_rate, got_burst) = tbf.unwrap();
                assert!((got_rate as f64 - rate / 8.0).abs() <= 1.0, "{got_rate} vs {}", rate / 8.0);
                assert!((got_burst as f64 / burst as f64 - 1.0).abs() < 0.02, "{got_burst} vs {burst}");
            }
            assert_eq!(tbf_of(&c, "eth0"), None, "the pacing qdisc is removed after the run");
            // The matrix runner sets the links to a cell's MTU before its
            // first trial (no -M emulation then).
            let spec = crate::spec::BenchSpec {
                duration: 1.0,
                repeats: 1,
                protocols: vec![crate::iperf::Protocol::Tcp],
                directions: vec![crate::iperf::Direction::Tx],
                mtus: vec![9000],
                ..crate::spec::BenchSpec::default()
            };
            let out = tempfile::tempdir().unwrap();
            let quiet = crate::run::RunOptions { resume: false, quiet: true };
            let recs = crate::run::run_plan(&crate::plan::Plan::from_spec(None, &spec), t, out.path(), &quiet).unwrap();
            assert!(recs.len() == 1 && recs[0].error.is_none() && !recs[0].command.contains(" -M "), "{recs:?}");
            assert_eq!([mtu(&c, "eth0"), mtu(&r, "eth0"), mtu(&r, "eth1"), mtu(&s, "eth0")], [9000; 4]);
            assert!(x.deviations[0].contains(&ctx.server_version.to_string()));
        });
        let msgs = down(&name).unwrap();
        assert!(msgs.is_empty(), "{msgs:?}");
        assert!(!netns_exists(&c) && !netns_exists(&r) && !netns_exists(&s));
        assert!(!state_path(&name).exists());
        assert!(down("Bad Name").is_err());
        if let Err(e) = result {
            std::panic::resume_unwind(e);
        }
    }

    /// The limits are raised when below 2 x LAB_UDP_BUFFER and put back on
    /// `down` unless changed meanwhile, on a /proc/sys-shaped tree: the real
    /// ones are global to this machine (the initial namespace), shared with
    /// every other lab and CI clone on it, so a test must not lower them.
    #[test]
    fn buffer_limits_are_raised_when_low_and_put_back_when_unchanged() {
        let sys = tempfile::tempdir().unwrap();
        let core = sys.path().join("net/core");
        std::fs::create_dir_all(&core).unwrap();
        let (rmem, wmem) = (core.join("rmem_max"), core.join("wmem_max"));
        let read = |p: &Path| std::fs::read_to_string(p).unwrap().trim().to_string();
        let want = (2 * LAB_UDP_BUFFER).to_string();
        // The stock 212992, and one just over LAB_UDP_BUFFER: both below the target.
        std::fs::write(&rmem, "212992\n").unwrap();
        std::fs::write(&wmem, format!("{}\n", LAB_UDP_BUFFER + 100)).unwrap();
        let raised = raise_buffer_limits(sys.path());
        let row = |k: &str, orig: String| (k.to_string(), orig, want.clone());
        assert_eq!(
            raised,
            [row("net.core.rmem_max", "212992".into()), row("net.core.wmem_max", (LAB_UDP_BUFFER + 100).to_string())]
        );
        assert_eq!((read(&rmem), read(&wmem)), (want.clone(), want.clone()));
        // At the target (or above) nothing is raised.
        assert_eq!(raise_buffer_limits(sys.path()), []);
        // Put back, except what someone changed meanwhile.
        std::fs::write(&wmem, "9999999\n").unwrap();
        restore_buffer_limits(sys.path(), &raised);
        assert_eq!((read(&rmem), read(&wmem)), ("212992".to_string(), "9999999".to_string()));
        // A missing file is skipped.
        std::fs::remove_file(&wmem).unwrap();
        assert_eq!(raise_buffer_limits(sys.path()), [row("net.core.rmem_max", "212992".into())]);
    }

    /// `down` reports an applier whose revert fails, and still tears the
    /// lab down.
    #[test]
    fn down_reports_a_failed_revert() {
        let name = format!("zv{}", std::process::id() % 100_000);
        let dir = tempfile::tempdir().unwrap();
        let applier = dir.path().join("zynq-net-apply");
        std::fs::copy(find_applier(None).unwrap(), &applier).unwrap();
        let plan = dir.path().join("lab.plan");
        std::fs::write(&plan, lab_plan()).unwrap();
        let o = LabOptions {
            name: name.clone(),
            subnet: 44,
            plan: Some(plan),
            applier: Some(applier.clone()),
            ..LabOptions::default()
        };
        let st = up(&o);
        // The applier breaks while the lab is up: its revert exits 1.
        std::fs::write(&applier, "echo 'revert refused' >&2; exit 1\n").unwrap();
        let msgs = down(&name).unwrap();
        assert!(st.unwrap().apply_output.is_some());
        assert_eq!(msgs, ["applier revert: exit status: 1: revert refused"]);
        assert!(namespaces(&name).iter().all(|ns| !netns_exists(ns)));
    }

    /// The applier's `apply --json` shape (zynq-net-apply.sh, `report`):
    /// a board plan on veths fails its ident checks and skips its steps.
    fn apply_json(steps: &[(&str, &str, &str, &str)]) -> String {
        let s: Vec<String> = steps
            .iter()
            .map(|(result, verb, iface, detail)| {
                serde_json::json!({"result": result, "verb": verb, "iface": iface, "target": "-",
                    "desired": "x", "actual": "", "detail": detail})
                .to_string()
            })
            .collect();
        format!(
            "{{\"command\":\"apply\",\"board\":\"zcu102\",\"plan\":\"p\",\"steps\":[\n{}\n],\"exit\":3}}\n",
            s.join(",\n")
        )
    }

    /// A plan whose interfaces fail their ident checks is refused even
    /// when a global step applied (the applier exits 3 either way); one
    /// whose tuning took effect with some steps skipped is accepted; one
    /// where nothing took effect is refused.
    #[test]
    fn lab_up_refuses_a_plan_that_did_not_take_effect() {
        let ident = "not the board's device: driver is veth, the plan says macb; its steps are skipped";
        let r = ApplyReport::from_json(&apply_json(&[
            ("failed", "ident", "eth0", ident),
            ("skipped", "rps", "eth0", "not the board's device (driver is veth, the plan says macb)"),
            ("applied", "sysctl", "-", "was 4294967295"),
        ]))
        .unwrap();
        assert_eq!((r.counts, r.in_force), ([1, 0, 1, 1], 1));
        assert_eq!(r.lines[0], format!("failed ident eth0 - = x -- {ident}"));
        let (why, hint) = r.refusal(false).unwrap();
        let want = "lab up refused: the plan's ident check failed on eth0: not the board's device: driver is veth, \
                    the plan says macb (every step of that interface was skipped";
        assert!(why.starts_with(want), "{why}");
        assert!(hint.starts_with("hint: the lab's NICs are veths") && hint.contains("pass --veth-ident"), "{hint}");
        assert!(r
            .to_text("z.plan")
            .ends_with("lab up: tuning plan z.plan: 1 applied, 0 unchanged, 1 skipped, 1 failed\n"));
        // Checks alone are no tuning.
        let r = ApplyReport::from_json(&apply_json(&[
            ("unchanged", "ident", "eth1", ""),
            ("unchanged", "wait", "eth1", "present after 0s"),
            ("skipped", "irq", "eth1", "absent (no IRQ named eth1 in /proc/interrupts)"),
        ]))
        .unwrap();
        assert!(r.refusal(true).unwrap().0.starts_with("lab up refused: no step of the plan took effect"));
        let r = ApplyReport::from_json(&apply_json(&[
            ("unchanged", "ident", "eth1", ""),
            ("applied", "rps", "eth1", "was 0"),
            ("skipped", "irq", "eth1", "absent"),
        ]))
        .unwrap();
        assert_eq!(r.refusal(true), None);
        assert_eq!(ApplyReport::from_json("zynq-net: lab: apply: 1 applied"), None);
    }

    /// `--veth-ident`: each ident line names the veth driver and nothing
    /// else; the other steps are kept; the plan is resealed.
    #[test]
    fn veth_ident_rewrites_only_ident_lines_and_reseals() {
        let text = zynq_net_render::plan::seal(
            "zynq-net-plan 2\nboard zcu102\nident eth0 driver macb\nident eth1 driver xilinx_axienet of-node /amba/ethernet@80000000\nrps eth1 rx-0 00000003\n",
        );
        let out = veth_ident_plan("z.plan", &text).unwrap();
        let p = crate::ablate::groups::PlanText::parse("out", &out).unwrap();
        let lines: Vec<&str> = p.steps.iter().map(|s| s.line.as_str()).collect();
        assert_eq!(lines, ["ident eth0 driver veth", "ident eth1 driver veth", "rps eth1 rx-0 00000003"]);
        assert_eq!(p.board.as_deref(), Some("zcu102"));
        assert_eq!(out, zynq_net_render::plan::seal(out.rsplit_once("end ").unwrap().0));
        assert!(veth_ident_plan("z.plan", "not a plan\n").unwrap_err().to_string().starts_with("z.plan:1:1: expected"));
    }

    /// A whole plan (with its end line) that sets one sysctl of the router's
    /// namespace.
    fn lab_plan() -> String {
        let text = "zynq-net-plan 2\nboard lab\nsysctl net.ipv4.tcp_notsent_lowat 16385\n";
        let p = crate::ablate::groups::PlanText::parse("lab.plan", text).unwrap();
        crate::ablate::groups::write_plan("lab test", p.board.as_deref(), &p.steps.iter().collect::<Vec<_>>())
    }
}
