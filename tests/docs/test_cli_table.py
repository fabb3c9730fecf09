"""docs/cli.md's command table held to the command tree `zynq-net` has.

The table (command, exit 0/1/2) is the user's map of the CLI. It went stale
once (no `rules`, no `bench rfc2544-tester`): every leaf command of the real
binary's `--help` tree must have a row, and every row must name commands
that exist.
"""
from __future__ import annotations

import pathlib
import re
import subprocess

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def subcommands(zynq_net, path: tuple[str, ...]) -> list[str]:
    """The `Commands:` section of `zynq-net PATH --help`, without `help`."""
    out = subprocess.run([str(zynq_net), *path, "--help"], capture_output=True, text=True, check=True).stdout
    names, inside = [], False
    for line in out.splitlines():
        if line.strip() == "Commands:":
            inside = True
        elif inside and not line.startswith("  "):
            inside = False
        elif inside:
            name = line.split()[0]
            if name != "help":
                names.append(name)
    return names


def leaves(zynq_net, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    subs = subcommands(zynq_net, path)
    if not subs:
        return [path]
    return [leaf for s in subs for leaf in leaves(zynq_net, (*path, s))]


def table_commands(text: str) -> list[tuple[str, ...]]:
    """Command paths of the first table's rows: `` `bench plan\\|run ARGS` ``
    gives (bench, plan) and (bench, run); words in capitals and options are
    arguments, not commands."""
    paths = []
    for line in text.splitlines():
        m = re.match(r"\| `([^`]+)`[^|]*\|", line)
        if not m:
            continue
        words = []
        for w in m.group(1).replace("\\|", "|").split():
            if w.startswith("-") or w.startswith("[") or w.isupper() or "." in w:
                break
            words.append(w.split("|"))
        alts = [()]
        for choice in words:
            alts = [(*a, c) for a in alts for c in choice]
        paths.extend(alts)
    return paths


def test_table_parser_expands_alternatives():
    rows = "| `lab up\\|down ARGS` | a |\n| `check BOARD` | b |\n| `rules [RULE]` | c |\n"
    assert table_commands(rows) == [("lab", "up"), ("lab", "down"), ("check",), ("rules",)]


def test_every_command_has_a_row_and_every_row_a_command(zynq_net):
    have = set(leaves(zynq_net))
    documented = table_commands(DOC.read_text())
    assert len(have) > 10, have
    missing = sorted(" ".join(p) for p in have - set(documented))
    stale = sorted(" ".join(p) for p in set(documented) - have)
    assert not missing, f"docs/cli.md's table has no row for: {missing}"
    assert not stale, f"docs/cli.md's table names commands zynq-net does not have: {stale}"
