//! Every branch of every rule has a failing case.
//!
//! The cli crate's rule-coverage test counts rule ids: a rule reported from
//! two places (one per driver, say) passed it with a case for one of them.
//! Here a rule's *branches* are found by construction: every place the
//! loader's source writes `Rule::X` outside tests is one reporting site of
//! rule X. Each diagnostic records where it was made
//! ([`Diagnostic::site`], `#[track_caller]`), which maps to the first site of
//! its rule at or after that line in that file. The test loads every case
//! of bad-cases.txt (and the few inputs too large for a case), and checks
//! both ways: every site is reached by some case, and every diagnostic
//! maps to a site. A new rule, or a new branch of an old one, without its
//! case fails here naming the file, line and code of the unreached site.

use crate::bad_cases::Cases;
use crate::{load_board, Diagnostic, LoadError, Rule};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Sites no board can reach, each with why (file name, rule, the site's
/// line text contains this): a site listed here must exist, so a stale
/// entry fails too.
const UNREACHABLE: &[(&str, Rule, &str, &str)] = &[
    (
        "validate.rs",
        Rule::DtLabelMissing,
        "Rule::DtLabelMissing",
        "needs the kernel tree's board DTS (`--kernel-tree`): its case is in the cli crate's tests/dtb_verify.rs \
         (labels_are_checked_against_the_board_dts)",
    ),
    (
        "drivers.rs",
        Rule::OpenNoLink,
        "rule: crate::Rule::OpenNoLink, // gianfar",
        "the loader runs the open table on the AXI ports' planned nodes only; the gianfar row is held against a \
         compiled tree by `dtb verify` (render dtb.rs), its case in the cli crate's tests/dtb_verify.rs \
         (p1020rdb_reference_board, `/delete-property/ phy-handle`)",
    ),
    (
        "limits.rs",
        Rule::RegWindow,
        "passes the end of the 64-bit address space",
        "reg and size are YAML integers, which saphyr reads as i64 (`reg: 0xfffffffffffff000` is a wrong-type \
         string), so reg + size <= 2^64 - 2 never overflows u64: the check guards a model built in code",
    ),
    (
        "schema.rs",
        Rule::BadEnum,
        "K::Enum { .. } | K::Constant { .. }",
        "an enum or const whose choices enum_choices cannot read from the derived schema: every enum the schema has \
         now takes the arm above; kept so a schema change still reports bad-enum, not wrong-type",
    ),
];

/// Rules left out: `internal-error` is a zynq-net bug no input should reach.
const NOT_INPUT: &[Rule] = &[Rule::Internal];

/// A reporting site: file name (`validate.rs`), 1-based line, the line's text.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Site {
    file: String,
    line: usize,
    text: String,
}

/// The model crate's source files, each (file name, text before its first
/// `#[cfg(test)] mod NAME {`), rules.rs (the table) and test-only files aside.
fn sources() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("src")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            if ["rules.rs", "testutil.rs", "branch_coverage.rs"].contains(&name.as_str()) {
                return None;
            }
            let text = std::fs::read_to_string(&p).ok()?;
            let test_mod = regex_lite::Regex::new(r"\n#\[cfg\(test\)\]\nmod \w+ \{").expect("regex");
            let code = test_mod.split(&text).next().unwrap_or("").to_string();
            Some((name, code))
        })
        .collect();
    out.sort();
    out
}

/// Every `Rule::Variant` written in `sources`: rule -> its sites, in file
/// and line order.
fn sites(sources: &[(String, String)]) -> BTreeMap<Rule, Vec<Site>> {
    let by_name: BTreeMap<String, Rule> = Rule::ALL.iter().map(|r| (format!("{r:?}"), *r)).collect();
    let mut out: BTreeMap<Rule, Vec<Site>> = BTreeMap::new();
    for (file, code) in sources {
        for (i, line) in code.lines().enumerate() {
            let mut rest = line;
            while let Some(at) = rest.find("Rule::") {
                let tail = &rest[at + 6..];
                let name: String = tail.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                // left of a `=>` on its line, it is a match pattern (a
                // diagnostic made elsewhere, looked at), not a site
                let pattern = line.find("=>").is_some_and(|arrow| line.len() - rest.len() + at < arrow);
                if let (Some(rule), false) = (by_name.get(&name), pattern) {
                    out.entry(*rule).or_default().push(Site {
                        file: file.clone(),
                        line: i + 1,
                        text: line.trim().to_string(),
                    });
                }
                rest = &tail[name.len()..];
            }
        }
    }
    out
}

/// The site a diagnostic was made at: the first site of its rule in the
/// file of its `site`, at or after that line. A diagnostic of a row of the
/// open table ([`crate::drivers::OPEN`], one row per driver and flavour arm,
/// reported from one loop) maps to its row's `rule:` line in drivers.rs.
fn site_of<'a>(all: &'a BTreeMap<Rule, Vec<Site>>, d: &Diagnostic) -> Option<&'a Site> {
    let file = Path::new(d.site.0.file()).file_name()?.to_str()?;
    let line = d.site.0.line() as usize;
    let list = all.get(&d.rule)?;
    list.iter().find(|s| s.file == file && s.line >= line && s.file != "drivers.rs").or_else(|| {
        let rows = crate::drivers::OPEN;
        let k =
            rows.iter().position(|r| r.rule == d.rule && d.message.contains(&format!("({}): {}", r.at, r.effect)))?;
        let before = rows[..k].iter().filter(|r| r.rule == d.rule).count();
        list.iter().filter(|s| s.file == "drivers.rs").nth(before)
    })
}

/// The diagnostics of every failing input: each case of bad-cases.txt,
/// plus the inputs no case can hold (a 1 MiB file, 50,001 nodes, 65
/// interfaces, a byte that is not UTF-8, as the cli crate's
/// `generated_fixtures`; a control character; 1,000 nested flow
/// sequences, which stop saphyr's scanner before the depth check) and a
/// board read as a bench file. (input name, diagnostics).
fn diagnostics() -> Vec<(String, Vec<Diagnostic>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let cases = Cases::load(&root);
    let tmp = tempfile::tempdir().expect("tmp");
    let mut inputs: Vec<(String, Vec<u8>)> =
        cases.materialized(&root).into_iter().map(|(n, t)| (format!("case {n}"), t.into_bytes())).collect();
    let zcu102 = std::fs::read_to_string(root.join("meta-zynq-net/boards/zcu102.yml")).expect("board");
    let mut huge = zcu102.clone().into_bytes();
    huge.resize(crate::MAX_BOARD_BYTES as usize + 1, b'#');
    let nodes = zcu102.replacen("version: 1\n", &format!("version: 1\nx: [{}]\n", vec!["0"; 50_001].join(",")), 1);
    let ports: String =
        (0..65).map(|i| format!("  - {{ name: lab{i}, driver: veth, queues: {{ rx: 1, tx: 1 }} }}\n")).collect();
    let interfaces = zcu102.replacen("interfaces:\n", &format!("interfaces:\n{ports}"), 1);
    let mut latin1 = zcu102.clone().into_bytes();
    latin1.insert(20, 0xff);
    inputs.push(("a 1 MiB file".into(), huge));
    inputs.push(("50,001 nodes".into(), nodes.into_bytes()));
    inputs.push(("65 interfaces".into(), interfaces.into_bytes()));
    inputs.push(("not UTF-8".into(), latin1));
    inputs.push(("a BEL character".into(), zcu102.replacen("name: zcu102", "name: zcu\u{7}102", 1).into_bytes()));
    inputs.push(("1,000 `[`".into(), format!("version: 1\nx: {}\n", "[".repeat(1000)).into_bytes()));
    let mut out = Vec::new();
    for (i, (name, bytes)) in inputs.into_iter().enumerate() {
        let f: PathBuf = tmp.path().join(format!("{i}.yml"));
        std::fs::write(&f, bytes).expect("write");
        let items = match load_board(&f) {
            Ok(b) => b.warnings,
            Err(LoadError::Invalid(d)) => d.items,
            Err(e) => panic!("{name}: {e}"),
        };
        out.push((name, items));
    }
    // `zynq-net bench BOARD` of a board without a `bench:` section
    let f = root.join("meta-zynq-net/boards/p1020rdb.yml");
    let text = std::fs::read_to_string(&f).expect("board");
    let text = text.split("\nbench:").next().expect("text");
    let items = crate::load_bench_str(&f, text).map(|_| ()).expect_err("a board without bench").items;
    out.push(("a board without bench, read as a bench".into(), items));
    out
}

/// The sites no input reaches, as `file:line: rule `id`: code` lines.
fn unreached(all: &BTreeMap<Rule, Vec<Site>>, reached: &BTreeSet<Site>) -> Vec<String> {
    let mut out = Vec::new();
    for (rule, list) in all {
        if NOT_INPUT.contains(rule) {
            continue;
        }
        for s in list {
            let waived = UNREACHABLE.iter().any(|(f, r, t, _)| *f == s.file && r == rule && s.text.contains(t));
            if !reached.contains(s) && !waived {
                out.push(format!("  {}:{}: rule `{}`: {}", s.file, s.line, rule.id(), s.text));
            }
        }
    }
    out
}

#[test]
fn every_branch_of_every_rule_has_a_failing_case() {
    let all = sites(&sources());
    assert!(all.len() > 100, "found the sites of only {} rules: is the scan broken?", all.len());
    let mut reached = BTreeSet::new();
    let mut stray = Vec::new();
    for (name, items) in diagnostics() {
        for d in &items {
            match site_of(&all, d) {
                Some(s) => {
                    reached.insert(s.clone());
                }
                None => stray.push(format!("  {name}: {} made at {} ({})", d.rule.id(), d.site.0, d.message)),
            }
        }
    }
    assert!(
        stray.is_empty(),
        "diagnostics made where the loader's source writes no `Rule::` of their rule at or after that line (report \
         helpers need #[track_caller]; a rule taken from a table needs its site at the call):\n{}",
        stray.join("\n")
    );
    for (f, r, t, why) in UNREACHABLE {
        assert!(
            all.get(r).is_some_and(|l| l.iter().any(|s| s.file == *f && s.text.contains(t))),
            "UNREACHABLE entry ({f}, {}, {t:?}: {why}) matches no site any more: remove it",
            r.id()
        );
    }
    let missing = unreached(&all, &reached);
    assert!(
        missing.is_empty(),
        "rule branches without a failing case in {}: each place below reports a rule, and no case reaches it; add a \
         case planting that branch's fault (the file's header gives the format; copy a case of the same rule):\n{}",
        crate::bad_cases::CASES_FILE,
        missing.join("\n")
    );
    // The check has teeth: a site nothing reaches is reported.
    let one = reached.iter().find(|s| s.file == "validate.rs").cloned().expect("a validate.rs site");
    reached.remove(&one);
    assert_eq!(unreached(&all, &reached).len(), 1);
}
