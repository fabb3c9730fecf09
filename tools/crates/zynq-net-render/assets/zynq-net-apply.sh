#!/bin/sh
# zynq-net-apply: applies, checks and reverts a zynq-net tuning plan.
# Fixed program (same bytes for every board); the plan is the data
# (docs/plan-format.md). Usage, exit codes and files: docs/applier.md.
# POSIX sh (busybox ash, dash): `read -r`, no eval, every field validated,
# sysfs/procfs through shell builtins (few forks).
# Needs 64-bit shell arithmetic (dash: intmax_t; busybox: SH_MATH_64).
# Unquoted word splitting is deliberate: set -f is on (no globs). Functions
# called by name (v_VERB_*) or through with_link_down look unreachable.
# shellcheck disable=SC2086,SC2317

set -f
set -u
LC_ALL=C
export LC_ALL
NL='
'
PROC=${ZYNQ_NET_PROC:-/proc}
SYS=${ZYNQ_NET_SYS:-/sys}
STATE=${ZYNQ_NET_STATE:-/var/lib/zynq-net}
LOG=${ZYNQ_NET_LOG:-/var/log/zynq-net.log}
LOCK=${ZYNQ_NET_LOCK:-/run/zynq-net.lock}
WAIT_MAX=${ZYNQ_NET_WAIT_MAX:-30}
LOCK_WAIT=${ZYNQ_NET_LOCK_WAIT:-10}
case $WAIT_MAX in ''|*[!0-9]*) WAIT_MAX=30 ;; esac
case $LOCK_WAIT in ''|*[!0-9]*) LOCK_WAIT=10 ;; esac

usage() {
	cat <<'EOF'
usage: zynq-net-apply apply [--quiet] [--json] [--iface IFACE [--hotplug]] PLAN
       zynq-net-apply status [--json] [--iface IFACE] PLAN
       zynq-net-apply revert [--quiet] [--json]
       zynq-net-apply --help
apply   runs the plan: every step is read, written if it differs (the old
        value is saved for revert), read back and reported as applied,
        unchanged, skipped (with the reason) or failed.
status  compares the plan with the running system (ok/differs/skipped).
revert  restores every value saved by apply since boot.
exit: 0 all applied/unchanged (status: all ok), 3 some skipped, failed or
      differing, 2 bad usage or plan, 4 another instance holds the lock.
env:  ZYNQ_NET_PROC ZYNQ_NET_SYS ZYNQ_NET_STATE ZYNQ_NET_LOG ZYNQ_NET_LOCK
      ZYNQ_NET_WAIT_MAX ZYNQ_NET_LOCK_WAIT (see docs/applier.md)
EOF
}

# printable TEXT: PR = TEXT, control characters as '?' (no ESC to the terminal)
printable() {
	PR='' pr_s=$1
	while :; do
		case $pr_s in
		*[[:cntrl:]]*) pr_p=${pr_s%%[[:cntrl:]]*}; PR="$PR$pr_p?"; pr_s=${pr_s#"$pr_p"?} ;;
		*) PR=$PR$pr_s; return ;;
		esac
	done
}
die() { printable "$1"; printf 'zynq-net-apply: %s\n' "$PR" >&2; exit "${2:-2}"; }

# --- output
CNT_A=0 CNT_U=0 CNT_S=0 CNT_F=0 CNT_O=0 CNT_D=0 CNT_R=0
JSON=0 QUIET=0 HOTPLUG=0 JSEP=
json_esc() {
	jec_s=$1 JE=
	while :; do
		case $jec_s in
		*[\\\"]*)
			jec_p=${jec_s%%[\\\"]*}; jec_c=${jec_s#"$jec_p"}; jec_r=${jec_c#?}; jec_c=${jec_c%"$jec_r"}
			JE=$JE$jec_p\\$jec_c; jec_s=$jec_r ;;
		*) JE=$JE$jec_s; break ;;
		esac
	done
}
# report RESULT VERB IFACE TARGET DESIRED ACTUAL DETAIL
report() {
	case $1 in
	applied) CNT_A=$((CNT_A + 1)) ;; unchanged) CNT_U=$((CNT_U + 1)) ;;
	skipped) CNT_S=$((CNT_S + 1)) ;; failed) CNT_F=$((CNT_F + 1)) ;;
	ok) CNT_O=$((CNT_O + 1)) ;; differs) CNT_D=$((CNT_D + 1)) ;;
	restored) CNT_R=$((CNT_R + 1)) ;;
	esac
	rt_line="$1 $2 $3 $4 = $5"
	[ -n "$6" ] && [ "$6" != "$5" ] && rt_line="$rt_line (actual $6)"
	[ -n "$7" ] && rt_line="$rt_line -- $7"
	[ "$HAVE_OUT" = 1 ] && printf '%s\n' "$rt_line" >&5
	if [ "$JSON" = 1 ]; then
		json_esc "$7"
		printf '%s{"result":"%s","verb":"%s","iface":"%s","target":"%s","desired":"%s","actual":"%s","detail":"%s"}' \
			"$JSEP" "$1" "$2" "$3" "$4" "$5" "$6" "$JE"
		JSEP=",$NL"
	elif [ "$QUIET" = 0 ]; then
		printf '%s\n' "$rt_line"
	fi
}

# --- validation
is_num() { case $1 in ''|*[!0-9]*) return 1 ;; esac; [ ${#1} -le 10 ]; }
is_ifname() {
	case $1 in ''|.|..|*[!A-Za-z0-9_.-]*) return 1 ;; esac
	[ ${#1} -le 15 ]
}
is_mask() {
	case $1 in ''|,*|*,|*,,*|*[!0-9a-fA-F,]*) return 1 ;; esac
	imk_m=$1
	while :; do
		imk_g=${imk_m%%,*}
		[ ${#imk_g} -le 8 ] || return 1
		case $imk_m in *,*) imk_m=${imk_m#*,} ;; *) return 0 ;; esac
	done
}
is_word() { case $1 in ''|*[!A-Za-z0-9_.-]*) return 1 ;; esac; [ ${#1} -le 64 ]; }
# as gen's rules irq-number, irq-pattern-broad
is_pattern() {
	case $1 in *[!A-Za-z0-9_.:@*?-]*) return 1 ;; *[!0-9]*) ;; *) return 1 ;; esac
	ipn_l=$1
	while :; do case $ipn_l in *[*?]*) ipn_l=${ipn_l%%[*?]*}${ipn_l#*[*?]} ;; *) break ;; esac; done
	[ ${#1} -le 64 ] && [ ${#ipn_l} -ge 3 ]
}
is_mac() { case $1 in [0-9a-f][0-9a-f]:[0-9a-f][0-9a-f]:[0-9a-f][0-9a-f]:[0-9a-f][0-9a-f]:[0-9a-f][0-9a-f]:[0-9a-f][0-9a-f]) ;; *) return 1 ;; esac; }
is_queue() { case $1 in rx-*|tx-*) is_num "${1#??-}" ;; *) return 1 ;; esac; }
is_ipv4() {
	ii4_a=${1%/*}
	if [ "$ii4_a" != "$1" ]; then
		is_num "${1#*/}" && [ "${1#*/}" -le 32 ] || return 1
	fi
	case $ii4_a in *.*.*.*.*) return 1 ;; *.*.*.*) ;; *) return 1 ;; esac
	ii4_r=$ii4_a.
	while [ -n "$ii4_r" ]; do
		ii4_o=${ii4_r%%.*}
		is_num "$ii4_o" && [ ${#ii4_o} -le 3 ] && [ "$ii4_o" -le 255 ] || return 1
		ii4_r=${ii4_r#*.}
	done
}
is_sysctl_key() {
	case $1 in ''|/*|*/|*..*|*//*|*[!A-Za-z0-9_./-]*) return 1 ;; esac
	[ ${#1} -le 128 ]
}
is_sysctl_val() { case $1 in ''|*[!A-Za-z0-9_.:,/+-]*) return 1 ;; esac; }

# --- masks
# mask_groups MASK -> MG: decimal 32-bit groups, LSB first
mask_groups() {
	mgs_r=$1 MG=
	while :; do
		mgs_g=${mgs_r##*,}
		MG="$MG $((0x$mgs_g))"
		case $mgs_r in *,*) mgs_r=${mgs_r%,*} ;; *) break ;; esac
	done
}
# canon MASK -> CANON: without leading zero groups, for comparison
canon() {
	mask_groups "$1"
	CANON='' cn_z=
	for cn_g in $MG; do
		if [ "$cn_g" = 0 ]; then cn_z="$cn_z,0"; else CANON="$CANON$cn_z,$cn_g"; cn_z=; fi
	done
	CANON=${CANON#,}
}
hex8() {
	h8_n=$1 H='' h8_i=0
	while [ $h8_i -lt 8 ]; do
		case $((h8_n & 15)) in
		10) h8_d=a ;; 11) h8_d=b ;; 12) h8_d=c ;; 13) h8_d=d ;; 14) h8_d=e ;; 15) h8_d=f ;;
		*) h8_d=$((h8_n & 15)) ;;
		esac
		H=$h8_d$H; h8_n=$((h8_n >> 4)); h8_i=$((h8_i + 1))
	done
}
ONLINE=
# load_online: ONLINE = decimal groups (LSB first) of the online CPUs
load_online() {
	ONLINE=
	loe_l=
	{ read -r loe_l <"$SYS/devices/system/cpu/online"; } 2>/dev/null
	[ -n "$loe_l" ] || loe_l=0-1023
	loe_l=$loe_l,
	while [ -n "$loe_l" ]; do
		loe_rg=${loe_l%%,*}; loe_l=${loe_l#*,}
		loe_a=${loe_rg%-*}; loe_b=${loe_rg#*-}
		{ is_num "$loe_a" && is_num "$loe_b"; } || continue
		loe_gi=$((loe_a / 32))
		while [ $loe_gi -le $((loe_b / 32)) ]; do
			loe_lo=$((loe_a > loe_gi * 32 ? loe_a - loe_gi * 32 : 0))
			loe_hi=$((loe_b < loe_gi * 32 + 31 ? loe_b - loe_gi * 32 : 31))
			loe_bits=$(( ((1 << (loe_hi - loe_lo + 1)) - 1) << loe_lo ))
			loe_new='' loe_k=0
						set -- $ONLINE
			while [ $loe_k -le $loe_gi ] || [ $# -gt 0 ]; do
				loe_cur=${1:-0}
				[ $# -gt 0 ] && shift
				[ $loe_k -eq $loe_gi ] && loe_cur=$((loe_cur | loe_bits))
				loe_new="$loe_new $loe_cur"; loe_k=$((loe_k + 1))
			done
			ONLINE=$loe_new
			loe_gi=$((loe_gi + 1))
		done
	done
}
# mask_online MASK -> MASKED, DROPPED (cpu list), ALLGONE=1
# when the mask named CPUs but none is online
mask_online() {
	[ -n "$ONLINE" ] || load_online
	mask_groups "$1"
	DROPPED='' MASKED='' ALLGONE=0
	moe_k=0 moe_any=0 moe_left=0 moe_chg=0 moe_keeps=''
		set -- $ONLINE
	for moe_g in $MG; do
		moe_o=${1:-0}; [ $# -gt 0 ] && shift
		moe_keep=$((moe_g & moe_o)); moe_drop=$((moe_g & ~moe_o))
		[ "$moe_g" != 0 ] && moe_any=1
		[ "$moe_keep" != 0 ] && moe_left=1
		if [ "$moe_drop" != 0 ]; then
			moe_chg=1 moe_b=0
			while [ $moe_b -lt 32 ]; do
				[ $(( (moe_drop >> moe_b) & 1 )) = 1 ] && DROPPED="$DROPPED,$((moe_k * 32 + moe_b))"
				moe_b=$((moe_b + 1))
			done
		fi
		moe_keeps="$moe_keep ${moe_keeps-}"
		moe_k=$((moe_k + 1))
	done
	DROPPED=${DROPPED#,} MASKED=$MASK_IN
	if [ $moe_chg = 1 ]; then
		# format only when CPUs were dropped
		MASKED=''
		for moe_g in $moe_keeps; do hex8 "$moe_g"; MASKED=$MASKED${MASKED:+,}$H; done
	fi
	# no leading 0 groups: bitmap_parse refuses them (EOVERFLOW)
	while :; do
		case $MASKED in *,*) ;; *) break ;; esac
		case ${MASKED%%,*} in *[!0]*) break ;; esac
		MASKED=${MASKED#*,}
	done
	[ $moe_any = 1 ] && [ $moe_left = 0 ] && ALLGONE=1
	return 0
}

# --- errors
ERRF=
# classify TEXT -> CLS (skipped|failed), WHY
classify() {
	cy_t=${1%%"$NL"*}
	CLS=skipped
	case $1 in
	*"Operation not supported"*|*"not supported"*|*"qdisc kind is unknown"*|*"Unknown action"*|*"Unknown filter"*)
		WHY="unsupported (EOPNOTSUPP: $cy_t)" ;;
	*"Input/output error"*) WHY="not changeable (EIO)" ;;
	*"Operation not permitted"*) WHY="refused (EPERM)" ;;
	*"Permission denied"*) WHY="refused (EACCES)" ;;
	*"Read-only file system"*) WHY="read-only (EROFS)" ;;
	*"No such file"*|*"No such device"*|*"nonexistent"*|*"does not exist"*|*"Cannot find device"*) WHY="absent (ENOENT/ENODEV)" ;;
	*"Device or resource busy"*) CLS=failed WHY="busy (EBUSY)" ;;
	*"Invalid argument"*) CLS=failed WHY="refused value (EINVAL: $cy_t)" ;;
	*) CLS=failed WHY="error: ${cy_t:-unknown}" ;;
	esac
	# keep the report on one line
	case $WHY in *"$NL"*) WHY=${WHY%%"$NL"*} ;; esac
}
read_errf() { ref_e='' ERRTXT=; while IFS= read -r ref_e || [ -n "$ref_e" ]; do ERRTXT="$ERRTXT${ERRTXT:+$NL}$ref_e"; ref_e=; done <"$ERRF"; }

# rd FILE -> VAL (first line), 1 when unreadable. Not for /proc/sys: the
# shells' read takes one byte per read(2) and proc_dointvec answers EOF at
# any offset but 0 (rdk reads those with one cat).
rd() { VAL=; { IFS= read -r VAL <"$1"; } 2>/dev/null || [ -n "$VAL" ]; }
rdk() { # KIND FILE: rd, or one cat for sysctls (KIND str)
	[ "$1" = str ] || { rd "$2"; return; }
	VAL=$(cat "$2" 2>/dev/null) || return 1
	squash "${VAL%%"$NL"*}"; VAL=$SQ
}
# wr FILE VALUE -> 0 ok, else CLS/WHY set
wr() {
	{ printf '%s\n' "$2" >"$1"; } 2>"$ERRF" && return 0
	# the shells do not say which errno a write got: ask dd (failure path only)
	printf '%s\n' "$2" >"$ERRF.v"
	if [ -n "$T_DD" ]; then
		"$T_DD" if="$ERRF.v" of="$1" conv=notrunc 2>"$ERRF" >/dev/null && return 0
	fi
	read_errf; classify "$ERRTXT"
	return 1
}
# squash VALUE -> SQ: whitespace runs folded to single spaces
squash() { set -- $1; SQ=$*; }

# --- checksums
# cksum_of all|body FILE -> SUM "CRC BYTES" (POSIX cksum) of FILE or of all
# but its last line; without cksum (poky's busybox) od + shell arithmetic
find_cksum() { T_CKSUM=; [ "${ZYNQ_NET_CKSUM-}" = od ] && return 0; find_tool cksum && T_CKSUM=$TOOL; }
crc_byte() { # BYTE: CKC updated (CRC-32, poly 0x04c11db7, MSB first)
	CKC=$(( CKC ^ ($1 << 24) )) ckb_i=0
	while [ $ckb_i -lt 8 ]; do
		CKC=$(( CKC & 0x80000000 ? ((CKC << 1) ^ 0x04c11db7) & 0xffffffff : (CKC << 1) & 0xffffffff )) ckb_i=$((ckb_i + 1))
	done
}
cksum_of() {
	SUM=
	if [ -n "$T_CKSUM" ]; then
		if [ "$1" = body ]; then SUM=$(sed '$d' "$2" | "$T_CKSUM") || return 1
		else SUM=$("$T_CKSUM" <"$2") || return 1; fi
		set -- $SUM
		SUM="${1-} ${2-}"
		return 0
	fi
	if [ "$1" = body ]; then cko_b=$(sed '$d' "$2" | od -An -v -tu1) || return 1
	else cko_b=$(od -An -v -tu1 <"$2") || return 1; fi
	CKC=0 cko_n=0
	for cko_x in $cko_b; do crc_byte "$cko_x"; cko_n=$((cko_n + 1)); done
	cko_l=$cko_n
	while [ "$cko_l" -gt 0 ]; do crc_byte $((cko_l & 255)); cko_l=$((cko_l >> 8)); done
	SUM="$(( ~CKC & 0xffffffff )) $cko_n"
}
DMG="it is damaged: nothing was changed"
# check_end FILE WHAT END-FIELDS COUNT: "end COUNT CKSUM BYTES" matches, or die
check_end() {
	cen_f=$1 cen_w=$2 cen_n=$4
	set -- $3
	{ [ $# -eq 4 ] && [ "$1" = end ] && is_num "$2" && is_num "$3" && is_num "$4"; } ||
		die "$cen_f: $cen_w: malformed end line '$*' (want 'end COUNT CKSUM BYTES'); $DMG"
	[ "$2" = "$cen_n" ] || die "$cen_f: $cen_w: the end line counts $2 lines, there are $cen_n; $DMG"
	cksum_of body "$cen_f" || die "$cen_f: cannot checksum it (sed, cksum or od failed)"
	[ "$SUM" = "$3 $4" ] || die "$cen_f: $cen_w: checksum mismatch (body: cksum $SUM; end line: $3 $4); $DMG"
}

# --- state
# Journal $STATE/saved: "KEY ORIGINAL" lines (KEY = ORDER+VERB+IFACE+TARGET,
# first original wins), then "end COUNT CKSUM BYTES"; rewritten and renamed
# into place at the end of apply/revert and on INT/TERM. A run appends to
# saved.run as it goes; the next run recovers it if this one was killed.
BOOTID=unknown
JOURNAL='' JN=0 JDIRTY=0
jline_ok() { case $1 in [0-9][0-9]+?*+?*+?*" "*) return 0 ;; esac; return 1; }
journal_load() {
	JOURNAL='' JN=0 SAVEDKEYS='|'
	[ -e "$STATE/saved" ] || return 0
	jld_end='' jld_lno=0
	while :; do
		jld_l=
		if IFS= read -r jld_l; then :
		elif [ -n "$jld_l" ]; then die "$STATE/saved: journal: last line has no newline (truncated); $DMG"
		else break; fi
		jld_lno=$((jld_lno + 1))
		[ -z "$jld_end" ] || die "$STATE/saved:$jld_lno: journal: text after the end line; $DMG"
		case $jld_l in end*) jld_end=$jld_l; continue ;; esac
		jline_ok "$jld_l" || die "$STATE/saved:$jld_lno: journal: malformed line; $DMG"
		JOURNAL="$JOURNAL$jld_l$NL" JN=$((JN + 1)) SAVEDKEYS="$SAVEDKEYS${jld_l%% *}|"
	done <"$STATE/saved"
	[ -n "$jld_end" ] || die "$STATE/saved: journal: no end line (truncated); $DMG"
	check_end "$STATE/saved" journal "$jld_end" "$JN"
}
# journal_seal: JOURNAL + end line -> saved.new -> saved (rename)
journal_seal() {
	{ printf '%s' "$JOURNAL" >"$STATE/saved.new"; } 2>/dev/null || return 1
	cksum_of all "$STATE/saved.new" || return 1
	printf 'end %s %s\n' "$JN" "$SUM" >>"$STATE/saved.new" || return 1
	mv -f "$STATE/saved.new" "$STATE/saved" || return 1
	: >"$STATE/saved.run"
	JDIRTY=0
}
state_init() {
	[ -d "$STATE" ] || mkdir -p "$STATE" 2>/dev/null || die "cannot create state dir $STATE" 1
	rd "$PROC/sys/kernel/random/boot_id" && BOOTID=$VAL
	rd "$STATE/boot_id" || VAL=''
	if [ "$VAL" != "$BOOTID" ]; then
		# originals from another boot describe a system that is gone
		rm -f "$STATE/saved" "$STATE/saved.run"
		set +f; rm -f "$STATE"/ntuple+*; set -f
		printf '%s\n' "$BOOTID" >"$STATE/boot_id"
		JDIRTY=1
	fi
	journal_load
	# a killed run's lines (read drops a torn last line)
	if [ -s "$STATE/saved.run" ]; then
		sit_n=0
		while IFS= read -r sit_l; do
			jline_ok "$sit_l" || continue
			case $SAVEDKEYS in *"|${sit_l%% *}|"*) continue ;; esac
			JOURNAL="$JOURNAL$sit_l$NL" JN=$((JN + 1)) SAVEDKEYS="$SAVEDKEYS${sit_l%% *}|" sit_n=$((sit_n + 1))
		done <"$STATE/saved.run"
		printf 'zynq-net-apply: recovered %s saved value(s) of an interrupted run\n' "$sit_n" >&2
		JDIRTY=1
	fi
	if [ "$JDIRTY" = 1 ]; then journal_seal || die "cannot write $STATE/saved" 1; fi
	JDIRTY=0
	{ command exec 6>>"$STATE/saved.run"; } 2>/dev/null || die "cannot write $STATE/saved.run" 1
	JOPEN=1
}
JOPEN=0
journal_close() { if [ "$JOPEN" = 1 ] && [ "$JDIRTY" = 1 ]; then journal_seal || printf 'zynq-net-apply: cannot write %s\n' "$STATE/saved" >&2; fi; }
# save ORDER VERB IFACE TARGET ORIGINAL: first original wins
save() {
	se_k="$1+$2+$3+$4"
	case $SAVEDKEYS in *"|$se_k|"*) return 0 ;; esac
	SAVEDKEYS="$SAVEDKEYS$se_k|"
	JOURNAL="$JOURNAL$se_k $5$NL" JN=$((JN + 1)) JDIRTY=1
	printf '%s %s\n' "$se_k" "$5" >&6
}

# --- steps: what the verbs share
MODE=apply
ABSENT=
iface_ok() {
	[ -d "$SYS/class/net/$1" ] && return 0
	case " $ABSENT " in *" $1 "*) WHY="absent interface (waited)" ;; *) WHY="absent interface" ;; esac
	return 1
}
# Tools by absolute path: a busybox sh built with "prefer applets" would
# otherwise run its own reduced ip/tc instead of iproute2.
case :$PATH: in *:/usr/sbin:*) ;; *) PATH=$PATH:/usr/sbin:/sbin ;; esac
find_tool() {
	fl_p=$PATH: TOOL=''
	while [ -n "$fl_p" ]; do
		fl_d=${fl_p%%:*}; fl_p=${fl_p#*:}
		case $fl_d in /*) [ -f "$fl_d/$1" ] && [ -x "$fl_d/$1" ] && { TOOL=$fl_d/$1; return 0; } ;; esac
	done
	return 1
}
find_tool ethtool; T_ETHTOOL=$TOOL
find_tool ip; T_IP=$TOOL
find_tool tc; T_TC=$TOOL
find_tool dd; T_DD=$TOOL
find_cksum
need_tool() {
	case $1 in ethtool) TOOL=$T_ETHTOOL ;; ip) TOOL=$T_IP ;; tc) TOOL=$T_TC ;; esac
	[ -n "$TOOL" ] && return 0
	WHY="tool missing ($1)"; return 1
}

# file_knob ORDER VERB IFACE TARGET FILE DESIRED KIND(num|str|cnt|mask|irq):
# cnt may be rounded up to a power of two; masks are ANDed with the online
# CPUs; irq: a refusal is "not changeable", and effective_affinity reported
file_knob() {
	fkb_o=$1 fkb_vb=$2 fkb_if=$3 fkb_tg=$4 fkb_fl=$5 fkb_want=$6 fkb_kind=$7 fkb_extra=
	if [ ! -e "$fkb_fl" ]; then report skipped "$fkb_vb" "$fkb_if" "$fkb_tg" "$fkb_want" "" "absent file ${fkb_fl#"$SYS"}"; return; fi
	if ! rdk "$fkb_kind" "$fkb_fl"; then
		# dd says why; xps_cpus: ENOENT unless multiqueue (net-sysfs.c)
		WHY=unreadable
		[ -n "$T_DD" ] && ! "$T_DD" if="$fkb_fl" of=/dev/null 2>"$ERRF" && { read_errf; classify "$ERRTXT"; WHY="unreadable: $WHY"; }
		case $fkb_vb$WHY in xps*ENOENT*) WHY="single TX queue: no XPS (the kernel has it on multi-queue devices only)" ;; esac
		report skipped "$fkb_vb" "$fkb_if" "$fkb_tg" "$fkb_want" "" "$WHY"; return
	fi
	fkb_cur=$VAL fkb_put=$fkb_want
	case $fkb_kind in
	mask|irq)
		MASK_IN=$fkb_want; mask_online "$fkb_want"
		if [ "$ALLGONE" = 1 ]; then report skipped "$fkb_vb" "$fkb_if" "$fkb_tg" "$fkb_want" "$fkb_cur" "no CPU of the mask is online (dropped $DROPPED)"; return; fi
		fkb_put=$MASKED
		[ -n "$DROPPED" ] && fkb_extra="offline CPUs dropped: $DROPPED"
		canon "$fkb_put"; fkb_cw=$CANON; canon "$fkb_cur"; [ "$CANON" = "$fkb_cw" ] ;;
	num) [ "$fkb_cur" = "$fkb_put" ] ;;
	cnt)
		fkb_p=1; while [ $fkb_p -lt "$fkb_put" ]; do fkb_p=$((fkb_p * 2)); done
		[ "$fkb_put" = 0 ] && fkb_p=0
		[ "$fkb_cur" = "$fkb_p" ] || [ "$fkb_cur" = "$fkb_put" ] ;;
	*) squash "$fkb_cur"; fkb_sc=$SQ; squash "$fkb_put"; [ "$fkb_sc" = "$SQ" ] ;;
	esac
	fkb_same=$?
	if [ "$MODE" = status ]; then
		if [ $fkb_same = 0 ]; then report ok "$fkb_vb" "$fkb_if" "$fkb_tg" "$fkb_want" "$fkb_cur" "$fkb_extra"
		else report differs "$fkb_vb" "$fkb_if" "$fkb_tg" "$fkb_want" "$fkb_cur" "$fkb_extra"; fi
		return
	fi
	if [ $fkb_same = 0 ]; then report unchanged "$fkb_vb" "$fkb_if" "$fkb_tg" "$fkb_want" "$fkb_cur" "$fkb_extra"; return; fi
	if ! wr "$fkb_fl" "$fkb_put"; then
		[ "$fkb_kind" = irq ] && [ "$CLS" = skipped ] && case $WHY in refused*|not*) WHY="not changeable (${WHY#*(}" ;; esac
		report "$CLS" "$fkb_vb" "$fkb_if" "$fkb_tg" "$fkb_want" "$fkb_cur" "$WHY"; return
	fi
	save "$fkb_o" "$fkb_vb" "$fkb_if" "$fkb_tg" "$fkb_cur"
	rdk "$fkb_kind" "$fkb_fl"; fkb_new=$VAL
	case $fkb_kind in
	mask|irq) canon "$fkb_new"; [ "$CANON" = "$fkb_cw" ] ;;
	cnt) [ "$fkb_new" = "$fkb_p" ] || [ "$fkb_new" = "$fkb_put" ] ;;
	num) [ "$fkb_new" = "$fkb_put" ] ;;
	*) squash "$fkb_new"; fkb_sn=$SQ; squash "$fkb_put"; [ "$fkb_sn" = "$SQ" ] ;;
	esac || { report failed "$fkb_vb" "$fkb_if" "$fkb_tg" "$fkb_want" "$fkb_new" "kernel kept $fkb_new"; return; }
	if [ "$fkb_kind" = irq ] && rd "${fkb_fl%/*}/effective_affinity"; then
		fkb_extra="${fkb_extra:+$fkb_extra; }effective $VAL"
	fi
	report applied "$fkb_vb" "$fkb_if" "$fkb_tg" "$fkb_want" "$fkb_new" "was $fkb_cur${fkb_extra:+; $fkb_extra}"
}

# eth_set ARGS: ethtool; exit 80 ("unmodified, ignoring") counts as done
eth_set() {
	"$T_ETHTOOL" "$@" >/dev/null 2>"$ERRF" </dev/null && return 0
	[ $? = 80 ] && { : >"$ERRF"; return 0; }
	return 1
}
# with_link_down IFACE FUNC ARGS: FUNC ARGS (error in ERRF); on EBUSY while
# IFACE is up (IFF_UP in sysfs flags, not operstate) retried with the link
# down: axienet rings/coalescing/MTU need !netif_running()
# (xilinx_axienet_main.c), MAC changes need IFF_LIVE_ADDR_CHANGE (eth.c).
with_link_down() {
	wld_if=$1; shift
	"$@" && return 0
	read_errf
	case $ERRTXT in *"resource busy"*) ;; *) return 1 ;; esac
	rd "$SYS/class/net/$wld_if/flags"
	case $VAL in 0x?*) ;; *) return 1 ;; esac
	case ${VAL#0x} in *[!0-9a-fA-F]*) return 1 ;; esac
	[ $((VAL & 1)) = 1 ] || return 1
	"$T_IP" link set dev "$wld_if" down 2>/dev/null </dev/null || return 1
	wld_rc=0
	"$@" || wld_rc=1
	"$T_IP" link set dev "$wld_if" up 2>/dev/null </dev/null
	return $wld_rc
}
ip_set() { "$T_IP" link set dev "$@" 2>"$ERRF" </dev/null; }
pow2eq() { # CUR WANT: CUR is WANT rounded up to a power of two
	case $1$2 in *[!0-9]*) return 1 ;; esac
	pq_q=1; while [ $pq_q -lt "$2" ]; do pq_q=$((pq_q * 2)); done
	[ "$1" = "$pq_q" ]
}

# ethtool groups: consecutive steps of one verb and interface (eth_add):
# one `ethtool -R` read, one -W write, one read-back. v_VERB_eth sets ETH_R,
# ETH_W, ETH_O (ORDER), ETH_RND, ETH_FIX; v_VERB_key PARAM: EK, EOUT.
G_VERB='' G_IF='' G_ITEMS=
eth_add() { G_VERB=$1 G_IF=$2 G_ITEMS="$G_ITEMS$3 $4$NL"; } # VERB IFACE PARAM VALUE
# eth_get OUT VERB PARAM -> KV (empty: absent), FIXED=1 if fixed
eth_get() {
	EOUT=$1 KV='' FIXED=0
	"v_$2_key" "$3"
	case $EOUT in
	*"$NL$EK"*) KV=${EOUT#*"$NL$EK"} ;;
	*"$NL	$EK"*) KV=${EOUT#*"$NL	$EK"} ;;
	*) return 1 ;;
	esac
	KV=${KV%%"$NL"*}
	case $KV in *"[fixed]"*) FIXED=1 ;; esac
	# an aggregate (tso, sg, ...) is fixed when all its sub-features are
	if [ "$ETH_FIX" = 1 ] && [ "$FIXED" = 0 ]; then
		egt_r=${EOUT#*"$NL$EK"} egt_n=0 egt_f=0
		while case $egt_r in *"$NL	"*) true ;; *) false ;; esac; do
			egt_r=${egt_r#*"$NL"}
			case $egt_r in "	"*) ;; *) break ;; esac
			egt_l=${egt_r%%"$NL"*}
			egt_n=$((egt_n + 1))
			case $egt_l in *"[fixed]"*) egt_f=$((egt_f + 1)) ;; esac
		done
		[ "$egt_n" -gt 0 ] && [ "$egt_n" = "$egt_f" ] && FIXED=1
	fi
	squash "$KV"; KV=${SQ%% *}
	[ "$KV" = n/a ] && KV=
	[ -n "$KV" ]
}
flush_eth() {
	[ -n "$G_VERB" ] || return 0
	feh_gv=$G_VERB feh_gi=$G_IF feh_items=$G_ITEMS
	G_VERB='' G_IF='' G_ITEMS=
	"v_${feh_gv}_eth"
	feh_why='' CLS=skipped
	iface_ok "$feh_gi" || feh_why=$WHY
	[ -n "$feh_why" ] || need_tool ethtool || feh_why=$WHY
	if [ -z "$feh_why" ]; then
		if ! feh_out=$("$T_ETHTOOL" "-$ETH_R" "$feh_gi" 2>"$ERRF" </dev/null); then
			read_errf; classify "$ERRTXT"; feh_why=$WHY
		fi
	fi
	# pass 1: compare
	set --
	feh_todo=
	while [ -n "$feh_items" ]; do
		feh_it=${feh_items%%"$NL"*}; feh_items=${feh_items#*"$NL"}
		feh_p=${feh_it% *} feh_w=${feh_it#* }
		if [ -n "$feh_why" ]; then report "$CLS" "$feh_gv" "$feh_gi" "$feh_p" "$feh_w" "" "$feh_why"; continue; fi
		if ! eth_get "$feh_out" "$feh_gv" "$feh_p"; then report skipped "$feh_gv" "$feh_gi" "$feh_p" "$feh_w" "" "unsupported (no $feh_p in ethtool -$ETH_R)"; continue; fi
		feh_c=$KV
		if [ "$feh_c" = "$feh_w" ] || { [ "$ETH_RND" = 1 ] && pow2eq "$feh_c" "$feh_w"; }; then
			report "$OKWORD" "$feh_gv" "$feh_gi" "$feh_p" "$feh_w" "$feh_c" ""; continue
		fi
		if [ "$MODE" = status ]; then report differs "$feh_gv" "$feh_gi" "$feh_p" "$feh_w" "$feh_c" ""; continue; fi
		if [ "$ETH_FIX" = 1 ] && [ "$FIXED" = 1 ]; then report skipped "$feh_gv" "$feh_gi" "$feh_p" "$feh_w" "$feh_c" "unsupported (fixed by the driver)"; continue; fi
		set -- "$@" "$feh_p" "$feh_w"
		feh_todo="$feh_todo$feh_p $feh_w $feh_c$NL"
	done
	[ -n "$feh_todo" ] || return 0
	feh_werr=
	if ! with_link_down "$feh_gi" eth_set "-$ETH_W" "$feh_gi" "$@"; then read_errf; feh_werr=$ERRTXT; fi
	feh_out=$("$T_ETHTOOL" "-$ETH_R" "$feh_gi" 2>/dev/null </dev/null) || feh_out=
	while [ -n "$feh_todo" ]; do
		feh_it=${feh_todo%%"$NL"*}; feh_todo=${feh_todo#*"$NL"}
		set -- $feh_it
		feh_got=0
		eth_get "$feh_out" "$feh_gv" "$1" && feh_got=1
		# the driver changed it (maybe rounded): save the original
		[ $feh_got = 1 ] && [ "$KV" != "$3" ] && save "$ETH_O" "$feh_gv" "$feh_gi" "$1" "$3"
		if [ $feh_got = 1 ] && { [ "$KV" = "$2" ] || { [ "$ETH_RND" = 1 ] && pow2eq "$KV" "$2"; }; }; then
			if [ "$KV" = "$2" ]; then report applied "$feh_gv" "$feh_gi" "$1" "$2" "$KV" "was $3"
			else report applied "$feh_gv" "$feh_gi" "$1" "$2" "$KV" "was $3; driver rounded to $KV"; fi
			continue
		fi
		if [ -n "$feh_werr" ]; then
			classify "$feh_werr"; report "$CLS" "$feh_gv" "$feh_gi" "$1" "$2" "$KV" "$WHY"
		elif [ "$FIXED" = 1 ]; then
			report skipped "$feh_gv" "$feh_gi" "$1" "$2" "$KV" "unsupported (fixed by the driver)"
		else
			report failed "$feh_gv" "$feh_gi" "$1" "$2" "$KV" "driver kept ${KV:-?}"
		fi
	done
}

# --- verbs: one block per verb (docs/applier.md, code layout). Its header
# says what it writes, reads back, saves ("saves NN": the old value, journal
# ORDER NN) and how revert restores it. v_VERB_check, v_VERB_run and
# v_VERB_revert are called by name only for a verb is_verb accepts.
is_verb() {
	case $1 in
	rps|rfs|xps|irq|offload|sysctl|channels|rings|coalesce|mtu|mac|ptp|rss|ntuple|qdisc|filter|wait|ident|board|module|asf) return 0 ;;
	esac
	return 1
}

# board NAME: the report's name (BOARD); writes nothing
v_board_check() { [ $# -eq 1 ] && is_word "$1" || ERR="board NAME"; BOARD=${1-}; }
v_board_run() { :; }
v_board_revert() { return 1; }

# wait IFACE SECONDS: waits (at most ZYNQ_NET_WAIT_MAX s, not in status)
# for /sys/class/net/IFACE; writes nothing
v_wait_check() { [ $# -eq 2 ] && is_ifname "$1" && is_num "$2" || ERR="wait IFACE SECONDS"; }
v_wait_run() {
	swt_t=$2
	[ "$swt_t" -gt "$WAIT_MAX" ] && swt_t=$WAIT_MAX
	[ "$MODE" = status ] && swt_t=0
	swt_w=0
	while [ ! -d "$SYS/class/net/$1" ] && [ $swt_w -lt "$swt_t" ]; do
		sleep 1; swt_w=$((swt_w + 1))
	done
	if [ -d "$SYS/class/net/$1" ]; then
		report "$OKWORD" wait "$1" - "$2" "" "present after ${swt_w}s"
	else
		ABSENT="$ABSENT $1"
		report skipped wait "$1" - "$2" "" "absent interface after ${swt_w}s"
	fi
}
v_wait_revert() { return 1; }

# ident IFACE driver NAME [of-node /PATH] [perm-addr MAC]: is IFACE the
# board's device (plan-format.md)? A mismatch skips IFACE's later steps
IDBAD='' IDWHY=$NL
is_dtpath() {
	case $1 in /*) ;; *) return 1 ;; esac
	case $1 in *//*|*/|*/../*|*/./*|*/..|*/.|*[!A-Za-z0-9,._+@/-]*) return 1 ;; esac
	[ ${#1} -le 255 ]
}
v_ident_check() {
	ERR="ident IFACE driver NAME [of-node PATH] [perm-addr MAC]"
	[ $# -ge 3 ] && is_ifname "$1" && [ "$2" = driver ] || return
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		driver) is_word "${2-}" ;; of-node) is_dtpath "${2-}" ;; perm-addr) is_mac "${2-}" ;; *) false ;;
		esac || return
		shift 2
	done
	ERR=
}
dev_link() { # IFACE LINK -> LNK: the target of device/LINK
	LNK=
	[ -d "$SYS/class/net/$1/device/$2" ] || return 1
	LNK=$(cd -P "$SYS/class/net/$1/device/$2" 2>/dev/null && pwd -P)
}
eth_info() { # IFACE OPTION LABEL -> EI: what `ethtool OPTION` prints after LABEL
	EI=
	[ -n "$T_ETHTOOL" ] || return 1
	ein_o=$NL$("$T_ETHTOOL" "$2" "$1" 2>/dev/null </dev/null) || return 1
	case $ein_o in *"$NL$3 "*) ein_o=${ein_o#*"$NL$3 "}; EI=${ein_o%%"$NL"*} ;; esac
}
v_ident_run() {
	sid_if=$1; shift
	sid_spec=$* sid_have='' sid_why=''
	iface_ok "$sid_if" || { report skipped ident "$sid_if" - "$sid_spec" "" "$WHY"; return; }
	while [ $# -ge 2 ]; do
		sid_got=
		case $1 in
		driver) if dev_link "$sid_if" driver; then sid_got=${LNK##*/}; else eth_info "$sid_if" -i driver: && sid_got=$EI; fi ;;
		of-node) dev_link "$sid_if" of_node && sid_got=/${LNK#*/devicetree/base/} ;;
		perm-addr) eth_info "$sid_if" -P "Permanent address:" && sid_got=$EI ;;
		esac
		sid_have="$sid_have${sid_have:+ }$1 ${sid_got:-?}"
		[ "$sid_got" = "$2" ] || sid_why="$sid_why${sid_why:+, }$1 is ${sid_got:-unknown}, the plan says $2"
		shift 2
	done
	if [ -z "$sid_why" ]; then report "$OKWORD" ident "$sid_if" - "$sid_spec" "$sid_have" ""; return; fi
	IDBAD="$IDBAD|$sid_if|" IDWHY="$IDWHY$sid_if $sid_why$NL"
	report failed ident "$sid_if" - "$sid_spec" "$sid_have" "not the board's device: $sid_why; its steps are skipped"
}
v_ident_revert() { return 1; }
id_skip() { # VERB IFACE FIELDS...: a step of an interface whose ident failed
	isk_v=$1 isk_i=$2 isk_t=-; shift 2
	case $isk_v in mtu|mac|ptp|qdisc|rss|ntuple) ;; *) isk_t=${1:--}; [ $# -eq 0 ] || shift ;; esac
	isk_w=${IDWHY#*"$NL$isk_i "}
	report skipped "$isk_v" "$isk_i" "$isk_t" "$*" "" "not the board's device (${isk_w%%"$NL"*})"
}

# link_knob VERB ATTR IFACE VALUE: writes with `ip link set dev IFACE ATTR`
# (with_link_down), reads back /sys/class/net/IFACE/ATTR; saves 01
link_knob() {
	lkk_v=$1 lkk_a=$2; shift 2
	iface_ok "$1" || { report skipped "$lkk_v" "$1" - "$2" "" "$WHY"; return; }
	rd "$SYS/class/net/$1/$lkk_a"; lkk_cur=$VAL
	if [ "$lkk_cur" = "$2" ]; then report "$OKWORD" "$lkk_v" "$1" - "$2" "$lkk_cur" ""; return; fi
	[ "$MODE" = status ] && { report differs "$lkk_v" "$1" - "$2" "$lkk_cur" ""; return; }
	need_tool ip || { report skipped "$lkk_v" "$1" - "$2" "$lkk_cur" "$WHY"; return; }
	if ! with_link_down "$1" ip_set "$1" "$lkk_a" "$2"; then
		read_errf; classify "$ERRTXT"; report "$CLS" "$lkk_v" "$1" - "$2" "$lkk_cur" "$WHY"; return
	fi
	save 01 "$lkk_v" "$1" - "$lkk_cur"
	rd "$SYS/class/net/$1/$lkk_a"
	if [ "$VAL" = "$2" ]; then report applied "$lkk_v" "$1" - "$2" "$VAL" "was $lkk_cur"
	else report failed "$lkk_v" "$1" - "$2" "$VAL" "kernel kept $VAL"; fi
}

# mac IFACE ADDR (AXI/XXV: no local-mac-address in the DT): link_knob
# address; revert sets the old address
v_mac_check() { [ $# -eq 2 ] && is_ifname "$1" && is_mac "$2" || ERR="mac IFACE xx:xx:xx:xx:xx:xx"; }
v_mac_run() { link_knob mac address "$@"; }
v_mac_revert() { with_link_down "$1" ip_set "$1" address "$3"; }

# mtu IFACE BYTES: link_knob mtu; revert sets the old MTU
v_mtu_check() { [ $# -eq 2 ] && is_ifname "$1" && is_num "$2" || ERR="mtu IFACE BYTES"; }
v_mtu_run() { link_knob mtu mtu "$@"; }
v_mtu_revert() { with_link_down "$1" ip_set "$1" mtu "$3"; }

# channels IFACE KIND COUNT: ethtool -L, reads back -l; saves 02; revert: -L
v_channels_check() {
	[ $# -eq 3 ] && is_ifname "$1" && is_num "$3" || ERR="channels IFACE KIND COUNT"
	case ${2-} in rx|tx|combined|other) ;; *) ERR="channels KIND must be rx, tx, combined or other" ;; esac
}
v_channels_run() { eth_add channels "$@"; }
v_channels_eth() { ETH_R=l ETH_W=L ETH_O=02 ETH_RND=0 ETH_FIX=0; }
v_channels_key() {
	EOUT=${EOUT#*Current hardware settings:}
	case $1 in rx) EK="RX:" ;; tx) EK="TX:" ;; other) EK="Other:" ;; combined) EK="Combined:" ;; *) EK="$1:" ;; esac
}
v_channels_revert() { with_link_down "$1" eth_set -L "$1" "$2" "$3"; }

# rings IFACE PARAM VALUE: ethtool -G, reads back -g (macb rounds up to a
# power of two); saves 03; revert: -G
v_rings_check() {
	[ $# -eq 3 ] && is_ifname "$1" || ERR="rings IFACE PARAM VALUE"
	case ${2-} in
	rx|tx|rx-mini|rx-jumbo|rx-buf-len) is_num "${3-}" || ERR="rings VALUE must be a number" ;;
	tcp-data-split) case ${3-} in on|off|auto) ;; *) ERR="tcp-data-split on|off|auto" ;; esac ;;
	*) ERR="rings PARAM unknown" ;;
	esac
}
v_rings_run() { eth_add rings "$@"; }
v_rings_eth() { ETH_R=g ETH_W=G ETH_O=03 ETH_RND=1 ETH_FIX=0; }
v_rings_key() {
	EOUT=${EOUT#*Current hardware settings:}
	case $1 in
	rx) EK="RX:" ;; tx) EK="TX:" ;; rx-mini) EK="RX Mini:" ;; rx-jumbo) EK="RX Jumbo:" ;;
	rx-buf-len) EK="RX Buf Len:" ;; tcp-data-split) EK="TCP data split:" ;; *) EK="$1:" ;;
	esac
}
v_rings_revert() { with_link_down "$1" eth_set -G "$1" "$2" "$3"; }

# offload IFACE FEATURE on|off: ethtool -K, reads back -k ([fixed]:
# skipped); saves 04; revert: -K
v_offload_check() {
	[ $# -eq 3 ] && is_ifname "$1" || ERR="offload IFACE FEATURE on|off"
	case ${2-} in ''|*[!a-z0-9_-]*) ERR="offload FEATURE name" ;; esac
	case ${3-} in on|off) ;; *) ERR="offload value must be on or off" ;; esac
}
v_offload_run() { eth_add offload "$@"; }
v_offload_eth() { ETH_R=k ETH_W=K ETH_O=04 ETH_RND=0 ETH_FIX=1; }
v_offload_key() { # ethtool's short names; others as `ethtool -k` prints them
	case $1 in
	gro) EK="generic-receive-offload:" ;; gso) EK="generic-segmentation-offload:" ;;
	tso) EK="tcp-segmentation-offload:" ;; lro) EK="large-receive-offload:" ;;
	sg) EK="scatter-gather:" ;; rx) EK="rx-checksumming:" ;;
	tx) EK="tx-checksumming:" ;; rxvlan) EK="rx-vlan-offload:" ;;
	txvlan) EK="tx-vlan-offload:" ;; ntuple) EK="ntuple-filters:" ;;
	rxhash) EK="receive-hashing:" ;; ufo) EK="udp-fragmentation-offload:" ;;
	*) EK="$1:" ;;
	esac
}
v_offload_revert() { with_link_down "$1" eth_set -K "$1" "$2" "$3"; }

# coalesce IFACE PARAM VALUE: ethtool -C, reads back -c; saves 05; revert: -C
v_coalesce_check() {
	[ $# -eq 3 ] && is_ifname "$1" || ERR="coalesce IFACE PARAM VALUE"
	case ${2-} in ''|*[!a-z0-9-]*) ERR="coalesce PARAM name" ;; esac
	case ${3-} in on|off) ;; *) is_num "${3-}" || ERR="coalesce VALUE" ;; esac
}
v_coalesce_run() { eth_add coalesce "$@"; }
v_coalesce_eth() { ETH_R=c ETH_W=C ETH_O=05 ETH_RND=0 ETH_FIX=0; }
v_coalesce_key() { # -c prints "Adaptive RX: on  TX: off"
	case $1 in
	adaptive-rx) EK="Adaptive RX:" ;;
	adaptive-tx) EOUT=${EOUT#*Adaptive RX:}; EK="TX:"; EOUT="$NL${EOUT#*  }" ;;
	*) EK="$1:" ;;
	esac
}
v_coalesce_revert() { with_link_down "$1" eth_set -C "$1" "$2" "$3"; }

# ptp IFACE off: file_knob 0 to /sys/class/net/IFACE/ptp_1588 (QorIQ SDK
# gianfar); saves 06; revert writes the old value
v_ptp_check() { [ $# -eq 2 ] && is_ifname "$1" && [ "$2" = off ] || ERR="ptp IFACE off"; }
v_ptp_run() {
	iface_ok "$1" || { report skipped ptp "$1" - "$2" "" "$WHY"; return; }
	file_knob 06 ptp "$1" - "$SYS/class/net/$1/ptp_1588" 0 num
}
v_ptp_revert() { wr "$SYS/class/net/$1/ptp_1588" "$3"; }

# rps, rfs, xps: file_knob on /sys/class/net/IFACE/queues/QUEUE/FILE
# (Documentation/networking/scaling.rst), spelled out in each: they are most
# of a plan, and a helper call would add 2% to each step (callgrind, dash)

# rps IFACE rx-N MASK: rps_cpus; saves 07; revert writes it
v_rps_check() {
	[ $# -eq 3 ] && is_ifname "$1" && is_queue "$2" && is_mask "$3" || ERR="rps IFACE QUEUE MASK"
	case ${2-} in rx-*) ;; *) ERR="${ERR:-rps: wrong queue kind}" ;; esac
}
v_rps_run() {
	iface_ok "$1" || { report skipped rps "$1" "$2" "$3" "" "$WHY"; return; }
	file_knob 07 rps "$1" "$2" "$SYS/class/net/$1/queues/$2/rps_cpus" "$3" mask
}
v_rps_revert() { wr "$SYS/class/net/$1/queues/$2/rps_cpus" "$3"; }

# rfs IFACE rx-N COUNT: rps_flow_cnt (rounded up to a power of two); saves
# 08; revert writes it
v_rfs_check() {
	[ $# -eq 3 ] && is_ifname "$1" && is_queue "$2" && is_num "$3" || ERR="rfs IFACE QUEUE COUNT"
	case ${2-} in rx-*) ;; *) ERR="rfs needs an rx queue" ;; esac
}
v_rfs_run() {
	iface_ok "$1" || { report skipped rfs "$1" "$2" "$3" "" "$WHY"; return; }
	file_knob 08 rfs "$1" "$2" "$SYS/class/net/$1/queues/$2/rps_flow_cnt" "$3" cnt
}
v_rfs_revert() { wr "$SYS/class/net/$1/queues/$2/rps_flow_cnt" "$3"; }

# xps IFACE tx-N MASK: xps_cpus; saves 09; revert writes it
v_xps_check() {
	[ $# -eq 3 ] && is_ifname "$1" && is_queue "$2" && is_mask "$3" || ERR="xps IFACE QUEUE MASK"
	case ${2-} in tx-*) ;; *) ERR="${ERR:-xps: wrong queue kind}" ;; esac
}
v_xps_run() {
	iface_ok "$1" || { report skipped xps "$1" "$2" "$3" "" "$WHY"; return; }
	file_knob 09 xps "$1" "$2" "$SYS/class/net/$1/queues/$2/xps_cpus" "$3" mask
}
v_xps_revert() { wr "$SYS/class/net/$1/queues/$2/xps_cpus" "$3"; }

# rss IFACE equal N: ethtool -X (RSS on queues 0..N-1: a zero-copy queue
# kept out, iou-zcrx.rst), reads back -x; saves 10 default; revert: -X default
v_rss_check() { [ $# -eq 3 ] && is_ifname "$1" && [ "$2" = equal ] && is_num "$3" && [ "$3" -gt 0 ] || ERR="rss IFACE equal N"; }
rss_max() { # IFACE -> RMAX: highest queue in `ethtool -x`
	RMAX=-1 rsm_in=0
	rsm_o=$("$T_ETHTOOL" -x "$1" 2>"$ERRF" </dev/null) || return 1
	for rsm_w in $rsm_o; do
		case $rsm_w in *:) rsm_in=1; continue ;; esac
		case $rsm_w in *[!0-9]*|'') rsm_in=0 ;; *) [ "${rsm_in-0}" = 1 ] && [ "$rsm_w" -gt "$RMAX" ] && RMAX=$rsm_w ;; esac
	done
	[ "$RMAX" -ge 0 ]
}
v_rss_run() {
	iface_ok "$1" || { report skipped rss "$1" - "equal $3" "" "$WHY"; return; }
	need_tool ethtool || { report skipped rss "$1" - "equal $3" "" "$WHY"; return; }
	if ! rss_max "$1"; then read_errf; classify "${ERRTXT:-no indirection table}"; report skipped rss "$1" - "equal $3" "" "$WHY"; return; fi
	srs_c="queues 0-$RMAX"
	if [ "$RMAX" -lt "$3" ]; then report "$OKWORD" rss "$1" - "equal $3" "$srs_c" ""; return; fi
	[ "$MODE" = status ] && { report differs rss "$1" - "equal $3" "$srs_c" ""; return; }
	if ! "$T_ETHTOOL" -X "$1" equal "$3" 2>"$ERRF" </dev/null; then
		read_errf; classify "$ERRTXT"; report "$CLS" rss "$1" - "equal $3" "$srs_c" "$WHY"; return
	fi
	save 10 rss "$1" - default
	if rss_max "$1" && [ "$RMAX" -lt "$3" ]; then report applied rss "$1" - "equal $3" "queues 0-$RMAX" "was $srs_c"
	else report failed rss "$1" - "equal $3" "queues 0-$RMAX" "table still uses queue $RMAX"; fi
}
v_rss_revert() { "$T_ETHTOOL" -X "$1" default 2>"$ERRF" </dev/null; }

# ntuple IFACE FIELDS...: ethtool -N (loc N: deleted first), the rule ID
# kept in $STATE/ntuple+IFACE+SPEC, reads back -n rule ID; saves 10 the ID;
# revert: -N delete ID
v_ntuple_check() {
	[ $# -ge 3 ] && is_ifname "$1" || ERR="ntuple IFACE RULE-FIELDS..."
	[ $# -eq 0 ] || shift
	while [ $# -gt 0 ]; do
		is_sysctl_val "$1" || ERR="ntuple field '$1'"
		if [ "$1" = loc ]; then { [ $# -ge 2 ] && is_num "$2"; } || ERR="ntuple loc N"; fi
		shift
	done
}
v_ntuple_run() {
	sne_ni=$1; shift
	sne_spec=$* sne_loc='' sne_key='' sne_r=$*
	while [ $# -gt 0 ]; do [ "$1" = loc ] && sne_loc=${2-}; shift; done
	while [ -n "$sne_r" ]; do
		sne_c=${sne_r%"${sne_r#?}"}; sne_r=${sne_r#?}
		case $sne_c in ' ') sne_c=_ ;; /) sne_c=: ;; esac
		sne_key=$sne_key$sne_c
	done
	iface_ok "$sne_ni" || { report skipped ntuple "$sne_ni" - "$sne_spec" "" "$WHY"; return; }
	need_tool ethtool || { report skipped ntuple "$sne_ni" - "$sne_spec" "" "$WHY"; return; }
	sne_mark="$STATE/ntuple+$sne_ni+$sne_key" sne_id=''
	if [ -e "$sne_mark" ] && { read -r sne_id <"$sne_mark"; } 2>/dev/null && [ -n "$sne_id" ] &&
		"$T_ETHTOOL" -n "$sne_ni" rule "$sne_id" >/dev/null 2>&1 </dev/null; then
		report "$OKWORD" ntuple "$sne_ni" "rule$sne_id" "$sne_spec" present ""; return
	fi
	[ "$MODE" = status ] && { report differs ntuple "$sne_ni" - "$sne_spec" "" ""; return; }
	[ -n "$sne_loc" ] && "$T_ETHTOOL" -N "$sne_ni" delete "$sne_loc" >/dev/null 2>&1 </dev/null
	set -- $sne_spec
	if ! sne_o=$("$T_ETHTOOL" -N "$sne_ni" "$@" 2>"$ERRF" </dev/null); then
		read_errf; classify "$ERRTXT"; report "$CLS" ntuple "$sne_ni" - "$sne_spec" "" "$WHY"; return
	fi
	sne_id=$sne_loc
	case $sne_o in *"rule with ID "*) sne_id=${sne_o##*rule with ID }; sne_id=${sne_id%%[!0-9]*} ;; esac
	is_num "$sne_id" || { report failed ntuple "$sne_ni" - "$sne_spec" "" "no rule ID in ethtool's answer"; return; }
	printf '%s\n' "$sne_id" >"$sne_mark"
	save 10 ntuple "$sne_ni" "$sne_id" none
	if "$T_ETHTOOL" -n "$sne_ni" rule "$sne_id" >/dev/null 2>&1 </dev/null; then
		report applied ntuple "$sne_ni" "rule$sne_id" "$sne_spec" present ""
	else
		report failed ntuple "$sne_ni" "rule$sne_id" "$sne_spec" "" "rule not found after insert"
	fi
}
v_ntuple_revert() { "$T_ETHTOOL" -N "$1" delete "$2" 2>"$ERRF" </dev/null; }

# irq IFACE PATTERN MASK: file_knob irq on /proc/irq/N/smp_affinity of each
# IRQ whose /proc/interrupts action name matches; saves 11; revert writes it
v_irq_check() { [ $# -eq 3 ] && is_ifname "$1" && is_pattern "$2" && is_mask "$3" || ERR="irq IFACE PATTERN MASK"; }
v_irq_run() {
	siq_pi=$1 siq_pp=$2 siq_pm=$3
	siq_irqs=
	if [ -r "$PROC/interrupts" ]; then
		while IFS= read -r siq_ln; do
			set -- $siq_ln
			case ${1-} in *[0-9]:) ;; *) continue ;; esac
			siq_num=${1%:}
			is_num "$siq_num" || continue
			shift
			# action names are the last field(s); shared IRQs list "a, b"
			siq_last=
			for siq_f in "$@"; do siq_last="$siq_last $siq_f"; case $siq_f in *,) ;; *) siq_last=" $siq_f" ;; esac; done
			siq_hit=0
			for siq_f in $siq_last; do
				# shellcheck disable=SC2254 # the plan's PATTERN is a glob
				case ${siq_f%,} in $siq_pp) siq_hit=1 ;; esac
			done
			[ $siq_hit = 1 ] && siq_irqs="$siq_irqs $siq_num"
		done <"$PROC/interrupts"
	fi
	if [ -z "$siq_irqs" ]; then
		report skipped irq "$siq_pi" "$siq_pp" "$siq_pm" "" "absent (no IRQ named $siq_pp in /proc/interrupts)"; return
	fi
	for siq_num in $siq_irqs; do
		file_knob 11 irq "$siq_pi" "$siq_num" "$PROC/irq/$siq_num/smp_affinity" "$siq_pm" irq
	done
}
v_irq_revert() { wr "$PROC/irq/$2/smp_affinity" "$3"; }

# qdisc IFACE multiq: tc qdisc replace root handle 1: multiq (several TX
# queues only), reads back tc qdisc show; saves 12; revert: tc qdisc del root
v_qdisc_check() { [ $# -eq 2 ] && is_ifname "$1" && [ "$2" = multiq ] || ERR="qdisc IFACE multiq"; }
root_qdisc() { # IFACE -> RQ: "KIND HANDLE" of the root qdisc, or none
	rqc_o=$("$T_TC" qdisc show dev "$1" 2>/dev/null </dev/null)
	RQ=none
	while [ -n "$rqc_o" ]; do
		rqc_l=${rqc_o%%"$NL"*}
		case $rqc_l in "qdisc "*" root"*) rqc_l=${rqc_l#qdisc }; RQ=${rqc_l%% root*}; return 0 ;; esac
		case $rqc_o in *"$NL"*) rqc_o=${rqc_o#*"$NL"} ;; *) break ;; esac
	done
}
v_qdisc_run() {
	iface_ok "$1" || { report skipped qdisc "$1" - "$2" "" "$WHY"; return; }
	set +f
	set -- "$1" "$2" "$SYS/class/net/$1/queues"/tx-*
	set -f
	sqc_ntx=$(($# - 2))
	[ -e "$3" ] || sqc_ntx=0
	if [ "$sqc_ntx" -le 1 ]; then
		report skipped qdisc "$1" - "$2" "" "single TX queue ($sqc_ntx TX queue): multiq needs several"; return
	fi
	need_tool tc || { report skipped qdisc "$1" - "$2" "" "$WHY"; return; }
	root_qdisc "$1"; sqc_cur=$RQ
	if [ "$RQ" = "multiq 1:" ]; then report "$OKWORD" qdisc "$1" - multiq "$RQ" "$sqc_ntx TX queues"; return; fi
	[ "$MODE" = status ] && { report differs qdisc "$1" - multiq "$RQ" ""; return; }
	if ! "$T_TC" qdisc replace dev "$1" root handle 1: multiq 2>"$ERRF" </dev/null; then
		read_errf; classify "$ERRTXT"; report "$CLS" qdisc "$1" - multiq "$sqc_cur" "$WHY"; return
	fi
	save 12 qdisc "$1" - "$sqc_cur"
	root_qdisc "$1"
	if [ "$RQ" = "multiq 1:" ]; then report applied qdisc "$1" - multiq "$RQ" "was $sqc_cur; $sqc_ntx bands"
	else report failed qdisc "$1" - multiq "$RQ" "root qdisc not multiq after replace"; fi
}
v_qdisc_revert() {
	RSHOW="kernel default (was $3)"
	"$T_TC" qdisc del dev "$1" root 2>"$ERRF" </dev/null && return 0
	read_errf; case $ERRTXT in *"handle of zero"*) RGONE=1 ;; esac
	return 1
}

# filter IFACE PRIO src|dst ADDR QUEUE: tc filter add u32 + skbedit under
# 1: (another at PRIO deleted first: plan-format.md), reads back tc filter
# show; saves 13 none|other; revert: tc filter del prio PRIO
v_filter_check() {
	[ $# -eq 5 ] && is_ifname "$1" && is_num "$2" && is_ipv4 "$4" && is_num "$5" || ERR="filter IFACE PRIO src|dst ADDR QUEUE"
	case ${3-} in src|dst) ;; *) ERR="filter MATCH must be src or dst" ;; esac
}
ip_hex() { # A.B.C.D[/N] -> IPHEX IPMASK (8 hex digits each)
	ihx_a=${1%/*} ihx_len=32
	[ "$ihx_a" != "$1" ] && ihx_len=${1#*/}
	ihx_v=0 ihx_r=$ihx_a.
	while [ -n "$ihx_r" ]; do ihx_v=$(( (ihx_v << 8) | ${ihx_r%%.*} )); ihx_r=${ihx_r#*.}; done
	ihx_mk=$(( ihx_len == 0 ? 0 : (0xffffffff << (32 - ihx_len)) & 0xffffffff ))
	hex8 $((ihx_v & ihx_mk)); IPHEX=$H
	hex8 "$ihx_mk"; IPMASK=$H
}
v_filter_run() {
	sfr_t="$2"
	iface_ok "$1" || { report skipped filter "$1" "$sfr_t" "$3 $4 queue $5" "" "$WHY"; return; }
	need_tool tc || { report skipped filter "$1" "$sfr_t" "$3 $4 queue $5" "" "$WHY"; return; }
	ip_hex "$4"
	sfr_at=16; [ "$3" = src ] && sfr_at=12
	sfr_want="match $IPHEX/$IPMASK at $sfr_at"
	root_qdisc "$1"
	case $RQ in *" 1:") ;; *)
		report skipped filter "$1" "$sfr_t" "$3 $4 queue $5" "" "no root qdisc 1: (root is $RQ)"; return ;;
	esac
	sfr_f=$("$T_TC" filter show dev "$1" parent 1: prio "$2" 2>/dev/null </dev/null)
	case $sfr_f in
	*"$sfr_want"*"queue_mapping $5 "*|*"$sfr_want"*"queue_mapping $5$NL"*|*"$sfr_want"*"queue_mapping $5")
		report "$OKWORD" filter "$1" "$sfr_t" "$3 $4 queue $5" "present" ""; return ;;
	esac
	[ "$MODE" = status ] && { report differs filter "$1" "$sfr_t" "$3 $4 queue $5" "${sfr_f:+other}" ""; return; }
	sfr_cur=none; [ -n "$sfr_f" ] && sfr_cur=other
	[ -n "$sfr_f" ] && "$T_TC" filter del dev "$1" parent 1: prio "$2" 2>/dev/null </dev/null
	if ! "$T_TC" filter add dev "$1" parent 1: protocol ip prio "$2" u32 match ip "$3" "$4" \
		action skbedit queue_mapping "$5" 2>"$ERRF" </dev/null; then
		read_errf; classify "$ERRTXT"; report "$CLS" filter "$1" "$sfr_t" "$3 $4 queue $5" "" "$WHY"; return
	fi
	save 13 filter "$1" "$2" "$sfr_cur"
	sfr_f=$("$T_TC" filter show dev "$1" parent 1: prio "$2" 2>/dev/null </dev/null)
	case $sfr_f in
	*"$sfr_want"*"queue_mapping $5"*) report applied filter "$1" "$sfr_t" "$3 $4 queue $5" "present" "was $sfr_cur" ;;
	*) report failed filter "$1" "$sfr_t" "$3 $4 queue $5" "" "filter not found after add" ;;
	esac
}
v_filter_revert() { "$T_TC" filter del dev "$1" parent 1: prio "$2" 2>"$ERRF" </dev/null; }

# sysctl KEY VALUE...: file_knob str on /proc/sys/KEY; saves 14; revert
# writes it
v_sysctl_check() {
	[ $# -ge 2 ] && is_sysctl_key "$1" || ERR="sysctl KEY VALUE..."
	[ $# -eq 0 ] || shift
	for cle_f in "$@"; do is_sysctl_val "$cle_f" || ERR="sysctl value '$cle_f'"; done
}
sysctl_path() { # KEY -> SPATH: dots as slashes, unless KEY has a / (an interface name with dots)
	case $1 in */*) SPATH=$1; return ;; esac
	SPATH='' scp_r=$1
	while :; do
		case $scp_r in *.*) SPATH="$SPATH${scp_r%%.*}/"; scp_r=${scp_r#*.} ;; *) SPATH=$SPATH$scp_r; break ;; esac
	done
}
v_sysctl_run() {
	ssl_key=$1; shift
	sysctl_path "$ssl_key"
	file_knob 14 sysctl - "$ssl_key" "$PROC/sys/$SPATH" "$*" str
}
v_sysctl_revert() { sysctl_path "$2"; wr "$PROC/sys/$SPATH" "$3"; }

# module NAME: modprobe unless in /proc/modules (Freescale ASF); saves
# nothing: revert leaves it loaded
v_module_check() { [ $# -eq 1 ] && is_word "$1" || ERR="module NAME"; }
v_module_run() {
	if grep -q "^$1 " "$PROC/modules" 2>/dev/null; then report "$OKWORD" module - "$1" loaded loaded ""; return; fi
	[ "$MODE" = status ] && { report differs module - "$1" loaded absent ""; return; }
	if modprobe "$1" 2>"$ERRF" </dev/null; then report applied module - "$1" loaded loaded ""
	else read_errf; report skipped module - "$1" loaded absent "modprobe: $ERRTXT"; fi
}
v_module_revert() { return 1; }

# asf udp-timeout SECONDS: file_knob on /sys/asfctrl/ffp/asfctrl_ffp_udp_tmout
# (QorIQ SDK); saves 15; revert writes it
v_asf_check() { [ $# -eq 2 ] && [ "$1" = udp-timeout ] && is_num "$2" || ERR="asf udp-timeout SECONDS"; }
v_asf_run() { file_knob 15 asf - "$1" "$SYS/asfctrl/ffp/asfctrl_ffp_udp_tmout" "$2" num; }
v_asf_revert() { wr "$SYS/asfctrl/ffp/asfctrl_ffp_udp_tmout" "$3"; }

# --- plan
PLAN='' IFILTER='' BOARD='?'
# read_plan PASS(check|run); check refuses (exit 2) a truncated or damaged
# plan: last line "end STEPS CKSUM BYTES" (docs/plan-format.md)
read_plan() {
	rpn_pass=$1 rpn_lno=0 rpn_ver=0 rpn_end='' rpn_n=0 rpn_bad=''
	while :; do
		rpn_line=
		if IFS= read -r rpn_line <&3; then :
		elif [ -n "$rpn_line" ]; then
			die "$PLAN:$((rpn_lno + 1)): last line has no newline: the plan is truncated; nothing was changed"
		else break; fi
		rpn_lno=$((rpn_lno + 1))
		[ -z "$rpn_end" ] || die "$PLAN:$rpn_lno: text after the end line; $DMG"
		case $rpn_line in ''|'#'*) rpn_line=; continue ;; esac
		set -- $rpn_line
		rpn_line=
		[ $# -gt 0 ] || continue # blanks only (found by fuzzing: $1 unset)
		if [ $rpn_ver = 0 ]; then
			{ [ "$1 ${2-}" = "zynq-net-plan 2" ] && [ $# -eq 2 ]; } ||
				die "$PLAN:$rpn_lno: not a zynq-net plan version 2 (first line must be 'zynq-net-plan 2')"
			rpn_ver=1; continue
		fi
		if [ "$1" = end ]; then
			[ "$rpn_pass" = run ] && break
			rpn_end="$rpn_lno $*"; continue
		fi
		if [ "$rpn_pass" = check ]; then
			rpn_n=$((rpn_n + 1))
			[ -n "$rpn_bad" ] && continue
			# an unknown verb is skipped at run time (forward compatibility)
			is_verb "$1" || continue
			rpn_l=$* rpn_verb=$1 ERR=; shift
			"v_${rpn_verb}_check" "$@"
			[ -z "$ERR" ] || rpn_bad="$PLAN:$rpn_lno: invalid step '$rpn_l': expected $ERR"
			continue
		fi
		rpn_verb=$1; shift
		# the interface filter (hot-plug) keeps only that interface's steps
		if [ -n "$IFILTER" ]; then
			case $rpn_verb in board|sysctl) ;; *) [ "${1-}" = "$IFILTER" ] || continue ;; esac
			[ "$rpn_verb" = sysctl ] && continue
		fi
		# an ethtool group (eth_add) ends at another verb or interface
		if [ -n "$G_VERB" ]; then
			{ [ "$rpn_verb" = "$G_VERB" ] && [ "${1-}" = "$G_IF" ]; } || flush_eth
		fi
		if [ -n "$IDBAD" ]; then
			case $rpn_verb in board|sysctl|module|asf|wait|ident) ;; *)
				case $IDBAD in *"|${1-}|"*) id_skip "$rpn_verb" "$@"; continue ;; esac ;;
			esac
		fi
		if is_verb "$rpn_verb"; then "v_${rpn_verb}_run" "$@"
		else printable "$rpn_verb ${1:--}"; report skipped "${PR% *}" "${PR##* }" - "" "" "unknown verb (newer plan?)"; fi
	done 3<"$PLAN"
	[ $rpn_ver = 1 ] || die "$PLAN: empty plan (no 'zynq-net-plan 2' line)"
	if [ "$rpn_pass" = check ]; then
		[ -n "$rpn_end" ] || die "$PLAN: no end line ('end STEPS CKSUM BYTES'): the plan is truncated; nothing was changed"
		check_end "$PLAN" plan "${rpn_end#* }" "$rpn_n"
		[ -z "$rpn_bad" ] || die "$rpn_bad"
	fi
	[ "$rpn_pass" = run ] && flush_eth
	return 0
}

# --- lock
LOCKED=0
lock() {
	lk_w=0
	case $LOCK in */*) [ -d "${LOCK%/*}" ] || die "no directory for the lock $LOCK" 1 ;; esac
	lk_nopid=0
	while ! mkdir "$LOCK" 2>/dev/null; do
		rd "$LOCK/pid"
		if [ -n "$VAL" ] && is_num "$VAL" && ! kill -0 "$VAL" 2>/dev/null; then
			rm -rf "$LOCK"; continue # stale: its owner is gone
		fi
		# still no pid a second later: the owner died before writing it
		if [ -z "$VAL" ] || ! is_num "$VAL"; then
			if [ $lk_nopid = 1 ]; then rm -rf "$LOCK"; lk_nopid=0; continue; fi
			lk_nopid=1; sleep 1; continue
		fi
		lk_nopid=0
		[ $lk_w -ge "$LOCK_WAIT" ] && die "locked by pid ${VAL:-?} ($LOCK)" 4
		sleep 1; lk_w=$((lk_w + 1))
	done
	LOCKED=1
	printf '%s\n' "$$" >"$LOCK/pid"
}
unlock() { if [ "$LOCKED" = 1 ]; then rm -rf "$LOCK"; fi; LOCKED=0; }

# --- revert
do_revert() {
	drt_list='' drt_keep=''
	# newest first: undo in the reverse order of apply (JOURNAL: verified by state_init)
	drt_j=$JOURNAL
	while [ -n "$drt_j" ]; do drt_list="${drt_j%%"$NL"*}$NL$drt_list"; drt_j=${drt_j#*"$NL"}; done
	[ -n "$drt_list" ] || { [ "$QUIET" = 1 ] || [ "$JSON" = 1 ] || echo "nothing to revert"; return 0; }
	while [ -n "$drt_list" ]; do
		drt_l=${drt_list%%"$NL"*}; drt_list=${drt_list#*"$NL"}
		drt_k=${drt_l%% *} drt_ov=${drt_l#* }
		drt_r=${drt_k#*+}; drt_rv=${drt_r%%+*}; drt_r=${drt_r#*+}
		drt_ri=${drt_r%%+*} drt_rt=${drt_r#*+} RSHOW=$drt_ov RGONE=
		: >"$ERRF"
		if is_verb "$drt_rv" && "v_${drt_rv}_revert" "$drt_ri" "$drt_rt" "$drt_ov"; then
			report restored "$drt_rv" "$drt_ri" "$drt_rt" "$RSHOW" "" ""; continue
		fi
		read_errf; classify "$ERRTXT"
		case $ERRTXT in *"No such file"*|*"Cannot find"*|*"not find"*) RGONE=1 ;; esac
		if [ "$RGONE" = 1 ]; then report restored "$drt_rv" "$drt_ri" "$drt_rt" "$RSHOW" "" "already gone"; continue; fi
		report failed "$drt_rv" "$drt_ri" "$drt_rt" "$RSHOW" "" "$WHY"
		drt_keep="$drt_l$NL$drt_keep"
	done    # what could not be restored stays for the next revert
	JOURNAL=$drt_keep JN=0 JDIRTY=1
	while [ -n "$drt_keep" ]; do JN=$((JN + 1)); drt_keep=${drt_keep#*"$NL"}; done
	journal_seal || die "cannot write $STATE/saved" 1
	set +f; rm -f "$STATE"/ntuple+*; set -f
}

# --- main
[ $# -ge 1 ] || { usage >&2; exit 2; }
CMD=$1; shift
case $CMD in
-h|--help|help) usage; exit 0 ;;
apply|status|revert) ;;
*) usage >&2; exit 2 ;;
esac
while [ $# -gt 0 ]; do
	case $1 in
	--json) JSON=1 ;;
	-q|--quiet) QUIET=1 ;;
	--hotplug) HOTPLUG=1 ;;
	--iface) { [ $# -ge 2 ] && is_ifname "$2"; } || die "--iface needs a valid interface name"; IFILTER=$2; shift ;;
	--iface=*) is_ifname "${1#--iface=}" || die "--iface needs a valid interface name"; IFILTER=${1#--iface=} ;;
	-h|--help) usage; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) [ -z "$PLAN" ] || die "one plan only"; PLAN=$1 ;;
	esac
	shift
done
MODE=$CMD
OKWORD=unchanged
[ "$MODE" = status ] && OKWORD=ok
if [ "$MODE" = revert ]; then
	[ -z "$PLAN" ] || die "revert takes no plan (it restores what apply saved)"
else
	[ -n "$PLAN" ] || die "$CMD needs a PLAN"
	{ [ -f "$PLAN" ] && [ -r "$PLAN" ]; } || die "cannot read plan $PLAN"
	read_plan check
fi

HAVE_OUT=0
if [ "$HOTPLUG" = 1 ]; then
	# udev/mdev "add" events: coldplug ones arrive before the boot-time run,
	# which tunes every interface itself; act only after that run.
	{ [ "$MODE" = apply ] && [ -n "$IFILTER" ]; } || die "--hotplug goes with apply --iface"
	rd "$PROC/sys/kernel/random/boot_id" && BOOTID=$VAL
	rd "$STATE/boot_id" || VAL=''
	[ "$VAL" = "$BOOTID" ] || exit 0
fi
if [ "$MODE" = status ]; then
	ERRF=${TMPDIR:-/tmp}/zynq-net-status.$$
else
	lock
	trap 'journal_close; unlock; rm -f "$ERRF" "$ERRF.v"' EXIT
	trap 'exit 130' INT TERM
	state_init
	ERRF=$STATE/.err.$$
	if { command exec 5>"$STATE/last-report.new"; } 2>/dev/null; then HAVE_OUT=1; fi
fi
[ "$MODE" = status ] && trap 'rm -f "$ERRF" "$ERRF.v"' EXIT
: >"$ERRF" || die "cannot write $ERRF" 1

if [ "$JSON" = 1 ]; then
	json_esc "$BOARD"
	JB=$JE
	json_esc "$PLAN"
	printf '{"command":"%s","board":"%s","plan":"%s","steps":[\n' "$MODE" "$JB" "$JE"
fi
if [ "$MODE" = revert ]; then
	rd "$STATE/board" && BOARD=$VAL
	do_revert
else
	[ "$MODE" = apply ] && printf '%s\n' "$BOARD" >"$STATE/board"
	read_plan run
fi

if [ "$MODE" = status ]; then
	SUMMARY="$CNT_O ok, $CNT_D differ, $CNT_S skipped, $CNT_F failed"
	RC=0; [ $((CNT_D + CNT_S + CNT_F)) -gt 0 ] && RC=3
elif [ "$MODE" = revert ]; then
	SUMMARY="$CNT_R restored, $CNT_F failed"
	RC=0; [ "$CNT_F" -gt 0 ] && RC=3
else
	SUMMARY="$CNT_A applied, $CNT_U unchanged, $CNT_S skipped, $CNT_F failed"
	RC=0; [ $((CNT_S + CNT_F)) -gt 0 ] && RC=3
fi
if [ "$JSON" = 1 ]; then
	printf '\n],"applied":%s,"unchanged":%s,"ok":%s,"differs":%s,"skipped":%s,"failed":%s,"restored":%s,"exit":%s}\n' \
		"$CNT_A" "$CNT_U" "$CNT_O" "$CNT_D" "$CNT_S" "$CNT_F" "$CNT_R" "$RC"
fi
SUMMARY="zynq-net: $BOARD: $MODE${IFILTER:+ $IFILTER}: $SUMMARY"
[ "$JSON" = 1 ] || printf '%s\n' "$SUMMARY"
if [ "$HAVE_OUT" = 1 ]; then
	printf '%s\n' "$SUMMARY" >&5
	exec 5>&-
	mv -f "$STATE/last-report.new" "$STATE/last-report" 2>/dev/null
	# the log keeps every run: a header, the report, the summary
	{ printf '== %s %s %s\n' "$(date '+%Y-%m-%dT%H:%M:%S%z' 2>/dev/null)" "$MODE" "${PLAN:-}"
	  cat "$STATE/last-report"; } >>"$LOG" 2>/dev/null
fi
exit "$RC"
