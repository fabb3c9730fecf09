# meta-xilinx device-tree: the board's device-tree fragment through
# EXTRA_DT_INCLUDE_FILES (device-tree.bb appends '/include/ "zynq-net.dtsi"'
# to the base DTS), then zynq-net dtb verify on the built DTB.
#
# EXTRA_DT_INCLUDE_FILES entries are normally file:// SRC_URI files, which
# must exist when the recipe is parsed; ours is generated during the build
# (zynq-net-fragments), so it is removed from SRC_URI and copied into
# WORKDIR before do_configure, where device-tree.bb expects it.
ZYNQ_NET_SKIP_WITHOUT_BOARD = "0"
inherit zynq-net

# All changes are made only when a board is set, so machines without one
# keep device-tree's task signatures.
# Anonymous on purpose: nothing changes unless ZYNQ_NET_BOARD is set.
# nooelint: oelint.task.noanonpython
python __anonymous() {
    if d.getVar('ZYNQ_NET_BOARD'):
        d.appendVar('EXTRA_DT_INCLUDE_FILES', ' zynq-net.dtsi')
        d.setVar('SRC_URI:remove', 'file://zynq-net.dtsi')
        d.appendVar('DEPENDS', ' zynq-net-fragments')
        d.appendVarFlag('do_configure', 'prefuncs', ' zynq_net_stage_dtsi')
        bb.build.addtask('do_zynq_net_dtb_verify', 'do_install', 'do_compile', d)
}

zynq_net_stage_dtsi() {
    cp ${RECIPE_SYSROOT}${datadir}/zynq-net/dt/zynq-net.dtsi ${WORKDIR}/zynq-net.dtsi
}

do_zynq_net_dtb_verify() {
    dtb=$(find ${B} -name '${DTB_FILE_NAME}' -type f | head -n 1)
    [ -n "$dtb" ] || bbfatal "zynq-net: built DTB ${DTB_FILE_NAME} not found under ${B}"
    zynq_net_dtb_verify $dtb
}
