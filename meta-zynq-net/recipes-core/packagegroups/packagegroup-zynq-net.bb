SUMMARY = "zynq-net: board tuning, fast path and the network test tools"
DESCRIPTION = "The boot-time tuning of the board, the forwarding fast path \
chosen by ZYNQ_NET_FASTPATH, and what a throughput lab needs on the target: \
ethtool, iproute2 tc, nftables and iperf3. No Rust on the target: the \
generator runs on the build host, the target gets the plan and the POSIX sh \
applier (zynq-net-tuning)."
HOMEPAGE = "https://github.com/zynq-net/zynq-net"

# The tuning and the fast path depend on the machine's board.
PACKAGE_ARCH = "${MACHINE_ARCH}"

# zynq-net.bbclass: skips this group when the machine has no board, and
# stops the build with a clear message when the legacy ASF fast path is
# asked for without the QorIQ SDK kernel and the asf recipe.
inherit packagegroup zynq-net

ZYNQ_NET_FASTPATH_PACKAGES = "${@{'flowtable': 'zynq-net-flowtable', 'asf': 'asf', 'none': ''}.get(d.getVar('ZYNQ_NET_FASTPATH'), '')}"

# system.irqbalance of the board: `absent` keeps irqbalance out of the image
# (zynq-net-image sets PACKAGE_EXCLUDE); `ban-pinned` and `running` need it
# (from a layer that provides it: the scarthgap layers of kas/ do not).
ZYNQ_NET_IRQBALANCE_PACKAGES = "${@'' if d.getVar('ZYNQ_NET_IRQBALANCE_MODE') == 'absent' else 'irqbalance'}"

RDEPENDS:${PN} = "\
    ${ZYNQ_NET_FASTPATH_PACKAGES} \
    ${ZYNQ_NET_IRQBALANCE_PACKAGES} \
    ethtool \
    iperf3 \
    iproute2 \
    iproute2-tc \
    nftables \
    zynq-net-tuning \
"
