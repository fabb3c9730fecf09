"""No circle of files in any crate of the workspace.

A file (a top-level module: `foo.rs` or `foo/`) that imports another which
imports it back cannot be read, tested or moved alone; the model crate had
two such circles only because string helpers sat in the wrong file. The
graph here is read from the non-test code of each crate: every
`crate::NAME` path (in `use` or inline) is an edge from the file to the
top-level module NAME; comments and the `#[cfg(test)]` module at a file's
end are left out. The crates themselves form a DAG by Cargo's rules.

In the bench crate, the presenters (the reports, charts, comparisons and
the table writers) and the records they read import no runner: a result
record lives in `records` (the tester's in `records/tester.rs`), so a
presenter can be read and tested without the code that measures.
"""
from __future__ import annotations

import pathlib
import re

import pytest

CRATES = pathlib.Path(__file__).resolve().parents[2] / "tools" / "crates"
PATH = re.compile(r"\bcrate::([a-z_][a-z_0-9]*)")


def code(text: str) -> str:
    """`text` without comment lines and without the test module that ends
    the file."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("//")]
    out = []
    for i, line in enumerate(lines):
        if line.strip() == "#[cfg(test)]":
            j = i + 1
            while j < len(lines) and lines[j].lstrip().startswith("#["):
                j += 1
            if j < len(lines) and re.match(r"\s*(pub(\(crate\))? )?mod \w+ \{", lines[j]):
                break
        out.append(line)
    return "\n".join(out)


def graph(crate: pathlib.Path) -> dict[str, set[str]]:
    """Top-level module -> the top-level modules its non-test code names."""
    src = crate / "src"
    g: dict[str, set[str]] = {}
    for f in sorted(src.rglob("*.rs")):
        top = f.relative_to(src).parts[0].removesuffix(".rs")
        if top in ("lib", "main"):
            continue
        edges = g.setdefault(top, set())
        edges.update(m for m in PATH.findall(code(f.read_text())) if m != top)
    return g


def circles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def test_a_planted_circle_is_found():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []
    src = "use crate::b;\n// crate::c in a comment\nfn f() { crate::d::x(); }\n#[cfg(test)]\nmod tests {\n    use crate::e;\n}\n"
    assert set(PATH.findall(code(src))) == {"b", "d"}
    src = "#[cfg(test)]\nfn helper() { crate::f::x(); }\n#[cfg(test)]\n#[allow(clippy::unwrap_used)]\nmod tests {\n    use crate::e;\n}\n"
    assert set(PATH.findall(code(src))) == {"f"}


@pytest.mark.parametrize("crate", sorted(p.name for p in CRATES.iterdir() if (p / "src").is_dir()))
def test_no_circle_of_files(crate):
    g = graph(CRATES / crate)
    assert len(g) > 1, g
    assert circles(g) == [], f"{crate}: files importing each other: {circles(g)}\n{g}"


# The bench crate's modules that run or measure something (processes,
# namespaces, searches), and those that only present results.
RUNNERS = {"ablate", "commands", "exec", "interrupt", "lab", "latency", "rfc2544", "rfc2544_suite", "run", "suite",
           "tester", "tester_targets"}
PRESENTERS = {"chart", "compare", "records", "report", "table"}


def presenter_imports(g: dict[str, set[str]]) -> dict[str, list[str]]:
    """Each presenter that imports a runner, with the runners."""
    return {p: sorted(g[p] & RUNNERS) for p in sorted(PRESENTERS) if g.get(p, set()) & RUNNERS}


def test_no_presenter_imports_a_runner():
    g = graph(CRATES / "zynq-net-bench")
    assert RUNNERS | PRESENTERS <= set(g), sorted(RUNNERS | PRESENTERS - set(g))
    assert presenter_imports(g) == {}, f"presenters importing runners: {presenter_imports(g)}"
    # compare imported the tester's record types from three runners until
    # they moved to records/tester.rs: an edge like those is seen
    planted = {k: set(v) for k, v in g.items()}
    planted["compare"] |= {"rfc2544_suite", "suite"}
    assert presenter_imports(planted) == {"compare": ["rfc2544_suite", "suite"]}
