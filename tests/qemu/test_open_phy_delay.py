"""Probe is not open: a DP83867 without its RGMII delays, on an emulated ZCU102.

The open table's `open-phy-delay` row (tools/crates/zynq-net-model/src/
drivers.rs) says a TI DP83867 on an `rgmii-id` port binds and probes, and
then `ip link set up` fails: dp83867_config_init -> dp83867_verify_rgmii_cfg
returns -EINVAL without `ti,rx-internal-delay` (drivers/net/phy/dp83867.c,
6.12), run by phy_attach_direct -> phy_init_hw from macb_open ->
macb_phylink_connect. This boots Debian's arm64 kernel (the cached one of
scripts/qemu-zcu102, whose --no-boot build gives the DTB source and the
initramfs) twice on QEMU's xlnx-zcu102, gem3 on an MDIO PHY named a DP83867
by its ID compatible (ethernet-phy-id2000.a231), rgmii-id as the ZCU102
runs it: once without the ti,* delays, once with them, with Debian's
dp83867 module in the initramfs. It holds that the first boot's
`ip link set eth0 up` fails with the driver's message and the second
succeeds, and that `zynq-net dtb verify` flags exactly the first DTB.

What it cannot cover: QEMU's GEM models a generic PHY, not a DP83867, so
past config_init the link never comes up (NO-CARRIER); the RGMII timing
the delays set is not emulated at all.
"""
from __future__ import annotations

import glob
import lzma
import os
import pathlib
import subprocess

import pytest

from qemu_results import skip_without_tcg

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
SCRIPT = ROOT / "scripts" / "qemu-zcu102"
CACHE = pathlib.Path(os.environ.get("ZYNQ_NET_CACHE", "/var/tmp/zynq-net-cache")) / "qemu-zcu102"
BOOT_TIMEOUT = int(os.environ.get("ZYNQ_NET_QEMU_TIMEOUT", "240"))

# TEST-ONLY: gem3 leaves the adaptation's fixed-link for an MDIO PHY at
# address 0 (where QEMU's GEM answers MDIO), taken for a DP83867 by its ID.
PHY_DTSI = """\
&gem3 {{
	phy-mode = "rgmii-id";
	phy-handle = <&qphy>;
	/delete-node/ fixed-link;
	mdio {{
		#address-cells = <1>;
		#size-cells = <0>;
		qphy: ethernet-phy@0 {{
			compatible = "ethernet-phy-id2000.a231";
			reg = <0>;
			{delays}
		}};
	}};
}};
"""

# TEST-ONLY /init: the modules of scripts/qemu-zcu102's list, then dp83867,
# then the one command under test.
INIT = """\
#!/bin/sh
. /lib/zynq-net-qemu/init-lib.sh
guest_setup
for m in $(cat /lib/modules/load.order) dp83867.ko; do
    insmod "/lib/modules/$m" || echo "ZNQ31:insmod $m failed"
done
wait_netdevs eth0
for d in /sys/bus/mdio_bus/devices/*/driver; do echo "ZNQ31:phy-driver $(readlink "$d")"; done
ip link set eth0 up
echo "ZNQ31:rc=$?"
dmesg | grep -E 'DP83867|macb' | sed 's/^/ZNQ31:dmesg /'
echo ZNQ31:END
poweroff -f
"""


def _one(pattern: str) -> pathlib.Path:
    found = sorted(glob.glob(str(CACHE / pattern)))
    if not found:
        pytest.skip(f"{CACHE / pattern}: not cached (run scripts/qemu-zcu102 --fetch-only)")
    return pathlib.Path(found[-1])


@pytest.fixture(scope="module")
def boots(tmp_path_factory, zynq_net):
    skip_without_tcg("qemu-system-aarch64", "qemu-system-arm")
    out = tmp_path_factory.mktemp("open-phy-delay")
    subprocess.run([str(SCRIPT), "--no-boot", "--out", str(out)], check=True, timeout=900)
    kimage = _one("pkgs/linux-image-*/boot/vmlinuz-*")
    module = _one("pkgs/linux-image-*/lib/modules/*/kernel/drivers/net/phy/dp83867.ko.xz")
    ir = out / "initramfs"
    (ir / "lib/modules/dp83867.ko").write_bytes(lzma.decompress(module.read_bytes()))
    (ir / "init").write_text(INIT)
    (ir / "init").chmod(0o755)
    initrd = out / "open-phy-delay.cpio.gz"
    subprocess.run(f"cd '{ir}' && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1 -n > '{initrd}'",
                   shell=True, check=True)
    tree = pathlib.Path(subprocess.run([str(ROOT / "scripts/kernel-tree")], check=True, capture_output=True,
                                       text=True).stdout.strip())
    result = {}
    for name, delays in (("without", ""), ("with", "ti,rx-internal-delay = <8>; ti,tx-internal-delay = <10>;")):
        dtsi = out / f"phy-{name}.dtsi"
        dtsi.write_text(PHY_DTSI.format(delays=delays))
        top = out / f"{name}.dts"
        top.write_text((out / "dt/zcu102-qemu.dts").read_text() + f'#include "{dtsi}"\n')
        pre, dtb = out / f"{name}.pp.dts", out / f"{name}.dtb"
        subprocess.run(["cpp", "-nostdinc", "-undef", "-D__DTS__", "-x", "assembler-with-cpp", "-P",
                        "-I", str(tree / "arch/arm64/boot/dts/xilinx"), "-I", str(tree / "include"),
                        "-o", str(pre), str(top)], check=True)
        subprocess.run(["dtc", "-q", "-@", "-I", "dts", "-O", "dtb", "-o", str(dtb), str(pre)], check=True)
        console = out / f"console-{name}.log"
        subprocess.run(
            ["timeout", "-k", "5", str(BOOT_TIMEOUT), "qemu-system-aarch64", "-M", "xlnx-zcu102", "-smp", "4",
             "-m", "2G", "-kernel", str(kimage), "-dtb", str(dtb), "-initrd", str(initrd), "-append",
             "console=ttyPS0,115200 earlycon=cdns,mmio,0xff000000,115200n8 rdinit=/init panic=-1 loglevel=6",
             "-nic", "user", "-nic", "user", "-nic", "user", "-nic", "user", "-display", "none", "-serial", f"file:{console}", "-monitor", "none",
             "-no-reboot"], stdin=subprocess.DEVNULL, capture_output=True, check=False)
        lines = [ln.split("ZNQ31:", 1)[1] for ln in console.read_text(errors="replace").splitlines()
                 if "ZNQ31:" in ln]
        assert "END" in lines, f"{name}: the guest did not finish; {console}:\n" + console.read_text(errors="replace")[-3000:]
        verify = subprocess.run([str(zynq_net), "dtb", "verify", str(ROOT / "meta-zynq-net/boards/zcu102.yml"),
                                 str(dtb)], capture_output=True, text=True)
        result[name] = (lines, verify.stdout + verify.stderr)
    return result


def test_probe_binds_the_dp83867_both_times(boots):
    for name, (lines, _) in boots.items():
        assert any(ln.startswith("phy-driver ") and ln.endswith("TI DP83867") for ln in lines), (name, lines)


def test_without_delays_ip_link_set_up_fails_as_the_row_says(boots):
    lines, verify = boots["without"]
    assert "rc=0" not in lines and any(ln.startswith("rc=") for ln in lines), lines
    assert any("ti,rx-internal-delay must be specified" in ln for ln in lines), lines
    assert any("Could not attach PHY (-22)" in ln for ln in lines), lines
    assert "[open-phy-delay] phy-mode \"rgmii-id\" and the DP83867 PHY has no ti,rx-internal-delay" in verify, verify


def test_with_delays_ip_link_set_up_succeeds(boots):
    lines, verify = boots["with"]
    assert "rc=0" in lines, lines
    assert not any("must be specified" in ln for ln in lines), lines
    assert "[open-phy-delay]" not in verify, verify
