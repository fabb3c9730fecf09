"""The applier suite can see the applier break.

Each entry of mutations.toml is a small realistic bug: an operator swap,
dropped power-of-two rounding, swapped u32 offsets, an inverted on/off, a
skipped read-back, an off-by-one in the CPU
mask, a wrong exit code, a dropped save or restore. For each, this test

1. checks that the anchor occurs exactly once in the file (a stale anchor
   fails here: the test can never pass on a mutation that no longer applies)
   and that the mutant still parses under dash and busybox ash (a syntax
   error would be caught by anything, proving nothing);
2. runs only the tests the entry names, in a child pytest, with the mutant
   as the applier (ZYNQ_NET_APPLIER);
3. asserts that they FAIL (pytest exit 1, a failure in the JUnit report)
   and that the failure's explanation (pytest's `E` lines) shows the
   entry's `expect` text, the mutation's symptom, so that an unrelated
   failure is not counted as a catch.

Before any mutation, the union of the named host tests runs once against
the unmutated sources and must pass without a skip (so a test that fails
anyway cannot "catch" a mutation). The QEMU tests are left out of that run:
they boot a guest (about a minute each) and run unmutated in the same suite
(tests/qemu/); their `expect` text ties the failure to the mutation. Where
QEMU is missing the QEMU-backed entries skip, as the QEMU tests do.
"""
import os
import pathlib
import shutil
import subprocess
import sys
import time
import tomllib
import xml.etree.ElementTree as ET

import pytest

from conftest import ROOT, SHELLS, SOURCE_APPLIER

TABLE = pathlib.Path(__file__).resolve().parent / "mutations.toml"
MUTATIONS = tomllib.loads(TABLE.read_text())["mutation"]
# the environment a child pytest must not inherit from this one
SEAMS = ("ZYNQ_NET_APPLIER",)


def is_qemu(test_id):
    return test_id.startswith("tests/qemu/")


def child_pytest(tests, tmp, env_extra):
    """Runs pytest on TESTS in a child process: (exit code, output, JUnit
    cases as [(name, outcome, text)])."""
    junit = tmp / "junit.xml"
    env = {k: v for k, v in os.environ.items() if k not in SEAMS and not k.startswith("PYTEST_")}
    env.update(env_extra)
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "--tb=short", "-p", "no:cacheprovider",
           "-o", "addopts=", f"--junitxml={junit}", f"--basetemp={tmp / 'bt'}", *tests]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env, timeout=1800)
    cases = []
    if junit.exists():
        for case in ET.parse(junit).getroot().iter("testcase"):
            outcome, text = "passed", ""
            for child in case:
                if child.tag in ("failure", "error", "skipped"):
                    outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[child.tag]
                    text = (child.get("message") or "") + "\n" + (child.text or "")
            cases.append((case.get("name"), outcome, text))
    return r.returncode, r.stdout + r.stderr, cases


def mutant(m, tmp):
    """Writes the mutant: {env var: path} for the child pytest."""
    assert "file" not in m, f"{m['id']}: only the applier is mutated here (templates: render's Rust tests)"
    rel = "applier"
    src, dest, env = SOURCE_APPLIER, tmp / "zynq-net-apply", {"ZYNQ_NET_APPLIER": str(tmp / "zynq-net-apply")}
    text = src.read_text()
    n = text.count(m["anchor"])
    assert n == 1, f"{m['id']}: the anchor occurs {n} times in {src} (must be exactly once):\n{m['anchor']}"
    changed = text.replace(m["anchor"], m["replace"])
    assert changed != text
    dest.write_text(changed)
    if rel == "applier":
        dest.chmod(0o755)
        for name, shell in SHELLS.items():
            r = subprocess.run(shell + ["-n", str(dest)], capture_output=True, text=True)
            assert r.returncode == 0, f"{m['id']}: the mutant does not parse under {name}: {r.stderr}"
    return env


def test_table_is_well_formed():
    ids = [m["id"] for m in MUTATIONS]
    assert len(ids) == len(set(ids)), ids
    for m in MUTATIONS:
        for key in ("id", "kind", "what", "anchor", "replace", "tests", "expect"):
            assert m.get(key), f"{m.get('id')}: no {key}"
        assert m["anchor"] != m["replace"], m["id"]
        for t in m["tests"]:
            assert (ROOT / t.split("::")[0]).exists(), f"{m['id']}: no test file {t}"
    kinds = {m["kind"] for m in MUTATIONS}
    # (an emptied irqbalance ban list is a template bug: render's Rust tests)
    for k in ("operator swap", "dropped rounding", "swapped fields", "inverted on/off", "skipped read-back",
              "off-by-one", "wrong exit code"):
        assert k in kinds, f"no mutation of kind {k!r}"


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    """The named host tests pass on the unmutated sources, none skipped."""
    if os.geteuid() != 0:
        pytest.skip("needs root (the applier tests it runs use network namespaces)")
    tests = sorted({t for m in MUTATIONS for t in m["tests"] if not is_qemu(t)})
    t0 = time.monotonic()
    rc, out, cases = child_pytest(tests, tmp_path_factory.mktemp("baseline"), {})
    secs = time.monotonic() - t0
    bad = [(n, o) for n, o, _ in cases if o != "passed"]
    assert rc == 0 and not bad and len(cases) == len(tests), \
        f"the unmutated sources must pass every named test (exit {rc}, {bad}, {len(cases)}/{len(tests)}):\n{out[-4000:]}"
    print(f"baseline: {len(tests)} tests passed in {secs:.1f}s")
    return tests


@pytest.mark.parametrize("m", MUTATIONS, ids=[m["id"] for m in MUTATIONS])
def test_mutation_is_caught(m, baseline, tmp_path):
    env = mutant(m, tmp_path)
    if any(is_qemu(t) for t in m["tests"]) and not shutil.which("qemu-system-aarch64"):
        pytest.skip(f"{m['id']}: needs qemu-system-aarch64 (scripts/deps/apt.txt)")
    t0 = time.monotonic()
    rc, out, cases = child_pytest(m["tests"], tmp_path, env)
    secs = time.monotonic() - t0
    if cases and all(o == "skipped" for _, o, _ in cases):
        pytest.skip(f"{m['id']}: its tests skipped here: {cases[0][2].strip()[:300]}")
    failed = [(n, t) for n, o, t in cases if o == "failed"]
    assert rc == 1 and failed, \
        f"MISSED {m['id']} ({m['kind']}: {m['what']}): the tests did not fail (exit {rc}, {cases}):\n{out[-3000:]}"
    # the symptom must be in the failure's explanation (pytest's "E" lines),
    # not merely in the test source a traceback quotes
    shown = "\n".join(ln for ln in (out + "".join(t for _, t in failed)).splitlines()
                      if ln.lstrip().startswith("E "))
    assert m["expect"] in shown, \
        f"{m['id']}: the tests failed, but without the symptom {m['expect']!r}:\n{out[-4000:]}"
    print(f"caught {m['id']} ({m['kind']}) by {failed[0][0]} in {secs:.1f}s")
