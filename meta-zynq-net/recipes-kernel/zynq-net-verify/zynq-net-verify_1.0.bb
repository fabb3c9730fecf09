# nooelint: oelint.var.mandatoryvar.SRC_URI
# (no SRC_URI: it reads the board, the kernel's .config and deployed DTBs)
SUMMARY = "zynq-net: check the built kernel config and DTB against the board"
DESCRIPTION = "Runs `zynq-net kconfig verify` on the kernel's final .config \
and `zynq-net dtb verify` on the deployed DTB(s), and stops the build when \
the board's symbols, nodes or properties did not make it. A recipe of its \
own, after the kernel and the DTB, so the board file is never an input of \
the kernel's or the DTB's tasks: a tuning-only board change rebuilds \
neither. zynq-net-image depends on it; add the same dependency to an image \
of your own (see meta-zynq-net/README.md)."
HOMEPAGE = "https://github.com/zynq-net/zynq-net"
SECTION = "kernel"

LICENSE = "MIT"
LIC_FILES_CHKSUM = "file://${COMMON_LICENSE_DIR}/MIT;md5=0835ade698e0bcf8506ecda2f7b4f302"

ZYNQ_NET_BOARD_TASKS = "do_zynq_net_verify"

inherit zynq-net nopackages

PACKAGE_ARCH = "${MACHINE_ARCH}"
INHIBIT_DEFAULT_DEPS = "1"

ZYNQ_NET_VERIFY_KCONFIG ?= "1"
ZYNQ_NET_VERIFY_KCONFIG[doc] = "'1': check the kernel's final .config (virtual/kernel, ${STAGING_KERNEL_BUILDDIR}/.config) with zynq-net kconfig verify."

ZYNQ_NET_DTS_KERNELS ?= "linux-qoriq"
ZYNQ_NET_DTS_KERNELS[doc] = "Kernel recipes whose in-tree DTBs (KERNEL_DEVICETREE) carry the fragment (zynq-net-kernel.bbclass with ZYNQ_NET_KERNEL_DTBS)."

def zynq_net_verify_dtbs(d):
    import os
    if d.getVar('PREFERRED_PROVIDER_virtual/dtb') == 'device-tree':
        return 'system.dtb'
    if d.getVar('PREFERRED_PROVIDER_virtual/kernel') in (d.getVar('ZYNQ_NET_DTS_KERNELS') or '').split():
        return ' '.join(os.path.basename(x) for x in (d.getVar('KERNEL_DEVICETREE') or '').split())
    return ''

ZYNQ_NET_VERIFY_DTBS ??= "${@zynq_net_verify_dtbs(d)}"
ZYNQ_NET_VERIFY_DTBS[doc] = "DTB file names in DEPLOY_DIR_IMAGE checked with zynq-net dtb verify. Default: system.dtb for meta-xilinx's device-tree, the KERNEL_DEVICETREE names for kernels in ZYNQ_NET_DTS_KERNELS, none otherwise (QEMU makes its own device tree)."

do_zynq_net_verify() {
    if [ "${ZYNQ_NET_VERIFY_KCONFIG}" = "1" ]; then
        zynq_net_kconfig_verify ${STAGING_KERNEL_BUILDDIR}/.config
        if [ "${ZYNQ_NET_FASTPATH}" = "flowtable" ]; then
            for sym in $(sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=[ym]$/\1/p' ${ZYNQ_NET_LAYERDIR}/files/zynq-net-kmeta/zynq-net-fastpath-flowtable.cfg); do
                grep -q "^$sym=[ym]$" ${STAGING_KERNEL_BUILDDIR}/.config || \
                    bbfatal "zynq-net: fast path 'flowtable' needs $sym, which is not set in the kernel's final .config"
            done
        fi
    fi
    for dtb in ${ZYNQ_NET_VERIFY_DTBS}; do
        [ -e ${DEPLOY_DIR_IMAGE}/$dtb ] || bbfatal "zynq-net: ${DEPLOY_DIR_IMAGE}/$dtb not found (ZYNQ_NET_VERIFY_DTBS)"
        zynq_net_dtb_verify ${DEPLOY_DIR_IMAGE}/$dtb
    done
    mkdir -p ${T}
    date -u > ${T}/zynq-net-verified
}
do_zynq_net_verify[vardepsexclude] += "ZYNQ_NET_LAYERDIR"
do_zynq_net_verify[file-checksums] += "${ZYNQ_NET_LAYERDIR}/files/zynq-net-kmeta/zynq-net-fastpath-flowtable.cfg:True"
do_zynq_net_verify[depends] += "zynq-net-tools-native:do_populate_sysroot"
addtask zynq_net_verify after do_prepare_recipe_sysroot before do_build

# The kernel's .config (do_shared_workdir) and the deployed DTBs.
# Anonymous on purpose: the DTB provider is known only after parsing.
# nooelint: oelint.task.noanonpython
python __anonymous() {
    if not d.getVar('ZYNQ_NET_BOARD'):
        return
    deps = []
    if d.getVar('ZYNQ_NET_VERIFY_KCONFIG') == '1':
        deps.append('virtual/kernel:do_shared_workdir')
    if d.getVar('ZYNQ_NET_VERIFY_DTBS'):
        if d.getVar('PREFERRED_PROVIDER_virtual/dtb'):
            deps.append('virtual/dtb:do_deploy')
        else:
            deps.append('virtual/kernel:do_deploy')
    d.appendVarFlag('do_zynq_net_verify', 'depends', ' ' + ' '.join(deps))
}

do_fetch[noexec] = "1"
do_unpack[noexec] = "1"
do_patch[noexec] = "1"
do_configure[noexec] = "1"
do_compile[noexec] = "1"
do_install[noexec] = "1"
