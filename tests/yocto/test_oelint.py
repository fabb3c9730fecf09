"""oelint-adv over every recipe, append, class and include of both layers,
with the project's .oelint.cfg: no errors and no warnings.

Suppressions are either project-wide in .oelint.cfg (each with its reason)
or inline `# nooelint:` comments next to their reason.

oelint-adv's exit status (oelint_adv/__main__.py, 9.x): 0 no finding at all,
1 some finding (infos count too) or bad arguments, 70 an exception inside
the linter, 2 an argparse usage error; an uncaught exception also exits 1.
So exit 1 counts as "findings" only when the output holds findings and no
traceback; anything else is a crash and fails the test, whatever it printed.
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
SUFFIXES = (".bb", ".bbappend", ".bbclass", ".inc")


def lint_files():
    files = []
    for path in sorted(ROOT.rglob("*")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in ("tools", ".git") or not path.is_file():
            continue
        if path.name.endswith(SUFFIXES):
            files.append(str(rel))
    return files


def oelint_cmd():
    exe = shutil.which("oelint-adv")
    if exe:
        return [exe]
    return [sys.executable, "-m", "oelint_adv"]


FINDING = re.compile(r"^[^:\s][^:]*:\d+:(error|warning|info):[\w.-]+:")


def classify(rc: int, out: str):
    """(findings, crash) of one oelint-adv run: the finding lines
    (`FILE:LINE:SEVERITY:RULE:MESSAGE`) and, when the run did not finish
    its lint, why (exit status and the output's tail)."""
    lines = out.splitlines()
    findings = [ln for ln in lines if FINDING.match(ln)]
    crash = None
    if "Traceback (most recent call last)" in out or "OOPS" in out:
        crash = "a Python exception"
    elif rc == 1 and not findings:
        crash = "exit 1 without a finding (bad arguments?)"
    elif rc == 0 and findings:
        crash = "exit 0 with findings"
    elif rc not in (0, 1):
        crash = f"exit {rc}"
    if crash:
        crash = f"oelint-adv crashed ({crash}):\n" + "\n".join(lines[-30:])
    return findings, crash


def test_classify_tells_a_crash_from_findings():
    """The classification above on real oelint-adv runs: a usage error (exit
    2), a clean file (exit 0, nothing printed) and a file with findings."""
    res = subprocess.run(oelint_cmd() + ["--no-such-option", "x.bb"], capture_output=True, text=True)
    findings, crash = classify(res.returncode, res.stdout + res.stderr)
    assert res.returncode == 2 and crash and not findings, (res.returncode, res.stderr)
    findings, crash = classify(70, "OOPS - That shouldn't happen: boom - ['x.bb']\nTraceback (most recent call last):\n")
    assert crash and "exit 70" not in crash and "exception" in crash
    findings, crash = classify(1, "")
    assert crash and "without a finding" in crash
    res = subprocess.run(oelint_cmd() + ["--quiet", "--relpaths", "recipes-rust/zynq-net-tools/zynq-net-tools-crates.inc"],
                         cwd=ROOT, capture_output=True, text=True)
    findings, crash = classify(res.returncode, res.stdout + res.stderr)
    assert crash is None, crash
    assert res.returncode == (1 if findings else 0), (res.returncode, findings)


def test_oelint_has_files():
    files = lint_files()
    assert any(f.endswith(".bbclass") for f in files), files
    assert any(f.endswith(".bbappend") for f in files), files
    assert "recipes-rust/zynq-net-tools/zynq-net-tools-crates.inc" in files


def test_oelint_clean():
    files = lint_files()
    env = dict(os.environ)
    env.pop("OELINT_CONFIG", None)
    res = subprocess.run(oelint_cmd() + ["--quiet", "--relpaths", "--jobs", "2"] + files,
                         cwd=ROOT, capture_output=True, text=True, env=env)
    findings, crash = classify(res.returncode, res.stdout + res.stderr)
    assert crash is None, crash
    errors = [f for f in findings if ":error:" in f]
    warnings = [f for f in findings if ":warning:" in f]
    infos = [f for f in findings if ":info:" in f]
    print(f"oelint-adv: {len(files)} files, {len(errors)} errors, "
          f"{len(warnings)} warnings, {len(infos)} infos")
    assert not errors, "oelint-adv errors:\n" + "\n".join(errors)
    assert not warnings, "oelint-adv warnings:\n" + "\n".join(warnings)
