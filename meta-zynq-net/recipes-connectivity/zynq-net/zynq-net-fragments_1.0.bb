# nooelint: oelint.var.mandatoryvar.SRC_URI
# (no SRC_URI: the only input is ZYNQ_NET_BOARD, in the task checksums)
SUMMARY = "zynq-net kernel config and device-tree fragments of the board"
DESCRIPTION = "Runs zynq-net gen on ZYNQ_NET_BOARD and stages only the \
hardware slice (dt/ and kernel/) for the kernel and device-tree recipes, so \
a tuning-only board change does not rebuild the kernel or the DTB. Deploys \
the whole generated tree to ${DEPLOY_DIR_IMAGE}/zynq-net/."
HOMEPAGE = "https://github.com/zynq-net/zynq-net"
SECTION = "kernel"

LICENSE = "MIT"
LIC_FILES_CHKSUM = "file://${COMMON_LICENSE_DIR}/MIT;md5=0835ade698e0bcf8506ecda2f7b4f302"

inherit zynq-net deploy

# The fragments depend on the board, which depends on the machine.
PACKAGE_ARCH = "${MACHINE_ARCH}"

INHIBIT_DEFAULT_DEPS = "1"

do_configure[noexec] = "1"

do_compile() {
    zynq_net_gen
}

do_install() {
    install -d ${D}${datadir}/zynq-net/dt ${D}${datadir}/zynq-net/kernel
    install -m 0644 ${ZYNQ_NET_GEN_DIR}/dt/* ${D}${datadir}/zynq-net/dt/
    install -m 0644 ${ZYNQ_NET_GEN_DIR}/kernel/* ${D}${datadir}/zynq-net/kernel/
}

do_deploy() {
    install -d ${DEPLOYDIR}/zynq-net
    cp -R --no-preserve=ownership ${ZYNQ_NET_GEN_DIR}/. ${DEPLOYDIR}/zynq-net/
}
addtask deploy after do_compile before do_build

# Build-time input only: nothing of it belongs on the target.
FILES:${PN}-dev += "${datadir}/zynq-net"
ALLOW_EMPTY:${PN} = "1"
