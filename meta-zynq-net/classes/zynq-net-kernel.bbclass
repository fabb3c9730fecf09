# nooelint: oelint.bbclass.underscores
# (kept dashed like oe-core's kernel-yocto and cargo-update-recipe-crates:
# the name is the documented interface, `inherit zynq-net-kernel`)
# zynq-net-kernel.bbclass: put the board's kernel config fragment (and, where
# the kernel builds the DTB, its device-tree fragment) into a kernel recipe,
# and check the result.
#
# Inherited by the kernel bbappends of meta-zynq-net (linux-yocto,
# linux-xlnx, linux-qoriq). Does nothing when ZYNQ_NET_BOARD is empty.
#
# Fragments come from the zynq-net-fragments recipe's sysroot
# (${datadir}/zynq-net/{kernel,dt}): that recipe stages only the dt/ and
# kernel/ outputs of `zynq-net gen`, so a tuning-only change of the board
# leaves its sysroot output unchanged and, with hash equivalence, the kernel
# is not rebuilt.
#
# Mechanisms, chosen by what the kernel recipe inherits:
#   kernel-yocto (linux-yocto, linux-xlnx): the generated zynq-net.scc is a
#     KERNEL_FEATURES entry found in the kmeta folder zynq-net-kmeta; the
#     recipe's own config audit level is kept (ZYNQ_NET_KCONF_AUDIT).
#   DELTA_KERNEL_DEFCONFIG (meta-freescale's linux-qoriq): the fragments are
#     concatenated, in .scc order, into ${WORKDIR}/zynq-net.cfg and appended
#     to DELTA_KERNEL_DEFCONFIG (merged by do_merge_delta_config).
# The checks of the result (`zynq-net kconfig verify` on the final .config,
# `zynq-net dtb verify` on the DTB) run in the zynq-net-verify recipe, after
# the kernel: a task of the kernel recipe that read the board file would put
# the board's tuning section into the kernel's task hashes.

ZYNQ_NET_SKIP_WITHOUT_BOARD = "0"
inherit zynq-net

ZYNQ_NET_KCONF_AUDIT ?= "0"
ZYNQ_NET_KCONF_AUDIT[doc] = "kernel-yocto kernels: '0' (default) keeps the kernel recipe's own audit setting (linux-xlnx sets KCONF_AUDIT_LEVEL = 0: its vendor fragments warn); the guard that matters is zynq-net kconfig verify on the final .config (zynq-net-verify). '1' raises the audit (KCONF_AUDIT_LEVEL = 2, KMETA_AUDIT_WERROR = 1): any fragment symbol that misses the final .config, ours or the vendor's, fails do_kernel_configcheck."

ZYNQ_NET_KERNEL_DTBS ?= ""
ZYNQ_NET_KERNEL_DTBS[doc] = "KERNEL_DEVICETREE entries (e.g. fsl/p1020rdb-pd.dtb) whose in-tree DTS gets '#include \"zynq-net.dtsi\"'. Empty when the DTB comes from another recipe (meta-xilinx device-tree) or from QEMU."

ZYNQ_NET_STAGED = "${RECIPE_SYSROOT}${datadir}/zynq-net"

# Anonymous on purpose: nothing changes unless ZYNQ_NET_BOARD is set.
# nooelint: oelint.task.noanonpython
python __anonymous() {
    if not d.getVar('ZYNQ_NET_BOARD'):
        return
    frag_dep = ' zynq-net-fragments:do_populate_sysroot'
    d.appendVar('DEPENDS', ' zynq-net-fragments')
    fastpath = d.getVar('ZYNQ_NET_FASTPATH')

    if bb.data.inherits_class('kernel-yocto', d):
        d.prependVar('FILESEXTRAPATHS', d.getVar('ZYNQ_NET_LAYERDIR') + '/files:')
        d.appendVar('SRC_URI', ' file://zynq-net-kmeta;type=kmeta;destsuffix=zynq-net-kmeta')
        d.appendVar('KERNEL_FEATURES', ' zynq-net.scc')
        if fastpath == 'flowtable':
            d.appendVar('KERNEL_FEATURES', ' zynq-net-fastpath-flowtable.scc')
        d.appendVarFlag('do_kernel_metadata', 'depends', frag_dep)
        d.appendVarFlag('do_kernel_metadata', 'prefuncs', ' zynq_net_stage_kmeta')
        if d.getVar('ZYNQ_NET_KCONF_AUDIT') == '1':
            d.setVar('KCONF_AUDIT_LEVEL', '2')
            d.setVar('KMETA_AUDIT_WERROR', '1')
    elif d.getVar('DELTA_KERNEL_DEFCONFIG') is not None:
        d.appendVar('DELTA_KERNEL_DEFCONFIG', ' zynq-net.cfg')
        d.appendVarFlag('do_merge_delta_config', 'depends', frag_dep)
        d.appendVarFlag('do_merge_delta_config', 'prefuncs', ' zynq_net_write_delta_cfg')
        d.appendVarFlag('do_merge_delta_config', 'file-checksums',
                        ' ${ZYNQ_NET_LAYERDIR}/files/zynq-net-kmeta/zynq-net-fastpath-flowtable.cfg:True')
    else:
        bb.fatal("zynq-net-kernel: %s is neither a kernel-yocto recipe nor uses "
                 "DELTA_KERNEL_DEFCONFIG; zynq-net does not know how to add a config "
                 "fragment to it (set ZYNQ_NET_BOARD = \"\" to build it untouched)" % d.getVar('PN'))

    if d.getVar('ZYNQ_NET_KERNEL_DTBS'):
        d.appendVarFlag('do_patch', 'depends', frag_dep)
        d.appendVarFlag('do_patch', 'postfuncs', ' zynq_net_patch_dts')
        # zynq-net dtb verify resolves the fragment's &label references
        # through /__symbols__; it also lets the target apply .dtbo overlays.
        d.appendVar('KERNEL_DTC_FLAGS', ' -@')
}

# kernel-yocto: fill the kmeta folder (unpacked from the layer's
# files/zynq-net-kmeta) with the generated zynq-net.scc and its .cfg files.
zynq_net_stage_kmeta() {
    install -d ${WORKDIR}/zynq-net-kmeta
    cp ${ZYNQ_NET_STAGED}/kernel/* ${WORKDIR}/zynq-net-kmeta/
}

# The layer's absolute path is not part of the kernel's task hashes (the
# static fragment's content is, through file-checksums), so sstate is shared
# between checkouts at different paths.
zynq_net_write_delta_cfg[vardepsexclude] += "ZYNQ_NET_LAYERDIR"

# DELTA_KERNEL_DEFCONFIG kernels: one fragment, in the order of the .scc.
zynq_net_write_delta_cfg() {
    out=${WORKDIR}/zynq-net.cfg
    : > $out
    for cfg in $(sed -n 's/^[[:space:]]*kconf[[:space:]]\{1,\}[a-z-]\{1,\}[[:space:]]\{1,\}//p' ${ZYNQ_NET_STAGED}/kernel/zynq-net.scc); do
        cat ${ZYNQ_NET_STAGED}/kernel/$cfg >> $out
    done
    if [ "${ZYNQ_NET_FASTPATH}" = "flowtable" ]; then
        cat ${ZYNQ_NET_LAYERDIR}/files/zynq-net-kmeta/zynq-net-fastpath-flowtable.cfg >> $out
    fi
    if ! grep -q '^CONFIG_' $out; then
        bbfatal "zynq-net: no kconf fragment listed in ${ZYNQ_NET_STAGED}/kernel/zynq-net.scc"
    fi
}

# Kernels that build the board DTB in-tree: include the generated dtsi at
# the end of each DTS named in ZYNQ_NET_KERNEL_DTBS (idempotent).
zynq_net_patch_dts() {
    for dtb in ${ZYNQ_NET_KERNEL_DTBS}; do
        dts=${S}/arch/${ARCH}/boot/dts/${dtb%.dtb}.dts
        [ -f "$dts" ] || bbfatal "zynq-net: $dts (from ZYNQ_NET_KERNEL_DTBS '$dtb') not found in the kernel tree"
        cp ${ZYNQ_NET_STAGED}/dt/zynq-net.dtsi $(dirname $dts)/zynq-net.dtsi
        grep -q '^#include "zynq-net.dtsi"' $dts || \
            printf '\n/* added by meta-zynq-net */\n#include "zynq-net.dtsi"\n' >> $dts
    done
}
