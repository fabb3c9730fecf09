# linux-xlnx (ZynqMP, kernel-yocto based): the board's kernel fragment as a
# kernel-yocto feature. linux-xlnx recipes set KCONF_AUDIT_LEVEL = "0"; the
# class raises it (KCONF_AUDIT_LEVEL = 2, KMETA_AUDIT_WERROR = 1, see
# ZYNQ_NET_KCONF_AUDIT) so a dropped symbol fails do_kernel_configcheck, and
# zynq-net-verify checks the final .config. The device tree comes
# from the device-tree recipe (device-tree.bbappend here).
inherit zynq-net-kernel
