"""Applier regressions of the hostile trial:

- item 5: `revert` counted ethtool's exit 80 ("unmodified, ignoring": the
  value is already the one asked for) as a failure and kept the entry for
  every later revert; a value the driver rounded was never saved, so revert
  could not undo it. A stand-in ethtool (veth has no -C) behaves like a
  driver that rounds rx-usecs up to its 8 us tick and, as ethtool does,
  exits 80 when nothing changes.
- item 8: a lock directory without a pid file (its owner died between mkdir
  and writing the pid) was never taken over: every later run exited 4.
"""
import os
import pathlib
import subprocess

from conftest import SHELLS, Applier, fmt, need, write_plan

FAKE_ETHTOOL = r'''#!/bin/sh
# stand-in for a driver's ethtool -c/-C: rx-usecs kept in $FAKE_STATE,
# rounded up to a multiple of 8; exit 80 when nothing changes (as ethtool)
st=$FAKE_STATE
case $1 in
-c) v=$(cat "$st"); printf 'Coalesce parameters for %s:\nAdaptive RX: off  TX: off\n\nrx-usecs: %s\nrx-frames: 0\n' "$2" "$v" ;;
-C) [ "$3" = rx-usecs ] || { echo "unsupported" >&2; exit 1; }
    new=$(( ($4 + 7) / 8 * 8 ))
    if [ "$new" = "$(cat "$st")" ]; then
        echo "rx-usecs unmodified, ignoring" >&2; echo "no coalesce parameters changed, aborting" >&2; exit 80
    fi
    echo "$new" >"$st" ;;
*) echo "fake ethtool: $*" >&2; exit 1 ;;
esac
'''


def fake_env(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "ethtool").write_text(FAKE_ETHTOOL)
    (bindir / "ethtool").chmod(0o755)
    state = tmp_path / "rx-usecs"
    state.write_text("0\n")
    sysroot = tmp_path / "sys"
    (sysroot / "class/net/eth0").mkdir(parents=True)
    (sysroot / "devices/system/cpu").mkdir(parents=True)
    (sysroot / "devices/system/cpu/online").write_text("0-1\n")
    return bindir, state, sysroot


def test_revert_rounded_value_and_exit_80(tmp_path):
    for shell in sorted(SHELLS):
        need(SHELLS[shell][0])
        work = tmp_path / shell
        work.mkdir()
        bindir, state, sysroot = fake_env(work)
        plan = write_plan(work / "p.plan", "zynq-net-plan 2\nboard fake\ncoalesce eth0 rx-usecs 33\n")
        ap = Applier(work, SHELLS[shell], sysroot=sysroot,
                     extra_env={"PATH": f"{bindir}:{os.environ['PATH']}", "FAKE_STATE": str(state)})
        doc = ap.json("apply", plan, expect=3)
        step = doc["steps"][0]
        assert step["result"] == "failed" and step["actual"] == "40", fmt(doc)
        assert "driver kept 40" in step["detail"], fmt(doc)
        # the original is saved although the driver kept another value
        saved = (work / "state/saved").read_text()
        assert "05+coalesce+eth0+rx-usecs 0\n" in saved, saved
        # apply again: the driver answers exit 80 (unmodified): not an error
        doc = ap.json("apply", plan, expect=3)
        assert "EINVAL" not in fmt(doc) and "error:" not in fmt(doc), fmt(doc)
        # revert restores the original
        doc = ap.json("revert", expect=0)
        assert doc["restored"] == 1, fmt(doc)
        assert state.read_text().strip() == "0"
        # someone set it back already: ethtool exits 80 on revert = done
        ap.json("apply", plan, expect=3)
        state.write_text("0\n")
        doc = ap.json("revert", expect=0)
        assert doc["restored"] == 1 and doc["failed"] == 0, fmt(doc)
        assert ap.json("revert", expect=0)["restored"] == 0, "nothing may stay in the journal"


def test_lock_without_pid_file_is_taken_over(tmp_path):
    for shell in sorted(SHELLS):
        need(SHELLS[shell][0])
        work = tmp_path / shell
        work.mkdir()
        plan = write_plan(work / "p.plan", "zynq-net-plan 2\nboard lock\n")
        ap = Applier(work, SHELLS[shell], extra_env={"ZYNQ_NET_LOCK_WAIT": "0"})
        (work / "lock").mkdir()  # an owner that died before writing its pid
        r = ap("apply", plan)
        assert r.returncode == 0, f"{shell}: exit {r.returncode}: {r.stderr}"
        assert not (work / "lock").exists()
        # a live owner (pid 1) still holds it: exit 4
        (work / "lock").mkdir()
        (work / "lock" / "pid").write_text("1\n")
        r = ap("apply", plan)
        assert r.returncode == 4 and "locked by pid 1" in r.stderr, r.stderr


def test_line_of_blanks_is_a_blank_line(tmp_path):
    """Found by fuzzing (tools/fuzz/regressions/plan/whitespace-only-line):
    a line of spaces or tabs left no field, and `set -u` aborted the applier
    on the unset $1 with a shell error. It is a blank line."""
    plan = write_plan(tmp_path / "p.plan", "zynq-net-plan 2\nboard blanks\n   \n\t\nsysctl net.core.somaxconn 1\n")
    for shell in sorted(SHELLS):
        need(SHELLS[shell][0])
        ap = Applier(tmp_path / shell, SHELLS[shell], extra_env={"ZYNQ_NET_PROC": str(tmp_path / "noproc")})
        r = ap("status", plan)
        assert r.returncode == 3 and "parameter not set" not in r.stderr, f"{shell}: {r.returncode} {r.stderr}"
        assert "skipped sysctl - net.core.somaxconn" in r.stdout, r.stdout


def test_verb_without_fields_is_an_invalid_step(tmp_path):
    """A known verb with no fields is refused like any invalid step (exit 2,
    `PLAN:LINE: invalid step 'VERB': expected ...`, nothing changed), not a
    shell error: before a fix a bare `board` aborted both shells on
    the unset $1 (`set -u`) and a bare `ntuple` or `sysctl` made dash's
    `shift` fail ("can't shift that many")."""
    verbs = ("board wait mac mtu channels rings offload coalesce ptp rps rfs xps rss ntuple irq "
             "qdisc filter sysctl module asf").split()
    for shell in sorted(SHELLS):
        need(SHELLS[shell][0])
        ap = Applier(tmp_path / shell, SHELLS[shell])
        for verb in verbs:
            plan = write_plan(tmp_path / f"{verb}.plan", f"zynq-net-plan 2\n{verb}\n")
            r = ap("apply", plan)
            assert r.returncode == 2, f"{shell} {verb}: exit {r.returncode} {r.stdout}{r.stderr}"
            assert f"{verb}.plan:2: invalid step '{verb}': expected " in r.stderr, f"{shell}: {r.stderr}"
        assert not (tmp_path / shell / "state").exists(), f"{shell}: an invalid plan must change nothing"
