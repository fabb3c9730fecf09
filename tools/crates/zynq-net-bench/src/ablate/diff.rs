//! The suggestion as a diff of the board file: the settings whose plan
//! steps the suggestion leaves out are deleted from the YAML text (block
//! keys with their value and the comment lines right above them; items of
//! one-line `{ ... }` maps in place), and the edited board is checked by
//! loading it with the model and regenerating its plan, which must be the
//! suggested plan. The diff is for review; nothing is written to the board.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

use serde_json::Value;
use zynq_net_model::yaml::{self, escape_segment, SourceMap};

use zynq_net_render::plan::Step;
use zynq_net_render::verb::AblationGroup;

use super::groups::{PlanStep, PlanText};
use crate::error::BenchError;

fn lookup<'a>(doc: &'a Value, pointer: &str) -> Option<&'a Value> {
    doc.pointer(pointer)
}

fn parent(p: &str) -> &str {
    p.rfind('/').map_or("", |i| &p[..i])
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Deletes the settings at `pointers` from the YAML `text`.
fn delete(text: &str, map: &SourceMap, pointers: &BTreeSet<String>) -> String {
    let mut lines: Vec<Option<String>> = text.lines().map(|l| Some(l.to_string())).collect();
    // Flow items first, right to left on each line, so columns stay valid.
    let mut flow: Vec<(usize, usize)> = Vec::new();
    for p in pointers {
        let pos = map.key_pos(p);
        let (l, c) = (pos.line.saturating_sub(1), pos.col.saturating_sub(1));
        let Some(Some(line)) = lines.get(l) else { continue };
        let before = line[..c.min(line.len())].trim_end();
        if before.ends_with('{') || before.ends_with(',') {
            flow.push((l, c));
        } else {
            // Block key: the key line, deeper-indented lines after it, and
            // comment lines at its indentation right above it.
            let ind = indent(line);
            let mut end = l + 1;
            while end < lines.len() {
                match &lines[end] {
                    Some(x) if x.trim().is_empty() => {
                        let next = lines[end..].iter().flatten().find(|x| !x.trim().is_empty());
                        if next.is_some_and(|x| indent(x) > ind) {
                            end += 1;
                        } else {
                            break;
                        }
                    }
                    Some(x) if indent(x) > ind => end += 1,
                    None => end += 1,
                    _ => break,
                }
            }
            let mut start = l;
            while start > 0 {
                match &lines[start - 1] {
                    Some(x) if x.trim_start().starts_with('#') && indent(x) == ind => start -= 1,
                    _ => break,
                }
            }
            for x in &mut lines[start..end] {
                *x = None;
            }
        }
    }
    flow.sort_by(|a, b| b.cmp(a));
    for (l, c) in flow {
        let Some(line) = lines[l].clone() else { continue };
        let bytes = line.as_bytes();
        let mut depth = 0i32;
        let mut end = c;
        while end < bytes.len() {
            match bytes[end] {
                b'{' | b'[' => depth += 1,
                b'}' | b']' if depth == 0 => break,
                b'}' | b']' => depth -= 1,
                b',' if depth == 0 => break,
                _ => {}
            }
            end += 1;
        }
        let new = if bytes.get(end) == Some(&b',') {
            // `key: v, ` -> remove through the comma and following spaces.
            let mut e = end + 1;
            while bytes.get(e) == Some(&b' ') {
                e += 1;
            }
            format!("{}{}", &line[..c], &line[e..])
        } else {
            // Last item: remove the preceding `, ` too.
            let head = line[..c].trim_end();
            let head = head.strip_suffix(',').unwrap_or(head);
            let tail = line[end..].trim_start();
            format!("{} {}", head.trim_end(), tail)
        };
        lines[l] = Some(new);
    }
    let mut out: String = lines.into_iter().flatten().map(|l| l + "\n").collect();
    if !text.ends_with('\n') {
        out.pop();
    }
    out
}

/// A board diff leaving out `removed` (plan line numbers), or an error
/// saying why it cannot be written.
///
/// # Errors
/// [`BenchError::Invalid`] when a removed step has no single board setting,
/// when only part of a list setting (RPS, XPS, IRQ affinity, qdisc) would be
/// removed, or when the edited board does not load or does not generate
/// exactly the suggested plan.
pub fn board_diff(board_file: &Path, plan: &PlanText, removed: &[usize]) -> Result<String, BenchError> {
    let text = std::fs::read_to_string(board_file).map_err(|e| BenchError::io(board_file, e))?;
    let name = board_file.display().to_string();
    let (doc, map) = yaml::load(&text).map_err(|_| BenchError::Invalid(format!("{name}: does not parse any more")))?;
    // The board's own steps, typed: each knows the setting it comes from
    // (zynq_net_render::plan::Step::origin). A plan line the board does
    // not make (a plan edited since, or given) has none.
    let loaded = zynq_net_model::load_board_str(board_file, &text)
        .map_err(|_| BenchError::Invalid(format!("{name}: does not parse any more")))?;
    let steps = zynq_net_render::plan::steps(&loaded.board);
    let mut by_line: HashMap<&str, &Step> = HashMap::with_capacity(steps.len());
    for t in &steps {
        by_line.entry(t.line.as_str()).or_insert(t);
    }
    // The base every variant keeps is no setting to delete.
    let setting = |s: &PlanStep| -> Option<String> {
        by_line.get(s.line.as_str()).filter(|t| t.group() != AblationGroup::Base).map(|t| t.pointer())
    };
    let removed: HashSet<usize> = removed.iter().copied().collect();
    let kept: HashSet<String> =
        plan.steps.iter().filter(|o| !removed.contains(&o.line_no)).filter_map(setting).collect();
    let mut problems = Vec::new();
    let mut pointers = BTreeSet::new();
    for s in plan.steps.iter().filter(|s| removed.contains(&s.line_no)) {
        match setting(s) {
            Some(p) if lookup(&doc, &p).is_some() => {
                // Every step from that setting must go, or none.
                if kept.contains(&p) {
                    problems.push(format!(
                        "`{}` comes from {p}, which also makes steps that stay: edit it by hand",
                        s.line
                    ));
                } else {
                    pointers.insert(p);
                }
            }
            _ => problems.push(format!("`{}` has no single setting in the board: edit it by hand", s.line)),
        }
    }
    if !problems.is_empty() {
        return Err(BenchError::Invalid(format!("{name}: no board diff: {}", problems.join("; "))));
    }
    // A mapping left empty goes as a whole.
    loop {
        let mut grew = false;
        let parents: BTreeSet<String> = pointers.iter().map(|p| parent(p).to_string()).collect();
        for par in parents {
            if par.is_empty() || pointers.contains(&par) {
                continue;
            }
            if let Some(Value::Object(o)) = lookup(&doc, &par) {
                if o.keys().all(|k| pointers.contains(&format!("{par}/{}", escape_segment(k)))) {
                    pointers.retain(|p| !p.starts_with(&format!("{par}/")));
                    pointers.insert(par);
                    grew = true;
                }
            }
        }
        if !grew {
            break;
        }
    }
    let edited = delete(&text, &map, &pointers);
    // Proof: the edited board loads and generates the suggested plan.
    let loaded = zynq_net_model::load_board_str(board_file, &edited).map_err(|d| {
        BenchError::Invalid(format!("{name}: the edited board does not validate, no diff written:\n{d}"))
    })?;
    let input = board_file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let regenerated = zynq_net_render::plan::steps(&loaded.board);
    let want: Vec<&str> =
        plan.steps.iter().filter(|s| !removed.contains(&s.line_no)).map(|s| s.line.as_str()).collect();
    let got: Vec<&str> = regenerated.iter().map(|s| s.line.as_str()).collect();
    if want != got {
        return Err(BenchError::Invalid(format!(
            "{name}: the edited board generates a different plan than suggested (want {} steps, got {}): edit it by hand",
            want.len(),
            got.len()
        )));
    }
    let diff = similar::TextDiff::from_lines(&text, &edited);
    Ok(diff.unified_diff().context_radius(3).header(&format!("a/{input}"), &format!("b/{input}")).to_string())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn zcu102() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../meta-zynq-net/boards/zcu102.yml")
    }

    fn plan_of(path: &Path) -> PlanText {
        let b = zynq_net_model::load_board(path).unwrap();
        let arts = zynq_net_render::render_all(&b.board, "zcu102.yml").unwrap();
        let p = arts.iter().find(|a| a.path == "tuning/zynq-net.plan").unwrap();
        PlanText::parse("zcu102.plan", &String::from_utf8_lossy(&p.contents)).unwrap()
    }

    #[test]
    fn removing_groups_from_the_zcu102_board() {
        let plan = plan_of(&zcu102());
        let lines = |verb: &str, extra: &str| -> Vec<usize> {
            plan.steps.iter().filter(|s| s.verb() == verb && s.line.contains(extra)).map(|s| s.line_no).collect()
        };
        // RPS (a block list with comments above) and one flow item (tso).
        let mut removed = lines("rps", "");
        removed.extend(lines("offload", "eth0 tso"));
        let d = board_diff(&zcu102(), &plan, &removed).unwrap();
        assert!(d.contains("-    rps:"), "{d}");
        assert!(d.contains("-      - { queue: 0, cpus: \"0-1\" }"), "{d}");
        assert!(d.contains("-    offloads: { gro: on, tso: on, gso: on }"), "{d}");
        assert!(d.contains("+    offloads: { gro: on, gso: on }"), "{d}");
        assert!(!d.contains("-    rfs_flow_cnt"), "{d}");
        // Every offload of eth1 (its only item): the key goes.
        let removed = lines("offload", "eth1");
        let d = board_diff(&zcu102(), &plan, &removed).unwrap();
        assert!(d.contains("-    offloads: { gro: on }"), "{d}");
    }

    #[test]
    fn partial_list_settings_are_refused() {
        let plan = plan_of(&zcu102());
        let one_xps: Vec<usize> =
            plan.steps.iter().filter(|s| s.line.starts_with("xps eth0 tx-0")).map(|s| s.line_no).collect();
        let e = board_diff(&zcu102(), &plan, &one_xps).unwrap_err().to_string();
        assert!(e.contains("edit it by hand"), "{e}");
    }

    fn del(text: &str, pointers: &[&str]) -> String {
        let (_, map) = yaml::load(text).unwrap();
        delete(text, &map, &pointers.iter().map(|p| p.to_string()).collect())
    }

    #[test]
    fn flow_items_go_with_their_comma() {
        let t = "a: { x: 1, y: [2, 3], z: { q: 4 } }\n";
        assert_eq!(del(t, &["/a/x"]), "a: { y: [2, 3], z: { q: 4 } }\n");
        assert_eq!(del(t, &["/a/y"]), "a: { x: 1, z: { q: 4 } }\n");
        assert_eq!(del(t, &["/a/z"]), "a: { x: 1, y: [2, 3] }\n");
        // Two on one line: right to left, the columns stay right.
        assert_eq!(del(t, &["/a/x", "/a/z"]), "a: { y: [2, 3] }\n");
        // A flow mapping that goes on to the next line: the last item on a
        // line goes with the comma before it.
        assert_eq!(del("a: { x: 1, y: 2\n  }\n", &["/a/y"]), "a: { x: 1 \n  }\n");
        // No final newline: none added.
        assert_eq!(del("a: { x: 1, y: 2 }", &["/a/y"]), "a: { x: 1 }");
    }

    #[test]
    fn block_keys_go_with_their_lines_and_comments() {
        let t = "top:\n# not about b\n  # about b\n  # more about b\n  b:\n    - 1\n\n    - 2\n  c: 3\n\n  d: 4\n";
        assert_eq!(del(t, &["/top/b"]), "top:\n# not about b\n  c: 3\n\n  d: 4\n");
        // A blank line then a shallower key ends the block.
        assert_eq!(
            del(t, &["/top/c"]),
            "top:\n# not about b\n  # about b\n  # more about b\n  b:\n    - 1\n\n    - 2\n\n  d: 4\n"
        );
        // A whole mapping: its key and every deeper line; nested keys inside it are already gone.
        assert_eq!(del("top:\n  b: 1\n\n  c: 2\nnext: 3\n", &["/top", "/top/c"]), "next: 3\n");
        // The blank line before `d` belonged to no block (nothing deeper followed it).
        assert_eq!(del(t, &["/top/b", "/top/c", "/top/d"]), "top:\n# not about b\n\n");
        assert_eq!(parent("/interfaces/0/rps"), "/interfaces/0");
        assert_eq!(parent("rps"), "");
    }

    /// A block whose lines run into lines an earlier pointer deleted (y,
    /// sorted before z, goes first with its comment): the scan goes on over
    /// them to the end of z's block.
    #[test]
    fn a_block_reaches_over_lines_already_deleted() {
        let t = "a:\n  z:\n    - 1\n  # about y\n  y: 2\n    # deeper\nnext: 3\n";
        assert_eq!(del(t, &["/a/y", "/a/z"]), "a:\nnext: 3\n");
        assert_eq!(del(t, &["/a/y"]), "a:\n  z:\n    - 1\nnext: 3\n");
    }

    /// A step whose setting the board does not have (eth0 sets no lro)
    /// has no board diff: it is named, nothing is deleted.
    #[test]
    fn a_step_the_board_does_not_set_is_refused() {
        let plan = plan_of(&zcu102());
        let text: String = plan.steps.iter().map(|s| format!("{}\n", s.line)).collect();
        let plan = PlanText::parse("zcu102.plan", &format!("zynq-net-plan 2\n{text}offload eth0 lro off\n")).unwrap();
        let lro: Vec<usize> =
            plan.steps.iter().filter(|s| s.line == "offload eth0 lro off").map(|s| s.line_no).collect();
        assert_eq!(lro.len(), 1);
        let e = board_diff(&zcu102(), &plan, &lro).unwrap_err().to_string();
        assert!(e.contains("`offload eth0 lro off` has no single setting in the board: edit it by hand"), "{e}");
    }

    /// A mapping left empty goes whole, and the other removals stay: eth1's
    /// only offload (its `offloads` key goes) with eth0's tso.
    #[test]
    fn an_emptied_mapping_goes_with_the_other_removals() {
        let plan = plan_of(&zcu102());
        let removed: Vec<usize> = plan
            .steps
            .iter()
            .filter(|s| s.line.starts_with("offload eth1 ") || s.line.starts_with("offload eth0 tso"))
            .map(|s| s.line_no)
            .collect();
        let d = board_diff(&zcu102(), &plan, &removed).unwrap();
        assert!(d.contains("-    offloads: { gro: on }\n"), "{d}");
        assert!(d.contains("+    offloads: { gro: on, gso: on }\n"), "{d}");
    }
}
