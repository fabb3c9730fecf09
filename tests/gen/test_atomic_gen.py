"""`zynq-net gen -o DIR` against SIGKILL and against another `gen`: DIR is
the old output or the new one at every instant, never missing or mixed
(tools/crates/zynq-net-render/src/write.rs, `place`: renameat2 with
RENAME_NOREPLACE / RENAME_EXCHANGE).

The kill points come from strace's fault injection (`-e inject=SYSCALL:
signal=KILL:when=N`: SIGKILL on entering the Nth call, so the call never
runs): before each rename, at each unlinkat after the swap (removing
the old output), at each openat/mkdir of the staging. After every kill DIR
must hold exactly the old or the new output, and the next `gen` must
succeed and leave no staging directory beside it. A power cut is not
simulated (no device-mapper flakey target here); the files are synced
before the rename (write.rs).
"""
import os
import pathlib
import shutil
import subprocess

import pytest

# The reference boards (as tests/conftest.py names them; not imported from
# there: `conftest` resolves to whichever conftest.py pytest loaded last).
BOARDS = pathlib.Path(__file__).resolve().parent.parent.parent / "meta-zynq-net" / "boards"


# every rename system call (Rust's fs::rename is rename(2) or renameat(2);
# rustix's renameat_with is renameat2(2)); strace counts each separately
RENAMES = "rename,renameat,renameat2"


def tree(d: pathlib.Path):
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def boards(tmp_path_factory, zynq_net):
    """(old board, new board, old tree, new tree): zcu102 and the same with
    another MTU on eth0."""
    d = tmp_path_factory.mktemp("atomic")
    old = d / "old.yml"
    new = d / "new.yml"
    text = (BOARDS / "zcu102.yml").read_text()
    old.write_text(text)
    changed = text.replace("mtu: 1500", "mtu: 1504", 1)
    assert changed != text, "zcu102.yml has no `mtu: 1500` to change"
    new.write_text(changed)
    trees = []
    for b in (old, new):
        out = d / f"ref-{b.stem}"
        subprocess.run([str(zynq_net), "gen", str(b), "-o", str(out)], check=True, capture_output=True)
        trees.append(tree(out))
    assert trees[0] != trees[1]
    return old, new, trees[0], trees[1]


def gen(zynq_net, board, out, strace=None):
    cmd = [str(zynq_net), "gen", str(board), "-o", str(out)]
    if strace:
        cmd = ["strace", "-f", "-o", "/dev/null", "-e", f"inject={strace}:signal=KILL"] + cmd
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def leftovers(parent: pathlib.Path):
    return sorted(p.name for p in parent.iterdir() if p.name.startswith(".zynq-net-"))


def test_sigkill_at_each_rename_leaves_old_or_new(boards, zynq_net, tmp_path):
    if shutil.which("strace") is None:
        pytest.skip("strace not installed (scripts/install-deps)")
    old, new, t_old, t_new = boards
    work = tmp_path / "w"
    work.mkdir()
    out = work / "out"
    points = [f"{RENAMES}:when={n}" for n in (1, 2, 3)] + [f"unlinkat:when={n}" for n in (1, 2, 5, 10)] \
        + [f"openat:when={n}" for n in range(1, 40, 3)] + [f"mkdir:when={n}" for n in range(1, 16, 3)]
    seen = {"old": 0, "new": 0, "completed": 0}
    for point in points:
        r = gen(zynq_net, old, out)
        assert r.returncode == 0, r.stderr
        assert tree(out) == t_old
        r = gen(zynq_net, new, out, strace=point)
        assert out.is_dir(), f"killed at {point}: {out} is missing ({leftovers(work)})"
        got = tree(out)
        assert got in (t_old, t_new), f"killed at {point}: {out} is neither the old nor the new output"
        if r.returncode == 0:
            seen["completed"] += 1
        else:
            assert r.returncode == 137 or "+++ killed by SIGKILL" in r.stderr or r.returncode < 0, \
                f"{point}: exit {r.returncode}: {r.stderr}"
            seen["old" if got == t_old else "new"] += 1
    # both sides of the swap were hit
    assert seen["old"] and seen["new"], seen
    r = gen(zynq_net, new, out)
    assert r.returncode == 0, r.stderr
    assert tree(out) == t_new
    assert leftovers(work) == [], "a later gen removes what killed runs left"
    print(f"{len(points)} kill points: {seen}")


def test_sigkill_before_the_first_output(boards, zynq_net, tmp_path):
    """DIR does not exist yet: killed before its rename it still does not
    (nothing half-made), after it it is complete."""
    if shutil.which("strace") is None:
        pytest.skip("strace not installed (scripts/install-deps)")
    old, _, t_old, _ = boards
    out = tmp_path / "out"
    r = gen(zynq_net, old, out, strace=f"{RENAMES}:when=1")
    assert r.returncode != 0 and not out.exists()
    r = gen(zynq_net, old, out)
    assert r.returncode == 0 and tree(out) == t_old and leftovers(tmp_path) == []


def test_concurrent_gens_into_one_dir(boards, zynq_net, tmp_path):
    old, new, t_old, t_new = boards
    out = tmp_path / "out"
    for i in range(30):
        procs = [subprocess.Popen([str(zynq_net), "gen", str(b), "-o", str(out)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for b in (old, new)]
        for p in procs:
            _, err = p.communicate(timeout=120)
            assert p.returncode == 0, f"round {i}: exit {p.returncode}: {err}"
        assert tree(out) in (t_old, t_new), f"round {i}"
        assert leftovers(tmp_path) == [], f"round {i}: {leftovers(tmp_path)}"
    assert os.listdir(tmp_path) == ["out"]
