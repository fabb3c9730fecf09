# Stage times of a CI run (sourced by .ci/run and tests/run-all, POSIX sh).
# shellcheck shell=sh
#
# stage NAME CMD [ARG...] runs CMD and, when ZYNQ_NET_STAGE_TIMES names a
# file, appends one tab-separated line to it:
#   NAME  WALL_S  CPU_S  RC
# WALL_S is the stage's wall time, CPU_S the user + system seconds of the
# processes it ran (`times`: children this shell waited for, and theirs).
# On a shared machine the wall time says little; CPU_S / cores estimates
# the time on idle cores. Returns CMD's exit status. pytest adds a line per
# test group the same way (tests/stage_times.py).
# stage_report FILE prints the collected lines as a table.

# _stage_cpu: the second line of `times` (this shell's finished children,
# e.g. "1m2.500s 0m3.100s") as seconds. Never call it in $(...): a
# subshell's children have used nothing yet.
# A new file each time: a stage run in a background subshell must not
# share it.
_stage_cpu() {
    _stage_tmp=$(mktemp "${TMPDIR:-/tmp}/stage-times.XXXXXX")
    times >"$_stage_tmp"
    _stage_cpu_s=$(sed -n 2p "$_stage_tmp" | awk '{
        t = 0
        for (i = 1; i <= 2; i++) { v = $i; m = v; sub(/m.*/, "", m); s = v; sub(/^[0-9]+m/, "", s); sub(/s$/, "", s); t += m * 60 + s }
        printf "%.1f\n", t }')
    rm -f "$_stage_tmp"
}

stage() {
    _stage_name=$1
    shift
    _stage_cpu
    _stage_c0=$_stage_cpu_s
    _stage_t0=$(date +%s.%N)
    _stage_rc=0
    "$@" || _stage_rc=$?
    _stage_t1=$(date +%s.%N)
    _stage_cpu
    if [ -n "${ZYNQ_NET_STAGE_TIMES:-}" ]; then
        printf '%s\t%s\t%s\t%s\n' "$_stage_name" \
            "$(echo "$_stage_t0 $_stage_t1" | awk '{ printf "%.1f", $2 - $1 }')" \
            "$(echo "$_stage_c0 $_stage_cpu_s" | awk '{ printf "%.1f", $2 - $1 }')" \
            "$_stage_rc" >>"$ZYNQ_NET_STAGE_TIMES"
    fi
    return "$_stage_rc"
}

stage_report() {
    [ -s "$1" ] || { echo "stage times: none recorded"; return 0; }
    echo "stage times (wall s on this machine; CPU s = user + system of the stage's processes):"
    awk -F '\t' '
        { printf "  %-56s %8.1f s wall %8.1f s CPU  rc %s\n", $1, $2, $3, $4; w += $2; c += $3 }
        END { printf "  %-56s %8.1f s wall %8.1f s CPU\n", "sum of stages", w, c }' "$1"
}
