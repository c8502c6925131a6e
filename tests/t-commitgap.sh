#!/bin/bash
# Description: lab/commitgap refuses bad arguments in one line naming the argument and the value
# Timeout: 60
# In full: lab/commitgap refuses bad arguments in one line naming the argument and the value
# (--seconds/--rounds/--scale/--rows below 1, a --db other than postgres or mariadb, a profile without
# cpu_per_stmt=), exit non-zero, before any server is started (no data directory left under --dir)
. "$(dirname "$0")/lib.sh"
CG=$REPO/lab/commitgap
mkdir -p "$TMP/dir"
# refused ARGS... -- TEXT: non-zero, TEXT in the output, nothing made under --dir
refused() {
	local text=${*: -1} args=("${@:1:$#-2}")
	"$CG" --dir "$TMP/dir" "${args[@]}" >"$TMP/out" 2>&1 && { cat "$TMP/out"; fail "${args[*]}: accepted"; }
	grep -qF -- "$text" "$TMP/out" || { cat "$TMP/out"; fail "${args[*]}: no line with '$text'"; }
	[ -z "$(ls -A "$TMP/dir")" ] || fail "${args[*]}: left $(ls "$TMP/dir") under --dir"
	ok "${args[*]}: $(grep -F -- "$text" "$TMP/out" | head -1)"
}
refused --seconds 0 -- "--seconds 0: at least 1"
refused --rounds 0 -- "--rounds 0: at least 1"
refused --scale -2 -- "--scale -2: at least 1"
refused --db mariadb --rows 0 -- "--rows 0: at least 1"
refused --db mysql -- "argument --db: invalid choice: 'mysql'"
grep -v '^cpu_per_stmt=' "$REPO/jobs/txn-profiles/postgres15.fio" >"$TMP/nocpu.fio"
refused --profile "$TMP/nocpu.fio" -- "--profile $TMP/nocpu.fio: no cpu_per_stmt= line"
refused --profile "$TMP/none.fio" -- "--profile $TMP/none.fio: No such file or directory"
refused --clients 4,0 -- "'4,0': client counts N,N,... of at least 1"
refused --clients x -- "'x': client counts N,N,... of at least 1"
