#!/bin/bash
# Description: bad input, the lab tools: a missing directory, a count of 0, an unknown name refused in one line, no traceback
# Tier: quick
# Timeout: 120
# In full: each lab tool given a bad option value stops before it starts anything (no server,
# no fio) with exit 2 (1 where it also needs root) and a last line that names the option or the
# value and why; never a Python traceback. Only values a tool checks before it starts a server
# or a cluster are tried, so the test runs anywhere (without root, where a tool asks for root
# first, that refusal is what is checked).
. "$(dirname "$0")/lib.sh"
: >"$TMP/file"
# lab_refuse NAME PATTERN CMD...: CMD exits 1 or 2 within 20 s, its output has no traceback,
# and its last line matches PATTERN (grep -E)
lab_refuse() {
	local name=$1 pat=$2 rc last
	shift 2
	timeout 20 "$@" >"$TMP/$name.out" 2>&1
	rc=$?
	grep -q '^Traceback' "$TMP/$name.out" && fail "$name: '$*' crashed: $(grep -v '^ ' "$TMP/$name.out" | tail -1)"
	[ "$rc" = 1 ] || [ "$rc" = 2 ] || fail "$name: '$*' exited $rc, want 1 or 2: $(tail -1 "$TMP/$name.out")"
	last=$(tail -1 "$TMP/$name.out")
	echo "$last" | grep -Eq -- "$pat" || fail "$name: '$*' said '$last', want /$pat/"
	ok "$name: $last"
}
L=$REPO/lab
lab_refuse cpuregime-nodir "--dir $TMP/none: No such file or directory" "$L/cpuregime" --dir "$TMP/none"
lab_refuse cpuregime-file "--dir $TMP/file: not a directory" "$L/cpuregime" --dir "$TMP/file"
lab_refuse cpuregime-clients "--clients 'x'" "$L/cpuregime" --dir "$TMP" --clients x
lab_refuse cpuregime-clients0 "--clients '0,4'" "$L/cpuregime" --dir "$TMP" --clients 0,4
lab_refuse cpuregime-rounds "--rounds 0: want 1 or more" "$L/cpuregime" --dir "$TMP" --rounds 0
lab_refuse cpuregime-seconds "--seconds -1: want 1 or more" "$L/cpuregime" --dir "$TMP" --seconds -1
lab_refuse txncalib-nodir "existing --dir \($TMP/none\)" "$L/txncalib" --db postgres --dir "$TMP/none"
lab_refuse txncalib-seconds "--seconds.*at least 1" "$L/txncalib" --db postgres --dir "$TMP" --seconds 0
lab_refuse ddlcalib-nodir "existing --dir \($TMP/none\)" "$L/ddlcalib" --db postgres --dir "$TMP/none"
lab_refuse commitgap-rounds "--rounds 0: at least 1" "$L/commitgap" --dir "$TMP" --rounds 0
# lab/fidelity asks for root before it reads its targets
want="$TMP/none is not a directory"
[ "$(id -u)" = 0 ] || want="needs root"
lab_refuse fidelity-target "$want" "$L/fidelity" ratios --targets "local=$TMP/none"
lab_refuse experiment-only "--only seed009: unknown" "$L/experiment" --only seed009
