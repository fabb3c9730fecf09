# linux-qoriq (meta-freescale, e.g. p1020rdb): the board's kernel fragment
# through DELTA_KERNEL_DEFCONFIG (merged by do_merge_delta_config; scarthgap
# has no config audit for this kernel, so zynq-net-verify checks the
# final .config), and the board's device-tree fragment included into the
# DTS of each KERNEL_DEVICETREE entry (zynq-net-verify checks the DTB).
ZYNQ_NET_KERNEL_DTBS ?= "${KERNEL_DEVICETREE}"
inherit zynq-net-kernel
