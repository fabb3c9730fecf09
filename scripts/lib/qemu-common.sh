# Shared by scripts/qemu-zcu102 and scripts/qemu-p1020 (sourced, POSIX sh).
#
# The guest's init (tests/qemu/init-lib.sh) frames every result on the
# console with markers:
#   ZNQ>>> NAME            a section starts
#   ZNQ| NAME| TEXT        one line of its output
#   ZNQ+ NAME| TEXT        continuation of the previous line (long lines)
#   ZNQ<<< NAME rc=N       the section ends; N is the command's exit code
#   ZNQ:DONE uptime=S      everything was written

# parse_console CONSOLE DIR: DIR/NAME.txt and DIR/NAME.rc for every section.
parse_console() {
    rm -rf "$2"
    mkdir -p "$2"
    tr -d '\r' <"$1" | awk -v dir="$2" '
        function fname(n) { return dir "/" n }
        {
            if ((i = index($0, "ZNQ>>> ")) > 0) {
                name = substr($0, i + 7); sub(/[ \t]+$/, "", name)
                printf "" > fname(name ".txt"); pending = ""; cur = name; next
            }
            if ((i = index($0, "ZNQ<<< ")) > 0) {
                rest = substr($0, i + 7); split(rest, a, " ")
                if (pending != "") { print pending >> fname(a[1] ".txt"); pending = "" }
                rc = a[2]; sub(/^rc=/, "", rc)
                print rc > fname(a[1] ".rc"); close(fname(a[1] ".rc")); close(fname(a[1] ".txt"))
                next
            }
            if ((i = index($0, "ZNQ| ")) > 0) {
                rest = substr($0, i + 5); j = index(rest, "| ")
                name = substr(rest, 1, j - 1); text = substr(rest, j + 2)
                if (pending != "") print pending >> fname(name ".txt")
                pending = text; next
            }
            if ((i = index($0, "ZNQ+ ")) > 0) {
                rest = substr($0, i + 5); j = index(rest, "| ")
                pending = pending substr(rest, j + 2); next
            }
        }'
}

# elapsed START END: seconds between two `date +%s.%N` readings, one decimal.
elapsed() {
    echo "$1 $2" | awk '{ printf "%.1f\n", $2 - $1 }'
}
