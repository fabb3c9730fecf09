"""docs/farm.md's LAVA job (section "LAVA: the documented path, and why no
exporter") validated by LAVA's own job schema: `lava_common.schemas.validate`
of Debian's `lava-common` (scripts/deps/apt.txt), run by the system Python
it installs into. A copy with a deploy method LAVA does not have must be
refused, so a validator that accepts anything fails the test.

Not covered: running the job (that needs a LAVA worker with a ZCU102).
"""
import pathlib
import re
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "farm.md"
MARK = "<!-- lava job: validated by tests/farm/test_farm_lava.py -->"
VALIDATE = r"""
import sys
import yaml
from lava_common.schemas import validate
job = yaml.safe_load(sys.stdin.read())
try:
    validate(job, strict=True)
except Exception as e:
    print(f"{type(e).__name__}: {e}")
    sys.exit(1)
print("valid")
"""


def lava_python():
    for py in ("/usr/bin/python3", shutil.which("python3")):
        if py and subprocess.run([py, "-c", "import lava_common.schemas, yaml"], capture_output=True).returncode == 0:
            return py
    pytest.skip("lava-common is not installed (Debian lava-common, scripts/deps/apt.txt)")


def doc_job():
    text = DOC.read_text()
    assert text.count(MARK) == 1, f"{DOC}: the LAVA job block is marked once"
    m = re.search(re.escape(MARK) + r"\n```yaml\n(.*?)\n```", text, re.S)
    assert m, f"{DOC}: a ```yaml block right after the marker"
    return m.group(1) + "\n"


def validate(py, text):
    return subprocess.run([py, "-c", VALIDATE], input=text, capture_output=True, text=True, timeout=60)


def test_docs_lava_job_is_valid_for_lava():
    py = lava_python()
    job = doc_job()
    r = validate(py, job)
    assert r.returncode == 0 and r.stdout.strip() == "valid", r.stdout + r.stderr
    # the applier's status command and the plan path are the ones the image installs
    assert "zynq-net-apply status --json /etc/zynq-net/zynq-net.plan" in job
    bad = job.replace("to: tftp", "to: tftp-please")
    assert bad != job
    r = validate(py, bad)
    assert r.returncode == 1 and "deploy" in r.stdout, r.stdout + r.stderr
