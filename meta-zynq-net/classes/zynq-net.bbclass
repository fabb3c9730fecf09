# nooelint: oelint.bbclass.underscores
# (kept dashed like oe-core's kernel-yocto and cargo-update-recipe-crates:
# the name is the documented interface, `inherit zynq-net`)
# zynq-net.bbclass: run the zynq-net generator on the board description.
#
# A recipe that inherits this class gets:
#   - a dependency on zynq-net-tools-native (the `zynq-net` CLI);
#   - zynq_net_gen: `zynq-net gen ${ZYNQ_NET_BOARD} -o ${ZYNQ_NET_GEN_DIR}`
#     (layout: docs/artifacts.md of the zynq-net repository);
#   - zynq_net_dtb_verify FILE / zynq_net_kconfig_verify FILE: the checks of
#     a built DTB and a final kernel .config against the board (run by the
#     zynq-net-verify recipe);
#   - the board file in the checksums of ZYNQ_NET_BOARD_TASKS, so editing it
#     reruns them.
#
# A vendor uses their own board by setting one variable, e.g. in local.conf:
#     ZYNQ_NET_BOARD = "/path/to/my-board.yml"
# and disables zynq-net for a machine with ZYNQ_NET_BOARD = "".

inherit zynq-net-board

ZYNQ_NET_FASTPATH ??= "${@zynq_net_board_fastpath(d)}"
ZYNQ_NET_FASTPATH[doc] = "Forwarding fast path: 'flowtable' (nftables flowtable, NF_FLOW_TABLE/NFT_FLOW_OFFLOAD, current kernels), 'none', or 'asf' (legacy Freescale ASF: needs a QorIQ SDK kernel with CONFIG_AS_FASTPATH and a layer providing the asf recipe; see README). Default: what the board's fastpath section asks for (none without one)."

ZYNQ_NET_ASF_KERNELS ?= "linux-qoriq-sdk"
ZYNQ_NET_ASF_KERNELS[doc] = "Kernel recipes known to carry CONFIG_AS_FASTPATH (QorIQ SDK kernels); ZYNQ_NET_FASTPATH = 'asf' is refused with any other virtual/kernel provider."

ZYNQ_NET_BOARD_TASKS ?= "do_compile"
ZYNQ_NET_BOARD_TASKS[doc] = "Tasks of the recipe that read ZYNQ_NET_BOARD (the board file is added to their checksums)."

ZYNQ_NET_GEN_DIR ?= "${WORKDIR}/zynq-net-gen"
ZYNQ_NET_GEN_DIR[doc] = "Output folder of `zynq-net gen` inside the recipe's work directory."

# Recipes whose whole purpose is the generated output skip themselves when
# no board is configured; kernel and device-tree appends set this to "0" and
# simply stay untouched. Everything the class changes in a recipe (DEPENDS,
# checksums, tasks) is added by the anonymous function below only when a
# board is set, so a machine without a board keeps the task signatures of
# the recipes this layer appends to.
ZYNQ_NET_SKIP_WITHOUT_BOARD ?= "1"
ZYNQ_NET_SKIP_WITHOUT_BOARD[doc] = "'1': a recipe inheriting zynq-net is skipped when ZYNQ_NET_BOARD is empty; '0' (kernel and device-tree appends): it is left unchanged."

def zynq_net_check_fastpath(d):
    """Refuse the legacy ASF fast path unless its pieces are present."""
    import glob, os
    mode = d.getVar('ZYNQ_NET_FASTPATH') or 'none'
    if mode not in ('flowtable', 'none', 'asf'):
        bb.fatal("ZYNQ_NET_FASTPATH = \"%s\": expected flowtable, none or asf" % mode)
    if mode != 'asf':
        return
    kernel = d.getVar('PREFERRED_PROVIDER_virtual/kernel') or ''
    if kernel not in (d.getVar('ZYNQ_NET_ASF_KERNELS') or '').split():
        bb.fatal("ZYNQ_NET_FASTPATH = \"asf\" needs a QorIQ SDK kernel with CONFIG_AS_FASTPATH "
                 "(one of ZYNQ_NET_ASF_KERNELS: %s), but virtual/kernel is \"%s\". ASF left "
                 "meta-freescale in 2018 and current kernels have no CONFIG_AS_FASTPATH: use "
                 "ZYNQ_NET_FASTPATH = \"flowtable\" (nftables flowtable) instead."
                 % (d.getVar('ZYNQ_NET_ASF_KERNELS'), kernel))
    found = False
    for pattern in (d.getVar('BBFILES') or '').split():
        for path in glob.glob(pattern):
            if os.path.basename(path).split('_')[0].split('.')[0] == 'asf':
                found = True
                break
        if found:
            break
    if not found:
        bb.fatal("ZYNQ_NET_FASTPATH = \"asf\" needs the ASF kernel modules recipe (asf_*.bb "
                 "from the QorIQ SDK layers), and no layer in BBLAYERS provides it. Add the "
                 "SDK layer or use ZYNQ_NET_FASTPATH = \"flowtable\".")

# Anonymous on purpose: nothing changes unless ZYNQ_NET_BOARD is set.
# nooelint: oelint.task.noanonpython
python __anonymous() {
    import os
    board = d.getVar('ZYNQ_NET_BOARD')
    if not board:
        if d.getVar('ZYNQ_NET_SKIP_WITHOUT_BOARD') == '1':
            raise bb.parse.SkipRecipe("ZYNQ_NET_BOARD is empty: no zynq-net board for MACHINE "
                                      "'%s' (set ZYNQ_NET_BOARD or ZYNQ_NET_DEFAULT_BOARDS)"
                                      % d.getVar('MACHINE'))
        return
    if not os.path.isabs(board) or not os.path.isfile(board):
        bb.fatal("ZYNQ_NET_BOARD = \"%s\": not an existing board file (give an absolute path "
                 "to the board YAML)" % board)
    zynq_net_check_fastpath(d)
    if d.getVar('ZYNQ_NET_SKIP_WITHOUT_BOARD') == '1':
        # A recipe of ours that runs the tool: the board is an input of
        # every task that reads it. The kernel and device-tree appends never
        # read the board (only the staged dt/ and kernel/ fragments), so a
        # tuning-only change of the board leaves their task hashes alone.
        d.appendVar('DEPENDS', ' zynq-net-tools-native')
        for task in (d.getVar('ZYNQ_NET_BOARD_TASKS') or '').split():
            d.appendVarFlag(task, 'file-checksums', ' %s:True' % board)
}

# Task hashes follow the board file's *content* (file-checksums above), not
# its absolute path: the same board in another checkout, or a shared sstate
# mirror fed from another machine, gives the same hashes.
zynq_net_gen[vardepsexclude] += "ZYNQ_NET_BOARD"
zynq_net_kconfig_verify[vardepsexclude] += "ZYNQ_NET_BOARD"
zynq_net_dtb_verify[vardepsexclude] += "ZYNQ_NET_BOARD"

# Runs the generator into ${ZYNQ_NET_GEN_DIR} (replaced as a whole).
zynq_net_gen() {
    rm -rf "${ZYNQ_NET_GEN_DIR}"
    bbnote "zynq-net gen ${ZYNQ_NET_BOARD} -o ${ZYNQ_NET_GEN_DIR}"
    zynq-net gen "${ZYNQ_NET_BOARD}" -o "${ZYNQ_NET_GEN_DIR}"
}

# zynq_net_kconfig_verify PATH/.config: the final kernel config must hold
# every symbol the board asked for (exit 1 lists the missing ones).
zynq_net_kconfig_verify() {
    bbnote "zynq-net kconfig verify ${ZYNQ_NET_BOARD} --config $1"
    if ! zynq-net kconfig verify "${ZYNQ_NET_BOARD}" --config "$1"; then
        bbfatal "zynq-net: the kernel configuration $1 lacks symbols required by ${ZYNQ_NET_BOARD} (see the list above); a dependency is probably off in the base defconfig"
    fi
}

# zynq_net_dtb_verify FILE.dtb: the built DTB must carry every node and
# property the board asked for.
zynq_net_dtb_verify() {
    bbnote "zynq-net dtb verify ${ZYNQ_NET_BOARD} $1"
    if ! zynq-net dtb verify "${ZYNQ_NET_BOARD}" "$1"; then
        bbfatal "zynq-net: $1 does not carry the device-tree changes of ${ZYNQ_NET_BOARD} (see above)"
    fi
}
