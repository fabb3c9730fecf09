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


def with_driver(sealed: str, driver: str = "veth", ifaces=None) -> str:
    """A sealed plan whose `ident` lines (of `ifaces`, default all) say
    `driver` and nothing else, resealed: a board's plan applied where its
    NICs are veths (veth.c DRV_NAME, what `ethtool -i` prints)."""
    lines = sealed.splitlines(keepends=True)
    assert lines and lines[-1].startswith("end "), "not a sealed plan (no end line)"
    out = []
    for line in lines[:-1]:
        f = line.split(" ")
        if f[0] == "ident" and (ifaces is None or f[1] in ifaces):
            line = f"ident {f[1]} driver {driver}\n"
        out.append(line)
    return seal_plan("".join(out))
