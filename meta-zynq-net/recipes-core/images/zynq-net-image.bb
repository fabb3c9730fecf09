SUMMARY = "zynq-net lab image: board tuning applied at boot, network test tools"
DESCRIPTION = "core-image-minimal plus packagegroup-zynq-net, an SSH server \
for the lab host and the test tools (ptest, oeqa testimage)."
HOMEPAGE = "https://github.com/zynq-net/zynq-net"

LICENSE = "MIT"

# zynq-net.bbclass: the machine's board (ZYNQ_NET_BOARD); without one the
# image is skipped with a message saying so.
ZYNQ_NET_BOARD_TASKS = ""
inherit core-image zynq-net

IMAGE_FEATURES += "ssh-server-dropbear"

# The board says `irqbalance: absent` (the default): irqbalance would move
# the IRQs the board pins, so nothing may pull it into this image.
PACKAGE_EXCLUDE += "${@'irqbalance' if d.getVar('ZYNQ_NET_IRQBALANCE_MODE') == 'absent' else ''}"

IMAGE_INSTALL = "\
    packagegroup-core-boot \
    packagegroup-zynq-net \
    ${@bb.utils.contains('DISTRO_FEATURES', 'ptest', 'zynq-net-tuning-ptest ptest-runner', '', d)} \
    ${CORE_IMAGE_EXTRA_INSTALL} \
"

# The kernel config and the DTB are checked against the board before the
# root filesystem is assembled (zynq-net-verify).
do_rootfs[depends] += "zynq-net-verify:do_zynq_net_verify"

# `bitbake zynq-net-image -c testimage` (QEMU, kas/qemuarm64.yml) runs the
# zynq_net oeqa case of meta-zynq-net/lib/oeqa/runtime/cases/.
TEST_SUITES ?= "ping ssh zynq_net"
