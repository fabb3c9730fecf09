# linux-xlnx (ZynqMP, kernel-yocto based): the board's kernel fragment as a
# kernel-yocto feature. The vendor's audit setting is kept (linux-xlnx sets
# KCONF_AUDIT_LEVEL = "0": its own fragments warn); zynq-net-verify checks
# the board's symbols in the final .config (ZYNQ_NET_KCONF_AUDIT = "1"
# raises the audit instead). The device tree comes from the device-tree
# recipe (device-tree.bbappend here).
inherit zynq-net-kernel
