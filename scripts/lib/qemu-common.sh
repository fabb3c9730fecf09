# Shared by scripts/qemu-board (scripts/qemu-zcu102, qemu-p1020, qemu-zynq7000)
# (sourced, POSIX sh). The variables each section names are the caller's.
# shellcheck shell=sh disable=SC2154,SC2034
#
# The guest's init (tests/qemu/init-lib.sh) frames every result on the
# console with markers:
#   ZNQ>>> NAME            a section starts
#   ZNQ| NAME| TEXT        one line of its output
#   ZNQ+ NAME| TEXT        continuation of the previous line (long lines)
#   ZNQ<<< NAME rc=N       the section ends; N is the command's exit code
#   ZNQ:DONE uptime=S      everything was written

# seconds_ok VALUE: VALUE is whole seconds >= 1 (`timeout 0` would mean no
# limit at all, defeating a hard limit; `timeout abc` fails only at boot).
seconds_ok() {
    case $1 in '' | *[!0-9]* | 0 | 0*) return 1 ;; esac
    # at most 6 digits (11 days): a longer number overflows the shell's
    # arithmetic in the boot's deadline
    [ "${#1}" -le 6 ]
}

# not_cached WHAT: with --cached-only (cached_only=1), says WHAT is not in
# the cache and exits 3, before anything is downloaded or built;
# otherwise returns.
not_cached() {
    [ "${cached_only:-0}" = 1 ] || return 0
    log "--cached-only: $1"
    exit 3
}

# check_gen DIR: dies (the script's die) unless DIR is `zynq-net gen` output
# (its manifest.json and the tuning plan), so a wrong --gen is refused
# before any download or build instead of booting untuned.
check_gen() {
    [ -d "$1" ] || die "--gen $1: not a directory"
    { [ -f "$1/manifest.json" ] && [ -f "$1/tuning/zynq-net.plan" ]; } ||
        die "--gen $1: not zynq-net gen output (expected manifest.json and tuning/zynq-net.plan; run zynq-net gen BOARD -o DIR)"
}

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

# children_cpu: sets cpu_s to the user + system CPU seconds of this shell's
# finished children (the second line of `times`, e.g. "1m2.500s 0m3.100s").
# Call it directly, never in $(...) or a pipeline: a subshell's children
# have used nothing yet.
children_cpu() {
    times >"$cache/.times"
    cpu_s=$(sed -n 2p "$cache/.times" | awk '{
        t = 0
        for (i = 1; i <= 2; i++) { v = $i; m = v; sub(/m.*/, "", m); s = v; sub(/^[0-9]+m/, "", s); sub(/s$/, "", s); t += m * 60 + s }
        printf "%.2f\n", t }')
}

# elapsed START END: seconds between two `date +%s.%N` readings, one decimal.
elapsed() {
    echo "$1 $2" | awk '{ printf "%.1f\n", $2 - $1 }'
}

# wait_console PATTERN SECONDS: 0 when PATTERN appears in $out/console.log
# before SECONDS pass and while QEMU ($qemu_pid) runs; 1 otherwise.
wait_console() {
    end=$(($(date +%s) + $2))
    while [ "$(date +%s)" -lt "$end" ]; do
        grep -aq "$1" "$out/console.log" 2>/dev/null && return 0
        kill -0 "$qemu_pid" 2>/dev/null || return 1
        sleep 1
    done
    return 1
}

# board_of GENDIR -> the board file named in GENDIR/manifest.json (the
# manifest names it as given to `gen`: a path, or only its file name, then
# looked up among the reference and test boards); nothing when not found.
board_of() {
    b=$(sed -n 's/.*"input"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' "$1/manifest.json" 2>/dev/null | head -n 1)
    [ -n "$b" ] || return 0
    for c in "$b" "$top/$b" "$top/meta-zynq-net/boards/${b##*/}" "$top/tests/qemu/boards/${b##*/}"; do
        if [ -f "$c" ]; then
            echo "$c"
            return 0
        fi
    done
    return 0
}

# ------------------------------------------- Debian binary packages ----
# A private apt configuration for one foreign architecture: the host's
# dpkg architectures and package lists stay untouched, nothing needs root.
# The caller sets: cache (its cache directory), deb_arch (arm64, armhf),
# multiarch (aarch64-linux-gnu, arm-linux-gnueabihf), suite_lists, mirror,
# security, tools_pkgs, a programs() function printing the ELF files the
# initramfs carries, and die/log functions.
apt_opts() {
    aptdir=$cache/apt
    printf '%s\n' \
        -o "APT::Architecture=$deb_arch" -o "APT::Architectures::=$deb_arch" \
        -o "Dir::State=$aptdir/state" -o "Dir::State::Lists=$aptdir/lists" \
        -o "Dir::State::status=$aptdir/status" -o "Dir::Cache=$aptdir/cache" \
        -o "Dir::Cache::archives=$cache/debs" \
        -o "Dir::Etc::SourceList=$aptdir/sources.list" \
        -o "Dir::Etc::SourceParts=$aptdir/sources.list.d" \
        -o "Dir::Etc::Preferences=$aptdir/preferences" \
        -o "Dir::Etc::PreferencesParts=$aptdir/preferences.d" \
        -o "Dir::Etc::TrustedParts=/etc/apt/trusted.gpg.d" \
        -o Debug::NoLocking=1 -o APT::Sandbox::User=root
}
apt_run() { # apt_run apt-get|apt-cache ARGS...
    cmd=$1
    shift
    # shellcheck disable=SC2046 # one option a line, no spaces in $cache (checked)
    "$cmd" $(apt_opts) "$@"
}

apt_setup() {
    aptdir=$cache/apt
    case $cache in *[[:space:]]*) die "cache directory $cache: no whitespace, please" ;; esac
    mkdir -p "$aptdir/state" "$aptdir/lists/partial" "$aptdir/cache" \
        "$aptdir/sources.list.d" "$aptdir/preferences.d" "$cache/debs/partial"
    : >"$aptdir/status"
    : >"$aptdir/preferences"
    key=/usr/share/keyrings/debian-archive-keyring.gpg
    [ -r "$key" ] || die "needs $key (debian-archive-keyring)"
    {
        for s in $suite_lists; do
            echo "deb [signed-by=$key] $mirror $s main"
        done
        echo "deb [signed-by=$key] $security bookworm-security main"
    } >"$aptdir/sources.list"
    # Refresh the lists at most once a day; --cached-only: never (the
    # cached lists, any age).
    if [ "${cached_only:-0}" = 1 ]; then
        [ -n "$(find "$aptdir/lists" -maxdepth 1 -name '*_Packages*' 2>/dev/null | head -n 1)" ] ||
            not_cached "no $deb_arch package lists in $aptdir/lists"
    elif [ -z "$(find "$aptdir/lists" -maxdepth 1 -name '*_Packages*' -mtime -1 2>/dev/null | head -n 1)" ]; then
        log "apt-get update ($deb_arch, private lists in $aptdir)"
        if ! apt_run apt-get -qq update >&2; then
            # Offline with a filled cache still works: keep the old lists.
            [ -n "$(find "$aptdir/lists" -maxdepth 1 -name '*_Packages*' | head -n 1)" ] ||
                die "apt-get update failed"
            log "apt-get update failed: using the cached package lists"
        fi
    fi
}

# pkg_version NAME -> candidate version
pkg_version() {
    apt_run apt-cache show --no-all-versions "$1" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1
}

# cached_deb NAME VERSION -> the downloaded .deb of that version, if any
cached_deb() {
    find "$cache/debs" -maxdepth 1 -name "${1}_*_$deb_arch.deb" | while read -r f; do
        [ "$(dpkg-deb -f "$f" Version)" = "$2" ] && echo "$f"
    done | head -n 1
}

# fetch_pkg NAME: download (cached) and extract into $cache/pkgs/NAME.
fetch_pkg() {
    name=$1
    ver=$(pkg_version "$name")
    [ -n "$ver" ] || die "no $deb_arch package $name"
    dest=$cache/pkgs/$name
    if [ -f "$dest/.version" ] && [ "$(cat "$dest/.version")" = "$ver" ]; then
        return 0
    fi
    deb=$(cached_deb "$name" "$ver")
    if [ -z "$deb" ]; then
        not_cached "$name $ver ($deb_arch) is not in $cache/debs"
        log "downloading $name $ver ($deb_arch)"
        (cd "$cache/debs" && apt_run apt-get -qq download "$name=$ver" >&2) ||
            die "download of $name failed"
        deb=$(cached_deb "$name" "$ver")
    fi
    rm -rf "$dest"
    mkdir -p "$dest"
    dpkg-deb -x "$deb" "$dest"
    dpkg-deb -f "$deb" Depends >"$dest/.depends"
    echo "$ver" >"$dest/.version"
}

# lib_depends NAME: the library packages NAME depends on directly.
lib_depends() {
    tr ',' '\n' <"$cache/pkgs/$1/.depends" | sed 's/|.*//; s/(.*//; s/:any//; s/[[:space:]]//g' |
        grep -E '^(lib|zlib)' | grep -v -- '-bin$' || true
}

# fetch_tools: $tools_pkgs and, following NEEDED until every shared object
# of programs() resolves, the library packages they need; sets all_pkgs.
fetch_tools() {
    pkgs=$tools_pkgs
    for p in $pkgs; do fetch_pkg "$p"; done
    round=0
    while :; do
        round=$((round + 1))
        missing=$(needed_closure 2>&1 >/dev/null | sed -n 's/^MISSING //p' | sort -u)
        [ -z "$missing" ] && break
        [ "$round" -gt 6 ] && die "unresolved libraries: $missing"
        owners=$(echo "$missing" | awk '{print $2}' | sort -u)
        added=0
        for o in $owners; do
            for d in $(lib_depends "$o"); do
                case " $pkgs " in *" $d "*) continue ;; esac
                fetch_pkg "$d"
                pkgs="$pkgs $d"
                added=1
            done
        done
        [ "$added" = 1 ] || die "unresolved libraries: $missing"
    done
    all_pkgs=$pkgs
}

# find_lib SONAME -> path in the extracted packages (first match)
find_lib() {
    for d in "$cache"/pkgs/*/; do
        for sub in "lib/$multiarch" "usr/lib/$multiarch" lib usr/lib; do
            if [ -e "$d$sub/$1" ]; then
                echo "$d$sub/$1"
                return 0
            fi
        done
    done
    return 1
}

# needed_closure: prints the library paths programs() need; reports
# "MISSING soname owner-package" on stderr.
needed_closure() {
    todo=$(programs)
    seen=""
    while [ -n "$todo" ]; do
        next=""
        for f in $todo; do
            owner=$(echo "$f" | sed "s|^$cache/pkgs/\([^/]*\)/.*|\1|")
            for so in $(readelf -d "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
                case " $seen " in *" $so "*) continue ;; esac
                seen="$seen $so"
                if p=$(find_lib "$so"); then
                    echo "$p"
                    next="$next $p"
                else
                    echo "MISSING $so $owner" >&2
                fi
            done
        done
        todo=$next
    done
}

# copy_libs ROOT LOADER: the libraries programs() need into
# ROOT/lib/$multiarch and the dynamic loader LOADER (e.g.
# ld-linux-armhf.so.3) into ROOT/lib.
copy_libs() {
    mkdir -p "$1/lib/$multiarch"
    needed_closure 2>/dev/null | sort -u | while read -r lib; do
        cp -L "$lib" "$1/lib/$multiarch/${lib##*/}"
    done
    ld=$(find_lib "$2") || die "no $2 in the fetched packages"
    cp -L "$ld" "$1/lib/$2"
}

# ---------------------------------------------- Debian source packages ----
# A private apt configuration with deb-src lines only (Debian bookworm):
# the host's sources and package lists stay untouched, nothing needs root.
# The caller sets: cache (its cache directory: apt/ and src/ go there),
# mirror, security, and die/log functions.
srcapt_run() { # srcapt_run apt-get|apt-cache ARGS...
    aptdir=$cache/apt
    cmd=$1
    shift
    "$cmd" -o "Dir::State=$aptdir/state" -o "Dir::State::Lists=$aptdir/lists" \
        -o "Dir::State::status=$aptdir/status" -o "Dir::Cache=$aptdir/cache" \
        -o "Dir::Etc::SourceList=$aptdir/sources.list" \
        -o "Dir::Etc::SourceParts=$aptdir/sources.list.d" \
        -o "Dir::Etc::Preferences=$aptdir/preferences" \
        -o "Dir::Etc::PreferencesParts=$aptdir/preferences.d" \
        -o "Dir::Etc::TrustedParts=/etc/apt/trusted.gpg.d" \
        -o Debug::NoLocking=1 -o APT::Sandbox::User=root "$@"
}

srcapt_setup() {
    aptdir=$cache/apt
    mkdir -p "$aptdir/state" "$aptdir/lists/partial" "$aptdir/cache" \
        "$aptdir/sources.list.d" "$aptdir/preferences.d"
    : >"$aptdir/status"
    : >"$aptdir/preferences"
    key=/usr/share/keyrings/debian-archive-keyring.gpg
    [ -r "$key" ] || die "needs $key (debian-archive-keyring)"
    {
        echo "deb-src [signed-by=$key] $mirror bookworm main"
        echo "deb-src [signed-by=$key] $mirror bookworm-updates main"
        echo "deb-src [signed-by=$key] $security bookworm-security main"
    } >"$aptdir/sources.list"
    if [ "${cached_only:-0}" = 1 ]; then
        [ -n "$(find "$aptdir/lists" -maxdepth 1 -name '*_Sources*' 2>/dev/null | head -n 1)" ] ||
            not_cached "no source package lists in $aptdir/lists"
    elif [ -z "$(find "$aptdir/lists" -maxdepth 1 -name '*_Sources*' -mtime -7 2>/dev/null | head -n 1)" ]; then
        log "apt-get update (deb-src, private lists in $aptdir)"
        if ! srcapt_run apt-get -qq update >&2; then
            [ -n "$(find "$aptdir/lists" -maxdepth 1 -name '*_Sources*' | head -n 1)" ] ||
                die "apt-get update failed"
            log "apt-get update failed: using the cached source lists"
        fi
    fi
}

# src_version PKG -> the candidate source version
src_version() {
    srcapt_run apt-cache showsrc --only-source "$1" 2>/dev/null |
        sed -n 's/^Version: //p' | sort -V | tail -n 1
}

# fetch_src PKG -> prints the unpacked source directory. `apt-get source`
# checks every file against the signed Sources index, then unpacks.
fetch_src() {
    name=$1
    ver=$(src_version "$name")
    [ -n "$ver" ] || die "no source package $name in bookworm"
    upver=${ver#*:}
    upver=${upver%-*}
    dir=$cache/src/$name-$upver
    if [ ! -f "$dir/.version" ] || [ "$(cat "$dir/.version")" != "$ver" ]; then
        not_cached "source $name $ver is not in $cache/src"
        log "apt-get source $name=$ver"
        mkdir -p "$cache/src"
        rm -rf "$dir"
        (cd "$cache/src" && srcapt_run apt-get -qq source "$name=$ver" >&2) ||
            die "apt-get source $name=$ver failed"
        [ -d "$dir" ] || die "apt-get source $name did not unpack $dir"
        echo "$ver" >"$dir/.version"
    fi
    echo "$dir"
}

# ------------------------------------------------- cross-built kernel ----
# The caller sets: ktree_arch (ARCH=), cross (CROSS_COMPILE), kernel_base
# (a defconfig name, or "allnoconfig" for `merge_config.sh -n`), kernel_tag
# (names the recipe in the cache key), kernel_image (path in the build dir
# of what QEMU boots, e.g. arch/arm/boot/zImage), kernel_target (its make
# target), jobs, cached_only, a fragments() function printing the fragment paths in merge
# order, and die/log. Results: kdir (the cache entry: image, config,
# build.log, build-seconds, build-cpu-seconds), kimage (the image in kdir), kernel_cached,
# kernel_build_s.
kernel_key() {
    {
        echo "$kernel_tag"
        dpkg-query -W -f='${Version}\n' linux-source-6.12 2>/dev/null || echo unknown
        "${cross}gcc" --version | head -n 1
        for f in $(fragments); do
            echo "== ${f##*/}"
            cat "$f"
        done
    } | sha256sum | cut -c1-16
}

# kconfig_verify_configured: `zynq-net kconfig verify` of $kboard on the
# configured, not yet compiled kernel ($kb/.config), when the board, its
# fragments and the CLI are known: a kernel that lost one of the board's
# symbols (a dependency off in the test-only base) fails here, in seconds,
# not after the compile. (kconfig_verify_report checks the result again.)
kconfig_verify_configured() {
    [ -n "$kgen" ] && [ -n "${ZYNQ_NET_BIN:-}" ] && [ -n "$kboard" ] || return 0
    "$ZYNQ_NET_BIN" kconfig verify "$kboard" --config "$kb/.config" && return 0
    echo "zynq-net kconfig verify failed on the configured kernel (above): not compiling it"
    return 1
}

kernel_build() {
    key=$(kernel_key)
    kdir=$cache/kernel/$key
    kimage=$kdir/${kernel_image##*/}
    kernel_cached=1
    if [ -f "$kdir/.done" ]; then
        kernel_build_s=$(cat "$kdir/build-seconds")
        return 0
    fi
    kernel_cached=0
    if [ "$cached_only" = 1 ]; then
        log "--cached-only: no kernel $key in $cache/kernel"
        exit 3
    fi
    ktree=$("$top/scripts/kernel-tree") || die "scripts/kernel-tree failed"
    kb=$cache/kbuild
    mkdir -p "$kb" "$kdir"
    km() { nice make -C "$ktree" O="$kb" ARCH="$ktree_arch" CROSS_COMPILE="$cross" "$@"; }
    log "kernel $key: $kernel_base + $(fragments | sed 's|.*/||' | tr '\n' ' ')(log in $kdir/build.log)"
    log "building $kernel_target (make -j$jobs; docs/qemu.md has the time)"
    t0=$(date +%s.%N)
    children_cpu
    cpu0=$cpu_s
    {
        # merge_config.sh is the merge kernel-yocto and tests/kernel use.
        # shellcheck disable=SC2046 # one path a line, without spaces (ours)
        if [ "$kernel_base" = allnoconfig ]; then
            # allnoconfig with the fragments as KCONFIG_ALLCONFIG; the first
            # fragment is the base.
            (cd "$ktree" && ARCH=$ktree_arch CROSS_COMPILE=$cross \
                "$ktree/scripts/kconfig/merge_config.sh" -n -O "$kb" $(fragments))
        else
            km -s "$kernel_base" &&
                (cd "$kb" && "$ktree/scripts/kconfig/merge_config.sh" -m -O "$kb" "$kb/.config" $(fragments))
        fi && km -s olddefconfig && kconfig_verify_configured && km -j"$jobs" "$kernel_target"
    } >"$kdir/build.log" 2>&1 || {
        tail -n 30 "$kdir/build.log" >&2
        die "kernel build failed (see $kdir/build.log)"
    }
    cp "$kb/$kernel_image" "$kdir/${kernel_image##*/}"
    cp "$kb/.config" "$kdir/config"
    elapsed "$t0" "$(date +%s.%N)" >"$kdir/build-seconds"
    # CPU seconds of the build (user + system of the shell's children, from
    # `times`, minus what they had used before): on a loaded machine the
    # wall time says little, CPU / cores estimates the time on idle cores.
    children_cpu
    echo "$cpu_s $cpu0" | awk '{ printf "%.1f\n", $1 - $2 }' >"$kdir/build-cpu-seconds"
    kernel_build_s=$(cat "$kdir/build-seconds")
    touch "$kdir/.done"
}

# kconfig_verify_report BASE_DESC: $out/kernel.config, and
# $out/kconfig-report.txt with `zynq-net kconfig verify` of $kboard on it
# ($out/kconfig-verify.rc its exit code). Needs kdir, kgen, kboard.
kconfig_verify_report() {
    rep=$out/kconfig-report.txt
    cp "$kdir/config" "$out/kernel.config"
    {
        echo "kernel: $1 + $(fragments | sed 's|.*/||' | tr '\n' ' ')"
        if [ -z "$kgen" ]; then
            echo "no generated fragments (no --gen/--kernel-gen)"
        elif [ -z "${ZYNQ_NET_BIN:-}" ] || [ -z "$kboard" ]; then
            echo "kconfig verify: not run (needs --zynq-net and the board file in $kgen/manifest.json)"
        else
            echo "zynq-net kconfig verify $kboard --config kernel.config:"
            rc=0
            "$ZYNQ_NET_BIN" kconfig verify "$kboard" --config "$out/kernel.config" >"$out/kconfig-verify.txt" 2>&1 || rc=$?
            sed 's/^/  /' "$out/kconfig-verify.txt"
            echo "  exit $rc"
            echo "$rc" >"$out/kconfig-verify.rc"
        fi
    } >"$rep"
}

# ------------------------------------------------------ forwarding lab ----
# The routers' forwarding labs (scripts/qemu-p1020 and scripts/qemu-zcu102
# --lab): the guest's two ports are tap devices QEMU creates as
# $lab-t0/$lab-t1, moved into the host network namespaces $lab-client and
# $lab-server (10.21N.1.0/24 and 10.21N.2.0/24, router .1, host end .2);
# the guest half is lab_forward in tests/qemu/init-lib.sh. The caller sets
# lab, lab_subnet, fastpath, out, die/log, and for lab_taps lab_desc (the
# router in the targets file's description).

# lab_check_args NARGS: the lab's options are valid (NARGS: how many words
# the command after -- has).
lab_check_args() {
    case $lab_subnet in [0-9]) ;; *) die "--lab-subnet $lab_subnet: expected 0-9" ;; esac
    if [ -n "$lab" ]; then
        # Namespace and tap names: NAME-client, NAME-server, NAME-t0/t1 (<= 15).
        case $lab in
        *[!A-Za-z0-9_]* | "") die "--lab $lab: letters, digits and _ only" ;;
        esac
        [ "${#lab}" -le 8 ] || die "--lab $lab: at most 8 characters (interface names)"
        [ "$1" -gt 0 ] || die "--lab needs a command after --"
        [ "$(id -u)" = 0 ] || die "--lab needs root (network namespaces, tap devices)"
    fi
    if [ -n "$fastpath" ]; then
        [ -n "$lab" ] || die "--fastpath needs --lab"
        seen=" "
        for d in $fastpath; do
            case $seen in *" $d "*) die "--fastpath: interface $d listed twice" ;; esac
            seen="$seen$d "
            # Interface names (net/core/dev.c dev_valid_name): 1-15 characters.
            case $d in *[!A-Za-z0-9_.-]*) die "--fastpath: interface $d: letters, digits, _ . - only" ;; esac
            [ "${#d}" -le 15 ] || die "--fastpath: interface $d: at most 15 characters"
        done
    fi
    return 0
}

# lab_env FILE: the guest's /etc/zynq-net/qemu.env (read_qemu_env). The
# peers are the host ends of the two links: the guest routes RFC 2544's
# benchmarking networks to them (init-lib.sh lab_routes), 198.18.0.0/16
# towards the client (the tester's port A) and 198.19.0.0/16 towards the
# server (port B), as `bench rfc2544-tester --targets` expects of a router
# it does not own.
lab_env() {
    if [ -n "$lab" ]; then
        {
            echo "mode=lab"
            echo "eth0_addr=10.21$lab_subnet.1.1/24"
            echo "eth1_addr=10.21$lab_subnet.2.1/24"
            echo "eth0_peer=10.21$lab_subnet.1.2"
            echo "eth1_peer=10.21$lab_subnet.2.2"
            echo "fastpath=$fastpath"
        } >"$1"
    else
        echo "mode=status" >"$1"
    fi
}

# lab_fastpath_desc: the arm, as the targets file and result.env say it.
lab_fastpath_desc() {
    if [ -n "$fastpath" ]; then
        echo "nftables flowtable on $fastpath (fast path)"
    else
        echo "no flowtable (slow path)"
    fi
}

lab_setup() {
    for ns in "$lab-client" "$lab-server"; do
        ip netns del "$ns" 2>/dev/null || true
        ip netns add "$ns"
        ip -n "$ns" link set lo up
    done
    lab_up=1
}

# lab_taps: QEMU created $lab-t0/t1 in this namespace; move them into the
# client/server namespaces as eth0, address them, write $out/targets.json.
lab_taps() {
    n=$lab_subnet
    i=0
    for ns in "$lab-client" "$lab-server"; do
        t=$lab-t$i
        ip link set "$t" netns "$ns"
        ip -n "$ns" link set "$t" name eth0
        ip -n "$ns" addr add "10.21$n.$((i + 1)).2/24" dev eth0
        ip -n "$ns" link set eth0 up
        other=$((2 - i))
        ip -n "$ns" route add "10.21$n.$other.0/24" via "10.21$n.$((i + 1)).1"
        i=$((i + 1))
    done
    # The targets file of `zynq-net bench` (tools/crates/zynq-net-bench/src/targets.rs).
    cat >"$out/targets.json" <<EOT
{"format": "zynq-net-bench-targets 1",
 "client": {"host": {"kind": "netns", "name": "$lab-client"}, "address": "10.21$n.1.2",
            "ifaces": [], "pace_iface": "eth0", "nice": -10},
 "server": {"host": {"kind": "netns", "name": "$lab-server"}, "address": "10.21$n.2.2",
            "ifaces": [], "nice": -10},
 "description": "$lab_desc between two host namespaces; $(lab_fastpath_desc); routes 198.18.0.0/16 to the client, 198.19.0.0/16 to the server",
 "udp_socket_buffer": 4194304}
EOT
}

# json_word VALUE: VALUE when it is a plain word ([A-Za-z0-9_.+:~-], at
# most 200 characters: a board name, a kernel release, a hex digest), else
# nothing (the field is then left out of image.json, never half-quoted).
json_word() {
    case $1 in '' | *[!A-Za-z0-9_.+:~-]*) return 0 ;; esac
    [ "${#1}" -le 200 ] && printf '%s' "$1"
    return 0
}

# image_digest DIR: SHA-256 over the initramfs tree DIR without the run's
# lab settings (etc/zynq-net/qemu.env: addresses and the arm): every file's
# path and content, and every symlink's target, in C sort order. Both arms
# of a lab boot the same image and differ only there.
image_digest() {
    (cd "$1" && find . ! -type d ! -path ./etc/zynq-net/qemu.env | LC_ALL=C sort | while read -r f; do
        if [ -L "$f" ]; then
            printf 'L %s %s\n' "$f" "$(readlink "$f")"
        else
            printf 'F %s %s\n' "$f" "$(sha256sum <"$f" | cut -c1-64)"
        fi
    done) | sha256sum | cut -c1-64
}

# lab_image_json: $out/image.json, the image the lab booted, in the record
# `bench compare` checks two runs against (tools/crates/zynq-net-bench/src/
# image.rs, `zynq-net-image 1`; scripts/zynq-net-farm writes the same for a
# booked board): the board of --gen's manifest, the kernel release from the
# boot banner on the console, the SHA-256 of the kernel image booted, of
# the DTB (when one is booted), of the initramfs tree without the lab's
# settings (image_digest) and of the plan. The caller sets out, kimage, ir
# (the initramfs tree), plan, gen, lab, smp, script (its name); dtb when it
# boots one.
lab_image_json() {
    board=""
    [ -z "$gen" ] || board=$(sed -n 's/^[[:space:]]*"board"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' "$gen/manifest.json" | head -n 1)
    release=$(tr -d '\r' <"$out/console.log" | sed -n 's/.*Linux version \([^ ]*\) .*/\1/p' | head -n 1)
    {
        printf '{"format": "zynq-net-image 1",\n "booted_by": "scripts/%s --lab %s (QEMU, -smp %s; %s)"' \
            "${script:-qemu-*}" "$lab" "$smp" "$(lab_fastpath_desc)"
        for kv in "board=$(json_word "$board")" "kernel_release=$(json_word "$release")" \
            "kernel_sha256=$(sha256sum <"$kimage" | cut -c1-64)" \
            "dtb_sha256=$([ -n "${dtb:-}" ] && sha256sum <"$dtb" | cut -c1-64)" \
            "image_sha256=$(image_digest "$ir")" \
            "plan_sha256=$([ -n "$plan" ] && sha256sum <"$plan" | cut -c1-64)"; do
            [ -z "${kv#*=}" ] || printf ',\n "%s": "%s"' "${kv%%=*}" "${kv#*=}"
        done
        printf '}\n'
    } >"$out/image.json.tmp" && mv "$out/image.json.tmp" "$out/image.json"
}

lab_down() {
    for ns in "$lab-client" "$lab-server"; do
        ip netns del "$ns" 2>/dev/null || true
    done
    lab_up=0
}

# lab_run TIMEOUT CMD...: with QEMU ($qemu_pid) booting, wait up to TIMEOUT
# seconds for ZNQ:READY, then wire the taps and run CMD on the host
# (ZNQ_LAB_TARGETS: the targets file; ZNQ_LAB_IMAGE: image.json, for CMD to
# copy into its bench run directories; its exit code in lab_rc and
# $out/lab-cmd.rc), ping the router to end the lab and wait for ZNQ:DONE.
lab_run() {
    lab_timeout=$1
    shift
    lab_rc=""
    sleep 1
    if wait_console 'ZNQ:READY' "$lab_timeout"; then
        lab_taps
        lab_image_json
        log "router forwarding: running $*"
        lab_rc=0
        ZNQ_LAB_TARGETS=$out/targets.json ZNQ_LAB_IMAGE=$out/image.json "$@" || lab_rc=$?
        echo "$lab_rc" >"$out/lab-cmd.rc"
        # The init forwards until the router itself is pinged, then
        # dumps its counters and finishes.
        ip netns exec "$lab-client" ping -c 3 -W 2 "10.21$lab_subnet.1.1" >/dev/null 2>&1 || true
        wait_console 'ZNQ:DONE' 120 || true
    else
        log "the router never reported ZNQ:READY"
    fi
}

# stop_qemu: QEMU ($qemu_pid) is stopped and reaped (qemu_rc its exit code).
stop_qemu() {
    # Whatever the guest prints after ZNQ:DONE is its power-off.
    sleep 1
    if kill -0 "$qemu_pid" 2>/dev/null; then
        kill "$qemu_pid" 2>/dev/null || true
    fi
    qemu_rc=0
    wait "$qemu_pid" || qemu_rc=$?
    qemu_pid=""
}

# lab_cleanup (the EXIT trap): QEMU stopped, the namespaces gone.
# shellcheck disable=SC2317 # called from the EXIT trap
lab_cleanup() {
    if [ -n "${qemu_pid:-}" ] && kill -0 "$qemu_pid" 2>/dev/null; then
        kill "$qemu_pid" 2>/dev/null || true
        sleep 1
        kill -9 "$qemu_pid" 2>/dev/null || true
    fi
    [ "${lab_up:-0}" = 1 ] && lab_down
    return 0
}

# patched_qemu TARGET: sets qemu_bin to the qemu-system-TARGET that
# scripts/qemu-build builds with scripts/qemu-patches/ (cached by its
# inputs); with cached_only=1 exits 3 when it is not cached.
patched_qemu() {
    qrc=0
    if [ "$cached_only" = 1 ]; then
        qemu_bin=$("$top/scripts/qemu-build" --cached-only "$1") || qrc=$?
    else
        qemu_bin=$("$top/scripts/qemu-build" "$1") || qrc=$?
    fi
    [ "$qrc" = 0 ] || { [ "$qrc" = 3 ] && exit 3; die "scripts/qemu-build $1 failed"; }
}

# flowtable_load -> prints the static flowtable-load binary for the guest,
# built from tests/qemu/flowtable-load.c with ${cross}gcc (the guest has no
# nft) and cached in $cache/userland by the source's and the compiler's
# hash. The caller sets cross, cache, top, cached_only.
flowtable_load() {
    ftload_src=$top/tests/qemu/flowtable-load.c
    fkey=$({
        cat "$ftload_src"
        "${cross}gcc" --version | head -n 1
    } | sha256sum | cut -c1-16)
    fdest=$cache/userland/flowtable-load-$fkey
    if [ ! -f "$fdest/.done" ]; then
        [ "$cached_only" = 0 ] || { log "--cached-only: flowtable-load $fkey is not built"; exit 3; }
        mkdir -p "$fdest"
        "${cross}gcc" -Wall -Wextra -Werror -O2 -static -o "$fdest/flowtable-load" "$ftload_src" ||
            die "cross-build of flowtable-load failed"
        "${cross}strip" "$fdest/flowtable-load"
        touch "$fdest/.done"
    fi
    echo "$fdest/flowtable-load"
}
