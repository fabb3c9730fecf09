"""The end line of a hand-written plan, shared by the system tests
(tests/ is on sys.path through tests/conftest.py)."""
import subprocess


def seal_plan(text: str) -> str:
    """A hand-written plan body plus its end line (docs/plan-format.md):
    `end STEPS CKSUM BYTES`, the checksum from the real `cksum` program."""
    if not text.endswith("\n"):
        text += "\n"
    lines = [line for line in text.splitlines() if line.strip(" \t") and not line.startswith("#")]
    steps = len(lines) - 1  # the version line is not a step
    crc, size = subprocess.run(["cksum"], input=text.encode(), capture_output=True,
                               check=True).stdout.split()
    return f"{text}end {steps} {int(crc)} {int(size)}\n"
