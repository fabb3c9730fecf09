# meta-xilinx device-tree: the board's device-tree fragment through
# EXTRA_DT_INCLUDE_FILES (device-tree.bb appends '/include/ "zynq-net.dtsi"'
# to the base DTS). zynq-net-verify checks the deployed DTB.
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
}

zynq_net_stage_dtsi() {
    cp ${RECIPE_SYSROOT}${datadir}/zynq-net/dt/zynq-net.dtsi ${WORKDIR}/zynq-net.dtsi
}
