"""The CI's stage table (scripts/lib/stage-times.sh, tests/conftest.py):
one line per pytest test group, written by the outermost pytest run only.

tests/applier's mutation tests run pytest inside pytest, on a planted bug,
and expect that child run to fail; the child used to inherit
ZYNQ_NET_STAGE_TIMES and add its own "pytest tests/applier ... rc 1" line
to the table of a run that passed. Here a pytest run (with the variable set,
as tests/run-all under .ci/run) runs a test that starts a failing child
pytest and a `stage` of stage-times.sh: the table gets the outer run's line
alone.
"""
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def run_outer(tmp_path, test):
    """Runs pytest on tests/ci/nested_runs.py::TEST with
    ZYNQ_NET_STAGE_TIMES set: (pytest's exit code and output, the stage
    lines written, split at tabs)."""
    times = tmp_path / "stages.tsv"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["ZYNQ_NET_STAGE_TIMES"] = str(times)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                        f"--basetemp={tmp_path / 'bt'}", f"tests/ci/nested_runs.py::{test}"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    lines = times.read_text().splitlines() if times.exists() else []
    return r.returncode, r.stdout + r.stderr, [line.split("\t") for line in lines]


def test_a_nested_pytest_run_adds_no_line(tmp_path):
    rc, out, lines = run_outer(tmp_path, "test_runs_a_failing_child_pytest_and_a_stage")
    assert rc == 0, out
    # one line: the outer run's group, passed (no "rc 1" of the child, no
    # line of the stage the test ran)
    assert [(name, failed) for name, _wall, _cpu, failed in lines] == [("pytest tests/ci", "0")], (lines, out)

