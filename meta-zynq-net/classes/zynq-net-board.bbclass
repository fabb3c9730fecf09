# nooelint: oelint.bbclass.underscores
# (dashed like the other zynq-net classes: `inherit zynq-net-board`)
# zynq-net-board.bbclass: the few settings of the board description that
# decide, at parse time, what goes into the image: the forwarding fast path
# (fastpath.flowtable / fastpath.asf) and the irqbalance policy
# (system.irqbalance). Inherited by zynq-net.bbclass and by recipes that
# need the board but not the generator (zynq-net-flowtable).
#
# The board file is read with PyYAML (host package python3-yaml; kas needs
# it too) and marked as a parse dependency, so editing it reparses the
# recipes that read it. Everything else in the board is the generator's
# business (`zynq-net gen` validates the whole file at build time).

ZYNQ_NET_BOARDS_DIR ?= "${ZYNQ_NET_LAYERDIR}/boards"
ZYNQ_NET_BOARDS_DIR[doc] = "Folder of the reference board descriptions shipped with meta-zynq-net."

# MACHINE:board pairs used when ZYNQ_NET_BOARD is not set.
ZYNQ_NET_DEFAULT_BOARDS ?= "zcu102-zynqmp:zcu102 zynqmp-zcu102-sdt-full:zcu102 zc702-zynq7:zc702 p1020rdb:p1020rdb qemuarm64:qemuarm64"
ZYNQ_NET_DEFAULT_BOARDS[doc] = "Space-separated MACHINE:BOARD pairs: the default ZYNQ_NET_BOARD is ${ZYNQ_NET_BOARDS_DIR}/BOARD.yml for the current MACHINE (when that file exists)."

def zynq_net_default_board(d):
    import os
    machine = d.getVar('MACHINE') or ''
    for pair in (d.getVar('ZYNQ_NET_DEFAULT_BOARDS') or '').split():
        mach, _, board = pair.partition(':')
        if mach == machine and board:
            path = os.path.join(d.getVar('ZYNQ_NET_BOARDS_DIR'), board + '.yml')
            return path if os.path.exists(path) else ''
    return ''

ZYNQ_NET_BOARD ??= "${@zynq_net_default_board(d)}"
ZYNQ_NET_BOARD[doc] = "Absolute path of the board description (YAML) that zynq-net generates the kernel config and device-tree fragments and the boot-time tuning from. Default: the reference board for MACHINE from ZYNQ_NET_DEFAULT_BOARDS. Empty: zynq-net is off for this machine."

# (oelint cannot see the users of these two: the image, the packagegroup
# and the recipes with file:// sources)
# nooelint: oelint.vars.mispell.unknown
ZYNQ_NET_IRQBALANCE_MODE ??= "${@zynq_net_board_irqbalance(d)}"
# nooelint: oelint.vars.mispell.unknown
ZYNQ_NET_IRQBALANCE_MODE[doc] = "irqbalance policy of the image: 'absent' (kept out of zynq-net-image), 'ban-pinned' (installed, with the generated policy script that bans the IRQs the board pins) or 'running'. Default: system.irqbalance of ZYNQ_NET_BOARD."

# Where do_unpack puts file:// sources: UNPACKDIR from styhead on, WORKDIR
# in scarthgap (which has no UNPACKDIR). Recipes whose only sources are
# file:// set S to this instead of "${WORKDIR}".
# nooelint: oelint.vars.mispell.unknown
ZYNQ_NET_FILES_DIR = "${@d.getVar('UNPACKDIR') or d.getVar('WORKDIR')}"

def zynq_net_board_data(d):
    """The board description as a dict ({} without a board); stops the
    parse with the reason when the file cannot be read as YAML."""
    import os
    board = d.getVar('ZYNQ_NET_BOARD')
    if not board or not os.path.isfile(board):
        return {}
    try:
        import yaml
    except ImportError:
        bb.fatal("zynq-net reads the board description %s at parse time with PyYAML, which "
                 "the build host lacks: install python3-yaml (Debian/Ubuntu) or PyYAML "
                 "(scripts/yocto-host-check lists every missing host tool)" % board)
    bb.parse.mark_dependency(d, board)
    try:
        with open(board) as f:
            data = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        bb.fatal("ZYNQ_NET_BOARD = \"%s\": cannot read it: %s (zynq-net check %s says more)"
                 % (board, e, board))
    return data if isinstance(data, dict) else {}

def zynq_net_board_section(d, key):
    value = zynq_net_board_data(d).get(key)
    return value if isinstance(value, dict) else {}

def zynq_net_board_fastpath(d):
    """'flowtable', 'asf' or 'none': what the board's fastpath section asks for."""
    fastpath = zynq_net_board_section(d, 'fastpath')
    if fastpath.get('flowtable'):
        return 'flowtable'
    if fastpath.get('asf'):
        return 'asf'
    return 'none'

def zynq_net_board_irqbalance(d):
    """system.irqbalance of the board: absent (default), ban-pinned or running."""
    return str(zynq_net_board_section(d, 'system').get('irqbalance') or 'absent')

def zynq_net_board_flowtable(d, what):
    """fastpath.flowtable of the board: 'devices' (space-separated interface
    names, each checked like the generator does) or 'hw_offload' ('1'/'0')."""
    import re
    table = zynq_net_board_section(d, 'fastpath').get('flowtable')
    if not isinstance(table, dict):
        return ''
    if what == 'hw_offload':
        return '1' if table.get('hw_offload') is True else '0'
    names = table.get('interfaces') or []
    for name in names:
        if not isinstance(name, str) or not re.fullmatch(r'[A-Za-z0-9_.@-]{1,15}', name):
            bb.fatal("ZYNQ_NET_BOARD = \"%s\": fastpath.flowtable.interfaces: %r is not an "
                     "interface name (1-15 characters, no '/', ':' or white space)"
                     % (d.getVar('ZYNQ_NET_BOARD'), name))
    return ' '.join(names)
