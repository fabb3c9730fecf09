//! zynq-net generators: turn a validated board into its artifacts.
//!
//! Each artifact is rendered from an embedded minijinja template (strict
//! about undefined variables) that sees only a per-artifact view model,
//! never the raw YAML. [`render_all`] returns every artifact in memory;
//! [`write::write_atomic`] writes them (all or nothing).
//! Outputs are deterministic: same board, same bytes.

pub mod dt;
pub mod dtb;
pub mod dtval;
pub mod kconfig;
pub mod kernel_dts;
pub mod manifest;
pub mod plan;
pub mod probe;
pub mod verb;
pub mod write;

use minijinja::{context, Environment, UndefinedBehavior};
use serde::Serialize;
use zynq_net_model::HiBoard;

/// Version of the zynq-net tools (file headers, manifest).
pub const TOOL_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The fixed on-target applier (POSIX sh), identical for every board.
pub const APPLIER: &str = include_str!("../assets/zynq-net-apply.sh");

/// Kind of artifact, as listed in `manifest.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Device-tree include fragment.
    Dtsi,
    /// Device-tree overlay source.
    Dtso,
    /// Kernel config fragment.
    Kconfig,
    /// Kernel-cache feature description.
    Scc,
    /// Tuning plan.
    Plan,
    /// On-target applier.
    Applier,
    /// sysvinit script.
    Sysvinit,
    /// systemd unit.
    Systemd,
    /// sysctl.d file.
    Sysctl,
    /// udev rule for hot-plugged interfaces.
    Udev,
    /// irqbalance policy script.
    Irqbalance,
}

/// One generated file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    /// Path relative to the output directory (`/`-separated).
    pub path: String,
    /// Kind.
    pub kind: Kind,
    /// Contents.
    pub contents: Vec<u8>,
    /// Executable (mode 0755 instead of 0644).
    pub executable: bool,
}

/// Rendering failed (a template bug: the board was already validated).
#[derive(Debug, thiserror::Error)]
#[error("rendering {template}: {source}")]
pub struct RenderError {
    /// Template name.
    pub template: &'static str,
    /// Cause.
    #[source]
    pub source: minijinja::Error,
}

const TEMPLATES: &[(&str, &str)] = &[
    ("dtsi.j2", include_str!("../templates/dtsi.j2")),
    ("dtso.j2", include_str!("../templates/dtso.j2")),
    ("kconfig.cfg.j2", include_str!("../templates/kconfig.cfg.j2")),
    ("kconfig.scc.j2", include_str!("../templates/kconfig.scc.j2")),
    ("plan.j2", include_str!("../templates/plan.j2")),
    ("sysctl.conf.j2", include_str!("../templates/sysctl.conf.j2")),
    ("init.sysvinit.j2", include_str!("../templates/init.sysvinit.j2")),
    ("init.systemd.j2", include_str!("../templates/init.systemd.j2")),
    ("irqbalance-policy.j2", include_str!("../templates/irqbalance-policy.j2")),
    ("udev.rules.j2", include_str!("../templates/udev.rules.j2")),
];

fn env() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_keep_trailing_newline(true);
    env.set_trim_blocks(false);
    for (name, src) in TEMPLATES {
        // Templates are compile-time constants; a syntax error is caught by the tests.
        env.add_template(name, src).unwrap_or_else(|e| panic!("template {name}: {e}"));
    }
    env
}

fn render(env: &Environment<'_>, template: &'static str, ctx: minijinja::Value) -> Result<Vec<u8>, RenderError> {
    let tmpl = env.get_template(template).map_err(|source| RenderError { template, source })?;
    let mut s = tmpl.render(ctx).map_err(|source| RenderError { template, source })?;
    if !s.ends_with('\n') {
        s.push('\n');
    }
    Ok(s.into_bytes())
}

#[derive(Serialize)]
struct SymbolView {
    name: &'static str,
    value: &'static str,
    vendor: Option<kconfig::VendorOnly>,
}

#[derive(Serialize)]
struct FeatureView {
    name: &'static str,
    description: &'static str,
    class: &'static str,
    symbols: Vec<SymbolView>,
}

/// Renders every artifact of a loaded board (the resolved board,
/// [`HiBoard`]: typed values, no string to parse); `input` is the board file name shown in
/// headers (use the file name, not a full path, for reproducible bytes).
///
/// # Errors
/// [`RenderError`] if a template fails (a bug: boards are validated first).
pub fn render_all(board: &HiBoard, input: &str) -> Result<Vec<Artifact>, RenderError> {
    let input = header_safe(input);
    let input = input.as_str();
    let env = env();
    let name = board.board.name.as_str();
    let mut out = Vec::new();
    let mut add = |path: &str, kind: Kind, contents: Vec<u8>, executable: bool| {
        out.push(Artifact { path: path.to_string(), kind, contents, executable });
    };

    // Device tree: hardware only.
    let dtv = dt::view(board);
    let ctx = context! { tool_version => TOOL_VERSION, input, board => name, dt => dtv };
    add("dt/zynq-net.dtsi", Kind::Dtsi, render(&env, "dtsi.j2", ctx.clone())?, false);
    add("dt/zynq-net.dtso", Kind::Dtso, render(&env, "dtso.j2", ctx)?, false);

    // Kernel: features only.
    let feats = kconfig::features(board);
    let flavour =
        serde_json::to_value(board.board.kernel).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    let views: Vec<FeatureView> = feats
        .iter()
        .map(|f| FeatureView {
            name: f.name,
            description: f.description,
            class: f.class,
            symbols: f
                .symbols
                .iter()
                .map(|(s, v)| SymbolView {
                    name: s,
                    value: if *v == kconfig::Value::Y { "y" } else { "m" },
                    vendor: kconfig::vendor_only(s),
                })
                .collect(),
        })
        .collect();
    for f in &views {
        let ctx =
            context! { tool_version => TOOL_VERSION, input, board => name, flavour => flavour.clone(), feature => f };
        add(&format!("kernel/zynq-net-{}.cfg", f.name), Kind::Kconfig, render(&env, "kconfig.cfg.j2", ctx)?, false);
    }
    let names: Vec<&str> = views.iter().map(|f| f.name).collect();
    let ctx =
        context! { tool_version => TOOL_VERSION, input, board => name, features => views, names => names.join(", ") };
    add("kernel/zynq-net.scc", Kind::Scc, render(&env, "kconfig.scc.j2", ctx)?, false);

    // Runtime tuning.
    let steps = plan::steps(board);
    let ctx = context! { tool_version => TOOL_VERSION, input, board => name, steps, version => plan::PLAN_VERSION };
    let body = render(&env, "plan.j2", ctx)?;
    add("tuning/zynq-net.plan", Kind::Plan, plan::seal(&String::from_utf8_lossy(&body)).into_bytes(), false);
    add("tuning/zynq-net-apply", Kind::Applier, APPLIER.as_bytes().to_vec(), true);
    let interfaces: Vec<&str> = board.interfaces.iter().map(|i| i.name.as_str()).collect();
    let init_ctx = context! {
        tool_version => TOOL_VERSION,
        input,
        board => name,
        interfaces,
        pinned_irq_patterns => plan::pinned_irq_patterns(board),
        plan_path => "/etc/zynq-net/zynq-net.plan",
        applier_path => "/usr/sbin/zynq-net-apply",
    };
    add("tuning/zynq-net.init", Kind::Sysvinit, render(&env, "init.sysvinit.j2", init_ctx.clone())?, true);
    add("tuning/zynq-net.service", Kind::Systemd, render(&env, "init.systemd.j2", init_ctx.clone())?, false);
    add("tuning/90-zynq-net.rules", Kind::Udev, render(&env, "udev.rules.j2", init_ctx.clone())?, false);
    if board.system.irqbalance == zynq_net_model::model::Irqbalance::BanPinned {
        add(
            "tuning/zynq-net-irqbalance-policy",
            Kind::Irqbalance,
            render(&env, "irqbalance-policy.j2", init_ctx)?,
            true,
        );
    }
    let ctx = context! { tool_version => TOOL_VERSION, input, board => name, sysctls => plan::sysctls(board) };
    add("tuning/99-zynq-net.conf", Kind::Sysctl, render(&env, "sysctl.conf.j2", ctx)?, false);

    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// `input` (a file name) made safe for the one-line header comment of
/// every artifact: control characters (a newline would end the `#`
/// comment of the init script, and the next line would run at boot) are
/// written as Rust escapes (`\n`, `\u{1b}`), and `*/`, which would close
/// the C comment of the device-tree sources, as `*\/`.
fn header_safe(input: &str) -> String {
    let mut s = String::with_capacity(input.len());
    for c in input.chars() {
        if c.is_control() {
            s.extend(c.escape_default());
        } else {
            s.push(c);
        }
    }
    s.replace("*/", "*\\/")
}

#[cfg(test)]
mod testutil;

#[cfg(test)]
mod tests {
    use crate::testutil::{artifact, repo_text};

    /// The product's environment ([`crate::env`]) is strict about undefined
    /// variables (minijinja `UndefinedBehavior::Strict`): a misspelt
    /// view-model field is an error, not an empty string in a generated
    /// file. Printing, testing (`if`) and iterating an undefined value each
    /// fail with `UndefinedError`, and so does every embedded template given
    /// no view model.
    #[test]
    fn templates_are_strict_about_undefined_variables() {
        let env = crate::env();
        let empty = minijinja::context! {};
        for probe in ["{{ missing }}", "{% if missing %}x{% endif %}", "{% for x in missing %}{{ x }}{% endfor %}"] {
            let e = env.render_str(probe, &empty).expect_err(probe);
            assert_eq!(e.kind(), minijinja::ErrorKind::UndefinedError, "{probe}: {e}");
        }
        for &(name, _) in crate::TEMPLATES {
            let e = crate::render(&env, name, empty.clone()).expect_err(name);
            assert_eq!(e.source.kind(), minijinja::ErrorKind::UndefinedError, "{name}: {e}");
        }
    }

    /// `irqbalance: ban-pinned` adds an executable policy script whose
    /// `case` bans exactly the IRQ patterns the board pins, sorted, each
    /// once (irqbalance(1) --policyscript: `ban=true` keeps its hands off
    /// an IRQ); without it there is no script. The P1020RDB pins its two
    /// eTSECs' queue-group IRQs, `eth0_g*` and `eth1_g*` (gianfar names
    /// them eth0_g0_tx ...: gfar_request_irq).
    #[test]
    fn ban_pinned_policy_bans_each_pinned_pattern() {
        let text = repo_text("meta-zynq-net/boards/p1020rdb.yml");
        let ban = text.replacen("irqbalance: absent", "irqbalance: ban-pinned", 1);
        assert_ne!(ban, text);
        let policy = |text: &str| artifact(text, "tuning/zynq-net-irqbalance-policy");
        assert!(policy(&text).is_none(), "irqbalance: absent writes no policy");
        let script = policy(&ban).expect("a policy script");
        assert!(script.executable);
        let script = String::from_utf8(script.contents).expect("text");
        let arms: Vec<&str> =
            script.lines().map(str::trim).filter(|l| l.ends_with(") echo ban=true; exit 0 ;;")).collect();
        assert_eq!(arms, ["eth0_g*) echo ban=true; exit 0 ;;", "eth1_g*) echo ban=true; exit 0 ;;"], "{script}");
    }

    /// A board file name holding a newline cannot add lines to the
    /// artifacts (the init script would run them at boot: `sh
    /// zynq-net.init` executes every line that is not a comment), nor
    /// close the device-tree sources' comment with `*/`: the header shows
    /// it escaped, and every artifact's lines are those of a plain name's,
    /// but for the name itself.
    #[test]
    fn a_file_name_cannot_add_lines_to_the_artifacts() {
        let board = crate::testutil::loaded(&repo_text("meta-zynq-net/boards/zcu102.yml"));
        let evil = "evil\nCONFIG_EVIL=y\necho PWNED */ \u{1b}[31m #.yml";
        let plain = crate::render_all(&board, "plain.yml").expect("render");
        let bad = crate::render_all(&board, evil).expect("render");
        assert_eq!(plain.len(), bad.len());
        let shown = "evil\\nCONFIG_EVIL=y\\necho PWNED *\\/ \\u{1b}[31m #.yml";
        for (p, b) in plain.iter().zip(&bad) {
            let (pt, bt) = (String::from_utf8_lossy(&p.contents), String::from_utf8_lossy(&b.contents));
            // the plan's last line holds its length and checksum (plan.rs)
            let lines = |t: &str| t.lines().filter(|l| !l.starts_with("end ")).map(String::from).collect::<Vec<_>>();
            assert_eq!(lines(&pt.replace("plain.yml", shown)), lines(&bt), "{}", p.path);
            assert!(!bt.contains('\u{1b}'), "{bt}");
        }
        assert!(bad.iter().any(|a| String::from_utf8_lossy(&a.contents).contains(shown)));
    }
}
