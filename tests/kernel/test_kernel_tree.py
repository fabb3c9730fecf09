"""scripts/kernel-tree on a cold cache, called by many at once.

cargo's test threads (tools/crates/zynq-net-cli/tests/dtb_verify.rs) and a
mutation run beside them each call it before the tree exists. Before the
lock, each unpacked its own copy, removed the others' tree while tests read
it, and failed on `mv` ("Directory not empty"), leaving copies of 1.4 GB
behind. Here a small tarball of the same layout (a top directory
linux-source-6.12/, as Debian's /usr/src/linux-source-6.12.tar.xz has)
stands in for the real one: the race is in the script, not in the tree.
"""
import pathlib
import subprocess
import tarfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "kernel-tree"


def tarball(tmp_path, files):
    src = tmp_path / "src" / "linux-source-6.12"
    src.mkdir(parents=True)
    for name, text in files.items():
        (src / name).write_text(text)
    # many files, so that the unpack takes long enough for the calls to overlap
    for i in range(2000):
        (src / f"f{i}").write_text("x" * 512)
    tb = tmp_path / "linux.tar.xz"
    with tarfile.open(tb, "w:xz") as t:
        t.add(src, arcname="linux-source-6.12")
    return tb


def start(cache, tb):
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "ZYNQ_NET_CACHE": str(cache), "ZYNQ_NET_LINUX_TARBALL": str(tb)}
    return subprocess.Popen([str(SCRIPT)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_concurrent_calls_on_a_cold_cache_share_one_tree(tmp_path):
    tb = tarball(tmp_path, {"Makefile": "VERSION = 6\n"})
    cache = tmp_path / "cache"
    procs = [start(cache, tb) for _ in range(8)]
    results = [(p.wait(timeout=120), p.stdout.read(), p.stderr.read()) for p in procs]
    for rc, out, err in results:
        assert rc == 0, err
        assert out == f"{cache}/linux-source-6.12\n"
    tree = cache / "linux-source-6.12"
    assert (tree / "Makefile").read_text() == "VERSION = 6\n"
    assert (tree / ".unpacked").is_file() and len(list(tree.iterdir())) == 2002
    # no unpack left behind, and no tree inside the tree
    assert sorted(p.name for p in cache.iterdir()) == ["linux-source-6.12", "linux-source-6.12.lock"]


def test_an_interrupted_unpack_is_redone(tmp_path):
    """A tree without its mark (an unpack stopped before the rename, from an
    older script) is replaced, not used."""
    tb = tarball(tmp_path, {"Makefile": "VERSION = 6\n"})
    cache = tmp_path / "cache"
    (cache / "linux-source-6.12").mkdir(parents=True)
    (cache / "linux-source-6.12" / "half").write_text("")
    p = start(cache, tb)
    assert p.wait(timeout=120) == 0, p.stderr.read()
    assert not (cache / "linux-source-6.12" / "half").exists()
    assert (cache / "linux-source-6.12" / "Makefile").is_file()


@pytest.mark.parametrize("layout", ["missing", "directory", "not-a-tarball", "wrong-top"])
def test_a_bad_tarball_is_an_error_and_leaves_nothing(tmp_path, layout):
    cache = tmp_path / "cache"
    if layout == "missing":
        tb = tmp_path / "none.tar.xz"
    elif layout == "directory":
        tb = tmp_path
    elif layout == "not-a-tarball":
        tb = tmp_path / "text.tar.xz"
        tb.write_text("not a tarball\n")
    else:
        (tmp_path / "other").mkdir()
        tb = tmp_path / "other.tar.xz"
        with tarfile.open(tb, "w:xz") as t:
            t.add(tmp_path / "other", arcname="linux-6.12")
    p = start(cache, tb)
    assert p.wait(timeout=60) == 1
    err = p.stderr.read()
    assert "kernel-tree:" in err and str(tb) in err, err
    assert p.stdout.read() == ""
    left = sorted(x.name for x in cache.iterdir()) if cache.exists() else []
    assert left in ([], ["linux-source-6.12.lock"]), left
