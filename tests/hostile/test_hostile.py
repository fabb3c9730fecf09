"""The hostile-input corpus: inputs and their expected outcomes as data
(cases.toml), each run against the real `zynq-net` binary or the real
applier (under dash and busybox ash).

A case is one table of cases.toml:
  id, what      name and what a careless or hostile user did
  kind          "board": `zynq-net ARGS` with the board written first;
                "plan": the applier's `status` on a plan (sealed with the
                real `cksum` unless `seal = false`), against an empty sysfs
  board         the board: "ref:NAME" (meta-zynq-net/boards/NAME.yml),
                "file:NAME" (tests/hostile/inputs/NAME) or the text itself
  edit          [[old, new], ...] replacements applied to that text, each
                required to match (a stale edit fails instead of passing)
  name          the file name the board is written under (may hold control
                characters); fifo = true: a named pipe with nobody writing
  args          the command line; {board} is the board's path, {out} a new
                output directory
  stdin         text given on standard input (default: none, /dev/null)
  plan          the plan text (kind "plan")
  exit          the expected exit status
  stdout, stderr            substrings that must appear
  stdout_not, stderr_not    substrings that must not
Every run has a 30 s timeout: a hang is a failure, not a stuck CI job.
"""
import os
import pathlib
import subprocess
import tomllib

import pytest



HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CASES = tomllib.loads((HERE / "cases.toml").read_text())["case"]
BOARDS = ROOT / "meta-zynq-net" / "boards"
APPLIER = pathlib.Path(os.environ.get("ZYNQ_NET_APPLIER")
                       or ROOT / "tools/crates/zynq-net-render/assets/zynq-net-apply.sh")
BY_KIND = {k: [c for c in CASES if c["kind"] == k] for k in ("board", "plan")}


def test_corpus_is_well_formed():
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids)), "duplicate ids"
    for c in CASES:
        assert c["kind"] in BY_KIND, c["id"]
        assert "exit" in c and c.get("what"), c["id"]


def board_text(case) -> str:
    src = case.get("board", "ref:zcu102")
    if src.startswith("ref:"):
        text = (BOARDS / f"{src[4:]}.yml").read_text()
    elif src.startswith("file:"):
        text = (HERE / "inputs" / src[5:]).read_text()
    else:
        text = src
    for old, new in case.get("edit", []):
        assert old in text, f"{case['id']}: edit {old!r} matches nothing (stale case)"
        text = text.replace(old, new, 1)
    return text


def check(case, r):
    out, err = r.stdout, r.stderr
    ctx = f"{case['id']}: {case['what']}\nexit {r.returncode}\nstdout:\n{out}\nstderr:\n{err}"
    assert r.returncode == case["exit"], ctx
    for s in case.get("stdout", []):
        assert s in out, f"stdout lacks {s!r}\n{ctx}"
    for s in case.get("stderr", []):
        assert s in err, f"stderr lacks {s!r}\n{ctx}"
    for s in case.get("stdout_not", []):
        assert s not in out, f"stdout has {s!r}\n{ctx}"
    for s in case.get("stderr_not", []):
        assert s not in err, f"stderr has {s!r}\n{ctx}"


@pytest.mark.parametrize("case", BY_KIND["board"], ids=[c["id"] for c in BY_KIND["board"]])
def test_hostile_board(case, zynq_net, tmp_path):
    board = tmp_path / case.get("name", "board.yml")
    if case.get("fifo"):
        os.mkfifo(board)
    else:
        board.write_text(board_text(case))
    args = [a.replace("{board}", str(board)).replace("{out}", str(tmp_path / "out")) for a in case["args"]]
    stdin = case.get("stdin")
    if stdin == "@board":
        stdin = board_text(case)
    r = subprocess.run([str(zynq_net)] + args, capture_output=True, text=True, timeout=30, cwd=tmp_path,
                       input=stdin if stdin is not None else "",
                       errors="surrogateescape")
    check(case, r)
    if case["exit"] != 0 and "gen" in args:
        assert not (tmp_path / "out").exists(), f"{case['id']}: a refused gen wrote its output"


@pytest.mark.parametrize("shell", [["dash"], ["busybox", "sh"]], ids=["dash", "busybox-ash"])
@pytest.mark.parametrize("case", BY_KIND["plan"], ids=[c["id"] for c in BY_KIND["plan"]])
def test_hostile_plan(case, shell, tmp_path):
    from plan_seal import seal_plan
    text = case["plan"]
    plan = tmp_path / "p.plan"
    plan.write_text(seal_plan(text) if case.get("seal", True) else text)
    env = dict(os.environ, ZYNQ_NET_SYS=str(tmp_path / "sys"), ZYNQ_NET_PROC=str(tmp_path / "proc"),
               ZYNQ_NET_WAIT_MAX="0", ZYNQ_NET_STATE=str(tmp_path / "state"),
               ZYNQ_NET_LOCK=str(tmp_path / "lock"), ZYNQ_NET_LOG=str(tmp_path / "log"))
    r = subprocess.run(shell + [str(APPLIER), "status", str(plan)], capture_output=True, text=True,
                       timeout=30, env=env)
    check(case, r)
