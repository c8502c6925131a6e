#!/bin/bash
# Description: fio --enghelp shows every engine option's range or choices, and fio's parser enforces them
# Tier: quick
# Timeout: 600
# In full: fio --enghelp shows every engine option's range or choices, and the installed fio's own
# parser refuses a value just outside each (non-zero exit, "fio: failed parsing NAME=VALUE") and takes
# the limits themselves
. "$(dirname "$0")/lib.sh"
# The oracle is fio's parser (parse.c of the installed fio), reached through
# --enghelp and --parse-only; nothing here reads dbfio's option tables.
#
# Free-text options: names of files, pools, images, prefixes; no range, no choices.
FREE=" ceph_conf clientname pool rbdname store_root lat_json ddl_mix table_json log_prefix lsn_file
	write_trace checkpoint_log txn_group_trace waldir ddl_cpu clustername snap_prefix snap_json calibration summary_json"
FREE=" $(echo $FREE) "
# Documented limits, by hand from the databases' manuals (engine option min max):
SPOT="redolog innodb_flush_log_at_trx_commit 0 2
redolog innodb_log_write_ahead_size 512 16384
redolog wal_segment_size 1048576 1073741824
txn commit_delay 0 100000
txn commit_siblings 0 1000
txn wal_segments 2 1024
pgpage extend_ratio 0 100
pgpage block_size 512 65536
metastorm init_pages 0 1024
rbdsnap connect_timeout 1000000 86400000000"
BIG=4611686018427387904		# 2^62: above every range; a power of two (pow2 options)

# parse SO VALUE-ARG: fio's parser only; output in $TMP/p.out, fio's status returned
parse() { "$FIO" --parse-only --name=p --ioengine="external:$1" "$2" >"$TMP/p.out" 2>&1; }
# (each engine is checked in a subshell of its own, two at a time: its own $TMP/p.out)
# refused SO NAME VALUE: non-zero, and fio's line naming the option and the value
refused() {
	parse "$1" "--$2=$3" && { cat "$TMP/p.out"; fail "$e: $2=$3 accepted"; }
	grep -qxF "fio: failed parsing $2=$3" "$TMP/p.out" ||
		{ cat "$TMP/p.out"; fail "$e: $2=$3: no line 'fio: failed parsing $2=$3'"; }
}
# taken SO NAME VALUE: queued, and parsed in one fio call per engine (takes_all)
taken() { TAKE+=("--$2=$3"); }
# takes_all SO: fio's parser takes every queued value (each alone when not)
takes_all() {
	"$FIO" --parse-only --name=p --ioengine="external:$1" "${TAKE[@]}" >"$TMP/p.all.out" 2>&1 && return 0
	local a
	for a in "${TAKE[@]}"; do
		parse "$1" "$a" || { cat "$TMP/p.out"; fail "$e: ${a#--} (a limit) refused"; }
	done
	cat "$TMP/p.all.out"; fail "$e: the limits together refused, each alone taken"
}
# int32 N: N as fio 3.33's --enghelp prints it (printf "%d" of a 64-bit max)
int32() { local v=$(($1 & 0xffffffff)); echo $((v >= 2147483648 ? v - 4294967296 : v)); }

# check_engine SO: every option of one engine; its counts and ranges into $TMP/$e/counts, seen
check_engine() {
	local so=$1 o h type range lo hi shown big u vals v
	e=$(basename "$so" .so)
	TMP=$TMP/$e && mkdir -p "$TMP"
	TAKE=()
	nnum=0 nchoice=0 nfree=0 nwide=0
	opts=$("$FIO" --enghelp="$so" | sed -n 's/^\([a-z_0-9]*\) *: .*/\1/p')
	[ -n "$opts" ] || fail "$e: --enghelp lists no option"
	for o in $opts; do
		h=$("$FIO" --enghelp="$so,$o")
		type=$(sed -n 's/^ *type: //p' <<<"$h")
		range=$(sed -n 's/^ *range: //p' <<<"$h")
		case $type in
		"boolean value"*)
			[ "$range" = "min=0, max=1" ] || fail "$e: $o (bool) shows range '$range'"
			refused "$so" "$o" 2; taken "$so" "$o" 1
			nnum=$((nnum + 1)) ;;
		"list of floating point"*)
			[[ $range =~ ^min=([0-9.-]+),\ max=([0-9.-]+)$ ]] || fail "$e: $o shows no range ('$range')"
			lo=${BASH_REMATCH[1]} hi=${BASH_REMATCH[2]}
			refused "$so" "$o" "$(awk -v v="$hi" 'BEGIN{printf "%.2f", v + 0.01}')"
			refused "$so" "$o" "$(awk -v v="$lo" 'BEGIN{printf "%.2f", v - 0.01}')"
			taken "$so" "$o" "$hi"; taken "$so" "$o" "$lo"
			nnum=$((nnum + 1)) ;;
		"integer value"*|"string with time postfix"*)
			u=; [[ $type = "string with time"* ]] && u=us
			[[ $range =~ ^min=(-?[0-9]+),\ max=(-?[0-9]+)$ ]] ||
				fail "$e: $o shows no full range ('$range')"
			lo=${BASH_REMATCH[1]} shown=${BASH_REMATCH[2]}
			# the real max, from fio's refusal of 2^62 (an int option: of 2^30;
			# fio 3.33 cuts an int option's value to 32 bits before it compares,
			# so 2^62 is 0 there: taken, or refused as below a minimum)
			hi=
			for big in $BIG 1073741824; do
				parse "$so" "--$o=$big$u" && continue
				hi=$(sed -n "s/^$o: max value out of range: [0-9]* (\([0-9]*\) max)$/\1/p" "$TMP/p.out")
				[ -n "$hi" ] && break
			done
			[ -n "$hi" ] || { cat "$TMP/p.out"; fail "$e: $o: no 'max value out of range' refusal of $BIG or 2^30"; }
			[ "$(int32 "$hi")" = "$shown" ] || fail "$e: $o: --enghelp shows max=$shown, fio refuses above $hi"
			[ "$hi" = "$shown" ] || nwide=$((nwide + 1))
			refused "$so" "$o" "$((hi + 1))$u"; taken "$so" "$o" "$hi$u"
			if [ "$lo" -gt 0 ]; then
				refused "$so" "$o" "$((lo - 1))$u"; taken "$so" "$o" "$lo$u"
			fi
			echo "$o $lo $hi" >>"$TMP/seen"
			nnum=$((nnum + 1)) ;;
		"string (opt=bla)"*)
			vals=$(sed -n 's/^ *\(valid values\)\{0,1\}: \([^ ]*\).*/\2/p' <<<"$h" | grep -v "^$o$")
			if [ -n "$vals" ]; then
				refused "$so" "$o" dbfio-no-such-value
				for v in $vals; do taken "$so" "$o" "$v"; done
				nchoice=$((nchoice + 1))
			else
				[[ $FREE = *" $o "* ]] || fail "$e: $o: a string option with neither choices nor a place in FREE"
				nfree=$((nfree + 1))
			fi ;;
		*)
			fail "$e: $o: type '$type' (a numeric option must be integer, time, bool or float)" ;;
		esac
	done
	takes_all "$so"
	echo "$nnum $nchoice $nfree $nwide" >"$TMP/counts"
	ok "$e: every option shows its range or choices; fio refuses just outside, takes the limits"
}
pids=()
for so in "$B"/*.so; do
	[ "$(basename "$so")" = libdbfio.so ] && continue	# the store layer, not an engine
	e=$(basename "$so" .so)
	( check_engine "$so" ) >"$TMP/$e.log" 2>&1 &
	pids+=("$!:$e")
	# two at a time (the machine's cores): wait for the oldest
	if [ ${#pids[@]} -ge 2 ]; then
		wait "${pids[0]%%:*}" || { cat "$TMP/${pids[0]#*:}.log"; fail "${pids[0]#*:}: see above"; }
		cat "$TMP/${pids[0]#*:}.log"
		pids=("${pids[@]:1}")
	fi
done
for p in "${pids[@]}"; do
	wait "${p%%:*}" || { cat "$TMP/${p#*:}.log"; fail "${p#*:}: see above"; }
	cat "$TMP/${p#*:}.log"
done
nnum=0 nchoice=0 nfree=0 nwide=0
for c in "$TMP"/*/counts; do
	read -r a b c2 d <"$c"
	nnum=$((nnum + a)) nchoice=$((nchoice + b)) nfree=$((nfree + c2)) nwide=$((nwide + d))
done
while read -r e o lo hi; do
	[ -f "$B/$e.so" ] || continue
	got=$(awk -v o="$o" '$1 == o { print $2, $3 }' "$TMP/$e/seen" 2>/dev/null)
	[ "$got" = "$lo $hi" ] || fail "$e: $o: range '${got:-none}', documented $lo..$hi"
done <<<"$SPOT"
# ${VAR} job variables: fio substitutes them before its parser checks the value
cat >"$TMP/var.fio" <<'EOF2'
[var]
ioengine=external:${DBFIO_LIB}/redolog.so
flavor=${T_FLAVOR}
wal_segments=${T_SEGS}
EOF2
DBFIO_LIB=$B T_FLAVOR=postgres T_SEGS=4 "$FIO" --parse-only "$TMP/var.fio" >"$TMP/p.out" 2>&1 ||
	{ cat "$TMP/p.out"; fail "a job file with \${T_FLAVOR}=postgres \${T_SEGS}=4 refused"; }
DBFIO_LIB=$B T_FLAVOR=postgres T_SEGS=1 "$FIO" --parse-only "$TMP/var.fio" >"$TMP/p.out" 2>&1 &&
	fail "wal_segments=\${T_SEGS}=1 accepted"
# (from a job file fio 3.33's last line names the option only; the line before it the value)
grep -qx "wal_segments: min value out of range: 1 (2 min)" "$TMP/p.out" &&
	grep -q "^fio: failed parsing wal_segments" "$TMP/p.out" || { cat "$TMP/p.out"; fail "\${T_SEGS}=1: not fio's lines"; }
ok "\${VAR} values parsed and checked as typed ones"
ok "$nnum numeric options (range; $nwide with a max over 2^31, shown truncated by fio 3.33), $nchoice with choices, $nfree free text; documented limits match"
