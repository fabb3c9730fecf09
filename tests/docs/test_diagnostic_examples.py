"""The diagnostics the docs show are the ones the tool prints.

README.md, docs/board-format.md and docs/bench.md show what `check` and the
bench commands print for bad input (rule id, FILE:LINE:COL, message, the
source line with its caret, the hint). Each example here is rebuilt from a
reference board (or the bench file docs/bench.md shows) with one line
changed, run through the real binary, and its whole block must appear in
the output as the docs print it. A diagnostic example added to the docs
without a way to rebuild it fails the inventory test.
"""
from __future__ import annotations

import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# A diagnostic's first line: `error[ID]: FILE:LINE:COL: message`.
HEAD = re.compile(r"^(error|warning)\[[a-z0-9-]+\]: (\S+):(\d+):(\d+): ")


def bench_example() -> str:
    """The bench file docs/bench.md shows, without its `# bench.yml` title
    line (the docs' diagnostic counts lines from `matrix:`)."""
    text = (ROOT / "docs" / "bench.md").read_text()
    block = text.split("# bench.yml\n", 1)[1].split("```", 1)[0]
    return block


def board(name: str) -> str:
    return (ROOT / "meta-zynq-net" / "boards" / name).read_text()


# First line of each example -> (input text, line (1-based), old, new,
# command after the binary; FILE is the input's path).
RECIPES = {
    "error[cpu-range]: zcu102.yml:63:27:": (board("zcu102.yml"), 63, '"2-3"', '"2-35"', ["check", "FILE"]),
    "error[ring-pow2]: p1020rdb.yml:36:18:": (board("p1020rdb.yml"), 36, "rx: 32,", "rx: 100,", ["check", "FILE"]),
    "warning[ring-rounded]: zcu102.yml:36:18:": (board("zcu102.yml"), 36, "rx: 1024,", "rx: 1000,", ["check", "FILE"]),
    "error[bench-streams]: bench.yml:5:16:": (
        bench_example(), 5, "[1, 2]", "[1, 200]", ["bench", "plan", "FILE", "-o", "OUT/plan.json"]),
}


def examples() -> list[tuple[str, str, list[str]]]:
    """(doc:line, key, the example's lines) for every diagnostic example in
    a fenced block of the docs: the head line and the lines after it up to
    the fence or the next head."""
    out = []
    for doc in DOCS:
        fenced = False
        lines = doc.read_text().splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.startswith("```"):
                fenced = not fenced
            elif fenced and HEAD.match(line):
                block = [line]
                j = i + 1
                while j < len(lines) and not lines[j].startswith("```") and not HEAD.match(lines[j]):
                    block.append(lines[j])
                    j += 1
                m = HEAD.match(line)
                key = line[: m.end() - 1]
                out.append((f"{doc.relative_to(ROOT)}:{i + 1}", key, block))
                i = j
                continue
            i += 1
    return out


def test_every_diagnostic_example_in_the_docs_can_be_rebuilt():
    found = examples()
    assert len(found) >= len(RECIPES), found
    unknown = [(where, key) for where, key, _ in found if key not in RECIPES]
    assert not unknown, f"diagnostic examples with no recipe here: {unknown}"
    unused = set(RECIPES) - {key for _, key, _ in found}
    assert not unused, f"recipes whose example left the docs: {unused}"


@pytest.mark.parametrize("where,key,block", examples(), ids=lambda v: v if isinstance(v, str) and ":" in v else None)
def test_the_example_is_what_the_tool_prints(zynq_net, tmp_path, where, key, block):
    text, line, old, new, command = RECIPES[key]
    lines = text.splitlines(keepends=True)
    assert lines[line - 1].count(old) == 1, (line, lines[line - 1])
    lines[line - 1] = lines[line - 1].replace(old, new)
    name = HEAD.match(block[0]).group(2)
    path = tmp_path / name
    path.write_text("".join(lines))
    argv = [str(zynq_net)] + [a.replace("FILE", name).replace("OUT", str(tmp_path)) for a in command]
    r = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path, timeout=60)
    printed = r.stdout + r.stderr
    assert r.returncode == (1 if key.startswith("error") else 0), printed
    shown = "\n".join(block).rstrip("\n")
    assert shown in printed, f"{where} shows\n{shown}\nthe tool printed\n{printed}"
