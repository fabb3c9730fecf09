"""Tests run by tests/ci/test_stage_times.py in a pytest of its own (not
collected by the normal run: the file name is not test_*.py)."""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent


def test_runs_a_failing_child_pytest_and_a_stage(tmp_path):
    # what the applier's mutation tests do: a child pytest that fails
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                        f"--basetemp={tmp_path / 'bt'}", "tests/ci/nested_runs.py::test_fails"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    # and a stage of scripts/lib/stage-times.sh
    r = subprocess.run(["sh", "-c", '. scripts/lib/stage-times.sh && stage "inner stage" false; echo "rc $?"'],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert r.stdout == "rc 1\n", r.stdout + r.stderr


def test_fails():
    assert False, "fails on purpose (tests/ci/test_stage_times.py runs it)"
