"""scripts/yocto-host-check: its tool list is poky's (HOSTTOOLS of
meta/conf/bitbake.conf, SANITY_REQUIRED_UTILITIES of sanity.bbclass, in the
poky snapshot at the kas pin), and it lists everything missing in one go."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SCRIPT = ROOT / "scripts" / "yocto-host-check"
sys.path.insert(0, str(HERE))
import snapshots  # noqa: E402


def script_list(name: str) -> set:
    m = re.search(rf"^{name}='([^']*)'", SCRIPT.read_text(), re.M)
    assert m, f"{name} not in {SCRIPT}"
    return set(m.group(1).split())


def poky_file(path: str) -> str:
    folder = snapshots.snapshot_dir()
    tarball = snapshots.tarball("poky", snapshots.all_pins()["poky"], folder)
    if not tarball.is_file():
        pytest.skip(f"no poky snapshot {tarball} (ZYNQ_NET_YOCTO_SNAPSHOTS): list not compared")
    return subprocess.run(["tar", "-xJOf", str(tarball), f"poky/{path}"], capture_output=True, text=True,
                          check=True).stdout


def test_tool_list_is_pokys():
    conf = poky_file("meta/conf/bitbake.conf")
    # The plain (unconditional) HOSTTOOLS += "..." blocks; the conditional
    # ones (testimage, archiver) are ${@...} expressions.
    hosttools = set()
    for block in re.findall(r'^HOSTTOOLS \+= "([^"$]*)"', conf, re.M):
        hosttools |= set(block.replace("\\", " ").split())
    assert len(hosttools) > 80, "HOSTTOOLS not found in poky's bitbake.conf"
    assert script_list("HOSTTOOLS") == hosttools
    sanity = poky_file("meta/classes-global/sanity.bbclass")
    m = re.search(r'^SANITY_REQUIRED_UTILITIES \?= "([^"]*)"', sanity, re.M)
    assert script_list("SANITY_REQUIRED_UTILITIES") == set(m.group(1).replace("\\", " ").split())


def test_lists_everything_missing_at_once(tmp_path):
    # A PATH with only what the script itself needs: every bitbake host
    # tool it does not find is listed, the locale/module/disk checks still
    # run, and the exit status is 1.
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for tool in ("sh", "sed", "grep", "sort", "head", "id", "df", "awk", "dirname", "locale", "cat", "printf"):
        path = subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True, text=True).stdout.strip()
        if path.startswith("/"):
            (bindir / tool).symlink_to(path)
    env = dict(os.environ, PATH=str(bindir))
    res = subprocess.run([str(bindir / "sh"), str(SCRIPT), "--build-dir", str(tmp_path), "--min-disk-gb", "1"],
                         capture_output=True, text=True, env=env)
    assert res.returncode == 1, res.stdout + res.stderr
    m = re.search(r"host tools not in PATH:([^(]*)", res.stdout)
    assert m, res.stdout
    missing = set(m.group(1).split())
    assert {"gcc", "make", "chrpath", "diffstat", "gawk", "python3", "wget"} <= missing
    assert not missing & {"sh", "sed", "grep"}


def test_usage_errors():
    res = subprocess.run([str(SCRIPT), "--min-disk-gb", "lots"], capture_output=True, text=True)
    assert res.returncode == 2 and "not a whole number" in res.stderr
    res = subprocess.run([str(SCRIPT), "kas/no-such.yml"], capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 2 and "no such kas file" in res.stderr


def test_passes_on_a_prepared_host():
    # After scripts/install-deps (as the bitbake user, since root is a
    # finding): nothing missing for the ZCU102 (libtinfo5 included).
    if os.geteuid() != 0:
        cmd = [str(SCRIPT), "kas/zcu102.yml", "--min-disk-gb", "1"]
    else:
        user = os.environ.get("ZYNQ_NET_BBUSER", "bb")
        if subprocess.run(["id", user], capture_output=True).returncode != 0:
            pytest.skip(f"no user {user} (scripts/install-deps creates it)")
        # The bitbake user may not read this checkout: a readable copy.
        copy = pathlib.Path("/tmp") / f"zynq-net-host-check-{os.getpid()}"
        copy.mkdir(exist_ok=True)
        subprocess.run(["cp", str(SCRIPT), str(copy / "yocto-host-check")], check=True)
        (copy / "kas" / "include").mkdir(parents=True, exist_ok=True)
        for f in ("kas/zcu102.yml", "kas/include/xilinx.yml", "kas/include/base.yml"):
            subprocess.run(["cp", str(ROOT / f), str(copy / f)], check=True)
        subprocess.run(["chmod", "-R", "a+rX", str(copy)], check=True)
        cmd = ["su", user, "-s", "/bin/sh", "-c",
               f"cd {copy} && ./yocto-host-check kas/zcu102.yml --min-disk-gb 1"]
    res = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if res.returncode == 1:
        pytest.skip("this host is not prepared for bitbake (scripts/install-deps):\n" + res.stdout)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "ok" in res.stdout
