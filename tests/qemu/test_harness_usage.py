"""The QEMU harnesses refuse bad options with exit 2 before they fetch,
build or boot anything (a typo found after a 20-minute kernel build is a
wasted hour on a fresh machine). Runs on any host: nothing is booted."""
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ["qemu-zcu102", "qemu-p1020", "qemu-zynq7000"]


def run(args, tmp_path):
    # An empty cache: a check that came after a fetch or build would try
    # to fill it (and take far longer than the timeout below).
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "ZYNQ_NET_CACHE": str(tmp_path / "cache")}
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=60, check=False)


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("value", ["abc", "0", "", "-5", "1.5"])
def test_timeout_is_whole_seconds_of_at_least_one(script, value, tmp_path):
    """`timeout 0` is no limit at all and `timeout abc` failed only at boot
    (exit 1, "the guest did not report"): both are usage errors."""
    res = run([str(ROOT / "scripts" / script), "--timeout", value, "--no-boot", "--out", str(tmp_path / "o")], tmp_path)
    assert res.returncode == 2, res.stderr
    # an empty value is a missing value (optval in scripts/qemu-board)
    want = "--timeout needs seconds" if value == "" else f"--timeout {value}: expected whole seconds >= 1"
    assert want in res.stderr, res.stderr
    assert not (tmp_path / "cache").exists(), "refused before the cache was touched"


def test_p1020_kernel_board_must_exist(tmp_path):
    """A missing --kernel-board made the kernel's kconfig check vanish
    silently (exit 0, the error only inside kconfig-report.txt)."""
    res = run([str(ROOT / "scripts/qemu-p1020"), "--kernel-board", str(tmp_path / "none.yml"), "--no-boot"], tmp_path)
    assert res.returncode == 2, res.stderr
    assert "--kernel-board" in res.stderr and "no such file" in res.stderr, res.stderr
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize("script", SCRIPTS)
def test_gen_must_be_gen_output_before_any_download(script, tmp_path):
    """A --gen that is not `zynq-net gen` output is refused at once (the
    ZCU102 harness said so only after ~100 s of apt-cache), and `--gen
    --no-boot` does not take --no-boot for the directory quietly."""
    plain = tmp_path / "plain"
    plain.mkdir()
    for gen, want in ((plain, f"--gen {plain}: not zynq-net gen output"),
                      (tmp_path / "none", f"--gen {tmp_path / 'none'}: not a directory"),
                      ("--no-boot", "--gen needs a directory, not the option --no-boot")):
        res = run([str(ROOT / "scripts" / script), "--gen", str(gen), "--no-boot"], tmp_path)
        assert res.returncode == 2 and want in res.stderr, (gen, res.stderr)
    assert not (tmp_path / "cache").exists(), "refused before the cache was touched"


@pytest.mark.parametrize("machine", ["", "nosuch", "../machines/p1020", "-x", "P1020"])
def test_board_machine_must_be_a_machine_file(machine, tmp_path):
    """scripts/qemu-board takes only the names of scripts/qemu/machines/*.sh
    and lists them when refusing another."""
    args = [str(ROOT / "scripts/qemu-board")] + ([machine] if machine else [])
    res = run(args, tmp_path)
    assert res.returncode == 2, res.stderr
    names = sorted(p.stem for p in (ROOT / "scripts/qemu/machines").glob("*.sh"))
    assert "machines: " + " ".join(names) in res.stderr, res.stderr
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize("script", SCRIPTS)
def test_wrapper_is_qemu_board(script, tmp_path):
    """scripts/qemu-MACHINE is scripts/qemu-board MACHINE: same help."""
    a = run([str(ROOT / "scripts" / script), "--help"], tmp_path)
    b = run([str(ROOT / "scripts/qemu-board"), script.removeprefix("qemu-"), "--help"], tmp_path)
    assert a.returncode == b.returncode == 0 and a.stdout == b.stdout and a.stdout.startswith(f"{script}: "), a


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("args", [["--out"], ["--gen", ""], ["--timeout"], ["--zynq-net"]])
def test_option_without_value_is_named_with_an_example(script, args, tmp_path):
    """A missing or empty value was the shell's own `${2:?}` message
    ("scripts/qemu-board: 147: 2: --gen needs a directory": the program's
    name and a line number instead of the harness's prefix)."""
    res = run([str(ROOT / "scripts" / script), *args], tmp_path)
    assert res.returncode == 2, res.stderr
    assert res.stderr.startswith(f"{script}: {args[0]} needs "), res.stderr
    assert f"(e.g. {args[0]} " in res.stderr and "see --help" in res.stderr, res.stderr
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize("script, board, driver", [("qemu-p1020", "zc702", "fsl-gianfar"),
                                                   ("qemu-zynq7000", "p1020rdb", "macb"),
                                                   ("qemu-zcu102", "p1020rdb", "macb")])
def test_gen_of_a_board_on_another_driver_is_refused(script, board, driver, gen_board, tmp_path):
    """`qemu-zynq7000 --gen <p1020rdb gen>` built a kernel from the other
    board's fragments (about 7 minutes) before anything failed."""
    gen = gen_board(board)
    res = run([str(ROOT / "scripts" / script), "--gen", str(gen), "--no-boot"], tmp_path)
    assert res.returncode == 2, res.stderr
    assert f"--gen {gen}: its board has no {driver} interface" in res.stderr, res.stderr
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize("script", SCRIPTS)
def test_out_zynq_net_and_qemu_are_checked_before_the_build(script, tmp_path):
    """--out a file failed at `mkdir` after the whole build (exit 1, the
    code for a failed boot); --out / or a directory of other files would
    be written into; a missing --zynq-net left its verify broken inside a
    report on two of the three machines."""
    f = tmp_path / "file"
    f.write_text("x")
    full = tmp_path / "full"
    full.mkdir()
    (full / "precious.txt").write_text("x")
    cases = [(["--out", str(f)], f"--out {f}: exists and is not a directory"),
             (["--out", "/"], "--out /: is /"),
             (["--out", str(full)], f"--out {full}: not empty and not an earlier run's results"),
             (["--zynq-net", str(tmp_path / "none")], f"--zynq-net {tmp_path / 'none'}: not an executable file"),
             (["--zynq-net", str(tmp_path)], f"--zynq-net {tmp_path}: not an executable file")]
    for args, want in cases:
        res = run([str(ROOT / "scripts" / script), *args, "--no-boot"], tmp_path)
        assert res.returncode == 2 and want in res.stderr, (args, res.stderr)
    assert (full / "precious.txt").exists()
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize("script", SCRIPTS)
def test_timeout_of_more_than_six_digits_is_refused(script, tmp_path):
    """A 20-digit --timeout overflowed the shell's arithmetic in the boot's
    deadline (a negative or wrapped deadline) instead of being refused."""
    res = run([str(ROOT / "scripts" / script), "--timeout", "9" * 20, "--no-boot"], tmp_path)
    assert res.returncode == 2, res.stderr
    assert "expected whole seconds >= 1: at most 6 digits, no leading 0" in res.stderr, res.stderr
    # a leading 0 would be octal in dash's arithmetic: refused, saying so
    lead = run([str(ROOT / "scripts" / script), "--timeout", "007", "--no-boot"], tmp_path)
    assert lead.returncode == 2 and "--timeout 007: " in lead.stderr and "no leading 0" in lead.stderr, lead.stderr
    ok = run([str(ROOT / "scripts" / script), "--timeout", "999999", "--smp", "0"], tmp_path)
    assert ok.returncode == 2 and "--timeout" not in ok.stderr and "--smp 0" in ok.stderr, ok.stderr


@pytest.mark.parametrize("script", ["qemu-p1020", "qemu-zcu102"])
def test_lab_subnet_without_lab_is_refused(script, tmp_path):
    """--lab-subnet without --lab was ignored silently: the user believed
    the lab ran on another subnet."""
    res = run([str(ROOT / "scripts" / script), "--lab-subnet", "3", "--no-boot"], tmp_path)
    assert res.returncode == 2 and "--lab-subnet needs --lab" in res.stderr, res.stderr
    assert not (tmp_path / "cache").exists()


def test_an_option_of_another_machine_names_the_machines_that_take_it(tmp_path):
    """The Zynq-7000 said "unknown argument: --lab", as for a typo; the
    option exists, on other machines (their files' `options=` lines)."""
    res = run([str(ROOT / "scripts/qemu-zynq7000"), "--lab", "x"], tmp_path)
    assert res.returncode == 2, res.stderr
    assert "--lab: not an option of qemu-zynq7000 (taken by: p1020 zcu102; see --help)" in res.stderr, res.stderr
    typo = run([str(ROOT / "scripts/qemu-zynq7000"), "--lba", "x"], tmp_path)
    assert typo.returncode == 2 and "unknown argument: --lba" in typo.stderr, typo.stderr


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_symlink_to_the_program_finds_its_machines(script, tmp_path):
    """A symlink to scripts/qemu-board (or a wrapper) in another directory
    looked for the machine files beside the link and found none."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "qb").symlink_to(ROOT / "scripts/qemu-board")
    (bindir / script).symlink_to(ROOT / "scripts" / script)
    a = run([str(bindir / "qb"), script.removeprefix("qemu-"), "--help"], tmp_path)
    b = run([str(bindir / script), "--help"], tmp_path)
    assert a.returncode == b.returncode == 0 and a.stdout == b.stdout and a.stdout.startswith(f"{script}: "), (a, b)


@pytest.mark.parametrize("script", ["qemu-p1020", "qemu-zcu102"])
def test_cached_only_with_an_empty_cache_downloads_nothing(script, tmp_path):
    """--cached-only ran apt-get update and `apt-get source` before its
    exit 3 (minutes on a fresh machine; offline it failed with exit 2,
    "apt-get update failed"). It now stops at the first thing the cache
    lacks, the package lists, and says so."""
    res = run([str(ROOT / "scripts" / script), "--cached-only", "--no-boot"], tmp_path)
    assert res.returncode == 3, res.stderr
    assert "--cached-only: no " in res.stderr and "package lists in" in res.stderr, res.stderr
    assert "apt-get update" not in res.stderr and "apt-get source" not in res.stderr, res.stderr


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("option", ["--out", "--timeout", "--gen"])
def test_an_option_is_not_taken_for_a_missing_value(script, option, tmp_path):
    """`--out --cached-only` took --cached-only as the directory, so the
    run was not cached-only: it downloaded 348 MB (helper trial)."""
    res = run([str(ROOT / "scripts" / script), option, "--cached-only", "--no-boot"], tmp_path)
    assert res.returncode == 2, res.stderr
    assert f"{option} needs " in res.stderr and "not the option --cached-only" in res.stderr, res.stderr
    assert not (tmp_path / "cache").exists(), "refused before the cache was touched"
