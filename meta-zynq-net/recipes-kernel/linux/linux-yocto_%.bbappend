# linux-yocto (QEMU machines, e.g. qemuarm64): the board's kernel fragment
# as a kernel-yocto feature (the recipe's own config audit), final .config
# verified by zynq-net-verify. QEMU makes
# the device tree itself, so there is no DTB to patch. No-op when
# ZYNQ_NET_BOARD is empty (any machine without a zynq-net board).
inherit zynq-net-kernel
