"""oelint-adv over every recipe, append, class and include of both layers,
with the project's .oelint.cfg: no errors and no warnings.

Suppressions are either project-wide in .oelint.cfg (each with its reason)
or inline `# nooelint:` comments next to their reason.
"""
import os
import pathlib
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
    findings = [line for line in (res.stdout + res.stderr).splitlines() if ":" in line]
    errors = [f for f in findings if ":error:" in f]
    warnings = [f for f in findings if ":warning:" in f]
    infos = [f for f in findings if ":info:" in f]
    print(f"oelint-adv: {len(files)} files, {len(errors)} errors, "
          f"{len(warnings)} warnings, {len(infos)} infos")
    assert not errors, "oelint-adv errors:\n" + "\n".join(errors)
    assert not warnings, "oelint-adv warnings:\n" + "\n".join(warnings)
